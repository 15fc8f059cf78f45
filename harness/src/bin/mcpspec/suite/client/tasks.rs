//! Steps of the client task scenarios (`scenarios/client/tasks.feature`, 2025-11-25's
//! experimental tasks, the client as requestor): judged on what the client sent and the scenario
//! server answered, once the client is done or idle. A client that did not do what a scenario
//! needs (call the tool, create a task, cancel it) is skipped, never passed.

use super::{ClientWorld, Halt};
use crate::suite::scenario::Scenario as _;
use cucumber::then;
use mcpspec_protocol::tasks::TaskStatus;
use serde_json::Value;

/// A task the client created: the id of its tool call, the tool, and the task's id.
#[derive(Debug, PartialEq)]
struct Created {
    call: Value,
    tool: String,
    task: String,
}

fn method(v: &Value) -> Option<&str> {
    v.get("method").and_then(Value::as_str)
}

/// The client's `tools/call` requests.
fn tool_calls(received: &[Value]) -> impl Iterator<Item = &Value> {
    received.iter().filter(|v| method(v) == Some("tools/call") && v.get("id").is_some())
}

fn augmented(call: &Value) -> bool {
    call.pointer("/params/task").is_some_and(Value::is_object)
}

/// The answer the scenario server sent to the client's request `id`.
fn answer<'a>(sent: &'a [Value], id: &Value) -> Option<&'a Value> {
    sent.iter().find(|v| method(v).is_none() && v.get("id") == Some(id))
}

/// The tasks the client's task-augmented tool calls created, in order.
fn created(received: &[Value], sent: &[Value]) -> Vec<Created> {
    tool_calls(received)
        .filter(|c| augmented(c))
        .filter_map(|c| {
            let task = answer(sent, &c["id"])?.pointer("/result/task/taskId")?.as_str()?.to_owned();
            let tool = c.pointer("/params/name").and_then(Value::as_str).unwrap_or_default().to_owned();
            Some(Created { call: c["id"].clone(), tool, task })
        })
        .collect()
}

/// The client's requests of `name` naming the task `task` in `params.taskId`.
fn task_requests<'a>(received: &'a [Value], name: &'a str, task: &'a str) -> impl Iterator<Item = &'a Value> {
    received.iter().filter(move |v| {
        method(v) == Some(name) && v.pointer("/params/taskId").and_then(Value::as_str) == Some(task)
    })
}

/// tasks.mdx#task-status-notification: whether the client got the outcome of `task` by asking
/// for it (tasks/result, or tasks/get until a terminal status), when no status notification
/// came: `Ok` with what it did, `Err` with what it did instead.
fn fetched(received: &[Value], sent: &[Value], task: &str) -> Result<String, String> {
    if task_requests(received, "tasks/result", task).next().is_some() {
        return Ok(format!("tasks/result for task {task:?}"));
    }
    let gets: Vec<&Value> = task_requests(received, "tasks/get", task).collect();
    let terminal = gets.iter().any(|g| {
        let status = answer(sent, &g["id"]).and_then(|a| a.pointer("/result/status")).and_then(Value::as_str);
        status.and_then(TaskStatus::parse).is_some_and(TaskStatus::is_terminal)
    });
    match (terminal, gets.len()) {
        (true, n) => Ok(format!("{n} tasks/get for task {task:?}, the last one terminal")),
        (false, 0) => Err(format!("no tasks/get and no tasks/result for task {task:?}")),
        (false, n) => {
            Err(format!("{n} tasks/get for task {task:?}, never to a terminal status, and no tasks/result"))
        }
    }
}

#[then(regex = r#"^the client called the tool "([^"]+)" as a task$"#)]
async fn called_as_task(w: &mut ClientWorld, tool: String) -> Result<(), Halt> {
    let received = w.session()?.received.clone();
    let calls: Vec<&Value> = tool_calls(&received)
        .filter(|c| c.pointer("/params/name").and_then(Value::as_str) == Some(&tool))
        .collect();
    if calls.is_empty() {
        return Err(w.skip(format!("the client did not call the tool {tool:?}")));
    }
    let plain = calls.iter().filter(|c| !augmented(c)).count();
    let actual = match plain {
        0 => format!("{} call(s) of {tool:?}, each carrying task", calls.len()),
        n => format!("{n} of {} call(s) of {tool:?} without task", calls.len()),
    };
    w.check(plain == 0, format!("every tools/call of {tool:?} carrying task"), actual);
    Ok(())
}

#[then("the client fetched its task's result, though no status notification came")]
async fn fetched_without_notification(w: &mut ClientWorld) -> Result<(), Halt> {
    let session = w.session()?;
    let received = session.received.clone();
    let sent: Vec<Value> = session.sent.iter().map(|(_, v)| v.clone()).collect();
    let Some(first) = created(&received, &sent).into_iter().next() else {
        return Err(w.skip("the client created no task".into()));
    };
    let notified = sent.iter().any(|v| {
        method(v) == Some("notifications/tasks/status")
            && v.pointer("/params/taskId").and_then(Value::as_str) == Some(first.task.as_str())
    });
    if notified {
        return Err(
            w.skip(format!("the scenario server sent a status notification for task {:?}", first.task))
        );
    }
    let expected = format!(
        "the outcome of task {:?} (of {:?}) asked for with tasks/result or tasks/get, no status notification having come",
        first.task, first.tool
    );
    let (ok, actual) = match fetched(&received, &sent, &first.task) {
        Ok(did) => (true, did),
        Err(did) => (false, did),
    };
    w.check(ok, expected, actual);
    Ok(())
}

#[then("the client cancelled its task with tasks/cancel")]
async fn cancelled_with_tasks_cancel(w: &mut ClientWorld) -> Result<(), Halt> {
    let session = w.session()?;
    let received = session.received.clone();
    let sent: Vec<Value> = session.sent.iter().map(|(_, v)| v.clone()).collect();
    let Some(first) = created(&received, &sent).into_iter().next() else {
        return Err(w.skip("the client created no task".into()));
    };
    let by_notification = received.iter().any(|v| {
        method(v) == Some("notifications/cancelled") && v.pointer("/params/requestId") == Some(&first.call)
    });
    let by_tasks_cancel = task_requests(&received, "tasks/cancel", &first.task).next().is_some();
    let expected = format!("task {:?} cancelled with tasks/cancel", first.task);
    match (by_tasks_cancel, by_notification) {
        (false, false) => Err(w.skip(format!("the client did not cancel its task {:?}", first.task))),
        (true, false) => {
            w.check(true, expected, "tasks/cancel naming it");
            Ok(())
        }
        (_, true) => {
            let actual = format!("notifications/cancelled naming its tools/call {}", first.call);
            w.check(false, expected, actual);
            Ok(())
        }
    }
}

/// tasks.mdx#task-listing: requestors treat cursors as opaque; each cursor of the client's
/// tasks/list requests is a `nextCursor` the scenario server gave, unchanged. A client that
/// never asked for a second page is skipped.
#[then("the client listed its tasks page by page, each cursor as the server gave it")]
async fn task_cursors_as_given(w: &mut ClientWorld) -> Result<(), Halt> {
    let session = w.session()?;
    let received = session.received.clone();
    let sent: Vec<Value> = session.sent.iter().map(|(_, v)| v.clone()).collect();
    let (given, sent_back) = task_cursors(&received, &sent);
    if sent_back.is_empty() {
        return Err(w.skip("the client asked for no second page of tasks/list".into()));
    }
    let astray: Vec<String> = sent_back.iter().filter(|c| !given.contains(c)).map(Value::to_string).collect();
    let actual = match astray.is_empty() {
        true => format!("{} page(s) after the first, each with a cursor as given", sent_back.len()),
        false => format!("tasks/list with cursor(s) no tasks/list result gave: {}", astray.join(", ")),
    };
    w.check(astray.is_empty(), "each tasks/list cursor a nextCursor the server gave, unchanged", actual);
    Ok(())
}

/// The `nextCursor`s the scenario server's tasks/list results gave, and the cursors of the
/// client's tasks/list requests.
fn task_cursors(received: &[Value], sent: &[Value]) -> (Vec<Value>, Vec<Value>) {
    let lists: Vec<&Value> =
        received.iter().filter(|v| method(v) == Some("tasks/list") && v.get("id").is_some()).collect();
    let given = lists
        .iter()
        .filter_map(|l| {
            answer(sent, &l["id"])?.pointer("/result/nextCursor").filter(|c| !c.is_null()).cloned()
        })
        .collect();
    let sent_back =
        lists.iter().filter_map(|l| l.pointer("/params/cursor").filter(|c| !c.is_null()).cloned()).collect();
    (given, sent_back)
}

#[then("the client called no tool as a task")]
async fn no_tool_as_task(w: &mut ClientWorld) -> Result<(), Halt> {
    let received = w.session()?.received.clone();
    let calls: Vec<&Value> = tool_calls(&received).collect();
    if calls.is_empty() {
        return Err(w.skip("the client called no tool".into()));
    }
    let as_tasks: Vec<String> = calls
        .iter()
        .filter(|c| augmented(c))
        .map(|c| c.pointer("/params/name").map_or("?".into(), Value::to_string))
        .collect();
    let actual = match as_tasks.is_empty() {
        true => format!("{} tool call(s), none carrying task", calls.len()),
        false => format!("tools/call carrying task: {}", as_tasks.join(", ")),
    };
    w.check(
        as_tasks.is_empty(),
        "no tools/call carrying task (the server declared no tasks.requests.tools.call)",
        actual,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request(id: u64, method: &str, params: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
    }

    fn result(id: u64, result: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "result": result })
    }

    #[test]
    fn a_task_is_fetched_by_tasks_result_or_a_terminal_tasks_get() {
        let call = request(1, "tools/call", json!({ "name": "t", "task": {} }));
        let created_t1 = result(1, json!({ "task": { "taskId": "t1", "status": "working" } }));
        let get = request(2, "tasks/get", json!({ "taskId": "t1" }));
        let working = result(2, json!({ "taskId": "t1", "status": "working" }));
        let done = result(2, json!({ "taskId": "t1", "status": "completed" }));
        let sent = [created_t1.clone()];
        assert_eq!(
            created(std::slice::from_ref(&call), &sent),
            [Created { call: json!(1), tool: "t".into(), task: "t1".into() }]
        );
        assert!(fetched(std::slice::from_ref(&call), &sent, "t1").is_err());
        assert!(fetched(&[call.clone(), get.clone()], &[created_t1.clone(), working], "t1").is_err());
        assert!(fetched(&[call.clone(), get], &[created_t1.clone(), done], "t1").is_ok());
        let asked = request(3, "tasks/result", json!({ "taskId": "t1" }));
        assert!(fetched(&[call.clone(), asked], &sent, "t1").is_ok());
        // A plain call, or one answered without a task, created none.
        assert!(created(&[request(1, "tools/call", json!({ "name": "t" }))], &sent).is_empty());
        assert!(created(&[call], &[result(1, json!({ "content": [] }))]).is_empty());
    }
}
