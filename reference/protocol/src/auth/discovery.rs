//! Where a client looks for metadata, per revision, in the order the spec gives. The same lists
//! tell a check where a server's documents must be found, and the reference server where to
//! serve them.
//!
//! - Protected resource metadata (2025-06-18 on; RFC 9728 §3.1): the challenge's
//!   `resource_metadata` first, then the well-known URI with the endpoint's path inserted, then
//!   the root one (`basic/authorization.mdx#protected-resource-metadata-discovery-requirements`,
//!   2025-11-25; 2025-06-18 names only the challenge and RFC 9728, whose default is the same
//!   path-inserted form).
//! - Authorization server metadata: 2025-03-26 looks at the MCP server's origin
//!   (`#authorization-base-url`), falling back to `/authorize`, `/token`, `/register`
//!   (`#fallbacks-for-servers-without-metadata-discovery`); 2025-06-18 follows RFC 8414 alone
//!   (`#server-metadata-discovery`); 2025-11-25 on tries RFC 8414 and OpenID Connect Discovery
//!   in the order of `#authorization-server-metadata-discovery`.
//! - Whether an endpoint of the code flow is there ([`endpoint_problem`]): what a 2025-03-26
//!   server's default endpoints, or those its metadata names, answer a client that holds nothing.

use crate::Revision;
use url::Url;

/// RFC 9728 §3's well-known suffix.
pub const PRM_SUFFIX: &str = "oauth-protected-resource";
/// RFC 8414 §3's well-known suffix.
pub const OAUTH_SUFFIX: &str = "oauth-authorization-server";
/// OpenID Connect Discovery 1.0 §4's well-known suffix.
pub const OIDC_SUFFIX: &str = "openid-configuration";

/// 2025-03-26's default endpoints, relative to the authorization base URL.
pub const DEFAULT_ENDPOINTS_2025_03_26: [(&str, &str); 3] = [
    ("authorization_endpoint", "/authorize"),
    ("token_endpoint", "/token"),
    ("registration_endpoint", "/register"),
];

/// Which specification a metadata URL belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DiscoveryKind {
    /// RFC 8414 authorization server metadata.
    OAuth,
    /// OpenID Connect Discovery 1.0.
    OpenId,
}

/// One place to try for authorization server metadata.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AsMetadataUrl {
    pub url: Url,
    pub kind: DiscoveryKind,
    /// Whether the issuer's path is inserted after the well-known part (RFC 8414 §3.1) rather
    /// than the document sitting at a root or after the path (OIDC's appending form).
    pub path_inserted: bool,
}

/// Whether `revision` has the authorization spec at all (2025-03-26 on).
pub fn has_authorization(revision: Revision) -> bool {
    revision >= Revision::V2025_03_26
}

/// Whether `revision` has protected resource metadata (2025-06-18 on).
pub fn has_prm(revision: Revision) -> bool {
    revision >= Revision::V2025_06_18
}

/// `origin/.well-known/<suffix><path>`, the path's trailing `/` dropped (RFC 8414 §3.1,
/// RFC 9728 §3.1); `origin/.well-known/<suffix>` when the path is empty or `/`.
pub fn well_known_inserted(base: &Url, suffix: &str) -> Url {
    let path = base.path().trim_end_matches('/');
    let mut u = base.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.set_path(&format!("/.well-known/{suffix}{path}"));
    u
}

/// `origin/.well-known/<suffix>`.
pub fn well_known_root(base: &Url, suffix: &str) -> Url {
    let mut u = base.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.set_path(&format!("/.well-known/{suffix}"));
    u
}

fn has_path(u: &Url) -> bool {
    !u.path().trim_end_matches('/').is_empty()
}

/// The well-known PRM URLs of the MCP endpoint `endpoint`, in the order clients try them
/// after the challenge's `resource_metadata`; none before 2025-06-18.
pub fn prm_urls(revision: Revision, endpoint: &Url) -> Vec<Url> {
    if !has_prm(revision) {
        return Vec::new();
    }
    let mut out = Vec::new();
    if has_path(endpoint) {
        out.push(well_known_inserted(endpoint, PRM_SUFFIX));
    }
    out.push(well_known_root(endpoint, PRM_SUFFIX));
    out
}

/// The authorization server metadata URLs of `issuer`, in the order clients of `revision`
/// try them (from 2025-06-18; see [`metadata_url_2025_03_26`] before).
pub fn as_metadata_urls(revision: Revision, issuer: &Url) -> Vec<AsMetadataUrl> {
    let entry = |url, kind, path_inserted| AsMetadataUrl { url, kind, path_inserted };
    if !has_prm(revision) {
        return Vec::new();
    }
    let pathful = has_path(issuer);
    let oauth = entry(well_known_inserted(issuer, OAUTH_SUFFIX), DiscoveryKind::OAuth, pathful);
    if revision < Revision::V2025_11_25 {
        return vec![oauth];
    }
    if !pathful {
        return vec![oauth, entry(well_known_root(issuer, OIDC_SUFFIX), DiscoveryKind::OpenId, false)];
    }
    let mut appended = issuer.clone();
    appended.set_query(None);
    appended.set_fragment(None);
    appended.set_path(&format!("{}/.well-known/{OIDC_SUFFIX}", issuer.path().trim_end_matches('/')));
    vec![
        oauth,
        entry(well_known_inserted(issuer, OIDC_SUFFIX), DiscoveryKind::OpenId, true),
        entry(appended, DiscoveryKind::OpenId, false),
    ]
}

/// 2025-03-26: the metadata of the MCP server at `endpoint` sits at its origin, whatever its
/// path (`#authorization-base-url`).
pub fn metadata_url_2025_03_26(endpoint: &Url) -> Url {
    well_known_root(endpoint, OAUTH_SUFFIX)
}

/// 2025-03-26: the default endpoint for `member` of the MCP server at `endpoint`, when it
/// serves no metadata.
pub fn default_endpoint_2025_03_26(endpoint: &Url, member: &str) -> Option<Url> {
    let (_, path) = DEFAULT_ENDPOINTS_2025_03_26.iter().find(|(m, _)| *m == member)?;
    let mut u = endpoint.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.set_path(path);
    Some(u)
}

/// What an endpoint of the code flow answered a client that holds nothing (no registration, no
/// user, no code): enough to tell whether the endpoint is there, never whether a flow succeeds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointAnswer {
    pub status: u16,
    /// The `error` of a JSON object body (RFC 6749 §5.2, RFC 7591 §3.2.2).
    pub error: Option<String>,
    /// The body is a JSON object with a non-empty `client_id` (RFC 7591 §3.2.1).
    pub client_id: bool,
}

impl EndpointAnswer {
    /// `HTTP 400 (invalid_request)`, `HTTP 201 with a client_id`.
    pub fn describe(&self) -> String {
        match (&self.error, self.client_id) {
            (Some(e), _) => format!("HTTP {} ({e})", self.status),
            (None, true) => format!("HTTP {} with a client_id", self.status),
            (None, false) => format!("HTTP {}", self.status),
        }
    }
}

/// Why `answer` shows no endpoint `member` (an RFC 8414 member name) of the code flow; `None`
/// when it shows one. What each is asked:
///
/// - `authorization_endpoint`: a GET without parameters. Any answer but 404 or 405 (OAuth 2.1
///   §3.1: the endpoint takes GET); what it shows a browser without a client is its own choice
///   (an error page, a login page, a redirect).
/// - `token_endpoint`: a code grant with a code never issued, for a client never registered. An
///   OAuth error (OAuth 2.1 §3.2.4: a 4xx with a JSON `error`).
/// - `registration_endpoint`: a public client's registration. The client's id (RFC 7591 §3.2.1)
///   or an error object (§3.2.2, a 4xx). With `optional` (a default endpoint no metadata named:
///   registration is a SHOULD), a 404 says none is offered, and is no problem.
pub fn endpoint_problem(member: &str, answer: &EndpointAnswer, optional: bool) -> Option<String> {
    let status = answer.status;
    if status == 404 && optional {
        return None;
    }
    if matches!(status, 404 | 405) {
        return Some(format!("{}: no endpoint there", answer.describe()));
    }
    let oauth_error = (400..500).contains(&status) && answer.error.is_some();
    let ok = match member {
        "authorization_endpoint" => true,
        "token_endpoint" => oauth_error,
        "registration_endpoint" => oauth_error || ((200..300).contains(&status) && answer.client_id),
        _ => false,
    };
    match (ok, member) {
        (true, _) => None,
        (false, "token_endpoint") => Some(format!(
            "{}: not an OAuth error (a 4xx with a JSON error, OAuth 2.1 §3.2.4)",
            answer.describe()
        )),
        (false, _) => Some(format!(
            "{}: neither a registration (a client_id) nor an error object (RFC 7591 §3.2)",
            answer.describe()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn strings(v: &[Url]) -> Vec<&str> {
        v.iter().map(Url::as_str).collect()
    }

    #[test]
    fn prm_urls_path_inserted_then_root() {
        let e = u("https://example.com/public/mcp");
        assert_eq!(
            strings(&prm_urls(Revision::V2025_11_25, &e)),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            strings(&prm_urls(Revision::V2026_07_28, &u("http://127.0.0.1:9/?x=1"))),
            ["http://127.0.0.1:9/.well-known/oauth-protected-resource"]
        );
        assert!(prm_urls(Revision::V2025_03_26, &e).is_empty());
        assert_eq!(prm_urls(Revision::V2025_06_18, &e).len(), 2);
    }

    #[test]
    fn as_metadata_order_per_revision() {
        let tenant = u("https://auth.example.com/tenant1");
        let got: Vec<_> = as_metadata_urls(Revision::V2025_11_25, &tenant)
            .into_iter()
            .map(|m| (m.url.to_string(), m.kind, m.path_inserted))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "https://auth.example.com/.well-known/oauth-authorization-server/tenant1".into(),
                    DiscoveryKind::OAuth,
                    true
                ),
                (
                    "https://auth.example.com/.well-known/openid-configuration/tenant1".into(),
                    DiscoveryKind::OpenId,
                    true
                ),
                (
                    "https://auth.example.com/tenant1/.well-known/openid-configuration".into(),
                    DiscoveryKind::OpenId,
                    false
                ),
            ]
        );
        let root: Vec<_> = as_metadata_urls(Revision::V2026_07_28, &u("https://auth.example.com"))
            .into_iter()
            .map(|m| m.url.to_string())
            .collect();
        assert_eq!(
            root,
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        let only_8414 = as_metadata_urls(Revision::V2025_06_18, &tenant);
        assert_eq!(only_8414.len(), 1);
        assert_eq!(only_8414[0].kind, DiscoveryKind::OAuth);
        assert!(as_metadata_urls(Revision::V2025_03_26, &tenant).is_empty());
    }

    #[test]
    fn the_2025_03_26_base_url_drops_the_path() {
        let e = u("https://api.example.com/v1/mcp");
        assert_eq!(
            metadata_url_2025_03_26(&e).as_str(),
            "https://api.example.com/.well-known/oauth-authorization-server"
        );
        assert_eq!(
            default_endpoint_2025_03_26(&e, "token_endpoint").unwrap().as_str(),
            "https://api.example.com/token"
        );
        assert!(default_endpoint_2025_03_26(&e, "jwks_uri").is_none());
        assert!(has_authorization(Revision::V2025_03_26) && !has_authorization(Revision::V2024_11_05));
    }

    #[test]
    fn an_endpoint_is_there_when_it_answers_as_one() {
        let a = |status, error: Option<&str>, client_id| EndpointAnswer {
            status,
            error: error.map(str::to_owned),
            client_id,
        };
        for status in [200, 302, 400, 401, 500] {
            assert_eq!(endpoint_problem("authorization_endpoint", &a(status, None, false), false), None);
        }
        let missing =
            endpoint_problem("authorization_endpoint", &a(404, Some("invalid_request"), false), false);
        assert_eq!(missing.unwrap(), "HTTP 404 (invalid_request): no endpoint there");
        assert!(endpoint_problem("token_endpoint", &a(405, None, false), true).is_some());
        assert_eq!(endpoint_problem("token_endpoint", &a(400, Some("invalid_grant"), false), false), None);
        assert_eq!(endpoint_problem("token_endpoint", &a(401, Some("invalid_client"), false), false), None);
        assert!(endpoint_problem("token_endpoint", &a(400, None, false), false).unwrap().contains("§3.2.4"));
        assert!(endpoint_problem("token_endpoint", &a(200, Some("x"), false), false).is_some());
        assert_eq!(endpoint_problem("registration_endpoint", &a(201, None, true), false), None);
        assert_eq!(
            endpoint_problem("registration_endpoint", &a(401, Some("invalid_token"), false), false),
            None
        );
        assert_eq!(endpoint_problem("registration_endpoint", &a(404, None, false), true), None);
        assert!(endpoint_problem("registration_endpoint", &a(404, None, false), false).is_some());
        assert!(endpoint_problem("registration_endpoint", &a(200, None, false), false).is_some());
    }
}
