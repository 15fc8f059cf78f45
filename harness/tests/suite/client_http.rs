//! Clients over HTTP: `mcpspec client --transport http|sse` certifies the reference client over
//! both HTTP transports at every revision each allows, and catches each HTTP fault of the
//! fault-injecting reference client (`mcpspec reference client --transport T --fault NAME`)
//! with the check that names it.

use super::verdicts;
use crate::support::{assert_no_leftovers, run, Run, MCPSPEC};
use std::time::Duration;

/// `mcpspec client --transport T --timeout S --revision R -- mcpspec reference client
/// --transport T --fault F`. A clean client never waits out the timeout, so a clean run gets a
/// generous one (5 s: a loaded machine must not fail the innocent); a faulty one 2 s, which the
/// faults do wait out.
fn certify_over(transport: &str, revision: &str, fault: Option<&str>) -> Run {
    certify_scenarios_over(transport, revision, fault, None)
}

/// [`certify_over`], only the scenarios whose id matches `scenario` (a `--scenario` glob).
fn certify_scenarios_over(
    transport: &str,
    revision: &str,
    fault: Option<&str>,
    scenario: Option<&str>,
) -> Run {
    let timeout = if fault.is_some() { "2" } else { "5" };
    let mut args = vec!["client", "-j", "8", "--timeout", timeout, "--transport", transport];
    if !revision.is_empty() {
        args.extend(["--revision", revision]);
    }
    if let Some(scenario) = scenario {
        args.extend(["--scenario", scenario]);
    }
    args.extend(["--", MCPSPEC, "reference", "client", "--transport", transport]);
    if let Some(fault) = fault {
        args.extend(["--fault", fault]);
    }
    let run = run(&args, true, Duration::from_secs(90));
    assert_no_leftovers(&run.marker);
    run
}

#[test]
fn client_reference_passes_over_streamable_http_and_http_sse() {
    for (transport, skipped_revision) in [("http", true), ("sse", false)] {
        let run = certify_over(transport, "", None);
        assert_eq!(run.code, Some(0), "{}", run.describe());
        assert_eq!(run.summary("failed"), 0, "{transport}: {}", run.describe());
        assert_eq!(run.summary("errors"), 0, "{transport}: {}", run.describe());
        // Streamable HTTP has no 2024-11-05: no scenario passes there (they are skipped).
        let scenarios = run.report.as_ref().unwrap()["scenarios"].as_array().unwrap().clone();
        let passed_2024 = scenarios.iter().any(|s| s["revision"] == "2024-11-05" && s["verdict"] == "passed");
        assert_eq!(passed_2024, !skipped_revision, "{transport}: {}", run.describe());
        for id in [
            "client-http/reinitialize-after-404",
            "client-http/delete-session",
            "client-sse/post-to-endpoint",
        ] {
            let ran = run.scenarios(id).iter().any(|s| s["verdict"] == "passed");
            assert_eq!(
                ran,
                id.starts_with(&format!("client-{transport}/")),
                "{transport} {id}: {}",
                run.describe()
            );
        }
    }
}

/// The dual-era reference client passes every scenario of 2026-07-28 over Streamable HTTP (19 of
/// modern.feature's, the stdio probe scenario and the two of an undeclared sampling.tools aside,
/// the four HTTP ones, and the OAuth ones); over HTTP+SSE, the
/// 2024-11-05 transport, the revision is skipped with the reason.
#[test]
fn client_reference_passes_every_modern_scenario_over_http() {
    let run = certify_over("http", "2026-07-28", None);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    // The OAuth scenarios (client_auth.rs counts them) aside.
    let passed = run.report.as_ref().unwrap()["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| {
            s["verdict"] == "passed" && !s["id"].as_str().unwrap().starts_with("client-authorization/")
        })
        .count();
    assert_eq!(passed, 23, "{}", run.describe());
    let sse = certify_over("sse", "2026-07-28", None);
    assert_eq!(sse.summary("skipped"), 21, "{}", sse.describe());
    assert!(sse.stdout.contains("HTTP+SSE is a transport of the legacy era"), "{}", sse.describe());
}

/// One test per row: `name: "fault" over T at R in "scenario" => "check" "verdict";` from one
/// run of the faulty reference client, of that scenario alone. (The whole suite under the 2 s
/// timeout once failed an unrelated OAuth scenario of a loaded machine's slow client, and
/// made the row's exit code wrong; the clean client's whole runs above hold the rest.)
macro_rules! caught {
    ($($name:ident: $fault:literal over $transport:literal at $rev:literal in $scenario:literal
        => $check:literal $verdict:literal;)*) => {
        $(#[test]
        fn $name() {
            let run = certify_scenarios_over($transport, $rev, Some($fault), Some($scenario));
            let seen = verdicts(&run, $scenario, $check);
            assert!(
                seen.iter().any(|v| v == $verdict),
                "--fault {}: expected {} {} in {}, saw {seen:?}\n{}",
                $fault, $check, $verdict, $scenario, run.describe()
            );
            let code = if $verdict == "failed" { 1 } else { 0 };
            assert_eq!(run.code, Some(code), "{}", run.describe());
        })*
    };
}

caught! {
    client_http_fault_accept_json_only: "http-accept-json-only" over "http" at "2025-06-18"
        in "client-lifecycle/initialize-first" => "http-client/post-accept" "failed";
    client_http_fault_no_session_header: "http-no-session-header" over "http" at "2025-06-18"
        in "client-lifecycle/initialized-after-response" => "http-client/session-id" "failed";
    client_http_fault_no_protocol_version: "http-no-protocol-version" over "http" at "2025-06-18"
        in "client-lifecycle/initialized-after-response" => "http-client/protocol-version-header" "failed";
    client_http_fault_wrong_protocol_version: "http-wrong-protocol-version" over "http" at "2025-06-18"
        in "client-lifecycle/initialized-after-response" => "http-client/protocol-version-negotiated" "warning";
    client_http_fault_put_notifications: "http-put-notifications" over "http" at "2025-03-26"
        in "client-lifecycle/ping-while-waiting" => "http-client/post-messages" "failed";
    client_http_fault_sse_only: "http-sse-only" over "http" at "2025-06-18"
        in "client-http/json-answers" => "client-http/json-answers" "failed";
    client_http_fault_sse_only_modern: "http-sse-only" over "http" at "2026-07-28"
        in "client-http/modern-json-answers" => "client-http/modern-json-answers" "failed";
    client_http_fault_batch: "http-batch" over "http" at "2025-06-18"
        in "client-lifecycle/request-ids" => "http-client/one-message-per-post" "failed";
    client_http_fault_no_reinitialize: "http-no-reinitialize" over "http" at "2025-06-18"
        in "client-http/reinitialize-after-404" => "client-http/reinitialize-after-404" "failed";
    client_http_fault_ignores_retry: "http-ignores-retry" over "http" at "2025-11-25"
        in "client-http/resume-after-retry" => "http-client/respect-retry" "failed";
    client_http_fault_no_resume: "http-no-resume" over "http" at "2025-11-25"
        in "client-http/resume-after-retry" => "client-http/resume-after-retry" "failed";
    client_http_fault_no_delete: "http-no-delete" over "http" at "2025-06-18"
        in "client-http/delete-session" => "client-http/delete-session" "warning";
    client_sse_fault_post_wrong_path: "sse-post-wrong-path" over "sse" at "2024-11-05"
        in "client-sse/post-to-endpoint" => "sse-client/post-to-endpoint" "failed";
    // The endpoint refuses the mismatch (400, -32020) before a request is served.
    client_http_fault_modern_header_version_mismatch: "modern-header-version-mismatch" over "http"
        at "2026-07-28" in "client-modern/http-request-headers" => "client-modern/http-request-headers" "failed";
    // streamable-http.mdx#custom-headers-from-tool-parameters: each call of test_custom_headers
    // is judged against its arguments.
    client_http_fault_param_headers_omitted: "modern-param-headers-omitted" over "http" at "2026-07-28"
        in "client-modern/param-headers" => "http-client/param-header-mirrored" "failed";
    client_http_fault_param_headers_omitted_scenario: "modern-param-headers-omitted" over "http" at "2026-07-28"
        in "client-modern/param-headers" => "client-modern/param-headers" "failed";
    client_http_fault_param_headers_unencoded: "modern-param-headers-unencoded" over "http" at "2026-07-28"
        in "client-modern/param-headers" => "http-client/param-header-encoding" "failed";
    client_http_fault_param_headers_for_missing_values: "modern-param-headers-for-missing-values" over "http"
        at "2026-07-28" in "client-modern/param-headers" => "http-client/param-header-omitted" "failed";
    client_http_fault_param_header_unsafe_integer: "modern-param-header-unsafe-integer" over "http"
        at "2026-07-28" in "client-modern/param-headers" => "http-client/param-header-safe-integer" "failed";
    client_http_fault_keeps_invalid_param_header_tool: "modern-keeps-invalid-param-header-tool" over "http"
        at "2026-07-28" in "client-modern/x-mcp-header-invalid" => "client-modern/x-mcp-header-invalid" "failed";
}
