//! The session checker: the envelope and session rules no JSON Schema can express (no null ids,
//! no id on notifications, never both result and error, integer error codes, responses that
//! answer an outstanding request with the very same id), judged on every message of a session.
//!
//! It is a plain state machine — `on_frame(direction, frame) -> Vec<Inspection>` — so the same
//! code runs behind stdio, HTTP, a recorded transcript and a fuzz target. It is symmetric:
//! it judges both directions; the caller decides whose messages count.

use crate::judge::rules::{self, Violation};
use mcpspec_protocol::framing::{FrameContent, FrameError};
use mcpspec_protocol::meta::MetaProblem;
use mcpspec_protocol::wire::{EnvelopeError, Message, RequestId};
use mcpspec_protocol::{Direction, Era, Revision};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

mod modern;
mod negotiation;
mod tasks;

/// How many distinct request ids per direction the checker remembers for the uniqueness rule;
/// past that (a flood), it stops remembering instead of growing without bound.
const MAX_REMEMBERED_IDS: usize = 100_000;

/// What the checker made of one message (one element, for a batch).
#[derive(Debug, Clone, PartialEq)]
pub struct Inspection {
    pub direction: Direction,
    /// The JSON value, when the frame held one.
    pub value: Option<Value>,
    /// The typed message, when the value is a well-formed one.
    pub message: Option<Message>,
    /// For a response: the method of the request it answers.
    pub answered_method: Option<String>,
    pub violations: Vec<Violation>,
}

/// A request awaiting its answer.
#[derive(Debug, Clone)]
struct Pending {
    method: String,
    /// The progress token the request carried, if any.
    progress: Option<RequestId>,
    /// In the modern era: what its `_meta` declared.
    modern: Option<modern::ModernRequest>,
    /// It carried `task` (2025-11-25: a task-augmented request).
    augmented: bool,
}

#[derive(Debug, Default, Clone)]
struct Side {
    /// Requests this side sent that await an answer.
    outstanding: HashMap<RequestId, Pending>,
    /// Progress tokens of this side's requests in progress: token → last progress value.
    progress: HashMap<RequestId, Option<f64>>,
    /// Tokens of this side's requests that have completed (bounded).
    progress_done: HashSet<RequestId>,
    /// Malformed messages this side sent that may get an error without an id in return.
    unaddressable: usize,
    /// Notifications this side sent that no error without an id has (wrongly) answered yet.
    notifications: usize,
    /// The id of this side's request answered last.
    last_answered: Option<RequestId>,
    /// Every id this side has used in the session (bounded).
    used: HashSet<RequestId>,
    /// Progress tokens of this side's requests that are active (neither answered nor
    /// cancelled): token → the request carrying it.
    active_tokens: HashMap<RequestId, RequestId>,
    /// A message of this side split over lines has been reported.
    split_reported: bool,
    /// Progress tokens of this side's task-augmented requests that created a task, by task id:
    /// active until the task is seen terminal (2025-11-25 progress.mdx: the token is used
    /// throughout the task's lifetime).
    task_tokens: HashMap<String, RequestId>,
    /// Tokens of this side's tasks that have ended (bounded).
    task_progress_done: HashSet<RequestId>,
}

/// Tracks one session and judges each message.
#[derive(Debug, Clone)]
pub struct SessionChecker {
    revision: Revision,
    client: Side,
    server: Side,
    negotiation: negotiation::Negotiation,
    modern: modern::ModernState,
    /// The client's rules of the modern era (judged at modern revisions only).
    modern_client: crate::judge::client::modern::ModernClientRules,
    /// The tasks each side runs, as last reported (2025-11-25).
    tasks: tasks::TaskState,
}

impl SessionChecker {
    /// A checker for a session expected to run at `revision`; `initialize` may move it.
    pub fn new(revision: Revision) -> Self {
        SessionChecker {
            revision,
            client: Side::default(),
            server: Side::default(),
            negotiation: Default::default(),
            modern: Default::default(),
            modern_client: Default::default(),
            tasks: Default::default(),
        }
    }

    /// The revision in force: the one negotiated, once `initialize` has been answered with a
    /// revision mcpspec knows.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// The revision agreed on, once the server has answered `initialize` with a result.
    pub fn negotiated(&self) -> Option<Revision> {
        self.negotiation.server_capabilities.as_ref().map(|_| self.revision)
    }

    /// Judges one decoded line; the inspections keep its value without copying it (a message
    /// of megabytes is held once while it is judged, not twice).
    pub fn on_frame(&mut self, direction: Direction, frame: FrameContent) -> Vec<Inspection> {
        match frame {
            FrameContent::Json { value, lines: 1, .. } => self.on_json(direction, value),
            // A message split over lines, made whole again: the framing is broken, but the
            // message is judged as the message it is, so its answer is still seen as one.
            // Reported once per session and side: a peer that pretty-prints does so throughout.
            FrameContent::Json { value, lines, .. } => {
                let mut out = Vec::new();
                let side = self.side_mut(direction);
                if !side.split_reported {
                    side.split_reported = true;
                    out.push(bare(
                        direction,
                        Violation::new(
                            &rules::NEWLINE_DELIMITED,
                            "a JSON-RPC message on its own line",
                            format!(
                                "one message over {lines} lines (pretty-printed JSON); it and any like it \
                                 are judged as reassembled"
                            ),
                        ),
                    ));
                }
                out.extend(self.on_json(direction, value));
                out
            }
            FrameContent::Blank => vec![bare(
                direction,
                Violation::new(&rules::BLANK_LINE, "one JSON-RPC message per line", "an empty line"),
            )],
            FrameContent::Invalid(e) => {
                self.side_mut(direction).unaddressable += 1;
                let rule = match &e {
                    // A big message can't be judged, but a long line that does not even start
                    // like a JSON-RPC message is not one.
                    // A line that opens an object or array and ends mid-value is a message
                    // split over several lines (pretty-printed JSON).
                    FrameError::NotJson { reason, excerpt } if reason.is_eof() && excerpt.opens_a_value() => {
                        &rules::NEWLINE_DELIMITED
                    }
                    FrameError::TooLong { excerpt, .. } if excerpt.opens_a_value() => &rules::MESSAGE_SIZE,
                    FrameError::InvalidUtf8 { .. } => &rules::STDOUT_UTF8,
                    FrameError::Unterminated { .. } => &rules::NEWLINE_DELIMITED,
                    _ => &rules::STDOUT_ONLY_MCP,
                };
                vec![bare(
                    direction,
                    Violation::new(rule, "a JSON-RPC message on its own line", e.to_string()),
                )]
            }
        }
    }

    /// Judges one JSON value: a message or a batch.
    pub fn on_value(&mut self, direction: Direction, value: &Value) -> Vec<Inspection> {
        self.on_json(direction, value.clone())
    }

    /// [`Self::on_value`], owning the value.
    fn on_json(&mut self, direction: Direction, value: Value) -> Vec<Inspection> {
        if let Value::Array(items) = value {
            let mut out = Vec::with_capacity(items.len().max(1));
            // A batch rejected whole can only get an error without an id; in 2025-03-26 too, a
            // receiver may refuse it so (what the scenarios then judge).
            self.side_mut(direction).unaddressable += 1;
            if !self.revision.allows_batches() {
                out.push(bare(
                    direction,
                    Violation::new(
                        &rules::BATCH_REVISION,
                        format!("a single message (no batches in {})", self.revision),
                        format!("a batch of {} messages", items.len()),
                    ),
                ));
            } else if items.is_empty() {
                out.push(bare(
                    direction,
                    Violation::new(
                        &rules::BATCH_REVISION,
                        "a batch of at least one message",
                        "an empty batch",
                    ),
                ));
            }
            let n = items.len();
            for item in items {
                let initialize = item.get("method").and_then(Value::as_str) == Some("initialize");
                let nested = matches!(item, Value::Array(_));
                let mut i = self.on_single(direction, item);
                if self.revision.allows_batches() && initialize {
                    i.violations.push(Violation::new(
                        &rules::INITIALIZE_NOT_BATCHED,
                        "initialize sent on its own, outside any batch",
                        format!("initialize in a batch of {n} message(s)"),
                    ));
                }
                if nested {
                    i.violations.push(Violation::new(
                        &rules::JSONRPC_OBJECT,
                        "a message",
                        "a batch inside a batch",
                    ));
                }
                out.push(i);
            }
            return out;
        }
        vec![self.on_single(direction, value)]
    }

    fn on_single(&mut self, direction: Direction, value: Value) -> Inspection {
        let mut inspection = Inspection {
            direction,
            value: None,
            message: None,
            answered_method: None,
            violations: Vec::new(),
        };
        match Message::from_value(&value) {
            Ok(message) => {
                self.on_message(direction, &message, &mut inspection);
                self.judge_meta(&value, &mut inspection.violations);
                self.judge_schemas(
                    &message,
                    inspection.answered_method.as_deref(),
                    &mut inspection.violations,
                );
                if self.revision.era() == mcpspec_protocol::Era::Modern {
                    self.modern_client.on_message(direction, &message, &mut inspection.violations);
                }
                inspection.message = Some(message);
            }
            Err(EnvelopeError::Batch) => {}
            Err(e) => {
                // The receiver may answer with an error without an id (it could not trust the
                // id), or — when the id is readable — with that id (and no method to validate
                // the answer as). Either is expected.
                let side = self.side_mut(direction);
                side.unaddressable += 1;
                if let Some(id) = value.get("id").and_then(RequestId::from_value) {
                    if value.get("result").is_none() && value.get("error").is_none() {
                        side.used.insert(id.clone());
                        side.outstanding.insert(
                            id,
                            Pending { method: String::new(), progress: None, modern: None, augmented: false },
                        );
                    }
                }
                inspection.violations.push(envelope_violation(&e));
            }
        }
        inspection.value = Some(value);
        inspection
    }

    /// `basic/index.mdx#_meta`: the format of every `_meta` key (2025-06-18 on) and of the
    /// trace context values (2026-07-28 on) the message holds.
    fn judge_meta(&self, value: &Value, violations: &mut Vec<Violation>) {
        if self.revision < Revision::V2025_06_18 {
            return;
        }
        let modern = self.revision.era() == Era::Modern;
        for problem in mcpspec_protocol::meta::problems(value, modern) {
            violations.push(match problem {
                MetaProblem::Key { key, why } => Violation::new(
                    &rules::META_KEY_FORMAT,
                    "_meta keys of the key format",
                    format!("{key:?}: {why}"),
                ),
                MetaProblem::TraceContext { key, why } => Violation::new(
                    &rules::META_TRACE_CONTEXT,
                    format!("{key} in its W3C format"),
                    format!("{key}: {why}"),
                ),
            });
        }
    }

    /// `basic/index.mdx#schema-validation` (2025-11-25 on): the schemas a message carries (the
    /// tools of a `tools/list` result, an elicitation's `requestedSchema`) are valid under their
    /// declared or default dialect.
    fn judge_schemas(&self, message: &Message, answered: Option<&str>, violations: &mut Vec<Violation>) {
        if self.revision < Revision::V2025_11_25 {
            return;
        }
        let mut schemas: Vec<(String, &Value)> = Vec::new();
        match message {
            Message::Response(r) if answered == Some("tools/list") => {
                if let mcpspec_protocol::wire::Outcome::Result(result) = &r.outcome {
                    for tool in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
                        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                        for key in ["inputSchema", "outputSchema"] {
                            if let Some(schema) = tool.get(key) {
                                schemas.push((format!("tool {name:?}'s {key}"), schema));
                            }
                        }
                    }
                }
            }
            Message::Request(r) if r.method == "elicitation/create" => {
                if let Some(schema) = r.params.as_ref().and_then(|p| p.get("requestedSchema")) {
                    schemas.push(("the elicitation's requestedSchema".into(), schema));
                }
            }
            _ => {}
        }
        for (what, schema) in schemas {
            if let Some(why) = mcpspec_protocol::dialect::schema_problem(schema) {
                violations.push(Violation::new(
                    &rules::SCHEMA_DIALECT_VALID,
                    "a schema valid under its declared or default (2020-12) dialect",
                    format!("{what}: {why}"),
                ));
            }
        }
    }

    fn on_message(&mut self, direction: Direction, message: &Message, inspection: &mut Inspection) {
        match message {
            Message::Request(r) => {
                if r.method.starts_with("notifications/") {
                    inspection.violations.push(Violation::new(
                        &rules::NOTIFICATION_NO_ID,
                        format!("{} without an id", r.method),
                        format!("{} with id {}", r.method, r.id),
                    ));
                }
                let progress = r
                    .params
                    .as_ref()
                    .and_then(|p| p.get("_meta"))
                    .and_then(|m| m.get("progressToken"))
                    .and_then(RequestId::from_value);
                let modern_era = self.revision.era() == Era::Modern;
                let side = self.side_mut(direction);
                let outstanding = side.outstanding.contains_key(&r.id);
                let fresh = if side.used.len() < MAX_REMEMBERED_IDS {
                    side.used.insert(r.id.clone())
                } else {
                    !side.used.contains(&r.id)
                };
                if modern_era && outstanding {
                    // 2026-07-28 relaxed uniqueness to the requests still awaiting an answer.
                    inspection.violations.push(Violation::new(
                        &rules::REQUEST_ID_NOT_OUTSTANDING,
                        "an id no request awaiting its answer has",
                        format!(
                            "id {} for {}, while the request with that id awaits its answer",
                            r.id, r.method
                        ),
                    ));
                } else if !fresh && !modern_era {
                    inspection.violations.push(Violation::new(
                        &rules::REQUEST_ID_UNIQUE,
                        "an id not used before in this session",
                        format!("id {} again, for {}", r.id, r.method),
                    ));
                }
                if let Some(token) = &progress {
                    if let Some(holder) = side.active_tokens.get(token) {
                        inspection.violations.push(Violation::new(
                            &rules::PROGRESS_TOKEN_UNIQUE,
                            "a progress token no active request carries",
                            format!(
                                "{} request {} with progress token {token}, which request {holder} still carries",
                                r.method, r.id
                            ),
                        ));
                    } else if side.active_tokens.len() < MAX_REMEMBERED_IDS {
                        side.active_tokens.insert(token.clone(), r.id.clone());
                    }
                    side.progress.insert(token.clone(), None);
                }
                let modern = modern_era.then(|| modern::ModernRequest::of(r));
                let client_caps = modern.as_ref().and_then(|m| m.capabilities.clone());
                let augmented = r.params.as_ref().and_then(|p| p.get("task")).is_some_and(Value::is_object);
                side.outstanding
                    .insert(r.id.clone(), Pending { method: r.method.clone(), progress, modern, augmented });
                self.on_feature_request(direction, r, &mut inspection.violations);
                self.on_task_request(direction, r, &mut inspection.violations);
                // The client's capabilities, in each modern request's _meta: judged until found
                // wrong once, as every request repeats them.
                if let (Some(caps), false) = (client_caps, self.modern.client_extensions_judged) {
                    let before = inspection.violations.len();
                    modern::judge_extension_identifiers("the client's", &caps, &mut inspection.violations);
                    self.modern.client_extensions_judged = inspection.violations.len() > before;
                }
            }
            Message::Notification(n) => {
                let side = self.side_mut(direction);
                side.notifications = side.notifications.saturating_add(1);
                self.on_feature_notification(direction, n, &mut inspection.violations);
                self.on_task_notification(direction, n, &mut inspection.violations);
                if direction == Direction::ServerToClient && self.revision.era() == Era::Modern {
                    self.on_modern_notification(n, &mut inspection.violations);
                }
            }
            Message::Response(resp) => {
                let requester = self.side_mut(direction.reverse());
                let Some(id) = &resp.id else {
                    // An error without an id answers a message whose id could not be read —
                    // unless every message the other side sent was well-formed: then it
                    // answers a notification.
                    if requester.unaddressable > 0 {
                        requester.unaddressable -= 1;
                    } else if requester.notifications > 0 {
                        requester.notifications -= 1;
                        inspection.violations.push(Violation::new(
                            &rules::NOTIFICATION_UNANSWERED,
                            "no response to a notification; an error without an id only for a message whose id could not be read",
                            "an error response without an id, though every message sent to it was well-formed",
                        ));
                    } else if let Some(waiting) = requester.outstanding.keys().next() {
                        // Requests whose ids were readable await answers: the error drops the
                        // id of the one it answers (2025-11-25+: an error response MUST echo the
                        // request id unless it could not be read).
                        inspection.violations.push(Violation::new(
                            &rules::RESPONSE_HAS_ID,
                            "the id of the request the error answers (it was readable)",
                            format!(
                                "an error response without an id, while {} request(s) with readable ids (e.g. {waiting}) await answers",
                                requester.outstanding.len()
                            ),
                        ));
                    } else {
                        inspection.violations.push(Violation::new(
                            &rules::NOTIFICATION_UNANSWERED,
                            "no response to a notification; an error without an id only for a message whose id could not be read",
                            "an error response without an id, though every message sent to it was well-formed",
                        ));
                    }
                    return;
                };
                let (pending, twin) = match requester.outstanding.remove(id) {
                    Some(pending) => (Some(pending), None),
                    // A twin (same id, other JSON type) is taken as answered, so the response
                    // can still be validated as the answer it means to be.
                    None => match id.twin().and_then(|t| requester.outstanding.remove(&t).map(|p| (t, p))) {
                        Some((twin, pending)) => (Some(pending), Some(twin)),
                        None => (None, None),
                    },
                };
                if pending.is_some() {
                    requester.last_answered = Some(twin.clone().unwrap_or_else(|| id.clone()));
                }
                if let Some(token) = pending.as_ref().and_then(|p| p.progress.clone()) {
                    // A task's progress goes on under the request's token until the task ends.
                    let task =
                        pending.as_ref().filter(|p| p.augmented).and_then(|_| tasks::created_task(resp));
                    match task {
                        Some(task) if requester.task_tokens.len() < MAX_REMEMBERED_IDS => {
                            requester.task_tokens.insert(task, token);
                        }
                        _ => requester.complete_progress(token),
                    }
                }
                match (&pending, &twin) {
                    (Some(_), None) => {}
                    (Some(p), Some(twin)) => inspection.violations.push(Violation::new(
                        &rules::RESPONSE_ID_MATCHES,
                        "the id of an outstanding request, with the same JSON type",
                        format!(
                            "id {id} ({}) answering the {} request with id {twin} ({})",
                            id.type_name(),
                            p.method,
                            twin.type_name()
                        ),
                    )),
                    (None, _) => {
                        let actual = if requester.used.contains(id) {
                            format!("a second response to the request with id {id}")
                        } else {
                            format!("id {id}, which no outstanding request has")
                        };
                        inspection.violations.push(Violation::new(
                            &rules::RESPONSE_ID_MATCHES,
                            "the id of an outstanding request, with the same JSON type",
                            actual,
                        ));
                    }
                }
                if direction == Direction::ServerToClient && self.revision.era() == Era::Modern {
                    self.on_modern_response(resp, pending.as_ref(), &mut inspection.violations);
                } else if let mcpspec_protocol::wire::Outcome::Error(e) = &resp.outcome {
                    self.on_error_response(direction, e, &mut inspection.violations);
                }
                if let Some(p) = &pending {
                    self.on_task_response(
                        direction,
                        &p.method,
                        p.augmented,
                        resp,
                        &mut inspection.violations,
                    );
                }
                if let Some(p) = pending {
                    if p.method == "initialize" {
                        self.on_initialize_answered(resp);
                    }
                    inspection.answered_method = Some(p.method).filter(|m| !m.is_empty());
                }
            }
        }
    }

    fn on_initialize_answered(&mut self, resp: &mcpspec_protocol::wire::Response) {
        if let mcpspec_protocol::wire::Outcome::Result(result) = &resp.outcome {
            if let Some(r) =
                result.get("protocolVersion").and_then(Value::as_str).and_then(|v| v.parse().ok())
            {
                self.revision = r;
            }
            self.negotiation.server_capabilities = result.get("capabilities").cloned();
        }
    }

    /// Whether nothing is in flight: every request of either side answered, no progress under
    /// way. A session handed from one scenario to the next must be quiet, or a late answer would
    /// land in a scenario that did not ask.
    /// Malformed messages are left out: their receiver may answer them or not.
    pub fn is_quiet(&self) -> bool {
        self.is_quiet_but(|_| false)
    }

    /// [`Self::is_quiet`], but for the client's requests in flight whose method `harmless`
    /// accepts (and their progress).
    pub fn is_quiet_but(&self, harmless: impl Fn(&str) -> bool) -> bool {
        let client = &self.client;
        let harmless_request =
            |id: &RequestId| client.outstanding.get(id).is_some_and(|p| harmless(&p.method));
        let server_quiet = self.server.active_tokens.is_empty()
            && self.server.outstanding.values().all(|p| p.method.is_empty());
        server_quiet
            && client.outstanding.values().all(|p| p.method.is_empty() || harmless(&p.method))
            && client.active_tokens.values().all(harmless_request)
    }

    /// The method of `requester`'s request with this id (or its twin) awaiting its answer.
    pub fn outstanding_method(&self, requester: Direction, id: &RequestId) -> Option<&str> {
        let side = self.side(requester);
        let pending = side.outstanding.get(id).or_else(|| side.outstanding.get(&id.twin()?))?;
        Some(&pending.method)
    }

    /// Whether `requester` has sent a request with this id in the session.
    pub fn has_used(&self, requester: Direction, id: &RequestId) -> bool {
        self.side(requester).used.contains(id)
    }

    /// The id of the request of `requester` answered last.
    pub fn last_answered(&self, requester: Direction) -> Option<RequestId> {
        self.side(requester).last_answered.clone()
    }

    /// The request a response with this id would answer, if any — also when the id's type was
    /// changed — so a waiting client can stop waiting. Returns the id as the requester sent it.
    pub fn outstanding_match(&self, requester: Direction, id: &RequestId) -> Option<RequestId> {
        let side = self.side(requester);
        if side.outstanding.contains_key(id) {
            return Some(id.clone());
        }
        id.twin().filter(|t| side.outstanding.contains_key(t))
    }

    fn side(&self, direction: Direction) -> &Side {
        match direction {
            Direction::ClientToServer => &self.client,
            Direction::ServerToClient => &self.server,
        }
    }

    fn side_mut(&mut self, direction: Direction) -> &mut Side {
        match direction {
            Direction::ClientToServer => &mut self.client,
            Direction::ServerToClient => &mut self.server,
        }
    }
}

impl Side {
    /// The request carrying `token` is over: no more progress for it.
    fn complete_progress(&mut self, token: RequestId) {
        self.progress.remove(&token);
        self.active_tokens.remove(&token);
        if self.progress_done.len() < MAX_REMEMBERED_IDS {
            self.progress_done.insert(token);
        }
    }
}

fn bare(direction: Direction, violation: Violation) -> Inspection {
    Inspection { direction, value: None, message: None, answered_method: None, violations: vec![violation] }
}

fn envelope_violation(e: &EnvelopeError) -> Violation {
    let rule = match e {
        EnvelopeError::NotAnObject(_) | EnvelopeError::Batch | EnvelopeError::Unclassifiable => {
            &rules::JSONRPC_OBJECT
        }
        EnvelopeError::BadVersion(_) => &rules::JSONRPC_VERSION,
        EnvelopeError::MethodNotString(_) => &rules::METHOD_STRING,
        EnvelopeError::MethodWithOutcome | EnvelopeError::BothResultAndError => &rules::RESULT_XOR_ERROR,
        EnvelopeError::NullRequestId => &rules::REQUEST_ID_NOT_NULL,
        EnvelopeError::BadIdType(_) => &rules::REQUEST_ID_TYPE,
        EnvelopeError::ResultWithoutId(_) => &rules::RESPONSE_HAS_ID,
        EnvelopeError::ErrorCodeNotInteger(_) => &rules::ERROR_CODE_INTEGER,
        EnvelopeError::ErrorNotObject(_) | EnvelopeError::ErrorMessageNotString(_) => &rules::ERROR_SHAPE,
        _ => &rules::JSONRPC_OBJECT,
    };
    let expected = match rule.id {
        "jsonrpc/response-result-xor-error" => "exactly one of \"result\" and \"error\"".to_owned(),
        _ => rule.requirement.to_owned(),
    };
    Violation::new(rule, expected, e.to_string())
}

#[cfg(test)]
mod feature_tests;
#[cfg(test)]
mod task_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod url_mode_tests;
