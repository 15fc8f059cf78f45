//! Session rules of 2025-11-25's tasks (`basic/utilities/tasks.mdx`), judged on every message:
//! each task's statuses follow the lifecycle, starting in `working` and never leaving a
//! terminal status (`#task-status-lifecycle`); the task methods' messages carry no related-task
//! `_meta` (`#associating-task-related-messages`); a task is created only for a request type the
//! receiver declared in `tasks.requests` (`#capabilities`); the progress token of the request
//! that created a task stays in use until the task ends, and no progress comes after
//! (`basic/utilities/progress.mdx`, 2025-11-25). A client calls tools as tasks only on a server
//! declaring `tasks.requests.tools.call`, and then as each listed tool's `execution.taskSupport`
//! says: never a forbidden one (or one saying nothing) as a task, never a required one plainly
//! (`#tool-level-negotiation`). A task-augmented request is cancelled with `tasks/cancel`, never
//! with `notifications/cancelled` (`basic/utilities/cancellation.mdx#behavior-requirements`). A
//! tasks/result answer names the task asked for in its related-task `_meta`, and a request that
//! names a task there names one of the session's (`#associating-task-related-messages`); a
//! tasks/list cursor is a `nextCursor` the receiver gave, unchanged (`#task-listing`).
//!
//! Statuses are followed from responses only: a response comes after the request it answers,
//! so two of them are in the order the receiver saw things; a `notifications/tasks/status` may
//! travel on another HTTP stream than the answers it lies between, and is not ordered with them.

use super::SessionChecker;
use crate::judge::rules::{self, Violation};
use mcpspec_protocol::capabilities::declares;
use mcpspec_protocol::tasks::{related_task, tool_calls_as_tasks, TaskStatus, TaskSupport};
use mcpspec_protocol::wire::{Notification, Outcome, Request, RequestId, Response};
use mcpspec_protocol::{Direction, Era, Revision};
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// How many tasks per receiver the checker follows; past that, new ones are not followed.
const MAX_FOLLOWED_TASKS: usize = 10_000;

/// The methods whose messages need no related-task `_meta`: the task is named in them.
const TASK_METHODS: [&str; 4] = ["tasks/get", "tasks/list", "tasks/cancel", "tasks/result"];

/// Whether a progress token belongs to a task that has ended (for the progress rules).
pub(super) fn ended_task_token(checker: &SessionChecker, requester: Direction, token: &RequestId) -> bool {
    checker.side(requester).task_progress_done.contains(token)
}

/// The last status each receiver reported for each of its tasks.
#[derive(Debug, Default, Clone)]
pub(super) struct TaskState {
    /// Tasks the server runs (for the client), by id.
    server: HashMap<String, TaskStatus>,
    /// Tasks the client runs (for the server), by id.
    client: HashMap<String, TaskStatus>,
    /// How each tool the server listed may run as a task, by name.
    tool_support: HashMap<String, TaskSupport>,
    /// Ids of the task-augmented requests the client sent (bounded).
    augmented_by_client: HashSet<RequestId>,
    /// Ids of the task-augmented requests the server sent (bounded).
    augmented_by_server: HashSet<RequestId>,
    /// The client's `tasks/result` requests awaiting their answers: id → the task named.
    results_asked_by_client: HashMap<RequestId, String>,
    /// The server's `tasks/result` requests awaiting their answers: id → the task named.
    results_asked_by_server: HashMap<RequestId, String>,
    /// The `nextCursor`s of the server's tasks/list results (as JSON text).
    cursors_from_server: HashSet<String>,
    /// The `nextCursor`s of the client's tasks/list results (as JSON text).
    cursors_from_client: HashSet<String>,
}

/// The id of the task a response creates (a `CreateTaskResult`), if it is one.
pub(super) fn created_task(resp: &Response) -> Option<String> {
    match &resp.outcome {
        Outcome::Result(r) => r.pointer("/task/taskId").and_then(Value::as_str).map(str::to_owned),
        Outcome::Error(_) => None,
    }
}

/// The `tasks.requests` capability a task-augmented request of `method` needs.
fn request_capability(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" => Some("tasks.requests.tools.call"),
        "sampling/createMessage" => Some("tasks.requests.sampling.createMessage"),
        "elicitation/create" => Some("tasks.requests.elicitation.create"),
        _ => None,
    }
}

fn related_meta(direction: Direction, what: &str, holder: Option<&Value>, out: &mut Vec<Violation>) {
    if let Some(id) = holder.and_then(related_task) {
        let who = match direction {
            Direction::ClientToServer => "the client",
            Direction::ServerToClient => "the server",
        };
        out.push(Violation::new(
            &rules::TASK_NO_RELATED_META,
            format!("{what} without io.modelcontextprotocol/related-task in _meta (the task is named in it)"),
            format!("{who}'s {what} carries related-task _meta naming {id:?}"),
        ));
    }
}

impl SessionChecker {
    fn tasks_apply(&self) -> bool {
        self.revision >= Revision::V2025_11_25 && self.revision.era() == Era::Legacy
    }

    /// A request: the task methods carry no related-task `_meta`; a client's tool call follows
    /// the tool-level negotiation; a task-augmented request is remembered (for cancellations).
    pub(super) fn on_task_request(&mut self, direction: Direction, r: &Request, out: &mut Vec<Violation>) {
        if !self.tasks_apply() {
            return;
        }
        if TASK_METHODS.contains(&r.method.as_str()) {
            related_meta(direction, &format!("{} request", r.method), r.params.as_ref(), out);
        }
        let named = r.params.as_ref().and_then(|p| p.get("taskId")).and_then(Value::as_str);
        if let (true, Some(task)) = (r.method == "tasks/result", named) {
            let asked = match direction {
                Direction::ClientToServer => &mut self.tasks.results_asked_by_client,
                Direction::ServerToClient => &mut self.tasks.results_asked_by_server,
            };
            if asked.len() < MAX_FOLLOWED_TASKS {
                asked.insert(r.id.clone(), task.to_owned());
            }
        }
        let augmented = r.params.as_ref().and_then(|p| p.get("task")).is_some_and(Value::is_object);
        if augmented {
            let ids = match direction {
                Direction::ClientToServer => &mut self.tasks.augmented_by_client,
                Direction::ServerToClient => &mut self.tasks.augmented_by_server,
            };
            if ids.len() < super::MAX_REMEMBERED_IDS {
                ids.insert(r.id.clone());
            }
        }
        if direction == Direction::ClientToServer && r.method == "tools/call" {
            self.tool_negotiation(r, augmented, out);
        }
        if !TASK_METHODS.contains(&r.method.as_str()) {
            self.related_task_known(direction, r, out);
        }
        let cursor = r.params.as_ref().and_then(|p| p.get("cursor")).filter(|c| !c.is_null());
        if let (true, Some(cursor)) = (r.method == "tasks/list", cursor) {
            let given = match direction {
                Direction::ClientToServer => &self.tasks.cursors_from_server,
                Direction::ServerToClient => &self.tasks.cursors_from_client,
            };
            if given.len() < MAX_FOLLOWED_TASKS && !given.contains(&cursor.to_string()) {
                out.push(Violation::new(
                    &rules::TASK_LIST_CURSOR_OPAQUE,
                    "a tasks/list cursor exactly as a nextCursor of the receiver's gave it",
                    format!("tasks/list with the cursor {cursor}, which no tasks/list result gave"),
                ));
            }
        }
    }

    /// A request (other than the task methods) naming a task in its related-task `_meta` names
    /// one of the session's tasks (`#associating-task-related-messages`: a request a task
    /// depends on carries that task's id). Past the followed tasks, nothing is judged.
    fn related_task_known(&self, direction: Direction, r: &Request, out: &mut Vec<Violation>) {
        let Some(named) = r.params.as_ref().and_then(related_task) else { return };
        let (own, other) = match direction {
            Direction::ServerToClient => (&self.tasks.server, &self.tasks.client),
            Direction::ClientToServer => (&self.tasks.client, &self.tasks.server),
        };
        let followed_all = own.len() < MAX_FOLLOWED_TASKS && other.len() < MAX_FOLLOWED_TASKS;
        // A task whose CreateTaskResult is still on its way may be the one named: over HTTP the
        // request can come on another stream and overtake it. While the other side awaits the
        // answer to a task-augmented request, an unknown task id is not judged.
        let creating = self.side(direction.reverse()).outstanding.values().any(|p| p.augmented);
        if followed_all && !creating && !own.contains_key(named) && !other.contains_key(named) {
            let who = match direction {
                Direction::ClientToServer => "the client",
                Direction::ServerToClient => "the server",
            };
            out.push(Violation::new(
                &rules::TASK_RELATED_TASK_KNOWN,
                "a related-task _meta naming a task of the session (the task the request is for)",
                format!(
                    "{who}'s {} request names task {named:?}, which no CreateTaskResult created",
                    r.method
                ),
            ));
        }
    }

    /// A client's `tools/call` (`augmented` when it carries `task`), against the server's
    /// capabilities and what its tools/list said of the tool (`#tool-level-negotiation`). A tool
    /// the server never listed is not judged: nothing said how it may run.
    fn tool_negotiation(&self, r: &Request, augmented: bool, out: &mut Vec<Violation>) {
        let Some(caps) = self.negotiation.server_capabilities.as_ref() else { return };
        let name = r.params.as_ref().and_then(|p| p.get("name")).and_then(Value::as_str).unwrap_or_default();
        if !tool_calls_as_tasks(caps) {
            if augmented {
                let declared = caps.get("tasks").map_or("no tasks capability".to_owned(), |t| t.to_string());
                out.push(Violation::new(
                    &rules::TASK_TOOLS_CALL_CAPABILITY,
                    "no tool called as a task: the server did not declare tasks.requests.tools.call",
                    format!("tools/call of {name:?} carrying task, to a server that declared {declared}"),
                ));
            }
            return;
        }
        match (self.tasks.tool_support.get(name), augmented) {
            (Some(TaskSupport::Forbidden), true) => out.push(Violation::new(
                &rules::TASK_FORBIDDEN_TOOL,
                format!("{name:?}, whose execution.taskSupport is absent or \"forbidden\", called plainly"),
                format!("tools/call of {name:?} carrying task"),
            )),
            (Some(TaskSupport::Required), false) => out.push(Violation::new(
                &rules::TASK_REQUIRED_TOOL,
                format!("{name:?}, whose execution.taskSupport is \"required\", called as a task"),
                format!("tools/call of {name:?} without task"),
            )),
            _ => {}
        }
    }

    /// `notifications/tasks/status` carries no related-task `_meta`.
    pub(super) fn on_task_notification(
        &mut self,
        direction: Direction,
        n: &Notification,
        out: &mut Vec<Violation>,
    ) {
        if !self.tasks_apply() {
            return;
        }
        if n.method == "notifications/tasks/status" {
            related_meta(direction, "notifications/tasks/status", n.params.as_ref(), out);
        }
        if n.method == "notifications/cancelled" {
            let augmented = match direction {
                Direction::ClientToServer => &self.tasks.augmented_by_client,
                Direction::ServerToClient => &self.tasks.augmented_by_server,
            };
            let named = n.params.as_ref().and_then(|p| p.get("requestId")).and_then(RequestId::from_value);
            if let Some(id) = named.filter(|id| augmented.contains(id)) {
                out.push(Violation::new(
                    &rules::TASK_CANCEL_BY_TASKS_CANCEL,
                    "a task-augmented request cancelled with tasks/cancel",
                    format!("notifications/cancelled naming the task-augmented request {id}"),
                ));
            }
        }
    }

    /// A response from `direction`'s side to a request of `method` (which carried `task` when
    /// `augmented`): the tasks it reports, and their `_meta`.
    pub(super) fn on_task_response(
        &mut self,
        direction: Direction,
        method: &str,
        augmented: bool,
        resp: &Response,
        out: &mut Vec<Violation>,
    ) {
        if !self.tasks_apply() {
            return;
        }
        // The task a tasks/result request named (its answer, result or error, is in).
        let asked = resp.id.as_ref().and_then(|id| match direction {
            Direction::ServerToClient => self.tasks.results_asked_by_client.remove(id),
            Direction::ClientToServer => self.tasks.results_asked_by_server.remove(id),
        });
        let Outcome::Result(result) = &resp.outcome else { return };
        if let (true, Some(asked)) = (method == "tasks/result", &asked) {
            let named = related_task(result);
            if named != Some(asked.as_str()) {
                let actual = match named {
                    Some(other) => format!("a tasks/result answer whose related-task _meta names {other:?}"),
                    None => "a tasks/result answer without io.modelcontextprotocol/related-task in _meta"
                        .to_owned(),
                };
                out.push(Violation::new(
                    &rules::TASK_RESULT_NAMES_TASK,
                    format!("the tasks/result answer naming task {asked:?} in its related-task _meta"),
                    actual,
                ));
            }
        }
        match method {
            "tools/list" if direction == Direction::ServerToClient && !augmented => {
                for tool in result.get("tools").and_then(Value::as_array).into_iter().flatten() {
                    let Some(name) = tool.get("name").and_then(Value::as_str) else { continue };
                    if self.tasks.tool_support.len() < MAX_FOLLOWED_TASKS {
                        self.tasks.tool_support.insert(name.to_owned(), TaskSupport::of_tool(tool));
                    }
                }
            }
            // tasks/result answers once the task is terminal; its `_meta` names the task.
            "tasks/result" => {
                if let Some(id) = related_task(result) {
                    self.task_ended(direction, id);
                }
            }
            "tasks/get" | "tasks/cancel" => {
                related_meta(direction, &format!("{method} result"), Some(result), out);
                self.follow(direction, result, method, out);
            }
            "tasks/list" => {
                related_meta(direction, "tasks/list result", Some(result), out);
                if let Some(next) = result.get("nextCursor").filter(|c| !c.is_null()) {
                    let given = match direction {
                        Direction::ServerToClient => &mut self.tasks.cursors_from_server,
                        Direction::ClientToServer => &mut self.tasks.cursors_from_client,
                    };
                    if given.len() < MAX_FOLLOWED_TASKS {
                        given.insert(next.to_string());
                    }
                }
                for task in result.get("tasks").and_then(Value::as_array).into_iter().flatten() {
                    self.follow(direction, task, method, out);
                }
            }
            _ if augmented => {
                let Some(task) = result.get("task").filter(|t| t.get("taskId").is_some()) else { return };
                if let Some(cap) = request_capability(method) {
                    let receiver = match direction {
                        Direction::ServerToClient => self.negotiation.server_capabilities.as_ref(),
                        Direction::ClientToServer => self.negotiation.client_capabilities.as_ref(),
                    };
                    if let Some(caps) = receiver.filter(|caps| !declares(caps, cap)) {
                        let declared =
                            caps.get("tasks").map_or("no tasks capability".to_owned(), |t| t.to_string());
                        out.push(Violation::new(
                            &rules::TASK_CAPABILITY_DECLARED,
                            format!("a task for {method} only from a receiver declaring {cap}"),
                            format!(
                                "a CreateTaskResult for {method} from a receiver that declared {declared}"
                            ),
                        ));
                    }
                }
                let status = task.get("status").and_then(Value::as_str).and_then(TaskStatus::parse);
                if status.is_some_and(|s| s != TaskStatus::Working) {
                    let id = task.get("taskId").map(Value::to_string).unwrap_or_default();
                    out.push(Violation::new(
                        &rules::TASK_STATUS_LIFECYCLE,
                        "a new task in the working status",
                        format!(
                            "the CreateTaskResult of {method} gives task {id} the status {}",
                            task["status"]
                        ),
                    ));
                }
                self.follow(direction, task, method, out);
            }
            _ => {}
        }
    }

    /// The task `id`, run by `receiver`'s side, has ended: the progress token of the request
    /// that created it is done with.
    fn task_ended(&mut self, receiver: Direction, id: &str) {
        let requester = self.side_mut(receiver.reverse());
        if let Some(token) = requester.task_tokens.remove(id) {
            if requester.task_progress_done.len() < super::MAX_REMEMBERED_IDS {
                requester.task_progress_done.insert(token.clone());
            }
            requester.complete_progress(token);
        }
    }

    /// One report of a task's status: it moves only along the lifecycle.
    fn follow(&mut self, direction: Direction, task: &Value, method: &str, out: &mut Vec<Violation>) {
        let (Some(id), Some(status)) = (
            task.get("taskId").and_then(Value::as_str),
            task.get("status").and_then(Value::as_str).and_then(TaskStatus::parse),
        ) else {
            return;
        };
        let tasks = match direction {
            Direction::ServerToClient => &mut self.tasks.server,
            Direction::ClientToServer => &mut self.tasks.client,
        };
        let Some(last) = tasks.get(id).copied() else {
            if tasks.len() < MAX_FOLLOWED_TASKS {
                tasks.insert(id.to_owned(), status);
            }
            if status.is_terminal() {
                self.task_ended(direction, id);
            }
            return;
        };
        if !last.may_become(status) {
            let why = if last.is_terminal() { ", a terminal status, which is final" } else { "" };
            out.push(Violation::new(
                &rules::TASK_STATUS_LIFECYCLE,
                format!("task {id:?} moving from {} only along the lifecycle", last.as_str()),
                format!("the {method} result says {}, after {}{why}", status.as_str(), last.as_str()),
            ));
        }
        tasks.insert(id.to_owned(), status);
        if status.is_terminal() {
            self.task_ended(direction, id);
        }
    }
}
