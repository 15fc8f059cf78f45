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

/// The `_meta` key format begins with 2025-06-18: the same keys in a session at 2025-03-26
/// break nothing (a session the server moved to a later revision by a counter-offer is judged
/// at that revision).
#[test]
fn a_malformed_meta_key_is_no_fault_before_2025_06_18() {
    let args = ["--timeout", "2", "--revision", "2025-03-26", "--no-sweep"];
    let run = certify_reference(Some("meta-key-malformed"), &args, Duration::from_secs(120));
    let checks = run.checks();
    let early = checks.iter().filter(|(_, _, c)| {
        c["id"] == "meta/key-format" && c["spec"].as_str().is_some_and(|s| s.contains("/2025-03-26/"))
    });
    assert_eq!(early.count(), 0, "{}", run.describe());
    assert!(
        checks.iter().any(|(s, _, _)| s.starts_with("sweep") || s.starts_with("tools")),
        "{}",
        run.describe()
    );
}

/// Runs the whole suite at `revision` against the reference server with `fault` and asserts
/// that the check `check` has the verdict `verdict` (a MUST fails, a SHOULD warns).
fn assert_caught_at(fault: &str, revision: &str, check: &str, verdict: &str) {
    let run =
        certify_reference(Some(fault), &["--timeout", "2", "--revision", revision], Duration::from_secs(120));
    let hits: Vec<_> =
        run.checks().into_iter().filter(|(_, _, c)| c["id"] == check && c["verdict"] == verdict).collect();
    assert!(!hits.is_empty(), "{fault}: no {verdict} {check}; the run:\n{}", run.describe());
    let (_, _, c) = &hits[0];
    assert!(c["spec"].as_str().unwrap().starts_with(&format!("docs/specification/{revision}/")), "{c}");
    let code = if verdict == "failed" { Some(1) } else { run.code.filter(|c| *c <= 1) };
    assert_eq!(run.code, code, "{fault}: exit code\n{}", run.describe());
    assert_no_leftovers(&run.marker);
}

caught_by! { assert_caught_at;
    tool_schema_invalid: "tool-schema-invalid" at "2025-11-25" => "schema/dialect-valid" "failed";
    meta_key_malformed: "meta-key-malformed" at "2025-06-18" => "meta/key-format" "failed";
    unknown_method_wrong_code: "unknown-method-wrong-code" at "2025-11-25" => "jsonrpc/unknown-method" "failed";
    answer_notifications: "answer-notifications" at "2025-11-25" => "jsonrpc/notification-unanswered" "failed";
    crash_on_garbage: "crash-on-garbage" at "2025-11-25" => "jsonrpc/survives-malformed-json" "failed";
    accept_invalid_request: "accept-invalid-request" at "2025-11-25" => "jsonrpc/invalid-request[no method]" "warning";
    reject_batches: "reject-batches" at "2025-03-26" => "jsonrpc/batch-answered" "failed";
    accept_batches: "accept-batches" at "2025-06-18" => "jsonrpc/batch-revision" "failed";
    list_changed_before_initialized: "list-changed-before-initialized" at "2025-11-25" => "lifecycle/server-quiet-before-initialized" "warning";
    request_before_initialized: "request-before-initialized" at "2025-11-25" => "lifecycle/quiet-before-initialized" "warning";
    undeclared_logging: "undeclared-logging" at "2025-11-25" => "capabilities/logging-declared" "failed";
    progress_decreasing: "progress-decreasing" at "2025-11-25" => "progress/increasing" "failed";
    progress_after_response: "progress-after-response" at "2025-11-25" => "progress/stops-after-completion" "failed";
    progress_unknown_token: "progress-unknown-token" at "2025-11-25" => "progress/token-active" "failed";
    respond_after_cancel: "respond-after-cancel" at "2025-11-25" => "cancellation/no-response-after-cancel" "warning";
    respond_after_cancel_modern: "respond-after-cancel" at "2026-07-28" => "cancellation/silent-after-cancel" "failed";
    crash_on_unknown_cancel: "crash-on-unknown-cancel" at "2025-11-25" => "cancellation/unknown-request[an unknown id]" "failed";
    pagination_cycle: "pagination-cycle" at "2025-11-25" => "pagination/ends[tools/list]" "warning";
    pagination_duplicates: "pagination-duplicates" at "2025-11-25" => "pagination/ends[tools/list]" "warning";
    accept_invalid_cursor: "accept-invalid-cursor" at "2025-11-25" => "pagination/invalid-cursor[tools/list]" "warning";
    unknown_tool_is_error_result: "unknown-tool-is-error-result" at "2025-11-25" => "tools/unknown-tool" "warning";
    structured_content_mismatch: "structured-content-mismatch" at "2025-11-25" => "tools/structured-output" "failed";
    unknown_resource_wrong_code: "unknown-resource-wrong-code" at "2025-11-25" => "resources/unknown" "warning";
    prompt_missing_argument_accepted: "prompt-missing-argument-accepted" at "2025-11-25" => "prompts/missing-argument" "warning";
    invalid_log_level_accepted: "invalid-log-level-accepted" at "2025-11-25" => "logging/invalid-level" "warning";
    log_level_ignored: "log-level-ignored" at "2025-11-25" => "logging/level-filter" "warning";
    completion_too_many: "completion-too-many" at "2025-11-25" => "completion/template-at-most-100" "failed";
    sampling_without_capability: "sampling-without-capability" at "2025-11-25" => "capabilities/server-requests-declared" "failed";
    sampling_tools_without_capability: "sampling-tools-without-capability" at "2025-11-25" => "sampling/tools-capability" "failed";
    elicitation_without_capability: "elicitation-without-capability" at "2025-11-25" => "fixture/no-elicitation-undeclared" "failed";
    pretty_printed_json: "pretty-printed-json" at "2025-11-25" => "stdio/newline-delimited" "failed";
    notification_with_id: "notification-with-id" at "2025-11-25" => "jsonrpc/notification-no-id" "failed";
    duplicate_response: "duplicate-response" at "2025-11-25" => "jsonrpc/response-id-matches-request" "failed";
    null_id_response: "null-id-response" at "2025-11-25" => "jsonrpc/response-id" "failed";
    error_code_string: "error-code-string" at "2025-11-25" => "jsonrpc/error-code-integer" "failed";
    ping_non_empty_result: "ping-non-empty-result" at "2025-11-25" => "ping/after-initialize" "failed";
    progress_token_zero: "progress-token-zero" at "2025-11-25" => "progress/token-active" "failed";
    features_served_undeclared_tools: "features-served-undeclared" at "2025-06-18" => "tools/served-only-if-declared" "failed";
    features_served_undeclared_prompts: "features-served-undeclared" at "2024-11-05" => "prompts/served-only-if-declared" "failed";
    features_served_undeclared_resources: "features-served-undeclared" at "2025-11-25" => "resources/served-only-if-declared[resources/list]" "failed";
    completions_served_undeclared: "completions-served-undeclared" at "2025-03-26" => "completion/served-only-if-declared" "failed";
    completions_served_undeclared_modern: "completions-served-undeclared" at "2026-07-28" => "completion/served-only-if-declared" "failed";
    tool_arguments_unchecked: "tool-arguments-unchecked" at "2025-11-25" => "tools/validate-inputs" "failed";
    tool_schema_draft_07: "tool-schema-draft-07" at "2025-11-25" => "tools/validate-by-dialect" "failed";
    resources_path_traversal: "resources-path-traversal" at "2026-07-28" => "resources/no-path-traversal" "failed";
    modern_extension_unprefixed: "modern-extension-unprefixed" at "2026-07-28" => "extensions/identifier-naming" "failed";
    tool_schema_draft_07_modern: "tool-schema-draft-07" at "2026-07-28" => "tools/validate-by-dialect" "failed";
    completion_inputs_unchecked: "completion-inputs-unchecked" at "2024-11-05" => "completion/validate-inputs" "failed";
    // The sweep's elicitation personas meet the forms and URLs test_elicitation sends (the
    // modern era's as MRTR input requests).
    elicitation_asks_secret: "elicitation-asks-secret" at "2025-06-18" => "elicitation/form-no-secrets" "failed";
    elicitation_asks_secret_modern: "elicitation-asks-secret" at "2026-07-28" => "elicitation/form-no-secrets" "failed";
    elicitation_url_user_data: "elicitation-url-user-data" at "2025-11-25" => "elicitation/url-no-user-data" "failed";
    elicitation_url_user_data_modern: "elicitation-url-user-data" at "2026-07-28" => "elicitation/url-no-user-data" "failed";
}

// The modern era (2026-07-28): each deliberate defect of the reference server's modern
// rules, caught by the check that names the clause it breaks.
caught_by! { assert_caught_at;
    modern_discover_missing_cache_hints: "modern-discover-missing-cache-hints" at "2026-07-28" => "caching/hints" "failed";
    modern_discover_lists_undeclared: "modern-discover-lists-undeclared" at "2026-07-28" => "discover/capabilities-honest[prompts/list]" "failed";
    modern_meta_not_required: "modern-meta-not-required" at "2026-07-28" => "meta/required[is missing]" "failed";
    modern_unsupported_version_wrong_code: "modern-unsupported-version-wrong-code" at "2026-07-28" => "version/unsupported" "failed";
    modern_unsupported_version_no_list: "modern-unsupported-version-no-list" at "2026-07-28" => "version/unsupported" "failed";
    modern_removed_method_served: "modern-removed-method-served" at "2026-07-28" => "removed/method[ping]" "failed";
    modern_result_type_missing: "modern-result-type-missing" at "2026-07-28" => "modern/result-type" "failed";
    modern_tools_per_process: "modern-tools-per-process" at "2026-07-28" => "modern/lists-stable" "failed";
    modern_cache_hints_missing: "modern-cache-hints-missing" at "2026-07-28" => "caching/hints" "failed";
    modern_negative_ttl: "modern-negative-ttl" at "2026-07-28" => "caching/hints" "failed";
    modern_bad_cache_scope: "modern-bad-cache-scope" at "2026-07-28" => "caching/hints" "failed";
    modern_input_request_undeclared: "modern-input-request-undeclared" at "2026-07-28" => "mrtr/input-requests-declared" "failed";
    modern_input_request_undeclared_not_refused: "modern-input-request-undeclared" at "2026-07-28" => "meta/missing-capability[test_elicitation]" "failed";
    meta_key_malformed_modern: "meta-key-malformed" at "2026-07-28" => "meta/key-format" "failed";
    traceparent_malformed: "traceparent-malformed" at "2026-07-28" => "meta/trace-context" "failed";
    modern_x_mcp_header_invalid: "modern-x-mcp-header-invalid" at "2026-07-28" => "tools/x-mcp-header" "failed";
    modern_missing_capability_wrong_code: "modern-missing-capability-wrong-code" at "2026-07-28" => "meta/missing-capability[test_sampling]" "failed";
    modern_request_state_unchecked: "modern-request-state-unchecked" at "2026-07-28" => "mrtr/request-state-tampered" "warning";
    modern_input_required_on_list: "modern-input-required-on-list" at "2026-07-28" => "mrtr/supported-requests" "failed";
    modern_input_required_empty: "modern-input-required-empty" at "2026-07-28" => "mrtr/input-or-state" "failed";
    modern_missing_input_error: "modern-missing-input-error" at "2026-07-28" => "mrtr/missing-input-asked-again" "warning";
    modern_extra_input_rejected: "modern-extra-input-rejected" at "2026-07-28" => "mrtr/extra-input-ignored" "warning";
    modern_unknown_resource_empty_contents: "modern-unknown-resource-empty-contents" at "2026-07-28" => "resources/unknown-invalid-params" "failed";
    modern_unknown_resource_old_code: "modern-unknown-resource-old-code" at "2026-07-28" => "modern/error-codes" "failed";
    modern_error_without_id: "modern-error-without-id" at "2026-07-28" => "jsonrpc/response-id" "failed";
    modern_server_sends_request: "modern-server-sends-request" at "2026-07-28" => "modern/no-server-requests" "failed";
    modern_listen_no_ack: "modern-listen-no-ack" at "2026-07-28" => "subscriptions/acknowledged-first" "failed";
    modern_listen_missing_subscription_id: "modern-listen-missing-subscription-id" at "2026-07-28" => "subscriptions/subscription-id" "failed";
    modern_listen_unrequested: "modern-listen-unrequested" at "2026-07-28" => "subscriptions/only-requested" "failed";
    modern_log_without_level: "modern-log-without-level" at "2026-07-28" => "logging/per-request-level" "failed";
}

/// Regression (issue #11): what a server writes after a scenario's last wait was never read, so
/// a stray progress notification (token 0) right after a tool's answer passed the scenarios
/// that end with that answer. Each such scenario fails now, in every revision.
#[test]
fn a_message_after_the_last_wait_is_judged() {
    let run = certify_reference(
        Some("progress-token-zero"),
        &["--timeout", "2", "--revision", "2025-06-18", "--revision", "2024-11-05"],
        Duration::from_secs(120),
    );
    for revision in ["2025-06-18", "2024-11-05"] {
        let hit = run.checks().into_iter().find(|(scenario, r, c)| {
            scenario == "fixture/simple-text" && r == revision && c["id"] == "progress/token-active"
        });
        let (_, _, c) =
            hit.unwrap_or_else(|| panic!("{revision}: simple-text not failed\n{}", run.describe()));
        assert_eq!(c["verdict"], "failed");
        assert!(c["actual"].as_str().unwrap().contains("token 0"), "{c}");
    }
    assert_no_leftovers(&run.marker);
}

/// Issue #11: `format` is an annotation (JSON Schema 2020-12). A server whose only defect is a
/// URL that is not a URI gets a warning naming the format and the place, not a failure; a
/// structural defect (`result-and-error`, above) still fails.
#[test]
fn a_format_mismatch_is_a_warning() {
    let run = certify_reference(
        Some("website-url-not-uri"),
        &["--timeout", "2", "--revision", "2025-11-25"],
        Duration::from_secs(120),
    );
    assert_eq!(run.code, Some(0), "only a SHOULD is broken\n{}", run.describe());
    let checks = run.checks();
    let format = checks.iter().find(|(_, _, c)| c["id"] == "schema/format");
    let (_, _, c) = format.unwrap_or_else(|| panic!("no schema/format check\n{}", run.describe()));
    assert_eq!((c["verdict"].as_str(), c["level"].as_str()), (Some("warning"), Some("SHOULD")));
    assert!(c["expected"].as_str().unwrap().contains("format uri at /result/serverInfo/websiteUrl"), "{c}");
    assert!(!checks.iter().any(|(_, _, c)| c["verdict"] == "failed"), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// Issue #11: a server that pretty-prints its JSON breaks the framing, reported once per
/// session; its messages are reassembled and judged on their merits, so nothing else fails
/// and no scenario waits out its timeout (before, every one did, failing on the missing answers).
#[test]
fn pretty_printed_json_is_reported_once_and_judged_on_its_merits() {
    let run = certify_reference(
        Some("pretty-printed-json"),
        &["--timeout", "2", "--revision", "2025-11-25", "--revision", "2024-11-05"],
        Duration::from_secs(120),
    );
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let mut scenarios = std::collections::BTreeMap::<(String, String), usize>::new();
    for (scenario, revision, c) in run.checks() {
        if c["verdict"] == "failed" {
            assert_eq!(c["id"], "stdio/newline-delimited", "{scenario} {revision}: {c}");
            assert!(c["actual"].as_str().unwrap().contains("pretty-printed JSON"), "{c}");
            *scenarios.entry((scenario, revision)).or_default() += 1;
        }
    }
    assert!(scenarios.len() > 100, "every scenario sees the fault: {}", scenarios.len());
    // Once per session; version/answer-supported runs one, as the server echoes the revision
    // offered (a server that answered with another one would be offered it in a second).
    assert!(scenarios.values().all(|n| *n == 1), "once per session: {scenarios:?}");
    assert_no_leftovers(&run.marker);
}

// Tasks (2025-11-25, experimental): each deliberate defect of the reference server's tasks,
// caught by the scenario that names the clause it breaks.
caught_by! { assert_caught_at;
    task_result_without_related_task: "task-result-without-related-task" at "2025-11-25" => "tasks/result-exact" "failed";
    task_cancel_terminal_accepted: "task-cancel-terminal-accepted" at "2025-11-25" => "tasks/cancel-terminal-error" "failed";
    task_unknown_wrong_code: "task-unknown-wrong-code" at "2025-11-25" => "tasks/unknown-task" "failed";
    task_required_served_plain: "task-required-served-plain" at "2025-11-25" => "tasks/required-tool-plain-error" "failed";
    task_no_last_updated: "task-no-last-updated" at "2025-11-25" => "tasks/create-task-result" "failed";
    task_list_omits_completed: "task-list-omits-completed" at "2025-11-25" => "tasks/get-implies-list" "failed";
    task_cancelled_completes: "task-cancelled-completes" at "2025-11-25" => "tasks/cancelled-stays" "failed";
    task_ids_sequential: "task-ids-sequential" at "2025-11-25" => "tasks/ids-unguessable" "failed";
    task_id_repeats: "task-id-repeats" at "2025-11-25" => "tasks/ids-unique" "failed";
    task_terminal_reopens: "task-terminal-reopens" at "2025-11-25" => "tasks/terminal-final" "failed";
    task_terminal_reopens_on_the_wire: "task-terminal-reopens" at "2025-11-25" => "tasks/status-lifecycle" "failed";
    task_results_related_meta: "task-results-related-meta" at "2025-11-25" => "tasks/no-related-meta-in-task-messages" "warning";
    task_result_altered: "task-result-altered" at "2025-11-25" => "tasks/result-as-plain-call" "failed";
    task_field_refused: "task-field-refused" at "2025-11-25" => "tasks/undeclared-request-type" "failed";
    task_meta_overrides_param: "task-meta-overrides-param" at "2025-11-25" => "tasks/param-over-meta" "failed";
    task_list_no_next_cursor: "task-list-no-next-cursor" at "2025-11-25" => "tasks/list-pages" "failed";
    task_capability_undeclared: "task-capability-undeclared" at "2025-11-25" => "tasks/undeclared-tool-call" "failed";
    task_capability_undeclared_on_the_wire: "task-capability-undeclared" at "2025-11-25" => "tasks/capability-declared" "failed";
    task_progress_new_token: "task-progress-new-token" at "2025-11-25" => "progress/token-active" "failed";
    task_progress_after_end: "task-progress-after-end" at "2025-11-25" => "progress/task-stops-at-terminal" "failed";
    task_failed_without_message: "task-failed-without-message" at "2025-11-25" => "tasks/failed-says-why" "warning";
    task_error_becomes_result: "task-error-becomes-result" at "2025-11-25" => "tasks/result-error-as-plain-call" "failed";
    task_id_from_requestor: "task-id-from-requestor" at "2025-11-25" => "tasks/id-by-receiver" "failed";
    task_result_without_related_task_on_the_wire: "task-result-without-related-task" at "2025-11-25" => "tasks/result-names-task" "failed";
    task_input_request_unrelated: "task-input-request-unrelated" at "2025-11-25" => "tasks/input-request-names-task" "failed";
    task_input_request_other_task: "task-input-request-other-task" at "2025-11-25" => "tasks/related-task-known" "failed";
}
