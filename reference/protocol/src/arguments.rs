//! Values an implementation is likely to accept, generated from a JSON Schema: tool arguments
//! (from `inputSchema`), prompt arguments, elicitation form content. A check on a tool's
//! *successful* result is judged only when the tool succeeds, so the arguments should be the
//! ones its author had in mind: the schema's own `default`, `const`, `enum` and `examples`
//! first, then an example named in the description ("e.g. 'Europe/London'"), then one that fits
//! the property's name (`timezone` → `UTC`), then one of the right type within its bounds. Each
//! candidate is kept only if it validates against the property's schema. Sans-IO.

use serde_json::{json, Map, Value};

/// An object holding every required property of an object schema (and those with a
/// `default`), each with a value it is likely to accept.
pub fn example_object(schema: &Value) -> Value {
    let mut out = Map::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, property) in properties.into_iter().flatten() {
        if required.contains(&name.as_str()) || property.get("default").is_some() {
            out.insert(name.clone(), example_for(name, property));
        }
    }
    Value::Object(out)
}

/// A value for the property `name` with `schema`: the first candidate that validates, else
/// one of the right type.
pub fn example_for(name: &str, schema: &Value) -> Value {
    // A schema that does not compile judges nothing: the first candidate will do.
    let validator = jsonschema::validator_for(schema).ok();
    let fits = |v: &Value| validator.as_ref().is_none_or(|s| s.is_valid(v));
    declared(schema)
        .into_iter()
        .chain(described(schema))
        .chain(named(name, schema))
        .find(fits)
        .unwrap_or_else(|| example_value(schema))
}

/// An object the schema refuses: [`example_object`] with one property, the first required one
/// whose schema declares a single type (else the first such property at all), given a value of
/// another type (a string where a number is wanted, a number where a string is). A required
/// property is what the tool cannot do without, so a tool that ignores the wrong value cannot
/// seem to refuse it. `None` when no property declares a type.
pub fn refused_object(schema: &Value) -> Option<Value> {
    let (name, wrong) = refused_property(schema)?;
    let mut out = example_object(schema);
    out.as_object_mut()?.insert(name, wrong);
    Some(out)
}

/// The property [`refused_object`] gets wrong, and the value it gives it.
fn refused_property(schema: &Value) -> Option<(String, Value)> {
    let properties = schema.get("properties").and_then(Value::as_object)?;
    let required = |name: &str| {
        schema.get("required").and_then(Value::as_array).is_some_and(|r| r.iter().any(|n| n == name))
    };
    let wrong = |property: &Value| {
        Some(match property.get("type").and_then(Value::as_str)? {
            "string" => json!(12345),
            "null" => json!("mcpspec: not null"),
            other => json!(format!("mcpspec: not {other}")),
        })
    };
    let typed = |want_required: bool| {
        properties
            .iter()
            .filter(|(name, _)| !want_required || required(name))
            .find_map(|(name, property)| Some((name.clone(), wrong(property)?)))
    };
    typed(true).or_else(|| typed(false))
}

/// Whether the schema requires a property of a single declared type: arguments
/// [`refused_object`] builds for it then get wrong what the tool cannot do without.
pub fn requires_typed_property(schema: &Value) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else { return false };
    let required = schema.get("required").and_then(Value::as_array).into_iter().flatten();
    required
        .filter_map(Value::as_str)
        .any(|name| properties.get(name).and_then(|p| p.get("type")).is_some_and(Value::is_string))
}

/// A value of the schema's type within its bounds (no name or description to go by).
pub fn example_value(schema: &Value) -> Value {
    if let Some(v) = declared(schema).into_iter().next() {
        return v;
    }
    if let Some(first) =
        schema.get("oneOf").or_else(|| schema.get("anyOf")).and_then(Value::as_array).and_then(|o| o.first())
    {
        return example_value(first);
    }
    match type_of(schema) {
        // 1, moved into [minimum, maximum].
        "integer" => {
            let bound = |key| schema.get(key).and_then(Value::as_i64);
            json!(bound("maximum").map_or(1, |hi| hi.min(1)).max(bound("minimum").unwrap_or(i64::MIN)))
        }
        "number" => {
            let bound = |key| schema.get(key).and_then(Value::as_f64);
            json!(bound("maximum").map_or(1.0, |hi| hi.min(1.0)).max(bound("minimum").unwrap_or(f64::MIN)))
        }
        "boolean" => json!(true),
        "array" => {
            let item = example_value(schema.get("items").unwrap_or(&Value::Null));
            let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1).max(1);
            Value::Array(vec![item; n as usize])
        }
        "object" => example_object(schema),
        "null" => Value::Null,
        _ => match schema.get("format").and_then(Value::as_str) {
            Some(format) => json!(for_format(format)),
            None => {
                let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
                json!(format!("mcpspec{}", "x".repeat(min.saturating_sub(7))))
            }
        },
    }
}

/// The type a schema names (the first that is not `null`, for a list); `string` if none.
fn type_of(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(Value::Array(types)) => {
            types.iter().filter_map(Value::as_str).find(|t| *t != "null").unwrap_or("null")
        }
        _ => "string",
    }
}

/// What the schema itself offers: its default, const, first enum value, first example.
fn declared(schema: &Value) -> Option<Value> {
    schema
        .get("default")
        .or_else(|| schema.get("const"))
        .or_else(|| schema.get("enum").and_then(Value::as_array).and_then(|e| e.first()))
        .or_else(|| schema.get("examples").and_then(Value::as_array).and_then(|e| e.first()))
        .cloned()
}

/// Examples the description quotes after "e.g.", "for example", "such as" or "like":
/// `'America/New_York'`, `"en"`, `` `main` ``.
fn described(schema: &Value) -> Vec<Value> {
    if type_of(schema) != "string" {
        return Vec::new();
    }
    let Some(text) = schema.get("description").and_then(Value::as_str) else { return Vec::new() };
    let lower = text.to_lowercase();
    let mut out = Vec::new();
    for cue in ["e.g.", "e.g", "for example", "such as", "like", "example:"] {
        let Some(at) = lower.find(cue) else { continue };
        let rest = &text[at + cue.len()..];
        let rest = rest.trim_start_matches([',', ':', ' ', '(']);
        let Some(quote) = rest.chars().next().filter(|c| matches!(c, '\'' | '"' | '`')) else {
            continue;
        };
        if let Some(end) = rest[1..].find(quote) {
            let example = &rest[1..1 + end];
            if !example.is_empty() && example.len() <= 200 {
                out.push(json!(example));
            }
        }
    }
    out
}

/// A value that fits the property's name, for strings whose schema says nothing more.
fn named(name: &str, schema: &Value) -> Option<Value> {
    if type_of(schema) != "string" || schema.get("format").is_some() {
        return None;
    }
    let words = words(name);
    const BY_NAME: &[(&[&str], &str)] = &[
        (&["timezone", "time_zone", "tz"], "UTC"),
        (&["url", "uri", "link", "href", "endpoint"], "https://example.com/"),
        (&["email", "mail"], "mcpspec@example.com"),
        (&["path", "file", "dir", "folder"], "/tmp"),
        (&["datetime", "timestamp"], "2026-01-01T00:00:00Z"),
        (&["date", "day"], "2026-01-01"),
        (&["time"], "12:00"),
        (&["language", "lang", "locale"], "en"),
        (&["country"], "US"),
        (&["currency"], "USD"),
        (&["city", "location", "place"], "London"),
        (&["color", "colour"], "red"),
        (&["query", "search", "keyword", "term", "topic"], "model context protocol"),
        (&["message", "text", "prompt", "content", "input"], "Hello from mcpspec"),
    ];
    BY_NAME.iter().find(|(keys, _)| keys.iter().any(|k| words.iter().any(|w| w == k))).map(|(_, v)| json!(v))
}

/// The lowercase words of an identifier: `sourceTimezone`, `source_timezone` and
/// `source-timezone` are `source`, `timezone`.
fn words(name: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut prev_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            out.push(String::new());
        } else {
            if c.is_uppercase() && prev_lower {
                out.push(String::new());
            }
            out.last_mut().expect("never empty").extend(c.to_lowercase());
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
    }
    out.retain(|w| !w.is_empty());
    out
}

/// A value of a JSON Schema string `format`.
fn for_format(format: &str) -> &'static str {
    match format {
        "email" | "idn-email" => "mcpspec@example.com",
        "uri" | "iri" | "uri-reference" | "iri-reference" => "https://example.com/mcpspec",
        "date" => "2026-01-01",
        "date-time" => "2026-01-01T00:00:00Z",
        "time" => "12:00:00Z",
        "duration" => "PT1M",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "ipv4" => "127.0.0.1",
        "ipv6" => "::1",
        "hostname" | "idn-hostname" => "localhost",
        "uri-template" => "https://example.com/{id}",
        _ => "mcpspec",
    }
}

/// The variable names of an RFC 6570 template, without operators or modifiers.
pub fn template_variables(template: &str) -> Vec<String> {
    template
        .split('{')
        .skip(1)
        .filter_map(|part| part.split('}').next())
        .flat_map(|inner| inner.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']).split(','))
        .map(|v| v.split([':', '*']).next().unwrap_or_default().to_owned())
        .filter(|v| !v.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_speaks_first() {
        let schema = json!({"type": "object", "properties": {
            "unit": {"type": "string", "enum": ["c", "f"]},
            "n": {"type": "integer", "default": 3},
            "tag": {"type": "string", "examples": ["beta"]},
            "kind": {"const": "fixed"}},
            "required": ["unit", "tag", "kind"]});
        assert_eq!(example_object(&schema), json!({"unit": "c", "n": 3, "tag": "beta", "kind": "fixed"}));
    }

    #[test]
    fn descriptions_and_names_give_likely_values() {
        // mcp-server-time's get_current_time: a generated "mcpspec" timezone is an error result.
        let tz = json!({"type": "string", "description":
            "IANA timezone name (e.g., 'America/New_York', 'Europe/London'). Use 'UTC' if unsure."});
        assert_eq!(example_for("timezone", &tz), json!("America/New_York"));
        assert_eq!(example_for("source_timezone", &json!({"type": "string"})), json!("UTC"));
        assert_eq!(
            example_for("website", &json!({"type": "string", "format": "uri"})),
            json!("https://example.com/mcpspec")
        );
        assert_eq!(example_for("x", &json!({"type": "string"})), json!("mcpspec"));
        assert_eq!(example_for("filePath", &json!({"type": "string"})), json!("/tmp"));
        // A word of the name, not a part of a word: a timeout is no time of day.
        assert_eq!(example_for("timeout", &json!({"type": "string"})), json!("mcpspec"));
    }

    #[test]
    fn candidates_that_do_not_validate_are_passed_over() {
        // The description's example is too long for maxLength; the name hint is not an enum value.
        let s = json!({"type": "string", "maxLength": 3, "description": "e.g. 'Europe/London'"});
        assert_eq!(example_for("timezone", &s), json!("UTC"));
        let bounded = json!({"type": "integer", "minimum": 5, "maximum": 9});
        assert_eq!(example_for("n", &bounded), json!(5));
        let below_one = json!({"type": "number", "minimum": 0, "maximum": 0.5});
        assert_eq!(example_for("ratio", &below_one), json!(0.5));
    }

    #[test]
    fn a_refused_object_breaks_one_declared_type() {
        let schema = json!({ "type": "object", "properties": { "ms": { "type": "integer", "minimum": 0 } } });
        assert_eq!(refused_object(&schema), Some(json!({ "ms": "mcpspec: not integer" })));
        let named =
            json!({ "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] });
        assert_eq!(refused_object(&named), Some(json!({ "city": 12345 })));
        assert_eq!(refused_object(&json!({ "type": "object" })), None);
        let required_second = json!({ "type": "object", "required": ["b"],
            "properties": { "a": { "type": "string" }, "b": { "type": "number" } } });
        assert_eq!(refused_object(&required_second), Some(json!({ "b": "mcpspec: not number" })));
        assert!(requires_typed_property(&required_second));
        assert!(!requires_typed_property(&schema));
        assert_eq!(refused_object(&json!({ "type": "object", "properties": { "x": {} } })), None);
    }
}
