//! mcpspec as the OAuth client of an authorization server under test (`mcpspec
//! authorization`): where the server is and who mcpspec is to it ([`AsTarget`]), its metadata
//! found the way the revision says ([`discover`]), a client registered through dynamic client
//! registration (RFC 7591, [`register`]) or given, the authorization request sent without
//! following the redirect (the headless contract: the code is read from the 302's `Location`,
//! [`authorize`]) and token requests ([`token`]). Client ID metadata documents mcpspec names
//! itself by are served from the run's https host on loopback ([`serve_document`]). The documents' and responses' rules are the
//! protocol crate's (`mcpspec_protocol::auth`); what these requests show is judged by the
//! authorization-server scenarios' steps.
//!
//! Codes, verifiers, tokens and client secrets are told to the run's redactor as soon as mcpspec
//! holds them, and no description here contains one.

use crate::session::server::auth::{look, Discovery};
use mcpspec_protocol::auth::discovery::{
    as_metadata_urls, default_endpoint_2025_03_26, metadata_url_2025_03_26,
};
use mcpspec_protocol::auth::grant::{
    form, public_client_metadata, AuthorizationRequest, AuthorizationResponse, RedirectElsewhere,
    RegistrationResponse, TokenResponse,
};
use mcpspec_protocol::auth::{client_id, AuthorizationServerMetadata, PkceVerifier};
use mcpspec_protocol::Revision;
use mcpspec_reference::auth::documents::DocumentHost;
use mcpspec_reference::transport::http_client::oneshot::{oneshot, RawRequest, RawResponse};
use std::time::Duration;
use url::Url;

/// The largest answer read from the authorization server.
const MAX_BODY: usize = 256 * 1024;

/// A client the user registered beforehand (`--client-id`, `--client-secret`).
#[derive(Clone)]
pub struct GivenClient {
    pub client_id: String,
    pub client_secret: Option<String>,
}

impl std::fmt::Debug for GivenClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GivenClient").field("client_id", &self.client_id).finish_non_exhaustive()
    }
}

/// The authorization server under test and what mcpspec presents to it.
#[derive(Debug, Clone)]
pub struct AsTarget {
    /// The issuer identifier as given: what the metadata's `issuer` and RFC 9207's `iss` must
    /// equal, character for character (a parsed URL may gain a `/`).
    pub issuer_id: String,
    /// The issuer, parsed: where the well-known URLs are built from.
    pub issuer: Url,
    pub client: Option<GivenClient>,
    /// Where the authorization endpoint sends the browser back: never fetched, read from the
    /// redirect (a pre-registered client must have registered it).
    pub redirect_uri: String,
    /// RFC 8707: the MCP server the tokens are asked for (MCP clients always send it).
    pub resource: String,
    /// The scope asked for, if any.
    pub scope: Option<String>,
    /// The https host of the client ID metadata documents mcpspec names itself by.
    pub documents: Option<std::sync::Arc<DocumentHost>>,
}

/// A client ID metadata document mcpspec serves, and the flaw it carries
/// (`basic/authorization.mdx#implementation-requirements`: an authorization server checks each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentFlaw {
    /// None: the control, a document the server should take.
    Valid,
    /// Its `client_id` is another URL than its own.
    ClientIdNotItsUrl,
    /// Its `redirect_uris` leave out the redirect URI the authorization request presents.
    RedirectUriUnlisted,
    /// Its body is not JSON.
    NotJson,
}

impl DocumentFlaw {
    fn name(self) -> &'static str {
        match self {
            DocumentFlaw::Valid => "valid",
            DocumentFlaw::ClientIdNotItsUrl => "client-id-not-its-url",
            DocumentFlaw::RedirectUriUnlisted => "redirect-uri-unlisted",
            DocumentFlaw::NotJson => "not-json",
        }
    }
}

/// A document served for one request: its URL (the `client_id`) and its path on the host.
#[derive(Debug, Clone)]
pub struct ServedDocument {
    pub url: String,
    pub path: String,
}

/// Serves a document with `flaw` at a path of its own on `host` (never fetched before: no
/// cache answers for it), for a client whose authorization requests present `redirect_uri`.
pub fn serve_document(
    host: &DocumentHost,
    flaw: DocumentFlaw,
    redirect_uri: &str,
) -> Result<ServedDocument, String> {
    let path = format!("/clients/{}/{}.json", state()?, flaw.name());
    let url = format!("{}{path}", host.origin());
    let elsewhere = format!("{}/elsewhere", redirect_uri.trim_end_matches('/'));
    let (content_type, body) = match flaw {
        DocumentFlaw::Valid => ("application/json", client_id::document(&url, "mcpspec", &[redirect_uri])),
        DocumentFlaw::ClientIdNotItsUrl => {
            let other = format!("{}/other.json", url.trim_end_matches(".json"));
            ("application/json", client_id::document(&other, "mcpspec", &[redirect_uri]))
        }
        DocumentFlaw::RedirectUriUnlisted => {
            ("application/json", client_id::document(&url, "mcpspec", &[elsewhere.as_str()]))
        }
        DocumentFlaw::NotJson => {
            let text = format!("client_id: {url}\nclient_name: mcpspec\nredirect_uris: {redirect_uri}\n");
            host.put(&path, "application/json", text);
            return Ok(ServedDocument { url, path });
        }
    };
    host.put(&path, content_type, body.to_string());
    Ok(ServedDocument { url, path })
}

/// How a client authenticates at the token endpoint (RFC 7591 §2 names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    Basic,
    Post,
    /// A public client.
    None,
}

/// The client mcpspec acts as.
#[derive(Clone)]
pub struct Client {
    pub client_id: String,
    pub secret: Option<String>,
    pub auth: ClientAuth,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").field("client_id", &self.client_id).field("auth", &self.auth).finish()
    }
}

impl Client {
    /// A given client: confidential with a secret (Basic unless the server offers only
    /// `client_secret_post`), public without.
    pub fn given(c: &GivenClient, metadata: Option<&AuthorizationServerMetadata>) -> Client {
        let methods =
            metadata.and_then(|m| m.token_endpoint_auth_methods_supported.clone()).unwrap_or_default();
        let auth = match &c.client_secret {
            None => ClientAuth::None,
            Some(_)
                if methods.iter().any(|m| m == "client_secret_post")
                    && !methods.iter().any(|m| m == "client_secret_basic") =>
            {
                ClientAuth::Post
            }
            Some(_) => ClientAuth::Basic,
        };
        Client { client_id: c.client_id.clone(), secret: c.client_secret.clone(), auth }
    }
}

/// The endpoints the code flow uses.
#[derive(Debug, Clone)]
pub struct Endpoints {
    pub authorization: Url,
    pub token: Url,
    pub registration: Option<Url>,
    /// 2025-03-26's default endpoints, assumed for a server without metadata: a 404 at the
    /// default registration endpoint says it offers none, not that its registration is broken.
    pub defaults: bool,
}

/// The authorization server's metadata, looked for at the revision's URLs in its order: from
/// 2025-06-18 RFC 8414 (and, from 2025-11-25, OpenID Connect Discovery) for the issuer;
/// 2025-03-26 looks at the issuer's origin (`#authorization-base-url`), saying its revision in
/// `MCP-Protocol-Version` (`#server-metadata-discovery-headers`).
pub async fn discover(
    revision: Revision,
    issuer: &Url,
    within: Duration,
) -> Discovery<AuthorizationServerMetadata> {
    let parse = |v: &serde_json::Value| AuthorizationServerMetadata::from_json(v).map_err(|e| e.to_string());
    let (urls, version): (Vec<Url>, _) = if revision < Revision::V2025_06_18 {
        (vec![metadata_url_2025_03_26(issuer)], Some(revision))
    } else {
        (as_metadata_urls(revision, issuer).into_iter().map(|m| m.url).collect(), None)
    };
    look(urls, version, within, parse).await
}

/// The endpoints of the flow: the metadata's, or — at 2025-03-26 without metadata — the
/// default ones (`#fallbacks-for-servers-without-metadata-discovery`). `Err` says what is
/// missing.
pub fn endpoints(
    revision: Revision,
    issuer: &Url,
    metadata: Option<&AuthorizationServerMetadata>,
) -> Result<Endpoints, String> {
    let parse = |member: &str, v: &Option<String>| -> Result<Url, String> {
        let v = v.as_deref().ok_or_else(|| format!("the metadata has no {member}"))?;
        Url::parse(v).map_err(|e| format!("the metadata's {member} {v:?} is not a URL: {e}"))
    };
    match metadata {
        Some(m) => Ok(Endpoints {
            authorization: parse("authorization_endpoint", &m.authorization_endpoint)?,
            token: parse("token_endpoint", &m.token_endpoint)?,
            registration: m.registration_endpoint.as_deref().and_then(|r| Url::parse(r).ok()),
            defaults: false,
        }),
        None if revision < Revision::V2025_06_18 => {
            let default = |member| default_endpoint_2025_03_26(issuer, member).ok_or("no default endpoint");
            Ok(Endpoints {
                authorization: default("authorization_endpoint")?,
                token: default("token_endpoint")?,
                registration: default("registration_endpoint").ok(),
                defaults: true,
            })
        }
        None => Err("no metadata was found, and this revision has no default endpoints".into()),
    }
}

/// Random bytes for a verifier or a `state`.
fn random() -> Result<[u8; 32], String> {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 32];
    ring::rand::SystemRandom::new().fill(&mut bytes).map_err(|_| "no randomness".to_owned())?;
    Ok(bytes)
}

/// A new PKCE verifier, told to the redactor.
pub fn verifier() -> Result<PkceVerifier, String> {
    let v = PkceVerifier::from_random(random()?);
    crate::report::redact::add(v.as_str());
    Ok(v)
}

/// A new `state` value.
pub fn state() -> Result<String, String> {
    use base64::Engine as _;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&random()?[..16]))
}

/// What a registration request got: the HTTP status and the answer read (or what it lacks).
#[derive(Debug)]
pub struct Registered {
    pub status: u16,
    pub response: Result<RegistrationResponse, String>,
}

/// Registers a public client with `redirect_uri` at `endpoint` (RFC 7591 §3.1).
pub async fn register(endpoint: &Url, redirect_uri: &str, within: Duration) -> Result<Registered, String> {
    let body = public_client_metadata("mcpspec", redirect_uri).to_string();
    let request = RawRequest {
        method: "POST",
        url: endpoint.clone(),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "application/json".into()),
        ],
        body: Some(body),
    };
    let r = oneshot(&request, within, MAX_BODY).await?;
    let response = match r.json() {
        Some(v) => RegistrationResponse::from_json(&v),
        None => Err(format!("the answer is not JSON ({})", r.media_type().unwrap_or_default())),
    };
    if let Ok(reg) = &response {
        if let Some(s) = &reg.client_secret {
            crate::report::redact::add(s);
        }
    }
    Ok(Registered { status: r.status, response })
}

impl Registered {
    /// The client registered, when the answer is a registration (RFC 7591 §3.2.1: 201).
    pub fn client(&self) -> Option<Client> {
        let reg = self.response.as_ref().ok().filter(|_| self.status == 201)?;
        let auth = match (reg.token_endpoint_auth_method.as_deref(), &reg.client_secret) {
            (Some("client_secret_post"), Some(_)) => ClientAuth::Post,
            (Some("none"), _) | (_, None) => ClientAuth::None,
            _ => ClientAuth::Basic,
        };
        Some(Client { client_id: reg.client_id.clone(), secret: reg.client_secret.clone(), auth })
    }

    /// `HTTP 201, client_id issued` or what went wrong, without secrets.
    pub fn describe(&self) -> String {
        match &self.response {
            Ok(r) => format!("HTTP {}, client_id {:?}", self.status, r.client_id),
            Err(e) => format!("HTTP {}: {e}", self.status),
        }
    }
}

/// What the authorization endpoint did with a request.
#[derive(Debug)]
pub enum Authorized {
    /// A redirect to the client's redirect URI: a code, or an error response.
    Redirected(AuthorizationResponse),
    /// A login or consent page (a 200 page, or a redirect to the server's own pages): approval
    /// needs a person, so nothing after it can be judged headlessly.
    NeedsApproval(String),
    /// A redirect to a URL that is neither the redirect URI nor the server's own.
    Elsewhere(String),
    /// An error status without a redirect.
    Refused(String),
}

impl Authorized {
    /// The code, when the endpoint redirected with one.
    pub fn code(&self) -> Option<&str> {
        match self {
            Authorized::Redirected(r) => r.code(),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Authorized::Redirected(r) => match r.error() {
                Some(e) => format!("a redirect to the redirect URI with error={e}"),
                None if r.code().is_some() => {
                    let names: Vec<&str> = r.params.iter().map(|(k, _)| k.as_str()).collect();
                    format!("a redirect to the redirect URI with {}", names.join(", "))
                }
                None => "a redirect to the redirect URI without a code or an error".into(),
            },
            Authorized::NeedsApproval(why) => format!("needs a headless approval: {why}"),
            Authorized::Elsewhere(u) => format!("a redirect to {u}, not the redirect URI"),
            Authorized::Refused(why) => why.clone(),
        }
    }
}

/// The request's URL, GET without following redirects, and what the answer was.
pub async fn authorize(
    endpoint: &Url,
    request: &AuthorizationRequest,
    within: Duration,
) -> Result<Authorized, String> {
    let get = RawRequest {
        method: "GET",
        url: request.url(endpoint),
        headers: vec![("accept".into(), "text/html, application/json".into())],
        body: None,
    };
    let r = oneshot(&get, within, MAX_BODY).await?;
    let location = r.header_values("location").first().map(|l| l.to_string());
    Ok(match (r.status, location) {
        (300..=399, Some(location)) => {
            match AuthorizationResponse::from_location(&location, endpoint, &request.redirect_uri) {
                Ok(resp) => {
                    if let Some(code) = resp.code() {
                        crate::report::redact::add(code);
                    }
                    Authorized::Redirected(resp)
                }
                Err(RedirectElsewhere::Elsewhere(u)) if same_origin(&u, endpoint) => {
                    Authorized::NeedsApproval(format!("HTTP {} to the server's own page {u}", r.status))
                }
                Err(RedirectElsewhere::Elsewhere(u)) => Authorized::Elsewhere(u),
                Err(RedirectElsewhere::NotAUrl(l)) => {
                    Authorized::Refused(format!("HTTP {} with a Location that is no URL: {l:?}", r.status))
                }
            }
        }
        (200, _) => Authorized::NeedsApproval(format!(
            "HTTP 200 with {} (a login or consent page)",
            r.media_type().unwrap_or_else(|| "a body".into())
        )),
        (status, _) => Authorized::Refused(format!("HTTP {status}{}", oauth_error(&r))),
    })
}

fn same_origin(u: &str, endpoint: &Url) -> bool {
    Url::parse(u).is_ok_and(|u| u.origin() == endpoint.origin())
}

/// `: error (description)` of an OAuth error body (RFC 6749 §5.2), or nothing.
fn oauth_error(r: &RawResponse) -> String {
    let Some(v) = r.json() else { return String::new() };
    match (v.get("error").and_then(|e| e.as_str()), v.get("error_description").and_then(|e| e.as_str())) {
        (Some(e), Some(d)) => format!(": {e} ({d})"),
        (Some(e), None) => format!(": {e}"),
        _ => String::new(),
    }
}

/// A token endpoint's answer: its status and the token, or why there is none.
#[derive(Debug)]
pub struct TokenAnswer {
    pub status: u16,
    pub token: Result<TokenResponse, String>,
}

impl TokenAnswer {
    /// Whether the endpoint issued a token (2xx with an access token).
    pub fn issued(&self) -> bool {
        (200..300).contains(&self.status) && self.token.is_ok()
    }

    pub fn describe(&self) -> String {
        match &self.token {
            Ok(t) => format!(
                "HTTP {}: a {} access token{}",
                self.status,
                t.token_type,
                if t.refresh_token.is_some() { " and a refresh token" } else { "" }
            ),
            Err(e) => format!("HTTP {}: {e}", self.status),
        }
    }
}

/// POSTs a token request of `pairs` as `client` (its authentication added, RFC 6749 §2.3.1).
pub async fn token(
    endpoint: &Url,
    client: &Client,
    pairs: &[(&str, &str)],
    within: Duration,
) -> Result<TokenAnswer, String> {
    use base64::Engine as _;
    let mut pairs = pairs.to_vec();
    let mut headers = vec![
        ("content-type".into(), "application/x-www-form-urlencoded".into()),
        ("accept".into(), "application/json".into()),
    ];
    let secret = client.secret.clone().unwrap_or_default();
    match client.auth {
        ClientAuth::Basic => {
            let enc = |s: &str| form(&[("x", s)])[2..].to_owned();
            let raw = format!("{}:{}", enc(&client.client_id), enc(&secret));
            let b64 = base64::engine::general_purpose::STANDARD.encode(raw);
            headers.push(("authorization".into(), format!("Basic {b64}")));
        }
        ClientAuth::Post => {
            pairs.push(("client_id", &client.client_id));
            pairs.push(("client_secret", &secret));
        }
        ClientAuth::None => pairs.push(("client_id", &client.client_id)),
    }
    let request = RawRequest { method: "POST", url: endpoint.clone(), headers, body: Some(form(&pairs)) };
    let r = oneshot(&request, within, MAX_BODY).await?;
    let token = if (200..300).contains(&r.status) {
        match r.json() {
            Some(v) => TokenResponse::from_json(&v).map_err(|e| e.to_string()),
            None => Err("the answer is not JSON".into()),
        }
    } else {
        Err(format!("refused{}", oauth_error(&r)))
    };
    if let Ok(t) = &token {
        crate::report::redact::add(&t.access_token);
        if let Some(rt) = &t.refresh_token {
            crate::report::redact::add(rt);
        }
    }
    Ok(TokenAnswer { status: r.status, token })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::auth::grant::AuthorizationRequest;

    #[test]
    fn endpoints_come_from_the_metadata_or_2025_03_26s_defaults() {
        let issuer = Url::parse("http://127.0.0.1:1/tenant").unwrap();
        let e = endpoints(Revision::V2025_03_26, &issuer, None).unwrap();
        assert_eq!(e.token.as_str(), "http://127.0.0.1:1/token");
        assert!(endpoints(Revision::V2025_11_25, &issuer, None).is_err());
        let m = AuthorizationServerMetadata::from_json(&serde_json::json!({
            "issuer": "http://127.0.0.1:1/tenant",
            "authorization_endpoint": "http://127.0.0.1:1/a",
            "response_types_supported": ["code"]
        }))
        .unwrap();
        assert_eq!(
            endpoints(Revision::V2025_11_25, &issuer, Some(&m)).unwrap_err(),
            "the metadata has no token_endpoint"
        );
    }

    #[tokio::test]
    async fn nothing_listening_is_an_error_not_a_panic() {
        let dead = Url::parse("http://127.0.0.1:1/authorize").unwrap();
        let request = AuthorizationRequest {
            client_id: "c".into(),
            redirect_uri: "http://127.0.0.1:9/cb".into(),
            code_challenge: "x".into(),
            state: "s".into(),
            resource: None,
            scope: None,
        };
        assert!(authorize(&dead, &request, Duration::from_secs(2)).await.is_err());
        let client = Client { client_id: "c".into(), secret: Some("s".into()), auth: ClientAuth::Basic };
        assert!(token(&dead, &client, &[("grant_type", "x")], Duration::from_secs(2)).await.is_err());
        assert!(!format!("{client:?}").contains("\"s\""));
    }
}
