//! The vocabulary of MCP authorization, sans-IO: what a protected MCP server (an OAuth 2.1
//! resource server), an MCP client and an authorization server say to each other, as typed
//! values with their validation rules, shared by the reference authorization server, the
//! reference server's protected mode and the harness's checks.
//!
//! - [`challenge`]: the `WWW-Authenticate: Bearer` challenge (RFC 6750 §3, RFC 9728 §5.1),
//!   parsed and formatted;
//! - [`metadata`]: protected resource metadata (RFC 9728) and authorization server metadata
//!   (RFC 8414, OpenID Connect Discovery 1.0), with what makes each valid;
//! - [`client_id`]: client ID metadata documents (an https URL as `client_id`, its document);
//! - [`discovery`]: the well-known URLs a client tries, per revision, in the spec's order;
//! - [`grant`]: the authorization-code grant as a client speaks it: the authorization request,
//!   the response read from the redirect, the token and registration responses;
//! - [`pkce`]: PKCE S256 verifiers and challenges (RFC 7636);
//! - [`resource`]: canonical server URIs (RFC 8707 §2, `basic/authorization.mdx#canonical-server-uri`).
//!
//! Pages: `basic/authorization.mdx` (2025-03-26 … 2025-11-25), `basic/authorization/*.mdx`
//! (2026-07-28). No randomness and no I/O here: a verifier is made from bytes its caller drew.

pub mod challenge;
pub mod client_id;
pub mod discovery;
pub mod grant;
pub mod metadata;
pub mod pkce;
pub mod resource;

pub use challenge::{BearerChallenge, Challenge, ChallengeError};
pub use discovery::{AsMetadataUrl, DiscoveryKind};
pub use metadata::{AuthorizationServerMetadata, MetadataError, ProtectedResourceMetadata};
pub use pkce::{PkceError, PkceVerifier};
pub use resource::{CanonicalResource, ResourceError};

/// The space-delimited `scope` value of OAuth (RFC 6749 §3.3) as a list, empty entries dropped.
pub fn split_scope(scope: &str) -> Vec<String> {
    scope.split(' ').filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// A list of scopes as the space-delimited `scope` value.
pub fn join_scope<S: AsRef<str>>(scopes: &[S]) -> String {
    scopes.iter().map(AsRef::as_ref).collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_split_on_single_spaces_and_drop_empty_entries() {
        assert_eq!(split_scope("a  b c "), vec!["a", "b", "c"]);
        assert_eq!(join_scope(&split_scope("mcp:read mcp:write")), "mcp:read mcp:write");
        assert!(split_scope("").is_empty());
    }
}
