//! Verdicts a certifier can trust: no pass where nothing was tested, no failure where nothing
//! was broken. Each test runs a peer that once got the wrong verdict.

use crate::support::*;
use std::time::Duration;

/// A server that never agrees on a revision (it counter-offers another supported one whatever
/// it is offered) once ended with every scenario skipped and exit 0. Its counter-offers are now
/// taken at their word and fail when offered back.
#[test]
fn a_server_that_always_counter_offers_fails_version_negotiation() {
    let run = certify_reference(Some("counter-offer-always"), &["--timeout", "2"], Duration::from_secs(120));
    assert_eq!(run.code, Some(1), "a broken MUST exits 1\n{}", run.describe());
    let failed: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(id, _, c)| id == "version/answer-supported" && c["verdict"] == "failed")
        .collect();
    // Offered each of the four legacy revisions, it answered with another one, which it then
    // did not echo either.
    let revisions: std::collections::BTreeSet<_> = failed.iter().map(|(_, r, _)| r.clone()).collect();
    assert_eq!(revisions.len(), 4, "{failed:#?}\n{}", run.describe());
    let c = &failed[0].2;
    assert_eq!(c["level"], "MUST");
    assert!(c["spec"].as_str().unwrap().ends_with("basic/lifecycle.mdx#version-negotiation"), "{c}");
    assert!(c["expected"].as_str().unwrap().starts_with("\"protocolVersion\": \""), "{c}");
    assert_eq!(run.summary("passed"), 0, "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// A stand-in for a server of a revision mcpspec does not try by default: it answers every
/// initialize with "2099-01-01" (echoing it when offered), and pings with {}.
const FUTURE_SERVER: &str = r#"
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if "id" not in m or "method" not in m:
        continue
    if m["method"] == "initialize":
        result = {"protocolVersion": "2099-01-01", "capabilities": {},
                  "serverInfo": {"name": "future", "version": "1"}}
    else:
        result = {}
    print(json.dumps({"jsonrpc": "2.0", "id": m["id"], "result": result}), flush=True)
"#;

/// A consistent server that speaks none of the revisions tried: its counter-offer holds up, but
/// nothing else could be tested, so the run has no verdict — never exit 0, never "passed" alone.
#[test]
fn a_run_that_tests_no_revision_has_no_verdict() {
    let run = run(
        &["server", "--timeout", "2", "--", "python3", "-c", FUTURE_SERVER],
        true,
        Duration::from_secs(120),
    );
    assert_eq!(run.code, Some(4), "nothing tested exits 4\n{}", run.describe());
    let report = run.report.as_ref().expect("report.json");
    let why = report["not_tested"].as_str().expect("report.json says why nothing was tested");
    assert!(why.contains("counter-offered \"2099-01-01\""), "{why}");
    assert!(run.stdout.contains("not tested: no revision could be tested"), "{}", run.describe());
    // The one judged scenario per revision: the counter-offer, offered back, is echoed.
    let judged: Vec<_> =
        run.checks().into_iter().filter(|(id, _, _)| id == "version/answer-supported").collect();
    assert!(judged.len() >= 4 && judged.iter().all(|(_, _, c)| c["verdict"] == "passed"), "{judged:#?}");
    assert_eq!(run.summary("failed"), 0, "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// `tools/structured-output` once failed a tool that rightly answered arguments it refused
/// with an error result (mcp-server-time, called with a made-up timezone): the output schema
/// binds successful results only, so the check is inconclusive, never failed.
#[test]
fn an_error_result_leaves_structured_output_inconclusive() {
    let run = certify_reference(
        Some("output-tool-refuses"),
        &["--timeout", "2", "--revision", "2025-11-25"],
        Duration::from_secs(120),
    );
    let scenario = run.report.as_ref().and_then(|r| {
        r["scenarios"].as_array()?.iter().find(|s| s["id"] == "tools/structured-output").cloned()
    });
    let scenario = scenario.unwrap_or_else(|| panic!("no tools/structured-output\n{}", run.describe()));
    assert_eq!(scenario["verdict"], "skipped", "{scenario:#}");
    assert!(scenario["reason"]
        .as_str()
        .unwrap()
        .starts_with("inconclusive: the tool answered with an error result"));
    assert_eq!(run.code, Some(0), "{}", run.describe());
}
