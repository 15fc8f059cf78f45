//! A structure-aware client [`Script`] played against the reference server at every revision it
//! speaks: no panic, every request answered at most once, every answer schema-valid for the
//! negotiated revision, nothing answered after its cancellation.

use crate::checker::schemas;
use crate::script::{describe, ClientOp, Script};
use mcpspec::judge::checker::SessionChecker;
use mcpspec_protocol::framing::{Frame, FrameContent, LineDecoder};
use mcpspec_protocol::wire::{Message, Outcome, RequestId};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::server::{ReferenceServer, ServerConfig};
use mcpspec_schema::Validation;
use serde_json::Value;
use std::collections::HashMap;
use std::time::{Duration, Instant};

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
pub(crate) struct Sent {
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
        panic!("at {}: {why}\nscript:\n{}", self.revision, describe(self.script));
    }

    fn sends(&mut self, server: &ReferenceServer, frame: &Frame) {
        self.checker.on_frame(Direction::ClientToServer, frame.content.clone());
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
pub(crate) fn idless_error_where_schema_requires_id(element: &Value, verdict: &Validation) -> bool {
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
pub(crate) fn note_sent(
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
pub(crate) fn answer_reused(
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
pub(crate) fn answer_of(
    id: &RequestId,
    sent: &mut HashMap<RequestId, Vec<Sent>>,
) -> Result<Option<String>, String> {
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
