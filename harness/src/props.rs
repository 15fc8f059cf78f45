//! Properties of the session checker, the schema validator and the reference server that must
//! hold for *any* input; the cargo-fuzz targets (`fuzz/fuzz_targets/`) are one line each
//! calling these, and ordinary tests replay each target's committed seed corpus
//! (`fuzz/corpus/<target>/`) through the same functions. Each panics when its property breaks.
//! (The framing and wire-model properties live in `mcpspec_reference::props`.)
//!
//! - [`wire_checker`]: the wire model and the [`SessionChecker`] on any stream, both directions;
//! - [`schema`]: the validator of every revision on any JSON;
//! - [`server_session`]: a structure-aware client [`Script`] played against the reference
//!   server at every revision it speaks: no panic, every request answered at most once, every
//!   answer schema-valid for the negotiated revision, nothing answered after its cancellation.

use crate::checker::SessionChecker;
use mcpspec_reference::framing::{self, Frame, FrameContent, LineDecoder};
use mcpspec_reference::props::{ClientOp, Script};
use mcpspec_reference::server::{ReferenceServer, ServerConfig};
use mcpspec_reference::wire::{Message, Outcome, RequestId};
use mcpspec_reference::{props as reference_props, Direction, Revision};
use mcpspec_schema::{SchemaSet, StreamValidator, Validation};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The built-in schemas, compiled once per process (compiling takes tens of milliseconds).
pub fn schemas() -> &'static SchemaSet {
    static SCHEMAS: OnceLock<SchemaSet> = OnceLock::new();
    SCHEMAS.get_or_init(SchemaSet::builtin)
}

/// The wire model and the session checker on any byte stream. `data[0]` picks the checker's
/// starting revision and which direction each line travels; the rest is decoded as stdio lines.
/// Every line goes through two checkers with opposite directions, and every JSON value (and
/// batch element) through [`reference_props::wire_value`]. Panics on a panic, or when an
/// inspection does not describe the value it was given.
pub fn wire_checker(data: &[u8]) {
    let Some((&selector, stream)) = data.split_first() else { return };
    let revision = Revision::ALL[usize::from(selector) % Revision::ALL.len()];
    let mut checkers = [SessionChecker::new(revision), SessionChecker::new(revision)];
    for frame in LineDecoder::decode_all(framing::DEFAULT_MAX_MESSAGE_BYTES, stream) {
        let flip = (u64::from(selector >> 3) >> (frame.line % 5)) & 1 == 1;
        let direction = if flip { Direction::ServerToClient } else { Direction::ClientToServer };
        for (checker, direction) in checkers.iter_mut().zip([direction, direction.reverse()]) {
            let inspections = checker.on_frame(direction, &frame.content);
            assert!(inspections.iter().all(|i| i.direction == direction));
            let FrameContent::Json { value, .. } = &frame.content else {
                assert!(!inspections.is_empty(), "a line that is not a message passes unremarked");
                continue;
            };
            match value {
                Value::Array(items) => assert!(inspections.len() >= items.len()),
                single => {
                    assert_eq!(inspections.len(), 1, "one inspection for one message");
                    assert_eq!(inspections[0].message, Message::from_value(single).ok());
                    assert_eq!(inspections[0].value.as_ref(), Some(single));
                }
            }
            for v in inspections.iter().flat_map(|i| &i.violations) {
                assert!(!v.rule.id.is_empty() && !v.actual.is_empty(), "{v:?}");
            }
        }
        if let FrameContent::Json { value, .. } = &frame.content {
            reference_props::decoded_value(value);
        }
    }
}

/// Methods a result may be said to answer (known in some revision, or in none).
const ANSWERED: [Option<&str>; 14] = [
    None,
    Some("initialize"),
    Some("ping"),
    Some("tools/list"),
    Some("tools/call"),
    Some("resources/read"),
    Some("prompts/get"),
    Some("sampling/createMessage"),
    Some("elicitation/create"),
    Some("roots/list"),
    Some("completion/complete"),
    Some("tasks/get"),
    Some("server/discover"),
    Some("no/such"),
];

/// The schema validator of every revision on any JSON. `data[0]` picks the method a result
/// answers and a definition to validate against by name; the rest is decoded as stdio lines.
/// Each value is validated in both directions, as a named definition, through a
/// [`StreamValidator`], and each line as JSON Lines text. Panics on a panic, or on an `Invalid`
/// verdict with no violation to show.
pub fn schema(data: &[u8]) {
    let Some((&selector, stream)) = data.split_first() else { return };
    let answered = ANSWERED[usize::from(selector) % ANSWERED.len()];
    let set = schemas();
    let frames = LineDecoder::decode_all(framing::DEFAULT_MAX_MESSAGE_BYTES, stream);
    for revision in set.revisions() {
        let schema = set.get(revision).expect("listed revision");
        let definition = schema.definitions().nth(usize::from(selector) * 7 % 97).map(str::to_owned);
        let mut stream_validator = StreamValidator::new(schema);
        let mut lines = StreamValidator::new(schema);
        for frame in &frames {
            let FrameContent::Json { value, .. } = &frame.content else { continue };
            for direction in [Direction::ClientToServer, Direction::ServerToClient] {
                explained(&schema.validate(direction, value, answered));
            }
            if let Some(definition) = &definition {
                explained(&schema.validate_as(definition, value).expect("a listed definition"));
                assert!(schema.is_valid_as(definition, value).is_some());
            }
            let direction =
                if frame.line % 2 == 0 { Direction::ServerToClient } else { Direction::ClientToServer };
            stream_validator.validate(direction, value).iter().for_each(explained);
            let _ = lines.validate_line(None, &value.to_string());
        }
        let _ = stream_validator.unanswered().count();
    }
}

fn explained(v: &Validation) {
    match v {
        Validation::Invalid { violations, definition } => {
            assert!(!violations.is_empty(), "invalid as {definition} with no violation to show");
        }
        // A format mismatch names each string and its format, and nothing else.
        Validation::FormatMismatch { violations, definition } => {
            assert!(!violations.is_empty(), "a format mismatch as {definition} with no violation");
            assert!(violations.iter().all(|v| v.format.is_some()), "{definition}: {violations:?}");
        }
        _ => {}
    }
}

/// A structure-aware client session against the reference server, at every revision it speaks.
/// `data` is read as a [`Script`] (any bytes make one); see [`play`] for the invariants.
pub fn server_session(data: &[u8]) {
    let script = Script::from_bytes(data);
    // The scripts open sessions with `initialize`: the legacy revisions the server speaks.
    let legacy = ServerConfig::default().supported.into_iter().filter(|r| Revision::LEGACY.contains(r));
    for revision in legacy {
        play(&script, revision);
    }
}

/// A request the client sent, as the server will see it.
#[derive(Debug)]
struct Sent {
    /// `None` for a message with a readable id but no usable method (an invalid request).
    method: Option<String>,
    /// A `notifications/cancelled` for it was processed while it was unanswered.
    cancelled: bool,
    /// The tool call the server is working on (the oldest open one with its id while the id is
    /// in flight; later ones with that id are refused): not answerable yet.
    running: bool,
    /// The line it came in.
    line: u64,
}

/// Plays `script` at `revision` (its `initialize` ops ask for that revision unless they say
/// otherwise) against a fresh reference server with the default configuration, line by line
/// through the stdio decoder, and panics unless:
/// - every message the server writes is a well-formed JSON-RPC message (a batch only where the
///   negotiated revision has batches);
/// - every response carries the id of a request the client sent and has not had answered yet,
///   with the same JSON type: each request is answered at most once;
/// - no request is answered after a `notifications/cancelled` for it was processed;
/// - every message is valid under our schema of the negotiated revision (the revision played,
///   before `initialize` is answered), a result as the answer to its request's method.
///
/// The session checker watches both directions too (it must not panic; the client's broken
/// messages are meant to break rules).
pub fn play(script: &Script, revision: Revision) {
    let config = ServerConfig::default();
    let mut server = ReferenceServer::new(config.clone());
    let mut client = Client {
        revision,
        script,
        checker: SessionChecker::new(revision),
        sent: HashMap::new(),
        server_requests: Vec::new(),
        reused: HashMap::new(),
    };
    let start = Instant::now();
    let mut now = start;
    let mut decoder = LineDecoder::new(config.max_message_bytes);
    let mut frames = Vec::new();
    for op in &script.ops {
        if let ClientOp::Advance { step } = op {
            now += Duration::from_millis(u64::from(*step).pow(2));
            let out = server.poll(now);
            client.check(&server, &out);
            continue;
        }
        if let ClientOp::Answer { .. } = op {
            client.server_requests.pop();
        }
        let server_request = client.server_requests.last().cloned();
        let Some(line) = op.to_line_in(revision, server_request.as_ref()) else { continue };
        decoder.push(&line, &mut frames);
        for frame in frames.drain(..) {
            // What fell due by now is written before the line is read (`on_frame_at` does the
            // same): a request finished then was not in flight when a cancel on this line came.
            let due = server.poll(now);
            client.check(&server, &due);
            client.sends(&server, &frame);
            let out = server.on_frame_at(&frame.content, now);
            client.check(&server, &out);
            let batch = matches!(frame.content, FrameContent::Json { value: Value::Array(_), .. });
            // A batch's answers wait for its slowest member (2025-03-26), unless it was rejected;
            // an array written now may be another batch's.
            if !batch || !client.revision_now(&server).allows_batches() {
                client.settle(&server, frame.line);
            }
        }
    }
    // Then time runs on until nothing is pending: slow tools finish, the server's own requests
    // time out, subscriptions fire.
    for _ in 0..256 {
        let Some(at) = server.next_deadline() else { break };
        if at.saturating_duration_since(start) > Duration::from_secs(3600) {
            break;
        }
        now = now.max(at);
        let out = server.poll(now);
        client.check(&server, &out);
    }
}

/// The client side of [`play`]: what it sent, and the judging of what it received.
struct Client<'a> {
    revision: Revision,
    script: &'a Script,
    checker: SessionChecker,
    sent: HashMap<RequestId, Vec<Sent>>,
    /// Ids of the server's requests to the client, latest last (what `Answer` ops answer).
    server_requests: Vec<Value>,
    /// Ids the client reused while a request with the id could still be answered, against the
    /// MUST that ids are not reused in a session (basic/index.mdx#requests): which answer is
    /// which cannot be told from the wire then, so for these ids only the count is judged —
    /// (requests that may be answered, answers seen): never more answers than requests.
    reused: HashMap<RequestId, (usize, usize)>,
}

fn message_id(message: &Message) -> Option<&RequestId> {
    match message {
        Message::Response(r) => r.id.as_ref(),
        _ => None,
    }
}

impl Client<'_> {
    fn revision_now(&self, server: &ReferenceServer) -> Revision {
        server.revision().unwrap_or(self.revision)
    }

    /// Forgets the requests of `line` that the server neither answered nor keeps working on
    /// (members of a rejected batch): an answer to one of them later would be a phantom.
    fn settle(&mut self, server: &ReferenceServer, line: u64) {
        for (id, requests) in self.sent.iter_mut() {
            if !server.is_in_flight(id) {
                requests.retain(|r| r.line != line);
            }
        }
    }

    fn fail(&self, why: String) -> ! {
        panic!("at {}: {why}\nscript:\n{}", self.revision, reference_props::describe(self.script));
    }

    fn sends(&mut self, server: &ReferenceServer, frame: &Frame) {
        self.checker.on_frame(Direction::ClientToServer, &frame.content);
        if let FrameContent::Json { value, .. } = &frame.content {
            let elements = match value {
                // A batch outside 2025-03-26 (or before a session is open) is rejected whole
                // with one error: nothing in it is a request, nor a cancel.
                Value::Array(_) if !server.revision().is_some_and(Revision::allows_batches) => vec![],
                Value::Array(items) => items.iter().collect(),
                single => vec![single],
            };
            for message in elements {
                note_sent(
                    message,
                    frame.line,
                    |id| server.is_in_flight(id),
                    &mut self.sent,
                    &mut self.reused,
                );
            }
        }
    }

    /// Judges what the server wrote (after a line of the client's, or as time passed).
    fn check(&mut self, server: &ReferenceServer, out: &[Value]) {
        for (id, requests) in self.sent.iter_mut() {
            requests.iter_mut().for_each(|r| r.running = false);
            if server.is_in_flight(id) {
                let latest =
                    requests.iter_mut().find(|r| r.open() && r.method.as_deref() == Some("tools/call"));
                if let Some(r) = latest {
                    r.running = true;
                }
            }
        }
        let now = server.revision().unwrap_or(self.revision);
        let Some(schema) = schemas().get(now) else { self.fail(format!("no schema for {now}")) };
        let mut elements: Vec<&Value> = Vec::new();
        for answer in out {
            self.checker.on_value(Direction::ServerToClient, answer);
            match answer {
                Value::Array(items) if now.allows_batches() && !items.is_empty() => elements.extend(items),
                Value::Array(_) => self.fail(format!("a batch answer in {now}: {answer}")),
                single => elements.push(single),
            }
        }
        for element in elements {
            let message = match Message::from_value(element) {
                Ok(m) => m,
                Err(e) => self.fail(format!("the server wrote {element}, which is not a message: {e}")),
            };
            let answered = match &message {
                Message::Response(r) => match &r.id {
                    Some(id) if self.reused.contains_key(id) => {
                        if let Err(why) = answer_reused(id, &mut self.sent, &mut self.reused) {
                            self.fail(format!("{why}: {element}"));
                        }
                        None
                    }
                    Some(id) => match answer_of(id, &mut self.sent) {
                        Ok(method) => method,
                        Err(why) => self.fail(format!("{why}: {element}")),
                    },
                    None if matches!(r.outcome, Outcome::Error(_)) => None,
                    None => self.fail(format!("a result without an id: {element}")),
                },
                Message::Request(r) => {
                    self.server_requests.push(r.id.to_value());
                    None
                }
                Message::Notification(_) => None,
            };
            let verdict = schema.validate(Direction::ServerToClient, element, answered.as_deref());
            // For a reused id, which request an answer answers cannot be told, nor its method.
            let repeated = message_id(&message).is_some_and(|id| self.reused.contains_key(id));
            if !verdict.is_valid() && !repeated && !idless_error_where_schema_requires_id(element, &verdict) {
                self.fail(format!(
                    "the server wrote {element} (answering {answered:?}), not valid under the {now} schema: \
                         {verdict:?}"
                ));
            }
        }
    }
}

/// JSON-RPC 2.0 answers a request whose id cannot be read (a parse error, an invalid request)
/// with an error without a usable id, but the schemas of 2024-11-05 … 2025-06-18 require `id`
/// on every `JSONRPCError` (2025-11-25 made it optional). The spec cannot be obeyed both ways;
/// the reference server follows JSON-RPC, so that one violation alone is not a finding here.
fn idless_error_where_schema_requires_id(element: &Value, verdict: &Validation) -> bool {
    let Validation::Invalid { violations, .. } = verdict else { return false };
    element.get("error").is_some()
        && element.get("id").is_none_or(Value::is_null)
        && violations.iter().all(|v| {
            v.instance_path.is_empty() && v.schema_path.ends_with("/required") && v.message.contains("\"id\"")
                || v.instance_path == "/id"
        })
}

impl Sent {
    fn open(&self) -> bool {
        !self.cancelled && !self.running
    }
}

/// Records what the client sent: requests by id, and cancellations of tool calls `in_flight`
/// says the server is still working on. (A cancel that reaches a request the server has finished is
/// too late, even if its answer still waits in a 2025-03-26 batch for the batch's slowest
/// member.)
fn note_sent(
    message: &Value,
    line: u64,
    in_flight: impl Fn(&RequestId) -> bool,
    sent: &mut HashMap<RequestId, Vec<Sent>>,
    reused: &mut HashMap<RequestId, (usize, usize)>,
) {
    let Some(object) = message.as_object() else { return };
    let method = object.get("method").and_then(Value::as_str);
    if method == Some("notifications/cancelled") && !object.contains_key("id") {
        let target = object.get("params").and_then(|p| p.get("requestId")).and_then(RequestId::from_value);
        let Some(target) = target.filter(|t| in_flight(t)) else { return };
        // The server works on one request per id at a time (refusing others with that id), and
        // only tool calls take time: the cancel reaches the oldest open tool call with that id
        // (a request earlier in the same batch may be answered before the cancel is read;
        // `initialize`, which the client MUST NOT cancel, is never a tool call).
        let running = sent
            .get_mut(&target)
            .into_iter()
            .flatten()
            .find(|r| !r.cancelled && r.line < line && r.method.as_deref() == Some("tools/call"));
        if let Some(request) = running {
            request.cancelled = true;
        }
        return;
    }
    // A well-formed response is not answered; anything else with a readable id may be (a
    // broken message is answered with an error that carries its id).
    let parsed = Message::from_value(message);
    if matches!(parsed, Ok(Message::Response(_))) {
        return;
    }
    if let Some(id) = object.get("id").and_then(RequestId::from_value) {
        let method = parsed.ok().and_then(|m| m.method().map(str::to_owned));
        let requests = sent.entry(id.clone()).or_default();
        let answerable = requests.iter().filter(|r| !r.cancelled).count();
        match reused.get_mut(&id) {
            Some((n, _)) => *n += 1,
            None if answerable > 0 => {
                reused.insert(id, (answerable + 1, 0));
            }
            None => {}
        }
        requests.push(Sent { method, cancelled: false, running: false, line });
    }
}

/// Counts an answer to an id the client reused while it could still be answered (see
/// `Client::reused`), and forgets one of its requests (which one cannot be told); says why when
/// it is one answer too many.
fn answer_reused(
    id: &RequestId,
    sent: &mut HashMap<RequestId, Vec<Sent>>,
    reused: &mut HashMap<RequestId, (usize, usize)>,
) -> Result<(), String> {
    let Some((requests, answers)) = reused.get_mut(id) else {
        return Err(format!("id {id} was not reused"));
    };
    *answers += 1;
    if *answers > *requests {
        return Err(format!("answer {answers} to the {requests} request(s) with the reused id {id}"));
    }
    if let Some(open) = sent.get_mut(id) {
        if let Some(i) = open.iter().position(|r| !r.cancelled) {
            open.remove(i);
        }
    }
    Ok(())
}

/// Takes the request this response answers, and returns its method, or says why the response
/// answers nothing. An id the client did not reuse (`Client::reused` takes those) has at most
/// one request that is neither cancelled nor answered, so the id (with its JSON type) names it.
fn answer_of(id: &RequestId, sent: &mut HashMap<RequestId, Vec<Sent>>) -> Result<Option<String>, String> {
    let requests = sent.get_mut(id).filter(|r| !r.is_empty()).ok_or_else(|| {
        format!("a response with id {id} ({}), which no unanswered request has", id.type_name())
    })?;
    let Some(open) = requests.iter().position(Sent::open) else {
        return Err(match requests.iter().any(|r| r.cancelled) {
            true => format!("a response to request {id} after its cancellation was processed"),
            false => format!("a response with id {id} while its only request is still in flight"),
        });
    };
    Ok(requests.remove(open).method)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_reference::props::{
        replay, ClientOp, Id, Version, ANSWERS, BROKEN, GARBAGE, KNOWN, NUMBERS, OTHER_METHODS, TOOLS,
    };
    use proptest::prelude::*;

    const HERE: &str = env!("CARGO_MANIFEST_DIR");

    fn replays(target: &str, property: fn(&[u8])) {
        let n = replay(HERE, target, property);
        assert!(n >= 20, "fuzz/corpus/{target} holds {n} files; the seed corpus is missing");
    }

    #[test]
    fn the_wire_checker_corpus_replays() {
        replays("wire_checker", wire_checker);
    }

    #[test]
    fn the_schema_corpus_replays() {
        replays("schema", schema);
    }

    #[test]
    fn the_server_session_corpus_replays() {
        replays("server_session", server_session);
    }

    /// Regression (found by `any_script_keeps_the_session_properties`): an error answering a
    /// message whose id cannot be read has no id, as JSON-RPC says, but the schemas of
    /// 2024-11-05 … 2025-06-18 require `id` on `JSONRPCError`. The property accepts that one
    /// violation (the spec contradicts itself); any other would fail. Corpus:
    /// `fuzz/corpus/server_session/seed-regression-idless-error`.
    #[test]
    fn an_idless_error_breaks_only_the_required_id_of_old_schemas() {
        let script = regression_idless_error();
        for revision in Revision::LEGACY {
            play(&script, revision);
        }
        let error =
            serde_json::json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: x"}});
        let verdict =
            schemas().get(Revision::V2024_11_05).unwrap().validate(Direction::ServerToClient, &error, None);
        assert!(
            !verdict.is_valid() && idless_error_where_schema_requires_id(&error, &verdict),
            "{verdict:?}"
        );
        let wrong = serde_json::json!({"jsonrpc":"2.0","error":{"code":"x","message":"y"}});
        let verdict =
            schemas().get(Revision::V2024_11_05).unwrap().validate(Direction::ServerToClient, &wrong, None);
        assert!(!idless_error_where_schema_requires_id(&wrong, &verdict), "other violations still count");
    }

    fn regression_idless_error() -> Script {
        let ops = vec![
            ClientOp::Batch { ops: vec![ClientOp::Initialize { id: Id::Int(1), version: Version::Target }] },
            ClientOp::Broken { id: Id::Int(2), which: 0 },
            ClientOp::Garbage { which: 6, bytes: vec![] },
        ];
        Script { ops }
    }

    /// Regression (found by `any_script_after_a_handshake_keeps_the_session_properties`): in
    /// 2025-03-26 a batch's answers wait for its slowest member, so the answer to a ping in a
    /// batch with a slow tool is written after a later cancel of that ping. The ping was
    /// finished when the cancel came, so the cancel was too late: not a breach. Corpus:
    /// `fuzz/corpus/server_session/seed-regression-cancel-after-batched-answer`.
    #[test]
    fn a_cancel_of_a_finished_request_waiting_in_a_batch_is_too_late() {
        play(&regression_cancel_after_batched_answer(), Revision::V2025_03_26);
    }

    fn regression_cancel_after_batched_answer() -> Script {
        use ClientOp::*;
        let ops = vec![
            Initialize { id: Id::Int(1), version: Version::Target },
            Initialized,
            Batch {
                ops: vec![
                    Cancel { target: Id::Int(0) },
                    CallTool { id: Id::Int(0), tool: 11, arg: 1 },
                    Ping { id: Id::Edge(5) },
                ],
            },
            Initialize { id: Id::Int(0), version: Version::Target },
            Cancel { target: Id::Edge(5) },
        ];
        Script { ops }
    }

    /// Every input the `server_session` target found in this property itself (none was a bug
    /// of the reference server), with the revision it was found at and what the property got
    /// wrong. Each is also a file in `fuzz/corpus/server_session/`. Several were about telling
    /// apart requests with one id: an id reused while a request with it could still be
    /// answered is now judged by count (`Client::reused`), and every other id has at most one
    /// answerable request, so `answer_of` need not guess; these inputs keep both paths honest.
    const PROPERTY_REGRESSIONS: &[(&str, Revision, &str)] = &[
        (
            "crash-duplicate-id-answered-by-due-job",
            Revision::V2024_11_05,
            "a slow tool's answer falls due and is written when the next line comes, and that line \
             reuses the tool call's id: the answer was matched to the new request",
        ),
        (
            "crash-answers-of-a-waiting-batch",
            Revision::V2025_03_26,
            "the answers of one batch were forgotten when another batch's array was written after it",
        ),
        (
            "crash-cancel-of-a-request-that-fell-due",
            Revision::V2024_11_05,
            "a 0 ms tool finishes when the next line is read, before that line's cancel of it is \
             processed; the cancel was taken as processed first",
        ),
        (
            "crash-result-and-error-for-one-id-in-a-batch",
            Revision::V2025_03_26,
            "one batch answered a slow tool and an invalid initialize that share an id, and the \
             answers were matched crosswise",
        ),
        (
            "crash-batch-completed-by-a-later-cancel",
            Revision::V2025_03_26,
            "a batch completed by a cancel on a later line was matched to that line's requests",
        ),
        (
            "crash-batch-answered-at-once-beside-a-waiting-one",
            Revision::V2025_03_26,
            "a batch answered at once was matched to an older waiting batch that shared its ids",
        ),
        (
            "crash-cancel-in-a-rejected-batch",
            Revision::V2024_11_05,
            "a cancel inside a batch that the revision rejects whole was taken as processed",
        ),
        (
            "crash-error-matched-to-a-running-tool-call",
            Revision::V2025_03_26,
            "a waiting batch's error was matched to a tool call of the same id still running",
        ),
        (
            "crash-tool-result-matched-to-a-waiting-ping",
            Revision::V2025_03_26,
            "a slow tool's result, written as time passed, was matched to a ping of the same id \
             waiting in a batch",
        ),
        (
            "crash-tool-result-fits-a-ping-loosely",
            Revision::V2025_03_26,
            "a tool result was matched to a ping with the same id (an empty result accepts any object)",
        ),
        (
            "crash-one-id-open-for-different-methods",
            Revision::V2025_03_26,
            "one id open for requests of different methods: no rule tells which answer is which",
        ),
        (
            "crash-id-reused-across-a-held-batch-a",
            Revision::V2025_03_26,
            "an id of a batch that waits for its slowest member, reused in the batch or after it",
        ),
        ("crash-id-reused-across-a-held-batch-b", Revision::V2025_03_26, "as -a"),
        ("crash-id-reused-across-a-held-batch-c", Revision::V2025_03_26, "as -a"),
    ];

    #[test]
    fn the_inputs_the_fuzzer_found_keep_the_property() {
        for (file, revision, what) in PROPERTY_REGRESSIONS {
            let path = mcpspec_reference::props::corpus_dir(HERE, "server_session").join(file);
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            eprintln!("{file} at {revision} ({what})");
            play(&Script::from_bytes(&bytes), *revision);
        }
        let listed: Vec<&str> = PROPERTY_REGRESSIONS.iter().map(|(file, ..)| *file).collect();
        for (path, _) in mcpspec_reference::props::corpus_files(HERE, "server_session") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.starts_with("crash-") || listed.contains(&name.as_str()), "{name} is not listed");
        }
    }

    #[test]
    fn a_reused_id_gets_no_more_answers_than_requests() {
        let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
        let ping = serde_json::json!({"jsonrpc":"2.0","id":7,"method":"ping"});
        note_sent(&ping, 1, |_| true, &mut sent, &mut reused);
        assert!(reused.is_empty(), "one request with the id is not a reuse");
        note_sent(&ping, 2, |_| true, &mut sent, &mut reused);
        let id = RequestId::from(7);
        assert_eq!(reused.get(&id), Some(&(2, 0)));
        answer_reused(&id, &mut sent, &mut reused).unwrap();
        answer_reused(&id, &mut sent, &mut reused).unwrap();
        let why = answer_reused(&id, &mut sent, &mut reused).unwrap_err();
        assert!(why.starts_with("answer 3 to the 2 request(s)"), "{why}");
        // An id reused only after its request was cancelled can still be matched exactly.
        let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
        let call = serde_json::json!({"jsonrpc":"2.0","id":"c","method":"tools/call"});
        let cancel = serde_json::json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"c"}});
        note_sent(&call, 1, |_| true, &mut sent, &mut reused);
        note_sent(&cancel, 2, |_| true, &mut sent, &mut reused);
        note_sent(&call, 3, |_| true, &mut sent, &mut reused);
        assert!(reused.is_empty());
    }

    #[test]
    fn a_full_session_passes_at_every_revision() {
        server_session(&handshake(vec![
            ClientOp::ToolsList { id: Id::Int(2) },
            ClientOp::CallEcho { id: Id::Int(3), text: 3 },
            ClientOp::CallAdd { id: Id::Name(4), a: 3, b: 1 },
            ClientOp::Cancel { target: Id::Int(3) },
        ]));
    }

    #[test]
    #[should_panic(expected = "which no unanswered request has")]
    fn an_answer_nobody_asked_for_is_caught() {
        let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
        note_sent(
            &serde_json::json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
            1,
            |_| true,
            &mut sent,
            &mut reused,
        );
        assert_eq!(answer_of(&RequestId::from(1), &mut sent), Ok(Some("ping".to_owned())));
        answer_of(&RequestId::from(1), &mut sent).unwrap();
    }

    #[test]
    fn an_answer_after_a_processed_cancel_is_caught() {
        let (mut sent, mut reused) = (HashMap::new(), HashMap::new());
        let call = serde_json::json!({"jsonrpc":"2.0","id":"a","method":"tools/call"});
        let cancel = serde_json::json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a"}});
        note_sent(&call, 1, |_| true, &mut sent, &mut reused);
        note_sent(&cancel, 2, |_| false, &mut sent, &mut reused);
        assert_eq!(
            answer_of(&RequestId::from("a"), &mut sent),
            Ok(Some("tools/call".to_owned())),
            "too late"
        );
        note_sent(&call, 4, |_| true, &mut sent, &mut reused);
        note_sent(&cancel, 5, |_| true, &mut sent, &mut reused);
        let why = answer_of(&RequestId::from("a"), &mut sent).unwrap_err();
        assert!(why.contains("after its cancellation"), "{why}");
    }

    fn handshake(rest: Vec<ClientOp>) -> Vec<u8> {
        let mut ops =
            vec![ClientOp::Initialize { id: Id::Int(1), version: Version::Target }, ClientOp::Initialized];
        ops.extend(rest);
        Script { ops }.to_bytes()
    }

    /// Writes the seed corpora of every target into `fuzz/corpus/` (run by hand after changing
    /// the seeds: `cargo test -p mcpspec --lib props::tests::write_seed_corpora -- --ignored`).
    /// Seeds are real MCP messages: the schema crate's spec examples, sessions played against
    /// the reference server (both directions, as transcripts), and scripts of valid and broken
    /// client behaviour.
    #[test]
    #[ignore = "writes fuzz/corpus; run by hand"]
    fn write_seed_corpora() {
        use mcpspec_reference::props::corpus_dir;
        let examples_path = std::path::Path::new(HERE).join("../schema/tests/fixtures/examples.jsonl");
        let examples: Vec<Value> = std::fs::read_to_string(&examples_path)
            .expect("the schema crate's examples")
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter_map(|mut l| l.get_mut("msg").map(Value::take))
            .collect();
        let scripts = seed_scripts();
        let transcripts: Vec<(String, Vec<u8>)> = scripts
            .iter()
            .map(|(name, script)| (name.clone(), transcript(script, Revision::V2025_06_18)))
            .collect();

        let mut corpora: HashMap<&str, Vec<(String, Vec<u8>)>> = HashMap::new();
        // framing: [limit, cuts, sizes…, stream]; real lines, plus the edges of the codec.
        let framing = corpora.entry("framing").or_default();
        for (i, (name, t)) in transcripts.iter().enumerate() {
            let limit = if i % 3 == 0 { 0x80 } else { (i * 11 % 64) as u8 };
            let mut data = vec![limit, (i % 8) as u8];
            data.extend((0..i % 8).map(|k| (k * 5 + i) as u8));
            data.extend(t);
            framing.push((format!("transcript-{name}"), data));
        }
        // Limit byte 7 is a limit of 8 bytes; 99 one of 100, over what an excerpt shows.
        for (name, limit, stream) in [
            ("crlf-blank-bom", 7, &b"{\"a\":1}\r\n\n\xef\xbb\xbf{}\n  \n"[..]),
            // Two tails without a newline: one within the limit, one over it.
            ("unterminated", 7, b"{}\n{\"id\":1"),
            ("unterminated-long", 7, b"{\"jsonrpc\":\"2.0\",\"id\":1"),
            ("invalid-utf8", 7, b"\xff\xfe{}\n\xc3\x28\n"),
            ("long-line", 7, &[b'x'; 200]),
            ("long-line-past-excerpt", 99, &[b'x'; 200]),
            ("only-newlines", 7, b"\n\n\n\n"),
            ("exactly-limit", 7, b"1234567\n12345678\n123456789\n"),
        ] {
            let mut data = vec![limit, 3, 1, 0, 5];
            data.extend(stream);
            framing.push((name.to_owned(), data));
        }
        // wire_checker and schema: a selector byte, then JSON lines.
        for target in ["wire_checker", "schema"] {
            let corpus = corpora.entry(target).or_default();
            for (i, chunk) in examples.chunks(4).enumerate() {
                let mut data = vec![(i * 37) as u8];
                for v in chunk {
                    data.extend(framing::encode(v));
                }
                corpus.push((format!("spec-examples-{i:02}"), data));
            }
            for (i, (name, t)) in transcripts.iter().enumerate() {
                let mut data = vec![(i * 53 + 1) as u8];
                data.extend(t);
                corpus.push((format!("transcript-{name}"), data));
            }
        }
        corpora.insert("server_session", scripts.iter().map(|(n, s)| (n.clone(), s.to_bytes())).collect());

        for (target, files) in corpora {
            let dir = corpus_dir(HERE, target);
            std::fs::create_dir_all(&dir).unwrap();
            for (name, data) in files {
                std::fs::write(dir.join(format!("seed-{name}")), data).unwrap();
            }
        }
    }

    /// Both directions of a script played against the reference server, as stdio lines.
    fn transcript(script: &Script, revision: Revision) -> Vec<u8> {
        let mut server = ReferenceServer::new(ServerConfig::default());
        let mut now = Instant::now();
        let mut out = Vec::new();
        let mut server_requests: Vec<Value> = Vec::new();
        for op in &script.ops {
            let answers = match op {
                ClientOp::Advance { step } => {
                    now += Duration::from_millis(u64::from(*step).pow(2));
                    server.poll(now)
                }
                op => {
                    if let ClientOp::Answer { .. } = op {
                        server_requests.pop();
                    }
                    let Some(line) = op.to_line_in(revision, server_requests.last()) else { continue };
                    out.extend(&line);
                    LineDecoder::decode_all(usize::MAX, &line)
                        .iter()
                        .flat_map(|frame| server.on_frame_at(&frame.content, now))
                        .collect()
                }
            };
            for answer in answers {
                if answer.get("method").is_some() && answer.get("id").is_some() {
                    server_requests.push(answer["id"].clone());
                }
                out.extend(framing::encode(&answer));
            }
        }
        out
    }

    /// Named client sessions: the handshake at each revision, every tool, pings before and after,
    /// cancels, duplicate and twin ids, out-of-order and broken messages, garbage, batches.
    fn seed_scripts() -> Vec<(String, Script)> {
        use ClientOp::*;
        let init = |id| Initialize { id, version: Version::Target };
        let mut seeds: Vec<(String, Vec<ClientOp>)> = vec![
            ("handshake".into(), vec![init(Id::Int(1)), Initialized]),
            (
                "ping-first".into(),
                vec![Ping { id: Id::Name(0) }, init(Id::Int(1)), Initialized, Ping { id: Id::Int(2) }],
            ),
            (
                "tools".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    ToolsList { id: Id::Int(1) },
                    CallEcho { id: Id::Int(2), text: 0 },
                    CallAdd { id: Id::Int(3), a: 1, b: 3 },
                ],
            ),
            (
                "tools-before-initialized".into(),
                vec![init(Id::Int(0)), ToolsList { id: Id::Int(1) }, Initialized],
            ),
            (
                "requests-before-initialize".into(),
                vec![
                    ToolsList { id: Id::Int(1) },
                    CallEcho { id: Id::Int(2), text: 1 },
                    Initialized,
                    init(Id::Int(3)),
                ],
            ),
            ("initialize-twice".into(), vec![init(Id::Int(1)), init(Id::Int(2)), Initialized]),
            (
                "cancel-answered".into(),
                vec![
                    init(Id::Int(1)),
                    Initialized,
                    CallEcho { id: Id::Int(2), text: 0 },
                    Cancel { target: Id::Int(2) },
                ],
            ),
            (
                "cancel-before".into(),
                vec![
                    init(Id::Int(1)),
                    Initialized,
                    Cancel { target: Id::Int(9) },
                    CallEcho { id: Id::Int(9), text: 0 },
                ],
            ),
            (
                "cancel-initialize".into(),
                vec![
                    Cancel { target: Id::Int(1) },
                    init(Id::Int(1)),
                    Cancel { target: Id::Int(1) },
                    Initialized,
                ],
            ),
            (
                "cancel-unknown".into(),
                vec![
                    init(Id::Int(1)),
                    Initialized,
                    Cancel { target: Id::Name(77) },
                    Cancel { target: Id::Edge(4) },
                ],
            ),
            (
                "duplicate-ids".into(),
                vec![
                    init(Id::Int(1)),
                    Initialized,
                    Ping { id: Id::Int(1) },
                    Ping { id: Id::Int(1) },
                    ToolsList { id: Id::Int(1) },
                ],
            ),
            (
                "twin-ids".into(),
                vec![
                    init(Id::Int(1)),
                    Initialized,
                    Ping { id: Id::Int(7) },
                    Ping { id: Id::Digits(7) },
                    Cancel { target: Id::Digits(7) },
                ],
            ),
            ("edge-ids".into(), (0..6).map(|i| Ping { id: Id::Edge(i) }).collect()),
            ("bad-calls".into(), {
                let mut ops = vec![init(Id::Int(0)), Initialized];
                ops.extend((0..8).map(|i| CallBad { id: Id::Int(i + 1), which: i }));
                ops
            }),
            ("add-edges".into(), {
                let mut ops = vec![init(Id::Int(0)), Initialized];
                ops.extend((0..NUMBERS as u8).map(|i| CallAdd {
                    id: Id::Int(i + 1),
                    a: i,
                    b: NUMBERS as u8 - 1 - i,
                }));
                ops
            }),
            ("echo-texts".into(), {
                let mut ops = vec![init(Id::Int(0)), Initialized];
                ops.extend((0..7).map(|i| CallEcho { id: Id::Name(i), text: i }));
                ops
            }),
            ("other-methods".into(), {
                let mut ops = vec![init(Id::Int(0)), Initialized];
                ops.extend(
                    (0..OTHER_METHODS.len() as u8)
                        .map(|i| Other { id: (i % 3 != 0).then_some(Id::Int(i + 1)), method: i }),
                );
                ops
            }),
            ("broken".into(), {
                let mut ops = vec![init(Id::Int(0)), Initialized];
                ops.extend((0..BROKEN.len() as u8).map(|i| Broken { id: Id::Int(i + 1), which: i }));
                ops
            }),
            (
                "broken-before-initialize".into(),
                (0..BROKEN.len() as u8).map(|i| Broken { id: Id::Name(i), which: i }).collect(),
            ),
            ("garbage".into(), {
                let mut ops: Vec<ClientOp> =
                    (0..GARBAGE.len() as u8).map(|which| Garbage { which, bytes: vec![] }).collect();
                ops.push(Garbage { which: GARBAGE.len() as u8, bytes: b"not json at all".to_vec() });
                ops.extend([init(Id::Int(1)), Initialized, Ping { id: Id::Int(2) }]);
                ops
            }),
            (
                "batch".into(),
                vec![
                    init(Id::Int(1)),
                    Initialized,
                    Batch { ops: vec![Ping { id: Id::Int(2) }, ToolsList { id: Id::Int(3) }, Initialized] },
                ],
            ),
            (
                "batch-edges".into(),
                vec![
                    Batch { ops: vec![init(Id::Int(1))] },
                    init(Id::Int(1)),
                    Initialized,
                    Batch { ops: vec![] },
                    Batch {
                        ops: vec![
                            Batch { ops: vec![Ping { id: Id::Int(5) }] },
                            Broken { id: Id::Int(6), which: 6 },
                        ],
                    },
                    Batch { ops: vec![Initialized, Cancel { target: Id::Int(5) }] },
                    Batch {
                        ops: vec![
                            Garbage { which: 0, bytes: vec![] },
                            Ping { id: Id::Int(5) },
                            Ping { id: Id::Int(5) },
                        ],
                    },
                ],
            ),
            ("regression-idless-error".into(), regression_idless_error().ops),
            ("regression-cancel-after-batched-answer".into(), regression_cancel_after_batched_answer().ops),
            ("every-tool".into(), {
                let mut ops = vec![init(Id::Int(0)), Initialized];
                ops.extend((0..TOOLS.len() as u8).map(|i| CallTool { id: Id::Int(i + 1), tool: i, arg: 2 }));
                ops.extend([
                    Advance { step: 40 },
                    Answer { shape: 0 },
                    Answer { shape: 1 },
                    Answer { shape: 2 },
                ]);
                ops.push(Advance { step: 255 });
                ops
            }),
            ("every-known-request".into(), {
                let mut ops = vec![init(Id::Int(0)), Initialized];
                ops.extend((0..KNOWN.len() as u8).map(|i| Known { id: Id::Name(i), which: i }));
                ops
            }),
            (
                "slow-cancelled-in-flight".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Int(5), tool: 11, arg: 10 },
                    Cancel { target: Id::Int(5) },
                    Advance { step: 50 },
                    Ping { id: Id::Int(6) },
                ],
            ),
            (
                "slow-finishes".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Digits(5), tool: 11, arg: 5 },
                    Ping { id: Id::Int(5) },
                    Advance { step: 30 },
                    Cancel { target: Id::Digits(5) },
                ],
            ),
            (
                "slow-duplicate-ids".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Int(1), tool: 11, arg: 3 },
                    CallTool { id: Id::Int(1), tool: 11, arg: 1 },
                    Ping { id: Id::Int(1) },
                    Cancel { target: Id::Int(1) },
                    Advance { step: 40 },
                ],
            ),
            (
                "sampling-answered".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Int(7), tool: 8, arg: 0 },
                    Answer { shape: 0 },
                ],
            ),
            (
                "sampling-times-out".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Int(7), tool: 8, arg: 0 },
                    Advance { step: 80 },
                    Answer { shape: 0 },
                ],
            ),
            (
                "sampling-wrong-answers".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Int(7), tool: 8, arg: 1 },
                    Answer { shape: 4 },
                    Answer { shape: ANSWERS.len() as u8 },
                ],
            ),
            (
                "elicitation-answered".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Int(8), tool: 9, arg: 0 },
                    Answer { shape: 1 },
                    CallTool { id: Id::Int(9), tool: 9, arg: 0 },
                    Answer { shape: 5 },
                ],
            ),
            (
                "roots-answered".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    CallTool { id: Id::Int(8), tool: 10, arg: 0 },
                    Answer { shape: 2 },
                ],
            ),
            ("progress".into(), {
                let mut ops =
                    vec![init(Id::Int(0)), Initialized, CallTool { id: Id::Int(3), tool: 6, arg: 1 }];
                ops.extend((0..6).map(|_| Advance { step: 4 }));
                ops
            }),
            (
                "subscribe-watched".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    Known { id: Id::Int(1), which: 5 },
                    Advance { step: 10 },
                    CallTool { id: Id::Int(2), tool: 12, arg: 0 },
                    Known { id: Id::Int(3), which: 6 },
                    Advance { step: 10 },
                ],
            ),
            (
                "logging".into(),
                vec![
                    init(Id::Int(0)),
                    Initialized,
                    Known { id: Id::Int(1), which: 10 },
                    CallTool { id: Id::Int(2), tool: 5, arg: 0 },
                    Known { id: Id::Int(3), which: 11 },
                    CallTool { id: Id::Int(4), tool: 5, arg: 0 },
                ],
            ),
            (
                "client-responses".into(),
                vec![
                    init(Id::Int(1)),
                    Initialized,
                    Response { id: Id::Int(1), error: false },
                    Response { id: Id::Name(3), error: true },
                ],
            ),
        ];
        // `Version::Listed(i)` indexes VERSIONS; the two past its end send a number or nothing.
        let listed = mcpspec_reference::props::VERSIONS.into_iter().chain(["number", "missing"]);
        for (i, r) in listed.enumerate() {
            seeds.push((
                format!("initialize-asks-{}", if r.is_empty() { "empty" } else { r }),
                vec![
                    Initialize { id: Id::Int(1), version: Version::Listed(i as u8) },
                    Initialized,
                    ToolsList { id: Id::Int(2) },
                    CallAdd { id: Id::Int(3), a: 3, b: 8 },
                ],
            ));
        }
        seeds.into_iter().map(|(n, ops)| (n, Script { ops })).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Any bytes, as a client script: the session properties hold at every revision.
        #[test]
        fn any_script_keeps_the_session_properties(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
            server_session(&bytes);
        }

        /// Any bytes before a handshake: the scripts that get furthest.
        #[test]
        fn any_script_after_a_handshake_keeps_the_session_properties(bytes in proptest::collection::vec(any::<u8>(), 0..160)) {
            let mut data = handshake(vec![]);
            data.extend(bytes);
            server_session(&data);
        }

        /// The checker on JSON-RPC-looking streams never panics and describes what it saw.
        #[test]
        fn the_checker_holds_on_json_like_streams(bytes in proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'['), Just(b'"'), Just(b'1'), Just(b':'), any::<u8>()], 0..200)) {
            wire_checker(&bytes);
        }
    }
}
