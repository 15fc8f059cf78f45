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
