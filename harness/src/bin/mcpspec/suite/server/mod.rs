//! The step vocabulary of the scenarios and the cucumber `World` they act on. Steps are thin:
//! they send, wait and compare; the protocol logic lives in the library (session, recorder,
//! checker, persona). Kept in the binary crate, with the runner, because cucumber collects
//! steps with link-time registration that does not survive crossing a crate boundary.
//!
//! - [`given`]: sessions, and the capabilities or offers a scenario needs (else it is skipped);
//! - [`when`]: what the client sends;
//! - [`then`]: what the server must have done;
//! - [`auth`]: the authorization scenarios' requests outside any session.

mod auth;
mod fixture;
mod given;
mod http;
mod modern;
pub mod sweep;
mod tasks;
mod then;
mod when;

pub use crate::suite::scenario::{Halt, Requirement, Scenario, ScenarioState};
use crate::suite::world::Ending;
use mcpspec::judge::rules;
use mcpspec::judge::verdict::{Check, Verdict};
use mcpspec::session::pool::{History, SessionKey, SharedSession};
use mcpspec::session::server::{ServerSession, StartError, WaitError};
use mcpspec::session::target::Target;
use mcpspec_protocol::wire::{describe, Outcome, RequestId, Response};
use mcpspec_reference::transport::http_client::ConnectError;
use mcpspec_reference::transport::SendError;
use serde_json::{json, Value};
use std::sync::Arc;

/// A message sent that awaits its answer.
#[derive(Debug, Clone)]
pub struct Pending {
    /// The id its answer carries, when it has a readable one.
    pub id: Option<RequestId>,
    /// A malformed message may be answered with an error without an id.
    pub idless_ok: bool,
    /// The message may rightly go unanswered (malformed input, a ping with an odd id): a ping
    /// sent after it proves silence, instead of the whole timeout.
    pub barrier: bool,
    /// What was sent, for messages: `the tools/list request`.
    pub what: String,
    /// A request's method and params as the step gave them, so that an `InputRequiredResult`
    /// can be answered and the request sent again (modern era).
    pub request: Option<(String, Option<Value>)>,
}

/// The server process a scenario shares with others.
#[derive(Debug, Clone, Copy)]
pub struct SharedProcess {
    /// The process's number in this run.
    pub process: usize,
    /// How many scenarios had used it when this one joined (this one included).
    pub tenants: usize,
    /// The scenario may change the server: it holds the process alone. Otherwise it only
    /// reads, and others may use the process at the same time.
    pub alone: bool,
}

/// A shared process a scenario left before its end (to connect again): what the end of the
/// scenario decides from, as it would have had the scenario ended there.
pub struct LeftEarly {
    /// Why a verdict there might not stand (a message that could have been another's, another
    /// scenario's change).
    taint: Option<String>,
    /// It held the process alone: then the taint counts only if the scenario does not pass.
    /// Used at once with others, a scenario that does not pass is judged again alone.
    alone: bool,
}

/// A list followed page by page.
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub method: String,
    pub items: Vec<JsonText>,
    pub pages: usize,
    /// Why the listing stopped before its end (an error, a cycle, the page bound).
    pub unfinished: Option<String>,
}

/// A JSON value kept as its text: one item of a list, one request the sweep may send. A
/// catalogue of 10,000 tools held this way costs about its size on the wire, where a tree of
/// maps per item costs several times that, in each of the scenarios listing it at once (issue
/// #31: the run's peak RSS). Read back where a step looks inside it.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonText(Box<str>);

impl JsonText {
    pub fn of(value: &Value) -> JsonText {
        JsonText(value.to_string().into_boxed_str())
    }

    /// The value again (text this type wrote always parses; anything else reads as null).
    pub fn value(&self) -> Value {
        serde_json::from_str(&self.0).unwrap_or(Value::Null)
    }

    /// The member `key` of an object.
    pub fn member(&self, key: &str) -> Option<Value> {
        match self.value() {
            Value::Object(mut map) => map.remove(key),
            _ => None,
        }
    }
}

/// One scenario in progress.
#[derive(cucumber::World)]
#[world(init = Self::new)]
pub struct ServerWorld {
    pub scenario: ScenarioState,
    pub session: Option<ServerSession>,
    /// Messages sent whose answers the next Then steps wait for, oldest first.
    pub pending: Vec<Pending>,
    /// The version the last initialize offered.
    pub offered: Option<String>,
    /// The last answer received, shared with the step that awaited it: a result of megabytes
    /// is held once, not once here and once in the step.
    pub response: Option<Arc<Response>>,
    /// What the server said about itself when the session was established: its initialize
    /// result (legacy era) or its `server/discover` result (modern era); both hold its
    /// `capabilities`.
    pub server_description: Option<Value>,
    /// The subject a Given step picked (a tool, a resource, a prompt).
    pub subject: Option<Value>,
    pub listing: Option<Listing>,
    /// The requests of the sweep so far.
    pub sweep: sweep::SweepState,
    /// The last HTTP exchange a step made (`steps::http`).
    pub exchange: Option<u64>,
    /// The turn this scenario's server process started in, held until its first answer
    /// ([`mcpspec::session::starts`]).
    pub start_turn: Option<mcpspec::session::starts::StartTurn>,
    /// Set while the session may be handed on to the next scenario that needs one like it:
    /// what it is, and whom it served.
    pub share: Option<(SessionKey, History)>,
    /// Set while the scenario is a tenant of a server process scenarios share
    /// ([`mcpspec::session::server::host`]).
    pub tenancy: Option<SharedProcess>,
    /// A shared process the scenario left before its end ([`Self::leave_before_the_end`]).
    pub left_early: Option<LeftEarly>,
    /// Answers the input a server asks for with an `InputRequiredResult` and sends the request
    /// again (the default); off in scenarios that judge the asking round by round.
    pub answers_input: bool,
    /// The last request a step sent: its method and params as the step gave them.
    pub last_sent: Option<(String, Option<Value>)>,
    /// The `subscriptions/listen` request of a subscription the scenario opened.
    pub subscription: Option<RequestId>,
    /// What an authorization scenario has seen.
    pub auth: auth::AuthState,
    /// The task a task scenario created (its id).
    pub task: Option<String>,
    /// Every task a scenario's repeated task-augmented calls created (their ids, in order).
    pub tasks: Vec<String>,
    /// Each listing of the stable lists (tools, prompts, resources): per list, its items'
    /// identities.
    pub listed_rounds: Vec<Vec<(String, std::collections::BTreeSet<String>)>>,
}

impl std::fmt::Debug for ServerWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerWorld").field("scenario", &self.scenario).finish_non_exhaustive()
    }
}

impl Scenario for ServerWorld {
    fn state(&self) -> &ScenarioState {
        &self.scenario
    }

    fn state_mut(&mut self) -> &mut ScenarioState {
        &mut self.scenario
    }
}

impl crate::suite::world::RoleWorld for ServerWorld {
    async fn end_session(
        &mut self,
        checks: &mut Vec<Check>,
        failing: &dyn Fn(&[Check]) -> bool,
        ending: Ending,
    ) -> crate::suite::world::SessionEnd {
        let left_early = self.left_early.take();
        let mut end = self.end_last_session(checks, failing, ending).await;
        // What it saw on a shared process it left before its end counts as it would have,
        // had the scenario ended there.
        if let Some(LeftEarly { taint, alone }) = left_early {
            let passed = ending == Ending::Finished && checks.iter().all(|c| c.verdict <= Verdict::Passed);
            let again = match (taint, alone, passed) {
                (Some(why), false, _) | (Some(why), true, false) => Some(why),
                (None, false, false) => Some(
                    "it did not pass, having used a process other scenarios used at the same time".to_owned(),
                ),
                _ => None,
            };
            end.again = end.again.or(again);
        }
        end
    }
}

impl ServerWorld {
    /// Ends the session the scenario has at its end: its own process, or a shared one.
    async fn end_last_session(
        &mut self,
        checks: &mut Vec<Check>,
        failing: &dyn Fn(&[Check]) -> bool,
        ending: Ending,
    ) -> crate::suite::world::SessionEnd {
        let clean = ending == Ending::Finished;
        let mut end = crate::suite::world::SessionEnd::default();
        let Some(mut session) = self.session.take() else { return end };
        // The scenario is over: read what is already in flight.
        let _ = session.drain(std::time::Duration::ZERO).await;
        if let Some(shared) = self.tenancy.take() {
            return self.leave_shared_process(session, shared, checks, failing, ending, end).await;
        }
        if let Some(why) = self.scenario.run.as_ref().and_then(|r| r.alone.clone()) {
            end.session = Some(format!("run again in a process of its own: {why}"));
        }
        if let Some(id) = session.reused_id() {
            // Not the server's fault, and not judgeable here: ids are unique per session.
            checks.push(Check {
                id: "mcpspec/shared-session".into(),
                level: mcpspec::judge::verdict::Level::MUST,
                spec: self.scenario.spec("basic/index.mdx#requests"),
                verdict: Verdict::Error,
                expected: "a request id not used before in the session".into(),
                actual: format!(
                    "the scenario sent the id {id}, which an earlier scenario on the same shared process \
                     had used; run it with --isolate"
                ),
                message: None,
                baselined: false,
                clauses: Vec::new(),
            });
        }
        let mut session = match self.share.is_none() {
            true => match self.hand_on_handshaken(session, checks, clean).await {
                Ok(handed_on) => return handed_on,
                Err(session) => session,
            },
            false => session,
        };
        if let Some((key, history)) = self.share.take() {
            session.collect_barriers(self.timeout()).await;
            let mut seen = checks.clone();
            seen.extend(session.recorder().checks());
            let passed = clean && seen.iter().all(|c| c.verdict <= Verdict::Passed);
            // What a run on a session of its own shows decides whether the scenario's runs at
            // other revisions may use a process with others at once.
            // A skipped run did not show it.
            if self.scenario.skipped.is_none() {
                self.ctx().learn_reads(self.scenario.id(), passed && session.only_read());
            }
            let why_not = session
                .why_not_shareable()
                .or_else(|| (!passed).then(|| "the scenario did not pass cleanly".to_owned()));
            end.session = history.describe(why_not.as_deref());
            if why_not.is_none() {
                *checks = seen;
                let server_description = self.server_description.take().unwrap_or_default();
                let ctx = self.ctx();
                for retired in ctx.pool.put(key, SharedSession { session, server_description, history }) {
                    ctx.retire(retired);
                }
                return end;
            }
        }
        end.shutdown = Some(session.shutdown().await.describe());
        checks.extend(session.recorder().checks());
        if failing(checks) {
            end.stderr = Some(session.stderr_tail()).filter(|s| !s.is_empty());
            end.transcript = Some(session.recorder().transcript().0.to_vec());
        }
        end
    }
}

impl ServerWorld {
    /// Ends a scenario on a server process scenarios share. One that held it alone hands it on
    /// (if it left the server as it found it and passed cleanly) or ends it, as a process of
    /// its own would be ended. One that only read, while others used it too, keeps its verdict
    /// only if it passed (or was skipped), nothing it saw could have been another's, and no
    /// other scenario changed the server meanwhile; otherwise it is run again, alone (a failure
    /// is never judged on a process used at once). Either session is kept until the process
    /// ends, so what the server still writes for its scenario is charged to it.
    async fn leave_shared_process(
        &mut self,
        mut session: ServerSession,
        shared: SharedProcess,
        checks: &mut Vec<Check>,
        failing: &dyn Fn(&[Check]) -> bool,
        ending: Ending,
        mut end: crate::suite::world::SessionEnd,
    ) -> crate::suite::world::SessionEnd {
        let clean = ending == Ending::Finished;
        session.collect_barriers(self.timeout()).await;
        let mut seen = checks.clone();
        seen.extend(session.recorder().checks());
        let passed = clean && seen.iter().all(|c| c.verdict <= Verdict::Passed);
        let ctx = self.ctx();
        let id = self.scenario.id().to_owned();
        // What a run holding the process alone shows decides whether the scenario's runs at
        // other revisions may share it at once; a scenario that did not pass is not run at once
        // (it would only be run again).
        if shared.alone {
            ctx.learn_reads(&id, passed && session.only_read());
        } else if !session.only_read() {
            ctx.learn_reads(&id, false);
        }
        let how = if shared.alone { "alone" } else { "with others at once" };
        if shared.alone {
            // A scenario that broke only a SHOULD, sending nothing that could change the server,
            // left it as it was: what it sent was answered otherwise than it should be (an
            // invalid request the server ignored instead of refusing it, say). One that broke
            // a MUST may not have. One the broken SHOULD stopped did not get to its last steps,
            // so the process must first show it still answers (outside the scenario's record:
            // its verdict is what it saw).
            let worst = seen.iter().map(|c| c.verdict).max().unwrap_or(Verdict::Passed);
            let unchanged = worst == Verdict::Warning && session.left_as_found();
            let settled = match ending {
                Ending::Finished => worst <= Verdict::Passed || unchanged,
                // Nothing in flight first: a ping behind a request the server never answered
                // would only wait out the timeout.
                Ending::HaltedOnWarning => {
                    unchanged
                        && session.why_not_shareable().is_none()
                        && self.still_answers(&mut session).await
                }
                Ending::Broken => false,
            };
            let why_not = session
                .why_not_shareable()
                .or_else(|| (!settled).then(|| "the scenario did not pass cleanly".to_owned()));
            session.release_process(why_not.as_deref());
            let ended = session.shutdown().await;
            if let mcpspec::session::server::SessionEnd::Process(_) = ended {
                // The process ended with the scenario: what it wrote last is the scenario's, as
                // over a process of its own.
                let _ = session.drain(std::time::Duration::from_millis(1)).await;
                seen = checks.clone();
                seen.extend(session.recorder().checks());
            }
            // Held alone, the process was its own but for what earlier scenarios left on it: a
            // message it could not tell from theirs, or an id one of them had used, counts only
            // if the scenario did not pass — then it is judged again in a process of its own.
            if let Some(why) = session.tenancy_taint().filter(|_| !passed) {
                end.again = Some(why);
                return end;
            }
            *checks = seen;
            if failing(checks) {
                end.stderr = Some(session.stderr().await).filter(|s| !s.is_empty());
                end.transcript = Some(session.recorder().transcript().0.to_vec());
            }
            // A process that served this scenario alone and ended with it was its own: its
            // report says nothing of sharing.
            end.session = match &why_not {
                None => Some(format!(
                    "shared process #{}, scenario {} to use it ({how}); kept for others",
                    shared.process, shared.tenants
                )),
                Some(_) if shared.tenants == 1 => None,
                Some(why) => Some(format!(
                    "shared process #{}, scenario {} to use it ({how}); ended: {why}",
                    shared.process, shared.tenants
                )),
            };
            if let mcpspec::session::server::SessionEnd::Process(_) = ended {
                end.shutdown = Some(ended.describe());
            }
            ctx.pool.depart(session, id, self.scenario.revision);
            return end;
        }
        // Leaving first: a tenant that leaves while another's change is in flight is tainted.
        let left = session.shutdown().await.describe();
        let again = session.tenancy_taint().or_else(|| {
            (!passed).then(|| "it did not pass on a process other scenarios used at the same time".to_owned())
        });
        if again.is_some() {
            end.again = again;
            return end;
        }
        *checks = seen;
        end.session = Some(format!(
            "shared process #{}, scenario {} to use it ({how}); {left}",
            shared.process, shared.tenants
        ));
        ctx.pool.depart(session, id, self.scenario.revision);
        end
    }

    /// Hands on the process of a scenario that started it itself (`Given a server process`): if
    /// it passed cleanly and did nothing else the server could notice, the process is an
    /// initialized session like any a Given step opens, and serves the later scenarios needing
    /// that session instead of a process of their own. A scenario that made the handshake
    /// (`initialize`, say, and a ping) leaves the session it made, at the revision the server
    /// answered with and the capabilities it declared; one that never initialized (a ping
    /// before `initialize`) leaves a process mcpspec then initializes itself, with no client
    /// capabilities, handing it on only if the server echoes the revision and breaks no rule
    /// doing so. mcpspec sends `notifications/initialized` if the scenario did not. All of that
    /// happens after the scenario's record has ended: its verdict rests on what it saw, as in a
    /// process of its own. Gives the session back when it cannot be handed on.
    async fn hand_on_handshaken(
        &mut self,
        mut session: ServerSession,
        checks: &mut Vec<Check>,
        clean: bool,
    ) -> Result<crate::suite::world::SessionEnd, ServerSession> {
        let ctx = self.ctx();
        let hosted = ctx.pool.enabled()
            && matches!(ctx.target, mcpspec::session::target::Target::Stdio(_))
            && self.scenario.run.as_ref().is_none_or(|r| r.alone.is_none());
        let legacy = |r: &mcpspec_protocol::Revision| r.era() == mcpspec_protocol::Era::Legacy;
        // The handshake the scenario made: its result, capabilities, whether it was confirmed
        // and the revision agreed on; `None` when it made none.
        let made = match session.handshake() {
            _ if !hosted => return Err(session),
            None if legacy(&self.scenario.revision) => None,
            None => return Err(session),
            Some(h) => match (h.result.clone(), session.recorder().checker().negotiated().filter(legacy)) {
                (Some(result), Some(revision)) => {
                    Some((result, h.capabilities.clone(), h.confirmed, revision))
                }
                _ => return Err(session),
            },
        };
        session.collect_barriers(self.timeout()).await;
        let mut seen = checks.clone();
        seen.extend(session.recorder().checks());
        let passed = clean && seen.iter().all(|c| c.verdict <= Verdict::Passed);
        if !passed || !session.only_read() || session.why_not_shareable().is_some() {
            return Err(session);
        }
        *checks = seen;
        let process = ctx.pool.next_process();
        session.hand_over(format!(
            "shared process #{process}: the process of {}, handed on once it had ended",
            self.scenario.id()
        ));
        let by = match made.is_some() {
            true => "by its own handshake",
            false => "by mcpspec once it had ended",
        };
        let made = match made {
            Some(made) => Some(made),
            None => self.initialize_for_others(&mut session).await,
        };
        let initialized = mcpspec_protocol::wire::Message::notification("notifications/initialized", None);
        let Some((result, capabilities, confirmed, revision)) = made else {
            let shutdown = Some(session.shutdown().await.describe());
            return Ok(crate::suite::world::SessionEnd { shutdown, ..Default::default() });
        };
        if !confirmed && session.send(&initialized).await.is_err() {
            let shutdown = Some(session.shutdown().await.describe());
            return Ok(crate::suite::world::SessionEnd { shutdown, ..Default::default() });
        }
        ctx.pool.adopt(session, revision, &capabilities, &result, process).await;
        let session = Some(format!(
            "its process, initialized at {revision} {by}, was handed on to later scenarios as shared process \
             #{process}"
        ));
        Ok(crate::suite::world::SessionEnd { session, ..Default::default() })
    }

    /// Initializes a process its scenario left uninitialized, with no client capabilities, for
    /// later scenarios: the result, if the server echoed the scenario's revision and broke no
    /// rule answering.
    async fn initialize_for_others(
        &self,
        session: &mut ServerSession,
    ) -> Option<(Value, Value, bool, mcpspec_protocol::Revision)> {
        let revision = self.scenario.revision;
        let capabilities = json!({});
        let params = initialize_params(revision.as_str(), &capabilities);
        let answer = session.request("initialize", Some(params), self.timeout()).await.ok()?;
        match answer.outcome {
            Outcome::Result(result)
                if result.get("protocolVersion") == Some(&Value::from(revision.as_str()))
                    && !session.recorder().has_findings() =>
            {
                Some((result, capabilities, false, revision))
            }
            _ => None,
        }
    }

    /// Whether the server still answers the liveness request (ping, or `server/discover` in
    /// the modern era) within the timeout, with nothing else in flight after it.
    async fn still_answers(&mut self, session: &mut ServerSession) -> bool {
        let (method, params) = session.liveness_request();
        let Ok(id) = session.send_request_as_is(method, params).await else { return false };
        let answered = session.wait_response(&id, self.timeout()).await;
        matches!(answered.map(|r| r.outcome), Ok(Outcome::Result(_))) && session.why_not_shareable().is_none()
    }

    fn new() -> Self {
        ServerWorld {
            scenario: ScenarioState::default(),
            session: None,
            pending: Vec::new(),
            offered: None,
            response: None,
            server_description: None,
            subject: None,
            listing: None,
            listed_rounds: Vec::new(),
            sweep: sweep::SweepState::default(),
            exchange: None,
            share: None,
            tenancy: None,
            left_early: None,
            start_turn: None,
            answers_input: true,
            last_sent: None,
            subscription: None,
            auth: auth::AuthState::default(),
            task: None,
            tasks: Vec::new(),
        }
    }

    fn session(&mut self) -> Result<&mut ServerSession, Halt> {
        if self.session.is_none() {
            return Err(
                self.harness_error("the scenario has no server process (a Given step is missing)".into())
            );
        }
        Ok(self.session.as_mut().expect("checked above"))
    }

    /// Starts a server process of the scenario's own (not one to hand on: see `given::establish`),
    /// in its turn (the one the scenario holds, if it waited for it already). Only a start that
    /// spawns a process takes a turn: over HTTP a session is a connection to a server already
    /// running, whose first answer costs no start's CPU; gated by the cores, sessions whose
    /// server never answers would wait out each other's timeouts two at a time.
    async fn start(&mut self) -> Result<(), Halt> {
        self.share = None;
        let ctx = self.ctx();
        if self.start_turn.is_none() && matches!(ctx.target, Target::Stdio(_)) {
            self.start_turn = mcpspec::session::starts::turn().await;
        }
        match ServerSession::start(
            &ctx.target,
            ctx.child.clone(),
            self.scenario.revision,
            ctx.schemas.clone(),
        )
        .await
        {
            Ok(mut s) => {
                if let (Some(turn), Some(group)) = (self.start_turn.as_mut(), s.process_group()) {
                    turn.spawned(group);
                }
                let me = self.scenario.id();
                s.set_label(format!("{me} {}", self.scenario.revision));
                self.session = Some(s);
                Ok(())
            }
            // The server's fault, not the harness's: an HTTP+SSE stream that names no endpoint.
            Err(StartError::Connect(e @ ConnectError::NoEndpoint { .. })) => {
                self.scenario.precondition = Some(Requirement {
                    id: rules::SSE_ENDPOINT_EVENT.id.into(),
                    level: rules::SSE_ENDPOINT_EVENT.level,
                    doc: "basic/transports.mdx".into(),
                });
                Err(self.fail("an endpoint event first on the SSE stream", e.to_string()))
            }
            Err(e) => Err(self.harness_error(e.to_string())),
        }
    }

    /// Ends the session and starts the server afresh; the wire checks of the session that
    /// ended stay the scenario's.
    async fn restart(&mut self) -> Result<(), Halt> {
        if let Some(mut old) = self.session.take() {
            let _ = old.drain(std::time::Duration::ZERO).await;
            match self.tenancy.take() {
                Some(shared) => self.leave_before_the_end(old, shared).await,
                None => {
                    old.shutdown().await;
                    self.scenario.checks.extend(old.recorder().checks());
                }
            }
        }
        self.pending.clear();
        self.response = None;
        self.server_description = None;
        self.start().await
    }

    /// Leaves a shared process before the scenario ends (it connects again): as a scenario
    /// that ends leaves one, not by ending a process others use. Held alone, the process is
    /// given back if the scenario has left it as it found it and broken nothing so far, else
    /// it takes no one again; a leased process never released would be lost to every later
    /// scenario, each then starting one of its own. What could make the verdict not stand
    /// there (another's message, another's change) is kept for the scenario's end
    /// ([`LeftEarly`]); what the process writes for it later is still charged to it.
    async fn leave_before_the_end(&mut self, mut old: ServerSession, shared: SharedProcess) {
        let broken =
            self.scenario.checks.iter().chain(&old.recorder().checks()).any(|c| c.verdict > Verdict::Passed);
        if shared.alone {
            let why_not = old
                .why_not_shareable()
                .or_else(|| broken.then(|| "the scenario did not pass cleanly".to_owned()));
            old.release_process(why_not.as_deref());
        }
        // Leaving first: a tenant that leaves while another's change is in flight is tainted.
        old.shutdown().await;
        self.left_early = Some(LeftEarly { taint: old.tenancy_taint(), alone: shared.alone });
        self.scenario.checks.extend(old.recorder().checks());
        let ctx = self.ctx();
        ctx.pool.depart(old, self.scenario.id().to_owned(), self.scenario.revision);
    }

    /// Sends a request and queues it for the Then steps.
    async fn send_request(&mut self, method: &str, params: Option<Value>) -> Result<RequestId, Halt> {
        let sent = self.session()?.send_request(method, params.clone()).await;
        self.last_sent = Some((method.to_owned(), params.clone()));
        match sent {
            Ok(id) => {
                self.pending.push(Pending {
                    id: Some(id.clone()),
                    idless_ok: false,
                    barrier: false,
                    what: format!("the {method} request"),
                    request: Some((method.to_owned(), params)),
                });
                self.response = None;
                Ok(id)
            }
            Err(e) => Err(self.not_sent(&format!("the {method} request"), e).await),
        }
    }

    /// Sends a request and waits for its answer: for steps that set up a scenario.
    async fn call(&mut self, method: &str, params: Option<Value>) -> Result<Arc<Response>, Halt> {
        self.send_request(method, params).await?;
        self.await_answer().await
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

    /// Waits for the answer to the oldest pending message; a missing one fails the scenario.
    async fn await_answer(&mut self) -> Result<Arc<Response>, Halt> {
        if self.pending.is_empty() {
            return Err(
                self.harness_error("no message is awaiting an answer (a When step is missing)".into())
            );
        }
        let Pending { id, idless_ok, barrier, what, request } = self.pending.remove(0);
        let within = self.timeout();
        let answers_input = self.answers_input;
        let session = self.session()?;
        let mut waited = match barrier {
            true => session.wait_answer_or_silence(id.as_ref(), idless_ok, within).await,
            false => session.wait_answer(id.as_ref(), idless_ok, within).await,
        };
        // Input the server asks for is given, as a client would, unless the scenario is about
        // the asking itself.
        if let (Ok(answer), Some((method, params)), true) = (&waited, request, answers_input) {
            if mcpspec::session::server::input_required(answer).is_some() {
                let first = answer.clone();
                waited = session.complete_input(&method, params, first, within).await;
            }
        }
        // The server has started (or shown it will not answer): the next start may go.
        self.start_turn = None;
        match waited {
            Ok(r) => {
                let r = Arc::new(r);
                self.response = Some(r.clone());
                Ok(r)
            }
            Err(e) => {
                let mut actual = e.to_string();
                if matches!(e, WaitError::Closed(_)) {
                    self.append_stderr(&mut actual);
                }
                let whose = match (&id, idless_ok) {
                    (Some(id), false) => format!("a response to {what} (id {id}) within {within:?}"),
                    (Some(id), true) => {
                        format!("an error response to {what} (id {id}, or none) within {within:?}")
                    }
                    (None, _) => format!("an error response (without id) to {what} within {within:?}"),
                };
                Err(self.fail(whose, actual))
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

    /// The server's capabilities, from its initialize or discover result.
    fn server_capabilities(&mut self) -> Result<Value, Halt> {
        match self.server_description.as_ref().and_then(|r| r.get("capabilities")) {
            Some(c) => Ok(c.clone()),
            None => Err(self.harness_error("the scenario has no initialized session".into())),
        }
    }
}

/// The params of an initialize request offering `version`.
fn initialize_params(version: &str, capabilities: &Value) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": capabilities,
        "clientInfo": mcpspec::session::server::client_info(),
    })
}

fn outcome_text(r: &Response) -> String {
    match &r.outcome {
        Outcome::Result(v) => format!("result {}", describe(Some(v))),
        Outcome::Error(e) => format!("error {}: {}", e.code, e.message),
    }
}

/// Parses JSON written in a step, or stops with a harness error.
fn step_json(w: &mut ServerWorld, text: &str) -> Result<Value, Halt> {
    serde_json::from_str(text.trim())
        .map_err(|e| w.harness_error(format!("the step's JSON {text:?} is invalid: {e}")))
}

/// The params in a step's docstring, if any.
fn docstring_json(w: &mut ServerWorld, step: &cucumber::gherkin::Step) -> Result<Option<Value>, Halt> {
    match step.docstring.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        None => Ok(None),
        Some(d) => step_json(w, d).map(Some),
    }
}
