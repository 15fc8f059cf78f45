//! Tasks (`basic/utilities/tasks.mdx`, experimental in 2025-11-25): a `tools/call` carrying
//! `task` is answered at once with a `CreateTaskResult`, and the tool runs on as a job of its own
//! whose answer is kept for `tasks/result`; `tasks/get`, `tasks/list` (paged) and `tasks/cancel`
//! read and end tasks (a cancellation is announced in `notifications/tasks/status`). The server declares `tasks.list`, `tasks.cancel` and
//! `tasks.requests.tools.call`; `slow` may run as a task, `test_task_required` and
//! `test_task_elicitation` only as one (`catalog::task_support`). A task's tool that asks the
//! client for something makes the task `input_required` until the answer, and its request names
//! the task in its related-task `_meta`.

use super::*;
use mcpspec_protocol::tasks::{TaskStatus, RELATED_TASK_META};
use std::time::SystemTime;

/// Job ids of tools running as tasks: the prefix, then the task id. A client that picked such
/// an id for a request of its own would collide; nothing else would.
const TASK_JOB_PREFIX: &str = "mcpspec-task-job:";

/// How long a task is kept when the requestor asks for no `ttl` (and the most it may ask for).
const DEFAULT_TTL_MS: u64 = 60_000;
const MAX_TTL_MS: u64 = 3_600_000;
/// The `pollInterval` suggested to requestors.
const POLL_INTERVAL_MS: u64 = 100;
/// Tasks per `tasks/list` page.
const LIST_PAGE: usize = 10;

#[derive(Debug)]
struct Task {
    status: TaskStatus,
    status_message: Option<String>,
    created_at: String,
    last_updated_at: String,
    ttl: u64,
    /// The underlying request's answer, once the task is terminal.
    outcome: Option<Result<Value, ErrorObject>>,
    /// `tasks/get` has reported the task terminal (for `Fault::TaskTerminalReopens`).
    reported_terminal: bool,
    /// The progress token of the call that created the task: its progress goes on under it.
    progress_token: Option<Value>,
}

/// The tasks of one session, in creation order.
#[derive(Debug, Default)]
pub(super) struct TaskStore {
    tasks: Vec<(String, Task)>,
    /// How many tasks the session has created.
    created: u64,
}

impl TaskStore {
    fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|(t, _)| t == id).map(|(_, t)| t)
    }

    fn get_mut(&mut self, id: &str) -> Option<&mut Task> {
        self.tasks.iter_mut().find(|(t, _)| t == id).map(|(_, t)| t)
    }
}

/// The wall-clock time as an ISO 8601 timestamp (tasks.mdx#task-metadata).
fn timestamp() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// A task id no one can guess (tasks.mdx#security-considerations: without binding tasks to an
/// authorization context, ids MUST be cryptographically secure).
fn random_task_id() -> String {
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 16];
    // SystemRandom fails only where the OS has no randomness at all.
    ring::rand::SystemRandom::new().fill(&mut bytes).expect("the OS's random numbers");
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The task a job runs for, when the job is a task's.
pub(super) fn task_of_job(id: &RequestId) -> Option<String> {
    match id {
        RequestId::String(s) => s.strip_prefix(TASK_JOB_PREFIX).map(str::to_owned),
        _ => None,
    }
}

fn unknown_task(id: &str) -> ErrorObject {
    invalid_params(&format!("Unknown task: {id}"))
}

/// A result (or request params) with the related-task `_meta` naming `id`.
fn with_related_meta(mut result: Value, id: &str) -> Value {
    if let Some(o) = result.as_object_mut() {
        let meta = o.entry("_meta").or_insert_with(|| json!({}));
        meta[RELATED_TASK_META] = json!({ "taskId": id });
    }
    result
}

impl ReferenceServer {
    /// The capability 2025-11-25 servers declare for tasks.
    pub(super) fn tasks_capability() -> Value {
        json!({ "list": {}, "cancel": {}, "requests": { "tools": { "call": {} } } })
    }

    fn task_json(&self, id: &str, task: &Task) -> Value {
        let mut t = json!({
            "taskId": id,
            "status": task.status.as_str(),
            "createdAt": task.created_at,
            "lastUpdatedAt": task.last_updated_at,
            "ttl": task.ttl,
            "pollInterval": POLL_INTERVAL_MS,
        });
        if let Some(m) = &task.status_message {
            t["statusMessage"] = m.clone().into();
        }
        if self.fault == Some(Fault::TaskNoLastUpdated) {
            t.as_object_mut().map(|o| o.remove("lastUpdatedAt"));
        }
        t
    }

    /// The id of the next task: random, but for the faults that make ids guessable, repeat them
    /// or take the one the requestor proposed in `task` (`proposed`).
    fn new_task_id(&mut self, proposed: Option<&str>) -> String {
        self.tasks.created += 1;
        match self.fault {
            Some(Fault::TaskIdFromRequestor) if proposed.is_some() => proposed.unwrap_or_default().to_owned(),
            Some(Fault::TaskIdsSequential) => format!("task-{}", self.tasks.created),
            Some(Fault::TaskIdRepeats) => match self.tasks.tasks.first() {
                Some((first, _)) => first.clone(),
                None => random_task_id(),
            },
            _ => random_task_id(),
        }
    }

    /// A task-augmented `tools/call` of a tool that may run as a task: the task is created and
    /// answered for, and the tool runs on as the task's job.
    pub(super) fn start_task(&mut self, r: Request, task_params: &Value) {
        let requested = task_params.get("ttl").and_then(Value::as_u64);
        // tasks.mdx#ttl-and-resource-management: a receiver MAY override the requested ttl.
        let ttl = requested.unwrap_or(DEFAULT_TTL_MS).min(MAX_TTL_MS);
        let id = self.new_task_id(task_params.get("taskId").and_then(Value::as_str));
        let now = timestamp();
        let task = Task {
            status: TaskStatus::Working,
            status_message: Some("The tool is running.".into()),
            created_at: now.clone(),
            last_updated_at: now,
            ttl,
            outcome: None,
            reported_terminal: false,
            progress_token: r.params.as_ref().and_then(|p| p.pointer("/_meta/progressToken")).cloned(),
        };
        let created = json!({ "task": self.task_json(&id, &task) });
        self.tasks.tasks.push((id.clone(), task));
        self.respond(Some(r.id), Ok(created));
        // The tool itself, without `task`, under the task's job id.
        let mut params = r.params.clone().unwrap_or_else(|| json!({}));
        params.as_object_mut().map(|p| p.remove("task"));
        let job = Request {
            id: RequestId::String(format!("{TASK_JOB_PREFIX}{id}")),
            method: r.method,
            params: Some(params),
        };
        self.tools_call(job);
    }

    /// The tool of task `id` answered: the task becomes completed or failed, its answer is kept,
    /// and every `tasks/result` waiting for it is answered.
    pub(super) fn task_done(&mut self, id: &str, outcome: Result<Value, ErrorObject>) {
        let fault = self.fault;
        let Some(task) = self.tasks.get_mut(id) else { return };
        if task.status.is_terminal() && fault != Some(Fault::TaskCancelledCompletes) {
            // A cancelled task stays cancelled (tasks.mdx#cancelling-tasks).
            return;
        }
        // tasks.mdx#task-status: a tool call whose result has isError set is failed too.
        let tool_error = match &outcome {
            Ok(result) if result.get("isError") == Some(&Value::Bool(true)) => Some(
                result
                    .pointer("/content/0/text")
                    .and_then(Value::as_str)
                    .unwrap_or("an error result")
                    .to_owned(),
            ),
            _ => None,
        };
        task.status = match (&outcome, &tool_error) {
            (Ok(_), None) => TaskStatus::Completed,
            _ => TaskStatus::Failed,
        };
        // Every status has its message, so a task's shape never depends on when it is read
        // (a fuzz campaign keeps inputs by the shape of their answers); a failure's says why
        // (tasks.mdx#task-execution-errors: SHOULD).
        task.status_message = match (&outcome, tool_error) {
            _ if fault == Some(Fault::TaskFailedWithoutMessage) && task.status == TaskStatus::Failed => None,
            (Ok(_), None) => Some("The tool finished.".to_owned()),
            (Ok(_), Some(why)) => Some(format!("The tool failed: {why}")),
            (Err(e), _) => Some(format!("The tool failed: {}", e.message)),
        };
        task.last_updated_at = timestamp();
        task.outcome = Some(outcome);
        // No status notification here (receivers MAY send one): it would come at a time no
        // request of the client's decides, and the client learns the end from tasks/get or
        // tasks/result anyway; a cancellation, which a request makes, is notified.
        self.answer_waiting_results(id);
    }

    /// The job of task `id` sends the client a request (`params`) it needs to go on: the task is
    /// `input_required` until the answer, and the request names the task in its related-task
    /// `_meta` (tasks.mdx#input-required-status: MUST), but for the faults that leave it out or
    /// name another task.
    pub(super) fn task_needs_input(&mut self, id: &str, params: &mut Value) {
        if let Some(task) = self.tasks.get_mut(id).filter(|t| !t.status.is_terminal()) {
            task.status = TaskStatus::InputRequired;
            task.status_message = Some("Waiting for the client's answer to a request of the tool.".into());
            task.last_updated_at = timestamp();
        }
        let named = match self.fault {
            Some(Fault::TaskInputRequestUnrelated) => return,
            Some(Fault::TaskInputRequestOtherTask) => "mcpspec-some-other-task",
            _ => id,
        };
        if !params.is_object() {
            *params = json!({});
        }
        *params = with_related_meta(params.take(), named);
    }

    /// notifications/tasks/status, which receivers MAY send (tasks.mdx#task-status-notification).
    fn task_status_changed(&mut self, id: &str) {
        if let Some(task) = self.tasks.get(id) {
            let params = self.task_json(id, task);
            self.notify("notifications/tasks/status", params);
        }
    }

    /// The answer `tasks/result` gives for a terminal task: the underlying request's own, with
    /// the related-task `_meta` (tasks.mdx#associating-task-related-messages).
    fn task_result(&self, id: &str) -> Option<Result<Value, ErrorObject>> {
        let task = self.tasks.get(id)?;
        if !task.status.is_terminal() {
            return None;
        }
        let related = json!({ "taskId": id });
        Some(match &task.outcome {
            Some(Ok(result)) => {
                let mut result = result.clone();
                if self.fault == Some(Fault::TaskResultAltered) {
                    if let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) {
                        content
                            .push(json!({ "type": "text", "text": "(This answer was computed as a task.)" }));
                    }
                }
                if self.fault != Some(Fault::TaskResultWithoutRelatedTask) {
                    if let Some(o) = result.as_object_mut() {
                        let meta = o.entry("_meta").or_insert_with(|| json!({}));
                        meta[RELATED_TASK_META] = related;
                    }
                }
                Ok(result)
            }
            Some(Err(error)) if self.fault == Some(Fault::TaskErrorBecomesResult) => {
                let mut result = tool_error(&error.message);
                result["_meta"] = json!({ RELATED_TASK_META: related });
                Ok(result)
            }
            Some(Err(error)) => Err(error.clone()),
            None => Err(ErrorObject::new(
                ErrorObject::INTERNAL_ERROR,
                "the task was cancelled before it finished",
            )
            .with_data(json!({ "_meta": { RELATED_TASK_META: related } }))),
        })
    }

    fn answer_waiting_results(&mut self, id: &str) {
        let Some(answer) = self.task_result(id) else { return };
        let waiting: Vec<RequestId> = self
            .jobs
            .iter()
            .filter(|(_, j)| matches!(&j.kind, JobKind::AwaitTask { task } if task == id))
            .map(|(rid, _)| rid.clone())
            .collect();
        let answered = !waiting.is_empty();
        for rid in waiting {
            self.finish(rid, answer.clone());
        }
        if answered {
            self.progress_after_end(id);
        }
    }

    /// `Fault::TaskProgressAfterEnd`: progress for a task whose final answer has gone out.
    fn progress_after_end(&mut self, id: &str) {
        if self.fault != Some(Fault::TaskProgressAfterEnd) {
            return;
        }
        if let Some(token) = self.tasks.get(id).and_then(|t| t.progress_token.clone()) {
            self.notify(
                "notifications/progress",
                json!({ "progressToken": token, "progress": 2, "total": 2 }),
            );
        }
    }

    /// The progress a task's job reports before its tool answers, under the token of the call
    /// that created the task (progress.mdx#behavior-requirements, 2025-11-25).
    pub(super) fn task_progress(&mut self, id: &str, token: &Value) {
        let token = match self.fault {
            Some(Fault::TaskProgressNewToken) => json!(format!("mcpspec-task-{id}")),
            _ => token.clone(),
        };
        let message = "the tool is about to answer";
        self.notify(
            "notifications/progress",
            json!({ "progressToken": token, "progress": 1, "total": 1, "message": message }),
        );
    }

    fn task_id<'a>(&self, params: Option<&'a Value>) -> Result<&'a str, ErrorObject> {
        if self.fault == Some(Fault::TaskMetaOverridesParam) {
            if let Some(named) = params.and_then(mcpspec_protocol::tasks::related_task) {
                return Ok(named);
            }
        }
        params
            .and_then(|p| p.get("taskId"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("params.taskId, a string, is required"))
    }

    fn unknown(&self, id: &str) -> ErrorObject {
        if self.fault == Some(Fault::TaskUnknownWrongCode) {
            return ErrorObject::new(ErrorObject::INVALID_REQUEST, format!("Invalid Request: no task {id}"));
        }
        unknown_task(id)
    }

    /// `tasks/get`, `tasks/result`, `tasks/list` and `tasks/cancel`.
    pub(super) fn task_request(&mut self, r: Request) {
        let params = r.params.as_ref();
        let outcome = match r.method.as_str() {
            "tasks/get" => match self.task_id(params) {
                Ok(id) => {
                    let id = id.to_owned();
                    self.get_task(&id)
                }
                Err(e) => Err(e),
            },
            "tasks/result" => match self.task_id(params) {
                Ok(id) if self.tasks.get(id).is_none() => Err(self.unknown(id)),
                Ok(id) => match self.task_result(id) {
                    Some(answer) => {
                        let id = id.to_owned();
                        self.respond(Some(r.id), answer);
                        return self.progress_after_end(&id);
                    }
                    None => {
                        // tasks.mdx#result-retrieval: it blocks until the task is terminal.
                        let kind = JobKind::AwaitTask { task: id.to_owned() };
                        return self.start_job(r.id, None, None, kind);
                    }
                },
                Err(e) => Err(e),
            },
            "tasks/list" => self.list_tasks(params),
            _ => self.cancel_task(params),
        };
        let outcome = match (outcome, self.fault, r.method.as_str()) {
            (Ok(task), Some(Fault::TaskResultsRelatedMeta), "tasks/get" | "tasks/cancel") => {
                let id = task.get("taskId").and_then(Value::as_str).unwrap_or_default().to_owned();
                Ok(with_related_meta(task, &id))
            }
            (outcome, ..) => outcome,
        };
        self.respond(Some(r.id), outcome);
    }

    /// `tasks/get`: the task as it stands.
    fn get_task(&mut self, id: &str) -> Result<Value, ErrorObject> {
        let Some(task) = self.tasks.get(id) else { return Err(self.unknown(id)) };
        let mut json = self.task_json(id, task);
        let reopened = self.fault == Some(Fault::TaskTerminalReopens) && task.reported_terminal;
        if reopened {
            json["status"] = TaskStatus::Working.as_str().into();
        }
        let terminal = task.status.is_terminal();
        if let Some(task) = self.tasks.get_mut(id) {
            task.reported_terminal |= terminal;
        }
        Ok(json)
    }

    fn list_tasks(&self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let start = match params.and_then(|p| p.get("cursor")) {
            None | Some(Value::Null) => 0,
            Some(Value::String(c)) => c
                .strip_prefix("tasks:")
                .and_then(|n| n.parse::<usize>().ok())
                .filter(|n| *n <= self.tasks.tasks.len())
                .ok_or_else(|| invalid_params(&format!("Invalid cursor: {c:?}")))?,
            Some(_) => return Err(invalid_params("params.cursor must be a string")),
        };
        let listed: Vec<(&String, &Task)> = self
            .tasks
            .tasks
            .iter()
            .filter(|(_, t)| {
                !(self.fault == Some(Fault::TaskListOmitsCompleted) && t.status == TaskStatus::Completed)
            })
            .map(|(id, t)| (id, t))
            .collect();
        let page: Vec<Value> =
            listed.iter().skip(start).take(LIST_PAGE).map(|(id, t)| self.task_json(id, t)).collect();
        let mut result = json!({ "tasks": page });
        if start + LIST_PAGE < listed.len() && self.fault != Some(Fault::TaskListNoNextCursor) {
            result["nextCursor"] = format!("tasks:{}", start + LIST_PAGE).into();
        }
        Ok(result)
    }

    fn cancel_task(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let id = self.task_id(params)?.to_owned();
        let fault = self.fault;
        let Some(task) = self.tasks.get_mut(&id) else { return Err(self.unknown(&id)) };
        if task.status.is_terminal() && fault != Some(Fault::TaskCancelTerminalAccepted) {
            // tasks.mdx#cancelling-tasks: a terminal task cannot be cancelled (-32602).
            let why = format!("Task {id} is already {}; it cannot be cancelled", task.status.as_str());
            return Err(invalid_params(&why));
        }
        // Marked cancelled before the answer (MUST); the tool's job is dropped unanswered,
        // except where the fault lets it finish and overwrite the status.
        task.status = TaskStatus::Cancelled;
        task.status_message = Some("Cancelled at the requestor's request.".into());
        task.last_updated_at = timestamp();
        if fault != Some(Fault::TaskCancelledCompletes) {
            self.jobs.remove(&RequestId::String(format!("{TASK_JOB_PREFIX}{id}")));
        }
        self.task_status_changed(&id);
        self.answer_waiting_results(&id);
        let task = self.tasks.get(&id).expect("the task just cancelled");
        Ok(self.task_json(&id, task))
    }
}
