//! A deterministic corpus of instances for every definition of a schema document: instances
//! generated from the schema (valid by construction, as far as formats allow) and mutations of
//! each (member dropped, wrong type, wrong enum/const, extra member, boundary numbers, empty and
//! huge strings, bad formats).

use serde_json::{json, Map, Value};

/// splitmix64: small, seedable, no dependency.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

pub struct Generator<'a> {
    pub doc: &'a Value,
    pub rng: Rng,
    /// Include every optional member (down to [`MAX_DEPTH`]), so that mutations reach them all.
    pub full: bool,
}

const MAX_DEPTH: usize = 7;

/// Kinds of mutation (see [`Generator::mutate_at`]).
const OPS: usize = 6;

impl Generator<'_> {
    fn resolve(&self, reference: &str) -> Option<&Value> {
        self.doc.pointer(reference.strip_prefix('#')?)
    }

    /// One instance of `schema`.
    pub fn instance(&mut self, schema: &Value, depth: usize) -> Value {
        let Value::Object(s) = schema else {
            return self.any(depth);
        };
        if let Some(Value::String(r)) = s.get("$ref") {
            let target = self.resolve(r).cloned().unwrap_or(json!({}));
            return self.instance(&target, depth + 1);
        }
        if let Some(c) = s.get("const") {
            return c.clone();
        }
        if let Some(Value::Array(values)) = s.get("enum") {
            return self.rng.pick(values).clone();
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(alts)) = s.get(key) {
                let alt = self.rng.pick(alts).clone();
                return self.instance(&alt, depth + 1);
            }
        }
        if let Some(Value::Array(parts)) = s.get("allOf") {
            let mut merged = Map::new();
            for part in parts.clone() {
                if let Value::Object(o) = self.instance(&part, depth + 1) {
                    merged.extend(o);
                }
            }
            return Value::Object(merged);
        }
        let ty = match s.get("type") {
            Some(Value::String(t)) => t.clone(),
            Some(Value::Array(ts)) => self.rng.pick(ts).as_str().unwrap_or("null").to_owned(),
            _ if s.contains_key("properties") => "object".to_owned(),
            _ => return self.any(depth),
        };
        match ty.as_str() {
            "object" => {
                let mut o = Map::new();
                let required: Vec<&str> = s
                    .get("required")
                    .and_then(Value::as_array)
                    .map(|r| r.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                if let Some(Value::Object(props)) = s.get("properties") {
                    for (name, sub) in props {
                        let wanted = required.contains(&name.as_str())
                            || (depth < MAX_DEPTH && (self.full || self.rng.chance(50)));
                        if wanted {
                            let v = self.instance(sub, depth + 1);
                            o.insert(name.clone(), v);
                        }
                    }
                }
                for name in required {
                    if !o.contains_key(name) {
                        o.insert(name.to_owned(), self.any(depth + 1));
                    }
                }
                if let Some(extra) = s.get("additionalProperties") {
                    if extra.is_object() && depth < MAX_DEPTH && self.rng.chance(30) {
                        let v = self.instance(extra, depth + 1);
                        o.insert(format!("x-{}", self.rng.below(100)), v);
                    }
                }
                Value::Object(o)
            }
            "array" => {
                let n = if depth < MAX_DEPTH { self.rng.below(3) } else { 0 };
                let n = match s.get("maxItems").and_then(Value::as_u64) {
                    Some(max) => n.min(max as usize),
                    None => n,
                };
                let item = s.get("items").cloned().unwrap_or(json!({}));
                Value::Array((0..n).map(|_| self.instance(&item, depth + 1)).collect())
            }
            "string" => match s.get("format").and_then(Value::as_str) {
                Some("uri") => {
                    json!(self.rng.pick(&["https://example.com/a", "file:///tmp/x.txt", "urn:x:y"]))
                }
                Some("uri-template") => json!(self.rng.pick(&["file:///{path}", "https://example.com/{id}"])),
                Some("byte") => json!(self.rng.pick(&["aGVsbG8=", "", "AAAA"])),
                _ => json!(self.rng.pick(&["", "x", "hello world", "2025-06-18", "text", "é✓"])),
            },
            "integer" => {
                let candidates = [0i64, 1, 42, -1, 1000, 2];
                let ok: Vec<i64> = candidates.into_iter().filter(|n| within(s, *n as f64)).collect();
                json!(*self.rng.pick(if ok.is_empty() { &[0] } else { &ok[..] }))
            }
            "number" => {
                let candidates = [0.5f64, 0.0, 1.0, 0.25, 3.5, 7.0];
                let ok: Vec<f64> = candidates.into_iter().filter(|n| within(s, *n)).collect();
                json!(*self.rng.pick(if ok.is_empty() { &[0.5] } else { &ok[..] }))
            }
            "boolean" => json!(self.rng.chance(50)),
            _ => Value::Null,
        }
    }

    fn any(&mut self, depth: usize) -> Value {
        match self.rng.below(if depth < MAX_DEPTH { 7 } else { 5 }) {
            0 => Value::Null,
            1 => json!(self.rng.chance(50)),
            2 => json!(3),
            3 => json!(2.5),
            4 => json!("any"),
            5 => json!([1, "a"]),
            _ => json!({"k": "v"}),
        }
    }

    /// A mutation of `valid`: one change at a random place.
    pub fn mutate(&mut self, valid: &Value) -> Value {
        let mut paths = Vec::new();
        collect_paths(valid, String::new(), &mut paths);
        let path = self.rng.pick(&paths).clone();
        let op = self.rng.below(OPS);
        self.mutate_at(valid, &path, op)
    }

    /// Every kind of mutation at every place of `valid`.
    pub fn mutate_everywhere(&mut self, valid: &Value) -> Vec<Value> {
        let mut paths = Vec::new();
        collect_paths(valid, String::new(), &mut paths);
        let mut out = Vec::new();
        for path in &paths {
            for op in 0..OPS {
                out.push(self.mutate_at(valid, path, op));
            }
        }
        out
    }

    fn mutate_at(&mut self, valid: &Value, path: &str, op: usize) -> Value {
        let mut out = valid.clone();
        let replacement = {
            let node = out.pointer(path).unwrap_or(&Value::Null);
            match op {
                0 => None, // drop it
                1 => Some(self.other_type(node)),
                2 => Some(match node {
                    Value::String(_) => {
                        json!(self.rng.pick(&["zzz-not-an-enum", "", "not a uri", "@@not base64@@", "2.0.1"]))
                    }
                    Value::Number(_) => {
                        json!(self.rng.pick(&[-1.0, 0.0, 1.0, 2.0, 1.5, 1e300, -0.5, 4294967296.0]))
                    }
                    _ => self.other_type(node),
                }),
                3 => Some(match node {
                    Value::Object(o) => {
                        let mut o = o.clone();
                        o.insert("extraMember".into(), json!({"nested": [1, 2]}));
                        Value::Object(o)
                    }
                    Value::Array(a) => {
                        let mut a = a.clone();
                        a.push(a.first().cloned().unwrap_or(json!({})));
                        Value::Array(a)
                    }
                    _ => json!("x".repeat(10_000)),
                }),
                4 => Some(match node {
                    Value::Array(_) => json!([]),
                    Value::Object(_) => json!({}),
                    Value::String(_) => json!(""),
                    Value::Number(n) if n.is_i64() => json!(n.as_i64().unwrap_or(0) as f64 + 0.5),
                    _ => Value::Null,
                }),
                _ => Some(match node {
                    Value::Number(_) => json!(self.rng.pick(&[0, -1, i64::MAX, i64::MIN])),
                    Value::String(s) => json!(format!("{s}{s}-changed")),
                    _ => json!(null),
                }),
            }
        };
        set_at(&mut out, path, replacement);
        out
    }

    fn other_type(&mut self, node: &Value) -> Value {
        let candidates = [json!(5), json!(1.5), json!("s"), json!(true), Value::Null, json!([]), json!({})];
        loop {
            let c = self.rng.pick(&candidates).clone();
            if std::mem::discriminant(&c) != std::mem::discriminant(node) {
                return c;
            }
        }
    }
}

fn within(s: &Map<String, Value>, n: f64) -> bool {
    let min = s.get("minimum").and_then(Value::as_f64).unwrap_or(f64::MIN);
    let max = s.get("maximum").and_then(Value::as_f64).unwrap_or(f64::MAX);
    min <= n && n <= max
}

fn collect_paths(v: &Value, here: String, out: &mut Vec<String>) {
    out.push(here.clone());
    match v {
        Value::Object(o) => {
            for (k, sub) in o {
                let token = k.replace('~', "~0").replace('/', "~1");
                collect_paths(sub, format!("{here}/{token}"), out);
            }
        }
        Value::Array(a) => {
            for (i, sub) in a.iter().enumerate() {
                collect_paths(sub, format!("{here}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// Replaces (or, with `None`, removes) the node at `path`; the root is replaced by null.
fn set_at(root: &mut Value, path: &str, value: Option<Value>) {
    let Some((parent, last)) = path.rsplit_once('/') else {
        *root = value.unwrap_or(Value::Null);
        return;
    };
    let key = last.replace("~1", "/").replace("~0", "~");
    match root.pointer_mut(parent) {
        Some(Value::Object(o)) => match value {
            Some(v) => {
                o.insert(key, v);
            }
            None => {
                o.remove(&key);
            }
        },
        Some(Value::Array(a)) => {
            if let Ok(i) = key.parse::<usize>() {
                match value {
                    Some(v) if i < a.len() => a[i] = v,
                    None if i < a.len() => {
                        a.remove(i);
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}
