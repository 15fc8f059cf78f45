//! The reference authorization server end to end over 127.0.0.1: its discovery documents are
//! valid RFC 8414 metadata found where each revision looks, the headless authorization
//! endpoint, the code grant with PKCE (and each refusal a correct server makes), refresh
//! rotation, DCR, each client authentication method, and every [`AsFault`] breaking the rule it
//! names.

use super::{plain_client, within};
use base64::Engine as _;
use mcpspec_protocol::auth::discovery::as_metadata_urls;
use mcpspec_protocol::auth::{AuthorizationServerMetadata, PkceVerifier};
use mcpspec_protocol::Revision;
use mcpspec_reference::auth::{
    AsFault, AuthServerOptions, AuthorizationServer, ClientAuth, MetadataDocument, RegisteredClient,
};
use serde_json::{json, Value};

const REDIRECT: &str = "http://127.0.0.1:9/callback";
const RESOURCE: &str = "http://127.0.0.1:8/mcp";

async fn start(tweak: impl FnOnce(&mut AuthServerOptions)) -> AuthorizationServer {
    let mut o = AuthServerOptions::default();
    tweak(&mut o);
    within("bind", AuthorizationServer::bind(o)).await.expect("bind")
}

fn no_redirects() -> reqwest::Client {
    mcpspec_reference::transport::http_client::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client")
}

pub async fn get_json(url: &str) -> (u16, Value) {
    let r = within("GET", plain_client().get(url).send()).await.expect("GET");
    let status = r.status().as_u16();
    let body = within("body", r.bytes()).await.expect("body");
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn form(pairs: &[(&str, &str)]) -> String {
    url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish()
}

async fn post_form(url: &str, pairs: &[(&str, &str)], basic: Option<(&str, &str)>) -> (u16, Value) {
    let mut rb = plain_client()
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .body(form(pairs));
    if let Some((id, secret)) = basic {
        let b64 = base64::engine::general_purpose::STANDARD.encode(format!("{id}:{secret}"));
        rb = rb.header("authorization", format!("Basic {b64}"));
    }
    let r = within("POST", rb.send()).await.expect("POST");
    let status = r.status().as_u16();
    let body = within("body", r.bytes()).await.expect("body");
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// GET /authorize; the `Location` query of the 302, or the status of anything else.
async fn authorize(s: &AuthorizationServer, pairs: &[(&str, &str)]) -> Result<Vec<(String, String)>, u16> {
    let url = format!("{}/authorize?{}", s.issuer(), form(pairs));
    let r = within("authorize", no_redirects().get(url).send()).await.expect("GET /authorize");
    if r.status().as_u16() != 302 {
        return Err(r.status().as_u16());
    }
    let location = url::Url::parse(r.headers()["location"].to_str().unwrap()).unwrap();
    assert!(location.as_str().starts_with(REDIRECT));
    Ok(location.query_pairs().into_owned().collect())
}

fn get<'a>(pairs: &'a [(String, String)], k: &str) -> Option<&'a str> {
    pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str())
}

fn public_client(s: &AuthorizationServer) -> &'static str {
    s.register(RegisteredClient {
        client_id: "pub".into(),
        client_secret: None,
        redirect_uris: vec![REDIRECT.into()],
        auth: ClientAuth::None,
    });
    "pub"
}

/// A code for `client_id`, with its verifier.
async fn code_for(s: &AuthorizationServer, client_id: &str) -> (String, PkceVerifier) {
    let v = PkceVerifier::from_random([7; 32]);
    let ch = v.challenge();
    let q = authorize(
        s,
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", REDIRECT),
            ("code_challenge", &ch),
            ("code_challenge_method", "S256"),
            ("state", "st"),
            ("scope", "mcp"),
            ("resource", RESOURCE),
        ],
    )
    .await
    .expect("a redirect");
    assert_eq!(get(&q, "state"), Some("st"));
    (get(&q, "code").expect("a code").to_owned(), v)
}

async fn redeem(s: &AuthorizationServer, client_id: &str, code: &str, verifier: &str) -> (u16, Value) {
    let token = format!("{}/token", s.issuer());
    post_form(
        &token,
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", verifier),
            ("client_id", client_id),
            ("resource", RESOURCE),
        ],
        None,
    )
    .await
}

#[tokio::test]
async fn metadata_is_valid_and_found_where_every_revision_looks() {
    for path in ["", "/tenant1"] {
        let s = start(|o| o.issuer_path = path.into()).await;
        let issuer = url::Url::parse(s.issuer()).unwrap();
        for revision in [Revision::V2025_06_18, Revision::V2025_11_25, Revision::V2026_07_28] {
            for place in as_metadata_urls(revision, &issuer) {
                let (status, doc) = get_json(place.url.as_str()).await;
                assert_eq!(status, 200, "{}", place.url);
                let m = AuthorizationServerMetadata::from_json(&doc).unwrap();
                assert_eq!(m.problems(s.issuer()), vec![], "{}", place.url);
                assert!(m.authorization_response_iss_parameter_supported);
            }
        }
        let (status, jwks) = get_json(&format!("{}/jwks", s.issuer())).await;
        assert_eq!((status, jwks["keys"][0]["alg"].as_str()), (200, Some("ES256")));
    }
}

#[tokio::test]
async fn only_the_documents_asked_for_are_served() {
    let s = start(|o| {
        o.documents = vec![MetadataDocument::OpenIdInserted];
        o.registration = false;
    })
    .await;
    let issuer = url::Url::parse(s.issuer()).unwrap();
    let urls = as_metadata_urls(Revision::V2025_11_25, &issuer);
    assert_eq!(get_json(urls[0].url.as_str()).await.0, 404);
    let (status, doc) = get_json(urls[1].url.as_str()).await;
    assert_eq!(status, 200);
    assert!(doc.get("registration_endpoint").is_none());
    let (status, _) =
        within("register", plain_client().post(format!("{}/register", s.issuer())).body("{}").send())
            .await
            .map(|r| (r.status().as_u16(), ()))
            .unwrap();
    assert_eq!(status, 404);
}

#[tokio::test]
async fn code_grant_with_pkce_then_rotating_refresh() {
    let s = start(|_| {}).await;
    let id = public_client(&s);
    let (code, v) = code_for(&s, id).await;
    let (status, t) = redeem(&s, id, &code, v.as_str()).await;
    assert_eq!(status, 200, "{t}");
    assert_eq!(t["token_type"], "Bearer");
    assert_eq!(t["scope"], "mcp");
    let claims = jsonwebtoken::dangerous::insecure_decode::<Value>(t["access_token"].as_str().unwrap())
        .unwrap()
        .claims;
    assert_eq!((claims["aud"].as_str(), claims["iss"].as_str()), (Some(RESOURCE), Some(s.issuer())));

    // The code is single-use.
    assert_eq!(redeem(&s, id, &code, v.as_str()).await.1["error"], "invalid_grant");

    // A public client's refresh token works once.
    let token = format!("{}/token", s.issuer());
    let r1 = t["refresh_token"].as_str().unwrap();
    let refresh = |rt: String| {
        let token = token.clone();
        async move {
            post_form(
                &token,
                &[("grant_type", "refresh_token"), ("refresh_token", &rt), ("client_id", "pub")],
                None,
            )
            .await
        }
    };
    let (status, t2) = refresh(r1.into()).await;
    assert_eq!(status, 200, "{t2}");
    assert_ne!(t2["refresh_token"], t["refresh_token"]);
    assert_eq!(refresh(r1.into()).await.1["error"], "invalid_grant");
    assert_eq!(refresh(t2["refresh_token"].as_str().unwrap().into()).await.0, 200);
}

#[tokio::test]
async fn the_token_endpoint_refuses_what_it_must() {
    let s = start(|_| {}).await;
    let id = public_client(&s);
    let (code, _) = code_for(&s, id).await;
    let wrong = PkceVerifier::from_random([8; 32]);
    assert_eq!(redeem(&s, id, &code, wrong.as_str()).await.1["error"], "invalid_grant");

    let (code, v) = code_for(&s, id).await;
    let token = format!("{}/token", s.issuer());
    let (status, body) = post_form(
        &token,
        &[
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", "http://127.0.0.1:9/other"),
            ("code_verifier", v.as_str()),
            ("client_id", id),
        ],
        None,
    )
    .await;
    assert_eq!((status, body["error"].as_str()), (400, Some("invalid_grant")));
    let (status, body) = post_form(&token, &[("grant_type", "password"), ("client_id", id)], None).await;
    assert_eq!((status, body["error"].as_str()), (400, Some("unsupported_grant_type")));
    let (status, body) =
        post_form(&token, &[("grant_type", "authorization_code"), ("client_id", "nobody")], None).await;
    assert_eq!((status, body["error"].as_str()), (401, Some("invalid_client")));
}

#[tokio::test]
async fn the_authorization_endpoint_refuses_what_it_must() {
    let s = start(|_| {}).await;
    let id = public_client(&s);
    let base = [("response_type", "code"), ("client_id", id), ("redirect_uri", REDIRECT), ("state", "s")];
    // Unregistered redirect URI or client: no redirect at all.
    let mut other = base.to_vec();
    other[2].1 = "http://127.0.0.1:9/evil";
    assert_eq!(authorize(&s, &other).await, Err(400));
    other[2].1 = REDIRECT;
    other[1].1 = "nobody";
    assert_eq!(authorize(&s, &other).await, Err(400));
    // No PKCE, plain PKCE, an unknown scope: redirected errors with state and iss.
    let q = authorize(&s, &base).await.unwrap();
    assert_eq!(
        (get(&q, "error"), get(&q, "state"), get(&q, "iss")),
        (Some("invalid_request"), Some("s"), Some(s.issuer()))
    );
    let challenge = "x".repeat(43);
    let mut plain = base.to_vec();
    plain.extend([("code_challenge", challenge.as_str()), ("code_challenge_method", "plain")]);
    assert_eq!(get(&authorize(&s, &plain).await.unwrap(), "error"), Some("invalid_request"));
    plain[5].1 = "S256";
    plain.push(("scope", "admin"));
    assert_eq!(get(&authorize(&s, &plain).await.unwrap(), "error"), Some("invalid_scope"));
}

#[tokio::test]
async fn registration_and_each_client_authentication_method() {
    let s = start(|_| {}).await;
    let register = format!("{}/register", s.issuer());
    for method in [ClientAuth::Basic, ClientAuth::Post, ClientAuth::None] {
        let body = json!({"redirect_uris": [REDIRECT], "token_endpoint_auth_method": method.name(), "client_name": "t"});
        let r =
            within("register", plain_client().post(&register).body(body.to_string()).send()).await.unwrap();
        assert_eq!(r.status().as_u16(), 201);
        let c: Value = serde_json::from_slice(&within("body", r.bytes()).await.unwrap()).unwrap();
        let id = c["client_id"].as_str().unwrap();
        assert_eq!(c["token_endpoint_auth_method"], method.name());
        assert_eq!(c.get("client_secret").is_some(), method != ClientAuth::None);
        let (code, v) = code_for(&s, id).await;
        let secret = c["client_secret"].as_str().unwrap_or_default();
        let mut pairs = vec![
            ("grant_type", "authorization_code"),
            ("code", &code),
            ("redirect_uri", REDIRECT),
            ("code_verifier", v.as_str()),
        ];
        let basic = match method {
            ClientAuth::Basic => Some((id, secret)),
            ClientAuth::Post => {
                pairs.extend([("client_id", id), ("client_secret", secret)]);
                None
            }
            ClientAuth::None => {
                pairs.push(("client_id", id));
                None
            }
        };
        let token = format!("{}/token", s.issuer());
        // The wrong method is refused first (a confidential client without its secret).
        if method != ClientAuth::None {
            let (status, _) = post_form(
                &token,
                &[("grant_type", "authorization_code"), ("code", &code), ("client_id", id)],
                None,
            )
            .await;
            assert_eq!(status, 401, "{}", method.name());
        }
        let (status, t) = post_form(&token, &pairs, basic).await;
        assert_eq!(status, 200, "{}: {t}", method.name());
    }
    let bad = json!({"redirect_uris": ["http://example.com/cb"]});
    let r = within("register", plain_client().post(&register).body(bad.to_string()).send()).await.unwrap();
    assert_eq!(r.status().as_u16(), 400);
}

#[tokio::test]
async fn every_fault_breaks_its_rule() {
    for fault in [
        AsFault::IssuerMismatch,
        AsFault::NoS256,
        AsFault::IgnoresVerifier,
        AsFault::ReusableCode,
        AsFault::IgnoresRedirectUri,
        AsFault::NoRefreshRotation,
        AsFault::NoIssParameter,
        AsFault::NoChallengeMethods,
        AsFault::WrongIss,
    ] {
        let s = start(|o| o.fault = Some(fault)).await;
        let m = AuthorizationServerMetadata::from_json(&s.metadata()).unwrap();
        let id = public_client(&s);
        let (code, v) = code_for(&s, id).await;
        let broken = match fault {
            AsFault::IssuerMismatch => !m.problems(s.issuer()).is_empty(),
            AsFault::NoS256 => !m.supports_s256(),
            AsFault::IgnoresVerifier => {
                redeem(&s, id, &code, PkceVerifier::from_random([1; 32]).as_str()).await.0 == 200
            }
            AsFault::ReusableCode => {
                redeem(&s, id, &code, v.as_str()).await;
                redeem(&s, id, &code, v.as_str()).await.0 == 200
            }
            AsFault::IgnoresRedirectUri => {
                let token = format!("{}/token", s.issuer());
                let pairs = [
                    ("grant_type", "authorization_code"),
                    ("code", code.as_str()),
                    ("redirect_uri", "http://127.0.0.1:9/x"),
                    ("code_verifier", v.as_str()),
                    ("client_id", id),
                ];
                post_form(&token, &pairs, None).await.0 == 200
            }
            AsFault::NoRefreshRotation => {
                let (_, t) = redeem(&s, id, &code, v.as_str()).await;
                let token = format!("{}/token", s.issuer());
                let rt = t["refresh_token"].as_str().unwrap().to_owned();
                let (_, t2) = post_form(
                    &token,
                    &[("grant_type", "refresh_token"), ("refresh_token", &rt), ("client_id", id)],
                    None,
                )
                .await;
                t2["refresh_token"] == t["refresh_token"]
            }
            AsFault::NoIssParameter => {
                let ch = v.challenge();
                let q = authorize(
                    &s,
                    &[
                        ("response_type", "code"),
                        ("client_id", id),
                        ("code_challenge", &ch),
                        ("code_challenge_method", "S256"),
                    ],
                )
                .await
                .unwrap();
                m.authorization_response_iss_parameter_supported && get(&q, "iss").is_none()
            }
            AsFault::NoChallengeMethods => m.code_challenge_methods_supported.is_none(),
            AsFault::WrongIss => {
                let ch = v.challenge();
                let q = authorize(
                    &s,
                    &[
                        ("response_type", "code"),
                        ("client_id", id),
                        ("code_challenge", &ch),
                        ("code_challenge_method", "S256"),
                    ],
                )
                .await
                .unwrap();
                get(&q, "iss").is_some_and(|iss| iss != s.issuer())
            }
            _ => unreachable!(),
        };
        assert!(broken, "{fault:?} left its rule intact");
    }
}

/// A pre-registered client whose redirect URI was not known in advance (the official suite's
/// contract) is redirected to any loopback or https URI it names, and to nothing else.
#[tokio::test]
async fn a_pre_registered_client_without_redirect_uris_takes_loopback_or_https_only() {
    let s = start(|_| {}).await;
    s.register(RegisteredClient {
        client_id: "pre".into(),
        client_secret: Some("a-secret-of-some-length".into()),
        redirect_uris: Vec::new(),
        auth: ClientAuth::Basic,
    });
    let ch = PkceVerifier::from_random([3; 32]).challenge();
    let pairs = |redirect: &'static str| {
        vec![
            ("response_type", "code"),
            ("client_id", "pre"),
            ("redirect_uri", redirect),
            ("code_challenge", ch.as_str()),
            ("code_challenge_method", "S256"),
        ]
    };
    let q = authorize(&s, &pairs(REDIRECT)).await.expect("a loopback redirect");
    assert!(get(&q, "code").is_some());
    assert_eq!(authorize(&s, &pairs("http://client.example/cb")).await, Err(400));
}
