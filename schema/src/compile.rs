//! Turning one schema document into per-definition validators and the method tables that pick
//! a definition for a message.
//!
//! Everything the validator needs to know about a revision is derived from the document itself,
//! never from a hand-kept list: the method of each request and notification is the
//! `properties.method.const` of each member of the `ClientRequest`, `ServerRequest`,
//! `ClientNotification` and `ServerNotification` unions; the result of `FooRequest` is
//! `FooResult` (or `EmptyResult` when there is none, e.g. `ping`); a per-method definition that
//! does not require `jsonrpc` (up to 2025-06-18) is checked together with its envelope
//! (`JSONRPCRequest` / `JSONRPCNotification`); a request whose params accept `task`
//! (2025-11-25) may be answered with `CreateTaskResult`; and one whose `FooResultResponse`
//! admits `InputRequiredResult` (2026-07-28 on) may be answered with that.

use crate::SchemaError;
use jsonschema::Validator;
use mcpspec_protocol::Direction;
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::Path;

/// Index of a definition in [`Compiled::defs`].
pub(crate) type DefId = usize;

/// One compiled top-level definition.
pub(crate) struct Def {
    pub name: String,
    /// JSON pointer of the definition in its file, e.g. `/definitions/InitializeRequest`.
    pub pointer: String,
    pub validator: Validator,
}

/// A per-method definition and, when it lacks `jsonrpc`/`id`, the envelope to check as well.
#[derive(Clone, Copy)]
pub(crate) struct Entry {
    pub def: DefId,
    pub envelope: Option<DefId>,
}

/// How the result of one request method is judged.
#[derive(Clone, Copy)]
pub(crate) struct ResultRule {
    /// `FooResult`, or `EmptyResult` when the method has no result of its own.
    pub result: DefId,
    /// `CreateTaskResult`, when the request may be task-augmented (its params accept `task`).
    pub task: Option<DefId>,
    /// `InputRequiredResult`, when the method's `FooResultResponse` admits it (2026-07-28 on).
    pub input_required: Option<DefId>,
}

#[derive(Clone, Copy)]
pub(crate) struct RequestRule {
    pub request: Entry,
    pub result: ResultRule,
}

/// The methods one side may send.
#[derive(Default)]
pub(crate) struct Table {
    pub requests: HashMap<String, RequestRule>,
    pub notifications: HashMap<String, Entry>,
}

pub(crate) struct Compiled {
    pub defs: Vec<Def>,
    pub by_name: HashMap<String, DefId>,
    /// `[client-to-server, server-to-client]`.
    pub tables: [Table; 2],
    pub message: DefId,
    /// `JSONRPCResultResponse`, or `JSONRPCResponse` where that is the result response.
    pub result_envelope: DefId,
    /// `JSONRPCErrorResponse`, or `JSONRPCError` up to 2025-06-18.
    pub error: DefId,
    pub defs_key: &'static str,
    pub doc: Value,
    /// Each definition of `defs` (same order) with `format` not asserted: `format` is an
    /// annotation in JSON Schema 2020-12, so a value valid there but not under its validator
    /// breaks nothing but a format (see [`crate::Validation::FormatMismatch`]). Asking a
    /// validator, rather than sorting its errors, also gets `anyOf` right, whose alternatives
    /// may fail on a format. Compiled when a value first fails its validator: a clean run never
    /// needs them, and they cost as much memory as the validators (issue #31). `None`: they did
    /// not compile (the document compiled with formats, so this is not expected).
    structure: std::sync::OnceLock<Option<Vec<Validator>>>,
}

impl Compiled {
    /// [`Compiled::structure`]'s validator of `def`.
    pub(crate) fn structure(&self, def: DefId) -> Option<&Validator> {
        let all = self.structure.get_or_init(|| {
            let map = options(false).build_map(&self.doc).ok()?;
            self.defs.iter().map(|d| map.get(&format!("#{}", d.pointer)).cloned()).collect()
        });
        all.as_ref().and_then(|all| all.get(def))
    }
}

/// How a revision's definitions are compiled; `format` asserted when `formats`.
fn options(formats: bool) -> jsonschema::ValidationOptions<'static> {
    jsonschema::options().should_validate_formats(formats).with_format("byte", is_base64)
}

pub(crate) fn table_index(direction: Direction) -> usize {
    match direction {
        Direction::ClientToServer => 0,
        Direction::ServerToClient => 1,
    }
}

/// The OpenAPI `byte` format: base64 (RFC 4648 §4) with padding.
pub(crate) fn is_base64(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() % 4 != 0 {
        return false;
    }
    let pad = b.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return false;
    }
    b[..b.len() - pad].iter().all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
}

fn escape_pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// The definition name a local `$ref` points at (`#/definitions/X` or `#/$defs/X`).
pub(crate) fn ref_name(reference: &str) -> Option<&str> {
    let rest = reference.strip_prefix("#/definitions/").or_else(|| reference.strip_prefix("#/$defs/"))?;
    (!rest.contains('/')).then_some(rest)
}

pub(crate) fn compile(path: &Path, doc: Value) -> Result<Compiled, SchemaError> {
    let (defs_key, definitions) = match (doc.get("$defs"), doc.get("definitions")) {
        (Some(Value::Object(m)), _) => ("$defs", m),
        (_, Some(Value::Object(m))) => ("definitions", m),
        _ => return Err(SchemaError::NoDefinitions { path: path.to_owned() }),
    };
    let map = options(true).build_map(&doc).map_err(|e| SchemaError::Compile {
        path: path.to_owned(),
        message: format!("{} (at {})", e, e.schema_path().as_str()),
    })?;

    let mut defs = Vec::with_capacity(definitions.len());
    let mut by_name = HashMap::with_capacity(definitions.len());
    for name in definitions.keys() {
        let pointer = format!("/{defs_key}/{}", escape_pointer_token(name));
        let validator = map.get(&format!("#{pointer}")).cloned().ok_or_else(|| SchemaError::Compile {
            path: path.to_owned(),
            message: format!("the definition `{name}` produced no validator"),
        })?;
        by_name.insert(name.clone(), defs.len());
        defs.push(Def { name: name.clone(), pointer, validator });
    }

    let b = Builder { path, definitions, by_name: &by_name, defs: &defs };
    let message = b.require("JSONRPCMessage", "any message")?;
    let request_env = b.require("JSONRPCRequest", "requests")?;
    let notification_env = b.require("JSONRPCNotification", "notifications")?;
    let result_envelope = b
        .find("JSONRPCResultResponse")
        .map_or_else(|| b.require("JSONRPCResponse", "result responses"), Ok)?;
    let error =
        b.find("JSONRPCErrorResponse").map_or_else(|| b.require("JSONRPCError", "error responses"), Ok)?;
    b.require("ClientRequest", "client requests")?;
    b.require("ClientNotification", "client notifications")?;
    b.require("ServerNotification", "server notifications")?;

    let task = b.find("CreateTaskResult");
    let input_required = b.find("InputRequiredResult");
    let empty = b.find("EmptyResult").or_else(|| b.find("Result"));
    let mut tables = [Table::default(), Table::default()];
    for (union, index) in [("ClientRequest", 0), ("ServerRequest", 1)] {
        for (method, def) in b.members(union) {
            let stem = b.defs_name(def).strip_suffix("Request").unwrap_or_default();
            let result = match b.find(&format!("{stem}Result")).or(empty) {
                Some(result) => result,
                None => {
                    return Err(SchemaError::MissingDefinition {
                        path: path.to_owned(),
                        name: format!("{stem}Result"),
                        purpose: "results",
                    })
                }
            };
            let rule = RequestRule {
                request: Entry { def, envelope: b.envelope(def, request_env) },
                result: ResultRule {
                    result,
                    task: task.filter(|_| b.params_accept_task(def)),
                    input_required: input_required
                        .filter(|&i| b.response_admits(&format!("{stem}ResultResponse"), i)),
                },
            };
            tables[index].requests.insert(method, rule);
        }
    }
    for (union, index) in [("ClientNotification", 0), ("ServerNotification", 1)] {
        for (method, def) in b.members(union) {
            let entry = Entry { def, envelope: b.envelope(def, notification_env) };
            tables[index].notifications.insert(method, entry);
        }
    }

    Ok(Compiled {
        defs,
        by_name,
        tables,
        message,
        result_envelope,
        error,
        defs_key,
        doc,
        structure: std::sync::OnceLock::new(),
    })
}

struct Builder<'a> {
    path: &'a Path,
    definitions: &'a Map<String, Value>,
    by_name: &'a HashMap<String, DefId>,
    defs: &'a [Def],
}

impl Builder<'_> {
    fn find(&self, name: &str) -> Option<DefId> {
        self.by_name.get(name).copied()
    }

    fn require(&self, name: &str, purpose: &'static str) -> Result<DefId, SchemaError> {
        self.find(name).ok_or_else(|| SchemaError::MissingDefinition {
            path: self.path.to_owned(),
            name: name.to_owned(),
            purpose,
        })
    }

    fn defs_name(&self, id: DefId) -> &str {
        &self.defs[id].name
    }

    fn schema(&self, id: DefId) -> &Value {
        &self.definitions[self.defs_name(id)]
    }

    /// `(method, definition)` for each member of a union such as `ClientRequest`. A union may
    /// also be a single inline shape (2026-07-28's `ClientNotification`): then it is its own
    /// member.
    fn members(&self, union: &str) -> Vec<(String, DefId)> {
        let Some(&id) = self.by_name.get(union) else {
            return Vec::new();
        };
        let schema = &self.definitions[union];
        let targets: Vec<DefId> = match schema.get("anyOf").or_else(|| schema.get("oneOf")) {
            Some(Value::Array(alternatives)) => alternatives
                .iter()
                .filter_map(|a| a.get("$ref")?.as_str())
                .filter_map(ref_name)
                .filter_map(|n| self.find(n))
                .collect(),
            _ => match schema.get("$ref").and_then(Value::as_str).and_then(ref_name) {
                Some(n) => self.find(n).into_iter().collect(),
                // An inline shape: name it after an identical definition when there is one
                // (2026-07-28's `ClientNotification` is `CancelledNotification` written out).
                None => {
                    let twin = self
                        .definitions
                        .iter()
                        .find(|(name, s)| name.as_str() != union && *s == schema)
                        .and_then(|(name, _)| self.find(name));
                    vec![twin.unwrap_or(id)]
                }
            },
        };
        targets
            .into_iter()
            .filter_map(|def| {
                let method = self.schema(def).pointer("/properties/method")?;
                let method =
                    method.get("const").or_else(|| method.get("enum")?.as_array()?.first())?.as_str()?;
                Some((method.to_owned(), def))
            })
            .collect()
    }

    /// The envelope to check with `def`, unless `def` already requires `jsonrpc` itself.
    fn envelope(&self, def: DefId, envelope: DefId) -> Option<DefId> {
        let requires_jsonrpc = self
            .schema(def)
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|r| r.iter().any(|v| v == "jsonrpc"));
        (!requires_jsonrpc).then_some(envelope)
    }

    fn resolve<'v>(&'v self, schema: &'v Value) -> &'v Value {
        let mut schema = schema;
        for _ in 0..8 {
            match schema.get("$ref").and_then(Value::as_str).and_then(ref_name) {
                Some(name) => match self.definitions.get(name) {
                    Some(target) => schema = target,
                    None => break,
                },
                None => break,
            }
        }
        schema
    }

    /// Whether the `result` of the result-response definition `response` admits definition `id`
    /// as an alternative (`CallToolResultResponse` admits `InputRequiredResult`).
    fn response_admits(&self, response: &str, id: DefId) -> bool {
        let Some(result) = self.definitions.get(response).and_then(|r| r.pointer("/properties/result"))
        else {
            return false;
        };
        let wanted = self.defs_name(id);
        let names_it = |s: &Value| s.get("$ref").and_then(Value::as_str).and_then(ref_name) == Some(wanted);
        names_it(result)
            || ["anyOf", "oneOf"].iter().any(|k| {
                result.get(*k).and_then(Value::as_array).is_some_and(|alts| alts.iter().any(names_it))
            })
    }

    /// Whether the params of request `def` accept a `task` member (task augmentation).
    fn params_accept_task(&self, def: DefId) -> bool {
        let Some(params) = self.schema(def).pointer("/properties/params") else {
            return false;
        };
        let params = self.resolve(params);
        let has_task = |s: &Value| s.pointer("/properties/task").is_some();
        if has_task(params) {
            return true;
        }
        ["anyOf", "oneOf", "allOf"].iter().any(|k| {
            params
                .get(*k)
                .and_then(Value::as_array)
                .is_some_and(|alts| alts.iter().any(|a| has_task(self.resolve(a))))
        })
    }
}
