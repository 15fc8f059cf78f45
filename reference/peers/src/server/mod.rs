//! The reference MCP server: a sans-IO handler ([`ReferenceServer`]) and the loop that runs it,
//! over a byte stream ([`serve_stdio`]) or over HTTP, one server per session ([`serve_http`]).
//! It speaks every legacy revision (2024-11-05 … 2025-11-25) and every server feature of them,
//! and the stateless era (2026-07-28, `modern.rs`, with multi round-trip requests in `mrtr.rs`)
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
//! `pagination.rs`. Choices the spec leaves open are documented where they are made.

mod catalog;
#[cfg(test)]
mod fault_tests;
mod http;
mod modern;
#[cfg(test)]
mod modern_tests;
mod mrtr;
mod pagination;
#[cfg(test)]
mod tests;

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

pub use catalog::MAX_COMPLETION_VALUES;
pub use http::serve_http;

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
    /// A request of the stateless era: how its answer is finished (`modern.rs`).
    modern: Option<modern::Ctx>,
}

#[derive(Debug)]
enum JobKind {
    /// `slow`: answers at the deadline.
    Slow { ms: u64 },
    /// `test_tool_with_progress`: one step per deadline.
    Progress { done: u32 },
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
    batches: HashMap<u64, PendingBatch>,
    next_batch: u64,
    current_batch: Option<u64>,
    /// The stateless request being handled, while it is.
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
            ("prompts/get", _) => catalog::get_prompt(params, self.fault),
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

    fn initialize(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("initialize needs params.protocolVersion, a string"))?;
        let legacy: Vec<Revision> =
            self.config.supported.iter().copied().filter(|r| r.era() == Era::Legacy).collect();
        // lifecycle.mdx: echo a supported version, otherwise counter-offer the latest supported.
        let revision = match requested.parse::<Revision>() {
            Ok(r) if self.fault == Some(Fault::CounterOfferAlways) && legacy.len() > 1 => {
                let at = legacy.iter().position(|l| *l == r).map_or(0, |i| i + 1);
                legacy[at % legacy.len()]
            }
            Ok(r) if legacy.contains(&r) => r,
            _ => *legacy.iter().max().ok_or_else(|| {
                ErrorObject::new(
                    ErrorObject::INTERNAL_ERROR,
                    "this server is configured with no legacy revision",
                )
            })?,
        };
        self.revision = Some(revision);
        self.phase = Phase::Initialized;
        self.client_capabilities = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| json!({}));
        let mut server_info = Map::new();
        server_info.insert("name".into(), "mcpspec-reference".into());
        server_info.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        if revision >= Revision::V2025_06_18 {
            server_info.insert("title".into(), "mcpspec reference server".into());
        }
        // Every server feature. The lists never change, so listChanged is declared but never
        // needed ("SHOULD send" only when a list changes).
        let mut capabilities = json!({
            "tools": { "listChanged": true },
            "resources": { "subscribe": true, "listChanged": true },
            "prompts": { "listChanged": true },
            "logging": {},
        });
        if revision >= Revision::V2025_03_26 {
            capabilities["completions"] = json!({});
        }
        let mut result = json!({
            "protocolVersion": revision.as_str(),
            "capabilities": capabilities,
            "serverInfo": server_info,
        });
        if revision >= Revision::V2025_03_26 {
            result["instructions"] = "The reference server of mcpspec: every server feature, with the \
                official conformance fixture's tools, resources and prompts."
                .into();
        }
        Ok(result)
    }

    /// One page of a list (`tools/list`, `resources/list`, `resources/templates/list`,
    /// `prompts/list`) at the revision being served; lists of the stateless era recognise their
    /// cursors without memory (`pagination.rs`).
    fn list_page(&mut self, list: &str, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let rev = self.rev();
        let (list, key, items): (&'static str, _, _) = match list {
            "tools/list" => {
                let mut tools = catalog::tools(rev);
                tools.extend(self.unnamed_fault_tool());
                if self.tool_added {
                    tools.push(
                        json!({ "name": "mcpspec_added", "description": "Appeared during the session.",
                        "inputSchema": { "type": "object" } }),
                    );
                }
                ("tools/list", "tools", tools)
            }
            "resources/list" => ("resources/list", "resources", catalog::resources(rev)),
            // resources/templates/list is paginated in every revision (utilities/pagination.mdx;
            // digest §T11 for 2025-11-25).
            "resources/templates/list" => {
                ("resources/templates/list", "resourceTemplates", catalog::templates(rev))
            }
            _ => ("prompts/list", "prompts", catalog::prompts(rev)),
        };
        if self.fault == Some(Fault::FuzzHangOnInput)
            && list == "prompts/list"
            && params.and_then(|p| p.get("cursor")).and_then(Value::as_str) == Some("")
        {
            // The page is still computed below; the serving loop hangs before writing it.
            self.crash = Some(Crash::Hang);
        }
        let stateless = self.modern.is_some();
        let how = pagination::Paging { page_size: self.config.page_size, fault: self.fault, stateless };
        self.cursors.page(list, key, items, params, how)
    }

    /// The revision being served: the stateless request's, else the negotiated one.
    fn rev(&self) -> Revision {
        match &self.modern {
            Some(ctx) => ctx.revision,
            None => self.revision.unwrap_or_else(Revision::latest_legacy),
        }
    }

    fn client_capability(&self, name: &str) -> Option<&Value> {
        self.client_capabilities.get(name).filter(|v| !v.is_null())
    }

    // ---- resources and logging -----------------------------------------------------------

    fn resource_uri<'a>(&self, params: Option<&'a Value>) -> Result<&'a str, ErrorObject> {
        params
            .and_then(|p| p.get("uri"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("params.uri, a string, is required"))
    }

    fn read_resource(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let uri = self.resource_uri(params)?;
        match catalog::read_resource(uri, self.watched_version) {
            Some(contents) => Ok(json!({ "contents": contents })),
            None => Err(resource_not_found(uri)),
        }
    }

    fn subscribe(&mut self, params: Option<&Value>, on: bool) -> Result<Value, ErrorObject> {
        let uri = self.resource_uri(params)?;
        if catalog::read_resource(uri, 0).is_none() {
            return Err(resource_not_found(uri));
        }
        if on {
            self.subscriptions.insert(uri.to_owned());
            if let (catalog::WATCHED, Some(d)) = (uri, self.config.watched_update_delay) {
                self.watched_changes.push(self.now + d);
            }
        } else {
            self.subscriptions.remove(uri);
        }
        Ok(json!({}))
    }

    fn watched_resource_changes(&mut self) {
        // A legacy session between `initialize` and `initialized` waits; a stateless listener
        // (or a connection that never initialized) hears of the change at once.
        if self.phase == Phase::Initialized && self.listeners(catalog::WATCHED) == 0 {
            // Nothing but pings and logging before `initialized`: change a little later (from
            // now, and never at once, so that a late poll does not spin).
            let delay = self.config.watched_update_delay.unwrap_or_default().max(Duration::from_millis(1));
            self.watched_changes.push(self.now + delay);
            return;
        }
        self.touch_watched();
    }

    /// The watched resource changes; subscribers hear about it (server/resources.mdx), and so do
    /// the `subscriptions/listen` streams that asked for it.
    fn touch_watched(&mut self) -> bool {
        self.watched_version += 1;
        let subscribed = self.subscriptions.contains(catalog::WATCHED);
        if subscribed && self.phase == Phase::Operating {
            self.notify("notifications/resources/updated", json!({ "uri": catalog::WATCHED }));
        }
        let heard = self.notify_listeners(catalog::WATCHED);
        subscribed || heard
    }

    fn set_level(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let level = params.and_then(|p| p.get("level"));
        match level.and_then(Value::as_str).and_then(LogLevel::parse) {
            Some(l) => self.min_log_level = Some(l),
            None if self.fault == Some(Fault::InvalidLogLevelAccepted) => {}
            // logging.mdx: "Invalid log level: -32602".
            None => {
                return Err(invalid_params(&format!(
                    "params.level must be one of debug, info, notice, warning, error, critical, alert, \
                     emergency; found {}",
                    mcpspec_protocol::wire::describe(level)
                )))
            }
        }
        Ok(json!({}))
    }

    /// Sends a `notifications/message` if `level` passes the filter. Before any
    /// `logging/setLevel` every level is sent: logging.mdx leaves the default open (digest §T16),
    /// and sending all makes the effect of a later setLevel visible.
    ///
    /// A stateless request is logged to only when its `_meta` names a level, and only at or
    /// above it (2026-07-28 `server/utilities/logging.mdx`: "The server **MUST NOT** emit
    /// `notifications/message` for a request that does not include this field").
    fn log(&mut self, level: LogLevel, data: &str) {
        let passes = match &self.modern {
            Some(ctx) => {
                ctx.log_level.is_some_and(|min| level >= min)
                    || self.fault == Some(Fault::ModernLogWithoutLevel)
            }
            None => {
                self.min_log_level.is_none_or(|min| level >= min)
                    || self.fault == Some(Fault::LogLevelIgnored)
            }
        };
        if passes {
            let params = json!({ "level": level.as_str(), "logger": "test_tool_with_logging", "data": data });
            self.notify("notifications/message", params);
        }
    }

    // ---- tools ---------------------------------------------------------------------------

    /// A failure of the tool's arguments: a protocol error up to 2025-06-18, a tool execution
    /// error from 2025-11-25 (server/tools.mdx "Error Handling", SEP-1303).
    fn bad_arguments(&self, why: &str) -> Result<Value, ErrorObject> {
        if self.rev() >= Revision::V2025_11_25 {
            Ok(tool_error(why))
        } else {
            Err(invalid_params(why))
        }
    }

    fn tools_call(&mut self, r: Request) {
        let id = r.id.clone();
        let params = r.params.as_ref();
        let Some(name) = params.and_then(|p| p.get("name")).and_then(Value::as_str) else {
            return self.respond(Some(id), Err(invalid_params("tools/call needs params.name, a string")));
        };
        let args = match params.and_then(|p| p.get("arguments")) {
            None | Some(Value::Null) => json!({}),
            Some(a @ Value::Object(_)) => a.clone(),
            // Fails the CallToolRequest schema: a malformed request, a protocol error everywhere.
            Some(other) => {
                let why = format!(
                    "params.arguments must be an object, found {}",
                    mcpspec_protocol::wire::describe(Some(other))
                );
                return self.respond(Some(id), Err(invalid_params(&why)));
            }
        };
        let rev = self.rev();
        if self.unnamed_fault_tool().is_some_and(|t| t["name"] == name) {
            return self.start_sampling(id, &args, self.fault);
        }
        if !catalog::has_tool(rev, name) {
            // server/tools.mdx: unknown tools are a protocol error (example: -32602).
            let why = format!("Unknown tool: {name}");
            let outcome = if self.fault == Some(Fault::UnknownToolIsErrorResult) {
                Ok(tool_error(&why))
            } else {
                Err(invalid_params(&why))
            };
            return self.respond(Some(id), outcome);
        }
        let token = params
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get("progressToken"))
            .filter(|t| RequestId::from_value(t).is_some())
            .cloned();
        let text = |t: &str| json!({ "type": "text", "text": t });
        let image = json!({ "type": "image", "data": catalog::PNG_1PX, "mimeType": "image/png" });
        let embedded = json!({ "type": "resource", "resource": {
            "uri": "test://embedded-resource", "mimeType": "text/plain",
            "text": "This is an embedded resource content." } });
        let outcome = match name {
            "test_simple_text" => {
                if matches!(self.fault, Some(Fault::ToolAddedSilently | Fault::ToolAddedAnnounced))
                    && !self.tool_added
                {
                    self.tool_added = true;
                    if self.fault == Some(Fault::ToolAddedAnnounced) {
                        self.notify("notifications/tools/list_changed", json!({}));
                    }
                }
                Ok(content(vec![text("This is a simple text response for testing.")]))
            }
            "test_image_content" => Ok(content(vec![image])),
            "test_audio_content" => Ok(content(vec![
                json!({ "type": "audio", "data": catalog::WAV_SILENCE, "mimeType": "audio/wav" }),
            ])),
            "test_embedded_resource" => Ok(content(vec![embedded])),
            "test_multiple_content_types" => {
                Ok(content(vec![text("Multiple content types test:"), image, embedded]))
            }
            "test_tool_with_logging" => {
                self.log(LogLevel::Debug, "Tool execution started (debug)");
                self.log(LogLevel::Info, "Tool is running (info)");
                self.log(LogLevel::Warning, "Tool is almost done (warning)");
                self.log(LogLevel::Error, "Tool logged an error on purpose (error)");
                Ok(content(vec![text("Tool with logging executed successfully")]))
            }
            "test_tool_with_progress" => {
                let deadline = self.now + self.config.progress_interval;
                return self.start_job(id, token, Some(deadline), JobKind::Progress { done: 0 });
            }
            "test_error_handling" => Ok(tool_error("This tool intentionally returns an error for testing")),
            "test_sampling" => {
                let fault = self.fault.filter(|_| self.unnamed_fault_tool().is_none());
                return self.start_sampling(id, &args, fault);
            }
            "test_elicitation" => return self.start_elicitation(id, &args),
            "test_roots" => {
                if self.client_capability("roots").is_none()
                    && self.fault != Some(Fault::RootsWithoutCapability)
                {
                    Ok(tool_error(
                        "the client did not declare the roots capability, so this server may not send \
                         roots/list (client/roots.mdx)",
                    ))
                } else {
                    return self.ask(id, Purpose::Roots, None);
                }
            }
            "echo" => match args.get("message").and_then(Value::as_str) {
                Some(m) => Ok(content(vec![text(m)])),
                None => self.bad_arguments("echo needs the argument \"message\", a string"),
            },
            "add" if self.fault == Some(Fault::OutputToolRefuses) => {
                Ok(tool_error("add refuses these arguments (a deliberate fault)"))
            }
            "add" => match (args.get("a").and_then(Value::as_f64), args.get("b").and_then(Value::as_f64)) {
                (Some(a), Some(b)) => {
                    let sum = a + b;
                    let mut result = content(vec![text(&sum.to_string())]);
                    // tools.mdx (2025-06-18+): with an outputSchema, "Servers MUST provide
                    // structured results that conform to this schema"; the text block mirrors it.
                    if rev >= Revision::V2025_06_18 {
                        result["structuredContent"] = if self.fault == Some(Fault::StructuredContentMismatch)
                        {
                            json!({ "sum": sum.to_string() })
                        } else {
                            json!({ "sum": sum })
                        };
                    }
                    Ok(result)
                }
                _ => self.bad_arguments("add needs the arguments \"a\" and \"b\", numbers"),
            },
            "slow" => {
                let ms = match args.get("ms") {
                    None => Some(1000),
                    Some(ms) => ms.as_u64().filter(|ms| *ms <= 600_000),
                };
                match ms {
                    Some(0) if self.fault == Some(Fault::FuzzCrashToolArgument) => {
                        self.crash = Some(Crash::divide_by_zero());
                        return;
                    }
                    Some(ms) => {
                        let deadline = self.now + Duration::from_millis(ms);
                        return self.start_job(id, token, Some(deadline), JobKind::Slow { ms });
                    }
                    None => self.bad_arguments("slow needs the argument \"ms\", an integer from 0 to 600000"),
                }
            }
            "touch_watched" => {
                let subscribed = self.touch_watched();
                let note = if subscribed { "subscribers were notified" } else { "nobody is subscribed" };
                Ok(content(vec![text(&format!("test://watched-resource changed ({note})"))]))
            }
            other => Err(ErrorObject::new(
                ErrorObject::INTERNAL_ERROR,
                format!("tool {other} is listed but not served"),
            )),
        };
        self.tool_called |= outcome.is_ok();
        self.respond(Some(id), outcome);
    }

    /// The extra tool of the faults that only show when a tool without a fixture name is called:
    /// it samples, like `test_sampling`, with the fault's defect.
    fn unnamed_fault_tool(&self) -> Option<Value> {
        // Those faults send requests to the client: a legacy defect, never in the stateless era.
        if self.modern.is_some() {
            return None;
        }
        let name = match self.fault? {
            Fault::UnnamedSamplingTools => "summarize",
            Fault::UnnamedUnbalancedToolLoop => "research",
            _ => return None,
        };
        let input = json!({ "type": "object", "properties": { "topic": { "type": "string" } }, "required": ["topic"] });
        Some(
            json!({ "name": name, "description": format!("Asks the client's model to {name} a topic."), "inputSchema": input }),
        )
    }

    /// Starts a tool that waits on its own request to the client.
    fn ask(&mut self, id: RequestId, purpose: Purpose, params: Option<Value>) {
        let method = purpose.method();
        let deferred = Some((method, params.unwrap_or(Value::Null)));
        self.start_job(id.clone(), None, None, JobKind::Ask { purpose, request: None, deferred });
        if self.phase == Phase::Operating {
            self.send_deferred(&id);
        }
    }

    fn send_deferred_requests(&mut self) {
        let ids: Vec<RequestId> = self
            .jobs
            .iter()
            .filter(|(_, j)| matches!(j.kind, JobKind::Ask { deferred: Some(_), .. }))
            .map(|(id, _)| id.clone())
            .collect();
        for id in ids {
            self.send_deferred(&id);
        }
    }

    /// Sends a job's request to the client; its answer is due within the configured timeout.
    fn send_deferred(&mut self, job_id: &RequestId) {
        let ours = RequestId::Integer(self.next_request_id.into());
        let deadline = self.now + self.config.client_request_timeout;
        let Some(job) = self.jobs.get_mut(job_id) else { return };
        let JobKind::Ask { request, deferred, .. } = &mut job.kind else { return };
        let Some((method, params)) = deferred.take() else { return };
        // Ids of our requests are unique within the session: a counter, never reused.
        self.next_request_id += 1;
        *request = Some(ours.clone());
        job.deadline = Some(deadline);
        self.awaiting.insert(ours.clone(), job_id.clone());
        let params = (!params.is_null()).then_some(params);
        self.out.push(Message::request(ours, method, params).to_value());
    }

    /// Starts a sampling tool with `fault` (the unnamed faults apply to their own tool only).
    fn start_sampling(&mut self, id: RequestId, args: &Value, fault: Option<Fault>) {
        let sampling = self.client_capability("sampling").cloned();
        if sampling.is_none() && fault != Some(Fault::SamplingWithoutCapability) {
            let why = "the client did not declare the sampling capability, so this server may not send \
                       sampling/createMessage (client/sampling.mdx)";
            return self.respond(Some(id), Ok(tool_error(why)));
        }
        // sampling.mdx (2025-11-25): "Servers MUST NOT send tool-enabled sampling requests to
        // Clients that have not declared support for tool use via the sampling.tools capability."
        let declared_tools = self.rev() >= Revision::V2025_11_25
            && sampling.as_ref().and_then(|s| s.get("tools")).is_some_and(|t| !t.is_null());
        let with_tools = declared_tools
            || matches!(fault, Some(Fault::SamplingToolsWithoutCapability | Fault::UnnamedSamplingTools));
        let unbalanced = fault == Some(Fault::UnnamedUnbalancedToolLoop);
        let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or("Say hello.");
        let messages = vec![json!({ "role": "user", "content": { "type": "text", "text": prompt } })];
        let params = sampling_params(&messages, with_tools, false);
        self.ask(id, Purpose::Sampling { messages, with_tools, rounds: 1, unbalanced }, Some(params));
    }

    /// The client's model answered. With tools, every `tool_use` is answered in the next user
    /// message by a `tool_result` with the matching `toolUseId`, and that message holds nothing
    /// else (sampling.mdx, 2025-11-25: "Servers MUST ensure that when replying to a stopReason:
    /// "toolUse", each ToolUseContent item is responded to with a ToolResultContent item with a
    /// matching toolUseId, and that the user message contains only tool results").
    fn sampling_answered(&mut self, job_id: RequestId, result: Value) {
        let max_rounds = self.config.max_sampling_rounds;
        let Some(job) = self.jobs.get_mut(&job_id) else { return };
        let JobKind::Ask {
            purpose: Purpose::Sampling { messages, with_tools, rounds, unbalanced },
            deferred,
            ..
        } = &mut job.kind
        else {
            return;
        };
        match sampling_step(messages, *with_tools, rounds, *unbalanced, max_rounds, &result) {
            SamplingNext::Ask(params) => {
                *deferred = Some(("sampling/createMessage", params));
                self.send_deferred(&job_id)
            }
            SamplingNext::Done(outcome) => self.finish(job_id, Ok(outcome)),
        }
    }

    fn start_elicitation(&mut self, id: RequestId, args: &Value) {
        let declared = self.client_capability("elicitation").cloned();
        let forced = self.fault == Some(Fault::ElicitationWithoutCapability);
        let Some(modes) = declared.or_else(|| forced.then(|| json!({}))) else {
            let why = "the client did not declare the elicitation capability, so this server may not send \
                       elicitation/create (client/elicitation.mdx)";
            return self.respond(Some(id), Ok(tool_error(why)));
        };
        // elicitation.mdx (2025-11-25): "Servers MUST NOT send elicitation requests with modes
        // that are not supported by the client"; an empty object means form mode only.
        let rev = self.rev();
        let form = rev < Revision::V2025_11_25 || modes.get("form").is_some() || modes.get("url").is_none();
        let message = args.get("message").and_then(Value::as_str).unwrap_or("Please provide your details.");
        if !form && !forced {
            // A client that takes URL mode only is sent to a consent page instead of a form.
            self.next_elicitation += 1;
            let elicitation_id = format!("mcpspec-elicitation-{}", self.next_elicitation);
            let url = match self.fault {
                Some(Fault::ElicitationUrlInvalid) => "the mcpspec consent page".to_owned(),
                _ => format!("https://example.com/mcpspec/consent?elicitation={elicitation_id}"),
            };
            let params =
                json!({ "mode": "url", "message": message, "url": url, "elicitationId": elicitation_id });
            return self.ask(id, Purpose::Elicitation { url_id: Some(elicitation_id) }, Some(params));
        }
        self.ask(id, Purpose::Elicitation { url_id: None }, Some(elicitation_form(message, rev)));
    }

    /// A job's deadline has come.
    fn fire(&mut self, id: RequestId, at: Instant) {
        let fault = self.fault;
        let rev = self.rev();
        let interval = self.config.progress_interval;
        let timeout = self.config.client_request_timeout;
        let operating = self.phase == Phase::Operating;
        let Some(job) = self.jobs.get_mut(&id) else { return };
        job.deadline = None;
        // A stateless request has no session phase: its progress goes out at once.
        let operating = operating || job.modern.is_some();
        match &mut job.kind {
            JobKind::Slow { ms } => {
                let text = format!("slept {ms} ms");
                self.finish(id, Ok(tool_text(&text)));
            }
            JobKind::Progress { done } => {
                *done += 1;
                let done = *done;
                let token = job.progress_token.clone();
                if done < PROGRESS_STEPS {
                    job.deadline = Some(at + interval);
                }
                // progress.mdx: "The progress value MUST increase with each notification".
                let value =
                    if fault == Some(Fault::ProgressDecreasing) { PROGRESS_STEPS + 1 - done } else { done };
                // Only once the session operates: before `initialized` the server sends nothing
                // but pings and logging (lifecycle.mdx), and progress is optional (progress.mdx:
                // the receiver MAY send none).
                if let (Some(token), true) = (&token, operating) {
                    self.notify("notifications/progress", progress_params(rev, token, value, done));
                }
                if done >= PROGRESS_STEPS {
                    self.finish(id, Ok(tool_text("Tool with progress completed")));
                    // progress.mdx: "Progress notifications MUST stop after completion".
                    if let (Some(token), Some(Fault::ProgressAfterResponse)) = (&token, fault) {
                        self.notify(
                            "notifications/progress",
                            progress_params(rev, token, done + 1, done + 1),
                        );
                    }
                }
            }
            JobKind::Ask { purpose, request, .. } => {
                let method = purpose.method();
                if let Some(ours) = request.take() {
                    self.awaiting.remove(&ours);
                    // lifecycle.mdx "Timeouts": the sender "SHOULD issue a cancellation
                    // notification for that request and stop waiting".
                    let reason = format!("no answer within {} ms", timeout.as_millis());
                    self.notify(
                        "notifications/cancelled",
                        json!({ "requestId": ours.to_value(), "reason": reason }),
                    );
                }
                let why = format!("the client did not answer {method} within {} ms", timeout.as_millis());
                self.finish(id, Ok(tool_error(&why)));
            }
            // No deadline: a listen stream lasts until cancelled.
            JobKind::Listen { .. } => {}
        }
    }
}

fn progress_params(rev: Revision, token: &Value, progress: u32, step: u32) -> Value {
    let mut p = json!({ "progressToken": token, "progress": progress, "total": PROGRESS_STEPS });
    // `message` exists from 2025-03-26 (changelog).
    if rev >= Revision::V2025_03_26 {
        p["message"] = format!("step {step} of {PROGRESS_STEPS}").into();
    }
    p
}

/// The one tool `test_sampling` offers the client's model.
fn lookup_tool() -> Value {
    json!({
        "name": "lookup",
        "description": "Looks up the answer to a query.",
        "inputSchema": { "type": "object", "properties": { "query": { "type": "string" } }, "required": ["query"] },
    })
}

fn sampling_params(messages: &[Value], with_tools: bool, forbid_tools: bool) -> Value {
    let mut p = json!({ "messages": messages, "maxTokens": 100 });
    if with_tools {
        p["tools"] = json!([lookup_tool()]);
        p["toolChoice"] = json!({ "mode": if forbid_tools { "none" } else { "auto" } });
    }
    p
}

/// What a sampling tool does next with the model's reply.
pub(super) enum SamplingNext {
    /// Ask the model again with these `sampling/createMessage` params.
    Ask(Value),
    /// The tool's result.
    Done(Value),
}

/// One turn of a sampling tool (legacy requests and MRTR alike): with tools, every `tool_use` is
/// answered in the next user message by a `tool_result` with the matching `toolUseId`, and that
/// message holds nothing else (sampling.mdx, 2025-11-25: "Servers MUST ensure that when replying
/// to a stopReason: "toolUse", each ToolUseContent item is responded to with a ToolResultContent
/// item with a matching toolUseId, and that the user message contains only tool results").
/// `messages` is the conversation so far, `rounds` the requests sent so far; `unbalanced` is the
/// deliberate fault that leaves the tool uses unanswered.
pub(super) fn sampling_step(
    messages: &mut Vec<Value>,
    with_tools: bool,
    rounds: &mut usize,
    unbalanced: bool,
    max_rounds: usize,
    result: &Value,
) -> SamplingNext {
    let max_rounds = max_rounds.max(1);
    let reply = result.get("content").cloned().unwrap_or(Value::Null);
    let blocks: Vec<Value> = match &reply {
        Value::Array(a) => a.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    };
    let uses: Vec<&Value> = blocks.iter().filter(|b| b["type"] == "tool_use").collect();
    if with_tools && !uses.is_empty() {
        if *rounds > max_rounds {
            // The last request forbade tools (toolChoice "none") and the model used them.
            let why = format!("the model still called tools after {max_rounds} tool-enabled rounds");
            return SamplingNext::Done(tool_error(&why));
        }
        if uses.iter().any(|u| !u["id"].is_string()) {
            // A tool_result must name its tool_use; without an id there is nothing to name.
            let why = "the model sent a tool_use without a string id; the tool loop cannot answer it";
            return SamplingNext::Done(tool_error(why));
        }
        let results: Vec<Value> = uses
            .iter()
            .map(|u| {
                let query = u["input"]["query"].as_str().unwrap_or("");
                let known = u["name"] == "lookup";
                let text = if known {
                    format!("lookup({query:?}): the answer is 42")
                } else {
                    format!("there is no tool named {}", u["name"])
                };
                let mut r = json!({ "type": "tool_result", "toolUseId": u["id"].clone(),
                    "content": [{ "type": "text", "text": text }] });
                if !known {
                    r["isError"] = true.into();
                }
                r
            })
            .collect();
        messages.push(json!({ "role": "assistant", "content": reply }));
        let results = match unbalanced {
            true => json!({ "type": "text", "text": "Go on without the tool's result." }),
            false => Value::Array(results),
        };
        messages.push(json!({ "role": "user", "content": results }));
        *rounds += 1;
        let last = *rounds > max_rounds;
        return SamplingNext::Ask(sampling_params(messages, true, last));
    }
    let text: Vec<&str> =
        blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect();
    SamplingNext::Done(tool_text(&format!("LLM response: {}", text.join(" "))))
}

/// The tool result of an answered elicitation.
pub(super) fn elicitation_text(result: &Value) -> String {
    let action = result.get("action").and_then(Value::as_str).unwrap_or("(none)");
    let content = result.get("content").map(Value::to_string).unwrap_or_else(|| "none".into());
    format!("User response: action={action}, content={content}")
}

/// The tool result of an answered `roots/list`.
pub(super) fn roots_text(result: &Value) -> String {
    let uris: Vec<&str> = result
        .get("roots")
        .and_then(Value::as_array)
        .map(|roots| roots.iter().filter_map(|r| r.get("uri")?.as_str()).collect())
        .unwrap_or_default();
    format!("The client has {} root(s): {}", uris.len(), uris.join(", "))
}

/// The form `test_elicitation` asks the user to fill in.
pub(super) fn elicitation_form(message: &str, rev: Revision) -> Value {
    let mut params = json!({
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "username": { "type": "string", "description": "Your username" },
                "email": { "type": "string", "format": "email", "description": "Your email address" },
            },
            "required": ["username"],
        },
    });
    if rev >= Revision::V2025_11_25 {
        params["mode"] = "form".into();
    }
    params
}

fn content(blocks: Vec<Value>) -> Value {
    json!({ "content": blocks, "isError": false })
}

fn tool_text(text: &str) -> Value {
    content(vec![json!({ "type": "text", "text": text })])
}

/// A tool execution error (server/tools.mdx): a result with `isError: true`.
fn tool_error(text: &str) -> Value {
    json!({ "content": [{ "type": "text", "text": text }], "isError": true })
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

/// Runs the server over a byte stream until its input ends, writing one line per message; a
/// tokio sleep wakes it for the server's next deadline. A fault (test peers only) changes what
/// the server decides or what is written.
pub async fn serve_stdio<R, W>(
    server: ReferenceServer,
    fault: Option<Fault>,
    input: R,
    mut output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let fault = fault.or(server.fault);
    let mut server = server.with_fault(fault);
    let line_check = fault.and_then(Fault::line_check);
    let mut fault = fault.map(FaultState::new);
    if let Some(f) = fault.as_mut() {
        f.at_start(&mut output).await?;
    }
    let limit = server.config.max_message_bytes;
    let mut pipe = StdioPipe {
        input,
        output,
        decoder: LineDecoder::new(limit),
        limit,
        buf: vec![0u8; 64 * 1024],
        frames: VecDeque::new(),
        ended: false,
        line_check,
        fatal: None,
        out: Vec::new(),
    };
    drive(&mut server, fault.as_mut(), &mut pipe).await?;
    pipe.flush().await?;
    if let Some(f) = fault.as_mut() {
        f.at_eof().await;
    }
    Ok(())
}

/// Where a served session's messages come from and go to: the lines of a byte stream, or an
/// HTTP session.
pub(crate) trait Pipe {
    /// The next message of the client; `None` once it is gone. Cancel-safe: it races the
    /// server's next deadline.
    async fn next_frame(&mut self) -> std::io::Result<Option<FrameContent>>;

    /// Sends the server's answers to `incoming` (`None`: to the passing of time), through the
    /// fault layer if there is one.
    async fn write(
        &mut self,
        fault: Option<&mut FaultState>,
        incoming: Option<&FrameContent>,
        answers: Vec<Value>,
    ) -> std::io::Result<()>;

    /// Sends what [`Pipe::write`] held back, before the loop waits for more input.
    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The one serving loop of every transport: each frame in goes to the server (or the fault
/// layer) and its answers out; a tokio sleep wakes it for the server's next deadline. Ends when
/// the client is gone.
pub(crate) async fn drive<P: Pipe>(
    server: &mut ReferenceServer,
    mut fault: Option<&mut FaultState>,
    pipe: &mut P,
) -> std::io::Result<()> {
    let now = || tokio::time::Instant::now().into_std();
    loop {
        pipe.flush().await?;
        let deadline = server.next_deadline();
        let wake = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            frame = pipe.next_frame() => {
                let Some(frame) = frame? else { return Ok(()) };
                let answers = match fault.as_deref_mut().map(|f| f.intercept(&frame, |id| server.is_in_flight(id))) {
                    Some(Intercept::Exit(code)) => {
                        eprintln!("fatal: mcpspec fault exits with status {code}");
                        std::process::exit(code);
                    }
                    Some(Intercept::Answer(answers)) => answers,
                    Some(Intercept::Crash(crash)) => match crash.happen().await {},
                    Some(Intercept::Pass) | None => server.on_frame_at(&frame, now()),
                };
                if let Some(crash) = server.take_crash() {
                    match crash.happen().await {}
                }
                pipe.write(fault.as_deref_mut(), Some(&frame), answers).await?;
            }
            () = wake => {
                let answers = server.poll(now());
                pipe.write(fault.as_deref_mut(), None, answers).await?;
            }
        }
    }
}

/// A byte stream of newline-delimited messages.
struct StdioPipe<R, W> {
    input: R,
    output: W,
    decoder: LineDecoder,
    /// The decoder's maximum message size.
    limit: usize,
    buf: Vec<u8>,
    /// Decoded and not yet handed over.
    frames: VecDeque<Frame>,
    /// The input reached its end (the decoder's last, unterminated line is in `frames`).
    ended: bool,
    /// A fault's look at each raw line before it is decoded ([`Fault::line_check`]).
    line_check: Option<LineCheck>,
    /// The line check went off: once the lines before that one are handed over, the process
    /// dies; nothing after it is decoded.
    fatal: Option<Crash>,
    /// Answers not yet written: the answers to all the lines one read brought in go out in one
    /// write, once they are handled (a write per answer costs a system call each, and on
    /// tokio's stdout a trip through its blocking pool).
    out: Vec<u8>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Pipe for StdioPipe<R, W> {
    async fn next_frame(&mut self) -> std::io::Result<Option<FrameContent>> {
        loop {
            if let Some(frame) = self.frames.pop_front() {
                return Ok(Some(frame.content));
            }
            if let Some(crash) = self.fatal.take() {
                match crash.happen().await {}
            }
            if self.ended {
                return Ok(None);
            }
            // The only await: cancelling it loses nothing, decoding below runs to completion.
            let n = self.input.read(&mut self.buf).await?;
            if n == 0 {
                self.ended = true;
                self.frames.extend(self.decoder.finish());
                continue;
            }
            let Some(check) = self.line_check else {
                let mut frames = Vec::new();
                self.decoder.push(&self.buf[..n], &mut frames);
                self.frames.extend(frames);
                continue;
            };
            let (limit, frames, fatal) = (self.limit, &mut self.frames, &mut self.fatal);
            self.decoder.cut(&self.buf[..n], |line, raw| {
                if fatal.is_some() {
                    return;
                }
                if let RawLine::Line(bytes) = raw {
                    *fatal = check(bytes);
                }
                if fatal.is_none() {
                    frames.push_back(Frame { line, content: raw.decode(limit) });
                }
            });
        }
    }

    async fn write(
        &mut self,
        fault: Option<&mut FaultState>,
        incoming: Option<&FrameContent>,
        answers: Vec<Value>,
    ) -> std::io::Result<()> {
        if answers.is_empty() && fault.is_none() {
            return Ok(());
        }
        let bytes = match fault {
            Some(f) => f.outgoing(incoming, answers),
            None => answers.iter().flat_map(framing::encode).collect(),
        };
        self.out.extend_from_slice(&bytes);
        // Time-driven answers (progress, a slow tool's result) and faults that write on their
        // own schedule go out now; answers to input wait for the lines read with it.
        if incoming.is_none() || self.frames.is_empty() || self.out.len() >= 64 * 1024 {
            self.flush().await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        if !self.out.is_empty() {
            let out = std::mem::take(&mut self.out);
            self.output.write_all(&out).await?;
            self.output.flush().await?;
            self.out = out;
            self.out.clear();
        }
        Ok(())
    }
}
