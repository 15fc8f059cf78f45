//! Run-level bounds: however the implementation behaves, a run ends on time. Single waits are
//! bounded by `--timeout`; this module bounds the run as a whole.
//!
//! - The gate: an implementation that cannot be brought to a working session — it dies at
//!   start, exits at once, never answers, writes only garbage — stops the run after a few
//!   attempts ([`ATTEMPTS`], each a fresh process), with one verdict naming what it did, instead
//!   of every scenario waiting out its own timeout. One session that works (any well-formed
//!   answer from a server; a client that connects) opens the gate for good: from then on each
//!   scenario judges what it sees.
//! - The deadline (`--deadline SECS`): scenarios still running when it passes are reported as
//!   errors with the reason, and the reports are written.
//!
//! Both end a run the way a signal does ([`mcpspec::report::Results`] keeps what finished): the
//! suite is dropped, and every session it held ends its process group on drop.

use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;
use tokio::time::Instant;

/// Sessions that must fail, with none working, before the gate stops the run.
pub const ATTEMPTS: usize = 3;

/// Why a run stopped before its scenarios ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// The implementation could not be brought to a working session: the verdict, in words.
    NoSession(String),
    /// The run's deadline passed.
    Deadline(Duration),
}

impl Stopped {
    /// The reason given to every scenario that did not finish.
    pub fn reason(&self) -> String {
        match self {
            Stopped::NoSession(why) => format!("not run: {why}"),
            Stopped::Deadline(d) => {
                format!("not finished: the run's --deadline of {} s passed", d.as_secs_f64())
            }
        }
    }
}

/// The bounds of one run: its gate and its deadline.
pub struct RunBounds {
    role: &'static str,
    deadline: Option<(Instant, Duration)>,
    gate: Mutex<GateState>,
    stopped: watch::Sender<Option<Stopped>>,
}

#[derive(Default)]
struct GateState {
    working: bool,
    /// What each failed attempt saw, in order.
    failures: Vec<String>,
    /// Processes the failed attempts left running outside their process groups.
    left: Vec<String>,
}

impl RunBounds {
    /// `role`: `server` or `client`, as verdicts name the implementation; `deadline`: the whole
    /// run's, from now.
    pub fn new(role: &'static str, deadline: Option<Duration>) -> RunBounds {
        RunBounds {
            role,
            deadline: deadline.map(|d| (Instant::now() + d, d)),
            gate: Mutex::new(GateState::default()),
            stopped: watch::channel(None).0,
        }
    }

    /// A session worked: the gate stays open for the rest of the run.
    pub fn contact(&self) {
        self.gate.lock().expect("gate lock").working = true;
    }

    /// A session could not be brought to work; `behaviour` says what the implementation did
    /// instead. After [`ATTEMPTS`] of them with none working, the run stops.
    /// `left`: processes it left running outside its process group (named in the verdict).
    pub fn no_contact(&self, behaviour: String, left: &[String]) {
        let verdict = {
            let mut gate = self.gate.lock().expect("gate lock");
            gate.failures.push(behaviour);
            gate.left.extend_from_slice(left);
            if gate.working || gate.failures.len() < ATTEMPTS {
                return;
            }
            self.verdict(&gate.failures, &gate.left)
        };
        self.stop(Stopped::NoSession(verdict));
    }

    /// Closes the gate before any attempt: the implementation is known to be out of reach
    /// (`verdict` says how), so every scenario is reported as not run, with no verdict.
    pub fn unreachable(&self, verdict: String) {
        self.stop(Stopped::NoSession(verdict));
    }

    /// Whether the gate is still undecided or open: how many attempts failed so far, and
    /// whether one worked.
    pub fn attempts(&self) -> (usize, bool) {
        let gate = self.gate.lock().expect("gate lock");
        (gate.failures.len(), gate.working)
    }

    /// "the server could not be brought to a working session in 3 attempts (each a fresh
    /// process): it never answered initialize within 1 s …": the distinct behaviours, most
    /// frequent first.
    fn verdict(&self, failures: &[String], left: &[String]) -> String {
        // Attempts that did the same differ in their counts (bytes, lines): compared without.
        let key = |f: &str| f.chars().filter(|c| !c.is_ascii_digit()).collect::<String>();
        let mut distinct: Vec<(&String, usize)> = Vec::new();
        for f in failures {
            match distinct.iter_mut().find(|(d, _)| key(d) == key(f)) {
                Some((_, n)) => *n += 1,
                None => distinct.push((f, 1)),
            }
        }
        distinct.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
        let seen: Vec<String> = distinct
            .iter()
            .map(|(f, n)| if *n > 1 { format!("{f} ({n} times)") } else { (*f).clone() })
            .collect();
        let mut verdict = format!(
            "the {} could not be brought to a working session in {} attempts, each a fresh process: {}",
            self.role,
            failures.len(),
            seen.join("; ")
        );
        if !left.is_empty() {
            verdict.push_str(&format!(
                "; left running outside its process group (setsid), which mcpspec cannot end: {}",
                left.join(", ")
            ));
        }
        verdict
    }

    fn stop(&self, why: Stopped) {
        self.stopped.send_if_modified(|s| {
            if s.is_none() {
                *s = Some(why);
                true
            } else {
                false
            }
        });
    }

    /// Why the run stopped, if it did.
    pub fn stopped_why(&self) -> Option<Stopped> {
        self.stopped.borrow().clone()
    }

    /// Resolves when the run must stop: the gate closed, or the deadline passed.
    pub async fn stopped(&self) -> Stopped {
        let mut rx = self.stopped.subscribe();
        let deadline = async {
            match self.deadline {
                Some((at, d)) => {
                    tokio::time::sleep_until(at).await;
                    d
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            s = rx.wait_for(Option::is_some) => match s {
                Ok(s) => s.clone().expect("waited for Some"),
                Err(_) => std::future::pending().await,
            },
            d = deadline => {
                self.stop(Stopped::Deadline(d));
                self.stopped_why().unwrap_or(Stopped::Deadline(d))
            }
        }
    }
}

/// What a server did instead of answering the first request of a session (`method`, waited
/// for `within`), in words: "exited with status 0 at once", "never read its stdin", "sent 4096
/// notifications and no answer", "wrote only lines that are not MCP messages (…)".
pub fn server_behaviour(
    session: &mut mcpspec::session::server::ServerSession,
    method: &str,
    error: &mcpspec::session::server::WaitError,
    within: Duration,
) -> String {
    use mcpspec::session::server::WaitError;
    let heard = session.heard().clone();
    let process = session.process_state();
    let stderr = session.stderr_tail();
    let last_stderr =
        stderr.trim().lines().last().map(|l| format!("; last stderr line: {l}")).unwrap_or_default();
    let mut what = match (&process, error) {
        (Some((Some(exit), _)), _) => format!("it {exit} without answering {method}{last_stderr}"),
        (Some((None, _)), WaitError::Closed(_)) => {
            format!("it closed its stdout without answering {method} and kept running")
        }
        (Some((None, Some(unread))), _) if *unread > 0 => {
            format!("it never read its stdin ({unread} bytes of {method} left unread after {within:?})")
        }
        _ => match error {
            WaitError::Timeout(_) | WaitError::Silent { .. } => {
                format!("it never answered {method} within {within:?}")
            }
            other => format!("{method} got no answer: {other}"),
        },
    };
    if heard.not_messages > 0 && heard.messages == 0 {
        let why = heard.last_not_message.unwrap_or_default();
        what.push_str(&format!(
            "; it wrote only lines that are not MCP messages ({} of them: {why})",
            heard.not_messages
        ));
    } else if heard.notifications > 0 {
        what.push_str(&format!("; it sent {} notifications meanwhile", heard.notifications));
    }
    what
}
