//! Each deliberate defect of a test peer is caught by the check that names it, with its clause.

use crate::support::*;
use std::time::Duration;

/// Runs the suite against the reference server with `fault` and returns the failed checks.
fn failures(fault: &str) -> (Run, Vec<(String, String, serde_json::Value)>) {
    let run = certify_reference(
        Some(fault),
        &["--timeout", "2", "--revision", "2025-06-18", "--revision", "2024-11-05"],
        Duration::from_secs(90),
    );
    let failed = run.checks().into_iter().filter(|(_, _, c)| c["verdict"] == "failed").collect();
    (run, failed)
}

fn assert_caught(fault: &str, check: &str, spec_suffix: &str) {
    let (run, failed) = failures(fault);
    assert_eq!(run.code, Some(1), "a MUST failure exits 1\n{}", run.describe());
    let hit = failed.iter().find(|(_, _, c)| c["id"] == check);
    let (_, revision, c) =
        hit.unwrap_or_else(|| panic!("{fault}: no failed {check}; failed: {failed:#?}\n{}", run.describe()));
    assert_eq!(c["level"], "MUST");
    let spec = c["spec"].as_str().unwrap();
    assert!(
        spec.starts_with(&format!("docs/specification/{revision}/")) && spec.ends_with(spec_suffix),
        "{spec}"
    );
    assert!(!c["actual"].as_str().unwrap().is_empty() && !c["expected"].as_str().unwrap().is_empty());
    assert_no_leftovers(&run.marker);
}

#[test]
fn echoing_an_unsupported_revision_fails_the_counter_offer() {
    assert_caught(
        "echo-unsupported-revision",
        "version/counter-offer[1999-01-01]",
        "basic/lifecycle.mdx#version-negotiation",
    );
    let (_, failed) = failures("echo-unsupported-revision");
    let c = &failed.iter().find(|(_, _, c)| c["id"] == "version/counter-offer[not-a-version]").unwrap().2;
    assert!(c["actual"].as_str().unwrap().contains("the unsupported version was echoed"));
}

#[test]
fn a_non_json_line_on_stdout_fails_stdout_only_mcp() {
    assert_caught("non-json-line", "stdio/stdout-only-mcp", "basic/transports.mdx#stdio");
}

#[test]
fn a_response_with_result_and_error_fails_result_xor_error() {
    assert_caught("result-and-error", "jsonrpc/response-result-xor-error", "#responses");
}

#[test]
fn a_changed_id_type_fails_response_id_matches_request() {
    assert_caught("stringify-ids", "jsonrpc/response-id-matches-request", "#responses");
    let (_, failed) = failures("stringify-ids");
    let actual = failed.iter().find(|(_, _, c)| c["id"] == "jsonrpc/response-id-matches-request").unwrap().2
        ["actual"]
        .clone();
    assert!(actual.as_str().unwrap().contains("(string) answering the"), "{actual}");
}

#[test]
fn a_huge_garbage_line_fails_stdout_only_mcp_without_being_buffered() {
    assert_caught("huge-line", "stdio/stdout-only-mcp", "basic/transports.mdx#stdio");
}

#[test]
fn the_faults_are_caught_at_2024_11_05_with_its_own_document() {
    let (_, failed) = failures("result-and-error");
    let c = failed
        .iter()
        .find(|(_, r, c)| r == "2024-11-05" && c["id"] == "jsonrpc/response-result-xor-error")
        .unwrap();
    assert_eq!(c.2["spec"], "docs/specification/2024-11-05/basic/messages.mdx");
}
