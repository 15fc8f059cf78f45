//! The rules a client's OAuth flow is judged by (`basic/authorization.mdx`, 2025-06-18 on; RFC
//! 9728, 8414, 7636, 8707, 7591 and 9207 where the page defers to them), sans-IO: each rule
//! reads what the protected endpoint and the authorization server saw ([`AuthFlow`]) and says
//! whether the client kept it, with what was expected and what happened.
//!
//! No judgement ever quotes a secret: codes, verifiers, tokens and client secrets are named by
//! their presence, never by their value.

use mcpspec_protocol::auth::discovery::{as_metadata_urls, prm_urls};
use mcpspec_protocol::auth::{client_id, metadata::is_loopback, pkce, split_scope, CanonicalResource};
use mcpspec_protocol::Revision;
use mcpspec_reference::auth::AsExchange;
use mcpspec_reference::transport::http_server::Exchange;
use std::collections::BTreeSet;
use url::Url;

/// What a client's flow met and did, as the two servers logged it.
pub struct AuthFlow<'a> {
    pub revision: Revision,
    /// The MCP endpoint's URL.
    pub endpoint: &'a Url,
    /// The authorization server's issuer.
    pub issuer: &'a str,
    /// The endpoint's exchanges (PRM fetches included), oldest first.
    pub mcp: &'a [Exchange],
    /// The authorization server's exchanges, oldest first.
    pub authorization_server: &'a [AsExchange],
    /// Where the challenge said the PRM is (`None`: it said nothing).
    pub challenge_metadata: Option<&'a str>,
    /// The challenge's scopes on the first refusal (`None`: no `scope`).
    pub challenge_scopes: Option<&'a [String]>,
    /// The PRM's `scopes_supported`.
    pub prm_scopes: &'a [String],
    /// Scopes the endpoint required after its first served request.
    pub step_up: &'a [String],
    /// The pre-registered client's id, if the client was given one.
    pub preregistered: Option<&'a str>,
    /// The authorization server the resource moved to, and its exchanges.
    pub next: Option<(&'a str, &'a [AsExchange])>,
    /// The token endpoint's client authentication methods, as its metadata lists them.
    pub token_auth_methods: &'a [String],
}

/// One judgement: kept or not, the rule's expectation, what was seen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Judgement {
    pub ok: bool,
    pub expected: String,
    pub actual: String,
}

fn judged(ok: bool, expected: impl Into<String>, actual: impl Into<String>) -> Judgement {
    Judgement { ok, expected: expected.into(), actual: actual.into() }
}

/// A rule of the client's flow, by the name a scenario gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthRule {
    /// The PRM is fetched first where the challenge's `resource_metadata` says.
    PrmFromChallenge,
    /// Without `resource_metadata`, the well-known PRM URLs in the revision's order.
    PrmWellKnownOrder,
    /// Authorization server metadata looked for in the revision's order, until found.
    AsDiscoveryOrder,
    /// Metadata whose `issuer` differs is not used (RFC 8414 §3.3).
    IssuerMismatchRefused,
    /// PKCE with S256: a challenge in each authorization request, its verifier in the token
    /// request (RFC 7636).
    PkceS256,
    /// No authorization when the metadata has no `code_challenge_methods_supported`.
    PkceSupportRequired,
    /// `state` in each authorization request.
    State,
    /// `resource`, the canonical URI, in authorization and token requests (RFC 8707).
    Resource,
    /// Redirect URIs are https or loopback.
    RedirectUri,
    /// Every request to the endpoint after authorizing carries `Authorization: Bearer`.
    BearerHeader,
    /// No `access_token` in a query string.
    NoTokenInQuery,
    /// The first authorization asks for the challenge's scopes.
    ScopeFromChallenge,
    /// Without a challenged scope, the first authorization asks for `scopes_supported`.
    ScopeFromMetadata,
    /// With neither, the first authorization asks for no scope.
    ScopeOmitted,
    /// A 403 `insufficient_scope` is answered by authorizing again for the union of scopes.
    StepUp,
    /// A redirect whose `iss` is not the issuer's is not redeemed (RFC 9207 §2.4).
    IssMismatchRefused,
    /// Pre-registered credentials are used, and nothing registered.
    PreRegistration,
    /// Dynamic registration names `application_type`.
    ApplicationType,
    /// 2025-03-26: the metadata looked for at the MCP server's origin, and used.
    LegacyMetadataAtOrigin,
    /// 2025-03-26: without metadata, the default endpoints at the origin, after looking for it.
    LegacyDefaultEndpoints,
    /// After the resource moves to another authorization server, the client registers there
    /// anew: the client id of the first one is never presented to the second.
    NoCredentialReuse,
    /// Metadata naming another resource is not used (RFC 9728 §3.3): no authorization.
    ResourceMismatchRefused,
    /// Refused with 403 `insufficient_scope` whatever it holds, the client stops stepping up:
    /// at most three authorizations.
    StepUpRetryLimit,
    /// The token requests authenticate the client with the method the token endpoint takes
    /// (RFC 6749 §2.3, RFC 8414 `token_endpoint_auth_methods_supported`).
    TokenEndpointAuth,
    /// Where the authorization server takes client ID metadata documents, the client names
    /// itself by one rather than registering.
    ClientIdMetadataDocument,
    /// Each authorization request's `redirect_uri` is one the client registered.
    RedirectUriRegistered,
    /// Issued no refresh token, the client goes on with the access token it has (2026-07-28:
    /// clients must not assume refresh tokens are issued).
    NoRefreshTokenAssumed,
    /// A `client_id` in URL form is https with a path, and its document (when the authorization
    /// server could fetch it) names it and the redirect URI used.
    ClientIdMetadataDocumentValid,
    /// Every token the client presents to the endpoint is one the server's authorization server
    /// issued for it: the endpoint refuses none as `invalid_token`.
    OwnTokensOnly,
    /// The first authorization asks for every challenged scope, whether `scopes_supported`
    /// lists it or not (`#scope-selection-strategy`: no set relationship is assumed).
    ChallengeScopesRequested,
    /// An authorization error response whose `iss` names another issuer is not acted on: its
    /// `error_uri` never fetched, no authorization asking for other scopes as its error says,
    /// no code redeemed (2026-07-28 `#authorization-response-validation`).
    IssMismatchErrorIgnored,
    /// Every registration refused over its redirect URIs, the client makes no authorization
    /// request (it holds no client id) and gives up after a few attempts
    /// (2026-07-28 `#application-type-and-redirect-uri-constraints`).
    RegistrationFailureHandled,
}

/// How many authorizations a client may make in a row while every token is refused for its
/// scope: the first and two step-ups (the official suite's limit too).
pub const STEP_UP_ATTEMPTS: usize = 3;

/// How many registrations a client may attempt while every one is refused: the first and two
/// retries (with, say, an adjusted `application_type` or other redirect URIs).
pub const REGISTRATION_ATTEMPTS: usize = 3;

impl AuthRule {
    pub const ALL: [AuthRule; 32] = [
        AuthRule::PrmFromChallenge,
        AuthRule::PrmWellKnownOrder,
        AuthRule::AsDiscoveryOrder,
        AuthRule::IssuerMismatchRefused,
        AuthRule::PkceS256,
        AuthRule::PkceSupportRequired,
        AuthRule::State,
        AuthRule::Resource,
        AuthRule::RedirectUri,
        AuthRule::BearerHeader,
        AuthRule::NoTokenInQuery,
        AuthRule::ScopeFromChallenge,
        AuthRule::ScopeFromMetadata,
        AuthRule::ScopeOmitted,
        AuthRule::StepUp,
        AuthRule::IssMismatchRefused,
        AuthRule::PreRegistration,
        AuthRule::ApplicationType,
        AuthRule::LegacyMetadataAtOrigin,
        AuthRule::LegacyDefaultEndpoints,
        AuthRule::NoCredentialReuse,
        AuthRule::ResourceMismatchRefused,
        AuthRule::StepUpRetryLimit,
        AuthRule::TokenEndpointAuth,
        AuthRule::ClientIdMetadataDocument,
        AuthRule::ClientIdMetadataDocumentValid,
        AuthRule::NoRefreshTokenAssumed,
        AuthRule::RedirectUriRegistered,
        AuthRule::OwnTokensOnly,
        AuthRule::ChallengeScopesRequested,
        AuthRule::IssMismatchErrorIgnored,
        AuthRule::RegistrationFailureHandled,
    ];

    pub fn name(self) -> &'static str {
        match self {
            AuthRule::PrmFromChallenge => "prm-from-challenge",
            AuthRule::PrmWellKnownOrder => "prm-well-known-order",
            AuthRule::AsDiscoveryOrder => "as-discovery-order",
            AuthRule::IssuerMismatchRefused => "issuer-mismatch-refused",
            AuthRule::PkceS256 => "pkce-s256",
            AuthRule::PkceSupportRequired => "pkce-support-required",
            AuthRule::State => "state",
            AuthRule::Resource => "resource",
            AuthRule::RedirectUri => "redirect-uri",
            AuthRule::BearerHeader => "bearer-header",
            AuthRule::NoTokenInQuery => "no-token-in-query",
            AuthRule::ScopeFromChallenge => "scope-from-challenge",
            AuthRule::ScopeFromMetadata => "scope-from-metadata",
            AuthRule::ScopeOmitted => "scope-omitted",
            AuthRule::StepUp => "step-up",
            AuthRule::IssMismatchRefused => "iss-mismatch-refused",
            AuthRule::PreRegistration => "pre-registration",
            AuthRule::ApplicationType => "application-type",
            AuthRule::LegacyMetadataAtOrigin => "legacy-metadata-at-origin",
            AuthRule::LegacyDefaultEndpoints => "legacy-default-endpoints",
            AuthRule::NoCredentialReuse => "no-credential-reuse",
            AuthRule::ResourceMismatchRefused => "resource-mismatch-refused",
            AuthRule::StepUpRetryLimit => "step-up-retry-limit",
            AuthRule::TokenEndpointAuth => "token-endpoint-auth",
            AuthRule::ClientIdMetadataDocument => "client-id-metadata-document",
            AuthRule::ClientIdMetadataDocumentValid => "client-id-metadata-document-valid",
            AuthRule::NoRefreshTokenAssumed => "no-refresh-token-assumed",
            AuthRule::RedirectUriRegistered => "redirect-uri-registered",
            AuthRule::OwnTokensOnly => "own-tokens-only",
            AuthRule::ChallengeScopesRequested => "challenge-scopes-requested",
            AuthRule::IssMismatchErrorIgnored => "iss-mismatch-error-ignored",
            AuthRule::RegistrationFailureHandled => "registration-failure-handled",
        }
    }

    pub fn from_name(name: &str) -> Option<AuthRule> {
        AuthRule::ALL.into_iter().find(|r| r.name() == name)
    }

    /// Why the rule cannot be judged on this flow, if it cannot: a client that never turned to
    /// the authorization server the resource moved to neither reused nor renewed anything there
    /// (the change shows only to a client that looks at the metadata again).
    pub fn not_judged(self, f: &AuthFlow<'_>) -> Option<String> {
        // Authorization is OPTIONAL (basic/authorization.mdx): a client that never set out on
        // the flow does not support it, and no rule of the flow is kept or broken by it (not
        // even those that ask the client to stop short: a client that never starts proves
        // nothing).
        if !attempted(f) {
            return Some(
                "the client never set out to authorize (no metadata fetched, no request to an \
                 authorization server, no token sent): it does not support authorization, which is \
                 optional"
                    .into(),
            );
        }
        match (self, f.next) {
            (AuthRule::NoCredentialReuse, Some((issuer, []))) => Some(format!(
                "the client never turned to the authorization server the resource moved to ({issuer}): \
                 nothing to judge"
            )),
            // A client that never stepped up has no retry limit to show (the step-up scenario
            // judges whether it should have).
            (AuthRule::StepUpRetryLimit, _) if authorizations(f).len() < 2 => Some(
                "the client never authorized again after a 403 insufficient_scope: no retry to limit"
                    .into(),
            ),
            (AuthRule::RedirectUriRegistered, _) if registrations(f).is_empty() => {
                Some("the client registered nothing here (pre-registered or named by a document): nothing to compare".into())
            }
            (AuthRule::IssMismatchErrorIgnored, _) if authorizations(f).is_empty() => Some(
                "the client sent no authorization request: it never met the error response".into(),
            ),
            (AuthRule::RegistrationFailureHandled, _) if registrations(f).is_empty() => Some(
                "the client never registered (pre-registered, or named by a document): no refusal met"
                    .into(),
            ),
            (AuthRule::ClientIdMetadataDocumentValid, _)
                if !authorizations(f)
                    .iter()
                    .any(|a| param(a, "client_id").is_some_and(client_id::is_url_form)) =>
            {
                Some(
                    "the client named itself by no URL (no client ID metadata document): nothing to judge"
                        .into(),
                )
            }
            _ => None,
        }
    }

    pub fn judge(self, f: &AuthFlow<'_>) -> Judgement {
        match self {
            AuthRule::PrmFromChallenge => prm_from_challenge(f),
            AuthRule::PrmWellKnownOrder => prm_well_known_order(f),
            AuthRule::AsDiscoveryOrder => as_discovery_order(f),
            AuthRule::IssuerMismatchRefused => not_authorized(
                f,
                "no authorization or token request after metadata whose issuer is not the issuer looked up",
            ),
            AuthRule::PkceS256 => pkce_s256(f),
            AuthRule::PkceSupportRequired => not_authorized(
                f,
                "no authorization request to an authorization server whose metadata has no \
                 code_challenge_methods_supported",
            ),
            AuthRule::State => state(f),
            AuthRule::Resource => resource(f),
            AuthRule::RedirectUri => redirect_uri(f),
            AuthRule::BearerHeader => bearer_header(f),
            AuthRule::NoTokenInQuery => no_token_in_query(f),
            AuthRule::ScopeFromChallenge => first_scope(
                f,
                f.challenge_scopes.unwrap_or_default(),
                "the scopes of the challenge's scope parameter",
            ),
            AuthRule::ScopeFromMetadata => {
                first_scope(f, f.prm_scopes, "the protected resource metadata's scopes_supported")
            }
            AuthRule::ScopeOmitted => first_scope(
                f,
                &[],
                "no scope, the challenge naming none and the protected resource metadata having no scopes_supported",
            ),
            AuthRule::StepUp => step_up(f),
            AuthRule::IssMismatchRefused => iss_refused(f),
            AuthRule::PreRegistration => pre_registration(f),
            AuthRule::ApplicationType => application_type(f),
            AuthRule::LegacyMetadataAtOrigin => legacy(f, false),
            AuthRule::LegacyDefaultEndpoints => legacy(f, true),
            AuthRule::NoCredentialReuse => no_credential_reuse(f),
            AuthRule::ResourceMismatchRefused => not_authorized(
                f,
                "no authorization request after protected resource metadata whose resource is another server",
            ),
            AuthRule::StepUpRetryLimit => step_up_retry_limit(f),
            AuthRule::TokenEndpointAuth => token_endpoint_auth(f),
            AuthRule::ClientIdMetadataDocument => client_id_metadata_document(f),
            AuthRule::ClientIdMetadataDocumentValid => client_id_metadata_document_valid(f),
            AuthRule::NoRefreshTokenAssumed => no_refresh_token_assumed(f),
            AuthRule::RedirectUriRegistered => redirect_uri_registered(f),
            AuthRule::OwnTokensOnly => own_tokens_only(f),
            AuthRule::ChallengeScopesRequested => challenge_scopes_requested(f),
            AuthRule::IssMismatchErrorIgnored => iss_mismatch_error_ignored(f),
            AuthRule::RegistrationFailureHandled => registration_failure_handled(f),
        }
    }
}

fn param<'a>(x: &'a AsExchange, name: &str) -> Option<&'a str> {
    x.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

/// The authorization server's endpoint `name` is `path` (its issuer path and `/name`).
fn at_endpoint(f: &AuthFlow<'_>, x: &AsExchange, name: &str) -> bool {
    let base = Url::parse(f.issuer).map(|u| u.path().trim_end_matches('/').to_owned()).unwrap_or_default();
    x.path == format!("{base}/{name}")
}

fn authorizations<'a>(f: &'a AuthFlow<'_>) -> Vec<&'a AsExchange> {
    f.authorization_server.iter().filter(|x| x.method == "GET" && at_endpoint(f, x, "authorize")).collect()
}

fn code_redemptions<'a>(f: &'a AuthFlow<'_>) -> Vec<&'a AsExchange> {
    f.authorization_server
        .iter()
        .filter(|x| {
            x.method == "POST"
                && at_endpoint(f, x, "token")
                && param(x, "grant_type") == Some("authorization_code")
        })
        .collect()
}

fn registrations<'a>(f: &'a AuthFlow<'_>) -> Vec<&'a AsExchange> {
    f.authorization_server.iter().filter(|x| x.method == "POST" && at_endpoint(f, x, "register")).collect()
}

/// The path (and query) of `u` as the endpoint logs it.
fn path_of(u: &Url) -> String {
    match u.query() {
        Some(q) => format!("{}?{q}", u.path()),
        None => u.path().to_owned(),
    }
}

/// The PRM GETs the endpoint saw, by path.
fn prm_fetches<'a>(f: &'a AuthFlow<'_>, places: &[String]) -> Vec<&'a Exchange> {
    f.mcp.iter().filter(|x| x.method == "GET" && places.contains(&x.path)).collect()
}

/// Every place the PRM may be looked for: the challenge's and the well-known ones.
fn prm_places(f: &AuthFlow<'_>) -> Vec<String> {
    let mut places: Vec<String> = prm_urls(Revision::V2025_11_25, f.endpoint).iter().map(path_of).collect();
    if let Some(u) = f.challenge_metadata.and_then(|u| Url::parse(u).ok()) {
        places.push(path_of(&u));
    }
    places
}

fn describe_paths(xs: &[&Exchange]) -> String {
    match xs.is_empty() {
        true => "no request for the protected resource metadata".into(),
        false => {
            let each: Vec<String> = xs.iter().map(|x| format!("GET {} → {}", x.path, x.status)).collect();
            each.join(", ")
        }
    }
}

fn prm_from_challenge(f: &AuthFlow<'_>) -> Judgement {
    let Some(at) = f.challenge_metadata.and_then(|u| Url::parse(u).ok()) else {
        return judged(
            false,
            "a challenge with resource_metadata (the scenario's)",
            "the challenge named none",
        );
    };
    let fetched = prm_fetches(f, &prm_places(f));
    let first = fetched.first().map(|x| x.path.clone());
    judged(
        first.as_deref() == Some(path_of(&at).as_str()),
        format!("the protected resource metadata fetched first at the challenge's resource_metadata, {at}"),
        describe_paths(&fetched),
    )
}

fn prm_well_known_order(f: &AuthFlow<'_>) -> Judgement {
    let order: Vec<String> = prm_urls(f.revision, f.endpoint).iter().map(path_of).collect();
    let fetched = prm_fetches(f, &prm_places(f));
    let paths: Vec<&str> = fetched.iter().map(|x| x.path.as_str()).collect();
    // The well-known URLs, in the revision's order, each until one answers.
    let found = fetched.iter().position(|x| (200..300).contains(&x.status));
    let tried = &paths[..found.map_or(paths.len(), |i| i + 1)];
    let in_order = !tried.is_empty() && tried.iter().zip(&order).all(|(t, o)| t == o);
    judged(
        in_order && found.is_some(),
        format!(
            "the protected resource metadata looked for at {} in this order, until found",
            order.join(", then ")
        ),
        describe_paths(&fetched),
    )
}

fn as_discovery_order(f: &AuthFlow<'_>) -> Judgement {
    let Ok(issuer) = Url::parse(f.issuer) else {
        return judged(false, "an issuer URL", format!("{:?} is not a URL", f.issuer));
    };
    let order: Vec<String> =
        as_metadata_urls(f.revision, &issuer).iter().map(|m| m.url.path().to_owned()).collect();
    let fetched: Vec<&AsExchange> = f
        .authorization_server
        .iter()
        .filter(|x| x.method == "GET" && (x.path.contains("/.well-known/")))
        .collect();
    let found = fetched.iter().position(|x| (200..300).contains(&x.status));
    let tried: Vec<&str> =
        fetched[..found.map_or(fetched.len(), |i| i + 1)].iter().map(|x| x.path.as_str()).collect();
    let in_order = !tried.is_empty() && tried.iter().zip(&order).all(|(t, o)| t == o);
    let actual = match fetched.is_empty() {
        true => "no request for authorization server metadata".to_owned(),
        false => {
            fetched.iter().map(|x| format!("GET {} → {}", x.path, x.status)).collect::<Vec<_>>().join(", ")
        }
    };
    judged(
        in_order && found.is_some(),
        format!(
            "authorization server metadata looked for at {} in this order, until found",
            order.join(", then ")
        ),
        actual,
    )
}

/// The client stopped before authorizing: no authorization request, no code redeemed.
fn not_authorized(f: &AuthFlow<'_>, expected: &str) -> Judgement {
    let (a, t) = (authorizations(f).len(), code_redemptions(f).len());
    judged(a == 0 && t == 0, expected, format!("{a} authorization request(s), {t} token request(s)"))
}

fn pkce_s256(f: &AuthFlow<'_>) -> Judgement {
    let expected = "code_challenge with code_challenge_method=S256 in each authorization request, and \
                    the matching code_verifier in each token request";
    let auths = authorizations(f);
    if auths.is_empty() {
        return judged(false, expected, "no authorization request");
    }
    for a in &auths {
        let method = param(a, "code_challenge_method");
        if param(a, "code_challenge").is_none() || method != Some("S256") {
            let actual = match (param(a, "code_challenge"), method) {
                (None, _) => "an authorization request without code_challenge".to_owned(),
                (Some(_), m) => format!("an authorization request with code_challenge_method {m:?}"),
            };
            return judged(false, expected, actual);
        }
    }
    let challenges: Vec<&str> = auths.iter().filter_map(|a| param(a, "code_challenge")).collect();
    for t in code_redemptions(f) {
        let ok =
            param(t, "code_verifier").is_some_and(|v| challenges.iter().any(|c| pkce::verify(v, c, "S256")));
        if !ok {
            return judged(
                false,
                expected,
                "a token request whose code_verifier is missing or matches no code_challenge",
            );
        }
    }
    judged(
        true,
        expected,
        format!("{} authorization request(s) with S256; each verifier matched", auths.len()),
    )
}

fn state(f: &AuthFlow<'_>) -> Judgement {
    let auths = authorizations(f);
    let without = auths.iter().filter(|a| param(a, "state").is_none_or(str::is_empty)).count();
    judged(
        !auths.is_empty() && without == 0,
        "a state parameter in each authorization request",
        format!("{} authorization request(s), {without} without state", auths.len()),
    )
}

fn resource(f: &AuthFlow<'_>) -> Judgement {
    let Ok(me) = CanonicalResource::of_endpoint(f.endpoint) else {
        return judged(false, "a canonical URI for the endpoint", f.endpoint.to_string());
    };
    let expected = format!("resource={me} in each authorization request and each token request");
    let auths = authorizations(f);
    if auths.is_empty() {
        return judged(false, expected, "no authorization request");
    }
    let requests = auths
        .into_iter()
        .map(|x| ("authorization", x))
        .chain(code_redemptions(f).into_iter().map(|x| ("token", x)));
    for (what, x) in requests {
        match param(x, "resource") {
            Some(r) if me.matches(r) => {}
            Some(r) => return judged(false, expected, format!("a {what} request with resource={r}")),
            None => return judged(false, expected, format!("a {what} request without resource")),
        }
    }
    judged(true, expected, "every authorization and token request named it")
}

fn redirect_uri(f: &AuthFlow<'_>) -> Judgement {
    let expected = "every redirect URI https, or http to a loopback host";
    let mut seen = 0;
    for x in f.authorization_server {
        for (k, v) in &x.params {
            if k != "redirect_uri" && k != "redirect_uris" {
                continue;
            }
            seen += 1;
            let ok = Url::parse(v)
                .is_ok_and(|u| u.scheme() == "https" || (u.scheme() == "http" && is_loopback(&u)));
            if !ok {
                return judged(false, expected, format!("{k}={v} in a request to {}", x.path));
            }
        }
    }
    judged(seen > 0, expected, format!("{seen} redirect URI(s), all allowed"))
}

fn redirect_uri_registered(f: &AuthFlow<'_>) -> Judgement {
    let expected =
        "the redirect_uri of each authorization request among the redirect_uris the client registered";
    let registered: BTreeSet<&str> = registrations(f)
        .iter()
        .flat_map(|r| r.params.iter().filter(|(k, _)| k == "redirect_uris").map(|(_, v)| v.as_str()))
        .collect();
    let auths = authorizations(f);
    if auths.is_empty() {
        return judged(false, expected, "no authorization request");
    }
    for a in &auths {
        match param(a, "redirect_uri") {
            Some(r) if registered.contains(r) => {}
            Some(r) => {
                return judged(false, expected, format!("redirect_uri={r}; registered {registered:?}"))
            }
            // The one registered URI is the default (RFC 6749 section 3.1.2.3).
            None if registered.len() == 1 => {}
            None => return judged(false, expected, format!("no redirect_uri; registered {registered:?}")),
        }
    }
    judged(true, expected, format!("{} authorization request(s), each with a registered URI", auths.len()))
}

/// When the first access token was issued.
fn first_token_at(f: &AuthFlow<'_>) -> Option<std::time::Instant> {
    code_redemptions(f).into_iter().find(|x| (200..300).contains(&x.status)).map(|x| x.at)
}

/// The requests to the MCP endpoint itself (not its metadata).
fn endpoint_requests<'a>(f: &'a AuthFlow<'_>) -> Vec<&'a Exchange> {
    let path = f.endpoint.path();
    f.mcp.iter().filter(|x| x.path.split('?').next() == Some(path)).collect()
}

fn bearer_header(f: &AuthFlow<'_>) -> Judgement {
    let expected = "Authorization: Bearer on every request to the endpoint once a token was issued";
    let Some(at) = first_token_at(f) else { return judged(false, expected, "no token was issued") };
    let after: Vec<&Exchange> = endpoint_requests(f).into_iter().filter(|x| x.at > at).collect();
    let without = after
        .iter()
        .filter(|x| {
            !x.request_headers
                .iter()
                .any(|(k, v)| k == "authorization" && v.to_ascii_lowercase().starts_with("bearer "))
        })
        .count();
    judged(
        !after.is_empty() && without == 0,
        expected,
        format!("{} request(s) after the token, {without} without a Bearer header", after.len()),
    )
}

/// basic/authorization.mdx#token-handling: a client sends the server no token but the ones its
/// authorization server issued. The endpoint knows its own: it refuses any other Bearer token
/// with `invalid_token` (RFC 6750 §3.1), so a Bearer request refused so carried a foreign (or
/// forged, or stale) token. The scenario's tokens live longer than a run.
fn own_tokens_only(f: &AuthFlow<'_>) -> Judgement {
    let expected = "every Bearer token sent to the endpoint one its authorization server issued (none refused as invalid_token)";
    let bearer: Vec<&Exchange> = endpoint_requests(f)
        .into_iter()
        .filter(|x| {
            x.request_headers
                .iter()
                .any(|(k, v)| k == "authorization" && v.to_ascii_lowercase().starts_with("bearer"))
        })
        .collect();
    let refused = bearer
        .iter()
        .filter(|x| {
            x.status == 401
                && x.response_headers
                    .iter()
                    .any(|(k, v)| k == "www-authenticate" && v.contains("invalid_token"))
        })
        .count();
    judged(
        !bearer.is_empty() && refused == 0,
        expected,
        format!("{} request(s) with a Bearer token, {refused} refused as invalid_token", bearer.len()),
    )
}

fn no_token_in_query(f: &AuthFlow<'_>) -> Judgement {
    let carrying = f
        .mcp
        .iter()
        .filter(|x| {
            x.path.split_once('?').is_some_and(|(_, q)| {
                url::form_urlencoded::parse(q.as_bytes()).any(|(k, _)| k == "access_token")
            })
        })
        .count();
    let requests = endpoint_requests(f).len();
    judged(
        carrying == 0 && first_token_at(f).is_some(),
        "no access_token in the query string of any request, once a token was issued",
        format!("{requests} request(s) to the endpoint, {carrying} with access_token in the query"),
    )
}

fn scope_set(s: Option<&str>) -> BTreeSet<String> {
    s.map(split_scope).unwrap_or_default().into_iter().collect()
}

fn first_scope(f: &AuthFlow<'_>, wanted: &[String], source: &str) -> Judgement {
    let wanted: BTreeSet<String> = wanted.iter().cloned().collect();
    let expected = format!("the first authorization request asks for {source}: {wanted:?}");
    let Some(first) = authorizations(f).into_iter().next() else {
        return judged(false, expected, "no authorization request");
    };
    let asked = scope_set(param(first, "scope"));
    judged(asked == wanted, expected, format!("scope {asked:?}"))
}

fn step_up(f: &AuthFlow<'_>) -> Judgement {
    let auths = authorizations(f);
    let mut wanted = scope_set(auths.first().and_then(|a| param(a, "scope")));
    wanted.extend(f.step_up.iter().cloned());
    let expected = format!(
        "after a 403 insufficient_scope, a new authorization for the union of the scopes granted and \
         challenged, {wanted:?}, then the request served"
    );
    let Some(second) = auths.get(1) else {
        return judged(false, expected, format!("{} authorization request(s)", auths.len()));
    };
    let asked = scope_set(param(second, "scope"));
    if !wanted.is_subset(&asked) {
        return judged(false, expected, format!("the second authorization asked for {asked:?}"));
    }
    let served = endpoint_requests(f).iter().any(|x| x.at > second.at && (200..300).contains(&x.status));
    judged(
        served,
        expected,
        format!("the second authorization asked for {asked:?}; served after it: {served}"),
    )
}

fn step_up_retry_limit(f: &AuthFlow<'_>) -> Judgement {
    let refused = f.mcp.iter().filter(|x| x.status == 403).count();
    let n = authorizations(f).len();
    judged(
        refused > 0 && (2..=STEP_UP_ATTEMPTS).contains(&n),
        format!(
            "refused with 403 insufficient_scope whatever its token holds, the client stops after at \
             most {STEP_UP_ATTEMPTS} authorizations"
        ),
        format!("{n} authorization request(s); {refused} request(s) refused with 403"),
    )
}

/// How a token request authenticates the client: never quoting the secret.
fn token_auth_method(x: &AsExchange) -> &'static str {
    match (x.auth_scheme.as_deref(), param(x, "client_secret")) {
        (Some(s), None) if s.eq_ignore_ascii_case("basic") => "client_secret_basic",
        (None, Some(_)) => "client_secret_post",
        (None, None) => "none",
        _ => "two methods at once",
    }
}

fn token_endpoint_auth(f: &AuthFlow<'_>) -> Judgement {
    let expected = format!(
        "each token request authenticates the client with a method the token endpoint takes ({})",
        f.token_auth_methods.join(", ")
    );
    let redemptions = code_redemptions(f);
    if redemptions.is_empty() {
        return judged(false, expected, "no token request");
    }
    let used: Vec<&str> = redemptions.iter().map(|x| token_auth_method(x)).collect();
    let ok = used.iter().all(|m| f.token_auth_methods.iter().any(|t| t == m));
    judged(ok, expected, format!("token request(s) authenticated with {used:?}"))
}

fn no_refresh_token_assumed(f: &AuthFlow<'_>) -> Judgement {
    let expected = "issued an access token without a refresh token, the client uses it: a request served";
    let Some(at) = first_token_at(f) else { return judged(false, expected, "no token was issued") };
    let served = endpoint_requests(f).iter().any(|x| x.at > at && (200..300).contains(&x.status));
    judged(served, expected, format!("a request served after the token: {served}"))
}

fn client_id_metadata_document(f: &AuthFlow<'_>) -> Judgement {
    let ids: Vec<&str> = authorizations(f).iter().filter_map(|a| param(a, "client_id")).collect();
    let registered = registrations(f).len();
    judged(
        !ids.is_empty() && registered == 0 && ids.iter().all(|i| client_id::is_url_form(i)),
        "a client ID metadata document URL as client_id, and no dynamic registration, where the \
         authorization server advertises client_id_metadata_document_supported",
        format!("{registered} registration(s); client_id {ids:?}"),
    )
}

fn client_id_metadata_document_valid(f: &AuthFlow<'_>) -> Judgement {
    let expected = "a client_id URL with the https scheme and a path, whose document names it as its \
                    client_id, with client_name and the redirect URI used among its redirect_uris";
    let urls: BTreeSet<&str> = authorizations(f)
        .iter()
        .filter_map(|a| param(a, "client_id"))
        .filter(|i| client_id::is_url_form(i))
        .collect();
    let mut seen = Vec::new();
    for url in &urls {
        if let Some(why) = client_id::url_problem(url) {
            return judged(false, expected, why);
        }
        // What the authorization server found there (nothing, when it could not be reached from
        // here: only the URL's form is judged then).
        let fetched = f.authorization_server.iter().rev().find(|x| x.method == "FETCH" && x.path == *url);
        match fetched {
            Some(x) if x.status != 0 => {
                let problems: Vec<&str> =
                    x.params.iter().filter(|(k, _)| k == "problem").map(|(_, v)| v.as_str()).collect();
                if !problems.is_empty() {
                    return judged(false, expected, format!("{url}: {}", problems.join("; ")));
                }
                seen.push(format!("{url}: fetched, valid"));
            }
            Some(x) => seen.push(format!(
                "{url}: not reachable from here ({}); the URL's form was judged",
                x.params.first().map(|(_, v)| v.as_str()).unwrap_or("no answer")
            )),
            None => seen.push(format!("{url}: not fetched; the URL's form was judged")),
        }
    }
    judged(!urls.is_empty(), expected, seen.join("; "))
}

/// `#scope-selection-strategy`: the challenge may name scopes `scopes_supported` leaves out;
/// they are what the request needs, so the first authorization asks for each (more is the
/// SHOULD of `scope-from-challenge`, not this rule's business).
fn challenge_scopes_requested(f: &AuthFlow<'_>) -> Judgement {
    let challenged: BTreeSet<String> = f.challenge_scopes.unwrap_or_default().iter().cloned().collect();
    let supported: BTreeSet<&String> = f.prm_scopes.iter().collect();
    let expected = format!(
        "the first authorization request asks for every challenged scope, {challenged:?}, though \
         scopes_supported lists {supported:?}"
    );
    let Some(first) = authorizations(f).into_iter().next() else {
        return judged(false, expected, "no authorization request");
    };
    let asked = scope_set(param(first, "scope"));
    let missing: BTreeSet<&String> = challenged.difference(&asked).collect();
    judged(
        !challenged.is_empty() && missing.is_empty(),
        expected,
        format!("scope {asked:?}; left out {missing:?}"),
    )
}

/// 2026-07-28 `#authorization-response-validation`: on an `iss` mismatch the error fields are
/// neither acted on nor displayed. What shows on the wire of acting on them: fetching the
/// `error_uri` (served by the authorization server, so a fetch is logged), or asking again for
/// other scopes as the `invalid_scope` says. Displaying them shows nowhere.
fn iss_mismatch_error_ignored(f: &AuthFlow<'_>) -> Judgement {
    let expected = "after an authorization error response whose iss names another issuer: its \
                    error_uri never fetched, no authorization request asking for other scopes as \
                    its invalid_scope says, no token request";
    let auths = authorizations(f);
    let fetched = f
        .authorization_server
        .iter()
        .filter(|x| x.method == "GET" && at_endpoint(f, x, "error-info"))
        .count();
    let first = auths.first().map(|a| scope_set(param(a, "scope"))).unwrap_or_default();
    let rescoped = auths.iter().filter(|a| scope_set(param(a, "scope")) != first).count();
    let redeemed = code_redemptions(f).len();
    judged(
        !auths.is_empty() && fetched == 0 && rescoped == 0 && redeemed == 0,
        expected,
        format!(
            "{} authorization request(s), {rescoped} asking for other scopes than the first; the \
             error_uri fetched {fetched} time(s); {redeemed} token request(s)",
            auths.len()
        ),
    )
}

/// 2026-07-28 `#application-type-and-redirect-uri-constraints`: clients are prepared for a
/// registration refused over its redirect URIs. Refused every time, a client holds no client
/// id: coping is reporting and stopping, or retrying with other redirect URIs or another
/// `application_type` a few times; not going on to authorize with an id it was never issued,
/// nor registering without end.
fn registration_failure_handled(f: &AuthFlow<'_>) -> Judgement {
    let regs = registrations(f);
    let refused = regs.iter().filter(|r| !(200..300).contains(&r.status)).count();
    let auths = authorizations(f);
    let ids: BTreeSet<&str> = auths.iter().filter_map(|a| param(a, "client_id")).collect();
    judged(
        refused == regs.len() && (1..=REGISTRATION_ATTEMPTS).contains(&regs.len()) && auths.is_empty(),
        format!(
            "every registration refused with invalid_redirect_uri, the client stops (or retries at \
             most {REGISTRATION_ATTEMPTS} times in all) and makes no authorization request with a \
             client id it was never issued"
        ),
        format!(
            "{} registration(s), {refused} refused; {} authorization request(s) with client_id {ids:?}",
            regs.len(),
            auths.len()
        ),
    )
}

fn iss_refused(f: &AuthFlow<'_>) -> Judgement {
    let auths = authorizations(f);
    let redeemed = code_redemptions(f).len();
    judged(
        !auths.is_empty() && redeemed == 0,
        "no token request for a code whose authorization response's iss names another issuer, or is \
         missing where the authorization server advertises it (RFC 9207 section 2.4)",
        format!("{} authorization request(s), {redeemed} code(s) redeemed", auths.len()),
    )
}

fn pre_registration(f: &AuthFlow<'_>) -> Judgement {
    let Some(id) = f.preregistered else {
        return judged(false, "pre-registered credentials (the scenario's)", "none were given");
    };
    let expected =
        format!("the pre-registered client_id {id} in the authorization request, and no registration");
    let registered = registrations(f).len();
    let ids: Vec<&str> = authorizations(f).iter().filter_map(|a| param(a, "client_id")).collect();
    judged(
        registered == 0 && !ids.is_empty() && ids.iter().all(|i| *i == id),
        expected,
        format!("{registered} registration(s); client_id {ids:?}"),
    )
}

fn application_type(f: &AuthFlow<'_>) -> Judgement {
    let regs = registrations(f);
    let without = regs.iter().filter(|r| param(r, "application_type").is_none()).count();
    judged(
        !regs.is_empty() && without == 0,
        "application_type in the dynamic client registration request",
        format!("{} registration(s), {without} without application_type", regs.len()),
    )
}

/// 2025-03-26: the authorization server answers at the MCP server's origin. The metadata is
/// looked for there (`/.well-known/oauth-authorization-server`, the endpoint's path dropped)
/// before anything else; then the flow goes on at the endpoints it names or, when there is
/// none (`defaults`), at `/authorize`, `/token` and `/register`, until a token is issued.
fn legacy(f: &AuthFlow<'_>, defaults: bool) -> Judgement {
    let well_known = "/.well-known/oauth-authorization-server";
    let expected = match defaults {
        false => format!("the metadata looked for at the origin ({well_known}) first, then a token obtained"),
        true => format!(
            "the metadata looked for at the origin ({well_known}) first, then, without it, /register, \
             /authorize and /token at the origin, until a token is issued"
        ),
    };
    let first = f.authorization_server.first();
    let looked_first = first.is_some_and(|x| x.method == "GET" && x.path == well_known);
    let token = first_token_at(f).is_some();
    let actual = match first {
        None => "no request reached the authorization base URL".to_owned(),
        Some(x) => format!(
            "first {} {} → {}; {} authorization request(s); a token issued: {token}",
            x.method,
            x.path,
            x.status,
            authorizations(f).len()
        ),
    };
    judged(looked_first && token, expected, actual)
}

fn no_credential_reuse(f: &AuthFlow<'_>) -> Judgement {
    let expected = "after the resource moved to another authorization server, a registration there \
                    and, at it, no client id the first one issued";
    let Some((issuer, log)) = f.next else {
        return judged(false, expected, "the resource never moved (the scenario's table sets it)");
    };
    let first_ids: BTreeSet<&str> = authorizations(f).iter().filter_map(|a| param(a, "client_id")).collect();
    let at_next = |name: &str| {
        let path = Url::parse(issuer).map(|u| u.path().trim_end_matches('/').to_owned()).unwrap_or_default();
        let want = format!("{path}/{name}");
        move |x: &&AsExchange| x.path == want
    };
    let registered = log.iter().filter(|x| x.method == "POST").filter(at_next("register")).count() > 0;
    let authorizations: Vec<&AsExchange> =
        log.iter().filter(|x| x.method == "GET").filter(at_next("authorize")).collect();
    let reused = authorizations
        .iter()
        .filter(|a| param(a, "client_id").is_some_and(|id| first_ids.contains(id)))
        .count();
    let token = log
        .iter()
        .filter(|x| x.method == "POST")
        .filter(at_next("token"))
        .any(|x| (200..300).contains(&x.status));
    judged(
        registered && reused == 0 && !authorizations.is_empty() && token,
        expected,
        format!(
            "at the second server: registered {registered}, {} authorization request(s), {reused} with the \
             first server's client id, a token issued: {token}",
            authorizations.len()
        ),
    )
}

/// Whether the client set out on the authorization flow at all: it fetched a metadata document
/// (or, at 2025-03-26, a default endpoint at the origin) from the MCP server, spoke to the
/// authorization server, or sent a token.
fn attempted(f: &AuthFlow<'_>) -> bool {
    let at_origin = |path: &str| {
        path.contains("/.well-known/")
            || path.contains("resource-metadata")
            || ["/authorize", "/token", "/register"].iter().any(|p| path.starts_with(p))
    };
    !f.authorization_server.is_empty()
        || f.next.is_some_and(|(_, exchanges)| !exchanges.is_empty())
        || f.mcp
            .iter()
            .any(|e| at_origin(&e.path) || e.request_headers.iter().any(|(k, _)| k == "authorization"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn as_x(method: &str, path: &str, params: &[(&str, &str)], status: u16, at: Instant) -> AsExchange {
        AsExchange {
            method: method.into(),
            path: path.into(),
            params: params.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            auth_scheme: None,
            status,
            at,
        }
    }

    fn mcp_x(method: &str, path: &str, bearer: bool, status: u16, at: Instant) -> Exchange {
        let mut request_headers = Vec::new();
        if bearer {
            request_headers.push(("authorization".into(), "Bearer …".into()));
        }
        Exchange {
            method: method.into(),
            path: path.into(),
            request_headers,
            status,
            response_content_type: None,
            response_headers: Vec::new(),
            stream: None,
            replayed: Vec::new(),
            request: None,
            at,
        }
    }

    struct Fixture {
        endpoint: Url,
        mcp: Vec<Exchange>,
        asx: Vec<AsExchange>,
        scopes: Vec<String>,
    }

    impl Fixture {
        fn flow(&self) -> AuthFlow<'_> {
            AuthFlow {
                revision: Revision::V2025_11_25,
                endpoint: &self.endpoint,
                issuer: "http://127.0.0.1:2",
                mcp: &self.mcp,
                authorization_server: &self.asx,
                challenge_metadata: Some("http://127.0.0.1:1/oauth/resource-metadata"),
                challenge_scopes: Some(&self.scopes),
                prm_scopes: &self.scopes,
                step_up: &[],
                preregistered: None,
                next: None,
                token_auth_methods: &[],
            }
        }
    }

    /// A flow as the reference client makes it.
    fn good() -> Fixture {
        let t0 = Instant::now();
        let at = |ms| t0 + Duration::from_millis(ms);
        let v = pkce::PkceVerifier::from_random([7; 32]);
        let r = "http://127.0.0.1:1/mcp";
        let cb = "http://127.0.0.1:3/cb";
        Fixture {
            endpoint: Url::parse(r).unwrap(),
            mcp: vec![
                mcp_x("POST", "/mcp", false, 401, at(0)),
                mcp_x("GET", "/oauth/resource-metadata", false, 200, at(1)),
                mcp_x("POST", "/mcp", true, 200, at(9)),
            ],
            asx: vec![
                as_x("GET", "/.well-known/oauth-authorization-server", &[], 200, at(2)),
                as_x(
                    "POST",
                    "/register",
                    &[("redirect_uris", cb), ("application_type", "native")],
                    201,
                    at(3),
                ),
                as_x(
                    "GET",
                    "/authorize",
                    &[
                        ("client_id", "c"),
                        ("redirect_uri", cb),
                        ("code_challenge", &v.challenge()),
                        ("code_challenge_method", "S256"),
                        ("state", "s"),
                        ("resource", r),
                        ("scope", "mcp"),
                    ],
                    302,
                    at(4),
                ),
                as_x(
                    "POST",
                    "/token",
                    &[("grant_type", "authorization_code"), ("code_verifier", v.as_str()), ("resource", r)],
                    200,
                    at(5),
                ),
            ],
            scopes: vec!["mcp".into()],
        }
    }

    #[test]
    fn a_good_flow_keeps_every_rule_that_applies() {
        let f = good();
        for rule in [
            AuthRule::PrmFromChallenge,
            AuthRule::AsDiscoveryOrder,
            AuthRule::PkceS256,
            AuthRule::State,
            AuthRule::Resource,
            AuthRule::RedirectUri,
            AuthRule::BearerHeader,
            AuthRule::NoTokenInQuery,
            AuthRule::ScopeFromChallenge,
            AuthRule::ScopeFromMetadata,
            AuthRule::ApplicationType,
        ] {
            let j = rule.judge(&f.flow());
            assert!(j.ok, "{rule:?}: {j:?}");
        }
        // Rules about refusing to go on fail a flow that went on.
        assert!(!AuthRule::IssuerMismatchRefused.judge(&f.flow()).ok);
        assert!(!AuthRule::StepUp.judge(&f.flow()).ok);
    }

    #[test]
    fn each_defect_breaks_its_rule_and_no_secret_is_quoted() {
        let mut f = good();
        f.asx[2].params.retain(|(k, _)| k != "state" && k != "resource");
        f.asx[3].params.retain(|(k, _)| k != "code_verifier");
        for rule in [AuthRule::State, AuthRule::Resource, AuthRule::PkceS256] {
            let j = rule.judge(&f.flow());
            assert!(!j.ok, "{rule:?}: {j:?}");
        }
        let mut f = good();
        f.mcp[2].request_headers.clear();
        f.mcp[2].path = "/mcp?access_token=SECRET".into();
        for rule in [AuthRule::BearerHeader, AuthRule::NoTokenInQuery] {
            let j = rule.judge(&f.flow());
            assert!(!j.ok && !j.actual.contains("SECRET"), "{rule:?}: {j:?}");
        }
        let mut f = good();
        f.mcp[1].path = "/.well-known/oauth-protected-resource/mcp".into();
        assert!(!AuthRule::PrmFromChallenge.judge(&f.flow()).ok);
        assert_eq!(AuthRule::from_name("step-up"), Some(AuthRule::StepUp));
        assert!(AuthRule::ALL.iter().all(|r| AuthRule::from_name(r.name()) == Some(*r)));
    }

    #[test]
    fn the_challenged_scopes_the_error_response_and_the_refused_registration() {
        let mut f = good();
        assert!(AuthRule::ChallengeScopesRequested.judge(&f.flow()).ok);
        f.asx[2].params.retain(|(k, _)| k != "scope");
        assert!(!AuthRule::ChallengeScopesRequested.judge(&f.flow()).ok);
        // An error response not acted on: the flow stops at the authorization request.
        let mut f = good();
        f.asx.truncate(3);
        assert!(AuthRule::IssMismatchErrorIgnored.judge(&f.flow()).ok);
        let at = f.asx[2].at;
        f.asx.push(as_x("GET", "/error-info", &[], 200, at));
        assert!(!AuthRule::IssMismatchErrorIgnored.judge(&f.flow()).ok);
        let mut f = good();
        f.asx.truncate(3);
        let mut rescoped = f.asx[2].clone();
        rescoped.params.retain(|(k, _)| k != "scope");
        f.asx.push(rescoped);
        assert!(!AuthRule::IssMismatchErrorIgnored.judge(&f.flow()).ok);
        // Refused registration: stopping copes, authorizing all the same does not.
        let mut f = good();
        f.asx[1].status = 400;
        assert!(!AuthRule::RegistrationFailureHandled.judge(&f.flow()).ok);
        f.asx.truncate(2);
        assert!(AuthRule::RegistrationFailureHandled.judge(&f.flow()).ok);
        let again = f.asx[1].clone();
        f.asx.extend([again.clone(), again.clone(), again]);
        assert!(!AuthRule::RegistrationFailureHandled.judge(&f.flow()).ok);
    }

    /// A client without authorization support (it stops at the 401) is skipped by every rule,
    /// those that would pass on no authorization request included.
    #[test]
    fn a_client_that_never_authorizes_is_not_judged() {
        let mut f = good();
        f.asx.clear();
        f.mcp.truncate(1);
        for rule in [AuthRule::PkceS256, AuthRule::IssuerMismatchRefused, AuthRule::PkceSupportRequired] {
            assert!(rule.not_judged(&f.flow()).is_some(), "{rule:?}");
        }
        // A metadata fetch alone is a start.
        f.mcp.push(mcp_x("GET", "/oauth/resource-metadata", false, 200, Instant::now()));
        assert!(AuthRule::PkceS256.not_judged(&f.flow()).is_none());
        assert!(AuthRule::PkceS256.not_judged(&good().flow()).is_none());
    }
}
