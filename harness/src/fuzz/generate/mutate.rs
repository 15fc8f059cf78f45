//! Structural mutations of one JSON-RPC message: a field dropped, given twice or retyped, values
//! at the edges of numbers, strings and Unicode, nesting deeper than parsers allow, methods and
//! ids nobody expects.
//!
//! What a `Value` cannot hold (a duplicate key, `-0`, `1e400`, a lone surrogate, nesting 100 000
//! deep) is spliced in as text: the target is replaced by a marker string, the message is
//! serialized, and the marker's JSON is replaced by the raw text. Deep nesting is built as text
//! too, so nothing here recurses on it.

use super::schema_values::{long_string, EDGE_STRINGS};
use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use serde_json::{json, Value};

/// One structural mutation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Mutation {
    DropField,
    /// The same key twice in one object (text level).
    DuplicateKey,
    /// A value replaced by one of another JSON type.
    Retype,
    /// `0`, `-0`, `-1`, i64 and u64 edges, 2^53+1, 1e308, 1e-308, 1e400.
    BoundaryNumber,
    EmptyString,
    /// A string of 1 KiB to 1 MiB.
    HugeString,
    /// Arrays or objects nested 10 to 100 000 deep.
    DeepNesting,
    /// Lone surrogates, NUL, RTL and zero-width marks, emoji, combining marks.
    Unicode,
    UnknownMethod,
    EmptyMethod,
    /// A string id of 256 B to 63 KiB.
    LongId,
    /// An id at the edges of what an id may hold.
    EdgeId,
    /// An id that is neither a string nor an integer.
    WrongTypeId,
}

impl Mutation {
    /// Every mutation with its weight among structural mutations.
    pub const WEIGHTED: [(Mutation, u32); 13] = [
        (Mutation::DropField, 35),
        (Mutation::DuplicateKey, 30),
        (Mutation::Retype, 40),
        (Mutation::BoundaryNumber, 35),
        (Mutation::EmptyString, 20),
        (Mutation::HugeString, 6),
        (Mutation::DeepNesting, 12),
        (Mutation::Unicode, 30),
        (Mutation::UnknownMethod, 20),
        (Mutation::EmptyMethod, 10),
        (Mutation::LongId, 12),
        (Mutation::EdgeId, 25),
        (Mutation::WrongTypeId, 25),
    ];
}

/// Numbers at the edges, as JSON text (some are more than an `f64` or `i64` holds).
const BOUNDARY_NUMBERS: [&str; 14] = [
    "0",
    "-0",
    "-1",
    "-9223372036854775808",
    "9223372036854775807",
    "18446744073709551615",
    "9007199254740993",
    "1e308",
    "1e-308",
    "1e400",
    "-1e400",
    "0.0",
    "1.5",
    "100000000000000000000000000000",
];

/// Strings with Unicode edge cases, as JSON text (escapes a Rust string cannot hold).
const UNICODE_TEXTS: [&str; 10] = [
    r#""\ud800""#,
    r#""\udc00x""#,
    r#""a\u0000b""#,
    r#""\u202eevil\u202c""#,
    r#""\u200b\u200c\u200d\ufeff""#,
    r#""🦀🧑‍🚀""#,
    r#""e\u0301\u0301\u0301\u0301\u0301""#,
    r#""\uffff\ufffe""#,
    r#""\ud83e\udd80\ud800\udfff""#,
    "\"\u{10ffff}\"",
];

/// Methods no revision defines (or defines differently).
const UNKNOWN_METHODS: [&str; 9] = [
    "no/such/method",
    "tools/call/",
    "TOOLS/LIST",
    " tools/list",
    "rpc.discover",
    "notifications/unknown",
    "$/cancelRequest",
    "tools\u{0}list",
    "initialize/extra",
];

/// Ids of a type JSON-RPC does not allow, as JSON text.
const WRONG_TYPE_IDS: [&str; 9] = ["null", "1.5", "true", "false", "{}", "[]", "[1]", "{\"id\":1}", "-0.0"];

/// The marker a spliced value replaces.
const SLOT: &str = "\u{1}mcpspec-slot\u{1}";

/// `message` mutated by `mutation`: the line to write (with its newline) and what was done.
pub fn mutate(message: &Value, mutation: Mutation, rng: &mut ChaCha8Rng) -> (Vec<u8>, String) {
    let mut message = message.clone();
    let (raw, what) = match mutation {
        Mutation::DropField => match pick_member(&message, rng) {
            Some((parent, key)) => {
                if let Some(Value::Object(o)) = message.pointer_mut(&parent) {
                    o.shift_remove(&unescape_pointer(&key));
                }
                (None, format!("{parent}/{key} dropped"))
            }
            None => (None, "nothing to drop".to_owned()),
        },
        Mutation::DuplicateKey => match pick_member(&message, rng) {
            Some((parent, key)) => {
                let pointer = format!("{parent}/{key}");
                let first = message.pointer(&pointer).cloned().unwrap_or(Value::Null);
                let second = if rng.random_bool(0.5) { first.clone() } else { retyped(&first, rng) };
                let key_json = serde_json::to_string(&unescape_pointer(&key)).unwrap_or_default();
                let raw = format!("{first},{key_json}:{second}");
                (Some((pointer, raw)), format!("{parent}/{key} given twice"))
            }
            None => (None, "no key to duplicate".to_owned()),
        },
        Mutation::Retype => {
            let pointer = pick_node(&message, rng);
            let current = message.pointer(&pointer).cloned().unwrap_or(Value::Null);
            let new = retyped(&current, rng);
            let what = format!("{pointer} retyped to {}", type_name(&new));
            (Some((pointer, new.to_string())), what)
        }
        Mutation::BoundaryNumber => {
            let pointer = pick_node(&message, rng);
            let number = BOUNDARY_NUMBERS.choose(rng).copied().unwrap_or("0");
            (Some((pointer.clone(), number.to_owned())), format!("{pointer} set to {number}"))
        }
        Mutation::EmptyString => {
            let pointer = pick_node(&message, rng);
            (Some((pointer.clone(), "\"\"".to_owned())), format!("{pointer} set to \"\""))
        }
        Mutation::HugeString => {
            let pointer = pick_node(&message, rng);
            // Log-uniform from 1 KiB to 1 MiB: most stay small.
            let len = 1usize << rng.random_range(10..=20);
            let text = long_string(rng, len / 2 + 1, len);
            let what = format!("{pointer} set to a string of {} bytes", text.len());
            (Some((pointer, format!("\"{text}\""))), what)
        }
        Mutation::DeepNesting => {
            let pointer = pick_node(&message, rng);
            // Log-uniform from 10 to 100 000: past 64, 1 000 and 10 000, where parsers'
            // recursion limits and stacks give out.
            let depth = (10.0 * 10f64.powf(rng.random_range(0.0..4.0))) as usize;
            let (open, close) = if rng.random_bool(0.5) { ("[", "]") } else { ("{\"a\":", "}") };
            let mut text = String::with_capacity(depth * (open.len() + 1) + 1);
            (0..depth).for_each(|_| text.push_str(open));
            text.push('1');
            (0..depth).for_each(|_| text.push_str(close));
            let shape = if open == "[" { "arrays" } else { "objects" };
            (Some((pointer.clone(), text)), format!("{pointer} set to {shape} nested {depth} deep"))
        }
        Mutation::Unicode => {
            let pointer = pick_node(&message, rng);
            let text = UNICODE_TEXTS.choose(rng).copied().unwrap_or("\"\"");
            (Some((pointer.clone(), text.to_owned())), format!("{pointer} set to Unicode edge {text}"))
        }
        Mutation::UnknownMethod | Mutation::EmptyMethod => {
            let method = match mutation {
                Mutation::EmptyMethod => "",
                _ => UNKNOWN_METHODS.choose(rng).copied().unwrap_or_default(),
            };
            if let Value::Object(o) = &mut message {
                o.insert("method".into(), json!(method));
            }
            (None, format!("method {method:?}"))
        }
        Mutation::LongId => {
            let len = (256.0 * 2f64.powf(rng.random_range(0.0..7.9))) as usize;
            let id = long_string(rng, len, len);
            set_id(&mut message);
            (Some(("/id".to_owned(), format!("\"{id}\""))), format!("id a string of {len} bytes"))
        }
        Mutation::EdgeId => {
            let edges = mcpspec_protocol::wire::EDGE_IDS;
            let id = match rng.random_range(0..edges.len() + 2) {
                i if i < edges.len() => edges[i].to_string(),
                i if i == edges.len() => "\"\"".to_owned(),
                _ => "\"0\"".to_owned(),
            };
            set_id(&mut message);
            (Some(("/id".to_owned(), id.clone())), format!("id {id}"))
        }
        Mutation::WrongTypeId => {
            let id = WRONG_TYPE_IDS.choose(rng).copied().unwrap_or("null");
            set_id(&mut message);
            (Some(("/id".to_owned(), id.to_owned())), format!("id {id}"))
        }
    };
    (splice(message, raw), what)
}

/// The message's line with the value at a pointer replaced by raw text.
fn splice(mut message: Value, raw: Option<(String, String)>) -> Vec<u8> {
    let Some((pointer, text)) = raw else { return mcpspec_protocol::framing::encode(&message) };
    match message.pointer_mut(&pointer) {
        Some(slot) => *slot = json!(SLOT),
        None => message = json!(SLOT),
    }
    let encoded = message.to_string();
    let marker = json!(SLOT).to_string();
    let mut out = encoded.replacen(&marker, &text, 1).into_bytes();
    out.push(b'\n');
    out
}

/// Gives a message without an id one, so that an id mutation has somewhere to go.
fn set_id(message: &mut Value) {
    if let Value::Object(o) = message {
        o.entry("id").or_insert(json!(0));
    }
}

/// A pointer to some value of the message other than the whole (the whole if it has no parts),
/// found without recursion and among at most the first 256 values.
fn pick_node(message: &Value, rng: &mut ChaCha8Rng) -> String {
    let nodes = nodes(message);
    let spare_meta = spare_meta(rng);
    let outside: Vec<&String> = nodes.iter().map(|(p, _)| p).filter(|p| !spare_meta(p)).collect();
    match outside.choose(rng) {
        Some(pointer) => (*pointer).clone(),
        None => nodes.choose(rng).map(|(p, _)| p.clone()).unwrap_or_default(),
    }
}

/// An object member of the message: the pointer to its object and its key.
fn pick_member(message: &Value, rng: &mut ChaCha8Rng) -> Option<(String, String)> {
    let spare_meta = spare_meta(rng);
    let mut members = Vec::new();
    for (pointer, value) in std::iter::once((String::new(), message)).chain(nodes(message)) {
        if let Value::Object(o) = value {
            members.extend(
                o.keys()
                    .map(|k| (pointer.clone(), escape_pointer(k)))
                    .filter(|(p, k)| !spare_meta(&format!("{p}/{k}"))),
            );
        }
    }
    members.choose(rng).cloned()
}

/// Which pointers a mutation leaves alone this time: mostly the request `_meta` of the
/// modern era, which holds half the values of a small request but, broken, only gets the
/// request rejected before any handler sees it (the sequences break it on purpose).
fn spare_meta(rng: &mut ChaCha8Rng) -> impl Fn(&str) -> bool {
    let spare = rng.random_bool(0.85);
    move |pointer: &str| spare && pointer.starts_with("/params/_meta/")
}

/// The values under the root with their pointers, breadth first, at most 256.
fn nodes(message: &Value) -> Vec<(String, &Value)> {
    let mut out: Vec<(String, &Value)> = Vec::new();
    let mut queue = std::collections::VecDeque::from([(String::new(), message)]);
    while let Some((pointer, value)) = queue.pop_front() {
        let children: Vec<(String, &Value)> = match value {
            Value::Object(o) => {
                o.iter().map(|(k, v)| (format!("{pointer}/{}", escape_pointer(k)), v)).collect()
            }
            Value::Array(a) => a.iter().enumerate().map(|(i, v)| (format!("{pointer}/{i}"), v)).collect(),
            _ => Vec::new(),
        };
        for child in children {
            if out.len() >= 256 {
                return out;
            }
            out.push(child.clone());
            queue.push_back(child);
        }
    }
    out
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

fn unescape_pointer(token: &str) -> String {
    token.replace("~1", "/").replace("~0", "~")
}

/// A value of another JSON type than `value`.
pub fn retyped(value: &Value, rng: &mut ChaCha8Rng) -> Value {
    let others: Vec<Value> =
        [json!("1"), json!(1), json!(["mcpspec"]), json!({"a": 1}), Value::Null, json!(true)]
            .into_iter()
            .filter(|v| type_name(v) != type_name(value))
            .collect();
    others.choose(rng).cloned().unwrap_or(Value::Null)
}

pub fn type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// A string field's edge value, for callers that want one without a mutation.
pub fn edge_string(rng: &mut ChaCha8Rng) -> &'static str {
    EDGE_STRINGS.choose(rng).copied().unwrap_or_default()
}
