//! Values from a JSON Schema, drawn at random: the `params` of every method of a revision
//! (from our own schema file) and a tool's `arguments` (from its `inputSchema`). Mostly valid,
//! with a share of values at the edges of what the schema allows (0, -1, i64 edges, empty and
//! long strings, Unicode oddities), since those are the values implementations get wrong.
//!
//! The recursion follows the schema, never the input. Past [`MAX_DEPTH`] only what is required
//! is generated (no optional properties, map entries or extra array items), which ends every
//! schema whose required members do not recurse; [`HARD_DEPTH`] ends the rest (a `$ref` to
//! itself) with `null`.

use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Map, Number, Value};

/// How deep generation adds what is optional (a `$ref` counts as a level).
pub const MAX_DEPTH: usize = 8;
/// How deep generation follows nested schemas at all.
pub const HARD_DEPTH: usize = 32;

/// Strings at the edges of what a string field is usually given.
pub const EDGE_STRINGS: [&str; 14] = [
    "",
    " ",
    "0",
    "null",
    "ünïcödé ✓ 🦀",
    "\u{202e}gnp.exe",
    "a\u{200b}b\u{feff}c",
    "e\u{301}\u{301}\u{301}\u{301}",
    "two\nlines\r\n",
    "\u{0}\u{1b}[31m",
    "\"}{\\",
    "../../../../etc/passwd",
    "%s%n%x",
    "👨‍👩‍👧‍👦",
];

/// Ordinary strings: what a field is usually given.
const PLAIN_STRINGS: [&str; 5] = ["mcpspec", "hello", "test", "a", "Hello from mcpspec"];

/// Integers at the edges; clamped into the schema's bounds before use.
const EDGE_INTEGERS: [i64; 10] =
    [0, -1, 1, i64::MIN, i64::MAX, (1 << 53) + 1, i32::MAX as i64, i32::MIN as i64, 255, 65536];

/// Keys of generated map entries (objects without declared properties).
const MAP_KEYS: [&str; 5] = ["k", "mcpspec", "x-y", "", "a b"];

/// Draws values for schemas that `$ref` into `root`.
pub struct SchemaValues<'a> {
    pub root: &'a Value,
    /// The share of leaves drawn from the edge lists instead of ordinary values.
    pub edge_rate: f64,
    /// The chance that an optional property is present.
    pub optional_rate: f64,
}

impl SchemaValues<'_> {
    /// A value for `schema`.
    pub fn value(&self, schema: &Value, rng: &mut ChaCha8Rng) -> Value {
        self.at(schema, rng, 0)
    }

    fn at(&self, schema: &Value, rng: &mut ChaCha8Rng, depth: usize) -> Value {
        if depth >= HARD_DEPTH {
            return Value::Null;
        }
        let schema = match schema {
            Value::Object(s) => s,
            // `true` or `{}`-like: anything.
            _ => return any_value(rng),
        };
        if let Some(target) = schema.get("$ref").and_then(Value::as_str) {
            return match target.strip_prefix('#').and_then(|p| self.root.pointer(p)) {
                Some(resolved) => self.at(resolved, rng, depth + 1),
                None => any_value(rng),
            };
        }
        if let Some(c) = schema.get("const") {
            return c.clone();
        }
        if let Some(options) = schema.get("enum").and_then(Value::as_array) {
            if let Some(v) = options.choose(rng) {
                return v.clone();
            }
        }
        let branches = schema.get("anyOf").or_else(|| schema.get("oneOf")).and_then(Value::as_array);
        if let Some(branch) = branches.and_then(|b| b.choose(rng)) {
            return self.at(branch, rng, depth + 1);
        }
        if let Some(parts) = schema.get("allOf").and_then(Value::as_array) {
            return self.all_of(parts, rng, depth);
        }
        match type_of(schema, rng) {
            "object" => self.object(schema, rng, depth),
            "array" => self.array(schema, rng, depth),
            "string" => self.string(schema, rng),
            "integer" => self.integer(schema, rng),
            "number" => self.number(schema, rng),
            "boolean" => json!(rng.random_bool(0.5)),
            "null" => Value::Null,
            _ => any_value(rng),
        }
    }

    /// Every part's value, objects merged (the usual use of `allOf`: a base and its extension).
    fn all_of(&self, parts: &[Value], rng: &mut ChaCha8Rng, depth: usize) -> Value {
        let mut merged: Option<Value> = None;
        for part in parts {
            let value = self.at(part, rng, depth + 1);
            match (&mut merged, value) {
                (Some(Value::Object(into)), Value::Object(from)) => into.extend(from),
                (None, value) => merged = Some(value),
                _ => {}
            }
        }
        merged.unwrap_or(Value::Null)
    }

    fn object(&self, schema: &Map<String, Value>, rng: &mut ChaCha8Rng, depth: usize) -> Value {
        let mut out = Map::new();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let properties = schema.get("properties").and_then(Value::as_object);
        let deep = depth >= MAX_DEPTH;
        for (name, property) in properties.into_iter().flatten() {
            // `_meta` is the caller's: the modern era's is fixed, the legacy one's optional.
            if name == "_meta" {
                continue;
            }
            if required.contains(&name.as_str()) || (!deep && rng.random_bool(self.optional_rate)) {
                out.insert(name.clone(), self.at(property, rng, depth + 1));
            }
        }
        let extra = schema.get("additionalProperties");
        let closed = matches!(extra, Some(Value::Bool(false)));
        if !closed && !deep {
            // A map (no declared properties) gets entries; a record rarely gets one more key.
            let entries = if properties.is_none() {
                rng.random_range(0..=2)
            } else {
                usize::from(rng.random_bool(0.05))
            };
            for _ in 0..entries {
                let key = MAP_KEYS.choose(rng).copied().unwrap_or("k");
                if !out.contains_key(key) {
                    let value = match extra {
                        Some(s @ Value::Object(_)) => self.at(s, rng, depth + 1),
                        _ => json!("mcpspec"),
                    };
                    out.insert(key.to_owned(), value);
                }
            }
        }
        Value::Object(out)
    }

    fn array(&self, schema: &Map<String, Value>, rng: &mut ChaCha8Rng, depth: usize) -> Value {
        let min = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0).min(16);
        let max = schema.get("maxItems").and_then(Value::as_u64).unwrap_or(u64::MAX).min(min + 3);
        let len = if depth >= MAX_DEPTH { min } else { rng.random_range(min..=max.max(min)) };
        let items = schema.get("items").unwrap_or(&Value::Bool(true));
        Value::Array((0..len).map(|_| self.at(items, rng, depth + 1)).collect())
    }

    fn string(&self, schema: &Map<String, Value>, rng: &mut ChaCha8Rng) -> Value {
        let edge = rng.random_bool(self.edge_rate);
        let mut text: String = match schema.get("format").and_then(Value::as_str) {
            Some(format) if !edge || rng.random_bool(0.5) => for_format(format, rng).to_owned(),
            _ if edge => {
                if rng.random_bool(0.1) {
                    long_string(rng, 256, 3000)
                } else {
                    EDGE_STRINGS.choose(rng).copied().unwrap_or_default().to_owned()
                }
            }
            _ => PLAIN_STRINGS.choose(rng).copied().unwrap_or_default().to_owned(),
        };
        let min = schema.get("minLength").and_then(Value::as_u64).map(|n| n.min(4096) as usize);
        let max = schema.get("maxLength").and_then(Value::as_u64).map(|n| n as usize);
        if let Some(max) = max {
            if text.chars().count() > max {
                text = text.chars().take(max).collect();
            }
        }
        if let Some(min) = min {
            let have = text.chars().count();
            if have < min {
                text.extend(std::iter::repeat_n('x', min - have));
            }
        }
        Value::String(text)
    }

    fn integer(&self, schema: &Map<String, Value>, rng: &mut ChaCha8Rng) -> Value {
        let (lo, hi) = integer_bounds(schema);
        let n = if rng.random_bool(self.edge_rate) {
            match rng.random_range(0..3) {
                0 => lo,
                1 => hi,
                _ => EDGE_INTEGERS.choose(rng).copied().unwrap_or(0),
            }
        } else {
            rng.random_range(0..=100)
        };
        json!(n.clamp(lo, hi.max(lo)))
    }

    fn number(&self, schema: &Map<String, Value>, rng: &mut ChaCha8Rng) -> Value {
        let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
        let lo = bound("minimum").or(bound("exclusiveMinimum")).unwrap_or(f64::MIN);
        let hi = bound("maximum").or(bound("exclusiveMaximum")).unwrap_or(f64::MAX);
        let x = if rng.random_bool(self.edge_rate) {
            [0.0, -1.0, 0.5, 1e308, -1e308, 1e-308, lo, hi].choose(rng).copied().unwrap_or(0.0)
        } else {
            rng.random_range(0..=1000) as f64 / 10.0
        };
        let mut x = x.clamp(lo, hi.max(lo));
        // An exclusive bound is not a value: step inside it.
        if schema.contains_key("exclusiveMinimum") && x <= lo {
            x = lo + (hi - lo).min(1.0) / 2.0;
        }
        if schema.contains_key("exclusiveMaximum") && x >= hi {
            x = hi - (hi - lo).min(1.0) / 2.0;
        }
        Number::from_f64(x).map_or(json!(0), Value::Number)
    }
}

/// The inclusive bounds of an integer schema.
fn integer_bounds(schema: &Map<String, Value>) -> (i64, i64) {
    let bound = |key: &str| schema.get(key).and_then(Value::as_f64);
    let lo = match (bound("minimum"), bound("exclusiveMinimum")) {
        (_, Some(x)) => x.floor() as i64 + 1,
        (Some(x), None) => x.ceil() as i64,
        _ => i64::MIN,
    };
    let hi = match (bound("maximum"), bound("exclusiveMaximum")) {
        (_, Some(x)) => x.ceil() as i64 - 1,
        (Some(x), None) => x.floor() as i64,
        _ => i64::MAX,
    };
    (lo, hi)
}

/// The type a schema names (one of a list, mostly not `null`), or the one its keywords imply.
fn type_of<'s>(schema: &'s Map<String, Value>, rng: &mut ChaCha8Rng) -> &'s str {
    match schema.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(types)) => {
            let named: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let not_null: Vec<&str> = named.iter().copied().filter(|t| *t != "null").collect();
            let pool = if not_null.is_empty() || rng.random_bool(0.1) { &named } else { &not_null };
            pool.choose(rng).copied().unwrap_or("null")
        }
        _ if schema.contains_key("properties") || schema.contains_key("additionalProperties") => "object",
        _ if schema.contains_key("items") => "array",
        _ => "any",
    }
}

/// Any small JSON value (for `{}` and `true` schemas).
fn any_value(rng: &mut ChaCha8Rng) -> Value {
    match rng.random_range(0..6) {
        0 => json!("mcpspec"),
        1 => json!(rng.random_range(-10..=100)),
        2 => json!(rng.random_bool(0.5)),
        3 => Value::Null,
        4 => json!({}),
        _ => json!([]),
    }
}

/// `len` bytes of ASCII text, `len` drawn between `min` and `max`.
pub fn long_string(rng: &mut ChaCha8Rng, min: usize, max: usize) -> String {
    let len = rng.random_range(min..=max);
    "fuzz-0123456789-".chars().cycle().take(len).collect()
}

/// A value of a string `format`.
fn for_format(format: &str, rng: &mut ChaCha8Rng) -> &'static str {
    match format {
        "uri" | "iri" | "uri-reference" | "iri-reference" => {
            ["https://example.com/mcpspec", "file:///tmp/mcpspec.txt", "test://static-text", "urn:x:1"]
                .choose(rng)
                .copied()
                .unwrap_or_default()
        }
        "uri-template" => "https://example.com/{id}",
        "date-time" => "2026-01-01T00:00:00Z",
        "date" => "2026-01-01",
        "time" => "12:00:00Z",
        "email" | "idn-email" => "mcpspec@example.com",
        "byte" => "aGVsbG8=",
        "uuid" => "00000000-0000-4000-8000-000000000000",
        "duration" => "PT1M",
        "ipv4" => "127.0.0.1",
        "ipv6" => "::1",
        "hostname" | "idn-hostname" => "localhost",
        _ => "mcpspec",
    }
}
