//! The sweep: what a server advertises — every tool, prompt, resource, template and completion —
//! exercised once with generated arguments, so behaviour only a server's own tools trigger
//! (sampling, elicitation, roots, progress, logging) is judged without fixture names. The sweep
//! expects nothing of the output: the session rules judge every message the server sends
//! meanwhile, and the client persona answers the server's requests as in the scripted scenarios.
//! Bounded: a timeout per request (then the request is cancelled), a cap on requests, and tools
//! that say they are destructive are left alone unless the run allows them.

use super::when::list_all;
use super::{outcome_text, Halt, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec::judge::verdict::{Check, Level};
use mcpspec::session::server::WaitError;
use mcpspec_protocol::arguments::{example_for, example_object};
use mcpspec_protocol::wire::{Message, Outcome};
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

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
    pub lists_before: Vec<(&'static str, BTreeSet<String>)>,
    /// How many notifications the session had kept before the tool calls.
    pub notifications_before: usize,
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
    // What the lists hold before the calls, to see afterwards whether a call changed one.
    let lists = list_everything(w).await?;
    let tools = lists.iter().find(|(method, _)| *method == "tools/list").map(|(_, items)| items.clone());
    let tools = tools.unwrap_or_default();
    if tools.is_empty() {
        return Err(w.skip("the server lists no tools".into()));
    }
    w.sweep.lists_before = keys_of(&lists);
    w.sweep.notifications_before = w.session()?.notifications.len();
    for (n, tool) in tools.iter().enumerate() {
        call_tool(w, n, tool, with_token).await?;
    }
    // A server may add tools once it knows the client (after notifications/initialized, say),
    // racing the first tools/list: those listed only now are called too, so what the sweep
    // exercises does not hang on that race. (A change nobody announced is still judged, in
    // `changed_lists_announced`, against the first list.)
    let called: std::collections::HashSet<Value> =
        tools.iter().filter_map(|t| t.get("name").cloned()).collect();
    let later: Vec<Value> = listed(w, "tools/list").await?;
    let added = later.iter().filter(|t| t.get("name").is_some_and(|n| !called.contains(n)));
    for (n, tool) in added.enumerate() {
        call_tool(w, tools.len() + n, tool, with_token).await?;
    }
    Ok(())
}

/// Calls one tool of the sweep (the `n`th) with generated arguments (and, `with_token`, a
/// progress token), unless it says it is destructive and the run does not allow that.
async fn call_tool(w: &mut ServerWorld, n: usize, tool: &Value, with_token: bool) -> Result<(), Halt> {
    let name = tool.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
    // Only a tool that says outright it is destructive is left alone. The spec's default
    // (destructiveHint true for any tool that is not read-only) would leave unannotated
    // tools, most of them, unexercised; annotations are untrusted hints either way.
    let read_only = tool.pointer("/annotations/readOnlyHint") == Some(&Value::Bool(true));
    let destructive = !read_only && tool.pointer("/annotations/destructiveHint") == Some(&Value::Bool(true));
    if destructive && !w.ctx().sweep.destructive {
        w.sweep.requests.push(SweepRequest {
            what: format!("tools/call {name}"),
            outcome: SweepOutcome::NotSent(
                "its annotations say destructiveHint: true (allow with --sweep-destructive)".into(),
            ),
        });
        return Ok(());
    }
    let arguments = example_object(tool.get("inputSchema").unwrap_or(&Value::Null));
    let mut params = json!({ "name": name, "arguments": arguments });
    if with_token {
        params["_meta"] = json!({ "progressToken": format!("mcpspec-sweep-{n}") });
    }
    sweep_request(w, "tools/call", &name, params).await
}

#[when("the client gets every prompt with generated arguments")]
async fn gets_every_prompt(w: &mut ServerWorld) -> Result<(), Halt> {
    let prompts = listed(w, "prompts/list").await?;
    if prompts.is_empty() {
        return Err(w.skip("the server lists no prompts".into()));
    }
    for prompt in prompts {
        let name = prompt.get("name").and_then(Value::as_str).unwrap_or_default().to_owned();
        let mut arguments = serde_json::Map::new();
        for argument in prompt.get("arguments").and_then(Value::as_array).into_iter().flatten() {
            let Some(arg) = argument.get("name").and_then(Value::as_str) else { continue };
            // Prompt arguments are strings; the description may name an example.
            let schema = json!({ "type": "string", "description": argument.get("description") });
            arguments.insert(arg.to_owned(), example_for(arg, &schema));
        }
        let params = json!({ "name": name, "arguments": arguments });
        sweep_request(w, "prompts/get", &name, params).await?;
    }
    Ok(())
}

#[when("the client reads every resource and one URI per template")]
async fn reads_every_resource(w: &mut ServerWorld) -> Result<(), Halt> {
    let resources = listed(w, "resources/list").await?;
    let templates = listed(w, "resources/templates/list").await?;
    if resources.is_empty() && templates.is_empty() {
        return Err(w.skip("the server lists no resources and no resource templates".into()));
    }
    // resources/subscribe is of the legacy era (the modern one subscribes with
    // subscriptions/listen, which its own scenarios exercise).
    let subscribe = w.server_capabilities()?.pointer("/resources/subscribe") == Some(&Value::Bool(true))
        && w.scenario.revision.era() == mcpspec_protocol::Era::Legacy;
    for (n, resource) in resources.iter().enumerate() {
        let Some(uri) = resource.get("uri").and_then(Value::as_str) else { continue };
        sweep_request(w, "resources/read", uri, json!({ "uri": uri })).await?;
        // One subscription (and its end) where the server declares subscribe.
        if subscribe && n == 0 {
            sweep_request(w, "resources/subscribe", uri, json!({ "uri": uri })).await?;
            sweep_request(w, "resources/unsubscribe", uri, json!({ "uri": uri })).await?;
        }
    }
    for template in templates {
        let Some(pattern) = template.get("uriTemplate").and_then(Value::as_str) else { continue };
        let uri = expand_template(pattern);
        sweep_request(w, "resources/read", &uri, json!({ "uri": uri })).await?;
    }
    Ok(())
}

#[when("the client asks to complete every prompt argument and template variable")]
async fn completes_everything(w: &mut ServerWorld) -> Result<(), Halt> {
    let caps = w.server_capabilities()?;
    let mut refs = Vec::new();
    if caps.get("prompts").is_some() {
        for prompt in listed(w, "prompts/list").await? {
            let name = prompt.get("name").cloned().unwrap_or(Value::Null);
            for argument in prompt.get("arguments").and_then(Value::as_array).into_iter().flatten() {
                if let Some(arg) = argument.get("name").and_then(Value::as_str) {
                    refs.push((json!({ "type": "ref/prompt", "name": name }), arg.to_owned()));
                }
            }
        }
    }
    if caps.get("resources").is_some() {
        for template in listed(w, "resources/templates/list").await? {
            let Some(pattern) = template.get("uriTemplate").and_then(Value::as_str) else { continue };
            for variable in mcpspec_protocol::arguments::template_variables(pattern) {
                refs.push((json!({ "type": "ref/resource", "uri": pattern }), variable));
            }
        }
    }
    if refs.is_empty() {
        return Err(w.skip("the server lists no prompt argument and no template variable to complete".into()));
    }
    for (reference, argument) in refs {
        let subject =
            format!("{} {argument}", reference.get("name").or(reference.get("uri")).unwrap_or(&Value::Null));
        let params = json!({ "ref": reference, "argument": { "name": argument, "value": "" } });
        sweep_request(w, "completion/complete", &subject, params).await?;
    }
    Ok(())
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
    let after = keys_of(&list_everything(w).await?);
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
        let added: Vec<&String> = now.difference(was).collect();
        let removed: Vec<&String> = was.difference(now).collect();
        let change = format!("{method} changed during the tool calls (added {added:?}, removed {removed:?})");
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

/// The items of every list the server declares, in [`CHANGEABLE_LISTS`] order (empty for a
/// list it does not declare).
async fn list_everything(w: &mut ServerWorld) -> Result<Vec<(&'static str, Vec<Value>)>, Halt> {
    let caps = w.server_capabilities()?;
    let mut out = Vec::new();
    for (method, capability, ..) in CHANGEABLE_LISTS {
        let items = if caps.get(capability).is_some() { listed(w, method).await? } else { Vec::new() };
        out.push((method, items));
    }
    Ok(out)
}

/// What identifies the items of each list: tools and prompts by name, resources by URI.
fn keys_of(lists: &[(&'static str, Vec<Value>)]) -> Vec<(&'static str, BTreeSet<String>)> {
    lists
        .iter()
        .map(|(method, items)| {
            let key = if *method == "resources/list" { "uri" } else { "name" };
            (*method, items.iter().map(|i| i.get(key).map(Value::to_string).unwrap_or_default()).collect())
        })
        .collect()
}

/// The items of a list, all pages; an error or an endless list is the pagination scenarios'
/// business: the sweep takes what it got.
async fn listed(w: &mut ServerWorld, method: &str) -> Result<Vec<Value>, Halt> {
    Ok(list_all(w, method).await?.items)
}

/// Sends one request of the sweep and waits for its answer (requests the server sends
/// meanwhile are answered by the persona); a request unanswered in time is cancelled.
async fn sweep_request(w: &mut ServerWorld, method: &str, subject: &str, params: Value) -> Result<(), Halt> {
    let what = format!("{method} {subject}");
    if w.sweep.requests.iter().filter(|r| !matches!(r.outcome, SweepOutcome::NotSent(_))).count()
        >= MAX_SWEEP_REQUESTS
    {
        let why = format!("the sweep sends at most {MAX_SWEEP_REQUESTS} requests per scenario");
        w.sweep.requests.push(SweepRequest { what, outcome: SweepOutcome::NotSent(why) });
        return Ok(());
    }
    let within = w.timeout();
    let asked_before = w.session()?.server_requests.len();
    let inputs_before = w.session()?.input_required.len();
    let started = Instant::now();
    let sent = w.session()?.send_request(method, Some(params.clone())).await;
    let id = match sent {
        Ok(id) => id,
        Err(e) => return Err(w.not_sent(&format!("the {what} request"), e).await),
    };
    let mut answer = w.session()?.wait_response(&id, within).await;
    // In the modern era the input a tool asks for is given as a client would, round by round.
    if let Ok(first) = &answer {
        if mcpspec::session::server::input_required(first).is_some() {
            let first = first.clone();
            answer = w.session()?.complete_input(method, Some(params), first, within).await;
        }
    }
    let outcome = match answer {
        Ok(r) => {
            // What the server asked of the client on the way, for the report.
            let session = w.session()?;
            let inputs = session.input_required[inputs_before..]
                .iter()
                .flat_map(|r| r.get("inputRequests").and_then(Value::as_object).into_iter().flatten())
                .filter_map(|(_, i)| i.get("method").and_then(Value::as_str));
            let asked: Vec<&str> = session.server_requests[asked_before..]
                .iter()
                .map(|r| r.method.as_str())
                .chain(inputs)
                .collect();
            let mut answer = brief(&r);
            if !asked.is_empty() {
                answer = format!("{answer}, having sent {}", asked.join(", "));
            }
            SweepOutcome::Answered { answer, after: started.elapsed() }
        }
        Err(WaitError::Timeout(_)) => {
            let cancel = Message::notification(
                "notifications/cancelled",
                Some(json!({ "requestId": id.to_value(), "reason": "mcpspec's sweep gave up waiting" })),
            );
            if let Err(e) = w.session()?.send(&cancel).await {
                return Err(w.not_sent("notifications/cancelled", e).await);
            }
            SweepOutcome::TimedOut(within)
        }
        Err(e) => {
            let mut actual = e.to_string();
            w.append_stderr(&mut actual);
            return Err(w.fail(format!("an answer to {what} (a result or an error)"), actual));
        }
    };
    w.sweep.requests.push(SweepRequest { what, outcome });
    Ok(())
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
}
