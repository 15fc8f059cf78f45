//! The JSON Schema dialect rules of tool and elicitation schemas, as a pure function
//! (`basic/index.mdx#schema-validation`, 2025-11-25 on): every schema on the wire is valid
//! under the dialect its `$schema` declares, or under JSON Schema 2020-12 when it declares none.
//!
//! A schema declaring a dialect mcpspec's validator does not bundle (draft 4, 6, 7, 2019-09 and
//! 2020-12 are bundled) cannot be judged here and is passed over.

use serde_json::Value;

/// The dialects the validator bundles, by their meta-schema URI (a trailing `#` aside).
const BUNDLED: &[&str] = &[
    "http://json-schema.org/draft-04/schema",
    "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "https://json-schema.org/draft/2020-12/schema",
];

/// Why `schema` is not valid under its declared (or the default) dialect, if it is not; `None`
/// also when it declares a dialect that cannot be judged here.
pub fn schema_problem(schema: &Value) -> Option<String> {
    if !schema.is_object() && !schema.is_boolean() {
        return Some(format!("a schema is an object or a boolean, not {}", kind(schema)));
    }
    match schema.get("$schema") {
        None => {}
        Some(Value::String(uri)) if BUNDLED.contains(&uri.trim_end_matches('#')) => {}
        Some(Value::String(_)) => return None,
        Some(other) => return Some(format!("$schema is {}, not a URI string", kind(other))),
    }
    match jsonschema::meta::validate(schema) {
        Ok(()) => None,
        Err(e) => {
            let at = e.instance_path().to_string();
            Some(if at.is_empty() { e.to_string() } else { format!("{e} (at {at})") })
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn valid_schemas_of_each_dialect_pass() {
        for s in [
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"type": "object", "prefixItems": [{"type": "string"}]}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "additionalProperties": false}),
            json!({"$schema": "https://example.com/my-dialect", "type": 7}),
            json!(true),
        ] {
            assert_eq!(schema_problem(&s), None, "{s}");
        }
    }

    #[test]
    fn invalid_schemas_are_named() {
        for s in [
            json!({"type": "invalid_type"}),
            json!({"type": "object", "required": "a"}),
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "minProperties": -1}),
            json!({"$schema": 7}),
            json!("object"),
        ] {
            assert!(schema_problem(&s).is_some(), "{s}");
        }
    }
}
