//! MCP's HTTP transports from the client's side: Streamable HTTP (2025-03-26 and later) and the
//! legacy HTTP+SSE transport (2024-11-05), over reqwest.
//!
//! Each message sent is one POST, made in a task of its own so a long answer (an SSE stream
//! that stays open while a tool runs) never blocks the next message. What comes back is a
//! stream of [`HttpEvent`]s in one bounded queue, like the stdio transport's frames: the head
//! of every HTTP response (status and headers), each message of its body (a JSON body, or one
//! SSE event's `data`, decoded by [`SseDecoder`]), the other SSE events (`endpoint`, priming
//! events, `retry`), and how each body ended. The caller records all of it, so the checks see
//! HTTP as it was, and a transcript shows status lines and headers.
//!
//! Bounded like stdio: connecting and each response head wait at most the request timeout;
//! bodies are decoded with the maximum message size; a body is read only while its events fit
//! in the queue (a flood blocks the server, not memory); every task dies with the transport.

use super::RecvError;
use mcpspec_protocol::framing::{decode_line, Frame, FrameContent, FrameError, DEFAULT_MAX_MESSAGE_BYTES};
use mcpspec_protocol::sse::{SseDecoder, SseEvent, SseItem};
use mcpspec_protocol::wire::RequestId;
use reqwest::header::HeaderMap;
/// Header names and values, as the options take them.
pub use reqwest::header::{HeaderName, HeaderValue};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use url::Url;

/// The session header (`Mcp-Session-Id`; spelled `MCP-Session-Id` from 2025-11-25: header names
/// are case-insensitive).
pub const SESSION_HEADER: &str = "mcp-session-id";
/// The protocol-version header, from 2025-06-18.
pub const PROTOCOL_VERSION_HEADER: &str = "mcp-protocol-version";
/// What a POST accepts (`basic/transports.mdx`: "listing both application/json and
/// text/event-stream").
pub const POST_ACCEPT: &str = "application/json, text/event-stream";
pub const EVENT_STREAM: &str = "text/event-stream";

pub use super::Flavor;

mod body;
pub mod oneshot;
mod posts;

pub use body::modern_request_headers;
use body::*;
use posts::Post;

/// How to reach a server over HTTP.
#[derive(Debug, Clone)]
pub struct HttpClientOptions {
    pub url: Url,
    pub flavor: Flavor,
    /// Headers added to every request (e.g. `Authorization` for a server behind auth). Their
    /// values are never recorded: exchanges show their names only.
    pub headers: Vec<(HeaderName, HeaderValue)>,
    pub max_message_bytes: usize,
    /// How long connecting and each response head may take.
    pub request_timeout: Duration,
    /// How many events may wait unread before bodies stop being read.
    pub event_queue: usize,
    /// How a stream that broke before its answers is resumed.
    pub resumption: Resumption,
    /// How a modern `tools/call` mirrors `x-mcp-header` parameters into `Mcp-Param-*` headers.
    pub param_headers: ParamHeaders,
}

/// How a modern `tools/call` carries the `x-mcp-header` parameters of the tool it calls
/// (`streamable-http.mdx#custom-headers-from-tool-parameters`), as the transport learned them
/// from the tool lists it received. Anything but the default is a deliberate defect, for
/// testing the checks that judge clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ParamHeaders {
    /// One `Mcp-Param-{name}` header per annotated argument with a value, encoded
    /// ([`mcpspec_protocol::param_headers::mirrored_headers`]).
    #[default]
    Mirror,
    /// None at all.
    Omit,
    /// The values as plain text, never in the Base64 sentinel.
    Unencoded,
    /// Also a header for a null or absent argument (`null`).
    ForMissingValues,
}

/// How a POST's SSE stream that ended before its answers is resumed (`basic/transports.mdx`,
/// resumability). Anything but the default is a deliberate defect, for testing the checks
/// that judge clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Resumption {
    /// GET with `Last-Event-ID`, after the server's `retry` ("The client MUST respect the
    /// retry field").
    #[default]
    HonourRetry,
    /// GET with `Last-Event-ID` at once, whatever `retry` says.
    IgnoreRetry,
    /// Never: the requests are given up.
    Never,
}

impl HttpClientOptions {
    pub fn new(url: Url, flavor: Flavor) -> HttpClientOptions {
        HttpClientOptions {
            url,
            flavor,
            headers: Vec::new(),
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            request_timeout: Duration::from_secs(10),
            event_queue: 256,
            resumption: Resumption::HonourRetry,
            param_headers: ParamHeaders::Mirror,
        }
    }
}

/// Changes to one request, for the transport checks: what a correct client would not do.
#[derive(Debug, Clone, Default)]
pub struct Tweaks {
    /// Leave out the session header.
    pub no_session: bool,
    /// Send this session id instead of the session's.
    pub session: Option<String>,
    /// Send this protocol version instead of the negotiated one (`Some("")`: none at all).
    pub protocol_version: Option<String>,
    /// Send this `Last-Event-ID` (GET).
    pub last_event_id: Option<String>,
    /// More headers (lower-case names), replacing any of mcpspec's own of the same name
    /// (`accept`, `content-type`, `origin`, …); an empty value leaves the header out.
    pub headers: Vec<(String, String)>,
    /// Send a message with this HTTP method instead of POST (what a fuzzer tries).
    pub method: Option<&'static str>,
}

/// One HTTP request and the head of its response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exchange {
    /// Numbers the exchanges of a transport, from 1.
    pub n: u64,
    pub method: &'static str,
    pub url: String,
    /// The headers mcpspec set (the values of custom headers are not kept).
    pub request_headers: Vec<(String, String)>,
    /// What a POST's body held.
    pub body: BodyKind,
    /// The ids of the requests a POST carried.
    pub requests: Vec<RequestId>,
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

impl Exchange {
    /// A response header, by name (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The media type of the response (`Content-Type` without parameters, lower case).
    pub fn media_type(&self) -> Option<String> {
        self.header("content-type").map(|v| v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
    }

    /// "POST /mcp → 200 text/event-stream".
    pub fn describe(&self) -> String {
        let kind = self.media_type().map(|m| format!(" {m}")).unwrap_or_default();
        format!("{} {} → {}{kind}", self.method, self.url, self.status)
    }
}

/// What a request was, for its exchange's record.
struct Head {
    method: &'static str,
    url: String,
    /// The headers mcpspec set.
    headers: Vec<(String, String)>,
    body: BodyKind,
    requests: Vec<RequestId>,
}

/// What a POST carried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyKind {
    /// No body (GET, DELETE).
    None,
    /// At least one request (the answer is JSON or an SSE stream).
    Requests,
    /// Only notifications or responses (the answer is 202 with no body).
    NoRequests,
    /// Not a JSON-RPC message (malformed on purpose).
    Other,
}

impl BodyKind {
    /// What `value` (a message or a batch) holds.
    pub fn of(value: &Value) -> BodyKind {
        let one = |v: &Value| match v {
            Value::Object(o) if o.contains_key("method") && o.contains_key("id") => Some(true),
            Value::Object(o)
                if o.contains_key("method") || o.contains_key("result") || o.contains_key("error") =>
            {
                Some(false)
            }
            _ => None,
        };
        let kinds: Vec<Option<bool>> = match value {
            Value::Array(items) if !items.is_empty() => items.iter().map(one).collect(),
            other => vec![one(other)],
        };
        if kinds.iter().any(Option::is_none) {
            BodyKind::Other
        } else if kinds.contains(&Some(true)) {
            BodyKind::Requests
        } else {
            BodyKind::NoRequests
        }
    }
}

/// How a response body ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BodyEnd {
    /// Read to its end: `bytes` in all.
    Complete { bytes: u64 },
    /// Reading failed (the connection dropped).
    Broken(String),
    /// An SSE body ended inside an event (not terminated by an empty line).
    Truncated,
}

/// Something the transport received.
#[derive(Debug, Clone, PartialEq)]
pub enum HttpEvent {
    /// The head of a response.
    Response(Exchange),
    /// A message of exchange `n`'s body: the JSON body itself, or one SSE event's data.
    Message { n: u64, frame: Frame, sse: Option<SseMeta> },
    /// An SSE event of exchange `n` that carries no message (`endpoint`, a priming event, an
    /// event of another type).
    Event { n: u64, event: SseEvent },
    /// Exchange `n`'s body ended.
    End { n: u64, end: BodyEnd },
    /// Exchange `n` got no response (refused, reset, timed out).
    Failed { n: u64, method: &'static str, url: String, error: String },
    /// The requests POSTed in exchange `n` will get no answer over it: its response or stream
    /// ended without them, and there is nothing to resume (`why`).
    Unanswered { n: u64, ids: Vec<RequestId>, why: String },
}

impl HttpEvent {
    /// The exchange this event belongs to.
    pub fn exchange(&self) -> u64 {
        match self {
            HttpEvent::Response(x) => x.n,
            HttpEvent::Message { n, .. }
            | HttpEvent::Event { n, .. }
            | HttpEvent::End { n, .. }
            | HttpEvent::Failed { n, .. }
            | HttpEvent::Unanswered { n, .. } => *n,
        }
    }
}

/// The SSE fields that came with a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseMeta {
    pub id: Option<String>,
    pub event: Option<String>,
    pub retry: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConnectError {
    #[error("cannot make an HTTP client: {0}")]
    Client(String),
    /// Legacy SSE: the GET stream failed or named no endpoint in time.
    #[error("no endpoint event from {url}: {why}")]
    NoEndpoint { url: String, why: String },
}

/// A session with a server over HTTP.
pub struct HttpClientTransport {
    http: reqwest::Client,
    options: HttpClientOptions,
    /// Where messages are POSTed: the URL (Streamable HTTP) or the `endpoint` event's target.
    post_url: Url,
    session: Option<String>,
    protocol_version: Option<String>,
    tx: mpsc::Sender<HttpEvent>,
    rx: mpsc::Receiver<HttpEvent>,
    tasks: Vec<JoinHandle<()>>,
    /// The task reading each exchange, while it runs ([`Self::break_stream`]).
    readers: HashMap<u64, tokio::task::AbortHandle>,
    /// Exchanges whose connection mcpspec closed: what they had still queued is lost, as it
    /// would be on a dropped connection.
    broken: std::collections::HashSet<u64>,
    next: u64,
    /// POSTs (and the GETs resuming them) whose requests await answers, by exchange.
    posts: HashMap<u64, Post>,
    /// Events made here (not read from the wire), delivered before the queue's.
    made: VecDeque<HttpEvent>,
    /// The inputSchema of each tool a received tool list annotated with `x-mcp-header` (valid
    /// annotations only), by name (bounded).
    tool_schemas: HashMap<String, Value>,
}

/// How many annotated tools a transport remembers.
const TOOLS_KEPT: usize = 10_000;

impl HttpClientTransport {
    /// Prepares a session. Over legacy SSE this opens the GET stream and waits (at most the
    /// request timeout) for its `endpoint` event; the events read meanwhile stay queued.
    pub async fn connect(options: HttpClientOptions) -> Result<HttpClientTransport, ConnectError> {
        let http = client_builder()
            .connect_timeout(options.request_timeout)
            .build()
            .map_err(|e| ConnectError::Client(e.to_string()))?;
        let (tx, rx) = mpsc::channel(options.event_queue.max(1));
        let mut t = HttpClientTransport {
            http,
            post_url: options.url.clone(),
            options,
            session: None,
            protocol_version: None,
            tx,
            rx,
            tasks: Vec::new(),
            readers: HashMap::new(),
            broken: std::collections::HashSet::new(),
            next: 1,
            posts: HashMap::new(),
            made: VecDeque::new(),
            tool_schemas: HashMap::new(),
        };
        if t.options.flavor == Flavor::LegacySse {
            t.open_legacy_stream().await?;
        }
        Ok(t)
    }

    pub fn options(&self) -> &HttpClientOptions {
        &self.options
    }

    /// The URL messages are POSTed to.
    pub fn post_url(&self) -> &Url {
        &self.post_url
    }

    /// The session id the server issued, once seen.
    pub fn session_id(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// How many exchanges were started: they are numbered 1 to this.
    pub fn exchanges_started(&self) -> u64 {
        self.next - 1
    }

    /// Forgets the session id, so that the next POST (a new `initialize`) starts a new session
    /// (`basic/transports.mdx`: after a 404 the client "MUST start a new session by sending a
    /// new InitializeRequest without a session ID attached"); the protocol version goes too.
    pub fn reset_session(&mut self) {
        self.session = None;
        self.protocol_version = None;
    }

    /// POSTs to `url` from now on instead of where the transport would (a deliberate defect,
    /// for testing the checks that judge clients).
    pub fn set_post_url(&mut self, url: Url) {
        self.post_url = url;
    }

    /// Sends header `name` with `value` on every request from now on (`None`: no longer). Its
    /// value never shows in an [`Exchange`]: this is how credentials are set.
    pub fn set_header(&mut self, name: HeaderName, value: Option<HeaderValue>) {
        self.options.headers.retain(|(k, _)| *k != name);
        if let Some(v) = value {
            self.options.headers.push((name, v));
        }
    }

    /// Sends `MCP-Protocol-Version: version` from now on (after initialization, 2025-06-18+).
    pub fn set_protocol_version(&mut self, version: Option<String>) {
        self.protocol_version = version;
    }

    /// POSTs one message (or batch); returns the exchange's number. The response comes as events.
    pub fn send(&mut self, message: &Value) -> u64 {
        self.send_with(message.to_string().into_bytes(), BodyKind::of(message), &Tweaks::default())
    }

    /// POSTs raw bytes as a body (malformed on purpose: `kind` is [`BodyKind::Other`]).
    pub fn send_bytes(&mut self, bytes: &[u8]) -> u64 {
        let kind = match serde_json::from_slice::<Value>(bytes) {
            Ok(v) => BodyKind::of(&v),
            Err(_) => BodyKind::Other,
        };
        self.send_with(bytes.to_vec(), kind, &Tweaks::default())
    }

    /// POSTs `body` with `tweaks`.
    pub fn send_with(&mut self, body: Vec<u8>, kind: BodyKind, tweaks: &Tweaks) -> u64 {
        let n = self.number();
        let body_value = serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null);
        let method = tweaks.method.unwrap_or("POST");
        let verb = reqwest::Method::from_bytes(method.as_bytes()).unwrap_or(reqwest::Method::POST);
        let mut request = self.http.request(verb, self.post_url.clone()).body(body);
        let modern = modern_request_headers(&body_value).map(|mut h| {
            h.extend(self.param_headers(&body_value));
            h
        });
        let mut headers = self.headers_for(tweaks, POST_ACCEPT, modern.as_deref());
        // A tweak names its own content type, or none (an empty value).
        if !tweaks.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("content-type")) {
            headers.push(("content-type".into(), "application/json".into()));
        }
        request = apply(request, &headers, &self.options.headers);
        self.forget_cancelled(&body_value);
        let ids = request_ids(&body_value);
        let head =
            Head { method, url: self.post_url.to_string(), headers, body: kind, requests: ids.clone() };
        self.spawn(n, request, head, Duration::ZERO);
        if !ids.is_empty() && self.options.flavor == Flavor::Streamable {
            // A modern request is never resumed: 2026-07-28 has no `Last-Event-ID` resumption
            // (`streamable-http.mdx`; a broken stream means the client sends the request again).
            let resumable = modern.is_none();
            self.posts.insert(n, Post { ids, resumable, ..Post::default() });
        }
        n
    }

    /// Opens a GET stream on the endpoint (Streamable HTTP: the server's own stream, or a
    /// resumption with `Last-Event-ID`); returns the exchange's number.
    pub fn open_get(&mut self, tweaks: &Tweaks) -> u64 {
        self.get_after(tweaks, Duration::ZERO)
    }

    /// A GET made `delay` from now (a resumption honouring `retry`).
    fn get_after(&mut self, tweaks: &Tweaks, delay: Duration) -> u64 {
        let n = self.number();
        let headers = self.headers(tweaks, EVENT_STREAM);
        let request = apply(self.http.get(self.options.url.clone()), &headers, &self.options.headers);
        let head = Head {
            method: "GET",
            url: self.options.url.to_string(),
            headers,
            body: BodyKind::None,
            requests: vec![],
        };
        self.spawn(n, request, head, delay);
        n
    }

    /// Sends DELETE for the session; returns the exchange's number.
    pub fn delete(&mut self, tweaks: &Tweaks) -> u64 {
        let n = self.number();
        let mut headers = self.headers(tweaks, "");
        headers.retain(|(k, _)| k != "accept");
        let request = apply(self.http.delete(self.options.url.clone()), &headers, &self.options.headers);
        let head = Head {
            method: "DELETE",
            url: self.options.url.to_string(),
            headers,
            body: BodyKind::None,
            requests: vec![],
        };
        self.spawn(n, request, head, Duration::ZERO);
        n
    }

    /// The next event, waiting at most `timeout` (a zero `timeout` is a timeout, as at
    /// [`ChildTransport::recv`](super::ChildTransport::recv)). The session id is taken from the
    /// first response that carries one. `Closed` when no request is under way and none can
    /// answer any more (never while the transport is alive: the caller's timeout bounds it).
    pub async fn recv(&mut self, timeout: Duration) -> Result<HttpEvent, RecvError> {
        if timeout.is_zero() {
            return Err(RecvError::Timeout(timeout));
        }
        if let Some(event) = self.made.pop_front() {
            return Ok(event);
        }
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let event = match tokio::time::timeout_at(deadline, self.rx.recv()).await {
                Ok(Some(event)) => event,
                Ok(None) => return Err(RecvError::Closed),
                Err(_) => return Err(RecvError::Timeout(timeout)),
            };
            if self.broken.contains(&event.exchange()) {
                continue;
            }
            self.follow(&event);
            return Ok(event);
        }
    }

    /// Closes exchange `n`'s connection as a network failure would, mid-stream (to prove a
    /// server's resumption): what it had not yet delivered is lost, its body ends broken, and
    /// a POST stream with answers still due is resumed with `Last-Event-ID` as any broken one
    /// is. False when the exchange is no longer being read.
    pub fn break_stream(&mut self, n: u64) -> bool {
        let Some(reader) = self.readers.remove(&n).filter(|r| !r.is_finished()) else { return false };
        reader.abort();
        self.broken.insert(n);
        let end = HttpEvent::End { n, end: BodyEnd::Broken("mcpspec closed the connection".into()) };
        self.made.push_back(end.clone());
        self.follow(&end);
        true
    }

    /// Remembers the `x-mcp-header` parameters of the tools a tool list (a `tools/list`
    /// result) names: a tool with valid annotations is kept, any other forgotten.
    pub(super) fn learn_tools(&mut self, value: &Value) {
        let Some(tools) = value.pointer("/result/tools").and_then(Value::as_array) else { return };
        for tool in tools {
            let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
            let schema = tool.get("inputSchema").cloned().unwrap_or_default();
            if mcpspec_protocol::param_headers::annotations(&schema).is_empty() {
                self.tool_schemas.remove(name);
            } else if self.tool_schemas.len() < TOOLS_KEPT {
                self.tool_schemas.insert(name.to_owned(), schema);
            }
        }
    }

    /// The `Mcp-Param-*` headers of a `tools/call` body, for a tool learned from a tool list
    /// (bent as [`HttpClientOptions::param_headers`] says).
    fn param_headers(&self, body: &Value) -> Vec<(String, String)> {
        use mcpspec_protocol::param_headers::{annotations, header_text, mirrored_headers};
        if body.get("method").and_then(Value::as_str) != Some("tools/call") {
            return Vec::new();
        }
        let name = body.pointer("/params/name").and_then(Value::as_str).unwrap_or_default();
        let Some(schema) = self.tool_schemas.get(name) else { return Vec::new() };
        let arguments = body.pointer("/params/arguments");
        match self.options.param_headers {
            ParamHeaders::Mirror => mirrored_headers(schema, arguments),
            ParamHeaders::Omit => Vec::new(),
            ParamHeaders::Unencoded => annotations(schema)
                .iter()
                .filter_map(|a| Some((a.header(), header_text(a.value_in(arguments)?)?)))
                .collect(),
            ParamHeaders::ForMissingValues => annotations(schema)
                .iter()
                .map(|a| match a.value_in(arguments).and_then(header_text) {
                    Some(text) => (a.header(), mcpspec_protocol::modern::encode_header_value(&text)),
                    None => (a.header(), "null".to_owned()),
                })
                .collect(),
        }
    }

    /// Ends every request under way.
    pub fn abort(&mut self) {
        for t in self.tasks.drain(..) {
            t.abort();
        }
    }

    fn number(&mut self) -> u64 {
        let n = self.next;
        self.next += 1;
        // Tasks whose exchange is over need not be kept.
        self.tasks.retain(|t| !t.is_finished());
        self.readers.retain(|_, r| !r.is_finished());
        n
    }

    /// The headers mcpspec sets on a request, before custom ones.
    fn headers(&self, tweaks: &Tweaks, accept: &str) -> Vec<(String, String)> {
        self.headers_for(tweaks, accept, None)
    }

    /// The headers of a request; `modern`: the request-metadata headers of a modern request
    /// ([`modern_request_headers`]), which replace the session's: a modern request carries its
    /// own version and no session id (2026-07-28 has no sessions, `streamable-http.mdx`).
    /// `tweaks` still override or omit each of them (the server checks send mismatches).
    fn headers_for(
        &self,
        tweaks: &Tweaks,
        accept: &str,
        modern: Option<&[(String, String)]>,
    ) -> Vec<(String, String)> {
        let mut h = vec![("accept".to_owned(), accept.to_owned())];
        let own_session = match modern {
            Some(_) => None,
            None => self.session.clone(),
        };
        let session = match (&tweaks.session, tweaks.no_session) {
            (_, true) => None,
            (Some(s), false) => Some(s.clone()),
            (None, false) => own_session,
        };
        if let Some(s) = session {
            h.push((SESSION_HEADER.to_owned(), s));
        }
        let own_version = match modern {
            Some(m) => m.iter().find(|(k, _)| k == PROTOCOL_VERSION_HEADER).map(|(_, v)| v.clone()),
            None => self.protocol_version.clone(),
        };
        match (&tweaks.protocol_version, own_version) {
            (Some(v), _) => h.push((PROTOCOL_VERSION_HEADER.to_owned(), v.clone())),
            (None, Some(v)) => h.push((PROTOCOL_VERSION_HEADER.to_owned(), v)),
            (None, None) => {}
        }
        for (k, v) in modern.unwrap_or_default() {
            if k != PROTOCOL_VERSION_HEADER {
                h.push((k.clone(), v.clone()));
            }
        }
        if let Some(id) = &tweaks.last_event_id {
            h.push(("last-event-id".to_owned(), id.clone()));
        }
        for (name, value) in &tweaks.headers {
            let name = name.to_ascii_lowercase();
            h.retain(|(k, _)| *k != name);
            h.push((name, value.clone()));
        }
        h.retain(|(_, v)| !v.is_empty());
        h
    }

    fn spawn(&mut self, n: u64, request: reqwest::RequestBuilder, head: Head, delay: Duration) {
        let Head { method, url, mut headers, body, requests } = head;
        headers.extend(self.options.headers.iter().map(|(k, _)| (k.to_string(), "…".to_owned())));
        let tx = self.tx.clone();
        let head_timeout = self.options.request_timeout;
        let max = self.options.max_message_bytes;
        let task = tokio::spawn(async move {
            tokio::time::sleep(delay).await;
            let response = match tokio::time::timeout(head_timeout, request.send()).await {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => {
                    let error = describe_error(&e);
                    let _ = tx.send(HttpEvent::Failed { n, method, url, error }).await;
                    return;
                }
                Err(_) => {
                    let error = format!("no response head within {head_timeout:?}");
                    let _ = tx.send(HttpEvent::Failed { n, method, url, error }).await;
                    return;
                }
            };
            let exchange = Exchange {
                n,
                method,
                url,
                request_headers: headers,
                body,
                requests,
                status: response.status().as_u16(),
                headers: header_list(response.headers()),
            };
            let body = match exchange.media_type().as_deref() {
                Some(EVENT_STREAM) => Body::Sse,
                Some("application/json") => Body::Json,
                _ => Body::Other,
            };
            if tx.send(HttpEvent::Response(exchange)).await.is_err() {
                return;
            }
            read_body(n, response, body, max, &tx).await;
        });
        self.readers.insert(n, task.abort_handle());
        self.tasks.push(task);
    }

    /// Legacy SSE: GET the stream, wait for `endpoint`, POST there from now on.
    async fn open_legacy_stream(&mut self) -> Result<(), ConnectError> {
        let url = self.options.url.to_string();
        let n = self.open_get(&Tweaks::default());
        let deadline = tokio::time::Instant::now() + self.options.request_timeout;
        let mut held = Vec::new();
        let found = loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let event = match self.recv(left).await {
                Ok(e) => e,
                Err(e) => break Err(e.to_string()),
            };
            let endpoint = match &event {
                HttpEvent::Event { n: m, event } if *m == n && event.kind() == "endpoint" => {
                    Some(event.data.clone())
                }
                HttpEvent::Failed { n: m, error, .. } if *m == n => break Err(error.clone()),
                HttpEvent::End { n: m, .. } if *m == n => break Err("the stream ended".into()),
                _ => None,
            };
            held.push(event);
            if let Some(target) = endpoint {
                break self.options.url.join(target.trim()).map_err(|e| format!("{target:?}: {e}"));
            }
        };
        // What was read while waiting goes back to the front of the queue, for the caller to
        // record: a fresh channel takes the held events first, then the old one's.
        let (tx, rx) = mpsc::channel(self.options.event_queue.max(1) + held.len());
        for event in held {
            let _ = tx.try_send(event);
        }
        let old = std::mem::replace(&mut self.rx, rx);
        self.forward(old, tx);
        match found {
            Ok(url) => {
                self.post_url = url;
                Ok(())
            }
            Err(why) => Err(ConnectError::NoEndpoint { url, why }),
        }
    }

    /// Moves what arrives on `from` to `to`, in order.
    fn forward(&mut self, mut from: mpsc::Receiver<HttpEvent>, to: mpsc::Sender<HttpEvent>) {
        self.tasks.push(tokio::spawn(async move {
            while let Some(e) = from.recv().await {
                if to.send(e).await.is_err() {
                    return;
                }
            }
        }));
    }
}

impl Drop for HttpClientTransport {
    fn drop(&mut self) {
        self.abort();
    }
}

/// The one way to make an HTTP client here: reqwest, with rustls (ring) for `https://`, whose
/// crypto provider is installed once per process first (reqwest panics building a client
/// without one; a second install is refused, harmlessly).
pub fn client_builder() -> reqwest::ClientBuilder {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::modern::{request_meta, with_request_meta};
    use serde_json::json;

    fn modern_call(name: &str) -> Value {
        let meta = request_meta("2026-07-28", &json!({}), None);
        let params = with_request_meta(Some(json!({"name": name})), &meta);
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params})
    }

    fn get<'a>(h: &'a [(String, String)], name: &str) -> Option<&'a str> {
        h.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    #[test]
    fn modern_requests_get_their_metadata_headers() {
        let h = modern_request_headers(&modern_call("get_weather")).unwrap();
        assert_eq!(get(&h, "mcp-protocol-version"), Some("2026-07-28"));
        assert_eq!(get(&h, "mcp-method"), Some("tools/call"));
        assert_eq!(get(&h, "mcp-name"), Some("get_weather"));
        let h = modern_request_headers(&modern_call("天気")).unwrap();
        assert_eq!(
            get(&h, "mcp-name").and_then(mcpspec_protocol::modern::decode_header_value).as_deref(),
            Some("天気")
        );
        let meta = request_meta("2026-07-28", &json!({}), None);
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": with_request_meta(None, &meta)});
        let h = modern_request_headers(&list).unwrap();
        assert_eq!(get(&h, "mcp-name"), None, "no name for tools/list");
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}});
        assert_eq!(modern_request_headers(&legacy), None);
        let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": with_request_meta(None, &meta)});
        assert_eq!(modern_request_headers(&note), None, "notifications are not requests");
    }

    #[tokio::test]
    async fn a_modern_request_carries_no_session_and_tweaks_still_bend_each_header() {
        let url = Url::parse("http://127.0.0.1:9/mcp").unwrap();
        let mut t =
            HttpClientTransport::connect(HttpClientOptions::new(url, Flavor::Streamable)).await.unwrap();
        t.session = Some("s-1".into());
        t.protocol_version = Some("2025-11-25".into());
        let modern = modern_request_headers(&modern_call("echo"));
        let h = t.headers_for(&Tweaks::default(), POST_ACCEPT, modern.as_deref());
        assert_eq!(get(&h, SESSION_HEADER), None);
        assert_eq!(
            get(&h, PROTOCOL_VERSION_HEADER),
            Some("2026-07-28"),
            "the _meta version, not the session's"
        );
        let tweaks = Tweaks {
            protocol_version: Some("2025-06-18".into()),
            headers: vec![("Mcp-Method".into(), "tools/list".into()), ("mcp-name".into(), String::new())],
            ..Tweaks::default()
        };
        let h = t.headers_for(&tweaks, POST_ACCEPT, modern.as_deref());
        assert_eq!(get(&h, PROTOCOL_VERSION_HEADER), Some("2025-06-18"));
        assert_eq!(get(&h, "mcp-method"), Some("tools/list"));
        assert_eq!(get(&h, "mcp-name"), None, "an empty tweak leaves it out");
        let h = t.headers_for(
            &Tweaks { protocol_version: Some(String::new()), ..Tweaks::default() },
            POST_ACCEPT,
            modern.as_deref(),
        );
        assert_eq!(get(&h, PROTOCOL_VERSION_HEADER), None);
        let legacy = t.headers(&Tweaks::default(), POST_ACCEPT);
        assert_eq!(get(&legacy, SESSION_HEADER), Some("s-1"));
        assert_eq!(get(&legacy, PROTOCOL_VERSION_HEADER), Some("2025-11-25"));
    }
}
