//! Tasks as the reference client uses them (2025-11-25's experimental tasks,
//! `basic/utilities/tasks.mdx`): a tool is called as a task only on a server declaring
//! `tasks.requests.tools.call`, and then as the tool's `execution.taskSupport` says (a required
//! one always as a task); a task it created is read once with `tasks/get`, and its result
//! fetched with `tasks/result`, which waits for the end: no status notification is waited for.
//! A task is cancelled with `tasks/cancel`, never `notifications/cancelled`.
//!
//! The task scenarios of the client suite (`scenarios/client/tasks.feature`) ask for a tool by
//! name (`MCP_CONFORMANCE_SCENARIO`, [`scenario_plan`]); in any other scenario the client calls
//! its usual tool, as a task only if that tool requires it.

use super::{cancel, ClientFault, Phase, ReferenceClient};
use mcpspec_protocol::tasks::{tool_calls_as_tasks, TaskSupport};
use mcpspec_protocol::wire::{Notification, RequestId};
use serde_json::{json, Value};

/// The scenario in which the client calls the tool that runs only as a task.
pub const REQUIRED_TOOL_SCENARIO: &str = "client-tasks/required-tool";
/// The scenario in which the client fetches a task's result, with no status notification sent.
pub const RESULT_SCENARIO: &str = "client-tasks/result-without-notifications";
/// The scenario in which the client cancels its task.
pub const CANCEL_SCENARIO: &str = "client-tasks/cancel";
/// The scenario in which the client creates more tasks than a page of tasks/list holds, then
/// lists them page by page.
pub const LIST_SCENARIO: &str = "client-tasks/list-cursor";

/// How many tasks the client creates in [`LIST_SCENARIO`]: more than the reference server's
/// page of ten.
const LIST_TASKS: usize = 11;

/// The scenario in which the server hides `tasks.requests.tools.call`: the client still asks for
/// the tool that runs only as a task, and calls it plainly.
pub const UNDECLARED_SCENARIO: &str = "client-tasks/undeclared-capability";

/// The lifetime the client asks for its tasks (tasks.mdx#creating-tasks: a requestor MAY).
const TTL_MS: u64 = 60_000;

/// What the client does with the task it creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TaskPlan {
    /// Reads it with tasks/get, then fetches its result with tasks/result.
    Fetch,
    /// Cancels it with tasks/cancel.
    Cancel,
    /// Creates [`LIST_TASKS`] tasks, then lists them to the end with tasks/list.
    List,
}

/// The tool a task scenario calls, its arguments, and what becomes of its task.
pub(super) fn scenario_plan(scenario: Option<&str>) -> Option<(&'static str, Value, TaskPlan)> {
    match scenario? {
        REQUIRED_TOOL_SCENARIO | RESULT_SCENARIO | UNDECLARED_SCENARIO => {
            Some(("test_task_required", json!({}), TaskPlan::Fetch))
        }
        // Long enough that the task is still working when the cancellation comes.
        CANCEL_SCENARIO => Some(("slow", json!({ "ms": 10_000 }), TaskPlan::Cancel)),
        LIST_SCENARIO => Some(("slow", json!({ "ms": 100 }), TaskPlan::List)),
        _ => None,
    }
}

/// The client's task-augmented tool call, and the task it created.
#[derive(Debug)]
pub(super) struct TaskCall {
    plan: TaskPlan,
    task: Option<String>,
    /// How many tasks the calls have created.
    created: usize,
}

impl ReferenceClient {
    /// Whether the client calls `tool` as a task on this server (`#tool-level-negotiation`).
    fn as_task(&self, tool: &Value) -> bool {
        if self.fault == Some(ClientFault::TaskCallUnchecked) {
            return true;
        }
        let declared = self.server_capabilities.as_ref().is_some_and(tool_calls_as_tasks);
        match TaskSupport::of_tool(tool) {
            TaskSupport::Required => declared && self.fault != Some(ClientFault::TaskRequiredPlain),
            // An optional tool is called as a task when the scenario asks for one.
            TaskSupport::Optional => declared && scenario_plan(self.scenario.as_deref()).is_some(),
            TaskSupport::Forbidden => false,
        }
    }

    /// The `tools/call` params of `tool` with `arguments`, with `task` when it is called as one.
    pub(super) fn call_params(&mut self, tool: &Value, arguments: Value) -> Value {
        let mut params = json!({ "name": tool["name"], "arguments": arguments });
        if self.as_task(tool) {
            params["task"] = json!({ "ttl": TTL_MS });
            let plan = scenario_plan(self.scenario.as_deref()).map_or(TaskPlan::Fetch, |(_, _, p)| p);
            let created = self.task.as_ref().map_or(0, |t| t.created);
            self.task = Some(TaskCall { plan, task: None, created });
        }
        params
    }

    /// In a task scenario: the call of the scenario's tool (`None` elsewhere, or when the server
    /// does not list it).
    pub(super) fn scenario_call(&mut self) -> Option<Vec<Value>> {
        let (name, arguments, plan) = scenario_plan(self.scenario.as_deref())?;
        let tool = self.tools.iter().find(|t| t["name"] == name)?.clone();
        self.phase = Phase::Calling;
        let calls = if plan == TaskPlan::List { LIST_TASKS } else { 1 };
        let mut out = Vec::new();
        for _ in 0..calls {
            let params = self.call_params(&tool, arguments.clone());
            out.push(self.request("tools/call", Some(params)));
        }
        Some(out)
    }

    /// The answer to the tool call `call`: a `CreateTaskResult` starts following the task;
    /// anything else is the tool's answer, and the client is done.
    pub(super) fn on_call_answered(&mut self, call: &RequestId, result: &Value) -> Vec<Value> {
        let Some(id) = result.pointer("/task/taskId").and_then(Value::as_str).map(str::to_owned) else {
            self.phase = Phase::Done;
            return Vec::new();
        };
        let plan = self.task.as_ref().map_or(TaskPlan::Fetch, |t| t.plan);
        let created = self.task.as_ref().map_or(0, |t| t.created) + 1;
        self.task = Some(TaskCall { plan, task: Some(id.clone()), created });
        match (plan, self.fault) {
            (TaskPlan::List, _) if created < LIST_TASKS => Vec::new(),
            (TaskPlan::List, _) => vec![self.request("tasks/list", None)],
            (TaskPlan::Cancel, Some(ClientFault::TaskCancelledByNotification)) => {
                self.phase = Phase::Done;
                vec![cancel(call, "task-cancelled-by-notification fault")]
            }
            (TaskPlan::Cancel, _) => vec![self.request("tasks/cancel", Some(json!({ "taskId": id })))],
            // It waits for a notification that receivers need not send.
            (TaskPlan::Fetch, Some(ClientFault::TaskAwaitsStatusNotification)) => Vec::new(),
            (TaskPlan::Fetch, _) => vec![self.request("tasks/get", Some(json!({ "taskId": id })))],
        }
    }

    /// The answer to one of the client's task requests: after tasks/get, the result (tasks/result
    /// waits for the task's end); after a tasks/list page with `nextCursor`, the next page (the
    /// cursor is opaque: it goes back as received, but for the fault); after tasks/result,
    /// tasks/cancel or the last page, done.
    pub(super) fn on_task_answer(&mut self, method: &str, result: &Value) -> Vec<Value> {
        let task = self.task.as_ref().and_then(|t| t.task.clone());
        let next = result.get("nextCursor").filter(|c| !c.is_null()).cloned();
        match (method, task, next) {
            ("tasks/get", Some(id), _) => vec![self.request("tasks/result", Some(json!({ "taskId": id })))],
            ("tasks/list", _, Some(cursor)) => {
                let cursor = match (self.fault, cursor) {
                    (Some(ClientFault::TaskListCursorAltered), Value::String(c)) => {
                        Value::String(c.replace(':', "%3A").replace('/', "%2F").replace(' ', "%20"))
                    }
                    (_, cursor) => cursor,
                };
                vec![self.request("tasks/list", Some(json!({ "cursor": cursor })))]
            }
            _ => {
                self.phase = Phase::Done;
                Vec::new()
            }
        }
    }

    /// `notifications/tasks/status`: only the task-awaits-status-notification fault waits for
    /// one, and fetches the result when it comes.
    pub(super) fn on_task_status(&mut self, n: &Notification) -> Vec<Value> {
        let task = self.task.as_ref().and_then(|t| t.task.clone());
        let named = n.params.as_ref().and_then(|p| p.get("taskId")).and_then(Value::as_str);
        match (self.fault, task) {
            (Some(ClientFault::TaskAwaitsStatusNotification), Some(id)) if named == Some(id.as_str()) => {
                vec![self.request("tasks/result", Some(json!({ "taskId": id })))]
            }
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::Revision;

    fn answer(id: &Value, result: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "result": result })
    }

    /// The client, initialized with a server of `capabilities` listing `tools`, at the tool call.
    fn calling(
        scenario: Option<&str>,
        fault: Option<ClientFault>,
        capabilities: Value,
    ) -> (ReferenceClient, Value) {
        let mut c = ReferenceClient::new(vec![Revision::V2025_11_25], fault).for_scenario(scenario);
        let init = c.start();
        let result = json!({ "protocolVersion": "2025-11-25", "capabilities": capabilities, "serverInfo": { "name": "s", "version": "1" } });
        let list = c.on_message(&answer(&init[0]["id"], result));
        let list = list.iter().find(|m| m["method"] == "tools/list").unwrap().clone();
        let tools = json!({ "tools": [
            { "name": "plain", "inputSchema": { "type": "object" } },
            { "name": "slow", "inputSchema": { "type": "object" }, "execution": { "taskSupport": "optional" } },
            { "name": "test_task_required", "inputSchema": { "type": "object" }, "execution": { "taskSupport": "required" } },
        ] });
        let call = c.on_message(&answer(&list["id"], tools));
        (c, call[0].clone())
    }

    fn declared() -> Value {
        json!({ "tools": {}, "tasks": { "requests": { "tools": { "call": {} } } } })
    }

    fn created(id: &str) -> Value {
        json!({ "task": { "taskId": id, "status": "working", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": 60000 } })
    }

    #[test]
    fn the_required_tool_is_called_as_a_task_and_its_result_fetched() {
        let (mut c, call) = calling(Some(RESULT_SCENARIO), None, declared());
        assert_eq!(call["params"]["name"], "test_task_required");
        assert!(call["params"]["task"].is_object());
        let get = c.on_message(&answer(&call["id"], created("t1")));
        assert_eq!(get[0]["method"], "tasks/get");
        assert_eq!(get[0]["params"]["taskId"], "t1");
        let result = c.on_message(&answer(&get[0]["id"], created("t1")["task"].clone()));
        assert_eq!(result[0]["method"], "tasks/result");
        assert!(c.on_message(&answer(&result[0]["id"], json!({ "content": [] }))).is_empty());
        assert!(c.finished());
    }

    #[test]
    fn the_list_scenario_creates_a_page_and_more_and_lists_them_to_the_end() {
        for fault in [None, Some(ClientFault::TaskListCursorAltered)] {
            let mut c =
                ReferenceClient::new(vec![Revision::V2025_11_25], fault).for_scenario(Some(LIST_SCENARIO));
            let init = c.start();
            let result = json!({ "protocolVersion": "2025-11-25", "capabilities": declared(),
                "serverInfo": { "name": "s", "version": "1" } });
            let list = c.on_message(&answer(&init[0]["id"], result));
            let list = list.iter().find(|m| m["method"] == "tools/list").unwrap().clone();
            let tools = json!({ "tools": [{ "name": "slow", "inputSchema": { "type": "object" },
                "execution": { "taskSupport": "optional" } }] });
            let calls = c.on_message(&answer(&list["id"], tools));
            assert_eq!(calls.len(), LIST_TASKS);
            let mut out = Vec::new();
            for (n, call) in calls.iter().enumerate() {
                out = c.on_message(&answer(&call["id"], created(&format!("t{n}"))));
            }
            assert_eq!(out[0]["method"], "tasks/list");
            let next = c.on_message(&answer(&out[0]["id"], json!({ "tasks": [], "nextCursor": "tasks:10" })));
            let sent = &next[0]["params"]["cursor"];
            assert_eq!(sent == "tasks:10", fault.is_none(), "{sent}");
            assert!(c.on_message(&answer(&next[0]["id"], json!({ "tasks": [] }))).is_empty());
            assert!(c.finished());
        }
    }

    #[test]
    fn the_cancel_scenario_cancels_with_tasks_cancel() {
        let (mut c, call) = calling(Some(CANCEL_SCENARIO), None, declared());
        assert_eq!(call["params"]["name"], "slow");
        let out = c.on_message(&answer(&call["id"], created("t1")));
        assert_eq!(out[0]["method"], "tasks/cancel");
        let (mut c, call) =
            calling(Some(CANCEL_SCENARIO), Some(ClientFault::TaskCancelledByNotification), declared());
        let out = c.on_message(&answer(&call["id"], created("t1")));
        assert_eq!(out[0]["method"], "notifications/cancelled");
        assert_eq!(out[0]["params"]["requestId"], call["id"]);
    }

    #[test]
    fn tools_are_called_as_tasks_only_as_the_server_and_the_tool_say() {
        // Elsewhere: the first tool, plainly.
        let (_, call) = calling(None, None, declared());
        assert_eq!(call["params"]["name"], "plain");
        assert!(call["params"].get("task").is_none());
        // A server without tasks.requests.tools.call: even the required tool, plainly.
        let (_, call) = calling(Some(REQUIRED_TOOL_SCENARIO), None, json!({ "tools": {} }));
        assert!(call["params"].get("task").is_none());
        // The faults.
        let (_, call) =
            calling(Some(REQUIRED_TOOL_SCENARIO), Some(ClientFault::TaskRequiredPlain), declared());
        assert!(call["params"].get("task").is_none());
        let (_, call) = calling(None, Some(ClientFault::TaskCallUnchecked), json!({ "tools": {} }));
        assert!(call["params"]["task"].is_object());
        let (mut c, call) =
            calling(Some(RESULT_SCENARIO), Some(ClientFault::TaskAwaitsStatusNotification), declared());
        assert!(c.on_message(&answer(&call["id"], created("t1"))).is_empty());
    }
}
