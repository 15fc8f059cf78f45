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

/// The dialect `schema` declares, when the validator does not bundle it (basic/index.mdx#
/// implementation-requirements: implementations answer a dialect they do not support with an
/// error saying so). `None` for a bundled dialect, or none declared (2020-12).
pub fn unsupported_dialect(schema: &Value) -> Option<String> {
    match schema.get("$schema")? {
        Value::String(uri) if BUNDLED.contains(&uri.trim_end_matches('#')) => None,
        Value::String(uri) => Some(uri.clone()),
        other => Some(other.to_string()),
    }
}

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

/// Arguments that tell whether a tool validates by its schema's own dialect: refused under
/// the dialect the schema declares (JSON Schema 2020-12 when it declares none), yet accepted
/// under another one (draft-07 for 2019-09 and 2020-12 schemas, 2020-12 for older ones). A
/// server validating by the wrong dialect, or by none, takes them.
#[derive(Debug, Clone, PartialEq)]
pub struct TellingArguments {
    pub arguments: Value,
    /// The schema's own dialect, by name ("JSON Schema 2020-12").
    pub own: &'static str,
    /// The dialect that accepts them.
    pub other: &'static str,
}

/// [`TellingArguments`] for an object schema, if some small change of arguments it accepts
/// (from [`crate::arguments::example_object`]) tells the two dialects apart: a property removed,
/// added, or given an array of mixed items. `None` for a schema whose keywords mean the same in
/// both (most schemas), a dialect not bundled, or no accepted example to start from.
pub fn telling_arguments(schema: &Value) -> Option<TellingArguments> {
    use jsonschema::Draft;
    let declared = match schema.get("$schema") {
        None => Some(Draft::Draft202012),
        Some(Value::String(uri)) => match uri.trim_end_matches('#') {
            "http://json-schema.org/draft-04/schema" => Some(Draft::Draft4),
            "http://json-schema.org/draft-06/schema" => Some(Draft::Draft6),
            "http://json-schema.org/draft-07/schema" => Some(Draft::Draft7),
            "https://json-schema.org/draft/2019-09/schema" => Some(Draft::Draft201909),
            "https://json-schema.org/draft/2020-12/schema" => Some(Draft::Draft202012),
            _ => None,
        },
        Some(_) => None,
    }?;
    let other = match declared {
        Draft::Draft201909 | Draft::Draft202012 => Draft::Draft7,
        _ => Draft::Draft202012,
    };
    let name = |d: Draft| match d {
        Draft::Draft4 => "JSON Schema draft-04",
        Draft::Draft6 => "JSON Schema draft-06",
        Draft::Draft7 => "JSON Schema draft-07",
        Draft::Draft201909 => "JSON Schema 2019-09",
        _ => "JSON Schema 2020-12",
    };
    // Each validator is built with its draft set outright: an explicit draft wins over `$schema`.
    let own = jsonschema::options().with_draft(declared).build(schema).ok()?;
    let others = jsonschema::options().with_draft(other).build(schema).ok()?;
    // The example, or (when a keyword it does not read refuses it) the first small change of it
    // that the schema accepts.
    let example = crate::arguments::example_object(schema);
    let base =
        std::iter::once(example.clone()).chain(candidates(schema, &example)).find(|b| own.is_valid(b))?;
    candidates(schema, &base)
        .into_iter()
        .find(|c| !own.is_valid(c) && others.is_valid(c))
        .map(|arguments| TellingArguments { arguments, own: name(declared), other: name(other) })
}

/// Small changes of `base`: each property removed; a property the schema does not name added;
/// each property (named by the schema) set to arrays of mixed items, an empty object, an
/// object with an unnamed member, and values of each primitive type.
fn candidates(schema: &Value, base: &Value) -> Vec<Value> {
    let Some(base) = base.as_object() else { return Vec::new() };
    let mut out = Vec::new();
    for name in base.keys() {
        let mut c = base.clone();
        c.remove(name);
        out.push(Value::Object(c));
    }
    let mut extra = base.clone();
    extra.insert("mcpspec_unnamed".into(), Value::String("mcpspec".into()));
    out.push(Value::Object(extra));
    let values = [
        serde_json::json!(["mcpspec", 1]),
        serde_json::json!([1, "mcpspec"]),
        serde_json::json!(["mcpspec"]),
        serde_json::json!([1]),
        serde_json::json!([1, 2]),
        serde_json::json!(["mcpspec", "mcpspec"]),
        serde_json::json!([1, 2, 3]),
        serde_json::json!([]),
        serde_json::json!({}),
        serde_json::json!({ "mcpspec_unnamed": 1 }),
        serde_json::json!("mcpspec"),
        serde_json::json!(1),
        serde_json::json!(true),
        Value::Null,
    ];
    for name in schema.get("properties").and_then(Value::as_object).into_iter().flat_map(|p| p.keys()) {
        for v in &values {
            let mut c = base.clone();
            c.insert(name.clone(), v.clone());
            out.push(Value::Object(c));
        }
    }
    out
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
    fn arguments_that_only_the_own_dialect_refuses_are_found() {
        // prefixItems exists only from 2020-12: draft-07 ignores it.
        let pair = json!({"type": "object", "properties": {"point": {"type": "array",
            "prefixItems": [{"type": "number"}, {"type": "number"}], "minItems": 2, "maxItems": 2}},
            "required": ["point"]});
        let t = telling_arguments(&pair).expect("prefixItems tells 2020-12 from draft-07");
        assert_eq!((t.own, t.other), ("JSON Schema 2020-12", "JSON Schema draft-07"));
        assert!(!jsonschema::validator_for(&pair).unwrap().is_valid(&t.arguments), "{}", t.arguments);
        // dependentRequired: 2019-09 on.
        let dependent = json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "required": ["a"], "dependentRequired": {"a": ["b"]}});
        assert!(telling_arguments(&dependent).is_some_and(|t| t.arguments.get("b").is_none()));
        // Declared outright, the same; declared draft-07, prefixItems means nothing.
        let mut declared = pair.clone();
        declared["$schema"] = json!("https://json-schema.org/draft/2020-12/schema");
        assert!(telling_arguments(&declared).is_some());
        declared["$schema"] = json!("http://json-schema.org/draft-07/schema#");
        assert_eq!(telling_arguments(&declared), None);
    }

    #[test]
    fn schemas_that_mean_the_same_in_both_tell_nothing() {
        for s in [
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}),
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}}}),
            json!({"$schema": "https://example.com/my-dialect", "type": "object"}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["missing-example"],
                "additionalProperties": false}),
        ] {
            assert_eq!(telling_arguments(&s), None, "{s}");
        }
    }

    #[test]
    fn only_bundled_dialects_are_supported() {
        assert_eq!(unsupported_dialect(&json!({"type": "object"})), None);
        assert_eq!(unsupported_dialect(&json!({"$schema": "http://json-schema.org/draft-07/schema#"})), None);
        assert_eq!(
            unsupported_dialect(&json!({"$schema": "https://example.com/my-dialect"})).as_deref(),
            Some("https://example.com/my-dialect")
        );
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
