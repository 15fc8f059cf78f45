//! The step vocabulary of the client scenarios and their cucumber `World`: mcpspec plays the
//! server (the scenario server), the client under test connects to it through the relay. Steps
//! are thin; the session logic lives in `mcpspec::session::client`. Kept in the binary crate,
//! like the server steps (cucumber's step registration does not cross crates).

mod auth;
mod cancellation;
mod elicitation;
mod http;
mod modern;
mod pagination;
mod sampling;
mod tasks;

pub use crate::suite::scenario::{Halt, Scenario, ScenarioState};
use crate::suite::world::{RoleWorld, SessionEnd};
use cucumber::{given, then, when};
use mcpspec::judge::checker::Inspection;
use mcpspec::judge::verdict::Check;
use mcpspec::session::client::{ClientSession, ClientWaitError, Ending, ServerScript};
use mcpspec_protocol::wire::{describe, ErrorObject, Message, RequestId};
use mcpspec_protocol::Revision;
use serde_json::{json, Value};
use std::time::Duration;

/// How long the harness watches for messages the client must not send (e.g. before the
/// initialize response).
const QUIET: Duration = Duration::from_millis(300);

/// In client-lifecycle/shutdown, how many timeouts a client that keeps working is given to
/// finish and end its session (a plausible client that explores a server slowly takes tens of
/// seconds); a client silent for one timeout is judged at once.
const SHUTDOWN_BUDGET_TIMEOUTS: u32 = 6;

/// One client scenario in progress.
#[derive(cucumber::World)]
#[world(init = Self::new)]
pub struct ClientWorld {
    pub scenario: ScenarioState,
    pub session: Option<ClientSession>,
    /// A request of the client's (initialize, …) held unanswered until a step answers it.
    pub held: Option<Inspection>,
    /// The `capabilities` the client declared in `initialize`.
    pub client_capabilities: Option<Value>,
    /// A request of the scenario server's awaiting the client's answer.
    pub pending: Option<RequestId>,
    /// Modern era: the input request of the scenario server's awaiting the client's answer in
    /// the retry of its request.
    pub input: Option<modern::InputAsked>,
    /// Modern era: how many input requests the scenario server has asked (their keys and
    /// states are numbered).
    pub inputs_asked: u32,
    /// A request cancelled in the scenario (by either side), whose answers are watched.
    pub cancelled: Option<RequestId>,
    /// When the scenario server sent its cancellation of `cancelled`.
    pub cancelled_at: Option<tokio::time::Instant>,
    /// The opaque cursor the scenario server handed out, and the page it stands for.
    pub cursor: Option<(String, Vec<Value>)>,
    /// The params of the scenario server's last request (what the answer is judged against).
    pub sent_params: Option<Value>,
    /// The client's last result to a scenario server's request (a tool loop continues from it).
    pub last_result: Option<Value>,
    /// At a modern revision, the client began with `initialize`: it speaks only the legacy era,
    /// the scenario is skipped, and its session (of another era) is not judged either.
    pub legacy_only: bool,
    /// Over a protected endpoint: the client got through (its first session began); a client
    /// that rightly refused to authorize never does.
    pub authorized: bool,
    /// The listener whose URLs (`{listener}` in a request's params) the client must not fetch
    /// on its own.
    pub canary: Option<mcpspec_reference::transport::canary::Canary>,
}

impl std::fmt::Debug for ClientWorld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientWorld").field("scenario", &self.scenario).finish_non_exhaustive()
    }
}

impl Scenario for ClientWorld {
    fn state(&self) -> &ScenarioState {
        &self.scenario
    }

    fn state_mut(&mut self) -> &mut ScenarioState {
        &mut self.scenario
    }
}

impl RoleWorld for ClientWorld {
    async fn end_session(
        &mut self,
        checks: &mut Vec<Check>,
        failing: &dyn Fn(&[Check]) -> bool,
        _ending: crate::suite::world::Ending,
    ) -> SessionEnd {
        let mut end = SessionEnd::default();
        if let Some(session) = self.session.as_mut() {
            end.shutdown = Some(mcpspec::session::client::describe_end(&session.shutdown().await));
            if !self.legacy_only {
                checks.extend(session.recorder().checks());
            }
            if failing(checks) {
                end.stderr = Some(session.stderr_tail()).filter(|s| !s.is_empty());
                end.transcript = Some(session.recorder().transcript().0.to_vec());
            }
        }
        self.session = None;
        end
    }
}

impl ClientWorld {
    fn new() -> Self {
        ClientWorld {
            scenario: ScenarioState::default(),
            session: None,
            held: None,
            client_capabilities: None,
            pending: None,
            input: None,
            inputs_asked: 0,
            cancelled: None,
            cancelled_at: None,
            cursor: None,
            sent_params: None,
            last_result: None,
            legacy_only: false,
            authorized: false,
            canary: None,
        }
    }

    /// The member at `pointer` of the held request of the client's.
    fn held_value(&self, pointer: &str) -> Option<Value> {
        self.held.as_ref()?.value.as_ref()?.pointer(pointer).cloned()
    }

    pub(super) fn session(&mut self) -> Result<&mut ClientSession, Halt> {
        if self.session.is_none() {
            return Err(self.harness_error("the scenario has no client (a Given step is missing)".into()));
        }
        Ok(self.session.as_mut().expect("checked above"))
    }

    /// Fails the scenario because the client did not do what was `expected`, with the last
    /// line of its stderr when it went away.
    pub(super) fn lost(&mut self, expected: String, e: ClientWaitError) -> Halt {
        let mut actual = e.to_string();
        if !matches!(e, ClientWaitError::Timeout(_)) {
            let stderr = self.session.as_ref().map(|s| s.stderr_tail()).unwrap_or_default();
            if let Some(last) = stderr.trim().lines().last() {
                actual.push_str(&format!("; last stderr line: {last}"));
            }
        }
        self.fail(expected, actual)
    }
}

/// Steps that wait for the client to get somewhere at its own pace (a request it sends when it
/// is ready, the end of its run), however quickly mcpspec judges: the scenarios with them are
/// the longest against a client that explores a server slowly. Prefixes of step texts, kept
/// in step with the definitions below (a test checks each still begins a step of the suite).
const PACED_STEPS: [&str; 2] =
    ["the client closes the server's stdin when it is done", "the client sends a \""];

/// How many steps of `scenario` wait on the client's own pace ([`PACED_STEPS`]).
fn paced_steps(scenario: &cucumber::gherkin::Scenario) -> usize {
    scenario.steps.iter().filter(|s| PACED_STEPS.iter().any(|p| s.value.starts_with(p))).count()
}

/// The client suite's running order: one feature per scenario, those that wait on the client's
/// own pace first (the most such steps first; otherwise in the order given). Many scenarios
/// run at once (`-j`), and a run lasts as long as its last scenario: a long one started last
/// makes the tail. Reports keep the order of the feature files whatever the running order.
pub fn paced_first(features: Vec<cucumber::gherkin::Feature>) -> Vec<cucumber::gherkin::Feature> {
    let mut one_each: Vec<(usize, cucumber::gherkin::Feature)> = features
        .into_iter()
        .flat_map(|mut feature| {
            let scenarios = std::mem::take(&mut feature.scenarios);
            scenarios.into_iter().map(move |scenario| {
                let paced = paced_steps(&scenario);
                let mut copy = feature.clone();
                copy.scenarios = vec![scenario];
                (paced, copy)
            })
        })
        .collect();
    one_each.sort_by_key(|(paced, _)| std::cmp::Reverse(*paced));
    one_each.into_iter().map(|(_, f)| f).collect()
}

/// The relay the client spawns as its server: this very executable, `peer`.
fn relay() -> Result<Vec<String>, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find mcpspec's own executable: {e}"))?;
    Ok(vec![me.display().to_string(), "peer".into()])
}

fn is_request(i: &Inspection, method: &str) -> bool {
    matches!(&i.message, Some(Message::Request(r)) if r.method == method)
}

fn what(i: &Inspection) -> String {
    match (&i.message, &i.value) {
        (Some(Message::Request(r)), _) => format!("a {} request", r.method),
        (Some(Message::Notification(n)), _) => format!("a {} notification", n.method),
        (Some(Message::Response(_)), v) => format!("a response {}", describe(v.as_ref())),
        (None, v) => format!("a malformed message {}", describe(v.as_ref())),
    }
}

#[given("a client connected to the scenario server")]
async fn a_client_connected(w: &mut ClientWorld) -> Result<(), Halt> {
    connect(w, ServerScript::default()).await
}

/// Starts the client command against the scenario server (scripted by `script`), over the
/// transport the run certifies, and waits for it to connect.
pub(super) async fn connect(w: &mut ClientWorld, script: ServerScript) -> Result<(), Halt> {
    connect_or_refused(w, script, false).await
}

/// [`connect`]; with `may_refuse`, a client that never starts a session is no failure here (over
/// a protected endpoint, refusing to authorize can be what the scenario requires): whether it
/// did is in [`ClientWorld::authorized`].
pub(super) async fn connect_or_refused(
    w: &mut ClientWorld,
    script: ServerScript,
    may_refuse: bool,
) -> Result<(), Halt> {
    let ctx = w.ctx();
    let scenario = w.scenario.id().to_owned();
    let slot = mcpspec::session::starts::turn().await;
    let (revision, schemas) = (w.scenario.revision, ctx.schemas.clone());
    let started = match &ctx.target {
        mcpspec::session::target::Target::Stdio(command) => {
            let relay = relay().map_err(|e| w.harness_error(e))?;
            let child = ctx.child.clone();
            ClientSession::start(command, &relay, child, revision, schemas, &scenario, &json!({}), script)
        }
        mcpspec::session::target::Target::ClientOverHttp(command, flavor) => {
            let child = ctx.child.clone();
            ClientSession::start_http(
                command,
                *flavor,
                child,
                revision,
                schemas,
                &scenario,
                &json!({}),
                script,
            )
            .await
        }
        mcpspec::session::target::Target::Http(_)
        | mcpspec::session::target::Target::AuthorizationServer(_) => {
            return Err(w.harness_error("a client under test is a command".into()));
        }
    };
    let mut session = started.map_err(|e| w.harness_error(e.to_string()))?;
    let me = w.scenario.id();
    session.set_label(format!("{me} {}", w.scenario.revision));
    let accepted = session.accept(ctx.timeout, slot).await;
    // The run's gate (crate::suite::bounds): a client that never connects stops the run after a few.
    // A client that reached the HTTP endpoint but was refused has made contact: judged there.
    match &accepted {
        Ok(()) => ctx.bounds.contact(),
        Err(_) if session.reached_http() => ctx.bounds.contact(),
        Err(e) => ctx.bounds.no_contact(e.to_string(), &[]),
    }
    let expected = match session.transport() {
        "stdio" => "the client starts the server command",
        _ => "the client connects to the scenario server's URL",
    };
    w.session = Some(session);
    w.authorized = accepted.is_ok();
    match accepted {
        Err(_) if may_refuse => Ok(()),
        other => other.map_err(|e| w.lost(expected.into(), e)),
    }
}

#[then("the client's first message is an initialize request")]
async fn first_message_is_initialize(w: &mut ClientWorld) -> Result<(), Halt> {
    let within = w.timeout();
    let mut first = w.session()?.recv(within).await;
    // 2026-07-28 basic/versioning.mdx (backward compatibility): a dual-era client probes with
    // server/discover and falls back to initialize on the error a legacy server answers. At a
    // legacy revision the scenario server is that legacy server: it refuses the probe (the
    // reference server's answer), and the handshake that follows is the session's first
    // interaction. One probe only: a second one is what it looks like.
    if w.scenario.revision.era() == mcpspec_protocol::Era::Legacy {
        if let Some(probe) = first.as_ref().ok().filter(|i| is_request(i, "server/discover")).cloned() {
            w.session()?
                .serve(&probe)
                .await
                .map_err(|e| w.lost("the client reads the refused probe".into(), e))?;
            first = w.session()?.recv(within).await;
        }
    }
    match first {
        Ok(i) if is_request(&i, "initialize") => {
            let offered = i.value.as_ref().and_then(|v| v.pointer("/params/protocolVersion")).cloned();
            w.client_capabilities = i.value.as_ref().and_then(|v| v.pointer("/params/capabilities")).cloned();
            w.check(
                true,
                "an initialize request first",
                format!("initialize offering {}", describe(offered.as_ref())),
            );
            w.held = Some(i);
            Ok(())
        }
        Ok(i) => {
            let actual = what(&i);
            Err(w.fail("an initialize request first", actual))
        }
        Err(e) => Err(w.lost("an initialize request first".into(), e)),
    }
}

#[then("the client sends nothing but pings before the answer")]
async fn nothing_but_pings(w: &mut ClientWorld) -> Result<(), Halt> {
    let mut others = Vec::new();
    w.session()?
        .watch(QUIET, |i| {
            let ping = is_request(i, "ping");
            if !ping {
                others.push(what(i));
            }
            ping
        })
        .await;
    let expected = "nothing but ping requests before the initialize response";
    match others.is_empty() {
        true => {
            w.check(true, expected, format!("nothing else within {QUIET:?}"));
            Ok(())
        }
        false => Err(w.fail(expected, others.join(", "))),
    }
}

/// lifecycle.mdx#version-negotiation: the offer "SHOULD be the latest version supported by the
/// client". The harness also names a revision in MCP_CONFORMANCE_PROTOCOL_VERSION (the one the
/// scenario server speaks), and a client that offers it does what it was asked: that passes.
/// Only a client that offers neither is judged against the latest revision mcpspec knows.
#[then("the client offers the latest protocol revision, or the one it was asked to offer")]
async fn offers_latest(w: &mut ClientWorld) -> Result<(), Halt> {
    let offered = w.held_value("/params/protocolVersion");
    let offered_str = offered.as_ref().and_then(Value::as_str);
    let asked = w.scenario.revision;
    let latest = Revision::latest_legacy();
    let ok = offered_str == Some(asked.as_str()) || offered_str == Some(latest.as_str());
    w.check(
        ok,
        format!(
            "the revision {} names ({asked}), or else the latest revision the client supports (the \
             latest mcpspec knows: {latest})",
            mcpspec::session::client::PROTOCOL_VERSION_ENV
        ),
        format!("offered {}", describe(offered.as_ref())),
    );
    Ok(())
}

#[when("the scenario server answers it")]
async fn server_answers(w: &mut ClientWorld) -> Result<(), Halt> {
    answer_held(w, None).await
}

#[when(regex = r#"^the scenario server answers it with protocol version "([^"]*)"$"#)]
async fn server_answers_with(w: &mut ClientWorld, version: String) -> Result<(), Halt> {
    answer_held(w, Some(version)).await
}

/// lifecycle.mdx#version-negotiation: the client's offer is a version it supports, so a server
/// that accepts it (answers with the same version) gets a client that carries on. An offer
/// mcpspec does not know cannot be answered in kind: the scenario is skipped.
#[when("the scenario server answers it with the revision the client offered")]
async fn server_answers_with_offer(w: &mut ClientWorld) -> Result<(), Halt> {
    let offered = w.held_value("/params/protocolVersion");
    let offered = offered.as_ref().and_then(Value::as_str).unwrap_or_default().to_owned();
    match offered.parse::<Revision>() {
        Ok(r) if r.era() == mcpspec_protocol::Era::Legacy => answer_held(w, Some(offered)).await,
        _ => Err(w.skip(format!("the client offered {offered:?}, no legacy revision mcpspec knows"))),
    }
}

async fn answer_held(w: &mut ClientWorld, version: Option<String>) -> Result<(), Halt> {
    let Some(init) = w.held.take() else {
        return Err(w.harness_error("no request of the client's to answer (a step is missing)".into()));
    };
    let session = w.session()?;
    session.script.protocol_version = version;
    match session.serve(&init).await {
        Ok(()) => Ok(()),
        Err(e) => Err(w.lost("the client reads the answer to its request".into(), e)),
    }
}

#[then("the client sends notifications/initialized")]
async fn sends_initialized(w: &mut ClientWorld) -> Result<(), Halt> {
    let within = w.timeout();
    let found = w
        .session()?
        .wait_for(within, |i| matches!(&i.message, Some(Message::Notification(n)) if n.method == "notifications/initialized"))
        .await;
    let expected = "notifications/initialized after the initialize response";
    match found {
        Ok(i) => {
            let _ = w.session()?.serve(&i).await;
            w.check(true, expected, "notifications/initialized");
            Ok(())
        }
        Err(e) => Err(w.lost(expected.into(), e)),
    }
}

#[when(regex = r#"^the scenario server sends a "([^"]+)" request(?: with the params)?$"#)]
async fn server_sends_request(
    w: &mut ClientWorld,
    method: String,
    step: &cucumber::gherkin::Step,
) -> Result<(), Halt> {
    let params = docstring_json(w, step)?;
    ask(w, &method, params).await
}

/// The JSON of a step's doc string, if it has one.
pub(super) fn docstring_json(
    w: &mut ClientWorld,
    step: &cucumber::gherkin::Step,
) -> Result<Option<Value>, Halt> {
    match step.docstring.as_deref().map(str::trim).filter(|d| !d.is_empty()) {
        None => Ok(None),
        Some(d) => serde_json::from_str::<Value>(d)
            .map(Some)
            .map_err(|e| w.harness_error(format!("the step's JSON {d:?} is invalid: {e}"))),
    }
}

/// The scenario server asks the client for `method` with `params`: in the legacy era in a
/// request of its own; in the modern era in an InputRequiredResult answering the client's held
/// request (`basic/patterns/mrtr.mdx`). The client's answer is [`client_answer`]'s either way.
pub(super) async fn ask(w: &mut ClientWorld, method: &str, mut params: Option<Value>) -> Result<(), Halt> {
    // `{listener}`: a URL on a listener of the scenario server's, recording who fetches it.
    if let Some(p) = params.as_mut().filter(|p| p.to_string().contains("{listener}")) {
        let canary = mcpspec_reference::transport::canary::Canary::start().await;
        let canary = canary.map_err(|e| w.harness_error(format!("cannot listen on 127.0.0.1: {e}")))?;
        let text = p.to_string().replace("{listener}", &canary.base_url());
        *p = serde_json::from_str(&text).map_err(|e| w.harness_error(format!("{text}: {e}")))?;
        w.canary = Some(canary);
    }
    w.sent_params = params.clone();
    if w.scenario.revision.era() == mcpspec_protocol::Era::Modern {
        return modern::ask_input(w, method, params).await;
    }
    let sent = w.session()?.send_request(method, params).await;
    match sent {
        Ok(id) => {
            w.pending = Some(id);
            Ok(())
        }
        Err(e) => Err(w.lost(format!("the client reads the {method} request"), e)),
    }
}

/// The client's answer to a request of the scenario server's.
#[derive(Debug)]
pub(super) enum Answer {
    Result(Value),
    Error(ErrorObject),
    /// Modern era: no answer to the input request in the retry, or no retry at all. The era
    /// has no error for an input request (an `InputResponse` is a result): this is how a client
    /// refuses one (client/sampling.mdx#error-handling: a failed request is not replayed).
    Withheld(String),
}

impl Answer {
    /// What the answer was, for a check's actual.
    fn describe(&self) -> String {
        match self {
            Answer::Result(v) => format!("result {}", describe(Some(v))),
            Answer::Error(e) => format!("error {}: {}", e.code, e.message),
            Answer::Withheld(why) => format!("no answer: {why}"),
        }
    }
}

/// Waits for the client's answer to the scenario server's pending request (modern era: to its
/// input request, in the retry).
pub(super) async fn client_answer(w: &mut ClientWorld, expected: &str) -> Result<Answer, Halt> {
    if w.input.is_some() {
        return modern::input_answer(w, expected).await;
    }
    let Some(id) = w.pending.take() else {
        return Err(w.harness_error("no request awaits an answer (a When step is missing)".into()));
    };
    let within = w.timeout();
    let answered = w
        .session()?
        .wait_for(within, |i| matches!(&i.message, Some(Message::Response(r)) if r.id.as_ref() == Some(&id)))
        .await;
    let expected = format!("a response to request {id} with {expected} within {within:?}");
    match answered {
        Ok(Inspection { message: Some(Message::Response(r)), .. }) => Ok(match r.outcome {
            mcpspec_protocol::wire::Outcome::Result(v) => Answer::Result(v),
            mcpspec_protocol::wire::Outcome::Error(e) => Answer::Error(e),
        }),
        Ok(_) => unreachable!("the predicate matches responses only"),
        Err(e) => Err(w.lost(expected, e)),
    }
}

#[then(regex = r"^the client answers it with the result (.+)$")]
async fn client_answers_with(w: &mut ClientWorld, expected: String) -> Result<(), Halt> {
    let want: Value = serde_json::from_str(expected.trim())
        .map_err(|e| w.harness_error(format!("the step's JSON {expected:?} is invalid: {e}")))?;
    let expected = format!("the result {want}");
    match client_answer(w, &expected).await? {
        Answer::Result(v) => {
            w.check(v == want, expected, format!("result {v}"));
            Ok(())
        }
        other => Err(w.fail(expected, other.describe())),
    }
}

#[then(regex = r"^the client answers it with error (-?\d+)$")]
async fn client_answers_with_error(w: &mut ClientWorld, code: i64) -> Result<(), Halt> {
    let expected = format!("error {code}");
    match client_answer(w, &expected).await? {
        Answer::Error(e) => {
            w.check(e.code == code, expected, format!("error {}: {}", e.code, e.message));
            Ok(())
        }
        other => Err(w.fail(expected, other.describe())),
    }
}

/// A request behind a capability the client did not declare: any error will do (the spec
/// names a code for roots only), a result means the client used what it never negotiated. In
/// the modern era the refusal is no answer in the retry, or no retry ([`Answer::Withheld`]).
#[then(regex = r"^the client (?:answers it with an error|refuses it: no answer in a retry), not a result$")]
async fn client_answers_with_any_error(w: &mut ClientWorld) -> Result<(), Halt> {
    let expected = match w.scenario.revision.era() {
        mcpspec_protocol::Era::Modern => {
            "no answer to it in a retry, or no retry (the era's refusal), not a result"
        }
        _ => "an error (the capability was not declared), not a result",
    };
    let answer = client_answer(w, expected).await?;
    w.check(!matches!(answer, Answer::Result(_)), expected, answer.describe());
    Ok(())
}

/// client/roots.mdx: each root a `file://` URI, and validated against path traversal (what a
/// client lists is all the server sees of that validation).
#[then("the client answers it with roots whose URIs are file:// URIs without dot segments")]
async fn client_answers_with_roots(w: &mut ClientWorld) -> Result<(), Halt> {
    let expected = "a result listing roots, each with a file:// URI without . or .. segments";
    let result = match client_answer(w, expected).await? {
        Answer::Result(v) => v,
        other => return Err(w.fail(expected, other.describe())),
    };
    let problems = mcpspec_protocol::roots::problems(&result);
    let actual = match (problems.is_empty(), result.get("roots").and_then(Value::as_array)) {
        (true, Some(roots)) => format!("{} root(s), all file:// URIs without dot segments", roots.len()),
        _ => problems.join("; "),
    };
    w.check(problems.is_empty(), expected, actual);
    Ok(())
}

/// Gives the client time to send a notification of its own; none arriving is no failure here
/// (the step that needs it judges what came).
#[when(regex = r#"^the scenario server waits up to (\d+) seconds? for "([^"]+)"$"#)]
async fn waits_for_notification(w: &mut ClientWorld, seconds: u64, method: String) -> Result<(), Halt> {
    let within = Duration::from_secs(seconds).min(w.timeout());
    let waited = w
        .session()?
        .wait_for(within, |i| matches!(&i.message, Some(Message::Notification(n)) if n.method == method))
        .await;
    match waited {
        Ok(_) | Err(ClientWaitError::Timeout(_)) => Ok(()),
        Err(e) => Err(w.lost(format!("the client still connected while waiting for {method}"), e)),
    }
}

/// client/roots.mdx#root-list-changes: a client that declared `roots.listChanged` notifies the
/// server when its roots change. The change is seen as two answers to `roots/list` that
/// differ; the notification must have come between them. Roots that never changed exercised
/// nothing: the scenario is skipped (a client opts into changing them by the scenario's name).
#[then("the client announced each change of its roots with notifications/roots/list_changed")]
async fn roots_changes_announced(w: &mut ClientWorld) -> Result<(), Halt> {
    let session = w.session()?;
    let asked: Vec<Value> = session
        .sent
        .iter()
        .filter(|(_, v)| v.get("method").and_then(Value::as_str) == Some("roots/list"))
        .filter_map(|(_, v)| v.get("id").cloned())
        .collect();
    let verdict = judge_roots_changes(&session.received, &asked);
    match verdict {
        None => Err(w.skip(
            "the client's roots did not change between the scenario server's roots/list requests".into(),
        )),
        Some(Ok(actual)) => {
            w.check(true, "a notifications/roots/list_changed before each change of the roots", actual);
            Ok(())
        }
        Some(Err(actual)) => {
            w.check(false, "a notifications/roots/list_changed before each change of the roots", actual);
            Ok(())
        }
    }
}

/// Over what the client sent (in order) and the ids of the server's `roots/list` requests:
/// `None` when no two consecutive answers differ, otherwise whether each change had a
/// `notifications/roots/list_changed` between the two answers.
fn judge_roots_changes(received: &[Value], asked: &[Value]) -> Option<Result<String, String>> {
    let answers: Vec<(usize, &Value)> = received
        .iter()
        .enumerate()
        .filter(|(_, v)| v.get("method").is_none() && v.get("id").is_some_and(|id| asked.contains(id)))
        .filter_map(|(at, v)| Some((at, v.pointer("/result/roots")?)))
        .collect();
    let changes: Vec<_> = answers.windows(2).filter(|pair| pair[0].1 != pair[1].1).collect();
    if changes.is_empty() {
        return None;
    }
    let announced = |from: usize, to: usize| {
        received[from..to]
            .iter()
            .any(|v| v.get("method").and_then(Value::as_str) == Some("notifications/roots/list_changed"))
    };
    let silent = changes.iter().filter(|pair| !announced(pair[0].0, pair[1].0)).count();
    match silent {
        0 => Some(Ok(format!("{} change(s) of the roots, each announced", changes.len()))),
        n => Some(Err(format!(
            "{n} of {} change(s) of the roots came with no notifications/roots/list_changed between the two roots/list answers",
            changes.len()
        ))),
    }
}

#[given(regex = r#"^the client (declared|did not declare) the "([^"]+)" capability$"#)]
async fn client_declared(w: &mut ClientWorld, how: String, capability: String) -> Result<(), Halt> {
    // A dotted path names a nested capability (`sampling.tools`); elicitation modes follow
    // client/elicitation.mdx, where an empty `elicitation: {}` declares form mode only.
    let declared =
        w.client_capabilities.as_ref().is_some_and(|c| match capability.strip_prefix("elicitation.") {
            Some(mode) => mcpspec_protocol::elicitation::mode_declared(c, mode),
            None => mcpspec_protocol::capabilities::declares(c, &capability),
        });
    match (how == "declared", declared) {
        (true, false) => Err(w.skip(format!("the client did not declare the {capability} capability"))),
        (false, true) => Err(w.skip(format!("the client declared the {capability} capability"))),
        _ => Ok(()),
    }
}

/// lifecycle.mdx#shutdown (stdio): the client SHOULD end the session by closing the server's
/// stdin (then wait, SIGTERM, SIGKILL). The one scenario that judges how a client ends: it is
/// served for as long as it keeps working (up to [`SHUTDOWN_BUDGET_TIMEOUTS`] timeouts), so a
/// slow client is not taken for one that never closes; silence for a timeout with the server's
/// stdin open is; so is exiting while the server's stdin stays open (held by something the
/// client left behind); a client still at work when the budget runs out is inconclusive.
#[then("the client closes the server's stdin when it is done")]
async fn closes_stdin(w: &mut ClientWorld) -> Result<(), Halt> {
    let idle = w.timeout();
    let budget = idle * SHUTDOWN_BUDGET_TIMEOUTS;
    let ending = w.session()?.serve_until_done(idle, budget).await;
    let expected =
        format!("the client closes the server's stdin before it exits, within {idle:?} of its last message");
    match ending {
        Ending::Closed { after } => {
            w.check(true, expected, format!("the relay read end of file after {after:.1?}"));
            Ok(())
        }
        Ending::ExitedFirst { status, grace } => Err(w.fail(
            expected,
            format!(
                "the client {status} without closing the server's stdin: {grace:?} later it was still \
                 open (held by a process the client left behind)"
            ),
        )),
        Ending::Idle { idle } => Err(w.fail(
            expected,
            format!(
                "the connection was still open after {idle:?} in which the client sent no message but pings"
            ),
        )),
        Ending::StillActive { budget, quiet_for } => Err(w.skip(format!(
            "inconclusive: the client was still at work after {budget:?} (its last message came \
             {quiet_for:.1?} before); a longer --timeout gives it more time to end its session"
        ))),
        _ => Err(w.harness_error(format!("an ending the step does not know: {ending:?}"))),
    }
}

/// For session-wide checks: the scenario server serves the client until it closes the
/// connection or falls idle (quiet for the grace, then it answered a ping barrier and sent
/// nothing else: [`ClientSession::serve_until_idle`]), for at most the timeout, so the checks judge
/// what the client sent meanwhile. What a client does later on its own, and how it ends its
/// session, client-lifecycle/shutdown judges: it serves the client to the end.
#[when("the scenario server serves the client until it is done or idle, for at most the timeout")]
async fn serves_until_done(w: &mut ClientWorld) -> Result<(), Halt> {
    let within = w.timeout();
    w.session()?.serve_until_idle(within).await;
    Ok(())
}

#[then("the client disconnects without sending another request")]
async fn disconnects(w: &mut ClientWorld) -> Result<(), Halt> {
    let within = w.timeout();
    let session = w.session()?;
    let deadline = tokio::time::Instant::now() + within;
    let mut sent = Vec::new();
    let outcome = loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match session.recv(left).await {
            Ok(i) => {
                if matches!(i.message, Some(Message::Request(_) | Message::Notification(_))) {
                    sent.push(what(&i));
                }
                let _ = session.serve(&i).await;
            }
            Err(ClientWaitError::Closed(_) | ClientWaitError::Ended(_)) => break Ok(()),
            Err(ClientWaitError::Timeout(_)) => {
                break Err(format!("the connection was still open after {within:?}"))
            }
            Err(e) => break Err(e.to_string()),
        }
    };
    let ends = match w.session()?.transport() {
        "stdio" => "closes the server's stdin",
        _ => "ends its HTTP session (or exits)",
    };
    let expected = format!("the client {ends} within {within:?}, sending nothing more");
    match (outcome, sent.is_empty()) {
        (Ok(()), true) => {
            w.check(true, expected, "it disconnected");
            Ok(())
        }
        (Ok(()), false) => Err(w.fail(expected, format!("it sent {} before disconnecting", sent.join(", ")))),
        (Err(mut actual), _) => {
            if !sent.is_empty() {
                actual.push_str(&format!("; it sent {}", sent.join(", ")));
            }
            Err(w.fail(expected, actual))
        }
    }
}

#[then("the client's request ids are unique and not null")]
async fn ids_unique(w: &mut ClientWorld) -> Result<(), Halt> {
    let received = w.session()?.received.clone();
    let mut seen = Vec::new();
    let mut problems = Vec::new();
    let requests = received.iter().filter(|v| v.get("method").is_some() && v.get("id").is_some());
    let mut n = 0;
    for v in requests {
        n += 1;
        let id = &v["id"];
        let method = v["method"].as_str().unwrap_or("?");
        if id.is_null() {
            problems.push(format!("{method} with a null id"));
        } else if seen.contains(id) {
            problems.push(format!("{method} reuses id {id}"));
        } else {
            seen.push(id.clone());
        }
    }
    let expected = "every request id unique in the session and not null";
    w.check(
        problems.is_empty() && n > 0,
        expected,
        match problems.is_empty() {
            true => format!("{n} request(s), all ids unique and non-null"),
            false => problems.join("; "),
        },
    );
    Ok(())
}

#[when(regex = r#"^the client sends a "([^"]+)" request$"#)]
async fn client_sends_request(w: &mut ClientWorld, method: String) -> Result<(), Halt> {
    let within = w.timeout();
    let found = w.session()?.wait_for(within, |i| is_request(i, &method)).await;
    if w.scenario.revision.era() == mcpspec_protocol::Era::Modern {
        modern::legacy_only(w)?;
    }
    match found {
        Ok(i) => {
            // Modern era: what the client declares is in each request's _meta.
            if let Some(caps) = i.value.as_ref().and_then(|v| {
                v.pointer("/params/_meta")
                    .and_then(|m| m.get(mcpspec_protocol::modern::CLIENT_CAPABILITIES_KEY))
            }) {
                w.client_capabilities = Some(caps.clone());
            }
            w.held = Some(i);
            Ok(())
        }
        // A client need not list anything: the scenario does not apply.
        Err(e) => Err(w.skip(format!("the client sent no {method} request ({e})"))),
    }
}

#[given(regex = r"^the scenario server declares the capabilities (.+)$")]
async fn server_declares(w: &mut ClientWorld, capabilities: String) -> Result<(), Halt> {
    let capabilities: Value = serde_json::from_str(capabilities.trim())
        .map_err(|e| w.harness_error(format!("the step's JSON {capabilities:?} is invalid: {e}")))?;
    w.session()?.script.capabilities = Some(capabilities);
    Ok(())
}

#[then("the client sent only requests the scenario server declared")]
async fn only_declared_requests(w: &mut ClientWorld) -> Result<(), Halt> {
    let revision = w.scenario.revision;
    let session = w.session()?;
    let declared = session.server_capabilities.clone().unwrap_or(json!({}));
    let requests: Vec<String> = session
        .received
        .iter()
        .filter(|v| v.get("id").is_some())
        .filter_map(|v| v.get("method").and_then(Value::as_str).map(str::to_owned))
        .collect();
    let beyond: Vec<String> = requests
        .iter()
        .filter_map(|m| {
            let needs = mcpspec_protocol::capabilities::server_capability_for(m, revision)?;
            (!mcpspec_protocol::capabilities::declares(&declared, needs))
                .then(|| format!("{m} (needs {needs})"))
        })
        .collect();
    let expected = format!("only requests the server's capabilities {declared} allow");
    let actual = match beyond.is_empty() {
        true => format!("{} request(s): {}", requests.len(), requests.join(", ")),
        false => format!("requests beyond them: {}", beyond.join(", ")),
    };
    w.check(beyond.is_empty(), expected, actual);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::PACED_STEPS;

    /// Each prefix of [`PACED_STEPS`] begins a step of the client suite: a step renamed without
    /// it would silently stop ordering the long scenarios first.
    #[test]
    fn every_paced_step_prefix_begins_a_step_of_the_suite() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenarios/client");
        let mut steps = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for line in text.lines().map(str::trim) {
                if let Some((keyword, rest)) = line.split_once(' ') {
                    if ["Given", "When", "Then", "And", "But"].contains(&keyword) {
                        steps.push(rest.to_owned());
                    }
                }
            }
        }
        for prefix in PACED_STEPS {
            assert!(steps.iter().any(|s| s.starts_with(prefix)), "no step begins with {prefix:?}");
        }
    }

    #[test]
    fn a_change_of_roots_needs_a_notification_between_the_answers() {
        use super::judge_roots_changes;
        use serde_json::json;
        let answer = |id: i64, uris: &[&str]| {
            let roots: Vec<_> = uris.iter().map(|u| json!({ "uri": u })).collect();
            json!({ "jsonrpc": "2.0", "id": id, "result": { "roots": roots } })
        };
        let changed = json!({ "jsonrpc": "2.0", "method": "notifications/roots/list_changed" });
        let asked = [json!(1), json!(2)];
        let same = [answer(1, &["file:///a"]), answer(2, &["file:///a"])];
        assert_eq!(judge_roots_changes(&same, &asked), None);
        let announced = [answer(1, &["file:///a"]), changed.clone(), answer(2, &["file:///a", "file:///b"])];
        assert!(judge_roots_changes(&announced, &asked).unwrap().is_ok());
        let silent = [answer(1, &["file:///a"]), answer(2, &["file:///a", "file:///b"]), changed];
        assert!(judge_roots_changes(&silent, &asked).unwrap().is_err());
        // An answer to a request the scenario server did not send as roots/list is no roots answer.
        let other = [answer(1, &["file:///a"]), answer(3, &["file:///b"])];
        assert_eq!(judge_roots_changes(&other, &asked), None);
    }
}
