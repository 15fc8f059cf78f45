//! `mcpspec fuzz --role client` and `mcpspec replay --role client` as a user runs them: the
//! planted bugs of the reference client (`mcpspec reference client --fault fuzz-…`: crashes on
//! what it reads, a hang, a double answer) are each found within a minute with a fixed seed,
//! reported once, minimized and replayed; the clean reference client yields nothing.

use crate::fuzz::Reach;
use crate::support::run;
use serde_json::Value;
use std::time::Duration;

/// `mcpspec fuzz --role client` of `mcpspec reference client [--fault F]`.
const CLIENT: Reach =
    Reach { words: &["--role", "client"], peer: &["reference", "client"], shown: ("role", "client") };

/// A planted bug of the reference client, found, minimized and replayed ([`Reach::planted`]).
/// Each probe of a minimization is a whole run of the client: a smaller budget than a server's
/// keeps a finding's minute (the reproducers still shrink to the bounds below).
fn planted(fault: &str, rule: &str, max_bytes: usize) -> Value {
    let extra = ["--duration", "60", "--max-findings", "1", "--hang-timeout", "1", "--minimize-probes", "40"];
    CLIENT.planted(fault, rule, max_bytes, &extra)
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

#[test]
fn fuzz_client_over_http_is_a_usage_error_for_now() {
    let r = run(&["fuzz", "--role", "client", "--transport", "http"], false, Duration::from_secs(30));
    assert_eq!(r.code, Some(2), "{}", r.describe());
    assert!(r.stderr.contains("stdio only"), "{}", r.describe());
}
