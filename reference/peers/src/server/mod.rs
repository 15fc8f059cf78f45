//! The reference MCP server: a sans-IO handler ([`ReferenceServer`]) and the loop that runs it,
//! over a byte stream ([`serve_stdio`]) or over HTTP, one server per session ([`serve_http`]).
//! It speaks every legacy revision (2024-11-05 … 2025-11-25) and every server feature of them,
//! and the modern era (2026-07-28, `modern.rs`, with multi round-trip requests in `mrtr.rs`)
//! on the same connection (a dual-era server, `basic/versioning.mdx`), and answers exactly as
//! the spec says, so the suite can be proven against it; the same handler
//! is what the fuzz targets drive.
//!
//! The handler is a state machine in the style of quinn-proto: it never reads a clock. Input and
//! time go in ([`ReferenceServer::on_frame_at`], [`ReferenceServer::poll`]), the messages to write
//! come out, and [`ReferenceServer::next_deadline`] says when something will happen next (a slow
//! tool finishing, a progress step, a client that never answered). Tests drive it with virtual
//! time; [`serve_stdio`] drives it with tokio's clock.
//!
//! What it serves lives in `catalog.rs` (tools, resources, prompts, completion), cursors in
//! `pagination.rs`; `features.rs` answers initialize, the lists, resources, subscriptions and
//! logging, `tools.rs` carries out tool calls (progress, and the server's own requests:
//! sampling, elicitation, roots), `serve.rs` is the loop that runs the handler over a byte
//! stream. Choices the spec leaves open are documented where they are made.

mod bulk;
mod catalog;
#[cfg(test)]
mod fault_tests;
mod features;
mod http;
mod modern;
#[cfg(test)]
mod modern_tests;
mod mrtr;
mod pagination;
mod serve;
mod tasks;
#[cfg(test)]
mod tests;
mod tools;

use crate::faults::injection::{Crash, FaultState, Intercept, LineCheck};
use crate::faults::Fault;
use mcpspec_protocol::framing::{self, Frame, FrameContent, LineDecoder, RawLine};
use mcpspec_protocol::revision::{Era, Revision};
use mcpspec_protocol::wire::{
    EnvelopeError, ErrorObject, Message, Notification, Outcome, Request, RequestId, Response,
};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

pub use bulk::Bulk;
pub use catalog::MAX_COMPLETION_VALUES;

/// The tool of the reference server whose parameters are mirrored into `Mcp-Param-*` headers
/// (2026-07-28, `x-mcp-header`).
pub const PARAM_HEADERS_TOOL: &str = catalog::PARAM_HEADERS_TOOL;

/// The inputSchema of every tool of `revisions` that annotates a parameter with `x-mcp-header`,
/// by name: what the HTTP endpoint holds `Mcp-Param-*` headers to
/// ([`HttpServerOptions::param_schemas`](crate::transport::http_server::HttpServerOptions::param_schemas)).
pub fn param_schemas(revisions: &[Revision]) -> HashMap<String, Value> {
    let mut out = HashMap::new();
    for rev in revisions {
        for tool in catalog::tools(*rev) {
            let (Some(name), Some(schema)) = (tool["name"].as_str(), tool.get("inputSchema")) else {
                continue;
            };
            if mcpspec_protocol::param_headers::is_annotated(schema) {
                out.insert(name.to_owned(), schema.clone());
            }
        }
    }
    out
}
pub use http::serve_http;
pub use serve::serve_stdio;

use tools::{elicitation_text, roots_text, tool_error, tool_text};

/// What the reference server offers, and its timings.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Revisions it speaks: the legacy ones it negotiates with `initialize` (the latest is its
    /// counter-offer for anything else), the modern ones it serves statelessly.
    pub supported: Vec<Revision>,
    pub max_message_bytes: usize,
    /// Items per page of every list (small, so that every list paginates).
    pub page_size: usize,
    /// How long a tool waits for the client to answer the server's own request
    /// (sampling/createMessage, elicitation/create, roots/list) before giving up with an
    /// `isError` result and a `notifications/cancelled` for its request
    /// (basic/lifecycle.mdx "Timeouts", 2025-03-26+).
    pub client_request_timeout: Duration,
    /// The time between the progress steps of `test_tool_with_progress`.
    pub progress_interval: Duration,
    /// After a subscription to `test://watched-resource`, the watched resource changes once after
    /// this delay (`None`: only the tool `touch_watched` changes it).
    pub watched_update_delay: Option<Duration>,
    /// Sampling requests `test_sampling` sends with tools enabled before it forbids tool use
    /// (sampling.mdx: both sides SHOULD bound the iterations of a tool loop).
    pub max_sampling_rounds: usize,
    /// How long an MRTR `requestState` stays valid (`basic/patterns/mrtr.mdx`: servers SHOULD
    /// bind "a short expiry (TTL)" into it).
    pub request_state_ttl: Duration,
    /// How long a `subscriptions/listen` stream lasts before the server ends it on its own, with
    /// a `notifications/cancelled` naming it (2026-07-28 `basic/patterns/cancellation.mdx`: a
    /// server tearing a listen stream down MUST send one); zero: right behind its
    /// acknowledgement; `None`: until the client ends it.
    pub listen_lifetime: Option<Duration>,
    /// A grown catalogue beside the fixture's (`bulk.rs`); `None`: the fixture's alone.
    pub bulk: Option<Bulk>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            supported: Revision::LEGACY.into_iter().chain([Revision::V2026_07_28]).collect(),
            max_message_bytes: framing::DEFAULT_MAX_MESSAGE_BYTES,
            page_size: 2,
            client_request_timeout: Duration::from_secs(5),
            progress_interval: Duration::from_millis(10),
            watched_update_delay: Some(Duration::from_millis(50)),
            max_sampling_rounds: 3,
            request_state_ttl: Duration::from_secs(600),
            listen_lifetime: None,
            bulk: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing but ping and initialize yet.
    AwaitingInitialize,
    /// `initialize` answered; `notifications/initialized` not yet seen.
    Initialized,
    /// `notifications/initialized` received.
    Operating,
}

/// The RFC 5424 severities of `logging/setLevel` and `notifications/message`
/// (server/utilities/logging.mdx), least severe first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }

    pub fn parse(s: &str) -> Option<LogLevel> {
        LogLevel::ALL.into_iter().find(|l| l.as_str() == s)
    }
}

/// The steps of `test_tool_with_progress`.
const PROGRESS_STEPS: u32 = 3;

/// A client request still being worked on: it has not been answered yet and can be cancelled.
#[derive(Debug)]
struct Job {
    /// `params._meta.progressToken` of the request, exactly as sent.
    progress_token: Option<Value>,
    /// The 2025-03-26 batch whose response array waits for this answer.
    batch: Option<u64>,
    deadline: Option<Instant>,
    kind: JobKind,
    /// A request of the modern era: how its answer is finished (`modern.rs`).
    modern: Option<modern::Ctx>,
}

#[derive(Debug)]
enum JobKind {
    /// `slow`: answers at the deadline.
    Slow { ms: u64 },
    /// `test_tool_with_progress`: one step per deadline.
    Progress { done: u32 },
    /// A tool of the grown catalogue (`bulk.rs`): answers at the deadline.
    Bulk,
    /// A tool waiting on its own request to the client.
    Ask {
        purpose: Purpose,
        /// The id of the request sent to the client, while it is outstanding.
        request: Option<RequestId>,
        /// A request held back until `notifications/initialized` (basic/lifecycle.mdx: "The
        /// server SHOULD NOT send requests other than pings and logging before receiving the
        /// initialized notification").
        deferred: Option<(&'static str, Value)>,
    },
    /// A `tasks/result` waiting for its task to end (`tasks.rs`).
    AwaitTask { task: String },
    /// A `subscriptions/listen` stream: open until cancelled (`basic/patterns/subscriptions.mdx`).
    Listen {
        /// The filter acknowledged (the notifications this stream carries).
        ack: Value,
    },
}

#[derive(Debug)]
enum Purpose {
    Sampling {
        /// The conversation so far.
        messages: Vec<Value>,
        with_tools: bool,
        /// Sampling requests sent so far.
        rounds: usize,
        /// A deliberate fault: the next request leaves the model's tool uses unanswered.
        unbalanced: bool,
    },
    Elicitation {
        /// The `elicitationId` of a URL-mode elicitation, announced complete once accepted.
        url_id: Option<String>,
    },
    Roots,
}

impl Purpose {
    fn method(&self) -> &'static str {
        match self {
            Purpose::Sampling { .. } => "sampling/createMessage",
            Purpose::Elicitation { .. } => "elicitation/create",
            Purpose::Roots => "roots/list",
        }
    }
}

/// The answers of a 2025-03-26 batch, sent as one array once every request in it is answered
/// (JSON-RPC 2.0 §6: the response array comes "after all of the batch Request objects have been
/// processed").
#[derive(Debug, Default)]
struct PendingBatch {
    answers: Vec<Value>,
    waiting: usize,
}

/// The reference server's protocol state.
#[derive(Debug)]
pub struct ReferenceServer {
    config: ServerConfig,
    fault: Option<Fault>,
    phase: Phase,
    revision: Option<Revision>,
    client_capabilities: Value,
    /// The latest time seen.
    now: Instant,
    /// `None` until `logging/setLevel`: everything is sent (see [`ReferenceServer::log`]).
    min_log_level: Option<LogLevel>,
    subscriptions: BTreeSet<String>,
    watched_version: u64,
    /// When the watched resource changes next (one entry per subscription made).
    watched_changes: Vec<Instant>,
    jobs: BTreeMap<RequestId, Job>,
    /// Our outstanding requests to the client → the job that waits for each.
    awaiting: HashMap<RequestId, RequestId>,
    next_request_id: i64,
    /// URL-mode elicitations started so far (their ids are unique in the session).
    next_elicitation: u64,
    /// The tool list grew (faults `tool-added-*` only).
    tool_added: bool,
    /// A tool call has been carried out (fault `listing-fails-after-call`).
    tool_called: bool,
    cursors: pagination::Cursors,
    /// The session's tasks (2025-11-25).
    tasks: tasks::TaskStore,
    batches: HashMap<u64, PendingBatch>,
    next_batch: u64,
    current_batch: Option<u64>,
    /// The modern request being handled, while it is.
    modern: Option<modern::Ctx>,
    out: Vec<Value>,
    /// A planted bug went off (the `fuzz-` faults): the serving loop ends the process with it
    /// before writing anything more.
    crash: Option<Crash>,
}

impl ReferenceServer {
    pub fn new(config: ServerConfig) -> Self {
        // The zero of MRTR expiries, shared by every server of the process (`mrtr.rs`).
        mrtr::epoch();
        ReferenceServer {
            config,
            fault: None,
            phase: Phase::AwaitingInitialize,
            revision: None,
            client_capabilities: json!({}),
            now: Instant::now(),
            min_log_level: None,
            subscriptions: BTreeSet::new(),
            watched_version: 0,
            watched_changes: Vec::new(),
            jobs: BTreeMap::new(),
            awaiting: HashMap::new(),
            next_request_id: 1,
            next_elicitation: 0,
            tool_added: false,
            tool_called: false,
            cursors: pagination::Cursors::default(),
            tasks: tasks::TaskStore::default(),
            batches: HashMap::new(),
            next_batch: 0,
            current_batch: None,
            modern: None,
            out: Vec::new(),
            crash: None,
        }
    }

    /// The same server with one deliberate defect (test peers only). Faults that change what the
    /// server decides are consulted here; faults that only change bytes live in
    /// [`serve_stdio`]'s fault layer.
    pub fn with_fault(mut self, fault: Option<Fault>) -> Self {
        self.fault = fault;
        self
    }

    pub fn fault(&self) -> Option<Fault> {
        self.fault
    }

    pub fn config(&self) -> &ServerConfig {
        &self.config
    }

    /// The negotiated revision, once `initialize` has been answered.
    pub fn revision(&self) -> Option<Revision> {
        self.revision
    }

    /// The planted bug that went off while handling the last line, if one did (`fuzz-` faults).
    pub(crate) fn take_crash(&mut self) -> Option<Crash> {
        self.crash.take()
    }

    /// Whether a client request with this id is still being worked on (can be cancelled).
    pub fn is_in_flight(&self, id: &RequestId) -> bool {
        self.jobs.contains_key(id)
    }

    /// Handles one decoded line at the latest time seen (see [`on_frame_at`](Self::on_frame_at)).
    pub fn on_frame(&mut self, frame: &FrameContent) -> Vec<Value> {
        self.on_frame_at(frame, self.now)
    }

    /// Handles one decoded line at time `now`; returns the messages to write, in order
    /// (first whatever fell due by `now`, then the answers to the line).
    pub fn on_frame_at(&mut self, frame: &FrameContent, now: Instant) -> Vec<Value> {
        match frame {
            FrameContent::Json { value, .. } => self.on_value_at(value, now),
            // A stray empty line carries no request: nothing to answer.
            FrameContent::Blank => self.poll(now),
            FrameContent::Invalid(_) if self.fault == Some(Fault::SilentOnMalformed) => self.poll(now),
            FrameContent::Invalid(e) => {
                let mut out = self.poll(now);
                out.push(
                    Message::error(
                        None,
                        ErrorObject::new(ErrorObject::PARSE_ERROR, format!("Parse error: {e}")),
                    )
                    .to_value(),
                );
                out
            }
        }
    }

    /// Handles one JSON value (a message or, in 2025-03-26, a batch) at the latest time seen.
    pub fn on_value(&mut self, value: &Value) -> Vec<Value> {
        self.on_value_at(value, self.now)
    }

    /// Handles one JSON value at time `now`.
    pub fn on_value_at(&mut self, value: &Value, now: Instant) -> Vec<Value> {
        self.run_due(now);
        if let Value::Array(items) = value {
            self.on_batch(items);
        } else {
            self.on_single(value);
        }
        std::mem::take(&mut self.out)
    }

    /// Does whatever is due by `now`; returns the messages to write.
    pub fn poll(&mut self, now: Instant) -> Vec<Value> {
        self.run_due(now);
        std::mem::take(&mut self.out)
    }

    /// When [`poll`](Self::poll) next has something to do.
    pub fn next_deadline(&self) -> Option<Instant> {
        let jobs = self.jobs.values().filter_map(|j| j.deadline);
        let watched = self.watched_changes.iter().copied();
        jobs.chain(watched).min()
    }

    fn run_due(&mut self, now: Instant) {
        self.now = self.now.max(now);
        // Each step may schedule another; a late poll catches up step by step, in order.
        while let Some(at) = self.next_deadline().filter(|at| *at <= self.now) {
            if let Some(i) = self.watched_changes.iter().position(|t| *t == at) {
                self.watched_changes.remove(i);
                self.watched_resource_changes();
                continue;
            }
            let due = self.jobs.iter().find(|(_, j)| j.deadline == Some(at)).map(|(id, _)| id.clone());
            if let Some(id) = due {
                self.fire(id, at);
            }
        }
    }

    // ---- output --------------------------------------------------------------------------

    fn notify(&mut self, method: &str, params: Value) {
        self.out.push(Message::notification(method, Some(params)).to_value());
    }

    /// Sends the answer to a request that was never a job.
    fn respond(&mut self, id: Option<RequestId>, outcome: Result<Value, ErrorObject>) {
        // A tool running as a task answers its task, not the wire.
        if let Some(task) = id.as_ref().and_then(tasks::task_of_job) {
            return self.task_done(&task, outcome);
        }
        let (id, outcome) = match &self.modern {
            Some(ctx) => self.modern_outcome(ctx, id, outcome),
            None => (id, outcome),
        };
        let message = match (outcome, id) {
            (Ok(result), Some(id)) => Message::result(id, result),
            // Results only ever answer a request, whose id was read.
            (Ok(_), None) => return,
            (Err(error), id) => Message::error(id, error),
        }
        .to_value();
        match self.current_batch.and_then(|b| self.batches.get_mut(&b)) {
            Some(batch) => batch.answers.push(message),
            None => self.out.push(message),
        }
    }

    /// Answers a job and forgets it.
    fn finish(&mut self, id: RequestId, outcome: Result<Value, ErrorObject>) {
        let Some(job) = self.jobs.remove(&id) else { return };
        if let Some(task) = tasks::task_of_job(&id) {
            return self.task_done(&task, outcome);
        }
        let (id, outcome) = match &job.modern {
            Some(ctx) => self.modern_outcome(ctx, Some(id), outcome),
            None => (Some(id), outcome),
        };
        let message = match (outcome, id) {
            (Ok(result), Some(id)) => Message::result(id, result),
            (Ok(_), None) => return,
            (Err(error), id) => Message::error(id, error),
        }
        .to_value();
        match job.batch {
            Some(b) => {
                if let Some(batch) = self.batches.get_mut(&b) {
                    batch.answers.push(message);
                }
                self.batch_member_done(b);
            }
            None => self.out.push(message),
        }
    }

    fn batch_member_done(&mut self, b: u64) {
        if let Some(batch) = self.batches.get_mut(&b) {
            batch.waiting = batch.waiting.saturating_sub(1);
        }
        self.flush_batch(b);
    }

    fn flush_batch(&mut self, b: u64) {
        if self.batches.get(&b).is_some_and(|batch| batch.waiting == 0) {
            let batch = self.batches.remove(&b).unwrap_or_default();
            if !batch.answers.is_empty() {
                self.out.push(Value::Array(batch.answers));
            }
        }
    }

    fn start_job(
        &mut self,
        id: RequestId,
        progress_token: Option<Value>,
        deadline: Option<Instant>,
        kind: JobKind,
    ) {
        let batch = self.current_batch;
        if let Some(b) = batch.and_then(|b| self.batches.get_mut(&b)) {
            b.waiting += 1;
        }
        let modern = self.modern.clone();
        self.jobs.insert(id, Job { progress_token, batch, deadline, kind, modern });
    }

    // ---- input ---------------------------------------------------------------------------

    fn on_batch(&mut self, items: &[Value]) {
        let allowed =
            self.revision.is_some_and(|r| r.allows_batches() || self.fault == Some(Fault::AcceptBatches));
        if !allowed {
            // basic/index.mdx (2025-06-18+) dropped batches; 2024-11-05 never had them; and in
            // 2025-03-26 "The initialize request MUST NOT be part of a JSON-RPC batch".
            let why = match self.revision {
                Some(r) => format!("Invalid Request: JSON-RPC batches are not part of revision {r}"),
                None => {
                    "Invalid Request: a batch cannot open a session (initialize must not be batched)".into()
                }
            };
            self.respond(None, Err(ErrorObject::new(ErrorObject::INVALID_REQUEST, why)));
            return;
        }
        if items.is_empty() {
            // JSON-RPC 2.0 §6: an empty array is one invalid request.
            self.respond(None, Err(invalid_request_error("empty batch")));
            return;
        }
        let b = self.next_batch;
        self.next_batch += 1;
        self.batches.insert(b, PendingBatch::default());
        self.current_batch = Some(b);
        for item in items {
            if matches!(item, Value::Array(_)) {
                self.respond(None, Err(invalid_request_error("a batch may not contain a batch")));
            } else if item.get("method").and_then(Value::as_str) == Some("initialize") {
                let id = item.get("id").and_then(RequestId::from_value);
                self.respond(
                    id,
                    Err(invalid_request_error("initialize must not be part of a JSON-RPC batch")),
                );
            } else {
                self.on_single(item);
            }
        }
        self.current_batch = None;
        self.flush_batch(b);
    }

    fn on_single(&mut self, value: &Value) {
        match Message::from_value(value) {
            Ok(Message::Request(r)) => self.on_request(r),
            Ok(Message::Notification(n)) => self.on_notification(n),
            Ok(Message::Response(r)) => self.on_response(r),
            Err(_) if self.fault == Some(Fault::SilentOnMalformed) => {}
            Err(e) => {
                // A message whose id cannot be read is answered without one, as JSON-RPC says.
                let id = match e {
                    EnvelopeError::NullRequestId | EnvelopeError::BadIdType(_) => None,
                    _ => value.get("id").and_then(RequestId::from_value),
                };
                self.respond(id, Err(invalid_request_error(&e.to_string())));
            }
        }
    }

    fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            "notifications/initialized" if self.phase == Phase::Initialized => {
                self.phase = Phase::Operating;
                self.send_deferred_requests();
            }
            "notifications/cancelled" => self.on_cancelled(n.params.as_ref()),
            // Everything else (progress, roots/list_changed, unknown methods, an initialized
            // out of place) is ignored: notifications are never answered (basic/index.mdx).
            _ => {}
        }
    }

    /// cancellation.mdx: stop the request and send no response for it. Unknown ids, finished
    /// requests and malformed cancels "SHOULD be ignored"; `initialize` is answered at once, so it
    /// is never in flight and cannot be cancelled.
    fn on_cancelled(&mut self, params: Option<&Value>) {
        let Some(id) = params.and_then(|p| p.get("requestId")).and_then(RequestId::from_value) else {
            return;
        };
        if self.fault == Some(Fault::RespondAfterCancel) {
            return;
        }
        let Some(job) = self.jobs.remove(&id) else { return };
        if let JobKind::Ask { request: Some(ours), purpose, .. } = &job.kind {
            // Our own request is no longer needed: cancel it in turn.
            self.awaiting.remove(ours);
            let reason = format!("the tools/call that needed this {} was cancelled", purpose.method());
            self.notify("notifications/cancelled", json!({ "requestId": ours.to_value(), "reason": reason }));
        }
        if let Some(b) = job.batch {
            self.batch_member_done(b);
        }
    }

    fn on_response(&mut self, r: Response) {
        // Answers to requests we never sent, or already gave up on, are ignored.
        let Some(job_id) = r.id.as_ref().and_then(|id| self.awaiting.remove(id)) else { return };
        let Some(job) = self.jobs.get_mut(&job_id) else { return };
        job.deadline = None;
        let JobKind::Ask { purpose, request, .. } = &mut job.kind else { return };
        *request = None;
        let method = purpose.method();
        let result = match r.outcome {
            Outcome::Result(v) => v,
            Outcome::Error(e) => {
                let text = format!("the client answered {method} with error {}: {}", e.code, e.message);
                return self.finish(job_id, Ok(tool_error(&text)));
            }
        };
        match purpose {
            Purpose::Sampling { .. } => self.sampling_answered(job_id, result),
            Purpose::Elicitation { url_id } => {
                let action = result.get("action").and_then(Value::as_str).unwrap_or("(none)").to_owned();
                // The out-of-band interaction "completes" at once; the client hears of it
                // (client/elicitation.mdx#completion-notifications-for-url-mode-elicitation).
                if let (Some(id), "accept") = (url_id, action.as_str()) {
                    let id = match self.fault {
                        Some(Fault::ElicitationCompleteUnknown) => "mcpspec-never-elicited".to_owned(),
                        _ => id.clone(),
                    };
                    self.notify("notifications/elicitation/complete", json!({ "elicitationId": id }));
                }
                self.finish(job_id, Ok(tool_text(&elicitation_text(&result))));
            }
            Purpose::Roots => self.finish(job_id, Ok(tool_text(&roots_text(&result)))),
        }
    }

    fn on_request(&mut self, r: Request) {
        if self.jobs.contains_key(&r.id) {
            // basic/index.mdx: "The request ID MUST NOT have been previously used by the
            // requestor within the same session."
            let why = format!("the id {} belongs to a request still in progress", r.id);
            return self.respond(Some(r.id), Err(invalid_request_error(&why)));
        }
        if self.is_modern_request(&r) {
            return self.modern_request(r);
        }
        let params = r.params.as_ref();
        let outcome = match (r.method.as_str(), self.phase) {
            ("ping", _) => Ok(json!({})),
            ("initialize", Phase::AwaitingInitialize) => self.initialize(params),
            ("initialize", _) => Err(ErrorObject::new(
                ErrorObject::INVALID_REQUEST,
                "Invalid Request: the session is already initialized",
            )),
            (_, Phase::AwaitingInitialize) => Err(ErrorObject::new(
                ErrorObject::INVALID_REQUEST,
                format!(
                    "Invalid Request: {:?} before initialize; the session must begin with initialize",
                    r.method
                ),
            )),
            ("tools/call", _) => return self.tools_call(r),
            (method, _)
                if self.fault == Some(Fault::TaskFieldRefused)
                    && params.and_then(|p| p.get("task")).is_some_and(Value::is_object) =>
            {
                Err(invalid_params(&format!("{method} cannot run as a task")))
            }
            ("tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel", _)
                if catalog::has_tasks(self.rev()) =>
            {
                return self.task_request(r)
            }
            ("tools/list", _) if self.fault == Some(Fault::ListingFailsAfterCall) && self.tool_called => {
                let error =
                    ErrorObject::new(ErrorObject::INTERNAL_ERROR, "Internal error: the tool list is gone");
                return self.respond(Some(r.id), Err(error));
            }
            (list @ ("tools/list" | "resources/list" | "resources/templates/list" | "prompts/list"), _) => {
                self.list_page(list, params)
            }
            ("resources/read", _) => self.read_resource(params),
            ("resources/subscribe", _) => self.subscribe(params, true),
            ("resources/unsubscribe", _) => self.subscribe(params, false),
            ("prompts/get", _) => self.get_prompt(params),
            ("logging/setLevel", _) => self.set_level(params),
            // completion/complete is a method of every legacy revision; the `completions`
            // capability that announces it exists from 2025-03-26.
            ("completion/complete", _) => catalog::complete(params, self.fault),
            (method, _) => {
                Err(ErrorObject::new(ErrorObject::METHOD_NOT_FOUND, format!("Method not found: {method}")))
            }
        };
        self.respond(Some(r.id), outcome);
    }
}

/// server/resources.mdx (up to 2025-11-25): "Resource not found: -32002", with the uri as data.
fn resource_not_found(uri: &str) -> ErrorObject {
    ErrorObject::new(ErrorObject::RESOURCE_NOT_FOUND, format!("Resource not found: {uri}"))
        .with_data(json!({ "uri": uri }))
}

pub(crate) fn invalid_params(why: &str) -> ErrorObject {
    ErrorObject::new(ErrorObject::INVALID_PARAMS, format!("Invalid params: {why}"))
}

fn invalid_request_error(why: &str) -> ErrorObject {
    ErrorObject::new(ErrorObject::INVALID_REQUEST, format!("Invalid Request: {why}"))
}
