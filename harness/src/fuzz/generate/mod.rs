//! Inputs for a campaign.
//!
//! [`Generator::input`] is a pure function of `(seed, index, corpus)` and the catalog: the
//! same arguments give the same bytes, whichever worker or shard asks, so a campaign replays
//! from its seed and `--shard I/N` needs no coordination. The random stream of input `index`
//! is ChaCha8 seeded with `seed`, on stream `index` (portable and stable across releases).
//!
//! Inputs are of four kinds ([`Kind`]), drawn with fixed weights (see [`KIND_WEIGHTS`]):
//! - generated: a valid request or notification of the revision, from our own schema
//!   (`schema_values.rs`) and the catalog (tools with arguments from their `inputSchema`,
//!   prompts, resources and templates, completions, list pages);
//! - structural: such a message with one [`Mutation`] (`mutate.rs`);
//! - framing: its bytes with one [`Framing`] mutation (`framing.rs`);
//! - sequence: a stateful [`Sequence`] (cancel races, id reuse, floods, batches, broken
//!   handshakes; `sequences.rs`).
//!
//! With a corpus, a third of the inputs mutate one of its entries instead: structurally (seven
//! times in ten) when its writes are JSON messages, at the byte level otherwise.
//!
//! Ids: a request the generator does not mean to collide gets an id no other input uses
//! (`index * 1000 + k`, or the string `"i{index}.{k}"`); ids that collide, are reused, or sit
//! at the edges of what an id may hold are the point of the inputs that send them. Ids starting
//! with `mcpspec-` are the driver's (its barriers and handshake) and never generated.

pub mod client;
mod framing;
mod http;
mod mutate;
mod reply;
mod schema_values;
mod sequences;

pub use framing::Framing;
pub use http::HttpMutation;
pub use mutate::Mutation;
pub use sequences::Sequence;

use super::{Catalog, HttpShape, Input};
use mcpspec_protocol::framing::encode;
use mcpspec_protocol::{modern, Era, Revision};
use mcpspec_schema::SchemaSet;
use rand::distr::weighted::WeightedIndex;
use rand::seq::IndexedRandom;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use schema_values::SchemaValues;
use serde_json::{json, Map, Value};
use std::sync::Arc;

/// What an input is, for tests and statistics (the label says it to people).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// A valid message of the revision.
    Generated,
    Structural(Mutation),
    Framing(Framing),
    Sequence(Sequence),
    /// Over HTTP only: a valid message with the HTTP layer bent (`http.rs`).
    Http(HttpMutation),
}

/// The weights of the four kinds (per 1 000 inputs), split among their variants by the
/// variants' own weights.
pub const KIND_WEIGHTS: [(&str, u32); 4] =
    [("generated", 300), ("structural", 300), ("framing", 200), ("sequence", 200)];

/// The weight of HTTP mutations over HTTP, against the 1 000 of the four kinds: a third of the
/// inputs bend the HTTP layer, the rest reach the server's message handling as over stdio.
pub const HTTP_WEIGHT: u32 = 500;

/// One generated input and how it was made.
#[derive(Debug, Clone, PartialEq)]
pub struct Generated {
    pub input: Input,
    pub kind: Kind,
    /// Whether the input mutates a corpus entry.
    pub from_corpus: bool,
}

/// Builds inputs from what the implementation advertised.
pub struct Generator {
    catalog: Catalog,
    schemas: Arc<SchemaSet>,
    revision: Revision,
    /// The `_meta` every modern request carries; `None` in the legacy era.
    meta: Option<Value>,
    destructive: bool,
    /// The revision's schema document (what `$ref`s resolve in).
    document: Value,
    /// Client requests and notifications of the revision, from its schema.
    methods: Vec<MethodTemplate>,
    /// Tools that may be called: not destructive unless asked for.
    tools: Vec<Tool>,
    sources: Table<Source>,
    kinds: Table<Kind>,
    mutations: Table<Mutation>,
    framings: Table<Framing>,
}

/// A client request or notification as the schema defines it.
#[derive(Debug, Clone)]
struct MethodTemplate {
    method: String,
    request: bool,
    /// The schema of `params` (often a `$ref`).
    params: Option<Value>,
    params_required: bool,
}

#[derive(Debug, Clone)]
struct Tool {
    name: String,
    input_schema: Value,
    /// Arguments its author most likely had in mind (`arguments::example_object`).
    example: Value,
}

/// Where a valid message comes from.
#[derive(Debug, Clone, Copy)]
enum Source {
    Method(usize),
    CallTool,
    GetPrompt,
    ReadResource,
    Complete,
    ListPage,
}

/// Items drawn with weights.
#[derive(Debug, Clone)]
struct Table<T> {
    items: Vec<T>,
    index: WeightedIndex<u32>,
}

impl<T: Copy> Table<T> {
    fn new(weighted: impl IntoIterator<Item = (T, u32)>) -> Table<T> {
        let (items, weights): (Vec<T>, Vec<u32>) = weighted.into_iter().filter(|(_, w)| *w > 0).unzip();
        let index = WeightedIndex::new(&weights).expect("every table has an item of positive weight");
        Table { items, index }
    }

    fn draw(&self, rng: &mut ChaCha8Rng) -> T {
        self.items[rng.sample(&self.index)]
    }
}

/// The state of one input's generation: its random stream and the ids it handed out.
struct Draw {
    rng: ChaCha8Rng,
    index: u64,
    ids: u64,
}

impl Draw {
    /// An id no other input uses.
    fn id(&mut self) -> Value {
        let k = self.ids;
        self.ids += 1;
        let number =
            self.index.checked_mul(1000).and_then(|n| n.checked_add(k)).filter(|n| *n <= i64::MAX as u64);
        match number {
            Some(n) if k < 1000 && !self.rng.random_bool(0.25) => json!(n),
            _ => json!(format!("i{}.{k}", self.index)),
        }
    }
}

/// A valid message and what it is.
struct Valid {
    message: Value,
    label: String,
}

/// Methods that list, and may be given a cursor.
const LIST_METHODS: [&str; 5] =
    ["tools/list", "prompts/list", "resources/list", "resources/templates/list", "tasks/list"];

/// Cursors a server never handed out.
const CURSORS: [&str; 6] = ["", "bogus", "eyJvZmZzZXQiOjEwMDAwMDB9", "0", "-1", "🦀"];

impl Generator {
    pub fn new(catalog: Catalog, schemas: Arc<SchemaSet>) -> Generator {
        let revision = catalog.revision.unwrap_or_else(Revision::latest_legacy);
        let document = schemas.get(revision).map(|s| s.document().clone()).unwrap_or(Value::Null);
        let mut methods = client_methods(&document);
        if methods.is_empty() {
            // No schema for the revision: requests every revision of the era has.
            let fallback = if revision.era() == Era::Modern { "tools/list" } else { "ping" };
            methods.push(MethodTemplate {
                method: fallback.into(),
                request: true,
                params: None,
                params_required: false,
            });
        }
        let meta = (revision.era() == Era::Modern).then(|| {
            let info = json!({"name": "mcpspec-fuzz", "version": env!("CARGO_PKG_VERSION")});
            modern::request_meta(modern::wire_version(revision), &json!({}), Some(&info))
        });
        let tools = callable_tools(&catalog, false);
        Generator {
            sources: source_table(&methods, &catalog, &tools),
            tools,
            kinds: kind_table(revision.era(), false),
            mutations: Table::new(Mutation::WEIGHTED),
            framings: Table::new(Framing::WEIGHTED),
            catalog,
            schemas,
            revision,
            meta,
            destructive: false,
            document,
            methods,
        }
    }

    /// Whether tools whose `annotations.destructiveHint` is true are called (not by default).
    pub fn with_destructive(mut self, destructive: bool) -> Generator {
        self.destructive = destructive;
        self.tools = callable_tools(&self.catalog, destructive);
        self.sources = source_table(&self.methods, &self.catalog, &self.tools);
        self
    }

    /// Whether the campaign runs over HTTP: HTTP mutations join the kinds ([`HTTP_WEIGHT`]).
    pub fn with_http(mut self, http: bool) -> Generator {
        self.kinds = kind_table(self.revision.era(), http);
        self
    }

    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// The schemas inputs are generated from.
    pub fn schemas(&self) -> &Arc<SchemaSet> {
        &self.schemas
    }

    /// Input number `index` of the campaign seeded with `seed`, drawing on `corpus` (inputs
    /// kept from earlier runs, mutated as seeds) as well as on the catalog and the schemas.
    pub fn input(&self, seed: u64, index: u64, corpus: &[Input]) -> Input {
        self.generate(seed, index, corpus).input
    }

    /// [`Generator::input`] with how the input was made.
    pub fn generate(&self, seed: u64, index: u64, corpus: &[Input]) -> Generated {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(index);
        let mut d = Draw { rng, index, ids: 0 };
        if !corpus.is_empty() && d.rng.random_ratio(1, 3) {
            let entry = &corpus[d.rng.random_range(0..corpus.len())];
            let (input, kind) = self.mutate_entry(entry, &mut d);
            return Generated { input, kind, from_corpus: true };
        }
        let kind = self.kinds.draw(&mut d.rng);
        let input = match kind {
            Kind::Generated => {
                let valid = self.valid(&mut d);
                Input::messages(valid.label, &[valid.message])
            }
            Kind::Structural(mutation) => {
                let valid = self.valid(&mut d);
                let (line, what) = mutate::mutate(&valid.message, mutation, &mut d.rng);
                Input {
                    label: format!("{}: {what}", valid.label),
                    writes: vec![line],
                    fresh: false,
                    http: None,
                }
            }
            Kind::Framing(framing) => {
                let count = if framing == Framing::CoalescedWrites { d.rng.random_range(2..=5) } else { 1 };
                let valid: Vec<Valid> = (0..count).map(|_| self.valid(&mut d)).collect();
                let lines = valid.iter().map(|v| encode(&v.message)).collect();
                let (writes, what) = framing::apply(framing, lines, 0, &mut d.rng);
                Input {
                    label: format!("framing: {what} ({})", valid[0].label),
                    writes,
                    fresh: false,
                    http: None,
                }
            }
            Kind::Sequence(sequence) => self.sequence(sequence, &mut d),
            Kind::Http(mutation) => self.bent(mutation, &mut d),
        };
        Generated { input, kind, from_corpus: false }
    }

    /// A valid message with the HTTP layer bent, or a churn of sessions.
    fn bent(&self, mutation: HttpMutation, d: &mut Draw) -> Input {
        match http::shape(mutation, &mut d.rng) {
            Some(shape) => {
                let valid = self.valid(d);
                let label = format!("{} over HTTP: {}", valid.label, shape.describe());
                Input { http: Some(shape), ..Input::messages(label, &[valid.message]) }
            }
            None => {
                let count = http::churn_count(&mut d.rng);
                let sessions: Vec<Value> = (0..count).map(|_| self.initialize(d)).collect();
                let label = format!("fresh: {count} sessions opened, none ended");
                // Without the session header, each `initialize` opens a session of its own.
                let shape = HttpShape {
                    headers: vec![("mcp-session-id".into(), String::new())],
                    ..HttpShape::default()
                };
                Input { fresh: true, http: Some(shape), ..Input::messages(label, &sessions) }
            }
        }
    }

    /// A corpus entry mutated: one of its messages structurally when its writes are whole
    /// JSON messages, one of its writes at the byte level otherwise.
    fn mutate_entry(&self, entry: &Input, d: &mut Draw) -> (Input, Kind) {
        let messages: Option<Vec<Value>> = entry
            .writes
            .iter()
            .map(|w| w.strip_suffix(b"\n").and_then(|line| serde_json::from_slice::<Value>(line).ok()))
            .collect();
        let origin: String = entry.label.chars().take(60).collect();
        let target = d.rng.random_range(0..entry.writes.len().max(1));
        match messages.filter(|m| !m.is_empty() && d.rng.random_bool(0.7)) {
            Some(messages) => {
                let mutation = self.mutations.draw(&mut d.rng);
                let (line, what) = mutate::mutate(&messages[target], mutation, &mut d.rng);
                let mut writes = entry.writes.clone();
                writes[target] = line;
                let label = format!("corpus ({origin}): {what}");
                (
                    Input { label, writes, fresh: entry.fresh, http: entry.http.clone() },
                    Kind::Structural(mutation),
                )
            }
            None => {
                let framing = self.framings.draw(&mut d.rng);
                let (writes, what) = framing::apply(framing, entry.writes.clone(), target, &mut d.rng);
                let label = format!("corpus ({origin}): framing: {what}");
                (
                    Input { label, writes, fresh: entry.fresh, http: entry.http.clone() },
                    Kind::Framing(framing),
                )
            }
        }
    }

    /// A valid message of the revision.
    fn valid(&self, d: &mut Draw) -> Valid {
        match self.sources.draw(&mut d.rng) {
            Source::Method(i) => self.schema_message(&self.methods[i], d),
            Source::CallTool => self.call_tool(d),
            Source::GetPrompt => self.get_prompt(d),
            Source::ReadResource => self.read_resource(d),
            Source::Complete => self.complete(d),
            Source::ListPage => self.list_page(d),
        }
    }

    /// A valid request (a notification drawn is drawn again; `ping` or `tools/list` at last).
    fn valid_request(&self, d: &mut Draw) -> Valid {
        for _ in 0..8 {
            let valid = self.valid(d);
            if valid.message.get("id").is_some() {
                return valid;
            }
        }
        self.cheap_request(d)
    }

    /// The cheapest request of the era.
    fn cheap_request(&self, d: &mut Draw) -> Valid {
        let method = if self.meta.is_some() { "tools/list" } else { "ping" };
        let id = d.id();
        Valid { message: self.request(method, None, id), label: method.to_owned() }
    }

    fn schema_message(&self, template: &MethodTemplate, d: &mut Draw) -> Valid {
        let values = SchemaValues { root: &self.document, edge_rate: 0.1, optional_rate: 0.3 };
        let params = template
            .params
            .as_ref()
            .filter(|_| template.params_required || d.rng.random_bool(0.7))
            .map(|schema| values.value(schema, &mut d.rng))
            .map(|mut params| {
                if let Some(version) = params.get_mut("protocolVersion") {
                    *version = json!(self.revision.as_str());
                }
                // Subscriptions to resources the server has reach further than to made-up ones.
                let advertised = self.catalog.resources.choose(&mut d.rng).and_then(|r| r.get("uri"));
                if let (Some(uri), Some(advertised)) = (params.get_mut("uri"), advertised) {
                    if d.rng.random_bool(0.7) {
                        *uri = advertised.clone();
                    }
                }
                params
            });
        let message = if template.request {
            let id = d.id();
            let params = match params {
                // A legacy request may ask for progress.
                Some(Value::Object(mut p)) if self.meta.is_none() && d.rng.random_bool(0.1) => {
                    p.insert("_meta".into(), json!({"progressToken": format!("p{}", d.index)}));
                    Some(Value::Object(p))
                }
                other => other,
            };
            self.request(&template.method, params, id)
        } else {
            notification(&template.method, params)
        };
        Valid { message, label: template.method.clone() }
    }

    fn call_tool(&self, d: &mut Draw) -> Valid {
        let tool = self.tools.choose(&mut d.rng).expect("drawn only with tools");
        let arguments = if d.rng.random_bool(0.25) {
            tool.example.clone()
        } else {
            let values = SchemaValues { root: &tool.input_schema, edge_rate: 0.3, optional_rate: 0.5 };
            match values.value(&tool.input_schema, &mut d.rng) {
                v @ Value::Object(_) => v,
                _ => json!({}),
            }
        };
        let id = d.id();
        let params = json!({"name": tool.name, "arguments": arguments});
        Valid {
            message: self.request("tools/call", Some(params), id),
            label: format!("tools/call {}", tool.name),
        }
    }

    fn get_prompt(&self, d: &mut Draw) -> Valid {
        let prompt = self.catalog.prompts.choose(&mut d.rng).expect("drawn only with prompts");
        let name = prompt.get("name").and_then(Value::as_str).unwrap_or_default();
        let mut arguments = Map::new();
        for argument in prompt.get("arguments").and_then(Value::as_array).into_iter().flatten() {
            let Some(arg) = argument.get("name").and_then(Value::as_str) else { continue };
            let required = argument.get("required").and_then(Value::as_bool).unwrap_or(false);
            if required || d.rng.random_bool(0.5) {
                arguments.insert(arg.to_owned(), json!(argument_value(&mut d.rng)));
            }
        }
        let mut params = json!({"name": name});
        if !arguments.is_empty() || d.rng.random_bool(0.5) {
            params["arguments"] = Value::Object(arguments);
        }
        let id = d.id();
        Valid { message: self.request("prompts/get", Some(params), id), label: format!("prompts/get {name}") }
    }

    fn read_resource(&self, d: &mut Draw) -> Valid {
        let from_template = self.catalog.resources.is_empty()
            || (!self.catalog.templates.is_empty() && d.rng.random_bool(0.4));
        let uri = if from_template {
            let template = self.catalog.templates.choose(&mut d.rng).expect("drawn with a template");
            fill_template(template.get("uriTemplate").and_then(Value::as_str).unwrap_or_default(), &mut d.rng)
        } else {
            let resource = self.catalog.resources.choose(&mut d.rng).expect("drawn with a resource");
            resource.get("uri").and_then(Value::as_str).unwrap_or_default().to_owned()
        };
        let id = d.id();
        let label = format!("resources/read {}", uri.chars().take(80).collect::<String>());
        Valid { message: self.request("resources/read", Some(json!({"uri": uri})), id), label }
    }

    fn complete(&self, d: &mut Draw) -> Valid {
        let use_template =
            self.catalog.prompts.is_empty() || (!self.catalog.templates.is_empty() && d.rng.random_bool(0.5));
        let (reference, argument, label) = if use_template {
            let template = self.catalog.templates.choose(&mut d.rng).expect("drawn with a template");
            let uri = template.get("uriTemplate").and_then(Value::as_str).unwrap_or_default();
            let variable = mcpspec_protocol::arguments::template_variables(uri)
                .choose(&mut d.rng)
                .cloned()
                .unwrap_or_default();
            let label = format!("completion/complete {uri} {variable}");
            (json!({"type": "ref/resource", "uri": uri}), variable, label)
        } else {
            let prompt = self.catalog.prompts.choose(&mut d.rng).expect("drawn with a prompt");
            let name = prompt.get("name").and_then(Value::as_str).unwrap_or_default();
            let arguments =
                prompt.get("arguments").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let argument = arguments
                .choose(&mut d.rng)
                .and_then(|a| a.get("name"))
                .and_then(Value::as_str)
                .unwrap_or("mcpspec")
                .to_owned();
            let label = format!("completion/complete {name} {argument}");
            (json!({"type": "ref/prompt", "name": name}), argument, label)
        };
        let value = argument_value(&mut d.rng);
        let params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
        let id = d.id();
        Valid { message: self.request("completion/complete", Some(params), id), label }
    }

    fn list_page(&self, d: &mut Draw) -> Valid {
        let known: Vec<&str> =
            LIST_METHODS.into_iter().filter(|m| self.methods.iter().any(|t| t.method == *m)).collect();
        let method = known.choose(&mut d.rng).copied().unwrap_or("tools/list");
        let cursor = CURSORS.choose(&mut d.rng).copied().filter(|_| d.rng.random_bool(0.7));
        let id = d.id();
        let (params, label) = match cursor {
            Some(cursor) => (Some(json!({"cursor": cursor})), format!("{method} cursor {cursor:?}")),
            None => (None, format!("{method} without cursor")),
        };
        Valid { message: self.request(method, params, id), label }
    }

    /// A request of the revision: in the modern era its params carry the request `_meta`.
    fn request(&self, method: &str, params: Option<Value>, id: Value) -> Value {
        let params = match &self.meta {
            Some(meta) => Some(modern::with_request_meta(params, meta)),
            None => params,
        };
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(params) = params {
            message["params"] = params;
        }
        message
    }
}

/// The tools that may be called: not destructive ones unless `destructive`.
fn callable_tools(catalog: &Catalog, destructive: bool) -> Vec<Tool> {
    catalog
        .tools
        .iter()
        .filter(|t| destructive || !is_destructive(t))
        .filter_map(|t| {
            let name = t.get("name")?.as_str()?.to_owned();
            let input_schema = t.get("inputSchema").cloned().unwrap_or_else(|| json!({"type": "object"}));
            let example = mcpspec_protocol::arguments::example_object(&input_schema);
            Some(Tool { name, input_schema, example })
        })
        .collect()
}

/// Where valid messages come from, weighted: every method of the schema, and the catalog's
/// tools, prompts, resources, completions and list pages where the revision has the method.
fn source_table(methods: &[MethodTemplate], catalog: &Catalog, tools: &[Tool]) -> Table<Source> {
    let knows = |m: &str| methods.iter().any(|t| t.method == m);
    let weight = |present: bool, method: &str, w: u32| if present && knows(method) { w } else { 0 };
    let readable = !(catalog.resources.is_empty() && catalog.templates.is_empty());
    let completable = !(catalog.prompts.is_empty() && catalog.templates.is_empty());
    let mut sources: Vec<(Source, u32)> = (0..methods.len()).map(|i| (Source::Method(i), 3)).collect();
    sources.extend([
        (Source::CallTool, weight(!tools.is_empty(), "tools/call", 40)),
        (Source::GetPrompt, weight(!catalog.prompts.is_empty(), "prompts/get", 12)),
        (Source::ReadResource, weight(readable, "resources/read", 12)),
        (Source::Complete, weight(completable, "completion/complete", 8)),
        (Source::ListPage, if LIST_METHODS.iter().any(|m| knows(m)) { 8 } else { 0 }),
    ]);
    Table::new(sources)
}

/// A notification (never with a request `_meta`).
fn notification(method: &str, params: Option<Value>) -> Value {
    let mut message = json!({"jsonrpc": "2.0", "method": method});
    if let Some(params) = params {
        message["params"] = params;
    }
    message
}

/// The weighted kinds of an era (sequences that only make sense in the other era weigh 0).
fn kind_table(era: Era, http: bool) -> Table<Kind> {
    let [generated, structural, framing, sequence] = KIND_WEIGHTS.map(|(_, w)| w);
    let share =
        |weights: &[u32], own: u32, total: u32| (own * total).div_ceil(weights.iter().sum::<u32>().max(1));
    let mutation_weights: Vec<u32> = Mutation::WEIGHTED.iter().map(|(_, w)| *w).collect();
    let framing_weights: Vec<u32> = Framing::WEIGHTED.iter().map(|(_, w)| *w).collect();
    let sequences = Sequence::weighted(era);
    let sequence_weights: Vec<u32> = sequences.iter().map(|(_, w)| *w).collect();
    // Weights are scaled by 100 so small variants keep their share after the split.
    let mut kinds = vec![(Kind::Generated, generated * 100)];
    kinds.extend(
        Mutation::WEIGHTED
            .iter()
            .map(|(m, w)| (Kind::Structural(*m), share(&mutation_weights, *w, structural * 100))),
    );
    kinds.extend(
        Framing::WEIGHTED
            .iter()
            .map(|(f, w)| (Kind::Framing(*f), share(&framing_weights, *w, framing * 100))),
    );
    kinds.extend(
        sequences.iter().map(|(s, w)| (Kind::Sequence(*s), share(&sequence_weights, *w, sequence * 100))),
    );
    if http {
        let http_weights: Vec<u32> = HttpMutation::WEIGHTED.iter().map(|(_, w)| *w).collect();
        kinds.extend(
            HttpMutation::WEIGHTED
                .iter()
                .map(|(m, w)| (Kind::Http(*m), share(&http_weights, *w, HTTP_WEIGHT * 100))),
        );
    }
    Table::new(kinds)
}

/// The client requests and notifications of a schema document, from its `ClientRequest` and
/// `ClientNotification` unions: each member's `method` const and `params` schema.
fn client_methods(document: &Value) -> Vec<MethodTemplate> {
    methods_of(document, "ClientRequest", "ClientNotification")
}

/// The requests and notifications of the schema's unions `requests` and `notifications`.
fn methods_of(document: &Value, requests: &str, notifications: &str) -> Vec<MethodTemplate> {
    let defs = document.get("$defs").or_else(|| document.get("definitions"));
    let mut out = Vec::new();
    for (union, request) in [(requests, true), (notifications, false)] {
        let Some(union) = defs.and_then(|d| d.get(union)) else { continue };
        let members: Vec<&Value> = match union.get("anyOf").or_else(|| union.get("oneOf")) {
            Some(Value::Array(members)) => members.iter().collect(),
            _ => vec![union],
        };
        for member in members {
            let resolved = member
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix('#'))
                .and_then(|p| document.pointer(p))
                .unwrap_or(member);
            let Some(method) = resolved.pointer("/properties/method/const").and_then(Value::as_str) else {
                continue;
            };
            let required = resolved.get("required").and_then(Value::as_array);
            out.push(MethodTemplate {
                method: method.to_owned(),
                request,
                params: resolved.pointer("/properties/params").cloned(),
                params_required: required.is_some_and(|r| r.iter().any(|k| k == "params")),
            });
        }
    }
    out
}

fn is_destructive(tool: &Value) -> bool {
    tool.pointer("/annotations/destructiveHint").and_then(Value::as_bool) == Some(true)
}

/// A string for a prompt argument or a completion: ordinary mostly, at the edges sometimes.
fn argument_value(rng: &mut ChaCha8Rng) -> String {
    if rng.random_bool(0.3) {
        mutate::edge_string(rng).to_owned()
    } else {
        ["a", "hello", "mcpspec", "42"].choose(rng).copied().unwrap_or_default().to_owned()
    }
}

/// Values put into URI templates: likely ones, and some that escape their segment.
const TEMPLATE_VALUES: [&str; 9] = ["1", "mcpspec", "0", "-1", "..", "a/b", "%2e%2e%2f", "", "🦀"];

/// A URI from a template, each expression replaced by one of [`TEMPLATE_VALUES`] (as is: the
/// odd ones are meant to reach the server unescaped).
fn fill_template(template: &str, rng: &mut ChaCha8Rng) -> String {
    let mut out = String::with_capacity(template.len() + 8);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else { break };
        let value =
            if rng.random_bool(0.6) { "1" } else { TEMPLATE_VALUES.choose(rng).copied().unwrap_or("1") };
        out.push_str(value);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests;
