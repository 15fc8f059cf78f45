//! Session rules of the modern era (2026-07-28 and the draft), judged on what the server
//! sends: every result says its `resultType`; cacheable results carry caching hints; input is
//! asked for with an `InputRequiredResult` only where the spec allows it, only for what the
//! request declared, and never with a JSON-RPC request of the server's own; log messages only
//! for requests that asked for them; subscription streams acknowledged first and carrying
//! their subscription id; error codes only the spec defines.
//!
//! The client's capabilities travel in each request's `_meta`, so what a server may ask for is
//! judged against the request it answers (kept with the outstanding request), not a session.

use super::{Pending, SessionChecker};
use crate::judge::rules;
use crate::judge::rules::Violation;
use mcpspec_protocol::modern::{self, RequestMeta};
use mcpspec_protocol::wire::{ErrorObject, Notification, Outcome, Request, RequestId, Response};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What the checker keeps of a session of the modern era.
#[derive(Debug, Default, Clone)]
pub(super) struct ModernState {
    /// The `cacheScope` of the last page of each list (method → scope).
    list_scopes: HashMap<String, String>,
    /// `subscriptions/listen` requests whose acknowledgement has arrived.
    acknowledged: HashSet<RequestId>,
    /// The client's extension identifiers were found wrong once: every request repeats them.
    pub(super) client_extensions_judged: bool,
}

/// What the checker keeps of one outstanding modern request.
#[derive(Debug, Clone)]
pub(super) struct ModernRequest {
    /// The client capabilities its `_meta` declared (`None` when its `_meta` is malformed:
    /// the server must then refuse it, and may ask for nothing).
    pub capabilities: Option<Value>,
    /// Its `_meta` asked for log messages.
    pub log_level: bool,
    /// It asks for a page after the first (it carries a cursor).
    pub paged: bool,
    /// For `subscriptions/listen`: the notifications filter.
    pub filter: Option<Value>,
    /// Its `_meta` names a protocol version: a modern request. One that does not (a legacy
    /// client's `initialize`) a dual-era server may serve by the legacy rules
    /// (`basic/versioning.mdx#backward-compatibility-with-initialization-based-versions`).
    pub names_version: bool,
}

impl ModernRequest {
    pub(super) fn of(r: &Request) -> ModernRequest {
        let params = r.params.as_ref();
        let meta: Option<RequestMeta> = modern::read_request_meta(params).ok();
        ModernRequest {
            capabilities: meta.as_ref().map(|m| m.capabilities.clone()),
            log_level: meta.as_ref().is_some_and(|m| m.log_level.is_some()),
            paged: params.and_then(|p| p.get("cursor")).is_some(),
            filter: (r.method == "subscriptions/listen")
                .then(|| params.and_then(|p| p.get("notifications")).cloned())
                .flatten(),
            names_version: params
                .and_then(|p| p.get("_meta"))
                .and_then(|m| m.get(modern::PROTOCOL_VERSION_KEY))
                .is_some(),
        }
    }
}

/// The notification type a subscription filter member asks for.
fn filter_member(method: &str) -> Option<&'static str> {
    match method {
        "notifications/tools/list_changed" => Some("toolsListChanged"),
        "notifications/prompts/list_changed" => Some("promptsListChanged"),
        "notifications/resources/list_changed" => Some("resourcesListChanged"),
        "notifications/resources/updated" => Some("resourceSubscriptions"),
        _ => None,
    }
}

const LIST_METHODS: [&str; 4] = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];

impl SessionChecker {
    /// Judges a server's response to a modern request.
    pub(super) fn on_modern_response(
        &mut self,
        resp: &Response,
        pending: Option<&Pending>,
        out: &mut Vec<Violation>,
    ) {
        let method = pending.map(|p| p.method.as_str()).unwrap_or_default();
        let request = pending.and_then(|p| p.modern.as_ref());
        // A result to a request that was not a modern one is the legacy era's to judge.
        if request.is_some_and(|r| !r.names_version) && matches!(resp.outcome, Outcome::Result(_)) {
            return;
        }
        match &resp.outcome {
            Outcome::Error(e) => judge_error_code(e, out),
            Outcome::Result(result) => match result.get("resultType") {
                None => out.push(Violation::new(
                    &rules::MODERN_RESULT_TYPE,
                    "a result with resultType \"complete\" or \"input_required\"",
                    format!("a {} result without resultType", shown(method)),
                )),
                Some(Value::String(t)) if t == modern::COMPLETE => {
                    if modern::is_cacheable(method) {
                        self.judge_cache_hints(method, result, request, out);
                    }
                    if method == "server/discover" {
                        self.negotiation.server_capabilities = result.get("capabilities").cloned();
                        let caps = result.get("capabilities").unwrap_or(&Value::Null);
                        judge_extension_identifiers("the server's", caps, out);
                    }
                    // A cancellation naming the listen request would have closed it already
                    // (`negotiation.rs`): this result ends the subscription without one.
                    if method == "subscriptions/listen" {
                        out.push(Violation::new(
                            &rules::SUBSCRIPTION_END_CANCELLED,
                            "notifications/cancelled naming the subscriptions/listen request when the server ends the subscription (cancellation.mdx; subscriptions.mdx#graceful-closure asks for a completion result instead)",
                            format!("the subscription {} ended with a completion result and no notifications/cancelled", resp.id.as_ref().map_or("?".to_owned(), |i| i.to_string())),
                        ));
                    }
                    if method == "tools/list" {
                        judge_param_headers(result, out);
                    }
                }
                Some(Value::String(t)) if t == modern::INPUT_REQUIRED => {
                    self.judge_input_required(method, result, request, out)
                }
                Some(other) => out.push(Violation::new(
                    &rules::MODERN_RESULT_TYPE,
                    "resultType \"complete\" or \"input_required\"",
                    format!("resultType {other} on a {} result", shown(method)),
                )),
            },
        }
    }

    fn judge_cache_hints(
        &mut self,
        method: &str,
        result: &Value,
        request: Option<&ModernRequest>,
        out: &mut Vec<Violation>,
    ) {
        let ttl_ok = result
            .get("ttlMs")
            .and_then(Value::as_f64)
            .is_some_and(|t| t >= 0.0 && t.fract() == 0.0 && t <= u64::MAX as f64);
        let scope =
            result.get("cacheScope").and_then(Value::as_str).filter(|s| matches!(*s, "public" | "private"));
        if !ttl_ok || scope.is_none() {
            out.push(Violation::new(
                &rules::CACHE_HINTS,
                "ttlMs (an integer >= 0) and cacheScope (\"public\" or \"private\")",
                format!(
                    "the {method} result has ttlMs {} and cacheScope {}",
                    shown_value(result.get("ttlMs")),
                    shown_value(result.get("cacheScope"))
                ),
            ));
        }
        let Some(scope) = scope else { return };
        if !LIST_METHODS.contains(&method) {
            return;
        }
        let paged = request.is_some_and(|r| r.paged);
        match self.modern.list_scopes.get(method) {
            Some(before) if paged && before != scope => out.push(Violation::new(
                &rules::CACHE_SCOPE_PAGES,
                format!("cacheScope {before:?} on every page of {method}, as on the page before"),
                format!("cacheScope {scope:?} on a later page"),
            )),
            _ => {}
        }
        self.modern.list_scopes.insert(method.to_owned(), scope.to_owned());
    }

    fn judge_input_required(
        &mut self,
        method: &str,
        result: &Value,
        request: Option<&ModernRequest>,
        out: &mut Vec<Violation>,
    ) {
        if !modern::allows_input_required(method) {
            out.push(Violation::new(
                &rules::MRTR_SUPPORTED_REQUESTS,
                "InputRequiredResult only on prompts/get, resources/read and tools/call",
                format!("an InputRequiredResult answering {}", shown(method)),
            ));
        }
        let inputs = result.get("inputRequests").and_then(Value::as_object);
        let state = result.get("requestState");
        if inputs.is_none_or(|i| i.is_empty()) && state.is_none() {
            out.push(Violation::new(
                &rules::MRTR_INPUT_OR_STATE,
                "inputRequests or requestState (at least one)",
                "an InputRequiredResult with neither",
            ));
        }
        let Some(inputs) = inputs else { return };
        // A request whose _meta was malformed declared nothing.
        let declared =
            request.and_then(|r| r.capabilities.clone()).unwrap_or_else(|| Value::Object(Default::default()));
        for (key, input) in inputs {
            let kind = input.get("method").and_then(Value::as_str).unwrap_or_default();
            if !matches!(kind, "elicitation/create" | "sampling/createMessage" | "roots/list") {
                out.push(Violation::new(
                    &rules::MRTR_INPUT_REQUESTS,
                    "an elicitation/create, sampling/createMessage or roots/list request",
                    format!("inputRequests[{key:?}] is {}", shown_value(input.get("method"))),
                ));
                continue;
            }
            let params = input.get("params").cloned().unwrap_or(Value::Null);
            self.judge_server_ask(kind, &params, &declared, &rules::MRTR_DECLARED, out);
        }
    }

    /// Judges a notification the server sends in the modern era.
    pub(super) fn on_modern_notification(&mut self, n: &Notification, out: &mut Vec<Violation>) {
        if n.method == "notifications/message" {
            let asked =
                self.client.outstanding.values().any(|p| p.modern.as_ref().is_some_and(|m| m.log_level));
            if !asked {
                out.push(Violation::new(
                    &rules::LOG_LEVEL_PER_REQUEST,
                    "notifications/message only for a request whose _meta has io.modelcontextprotocol/logLevel",
                    "notifications/message while no request awaiting its answer asked for log messages",
                ));
            }
            return;
        }
        let ack = n.method == "notifications/subscriptions/acknowledged";
        let Some(member) = filter_member(&n.method).or(ack.then_some("")) else { return };
        let id = n
            .params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(|m| m.get(modern::SUBSCRIPTION_ID_KEY))
            .and_then(RequestId::from_value);
        let Some(id) = id else {
            out.push(Violation::new(
                &rules::SUBSCRIPTION_ID,
                format!("_meta[{:?}] naming the subscriptions/listen request", modern::SUBSCRIPTION_ID_KEY),
                format!("{} without a subscription id", n.method),
            ));
            return;
        };
        let filter = match self.client.outstanding.get(&id) {
            Some(p) if p.method == "subscriptions/listen" => p.modern.as_ref().and_then(|m| m.filter.clone()),
            _ => {
                out.push(Violation::new(
                    &rules::SUBSCRIPTION_ID,
                    "the id of an open subscriptions/listen request",
                    format!(
                        "{} for subscription {id}, which no open subscriptions/listen request has",
                        n.method
                    ),
                ));
                return;
            }
        };
        if ack {
            self.modern.acknowledged.insert(id);
            return;
        }
        if !self.modern.acknowledged.contains(&id) {
            out.push(Violation::new(
                &rules::SUBSCRIPTION_ACK_FIRST,
                "notifications/subscriptions/acknowledged before any other notification of the subscription",
                format!("{} on subscription {id} before its acknowledgement", n.method),
            ));
        }
        let requested = filter.as_ref().and_then(|f| f.get(member)).is_some_and(|v| match v {
            Value::Bool(b) => *b,
            Value::Array(uris) => {
                let uri = n.params.as_ref().and_then(|p| p.get("uri"));
                uri.is_some_and(|u| uris.contains(u))
            }
            _ => false,
        });
        if !requested {
            out.push(Violation::new(
                &rules::SUBSCRIPTION_ONLY_REQUESTED,
                format!("only the notifications subscription {id} asked for"),
                format!("{} though its filter is {}", n.method, shown_value(filter.as_ref())),
            ));
        }
    }
}

/// Codes a modern server must not emit (`basic/index.mdx#error-codes`).
/// `streamable-http.mdx#schema-extension`: every tool's `x-mcp-header` annotations.
/// basic/versioning.mdx#extension-negotiation: each key of `capabilities.extensions` is an
/// extension identifier, named as `_meta` keys are and always with a prefix.
pub(super) fn judge_extension_identifiers(whose: &str, caps: &Value, out: &mut Vec<Violation>) {
    let problems = mcpspec_protocol::capabilities::extension_identifier_problems(caps);
    if !problems.is_empty() {
        out.push(Violation::new(
            &rules::EXTENSION_IDENTIFIERS,
            "extension identifiers named as _meta keys, each with a prefix (io.modelcontextprotocol/tasks)",
            format!("{whose} capabilities.extensions: {}", problems.join("; ")),
        ));
    }
}

fn judge_param_headers(result: &Value, out: &mut Vec<Violation>) {
    for tool in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
        let schema = tool.get("inputSchema").unwrap_or(&Value::Null);
        for problem in mcpspec_protocol::param_headers::problems(schema) {
            out.push(Violation::new(
                &rules::X_MCP_HEADER,
                "x-mcp-header annotations within the constraints",
                format!("tool {name:?}, inputSchema{problem}"),
            ));
        }
    }
}

fn judge_error_code(e: &ErrorObject, out: &mut Vec<Violation>) {
    let defined = [
        ErrorObject::HEADER_MISMATCH,
        ErrorObject::MISSING_REQUIRED_CLIENT_CAPABILITY,
        ErrorObject::UNSUPPORTED_PROTOCOL_VERSION,
    ];
    let retired = e.code == ErrorObject::RESOURCE_NOT_FOUND || e.code == -32042;
    let undefined = (-32099..=-32020).contains(&e.code) && !defined.contains(&e.code);
    if retired || undefined {
        out.push(Violation::new(
            &rules::MODERN_ERROR_CODES,
            "a code the spec defines for 2026-07-28 (never -32002 or -32042)",
            format!("error {}: {}", e.code, e.message),
        ));
    }
}

fn shown(method: &str) -> &str {
    if method.is_empty() {
        "(unmatched)"
    } else {
        method
    }
}

fn shown_value(v: Option<&Value>) -> String {
    v.map_or_else(|| "absent".to_owned(), Value::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::checker::tests::{ids, C2S, S2C};
    use mcpspec_protocol::Revision;
    use serde_json::json;

    fn request(id: i64, method: &str, caps: Value, extra: Value) -> Value {
        let mut params = extra;
        params["_meta"] =
            modern::request_meta("2026-07-28", &caps, Some(&json!({"name": "c", "version": "1"})));
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
    }

    fn result(id: i64, result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": result})
    }

    fn checker() -> SessionChecker {
        SessionChecker::new(Revision::V2026_07_28)
    }

    /// basic/versioning.mdx#extension-negotiation: extension identifiers have a prefix, on either
    /// side; the client's, repeated in every request, are reported once.
    #[test]
    fn extension_identifiers_have_a_prefix() {
        let mut c = checker();
        let caps = json!({"extensions": {"tasks": {}}});
        let first = c.on_value(C2S, &request(1, "tools/list", caps.clone(), json!({})));
        assert_eq!(ids(&first), ["extensions/identifier-naming"]);
        assert!(ids(&c.on_value(C2S, &request(2, "tools/list", caps, json!({})))).is_empty());
        let mut c = checker();
        let good = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
        assert!(ids(&c.on_value(C2S, &request(3, "server/discover", good, json!({})))).is_empty());
        let discovered = c.on_value(
            S2C,
            &result(
                3,
                json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
            "capabilities": {"extensions": {"tasks": {}}}, "ttlMs": 0, "cacheScope": "public"}),
            ),
        );
        assert_eq!(ids(&discovered), ["extensions/identifier-naming"]);
    }

    /// A modern server ends a subscription by naming the client's listen request in
    /// notifications/cancelled (2026-07-28 basic/patterns/cancellation.mdx); any other request
    /// of the client's is none of its to cancel.
    #[test]
    fn a_server_cancels_only_a_listen_request() {
        let mut c = checker();
        let listen = request(
            7,
            "subscriptions/listen",
            json!({}),
            json!({"notifications": {"toolsListChanged": true}}),
        );
        assert!(ids(&c.on_value(C2S, &listen)).is_empty());
        let cancel = |id: i64| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
        assert!(ids(&c.on_value(S2C, &cancel(7))).is_empty(), "ending a subscription");
        let call = request(8, "tools/list", json!({}), json!({}));
        assert!(ids(&c.on_value(C2S, &call)).is_empty());
        assert_eq!(ids(&c.on_value(S2C, &cancel(8))), ["cancellation/in-flight-only"]);
    }

    #[test]
    fn results_say_their_type_and_cacheable_ones_their_hints() {
        let mut c = checker();
        c.on_value(C2S, &request(1, "tools/call", json!({}), json!({"name": "t"})));
        assert_eq!(ids(&c.on_value(S2C, &result(1, json!({"content": []})))), ["modern/result-type"]);
        c.on_value(C2S, &request(2, "tools/list", json!({}), json!({})));
        let no_hints = result(2, json!({"resultType": "complete", "tools": []}));
        assert_eq!(ids(&c.on_value(S2C, &no_hints)), ["caching/hints"]);
        c.on_value(C2S, &request(3, "tools/list", json!({}), json!({})));
        let negative =
            result(3, json!({"resultType": "complete", "tools": [], "ttlMs": -1, "cacheScope": "public"}));
        assert_eq!(ids(&c.on_value(S2C, &negative)), ["caching/hints"]);
        c.on_value(C2S, &request(4, "tools/list", json!({}), json!({})));
        let good = result(
            4,
            json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "private", "nextCursor": "c"}),
        );
        assert!(ids(&c.on_value(S2C, &good)).is_empty());
        c.on_value(C2S, &request(5, "tools/list", json!({}), json!({"cursor": "c"})));
        let other_scope =
            result(5, json!({"resultType": "complete", "tools": [], "ttlMs": 0, "cacheScope": "public"}));
        assert_eq!(ids(&c.on_value(S2C, &other_scope)), ["caching/same-scope-every-page"]);
        c.on_value(C2S, &request(6, "tools/call", json!({}), json!({"name": "t"})));
        let odd = result(6, json!({"resultType": "partial", "content": []}));
        assert_eq!(ids(&c.on_value(S2C, &odd)), ["modern/result-type"]);
    }

    #[test]
    fn input_is_asked_for_where_allowed_and_declared() {
        let mut c = checker();
        c.on_value(C2S, &request(1, "tools/list", json!({}), json!({})));
        let on_list = result(1, json!({"resultType": "input_required", "requestState": "s"}));
        assert_eq!(ids(&c.on_value(S2C, &on_list)), ["mrtr/supported-requests"]);
        c.on_value(C2S, &request(2, "tools/call", json!({}), json!({"name": "t"})));
        let empty = result(2, json!({"resultType": "input_required"}));
        assert_eq!(ids(&c.on_value(S2C, &empty)), ["mrtr/input-or-state"]);
        c.on_value(C2S, &request(3, "tools/call", json!({"sampling": {}}), json!({"name": "t"})));
        let elicit = json!({"method": "elicitation/create", "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {}}}});
        let undeclared = result(3, json!({"resultType": "input_required", "inputRequests": {"a": elicit}}));
        assert_eq!(ids(&c.on_value(S2C, &undeclared)), ["mrtr/input-requests-declared"]);
        c.on_value(C2S, &request(4, "tools/call", json!({"elicitation": {}}), json!({"name": "t"})));
        let declared = result(
            4,
            json!({"resultType": "input_required", "inputRequests": {"a": elicit}, "requestState": "s"}),
        );
        assert!(ids(&c.on_value(S2C, &declared)).is_empty());
        c.on_value(C2S, &request(5, "tools/call", json!({}), json!({"name": "t"})));
        let ping =
            result(5, json!({"resultType": "input_required", "inputRequests": {"p": {"method": "ping"}}}));
        assert_eq!(ids(&c.on_value(S2C, &ping)), ["mrtr/input-request-kinds"]);
    }

    #[test]
    fn servers_send_no_requests_and_only_codes_the_spec_defines() {
        let mut c = checker();
        let ping = json!({"jsonrpc": "2.0", "id": "s1", "method": "ping"});
        assert_eq!(ids(&c.on_value(S2C, &ping)), ["modern/no-server-requests"]);
        for (code, bad) in [(-32002, true), (-32042, true), (-32050, true), (-32022, false), (-32602, false)]
        {
            c.on_value(C2S, &request(10, "resources/read", json!({}), json!({"uri": "x"})));
            let e = json!({"jsonrpc": "2.0", "id": 10, "error": {"code": code, "message": "m"}});
            let found = ids(&c.on_value(S2C, &e));
            assert_eq!(found == ["modern/error-codes"], bad, "{code}: {found:?}");
        }
    }

    #[test]
    fn ids_may_be_reused_once_answered() {
        let mut c = checker();
        c.on_value(C2S, &request(1, "server/discover", json!({}), json!({})));
        let again = ids(&c.on_value(C2S, &request(1, "server/discover", json!({}), json!({}))));
        assert_eq!(again, ["jsonrpc/request-id-not-outstanding"]);
        c.on_value(S2C, &result(1, json!({"resultType": "complete", "supportedVersions": [], "capabilities": {}, "ttlMs": 0, "cacheScope": "public"})));
        c.on_value(S2C, &result(1, json!({"resultType": "complete", "supportedVersions": [], "capabilities": {}, "ttlMs": 0, "cacheScope": "public"})));
        assert!(ids(&c.on_value(C2S, &request(1, "server/discover", json!({}), json!({})))).is_empty());
    }

    #[test]
    fn log_messages_only_for_requests_that_asked() {
        let mut c = checker();
        let log = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"level": "info", "data": "x"}});
        c.on_value(C2S, &request(1, "tools/call", json!({}), json!({"name": "t"})));
        assert_eq!(ids(&c.on_value(S2C, &log)), ["logging/per-request-level"]);
        let mut asking = request(2, "tools/call", json!({}), json!({"name": "t"}));
        asking["params"]["_meta"][modern::LOG_LEVEL_KEY] = json!("debug");
        c.on_value(C2S, &asking);
        assert!(ids(&c.on_value(S2C, &log)).is_empty());
    }

    #[test]
    fn subscriptions_are_acknowledged_first_and_carry_their_id() {
        let mut c = checker();
        c.on_value(
            C2S,
            &request(
                7,
                "subscriptions/listen",
                json!({}),
                json!({"notifications": {"toolsListChanged": true}}),
            ),
        );
        let note = |method: &str, sub: Value| json!({"jsonrpc": "2.0", "method": method, "params": {"_meta": {modern::SUBSCRIPTION_ID_KEY: sub}, "notifications": {}}});
        let early = note("notifications/tools/list_changed", json!(7));
        assert_eq!(ids(&c.on_value(S2C, &early)), ["subscriptions/acknowledged-first"]);
        assert!(ids(&c.on_value(S2C, &note("notifications/subscriptions/acknowledged", json!(7)))).is_empty());
        assert!(ids(&c.on_value(S2C, &note("notifications/tools/list_changed", json!(7)))).is_empty());
        let unasked = note("notifications/prompts/list_changed", json!(7));
        assert_eq!(ids(&c.on_value(S2C, &unasked)), ["subscriptions/only-requested"]);
        let stranger = note("notifications/tools/list_changed", json!(8));
        assert_eq!(ids(&c.on_value(S2C, &stranger)), ["subscriptions/subscription-id"]);
        let bare = json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"});
        assert_eq!(ids(&c.on_value(S2C, &bare)), ["subscriptions/subscription-id"]);
    }
}
