//! Turning validator errors into [`Violation`]s a person can act on.
//!
//! Paths are made absolute: instance paths are pointers into the whole message (a result checked
//! on its own gets the `/result` prefix) and schema paths are pointers into the schema file
//! (`/definitions/InitializeRequest/properties/params/required`). An `anyOf` failure on its own
//! says nothing useful ("not valid under any of the schemas"), so when exactly one alternative
//! is still plausible — its `const` discriminators (e.g. `"type": "text"`) and basic type match —
//! the violations of that alternative are reported instead; otherwise the message names the
//! alternatives.

use crate::compile::{ref_name, Compiled, DefId};
use crate::Violation;
use jsonschema::error::ValidationErrorKind;
use jsonschema::ValidationError;
use serde_json::Value;

/// Appends the violations of `instance` against definition `def`; `prefix` is the pointer of
/// `instance` inside the message (empty, or `/result`).
pub(crate) fn collect(
    compiled: &Compiled,
    def: DefId,
    instance: &Value,
    prefix: &str,
    out: &mut Vec<Violation>,
) {
    let def = &compiled.defs[def];
    for error in def.validator.iter_errors(instance) {
        push(compiled, &def.pointer, &error, prefix, out);
    }
}

/// Like [`collect`], but only the strings of `instance` that do not match their `format` (the
/// errors inside `anyOf`/`oneOf` alternatives included), each (place, format) once: the
/// account of a value that is valid but for formats.
pub(crate) fn collect_formats(
    compiled: &Compiled,
    def: DefId,
    instance: &Value,
    prefix: &str,
    out: &mut Vec<Violation>,
) {
    let def = &compiled.defs[def];
    for error in def.validator.iter_errors(instance) {
        push_formats(compiled, &def.pointer, &error, prefix, out);
    }
}

fn push_formats(
    compiled: &Compiled,
    base: &str,
    error: &ValidationError<'_>,
    prefix: &str,
    out: &mut Vec<Violation>,
) {
    match error.kind() {
        ValidationErrorKind::Format { format } => {
            let instance_path = format!("{prefix}{}", error.instance_path().as_str());
            if out.iter().any(|v| v.instance_path == instance_path && v.format.as_ref() == Some(format)) {
                return;
            }
            let schema_path = absolute_schema_path(compiled, base, error.schema_path().as_str());
            out.push(Violation {
                instance_path,
                schema_path,
                message: describe(error),
                format: Some(format.clone()),
            });
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            for e in context.iter().flatten() {
                push_formats(compiled, base, e, prefix, out);
            }
        }
        _ => {}
    }
}

fn push(
    compiled: &Compiled,
    base: &str,
    error: &ValidationError<'_>,
    prefix: &str,
    out: &mut Vec<Violation>,
) {
    let schema_path = absolute_schema_path(compiled, base, error.schema_path().as_str());
    let instance_path = format!("{prefix}{}", error.instance_path().as_str());
    let format = match error.kind() {
        ValidationErrorKind::Format { format } => Some(format.clone()),
        _ => None,
    };
    let message = match error.kind() {
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            let own = error.instance_path().as_str();
            let plausible: Vec<&Vec<ValidationError<'static>>> =
                context.iter().filter(|branch| plausible(branch, own)).collect();
            if let [branch] = plausible.as_slice() {
                if !branch.is_empty() {
                    for e in branch.iter() {
                        push(compiled, base, e, prefix, out);
                    }
                    return;
                }
            }
            let names = alternatives(compiled, &schema_path);
            let reasons: Vec<String> = context
                .iter()
                .enumerate()
                .map(|(i, branch)| {
                    let name = names.get(i).copied().unwrap_or("an alternative");
                    match branch.first() {
                        Some(first) => {
                            let at = first.instance_path().as_str();
                            let place = match at.strip_prefix(own) {
                                Some("") | None => String::new(),
                                Some(rest) => format!(" at {rest}"),
                            };
                            let more = match branch.len() {
                                1 => String::new(),
                                n => format!(" (+{} more)", n - 1),
                            };
                            format!("{name}: {}{place}{more}", describe(first))
                        }
                        None => format!("{name}: no detail"),
                    }
                })
                .collect();
            format!("{} matches none of the alternatives; {}", short(error.instance()), reasons.join("; "))
        }
        _ => describe(error),
    };
    out.push(Violation { instance_path, schema_path, message, format });
}

/// A branch is implausible when it fails a `const`/`enum` discriminator or the basic type of
/// the value the `anyOf` applies to (or of one of its direct members).
fn plausible(branch: &[ValidationError<'static>], own: &str) -> bool {
    !branch.iter().any(|e| {
        let path = e.instance_path().as_str();
        let at_own = path == own;
        let at_member = path
            .strip_prefix(own)
            .and_then(|rest| rest.strip_prefix('/'))
            .is_some_and(|rest| !rest.contains('/'));
        match e.kind() {
            ValidationErrorKind::Constant { .. } | ValidationErrorKind::Enum { .. } => at_own || at_member,
            ValidationErrorKind::Type { .. } => at_own,
            _ => false,
        }
    })
}

fn absolute_schema_path(compiled: &Compiled, base: &str, path: &str) -> String {
    let key = compiled.defs_key;
    let absolute =
        path.strip_prefix('/').and_then(|p| p.strip_prefix(key)).is_some_and(|p| p.starts_with('/'));
    if absolute {
        path.to_owned()
    } else {
        format!("{base}{path}")
    }
}

/// The names of the alternatives of the `anyOf` at `schema_path`, e.g.
/// `[TextContent, ImageContent, EmbeddedResource]`.
fn alternatives<'c>(compiled: &'c Compiled, schema_path: &str) -> Vec<&'c str> {
    let Some(Value::Array(items)) = compiled.doc.pointer(schema_path) else {
        return Vec::new();
    };
    items
        .iter()
        .map(|a| a.get("$ref").and_then(Value::as_str).and_then(ref_name).unwrap_or("an inline schema"))
        .collect()
}

/// The validator's message, with the offending value shown only when it is short.
fn describe(error: &ValidationError<'_>) -> String {
    if is_short(error.instance()) {
        error.to_string()
    } else {
        error.masked().to_string()
    }
}

fn is_short(value: &Value) -> bool {
    match value {
        Value::Null | Value::Bool(_) | Value::Number(_) => true,
        Value::String(s) => s.len() <= 60,
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

fn short(value: &Value) -> String {
    if is_short(value) {
        value.to_string()
    } else {
        match value {
            Value::String(_) => "the string".to_owned(),
            Value::Array(_) => "the array".to_owned(),
            _ => "the object".to_owned(),
        }
    }
}
