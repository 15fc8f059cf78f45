//! Steps of the task scenarios (`scenarios/server/tasks.feature`, 2025-11-25's experimental
//! tasks): picking a tool by its `execution.taskSupport`, calling it as a task (once or several
//! times), and reading, following, waiting for, listing and cancelling the task; comparing a
//! task's result with a plain call's. What a task object must hold, and when task ids could be
//! guessed, is `mcpspec_protocol::tasks`' to say.

use super::given::find;
use super::{outcome_text, Halt, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec_protocol::arguments::example_object;
use mcpspec_protocol::tasks::{
    guessable_ids, related_task, task_problems, TaskStatus, TaskSupport, RELATED_TASK_META,
};
use mcpspec_protocol::wire::Outcome;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// How long the steps let late messages arrive before they look.
const QUIET: Duration = Duration::from_millis(250);

/// The lifetime a task-augmented call asks for (tasks.mdx#creating-tasks: a requestor MAY).
const REQUESTED_TTL_MS: u64 = 60_000;

/// How long "stays cancelled" watches a cancelled task, and how often it looks.
const WATCH_CANCELLED: Duration = Duration::from_millis(1_500);
const WATCH_STEP: Duration = Duration::from_millis(500);

/// How long a task is followed with tasks/get to its end, and the bounds put on the
/// `pollInterval` it suggests (tasks.mdx#getting-tasks: requestors SHOULD respect it).
const FOLLOW_AT_MOST: Duration = Duration::from_secs(30);
const POLL_AT_LEAST: Duration = Duration::from_millis(50);
const POLL_AT_MOST: Duration = Duration::from_secs(2);
/// How many more times a task that has ended is read to see it keep its status.
const READS_AFTER_END: usize = 3;

/// The task id the related-task `_meta` names where a scenario means to mislead.
const OTHER_TASK: &str = "mcpspec-not-this-task";

#[given(regex = r"^the server lists a tool that (may|must|may not|may or may not) run as a task$")]
async fn lists_task_tool(w: &mut ServerWorld, how: String) -> Result<(), Halt> {
    let wanted = |t: &Value| {
        matches!(
            (how.as_str(), TaskSupport::of_tool(t)),
            ("may", TaskSupport::Optional | TaskSupport::Required)
                | ("must", TaskSupport::Required)
                | ("may not", TaskSupport::Forbidden)
                | ("may or may not", TaskSupport::Optional)
        )
    };
    match find(w, "tools/list", "tools", wanted).await? {
        Some(tool) => {
            w.subject = Some(tool);
            Ok(())
        }
        None => Err(w.skip(format!("the server lists no tool that {how} run as a task"))),
    }
}

/// A tool that may run as a task, one that asks the client for input if the server lists such
/// a tool (its name or description speaks of eliciting, sampling or input), else the first.
/// What a tool does is not on the wire before it is called: the words are a guess, and a tool
/// that asks for nothing leaves the scenario without a request to judge.
#[given("the server lists a tool that may run as a task, preferably one that asks for input")]
async fn lists_task_tool_asking(w: &mut ServerWorld) -> Result<(), Halt> {
    let may = |t: &Value| TaskSupport::of_tool(t) != TaskSupport::Forbidden;
    let asks = |t: &Value| {
        let words = format!("{} {}", t["name"], t["description"]).to_lowercase();
        may(t) && ["elicit", "sampl", "input"].iter().any(|w| words.contains(w))
    };
    let tool = match find(w, "tools/list", "tools", asks).await? {
        Some(tool) => Some(tool),
        None => find(w, "tools/list", "tools", may).await?,
    };
    match tool {
        Some(tool) => {
            w.subject = Some(tool);
            Ok(())
        }
        None => Err(w.skip("the server lists no tool that may run as a task".into())),
    }
}

/// tasks.mdx#input-required-status: a request the server sends the client for a task (an
/// elicitation, a sampling, the roots) names the task in its related-task `_meta`; while the
/// scenario's one task runs, every request of the server's but a ping is for it. A server that
/// sent none leaves nothing to judge.
#[then("every request the server sent while the task ran named it in its related-task _meta")]
async fn requests_name_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    let asked: Vec<(String, Option<String>)> = w
        .session()?
        .server_requests
        .iter()
        .filter(|r| r.method != "ping")
        .map(|r| (r.method.clone(), r.params.as_ref().and_then(related_task).map(str::to_owned)))
        .collect();
    if asked.is_empty() {
        return Err(w.skip(format!("the server sent no request while task {id} ran")));
    }
    let astray: Vec<String> = asked
        .iter()
        .filter(|(_, named)| named.as_deref() != Some(id.as_str()))
        .map(|(method, named)| match named {
            Some(other) => format!("{method} naming task {other:?}"),
            None => format!("{method} without related-task _meta"),
        })
        .collect();
    let expected = format!("each request of the server's naming task {id} in its related-task _meta");
    let actual = match astray.is_empty() {
        true => {
            let methods: Vec<&str> = asked.iter().map(|(m, _)| m.as_str()).collect();
            format!("{}, each naming it", methods.join(", "))
        }
        false => astray.join("; "),
    };
    w.check(astray.is_empty(), expected, actual);
    Ok(())
}

/// A tool that may run as a task if the server lists one, else any tool: for a server that
/// declared no tasks, where whatever a tool says of tasks must not matter.
#[given("the server lists a tool, preferably one that may run as a task")]
async fn lists_tool_preferably_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let tool =
        match find(w, "tools/list", "tools", |t| TaskSupport::of_tool(t) != TaskSupport::Forbidden).await? {
            Some(tool) => Some(tool),
            None => find(w, "tools/list", "tools", |t| t.get("name").is_some_and(Value::is_string)).await?,
        };
    match tool {
        Some(tool) => {
            w.subject = Some(tool);
            Ok(())
        }
        None => Err(w.skip("the server lists no tool".into())),
    }
}

/// The `tools/call` params of the picked tool, with `task` when `as_task`.
fn call_params(w: &mut ServerWorld, as_task: bool) -> Result<Value, Halt> {
    let Some(tool) = w.subject.clone() else {
        return Err(w.harness_error("no tool picked (a Given step is missing)".into()));
    };
    let arguments = example_object(tool.get("inputSchema").unwrap_or(&Value::Null));
    let mut params = json!({ "name": tool["name"], "arguments": arguments });
    if as_task {
        params["task"] = json!({ "ttl": REQUESTED_TTL_MS });
    }
    Ok(params)
}

#[when(regex = r"^the client calls the tool as a task(?: (\d+) times)?$")]
async fn calls_as_task(w: &mut ServerWorld, times: String) -> Result<(), Halt> {
    let params = call_params(w, true)?;
    for _ in 0..times.parse::<usize>().unwrap_or(1) {
        w.send_request("tools/call", Some(params.clone())).await?;
    }
    Ok(())
}

/// The tool as a task, with arguments its `inputSchema` refuses (one property of the wrong
/// type); a tool whose schema declares no typed property cannot be given any.
#[when("the client calls the tool as a task with arguments its input schema refuses")]
async fn calls_as_task_refused(w: &mut ServerWorld) -> Result<(), Halt> {
    let mut params = call_params(w, true)?;
    let schema = w.subject.as_ref().and_then(|t| t.get("inputSchema")).cloned().unwrap_or(Value::Null);
    let Some(arguments) = mcpspec_protocol::arguments::refused_object(&schema) else {
        return Err(w.skip("the tool's inputSchema declares no typed property to get wrong".into()));
    };
    params["arguments"] = arguments;
    w.send_request("tools/call", Some(params)).await.map(drop)
}

/// A task whose tool call failed (a JSON-RPC error, or a result with `isError`: tasks.mdx#task-status)
/// says why in its `statusMessage` (#task-execution-errors: the tasks/get response SHOULD).
/// A server that refused the call before creating a task, or whose task did not end failed,
/// proves nothing.
#[then("the task fails, and tasks/get says why")]
async fn fails_saying_why(w: &mut ServerWorld) -> Result<(), Halt> {
    let expected = "a failed task whose tasks/get result carries a statusMessage";
    let r = w.await_answer().await?;
    let id = match &r.outcome {
        Outcome::Result(result) => result.pointer("/task/taskId").and_then(Value::as_str).map(str::to_owned),
        Outcome::Error(_) => None,
    };
    let Some(id) = id else {
        w.inconclusive(expected, format!("no task was created: {}", outcome_text(&r)));
        return Ok(());
    };
    let started = tokio::time::Instant::now();
    loop {
        let r = w.call("tasks/get", Some(json!({ "taskId": id }))).await?;
        let Outcome::Result(task) = &r.outcome else {
            return Err(w.fail(expected, format!("tasks/get: {}", outcome_text(&r))));
        };
        let status = task.get("status").and_then(Value::as_str).and_then(TaskStatus::parse);
        match status {
            Some(TaskStatus::Failed) => {
                let message =
                    task.get("statusMessage").and_then(Value::as_str).filter(|m| !m.trim().is_empty());
                let actual = match message {
                    Some(m) => format!("failed: {m:?}"),
                    None => format!("failed, without a statusMessage: {}", shorten(task)),
                };
                w.check(message.is_some(), expected, actual);
                return Ok(());
            }
            Some(s) if s.is_terminal() || s == TaskStatus::InputRequired => {
                w.inconclusive(expected, format!("the task ended {} (not failed)", s.as_str()));
                return Ok(());
            }
            _ if started.elapsed() > FOLLOW_AT_MOST => {
                w.inconclusive(
                    expected,
                    format!("still {} after {} s", task["status"], FOLLOW_AT_MOST.as_secs()),
                );
                return Ok(());
            }
            _ => tokio::time::sleep(POLL_AT_LEAST.max(Duration::from_millis(100))).await,
        }
    }
}

#[when(expr = "the client calls the tool as a task with the progress token {string}")]
async fn calls_as_task_with_progress(w: &mut ServerWorld, token: String) -> Result<(), Halt> {
    let mut params = call_params(w, true)?;
    params["_meta"] = json!({ "progressToken": token });
    w.send_request("tools/call", Some(params)).await.map(drop)
}

/// Progress is optional (progress.mdx: the receiver MAY send none): a task that reported none
/// proves nothing. Whatever came is judged on the wire: under the call's token, and none once
/// the task has ended (`progress/task-stops-at-terminal`, `progress/token-active`).
#[then(expr = "the task's progress, if any, came under the token {string}")]
async fn task_progress_under(w: &mut ServerWorld, token: String) -> Result<(), Halt> {
    let _ = w.session()?.drain(QUIET).await;
    let under = |m: &mcpspec_protocol::wire::Message| match m {
        mcpspec_protocol::wire::Message::Notification(n) => {
            n.method == "notifications/progress"
                && n.params.as_ref().and_then(|p| p.get("progressToken"))
                    == Some(&Value::from(token.as_str()))
        }
        _ => false,
    };
    let n = w.session()?.notifications.iter().filter(|m| under(m)).count();
    let expected = format!("the task's notifications/progress under the call's token {token:?}");
    if n == 0 {
        w.inconclusive(expected, "no progress under the token (a receiver MAY send none)");
    } else {
        w.check(true, expected, format!("{n} progress notification(s) under the token"));
    }
    Ok(())
}

/// The answers to repeated task-augmented calls: each a `CreateTaskResult` with a well-formed
/// task, working. Their ids are kept for the steps that follow.
#[then(regex = r"^the server creates (\d+) tasks(, no two with the same id| whose ids cannot be guessed)?$")]
async fn creates_tasks(w: &mut ServerWorld, n: String, how: String) -> Result<(), Halt> {
    let n: usize = n.parse().unwrap_or(1);
    let expected = match how.as_str() {
        "" => format!("{n} CreateTaskResults, each a well-formed task, working"),
        ", no two with the same id" => format!("{n} tasks, each with an id of its own"),
        _ => format!(
            "{n} tasks whose ids carry at least {:.0} bits a guesser cannot know (mcpspec's session \
             holds no authorization context to bind tasks to)",
            mcpspec_protocol::tasks::MIN_TASK_ID_BITS
        ),
    };
    w.tasks.clear();
    for i in 1..=n {
        let r = w.await_answer().await?;
        let Outcome::Result(result) = &r.outcome else {
            return Err(w.fail(expected, format!("call {i}: {}", outcome_text(&r))));
        };
        let task = result.get("task").cloned().unwrap_or(Value::Null);
        let mut problems = task_problems(&task);
        if task.get("status").and_then(Value::as_str) != Some(TaskStatus::Working.as_str()) {
            problems.push(format!("status is {}, where a new task is working", task["status"]));
        }
        if !problems.is_empty() {
            return Err(w.fail(expected, format!("call {i}: {}", problems.join("; "))));
        }
        w.tasks.push(task["taskId"].as_str().unwrap_or_default().to_owned());
    }
    let ids: Vec<&str> = w.tasks.iter().map(String::as_str).collect();
    let listed = ids.join(", ");
    match how.as_str() {
        ", no two with the same id" => {
            let mut seen = std::collections::HashSet::new();
            match ids.iter().find(|id| !seen.insert(**id)) {
                Some(twice) => return Err(w.fail(expected, format!("the id {twice:?} twice among {listed}"))),
                None => w.check(true, expected, format!("ids {listed}")),
            }
        }
        "" => w.check(true, expected, format!("ids {listed}")),
        _ => match guessable_ids(&ids) {
            Some(why) => return Err(w.fail(expected, format!("{why} (ids {listed})"))),
            None => w.check(true, expected, format!("ids {listed}")),
        },
    }
    w.task = w.tasks.first().cloned();
    Ok(())
}

/// A `CreateTaskResult` (tasks.mdx#creating-tasks): a well-formed task, working (a new task
/// MUST start in `working`, #task-status-lifecycle). Its id is kept for the steps that follow.
#[then("the server creates a task, working")]
async fn creates_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let expected =
        "a CreateTaskResult: a task whose id is a string, working, with createdAt, lastUpdatedAt and ttl";
    let r = w.await_answer().await?;
    let Outcome::Result(result) = &r.outcome else { return Err(w.fail(expected, outcome_text(&r))) };
    let Some(task) = result.get("task") else {
        return Err(w.fail(expected, format!("a result without task: {}", shorten(result))));
    };
    let mut problems = task_problems(task);
    if task.get("status").and_then(Value::as_str) != Some(TaskStatus::Working.as_str()) {
        problems.push(format!("status is {}, where a new task is working", task["status"]));
    }
    if !problems.is_empty() {
        return Err(w.fail(expected, problems.join("; ")));
    }
    w.task = task.get("taskId").and_then(Value::as_str).map(str::to_owned);
    w.check(true, expected, format!("task {}", shorten(task)));
    Ok(())
}

fn task_id(w: &mut ServerWorld) -> Result<String, Halt> {
    match w.task.clone() {
        Some(id) => Ok(id),
        None => Err(w.harness_error("no task created (a Then step is missing)".into())),
    }
}

/// A call as a task whose `task` proposes an id of the requestor's choosing.
#[when(regex = r#"^the client calls the tool as a task, proposing the task id "([^"]+)"$"#)]
async fn calls_as_task_proposing(w: &mut ServerWorld, proposed: String) -> Result<(), Halt> {
    let mut params = call_params(w, true)?;
    params["task"]["taskId"] = proposed.into();
    w.send_request("tools/call", Some(params)).await.map(drop)
}

/// tasks.mdx#task-id-requirements: the receiver generates the id when it creates the task; an
/// id the requestor proposed is no id of the receiver's making. A server that refuses the call
/// for its unknown member, or creates no task, leaves nothing to judge.
#[then(regex = r#"^the server creates a task whose id is its own, not "([^"]+)"$"#)]
async fn creates_task_own_id(w: &mut ServerWorld, proposed: String) -> Result<(), Halt> {
    let expected = format!("a task whose id the server generated, not the {proposed:?} the client proposed");
    let r = w.await_answer().await?;
    let id = match &r.outcome {
        Outcome::Result(result) => result.pointer("/task/taskId").cloned(),
        Outcome::Error(_) => None,
    };
    match id {
        None => w.inconclusive(expected, format!("no task was created: {}", outcome_text(&r))),
        Some(id) => {
            let own = id.as_str() != Some(proposed.as_str());
            w.task = id.as_str().map(str::to_owned);
            w.check(own, expected, format!("task id {id}"));
        }
    }
    Ok(())
}

#[when("the client gets the task")]
async fn gets_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    w.send_request("tasks/get", Some(json!({ "taskId": id }))).await.map(drop)
}

/// tasks/get whose related-task `_meta` names another task than its `taskId` does (requestors
/// SHOULD NOT send it; receivers MUST go by the parameter: #associating-task-related-messages).
#[when("the client gets the task, its _meta naming another task")]
async fn gets_task_misleading_meta(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    let params = json!({ "taskId": id, "_meta": { RELATED_TASK_META: { "taskId": OTHER_TASK } } });
    w.send_request("tasks/get", Some(params)).await.map(drop)
}

#[when("the client asks for the task's result")]
async fn asks_result(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    w.send_request("tasks/result", Some(json!({ "taskId": id }))).await.map(drop)
}

#[when("the client cancels the task")]
async fn cancels_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    w.send_request("tasks/cancel", Some(json!({ "taskId": id }))).await.map(drop)
}

/// tasks/get (tasks.mdx#getting-tasks): the task asked for, well formed, with its actual `ttl`
/// (or null: #ttl-and-resource-management, MUST).
#[then("the server answers with the task")]
async fn answers_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    let expected = format!("the task {id}: well formed, its ttl included");
    let r = w.await_answer().await?;
    let Outcome::Result(task) = &r.outcome else { return Err(w.fail(expected, outcome_text(&r))) };
    let mut problems = task_problems(task);
    if task.get("taskId").and_then(Value::as_str) != Some(id.as_str()) {
        problems.push(format!("taskId is {}", task["taskId"]));
    }
    if task.get("ttl").is_none() {
        problems.push("no ttl (null would say unlimited)".into());
    }
    w.check(
        problems.is_empty(),
        expected,
        if problems.is_empty() { shorten(task) } else { problems.join("; ") },
    );
    Ok(())
}

/// tasks/result (tasks.mdx#result-retrieval): the tool's own answer once the task is over (a
/// `CallToolResult`, or the call's JSON-RPC error), its `_meta` naming the task
/// (#associating-task-related-messages, MUST).
#[then("the server answers with the tool's answer, naming the task")]
async fn answers_tool_answer(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    let expected = format!("the tool's CallToolResult, its _meta naming the task {id}");
    let r = w.await_answer().await?;
    match &r.outcome {
        Outcome::Result(result) => {
            let mut problems = Vec::new();
            if !result.get("content").is_some_and(Value::is_array) {
                problems.push(format!("not a CallToolResult (no content): {}", shorten(result)));
            }
            match related_task(result) {
                Some(named) if named == id => {}
                Some(other) => problems.push(format!("_meta names the task {other:?}")),
                None => problems.push("_meta names no related task".into()),
            }
            let ok = problems.is_empty();
            w.check(ok, expected, if ok { shorten(result) } else { problems.join("; ") });
        }
        // The call's own error is what tasks/result must give for a failed call; the scenario
        // then proves nothing about the related-task metadata.
        Outcome::Error(e) => {
            w.inconclusive(expected, format!("error {}: {} (the tool's call failed)", e.code, e.message))
        }
    }
    Ok(())
}

#[then("the listing holds every task created")]
async fn listing_holds_every_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let expected = format!(
        "tasks/list, page after page (nextCursor while more remain), holds each of the {} tasks created",
        w.tasks.len()
    );
    let Some(listing) = w.listing.clone() else {
        return Err(w.harness_error("no listing (a When step is missing)".into()));
    };
    if let Some(why) = &listing.unfinished {
        return Err(w.fail(expected, format!("the listing did not end: {why}")));
    }
    let listed: std::collections::HashSet<String> = listing
        .items
        .iter()
        .filter_map(|t| t.member("taskId").and_then(|id| id.as_str().map(str::to_owned)))
        .collect();
    let missing: Vec<&String> = w.tasks.iter().filter(|id| !listed.contains(id.as_str())).collect();
    let actual = format!(
        "{} task(s) in {} page(s){}",
        listing.items.len(),
        listing.pages,
        match missing.len() {
            0 => String::new(),
            n => format!(
                "; the last page had no nextCursor, and {n} created task(s) were never listed (e.g. {})",
                missing[0]
            ),
        }
    );
    w.check(missing.is_empty(), expected, actual);
    Ok(())
}

/// tasks/get, again and again, from the task's creation to its end (tasks.mdx#getting-tasks,
/// at the pace its `pollInterval` asks, within bounds): each status follows the lifecycle, and
/// once terminal the task keeps that status for [`READS_AFTER_END`] more reads
/// (#task-status-lifecycle). A task that needs input, or does not end in time, proves nothing.
#[then("tasks/get follows the task to its end, which is final")]
async fn follows_to_end(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    let expected = format!(
        "task {id}: statuses along the lifecycle to a terminal one, kept for {READS_AFTER_END} more reads"
    );
    let started = tokio::time::Instant::now();
    let mut seen: Vec<TaskStatus> = vec![TaskStatus::Working];
    let mut after_end = 0;
    loop {
        let r = w.call("tasks/get", Some(json!({ "taskId": id }))).await?;
        let task = match &r.outcome {
            Outcome::Result(task) => task.clone(),
            // Once over, a task MAY be deleted (its ttl may have been overridden, a cancelled
            // one at any time): gone is not a new status.
            Outcome::Error(e) if after_end > 0 && e.code == -32602 => {
                let actual = format!("{}, then gone (error {}: {})", trail(&seen), e.code, e.message);
                w.check(true, &expected, actual);
                return Ok(());
            }
            Outcome::Error(e) => {
                return Err(w.fail(&expected, format!("tasks/get: error {}: {}", e.code, e.message)))
            }
        };
        let Some(status) = task.get("status").and_then(Value::as_str).and_then(TaskStatus::parse) else {
            return Err(w.fail(&expected, format!("tasks/get answered status {}", task["status"])));
        };
        let last = *seen.last().expect("working, at least");
        seen.push(status);
        if !last.may_become(status) {
            return Err(w.fail(&expected, format!("tasks/get said {}", trail(&seen))));
        }
        if status == TaskStatus::InputRequired {
            w.inconclusive(&expected, format!("{}: the task needs input", trail(&seen)));
            return Ok(());
        }
        if status.is_terminal() {
            after_end += 1;
            if after_end > READS_AFTER_END {
                w.check(true, &expected, format!("{}, over {} reads", trail(&seen), seen.len() - 1));
                return Ok(());
            }
        }
        if started.elapsed() > FOLLOW_AT_MOST {
            w.inconclusive(
                &expected,
                format!("still {} after {} s", status.as_str(), FOLLOW_AT_MOST.as_secs()),
            );
            return Ok(());
        }
        let interval = task.get("pollInterval").and_then(Value::as_u64).map(Duration::from_millis);
        let pause = interval.unwrap_or(Duration::from_millis(200)).clamp(POLL_AT_LEAST, POLL_AT_MOST);
        tokio::time::sleep(if status.is_terminal() { POLL_AT_LEAST } else { pause }).await;
    }
}

/// The statuses a task went through, each once: `working → completed`.
fn trail(seen: &[TaskStatus]) -> String {
    let mut names: Vec<&str> = seen.iter().map(|s| s.as_str()).collect();
    names.dedup();
    names.join(" → ")
}

/// tasks/result gives exactly what the call gives without a task (tasks.mdx#result-retrieval):
/// the tool is called plainly twice, to learn whether its answers are stable at all, and as a
/// task, and the task's result is compared with the plain answer, `_meta` aside (the related-task
/// key is the task's to add). A tool whose plain answers differ proves nothing.
/// tasks.mdx#result-retrieval and #task-execution-errors: tasks/result answers exactly what the
/// call would have without a task, a result or the same JSON-RPC error. With arguments the
/// tool's input schema refuses, the call fails (an error, or a result with `isError`); a server
/// that refuses such a call before creating a task leaves nothing to compare.
#[then(
    regex = r"^the task's result(, for arguments its input schema refuses,)? is what a plain call of the tool answers$"
)]
async fn result_as_plain(w: &mut ServerWorld, refused: String) -> Result<(), Halt> {
    let refused = !refused.is_empty();
    let expected = match refused {
        false => "tasks/result: the plain call's answer (_meta aside)",
        true => "tasks/result: the plain call's answer to the same refused arguments, the same JSON-RPC error or result",
    };
    let arguments = match refused {
        false => None,
        true => {
            let schema =
                w.subject.as_ref().and_then(|t| t.get("inputSchema")).cloned().unwrap_or(Value::Null);
            match mcpspec_protocol::arguments::refused_object(&schema) {
                Some(a) => Some(a),
                None => {
                    return Err(
                        w.skip("the tool's inputSchema declares no typed property to get wrong".into())
                    )
                }
            }
        }
    };
    let with_arguments = |mut params: Value| {
        if let Some(a) = &arguments {
            params["arguments"] = a.clone();
        }
        params
    };
    // The three calls go out at once and are awaited in turn: a slow tool costs the scenario
    // one call's time, not three (issue #31). Which answer is which goes by id.
    let plain = with_arguments(call_params(w, false)?);
    let as_task = with_arguments(call_params(w, true)?);
    w.send_request("tools/call", Some(plain.clone())).await?;
    w.send_request("tools/call", Some(plain)).await?;
    w.send_request("tools/call", Some(as_task)).await?;
    let first = Arc::unwrap_or_clone(w.await_answer().await?).outcome;
    let second = Arc::unwrap_or_clone(w.await_answer().await?).outcome;
    let created = w.await_answer().await?;
    if comparable(&first) != comparable(&second) {
        w.inconclusive(expected, "two plain calls with the same arguments answered differently");
        return Ok(());
    }
    let id = match &created.outcome {
        Outcome::Result(r) => r.pointer("/task/taskId").and_then(Value::as_str).map(str::to_owned),
        Outcome::Error(_) => None,
    };
    let Some(id) = id else {
        let actual = format!("the call as a task: {}", outcome_text(&created));
        if refused && matches!(created.outcome, Outcome::Error(_)) {
            w.inconclusive(expected, format!("{actual}; refused before any task was created"));
            return Ok(());
        }
        return Err(w.fail(expected, actual));
    };
    let answer = Arc::unwrap_or_clone(w.call("tasks/result", Some(json!({ "taskId": id }))).await?).outcome;
    let same = comparable(&answer) == comparable(&first);
    let actual = if same {
        format!("the same answer: {}", shorten(&comparable(&answer)))
    } else {
        format!("plain {}; task {}", shorten(&comparable(&first)), shorten(&comparable(&answer)))
    };
    w.check(same, expected, actual);
    Ok(())
}

/// An answer as tasks/result must repeat it: a result without `_meta`, or an error's code and
/// message.
fn comparable(outcome: &Outcome) -> Value {
    match outcome {
        Outcome::Result(Value::Object(o)) => Value::Object(
            o.iter().filter(|(k, _)| *k != "_meta").map(|(k, v)| (k.clone(), v.clone())).collect(),
        ),
        Outcome::Result(other) => other.clone(),
        Outcome::Error(e) => json!({ "error": { "code": e.code, "message": e.message } }),
    }
}

/// A server that did not declare tasks for tools/call processes a task-augmented call normally,
/// ignoring `task` (tasks.mdx#task-support-and-handling): the answer is the kind a plain call of
/// the tool gets (a result, or an error with the same code), never a `CreateTaskResult`.
#[then("the server answers as a plain call of the tool, with no task")]
async fn answers_as_plain(w: &mut ServerWorld) -> Result<(), Halt> {
    let expected = "the answer a plain call gets (task ignored): a CallToolResult, or the same error";
    let r = w.await_answer().await?;
    let params = call_params(w, false)?;
    let plain = w.call("tools/call", Some(params)).await?;
    let created = match &r.outcome {
        Outcome::Result(v) if v.get("task").is_some() && v.get("content").is_none() => {
            Some(shorten(&v["task"]))
        }
        _ => None,
    };
    let ok = match (&r.outcome, &plain.outcome) {
        _ if created.is_some() => false,
        (Outcome::Result(_), Outcome::Result(_)) => true,
        (Outcome::Error(a), Outcome::Error(b)) => a.code == b.code,
        _ => false,
    };
    let actual = match created {
        Some(task) => {
            format!("a CreateTaskResult, though tools/call is not in tasks.requests: the task {task}")
        }
        None => format!("as a task: {}; plainly: {}", outcome_text(&r), outcome_text(&plain)),
    };
    w.check(ok, expected, actual);
    Ok(())
}

#[then("the listing holds the task")]
async fn listing_holds_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    let expected = format!("tasks/list, to its end, holds the task {id}, which tasks/get returns");
    let Some(listing) = w.listing.clone() else {
        return Err(w.harness_error("no listing (a When step is missing)".into()));
    };
    if let Some(why) = &listing.unfinished {
        return Err(w.fail(expected, format!("the listing did not end: {why}")));
    }
    let held =
        listing.items.iter().any(|t| t.member("taskId").is_some_and(|t| t.as_str() == Some(id.as_str())));
    let actual = format!(
        "{} task(s) in {} page(s), {}",
        listing.items.len(),
        listing.pages,
        if held { "the task among them" } else { "the task not among them" }
    );
    w.check(held, expected, actual);
    Ok(())
}

/// tasks/cancel of a working task (tasks.mdx#task-cancellation): the answer says cancelled (the
/// task is marked before the answer, MUST), and tasks/get says so for as long as the test
/// watches, past the end of the tool's work (a cancelled task MUST stay cancelled). A task that
/// ended before the cancel arrived proves nothing.
#[then("the task is cancelled, and stays cancelled")]
async fn cancelled_stays(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    let expected =
        format!("tasks/cancel answered with the task {id} cancelled, and tasks/get saying cancelled after");
    let r = w.await_answer().await?;
    let task = match &r.outcome {
        Outcome::Result(task) => task.clone(),
        Outcome::Error(e) if e.code == -32602 => {
            w.inconclusive(
                expected,
                format!("error {}: {} (the task was over before the cancel came)", e.code, e.message),
            );
            return Ok(());
        }
        Outcome::Error(_) => return Err(w.fail(expected, outcome_text(&r))),
    };
    if task.get("status").and_then(Value::as_str) != Some(TaskStatus::Cancelled.as_str()) {
        return Err(w.fail(expected, format!("tasks/cancel answered status {}", task["status"])));
    }
    let started = tokio::time::Instant::now();
    let mut looks = 0;
    while started.elapsed() < WATCH_CANCELLED {
        tokio::time::sleep(WATCH_STEP).await;
        let r = w.call("tasks/get", Some(json!({ "taskId": id }))).await?;
        looks += 1;
        let status = match &r.outcome {
            Outcome::Result(t) => t.get("status").cloned().unwrap_or(Value::Null),
            // A receiver MAY delete a cancelled task at any time (#task-cancellation).
            Outcome::Error(e) if e.code == -32602 => break,
            Outcome::Error(_) => return Err(w.fail(expected, format!("tasks/get: {}", outcome_text(&r)))),
        };
        if status != TaskStatus::Cancelled.as_str() {
            let after = started.elapsed().as_millis();
            return Err(w.fail(expected, format!("tasks/get said {status} {after} ms after the cancel")));
        }
    }
    w.check(
        true,
        expected,
        format!(
            "cancelled, and still cancelled at each of {looks} look(s) over {} ms",
            WATCH_CANCELLED.as_millis()
        ),
    );
    Ok(())
}

fn shorten(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text,
    }
}
