//! Given: a session, and what the scenario needs from the server (else it is skipped).

use super::{docstring_json, initialize_params, Halt, Requirement, ServerWorld, SharedProcess};
use crate::suite::scenario::Scenario as _;
use cucumber::gherkin::Step;
use cucumber::given;
use mcpspec::judge::verdict::Level;
use mcpspec::session::pool::{History, Hold, SessionKey, SharedSession, Tenancy};
use mcpspec::session::target::Target;
use mcpspec_protocol::modern;
use mcpspec_protocol::wire::{Message, Outcome};
use mcpspec_protocol::Era;
use mcpspec_reference::client::ClientPersona;
use serde_json::{json, Value};
use std::sync::Arc;

/// The most pages a Given step reads to find something in a list.
const SEARCH_PAGES: usize = 100;

/// How often a scenario waiting for a turn to start a process looks for one it may take.
const START_TURN_POLL: std::time::Duration = std::time::Duration::from_millis(20);

#[given("a server process")]
async fn a_server_process(w: &mut ServerWorld) -> Result<(), Halt> {
    w.start().await
}

#[given("an initialized session")]
async fn an_initialized_session(w: &mut ServerWorld) -> Result<(), Halt> {
    establish(w, json!({})).await
}

#[given("an initialized session declaring the client capabilities")]
async fn an_initialized_session_declaring(w: &mut ServerWorld, step: &Step) -> Result<(), Halt> {
    let caps = docstring_json(w, step)?.unwrap_or(json!({}));
    establish(w, caps).await
}

/// Starts the server and establishes the session; failures are charged to what establishes
/// it: the initialize handshake (legacy era) or `server/discover` (modern era, where every
/// server MUST implement it and it is what a client learns capabilities from).
pub(super) async fn establish(w: &mut ServerWorld, capabilities: Value) -> Result<(), Halt> {
    w.scenario.precondition = Some(establishing(w.scenario.revision.era()));
    let established = initialize_session(w, capabilities).await;
    w.scenario.precondition = None;
    established
}

/// Establishes the session on the process the scenario has just started itself (a new
/// connection), never on one from the pool: for a scenario that compares what two connections
/// show, the second must not be the first again.
pub(super) async fn establish_on_started(w: &mut ServerWorld, capabilities: Value) -> Result<(), Halt> {
    w.scenario.precondition = Some(establishing(w.scenario.revision.era()));
    let established = initialize_started(w, &capabilities).await;
    w.scenario.precondition = None;
    established
}

/// What establishing a session rests on in `era`.
fn establishing(era: Era) -> Requirement {
    match era {
        Era::Legacy => Requirement {
            id: "lifecycle/initialize-result".into(),
            level: Level::MUST,
            doc: "basic/lifecycle.mdx#initialization".into(),
        },
        Era::Modern => Requirement {
            id: "discover/result".into(),
            level: Level::MUST,
            doc: "server/discover.mdx".into(),
        },
    }
}

/// Initializes (legacy era) or discovers (modern era) the process the scenario has started,
/// declaring `capabilities`; from then on what the scenario does decides whether the session
/// goes on to another.
async fn initialize_started(w: &mut ServerWorld, capabilities: &Value) -> Result<(), Halt> {
    w.session()?.set_persona(ClientPersona::new(capabilities.clone()));
    match w.scenario.revision.era() {
        Era::Legacy => handshake(w, capabilities).await?,
        Era::Modern => discover(w).await?,
    }
    w.response = None;
    w.session()?.settle();
    Ok(())
}

async fn initialize_session(w: &mut ServerWorld, capabilities: Value) -> Result<(), Halt> {
    let ctx = w.ctx();
    let key = SessionKey::new(w.scenario.revision, &capabilities);
    let me = w.scenario.id().to_owned();
    let how = match w.scenario.revision.era() {
        Era::Legacy => "initialized",
        Era::Modern => "discovered",
    };
    // A run again, alone, shares nothing. Over stdio, a process is shared: at once by
    // scenarios seen only reading elsewhere, one after another by the others.
    let alone_run = w.scenario.run.as_ref().is_some_and(|r| r.alone.is_some());
    let hosted = ctx.pool.enabled() && !alone_run && matches!(ctx.target, Target::Stdio(_));
    let hold = match ctx.only_reads(&me) {
        Some(true) => Hold::Shared,
        Some(false) => Hold::AloneLong,
        None if w.scenario.run.as_ref().is_some_and(|r| r.plan.slow) => Hold::AloneLong,
        None => Hold::Alone,
    };
    let alone = hold != Hold::Shared;
    let revision = w.scenario.revision;
    let note = |process: usize| {
        format!(
            "shared process #{process}, {how} at {revision} with the client capabilities {capabilities}; \
             handed on"
        )
    };
    // Scenarios that need a process at the same moment take turns to look for one and open
    // it: readers then share the one opened, and in the legacy era the processes that the
    // scenarios starting their own hand on meanwhile serve the next in line. In the modern era
    // nothing is handed on but the probe's, and every process serves every scenario (one key):
    // there a scenario holding one alone would only wait behind the others' starts, one at a
    // time, with cores to spare.
    let turn = (hosted && (!alone || revision.era() == Era::Legacy)).then(|| ctx.pool.opening_turn(&key));
    // Held until this scenario has joined a shared process or opened one.
    let _turn = match &turn {
        Some(turn) => Some(turn.lock().await),
        None => None,
    };
    if hosted {
        if let Some(tenancy) = ctx.pool.join(&key, hold, note) {
            w.become_tenant(tenancy, &capabilities, alone);
            return Ok(());
        }
    }
    if let Some(SharedSession { mut session, server_description, mut history }) =
        ctx.pool.take(&key).filter(|_| !alone_run && !hosted)
    {
        let last = history.served.last().cloned().unwrap_or_default();
        session.hand_over(format!(
            "shared session #{}, {how} at {} with the client capabilities {capabilities}; \
             handed on by {last}",
            history.process, w.scenario.revision
        ));
        session.set_label(format!("{me} {}", w.scenario.revision));
        if w.scenario.revision.era() == Era::Modern {
            session.declare_capabilities(capabilities.clone());
        }
        history.served.push(me);
        w.session = Some(session);
        w.server_description = Some(server_description);
        w.share = Some((key, history));
        return Ok(());
    }
    if hosted {
        // Starts take turns (`mcpspec::session::starts`): on a machine whose CPU the starts
        // already fill, a scenario waits for its turn, and a process like the one it needs may
        // come free meanwhile (its scenario left it as it found it): it takes that one instead.
        // Nor does it ask for a turn while as many processes like it as the cores could start
        // at once are held by scenarios likely to give them back soon: another would only share
        // the cores with them, and one of them comes free for it at no CPU (within the
        // timeout: a scenario may hold one longer than its likeness suggests).
        let busy = 2 * mcpspec::session::starts::cores();
        let (pool_ctx, pool_key, within) = (ctx.clone(), key.clone(), w.timeout());
        let start_turn = async move {
            let until = tokio::time::Instant::now() + within;
            while pool_ctx.pool.coming_free(&pool_key) >= busy && tokio::time::Instant::now() < until {
                tokio::time::sleep(START_TURN_POLL).await;
            }
            mcpspec::session::starts::turn().await
        };
        tokio::pin!(start_turn);
        loop {
            tokio::select! {
                biased;
                turn = &mut start_turn => {
                    w.start_turn = turn;
                    break;
                }
                () = tokio::time::sleep(START_TURN_POLL) => {
                    if let Some(tenancy) = ctx.pool.join(&key, hold, note) {
                        w.become_tenant(tenancy, &capabilities, alone);
                        return Ok(());
                    }
                }
            }
        }
    }
    w.start().await?;
    initialize_started(w, &capabilities).await?;
    if hosted {
        let process = ctx.pool.next_process();
        let session = w.session.take().expect("a session was just established");
        let description = w.server_description.clone().unwrap_or_default();
        let session = ctx.pool.open_host(key.clone(), session, &description, process, hold);
        let shared = session.is_tenant();
        w.session = Some(session);
        if shared {
            w.tenancy = Some(SharedProcess { process, tenants: 1, alone });
            return Ok(());
        }
    }
    if ctx.pool.enabled() && !alone_run {
        let history =
            History { process: ctx.pool.next_process(), revision: w.scenario.revision, served: vec![me] };
        w.share = Some((key, history));
    }
    Ok(())
}

impl ServerWorld {
    /// Takes a session on a shared process as the scenario's.
    fn become_tenant(&mut self, tenancy: Tenancy, capabilities: &Value, alone: bool) {
        let mut session = tenancy.session;
        let revision = self.scenario.revision;
        session.set_label(format!("{} {revision}", self.scenario.id()));
        if revision.era() == Era::Modern {
            session.declare_capabilities(capabilities.clone());
        }
        self.session = Some(session);
        self.server_description = Some(tenancy.server_description);
        self.tenancy = Some(SharedProcess { process: tenancy.process, tenants: tenancy.tenants, alone });
    }
}

/// The legacy handshake: `initialize`, then `notifications/initialized`.
async fn handshake(w: &mut ServerWorld, capabilities: &Value) -> Result<(), Halt> {
    let version = w.scenario.revision.as_str();
    let response = w.call("initialize", Some(initialize_params(version, capabilities))).await?;
    let result = match Arc::unwrap_or_clone(response).outcome {
        Outcome::Result(r) => r,
        Outcome::Error(e) => {
            let actual = format!("initialize failed with error {}: {}", e.code, e.message);
            return Err(w.fail(format!("an initialized session at {version}"), actual));
        }
    };
    w.server_description = Some(result);
    let initialized = Message::notification("notifications/initialized", None);
    if let Err(e) = w.session()?.send(&initialized).await {
        return Err(w.not_sent("notifications/initialized", e).await);
    }
    // Over HTTP the scenario's first request waits until the notification's POST is answered,
    // as an SDK client's awaited send does: a server handles POSTs concurrently, and one that
    // readies the session on notifications/initialized (registering the tools its client's
    // capabilities allow) would otherwise list its tools before it is ready, some runs and not
    // others. A POST left unanswered is the HTTP checks' business; the scenario goes on.
    if let Some(n) = w.session()?.last_exchange() {
        let within = w.timeout();
        w.session()?.wait_body_end(n, within).await;
    }
    Ok(())
}

/// The modern era has no handshake: `server/discover` tells the client what the server
/// offers (`server/discover.mdx`).
async fn discover(w: &mut ServerWorld) -> Result<(), Halt> {
    let version = modern::wire_version(w.scenario.revision);
    let response = w.call("server/discover", None).await?;
    match Arc::unwrap_or_clone(response).outcome {
        Outcome::Result(r) if r.get("capabilities").is_some_and(Value::is_object) => {
            w.server_description = Some(r);
            Ok(())
        }
        Outcome::Result(r) => Err(w.fail(
            format!("a server/discover result with capabilities at {version}"),
            format!("result {}", mcpspec_protocol::wire::describe(Some(&r))),
        )),
        Outcome::Error(e) => Err(w.fail(
            format!("a server/discover result at {version}"),
            format!("error {}: {}", e.code, e.message),
        )),
    }
}

#[given(expr = "the server declares the {string} capability")]
async fn declares(w: &mut ServerWorld, path: String) -> Result<(), Halt> {
    let caps = w.server_capabilities()?;
    let mut at = &caps;
    for key in path.split('.') {
        match at.get(key) {
            Some(v) => at = v,
            None => return Err(w.skip(format!("the server does not declare the {path:?} capability"))),
        }
    }
    if *at == Value::Bool(false) {
        return Err(w.skip(format!("the server declares {path:?} as false")));
    }
    Ok(())
}

/// `completions` exists from 2025-03-26; a server of 2024-11-05 had completion/complete with
/// no capability to declare, so there the scenario goes on.
#[given("the server declares the \"completions\" capability, where its revision has it")]
async fn declares_completions_where_defined(w: &mut ServerWorld) -> Result<(), Halt> {
    if w.scenario.revision < mcpspec_protocol::Revision::V2025_03_26 {
        return Ok(());
    }
    declares(w, "completions".into()).await
}

/// The server's capabilities lack `path` (or set it to false), for scenarios about what a
/// server that did not declare something must still do.
#[given(expr = "the server does not declare the {string} capability")]
async fn does_not_declare(w: &mut ServerWorld, path: String) -> Result<(), Halt> {
    let caps = w.server_capabilities()?;
    if mcpspec_protocol::capabilities::declares(&caps, &path) {
        return Err(w.skip(format!("the server declares the {path:?} capability")));
    }
    Ok(())
}

/// Reads up to [`SEARCH_PAGES`] pages of a list and returns the first item `pick` accepts.
pub(super) async fn find(
    w: &mut ServerWorld,
    method: &str,
    key: &str,
    pick: impl Fn(&Value) -> bool,
) -> Result<Option<Value>, Halt> {
    let mut cursor: Option<Value> = None;
    for _ in 0..SEARCH_PAGES {
        let params = cursor.take().map(|c| json!({ "cursor": c }));
        let response = w.call(method, params).await?;
        let Outcome::Result(page) = Arc::unwrap_or_clone(response).outcome else {
            return Err(w.skip(format!("the server answers {method} with an error; nothing to pick")));
        };
        if let Some(found) =
            page.get(key).and_then(Value::as_array).and_then(|items| items.iter().find(|i| pick(i)))
        {
            return Ok(Some(found.clone()));
        }
        match page.get("nextCursor") {
            Some(c) if !c.is_null() => cursor = Some(c.clone()),
            _ => return Ok(None),
        }
    }
    Ok(None)
}

#[given(expr = "the server offers the tool {string}")]
async fn offers_tool(w: &mut ServerWorld, name: String) -> Result<(), Halt> {
    let found =
        find(w, "tools/list", "tools", |t| t.get("name") == Some(&Value::from(name.as_str()))).await?;
    match found {
        Some(tool) => {
            w.subject = Some(tool);
            Ok(())
        }
        None => Err(w.skip(format!(
            "the server offers no tool {name:?} (a name of the official conformance fixture)"
        ))),
    }
}

#[given("the server lists a resource")]
async fn lists_a_resource(w: &mut ServerWorld) -> Result<(), Halt> {
    match find(w, "resources/list", "resources", |r| r.get("uri").is_some()).await? {
        Some(r) => {
            w.subject = Some(r);
            Ok(())
        }
        None => Err(w.skip("the server lists no resource".into())),
    }
}

/// A `file://` resource in a folder, whose URI can climb out of it
/// (`mcpspec_protocol::resources::climbing_uri`).
#[given("the server lists a file:// resource in a folder")]
async fn lists_a_file_resource(w: &mut ServerWorld) -> Result<(), Halt> {
    let in_folder = |r: &Value| {
        r.get("uri").and_then(Value::as_str).and_then(mcpspec_protocol::resources::climbing_uri).is_some()
    };
    match find(w, "resources/list", "resources", in_folder).await? {
        Some(r) => {
            w.subject = Some(r);
            Ok(())
        }
        None => Err(w.skip("the server lists no file:// resource in a folder".into())),
    }
}

#[given("the server lists a prompt with a required argument")]
async fn lists_prompt_with_required(w: &mut ServerWorld) -> Result<(), Halt> {
    let has_required = |p: &Value| {
        p.get("arguments")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|arg| arg.get("required") == Some(&Value::Bool(true))))
    };
    match find(w, "prompts/list", "prompts", has_required).await? {
        Some(p) => {
            w.subject = Some(p);
            Ok(())
        }
        None => Err(w.skip("the server lists no prompt with a required argument".into())),
    }
}

#[given("the server lists a prompt with an argument")]
async fn lists_prompt_with_argument(w: &mut ServerWorld) -> Result<(), Halt> {
    let has_argument =
        |p: &Value| p.get("arguments").and_then(Value::as_array).is_some_and(|a| !a.is_empty());
    match find(w, "prompts/list", "prompts", has_argument).await? {
        Some(p) => {
            w.subject = Some(p);
            Ok(())
        }
        None => Err(w.skip("the server lists no prompt with an argument".into())),
    }
}

#[given("the server lists a read-only tool with an output schema")]
async fn lists_read_only_tool_with_output_schema(w: &mut ServerWorld) -> Result<(), Halt> {
    // mcpspec calls a server's own tools only when they say they only read (besides the
    // official fixture's tools): annotations are hints, but this one is the server's word.
    let fits = |t: &Value| {
        t.get("outputSchema").is_some() && t.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true))
    };
    match find(w, "tools/list", "tools", fits).await? {
        Some(tool) => {
            w.subject = Some(tool);
            Ok(())
        }
        None => Err(w.skip(
            "the server lists no read-only tool (annotations.readOnlyHint) with an outputSchema".into(),
        )),
    }
}

/// A tool that requires an argument of a declared type, for a call with that argument of
/// another type. Only a tool that says outright it is destructive is left alone, as the sweep
/// does: arguments it refuses should not run it at all.
#[given("the server lists a tool with a required typed argument")]
async fn lists_tool_with_required_typed_argument(w: &mut ServerWorld) -> Result<(), Halt> {
    let fits = |t: &Value| {
        let destructive = t.pointer("/annotations/readOnlyHint") != Some(&Value::Bool(true))
            && t.pointer("/annotations/destructiveHint") == Some(&Value::Bool(true));
        !destructive && t.get("inputSchema").is_some_and(mcpspec_protocol::arguments::requires_typed_property)
    };
    match find(w, "tools/list", "tools", fits).await? {
        Some(tool) => {
            w.subject = Some(tool);
            Ok(())
        }
        None => Err(w.skip(
            "the server lists no tool (not marked destructive) that requires an argument of a declared type"
                .into(),
        )),
    }
}

/// A tool whose inputSchema means something else under another JSON Schema dialect
/// (`mcpspec_protocol::dialect::telling_arguments`: prefixItems, say, which draft-07 ignores),
/// left alone when it says outright it is destructive, as the sweep does.
#[given("the server lists a tool whose input schema tells its dialect from another")]
async fn lists_tool_telling_its_dialect(w: &mut ServerWorld) -> Result<(), Halt> {
    let fits = |t: &Value| {
        let destructive = t.pointer("/annotations/readOnlyHint") != Some(&Value::Bool(true))
            && t.pointer("/annotations/destructiveHint") == Some(&Value::Bool(true));
        !destructive && t.get("inputSchema").and_then(mcpspec_protocol::dialect::telling_arguments).is_some()
    };
    match find(w, "tools/list", "tools", fits).await? {
        Some(tool) => {
            w.subject = Some(tool);
            Ok(())
        }
        None => Err(w.skip(
            "the server lists no tool (not marked destructive) whose input schema reads differently under \
             another JSON Schema dialect (prefixItems, dependentRequired, unevaluatedProperties and the like)"
                .into(),
        )),
    }
}

#[given("the server lists a resource template")]
async fn lists_a_resource_template(w: &mut ServerWorld) -> Result<(), Halt> {
    let has_variable =
        |t: &Value| t.get("uriTemplate").and_then(Value::as_str).is_some_and(|u| u.contains('{'));
    match find(w, "resources/templates/list", "resourceTemplates", has_variable).await? {
        Some(t) => {
            w.subject = Some(t);
            Ok(())
        }
        None => Err(w.skip("the server lists no resource template with a variable".into())),
    }
}
