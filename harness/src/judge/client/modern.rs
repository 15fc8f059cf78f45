//! The modern era's rules for a client (2026-07-28 and the draft), judged on every message
//! of a session whose revision is modern: the request metadata in `_meta` on every request
//! (`basic/index.mdx#_meta`), no JSON-RPC responses from the client (`basic/transports/stdio.mdx`,
//! `streamable-http.mdx#sending-messages`), the MRTR retry (`basic/patterns/mrtr.mdx`: a new
//! id, `requestState` echoed exactly or absent, the input requests answered, only with
//! capabilities the retry declares; `inputResponses` and `requestState` on no other request),
//! and the retry after `-32022`
//! (`basic/versioning.mdx#protocol-version-negotiation`). Sans-IO: it follows both directions
//! (the server's answers tell what the client's next request owes) and judges the client's.
//!
//! A client that sends `initialize` has fallen back to the legacy era (a dual-era client facing
//! what it took for a legacy server): from then on these rules are silent, and whether the fall
//! back was right is the scenarios' to judge.

use crate::judge::rules::Rule;
use crate::judge::rules::Violation;
use crate::judge::verdict::Level;
use mcpspec_protocol::modern::{self as era, CLIENT_CAPABILITIES_KEY, CLIENT_INFO_KEY, PROTOCOL_VERSION_KEY};
use mcpspec_protocol::wire::{json_type, Message, Outcome, RequestId};
use mcpspec_protocol::{Direction, Revision};
use serde_json::Value;
use std::collections::HashMap;

const fn rule(id: &'static str, level: Level, doc: &'static str, requirement: &'static str) -> Rule {
    Rule {
        id,
        level,
        doc,
        doc_2024: None,
        requirement,
        level_before_2025_06_18: None,
        since: Some(Revision::V2026_07_28),
        until: None,
    }
}

pub const META_VERSION: Rule = rule(
    "client-modern/meta-protocol-version",
    Level::MUST,
    "basic/index.mdx#_meta",
    "Client requests carry io.modelcontextprotocol/protocolVersion (a string) in _meta; fields marked as required MUST be included on every request.",
);
pub const META_CAPABILITIES: Rule = rule(
    "client-modern/meta-client-capabilities",
    Level::MUST,
    "basic/index.mdx#_meta",
    "Client requests carry io.modelcontextprotocol/clientCapabilities (an object) in _meta; fields marked as required MUST be included on every request.",
);
pub const META_CLIENT_INFO: Rule = rule(
    "client-modern/meta-client-info",
    Level::SHOULD,
    "basic/index.mdx#_meta",
    "Clients SHOULD include io.modelcontextprotocol/clientInfo on every request unless specifically configured not to do so.",
);
pub const NO_RESPONSES: Rule = rule(
    "client-modern/no-responses",
    Level::MUST,
    "basic/transports/stdio.mdx#sending-messages",
    "The client MUST NOT write JSON-RPC responses (the era has no server requests; streamable-http.mdx#sending-messages says the same).",
);
pub const MRTR_NEW_ID: Rule = rule(
    "client-modern/mrtr-new-id",
    Level::MUST,
    "basic/patterns/mrtr.mdx#client-requirements-basic-workflow",
    "The JSON-RPC id MUST be different between the initial request and the retry, as they are independent requests.",
);
pub const MRTR_STATE_ECHOED: Rule = rule(
    "client-modern/mrtr-request-state-echoed",
    Level::MUST,
    "basic/patterns/mrtr.mdx#client-requirements-basic-workflow",
    "If an InputRequiredResult contains the requestState field, the client MUST echo back the exact value of that field when retrying the original request.",
);
pub const MRTR_NO_STATE_INVENTED: Rule = rule(
    "client-modern/mrtr-no-request-state-invented",
    Level::MUST,
    "basic/patterns/mrtr.mdx#client-requirements-basic-workflow",
    "If the InputRequiredResult does not contain a requestState field, the client MUST NOT include one in the retry.",
);
pub const MRTR_INPUTS_ANSWERED: Rule = rule(
    "client-modern/mrtr-inputs-answered",
    Level::MUST,
    "basic/patterns/mrtr.mdx#client-requirements-basic-workflow",
    "If a client receives an InputRequiredResult that contains the inputRequests field, the client MUST construct the requested inputs before retrying the original request.",
);
pub const MRTR_INPUTS_ONLY_FOR_RETRY: Rule = rule(
    "client-modern/mrtr-inputs-only-for-retry",
    Level::MUST,
    "basic/patterns/mrtr.mdx#client-requirements-basic-workflow",
    "inputRequests and requestState affect only the client's retry of the original request: no other request the client sends carries inputResponses or a requestState.",
);
pub const CAPABILITIES_DECLARED: Rule = rule(
    "client-modern/capabilities-declared",
    Level::MUST,
    "basic/index.mdx#_meta",
    "io.modelcontextprotocol/clientCapabilities are the client capabilities relevant to the request: an inputResponses entry answers only an input request of a capability the retry declares.",
);
pub const RETRY_SUPPORTED_VERSION: Rule = rule(
    "client-modern/retry-supported-version",
    Level::SHOULD,
    "basic/versioning.mdx#protocol-version-negotiation",
    "On UnsupportedProtocolVersionError the client SHOULD select a mutually supported version from the supported list and retry the request.",
);

pub const HTTP_VERSION_HEADER: Rule = rule(
    "http-client/modern-protocol-version-header",
    Level::MUST,
    "basic/transports/streamable-http.mdx#protocol-version-header",
    "Every POST request to the MCP endpoint MUST include an MCP-Protocol-Version header, whose value MUST match the io.modelcontextprotocol/protocolVersion field of the body's _meta.",
);
pub const HTTP_METHOD_HEADER: Rule = rule(
    "http-client/modern-method-header",
    Level::MUST,
    "basic/transports/streamable-http.mdx#standard-request-headers",
    "Mcp-Method, mirroring the body's method, is REQUIRED on all requests.",
);
pub const HTTP_NAME_HEADER: Rule = rule(
    "http-client/modern-name-header",
    Level::MUST,
    "basic/transports/streamable-http.mdx#standard-request-headers",
    "Mcp-Name, mirroring params.name or params.uri (Base64 sentinel when not plain ASCII), is REQUIRED on tools/call, resources/read and prompts/get requests.",
);

pub const PARAM_HEADER_MIRRORED: Rule = rule(
    "http-client/param-header-mirrored",
    Level::MUST,
    "basic/transports/streamable-http.mdx#custom-headers-from-tool-parameters",
    "Clients MUST support x-mcp-header: a tools/call of a tool whose parameters carry it has an Mcp-Param-{name} header for each annotated argument with a value, matching that value.",
);
pub const PARAM_HEADER_OMITTED: Rule = rule(
    "http-client/param-header-omitted",
    Level::MUST,
    "basic/transports/streamable-http.mdx#server-behavior-for-custom-headers",
    "The client MUST omit the Mcp-Param-{name} header of an annotated argument that is null or not in the arguments.",
);
pub const PARAM_HEADER_ENCODED: Rule = rule(
    "http-client/param-header-encoding",
    Level::MUST,
    "basic/transports/streamable-http.mdx#value-encoding",
    "Mcp-Param values are visible ASCII; a value that is not (or has leading or trailing whitespace, or looks like the =?base64?...?= sentinel) MUST travel Base64-encoded in the sentinel.",
);
pub const PARAM_HEADER_SAFE_INTEGER: Rule = rule(
    "http-client/param-header-safe-integer",
    Level::MUST,
    "basic/transports/streamable-http.mdx#schema-extension",
    "Integer values of x-mcp-header parameters MUST be within JavaScript's safe range (-(2^53-1) to 2^53-1).",
);

pub const CURSOR_OPAQUE: Rule = rule(
    "client-modern/cursor-opaque",
    Level::MUST,
    "server/utilities/pagination.mdx#implementation-guidelines",
    "Clients MUST treat cursors as opaque tokens: a cursor a client sends is one the server gave as nextCursor, unchanged.",
);

/// Every rule of this module, for listings and tests.
pub const ALL: &[&Rule] = &[
    &CURSOR_OPAQUE,
    &META_VERSION,
    &META_CAPABILITIES,
    &META_CLIENT_INFO,
    &NO_RESPONSES,
    &MRTR_NEW_ID,
    &MRTR_STATE_ECHOED,
    &MRTR_NO_STATE_INVENTED,
    &MRTR_INPUTS_ANSWERED,
    &MRTR_INPUTS_ONLY_FOR_RETRY,
    &CAPABILITIES_DECLARED,
    &RETRY_SUPPORTED_VERSION,
    &HTTP_VERSION_HEADER,
    &HTTP_METHOD_HEADER,
    &HTTP_NAME_HEADER,
    &PARAM_HEADER_MIRRORED,
    &PARAM_HEADER_OMITTED,
    &PARAM_HEADER_ENCODED,
    &PARAM_HEADER_SAFE_INTEGER,
];

/// How many requests in flight and retries due are remembered (a flood costs bounded memory).
const KEPT: usize = 10_000;

/// What an `input_required` answer asked of the client's retry.
#[derive(Debug, Clone)]
struct Due {
    /// The id of the request answered with `input_required`.
    id: RequestId,
    /// The input requests: key → method.
    inputs: Vec<(String, String)>,
    /// Whether `inputRequests` was there at all.
    asked: bool,
    state: Option<Value>,
}

/// The client's side of the modern era, followed across a session.
#[derive(Debug, Default, Clone)]
pub struct ModernClientRules {
    /// The client's requests awaiting answers: id → what a retry of it is known by.
    in_flight: HashMap<RequestId, String>,
    /// Retries owed after `input_required`, by what the request is known by.
    due: HashMap<String, Due>,
    /// After `-32022`: the versions the server named, until the client's next request.
    supported: Option<Vec<String>>,
    /// The client sent `initialize`: it speaks the legacy era now.
    fell_back: bool,
    /// Every `nextCursor` the server gave (bounded), as JSON text.
    cursors: std::collections::HashSet<String>,
}

/// What a retry of a request is known by: its method and the name or URI it is about (the same
/// tool, prompt or resource; `mrtr.mdx`: the client "retries the original request").
fn retry_key(method: &str, params: Option<&Value>) -> String {
    format!("{method} {}", era::name_source(method, params).unwrap_or(""))
}

/// The client capability an input request needs.
fn capability_for(method: &str) -> Option<&'static str> {
    match method {
        "sampling/createMessage" => Some("sampling"),
        "elicitation/create" => Some("elicitation"),
        "roots/list" => Some("roots"),
        _ => None,
    }
}

impl ModernClientRules {
    /// Judges one message (the client's) or follows it (the server's).
    pub fn on_message(&mut self, direction: Direction, message: &Message, out: &mut Vec<Violation>) {
        match (direction, message) {
            (Direction::ClientToServer, Message::Request(r)) if r.method == "initialize" => {
                self.fell_back = true
            }
            _ if self.fell_back => {}
            (Direction::ClientToServer, Message::Request(r)) => {
                self.on_request(&r.id, &r.method, r.params.as_ref(), out)
            }
            (Direction::ClientToServer, Message::Response(resp)) => {
                let id = resp.id.as_ref().map_or_else(|| "no id".to_owned(), |i| format!("id {i}"));
                out.push(Violation::new(
                    &NO_RESPONSES,
                    "requests and notifications only: no JSON-RPC responses from the client",
                    format!("a response ({id})"),
                ));
            }
            (Direction::ServerToClient, Message::Response(resp)) => {
                let Some(id) = &resp.id else { return };
                if let Outcome::Result(result) = &resp.outcome {
                    if let Some(cursor) = result.get("nextCursor").filter(|c| !c.is_null()) {
                        if self.cursors.len() < KEPT {
                            self.cursors.insert(cursor.to_string());
                        }
                    }
                }
                let Some(key) = self.in_flight.remove(id) else { return };
                match &resp.outcome {
                    Outcome::Result(result)
                        if result.get("resultType").and_then(Value::as_str) == Some(era::INPUT_REQUIRED) =>
                    {
                        let requests = result.get("inputRequests").and_then(Value::as_object);
                        let inputs = requests
                            .into_iter()
                            .flatten()
                            .map(|(k, v)| {
                                (k.clone(), v.get("method").and_then(Value::as_str).unwrap_or("").to_owned())
                            })
                            .collect();
                        let due = Due {
                            id: id.clone(),
                            inputs,
                            asked: requests.is_some(),
                            state: result.get("requestState").cloned(),
                        };
                        if self.due.len() < KEPT {
                            self.due.insert(key, due);
                        }
                    }
                    Outcome::Error(e)
                        if e.code == mcpspec_protocol::wire::ErrorObject::UNSUPPORTED_PROTOCOL_VERSION =>
                    {
                        let supported =
                            e.data.as_ref().and_then(|d| d.get("supported")).and_then(Value::as_array);
                        self.supported = supported
                            .map(|s| s.iter().filter_map(Value::as_str).map(str::to_owned).collect());
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    fn on_request(&mut self, id: &RequestId, method: &str, params: Option<&Value>, out: &mut Vec<Violation>) {
        let what = format!("{method} request {id}");
        // pagination.mdx: a cursor goes back exactly as the server gave it.
        if let Some(cursor) = params.and_then(|p| p.get("cursor")).filter(|c| !c.is_null()) {
            if !self.cursors.contains(&cursor.to_string()) {
                out.push(Violation::new(
                    &CURSOR_OPAQUE,
                    "a cursor the server gave as nextCursor, unchanged",
                    format!("{what} with cursor {cursor}, which the server never gave"),
                ));
            }
        }
        let meta = params.and_then(|p| p.get("_meta"));
        let meta_obj = meta.and_then(Value::as_object);
        let version = meta_obj.and_then(|m| m.get(PROTOCOL_VERSION_KEY));
        let capabilities = meta_obj.and_then(|m| m.get(CLIENT_CAPABILITIES_KEY));
        match version {
            Some(Value::String(_)) => {}
            Some(other) => out.push(Violation::new(
                &META_VERSION,
                format!("_meta[{PROTOCOL_VERSION_KEY:?}], a string"),
                format!("{what} with {} there", json_type(other)),
            )),
            None => out.push(Violation::new(
                &META_VERSION,
                format!("_meta[{PROTOCOL_VERSION_KEY:?}] on every request"),
                format!("{what} without it{}", if meta.is_none() { " (no params._meta at all)" } else { "" }),
            )),
        }
        match capabilities {
            Some(caps @ Value::Object(_)) => {
                if let Some(problem) = mcpspec_protocol::elicitation::modes_problem(caps) {
                    out.push(Violation::new(
                        &crate::judge::rules::CLIENT_ELICITATION_MODE,
                        "an elicitation capability declaring form mode, URL mode or both ({} for form)",
                        format!("{what}: {problem}"),
                    ));
                }
            }
            Some(other) => out.push(Violation::new(
                &META_CAPABILITIES,
                format!("_meta[{CLIENT_CAPABILITIES_KEY:?}], an object"),
                format!("{what} with {} there", json_type(other)),
            )),
            None => out.push(Violation::new(
                &META_CAPABILITIES,
                format!("_meta[{CLIENT_CAPABILITIES_KEY:?}] on every request"),
                format!("{what} without it"),
            )),
        }
        if meta_obj.is_some_and(|m| !m.contains_key(CLIENT_INFO_KEY)) {
            out.push(Violation::new(
                &META_CLIENT_INFO,
                format!("_meta[{CLIENT_INFO_KEY:?}] on every request"),
                format!("{what} without it"),
            ));
        }
        if let Some(supported) = self.supported.take() {
            let v = version.and_then(Value::as_str).unwrap_or("");
            if !supported.iter().any(|s| s == v) {
                out.push(Violation::new(
                    &RETRY_SUPPORTED_VERSION,
                    format!("after -32022, a version from the server's supported list {supported:?}"),
                    format!("{what} at version {v:?}"),
                ));
            }
        }
        let key = retry_key(method, params);
        match self.due.remove(&key) {
            Some(due) => self.judge_retry(id, &what, params, capabilities, &due, out),
            None => {
                let carried: Vec<&str> = ["inputResponses", "requestState"]
                    .into_iter()
                    .filter(|k| params.and_then(|p| p.get(*k)).is_some())
                    .collect();
                if !carried.is_empty() {
                    out.push(Violation::new(
                        &MRTR_INPUTS_ONLY_FOR_RETRY,
                        "inputResponses and requestState only on the retry of a request answered input_required",
                        format!("{what} with {}, retrying no request answered input_required", carried.join(" and ")),
                    ));
                }
            }
        }
        if self.in_flight.len() < KEPT {
            self.in_flight.insert(id.clone(), key);
        }
    }

    fn judge_retry(
        &self,
        id: &RequestId,
        what: &str,
        params: Option<&Value>,
        capabilities: Option<&Value>,
        due: &Due,
        out: &mut Vec<Violation>,
    ) {
        if *id == due.id {
            out.push(Violation::new(
                &MRTR_NEW_ID,
                format!(
                    "a retry with an id other than {} (the request answered with input_required)",
                    due.id
                ),
                format!("{what}: the same id"),
            ));
        }
        let state = params.and_then(|p| p.get("requestState"));
        match (&due.state, state) {
            (Some(given), Some(sent)) if given == sent => {}
            (Some(given), sent) => out.push(Violation::new(
                &MRTR_STATE_ECHOED,
                format!("requestState {given} echoed exactly"),
                match sent {
                    Some(s) => format!("{what} with requestState {s}"),
                    None => format!("{what} without requestState"),
                },
            )),
            (None, Some(sent)) => out.push(Violation::new(
                &MRTR_NO_STATE_INVENTED,
                "no requestState (the InputRequiredResult gave none)",
                format!("{what} with requestState {sent}"),
            )),
            (None, None) => {}
        }
        let responses = params.and_then(|p| p.get("inputResponses")).and_then(Value::as_object);
        let declares = |cap: &str| capabilities.and_then(|c| c.get(cap)).is_some();
        // Only what the retry declares is owed: an input request of another capability is the
        // server's fault (mrtr.mdx: servers MUST NOT send them), and answering it is the
        // client's (below).
        let missing: Vec<&str> = due
            .inputs
            .iter()
            .filter(|(k, m)| {
                capability_for(m).is_none_or(declares) && !responses.is_some_and(|r| r.contains_key(k))
            })
            .map(|(k, _)| k.as_str())
            .collect();
        if due.asked && !missing.is_empty() {
            out.push(Violation::new(
                &MRTR_INPUTS_ANSWERED,
                "inputResponses answering each input request of the InputRequiredResult",
                match responses {
                    None => format!("{what} without inputResponses (asked for {missing:?})"),
                    Some(_) => format!("{what} without answers to {missing:?}"),
                },
            ));
        }
        for (key, method) in &due.inputs {
            let Some(cap) = capability_for(method) else { continue };
            if responses.is_some_and(|r| r.contains_key(key)) && !declares(cap) {
                out.push(Violation::new(
                    &CAPABILITIES_DECLARED,
                    format!("an answer to {key:?} ({method}) only from a client that declares {cap}"),
                    format!(
                        "{what} answers it, declaring {}",
                        capabilities.map_or("nothing".into(), Value::to_string)
                    ),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const C2S: Direction = Direction::ClientToServer;
    const S2C: Direction = Direction::ServerToClient;

    fn meta(caps: Value) -> Value {
        era::request_meta("2026-07-28", &caps, Some(&json!({"name": "c", "version": "1"})))
    }

    fn judge(rules: &mut ModernClientRules, direction: Direction, value: Value) -> Vec<&'static str> {
        let mut out = Vec::new();
        rules.on_message(direction, &Message::from_value(&value).unwrap(), &mut out);
        out.iter().map(|v| v.rule.id).collect()
    }

    fn call(id: i64, extra: Value, caps: Value) -> Value {
        let mut params = json!({"name": "t", "arguments": {}});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": era::with_request_meta(Some(params), &meta(caps))})
    }

    fn input_required(id: i64, state: Option<&str>) -> Value {
        let mut r = json!({"resultType": "input_required", "inputRequests": {
            "ask": {"method": "elicitation/create", "params": {"message": "?", "requestedSchema": {"type": "object"}}}}});
        if let Some(s) = state {
            r["requestState"] = json!(s);
        }
        json!({"jsonrpc": "2.0", "id": id, "result": r})
    }

    #[test]
    fn request_metadata_is_required_and_client_info_recommended() {
        let mut r = ModernClientRules::default();
        assert!(judge(&mut r, C2S, call(1, json!({}), json!({}))).is_empty());
        let bare = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        assert_eq!(
            judge(&mut r, C2S, bare),
            ["client-modern/meta-protocol-version", "client-modern/meta-client-capabilities"]
        );
        let no_info = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
            PROTOCOL_VERSION_KEY: 2026, CLIENT_CAPABILITIES_KEY: {}}}});
        assert_eq!(
            judge(&mut r, C2S, no_info),
            ["client-modern/meta-protocol-version", "client-modern/meta-client-info"]
        );
        let response = json!({"jsonrpc": "2.0", "id": "x", "result": {}});
        assert_eq!(judge(&mut r, C2S, response), ["client-modern/no-responses"]);
        // After a fall back to initialize, the legacy era's rules apply instead.
        let init = json!({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {}});
        assert!(judge(&mut r, C2S, init).is_empty());
        assert!(judge(&mut r, C2S, json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"})).is_empty());
    }

    /// The requestState given, the retry's id, its extra params and capabilities, the rules broken.
    type Case<'a> = (Option<&'a str>, i64, Value, Value, &'a [&'a str]);

    #[test]
    fn a_good_retry_passes_and_each_fault_is_named() {
        let caps = json!({"elicitation": {}});
        let answers =
            json!({"inputResponses": {"ask": {"action": "accept", "content": {}}}, "requestState": "s"});
        let cases: [Case; 7] = [
            (Some("s"), 2, answers.clone(), caps.clone(), &[]),
            (Some("s"), 1, answers.clone(), caps.clone(), &["client-modern/mrtr-new-id"]),
            (
                Some("s"),
                2,
                json!({"inputResponses": {"ask": {"action": "decline"}}}),
                caps.clone(),
                &["client-modern/mrtr-request-state-echoed"],
            ),
            (
                Some("s"),
                2,
                json!({"inputResponses": {"ask": {"action": "decline"}}, "requestState": "sx"}),
                caps.clone(),
                &["client-modern/mrtr-request-state-echoed"],
            ),
            (None, 2, answers.clone(), caps.clone(), &["client-modern/mrtr-no-request-state-invented"]),
            (
                Some("s"),
                2,
                json!({"requestState": "s"}),
                caps.clone(),
                &["client-modern/mrtr-inputs-answered"],
            ),
            (Some("s"), 2, answers.clone(), json!({}), &["client-modern/capabilities-declared"]),
        ];
        for (state, retry_id, extra, caps, want) in cases {
            let mut r = ModernClientRules::default();
            judge(&mut r, C2S, call(1, json!({}), caps.clone()));
            judge(&mut r, S2C, input_required(1, state));
            assert_eq!(
                judge(&mut r, C2S, call(retry_id, extra.clone(), caps)),
                want,
                "{state:?} {retry_id} {extra}"
            );
        }
    }

    #[test]
    fn inputs_go_only_on_the_retry() {
        let caps = json!({"elicitation": {}});
        let answers =
            json!({"inputResponses": {"ask": {"action": "accept", "content": {}}}, "requestState": "s"});
        let mut r = ModernClientRules::default();
        // Before any input_required, a request carrying inputs retries nothing.
        assert_eq!(
            judge(&mut r, C2S, call(1, answers.clone(), caps.clone())),
            ["client-modern/mrtr-inputs-only-for-retry"]
        );
        judge(&mut r, S2C, input_required(1, Some("s")));
        // Another request alongside the retry, carrying its inputs.
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "resources/list",
            "params": era::with_request_meta(Some(answers.clone()), &meta(caps.clone()))});
        assert_eq!(judge(&mut r, C2S, list), ["client-modern/mrtr-inputs-only-for-retry"]);
        assert!(judge(&mut r, C2S, call(3, answers.clone(), caps.clone())).is_empty(), "the retry itself");
        // The retry is owed once: the same inputs again are on another request.
        assert_eq!(judge(&mut r, C2S, call(4, answers, caps)), ["client-modern/mrtr-inputs-only-for-retry"]);
    }

    #[test]
    fn a_retry_after_unsupported_version_uses_a_supported_one() {
        let mut r = ModernClientRules::default();
        judge(&mut r, C2S, call(1, json!({}), json!({})));
        let refusal = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "no",
            "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}});
        judge(&mut r, S2C, refusal.clone());
        assert!(judge(&mut r, C2S, call(2, json!({}), json!({}))).is_empty());
        judge(
            &mut r,
            S2C,
            json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32022, "message": "no",
            "data": {"supported": ["2099-01-01"], "requested": "2026-07-28"}}}),
        );
        assert_eq!(
            judge(&mut r, C2S, call(3, json!({}), json!({}))),
            ["client-modern/retry-supported-version"]
        );
    }

    #[test]
    fn rule_ids_are_unique_and_cite_a_page() {
        let mut ids: Vec<_> = ALL.iter().map(|r| r.id).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), ALL.len());
        assert!(ALL.iter().all(|r| r.doc.ends_with(".mdx") || r.doc.contains(".mdx#")));
        assert!(crate::judge::rules::ALL.iter().all(|r| !ids.contains(&r.id)));
    }
}
