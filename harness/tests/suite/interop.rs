//! The interop matrix (`interop/README.md`): real SDKs and servers from npm, PyPI and crates.io,
//! each row of `interop/matrix.txt` (an implementation in one role over one transport, at
//! every revision mcpspec knows) certified with its implementation's baseline
//! (`interop/<name>.yaml`, every entry a real defect with its clause). A new failure, which may
//! be a false positive of mcpspec, fails its test; so does an entry that no longer fails.
//!
//! `.ci/run` installs the implementations by package name and names the install folder in
//! MCPSPEC_IUT_DIR; run with `cargo test -p mcpspec --test suite -- --ignored interop`. With
//! MCPSPEC_INTEROP_OUT set, each row's report.json is kept there (`interop/run.sh` builds the
//! README's matrix from them).

use crate::support::*;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const MATRIX: &str = include_str!("../../../interop/matrix.txt");

/// The repository's root (the harness crate's parent).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the harness is in the workspace").to_owned()
}

/// One row of `interop/matrix.txt`.
#[derive(Debug)]
struct Row {
    id: String,
    baseline: String,
    role: String,
    transport: String,
    /// The command line after `--`, placeholders as written.
    command: Vec<String>,
}

fn matrix() -> Vec<Row> {
    MATRIX
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|line| {
            let mut words = line.split_whitespace().map(str::to_owned);
            let mut next = || words.next().unwrap_or_else(|| panic!("a short matrix row: {line}"));
            let (id, baseline, role, transport) = (next(), next(), next(), next());
            let command: Vec<String> = words.collect();
            assert!(!command.is_empty(), "a matrix row without a command: {line}");
            Row { id, baseline, role, transport, command }
        })
        .collect()
}

fn row(id: &str) -> Row {
    matrix().into_iter().find(|r| r.id == id).unwrap_or_else(|| panic!("no row {id} in interop/matrix.txt"))
}

/// A row's command with its placeholders filled (`{port}` is mcpspec's to fill).
fn command(row: &Row) -> Vec<String> {
    let iut = std::env::var("MCPSPEC_IUT_DIR").expect("MCPSPEC_IUT_DIR is not set: .ci/run sets it");
    let root = root();
    let fill = [
        ("{iut}", root.join("harness/tests/iut")),
        ("{npm}", Path::new(&iut).join("npm/node_modules")),
        ("{venv}", Path::new(&iut).join("venv")),
        ("{rmcp}", root.join("interop/rmcp/target/debug")),
    ];
    row.command
        .iter()
        .map(|word| {
            fill.iter().fold(word.clone(), |w, (from, to)| w.replace(from, &to.display().to_string()))
        })
        .collect()
}

/// Certifies `id`'s row with its baseline: exit 0 (every failure listed, no entry stale), no
/// error, something judged; the report kept in MCPSPEC_INTEROP_OUT when set.
fn certify_row(id: &str) -> Run {
    let row = row(id);
    let baseline = root().join(format!("interop/{}.yaml", row.baseline)).display().to_string();
    // Python servers spend a second of CPU before their first word and a Python client
    // (FastMCP) seconds importing before it starts its server; CI's two cores are shared by a
    // few rows at once: a generous wait for them, moderate concurrency for all.
    let python = row.command.iter().any(|w| w.contains("{venv}"));
    let timeout = if python { "30" } else { "15" };
    // The role is the command, but for an authorization server's (`mcpspec authorization`).
    let command_name = if row.role == "authorization-server" { "authorization" } else { row.role.as_str() };
    let mut args =
        vec![command_name, "--expected-failures", baseline.as_str(), "-j", "4", "--timeout", timeout];
    args.extend(row_options(id));
    // `mcpspec authorization` speaks HTTP only: it has no --transport.
    if row.transport != "stdio" && row.role != "authorization-server" {
        args.extend(["--transport", row.transport.as_str()]);
    }
    args.push("--");
    let command = command(&row);
    args.extend(command.iter().map(String::as_str));
    let run = run(&args, true, Duration::from_secs(1200));
    if let Ok(out) = std::env::var("MCPSPEC_INTEROP_OUT") {
        let dir = Path::new(&out).join(id.replace('/', "-"));
        std::fs::create_dir_all(&dir).expect("the report folder");
        let _ = std::fs::copy(run.report_dir.path().join("report.json"), dir.join("report.json"));
    }
    assert_eq!(run.code, Some(0), "{id}: {}", run.describe());
    assert_eq!(run.summary("errors"), 0, "{id}: {}", run.describe());
    assert_eq!(run.summary("stale"), 0, "{id}: {}", run.describe());
    // An authorization server has fewer scenarios (19 at four revisions) than an MCP peer.
    let at_least = if row.role == "authorization-server" { 12 } else { 30 };
    assert!(run.summary("passed") >= at_least, "{id}: {}", run.describe());
    assert_no_leftovers(&run.marker);
    run
}

/// What a row needs beyond the defaults, and why.
fn row_options(id: &str) -> &'static [&'static str] {
    match id {
        // rmcp's server exits on the first notification after server/discover on a fresh
        // process only (interop/rmcp.yaml): a process per scenario makes the finding the same
        // in every run, whichever scenarios would have shared a process.
        "rmcp/server/stdio" => &["--isolate"],
        // The TypeScript SDK's requireBearerAuth with a jose verifier: mcpspec is the issuer it
        // trusts.
        "ts-sdk/server/http-oauth" => &["--auth-issuer"],
        // The Python SDK's resource server with a PyJWT TokenVerifier, and FastMCP's JWTVerifier
        // (on the same SDK), mcpspec their issuer.
        "python-sdk/server/http-oauth" | "fastmcp/server/http-oauth" => &["--auth-issuer"],
        // The package names its issuer http://localhost:PORT (it listens on 127.0.0.1); it keeps
        // no client registry and offers no registration: any client id is one it takes.
        "oauth2-mock-server/authorization-server/http" => {
            &["--url", "http://localhost:{port}", "--client-id", "mcpspec-interop"]
        }
        _ => &[],
    }
}

/// The scenario runs of `id` at `revision`, each with `verdict`, and at least one.
fn assert_verdict(run: &Run, id: &str, revision: Option<&str>, verdict: &str) {
    let at: Vec<Value> =
        run.scenarios(id).into_iter().filter(|s| revision.is_none_or(|r| s["revision"] == r)).collect();
    assert!(
        !at.is_empty() && at.iter().all(|s| s["verdict"] == verdict),
        "{id} {revision:?}\n{}",
        run.describe()
    );
}

/// A legacy-only implementation: server/discover is an unknown method to it, so 2026-07-28 is
/// skipped, with the reason, and judged nothing.
fn assert_legacy_only(run: &Run) {
    let modern: Vec<Value> = run.report.as_ref().unwrap()["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["revision"] == "2026-07-28")
        .cloned()
        .collect();
    assert!(!modern.is_empty(), "{}", run.describe());
    for s in modern {
        assert_eq!(s["verdict"], "skipped", "{s}");
        assert!(s["reason"].as_str().unwrap().contains("only the legacy era"), "{s}");
    }
}

/// The modern era on a real SDK: these scenarios of 2026-07-28 pass.
fn assert_modern_passed(run: &Run, ids: &[&str]) {
    for id in ids {
        assert_verdict(run, id, Some("2026-07-28"), "passed");
    }
}

/// One ignored test per matrix row (`$row`), with the positive assertions worth keeping.
macro_rules! rows {
    ($($name:ident: $row:literal $(=> $then:expr)?;)*) => {
        $(
            #[test]
            #[ignore = "needs the implementations .ci/run installs (MCPSPEC_IUT_DIR)"]
            fn $name() {
                #[allow(unused_variables)]
                let run = certify_row($row);
                $( ($then)(&run); )?
            }
        )*
        /// The rows the tests above cover.
        const TESTED: &[&str] = &[$($row),*];
    };
}

rows! {
    interop_server_everything_stdio: "server-everything/server/stdio" => assert_legacy_only;
    interop_server_everything_http: "server-everything/server/http" => |run: &Run| {
        assert_legacy_only(run);
        // Over HTTP it reads batches (2025-03-26), which its stdio transport does not.
        assert_verdict(run, "jsonrpc/batch-answered", None, "passed");
    };
    interop_server_everything_sse: "server-everything/server/sse" => |run: &Run| {
        let endpoint = run.scenarios("sse/endpoint-event");
        assert!(endpoint.len() == 4 && endpoint.iter().all(|s| s["verdict"] == "passed"), "{}", run.describe());
    };
    interop_ts_sdk_server_stdio: "ts-sdk/server/stdio" => assert_legacy_only;
    interop_ts_sdk_server_http: "ts-sdk/server/http" => |run: &Run| {
        assert_legacy_only(run);
        // The app answers an ended session 404, as the spec says (server-everything's does not).
        for revision in ["2025-03-26", "2025-06-18", "2025-11-25"] {
            assert_verdict(run, "http/session-terminated-404", Some(revision), "passed");
        }
    };
    interop_ts_sdk_server_http_oauth: "ts-sdk/server/http-oauth" => |run: &Run| {
        // The whole suite ran authenticated, and every authorization MUST holds.
        assert_verdict(run, "lifecycle/initialize-result", Some("2025-11-25"), "passed");
        for id in [
            "authorization/unauthenticated-401",
            "authorization/prm-resource",
            "authorization/tampered-token-401",
            "authorization/no-token-in-query",
            "authorization/audience-validation",
            "authorization/token-refused[not-yet-valid]",
            "authorization/insufficient-scope-403",
        ] {
            assert_verdict(run, id, Some("2025-11-25"), "passed");
        }
        // Its finding (SHOULD NOT, OAuth 2.1 §5.3.1): the challenge to a request without any
        // token says error="invalid_token".
        assert_verdict(run, "authorization/no-error-without-token", Some("2025-11-25"), "warning");
    };
    interop_ts_sdk_client_stdio: "ts-sdk/client/stdio";
    interop_ts_sdk_client_http: "ts-sdk/client/http";
    interop_ts_sdk_client_sse: "ts-sdk/client/sse";
    // The SDK's OAuth client walks mcpspec's flow: discovery from the challenge and in the
    // revision's order, PKCE S256, state, resource in both requests, the header only.
    interop_ts_sdk_client_http_oauth: "ts-sdk/client/http-oauth" => |run: &Run| {
        for id in [
            "client-authorization/prm-from-challenge",
            "client-authorization/pkce-s256",
            "client-authorization/resource-parameter",
            "client-authorization/bearer-header",
        ] {
            assert_verdict(run, id, Some("2025-06-18"), "passed");
        }
        for id in ["client-authorization/as-discovery-order", "client-authorization/pre-registration"] {
            assert_verdict(run, id, Some("2025-11-25"), "passed");
        }
    };
    interop_python_sdk_server_stdio: "python-sdk/server/stdio" => |run: &Run| assert_modern_passed(run, &[
        "discover/result",
        "meta/required[is missing]",
        "version/unsupported",
        "removed/method[ping]",
        "modern/id-reused-after-answer",
        "subscriptions/acknowledged",
        "sweep/tools[nothing]",
    ]);
    interop_python_sdk_server_http: "python-sdk/server/http" => |run: &Run| {
        assert_modern_passed(run, &[
            "discover/result",
            "meta/required[is missing]",
            "http/header-method-mismatch[names another method]",
            "http/unknown-method-404",
        ]);
        // A second, independent HTTP stack passes every transport check the TypeScript apps
        // fail (none of their HTTP findings is mcpspec's).
        for id in ["http/session-terminated-404", "http/origin-forbidden", "http/notification-202", "http/get-sse-or-405"] {
            for revision in ["2025-03-26", "2025-06-18", "2025-11-25"] {
                let ran = run.scenarios(id).into_iter().any(|s| s["revision"] == revision);
                if ran {
                    assert_verdict(run, id, Some(revision), "passed");
                }
            }
        }
    };
    interop_python_sdk_server_http_oauth: "python-sdk/server/http-oauth" => |run: &Run| {
        assert_verdict(run, "lifecycle/initialize-result", Some("2025-11-25"), "passed");
        for id in [
            "authorization/unauthenticated-401",
            "authorization/challenge-resource-metadata",
            "authorization/as-metadata",
            "authorization/tampered-token-401",
            "authorization/audience-validation",
            "authorization/token-refused[expired]",
        ] {
            assert_verdict(run, id, Some("2025-06-18"), "passed");
        }
        // Its findings (SHOULD): neither its 401 nor its 403 challenge names the scope needed,
        // and (SHOULD NOT) its challenge to a request without a token says error="invalid_token".
        assert_verdict(run, "authorization/challenge-scope", Some("2025-11-25"), "warning");
        assert_verdict(run, "authorization/no-error-without-token", Some("2025-11-25"), "warning");
        assert_verdict(run, "authorization/insufficient-scope-403", Some("2025-11-25"), "warning");
    };
    interop_python_sdk_client_stdio: "python-sdk/client/stdio";
    // The SDK's OAuthClientProvider, dual-era over HTTP: it checks the metadata's issuer and the
    // redirect's iss (RFC 9207), and steps up for the union of scopes.
    interop_python_sdk_client_http_oauth: "python-sdk/client/http-oauth" => |run: &Run| {
        for id in [
            "client-authorization/issuer-mismatch",
            "client-authorization/iss-mismatch",
            "client-authorization/step-up-keeps-scopes",
        ] {
            assert_verdict(run, id, Some("2026-07-28"), "passed");
        }
        assert_verdict(run, "client-authorization/pre-registration", Some("2025-11-25"), "passed");
    };
    // mcp-server-time: tools with output schemas whose arguments its descriptions quote; with
    // arguments it accepts, tools/structured-output is judged (it once failed here, on an error
    // result to a made-up timezone).
    interop_mcp_server_time_stdio: "mcp-server-time/server/stdio" => |run: &Run| {
        for revision in ["2025-06-18", "2025-11-25"] {
            assert_verdict(run, "tools/structured-output", Some(revision), "passed");
        }
    };
    interop_fastmcp_server_stdio: "fastmcp/server/stdio" => |run: &Run| assert_modern_passed(run, &["discover/result"]);
    interop_fastmcp_server_http: "fastmcp/server/http" => |run: &Run| assert_modern_passed(run, &["discover/result"]);
    interop_fastmcp_server_http_oauth: "fastmcp/server/http-oauth" => |run: &Run| {
        // The whole suite ran authenticated, and every MUST of a protected server holds.
        assert_verdict(run, "lifecycle/initialize-result", Some("2025-11-25"), "passed");
        for id in [
            "authorization/unauthenticated-401",
            "authorization/prm-discoverable",
            "authorization/as-metadata-discovery",
            "authorization/tampered-token-401",
            "authorization/token-refused[bad-signature]",
            "authorization/audience-validation",
        ] {
            assert_verdict(run, id, Some("2025-11-25"), "passed");
        }
        assert_verdict(run, "authorization/no-error-without-token", Some("2025-11-25"), "passed");
        // Its finding: a token without the required scope is refused as invalid (401), not
        // with 403 insufficient_scope (a SHOULD).
        assert_verdict(run, "authorization/insufficient-scope-403", Some("2025-11-25"), "warning");
    };
    interop_fastmcp_client_stdio: "fastmcp/client/stdio";
    interop_rmcp_server_stdio: "rmcp/server/stdio" => |run: &Run| assert_modern_passed(run, &["discover/result"]);
    interop_rmcp_server_http: "rmcp/server/http" => |run: &Run| assert_modern_passed(run, &["discover/result"]);
    interop_rmcp_client_stdio: "rmcp/client/stdio";
    interop_rmcp_client_http: "rmcp/client/http";
    interop_oauth2_mock_server: "oauth2-mock-server/authorization-server/http" => |run: &Run| {
        // The code grant with PKCE runs end to end through the headless redirect, and a wrong
        // verifier and a reused code are refused, at every revision whose metadata it serves.
        for id in ["authorization-server/code-flow", "authorization-server/pkce-verifier", "authorization-server/code-single-use"] {
            assert_verdict(run, id, Some("2025-11-25"), "passed");
        }
        assert_verdict(run, "authorization-server/metadata-discovery", None, "passed");
    };
}

/// Every row of the matrix has its test, and every baseline entry says where the rule is and
/// why it is broken (the official suite's plain strings are not enough here).
#[test]
fn interop_matrix_rows_are_tested_and_baselines_justified() {
    let rows = matrix();
    let ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, TESTED, "interop/matrix.txt and the tests of interop.rs differ");
    for r in &rows {
        assert!(["server", "client", "authorization-server"].contains(&r.role.as_str()), "{r:?}");
        assert!(["stdio", "http", "sse"].contains(&r.transport.as_str()), "{r:?}");
        let path = root().join(format!("interop/{}.yaml", r.baseline));
        mcpspec::report::baseline::Baseline::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let text = std::fs::read_to_string(&path).unwrap();
        let file: Value = yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for role in ["server", "client", "authorization-server"] {
            for entry in file[role].as_array().into_iter().flatten() {
                let clause = entry["clause"].as_str().unwrap_or_default();
                let reason = entry["reason"].as_str().unwrap_or_default();
                assert!(
                    clause.starts_with("docs/specification/"),
                    "{}: {entry} names no clause",
                    path.display()
                );
                assert!(
                    !reason.is_empty() && !reason.contains('\n'),
                    "{}: {entry} needs a one-line reason",
                    path.display()
                );
            }
        }
    }
}

/// `mcpspec fuzz` against the real server of `row` for `seconds`, seed 1: no MUST finding
/// (exit 0), and every finding one of the `expected` oracles (each explained where the test
/// names it). Real servers are the peers the oracles were not shaped to: a false positive shows
/// here first.
fn fuzz_real(row_id: &str, seconds: &str, expected: &[&str]) -> Run {
    let command = command(&row(row_id));
    let findings = tempfile::tempdir().expect("tempdir");
    let dir = findings.path().display().to_string();
    // CI runs these beside the matrix's rows on two cores: a Python server there once took over
    // 5 s (the default) to answer a barrier, and did again on a fresh process, under that load.
    // A real hang does not end; 20 s tells it from a starved process.
    let mut args = vec!["fuzz", "--seed", "1", "--duration", seconds, "--hang-timeout", "20"];
    args.extend(["--findings", dir.as_str(), "--"]);
    args.extend(command.iter().map(String::as_str));
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
#[ignore = "needs the implementations .ci/run installs (MCPSPEC_IUT_DIR)"]
fn interop_fuzz_server_everything() {
    // Ten-minute campaigns found nothing that tripped again on a fresh process (issue #15's
    // closing note).
    fuzz_real("server-everything/server/stdio", "30", &[]);
}

#[test]
#[ignore = "needs the implementations .ci/run installs (MCPSPEC_IUT_DIR)"]
fn interop_fuzz_python_sdk_server() {
    // The SDK logs a traceback when a handler raises for a client's mistake (an unknown prompt
    // name: `ValueError: Unknown prompt`, answered with error code 0) instead of answering
    // -32602: robustness/no-uncaught-error, a SHOULD (basic/index.mdx#responses).
    fuzz_real("python-sdk/server/stdio", "30", &["stderr-panic"]);
}
