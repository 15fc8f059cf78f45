//! Inputs for fuzzing a client (`mcpspec fuzz --role client`): what mcpspec, as the client's
//! server, sends it. An input's writes are of two kinds:
//! - an **answer**: a response whose id is `"mcpspec-answer:<method>"`, held back and sent, with
//!   the real id in place of that token, as the answer to the client's first `<method>` request
//!   (instead of the reference server's); built from the reference server's answer in the
//!   client's clean run, then mutated (structurally, or in its bytes);
//! - an **injection**, written as it is once the client has initialized: a server request
//!   (`sampling/createMessage`, `elicitation/create`, `roots/list`, `ping`, …) or notification
//!   built from our schema, mutated or not; an answer to nothing; broken framing.
//!
//! Over HTTP a share of inputs has no writes but bends one response of mcpspec's endpoint
//! instead ([`super::reply`], the input's `http.reply`), and no answer's bytes are bent: a body
//! is one JSON text there, and what breaks it is a bend of the body.
//!
//! Deterministic in `(seed, index)` and the clean run's answers, as the server generator is.

use super::framing::{self, Framing};
use super::mutate::{self, Mutation};
use super::reply::{self, ReplyMutation};
use super::schema_values::SchemaValues;
use super::{methods_of, notification, Draw, MethodTemplate, Table};
use crate::fuzz::{HttpShape, Input};
use mcpspec_protocol::framing::encode;
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::Flavor;
use mcpspec_schema::SchemaSet;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};
use std::sync::Arc;

/// The id token of an answer write: `"mcpspec-answer:tools/list"`.
pub const ANSWER_ID_PREFIX: &str = "mcpspec-answer:";

/// What an input for a client is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ClientKind {
    /// The answer to one of the client's requests, mutated structurally.
    Answer(Mutation),
    /// The answer to one of the client's requests, its bytes mutated.
    AnswerBytes(Framing),
    /// A request of the server's, from the schema, maybe mutated.
    ServerRequest,
    /// A notification of the server's, from the schema, maybe mutated.
    Notification,
    /// Answers to nothing: ids never sent, and one answer twice.
    Stray,
    /// Over HTTP: one response of the endpoint bent.
    Reply(ReplyMutation),
}

/// Builds inputs for a client from the server messages of the revision's schema and the
/// answers of the client's clean run.
pub struct ClientGenerator {
    revision: Revision,
    document: Value,
    requests: Vec<MethodTemplate>,
    notifications: Vec<MethodTemplate>,
    /// `(method, result)` of each request the client made in its clean run.
    answers: Vec<(String, Value)>,
    /// The HTTP transport the client is served over (none: stdio).
    flavor: Option<Flavor>,
    /// How many POSTs the client made in its clean run (over HTTP).
    posts: u32,
    kinds: Table<ClientKind>,
}

impl ClientGenerator {
    /// `answers`: what the reference server answered the client's requests in its clean run;
    /// `http`: over HTTP, the transport and how many POSTs the client made in that run.
    pub fn new(
        revision: Revision,
        schemas: &Arc<SchemaSet>,
        answers: Vec<(String, Value)>,
        http: Option<(Flavor, u32)>,
    ) -> ClientGenerator {
        let document = schemas.get(revision).map(|s| s.document().clone()).unwrap_or(Value::Null);
        let all = methods_of(&document, "ServerRequest", "ServerNotification");
        let (requests, notifications): (Vec<_>, Vec<_>) = all.into_iter().partition(|m| m.request);
        // Shares per 10 000 inputs: bent answers 45 % (structural 36, bytes 9), server requests
        // 30 %, notifications 15 %, answers to nothing 10 %; each split by its variants' weights.
        // A client run costs a process and its whole course, so mutations that reach a client's
        // buffers and recursion (huge strings, deep nesting) weigh more than for servers.
        let boosted = |m: Mutation, w: u32| match m {
            Mutation::HugeString => w * 10,
            Mutation::DeepNesting => w * 2,
            _ => w,
        };
        let share = |w: u32, sum: u32, total: u32| (w * total).div_ceil(sum.max(1));
        let mut kinds: Vec<(ClientKind, u32)> = Vec::new();
        if !answers.is_empty() {
            let sum: u32 = Mutation::WEIGHTED.iter().map(|(m, w)| boosted(*m, *w)).sum();
            kinds.extend(
                Mutation::WEIGHTED
                    .iter()
                    .map(|(m, w)| (ClientKind::Answer(*m), share(boosted(*m, *w), sum, 3600))),
            );
            if http.is_none() {
                let sum: u32 = Framing::WEIGHTED.iter().map(|(_, w)| *w).sum();
                kinds.extend(
                    Framing::WEIGHTED.iter().map(|(f, w)| (ClientKind::AnswerBytes(*f), share(*w, sum, 900))),
                );
            }
        }
        if http.is_some() {
            // Over HTTP, bent responses are three inputs in five: the messages' own mutations
            // are the stdio campaign's as well, the HTTP layer is this one's alone.
            let sum: u32 = ReplyMutation::WEIGHTED.iter().map(|(_, w)| *w).sum();
            kinds.extend(
                ReplyMutation::WEIGHTED.iter().map(|(m, w)| (ClientKind::Reply(*m), share(*w, sum, 13_600))),
            );
        }
        if !requests.is_empty() {
            kinds.push((ClientKind::ServerRequest, 3000));
        }
        if !notifications.is_empty() {
            kinds.push((ClientKind::Notification, 1500));
        }
        kinds.push((ClientKind::Stray, 1000));
        let (flavor, posts) = http.map_or((None, 0), |(f, p)| (Some(f), p));
        ClientGenerator {
            revision,
            document,
            requests,
            notifications,
            answers,
            flavor,
            posts,
            kinds: Table::new(kinds),
        }
    }

    /// Input number `index` of the campaign seeded with `seed`.
    pub fn input(&self, seed: u64, index: u64) -> Input {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(index);
        let mut d = Draw { rng, index, ids: 0 };
        let kind = self.kinds.draw(&mut d.rng);
        let (label, writes) = match kind {
            ClientKind::Answer(mutation) => {
                let (method, answer) = self.answer(&mut d);
                let (bytes, what) = mutate::mutate(&answer, mutation, &mut d.rng);
                (format!("the answer to {method}: {what}"), vec![bytes])
            }
            ClientKind::AnswerBytes(f) => {
                let (method, answer) = self.answer(&mut d);
                let (writes, what) = framing::apply(f, vec![encode(&answer)], 0, &mut d.rng);
                // One answer is one write: the pieces of a split one are joined again.
                (format!("the answer to {method}: framing: {what}"), vec![writes.concat()])
            }
            ClientKind::ServerRequest => self.injected(&self.requests, &mut d),
            ClientKind::Notification => self.injected(&self.notifications, &mut d),
            ClientKind::Stray => {
                let id = match d.rng.random_range(0..3) {
                    0 => json!(d.rng.random_range(0..1_000_000)),
                    1 => json!(format!("stray-{}", d.index)),
                    _ => json!(i64::MAX),
                };
                let stray = json!({"jsonrpc": "2.0", "id": id, "result": {}});
                let mut writes = vec![encode(&stray)];
                if d.rng.random_bool(0.5) {
                    let ping = json!({"jsonrpc": "2.0", "id": format!("s{}.dup", d.index), "method": "ping"});
                    writes.push(encode(&ping));
                }
                ("answers to nothing".to_owned(), writes)
            }
            ClientKind::Reply(mutation) => {
                let flavor = self.flavor.unwrap_or(Flavor::Streamable);
                let bend = reply::reply(mutation, flavor, self.posts, &mut d.rng);
                let label = format!("the response to {}", bend.describe());
                let http = HttpShape { reply: Some(bend), ..HttpShape::default() };
                return Input { label, writes: Vec::new(), fresh: true, http: Some(http) };
            }
        };
        Input { label, writes, fresh: true, http: None }
    }

    /// One of the clean run's answers, as an answer write.
    fn answer(&self, d: &mut Draw) -> (String, Value) {
        let (method, result) =
            self.answers.choose(&mut d.rng).cloned().unwrap_or_else(|| ("ping".into(), json!({})));
        let id = format!("{ANSWER_ID_PREFIX}{method}");
        (method, json!({"jsonrpc": "2.0", "id": id, "result": result}))
    }

    /// A server request or notification from the schema; mutated four times in ten. Half the
    /// elicitation and sampling requests are built by hand instead ([`form`], [`conversation`]):
    /// the schema's own values leave a form without fields and a conversation without turns,
    /// and a client's code for those is where its bugs are.
    fn injected(&self, templates: &[MethodTemplate], d: &mut Draw) -> (String, Vec<Vec<u8>>) {
        // Forms and conversations carry the most a client must take apart, and progress for a
        // token never sent is what a client's bookkeeping meets least: each drawn thrice as often.
        let template = templates
            .choose_weighted(&mut d.rng, |t| match t.method.as_str() {
                "elicitation/create" | "sampling/createMessage" | "notifications/progress" => 3,
                _ => 1,
            })
            .expect("drawn only with templates");
        let values = SchemaValues { root: &self.document, edge_rate: 0.2, optional_rate: 0.5 };
        let by_hand = match template.method.as_str() {
            "elicitation/create" if d.rng.random_bool(0.5) => Some(form(&mut d.rng)),
            "sampling/createMessage" if d.rng.random_bool(0.5) => Some(conversation(&mut d.rng)),
            _ => None,
        };
        let params = by_hand.or_else(|| {
            template
                .params
                .as_ref()
                .filter(|_| template.params_required || d.rng.random_bool(0.7))
                .map(|schema| values.value(schema, &mut d.rng))
        });
        let message = match template.request {
            true => {
                let mut m = notification(&template.method, params);
                m["id"] = json!(format!("s{}.{}", d.index, d.ids));
                d.ids += 1;
                m
            }
            false => notification(&template.method, params),
        };
        let _ = self.revision;
        match d.rng.random_bool(0.4) {
            true => {
                let mutations: Vec<Mutation> = Mutation::WEIGHTED.iter().map(|(m, _)| *m).collect();
                let mutation = *mutations.choose(&mut d.rng).expect("mutations");
                let (bytes, what) = mutate::mutate(&message, mutation, &mut d.rng);
                (format!("{}: {what}", template.method), vec![bytes])
            }
            false => (template.method.clone(), vec![encode(&message)]),
        }
    }
}

/// Form-mode `elicitation/create` params with one to six fields of every kind the spec lets a
/// form have (`client/elicitation.mdx#supported-schema-types`): text with formats and lengths,
/// numbers with bounds, booleans, single- and multi-select enums, each with or without a
/// default and a title, some required.
fn form(rng: &mut ChaCha8Rng) -> Value {
    let kinds = [
        json!({"type": "string", "title": "Name", "minLength": 1, "maxLength": 50, "default": "Ada"}),
        json!({"type": "string", "format": "email"}),
        json!({"type": "string", "format": "date-time", "default": "2026-11-26T00:00:00Z"}),
        json!({"type": "number", "minimum": 0, "maximum": 1e308, "default": 0.5}),
        json!({"type": "integer", "minimum": -9007199254740991i64, "default": 3}),
        json!({"type": "boolean", "default": true}),
        json!({"type": "boolean"}),
        json!({"type": "string", "enum": ["a", "b", "🦀"], "enumNames": ["A", "B", "Crab"], "default": "b"}),
        json!({"type": "string", "oneOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]}),
        json!({"type": "array", "items": {"type": "string", "enum": ["p", "q"]}, "minItems": 0, "default": ["p"]}),
    ];
    let count = rng.random_range(1..=6);
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    for i in 0..count {
        let name = format!("field{i}");
        if rng.random_bool(0.4) {
            required.push(json!(name));
        }
        properties.insert(name, kinds.choose(rng).cloned().unwrap_or_default());
    }
    json!({"mode": "form", "message": "Please fill in the form", "requestedSchema":
        {"type": "object", "properties": properties, "required": required}})
}

/// `sampling/createMessage` params with none to five turns of text, image and audio content,
/// maybe a system prompt and model preferences.
fn conversation(rng: &mut ChaCha8Rng) -> Value {
    let contents = [
        json!({"type": "text", "text": "Hello"}),
        json!({"type": "text", "text": ""}),
        json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}),
        json!({"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}),
    ];
    // No turn at all is an edge a client meets only from a hostile server: drawn often.
    let count = [0, 0, 1, 2, 5].choose(rng).copied().unwrap_or(1);
    let turns: Vec<Value> = (0..count)
        .map(|i| json!({"role": if i % 2 == 0 { "user" } else { "assistant" }, "content": contents.choose(rng).cloned()}))
        .collect();
    let mut params = json!({"messages": turns, "maxTokens": rng.random_range(1..=4096)});
    if rng.random_bool(0.5) {
        params["systemPrompt"] = json!("You are a test.");
    }
    if rng.random_bool(0.5) {
        params["modelPreferences"] = json!({"hints": [{"name": "claude"}], "intelligencePriority": 0.5});
    }
    params
}

/// The method an answer write stands for, when it is one (its bytes hold the id token).
pub fn answer_method(write: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(write);
    let at = text.find(ANSWER_ID_PREFIX)? + ANSWER_ID_PREFIX.len();
    let method: String = text[at..].chars().take_while(|c| *c != '"').collect();
    (!method.is_empty()).then_some(method)
}

/// An answer write with the real id of the request it answers in place of its token.
pub fn with_id(write: &[u8], method: &str, id: &Value) -> Vec<u8> {
    let token = format!("\"{ANSWER_ID_PREFIX}{method}\"");
    String::from_utf8_lossy(write).replacen(&token, &id.to_string(), 1).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_deterministic_and_answers_name_their_method() {
        let schemas = SchemaSet::shared_builtin();
        let answers = vec![(
            "tools/list".to_owned(),
            json!({"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}),
        )];
        let g = ClientGenerator::new(Revision::V2025_11_25, &schemas, answers.clone(), None);
        let mut answered = 0;
        for i in 0..300 {
            let input = g.input(3, i);
            assert_eq!(input, g.input(3, i));
            assert!(!input.writes.is_empty());
            if let Some(method) = input.writes.iter().find_map(|w| answer_method(w)) {
                answered += 1;
                // A byte mutation may land in the token itself: that answer then answers nothing.
                assert!(
                    method == "tools/list" || input.label.contains("framing"),
                    "{method:?}: {}",
                    input.label
                );
            }
        }
        assert!(answered > 50, "{answered} answers in 300 inputs");
        let write = br#"{"jsonrpc":"2.0","id":"mcpspec-answer:tools/list","result":{}}"#;
        assert_eq!(answer_method(write).as_deref(), Some("tools/list"));
        assert_eq!(
            with_id(write, "tools/list", &json!(7)),
            br#"{"jsonrpc":"2.0","id":7,"result":{}}"#.to_vec()
        );
    }

    /// Over HTTP three inputs in five bend a response (and have no writes), and no answer's
    /// bytes are bent: a body is one JSON text.
    #[test]
    fn over_http_inputs_bend_responses_instead_of_bytes() {
        let schemas = SchemaSet::shared_builtin();
        let answers = vec![("tools/list".to_owned(), json!({"tools": []}))];
        let g = ClientGenerator::new(Revision::V2025_11_25, &schemas, answers, Some((Flavor::Streamable, 4)));
        let mut bent = 0;
        for i in 0..500 {
            let input = g.input(9, i);
            assert_eq!(input, g.input(9, i));
            assert!(!input.label.contains("framing"), "{}", input.label);
            match input.http.as_ref().and_then(|h| h.reply.as_ref()) {
                Some(bend) => {
                    bent += 1;
                    assert!(input.writes.is_empty());
                    assert!(bend.method == "GET" || bend.nth < 4, "{bend:?}");
                }
                None => assert!(!input.writes.is_empty()),
            }
        }
        assert!((250..350).contains(&bent), "{bent} bent responses in 500 inputs");
    }
}
