//! Steps of the authorization scenarios (`authorization.feature`): requests outside any
//! session to a protected server (the first one without a token, a token presented, the
//! metadata looked for), each judged against the scenario's clause. The requests and the
//! discovery are the library's ([`mcpspec::session::server::auth`]; at 2025-03-26 the metadata at
//! the server's origin is found as an authorization server's, [`mcpspec::session::authorization`]);
//! the rules of the documents and endpoints are the protocol crate's ([`mcpspec_protocol::auth`]). No step ever writes a token into a
//! check: the checks say which kind of token was presented.

use super::{Halt, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec::session::authorization as oauth;
use mcpspec::session::server::auth::{self as probe, Answer, Discovery};
use mcpspec::session::target::Target;
use mcpspec_protocol::auth::discovery::{
    default_endpoint_2025_03_26, endpoint_problem, EndpointAnswer, DEFAULT_ENDPOINTS_2025_03_26,
};
use mcpspec_protocol::auth::metadata::MetadataProblem;
use mcpspec_protocol::auth::{AuthorizationServerMetadata, CanonicalResource, ProtectedResourceMetadata};
use mcpspec_protocol::Revision;
use mcpspec_reference::auth::TokenFlaw;
use mcpspec_reference::transport::http_client::oneshot::RawRequest;
use mcpspec_reference::transport::http_client::HttpClientOptions;
use url::Url;

/// What an authorization scenario has seen so far.
#[derive(Debug, Default)]
pub struct AuthState {
    /// The answer to the first request without a token (the Given step's).
    first: Option<Answer>,
    /// The answer to the last request a When step made, and what it presented.
    answer: Option<(Answer, String)>,
    prm: Option<Discovery<ProtectedResourceMetadata>>,
    /// Each authorization server of the PRM, and its metadata looked for.
    servers: Vec<(String, Discovery<AuthorizationServerMetadata>)>,
    /// 2025-03-26: the metadata looked for at the server's origin.
    origin_metadata: Option<Discovery<AuthorizationServerMetadata>>,
    /// 2025-03-26: each endpoint of the code flow tried (its member, URL, whether a 404 only says
    /// it is not offered) and what it answered.
    endpoints: Vec<(&'static str, Url, bool, Result<EndpointAnswer, String>)>,
}

/// The token string no server can take for a token of its issuer.
const GARBAGE: &str = "mcpspec-garbage-token-not-a-jwt";

impl ServerWorld {
    fn http_options(&mut self) -> Result<HttpClientOptions, Halt> {
        match &self.ctx().target {
            Target::Http(o) => Ok(o.clone()),
            _ => Err(self.skip("the server is not reached over HTTP: authorization is HTTP's".into())),
        }
    }

    /// Sends `request`; a 2xx that opened a session is ended again with DELETE, with the same
    /// token, so that no scenario leaves sessions behind.
    async fn present(&mut self, request: RawRequest) -> Result<Answer, Halt> {
        let within = self.timeout();
        let answer = match probe::send(&request, within).await {
            Ok(a) => a,
            Err(e) => return Err(self.fail("an HTTP answer", e)),
        };
        let session = answer.response.header_values("mcp-session-id").first().map(|s| s.to_string());
        if let (true, Some(id)) = ((200..300).contains(&answer.status()), session) {
            let mut headers: Vec<(String, String)> =
                request.headers.iter().filter(|(k, _)| k == "authorization").cloned().collect();
            headers.push(("mcp-session-id".into(), id));
            let delete = RawRequest { method: "DELETE", url: request.url.clone(), headers, body: None };
            let _ = probe::send(&delete, within).await;
        }
        Ok(answer)
    }

    fn last_answer(&mut self) -> Result<(Answer, String), Halt> {
        match self.auth.answer.clone() {
            Some(a) => Ok(a),
            None => Err(self.harness_error("no request was presented (a When step is missing)".into())),
        }
    }

    fn prm_document(&mut self) -> Result<ProtectedResourceMetadata, Halt> {
        let Some(d) = self.auth.prm.as_ref() else {
            return Err(self.harness_error("the metadata was not looked for (a When step is missing)".into()));
        };
        match &d.found {
            Some((_, Ok(doc))) => Ok(doc.clone()),
            Some((url, Err(e))) => {
                let actual = format!("{url}: {e}");
                Err(self.fail("protected resource metadata (RFC 9728)", actual))
            }
            None => {
                let actual = format!("none found: {}", d.describe());
                Err(self.fail("protected resource metadata (RFC 9728)", actual))
            }
        }
    }
}

#[given("a protected server")]
async fn protected_server(w: &mut ServerWorld) -> Result<(), Halt> {
    let options = w.http_options()?;
    let request = probe::first_request(&options, w.scenario.revision);
    let answer = w.present(request).await?;
    let status = answer.status();
    w.auth.first = Some(answer);
    if status != 401 && !w.ctx().auth.asserted() {
        return Err(w.skip(format!(
            "the server answered HTTP {status} to a request without a token: it is not protected \
             (run with --auth-token or --auth-issuer to assert that it is)"
        )));
    }
    Ok(())
}

#[given("the server serves no authorization server metadata at its origin")]
async fn no_origin_metadata(w: &mut ServerWorld) -> Result<(), Halt> {
    looks_at_origin(w).await?;
    if let Some((url, parsed)) = w.auth.origin_metadata.as_ref().and_then(|d| d.found.clone()) {
        let what = match parsed {
            Ok(_) => String::new(),
            Err(e) => format!(" (not valid: {e})"),
        };
        return Err(w.skip(format!(
            "the server serves authorization server metadata at {url}{what}: a client uses the \
             endpoints it names (authorization/legacy-metadata-at-origin judges it), not the defaults"
        )));
    }
    Ok(())
}

#[given("a token for the server")]
async fn a_token(w: &mut ServerWorld) -> Result<(), Halt> {
    if w.ctx().auth.token.is_none() {
        return Err(
            w.skip("mcpspec holds no token for the server: run with --auth-token T or --auth-issuer".into())
        );
    }
    Ok(())
}

#[given("a token the server accepts")]
async fn a_token_accepted(w: &mut ServerWorld) -> Result<(), Halt> {
    a_token(w).await?;
    let token = w.ctx().auth.token.clone().unwrap_or_default();
    let options = w.http_options()?;
    let request = probe::with_bearer(probe::first_request(&options, w.scenario.revision), &token);
    let answer = w.present(request).await?;
    if !(200..300).contains(&answer.status()) {
        // Refusing every token would pass every refusal below: nothing would be shown.
        return Err(w.skip(format!(
            "the server refused the token mcpspec holds ({}): see authorization/valid-token-served",
            answer.describe()
        )));
    }
    Ok(())
}

#[given("the server asks for a scope")]
async fn asks_for_scope(w: &mut ServerWorld) -> Result<(), Halt> {
    if w.ctx().auth.scopes.is_empty() {
        return Err(w.skip(
            "the server names no scope (neither its challenge nor its protected resource metadata): \
             a token cannot lack one"
                .into(),
        ));
    }
    Ok(())
}

#[when("the client sends its first request without a token")]
async fn first_without_token(w: &mut ServerWorld) -> Result<(), Halt> {
    let options = w.http_options()?;
    let answer = w.present(probe::first_request(&options, w.scenario.revision)).await?;
    w.auth.answer = Some((answer, "the first request, without a token".into()));
    Ok(())
}

#[when(expr = "the client presents a {string} token")]
async fn presents(w: &mut ServerWorld, kind: String) -> Result<(), Halt> {
    let ctx = w.ctx();
    let held = || ctx.auth.token.clone();
    let (token, what) = match kind.as_str() {
        "garbage" => (Some(GARBAGE.to_owned()), "a string that is no token of any issuer".to_owned()),
        "valid" => (held(), "the token mcpspec holds".to_owned()),
        "tampered" => (
            held().map(|t| probe::tamper(&t)),
            "the token mcpspec holds, one character of its payload changed".to_owned(),
        ),
        name => {
            let Some(flaw) = TokenFlaw::ALL.into_iter().find(|f| f.name() == name) else {
                return Err(w.harness_error(format!("no token kind {name:?}")));
            };
            if ctx.auth.issuer.is_none() {
                return Err(w.skip(
                    "mcpspec is not the server's issuer: run with --auth-issuer to present minted tokens"
                        .into(),
                ));
            }
            (ctx.auth.mint(flaw), format!("a token mcpspec minted, otherwise valid: {name}"))
        }
    };
    let Some(token) = token else {
        return Err(
            w.skip("mcpspec holds no token for the server: run with --auth-token T or --auth-issuer".into())
        );
    };
    let options = w.http_options()?;
    let request = probe::with_bearer(probe::first_request(&options, w.scenario.revision), &token);
    let answer = w.present(request).await?;
    w.auth.answer = Some((answer, what));
    Ok(())
}

#[when("the client sends the token in the query string only")]
async fn token_in_query(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(token) = w.ctx().auth.token.clone() else {
        return Err(
            w.skip("mcpspec holds no token for the server: run with --auth-token T or --auth-issuer".into())
        );
    };
    let options = w.http_options()?;
    let request = probe::with_query_token(probe::first_request(&options, w.scenario.revision), &token);
    let answer = w.present(request).await?;
    w.auth.answer = Some((
        answer,
        "the token mcpspec holds as access_token in the query, no Authorization header".into(),
    ));
    Ok(())
}

#[when("the client looks for the protected resource metadata")]
async fn looks_for_prm(w: &mut ServerWorld) -> Result<(), Halt> {
    let options = w.http_options()?;
    let challenge = w.auth.first.as_ref().and_then(|a| a.challenge.clone().ok().flatten());
    let within = w.timeout();
    let d = probe::find_prm(w.scenario.revision, &options.url, challenge.as_ref(), within).await;
    w.auth.prm = Some(d);
    Ok(())
}

#[when("the client looks for each authorization server's metadata")]
async fn looks_for_as(w: &mut ServerWorld) -> Result<(), Halt> {
    let prm = w.prm_document()?;
    let within = w.timeout();
    for issuer in probe::authorization_servers(&prm) {
        let d = probe::find_as_metadata(w.scenario.revision, issuer, within).await;
        w.auth.servers.push((issuer.clone(), d));
    }
    Ok(())
}

#[when("the client looks for the authorization server metadata at the server's origin")]
async fn looks_at_origin(w: &mut ServerWorld) -> Result<(), Halt> {
    let options = w.http_options()?;
    let within = w.timeout();
    // The endpoint's URL with its path dropped (`#authorization-base-url`).
    w.auth.origin_metadata = Some(oauth::discover(Revision::V2025_03_26, &options.url, within).await);
    Ok(())
}

#[when("the client tries the endpoints of the code flow at the server's origin")]
async fn tries_endpoints(w: &mut ServerWorld) -> Result<(), Halt> {
    let options = w.http_options()?;
    let metadata = w.auth.origin_metadata.as_ref().and_then(Discovery::document).cloned();
    // The endpoints the metadata names, or the default ones: registration, a SHOULD, may be
    // absent from either.
    let named: Vec<(&'static str, Url, bool)> = match &metadata {
        Some(m) => [
            ("authorization_endpoint", &m.authorization_endpoint),
            ("token_endpoint", &m.token_endpoint),
            ("registration_endpoint", &m.registration_endpoint),
        ]
        .into_iter()
        .filter_map(|(member, v)| Some((member, Url::parse(v.as_deref()?).ok()?, false)))
        .collect(),
        None => DEFAULT_ENDPOINTS_2025_03_26
            .iter()
            .filter_map(|(member, _)| {
                let url = default_endpoint_2025_03_26(&options.url, member)?;
                Some((*member, url, *member == "registration_endpoint"))
            })
            .collect(),
    };
    let within = w.timeout();
    for (member, url, optional) in named {
        let answer = probe::try_endpoint(member, &url, within).await;
        w.auth.endpoints.push((member, url, optional, answer));
    }
    Ok(())
}

#[then("the server refuses it with 401 and a Bearer challenge")]
async fn refused_with_challenge(w: &mut ServerWorld) -> Result<(), Halt> {
    let (a, what) = w.last_answer()?;
    let ok = a.status() == 401 && matches!(a.challenge, Ok(Some(_)));
    let actual = match &a.challenge {
        Err(e) => format!("{} ({e})", a.describe()),
        Ok(_) => a.describe(),
    };
    w.check(ok, format!("HTTP 401 with WWW-Authenticate: Bearer … to {what}"), actual);
    Ok(())
}

#[then("the server refuses it with 401")]
async fn refused_401(w: &mut ServerWorld) -> Result<(), Halt> {
    let (a, what) = w.last_answer()?;
    w.check(a.status() == 401, format!("HTTP 401 to {what}"), a.describe());
    Ok(())
}

#[then("the server serves it")]
async fn served(w: &mut ServerWorld) -> Result<(), Halt> {
    let (a, what) = w.last_answer()?;
    w.check((200..300).contains(&a.status()), format!("a 2xx answer to {what}"), a.describe());
    Ok(())
}

#[then("the server refuses it with 403 insufficient_scope, naming the scope and the metadata")]
async fn refused_403(w: &mut ServerWorld) -> Result<(), Halt> {
    let (a, what) = w.last_answer()?;
    let c = a.challenge.clone().ok().flatten().unwrap_or_default();
    let ok = a.status() == 403
        && c.error.as_deref() == Some("insufficient_scope")
        && c.scope.is_some()
        && c.resource_metadata.is_some();
    let expected = format!(
        "HTTP 403 with WWW-Authenticate: Bearer error=\"insufficient_scope\", scope and resource_metadata, to {what}"
    );
    w.check(ok, expected, a.describe());
    Ok(())
}

#[then("the challenge names where the protected resource metadata is")]
async fn challenge_names_prm(w: &mut ServerWorld) -> Result<(), Halt> {
    let (a, _) = w.last_answer()?;
    let challenge = a.challenge.clone().ok().flatten();
    let Some(url) = challenge.as_ref().and_then(|c| c.resource_metadata.clone()) else {
        return Err(w.fail("a resource_metadata parameter in the 401's Bearer challenge", a.describe()));
    };
    let options = w.http_options()?;
    let within = w.timeout();
    let d = probe::find_prm(w.scenario.revision, &options.url, challenge.as_ref(), within).await;
    let ok = !d.challenge_url_failed && d.document().is_some();
    w.check(ok, format!("protected resource metadata at {url}"), d.describe());
    Ok(())
}

#[then("the challenge carries no error code")]
async fn no_error_code(w: &mut ServerWorld) -> Result<(), Halt> {
    let (a, what) = w.last_answer()?;
    let Ok(Some(c)) = a.challenge.clone() else {
        return Err(w.fail(format!("a Bearer challenge to {what}"), a.describe()));
    };
    w.check(c.error.is_none(), format!("a Bearer challenge without error to {what}"), a.describe());
    Ok(())
}

#[then("the challenge names the scopes the server needs")]
async fn challenge_names_scope(w: &mut ServerWorld) -> Result<(), Halt> {
    let (a, _) = w.last_answer()?;
    let scope = a.challenge.clone().ok().flatten().and_then(|c| c.scope).filter(|s| !s.trim().is_empty());
    w.check(scope.is_some(), "a scope parameter in the 401's Bearer challenge (RFC 6750 §3)", a.describe());
    Ok(())
}

#[then("the protected resource metadata is found")]
async fn prm_found(w: &mut ServerWorld) -> Result<(), Halt> {
    let prm = w.prm_document()?;
    let failed = w.auth.prm.as_ref().is_some_and(|d| d.challenge_url_failed);
    let tried = w.auth.prm.as_ref().map(Discovery::describe).unwrap_or_default();
    w.check(
        !failed,
        "the metadata at the challenge's resource_metadata, when the challenge names one",
        format!("{tried} (resource {:?})", prm.resource),
    );
    Ok(())
}

#[then("its resource is the server's canonical URI")]
async fn prm_resource(w: &mut ServerWorld) -> Result<(), Halt> {
    let prm = w.prm_document()?;
    let options = w.http_options()?;
    let Ok(me) = CanonicalResource::of_endpoint(&options.url) else {
        return Err(w.harness_error(format!("{} has no canonical form", options.url)));
    };
    w.check(
        me.matches(&prm.resource),
        format!("resource {:?}", me.as_str()),
        format!("resource {:?}", prm.resource),
    );
    Ok(())
}

#[then("it names at least one authorization server")]
async fn prm_servers(w: &mut ServerWorld) -> Result<(), Halt> {
    let prm = w.prm_document()?;
    let options = w.http_options()?;
    let me = CanonicalResource::of_endpoint(&options.url)
        .unwrap_or_else(|_| CanonicalResource::parse("http://unknown.invalid").expect("a literal resource"));
    let problems: Vec<String> = prm
        .problems(&me)
        .into_iter()
        .filter(|p| matches!(p, MetadataProblem::NoAuthorizationServers | MetadataProblem::NotAnUrl { .. }))
        .map(|p| p.to_string())
        .collect();
    let actual = match problems.is_empty() {
        true => format!("authorization_servers {:?}", prm.authorization_servers),
        false => problems.join("; "),
    };
    w.check(problems.is_empty(), "authorization_servers: one URL or more", actual);
    Ok(())
}

#[then("each authorization server's metadata is found, names its issuer and offers S256")]
async fn as_metadata_valid(w: &mut ServerWorld) -> Result<(), Halt> {
    let servers = std::mem::take(&mut w.auth.servers);
    if servers.is_empty() {
        return Err(w.fail("an authorization server to look at", "the metadata names none"));
    }
    for (issuer, d) in servers {
        let expected = format!("metadata of {issuer} naming it as issuer and listing S256");
        let actual = match &d.found {
            None => format!("none found: {}", d.describe()),
            Some((url, Err(e))) => format!("{url}: {e}"),
            Some((url, Ok(m))) => {
                let problems: Vec<String> = m.problems(&issuer).iter().map(|p| p.to_string()).collect();
                if problems.is_empty() {
                    w.check(true, expected, format!("{url}: valid"));
                    continue;
                }
                format!("{url}: {}", problems.join("; "))
            }
        };
        w.check(false, expected, actual);
    }
    Ok(())
}

#[then("neither the challenge nor the metadata lists offline_access")]
async fn no_offline_access(w: &mut ServerWorld) -> Result<(), Halt> {
    let prm = w.prm_document()?;
    let challenged = w
        .auth
        .first
        .as_ref()
        .and_then(|a| a.challenge.clone().ok().flatten())
        .and_then(|c| c.scope)
        .is_some_and(|s| mcpspec_protocol::auth::split_scope(&s).iter().any(|s| s == "offline_access"));
    let listed = prm.advertises_offline_access();
    let actual = match (challenged, listed) {
        (false, false) => "neither lists it".to_owned(),
        (true, _) => "the challenge's scope lists offline_access".to_owned(),
        (false, true) => "scopes_supported lists offline_access".to_owned(),
    };
    w.check(!challenged && !listed, "no offline_access in the challenge's scope or scopes_supported", actual);
    Ok(())
}

#[then("the metadata is found there and names the endpoints of the code flow")]
async fn origin_metadata_valid(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(d) = w.auth.origin_metadata.clone() else {
        return Err(w.harness_error("the metadata was not looked for (a When step is missing)".into()));
    };
    let expected = "authorization server metadata (RFC 8414) at the origin's well-known URL, naming \
                    authorization_endpoint, token_endpoint and response_types_supported, as URLs";
    let m = match &d.found {
        Some((_, Ok(m))) => m.clone(),
        Some((url, Err(e))) => return Err(w.fail(expected, format!("{}; {url}: {e}", d.describe()))),
        None => {
            // A common slip: the metadata where RFC 8414 puts an issuer with the endpoint's
            // path, which no 2025-03-26 client looks at. Said, not judged.
            let options = w.http_options()?;
            let within = w.timeout();
            let elsewhere = match options.url.path().trim_end_matches('/').is_empty() {
                true => None,
                false => oauth::discover(Revision::V2025_06_18, &options.url, within).await.found,
            };
            let hint = match elsewhere {
                Some((url, _)) => format!(" (a document is at {url}, where no 2025-03-26 client looks)"),
                None => String::new(),
            };
            return Err(w.fail(expected, format!("none found: {}{hint}", d.describe())));
        }
    };
    // 2025-03-26 finds the document by the MCP server's origin, not by an issuer identifier, so
    // there is no issuer to compare `issuer` to; and it requires PKCE of clients without asking
    // the metadata to list methods (S256 in the metadata is 2025-06-18's rule).
    let problems: Vec<String> = m
        .problems(&m.issuer)
        .into_iter()
        .filter(|p| !matches!(p, MetadataProblem::IssuerMismatch { .. } | MetadataProblem::NoS256))
        .map(|p| p.to_string())
        .collect();
    let actual = match problems.is_empty() {
        true => format!("{}: valid", d.describe()),
        false => format!("{}: {}", d.describe(), problems.join("; ")),
    };
    w.check(problems.is_empty(), expected, actual);
    Ok(())
}

#[then("each endpoint answers as an OAuth endpoint")]
async fn endpoints_answer(w: &mut ServerWorld) -> Result<(), Halt> {
    let tried = std::mem::take(&mut w.auth.endpoints);
    if tried.is_empty() {
        return Err(w.fail("an endpoint of the code flow to try", "none is named"));
    }
    for (member, url, optional, answer) in tried {
        let expected = match member {
            "authorization_endpoint" => format!("{member} {url}: any answer to a GET but 404 or 405"),
            "token_endpoint" => {
                format!("{member} {url}: an OAuth error (4xx, JSON error) to a code never issued")
            }
            _ if optional => format!(
                "{member} {url}: a registration or an error object (RFC 7591), or 404 if none is offered"
            ),
            _ => format!("{member} {url}: a registration or an error object (RFC 7591)"),
        };
        let (ok, actual) = match answer {
            Err(e) => (false, e),
            Ok(a) => match endpoint_problem(member, &a, optional) {
                Some(problem) => (false, problem),
                None if optional && a.status == 404 => (true, format!("{}: none offered", a.describe())),
                None => (true, a.describe()),
            },
        };
        w.check(ok, expected, actual);
    }
    Ok(())
}
