//! The reference server passes every scenario at every legacy revision.

use crate::support::*;
use std::time::Duration;

/// Every scenario judged something, and the wire checks — envelope and schema — ran on each
/// that had a process of its own (one that took a shared process over may have heard nothing
/// from it: closing its stdin, say).
fn assert_wire_checks_ran(run: &Run) {
    for s in run.report.as_ref().unwrap()["scenarios"].as_array().unwrap() {
        let checks = s["checks"].as_array().unwrap();
        assert!(checks.iter().any(|c| c["verdict"] == "passed"), "{} judged nothing", s["id"]);
        if s["session"].as_str().is_some_and(|session| session.contains("opened by")) {
            continue;
        }
        for id in ["jsonrpc/envelope", "schema/message-valid"] {
            assert!(
                checks.iter().any(|c| c["id"] == id && c["verdict"] == "passed"),
                "{} lacks {id}",
                s["id"]
            );
        }
    }
}

#[test]
fn the_reference_server_passes_everything_at_every_legacy_revision() {
    // With the official schemas when they are beside the checkout, else with mcpspec's own.
    let run = certify_reference(None, &[], Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let report = run.report.as_ref().expect("report");
    let not_passed =
        run.summary("failed") + run.summary("warnings") + run.summary("errors") + run.summary("skipped");
    assert_eq!(not_passed, 0, "{}", run.describe());
    let scenarios = report["scenarios"].as_array().unwrap();
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let at: Vec<_> = scenarios.iter().filter(|s| s["revision"] == revision).collect();
        assert!(at.len() >= 10, "{revision}: {} scenarios", at.len());
        assert!(at.iter().all(|s| s["verdict"] == "passed"), "{revision}");
    }
    assert_eq!(run.summary("passed") as usize, scenarios.len());
    assert_wire_checks_ran(&run);
    assert!(run.stdout.lines().last().unwrap_or("").starts_with("summary: "), "{}", run.stdout);
    assert_no_leftovers(&run.marker);
}

#[test]
fn without_a_command_it_certifies_the_built_in_reference_server_with_its_own_schemas() {
    let run = run(&["server"], true, Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stderr.contains("certifying the built-in reference server"), "{}", run.stderr);
    assert!(run.summary("passed") >= 40);
    assert_wire_checks_ran(&run);
}
