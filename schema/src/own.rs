//! mcpspec's own MCP schemas: one source of truth, generated per revision.
//!
//! The definitions live in `schema/defs/*.defs`, written by this project from the spec's
//! TypeScript sources (`schema/<rev>/schema.ts` in modelcontextprotocol/modelcontextprotocol)
//! and docs. The notation is TypeScript-like, with revision ranges on definitions and members:
//!
//! ```text
//! interface Implementation extends BaseMetadata @2025-06-18.. {
//!   version: string;
//!   websiteUrl?: string %format=uri @2025-11-25..;
//! }
//! type Role = "user" | "assistant";
//! ```
//!
//! - `@A..B`, `@A..`, `@..B`, `@A` limit a definition or member to revisions (inclusive);
//!   without one it exists in every revision. A later line for the same member overrides.
//! - Types: `string`, `integer`, `number`, `boolean`, `null`, `unknown` (anything), `object`
//!   (any object), `"literal"`, `-32700` (integer constant), a definition name, `{ members }`,
//!   `T[]`, `A | B`, `A & B`, `(T)`. The spec's generator turns TS `number` into `integer`
//!   unless annotated `@TJS-type number`; here that choice is written out.
//! - `%format=uri`, `%min=0`, `%max=1`, `%maxItems=100` annotate the type before them.
//! - `[*]: T;` is an index signature (`additionalProperties`); `extends A, B` copies the
//!   members of A and B (as of the revision), own members override (as in TypeScript).
//!
//! [`generate`] turns the sources into one JSON Schema document per revision (draft-07 with
//! `definitions` up to 2025-06-18, 2020-12 with `$defs` from 2025-11-25, as the official files),
//! written to `schema/generated/<rev>/schema.json`; a test fails when those files are stale.

use mcpspec_protocol::Revision;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;

/// The definition sources, in the order they are read.
pub const SOURCES: &[(&str, &str)] = &[
    ("base.defs", include_str!("../defs/base.defs")),
    ("lifecycle.defs", include_str!("../defs/lifecycle.defs")),
    ("resources.defs", include_str!("../defs/resources.defs")),
    ("prompts.defs", include_str!("../defs/prompts.defs")),
    ("tools.defs", include_str!("../defs/tools.defs")),
    ("client.defs", include_str!("../defs/client.defs")),
    ("tasks.defs", include_str!("../defs/tasks.defs")),
    ("modern.defs", include_str!("../defs/modern.defs")),
    ("unions.defs", include_str!("../defs/unions.defs")),
];

/// The revisions whose definitions are written: all of them.
pub const REVISIONS: &[Revision] = &Revision::ALL;

macro_rules! embedded {
    ($($rev:ident => $dir:literal),* $(,)?) => {
        &[$((Revision::$rev, include_str!(concat!("../generated/", $dir, "/schema.json")))),*]
    };
}

/// The generated files, embedded: `(revision, schema.json text)`, one per [`REVISIONS`].
pub const GENERATED: &[(Revision, &str)] = embedded![
    V2024_11_05 => "2024-11-05",
    V2025_03_26 => "2025-03-26",
    V2025_06_18 => "2025-06-18",
    V2025_11_25 => "2025-11-25",
    V2026_07_28 => "2026-07-28",
    Draft => "draft",
];

/// A revision range, inclusive on both ends.
#[derive(Debug, Clone, Copy)]
struct Revs {
    from: Revision,
    to: Revision,
}

impl Revs {
    const ALL: Revs = Revs { from: Revision::V2024_11_05, to: Revision::Draft };

    fn contains(self, r: Revision) -> bool {
        self.from <= r && r <= self.to
    }
}

#[derive(Debug, Clone)]
enum Ty {
    Prim(&'static str),
    Unknown,
    AnyObject,
    Str(String),
    Int(i64),
    Ref(String),
    Object(Vec<Member>),
    Array(Box<Ty>),
    Union(Vec<Ty>),
    Inter(Vec<Ty>),
    Annotated(Box<Ty>, Vec<(String, String)>),
}

#[derive(Debug, Clone)]
struct Member {
    /// `None` for an index signature.
    name: Option<String>,
    optional: bool,
    ty: Ty,
    revs: Revs,
}

#[derive(Debug, Clone)]
struct Def {
    name: String,
    revs: Revs,
    extends: Vec<String>,
    /// `Some` for an interface (its members), `None` for a type alias.
    members: Option<Vec<Member>>,
    alias: Option<Ty>,
    source: String,
}

/// A mistake in a `.defs` source, with its place.
#[derive(Debug)]
pub struct DefsError(pub String);

impl std::fmt::Display for DefsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

// ---------------------------------------------------------------------------------------------
// Lexing and parsing

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Str(String),
    Num(i64),
    Revs(String),
    Ann(String, String),
    Punct(char),
}

fn lex(file: &str, text: &str) -> Result<Vec<(Tok, usize)>, DefsError> {
    let mut out = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    let mut line = 1;
    let raw = |i: &mut usize| {
        let start = *i;
        while *i < chars.len() && !chars[*i].is_whitespace() && !";{},()[]|&".contains(chars[*i]) {
            *i += 1;
        }
        chars[start..*i].iter().collect::<String>()
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += 1;
            }
            out.push((Tok::Str(chars[start..i].iter().collect()), line));
            i += 1;
        } else if c == '@' {
            i += 1;
            out.push((Tok::Revs(raw(&mut i)), line));
        } else if c == '%' {
            i += 1;
            let ann = raw(&mut i);
            let (k, v) = ann.split_once('=').unwrap_or((ann.as_str(), ""));
            out.push((Tok::Ann(k.to_owned(), v.to_owned()), line));
        } else if c == '-' || c.is_ascii_digit() {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let s: String = chars[start..i].iter().collect();
            let n = s.parse().map_err(|_| DefsError(format!("{file}:{line}: bad number {s:?}")))?;
            out.push((Tok::Num(n), line));
        } else if c.is_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$') {
                i += 1;
            }
            out.push((Tok::Ident(chars[start..i].iter().collect()), line));
        } else if "{}[]()<>:;?|&,=*".contains(c) {
            out.push((Tok::Punct(c), line));
            i += 1;
        } else {
            return Err(DefsError(format!("{file}:{line}: unexpected character {c:?}")));
        }
    }
    Ok(out)
}

struct Parser<'a> {
    file: &'a str,
    toks: Vec<(Tok, usize)>,
    pos: usize,
}

impl Parser<'_> {
    fn err<T>(&self, what: &str) -> Result<T, DefsError> {
        let (tok, line) =
            self.toks.get(self.pos).map(|(t, l)| (format!("{t:?}"), *l)).unwrap_or(("end of file".into(), 0));
        Err(DefsError(format!("{}:{line}: expected {what}, found {tok}", self.file)))
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(t, _)| t)
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), DefsError> {
        if self.eat(c) {
            Ok(())
        } else {
            self.err(&format!("`{c}`"))
        }
    }

    fn ident(&mut self) -> Result<String, DefsError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => self.err("a name"),
        }
    }

    fn revs(&mut self) -> Result<Revs, DefsError> {
        let Some(Tok::Revs(text)) = self.peek() else {
            return Ok(Revs::ALL);
        };
        let text = text.clone();
        self.pos += 1;
        let parse = |s: &str, default: Revision| -> Result<Revision, DefsError> {
            if s.is_empty() {
                Ok(default)
            } else {
                s.parse().map_err(|e| DefsError(format!("{}: {e}", self.file)))
            }
        };
        Ok(match text.split_once("..") {
            Some((a, b)) => Revs { from: parse(a, Revs::ALL.from)?, to: parse(b, Revs::ALL.to)? },
            None => {
                let r = parse(&text, Revs::ALL.from)?;
                Revs { from: r, to: r }
            }
        })
    }

    fn items(&mut self) -> Result<Vec<Def>, DefsError> {
        let mut defs = Vec::new();
        while self.peek().is_some() {
            let line = self.toks[self.pos].1;
            let source = format!("{}:{line}", self.file);
            match self.ident()?.as_str() {
                "type" => {
                    let name = self.ident()?;
                    let revs = self.revs()?;
                    self.expect('=')?;
                    let ty = self.ty()?;
                    self.expect(';')?;
                    defs.push(Def { name, revs, extends: vec![], members: None, alias: Some(ty), source });
                }
                "interface" => {
                    let name = self.ident()?;
                    let mut extends = Vec::new();
                    if self.peek() == Some(&Tok::Ident("extends".into())) {
                        self.pos += 1;
                        loop {
                            extends.push(self.ident()?);
                            if !self.eat(',') {
                                break;
                            }
                        }
                    }
                    let revs = self.revs()?;
                    self.expect('{')?;
                    let members = self.members()?;
                    defs.push(Def { name, revs, extends, members: Some(members), alias: None, source });
                }
                _ => {
                    self.pos -= 1;
                    return self.err("`type` or `interface`");
                }
            }
        }
        Ok(defs)
    }

    /// Members up to and including the closing `}`.
    fn members(&mut self) -> Result<Vec<Member>, DefsError> {
        let mut members = Vec::new();
        while !self.eat('}') {
            let name = if self.eat('[') {
                self.expect('*')?;
                self.expect(']')?;
                None
            } else {
                match self.peek() {
                    Some(Tok::Str(s)) => {
                        let s = s.clone();
                        self.pos += 1;
                        Some(s)
                    }
                    _ => Some(self.ident()?),
                }
            };
            let optional = self.eat('?');
            self.expect(':')?;
            let ty = self.ty()?;
            let revs = self.revs()?;
            self.expect(';')?;
            members.push(Member { name, optional, ty, revs });
        }
        Ok(members)
    }

    fn ty(&mut self) -> Result<Ty, DefsError> {
        let mut alts = vec![self.inter()?];
        while self.eat('|') {
            alts.push(self.inter()?);
        }
        Ok(if alts.len() == 1 { alts.pop().unwrap() } else { Ty::Union(alts) })
    }

    fn inter(&mut self) -> Result<Ty, DefsError> {
        let mut parts = vec![self.postfix()?];
        while self.eat('&') {
            parts.push(self.postfix()?);
        }
        Ok(if parts.len() == 1 { parts.pop().unwrap() } else { Ty::Inter(parts) })
    }

    fn annotations(&mut self, ty: Ty) -> Ty {
        let mut anns = Vec::new();
        while let Some(Tok::Ann(k, v)) = self.peek() {
            anns.push((k.clone(), v.clone()));
            self.pos += 1;
        }
        if anns.is_empty() {
            ty
        } else {
            Ty::Annotated(Box::new(ty), anns)
        }
    }

    fn postfix(&mut self) -> Result<Ty, DefsError> {
        let primary = self.primary()?;
        let mut ty = self.annotations(primary);
        while self.peek() == Some(&Tok::Punct('[')) {
            self.pos += 1;
            self.expect(']')?;
            ty = self.annotations(Ty::Array(Box::new(ty)));
        }
        Ok(ty)
    }

    fn primary(&mut self) -> Result<Ty, DefsError> {
        let Some(tok) = self.peek().cloned() else {
            return self.err("a type");
        };
        self.pos += 1;
        Ok(match tok {
            Tok::Str(s) => Ty::Str(s),
            Tok::Num(n) => Ty::Int(n),
            Tok::Punct('{') => Ty::Object(self.members()?),
            Tok::Punct('(') => {
                let t = self.ty()?;
                self.expect(')')?;
                t
            }
            Tok::Ident(name) => match name.as_str() {
                "string" => Ty::Prim("string"),
                "integer" => Ty::Prim("integer"),
                "number" => Ty::Prim("number"),
                "boolean" => Ty::Prim("boolean"),
                "null" => Ty::Prim("null"),
                "unknown" => Ty::Unknown,
                "object" => Ty::AnyObject,
                _ => Ty::Ref(name),
            },
            _ => {
                self.pos -= 1;
                return self.err("a type");
            }
        })
    }
}

fn parse_all(sources: &[(&str, &str)]) -> Result<Vec<Def>, DefsError> {
    let mut defs = Vec::new();
    for (file, text) in sources {
        let toks = lex(file, text)?;
        defs.extend(Parser { file, toks, pos: 0 }.items()?);
    }
    Ok(defs)
}

// ---------------------------------------------------------------------------------------------
// Emitting

struct Emitter<'a> {
    rev: Revision,
    defs: BTreeMap<&'a str, &'a Def>,
    key: &'static str,
}

impl Emitter<'_> {
    fn members(&self, def: &Def, depth: usize) -> Result<Vec<Member>, DefsError> {
        if depth > 16 {
            return Err(DefsError(format!("{}: `extends` cycle at {}", def.source, def.name)));
        }
        let mut out: Vec<Member> = Vec::new();
        for parent in &def.extends {
            let p = self.defs.get(parent.as_str()).ok_or_else(|| {
                DefsError(format!("{}: {} extends {parent}, absent in {}", def.source, def.name, self.rev))
            })?;
            for m in self.members(p, depth + 1)? {
                out.retain(|o| o.name != m.name);
                out.push(m);
            }
        }
        for m in def.members.iter().flatten().filter(|m| m.revs.contains(self.rev)) {
            out.retain(|o| o.name != m.name);
            out.push(m.clone());
        }
        Ok(out)
    }

    fn object(&self, members: &[Member], ctx: &str) -> Result<Value, DefsError> {
        let mut props = Map::new();
        let mut required = Vec::new();
        let mut extra = None;
        let mut seen: Vec<&Member> = Vec::new();
        for m in members.iter().filter(|m| m.revs.contains(self.rev)) {
            seen.retain(|o| o.name != m.name);
            seen.push(m);
        }
        let mut seen: Vec<&Member> = seen;
        seen.sort_by(|a, b| a.name.cmp(&b.name));
        for m in seen {
            match &m.name {
                None => extra = Some(self.ty(&m.ty, ctx)?),
                Some(name) => {
                    props.insert(name.clone(), self.ty(&m.ty, ctx)?);
                    if !m.optional {
                        required.push(Value::String(name.clone()));
                    }
                }
            }
        }
        let mut o = Map::new();
        if let Some(extra) = extra {
            o.insert("additionalProperties".into(), extra);
        }
        if !props.is_empty() {
            o.insert("properties".into(), Value::Object(props));
        }
        if !required.is_empty() {
            o.insert("required".into(), Value::Array(required));
        }
        o.insert("type".into(), json!("object"));
        Ok(Value::Object(o))
    }

    fn ty(&self, ty: &Ty, ctx: &str) -> Result<Value, DefsError> {
        Ok(match ty {
            Ty::Prim(p) => json!({ "type": p }),
            Ty::Unknown => json!({}),
            Ty::AnyObject => json!({ "type": "object" }),
            Ty::Str(s) => json!({ "const": s, "type": "string" }),
            Ty::Int(n) => json!({ "const": n, "type": "integer" }),
            Ty::Ref(name) => {
                if !self.defs.contains_key(name.as_str()) {
                    return Err(DefsError(format!("{ctx}: `{name}` is not defined in {}", self.rev)));
                }
                json!({ "$ref": format!("#/{}/{name}", self.key) })
            }
            Ty::Object(members) => self.object(members, ctx)?,
            Ty::Array(item) => json!({ "items": self.ty(item, ctx)?, "type": "array" }),
            Ty::Union(alts) => {
                if alts.iter().all(|a| matches!(a, Ty::Str(_))) {
                    let values: Vec<&String> =
                        alts.iter().filter_map(|a| if let Ty::Str(s) = a { Some(s) } else { None }).collect();
                    json!({ "enum": values, "type": "string" })
                } else if alts.iter().all(|a| matches!(a, Ty::Prim(_))) {
                    let types: Vec<&str> = alts
                        .iter()
                        .filter_map(|a| if let Ty::Prim(p) = a { Some(*p) } else { None })
                        .collect();
                    json!({ "type": types })
                } else {
                    let alts: Result<Vec<Value>, _> = alts.iter().map(|a| self.ty(a, ctx)).collect();
                    json!({ "anyOf": alts? })
                }
            }
            Ty::Inter(parts) => {
                let parts: Result<Vec<Value>, _> = parts.iter().map(|a| self.ty(a, ctx)).collect();
                json!({ "allOf": parts? })
            }
            Ty::Annotated(inner, anns) => {
                let mut v = self.ty(inner, ctx)?;
                let o = v.as_object_mut().expect("types emit objects");
                for (k, val) in anns {
                    let (key, value) = match k.as_str() {
                        "format" => ("format", json!(val)),
                        "min" => ("minimum", number(val, ctx)?),
                        "max" => ("maximum", number(val, ctx)?),
                        "maxItems" => ("maxItems", number(val, ctx)?),
                        other => return Err(DefsError(format!("{ctx}: unknown annotation %{other}"))),
                    };
                    o.insert(key.into(), value);
                }
                v
            }
        })
    }
}

fn number(s: &str, ctx: &str) -> Result<Value, DefsError> {
    serde_json::from_str::<Value>(s)
        .ok()
        .filter(Value::is_number)
        .ok_or_else(|| DefsError(format!("{ctx}: {s:?} is not a number")))
}

/// The generated schema document of one revision.
pub fn generate(rev: Revision) -> Result<Value, DefsError> {
    generate_from(SOURCES, rev)
}

/// The schema document of one revision generated from `(file name, text)` sources.
pub fn generate_from(sources: &[(&str, &str)], rev: Revision) -> Result<Value, DefsError> {
    let all = parse_all(sources)?;
    let mut defs: BTreeMap<&str, &Def> = BTreeMap::new();
    for def in all.iter().filter(|d| d.revs.contains(rev)) {
        if let Some(other) = defs.insert(def.name.as_str(), def) {
            return Err(DefsError(format!(
                "{}: {} is also defined at {} for {rev}",
                def.source, def.name, other.source
            )));
        }
    }
    let modern = rev >= Revision::V2025_11_25;
    let key = if modern { "$defs" } else { "definitions" };
    let emitter = Emitter { rev, defs, key };
    let mut out = Map::new();
    for (name, def) in &emitter.defs {
        let ctx = format!("{} ({name}, {rev})", def.source);
        let schema = match &def.alias {
            Some(ty) => emitter.ty(ty, &ctx)?,
            None => emitter.object(&emitter.members(def, 0)?, &ctx)?,
        };
        out.insert((*name).to_owned(), schema);
    }
    let dialect = if modern {
        "https://json-schema.org/draft/2020-12/schema"
    } else {
        "http://json-schema.org/draft-07/schema#"
    };
    let mut doc = Map::new();
    doc.insert("$schema".into(), json!(dialect));
    doc.insert(
        "$comment".into(),
        json!(format!(
            "MCP {rev} message schema by mcpspec, generated from schema/defs/*.defs \
             (written from the spec's schema.ts and docs); do not edit"
        )),
    );
    doc.insert(key.into(), Value::Object(out));
    Ok(Value::Object(doc))
}

/// The text of a generated file: pretty JSON with a trailing newline.
pub fn render(rev: Revision) -> Result<String, DefsError> {
    let mut text = serde_json::to_string_pretty(&generate(rev)?).expect("JSON values print");
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gen(text: &str, rev: Revision) -> Result<Value, String> {
        generate_from(&[("t.defs", text)], rev).map_err(|e| e.0)
    }

    #[test]
    fn members_follow_revisions_and_extends_overrides() {
        let text = r#"
            interface Base { name: string; size?: integer; }
            interface Item extends Base @2025-06-18.. {
              size: number %min=0;          # overrides the parent's member, now required
              title?: string @2025-11-25..;
              tags: (string %format=uri)[];
            }
        "#;
        assert_eq!(gen(text, Revision::V2025_03_26).unwrap()["definitions"].get("Item"), None);
        let doc = gen(text, Revision::V2025_06_18).unwrap();
        assert_eq!(
            doc["definitions"]["Item"],
            json!({"properties": {"name": {"type": "string"}, "size": {"minimum": 0, "type": "number"},
                   "tags": {"items": {"format": "uri", "type": "string"}, "type": "array"}},
                   "required": ["name", "size", "tags"], "type": "object"})
        );
        let doc = gen(text, Revision::V2025_11_25).unwrap();
        assert_eq!(doc["$schema"], "https://json-schema.org/draft/2020-12/schema");
        assert_eq!(doc["$defs"]["Item"]["properties"]["title"], json!({"type": "string"}));
    }

    #[test]
    fn unions_become_enums_type_lists_or_any_of() {
        let text = r#"
            type Role = "user" | "assistant";
            type Id = string | integer;
            type Either = Role | { [*]: boolean; } | -32700;
            type Both = Role & Id;
        "#;
        let d = &gen(text, Revision::V2024_11_05).unwrap()["definitions"];
        assert_eq!(d["Role"], json!({"enum": ["user", "assistant"], "type": "string"}));
        assert_eq!(d["Id"], json!({"type": ["string", "integer"]}));
        assert_eq!(
            d["Either"],
            json!({"anyOf": [{"$ref": "#/definitions/Role"},
                             {"additionalProperties": {"type": "boolean"}, "type": "object"},
                             {"const": -32700, "type": "integer"}]})
        );
        assert_eq!(
            d["Both"],
            json!({"allOf": [{"$ref": "#/definitions/Role"}, {"$ref": "#/definitions/Id"}]})
        );
    }

    #[test]
    fn mistakes_name_the_place() {
        let e = gen("interface A { b: Missing; }", Revision::V2024_11_05).unwrap_err();
        assert!(e.contains("t.defs:1") && e.contains("`Missing` is not defined in 2024-11-05"), "{e}");
        let e = gen("type A = string;\ntype A = integer;", Revision::V2024_11_05).unwrap_err();
        assert!(e.contains("t.defs:2") && e.contains("also defined at t.defs:1"), "{e}");
        let e = gen("type A = string %pattern=x;", Revision::V2024_11_05).unwrap_err();
        assert!(e.contains("unknown annotation %pattern"), "{e}");
        let e = gen("interface A {\n  b: string\n}", Revision::V2024_11_05).unwrap_err();
        assert!(e.contains("t.defs:3") && e.contains("expected `;`"), "{e}");
        let e = gen("type A = string ^;", Revision::V2024_11_05).unwrap_err();
        assert!(e.contains("unexpected character '^'"), "{e}");
        let e = gen("type A @2025-13-01.. = string;", Revision::V2024_11_05).unwrap_err();
        assert!(e.contains("unknown MCP revision"), "{e}");
    }
}
