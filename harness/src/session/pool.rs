//! Shared sessions. A server process whose scenario left it as it found it serves the next
//! scenario that needs the same session — the same revision and the same client capabilities —
//! so a run spawns and initializes one process per run of compatible scenarios instead of one
//! per scenario (a Python SDK server spends more than a second of CPU before its first word).
//!
//! Whether a session may be shared is decided from what its scenario did on it (its
//! [`Footprint`](super::footprint::Footprint): only reading requests, refused requests and rejected input, nothing in
//! flight; and the process still running) and how the scenario ended (nothing failed, warned or went wrong), never from a
//! list of scenarios. Each scenario keeps its own report entry: the recorder starts a fresh
//! record at every hand-over ([`ServerSession::hand_over`]); what a process writes after its
//! last scenario is charged to that scenario ([`SharedSession::retire`]).

use crate::judge::verdict::{Check, Verdict};
use crate::session::server::ServerSession;
use mcpspec_protocol::Revision;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// What a scenario needs of a session for another's to do: the revision it was initialized
/// at and the capabilities the client declared.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionKey {
    revision: Revision,
    /// The capabilities as JSON text (`serde_json` keeps the order written; the steps that
    /// declare them write them the same way each time).
    capabilities: String,
}

impl SessionKey {
    pub fn new(revision: Revision, capabilities: &Value) -> SessionKey {
        SessionKey { revision, capabilities: capabilities.to_string() }
    }
}

/// Which process a session runs in and the scenarios it has served, for their report entries.
#[derive(Debug, Clone)]
pub struct History {
    /// The process's number in this run, from 1.
    pub process: usize,
    /// The revision its scenarios run at.
    pub revision: Revision,
    /// The ids of the scenarios it served, oldest first; the last is the current one.
    pub served: Vec<String>,
}

impl History {
    /// What a scenario's report says about the process it ran in, once the process has served
    /// more than one scenario or goes on to the next: `None` for a process of its own.
    pub fn describe(&self, handed_on: Option<&str>) -> Option<String> {
        let n = self.served.len();
        let tail = match handed_on {
            None => "kept for the next scenario".to_owned(),
            Some(why) if n > 1 => format!("ended: {why}"),
            Some(_) => return None,
        };
        let first = self.served.first().map(String::as_str).unwrap_or("?");
        Some(match n {
            1 => format!("shared session #{}: its first scenario; {tail}", self.process),
            _ => format!("shared session #{}: scenario {n} on it (opened by {first}); {tail}", self.process),
        })
    }
}

/// A session between scenarios.
pub struct SharedSession {
    pub session: ServerSession,
    /// The server's answer to `initialize`, which the next scenario's steps read.
    pub server_description: Value,
    pub history: History,
}

impl SharedSession {
    /// Ends the process of a session no scenario will use again, and returns the id of the
    /// last scenario it served (and its revision) with what the server wrote after that
    /// scenario that broke a rule (a late notification, an invalid message), which that
    /// scenario is charged with.
    pub async fn retire(mut self) -> (String, Revision, Vec<Check>) {
        self.session.hand_over("the process ends: no later scenario needs it".into());
        self.session.shutdown().await;
        let tail = self.session.recorder().checks().into_iter().filter(|c| c.verdict > Verdict::Passed);
        (self.history.served.pop().unwrap_or_default(), self.history.revision, tail.collect())
    }
}

/// The idle sessions of a run.
pub struct SessionPool {
    enabled: bool,
    /// The most idle sessions kept; past it the oldest is retired.
    capacity: usize,
    idle: Mutex<VecDeque<(SessionKey, SharedSession)>>,
    processes: AtomicUsize,
}

impl SessionPool {
    /// A pool keeping up to `capacity` idle sessions, or — `enabled` false (`--isolate`) —
    /// none: every scenario then runs in a process of its own.
    pub fn new(enabled: bool, capacity: usize) -> SessionPool {
        SessionPool {
            enabled,
            capacity: capacity.max(1),
            idle: Mutex::new(VecDeque::new()),
            processes: AtomicUsize::new(0),
        }
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// A number for a new process, from 1.
    pub fn next_process(&self) -> usize {
        self.processes.fetch_add(1, Ordering::Relaxed) + 1
    }

    /// An idle session for `key`, the one idle the shortest time.
    pub fn take(&self, key: &SessionKey) -> Option<SharedSession> {
        let mut idle = self.idle.lock().expect("pool lock");
        let at = idle.iter().rposition(|(k, _)| k == key)?;
        idle.remove(at).map(|(_, s)| s)
    }

    /// Keeps a session for a later scenario; returns those that no longer fit, oldest first,
    /// for the caller to retire.
    #[must_use]
    pub fn put(&self, key: SessionKey, session: SharedSession) -> Vec<SharedSession> {
        let mut idle = self.idle.lock().expect("pool lock");
        idle.push_back((key, session));
        let over = idle.len().saturating_sub(self.capacity);
        idle.drain(..over).map(|(_, s)| s).collect()
    }

    /// Every idle session, for the end of the run.
    #[must_use]
    pub fn drain(&self) -> Vec<SharedSession> {
        self.idle.lock().expect("pool lock").drain(..).map(|(_, s)| s).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_describes_shared_processes_only() {
        let mut h = History { process: 3, revision: Revision::V2025_06_18, served: vec!["a/first".into()] };
        assert_eq!(h.describe(Some("the client sent tools/call")), None, "a process of its own");
        assert_eq!(
            h.describe(None).unwrap(),
            "shared session #3: its first scenario; kept for the next scenario"
        );
        h.served.push("b/second".into());
        assert_eq!(
            h.describe(Some("the client sent tools/call")).unwrap(),
            "shared session #3: scenario 2 on it (opened by a/first); ended: the client sent tools/call"
        );
    }
}
