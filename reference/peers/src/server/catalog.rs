//! What the reference server serves: its tools, resources, resource templates and prompts, per
//! revision, and the pure parts of serving them (reading a resource, getting a prompt, completing
//! an argument). The names of the official conformance fixture (`../shared/anchors.md`) are used
//! so that suites written against that fixture run here unchanged.
//!
//! | kind | names |
//! | --- | --- |
//! | tools (fixture) | `test_simple_text`, `test_image_content`, `test_audio_content` (2025-03-26+), `test_embedded_resource`, `test_multiple_content_types`, `test_tool_with_logging`, `test_tool_with_progress`, `test_error_handling`, `test_sampling` `{prompt?}`, `test_elicitation` `{message?}` (2025-06-18+) |
//! | tools (mcpspec) | `test_roots`, `echo` `{message}`, `add` `{a, b}` (outputSchema 2025-06-18+), `slow` `{ms?}` (default 1000; 2025-11-25: also as a task), `touch_watched`; 2025-11-25: `test_schema_dialect` `{point, label?}` (prefixItems: validated as JSON Schema 2020-12), `test_task_required` `{ms?}` (only as a task), `test_task_elicitation` `{message?}` (only as a task; elicits, naming the task); 2026-07-28: `test_mrtr_multiple_inputs`, `test_mrtr_multi_round`, `test_custom_headers` `{region?, greeting?, priority?, verbose?, debug?, query?}` (x-mcp-header; the name of the official client scenario's tool) |
//! | resources | `test://static-text`, `test://static-binary`, `test://watched-resource`; 2026-07-28: `test://mrtr/needs-input` |
//! | templates | `test://template/{id}/data`, `test://greeting/{name}`, `test://upper/{word}` |
//! | prompts | `test_simple_prompt`, `test_prompt_with_arguments` `{arg1, arg2}`, `test_prompt_with_embedded_resource` `{resourceUri}`, `test_prompt_with_image`; 2026-07-28: `test_mrtr_prompt` |
//! | completion | `test_prompt_with_arguments`: arg1 (6 words), arg2 (5 numbers); `resourceUri`; template `id` (`1`…`250`: 100 values, `total` 250, `hasMore`), `name`, `word` |

use super::invalid_params;
use crate::faults::Fault;
use mcpspec_protocol::revision::Revision;
use mcpspec_protocol::wire::ErrorObject;
use serde_json::{json, Map, Value};

/// A 1×1 PNG.
pub(crate) const PNG_1PX: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// A WAV file of 8 silent 16-bit samples at 8 kHz.
pub(crate) const WAV_SILENCE: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

/// The resource whose updates a subscriber hears about.
pub(crate) const WATCHED: &str = "test://watched-resource";

/// The prompt that asks for input before it is given (2026-07-28 MRTR, `mrtr.rs`).
pub(crate) const MRTR_PROMPT: &str = "test_mrtr_prompt";
/// The resource that asks for input before it is read (2026-07-28 MRTR, `mrtr.rs`).
pub(crate) const MRTR_RESOURCE: &str = "test://mrtr/needs-input";

/// The largest number of values one completion may carry (`server/utilities/completion.mdx`:
/// "Maximum 100 items per response").
pub const MAX_COMPLETION_VALUES: usize = 100;

fn object(properties: Value, required: &[&str]) -> Value {
    let mut s = json!({ "type": "object", "properties": properties });
    if !required.is_empty() {
        s["required"] = json!(required);
    }
    s
}

fn no_arguments() -> Value {
    object(json!({}), &[])
}

/// `(name, title, description, inputSchema, first revision)` of every tool, in list order.
fn tool_table() -> Vec<(&'static str, &'static str, &'static str, Value, Revision)> {
    use Revision::*;
    vec![
        ("test_simple_text", "Simple text", "Returns one text block.", no_arguments(), V2024_11_05),
        ("test_image_content", "Image content", "Returns one PNG image block.", no_arguments(), V2024_11_05),
        // Audio content exists from 2025-03-26 (changelog).
        ("test_audio_content", "Audio content", "Returns one WAV audio block.", no_arguments(), V2025_03_26),
        (
            "test_embedded_resource",
            "Embedded resource",
            "Returns an embedded text resource.",
            no_arguments(),
            V2024_11_05,
        ),
        (
            "test_multiple_content_types",
            "Multiple content types",
            "Returns text, an image and an embedded resource.",
            no_arguments(),
            V2024_11_05,
        ),
        (
            "test_tool_with_logging",
            "Tool with logging",
            "Logs at debug, info, warning and error (filtered by logging/setLevel), then answers.",
            no_arguments(),
            V2024_11_05,
        ),
        (
            "test_tool_with_progress",
            "Tool with progress",
            "Reports progress 1, 2, 3 of 3 to the request's progressToken, then answers.",
            no_arguments(),
            V2024_11_05,
        ),
        (
            "test_error_handling",
            "Error handling",
            "Always fails with a tool execution error (isError: true).",
            no_arguments(),
            V2024_11_05,
        ),
        (
            "test_sampling",
            "Sampling",
            "Asks the client's model (sampling/createMessage) and returns its answer; with \
             sampling.tools (2025-11-25) it runs a tool loop.",
            object(json!({ "prompt": { "type": "string" } }), &[]),
            V2024_11_05,
        ),
        // Elicitation exists from 2025-06-18.
        (
            "test_elicitation",
            "Elicitation",
            "Asks the user for a username and an email (elicitation/create, form mode).",
            object(json!({ "message": { "type": "string" } }), &[]),
            V2025_06_18,
        ),
        ("test_roots", "Roots", "Lists the client's roots (roots/list).", no_arguments(), V2024_11_05),
        (
            "echo",
            "Echo",
            "Returns its message as text.",
            object(json!({ "message": { "type": "string" } }), &["message"]),
            V2024_11_05,
        ),
        (
            "add",
            "Add",
            "Adds two numbers.",
            object(json!({ "a": { "type": "number" }, "b": { "type": "number" } }), &["a", "b"]),
            V2024_11_05,
        ),
        (
            "slow",
            "Slow",
            "Answers after `ms` milliseconds (default 1000, at most 600000); a cancelled call is \
             never answered.",
            object(json!({ "ms": { "type": "integer", "minimum": 0, "maximum": 600000 } }), &[]),
            V2024_11_05,
        ),
        (
            "touch_watched",
            "Touch watched resource",
            "Changes test://watched-resource, which notifies its subscribers.",
            no_arguments(),
            V2024_11_05,
        ),
        // Tasks are experimental in 2025-11-25 only (`tasks.rs`; an extension from 2026-07-28).
        (
            TASK_ONLY_TOOL,
            "Task only",
            "Answers after `ms` milliseconds (default 200) and only as a task (execution.taskSupport \
             required); a plain call is refused with -32601.",
            object(json!({ "ms": { "type": "integer", "minimum": 0, "maximum": 600000 } }), &[]),
            V2025_11_25,
        ),
        (
            TASK_ELICITATION_TOOL,
            "Task asking for input",
            "Runs only as a task: asks the user for a username and an email (elicitation/create, \
             naming the task in its related-task _meta; the task is input_required meanwhile), then \
             answers with what the user gave.",
            object(json!({ "message": { "type": "string" } }), &[]),
            V2025_11_25,
        ),
        // basic/index.mdx#json-schema-usage (2025-11-25 on): a schema without `$schema` is JSON
        // Schema 2020-12; prefixItems exists only there, so its calls tell 2020-12 from older
        // dialects.
        (
            DIALECT_TOOL,
            "Schema dialect",
            "Returns the point it is given: `point` is a pair of numbers (prefixItems, JSON Schema \
             2020-12, the default dialect), `label` an optional name.",
            object(
                json!({
                    "point": { "type": "array", "prefixItems": [{ "type": "number" }, { "type": "number" }],
                        "minItems": 2, "maxItems": 2 },
                    "label": { "type": "string" }
                }),
                &["point"],
            ),
            V2025_11_25,
        ),
        // Multi round-trip requests exist from 2026-07-28 (`mrtr.rs`).
        (
            "test_mrtr_multiple_inputs",
            "Several inputs at once",
            "Asks for an elicitation, a sampling and the roots in one input_required result (those \
             the request's capabilities declare), then reports every answer.",
            no_arguments(),
            V2026_07_28,
        ),
        (
            "test_mrtr_multi_round",
            "Two rounds of input",
            "Asks the user for a topic (elicitation), then the model for a summary of it (sampling), \
             carrying the first answer in requestState.",
            no_arguments(),
            V2026_07_28,
        ),
        // x-mcp-header exists from 2026-07-28 (`streamable-http.mdx#custom-headers-from-tool-
        // parameters`); the name and parameters are the official client scenario's.
        (
            PARAM_HEADERS_TOOL,
            "Custom headers",
            "Echoes its arguments; all but query are mirrored into Mcp-Param headers \
             (x-mcp-header), which a request over Streamable HTTP must carry to match the body.",
            param_headers_schema(),
            V2026_07_28,
        ),
    ]
}

/// The tool whose inputSchema only JSON Schema 2020-12 reads whole (2025-11-25 on).
pub(crate) const DIALECT_TOOL: &str = "test_schema_dialect";

/// The tool whose parameters are mirrored into `Mcp-Param-*` headers (2026-07-28).
pub(crate) const PARAM_HEADERS_TOOL: &str = "test_custom_headers";

/// Its inputSchema: five annotated parameters (two strings, an integer, a nullable boolean, a
/// boolean), none required, and one that is not mirrored.
fn param_headers_schema() -> Value {
    object(
        json!({
            "region": { "type": "string", "x-mcp-header": "Region" },
            "greeting": { "type": "string", "x-mcp-header": "Greeting" },
            "priority": { "type": "integer", "minimum": -9007199254740991_i64,
                "maximum": 9007199254740991_i64, "x-mcp-header": "Priority" },
            "verbose": { "type": ["boolean", "null"], "x-mcp-header": "Verbose" },
            "debug": { "type": "boolean", "x-mcp-header": "Debug" },
            "query": { "type": "string" }
        }),
        &[],
    )
}

/// The tool that runs only as a task.
pub(crate) const TASK_ONLY_TOOL: &str = "test_task_required";
/// The tool that runs only as a task and asks the client for input while it runs.
pub(crate) const TASK_ELICITATION_TOOL: &str = "test_task_elicitation";

/// Whether the revision has tasks as the reference server serves them: 2025-11-25's
/// experimental tasks (`basic/utilities/tasks.mdx`).
pub(crate) fn has_tasks(rev: Revision) -> bool {
    rev == Revision::V2025_11_25
}

/// Whether a tool of the table, `since` a revision, is served at `rev`.
fn served(rev: Revision, name: &str, since: Revision) -> bool {
    rev >= since && (![TASK_ONLY_TOOL, TASK_ELICITATION_TOOL].contains(&name) || has_tasks(rev))
}

/// How a tool may run as a task at `rev`: `slow` either way, the task-only tool only as one,
/// every other tool never (no `execution`, which reads as forbidden).
pub(crate) fn task_support(rev: Revision, name: &str) -> Option<&'static str> {
    match name {
        _ if !has_tasks(rev) => None,
        "slow" => Some("optional"),
        TASK_ONLY_TOOL | TASK_ELICITATION_TOOL => Some("required"),
        _ => None,
    }
}

/// Every tool of `rev`, in list order.
pub(crate) fn tools(rev: Revision) -> Vec<Value> {
    tool_table()
        .into_iter()
        .filter(|t| served(rev, t.0, t.4))
        .map(|(name, title, description, input, _)| {
            let mut t = json!({ "name": name, "description": description, "inputSchema": input });
            // `title` exists from 2025-06-18 (changelog: "title fields").
            if rev >= Revision::V2025_06_18 {
                t["title"] = title.into();
            }
            // Tool annotations exist from 2025-03-26 (changelog). Every tool but touch_watched
            // only reads; none reaches outside this server.
            if rev >= Revision::V2025_03_26 {
                t["annotations"] = if name == "touch_watched" {
                    json!({ "readOnlyHint": false, "destructiveHint": false, "idempotentHint": false,
                        "openWorldHint": false })
                } else {
                    json!({ "readOnlyHint": true, "openWorldHint": false })
                };
            }
            if name == "add" && rev >= Revision::V2025_06_18 {
                t["outputSchema"] = object(json!({ "sum": { "type": "number" } }), &["sum"]);
            }
            if let Some(support) = task_support(rev, name) {
                t["execution"] = json!({ "taskSupport": support });
            }
            t
        })
        .collect()
}

/// The inputSchema of the tool `name` at `rev`.
pub(crate) fn input_schema(rev: Revision, name: &str) -> Option<Value> {
    tool_table().into_iter().find(|t| t.0 == name && served(rev, t.0, t.4)).map(|t| t.3)
}

/// Why the tool's inputSchema refuses `args`, if it does (server/tools.mdx#security-
/// considerations: servers MUST validate all tool inputs). The reference's schemas use only
/// `type`, `properties`, `required`, `minimum` and `maximum`, which this reads; a general
/// validator would do, but compiling its first schema costs a quarter of a second in a debug
/// build, enough to delay a tool's first progress past a cancellation scenario's timing.
pub(crate) fn argument_problem(schema: &Value, args: &Value) -> Option<String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema.get("required").and_then(Value::as_array).into_iter().flatten();
    if let Some(missing) = required.filter_map(Value::as_str).find(|name| args.get(*name).is_none()) {
        return Some(format!("the required argument {missing:?} is missing"));
    }
    for (name, property) in properties.into_iter().flatten() {
        let Some(value) = args.get(name) else { continue };
        let fits = match property.get("type").and_then(Value::as_str) {
            Some("string") => value.is_string(),
            Some("number") => value.is_number(),
            Some("integer") => value.as_f64().is_some_and(|n| n.fract() == 0.0),
            Some("boolean") => value.is_boolean(),
            Some("object") => value.is_object(),
            Some("array") => value.is_array(),
            _ => true,
        };
        let n = value.as_f64();
        let below = property.get("minimum").and_then(Value::as_f64).is_some_and(|m| n.is_some_and(|n| n < m));
        let above = property.get("maximum").and_then(Value::as_f64).is_some_and(|m| n.is_some_and(|n| n > m));
        if !fits || below || above {
            let value = mcpspec_protocol::wire::describe(Some(value));
            return Some(format!("the argument {name:?} does not match its schema {property}: {value}"));
        }
    }
    None
}

/// Why `schema` refuses `args` under the dialect `draft`, by a general validator: for the one
/// tool whose schema the hand reader above cannot read whole ([`DIALECT_TOOL`]).
pub(crate) fn dialect_problem(schema: &Value, args: &Value, draft: jsonschema::Draft) -> Option<String> {
    let validator = match jsonschema::options().with_draft(draft).build(schema) {
        Ok(v) => v,
        Err(e) => return Some(format!("the inputSchema does not compile: {e}")),
    };
    let errors: Vec<String> = validator.iter_errors(args).map(|e| e.to_string()).collect();
    (!errors.is_empty()).then(|| errors.join("; "))
}

/// Whether `rev` has a tool named `name`.
pub(crate) fn has_tool(rev: Revision, name: &str) -> bool {
    tool_table().iter().any(|t| t.0 == name && served(rev, t.0, t.4))
}

fn with_title(rev: Revision, mut v: Value, title: &str) -> Value {
    if rev >= Revision::V2025_06_18 {
        v["title"] = title.into();
    }
    v
}

pub(crate) fn resources(rev: Revision) -> Vec<Value> {
    vec![
        with_title(
            rev,
            json!({"uri": "test://static-text", "name": "static-text",
                "description": "A fixed text resource.", "mimeType": "text/plain"}),
            "Static text",
        ),
        with_title(
            rev,
            json!({"uri": "test://static-binary", "name": "static-binary",
                "description": "A fixed binary resource (a 1x1 PNG).", "mimeType": "image/png"}),
            "Static binary",
        ),
        with_title(
            rev,
            json!({"uri": WATCHED, "name": "watched-resource",
                "description": "Changes when the tool touch_watched runs (and once shortly after \
                    each subscription); subscribe to hear about it.",
                "mimeType": "text/plain"}),
            "Watched resource",
        ),
    ]
    .into_iter()
    .chain((rev >= Revision::V2026_07_28).then(|| {
        json!({"uri": MRTR_RESOURCE, "name": "needs-input", "title": "Needs input",
            "description": "Asks the user for a passphrase (MRTR elicitation) before it is read.",
            "mimeType": "text/plain"})
    }))
    // A file:// resource (2026-07-28's resources.mdx asks servers serving them to sanitize
    // paths): served from memory, as every resource here.
    .chain((rev >= Revision::V2026_07_28).then(|| {
        json!({"uri": FILE_RESOURCE, "name": "notes", "title": "Notes",
            "description": "A text file of the reference server's.", "mimeType": "text/plain"})
    }))
    .collect()
}

/// The reference server's one `file://` resource (2026-07-28 on).
pub(crate) const FILE_RESOURCE: &str = "file:///mcpspec/reference/notes.txt";

pub(crate) fn templates(rev: Revision) -> Vec<Value> {
    vec![
        with_title(
            rev,
            json!({"uriTemplate": "test://template/{id}/data", "name": "template-data",
                "description": "Data for any id.", "mimeType": "application/json"}),
            "Template data",
        ),
        with_title(
            rev,
            json!({"uriTemplate": "test://greeting/{name}", "name": "greeting",
                "description": "A greeting for any name.", "mimeType": "text/plain"}),
            "Greeting",
        ),
        with_title(
            rev,
            json!({"uriTemplate": "test://upper/{word}", "name": "upper",
                "description": "Any word in capitals.", "mimeType": "text/plain"}),
            "Upper case",
        ),
    ]
}

/// The single variable of a URI matching `prefix{var}suffix`, if it is non-empty and holds no `/`.
fn match_template<'a>(uri: &'a str, prefix: &str, suffix: &str) -> Option<&'a str> {
    let var = uri.strip_prefix(prefix)?.strip_suffix(suffix)?;
    (!var.is_empty() && !var.contains('/')).then_some(var)
}

/// The `contents` of `resources/read` for `uri`, or `None` if there is no such resource.
/// `watched_version` counts the changes of the watched resource.
pub(crate) fn read_resource(uri: &str, watched_version: u64) -> Option<Value> {
    let text = |mime: &str, text: String| json!([{ "uri": uri, "mimeType": mime, "text": text }]);
    match uri {
        "test://static-text" => {
            return Some(text("text/plain", "This is the content of the static text resource.".into()))
        }
        "test://static-binary" => {
            return Some(json!([{ "uri": uri, "mimeType": "image/png", "blob": PNG_1PX }]))
        }
        WATCHED => {
            return Some(text("text/plain", format!("Watched resource content, version {watched_version}")))
        }
        FILE_RESOURCE => return Some(text("text/plain", "Notes of the reference server.".into())),
        _ => {}
    }
    if let Some(id) = match_template(uri, "test://template/", "/data") {
        let data = json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
        return Some(text("application/json", data.to_string()));
    }
    if let Some(name) = match_template(uri, "test://greeting/", "") {
        return Some(text("text/plain", format!("Hello, {name}!")));
    }
    if let Some(word) = match_template(uri, "test://upper/", "") {
        return Some(text("text/plain", word.to_uppercase()));
    }
    None
}

/// `(name, title, description, [(argument, required)])` of every prompt, in list order.
type PromptRow = (&'static str, &'static str, &'static str, &'static [(&'static str, &'static str, bool)]);

const PROMPTS: [PromptRow; 4] = [
    ("test_simple_prompt", "Simple prompt", "A prompt without arguments.", &[]),
    (
        "test_prompt_with_arguments",
        "Prompt with arguments",
        "A prompt with two required arguments.",
        &[("arg1", "First argument", true), ("arg2", "Second argument", true)],
    ),
    (
        "test_prompt_with_embedded_resource",
        "Prompt with embedded resource",
        "A prompt that embeds a resource.",
        &[("resourceUri", "URI of the resource to embed", true)],
    ),
    ("test_prompt_with_image", "Prompt with image", "A prompt with an image.", &[]),
];

/// The prompt of the modern era, served by `mrtr.rs`.
const MRTR_PROMPT_ROW: PromptRow = (
    MRTR_PROMPT,
    "Prompt that asks for input",
    "Asks the user for a topic (MRTR elicitation), then gives a prompt about it.",
    &[],
);

pub(crate) fn prompts(rev: Revision) -> Vec<Value> {
    PROMPTS
        .iter()
        .chain((rev >= Revision::V2026_07_28).then_some(&MRTR_PROMPT_ROW))
        .map(|(name, title, description, args)| {
            let mut p = with_title(rev, json!({ "name": name, "description": description }), title);
            if !args.is_empty() {
                p["arguments"] = args
                    .iter()
                    .map(|(n, d, r)| json!({ "name": n, "description": d, "required": r }))
                    .collect();
            }
            p
        })
        .collect()
}

/// `prompts/get`. prompts.mdx: invalid prompt name and missing required arguments → -32602.
pub(crate) fn get_prompt(params: Option<&Value>, fault: Option<Fault>) -> Result<Value, ErrorObject> {
    let name = params
        .and_then(|p| p.get("name"))
        .and_then(Value::as_str)
        .ok_or_else(|| invalid_params("prompts/get needs params.name, a string"))?;
    let row = PROMPTS
        .iter()
        .find(|p| p.0 == name)
        .ok_or_else(|| invalid_params(&format!("Unknown prompt: {name}")))?;
    let empty = Map::new();
    let args = match params.and_then(|p| p.get("arguments")) {
        None | Some(Value::Null) => &empty,
        Some(Value::Object(m)) => m,
        Some(_) => return Err(invalid_params("params.arguments must be an object of strings")),
    };
    if let Some((k, _)) = args.iter().find(|(_, v)| !v.is_string()) {
        return Err(invalid_params(&format!("argument {k:?} must be a string")));
    }
    let arg = |n: &str| args.get(n).and_then(Value::as_str).unwrap_or("");
    for (n, _, required) in row.3 {
        if *required && !args.contains_key(*n) && fault != Some(Fault::PromptMissingArgumentAccepted) {
            return Err(invalid_params(&format!("prompt {name} needs the argument {n:?}")));
        }
    }
    let user = |content: Value| json!({ "role": "user", "content": content });
    let text = |t: String| user(json!({ "type": "text", "text": t }));
    let messages = match name {
        "test_simple_prompt" => vec![text("This is a simple prompt for testing.".into())],
        "test_prompt_with_arguments" => {
            vec![text(format!("Prompt with arguments: arg1='{}', arg2='{}'", arg("arg1"), arg("arg2")))]
        }
        "test_prompt_with_embedded_resource" => vec![
            user(json!({ "type": "resource", "resource": {
                "uri": arg("resourceUri"), "mimeType": "text/plain",
                "text": "Embedded resource content for testing." } })),
            text("Please process the embedded resource above.".into()),
        ],
        _ => vec![
            user(json!({ "type": "image", "data": PNG_1PX, "mimeType": "image/png" })),
            text("Please analyze the image above.".into()),
        ],
    };
    Ok(json!({ "description": row.2, "messages": messages }))
}

const NAMES: [&str; 8] = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"];
const WORDS: [&str; 6] = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"];
const NUMBERS: [&str; 5] = ["one", "two", "three", "four", "five"];

/// `completion/complete` (server/utilities/completion.mdx): values for a prompt argument or a
/// template variable, starting with the typed prefix, at most 100 of them with the true `total`
/// and `hasMore`. An unknown prompt or template is -32602 ("Invalid prompt name").
pub(crate) fn complete(params: Option<&Value>, fault: Option<Fault>) -> Result<Value, ErrorObject> {
    let p = params.ok_or_else(|| invalid_params("completion/complete needs params"))?;
    let reference = p.get("ref").ok_or_else(|| invalid_params("completion/complete needs params.ref"))?;
    let argument = p.get("argument").and_then(Value::as_object);
    let value = argument.and_then(|a| a.get("value"));
    let value = match value {
        None if fault == Some(Fault::CompletionInputsUnchecked) => Some(""),
        v => v.and_then(Value::as_str),
    };
    let (Some(arg_name), Some(prefix)) =
        (argument.and_then(|a| a.get("name")).and_then(Value::as_str), value)
    else {
        return Err(invalid_params("params.argument needs name and value, strings"));
    };
    let ids: Vec<String> = (1..=250).map(|i| i.to_string()).collect();
    let strs = |s: &[&str]| s.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let candidates: Vec<String> = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = reference.get("name").and_then(Value::as_str).unwrap_or_default();
            match (name, arg_name) {
                ("test_prompt_with_arguments", "arg1") => strs(&WORDS),
                ("test_prompt_with_arguments", "arg2") => strs(&NUMBERS),
                ("test_prompt_with_embedded_resource", "resourceUri") => {
                    strs(&["test://static-text", "test://static-binary", WATCHED])
                }
                _ if PROMPTS.iter().any(|p| p.0 == name) || name == MRTR_PROMPT => Vec::new(),
                _ => return Err(invalid_params(&format!("Unknown prompt: {name}"))),
            }
        }
        Some("ref/resource") => {
            let uri = reference.get("uri").and_then(Value::as_str).unwrap_or_default();
            match (uri, arg_name) {
                ("test://template/{id}/data", "id") => ids,
                ("test://greeting/{name}", "name") => strs(&NAMES),
                ("test://upper/{word}", "word") => strs(&WORDS),
                ("test://template/{id}/data" | "test://greeting/{name}" | "test://upper/{word}", _) => {
                    Vec::new()
                }
                (u, _) if read_resource(u, 0).is_some() => Vec::new(),
                _ => return Err(invalid_params(&format!("Unknown resource template: {uri}"))),
            }
        }
        other => {
            return Err(invalid_params(&format!(
                "unknown ref type {}",
                mcpspec_protocol::wire::describe(other.map(Value::from).as_ref())
            )))
        }
    };
    let matching: Vec<String> = candidates.into_iter().filter(|c| c.starts_with(prefix)).collect();
    let total = matching.len();
    let cap = if fault == Some(Fault::CompletionTooMany) { 150 } else { MAX_COMPLETION_VALUES };
    let values: Vec<String> = matching.into_iter().take(cap).collect();
    let has_more = total > values.len();
    Ok(json!({ "completion": { "values": values, "total": total, "hasMore": has_more } }))
}
