//! PKCE (RFC 7636) with the S256 method, which MCP clients must use
//! (`basic/authorization.mdx#authorization-code-protection`) and authorization servers must
//! check. Sans-IO: a verifier is made from random bytes its caller drew.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};

/// A `code_verifier` that is not one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PkceError {
    /// RFC 7636 §4.1: 43 to 128 characters.
    #[error("a code_verifier has 43 to 128 characters; this one has {0}")]
    Length(usize),
    /// RFC 7636 §4.1: only unreserved characters.
    #[error("a code_verifier holds only A-Z a-z 0-9 - . _ ~; this one holds {0:?}")]
    Character(char),
}

/// A valid `code_verifier`.
#[derive(Clone, PartialEq, Eq)]
pub struct PkceVerifier(String);

/// A verifier is a secret: its `Debug` never shows it.
impl std::fmt::Debug for PkceVerifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PkceVerifier(<{} chars>)", self.0.len())
    }
}

impl PkceVerifier {
    /// The verifier RFC 7636 §4.1 recommends: 32 random octets, base64url (43 characters).
    pub fn from_random(bytes: [u8; 32]) -> Self {
        PkceVerifier(URL_SAFE_NO_PAD.encode(bytes))
    }

    pub fn parse(s: &str) -> Result<Self, PkceError> {
        if !(43..=128).contains(&s.len()) {
            return Err(PkceError::Length(s.chars().count()));
        }
        if let Some(c) = s.chars().find(|c| !(c.is_ascii_alphanumeric() || "-._~".contains(*c))) {
            return Err(PkceError::Character(c));
        }
        Ok(PkceVerifier(s.into()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The S256 `code_challenge`.
    pub fn challenge(&self) -> String {
        s256(&self.0)
    }
}

/// `BASE64URL(SHA256(ASCII(verifier)))` (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// Whether `verifier` answers `challenge` made with `method` (RFC 7636 §4.6); only `S256` is
/// accepted, as MCP requires.
pub fn verify(verifier: &str, challenge: &str, method: &str) -> bool {
    method == "S256" && PkceVerifier::parse(verifier).is_ok() && s256(verifier) == challenge
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn rfc_7636_appendix_b() {
        let v = PkceVerifier::parse("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk").unwrap();
        assert_eq!(v.challenge(), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert!(verify(v.as_str(), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "S256"));
        assert!(!verify(v.as_str(), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", "plain"));
        assert!(!format!("{v:?}").contains("dBjf"));
    }

    #[test]
    fn bad_verifiers() {
        assert_eq!(PkceVerifier::parse("short"), Err(PkceError::Length(5)));
        assert_eq!(PkceVerifier::parse(&"a".repeat(129)), Err(PkceError::Length(129)));
        assert_eq!(PkceVerifier::parse(&format!("{}+", "a".repeat(43))), Err(PkceError::Character('+')));
    }

    proptest! {
        #[test]
        fn random_verifiers_are_valid_and_verify(bytes in any::<[u8; 32]>(), other in any::<[u8; 32]>()) {
            let v = PkceVerifier::from_random(bytes);
            prop_assert_eq!(PkceVerifier::parse(v.as_str()), Ok(v.clone()));
            prop_assert!(verify(v.as_str(), &v.challenge(), "S256"));
            if other != bytes {
                prop_assert!(!verify(PkceVerifier::from_random(other).as_str(), &v.challenge(), "S256"));
            }
        }
    }
}
