//! The reference OAuth 2.1 authorization server, on axum, bound to loopback: what a protected
//! MCP server trusts and what an MCP client walks through before its first request
//! (`basic/authorization.mdx`, 2025-03-26 on).
//!
//! It serves RFC 8414 and OpenID Connect discovery documents, a JWKS, an authorization endpoint
//! that approves at once with a 302 to the `redirect_uri` (the headless contract of the
//! official conformance suite: a client GETs the URL without following redirects and takes the
//! code from `Location`), a token endpoint (authorization code with PKCE S256, refresh tokens
//! rotated for public clients; `client_secret_basic`, `client_secret_post` and `none`),
//! dynamic client registration (RFC 7591) and RFC 9207's `iss` on the redirect. What it offers
//! is a parameter ([`AuthServerOptions`]), so scenarios can vary it, and so are its planted
//! defects ([`AsFault`]).
//!
//! - [`tokens`]: its signing key, JWKS and access tokens, and the flawed tokens
//!   ([`TokenFlaw`]) server-side checks present to a protected MCP server;
//! - `server.rs`: binding, routing, the discovery documents and the JWKS;
//! - `grants.rs`: the authorization, token and registration endpoints;
//! - [`documents`]: an https host of client ID metadata documents on loopback, with a CA of
//!   its own, for the authorization servers that fetch them.

pub mod documents;
mod grants;
mod server;
pub mod tokens;

pub use server::{AsExchange, AuthServerError, AuthorizationServer};
pub use tokens::{Claims, SigningKey, TokenError, TokenFlaw, TokenMinter};

use std::net::SocketAddr;
use std::time::Duration;

/// A discovery document the authorization server may serve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MetadataDocument {
    /// RFC 8414 at `/.well-known/oauth-authorization-server{issuer path}`.
    OAuth,
    /// OpenID Connect discovery at `/.well-known/openid-configuration{issuer path}`.
    OpenIdInserted,
    /// OpenID Connect discovery at `{issuer path}/.well-known/openid-configuration` (for a root
    /// issuer, the same URL as [`MetadataDocument::OpenIdInserted`]).
    OpenIdAppended,
}

/// How a client authenticates at the token endpoint (RFC 7591 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClientAuth {
    /// `client_secret_basic`: HTTP Basic with the id and secret.
    Basic,
    /// `client_secret_post`: the secret in the form.
    Post,
    /// `none`: a public client.
    None,
}

impl ClientAuth {
    pub fn name(self) -> &'static str {
        match self {
            ClientAuth::Basic => "client_secret_basic",
            ClientAuth::Post => "client_secret_post",
            ClientAuth::None => "none",
        }
    }

    pub fn from_name(name: &str) -> Option<ClientAuth> {
        [ClientAuth::Basic, ClientAuth::Post, ClientAuth::None].into_iter().find(|a| a.name() == name)
    }
}

/// A client the server knows: pre-registered, or registered through DCR.
#[derive(Clone, PartialEq, Eq)]
pub struct RegisteredClient {
    pub client_id: String,
    pub client_secret: Option<String>,
    /// Empty for a pre-registered client whose redirect URI is not known in advance (the
    /// official suite's pre-registration contract): then any https or loopback URI is taken.
    pub redirect_uris: Vec<String>,
    pub auth: ClientAuth,
}

/// The secret never shows in a `Debug`.
impl std::fmt::Debug for RegisteredClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegisteredClient")
            .field("client_id", &self.client_id)
            .field("redirect_uris", &self.redirect_uris)
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

/// A planted defect of the authorization server, each breaking one rule an authorization
/// server is certified by (`basic/authorization.mdx`, OAuth 2.1, RFC 8414, RFC 9207).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AsFault {
    /// The metadata's `issuer` is not the issuer (RFC 8414 §3.3).
    IssuerMismatch,
    /// The metadata lists only `plain` in `code_challenge_methods_supported`.
    NoS256,
    /// The token endpoint does not check the `code_verifier` (OAuth 2.1 §4.1.3).
    IgnoresVerifier,
    /// An authorization code can be redeemed twice (OAuth 2.1 §4.1.2).
    ReusableCode,
    /// The token endpoint does not compare the `redirect_uri` with the authorization request's.
    IgnoresRedirectUri,
    /// A public client's refresh token is not rotated (OAuth 2.1 §4.3.1).
    NoRefreshRotation,
    /// `authorization_response_iss_parameter_supported` is advertised, `iss` never sent.
    NoIssParameter,
    /// The metadata lacks `response_types_supported`, a member RFC 8414 §2 requires.
    MetadataMissingField,
    /// The metadata's `jwks_uri` is plain http to a host that is not loopback (OAuth 2.1 §1.5).
    InsecureJwksUri,
    /// Dynamic client registration answers 201 without a `client_id` (RFC 7591 §3.2.1).
    RegistrationWithoutClientId,
    /// The authorization endpoint accepts a redirect URI that merely starts with a registered
    /// one (OAuth 2.1 §4.1.2.1 and `#open-redirection`: exact match).
    RedirectPrefixMatch,
    /// Tokens name the issuer as their audience whatever `resource` was asked for (RFC 8707 §2).
    IgnoresResource,
    /// The metadata has no `code_challenge_methods_supported` at all: a client must not
    /// authorize (`#authorization-code-protection`, 2025-11-25 on). Client scenarios plant it.
    NoChallengeMethods,
    /// The redirect's `iss` names another issuer (RFC 9207 §2.4: a mix-up the client must
    /// catch). Not a defect a server is certified by: client scenarios plant it.
    WrongIss,
    /// As [`AsFault::WrongIss`], with `authorization_response_iss_parameter_supported` not
    /// advertised: a client compares an `iss` that is present all the same (2026-07-28,
    /// `#authorization-response-validation`). Client scenarios plant it.
    WrongIssUnadvertised,
    /// The redirect's `iss` is the issuer with a trailing slash: equal only to a client that
    /// normalizes, which it must not (2026-07-28 `#authorization-response-validation`). Client
    /// scenarios plant it.
    IssWithTrailingSlash,
    /// Every authorization request is answered with an error response (`invalid_scope`, with
    /// `error_description` and an `error_uri` this server serves) whose `iss` names another
    /// issuer: a client must neither act on nor display its error fields (2026-07-28
    /// `#authorization-response-validation`). Client scenarios plant it.
    ErrorWithWrongIss,
    /// Dynamic registration refuses every request with `invalid_redirect_uri`, as an OpenID
    /// Connect server does whose constraints the redirect URIs do not meet (2026-07-28
    /// `#application-type-and-redirect-uri-constraints`). Client scenarios plant it.
    RefusesRedirectUris,
    /// A client ID metadata document whose `client_id` is not its URL is taken
    /// (`#implementation-requirements`: the server must check they are equal).
    CimdIdUnchecked,
    /// An authorization request's redirect URI is taken though the client ID metadata document
    /// does not list it (`#implementation-requirements`).
    CimdRedirectUnchecked,
    /// A client ID metadata document that is not JSON is taken, as a client with no metadata
    /// (`#implementation-requirements`: valid JSON with the required fields).
    CimdAcceptsNonJson,
}

/// What the authorization server offers.
#[derive(Debug, Clone)]
pub struct AuthServerOptions {
    /// Where to listen; loopback and a free port by default. Anything but loopback is refused.
    pub bind: SocketAddr,
    /// The issuer's path (`""` or, say, `/tenant1`).
    pub issuer_path: String,
    /// The issuer (and the base of every endpoint) when it is not this server's own address:
    /// 2025-03-26's authorization base URL is the MCP server's origin, which relays to it.
    pub public_issuer: Option<String>,
    /// The discovery documents served.
    pub documents: Vec<MetadataDocument>,
    /// Offer dynamic client registration (`registration_endpoint`).
    pub registration: bool,
    /// The client authentication methods of the token endpoint
    /// (`token_endpoint_auth_methods_supported`); a registration asking for another gets the
    /// first of them (RFC 7591 §3.2.1: the server may replace a requested value).
    pub token_auth_methods: Vec<ClientAuth>,
    /// Issue refresh tokens with access tokens.
    pub refresh_tokens: bool,
    /// Take an https URL as `client_id`: fetch its client ID metadata document and hold the
    /// authorization request to it (`client_id_metadata_document_supported`,
    /// `basic/authorization.mdx#client-id-metadata-documents`, 2025-11-25 on).
    pub client_id_metadata_documents: bool,
    /// Certificates (PEM) trusted, beyond the system's, when fetching client ID metadata
    /// documents: the CA of a document host on loopback ([`documents::DocumentHost`]).
    pub document_roots: Vec<String>,
    /// RFC 9207: advertise and send `iss` in the authorization response.
    pub iss_parameter: bool,
    /// `scopes_supported`; a requested scope outside it (and outside `unadvertised_scopes`) is
    /// `invalid_scope` (unless empty).
    pub scopes_supported: Vec<String>,
    /// Scopes granted though `scopes_supported` leaves them out (RFC 8414 §2: the list need not
    /// be complete; `#scope-selection-strategy`: a challenge may name scopes it does not list).
    pub unadvertised_scopes: Vec<String>,
    /// Pre-registered clients.
    pub clients: Vec<RegisteredClient>,
    /// Refuse an authorization request without `resource` (`invalid_target`).
    pub require_resource: bool,
    pub token_lifetime: Duration,
    pub code_lifetime: Duration,
    /// Clients, codes and refresh tokens kept at most (beyond: registration refused, the
    /// oldest codes and refresh tokens dropped).
    pub max_entries: usize,
    /// How long a request body may take to arrive.
    pub body_timeout: Duration,
    /// The authorization endpoint answers with a login page (200, HTML) instead of approving at
    /// once, as a server that needs a person does: what a headless client cannot get past.
    pub login_page: bool,
    pub fault: Option<AsFault>,
}

impl Default for AuthServerOptions {
    fn default() -> Self {
        AuthServerOptions {
            bind: SocketAddr::from(([127, 0, 0, 1], 0)),
            issuer_path: String::new(),
            public_issuer: None,
            documents: vec![
                MetadataDocument::OAuth,
                MetadataDocument::OpenIdInserted,
                MetadataDocument::OpenIdAppended,
            ],
            registration: true,
            token_auth_methods: vec![ClientAuth::Basic, ClientAuth::Post, ClientAuth::None],
            client_id_metadata_documents: false,
            document_roots: Vec::new(),
            refresh_tokens: true,
            iss_parameter: true,
            scopes_supported: vec!["mcp".into()],
            unadvertised_scopes: Vec::new(),
            clients: Vec::new(),
            require_resource: false,
            token_lifetime: Duration::from_secs(300),
            code_lifetime: Duration::from_secs(60),
            max_entries: 1024,
            body_timeout: Duration::from_secs(10),
            login_page: false,
            fault: None,
        }
    }
}
