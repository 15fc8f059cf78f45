//! The reference MCP client: a sans-IO state machine ([`ReferenceClient`]) that initializes
//! (offering its latest revision, accepting a counter-offer it supports, disconnecting
//! otherwise), confirms with `notifications/initialized`, lists the tools page by page (each
//! `nextCursor` sent back unchanged), calls one, and is then done; requests from the server are
//! answered by the [`ClientPersona`] per the capabilities it declared. [`run_stdio`] drives it
//! against a server process, [`run_http`] against a server over HTTP. [`ClientFault`]s inject
//! deliberate defects for mcpspec's own tests.
//!
//! The persona (`persona.rs`) is also what the harness plays towards a server under test; the
//! faults live in `faults.rs`, the HTTP driver in `http.rs`.

pub mod auth;
mod faults;
mod http;
mod modern;
mod persona;
mod planted;
mod tasks;

pub use faults::ClientFault;
pub use http::run_http;
pub use modern::{scenario_tool, CACHING_SCENARIO, MAX_MRTR_ROUNDS, SCENARIO_TOOLS};
pub use persona::{ClientPersona, ROOT_URI};
pub use tasks::{
    CANCEL_SCENARIO, LIST_SCENARIO, REQUIRED_TOOL_SCENARIO, RESULT_SCENARIO, UNDECLARED_SCENARIO,
};

use crate::transport::{ChildOptions, ChildTransport, CommandSpec, RecvError};
use mcpspec_protocol::elicitation;
use mcpspec_protocol::sampling::tool_balance_violations;
use mcpspec_protocol::wire::{ErrorObject, Message, Outcome, RequestId};
use mcpspec_protocol::Revision;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

/// The scenario in which the reference client cancels its tool call.
pub const LATE_RESPONSE_SCENARIO: &str = "client-cancellation/late-response";

/// The scenario in which the reference client's user opens a second folder once the server has
/// listed the roots: its roots change, and it says so (client/roots.mdx#root-list-changes).
pub const ROOTS_CHANGE_SCENARIO: &str = "client-roots/list-changed";

/// The root the user opens in [`ROOTS_CHANGE_SCENARIO`].
const SECOND_ROOT_URI: &str = "file:///tmp/mcpspec/second";

/// Replaces `answer` with a sampled message of plain `text` (what the sampling faults answer
/// instead of the persona).
fn text_reply(answer: &mut Value, text: &str) {
    let reply = json!({
        "role": "assistant",
        "content": { "type": "text", "text": text },
        "model": "mcpspec-scripted",
        "stopReason": "endTurn",
    });
    let id = answer.get("id").cloned().unwrap_or(Value::Null);
    *answer = json!({ "jsonrpc": "2.0", "id": id, "result": reply });
}

fn cancel(id: &RequestId, reason: &str) -> Value {
    Message::notification(
        "notifications/cancelled",
        Some(json!({ "requestId": id.to_value(), "reason": reason })),
    )
    .to_value()
}

/// Where the client is in its session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// Modern era: the `server/discover` probe sent, its answer awaited (an error that is not a
    /// modern one, or no answer, makes the client fall back to `initialize`).
    Discovering,
    /// `initialize` sent, its answer awaited.
    Initializing,
    /// Listing tools.
    Listing,
    /// A tool call awaits its answer.
    Calling,
    /// The tool call was cancelled; a ping of the client's own confirms the server still
    /// answers before the client is done.
    Cancelled,
    /// Finished: the driver closes the server's stdin.
    Done,
    /// Disconnected because the server could not be used (the reason).
    Gave(String),
}

/// The reference client's logic, without I/O.
#[derive(Debug)]
pub struct ReferenceClient {
    supported: Vec<Revision>,
    fault: Option<ClientFault>,
    /// The `capabilities` sent in `initialize` (what the persona can do, unless a fault hides
    /// some of it).
    declared: Value,
    persona: ClientPersona,
    phase: Phase,
    next_id: i64,
    outstanding: HashMap<RequestId, &'static str>,
    /// Requests the client cancelled: a response to one is ignored.
    cancelled: Vec<RequestId>,
    /// Cancel the tool call right after sending it (the `client-cancellation/late-response`
    /// scenario asks for this by name).
    cancel_call: bool,
    /// The last `nextCursor` followed.
    last_cursor: Option<Value>,
    /// How many tools the first page of the tool list held.
    first_page: Option<usize>,
    tools: Vec<Value>,
    /// The revision negotiated (modern era: the revision of the version in force, once the
    /// probe or a first request succeeded).
    pub revision: Option<Revision>,
    /// The modern era's state, while the client speaks it (`None` in the legacy era, and after
    /// falling back to `initialize`).
    modern: Option<modern::ModernState>,
    /// The scenario named by `MCP_CONFORMANCE_SCENARIO`, if any.
    scenario: Option<String>,
    /// The user opened the second folder of [`ROOTS_CHANGE_SCENARIO`].
    roots_changed: bool,
    /// The ids of the requests sent in the modern era (bounded): after a fall back to
    /// `initialize`, their late answers or failures are no concern of the legacy session.
    modern_ids: Vec<RequestId>,
    /// How a planted bug (a `fuzz-` fault) ends the process, once it tripped.
    crash: Option<crate::faults::injection::Crash>,
    /// URLs to fetch before the next answers go out ([`take_fetches`](Self::take_fetches)).
    fetches: Vec<String>,
    /// The capabilities the server declared in its `initialize` result.
    server_capabilities: Option<Value>,
    /// The tool call made as a task, and the task it created (`tasks.rs`).
    task: Option<tasks::TaskCall>,
}

impl ReferenceClient {
    /// A client speaking `supported` (every legacy revision when empty).
    pub fn new(supported: Vec<Revision>, fault: Option<ClientFault>) -> Self {
        let supported = if supported.is_empty() { Revision::LEGACY.to_vec() } else { supported };
        let offer = supported
            .iter()
            .filter(|r| r.era() == mcpspec_protocol::revision::Era::Legacy)
            .max()
            .copied()
            .unwrap_or_else(Revision::latest_legacy);
        ReferenceClient {
            supported,
            fault,
            declared: declared_at(fault, offer),
            persona: ClientPersona::new(persona_capabilities(fault, offer)),
            phase: Phase::Initializing,
            next_id: 1,
            outstanding: HashMap::new(),
            cancelled: Vec::new(),
            cancel_call: false,
            last_cursor: None,
            first_page: None,
            tools: Vec::new(),
            revision: None,
            modern: None,
            scenario: None,
            roots_changed: false,
            modern_ids: Vec::new(),
            crash: None,
            fetches: Vec::new(),
            server_capabilities: None,
            task: None,
        }
    }

    /// How a planted bug ends the process, once one tripped (taken once).
    pub(crate) fn take_crash(&mut self) -> Option<crate::faults::injection::Crash> {
        self.crash.take()
    }

    /// URLs the client fetches before its next answers go out (a fault's link preview); the
    /// runner fetches them, as the sans-IO client cannot.
    pub(crate) fn take_fetches(&mut self) -> Vec<String> {
        std::mem::take(&mut self.fetches)
    }

    /// Opts into what scenario `name` (from `MCP_CONFORMANCE_SCENARIO`) asks of a client
    /// beyond the plain session; every other scenario gets the plain session.
    pub fn for_scenario(mut self, name: Option<&str>) -> Self {
        self.cancel_call = name == Some(LATE_RESPONSE_SCENARIO);
        self.scenario = name.map(str::to_owned);
        self
    }

    /// What the roots faults do to a `roots/list` result (either era).
    pub(crate) fn roots_fault(&self, result: &mut Value) {
        match self.fault {
            Some(ClientFault::RootsNotFile) => {
                result["roots"] = json!([{ "uri": "https://example.com/project" }])
            }
            Some(ClientFault::RootsTraversal) => {
                result["roots"] =
                    json!([{ "uri": "file:///tmp/mcpspec/project/../secrets", "name": "project" }])
            }
            _ => {}
        }
    }

    /// In [`ROOTS_CHANGE_SCENARIO`], once the server has listed the roots the first time: the
    /// user opens a second folder, and a client that declared `roots.listChanged` notifies the
    /// server (what it sends; the roots-changed-silently fault sends nothing).
    fn roots_change(&mut self) -> Vec<Value> {
        if self.scenario.as_deref() != Some(ROOTS_CHANGE_SCENARIO) || self.roots_changed {
            return Vec::new();
        }
        self.roots_changed = true;
        self.persona.add_root(SECOND_ROOT_URI, "second");
        let declared = mcpspec_protocol::capabilities::declares(&self.declared, "roots.listChanged");
        match declared && self.fault != Some(ClientFault::RootsChangedSilently) {
            true => vec![Message::notification("notifications/roots/list_changed", None).to_value()],
            false => Vec::new(),
        }
    }

    /// Whether `id` was a request of the modern era (before a fall back to `initialize`).
    pub fn sent_in_modern_era(&self, id: &RequestId) -> bool {
        self.modern_ids.contains(id)
    }

    /// Whether the client speaks the modern era now (it has not fallen back to `initialize`).
    pub fn is_modern(&self) -> bool {
        self.modern.is_some()
    }

    pub fn phase(&self) -> &Phase {
        &self.phase
    }

    /// Whether the client has finished (done, or gave up).
    pub fn finished(&self) -> bool {
        matches!(self.phase, Phase::Done | Phase::Gave(_))
    }

    fn request(&mut self, method: &'static str, params: Option<Value>) -> Value {
        let id = RequestId::from(self.next_id);
        if self.fault != Some(ClientFault::ReuseIds) {
            self.next_id += 1;
        }
        self.outstanding.insert(id.clone(), method);
        Message::request(id, method, params).to_value()
    }

    /// The first messages: with a modern revision among those it supports, the
    /// `server/discover` probe (`basic/transports/stdio.mdx#backward-compatibility`: a dual-era
    /// client SHOULD probe before any other request); else `initialize` (offering the latest
    /// supported revision).
    pub fn start(&mut self) -> Vec<Value> {
        if let Some(out) = self.start_modern() {
            return out;
        }
        self.start_legacy()
    }

    /// `initialize`, offering the latest supported legacy revision.
    fn start_legacy(&mut self) -> Vec<Value> {
        self.phase = Phase::Initializing;
        let mut out = Vec::new();
        if self.fault == Some(ClientFault::RequestBeforeInitialize) {
            out.push(self.request("tools/list", None));
        }
        let legacy = self.supported.iter().filter(|r| r.era() == mcpspec_protocol::revision::Era::Legacy);
        let offer = match self.fault {
            Some(ClientFault::OfferOldest) => legacy.min(),
            _ => legacy.max(),
        };
        let offer = offer.copied().unwrap_or_else(Revision::latest_legacy);
        let params = json!({
            "protocolVersion": offer.as_str(),
            "capabilities": self.declared.clone(),
            "clientInfo": { "name": "mcpspec-reference-client", "version": env!("CARGO_PKG_VERSION") },
        });
        let initialize = self.request("initialize", Some(params));
        match self.fault {
            // A batch of one: the initialize inside it (2025-03-26 has batches; initialize may
            // not be in one).
            Some(ClientFault::InitializeBatched) => out.push(Value::Array(vec![initialize])),
            _ => out.push(initialize),
        }
        if self.fault == Some(ClientFault::CancelInitialize) {
            out.push(cancel(&RequestId::from(self.next_id - 1), "cancel-initialize fault"));
        }
        if self.fault == Some(ClientFault::EarlyInitialized) {
            out.push(Message::notification("notifications/initialized", None).to_value());
        }
        out
    }

    /// What the client sends in answer to one message from the server.
    pub fn on_message(&mut self, value: &Value) -> Vec<Value> {
        self.on_message_at(value, std::time::Instant::now())
    }

    /// [`on_message`](Self::on_message) at time `now` (the time a cacheable result is fresh
    /// from, in the modern era).
    pub fn on_message_at(&mut self, value: &Value, now: std::time::Instant) -> Vec<Value> {
        if let Some(fault) = self.fault {
            let known = |id: &RequestId| self.outstanding.contains_key(id) || self.cancelled.contains(id);
            if let Some(crash) = planted::trips(fault, value, known) {
                self.crash = Some(crash);
                return Vec::new();
            }
        }
        if self.fault == Some(ClientFault::FetchesSchemaRefs) {
            self.fetches.extend(network_refs(value.pointer("/result/tools").unwrap_or(&Value::Null)));
        }
        if self.modern.is_some() {
            return self.on_modern_message(value, now);
        }
        let Ok(message) = Message::from_value(value) else { return Vec::new() };
        match message {
            Message::Request(r) => {
                if self.fault == Some(ClientFault::IgnoreRequests) {
                    return Vec::new();
                }
                let mut answer = self.persona.answer(&r).to_value();
                if self.fault == Some(ClientFault::FuzzDoubleAnswer) && r.method == "ping" {
                    return vec![answer.clone(), answer];
                }
                let mut out = Vec::new();
                if r.method == "roots/list" {
                    if let Some(result) = answer.get_mut("result") {
                        self.roots_fault(result);
                    }
                    out = self.roots_change();
                }
                if self.fault == Some(ClientFault::SamplingWithoutModel) {
                    if let Some(result) = answer.get_mut("result").and_then(Value::as_object_mut) {
                        result.remove("model");
                    }
                }
                let params = r.params.clone().unwrap_or(Value::Null);
                match r.method.as_str() {
                    "sampling/createMessage" => self.sampling_fault(&params, &mut answer),
                    "elicitation/create" => self.elicitation_fault(&params, &mut answer),
                    _ => {}
                }
                out.insert(0, answer);
                out
            }
            Message::Notification(n) => {
                if n.method == "notifications/tasks/status" {
                    return self.on_task_status(&n);
                }
                if n.method == "notifications/cancelled" && self.fault == Some(ClientFault::ExitOnCancel) {
                    self.phase = Phase::Gave("exit-on-cancel: the server cancelled a request".into());
                }
                // elicitation.mdx: a completion for an elicitation the client does not know is
                // ignored; the fault gives up the session instead.
                if n.method == "notifications/elicitation/complete"
                    && self.fault == Some(ClientFault::ExitOnUnknownElicitationComplete)
                {
                    self.phase = Phase::Gave("exit-on-unknown-elicitation-complete".into());
                }
                Vec::new()
            }
            Message::Response(r) => {
                let answered = r.id.clone();
                let Some(method) = r.id.as_ref().and_then(|id| self.outstanding.remove(id)) else {
                    // cancellation.mdx: a response to a cancelled request is ignored.
                    let late = r.id.as_ref().filter(|id| self.cancelled.contains(id));
                    return match (late, self.fault) {
                        (Some(id), Some(ClientFault::LateResponseError)) => vec![Message::error(
                            Some(id.clone()),
                            ErrorObject::new(-32603, "a response to a cancelled request"),
                        )
                        .to_value()],
                        _ => Vec::new(),
                    };
                };
                let result = match r.outcome {
                    Outcome::Result(v) => v,
                    Outcome::Error(e) => {
                        self.phase = Phase::Gave(format!("{method} failed: {} {}", e.code, e.message));
                        return Vec::new();
                    }
                };
                match method {
                    "initialize" => self.on_initialized(&result),
                    "tools/list" if self.phase == Phase::Listing => self.on_tools(&result),
                    "tools/call" => match &answered {
                        Some(call) => self.on_call_answered(call, &result),
                        None => Vec::new(),
                    },
                    "tasks/get" | "tasks/result" | "tasks/cancel" | "tasks/list" => {
                        self.on_task_answer(method, &result)
                    }
                    "ping" if self.phase == Phase::Cancelled => {
                        self.phase = Phase::Done;
                        Vec::new()
                    }
                    _ => Vec::new(),
                }
            }
        }
    }

    /// The sampling faults: samples from a request the persona rejected as unbalanced (each
    /// fault only for its own kind of imbalance), ignores `toolChoice`, or drops `stopReason`.
    /// `answer` is the persona's JSON-RPC response (in the modern era, the input response is
    /// taken from it).
    pub(super) fn sampling_fault(&self, params: &Value, answer: &mut Value) {
        let broken = tool_balance_violations(params);
        let kind = if broken.iter().any(|b| b.contains("did not make")) {
            Some(ClientFault::SamplingAcceptsUnknownToolUseId)
        } else if broken.iter().any(|b| b.contains("mixes")) {
            Some(ClientFault::SamplingAcceptsMixedToolResults)
        } else if !broken.is_empty() {
            Some(ClientFault::SamplingAcceptsUnbalanced)
        } else {
            None
        };
        if kind.is_some() && kind == self.fault {
            text_reply(answer, "mcpspec sampled it anyway");
        }
        let choice = params.pointer("/toolChoice/mode").and_then(Value::as_str);
        if self.fault == Some(ClientFault::SamplingIgnoresRequired) && choice == Some("required") {
            text_reply(answer, "mcpspec answered without the required tool");
        }
        // toolChoice "none" read as "auto": the scripted model uses the first tool offered.
        if self.fault == Some(ClientFault::SamplingIgnoresNone) && choice == Some("none") {
            let mut auto = params.clone();
            auto["toolChoice"] = json!({ "mode": "auto" });
            if let Ok(result) = self.persona.sample(&auto) {
                answer["result"] = result;
            }
        }
        // Tools offered to a client that did not declare sampling.tools: the fault samples in
        // text instead of answering with the error the persona gives.
        if self.fault == Some(ClientFault::SamplingToolsIgnored) && params.get("tools").is_some() {
            text_reply(answer, "mcpspec sampled it without its tools");
        }
        if self.fault == Some(ClientFault::SamplingWithoutStopReason) {
            if let Some(result) = answer.get_mut("result").and_then(Value::as_object_mut) {
                result.remove("stopReason");
            }
        }
    }

    /// The elicitation faults: off-schema content, defaults left out, an undeclared mode
    /// accepted, a request without `mode` refused.
    pub(super) fn elicitation_fault(&mut self, params: &Value, answer: &mut Value) {
        let schema = params.get("requestedSchema").cloned().unwrap_or(Value::Null);
        match self.fault {
            Some(ClientFault::ElicitContentOffSchema) => {
                // Each value swapped for one of another primitive type; the ElicitResult schema
                // still holds (string, integer or boolean), the requested schema does not.
                if let Some(content) = answer.pointer_mut("/result/content").and_then(Value::as_object_mut) {
                    for v in content.values_mut() {
                        *v = match v {
                            Value::String(_) => json!(0),
                            _ => json!("off-schema"),
                        };
                    }
                }
            }
            Some(ClientFault::ElicitIgnoresDefaults) => {
                let required = schema.get("required").cloned().unwrap_or(json!([]));
                if let Some(content) = answer.pointer_mut("/result/content").and_then(Value::as_object_mut) {
                    content.retain(|name, _| {
                        let defaulted = schema
                            .get("properties")
                            .and_then(|p| p.get(name.as_str()))
                            .is_some_and(|p| p.get("default").is_some());
                        !defaulted || required.as_array().is_some_and(|r| r.iter().any(|n| n == name))
                    });
                }
            }
            Some(ClientFault::ElicitPrefetchUrl) if elicitation::mode(params) == "url" => {
                if let Some(url) = params.get("url").and_then(Value::as_str) {
                    self.fetches.push(url.to_owned());
                }
                if let Some(result) = answer.get_mut("result") {
                    *result = json!({ "action": "decline" });
                }
            }
            Some(ClientFault::ElicitUnknownDialect)
                if answer.get("error").is_some()
                    && mcpspec_protocol::dialect::unsupported_dialect(&schema).is_some() =>
            {
                let id = answer.get("id").cloned().unwrap_or(Value::Null);
                let content = mcpspec_protocol::arguments::example_object(&schema);
                *answer = json!({ "jsonrpc": "2.0", "id": id, "result": { "action": "accept", "content": content } });
            }
            Some(ClientFault::ElicitUndeclaredMode) if elicitation::mode(params) == "url" => {
                let id = answer.get("id").cloned().unwrap_or(Value::Null);
                *answer = json!({ "jsonrpc": "2.0", "id": id, "result": { "action": "accept" } });
            }
            Some(ClientFault::ElicitModeRequired) if params.get("mode").is_none() => {
                let id = RequestId::from_value(answer.get("id").unwrap_or(&Value::Null));
                let error = ErrorObject::new(ErrorObject::INVALID_PARAMS, "Invalid params: mode is required");
                *answer = Message::error(id, error).to_value();
            }
            _ => {}
        }
    }

    /// Whether a page of `len` tools with `nextCursor` `cursor` has a next page
    /// (pagination.mdx: any cursor given means more results, an empty string too, however
    /// short the page; the server picks the page size). The pagination faults judge otherwise.
    fn follows(&mut self, cursor: &Value, len: usize) -> bool {
        let first = *self.first_page.get_or_insert(len);
        match self.fault {
            _ if cursor.is_null() => false,
            Some(ClientFault::EmptyCursorEnds) => cursor != "",
            Some(ClientFault::PageSizeAssumed) => len >= first,
            _ => true,
        }
    }

    fn on_initialized(&mut self, result: &Value) -> Vec<Value> {
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        let offered_unsupported = |r: &Revision| {
            self.fault == Some(ClientFault::OfferUnsupported) && *r == Revision::latest_legacy()
        };
        let revision = version
            .parse::<Revision>()
            .ok()
            .filter(|r| self.supported.contains(r) && !offered_unsupported(r));
        let revision = match (revision, self.fault) {
            (Some(r), _) => r,
            (None, Some(ClientFault::AcceptAnyVersion)) => Revision::latest_legacy(),
            (None, _) => {
                // lifecycle.mdx: a client that does not support the server's version SHOULD
                // disconnect.
                self.phase = Phase::Gave(format!("the server counter-offered {version:?}, not supported"));
                return Vec::new();
            }
        };
        self.revision = Some(revision);
        self.server_capabilities = result.get("capabilities").cloned();
        let mut out = Vec::new();
        if !matches!(self.fault, Some(ClientFault::SkipInitialized | ClientFault::EarlyInitialized)) {
            out.push(Message::notification("notifications/initialized", None).to_value());
        }
        if self.fault == Some(ClientFault::NullId) {
            out.push(json!({ "jsonrpc": "2.0", "id": null, "method": "ping" }));
        }
        if self.fault == Some(ClientFault::RootsChangedUndeclared) {
            out.push(Message::notification("notifications/roots/list_changed", None).to_value());
        }
        if self.fault == Some(ClientFault::CancelUnissued) {
            out.push(cancel(&RequestId::from("never-sent"), "cancel-unissued fault"));
        }
        if self.fault == Some(ClientFault::CancelWithoutRequestId) {
            let params = json!({ "reason": "cancel-without-request-id fault" });
            out.push(Message::notification("notifications/cancelled", Some(params)).to_value());
        }
        // lifecycle.mdx#operation: only capabilities the server declared are used.
        let has_tools = result.pointer("/capabilities/tools").is_some()
            || self.fault == Some(ClientFault::UndeclaredRequests);
        if has_tools {
            self.phase = Phase::Listing;
            out.push(self.request("tools/list", None));
        } else {
            self.phase = Phase::Done;
        }
        out
    }

    fn on_tools(&mut self, result: &Value) -> Vec<Value> {
        let page = result.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
        let len = page.len();
        self.tools.extend(page);
        // pagination.mdx: the cursor is opaque; it goes back exactly as received.
        if let Some(cursor) = result.get("nextCursor").filter(|c| self.follows(c, len)).cloned() {
            if self.tools.len() < 10_000 {
                self.last_cursor = Some(cursor.clone());
                let cursor = match (self.fault, cursor) {
                    (Some(ClientFault::CursorAltered), Value::String(c)) => {
                        Value::String(c.replace(' ', "%20").replace('/', "%2F") + "=")
                    }
                    (_, cursor) => cursor,
                };
                return vec![self.request("tools/list", Some(json!({ "cursor": cursor })))];
            }
        }
        if self.fault == Some(ClientFault::PagesPastEnd) {
            if let Some(cursor) = self.last_cursor.take() {
                return vec![self.request("tools/list", Some(json!({ "cursor": cursor })))];
            }
        }
        if let Some(out) = self.scenario_call() {
            return out;
        }
        // The first tool that needs no arguments.
        let tool = self.tools.iter().find(|t| {
            t.pointer("/inputSchema/required").and_then(Value::as_array).is_none_or(|r| r.is_empty())
        });
        match tool.filter(|t| t.get("name").is_some()).cloned() {
            Some(tool) => {
                self.phase = Phase::Calling;
                // progress.mdx: the token is unique among the client's active requests.
                let token = format!("progress-{}", self.next_id);
                let mut params = self.call_params(&tool, json!({}));
                params["_meta"] = json!({ "progressToken": token });
                let mut out = vec![self.request("tools/call", Some(params))];
                let call = RequestId::from(self.next_id - 1);
                if self.fault == Some(ClientFault::ReuseProgressToken) {
                    out.push(self.request("ping", Some(json!({ "_meta": { "progressToken": token } }))));
                }
                if self.cancel_call {
                    self.outstanding.remove(&call);
                    out.push(cancel(&call, "the scenario asks the client to cancel its tool call"));
                    self.cancelled.push(call);
                    self.phase = Phase::Cancelled;
                    out.push(self.request("ping", None));
                }
                out
            }
            None => {
                self.phase = Phase::Done;
                Vec::new()
            }
        }
    }
}

/// The revisions the reference client speaks: `revisions` when given; else every legacy
/// revision, plus the modern one `asked` names (`MCP_CONFORMANCE_PROTOCOL_VERSION`), which makes
/// it a dual-era client that probes first; else empty (every legacy revision, see
/// [`ReferenceClient::new`]). Without being asked, it stays a legacy client, as mcpspec's own
/// tests and users have known it.
pub fn supported_for(revisions: Vec<Revision>, asked: Option<&str>) -> Vec<Revision> {
    if !revisions.is_empty() {
        return revisions;
    }
    match asked
        .and_then(|a| a.parse::<Revision>().ok())
        .filter(|r| r.era() == mcpspec_protocol::revision::Era::Modern)
    {
        Some(modern) => Revision::LEGACY.iter().copied().chain([modern]).collect(),
        None => Vec::new(),
    }
}

/// What the reference client declares when it offers `revision`: roots and sampling always;
/// elicitation from 2025-06-18 (form mode only, `{}`, as that revision knows no modes); from
/// 2025-11-25, tool use in sampling and both elicitation modes.
pub fn capabilities_at(revision: Revision) -> Value {
    let mut caps = json!({ "roots": { "listChanged": true }, "sampling": {} });
    if revision >= Revision::V2025_06_18 {
        caps["elicitation"] = json!({});
    }
    if revision >= Revision::V2025_11_25 {
        caps["sampling"] = json!({ "tools": {} });
        caps["elicitation"] = json!({ "form": {}, "url": {} });
    }
    if revision.era() == mcpspec_protocol::revision::Era::Modern {
        // 2026-07-28 `ClientCapabilities.roots` is `{}`: roots/list_changed is gone.
        caps["roots"] = json!({});
    }
    caps
}

/// What the client can do at `revision` (its persona), less what a fault takes away.
fn persona_capabilities(fault: Option<ClientFault>, revision: Revision) -> Value {
    match fault {
        Some(ClientFault::DeclareNothing) => json!({}),
        Some(ClientFault::RootsChangedUndeclared) => json!({ "roots": {}, "sampling": {} }),
        Some(ClientFault::SamplingToolsIgnored | ClientFault::SamplingNoTools) => {
            let mut c = capabilities_at(revision);
            c["sampling"] = json!({});
            c
        }
        _ => capabilities_at(revision),
    }
}

/// What the client declares at `revision` (in `initialize`, or in the modern era's `_meta`):
/// what its persona can do, as the declaration faults misstate it.
pub(super) fn declared_at(fault: Option<ClientFault>, revision: Revision) -> Value {
    let mut declared = persona_capabilities(fault, revision);
    match fault {
        Some(ClientFault::SamplingToolsUndeclared) => declared["sampling"] = json!({}),
        Some(ClientFault::ElicitUndeclaredMode) => declared["elicitation"] = json!({ "form": {} }),
        Some(ClientFault::ElicitNoMode) => declared["elicitation"] = json!({ "forms": {} }),
        // The persona keeps everything it can do; only the declaration is gone.
        Some(ClientFault::AnswerUndeclared) => declared = json!({}),
        _ => {}
    }
    declared
}

/// How late the answer-after-cancel fault answers the server's requests.
const PONDER: Duration = Duration::from_secs(1);

/// The network URIs `$ref`s in `value` name (the fault `fetches-schema-refs`), at most 8.
fn network_refs(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                if let Some(Value::String(r)) = m.get("$ref") {
                    if (r.starts_with("http://") || r.starts_with("https://")) && out.len() < 8 {
                        out.push(r.clone());
                    }
                }
                stack.extend(m.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    out
}

/// GETs each URL (a fault's link preview), each bounded by two seconds; what comes back is not
/// looked at.
pub(crate) async fn fetch_all(urls: Vec<String>) {
    if urls.is_empty() {
        return;
    }
    let Ok(http) = crate::transport::http_client::client_builder().timeout(Duration::from_secs(2)).build()
    else {
        return;
    };
    for url in urls {
        let _ = http.get(&url).send().await;
    }
}

/// Runs the reference client against the server `command`: initializes, lists, calls, then
/// closes the server's stdin and waits for it to exit. Each wait is bounded by `timeout`.
/// Returns why the session ended early, if it did.
pub async fn run_stdio(
    command: &CommandSpec,
    supported: Vec<Revision>,
    scenario: Option<&str>,
    fault: Option<ClientFault>,
    timeout: Duration,
) -> Result<(), String> {
    if fault == Some(ClientFault::ExitEarly) {
        return Err("exit-early: the server was never started".into());
    }
    match fault {
        Some(ClientFault::ExitAtOnce) => std::process::exit(0),
        Some(ClientFault::AnswerLate) => tokio::time::sleep(Duration::from_secs(600)).await,
        Some(ClientFault::SetsidGrandchild) => {
            let _ = crate::faults::injection::spawn_pipe_holder(true);
            eprintln!("fatal: mcpspec client fault 'setsid-grandchild'");
            std::process::exit(1);
        }
        _ => {}
    }
    let options = ChildOptions { write_timeout: timeout, ..ChildOptions::default() };
    let mut server = ChildTransport::spawn(command, options).map_err(|e| e.to_string())?;
    let garbage: Option<Vec<u8>> = match fault {
        Some(ClientFault::EndlessLine) => Some(vec![b'x'; 1 << 20]),
        Some(ClientFault::NotificationFlood) => {
            let line = br#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#;
            Some([&line[..], b"\n"].concat().repeat(64))
        }
        Some(ClientFault::InvalidUtf8) => Some(b"{\"jsonrpc\":\"2.0\",\"method\":\"\x80\xff\"}\n".repeat(64)),
        _ => None,
    };
    if let Some(chunk) = garbage {
        // Until the write fails (the server stops reading, or mcpspec ends the client); the
        // endless line stops at 1 GiB. Then the client lives on, reading nothing.
        let mut written = 0usize;
        while written < 1 << 30 && server.send_bytes(&chunk).await.is_ok() {
            if fault != Some(ClientFault::EndlessLine) {
                continue;
            }
            written += chunk.len();
        }
        crate::faults::injection::live_on();
    }
    let mut client = ReferenceClient::new(supported, fault).for_scenario(scenario);
    let mut outcome = Ok(());
    let mut out = client.start();
    // The answer-after-cancel fault's answers, each with when it is sent.
    let mut pondering: std::collections::VecDeque<(tokio::time::Instant, Vec<Value>)> = Default::default();
    if fault == Some(ClientFault::Silent) {
        out.clear();
    }
    loop {
        for value in out.drain(..) {
            if let Err(e) = server.send(&value).await {
                outcome = Err(format!("cannot write to the server: {e}"));
            }
        }
        // A pondered answer is still sent before the client is done.
        if outcome.is_err() || (client.finished() && pondering.is_empty()) {
            break;
        }
        if fault == Some(ClientFault::Flood) {
            // Until the write fails: the server stops reading, or mcpspec ends the client.
            let line = b"flood flood flood flood flood flood flood flood flood flood\n";
            while server.send_bytes(line).await.is_ok() {}
            return Err("flood: writing failed".into());
        }
        let due = pondering.front().map(|(at, _)| *at);
        let wait = due.map_or(timeout, |at| at.saturating_duration_since(tokio::time::Instant::now()));
        match server.recv(wait).await {
            Ok(frame) => {
                // A line nested past serde_json's own recursion limit is no value to look at:
                // a recursive parser would have overflowed its stack on it all the same.
                if let mcpspec_protocol::framing::FrameContent::Invalid(e) = &frame.content {
                    if fault == Some(ClientFault::FuzzCrashDeepNesting)
                        && e.to_string().contains("recursion limit")
                    {
                        match crate::faults::injection::Crash::StackOverflow.happen().await {}
                    }
                }
                if let mcpspec_protocol::framing::FrameContent::Json { value, .. } = &frame.content {
                    let values = match value {
                        Value::Array(items) => items.clone(),
                        other => vec![other.clone()],
                    };
                    for v in &values {
                        let answers = client.on_message(v);
                        if let Some(crash) = client.take_crash() {
                            match crash.happen().await {}
                        }
                        fetch_all(client.take_fetches()).await;
                        let ponders = fault == Some(ClientFault::AnswerAfterCancel)
                            && v.get("id").is_some()
                            && v.get("method").is_some_and(|m| m != "ping");
                        match ponders {
                            true => pondering.push_back((tokio::time::Instant::now() + PONDER, answers)),
                            false => out.extend(answers),
                        }
                    }
                }
            }
            Err(RecvError::Timeout(_)) if due.is_some() => {
                // The pondered answer is sent, cancelled or not (the fault).
                if let Some((_, answers)) = pondering.pop_front() {
                    out.extend(answers);
                }
            }
            Err(RecvError::Timeout(_)) if client.probing().is_some() => {
                // stdio.mdx#backward-compatibility: a probe unanswered within a reasonable
                // timeout means a legacy server: fall back to initialize.
                let probe: Vec<RequestId> = client.probing().into_iter().collect();
                out.extend(client.on_no_answer(&probe));
            }
            Err(RecvError::Timeout(t)) => {
                outcome = Err(format!("the server sent nothing for {t:?} ({:?})", client.phase()));
                break;
            }
            Err(RecvError::Closed) => {
                outcome = Err(format!("the server closed its stdout ({:?})", client.phase()));
                break;
            }
        }
    }
    if let Phase::Gave(why) = client.phase() {
        outcome = Err(why.clone());
    }
    if fault == Some(ClientFault::ExitHoldingStdin) {
        // A process of the client's inherits the server's stdin and outlives it: the pipe
        // closes only when that process exits. The client exits at once, with no destructor
        // run (they would end the server).
        if let Some(fd) = server.stdin_fd().and_then(|fd| fd.try_clone_to_owned().ok()) {
            let _ = std::process::Command::new("sleep")
                .arg("1.5")
                .stdin(std::process::Stdio::null())
                .stdout(std::process::Stdio::from(fd))
                .spawn();
        }
        std::process::exit(0);
    }
    if matches!(fault, Some(ClientFault::NoShutdown | ClientFault::Silent)) {
        // Keep the server's stdin open and answer nothing more, until killed.
        loop {
            let _ = server.recv(Duration::from_secs(3600)).await;
        }
    }
    // lifecycle.mdx (stdio shutdown): close the server's stdin, wait, then SIGTERM, SIGKILL.
    server.shutdown().await;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(id: i64, result: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "result": result })
    }

    #[test]
    fn initializes_lists_every_page_and_calls_a_tool() {
        let mut c = ReferenceClient::new(vec![], None);
        let init = c.start();
        assert_eq!(init.len(), 1);
        assert_eq!(init[0]["params"]["protocolVersion"], Revision::latest_legacy().as_str());
        let out = c.on_message(&answer(
            1,
            json!({ "protocolVersion": "2024-11-05", "capabilities": { "tools": {} }, "serverInfo": {} }),
        ));
        assert_eq!(out[0]["method"], "notifications/initialized");
        assert_eq!(out[1]["method"], "tools/list");
        assert_eq!(c.revision, Some(Revision::V2024_11_05));
        let out = c.on_message(&answer(2, json!({ "tools": [{ "name": "a", "inputSchema": { "type": "object", "required": ["x"] } }], "nextCursor": { "odd": [1] } })));
        assert_eq!(out[0]["params"]["cursor"], json!({ "odd": [1] }), "the cursor goes back unchanged");
        let out = c.on_message(&answer(
            3,
            json!({ "tools": [{ "name": "b", "inputSchema": { "type": "object" } }] }),
        ));
        assert_eq!(out[0]["method"], "tools/call");
        assert_eq!(out[0]["params"]["name"], "b");
        assert!(!c.finished());
        c.on_message(&answer(4, json!({ "content": [] })));
        assert_eq!(c.phase(), &Phase::Done);
    }

    #[test]
    fn an_unsupported_counter_offer_ends_the_session() {
        let mut c = ReferenceClient::new(vec![], None);
        c.start();
        let out = c.on_message(&answer(1, json!({ "protocolVersion": "1999-01-01", "capabilities": {} })));
        assert!(out.is_empty());
        assert!(matches!(c.phase(), Phase::Gave(_)));
    }

    #[test]
    fn pings_are_answered_with_an_empty_result() {
        let mut c = ReferenceClient::new(vec![], None);
        c.start();
        let out = c.on_message(&json!({ "jsonrpc": "2.0", "id": "p", "method": "ping" }));
        assert_eq!(out, vec![json!({ "jsonrpc": "2.0", "id": "p", "result": {} })]);
    }

    #[test]
    fn answer_undeclared_declares_nothing_yet_samples() {
        let sampling = json!({ "jsonrpc": "2.0", "id": "s", "method": "sampling/createMessage", "params": {
            "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }], "maxTokens": 5 } });
        let mut faulty =
            ReferenceClient::new(vec![Revision::V2025_06_18], Some(ClientFault::AnswerUndeclared));
        assert_eq!(faulty.start()[0]["params"]["capabilities"], json!({}));
        assert!(faulty.on_message(&sampling)[0].get("result").is_some());
        // The plain client without the capability refuses, as the scenarios expect.
        let mut plain = ReferenceClient::new(vec![Revision::V2025_06_18], Some(ClientFault::DeclareNothing));
        plain.start();
        assert_eq!(plain.on_message(&sampling)[0]["error"]["code"], -32601);
    }

    #[test]
    fn fault_names_round_trip() {
        for f in ClientFault::ALL {
            assert_eq!(f.name().parse::<ClientFault>(), Ok(f));
        }
    }
}
