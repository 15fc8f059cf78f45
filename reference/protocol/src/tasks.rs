//! The vocabulary of tasks (`basic/utilities/tasks.mdx`, experimental in 2025-11-25): a task's
//! statuses and the paths between them, the `_meta` key that ties a message to a task, how a
//! tool says whether it may run as one, and what a task object must hold, as pure functions
//! shared by the reference server and the harness's checks.

use serde_json::Value;

/// The `_meta` key naming the task a message belongs to (`#associating-task-related-messages`).
pub const RELATED_TASK_META: &str = "io.modelcontextprotocol/related-task";

/// A task's status (`#task-status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<TaskStatus> {
        [
            TaskStatus::Working,
            TaskStatus::InputRequired,
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }

    /// Completed, failed and cancelled tasks never change again (`#status-lifecycle`).
    pub fn is_terminal(self) -> bool {
        matches!(self, TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled)
    }

    /// Whether a task may go from `self` to `next` (`#status-lifecycle`): from working to any
    /// other status; from input_required back to working or to a terminal status; from a
    /// terminal status nowhere. Staying put is no transition.
    pub fn may_become(self, next: TaskStatus) -> bool {
        self == next
            || match self {
                TaskStatus::Working => true,
                TaskStatus::InputRequired => next != TaskStatus::InputRequired,
                _ => false,
            }
    }
}

/// What a tool says of running as a task (`execution.taskSupport`, `#tool-level-negotiation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskSupport {
    /// Absent or `"forbidden"`: never as a task.
    Forbidden,
    Optional,
    Required,
}

impl TaskSupport {
    /// The support a tool of a `tools/list` result declares; an unknown value reads as absent.
    pub fn of_tool(tool: &Value) -> TaskSupport {
        match tool.pointer("/execution/taskSupport").and_then(Value::as_str) {
            Some("optional") => TaskSupport::Optional,
            Some("required") => TaskSupport::Required,
            _ => TaskSupport::Forbidden,
        }
    }
}

/// Whether a server's `capabilities` let a client call its tools as tasks
/// (`tasks.requests.tools.call`, `#capabilities`).
pub fn tool_calls_as_tasks(capabilities: &Value) -> bool {
    capabilities.pointer("/tasks/requests/tools/call").is_some_and(Value::is_object)
}

/// The task id a message's `_meta` ties it to, if any.
pub fn related_task(meta_holder: &Value) -> Option<&str> {
    meta_holder.get("_meta")?.get(RELATED_TASK_META)?.get("taskId")?.as_str()
}

/// What is wrong with a task object (a `CreateTaskResult`'s `task`, a `tasks/get` or
/// `tasks/cancel` result, an entry of `tasks/list`): its id a string (`#task-creation`), a known
/// status, `createdAt` and `lastUpdatedAt` ISO 8601 timestamps (`#task-metadata`), `ttl` a
/// number of milliseconds or null (`#ttl-and-resource-management`), `pollInterval` a number
/// when present. Empty when the task is well formed.
pub fn task_problems(task: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(object) = task.as_object() else {
        return vec![format!("the task is {}, not an object", crate::wire::describe(Some(task)))];
    };
    if !object.get("taskId").is_some_and(Value::is_string) {
        out.push(format!("taskId is {}, not a string", crate::wire::describe(object.get("taskId"))));
    }
    match object.get("status").and_then(Value::as_str) {
        Some(s) if TaskStatus::parse(s).is_some() => {}
        _ => {
            out.push(format!("status is {}, not a task status", crate::wire::describe(object.get("status"))))
        }
    }
    for key in ["createdAt", "lastUpdatedAt"] {
        match object.get(key).and_then(Value::as_str) {
            Some(t) if is_timestamp(t) => {}
            _ => out.push(format!(
                "{key} is {}, not an ISO 8601 timestamp",
                crate::wire::describe(object.get(key))
            )),
        }
    }
    match object.get("ttl") {
        Some(Value::Null) => {}
        Some(t) if t.as_f64().is_some_and(|ms| ms >= 0.0) => {}
        other => out.push(format!("ttl is {}, not milliseconds or null", crate::wire::describe(other))),
    }
    if let Some(p) = object.get("pollInterval") {
        if !p.as_f64().is_some_and(|ms| ms >= 0.0) {
            out.push(format!("pollInterval is {}, not milliseconds", crate::wire::describe(Some(p))));
        }
    }
    out
}

/// The fewest bits of entropy an unguessable task id must carry (tasks.mdx#task-isolation-and-access-control:
/// without context binding, ids MUST be "cryptographically secure … with enough entropy to
/// prevent guessing"): 64 bits, half of a UUID v4's.
pub const MIN_TASK_ID_BITS: f64 = 64.0;

/// Why ids a receiver generated one after another could be guessed, or `None` when each carries
/// at least [`MIN_TASK_ID_BITS`]. Only the part in which the ids differ counts: the prefix and
/// suffix all of them share (`task-`, a timestamp's leading digits) are known to a guesser.
/// The rest is weighed by its length and the smallest alphabet it fits (digits, hex, letters and
/// digits, anything). Two or more ids are needed; with fewer, `None`.
pub fn guessable_ids(ids: &[&str]) -> Option<String> {
    if ids.len() < 2 {
        return None;
    }
    let chars: Vec<Vec<char>> = ids.iter().map(|id| id.chars().collect()).collect();
    let shortest = chars.iter().map(Vec::len).min().unwrap_or(0);
    let prefix = (0..shortest).take_while(|&i| chars.iter().all(|c| c[i] == chars[0][i])).count();
    let suffix = (0..shortest - prefix)
        .take_while(|&i| chars.iter().all(|c| c[c.len() - 1 - i] == chars[0][chars[0].len() - 1 - i]))
        .count();
    let mut weakest: Option<(f64, &str)> = None;
    for (id, c) in ids.iter().zip(&chars) {
        let varying = &c[prefix..c.len() - suffix];
        let per_char = if varying.iter().all(char::is_ascii_digit) {
            10f64.log2()
        } else if varying.iter().all(|ch| ch.is_ascii_hexdigit() || *ch == '-') {
            4.0
        } else if varying.iter().all(|ch| ch.is_ascii_alphanumeric() || *ch == '-' || *ch == '_') {
            6.0
        } else {
            6.5
        };
        let significant = varying.iter().filter(|ch| **ch != '-').count() as f64;
        let bits = significant * per_char;
        if weakest.is_none_or(|(b, _)| bits < b) {
            weakest = Some((bits, id));
        }
    }
    let (bits, id) = weakest?;
    (bits < MIN_TASK_ID_BITS).then(|| {
        let shared = chars[0][..prefix].iter().collect::<String>();
        format!(
            "the id {id:?} carries about {bits:.0} bits beyond what the {} ids share (prefix {shared:?}), \
             fewer than {MIN_TASK_ID_BITS:.0}",
            ids.len()
        )
    })
}

/// Whether `text` is an ISO 8601 date and time as RFC 3339 profiles it (`2025-11-25T10:30:00Z`,
/// with optional fractional seconds, `Z` or a numeric offset).
pub fn is_timestamp(text: &str) -> bool {
    // humantime reads the UTC form; a numeric offset is checked for shape and read as UTC,
    // which keeps the date and time fields to their ranges.
    let utc = match text.len().checked_sub(6).and_then(|i| text.get(i..).map(|tail| (i, tail))) {
        Some((i, tail)) if is_offset(tail) => format!("{}Z", &text[..i]),
        _ => text.to_owned(),
    };
    // RFC 3339 allows a lowercase `t` and `z`; humantime reads the uppercase ones.
    let utc = utc.to_ascii_uppercase();
    utc.contains('T') && humantime::parse_rfc3339_weak(&utc).is_ok()
}

fn is_offset(tail: &str) -> bool {
    let b = tail.as_bytes();
    b.len() == 6
        && (b[0] == b'+' || b[0] == b'-')
        && b[1].is_ascii_digit()
        && b[2].is_ascii_digit()
        && b[3] == b':'
        && b[4].is_ascii_digit()
        && b[5].is_ascii_digit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn statuses_move_only_along_the_lifecycle() {
        use TaskStatus::*;
        assert!(Working.may_become(InputRequired) && Working.may_become(Completed));
        assert!(InputRequired.may_become(Working) && InputRequired.may_become(Cancelled));
        for terminal in [Completed, Failed, Cancelled] {
            assert!(terminal.is_terminal());
            assert!(terminal.may_become(terminal), "staying put is no transition");
            for other in
                [Working, InputRequired, Completed, Failed, Cancelled].into_iter().filter(|o| *o != terminal)
            {
                assert!(!terminal.may_become(other), "{terminal:?} -> {other:?}");
            }
        }
        assert_eq!(TaskStatus::parse("input_required"), Some(InputRequired));
        assert_eq!(TaskStatus::parse("done"), None);
    }

    #[test]
    fn a_task_object_is_judged_field_by_field() {
        let good = json!({ "taskId": "t1", "status": "working", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:40:00.123+02:00", "ttl": 60000, "pollInterval": 5000 });
        assert!(task_problems(&good).is_empty(), "{:?}", task_problems(&good));
        assert!(task_problems(
            &json!({ "taskId": "t1", "status": "completed", "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:30:00Z", "ttl": null })
        )
        .is_empty());
        let bad = json!({ "taskId": 7, "status": "done", "createdAt": "yesterday", "ttl": "long" });
        let problems = task_problems(&bad);
        assert_eq!(problems.len(), 5, "{problems:?}");
        assert!(!task_problems(&json!([])).is_empty());
    }

    #[test]
    fn timestamps_are_rfc_3339() {
        for good in [
            "2025-11-25T10:30:00Z",
            "2025-11-25T10:30:00.5Z",
            "2025-11-25t10:30:00z",
            "2025-11-25T10:30:00-05:00",
        ] {
            assert!(is_timestamp(good), "{good}");
        }
        for bad in
            ["2025-11-25", "2025-13-25T10:30:00Z", "10:30:00", "", "2025-11-25T10:30:00+0500", "1764066600"]
        {
            assert!(!is_timestamp(bad), "{bad}");
        }
    }

    #[test]
    fn tools_and_capabilities_say_what_runs_as_a_task() {
        assert_eq!(
            TaskSupport::of_tool(&json!({ "execution": { "taskSupport": "required" } })),
            TaskSupport::Required
        );
        assert_eq!(
            TaskSupport::of_tool(&json!({ "execution": { "taskSupport": "optional" } })),
            TaskSupport::Optional
        );
        assert_eq!(TaskSupport::of_tool(&json!({ "name": "x" })), TaskSupport::Forbidden);
        assert!(tool_calls_as_tasks(&json!({ "tasks": { "requests": { "tools": { "call": {} } } } })));
        assert!(!tool_calls_as_tasks(&json!({ "tasks": { "list": {} } })));
        let message = json!({ "_meta": { RELATED_TASK_META: { "taskId": "t9" } } });
        assert_eq!(related_task(&message), Some("t9"));
        assert_eq!(related_task(&json!({})), None);
    }

    #[test]
    fn task_ids_are_weighed_by_the_part_that_varies() {
        let uuids = ["786512e2-9e0d-44bd-8f29-789f320fe840", "7a0c4a51-3b8e-4c11-9d2e-55c1f0a6b1d3"];
        assert_eq!(guessable_ids(&uuids), None);
        let hex = ["0f3a9c2e7b1d4e6f8a9b0c1d2e3f4a5b", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"];
        assert_eq!(guessable_ids(&hex), None);
        for weak in [
            &["task-1", "task-2", "task-3"][..],
            &["1764066600123", "1764066600456"][..],
            &["mcp-task-000001", "mcp-task-000002"][..],
            &["a1b2c3", "d4e5f6"][..],
        ] {
            let why = guessable_ids(weak).unwrap_or_else(|| panic!("{weak:?} passed"));
            assert!(why.contains("fewer than 64"), "{why}");
        }
        assert_eq!(guessable_ids(&["task-1"]), None, "one id proves nothing");
    }
}
