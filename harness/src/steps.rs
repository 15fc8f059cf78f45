//! The step vocabulary of the scenarios and the cucumber `World` they act on. Steps are thin:
//! they send, wait and compare; the protocol logic lives in the library (session, recorder,
//! checker). Kept in the binary crate, with the runner, because cucumber collects steps with
//! link-time registration that does not survive crossing a crate boundary.

use crate::runner::SuiteContext;
use cucumber::gherkin::Step;
use cucumber::{given, then, when};
use mcpspec::session::{ServerSession, WaitError};
use mcpspec::verdict::{Check, Level, Verdict};
use mcpspec_reference::transport::child::describe_status;
use mcpspec_reference::transport::SendError;
use mcpspec_reference::wire::{describe, Message, Outcome, RequestId, Response};
use mcpspec_reference::Revision;
use serde_json::{json, Value};
use std::sync::Arc;

/// Stops a scenario: what it needed did not happen (the failed check is already recorded), or
/// the harness could not act.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Halt(String);

/// The scenario's requirement, from its tags.
#[derive(Debug, Clone)]
pub struct ScenarioMeta {
    pub id: String,
    pub level: Level,
    /// Document under `docs/specification/<revision>/`.
    pub doc: String,
}

/// One scenario in progress.
#[derive(cucumber::World)]
#[world(init = Self::new)]
pub struct ServerWorld {
    pub ctx: Option<Arc<SuiteContext>>,
    pub revision: Revision,
    pub meta: Option<ScenarioMeta>,
    /// The requirement a Given step is establishing, which its failures are charged to.
    pub precondition: Option<ScenarioMeta>,
    pub session: Option<ServerSession>,
    /// The last request sent, awaiting its response: id and method.
    pub pending: Option<(RequestId, String)>,
    /// The version the last initialize offered.
    pub offered: Option<String>,
    pub response: Option<Response>,
    pub checks: Vec<Check>,
    /// Set when a step stopped the scenario on purpose.
    pub halted: Option<String>,
    /// Set when the harness could not judge (e.g. the implementation did not start).
    pub error: Option<String>,
    pub started: std::time::Instant,
}

impl std::fmt::Debug for ServerWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerWorld")
            .field("revision", &self.revision)
            .field("meta", &self.meta)
            .field("checks", &self.checks.len())
            .field("halted", &self.halted)
            .finish_non_exhaustive()
    }
}

impl ServerWorld {
    fn new() -> Self {
        ServerWorld {
            ctx: None,
            revision: Revision::latest_legacy(),
            meta: None,
            precondition: None,
            session: None,
            pending: None,
            offered: None,
            response: None,
            checks: Vec::new(),
            halted: None,
            error: None,
            started: std::time::Instant::now(),
        }
    }

    fn ctx(&self) -> Arc<SuiteContext> {
        self.ctx.clone().expect("the before hook sets the suite context")
    }

    fn spec(&self, doc: &str) -> String {
        format!("{}/{doc}", self.revision.doc_root())
    }

    /// Records a check of the scenario's own requirement — or, while a Given step establishes
    /// a precondition, of the precondition's requirement.
    fn check(&mut self, ok: bool, expected: impl Into<String>, actual: impl Into<String>) {
        let meta = self.precondition.clone().or_else(|| self.meta.clone());
        let meta = meta.expect("the before hook sets the scenario meta");
        let spec = self.spec(&meta.doc);
        self.checks.push(Check::judge(meta.id, meta.level, spec, ok, expected, actual));
    }

    /// Records a failed check of the scenario's requirement and stops the scenario.
    fn fail(&mut self, expected: impl Into<String>, actual: impl Into<String>) -> Halt {
        let actual = actual.into();
        self.check(false, expected, actual.clone());
        self.halted = Some(actual.clone());
        Halt(actual)
    }

    /// The harness could not act: the scenario ends with an error verdict.
    fn harness_error(&mut self, why: String) -> Halt {
        self.error = Some(why.clone());
        Halt(why)
    }

    fn session(&mut self) -> Result<&mut ServerSession, Halt> {
        if self.session.is_none() {
            return Err(
                self.harness_error("the scenario has no server process (a Given step is missing)".into())
            );
        }
        Ok(self.session.as_mut().expect("checked above"))
    }

    fn start(&mut self) -> Result<(), Halt> {
        let ctx = self.ctx();
        match ServerSession::start(&ctx.command, ctx.child.clone(), self.revision, ctx.schemas.clone()) {
            Ok(s) => {
                self.session = Some(s);
                Ok(())
            }
            Err(e) => Err(self.harness_error(e.to_string())),
        }
    }

    async fn send_request(&mut self, method: &str, params: Option<Value>) -> Result<(), Halt> {
        let sent = self.session()?.send_request(method, params).await;
        match sent {
            Ok(id) => {
                self.pending = Some((id, method.to_owned()));
                self.response = None;
                Ok(())
            }
            Err(e) => Err(self.not_sent(&format!("the {method} request"), e).await),
        }
    }

    /// Fails the scenario because a message could not be written, saying why the server
    /// stopped reading.
    async fn not_sent(&mut self, what: &str, e: SendError) -> Halt {
        let mut actual = format!("could not send it: {e}");
        if let Some(session) = self.session.as_mut() {
            actual.push_str(&session.exit_note().await);
        }
        self.append_stderr(&mut actual);
        self.fail(format!("the server reads {what}"), actual)
    }

    /// Appends the last stderr line of a server that went away.
    fn append_stderr(&self, actual: &mut String) {
        let stderr = self.session.as_ref().map(|s| s.stderr_tail()).unwrap_or_default();
        if let Some(last) = stderr.trim().lines().last() {
            actual.push_str(&format!("; last stderr line: {last}"));
        }
    }

    /// Waits for the response to the pending request; a missing one fails the scenario.
    async fn await_response(&mut self) -> Result<Response, Halt> {
        let Some((id, method)) = self.pending.take() else {
            return Err(
                self.harness_error("no request is awaiting a response (a When step is missing)".into())
            );
        };
        let within = self.ctx().timeout;
        let waited = self.session()?.wait_response(&id, within).await;
        match waited {
            Ok(r) => Ok(r),
            Err(e) => {
                let mut actual = e.to_string();
                if matches!(e, WaitError::Closed(_)) {
                    self.append_stderr(&mut actual);
                }
                Err(self.fail(format!("a response to {method} (id {id}) within {within:?}"), actual))
            }
        }
    }

    /// The result of the last response, or a failed check.
    fn last_result(&mut self) -> Result<Value, Halt> {
        match self.response.as_ref().map(|r| &r.outcome) {
            Some(Outcome::Result(v)) => Ok(v.clone()),
            Some(Outcome::Error(e)) => {
                let actual = format!("error {}: {}", e.code, e.message);
                Err(self.fail("a result", actual))
            }
            None => Err(self.harness_error("no response to inspect (a Then step is missing)".into())),
        }
    }
}

fn initialize_params(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": { "name": "mcpspec", "version": env!("CARGO_PKG_VERSION") },
    })
}

/// The params of a step's docstring, if any.
fn docstring_params(w: &mut ServerWorld, step: &Step) -> Result<Option<Value>, Halt> {
    match step.docstring.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        None => Ok(None),
        Some(d) => serde_json::from_str(d)
            .map(Some)
            .map_err(|e| w.harness_error(format!("the step's docstring is not JSON: {e}"))),
    }
}

fn outcome_text(r: &Response) -> String {
    match &r.outcome {
        Outcome::Result(v) => format!("result {}", describe(Some(v))),
        Outcome::Error(e) => format!("error {}: {}", e.code, e.message),
    }
}

// ----- Given -----

#[given("a server process")]
async fn a_server_process(w: &mut ServerWorld) -> Result<(), Halt> {
    w.start()
}

#[given("an initialized session")]
async fn an_initialized_session(w: &mut ServerWorld) -> Result<(), Halt> {
    w.precondition = Some(ScenarioMeta {
        id: "lifecycle/initialize-result".into(),
        level: Level::MUST,
        doc: "basic/lifecycle.mdx#initialization".into(),
    });
    let established = initialize_session(w).await;
    w.precondition = None;
    established
}

async fn initialize_session(w: &mut ServerWorld) -> Result<(), Halt> {
    w.start()?;
    let version = w.revision.as_str();
    w.send_request("initialize", Some(initialize_params(version))).await?;
    let response = w.await_response().await?;
    if let Outcome::Error(e) = &response.outcome {
        let actual = format!("initialize failed with error {}: {}", e.code, e.message);
        return Err(w.fail(format!("an initialized session at {version}"), actual));
    }
    let initialized = Message::notification("notifications/initialized", None);
    if let Err(e) = w.session()?.send(&initialized).await {
        return Err(w.not_sent("notifications/initialized", e).await);
    }
    Ok(())
}

// ----- When -----

#[when(expr = "the client sends {string} offering the revision under test")]
async fn sends_initialize_at_revision(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let version = w.revision.as_str().to_owned();
    w.offered = Some(version.clone());
    w.send_request(&method, Some(initialize_params(&version))).await
}

#[when(expr = "the client sends {string} offering {string}")]
async fn sends_initialize_offering(w: &mut ServerWorld, method: String, version: String) -> Result<(), Halt> {
    w.offered = Some(version.clone());
    w.send_request(&method, Some(initialize_params(&version))).await
}

#[when(expr = "the client sends a {string} request")]
async fn sends_request(w: &mut ServerWorld, step: &Step, method: String) -> Result<(), Halt> {
    let params = docstring_params(w, step)?;
    w.send_request(&method, params).await
}

#[when(expr = "the client sends the {string} notification")]
async fn sends_notification(w: &mut ServerWorld, step: &Step, method: String) -> Result<(), Halt> {
    let params = docstring_params(w, step)?;
    let sent = w.session()?.send(&Message::notification(&method, params)).await;
    match sent {
        Ok(()) => Ok(()),
        Err(e) => Err(w.not_sent(&method, e).await),
    }
}

#[when("the client closes the server's stdin")]
async fn closes_stdin(w: &mut ServerWorld) -> Result<(), Halt> {
    // The closing itself happens in the Then step, which also watches the exit.
    w.session()?;
    Ok(())
}

// ----- Then -----

#[then("the server answers with a result")]
async fn answers_with_a_result(w: &mut ServerWorld) -> Result<(), Halt> {
    let method = w.pending.as_ref().map(|(_, m)| m.clone()).unwrap_or_default();
    let r = w.await_response().await?;
    let ok = matches!(r.outcome, Outcome::Result(_));
    w.check(ok, format!("a result response to {method}"), outcome_text(&r));
    w.response = Some(r);
    if ok {
        Ok(())
    } else {
        w.halted = Some("an error instead of a result".into());
        Err(Halt("the server answered with an error".into()))
    }
}

#[then(regex = r"^the server answers with the result (.+)$")]
async fn answers_with_the_result(w: &mut ServerWorld, expected: String) -> Result<(), Halt> {
    let want: Value = serde_json::from_str(&expected)
        .map_err(|e| w.harness_error(format!("the step's expected result is not JSON: {e}")))?;
    let r = w.await_response().await?;
    let ok = matches!(&r.outcome, Outcome::Result(v) if *v == want);
    w.check(ok, format!("the result {want}"), outcome_text(&r));
    w.response = Some(r);
    Ok(())
}

#[then(regex = r#"^the result has the members ((?:"[^"]+"(?:, )?)+)$"#)]
async fn result_has_members(w: &mut ServerWorld, list: String) -> Result<(), Halt> {
    let result = w.last_result()?;
    for name in list.split('"').skip(1).step_by(2) {
        let found = result.get(name);
        w.check(
            found.is_some(),
            format!("the result has {name:?}"),
            match found {
                Some(v) => format!("{name:?}: {}", describe(Some(v))),
                None => format!("no {name:?} in {}", describe(Some(&result))),
            },
        );
    }
    Ok(())
}

#[then(expr = "the result's {string} is the revision under test")]
async fn result_member_is_revision(w: &mut ServerWorld, member: String) -> Result<(), Halt> {
    let result = w.last_result()?;
    let want = w.revision.as_str();
    let got = result.get(&member);
    w.check(got == Some(&Value::from(want)), format!("{member:?}: \"{want}\""), describe(got));
    Ok(())
}

#[then("the server counter-offers a revision it supports")]
async fn counter_offers(w: &mut ServerWorld) -> Result<(), Halt> {
    let offered = w.offered.clone().unwrap_or_default();
    let r = w.await_response().await?;
    let expected =
        format!("a result whose protocolVersion is a revision the server supports, not {offered:?}");
    match &r.outcome {
        Outcome::Result(result) => match result.get("protocolVersion") {
            Some(Value::String(v)) if *v == offered => {
                w.check(
                    false,
                    expected,
                    format!("protocolVersion {v:?}: the unsupported version was echoed"),
                );
            }
            Some(Value::String(v)) if v.parse::<Revision>().is_ok() => {
                w.check(true, expected, format!("protocolVersion {v:?}"));
            }
            Some(Value::String(v)) => {
                let spec = w.spec("basic/lifecycle.mdx#version-negotiation");
                let meta = w.meta.clone().expect("meta");
                w.checks.push(Check {
                    id: meta.id,
                    level: meta.level,
                    spec,
                    verdict: Verdict::Warning,
                    expected,
                    actual: format!("protocolVersion {v:?}, a revision mcpspec does not know"),
                });
            }
            other => w.check(false, expected, format!("protocolVersion {}", describe(other))),
        },
        Outcome::Error(e) => {
            // lifecycle.mdx's own Error Handling example answers this way, against the MUST of
            // its Version Negotiation section (spec-digest §T1): a deviation, not a failure.
            let meta = w.meta.clone().expect("meta");
            w.checks.push(Check {
                id: meta.id,
                level: meta.level,
                spec: w.spec("basic/lifecycle.mdx#error-handling"),
                verdict: Verdict::Warning,
                expected,
                actual: format!(
                    "error {}: {} — as in the spec's Error Handling example, but the normative text requires a counter-offer",
                    e.code, e.message
                ),
            });
        }
    }
    w.response = Some(r);
    Ok(())
}

#[then("the server exits within the timeout")]
async fn exits_within_timeout(w: &mut ServerWorld) -> Result<(), Halt> {
    let within = w.ctx().timeout;
    let session = w.session()?;
    let exited = session.close_stdin_and_wait(within).await;
    let expected = format!("the server exits within {within:?} of its stdin closing");
    match exited {
        Some(status) => {
            w.check(true, expected, format!("{} after its stdin was closed", describe_status(status)))
        }
        None => {
            let report = w.session()?.shutdown().await;
            w.check(false, expected, format!("still running after {within:?}; {}", report.describe()));
        }
    }
    Ok(())
}
