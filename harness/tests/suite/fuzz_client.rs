//! `mcpspec fuzz --role client` and `mcpspec replay --role client` as a user runs them: the
//! planted bugs of the reference client (`mcpspec reference client --fault fuzz-…`: crashes on
//! what it reads, a hang, a double answer) are each found within a minute with a fixed seed,
//! reported once, minimized and replayed; the clean reference client yields nothing.

use crate::fuzz::{campaign, findings, mode};
use crate::support::{assert_no_leftovers, run, Run, MCPSPEC};
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// `mcpspec fuzz --role client` of `mcpspec reference client [--fault F]`, seed 1.
fn fuzz(findings_dir: &Path, fault: Option<&str>, extra: &[&str], limit: Duration) -> Run {
    let dir = findings_dir.display().to_string();
    let mut args = vec!["fuzz", "--role", "client", "--seed", "1", "--findings", dir.as_str()];
    args.extend(extra);
    args.extend(["--", MCPSPEC, "reference", "client"]);
    if let Some(f) = fault {
        args.extend(["--fault", f]);
    }
    run(&args, true, limit)
}

fn replay(file: &Path, fault: Option<&str>) -> Run {
    let file = file.display().to_string();
    let mut args = vec!["replay", file.as_str(), "--role", "client", "--hang-timeout", "1", "--"];
    args.extend([MCPSPEC, "reference", "client"]);
    if let Some(f) = fault {
        args.extend(["--fault", f]);
    }
    run(&args, false, Duration::from_secs(60))
}

/// A planted bug: found within 60 s, once, by the expected rule, minimized to at most
/// `max_bytes` of input, and replayed: failing against the faulty client, fixed against the
/// clean one. Returns the reproducer.
fn planted(fault: &str, rule: &str, max_bytes: usize) -> Value {
    let top = tempfile::tempdir().expect("tempdir");
    let dir = top.path().join("findings");
    // Each probe of a minimization is a whole run of the client: a smaller budget than a
    // server's keeps a finding's minute (the reproducers still shrink to the bounds below).
    let extra = ["--duration", "60", "--max-findings", "1", "--hang-timeout", "1", "--minimize-probes", "40"];
    let run = fuzz(&dir, Some(fault), &extra, Duration::from_secs(200));
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let found = findings(&run);
    assert_eq!(found.len(), 1, "one finding, reported once: {found:#?}\n{}", run.describe());
    let finding = &found[0];
    assert_eq!(finding["checks"][0]["id"], rule, "{finding:#}");
    assert!(
        finding["duration_ms"].as_u64().is_some_and(|ms| ms <= 60_000),
        "found and minimized after {} ms",
        finding["duration_ms"]
    );
    assert_eq!(run.report.as_ref().map(|r| r["role"].clone()), Some("client".into()), "{}", run.describe());
    let id = finding["id"].as_str().and_then(|id| id.strip_prefix("fuzz/")).expect("fuzz/<id>").to_owned();
    let file = dir.join(format!("{id}.json"));
    assert_eq!((mode(&dir), mode(&file)), (0o700, 0o600), "the findings folder and the reproducer");
    let reproducer: Value =
        serde_json::from_str(&std::fs::read_to_string(&file).expect("the reproducer is written"))
            .expect("JSON");
    assert_eq!(reproducer["rule"], rule);
    assert_eq!(reproducer["role"], "client");
    assert_eq!(reproducer["reproduced"], true, "{reproducer:#}");
    let bytes = reproducer["input"].to_string().len();
    assert!(bytes <= max_bytes, "a reproducer input of {bytes} bytes (at most {max_bytes}): {reproducer:#}");
    let again = replay(&file, Some(fault));
    assert_eq!(again.code, Some(1), "still fails against the faulty client: {}", again.describe());
    assert!(again.stdout.contains("still fails"), "{}", again.describe());
    let fixed = replay(&file, None);
    assert_eq!(fixed.code, Some(0), "fixed against the clean client: {}", fixed.describe());
    assert_no_leftovers(&run.marker);
    reproducer
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
    let dir = tempfile::tempdir().expect("tempdir");
    let run = fuzz(dir.path(), None, &["--duration", "30", "--hang-timeout", "5"], Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(findings(&run).is_empty(), "{}", run.describe());
    let campaign = campaign(&run);
    assert_eq!(campaign["verdict"], "passed", "{campaign:#}");
    let inputs: u64 =
        campaign["name"].as_str().and_then(|n| n.split(' ').next()).and_then(|n| n.parse().ok()).unwrap_or(0);
    assert!(inputs >= 20, "half a minute of fuzzing a client ran {inputs} inputs: {}", run.describe());
    assert_eq!(std::fs::read_dir(dir.path()).map(|d| d.count()).unwrap_or(0), 0, "no reproducer written");
    assert_no_leftovers(&run.marker);
}

#[test]
fn fuzz_client_over_http_is_a_usage_error_for_now() {
    let r = run(&["fuzz", "--role", "client", "--transport", "http"], false, Duration::from_secs(30));
    assert_eq!(r.code, Some(2), "{}", r.describe());
    assert!(r.stderr.contains("stdio only"), "{}", r.describe());
}
