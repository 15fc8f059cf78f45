//! Real third-party servers as implementations under test. `.ci/run` installs them and names
//! their command lines in environment variables; run with `cargo test -- --ignored interop`.
//!
//! Each test pins the MUST failures the server is known to have (each a real violation, with
//! its clause) — so a new failure, which may be a false positive of mcpspec, breaks the test,
//! and so does a known one that disappears.

use crate::support::*;
use std::collections::BTreeSet;
use std::time::Duration;

/// Certifies the server named by `var` (a command line, split on spaces) at every released
/// revision (both eras), over stdio; returns the failed (scenario id, revision) pairs.
fn certify(var: &str) -> (Run, BTreeSet<(String, String)>) {
    certify_over(var, &[], &[])
}

/// [`certify`] with `options` for `mcpspec server` (`--transport http`, say) and `tail` after
/// the command line (the server's own arguments: its HTTP mode, `{port}`).
fn certify_over(var: &str, options: &[&str], tail: &[&str]) -> (Run, BTreeSet<(String, String)>) {
    let command = std::env::var(var).unwrap_or_else(|_| panic!("{var} is not set: .ci/run sets it"));
    // Slow starters (Python) share two cores in CI: a generous wait, moderate concurrency.
    let mut args = vec!["server", "--timeout", "15", "-j", "4"];
    args.extend(options);
    args.push("--");
    args.extend(command.split_whitespace());
    args.extend(tail);
    let run = run(&args, true, Duration::from_secs(900));
    assert_eq!(run.summary("errors"), 0, "{}", run.describe());
    assert!(run.summary("passed") >= 100, "{}", run.describe());
    let failed = run.report.as_ref().unwrap()["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["verdict"] == "failed")
        .map(|s| (s["id"].as_str().unwrap().to_owned(), s["revision"].as_str().unwrap().to_owned()))
        .collect();
    assert_no_leftovers(&run.marker);
    (run, failed)
}

fn pair(id: &str, revision: &str) -> (String, String) {
    (id.to_owned(), revision.to_owned())
}

#[test]
#[ignore = "needs @modelcontextprotocol/server-everything from npm (see .ci/run)"]
fn interop_server_everything_from_npm() {
    let (run, failed) = certify("MCPSPEC_IUT_EVERYTHING");
    // 2025-03-26/basic/index.mdx: implementations "MUST support receiving JSON-RPC batches";
    // the TypeScript SDK no longer reads arrays.
    let mut known = BTreeSet::from([pair("jsonrpc/batch-answered", "2025-03-26")]);
    // Found by the sweep (schema/message-valid, basic/index.mdx: messages follow the schema of
    // the negotiated revision): get-resource-links answers with resource_link content blocks,
    // which exist only from 2025-06-18, in 2024-11-05 and 2025-03-26 sessions too …
    for revision in ["2024-11-05", "2025-03-26"] {
        for persona in ["nothing", "sampling", "roots"] {
            known.insert(pair(&format!("sweep/tools[{persona}]"), revision));
        }
    }
    // … and its elicitation tool asks a 2025-06-18 client for multi-select (array) enums, which
    // the 2025-06-18 PrimitiveSchemaDefinition does not have (added in 2025-11-25).
    known.insert(pair("sweep/tools[elicitation]", "2025-06-18"));
    known.insert(pair("sweep/tools-declining", "2025-06-18"));
    // elicitation/mode-declared (2025-11-25/client/elicitation.mdx#capabilities, "Servers MUST
    // NOT send elicitation requests with modes that are not supported by the client"): its
    // elicitation tool sends a form to a client that declared URL mode only.
    known.insert(pair("sweep/tools[elicitation-url]", "2025-11-25"));
    assert_eq!(failed, known, "{}", run.describe());
    assert_legacy_only(&run);
}

/// server-everything 2026.8.31 speaks the legacy era only: server/discover is an unknown
/// method to it, so 2026-07-28 is skipped, with the reason, and judged nothing.
fn assert_legacy_only(run: &Run) {
    let modern: Vec<_> = run.report.as_ref().unwrap()["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["revision"] == "2026-07-28")
        .cloned()
        .collect();
    assert!(!modern.is_empty(), "{}", run.describe());
    for s in modern {
        assert_eq!(s["verdict"], "skipped", "{s}");
        assert!(s["reason"].as_str().unwrap().contains("speaks only the legacy era"), "{s}");
    }
}

/// The stateless era on a real SDK: the scenarios of 2026-07-28 that a plain server can show
/// (discovery, _meta, versions, removed methods, ids, subscriptions, the sweep) pass.
fn assert_modern_passed(run: &Run, ids: &[&str]) {
    for id in ids {
        let at: Vec<_> = run.scenarios(id).into_iter().filter(|s| s["revision"] == "2026-07-28").collect();
        assert!(!at.is_empty() && at.iter().all(|s| s["verdict"] == "passed"), "{id}\n{}", run.describe());
    }
}

#[test]
#[ignore = "needs the Python `mcp` SDK from PyPI (see .ci/run)"]
fn interop_python_sdk_server() {
    let (run, failed) = certify("MCPSPEC_IUT_PYTHON");
    // 2025-03-26/basic/index.mdx: implementations "MUST support receiving JSON-RPC batches";
    // the Python SDK (2.x) does not read arrays.
    let known = BTreeSet::from([pair("jsonrpc/batch-answered", "2025-03-26")]);
    assert_eq!(failed, known, "{}", run.describe());
    assert_modern_passed(
        &run,
        &[
            "discover/result",
            "meta/required[is missing]",
            "version/unsupported",
            "removed/method[ping]",
            "modern/id-reused-after-answer",
            "subscriptions/acknowledged",
            "sweep/tools[nothing]",
        ],
    );
}

/// mcp-server-time (PyPI), a server mcpspec was not shaped to. Its tools carry output schemas
/// and describe their arguments ("IANA timezone name (e.g., 'America/New_York', …)"): with
/// arguments it accepts, tools/structured-output is judged (it once failed here, on an error
/// result to a made-up timezone).
#[test]
#[ignore = "needs mcp-server-time from PyPI (see .ci/run)"]
fn interop_mcp_server_time_from_pypi() {
    let (run, failed) = certify("MCPSPEC_IUT_TIME");
    // The Python SDK (2.x) does not read JSON-RPC batches (2025-03-26/basic/index.mdx: MUST).
    let known = BTreeSet::from([pair("jsonrpc/batch-answered", "2025-03-26")]);
    assert_eq!(failed, known, "{}", run.describe());
    for revision in ["2025-06-18", "2025-11-25"] {
        let verdict = run
            .scenarios("tools/structured-output")
            .into_iter()
            .find(|s| s["revision"] == revision)
            .map(|s| s["verdict"].clone());
        assert_eq!(verdict, Some(serde_json::json!("passed")), "{revision}\n{}", run.describe());
    }
}

/// The sweep's findings in server-everything (above), at the revisions a run covers.
fn everything_sweep_findings(revisions: &[&str]) -> BTreeSet<(String, String)> {
    let mut known = BTreeSet::new();
    for revision in revisions.iter().filter(|r| ["2024-11-05", "2025-03-26"].contains(r)) {
        for persona in ["nothing", "sampling", "roots"] {
            known.insert(pair(&format!("sweep/tools[{persona}]"), revision));
        }
    }
    known.insert(pair("sweep/tools[elicitation]", "2025-06-18"));
    known.insert(pair("sweep/tools-declining", "2025-06-18"));
    known.insert(pair("sweep/tools[elicitation-url]", "2025-11-25"));
    known
}

/// server-everything in its Streamable HTTP mode (`streamableHttp`, port from PORT).
#[test]
#[ignore = "needs @modelcontextprotocol/server-everything from npm (see .ci/run)"]
fn interop_server_everything_over_streamable_http() {
    let (run, failed) = certify_over("MCPSPEC_IUT_EVERYTHING", &["--transport", "http"], &["streamableHttp"]);
    assert_legacy_only(&run);
    let mut known = everything_sweep_findings(&["2025-03-26", "2025-06-18", "2025-11-25"]);
    for revision in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        // basic/transports.mdx#session-management: after a session is terminated the server
        // "MUST respond to requests containing that session ID with HTTP 404"; it answers 400.
        known.insert(pair("http/session-terminated-404", revision));
    }
    // basic/transports.mdx#security-warning: servers "MUST validate the Origin header"
    // (2025-11-25: "MUST respond with HTTP 403 Forbidden" to an invalid one); it serves any.
    known.insert(pair("http/origin-validated", "2025-03-26"));
    known.insert(pair("http/origin-validated", "2025-06-18"));
    known.insert(pair("http/origin-forbidden", "2025-11-25"));
    assert_eq!(failed, known, "{}", run.describe());
    // Over HTTP it reads batches (2025-03-26), which its stdio transport does not.
    let batch = run.scenarios("jsonrpc/batch-answered");
    assert!(batch.iter().all(|s| s["verdict"] == "passed"), "{}", run.describe());
}

/// server-everything in its HTTP+SSE mode (`sse`, port from PORT).
#[test]
#[ignore = "needs @modelcontextprotocol/server-everything from npm (see .ci/run)"]
fn interop_server_everything_over_http_sse() {
    let (run, failed) = certify_over("MCPSPEC_IUT_EVERYTHING", &["--transport", "sse"], &["sse"]);
    let mut known = everything_sweep_findings(&["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]);
    // The same batch defect as over stdio (2025-03-26/basic/index.mdx: MUST).
    known.insert(pair("jsonrpc/batch-answered", "2025-03-26"));
    assert_eq!(failed, known, "{}", run.describe());
    let endpoint = run.scenarios("sse/endpoint-event");
    assert!(endpoint.len() == 4 && endpoint.iter().all(|s| s["verdict"] == "passed"), "{}", run.describe());
}

/// The Python SDK server in its streamable-http mode: a second, independent HTTP stack, which
/// passes every transport check (none of the TypeScript server's HTTP findings is mcpspec's).
#[test]
#[ignore = "needs the Python `mcp` SDK from PyPI (see .ci/run)"]
fn interop_python_sdk_server_over_streamable_http() {
    let (run, failed) =
        certify_over("MCPSPEC_IUT_PYTHON", &["--transport", "http"], &["streamable-http", "{port}"]);
    // 2026-07-28/basic/transports/streamable-http.mdx#protocol-version-header: a header that
    // does not match _meta's version MUST get 400 and -32020 (HeaderMismatch). The SDK picks the
    // era from the header instead of the body (versioning.mdx: a request carrying modern
    // `_meta` is served statelessly), and answers 400 with -32600 "Missing session ID".
    let known = BTreeSet::from([pair("http/header-version-mismatch", "2026-07-28")]);
    assert_eq!(failed, known, "{}", run.describe());
    assert_modern_passed(
        &run,
        &[
            "discover/result",
            "meta/required[is missing]",
            "http/header-method-mismatch[names another method]",
            "http/unknown-method-404",
        ],
    );
    for id in [
        "http/session-terminated-404",
        "http/origin-forbidden",
        "http/notification-202",
        "http/get-sse-or-405",
    ] {
        // 2024-11-05 has no Streamable HTTP: those are skipped, with the reason.
        let scenarios: Vec<_> =
            run.scenarios(id).into_iter().filter(|s| s["revision"] != "2024-11-05").collect();
        assert!(
            !scenarios.is_empty() && scenarios.iter().all(|s| s["verdict"] == "passed"),
            "{id}\n{}",
            run.describe()
        );
    }
}

/// `mcpspec fuzz` against the real server named by `var` for `seconds`, seed 1: no MUST
/// finding (exit 0), and every finding one of the `expected` oracles (each explained where the
/// test names it). Real servers are the peers the oracles were not shaped to: a false positive
/// shows here first.
fn fuzz_real(var: &str, seconds: &str, expected: &[&str]) -> Run {
    let command = std::env::var(var).unwrap_or_else(|_| panic!("{var} is not set: .ci/run sets it"));
    let findings = tempfile::tempdir().expect("tempdir");
    let dir = findings.path().display().to_string();
    let mut args = vec!["fuzz", "--seed", "1", "--duration", seconds, "--findings", dir.as_str(), "--"];
    args.extend(command.split_whitespace());
    let run = run(&args, true, Duration::from_secs(300));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let scenarios = run.report.as_ref().and_then(|r| r["scenarios"].as_array()).cloned().unwrap_or_default();
    let campaign = &scenarios[0];
    assert_eq!(campaign["id"], "fuzz/campaign");
    assert!(campaign["name"].as_str().is_some_and(|n| !n.starts_with("0 inputs")), "{campaign:#}");
    // Findings that did not trip again on a fresh process are warnings (shown, not pinned).
    for finding in scenarios[1..].iter().filter(|f| f["verdict"] == "failed") {
        let id = finding["id"].as_str().unwrap_or_default();
        assert!(
            expected.iter().any(|oracle| id.starts_with(&format!("fuzz/{oracle}-"))),
            "an unexpected finding (a bug, or a false positive of mcpspec): {finding:#}"
        );
    }
    assert_no_leftovers(&run.marker);
    run
}

#[test]
#[ignore = "needs @modelcontextprotocol/server-everything from npm (see .ci/run)"]
fn interop_fuzz_server_everything() {
    // Ten-minute campaigns found nothing that tripped again on a fresh process (issue #15's
    // closing note).
    fuzz_real("MCPSPEC_IUT_EVERYTHING", "30", &[]);
}

#[test]
#[ignore = "needs the Python `mcp` SDK from PyPI (see .ci/run)"]
fn interop_fuzz_python_sdk_server() {
    // The SDK logs a traceback when a handler raises for a client's mistake (an unknown prompt
    // name: `ValueError: Unknown prompt`, answered with error code 0) instead of answering
    // -32602: robustness/no-uncaught-error, a SHOULD (basic/index.mdx#responses).
    fuzz_real("MCPSPEC_IUT_PYTHON", "30", &["stderr-panic"]);
}
