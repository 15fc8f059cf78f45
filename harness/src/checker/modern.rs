//! Session rules of the stateless era (2026-07-28 and the draft), judged on what the server
//! sends: every result says its `resultType`; cacheable results carry caching hints; input is
//! asked for with an `InputRequiredResult` only where the spec allows it, only for what the
//! request declared, and never with a JSON-RPC request of the server's own; log messages only
//! for requests that asked for them; subscription streams acknowledged first and carrying
//! their subscription id; error codes only the spec defines.
//!
//! The client's capabilities travel in each request's `_meta`, so what a server may ask for is
//! judged against the request it answers (kept with the outstanding request), not a session.

use super::{Pending, SessionChecker, Violation};
use crate::rules;
use mcpspec_reference::modern::{self, RequestMeta};
use mcpspec_reference::wire::{ErrorObject, Notification, Outcome, Request, RequestId, Response};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// What the checker keeps of a stateless session.
#[derive(Debug, Default)]
pub(super) struct ModernState {
    /// The `cacheScope` of the last page of each list (method → scope).
    list_scopes: HashMap<String, String>,
    /// `subscriptions/listen` requests whose acknowledgement has arrived.
    acknowledged: HashSet<RequestId>,
}

/// What the checker keeps of one outstanding stateless request.
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
    /// Judges a server's response to a stateless request.
    pub(super) fn on_modern_response(
        &mut self,
        resp: &Response,
        pending: Option<&Pending>,
        out: &mut Vec<Violation>,
    ) {
        let method = pending.map(|p| p.method.as_str()).unwrap_or_default();
        let request = pending.and_then(|p| p.modern.as_ref());
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
        let scope = result.get("cacheScope").and_then(Value::as_str).filter(|s| matches!(*s, "public" | "private"));
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
        let declared = request.and_then(|r| r.capabilities.clone()).unwrap_or_else(|| Value::Object(Default::default()));
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

    /// Judges a notification the server sends in the stateless era.
    pub(super) fn on_modern_notification(&mut self, n: &Notification, out: &mut Vec<Violation>) {
        if n.method == "notifications/message" {
            let asked = self.client.outstanding.values().any(|p| p.modern.as_ref().is_some_and(|m| m.log_level));
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
                    format!("{} for subscription {id}, which no open subscriptions/listen request has", n.method),
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

/// Codes a stateless server must not emit (`basic/index.mdx#error-codes`).
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
