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

/// A URL nothing answers at is no server to judge: exit 3 with the reason, not a run of failures.
/// An `https://` URL is spoken to over TLS (here to a plain-HTTP listener, whose answer is no
/// TLS record).
#[test]
fn an_unreachable_url_exits_3_with_the_reason() {
    let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let url = format!("http://127.0.0.1:{port}/mcp");
    let refused = run(&["server", "--url", &url], false, LIMIT);
    assert_eq!(refused.code, Some(3), "{}", refused.describe());
    let why = &refused.stderr;
    assert!(why.contains("cannot reach the server") && why.contains("Connection refused"), "{why}");

    let plain = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = plain.local_addr().unwrap().port();
    let talker = std::thread::spawn(move || {
        use std::io::{Read, Write};
        if let Ok((mut conn, _)) = plain.accept() {
            let mut buf = [0u8; 1024];
            let _ = conn.read(&mut buf);
            let _ = conn.write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n");
        }
    });
    let url = format!("https://127.0.0.1:{port}/mcp");
    let tls = run(&["server", "--url", &url, "--timeout", "3"], false, LIMIT);
    assert_eq!(tls.code, Some(3), "{}", tls.describe());
    assert!(
        tls.stderr.contains("cannot reach the server") && tls.stderr.contains("https://"),
        "{}",
        tls.stderr
    );
    let _ = talker.join();
}

#[test]
fn a_malformed_header_is_a_usage_error() {
    let run = run(&["server", "--url", "http://127.0.0.1:1/mcp", "--header", "no colon"], false, LIMIT);
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("is not `Name: value`"), "{}", run.stderr);
}
