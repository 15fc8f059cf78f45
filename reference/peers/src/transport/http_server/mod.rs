//! The server side of MCP's two HTTP transports, on axum: Streamable HTTP (2025-03-26 …
//! 2025-11-25, spec digest §N; and 2026-07-28, §R) and the legacy HTTP+SSE transport
//! (2024-11-05, §O).
//!
//! An endpoint whose [`HttpServerOptions::accepted_revisions`] hold a modern revision also
//! serves the modern era (`rules::is_modern_post`): such a POST is checked here (`_meta`,
//! the mirrored headers), then handed to the app as a session of its own that is never
//! announced (no `Mcp-Session-Id`; one app instance per request, which keeps no state between
//! requests) and ends with its response stream, so closing the stream cancels the request
//! (`streamable-http.mdx#cancellation`). Its answer is one JSON body when the app's first message
//! is the response (its status from the error code, `rules::modern_status`), else an SSE stream.
//! Legacy sessions (`initialize`) go on beside it, on the same endpoint.
//!
//! The endpoint knows HTTP, sessions and streams, not what the messages mean: an app (the
//! reference server, or a scenario server testing MCP clients) takes each new session from
//! [`HttpListener::next_session`] and talks through its [`SessionLink`] as over a stdio pipe:
//! [`SessionLink::recv`] yields one [`Frame`] per message in arrival order, [`SessionLink::send`]
//! takes a message and the link routes it onto exactly one stream (see `session.rs`). Every
//! exchange is logged ([`HttpRecord`]) so the app can show and judge the HTTP layer.
//!
//! The rules a correct server enforces live in `rules.rs`; `session.rs` holds each session's
//! streams; `streamable.rs`, `modern.rs` and `legacy.rs` answer the requests of Streamable HTTP,
//! of its modern era, and of HTTP+SSE. A deliberate defect of the HTTP layer ([`HttpServerOptions::fault`], the `http-` and
//! `sse-` faults of [`Fault`]) turns one rule off or bends one routing decision.
//!
//! Everything is bounded: body size and read time, per-session queues, replay buffers, the
//! number of sessions, and idle sessions are reaped.

mod admission;
mod bend;
mod legacy;
mod modern;
mod planted;
mod protect;
mod rules;
mod session;
mod streamable;

pub use bend::{latin1, Bend, ReplyBend};
pub use protect::{ChallengeMetadata, Protection, ELSEWHERE_PRM_PATH};
pub use rules::{accept_lists, host_allowed, is_visible_ascii, parse_event_id, OriginPolicy};

use crate::faults::Fault;
use crate::transport::{RecvError, SendError};
use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;
use mcpspec_protocol::framing::{Frame, DEFAULT_MAX_MESSAGE_BYTES};
use mcpspec_protocol::revision::{Era, Revision};
use mcpspec_protocol::wire::{ErrorObject, Message, RequestId};
use serde_json::Value;
use session::{OpenError, PostOpen, PostReply, Session};
use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

pub use super::Flavor;

/// The messages of a session, each with the POST stream it came on (`None`: a POST that
/// opened none), as the app receives them.
type Inbound = mpsc::Receiver<(Frame, Option<u64>)>;

/// How much the endpoint keeps, per session.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Messages received and not yet taken by the app (beyond: 503).
    pub queued_messages: usize,
    /// Events queued on one connection the client is not reading (beyond: the connection is
    /// dropped and the rest waits in the replay buffer).
    pub queued_events: usize,
    /// Events kept per stream for `Last-Event-ID`.
    pub replay_events: usize,
    /// Finished POST streams whose replay buffers are kept.
    pub finished_streams_kept: usize,
    /// Server requests and notifications held until a GET stream opens.
    pub held_messages: usize,
    /// Records of [`HttpRecord`] kept until taken (beyond: the oldest are dropped).
    pub log_records: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            queued_messages: 256,
            queued_events: 512,
            replay_events: 256,
            finished_streams_kept: 16,
            held_messages: 256,
            log_records: 2048,
        }
    }
}

/// How the endpoint listens and what it accepts.
#[derive(Debug, Clone)]
pub struct HttpServerOptions {
    /// Where to listen; loopback and a free port by default.
    pub bind: SocketAddr,
    pub flavor: Flavor,
    /// The MCP endpoint (Streamable HTTP) or the SSE endpoint clients GET (legacy).
    pub path: String,
    /// Legacy only: where clients POST (announced with `?sessionId=` in the `endpoint` event).
    pub messages_path: String,
    /// Answer a POST holding requests with one `application/json` body when all it produces is
    /// its responses (else, and by default, an SSE stream).
    pub json_responses: bool,
    /// Open each POST's SSE stream with an event holding an id and empty data, in sessions of
    /// 2025-11-25 and later (SEP-1699).
    pub priming: bool,
    /// 2025-11-25 polling (SEP-1699), for scenarios testing clients: every POST stream is
    /// closed right after its priming event, which carries `retry` of this long; the answers
    /// wait in the replay buffer for the client's GET with `Last-Event-ID`. Needs `priming`.
    pub poll_after_priming: Option<Duration>,
    /// Serve the standalone GET stream; when false, a GET without `Last-Event-ID` is answered
    /// 405 Method Not Allowed (as the spec lets a server do), for scenarios testing clients.
    pub get_stream: bool,
    /// The largest POST body read (beyond: 413).
    pub max_message_bytes: usize,
    /// Sessions at once (beyond: 503).
    pub max_sessions: usize,
    pub allowed_origins: OriginPolicy,
    /// The revisions `MCP-Protocol-Version` may name (others: 400). A modern one here turns on
    /// the modern era (see the module doc); its versions are judged by the app.
    pub accepted_revisions: Vec<Revision>,
    /// A session nobody has sent anything to, with no open stream, for this long is ended.
    pub session_idle_timeout: Duration,
    /// How long a POST body may take to arrive (beyond: 408).
    pub body_timeout: Duration,
    /// JSON-responses mode: how long a POST waits for the app's first message (beyond: 504).
    pub response_timeout: Duration,
    /// An SSE comment is sent on every open stream this often, so that a client that went away
    /// is noticed (and proxies keep the stream).
    pub keepalive: Duration,
    pub limits: Limits,
    /// A deliberate defect of the HTTP layer (test peers only). Only the `http-`, `sse-` and
    /// `modern-http-` faults change something here (and `modern-meta-not-required`, which lets
    /// a modern request without `_meta` through to the app).
    pub fault: Option<Fault>,
    /// The protected mode (`protect.rs`): an OAuth resource server trusting one issuer.
    pub protection: Option<Arc<Protection>>,
    /// The inputSchema of each tool (by name) whose parameters carry `x-mcp-header`: a modern
    /// `tools/call` of one is refused (400, -32020) when its `Mcp-Param-*` headers do not match
    /// its arguments (`streamable-http.mdx#server-behavior-for-custom-headers`). What the app
    /// lists, told to the endpoint, which alone sees the headers.
    pub param_schemas: HashMap<String, Value>,
    /// 2025-03-26's authorization base URL is the MCP server's origin: requests for these
    /// paths are relayed to the authorization server at this address (`protect::at_origin`,
    /// where the `auth-legacy-` faults act; not logged here: it logs them).
    pub authorization_relay: Option<(SocketAddr, Vec<String>)>,
    /// One response sent bent (`bend.rs`), for fuzzing a client's HTTP layer; none by default.
    pub bend: Option<ReplyBend>,
}

impl HttpServerOptions {
    /// The defaults of a flavor: `/mcp`, or `/sse` and `/messages`.
    pub fn new(flavor: Flavor) -> HttpServerOptions {
        HttpServerOptions {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            flavor,
            path: match flavor {
                Flavor::Streamable => "/mcp".into(),
                Flavor::LegacySse => "/sse".into(),
            },
            messages_path: "/messages".into(),
            json_responses: false,
            priming: true,
            poll_after_priming: None,
            get_stream: true,
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            max_sessions: 64,
            allowed_origins: OriginPolicy::Localhost,
            accepted_revisions: Revision::LEGACY.to_vec(),
            session_idle_timeout: Duration::from_secs(600),
            body_timeout: Duration::from_secs(30),
            response_timeout: Duration::from_secs(120),
            keepalive: Duration::from_secs(15),
            limits: Limits::default(),
            fault: None,
            protection: None,
            authorization_relay: None,
            param_schemas: HashMap::new(),
            bend: None,
        }
    }
}

impl Default for HttpServerOptions {
    fn default() -> Self {
        HttpServerOptions::new(Flavor::Streamable)
    }
}

/// One HTTP request the endpoint answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Exchange {
    pub method: String,
    /// The path and query.
    pub path: String,
    /// The request headers MCP cares about (`accept`, `content-type`, `mcp-session-id`,
    /// `mcp-protocol-version`, `mcp-method`, `mcp-name`, every `mcp-param-*`, `origin`,
    /// `last-event-id`), lowercase names, lossy values; and
    /// `authorization` as its scheme alone (`Bearer …`), never the credential.
    pub request_headers: Vec<(String, String)>,
    pub status: u16,
    pub response_content_type: Option<String>,
    /// The response headers MCP cares about (`mcp-session-id`, `allow`, `www-authenticate`).
    pub response_headers: Vec<(String, String)>,
    /// The stream the response body is (a POST's stream, or the one a GET opened or resumed).
    pub stream: Option<u64>,
    /// Events replayed on it (`Last-Event-ID`).
    pub replayed: Vec<String>,
    /// A modern POST's request, reduced to what its headers mirror (`method`, `id`, and in
    /// `params` the `_meta` protocol version, `name`, `uri` and `arguments`): what a judge of
    /// clients holds the logged `mcp-*` headers to. `None` for every other request.
    pub request: Option<Value>,
    /// When the response head was decided (for judging a client's timing, e.g. `retry`).
    pub at: Instant,
}

/// A message of the app as it went out.
#[derive(Debug, Clone, PartialEq)]
pub struct SentMessage {
    /// The stream it went out on (0: the GET stream).
    pub stream: u64,
    /// Its SSE event id (`None` in legacy HTTP+SSE and for a JSON body).
    pub event_id: Option<String>,
    /// It was the whole `application/json` body of a POST.
    pub json_body: bool,
    pub message: Value,
}

/// What happened on the HTTP layer, in order.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HttpRecord {
    /// A request was answered (for an SSE body: its status and headers were sent).
    Exchange(Exchange),
    /// A message of the app went out.
    Sent(SentMessage),
    /// A message of the app waits for a GET stream.
    Held { message: Value },
    /// A message of the app could not go anywhere (a response to a request no POST holds).
    Undeliverable { message: Value, why: String },
    /// A POST's stream ended after its last response.
    StreamClosed { stream: u64 },
    /// A POST's connection was closed after its priming event ([`HttpServerOptions::
    /// poll_after_priming`]): the client is to reconnect with `Last-Event-ID: event_id`, no
    /// sooner than `retry` after `at`.
    PollClosed { stream: u64, event_id: String, retry: Duration, at: Instant },
}

/// The state all handlers share.
struct Endpoint {
    options: HttpServerOptions,
    /// The address actually bound (the port chosen when `options.bind` asked for 0): what a
    /// request's `Host` must name.
    listening: SocketAddr,
    state: Mutex<EndpointState>,
    new_sessions: mpsc::Sender<SessionLink>,
    /// The requests answered so far, by method: which response [`HttpServerOptions::bend`] bends.
    answered: bend::Answered,
    /// Requests being handled whose exchange is not logged yet, but for those waiting for the
    /// app's answer ([`HttpListener::await_logged`]).
    unlogged: AtomicUsize,
}

/// One request on its way to the log: counted in [`Endpoint::unlogged`] while it lives (a
/// handler dropped with its connection stops counting too).
struct Unlogged(Arc<Endpoint>);

impl Unlogged {
    fn new(endpoint: &Arc<Endpoint>) -> Unlogged {
        endpoint.unlogged.fetch_add(1, Ordering::SeqCst);
        Unlogged(endpoint.clone())
    }
}

impl Drop for Unlogged {
    fn drop(&mut self) {
        self.0.unlogged.fetch_sub(1, Ordering::SeqCst);
    }
}

struct EndpointState {
    sessions: HashMap<String, Session>,
    /// Records of requests that belong to no session (rejected before one was found).
    log: VecDeque<HttpRecord>,
    /// The latest session created (fault `http-missing-session-id-served`).
    latest: Option<String>,
    /// Sessions created since the endpoint started (fault `fuzz-http-crash-session-leak`).
    created: u64,
}

impl Endpoint {
    /// The lock; a panic elsewhere cannot leave the maps half-changed in a way that matters, so
    /// a poisoned lock is used as is rather than spreading the panic.
    fn lock(&self) -> MutexGuard<'_, EndpointState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn fault(&self) -> Option<Fault> {
        self.options.fault
    }

    /// Awaits the app's answer to a POST being handled, within the response timeout
    /// ([`HttpServerOptions::response_timeout`]). Meanwhile the request is not on its way to
    /// the log (the app answers when it will, or never), and nobody waiting for the log
    /// ([`Unlogged`]) waits for it.
    async fn app_answer(
        &self,
        answer: tokio::sync::oneshot::Receiver<PostReply>,
    ) -> Result<Result<PostReply, tokio::sync::oneshot::error::RecvError>, tokio::time::error::Elapsed> {
        /// Counts the request again once the answer is in (or the handler is dropped, when its
        /// [`Unlogged`] uncounts it).
        struct Answered<'e>(&'e Endpoint);
        impl Drop for Answered<'_> {
            fn drop(&mut self) {
                self.0.unlogged.fetch_add(1, Ordering::SeqCst);
            }
        }
        self.unlogged.fetch_sub(1, Ordering::SeqCst);
        let _answered = Answered(self);
        tokio::time::timeout(self.options.response_timeout, answer).await
    }
}

/// A bound HTTP endpoint. Dropping it stops the server (sessions end).
pub struct HttpListener {
    endpoint: Arc<Endpoint>,
    local_addr: SocketAddr,
    sessions: mpsc::Receiver<SessionLink>,
    tasks: Vec<JoinHandle<()>>,
}

impl HttpListener {
    /// Binds and starts serving.
    pub async fn bind(options: HttpServerOptions) -> std::io::Result<HttpListener> {
        let tcp = tokio::net::TcpListener::bind(options.bind).await?;
        HttpListener::serve_on(tcp, options)
    }

    /// Serves on a socket already bound (when the URL must be known before the options are,
    /// as an authorization server at the same origin needs); loopback only, as [`Self::bind`]'s
    /// callers ensure.
    pub fn serve_on(
        tcp: tokio::net::TcpListener,
        options: HttpServerOptions,
    ) -> std::io::Result<HttpListener> {
        let local_addr = tcp.local_addr()?;
        let (tx, sessions) = mpsc::channel(options.max_sessions.max(1));
        let idle = options.session_idle_timeout;
        let endpoint = Arc::new(Endpoint {
            options,
            listening: local_addr,
            state: Mutex::new(EndpointState {
                sessions: HashMap::new(),
                log: VecDeque::new(),
                latest: None,
                created: 0,
            }),
            new_sessions: tx,
            answered: bend::Answered::default(),
            unlogged: AtomicUsize::new(0),
        });
        let router = axum::Router::new().fallback(handle).with_state(endpoint.clone());
        // Without TCP_NODELAY an SSE answer (its head, then an event, then the end, each a
        // small write) waits for the client's delayed ACK: about 40 ms per request on Linux,
        // which made every exchange over HTTP cost that much.
        let tcp = axum::serve::ListenerExt::tap_io(tcp, |stream: &mut tokio::net::TcpStream| {
            let _ = stream.set_nodelay(true);
        });
        let server = tokio::spawn(async move {
            // Errors of single connections are handled inside; this ends only with the task.
            let _ = axum::serve(tcp, router).await;
        });
        let weak = Arc::downgrade(&endpoint);
        let reaper = tokio::spawn(reap(weak, idle));
        Ok(HttpListener { endpoint, local_addr, sessions, tasks: vec![server, reaper] })
    }

    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The URL clients use: the MCP endpoint, or (legacy) the SSE endpoint.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.local_addr, self.endpoint.options.path)
    }

    pub fn options(&self) -> &HttpServerOptions {
        &self.endpoint.options
    }

    /// The next new session, if one starts within `within`.
    pub async fn next_session(&mut self, within: Duration) -> Option<SessionLink> {
        tokio::time::timeout(within, self.sessions.recv()).await.ok().flatten()
    }

    /// Takes the records of requests that belong to no session (rejected with 400, 403, 404, …
    /// before a session was found).
    pub fn take_log(&self) -> Vec<HttpRecord> {
        self.endpoint.lock().log.drain(..).collect()
    }

    /// How many requests that belong to no session are logged, not yet taken: whether a peer
    /// reached the endpoint at all, though no session came of it.
    pub fn unsessioned_requests(&self) -> usize {
        self.endpoint.lock().log.len()
    }

    /// Waits at most `within` until every request the endpoint has taken in is logged (but
    /// those waiting for the app's answer): a request's message reaches the app before its
    /// exchange is logged, so whoever has seen the message and then takes the log (a scenario
    /// at its end) might otherwise miss the exchange.
    pub async fn await_logged(&self, within: Duration) {
        let deadline = tokio::time::Instant::now() + within;
        while self.endpoint.unlogged.load(Ordering::SeqCst) > 0 && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
    }

    /// Sessions open now.
    pub fn session_count(&self) -> usize {
        self.endpoint.lock().sessions.len()
    }
}

impl Drop for HttpListener {
    fn drop(&mut self) {
        for t in &self.tasks {
            t.abort();
        }
        // Links not taken hold the endpoint: drop them so that it is freed.
        self.sessions.close();
        while self.sessions.try_recv().is_ok() {}
        self.endpoint.lock().sessions.clear();
    }
}

/// Ends sessions idle for longer than `idle` (nothing received, no open stream).
async fn reap(endpoint: Weak<Endpoint>, idle: Duration) {
    let every = (idle / 4).clamp(Duration::from_millis(10), Duration::from_secs(5));
    loop {
        tokio::time::sleep(every).await;
        let Some(endpoint) = endpoint.upgrade() else { return };
        let now = Instant::now();
        endpoint
            .lock()
            .sessions
            .retain(|_, s| s.has_live_connection() || now.duration_since(s.last_active) < idle);
    }
}

/// One MCP session, as the app sees it: messages in, messages out. Dropping it ends the
/// session (later requests naming it get 404).
pub struct SessionLink {
    id: String,
    endpoint: Arc<Endpoint>,
    inbound: Inbound,
}

impl std::fmt::Debug for SessionLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionLink").field("id", &self.id).finish_non_exhaustive()
    }
}

impl SessionLink {
    /// The session id (`Mcp-Session-Id`, or legacy `sessionId`).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The next message of the client. [`RecvError::Closed`] once the session has ended
    /// (DELETEd, reaped, or legacy: its GET stream dropped) and everything before is taken.
    pub async fn recv(&mut self, within: Duration) -> Result<Frame, RecvError> {
        self.recv_from(within).await.map(|(frame, _)| frame)
    }

    /// [`Self::recv`], with the POST stream the message came on (for [`Self::send_in_reply`]).
    pub async fn recv_from(&mut self, within: Duration) -> Result<(Frame, Option<u64>), RecvError> {
        match tokio::time::timeout(within, self.inbound.recv()).await {
            Ok(Some(received)) => Ok(received),
            Ok(None) => Err(RecvError::Closed),
            Err(_) => Err(RecvError::Timeout(within)),
        }
    }

    /// Sends one message (or batch) of the app; the link picks its stream.
    pub fn send(&self, message: &Value) -> Result<(), SendError> {
        self.send_in_reply(message, None)
    }

    /// Sends a message the app wrote while handling one that came on POST stream `origin`: a
    /// response the link cannot match by id, and a related request or notification, go there.
    pub fn send_in_reply(&self, message: &Value, origin: Option<u64>) -> Result<(), SendError> {
        let mut state = self.endpoint.lock();
        let session = state.sessions.get_mut(&self.id).ok_or(SendError::SessionEnded)?;
        session.route(message.clone(), origin)
    }

    /// Sends `messages` as [`Self::send_in_reply`] does, then ends the session, under one hold
    /// of the endpoint: whatever the client sends once it has read them finds the session gone
    /// (a 404), never a session about to end under its request.
    pub fn send_in_reply_then_close(&self, messages: &[Value], origin: Option<u64>) -> Result<(), SendError> {
        let mut state = self.endpoint.lock();
        let session = state.sessions.get_mut(&self.id).ok_or(SendError::SessionEnded)?;
        let sent = messages.iter().try_for_each(|m| session.route(m.clone(), origin));
        state.sessions.remove(&self.id);
        sent
    }

    /// Whether a message [`Self::send`] sends unprompted reaches the client now (its GET
    /// stream, or legacy its SSE stream, is open), rather than being held for a stream to come.
    pub fn reaches_client(&self) -> bool {
        self.endpoint.lock().sessions.get(&self.id).is_some_and(Session::standalone_live)
    }

    /// The revision negotiated by `initialize`, as read from the app's answer.
    pub fn revision(&self) -> Option<Revision> {
        self.endpoint.lock().sessions.get(&self.id).and_then(|s| s.revision)
    }

    /// Takes this session's records so far.
    pub fn take_log(&self) -> Vec<HttpRecord> {
        self.endpoint.lock().sessions.get_mut(&self.id).map(Session::take_log).unwrap_or_default()
    }

    /// Ends the session from the server's side.
    pub fn close(&self) {
        self.endpoint.lock().sessions.remove(&self.id);
    }
}

impl Drop for SessionLink {
    fn drop(&mut self) {
        self.close();
    }
}

// ---- the handlers ------------------------------------------------------------------------

/// What a handler decided, for the log.
struct Reply {
    response: Response,
    session: Option<String>,
    stream: Option<u64>,
    replayed: Vec<String>,
    /// A modern POST's request, for the log ([`Exchange::request`]).
    request: Option<Value>,
}

impl Reply {
    fn plain(response: Response) -> Reply {
        Reply { response, session: None, stream: None, replayed: Vec::new(), request: None }
    }
}

impl From<Response> for Reply {
    fn from(response: Response) -> Reply {
        Reply::plain(response)
    }
}

const LOGGED_REQUEST_HEADERS: [&str; 8] = [
    "accept",
    "content-type",
    "mcp-session-id",
    "mcp-protocol-version",
    "mcp-method",
    "mcp-name",
    "origin",
    "last-event-id",
];
const LOGGED_RESPONSE_HEADERS: [&str; 3] = ["mcp-session-id", "allow", "www-authenticate"];

async fn handle(State(endpoint): State<Arc<Endpoint>>, request: Request) -> Response {
    if let Some((to, paths)) = &endpoint.options.authorization_relay {
        if paths.iter().any(|p| p == request.uri().path()) {
            return protect::at_origin(&endpoint, *to, request).await;
        }
    }
    if let Some(planted) = planted::at_head(&endpoint, request.method(), request.headers()).await {
        return planted;
    }
    let _unlogged = Unlogged::new(&endpoint);
    let method = request.method().to_string();
    let path = logged_path(request.uri());
    let bend = endpoint.answered.bend_for(endpoint.options.bend.as_ref(), &method);
    let mut request_headers = pick_headers(request.headers(), &LOGGED_REQUEST_HEADERS);
    request_headers.extend(rules::param_headers(request.headers()));
    // Whether and how the request was authenticated, never the credential itself: the log
    // reaches reports.
    if let Some(scheme) = header_str(request.headers(), "authorization").and_then(|v| v.split(' ').next()) {
        request_headers.push(("authorization".to_owned(), format!("{scheme} …")));
    }
    let head = protect::Head { method: request.method(), uri: request.uri(), headers: request.headers() };
    let mut reply = match protect::guard(&endpoint, head).await {
        Some(refused_or_metadata) => refused_or_metadata,
        None => match endpoint.options.flavor {
            Flavor::Streamable => streamable::streamable(&endpoint, request).await,
            Flavor::LegacySse => legacy::legacy(&endpoint, request).await,
        },
    };
    if let Some(bend) = bend {
        // Logged as sent: the exchange shows the status and headers the client got.
        reply.response = bend::apply(bend, &path, reply.response).await;
    }
    let headers = reply.response.headers();
    let exchange = Exchange {
        method,
        path,
        request_headers,
        status: reply.response.status().as_u16(),
        response_content_type: headers
            .get(header::CONTENT_TYPE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned()),
        response_headers: pick_headers(headers, &LOGGED_RESPONSE_HEADERS),
        stream: reply.stream,
        replayed: reply.replayed,
        request: reply.request,
        at: Instant::now(),
    };
    let mut state = endpoint.lock();
    let record = HttpRecord::Exchange(exchange);
    match reply.session.as_ref().and_then(|id| state.sessions.get_mut(id)) {
        Some(session) => session.record(record),
        None => {
            if state.log.len() >= endpoint.options.limits.log_records {
                state.log.pop_front();
            }
            state.log.push_back(record);
        }
    }
    reply.response
}

/// Relays `request` to the authorization server at `to` (same path and query, the headers an
/// OAuth request carries, the body) and its answer back; a failure is a 502.
async fn relay(to: SocketAddr, request: Request, within: Duration) -> Response {
    let (parts, body) = request.into_parts();
    let target = format!("http://{to}{}", parts.uri.path_and_query().map_or("/", |p| p.as_str()));
    let body = match tokio::time::timeout(within, axum::body::to_bytes(body, 64 * 1024)).await {
        Ok(Ok(b)) => b,
        _ => return status_only(StatusCode::BAD_REQUEST),
    };
    let Ok(http) = crate::transport::http_client::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(within)
        .build()
    else {
        return status_only(StatusCode::BAD_GATEWAY);
    };
    let mut out = http.request(parts.method.clone(), target).body(body.to_vec());
    for name in [header::CONTENT_TYPE, header::AUTHORIZATION, header::ACCEPT] {
        if let Some(v) = parts.headers.get(&name) {
            out = out.header(name, v.clone());
        }
    }
    let Ok(answer) = out.send().await else { return status_only(StatusCode::BAD_GATEWAY) };
    let mut back = Response::builder().status(answer.status().as_u16());
    for name in [header::CONTENT_TYPE, header::LOCATION, header::CACHE_CONTROL, header::WWW_AUTHENTICATE] {
        if let Some(v) = answer.headers().get(name.as_str()) {
            back = back.header(name, v.as_bytes());
        }
    }
    let bytes = answer.bytes().await.unwrap_or_default();
    back.body(Body::from(bytes)).unwrap_or_default()
}

/// The path and query as logged: an `access_token` in the query (RFC 6750 §2.3, which MCP
/// forbids and the checks look for) keeps its name, its value becomes `[redacted]`. The log
/// reaches reports, and a credential must not.
fn logged_path(uri: &Uri) -> String {
    let Some(query) = uri.query() else { return uri.path().to_owned() };
    let pairs: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((k, _)) if url::form_urlencoded::parse(k.as_bytes()).any(|(k, _)| k == "access_token") => {
                format!("{k}=[redacted]")
            }
            _ => pair.to_owned(),
        })
        .collect();
    format!("{}?{}", uri.path(), pairs.join("&"))
}

fn pick_headers(headers: &HeaderMap, names: &[&str]) -> Vec<(String, String)> {
    names
        .iter()
        .flat_map(|name| {
            headers
                .get_all(*name)
                .iter()
                .map(move |v| ((*name).to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        })
        .collect()
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// An HTTP error with a JSON-RPC error body without id.
fn error(status: StatusCode, code: i64, message: &str) -> Response {
    let body = rules::error_body(code, message).to_string();
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(body))
        .unwrap_or_default()
}

/// An HTTP error before any stream exists: the status and a JSON-RPC error without id.
struct Refusal {
    status: StatusCode,
    code: i64,
    message: String,
}

impl Refusal {
    fn new(status: StatusCode, code: i64, message: &str) -> Refusal {
        Refusal { status, code, message: message.to_owned() }
    }
}

impl From<Refusal> for Reply {
    fn from(r: Refusal) -> Reply {
        Reply::plain(error(r.status, r.code, &r.message))
    }
}

fn status_only(status: StatusCode) -> Response {
    Response::builder().status(status).body(Body::empty()).unwrap_or_default()
}

const INVALID_REQUEST: i64 = -32600;
const PARSE_ERROR: i64 = -32700;
/// The JSON-RPC code of HTTP-level refusals (the implementation-defined server-error range).
const SERVER_ERROR: i64 = -32000;

/// A request whose `Host` (HTTP/1) or authority (HTTP/2) does not name this endpoint, or whose
/// `Origin` is not allowed, is refused with 403 before anything else is looked at: both are how
/// a DNS-rebinding page reaches a loopback server (see [`rules::host_allowed`]). A request with
/// neither (HTTP/1.0 without `Host`) did not come from a browser and is served.
fn rebinding_refused(endpoint: &Endpoint, parts: &axum::http::request::Parts) -> Option<Reply> {
    let host = parts
        .headers
        .get(header::HOST)
        .map(|h| h.as_bytes())
        .or_else(|| parts.uri.authority().map(|a| a.as_str().as_bytes()));
    if let Some(host) = host {
        let text = String::from_utf8_lossy(host);
        if !rules::host_allowed(&text, endpoint.listening) {
            let why = format!(
                "Forbidden: Host {text:?} does not name this server ({}) (DNS rebinding protection)",
                endpoint.listening
            );
            return Some(error(StatusCode::FORBIDDEN, SERVER_ERROR, &why).into());
        }
    }
    let headers = &parts.headers;
    let origin = headers.get(header::ORIGIN)?;
    let allowed = origin.to_str().is_ok_and(|o| endpoint.options.allowed_origins.allows(o));
    if allowed || endpoint.fault() == Some(Fault::HttpForeignOriginAccepted) {
        return None;
    }
    let text = String::from_utf8_lossy(origin.as_bytes());
    let why = format!("Forbidden: Origin {text:?} is not allowed (DNS rebinding protection)");
    Some(error(StatusCode::FORBIDDEN, SERVER_ERROR, &why).into())
}

/// Reads a POST body within the size and time limits, and parses it.
async fn read_message(endpoint: &Endpoint, headers: &HeaderMap, body: Body) -> Result<Value, Response> {
    let max = endpoint.options.max_message_bytes;
    let too_large = || {
        let why = format!("Payload Too Large: the body exceeds {max} bytes");
        error(StatusCode::PAYLOAD_TOO_LARGE, SERVER_ERROR, &why)
    };
    let declared = header_str(headers, "content-length").and_then(|l| l.trim().parse::<u64>().ok());
    if declared.is_some_and(|l| l > max as u64) {
        return Err(too_large());
    }
    let bytes = match tokio::time::timeout(endpoint.options.body_timeout, axum::body::to_bytes(body, max))
        .await
    {
        Err(_) => {
            return Err(error(StatusCode::REQUEST_TIMEOUT, SERVER_ERROR, "the body did not arrive in time"))
        }
        Ok(Err(e)) if is_length_limit(&e) => return Err(too_large()),
        Ok(Err(e)) => {
            return Err(error(StatusCode::BAD_REQUEST, SERVER_ERROR, &format!("cannot read the body: {e}")))
        }
        Ok(Ok(b)) => b,
    };
    serde_json::from_slice(&bytes)
        .map_err(|e| error(StatusCode::BAD_REQUEST, PARSE_ERROR, &format!("Parse error: {e}")))
}

fn is_length_limit(e: &axum::Error) -> bool {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(s) = source {
        if s.to_string().contains("length limit") {
            return true;
        }
        source = s.source();
    }
    false
}

/// The body of an open SSE stream: the events of its channel, a keep-alive comment when idle,
/// and a guard that tells the session when the connection is gone.
struct EventBody {
    rx: mpsc::Receiver<Bytes>,
    keepalive: tokio::time::Interval,
    _guard: ConnectionGuard,
}

impl futures_core::Stream for EventBody {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        match self.rx.poll_recv(cx) {
            Poll::Ready(Some(bytes)) => return Poll::Ready(Some(Ok(bytes))),
            Poll::Ready(None) => return Poll::Ready(None),
            Poll::Pending => {}
        }
        match self.keepalive.poll_tick(cx) {
            Poll::Ready(_) => Poll::Ready(Some(Ok(Bytes::from_static(b": keep-alive\n\n")))),
            Poll::Pending => Poll::Pending,
        }
    }
}

struct ConnectionGuard {
    endpoint: Weak<Endpoint>,
    session: String,
    stream: u64,
    serial: u64,
    /// Legacy: the session lives as long as its GET stream.
    ends_session: bool,
}

impl Drop for ConnectionGuard {
    fn drop(&mut self) {
        let Some(endpoint) = self.endpoint.upgrade() else { return };
        let mut state = endpoint.lock();
        if self.ends_session {
            state.sessions.remove(&self.session);
        } else if let Some(s) = state.sessions.get_mut(&self.session) {
            s.connection_dropped(self.stream, self.serial);
        }
    }
}

fn sse_response(endpoint: &Arc<Endpoint>, rx: mpsc::Receiver<Bytes>, guard: ConnectionGuard) -> Response {
    let every = endpoint.options.keepalive.max(Duration::from_millis(10));
    let keepalive = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    let body = Body::from_stream(EventBody { rx, keepalive, _guard: guard });
    let content_type = match endpoint.fault() {
        Some(Fault::HttpTextPlain) => "text/plain",
        _ => "text/event-stream",
    };
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::CACHE_CONTROL, "no-cache")
        // 2026-07-28 streamable-http.mdx: servers SHOULD send it (no proxy buffering of events).
        .header("x-accel-buffering", "no")
        .body(body)
        .unwrap_or_default()
}

fn guard(
    endpoint: &Arc<Endpoint>,
    session: &str,
    stream: u64,
    serial: u64,
    ends_session: bool,
) -> ConnectionGuard {
    ConnectionGuard {
        endpoint: Arc::downgrade(endpoint),
        session: session.to_owned(),
        stream,
        serial,
        ends_session,
    }
}

fn version_refused(endpoint: &Endpoint, headers: &HeaderMap) -> Result<Option<Revision>, Refusal> {
    let mut values = headers.get_all("mcp-protocol-version").iter().map(HeaderValue::as_bytes);
    let raw = values.next();
    let checked = match values.find(|v| Some(*v) != raw) {
        Some(_) => Err("conflicting MCP-Protocol-Version headers".to_owned()),
        None => rules::protocol_version(raw, &endpoint.options.accepted_revisions),
    };
    match checked {
        Ok(r) => Ok(r),
        Err(_) if endpoint.fault() == Some(Fault::HttpProtocolVersionUnchecked) => Ok(None),
        Err(why) => Err(Refusal::new(StatusCode::BAD_REQUEST, SERVER_ERROR, &format!("Bad Request: {why}"))),
    }
}
