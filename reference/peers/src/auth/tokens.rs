//! The reference authorization server's signing key and its JWT access tokens (RFC 9068's
//! profile: `iss`, `sub`, `aud`, `exp`, `iat`, `nbf`, `jti`, `client_id`, `scope`), signed with
//! ES256 by `jsonwebtoken`, the key published as a JWKS. A [`TokenMinter`] also mints the
//! flawed tokens server-side checks present to a protected MCP server (each [`TokenFlaw`]
//! breaks one rule of `basic/authorization.mdx#token-handling`).

use jsonwebtoken::jwk::{Jwk, JwkSet, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde::{Deserialize, Serialize};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// What went wrong making a key or a token.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TokenError {
    /// The system's random source failed.
    #[error("the system random source failed")]
    Random,
    /// `jsonwebtoken` refused the key or the claims.
    #[error("signing a JWT failed: {0}")]
    Jwt(#[from] jsonwebtoken::errors::Error),
}

/// One ES256 key pair with its key id.
#[derive(Clone)]
pub struct SigningKey {
    kid: String,
    encoding: EncodingKey,
    jwk: Jwk,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SigningKey({})", self.kid)
    }
}

impl SigningKey {
    /// A fresh P-256 key (ring draws it; `jsonwebtoken` signs with it).
    pub fn generate() -> Result<SigningKey, TokenError> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|_| TokenError::Random)?;
        let encoding = EncodingKey::from_ec_der(pkcs8.as_ref());
        let mut jwk = Jwk::from_encoding_key(&encoding, Algorithm::ES256)?;
        let kid = random_string(&rng, 8)?;
        jwk.common.key_id = Some(kid.clone());
        jwk.common.public_key_use = Some(PublicKeyUse::Signature);
        jwk.common.key_algorithm = Some(KeyAlgorithm::ES256);
        Ok(SigningKey { kid, encoding, jwk })
    }

    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// The public half, as a JWK.
    pub fn jwk(&self) -> &Jwk {
        &self.jwk
    }

    fn sign(&self, claims: &Claims) -> Result<String, TokenError> {
        let mut header = Header::new(Algorithm::ES256);
        header.kid = Some(self.kid.clone());
        header.typ = Some("at+jwt".into());
        Ok(jsonwebtoken::encode(&header, claims, &self.encoding)?)
    }
}

/// A JWKS document holding `keys`.
pub fn jwks(keys: &[&SigningKey]) -> JwkSet {
    JwkSet { keys: keys.iter().map(|k| k.jwk.clone()).collect() }
}

/// `len` random bytes as base64url: codes, refresh tokens, client ids and secrets.
pub fn random_string(rng: &SystemRandom, len: usize) -> Result<String, TokenError> {
    use base64::Engine as _;
    let mut bytes = vec![0u8; len];
    rng.fill(&mut bytes).map_err(|_| TokenError::Random)?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The claims of an access token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claims {
    pub iss: String,
    pub sub: String,
    pub aud: String,
    pub exp: u64,
    pub iat: u64,
    pub nbf: u64,
    pub jti: String,
    pub client_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub scope: String,
}

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

/// The one rule a minted token breaks (or none).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenFlaw {
    /// A token the server must serve.
    None,
    /// `exp` an hour ago (401).
    Expired,
    /// `nbf` an hour ahead (401).
    NotYetValid,
    /// `aud` another resource (RFC 8707; 401).
    WrongAudience,
    /// `iss` another authorization server, signed with the right key (401).
    WrongIssuer,
    /// Signed with a key the JWKS does not hold, under the published key id (401).
    BadSignature,
    /// Valid, but without the scopes the server requires (403 `insufficient_scope`).
    MissingScope,
}

impl TokenFlaw {
    /// Every flaw, for tables.
    pub const ALL: [TokenFlaw; 7] = [
        TokenFlaw::None,
        TokenFlaw::Expired,
        TokenFlaw::NotYetValid,
        TokenFlaw::WrongAudience,
        TokenFlaw::WrongIssuer,
        TokenFlaw::BadSignature,
        TokenFlaw::MissingScope,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TokenFlaw::None => "valid",
            TokenFlaw::Expired => "expired",
            TokenFlaw::NotYetValid => "not-yet-valid",
            TokenFlaw::WrongAudience => "wrong-audience",
            TokenFlaw::WrongIssuer => "wrong-issuer",
            TokenFlaw::BadSignature => "bad-signature",
            TokenFlaw::MissingScope => "missing-scope",
        }
    }
}

/// Mints access tokens under one issuer. Cheap to clone; holds no secret that leaves it.
#[derive(Clone, Debug)]
pub struct TokenMinter {
    issuer: String,
    key: SigningKey,
    /// The key behind [`TokenFlaw::BadSignature`]: never published.
    stranger: SigningKey,
    lifetime: Duration,
}

impl TokenMinter {
    pub fn new(issuer: String, key: SigningKey, lifetime: Duration) -> Result<TokenMinter, TokenError> {
        Ok(TokenMinter { issuer, key, stranger: SigningKey::generate()?, lifetime })
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    pub fn key(&self) -> &SigningKey {
        &self.key
    }

    /// An access token for `audience` with `scopes`, for `client_id`.
    pub fn issue(&self, audience: &str, scopes: &[String], client_id: &str) -> Result<String, TokenError> {
        self.mint(TokenFlaw::None, audience, scopes, client_id)
    }

    /// A token with `flaw`; `scopes` are those a valid token would carry (dropped for
    /// [`TokenFlaw::MissingScope`]).
    pub fn mint(
        &self,
        flaw: TokenFlaw,
        audience: &str,
        scopes: &[String],
        client_id: &str,
    ) -> Result<String, TokenError> {
        let now = now();
        let hour = 3600;
        let mut claims = Claims {
            iss: self.issuer.clone(),
            sub: "mcpspec-user".into(),
            aud: audience.into(),
            exp: now + self.lifetime.as_secs().max(1),
            iat: now,
            nbf: now,
            jti: random_string(&SystemRandom::new(), 12)?,
            client_id: client_id.into(),
            scope: scopes.join(" "),
        };
        match flaw {
            TokenFlaw::None => {}
            TokenFlaw::Expired => {
                claims.iat = now - 2 * hour;
                claims.nbf = claims.iat;
                claims.exp = now - hour;
            }
            TokenFlaw::NotYetValid => {
                claims.nbf = now + hour;
                claims.exp = now + 2 * hour;
            }
            TokenFlaw::WrongAudience => claims.aud = format!("{audience}-other"),
            TokenFlaw::WrongIssuer => {
                claims.iss = format!("{}/other-issuer", self.issuer.trim_end_matches('/'))
            }
            TokenFlaw::BadSignature => {
                // The stranger's signature under the published kid: only checking the
                // signature tells it apart.
                let mut header = Header::new(Algorithm::ES256);
                header.kid = Some(self.key.kid.clone());
                header.typ = Some("at+jwt".into());
                return Ok(jsonwebtoken::encode(&header, &claims, &self.stranger.encoding)?);
            }
            TokenFlaw::MissingScope => claims.scope.clear(),
        }
        self.key.sign(&claims)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use jsonwebtoken::{DecodingKey, Validation};

    fn decode(
        token: &str,
        key: &SigningKey,
        iss: &str,
        aud: &str,
    ) -> Result<Claims, jsonwebtoken::errors::Error> {
        let mut v = Validation::new(Algorithm::ES256);
        v.leeway = 0;
        v.validate_nbf = true;
        v.set_issuer(&[iss]);
        v.set_audience(&[aud]);
        let dk = DecodingKey::from_jwk(key.jwk())?;
        jsonwebtoken::decode::<Claims>(token, &dk, &v).map(|d| d.claims)
    }

    #[test]
    fn each_flaw_breaks_exactly_its_rule() {
        let key = SigningKey::generate().unwrap();
        let m = TokenMinter::new("http://127.0.0.1:1".into(), key.clone(), Duration::from_secs(300)).unwrap();
        let (iss, aud, scopes) = ("http://127.0.0.1:1", "http://127.0.0.1:2/mcp", vec!["mcp".to_owned()]);
        for flaw in TokenFlaw::ALL {
            let t = m.mint(flaw, aud, &scopes, "c").unwrap();
            let got = decode(&t, &key, iss, aud);
            match flaw {
                TokenFlaw::None => assert_eq!(got.unwrap().scope, "mcp"),
                TokenFlaw::MissingScope => assert_eq!(got.unwrap().scope, ""),
                _ => assert!(got.is_err(), "{} accepted", flaw.name()),
            }
        }
        let jwks = serde_json::to_value(jwks(&[&key])).unwrap();
        assert_eq!(jwks["keys"][0]["kty"], "EC");
        assert_eq!(jwks["keys"][0]["kid"], key.kid());
        assert!(jwks["keys"][0].get("d").is_none(), "the private part never leaves");
    }
}
