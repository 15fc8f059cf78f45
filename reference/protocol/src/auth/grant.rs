//! The authorization-code grant as an OAuth client speaks it, sans-IO: the authorization request
//! (OAuth 2.1 §4.1.1 with PKCE S256, RFC 8707's `resource`), the authorization response read
//! from the `Location` of the endpoint's redirect (§4.1.2, RFC 9207's `iss`), the token
//! endpoint's answer (§3.2.3, §3.2.4) and dynamic client registration's (RFC 7591 §3.2). The
//! same values serve a check of an authorization server (mcpspec as its client) and anyone
//! judging what a server sent back.
//!
//! Codes, verifiers, tokens and secrets are values here like any other; their `Debug` output
//! never shows them, and whoever shows them to a person redacts them first.

use serde_json::{Map, Value};
use url::Url;

/// What an authorization request asks for (OAuth 2.1 §4.1.1).
#[derive(Clone)]
pub struct AuthorizationRequest {
    pub client_id: String,
    pub redirect_uri: String,
    /// The S256 `code_challenge` of the verifier the client keeps.
    pub code_challenge: String,
    pub state: String,
    /// RFC 8707: the resource the token is for.
    pub resource: Option<String>,
    pub scope: Option<String>,
}

impl std::fmt::Debug for AuthorizationRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationRequest")
            .field("client_id", &self.client_id)
            .field("redirect_uri", &self.redirect_uri)
            .field("resource", &self.resource)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

impl AuthorizationRequest {
    /// The authorization endpoint's URL with the request's parameters added to its query
    /// (an endpoint's own query parameters are kept, OAuth 2.1 §3.1).
    pub fn url(&self, endpoint: &Url) -> Url {
        let mut u = endpoint.clone();
        {
            let mut q = u.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &self.client_id)
                .append_pair("redirect_uri", &self.redirect_uri)
                .append_pair("code_challenge", &self.code_challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &self.state);
            if let Some(r) = &self.resource {
                q.append_pair("resource", r);
            }
            if let Some(s) = &self.scope {
                q.append_pair("scope", s);
            }
        }
        u
    }
}

/// What the authorization endpoint's redirect carried back to the client.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthorizationResponse {
    /// The query parameters of the redirect, in order.
    pub params: Vec<(String, String)>,
}

impl std::fmt::Debug for AuthorizationResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.params.iter().map(|(k, _)| k.as_str()).collect();
        write!(f, "AuthorizationResponse({})", names.join(", "))
    }
}

/// Where a redirect went, when it did not go to the client's redirect URI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RedirectElsewhere {
    /// `Location` is not a URL (relative ones are resolved against the endpoint first).
    NotAUrl(String),
    /// Another URL: a login or consent page of the authorization server, or anywhere else. Only
    /// its scheme, host and path are kept (its query may hold secrets).
    Elsewhere(String),
}

impl AuthorizationResponse {
    /// Reads the redirect `location` (resolved against `endpoint`) as the response to a request
    /// whose redirect URI was `redirect_uri`: the response when it goes there (scheme, host, port
    /// and path equal), else where it went.
    pub fn from_location(
        location: &str,
        endpoint: &Url,
        redirect_uri: &str,
    ) -> Result<AuthorizationResponse, RedirectElsewhere> {
        let target = endpoint.join(location).map_err(|_| RedirectElsewhere::NotAUrl(location.into()))?;
        let Ok(expected) = Url::parse(redirect_uri) else {
            return Err(RedirectElsewhere::Elsewhere(without_query(&target)));
        };
        let same = target.scheme() == expected.scheme()
            && target.host_str() == expected.host_str()
            && target.port_or_known_default() == expected.port_or_known_default()
            && target.path() == expected.path();
        if !same {
            return Err(RedirectElsewhere::Elsewhere(without_query(&target)));
        }
        let params = target.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect();
        Ok(AuthorizationResponse { params })
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.params.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }

    pub fn code(&self) -> Option<&str> {
        self.get("code")
    }

    /// An error response (OAuth 2.1 §4.1.2.1): `error`, and its description when given.
    pub fn error(&self) -> Option<String> {
        let e = self.get("error")?;
        Some(match self.get("error_description") {
            Some(d) => format!("{e} ({d})"),
            None => e.to_owned(),
        })
    }
}

/// `scheme://host:port/path` of a URL: what may be shown of a redirect target.
pub fn without_query(u: &Url) -> String {
    let mut u = u.clone();
    u.set_query(None);
    u.set_fragment(None);
    u.to_string()
}

/// A successful token response (OAuth 2.1 §3.2.3) and what it lacks.
#[derive(Clone)]
pub struct TokenResponse {
    pub access_token: String,
    pub token_type: String,
    pub expires_in: Option<u64>,
    pub refresh_token: Option<String>,
    pub scope: Option<String>,
    pub extra: Map<String, Value>,
}

impl std::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenResponse")
            .field("token_type", &self.token_type)
            .field("expires_in", &self.expires_in)
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| "[redacted]"))
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Why a token endpoint's answer is not a token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TokenResponseError {
    /// Not a JSON object.
    #[error("the token response is not a JSON object")]
    NotAnObject,
    /// `access_token` or `token_type` missing or not a string (OAuth 2.1 §3.2.3).
    #[error("the token response has no {0}")]
    Missing(&'static str),
    /// `token_type` is not `Bearer` (case-insensitive, OAuth 2.1 §3.2.3, RFC 6750 §4).
    #[error("the token_type is {0:?}, not Bearer")]
    NotBearer(String),
}

impl TokenResponse {
    pub fn from_json(v: &Value) -> Result<TokenResponse, TokenResponseError> {
        let Value::Object(m) = v else { return Err(TokenResponseError::NotAnObject) };
        let text = |k: &str| m.get(k).and_then(Value::as_str).map(str::to_owned);
        let access_token = text("access_token").ok_or(TokenResponseError::Missing("access_token"))?;
        let token_type = text("token_type").ok_or(TokenResponseError::Missing("token_type"))?;
        if !token_type.eq_ignore_ascii_case("bearer") {
            return Err(TokenResponseError::NotBearer(token_type));
        }
        let known = ["access_token", "token_type", "expires_in", "refresh_token", "scope"];
        Ok(TokenResponse {
            access_token,
            token_type,
            expires_in: m.get("expires_in").and_then(Value::as_u64),
            refresh_token: text("refresh_token"),
            scope: text("scope"),
            extra: m
                .iter()
                .filter(|(k, _)| !known.contains(&k.as_str()))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        })
    }

    /// The `aud` claim of the access token when it is a JWT (RFC 9068 §2.2), read without
    /// checking its signature: what the token says it is for, not whether to trust it. `None`
    /// for an opaque token.
    pub fn jwt_audience(&self) -> Option<Vec<String>> {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine as _;
        let [_, payload, _] = self.access_token.split('.').collect::<Vec<_>>()[..] else { return None };
        let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
        match claims.get("aud") {
            Some(Value::String(a)) => Some(vec![a.clone()]),
            Some(Value::Array(a)) => Some(a.iter().filter_map(Value::as_str).map(str::to_owned).collect()),
            _ => Some(Vec::new()),
        }
    }
}

/// A dynamic client registration's answer (RFC 7591 §3.2.1): the client's id, and its secret
/// for a confidential client.
#[derive(Clone)]
pub struct RegistrationResponse {
    pub client_id: String,
    pub client_secret: Option<String>,
    pub token_endpoint_auth_method: Option<String>,
    pub redirect_uris: Vec<String>,
}

impl std::fmt::Debug for RegistrationResponse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistrationResponse")
            .field("client_id", &self.client_id)
            .field("token_endpoint_auth_method", &self.token_endpoint_auth_method)
            .field("redirect_uris", &self.redirect_uris)
            .finish_non_exhaustive()
    }
}

impl RegistrationResponse {
    /// The answer's fields; `Err` says what RFC 7591 §3.2.1 requires that it lacks.
    pub fn from_json(v: &Value) -> Result<RegistrationResponse, String> {
        let Value::Object(m) = v else { return Err("the registration response is not a JSON object".into()) };
        let client_id = match m.get("client_id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(_) => return Err("client_id is not a non-empty string".into()),
            None => return Err("the registration response has no client_id".into()),
        };
        Ok(RegistrationResponse {
            client_id,
            client_secret: m.get("client_secret").and_then(Value::as_str).map(str::to_owned),
            token_endpoint_auth_method: m
                .get("token_endpoint_auth_method")
                .and_then(Value::as_str)
                .map(str::to_owned),
            redirect_uris: m
                .get("redirect_uris")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default(),
        })
    }
}

/// The client metadata a public MCP client registers with (RFC 7591 §2): the redirect URI, the
/// code and refresh grants, no client authentication.
pub fn public_client_metadata(client_name: &str, redirect_uri: &str) -> Value {
    serde_json::json!({
        "client_name": client_name,
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": "none",
    })
}

/// The form of a token request: `pairs`, form-urlencoded (OAuth 2.1 §3.2.2).
pub fn form(pairs: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in pairs {
        s.append_pair(k, v);
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn endpoint() -> Url {
        Url::parse("https://as.example.com/authorize?tenant=a").unwrap()
    }

    fn request() -> AuthorizationRequest {
        AuthorizationRequest {
            client_id: "c1".into(),
            redirect_uri: "http://127.0.0.1:9/cb".into(),
            code_challenge: "ch".into(),
            state: "st".into(),
            resource: Some("https://mcp.example.com/mcp".into()),
            scope: None,
        }
    }

    #[test]
    fn the_request_keeps_the_endpoints_query_and_asks_for_s256() {
        let u = request().url(&endpoint());
        let q: Vec<(String, String)> = u.query_pairs().into_owned().collect();
        assert_eq!(q[0], ("tenant".into(), "a".into()));
        assert!(q.contains(&("code_challenge_method".into(), "S256".into())));
        assert!(q.contains(&("resource".into(), "https://mcp.example.com/mcp".into())));
        assert!(!q.iter().any(|(k, _)| k == "scope"));
        assert!(!format!("{:?}", request()).contains("ch\""), "the challenge is not shown");
    }

    #[test]
    fn a_redirect_is_read_only_when_it_goes_to_the_redirect_uri() {
        let r = AuthorizationResponse::from_location(
            "http://127.0.0.1:9/cb?code=abc&state=st&iss=https%3A%2F%2Fas.example.com",
            &endpoint(),
            "http://127.0.0.1:9/cb",
        )
        .unwrap();
        assert_eq!(
            (r.code(), r.get("state"), r.get("iss")),
            (Some("abc"), Some("st"), Some("https://as.example.com"))
        );
        assert!(!format!("{r:?}").contains("abc"));
        let e = AuthorizationResponse::from_location(
            "/login?session=secret",
            &endpoint(),
            "http://127.0.0.1:9/cb",
        );
        assert_eq!(e, Err(RedirectElsewhere::Elsewhere("https://as.example.com/login".into())));
        let other_path = AuthorizationResponse::from_location(
            "http://127.0.0.1:9/cb/x?code=1",
            &endpoint(),
            "http://127.0.0.1:9/cb",
        );
        assert!(other_path.is_err());
        let err = AuthorizationResponse::from_location(
            "http://127.0.0.1:9/cb?error=access_denied&error_description=no",
            &endpoint(),
            "http://127.0.0.1:9/cb",
        )
        .unwrap();
        assert_eq!(err.error().as_deref(), Some("access_denied (no)"));
        assert!(matches!(
            AuthorizationResponse::from_location("http://[::1", &endpoint(), "x"),
            Err(RedirectElsewhere::NotAUrl(_))
        ));
    }

    #[test]
    fn token_responses() {
        let t = TokenResponse::from_json(
            &json!({"access_token": "a.b.c", "token_type": "bearer", "expires_in": 60, "x": 1}),
        )
        .unwrap();
        assert_eq!((t.expires_in, t.extra.len()), (Some(60), 1));
        assert_eq!(TokenResponse::from_json(&json!([])).unwrap_err(), TokenResponseError::NotAnObject);
        assert_eq!(
            TokenResponse::from_json(&json!({"token_type": "Bearer"})).unwrap_err(),
            TokenResponseError::Missing("access_token")
        );
        assert!(matches!(
            TokenResponse::from_json(&json!({"access_token": "x", "token_type": "mac"})),
            Err(TokenResponseError::NotBearer(_))
        ));
        use base64::Engine as _;
        let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
        let jwt = format!("{}.{}.sig", b64("{}"), b64(r#"{"aud":["https://mcp.example.com/mcp","x"]}"#));
        let t = TokenResponse::from_json(&json!({"access_token": jwt, "token_type": "Bearer"})).unwrap();
        assert_eq!(t.jwt_audience().unwrap(), ["https://mcp.example.com/mcp", "x"]);
        let opaque =
            TokenResponse::from_json(&json!({"access_token": "opaque", "token_type": "Bearer"})).unwrap();
        assert_eq!(opaque.jwt_audience(), None);
    }

    #[test]
    fn registration_responses_need_a_client_id() {
        let r = RegistrationResponse::from_json(
            &json!({"client_id": "c", "client_secret": "s", "redirect_uris": ["u"]}),
        )
        .unwrap();
        assert_eq!((r.client_id.as_str(), r.redirect_uris.len()), ("c", 1));
        assert!(!format!("{r:?}").contains("\"s\""));
        assert!(RegistrationResponse::from_json(&json!({"client_name": "x"}))
            .unwrap_err()
            .contains("no client_id"));
        assert!(RegistrationResponse::from_json(&json!({"client_id": ""})).is_err());
        assert_eq!(form(&[("a", "b c"), ("d", "&")]), "a=b+c&d=%26");
        assert_eq!(public_client_metadata("n", "u")["token_endpoint_auth_method"], "none");
    }
}
