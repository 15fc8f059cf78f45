//! The session checker: the envelope and session rules no JSON Schema can express (no null ids,
//! no id on notifications, never both result and error, integer error codes, responses that
//! answer an outstanding request with the very same id), judged on every message of a session.
//!
//! It is a plain state machine — `on_frame(direction, frame) -> Vec<Inspection>` — so the same
//! code runs behind stdio, HTTP, a recorded transcript and a fuzz target. It is symmetric:
//! it judges both directions; the caller decides whose messages count.

use crate::judge::rules::{self, Violation};
use mcpspec_protocol::framing::{FrameContent, FrameError};
use mcpspec_protocol::wire::{EnvelopeError, Message, RequestId};
use mcpspec_protocol::{Direction, Era, Revision};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

mod modern;
mod negotiation;

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
    /// In the stateless era: what its `_meta` declared.
    modern: Option<modern::ModernRequest>,
}

#[derive(Debug, Default)]
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
}

/// Tracks one session and judges each message.
#[derive(Debug)]
pub struct SessionChecker {
    revision: Revision,
    client: Side,
    server: Side,
    negotiation: negotiation::Negotiation,
    modern: modern::ModernState,
    /// The client's rules of the stateless era (judged at modern revisions only).
    modern_client: crate::judge::client::modern::ModernClientRules,
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

    /// Judges one decoded line.
    pub fn on_frame(&mut self, direction: Direction, frame: &FrameContent) -> Vec<Inspection> {
        match frame {
            FrameContent::Json { value, lines: 1, .. } => self.on_value(direction, value),
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
                out.extend(self.on_value(direction, value));
                out
            }
            FrameContent::Blank => vec![bare(
                direction,
                Violation::new(&rules::BLANK_LINE, "one JSON-RPC message per line", "an empty line"),
            )],
            FrameContent::Invalid(e) => {
                self.side_mut(direction).unaddressable += 1;
                let rule = match e {
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
            for item in items {
                let mut i = self.on_single(direction, item);
                if matches!(item, Value::Array(_)) {
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

    fn on_single(&mut self, direction: Direction, value: &Value) -> Inspection {
        let mut inspection = Inspection {
            direction,
            value: Some(value.clone()),
            message: None,
            answered_method: None,
            violations: Vec::new(),
        };
        match Message::from_value(value) {
            Ok(message) => {
                self.on_message(direction, &message, &mut inspection);
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
                        side.outstanding
                            .insert(id, Pending { method: String::new(), progress: None, modern: None });
                    }
                }
                inspection.violations.push(envelope_violation(&e));
            }
        }
        inspection
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
                let stateless = self.revision.era() == Era::Modern;
                let side = self.side_mut(direction);
                let outstanding = side.outstanding.contains_key(&r.id);
                let fresh = if side.used.len() < MAX_REMEMBERED_IDS {
                    side.used.insert(r.id.clone())
                } else {
                    !side.used.contains(&r.id)
                };
                if stateless && outstanding {
                    // 2026-07-28 relaxed uniqueness to the requests still awaiting an answer.
                    inspection.violations.push(Violation::new(
                        &rules::REQUEST_ID_NOT_OUTSTANDING,
                        "an id no request awaiting its answer has",
                        format!(
                            "id {} for {}, while the request with that id awaits its answer",
                            r.id, r.method
                        ),
                    ));
                } else if !fresh && !stateless {
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
                let modern = stateless.then(|| modern::ModernRequest::of(r));
                side.outstanding.insert(r.id.clone(), Pending { method: r.method.clone(), progress, modern });
                self.on_feature_request(direction, r, &mut inspection.violations);
            }
            Message::Notification(n) => {
                let side = self.side_mut(direction);
                side.notifications = side.notifications.saturating_add(1);
                self.on_feature_notification(direction, n, &mut inspection.violations);
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
                    requester.progress.remove(&token);
                    requester.active_tokens.remove(&token);
                    if requester.progress_done.len() < MAX_REMEMBERED_IDS {
                        requester.progress_done.insert(token);
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
        [&self.client, &self.server].iter().all(|side| {
            side.active_tokens.is_empty() && side.outstanding.values().all(|p| p.method.is_empty())
        })
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
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    pub(crate) const C2S: Direction = Direction::ClientToServer;
    pub(crate) const S2C: Direction = Direction::ServerToClient;

    /// The ids of the rules the inspections found broken, in order.
    pub(crate) fn ids(inspections: &[Inspection]) -> Vec<&'static str> {
        inspections.iter().flat_map(|i| i.violations.iter().map(|v| v.rule.id)).collect()
    }

    fn session() -> SessionChecker {
        let mut c = SessionChecker::new(Revision::V2025_06_18);
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
        // Past the handshake: the phase rules have nothing to say.
        c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        c
    }

    #[test]
    fn a_matching_response_names_its_method() {
        let mut c = session();
        let out = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{}}));
        assert_eq!(ids(&out), Vec::<&str>::new());
        assert_eq!(out[0].answered_method.as_deref(), Some("ping"));
    }

    #[test]
    fn a_changed_id_type_is_named() {
        let mut c = session();
        assert_eq!(c.outstanding_match(C2S, &RequestId::from("1")), Some(RequestId::from(1)));
        let out = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"1","result":{}}));
        assert_eq!(ids(&out), ["jsonrpc/response-id-matches-request"]);
        assert!(out[0].violations[0]
            .actual
            .contains("(string) answering the ping request with id 1 (integer)"));
        assert_eq!(out[0].answered_method.as_deref(), Some("ping"), "still validated as a ping result");
    }

    #[test]
    fn duplicate_and_unknown_responses_fail() {
        let mut c = session();
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{}}));
        let again = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{}}));
        assert!(again[0].violations[0].actual.starts_with("a second response"));
        let unknown = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":7,"result":{}}));
        assert_eq!(ids(&unknown), ["jsonrpc/response-id-matches-request"]);
    }

    #[test]
    fn envelope_faults_map_to_their_rules() {
        let mut c = session();
        let cases = [
            (
                json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}),
                "jsonrpc/response-result-xor-error",
            ),
            (json!({"jsonrpc":"2.0","id":null,"method":"roots/list"}), "jsonrpc/request-id-not-null"),
            (
                json!({"jsonrpc":"2.0","id":2,"error":{"code":1.5,"message":"x"}}),
                "jsonrpc/error-code-integer",
            ),
            (json!({"jsonrpc":"2.0","id":5,"method":"notifications/progress"}), "jsonrpc/notification-no-id"),
            (json!("hello"), "jsonrpc/message-object"),
            (json!([]), "jsonrpc/batch-revision"),
        ];
        for (v, want) in cases {
            assert_eq!(ids(&c.on_value(S2C, &v)), [want], "{v}");
        }
    }

    #[test]
    fn reused_request_ids_fail() {
        let mut c = session();
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"a","method":"ping"}));
        let out = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"a","method":"ping"}));
        assert_eq!(ids(&out), ["jsonrpc/request-id-unique"]);
    }

    #[test]
    fn initialize_moves_the_revision() {
        let mut c = SessionChecker::new(Revision::V2025_11_25);
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}));
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26"}}));
        assert_eq!(c.revision(), Revision::V2025_03_26);
        c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        assert!(ids(&c.on_value(S2C, &json!([{"jsonrpc":"2.0","method":"notifications/x"}]))).is_empty());
    }

    /// A message reassembled from the lines it was split over breaks the framing once, and is
    /// judged as the message it is: here, the answer to the outstanding ping.
    #[test]
    fn a_reassembled_message_is_flagged_and_judged() {
        let mut c = session();
        let pong =
            FrameContent::Json { value: json!({"jsonrpc":"2.0","id":1,"result":{}}), crlf: false, lines: 5 };
        let out = c.on_frame(S2C, &pong);
        assert_eq!(ids(&out), ["stdio/newline-delimited"]);
        assert!(out[0].violations[0].actual.contains("over 5 lines"), "{:?}", out[0].violations);
        assert_eq!(out[1].answered_method.as_deref(), Some("ping"));
        assert_eq!(c.outstanding_match(C2S, &RequestId::from(1)), None, "answered");
        let again = FrameContent::Json {
            value: json!({"jsonrpc":"2.0","method":"notifications/x"}),
            crlf: false,
            lines: 3,
        };
        assert_eq!(ids(&c.on_frame(S2C, &again)), Vec::<&str>::new(), "reported once");
        assert_eq!(ids(&c.on_frame(C2S, &again)), ["stdio/newline-delimited"], "per side");
    }

    #[test]
    fn framing_faults_map_to_stdio_rules() {
        let mut c = session();
        let bad = mcpspec_protocol::framing::decode_line(b"y");
        assert_eq!(ids(&c.on_frame(S2C, &bad)), ["stdio/stdout-only-mcp"]);
        assert_eq!(ids(&c.on_frame(S2C, &FrameContent::Blank)), ["stdio/blank-line"]);
    }
}

#[cfg(test)]
mod feature_tests {
    use super::*;
    use serde_json::json;

    const C2S: Direction = Direction::ClientToServer;
    const S2C: Direction = Direction::ServerToClient;

    fn ids(inspections: &[Inspection]) -> Vec<&'static str> {
        inspections.iter().flat_map(|i| i.violations.iter().map(|v| v.rule.id)).collect()
    }

    /// An initialized session: the client declared `client_caps`, the server `server_caps`.
    fn initialized(client_caps: Value, server_caps: Value) -> SessionChecker {
        let mut c = SessionChecker::new(Revision::V2025_11_25);
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":client_caps}}));
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":server_caps}}));
        c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        c
    }

    #[test]
    fn notifications_need_their_capability() {
        let mut c = initialized(json!({}), json!({"tools":{}}));
        let log =
            json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}});
        assert_eq!(ids(&c.on_value(S2C, &log)), ["capabilities/logging-declared"]);
        let changed = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"});
        assert_eq!(ids(&c.on_value(S2C, &changed)), ["capabilities/server-uses-negotiated"]);
        let mut ok = initialized(json!({}), json!({"logging":{},"tools":{"listChanged":true}}));
        assert!(ids(&ok.on_value(S2C, &log)).is_empty());
        assert!(ids(&ok.on_value(S2C, &changed)).is_empty());
    }

    #[test]
    fn server_requests_need_client_capabilities() {
        let mut c = initialized(json!({"elicitation":{}}), json!({}));
        let sampling = json!({"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}});
        assert_eq!(ids(&c.on_value(S2C, &sampling)), ["capabilities/server-requests-declared"]);
        let url = json!({"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"e"}});
        assert_eq!(ids(&c.on_value(S2C, &url)), ["elicitation/mode-declared"]);
        let mut t = initialized(json!({"sampling":{}}), json!({}));
        let tools = json!({"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}});
        assert_eq!(ids(&t.on_value(S2C, &tools)), ["sampling/tools-capability"]);
    }

    #[test]
    fn requests_before_initialized_are_flagged() {
        let mut c = SessionChecker::new(Revision::V2025_06_18);
        c.on_value(
            C2S,
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"roots":{}}}}),
        );
        c.on_value(
            S2C,
            &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}),
        );
        assert!(ids(&c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"p","method":"ping"}))).is_empty());
        let roots = json!({"jsonrpc":"2.0","id":"r","method":"roots/list"});
        assert_eq!(ids(&c.on_value(S2C, &roots)), ["lifecycle/server-quiet-before-initialized"]);
    }

    #[test]
    fn progress_follows_its_request() {
        let mut c = initialized(json!({}), json!({"tools":{}}));
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"tok"}}}));
        let p = |v: f64| json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":v}});
        assert!(ids(&c.on_value(S2C, &p(1.0))).is_empty());
        assert_eq!(ids(&c.on_value(S2C, &p(1.0))), ["progress/increasing"]);
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":5,"result":{"content":[]}}));
        assert_eq!(ids(&c.on_value(S2C, &p(3.0))), ["progress/stops-after-completion"]);
        let stranger = json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9,"progress":1}});
        assert_eq!(ids(&c.on_value(S2C, &stranger)), ["progress/token-active"]);
    }

    #[test]
    fn progress_tokens_are_unique_among_active_requests() {
        let mut c = initialized(json!({}), json!({"tools":{}}));
        let call = |id: i64, token: Value| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":token}}});
        assert!(ids(&c.on_value(C2S, &call(1, json!("tok")))).is_empty());
        assert_eq!(ids(&c.on_value(C2S, &call(2, json!("tok")))), ["progress/token-unique"]);
        // A token of another JSON type is another token.
        assert!(ids(&c.on_value(C2S, &call(3, json!(7)))).is_empty());
        // Free again once its request is answered, or cancelled by its sender.
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{"content":[]}}));
        assert!(ids(&c.on_value(C2S, &call(4, json!("tok")))).is_empty());
        let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}});
        assert!(ids(&c.on_value(C2S, &cancel)).is_empty());
        assert!(ids(&c.on_value(C2S, &call(5, json!(7)))).is_empty());
    }

    #[test]
    fn cancellations_name_the_cancellers_own_requests_and_never_initialize() {
        let mut c = initialized(json!({}), json!({"tools":{}}));
        let cancel = |id: Value| json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id,"reason":"r"}});
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"t"}}));
        assert!(ids(&c.on_value(C2S, &cancel(json!("c1")))).is_empty());
        // Already answered: the answer may have crossed the cancel.
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":"c2","method":"tools/list"}));
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"c2","result":{"tools":[]}}));
        assert!(ids(&c.on_value(C2S, &cancel(json!("c2")))).is_empty());
        assert_eq!(ids(&c.on_value(C2S, &cancel(json!("never")))), ["cancellation/in-flight-only"]);
        // The other side's request is not the client's to cancel.
        c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"s1","method":"ping"}));
        assert_eq!(ids(&c.on_value(C2S, &cancel(json!("s1")))), ["cancellation/in-flight-only"]);
        let twin = c.on_value(C2S, &cancel(json!(0)));
        assert_eq!(ids(&twin), ["cancellation/not-initialize"]);
        let wrong_type = c.on_value(C2S, &cancel(json!("0")));
        assert_eq!(ids(&wrong_type), ["cancellation/in-flight-only"]);
        assert!(wrong_type[0].violations[0].actual.contains("the request had id 0 (integer)"));
        // The server's cancellation of its own request is fine.
        assert!(ids(&c.on_value(S2C, &cancel(json!("s1")))).is_empty());
    }

    #[test]
    fn client_requests_need_server_capabilities() {
        let mut c = initialized(json!({"roots":{}}), json!({"tools":{},"resources":{}}));
        let req = |id: i64, method: &str| json!({"jsonrpc":"2.0","id":id,"method":method,"params":{}});
        assert!(ids(&c.on_value(C2S, &req(1, "tools/list"))).is_empty());
        assert!(ids(&c.on_value(C2S, &req(2, "resources/read"))).is_empty());
        assert!(ids(&c.on_value(C2S, &req(3, "ping"))).is_empty());
        for (id, method) in [
            (4, "prompts/list"),
            (5, "resources/subscribe"),
            (6, "logging/setLevel"),
            (7, "completion/complete"),
        ] {
            assert_eq!(
                ids(&c.on_value(C2S, &req(id, method))),
                ["capabilities/client-uses-negotiated"],
                "{method}"
            );
        }
        let changed = json!({"jsonrpc":"2.0","method":"notifications/roots/list_changed"});
        assert_eq!(ids(&c.on_value(C2S, &changed)), ["capabilities/client-uses-negotiated"]);
        // Before the server has answered initialize nothing is negotiated, so nothing is judged.
        let mut early = SessionChecker::new(Revision::V2025_06_18);
        early.on_value(
            C2S,
            &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}),
        );
        assert!(ids(&early.on_value(C2S, &req(1, "prompts/list"))).is_empty());
    }

    #[test]
    fn an_error_without_id_answers_only_malformed_input() {
        let mut c = initialized(json!({}), json!({}));
        let parse_error = json!({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}});
        assert_eq!(ids(&c.on_value(S2C, &parse_error)), ["jsonrpc/notification-unanswered"]);
        c.on_frame(C2S, &mcpspec_protocol::framing::decode_line(b"y"));
        assert!(ids(&c.on_value(S2C, &parse_error)).is_empty());
    }
}

#[cfg(test)]
mod url_mode_tests {
    use super::*;
    use mcpspec_protocol::elicitation::required_error_problems;
    use serde_json::json;

    const C2S: Direction = Direction::ClientToServer;
    const S2C: Direction = Direction::ServerToClient;

    fn ids(c: &mut SessionChecker, d: Direction, v: Value) -> Vec<&'static str> {
        c.on_value(d, &v).iter().flat_map(|i| i.violations.iter().map(|v| v.rule.id)).collect()
    }

    /// A 2025-11-25 session with a client that takes URL-mode elicitation.
    fn session() -> SessionChecker {
        let mut c = SessionChecker::new(Revision::V2025_11_25);
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{"url":{}}}}}));
        c.on_value(
            S2C,
            &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}),
        );
        c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        c
    }

    fn elicit(id: i64, url: &str, elicitation_id: &str) -> Value {
        json!({"jsonrpc":"2.0","id":id,"method":"elicitation/create","params":{"mode":"url","message":"m","url":url,"elicitationId":elicitation_id}})
    }

    fn complete(elicitation_id: &str) -> Value {
        json!({"jsonrpc":"2.0","method":"notifications/elicitation/complete","params":{"elicitationId":elicitation_id}})
    }

    #[test]
    fn url_mode_elicitations_name_a_valid_url() {
        let mut c = session();
        assert!(ids(&mut c, S2C, elicit(1, "https://example.com/consent?x=1", "e1")).is_empty());
        assert_eq!(ids(&mut c, S2C, elicit(2, "the consent page", "e2")), ["elicitation/url-valid"]);
        assert_eq!(ids(&mut c, S2C, elicit(3, "/relative/path", "e3")), ["elicitation/url-valid"]);
    }

    #[test]
    fn completions_name_an_elicitation_of_the_session() {
        let mut c = session();
        assert_eq!(ids(&mut c, S2C, complete("e1")), ["elicitation/complete-known-id"]);
        ids(&mut c, S2C, elicit(1, "https://example.com/", "e1"));
        assert!(ids(&mut c, S2C, complete("e1")).is_empty());
        // Ids a -32042 error announced may be completed too.
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}));
        let required = json!({"jsonrpc":"2.0","id":5,"error":{"code":-32042,"message":"m","data":{"elicitations":[
            {"mode":"url","elicitationId":"e9","url":"https://example.com/","message":"m"}]}}});
        assert!(ids(&mut c, S2C, required).is_empty());
        assert!(ids(&mut c, S2C, complete("e9")).is_empty());
    }

    #[test]
    fn url_elicitation_required_errors_list_url_mode_elicitations() {
        let mut c = session();
        c.on_value(C2S, &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t"}}));
        let form = json!({"jsonrpc":"2.0","id":5,"error":{"code":-32042,"message":"m","data":{"elicitations":[
            {"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}]}}});
        assert_eq!(
            ids(&mut c, S2C, form),
            ["elicitation/required-error-url-mode", "elicitation/required-error-url-mode"]
        );
        assert_eq!(required_error_problems(None), ["no data.elicitations list of the elicitations required"]);
    }
}
