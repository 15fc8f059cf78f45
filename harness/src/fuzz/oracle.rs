//! What the implementation did with the bytes it was given, judged without any I/O: the
//! driver feeds a [`Watch`] every write it makes and every frame it reads, and the watch says
//! which oracle tripped, on which message. The same watch judges a live campaign, a replayed
//! reproducer and a minimization probe.
//!
//! What counts as an answer is deliberately lenient on the sending side and strict on the
//! answering side: the fuzzer sends broken lines on purpose, and a server may recover an id
//! from a line we would not call a request (a BOM, a CRLF, a message split over lines that it
//! joins again). So every id that appears anywhere in the bytes sent may be answered
//! ([`Watch::permits`]), while an answer to an id never sent, a second answer to an id sent
//! once, a result without an id, and an error without an id when nothing malformed was sent
//! are desyncs; a message the negotiated revision's schema rejects is invalid.

use super::signature::Oracle;
use mcpspec_protocol::framing::{self, Frame, FrameContent};
use mcpspec_protocol::{Direction, RequestId, Revision};
use mcpspec_schema::{SchemaSet, Validation};
use regex::bytes::Regex;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, LazyLock};

/// One tripped oracle, on one message.
#[derive(Debug, Clone, PartialEq)]
pub struct Trip {
    pub oracle: Oracle,
    /// The method the offending message answers or carries, when one is known.
    pub method: Option<String>,
    /// What was wrong, for people.
    pub detail: String,
    /// The offending message, when there is one.
    pub message: Option<Value>,
}

/// A request the fuzzer wrote that is well-formed enough to expect exactly one answer.
#[derive(Debug)]
struct Sent {
    method: String,
    /// When it was first sent, in the session's order.
    order: u64,
    /// The input (its place in the window) that sent it.
    input: usize,
    /// How many requests carried this id (an input may reuse ids on purpose).
    count: u32,
    answered: u32,
    /// Refused by the transport (an HTTP error status): not awaited.
    refused: bool,
}

/// Judges one session's traffic.
pub struct Watch {
    schemas: Option<Arc<SchemaSet>>,
    /// The direction of what the implementation sends: a server's answers, or a client's.
    judged: Direction,
    revision: Revision,
    /// Bytes written since the last newline: lines are judged whole, however they were split.
    partial: Vec<u8>,
    /// The last bytes of the last whole line.
    line_tail: Vec<u8>,
    /// Well-formed requests, by id.
    requests: HashMap<RequestId, Sent>,
    /// Every id value that appeared in the bytes sent, as canonical JSON text, and how many
    /// times: a line we call broken (a BOM, a stray byte after the message) may still be a
    /// request to a lenient parser, and be answered.
    permitted: HashMap<String, u32>,
    /// Whether anything not a well-formed message was sent since the last barrier (an error
    /// without an id may answer it).
    malformed_sent: bool,
    notifications_sent: bool,
    trips: Vec<Trip>,
    sent_count: u64,
    /// The input now being written (its place in the window).
    input: usize,
    /// What each answered request came back as: (input, `method → shape`).
    shapes: Vec<(usize, String)>,
}

/// How much of a line is kept to find an id split from its key by a newline.
const LINE_TAIL: usize = 32;

/// `"id"` followed by a string or a number, anywhere in a line.
static ID_IN_BYTES: LazyLock<Regex> = LazyLock::new(|| {
    // Bytes, not characters (`-u`): an id may hold bytes that are not UTF-8, which a lenient
    // reader turns into U+FFFD and answers.
    Regex::new(r#"(?-u)"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9][0-9.eE+\-]*)"#).expect("valid regex")
});

impl Watch {
    /// A watch for a session at `revision`; `schemas` judge what the implementation sends
    /// (none, or none for the revision: no schema oracle).
    pub fn new(revision: Revision, schemas: Option<Arc<SchemaSet>>) -> Watch {
        Watch {
            schemas,
            judged: Direction::ServerToClient,
            revision,
            partial: Vec::new(),
            line_tail: Vec::new(),
            requests: HashMap::new(),
            permitted: Default::default(),
            malformed_sent: false,
            notifications_sent: false,
            trips: Vec::new(),
            sent_count: 0,
            input: 0,
            shapes: Vec::new(),
        }
    }

    /// A watch for a client under fuzzing: what it sends is judged as a client's messages
    /// (its requests to the fuzzer's server, its answers to the fuzzer's requests).
    pub fn of_client(revision: Revision, schemas: Option<Arc<SchemaSet>>) -> Watch {
        Watch { judged: Direction::ClientToServer, ..Watch::new(revision, schemas) }
    }

    /// What follows is written by the input at `place` in the window.
    pub fn mark_input(&mut self, place: usize) {
        self.input = place;
    }

    /// What each request answered in this window came back as, by input: `tools/call →
    /// error -32602`, `tools/list → result {nextCursor,tools}`. A black-box stand-in for
    /// coverage: an input that brings back a new shape is worth keeping in the corpus.
    pub fn take_shapes(&mut self) -> Vec<(usize, String)> {
        std::mem::take(&mut self.shapes)
    }

    /// Bytes written to the implementation.
    pub fn sent(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(at) = rest.iter().position(|&b| b == b'\n') {
            if self.partial.is_empty() {
                self.sent_line(&rest[..at]);
            } else {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&rest[..at]);
                self.sent_line(&line);
            }
            rest = &rest[at + 1..];
        }
        // Keep at most a bounded head of an unterminated line: ids are near the start of a
        // message, and a giant line is judged malformed whatever its tail.
        const KEEP: usize = 1 << 20;
        let room = KEEP.saturating_sub(self.partial.len());
        if rest.len() > room {
            self.malformed_sent = true;
        }
        self.partial.extend_from_slice(&rest[..rest.len().min(room)]);
    }

    /// One HTTP request body, judged whole (newlines inside it are JSON whitespace, not
    /// framing, over HTTP).
    pub fn sent_body(&mut self, body: &[u8]) {
        if !self.partial.is_empty() {
            let line = std::mem::take(&mut self.partial);
            self.sent_line(&line);
        }
        self.sent_line(body.strip_suffix(b"\n").unwrap_or(body));
    }

    /// A trip the transport saw (an HTTP status), judged with the window's others.
    pub fn push_trip(&mut self, trip: Trip) {
        self.trips.push(trip);
    }

    /// The transport refused a message (an HTTP 4xx): the JSON-RPC error without an id its
    /// body may hold answers that refusal (`basic/transports.mdx#sending-messages-to-the-server`),
    /// not a request that was never sent.
    /// The requests it carried (`ids`) were refused: no longer awaited, though the refusal's
    /// body may still answer each (once).
    pub fn refused(&mut self, ids: &[RequestId]) {
        self.malformed_sent = true;
        for id in ids {
            if let Some(sent) = self.requests.get_mut(id) {
                sent.refused = true;
            }
        }
    }

    /// Whether the bytes sent end inside a line (a newline is owed before the next message).
    pub fn in_line(&self) -> bool {
        !self.partial.is_empty()
    }

    fn sent_line(&mut self, line: &[u8]) {
        // The end of the line before and this one: an id may stand on the line after its key
        // (an embedded newline), and a reader that joins lines answers it. An id counts once,
        // on the line where it ends.
        let seam = self.line_tail.len() + 1;
        let mut joined = std::mem::take(&mut self.line_tail);
        joined.push(b'\n');
        joined.extend_from_slice(line);
        for found in ID_IN_BYTES.captures_iter(&joined) {
            if found.get(0).is_some_and(|m| m.end() <= seam) {
                continue;
            }
            let raw = &found[1];
            let key = serde_json::from_slice::<Value>(raw)
                .map(|v| id_key(&v))
                .unwrap_or_else(|_| String::from_utf8_lossy(raw).into_owned());
            *self.permitted.entry(key).or_default() += 1;
        }
        self.line_tail = line[line.len().saturating_sub(LINE_TAIL)..].to_vec();
        // Read as the implementation's reader would read it, and as ours reads its answers.
        match framing::decode_line(line) {
            FrameContent::Json { value: Value::Array(items), .. }
                if !items.is_empty() && self.revision.allows_batches() =>
            {
                for item in &items {
                    self.sent_message(item);
                }
            }
            FrameContent::Json { value, .. } => self.sent_message(&value),
            _ => self.malformed_sent = true,
        }
    }

    fn sent_message(&mut self, value: &Value) {
        // A message that is both a request and a response (a method beside a result or an
        // error) is no well-formed request: a reader may refuse it with an id-less error.
        let both =
            value.get("method").is_some() && (value.get("result").is_some() || value.get("error").is_some());
        // JSON-RPC 2.0 §4.2: `params`, when present, MUST be an object or an array; a request
        // or notification with other params is an Invalid Request, refused with an id-less
        // error (as rmcp's client does).
        let structured = value.get("params").is_none_or(|p| p.is_object() || p.is_array());
        let well_formed = value.get("jsonrpc").and_then(Value::as_str) == Some("2.0") && !both && structured;
        match (value.get("method").and_then(Value::as_str), value.get("id")) {
            (Some(method), Some(id)) if well_formed => match RequestId::from_value(id) {
                Some(id) => {
                    self.sent_count += 1;
                    let (order, input) = (self.sent_count, self.input);
                    let sent = self.requests.entry(id).or_insert(Sent {
                        method: method.to_owned(),
                        order,
                        input,
                        count: 0,
                        answered: 0,
                        refused: false,
                    });
                    sent.count += 1;
                    sent.method = method.to_owned();
                }
                None => self.malformed_sent = true,
            },
            (Some(_), None) if well_formed => self.notifications_sent = true,
            (None, Some(id))
                if well_formed
                    && RequestId::from_value(id).is_some()
                    && (value.get("result").is_some() || value.get("error").is_some()) =>
            {
                // The fuzzer's own answer to something, or to nothing: the implementation need
                // not answer it, and must not. A broken one (no version, an id of another type)
                // falls through: it may be refused with an error without an id.
            }
            _ => self.malformed_sent = true,
        }
    }

    /// A frame read from the implementation. Returns the requests it made of the client,
    /// which the driver answers.
    pub fn received(&mut self, frame: &Frame) -> Vec<Value> {
        let value = match &frame.content {
            FrameContent::Json { value, .. } => value,
            FrameContent::Blank => return Vec::new(),
            other => {
                self.trip(
                    Oracle::SchemaInvalid,
                    None,
                    format!("stdout carried something that is not a JSON-RPC message: {other:?}"),
                    None,
                );
                return Vec::new();
            }
        };
        let mut asks = Vec::new();
        match value {
            Value::Array(items) => {
                for item in items {
                    asks.extend(self.received_message(item));
                }
            }
            _ => asks.extend(self.received_message(value)),
        }
        asks
    }

    fn received_message(&mut self, message: &Value) -> Option<Value> {
        let Some(object) = message.as_object() else {
            self.trip(
                Oracle::SchemaInvalid,
                None,
                format!("a JSON value that is not a message object: {}", excerpt(message)),
                Some(message.clone()),
            );
            return None;
        };
        if let Some(method) = object.get("method") {
            let method = method.as_str().map(str::to_owned);
            self.judge_schema(message, None, method.clone());
            let is_request = object.contains_key("id");
            return is_request.then(|| message.clone());
        }
        let is_result = object.contains_key("result");
        if !is_result && !object.contains_key("error") {
            self.trip(
                Oracle::SchemaInvalid,
                None,
                format!("neither request, notification nor response: {}", excerpt(message)),
                Some(message.clone()),
            );
            return None;
        }
        let id = object.get("id").filter(|id| !id.is_null());
        let Some(id) = id else {
            if is_result {
                self.trip(
                    Oracle::IdDesync,
                    None,
                    "a result without an id answers nothing".to_owned(),
                    Some(message.clone()),
                );
            } else if !self.malformed_sent {
                let oracle =
                    if self.notifications_sent { Oracle::AnsweredNotification } else { Oracle::IdDesync };
                let detail = if self.notifications_sent {
                    "an error without an id, when only well-formed requests and notifications were sent: a notification was answered"
                } else {
                    "an error without an id, when only well-formed requests were sent"
                };
                self.trip(oracle, None, detail.to_owned(), Some(message.clone()));
            } else {
                self.judge_schema(message, None, None);
            }
            return None;
        };
        let request_id = RequestId::from_value(id);
        let sent = request_id.as_ref().and_then(|id| self.requests.get_mut(id));
        match sent {
            Some(sent) => {
                sent.answered += 1;
                let method = sent.method.clone();
                let copies = self.permitted.get(&id_key(id)).copied().unwrap_or(0);
                // An id sent twice names no one request: which answer comes back first is the
                // server's timing, so its shape would make a seed's corpus vary.
                if sent.count == 1 && copies <= 1 {
                    self.shapes.push((sent.input, shape(&method, message)));
                }
                if sent.answered > sent.count.max(copies) {
                    let detail =
                        format!("a second answer to id {id} ({method}), sent {} time(s)", sent.count);
                    self.trip(Oracle::IdDesync, Some(method), detail, Some(message.clone()));
                } else {
                    // A result is judged as the answer to its method only when the id names
                    // one request: not when it was sent twice, nor when it also stood in a
                    // line we call broken and a lenient reader may have answered instead.
                    let answers = (sent.count == 1 && copies <= 1).then(|| method.clone());
                    self.judge_schema(message, answers.as_deref(), Some(method));
                }
            }
            None if self.permitted.contains_key(&id_key(id)) => {
                if !is_result {
                    self.judge_schema(message, None, None);
                }
            }
            None => {
                self.trip(
                    Oracle::IdDesync,
                    None,
                    format!("an answer to id {}, which was never sent", excerpt(id)),
                    Some(message.clone()),
                );
            }
        }
        None
    }

    fn judge_schema(&mut self, message: &Value, answers: Option<&str>, method: Option<String>) {
        let Some(schema) = self.schemas.as_ref().and_then(|s| s.get(self.revision)) else { return };
        if answers.is_none() && message.get("result").is_some() {
            return;
        }
        if let Validation::Invalid { definition, violations } =
            schema.validate(self.judged, &crate::judge::recorder::schema_form(message), answers)
        {
            if violations.iter().all(|v| v.format.is_some()) {
                return;
            }
            let first =
                violations.iter().find(|v| v.format.is_none()).map(ToString::to_string).unwrap_or_default();
            let detail = format!("invalid against {definition} in {}: {first}", self.revision);
            self.trip(Oracle::SchemaInvalid, method, detail, Some(message.clone()));
        }
    }

    fn trip(&mut self, oracle: Oracle, method: Option<String>, detail: String, message: Option<Value>) {
        // One trip per oracle and method in a window is enough to act on.
        if self.trips.iter().any(|t| t.oracle == oracle && t.method == method) {
            return;
        }
        self.trips.push(Trip { oracle, method, detail, message });
    }

    /// A barrier was answered: what came before it is judged. Returns the trips since the
    /// last barrier, and starts a new window.
    pub fn take_trips(&mut self) -> Vec<Trip> {
        self.malformed_sent = false;
        self.notifications_sent = false;
        std::mem::take(&mut self.trips)
    }

    /// The methods of requests sent and not yet answered, in the order they were sent, the
    /// driver's own (ids `mcpspec-…`) left out: what a crash or a hang is charged to.
    pub fn unanswered(&self) -> Vec<String> {
        let mut waiting: Vec<(u64, &str)> = self
            .requests
            .iter()
            .filter(|(id, s)| s.answered < s.count && !s.refused && !is_drivers(id))
            .map(|(_, s)| (s.order, s.method.as_str()))
            .collect();
        waiting.sort();
        let mut methods: Vec<String> = Vec::new();
        for (_, method) in waiting {
            if !methods.iter().any(|m| m == method) {
                methods.push(method.to_owned());
            }
        }
        methods
    }
}

fn is_drivers(id: &RequestId) -> bool {
    matches!(id, RequestId::String(s) if s.starts_with("mcpspec-"))
}

/// `tools/list → result {nextCursor,tools}`, `tools/call → error -32602`.
fn shape(method: &str, answer: &Value) -> String {
    if let Some(error) = answer.get("error") {
        return format!("{method} → error {}", error.get("code").map(Value::to_string).unwrap_or_default());
    }
    match answer.get("result") {
        Some(Value::Object(result)) => {
            let mut keys: Vec<&str> = result.keys().map(String::as_str).collect();
            keys.sort_unstable();
            let flag = if result.get("isError") == Some(&Value::Bool(true)) { " isError" } else { "" };
            format!("{method} → result {{{}}}{flag}", keys.join(","))
        }
        _ => format!("{method} → result (not an object)"),
    }
}

/// Ids compare by value: `1`, `1.0` and `1e0` are one number to most JSON parsers.
fn id_key(id: &Value) -> String {
    match id {
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (_, Some(u), _) => u.to_string(),
            (_, _, Some(f)) if f.fract() == 0.0 && f.abs() < 1e18 => (f as i64).to_string(),
            _ => n.to_string(),
        },
        other => other.to_string(),
    }
}

fn excerpt(value: &Value) -> String {
    let mut text = value.to_string();
    if text.len() > 200 {
        let mut cut = 200;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push('…');
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::framing::{self, LineDecoder};
    use serde_json::json;

    fn watch() -> Watch {
        Watch::new(Revision::V2025_11_25, Some(SchemaSet::shared_builtin()))
    }

    fn frame(value: Value) -> Frame {
        LineDecoder::decode_all(1 << 20, &framing::encode(&value)).remove(0)
    }

    fn send(w: &mut Watch, value: Value) {
        w.sent(&framing::encode(&value));
    }

    /// Found fuzzing rmcp's client: a broken message (a response with a boolean id, no
    /// version; a request that also carries a result) may be refused with an error without an
    /// id, as JSON-RPC has it; a well-formed answer to nothing may not be answered at all.
    #[test]
    fn a_broken_message_may_be_refused_without_an_id() {
        let refusal =
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "Invalid Request"}});
        for broken in [
            json!({"id": true, "result": {}}),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "result": {}}),
        ] {
            let mut w = Watch::of_client(Revision::V2025_11_25, Some(SchemaSet::shared_builtin()));
            send(&mut w, broken.clone());
            w.received(&frame(refusal.clone()));
            assert!(w.take_trips().is_empty(), "{broken}");
        }
        let mut w = Watch::of_client(Revision::V2025_11_25, Some(SchemaSet::shared_builtin()));
        send(&mut w, json!({"jsonrpc": "2.0", "id": 99, "result": {}}));
        w.received(&frame(refusal));
        assert_eq!(w.take_trips()[0].oracle, Oracle::IdDesync);
    }

    #[test]
    fn a_matching_answer_trips_nothing_and_a_second_one_is_a_desync() {
        let mut w = watch();
        send(&mut w, json!({"jsonrpc": "2.0", "id": 7, "method": "ping"}));
        w.received(&frame(json!({"jsonrpc": "2.0", "id": 7, "result": {}})));
        assert!(w.take_trips().is_empty());
        w.received(&frame(json!({"jsonrpc": "2.0", "id": 7, "result": {}})));
        let trips = w.take_trips();
        assert_eq!(trips.len(), 1);
        assert_eq!(trips[0].oracle, Oracle::IdDesync);
        assert_eq!(trips[0].method.as_deref(), Some("ping"));
    }

    #[test]
    fn an_id_never_sent_is_a_desync_but_one_hidden_in_a_broken_line_is_permitted() {
        let mut w = watch();
        w.received(&frame(json!({"jsonrpc": "2.0", "id": 99, "error": {"code": -32600, "message": "x"}})));
        assert_eq!(w.take_trips()[0].oracle, Oracle::IdDesync);
        // A BOM and a CRLF make the line ours to call broken; a lenient parser answers it.
        w.sent(b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"bom\",\"method\":\"ping\"}\r\n");
        w.received(&frame(json!({"jsonrpc": "2.0", "id": "bom", "result": {}})));
        // Bytes that are not UTF-8 in an id, answered as U+FFFD by a lenient reader.
        w.sent(b"{\"jsonrpc\":\"2.0\",\"id\":\"\xf8.0\",\"method\":\"ping\"}\n");
        w.received(&frame(json!({"jsonrpc": "2.0", "id": "\u{fffd}.0", "result": {}})));
        // An embedded newline between the key and the id.
        w.sent(b"{\"jsonrpc\":\"2.0\",\"id\":\n25778000,\"method\":\"ping\"}\n");
        w.received(&frame(json!({"jsonrpc": "2.0", "id": 25778000, "result": {}})));
        // A message split over two writes and two lines, joined again by the server.
        w.sent(b"{\"jsonrpc\":\"2.0\",\n\"id\":1.0,\"method\":\"ping\"}\n");
        w.received(&frame(json!({"jsonrpc": "2.0", "id": 1, "result": {}})));
        assert!(w.take_trips().is_empty());
    }

    #[test]
    fn idless_errors_answer_broken_lines_but_not_notifications() {
        let mut w = watch();
        w.sent(b"{not json\n");
        w.received(&frame(
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "Parse error"}}),
        ));
        assert!(w.take_trips().is_empty(), "a parse error answers the broken line");
        send(&mut w, json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        w.received(&frame(
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "nope"}}),
        ));
        assert_eq!(w.take_trips()[0].oracle, Oracle::AnsweredNotification);
        w.received(&frame(json!({"jsonrpc": "2.0", "result": {}})));
        assert_eq!(w.take_trips()[0].oracle, Oracle::IdDesync, "a result without an id");
        let mut w = watch();
        send(&mut w, json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed", "params": "x"}));
        w.received(&frame(
            json!({"jsonrpc": "2.0", "error": {"code": -32600, "message": "Invalid request"}}),
        ));
        assert!(w.take_trips().is_empty(), "params that are no object or array make an Invalid Request");
    }

    #[test]
    fn results_are_judged_by_the_schema_of_their_method() {
        let mut w = watch();
        send(&mut w, json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
        w.received(&frame(json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": "none"}})));
        let trips = w.take_trips();
        assert_eq!(trips[0].oracle, Oracle::SchemaInvalid);
        assert_eq!(trips[0].method.as_deref(), Some("tools/list"));
        // An id with a lone surrogate, echoed (the reader takes it for U+FFFD, as we do).
        w.sent(b"{\"jsonrpc\":\"2.0\",\"id\":\"\\udc00x\",\"method\":\"ping\"}\n");
        w.received(&frame(json!({"jsonrpc": "2.0", "id": "\u{fffd}x", "result": {}})));
        assert!(w.take_trips().is_empty(), "an echoed lone surrogate");
        // Not JSON at all on stdout.
        let garbage = LineDecoder::decode_all(1 << 20, b"Listening on stdio\n").remove(0);
        w.received(&garbage);
        assert_eq!(w.take_trips()[0].oracle, Oracle::SchemaInvalid);
    }

    /// A bit flip made a broken line carry the id of a later request: the answer may be the
    /// broken line's, so it is not judged as the later request's result.
    #[test]
    fn an_id_also_in_a_broken_line_is_not_judged_by_method() {
        let mut w = watch();
        w.sent(
            b"{\"jsonrpc\":\"2.0\",\"id\":31587000,\"method\":\"tools/call\",\"params\":{\"n\xf2me\":1}}\n",
        );
        send(&mut w, json!({"jsonrpc": "2.0", "id": 31587000, "method": "prompts/list"}));
        w.received(&frame(
            json!({"jsonrpc": "2.0", "id": 31587000, "result": {"content": [], "isError": true}}),
        ));
        assert!(w.take_trips().is_empty());
    }

    #[test]
    fn reused_ids_may_be_answered_as_often_as_they_were_sent() {
        let mut w = watch();
        send(&mut w, json!({"jsonrpc": "2.0", "id": "r", "method": "ping"}));
        send(&mut w, json!({"jsonrpc": "2.0", "id": "r", "method": "tools/list"}));
        w.received(&frame(json!({"jsonrpc": "2.0", "id": "r", "result": {}})));
        w.received(&frame(json!({"jsonrpc": "2.0", "id": "r", "error": {"code": -32600, "message": "dup"}})));
        assert!(w.take_trips().is_empty());
        assert!(w.unanswered().is_empty());
    }
}
