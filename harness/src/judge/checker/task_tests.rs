//! The checker's task rules (2025-11-25): the status lifecycle, related-task `_meta` in the task
//! methods' messages, and tasks only for declared request types.

use super::tests::{ids, C2S, S2C};
use super::*;
use serde_json::json;

fn session(server_caps: Value, revision: Revision) -> SessionChecker {
    let v = revision.as_str();
    let mut c = SessionChecker::new(revision);
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":v,"capabilities":{}}}));
    c.on_value(
        S2C,
        &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":v,"capabilities":server_caps}}),
    );
    c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    c
}

fn tasks_server() -> SessionChecker {
    session(json!({"tools":{},"tasks":{"list":{},"requests":{"tools":{"call":{}}}}}), Revision::V2025_11_25)
}

fn task(status: &str) -> Value {
    json!({"taskId":"t1","status":status,"createdAt":"2025-11-25T10:30:00Z","lastUpdatedAt":"2025-11-25T10:30:00Z","ttl":null})
}

/// The client sends `method` with `params` as request `id`; the server answers `result`.
fn exchange(
    c: &mut SessionChecker,
    id: u64,
    method: &str,
    params: Value,
    result: Value,
) -> Vec<&'static str> {
    let mut out = ids(&c.on_value(C2S, &json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})));
    out.extend(ids(&c.on_value(S2C, &json!({"jsonrpc":"2.0","id":id,"result":result}))));
    out
}

#[test]
fn a_terminal_status_is_final() {
    let mut c = tasks_server();
    let call = json!({"name":"slow","task":{"ttl":1000}});
    assert!(exchange(&mut c, 1, "tools/call", call, json!({"task":task("working")})).is_empty());
    let get = json!({"taskId":"t1"});
    assert!(exchange(&mut c, 2, "tasks/get", get.clone(), task("input_required")).is_empty());
    assert!(exchange(&mut c, 3, "tasks/get", get.clone(), task("working")).is_empty());
    assert!(exchange(&mut c, 4, "tasks/get", get.clone(), task("completed")).is_empty());
    assert!(exchange(&mut c, 5, "tasks/list", json!({}), json!({"tasks":[task("completed")]})).is_empty());
    assert_eq!(exchange(&mut c, 6, "tasks/get", get, task("working")), ["tasks/status-lifecycle"]);
}

#[test]
fn a_new_task_is_working() {
    let mut c = tasks_server();
    let call = json!({"name":"slow","task":{}});
    assert_eq!(
        exchange(&mut c, 1, "tools/call", call, json!({"task":task("completed")})),
        ["tasks/status-lifecycle"]
    );
}

#[test]
fn task_methods_carry_no_related_task_meta() {
    let mut c = tasks_server();
    let meta = json!({"io.modelcontextprotocol/related-task":{"taskId":"t1"}});
    let mut with_meta = task("working");
    with_meta["_meta"] = meta.clone();
    assert_eq!(
        exchange(&mut c, 1, "tasks/get", json!({"taskId":"t1"}), with_meta),
        ["tasks/no-related-meta-in-task-messages"]
    );
    let request = json!({"taskId":"t1","_meta":meta});
    assert_eq!(
        exchange(&mut c, 2, "tasks/cancel", request, task("cancelled")),
        ["tasks/no-related-meta-in-task-messages"]
    );
    let mut status = task("cancelled");
    status["_meta"] = meta.clone();
    let note = json!({"jsonrpc":"2.0","method":"notifications/tasks/status","params":status});
    assert_eq!(ids(&c.on_value(S2C, &note)), ["tasks/no-related-meta-in-task-messages"]);
    // tasks/result's answer MUST carry it.
    let result = json!({"content":[],"_meta":meta});
    assert!(exchange(&mut c, 3, "tasks/result", json!({"taskId":"t1"}), result).is_empty());
}

#[test]
fn tasks_only_for_declared_request_types() {
    let mut c = session(json!({"tools":{},"tasks":{"list":{}}}), Revision::V2025_11_25);
    let call = json!({"name":"slow","task":{}});
    assert_eq!(
        exchange(&mut c, 1, "tools/call", call.clone(), json!({"task":task("working")})),
        // The client's call breaks a rule of its own (whose messages count, the caller decides).
        ["tasks/client-tools-call-capability", "tasks/capability-declared"]
    );
    // An answer that ignores `task` is what such a server owes.
    assert_eq!(
        exchange(&mut c, 2, "tools/call", call.clone(), json!({"content":[]})),
        ["tasks/client-tools-call-capability"]
    );
    // Before 2025-11-25 there are no tasks to judge.
    let mut old = session(json!({"tools":{}}), Revision::V2025_06_18);
    assert!(exchange(&mut old, 1, "tools/call", call, json!({"task":task("completed")})).is_empty());
}

#[test]
fn a_tasks_progress_goes_on_under_its_token_until_the_task_ends() {
    let mut c = tasks_server();
    let progress = |p: u32| json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p1","progress":p}});
    let call = json!({"name":"slow","task":{},"_meta":{"progressToken":"p1"}});
    assert!(exchange(&mut c, 1, "tools/call", call, json!({"task":task("working")})).is_empty());
    // After the CreateTaskResult, the token is still the task's.
    assert!(ids(&c.on_value(S2C, &progress(1))).is_empty());
    assert!(!c.is_quiet(), "a task's progress is in flight");
    let result = json!({"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":"t1"}}});
    assert!(exchange(&mut c, 2, "tasks/result", json!({"taskId":"t1"}), result).is_empty());
    assert_eq!(ids(&c.on_value(S2C, &progress(2))), ["progress/task-stops-at-terminal"]);
    assert!(c.is_quiet());
    // A plain call's token ends with its answer, as before.
    let plain = json!({"name":"slow","_meta":{"progressToken":"p2"}});
    assert!(exchange(&mut c, 3, "tools/call", plain, json!({"content":[]})).is_empty());
    let late = json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p2","progress":1}});
    assert_eq!(ids(&c.on_value(S2C, &late)), ["progress/stops-after-completion"]);
}

/// A tools/list answer listing `slow` (optional), `only` (required), `plain` (nothing said) and
/// `never` (forbidden).
fn listed(c: &mut SessionChecker) {
    let tools = json!({"tools":[
        {"name":"slow","inputSchema":{"type":"object"},"execution":{"taskSupport":"optional"}},
        {"name":"only","inputSchema":{"type":"object"},"execution":{"taskSupport":"required"}},
        {"name":"plain","inputSchema":{"type":"object"}},
        {"name":"never","inputSchema":{"type":"object"},"execution":{"taskSupport":"forbidden"}}
    ]});
    assert!(exchange(c, 100, "tools/list", json!({}), tools).is_empty());
}

fn call(c: &mut SessionChecker, id: u64, name: &str, as_task: bool) -> Vec<&'static str> {
    let mut params = json!({"name":name,"arguments":{}});
    if as_task {
        params["task"] = json!({"ttl":1000});
    }
    ids(&c.on_value(C2S, &json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":params})))
}

#[test]
fn a_client_calls_each_tool_as_its_task_support_says() {
    let mut c = tasks_server();
    listed(&mut c);
    assert!(call(&mut c, 1, "slow", true).is_empty());
    assert!(call(&mut c, 2, "slow", false).is_empty());
    assert!(call(&mut c, 3, "only", true).is_empty());
    assert_eq!(call(&mut c, 4, "only", false), ["tasks/client-required-tool-as-task"]);
    assert_eq!(call(&mut c, 5, "plain", true), ["tasks/client-forbidden-tool-plain"]);
    assert_eq!(call(&mut c, 6, "never", true), ["tasks/client-forbidden-tool-plain"]);
    assert!(call(&mut c, 7, "never", false).is_empty());
    // A tool never listed: nothing said how it may run.
    assert!(call(&mut c, 8, "unlisted", true).is_empty());
    // The server's own requests are not the client's tool calls.
    let server_call = json!({"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"only"}});
    assert!(ids(&c.on_value(S2C, &server_call)).is_empty());
}

#[test]
fn without_the_capability_no_tool_is_called_as_a_task() {
    let mut c = session(json!({"tools":{},"tasks":{"list":{}}}), Revision::V2025_11_25);
    listed(&mut c);
    assert_eq!(call(&mut c, 1, "slow", true), ["tasks/client-tools-call-capability"]);
    assert_eq!(call(&mut c, 2, "plain", true), ["tasks/client-tools-call-capability"]);
    // Without the capability the tool-level rules do not apply: a plain call is plain.
    assert!(call(&mut c, 3, "only", false).is_empty());
    // Before 2025-11-25 there are no tasks to judge.
    let mut old = session(json!({"tools":{}}), Revision::V2025_06_18);
    assert!(call(&mut old, 1, "slow", true).is_empty());
}

#[test]
fn a_task_augmented_request_is_not_cancelled_by_notification() {
    let mut c = tasks_server();
    let cancel =
        |id: u64| json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}});
    // Cancelled while it awaits its CreateTaskResult, or after.
    assert!(call(&mut c, 1, "slow", true).is_empty());
    assert_eq!(ids(&c.on_value(C2S, &cancel(1))), ["cancellation/task-by-tasks-cancel"]);
    assert!(exchange(
        &mut c,
        2,
        "tools/call",
        json!({"name":"slow","task":{}}),
        json!({"task":task("working")})
    )
    .is_empty());
    assert!(ids(&c.on_value(C2S, &cancel(2))).contains(&"cancellation/task-by-tasks-cancel"));
    // A plain request is cancelled by notification, as ever.
    assert!(call(&mut c, 3, "slow", false).is_empty());
    assert!(ids(&c.on_value(C2S, &cancel(3))).is_empty());
}

#[test]
fn a_tasks_result_answer_names_the_task_asked_for() {
    let mut c = tasks_server();
    let call = json!({"name":"slow","task":{}});
    assert!(exchange(&mut c, 1, "tools/call", call, json!({"task":task("working")})).is_empty());
    let named =
        |id: &str| json!({"content":[],"_meta":{"io.modelcontextprotocol/related-task":{"taskId":id}}});
    let ask = json!({"taskId":"t1"});
    assert!(exchange(&mut c, 2, "tasks/result", ask.clone(), named("t1")).is_empty());
    assert_eq!(
        exchange(&mut c, 3, "tasks/result", ask.clone(), json!({"content":[]})),
        ["tasks/result-names-task"]
    );
    assert_eq!(exchange(&mut c, 4, "tasks/result", ask.clone(), named("t2")), ["tasks/result-names-task"]);
    // An error answer has no result to carry it.
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":5,"method":"tasks/result","params":ask}));
    let error = json!({"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"no such task"}});
    assert!(ids(&c.on_value(S2C, &error)).is_empty());
}

#[test]
fn a_request_for_a_task_names_a_task_of_the_session() {
    let mut c = tasks_server();
    let call = json!({"name":"slow","task":{}});
    assert!(exchange(&mut c, 1, "tools/call", call, json!({"task":task("working")})).is_empty());
    let elicit = |id: &str, task: &str| {
        json!({"jsonrpc":"2.0","id":id,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}},
            "_meta":{"io.modelcontextprotocol/related-task":{"taskId":task}}}})
    };
    // (The client of this session declared no elicitation: only the rule at hand is looked at.)
    let known = |v: Vec<&'static str>| v.into_iter().filter(|id| *id == "tasks/related-task-known").count();
    assert_eq!(known(ids(&c.on_value(S2C, &elicit("e1", "t1")))), 0);
    assert_eq!(known(ids(&c.on_value(S2C, &elicit("e2", "nope")))), 1);
    // Without related-task _meta there is nothing to judge here.
    let plain = json!({"jsonrpc":"2.0","id":"e3","method":"elicitation/create","params":{"message":"m"}});
    assert_eq!(known(ids(&c.on_value(S2C, &plain))), 0);
}

#[test]
fn a_tasks_list_cursor_goes_back_as_given() {
    let mut c = tasks_server();
    let page = json!({"tasks":[task("working")],"nextCursor":"tasks:10"});
    assert!(exchange(&mut c, 1, "tasks/list", json!({}), page).is_empty());
    let last = json!({"tasks":[]});
    assert!(exchange(&mut c, 2, "tasks/list", json!({"cursor":"tasks:10"}), last.clone()).is_empty());
    assert_eq!(
        exchange(&mut c, 3, "tasks/list", json!({"cursor":"tasks%3A10"}), last.clone()),
        ["tasks/list-cursor-as-given"]
    );
    assert_eq!(
        exchange(&mut c, 4, "tasks/list", json!({"cursor":"tasks:20"}), last),
        ["tasks/list-cursor-as-given"]
    );
}
