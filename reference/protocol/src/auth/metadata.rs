//! The two metadata documents of MCP authorization, as typed values with the rules that make
//! them valid:
//!
//! - protected resource metadata (RFC 9728 §2, §3.3), which a protected MCP server serves: its
//!   `resource` is the server's canonical URI and `authorization_servers` names at least one
//!   (`basic/authorization.mdx#authorization-server-location`);
//! - authorization server metadata (RFC 8414 §2, §3.3; OpenID Connect Discovery 1.0 §3, §4.3):
//!   its `issuer` is the one the document was looked up for, and from 2025-11-25 it lists `S256`
//!   in `code_challenge_methods_supported` (`#authorization-server-metadata-discovery`).
//!
//! Fields the MCP spec does not rely on stay in `extra`, so a document round-trips unchanged.

use super::resource::CanonicalResource;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fmt;

/// A document that is not the JSON object its type needs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetadataError {
    /// Not an object, a required member missing, or a member of the wrong type.
    #[error("{document} is not valid: {reason}")]
    Shape { document: &'static str, reason: String },
}

/// One rule a well-formed document breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetadataProblem {
    /// PRM `resource` is not the server's canonical URI (RFC 9728 §3.3).
    ResourceMismatch { expected: String, found: String },
    /// PRM `authorization_servers` is missing or empty.
    NoAuthorizationServers,
    /// A member that must be an absolute URL is not one.
    NotAnUrl { member: &'static str, value: String },
    /// A URL served over plain HTTP to a host that is not loopback (OAuth 2.1 §1.5).
    NotHttps { member: &'static str, value: String },
    /// PRM `bearer_methods_supported` offers the query string, which MCP forbids.
    QueryBearerMethod,
    /// AS `issuer` is not the issuer the document was fetched for (RFC 8414 §3.3).
    IssuerMismatch { expected: String, found: String },
    /// AS `issuer` carries a query or a fragment (RFC 8414 §2).
    IssuerQueryOrFragment { value: String },
    /// A member the code flow needs is missing (RFC 8414 §2).
    Missing { member: &'static str },
    /// `code_challenge_methods_supported` is absent or lacks `S256`.
    NoS256,
}

impl fmt::Display for MetadataProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ResourceMismatch { expected, found } => {
                write!(f, "`resource` is {found:?}, not the server's canonical URI {expected:?}")
            }
            Self::NoAuthorizationServers => f.write_str("`authorization_servers` is missing or empty"),
            Self::NotAnUrl { member, value } => write!(f, "`{member}` is {value:?}, not an absolute URL"),
            Self::NotHttps { member, value } => {
                write!(f, "`{member}` is {value:?}: plain http to a host that is not loopback")
            }
            Self::QueryBearerMethod => {
                f.write_str("`bearer_methods_supported` offers `query`: tokens never go in the query string")
            }
            Self::IssuerMismatch { expected, found } => {
                write!(f, "`issuer` is {found:?}, not the issuer looked up, {expected:?}")
            }
            Self::IssuerQueryOrFragment { value } => {
                write!(f, "`issuer` {value:?} has a query or fragment")
            }
            Self::Missing { member } => write!(f, "`{member}` is missing"),
            Self::NoS256 => f.write_str("`code_challenge_methods_supported` does not list S256"),
        }
    }
}

/// RFC 9728 §2 protected resource metadata.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtectedResourceMetadata {
    pub resource: String,
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_methods_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_name: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// RFC 8414 §2 authorization server metadata (OpenID Connect Discovery's document has the same
/// members for what MCP uses).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuthorizationServerMetadata {
    pub issuer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub registration_endpoint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jwks_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scopes_supported: Option<Vec<String>>,
    #[serde(default)]
    pub response_types_supported: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_types_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// RFC 9207 §3: the authorization response carries `iss`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub authorization_response_iss_parameter_supported: bool,
    /// `basic/authorization.mdx#client-id-metadata-documents` (2025-11-25 on).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub client_id_metadata_document_supported: bool,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn from_value<T: for<'de> Deserialize<'de>>(v: &Value, document: &'static str) -> Result<T, MetadataError> {
    if !v.is_object() {
        return Err(MetadataError::Shape { document, reason: "not a JSON object".into() });
    }
    T::deserialize(v).map_err(|e| MetadataError::Shape { document, reason: e.to_string() })
}

/// Whether `value` is an absolute URL; a problem if not, or if it is plain http off loopback.
fn check_url(member: &'static str, value: &str, out: &mut Vec<MetadataProblem>) {
    match url::Url::parse(value) {
        Ok(u) if u.has_host() => {
            if u.scheme() == "http" && !is_loopback(&u) {
                out.push(MetadataProblem::NotHttps { member, value: value.into() });
            }
        }
        _ => out.push(MetadataProblem::NotAnUrl { member, value: value.into() }),
    }
}

/// `localhost`, 127.0.0.0/8 or `[::1]`: where plain http is tolerated (tests, local servers).
pub fn is_loopback(u: &url::Url) -> bool {
    match u.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

impl ProtectedResourceMetadata {
    pub fn from_json(v: &Value) -> Result<Self, MetadataError> {
        from_value(v, "protected resource metadata")
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("metadata serializes")
    }

    /// Every rule the document breaks, for a server whose canonical URI is `expected`.
    pub fn problems(&self, expected: &CanonicalResource) -> Vec<MetadataProblem> {
        let mut out = Vec::new();
        if !expected.matches(&self.resource) {
            out.push(MetadataProblem::ResourceMismatch {
                expected: expected.as_str().into(),
                found: self.resource.clone(),
            });
        }
        if self.authorization_servers.is_empty() {
            out.push(MetadataProblem::NoAuthorizationServers);
        }
        for s in &self.authorization_servers {
            check_url("authorization_servers", s, &mut out);
        }
        if self.bearer_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "query")) {
            out.push(MetadataProblem::QueryBearerMethod);
        }
        out
    }

    /// Whether `scopes_supported` lists `offline_access` (2026-07-28: SHOULD NOT).
    pub fn advertises_offline_access(&self) -> bool {
        self.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == "offline_access"))
    }
}

impl AuthorizationServerMetadata {
    pub fn from_json(v: &Value) -> Result<Self, MetadataError> {
        from_value(v, "authorization server metadata")
    }

    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).expect("metadata serializes")
    }

    /// Every rule the document breaks, for the issuer it was looked up for.
    pub fn problems(&self, expected_issuer: &str) -> Vec<MetadataProblem> {
        let mut out = Vec::new();
        // RFC 8414 §3.3: identical, character for character.
        if self.issuer != expected_issuer {
            out.push(MetadataProblem::IssuerMismatch {
                expected: expected_issuer.into(),
                found: self.issuer.clone(),
            });
        }
        check_url("issuer", &self.issuer, &mut out);
        if url::Url::parse(&self.issuer).is_ok_and(|u| u.query().is_some() || u.fragment().is_some()) {
            out.push(MetadataProblem::IssuerQueryOrFragment { value: self.issuer.clone() });
        }
        for (member, value) in [
            ("authorization_endpoint", &self.authorization_endpoint),
            ("token_endpoint", &self.token_endpoint),
        ] {
            match value {
                Some(v) => check_url(member, v, &mut out),
                None => out.push(MetadataProblem::Missing { member }),
            }
        }
        for (member, value) in
            [("registration_endpoint", &self.registration_endpoint), ("jwks_uri", &self.jwks_uri)]
        {
            if let Some(v) = value {
                check_url(member, v, &mut out);
            }
        }
        if self.response_types_supported.is_empty() {
            out.push(MetadataProblem::Missing { member: "response_types_supported" });
        }
        if !self.supports_s256() {
            out.push(MetadataProblem::NoS256);
        }
        out
    }

    /// Whether `code_challenge_methods_supported` lists `S256`.
    pub fn supports_s256(&self) -> bool {
        self.code_challenge_methods_supported.as_ref().is_some_and(|m| m.iter().any(|m| m == "S256"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn canonical(s: &str) -> CanonicalResource {
        CanonicalResource::parse(s).unwrap()
    }

    #[test]
    fn a_good_prm_has_no_problems_and_round_trips_unknown_members() {
        let v = json!({
            "resource": "http://127.0.0.1:8080/mcp",
            "authorization_servers": ["http://127.0.0.1:9000"],
            "scopes_supported": ["mcp"],
            "resource_documentation": "https://example.com/doc"
        });
        let prm = ProtectedResourceMetadata::from_json(&v).unwrap();
        assert!(prm.problems(&canonical("http://127.0.0.1:8080/mcp")).is_empty());
        assert_eq!(prm.to_json(), v);
    }

    #[test]
    fn prm_problems_are_named() {
        let prm = ProtectedResourceMetadata::from_json(&json!({
            "resource": "http://127.0.0.1:8080/other",
            "authorization_servers": [],
            "bearer_methods_supported": ["header", "query"],
            "scopes_supported": ["offline_access"]
        }))
        .unwrap();
        let p = prm.problems(&canonical("http://127.0.0.1:8080/mcp"));
        assert!(matches!(p[0], MetadataProblem::ResourceMismatch { .. }));
        assert_eq!(p[1..], [MetadataProblem::NoAuthorizationServers, MetadataProblem::QueryBearerMethod]);
        assert!(prm.advertises_offline_access());
        assert!(p[0].to_string().contains("canonical URI"));
    }

    #[test]
    fn shape_errors_say_which_document() {
        let e = ProtectedResourceMetadata::from_json(&json!({"authorization_servers": []})).unwrap_err();
        assert!(
            e.to_string().starts_with("protected resource metadata is not valid: missing field `resource`"),
            "{e}"
        );
        let e = AuthorizationServerMetadata::from_json(&json!([1])).unwrap_err();
        assert!(e.to_string().contains("not a JSON object"));
        assert!(AuthorizationServerMetadata::from_json(&json!({"issuer": 3})).is_err());
    }

    #[test]
    fn as_metadata_rules() {
        let good = json!({
            "issuer": "http://127.0.0.1:9000",
            "authorization_endpoint": "http://127.0.0.1:9000/authorize",
            "token_endpoint": "http://127.0.0.1:9000/token",
            "response_types_supported": ["code"],
            "code_challenge_methods_supported": ["S256"],
            "authorization_response_iss_parameter_supported": true
        });
        let m = AuthorizationServerMetadata::from_json(&good).unwrap();
        assert!(m.problems("http://127.0.0.1:9000").is_empty());
        assert_eq!(m.to_json(), good);
        assert!(matches!(m.problems("http://127.0.0.1:9000/")[..], [MetadataProblem::IssuerMismatch { .. }]));

        let bad = AuthorizationServerMetadata::from_json(&json!({
            "issuer": "http://auth.example.com?x=1",
            "code_challenge_methods_supported": ["plain"]
        }))
        .unwrap();
        let p = bad.problems("http://auth.example.com?x=1");
        assert!(p.contains(&MetadataProblem::NotHttps {
            member: "issuer",
            value: "http://auth.example.com?x=1".into()
        }));
        assert!(p.contains(&MetadataProblem::IssuerQueryOrFragment {
            value: "http://auth.example.com?x=1".into()
        }));
        assert!(p.contains(&MetadataProblem::Missing { member: "token_endpoint" }));
        assert!(p.contains(&MetadataProblem::Missing { member: "response_types_supported" }));
        assert!(p.contains(&MetadataProblem::NoS256));
    }

    proptest! {
        #[test]
        fn prm_round_trips(
            path in "(/[a-z]{1,5}){0,2}",
            servers in proptest::collection::vec("https://[a-z]{1,8}\\.example(/[a-z]{1,4})?", 0..3),
            scopes in proptest::option::of(proptest::collection::vec("[a-z:]{1,8}", 0..3)),
        ) {
            let prm = ProtectedResourceMetadata {
                resource: format!("https://mcp.example.com{path}"),
                authorization_servers: servers,
                scopes_supported: scopes,
                bearer_methods_supported: Some(vec!["header".into()]),
                resource_name: None,
                extra: Map::new(),
            };
            prop_assert_eq!(ProtectedResourceMetadata::from_json(&prm.to_json()).unwrap(), prm);
        }

        #[test]
        fn as_metadata_round_trips(iss in "https://[a-z]{1,8}\\.example(/[a-z]{1,4})?", iss_param: bool, cimd: bool) {
            let m = AuthorizationServerMetadata {
                authorization_endpoint: Some(format!("{iss}/authorize")),
                token_endpoint: Some(format!("{iss}/token")),
                registration_endpoint: None,
                jwks_uri: Some(format!("{iss}/jwks")),
                scopes_supported: None,
                response_types_supported: vec!["code".into()],
                grant_types_supported: None,
                token_endpoint_auth_methods_supported: None,
                code_challenge_methods_supported: Some(vec!["S256".into()]),
                authorization_response_iss_parameter_supported: iss_param,
                client_id_metadata_document_supported: cimd,
                extra: Map::new(),
                issuer: iss.clone(),
            };
            prop_assert!(m.problems(&iss).is_empty());
            prop_assert_eq!(AuthorizationServerMetadata::from_json(&m.to_json()).unwrap(), m);
        }
    }
}
