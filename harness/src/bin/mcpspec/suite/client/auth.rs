//! Steps of the client authorization scenarios (`scenarios/client/authorization.feature`):
//! the scenario server is protected (the reference server's protected mode in front of
//! mcpspec's authorization server, as the scenario's table asks), the client finds its way
//! through, and one rule of its flow is judged on what both servers saw. The rules are the
//! library's ([`mcpspec::judge::client::auth`]); the servers are the session's
//! ([`mcpspec::session::client::auth`]). No step ever writes a secret into a check.

use super::{connect_or_refused, ClientWorld, Halt};
use crate::suite::scenario::Scenario as _;
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use mcpspec::judge::client::auth::{AuthFlow, AuthRule};
use mcpspec::session::client::auth::{AuthScript, PREREGISTERED_CLIENT_ID};
use mcpspec::session::client::ServerScript;
use mcpspec_protocol::auth::discovery::{well_known_inserted, PRM_SUFFIX};
use mcpspec_reference::transport::http_server::{ChallengeMetadata, ELSEWHERE_PRM_PATH};

#[given("a client connected to a protected scenario server")]
async fn protected(w: &mut ClientWorld, step: &Step) -> Result<(), Halt> {
    let mut script = AuthScript::default();
    for row in step.table.as_ref().map(|t| t.rows.as_slice()).unwrap_or_default() {
        let (Some(key), Some(value)) = (row.first(), row.get(1)) else {
            return Err(w.harness_error("each row of the table is `| behaviour | value |`".into()));
        };
        script.set(key, value).map_err(|e| w.harness_error(e))?;
    }
    // 2025-03-26 has no protected resource metadata: its clients look for the authorization
    // server at the MCP server's origin, where it then is, unless the table says otherwise.
    if !mcpspec_protocol::auth::discovery::has_prm(w.scenario.revision) && script.at_origin.is_none() {
        script.set("authorization base", "the origin, with metadata").map_err(|e| w.harness_error(e))?;
    }
    connect_or_refused(w, ServerScript { auth: Some(script), ..ServerScript::default() }, true).await
}

#[when("the client authorizes and initializes")]
async fn authorizes(w: &mut ClientWorld) -> Result<(), Halt> {
    if !w.authorized {
        // It refused (or failed) to authorize: the rule says whether it should have.
        return Ok(());
    }
    let within = w.timeout();
    let session = w.session()?;
    let first = match session.recv(within).await {
        Ok(i) => i,
        Err(e) => return Err(w.lost("the client's first message, once authorized".into(), e)),
    };
    if w.scenario.revision.era() == mcpspec_protocol::Era::Modern {
        // A client of the legacy era alone is skipped at a modern revision, as everywhere.
        super::modern::legacy_only(w)?;
    }
    let session = w.session()?;
    let served = session.serve(&first).await;
    if let Err(e) = served {
        return Err(w.lost("the client reads the answer to its first message".into(), e));
    }
    // Its next message: where a step-up shows (the endpoint requires more scope from now on),
    // and what a flow that holds its token does anyway; answered, so that its exchange ends
    // served. None coming is no failure here.
    if let Ok(next) = session.recv(within).await {
        if matches!(next.message, Some(mcpspec_protocol::wire::Message::Request(_))) {
            let _ = session.serve(&next).await;
        }
        // The endpoint logs an exchange once its handler is done, which can trail the
        // message's delivery: the rules read the log.
        tokio::time::sleep(mcpspec::session::client::MIN_GRACE).await;
    }
    Ok(())
}

#[then(expr = "the client's authorization keeps the rule {string}")]
async fn keeps(w: &mut ClientWorld, rule: String) -> Result<(), Halt> {
    let Some(rule) = AuthRule::from_name(&rule) else {
        return Err(w.harness_error(format!("no authorization rule {rule:?}")));
    };
    let revision = w.scenario.revision;
    let session = w.session()?;
    session.drain_http();
    let Some(url) = session.http_url().and_then(|u| url::Url::parse(&u).ok()) else {
        return Err(w.harness_error("the scenario server is not served over HTTP".into()));
    };
    let mcp: Vec<_> =
        session.recorder().http_client().map(|c| c.exchanges().cloned().collect()).unwrap_or_default();
    let Some(auth) = session.auth() else {
        return Err(w.harness_error("the scenario server is not protected (a Given step is missing)".into()));
    };
    let issuer = auth.server.issuer().to_owned();
    let script = auth.script.clone();
    let exchanges = auth.exchanges().to_vec();
    let next_exchanges = auth.next_exchanges().to_vec();
    let next_issuer = auth.next.as_ref().map(|n| n.issuer().to_owned());
    let challenge_metadata = match script.challenge_metadata {
        ChallengeMetadata::Elsewhere => {
            let mut u = url.clone();
            u.set_path(ELSEWHERE_PRM_PATH);
            Some(u.to_string())
        }
        ChallengeMetadata::WellKnown => Some(well_known_inserted(&url, PRM_SUFFIX).to_string()),
        ChallengeMetadata::Absent => None,
    };
    let token_auth_methods: Vec<String> =
        script.server.token_auth_methods.iter().map(|a| a.name().to_owned()).collect();
    let prm_scopes = script.prm_scopes();
    let flow = AuthFlow {
        revision,
        endpoint: &url,
        issuer: &issuer,
        mcp: &mcp,
        authorization_server: &exchanges,
        challenge_metadata: challenge_metadata.as_deref(),
        challenge_scopes: script.challenge_scope.then_some(script.scopes.as_slice()),
        prm_scopes: &prm_scopes,
        step_up: &script.step_up,
        preregistered: script.preregistered.then_some(PREREGISTERED_CLIENT_ID),
        next: next_issuer.as_deref().map(|i| (i, next_exchanges.as_slice())),
        token_auth_methods: &token_auth_methods,
    };
    if let Some(why) = rule.not_judged(&flow) {
        return Err(w.skip(why));
    }
    let j = rule.judge(&flow);
    w.check(j.ok, j.expected, j.actual);
    Ok(())
}
