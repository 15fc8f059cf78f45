//! One server process that several scenarios use at once over stdio, each as a *tenant* with a
//! session of its own ([`super::ServerSession`] over a [`TenantLink`]): its own ids, its own
//! recorder, its own answers. The process's pipes belong to one task, which writes what the
//! tenants send and hands each frame the server writes to the tenant it belongs to
//! ([`super::routes`]).
//!
//! A tenant is *tainted* when what it saw could have been another's (an ambiguous message), or
//! when another tenant sent the server something that changes it; its scenario is then judged
//! again in a process of its own. A host that saw a change takes no new tenants, and ends its
//! process once the last one has left.

use super::routes::{Route, Routes, Shared, TenantId};
use mcpspec_protocol::framing::{Frame, FrameContent};
use mcpspec_reference::transport::child::{describe_status, LargePlace};
use mcpspec_reference::transport::{ChildTransport, RecvError, SendError, ShutdownReport};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

/// How many frames may wait in the inboxes of tenants still running before the host stops
/// reading the server's stdout (the server then blocks on its writes: a flood costs bounded
/// memory, as over a process of its own).
const QUEUED_FRAMES: usize = 256;
/// Ditto in bytes ([`Frame::weight`]), so large results wait in the server's pipe rather than
/// in memory; a frame larger than this is still taken, alone.
const QUEUED_BYTES: usize = 1 << 20;
/// How many frames a tenant that has left may have waiting; what comes past them is dropped
/// and counted (only its late messages come to it, which nobody reads before the process ends).
const LATE_FRAMES: usize = 64;

/// What the tenants ask of the task that owns the process.
enum Command {
    /// Write these bytes to the server's stdin.
    Write(Vec<u8>, oneshot::Sender<Result<(), SendError>>),
    /// End the process (its last tenant has left, or the run is over).
    Shutdown(oneshot::Sender<ShutdownReport>),
    /// The end of its stderr.
    StderrTail(oneshot::Sender<String>),
    /// Close its stdin.
    CloseStdin(oneshot::Sender<()>),
    /// Wait at most this long for it to exit.
    WaitExit(Duration, oneshot::Sender<Option<std::process::ExitStatus>>),
}

/// What the tenants share.
#[derive(Default)]
struct State {
    routes: Routes,
    /// Each tenant's inbox (a tenant that left keeps its own: a late message is still its).
    inboxes: HashMap<TenantId, mpsc::UnboundedSender<Inboxed>>,
    /// Why a tenant's verdict cannot stand, by tenant.
    taints: HashMap<TenantId, String>,
    /// Why the host takes no new tenants, once it does not.
    closed: Option<String>,
    /// A tenant that may change the server holds it alone, for now.
    leased: bool,
    /// How the process ended, once it has.
    exited: Option<String>,
    /// The most tenants present at once.
    most_at_once: usize,
    /// Tenants with a request in flight that would change the server if carried out.
    unsettled: std::collections::HashSet<TenantId>,
    /// Frames waiting for each tenant that has left, and how many more were dropped.
    late: HashMap<TenantId, (usize, usize)>,
    /// Frames, and their bytes, waiting in the inbox of each tenant still running.
    queued: HashMap<TenantId, (usize, usize)>,
}

impl State {
    fn taint_present(&mut self, except: Option<TenantId>, why: &str) {
        for t in self.routes.present() {
            if Some(t) != except {
                self.taints.entry(t).or_insert_with(|| why.to_owned());
            }
        }
    }

    /// Puts `frame` in `to`'s inbox, with its place among the large lines while `to` is
    /// present (a tenant that has left may never read it: its late frames give places back).
    fn deliver(&mut self, to: TenantId, frame: Frame, place: LargePlace) {
        let Some(inbox) = self.inboxes.get(&to) else { return };
        let weight = frame.weight();
        if self.routes.is_present(to) {
            if inbox.send((frame, weight, place)).is_ok() {
                let (frames, bytes) = self.queued.entry(to).or_default();
                (*frames, *bytes) = (*frames + 1, *bytes + weight);
            }
            return;
        }
        let (waiting, dropped) = self.late.entry(to).or_default();
        if *waiting < LATE_FRAMES {
            *waiting += 1;
            let _ = inbox.send((frame, weight, LargePlace::default()));
        } else {
            *dropped += 1;
        }
    }
}

/// A server process shared by tenants.
pub struct Host {
    state: Mutex<State>,
    commands: mpsc::UnboundedSender<Command>,
}

impl Host {
    /// Takes over a running server's pipes; returns the host and its first tenant (the
    /// scenario that started it).
    pub fn adopt(child: ChildTransport) -> (Arc<Host>, TenantLink) {
        let (commands, rx) = mpsc::unbounded_channel();
        let host = Arc::new(Host { state: Mutex::new(State::default()), commands });
        tokio::spawn(own_pipes(child, rx, Arc::downgrade(&host)));
        let first = host.join().expect("a new host is open");
        (host, first)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("host lock")
    }

    /// A new tenant, unless the host takes none any more.
    pub fn join(self: &Arc<Self>) -> Option<TenantLink> {
        let mut state = self.state();
        if state.closed.is_some() || state.exited.is_some() || state.leased {
            return None;
        }
        let tenant = state.routes.join();
        let (tx, inbox) = mpsc::unbounded_channel();
        state.inboxes.insert(tenant, tx);
        state.most_at_once = state.most_at_once.max(state.routes.present().len());
        Some(TenantLink { host: self.clone(), tenant, inbox })
    }

    /// Whether a new tenant could join.
    pub fn is_open(&self) -> bool {
        let state = self.state();
        state.closed.is_none() && state.exited.is_none() && !state.leased
    }

    /// Whether the host will never take a tenant again (changed, or its process gone).
    pub fn is_closed(&self) -> bool {
        let state = self.state();
        state.closed.is_some() || state.exited.is_some()
    }

    /// A new tenant that holds the process alone until [`Self::reopen`], when no other tenant
    /// is present: for a scenario that may change the server.
    pub fn lease(self: &Arc<Self>) -> Option<TenantLink> {
        if self.present() > 0 {
            return None;
        }
        let tenant = self.join()?;
        self.state().leased = true;
        Some(tenant)
    }

    /// The first tenant holds the process alone (it may change the server).
    pub fn lease_to_first(&self) {
        self.state().leased = true;
    }

    /// The lease is over and left the server as it was: other tenants may join again.
    pub fn reopen(&self) {
        self.state().leased = false;
    }

    /// How many tenants are still running their scenarios.
    pub fn present(&self) -> usize {
        self.state().routes.present().len()
    }

    /// The most tenants that ran at once.
    pub fn most_at_once(&self) -> usize {
        self.state().most_at_once
    }

    /// Takes no new tenants from now on.
    pub fn close(&self, why: &str) {
        self.state().closed.get_or_insert_with(|| why.to_owned());
    }

    /// The end of the server's stderr (for a failing scenario's report).
    pub async fn stderr_tail(&self) -> String {
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::StderrTail(tx)).is_err() {
            return String::new();
        }
        rx.await.unwrap_or_default()
    }

    /// Closes the server's stdin (a tenant that holds the process alone ends it so).
    pub async fn close_stdin(&self) {
        self.close("the server's stdin was closed");
        let (tx, rx) = oneshot::channel();
        if self.commands.send(Command::CloseStdin(tx)).is_ok() {
            let _ = rx.await;
        }
    }

    /// How the process exited, waiting at most `within` for it.
    pub async fn wait_exit(&self, within: Duration) -> Option<std::process::ExitStatus> {
        let (tx, rx) = oneshot::channel();
        self.commands.send(Command::WaitExit(within, tx)).ok()?;
        rx.await.ok().flatten()
    }

    /// Ends the process without waiting for it to exit on its own ([`ChildTransport::terminate`]):
    /// its tenants' scenarios are over, and none of them is judged on how it ends.
    pub async fn shutdown(&self) -> Option<ShutdownReport> {
        self.close("the process is ending");
        let (tx, rx) = oneshot::channel();
        self.commands.send(Command::Shutdown(tx)).ok()?;
        rx.await.ok()
    }
}

/// The task that owns the process's pipes: writes what tenants send, routes what the server
/// writes, until it is told to end the process or every handle on the host is gone.
async fn own_pipes(
    mut child: ChildTransport,
    mut commands: mpsc::UnboundedReceiver<Command>,
    host: std::sync::Weak<Host>,
) {
    // How long one read waits before the task looks at its commands again; commands wake it
    // at once, so this only bounds an idle loop.
    const IDLE: Duration = Duration::from_secs(5);
    // While the tenants have a full queue unread, how often the task looks again.
    const FULL: Duration = Duration::from_millis(10);
    let mut reading = true;
    loop {
        let full = host.upgrade().is_some_and(|h| {
            let state = h.state();
            let (frames, bytes) = state.queued.values().fold((0, 0), |(f, b), (qf, qb)| (f + qf, b + qb));
            frames >= QUEUED_FRAMES || bytes >= QUEUED_BYTES
        });
        tokio::select! {
            command = commands.recv() => match command {
                Some(Command::Write(bytes, done)) => {
                    let _ = done.send(child.send_bytes(&bytes).await);
                }
                Some(Command::StderrTail(done)) => {
                    let _ = done.send(child.stderr_tail());
                }
                Some(Command::CloseStdin(done)) => {
                    child.close_stdin();
                    let _ = done.send(());
                }
                Some(Command::WaitExit(within, done)) => {
                    let _ = done.send(child.wait_exit(within).await);
                }
                Some(Command::Shutdown(done)) => {
                    let report = child.terminate().await;
                    // What the server wrote on its way out still reaches its tenants.
                    while let Ok(frame) = child.try_recv() {
                        let Some(host) = host.upgrade() else { break };
                        route(&host, frame, LargePlace::default());
                    }
                    if let Some(host) = host.upgrade() {
                        host.state().exited.get_or_insert_with(|| report.describe());
                        host.state().inboxes.clear();
                    }
                    let _ = done.send(report);
                    return;
                }
                None => return,
            },
            () = tokio::time::sleep(FULL), if reading && full => {}
            frame = child.recv_holding(IDLE), if reading && !full => match frame {
                Ok((frame, place)) => {
                    let Some(host) = host.upgrade() else { return };
                    route(&host, frame, place);
                }
                Err(RecvError::Timeout(_)) => {}
                Err(RecvError::Closed) => {
                    reading = false;
                    let Some(host) = host.upgrade() else { return };
                    let how = match child.wait_exit(Duration::from_millis(500)).await {
                        Some(status) => format!("the server {}", describe_status(status)),
                        None => "the server closed its stdout".to_owned(),
                    };
                    let mut state = host.state();
                    state.exited = Some(how.clone());
                    // Every tenant sees the end of the stream (its inbox closes).
                    state.inboxes.clear();
                    state.taint_present(None, &how);
                }
            },
        }
    }
}

/// Hands a frame to the tenant(s) it belongs to (its large-line place to the first of them).
fn route(host: &Host, frame: Frame, place: LargePlace) {
    let mut state = host.state();
    let route = match &frame.content {
        FrameContent::Json { value, .. } => state.routes.received(value),
        FrameContent::Invalid(_) => Route::Ambiguous("a line from the server that is no message".into()),
        FrameContent::Blank => return,
    };
    match route {
        Route::To(tenant) => state.deliver(tenant, frame, place),
        Route::All | Route::Ambiguous(_) => {
            if let Route::Ambiguous(why) = &route {
                state.taint_present(None, why);
            }
            let mut place = Some(place);
            for tenant in state.routes.present() {
                state.deliver(tenant, frame.clone(), place.take().unwrap_or_default());
            }
        }
    }
}

/// One tenant's end of a shared process.
pub struct TenantLink {
    host: Arc<Host>,
    tenant: TenantId,
    inbox: mpsc::UnboundedReceiver<Inboxed>,
}

/// A frame in a tenant's inbox: its weight, counted in the host's bound until it is read, and
/// its place among the process's large lines, given back as it is read.
type Inboxed = (Frame, usize, LargePlace);

impl TenantLink {
    /// The tenant's number on its host (0: the scenario that started the process).
    pub fn tenant(&self) -> TenantId {
        self.tenant
    }

    pub fn host(&self) -> &Arc<Host> {
        &self.host
    }

    /// Writes one message as a line.
    pub async fn send(&mut self, message: &Value) -> Result<(), SendError> {
        let shared = self.host.state().routes.sent(self.tenant, message);
        self.shared(shared);
        self.write(mcpspec_protocol::framing::encode(message)).await
    }

    /// Writes raw bytes.
    pub async fn send_bytes(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        let shared = self.host.state().routes.sent_raw(self.tenant, bytes);
        self.shared(shared);
        self.write(bytes.to_vec()).await
    }

    fn shared(&self, shared: Shared) {
        let mut state = self.host.state();
        if let Some(other) = shared.clash {
            let why = "two scenarios on the shared process used the same request id or progress token";
            for t in [self.tenant, other] {
                state.taints.entry(t).or_insert_with(|| why.to_owned());
            }
        }
        if let Some(id) = shared.reused {
            // Ids are unique per session in the legacy era: the server may rightly refuse it.
            let why = format!("it sent the id {id}, which another scenario on the shared process had used");
            state.taints.entry(self.tenant).or_insert(why);
        }
    }

    async fn write(&mut self, bytes: Vec<u8>) -> Result<(), SendError> {
        let (tx, rx) = oneshot::channel();
        let closed = || SendError::Closed(std::io::ErrorKind::BrokenPipe.into());
        self.host.commands.send(Command::Write(bytes, tx)).map_err(|_| closed())?;
        rx.await.map_err(|_| closed())?
    }

    /// The next frame the server wrote for this tenant, waiting at most `timeout` (zero: a
    /// timeout, as [`ChildTransport::recv`]), with its place among the process's large lines,
    /// for the caller to hold until it is done with the frame.
    pub async fn recv_holding(&mut self, timeout: Duration) -> Result<(Frame, LargePlace), RecvError> {
        if timeout.is_zero() {
            return Err(RecvError::Timeout(timeout));
        }
        match tokio::time::timeout(timeout, self.inbox.recv()).await {
            Ok(Some((frame, weight, place))) => {
                if let Some((frames, bytes)) = self.host.state().queued.get_mut(&self.tenant) {
                    (*frames, *bytes) = (frames.saturating_sub(1), bytes.saturating_sub(weight));
                }
                Ok((frame, place))
            }
            Ok(None) => Err(RecvError::Closed),
            Err(_) => Err(RecvError::Timeout(timeout)),
        }
    }

    /// Tells the host what the tenant has done so far ([`Footprint`]): once it changed the
    /// server, every other tenant present is tainted and no new one joins; while a request of
    /// its that may change the server is in flight, a tenant that leaves is tainted.
    ///
    /// [`Footprint`]: crate::session::footprint::Footprint
    pub fn footprint(&self, footprint: &crate::session::footprint::Footprint) {
        let mut state = self.host.state();
        if let Some(what) = footprint.disturbed() {
            if state.closed.is_none() {
                state.closed = Some(what.to_owned());
                let why = format!("another scenario on the shared process changed it ({what})");
                state.taint_present(Some(self.tenant), &why);
            }
        }
        match footprint.awaits_effect() {
            true => state.unsettled.insert(self.tenant),
            false => state.unsettled.remove(&self.tenant),
        };
    }

    /// Why this tenant's verdict cannot stand, if it cannot.
    pub fn taint(&self) -> Option<String> {
        self.host.state().taints.get(&self.tenant).cloned()
    }

    /// How the process ended, if it has.
    pub fn exited(&self) -> Option<String> {
        self.host.state().exited.clone()
    }

    /// Waits at most `within` until no other tenant has a request in flight that would change
    /// the server (a reader's refused call settles at its answer), so that leaving does not
    /// taint this one needlessly.
    pub async fn await_others_settled(&self, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let busy = {
                let state = self.host.state();
                state.unsettled.iter().any(|t| *t != self.tenant)
            };
            if !busy || tokio::time::Instant::now() >= deadline {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// The tenant's scenario is over: frames still addressed to it wait in its inbox. It is
    /// tainted if another's request that may change the server is still in flight. A tenant
    /// that leaves still holding the process alone (the only tenant present while it is
    /// leased) did not give it back: the host then takes no one again, and its process ends
    /// with its last tenant, instead of idling leased to nobody to the end of the run.
    pub fn leave(&self) {
        let mut state = self.host.state();
        if state.leased && state.routes.present() == [self.tenant] {
            state.closed.get_or_insert_with(|| {
                "the scenario that held it alone left without giving it back".to_owned()
            });
        }
        state.routes.leave(self.tenant);
        // What it left unread no longer holds the others up.
        state.queued.remove(&self.tenant);
        state.unsettled.remove(&self.tenant);
        if !state.unsettled.is_empty() {
            let why = "another scenario's request that could change the server was in flight".to_owned();
            state.taints.entry(self.tenant).or_insert(why);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_reference::transport::{ChildOptions, CommandSpec};
    use serde_json::json;

    /// A server over real pipes that answers every `ping` with an empty result, echoes
    /// anything else as it is, and writes a line that is no message for `garbage`.
    fn answering_server() -> ChildTransport {
        let script = r#"exec sed -u -e 's/"method":"ping"/"result":{}/' -e 's/.*garbage.*/not json/'"#;
        let spec = CommandSpec::from_argv(["sh", "-c", script]).unwrap();
        ChildTransport::spawn(&spec, ChildOptions::default()).unwrap()
    }

    fn ping(id: i64) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "ping"})
    }

    async fn answer_id(tenant: &mut TenantLink) -> Value {
        let (frame, _) = tenant.recv_holding(Duration::from_secs(5)).await.expect("an answer");
        match frame.content {
            FrameContent::Json { value, .. } => value["id"].clone(),
            other => panic!("not a message: {other:?}"),
        }
    }

    #[tokio::test]
    async fn tenants_get_their_own_answers_and_a_stray_line_taints_them_all() {
        let (host, mut a) = Host::adopt(answering_server());
        let mut b = host.join().expect("an open host takes tenants");
        b.send(&ping(1_000_001)).await.unwrap();
        a.send(&ping(1)).await.unwrap();
        assert_eq!(answer_id(&mut a).await, json!(1));
        assert_eq!(answer_id(&mut b).await, json!(1_000_001));
        assert_eq!((a.taint(), b.taint()), (None, None));

        a.send(&json!({"garbage": true})).await.unwrap();
        // Both see the line (neither can be charged with it alone), and neither verdict stands.
        for tenant in [&mut a, &mut b] {
            let (frame, _) = tenant.recv_holding(Duration::from_secs(5)).await.unwrap();
            assert!(matches!(frame.content, FrameContent::Invalid(_)), "{frame:?}");
            assert!(tenant.taint().is_some());
        }
        assert_eq!(host.most_at_once(), 2);
    }

    #[tokio::test]
    async fn a_lease_keeps_others_out_until_the_process_is_reopened() {
        let (host, first) = Host::adopt(answering_server());
        host.lease_to_first();
        assert!(host.join().is_none() && host.lease().is_none(), "held alone");
        host.reopen();
        first.leave();
        let reader = host.join().expect("open again");
        assert!(host.lease().is_none(), "a reader is present: nobody may hold it alone");
        reader.leave();
        let mut alone = host.lease().expect("nobody present");
        alone.send(&ping(7)).await.unwrap();
        assert_eq!(answer_id(&mut alone).await, json!(7));
        host.close("the scenario changed the server");
        alone.leave();
        assert!(host.is_closed() && host.join().is_none());
        assert!(host.shutdown().await.is_some(), "the process is ended");
    }

    #[tokio::test]
    async fn a_tenant_that_leaves_without_giving_the_process_back_closes_it() {
        let (host, first) = Host::adopt(answering_server());
        host.lease_to_first();
        first.leave();
        assert!(host.is_closed() && host.join().is_none(), "not leased to nobody");
        assert!(host.shutdown().await.is_some(), "the process is ended");
    }

    #[tokio::test]
    async fn another_tenant_s_change_taints_the_others_present() {
        let (host, a) = Host::adopt(answering_server());
        let b = host.join().unwrap();
        let mut footprint = crate::session::footprint::Footprint::default();
        footprint.note("the client sent tools/call, and the server carried it out");
        a.footprint(&footprint);
        assert!(a.taint().is_none(), "its own change is no taint of its own");
        assert!(b.taint().unwrap().contains("changed it"), "{:?}", b.taint());
        assert!(!host.is_open(), "a changed server takes no new tenant");
    }
}
