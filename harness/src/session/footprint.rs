//! What a scenario did on a server session, since the session was settled, that a later
//! scenario on the same session could notice: the evidence [`super::pool`] decides sharing on.
//! Sans-IO: the session tells it what was sent and received, and the session checker what is in
//! flight.

use crate::judge::checker::{Inspection, SessionChecker};
use mcpspec_protocol::framing::{FrameContent, LineDecoder};
use mcpspec_protocol::wire::{Message, Outcome, RequestId, Response};
use mcpspec_protocol::{Direction, Era};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The requests that only read what the server holds (ping, the list, get and read methods,
/// completion). Any other request changes the server only if it is carried out: answered with
/// a result, not an error.
const READING_METHODS: &[&str] = &[
    "ping",
    "server/discover",
    "tools/list",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
];

/// What the client did on a session, since it was settled, that a later scenario on the same
/// session could notice. Sans-IO: the session tells it what was sent and received, and the
/// session checker what is in flight.
#[derive(Debug, Default)]
pub struct Footprint {
    /// The first thing done that a later scenario could notice.
    disturbed: Option<String>,
    /// Requests sent that would change the server if carried out, awaiting their answers:
    /// id → method.
    effects: HashMap<RequestId, String>,
    /// Tool calls among `effects` whose arguments the tool's input schema refuses
    /// ([`Footprint::arguments_refused`]).
    refused_arguments: HashSet<RequestId>,
    /// Whether the session has been handed from one scenario to another.
    handed_over: bool,
    /// An id of the client's own choosing that the session had used before this scenario.
    reused_id: Option<String>,
    /// The client sent something that is no well-formed request or notification (which the
    /// server may answer with an error no id ties to it).
    malformed: bool,
    /// The legacy handshake of a session the scenario opened itself, before anything settled it
    /// ([`Footprint::before_handshake`]): not a change of the server but what makes it a
    /// session another scenario could use.
    handshake: Option<Handshake>,
    /// Whether the client's first `initialize` is its handshake (a fresh process), not a
    /// request that changes an initialized session.
    awaits_handshake: bool,
}

/// The client's first `initialize` on a fresh process, and how far it has gone.
#[derive(Debug)]
pub struct Handshake {
    id: RequestId,
    /// The capabilities the client declared in it.
    pub capabilities: Value,
    /// The server's result, once it has answered with one.
    pub result: Option<Value>,
    /// Whether the client has sent `notifications/initialized` since.
    pub confirmed: bool,
}

impl Footprint {
    /// The footprint of a process the client has just started: its first `initialize` and the
    /// `notifications/initialized` after its result are the handshake ([`Self::handshake`]),
    /// not changes. Any other footprint (`default`) counts them as changes: a session already
    /// initialized, which the handshake would change.
    pub fn before_handshake() -> Footprint {
        Footprint { awaits_handshake: true, ..Footprint::default() }
    }

    /// The client changed how it answers the server's requests: something the server could
    /// notice, unless the session has not begun (a persona set before the handshake is the
    /// one the session starts with).
    pub fn persona_changed(&mut self) {
        if !(self.awaits_handshake && self.handshake.is_none()) {
            self.note("the client changed how it answers the server");
        }
    }

    /// The handshake the client made on a fresh process, if it began one.
    pub fn handshake(&self) -> Option<&Handshake> {
        self.handshake.as_ref()
    }

    /// Why the session must not serve another scenario, if it must not. The client may have
    /// sent reading requests, requests the server refused with an error, malformed lines the
    /// server had to reject, cancellations of what is not in flight, and ids of its own
    /// choosing; a conformant server is then as the scenario found it (one that is not fails
    /// the scenario, which ends the session too). Not so after a request the server carried
    /// out, any other notification, a change in how the client answers, an unfinished line, or
    /// with a request or progress still in flight — but for a reading request when `routed`:
    /// the session is a tenant of a shared process, whose late answers go by id to the scenario
    /// that asked ([`super::server::routes`]), so the next scenario cannot notice them.
    pub fn why_not_shareable(&self, checker: &SessionChecker, routed: bool) -> Option<String> {
        if let Some(what) = &self.disturbed {
            return Some(what.clone());
        }
        if let Some(method) = self.effects.values().next() {
            return Some(format!("the {method} request was not answered"));
        }
        let quiet = match routed {
            true => checker.is_quiet_but(|method| READING_METHODS.contains(&method)),
            false => checker.is_quiet(),
        };
        (!quiet).then(|| "a request or progress was still in flight".to_owned())
    }

    /// What the client did that other scenarios using the server at the same time could
    /// notice (anything [`Self::why_not_shareable`] would name but what is still in flight).
    pub fn disturbed(&self) -> Option<&str> {
        self.disturbed.as_deref()
    }

    /// A request that would change the server if carried out still awaits its answer.
    pub fn awaits_effect(&self) -> bool {
        !self.effects.is_empty()
    }

    /// Whether everything the client sent was a well-formed message.
    pub fn well_formed(&self) -> bool {
        !self.malformed
    }

    /// Something the server could notice happened (`what` says what).
    pub fn note(&mut self, what: &str) {
        self.disturbed.get_or_insert_with(|| what.to_owned());
    }

    /// The session went from one scenario to the next.
    pub fn handed_over(&mut self) {
        self.handed_over = true;
    }

    /// An id of its own choosing the client sent in this scenario that an earlier scenario on
    /// the same shared session had used: the server may rightly refuse it (ids are unique per
    /// session), so the scenario cannot be judged on a shared session.
    pub fn reused_id(&self) -> Option<&str> {
        self.reused_id.as_deref()
    }

    /// The client is about to send `value`; `checker` has not seen it yet.
    pub fn sent(&mut self, value: &Value, checker: &SessionChecker) {
        let message = match value {
            Value::Array(items) => {
                // A batch may be refused as a whole (and is, from 2025-06-18).
                self.malformed = true;
                return items.iter().for_each(|item| self.sent(item, checker));
            }
            Value::Object(message) => {
                self.malformed |= Message::from_value(value).is_err();
                message
            }
            // Not a message: the server must reject it.
            _ => {
                self.malformed = true;
                return;
            }
        };
        // Without a method it is an answer, or a malformed message the server must reject.
        let Some(method) = message.get("method").and_then(Value::as_str) else {
            self.malformed |= !(message.contains_key("result") || message.contains_key("error"));
            return;
        };
        let id = match message.get("id") {
            // Cancelling what is not in flight (unknown, or answered) is to be ignored
            // (utilities/cancellation.mdx), and cancelling a reading request ends a read.
            None if method == "notifications/cancelled"
                && cancelled_method(message.get("params"), checker)
                    .is_none_or(|cancelled| READING_METHODS.contains(&cancelled)) =>
            {
                return
            }
            // The handshake's end, once its initialize has a result.
            None if method == "notifications/initialized"
                && self.handshake.as_ref().is_some_and(|h| h.result.is_some() && !h.confirmed) =>
            {
                return self.handshake.iter_mut().for_each(|h| h.confirmed = true);
            }
            None => return self.note(&format!("the client sent the {method} notification")),
            // An id no request may carry (null, fractional): an invalid request, to be rejected.
            // No answer could show whether the server carried it out, so one naming a method
            // that changes the server counts as carried out.
            Some(id) => match RequestId::from_value(id) {
                Some(id) => id,
                None => {
                    self.malformed = true;
                    if !READING_METHODS.contains(&method) {
                        self.note(&format!("the client sent {method} with an id no request may carry"));
                    }
                    return;
                }
            },
        };
        // Ids are unique per session in the legacy era; the modern one asks only that an id
        // not be one still awaiting its answer (2026-07-28 basic/index.mdx#requests).
        let taken = match checker.revision().era() {
            Era::Legacy => checker.has_used(Direction::ClientToServer, &id),
            Era::Modern => checker.outstanding_match(Direction::ClientToServer, &id).is_some(),
        };
        if self.handed_over && self.reused_id.is_none() && taken {
            self.reused_id = Some(id.to_string());
        }
        if method == "initialize" && self.awaits_handshake {
            self.awaits_handshake = false;
            let capabilities = message.get("params").and_then(|p| p.get("capabilities")).cloned();
            let capabilities = capabilities.unwrap_or(Value::Null);
            self.handshake = Some(Handshake { id, capabilities, result: None, confirmed: false });
        } else if !READING_METHODS.contains(&method) {
            self.effects.insert(id, method.to_owned());
        }
    }

    /// The request `id` names nothing the server offers (a tool of mcpspec's own invention):
    /// whatever the server answers, it carried nothing out. A scenario that judges the answer
    /// still fails a server that claims to have run it.
    pub fn names_nothing_offered(&mut self, id: &RequestId) {
        self.effects.remove(id);
    }

    /// The tool call `id` carries arguments the tool's input schema refuses. A server that
    /// validates its tools' inputs, as servers must (server/tools.mdx#security-considerations:
    /// "Servers MUST validate all tool inputs"), refuses it before running anything, with an
    /// error or a tool error (`isError`): either answer carried nothing out. A result that is no
    /// tool error ran the tool (and fails the scenario that judges it).
    pub fn arguments_refused(&mut self, id: &RequestId) {
        if self.effects.contains_key(id) {
            self.refused_arguments.insert(id.clone());
        }
    }

    /// The client is about to write `bytes` as they are.
    pub fn sent_raw(&mut self, bytes: &[u8], checker: &SessionChecker) {
        for frame in LineDecoder::decode_all(usize::MAX, bytes) {
            match &frame.content {
                FrameContent::Json { value, .. } => self.sent(value, checker),
                FrameContent::Invalid(_) => self.malformed = true,
                FrameContent::Blank => {}
            }
        }
        if !bytes.ends_with(b"\n") {
            // The server holds a partial line, which the next message would complete.
            self.note("the client left a line unfinished");
        }
    }

    /// The server sent what `inspections` hold: which requests did it carry out?
    pub fn received(&mut self, inspections: &[Inspection]) {
        let handshaking = self.handshake.as_ref().is_some_and(|h| h.result.is_none());
        if self.effects.is_empty() && !handshaking {
            return;
        }
        for i in inspections {
            let Some(Message::Response(Response { id: Some(id), outcome, .. })) = &i.message else {
                continue;
            };
            if let Some(h) = self.handshake.as_mut().filter(|h| h.result.is_none() && h.id == *id) {
                match outcome {
                    Outcome::Result(result) => h.result = Some(result.clone()),
                    Outcome::Error(_) => self.note("the server refused the client's initialize"),
                }
                continue;
            }
            let Some((sent, method)) =
                self.effects.remove_entry(id).or_else(|| self.effects.remove_entry(&id.twin()?))
            else {
                continue;
            };
            let refused = self.refused_arguments.remove(&sent);
            let tool_error = |result: &Value| result.get("isError") == Some(&Value::Bool(true));
            if matches!(outcome, Outcome::Result(result) if !(refused && tool_error(result))) {
                self.note(&format!("the client sent {method}, and the server carried it out"));
            }
        }
    }
}

/// The method of the request of the client's still awaiting its answer that cancellation
/// params name, if they name one.
fn cancelled_method<'c>(params: Option<&Value>, checker: &'c SessionChecker) -> Option<&'c str> {
    let id = params.and_then(|p| p.get("requestId")).and_then(RequestId::from_value)?;
    checker.outstanding_method(Direction::ClientToServer, &id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A session seen by the checker and the footprint, as `ServerSession` feeds them.
    struct Wire {
        checker: SessionChecker,
        footprint: Footprint,
    }

    impl Wire {
        fn new() -> Wire {
            Wire {
                checker: SessionChecker::new(mcpspec_protocol::Revision::V2025_06_18),
                footprint: Footprint::default(),
            }
        }

        fn send(&mut self, value: Value) -> &mut Wire {
            self.footprint.sent(&value, &self.checker);
            self.checker.on_value(Direction::ClientToServer, &value);
            self
        }

        fn receive(&mut self, value: Value) -> &mut Wire {
            let inspections = self.checker.on_value(Direction::ServerToClient, &value);
            self.footprint.received(&inspections);
            self
        }

        fn why_not(&self) -> Option<String> {
            self.footprint.why_not_shareable(&self.checker, false)
        }
    }

    fn request(id: Value, method: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}})
    }

    fn result(id: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "result": {}})
    }

    fn error(id: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32602, "message": "no"}})
    }

    #[test]
    fn answered_reading_requests_leave_the_session_shareable() {
        let mut w = Wire::new();
        w.send(request(json!(1), "tools/list")).receive(result(json!(1)));
        w.send(request(json!("mcpspec-id"), "ping")).receive(result(json!("mcpspec-id")));
        assert_eq!(w.why_not(), None);
    }

    #[test]
    fn a_call_of_nothing_the_server_offers_carried_nothing_out() {
        let mut w = Wire::new();
        w.send(request(json!(1), "tools/call"));
        w.footprint.names_nothing_offered(&RequestId::Integer(1));
        let refused = json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": true}});
        w.receive(refused);
        assert_eq!(w.why_not(), None);
        // Any other call the server answers with a result was carried out.
        w.send(request(json!(2), "tools/call")).receive(result(json!(2)));
        assert!(w.why_not().expect("not shareable").contains("carried it out"));
    }

    #[test]
    fn a_call_refused_for_arguments_its_schema_refuses_carried_nothing_out() {
        let tool_error =
            |id: i64| json!({"jsonrpc": "2.0", "id": id, "result": {"content": [], "isError": true}});
        let mut w = Wire::new();
        w.send(request(json!(1), "tools/call"));
        w.footprint.arguments_refused(&RequestId::Integer(1));
        w.receive(tool_error(1));
        w.send(request(json!(2), "tools/call"));
        w.footprint.arguments_refused(&RequestId::Integer(2));
        w.receive(error(json!(2)));
        assert_eq!(w.why_not(), None);
        // A result that is no tool error ran the tool, refused arguments or not.
        let mut ran = Wire::new();
        ran.send(request(json!(1), "tools/call"));
        ran.footprint.arguments_refused(&RequestId::Integer(1));
        ran.receive(result(json!(1)));
        assert!(ran.why_not().expect("not shareable").contains("carried it out"));
        // A tool error for arguments the schema accepts may come after the tool changed something.
        let mut failed = Wire::new();
        failed.send(request(json!(1), "tools/call")).receive(tool_error(1));
        assert!(failed.why_not().expect("not shareable").contains("carried it out"));
    }

    #[test]
    fn a_request_the_server_carried_out_ends_the_session_and_one_it_refused_does_not() {
        let mut refused = Wire::new();
        refused.send(request(json!(1), "tools/call")).receive(error(json!(1)));
        assert_eq!(refused.why_not(), None);
        let mut carried_out = Wire::new();
        carried_out.send(request(json!(1), "tools/call")).receive(result(json!(1)));
        let why = carried_out.why_not().expect("not shareable");
        assert!(why.contains("tools/call, and the server carried it out"), "{why}");
    }

    #[test]
    fn what_is_still_in_flight_ends_the_session() {
        let mut w = Wire::new();
        w.send(request(json!(1), "logging/setLevel"));
        assert!(w.why_not().expect("not shareable").contains("logging/setLevel request was not answered"));
        let mut w = Wire::new();
        w.send(request(json!(1), "ping"));
        assert!(w.why_not().expect("not shareable").contains("in flight"));
    }

    #[test]
    fn notifications_end_the_session_but_cancelling_what_is_not_in_flight_does_not() {
        let cancel = |id: i64| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
        let mut w = Wire::new();
        w.send(request(json!(1), "ping")).receive(result(json!(1)));
        w.send(cancel(1)).send(cancel(99));
        assert_eq!(w.why_not(), None);
        w.send(request(json!(2), "tools/call")).send(cancel(2));
        assert!(w.why_not().expect("not shareable").contains("notifications/cancelled"));
        let mut w = Wire::new();
        w.send(json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}));
        assert!(w.why_not().is_some());
    }

    #[test]
    fn a_reading_request_cancelled_or_dropped_is_left_to_its_routes_on_a_shared_process() {
        let cancel = |id: i64| json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": id}});
        let mut w = Wire::new();
        w.send(request(json!(1), "tools/list")).send(cancel(1));
        assert_eq!(w.footprint.disturbed(), None, "cancelling a read changes nothing");
        // The server may still answer it: only where the answer goes by id to this scenario.
        assert!(w.why_not().expect("not shareable").contains("in flight"));
        assert_eq!(w.footprint.why_not_shareable(&w.checker, true), None);
        // A batch of pings refused as a whole leaves them in flight, harmlessly so.
        let mut w = Wire::new();
        w.send(json!([request(json!("b1"), "ping"), request(json!("b2"), "ping")]));
        assert_eq!(w.footprint.why_not_shareable(&w.checker, true), None);
        // Not a request that would change the server, nor a request of the server's.
        let mut w = Wire::new();
        w.send(request(json!(1), "tools/call"));
        assert!(w.footprint.why_not_shareable(&w.checker, true).is_some());
        let mut w = Wire::new();
        w.receive(request(json!(7), "roots/list"));
        assert!(w.footprint.why_not_shareable(&w.checker, true).expect("asked").contains("in flight"));
    }

    #[test]
    fn rejected_input_leaves_the_session_shareable_but_an_unfinished_line_does_not() {
        let mut w = Wire::new();
        w.footprint.sent_raw(b"{this is not JSON\n", &w.checker);
        w.send(json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
        w.send(json!([1, 2]));
        assert_eq!(w.why_not(), None);
        w.footprint.sent_raw(b"{\"jsonrpc\":", &w.checker);
        assert!(w.why_not().expect("not shareable").contains("unfinished"));
    }

    #[test]
    fn a_fresh_process_handshake_is_no_change_but_a_second_initialize_is() {
        let mut w = Wire::new();
        w.footprint = Footprint::before_handshake();
        w.footprint.persona_changed();
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {"roots": {}}, "clientInfo": {"name": "t", "version": "1"}}});
        w.send(initialize.clone());
        assert!(w.why_not().expect("not quiet").contains("in flight"));
        w.receive(json!({"jsonrpc": "2.0", "id": 1, "result": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": {"name": "s", "version": "1"}}}));
        w.send(request(json!(2), "ping")).receive(result(json!(2)));
        assert_eq!(w.why_not(), None, "the handshake and a ping change nothing");
        let h = w.footprint.handshake().expect("a handshake");
        assert_eq!((h.capabilities.clone(), h.confirmed), (json!({"roots": {}}), false));
        assert_eq!(h.result.as_ref().unwrap()["protocolVersion"], "2025-06-18");
        w.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        assert!(w.footprint.handshake().unwrap().confirmed);
        assert_eq!(w.why_not(), None);
        w.send(json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": initialize["params"]}));
        w.receive(result(json!(3)));
        assert!(w
            .why_not()
            .expect("a second initialize")
            .contains("initialize, and the server carried it out"));
        w.footprint.persona_changed();
        assert!(w.footprint.disturbed().is_some());
        // A settled session's footprint has no handshake: initialize there is a change.
        let mut settled = Wire::new();
        settled.send(request(json!(1), "initialize")).receive(result(json!(1)));
        assert!(settled.footprint.handshake().is_none());
        assert!(settled.why_not().is_some());
        let mut refused = Wire::new();
        refused.footprint = Footprint::before_handshake();
        refused.send(request(json!(1), "initialize")).receive(error(json!(1)));
        assert!(refused.why_not().expect("refused").contains("refused the client's initialize"));
    }

    #[test]
    fn a_changing_request_under_an_id_no_answer_can_carry_ends_the_session() {
        let mut w = Wire::new();
        w.send(json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}));
        assert_eq!(w.why_not(), None, "a ping changes nothing, carried out or not");
        w.send(json!({"jsonrpc": "2.0", "id": null, "method": "tools/call", "params": {}}));
        let why = w.why_not().expect("not shareable");
        assert!(why.contains("tools/call with an id no request may carry"), "{why}");
    }

    #[test]
    fn an_id_an_earlier_scenario_used_is_flagged_only_on_a_handed_over_session() {
        let mut w = Wire::new();
        w.send(request(json!("x"), "ping")).receive(result(json!("x")));
        w.send(request(json!("x"), "ping"));
        assert_eq!(w.footprint.reused_id(), None, "the scenario's own reuse is the server's to judge");
        let mut w = Wire::new();
        w.send(request(json!("x"), "ping")).receive(result(json!("x")));
        w.footprint.handed_over();
        w.send(request(json!("y"), "ping"));
        assert_eq!(w.footprint.reused_id(), None);
        w.send(request(json!("x"), "ping"));
        assert_eq!(w.footprint.reused_id(), Some("\"x\""));
    }
}
