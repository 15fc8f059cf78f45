//! JSON Schema validation of MCP messages, per revision.
//!
//! A [`SchemaSet`] holds one compiled [`RevisionSchema`] per revision, loaded from a directory
//! laid out as `<dir>/<revision>/schema.json` ([`SchemaSet::from_dir`]). Each file is compiled
//! once into one validator per definition; [`RevisionSchema::validate`] then picks the
//! definition a message must satisfy — from its `method` and direction (requests,
//! notifications), from the method of the request it answers (results), or the JSON-RPC error
//! definition (error responses) — and reports violations with JSON-pointer paths into the
//! message and into the schema file. How definitions are picked is derived from each file (see
//! `compile.rs`), so a user-supplied directory works the same as the official files.
//!
//! [`SchemaSet::builtin`] holds mcpspec's own schemas for every revision, generated from one
//! source of truth ([`own`], `schema/defs`) and proven to judge like the official files
//! (`tests/schemas/differential.rs`). [`StreamValidator`] validates a sequence of messages,
//! matching each result to its request and splitting batches.
//!
//! The schemas cannot express envelope rules such as "never both `result` and `error`"
//! (`docs/specification/<rev>/basic/index.mdx`); those belong to the session checker. A message
//! with both is checked as an error response.

mod compile;
mod error;
mod explain;
pub mod own;
mod stream;

pub use error::SchemaError;
pub use stream::{LineOutcome, StreamValidator};

use compile::{table_index, Compiled, DefId, Entry, ResultRule};
use mcpspec_protocol::{Direction, Revision};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Compiled schemas for one or more revisions. Cheap to share behind an `Arc`.
pub struct SchemaSet {
    /// Sorted by revision, at most one per revision.
    schemas: Vec<Slot>,
}

/// One revision of a set: compiled at once (schemas read from files, whose errors are the
/// loader's to report), or — the built-in ones, proven to compile by the tests — on first use,
/// so a run pays time and memory only for the revisions it meets.
struct Slot {
    revision: Revision,
    compiled: std::sync::OnceLock<RevisionSchema>,
    /// The built-in schema's text, while not yet compiled.
    builtin: Option<&'static str>,
}

impl Slot {
    fn compiled(schema: RevisionSchema) -> Slot {
        Slot { revision: schema.revision, compiled: std::sync::OnceLock::from(schema), builtin: None }
    }

    fn schema(&self) -> &RevisionSchema {
        self.compiled.get_or_init(|| {
            let text = self.builtin.expect("a slot without a schema holds the built-in text");
            let doc = serde_json::from_str(text).expect("generated schemas are JSON");
            let origin = format!("<builtin>/{}/schema.json", self.revision.as_str());
            RevisionSchema::from_value(self.revision, origin, doc)
                .expect("generated schemas compile (tested)")
        })
    }
}

/// The compiled schema of one revision.
pub struct RevisionSchema {
    revision: Revision,
    origin: PathBuf,
    compiled: Compiled,
}

/// What validating one message found.
#[derive(Debug, Clone, PartialEq)]
pub enum Validation {
    /// Valid against `definition` (e.g. `InitializeRequest`).
    Valid { definition: String },
    /// Invalid against `definition`.
    Invalid { definition: String, violations: Vec<Violation> },
    /// Valid against `definition` in structure, but strings that do not match their `format`
    /// (`uri`, `date-time`, …), one violation each. `format` is an annotation in JSON Schema
    /// 2020-12, which common validators do not assert: a defect to report (SHOULD), not an
    /// invalid message.
    FormatMismatch { definition: String, violations: Vec<Violation> },
    /// The method is not part of this revision in this direction.
    UnknownMethod { method: String },
    /// The message could not be matched to any definition (e.g. a result whose request is not
    /// known); says why.
    Unmatched { reason: String },
}

impl Validation {
    /// Valid, formats included.
    pub fn is_valid(&self) -> bool {
        matches!(self, Validation::Valid { .. })
    }

    /// Valid when `format` is taken as the annotation it is: [`Validation::Valid`] or
    /// [`Validation::FormatMismatch`].
    pub fn is_structurally_valid(&self) -> bool {
        matches!(self, Validation::Valid { .. } | Validation::FormatMismatch { .. })
    }
}

/// One schema violation.
#[derive(Debug, Clone, PartialEq)]
pub struct Violation {
    /// JSON pointer into the message, e.g. `/result/protocolVersion`.
    pub instance_path: String,
    /// JSON pointer into the schema, e.g. `/$defs/InitializeResult/required`.
    pub schema_path: String,
    pub message: String,
    /// The format the value does not match (`uri`, `date-time`, …), when that is all this
    /// violation is about.
    pub format: Option<String>,
}

/// `at /params/protocolVersion: 3 is not of type "string" (schema: /definitions/…/type)`.
impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let at = if self.instance_path.is_empty() { "the message" } else { &self.instance_path };
        write!(f, "at {at}: {} (schema: {})", self.message, self.schema_path)
    }
}

/// One line: `valid (InitializeRequest)`, `invalid against InitializeRequest: 2 violations`,
/// `unknown method "x/y"`, `unmatched: …`. Violations are listed by their own `Display`.
impl std::fmt::Display for Validation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Validation::Valid { definition } => write!(f, "valid ({definition})"),
            Validation::Invalid { definition, violations } => {
                let s = if violations.len() == 1 { "" } else { "s" };
                write!(f, "invalid against {definition}: {} violation{s}", violations.len())
            }
            Validation::FormatMismatch { definition, violations } => {
                let s = if violations.len() == 1 { "" } else { "es" };
                write!(f, "valid against {definition} but for {} format mismatch{s}", violations.len())
            }
            Validation::UnknownMethod { method } => write!(f, "unknown method {method:?}"),
            Validation::Unmatched { reason } => write!(f, "unmatched: {reason}"),
        }
    }
}

impl SchemaSet {
    /// Loads `dir/<revision>/schema.json` for every revision present in `dir`. Folders whose
    /// names are not revisions are ignored; a revision folder without a readable, compilable
    /// `schema.json` is an error.
    pub fn from_dir(dir: &Path) -> Result<SchemaSet, SchemaError> {
        if !dir.is_dir() {
            return Err(SchemaError::DirNotFound { dir: dir.to_owned() });
        }
        let read_dir_error = |source| SchemaError::ReadDir { dir: dir.to_owned(), source };
        let mut found = Vec::new();
        for entry in std::fs::read_dir(dir).map_err(read_dir_error)? {
            let entry = entry.map_err(read_dir_error)?;
            let Some(revision) = entry.file_name().to_str().and_then(|n| n.parse::<Revision>().ok()) else {
                continue;
            };
            if entry.path().is_dir() {
                found.push((revision, entry.path().join("schema.json")));
            }
        }
        if found.is_empty() {
            let known: Vec<&str> = Revision::ALL.iter().map(|r| r.as_str()).collect();
            return Err(SchemaError::NoRevisions { dir: dir.to_owned(), known: known.join(", ") });
        }
        found.sort();
        // Compiling is the slow part (tens of ms per revision): spread it over the cores.
        let results: Vec<Result<RevisionSchema, SchemaError>> = std::thread::scope(|scope| {
            let handles: Vec<_> = found
                .iter()
                .map(|(revision, path)| scope.spawn(move || RevisionSchema::from_file(*revision, path)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
                .collect()
        });
        let schemas = results.into_iter().collect::<Result<Vec<_>, _>>()?;
        Ok(SchemaSet::from_schemas(schemas))
    }

    /// mcpspec's own schemas ([`own`]), embedded in the binary: every revision in
    /// [`own::REVISIONS`], each compiled when first asked for.
    pub fn builtin() -> SchemaSet {
        let mut schemas: Vec<Slot> = own::GENERATED
            .iter()
            .map(|(revision, text)| Slot {
                revision: *revision,
                compiled: std::sync::OnceLock::new(),
                builtin: Some(text),
            })
            .collect();
        schemas.sort_by_key(|s| s.revision);
        SchemaSet { schemas }
    }

    /// [`SchemaSet::builtin`], compiled once per process and shared: for callers (tests, many
    /// sessions) that would otherwise compile it again and again.
    pub fn shared_builtin() -> std::sync::Arc<SchemaSet> {
        static SHARED: std::sync::OnceLock<std::sync::Arc<SchemaSet>> = std::sync::OnceLock::new();
        SHARED.get_or_init(|| std::sync::Arc::new(SchemaSet::builtin())).clone()
    }

    /// A set of already compiled revisions (the last one wins when a revision repeats).
    pub fn from_schemas(schemas: impl IntoIterator<Item = RevisionSchema>) -> SchemaSet {
        let mut all: Vec<RevisionSchema> = Vec::new();
        for schema in schemas {
            all.retain(|s| s.revision != schema.revision);
            all.push(schema);
        }
        all.sort_by_key(|s| s.revision);
        SchemaSet { schemas: all.into_iter().map(Slot::compiled).collect() }
    }

    /// The revisions this set holds.
    pub fn revisions(&self) -> Vec<Revision> {
        self.schemas.iter().map(|s| s.revision).collect()
    }

    pub fn get(&self, revision: Revision) -> Option<&RevisionSchema> {
        self.schemas.iter().find(|s| s.revision == revision).map(Slot::schema)
    }
}

impl RevisionSchema {
    /// Reads and compiles one schema file.
    pub fn from_file(revision: Revision, path: &Path) -> Result<RevisionSchema, SchemaError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| SchemaError::ReadFile { path: path.to_owned(), source })?;
        let doc = serde_json::from_str(&text)
            .map_err(|source| SchemaError::Json { path: path.to_owned(), source })?;
        RevisionSchema::from_value(revision, path, doc)
    }

    /// Compiles a schema document already in memory; `origin` names it in errors.
    pub fn from_value(
        revision: Revision,
        origin: impl Into<PathBuf>,
        doc: Value,
    ) -> Result<RevisionSchema, SchemaError> {
        let origin = origin.into();
        let compiled = compile::compile(&origin, doc)?;
        Ok(RevisionSchema { revision, origin, compiled })
    }

    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// The file this schema was compiled from.
    pub fn origin(&self) -> &Path {
        &self.origin
    }

    /// The names of every definition in the file, in file order.
    pub fn definitions(&self) -> impl Iterator<Item = &str> {
        self.compiled.defs.iter().map(|d| d.name.as_str())
    }

    /// The schema document this was compiled from.
    pub fn document(&self) -> &Value {
        &self.compiled.doc
    }

    /// Validates any value against one named definition (`None` if the file has no such
    /// definition). Paths are relative to `instance`.
    pub fn validate_as(&self, definition: &str, instance: &Value) -> Option<Validation> {
        let def = *self.compiled.by_name.get(definition)?;
        Some(self.verdict(def, &[(def, instance, "")]))
    }

    /// Whether `instance` is valid against the named definition; no allocation.
    pub fn is_valid_as(&self, definition: &str, instance: &Value) -> Option<bool> {
        let def = *self.compiled.by_name.get(definition)?;
        Some(self.compiled.defs[def].validator.is_valid(instance))
    }

    /// Validates one message travelling in `direction`. For a response, `answered_method` is
    /// the method of the request it answers.
    ///
    /// - Requests and notifications are checked against the per-method definition of the
    ///   sender's union (`ClientRequest`, `ServerNotification`, …) and, where that definition
    ///   does not carry `jsonrpc`/`id` (up to 2025-06-18), against `JSONRPCRequest` /
    ///   `JSONRPCNotification` too. A member with `method` and `id` is a request.
    /// - Results are checked against the result of `answered_method` (`InitializeResult`,
    ///   `EmptyResult` for `ping`, `CreateTaskResult` for a task-augmented answer), with
    ///   instance paths under `/result`, plus the result envelope (`JSONRPCResponse` /
    ///   `JSONRPCResultResponse`); `InputRequiredResult` when a modern result says
    ///   `"resultType": "input_required"`.
    /// - Error responses are checked against `JSONRPCError` / `JSONRPCErrorResponse`.
    /// - An unknown method (or answered method) is [`Validation::UnknownMethod`]; a result
    ///   without `answered_method` and a batch are [`Validation::Unmatched`].
    pub fn validate(
        &self,
        direction: Direction,
        message: &Value,
        answered_method: Option<&str>,
    ) -> Validation {
        let c = &self.compiled;
        let object = match message {
            Value::Object(object) => object,
            Value::Array(_) => {
                return Validation::Unmatched { reason: "batch: validate each element".to_owned() }
            }
            _ => return self.verdict(c.message, &[(c.message, message, "")]),
        };
        if let Some(method) = object.get("method") {
            let is_request = object.contains_key("id");
            let Some(name) = method.as_str() else {
                // Let the envelope say what is wrong with `method`.
                let envelope =
                    if is_request { c.by_name["JSONRPCRequest"] } else { c.by_name["JSONRPCNotification"] };
                return self.verdict(envelope, &[(envelope, message, "")]);
            };
            let table = &c.tables[table_index(direction)];
            let entry = if is_request {
                table.requests.get(name).map(|r| r.request)
            } else {
                table.notifications.get(name).copied()
            };
            return match entry {
                Some(entry) => self.check_entry(entry, message),
                None => Validation::UnknownMethod { method: name.to_owned() },
            };
        }
        if object.contains_key("error") {
            return self.verdict(c.error, &[(c.error, message, "")]);
        }
        let Some(result) = object.get("result") else {
            return self.verdict(c.message, &[(c.message, message, "")]);
        };
        let Some(answered) = answered_method else {
            return Validation::Unmatched {
                reason: "a result response: the method of the request it answers is needed to \
                         pick its definition"
                    .to_owned(),
            };
        };
        // A result travelling client-to-server answers a server's request, and vice versa.
        match c.tables[table_index(direction.reverse())].requests.get(answered) {
            Some(rule) => self.check_result(rule.result, message, result),
            None => Validation::UnknownMethod { method: answered.to_owned() },
        }
    }

    /// Whether `method` is a request (or notification) the sender on `direction` may send here.
    pub fn knows_method(&self, direction: Direction, method: &str, is_request: bool) -> bool {
        let table = &self.compiled.tables[table_index(direction)];
        if is_request {
            table.requests.contains_key(method)
        } else {
            table.notifications.contains_key(method)
        }
    }

    fn check_entry(&self, entry: Entry, message: &Value) -> Validation {
        match entry.envelope {
            Some(envelope) => self.verdict(entry.def, &[(envelope, message, ""), (entry.def, message, "")]),
            None => self.verdict(entry.def, &[(entry.def, message, "")]),
        }
    }

    /// The result's own discriminators pick the branch: `"resultType": "input_required"` where
    /// the method admits `InputRequiredResult`, a `task` member where it admits
    /// `CreateTaskResult`, else the method's result. (The files' `FooResultResponse` unions
    /// are looser: `InputRequiredResult` requires only a string `resultType`, so under the
    /// union a broken `CallToolResult` would pass as an `InputRequiredResult`.)
    fn check_result(&self, rule: ResultRule, message: &Value, result: &Value) -> Validation {
        let def = match (rule.input_required, rule.task) {
            (Some(input), _)
                if result.get("resultType").and_then(Value::as_str) == Some("input_required") =>
            {
                input
            }
            (_, Some(task)) if result.get("task").is_some() => task,
            _ => rule.result,
        };
        self.verdict(def, &[(self.compiled.result_envelope, message, ""), (def, result, "/result")])
    }

    fn valid(&self, def: DefId) -> Validation {
        Validation::Valid { definition: self.compiled.defs[def].name.clone() }
    }

    /// Runs each `(definition, instance, instance prefix)` check; `Valid`/`Invalid` as
    /// `definition`. The fast path (all valid) allocates only the definition name.
    fn verdict(&self, definition: DefId, checks: &[(DefId, &Value, &str)]) -> Validation {
        let c = &self.compiled;
        if checks.iter().all(|(def, instance, _)| c.defs[*def].validator.is_valid(instance)) {
            return self.valid(definition);
        }
        let mut violations = Vec::new();
        let definition = c.defs[definition].name.clone();
        if checks.iter().all(|(def, instance, _)| c.structure(*def).is_some_and(|v| v.is_valid(instance))) {
            for (def, instance, prefix) in checks {
                explain::collect_formats(c, *def, instance, prefix, &mut violations);
            }
            // Never an empty verdict: should no format error be found (a format that decides
            // between alternatives), the validator's own account is given.
            if !violations.is_empty() {
                return Validation::FormatMismatch { definition, violations };
            }
        }
        for (def, instance, prefix) in checks {
            explain::collect(c, *def, instance, prefix, &mut violations);
        }
        Validation::Invalid { definition, violations }
    }
}

#[allow(dead_code)]
fn assert_send_sync() {
    fn is<T: Send + Sync>() {}
    is::<SchemaSet>();
    is::<RevisionSchema>();
}

#[cfg(test)]
mod tests;
