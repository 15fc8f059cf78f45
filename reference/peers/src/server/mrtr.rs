//! Multi round-trip requests (`basic/patterns/mrtr.mdx`): how the server of the modern era gets input
//! from the client without sending it requests. A fixture answers `input_required` with
//! `inputRequests` (what to ask the client) and a `requestState`; the client retries the same
//! request with `inputResponses` and the state, and the fixture goes on where it stopped.
//!
//! The state is the whole memory of the exchange (over HTTP each retry may meet another server
//! instance): the step, what was asked, what was answered, and the fixture's own data (a
//! sampling conversation, say). It is JSON, Base64url-encoded, followed by `.` and an
//! HMAC-SHA256 of it under a key drawn once per process; it binds the method, the tool / prompt
//! / resource name and an expiry (mrtr.mdx#server-requirements-basic-workflow: "servers MUST
//! protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification",
//! and SHOULD bind "a short expiry" and "an identifier for the originating request"). Anything
//! that fails is -32602. The server keeps no record of states it issued, so a state can be
//! replayed until it expires (the spec's warning: single use is not guaranteed).
//!
//! | fixture | asks (keys) | then |
//! | --- | --- | --- |
//! | tool `test_elicitation` `{message?}` | `elicitation`: a form (URL mode for a URL-only client) | `User response: action=…, content=…` |
//! | tool `test_sampling` `{prompt?}` | `sampling`: createMessage (with `tools` when `sampling.tools` is declared: a tool loop, one round per model turn, tool uses always answered) | `LLM response: …` |
//! | tool `test_roots` | `roots`: roots/list | `The client has N root(s): …` |
//! | tool `test_mrtr_multiple_inputs` | `elicitation`, `sampling`, `roots` at once: those the request declares | one line per answer |
//! | tool `test_mrtr_multi_round` | round 1 `topic` (elicitation), round 2 `summary` (sampling about the topic) | `Topic: …; LLM response: …` |
//! | prompt `test_mrtr_prompt` | `topic` (elicitation) | a user message about the topic |
//! | resource `test://mrtr/needs-input` | `passphrase` (elicitation) | one text content, `ttlMs: 0`, `private` |
//!
//! A fixture needs the client capabilities of what it asks: without them it is -32021 with
//! `requiredCapabilities` (`test_mrtr_multiple_inputs` needs any one of the three, and names
//! `elicitation` when none is declared). Missing answers are asked for again (SHOULD), answers
//! that were not asked for are ignored (SHOULD), answers of the wrong shape are -32602.

use super::tools::{
    elicitation_form, elicitation_text, roots_text, sampling_params, sampling_step, tool_text, SamplingNext,
};
use super::{catalog, invalid_params, ReferenceServer};
use crate::faults::Fault;
use base64::Engine as _;
use mcpspec_protocol::modern as era;
use mcpspec_protocol::revision::Revision;
use mcpspec_protocol::wire::ErrorObject;
use ring::hmac;
use serde_json::{json, Map, Value};
use std::sync::OnceLock;
use std::time::Instant;

/// The tools that ask for input.
const TOOLS: [&str; 5] =
    ["test_sampling", "test_elicitation", "test_roots", "test_mrtr_multiple_inputs", "test_mrtr_multi_round"];

pub(super) fn is_tool(name: &str) -> bool {
    TOOLS.contains(&name)
}

/// The process's zero of time for expiries: states outlive one server instance (HTTP serves
/// each request with a fresh one), so they count from a point all instances share.
pub(super) fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

/// The HMAC key, drawn once per process from the system's CSPRNG.
fn key() -> &'static hmac::Key {
    static KEY: OnceLock<hmac::Key> = OnceLock::new();
    KEY.get_or_init(|| {
        let rng = ring::rand::SystemRandom::new();
        hmac::Key::generate(hmac::HMAC_SHA256, &rng).unwrap_or_else(|_| {
            // No system randomness: a key from the clock still differs per process.
            let seed = format!("{:?}", std::time::SystemTime::now());
            hmac::Key::new(hmac::HMAC_SHA256, seed.as_bytes())
        })
    })
}

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// What a fixture remembers between rounds.
#[derive(Debug, Default)]
struct State {
    /// The step whose questions are out (meaningful once `asked` is not empty).
    step: u64,
    /// The input requests of that step, by key.
    asked: Map<String, Value>,
    /// The answers received to them so far.
    got: Map<String, Value>,
    /// The fixture's own data.
    data: Value,
}

fn seal(method: &str, name: &str, expires_ms: u64, state: &State) -> String {
    let payload = json!({ "m": method, "n": name, "exp": expires_ms, "step": state.step,
        "asked": state.asked, "got": state.got, "data": state.data });
    let bytes = payload.to_string();
    let tag = hmac::sign(key(), bytes.as_bytes());
    format!("{}.{}", B64.encode(bytes), B64.encode(tag.as_ref()))
}

/// Opens a `requestState`: `Err` says why it is refused. `unchecked` (a deliberate fault) skips
/// every check, and takes what cannot be decoded as no state at all.
fn open(token: &str, method: &str, name: &str, now_ms: u64, unchecked: bool) -> Result<State, String> {
    let decoded = token.split_once('.').and_then(|(payload, tag)| {
        let payload = B64.decode(payload).ok()?;
        let tag = B64.decode(tag).ok()?;
        Some((payload, tag))
    });
    let Some((payload, tag)) = decoded else {
        return if unchecked {
            Ok(State::default())
        } else {
            Err("is not a state this server issued".into())
        };
    };
    if !unchecked && hmac::verify(key(), &payload, &tag).is_err() {
        return Err("fails verification (it was altered, or issued by another server)".into());
    }
    let Ok(v) = serde_json::from_slice::<Value>(&payload) else {
        return if unchecked { Ok(State::default()) } else { Err("does not decode".into()) };
    };
    if !unchecked {
        if v["m"] != method || v["n"] != name {
            return Err(format!("belongs to another request ({} {})", v["m"], v["n"]));
        }
        if v["exp"].as_u64().is_none_or(|exp| exp < now_ms) {
            return Err("has expired; start the request again without it".into());
        }
    }
    let map = |k: &str| v.get(k).and_then(Value::as_object).cloned().unwrap_or_default();
    Ok(State {
        step: v["step"].as_u64().unwrap_or(0),
        asked: map("asked"),
        got: map("got"),
        data: v["data"].clone(),
    })
}

/// Whether an input response has the shape of the result its request asks for; `Err` says why not.
fn check_response(method: &str, response: &Value) -> Result<(), String> {
    let ok = match method {
        "elicitation/create" => {
            matches!(response.get("action").and_then(Value::as_str), Some("accept" | "decline" | "cancel"))
        }
        "sampling/createMessage" => {
            response.get("role").is_some_and(Value::is_string) && response.get("content").is_some()
        }
        "roots/list" => response.get("roots").is_some_and(Value::is_array),
        _ => true,
    };
    let want = match method {
        "elicitation/create" => "an ElicitResult (action accept, decline or cancel)",
        "sampling/createMessage" => "a CreateMessageResult (role and content)",
        _ => "a ListRootsResult (roots, an array)",
    };
    if ok {
        Ok(())
    } else {
        Err(want.into())
    }
}

/// What a fixture does at a step.
enum Next {
    /// Ask the client these input requests (key → `{method, params}`).
    Ask(Map<String, Value>, Value),
    /// The answer.
    Done(Result<Value, ErrorObject>),
}

fn declared(caps: &Value, name: &str) -> bool {
    caps.get(name).is_some_and(|c| !c.is_null())
}

/// The client capabilities a fixture needs and the request lacks (`None`: it may go on).
fn missing_capabilities(name: &str, caps: &Value) -> Option<Value> {
    let needs: &[&str] = match name {
        "test_sampling" => &["sampling"],
        "test_elicitation" | catalog::MRTR_PROMPT | catalog::MRTR_RESOURCE => &["elicitation"],
        "test_roots" => &["roots"],
        "test_mrtr_multi_round" => &["elicitation", "sampling"],
        "test_mrtr_multiple_inputs" => {
            let any = ["elicitation", "sampling", "roots"].iter().any(|c| declared(caps, c));
            return (!any).then(|| json!({ "elicitation": {} }));
        }
        _ => &[],
    };
    let missing: Map<String, Value> =
        needs.iter().filter(|c| !declared(caps, c)).map(|c| ((*c).to_owned(), json!({}))).collect();
    (!missing.is_empty()).then_some(Value::Object(missing))
}

fn request(method: &str, params: Value) -> Value {
    json!({ "method": method, "params": params })
}

fn ask(items: Vec<(&str, Value)>, data: Value) -> Next {
    Next::Ask(items.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(), data)
}

/// An elicitation for `message`: a form, or URL mode for a client that declared only URL mode
/// (2025-11-25 elicitation.mdx: no modes the client does not support; an empty object is form).
fn elicit(caps: &Value, message: &str, rev: Revision) -> Value {
    let modes = caps.get("elicitation").cloned().unwrap_or(Value::Null);
    if modes.get("url").is_some() && modes.get("form").is_none() {
        let params =
            json!({ "mode": "url", "message": message, "url": "https://example.com/mcpspec/consent" });
        return request("elicitation/create", params);
    }
    request("elicitation/create", elicitation_form(message, rev))
}

fn topic_elicitation(caps: &Value, message: &str) -> Value {
    let modes = caps.get("elicitation").cloned().unwrap_or(Value::Null);
    if modes.get("url").is_some() && modes.get("form").is_none() {
        return elicit(caps, message, Revision::V2026_07_28);
    }
    let params = json!({ "mode": "form", "message": message, "requestedSchema": { "type": "object",
        "properties": { "topic": { "type": "string", "description": "The topic" } }, "required": ["topic"] } });
    request("elicitation/create", params)
}

/// The text a sampling request starts with.
fn sampling_request(prompt: &str, with_tools: bool) -> (Value, Vec<Value>) {
    let messages = vec![json!({ "role": "user", "content": { "type": "text", "text": prompt } })];
    (request("sampling/createMessage", sampling_params(&messages, with_tools, false)), messages)
}

fn answer_text(result: &Result<Value, ErrorObject>) -> String {
    match result {
        Ok(r) => r["content"][0]["text"].as_str().unwrap_or("").to_owned(),
        Err(e) => e.message.clone(),
    }
}

impl ReferenceServer {
    fn clock_ms(&self) -> u64 {
        u64::try_from(self.now.saturating_duration_since(epoch()).as_millis()).unwrap_or(u64::MAX)
    }

    /// Serves one round of the MRTR fixture `name` of `method` (see the module doc).
    pub(super) fn mrtr(
        &mut self,
        method: &str,
        name: &str,
        params: Option<&Value>,
    ) -> Result<Value, ErrorObject> {
        let caps = self.modern.as_ref().map(|c| c.capabilities.clone()).unwrap_or_else(|| json!({}));
        let fault = self.fault;
        if fault != Some(Fault::ModernInputRequestUndeclared) {
            // mrtr.mdx: "Servers MUST NOT send an inputRequests that the client has not declared
            // support for"; basic/index.mdx: a request needing an undeclared capability is -32021.
            if let Some(required) = missing_capabilities(name, &caps) {
                if fault == Some(Fault::ModernMissingCapabilityWrongCode) {
                    return Err(invalid_params(&format!("the client lacks {required}")));
                }
                return Err(era::missing_capability(required));
            }
        }
        let now_ms = self.clock_ms();
        let mut state = match params.and_then(|p| p.get("requestState")) {
            None | Some(Value::Null) => State::default(),
            Some(Value::String(token)) => {
                let unchecked = fault == Some(Fault::ModernRequestStateUnchecked);
                open(token, method, name, now_ms, unchecked)
                    .map_err(|why| invalid_params(&format!("params.requestState {why}")))?
            }
            Some(_) => return Err(invalid_params("params.requestState must be a string")),
        };
        let responses = match params.and_then(|p| p.get("inputResponses")) {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(invalid_params("params.inputResponses must be an object")),
        };
        for (key, response) in responses {
            match state.asked.get(&key) {
                Some(asked) => {
                    let asked_method = asked["method"].as_str().unwrap_or("");
                    check_response(asked_method, &response).map_err(|want| {
                        invalid_params(&format!("params.inputResponses[{key:?}] must be {want}"))
                    })?;
                    state.got.insert(key, response);
                }
                None if fault == Some(Fault::ModernExtraInputRejected) => {
                    return Err(invalid_params(&format!("params.inputResponses[{key:?}] was not asked for")));
                }
                // mrtr.mdx#error-handling: "the server SHOULD ignore any information it does not
                // recognize or need".
                None => {}
            }
        }
        let missing: Map<String, Value> = state
            .asked
            .iter()
            .filter(|(k, _)| !state.got.contains_key(*k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !missing.is_empty() {
            if fault == Some(Fault::ModernMissingInputError) {
                let keys: Vec<&String> = missing.keys().collect();
                return Err(invalid_params(&format!("params.inputResponses lacks {keys:?}")));
            }
            // mrtr.mdx#error-handling: "the server SHOULD respond with a new InputRequiredResult
            // requesting the missing information again, rather than returning an error".
            return Ok(self.input_required(method, name, &state, missing));
        }
        let step = if state.asked.is_empty() { 0 } else { state.step + 1 };
        let data = std::mem::take(&mut state.data);
        match self.fixture_step(name, step, data, &state.got, params, &caps) {
            Next::Done(result) => result,
            Next::Ask(asks, data) => {
                let next = State { step, asked: asks.clone(), got: Map::new(), data };
                Ok(self.input_required(method, name, &next, asks))
            }
        }
    }

    fn input_required(&self, method: &str, name: &str, state: &State, asks: Map<String, Value>) -> Value {
        if self.fault == Some(Fault::ModernInputRequiredEmpty) {
            return json!({ "resultType": era::INPUT_REQUIRED });
        }
        let ttl = u64::try_from(self.config.request_state_ttl.as_millis()).unwrap_or(u64::MAX);
        let expires = self.clock_ms().saturating_add(ttl);
        json!({ "resultType": era::INPUT_REQUIRED, "inputRequests": asks,
            "requestState": seal(method, name, expires, state) })
    }

    /// One step of a fixture: `answers` holds the answers to the previous step's questions.
    fn fixture_step(
        &self,
        name: &str,
        step: u64,
        mut data: Value,
        answers: &Map<String, Value>,
        params: Option<&Value>,
        caps: &Value,
    ) -> Next {
        let rev = self.rev();
        let args = params.and_then(|p| p.get("arguments")).cloned().unwrap_or(Value::Null);
        let answer = |k: &str| answers.get(k).cloned().unwrap_or(Value::Null);
        let with_tools = caps.pointer("/sampling/tools").is_some_and(|t| !t.is_null());
        match (name, step) {
            ("test_elicitation", 0) => {
                let message =
                    args.get("message").and_then(Value::as_str).unwrap_or("Please provide your details.");
                let mut asked = elicit(caps, message, rev);
                self.bend_elicitation(&mut asked["params"]);
                ask(vec![("elicitation", asked)], Value::Null)
            }
            ("test_elicitation", _) => Next::Done(Ok(tool_text(&elicitation_text(&answer("elicitation"))))),
            ("test_roots", 0) => ask(vec![("roots", json!({ "method": "roots/list" }))], Value::Null),
            ("test_roots", _) => Next::Done(Ok(tool_text(&roots_text(&answer("roots"))))),
            ("test_sampling", 0) => {
                let prompt = args.get("prompt").and_then(Value::as_str).unwrap_or("Say hello.");
                let (req, messages) = sampling_request(prompt, with_tools);
                ask(vec![("sampling", req)], json!({ "messages": messages, "rounds": 1 }))
            }
            ("test_sampling", _) => {
                let mut messages = data["messages"].as_array().cloned().unwrap_or_default();
                let mut rounds = usize::try_from(data["rounds"].as_u64().unwrap_or(1)).unwrap_or(1);
                let max = self.config.max_sampling_rounds;
                match sampling_step(&mut messages, with_tools, &mut rounds, false, max, &answer("sampling")) {
                    SamplingNext::Done(result) => Next::Done(Ok(result)),
                    SamplingNext::Ask(params) => ask(
                        vec![("sampling", request("sampling/createMessage", params))],
                        json!({ "messages": messages, "rounds": rounds }),
                    ),
                }
            }
            ("test_mrtr_multiple_inputs", 0) => {
                let mut items = Vec::new();
                if declared(caps, "elicitation") || self.fault == Some(Fault::ModernInputRequestUndeclared) {
                    let mut asked = elicit(caps, "Please provide your details.", rev);
                    self.bend_elicitation(&mut asked["params"]);
                    items.push(("elicitation", asked));
                }
                if declared(caps, "sampling") {
                    items.push(("sampling", sampling_request("Say hello.", false).0));
                }
                if declared(caps, "roots") {
                    items.push(("roots", json!({ "method": "roots/list" })));
                }
                ask(items, Value::Null)
            }
            ("test_mrtr_multiple_inputs", _) => {
                let mut lines = Vec::new();
                if let Some(e) = answers.get("elicitation") {
                    lines.push(elicitation_text(e));
                }
                if let Some(s) = answers.get("sampling") {
                    let mut m = Vec::new();
                    lines.push(answer_text(&match sampling_step(&mut m, false, &mut 1, false, 1, s) {
                        SamplingNext::Done(r) => Ok(r),
                        SamplingNext::Ask(_) => Ok(tool_text("")),
                    }));
                }
                if let Some(r) = answers.get("roots") {
                    lines.push(roots_text(r));
                }
                Next::Done(Ok(tool_text(&lines.join("\n"))))
            }
            ("test_mrtr_multi_round", 0) => ask(
                vec![("topic", topic_elicitation(caps, "What should the summary be about?"))],
                Value::Null,
            ),
            ("test_mrtr_multi_round", 1) => {
                let topic = answer("topic")
                    .pointer("/content/topic")
                    .and_then(Value::as_str)
                    .unwrap_or("nothing")
                    .to_owned();
                data = json!({ "topic": topic });
                let prompt = format!("Summarize {topic} in one sentence.");
                ask(vec![("summary", sampling_request(&prompt, false).0)], data)
            }
            ("test_mrtr_multi_round", _) => {
                let topic = data["topic"].as_str().unwrap_or("nothing").to_owned();
                let mut m = Vec::new();
                let summary = match sampling_step(&mut m, false, &mut 1, false, 1, &answer("summary")) {
                    SamplingNext::Done(r) => answer_text(&Ok(r)),
                    SamplingNext::Ask(_) => String::new(),
                };
                Next::Done(Ok(tool_text(&format!("Topic: {topic}; {summary}"))))
            }
            (catalog::MRTR_PROMPT, 0) => {
                ask(vec![("topic", topic_elicitation(caps, "What should the prompt be about?"))], Value::Null)
            }
            (catalog::MRTR_PROMPT, _) => {
                let topic = answer("topic")
                    .pointer("/content/topic")
                    .and_then(Value::as_str)
                    .unwrap_or("anything")
                    .to_owned();
                Next::Done(Ok(json!({ "description": "A prompt about a topic the user chose.", "messages": [
                    { "role": "user", "content": { "type": "text", "text": format!("Write a short note about {topic}.") } }] })))
            }
            (catalog::MRTR_RESOURCE, 0) => ask(
                vec![("passphrase", elicit(caps, "Enter any passphrase to read the resource.", rev))],
                Value::Null,
            ),
            (catalog::MRTR_RESOURCE, _) => {
                let action = answer("passphrase")["action"].as_str().unwrap_or("cancel").to_owned();
                let text = format!("The resource behind the passphrase (the user chose to {action}).");
                Next::Done(Ok(
                    json!({ "contents": [{ "uri": catalog::MRTR_RESOURCE, "mimeType": "text/plain", "text": text }] }),
                ))
            }
            (other, _) => Next::Done(Err(ErrorObject::new(
                ErrorObject::INTERNAL_ERROR,
                format!("{other} asks for no input"),
            ))),
        }
    }
}
