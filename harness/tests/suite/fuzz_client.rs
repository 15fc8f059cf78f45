//! `mcpspec fuzz --role client` and `mcpspec replay --role client` as a user runs them: the
//! planted bugs of the reference client (`mcpspec reference client --fault fuzz-…`: crashes on
//! what it reads, a hang, a double answer; over HTTP, `fuzz-http-…`: crashes and hangs on what
//! its HTTP transport reads) are each found within a minute with a fixed seed, reported once,
//! minimized and replayed; the clean reference client yields nothing, over stdio, Streamable
//! HTTP and HTTP+SSE.

use crate::fuzz::Reach;
use crate::support::run;
use serde_json::Value;
use std::time::Duration;

/// `mcpspec fuzz --role client` of `mcpspec reference client [--fault F]`.
const CLIENT: Reach =
    Reach { words: &["--role", "client"], peer: &["reference", "client"], shown: ("role", "client") };

/// `mcpspec fuzz --role client --transport http` of `mcpspec reference client --transport http
/// [--fault F]`, as `mcpspec client --transport http` serves it (the URL appended).
const CLIENT_HTTP: Reach = Reach {
    words: &["--role", "client", "--transport", "http"],
    peer: &["reference", "client", "--transport", "http"],
    shown: ("transport", "http"),
};

/// The same over HTTP+SSE.
const CLIENT_SSE: Reach = Reach {
    words: &["--role", "client", "--transport", "sse"],
    peer: &["reference", "client", "--transport", "sse"],
    shown: ("transport", "sse"),
};

/// What every planted bug's campaign is given. Each probe of a minimization is a whole run of
/// the client: a smaller budget than a server's keeps a finding's minute (the reproducers still
/// shrink to the bounds below).
const PLANTED: [&str; 8] =
    ["--duration", "60", "--max-findings", "1", "--hang-timeout", "1", "--minimize-probes", "40"];

/// A planted bug of the reference client, found, minimized and replayed ([`Reach::planted`]).
fn planted(fault: &str, rule: &str, max_bytes: usize) -> Value {
    CLIENT.planted(fault, rule, max_bytes, &PLANTED)
}

/// A planted bug of the reference client's HTTP transport, over Streamable HTTP.
fn planted_http(fault: &str, rule: &str) -> Value {
    CLIENT_HTTP.planted(fault, rule, 2000, &PLANTED)
}

/// The bend of the response a reproducer keeps (`input.http.reply.bend`), as JSON text.
fn bend(reproducer: &Value) -> String {
    reproducer["input"]["http"]["reply"]["bend"].to_string()
}

#[test]
fn fuzz_client_a_crash_on_a_long_string_is_found_minimized_and_replayed() {
    planted("fuzz-crash-long-string", "robustness/no-crash", 80_000);
}

#[test]
fn fuzz_client_a_crash_on_a_wrong_type_is_found_minimized_and_replayed() {
    let r = planted("fuzz-crash-wrong-type", "robustness/no-crash", 2000);
    // A bent tools/list answer, or (minimized) any message with such a `result.tools`.
    assert!(r["input"]["writes"].to_string().contains("tools"), "{r:#}");
}

#[test]
fn fuzz_client_a_crash_on_deep_nesting_is_found_minimized_and_replayed() {
    let r = planted("fuzz-crash-deep-nesting", "robustness/no-crash", 4000);
    assert!(r["frame"].as_str().is_some_and(|f| f.contains("overflow")), "{r:#}");
}

#[test]
fn fuzz_client_a_crash_on_an_answer_to_nothing_is_found_minimized_and_replayed() {
    planted("fuzz-crash-unknown-id", "robustness/no-crash", 600);
}

#[test]
fn fuzz_client_a_crash_on_an_elicitation_schema_is_found_minimized_and_replayed() {
    let r = planted("fuzz-crash-elicitation-schema", "robustness/no-crash", 2000);
    assert!(r["input"]["writes"].to_string().contains("elicitation/create"), "{r:#}");
}

#[test]
fn fuzz_client_a_crash_on_an_empty_sampling_request_is_found_minimized_and_replayed() {
    let r = planted("fuzz-crash-sampling-empty", "robustness/no-crash", 2000);
    assert!(r["input"]["writes"].to_string().contains("sampling/createMessage"), "{r:#}");
}

#[test]
fn fuzz_client_a_hang_on_a_progress_notification_is_found_minimized_and_replayed() {
    let r = planted("fuzz-hang-progress", "robustness/no-hang", 2000);
    assert!(r["input"]["writes"].to_string().contains("notifications/progress"), "{r:#}");
}

#[test]
fn fuzz_client_a_double_answer_is_found_minimized_and_replayed() {
    planted("fuzz-double-answer", "jsonrpc/response-id-matches-request", 600);
}

/// The no-finding baseline: half a minute of fuzzing the clean reference client.
#[test]
fn fuzz_client_the_clean_reference_client_yields_no_finding() {
    CLIENT.clean(&["--duration", "30", "--hang-timeout", "5"], 20);
}

/// mcpspec serves a client at a URL of its own: one to reach is a usage error.
#[test]
fn fuzz_client_at_a_url_is_a_usage_error() {
    let r =
        run(&["fuzz", "--role", "client", "--url", "http://127.0.0.1:9/mcp"], false, Duration::from_secs(30));
    assert_eq!(r.code, Some(2), "{}", r.describe());
    assert!(r.stderr.contains("no --url"), "{}", r.describe());
}

#[test]
fn fuzz_client_http_a_crash_on_header_bytes_is_found_minimized_and_replayed() {
    let r = planted_http("fuzz-http-crash-header-bytes", "robustness/no-crash");
    assert!(bend(&r).contains("header"), "{r:#}");
}

#[test]
fn fuzz_client_http_a_crash_on_a_content_type_parameter_is_found_minimized_and_replayed() {
    let r = planted_http("fuzz-http-crash-content-type", "robustness/no-crash");
    assert!(bend(&r).contains("content-type"), "{r:#}");
}

#[test]
fn fuzz_client_http_a_crash_on_a_big_event_is_found_minimized_and_replayed() {
    planted_http("fuzz-http-crash-big-event", "robustness/no-crash");
}

#[test]
fn fuzz_client_http_a_crash_on_a_huge_retry_is_found_minimized_and_replayed() {
    let r = planted_http("fuzz-http-crash-retry", "robustness/no-crash");
    assert!(bend(&r).contains("retry: 99999999999"), "{r:#}");
}

#[test]
fn fuzz_client_http_a_crash_on_an_empty_error_body_is_found_minimized_and_replayed() {
    let r = planted_http("fuzz-http-crash-empty-error", "robustness/no-crash");
    assert!(bend(&r).contains("\"status\":5"), "{r:#}");
}

#[test]
fn fuzz_client_http_a_crash_on_a_changed_session_id_is_found_minimized_and_replayed() {
    let r = planted_http("fuzz-http-crash-session-changed", "robustness/no-crash");
    assert!(bend(&r).contains("mcp-session-id"), "{r:#}");
}

#[test]
fn fuzz_client_http_a_hang_on_a_202_for_requests_is_found_minimized_and_replayed() {
    let r = planted_http("fuzz-http-hang-accepted", "robustness/no-hang");
    assert!(bend(&r).contains("\"status\":202"), "{r:#}");
}

#[test]
fn fuzz_client_http_a_hang_reading_a_stream_to_its_end_is_found_minimized_and_replayed() {
    planted_http("fuzz-http-hang-endless-stream", "robustness/no-hang");
}

#[test]
fn fuzz_client_sse_a_crash_on_a_big_event_is_found_minimized_and_replayed() {
    CLIENT_SSE.planted("fuzz-http-crash-big-event", "robustness/no-crash", 2000, &PLANTED);
}

#[test]
fn fuzz_client_sse_a_crash_on_a_huge_retry_is_found_minimized_and_replayed() {
    let r = CLIENT_SSE.planted("fuzz-http-crash-retry", "robustness/no-crash", 2000, &PLANTED);
    assert!(bend(&r).contains("retry: 99999999999"), "{r:#}");
}

/// The no-finding baselines over HTTP: half a minute each (a measured two-minute run is in the
/// issue; CI time is short).
#[test]
fn fuzz_client_http_the_clean_reference_client_yields_no_finding() {
    CLIENT_HTTP.clean(&["--duration", "30", "--hang-timeout", "5"], 20);
}

#[test]
fn fuzz_client_sse_the_clean_reference_client_yields_no_finding() {
    CLIENT_SSE.clean(&["--duration", "30", "--hang-timeout", "5"], 10);
}
