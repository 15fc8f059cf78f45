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

/// In `run` of `--fault F`, `check` has the `verdict` in `scenario`, and the run's exit code
/// follows from that verdict.
fn assert_verdict(run: &Run, fault: &str, scenario: &str, check: &str, verdict: &str) {
    let seen = verdicts(run, scenario, check);
    assert!(
        seen.iter().any(|v| v == verdict),
        "--fault {fault}: expected {check} {verdict} in {scenario}, saw {seen:?}\n{}",
        run.describe()
    );
    let expected_code = if verdict == "failed" { 1 } else { 0 };
    assert_eq!(run.code, Some(expected_code), "{}", run.describe());
}

/// In `run` of `--fault F`, no scenario but `scenario` fails or warns: the fault is caught by
/// the checks that name it, and by nothing else.
fn assert_nothing_else(run: &Run, fault: &str, scenario: &str) {
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

/// One test per row, from one run of the faulty reference client:
/// `name: "fault" at REVISION in "scenario" => "check" "verdict", …;` asserts each check's
/// verdict in that scenario (and the exit code it implies); a row marked `#[alone]` also asserts
/// that no other scenario fails or warns.
macro_rules! caught {
    // The only mark a row takes: any other is a compile error, not a silent `alone`.
    (@mark alone) => {};
    ($($(#[$alone:ident])? $name:ident: $fault:literal at $rev:tt in $scenario:literal
        => $($check:literal $verdict:literal),+;)*) => {
        $(#[test]
        fn $name() {
            let run = certify_faulty_at($rev, $fault);
            $(assert_verdict(&run, $fault, $scenario, $check, $verdict);)+
            $(
                caught!(@mark $alone);
                assert_nothing_else(&run, $fault, $scenario);
            )?
        })*
    };
}

caught! {
    client_fault_skip_initialized: "skip-initialized" at FAULT_REVISION
        in "client-lifecycle/initialized-after-response"
        => "client-lifecycle/initialized-after-response" "failed";
    client_fault_early_initialized: "early-initialized" at FAULT_REVISION
        in "client-lifecycle/initialized-after-response"
        => "client-lifecycle/initialized-after-response" "failed";
    client_fault_reuse_ids: "reuse-ids" at FAULT_REVISION in "client-lifecycle/request-ids"
        => "jsonrpc/request-id-unique" "failed", "client-lifecycle/request-ids" "failed";
    client_fault_null_id: "null-id" at FAULT_REVISION in "client-lifecycle/request-ids"
        => "jsonrpc/request-id-not-null" "failed";
    client_fault_initialize_batched: "initialize-batched" at "2025-03-26" in "client-lifecycle/initialize-first"
        => "lifecycle/initialize-not-batched" "failed";
    client_fault_elicit_no_mode: "elicit-no-mode" at "2025-11-25" in "client-lifecycle/initialize-first"
        => "client-elicitation/declares-a-mode" "failed";
    client_fault_elicit_no_mode_modern: "elicit-no-mode" at MODERN in "client-modern/request-meta"
        => "client-elicitation/declares-a-mode" "failed";
    #[alone] client_fault_elicit_prefetch_url: "elicit-prefetch-url" at "2025-11-25" in "client-elicitation/no-prefetch"
        => "client-elicitation/no-prefetch" "failed";
    #[alone] client_fault_elicit_unknown_dialect: "elicit-unknown-dialect" at "2025-11-25"
        in "client-elicitation/unsupported-dialect" => "client-elicitation/unsupported-dialect" "failed";
    client_fault_elicit_prefetch_url_modern: "elicit-prefetch-url" at MODERN in "client-modern/elicitation-no-prefetch"
        => "client-modern/elicitation-no-prefetch" "failed";
    client_fault_fetches_schema_refs: "fetches-schema-refs" at MODERN in "client-modern/no-network-ref"
        => "client-modern/no-network-ref" "failed";
    client_fault_elicit_unknown_dialect_modern: "elicit-unknown-dialect" at MODERN
        in "client-modern/elicitation-unsupported-dialect" => "client-modern/elicitation-unsupported-dialect" "failed";
    client_fault_sampling_ignores_required: "sampling-ignores-required" at "2025-11-25"
        in "client-sampling/tool-choice-required" => "client-sampling/tool-choice-required" "failed";
    client_fault_request_before_initialize: "request-before-initialize" at FAULT_REVISION
        in "client-lifecycle/initialize-first" => "client-lifecycle/initialize-first" "failed";
    client_fault_ignore_requests: "ignore-requests" at FAULT_REVISION in "client-lifecycle/ping"
        => "client-lifecycle/ping" "failed";
    client_fault_accept_any_version: "accept-any-version" at FAULT_REVISION
        in "client-version/counter-offer-unsupported"
        => "client-version/counter-offer-unsupported" "warning";
    client_fault_roots_not_file: "roots-not-file" at FAULT_REVISION in "client-roots/list"
        => "client-roots/list" "failed";
    // client/roots.mdx#security-considerations: a root with a `..` segment went unvalidated.
    client_fault_roots_traversal: "roots-traversal" at FAULT_REVISION in "client-roots/list"
        => "client-roots/list" "failed";
    client_fault_roots_traversal_modern: "roots-traversal" at MODERN in "client-modern/mrtr-roots"
        => "client-modern/mrtr-roots" "failed";
    #[alone] client_fault_roots_changed_silently: "roots-changed-silently" at FAULT_REVISION
        in "client-roots/list-changed" => "client-roots/list-changed" "failed";
    client_without_roots_answers_roots_list_with_method_not_found: "declare-nothing" at FAULT_REVISION
        in "client-roots/undeclared" => "client-roots/undeclared" "passed";
    client_fault_sampling_without_model: "sampling-without-model" at FAULT_REVISION
        in "client-sampling/create-message"
        => "client-sampling/create-message" "failed", "schema/message-valid" "failed";
    client_fault_offer_oldest: "offer-oldest" at FAULT_REVISION in "client-version/offers-latest"
        => "client-version/offers-latest" "warning";
    client_fault_offer_unsupported: "offer-unsupported" at FAULT_REVISION in "client-version/offer-supported"
        => "client-version/offer-supported" "failed";
    client_fault_cursor_altered: "cursor-altered" at FAULT_REVISION in "client-pagination/cursor-opaque"
        => "client-pagination/cursor-opaque" "failed";
    client_fault_pages_past_end: "pages-past-end" at FAULT_REVISION in "client-pagination/end-of-results"
        => "client-pagination/end-of-results" "warning";
    client_fault_cancel_initialize: "cancel-initialize" at FAULT_REVISION in "client-lifecycle/request-ids"
        => "cancellation/not-initialize" "failed";
    client_fault_cancel_unissued: "cancel-unissued" at FAULT_REVISION in "client-lifecycle/request-ids"
        => "cancellation/in-flight-only" "failed";
    #[alone] client_fault_exit_on_unknown_elicitation_complete: "exit-on-unknown-elicitation-complete" at "2025-11-25"
        in "client-elicitation/unknown-complete-ignored" => "client-elicitation/unknown-complete-ignored" "failed";
    #[alone] client_fault_sampling_tools_ignored: "sampling-tools-ignored" at "2025-11-25"
        in "client-sampling/tools-undeclared-error" => "client-sampling/tools-undeclared-error" "failed";
    client_fault_cancel_without_request_id: "cancel-without-request-id" at "2025-11-25" in "client-lifecycle/request-ids"
        => "cancellation/request-id-required" "failed";
    // In a scenario that holds the tool call unanswered: elsewhere the answer to the call may be
    // written before the ping that reuses its token is read, and the token is free again then
    // (a CI run showed it, in client-lifecycle/request-ids).
    client_fault_reuse_progress_token: "reuse-progress-token" at FAULT_REVISION
        in "client-progress/notifications-tolerated" => "progress/token-unique" "failed";
    client_fault_undeclared_requests: "undeclared-requests" at FAULT_REVISION
        in "client-lifecycle/negotiated-capabilities"
        => "client-lifecycle/negotiated-capabilities" "failed", "capabilities/client-uses-negotiated" "failed";
    client_fault_exit_on_cancel: "exit-on-cancel" at FAULT_REVISION in "client-cancellation/server-cancels"
        => "client-cancellation/server-cancels" "failed";
    client_fault_roots_changed_undeclared: "roots-changed-undeclared" at FAULT_REVISION
        in "client-lifecycle/request-ids" => "capabilities/client-uses-negotiated" "failed";
    #[alone] client_fault_sampling_accepts_unbalanced: "sampling-accepts-unbalanced" at "2025-11-25"
        in "client-sampling/tool-result-missing" => "client-sampling/tool-result-missing" "warning";
    #[alone] client_fault_sampling_accepts_unknown_tool_use_id: "sampling-accepts-unknown-tool-use-id"
        at "2025-11-25" in "client-sampling/unknown-tool-use-id"
        => "client-sampling/unknown-tool-use-id" "warning";
    #[alone] client_fault_sampling_accepts_mixed_tool_results: "sampling-accepts-mixed-tool-results"
        at "2025-11-25" in "client-sampling/tool-results-mixed" => "client-sampling/tool-results-mixed" "warning";
    // Using the tools of a request it had no right to, it answers with a result, not the error
    // the schema asks for: both sampling checks of an undeclared sampling.tools catch it.
    client_fault_sampling_tools_undeclared: "sampling-tools-undeclared" at "2025-11-25"
        in "client-sampling/tools-undeclared" => "client-sampling/tools-undeclared" "failed";
    client_fault_sampling_tools_undeclared_error: "sampling-tools-undeclared" at "2025-11-25"
        in "client-sampling/tools-undeclared-error" => "client-sampling/tools-undeclared-error" "failed";
    // Every tool-using answer lacks it: the tool loop's and the toolChoice "required" one's.
    client_fault_sampling_without_stop_reason: "sampling-without-stop-reason" at "2025-11-25"
        in "client-sampling/tool-loop" => "client-sampling/stop-reason" "warning";
    client_fault_sampling_without_stop_reason_required: "sampling-without-stop-reason" at "2025-11-25"
        in "client-sampling/tool-choice-required" => "client-sampling/stop-reason" "warning";
    #[alone] client_fault_elicit_content_off_schema_at_2025_06_18: "elicit-content-off-schema" at FAULT_REVISION
        in "client-elicitation/form" => "client-elicitation/form" "warning";
    #[alone] client_fault_elicit_content_off_schema_at_2025_11_25: "elicit-content-off-schema" at "2025-11-25"
        in "client-elicitation/form" => "client-elicitation/form" "warning";
    #[alone] client_fault_elicit_ignores_defaults: "elicit-ignores-defaults" at "2025-11-25"
        in "client-elicitation/defaults" => "client-elicitation/defaults" "warning";
    #[alone] client_fault_elicit_undeclared_mode: "elicit-undeclared-mode" at "2025-11-25"
        in "client-elicitation/undeclared-mode" => "client-elicitation/undeclared-mode" "failed";
    // A request for a capability the client did not declare gets an error, not a result
    // (lifecycle.mdx#operation: MUST from 2025-06-18, SHOULD before).
    client_fault_answer_undeclared_sampling: "answer-undeclared" at FAULT_REVISION
        in "client-sampling/undeclared" => "client-sampling/undeclared" "failed";
    client_fault_answer_undeclared_elicitation: "answer-undeclared" at FAULT_REVISION
        in "client-elicitation/undeclared" => "client-elicitation/undeclared" "failed";
    client_fault_answer_undeclared_sampling_at_2024_11_05: "answer-undeclared" at "2024-11-05"
        in "client-sampling/undeclared-until-2025-03-26"
        => "client-sampling/undeclared-until-2025-03-26" "warning";
    // It answers a second late, after the cancellation had time to arrive (the grace derives
    // from the session's ping round trips).
    #[alone] client_fault_answer_after_cancel: "answer-after-cancel" at FAULT_REVISION
        in "client-cancellation/no-answer-after-cancel"
        => "client-cancellation/no-answer-after-cancel" "warning";
    // It exits while a process it left behind holds the server's stdin open for 1.5 s, within
    // the 2 s timeout: the end of file came, but after the client had exited.
    #[alone] client_fault_exit_holding_stdin: "exit-holding-stdin" at FAULT_REVISION in "client-lifecycle/shutdown"
        => "client-lifecycle/shutdown" "warning";
    // Tasks (2025-11-25): the session checker judges every tools/call of the client against the
    // tool-level negotiation, and every cancellation; the client-tasks/… scenarios need a client
    // that calls a tool as a task by the scenario's name.
    client_fault_task_call_unchecked: "task-call-unchecked" at "2025-11-25" in "client-tasks/undeclared-capability"
        => "tasks/client-tools-call-capability" "failed", "client-tasks/undeclared-capability" "failed";
    // Its usual tool, which says nothing of tasks, called as one.
    client_fault_task_call_unchecked_forbidden: "task-call-unchecked" at "2025-11-25" in "client-lifecycle/request-ids"
        => "tasks/client-forbidden-tool-plain" "failed";
    client_fault_task_required_plain: "task-required-plain" at "2025-11-25" in "client-tasks/required-tool"
        => "tasks/client-required-tool-as-task" "failed", "client-tasks/required-tool" "failed";
    #[alone] client_fault_task_awaits_status_notification: "task-awaits-status-notification" at "2025-11-25"
        in "client-tasks/result-without-notifications" => "client-tasks/result-without-notifications" "failed";
    #[alone] client_fault_task_cancelled_by_notification: "task-cancelled-by-notification" at "2025-11-25"
        in "client-tasks/cancel" => "cancellation/task-by-tasks-cancel" "failed", "client-tasks/cancel" "failed";
    #[alone] client_fault_task_list_cursor_altered: "task-list-cursor-altered" at "2025-11-25"
        in "client-tasks/list-cursor" => "tasks/list-cursor-as-given" "failed", "client-tasks/list-cursor" "failed";
    // The modern era (2026-07-28): each fault of the dual-era reference client, caught by
    // the client-modern/… check that names it (checker::modern_client, steps_client::modern).
    client_fault_cursor_altered_modern: "cursor-altered" at MODERN in "client-modern/request-meta"
        => "client-modern/cursor-opaque" "failed";
    client_fault_modern_meta_missing_version: "modern-meta-missing-version" at MODERN
        in "client-modern/request-meta"
        => "client-modern/meta-protocol-version" "failed", "client-modern/request-meta" "failed";
    client_fault_modern_meta_missing_capabilities: "modern-meta-missing-capabilities" at MODERN
        in "client-modern/request-meta"
        => "client-modern/meta-client-capabilities" "failed", "client-modern/request-meta" "failed";
    client_fault_modern_no_client_info: "modern-no-client-info" at MODERN in "client-modern/request-meta"
        => "client-modern/meta-client-info" "warning";
    #[alone] client_fault_modern_no_probe: "modern-no-probe" at MODERN in "client-modern/discover-probe"
        => "client-modern/discover-probe" "warning";
    #[alone] client_fault_modern_gives_up_on_unsupported_version: "modern-gives-up-on-unsupported-version"
        at MODERN in "client-modern/unsupported-version" => "client-modern/unsupported-version" "warning";
    #[alone] client_fault_modern_retry_unsupported_version: "modern-retry-unsupported-version" at MODERN
        in "client-modern/unsupported-version"
        => "client-modern/retry-supported-version" "warning", "client-modern/unsupported-version" "warning";
    client_fault_modern_request_state_dropped: "modern-request-state-dropped" at MODERN
        in "client-modern/mrtr-elicitation"
        => "client-modern/mrtr-request-state-echoed" "failed", "client-modern/mrtr-elicitation" "failed";
    client_fault_modern_request_state_modified: "modern-request-state-modified" at MODERN
        in "client-modern/mrtr-sampling" => "client-modern/mrtr-request-state-echoed" "failed";
    #[alone] client_fault_modern_request_state_invented: "modern-request-state-invented" at MODERN
        in "client-modern/mrtr-no-request-state"
        => "client-modern/mrtr-no-request-state-invented" "failed", "client-modern/mrtr-no-request-state" "failed";
    client_fault_modern_retry_same_id: "modern-retry-same-id" at MODERN in "client-modern/mrtr-roots"
        => "client-modern/mrtr-new-id" "failed";
    client_fault_modern_inputs_ignored: "modern-inputs-ignored" at MODERN in "client-modern/mrtr-multiple-inputs"
        => "client-modern/mrtr-inputs-answered" "failed";
    client_fault_modern_undeclared_capability_use: "modern-undeclared-capability-use" at MODERN
        in "client-modern/mrtr-multiple-inputs" => "client-modern/capabilities-declared" "failed";
    #[alone] client_fault_modern_ignores_ttl: "modern-ignores-ttl" at MODERN in "client-modern/caching"
        => "client-modern/caching" "warning";
    client_fault_modern_sends_responses: "modern-sends-responses" at MODERN in "client-modern/mrtr-elicitation"
        => "client-modern/no-responses" "failed";
    client_fault_modern_inputs_on_other_request: "modern-inputs-on-other-request" at MODERN
        in "client-modern/mrtr-elicitation" => "client-modern/mrtr-inputs-only-for-retry" "failed";
    // The legacy sampling and elicitation checks, carried by MRTR (suite/client/modern.rs): the
    // same faults of the persona's answers, now in a retry's inputResponses.
    #[alone] client_fault_sampling_ignores_required_modern: "sampling-ignores-required" at MODERN
        in "client-modern/sampling-tool-choice-required" => "client-modern/sampling-tool-choice-required" "failed";
    #[alone] client_fault_sampling_ignores_none_modern: "sampling-ignores-none" at MODERN
        in "client-modern/sampling-tool-loop" => "client-modern/sampling-tool-loop" "failed";
    client_fault_sampling_tools_undeclared_modern: "sampling-tools-undeclared" at MODERN
        in "client-modern/sampling-tools-undeclared" => "client-modern/sampling-tools-undeclared" "failed";
    #[alone] client_fault_sampling_tools_ignored_modern: "sampling-tools-ignored" at MODERN
        in "client-modern/sampling-tools-undeclared-error" => "client-modern/sampling-tools-undeclared-error" "failed";
    // Without sampling.tools, the reference client gives no answer to an input request with
    // tools (the era's refusal): both scenarios of an undeclared sampling.tools pass.
    client_without_sampling_tools_uses_none_modern: "sampling-no-tools" at MODERN
        in "client-modern/sampling-tools-undeclared" => "client-modern/sampling-tools-undeclared" "passed";
    #[alone] client_without_sampling_tools_refuses_tools_modern: "sampling-no-tools" at MODERN
        in "client-modern/sampling-tools-undeclared-error" => "client-modern/sampling-tools-undeclared-error" "passed";
    #[alone] client_fault_elicit_mode_required_modern: "elicit-mode-required" at MODERN
        in "client-modern/elicitation-no-mode" => "client-modern/elicitation-no-mode" "failed";
    #[alone] client_fault_empty_cursor_ends: "empty-cursor-ends" at MODERN in "client-modern/empty-cursor"
        => "client-modern/empty-cursor" "failed";
    #[alone] client_fault_page_size_assumed: "page-size-assumed" at MODERN in "client-modern/page-size"
        => "client-modern/page-size" "failed";
    #[alone] client_fault_modern_unknown_result_type_used: "modern-unknown-result-type-used" at MODERN
        in "client-modern/unknown-result-type" => "client-modern/unknown-result-type" "failed";
    #[alone] client_fault_modern_result_type_required: "modern-result-type-required" at MODERN
        in "client-modern/absent-result-type" => "client-modern/absent-result-type" "failed";
    // At 2025-11-25 the same faults fail the legacy checks: toolChoice "none" ignored in the tool
    // loop, a form without mode refused.
    client_fault_sampling_ignores_none: "sampling-ignores-none" at "2025-11-25"
        in "client-sampling/tool-loop" => "client-sampling/tool-loop" "failed";
    client_fault_elicit_mode_required: "elicit-mode-required" at FAULT_REVISION
        in "client-elicitation/form" => "client-elicitation/form" "warning";
}

/// The modern era's revision.
const MODERN: &str = "2026-07-28";

/// The dual-era reference client passes every scenario of 2026-07-28 over stdio, and its
/// messages were judged by the era's rules.
#[test]
fn client_reference_passes_every_modern_scenario() {
    let args =
        ["client", "-j", "8", "--timeout", "5", "--revision", MODERN, "--", MCPSPEC, "reference", "client"];
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    // client-modern/sampling-tools-undeclared and …-error are skipped: it declares sampling.tools.
    assert_eq!(run.summary("passed"), 20, "{}", run.describe());
    assert_eq!(run.summary("skipped"), 2, "{}", run.describe());
    let checks = run.checks();
    for id in ["jsonrpc/envelope", "schema/message-valid"] {
        let passed = checks.iter().any(|(_, _, c)| c["id"] == id && c["verdict"] == "passed");
        assert!(passed, "no passed {id}\n{}", run.describe());
    }
    assert_no_leftovers(&run.marker);
}

/// A client of the legacy era only (the explorer sends initialize first) is not failed at
/// 2026-07-28: every modern scenario is skipped, with the reason, and its session not charged.
#[test]
fn client_legacy_only_is_skipped_at_the_modern_revision() {
    let args = [
        "client",
        "-j",
        "8",
        "--timeout",
        "3",
        "--revision",
        MODERN,
        "--",
        "python3",
        EXPLORER,
        "--pause",
        "0",
    ];
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(run.summary("skipped"), 22, "{}", run.describe());
    assert!(run.stdout.contains("the client speaks only the legacy era"), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

#[test]
fn client_reference_passes_every_default_revision() {
    let run = run(&["client", "-j", "8", "--timeout", "5"], true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(run.summary("failed"), 0, "{}", run.describe());
    assert_eq!(run.summary("warnings"), 0, "{}", run.describe());
    assert_eq!(run.summary("errors"), 0, "{}", run.describe());
    let report = run.report.as_ref().unwrap();
    let scenarios = report["scenarios"].as_array().unwrap();
    // 21 scenarios at every legacy revision, client-sampling/undeclared-until-2025-03-26 up to
    // 2025-03-26; client-lifecycle/negotiated-capabilities, client-elicitation/form,
    // client-sampling/undeclared and client-elicitation/undeclared from 2025-06-18 on; and 11 more
    // sampling and elicitation scenarios at 2025-11-25 (`@since`, `@until`). Skipped, because the
    // reference client declares what they need absent: client-roots/undeclared and one
    // client-sampling/undeclared… at each revision, client-elicitation/undeclared from
    // 2025-06-18, and at 2025-11-25 client-sampling/tools-undeclared and
    // client-sampling/tools-undeclared-error (it declares sampling.tools) and
    // client-elicitation/undeclared-mode (it declares elicitation.url).
    // And the 22 scenarios of 2026-07-28 (`@since`), where the legacy ones stop (`@until`), and
    // the 5 client-tasks/… scenarios of 2025-11-25. At 2026-07-28, too,
    // client-modern/sampling-tools-undeclared and client-modern/sampling-tools-undeclared-error
    // are skipped.
    assert_eq!(run.summary("skipped"), 15, "{}", run.describe());
    assert_eq!(scenarios.len(), 134, "{}", run.describe());
    for (rev, n) in
        [("2024-11-05", 22), ("2025-03-26", 22), ("2025-06-18", 25), ("2025-11-25", 43), ("2026-07-28", 22)]
    {
        assert_eq!(scenarios.iter().filter(|s| s["revision"] == rev).count(), n, "{rev}");
    }
    let skipped: Vec<_> =
        scenarios.iter().filter(|s| s["verdict"] == "skipped").map(|s| s["id"].clone()).collect();
    for id in [
        "client-sampling/tools-undeclared",
        "client-sampling/tools-undeclared-error",
        "client-elicitation/undeclared-mode",
    ] {
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
fn client_fault_no_shutdown_is_bounded() {
    let run = certify_faulty("no-shutdown");
    let seen = verdicts(&run, "client-lifecycle/shutdown", "client-lifecycle/shutdown");
    assert!(seen.contains(&"warning".to_owned()), "{seen:?}\n{}", run.describe());
    assert!(run.elapsed < Duration::from_secs(20), "{}", run.describe());
}

#[test]
fn client_fault_exit_early_stops_the_run_without_a_verdict() {
    // The run's gate (issue #17): three clients that never start the server, and the run stops.
    let run = certify_faulty("exit-early");
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert_eq!(run.summary("passed"), 0);
    let not_tested = run.report.as_ref().and_then(|r| r["not_tested"].as_str()).unwrap_or_default();
    assert!(not_tested.contains("did not start the server command"), "{}", run.describe());
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
    // The run's gate (issue #17) stops the run after three clients that never connect: no
    // verdict, every scenario that did not finish listed as not run.
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert_eq!(run.summary("passed"), 0, "{}", run.describe());
    assert!(
        run.stdout.contains("the client did not start the server command within 2s"),
        "{}",
        run.describe()
    );
    // The first scenarios at once, 2 s each, plus the shutdown of each client (and its child).
    assert!(run.elapsed < Duration::from_secs(10), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

#[test]
fn client_that_cannot_start_is_an_error_of_the_run() {
    let args = ["client", "--timeout", "2", "--revision", "2025-11-25", "--", "/nonexistent/mcp-client"];
    let run = run(&args, true, Duration::from_secs(60));
    assert_eq!(run.summary("errors"), 43, "{}", run.describe());
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
/// and the garbage is reported, once per rule with a count of the rest. Garbage is no work:
/// client-lifecycle/shutdown, which waits for a client as long as it keeps working, judges a
/// client that sends nothing but garbage after one timeout, not after its whole budget.
/// Eight scenarios flood at once (one per `-j`): reading them all is the harness's load; the
/// whole suite would measure only how fast the machine reads garbage.
#[test]
fn client_fault_flood_ends_within_the_timeout() {
    let mut args = vec!["client", "-j", "8", "--timeout", "2", "--revision", FAULT_REVISION];
    for id in [
        "client-lifecycle/initialize-first",
        "client-lifecycle/initialized-after-response",
        "client-lifecycle/ping",
        "client-lifecycle/shutdown",
        "client-roots/list",
        "client-sampling/create-message",
        "client-pagination/cursor-opaque",
        "client-version/offer-supported",
    ] {
        args.extend(["--scenario", id]);
    }
    args.extend(["--", MCPSPEC, "reference", "client", "--fault", "flood"]);
    let run = run(&args, true, Duration::from_secs(60));
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert_eq!(run.summary("failed"), 8, "{}", run.describe());
    let more = run.checks().into_iter().filter(|(_, _, c)| {
        c["id"] == "stdio/stdout-only-mcp" && c["actual"].as_str().is_some_and(|a| a.contains("more like it"))
    });
    assert!(more.count() > 0, "{}", run.describe());
    let idle = run.checks().into_iter().any(|(s, _, c)| {
        s == "client-lifecycle/shutdown"
            && c["verdict"] == "warning"
            && c["actual"]
                .as_str()
                .is_some_and(|a| a.contains("after 2s in which the client sent no message"))
    });
    assert!(idle, "{}", run.describe());
    // Alone on 2 cores, about 7 s (each scenario: its timeout, shutdown, and its share of
    // reading eight floods).
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
    // 43 scenarios at 2025-11-25, 6 skipped (see client_reference_passes_every_default_revision).
    assert_eq!(run.summary("passed"), 37, "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// A plausible client written apart from the reference client: the Python standard library,
/// a pause after each request, everything listed and every tool called, no capability declared,
/// the revision MCP_CONFORMANCE_PROTOCOL_VERSION names offered.
const EXPLORER: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/iut/explorer_client.py");

/// Regression (issue #11): a client still at work is not a client that never closes. A client
/// that takes 10–30 s to explore a server used to fail every scenario that ended "the client
/// closes the server's stdin when it is done" at the default timeout (24 MUST failures, 11
/// warnings); now each scenario ends the session once its own checks are judged, and only
/// client-lifecycle/shutdown waits for the client, as long as it keeps working. Its run also
/// needs the scenario server's timers to run while the client waits (the reference server's
/// `slow` tool answers after a second).
#[test]
fn client_slow_explorer_passes_at_the_default_timeout() {
    let args = ["client", "-j", "8", "--", "python3", EXPLORER, "--pause", "0.5"];
    let run = run(&args, true, Duration::from_secs(300));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    for key in ["failed", "warnings", "errors"] {
        assert_eq!(run.summary(key), 0, "{key}\n{}", run.describe());
    }
    let shutdown = run.scenarios("client-lifecycle/shutdown");
    assert_eq!(shutdown.len(), 4, "{}", run.describe());
    for s in shutdown {
        // It was judged (not skipped), and it was slow: its session outlasted the timeout.
        assert_eq!(s["verdict"], "passed", "{s}");
        assert!(s["duration_ms"].as_u64().unwrap() > 10_000, "not a slow run: {s}");
    }
    assert_no_leftovers(&run.marker);
}

/// Regression (issue #18, found on FastMCP's client): a dual-era client probes with
/// server/discover before it falls back to initialize (2026-07-28 basic/versioning.mdx,
/// backward compatibility). At a legacy revision the scenario server refuses the probe, as a
/// legacy server does, and the handshake that follows is the session's first interaction: the
/// probe failed every legacy scenario ("an initialize request first") and warned
/// schema/known-method on each.
#[test]
fn client_dual_era_probe_before_initialize_passes_at_legacy_revisions() {
    let args = [
        "client",
        "--revision",
        "2025-06-18",
        "--scenario",
        "client-lifecycle/*",
        "--",
        "python3",
        EXPLORER,
        "--pause",
        "0",
        "--probe",
    ];
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    for key in ["failed", "warnings", "errors"] {
        assert_eq!(run.summary(key), 0, "{key}\n{}", run.describe());
    }
    assert_eq!(run.scenarios("client-lifecycle/initialize-first").pop().unwrap()["verdict"], "passed");
    assert_no_leftovers(&run.marker);
}

/// A client still at work when client-lifecycle/shutdown's budget (6 timeouts) runs out is
/// inconclusive, skipped with the reason, never failed: here the explorer goes over the server
/// again and again, a message at least every 1.3 s, with a 2 s timeout.
#[test]
fn client_still_at_work_is_inconclusive_in_shutdown() {
    let args = [
        "client",
        "-j",
        "8",
        "--timeout",
        "2",
        "--revision",
        "2025-06-18",
        "--",
        "python3",
        EXPLORER,
        "--pause",
        "0.3",
        "--rounds",
        "20",
    ];
    let run = run(&args, true, Duration::from_secs(120));
    let shutdown = run.scenarios("client-lifecycle/shutdown").pop().expect("the shutdown scenario ran");
    assert_eq!(shutdown["verdict"], "skipped", "{shutdown}\n{}", run.describe());
    let reason = shutdown["reason"].as_str().unwrap_or("");
    assert!(reason.starts_with("inconclusive: the client was still at work after 12s"), "{shutdown}");
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// Issue #12: a scenario ends once its checks are judged, not when the client has finished its
/// run. The explorer pauses 3 s after each request and would take a minute to go over the
/// server; every scenario but client-lifecycle/shutdown ends it while it is still at work,
/// the report says so, and no verdict suffers: client-lifecycle/request-ids, which judges what
/// the client sent, ends once the client has fallen idle (a ping barrier answered, nothing else)
/// rather than at the timeout, with its verdict the same.
#[test]
fn client_scenario_ends_when_judged_not_when_the_client_is_done() {
    // The explorer pauses half the timeout after each request, so it is still at work when
    // the timeout ends; the timeout is long enough that a loaded machine's slow Python start
    // (over 3 s seen in a full test run) still leaves the scenarios judged well before it.
    let args =
        ["client", "--timeout", "6", "--revision", "2025-06-18", "--", "python3", EXPLORER, "--pause", "3"];
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    for key in ["failed", "warnings", "errors"] {
        assert_eq!(run.summary(key), 0, "{key}\n{}", run.describe());
    }
    for id in [
        "client-lifecycle/initialize-first",
        "client-lifecycle/ping",
        "client-lifecycle/request-ids",
        "client-cancellation/no-answer-after-cancel",
        "client-version/counter-offer-supported",
    ] {
        let scenario = run.scenarios(id).pop().unwrap_or_else(|| panic!("{id} did not run"));
        assert_eq!(scenario["verdict"], "passed", "{scenario}");
        // Ended before its 6 s timeout, by mcpspec; on a loaded machine the explorer can wake
        // from its pause between our closing its input and the SIGTERM, and die on the closed
        // pipe first: the report then says it exited on its own, which is as true.
        let ending = scenario["shutdown"].as_str().unwrap_or("");
        let ended_by_us = ending.starts_with("ended by mcpspec once the scenario was judged: SIGTERM")
            || ending.starts_with("the client exited with status 1 on its own");
        assert!(ended_by_us, "{scenario}");
        assert!(scenario["duration_ms"].as_u64().is_some_and(|ms| ms < 6000), "{scenario}");
    }
    // The request-ids check was exercised, on the requests the client had sent.
    let ids: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(s, _, c)| s == "client-lifecycle/request-ids" && c["id"] == "client-lifecycle/request-ids")
        .filter(|(_, _, c)| c["expected"].as_str().is_some_and(|e| e.starts_with("every request id")))
        .collect();
    assert_eq!(ids.len(), 1, "{}", run.describe());
    assert!(ids[0].2["actual"].as_str().is_some_and(|a| a.contains("all ids unique")), "{:?}", ids[0]);
    // The one scenario that judges how the client ends waited for it, and was still waiting.
    let shutdown = run.scenarios("client-lifecycle/shutdown").pop().expect("the shutdown scenario ran");
    assert_eq!(shutdown["verdict"], "skipped", "{shutdown}");
    assert!(shutdown["reason"].as_str().is_some_and(|r| r.starts_with("inconclusive")), "{shutdown}");
    assert_no_leftovers(&run.marker);
}

/// Regression (issue #11): MCP_CONFORMANCE_PROTOCOL_VERSION asks the client to offer the
/// revision the scenario server speaks; a client that does so passes client-version/offers-latest
/// (it used to warn it for not offering the latest revision), one that offers neither that nor
/// the latest is still warned (client_fault_offer_oldest).
#[test]
fn client_offering_the_revision_it_is_asked_for_passes_offers_latest() {
    let args = [
        "client",
        "-j",
        "8",
        "--timeout",
        "5",
        "--revision",
        "2024-11-05",
        "--revision",
        "2025-06-18",
        "--",
        "python3",
        EXPLORER,
        "--pause",
        "0",
    ];
    let run = run(&args, true, Duration::from_secs(120));
    let checks: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(s, _, c)| s == "client-version/offers-latest" && c["id"] == "client-version/offers-latest")
        .filter(|(_, _, c)| c["actual"].as_str().is_some_and(|a| a.starts_with("offered ")))
        .collect();
    assert_eq!(checks.len(), 2, "{}", run.describe());
    for (_, revision, check) in checks {
        assert_eq!(check["verdict"], "passed", "{revision}: {check}");
        assert_eq!(check["actual"], format!("offered string \"{revision}\""), "{revision}: {check}");
    }
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

#[test]
fn client_fault_late_response_error() {
    // The error it sends answers no request of the server's: a MUST of JSON-RPC as well.
    let run = certify_faulty("late-response-error");
    let scenario = "client-cancellation/late-response";
    assert_eq!(
        verdicts(&run, scenario, scenario),
        // initialize first, notifications/initialized, the cancel, then the late answer's
        // reply (the session's end is client-lifecycle/shutdown's to judge).
        ["passed", "passed", "passed", "warning"],
        "{}",
        run.describe()
    );
    let ids = verdicts(&run, scenario, "jsonrpc/response-id-matches-request");
    assert!(ids.iter().any(|v| v == "failed"), "{ids:?}\n{}", run.describe());
    assert_eq!(run.code, Some(1), "{}", run.describe());
}

/// Clients over HTTP (a module of this one, so that `client::` selects them too).
#[path = "client_http.rs"]
mod http;
