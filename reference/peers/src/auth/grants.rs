//! The authorization server's grants: the authorization endpoint (approves at once, 302 to the
//! `redirect_uri` with `code`, `state` and RFC 9207's `iss`), the token endpoint (OAuth 2.1
//! §4.1.3 authorization code with PKCE S256 and §4.3 refresh, rotated for public clients) and
//! dynamic client registration (RFC 7591 §3). Errors follow RFC 6749 §4.1.2.1 (redirected, once
//! the client and its `redirect_uri` are known) and §5.2 (token endpoint).

use super::server::{json_response, oauth_error, Code, Refresh, Shared};
use super::tokens::random_string;
use super::{AsFault, ClientAuth, RegisteredClient};
use axum::body::Body;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use base64::Engine as _;
use mcpspec_protocol::auth::{client_id, metadata::is_loopback, pkce, split_scope};
use serde_json::{json, Value};
use std::time::Instant;

fn param<'a>(params: &'a [(String, String)], name: &str) -> Option<&'a str> {
    params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// A 302 to `redirect_uri` with `pairs` (and `state`, and `iss` when RFC 9207 is on).
fn redirect(shared: &Shared, redirect_uri: &str, state: Option<&str>, pairs: &[(&str, &str)]) -> Response {
    let Ok(mut target) = url::Url::parse(redirect_uri) else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "redirect_uri is not a URL");
    };
    {
        let mut q = target.query_pairs_mut();
        for (k, v) in pairs {
            q.append_pair(k, v);
        }
        if let Some(s) = state {
            q.append_pair("state", s);
        }
        if shared.fault(AsFault::IssWithTrailingSlash) {
            q.append_pair("iss", &format!("{}/", shared.issuer));
        } else if shared.fault(AsFault::WrongIss)
            || shared.fault(AsFault::WrongIssUnadvertised)
            || shared.fault(AsFault::ErrorWithWrongIss)
        {
            q.append_pair("iss", &format!("{}/other-issuer", shared.issuer));
        } else if shared.options.iss_parameter && !shared.fault(AsFault::NoIssParameter) {
            q.append_pair("iss", &shared.issuer);
        }
    }
    Response::builder()
        .status(StatusCode::FOUND)
        .header(header::LOCATION, target.as_str())
        .body(Body::empty())
        .unwrap_or_default()
}

/// The endpoint an error response's `error_uri` names (under [`AsFault::ErrorWithWrongIss`]): a
/// page about the error, served so that a client fetching it shows in the log.
pub(super) const ERROR_INFO: &str = "error-info";

/// GET /authorize: every check a real server makes, then approval without a user.
pub(super) fn authorize(shared: &Shared, q: &[(String, String)]) -> Response {
    let client = param(q, "client_id").and_then(|id| shared.lock().clients.get(id).cloned());
    let Some(client) = client else {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "unknown or missing client_id");
    };
    // Never redirect to a URI the client did not register (OAuth 2.1 §4.1.2.1).
    let redirect_uri = match param(q, "redirect_uri") {
        Some(r) if client.redirect_uris.iter().any(|u| u == r) => r.to_owned(),
        Some(r)
            if shared.fault(AsFault::RedirectPrefixMatch)
                && client.redirect_uris.iter().any(|u| r.starts_with(u.as_str())) =>
        {
            r.to_owned()
        }
        Some(r) if client.redirect_uris.is_empty() && redirect_allowed(r) => r.to_owned(),
        None if client.redirect_uris.len() == 1 => client.redirect_uris[0].clone(),
        _ => {
            return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "redirect_uri is not registered")
        }
    };
    let state = param(q, "state");
    if shared.options.login_page {
        return Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "text/html; charset=utf-8")
            .body(Body::from(
                "<!doctype html><title>Sign in</title><form method=post><button>Allow</button></form>",
            ))
            .unwrap_or_default();
    }
    let fail = |error: &str, description: &str| {
        redirect(shared, &redirect_uri, state, &[("error", error), ("error_description", description)])
    };
    if shared.fault(AsFault::ErrorWithWrongIss) {
        let error_uri = shared.endpoint(ERROR_INFO);
        return redirect(
            shared,
            &redirect_uri,
            state,
            &[
                ("error", "invalid_scope"),
                ("error_description", "ask for no scope, and see error_uri"),
                ("error_uri", &error_uri),
            ],
        );
    }
    if param(q, "response_type") != Some("code") {
        return fail("unsupported_response_type", "only response_type=code is supported");
    }
    let Some(challenge) = param(q, "code_challenge") else {
        return fail("invalid_request", "code_challenge is required (PKCE)");
    };
    if param(q, "code_challenge_method") != Some("S256") {
        return fail("invalid_request", "code_challenge_method must be S256");
    }
    let scopes = param(q, "scope").map(split_scope).unwrap_or_default();
    let (supported, unadvertised) = (&shared.options.scopes_supported, &shared.options.unadvertised_scopes);
    if !supported.is_empty() && scopes.iter().any(|s| !supported.contains(s) && !unadvertised.contains(s)) {
        return fail("invalid_scope", "a requested scope is not supported");
    }
    let resource = param(q, "resource").map(str::to_owned);
    match &resource {
        None if shared.options.require_resource => return fail("invalid_target", "resource is required"),
        Some(r) if mcpspec_protocol::auth::CanonicalResource::parse(r).is_err() => {
            return fail("invalid_target", "resource is not an absolute URI without a fragment")
        }
        _ => {}
    }
    let Ok(code) = random_string(&shared.rng, 24) else {
        return oauth_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", "no randomness");
    };
    let mut st = shared.lock();
    if st.code_order.len() >= shared.options.max_entries {
        if let Some(old) = st.code_order.pop_front() {
            st.codes.remove(&old);
        }
    }
    st.codes.insert(
        code.clone(),
        Code {
            client_id: client.client_id.clone(),
            redirect_uri: redirect_uri.clone(),
            challenge: challenge.to_owned(),
            scopes,
            resource,
            expires: Instant::now() + shared.options.code_lifetime,
            used: false,
        },
    );
    st.code_order.push_back(code.clone());
    drop(st);
    redirect(shared, &redirect_uri, state, &[("code", &code)])
}

/// How long fetching a client ID metadata document may take, and how large it may be.
const DOCUMENT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(3);
const DOCUMENT_LIMIT: usize = 16 * 1024;

/// Before GET /authorize, with client ID metadata documents on: a `client_id` in URL form
/// the server does not know yet is fetched and validated
/// (`basic/authorization.mdx#client-id-metadata-documents`: the server SHOULD fetch it, MUST
/// check that its `client_id` is its URL, MUST hold redirect URIs to it), then known as a public
/// client. The fetch is logged as an exchange of its own (`FETCH` and the URL; the status 0 when
/// nothing came back; each problem a `problem` parameter) for the client's judge to read.
/// A document that is not there, or not valid, refuses the request with `invalid_client`.
pub(super) async fn admit_metadata_document_client(
    shared: &Shared,
    q: &[(String, String)],
) -> Result<(), Response> {
    let Some(id) = param(q, "client_id").filter(|id| client_id::is_url_form(id)) else { return Ok(()) };
    if !shared.options.client_id_metadata_documents || shared.lock().clients.contains_key(id) {
        return Ok(());
    }
    let mut problems: Vec<String> = client_id::url_problem(id).into_iter().collect();
    let mut status = 0;
    let mut redirect_uris = Vec::new();
    if problems.is_empty() {
        match fetch_document(id, &shared.options.document_roots).await {
            Ok((code, doc)) => {
                status = code;
                // The planted defects: the document's own client_id, or any redirect URI, taken.
                let named = match doc["client_id"].as_str() {
                    Some(own) if shared.fault(AsFault::CimdIdUnchecked) => own,
                    _ => id,
                };
                let presented =
                    param(q, "redirect_uri").filter(|_| !shared.fault(AsFault::CimdRedirectUnchecked));
                problems = client_id::document_problems(&doc, named, presented);
                // Under the planted defect the client is known without the list, and then any
                // https or loopback redirect URI is taken (as for one pre-registered without).
                if !shared.fault(AsFault::CimdRedirectUnchecked) {
                    redirect_uris = doc["redirect_uris"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect();
                }
            }
            Err((code, Unfetched::NotJson(_))) if shared.fault(AsFault::CimdAcceptsNonJson) => status = code,
            Err((code, why)) => {
                status = code;
                problems.push(why.to_string());
            }
        }
    }
    shared.record(super::AsExchange {
        method: "FETCH".into(),
        path: id.to_owned(),
        params: problems.iter().map(|p| ("problem".to_owned(), p.clone())).collect(),
        auth_scheme: None,
        status,
        at: Instant::now(),
    });
    if !problems.is_empty() {
        let why = format!("the client ID metadata document: {}", problems.join("; "));
        return Err(oauth_error(StatusCode::BAD_REQUEST, "invalid_client", &why));
    }
    let mut st = shared.lock();
    if st.clients.len() < shared.options.max_entries {
        let client = RegisteredClient {
            client_id: id.to_owned(),
            client_secret: None,
            redirect_uris,
            auth: ClientAuth::None,
        };
        st.clients.insert(id.to_owned(), client);
    }
    Ok(())
}

/// Why a client ID metadata document was not had.
enum Unfetched {
    /// Not fetched, or not all of it: why.
    Failed(String),
    /// Its body is not JSON.
    NotJson(String),
}

impl std::fmt::Display for Unfetched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unfetched::Failed(why) => f.write_str(why),
            Unfetched::NotJson(e) => write!(f, "it is not JSON: {e}"),
        }
    }
}

/// GETs a client ID metadata document, trusting `roots` (PEM) beyond the system's
/// certificates: its status and JSON, or the status (0: none) and why not.
async fn fetch_document(url: &str, roots: &[String]) -> Result<(u16, Value), (u16, Unfetched)> {
    let failed = |status: u16, why: String| (status, Unfetched::Failed(why));
    let mut certs = Vec::new();
    for pem in roots {
        let cert = reqwest::Certificate::from_pem(pem.as_bytes())
            .map_err(|e| failed(0, format!("a trusted certificate is not PEM: {e}")))?;
        certs.push(cert);
    }
    let client = crate::transport::http_client::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(DOCUMENT_TIMEOUT)
        .tls_certs_merge(certs)
        .build()
        .map_err(|e| failed(0, format!("no HTTP client: {e}")))?;
    let r = client.get(url).header("accept", "application/json").send().await;
    let r = r.map_err(|e| failed(0, format!("it could not be fetched: {e}")))?;
    let status = r.status().as_u16();
    if !r.status().is_success() {
        return Err(failed(status, format!("fetching it answered HTTP {status}")));
    }
    let body = r.bytes().await.map_err(|e| failed(status, format!("its body did not arrive: {e}")))?;
    if body.len() > DOCUMENT_LIMIT {
        return Err(failed(status, format!("it is larger than {DOCUMENT_LIMIT} bytes")));
    }
    serde_json::from_slice(&body)
        .map(|v| (status, v))
        .map_err(|e| (status, Unfetched::NotJson(e.to_string())))
}

/// A failed client authentication: `invalid_client`, with a `Basic` challenge when the client
/// tried Basic (RFC 6749 §5.2).
struct Unauthenticated {
    basic: bool,
}

impl Unauthenticated {
    fn response(self) -> Response {
        let mut r = oauth_error(StatusCode::UNAUTHORIZED, "invalid_client", "client authentication failed");
        if self.basic {
            r.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Basic"));
        }
        r
    }
}

/// Who the token request comes from (RFC 6749 §2.3.1), checked against how the client
/// registered.
fn authenticate(
    shared: &Shared,
    headers: &HeaderMap,
    form: &[(String, String)],
) -> Result<RegisteredClient, Unauthenticated> {
    let refuse = |basic: bool| Err(Unauthenticated { basic });
    let basic = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Basic "))
        .map(|b64| {
            let raw = base64::engine::general_purpose::STANDARD.decode(b64.trim()).unwrap_or_default();
            let raw = String::from_utf8_lossy(&raw).into_owned();
            let (id, secret) = raw.split_once(':').unwrap_or((&raw, ""));
            let decode = |s: &str| {
                url::form_urlencoded::parse(format!("x={s}").as_bytes()).next().map(|(_, v)| v.into_owned())
            };
            (decode(id).unwrap_or_default(), decode(secret).unwrap_or_default())
        });
    let (id, secret, method) = match (&basic, param(form, "client_secret")) {
        (Some((id, secret)), None) => (id.clone(), Some(secret.clone()), ClientAuth::Basic),
        (None, Some(secret)) => (
            param(form, "client_id").unwrap_or_default().to_owned(),
            Some(secret.to_owned()),
            ClientAuth::Post,
        ),
        (None, None) => (param(form, "client_id").unwrap_or_default().to_owned(), None, ClientAuth::None),
        // Two methods at once (RFC 6749 §2.3: MUST NOT).
        (Some(_), Some(_)) => return refuse(true),
    };
    let Some(client) = shared.lock().clients.get(&id).cloned() else { return refuse(basic.is_some()) };
    if client.auth != method || client.client_secret != secret {
        return refuse(basic.is_some());
    }
    Ok(client)
}

fn issue(
    shared: &Shared,
    client: &RegisteredClient,
    scopes: Vec<String>,
    resource: Option<String>,
    refresh: Option<String>,
) -> Response {
    // No `resource`: the token names the issuer as its audience, which no MCP server accepts
    // (RFC 8707), as a client that omitted it deserves.
    let audience = match &resource {
        Some(r) if !shared.fault(AsFault::IgnoresResource) => r.clone(),
        _ => shared.issuer.clone(),
    };
    let token = match shared.minter.issue(&audience, &scopes, &client.client_id) {
        Ok(t) => t,
        Err(_) => return oauth_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", "signing failed"),
    };
    let refresh = match refresh {
        Some(r) => Some(r),
        // The server's discretion (2026-07-28 `#refresh-tokens`: clients must not assume one).
        None if !shared.options.refresh_tokens => None,
        None => match random_string(&shared.rng, 24) {
            Ok(r) => {
                let mut st = shared.lock();
                if st.refresh_order.len() >= shared.options.max_entries {
                    if let Some(old) = st.refresh_order.pop_front() {
                        st.refresh.remove(&old);
                    }
                }
                st.refresh.insert(
                    r.clone(),
                    Refresh { client_id: client.client_id.clone(), scopes: scopes.clone(), resource },
                );
                st.refresh_order.push_back(r.clone());
                Some(r)
            }
            Err(_) => return oauth_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", "no randomness"),
        },
    };
    let mut body = json!({
        "access_token": token,
        "token_type": "Bearer",
        "expires_in": shared.options.token_lifetime.as_secs(),
    });
    if let Some(r) = refresh {
        body["refresh_token"] = json!(r);
    }
    if !scopes.is_empty() {
        body["scope"] = json!(scopes.join(" "));
    }
    json_response(StatusCode::OK, &body)
}

/// POST /token.
pub(super) fn token(shared: &Shared, headers: &HeaderMap, form: &[(String, String)]) -> Response {
    let client = match authenticate(shared, headers, form) {
        Ok(c) => c,
        Err(refused) => return refused.response(),
    };
    let invalid_grant = |d: &str| oauth_error(StatusCode::BAD_REQUEST, "invalid_grant", d);
    match param(form, "grant_type") {
        Some("authorization_code") => {
            let Some(code) = param(form, "code") else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "code is missing");
            };
            let mut st = shared.lock();
            let Some(grant) = st.codes.get_mut(code) else { return invalid_grant("unknown code") };
            if grant.used && !shared.fault(AsFault::ReusableCode) {
                return invalid_grant("code already used");
            }
            grant.used = true;
            if grant.expires < Instant::now() {
                return invalid_grant("code expired");
            }
            if grant.client_id != client.client_id {
                return invalid_grant("code issued to another client");
            }
            let same_redirect = param(form, "redirect_uri").is_none_or(|r| r == grant.redirect_uri);
            if !same_redirect && !shared.fault(AsFault::IgnoresRedirectUri) {
                return invalid_grant("redirect_uri differs from the authorization request's");
            }
            let verified =
                param(form, "code_verifier").is_some_and(|v| pkce::verify(v, &grant.challenge, "S256"));
            if !verified && !shared.fault(AsFault::IgnoresVerifier) {
                return invalid_grant("code_verifier does not match the code_challenge");
            }
            let resource = match (param(form, "resource"), &grant.resource) {
                (Some(r), Some(g)) if r != g => {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_target",
                        "resource differs from the authorization request's",
                    )
                }
                (Some(r), _) => Some(r.to_owned()),
                (None, g) => g.clone(),
            };
            let scopes = grant.scopes.clone();
            drop(st);
            issue(shared, &client, scopes, resource, None)
        }
        Some("refresh_token") => {
            let Some(presented) = param(form, "refresh_token") else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_request", "refresh_token is missing");
            };
            let mut st = shared.lock();
            let Some(grant) = st.refresh.get(presented) else {
                return invalid_grant("unknown refresh_token");
            };
            if grant.client_id != client.client_id {
                return invalid_grant("refresh_token issued to another client");
            }
            let scopes = match param(form, "scope").map(split_scope) {
                Some(asked) if asked.iter().any(|s| !grant.scopes.contains(s)) => {
                    return oauth_error(
                        StatusCode::BAD_REQUEST,
                        "invalid_scope",
                        "scope exceeds the original grant",
                    )
                }
                Some(asked) => asked,
                None => grant.scopes.clone(),
            };
            let resource = param(form, "resource").map(str::to_owned).or_else(|| grant.resource.clone());
            // OAuth 2.1 §4.3.1: a public client's refresh token is single-use.
            let rotate = client.auth == ClientAuth::None && !shared.fault(AsFault::NoRefreshRotation);
            let keep = if rotate {
                st.refresh.remove(presented);
                None
            } else {
                Some(presented.to_owned())
            };
            drop(st);
            issue(shared, &client, scopes, resource, keep)
        }
        _ => oauth_error(
            StatusCode::BAD_REQUEST,
            "unsupported_grant_type",
            "grant_type must be authorization_code or refresh_token",
        ),
    }
}

/// Whether a redirect URI is one MCP allows: https, or http to loopback
/// (`basic/authorization.mdx#communication-security`), without a fragment.
fn redirect_allowed(uri: &str) -> bool {
    url::Url::parse(uri).is_ok_and(|u| {
        u.fragment().is_none() && (u.scheme() == "https" || (u.scheme() == "http" && is_loopback(&u)))
    })
}

/// The registration request's members a client is judged by, as logged parameters: each
/// redirect URI, the `application_type` and the `token_endpoint_auth_method`.
pub(super) fn registration_params(body: &[u8]) -> Vec<(String, String)> {
    let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(body) else { return Vec::new() };
    let uris = m.get("redirect_uris").and_then(Value::as_array).into_iter().flatten();
    let mut out: Vec<(String, String)> =
        uris.filter_map(Value::as_str).map(|u| ("redirect_uris".to_owned(), u.to_owned())).collect();
    for name in ["application_type", "token_endpoint_auth_method"] {
        if let Some(v) = m.get(name).and_then(Value::as_str) {
            out.push((name.to_owned(), v.to_owned()));
        }
    }
    out
}

/// POST /register (RFC 7591 §3.1-3.2).
pub(super) fn register(shared: &Shared, body: &[u8]) -> Response {
    let bad = |error: &str, d: &str| oauth_error(StatusCode::BAD_REQUEST, error, d);
    let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(body) else {
        return bad("invalid_client_metadata", "the body is not a JSON object");
    };
    let uris: Vec<String> = match m.get("redirect_uris").and_then(Value::as_array) {
        Some(a) if !a.is_empty() => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => return bad("invalid_redirect_uri", "redirect_uris must be a non-empty array"),
    };
    if uris.iter().any(|u| !redirect_allowed(u)) {
        return bad("invalid_redirect_uri", "a redirect URI is neither https nor http to loopback");
    }
    if shared.fault(AsFault::RefusesRedirectUris) {
        return bad(
            "invalid_redirect_uri",
            "the redirect URIs do not meet this server's constraints for the application_type",
        );
    }
    // RFC 7591 §2: client_secret_basic when the client names none; a method the token
    // endpoint does not take is replaced by the first it does (§3.2.1), and the response says so.
    let method = m.get("token_endpoint_auth_method").and_then(Value::as_str).unwrap_or("client_secret_basic");
    let offered = &shared.options.token_auth_methods;
    let Some(auth) =
        ClientAuth::from_name(method).filter(|a| offered.contains(a)).or(offered.first().copied())
    else {
        return bad("invalid_client_metadata", "token_endpoint_auth_method is not supported");
    };
    let (Ok(id), Ok(secret)) = (random_string(&shared.rng, 12), random_string(&shared.rng, 24)) else {
        return oauth_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", "no randomness");
    };
    let secret = (auth != ClientAuth::None).then_some(secret);
    let mut st = shared.lock();
    if st.clients.len() >= shared.options.max_entries {
        return oauth_error(
            StatusCode::SERVICE_UNAVAILABLE,
            "temporarily_unavailable",
            "too many clients registered",
        );
    }
    let client =
        RegisteredClient { client_id: id.clone(), client_secret: secret.clone(), redirect_uris: uris, auth };
    st.clients.insert(id, client.clone());
    drop(st);
    let mut out = m.clone();
    if !shared.fault(AsFault::RegistrationWithoutClientId) {
        out.insert("client_id".into(), json!(client.client_id));
    }
    out.insert("client_id_issued_at".into(), json!(super::tokens::now()));
    out.insert("redirect_uris".into(), json!(client.redirect_uris));
    out.insert("token_endpoint_auth_method".into(), json!(auth.name()));
    out.entry("grant_types").or_insert(json!(["authorization_code", "refresh_token"]));
    out.entry("response_types").or_insert(json!(["code"]));
    if let Some(s) = secret {
        out.insert("client_secret".into(), json!(s));
        out.insert("client_secret_expires_at".into(), json!(0));
    }
    json_response(StatusCode::CREATED, &Value::Object(out))
}
