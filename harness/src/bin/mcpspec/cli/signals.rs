//! The signals that stop a run: SIGINT (Ctrl-C), SIGTERM (a cancelled CI job, `timeout`) and
//! SIGHUP (a closed terminal). Each is caught the same way, so that however mcpspec is stopped
//! it ends every process group it started and writes the reports of what ran, instead of dying
//! at once and leaving the implementation's processes running.

use tokio::signal::unix::{signal, SignalKind};

/// A signal that stops a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Interrupt,
    Terminate,
    Hangup,
}

impl Stop {
    /// `SIGINT`, `SIGTERM`, `SIGHUP`: as reports name it.
    pub fn name(self) -> &'static str {
        match self {
            Stop::Interrupt => "SIGINT",
            Stop::Terminate => "SIGTERM",
            Stop::Hangup => "SIGHUP",
        }
    }

    /// The signal a report names (`SIGINT`, …), as [`Stop::name`] writes it.
    pub fn named(name: &str) -> Option<Stop> {
        [Stop::Interrupt, Stop::Terminate, Stop::Hangup].into_iter().find(|s| s.name() == name)
    }

    /// The exit code of a process ended by this signal, as shells report it (128 + its number).
    pub fn exit_code(self) -> u8 {
        match self {
            Stop::Interrupt => 130,
            Stop::Terminate => 143,
            Stop::Hangup => 129,
        }
    }
}

/// Catches the stopping signals from now on (their default action, dying at once, is replaced)
/// and resolves at the first of them. Listening starts when this is called, not when it is
/// first polled, so a signal that arrives in between is not lost. Resolves never when the
/// handlers cannot be installed (the run then goes on; it only loses this cleanup).
pub fn stopped() -> impl std::future::Future<Output = Stop> {
    let streams =
        [SignalKind::interrupt(), SignalKind::terminate(), SignalKind::hangup()].map(|k| signal(k).ok());
    async move {
        let [mut int, mut term, mut hup] = streams;
        async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
            match s {
                Some(s) => {
                    s.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = recv(&mut int) => Stop::Interrupt,
            _ = recv(&mut term) => Stop::Terminate,
            _ = recv(&mut hup) => Stop::Hangup,
        }
    }
}
