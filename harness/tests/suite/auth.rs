//! Protected servers (issue #28): the reference server in its protected mode passes every
//! authorization scenario at each revision that has authorization, over both HTTP transports
//! (at 2025-03-26 with its issuer relayed at its origin; without metadata there, the default
//! endpoints are judged instead);
//! each `auth-` fault is caught by the check that names it; a protected server mcpspec holds no
//! token for gets one verdict, not a list of failures; and no token reaches a report or the
//! console.

use crate::http::certify_reference_over;
use crate::support::*;
use mcpspec_reference::auth::{AuthServerOptions, AuthorizationServer};
use std::time::Duration;

/// The authorization scenarios, with mcpspec as the issuer, against the reference server over
/// `transport` at `revision` (with `fault`).
fn certify_protected(transport: &str, fault: Option<&str>, revision: &str) -> Run {
    let extra = ["--auth-issuer", "--timeout", "3", "--revision", revision, "--scenario", "authorization/*"];
    certify_reference_over(transport, fault, &extra)
}

/// The authorization scenarios that apply at `revision`.
fn expected_at(revision: &str) -> Vec<&'static str> {
    let mut ids = vec![
        "authorization/unauthenticated-401",
        "authorization/no-error-without-token",
        "authorization/invalid-token-401",
        "authorization/valid-token-served",
        "authorization/tampered-token-401",
        "authorization/no-token-in-query",
        "authorization/token-refused[expired]",
        "authorization/token-refused[not-yet-valid]",
        "authorization/token-refused[wrong-issuer]",
        "authorization/token-refused[bad-signature]",
    ];
    if revision == "2025-03-26" {
        // The reference server relays its issuer's metadata at its origin: no default endpoints
        // are judged (authorization/legacy-default-endpoints is skipped, with the reason).
        ids.push("authorization/legacy-metadata-at-origin");
    }
    if revision >= "2025-06-18" {
        ids.extend([
            "authorization/prm-resource",
            "authorization/prm-authorization-servers",
            "authorization/audience-validation",
        ]);
    }
    if revision == "2025-06-18" {
        ids.extend(["authorization/challenge-resource-metadata", "authorization/as-metadata"]);
    }
    if revision >= "2025-11-25" {
        ids.extend([
            "authorization/prm-discoverable",
            "authorization/as-metadata-discovery",
            "authorization/insufficient-scope-403",
        ]);
    }
    if revision == "2025-11-25" {
        ids.push("authorization/challenge-scope");
    }
    if revision >= "2026-07-28" {
        ids.extend(["authorization/no-offline-access", "authorization/challenge-scope-selection"]);
    }
    ids.sort();
    ids
}

#[test]
fn the_protected_reference_server_passes_every_authorization_scenario() {
    for (transport, revisions) in [
        ("http", &["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"][..]),
        ("sse", &["2025-03-26", "2025-11-25"][..]),
    ] {
        for revision in revisions {
            let run = certify_protected(transport, None, revision);
            assert_eq!(run.code, Some(0), "{transport} {revision}\n{}", run.describe());
            let report = run.report.as_ref().expect("a report");
            let mut passed: Vec<String> = report["scenarios"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|s| s["verdict"] == "passed" && s["revision"] == *revision)
                .map(|s| s["id"].as_str().unwrap().to_owned())
                .collect();
            passed.sort();
            assert_eq!(passed, expected_at(revision), "{transport} {revision}\n{}", run.describe());
            // Each scenario judged something: none passed on zero checks (at 2025-03-26 the
            // default endpoints are skipped, with the reason: the reference server has metadata).
            for s in report["scenarios"].as_array().unwrap().iter().filter(|s| s["verdict"] != "skipped") {
                assert!(!s["checks"].as_array().unwrap().is_empty(), "{s}");
            }
            assert_no_leftovers(&run.marker);
        }
    }
}

/// Runs the authorization scenarios at `revision` against the reference server with `fault`
/// and asserts that `check` has `verdict`, citing an authorization page of that revision.
fn assert_caught(fault: &str, revision: &str, check: &str, verdict: &str) {
    let run = certify_protected("http", Some(fault), revision);
    let hits: Vec<_> =
        run.checks().into_iter().filter(|(_, _, c)| c["id"] == check && c["verdict"] == verdict).collect();
    assert!(!hits.is_empty(), "{fault}: no {verdict} {check}; the run:\n{}", run.describe());
    let (_, _, c) = &hits[0];
    let spec = c["spec"].as_str().unwrap();
    assert!(spec.starts_with(&format!("docs/specification/{revision}/basic/authorization")), "{c}");
    assert!(!c["actual"].as_str().unwrap().is_empty() && !c["expected"].as_str().unwrap().is_empty());
    let code = if verdict == "failed" { Some(1) } else { run.code.filter(|c| *c <= 1) };
    assert_eq!(run.code, code, "{fault}: exit code\n{}", run.describe());
    assert_no_leftovers(&run.marker);
}

caught_by! { assert_caught;
    error_without_token: "auth-error-without-token" at "2025-03-26" => "authorization/no-error-without-token" "warning";
    no_challenge: "auth-no-challenge" at "2025-11-25" => "authorization/unauthenticated-401" "failed";
    challenge_without_metadata: "auth-challenge-without-metadata" at "2025-06-18" => "authorization/challenge-resource-metadata" "failed";
    challenge_without_scope: "auth-challenge-without-scope" at "2025-11-25" => "authorization/challenge-scope" "warning";
    challenge_without_scope_2026: "auth-challenge-without-scope" at "2026-07-28" => "authorization/challenge-scope-selection" "warning";
    prm_undiscoverable: "auth-prm-undiscoverable" at "2025-11-25" => "authorization/prm-discoverable" "failed";
    prm_wrong_resource: "auth-prm-wrong-resource" at "2025-11-25" => "authorization/prm-resource" "failed";
    prm_no_authorization_servers: "auth-prm-no-authorization-servers" at "2026-07-28" => "authorization/prm-authorization-servers" "failed";
    prm_dead_authorization_server: "auth-prm-dead-authorization-server" at "2025-11-25" => "authorization/as-metadata-discovery" "failed";
    prm_dead_authorization_server_8414: "auth-prm-dead-authorization-server" at "2025-06-18" => "authorization/as-metadata" "failed";
    offline_access_advertised: "auth-offline-access-advertised" at "2026-07-28" => "authorization/no-offline-access" "warning";
    unauthenticated_served: "auth-unauthenticated-served" at "2025-03-26" => "authorization/unauthenticated-401" "failed";
    accepts_garbage: "auth-accepts-garbage" at "2025-11-25" => "authorization/invalid-token-401" "failed";
    ignores_signature: "auth-ignores-signature" at "2025-11-25" => "authorization/token-refused[bad-signature]" "failed";
    ignores_signature_tampered: "auth-ignores-signature" at "2025-03-26" => "authorization/tampered-token-401" "failed";
    ignores_audience: "auth-ignores-audience" at "2025-06-18" => "authorization/audience-validation" "failed";
    ignores_expiry: "auth-ignores-expiry" at "2025-03-26" => "authorization/token-refused[expired]" "failed";
    ignores_not_before: "auth-ignores-not-before" at "2026-07-28" => "authorization/token-refused[not-yet-valid]" "failed";
    ignores_issuer: "auth-ignores-issuer" at "2025-11-25" => "authorization/token-refused[wrong-issuer]" "failed";
    accepts_query_token: "auth-accepts-query-token" at "2025-06-18" => "authorization/no-token-in-query" "failed";
    no_scope_check: "auth-no-scope-check" at "2025-11-25" => "authorization/insufficient-scope-403" "warning";
    insufficient_scope_401: "auth-insufficient-scope-401" at "2026-07-28" => "authorization/insufficient-scope-403" "warning";
    legacy_no_metadata: "auth-legacy-no-metadata" at "2025-03-26" => "authorization/legacy-metadata-at-origin" "warning";
    legacy_metadata_incomplete: "auth-legacy-metadata-incomplete" at "2025-03-26" => "authorization/legacy-metadata-at-origin" "warning";
    legacy_no_default_endpoints: "auth-legacy-no-default-endpoints" at "2025-03-26" => "authorization/legacy-default-endpoints" "failed";
}

/// 2025-03-26: a protected server whose origin serves no metadata but the default endpoints
/// (the reference server with `auth-legacy-no-metadata`) passes the default-endpoint scenario,
/// over both transports, and only warns that it serves no metadata; the reference server itself
/// skips it, with the reason.
#[test]
fn default_endpoints_are_judged_only_without_metadata() {
    for transport in ["http", "sse"] {
        let run = certify_protected(transport, Some("auth-legacy-no-metadata"), "2025-03-26");
        let verdict = |id: &str| run.scenarios(id).first().map(|s| s["verdict"].clone());
        assert_eq!(
            verdict("authorization/legacy-default-endpoints"),
            Some("passed".into()),
            "{}",
            run.describe()
        );
        assert_eq!(
            verdict("authorization/legacy-metadata-at-origin"),
            Some("warning".into()),
            "{}",
            run.describe()
        );
        let checks = &run.scenarios("authorization/legacy-default-endpoints")[0]["checks"];
        assert_eq!(checks.as_array().map(Vec::len), Some(3), "authorize, token, register: {checks}");
        assert_eq!(run.code, Some(0), "{}", run.describe());
        assert_no_leftovers(&run.marker);
    }
    let run = certify_protected("http", None, "2025-03-26");
    let skipped = &run.scenarios("authorization/legacy-default-endpoints")[0];
    assert_eq!(skipped["verdict"], "skipped", "{}", run.describe());
    assert!(skipped.to_string().contains("legacy-metadata-at-origin judges it"), "{skipped}");
}

/// A protected server mcpspec holds no token for: the authorization scenarios that need none
/// run, the rest of the suite is one verdict ("protected: …", exit 4), never a list of 401s.
/// Given a token (`--auth-token`), the whole suite runs authenticated, and the token is never
/// shown.
#[test]
fn a_protected_server_without_a_token_is_one_verdict_and_with_one_is_certified() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let issuer =
        runtime.block_on(AuthorizationServer::bind(AuthServerOptions::default())).expect("an issuer");
    let served = ServedReference::start(&["--auth-issuer", issuer.issuer()]);
    let base = ["server", "--url", served.url.as_str(), "--timeout", "10", "--revision", "2025-11-25"];

    let run = crate::support::run(&base, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(4), "{}", run.describe());
    let report = run.report.as_ref().unwrap();
    assert!(report["not_tested"].as_str().unwrap().starts_with("protected: "), "{}", run.describe());
    assert!(
        run.stdout.contains("not tested: protected: ") && run.stdout.contains("--auth-token"),
        "{}",
        run.stdout
    );
    let scenarios = report["scenarios"].as_array().unwrap();
    assert!(
        scenarios.iter().all(|s| s["id"].as_str().unwrap().starts_with("authorization/")),
        "{}",
        run.describe()
    );
    assert!(scenarios.iter().all(|s| s["verdict"] != "failed"), "{}", run.describe());
    for id in [
        "authorization/unauthenticated-401",
        "authorization/prm-discoverable",
        "authorization/as-metadata-discovery",
    ] {
        assert_eq!(run.scenarios(id)[0]["verdict"], "passed", "{id}\n{}", run.describe());
    }
    assert_eq!(run.scenarios("authorization/tampered-token-401")[0]["verdict"], "skipped");

    let token = issuer.minter().issue(&served.url, &["mcp".to_owned()], "test").unwrap();
    let with_token = [&base[..], &["--auth-token", &token, "--no-sweep"]].concat();
    let run = crate::support::run(&with_token, true, Duration::from_secs(180));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(run.report.as_ref().unwrap()["not_tested"].is_null());
    for id in
        ["authorization/tampered-token-401", "authorization/no-token-in-query", "lifecycle/initialize-result"]
    {
        let s = run.scenarios(id);
        assert_eq!(
            s.first().map(|s| &s["verdict"]),
            Some(&serde_json::json!("passed")),
            "{id}\n{}",
            run.describe()
        );
    }
    // Minted flaws need mcpspec as the issuer.
    assert_eq!(run.scenarios("authorization/token-refused[expired]")[0]["verdict"], "skipped");
    let report = run.report.as_ref().unwrap().to_string();
    let payload = token.split('.').nth(1).unwrap();
    for (what, text) in [("report", &report), ("stdout", &run.stdout), ("stderr", &run.stderr)] {
        assert!(!text.contains(&token) && !text.contains(payload), "the token is in the {what}");
    }
    drop(issuer);
}
