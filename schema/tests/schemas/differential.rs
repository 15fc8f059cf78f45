//! Our schema vs the official one, per revision: same definition names, and the same verdict
//! on every instance of a corpus generated from both files (valid instances and mutations of
//! each), per definition and as whole messages through [`RevisionSchema::validate`].
//!
//! Revisions in [`own::REVISIONS`] must show zero disagreements; the others are reported as
//! "not written yet". Our deliberate differences (digest §T errata, where the official file is
//! known to be wrong) are listed in [`ERRATA`]: each is applied to a copy of the official
//! document as a patch at one pointer, so the comparison excludes exactly that case and still
//! checks everything else. The report also counts how many corpus instances each revision
//! judges differently because of them. Elsewhere, where the spec's generator turned TS `number`
//! into `integer`, our definitions do the same, so both judge alike.

use crate::corpus::{Generator, Rng};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_schema::{own, RevisionSchema, Validation};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt::Write;

/// One deliberate difference: in `revisions`, the official value at `pointer` (which must be
/// `official`) is judged as `ours` instead.
struct Erratum {
    revisions: &'static [Revision],
    pointer: &'static str,
    official: fn() -> Value,
    ours: fn() -> Value,
    reason: &'static str,
}

const MODERN: &[Revision] = &[Revision::V2026_07_28, Revision::Draft];

const ERRATA: &[Erratum] = &[
    Erratum {
        revisions: MODERN,
        pointer: "/$defs/JSONValue/anyOf/2/type",
        official: || json!(["string", "integer", "boolean"]),
        ours: || json!(["string", "number", "boolean", "null"]),
        reason: "digest §T5: TS `JSONValue` is string | number | boolean | null | object | array; \
                 the generator dropped null and made number integer",
    },
    Erratum {
        revisions: &[Revision::V2025_06_18],
        pointer: "/definitions/ElicitResult/properties/content/additionalProperties/type",
        official: || json!(["string", "integer", "boolean"]),
        ours: || json!(["string", "number", "boolean"]),
        reason: "digest §T5: TS `ElicitResult.content` values are string | number | boolean",
    },
    Erratum {
        revisions: &[Revision::V2025_11_25, Revision::V2026_07_28, Revision::Draft],
        pointer: "/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type",
        official: || json!(["string", "integer", "boolean"]),
        ours: || json!(["string", "number", "boolean"]),
        reason: "digest §T5: TS `ElicitResult.content` values are string | number | boolean | string[]",
    },
];

/// The official schema with our deliberate differences applied, and how many were applied.
fn with_errata(official: &RevisionSchema) -> (RevisionSchema, usize) {
    let mut doc = official.document().clone();
    let mut applied = 0;
    for e in ERRATA.iter().filter(|e| e.revisions.contains(&official.revision())) {
        let at = doc.pointer_mut(e.pointer).unwrap_or_else(|| {
            panic!("{}: erratum pointer {} is gone ({})", official.revision(), e.pointer, e.reason)
        });
        assert_eq!(
            *at,
            (e.official)(),
            "{}: the official file changed at {}; if the erratum is fixed upstream, drop it ({})",
            official.revision(),
            e.pointer,
            e.reason
        );
        *at = (e.ours)();
        applied += 1;
    }
    let patched = RevisionSchema::from_value(official.revision(), official.origin(), doc)
        .expect("the patched official schema compiles");
    (patched, applied)
}

const VALID_PER_DEFINITION: usize = 8;
const MUTATIONS_PER_VALID: usize = 3;

struct Outcome {
    corpus: usize,
    disagreements: usize,
    /// Instances the unpatched official file judges differently from ours: the errata at work.
    deliberate: usize,
    /// Invalid instances whose violation paths were checked to resolve.
    paths_checked: usize,
    missing: Vec<String>,
    extra: Vec<String>,
    examples: Vec<String>,
}

/// A verdict without its violation details: kind and definition (or method).
fn kind(v: &Validation) -> (&'static str, &str) {
    match v {
        Validation::Valid { definition } => ("valid", definition),
        Validation::Invalid { definition, .. } => ("invalid", definition),
        Validation::FormatMismatch { definition, .. } => ("format mismatch", definition),
        Validation::UnknownMethod { method } => ("unknown method", method),
        Validation::Unmatched { .. } => ("unmatched", ""),
    }
}

fn compare(unpatched: &RevisionSchema, ours: &RevisionSchema) -> Outcome {
    let (patched, _) = with_errata(unpatched);
    let official = &patched;
    let names = |s: &RevisionSchema| s.definitions().map(str::to_owned).collect::<BTreeSet<_>>();
    let (on, mn) = (names(official), names(ours));
    let mut out = Outcome {
        corpus: 0,
        disagreements: 0,
        deliberate: 0,
        paths_checked: 0,
        missing: on.difference(&mn).cloned().collect(),
        extra: mn.difference(&on).cloned().collect(),
        examples: Vec::new(),
    };
    let mut seed = 1;
    for name in on.intersection(&mn) {
        for source in [unpatched, ours] {
            let doc = source.document();
            let key = if doc.get("$defs").is_some() { "$defs" } else { "definitions" };
            let root = json!({ "$ref": format!("#/{key}/{name}") });
            seed += 1;
            let mut generator = Generator { doc, rng: Rng::new(seed), full: true };
            let mut instances = Vec::new();
            // A maximal instance, mutated in every way at every place; then random ones.
            let first = generator.instance(&root, 0);
            instances.extend(generator.mutate_everywhere(&first));
            instances.push(first);
            generator.full = false;
            for _ in 0..VALID_PER_DEFINITION {
                let valid = generator.instance(&root, 0);
                for _ in 0..MUTATIONS_PER_VALID {
                    instances.push(generator.mutate(&valid));
                }
                instances.push(valid);
            }
            for instance in instances {
                out.corpus += 1;
                let a = official.is_valid_as(name, &instance).unwrap();
                let b = ours.is_valid_as(name, &instance).unwrap();
                if unpatched.is_valid_as(name, &instance).unwrap() != b {
                    out.deliberate += 1;
                }
                if !b && out.paths_checked < 3000 {
                    out.paths_checked += 1;
                    check_paths(ours, name, &instance);
                }
                if a != b {
                    out.disagreements += 1;
                    if out.examples.len() < 12 {
                        let mut text = instance.to_string();
                        text.truncate(300);
                        out.examples.push(format!("{name}: official {a}, ours {b}: {text}"));
                    }
                }
                if let Some((message, answered)) = as_message(name, &instance) {
                    for direction in [Direction::ClientToServer, Direction::ServerToClient] {
                        let a = official.validate(direction, &message, answered);
                        let b = ours.validate(direction, &message, answered);
                        if kind(&a) != kind(&b) {
                            out.disagreements += 1;
                            if out.examples.len() < 12 {
                                let mut text = message.to_string();
                                text.truncate(300);
                                out.examples.push(format!(
                                    "{name} as {direction} message: official {a:?}, ours {b:?}: {text}"
                                ));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every violation points at a real place: its schema path resolves in the schema document and
/// its instance path in the instance.
fn check_paths(schema: &RevisionSchema, name: &str, instance: &Value) {
    let Some(Validation::Invalid { violations, .. } | Validation::FormatMismatch { violations, .. }) =
        schema.validate_as(name, instance)
    else {
        panic!("{name}: is_valid_as said invalid, validate_as disagrees: {instance}");
    };
    assert!(!violations.is_empty(), "{name}: invalid without violations: {instance}");
    for v in violations {
        assert!(
            schema.document().pointer(&v.schema_path).is_some(),
            "{} {name}: schema path {} does not resolve ({})",
            schema.revision(),
            v.schema_path,
            v.message
        );
        assert!(
            instance.pointer(&v.instance_path).is_some(),
            "{} {name}: instance path {:?} does not resolve in {instance}",
            schema.revision(),
            v.instance_path
        );
    }
}

/// The method whose result each result definition is (or may be).
const ANSWERS: &[(&str, &str)] = &[
    ("InitializeResult", "initialize"),
    ("EmptyResult", "ping"),
    ("ListToolsResult", "tools/list"),
    ("CallToolResult", "tools/call"),
    ("CreateTaskResult", "tools/call"),
    ("InputRequiredResult", "tools/call"),
    ("ListResourcesResult", "resources/list"),
    ("ListResourceTemplatesResult", "resources/templates/list"),
    ("ReadResourceResult", "resources/read"),
    ("ListPromptsResult", "prompts/list"),
    ("GetPromptResult", "prompts/get"),
    ("CompleteResult", "completion/complete"),
    ("CreateMessageResult", "sampling/createMessage"),
    ("ListRootsResult", "roots/list"),
    ("ElicitResult", "elicitation/create"),
    ("GetTaskResult", "tasks/get"),
    ("GetTaskPayloadResult", "tasks/result"),
    ("CancelTaskResult", "tasks/cancel"),
    ("ListTasksResult", "tasks/list"),
    ("DiscoverResult", "server/discover"),
    ("SubscriptionsListenResult", "subscriptions/listen"),
];

/// An instance as a whole message, with the method it answers: a request or notification
/// (legacy per-method definitions carry only `method` and `params`), or a result wrapped in a
/// result response.
fn as_message(name: &str, instance: &Value) -> Option<(Value, Option<&'static str>)> {
    if let Some((_, method)) = ANSWERS.iter().find(|(result, _)| *result == name) {
        return Some((json!({"jsonrpc": "2.0", "id": 1, "result": instance}), Some(*method)));
    }
    let object = instance.as_object()?;
    if !(name.ends_with("Request") || name.ends_with("Notification")) || !object.contains_key("method") {
        return None;
    }
    let mut message = object.clone();
    message.entry("jsonrpc").or_insert(json!("2.0"));
    if name.ends_with("Request") {
        message.entry("id").or_insert(json!(7));
    }
    Some((Value::Object(message), None))
}

#[test]
fn our_schemas_judge_like_the_official_ones() {
    let Some(official) = crate::official() else {
        return;
    };
    let ours = crate::ours();
    let mut report = String::new();
    let mut failures = Vec::new();
    for rev in Revision::ALL {
        let Some(o) = official.get(rev) else { continue };
        let Some(m) = ours.get(rev) else {
            writeln!(report, "{rev}: not written yet").unwrap();
            continue;
        };
        let outcome = compare(o, m);
        writeln!(
            report,
            "{rev}: corpus {}, disagreements {}, definitions missing {:?}, extra {:?}; \
             {} errata, judged differently from the unpatched official file: {}",
            outcome.corpus,
            outcome.disagreements,
            outcome.missing,
            outcome.extra,
            ERRATA.iter().filter(|e| e.revisions.contains(&rev)).count(),
            outcome.deliberate
        )
        .unwrap();
        for e in &outcome.examples {
            writeln!(report, "    {e}").unwrap();
        }
        let done = own::REVISIONS.contains(&rev);
        if done && (outcome.disagreements > 0 || !outcome.missing.is_empty() || !outcome.extra.is_empty()) {
            failures.push(rev);
        }
        if done {
            assert!(outcome.corpus >= 5000, "{rev}: corpus of {} is below 5000", outcome.corpus);
        }
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "our schemas disagree with the official ones for {failures:?}:\n{report}");
}
