//! `WWW-Authenticate` challenges (RFC 9110 §11.6.1) and the `Bearer` scheme's parameters
//! (RFC 6750 §3): `realm`, `scope`, `error`, `error_description`, `error_uri`, and RFC 9728
//! §5.1's `resource_metadata`, with which a protected MCP server says where its protected
//! resource metadata is (`basic/authorization.mdx#authorization-server-location`, 2025-06-18;
//! `#protected-resource-metadata-discovery-requirements`, 2025-11-25 on).
//!
//! The parser reads every challenge of a header value (a server may offer `Basic` and `Bearer`
//! in one field) and tells a malformed value apart from one without a `Bearer` challenge, so a
//! check can say which.

use std::fmt;

/// One challenge: its scheme and either a `token68` or its parameters (names lower-cased, as
/// they compare case-insensitively; values unquoted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Challenge {
    pub scheme: String,
    pub token68: Option<String>,
    pub params: Vec<(String, String)>,
}

/// Why a `WWW-Authenticate` value could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChallengeError {
    /// The value holds no challenge at all.
    #[error("the WWW-Authenticate value is empty")]
    Empty,
    /// Something other than a token stands where a scheme or a parameter name must be.
    #[error("unexpected {found:?} at byte {at} of the WWW-Authenticate value (expected a token)")]
    ExpectedToken { at: usize, found: char },
    /// A quoted string is not closed.
    #[error("a quoted string opened at byte {at} of the WWW-Authenticate value is not closed")]
    UnclosedQuote { at: usize },
    /// A parameter value is missing after `=`.
    #[error("parameter {name:?} has no value in the WWW-Authenticate value")]
    MissingValue { name: String },
}

/// The `Bearer` challenge's parameters this crate knows, and those it does not.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BearerChallenge {
    pub realm: Option<String>,
    /// Space-delimited, as sent (see [`super::split_scope`]).
    pub scope: Option<String>,
    pub error: Option<String>,
    pub error_description: Option<String>,
    pub error_uri: Option<String>,
    /// RFC 9728 §5.1: the URL of the protected resource metadata.
    pub resource_metadata: Option<String>,
    /// Any other parameter, in order.
    pub other: Vec<(String, String)>,
    /// Parameters that appeared more than once (RFC 6750 §3: each MUST NOT), first value kept.
    pub repeated: Vec<String>,
}

/// Every challenge in the `WWW-Authenticate` field values given (one response may carry the
/// header several times).
pub fn parse<S: AsRef<str>>(values: &[S]) -> Result<Vec<Challenge>, ChallengeError> {
    let mut out = Vec::new();
    for value in values {
        out.extend(parse_one(value.as_ref())?);
    }
    if out.is_empty() {
        return Err(ChallengeError::Empty);
    }
    Ok(out)
}

impl BearerChallenge {
    /// The first `Bearer` challenge of the field values, if one is there.
    pub fn find<S: AsRef<str>>(values: &[S]) -> Result<Option<BearerChallenge>, ChallengeError> {
        Ok(parse(values)?
            .into_iter()
            .find(|c| c.scheme.eq_ignore_ascii_case("bearer"))
            .map(|c| BearerChallenge::from_params(&c.params)))
    }

    fn from_params(params: &[(String, String)]) -> BearerChallenge {
        let mut out = BearerChallenge::default();
        let mut seen: Vec<&str> = Vec::new();
        for (name, value) in params {
            if seen.contains(&name.as_str()) {
                if !out.repeated.contains(name) {
                    out.repeated.push(name.clone());
                }
                continue;
            }
            seen.push(name);
            let slot = match name.as_str() {
                "realm" => &mut out.realm,
                "scope" => &mut out.scope,
                "error" => &mut out.error,
                "error_description" => &mut out.error_description,
                "error_uri" => &mut out.error_uri,
                "resource_metadata" => &mut out.resource_metadata,
                _ => {
                    out.other.push((name.clone(), value.clone()));
                    continue;
                }
            };
            *slot = Some(value.clone());
        }
        out
    }
}

/// The header value: `Bearer` followed by the parameters present, each quoted.
impl fmt::Display for BearerChallenge {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known = [
            ("realm", &self.realm),
            ("resource_metadata", &self.resource_metadata),
            ("scope", &self.scope),
            ("error", &self.error),
            ("error_description", &self.error_description),
            ("error_uri", &self.error_uri),
        ];
        let params = known
            .iter()
            .filter_map(|(n, v)| v.as_ref().map(|v| (*n, v.as_str())))
            .chain(self.other.iter().map(|(n, v)| (n.as_str(), v.as_str())));
        f.write_str("Bearer")?;
        for (i, (name, value)) in params.enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write!(f, "{name}=\"")?;
            for c in value.chars() {
                if c == '"' || c == '\\' {
                    f.write_str("\\")?;
                }
                write!(f, "{c}")?;
            }
            f.write_str("\"")?;
        }
        Ok(())
    }
}

fn is_tchar(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

fn is_token68_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~+/".contains(&b)
}

struct Cursor<'a> {
    s: &'a str,
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.as_bytes().get(self.at).copied()
    }
    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }
    fn skip_ws_and_commas(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b',')) {
            self.at += 1;
        }
    }
    fn token(&mut self) -> &str {
        let start = self.at;
        while self.peek().is_some_and(is_tchar) {
            self.at += 1;
        }
        &self.s[start..self.at]
    }
    fn unexpected(&self) -> ChallengeError {
        let found = self.s[self.at..].chars().next().unwrap_or(' ');
        ChallengeError::ExpectedToken { at: self.at, found }
    }
    fn quoted(&mut self) -> Result<String, ChallengeError> {
        let open = self.at;
        self.at += 1;
        let mut out = String::new();
        let mut chars = self.s[self.at..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.at += i + 1;
                    return Ok(out);
                }
                '\\' => match chars.next() {
                    Some((_, escaped)) => out.push(escaped),
                    None => break,
                },
                c => out.push(c),
            }
        }
        Err(ChallengeError::UnclosedQuote { at: open })
    }
}

fn parse_one(s: &str) -> Result<Vec<Challenge>, ChallengeError> {
    let mut c = Cursor { s, at: 0 };
    let mut out = Vec::new();
    loop {
        c.skip_ws_and_commas();
        if c.peek().is_none() {
            return Ok(out);
        }
        let scheme = c.token().to_owned();
        if scheme.is_empty() {
            return Err(c.unexpected());
        }
        let mut challenge = Challenge { scheme, token68: None, params: Vec::new() };
        c.skip_ws();
        // Parameters (or one token68) until the next challenge's scheme or the end.
        loop {
            c.skip_ws_and_commas();
            let start = c.at;
            if c.peek().is_none() {
                break;
            }
            let name = c.token().to_owned();
            if name.is_empty() {
                return Err(c.unexpected());
            }
            c.skip_ws();
            if c.peek() != Some(b'=') {
                // A token not followed by `=`: a token68 right after the scheme, else the
                // scheme of the next challenge.
                let is_68 = challenge.params.is_empty()
                    && challenge.token68.is_none()
                    && name.bytes().all(is_token68_char);
                if is_68 && matches!(c.peek(), None | Some(b',')) && start_follows_scheme(s, start) {
                    challenge.token68 = Some(name);
                    continue;
                }
                c.at = start;
                break;
            }
            let eq = c.at;
            c.at += 1;
            c.skip_ws();
            let value = match c.peek() {
                Some(b'"') => c.quoted()?,
                Some(b) if is_tchar(b) => c.token().to_owned(),
                // `abc=` or `abc==`: a token68 with padding, right after the scheme.
                Some(b'=') | Some(b',') | None
                    if challenge.params.is_empty() && name.bytes().all(is_token68_char) =>
                {
                    c.at = eq;
                    while c.peek() == Some(b'=') {
                        c.at += 1;
                    }
                    challenge.token68 = Some(s[start..c.at].to_owned());
                    continue;
                }
                _ => return Err(ChallengeError::MissingValue { name }),
            };
            challenge.params.push((name.to_ascii_lowercase(), value));
        }
        out.push(challenge);
    }
}

/// Whether the text before `at` ends with the scheme and spaces (no comma): only there may a
/// token68 stand.
fn start_follows_scheme(s: &str, at: usize) -> bool {
    let before = s[..at].trim_end_matches([' ', '\t']);
    before.len() < at && before.bytes().last().is_some_and(is_tchar)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn bearer_with_resource_metadata_and_scope() {
        let v = r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read""#;
        let b = BearerChallenge::find(&[v]).unwrap().unwrap();
        assert_eq!(
            b.resource_metadata.as_deref(),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(b.scope.as_deref(), Some("files:read"));
        assert!(b.error.is_none());
    }

    #[test]
    fn several_challenges_in_one_value_and_across_values() {
        let all =
            parse(&[r#"Basic realm="x", Bearer error=invalid_token, realm="mcp""#, "Newauth abc=="]).unwrap();
        assert_eq!(all.len(), 3);
        assert_eq!(all[0].scheme, "Basic");
        assert_eq!(
            all[1].params,
            vec![("error".into(), "invalid_token".into()), ("realm".into(), "mcp".into())]
        );
        assert_eq!(all[2].token68.as_deref(), Some("abc=="));
        let b = BearerChallenge::find(&[r#"Basic realm="x", bearer error=invalid_token"#]).unwrap();
        assert_eq!(b.unwrap().error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn bare_bearer_and_no_bearer_are_told_apart_from_garbage() {
        assert_eq!(BearerChallenge::find(&["Bearer"]).unwrap(), Some(BearerChallenge::default()));
        assert_eq!(BearerChallenge::find(&[r#"Basic realm="x""#]).unwrap(), None);
        assert!(matches!(parse(&[""]), Err(ChallengeError::Empty)));
        assert!(matches!(parse(&["Bearer realm=\"x"]), Err(ChallengeError::UnclosedQuote { .. })));
        assert!(matches!(parse(&["Bearer a=1, scope=, x=1"]), Err(ChallengeError::MissingValue { .. })));
        assert!(matches!(parse(&["{}"]), Err(ChallengeError::ExpectedToken { .. })));
    }

    #[test]
    fn names_are_case_insensitive_and_repeats_are_recorded() {
        let b = BearerChallenge::find(&[r#"Bearer Scope="a", scope="b", Foo=bar"#]).unwrap().unwrap();
        assert_eq!(b.scope.as_deref(), Some("a"));
        assert_eq!(b.repeated, vec!["scope"]);
        assert_eq!(b.other, vec![("foo".into(), "bar".into())]);
    }

    #[test]
    fn format_quotes_and_escapes() {
        let b = BearerChallenge {
            resource_metadata: Some("http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp".into()),
            scope: Some("a b".into()),
            error: Some("insufficient_scope".into()),
            error_description: Some(r#"say "hi" \ bye"#.into()),
            ..Default::default()
        };
        assert_eq!(
            b.to_string(),
            r#"Bearer resource_metadata="http://127.0.0.1:1/.well-known/oauth-protected-resource/mcp", scope="a b", error="insufficient_scope", error_description="say \"hi\" \\ bye""#
        );
        assert_eq!(BearerChallenge::find(&[b.to_string()]).unwrap(), Some(b));
    }

    proptest! {
        #[test]
        fn format_then_parse_is_identity(
            realm in proptest::option::of("[ -~]{0,12}"),
            rm in proptest::option::of("[ -~]{0,40}"),
            scope in proptest::option::of("[a-z:]{1,6}( [a-z:]{1,6}){0,3}"),
            error in proptest::option::of("[a-z_]{1,20}"),
            desc in proptest::option::of("[ -~]{0,30}"),
            other in proptest::collection::vec(("x_[a-z]{1,5}", "[ -~]{0,10}"), 0..3),
        ) {
            let mut other = other;
            other.sort();
            other.dedup_by(|a, b| a.0 == b.0);
            let b = BearerChallenge { realm, resource_metadata: rm, scope, error, error_description: desc, other, ..Default::default() };
            prop_assert_eq!(BearerChallenge::find(&[b.to_string()]).unwrap(), Some(b));
        }

        #[test]
        fn parse_never_panics(s in "\\PC{0,60}") {
            let _ = parse(&[s]);
        }
    }
}
