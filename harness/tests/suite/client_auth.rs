//! OAuth clients (issue #28): `mcpspec client --transport http` protects its scenario server
//! with the reference server's protected mode and its own authorization server; the reference
//! client walks the whole flow and passes every client authorization scenario at each revision
//! that has them (2025-03-26: the authorization server at the MCP server's origin); each `auth-` fault of the reference client is caught by the check that names
//! it; and no secret (token, code, verifier, client secret) reaches a report or the console.

use crate::support::{assert_no_leftovers, caught_by, run, Run, MCPSPEC};
use std::time::Duration;

/// The client authorization scenarios at `revision` against the reference client (with
/// `fault`). A clean client never waits out the timeout; a faulty one may (it stops short).
fn certify(revision: &str, fault: Option<&str>) -> Run {
    let timeout = if fault.is_some() { "2" } else { "5" };
    let mut args = vec![
        "client",
        "-j",
        "4",
        "--timeout",
        timeout,
        "--transport",
        "http",
        "--revision",
        revision,
        "--scenario",
        "client-authorization/*",
        "--",
        MCPSPEC,
        "reference",
        "client",
        "--transport",
        "http",
    ];
    if let Some(fault) = fault {
        args.extend(["--fault", fault]);
    }
    let run = run(&args, true, Duration::from_secs(120));
    assert_no_leftovers(&run.marker);
    run
}

/// The scenarios that run at `revision`.
fn expected_at(revision: &str) -> Vec<&'static str> {
    let mut ids = vec!["client-authorization/bearer-header", "client-authorization/no-token-in-query"];
    if revision == "2025-03-26" {
        ids.extend([
            "client-authorization/legacy-metadata-at-origin",
            "client-authorization/legacy-default-endpoints",
            "client-authorization/legacy-pkce",
            "client-authorization/legacy-redirect-uri",
        ]);
    }
    if revision >= "2025-06-18" {
        ids.extend([
            "client-authorization/prm-from-challenge",
            "client-authorization/pkce-s256",
            "client-authorization/state",
            "client-authorization/resource-parameter",
            "client-authorization/redirect-uri",
            "client-authorization/redirect-uri-registered",
            "client-authorization/own-tokens-only",
            "client-authorization/resource-mismatch",
            "client-authorization/token-endpoint-auth[client_secret_basic]",
            "client-authorization/token-endpoint-auth[client_secret_post]",
            "client-authorization/token-endpoint-auth[none]",
        ]);
    }
    if revision >= "2025-11-25" {
        ids.extend([
            "client-authorization/prm-well-known-fallback",
            "client-authorization/as-discovery-order",
            "client-authorization/as-discovery-order-root",
            "client-authorization/pkce-support-required",
            "client-authorization/scope-from-challenge",
            "client-authorization/scope-from-metadata",
            "client-authorization/step-up",
            "client-authorization/step-up-retry-limit",
            "client-authorization/scope-omitted",
            "client-authorization/client-id-metadata-document",
            "client-authorization/client-id-metadata-document-url",
            "client-authorization/challenge-scopes-unlisted",
        ]);
    }
    if revision == "2025-11-25" {
        ids.push("client-authorization/pre-registration");
    }
    if revision >= "2026-07-28" {
        ids.extend([
            "client-authorization/issuer-mismatch",
            "client-authorization/iss-mismatch",
            "client-authorization/dcr-application-type",
            "client-authorization/step-up-keeps-scopes",
            "client-authorization/no-credential-reuse",
            "client-authorization/iss-unadvertised",
            "client-authorization/iss-missing",
            "client-authorization/no-refresh-token-assumed",
            "client-authorization/iss-exact",
            "client-authorization/iss-mismatch-error-ignored",
            "client-authorization/registration-refused",
        ]);
    }
    ids.sort();
    ids
}

#[test]
fn the_reference_client_passes_every_client_authorization_scenario() {
    for revision in ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] {
        let run = certify(revision, None);
        assert_eq!(run.code, Some(0), "{revision}\n{}", run.describe());
        let report = run.report.as_ref().expect("a report");
        let scenarios = report["scenarios"].as_array().unwrap();
        let mut passed: Vec<String> = scenarios
            .iter()
            .filter(|s| s["verdict"] == "passed" && s["revision"] == revision)
            .map(|s| s["id"].as_str().unwrap().to_owned())
            .collect();
        passed.sort();
        assert_eq!(passed, expected_at(revision), "{revision}\n{}", run.describe());
        // Each scenario judged its rule: none passed on zero checks.
        for s in scenarios {
            assert!(!s["checks"].as_array().unwrap().is_empty(), "{s}");
        }
    }
}

/// Runs the scenarios at `revision` against the reference client with `fault` and asserts that
/// `check` has `verdict`, citing an authorization page of that revision, and that no secret the
/// flow carried is in the report or on the console.
fn assert_caught(fault: &str, revision: &str, check: &str, verdict: &str) {
    let run = certify(revision, Some(fault));
    let hits: Vec<_> =
        run.checks().into_iter().filter(|(_, _, c)| c["id"] == check && c["verdict"] == verdict).collect();
    assert!(!hits.is_empty(), "{fault}: no {verdict} {check}; the run:\n{}", run.describe());
    let (_, _, c) = &hits[0];
    let spec = c["spec"].as_str().unwrap();
    assert!(spec.starts_with(&format!("docs/specification/{revision}/basic/authorization")), "{c}");
    assert!(!c["actual"].as_str().unwrap().is_empty() && !c["expected"].as_str().unwrap().is_empty());
    let code = if verdict == "failed" { Some(1) } else { run.code.filter(|c| *c <= 1) };
    assert_eq!(run.code, code, "{fault}: exit code\n{}", run.describe());
    let report = run.report.as_ref().map(|r| r.to_string()).unwrap_or_default();
    for (what, text) in [("report", &report), ("stdout", &run.stdout), ("stderr", &run.stderr)] {
        // A JWT (our tokens) begins with the base64url of `{"` and holds two dots.
        assert!(!text.contains("eyJ"), "{fault}: a token is in the {what}");
        // A token in a URL is shown redacted, if at all.
        let shown = text.split("access_token=").skip(1).all(|rest| rest.starts_with("[redacted]"));
        assert!(shown && !text.contains("code_verifier="), "{fault}: a secret is in the {what}");
    }
}

caught_by! { assert_caught;
    no_pkce: "auth-no-pkce" at "2025-06-18" => "client-authorization/pkce-s256" "failed";
    plain_pkce: "auth-plain-pkce" at "2025-11-25" => "client-authorization/pkce-s256" "failed";
    ignores_pkce_support: "auth-ignores-pkce-support" at "2025-11-25" => "client-authorization/pkce-support-required" "failed";
    no_state: "auth-no-state" at "2025-06-18" => "client-authorization/state" "warning";
    no_resource: "auth-no-resource" at "2025-06-18" => "client-authorization/resource-parameter" "failed";
    resource_on_authorize_only: "auth-resource-on-authorize-only" at "2026-07-28" => "client-authorization/resource-parameter" "failed";
    non_loopback_redirect: "auth-non-loopback-redirect" at "2025-11-25" => "client-authorization/redirect-uri" "failed";
    token_in_query: "auth-token-in-query" at "2025-06-18" => "client-authorization/no-token-in-query" "failed";
    token_in_query_header: "auth-token-in-query" at "2025-11-25" => "client-authorization/bearer-header" "failed";
    ignores_challenge_scope: "auth-ignores-challenge-scope" at "2025-11-25" => "client-authorization/scope-from-challenge" "warning";
    no_scope_fallback: "auth-no-scope-fallback" at "2026-07-28" => "client-authorization/scope-from-metadata" "warning";
    skips_issuer_check: "auth-skips-issuer-check" at "2026-07-28" => "client-authorization/issuer-mismatch" "failed";
    ignores_iss: "auth-ignores-iss" at "2026-07-28" => "client-authorization/iss-mismatch" "failed";
    oidc_first: "auth-oidc-first" at "2025-11-25" => "client-authorization/as-discovery-order" "failed";
    prm_ignores_challenge: "auth-prm-ignores-challenge" at "2025-06-18" => "client-authorization/prm-from-challenge" "failed";
    prm_root_first: "auth-prm-root-first" at "2026-07-28" => "client-authorization/prm-well-known-fallback" "failed";
    no_step_up: "auth-no-step-up" at "2025-11-25" => "client-authorization/step-up" "warning";
    step_up_without_union: "auth-step-up-without-union" at "2026-07-28" => "client-authorization/step-up-keeps-scopes" "warning";
    ignores_pre_registration: "auth-ignores-pre-registration" at "2025-11-25" => "client-authorization/pre-registration" "warning";
    no_application_type: "auth-no-application-type" at "2026-07-28" => "client-authorization/dcr-application-type" "failed";
    legacy_skips_metadata: "auth-legacy-skips-metadata" at "2025-03-26" => "client-authorization/legacy-default-endpoints" "failed";
    legacy_keeps_path: "auth-legacy-keeps-path" at "2025-03-26" => "client-authorization/legacy-metadata-at-origin" "failed";
    reuses_credentials: "auth-reuses-credentials" at "2026-07-28" => "client-authorization/no-credential-reuse" "failed";
    token_in_query_2025_03_26: "auth-token-in-query" at "2025-03-26" => "client-authorization/no-token-in-query" "failed";
    no_pkce_2025_03_26: "auth-no-pkce" at "2025-03-26" => "client-authorization/legacy-pkce" "failed";
    non_loopback_redirect_2025_03_26: "auth-non-loopback-redirect" at "2025-03-26" => "client-authorization/legacy-redirect-uri" "failed";
    foreign_token: "auth-foreign-token" at "2025-06-18" => "client-authorization/own-tokens-only" "failed";
    foreign_token_2026_07_28: "auth-foreign-token" at "2026-07-28" => "client-authorization/own-tokens-only" "failed";
    ignores_prm_resource: "auth-ignores-prm-resource" at "2025-06-18" => "client-authorization/resource-mismatch" "failed";
    unbounded_step_up: "auth-unbounded-step-up" at "2025-11-25" => "client-authorization/step-up-retry-limit" "warning";
    ignores_auth_method: "auth-ignores-auth-method" at "2025-06-18" => "client-authorization/token-endpoint-auth[client_secret_post]" "failed";
    ignores_cimd: "auth-ignores-cimd" at "2025-11-25" => "client-authorization/client-id-metadata-document" "warning";
    cimd_http_url: "auth-cimd-http-url" at "2026-07-28" => "client-authorization/client-id-metadata-document-url" "failed";
    scope_when_undefined: "auth-scope-when-undefined" at "2025-11-25" => "client-authorization/scope-omitted" "warning";
    ignores_missing_iss: "auth-ignores-iss" at "draft" => "client-authorization/iss-missing" "failed";
    needs_refresh_token: "auth-needs-refresh-token" at "2026-07-28" => "client-authorization/no-refresh-token-assumed" "failed";
    unregistered_redirect: "auth-unregistered-redirect" at "2025-06-18" => "client-authorization/redirect-uri-registered" "failed";
    iss_normalizes: "auth-iss-normalizes" at "2026-07-28" => "client-authorization/iss-exact" "failed";
    oidc_first_root: "auth-oidc-first" at "2025-11-25" => "client-authorization/as-discovery-order-root" "failed";
    iss_only_when_advertised: "auth-iss-only-when-advertised" at "2026-07-28" => "client-authorization/iss-unadvertised" "failed";
    assumes_scope_subset: "auth-assumes-scope-subset" at "2025-11-25" => "client-authorization/challenge-scopes-unlisted" "failed";
    assumes_scope_subset_2026_07_28: "auth-assumes-scope-subset" at "2026-07-28" => "client-authorization/challenge-scopes-unlisted" "failed";
    acts_on_unverified_error: "auth-acts-on-unverified-error" at "2026-07-28" => "client-authorization/iss-mismatch-error-ignored" "failed";
    ignores_registration_failure: "auth-ignores-registration-failure" at "2026-07-28" => "client-authorization/registration-refused" "failed";
}
