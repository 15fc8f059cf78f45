//! Requests to an OAuth-protected server outside any session (`basic/authorization.mdx`): how
//! mcpspec authenticates ([`AuthSetup`]: a token the user gave, or tokens it mints as the
//! issuer), the first request a client makes without a token, a token presented (valid,
//! flawed, tampered, in the query string), and the discovery of the protected resource metadata
//! (RFC 9728) and of each authorization server's metadata (RFC 8414, OpenID Connect) in the
//! order the revision gives ([`mcpspec_protocol::auth::discovery`]), and, at 2025-03-26, what
//! the endpoints of the code flow answer ([`try_endpoint`]). What these requests show is judged
//! by the authorization scenarios' steps.
//!
//! Tokens are secrets: nothing here puts one in a description, and the run's redactor is told
//! of every token mcpspec mints before it is used.

use mcpspec_protocol::auth::challenge::ChallengeError;
use mcpspec_protocol::auth::discovery::{as_metadata_urls, prm_urls, EndpointAnswer};
use mcpspec_protocol::auth::{
    AuthorizationServerMetadata, BearerChallenge, CanonicalResource, ProtectedResourceMetadata,
};
use mcpspec_protocol::{modern, Era, Revision};
use mcpspec_reference::auth::{AuthorizationServer, TokenFlaw};
use mcpspec_reference::transport::http_client::oneshot::{oneshot, RawRequest, RawResponse};
use mcpspec_reference::transport::http_client::{Flavor, HttpClientOptions};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use url::Url;

/// The largest metadata document or error body read.
const MAX_BODY: usize = 256 * 1024;
/// Authorization servers of one PRM looked at, at most.
const MAX_AUTHORIZATION_SERVERS: usize = 4;

/// How mcpspec authenticates to the server under test.
#[derive(Default, Clone)]
pub struct AuthSetup {
    /// The token every session presents: `--auth-token`, or minted with `--auth-issuer`.
    pub token: Option<String>,
    /// mcpspec's own authorization server (`--auth-issuer`), which mints the flawed tokens.
    pub issuer: Option<Arc<AuthorizationServer>>,
    /// The audience of minted tokens: the server's canonical URI.
    pub audience: Option<String>,
    /// The scopes a valid minted token carries: the PRM's and the challenge's.
    pub scopes: Vec<String>,
}

impl std::fmt::Debug for AuthSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthSetup")
            .field("token", &self.token.as_ref().map(|_| "[redacted]"))
            .field("issuer", &self.issuer.as_ref().map(|i| i.issuer().to_owned()))
            .field("audience", &self.audience)
            .field("scopes", &self.scopes)
            .finish()
    }
}

impl AuthSetup {
    /// Whether mcpspec was told the server is protected (it has a token to present).
    pub fn asserted(&self) -> bool {
        self.token.is_some() || self.issuer.is_some()
    }

    /// A token with `flaw`, minted by mcpspec's authorization server (`None` without one).
    pub fn mint(&self, flaw: TokenFlaw) -> Option<String> {
        let issuer = self.issuer.as_ref()?;
        let audience = self.audience.as_deref()?;
        let token = issuer.minter().mint(flaw, audience, &self.scopes, "mcpspec").ok()?;
        crate::report::redact::add(&token);
        Some(token)
    }
}

/// The first request a client makes, without credentials: an `initialize` (or, in the modern
/// era, a `server/discover`) POSTed over Streamable HTTP, the SSE GET over HTTP+SSE. The run's
/// own headers go with it, except `Authorization`.
pub fn first_request(options: &HttpClientOptions, revision: Revision) -> RawRequest {
    let mut headers: Vec<(String, String)> = options
        .headers
        .iter()
        .filter(|(k, _)| k.as_str() != "authorization")
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    if options.flavor == Flavor::LegacySse {
        headers.push(("accept".into(), "text/event-stream".into()));
        return RawRequest { method: "GET", url: options.url.clone(), headers, body: None };
    }
    headers.push(("accept".into(), "application/json, text/event-stream".into()));
    headers.push(("content-type".into(), "application/json".into()));
    let client_info = json!({ "name": "mcpspec", "version": env!("CARGO_PKG_VERSION") });
    let body = match revision.era() {
        Era::Legacy => json!({
            "jsonrpc": "2.0", "id": "mcpspec-auth", "method": "initialize",
            "params": { "protocolVersion": revision.as_str(), "capabilities": {}, "clientInfo": client_info },
        }),
        Era::Modern => {
            let meta = modern::request_meta(modern::wire_version(revision), &json!({}), Some(&client_info));
            json!({
                "jsonrpc": "2.0", "id": "mcpspec-auth", "method": "server/discover",
                "params": modern::with_request_meta(None, &meta),
            })
        }
    };
    if let Some(h) = mcpspec_reference::transport::http_client::modern_request_headers(&body) {
        headers.extend(h);
    }
    RawRequest { method: "POST", url: options.url.clone(), headers, body: Some(body.to_string()) }
}

/// `request` with `Authorization: Bearer token`.
pub fn with_bearer(mut request: RawRequest, token: &str) -> RawRequest {
    request.headers.push(("authorization".into(), format!("Bearer {token}")));
    request
}

/// `request` with `access_token=token` in its query (RFC 6750 §2.3), and no header.
pub fn with_query_token(mut request: RawRequest, token: &str) -> RawRequest {
    request.url.query_pairs_mut().append_pair("access_token", token);
    request
}

/// A copy of a JWT whose payload says something else (`sub` changed), under the same header
/// and signature: only checking the signature tells it apart. A token that is not a JWT gets one
/// character of its middle changed.
pub fn tamper(token: &str) -> String {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    if let [head, payload, signature] = token.split('.').collect::<Vec<_>>().as_slice() {
        let claims = URL_SAFE_NO_PAD.decode(payload).ok().and_then(|b| serde_json::from_slice(&b).ok());
        if let Some(serde_json::Value::Object(mut claims)) = claims {
            let sub = claims.get("sub").and_then(|s| s.as_str()).unwrap_or("").to_owned();
            claims.insert("sub".into(), json!(format!("{sub}-tampered")));
            let payload = URL_SAFE_NO_PAD.encode(serde_json::Value::Object(claims).to_string());
            return format!("{head}.{payload}.{signature}");
        }
    }
    let mut bytes = token.as_bytes().to_vec();
    if let Some(b) = bytes.get_mut(token.len() / 2) {
        *b = if *b == b'A' { b'B' } else { b'A' };
    }
    String::from_utf8(bytes).unwrap_or_default()
}

/// What a server answered to a request of an authorization scenario.
#[derive(Debug, Clone)]
pub struct Answer {
    pub response: RawResponse,
    /// The `Bearer` challenge of its `WWW-Authenticate` headers: `Ok(None)` when there is
    /// none (or none with the `Bearer` scheme), `Err` when the header cannot be read.
    pub challenge: Result<Option<BearerChallenge>, ChallengeError>,
}

impl Answer {
    pub fn status(&self) -> u16 {
        self.response.status
    }

    /// `401, WWW-Authenticate: Bearer …`: the status and the challenge (neither holds a secret).
    pub fn describe(&self) -> String {
        let values = self.response.header_values("www-authenticate");
        match values.is_empty() {
            true => format!("HTTP {} without WWW-Authenticate", self.status()),
            false => format!("HTTP {}, WWW-Authenticate: {}", self.status(), values.join(" | ")),
        }
    }
}

/// Sends `request` and reads the challenge of its answer.
pub async fn send(request: &RawRequest, within: Duration) -> Result<Answer, String> {
    let response = oneshot(request, within, MAX_BODY).await?;
    let values = response.header_values("www-authenticate");
    let challenge = if values.is_empty() { Ok(None) } else { BearerChallenge::find(&values) };
    Ok(Answer { response, challenge })
}

/// A metadata document looked for: every URL tried with what it gave, and the first found.
#[derive(Debug, Clone)]
pub struct Discovery<T> {
    pub tried: Vec<String>,
    /// Where the document was, and it parsed (or why it did not).
    pub found: Option<(Url, Result<T, String>)>,
    /// The challenge named a `resource_metadata` URL that gave no document.
    pub challenge_url_failed: bool,
}

impl<T> Discovery<T> {
    /// `GET url → 404; GET url → 200`.
    pub fn describe(&self) -> String {
        if self.tried.is_empty() {
            return "no URL to try".into();
        }
        self.tried.join("; ")
    }

    /// The document, if one was found and parsed.
    pub fn document(&self) -> Option<&T> {
        self.found.as_ref().and_then(|(_, d)| d.as_ref().ok())
    }
}

/// GETs each URL in turn until one answers 200 with a JSON object, parsed with `parse`. With
/// `version`, each request says `MCP-Protocol-Version` (2025-03-26's server metadata discovery:
/// clients SHOULD, so that a server may answer per revision,
/// `#server-metadata-discovery-headers`).
pub(crate) async fn look<T>(
    urls: impl IntoIterator<Item = Url>,
    version: Option<Revision>,
    within: Duration,
    parse: impl Fn(&serde_json::Value) -> Result<T, String>,
) -> Discovery<T> {
    let mut out = Discovery { tried: Vec::new(), found: None, challenge_url_failed: false };
    for url in urls {
        let mut headers = vec![("accept".to_owned(), "application/json".to_owned())];
        if let Some(v) = version {
            headers.push(("mcp-protocol-version".into(), v.as_str().into()));
        }
        let request = RawRequest { method: "GET", url: url.clone(), headers, body: None };
        match oneshot(&request, within, MAX_BODY).await {
            Ok(r) if r.status == 200 => match r.json() {
                Some(v) if v.is_object() => {
                    out.tried.push(format!("GET {url} → 200"));
                    out.found = Some((url, parse(&v)));
                    return out;
                }
                _ => out.tried.push(format!("GET {url} → 200, but not a JSON object")),
            },
            Ok(r) => out.tried.push(format!("GET {url} → {}", r.status)),
            Err(e) => out.tried.push(e),
        }
    }
    out
}

/// The PRM of the MCP endpoint `endpoint`: at the challenge's `resource_metadata` first, then
/// at the revision's well-known URLs.
pub async fn find_prm(
    revision: Revision,
    endpoint: &Url,
    challenge: Option<&BearerChallenge>,
    within: Duration,
) -> Discovery<ProtectedResourceMetadata> {
    let parse = |v: &serde_json::Value| ProtectedResourceMetadata::from_json(v).map_err(|e| e.to_string());
    let named = challenge.and_then(|c| c.resource_metadata.as_deref());
    let mut failed = false;
    let mut tried = Vec::new();
    if let Some(text) = named {
        match Url::parse(text) {
            Ok(url) => {
                let d = look([url], None, within, parse).await;
                if d.found.is_some() {
                    return d;
                }
                tried = d.tried;
            }
            Err(e) => tried.push(format!("resource_metadata {text:?} is not a URL: {e}")),
        }
        failed = true;
    }
    let mut d = look(prm_urls(revision, endpoint), None, within, parse).await;
    tried.append(&mut d.tried);
    d.tried = tried;
    d.challenge_url_failed = failed;
    d
}

/// The metadata of the authorization server `issuer`, at the revision's URLs in its order, and
/// the rules it breaks for that issuer.
pub async fn find_as_metadata(
    revision: Revision,
    issuer: &str,
    within: Duration,
) -> Discovery<AuthorizationServerMetadata> {
    let Ok(url) = Url::parse(issuer) else {
        let tried = vec![format!("the authorization server {issuer:?} is not a URL")];
        return Discovery { tried, found: None, challenge_url_failed: false };
    };
    let parse = |v: &serde_json::Value| AuthorizationServerMetadata::from_json(v).map_err(|e| e.to_string());
    // 2025-03-26 names no order for an issuer (the server's origin is the base URL): RFC 8414.
    let urls = match as_metadata_urls(revision.max(Revision::V2025_06_18), &url) {
        v if v.is_empty() => Vec::new(),
        v => v.into_iter().map(|m| m.url).collect(),
    };
    look(urls, None, within, parse).await
}

/// The authorization servers of a PRM mcpspec looks at (the first few).
pub fn authorization_servers(prm: &ProtectedResourceMetadata) -> &[String] {
    let n = prm.authorization_servers.len().min(MAX_AUTHORIZATION_SERVERS);
    &prm.authorization_servers[..n]
}

/// Where the browser would return, in the requests of [`try_endpoint`]: never fetched.
const NOWHERE_REDIRECT: &str = "http://127.0.0.1:1/mcpspec-callback";

/// What the endpoint `member` (an RFC 8414 member name) of the code flow at `url` answers a
/// client that holds nothing, as [`mcpspec_protocol::auth::discovery::endpoint_problem`] asks:
/// the authorization endpoint a GET without parameters, the token endpoint a code grant with a
/// code never issued, the registration endpoint a public client's registration (RFC 7591 §3.1:
/// a client may be registered, as any client's first step; its secret, if any, is redacted).
/// Redirects are not followed.
pub async fn try_endpoint(member: &str, url: &Url, within: Duration) -> Result<EndpointAnswer, String> {
    use mcpspec_protocol::auth::grant::{form, public_client_metadata};
    let accept = ("accept".to_owned(), "application/json".to_owned());
    let (method, headers, body) = match member {
        "authorization_endpoint" => {
            ("GET", vec![("accept".into(), "text/html, application/json".into())], None)
        }
        "token_endpoint" => {
            let pairs = [
                ("grant_type", "authorization_code"),
                ("code", "mcpspec-code-never-issued"),
                ("redirect_uri", NOWHERE_REDIRECT),
                ("client_id", "mcpspec-never-registered"),
                ("code_verifier", "mcpspec-verifier-of-no-request-0123456789abcdef"),
            ];
            let content = ("content-type".to_owned(), "application/x-www-form-urlencoded".to_owned());
            ("POST", vec![content, accept], Some(form(&pairs)))
        }
        "registration_endpoint" => {
            let content = ("content-type".to_owned(), "application/json".to_owned());
            let body = public_client_metadata("mcpspec", NOWHERE_REDIRECT).to_string();
            ("POST", vec![content, accept], Some(body))
        }
        other => return Err(format!("no endpoint {other:?} of the code flow")),
    };
    let request = RawRequest { method, url: url.clone(), headers, body };
    let r = oneshot(&request, within, MAX_BODY).await?;
    let body = r.json().filter(serde_json::Value::is_object).unwrap_or_default();
    if let Some(secret) = body.get("client_secret").and_then(|s| s.as_str()) {
        crate::report::redact::add(secret);
    }
    Ok(EndpointAnswer {
        status: r.status,
        error: body.get("error").and_then(|e| e.as_str()).map(str::to_owned),
        client_id: body.get("client_id").and_then(|c| c.as_str()).is_some_and(|c| !c.is_empty()),
    })
}

/// With mcpspec as the issuer: what a valid token carries for the server at `options.url`, learnt
/// the way a client learns it (the challenge, then the PRM), and the token itself.
pub async fn as_issuer(
    issuer: Arc<AuthorizationServer>,
    options: &HttpClientOptions,
    within: Duration,
) -> AuthSetup {
    let revision = Revision::V2025_11_25;
    let audience = CanonicalResource::of_endpoint(&options.url).map(|c| c.to_string()).ok();
    let mut scopes: Vec<String> = Vec::new();
    let challenge = match send(&first_request(options, revision), within).await {
        Ok(a) => a.challenge.ok().flatten(),
        Err(_) => None,
    };
    if let Some(s) = challenge.as_ref().and_then(|c| c.scope.as_deref()) {
        scopes.extend(mcpspec_protocol::auth::split_scope(s));
    }
    let prm = find_prm(revision, &options.url, challenge.as_ref(), within).await;
    if let Some(supported) = prm.document().and_then(|p| p.scopes_supported.clone()) {
        scopes.extend(supported);
    }
    scopes.sort();
    scopes.dedup();
    let mut setup = AuthSetup { token: None, issuer: Some(issuer), audience, scopes };
    setup.token = setup.mint(TokenFlaw::None);
    setup
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tampered_jwt_differs_in_its_payload_only() {
        use base64::Engine as _;
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        let t = format!("{}.{}.sig", b64(r#"{"alg":"ES256"}"#), b64(r#"{"sub":"u","aud":"x"}"#));
        let x = tamper(&t);
        let parts: Vec<&str> = x.split('.').collect();
        assert_eq!((parts[0], parts[2]), (t.split('.').next().unwrap(), "sig"));
        let claims: serde_json::Value = serde_json::from_slice(
            &base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(parts[1]).unwrap(),
        )
        .unwrap();
        assert_eq!(claims, json!({"sub": "u-tampered", "aud": "x"}));
        assert_ne!(tamper("opaque-token"), "opaque-token");
    }

    #[test]
    fn first_requests_per_transport_and_era() {
        let url = Url::parse("http://127.0.0.1:1/mcp").unwrap();
        let mut o = HttpClientOptions::new(url, Flavor::Streamable);
        o.headers.push((
            mcpspec_reference::transport::http_client::HeaderName::from_static("authorization"),
            mcpspec_reference::transport::http_client::HeaderValue::from_static("Bearer secret"),
        ));
        let legacy = first_request(&o, Revision::V2025_11_25);
        assert_eq!(legacy.method, "POST");
        assert!(legacy.body.as_deref().unwrap().contains("\"initialize\""));
        assert!(!legacy.headers.iter().any(|(k, _)| k == "authorization"), "sent without the token");
        let m = first_request(&o, Revision::V2026_07_28);
        assert!(m.body.as_deref().unwrap().contains("server/discover"));
        assert!(m.headers.iter().any(|(k, v)| k == "mcp-method" && v == "server/discover"));
        o.flavor = Flavor::LegacySse;
        assert_eq!(first_request(&o, Revision::V2025_03_26).method, "GET");
        assert!(!format!("{:?}", with_bearer(legacy, "secret")).contains("secret"));
    }
}
