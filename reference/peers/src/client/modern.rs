//! The reference client in the modern era, 2026-07-28 (`docs/specification/2026-07-28/`).
//!
//! No `initialize`: every request carries its `_meta` (protocol version, client capabilities,
//! client identity; `basic/index.mdx#_meta`). The flow mirrors the legacy one: probe with
//! `server/discover`, list the tools page by page, call the first tool that needs no
//! arguments, done. On top of it:
//! - Era detection (`basic/versioning.mdx#backward-compatibility-with-initialization-based-versions`,
//!   `basic/transports/stdio.mdx#backward-compatibility`): a `DiscoverResult` or a modern error
//!   means a modern server; any other error, or no answer (the driver reports it with
//!   [`ReferenceClient::on_no_answer`]), means a legacy one, and the client falls back to
//!   `initialize` — never keyed to one error code.
//! - `-32022` (`basic/versioning.mdx#protocol-version-negotiation`): the request is sent again,
//!   with a new id, at a version from `data.supported` the client also speaks.
//! - MRTR (`basic/patterns/mrtr.mdx#client-requirements-basic-workflow`): an `input_required`
//!   result's `inputRequests` are answered by the persona (only what the client declared), and
//!   the original request is sent again with a new id, the answers in `inputResponses` and
//!   `requestState` echoed exactly (none when none was given); at most [`MAX_MRTR_ROUNDS`]. An
//!   input request the persona refuses (tools without `sampling.tools`, an unbalanced tool
//!   loop) ends the request: it is not sent again (`client/sampling.mdx#error-handling`).
//! - `resultType` (`basic/index.mdx#resulttype`): a result without one is complete (a server of
//!   an earlier version); one the client does not know is invalid, and its request fails.
//! - Caching (`server/utilities/caching.mdx`): a complete cacheable result is kept with its
//!   `ttlMs`; a list needed again while fresh is taken from the cache, not asked for again.
//!
//! The client never sends a JSON-RPC response in this era (`basic/transports/stdio.mdx#sending-messages`):
//! a server request (which the era does not have) is left unanswered.

use super::{ClientFault, Phase, ReferenceClient};
use mcpspec_protocol::modern::{self as era, CLIENT_CAPABILITIES_KEY, PROTOCOL_VERSION_KEY};
use mcpspec_protocol::revision::Era;
use mcpspec_protocol::wire::{ErrorObject, Message, Outcome, Request, RequestId};
use mcpspec_protocol::Revision;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The scenario in which the client needs the tool list a second time before calling a tool
/// (it takes it from its cache while the first list is fresh).
pub const CACHING_SCENARIO: &str = "client-modern/caching";

/// The tool each MRTR scenario asks a client to call (by the scenario's name in
/// `MCP_CONFORMANCE_SCENARIO`): the reference server's fixtures that ask for input
/// (`reference/peers/src/server/mrtr.rs`). In other scenarios the client calls the first tool that
/// needs no arguments.
pub const SCENARIO_TOOLS: [(&str, &str); 6] = [
    ("client-modern/mrtr-elicitation", "test_elicitation"),
    ("client-modern/mrtr-sampling", "test_sampling"),
    ("client-modern/mrtr-roots", "test_roots"),
    ("client-modern/mrtr-multiple-inputs", "test_mrtr_multiple_inputs"),
    ("client-modern/mrtr-multi-round", "test_mrtr_multi_round"),
    ("client-modern/mrtr-no-request-state", "test_elicitation"),
];

/// The scenario in which the client calls the reference server's `x-mcp-header` tool with
/// arguments of every kind its headers must mirror (`streamable-http.mdx#custom-headers-from-
/// tool-parameters`): a value like the Base64 sentinel, one beyond ASCII, an integer, a null
/// one and an absent one.
pub const PARAM_HEADERS_SCENARIO: &str = "client-modern/param-headers";

/// The scenario in which the scenario server also lists a tool whose `x-mcp-header`
/// annotation breaks the constraints ([`INVALID_PARAM_HEADER_TOOL`]), and asks the client to
/// call it: a client over Streamable HTTP leaves it out of its tool list instead.
pub const INVALID_PARAM_HEADER_SCENARIO: &str = "client-modern/x-mcp-header-invalid";

/// The tool with an invalid `x-mcp-header` annotation the scenario server lists in
/// [`INVALID_PARAM_HEADER_SCENARIO`] (the annotation is not an HTTP token).
pub const INVALID_PARAM_HEADER_TOOL: &str = "test_invalid_x_mcp_header";

/// The tool scenario `name` asks the client to call, if any.
pub fn scenario_tool(name: Option<&str>) -> Option<&'static str> {
    match name {
        Some(PARAM_HEADERS_SCENARIO) => Some(crate::server::PARAM_HEADERS_TOOL),
        Some(INVALID_PARAM_HEADER_SCENARIO) => Some(INVALID_PARAM_HEADER_TOOL),
        _ => SCENARIO_TOOLS.iter().find(|(s, _)| Some(*s) == name).map(|(_, t)| *t),
    }
}

/// The arguments of the call scenario `name` asks for (none: `{}`), bent by `fault`.
fn scenario_arguments(name: Option<&str>, fault: Option<ClientFault>) -> Value {
    if name != Some(PARAM_HEADERS_SCENARIO) {
        return json!({});
    }
    let priority = match fault {
        Some(ClientFault::ModernParamHeaderUnsafeInteger) => json!(9_007_199_254_740_993_i64),
        _ => json!(42),
    };
    // `debug` is left out: an absent argument has no header.
    json!({ "region": "=?base64?literal?=", "greeting": "Hello, 世界", "priority": priority,
        "verbose": null, "query": "SELECT 1" })
}

/// How many `input_required` rounds one request may take before the client gives up (a server
/// that keeps asking would otherwise hold it for ever).
pub const MAX_MRTR_ROUNDS: u32 = 8;

/// How many times one request is sent again after `-32022`.
const MAX_VERSION_RETRIES: u32 = 2;

/// The version a deliberately wrong retry names (the `modern-retry-unsupported-version` fault).
const UNSUPPORTED_VERSION: &str = "2099-12-31";

/// The client's state in the modern era.
#[derive(Debug)]
pub(super) struct ModernState {
    /// The wire versions of the modern revisions the client speaks, preferred first.
    versions: Vec<&'static str>,
    /// The version in force (what `_meta` names).
    version: String,
    /// What `_meta` declares as the client's capabilities.
    declared: Value,
    /// Modern requests awaiting their answers.
    requests: HashMap<RequestId, Sent>,
    /// Complete cacheable results, by method and params (without `_meta`).
    cache: HashMap<String, Cached>,
    /// Whether a modern answer came (a `DiscoverResult`, or any result): after that, an error
    /// is the request's failure, not a sign of a legacy server.
    confirmed: bool,
    /// Whether the tool list was needed a second time already (the caching scenario).
    relisted: bool,
    /// Whether a result without `resultType` was asked for once more already (the
    /// `modern-result-type-required` fault).
    asked_again: bool,
}

/// A modern request in flight: what it asked, so it can be asked again.
#[derive(Debug, Clone)]
struct Sent {
    method: &'static str,
    /// The params without `_meta`, `inputResponses` and `requestState`: the original request.
    params: Value,
    /// `input_required` rounds so far.
    rounds: u32,
    /// Retries after `-32022` so far.
    version_retries: u32,
}

#[derive(Debug, Clone)]
struct Cached {
    result: Value,
    fresh_until: Instant,
}

/// The cache key of a request: its method and its params without `_meta`.
fn cache_key(method: &str, params: &Value) -> String {
    let mut p = params.clone();
    if let Some(o) = p.as_object_mut() {
        o.remove("_meta");
    }
    format!("{method} {p}")
}

/// The revision a modern wire version stands for.
fn modern_revision(version: &str) -> Option<Revision> {
    version.parse::<Revision>().ok().filter(|r| r.era() == Era::Modern)
}

impl ReferenceClient {
    /// The `server/discover` probe (or, with `modern-no-probe`, the first `tools/list`), when
    /// the client speaks a modern revision.
    pub(super) fn start_modern(&mut self) -> Option<Vec<Value>> {
        let mut versions: Vec<&'static str> = Vec::new();
        let mut modern: Vec<Revision> =
            self.supported.iter().copied().filter(|r| r.era() == Era::Modern).collect();
        modern.sort_by(|a, b| b.cmp(a));
        for r in modern {
            let v = era::wire_version(r);
            if !versions.contains(&v) {
                versions.push(v);
            }
        }
        let version = (*versions.first()?).to_owned();
        // The persona (what the client can do) was made in `new`.
        let declared = super::declared_at(self.fault, Revision::V2026_07_28);
        self.modern = Some(ModernState {
            versions,
            version,
            declared,
            requests: HashMap::new(),
            cache: HashMap::new(),
            confirmed: false,
            relisted: false,
            asked_again: false,
        });
        if self.fault == Some(ClientFault::ModernNoProbe) {
            self.phase = Phase::Listing;
            return Some(vec![self.modern_request("tools/list", json!({}))]);
        }
        self.phase = Phase::Discovering;
        Some(vec![self.modern_request("server/discover", json!({}))])
    }

    /// A modern request: `params` with this client's `_meta` (bent by the `_meta` faults), a
    /// fresh id.
    fn modern_request(&mut self, method: &'static str, params: Value) -> Value {
        let id = RequestId::from(self.next_id);
        self.next_id += 1;
        self.modern_request_with_id(id, method, params, 0, 0)
    }

    fn modern_request_with_id(
        &mut self,
        id: RequestId,
        method: &'static str,
        params: Value,
        rounds: u32,
        version_retries: u32,
    ) -> Value {
        let fault = self.fault;
        let Some(m) = self.modern.as_mut() else { return Value::Null };
        let info = json!({ "name": "mcpspec-reference-client", "version": env!("CARGO_PKG_VERSION") });
        let info = match fault {
            Some(ClientFault::ModernNoClientInfo) => None,
            _ => Some(&info),
        };
        // `modern-undeclared-capability-use`: a retry declares nothing, yet answers what the
        // first request's capabilities let the server ask.
        let declared = match fault {
            Some(ClientFault::ModernUndeclaredCapabilityUse) if rounds > 0 => json!({}),
            _ => m.declared.clone(),
        };
        let mut meta = era::request_meta(&m.version, &declared, info);
        if method != "server/discover" {
            if let Some(o) = meta.as_object_mut() {
                let dropped = match fault {
                    Some(ClientFault::ModernMetaMissingVersion) => Some(PROTOCOL_VERSION_KEY),
                    Some(ClientFault::ModernMetaMissingCapabilities) => Some(CLIENT_CAPABILITIES_KEY),
                    _ => None,
                };
                if let Some(key) = dropped {
                    o.remove(key);
                }
            }
        }
        let original = strip_retry_members(&params);
        let full = era::with_request_meta(Some(params), &meta);
        m.requests.insert(id.clone(), Sent { method, params: original, rounds, version_retries });
        if self.modern_ids.len() < 64 {
            self.modern_ids.push(id.clone());
        }
        Message::request(id, method, Some(full)).to_value()
    }

    /// No answer will come to the requests `ids` (the stdio driver's wait ran out, or an HTTP
    /// exchange ended without them). For the probe, that means a legacy server (`stdio.mdx`:
    /// "does not respond within a reasonable timeout: the server is legacy"); otherwise the
    /// client gives up.
    pub fn on_no_answer(&mut self, ids: &[RequestId]) -> Vec<Value> {
        let Some(m) = self.modern.as_mut() else { return Vec::new() };
        let probe = ids.iter().any(|id| m.requests.get(id).is_some_and(|s| s.method == "server/discover"));
        if probe && !m.confirmed {
            return self.fall_back("the server did not answer server/discover");
        }
        if ids.iter().any(|id| m.requests.contains_key(id)) {
            self.phase = Phase::Gave("the server did not answer a request".into());
        }
        Vec::new()
    }

    /// Whether the client waits for its probe's answer (the driver bounds that wait).
    pub fn probing(&self) -> Option<RequestId> {
        let m = self.modern.as_ref()?;
        if m.confirmed {
            return None;
        }
        m.requests.iter().find(|(_, s)| s.method == "server/discover").map(|(id, _)| id.clone())
    }

    /// Falls back to `initialize`, or gives up when the client speaks no legacy revision.
    fn fall_back(&mut self, why: &str) -> Vec<Value> {
        self.modern = None;
        if !self.supported.iter().any(|r| r.era() == Era::Legacy) {
            self.phase = Phase::Gave(format!("{why}, and this client speaks only the modern era"));
            return Vec::new();
        }
        self.start_legacy()
    }

    pub(super) fn on_modern_message(&mut self, value: &Value, now: Instant) -> Vec<Value> {
        let Ok(message) = Message::from_value(value) else { return Vec::new() };
        // The era has no server requests and no client responses: a request is left
        // unanswered (the server broke the era's rules; `stdio.mdx#sending-messages`).
        let Message::Response(r) = message else { return Vec::new() };
        let Some(id) = r.id else { return Vec::new() };
        let Some(sent) = self.modern.as_mut().and_then(|m| m.requests.remove(&id)) else {
            return Vec::new();
        };
        match r.outcome {
            Outcome::Error(e) => self.on_modern_error(id, sent, e),
            Outcome::Result(result) => {
                if let Some(m) = self.modern.as_mut() {
                    m.confirmed = true;
                }
                if let Some(out) = self.judge_result_type(&sent, &result) {
                    return out;
                }
                let input_required =
                    result.get("resultType").and_then(Value::as_str) == Some(era::INPUT_REQUIRED);
                if input_required && era::allows_input_required(sent.method) {
                    return self.mrtr_retry(id, sent, &result);
                }
                self.remember(&sent, &result, now);
                match sent.method {
                    "server/discover" => self.on_discovered(&result),
                    "tools/list" => self.on_modern_tools(&result, now),
                    "tools/call" => {
                        self.phase = Phase::Done;
                        Vec::new()
                    }
                    _ => Vec::new(),
                }
            }
        }
    }

    /// `basic/index.mdx#resulttype`: a result without `resultType` is complete (a server of an
    /// earlier version); one whose `resultType` the client does not know is invalid, and its
    /// request fails. `Some`: what the client sends instead of using the result.
    fn judge_result_type(&mut self, sent: &Sent, result: &Value) -> Option<Vec<Value>> {
        let known = |t: &str| t == era::COMPLETE || t == era::INPUT_REQUIRED;
        match (result.get("resultType"), self.fault) {
            (None, Some(ClientFault::ModernResultTypeRequired)) => {
                let m = self.modern.as_mut()?;
                if m.asked_again {
                    return None;
                }
                m.asked_again = true;
                Some(vec![self.modern_request(sent.method, sent.params.clone())])
            }
            (None, _) | (Some(_), Some(ClientFault::ModernUnknownResultTypeUsed)) => None,
            (Some(Value::String(t)), _) if known(t) => None,
            (Some(other), _) => {
                self.phase = Phase::Gave(format!(
                    "{} was answered with resultType {other}, which this client does not know: the result is invalid",
                    sent.method
                ));
                Some(Vec::new())
            }
        }
    }

    /// Keeps a complete cacheable result with its freshness (`caching.mdx`: a missing or
    /// negative `ttlMs` is 0, immediately stale).
    fn remember(&mut self, sent: &Sent, result: &Value, now: Instant) {
        if !era::is_cacheable(sent.method) {
            return;
        }
        let ttl = result.get("ttlMs").and_then(Value::as_u64).unwrap_or(0);
        let Some(m) = self.modern.as_mut() else { return };
        if ttl > 0 && m.cache.len() < 1_000 {
            let fresh_until = now + Duration::from_millis(ttl.min(86_400_000));
            m.cache
                .insert(cache_key(sent.method, &sent.params), Cached { result: result.clone(), fresh_until });
        }
    }

    fn on_modern_error(&mut self, id: RequestId, sent: Sent, e: ErrorObject) -> Vec<Value> {
        if e.code == ErrorObject::UNSUPPORTED_PROTOCOL_VERSION {
            return self.on_unsupported_version(id, sent, &e);
        }
        let confirmed = self.modern.as_ref().is_some_and(|m| m.confirmed);
        if !era::is_modern_error(e.code) && !confirmed {
            // versioning.mdx: "any other error … the server is legacy. Fall back to the
            // initialize handshake" — whatever the code.
            return self.fall_back(&format!("{} failed with {} (not a modern error)", sent.method, e.code));
        }
        self.phase = Phase::Gave(format!("{} failed: {} {}", sent.method, e.code, e.message));
        Vec::new()
    }

    /// `-32022`: the same request again, with a new id, at a version from `data.supported` the
    /// client speaks too (`versioning.mdx#protocol-version-negotiation`, SHOULD). A supported
    /// list with only legacy versions the client speaks makes it fall back to `initialize`
    /// (that is the mutually supported version); with none in common it gives up.
    fn on_unsupported_version(&mut self, _id: RequestId, sent: Sent, e: &ErrorObject) -> Vec<Value> {
        let supported =
            mcpspec_protocol::modern::version_list(e.data.as_ref().and_then(|d| d.get("supported")));
        if self.fault == Some(ClientFault::ModernGivesUpOnUnsupported) {
            self.phase = Phase::Gave("modern-gives-up-on-unsupported-version".into());
            return Vec::new();
        }
        if sent.version_retries >= MAX_VERSION_RETRIES {
            self.phase =
                Phase::Gave(format!("{} refused the version {} times", sent.method, MAX_VERSION_RETRIES + 1));
            return Vec::new();
        }
        let Some(m) = self.modern.as_mut() else { return Vec::new() };
        m.confirmed = true;
        let mutual = m.versions.iter().find(|v| supported.iter().any(|s| s == *v)).copied();
        let next = match (self.fault, mutual) {
            (Some(ClientFault::ModernRetryUnsupportedVersion), _) => UNSUPPORTED_VERSION.to_owned(),
            (_, Some(v)) => v.to_owned(),
            (_, None) => {
                let legacy = supported.iter().any(|s| {
                    s.parse::<Revision>().is_ok_and(|r| r.era() == Era::Legacy && self.supported.contains(&r))
                });
                return match legacy {
                    true => self.fall_back("the server supports only legacy versions this client speaks"),
                    false => {
                        self.phase =
                            Phase::Gave(format!("no version in common: the server supports {supported:?}"));
                        Vec::new()
                    }
                };
            }
        };
        m.version = next;
        let id = RequestId::from(self.next_id);
        self.next_id += 1;
        vec![self.modern_request_with_id(id, sent.method, sent.params, sent.rounds, sent.version_retries + 1)]
    }

    fn on_discovered(&mut self, result: &Value) -> Vec<Value> {
        let theirs: Vec<&str> = result
            .get("supportedVersions")
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let Some(m) = self.modern.as_mut() else { return Vec::new() };
        let pick = match theirs.contains(&m.version.as_str()) {
            true => Some(m.version.clone()),
            false => m.versions.iter().find(|v| theirs.contains(v)).map(|v| (*v).to_owned()),
        };
        match pick {
            Some(v) => m.version = v,
            None => {
                let legacy = theirs.iter().any(|s| {
                    s.parse::<Revision>().is_ok_and(|r| r.era() == Era::Legacy && self.supported.contains(&r))
                });
                if legacy {
                    return self.fall_back("the server discovered supports only legacy versions");
                }
                self.phase = Phase::Gave(format!("server/discover: no version in common ({theirs:?})"));
                return Vec::new();
            }
        }
        self.revision = modern_revision(&m.version);
        let has_tools = result.pointer("/capabilities/tools").is_some()
            || self.fault == Some(ClientFault::UndeclaredRequests);
        if has_tools {
            self.phase = Phase::Listing;
            vec![self.modern_request("tools/list", json!({}))]
        } else {
            self.phase = Phase::Done;
            Vec::new()
        }
    }

    fn on_modern_tools(&mut self, result: &Value, now: Instant) -> Vec<Value> {
        if self.revision.is_none() {
            // Without the probe: the first answer confirms the version.
            self.revision = self.modern.as_ref().and_then(|m| modern_revision(&m.version));
        }
        let mut page = result.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
        // streamable-http.mdx#schema-extension: a tool whose x-mcp-header annotations break the
        // constraints is left out of the list (its name and why on stderr, as a warning).
        if self.fault != Some(ClientFault::ModernKeepsInvalidParamHeaderTool) {
            page.retain(|t| {
                let problems =
                    t.get("inputSchema").map(mcpspec_protocol::param_headers::problems).unwrap_or_default();
                if let (false, Some(name)) = (problems.is_empty(), t.get("name")) {
                    eprintln!(
                        "mcpspec reference client: the tool {name} is left out: {}",
                        problems.join("; ")
                    );
                }
                problems.is_empty()
            });
        }
        let len = page.len();
        self.tools.extend(page);
        // pagination.mdx: the cursor is opaque; it goes back exactly as received.
        if let Some(cursor) = result.get("nextCursor").filter(|c| self.follows(c, len)).cloned() {
            if self.tools.len() < 10_000 {
                let cursor = match (self.fault, cursor) {
                    // The fault: the cursor goes back altered (as if it had been URL-encoded).
                    (Some(ClientFault::CursorAltered), Value::String(c)) => Value::String(c + "="),
                    (_, cursor) => cursor,
                };
                return vec![self.modern_request("tools/list", json!({ "cursor": cursor }))];
            }
        }
        let again = self.scenario.as_deref() == Some(CACHING_SCENARIO)
            && self.modern.as_ref().is_some_and(|m| !m.relisted);
        if again {
            // The scenario's client needs the tool list once more: a fresh cached first page is
            // used as it is (caching.mdx: fresh for ttlMs), a stale one is asked for again.
            if let Some(m) = self.modern.as_mut() {
                m.relisted = true;
            }
            let key = cache_key("tools/list", &json!({}));
            let fresh = self
                .modern
                .as_ref()
                .and_then(|m| m.cache.get(&key))
                .filter(|c| c.fresh_until > now)
                .map(|c| c.result.clone());
            match (fresh, self.fault) {
                (Some(_), Some(ClientFault::ModernIgnoresTtl)) | (None, _) => {
                    self.tools.clear();
                    return vec![self.modern_request("tools/list", json!({}))];
                }
                (Some(_cached), _) => {}
            }
        }
        let asked = scenario_tool(self.scenario.as_deref());
        let named =
            asked.and_then(|n| self.tools.iter().find(|t| t.get("name").and_then(Value::as_str) == Some(n)));
        let tool = named.or_else(|| {
            self.tools.iter().find(|t| {
                t.pointer("/inputSchema/required").and_then(Value::as_array).is_none_or(|r| r.is_empty())
            })
        });
        match tool.and_then(|t| t.get("name")).cloned() {
            Some(name) => {
                self.phase = Phase::Calling;
                let arguments = match named.is_some() {
                    true => scenario_arguments(self.scenario.as_deref(), self.fault),
                    false => json!({}),
                };
                vec![self.modern_request("tools/call", json!({ "name": name, "arguments": arguments }))]
            }
            None => {
                self.phase = Phase::Done;
                Vec::new()
            }
        }
    }

    /// MRTR: answers each input request through the persona and sends the original request
    /// again, with a new id, `inputResponses` and the `requestState` echoed exactly
    /// (`mrtr.mdx#client-requirements-basic-workflow`). Only the answers to this round's
    /// requests are sent: earlier rounds live in the server's `requestState`.
    fn mrtr_retry(&mut self, id: RequestId, sent: Sent, result: &Value) -> Vec<Value> {
        if sent.rounds + 1 > MAX_MRTR_ROUNDS {
            self.phase =
                Phase::Gave(format!("{} still asked for input after {MAX_MRTR_ROUNDS} rounds", sent.method));
            return Vec::new();
        }
        let mut out = Vec::new();
        let mut responses = Map::new();
        let requests = result.get("inputRequests").and_then(Value::as_object);
        for (key, request) in requests.into_iter().flatten() {
            let Some(method) = request.get("method").and_then(Value::as_str) else { continue };
            let asked = Request {
                id: RequestId::from(key.as_str()),
                method: method.to_owned(),
                params: request.get("params").cloned(),
            };
            let mut answer = self.persona.answer(&asked).to_value();
            let params = asked.params.clone().unwrap_or(Value::Null);
            match method {
                "sampling/createMessage" => self.sampling_fault(&params, &mut answer),
                "elicitation/create" => self.elicitation_fault(&params, &mut answer),
                _ => {}
            }
            if self.fault == Some(ClientFault::ModernSendsResponses) {
                out.push(answer.clone());
            }
            match (answer.get("result").cloned(), answer.pointer("/error/code").and_then(Value::as_i64)) {
                (Some(mut v), _) => {
                    if method == "roots/list" {
                        self.roots_fault(&mut v);
                    }
                    responses.insert(key.clone(), v);
                }
                // What the persona could not do (not declared) is left out: the server asks
                // again or fails the request (mrtr.mdx#error-handling).
                (None, Some(ErrorObject::METHOD_NOT_FOUND)) => {}
                // A request it refuses (tools to a client without sampling.tools, an unbalanced
                // tool loop, …): the original request fails, and is not replayed
                // (client/sampling.mdx#error-handling: the server is not waiting for an answer).
                (None, _) => {
                    let why = answer.pointer("/error/message").and_then(Value::as_str).unwrap_or("");
                    self.phase = Phase::Gave(format!("the input request {key:?} ({method}) failed: {why}"));
                    return out;
                }
            }
        }
        let mut params = sent.params.clone();
        let Some(p) = params.as_object_mut() else { return out };
        if requests.is_some() && self.fault != Some(ClientFault::ModernInputsIgnored) {
            p.insert("inputResponses".into(), Value::Object(responses));
        }
        let state = result.get("requestState").cloned();
        if self.fault == Some(ClientFault::ModernInputsOnOtherRequest) {
            let mut other = Map::new();
            if let Some(r) = p.get("inputResponses") {
                other.insert("inputResponses".into(), r.clone());
            }
            if let Some(s) = &state {
                other.insert("requestState".into(), s.clone());
            }
            out.push(self.modern_request("resources/list", Value::Object(other)));
        }
        let Some(p) = params.as_object_mut() else { return out };
        match (state, self.fault) {
            (Some(_), Some(ClientFault::ModernRequestStateDropped)) => {}
            (Some(Value::String(s)), Some(ClientFault::ModernRequestStateModified)) => {
                p.insert("requestState".into(), Value::String(format!("{s}x")));
            }
            (Some(s), _) => {
                p.insert("requestState".into(), s);
            }
            (None, Some(ClientFault::ModernRequestStateInvented)) => {
                p.insert("requestState".into(), json!("mcpspec-invented-state"));
            }
            (None, _) => {}
        }
        let retry_id = match self.fault {
            Some(ClientFault::ModernRetrySameId) => id,
            _ => {
                let id = RequestId::from(self.next_id);
                self.next_id += 1;
                id
            }
        };
        out.push(self.modern_request_with_id(
            retry_id,
            sent.method,
            params,
            sent.rounds + 1,
            sent.version_retries,
        ));
        out
    }
}

/// The params of the original request: without `_meta`, `inputResponses` or `requestState`.
fn strip_retry_members(params: &Value) -> Value {
    let mut p = params.clone();
    if let Some(o) = p.as_object_mut() {
        for k in ["_meta", "inputResponses", "requestState"] {
            o.remove(k);
        }
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dual(fault: Option<ClientFault>) -> ReferenceClient {
        let mut supported = Revision::LEGACY.to_vec();
        supported.push(Revision::V2026_07_28);
        ReferenceClient::new(supported, fault)
    }

    fn answer(request: &Value, result: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": request["id"], "result": result })
    }

    fn error(request: &Value, code: i64, data: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": request["id"], "error": { "code": code, "message": "no", "data": data } })
    }

    fn discovered() -> Value {
        json!({ "supportedVersions": ["2026-07-28"], "capabilities": { "tools": {} }, "ttlMs": 60000, "cacheScope": "public", "resultType": "complete" })
    }

    fn tools(names: &[&str], cursor: Option<&str>) -> Value {
        let tools: Vec<Value> =
            names.iter().map(|n| json!({ "name": n, "inputSchema": { "type": "object" } })).collect();
        let mut r =
            json!({ "tools": tools, "ttlMs": 60000, "cacheScope": "public", "resultType": "complete" });
        if let Some(c) = cursor {
            r["nextCursor"] = json!(c);
        }
        r
    }

    /// Runs the client through the probe and the tool list, up to its tool call.
    fn to_the_call(c: &mut ReferenceClient) -> Value {
        let probe = c.start().remove(0);
        assert_eq!(probe["method"], "server/discover");
        let list = c.on_message(&answer(&probe, discovered())).remove(0);
        let list2 = c.on_message(&answer(&list, tools(&["a"], Some("c1")))).remove(0);
        assert_eq!(list2["params"]["cursor"], "c1");
        c.on_message(&answer(&list2, tools(&["b"], None))).remove(0)
    }

    #[test]
    fn every_request_carries_the_request_metadata_and_no_initialize_is_sent() {
        let mut c = dual(None);
        let call = to_the_call(&mut c);
        assert_eq!(call["method"], "tools/call");
        assert_eq!(call["params"]["name"], "a");
        let meta = era::read_request_meta(call.get("params")).unwrap();
        assert_eq!(meta.version, "2026-07-28");
        assert_eq!(meta.capabilities, super::super::capabilities_at(Revision::V2026_07_28));
        assert!(meta.client_info.is_some());
        assert_eq!(c.revision, Some(Revision::V2026_07_28));
        assert!(c.on_message(&answer(&call, json!({ "content": [], "resultType": "complete" }))).is_empty());
        assert_eq!(c.phase(), &Phase::Done);
    }

    #[test]
    fn any_non_modern_error_on_the_probe_falls_back_to_initialize() {
        for code in [-32601, -32602, -32600, -32000, 1] {
            let mut c = dual(None);
            let probe = c.start().remove(0);
            let out = c.on_message(&error(&probe, code, Value::Null));
            assert_eq!(out[0]["method"], "initialize", "after {code}");
            assert_ne!(out[0]["id"], probe["id"], "ids stay unique across the fall back");
            assert!(!c.is_modern());
            assert!(c.sent_in_modern_era(&RequestId::from_value(&probe["id"]).unwrap()));
        }
        let mut c = dual(None);
        let probe = c.start().remove(0);
        let id = RequestId::from_value(&probe["id"]).unwrap();
        assert_eq!(c.probing(), Some(id.clone()));
        assert_eq!(c.on_no_answer(&[id])[0]["method"], "initialize", "silence means a legacy server");
        // A modern-only client has nothing to fall back to.
        let mut modern_only = ReferenceClient::new(vec![Revision::V2026_07_28], None);
        let probe = modern_only.start().remove(0);
        assert!(modern_only.on_message(&error(&probe, -32601, Value::Null)).is_empty());
        assert!(matches!(modern_only.phase(), Phase::Gave(_)));
    }

    #[test]
    fn unsupported_version_is_retried_with_a_supported_one_under_a_new_id() {
        let mut c = dual(None);
        let probe = c.start().remove(0);
        let data = json!({ "supported": ["2026-07-28"], "requested": "2026-07-28" });
        let retry = c.on_message(&error(&probe, -32022, data.clone())).remove(0);
        assert_eq!(retry["method"], "server/discover");
        assert_ne!(retry["id"], probe["id"]);
        assert_eq!(retry["params"]["_meta"][PROTOCOL_VERSION_KEY], "2026-07-28");
        let mut wrong = dual(Some(ClientFault::ModernRetryUnsupportedVersion));
        let probe = wrong.start().remove(0);
        let retry = wrong.on_message(&error(&probe, -32022, data.clone())).remove(0);
        assert_eq!(retry["params"]["_meta"][PROTOCOL_VERSION_KEY], UNSUPPORTED_VERSION);
        let mut quits = dual(Some(ClientFault::ModernGivesUpOnUnsupported));
        let probe = quits.start().remove(0);
        assert!(quits.on_message(&error(&probe, -32022, data)).is_empty());
        // None in common: no fall back to initialize on a modern error (stdio.mdx), unless the
        // server names a legacy version the client speaks.
        let mut c = dual(None);
        let probe = c.start().remove(0);
        assert!(c.on_message(&error(&probe, -32022, json!({ "supported": ["2099-01-01"] }))).is_empty());
        assert!(matches!(c.phase(), Phase::Gave(_)));
        let mut c = dual(None);
        let probe = c.start().remove(0);
        let out = c.on_message(&error(&probe, -32022, json!({ "supported": ["2025-06-18"] })));
        assert_eq!(out[0]["method"], "initialize");
    }

    fn input_required(requests: Value, state: Option<&str>) -> Value {
        let mut r = json!({ "resultType": "input_required", "inputRequests": requests });
        if let Some(s) = state {
            r["requestState"] = json!(s);
        }
        r
    }

    fn elicit() -> Value {
        json!({ "ask": { "method": "elicitation/create", "params": { "mode": "form", "message": "name?",
            "requestedSchema": { "type": "object", "properties": { "name": { "type": "string" } }, "required": ["name"] } } } })
    }

    #[test]
    fn input_required_is_answered_and_retried_with_a_new_id_and_the_state_echoed() {
        let mut c = dual(None);
        let call = to_the_call(&mut c);
        let mut requests = elicit();
        requests["roots"] = json!({ "method": "roots/list" });
        requests["llm"] = json!({ "method": "sampling/createMessage", "params": { "messages": [
            { "role": "user", "content": { "type": "text", "text": "hi" } }], "maxTokens": 5 } });
        let retry = c.on_message(&answer(&call, input_required(requests, Some("opaque+/=state")))).remove(0);
        assert_ne!(retry["id"], call["id"]);
        assert_eq!(retry["method"], "tools/call");
        assert_eq!(retry["params"]["name"], "a");
        assert_eq!(retry["params"]["requestState"], "opaque+/=state");
        let responses = &retry["params"]["inputResponses"];
        assert_eq!(responses["ask"]["action"], "accept");
        assert_eq!(responses["roots"]["roots"][0]["uri"], super::super::ROOT_URI);
        assert_eq!(responses["llm"]["role"], "assistant");
        assert!(era::read_request_meta(retry.get("params")).is_ok());
        // A second round without state: the retry carries none, and only this round's answers.
        let again = c.on_message(&answer(&retry, input_required(elicit(), None))).remove(0);
        assert!(again["params"].get("requestState").is_none());
        assert_eq!(again["params"]["inputResponses"].as_object().unwrap().len(), 1);
        assert!(c.on_message(&answer(&again, json!({ "content": [], "resultType": "complete" }))).is_empty());
        assert_eq!(c.phase(), &Phase::Done);
    }

    #[test]
    fn the_mrtr_faults_bend_the_retry() {
        let retry_with = |fault, state: Option<&str>| {
            let mut c = dual(Some(fault));
            let call = to_the_call(&mut c);
            let out = c.on_message(&answer(&call, input_required(elicit(), state)));
            (call, out)
        };
        let (_, out) = retry_with(ClientFault::ModernRequestStateDropped, Some("s"));
        assert!(out[0]["params"].get("requestState").is_none());
        let (_, out) = retry_with(ClientFault::ModernRequestStateModified, Some("s"));
        assert_eq!(out[0]["params"]["requestState"], "sx");
        let (_, out) = retry_with(ClientFault::ModernRequestStateInvented, None);
        assert!(out[0]["params"]["requestState"].is_string());
        let (call, out) = retry_with(ClientFault::ModernRetrySameId, Some("s"));
        assert_eq!(out[0]["id"], call["id"]);
        let (_, out) = retry_with(ClientFault::ModernInputsIgnored, Some("s"));
        assert!(out[0]["params"].get("inputResponses").is_none());
        let (_, out) = retry_with(ClientFault::ModernSendsResponses, Some("s"));
        assert_eq!(out[0]["id"], "ask", "a JSON-RPC response first");
        assert!(out[0].get("result").is_some());
        let (_, out) = retry_with(ClientFault::ModernUndeclaredCapabilityUse, Some("s"));
        assert_eq!(out[0]["params"]["_meta"][CLIENT_CAPABILITIES_KEY], json!({}));
        assert_eq!(out[0]["params"]["inputResponses"]["ask"]["action"], "accept");
    }

    #[test]
    fn undeclared_inputs_are_left_out_and_rounds_are_bounded() {
        let mut plain = dual(Some(ClientFault::DeclareNothing));
        let call = to_the_call(&mut plain);
        let retry = plain.on_message(&answer(&call, input_required(elicit(), Some("s")))).remove(0);
        assert_eq!(retry["params"]["inputResponses"], json!({}));
        let mut c = dual(None);
        let mut request = to_the_call(&mut c);
        for _ in 0..MAX_MRTR_ROUNDS {
            request = c.on_message(&answer(&request, input_required(json!({}), Some("s")))).remove(0);
        }
        assert!(c.on_message(&answer(&request, input_required(json!({}), Some("s")))).is_empty());
        assert!(matches!(c.phase(), Phase::Gave(_)));
    }

    fn sampling(tools: bool, choice: &str) -> Value {
        let mut params = json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "hi" } }],
            "maxTokens": 5, "toolChoice": { "mode": choice } });
        if tools {
            params["tools"] = json!([{ "name": "t", "inputSchema": { "type": "object" } }]);
        }
        json!({ "llm": { "method": "sampling/createMessage", "params": params } })
    }

    /// The persona's answers and the sampling and elicitation faults go into `inputResponses`
    /// as they go into legacy responses; an input request the client refuses ends the request.
    #[test]
    fn input_responses_follow_the_persona_and_its_faults() {
        let answer_to = |fault, requests: Value| {
            let mut c = dual(fault);
            let call = to_the_call(&mut c);
            let out = c.on_message(&answer(&call, input_required(requests, Some("s"))));
            (c, out)
        };
        let (_, out) = answer_to(None, sampling(true, "required"));
        assert_eq!(out[0]["params"]["inputResponses"]["llm"]["stopReason"], "toolUse");
        let (_, out) = answer_to(Some(ClientFault::SamplingIgnoresRequired), sampling(true, "required"));
        assert_eq!(out[0]["params"]["inputResponses"]["llm"]["stopReason"], "endTurn");
        let (_, out) = answer_to(Some(ClientFault::SamplingIgnoresNone), sampling(true, "none"));
        assert_eq!(out[0]["params"]["inputResponses"]["llm"]["stopReason"], "toolUse");
        // Tools to a client without sampling.tools: refused, so the call is not retried.
        let (c, out) = answer_to(Some(ClientFault::SamplingNoTools), sampling(true, "auto"));
        assert!(out.is_empty());
        assert!(matches!(c.phase(), Phase::Gave(_)));
        let (_, out) = answer_to(Some(ClientFault::SamplingToolsIgnored), sampling(true, "auto"));
        assert_eq!(out[0]["params"]["inputResponses"]["llm"]["role"], "assistant");
        // An elicitation without mode is a form; the fault refuses it.
        let mut no_mode = elicit();
        no_mode["ask"]["params"].as_object_mut().unwrap().remove("mode");
        let (_, out) = answer_to(None, no_mode.clone());
        assert_eq!(out[0]["params"]["inputResponses"]["ask"]["action"], "accept");
        let (_, out) = answer_to(Some(ClientFault::ElicitModeRequired), no_mode);
        assert!(out.is_empty());
        // Inputs on another request alongside the retry.
        let (_, out) = answer_to(Some(ClientFault::ModernInputsOnOtherRequest), elicit());
        assert_eq!(out[0]["method"], "resources/list");
        assert_eq!(out[0]["params"]["requestState"], "s");
        assert_eq!(out[1]["method"], "tools/call");
    }

    #[test]
    fn any_next_cursor_is_followed_however_short_its_page() {
        let list_after = |fault, pages: &[(&[&str], Option<&str>)]| {
            let mut c = dual(fault);
            let probe = c.start().remove(0);
            let mut request = c.on_message(&answer(&probe, discovered())).remove(0);
            for (names, cursor) in pages {
                request = c.on_message(&answer(&request, tools(names, *cursor))).remove(0);
            }
            request
        };
        let empty: &[(&[&str], Option<&str>)] = &[(&["a", "b"], Some(""))];
        assert_eq!(list_after(None, empty)["params"]["cursor"], "");
        assert_eq!(list_after(Some(ClientFault::EmptyCursorEnds), empty)["method"], "tools/call");
        let short: &[(&[&str], Option<&str>)] = &[(&["a", "b"], Some("p2")), (&["c"], Some("p3"))];
        assert_eq!(list_after(None, short)["params"]["cursor"], "p3");
        assert_eq!(list_after(Some(ClientFault::PageSizeAssumed), short)["method"], "tools/call");
    }

    #[test]
    fn an_absent_result_type_is_complete_and_an_unknown_one_invalid() {
        let listed = |fault, result_type: Option<&str>| {
            let mut c = dual(fault);
            let probe = c.start().remove(0);
            let list = c.on_message(&answer(&probe, discovered())).remove(0);
            let mut page = tools(&["a"], None);
            match result_type {
                None => {
                    page.as_object_mut().unwrap().remove("resultType");
                }
                Some(t) => page["resultType"] = json!(t),
            }
            let out = c.on_message(&answer(&list, page));
            (out, c)
        };
        assert_eq!(listed(None, None).0[0]["method"], "tools/call");
        let (out, c) = listed(None, Some("mcpspec_unknown"));
        assert!(out.is_empty());
        assert!(matches!(c.phase(), Phase::Gave(_)));
        let used = listed(Some(ClientFault::ModernUnknownResultTypeUsed), Some("mcpspec_unknown")).0;
        assert_eq!(used[0]["method"], "tools/call");
        let again = listed(Some(ClientFault::ModernResultTypeRequired), None).0;
        assert_eq!(again[0]["method"], "tools/list");
    }

    #[test]
    fn a_fresh_list_is_taken_from_the_cache() {
        let run = |fault, ttl: u64| {
            let mut c = dual(fault).for_scenario(Some(CACHING_SCENARIO));
            let probe = c.start().remove(0);
            let list = c.on_message(&answer(&probe, discovered())).remove(0);
            let mut page = tools(&["a"], None);
            page["ttlMs"] = json!(ttl);
            c.on_message(&answer(&list, page)).remove(0)
        };
        assert_eq!(run(None, 60_000)["method"], "tools/call", "fresh: no second list");
        assert_eq!(run(Some(ClientFault::ModernIgnoresTtl), 60_000)["method"], "tools/list");
        assert_eq!(run(None, 0)["method"], "tools/list", "ttlMs 0 is stale at once");
    }

    #[test]
    fn server_requests_get_no_response() {
        let mut c = dual(None);
        c.start();
        let ping = json!({ "jsonrpc": "2.0", "id": "p", "method": "roots/list" });
        assert!(c.on_message(&ping).is_empty());
    }

    #[test]
    fn the_meta_faults_spare_the_probe() {
        let mut c = dual(Some(ClientFault::ModernMetaMissingVersion));
        let probe = c.start().remove(0);
        assert!(era::read_request_meta(probe.get("params")).is_ok());
        let list = c.on_message(&answer(&probe, discovered())).remove(0);
        assert!(list["params"]["_meta"].get(PROTOCOL_VERSION_KEY).is_none());
        let mut c = dual(Some(ClientFault::ModernNoClientInfo));
        let probe = c.start().remove(0);
        assert!(era::read_request_meta(probe.get("params")).unwrap().client_info.is_none());
        let mut c = dual(Some(ClientFault::ModernNoProbe));
        assert_eq!(c.start()[0]["method"], "tools/list");
    }
}
