//! Steps of the task scenarios (`scenarios/server/tasks.feature`, 2025-11-25's experimental
//! tasks): picking a tool by its `execution.taskSupport`, calling it as a task, and reading,
//! waiting for, listing and cancelling the task. What a task object must hold is
//! `mcpspec_protocol::tasks`' to say.

use super::given::find;
use super::{outcome_text, Halt, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec_protocol::arguments::example_object;
use mcpspec_protocol::tasks::{related_task, task_problems, TaskStatus, TaskSupport};
use mcpspec_protocol::wire::Outcome;
use serde_json::{json, Value};
use std::time::Duration;

/// The lifetime a task-augmented call asks for (tasks.mdx#creating-tasks: a requestor MAY).
const REQUESTED_TTL_MS: u64 = 60_000;

/// How long "stays cancelled" watches a cancelled task, and how often it looks.
const WATCH_CANCELLED: Duration = Duration::from_millis(1_500);
const WATCH_STEP: Duration = Duration::from_millis(500);

#[given(regex = r"^the server lists a tool that (may|must|may not) run as a task$")]
async fn lists_task_tool(w: &mut ServerWorld, how: String) -> Result<(), Halt> {
    let wanted = |t: &Value| {
        matches!(
            (how.as_str(), TaskSupport::of_tool(t)),
            ("may", TaskSupport::Optional | TaskSupport::Required)
                | ("must", TaskSupport::Required)
                | ("may not", TaskSupport::Forbidden)
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

#[when("the client calls the tool as a task")]
async fn calls_as_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(tool) = w.subject.clone() else {
        return Err(w.harness_error("no tool picked (a Given step is missing)".into()));
    };
    let arguments = example_object(tool.get("inputSchema").unwrap_or(&Value::Null));
    let params = json!({ "name": tool["name"], "arguments": arguments, "task": { "ttl": REQUESTED_TTL_MS } });
    w.send_request("tools/call", Some(params)).await.map(drop)
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

#[when("the client gets the task")]
async fn gets_task(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = task_id(w)?;
    w.send_request("tasks/get", Some(json!({ "taskId": id }))).await.map(drop)
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
    let held = listing.items.iter().any(|t| t.get("taskId").and_then(Value::as_str) == Some(id.as_str()));
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
