//! The constraints on `x-mcp-header` annotations in a tool's `inputSchema`, as a pure function
//! (2026-07-28 `basic/transports/streamable-http.mdx#schema-extension`): a value is a
//! non-empty HTTP token (RFC 9110 `1*tchar`, so no control characters), unique among the
//! schema's annotations ignoring case, on a parameter of type integer, string or boolean, and
//! reachable from the schema root through `properties` keys alone (never through `items`, a
//! composition or conditional keyword, `$defs` or `$ref`).
//!
//! The server writes the annotations; a client over Streamable HTTP must drop a tool that
//! breaks them. Both judge with [`problems`].

use serde_json::{Map, Value};

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
