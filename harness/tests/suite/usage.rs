//! Wrong command lines and unstartable servers get clear errors and their exit codes.

use crate::support::*;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn an_unknown_revision_is_a_usage_error() {
    let run = run(&["server", "--revision", "2025-13-01"], false, LIMIT);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("unknown MCP revision \"2025-13-01\""), "{}", run.stderr);
}

#[test]
fn a_missing_schema_dir_is_a_usage_error() {
    let run = run(&["server", "--schema-dir", "/nonexistent/schemas"], false, LIMIT);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("--schema-dir"), "{}", run.stderr);
}

#[test]
fn a_server_that_cannot_start_exits_3_with_the_reason() {
    let run = run(&["server", "--", "/nonexistent/mcp-server", "--flag"], true, LIMIT);
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert!(run.stdout.contains("could not start /nonexistent/mcp-server --flag"), "{}", run.stdout);
    assert_eq!(
        run.summary("errors") as usize,
        run.report.as_ref().unwrap()["scenarios"].as_array().unwrap().len()
    );
    assert_eq!(run.summary("passed"), 0);
}

#[test]
fn a_bad_timeout_is_a_usage_error() {
    let run = run(&["server", "--timeout", "-1"], false, LIMIT);
    assert_eq!(run.code, Some(2), "{}", run.describe());
}

#[test]
fn validate_reads_a_file_and_exits_by_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.jsonl");
    std::fs::write(
        &good,
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n",
    )
    .unwrap();
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}\n{oops\n")
        .unwrap();
    let ok = run(&["validate", "--revision", "2025-11-25", good.to_str().unwrap()], false, LIMIT);
    assert_eq!(ok.code, Some(0), "{}", ok.describe());
    assert!(ok.stdout.contains("line 2: valid"), "{}", ok.stdout);
    let ko = run(&["validate", "--revision", "2025-11-25", bad.to_str().unwrap()], false, LIMIT);
    assert_eq!(ko.code, Some(1), "{}", ko.describe());
    assert!(
        ko.stdout.contains("line 1: INVALID CallToolRequest") && ko.stdout.contains("line 2: not a message"),
        "{}",
        ko.stdout
    );
    let usage = run(&["validate", "--revision", "1999-01-01", good.to_str().unwrap()], false, LIMIT);
    assert_eq!(usage.code, Some(2));
    let missing = run(&["validate", "--revision", "2025-11-25", "/nonexistent.jsonl"], false, LIMIT);
    assert_eq!(missing.code, Some(2));
    assert!(missing.stderr.contains("cannot read /nonexistent.jsonl"), "{}", missing.stderr);
}
