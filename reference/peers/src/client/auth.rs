//! The reference client's OAuth 2.1 flow (`basic/authorization.mdx`, 2025-06-18 on): what it
//! does when the MCP endpoint answers 401 (or 403 `insufficient_scope`).
//!
//! In order: the protected resource metadata from the challenge's `resource_metadata`, then the
//! well-known URLs of the revision (RFC 9728 §3.1); the authorization server's metadata in the
//! revision's order (RFC 8414, OpenID Connect Discovery), its `issuer` compared exactly; S256 in
//! `code_challenge_methods_supported` or no authorization at all (2025-11-25 on); a client id
//! from the pre-registered credentials in `MCP_CONFORMANCE_CONTEXT` (the official suite's
//! contract: `client_id`, `client_secret`), else dynamic registration (RFC 7591, with
//! `application_type`; a refusal reported, and the run stopped), kept per issuer; the scope of
//! the challenge (whether `scopes_supported` lists it or not), else `scopes_supported`, else
//! none, and on a step-up the union with what was granted; the authorization request with
//! PKCE S256, `state` and `resource` (RFC 8707), fetched without following the redirect (the
//! headless contract) and its `Location` read; `state` and RFC 9207's `iss` checked before the
//! code goes anywhere; the token request with the verifier and `resource`.
//!
//! Every fault of [`ClientFault`]'s `Auth…` family bends exactly one of these steps. Secrets
//! never reach an error message: errors name the step and the status.

use super::ClientFault;
use crate::auth::ClientAuth;
use crate::transport::http_client::client_builder;
use base64::Engine as _;
use mcpspec_protocol::auth::discovery::{
    as_metadata_urls, default_endpoint_2025_03_26, has_prm, metadata_url_2025_03_26, prm_urls,
    well_known_inserted, DiscoveryKind, OAUTH_SUFFIX,
};
use mcpspec_protocol::auth::{
    join_scope, split_scope, AuthorizationServerMetadata, BearerChallenge, CanonicalResource, PkceVerifier,
    ProtectedResourceMetadata,
};
use mcpspec_protocol::Revision;
use ring::rand::SecureRandom;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use url::Url;

/// The environment variable the official suite passes pre-registered credentials in.
pub const CONTEXT_ENV: &str = "MCP_CONFORMANCE_CONTEXT";

/// The redirect URI the reference client registers: loopback, as a native client's is. Nothing
/// listens there: the client reads the code from the authorization response's `Location`.
const REDIRECT_URI: &str = "http://127.0.0.1:33418/callback";

/// How many step-ups one run makes before it gives up (`#step-up-authorization-flow`: clients
/// SHOULD limit retries).
pub const MAX_STEP_UPS: u32 = 2;

/// The client ID metadata document URL the reference client names itself by where an
/// authorization server takes one (`#client-id-metadata-documents`, 2025-11-25 on), unless told
/// another. Nothing is hosted there (`.invalid` is reserved, RFC 2606): an authorization server
/// that fetches it finds nothing, and says so.
pub const CLIENT_METADATA_URL: &str = "https://mcpspec.invalid/reference-client.json";

/// A client id the client holds at one authorization server, and how it authenticates at the
/// token endpoint.
#[derive(Clone)]
struct Credentials {
    client_id: String,
    secret: Option<String>,
    auth: ClientAuth,
}

/// The reference client's OAuth state across one run.
pub struct OAuthClient {
    http: reqwest::Client,
    revision: Revision,
    endpoint: Url,
    fault: Option<ClientFault>,
    timeout: Duration,
    preregistered: Option<Credentials>,
    /// The URL of the client's metadata document, its `client_id` where the authorization
    /// server takes one.
    client_metadata_url: String,
    /// Credentials by issuer: never used with another authorization server.
    registered: HashMap<String, Credentials>,
    granted: Vec<String>,
    step_ups: u32,
    rng: ring::rand::SystemRandom,
}

fn fail(step: &str, why: impl std::fmt::Display) -> String {
    format!("OAuth: {step}: {why}")
}

impl OAuthClient {
    /// A client of the MCP endpoint `endpoint` at `revision`; pre-registered credentials come
    /// from `context` (the JSON of [`CONTEXT_ENV`]), when it names a `client_id`.
    pub fn new(
        revision: Revision,
        endpoint: Url,
        context: Option<&Value>,
        fault: Option<ClientFault>,
        timeout: Duration,
    ) -> Result<OAuthClient, String> {
        let http = client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(timeout)
            .build()
            .map_err(|e| fail("the HTTP client", e))?;
        let preregistered = context.and_then(|c| {
            let client_id = c.get("client_id")?.as_str()?.to_owned();
            let secret = c.get("client_secret").and_then(Value::as_str).map(str::to_owned);
            // How a pre-registered client authenticates is settled with the authorization
            // server's metadata, when the flow meets it.
            let auth = if secret.is_some() { ClientAuth::Basic } else { ClientAuth::None };
            Some(Credentials { client_id, secret, auth })
        });
        Ok(OAuthClient {
            http,
            revision,
            endpoint,
            fault,
            timeout,
            preregistered,
            client_metadata_url: CLIENT_METADATA_URL.to_owned(),
            registered: HashMap::new(),
            granted: Vec::new(),
            step_ups: 0,
            rng: ring::rand::SystemRandom::new(),
        })
    }

    /// A client of `endpoint` at the revision the harness names
    /// (`MCP_CONFORMANCE_PROTOCOL_VERSION`; else the latest legacy one), with the pre-registered
    /// credentials of [`CONTEXT_ENV`].
    pub fn from_env(
        endpoint: Url,
        fault: Option<ClientFault>,
        timeout: Duration,
    ) -> Result<OAuthClient, String> {
        let revision = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
            .ok()
            .and_then(|v| v.parse::<Revision>().ok())
            .unwrap_or_else(Revision::latest_legacy);
        OAuthClient::new(revision, endpoint, context_from_env().as_ref(), fault, timeout)
    }

    /// Names the client by the metadata document at `url` where the authorization server takes
    /// client ID metadata documents.
    pub fn with_client_metadata_url(mut self, url: String) -> OAuthClient {
        self.client_metadata_url = url;
        self
    }

    fn has(&self, f: ClientFault) -> bool {
        self.fault == Some(f)
    }

    /// Runs the flow for a refusal with `status` and the `WWW-Authenticate` values `challenge`;
    /// returns the access token.
    pub async fn authorize(&mut self, status: u16, challenge: &[String]) -> Result<String, String> {
        let challenge = BearerChallenge::find(challenge).ok().flatten().unwrap_or_default();
        let asked = challenge.scope.as_deref().map(split_scope);
        let step_up = status == 403 && challenge.error.as_deref() == Some("insufficient_scope");
        if step_up {
            if self.has(ClientFault::AuthNoStepUp) {
                return Err(fail("step-up", "a 403 insufficient_scope ends the run"));
            }
            if self.step_ups >= MAX_STEP_UPS && !self.has(ClientFault::AuthUnboundedStepUp) {
                return Err(fail("step-up", format!("still refused after {MAX_STEP_UPS} step-ups")));
            }
            self.step_ups += 1;
        }
        let prm = match has_prm(self.revision) {
            true => self.protected_resource_metadata(&challenge).await?,
            false => None,
        };
        let Some(prm) = prm else {
            // 2025-03-26 (or a server of that revision, which serves no protected resource
            // metadata): the MCP server's origin is the authorization base URL.
            let (issuer, metadata) = self.legacy_metadata().await?;
            let prm = ProtectedResourceMetadata {
                resource: self.endpoint.to_string(),
                authorization_servers: vec![issuer.clone()],
                scopes_supported: None,
                bearer_methods_supported: None,
                resource_name: None,
                extra: Default::default(),
            };
            let scopes = self.scopes(asked, &prm, step_up);
            let credentials = self.credentials(&issuer, &metadata).await?;
            let resource = self.endpoint_resource()?;
            let token = self.code_flow(&issuer, &metadata, &credentials, &scopes, &resource).await?;
            self.granted = scopes;
            return Ok(token);
        };
        // RFC 9728 §3.3: metadata about another resource is not used. The resource the token is
        // asked for is the one the metadata names, which is this endpoint or covers it.
        let resource = self.endpoint_resource()?;
        let resource = match CanonicalResource::parse(&prm.resource) {
            Ok(named) if named.covers(&resource) => named,
            _ if self.has(ClientFault::AuthIgnoresPrmResource) => resource,
            _ => {
                return Err(fail(
                    "protected resource metadata",
                    format!("its resource {:?} is not this server ({resource})", prm.resource),
                ))
            }
        };
        let issuer = prm
            .authorization_servers
            .first()
            .cloned()
            .ok_or_else(|| fail("protected resource metadata", "no authorization server"))?;
        let metadata = self.authorization_server_metadata(&issuer).await?;
        if self.revision >= Revision::V2025_11_25
            && !metadata.supports_s256()
            && !self.has(ClientFault::AuthIgnoresPkceSupport)
        {
            return Err(fail("authorization server metadata", "S256 is not supported: not authorizing"));
        }
        let scopes = self.scopes(asked, &prm, step_up);
        let credentials = self.credentials(&issuer, &metadata).await?;
        let token = self.code_flow(&issuer, &metadata, &credentials, &scopes, &resource).await?;
        self.granted = scopes;
        Ok(token)
    }

    /// The endpoint's canonical URI (RFC 8707 §2).
    fn endpoint_resource(&self) -> Result<CanonicalResource, String> {
        CanonicalResource::of_endpoint(&self.endpoint).map_err(|e| fail("resource", e))
    }

    /// The scope to ask for (`#scope-selection-strategy`).
    fn scopes(
        &self,
        asked: Option<Vec<String>>,
        prm: &ProtectedResourceMetadata,
        step_up: bool,
    ) -> Vec<String> {
        let supported = prm.scopes_supported.clone().unwrap_or_default();
        let mut scopes = match asked {
            Some(_) if self.has(ClientFault::AuthIgnoresChallengeScope) => supported,
            Some(a) if self.has(ClientFault::AuthAssumesScopeSubset) && !supported.is_empty() => {
                let listed: Vec<String> = a.into_iter().filter(|s| supported.contains(s)).collect();
                if listed.is_empty() {
                    supported
                } else {
                    listed
                }
            }
            Some(a) => a,
            None if self.has(ClientFault::AuthNoScopeFallback) => Vec::new(),
            None if supported.is_empty() && self.has(ClientFault::AuthScopeWhenUndefined) => {
                vec!["mcp".into()]
            }
            None => supported,
        };
        if step_up && !self.has(ClientFault::AuthStepUpWithoutUnion) {
            for s in &self.granted {
                if !scopes.contains(s) {
                    scopes.push(s.clone());
                }
            }
        }
        scopes
    }

    async fn get_json(&self, url: &Url) -> Option<Value> {
        let r = self.http.get(url.clone()).header("accept", "application/json").send().await.ok()?;
        if !r.status().is_success() {
            return None;
        }
        let body = r.bytes().await.ok()?;
        serde_json::from_slice(&body).ok()
    }

    /// The protected resource metadata, or `None` where none is found (a 2025-03-26 server).
    async fn protected_resource_metadata(
        &self,
        challenge: &BearerChallenge,
    ) -> Result<Option<ProtectedResourceMetadata>, String> {
        let mut places = Vec::new();
        if let Some(at) = challenge.resource_metadata.as_deref().and_then(|u| Url::parse(u).ok()) {
            if !self.has(ClientFault::AuthPrmIgnoresChallenge) {
                places.push(at);
            }
        }
        let mut known = prm_urls(self.revision, &self.endpoint);
        if self.has(ClientFault::AuthPrmRootFirst) {
            known.reverse();
        }
        places.extend(known);
        for url in places {
            if let Some(doc) = self.get_json(&url).await {
                if let Ok(prm) = ProtectedResourceMetadata::from_json(&doc) {
                    return Ok(Some(prm));
                }
            }
        }
        Ok(None)
    }

    /// 2025-03-26 (`#authorization-base-url`, `#fallbacks-for-servers-without-metadata-discovery`):
    /// the metadata at the origin's RFC 8414 well-known URL, else the default endpoints there.
    async fn legacy_metadata(&self) -> Result<(String, AuthorizationServerMetadata), String> {
        let mut base = self.endpoint.clone();
        base.set_path("");
        base.set_query(None);
        let issuer = base.as_str().trim_end_matches('/').to_owned();
        let at = match self.has(ClientFault::AuthLegacyKeepsPath) {
            true => well_known_inserted(&self.endpoint, OAUTH_SUFFIX),
            false => metadata_url_2025_03_26(&self.endpoint),
        };
        if !self.has(ClientFault::AuthLegacySkipsMetadata) {
            if let Some(doc) = self.get_json(&at).await {
                if let Ok(m) = AuthorizationServerMetadata::from_json(&doc) {
                    return Ok((issuer, m));
                }
            }
        }
        let endpoint = |member| default_endpoint_2025_03_26(&self.endpoint, member).map(|u| u.to_string());
        let metadata = AuthorizationServerMetadata::from_json(&json!({
            "issuer": issuer,
            "authorization_endpoint": endpoint("authorization_endpoint"),
            "token_endpoint": endpoint("token_endpoint"),
            "registration_endpoint": endpoint("registration_endpoint"),
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
        }))
        .map_err(|e| fail("default endpoints", e))?;
        Ok((issuer, metadata))
    }

    async fn authorization_server_metadata(
        &self,
        issuer: &str,
    ) -> Result<AuthorizationServerMetadata, String> {
        let issuer_url = Url::parse(issuer).map_err(|e| fail("authorization server", e))?;
        // Before 2025-11-25 the list holds RFC 8414 alone; the reference client also speaks
        // OpenID discovery then (an addition no revision forbids), after it.
        let mut places = as_metadata_urls(self.revision.max(Revision::V2025_11_25), &issuer_url);
        if self.has(ClientFault::AuthOidcFirst) {
            places.sort_by_key(|p| p.kind == DiscoveryKind::OAuth);
        }
        for place in places {
            let Some(doc) = self.get_json(&place.url).await else { continue };
            let Ok(m) = AuthorizationServerMetadata::from_json(&doc) else { continue };
            // RFC 8414 §3.3: the issuer must be the one looked up, or the document is not used.
            if m.issuer != issuer && !self.has(ClientFault::AuthSkipsIssuerCheck) {
                return Err(fail("authorization server metadata", "its issuer is not the issuer looked up"));
            }
            return Ok(m);
        }
        Err(fail("authorization server metadata", "found at none of the places tried"))
    }

    /// The client id at `issuer`: pre-registered, else the one registered there before, else a
    /// new registration.
    async fn credentials(
        &mut self,
        issuer: &str,
        metadata: &AuthorizationServerMetadata,
    ) -> Result<Credentials, String> {
        if let Some(mut c) =
            self.preregistered.clone().filter(|_| !self.has(ClientFault::AuthIgnoresPreRegistration))
        {
            if c.secret.is_some() && !self.has(ClientFault::AuthIgnoresAuthMethod) {
                c.auth = secret_method(metadata);
            }
            return Ok(c);
        }
        // A client ID metadata document where the server takes one, before registering.
        if metadata.client_id_metadata_document_supported
            && self.revision >= Revision::V2025_11_25
            && !self.has(ClientFault::AuthIgnoresCimd)
        {
            let client_id = match self.has(ClientFault::AuthCimdHttpUrl) {
                true => self.client_metadata_url.replacen("https://", "http://", 1),
                false => self.client_metadata_url.clone(),
            };
            return Ok(Credentials { client_id, secret: None, auth: ClientAuth::None });
        }
        // Credentials are keyed by issuer: never presented to another authorization server.
        let known = match self.has(ClientFault::AuthReusesCredentials) {
            true => self.registered.values().next(),
            false => self.registered.get(issuer),
        };
        if let Some(c) = known {
            return Ok(c.clone());
        }
        let Some(endpoint) = metadata.registration_endpoint.as_deref() else {
            return Err(fail("registration", "no pre-registered client and no registration endpoint"));
        };
        let mut body = json!({
            "client_name": "mcpspec reference client",
            "redirect_uris": [self.redirect_uri()],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": public_or_secret_method(metadata).name(),
        });
        if !self.has(ClientFault::AuthNoApplicationType) {
            body["application_type"] = json!("native");
        }
        let r = self
            .http
            .post(endpoint)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .map_err(|e| fail("registration", e))?;
        let status = r.status();
        let answer: Value = serde_json::from_slice(&r.bytes().await.map_err(|e| fail("registration", e))?)
            .unwrap_or_default();
        let Some(client_id) = answer.get("client_id").and_then(Value::as_str).filter(|_| status.is_success())
        else {
            if self.has(ClientFault::AuthIgnoresRegistrationFailure) {
                let client_id = body["client_name"].as_str().unwrap_or_default().to_owned();
                return Ok(Credentials { client_id, secret: None, auth: ClientAuth::None });
            }
            // Refused (say, over the redirect URIs an OpenID Connect server takes for the
            // application_type): reported, and the run stops (`#application-type-and-redirect-uri-constraints`).
            let why = answer.get("error").and_then(Value::as_str).unwrap_or("no error code");
            return Err(fail("registration", format!("refused with HTTP {status} ({why})")));
        };
        let secret = answer.get("client_secret").and_then(Value::as_str).map(str::to_owned);
        // The method the server registered, which may not be the one asked for (RFC 7591
        // §3.2.1); a secret without one is client_secret_basic (§2).
        let registered_method = answer.get("token_endpoint_auth_method").and_then(Value::as_str);
        let auth = match (registered_method.and_then(ClientAuth::from_name), &secret) {
            _ if self.has(ClientFault::AuthIgnoresAuthMethod) && secret.is_some() => ClientAuth::Basic,
            (Some(a), _) => a,
            (None, Some(_)) => ClientAuth::Basic,
            (None, None) => ClientAuth::None,
        };
        let c = Credentials { client_id: client_id.to_owned(), secret, auth };
        self.registered.insert(issuer.to_owned(), c.clone());
        Ok(c)
    }

    fn redirect_uri(&self) -> &'static str {
        match self.has(ClientFault::AuthNonLoopbackRedirect) {
            true => "http://client.example/callback",
            false => REDIRECT_URI,
        }
    }

    fn random(&self) -> Result<[u8; 32], String> {
        let mut bytes = [0u8; 32];
        self.rng.fill(&mut bytes).map_err(|_| fail("randomness", "the system random source failed"))?;
        Ok(bytes)
    }

    async fn code_flow(
        &self,
        issuer: &str,
        metadata: &AuthorizationServerMetadata,
        credentials: &Credentials,
        scopes: &[String],
        resource: &CanonicalResource,
    ) -> Result<String, String> {
        let verifier = PkceVerifier::from_random(self.random()?);
        let state = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&self.random()?[..16]);
        let authorization_endpoint = metadata
            .authorization_endpoint
            .as_deref()
            .ok_or_else(|| fail("authorization server metadata", "no authorization_endpoint"))?;
        let mut url = Url::parse(authorization_endpoint).map_err(|e| fail("authorization endpoint", e))?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code");
            q.append_pair("client_id", &credentials.client_id);
            let redirect = match self.has(ClientFault::AuthUnregisteredRedirect) {
                true => "http://127.0.0.1:33418/elsewhere",
                false => self.redirect_uri(),
            };
            q.append_pair("redirect_uri", redirect);
            match self.fault {
                Some(ClientFault::AuthNoPkce) => {}
                Some(ClientFault::AuthPlainPkce) => {
                    q.append_pair("code_challenge", verifier.as_str());
                    q.append_pair("code_challenge_method", "plain");
                }
                _ => {
                    q.append_pair("code_challenge", &verifier.challenge());
                    q.append_pair("code_challenge_method", "S256");
                }
            }
            if !self.has(ClientFault::AuthNoState) {
                q.append_pair("state", &state);
            }
            if !self.has(ClientFault::AuthNoResource) {
                q.append_pair("resource", resource.as_str());
            }
            if !scopes.is_empty() {
                q.append_pair("scope", &join_scope(scopes));
            }
        }
        let r = self.http.get(url).send().await.map_err(|e| fail("authorization request", e))?;
        let status = r.status();
        let location = r
            .headers()
            .get("location")
            .and_then(|v| v.to_str().ok())
            .and_then(|l| Url::parse(l).ok())
            .ok_or_else(|| fail("authorization request", format!("HTTP {status} without a redirect")))?;
        let answer: HashMap<String, String> = location.query_pairs().into_owned().collect();
        if self.has(ClientFault::AuthActsOnUnverifiedError) {
            // The page explaining the error, fetched for the report before `iss` is looked at.
            if let Some(page) = answer.get("error_uri").and_then(|u| Url::parse(u).ok()) {
                let _ = self.http.get(page).send().await;
            }
        }
        // RFC 9207 §2.4 (`#authorization-response-validation`): before the code is used, `iss`
        // must be the issuer, exactly: required when the server says it sends it, compared
        // whenever it is there.
        let advertised = metadata.authorization_response_iss_parameter_supported;
        let iss_checked = match self.fault {
            Some(ClientFault::AuthIgnoresIss) => false,
            Some(ClientFault::AuthIssOnlyWhenAdvertised) => advertised,
            _ => advertised || answer.contains_key("iss"),
        };
        // A simple string comparison (RFC 3986 section 6.2.1), no normalization.
        let normalized = |s: &str| s.trim_end_matches('/').to_ascii_lowercase();
        let same = match (answer.get("iss"), self.has(ClientFault::AuthIssNormalizes)) {
            (Some(iss), true) => normalized(iss) == normalized(issuer),
            (Some(iss), false) => iss == issuer,
            (None, _) => false,
        };
        if iss_checked && !same {
            return Err(fail("authorization response", "iss is missing or names another issuer"));
        }
        if !self.has(ClientFault::AuthNoState) && answer.get("state") != Some(&state) {
            return Err(fail("authorization response", "state does not match"));
        }
        // Only now, the response known to come from this issuer, are its error fields read
        // (2026-07-28 `#authorization-response-validation`: never on an iss mismatch).
        if let Some(e) = answer.get("error") {
            return Err(fail("authorization response", format!("error {e}")));
        }
        let code = answer.get("code").ok_or_else(|| fail("authorization response", "no code"))?;
        let token_endpoint = metadata
            .token_endpoint
            .as_deref()
            .ok_or_else(|| fail("authorization server metadata", "no token_endpoint"))?;
        let mut form = vec![
            ("grant_type", "authorization_code".to_owned()),
            ("code", code.clone()),
            ("redirect_uri", self.redirect_uri().to_owned()),
            ("code_verifier", verifier.as_str().to_owned()),
        ];
        if !self.has(ClientFault::AuthNoResource) && !self.has(ClientFault::AuthResourceOnAuthorizeOnly) {
            form.push(("resource", resource.as_str().to_owned()));
        }
        let mut request = self.http.post(token_endpoint).timeout(self.timeout);
        // RFC 6749 §2.3.1 (OAuth 2.1 §2.4.1): the method the client registered with.
        match (&credentials.secret, credentials.auth) {
            (Some(secret), ClientAuth::Basic) => {
                // The id and secret are form-encoded before Basic joins them (RFC 6749 §2.3.1).
                let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
                request = request.basic_auth(enc(&credentials.client_id), Some(enc(secret)));
            }
            (Some(secret), ClientAuth::Post) => {
                form.push(("client_id", credentials.client_id.clone()));
                form.push(("client_secret", secret.clone()));
            }
            _ => form.push(("client_id", credentials.client_id.clone())),
        }
        let encoded = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(&form).finish();
        let r = request
            .header("content-type", "application/x-www-form-urlencoded")
            .body(encoded)
            .send()
            .await
            .map_err(|e| fail("token request", e))?;
        let status = r.status();
        let answer: Value = serde_json::from_slice(&r.bytes().await.map_err(|e| fail("token request", e))?)
            .unwrap_or_default();
        if self.has(ClientFault::AuthNeedsRefreshToken) && answer.get("refresh_token").is_none() {
            return Err(fail("token response", "no refresh token"));
        }
        answer
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|_| status.is_success())
            .map(str::to_owned)
            .ok_or_else(|| fail("token request", format!("HTTP {status}")))
    }
}

/// How a client holding a secret authenticates at `metadata`'s token endpoint: Basic where it is
/// taken (RFC 8414 §2: the default when no list is given), else the form.
fn secret_method(metadata: &AuthorizationServerMetadata) -> ClientAuth {
    match metadata.token_endpoint_auth_methods_supported.as_deref() {
        Some(list)
            if !list.iter().any(|m| m == "client_secret_basic")
                && list.iter().any(|m| m == "client_secret_post") =>
        {
            ClientAuth::Post
        }
        _ => ClientAuth::Basic,
    }
}

/// The method a registration asks for: `none` (a native client keeps no secret) where the token
/// endpoint takes it, else the method a secret would use there.
fn public_or_secret_method(metadata: &AuthorizationServerMetadata) -> ClientAuth {
    match metadata.token_endpoint_auth_methods_supported.as_deref() {
        Some(list) if !list.iter().any(|m| m == "none") => secret_method(metadata),
        _ => ClientAuth::None,
    }
}

/// The pre-registered credentials' JSON from the environment, if any.
pub fn context_from_env() -> Option<Value> {
    std::env::var(CONTEXT_ENV).ok().and_then(|s| serde_json::from_str(&s).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn client(fault: Option<ClientFault>) -> OAuthClient {
        let u = Url::parse("http://127.0.0.1:9/mcp").unwrap();
        OAuthClient::new(Revision::V2025_11_25, u, None, fault, Duration::from_secs(1)).unwrap()
    }

    fn prm(scopes: Option<Vec<&str>>) -> ProtectedResourceMetadata {
        ProtectedResourceMetadata::from_json(&json!({
            "resource": "http://127.0.0.1:9/mcp",
            "authorization_servers": ["http://127.0.0.1:8"],
            "scopes_supported": scopes,
        }))
        .unwrap()
    }

    #[test]
    fn scope_selection_follows_the_challenge_then_the_metadata_then_nothing() {
        let c = client(None);
        let p = prm(Some(vec!["a", "b"]));
        assert_eq!(c.scopes(Some(vec!["x".into()]), &p, false), ["x"]);
        assert_eq!(c.scopes(None, &p, false), ["a", "b"]);
        assert!(c.scopes(None, &prm(None), false).is_empty());
        assert_eq!(
            client(Some(ClientFault::AuthIgnoresChallengeScope)).scopes(Some(vec!["x".into()]), &p, false),
            ["a", "b"]
        );
        assert!(client(Some(ClientFault::AuthNoScopeFallback)).scopes(None, &p, false).is_empty());
        // A challenged scope scopes_supported leaves out is asked for all the same.
        assert_eq!(c.scopes(Some(vec!["x".into(), "a".into()]), &p, false), ["x", "a"]);
        let subset = client(Some(ClientFault::AuthAssumesScopeSubset));
        assert_eq!(subset.scopes(Some(vec!["x".into(), "a".into()]), &p, false), ["a"]);
        assert_eq!(subset.scopes(Some(vec!["x".into()]), &p, false), ["a", "b"]);
    }

    #[test]
    fn a_step_up_asks_for_the_union() {
        let mut c = client(None);
        c.granted = vec!["a".into()];
        assert_eq!(c.scopes(Some(vec!["b".into()]), &prm(None), true), ["b", "a"]);
        let mut c = client(Some(ClientFault::AuthStepUpWithoutUnion));
        c.granted = vec!["a".into()];
        assert_eq!(c.scopes(Some(vec!["b".into()]), &prm(None), true), ["b"]);
    }

    #[test]
    fn pre_registered_credentials_come_from_the_context() {
        let u = Url::parse("http://127.0.0.1:9/mcp").unwrap();
        let ctx = json!({"name": "x", "client_id": "id", "client_secret": "s"});
        let c = OAuthClient::new(Revision::V2025_11_25, u, Some(&ctx), None, Duration::from_secs(1)).unwrap();
        let p = c.preregistered.unwrap();
        assert_eq!((p.client_id.as_str(), p.secret.as_deref()), ("id", Some("s")));
    }
}
