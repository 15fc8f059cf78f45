//! The authorization-server suite's cucumber `World` and its steps
//! (`scenarios/authorization-server/`): mcpspec plays an MCP client of an OAuth 2.1
//! authorization server. Steps are thin: the requests are the library's
//! ([`mcpspec::session::authorization`]), the rules of the documents the protocol crate's
//! ([`mcpspec_protocol::auth`]). A precondition a scenario cannot reach (no metadata, no client,
//! no code) skips it with the reason, naming the scenario that judges that step, so that one
//! defect fails one check. No step writes a code, verifier, token or secret into a check.

use crate::suite::scenario::{Halt, Scenario, ScenarioState};
use crate::suite::world::{RoleWorld, SessionEnd};
use cucumber::{given, then, when};
use mcpspec::judge::verdict::Check;
use mcpspec::session::authorization::{
    self as oauth, AsTarget, Authorized, Client, ClientAuth, DocumentFlaw, Endpoints, Registered,
    ServedDocument, TokenAnswer,
};
use mcpspec::session::server::auth::Discovery;
use mcpspec::session::target::Target;
use mcpspec_protocol::auth::grant::{AuthorizationRequest, TokenResponse};
use mcpspec_protocol::auth::metadata::MetadataProblem;
use mcpspec_protocol::auth::{AuthorizationServerMetadata, PkceVerifier};
use mcpspec_reference::auth::documents::DocumentHost;

/// One authorization-server scenario in progress.
#[derive(cucumber::World)]
#[world(init = Self::new)]
pub struct AuthorizationWorld {
    pub scenario: ScenarioState,
    target: Option<AsTarget>,
    discovery: Option<Discovery<AuthorizationServerMetadata>>,
    /// The endpoints of the flow, or why there are none.
    endpoints: Option<Result<Endpoints, String>>,
    registered: Option<Registered>,
    client: Option<Client>,
    /// The last authorization request's verifier and state, and what the endpoint did.
    verifier: Option<PkceVerifier>,
    state: Option<String>,
    authorized: Option<Authorized>,
    /// The last token endpoint answer.
    answer: Option<TokenAnswer>,
    /// The token the scenario's Given obtained.
    token: Option<TokenResponse>,
    /// The refresh token a refresh replaced.
    replaced: Option<String>,
    /// The client ID metadata document the last authorization request named, and its flaw.
    document: Option<(ServedDocument, DocumentFlaw)>,
}

impl std::fmt::Debug for AuthorizationWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorizationWorld").field("scenario", &self.scenario).finish_non_exhaustive()
    }
}

impl Scenario for AuthorizationWorld {
    fn state(&self) -> &ScenarioState {
        &self.scenario
    }

    fn state_mut(&mut self) -> &mut ScenarioState {
        &mut self.scenario
    }
}

impl RoleWorld for AuthorizationWorld {
    /// Requests outside any session: nothing to end.
    async fn end_session(
        &mut self,
        _checks: &mut Vec<Check>,
        _failing: &dyn Fn(&[Check]) -> bool,
        _ending: crate::suite::world::Ending,
    ) -> SessionEnd {
        SessionEnd::default()
    }
}

impl AuthorizationWorld {
    fn new() -> Self {
        AuthorizationWorld {
            scenario: ScenarioState::default(),
            target: None,
            discovery: None,
            endpoints: None,
            registered: None,
            client: None,
            verifier: None,
            state: None,
            authorized: None,
            answer: None,
            token: None,
            replaced: None,
            document: None,
        }
    }

    fn target(&mut self) -> Result<AsTarget, Halt> {
        match &self.target {
            Some(t) => Ok(t.clone()),
            None => Err(self.harness_error("no authorization server (a Given step is missing)".into())),
        }
    }

    fn metadata(&self) -> Option<&AuthorizationServerMetadata> {
        self.discovery.as_ref().and_then(Discovery::document)
    }

    fn endpoints(&mut self) -> Result<Endpoints, Halt> {
        match self.endpoints.clone() {
            Some(Ok(e)) => Ok(e),
            Some(Err(why)) => Err(self.skip(format!("the code flow cannot start: {why}"))),
            None => Err(self.harness_error("no authorization server (a Given step is missing)".into())),
        }
    }

    fn client(&mut self) -> Result<Client, Halt> {
        match self.client.clone() {
            Some(c) => Ok(c),
            None => Err(self.harness_error("no client (a Given step is missing)".into())),
        }
    }

    /// The metadata's problems that `wanted` selects, as one check.
    fn judge_metadata(&mut self, expected: &str, wanted: fn(&MetadataProblem) -> bool) -> Result<(), Halt> {
        let issuer = self.target()?.issuer_id;
        let Some(m) = self.metadata().cloned() else {
            return Err(self.harness_error("no metadata (a Given step is missing)".into()));
        };
        let problems: Vec<String> =
            m.problems(&issuer).iter().filter(|p| wanted(p)).map(|p| p.to_string()).collect();
        let actual = if problems.is_empty() { "as required".to_owned() } else { problems.join("; ") };
        self.check(problems.is_empty(), expected, actual);
        Ok(())
    }

    /// Sends an authorization request for `redirect_uri` with a new verifier and state.
    async fn ask(&mut self, redirect_uri: &str) -> Result<(), Halt> {
        let client_id = self.client()?.client_id;
        self.authorize_as(client_id, redirect_uri.to_owned()).await
    }

    /// Sends an authorization request from `client_id` for `redirect_uri`, with a new verifier
    /// and state, which it keeps for the token request.
    async fn authorize_as(&mut self, client_id: String, redirect_uri: String) -> Result<(), Halt> {
        let target = self.target()?;
        let endpoints = self.endpoints()?;
        let (verifier, state) = match (oauth::verifier(), oauth::state()) {
            (Ok(v), Ok(s)) => (v, s),
            (Err(e), _) | (_, Err(e)) => return Err(self.harness_error(e)),
        };
        let request = AuthorizationRequest {
            client_id,
            redirect_uri,
            code_challenge: verifier.challenge(),
            state: state.clone(),
            resource: Some(target.resource),
            scope: target.scope,
        };
        match oauth::authorize(&endpoints.authorization, &request, self.timeout()).await {
            Ok(a) => self.authorized = Some(a),
            Err(e) => return Err(self.fail("an answer from the authorization endpoint", e)),
        }
        (self.verifier, self.state) = (Some(verifier), Some(state));
        Ok(())
    }

    /// Sends an authorization request naming the client by a client ID metadata document with
    /// `flaw`, served for it alone.
    async fn ask_as_document(&mut self, flaw: DocumentFlaw) -> Result<(), Halt> {
        let target = self.target()?;
        let Some(host) = target.documents.clone() else {
            return Err(self.harness_error("the run has no host for client ID metadata documents".into()));
        };
        let served = match oauth::serve_document(&host, flaw, &target.redirect_uri) {
            Ok(d) => d,
            Err(e) => return Err(self.harness_error(e)),
        };
        self.authorize_as(served.url.clone(), target.redirect_uri.clone()).await?;
        self.document = Some((served, flaw));
        Ok(())
    }

    /// A token request of the authorization-code grant for the last code, with `verifier` and
    /// `redirect_uri` (the request's own unless a step says otherwise).
    async fn redeem(&mut self, verifier: Option<&str>, redirect_uri: Option<&str>) -> Result<(), Halt> {
        let target = self.target()?;
        let endpoints = self.endpoints()?;
        let client = self.client()?;
        let Some(code) = self.authorized.as_ref().and_then(|a| a.code()).map(str::to_owned) else {
            return Err(self.harness_error("no code to redeem (a step is missing)".into()));
        };
        let kept = self.verifier.as_ref().map(|v| v.as_str().to_owned()).unwrap_or_default();
        let verifier = verifier.unwrap_or(&kept);
        let redirect_uri = redirect_uri.unwrap_or(&target.redirect_uri);
        let pairs = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", redirect_uri),
            ("code_verifier", verifier),
            ("resource", target.resource.as_str()),
        ];
        self.send_token(&endpoints, &client, &pairs).await
    }

    async fn send_token(
        &mut self,
        endpoints: &Endpoints,
        client: &Client,
        pairs: &[(&str, &str)],
    ) -> Result<(), Halt> {
        match oauth::token(&endpoints.token, client, pairs, self.timeout()).await {
            Ok(a) => self.answer = Some(a),
            Err(e) => return Err(self.fail("an answer from the token endpoint", e)),
        }
        Ok(())
    }

    fn answer(&mut self) -> Result<&TokenAnswer, Halt> {
        if self.answer.is_none() {
            return Err(self.harness_error("no token request was sent (a When step is missing)".into()));
        }
        Ok(self.answer.as_ref().expect("checked above"))
    }

    /// A refresh-token grant with `refresh`.
    async fn refresh(&mut self, refresh: &str) -> Result<(), Halt> {
        let target = self.target()?;
        let endpoints = self.endpoints()?;
        let client = self.client()?;
        let pairs = [
            ("grant_type", "refresh_token"),
            ("refresh_token", refresh),
            ("resource", target.resource.as_str()),
        ];
        self.send_token(&endpoints, &client, &pairs).await
    }
}

/// A redirect URI the client did not register: its own with a path segment added (a server
/// comparing prefixes takes it; OAuth 2.1 §4.1.2.1 wants an exact match). Changing the port
/// would not do: loopback redirect URIs may use any port (OAuth 2.1 §8.4.2).
fn unregistered(redirect_uri: &str) -> String {
    format!("{}/elsewhere", redirect_uri.trim_end_matches('/'))
}

#[given("an authorization server")]
async fn an_authorization_server(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let target = match &w.ctx().target {
        Target::AuthorizationServer(t) => t.clone(),
        _ => return Err(w.harness_error("the run's target is not an authorization server".into())),
    };
    let revision = w.scenario.revision;
    let discovery = oauth::discover(revision, &target.issuer, w.timeout()).await;
    w.endpoints = Some(oauth::endpoints(revision, &target.issuer, discovery.document()));
    w.discovery = Some(discovery);
    w.target = Some(target);
    Ok(())
}

#[then("its metadata is found")]
async fn metadata_found(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let Some(d) = w.discovery.clone() else {
        return Err(w.harness_error("the metadata was not looked for (a Given step is missing)".into()));
    };
    let expected = "authorization server metadata, a JSON object of the right shape, at the revision's URLs";
    match &d.found {
        Some((_, Ok(_))) => w.check(true, expected, d.describe()),
        Some((url, Err(e))) => w.check(false, expected, format!("{}; {url}: {e}", d.describe())),
        None => w.check(false, expected, format!("none found: {}", d.describe())),
    }
    Ok(())
}

#[given("its metadata")]
async fn its_metadata(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    if w.metadata().is_none() {
        let tried = w.discovery.as_ref().map(Discovery::describe).unwrap_or_default();
        return Err(w.skip(format!("no metadata to judge ({tried}); the metadata scenario judges that")));
    }
    Ok(())
}

#[then("its issuer is the issuer it was looked up for")]
async fn issuer_matches(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    w.judge_metadata(
        "`issuer` identical to the issuer the metadata was looked up for (RFC 8414 §3.3), without query or fragment",
        |p| matches!(p, MetadataProblem::IssuerMismatch { .. } | MetadataProblem::IssuerQueryOrFragment { .. }),
    )
}

#[then("it names the members the code flow needs")]
async fn required_members(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    w.judge_metadata(
        "authorization_endpoint, token_endpoint and response_types_supported (RFC 8414 §2)",
        |p| matches!(p, MetadataProblem::Missing { .. }),
    )
}

#[then("it lists S256 among its code challenge methods")]
async fn lists_s256(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    w.judge_metadata("code_challenge_methods_supported listing S256 (RFC 7636, OAuth 2.1 §4.1.1)", |p| {
        matches!(p, MetadataProblem::NoS256)
    })
}

#[then("its endpoints are https URLs or loopback ones")]
async fn endpoints_https(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    w.judge_metadata("absolute https URLs, or http to a loopback host (OAuth 2.1 §1.5)", |p| {
        matches!(p, MetadataProblem::NotAnUrl { .. } | MetadataProblem::NotHttps { .. })
    })
}

#[given("it offers dynamic client registration")]
async fn offers_registration(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    if w.endpoints()?.registration.is_none() {
        return Err(w.skip("the authorization server offers no dynamic client registration".into()));
    }
    Ok(())
}

#[when("the client registers itself")]
async fn registers(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let target = w.target()?;
    let endpoints = w.endpoints()?;
    let Some(endpoint) = endpoints.registration else {
        return Err(w.harness_error("no registration endpoint (a Given step is missing)".into()));
    };
    let registered = match oauth::register(&endpoint, &target.redirect_uri, w.timeout()).await {
        Ok(r) => r,
        Err(e) => return Err(w.fail("an answer from the registration endpoint", e)),
    };
    // Only assumed (2025-03-26's default endpoint): nothing there means no registration.
    if endpoints.defaults && matches!(registered.status, 404 | 405) {
        let status = registered.status;
        return Err(
            w.skip(format!("HTTP {status} at the default registration endpoint {endpoint}: none offered"))
        );
    }
    w.registered = Some(registered);
    Ok(())
}

#[then("the authorization server answers 201 with a client_id")]
async fn registered_with_id(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let Some(r) = w.registered.as_ref() else {
        return Err(w.harness_error("no registration was sent (a When step is missing)".into()));
    };
    let (ok, actual) = (r.client().is_some(), r.describe());
    w.check(ok, "HTTP 201 with the client's metadata and a client_id (RFC 7591 §3.2.1)", actual);
    Ok(())
}

/// The client of the run: given (`--client-id`), else registered through DCR; `public`: one
/// that does not authenticate (refresh-token rotation is required of public clients).
async fn registered_client(w: &mut AuthorizationWorld, public: bool) -> Result<(), Halt> {
    let target = w.target()?;
    let endpoints = w.endpoints()?;
    let client = match (&target.client, endpoints.registration) {
        (Some(given), _) => Client::given(given, w.metadata()),
        (None, Some(endpoint)) => {
            let registered = match oauth::register(&endpoint, &target.redirect_uri, w.timeout()).await {
                Ok(r) => r,
                Err(e) => return Err(w.skip(format!("registration failed: {e}"))),
            };
            match registered.client() {
                Some(c) => c,
                None => {
                    let why = registered.describe();
                    return Err(w.skip(format!(
                        "dynamic client registration gave no client ({why}); \
                         authorization-server/dynamic-registration judges that"
                    )));
                }
            }
        }
        (None, None) => {
            return Err(w.skip(
                "no client: the server offers no dynamic client registration; give one with --client-id"
                    .into(),
            ))
        }
    };
    if public && client.auth != ClientAuth::None {
        return Err(w.skip("the client is confidential: rotation is required of public clients".into()));
    }
    w.client = Some(client);
    Ok(())
}

#[given("a registered client")]
async fn a_registered_client(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    registered_client(w, false).await
}

#[given("a registered public client")]
async fn a_registered_public_client(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    registered_client(w, true).await
}

#[when("the client asks for an authorization code")]
async fn asks_for_code(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let redirect_uri = w.target()?.redirect_uri;
    w.ask(&redirect_uri).await
}

#[when("the client asks for an authorization code for a redirect URI it did not register")]
async fn asks_for_unregistered(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let redirect_uri = unregistered(&w.target()?.redirect_uri);
    w.ask(&redirect_uri).await
}

/// What the authorization endpoint did, or a skip when only a person could go on.
fn authorized(w: &mut AuthorizationWorld) -> Result<&Authorized, Halt> {
    match &w.authorized {
        None => Err(w.harness_error("no authorization request was sent (a When step is missing)".into())),
        Some(a @ Authorized::NeedsApproval(_)) => {
            let why = a.describe();
            Err(w
                .skip(format!("{why}: mcpspec approves headlessly only (a 302 to the redirect URI at once)")))
        }
        Some(_) => Ok(w.authorized.as_ref().expect("checked above")),
    }
}

#[then("the authorization server redirects to the redirect URI with a code and the state")]
async fn redirected_with_code(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let state = w.state.clone();
    let a = authorized(w)?;
    let ok = match a {
        Authorized::Redirected(r) => r.code().is_some() && r.get("state") == state.as_deref(),
        _ => false,
    };
    let mut actual = a.describe();
    if let Authorized::Redirected(r) = a {
        if r.code().is_some() && r.get("state") != state.as_deref() {
            actual.push_str(", but not the state the request sent");
        }
    }
    if ok {
        w.check(
            true,
            "a 302 to the redirect URI with code and the request's state (OAuth 2.1 §4.1.2)",
            actual,
        );
        return Ok(());
    }
    Err(w.fail("a 302 to the redirect URI with code and the request's state (OAuth 2.1 §4.1.2)", actual))
}

#[then("the authorization server does not redirect there")]
async fn not_redirected_there(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let a = authorized(w)?;
    // Redirected: the answer went to the unregistered URI the request named (a code or an
    // error, either way the browser would be sent there).
    let ok = !matches!(a, Authorized::Redirected(_));
    let actual = match a {
        Authorized::Redirected(_) => format!("{}, the one it did not register", a.describe()),
        _ => a.describe(),
    };
    w.check(ok, "an error without a redirect to the unregistered redirect URI (OAuth 2.1 §4.1.2.1)", actual);
    Ok(())
}

#[when("the client redeems the code with its code_verifier")]
#[when("the client redeems the same code again")]
async fn redeems(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    w.redeem(None, None).await
}

#[when("the client redeems the code with a wrong code_verifier")]
async fn redeems_wrong_verifier(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let wrong = match oauth::verifier() {
        Ok(v) => v,
        Err(e) => return Err(w.harness_error(e)),
    };
    w.redeem(Some(wrong.as_str()), None).await
}

#[when("the client redeems the code with another redirect_uri")]
async fn redeems_other_redirect(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let other = unregistered(&w.target()?.redirect_uri);
    w.redeem(None, Some(&other)).await
}

#[then("the authorization server issues a Bearer access token")]
async fn issues_token(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let a = w.answer()?;
    let (ok, actual) = (a.issued(), a.describe());
    w.check(ok, "HTTP 200 with a Bearer access_token (OAuth 2.1 §3.2.3)", actual);
    Ok(())
}

#[then("the authorization server refuses it")]
async fn refuses(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let a = w.answer()?;
    let (ok, actual) = (!a.issued(), a.describe());
    w.check(ok, "a refusal, no token (an error response, OAuth 2.1 §3.2.4)", actual);
    Ok(())
}

#[given("an authorization code")]
async fn an_authorization_code(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    asks_for_code(w).await?;
    let a = authorized(w)?;
    if a.code().is_none() {
        let why = a.describe();
        return Err(w.skip(format!("no code ({why}); authorization-server/code-flow judges that")));
    }
    Ok(())
}

#[given("an access token")]
async fn an_access_token(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    an_authorization_code(w).await?;
    w.redeem(None, None).await?;
    let a = w.answer.take();
    match a.map(|a| (a.describe(), a.token)) {
        Some((_, Ok(t))) => w.token = Some(t),
        Some((why, Err(_))) => {
            return Err(w.skip(format!("no access token ({why}); authorization-server/code-flow judges that")))
        }
        None => return Err(w.harness_error("no token request was sent".into())),
    }
    Ok(())
}

#[given("an access token with a refresh token")]
async fn a_refresh_token(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    an_access_token(w).await?;
    if w.token.as_ref().and_then(|t| t.refresh_token.as_ref()).is_none() {
        return Err(
            w.skip("the authorization server issued no refresh token: there is nothing to rotate".into())
        );
    }
    Ok(())
}

#[then("the access token's audience is the resource it was asked for")]
async fn audience_is_resource(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let resource = w.target()?.resource;
    let expected = format!("a token whose audience is {resource:?}, the resource asked for (RFC 8707 §2)");
    match w.token.as_ref().map(TokenResponse::jwt_audience) {
        None => return Err(w.harness_error("no access token (a Given step is missing)".into())),
        Some(None) => w.inconclusive(expected, "an opaque token: its audience cannot be read (not a JWT)"),
        Some(Some(aud)) => {
            let ok = aud.iter().any(|a| a == &resource);
            w.check(ok, expected, format!("a JWT with aud {aud:?}"));
        }
    }
    Ok(())
}

#[when("the client refreshes the access token")]
async fn refreshes(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let Some(first) = w.token.as_ref().and_then(|t| t.refresh_token.clone()) else {
        return Err(w.harness_error("no refresh token (a Given step is missing)".into()));
    };
    w.refresh(&first).await?;
    w.replaced = Some(first);
    Ok(())
}

#[then("the authorization server issues a new refresh token")]
async fn new_refresh_token(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let replaced = w.replaced.clone();
    let a = w.answer()?;
    let fresh = a.token.as_ref().ok().and_then(|t| t.refresh_token.clone());
    let ok = a.issued() && fresh.is_some() && fresh != replaced;
    let mut actual = a.describe();
    if fresh.is_some() && fresh == replaced {
        actual.push_str(", the same refresh token again");
    }
    w.check(
        ok,
        "an access token and a new refresh token (OAuth 2.1 §4.3.1: rotation for public clients)",
        actual,
    );
    Ok(())
}

#[when("the client refreshes with the replaced refresh token")]
async fn refreshes_with_replaced(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let Some(replaced) = w.replaced.clone() else {
        return Err(w.harness_error("no refresh was made (a When step is missing)".into()));
    };
    w.refresh(&replaced).await
}

#[given("its metadata advertises authorization_response_iss_parameter_supported")]
async fn advertises_iss(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    its_metadata(w).await?;
    if !w.metadata().is_some_and(|m| m.authorization_response_iss_parameter_supported) {
        return Err(
            w.skip("the metadata does not advertise authorization_response_iss_parameter_supported".into())
        );
    }
    Ok(())
}

#[then("the redirect carries iss, the issuer")]
async fn carries_iss(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let issuer = w.target()?.issuer_id;
    let a = authorized(w)?;
    let iss = match a {
        Authorized::Redirected(r) => r.get("iss").map(str::to_owned),
        _ => None,
    };
    let actual = match (&iss, a) {
        (Some(iss), _) => format!("iss={iss:?}"),
        (None, a) => format!("{}, without iss", a.describe()),
    };
    w.check(
        iss.as_deref() == Some(issuer.as_str()),
        format!("iss={issuer:?} on the redirect (RFC 9207 §2)"),
        actual,
    );
    Ok(())
}

/// Why nothing can be judged of a document the authorization server never fetched.
fn never_fetched(host: &DocumentHost, url: &str) -> String {
    let failures = host.handshake_failures();
    let tls = match failures.last() {
        Some(last) => format!(
            "{} TLS handshake(s) with the document host failed (the last: {last}): the server does not \
             trust mcpspec's CA (give it the CA of --cimd-ca DIR, DIR/ca.pem)",
            failures.len()
        ),
        None => "no connection reached the document host: the server may not fetch documents, or not \
                 from a loopback address"
            .to_owned(),
    };
    format!("the authorization server never fetched the client ID metadata document {url}; {tls}")
}

#[given("it takes client ID metadata documents")]
async fn takes_documents(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    its_metadata(w).await?;
    if !w.metadata().is_some_and(|m| m.client_id_metadata_document_supported) {
        return Err(w.skip(
            "the metadata does not advertise client_id_metadata_document_supported: the server takes no \
             client ID metadata documents"
                .into(),
        ));
    }
    // The control: a valid document is taken, so that a flawed one refused says something.
    w.ask_as_document(DocumentFlaw::Valid).await?;
    let (Some(host), Some((served, _))) = (w.target()?.documents, w.document.clone()) else {
        return Err(w.harness_error("no document was served".into()));
    };
    let a = authorized(w)?;
    if a.code().is_some() {
        return Ok(());
    }
    let why = a.describe();
    if host.fetches(&served.path) == 0 {
        return Err(w.skip(never_fetched(&host, &served.url)));
    }
    Err(w.skip(format!(
        "the authorization server refused even a valid client ID metadata document ({why}): its refusing \
         a flawed one would prove nothing"
    )))
}

#[when(
    regex = r"^the client names itself by a client ID metadata document (whose client_id is not its URL|that does not list the redirect URI|that is not JSON)$"
)]
async fn names_itself_by_document(w: &mut AuthorizationWorld, flaw: String) -> Result<(), Halt> {
    let flaw = match flaw.as_str() {
        "whose client_id is not its URL" => DocumentFlaw::ClientIdNotItsUrl,
        "that does not list the redirect URI" => DocumentFlaw::RedirectUriUnlisted,
        _ => DocumentFlaw::NotJson,
    };
    w.ask_as_document(flaw).await
}

#[then("the authorization server refuses the client")]
async fn refuses_the_client(w: &mut AuthorizationWorld) -> Result<(), Halt> {
    let (Some(host), Some((served, flaw))) = (w.target()?.documents, w.document.clone()) else {
        return Err(w.harness_error("no document was named (a When step is missing)".into()));
    };
    if host.fetches(&served.path) == 0 {
        return Err(w.skip(never_fetched(&host, &served.url)));
    }
    let a = authorized(w)?;
    let (ok, expected) = match flaw {
        DocumentFlaw::RedirectUriUnlisted => (
            !matches!(a, Authorized::Redirected(_)),
            "no redirect to a redirect URI the client ID metadata document does not list (an error \
             shown, not sent there)",
        ),
        DocumentFlaw::ClientIdNotItsUrl => (
            a.code().is_none(),
            "a refusal, no code, for a client ID metadata document whose client_id is not its URL",
        ),
        DocumentFlaw::NotJson | DocumentFlaw::Valid => {
            (a.code().is_none(), "a refusal, no code, for a client ID metadata document that is not JSON")
        }
    };
    let actual = format!("the document fetched; {}", a.describe());
    w.check(ok, expected, actual);
    Ok(())
}
