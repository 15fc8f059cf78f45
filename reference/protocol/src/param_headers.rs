//! The constraints on `x-mcp-header` annotations in a tool's `inputSchema`, as a pure function
//! (2026-07-28 `basic/transports/streamable-http.mdx#schema-extension`): a value is a
//! non-empty HTTP token (RFC 9110 `1*tchar`, so no control characters), unique among the
//! schema's annotations ignoring case, on a parameter of type integer, string or boolean, and
//! reachable from the schema root through `properties` keys alone (never through `items`, a
//! composition or conditional keyword, `$defs` or `$ref`).
//!
//! The server writes the annotations; a client over Streamable HTTP must drop a tool that
//! breaks them. Both judge with [`problems`].
//!
//! A well-annotated tool's calls carry one `Mcp-Param-{name}` header per annotated parameter
//! that has a value in the arguments (`#client-behavior`): [`mirrored_headers`] is what a client
//! sends (the value as text, Base64 sentinel when it is not plain visible ASCII or looks like the
//! sentinel, `#value-encoding`), no header for a null or absent value; [`mismatches`] is how a
//! server (or a judge of clients) holds the headers to the body (`#server-behavior-for-custom-
//! headers`, `#server-validation`: header names compared ignoring case, a recognized header with
//! characters outside visible ASCII, space and tab, or with a malformed sentinel, refused; an
//! integer compared as a number).

use crate::modern;
use serde_json::{Map, Value};

/// The largest integer an annotated parameter may hold, and the negated smallest
/// (JavaScript's `Number.MAX_SAFE_INTEGER`, 2^53 - 1; `#schema-extension`).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

/// One `x-mcp-header` annotation of a well-annotated schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// The `properties` keys from the schema root to the annotated parameter.
    pub path: Vec<String>,
    /// The annotation's value: the header is `Mcp-Param-{name}`.
    pub name: String,
}

impl Annotation {
    /// The header's name, lower-case as HTTP compares names.
    pub fn header(&self) -> String {
        format!("{}{}", modern::headers::PARAM_PREFIX, self.name.to_ascii_lowercase())
    }

    /// The value at the annotation's path in `arguments` (`None`: absent).
    pub fn value_in<'a>(&self, arguments: Option<&'a Value>) -> Option<&'a Value> {
        self.path.iter().try_fold(arguments?, |v, key| v.get(key))
    }
}

/// The annotations of `input_schema`, when every one is within the constraints ([`problems`]
/// finds nothing); empty otherwise, and for a schema without any.
pub fn annotations(input_schema: &Value) -> Vec<Annotation> {
    if !problems(input_schema).is_empty() {
        return Vec::new();
    }
    // Every annotation is reached through `properties` keys alone (else a problem): only those
    // chains are walked, keys kept as they are (a key may hold a `/`).
    fn walk(schema: &Value, path: &mut Vec<String>, out: &mut Vec<Annotation>) {
        if path.len() > 64 {
            return;
        }
        let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
        for (key, sub) in props {
            path.push(key.clone());
            if let Some(name) = sub.get("x-mcp-header").and_then(Value::as_str) {
                out.push(Annotation { path: path.clone(), name: name.to_owned() });
            }
            walk(sub, path, out);
            path.pop();
        }
    }
    let mut out = Vec::new();
    walk(input_schema, &mut Vec::new(), &mut out);
    out
}

/// Whether `input_schema` holds any `x-mcp-header` annotation (valid or not).
pub fn is_annotated(input_schema: &Value) -> bool {
    let mut found = Vec::new();
    collect(input_schema, "", true, &mut found, 0);
    !found.is_empty()
}

/// The text a header carries for an argument before encoding (`#value-encoding`: a string as
/// it is, an integer in decimal, a boolean as `true` or `false`); `None` for null (no header)
/// and for what no annotated parameter holds (a fraction, an array, an object).
pub fn header_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) if n.is_i64() || n.is_u64() => Some(n.to_string()),
        _ => None,
    }
}

/// Whether `value` is an integer outside JavaScript's safe range (`#schema-extension`).
pub fn is_unsafe_integer(value: &Value) -> bool {
    match value {
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => !(-MAX_SAFE_INTEGER..=MAX_SAFE_INTEGER).contains(&i),
            (None, Some(_)) => true,
            // A float with no fraction past the safe range is as unsafe.
            (None, None) => n.as_f64().is_some_and(|f| f.fract() == 0.0 && f.abs() > MAX_SAFE_INTEGER as f64),
        },
        _ => false,
    }
}

/// The `Mcp-Param-*` headers of a call of a tool with `input_schema` and `arguments`, as a
/// client sends them: lower-case names, encoded values; none for a null or absent value.
pub fn mirrored_headers(input_schema: &Value, arguments: Option<&Value>) -> Vec<(String, String)> {
    annotations(input_schema)
        .iter()
        .filter_map(|a| {
            let text = header_text(a.value_in(arguments)?)?;
            Some((a.header(), modern::encode_header_value(&text)))
        })
        .collect()
}

/// Why a call's `Mcp-Param-*` headers do not match its body.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Mismatch {
    /// The argument has a value but no header came.
    Missing { header: String, body: String },
    /// The header, decoded, is not the argument's value.
    Differs { header: String, sent: String, body: String },
    /// A header came for an argument that is null or absent.
    Unexpected { header: String, sent: String },
    /// The header holds characters a header value may not (outside visible ASCII, space and
    /// tab), or a malformed Base64 sentinel.
    Invalid { header: String, sent: String, why: &'static str },
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mismatch::Missing { header, body } => write!(f, "no {header} header for the argument {body}"),
            Mismatch::Differs { header, sent, body } => {
                write!(f, "{header}: {sent:?} differs from the argument {body}")
            }
            Mismatch::Unexpected { header, sent } => {
                write!(f, "{header}: {sent:?} for an argument that is null or absent")
            }
            Mismatch::Invalid { header, sent, why } => write!(f, "{header}: {sent:?} {why}"),
        }
    }
}

impl Mismatch {
    /// The header's name (lower-case).
    pub fn header(&self) -> &str {
        match self {
            Mismatch::Missing { header, .. }
            | Mismatch::Differs { header, .. }
            | Mismatch::Unexpected { header, .. }
            | Mismatch::Invalid { header, .. } => header,
        }
    }
}

/// How a call's `Mcp-Param-*` headers (`headers`: names in any case, values as received) fail
/// to match the arguments of a tool with `input_schema`; empty when they match, and for a
/// schema without valid annotations (no header is recognized then).
pub fn mismatches(
    input_schema: &Value,
    arguments: Option<&Value>,
    headers: &[(String, String)],
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    for a in annotations(input_schema) {
        let header = a.header();
        let sent = headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(&header)).map(|(_, v)| v.as_str());
        let body = a.value_in(arguments).filter(|v| !v.is_null());
        let Some(sent) = sent else {
            if let Some(body) = body {
                out.push(Mismatch::Missing { header, body: body.to_string() });
            }
            continue;
        };
        let raw = sent.to_owned();
        if !sent.chars().all(|c| c == '\t' || (' '..='~').contains(&c)) {
            out.push(Mismatch::Invalid {
                header,
                sent: raw,
                why: "holds characters outside visible ASCII, space and tab",
            });
            continue;
        }
        let Some(decoded) = modern::decode_header_value(sent.trim_matches([' ', '\t'])) else {
            out.push(Mismatch::Invalid { header, sent: raw, why: "is a malformed Base64 sentinel" });
            continue;
        };
        let Some(body) = body else {
            out.push(Mismatch::Unexpected { header, sent: raw });
            continue;
        };
        if !same_value(&decoded, body) {
            out.push(Mismatch::Differs { header, sent: raw, body: body.to_string() });
        }
    }
    out
}

/// Whether a header's decoded text says `body`: an integer compared as a number (`42.0` is
/// `42`, `#server-validation`), anything else as its [`header_text`].
fn same_value(text: &str, body: &Value) -> bool {
    match body {
        Value::Number(n) if n.is_i64() || n.is_u64() => {
            let exact =
                text.parse::<i128>().ok().zip(n.as_i64().map(i128::from).or(n.as_u64().map(i128::from)));
            match exact {
                Some((t, b)) => t == b,
                None => text.parse::<f64>().ok().zip(n.as_f64()).is_some_and(|(t, b)| t == b),
            }
        }
        other => header_text(other).as_deref() == Some(text),
    }
}

/// Keywords whose values are instances, not subschemas: an `x-mcp-header` key there is data.
const INSTANCE_KEYWORDS: &[&str] = &["default", "examples", "const", "enum"];

/// Why each `x-mcp-header` annotation of `input_schema` breaks the constraints (empty when
/// none does).
pub fn problems(input_schema: &Value) -> Vec<String> {
    let mut found = Vec::new();
    collect(input_schema, "", true, &mut found, 0);
    let mut out = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (path, reachable, node) in found {
        let value = &node["x-mcp-header"];
        let Some(name) = value.as_str() else {
            out.push(format!("{path}: x-mcp-header {value} is not a string"));
            continue;
        };
        if name.is_empty() {
            out.push(format!("{path}: x-mcp-header is empty"));
        } else if name.chars().any(char::is_control) {
            out.push(format!("{path}: x-mcp-header {name:?} holds a control character"));
        } else if !name.bytes().all(tchar) {
            out.push(format!("{path}: x-mcp-header {name:?} is not an HTTP token (1*tchar)"));
        }
        let folded = name.to_ascii_lowercase();
        if seen.contains(&folded) {
            out.push(format!("{path}: x-mcp-header {name:?} repeats another annotation, ignoring case"));
        }
        seen.push(folded);
        if !reachable {
            out.push(format!(
                "{path}: x-mcp-header {name:?} is not reachable from the root through properties alone"
            ));
        }
        if !primitive(node.get("type")) {
            let ty = node.get("type").map_or("none".to_owned(), Value::to_string);
            out.push(format!("{path}: x-mcp-header {name:?} is on a parameter of type {ty}, not integer, string or boolean"));
        }
    }
    out
}

/// RFC 9110 `tchar`.
fn tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

/// `type` is integer, string or boolean (a list of them, `null` allowed beside one).
fn primitive(ty: Option<&Value>) -> bool {
    let ok = |t: &str| matches!(t, "integer" | "string" | "boolean");
    match ty {
        Some(Value::String(t)) => ok(t),
        Some(Value::Array(ts)) => {
            let names: Vec<&str> = ts.iter().filter_map(Value::as_str).collect();
            names.len() == ts.len()
                && names.iter().all(|t| ok(t) || *t == "null")
                && names.iter().any(|t| ok(t))
        }
        _ => false,
    }
}

/// Every subschema holding `x-mcp-header`, with its JSON pointer and whether only `properties`
/// keys lead to it from the root.
fn collect<'a>(
    schema: &'a Value,
    path: &str,
    reachable: bool,
    out: &mut Vec<(String, bool, &'a Map<String, Value>)>,
    depth: usize,
) {
    // Deeper than any real schema: not searched further (no stack spent on a hostile one).
    if depth > 64 {
        return;
    }
    match schema {
        Value::Object(map) => {
            if map.contains_key("x-mcp-header") {
                out.push((
                    if path.is_empty() { "/".to_owned() } else { path.to_owned() },
                    reachable && !path.is_empty(),
                    map,
                ));
            }
            for (k, v) in map {
                if INSTANCE_KEYWORDS.contains(&k.as_str()) {
                    continue;
                }
                let here = format!("{path}/{k}");
                match (k.as_str(), v) {
                    ("properties", Value::Object(props)) => {
                        for (name, sub) in props {
                            collect(sub, &format!("{here}/{name}"), reachable, out, depth + 1);
                        }
                    }
                    _ => collect(v, &here, false, out, depth + 1),
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                collect(v, &format!("{path}/{i}"), false, out, depth + 1);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": ["boolean", "null"], "x-mcp-header": "Verbose"},
            "opts": {"type": "object", "properties": {"a/b": {"type": "string", "x-mcp-header": "Tag"}}},
            "query": {"type": "string"}
        }})
    }

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn annotations_are_read_with_their_paths() {
        let found = annotations(&schema());
        let paths: Vec<(Vec<String>, &str)> =
            found.iter().map(|a| (a.path.clone(), a.name.as_str())).collect();
        assert!(paths.contains(&(vec!["opts".into(), "a/b".into()], "Tag")), "{paths:?}");
        assert_eq!(found.len(), 4);
        assert_eq!(found.iter().find(|a| a.name == "Region").unwrap().header(), "mcp-param-region");
        let bad = json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}});
        assert!(annotations(&bad).is_empty() && is_annotated(&bad));
        assert!(!is_annotated(&json!({"properties": {"a": {"type": "string"}}})));
    }

    #[test]
    fn a_client_mirrors_values_and_omits_null_and_absent_ones() {
        let args = json!({"region": "us-west1", "priority": 42, "verbose": null, "opts": {"a/b": "=?base64?literal?="}});
        let sent = mirrored_headers(&schema(), Some(&args));
        assert_eq!(
            sent,
            h(&[
                ("mcp-param-region", "us-west1"),
                ("mcp-param-priority", "42"),
                ("mcp-param-tag", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")
            ])
        );
        assert!(mismatches(&schema(), Some(&args), &sent).is_empty());
        let args = json!({"region": "Hello, 世界", "verbose": false});
        let sent = mirrored_headers(&schema(), Some(&args));
        assert_eq!(
            sent,
            h(&[("mcp-param-region", "=?base64?SGVsbG8sIOS4lueVjA==?="), ("mcp-param-verbose", "false")])
        );
    }

    #[test]
    fn each_mismatch_is_named() {
        let args = json!({"region": "us-west1", "priority": 42});
        let kinds = |headers: &[(&str, &str)]| -> Vec<String> {
            mismatches(&schema(), Some(&args), &h(headers))
                .iter()
                .map(|m| format!("{m:?}").split(' ').next().unwrap().to_owned())
                .collect()
        };
        let both = [("Mcp-Param-Region", "us-west1"), ("MCP-PARAM-PRIORITY", "42.0")];
        assert_eq!(kinds(&both), Vec::<String>::new(), "names ignore case; integers compare as numbers");
        assert_eq!(kinds(&[("mcp-param-region", "us-west1")]), ["Missing"]);
        assert_eq!(kinds(&[("mcp-param-region", "us-east1"), ("mcp-param-priority", "42")]), ["Differs"]);
        assert_eq!(
            kinds(&[
                ("mcp-param-region", "us-west1"),
                ("mcp-param-priority", "42"),
                ("mcp-param-verbose", "true")
            ]),
            ["Unexpected"]
        );
        assert_eq!(kinds(&[("mcp-param-region", "us-wést1"), ("mcp-param-priority", "42")]), ["Invalid"]);
        assert_eq!(
            kinds(&[("mcp-param-region", "=?base64?SGVsbG8?="), ("mcp-param-priority", "42")]),
            ["Invalid"]
        );
        assert_eq!(
            kinds(&[("mcp-param-region", "=?base64?dXMtd2VzdDE=?="), ("mcp-param-priority", "42")]),
            Vec::<String>::new()
        );
        // A lookalike sent plain is decoded as the sentinel, and no longer says the value.
        let look = json!({"region": "=?base64?dXMtd2VzdDE=?="});
        let plain = h(&[("mcp-param-region", "=?base64?dXMtd2VzdDE=?=")]);
        assert!(matches!(mismatches(&schema(), Some(&look), &plain)[..], [Mismatch::Differs { .. }]));
        // A schema whose annotations break the constraints recognizes no header.
        let bad = json!({"properties": {"region": {"type": "number", "x-mcp-header": "Region"}}});
        assert!(mismatches(&bad, Some(&args), &[]).is_empty());
    }

    #[test]
    fn safe_integers() {
        assert!(
            !is_unsafe_integer(&json!(MAX_SAFE_INTEGER)) && !is_unsafe_integer(&json!(-MAX_SAFE_INTEGER))
        );
        assert!(is_unsafe_integer(&json!(MAX_SAFE_INTEGER + 1)) && is_unsafe_integer(&json!(u64::MAX)));
        assert!(is_unsafe_integer(&json!(1e300)) && !is_unsafe_integer(&json!("9007199254740993")));
        assert_eq!(header_text(&json!(-7)).as_deref(), Some("-7"));
        assert_eq!(header_text(&json!(1.5)), None);
    }

    #[test]
    fn well_annotated_schemas_pass() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": ["integer", "null"], "x-mcp-header": "Opt-N"}}},
            "free": {"type": "string", "default": {"x-mcp-header": ""}}
        }});
        assert_eq!(problems(&schema), Vec::<String>::new());
        assert_eq!(problems(&json!({"type": "object"})), Vec::<String>::new());
    }

    #[test]
    fn each_constraint_is_caught() {
        for (bad, what) in [
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}), "empty"),
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}), "HTTP token"),
            (json!({"properties": {"a": {"type": "string", "x-mcp-header": "A\r\nB"}}}), "control"),
            (json!({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}), "not integer"),
            (json!({"properties": {"a": {"x-mcp-header": "A"}}}), "not integer"),
            (
                json!({"properties": {"a": {"type": "string", "x-mcp-header": "A"}, "b": {"type": "string", "x-mcp-header": "a"}}}),
                "repeats",
            ),
            (
                json!({"properties": {"a": {"type": "array", "items": {"type": "string", "x-mcp-header": "A"}}}}),
                "reachable",
            ),
            (json!({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}), "reachable"),
            (json!({"$defs": {"a": {"type": "string", "x-mcp-header": "A"}}}), "reachable"),
            (json!({"type": "string", "x-mcp-header": "Root"}), "reachable"),
        ] {
            let found = problems(&bad);
            assert!(found.iter().any(|p| p.contains(what)), "{bad}: {found:?}");
        }
    }
}
