//! Authorization servers (issue #28, `mcpspec authorization`): the reference authorization
//! server passes every authorization-server scenario at each revision with authorization; each
//! [`AsFault`] is caught by the check that names it and by no other; a server that needs a
//! person to approve is skipped with the reason, never failed; an issuer that cannot be reached
//! is no verdict; and no code, verifier, refresh token or client secret reaches a report or the
//! console. The servers take client ID metadata documents from the run's https host, trusting
//! the CA the tests keep for `--cimd-ca`; one that does not trust it is skipped, never passed.

use crate::support::*;
use mcpspec_reference::auth::documents::HostCa;
use mcpspec_reference::auth::{
    AsFault, AuthServerOptions, AuthorizationServer, ClientAuth, RegisteredClient,
};
use serde_json::Value;
use std::sync::OnceLock;
use std::time::Duration;

/// The runtime the authorization servers under test run on while the test thread waits for
/// mcpspec.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| tokio::runtime::Runtime::new().expect("a runtime"))
}

/// The directory of the document host's CA, kept for the tests' runs (`--cimd-ca`), and the
/// CA's certificate.
fn kept_ca() -> &'static (std::path::PathBuf, String) {
    static CA: OnceLock<(std::path::PathBuf, String)> = OnceLock::new();
    CA.get_or_init(|| {
        // Under Cargo's scratch directory for integration tests, not the system's /tmp: a
        // static is never dropped, so nothing would remove it there.
        let dir =
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cimd-ca-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let ca = HostCa::kept_in(&dir).expect("a kept CA");
        (dir, ca.pem())
    })
}

/// A reference authorization server that takes client ID metadata documents, trusting the
/// tests' CA.
fn start(options: AuthServerOptions) -> AuthorizationServer {
    let options = AuthServerOptions {
        client_id_metadata_documents: true,
        document_roots: vec![kept_ca().1.clone()],
        ..options
    };
    start_as_is(options)
}

fn start_as_is(options: AuthServerOptions) -> AuthorizationServer {
    runtime().block_on(AuthorizationServer::bind(options)).expect("the reference authorization server")
}

/// `mcpspec authorization --url ISSUER --cimd-ca DIR` with `extra`, its report kept.
fn certify(server: &AuthorizationServer, extra: &[&str]) -> Run {
    let ca = kept_ca().0.to_str().expect("a UTF-8 temporary directory");
    let args =
        [&["authorization", "--url", server.issuer(), "--timeout", "5", "--cimd-ca", ca][..], extra].concat();
    run(&args, true, Duration::from_secs(120))
}

/// The ids of the checks of `run` with a verdict worse than passed.
fn broken(run: &Run) -> Vec<(String, String)> {
    run.checks()
        .into_iter()
        .filter(|(_, _, c)| c["verdict"] == "failed" || c["verdict"] == "warning")
        .map(|(_, revision, c)| (c["id"].as_str().unwrap_or("").to_owned(), revision))
        .collect()
}

/// The scenarios that apply at `revision`.
fn expected_at(revision: &str) -> Vec<&'static str> {
    let mut ids = vec![
        "authorization-server/metadata-issuer",
        "authorization-server/metadata-required",
        "authorization-server/endpoints-https",
        "authorization-server/dynamic-registration",
        "authorization-server/code-flow",
        "authorization-server/redirect-uri-registered",
    ];
    match revision {
        "2025-03-26" => ids.push("authorization-server/metadata-at-origin"),
        "2025-06-18" => ids.push("authorization-server/metadata-rfc8414"),
        _ => ids.push("authorization-server/metadata-discovery"),
    }
    if revision >= "2025-06-18" {
        ids.extend([
            "authorization-server/metadata-s256",
            "authorization-server/pkce-verifier",
            "authorization-server/code-single-use",
            "authorization-server/token-redirect-uri",
            "authorization-server/resource-audience",
            "authorization-server/refresh-rotation",
        ]);
    }
    if revision >= "2025-11-25" {
        ids.extend([
            "authorization-server/cimd-client-id",
            "authorization-server/cimd-redirect-uri",
            "authorization-server/cimd-valid-json",
        ]);
    }
    if revision >= "2026-07-28" {
        ids.push("authorization-server/iss-parameter");
    }
    ids.sort();
    ids
}

#[test]
fn the_reference_authorization_server_passes_every_scenario() {
    let server = start(AuthServerOptions::default());
    let run = certify(&server, &[]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let report = run.report.as_ref().expect("a report");
    assert_eq!(report["role"], "authorization-server");
    for revision in ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] {
        let mut passed: Vec<&str> = report["scenarios"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["revision"] == revision && s["verdict"] == "passed")
            .map(|s| s["id"].as_str().unwrap())
            .collect();
        passed.sort();
        assert_eq!(passed, expected_at(revision), "{revision}\n{}", run.describe());
    }
    // Every scenario judged something, and every check names the clauses it tests (but the
    // one on the reasoned list of checks no clause names).
    for s in report["scenarios"].as_array().unwrap() {
        let checks = s["checks"].as_array().unwrap();
        assert!(!checks.is_empty(), "{s}");
        for c in checks.iter().filter(|c| c["id"] != "authorization-server/resource-audience") {
            assert!(!c["clauses"].as_array().unwrap().is_empty(), "{c}");
        }
    }
    for format in ["report.json", "junit.xml", "report.html", "summary.md"] {
        assert!(run.report_dir.path().join(format).is_file(), "{format}");
    }
}

/// Certifies the reference server with `fault` at `revision`; asserts `check` has `verdict`,
/// citing an authorization page of that revision, and that no other check is broken.
fn assert_caught(fault: AsFault, revision: &str, check: &str, verdict: &str) {
    let server = start(AuthServerOptions { fault: Some(fault), ..AuthServerOptions::default() });
    let run = certify(&server, &["--revision", revision]);
    let hits: Vec<Value> = run
        .checks()
        .into_iter()
        .filter(|(_, _, c)| c["id"] == check && c["verdict"] == verdict)
        .map(|(_, _, c)| c)
        .collect();
    assert!(!hits.is_empty(), "{fault:?}: no {verdict} {check}\n{}", run.describe());
    let spec = hits[0]["spec"].as_str().unwrap();
    assert!(spec.starts_with(&format!("docs/specification/{revision}/basic/authorization")), "{}", hits[0]);
    assert!(!hits[0]["actual"].as_str().unwrap().is_empty());
    let others: Vec<_> = broken(&run).into_iter().filter(|(id, _)| id != check).collect();
    assert!(others.is_empty(), "{fault:?} also broke {others:?}\n{}", run.describe());
    let code = if verdict == "failed" { 1 } else { 0 };
    assert_eq!(run.code, Some(code), "{fault:?}\n{}", run.describe());
}

macro_rules! caught {
    ($($name:ident: $fault:ident at $rev:literal => $check:literal $verdict:literal;)*) => {
        $(#[test]
        fn $name() {
            assert_caught(AsFault::$fault, $rev, $check, $verdict);
        })*
    };
}

caught! {
    issuer_mismatch: IssuerMismatch at "2025-11-25" => "authorization-server/metadata-issuer" "failed";
    no_s256: NoS256 at "2025-06-18" => "authorization-server/metadata-s256" "failed";
    metadata_missing_field: MetadataMissingField at "2025-03-26" => "authorization-server/metadata-required" "failed";
    insecure_jwks_uri: InsecureJwksUri at "2025-03-26" => "authorization-server/endpoints-https" "failed";
    registration_without_client_id: RegistrationWithoutClientId at "2025-11-25" => "authorization-server/dynamic-registration" "failed";
    ignores_verifier: IgnoresVerifier at "2025-11-25" => "authorization-server/pkce-verifier" "failed";
    reusable_code: ReusableCode at "2026-07-28" => "authorization-server/code-single-use" "failed";
    redirect_prefix_match: RedirectPrefixMatch at "2025-03-26" => "authorization-server/redirect-uri-registered" "failed";
    ignores_redirect_uri: IgnoresRedirectUri at "2025-06-18" => "authorization-server/token-redirect-uri" "failed";
    ignores_resource: IgnoresResource at "2025-06-18" => "authorization-server/resource-audience" "warning";
    no_refresh_rotation: NoRefreshRotation at "2025-11-25" => "authorization-server/refresh-rotation" "failed";
    no_iss_parameter: NoIssParameter at "2026-07-28" => "authorization-server/iss-parameter" "failed";
    cimd_id_unchecked: CimdIdUnchecked at "2025-11-25" => "authorization-server/cimd-client-id" "failed";
    cimd_redirect_unchecked: CimdRedirectUnchecked at "2026-07-28" => "authorization-server/cimd-redirect-uri" "failed";
    cimd_accepts_non_json: CimdAcceptsNonJson at "2025-11-25" => "authorization-server/cimd-valid-json" "failed";
}

/// Client ID metadata documents a server never fetches judge nothing: one that does not take
/// them (no `client_id_metadata_document_supported`), and one that does not trust the run's CA
/// (a run without --cimd-ca makes its own), are skipped with the reason, never passed.
#[test]
fn documents_a_server_never_fetches_are_skipped_never_passed() {
    let ids = [
        "authorization-server/cimd-client-id",
        "authorization-server/cimd-redirect-uri",
        "authorization-server/cimd-valid-json",
    ];
    let cases = [
        (start_as_is(AuthServerOptions::default()), "client_id_metadata_document_supported"),
        (
            start_as_is(AuthServerOptions {
                client_id_metadata_documents: true,
                ..AuthServerOptions::default()
            }),
            "never fetched",
        ),
    ];
    for (server, why) in cases {
        let args = ["authorization", "--url", server.issuer(), "--timeout", "5", "--revision", "2025-11-25"];
        let run = run(&args, true, Duration::from_secs(120));
        assert_eq!(run.code, Some(0), "{}", run.describe());
        for id in ids {
            let s = &run.scenarios(id)[0];
            assert_eq!(s["verdict"], "skipped", "{s}");
            assert!(s["reason"].as_str().unwrap().contains(why), "{why}: {s}");
        }
    }
}

/// A server whose authorization endpoint shows a login page: every scenario past it is skipped
/// with "needs a headless approval", none fails.
#[test]
fn a_server_that_needs_a_person_is_skipped_never_failed() {
    let server = start(AuthServerOptions { login_page: true, ..AuthServerOptions::default() });
    let run = certify(&server, &["--revision", "2025-11-25"]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert!(broken(&run).is_empty(), "{}", run.describe());
    let flow = &run.scenarios("authorization-server/code-flow")[0];
    assert_eq!(flow["verdict"], "skipped", "{flow}");
    assert!(flow["reason"].as_str().unwrap().contains("needs a headless approval"), "{flow}");
    assert_eq!(run.scenarios("authorization-server/metadata-discovery")[0]["verdict"], "passed");
}

/// No answer at the issuer: no verdict (exit 3), said at once.
#[test]
fn an_unreachable_issuer_is_no_verdict() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let url = format!("http://127.0.0.1:{port}");
    let run = run(&["authorization", "--url", &url, "--timeout", "2"], true, Duration::from_secs(60));
    assert_eq!(run.code, Some(3), "{}", run.describe());
    assert!(run.stderr.contains("cannot reach the authorization server"), "{}", run.describe());
}

/// A confidential client given on the command line: the run uses it (Basic authentication), and
/// neither its secret nor any code, verifier or refresh token the run exchanged shows in the
/// reports or on the console.
#[test]
fn secrets_never_reach_a_report_or_the_console() {
    let secret = "mcpspec-test-client-secret-0123456789";
    let server = start(AuthServerOptions::default());
    server.register(RegisteredClient {
        client_id: "given-client".into(),
        client_secret: Some(secret.into()),
        redirect_uris: vec!["http://127.0.0.1:33418/mcpspec/callback".into()],
        auth: ClientAuth::Basic,
    });
    let run = certify(&server, &["--client-id", "given-client", "--client-secret", secret]);
    assert_eq!(run.code, Some(0), "{}", run.describe());
    assert_eq!(run.scenarios("authorization-server/code-flow").len(), 4);
    // Refresh-token rotation is required of public clients: a confidential one skips it.
    let rotation = &run.scenarios("authorization-server/refresh-rotation")[0];
    assert_eq!(rotation["verdict"], "skipped", "{rotation}");
    let log = server.take_log();
    assert!(log.iter().any(|x| x.auth_scheme.as_deref() == Some("Basic")), "the given client authenticated");
    let mut secrets: Vec<String> = vec![secret.to_owned()];
    for x in &log {
        for (k, v) in &x.params {
            if ["code", "code_verifier", "refresh_token", "client_secret"].contains(&k.as_str()) {
                secrets.push(v.clone());
            }
        }
    }
    assert!(secrets.len() > 5, "codes and verifiers were exchanged: {}", secrets.len());
    let mut texts = vec![("stdout", run.stdout.clone()), ("stderr", run.stderr.clone())];
    for f in ["report.json", "junit.xml", "report.html", "summary.md"] {
        texts.push((f, std::fs::read_to_string(run.report_dir.path().join(f)).unwrap()));
    }
    for (what, text) in &texts {
        for s in &secrets {
            assert!(!text.contains(s.as_str()), "a secret is in {what}");
        }
    }
}
