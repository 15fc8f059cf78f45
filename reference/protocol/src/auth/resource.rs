//! Canonical MCP server URIs (RFC 8707 §2; `basic/authorization.mdx#canonical-server-uri`,
//! 2025-06-18 on): an absolute URI without a fragment, scheme and host in lower case, the
//! default port and a lone trailing `/` dropped. Comparing two URIs in this form is how a
//! token's audience and a PRM `resource` are matched to the server, and it accepts the upper
//! case scheme and host the spec asks implementations to accept (SHOULD).

use std::fmt;

/// Why a string is not a resource identifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ResourceError {
    /// No scheme, or no host (`mcp.example.com`, `urn:x`).
    #[error("{0:?} is not an absolute URI with a host")]
    NotAbsolute(String),
    /// RFC 8707 §2: a resource MUST NOT carry a fragment.
    #[error("{0:?} has a fragment, which a resource identifier must not have")]
    Fragment(String),
}

/// A server's canonical URI.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CanonicalResource(String);

impl CanonicalResource {
    pub fn parse(s: &str) -> Result<Self, ResourceError> {
        let u = url::Url::parse(s).map_err(|_| ResourceError::NotAbsolute(s.into()))?;
        if !u.has_host() || u.cannot_be_a_base() {
            return Err(ResourceError::NotAbsolute(s.into()));
        }
        if u.fragment().is_some() {
            return Err(ResourceError::Fragment(s.into()));
        }
        // `url` already lower-cases the scheme and a special scheme's host and drops the
        // default port; what is left is the root's `/`, which the spec's form omits.
        let mut out = u.to_string();
        if u.path() == "/" && u.query().is_none() {
            out.pop();
        }
        Ok(CanonicalResource(out))
    }

    /// The canonical URI of the MCP endpoint at `url` (its query dropped: a query names a
    /// request, not the server).
    pub fn of_endpoint(url: &url::Url) -> Result<Self, ResourceError> {
        let mut u = url.clone();
        u.set_query(None);
        u.set_fragment(None);
        Self::parse(u.as_str())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `other` names this resource (compared in canonical form; a string that is not a
    /// resource identifier never does).
    pub fn matches(&self, other: &str) -> bool {
        Self::parse(other).is_ok_and(|o| o == *self)
    }

    /// Whether this resource, as a protected resource's metadata names it, covers the MCP
    /// endpoint `endpoint`: the same origin, and a path that is the endpoint's or one of its
    /// ancestors, segment by segment (a server whose PRM names `https://host` is the resource
    /// `https://host/mcp` belongs to). RFC 9728 §3.3: a client uses no metadata whose
    /// `resource` is not the resource it asked about.
    pub fn covers(&self, endpoint: &CanonicalResource) -> bool {
        let (Ok(mine), Ok(theirs)) = (url::Url::parse(&self.0), url::Url::parse(&endpoint.0)) else {
            return false;
        };
        if mine.origin() != theirs.origin() || mine.query().is_some() {
            return false;
        }
        let base = mine.path().trim_end_matches('/');
        let path = theirs.path();
        path == base || path.strip_prefix(base).is_some_and(|rest| rest.starts_with('/'))
    }
}

impl fmt::Display for CanonicalResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_resource_covers_its_own_path_and_those_below_it() {
        let r = |s: &str| CanonicalResource::parse(s).unwrap();
        assert!(r("https://h.example").covers(&r("https://h.example/mcp")));
        assert!(r("https://h.example/mcp").covers(&r("https://h.example/mcp")));
        assert!(r("https://h.example/a").covers(&r("https://h.example/a/mcp")));
        assert!(!r("https://h.example/a").covers(&r("https://h.example/ab/mcp")));
        assert!(!r("https://h.example/mcp/x").covers(&r("https://h.example/mcp")));
        assert!(!r("https://evil.example/mcp").covers(&r("https://h.example/mcp")));
        assert!(!r("http://h.example/mcp").covers(&r("https://h.example/mcp")));
        assert!(!r("https://h.example:8443/mcp").covers(&r("https://h.example/mcp")));
    }

    #[test]
    fn the_spec_examples() {
        for ok in [
            "https://mcp.example.com/mcp",
            "https://mcp.example.com",
            "https://mcp.example.com:8443",
            "https://mcp.example.com/server/mcp",
        ] {
            assert_eq!(CanonicalResource::parse(ok).unwrap().as_str(), ok);
        }
        assert!(matches!(CanonicalResource::parse("mcp.example.com"), Err(ResourceError::NotAbsolute(_))));
        assert!(matches!(
            CanonicalResource::parse("https://mcp.example.com#fragment"),
            Err(ResourceError::Fragment(_))
        ));
    }

    #[test]
    fn case_default_port_and_root_slash_are_normalised() {
        let c = CanonicalResource::parse("HTTPS://MCP.Example.COM:443/").unwrap();
        assert_eq!(c.as_str(), "https://mcp.example.com");
        assert!(c.matches("https://mcp.example.com/"));
        assert!(!c.matches("https://mcp.example.com/mcp"));
        // Paths compare exactly: a trailing slash after a path is a different resource.
        assert!(!CanonicalResource::parse("http://127.0.0.1:1/mcp")
            .unwrap()
            .matches("http://127.0.0.1:1/mcp/"));
        assert!(!c.matches("not a uri"));
    }

    #[test]
    fn an_endpoint_loses_its_query() {
        let u = url::Url::parse("http://127.0.0.1:5/messages?sessionId=1").unwrap();
        assert_eq!(CanonicalResource::of_endpoint(&u).unwrap().as_str(), "http://127.0.0.1:5/messages");
    }

    proptest! {
        #[test]
        fn canonical_form_is_a_fixed_point(host in "[a-zA-Z]{1,8}\\.[a-z]{2,3}", port in proptest::option::of(1u16..), path in "(/[a-z0-9]{1,5}){0,3}") {
            let port = port.map(|p| format!(":{p}")).unwrap_or_default();
            let c = CanonicalResource::parse(&format!("HTTPS://{host}{port}{path}")).unwrap();
            prop_assert_eq!(CanonicalResource::parse(c.as_str()).unwrap(), c.clone());
            prop_assert!(!c.as_str().ends_with('/'));
        }
    }
}
