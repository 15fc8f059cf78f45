//! The endpoint's protected mode: an OAuth 2.1 resource server in front of the MCP endpoint
//! (`basic/authorization.mdx`, 2025-03-26 on). It serves its protected resource metadata (RFC
//! 9728) at both well-known URLs, answers a request without a token with 401 and a `Bearer`
//! challenge naming `resource_metadata` and the scopes it needs, checks a bearer token's
//! signature against the issuer's JWKS (fetched through the issuer's RFC 8414 metadata, bounded
//! in time and cached), its `iss`, its audience (the endpoint's canonical URI, RFC 8707), its
//! validity period and its scopes (403 `insufficient_scope`), and never takes a token from the
//! query string. At 2025-03-26 the authorization base URL is the endpoint's origin: when the
//! endpoint relays that revision's paths to its authorization server
//! ([`HttpServerOptions::authorization_relay`](super::HttpServerOptions::authorization_relay)),
//! the metadata and the default endpoints answer there ([`at_origin`]). Each `auth-` fault turns
//! exactly one of these rules off.
//!
//! `jsonwebtoken` checks the signature; the claims are checked here one rule at a time, so that
//! each fault can break exactly one.

use super::{Endpoint, Reply};
use crate::faults::Fault;
use crate::transport::http_client::client_builder;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::Response;
use jsonwebtoken::jwk::{Jwk, JwkSet};
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use mcpspec_protocol::auth::discovery::{
    as_metadata_urls, metadata_url_2025_03_26, well_known_inserted, well_known_root,
    DEFAULT_ENDPOINTS_2025_03_26, PRM_SUFFIX,
};
use mcpspec_protocol::auth::{split_scope, BearerChallenge, CanonicalResource};
use mcpspec_protocol::Revision;
use serde_json::{json, Value};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// How long fetching the issuer's metadata and keys may take, and how soon after one fetch
/// another may be made for a key id not yet seen.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);
const REFETCH_AFTER: Duration = Duration::from_secs(2);
/// Clock skew tolerated on `exp` and `nbf`.
const LEEWAY_SECS: u64 = 5;

/// Where the 401 challenge says the protected resource metadata is: each is a correct
/// server's choice, and client scenarios vary it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChallengeMetadata {
    /// `resource_metadata` names the path-inserted well-known URL.
    #[default]
    WellKnown,
    /// `resource_metadata` names a URL no well-known rule gives ([`ELSEWHERE_PRM_PATH`]), where
    /// the metadata is served too: only a client that reads the challenge finds it there.
    Elsewhere,
    /// No `resource_metadata` (2025-11-25 on, the client falls back to the well-known URLs).
    Absent,
}

/// The path of the metadata when the challenge names it [`ChallengeMetadata::Elsewhere`].
pub const ELSEWHERE_PRM_PATH: &str = "/oauth/resource-metadata";

/// What the endpoint trusts and requires.
pub struct Protection {
    issuer: String,
    scopes: Vec<String>,
    /// Scopes required on top of `scopes` once a request has been served: a step-up
    /// (`basic/authorization.mdx#step-up-authorization-flow`).
    step_up: Vec<String>,
    /// Scopes the PRM lists beyond those required (`scopes_supported` is what the server
    /// supports, the challenge what this request needs).
    advertised: Vec<String>,
    /// The PRM's `scopes_supported` leaves out the scopes required: the challenge names scopes
    /// it does not list (`#scope-selection-strategy`: clients assume no set relationship).
    required_unlisted: bool,
    /// A step-up's challenge names only the scopes newly required, not all (2026-07-28: the
    /// client asks for them with those it holds).
    step_up_names_new_only: bool,
    /// The authorization server the resource moves to once a request has been served: from
    /// then on its PRM names this one, and only its tokens are taken
    /// (`#authorization-server-binding`, 2026-07-28).
    migrate_to: Option<String>,
    challenge_metadata: ChallengeMetadata,
    /// The challenge names the scopes required (RFC 6750 §3 `scope`).
    challenge_scope: bool,
    /// Every valid token lacks a scope: 403 `insufficient_scope` for ever, as a client's
    /// step-up retry limit is tested (`#step-up-authorization-flow`).
    never_sufficient: bool,
    /// The PRM's `resource` names another server than this one (RFC 9728 §3.3: a client uses
    /// no such metadata).
    prm_resource: Option<String>,
    served: std::sync::atomic::AtomicUsize,
    keys: tokio::sync::Mutex<(Vec<Jwk>, Option<Instant>)>,
}

impl std::fmt::Debug for Protection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Protection")
            .field("issuer", &self.issuer)
            .field("migrate_to", &self.migrate_to)
            .field("scopes", &self.scopes)
            .field("step_up", &self.step_up)
            .field("challenge_metadata", &self.challenge_metadata)
            .field("challenge_scope", &self.challenge_scope)
            .finish()
    }
}

impl Protection {
    /// Trusts tokens of `issuer` and requires `scopes` of each.
    pub fn new(issuer: String, scopes: Vec<String>) -> Protection {
        Protection {
            issuer,
            scopes,
            step_up: Vec::new(),
            advertised: Vec::new(),
            required_unlisted: false,
            step_up_names_new_only: false,
            migrate_to: None,
            challenge_metadata: ChallengeMetadata::default(),
            challenge_scope: true,
            never_sufficient: false,
            prm_resource: None,
            served: std::sync::atomic::AtomicUsize::new(0),
            keys: tokio::sync::Mutex::new((Vec::new(), None)),
        }
    }

    /// Requires `scopes` too once one request has been served (403 `insufficient_scope`
    /// until a token carries them).
    pub fn with_step_up(mut self, scopes: Vec<String>) -> Protection {
        self.step_up = scopes;
        self
    }

    /// A step-up's challenge names only the scopes newly required (else every scope required).
    pub fn with_step_up_naming_new_scopes_only(mut self, new_only: bool) -> Protection {
        self.step_up_names_new_only = new_only;
        self
    }

    /// Knows the issuer's keys from the start (no discovery: 2025-03-26's authorization server
    /// may serve no metadata at all).
    pub fn with_keys(self, keys: Vec<Jwk>) -> Protection {
        if let Ok(mut cache) = self.keys.try_lock() {
            cache.0 = keys;
        }
        self
    }

    /// Lists `scopes` in the PRM's `scopes_supported` too, though no request needs them.
    pub fn with_advertised_scopes(mut self, scopes: Vec<String>) -> Protection {
        self.advertised = scopes;
        self
    }

    /// Leaves the scopes required out of the PRM's `scopes_supported` (the advertised ones
    /// alone are listed).
    pub fn with_required_scopes_unlisted(mut self, unlisted: bool) -> Protection {
        self.required_unlisted = unlisted;
        self
    }

    /// Where the challenge says the metadata is.
    pub fn with_challenge_metadata(mut self, at: ChallengeMetadata) -> Protection {
        self.challenge_metadata = at;
        self
    }

    /// Whether the challenge names the scopes required.
    pub fn with_challenge_scope(mut self, named: bool) -> Protection {
        self.challenge_scope = named;
        self
    }

    /// Refuses every token with 403 `insufficient_scope`, however scoped.
    pub fn with_scope_never_sufficient(mut self) -> Protection {
        self.never_sufficient = true;
        self
    }

    /// Names `resource` in the PRM instead of this server.
    pub fn with_prm_resource(mut self, resource: String) -> Protection {
        self.prm_resource = Some(resource);
        self
    }

    /// Moves to the authorization server `issuer` once a request has been served (its keys
    /// given with [`Self::with_keys`] too).
    pub fn with_migration(mut self, issuer: String) -> Protection {
        self.migrate_to = Some(issuer);
        self
    }

    /// The issuer trusted now.
    pub fn issuer(&self) -> &str {
        match &self.migrate_to {
            Some(to) if self.served.load(std::sync::atomic::Ordering::Relaxed) > 0 => to,
            _ => &self.issuer,
        }
    }

    /// Whether the step-up's scopes are required now.
    fn stepped_up(&self) -> bool {
        !self.step_up.is_empty() && self.served.load(std::sync::atomic::Ordering::Relaxed) > 0
    }

    /// The scopes a token needs now: the base ones, and the step-up's once a request was served.
    fn required(&self) -> Vec<String> {
        let mut out = self.scopes.clone();
        if self.stepped_up() {
            out.extend(self.step_up.iter().filter(|s| !self.scopes.contains(s)).cloned());
        }
        out
    }

    /// The key `kid` of the issuer's JWKS, fetched when not known yet (at most once per
    /// [`REFETCH_AFTER`]).
    async fn key(&self, kid: Option<&str>) -> Result<Jwk, String> {
        let mut cache = self.keys.lock().await;
        let find = |keys: &[Jwk]| match kid {
            Some(k) => keys.iter().find(|j| j.common.key_id.as_deref() == Some(k)).cloned(),
            None => keys.first().cloned(),
        };
        if let Some(k) = find(&cache.0) {
            return Ok(k);
        }
        if cache.1.is_some_and(|at| at.elapsed() < REFETCH_AFTER) {
            return Err("no key of the issuer has this key id".into());
        }
        cache.1 = Some(Instant::now());
        cache.0 = tokio::time::timeout(FETCH_TIMEOUT, fetch_keys(self.issuer()))
            .await
            .map_err(|_| format!("the issuer's keys did not arrive within {FETCH_TIMEOUT:?}"))??;
        find(&cache.0).ok_or_else(|| "no key of the issuer has this key id".into())
    }
}

/// The issuer's JWKS, found through its metadata (RFC 8414, then OpenID Connect discovery).
async fn fetch_keys(issuer: &str) -> Result<Vec<Jwk>, String> {
    let client = client_builder().build().map_err(|e| e.to_string())?;
    let issuer_url = url::Url::parse(issuer).map_err(|e| format!("issuer {issuer:?}: {e}"))?;
    for place in as_metadata_urls(Revision::V2025_11_25, &issuer_url) {
        let Ok(r) = client.get(place.url.clone()).send().await else { continue };
        if !r.status().is_success() {
            continue;
        }
        let Ok(doc) = r.bytes().await.map(|b| serde_json::from_slice::<Value>(&b).unwrap_or_default()) else {
            continue;
        };
        let Some(jwks_uri) = doc.get("jwks_uri").and_then(Value::as_str) else { continue };
        let r = client.get(jwks_uri).send().await.map_err(|e| format!("GET {jwks_uri}: {e}"))?;
        let body = r.bytes().await.map_err(|e| format!("GET {jwks_uri}: {e}"))?;
        let set: JwkSet = serde_json::from_slice(&body).map_err(|e| format!("{jwks_uri}: {e}"))?;
        return Ok(set.keys);
    }
    Err(format!("no metadata with a jwks_uri found for the issuer {issuer}"))
}

/// Why a request is not served.
enum Denial {
    /// No token in the `Authorization` header (RFC 6750 §3.1: no error code).
    Missing,
    /// A token that is not valid here (`invalid_token`).
    Invalid(String),
    /// A valid token without the scopes required (`insufficient_scope`).
    Scope,
}

fn fault(endpoint: &Endpoint, f: Fault) -> bool {
    endpoint.options.fault == Some(f)
}

/// The endpoint's canonical URI (the audience of its tokens, its PRM `resource`).
pub(super) fn resource(endpoint: &Endpoint) -> String {
    format!("http://{}{}", endpoint.listening, endpoint.options.path)
}

fn endpoint_url(endpoint: &Endpoint) -> url::Url {
    url::Url::parse(&resource(endpoint)).expect("an address and a path make a URL")
}

/// Where the PRM is served: path-inserted, then the root (RFC 9728 §3.1), and where the
/// challenge names it when that is elsewhere.
fn prm_paths(endpoint: &Endpoint, p: &Protection) -> Vec<String> {
    let u = endpoint_url(endpoint);
    let mut out = vec![
        well_known_inserted(&u, PRM_SUFFIX).path().to_owned(),
        well_known_root(&u, PRM_SUFFIX).path().to_owned(),
    ];
    if p.challenge_metadata == ChallengeMetadata::Elsewhere {
        out.push(ELSEWHERE_PRM_PATH.to_owned());
    }
    out
}

fn prm_document(endpoint: &Endpoint, p: &Protection) -> Value {
    let resource = match &p.prm_resource {
        Some(named) => named.clone(),
        None if fault(endpoint, Fault::AuthPrmWrongResource) => format!("{}/elsewhere", resource(endpoint)),
        None => resource(endpoint),
    };
    let servers = match endpoint.options.fault {
        Some(Fault::AuthPrmNoAuthorizationServers) => json!([]),
        // Port 1 on loopback: nothing listens, so no metadata is ever found there.
        Some(Fault::AuthPrmDeadAuthorizationServer) => json!(["http://127.0.0.1:1/nowhere"]),
        _ => json!([p.issuer()]),
    };
    let mut scopes = if p.required_unlisted { Vec::new() } else { p.scopes.clone() };
    for s in p.step_up.iter().chain(&p.advertised) {
        if !scopes.contains(s) {
            scopes.push(s.clone());
        }
    }
    if fault(endpoint, Fault::AuthOfflineAccessAdvertised) {
        scopes.push("offline_access".into());
    }
    let mut doc = json!({
        "resource": resource,
        "authorization_servers": servers,
        "bearer_methods_supported": ["header"],
        "resource_name": "mcpspec reference server",
    });
    // A server that needs no scope lists none: `scopes_supported` is left out, not empty.
    if !scopes.is_empty() {
        doc["scopes_supported"] = json!(scopes);
    }
    doc
}

/// The challenge of a refusal.
fn challenge(endpoint: &Endpoint, p: &Protection, denial: &Denial) -> BearerChallenge {
    let no_metadata = matches!(
        endpoint.options.fault,
        Some(Fault::AuthChallengeWithoutMetadata | Fault::AuthPrmUndiscoverable)
    ) || p.challenge_metadata == ChallengeMetadata::Absent;
    // RFC 6750 §3: the scope needed for the request; or, when the scenario asks, only the
    // scopes a step-up adds: the client asks for them with those it holds
    // (`#scope-selection-strategy`, 2026-07-28).
    let mut scope = match denial {
        Denial::Scope if p.stepped_up() && p.step_up_names_new_only => p.step_up.clone(),
        _ => p.required(),
    };
    if fault(endpoint, Fault::AuthOfflineAccessAdvertised) {
        scope.push("offline_access".into());
    }
    let named_scope = p.challenge_scope && !fault(endpoint, Fault::AuthChallengeWithoutScope);
    let mut c = BearerChallenge {
        resource_metadata: (!no_metadata).then(|| {
            let u = endpoint_url(endpoint);
            match p.challenge_metadata {
                ChallengeMetadata::Elsewhere => {
                    let mut at = u.clone();
                    at.set_path(ELSEWHERE_PRM_PATH);
                    at.to_string()
                }
                _ => well_known_inserted(&u, PRM_SUFFIX).to_string(),
            }
        }),
        scope: (!scope.is_empty() && named_scope).then(|| scope.join(" ")),
        ..BearerChallenge::default()
    };
    match denial {
        Denial::Missing if fault(endpoint, Fault::AuthErrorWithoutToken) => {
            c.error = Some("invalid_token".into());
        }
        Denial::Missing => {}
        Denial::Invalid(why) => {
            c.error = Some("invalid_token".into());
            c.error_description = Some(why.clone());
        }
        Denial::Scope => {
            c.error = Some("insufficient_scope".into());
            c.error_description = Some("the token lacks a scope this server requires".into());
        }
    }
    c
}

fn refusal(endpoint: &Endpoint, p: &Protection, denial: Denial) -> Reply {
    let forbidden = matches!(denial, Denial::Scope) && !fault(endpoint, Fault::AuthInsufficientScope401);
    let status = if forbidden { StatusCode::FORBIDDEN } else { StatusCode::UNAUTHORIZED };
    let c = challenge(endpoint, p, &denial);
    let body = json!({
        "error": c.error.clone().unwrap_or_else(|| "unauthorized".into()),
        "error_description": c.error_description.clone().unwrap_or_else(|| "a bearer token is required".into()),
    });
    let mut b = Response::builder().status(status).header(header::CONTENT_TYPE, "application/json");
    if !fault(endpoint, Fault::AuthNoChallenge) {
        if let Ok(v) = HeaderValue::from_str(&c.to_string()) {
            b = b.header(header::WWW_AUTHENTICATE, v);
        }
    }
    Reply::plain(b.body(Body::from(body.to_string())).unwrap_or_default())
}

/// Serves the PRM, or refuses a request to the MCP endpoint that does not carry a token valid
/// here; `None` lets the request through.
/// (The request's parts are borrowed one by one: a body is not `Sync`.)
pub(super) async fn guard(endpoint: &Endpoint, request: Head<'_>) -> Option<Reply> {
    let p = endpoint.options.protection.as_deref()?;
    let path = request.uri.path();
    if *request.method == Method::GET && prm_paths(endpoint, p).iter().any(|x| x == path) {
        if fault(endpoint, Fault::AuthPrmUndiscoverable) {
            return Some(Reply::plain(super::status_only(StatusCode::NOT_FOUND)));
        }
        let body = prm_document(endpoint, p).to_string();
        let r = Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from(body))
            .unwrap_or_default();
        return Some(Reply::plain(r));
    }
    let o = &endpoint.options;
    if path != o.path && !(o.flavor == super::Flavor::LegacySse && path == o.messages_path) {
        return None;
    }
    match check(endpoint, p, request).await {
        Ok(()) => None,
        Err(denial) => Some(refusal(endpoint, p, denial)),
    }
}

/// A request for one of 2025-03-26's paths at the MCP server's origin (its authorization base
/// URL, `#authorization-base-url`: the metadata and the default endpoints), relayed to the
/// authorization server, unless an `auth-legacy-` fault hides or spoils the answer.
pub(super) async fn at_origin(endpoint: &Endpoint, to: std::net::SocketAddr, request: Request) -> Response {
    let path = request.uri().path().to_owned();
    let metadata = path == metadata_url_2025_03_26(&endpoint_url(endpoint)).path();
    let default = DEFAULT_ENDPOINTS_2025_03_26.iter().any(|(_, p)| *p == path);
    let hidden = match endpoint.options.fault {
        Some(Fault::AuthLegacyNoMetadata) => metadata,
        Some(Fault::AuthLegacyNoDefaultEndpoints) => metadata || default,
        _ => false,
    };
    if hidden {
        return super::status_only(StatusCode::NOT_FOUND);
    }
    let answer = super::relay(to, request, endpoint.options.body_timeout).await;
    if !(metadata && fault(endpoint, Fault::AuthLegacyMetadataIncomplete)) {
        return answer;
    }
    let (parts, body) = answer.into_parts();
    let bytes = axum::body::to_bytes(body, 256 * 1024).await.unwrap_or_default();
    let mut doc: Value = serde_json::from_slice(&bytes).unwrap_or_default();
    if let Some(m) = doc.as_object_mut() {
        m.remove("token_endpoint");
    }
    Response::from_parts(parts, Body::from(doc.to_string()))
}

/// What the guard reads of a request.
#[derive(Clone, Copy)]
pub(super) struct Head<'a> {
    pub method: &'a Method,
    pub uri: &'a Uri,
    pub headers: &'a HeaderMap,
}

/// The token of the `Authorization` header (RFC 6750 §2.1; the scheme is case-insensitive).
fn bearer_of(request: Head<'_>) -> Option<String> {
    let value = request.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned()).filter(|t| !t.is_empty())
}

/// `access_token` in the query (RFC 6750 §2.3), which MCP forbids: only the fault reads it.
fn query_token(request: Head<'_>) -> Option<String> {
    let q = request.uri.query()?;
    url::form_urlencoded::parse(q.as_bytes()).find(|(k, _)| k == "access_token").map(|(_, v)| v.into_owned())
}

async fn check(endpoint: &Endpoint, p: &Protection, request: Head<'_>) -> Result<(), Denial> {
    let token = match bearer_of(request) {
        Some(t) => t,
        None if fault(endpoint, Fault::AuthAcceptsQueryToken) => {
            query_token(request).ok_or(Denial::Missing)?
        }
        None if fault(endpoint, Fault::AuthUnauthenticatedServed) => return Ok(()),
        None => return Err(Denial::Missing),
    };
    if fault(endpoint, Fault::AuthAcceptsGarbage) {
        return Ok(());
    }
    let claims = verify(endpoint, p, &token).await.map_err(Denial::Invalid)?;
    let granted = match claims.get("scope") {
        Some(Value::String(s)) => split_scope(s),
        _ => match claims.get("scp") {
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            _ => Vec::new(),
        },
    };
    let lacking = p.never_sufficient || p.required().iter().any(|s| !granted.contains(s));
    if lacking && !fault(endpoint, Fault::AuthNoScopeCheck) {
        return Err(Denial::Scope);
    }
    p.served.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    Ok(())
}

/// The token's claims, if its signature, issuer, audience and validity period hold.
async fn verify(endpoint: &Endpoint, p: &Protection, token: &str) -> Result<Value, String> {
    let head = jsonwebtoken::decode_header(token).map_err(|_| "the token is not a JWT".to_owned())?;
    // Asymmetric algorithms only: an HMAC "signed" with the public key is a classic forgery.
    if !matches!(
        head.alg,
        Algorithm::ES256
            | Algorithm::ES384
            | Algorithm::RS256
            | Algorithm::RS384
            | Algorithm::RS512
            | Algorithm::PS256
            | Algorithm::EdDSA
    ) {
        return Err(format!("the algorithm {:?} is not accepted", head.alg));
    }
    let claims: Value = if fault(endpoint, Fault::AuthIgnoresSignature) {
        jsonwebtoken::dangerous::insecure_decode::<Value>(token).map_err(|e| e.to_string())?.claims
    } else {
        let jwk = p.key(head.kid.as_deref()).await?;
        let key = DecodingKey::from_jwk(&jwk).map_err(|e| format!("the issuer's key: {e}"))?;
        let mut v = Validation::new(head.alg);
        v.validate_exp = false;
        v.validate_nbf = false;
        v.validate_aud = false;
        v.required_spec_claims.clear();
        jsonwebtoken::decode::<Value>(token, &key, &v)
            .map_err(|_| "the signature does not verify".to_owned())?
            .claims
    };
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs();
    let number = |name: &str| claims.get(name).and_then(Value::as_u64);
    if !fault(endpoint, Fault::AuthIgnoresExpiry) && number("exp").is_none_or(|exp| exp + LEEWAY_SECS < now) {
        return Err("the token has expired (or has no exp)".into());
    }
    if !fault(endpoint, Fault::AuthIgnoresNotBefore)
        && number("nbf").is_some_and(|nbf| nbf > now + LEEWAY_SECS)
    {
        return Err("the token is not valid yet".into());
    }
    if !fault(endpoint, Fault::AuthIgnoresIssuer)
        && claims.get("iss").and_then(Value::as_str) != Some(p.issuer())
    {
        return Err("the token was issued by another authorization server".into());
    }
    let me = CanonicalResource::parse(&resource(endpoint)).map_err(|e| e.to_string())?;
    let audiences: Vec<&str> = match claims.get("aud") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !fault(endpoint, Fault::AuthIgnoresAudience) && !audiences.iter().any(|a| me.matches(a)) {
        return Err("the token was issued for another resource".into());
    }
    Ok(claims)
}
