//! Servers over HTTP: the reference server passes every scenario over Streamable HTTP and
//! HTTP+SSE, and each deliberate defect of its HTTP layer is caught by the check that names it.

use crate::support::*;
use std::time::Duration;

/// `mcpspec server --transport T [EXTRA] -- mcpspec reference server --transport T --port {port}
/// [--fault FAULT]`, with a report.
pub fn certify_reference_over(transport: &str, fault: Option<&str>, extra: &[&str]) -> Run {
    let schemas = shared_schemas().map(|p| p.display().to_string());
    let mut args = vec!["server", "--transport", transport];
    if let Some(s) = &schemas {
        args.extend(["--schema-dir", s.as_str()]);
    }
    args.extend(extra);
    args.extend(["--", MCPSPEC, "reference", "server", "--transport", transport, "--port", "{port}"]);
    if let Some(f) = fault {
        args.extend(["--fault", f]);
    }
    run(&args, true, Duration::from_secs(180))
}

#[test]
fn the_reference_server_passes_over_streamable_http() {
    let run = certify_reference_over("http", None, &["--timeout", "5"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(
        run.summary("failed") + run.summary("warnings") + run.summary("errors"),
        0,
        "{}",
        run.describe()
    );
    // Every revision Streamable HTTP has (2024-11-05 has none: skipped, with the reason).
    let transport = run.scenarios("http/notification-202");
    let passed: Vec<_> =
        transport.iter().filter(|s| s["verdict"] == "passed").map(|s| s["revision"].clone()).collect();
    assert_eq!(passed, ["2025-03-26", "2025-06-18", "2025-11-25"], "{}", run.describe());
    assert!(run.stdout.contains("Streamable HTTP begins with 2025-03-26"), "{}", run.describe());
    // The modern era over HTTP: the request headers mirror the body, and it is checked.
    for id in [
        "http/header-version-mismatch",
        "http/header-name-base64",
        "meta/required[is missing]",
        "http/param-header-mismatch",
        "http/param-header-case",
    ] {
        let at: Vec<_> =
            run.scenarios(id).into_iter().map(|s| (s["revision"].clone(), s["verdict"].clone())).collect();
        assert_eq!(
            at,
            [(serde_json::json!("2026-07-28"), serde_json::json!("passed"))],
            "{id}\n{}",
            run.describe()
        );
    }
    // The wire rules saw HTTP: every scenario judged its exchanges.
    let judged = run.checks().into_iter().filter(|(_, _, c)| c["id"] == "http/transport").count();
    assert!(judged > 100, "{judged}\n{}", run.describe());
    assert_no_leftovers(&run.marker);
}

#[test]
fn the_reference_server_passes_over_http_sse() {
    let run = certify_reference_over("sse", None, &["--timeout", "5"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(
        run.summary("failed") + run.summary("warnings") + run.summary("errors"),
        0,
        "{}",
        run.describe()
    );
    let endpoint = run.scenarios("sse/endpoint-event");
    assert_eq!(endpoint.len(), 4, "every legacy revision: {}", run.describe());
    // HTTP+SSE is a legacy transport: the modern revision is skipped, with the reason.
    assert!(run.stdout.contains("HTTP+SSE is a transport of the legacy era"), "{}", run.describe());
    assert!(endpoint.iter().all(|s| s["verdict"] == "passed"), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// Transcripts of a failing scenario over HTTP show the status line and headers.
#[test]
fn a_transcript_shows_http_status_and_headers() {
    let run = certify_reference_over(
        "http",
        Some("http-text-plain"),
        &["--timeout", "2", "--revision", "2025-11-25"],
    );
    let report = run.report.as_ref().expect("a report");
    let scenario = report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == "http/request-json-or-sse")
        .unwrap_or_else(|| panic!("{}", run.describe()));
    let transcript = scenario["transcript"].to_string();
    assert!(
        transcript.contains("→ 200 text/plain") && transcript.contains("content-type: text/plain"),
        "{transcript}"
    );
    assert!(transcript.contains("mcp-session-id: "), "{transcript}");
}

/// Runs the suite at `revision` over `transport` against the reference server with `fault` and
/// asserts that `check` has `verdict` (a MUST fails, a SHOULD warns), citing that revision.
fn assert_caught_over(transport: &str, fault: &str, revision: &str, check: &str, verdict: &str) {
    let run = certify_reference_over(transport, Some(fault), &["--timeout", "2", "--revision", revision]);
    let hits: Vec<_> =
        run.checks().into_iter().filter(|(_, _, c)| c["id"] == check && c["verdict"] == verdict).collect();
    assert!(!hits.is_empty(), "{fault}: no {verdict} {check}; the run:\n{}", run.describe());
    let (_, _, c) = &hits[0];
    assert!(
        c["spec"].as_str().unwrap().starts_with(&format!("docs/specification/{revision}/basic/transports")),
        "{c}"
    );
    let code = if verdict == "failed" { Some(1) } else { run.code.filter(|c| *c <= 1) };
    assert_eq!(run.code, code, "{fault}: exit code\n{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// One test per HTTP fault: the transport, the fault, the revision it shows in, the check that
/// catches it, and the verdict.
macro_rules! caught_over {
    ($($name:ident: $transport:literal $fault:literal at $rev:literal => $check:literal $verdict:literal;)*) => {
        $(#[test]
        fn $name() {
            assert_caught_over($transport, $fault, $rev, $check, $verdict);
        })*
    };
}

caught_over! {
    accepted_with_body: "http" "http-accepted-with-body" at "2025-11-25" => "http/notification-202" "failed";
    replay_other_stream: "http" "sse-replay-other-stream" at "2025-06-18" => "http/replay-own-stream" "failed";
    session_id_invalid_chars: "http" "http-session-id-invalid-chars" at "2025-11-25" => "http/session-id-visible-ascii" "failed";
    deleted_session_served: "http" "http-deleted-session-served" at "2025-06-18" => "http/session-terminated-404" "failed";
    missing_session_id_served: "http" "http-missing-session-id-served" at "2025-11-25" => "http/session-required" "warning";
    unknown_session_400: "http" "http-unknown-session-400" at "2025-03-26" => "http/unknown-session-404" "warning";
    refused_notification_accepted: "http" "http-refused-notification-accepted" at "2025-06-18" => "http/refused-notification-error" "failed";
    protocol_version_unchecked: "http" "http-protocol-version-unchecked" at "2025-06-18" => "http/protocol-version-invalid" "failed";
    foreign_origin_accepted: "http" "http-foreign-origin-accepted" at "2025-11-25" => "http/origin-forbidden" "failed";
    foreign_origin_accepted_before_403: "http" "http-foreign-origin-accepted" at "2025-03-26" => "http/origin-validated" "failed";
    foreign_origin_accepted_modern: "http" "http-foreign-origin-accepted" at "2026-07-28" => "http/origin-forbidden-modern" "failed";
    accept_unchecked: "http" "http-accept-unchecked" at "2025-11-25" => "http/accept-honoured" "warning";
    get_json: "http" "http-get-json" at "2025-11-25" => "http/get-sse-or-405" "failed";
    text_plain: "http" "http-text-plain" at "2025-11-25" => "http/response-content-type" "failed";
    event_ids_repeat: "http" "sse-event-ids-repeat" at "2025-11-25" => "http/event-id-unique" "failed";
    broadcast: "http" "sse-broadcast" at "2025-11-25" => "http/no-broadcast" "failed";
    response_on_get: "http" "sse-response-on-get" at "2025-11-25" => "http/no-response-on-get" "failed";
    close_before_response: "http" "sse-close-before-response" at "2025-06-18" => "http/response-on-its-stream" "warning";
    no_endpoint_event: "sse" "sse-no-endpoint-event" at "2024-11-05" => "sse/endpoint-event" "failed";
    wrong_event_type: "sse" "sse-wrong-event-type" at "2024-11-05" => "sse/message-events" "failed";
    modern_header_unchecked: "http" "modern-http-header-unchecked" at "2026-07-28" => "http/header-method-mismatch[names another method]" "failed";
    modern_status_200_on_error: "http" "modern-http-status-200-on-error" at "2026-07-28" => "http/unknown-method-404" "failed";
    modern_notification_refused_ok: "http" "modern-http-notification-refused-ok" at "2026-07-28" => "http/notification-accepted-or-refused" "failed";
    modern_change_on_call_stream: "http" "modern-change-on-call-stream" at "2026-07-28" => "http/post-stream-related" "failed";
}

/// streamable-http.mdx#server-behavior-for-custom-headers (2026-07-28): each `Mcp-Param-*`
/// fault of the endpoint fails the custom-header scenarios it breaks, and only those; the
/// clean reference server passes them all. One run per fault, of those scenarios alone.
#[test]
fn param_header_faults_fail_their_scenarios() {
    let verdicts = |fault: Option<&str>| {
        let mut args = vec!["server", "--transport", "http", "--timeout", "3", "--revision", "2026-07-28"];
        args.extend(["--scenario", "http/param-header*", "--", MCPSPEC, "reference", "server"]);
        args.extend(["--transport", "http", "--port", "{port}"]);
        if let Some(f) = fault {
            args.extend(["--fault", f]);
        }
        let run = run(&args, true, Duration::from_secs(120));
        assert_no_leftovers(&run.marker);
        // A SHOULD's failure is a warning.
        let failed: Vec<String> = run.report.as_ref().unwrap()["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["verdict"] == "failed" || s["verdict"] == "warning")
            .map(|s| s["id"].as_str().unwrap().split('[').next().unwrap().to_owned())
            .collect();
        let passed = run.report.as_ref().unwrap()["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["verdict"] == "passed")
            .count();
        (failed, passed, run)
    };
    let (failed, passed, run) = verdicts(None);
    assert!(failed.is_empty() && passed == 8, "{}", run.describe());
    for (fault, expected) in [
        (
            "modern-http-param-header-unchecked",
            &["http/param-header-mismatch", "http/param-header-missing", "http/param-header-invalid-chars"][..],
        ),
        (
            "modern-http-param-header-always-expected",
            &["http/param-header-null", "http/param-header-absent"][..],
        ),
        ("modern-http-param-header-case-sensitive", &["http/param-header-case"][..]),
        ("modern-http-param-header-integer-as-text", &["http/param-header-numeric"][..]),
    ] {
        let (failed, _, run) = verdicts(Some(fault));
        for id in expected {
            assert!(failed.iter().any(|f| f == id), "--fault {fault}: {id} did not fail\n{}", run.describe());
        }
        let code = if fault.ends_with("integer-as-text") { 0 } else { 1 };
        assert_eq!(run.code, Some(code), "{}", run.describe());
    }
}

/// streamable-http.mdx#protocol-version-header (2026-07-28): a server that serves no client of
/// a revision before 2025-06-18 MUST reject a request without MCP-Protocol-Version (400,
/// -32020); a dual-era one MAY serve it as 2025-03-26, so the check runs against a modern-only
/// reference server, which passes it, and fails it with `modern-http-version-header-optional`.
#[test]
fn a_modern_only_server_requires_the_version_header() {
    let verdict = |fault: Option<&str>| {
        let mut args = vec!["server", "--transport", "http", "--timeout", "2", "--revision", "2026-07-28"];
        args.extend(["--scenario", "http/version-header-required", "--", MCPSPEC, "reference", "server"]);
        args.extend(["--transport", "http", "--port", "{port}", "--supported", "2026-07-28"]);
        if let Some(f) = fault {
            args.extend(["--fault", f]);
        }
        let run = run(&args, true, Duration::from_secs(120));
        let scenario = run.scenarios("http/version-header-required");
        assert_eq!(scenario.len(), 1, "{}", run.describe());
        assert_no_leftovers(&run.marker);
        (scenario[0]["verdict"].as_str().unwrap_or_default().to_owned(), run.code)
    };
    assert_eq!(verdict(None), ("passed".to_owned(), Some(0)));
    assert_eq!(verdict(Some("modern-http-version-header-optional")), ("failed".to_owned(), Some(1)));
}

/// A server that refused a POSTed batch with 400 and one JSON-RPC error without an id once
/// passed jsonrpc/batch-answered at 2025-03-26 ("all answered"): that error answers the POST,
/// not each request in the batch, so no request of it was answered.
#[test]
fn a_refused_batch_is_no_answered_batch() {
    let extra = ["--timeout", "2", "--revision", "2025-03-26", "--scenario", "jsonrpc/batch-answered"];
    let run = certify_reference_over("http", Some("http-refuse-batches"), &extra);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let failed: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(_, _, c)| c["id"] == "jsonrpc/batch-answered" && c["verdict"] == "failed")
        .collect();
    let (_, _, c) = failed.first().unwrap_or_else(|| panic!("not caught\n{}", run.describe()));
    let actual = c["actual"].as_str().unwrap();
    assert!(actual.contains("no response to \"mcpspec-b1\", \"mcpspec-b2\""), "{c}");
    assert!(actual.contains("refused with HTTP 400"), "{c}");
    assert!(c["spec"].as_str().unwrap().ends_with("2025-03-26/basic/index.mdx#batching"), "{c}");
    // The same server over stdio, where the fault does not act, answers the batch.
    let clean = certify_reference_over("http", None, &extra);
    assert_eq!(clean.code, Some(0), "{}", clean.describe());
    assert_no_leftovers(&run.marker);
}

/// A plausible server written apart from mcpspec (Python's standard library) honours a
/// notifications/cancelled for a request in flight: no response, and the request's SSE stream
/// ends. It was once warned http/response-on-its-stream (SHOULD) at every revision with
/// Streamable HTTP, though a cancelled request owes no response on any stream.
#[test]
fn a_cancelled_request_owes_no_response_on_its_stream() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/iut/cancel_honouring_http_server.py");
    for revision in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let args = [
            "server",
            "--transport",
            "http",
            "--timeout",
            "2",
            "--revision",
            revision,
            "--scenario",
            "cancellation/in-flight",
            "--",
            "python3",
            script,
            "{port}",
        ];
        let run = run(&args, true, Duration::from_secs(60));
        let scenario = run.scenarios("cancellation/in-flight").pop();
        let scenario = scenario.unwrap_or_else(|| panic!("{revision}: not run\n{}", run.describe()));
        assert_eq!(scenario["verdict"], "passed", "{revision}: {scenario:#}");
        let stream: Vec<_> =
            run.checks().into_iter().filter(|(_, _, c)| c["id"] == "http/response-on-its-stream").collect();
        assert!(stream.iter().all(|(_, _, c)| c["verdict"] == "passed"), "{revision}: {stream:#?}");
        assert_eq!(run.code, Some(0), "{revision}\n{}", run.describe());
        assert_no_leftovers(&run.marker);
    }
}

/// A -32021 refusal answered with 200 over HTTP: `meta/missing-capability` (its clause on
/// `basic/index.mdx#_meta`, not the transport page) fails on the status alone, the error being
/// right.
#[test]
fn a_missing_capability_refused_with_200_is_caught() {
    let args = ["--timeout", "2", "--revision", "2026-07-28", "--scenario", "meta/missing-capability"];
    let run = certify_reference_over("http", Some("modern-http-status-200-on-error"), &args);
    let hits: Vec<_> = run
        .checks()
        .into_iter()
        .filter(|(s, _, c)| s.starts_with("meta/missing-capability") && c["verdict"] == "failed")
        .collect();
    assert!(!hits.is_empty(), "no failed meta/missing-capability; the run:\n{}", run.describe());
    for (_, _, c) in &hits {
        assert_eq!(c["expected"], "HTTP 400", "{c}");
        assert!(
            c["spec"].as_str().unwrap().starts_with("docs/specification/2026-07-28/basic/index.mdx"),
            "{c}"
        );
    }
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert_no_leftovers(&run.marker);
}

/// A response withheld on a stream that stays open: the wait ends within the timeout with a
/// clear verdict, and the run ends (nothing hangs on the endless stream).
#[test]
fn a_withheld_response_ends_within_the_timeout() {
    let run = certify_reference_over(
        "http",
        Some("sse-response-withheld"),
        &["--timeout", "1", "--revision", "2025-11-25", "--no-sweep"],
    );
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let hit =
        run.checks().into_iter().find(|(s, _, c)| s == "ping/after-initialize" && c["verdict"] == "failed");
    let (_, _, c) = hit.unwrap_or_else(|| panic!("{}", run.describe()));
    assert!(c["actual"].as_str().unwrap().contains("no response within 1s"), "{c}");
    assert!(run.elapsed < Duration::from_secs(120), "{:?}", run.elapsed);
    assert_no_leftovers(&run.marker);
}

/// `--header` values (a bearer token, say) never reach the console or the report.
#[test]
fn a_header_value_is_never_reported() {
    let secret = "mcpspec-s3cret-token";
    let header = format!("Authorization: Bearer {secret}");
    let run = certify_reference_over(
        "http",
        Some("http-text-plain"),
        &["--timeout", "2", "--revision", "2025-11-25", "--no-sweep", "--header", &header],
    );
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let report = run.report.as_ref().expect("a report").to_string();
    assert!(report.contains("\"transcript\""), "failing scenarios keep their transcripts");
    for (what, text) in [("report", &report), ("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(!text.contains(secret), "the header's value is in the {what}");
    }
}

/// Servers that never finish, reached by `--url`: an endless SSE stream of notifications, and a
/// JSON body that stalls after its first bytes (the reference server's hostile faults). Every
/// wait ends within the timeout, with a clear verdict, and the run ends.
#[test]
fn endless_streams_and_stalled_bodies_end_within_the_timeout() {
    // One scenario is enough to show a wait ends: the run's other waits are the same waits.
    let scenarios = tempfile::tempdir().unwrap();
    let feature = "Feature: ping\n\n  @id:ping/after-initialize @MUST @spec:basic/utilities/ping.mdx\n  \
                   Scenario: ping is answered\n    Given an initialized session\n    \
                   When the client sends a \"ping\" request\n    Then the server answers with the result {}\n";
    std::fs::write(scenarios.path().join("ping.feature"), feature).unwrap();
    let dir = scenarios.path().display().to_string();
    for fault in ["http-endless-sse", "http-stalled-body"] {
        let server = ServedReference::start(&["--fault", fault]);
        let args = [
            "server",
            "--url",
            &server.url,
            "--transport",
            "http",
            "--timeout",
            "1",
            "--revision",
            "2025-11-25",
        ];
        let run = run(&[&args[..], &["--scenarios", &dir]].concat(), true, Duration::from_secs(120));
        assert_eq!(run.code, Some(1), "{fault}\n{}", run.describe());
        let failed = run
            .checks()
            .into_iter()
            .find(|(s, _, c)| s == "ping/after-initialize" && c["verdict"] == "failed");
        let (_, _, c) = failed.unwrap_or_else(|| panic!("{fault}\n{}", run.describe()));
        assert!(c["actual"].as_str().unwrap().contains("within 1s"), "{fault}: {c}");
        assert!(run.elapsed < Duration::from_secs(30), "{fault}: {:?}", run.elapsed);
    }
}
