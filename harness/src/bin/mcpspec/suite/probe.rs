//! Which revisions a server speaks, asked the way a dual-era client asks: a one-off
//! `initialize` per legacy revision, a `server/discover` per modern one, each in a process (or
//! HTTP session) of its own. The probes also feed the run's gate ([`super::bounds`]): a server
//! that never answers stops the run here.

use super::context::SuiteContext;
use mcpspec::session::server::{ServerSession, StartError, WaitError};
use mcpspec_protocol::modern;
use mcpspec_protocol::wire::{ErrorObject, Outcome};
use mcpspec_protocol::{Era, Revision};
use mcpspec_reference::transport::http_client::ConnectError;

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
    let mut session = match ServerSession::start(&ctx.target, ctx.child.clone(), revision, None).await {
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
    let (probe, answered) = probe;
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
) -> (Probe, Result<(), WaitError>) {
    let params = serde_json::json!({
        "protocolVersion": revision.as_str(),
        "capabilities": {},
        "clientInfo": { "name": "mcpspec-probe", "version": env!("CARGO_PKG_VERSION") },
    });
    let answer = session.request("initialize", Some(params), ctx.timeout).await;
    let probe = match answer {
        Ok(r) => match r.outcome {
            Outcome::Result(r) => match r.get("protocolVersion").and_then(|v| v.as_str()) {
                Some(v) if v == revision.as_str() => Probe::Echoed,
                Some(v) => Probe::CounterOffered(format!("it counter-offered {v:?}")),
                None => Probe::Inconclusive,
            },
            Outcome::Error(e) => Probe::Refused(format!("initialize got error {} ({})", e.code, e.message)),
        },
        Err(e) => return (Probe::Inconclusive, Err(e)),
    };
    (probe, Ok(()))
}

/// A modern revision is spoken when `server/discover` lists it; an
/// `UnsupportedProtocolVersionError` says which are (`basic/versioning.mdx`). Anything else —
/// an error of another kind, or silence — is a server of the legacy era only, as a dual-era
/// client concludes too (`basic/transports/stdio.mdx#backward-compatibility`).
async fn probe_discover(
    session: &mut ServerSession,
    ctx: &SuiteContext,
    revision: Revision,
) -> (Probe, Result<(), WaitError>) {
    let version = modern::wire_version(revision);
    let listed = modern::version_list;
    let answer = match session.request("server/discover", None, ctx.timeout).await {
        Ok(answer) => answer,
        Err(e) => {
            let why = format!("it speaks only the legacy era: server/discover got {e}");
            return (Probe::CounterOffered(why), Err(e));
        }
    };
    let probe = match answer.outcome {
        Outcome::Result(r) => {
            let supported = listed(r.get("supportedVersions"));
            if supported.iter().any(|v| v == version) {
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
    (probe, Ok(()))
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
