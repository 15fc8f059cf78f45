//! The reference MCP client: a sans-IO state machine ([`ReferenceClient`]) that initializes
//! (offering its latest revision, accepting a counter-offer it supports, disconnecting
//! otherwise), confirms with `notifications/initialized`, lists the tools page by page (each
//! `nextCursor` sent back unchanged), calls one, and is then done; requests from the server are
//! answered by the [`ClientPersona`] per the capabilities it declared. [`run_stdio`] drives it
//! against a server process. [`ClientFault`]s inject deliberate defects for mcpspec's own tests.

use crate::persona::ClientPersona;
use mcpspec_reference::elicitation;
use mcpspec_reference::framing::FrameContent;
use mcpspec_reference::sampling::tool_balance_violations;
use mcpspec_reference::transport::http_client::{
    BodyKind, HttpClientOptions, HttpClientTransport, HttpEvent, Resumption, Tweaks, SESSION_HEADER,
};
use mcpspec_reference::transport::Flavor;
use mcpspec_reference::transport::{ChildOptions, ChildTransport, CommandSpec, RecvError};
use mcpspec_reference::wire::{ErrorObject, Message, Outcome, RequestId};
use mcpspec_reference::Revision;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;

/// A deliberate defect of the reference client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientFault {
    /// Never sends `notifications/initialized`.
    SkipInitialized,
    /// Uses id 1 for every request.
    ReuseIds,
    /// Sends `tools/list` before `initialize`.
    RequestBeforeInitialize,
    /// Sends a ping with a null id after `notifications/initialized`.
    NullId,
    /// Sends `notifications/initialized` right after `initialize`, before its answer.
    EarlyInitialized,
    /// Does not answer the server's requests.
    IgnoreRequests,
    /// Carries on at a revision it does not support.
    AcceptAnyVersion,
    /// Offers its oldest revision instead of its latest.
    OfferOldest,
    /// Never closes the server's stdin (and never exits on its own).
    NoShutdown,
    /// Exits at once, without starting the server.
    ExitEarly,
    /// Starts the server and never sends anything.
    Silent,
    /// Sends its `initialize`, then garbage lines without end, reading nothing.
    Flood,
    /// Lists a root whose URI is not a `file://` URI.
    RootsNotFile,
    /// Answers sampling/createMessage with a result without `model`.
    SamplingWithoutModel,
    /// Declares no capability (not a defect: a plainer client, for the scenarios about
    /// undeclared capabilities).
    DeclareNothing,
    /// Sends the `nextCursor` back altered (as if it had been URL-encoded).
    CursorAltered,
    /// Asks once more, with the last cursor, after the page without `nextCursor`.
    PagesPastEnd,
    /// Cancels its own `initialize` request.
    CancelInitialize,
    /// Cancels a request id it never used.
    CancelUnissued,
    /// Sends a ping carrying the progress token of its tool call while the call is active.
    ReuseProgressToken,
    /// Lists tools even when the server did not declare the tools capability.
    UndeclaredRequests,
    /// Gives up the session when the server cancels one of its requests.
    ExitOnCancel,
    /// Answers a response to a request it cancelled with an error.
    LateResponseError,
    /// Declares roots without listChanged, then sends notifications/roots/list_changed.
    RootsChangedUndeclared,
    /// Samples from a request whose tool use has no tool result, instead of answering -32602.
    SamplingAcceptsUnbalanced,
    /// Samples from a request whose tool result answers a tool use that was never made.
    SamplingAcceptsUnknownToolUseId,
    /// Samples from a request whose user message mixes tool results with other content.
    SamplingAcceptsMixedToolResults,
    /// Uses tools in sampling without declaring `sampling.tools`.
    SamplingToolsUndeclared,
    /// Answers sampling/createMessage without `stopReason`, tool uses included.
    SamplingWithoutStopReason,
    /// Accepts form elicitations with content of the wrong types for the requested schema.
    ElicitContentOffSchema,
    /// Accepts form elicitations without the optional fields that have defaults.
    ElicitIgnoresDefaults,
    /// Declares form elicitation only, yet accepts URL mode requests.
    ElicitUndeclaredMode,
    /// Declares no capability, yet answers roots, sampling and elicitation requests with results.
    AnswerUndeclared,
    /// Answers each request of the server's but pings a second late (a user pondering it), even
    /// when the server has cancelled it meanwhile.
    AnswerAfterCancel,
    /// Ends without closing the server's stdin: exits, leaving it open in a descendant that
    /// outlives it for 1.5 s.
    ExitHoldingStdin,
    /// HTTP: POSTs with `Accept: application/json` only.
    HttpAcceptJsonOnly,
    /// HTTP: leaves the session id out of every request after `initialize`.
    HttpNoSessionHeader,
    /// HTTP (2025-06-18+): never sends `MCP-Protocol-Version`.
    HttpNoProtocolVersion,
    /// HTTP (2025-06-18+): sends `MCP-Protocol-Version: 2025-03-26` whatever was negotiated.
    HttpWrongProtocolVersion,
    /// HTTP: POSTs `notifications/initialized` and its next request as one batch.
    HttpBatch,
    /// HTTP: gives up after a 404 for its session instead of initializing again.
    HttpNoReinitialize,
    /// HTTP: resumes a closed stream at once, ignoring `retry`.
    HttpIgnoresRetry,
    /// HTTP: never resumes a closed stream.
    HttpNoResume,
    /// HTTP: ends without DELETE.
    HttpNoDelete,
    /// HTTP+SSE: POSTs to the SSE URL instead of the endpoint the `endpoint` event named.
    SsePostWrongPath,
}

impl ClientFault {
    pub const ALL: [ClientFault; 45] = [
        ClientFault::SkipInitialized,
        ClientFault::ReuseIds,
        ClientFault::RequestBeforeInitialize,
        ClientFault::NullId,
        ClientFault::EarlyInitialized,
        ClientFault::IgnoreRequests,
        ClientFault::AcceptAnyVersion,
        ClientFault::OfferOldest,
        ClientFault::NoShutdown,
        ClientFault::ExitEarly,
        ClientFault::Silent,
        ClientFault::Flood,
        ClientFault::RootsNotFile,
        ClientFault::SamplingWithoutModel,
        ClientFault::DeclareNothing,
        ClientFault::CursorAltered,
        ClientFault::PagesPastEnd,
        ClientFault::CancelInitialize,
        ClientFault::CancelUnissued,
        ClientFault::ReuseProgressToken,
        ClientFault::UndeclaredRequests,
        ClientFault::ExitOnCancel,
        ClientFault::LateResponseError,
        ClientFault::RootsChangedUndeclared,
        ClientFault::SamplingAcceptsUnbalanced,
        ClientFault::SamplingAcceptsUnknownToolUseId,
        ClientFault::SamplingAcceptsMixedToolResults,
        ClientFault::SamplingToolsUndeclared,
        ClientFault::SamplingWithoutStopReason,
        ClientFault::ElicitContentOffSchema,
        ClientFault::ElicitIgnoresDefaults,
        ClientFault::ElicitUndeclaredMode,
        ClientFault::AnswerUndeclared,
        ClientFault::AnswerAfterCancel,
        ClientFault::ExitHoldingStdin,
        ClientFault::HttpAcceptJsonOnly,
        ClientFault::HttpNoSessionHeader,
        ClientFault::HttpNoProtocolVersion,
        ClientFault::HttpWrongProtocolVersion,
        ClientFault::HttpBatch,
        ClientFault::HttpNoReinitialize,
        ClientFault::HttpIgnoresRetry,
        ClientFault::HttpNoResume,
        ClientFault::HttpNoDelete,
        ClientFault::SsePostWrongPath,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClientFault::SkipInitialized => "skip-initialized",
            ClientFault::ReuseIds => "reuse-ids",
            ClientFault::RequestBeforeInitialize => "request-before-initialize",
            ClientFault::NullId => "null-id",
            ClientFault::EarlyInitialized => "early-initialized",
            ClientFault::IgnoreRequests => "ignore-requests",
            ClientFault::AcceptAnyVersion => "accept-any-version",
            ClientFault::OfferOldest => "offer-oldest",
            ClientFault::NoShutdown => "no-shutdown",
            ClientFault::ExitEarly => "exit-early",
            ClientFault::Silent => "silent",
            ClientFault::Flood => "flood",
            ClientFault::RootsNotFile => "roots-not-file",
            ClientFault::SamplingWithoutModel => "sampling-without-model",
            ClientFault::DeclareNothing => "declare-nothing",
            ClientFault::CursorAltered => "cursor-altered",
            ClientFault::PagesPastEnd => "pages-past-end",
            ClientFault::CancelInitialize => "cancel-initialize",
            ClientFault::CancelUnissued => "cancel-unissued",
            ClientFault::ReuseProgressToken => "reuse-progress-token",
            ClientFault::UndeclaredRequests => "undeclared-requests",
            ClientFault::ExitOnCancel => "exit-on-cancel",
            ClientFault::LateResponseError => "late-response-error",
            ClientFault::RootsChangedUndeclared => "roots-changed-undeclared",
            ClientFault::SamplingAcceptsUnbalanced => "sampling-accepts-unbalanced",
            ClientFault::SamplingAcceptsUnknownToolUseId => "sampling-accepts-unknown-tool-use-id",
            ClientFault::SamplingAcceptsMixedToolResults => "sampling-accepts-mixed-tool-results",
            ClientFault::SamplingToolsUndeclared => "sampling-tools-undeclared",
            ClientFault::SamplingWithoutStopReason => "sampling-without-stop-reason",
            ClientFault::ElicitContentOffSchema => "elicit-content-off-schema",
            ClientFault::ElicitIgnoresDefaults => "elicit-ignores-defaults",
            ClientFault::ElicitUndeclaredMode => "elicit-undeclared-mode",
            ClientFault::AnswerUndeclared => "answer-undeclared",
            ClientFault::AnswerAfterCancel => "answer-after-cancel",
            ClientFault::ExitHoldingStdin => "exit-holding-stdin",
            ClientFault::HttpAcceptJsonOnly => "http-accept-json-only",
            ClientFault::HttpNoSessionHeader => "http-no-session-header",
            ClientFault::HttpNoProtocolVersion => "http-no-protocol-version",
            ClientFault::HttpWrongProtocolVersion => "http-wrong-protocol-version",
            ClientFault::HttpBatch => "http-batch",
            ClientFault::HttpNoReinitialize => "http-no-reinitialize",
            ClientFault::HttpIgnoresRetry => "http-ignores-retry",
            ClientFault::HttpNoResume => "http-no-resume",
            ClientFault::HttpNoDelete => "http-no-delete",
            ClientFault::SsePostWrongPath => "sse-post-wrong-path",
        }
    }
}

impl std::str::FromStr for ClientFault {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClientFault::ALL.iter().copied().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<_> = ClientFault::ALL.iter().map(|f| f.name()).collect();
            format!("unknown client fault {s:?} (known: {})", names.join(", "))
        })
    }
}

/// The scenario in which the reference client cancels its tool call.
pub const LATE_RESPONSE_SCENARIO: &str = "client-cancellation/late-response";

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
    tools: Vec<Value>,
    /// The revision negotiated.
    pub revision: Option<Revision>,
}

impl ReferenceClient {
    /// A client speaking `supported` (every legacy revision when empty).
    pub fn new(supported: Vec<Revision>, fault: Option<ClientFault>) -> Self {
        let supported = if supported.is_empty() { Revision::LEGACY.to_vec() } else { supported };
        let offer = supported.iter().max().copied().unwrap_or_else(Revision::latest_legacy);
        let capabilities = match fault {
            Some(ClientFault::DeclareNothing) => json!({}),
            Some(ClientFault::RootsChangedUndeclared) => json!({ "roots": {}, "sampling": {} }),
            _ => capabilities_at(offer),
        };
        let mut declared = capabilities.clone();
        match fault {
            Some(ClientFault::SamplingToolsUndeclared) => declared["sampling"] = json!({}),
            Some(ClientFault::ElicitUndeclaredMode) => declared["elicitation"] = json!({ "form": {} }),
            // The persona keeps everything it can do; only the declaration is gone.
            Some(ClientFault::AnswerUndeclared) => declared = json!({}),
            _ => {}
        }
        ReferenceClient {
            supported,
            fault,
            declared,
            persona: ClientPersona::new(capabilities),
            phase: Phase::Initializing,
            next_id: 1,
            outstanding: HashMap::new(),
            cancelled: Vec::new(),
            cancel_call: false,
            last_cursor: None,
            tools: Vec::new(),
            revision: None,
        }
    }

    /// Opts into what scenario `name` (from `MCP_CONFORMANCE_SCENARIO`) asks of a client
    /// beyond the plain session; every other scenario gets the plain session.
    pub fn for_scenario(mut self, name: Option<&str>) -> Self {
        self.cancel_call = name == Some(LATE_RESPONSE_SCENARIO);
        self
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

    /// The first messages: `initialize` (offering the latest supported revision).
    pub fn start(&mut self) -> Vec<Value> {
        let mut out = Vec::new();
        if self.fault == Some(ClientFault::RequestBeforeInitialize) {
            out.push(self.request("tools/list", None));
        }
        let offer = match self.fault {
            Some(ClientFault::OfferOldest) => self.supported.iter().min(),
            _ => self.supported.iter().max(),
        };
        let offer = offer.copied().unwrap_or_else(Revision::latest_legacy);
        let params = json!({
            "protocolVersion": offer.as_str(),
            "capabilities": self.declared.clone(),
            "clientInfo": { "name": "mcpspec-reference-client", "version": env!("CARGO_PKG_VERSION") },
        });
        out.push(self.request("initialize", Some(params)));
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
        let Ok(message) = Message::from_value(value) else { return Vec::new() };
        match message {
            Message::Request(r) => {
                if self.fault == Some(ClientFault::IgnoreRequests) {
                    return Vec::new();
                }
                let mut answer = self.persona.answer(&r).to_value();
                if self.fault == Some(ClientFault::RootsNotFile) && r.method == "roots/list" {
                    answer["result"]["roots"] = json!([{ "uri": "https://example.com/project" }]);
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
                vec![answer]
            }
            Message::Notification(n) => {
                if n.method == "notifications/cancelled" && self.fault == Some(ClientFault::ExitOnCancel) {
                    self.phase = Phase::Gave("exit-on-cancel: the server cancelled a request".into());
                }
                Vec::new()
            }
            Message::Response(r) => {
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
                    "tools/call" => {
                        self.phase = Phase::Done;
                        Vec::new()
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
    /// fault only for its own kind of imbalance), or drops `stopReason`.
    fn sampling_fault(&self, params: &Value, answer: &mut Value) {
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
            let reply = json!({
                "role": "assistant",
                "content": { "type": "text", "text": "mcpspec sampled it anyway" },
                "model": "mcpspec-scripted",
                "stopReason": "endTurn",
            });
            let id = answer.get("id").cloned().unwrap_or(Value::Null);
            *answer = json!({ "jsonrpc": "2.0", "id": id, "result": reply });
        }
        if self.fault == Some(ClientFault::SamplingWithoutStopReason) {
            if let Some(result) = answer.get_mut("result").and_then(Value::as_object_mut) {
                result.remove("stopReason");
            }
        }
    }

    /// The elicitation faults: off-schema content, defaults left out, an undeclared mode
    /// accepted.
    fn elicitation_fault(&self, params: &Value, answer: &mut Value) {
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
            Some(ClientFault::ElicitUndeclaredMode) if elicitation::mode(params) == "url" => {
                let id = answer.get("id").cloned().unwrap_or(Value::Null);
                *answer = json!({ "jsonrpc": "2.0", "id": id, "result": { "action": "accept" } });
            }
            _ => {}
        }
    }

    fn on_initialized(&mut self, result: &Value) -> Vec<Value> {
        let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
        let revision = version.parse::<Revision>().ok().filter(|r| self.supported.contains(r));
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
        self.tools.extend(page);
        // pagination.mdx: the cursor is opaque; it goes back exactly as received.
        if let Some(cursor) = result.get("nextCursor").filter(|c| !c.is_null()).cloned() {
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
        // The first tool that needs no arguments.
        let tool = self.tools.iter().find(|t| {
            t.pointer("/inputSchema/required").and_then(Value::as_array).is_none_or(|r| r.is_empty())
        });
        match tool.and_then(|t| t.get("name")).cloned() {
            Some(name) => {
                self.phase = Phase::Calling;
                // progress.mdx: the token is unique among the client's active requests.
                let token = format!("progress-{}", self.next_id);
                let params = json!({ "name": name, "arguments": {}, "_meta": { "progressToken": token } });
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
    caps
}

/// How late the answer-after-cancel fault answers the server's requests.
const PONDER: Duration = Duration::from_secs(1);

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
    let options = ChildOptions { write_timeout: timeout, ..ChildOptions::default() };
    let mut server = ChildTransport::spawn(command, options).map_err(|e| e.to_string())?;
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
                if let mcpspec_reference::framing::FrameContent::Json { value, .. } = &frame.content {
                    let values = match value {
                        Value::Array(items) => items.clone(),
                        other => vec![other.clone()],
                    };
                    for v in &values {
                        let answers = client.on_message(v);
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

/// How many times the reference client starts a new session after a 404 before it gives up.
const MAX_REINITIALIZE: u32 = 3;

/// Runs the reference client against the server at `url` over HTTP (`flavor`): the same
/// [`ReferenceClient`] as over stdio, each message one POST; from 2025-06-18 the
/// `MCP-Protocol-Version` header once initialized; the GET stream opened (a 405 is fine); a 404
/// for its session answered with a new `initialize` (`basic/transports.mdx#session-management`);
/// a POST stream closed early resumed with `Last-Event-ID` after `retry` (by the transport);
/// and, done, the session ended with DELETE. Each wait is bounded by `timeout`.
pub async fn run_http(
    url: url::Url,
    flavor: Flavor,
    supported: Vec<Revision>,
    scenario: Option<&str>,
    fault: Option<ClientFault>,
    timeout: Duration,
) -> Result<(), String> {
    let mut options = HttpClientOptions::new(url.clone(), flavor);
    options.request_timeout = timeout;
    options.resumption = match fault {
        Some(ClientFault::HttpIgnoresRetry) => Resumption::IgnoreRetry,
        Some(ClientFault::HttpNoResume) => Resumption::Never,
        _ => Resumption::HonourRetry,
    };
    let mut t = HttpClientTransport::connect(options).await.map_err(|e| e.to_string())?;
    if fault == Some(ClientFault::SsePostWrongPath) {
        t.set_post_url(url);
    }
    let mut client = ReferenceClient::new(supported.clone(), fault).for_scenario(scenario);
    let mut out = client.start();
    let mut reinitialized = 0;
    let mut get_opened = false;
    // Events read while waiting for a POST's response head, handled in order after.
    let mut early: std::collections::VecDeque<HttpEvent> = Default::default();
    let outcome = loop {
        let initialized = client.revision.is_some();
        if fault == Some(ClientFault::HttpBatch) && initialized && out.len() > 1 {
            out = vec![Value::Array(std::mem::take(&mut out))];
        }
        for value in std::mem::take(&mut out) {
            // Each POST goes out once the one before has its response head: POSTs made at once
            // race, and the order of messages is the client's to keep (a cancellation after its
            // request, notifications/initialized before what follows it).
            let n = send_http(&mut t, &value, fault, initialized);
            let deadline = tokio::time::Instant::now() + timeout;
            while !early.iter().any(|e| matches!(e, HttpEvent::Response(x) if x.n == n)) {
                let left = deadline.saturating_duration_since(tokio::time::Instant::now());
                match t.recv(left).await {
                    Ok(e) => {
                        let done = matches!(&e, HttpEvent::Failed { n: m, .. } if *m == n);
                        early.push_back(e);
                        if done {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        }
        if client.finished() {
            break Ok(());
        }
        let next = match early.pop_front() {
            Some(e) => Ok(e),
            None => t.recv(timeout).await,
        };
        let event = match next {
            Ok(e) => e,
            Err(RecvError::Timeout(d)) => {
                break Err(format!("the server sent nothing for {d:?} ({:?})", client.phase()))
            }
            Err(RecvError::Closed) => break Err(format!("the connection closed ({:?})", client.phase())),
        };
        match event {
            HttpEvent::Message { frame, .. } => {
                let FrameContent::Json { value, .. } = &frame.content else { continue };
                let values = match value {
                    Value::Array(items) => items.clone(),
                    other => vec![other.clone()],
                };
                for v in &values {
                    out.extend(client.on_message(v));
                }
                if let (Some(revision), false) = (client.revision, initialized) {
                    // transports.mdx#protocol-version-header: on every request after
                    // initialization, from 2025-06-18.
                    let header = match fault {
                        _ if revision < Revision::V2025_06_18 => None,
                        Some(ClientFault::HttpNoProtocolVersion) => None,
                        Some(ClientFault::HttpWrongProtocolVersion) => Some("2025-03-26".to_owned()),
                        _ => Some(revision.as_str().to_owned()),
                    };
                    t.set_protocol_version(header);
                }
            }
            HttpEvent::Response(x) if x.status == 404 => {
                // Only a 404 for the session in force: one for an older session came late.
                let ours = x
                    .request_headers
                    .iter()
                    .any(|(k, v)| k == SESSION_HEADER && Some(v.as_str()) == t.session_id());
                if !ours {
                    continue;
                }
                if fault == Some(ClientFault::HttpNoReinitialize) || reinitialized >= MAX_REINITIALIZE {
                    break Err(format!("{}: the session is gone", x.describe()));
                }
                reinitialized += 1;
                t.reset_session();
                get_opened = false;
                client = ReferenceClient::new(supported.clone(), fault).for_scenario(scenario);
                out = client.start();
            }
            HttpEvent::Unanswered { ids, why, .. }
                // A 404 makes the requests of the old session unanswered: the new one asks again.
                if (reinitialized == 0 || t.session_id().is_some()) => {
                    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
                    break Err(format!("no answer to {} will come: {why}", ids.join(", ")));
                }
            _ => {}
        }
        if flavor == Flavor::Streamable
            && client.revision.is_some()
            && !get_opened
            && t.session_id().is_some()
        {
            // The server's own stream (it may answer 405: then there is none).
            get_opened = true;
            t.open_get(&Tweaks::default());
        }
    };
    let outcome = match client.phase() {
        Phase::Gave(why) => Err(why.clone()),
        _ => outcome,
    };
    // transports.mdx#session-management: clients SHOULD DELETE a session they no longer need.
    if flavor == Flavor::Streamable && t.session_id().is_some() && fault != Some(ClientFault::HttpNoDelete) {
        let n = t.delete(&Tweaks::default());
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match t.recv(left).await {
                Ok(HttpEvent::Response(x)) if x.n == n => break,
                Ok(HttpEvent::Failed { n: m, .. }) if m == n => break,
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    t.abort();
    outcome
}

/// POSTs one message (or batch) as the reference client would, bent by `fault`.
fn send_http(
    t: &mut HttpClientTransport,
    value: &Value,
    fault: Option<ClientFault>,
    initialized: bool,
) -> u64 {
    let mut tweaks = Tweaks::default();
    match fault {
        Some(ClientFault::HttpAcceptJsonOnly) => {
            tweaks.headers.push(("accept".into(), "application/json".into()))
        }
        Some(ClientFault::HttpNoSessionHeader) if initialized => tweaks.no_session = true,
        _ => {}
    }
    t.send_with(value.to_string().into_bytes(), BodyKind::of(value), &tweaks)
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
