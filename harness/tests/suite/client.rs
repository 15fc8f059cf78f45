//! The client suite: `mcpspec client` certifies the reference client at every legacy revision,
//! catches each fault of the fault-injecting reference client (`mcpspec reference client
//! --fault NAME`) with the check that names it, and ends uncooperative clients within the
//! timeout, leaving no process behind.

use crate::support::{assert_no_leftovers, run, Run, MCPSPEC};
use std::time::Duration;

/// The revision the fault tests run at unless they say otherwise.
const FAULT_REVISION: &str = "2025-06-18";

/// `mcpspec client --timeout 2 --revision R -- mcpspec reference client --fault F`.
fn certify_faulty_at(revision: &str, fault: &str) -> Run {
    let args = [
        "client",
        "-j",
        "8",
        "--timeout",
        "2",
        "--revision",
        revision,
        "--",
        MCPSPEC,
        "reference",
        "client",
        "--fault",
        fault,
    ];
    let run = run(&args, true, Duration::from_secs(60));
    assert_no_leftovers(&run.marker);
    run
}

fn certify_faulty(fault: &str) -> Run {
    certify_faulty_at(FAULT_REVISION, fault)
}

/// The verdict of check `check` in scenario `scenario` (the worst, if it occurs more than once).
fn verdicts(run: &Run, scenario: &str, check: &str) -> Vec<String> {
    run.checks()
        .into_iter()
        .filter(|(s, _, c)| s == scenario && c["id"] == check)
        .map(|(_, _, c)| c["verdict"].as_str().unwrap_or("").to_owned())
        .collect()
}

fn assert_caught(fault: &str, scenario: &str, check: &str, verdict: &str) {
    assert_caught_at(FAULT_REVISION, fault, scenario, check, verdict);
}

/// At `revision`, `--fault F` gives `check` the `verdict` in `scenario`, and the run's exit code
/// follows from that verdict; returns the run.
fn assert_caught_at(revision: &str, fault: &str, scenario: &str, check: &str, verdict: &str) -> Run {
    let run = certify_faulty_at(revision, fault);
    let seen = verdicts(&run, scenario, check);
    assert!(
        seen.iter().any(|v| v == verdict),
        "--fault {fault}: expected {check} {verdict} in {scenario}, saw {seen:?}\n{}",
        run.describe()
    );
    let expected_code = if verdict == "failed" { 1 } else { 0 };
    assert_eq!(run.code, Some(expected_code), "{}", run.describe());
    run
}

#[test]
fn client_reference_passes_every_legacy_revision() {
    let run = run(&["client", "-j", "8", "--timeout", "5"], true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(run.summary("failed"), 0, "{}", run.describe());
    assert_eq!(run.summary("warnings"), 0, "{}", run.describe());
    assert_eq!(run.summary("errors"), 0, "{}", run.describe());
    let report = run.report.as_ref().unwrap();
    let scenarios = report["scenarios"].as_array().unwrap();
    // 18 scenarios at every legacy revision, client-lifecycle/negotiated-capabilities and
    // client-elicitation/form from 2025-06-18 on, and 8 more sampling and elicitation scenarios
    // at 2025-11-25 (`@since`). Skipped, because the reference client declares what they need
    // absent: client-roots/undeclared at each revision (it declares roots), and at 2025-11-25
    // client-sampling/tools-undeclared (it declares sampling.tools) and
    // client-elicitation/undeclared-mode (it declares elicitation.url).
    assert_eq!(run.summary("skipped"), 6, "{}", run.describe());
    assert_eq!(scenarios.len(), 84, "{}", run.describe());
    for (rev, n) in [("2024-11-05", 18), ("2025-03-26", 18), ("2025-06-18", 20), ("2025-11-25", 28)] {
        assert_eq!(scenarios.iter().filter(|s| s["revision"] == rev).count(), n, "{rev}");
    }
    let skipped: Vec<_> =
        scenarios.iter().filter(|s| s["verdict"] == "skipped").map(|s| s["id"].clone()).collect();
    for id in ["client-sampling/tools-undeclared", "client-elicitation/undeclared-mode"] {
        assert!(skipped.contains(&serde_json::json!(id)), "{id} not skipped: {skipped:?}");
    }
    // The client's own messages were judged: envelope and schema, at the negotiated revision.
    let checks = run.checks();
    for id in ["jsonrpc/envelope", "schema/message-valid"] {
        assert!(checks.iter().any(|(_, _, c)| c["id"] == id && c["verdict"] == "passed"), "no passed {id}");
    }
    assert_no_leftovers(&run.marker);
}

#[test]
fn client_fault_skip_initialized() {
    assert_caught(
        "skip-initialized",
        "client-lifecycle/initialized-after-response",
        "client-lifecycle/initialized-after-response",
        "failed",
    );
}

#[test]
fn client_fault_early_initialized() {
    assert_caught(
        "early-initialized",
        "client-lifecycle/initialized-after-response",
        "client-lifecycle/initialized-after-response",
        "failed",
    );
}

#[test]
fn client_fault_reuse_ids() {
    assert_caught("reuse-ids", "client-lifecycle/request-ids", "jsonrpc/request-id-unique", "failed");
    assert_caught("reuse-ids", "client-lifecycle/request-ids", "client-lifecycle/request-ids", "failed");
}

#[test]
fn client_fault_null_id() {
    assert_caught("null-id", "client-lifecycle/request-ids", "jsonrpc/request-id-not-null", "failed");
}

#[test]
fn client_fault_request_before_initialize() {
    assert_caught(
        "request-before-initialize",
        "client-lifecycle/initialize-first",
        "client-lifecycle/initialize-first",
        "failed",
    );
}

#[test]
fn client_fault_ignore_requests() {
    assert_caught("ignore-requests", "client-lifecycle/ping", "client-lifecycle/ping", "failed");
}

#[test]
fn client_fault_accept_any_version() {
    assert_caught(
        "accept-any-version",
        "client-version/counter-offer-unsupported",
        "client-version/counter-offer-unsupported",
        "warning",
    );
}

#[test]
fn client_fault_roots_not_file() {
    assert_caught("roots-not-file", "client-roots/list", "client-roots/list", "failed");
}

#[test]
fn client_without_roots_answers_roots_list_with_method_not_found() {
    assert_caught("declare-nothing", "client-roots/undeclared", "client-roots/undeclared", "passed");
}

#[test]
fn client_fault_sampling_without_model() {
    assert_caught(
        "sampling-without-model",
        "client-sampling/create-message",
        "client-sampling/create-message",
        "failed",
    );
    assert_caught(
        "sampling-without-model",
        "client-sampling/create-message",
        "schema/message-valid",
        "failed",
    );
}

#[test]
fn client_fault_offer_oldest() {
    assert_caught("offer-oldest", "client-version/offers-latest", "client-version/offers-latest", "warning");
}

#[test]
fn client_fault_no_shutdown_is_bounded() {
    let run = certify_faulty("no-shutdown");
    let seen = verdicts(&run, "client-lifecycle/shutdown", "client-lifecycle/shutdown");
    assert!(seen.contains(&"warning".to_owned()), "{seen:?}\n{}", run.describe());
    assert!(run.elapsed < Duration::from_secs(20), "{}", run.describe());
}

#[test]
fn client_fault_exit_early_is_a_failure() {
    let run = certify_faulty("exit-early");
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let checks = verdicts(&run, "client-lifecycle/initialize-first", "client-lifecycle/initialize-first");
    assert_eq!(checks, ["failed"], "{}", run.describe());
    assert!(run.stdout.contains("did not start the server command"), "{}", run.describe());
}

#[test]
fn client_that_never_connects_ends_within_the_timeout() {
    // The client also starts a child of its own, which must not outlive the run.
    let args = [
        "client",
        "-j",
        "8",
        "--timeout",
        "2",
        "--revision",
        "2025-11-25",
        "--",
        "sh",
        "-c",
        "sleep 60 & sleep 60",
    ];
    let run = run(&args, true, Duration::from_secs(60));
    assert_eq!(run.code, Some(1), "{}", run.describe());
    // The 28 scenarios at 2025-11-25: 16 MUST ones fail, 12 SHOULD ones warn.
    assert_eq!(run.summary("failed"), 16, "{}", run.describe());
    assert_eq!(run.summary("warnings"), 12, "{}", run.describe());
    assert!(
        run.stdout.contains("the client did not start the server command within 2s"),
        "{}",
        run.describe()
    );
    // 28 scenarios, 8 at a time, 2 s each, plus the shutdown of each client (and its child).
    assert!(run.elapsed < Duration::from_secs(20), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

#[test]
fn client_that_cannot_start_is_an_error_of_the_run() {
    let args = ["client", "--timeout", "2", "--revision", "2025-11-25", "--", "/nonexistent/mcp-client"];
    let run = run(&args, true, Duration::from_secs(60));
    assert_eq!(run.summary("errors"), 28, "{}", run.describe());
}

#[test]
fn client_fault_silent_ends_within_the_timeout() {
    let run = certify_faulty("silent");
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let checks = verdicts(&run, "client-lifecycle/initialize-first", "client-lifecycle/initialize-first");
    assert_eq!(checks, ["failed"], "{}", run.describe());
    assert!(run.stdout.contains("nothing within 2s"), "{}", run.describe());
    assert!(run.elapsed < Duration::from_secs(20), "{}", run.describe());
}

/// Regression: a deadline passes while a client floods (the queue of its lines is never empty),
/// and the garbage is reported, once per rule with a count of the rest.
#[test]
fn client_fault_flood_ends_within_the_timeout() {
    let run = certify_faulty("flood");
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let more = run.checks().into_iter().filter(|(_, _, c)| {
        c["id"] == "stdio/stdout-only-mcp" && c["actual"].as_str().is_some_and(|a| a.contains("more like it"))
    });
    assert!(more.count() > 0, "{}", run.describe());
    assert!(run.elapsed < Duration::from_secs(30), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// Regression: the client's own stdout (not MCP traffic) is read while mcpspec waits, so a
/// client that prints more than the frame queue holds is not blocked on a full pipe.
#[test]
fn client_printing_on_its_stdout_is_not_blocked() {
    // 3 MB in 3,000 lines: more than the pipe and the frame queue hold.
    let script = "yes \"$(printf '%0999d' 0)\" | head -n 3000; exec \"$0\" reference client";
    let args = [
        "client",
        "-j",
        "8",
        "--timeout",
        "5",
        "--revision",
        "2025-11-25",
        "--",
        "sh",
        "-c",
        script,
        MCPSPEC,
    ];
    let run = run(&args, true, Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    // 28 scenarios at 2025-11-25, 3 skipped (see client_reference_passes_every_legacy_revision).
    assert_eq!(run.summary("passed"), 25, "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// Certifies a real client (`argv`, after `--`) at every legacy revision: it exits 0 with
/// `passed` and `skipped` scenarios, and `warnings` warnings, all in the scenarios `warned`.
fn assert_interop_client(argv: &[&str], passed: u64, skipped: u64, warnings: u64, warned: &[&str]) {
    let mut args = vec!["client", "-j", "4", "--timeout", "10", "--"];
    args.extend_from_slice(argv);
    let run = run(&args, true, Duration::from_secs(300));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(run.summary("passed"), passed, "{}", run.describe());
    assert_eq!(run.summary("skipped"), skipped, "{}", run.describe());
    assert_eq!(run.summary("warnings"), warnings, "{}", run.describe());
    let mut seen: Vec<_> =
        run.checks().into_iter().filter(|(_, _, c)| c["verdict"] == "warning").map(|(s, ..)| s).collect();
    seen.sort();
    seen.dedup();
    assert_eq!(seen, warned, "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// Both SDK clients declare sampling.tools and elicitation.url and answer with fixed replies,
/// but not roots: client-roots/list is skipped at the 4 revisions, and the two scenarios
/// about a missing sampling.tools or elicitation.url do not apply.
const SDK_CLIENT_SKIPS: u64 = 6;

/// Finding of both SDK clients (SHOULD, client/sampling.mdx#error-handling, 2025-11-25): a
/// sampling request that breaks the tool-use balance reaches the application's handler instead
/// of being answered with -32602 (the SDKs check the same rules when they send as a server).
const UNBALANCED_SAMPLING_ACCEPTED: [&str; 3] = [
    "client-sampling/tool-result-missing",
    "client-sampling/tool-results-mixed",
    "client-sampling/unknown-tool-use-id",
];

/// A plain client on the official Python SDK (`harness/tests/iut/python_mcp_client.py`, with
/// sampling and elicitation callbacks), run with the Python of `MCPSPEC_IUT_PYTHON` (set by
/// `.ci/run`). Run with `cargo test -- --ignored interop`.
#[test]
#[ignore = "needs the Python SDK that .ci/run installs"]
fn interop_python_sdk_client() {
    let server = std::env::var("MCPSPEC_IUT_PYTHON").expect("MCPSPEC_IUT_PYTHON is not set: .ci/run sets it");
    let python = server.split_whitespace().next().expect("a python command").to_owned();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/iut/python_mcp_client.py");
    // Finding (SHOULD, client/roots.mdx#error-handling): without the roots capability, the SDK
    // answers roots/list with -32600 "List roots not supported", not -32601 (4 revisions).
    let mut warned = vec!["client-roots/undeclared"];
    warned.extend(UNBALANCED_SAMPLING_ACCEPTED);
    assert_interop_client(&[python.as_str(), script], 71, SDK_CLIENT_SKIPS, 7, &warned);
}

/// A plain client on the official TypeScript SDK (`harness/tests/iut/ts_sdk_client.mjs`, stdio,
/// with sampling and elicitation handlers), with the SDK that `.ci/run` installs beside
/// server-everything (`MCPSPEC_IUT_EVERYTHING`). Run with `cargo test -- --ignored interop`.
#[test]
#[ignore = "needs the TypeScript SDK that .ci/run installs"]
fn interop_typescript_sdk_client() {
    let everything =
        std::env::var("MCPSPEC_IUT_EVERYTHING").expect("MCPSPEC_IUT_EVERYTHING is not set: .ci/run sets it");
    let entry = everything.split_whitespace().last().expect("a script path").to_owned();
    let modules = &entry[..entry.find("node_modules/").expect("installed under node_modules") + 13];
    let sdk = format!("MCPSPEC_TS_SDK={modules}@modelcontextprotocol/sdk");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/iut/ts_sdk_client.mjs");
    let argv = ["env", sdk.as_str(), "node", script];
    assert_interop_client(&argv, 75, SDK_CLIENT_SKIPS, 3, &UNBALANCED_SAMPLING_ACCEPTED);
}

#[test]
fn client_fault_cursor_altered() {
    assert_caught(
        "cursor-altered",
        "client-pagination/cursor-opaque",
        "client-pagination/cursor-opaque",
        "failed",
    );
}

#[test]
fn client_fault_pages_past_end() {
    assert_caught(
        "pages-past-end",
        "client-pagination/end-of-results",
        "client-pagination/end-of-results",
        "warning",
    );
}

#[test]
fn client_fault_cancel_initialize() {
    assert_caught(
        "cancel-initialize",
        "client-lifecycle/request-ids",
        "cancellation/not-initialize",
        "failed",
    );
}

#[test]
fn client_fault_cancel_unissued() {
    assert_caught("cancel-unissued", "client-lifecycle/request-ids", "cancellation/in-flight-only", "failed");
}

#[test]
fn client_fault_reuse_progress_token() {
    // In a scenario that holds the tool call unanswered: elsewhere the answer to the call may be
    // written before the ping that reuses its token is read, and the token is free again then
    // (a CI run showed it, in client-lifecycle/request-ids).
    let scenario = "client-progress/notifications-tolerated";
    assert_caught("reuse-progress-token", scenario, "progress/token-unique", "failed");
}

#[test]
fn client_fault_undeclared_requests() {
    let scenario = "client-lifecycle/negotiated-capabilities";
    assert_caught("undeclared-requests", scenario, scenario, "failed");
    assert_caught("undeclared-requests", scenario, "capabilities/client-uses-negotiated", "failed");
}

#[test]
fn client_fault_exit_on_cancel() {
    let scenario = "client-cancellation/server-cancels";
    assert_caught("exit-on-cancel", scenario, scenario, "failed");
}

#[test]
fn client_fault_late_response_error() {
    // The error it sends answers no request of the server's: a MUST of JSON-RPC as well.
    let run = certify_faulty("late-response-error");
    let scenario = "client-cancellation/late-response";
    assert_eq!(
        verdicts(&run, scenario, scenario),
        ["passed", "passed", "passed", "warning", "passed"],
        "{}",
        run.describe()
    );
    let ids = verdicts(&run, scenario, "jsonrpc/response-id-matches-request");
    assert!(ids.iter().any(|v| v == "failed"), "{ids:?}\n{}", run.describe());
    assert_eq!(run.code, Some(1), "{}", run.describe());
}

#[test]
fn client_fault_roots_changed_undeclared() {
    let check = "capabilities/client-uses-negotiated";
    assert_caught("roots-changed-undeclared", "client-lifecycle/request-ids", check, "failed");
}

/// As [`assert_caught_at`], and no other scenario fails or warns: the fault is caught by the
/// check that names it, and by nothing else.
fn assert_caught_alone(revision: &str, fault: &str, scenario: &str, check: &str, verdict: &str) {
    let run = assert_caught_at(revision, fault, scenario, check, verdict);
    let report = run.report.as_ref().expect("a report");
    let others: Vec<String> = report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| {
            s["id"] != scenario && matches!(s["verdict"].as_str(), Some("failed" | "warning" | "error"))
        })
        .map(|s| format!("{} {}", s["id"], s["verdict"]))
        .collect();
    assert!(others.is_empty(), "--fault {fault} also shows in {others:?}\n{}", run.describe());
}

#[test]
fn client_fault_sampling_accepts_unbalanced() {
    let s = "client-sampling/tool-result-missing";
    assert_caught_alone("2025-11-25", "sampling-accepts-unbalanced", s, s, "warning");
}

#[test]
fn client_fault_sampling_accepts_unknown_tool_use_id() {
    let s = "client-sampling/unknown-tool-use-id";
    assert_caught_alone("2025-11-25", "sampling-accepts-unknown-tool-use-id", s, s, "warning");
}

#[test]
fn client_fault_sampling_accepts_mixed_tool_results() {
    let s = "client-sampling/tool-results-mixed";
    assert_caught_alone("2025-11-25", "sampling-accepts-mixed-tool-results", s, s, "warning");
}

#[test]
fn client_fault_sampling_tools_undeclared() {
    let s = "client-sampling/tools-undeclared";
    assert_caught_alone("2025-11-25", "sampling-tools-undeclared", s, s, "failed");
}

#[test]
fn client_fault_sampling_without_stop_reason() {
    let (s, check) = ("client-sampling/tool-loop", "client-sampling/stop-reason");
    assert_caught_alone("2025-11-25", "sampling-without-stop-reason", s, check, "warning");
}

#[test]
fn client_fault_elicit_content_off_schema() {
    let s = "client-elicitation/form";
    assert_caught_alone("2025-06-18", "elicit-content-off-schema", s, s, "warning");
    assert_caught_alone("2025-11-25", "elicit-content-off-schema", s, s, "warning");
}

#[test]
fn client_fault_elicit_ignores_defaults() {
    let s = "client-elicitation/defaults";
    assert_caught_alone("2025-11-25", "elicit-ignores-defaults", s, s, "warning");
}

#[test]
fn client_fault_elicit_undeclared_mode() {
    let s = "client-elicitation/undeclared-mode";
    assert_caught_alone("2025-11-25", "elicit-undeclared-mode", s, s, "failed");
}
