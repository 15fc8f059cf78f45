//! Session rules that depend on what was negotiated: capabilities, the initialized phase,
//! progress tokens and server-initiated requests.

use super::SessionChecker;
use crate::judge::rules;
use crate::judge::rules::Violation;
use mcpspec_protocol::capabilities::{declares, server_capability_for};
use mcpspec_protocol::wire::{Notification, Request, RequestId};
use mcpspec_protocol::{elicitation, sampling};
use mcpspec_protocol::{Direction, Era, Revision};
use serde_json::Value;
use std::collections::HashSet;

/// What the initialize exchange established.
#[derive(Debug, Default, Clone)]
pub(super) struct Negotiation {
    /// `params.capabilities` of the client's initialize request.
    pub client_capabilities: Option<Value>,
    /// `result.capabilities` of the server's initialize result.
    pub server_capabilities: Option<Value>,
    /// The client has sent `notifications/initialized`.
    pub initialized: bool,
    /// The id of the client's initialize request.
    pub initialize_id: Option<RequestId>,
    /// The `elicitationId`s of the server's URL-mode elicitations (bounded).
    pub url_elicitations: HashSet<String>,
}

impl SessionChecker {
    pub(super) fn on_feature_request(&mut self, direction: Direction, r: &Request, out: &mut Vec<Violation>) {
        match direction {
            Direction::ClientToServer => {
                if r.method == "initialize" {
                    self.negotiation.client_capabilities =
                        r.params.as_ref().and_then(|p| p.get("capabilities")).cloned();
                    self.negotiation.initialize_id = Some(r.id.clone());
                    self.judge_elicitation_modes(out);
                }
                self.on_client_uses(&r.method, out);
            }
            Direction::ServerToClient => self.on_server_request(r, out),
        }
    }

    /// client/elicitation.mdx#capabilities (2025-11-25 on): a client declaring elicitation
    /// supports form mode, URL mode or both; `{}` stands for form mode. An object naming
    /// neither declares a capability nothing can use.
    fn judge_elicitation_modes(&self, out: &mut Vec<Violation>) {
        if self.revision < Revision::V2025_11_25 {
            return;
        }
        let caps = self.negotiation.client_capabilities.as_ref();
        if let Some(problem) = caps.and_then(elicitation::modes_problem) {
            out.push(Violation::new(
                &rules::CLIENT_ELICITATION_MODE,
                "an elicitation capability declaring form mode, URL mode or both ({} for form)",
                problem,
            ));
        }
    }

    pub(super) fn on_feature_notification(
        &mut self,
        direction: Direction,
        n: &Notification,
        out: &mut Vec<Violation>,
    ) {
        match n.method.as_str() {
            "notifications/progress" => self.on_progress(direction, n, out),
            "notifications/cancelled" => self.on_cancelled(direction, n, out),
            _ => {}
        }
        match direction {
            Direction::ClientToServer => {
                if n.method == "notifications/initialized" {
                    self.negotiation.initialized = true;
                }
                if n.method == "notifications/roots/list_changed" {
                    self.on_client_uses(&n.method, out);
                }
            }
            Direction::ServerToClient => self.on_server_notification(n, out),
        }
    }

    fn on_server_request(&mut self, r: &Request, out: &mut Vec<Violation>) {
        if self.revision.era() == Era::Modern {
            out.push(Violation::new(
                &rules::MODERN_NO_SERVER_REQUESTS,
                "no JSON-RPC request from the server (input is asked for with an InputRequiredResult)",
                format!("a {} request with id {}", r.method, r.id),
            ));
            return;
        }
        if !self.negotiation.initialized && r.method != "ping" {
            out.push(Violation::new(
                &rules::BEFORE_INITIALIZED,
                "only ping requests before notifications/initialized",
                format!("a {} request before the client sent notifications/initialized", r.method),
            ));
        }
        let Some(client) = self.negotiation.client_capabilities.clone() else { return };
        let params = r.params.clone().unwrap_or(Value::Null);
        self.judge_server_ask(&r.method, &params, &client, &rules::CLIENT_CAPABILITY_NEGOTIATED, out);
    }

    /// What the server asks of the client — a request (legacy era) or an MRTR input request
    /// (modern era) — uses only what the client declared (`gate` is the rule a request for an
    /// undeclared capability breaks), and keeps the sampling and elicitation rules.
    pub(super) fn judge_server_ask(
        &mut self,
        method: &str,
        params: &Value,
        client: &Value,
        gate: &'static rules::Rule,
        out: &mut Vec<Violation>,
    ) {
        let needs = match method {
            "sampling/createMessage" => Some("sampling"),
            "roots/list" => Some("roots"),
            "elicitation/create" => Some("elicitation"),
            _ => None,
        };
        if let Some(cap) = needs {
            if !declares(client, cap) {
                out.push(Violation::new(
                    gate,
                    format!("no {method} request: the client did not declare {cap:?}"),
                    format!("{method} asked of a client whose capabilities are {client}"),
                ));
                return;
            }
        }
        if method == "sampling/createMessage" && self.revision >= Revision::V2025_11_25 {
            let uses_tools = params.get("tools").is_some_and(|t| t.as_array().is_none_or(|a| !a.is_empty()))
                || params.get("toolChoice").is_some();
            if uses_tools && !declares(client, "sampling.tools") {
                out.push(Violation::new(
                    &rules::SAMPLING_TOOLS_DECLARED,
                    "no tools in sampling: the client did not declare sampling.tools",
                    "a sampling/createMessage request with tools",
                ));
            }
            for why in sampling::tool_balance_violations(params) {
                out.push(Violation::new(
                    &rules::SAMPLING_TOOL_BALANCE,
                    "tool uses answered by matching tool results, alone in the next user message",
                    why,
                ));
            }
        }
        if method == "elicitation/create" && self.revision >= Revision::V2025_06_18 {
            let mode =
                if self.revision >= Revision::V2025_11_25 { elicitation::mode(params) } else { "form" };
            if mode == "form" {
                for why in elicitation::sensitive_fields(params) {
                    out.push(Violation::new(
                        &rules::ELICITATION_NO_SECRETS,
                        "a form asking for no password, API key, access token or payment credential",
                        why,
                    ));
                }
            }
            if mode == "url" && self.revision >= Revision::V2025_11_25 {
                if let Some(why) = elicitation::url_user_data(params) {
                    out.push(Violation::new(
                        &rules::ELICITATION_URL_NO_USER_DATA,
                        "a URL carrying no credentials or personal data of the user",
                        why,
                    ));
                }
            }
        }
        if method == "elicitation/create" && self.revision >= Revision::V2025_11_25 {
            let mode = elicitation::mode(params);
            let declared = client.get("elicitation").cloned().unwrap_or(Value::Null);
            let supported = elicitation::mode_declared(client, mode);
            if !supported {
                out.push(Violation::new(
                    &rules::ELICITATION_MODE_DECLARED,
                    format!("only elicitation modes the client declared ({declared})"),
                    format!("an elicitation/create request in mode {mode:?}"),
                ));
            }
            if mode == "url" {
                if let Some(why) = elicitation::url_problem(params) {
                    out.push(Violation::new(&rules::ELICITATION_URL_VALID, "a valid URL in url", why));
                }
                if let Some(id) = params.get("elicitationId").and_then(Value::as_str) {
                    self.remember_elicitation(id);
                }
            }
        }
    }

    fn remember_elicitation(&mut self, id: &str) {
        if self.negotiation.url_elicitations.len() < super::MAX_REMEMBERED_IDS {
            self.negotiation.url_elicitations.insert(id.to_owned());
        }
    }

    /// A URLElicitationRequiredError (-32042, 2025-11-25) lists URL-mode elicitations with
    /// their ids, which a completion notification may then name.
    pub(super) fn on_error_response(
        &mut self,
        direction: Direction,
        error: &mcpspec_protocol::wire::ErrorObject,
        out: &mut Vec<Violation>,
    ) {
        if direction != Direction::ServerToClient
            || error.code != -32042
            || self.revision < Revision::V2025_11_25
        {
            return;
        }
        for why in elicitation::required_error_problems(error.data.as_ref()) {
            out.push(Violation::new(
                &rules::ELICITATION_REQUIRED_URL_MODE,
                "data.elicitations: the URL mode elicitations required, each with an elicitationId",
                why,
            ));
        }
        for id in elicitation::required_error_ids(error.data.as_ref()) {
            self.remember_elicitation(&id);
        }
    }

    fn on_server_notification(&mut self, n: &Notification, out: &mut Vec<Violation>) {
        let quiet_ok = matches!(n.method.as_str(), "notifications/message" | "notifications/progress");
        // The modern era has no initialization to wait for.
        if !self.negotiation.initialized && !quiet_ok && self.revision.era() == Era::Legacy {
            out.push(Violation::new(
                &rules::BEFORE_INITIALIZED,
                "nothing but pings and logging before notifications/initialized",
                format!("{} before the client sent notifications/initialized", n.method),
            ));
        }
        if n.method == "notifications/elicitation/complete" {
            let id = n.params.as_ref().and_then(|p| p.get("elicitationId")).and_then(Value::as_str);
            let remembered_all = self.negotiation.url_elicitations.len() < super::MAX_REMEMBERED_IDS;
            if let Some(id) =
                id.filter(|id| remembered_all && !self.negotiation.url_elicitations.contains(*id))
            {
                out.push(Violation::new(
                    &rules::ELICITATION_COMPLETE_KNOWN,
                    "the elicitationId of a URL-mode elicitation this server sent this client",
                    format!("notifications/elicitation/complete for {id:?}, which no elicitation of this session had"),
                ));
            }
        }
        // In the modern era, what a server sends on a subscription stream is what the
        // client asked for there (`checker::modern`); only the logging rule stays.
        if self.revision.era() == Era::Modern && n.method != "notifications/message" {
            return;
        }
        let Some(server) = &self.negotiation.server_capabilities else { return };
        let (rule, needs) = match n.method.as_str() {
            "notifications/message" => (&rules::LOGGING_DECLARED, "logging"),
            "notifications/tools/list_changed" => (&rules::SERVER_CAPABILITY_NEGOTIATED, "tools.listChanged"),
            "notifications/prompts/list_changed" => {
                (&rules::SERVER_CAPABILITY_NEGOTIATED, "prompts.listChanged")
            }
            "notifications/resources/list_changed" => {
                (&rules::SERVER_CAPABILITY_NEGOTIATED, "resources.listChanged")
            }
            "notifications/resources/updated" => {
                (&rules::SERVER_CAPABILITY_NEGOTIATED, "resources.subscribe")
            }
            _ => return,
        };
        if !declares(server, needs) {
            out.push(Violation::new(
                rule,
                format!("{} only from a server that declared {needs}", n.method),
                format!("{} from a server whose capabilities are {server}", n.method),
            ));
        }
    }

    /// The client's requests (and its roots/list_changed notification) use only what was
    /// negotiated: the server's declared capabilities, or its own for roots.
    fn on_client_uses(&mut self, method: &str, out: &mut Vec<Violation>) {
        let (whose, caps, needs) = match method {
            "notifications/roots/list_changed" => {
                ("the client", self.negotiation.client_capabilities.as_ref(), "roots.listChanged")
            }
            _ => {
                let Some(needs) = server_capability_for(method, self.revision) else { return };
                ("the server", self.negotiation.server_capabilities.as_ref(), needs)
            }
        };
        // Before the initialize result, nothing is negotiated yet; the lifecycle scenarios judge
        // what a client sends that early.
        let Some(caps) = caps else { return };
        if !declares(caps, needs) {
            out.push(Violation::new(
                &rules::SERVER_CAPABILITY_USED,
                format!("{method} only when {whose} declared {needs}"),
                format!("{method}, though {whose}'s capabilities are {caps}"),
            ));
        }
    }

    /// Cancellations name a request the canceller itself issued, never `initialize`
    /// (basic/utilities/cancellation.mdx). A request already answered is tolerated: the
    /// answer may have crossed the cancel.
    fn on_cancelled(&mut self, direction: Direction, n: &Notification, out: &mut Vec<Violation>) {
        // 2025-11-25 makes requestId optional in the schema, but only for tasks, which this
        // notification MUST NOT cancel (tasks/cancel does): a cancellation without it cancels
        // nothing. Before, the schema requires it; after, the modern era cancels otherwise.
        let request_id = n.params.as_ref().and_then(|p| p.get("requestId"));
        if request_id.is_none() && rules::CANCEL_REQUEST_ID.applies(self.revision) {
            out.push(Violation::new(
                &rules::CANCEL_REQUEST_ID,
                "notifications/cancelled naming the request it cancels (requestId)",
                format!(
                    "notifications/cancelled without requestId: {}",
                    n.params.as_ref().map_or("no params".into(), |p| p.to_string())
                ),
            ));
        }
        let Some(id) = request_id.and_then(RequestId::from_value) else {
            return;
        };
        if direction == Direction::ClientToServer && self.negotiation.initialize_id.as_ref() == Some(&id) {
            out.push(Violation::new(
                &rules::CANCEL_NOT_INITIALIZE,
                "no cancellation of initialize",
                format!("notifications/cancelled for the initialize request {id}"),
            ));
        }
        // In the modern era a server tears a subscription down by naming the client's
        // subscriptions/listen request (2026-07-28 basic/patterns/cancellation.mdx, MUST): the
        // one request of the other side a server may cancel. Nothing answers it afterwards.
        if direction == Direction::ServerToClient && self.revision.era() == Era::Modern {
            let listen = self.client.outstanding.get(&id).is_some_and(|p| p.method == "subscriptions/listen");
            if listen {
                self.client.outstanding.remove(&id);
                return;
            }
        }
        let canceller = self.side_mut(direction);
        let issued = canceller.used.contains(&id);
        let remembered_all = canceller.used.len() < super::MAX_REMEMBERED_IDS;
        if let Some(pending) = canceller.outstanding.get(&id) {
            // A cancelled request's progress token may be used again; a progress notification
            // that crossed the cancel is still tolerated (the token stays known).
            if let Some(token) = &pending.progress {
                canceller.active_tokens.remove(token);
            }
        } else if !issued && remembered_all {
            let twin = id.twin().filter(|t| canceller.used.contains(t));
            let actual = match twin {
                Some(t) => format!(
                    "notifications/cancelled for id {id} ({}); the request had id {t} ({})",
                    id.type_name(),
                    t.type_name()
                ),
                None => format!("notifications/cancelled for id {id}, which this side never used"),
            };
            out.push(Violation::new(
                &rules::CANCEL_IN_FLIGHT,
                "a cancellation naming a request the canceller issued",
                actual,
            ));
        }
    }

    /// Progress notifications reference the requests the other side sent.
    fn on_progress(&mut self, direction: Direction, n: &Notification, out: &mut Vec<Violation>) {
        let Some(params) = &n.params else { return };
        let Some(token) = params.get("progressToken").and_then(RequestId::from_value) else { return };
        let progress = params.get("progress").and_then(Value::as_f64);
        let task_over = super::tasks::ended_task_token(self, direction.reverse(), &token);
        let requester = self.side_mut(direction.reverse());
        match requester.progress.get_mut(&token) {
            Some(last) => {
                if let (Some(prev), Some(now)) = (*last, progress) {
                    if now <= prev {
                        out.push(Violation::new(
                            &rules::PROGRESS_INCREASING,
                            format!("progress greater than {prev} for token {token}"),
                            format!("progress {now} for token {token}"),
                        ));
                    }
                }
                if progress.is_some() {
                    *last = progress;
                }
            }
            None if task_over => out.push(Violation::new(
                &rules::TASK_PROGRESS_STOPS,
                format!("no progress for token {token} after its task reached a terminal status"),
                format!("notifications/progress for token {token} after the task ended"),
            )),
            None if requester.progress_done.contains(&token) => out.push(Violation::new(
                &rules::PROGRESS_STOPS,
                format!("no progress for token {token} after its request was answered"),
                format!("notifications/progress for token {token} after the response"),
            )),
            None => out.push(Violation::new(
                &rules::PROGRESS_TOKEN_KNOWN,
                "a progress token of a request in progress",
                format!("notifications/progress for token {token}, which no request carried"),
            )),
        }
    }
}
