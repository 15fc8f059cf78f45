//! The rules of `_meta` keys as pure functions (`basic/index.mdx#_meta`, 2025-06-18 on): a key
//! is an optional prefix (dot-separated labels, each starting with a letter and ending with a
//! letter or digit, letters, digits and hyphens inside, then a slash) and a name (empty, or
//! beginning and ending with an ASCII letter or digit); and, from 2026-07-28, the values of the
//! OpenTelemetry keys `traceparent`, `tracestate` and `baggage` follow W3C Trace Context and W3C
//! Baggage.
//!
//! [`problems`] walks a message for every `_meta` object it holds; values under a `_meta` key
//! are opaque (the spec: implementations make no assumptions about them), and so are the
//! places that hold a peer's own data (tool arguments, schemas, structured content, error and
//! log data), where an object key named `_meta` is not MCP's.

use serde_json::{Map, Value};

/// Object keys whose values are a peer's own data, not MCP structure: not searched for `_meta`.
const OPAQUE: &[&str] =
    &["arguments", "inputSchema", "outputSchema", "requestedSchema", "structuredContent", "data", "_meta"];

/// What is wrong with one `_meta` key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MetaProblem {
    /// The key's prefix or name breaks the key format.
    Key { key: String, why: &'static str },
    /// A trace context key whose value is not in its W3C format.
    TraceContext { key: String, why: &'static str },
}

/// The problems of every `_meta` key in `message`; trace context values are judged when
/// `trace_context` (2026-07-28 on).
pub fn problems(message: &Value, trace_context: bool) -> Vec<MetaProblem> {
    let mut out = Vec::new();
    walk(message, trace_context, &mut out, 0);
    out
}

fn walk(value: &Value, trace_context: bool, out: &mut Vec<MetaProblem>, depth: usize) {
    // A message nested deeper than any MCP structure is not searched further (and no stack
    // is spent on a hostile one).
    if depth > 32 {
        return;
    }
    match value {
        Value::Object(map) => {
            if let Some(Value::Object(meta)) = map.get("_meta") {
                judge(meta, trace_context, out);
            }
            for (k, v) in map {
                if !OPAQUE.contains(&k.as_str()) {
                    walk(v, trace_context, out, depth + 1);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| walk(v, trace_context, out, depth + 1)),
        _ => {}
    }
}

fn judge(meta: &Map<String, Value>, trace_context: bool, out: &mut Vec<MetaProblem>) {
    for (key, value) in meta {
        if let Some(why) = key_problem(key) {
            out.push(MetaProblem::Key { key: key.clone(), why });
        }
        if trace_context {
            let why = match key.as_str() {
                "traceparent" => traceparent_problem(value),
                "tracestate" => tracestate_problem(value),
                "baggage" => baggage_problem(value),
                _ => None,
            };
            if let Some(why) = why {
                out.push(MetaProblem::TraceContext { key: key.clone(), why });
            }
        }
    }
}

/// Why `key` is not a valid `_meta` key name, if it is not. The prefix ends at the first slash.
pub fn key_problem(key: &str) -> Option<&'static str> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        for label in prefix.split('.') {
            let bytes = label.as_bytes();
            let (Some(first), Some(last)) = (bytes.first(), bytes.last()) else {
                return Some("a prefix label is empty");
            };
            if !first.is_ascii_alphabetic() {
                return Some("a prefix label does not start with a letter");
            }
            if !last.is_ascii_alphanumeric() {
                return Some("a prefix label does not end with a letter or digit");
            }
            if !bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-') {
                return Some("a prefix label holds a character other than letters, digits and hyphens");
            }
        }
    }
    let bytes = name.as_bytes();
    match (bytes.first(), bytes.last()) {
        (Some(first), Some(last)) if !first.is_ascii_alphanumeric() || !last.is_ascii_alphanumeric() => {
            Some("the name does not begin and end with a letter or digit")
        }
        _ => None,
    }
}

fn lower_hex(s: &str, len: usize) -> bool {
    s.len() == len && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// W3C Trace Context `traceparent`: `version-traceid-parentid-flags`, lower-case hex, ids not
/// all zeros, version `ff` invalid, version `00` exactly four fields.
fn traceparent_problem(value: &Value) -> Option<&'static str> {
    let Some(s) = value.as_str() else { return Some("traceparent is not a string") };
    let fields: Vec<&str> = s.split('-').collect();
    if fields.len() < 4 {
        return Some("traceparent is not version-traceid-parentid-flags");
    }
    let (version, trace, parent, flags) = (fields[0], fields[1], fields[2], fields[3]);
    if !lower_hex(version, 2) || version == "ff" {
        return Some("traceparent's version is not two lower-case hex digits other than ff");
    }
    if version == "00" && fields.len() != 4 {
        return Some("a version 00 traceparent has exactly four fields");
    }
    if !lower_hex(trace, 32) || trace.bytes().all(|b| b == b'0') {
        return Some("traceparent's trace-id is not 32 lower-case hex digits, not all zero");
    }
    if !lower_hex(parent, 16) || parent.bytes().all(|b| b == b'0') {
        return Some("traceparent's parent-id is not 16 lower-case hex digits, not all zero");
    }
    if !lower_hex(flags, 2) {
        return Some("traceparent's flags are not two lower-case hex digits");
    }
    None
}

/// W3C Trace Context `tracestate`: up to 32 comma-separated `key=value` members (blank ones
/// allowed); a key of lower-case letters, digits and `_-*/` (with one `@` for multi-tenant
/// keys), starting with a letter or digit; a value of 1 to 256 printable ASCII characters but
/// `,` and `=`, not ending in a space.
fn tracestate_problem(value: &Value) -> Option<&'static str> {
    let Some(s) = value.as_str() else { return Some("tracestate is not a string") };
    let members: Vec<&str> =
        s.split(',').map(|m| m.trim_matches([' ', '\t'])).filter(|m| !m.is_empty()).collect();
    if members.len() > 32 {
        return Some("tracestate has more than 32 members");
    }
    for member in members {
        let Some((key, val)) = member.split_once('=') else {
            return Some("a tracestate member is not key=value");
        };
        let key_ok = key.len() <= 256
            && key.bytes().next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
            && key.bytes().filter(|b| *b == b'@').count() <= 1
            && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_-*/@".contains(&b));
        if !key_ok {
            return Some("a tracestate key is not lower-case letters, digits and _-*/ (one @ at most)");
        }
        let val_ok = !val.is_empty()
            && val.len() <= 256
            && !val.ends_with(' ')
            && val.bytes().all(|b| (0x20..=0x7e).contains(&b) && b != b',' && b != b'=');
        if !val_ok {
            return Some("a tracestate value is not 1 to 256 printable characters but , and =");
        }
    }
    None
}

/// W3C Baggage: comma-separated `key=value` members, each optionally followed by `;`
/// properties; a key is an HTTP token, a value baggage octets (printable ASCII but space, `"`,
/// `,`, `;` and `\`; anything else percent-encoded).
fn baggage_problem(value: &Value) -> Option<&'static str> {
    let Some(s) = value.as_str() else { return Some("baggage is not a string") };
    let token = |t: &str| {
        !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    };
    let octets = |v: &str| v.bytes().all(|b| (0x21..=0x7e).contains(&b) && !b"\",;\\".contains(&b));
    for member in s.split(',') {
        let mut parts = member.split(';');
        let pair = parts.next().unwrap_or_default().trim_matches([' ', '\t']);
        let Some((key, val)) = pair.split_once('=') else {
            return Some("a baggage member is not key=value");
        };
        if !token(key.trim_matches([' ', '\t'])) {
            return Some("a baggage key is not an HTTP token");
        }
        if !octets(val.trim_matches([' ', '\t'])) {
            return Some("a baggage value holds a character it must percent-encode");
        }
        for property in parts {
            let property = property.trim_matches([' ', '\t']);
            let key = property.split_once('=').map_or(property, |(k, _)| k).trim_matches([' ', '\t']);
            if !token(key) {
                return Some("a baggage property's key is not an HTTP token");
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_the_spec_allows() {
        for key in [
            "progressToken",
            "io.modelcontextprotocol/protocolVersion",
            "com.example/",
            "com.example-corp.api/trace_id.v2",
            "x",
            "a1/b",
            "",
        ] {
            assert_eq!(key_problem(key), None, "{key}");
        }
    }

    #[test]
    fn keys_the_spec_forbids() {
        for key in [
            "_fastmcp",
            "name-",
            "1com.example/x",
            "com.example-/x",
            "com..example/x",
            "/x",
            "com.ex_ample/x",
            "ok/_x",
        ] {
            assert!(key_problem(key).is_some(), "{key}");
        }
    }

    #[test]
    fn trace_context_values() {
        let ok = json!({"_meta": {
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01",
            "tracestate": "congo=t61rcWkgMzE, rojo@vendor=00f067aa0ba902b7",
            "baggage": "userId=alice,serverNode=DF%2028;ttl=60,isProduction=false"
        }});
        assert_eq!(problems(&ok, true), []);
        for (key, bad) in [
            ("traceparent", json!("00-0AF7651916CD43DD8448EB211C80319C-00f067aa0ba902b7-01")),
            ("traceparent", json!("00-00000000000000000000000000000000-00f067aa0ba902b7-01")),
            ("traceparent", json!("ff-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01")),
            ("traceparent", json!(7)),
            ("tracestate", json!("Congo=t61")),
            ("tracestate", json!("congo")),
            ("baggage", json!("user id=alice")),
            ("baggage", json!("userId=al ice")),
        ] {
            let message = json!({"params": {"_meta": {key: bad}}});
            assert_eq!(problems(&message, true).len(), 1, "{key}: {bad}");
            assert_eq!(problems(&message, false), [], "{key}: {bad} (before 2026-07-28)");
        }
    }

    #[test]
    fn walks_structure_but_not_a_peers_own_data() {
        let message = json!({"result": {"tools": [
            {"name": "t", "_meta": {"_fastmcp": {"_x": 1}}, "inputSchema": {"properties": {"_meta": {"_bad": 1}}}}
        ]}});
        let found = problems(&message, false);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(matches!(&found[0], MetaProblem::Key { key, .. } if key == "_fastmcp"));
        let call = json!({"params": {"name": "t", "arguments": {"_meta": {"_bad": 1}}}});
        assert_eq!(problems(&call, false), []);
    }
}
