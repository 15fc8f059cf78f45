//! Messages modelled on the examples in the spec docs (`tests/fixtures/examples.jsonl`, one per
//! line: the revisions it applies to, its direction, the method it answers, the expected verdict
//! and a note), judged by our schemas and, when present, by the official ones: both must give
//! the expected verdict.

use mcpspec_protocol::{Direction, Revision};
use mcpspec_schema::{RevisionSchema, SchemaSet, Validation};
use serde_json::Value;

const EXAMPLES: &str = include_str!("../fixtures/examples.jsonl");

fn revisions(range: &str) -> Vec<Revision> {
    let (from, to) = range.split_once("..").unwrap_or((range, range));
    let from: Revision = from.parse().unwrap();
    let to: Revision = to.parse().unwrap();
    Revision::ALL.into_iter().filter(|r| from <= *r && *r <= to).collect()
}

fn verdict(v: &Validation) -> &'static str {
    match v {
        Validation::Valid { .. } => "valid",
        Validation::Invalid { .. } => "invalid",
        Validation::FormatMismatch { .. } => "format mismatch",
        Validation::UnknownMethod { .. } => "unknown",
        Validation::Unmatched { .. } => "unmatched",
    }
}

fn check(set: &SchemaSet, which: &str, failures: &mut Vec<String>) -> usize {
    let mut checked = 0;
    for (n, line) in EXAMPLES.lines().enumerate() {
        let example: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}", n + 1));
        let direction = match example["dir"].as_str() {
            Some("c2s") => Direction::ClientToServer,
            _ => Direction::ServerToClient,
        };
        for rev in revisions(example["revs"].as_str().unwrap()) {
            let schema: &RevisionSchema = set.get(rev).unwrap();
            let got = schema.validate(direction, &example["msg"], example["answers"].as_str());
            checked += 1;
            if verdict(&got) != example["expect"].as_str().unwrap() {
                failures.push(format!("{which} {rev} line {} ({}): {got:?}", n + 1, example["note"]));
            }
        }
    }
    checked
}

#[test]
fn doc_examples_get_the_expected_verdict() {
    let mut failures = Vec::new();
    let checked = check(crate::ours(), "ours", &mut failures);
    assert!(checked > 150, "only {checked} checks");
    if let Some(official) = crate::official() {
        check(official, "official", &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
