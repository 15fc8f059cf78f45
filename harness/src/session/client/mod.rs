//! A live session with a client under test: mcpspec plays the server. The client command is
//! started (in its own process group) with `MCP_CONFORMANCE_SERVER_COMMAND` naming a relay,
//! `mcpspec peer --connect SOCKET`, which the client spawns as its MCP server; the relay bridges
//! its stdin and stdout to a Unix socket in a private folder that the harness listens on. Every
//! byte between client and relay thus crosses the harness, where the [`WireRecorder`] judges the
//! client's direction. Requests the steps do not handle are answered by the sans-IO
//! [`ReferenceServer`]. Every wait is bounded.
//!
//! Over HTTP ([`ClientSession::start_http`]) the scenario server is an [`HttpListener`] on
//! 127.0.0.1 (Streamable HTTP or legacy HTTP+SSE); the client command gets its URL as its last
//! argument and in `MCP_CONFORMANCE_SERVER_URL`. Messages then cross the endpoint's
//! [`SessionLink`] instead of the relay, and every HTTP exchange the endpoint logged is judged
//! by the client HTTP rules and shown in the transcript. Both ways are one [`Link`].

pub mod auth;
mod http;
mod stdio;

pub use stdio::relay;

use crate::judge::checker::Inspection;
use crate::judge::recorder::WireRecorder;
use http::HttpEndpoint;
use mcpspec_protocol::framing::Frame;
use mcpspec_protocol::wire::{Message, RequestId};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::server::{ReferenceServer, ServerConfig};
use mcpspec_reference::transport::child::{describe_status, SpawnError};
use mcpspec_reference::transport::{ChildOptions, ChildTransport, CommandSpec, RecvError, ShutdownReport};
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::time::Duration;
use stdio::StdioLink;
use tokio::time::Instant;

/// The environment variable holding the relay's argv (a JSON array of strings).
pub const SERVER_COMMAND_ENV: &str = "MCP_CONFORMANCE_SERVER_COMMAND";
pub const SCENARIO_ENV: &str = "MCP_CONFORMANCE_SCENARIO";
pub const PROTOCOL_VERSION_ENV: &str = "MCP_CONFORMANCE_PROTOCOL_VERSION";
pub const CONTEXT_ENV: &str = "MCP_CONFORMANCE_CONTEXT";
/// The environment variable holding the scenario server's URL, for a client over HTTP (the
/// URL is also the client command's last argument).
pub const SERVER_URL_ENV: &str = "MCP_CONFORMANCE_SERVER_URL";

/// How many client messages a session keeps for steps to look at.
const KEPT_MESSAGES: usize = 1_000;

/// The least time a message from the harness is given to reach the client and be read, however
/// fast the pings went: on a busy machine, scheduling jitter dwarfs a local pipe's round trip.
pub const MIN_GRACE: Duration = Duration::from_millis(250);

/// How many times the slowest ping round trip a message is given to arrive (see
/// [`ClientSession::grace`]).
const GRACE_ROUND_TRIPS: u32 = 4;

/// How long a client of the modern era must send nothing to be taken as idle (no ping can
/// prove it there; see [`ClientSession::serve_until_idle`]).
pub const MODERN_QUIET: Duration = Duration::from_secs(1);

/// How often [`ClientSession::serve_until_done`] looks whether the client process has exited.
pub(super) const EXIT_POLL: Duration = Duration::from_millis(50);

/// Why a client session could not start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StartError {
    /// The private socket folder or the socket could not be made.
    #[error("cannot listen for the client's relay at {path}: {source}")]
    Listen { path: PathBuf, source: std::io::Error },
    /// The client command could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// The scenario server's HTTP endpoint could not listen on 127.0.0.1.
    #[error("cannot serve {flavor} on 127.0.0.1: {source}")]
    Serve { flavor: &'static str, source: std::io::Error },
}

/// Why an awaited message from the client did not come.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientWaitError {
    /// Nothing arrived in time.
    #[error("nothing within {0:?}")]
    Timeout(Duration),
    /// The relay never connected (the client did not start its server).
    #[error("the client did not start the server command within {0:?}{1}")]
    NotConnected(Duration, String),
    /// The client closed the server's stdin (or exited).
    #[error("the client closed the server's stdin{0}")]
    Closed(String),
    /// Over HTTP: the client ended its session (DELETE; legacy: it closed its GET stream).
    #[error("the client ended its HTTP session{0}")]
    Ended(String),
    /// A message to the client could not be written.
    #[error("cannot write to the client: {0}")]
    Send(String),
}

/// How a client's session ended, as the scenario server saw it while serving the client
/// ([`ClientSession::serve_until_done`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Ending {
    /// The client closed the server's stdin (the relay read end of file), `after` this long.
    Closed { after: Duration },
    /// The client process exited (`status`) and the server's stdin was still open `grace`
    /// later: something the client left behind holds the pipe, and the session was never ended.
    ExitedFirst { status: String, grace: Duration },
    /// The client sent no message but pings for `idle` (lines that hold no JSON are no work),
    /// holding the server's stdin open.
    Idle { idle: Duration },
    /// `budget` passed while the client was still at work (its last message came `quiet_for`
    /// before the end): how it would have ended is unknown.
    StillActive { budget: Duration, quiet_for: Duration },
}

/// Whether what the client sent is work that keeps its session busy: a message, but not a
/// ping. A line that holds no JSON (garbage, however fast it comes) is a violation, not work.
fn is_work(i: &Inspection) -> bool {
    i.value.is_some() && !matches!(&i.message, Some(Message::Request(r)) if r.method == "ping")
}

/// How [`ClientSession::serve_until_idle`] stopped serving the client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Served {
    /// The client closed the server's stdin.
    Closed,
    /// The client was quiet for the grace, then answered a ping barrier, sending nothing else.
    Idle,
    /// The time given passed with the client still at work (or not answering the barrier).
    Timeout,
}

/// What the scenario server is told to do differently from the reference server.
#[derive(Debug, Clone, Default)]
pub struct ServerScript {
    /// Answer `initialize` with this `protocolVersion` instead of the negotiated one.
    pub protocol_version: Option<String>,
    /// Declare these server capabilities instead of the reference server's (all of them); a
    /// request for one not declared gets -32601, as from a server without the feature.
    pub capabilities: Option<Value>,
    /// Over Streamable HTTP (2025-11-25): close each POST stream after its priming event,
    /// which carries `retry` of this long (the client must poll with `Last-Event-ID`).
    pub poll_after_priming: Option<Duration>,
    /// Over Streamable HTTP: answer a GET without `Last-Event-ID` with 405.
    pub refuse_get: bool,
    /// Over Streamable HTTP: answer a POST whose requests produce only their responses with
    /// one `application/json` body instead of an SSE stream.
    pub json_responses: bool,
    /// Modern era: answer the client's first request with `-32022` (UnsupportedProtocolVersion),
    /// naming the scenario's version as the one supported, as a server instance that does not
    /// speak the version asked for would (`basic/versioning.mdx#protocol-version-negotiation`).
    pub refuse_first_version: bool,
    /// Modern era: leave `requestState` out of every InputRequiredResult (the client must then
    /// retry without one, `basic/patterns/mrtr.mdx#client-requirements-basic-workflow`).
    pub strip_request_state: bool,
    /// Over HTTP: protect the endpoint with OAuth, as this says ([`auth::AuthScript`]).
    pub auth: Option<auth::AuthScript>,
    /// Also list these tools, after the reference server's (on the last page of `tools/list`).
    pub extra_tools: Vec<Value>,
    /// Page `tools/list` as this says instead of as the reference server does.
    pub tool_pages: Option<ToolPages>,
    /// Modern era: leave `resultType` out of every `tools/list` result, as a server of an
    /// earlier version would (`basic/index.mdx#resulttype`).
    pub strip_list_result_type: bool,
    /// Modern era: answer the first `tools/list` with a result of this `resultType` (one no
    /// client knows), listing only this tool.
    pub unknown_list_result: Option<(String, Value)>,
    /// Over HTTP: send one response of the endpoint bent (a fuzz input's, `mcpspec fuzz --role
    /// client --transport http|sse`).
    pub bend: Option<mcpspec_reference::transport::http_server::ReplyBend>,
}

/// How the scenario server pages its tool list (`server/utilities/pagination.mdx`): a page of
/// each size, then one with the rest; the `nextCursor` of each page but the last is the cursor
/// of the same rank. A cursor it did not give gets -32602.
#[derive(Debug, Clone, Default)]
pub struct ToolPages {
    pub sizes: Vec<usize>,
    pub cursors: Vec<String>,
}

impl ToolPages {
    /// The page `cursor` (none: the first) stands for, and its `nextCursor`: `None` for a
    /// cursor never given.
    fn page(&self, tools: &[Value], cursor: Option<&Value>) -> Option<(Vec<Value>, Option<String>)> {
        let rank = match cursor.filter(|c| !c.is_null()) {
            None => 0,
            Some(c) => self.cursors.iter().position(|given| c.as_str() == Some(given.as_str()))? + 1,
        };
        let start: usize = self.sizes.iter().take(rank).sum();
        let len = self.sizes.get(rank).copied().unwrap_or(usize::MAX);
        let page = tools.iter().skip(start).take(len).cloned().collect();
        Some((page, self.cursors.get(rank).cloned()))
    }
}

impl ServerScript {
    /// The error a server without the capability `method` needs would answer with.
    fn refusal(&self, method: &str, revision: Revision) -> Option<Value> {
        let caps = self.capabilities.as_ref()?;
        let needs = mcpspec_protocol::capabilities::server_capability_for(method, revision)?;
        match mcpspec_protocol::capabilities::declares(caps, needs) {
            true => None,
            false => {
                Some(serde_json::json!({ "code": -32601, "message": format!("Method not found: {method}") }))
            }
        }
    }
}

/// The server side of one session with a client under test.
pub struct ClientSession {
    client: ChildTransport,
    link: Link,
    queued: VecDeque<Inspection>,
    eof: bool,
    recorder: WireRecorder,
    server: ReferenceServer,
    /// What the scenario server does differently from the reference server.
    pub script: ServerScript,
    own_requests: HashSet<RequestId>,
    next_id: u64,
    options: ChildOptions,
    /// Every message value the client sent, in order (bounded).
    pub received: Vec<Value>,
    /// When each message of `received` was read (same order and length).
    pub received_at: Vec<Instant>,
    /// Every message value the scenario server sent, with when (bounded like `received`): what
    /// the modern steps pair with the client's requests (its answers and their caching hints).
    pub sent: Vec<(Instant, Value)>,
    /// The scenario server's pings awaiting the client's answer, with when they were sent.
    pings: HashMap<RequestId, Instant>,
    /// The slowest round trip of a ping the client answered.
    slowest_ping: Option<Duration>,
    /// The capabilities the scenario server declared in its initialize result.
    pub server_capabilities: Option<Value>,
    internal_id: u64,
    shutdown: Option<ShutdownReport>,
}

/// How the client reaches the scenario server (one per session: its size does not matter).
#[allow(clippy::large_enum_variant)]
enum Link {
    /// Through the relay the client spawns, over a Unix socket.
    Stdio(StdioLink),
    /// Over HTTP, at the scenario server's endpoint.
    Http(HttpEndpoint),
}

impl ClientSession {
    fn around(
        client: ChildTransport,
        link: Link,
        recorder: WireRecorder,
        revision: Revision,
        script: ServerScript,
        options: ChildOptions,
    ) -> ClientSession {
        ClientSession {
            client,
            link,
            queued: VecDeque::new(),
            eof: false,
            recorder,
            server: ReferenceServer::new(Self::server_config(revision)),
            server_capabilities: None,
            internal_id: 0,
            script,
            own_requests: HashSet::new(),
            next_id: 1,
            options,
            received: Vec::new(),
            received_at: Vec::new(),
            sent: Vec::new(),
            pings: HashMap::new(),
            slowest_ping: None,
            shutdown: None,
        }
    }

    /// The reference server behind the scenario server: the scenario's revision only, small
    /// pages (so that paging is exercised).
    fn server_config(revision: Revision) -> ServerConfig {
        ServerConfig { supported: vec![revision], page_size: 2, ..ServerConfig::default() }
    }

    /// The transport the client reaches the scenario server over: `stdio`, `http` or `sse`.
    pub fn transport(&self) -> &'static str {
        match &self.link {
            Link::Stdio(_) => "stdio",
            Link::Http(h) => h.listener.options().flavor.name(),
        }
    }

    pub fn recorder(&self) -> &WireRecorder {
        &self.recorder
    }

    /// Names the session in the live wire log (`--verbose`).
    pub fn set_label(&mut self, label: String) {
        self.recorder.set_label(label);
    }

    pub fn stderr_tail(&self) -> String {
        self.client.stderr_tail()
    }

    /// Whether the client has closed the server's stdin.
    pub fn closed(&self) -> bool {
        self.eof && self.queued.is_empty()
    }

    /// Waits at most `within` for the client's relay to connect. The client's start `slot` (see
    /// [`crate::session::starts::turn`]) is given back when it connects, or once half of `within` has passed: a
    /// client still starting then shares the cores with the next start.
    pub async fn accept(
        &mut self,
        within: Duration,
        slot: Option<crate::session::starts::StartTurn>,
    ) -> Result<(), ClientWaitError> {
        match &self.link {
            Link::Stdio(_) => self.accept_stdio(within, slot).await,
            Link::Http(_) => self.accept_http(within, slot).await,
        }
    }

    /// The next message (one element of a batch) the client sent, recorded; waits at most
    /// `within`. With no time left it is a timeout even when messages are queued, as at
    /// [`ChildTransport::recv`]: a client that floods must not keep a deadline from passing.
    pub async fn recv(&mut self, within: Duration) -> Result<Inspection, ClientWaitError> {
        if within.is_zero() {
            return Err(ClientWaitError::Timeout(within));
        }
        let deadline = Instant::now() + within;
        loop {
            if let Some(i) = self.queued.pop_front() {
                return Ok(i);
            }
            if self.eof {
                let note = self.exit_note().await;
                return Err(match &self.link {
                    Link::Stdio(_) => ClientWaitError::Closed(note),
                    Link::Http(_) => ClientWaitError::Ended(note),
                });
            }
            match &self.link {
                Link::Http(_) => self.recv_http(deadline, within).await?,
                Link::Stdio(_) => self.recv_stdio(deadline, within).await?,
            }
        }
    }

    fn take(&mut self, frame: Frame) {
        let now = Instant::now();
        for i in self.recorder.record_frame(Direction::ClientToServer, frame) {
            if let Some(Message::Response(r)) = &i.message {
                if let Some(sent) = r.id.as_ref().and_then(|id| self.pings.remove(id)) {
                    let took = now.saturating_duration_since(sent);
                    self.slowest_ping = Some(self.slowest_ping.map_or(took, |s| s.max(took)));
                }
            }
            if let Some(v) = &i.value {
                if self.received.len() < KEPT_MESSAGES {
                    self.received.push(v.clone());
                    self.received_at.push(now);
                }
            }
            self.queued.push_back(i);
        }
    }

    /// The slowest round trip of a scenario server's ping the client answered, if any.
    pub fn slowest_round_trip(&self) -> Option<Duration> {
        self.slowest_ping
    }

    /// How long a message of the harness's is given to reach the client and be read before
    /// what the client does next is taken as a reply to it: [`GRACE_ROUND_TRIPS`] times the
    /// slowest ping round trip measured in the session, and never less than [`MIN_GRACE`].
    /// Measured, not guessed: a client behind a slow relay or on a loaded machine gets more.
    pub fn grace(&self) -> Duration {
        (self.slowest_ping.unwrap_or_default() * GRACE_ROUND_TRIPS).max(MIN_GRACE)
    }

    /// Sends a message to the client.
    pub async fn send(&mut self, message: &Message) -> Result<(), ClientWaitError> {
        self.send_value(&message.to_value()).await
    }

    pub async fn send_value(&mut self, value: &Value) -> Result<(), ClientWaitError> {
        self.note_sent(value);
        match &mut self.link {
            Link::Stdio(_) => self.send_stdio(value).await,
            Link::Http(http) => {
                let Some(session) = &http.session else {
                    return Err(ClientWaitError::Send("the client has no HTTP session".into()));
                };
                let sent = session.send_in_reply(value, http.origin);
                http.drain(&mut self.recorder);
                sent.map_err(|e| ClientWaitError::Send(e.to_string()))
            }
        }
    }

    /// Records `value` as sent to the client, and keeps it for the steps that look back.
    fn note_sent(&mut self, value: &Value) {
        self.recorder.record_value(Direction::ServerToClient, value);
        if self.sent.len() < KEPT_MESSAGES {
            self.sent.push((Instant::now(), value.clone()));
        }
    }

    /// Sends a request of the harness's own (ids `mcpspec-N`, never the reference server's).
    pub async fn send_request(
        &mut self,
        method: &str,
        params: Option<Value>,
    ) -> Result<RequestId, ClientWaitError> {
        let id = RequestId::from(format!("mcpspec-{}", self.next_id).as_str());
        self.next_id += 1;
        self.own_requests.insert(id.clone());
        self.send(&Message::request(id.clone(), method, params)).await?;
        // ping.mdx: the receiver MUST respond promptly, so a ping's round trip measures the way
        // to the client and back, not the client's work.
        if method == "ping" {
            self.pings.insert(id.clone(), Instant::now());
        }
        Ok(id)
    }

    /// The scenario server's answer to a client message (the reference server's, as scripted),
    /// sent to the client. Responses to the harness's own requests are dropped.
    pub async fn serve(&mut self, inspection: &Inspection) -> Result<(), ClientWaitError> {
        for answer in self.answers(inspection) {
            self.send_value(&answer).await?;
        }
        Ok(())
    }

    /// Writes `bytes` to a client as they are, unrecorded: what a fuzzer sends (broken lines,
    /// answers bent out of shape). Over HTTP the bytes must be one JSON text (a message or a
    /// batch), which the endpoint routes as it would the reference server's (an answer onto its
    /// request's stream); other bytes are an error there: a body's bytes are bent by the
    /// endpoint ([`ServerScript::bend`]).
    pub async fn send_raw(&mut self, bytes: &[u8]) -> Result<(), ClientWaitError> {
        match &self.link {
            Link::Stdio(_) => self.send_stdio_bytes(bytes).await,
            Link::Http(http) => {
                let value: Value = serde_json::from_slice(bytes).map_err(|e| {
                    ClientWaitError::Send(format!("not one JSON text, as an HTTP body must be: {e}"))
                })?;
                let Some(session) = &http.session else {
                    return Err(ClientWaitError::Send("the client has no HTTP session".into()));
                };
                session.send_in_reply(&value, http.origin).map_err(|e| ClientWaitError::Send(e.to_string()))
            }
        }
    }

    /// Whether a message of the harness's own (a ping, say) reaches the client now: over stdio
    /// always; over HTTP when its GET stream (legacy: its SSE stream) is open, else the message
    /// would wait for one.
    pub fn reaches_client(&self) -> bool {
        match &self.link {
            Link::Stdio(_) => true,
            Link::Http(http) => http.session.as_ref().is_some_and(|s| s.reaches_client()),
        }
    }

    /// What [`Self::serve`] sends in answer to a client message, not sent: the reference
    /// server's answers, as scripted (it has moved on as if they were sent).
    pub fn answers(&mut self, inspection: &Inspection) -> Vec<Value> {
        let Some(value) = &inspection.value else { return Vec::new() };
        if let Some(Message::Response(r)) = &inspection.message {
            if r.id.as_ref().is_some_and(|id| self.own_requests.contains(id)) {
                return Vec::new();
            }
        }
        let method = value.get("method").and_then(Value::as_str);
        let is_initialize = method == Some("initialize");
        if let (Some(_), Some(id), true) = (method, value.get("id"), self.script.refuse_first_version) {
            self.script.refuse_first_version = false;
            let requested = value
                .pointer("/params/_meta")
                .and_then(|m| m.get(mcpspec_protocol::modern::PROTOCOL_VERSION_KEY))
                .and_then(Value::as_str)
                .unwrap_or("");
            let supported = [mcpspec_protocol::modern::wire_version(self.recorder.revision())];
            let error = mcpspec_protocol::modern::unsupported_version(requested, &supported);
            return vec![Message::error(RequestId::from_value(id), error).to_value()];
        }
        if let (Some(method), Some(id)) = (method, value.get("id")) {
            if let Some(error) = self.script.refusal(method, self.recorder.revision()) {
                return vec![serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": error })];
            }
        }
        if let (Some(pages), Some("tools/list"), Some(id)) =
            (self.script.tool_pages.clone(), method, value.get("id"))
        {
            return vec![self.paged_tools(&pages, value, id)];
        }
        if let (Some("tools/list"), Some(id)) = (method, value.get("id")) {
            if let Some((result_type, tool)) = self.script.unknown_list_result.take() {
                let result = serde_json::json!({ "tools": [tool], "resultType": result_type });
                return vec![serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": result })];
            }
        }
        let mut out = self.server.on_value_at(value, std::time::Instant::now());
        out.extend(self.server.poll(std::time::Instant::now()));
        let mut answers = Vec::with_capacity(out.len());
        for mut answer in out {
            if self.script.strip_request_state {
                if let Some(result) = answer.get_mut("result").and_then(Value::as_object_mut) {
                    result.remove("requestState");
                }
            }
            if self.script.strip_list_result_type && method == Some("tools/list") {
                if let Some(result) = answer.get_mut("result").and_then(Value::as_object_mut) {
                    result.remove("resultType");
                }
            }
            let last_page = answer.pointer("/result/nextCursor").is_none_or(Value::is_null);
            if let (Some(tools), true, Some("tools/list")) =
                (answer.pointer_mut("/result/tools").and_then(Value::as_array_mut), last_page, method)
            {
                tools.extend(self.script.extra_tools.iter().cloned());
            }
            if is_initialize && answer.get("id") == value.get("id") {
                if let Some(result) = answer.get_mut("result") {
                    if let Some(version) = &self.script.protocol_version {
                        result["protocolVersion"] = Value::from(version.clone());
                    }
                    if let Some(capabilities) = &self.script.capabilities {
                        result["capabilities"] = capabilities.clone();
                    }
                    self.server_capabilities = result.get("capabilities").cloned();
                }
            }
            answers.push(answer);
        }
        answers
    }

    /// The answer to the client's `tools/list` request `value` as `pages` say: the reference
    /// server's answer to the first page (its caching hints and result type), with the page's
    /// tools and `nextCursor` instead.
    fn paged_tools(&mut self, pages: &ToolPages, value: &Value, id: &Value) -> Value {
        let mut tools = self.reference_tools();
        tools.extend(self.script.extra_tools.iter().cloned());
        let Some((page, next)) = pages.page(&tools, value.pointer("/params/cursor")) else {
            let error = mcpspec_protocol::wire::ErrorObject::new(
                mcpspec_protocol::wire::ErrorObject::INVALID_PARAMS,
                "Invalid params: a cursor this server never gave",
            );
            return Message::error(RequestId::from_value(id), error).to_value();
        };
        let mut first = value.clone();
        if let Some(params) = first.get_mut("params").and_then(Value::as_object_mut) {
            params.remove("cursor");
        }
        let answer = self.server.on_value_at(&first, std::time::Instant::now()).into_iter().next();
        let mut result =
            answer.and_then(|a| a.get("result").cloned()).unwrap_or_else(|| serde_json::json!({}));
        result["tools"] = Value::Array(page);
        match next {
            Some(cursor) => result["nextCursor"] = Value::from(cursor),
            None => {
                if let Some(o) = result.as_object_mut() {
                    o.remove("nextCursor");
                }
            }
        }
        serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": result })
    }

    /// Every tool of the scenario server, read page by page from the reference server behind
    /// it (nothing crosses the wire); for steps that page the list themselves.
    pub fn reference_tools(&mut self) -> Vec<Value> {
        let mut tools = Vec::new();
        let mut cursor: Option<Value> = None;
        // The reference server's pages are small and its list is fixed; the bound is a guard.
        for _ in 0..1_000 {
            self.internal_id += 1;
            let mut params = cursor.take().map(|c| serde_json::json!({ "cursor": c }));
            let revision = self.recorder.revision();
            if revision.era() == mcpspec_protocol::Era::Modern {
                // The era's requests carry their version and the client's capabilities.
                let version = mcpspec_protocol::modern::wire_version(revision);
                let meta = mcpspec_protocol::modern::request_meta(version, &serde_json::json!({}), None);
                params = Some(mcpspec_protocol::modern::with_request_meta(params, &meta));
            }
            let id = RequestId::from(format!("mcpspec-internal-{}", self.internal_id).as_str());
            let request = Message::request(id, "tools/list", params).to_value();
            let answer = self.server.on_value(&request).into_iter().next();
            let Some(result) = answer.as_ref().and_then(|a| a.get("result")) else { break };
            tools.extend(result.get("tools").and_then(Value::as_array).cloned().unwrap_or_default());
            match result.get("nextCursor").filter(|c| !c.is_null()) {
                Some(c) => cursor = Some(c.clone()),
                None => break,
            }
        }
        tools
    }

    /// Reads and serves client messages until `want` matches one (returned, not served) or
    /// `within` passes.
    pub async fn wait_for(
        &mut self,
        within: Duration,
        mut want: impl FnMut(&Inspection) -> bool,
    ) -> Result<Inspection, ClientWaitError> {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let i = self.recv(left).await.map_err(|e| match e {
                ClientWaitError::Timeout(_) => ClientWaitError::Timeout(within),
                other => other,
            })?;
            if want(&i) {
                return Ok(i);
            }
            self.serve(&i).await?;
        }
    }

    /// Watches what the client sends for `within` (or until it closes the connection): each
    /// message goes to `look`, and is served when `look` says so.
    pub async fn watch(&mut self, within: Duration, mut look: impl FnMut(&Inspection) -> bool) {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(i) = self.recv(left).await else { return };
            if look(&i) {
                let _ = self.serve(&i).await;
            }
        }
    }

    /// Serves the client until it closes the connection, falls idle, or `within` passes, and
    /// says which. Idle is proven with a ping barrier, not guessed from a pause: once the
    /// client has sent nothing for [`Self::grace`] (the time a message of the server's takes to
    /// arrive and be read, measured) and the scenario server owes it nothing (no slow tool's
    /// answer due), a ping goes out; when it is answered with nothing else sent meanwhile, the
    /// client has read everything the server sent, had the grace to reply, and did not. What it
    /// then does on its own, at its own pace, is for the scenario that serves it to the end
    /// (client-lifecycle/shutdown).
    ///
    /// The modern era has no ping (2026-07-28 removed it) and no server requests: there a
    /// client is idle once it has sent nothing for [`MODERN_QUIET`] (or the grace, if longer)
    /// with nothing owed to it.
    pub async fn serve_until_idle(&mut self, within: Duration) -> Served {
        let modern = self.recorder.revision().era() == mcpspec_protocol::Era::Modern;
        let deadline = Instant::now() + within;
        let mut quiet_since = Instant::now();
        // The barrier ping awaiting its answer.
        let mut barrier: Option<RequestId> = None;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return Served::Timeout;
            }
            let owed = self.server.next_deadline().is_some();
            let wake = match &barrier {
                None if !owed && modern => quiet_since + self.grace().max(MODERN_QUIET),
                None if !owed => quiet_since + self.grace(),
                _ => deadline,
            };
            if now >= wake {
                if modern {
                    return Served::Idle;
                }
                match self.send_request("ping", None).await {
                    Ok(id) => barrier = Some(id),
                    Err(_) => return Served::Closed,
                }
                continue;
            }
            match self.recv(wake.min(deadline).saturating_duration_since(now)).await {
                Ok(i) => {
                    let id = match &i.message {
                        Some(Message::Response(r)) => r.id.as_ref(),
                        _ => None,
                    };
                    if id.is_some() && id == barrier.as_ref() {
                        return Served::Idle;
                    }
                    // A late answer to an earlier barrier is no work of the client's either.
                    if is_work(&i) && !id.is_some_and(|id| self.own_requests.contains(id)) {
                        // The client is at work: a barrier sent before this proves nothing about
                        // what the server sends it in reply.
                        barrier = None;
                        quiet_since = Instant::now();
                    }
                    let _ = self.serve(&i).await;
                }
                Err(ClientWaitError::Closed(_) | ClientWaitError::Ended(_)) => return Served::Closed,
                Err(_) => {}
            }
        }
    }

    /// Serves the client until its session ends, and says how it ended: it closed the server's
    /// stdin; its process exited while the server's stdin stayed open (for [`Self::grace`]
    /// after the exit: a client that closes, then exits at once, is not penalized for the relay
    /// passing the end of file on a moment later); it sent no message but pings for `idle`; or
    /// `budget` passed while it was still sending. A client still at work is not a client that
    /// never closes: only silence counts against it.
    pub async fn serve_until_done(&mut self, idle: Duration, budget: Duration) -> Ending {
        let started = Instant::now();
        let end = started + budget;
        let mut last_active = started;
        let mut exited: Option<(Instant, String)> = None;
        loop {
            let now = Instant::now();
            let until = match &exited {
                Some((at, status)) => {
                    let grace = self.grace();
                    if now >= *at + grace {
                        return Ending::ExitedFirst { status: status.clone(), grace };
                    }
                    *at + grace
                }
                None if now >= last_active + idle => return Ending::Idle { idle },
                None if now >= end => {
                    return Ending::StillActive {
                        budget,
                        quiet_for: now.saturating_duration_since(last_active),
                    }
                }
                None => (last_active + idle).min(end),
            };
            // Short reads, so the client's exit is seen while the connection is still open.
            let slice = until.saturating_duration_since(now).min(EXIT_POLL);
            match self.recv(slice).await {
                Ok(i) => {
                    if is_work(&i) {
                        last_active = Instant::now();
                    }
                    let _ = self.serve(&i).await;
                }
                Err(ClientWaitError::Closed(_) | ClientWaitError::Ended(_)) => {
                    return Ending::Closed { after: started.elapsed() }
                }
                Err(_) => {}
            }
            if exited.is_none() {
                if let Some(status) = self.client.try_exit() {
                    exited = Some((Instant::now(), describe_status(status)));
                }
            }
        }
    }

    /// How the client process ended, waiting at most `within` for it.
    pub async fn client_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        self.client.wait_exit(within).await
    }

    /// How the client ended, if it has (waiting briefly).
    pub async fn exit_note(&mut self) -> String {
        match self.client.wait_exit(Duration::from_millis(200)).await {
            Some(status) => format!(" (the client {})", describe_status(status)),
            None => String::new(),
        }
    }

    /// Ends the session once the scenario is judged: closes the connection (the relay then
    /// exits, and the client sees its server go), reads what the client wrote before that end
    /// of file, then ends the client's process group. A client that closed the connection
    /// itself is finishing its run: it is given [`Self::grace`] to exit on its own. One still
    /// at work is not waited for (how a client ends is client-lifecycle/shutdown's to judge,
    /// and that scenario waits for it before it gets here): SIGTERM, then SIGKILL, each stage
    /// bounded by the shutdown grace. Idempotent.
    pub async fn shutdown(&mut self) -> ShutdownReport {
        self.shutdown_within(self.grace()).await
    }

    /// [`Self::shutdown`], giving a client that closed the connection itself `exit_within` to
    /// exit on its own: a fuzzer judges that exit status, and some runtimes take their time to
    /// tear down (the Python SDK's stdio client waits for its server process first).
    pub async fn shutdown_within(&mut self, exit_within: Duration) -> ShutdownReport {
        if let Some(r) = &self.shutdown {
            return r.clone();
        }
        let finishing = self.eof;
        if let Link::Stdio(link) = &mut self.link {
            link.listener = None;
            // Closing our side makes the relay exit; what the client wrote that no step read
            // comes before that end of file and is judged like any other message.
            link.writer = None;
            let deadline = Instant::now() + self.options.shutdown_grace.min(Duration::from_millis(500));
            while !self.eof && matches!(&self.link, Link::Stdio(l) if l.reader.is_some()) {
                let left = deadline.saturating_duration_since(Instant::now());
                if self.recv(left).await.is_err() {
                    break;
                }
            }
        }
        match &mut self.link {
            Link::Stdio(link) => link.reader = None,
            Link::Http(http) => {
                // What the endpoint logged last is judged (a request whose message a step has
                // seen may still be on its way to the log); then the session ends (a client
                // still at work sees 404s until it is ended).
                http.listener.await_logged(self.options.shutdown_grace.min(Duration::from_millis(500))).await;
                http.drain(&mut self.recorder);
                http.session = None;
            }
        }
        if finishing {
            let _ = self.client.wait_exit(exit_within).await;
        }
        let report = self.client.terminate().await;
        if let Link::Stdio(link) = &self.link {
            let _ = std::fs::remove_dir_all(&link.socket_dir);
        }
        self.shutdown = Some(report.clone());
        report
    }
}

/// How the client's process ended, for the scenario's report: on its own, or ended by mcpspec
/// once the scenario was judged (which is no fault of the client's: it was still at work).
pub fn describe_end(report: &ShutdownReport) -> String {
    use mcpspec_reference::transport::Stage;
    let status = report.status.map_or_else(|| "still running".to_owned(), describe_status);
    match report.stage {
        Stage::AlreadyExited | Stage::StdinClosed => format!("the client {status} on its own"),
        Stage::Sigterm | Stage::Stopped => {
            format!("ended by mcpspec once the scenario was judged: SIGTERM ({status})")
        }
        Stage::Sigkill => {
            format!("ended by mcpspec once the scenario was judged: it needed SIGKILL ({status})")
        }
        Stage::Unkillable => {
            format!("ended by mcpspec once the scenario was judged: it survived SIGKILL ({status})")
        }
    }
}

/// What an accept with a timeout yielded: the connection, or a note on why none came.
/// Starts a client under test with the conformance environment: `server` (the variable naming
/// its server: a command, or a URL), the scenario, the revision and the context. A client has
/// nothing to finish once its server is gone: each shutdown stage (stdin closed, SIGTERM) waits
/// at most half a second before the next; the options it runs with are returned.
fn spawn_client(
    mut spec: CommandSpec,
    server: (&str, String),
    scenario: &str,
    revision: Revision,
    context: &Value,
    options: ChildOptions,
) -> Result<(ChildTransport, ChildOptions), SpawnError> {
    let env = [
        server,
        (SCENARIO_ENV, scenario.to_owned()),
        (PROTOCOL_VERSION_ENV, revision.as_str().to_owned()),
        (CONTEXT_ENV, context.to_string()),
    ];
    spec.env.extend(env.into_iter().map(|(k, v)| (k.into(), v.into())));
    let mut options = options;
    options.shutdown_grace = options.shutdown_grace.min(Duration::from_millis(500));
    let child = ChildTransport::spawn(&spec, options.clone())?;
    crate::session::starts::count_start();
    Ok((child, options))
}

/// Waits at most `within` for the client's first contact (`contact`: its relay connecting, or
/// its first HTTP session), reading (and dropping) what it prints on its stdout meanwhile. The
/// client's start `slot` ([`crate::session::starts::turn`]) is given back at contact, or once half of
/// `within` has passed: a client still starting then shares the cores with the next start.
/// `Err` with a note (how the client ended, when it did) if there is no contact in time.
async fn first_contact<T>(
    client: &mut ChildTransport,
    within: Duration,
    slot: Option<crate::session::starts::StartTurn>,
    contact: impl std::future::Future<Output = Result<T, String>>,
) -> Result<T, String> {
    let mut slot = slot;
    if let Some(slot) = slot.as_mut() {
        slot.spawned(client.process_group());
    }
    let deadline = Instant::now() + within;
    let hand_back = Instant::now() + within / 2;
    let mut stdout_open = true;
    tokio::pin!(contact);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(String::new());
        }
        if stdout_open {
            tokio::select! {
                c = &mut contact => return c,
                () = tokio::time::sleep_until(hand_back), if slot.is_some() => slot = None,
                // A timeout here is the deadline, seen at the top of the loop.
                r = client.recv(left) => {
                    if matches!(r, Err(RecvError::Closed)) {
                        stdout_open = false;
                    }
                }
            }
        } else {
            tokio::select! {
                c = &mut contact => return c,
                () = tokio::time::sleep_until(hand_back), if slot.is_some() => slot = None,
                status = client.wait_exit(left) => {
                    return Err(status.map(|s| format!(" (the client {})", describe_status(s))).unwrap_or_default());
                }
            }
        }
    }
}

impl Drop for ClientSession {
    fn drop(&mut self) {
        if let Link::Stdio(link) = &self.link {
            let _ = std::fs::remove_dir_all(&link.socket_dir);
        }
    }
}

//END
