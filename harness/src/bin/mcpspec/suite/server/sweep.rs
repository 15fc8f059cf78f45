//! The sweep: what a server advertises — every tool, prompt, resource, template and completion —
//! exercised once with generated arguments, so behaviour only a server's own tools trigger
//! (sampling, elicitation, roots, progress, logging) is judged without fixture names. The sweep
//! expects nothing of the output: the session rules judge every message the server sends
//! meanwhile, and the client persona answers the server's requests as in the scripted scenarios.
//! Bounded: a timeout per request (`--sweep-timeout`, then the request is cancelled), a cap on
//! requests, a few requests in flight at once (so a scenario costs about its slowest request,
//! not their sum), and tools that say they are destructive are left alone unless the run
//! allows them.

use super::when::list_each;
use super::{outcome_text, Halt, JsonText, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec::judge::verdict::{Check, Level};
use mcpspec::session::server::{input_required, WaitError, MAX_INPUT_ROUNDS};
use mcpspec_protocol::arguments::{example_for, example_object};
use mcpspec_protocol::wire::{Message, Outcome, Request, RequestId};
use serde_json::{json, Value};
use std::time::Duration;
use tokio::time::Instant;

/// The most requests one sweep scenario sends.
pub const MAX_SWEEP_REQUESTS: usize = 64;

/// One request of the sweep and how it ended.
#[derive(Debug, Clone)]
pub struct SweepRequest {
    /// `tools/call get_weather`.
    pub what: String,
    pub outcome: SweepOutcome,
}

#[derive(Debug, Clone)]
pub enum SweepOutcome {
    /// Answered (a result or a JSON-RPC error), after so long.
    Answered { answer: String, after: Duration },
    /// Not sent, and why (a destructive tool, the cap).
    NotSent(String),
    /// No answer within the per-request timeout; mcpspec cancelled it. Inconclusive: a tool may
    /// rightly take longer.
    TimedOut(Duration),
}

/// What a sweep scenario has done so far.
#[derive(Debug, Default)]
pub struct SweepState {
    pub requests: Vec<SweepRequest>,
    /// The lists as they were before the sweep's tool calls: (list method, the item keys).
    pub lists_before: ListKeys,
    /// How many notifications the session had kept before the tool calls.
    pub notifications_before: usize,
}

impl SweepState {
    /// How many more requests the scenario may send ([`MAX_SWEEP_REQUESTS`]).
    fn budget(&self) -> usize {
        let sent = self.requests.iter().filter(|r| !matches!(r.outcome, SweepOutcome::NotSent(_))).count();
        MAX_SWEEP_REQUESTS.saturating_sub(sent)
    }
}

/// The lists a tool call may change, with the capability that declares `listChanged`, the
/// notification that announces a change, and the doc that says it SHOULD be sent.
const CHANGEABLE_LISTS: [(&str, &str, &str, &str); 3] = [
    ("tools/list", "tools", "notifications/tools/list_changed", "server/tools.mdx#list-changed-notification"),
    (
        "prompts/list",
        "prompts",
        "notifications/prompts/list_changed",
        "server/prompts.mdx#list-changed-notification",
    ),
    (
        "resources/list",
        "resources",
        "notifications/resources/list_changed",
        "server/resources.mdx#list-changed-notification",
    ),
];

#[given("the client declines every elicitation")]
async fn declines_every_elicitation(w: &mut ServerWorld) -> Result<(), Halt> {
    let session = w.session()?;
    let mut persona = session.persona().clone();
    persona.declines_elicitation = true;
    session.set_persona(persona);
    Ok(())
}

/// Calls every tool; each call carries a progress token, as a client that shows progress sends
/// (progress rules get judged), unless the step says "and no progress token": a server that
/// reports progress for a call that asked for none (`basic/utilities/progress.mdx`, MUST: only
/// with a token the request carried) shows only then.
#[when(regex = r"^the client calls every tool with generated arguments( and no progress token)?$")]
async fn calls_every_tool(w: &mut ServerWorld, no_token: String) -> Result<(), Halt> {
    let with_token = no_token.is_empty();
    let destructive = w.ctx().sweep.destructive;
    // What the lists hold before the calls, to see afterwards whether a call changed one; each
    // tool planned as it is listed, and only the calls chosen kept.
    let mut calls = Batch::new(w.sweep.budget());
    let keys = list_keys(w, |method, _, item| {
        if method == "tools/list" {
            calls.push(plan_call(destructive, calls.planned(), item, with_token));
        }
    })
    .await?;
    if calls.planned() == 0 {
        return Err(w.skip("the server lists no tools".into()));
    }
    let listed = calls.planned();
    w.sweep.lists_before = keys;
    w.sweep.notifications_before = w.session()?.notifications.len();
    run_all(w, calls).await?;
    // A server may add tools once it knows the client (after notifications/initialized, say),
    // racing the first tools/list: those listed only now are called too, so what the sweep
    // exercises does not hang on that race. (A change nobody announced is still judged, in
    // `changed_lists_announced`, against the first list.)
    let mut added = Batch::new(w.sweep.budget());
    let called = std::mem::take(&mut w.sweep.lists_before);
    let tools = called.iter().find(|(method, _)| *method == "tools/list").map(|(_, names)| names);
    list_each(w, "tools/list", |tool| {
        if tool.get("name").is_some_and(|n| !tools.is_some_and(|t| t.contains(Some(n)))) {
            added.push(plan_call(destructive, listed + added.planned(), &tool, with_token));
        }
    })
    .await?;
    w.sweep.lists_before = called;
    run_all(w, added).await
}

/// The call of one tool of the sweep (the `n`th) with generated arguments (and, `with_token`, a
/// progress token), unless it says it is destructive and the run does not allow that
/// (`destructive`: `--sweep-destructive`).
fn plan_call(destructive_allowed: bool, n: usize, tool: &Value, with_token: bool) -> Planned {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    // Only a tool that says outright it is destructive is left alone. The spec's default
    // (destructiveHint true for any tool that is not read-only) would leave unannotated
    // tools, most of them, unexercised; annotations are untrusted hints either way.
    let read_only = tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true));
    let destructive = !read_only && tool.pointer("/annotations/destructiveHint") == Some(&Value::Bool(true));
    if destructive && !destructive_allowed {
        let why = "its annotations say destructiveHint: true (allow with --sweep-destructive)";
        return Planned::not_sent("tools/call", &name, why);
    }
    let arguments = example_object(tool.get("inputSchema").unwrap_or(&Value::Null));
    let mut params = json!({ "name": name, "arguments": arguments });
    if with_token {
        params["_meta"] = json!({ "progressToken": format!("mcpspec-sweep-{n}") });
    }
    Planned::request("tools/call", &name, params)
}

#[when("the client gets every prompt with generated arguments")]
async fn gets_every_prompt(w: &mut ServerWorld) -> Result<(), Halt> {
    let mut gets = Batch::new(w.sweep.budget());
    list_each(w, "prompts/list", |prompt| gets.push(plan_get(&prompt))).await?;
    if gets.planned() == 0 {
        return Err(w.skip("the server lists no prompts".into()));
    }
    run_all(w, gets).await
}

/// The prompts/get of one prompt of the sweep, with an example of each argument.
fn plan_get(prompt: &Value) -> Planned {
    let name = prompt.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    let mut arguments = serde_json::Map::new();
    for argument in prompt.get("arguments").and_then(Value::as_array).into_iter().flatten() {
        let Some(arg) = argument.get("name").and_then(Value::as_str) else { continue };
        // Prompt arguments are strings; the description may name an example.
        let schema = json!({ "type": "string", "description": argument.get("description") });
        arguments.insert(arg.to_owned(), example_for(arg, &schema));
    }
    let params = json!({ "name": name, "arguments": arguments });
    Planned::request("prompts/get", &name, params)
}

#[when("the client reads every resource and one URI per template")]
async fn reads_every_resource(w: &mut ServerWorld) -> Result<(), Halt> {
    // resources/subscribe is of the legacy era (the modern one subscribes with
    // subscriptions/listen, which its own scenarios exercise).
    let subscribe = w.server_capabilities()?.pointer("/resources/subscribe") == Some(&Value::Bool(true))
        && w.scenario.revision.era() == mcpspec_protocol::Era::Legacy;
    let (mut reads, mut listed) = (Batch::new(w.sweep.budget()), 0);
    list_each(w, "resources/list", |resource| {
        listed += 1;
        let Some(uri) = resource.get("uri").and_then(Value::as_str) else { return };
        reads.push(Planned::request("resources/read", uri, json!({ "uri": uri })));
        // One subscription (and its end) where the server declares subscribe: each alone, so
        // the end follows the subscription's answer.
        if subscribe && listed == 1 {
            reads.push(Planned::request("resources/subscribe", uri, json!({ "uri": uri })).alone());
            reads.push(Planned::request("resources/unsubscribe", uri, json!({ "uri": uri })).alone());
        }
    })
    .await?;
    list_each(w, "resources/templates/list", |template| {
        listed += 1;
        let Some(pattern) = template.get("uriTemplate").and_then(Value::as_str) else { return };
        let uri = expand_template(pattern);
        reads.push(Planned::request("resources/read", &uri, json!({ "uri": uri })));
    })
    .await?;
    if listed == 0 {
        return Err(w.skip("the server lists no resources and no resource templates".into()));
    }
    run_all(w, reads).await
}

#[when("the client asks to complete every prompt argument and template variable")]
async fn completes_everything(w: &mut ServerWorld) -> Result<(), Halt> {
    let caps = w.server_capabilities()?;
    let mut refs = Vec::new();
    if caps.get("prompts").is_some() {
        list_each(w, "prompts/list", |prompt| {
            let name = prompt.get("name").cloned().unwrap_or(Value::Null);
            for argument in prompt.get("arguments").and_then(Value::as_array).into_iter().flatten() {
                if let Some(arg) = argument.get("name").and_then(Value::as_str) {
                    refs.push((json!({ "type": "ref/prompt", "name": name }), arg.to_owned()));
                }
            }
        })
        .await?;
    }
    if caps.get("resources").is_some() {
        list_each(w, "resources/templates/list", |template| {
            let Some(pattern) = template.get("uriTemplate").and_then(Value::as_str) else { return };
            for variable in mcpspec_protocol::arguments::template_variables(pattern) {
                refs.push((json!({ "type": "ref/resource", "uri": pattern }), variable));
            }
        })
        .await?;
    }
    if refs.is_empty() {
        return Err(w.skip("the server lists no prompt argument and no template variable to complete".into()));
    }
    let mut completions = Batch::new(w.sweep.budget());
    for (reference, argument) in refs {
        let subject =
            format!("{} {argument}", reference.get("name").or(reference.get("uri")).unwrap_or(&Value::Null));
        let params = json!({ "ref": reference, "argument": { "name": argument, "value": "" } });
        completions.push(Planned::request("completion/complete", &subject, params));
    }
    run_all(w, completions).await
}

#[then("every request of the sweep is answered")]
async fn every_request_answered(w: &mut ServerWorld) -> Result<(), Halt> {
    // What the server sent after the last answer (a late notification) is judged too.
    let _ = w.session()?.drain(Duration::from_millis(50)).await;
    let requests = std::mem::take(&mut w.sweep.requests);
    for r in &requests {
        let expected = format!("an answer to {} (a result or an error)", r.what);
        match &r.outcome {
            SweepOutcome::Answered { answer, after } => {
                w.check(true, expected, format!("{answer} after {} ms", after.as_millis()))
            }
            SweepOutcome::NotSent(why) => w.inconclusive(expected, format!("not sent: {why}")),
            SweepOutcome::TimedOut(within) => w.inconclusive(
                expected,
                format!("no answer within {within:?}; mcpspec cancelled it (a tool may rightly take longer)"),
            ),
        }
    }
    if !requests.iter().any(|r| matches!(r.outcome, SweepOutcome::Answered { .. })) {
        return Err(w.skip("no request of the sweep was answered, so nothing was judged".into()));
    }
    Ok(())
}

#[then("every list the calls changed was announced")]
async fn changed_lists_announced(w: &mut ServerWorld) -> Result<(), Halt> {
    let before = std::mem::take(&mut w.sweep.lists_before);
    // The keys of items not listed before, the first few of each list, to name in the report.
    let mut added: Vec<(&str, Vec<String>)> = Vec::new();
    let after = list_keys(w, |method, key, _| {
        let was = before.iter().find(|(m, _)| *m == method).map(|(_, keys)| keys);
        if was.is_some_and(|was| !was.contains(key)) {
            if added.last().is_none_or(|(m, _)| *m != method) {
                added.push((method, Vec::new()));
            }
            if let Some((_, keys)) = added.last_mut().filter(|(_, keys)| keys.len() < NAMED_CHANGES) {
                keys.push(key.map_or_else(|| "(none)".to_owned(), Value::to_string));
            }
        }
    })
    .await?;
    let caps = w.server_capabilities()?;
    for ((method, was), (_, now)) in before.iter().zip(&after) {
        if was == now {
            continue;
        }
        let Some((_, capability, notification, doc)) = CHANGEABLE_LISTS.iter().find(|l| l.0 == *method)
        else {
            continue;
        };
        // Only a server that declared listChanged is asked to announce; one that did not must
        // not (capabilities/server-uses-negotiated judges that on the wire).
        if !mcpspec_protocol::capabilities::declares(&caps, &format!("{capability}.listChanged")) {
            continue;
        }
        let since = w.sweep.notifications_before;
        let session = w.session()?;
        let announced = session.notifications[since.min(session.notifications.len())..]
            .iter()
            .any(|m| matches!(m, Message::Notification(n) if n.method == *notification));
        let named = added.iter().find(|(m, _)| m == method).map_or(&[][..], |(_, keys)| keys);
        let change = format!(
            "{method} changed during the tool calls ({} added{}, {} removed)",
            now.missing_from(was),
            match named {
                [] => String::new(),
                named => format!(": {}", named.join(", ")),
            },
            was.missing_from(now),
        );
        let state = w.state_mut();
        let spec = state.spec(doc);
        state.checks.push(Check::judge(
            format!("{capability}/list-changed-notified"),
            Level::SHOULD,
            spec,
            announced,
            format!("{notification}, as the server declared {capability}.listChanged"),
            if announced { format!("{change}; announced") } else { format!("{change}; no {notification}") },
        ));
    }
    Ok(())
}

/// What the changeable lists hold: every list the server declares, in [`CHANGEABLE_LISTS`]
/// order (empty for a list it does not declare).
type ListKeys = Vec<(&'static str, Keys)>;

/// How many of the items a list gained the report names.
const NAMED_CHANGES: usize = 10;

/// The keys of a list's items (tools and prompts by name, resources by URI) as hashes, sorted,
/// without repeats: enough to tell whether a list changed, and which items it gained, at 8
/// bytes an item. Every tool sweep holds the three lists across its calls, several sweeps run
/// at once, and keys kept as text cost tens of MiB at 10,000 tools (issue #31).
#[derive(Debug, Default, PartialEq)]
pub struct Keys(Vec<u64>);

impl Keys {
    fn of(mut hashes: Vec<u64>) -> Keys {
        hashes.sort_unstable();
        hashes.dedup();
        Keys(hashes)
    }

    /// The hash of an item's key (`None`: the item has none). Fixed within a process, which is
    /// all the comparison needs.
    fn hash(key: Option<&Value>) -> u64 {
        use std::hash::{Hash as _, Hasher as _};
        let mut h = std::hash::DefaultHasher::new();
        match key {
            Some(Value::String(s)) => (0u8, s.as_str()).hash(&mut h),
            Some(other) => (1u8, other.to_string()).hash(&mut h),
            None => 2u8.hash(&mut h),
        }
        h.finish()
    }

    fn contains(&self, key: Option<&Value>) -> bool {
        self.0.binary_search(&Keys::hash(key)).is_ok()
    }

    /// How many of these keys `other` lacks.
    fn missing_from(&self, other: &Keys) -> usize {
        self.0.iter().filter(|k| other.0.binary_search(k).is_err()).count()
    }
}

/// The keys of every list ([`ListKeys`]), each item handed to `visit` with its list and key as
/// well. Only the keys are kept, each item dropped once read: a sweep of a large catalogue holds
/// no list (issue #31). An error or an endless list is the pagination scenarios' business: the
/// sweep takes what it got.
async fn list_keys(
    w: &mut ServerWorld,
    mut visit: impl FnMut(&'static str, Option<&Value>, &Value),
) -> Result<ListKeys, Halt> {
    let caps = w.server_capabilities()?;
    let mut keys = Vec::new();
    for (method, capability, ..) in CHANGEABLE_LISTS {
        let key = if method == "resources/list" { "uri" } else { "name" };
        let mut hashes = Vec::new();
        if caps.get(capability).is_some() {
            list_each(w, method, |item| {
                hashes.push(Keys::hash(item.get(key)));
                visit(method, item.get(key), &item);
            })
            .await?;
        }
        keys.push((method, Keys::of(hashes)));
    }
    Ok(keys)
}

/// Requests of the sweep in flight at once: a sweep scenario costs about its slowest request
/// rather than the sum of all (issue #31), and a server is not flooded with every call at once.
pub const MAX_IN_FLIGHT: usize = 8;

/// A request the sweep means to send, or one it will not send, and why.
pub struct Planned {
    method: &'static str,
    subject: String,
    /// As text: a sweep plans a request per item of a catalogue of any size, and sends a
    /// sample of them ([`Batch`]).
    params: JsonText,
    /// Why it is not sent (a destructive tool).
    not_sent: Option<String>,
    /// Sent only once nothing else is in flight, and nothing else is sent until it is answered
    /// (a subscription and its end).
    alone: bool,
}

impl Planned {
    fn request(method: &'static str, subject: &str, params: Value) -> Planned {
        Planned {
            method,
            subject: subject.to_owned(),
            params: JsonText::of(&params),
            not_sent: None,
            alone: false,
        }
    }

    fn not_sent(method: &'static str, subject: &str, why: &str) -> Planned {
        Planned { not_sent: Some(why.to_owned()), ..Planned::request(method, subject, Value::Null) }
    }

    fn alone(self) -> Planned {
        Planned { alone: true, ..self }
    }

    /// `tools/call get_weather`.
    fn what(&self) -> String {
        format!("{} {}", self.method, self.subject)
    }

    fn progress_token(&self) -> Option<Value> {
        self.params.member("_meta").and_then(|mut meta| meta.get_mut("progressToken").map(Value::take))
    }
}

/// A request of the sweep in flight.
struct InFlight {
    /// Its place in its batch.
    at: usize,
    /// The id of its latest round.
    id: RequestId,
    /// When it was first sent.
    started: Instant,
    /// When its latest round was sent.
    sent: Instant,
    /// Rounds of input given (modern era).
    rounds: usize,
    /// What the server asked of the client for it, on the way.
    asked: Vec<String>,
    /// What the server asked while it and other requests were in flight, tied to none alone.
    meanwhile: Vec<String>,
}

impl InFlight {
    /// When it has waited long enough: the sweep's timeout after it was sent or after the last
    /// answer to any request of the batch, whichever is later.
    fn due(&self, last_answer: Instant, within: Duration) -> Instant {
        self.sent.max(last_answer) + within
    }
}

/// The seed of the sample the sweep takes of a large catalogue: fixed, so every run of the same
/// catalogue sends the same requests.
pub const SAMPLE_SEED: u64 = 31;

/// The requests one step of the sweep means to send, chosen as they are planned: all of them
/// when they fit its budget; else the first half of the budget, in plan order, and the rest
/// drawn from those after them: the ones whose place, hashed with [`SAMPLE_SEED`], comes
/// lowest. That is a uniform sample, the same every run, taken without holding the requests
/// it leaves out: a catalogue of any size costs the sweep its budget, in time and in memory
/// (issue #31). Requests not to be sent at all (a destructive tool) are kept, to be listed.
pub struct Batch {
    budget: usize,
    /// With their place in the plan: the first half of the budget, and those not to be sent.
    kept: Vec<(usize, Planned)>,
    /// The rest of the budget drawn so far; the highest key on top, the first to go.
    drawn: std::collections::BinaryHeap<Drawn>,
    planned: usize,
    sendable: usize,
    /// The method of the requests left out (the first one's).
    left_out: Option<&'static str>,
}

/// A request drawn into a [`Batch`], ordered by its key.
struct Drawn {
    key: u64,
    at: usize,
    planned: Planned,
}

impl PartialEq for Drawn {
    fn eq(&self, other: &Self) -> bool {
        (self.key, self.at) == (other.key, other.at)
    }
}
impl Eq for Drawn {}
impl PartialOrd for Drawn {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Drawn {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.key, self.at).cmp(&(other.key, other.at))
    }
}

/// The key of the `n`th sendable request: SplitMix64 of its place and the seed, so the sample
/// depends on nothing but the order of the plan.
fn sample_key(n: usize) -> u64 {
    let mut z = (n as u64 ^ SAMPLE_SEED).wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Batch {
    fn new(budget: usize) -> Batch {
        Batch {
            budget,
            kept: Vec::new(),
            drawn: std::collections::BinaryHeap::new(),
            planned: 0,
            sendable: 0,
            left_out: None,
        }
    }

    /// How many requests were planned (sent or not).
    fn planned(&self) -> usize {
        self.planned
    }

    fn push(&mut self, planned: Planned) {
        let at = self.planned;
        self.planned += 1;
        if planned.not_sent.is_some() {
            return self.kept.push((at, planned));
        }
        let n = self.sendable;
        self.sendable += 1;
        let first = self.budget / 2;
        if n < first {
            return self.kept.push((at, planned));
        }
        self.drawn.push(Drawn { key: sample_key(n), at, planned });
        if self.drawn.len() > self.budget - first {
            let out = self.drawn.pop().map(|d| d.planned.method);
            self.left_out = self.left_out.or(out);
        }
    }

    /// The requests kept, in plan order, and how many sendable ones were left out.
    fn into_plan(self) -> (Vec<Planned>, usize) {
        let mut all: Vec<(usize, Planned)> = self.kept;
        all.extend(self.drawn.into_iter().map(|d| (d.at, d.planned)));
        all.sort_by_key(|(at, _)| *at);
        let sent = all.iter().filter(|(_, p)| p.not_sent.is_none()).count();
        (all.into_iter().map(|(_, p)| p).collect(), self.sendable - sent)
    }
}

/// Sends the requests of one step of the sweep, at most [`MAX_IN_FLIGHT`] at once, and records
/// how each ended, in the order planned (so the report does not depend on which answer came
/// first). Past the cap of [`MAX_SWEEP_REQUESTS`] the requests sent are a deterministic sample
/// ([`Batch`]), and those left out are listed as one entry that says how they were chosen.
///
/// Each request gets `--sweep-timeout` to be answered, counted from when it was sent or from
/// the last answer to (or cancellation of) any request of the batch, whichever is later: a
/// server that works through requests one at a time gets as long for each as when the sweep
/// sent them one by one, and a request still unanswered then is cancelled
/// (`notifications/cancelled`) and listed as inconclusive, one at a time.
/// What the server asks of the client meanwhile is answered by the persona whatever the session
/// waits for; the report ties it to its request ([`attribute`]).
async fn run_all(w: &mut ServerWorld, batch: Batch) -> Result<(), Halt> {
    let within = w.ctx().sweep.call_timeout;
    let (budget, sendable, left_out_method) = (batch.budget, batch.sendable, batch.left_out);
    let (batch, skipped) = batch.into_plan();
    let mut outcomes: Vec<Option<SweepOutcome>> = Vec::with_capacity(batch.len());
    let mut queue = std::collections::VecDeque::new();
    for (at, planned) in batch.iter().enumerate() {
        outcomes.push(match &planned.not_sent {
            Some(why) => Some(SweepOutcome::NotSent(why.clone())),
            None => {
                queue.push_back(at);
                None
            }
        });
    }
    let mut flight: Vec<InFlight> = Vec::new();
    let mut last_answer = Instant::now();
    loop {
        while let Some(&at) = queue.front() {
            let full = flight.len() >= MAX_IN_FLIGHT || flight.iter().any(|f| batch[f.at].alone);
            if full || (batch[at].alone && !flight.is_empty()) {
                break;
            }
            queue.pop_front();
            let planned = &batch[at];
            let id = match w.session()?.send_request(planned.method, Some(planned.params.value())).await {
                Ok(id) => id,
                Err(e) => return Err(w.not_sent(&format!("the {} request", planned.what()), e).await),
            };
            let now = Instant::now();
            flight.push(InFlight {
                at,
                id,
                started: now,
                sent: now,
                rounds: 0,
                asked: vec![],
                meanwhile: vec![],
            });
        }
        let Some(next_due) = flight.iter().map(|f| f.due(last_answer, within)).min() else { break };
        let ids: Vec<RequestId> = flight.iter().map(|f| f.id.clone()).collect();
        let asked_before = w.session()?.server_requests.len();
        let answer = w.session()?.wait_any(&ids, next_due.saturating_duration_since(Instant::now())).await;
        let session = w.session()?;
        let since = asked_before.min(session.server_requests.len());
        let arrived = session.server_requests[since..].iter();
        let related = session.server_requests_for.get(since..).unwrap_or_default();
        attribute(arrived.zip(related.iter().cloned().chain(std::iter::repeat(None))), &batch, &mut flight);
        match answer {
            Ok((which, response)) => {
                last_answer = Instant::now();
                // In the modern era the input a request asks for is given as a client would,
                // round by round (`basic/patterns/mrtr.mdx#client-requirements-basic-workflow`),
                // up to MAX_INPUT_ROUNDS; the last answer is the request's.
                let more = flight[which].rounds < MAX_INPUT_ROUNDS;
                if let Some(asked) = input_required(&response).filter(|_| more) {
                    let f = &mut flight[which];
                    let inputs = asked.get("inputRequests").and_then(Value::as_object).into_iter().flatten();
                    f.asked.extend(
                        inputs
                            .filter_map(|(_, i)| i.get("method").and_then(Value::as_str).map(str::to_owned)),
                    );
                    let mut retry = match batch[f.at].params.value() {
                        Value::Object(params) => params,
                        _ => serde_json::Map::new(),
                    };
                    let session = w.session()?;
                    if let Some(inputs) = asked.get("inputRequests") {
                        retry.insert("inputResponses".into(), session.persona_answer_inputs(inputs));
                    }
                    if let Some(state) = asked.get("requestState") {
                        retry.insert("requestState".into(), state.clone());
                    }
                    let method = batch[flight[which].at].method;
                    match w.session()?.send_request(method, Some(Value::Object(retry))).await {
                        Ok(id) => {
                            let f = &mut flight[which];
                            (f.id, f.sent, f.rounds) = (id, Instant::now(), f.rounds + 1);
                        }
                        Err(e) => {
                            let what = batch[flight[which].at].what();
                            return Err(w
                                .not_sent(&format!("the {what} request (with the input asked for)"), e)
                                .await);
                        }
                    }
                    continue;
                }
                let f = flight.remove(which);
                let at = f.at;
                outcomes[at] = Some(answered(&response, f));
            }
            Err(WaitError::Timeout(_)) => {
                // Only the request due first is given up on; the others get a fresh timeout,
                // as the next request did when they were sent one by one. A server stalled for
                // a while (a starved machine) then costs at most as many requests as before,
                // never all those in flight at once.
                let now = Instant::now();
                let first = flight
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.due(last_answer, within) <= now)
                    .min_by_key(|(_, f)| f.due(last_answer, within))
                    .map(|(i, _)| i);
                let late: Vec<InFlight> = first.map(|i| flight.remove(i)).into_iter().collect();
                if !late.is_empty() {
                    last_answer = now;
                }
                for f in late {
                    let cancel = Message::notification(
                        "notifications/cancelled",
                        Some(
                            json!({ "requestId": f.id.to_value(), "reason": "mcpspec's sweep gave up waiting" }),
                        ),
                    );
                    if let Err(e) = w.session()?.send(&cancel).await {
                        return Err(w.not_sent("notifications/cancelled", e).await);
                    }
                    outcomes[f.at] = Some(SweepOutcome::TimedOut(within));
                }
            }
            Err(e) => {
                let what: Vec<String> = flight.iter().map(|f| batch[f.at].what()).collect();
                let mut actual = e.to_string();
                w.append_stderr(&mut actual);
                return Err(
                    w.fail(format!("an answer to {} (a result or an error)", what.join(", ")), actual)
                );
            }
        }
    }
    for (planned, outcome) in batch.iter().zip(outcomes) {
        // Every request sent ends answered or timed out above; none is left without one.
        let outcome = outcome.unwrap_or_else(|| SweepOutcome::NotSent("not sent (a harness error)".into()));
        w.sweep.requests.push(SweepRequest { what: planned.what(), outcome });
    }
    if skipped > 0 {
        let method = left_out_method.unwrap_or_default();
        let how = match budget {
            0 => "the scenario's earlier requests had reached it".to_owned(),
            _ => format!(
                "of the {sendable} planned here it sent the first {} and {} more sampled from the rest \
                 with the fixed seed {SAMPLE_SEED}",
                budget / 2,
                budget - budget / 2
            ),
        };
        let why = format!("the sweep sends at most {MAX_SWEEP_REQUESTS} requests per scenario: {how}");
        let what = format!("{method} of {skipped} more");
        w.sweep.requests.push(SweepRequest { what, outcome: SweepOutcome::NotSent(why) });
    }
    Ok(())
}

/// Ties each request the server sent during a wait (with the client request the transport says
/// it was sent for) to the request of the sweep it belongs to: by the transport's relation (over
/// Streamable HTTP, the POST whose response stream carried it), by the progress token of one of
/// them in its `_meta`, or, with one request in flight, to that one. One that none of these ties
/// to a single request is listed with every request then in flight as sent meanwhile, never as
/// any one's own.
fn attribute<'a>(
    arrived: impl Iterator<Item = (&'a Request, Option<RequestId>)>,
    batch: &[Planned],
    flight: &mut [InFlight],
) {
    for (request, related) in arrived {
        let by_relation = related.and_then(|id| flight.iter().position(|f| f.id == id));
        let token = request.params.as_ref().and_then(|p| p.pointer("/_meta/progressToken"));
        let by_token =
            token.and_then(|t| flight.iter().position(|f| batch[f.at].progress_token().as_ref() == Some(t)));
        let only = (flight.len() == 1).then_some(0);
        match by_relation.or(by_token).or(only) {
            Some(i) => flight[i].asked.push(request.method.clone()),
            None => flight.iter_mut().for_each(|f| f.meanwhile.push(request.method.clone())),
        }
    }
}

/// How a request ended with an answer, with what the server asked of the client on the way.
fn answered(response: &mcpspec_protocol::wire::Response, f: InFlight) -> SweepOutcome {
    let mut answer = brief(response);
    if !f.asked.is_empty() {
        answer = format!("{answer}, having sent {}", f.asked.join(", "));
    }
    if !f.meanwhile.is_empty() {
        answer = format!(
            "{answer}; while other requests of the sweep were in flight too, the server sent {} (for one of them)",
            f.meanwhile.join(", ")
        );
    }
    SweepOutcome::Answered { answer, after: f.started.elapsed() }
}

/// A short account of an answer: the error, or the result with `isError` when set.
fn brief(r: &mcpspec_protocol::wire::Response) -> String {
    match &r.outcome {
        Outcome::Result(v) if v.get("isError") == Some(&Value::Bool(true)) => {
            "an error result (isError)".into()
        }
        Outcome::Result(_) => "a result".into(),
        Outcome::Error(_) => outcome_text(r),
    }
}

/// A URI from a template: each expression replaced by a value for its first variable (`1` for
/// ids, which are often numbers; an example for the name otherwise).
fn expand_template(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else { break };
        let variable = mcpspec_protocol::arguments::template_variables(&rest[open..open + close + 1])
            .into_iter()
            .next()
            .unwrap_or_default();
        let lower = variable.to_lowercase();
        let value = if lower == "id" || lower.ends_with("id") || lower.ends_with("_id") {
            "1".to_owned()
        } else {
            example_for(&variable, &json!({ "type": "string" })).as_str().unwrap_or("mcpspec").to_owned()
        };
        out.push_str(&value);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_expand_with_likely_values() {
        assert_eq!(
            mcpspec_protocol::arguments::template_variables("test://a/{id}/b{?q,page}"),
            ["id", "q", "page"]
        );
        assert_eq!(expand_template("test://template/{id}/data"), "test://template/1/data");
        assert_eq!(expand_template("test://greeting/{name}"), "test://greeting/mcpspec");
        assert_eq!(expand_template("file:///{+path}"), "file:////tmp");
    }

    fn in_flight(at: usize, id: i64) -> InFlight {
        let now = Instant::now();
        InFlight { at, id: id.into(), started: now, sent: now, rounds: 0, asked: vec![], meanwhile: vec![] }
    }

    fn server_request(method: &str, params: Value) -> Request {
        Request { id: RequestId::from(900), method: method.into(), params: Some(params) }
    }

    /// Server requests are tied to a call by the transport's relation or a progress token; with
    /// several calls in flight and neither, to none of them (listed with each as meanwhile);
    /// with one in flight, to that one.
    #[test]
    fn server_requests_are_attributed_only_when_they_can_be() {
        let token = |n: usize| json!({ "name": format!("t{n}"), "_meta": { "progressToken": format!("mcpspec-sweep-{n}") } });
        let batch: Vec<Planned> =
            (0..3).map(|n| Planned::request("tools/call", &format!("t{n}"), token(n))).collect();
        let mut flight = vec![in_flight(0, 10), in_flight(1, 11), in_flight(2, 12)];
        let sampling = server_request("sampling/createMessage", json!({}));
        let roots = server_request("roots/list", json!({ "_meta": { "progressToken": "mcpspec-sweep-2" } }));
        let elicit = server_request("elicitation/create", json!({}));
        let arrived = [(&sampling, Some(RequestId::from(11))), (&roots, None), (&elicit, None)].into_iter();
        attribute(arrived, &batch, &mut flight);
        assert_eq!(flight[1].asked, ["sampling/createMessage"], "by the POST that carried it");
        assert_eq!(flight[2].asked, ["roots/list"], "by its progress token");
        assert!(flight[0].asked.is_empty());
        assert!(flight.iter().all(|f| f.meanwhile == ["elicitation/create"]), "tied to none");
        let mut alone = vec![in_flight(0, 10)];
        attribute([(&elicit, None)].into_iter(), &batch, &mut alone);
        assert_eq!(alone[0].asked, ["elicitation/create"], "the only call in flight");
        let SweepOutcome::Answered { answer, .. } = answered(&answer_to(10), flight.remove(0)) else {
            panic!()
        };
        assert_eq!(
            answer,
            "a result; while other requests of the sweep were in flight too, the server sent elicitation/create (for one of them)"
        );
    }

    /// The places in the plan of the requests a batch of `n` (every `destructive`th one not to
    /// be sent) keeps within `budget`, and how many it leaves out.
    fn chosen(n: usize, budget: usize, destructive: usize) -> (Vec<usize>, usize) {
        let mut batch = Batch::new(budget);
        for i in 0..n {
            let planned = Planned::request("tools/call", &i.to_string(), json!({}));
            batch.push(if destructive > 0 && i % destructive == 0 {
                Planned::not_sent("tools/call", &i.to_string(), "destructive")
            } else {
                planned
            });
        }
        let (plan, left_out) = batch.into_plan();
        (plan.iter().map(|p| p.subject.parse().unwrap()).collect(), left_out)
    }

    #[test]
    fn a_large_catalogue_is_sampled_the_same_way_every_time() {
        assert_eq!(chosen(5, 64, 0), ((0..5).collect(), 0));
        assert_eq!(chosen(64, 64, 0), ((0..64).collect(), 0), "all that fit are sent");
        let (plan, left_out) = chosen(1000, 64, 0);
        assert_eq!((plan.len(), left_out), (64, 936));
        assert_eq!(plan[..32], (0..32).collect::<Vec<_>>(), "the first half of the budget, in order");
        assert!(plan.windows(2).all(|w| w[0] < w[1]), "sent in plan order");
        assert!(plan.iter().any(|&i| i >= 500), "drawn from the whole rest: {plan:?}");
        assert_eq!((plan, left_out), chosen(1000, 64, 0), "the same sample every run");
        assert_eq!(chosen(3, 0, 0), (vec![], 3));
        // Those not to be sent are all kept, to be listed, and take no place in the budget.
        let (plan, left_out) = chosen(1000, 64, 10);
        assert_eq!(plan.iter().filter(|&&i| i % 10 == 0).count(), 100);
        assert_eq!((plan.len() - 100, left_out), (64, 900 - 64));
        // A sample is uniform over the rest: each tenth of it gets about its share.
        let (plan, _) = chosen(100_000, 1000, 0);
        for tenth in 0..10 {
            let share = plan[500..].iter().filter(|&&i| (i - 500) * 10 / 99_500 == tenth).count();
            assert!((25..=75).contains(&share), "tenth {tenth}: {share} of 500");
        }
    }

    fn answer_to(id: i64) -> mcpspec_protocol::wire::Response {
        mcpspec_protocol::wire::Response { id: Some(id.into()), outcome: Outcome::Result(json!({})) }
    }
}
