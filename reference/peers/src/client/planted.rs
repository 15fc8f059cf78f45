//! The planted bugs of the reference client (the `fuzz-` client faults), as a client fuzzer meets
//! them: each trips only on its trigger, in what the client reads from its server, and ends the
//! process as the real bug would ([`Crash`]); otherwise the client is the clean reference client.

use super::ClientFault;
use crate::faults::injection::Crash;
use mcpspec_protocol::wire::RequestId;
use serde_json::Value;

/// The longest string the fixed buffer takes (`fuzz-crash-long-string`).
const MAX_STRING_BYTES: usize = 64 * 1024;
/// The nesting a recursive walk survives (`fuzz-crash-deep-nesting`).
const MAX_NESTING: usize = 64;

/// What a planted bug does with one message from the server, if it trips. `known` says
/// whether a response's id is one the client sent.
pub(super) fn trips(
    fault: ClientFault,
    message: &Value,
    known: impl Fn(&RequestId) -> bool,
) -> Option<Crash> {
    let panic = |at: &'static str, message: String| Some(Crash::Panic { at, message });
    let method = message.get("method").and_then(Value::as_str);
    let params = message.get("params");
    match fault {
        ClientFault::FuzzCrashLongString => {
            let len = longest_string(message);
            (len > MAX_STRING_BYTES).then_some(())?;
            panic(
                "reference/peers/src/client/persona.rs:88:21",
                format!("string buffer overflow: {len} > {MAX_STRING_BYTES}"),
            )
        }
        ClientFault::FuzzCrashWrongType => {
            let tools = message.pointer("/result/tools")?;
            let wrong = match tools {
                Value::Array(items) => items.iter().any(|t| !t.get("name").is_some_and(Value::is_string)),
                _ => true,
            };
            wrong.then_some(())?;
            panic(
                "reference/peers/src/client/mod.rs:412:40",
                "called `Option::unwrap()` on a `None` value".into(),
            )
        }
        ClientFault::FuzzCrashDeepNesting => (depth(message) > MAX_NESTING).then_some(Crash::StackOverflow),
        ClientFault::FuzzCrashUnknownId => {
            if method.is_some() {
                return None;
            }
            let id = message.get("id").and_then(RequestId::from_value)?;
            (!known(&id)).then_some(())?;
            panic("reference/peers/src/client/mod.rs:277:62", format!("no pending request {id}"))
        }
        ClientFault::FuzzCrashElicitationSchema if method == Some("elicitation/create") => {
            let properties = params?.pointer("/requestedSchema/properties")?.as_object()?;
            // The form renderer takes every default for text.
            properties.values().any(|p| p.get("default").is_some_and(|d| !d.is_string())).then_some(())?;
            panic(
                "reference/peers/src/client/persona.rs:141:55",
                "called `Option::unwrap()` on a `None` value".into(),
            )
        }
        ClientFault::FuzzCrashSamplingEmpty if method == Some("sampling/createMessage") => {
            params?.get("messages")?.as_array()?.is_empty().then_some(())?;
            panic(
                "reference/peers/src/client/persona.rs:63:35",
                "index out of bounds: the len is 0 but the index is 0".into(),
            )
        }
        ClientFault::FuzzHangProgress if method == Some("notifications/progress") => Some(Crash::Hang),
        _ => None,
    }
}

/// The byte length of the longest string (key or value) in `value`, without recursion.
fn longest_string(value: &Value) -> usize {
    let mut longest = 0;
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => longest = longest.max(s.len()),
            Value::Array(items) => stack.extend(items),
            Value::Object(o) => {
                for (k, v) in o {
                    longest = longest.max(k.len());
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    longest
}

/// How many arrays and objects are open at the deepest point of `value`, without recursion.
fn depth(value: &Value) -> usize {
    let mut deepest = 0;
    let mut stack = vec![(value, 0usize)];
    while let Some((v, d)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        deepest = deepest.max(d + 1);
        stack.extend(children.map(|c| (c, d + 1)));
    }
    deepest
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_planted_bug_trips_on_its_trigger_only() {
        let sent = |id: &RequestId| *id == RequestId::from(1);
        let long = json!({"jsonrpc": "2.0", "id": 1, "result": {"x": "a".repeat(70_000)}});
        assert!(trips(ClientFault::FuzzCrashLongString, &long, sent).is_some());
        let short = json!({"jsonrpc": "2.0", "id": 1, "result": {"x": "a".repeat(100)}});
        assert!(trips(ClientFault::FuzzCrashLongString, &short, sent).is_none());
        let wrong = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": 7}]}});
        assert!(trips(ClientFault::FuzzCrashWrongType, &wrong, sent).is_some());
        let right = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "echo"}]}});
        assert!(trips(ClientFault::FuzzCrashWrongType, &right, sent).is_none());
        let mut deep = json!(1);
        for _ in 0..70 {
            deep = json!([deep]);
        }
        assert_eq!(trips(ClientFault::FuzzCrashDeepNesting, &deep, sent), Some(Crash::StackOverflow));
        assert!(trips(ClientFault::FuzzCrashDeepNesting, &right, sent).is_none());
        let stray = json!({"jsonrpc": "2.0", "id": 99, "result": {}});
        assert!(trips(ClientFault::FuzzCrashUnknownId, &stray, sent).is_some());
        assert!(trips(ClientFault::FuzzCrashUnknownId, &short, sent).is_none());
        let schema = json!({"jsonrpc": "2.0", "id": "s", "method": "elicitation/create",
            "params": {"message": "m", "requestedSchema": {"type": "object", "properties": {"a": {"type": "boolean", "default": true}}}}});
        assert!(trips(ClientFault::FuzzCrashElicitationSchema, &schema, sent).is_some());
        let empty = json!({"jsonrpc": "2.0", "id": "s", "method": "sampling/createMessage",
            "params": {"messages": [], "maxTokens": 1}});
        assert!(trips(ClientFault::FuzzCrashSamplingEmpty, &empty, sent).is_some());
        let progress = json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": 1}});
        assert_eq!(trips(ClientFault::FuzzHangProgress, &progress, sent), Some(Crash::Hang));
        assert!(trips(ClientFault::FuzzHangProgress, &short, sent).is_none());
    }
}
