//! A live session with a server under test: the transport plus the wire recorder. Every byte
//! sent or received goes through the recorder; requests the server sends are answered by the
//! client persona, so a waiting step never stalls on them. [`auth`] holds the requests to an
//! OAuth-protected server that belong to no session.

pub mod auth;
pub mod host;
mod http;
mod routes;
mod stdio;

use crate::judge::checker::Inspection;
use crate::judge::recorder::WireRecorder;
use crate::session::footprint::Footprint;
use crate::session::target::Target;
use host::{Host, TenantLink};
use http::HttpLink;
use mcpspec_protocol::framing::{Frame, FrameContent};
use mcpspec_protocol::modern;
use mcpspec_protocol::wire::{Message, Request, RequestId, Response};
use mcpspec_protocol::{Direction, Era, Revision};
use mcpspec_reference::client::ClientPersona;
use mcpspec_reference::transport::child::{describe_status, LargePlace, SpawnError};
use mcpspec_reference::transport::http_client::ConnectError;
use mcpspec_reference::transport::{ChildOptions, ChildTransport, RecvError, SendError, ShutdownReport};
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

/// How long a tenant leaving a shared process waits for another's request that could change
/// the server to be answered (a refusal leaves the leaving tenant's verdict standing).
const SETTLE_WAIT: Duration = Duration::from_secs(2);

/// The ids of each tenant of a shared process: tenant k's start at `1 + k * TENANT_IDS`.
const TENANT_IDS: i64 = 1_000_000;

/// What a tenant of a shared process starts from ([`ServerSession::tenant_seed`]).
pub struct TenantSeed {
    recorder: WireRecorder,
    persona: ClientPersona,
}

/// How many times a request is sent again with the input a server asked for before mcpspec
/// stops (a server MAY ask again until it has what it needs; this bounds one that never has).
pub const MAX_INPUT_ROUNDS: usize = 8;

/// The `InputRequiredResult` of an answer, if it is one (modern era).
pub fn input_required(answer: &Response) -> Option<&Value> {
    match &answer.outcome {
        mcpspec_protocol::wire::Outcome::Result(r)
            if r.get("resultType").and_then(Value::as_str) == Some(modern::INPUT_REQUIRED) =>
        {
            Some(r)
        }
        _ => None,
    }
}

/// The `Implementation` mcpspec names itself with, as a client.
pub fn client_info() -> Value {
    serde_json::json!({ "name": "mcpspec", "version": env!("CARGO_PKG_VERSION") })
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    #[error(transparent)]
    Connect(#[from] ConnectError),
    /// The target is a client or an authorization server, not an MCP server.
    #[error("{0} is not an MCP server to certify")]
    NotAServer(String),
}

/// How a session ended.
#[derive(Debug, Clone)]
pub enum SessionEnd {
    /// The server process was shut down.
    Process(ShutdownReport),
    /// The HTTP session was ended (`what`: the DELETE and its answer, or why there was none).
    Http(String),
    /// The scenario left a process other scenarios share (`what`: which, and how it went).
    Left(String),
}

impl SessionEnd {
    pub fn describe(&self) -> String {
        match self {
            SessionEnd::Process(r) => r.describe(),
            SessionEnd::Http(what) | SessionEnd::Left(what) => what.clone(),
        }
    }
}

/// The transport of a session (one per session: its size does not matter).
#[allow(clippy::large_enum_variant)]
enum Link {
    Stdio(ChildTransport),
    Http(HttpLink),
    /// A tenant of a process several scenarios use at once ([`host`]).
    Tenant(TenantLink),
}

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
    /// Over HTTP: the answer cannot come any more (its POST failed, or its response ended
    /// without it and could not be resumed).
    #[error("no response over HTTP: {0}")]
    Http(String),
}

/// The client side of one session with a server under test.
pub struct ServerSession {
    link: Link,
    recorder: WireRecorder,
    persona: ClientPersona,
    next_id: i64,
    /// Notifications received while waiting for something else.
    pub notifications: Vec<Message>,
    /// Requests the server sent (answered by the persona).
    pub server_requests: Vec<Request>,
    /// For each of [`Self::server_requests`], the client request the transport says it was
    /// sent for: over Streamable HTTP, the one request of the POST whose response stream
    /// carried it (`basic/transports.mdx`: a server's requests on that stream relate to the
    /// client's request); `None` over stdio, on the GET stream, or for a POST of several.
    pub server_requests_for: Vec<Option<RequestId>>,
    /// The `InputRequiredResult`s the server answered with, in the modern era (each
    /// answered by the persona and retried: [`ServerSession::complete_input`]).
    pub input_required: Vec<Value>,
    /// Responses that arrived while another answer was awaited (out of order, or in a batch),
    /// each with what [`answers`] needs of its value ([`answer_stub`]).
    early: Vec<(Value, Response)>,
    shutdown: Option<SessionEnd>,
    /// What the client did that the next scenario could notice.
    footprint: Footprint,
    /// Barrier pings whose answers were not needed (the message they followed was answered
    /// first), still to come.
    barriers: Vec<RequestId>,
    /// What the server has written so far, by kind: what a session that never started was
    /// given instead ([`crate::bounds`]).
    heard: Heard,
    /// Over HTTP: the exchange whose body carried the last frame read.
    read_from: Option<u64>,
}

/// What a server has written on a session, counted by kind.
#[derive(Debug, Clone, Default)]
pub struct Heard {
    /// Well-formed messages (notifications included).
    pub messages: u64,
    /// Of those, notifications.
    pub notifications: u64,
    /// Lines that are not a message (not JSON, not UTF-8, too long), and the last one's reason.
    pub not_messages: u64,
    pub last_not_message: Option<String>,
}

impl ServerSession {
    /// Starts the server process, or connects to the server over HTTP.
    pub async fn start(
        target: &Target,
        options: ChildOptions,
        revision: Revision,
        schemas: Option<Arc<SchemaSet>>,
    ) -> Result<ServerSession, StartError> {
        let link = match target {
            Target::Stdio(command) => {
                let child = ChildTransport::spawn(command, options)?;
                crate::session::starts::count_start();
                Link::Stdio(child)
            }
            Target::ClientOverHttp(command, _) => return Err(StartError::NotAServer(command.display())),
            Target::AuthorizationServer(t) => {
                return Err(StartError::NotAServer(format!("{} (an authorization server)", t.issuer)))
            }
            Target::Http(http) => Link::Http(HttpLink::connect(http.clone()).await?),
        };
        let mut recorder = WireRecorder::new(revision, Direction::ServerToClient, schemas);
        if let Target::Http(http) = target {
            recorder = recorder.with_http(http.flavor);
        }
        let mut session = ServerSession::over(link, recorder, ClientPersona::default(), 1);
        session.footprint = Footprint::before_handshake();
        Ok(session)
    }

    /// The process group of the server process (its pid), over stdio.
    pub fn process_group(&self) -> Option<i32> {
        match &self.link {
            Link::Stdio(child) => Some(child.process_group()).filter(|g| *g > 0),
            _ => None,
        }
    }

    fn over(link: Link, recorder: WireRecorder, persona: ClientPersona, next_id: i64) -> ServerSession {
        ServerSession {
            link,
            recorder,
            persona,
            next_id,
            notifications: Vec::new(),
            server_requests: Vec::new(),
            server_requests_for: Vec::new(),
            input_required: Vec::new(),
            early: Vec::new(),
            shutdown: None,
            footprint: Footprint::default(),
            barriers: Vec::new(),
            heard: Heard::default(),
            read_from: None,
        }
    }

    /// Lets scenarios use this session's server process, each with a session of its own
    /// ([`host`]): this session becomes the process's first tenant, and the host returned takes
    /// others ([`Self::join`], with this session's [`Self::tenant_seed`]). Over stdio only: any
    /// other session comes back as it was, with no host.
    pub fn into_tenant(mut self) -> (ServerSession, Option<Arc<Host>>) {
        match self.link {
            Link::Stdio(child) => {
                let (host, first) = Host::adopt(child);
                self.link = Link::Tenant(first);
                (self, Some(host))
            }
            other => {
                self.link = other;
                (self, None)
            }
        }
    }

    /// What a new tenant of this session's process starts from: what the recorder knows of the
    /// session (its negotiation), and the client mcpspec plays in it.
    pub fn tenant_seed(&self) -> TenantSeed {
        TenantSeed { recorder: self.recorder.fork(String::new()), persona: self.persona.clone() }
    }

    /// A new tenant of `host`'s process, as `seed` had it settled; its record is headed by
    /// `note`. `alone`: it holds the process alone until [`Self::release_process`]. `None` when
    /// the host takes no tenant now.
    pub fn join(host: &Arc<Host>, seed: &TenantSeed, note: String, alone: bool) -> Option<ServerSession> {
        let link = if alone { host.lease()? } else { host.join()? };
        // Each tenant draws its ids from a range of its own, so answers are told apart by id.
        let first_id = 1 + link.tenant() as i64 * TENANT_IDS;
        // An id another tenant used before is the host's to see (`routes.rs`), not this
        // session's footprint, whose checker knows the session only as it was settled.
        Some(ServerSession::over(
            Link::Tenant(link),
            seed.recorder.fork(note),
            seed.persona.clone(),
            first_id,
        ))
    }

    /// Over a shared process: why this scenario's verdict cannot stand there (a message it saw
    /// could have been another's; another scenario changed the server), if it cannot.
    pub fn tenancy_taint(&self) -> Option<String> {
        match &self.link {
            Link::Tenant(tenant) => tenant.taint(),
            _ => None,
        }
    }

    /// Whether the session is a tenant of a shared process.
    pub fn is_tenant(&self) -> bool {
        matches!(self.link, Link::Tenant(_))
    }

    /// A tenant that held its process alone is done with it: the process takes tenants again
    /// (`why_not` none), or never again, and ends once its last tenant has left.
    pub fn release_process(&self, why_not: Option<&str>) {
        if let Link::Tenant(tenant) = &self.link {
            match why_not {
                None => tenant.host().reopen(),
                Some(why) => tenant.host().close(why),
            }
        }
    }

    /// Whether the scenario, so far, only read what the server holds, with well-formed
    /// messages, and the server asked nothing of the client: a scenario that may use the
    /// server at the same time as others.
    pub fn only_read(&self) -> bool {
        self.footprint.disturbed().is_none()
            && !self.footprint.awaits_effect()
            && self.footprint.well_formed()
            && self.server_requests.is_empty()
    }

    /// Whether the server is as the scenario found it, though what the scenario wrote may
    /// not all have been well-formed: nothing it sent could have changed the server (a
    /// malformed message naming a method that would is counted as carried out, see
    /// [`Footprint::sent`]), and the server asked nothing of the client. Unlike
    /// [`Self::only_read`], this allows malformed input, whose answer may carry no id: fine for
    /// a scenario that held its process alone, not for one using it with others at once.
    pub fn left_as_found(&self) -> bool {
        self.footprint.disturbed().is_none()
            && !self.footprint.awaits_effect()
            && self.server_requests.is_empty()
    }

    /// The request `id` names nothing the server offers ([`Footprint::names_nothing_offered`]).
    pub fn names_nothing_offered(&mut self, id: &RequestId) {
        self.footprint.names_nothing_offered(id);
    }

    /// The tool call `id` carries arguments the tool's input schema refuses
    /// ([`Footprint::arguments_refused`]).
    pub fn arguments_refused(&mut self, id: &RequestId) {
        self.footprint.arguments_refused(id);
    }

    /// The handshake the scenario made on the process it started, if it made one: the
    /// capabilities it declared and the server's result ([`Footprint::before_handshake`]).
    pub fn handshake(&self) -> Option<&crate::session::footprint::Handshake> {
        self.footprint.handshake()
    }

    /// What the server has written so far, by kind.
    pub fn heard(&self) -> &Heard {
        &self.heard
    }

    pub fn recorder(&self) -> &WireRecorder {
        &self.recorder
    }

    /// Names the session in the live wire log (`--verbose`).
    pub fn set_label(&mut self, label: String) {
        self.recorder.set_label(label);
    }

    pub fn persona(&self) -> &ClientPersona {
        &self.persona
    }

    /// Sets the client the harness plays (before `initialize`; a change after the session is
    /// settled is one the server could notice).
    pub fn set_persona(&mut self, persona: ClientPersona) {
        self.persona = persona;
        self.footprint.persona_changed();
    }

    /// A modern-era session handed to a scenario declares the scenario's capabilities from its
    /// first request on: the era keeps none between requests, so this changes nothing the
    /// server holds (unlike [`Self::set_persona`] midway through a scenario).
    pub fn declare_capabilities(&mut self, capabilities: Value) {
        debug_assert_eq!(self.recorder.revision().era(), Era::Modern);
        self.persona = ClientPersona::new(capabilities);
    }

    /// The session is established: what the client does from now on is the scenario's own,
    /// and decides whether the session may serve another scenario afterwards.
    pub fn settle(&mut self) {
        self.footprint = Footprint::default();
    }

    /// Why this session must not serve another scenario, if it must not: what the client did
    /// since it was settled ([`Footprint::why_not_shareable`]), or the process going or gone.
    pub fn why_not_shareable(&mut self) -> Option<String> {
        if let Some(why) = self.footprint.why_not_shareable(self.recorder.checker(), self.is_tenant()) {
            return Some(why);
        }
        if self.shutdown.is_some() {
            return Some("the session was ended".into());
        }
        match &mut self.link {
            Link::Stdio(child) if child.stdin_fd().is_none() => Some("the session was ended".into()),
            Link::Stdio(child) => {
                child.try_exit().map(|status| format!("the server {}", describe_status(status)))
            }
            Link::Http(http) => http.ended_session.clone(),
            Link::Tenant(tenant) => tenant.exited(),
        }
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
        self.server_requests_for.clear();
        self.input_required.clear();
        self.early.clear();
        self.footprint.handed_over();
    }

    /// An id of its own choosing the client sent in this scenario that an earlier scenario on
    /// the same shared session had used ([`Footprint::reused_id`]).
    pub fn reused_id(&self) -> Option<&str> {
        self.footprint.reused_id()
    }

    /// Records a frame from the server, noting which of the client's requests were carried out.
    fn record(&mut self, frame: Frame) -> Vec<Inspection> {
        match &frame.content {
            FrameContent::Json { value, .. } => {
                self.heard.messages += 1;
                if value.get("method").is_some() && value.get("id").is_none() {
                    self.heard.notifications += 1;
                }
            }
            FrameContent::Invalid(e) => {
                self.heard.not_messages += 1;
                if self.heard.last_not_message.is_none() {
                    self.heard.last_not_message = Some(e.to_string());
                }
            }
            FrameContent::Blank => {}
        }
        let mut inspections = self.recorder.record_frame(Direction::ServerToClient, frame);
        self.footprint.received(&inspections);
        if let Link::Tenant(tenant) = &self.link {
            tenant.footprint(&self.footprint);
        }
        // Judged: of a response's value only what tells which request it answers is read from
        // here on ([`answers`]), and the typed response holds the rest; a large result is then
        // held once while the scenario reads it, not twice.
        for i in &mut inspections {
            if let (Some(Message::Response(_)), Some(value)) = (&i.message, &i.value) {
                i.value = Some(answer_stub(value));
            }
        }
        inspections
    }

    /// Sends a message as the client.
    pub async fn send(&mut self, message: &Message) -> Result<(), SendError> {
        self.send_value(&message.to_value()).await
    }

    /// Sends any JSON value as one line (also values that are not valid messages).
    pub async fn send_value(&mut self, value: &Value) -> Result<(), SendError> {
        self.footprint.sent(value, self.recorder.checker());
        self.recorder.record_value(Direction::ClientToServer, value);
        match &mut self.link {
            Link::Stdio(child) => child.send(value).await,
            Link::Tenant(tenant) => {
                tenant.footprint(&self.footprint);
                tenant.send(value).await
            }
            Link::Http(http) => {
                http.send(value, self.recorder.checker());
                Ok(())
            }
        }
    }

    /// The next frame from the server, `None` for an HTTP event that carried none (recorded
    /// there: the head of a response, an SSE event without a message, a body's end).
    async fn next(&mut self, left: Duration) -> Result<Option<(Frame, LargePlace)>, RecvError> {
        match &mut self.link {
            Link::Stdio(child) => child.recv_holding(left).await.map(Some),
            Link::Tenant(tenant) => tenant.recv_holding(left).await.map(Some),
            Link::Http(_) => Ok(self.next_http(left).await?.map(|frame| (frame, LargePlace::default()))),
        }
    }

    /// Sends raw bytes, as they are.
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        self.footprint.sent_raw(bytes, self.recorder.checker());
        self.recorder.record_raw(Direction::ClientToServer, bytes);
        match &mut self.link {
            Link::Stdio(child) => child.send_bytes(bytes).await,
            Link::Tenant(tenant) => {
                tenant.footprint(&self.footprint);
                tenant.send_bytes(bytes).await
            }
            Link::Http(http) => {
                http.send_bytes(bytes, self.recorder.checker());
                Ok(())
            }
        }
    }

    /// The persona's `inputResponses` to an `InputRequiredResult`'s `inputRequests`.
    pub fn persona_answer_inputs(&mut self, input_requests: &Value) -> Value {
        self.persona.answer_inputs(input_requests)
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

    /// Sends a request with a fresh integer id; returns the id. In the modern era the
    /// request carries the client's `_meta` (members the caller already set are kept).
    pub async fn send_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<RequestId, SendError> {
        let params = match self.request_meta() {
            Some(meta) => Some(modern::with_request_meta(params, &meta)),
            None => params,
        };
        self.send_request_as_is(method, params).await
    }

    /// Sends a request with a fresh integer id and exactly the params given (no `_meta` added).
    pub async fn send_request_as_is(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<RequestId, SendError> {
        let id = self.fresh_id();
        self.send(&Message::request(id.clone(), method, params)).await?;
        Ok(id)
    }

    /// The `_meta` every request carries in the modern era — the version, the persona's
    /// capabilities and mcpspec's identity (`basic/index.mdx#_meta`); `None` in the legacy era.
    pub fn request_meta(&self) -> Option<Value> {
        let revision = self.recorder.revision();
        (revision.era() == Era::Modern).then(|| {
            modern::request_meta(
                modern::wire_version(revision),
                &self.persona.capabilities,
                Some(&client_info()),
            )
        })
    }

    /// The request that shows the server is alive and reading, answered at once and without
    /// effect: `ping` in the legacy era, `server/discover` in the modern one (which removed
    /// ping).
    pub fn liveness_request(&self) -> (&'static str, Option<Value>) {
        match self.request_meta() {
            Some(meta) => ("server/discover", Some(serde_json::json!({ "_meta": meta }))),
            None => ("ping", None),
        }
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
        // Over Streamable HTTP the message's own exchange is the barrier: once its response is
        // over, an answer to it is due at once (or on the GET stream, within the grace). Over
        // HTTP+SSE every answer comes on the one SSE stream, in order, as over stdio: a ping is
        // the barrier there too.
        let barrier_exchange = match &self.link {
            Link::Http(h) if h.streamable() => Some(h.last_sent),
            _ => None,
        };
        if let Some(sent) = barrier_exchange {
            let Some(n) = sent else { return Err(WaitError::Timeout(within)) };
            let deadline = Instant::now() + within;
            return match self.wait_first_or_end(&[(id, idless_ok)], within, Some(n)).await {
                Ok(Some((_, r))) => Ok(r),
                Ok(None) => {
                    let left = deadline.saturating_duration_since(Instant::now()).min(MIN_GRACE);
                    match self.wait_first(&[(id, idless_ok)], left).await {
                        Ok((_, r)) => Ok(r),
                        Err(WaitError::Timeout(_)) => Err(WaitError::Silent { grace: MIN_GRACE }),
                        Err(e) => Err(e),
                    }
                }
                Err(e) => Err(e),
            };
        }
        let barrier = self.fresh_id();
        let sent = Instant::now();
        let (method, params) = self.liveness_request();
        self.send(&Message::request(barrier.clone(), method, params)).await?;
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

    /// Waits for the answer to any of the requests `ids` (several in flight at once); returns
    /// which one it answered, and the answer.
    pub async fn wait_any(
        &mut self,
        ids: &[RequestId],
        within: Duration,
    ) -> Result<(usize, Response), WaitError> {
        let targets: Vec<(Option<&RequestId>, bool)> = ids.iter().map(|id| (Some(id), false)).collect();
        self.wait_first(&targets, within).await
    }

    /// Waits for the first answer to one of `targets` (an id, and whether an error without an
    /// id counts); returns which target it answered.
    async fn wait_first(
        &mut self,
        targets: &[(Option<&RequestId>, bool)],
        within: Duration,
    ) -> Result<(usize, Response), WaitError> {
        match self.wait_first_or_end(targets, within, None).await? {
            Some(found) => Ok(found),
            None => Err(WaitError::Timeout(within)),
        }
    }

    /// [`Self::wait_first`], which also ends (with `None`) once HTTP exchange `until_end`'s
    /// body has ended.
    async fn wait_first_or_end(
        &mut self,
        targets: &[(Option<&RequestId>, bool)],
        within: Duration,
        until_end: Option<u64>,
    ) -> Result<Option<(usize, Response)>, WaitError> {
        let matching = |v: &Value| targets.iter().position(|(id, idless_ok)| answers(v, *id, *idless_ok));
        let deadline = Instant::now() + within;
        loop {
            // Answers kept earlier, or made of an HTTP refusal meanwhile.
            if let Some((at, which)) =
                self.early.iter().enumerate().find_map(|(at, (v, _))| Some((at, matching(v)?)))
            {
                return Ok(Some((which, self.early.remove(at).1)));
            }
            if let Some(why) = self.unanswerable(targets) {
                return Err(WaitError::Http(why));
            }
            if until_end.is_some_and(|n| self.exchange_ended(n)) {
                return Ok(None);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            // A large line's place is held until its frame is judged, not only until it is
            // taken: the judging holds copies of it too.
            let (frame, _place) = match self.next(left).await {
                Ok(Some(held)) => held,
                Ok(None) => continue,
                Err(RecvError::Timeout(_)) => return Err(WaitError::Timeout(within)),
                Err(RecvError::Closed) => return Err(WaitError::Closed(self.exit_note().await)),
            };
            let inspections = self.record(frame);
            let mut found = None;
            for i in inspections {
                let which = if found.is_none() { i.value.as_ref().and_then(&matching) } else { None };
                match (i.message, which) {
                    (Some(Message::Response(r)), Some(which)) => found = Some(Ok(Some((which, r)))),
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
                    let carried = self.read_from.and_then(|n| self.recorder.exchange(n));
                    let one = carried.filter(|x| x.requests.len() == 1).map(|x| x.requests[0].clone());
                    self.server_requests_for.push(one);
                }
                self.send(&answer).await?;
            }
            Some(n @ Message::Notification(_)) if self.notifications.len() < KEPT_MESSAGES => {
                self.notifications.push(n)
            }
            Some(Message::Response(r)) if self.early.len() < KEPT_MESSAGES => {
                // A recorded response's value is already its stub (`record`).
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

    /// Carries a request the server answered with an `InputRequiredResult` to its end, as a
    /// client does (`basic/patterns/mrtr.mdx#client-requirements-basic-workflow`): the persona
    /// answers the input requests, and the request is sent again — under a new id, with the
    /// `inputResponses` and the exact `requestState` (none when none was given) — until the
    /// server completes it or [`MAX_INPUT_ROUNDS`] rounds have passed. Returns the last answer;
    /// every `InputRequiredResult` is kept in [`Self::input_required`].
    pub async fn complete_input(
        &mut self,
        method: &str,
        params: Option<Value>,
        mut answer: Response,
        within: Duration,
    ) -> Result<Response, WaitError> {
        for _ in 0..MAX_INPUT_ROUNDS {
            let Some(asked) = input_required(&answer) else { return Ok(answer) };
            if self.input_required.len() < KEPT_MESSAGES {
                self.input_required.push(asked.clone());
            }
            let mut retry = match params.clone() {
                Some(Value::Object(m)) => m,
                _ => serde_json::Map::new(),
            };
            if let Some(inputs) = asked.get("inputRequests") {
                retry.insert("inputResponses".into(), self.persona.answer_inputs(inputs));
            }
            if let Some(state) = asked.get("requestState") {
                retry.insert("requestState".into(), state.clone());
            }
            let id = self.send_request(method, Some(Value::Object(retry))).await?;
            answer = self.wait_response(&id, within).await?;
        }
        Ok(answer)
    }

    /// Reads whatever arrives within `within` (to catch unsolicited messages). Ends early if
    /// the server closes its stdout.
    pub async fn drain(&mut self, within: Duration) -> Result<(), WaitError> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left).await {
                Ok(Some((frame, _place))) => {
                    for i in self.record(frame) {
                        self.take_unsolicited(i).await?;
                    }
                }
                Ok(None) => {}
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
        self.read_until(within, |s| {
            s.notifications.iter().any(|m| matches!(m, Message::Notification(n) if n.method == method))
        })
        .await
    }

    /// Reads (keeping what arrives as usual) until `done` holds, at most `within`; whether it
    /// came to hold.
    async fn read_until(&mut self, within: Duration, done: impl Fn(&Self) -> bool) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if done(self) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(next) = self.next(left).await else { return false };
            let Some((frame, _place)) = next else { continue };
            for i in self.record(frame) {
                if self.take_unsolicited(i).await.is_err() {
                    return false;
                }
            }
        }
    }

    /// Ends the session: the server process (SIGTERM with its stdin closed, then SIGKILL:
    /// [`ChildTransport::terminate`]; a scenario that tests how the server exits closes its stdin
    /// and waits first), or the HTTP session (DELETE, when the server issued a session id);
    /// idempotent.
    pub async fn shutdown(&mut self) -> SessionEnd {
        if let Some(r) = &self.shutdown {
            return r.clone();
        }
        let end = match &mut self.link {
            Link::Stdio(child) => SessionEnd::Process(child.terminate().await),
            Link::Http(_) => SessionEnd::Http(self.end_http().await),
            Link::Tenant(tenant) => {
                tenant.await_others_settled(SETTLE_WAIT).await;
                tenant.leave();
                let host = tenant.host().clone();
                // The last tenant of a host that takes no more ends its process.
                let report = match host.present() == 0 && host.is_closed() {
                    true => host.shutdown().await,
                    false => None,
                };
                let end = match report {
                    Some(report) => SessionEnd::Process(report),
                    None => SessionEnd::Left(format!(
                        "left the process running for others (up to {} scenarios used it at once)",
                        host.most_at_once()
                    )),
                };
                self.shutdown = Some(end.clone());
                return end;
            }
        };
        self.record_tail().await;
        if let Link::Http(http) = &mut self.link {
            http.transport.abort();
        }
        self.shutdown = Some(end.clone());
        end
    }

    /// Records what the server wrote that no step read: a message written after a scenario's
    /// last wait (a progress notification after the answer, say) is judged like any other,
    /// or it would pass unseen. The server is gone, so its stdout ends soon; the frame count
    /// and the wait bound one that survived SIGKILL and keeps writing.
    async fn record_tail(&mut self) {
        // Over HTTP nothing ends the streams but the server: what is already queued is read.
        let wait = match self.link {
            Link::Stdio(_) | Link::Tenant(_) => TAIL_WAIT,
            Link::Http(_) => Duration::from_millis(50),
        };
        let deadline = Instant::now() + wait;
        for _ in 0..TAIL_FRAMES {
            match self.next(deadline.saturating_duration_since(Instant::now())).await {
                Ok(Some((frame, _place))) => drop(self.record(frame)),
                Ok(None) => {}
                Err(_) => return,
            }
        }
    }
}

/// What [`answers`] reads of a response, without the rest: a response kept for later is kept
/// once (as the typed response), not twice.
fn answer_stub(value: &Value) -> Value {
    let mut stub = serde_json::Map::new();
    for key in ["id", "error"] {
        if let Some(v) = value.get(key) {
            // Only whether there is an error matters, not what it says.
            let v = if key == "error" { Value::Null } else { v.clone() };
            stub.insert(key.into(), v);
        }
    }
    Value::Object(stub)
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
