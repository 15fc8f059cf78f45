//! The reference server passes every scenario at every legacy revision.

use crate::support::*;
use std::time::Duration;

#[test]
fn the_reference_server_passes_everything_at_every_legacy_revision() {
    let run = certify_reference(None, &[], Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let report = run.report.as_ref().expect("report");
    assert_eq!(
        run.summary("failed") + run.summary("warnings") + run.summary("errors") + run.summary("skipped"),
        0,
        "{}",
        run.describe()
    );
    let scenarios = report["scenarios"].as_array().unwrap();
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let at: Vec<_> = scenarios.iter().filter(|s| s["revision"] == revision).collect();
        assert!(at.len() >= 10, "{revision}: {} scenarios", at.len());
        assert!(at.iter().all(|s| s["verdict"] == "passed"), "{revision}");
    }
    assert_eq!(run.summary("passed") as usize, scenarios.len());
    // Every scenario judged something, and the wire checks ran on every one.
    for s in scenarios {
        let checks = s["checks"].as_array().unwrap();
        assert!(
            checks.iter().any(|c| c["id"] == "jsonrpc/envelope" && c["verdict"] == "passed"),
            "{}",
            s["id"]
        );
        if shared_schemas().is_some() {
            assert!(
                checks.iter().any(|c| c["id"] == "schema/message-valid" && c["verdict"] == "passed"),
                "{}",
                s["id"]
            );
        }
    }
    assert!(run.stdout.lines().last().unwrap_or("").starts_with("summary: "), "{}", run.stdout);
    assert_no_leftovers(&run.marker);
}

#[test]
fn without_a_command_it_certifies_the_built_in_reference_server() {
    let run = run(&["server", "--revision", "2025-06-18"], true, Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.stderr.contains("certifying the built-in reference server"), "{}", run.stderr);
    assert!(run.summary("passed") >= 10);
    // Without schemas, schema checks are skipped, never passed.
    if std::env::var_os("MCPSPEC_SCHEMA_DIR").is_none() {
        let schema: Vec<_> =
            run.checks().into_iter().filter(|(_, _, c)| c["id"] == "schema/message-valid").collect();
        assert!(!schema.is_empty() && schema.iter().all(|(_, _, c)| c["verdict"] == "skipped"));
    }
}
