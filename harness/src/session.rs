//! A live session with a server under test: the transport plus the wire recorder. Every byte
//! sent or received goes through the recorder; requests the server sends are answered by the
//! client persona, so a waiting step never stalls on them.

use crate::checker::Inspection;
use crate::persona::ClientPersona;
use crate::pool::Footprint;
use crate::recorder::WireRecorder;
use mcpspec_reference::framing::Frame;
use mcpspec_reference::transport::child::{describe_status, SpawnError};
use mcpspec_reference::transport::{
    ChildOptions, ChildTransport, CommandSpec, RecvError, SendError, ShutdownReport,
};
use mcpspec_reference::wire::{Message, Request, RequestId, Response};
use mcpspec_reference::{Direction, Revision};
use mcpspec_schema::SchemaSet;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How many times a barrier ping's round trip a late answer is given
/// ([`ServerSession::wait_answer_or_silence`]).
const BARRIER_ROUND_TRIPS: u32 = 4;
/// The least grace after a barrier, however fast its round trip: scheduling jitter on a busy
/// machine dwarfs a local pipe's round trip.
const MIN_GRACE: Duration = Duration::from_millis(250);

/// How many unsolicited messages a session keeps for steps to look at.
const KEPT_MESSAGES: usize = 1_000;
/// How long, and for how many frames, the end of a session reads what the server wrote last.
const TAIL_WAIT: Duration = Duration::from_secs(1);
const TAIL_FRAMES: usize = 10_000;

/// Why an awaited answer did not come.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WaitError {
    /// Nothing answering the request arrived in time.
    #[error("no response within {0:?}")]
    Timeout(Duration),
    /// The server closed its stdout (usually: it exited).
    #[error("the server closed its stdout before answering{0}")]
    Closed(String),
    /// A ping sent after the message was answered, and no answer to the message followed
    /// within the grace: the server answers it with silence.
    #[error("no response; a ping sent after it was answered, and nothing more came within {grace:?}")]
    Silent { grace: Duration },
    /// What answered the request is not a well-formed response (the recorder has failed it).
    #[error("a malformed response: {0}")]
    Malformed(String),
    /// The request could not be written.
    #[error("the request could not be sent: {0}")]
    Send(#[from] SendError),
}

/// The client side of one session with a server under test.
pub struct ServerSession {
    transport: ChildTransport,
    recorder: WireRecorder,
    persona: ClientPersona,
    next_id: i64,
    /// Notifications received while waiting for something else.
    pub notifications: Vec<Message>,
    /// Requests the server sent (answered by the persona).
    pub server_requests: Vec<Request>,
    /// Responses that arrived while another answer was awaited (out of order, or in a batch).
    early: Vec<(Value, Response)>,
    shutdown: Option<ShutdownReport>,
    /// What the client did that the next scenario could notice.
    footprint: Footprint,
    /// Barrier pings whose answers were not needed (the message they followed was answered
    /// first), still to come.
    barriers: Vec<RequestId>,
}

impl ServerSession {
    /// Starts the server process.
    pub fn start(
        command: &CommandSpec,
        options: ChildOptions,
        revision: Revision,
        schemas: Option<Arc<SchemaSet>>,
    ) -> Result<ServerSession, SpawnError> {
        Ok(ServerSession {
            transport: ChildTransport::spawn(command, options)?,
            recorder: WireRecorder::new(revision, Direction::ServerToClient, schemas),
            persona: ClientPersona::default(),
            next_id: 1,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            early: Vec::new(),
            shutdown: None,
            footprint: Footprint::default(),
            barriers: Vec::new(),
        })
    }

    pub fn recorder(&self) -> &WireRecorder {
        &self.recorder
    }

    pub fn persona(&self) -> &ClientPersona {
        &self.persona
    }

    /// Sets the client the harness plays (before `initialize`; a change after the session is
    /// settled is one the server could notice).
    pub fn set_persona(&mut self, persona: ClientPersona) {
        self.persona = persona;
        self.footprint.note("the client changed how it answers the server");
    }

    /// The session is established: what the client does from now on is the scenario's own,
    /// and decides whether the session may serve another scenario afterwards.
    pub fn settle(&mut self) {
        self.footprint = Footprint::default();
    }

    /// Why this session must not serve another scenario, if it must not: what the client did
    /// since it was settled ([`Footprint::why_not_shareable`]), or the process going or gone.
    pub fn why_not_shareable(&mut self) -> Option<String> {
        if let Some(why) = self.footprint.why_not_shareable(self.recorder.checker()) {
            return Some(why);
        }
        if self.shutdown.is_some() || self.transport.stdin_fd().is_none() {
            return Some("the session was ended".into());
        }
        self.transport.try_exit().map(|status| format!("the server {}", describe_status(status)))
    }

    /// Waits at most `within` for the answers to barrier pings still due, so the session can
    /// be quiet for the next scenario.
    pub async fn collect_barriers(&mut self, within: Duration) {
        let deadline = Instant::now() + within;
        for id in std::mem::take(&mut self.barriers) {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.wait_first(&[(Some(&id), false)], left).await.is_err() {
                return;
            }
        }
    }

    /// Hands the session to the next scenario: what the last one received is cleared, and the
    /// recorder starts the new scenario's record, headed by `note`.
    pub fn hand_over(&mut self, note: String) {
        self.recorder.begin_segment(note);
        self.notifications.clear();
        self.server_requests.clear();
        self.early.clear();
        self.footprint.handed_over();
    }

    /// An id of its own choosing the client sent in this scenario that an earlier scenario on
    /// the same shared session had used ([`Footprint::reused_id`]).
    pub fn reused_id(&self) -> Option<&str> {
        self.footprint.reused_id()
    }

    /// Records a frame from the server, noting which of the client's requests were carried out.
    fn record(&mut self, frame: &Frame) -> Vec<Inspection> {
        let inspections = self.recorder.record_frame(Direction::ServerToClient, frame);
        self.footprint.received(&inspections);
        inspections
    }

    pub fn stderr_tail(&self) -> String {
        self.transport.stderr_tail()
    }

    /// Sends a message as the client.
    pub async fn send(&mut self, message: &Message) -> Result<(), SendError> {
        self.send_value(&message.to_value()).await
    }

    /// Sends any JSON value as one line (also values that are not valid messages).
    pub async fn send_value(&mut self, value: &Value) -> Result<(), SendError> {
        self.footprint.sent(value, self.recorder.checker());
        self.recorder.record_value(Direction::ClientToServer, value);
        self.transport.send(value).await
    }

    /// Sends raw bytes, as they are.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        self.footprint.sent_raw(bytes, self.recorder.checker());
        self.recorder.record_raw(Direction::ClientToServer, bytes);
        self.transport.send_bytes(bytes).await
    }

    /// A fresh request id.
    pub fn fresh_id(&mut self) -> RequestId {
        loop {
            let id = RequestId::from(self.next_id);
            self.next_id += 1;
            // An id the client chose itself earlier in the session is not fresh.
            if !self.recorder.checker().has_used(Direction::ClientToServer, &id) {
                return id;
            }
        }
    }

    /// Sends a request with a fresh integer id; returns the id.
    pub async fn send_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<RequestId, SendError> {
        let id = self.fresh_id();
        self.send(&Message::request(id.clone(), method, params)).await?;
        Ok(id)
    }

    /// Waits for the response to `id`. A response whose id has the wrong JSON type is taken as
    /// the answer too (the recorder has already failed it), so one fault does not cascade into
    /// a timeout.
    pub async fn wait_response(&mut self, id: &RequestId, within: Duration) -> Result<Response, WaitError> {
        self.wait_answer(Some(id), false, within).await
    }

    /// Waits for the answer to a message: the response to `id`, or — when `idless_ok`, for a
    /// malformed message — an error response without an id.
    pub async fn wait_answer(
        &mut self,
        id: Option<&RequestId>,
        idless_ok: bool,
        within: Duration,
    ) -> Result<Response, WaitError> {
        self.wait_first(&[(id, idless_ok)], within).await.map(|(_, r)| r)
    }

    /// Waits for the answer to a message that may rightly get none (a malformed line, a ping
    /// with an odd id), proving silence without waiting out `within`: a ping sent after it is
    /// a barrier. A server reads its input in order, so once the barrier is answered, the answer
    /// to the message, if any, is due within a grace of [`BARRIER_ROUND_TRIPS`] times the
    /// barrier's round trip (at least [`MIN_GRACE`]); `within` still bounds a server that
    /// answers nothing at all.
    pub async fn wait_answer_or_silence(
        &mut self,
        id: Option<&RequestId>,
        idless_ok: bool,
        within: Duration,
    ) -> Result<Response, WaitError> {
        let barrier = self.fresh_id();
        let sent = Instant::now();
        self.send(&Message::request(barrier.clone(), "ping", None)).await?;
        let deadline = sent + within;
        let targets = [(id, idless_ok), (Some(&barrier), false)];
        match self.wait_first(&targets, within).await {
            Ok((0, r)) => {
                self.barriers.push(barrier);
                return Ok(r);
            }
            Ok(_) => {}
            Err(e) => return Err(e),
        }
        // The barrier is answered: the message's answer, if it comes, comes now.
        let grace = (sent.elapsed() * BARRIER_ROUND_TRIPS).max(MIN_GRACE);
        let left = deadline.saturating_duration_since(Instant::now()).min(grace);
        match self.wait_first(&targets[..1], left).await {
            Ok((_, r)) => Ok(r),
            Err(WaitError::Timeout(_)) => Err(WaitError::Silent { grace }),
            Err(e) => Err(e),
        }
    }

    /// Waits for the first answer to one of `targets` (an id, and whether an error without an
    /// id counts); returns which target it answered.
    async fn wait_first(
        &mut self,
        targets: &[(Option<&RequestId>, bool)],
        within: Duration,
    ) -> Result<(usize, Response), WaitError> {
        let matching = |v: &Value| targets.iter().position(|(id, idless_ok)| answers(v, *id, *idless_ok));
        if let Some((at, which)) =
            self.early.iter().enumerate().find_map(|(at, (v, _))| Some((at, matching(v)?)))
        {
            return Ok((which, self.early.remove(at).1));
        }
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let frame = match self.transport.recv(left).await {
                Ok(frame) => frame,
                Err(RecvError::Timeout(_)) => return Err(WaitError::Timeout(within)),
                Err(RecvError::Closed) => return Err(WaitError::Closed(self.exit_note().await)),
            };
            let inspections = self.record(&frame);
            let mut found = None;
            for i in inspections {
                let which = if found.is_none() { i.value.as_ref().and_then(|v| matching(v)) } else { None };
                match (i.message, which) {
                    (Some(Message::Response(r)), Some(which)) => found = Some(Ok((which, r))),
                    (None, Some(_)) => {
                        let why = i.violations.first().map(|v| v.actual.clone());
                        found = Some(Err(WaitError::Malformed(why.unwrap_or_default())));
                    }
                    (message, _) => {
                        self.take_unsolicited(Inspection { message, ..i }).await?;
                    }
                }
            }
            if let Some(found) = found {
                return found;
            }
        }
    }

    /// Keeps a message nobody waited for; answers it if it is a request.
    async fn take_unsolicited(&mut self, inspection: Inspection) -> Result<(), SendError> {
        match inspection.message {
            Some(Message::Request(r)) => {
                let answer = self.persona.answer(&r);
                if self.server_requests.len() < KEPT_MESSAGES {
                    self.server_requests.push(r);
                }
                self.send(&answer).await?;
            }
            Some(n @ Message::Notification(_)) if self.notifications.len() < KEPT_MESSAGES => {
                self.notifications.push(n)
            }
            Some(Message::Response(r)) if self.early.len() < KEPT_MESSAGES => {
                if let Some(v) = inspection.value {
                    self.early.push((v, r));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Sends a request and waits for its response.
    pub async fn request(
        &mut self,
        method: &str,
        params: Option<Value>,
        within: Duration,
    ) -> Result<Response, WaitError> {
        let id = self.send_request(method, params).await?;
        self.wait_response(&id, within).await
    }

    /// Reads whatever arrives within `within` (to catch unsolicited messages). Ends early if
    /// the server closes its stdout.
    pub async fn drain(&mut self, within: Duration) -> Result<(), WaitError> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.transport.recv(left).await {
                Ok(frame) => {
                    for i in self.record(&frame) {
                        self.take_unsolicited(i).await?;
                    }
                }
                Err(RecvError::Timeout(_)) | Err(RecvError::Closed) => return Ok(()),
            }
        }
    }

    /// Waits at most `within` for a progress notification to arrive (one already received
    /// counts); whatever else arrives is kept as usual.
    pub async fn wait_progress(&mut self, within: Duration) -> bool {
        self.wait_notification("notifications/progress", within).await
    }

    /// Waits at most `within` for a notification with `method` (one already received counts);
    /// whatever else arrives is kept as usual.
    pub async fn wait_notification(&mut self, method: &str, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if self.notifications.iter().any(|m| matches!(m, Message::Notification(n) if n.method == method))
            {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(frame) = self.transport.recv(left).await else { return false };
            for i in self.record(&frame) {
                if self.take_unsolicited(i).await.is_err() {
                    return false;
                }
            }
        }
    }

    /// Closes the server's stdin and waits at most `within` for it to exit on its own.
    pub async fn close_stdin_and_wait(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        self.transport.close_stdin();
        // Keep reading so a server that writes on its way out is not blocked on a full pipe.
        let deadline = Instant::now() + within;
        loop {
            if let Some(status) = self.transport.try_exit() {
                let _ = self.drain(Duration::from_millis(50)).await;
                return Some(status);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            match self.transport.recv(left.min(Duration::from_millis(20))).await {
                Ok(frame) => {
                    self.record(&frame);
                }
                Err(RecvError::Closed) => {
                    return self.transport.wait_exit(deadline.saturating_duration_since(Instant::now())).await
                }
                Err(RecvError::Timeout(_)) => {}
            }
        }
    }

    /// Ends the server (close stdin, SIGTERM, SIGKILL, as needed); idempotent.
    pub async fn shutdown(&mut self) -> ShutdownReport {
        if let Some(r) = &self.shutdown {
            return r.clone();
        }
        let report = self.transport.shutdown().await;
        self.record_tail().await;
        self.shutdown = Some(report.clone());
        report
    }

    /// Records what the server wrote that no step read: a message written after a scenario's
    /// last wait (a progress notification after the answer, say) is judged like any other,
    /// or it would pass unseen. The server is gone, so its stdout ends soon; the frame count
    /// and the wait bound one that survived SIGKILL and keeps writing.
    async fn record_tail(&mut self) {
        let deadline = Instant::now() + TAIL_WAIT;
        for _ in 0..TAIL_FRAMES {
            match self.transport.recv(deadline.saturating_duration_since(Instant::now())).await {
                Ok(frame) => drop(self.record(&frame)),
                Err(_) => return,
            }
        }
    }

    /// How the server ended, if it has (waiting briefly for it): `" (exited with status 1)"`.
    pub async fn exit_note(&mut self) -> String {
        match self.transport.wait_exit(Duration::from_millis(500)).await {
            Some(status) => format!(" ({})", describe_status(status)),
            None => String::new(),
        }
    }
}

/// Whether `value` (one message, perhaps an element of a batch) answers the message awaited:
/// it carries `id` — also with its JSON type changed, which the recorder fails, so one fault
/// does not cascade into a timeout — or, when `idless_ok`, it is an error without an id.
fn answers(value: &Value, id: Option<&RequestId>, idless_ok: bool) -> bool {
    if value.get("method").is_some() {
        return false;
    }
    match (value.get("id").and_then(RequestId::from_value), id) {
        (Some(rid), Some(id)) => &rid == id || rid.twin().as_ref() == Some(id),
        (Some(_), None) => false,
        (None, _) => idless_ok && value.get("error").is_some(),
    }
}
