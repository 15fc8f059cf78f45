//! Which revisions a server speaks, asked the way a dual-era client asks: a one-off
//! `initialize` per legacy revision, a `server/discover` per modern one, each in a process (or
//! HTTP session) of its own. The probes also feed the run's gate ([`super::bounds`]): a server
//! that never answers stops the run here.

use super::context::SuiteContext;
use mcpspec::session::server::{ServerSession, StartError, WaitError};
use mcpspec_protocol::modern;
use mcpspec_protocol::wire::{ErrorObject, Message, Outcome};
use mcpspec_protocol::{Era, Revision};
use mcpspec_reference::transport::http_client::ConnectError;
use serde_json::Value;

/// What a one-off initialize (legacy era) or server/discover (modern era) says about a
/// revision.
pub enum Probe {
    Echoed,
    /// The server does not speak the revision; why, in words.
    CounterOffered(String),
    /// `initialize` got an error: what a server of the modern era only answers (decided
    /// with the other probes), else inconclusive.
    Refused(String),
    Inconclusive,
    NotStarted(String),
}

pub async fn probe(ctx: &SuiteContext, revision: Revision) -> Probe {
    // With the run's schemas: a probe's process that echoed its revision goes on to serve the
    // scenarios ([`hand_on`]), whose records are forked from its recorder.
    let started = ServerSession::start(&ctx.target, ctx.child.clone(), revision, ctx.schemas.clone()).await;
    let mut session = match started {
        Ok(s) => s,
        // A server that answers with a defect: the scenarios judge it (sse/endpoint-event).
        Err(StartError::Connect(ConnectError::NoEndpoint { .. })) => {
            ctx.bounds.contact();
            return Probe::Inconclusive;
        }
        Err(e) => {
            ctx.bounds.no_contact(format!("it could not be started: {e}"), &[]);
            return Probe::NotStarted(e.to_string());
        }
    };
    session.set_label(format!("(probe) {revision}"));
    let (method, probe) = match revision.era() {
        Era::Legacy => ("initialize", probe_initialize(&mut session, ctx, revision).await),
        Era::Modern => ("server/discover", probe_discover(&mut session, ctx, revision).await),
    };
    // The gate hears of the attempt once its process has ended (a closing gate stops the run).
    let (probe, answered, description) = probe;
    // A malformed answer, or over HTTP any response head (a stream that never carries the
    // answer, an error status), is contact all the same: the server answered, wrongly, and the
    // scenarios judge how.
    let answered_http = session.recorder().exchange(1).is_some();
    let answered = answered.or_else(|e| match e {
        WaitError::Malformed(_) | WaitError::Http(_) => Ok(()),
        _ if answered_http => Ok(()),
        other => Err(other),
    });
    let behaviour =
        answered.map_err(|e| super::bounds::server_behaviour(&mut session, method, &e, ctx.timeout));
    let mut session = match (&behaviour, &probe, description) {
        (Ok(()), Probe::Echoed, Some(description)) => {
            match hand_on(ctx, session, revision, description).await {
                Ok(()) => {
                    ctx.bounds.contact();
                    return probe;
                }
                Err(session) => session,
            }
        }
        _ => session,
    };
    let end = session.shutdown().await;
    let left = match &end {
        mcpspec::session::server::SessionEnd::Process(r) => r.left.clone(),
        mcpspec::session::server::SessionEnd::Http(_) | mcpspec::session::server::SessionEnd::Left(_) => {
            Vec::new()
        }
    };
    if !left.is_empty() {
        eprintln!(
            "mcpspec: the server probed at {revision} left running outside its process group: {}",
            left.join(", ")
        );
    }
    match behaviour {
        Ok(()) => ctx.bounds.contact(),
        Err(b) => ctx.bounds.no_contact(b, &left),
    }
    probe
}

/// A legacy revision is spoken when `initialize` echoes it.
async fn probe_initialize(
    session: &mut ServerSession,
    ctx: &SuiteContext,
    revision: Revision,
) -> (Probe, Result<(), WaitError>, Option<Value>) {
    let params = serde_json::json!({
        "protocolVersion": revision.as_str(),
        "capabilities": {},
        "clientInfo": mcpspec::session::server::client_info(),
    });
    let answer = session.request("initialize", Some(params), ctx.timeout).await;
    let (probe, description) = match answer {
        Ok(r) => match r.outcome {
            Outcome::Result(r) => match r.get("protocolVersion").and_then(|v| v.as_str()) {
                Some(v) if v == revision.as_str() => (Probe::Echoed, Some(r)),
                Some(v) => (Probe::CounterOffered(format!("it counter-offered {v:?}")), None),
                None => (Probe::Inconclusive, None),
            },
            Outcome::Error(e) => {
                (Probe::Refused(format!("initialize got error {} ({})", e.code, e.message)), None)
            }
        },
        Err(e) => return (Probe::Inconclusive, Err(e), None),
    };
    (probe, Ok(()), description)
}

/// A modern revision is spoken when `server/discover` lists it; an
/// `UnsupportedProtocolVersionError` says which are (`basic/versioning.mdx`). Anything else —
/// an error of another kind, or silence — is a server of the legacy era only, as a dual-era
/// client concludes too (`basic/transports/stdio.mdx#backward-compatibility`).
async fn probe_discover(
    session: &mut ServerSession,
    ctx: &SuiteContext,
    revision: Revision,
) -> (Probe, Result<(), WaitError>, Option<Value>) {
    let version = modern::wire_version(revision);
    let listed = modern::version_list;
    let answer = match session.request("server/discover", None, ctx.timeout).await {
        Ok(answer) => answer,
        Err(e) => {
            let why = format!("it speaks only the legacy era: server/discover got {e}");
            return (Probe::CounterOffered(why), Err(e), None);
        }
    };
    let mut description = None;
    let probe = match answer.outcome {
        Outcome::Result(r) => {
            let supported = listed(r.get("supportedVersions"));
            if supported.iter().any(|v| v == version) {
                // What the scenarios' steps read of the server, as a Given step's discover.
                description = Some(r).filter(|r| r.get("capabilities").is_some_and(Value::is_object));
                Probe::Echoed
            } else {
                Probe::CounterOffered(format!("its server/discover lists {supported:?}"))
            }
        }
        Outcome::Error(e) if e.code == ErrorObject::UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = listed(e.data.as_ref().and_then(|d| d.get("supported")));
            Probe::CounterOffered(format!(
                "it answered server/discover with -32022, supporting {supported:?}"
            ))
        }
        Outcome::Error(e) => Probe::CounterOffered(format!(
            "it speaks only the legacy era: server/discover got error {} ({})",
            e.code, e.message
        )),
    };
    (probe, Ok(()), description)
}

/// Hands the process of a probe that found its revision spoken, breaking no rule, to the
/// scenarios (over stdio, unless `--isolate`): it is a session like any a Given step opens with no client
/// capabilities — `initialize` answered, then `notifications/initialized`, which mcpspec sends
/// now (legacy era); `server/discover` answered (modern era). Gives the session back when it
/// cannot be handed on.
async fn hand_on(
    ctx: &SuiteContext,
    mut session: ServerSession,
    revision: Revision,
    description: Value,
) -> Result<(), ServerSession> {
    let stdio = matches!(ctx.target, mcpspec::session::target::Target::Stdio(_));
    // No scenario judges a probe's exchange: one that broke a rule (an answer under an id of
    // another type, say) leaves the processes to the scenarios, whose handshakes are judged.
    let unjudged = session.recorder().has_findings();
    if !ctx.pool.enabled() || !stdio || unjudged || session.why_not_shareable().is_some() {
        return Err(session);
    }
    let process = ctx.pool.next_process();
    session.hand_over(format!(
        "shared process #{process}: the probe of {revision}, handed on with no client capabilities"
    ));
    if revision.era() == Era::Legacy {
        let initialized = Message::notification("notifications/initialized", None);
        if session.send(&initialized).await.is_err() {
            return Err(session);
        }
    }
    ctx.pool.adopt(session, revision, &serde_json::json!({}), &description, process).await;
    Ok(())
}

/// Probes until the gate has seen [`super::bounds::ATTEMPTS`] sessions fail, or one work: a
/// run with fewer revisions than attempts tries the first revision again (each a fresh process).
pub async fn probe_again(ctx: &SuiteContext, revision: Revision) {
    loop {
        let (failed, working) = ctx.bounds.attempts();
        if working || failed >= super::bounds::ATTEMPTS {
            return;
        }
        let more = super::bounds::ATTEMPTS - failed;
        futures::future::join_all((0..more).map(|_| probe(ctx, revision))).await;
    }
}
