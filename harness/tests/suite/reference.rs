//! The reference server passes every scenario at every revision of both eras.

use crate::support::*;
use std::time::Duration;

/// Every scenario judged something, and the wire checks — envelope and schema — ran on each
/// that had a process of its own (one that took a shared process over may have heard nothing
/// from it: closing its stdin, say).
fn assert_wire_checks_ran(run: &Run) {
    for s in run.report.as_ref().unwrap()["scenarios"].as_array().unwrap() {
        // A scenario that does not apply (skipped, with the reason) judges nothing.
        if s["verdict"] == "skipped" {
            continue;
        }
        let checks = s["checks"].as_array().unwrap();
        assert!(checks.iter().any(|c| c["verdict"] == "passed"), "{} judged nothing", s["id"]);
        if shared_use(s).is_some_and(|(_, n)| n > 1) {
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
fn the_reference_server_passes_everything_at_every_revision_of_both_eras() {
    // With the official schemas when they are beside the checkout, else with mcpspec's own.
    let run = certify_reference(None, &[], Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let report = run.report.as_ref().expect("report");
    let not_passed = run.summary("failed") + run.summary("warnings") + run.summary("errors");
    assert_eq!(not_passed, 0, "{}", run.describe());
    let scenarios = report["scenarios"].as_array().unwrap();
    // The scenarios that are not the reference server's: one is about servers of the modern
    // era only, and the reference server speaks both; one about servers that declare no tasks
    // for tools/call; and the probes of features a server did not declare (`*/served-only-if-
    // declared`), while the reference server declares them all.
    let probe = |s: &&serde_json::Value| {
        s["id"].as_str().is_some_and(|id| id.contains("/served-only-if-declared"))
            && s["reason"].as_str().is_some_and(|r| r.starts_with("the server declares the"))
    };
    let mut skipped: Vec<_> = scenarios
        .iter()
        .filter(|s| s["verdict"] == "skipped")
        .filter(|s| !probe(s))
        .map(|s| s["id"].clone())
        .collect();
    skipped.sort_by_key(|id| id.to_string());
    assert_eq!(
        skipped,
        ["tasks/undeclared-tool-call", "version/initialize-names-versions"],
        "{}",
        run.describe()
    );
    let probes = scenarios.iter().filter(|s| s["verdict"] == "skipped").filter(probe).count();
    assert_eq!(
        probes,
        4 + 4 + 8 + 4,
        "tools, prompts, resources (two lists) at 4 revisions, completions at 4"
    );
    let skipped: Vec<_> =
        scenarios.iter().filter(|s| s["verdict"] == "skipped").map(|s| s["id"].clone()).collect();
    for revision in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] {
        let at: Vec<_> = scenarios.iter().filter(|s| s["revision"] == revision).collect();
        assert!(at.len() >= 10, "{revision}: {} scenarios", at.len());
        assert!(at.iter().all(|s| s["verdict"] == "passed" || skipped.contains(&s["id"])), "{revision}");
        let era = if revision == "2026-07-28" { "modern" } else { "legacy" };
        assert!(at.iter().all(|s| s["era"] == era), "{revision}");
    }
    assert_eq!(run.summary("passed") as usize, scenarios.len() - 2 - probes);
    assert_wire_checks_ran(&run);
    assert!(run.stdout.lines().last().unwrap_or("").starts_with("summary: "), "{}", run.stdout);
    assert_no_leftovers(&run.marker);
}

/// A server of the modern era only: its legacy revisions are skipped, each with the reason
/// (it refused initialize and answers server/discover), and the run passes on what it speaks.
#[test]
fn a_modern_only_server_is_certified_in_its_era_only() {
    let schemas = shared_schemas().map(|p| p.display().to_string());
    let mut args = vec!["server"];
    if let Some(s) = &schemas {
        args.extend(["--schema-dir", s.as_str()]);
    }
    args.extend(["--", MCPSPEC, "reference", "server", "--supported", "2026-07-28"]);
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(
        run.summary("failed") + run.summary("warnings") + run.summary("errors"),
        0,
        "{}",
        run.describe()
    );
    let scenarios = run.report.as_ref().unwrap()["scenarios"].as_array().unwrap().clone();
    for s in &scenarios {
        let modern = s["revision"] == "2026-07-28";
        // The probe of an undeclared completions capability: the reference server declares it.
        let verdict =
            if modern && s["id"] != "completion/served-only-if-declared" { "passed" } else { "skipped" };
        assert_eq!(s["verdict"], verdict, "{s}");
        if !modern {
            assert!(s["reason"].as_str().unwrap().contains("speaks only the modern era"), "{s}");
        }
    }
    let named = run.scenarios("version/initialize-names-versions");
    assert!(named.len() == 1 && named[0]["verdict"] == "passed", "{}", run.describe());
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
