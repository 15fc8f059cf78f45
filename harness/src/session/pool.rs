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
use crate::session::server::host::Host;
use crate::session::server::{ServerSession, TenantSeed};
use mcpspec_protocol::Revision;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What a scenario needs of a session for another's to do: the revision it was initialized
/// at and the capabilities the client declared.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SessionKey {
    revision: Revision,
    /// The capabilities as JSON text (`serde_json` keeps the order written; the steps that
    /// declare them write them the same way each time); empty in the modern era.
    capabilities: String,
}

impl SessionKey {
    /// In the modern era a client declares its capabilities in every request's `_meta`, and a
    /// server MUST NOT rely on prior requests for context (`basic/index.mdx`), so one process
    /// serves scenarios of any capabilities and the key is the revision alone; each scenario's
    /// session declares its own
    /// ([`crate::session::server::ServerSession::declare_capabilities`]).
    pub fn new(revision: Revision, capabilities: &Value) -> SessionKey {
        let capabilities = match revision.era() {
            mcpspec_protocol::revision::Era::Legacy => capabilities.to_string(),
            mcpspec_protocol::revision::Era::Modern => String::new(),
        };
        SessionKey { revision, capabilities }
    }
}

/// How a scenario holds a process others may use too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hold {
    /// With other scenarios at once: it was seen only reading.
    Shared,
    /// Alone, as a scenario that may change the server holds it, and likely to give it back
    /// soon: nothing shows it will change it, or take long.
    Alone,
    /// Alone, and not back soon if ever: a `@slow` scenario, or one seen changing the server.
    AloneLong,
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

/// A server process scenarios use at the same time, each a tenant with a session of its own
/// ([`ServerSession::join`]).
struct OpenHost {
    key: SessionKey,
    host: Arc<Host>,
    seed: TenantSeed,
    /// The server's answer to `initialize` (or `server/discover`), which tenants' steps read.
    server_description: Value,
    process: usize,
    /// How many scenarios have used it.
    tenants: usize,
    /// Held alone by a scenario likely to give it back soon ([`Hold::Alone`]).
    back_soon: bool,
}

/// A tenant whose scenario is over, kept until its process ends: what the server still writes
/// for it (a late notification) is charged to its scenario.
struct Departed {
    session: ServerSession,
    id: String,
    revision: Revision,
}

/// The idle sessions of a run, and the processes scenarios share at once.
pub struct SessionPool {
    enabled: bool,
    /// The most idle sessions kept; past it the oldest is retired.
    capacity: usize,
    idle: Mutex<VecDeque<(SessionKey, SharedSession)>>,
    hosts: Mutex<Vec<OpenHost>>,
    /// One turn per key to open a shared process, so the scenarios that need one at the same
    /// moment start one between them, not one each.
    opening: Mutex<std::collections::HashMap<SessionKey, Arc<tokio::sync::Mutex<()>>>>,
    departed: Mutex<Vec<Departed>>,
    processes: AtomicUsize,
}

/// A tenant's session on a shared process, with what its steps need to know of it.
pub struct Tenancy {
    pub session: ServerSession,
    pub server_description: Value,
    /// The process's number in this run, and how many scenarios have used it (this one
    /// included).
    pub process: usize,
    pub tenants: usize,
}

impl SessionPool {
    /// A pool keeping up to `capacity` idle sessions, or — `enabled` false (`--isolate`) —
    /// none: every scenario then runs in a process of its own.
    pub fn new(enabled: bool, capacity: usize) -> SessionPool {
        SessionPool {
            enabled,
            capacity: capacity.max(1),
            idle: Mutex::new(VecDeque::new()),
            hosts: Mutex::new(Vec::new()),
            opening: Mutex::new(std::collections::HashMap::new()),
            departed: Mutex::new(Vec::new()),
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

    /// Lets scenarios needing `key` use the process of `session` (settled, its scenario's
    /// first tenant) at once; returns the session as that tenant, or as it was over a
    /// transport that cannot be shared so (HTTP).
    /// Held alone (`hold`), the scenario may change the server, and holds the process alone
    /// until it releases it ([`ServerSession::release_process`]).
    pub fn open_host(
        &self,
        key: SessionKey,
        session: ServerSession,
        server_description: &Value,
        process: usize,
        hold: Hold,
    ) -> ServerSession {
        if !self.enabled {
            return session;
        }
        let seed = session.tenant_seed();
        match session.into_tenant() {
            (tenant, Some(host)) => {
                if hold != Hold::Shared {
                    host.lease_to_first();
                }
                let open = OpenHost {
                    key,
                    host,
                    seed,
                    server_description: server_description.clone(),
                    process,
                    tenants: 1,
                    back_soon: hold == Hold::Alone,
                };
                let mut hosts = self.hosts.lock().expect("hosts lock");
                hosts.retain(|h| !h.host.is_closed() || h.host.present() > 0);
                hosts.push(open);
                // Past the pool's capacity of idle processes, the oldest idle ones end.
                let idle: Vec<usize> = (0..hosts.len())
                    .filter(|i| hosts[*i].host.present() == 0 && hosts[*i].host.is_open())
                    .collect();
                for i in idle.iter().take(idle.len().saturating_sub(self.capacity)).rev() {
                    let ended = hosts.remove(*i).host;
                    ended.close("no scenario needed it for a while");
                    tokio::spawn(async move { ended.shutdown().await });
                }
                tenant
            }
            (session, None) => session,
        }
    }

    /// Takes an initialized session that no scenario holds (a probe's, or one whose scenario
    /// started its process itself and has ended) as an idle shared process (`process`) for the
    /// scenarios needing `revision` with `capabilities`: from now on mcpspec plays a client
    /// declaring them there, and what the session did before is not theirs.
    pub async fn adopt(
        &self,
        mut session: ServerSession,
        revision: Revision,
        capabilities: &Value,
        server_description: &Value,
        process: usize,
    ) {
        session.set_persona(mcpspec_reference::client::ClientPersona::new(capabilities.clone()));
        session.settle();
        let key = SessionKey::new(revision, capabilities);
        let mut first = self.open_host(key, session, server_description, process, Hold::Alone);
        first.release_process(None);
        first.shutdown().await;
    }

    /// The turn to open a shared process for `key`: held from looking for one to opening one.
    pub fn opening_turn(&self, key: &SessionKey) -> Arc<tokio::sync::Mutex<()>> {
        self.opening.lock().expect("opening lock").entry(key.clone()).or_default().clone()
    }

    /// A session for `key` on a process that takes tenants (its record headed by `note`): for a
    /// scenario that only reads ([`Hold::Shared`]), one other scenarios may be using at the same
    /// time; for one that may change the server, one nobody is using, which it then holds alone.
    pub fn join(&self, key: &SessionKey, hold: Hold, note: impl Fn(usize) -> String) -> Option<Tenancy> {
        let alone = hold != Hold::Shared;
        let mut hosts = self.hosts.lock().expect("hosts lock");
        let open = hosts
            .iter_mut()
            .rev()
            .find(|h| &h.key == key && h.host.is_open() && (!alone || h.host.present() == 0))?;
        let session = ServerSession::join(&open.host, &open.seed, note(open.process), alone)?;
        open.tenants += 1;
        open.back_soon = hold == Hold::Alone;
        Some(Tenancy {
            session,
            server_description: open.server_description.clone(),
            process: open.process,
            tenants: open.tenants,
        })
    }

    /// How many processes for `key` are held alone by scenarios likely to give them back soon
    /// ([`Hold::Alone`]): those that may come free for the next scenario in a moment.
    pub fn coming_free(&self, key: &SessionKey) -> usize {
        let hosts = self.hosts.lock().expect("hosts lock");
        hosts
            .iter()
            .filter(|h| &h.key == key && h.back_soon && !h.host.is_closed() && h.host.present() > 0)
            .count()
    }

    /// Keeps a tenant whose scenario is over until its process ends.
    pub fn depart(&self, mut session: ServerSession, id: String, revision: Revision) {
        session.hand_over("the scenario had ended; its process went on serving others".into());
        self.departed.lock().expect("departed lock").push(Departed { session, id, revision });
    }

    /// Ends every shared process (its scenarios are over), and returns, per scenario that
    /// used one, what the server wrote for it after it ended that broke a rule.
    pub async fn close_hosts(&self) -> Vec<(String, Revision, Vec<Check>)> {
        let hosts = std::mem::take(&mut *self.hosts.lock().expect("hosts lock"));
        futures::future::join_all(hosts.iter().map(|h| h.host.shutdown())).await;
        let departed = std::mem::take(&mut *self.departed.lock().expect("departed lock"));
        let mut late = Vec::new();
        for Departed { mut session, id, revision } in departed {
            // Only what is already in its inbox: the process has ended.
            let _ = session.drain(Duration::from_millis(1)).await;
            let checks: Vec<Check> =
                session.recorder().checks().into_iter().filter(|c| c.verdict > Verdict::Passed).collect();
            if !checks.is_empty() {
                late.push((id, revision, checks));
            }
        }
        late
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
