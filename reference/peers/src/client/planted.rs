//! The planted bugs of the reference client (the `fuzz-` client faults), as a client fuzzer meets
//! them: each trips only on its trigger, in what the client reads from its server, and ends the
//! process as the real bug would ([`Crash`]); otherwise the client is the clean reference client.

use super::ClientFault;
use crate::faults::injection::Crash;
use crate::transport::http_client::{BodyEnd, HttpEvent, SseMeta, SESSION_HEADER};
use mcpspec_protocol::framing::FrameContent;
use mcpspec_protocol::sse::SseEvent;
use mcpspec_protocol::wire::RequestId;
use serde_json::Value;

/// The longest SSE event data the fixed event buffer takes (`fuzz-http-crash-big-event`).
const MAX_EVENT_BYTES: usize = 64 * 1024;
/// The longest `retry` whose microseconds fit a `u32` (`fuzz-http-crash-retry`).
const MAX_RETRY_MS: u64 = u32::MAX as u64 / 1000;

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

/// The planted bugs of the HTTP transport (the `fuzz-http-` client faults): what they remember
/// of the exchanges so far, and whether one trips on the next event the transport yields.
#[derive(Debug)]
pub(super) struct HttpBugs {
    /// Over HTTP+SSE every POST is answered 202 (`fuzz-http-hang-accepted` is a Streamable
    /// HTTP client's bug).
    legacy: bool,
    /// POST exchanges, by number (`fuzz-http-hang-endless-stream` reads their streams).
    posts: std::collections::HashSet<u64>,
    /// Exchanges answered with a 5xx, by number (`fuzz-http-crash-empty-error`).
    failed: std::collections::HashSet<u64>,
}

impl HttpBugs {
    pub(super) fn new(flavor: crate::transport::Flavor) -> HttpBugs {
        HttpBugs {
            legacy: flavor == crate::transport::Flavor::LegacySse,
            posts: Default::default(),
            failed: Default::default(),
        }
    }

    /// What `fault` does with `event`, if it trips.
    pub(super) fn trips(&mut self, fault: ClientFault, event: &HttpEvent) -> Option<Crash> {
        let panic = |at: &'static str, message: String| Some(Crash::Panic { at, message });
        match (fault, event) {
            (_, HttpEvent::Response(x))
                if x.method == "POST" && fault == ClientFault::FuzzHttpHangEndlessStream =>
            {
                self.posts.insert(x.n);
                None
            }
            (ClientFault::FuzzHttpCrashHeaderBytes, HttpEvent::Response(x)) => {
                // The transport keeps values lossily: a byte outside visible ASCII shows as itself
                // or as U+FFFD, either way not visible ASCII.
                let odd = x
                    .headers
                    .iter()
                    .find(|(_, v)| !v.chars().all(|c| c == '\t' || (' '..='~').contains(&c)))?;
                panic(
                    "reference/peers/src/client/http.rs:212:58",
                    format!(
                        "called `Result::unwrap()` on an `Err` value: ToStrError {{ _priv: () }} ({})",
                        odd.0
                    ),
                )
            }
            (ClientFault::FuzzHttpCrashContentType, HttpEvent::Response(x)) => {
                let value = x.header("content-type")?;
                let bare = value.split(';').skip(1).map(str::trim).any(|p| !p.is_empty() && !p.contains('='));
                bare.then_some(())?;
                panic(
                    "reference/peers/src/transport/http_client/body.rs:71:44",
                    "called `Option::unwrap()` on a `None` value".into(),
                )
            }
            (ClientFault::FuzzHttpCrashEmptyError, HttpEvent::Response(x)) => {
                if x.status >= 500 {
                    self.failed.insert(x.n);
                }
                None
            }
            (
                ClientFault::FuzzHttpCrashEmptyError,
                HttpEvent::End { n, end: BodyEnd::Complete { bytes: 0 } },
            ) => {
                self.failed.contains(n).then_some(())?;
                panic(
                    "reference/peers/src/client/http.rs:190:61",
                    "called `Result::unwrap()` on an `Err` value: Error(\"EOF while parsing a value\", line: 1, column: 0)"
                        .into(),
                )
            }
            (ClientFault::FuzzHttpCrashSessionChanged, HttpEvent::Response(x)) => {
                let sent = x.request_headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(SESSION_HEADER))?;
                let got = x.header(SESSION_HEADER)?;
                (got != sent.1).then_some(())?;
                panic(
                    "reference/peers/src/client/http.rs:176:17",
                    format!("assertion `left == right` failed: the session id changed\n  left: {:?}\n right: {got:?}", sent.1),
                )
            }
            (ClientFault::FuzzHttpHangAccepted, HttpEvent::Response(x)) => {
                (x.status == 202 && !x.requests.is_empty() && !self.legacy).then_some(Crash::Hang)
            }
            (ClientFault::FuzzHttpCrashBigEvent, HttpEvent::Message { frame, sse: Some(_), .. }) => {
                let len = match &frame.content {
                    FrameContent::Json { value, .. } => value.to_string().len(),
                    _ => 0,
                };
                (len > MAX_EVENT_BYTES).then_some(())?;
                panic(
                    "reference/peers/src/transport/http_client/body.rs:102:25",
                    format!("event buffer overflow: {len} > {MAX_EVENT_BYTES}"),
                )
            }
            (
                ClientFault::FuzzHttpCrashRetry,
                HttpEvent::Message { sse: Some(SseMeta { retry: Some(ms), .. }), .. },
            )
            | (
                ClientFault::FuzzHttpCrashRetry,
                HttpEvent::Event { event: SseEvent { retry: Some(ms), .. }, .. },
            ) if *ms > MAX_RETRY_MS => panic(
                "reference/peers/src/transport/http_client/mod.rs:702:38",
                "attempt to multiply with overflow".into(),
            ),
            _ => None,
        }
    }

    /// Whether `fuzz-http-hang-endless-stream` now reads exchange `n`'s stream to its end: a
    /// message came on the SSE stream of one of its POSTs.
    pub(super) fn reads_to_end(&self, fault: ClientFault, event: &HttpEvent) -> Option<u64> {
        match event {
            HttpEvent::Message { n, sse: Some(_), .. }
                if fault == ClientFault::FuzzHttpHangEndlessStream && self.posts.contains(n) =>
            {
                Some(*n)
            }
            _ => None,
        }
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

    /// The HTTP transport's planted bugs trip on their trigger only: what a clean server sends
    /// (a session's own id, an SSE body, a 202 to a notification) leaves the client clean.
    #[test]
    fn each_planted_http_bug_trips_on_its_trigger_only() {
        use crate::transport::http_client::{BodyKind, Exchange};
        use crate::transport::Flavor;
        let head = |status: u16, headers: &[(&str, &str)], requests: bool| {
            HttpEvent::Response(Exchange {
                n: 2,
                method: "POST",
                url: "http://127.0.0.1:1/mcp".into(),
                request_headers: vec![(SESSION_HEADER.into(), "s1".into())],
                body: if requests { BodyKind::Requests } else { BodyKind::NoRequests },
                requests: if requests { vec![RequestId::from(1)] } else { Vec::new() },
                status,
                headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
            })
        };
        let sse = [("content-type", "text/event-stream"), (SESSION_HEADER, "s1")];
        let trips = |fault, events: &[HttpEvent]| {
            let mut bugs = HttpBugs::new(Flavor::Streamable);
            events.iter().find_map(|e| bugs.trips(fault, e))
        };
        for fault in ClientFault::ALL.iter().filter(|f| f.name().starts_with("fuzz-http-")) {
            assert!(trips(*fault, &[head(200, &sse, true), head(202, &[], false)]).is_none(), "{fault:?}");
        }
        let odd = [("content-type", "text/event-stream"), ("x-odd", "caf\u{e9}")];
        assert!(trips(ClientFault::FuzzHttpCrashHeaderBytes, &[head(200, &odd, true)]).is_some());
        let bare = [("content-type", "text/event-stream; charset")];
        assert!(trips(ClientFault::FuzzHttpCrashContentType, &[head(200, &bare, true)]).is_some());
        let other = [(SESSION_HEADER, "s2")];
        assert!(trips(ClientFault::FuzzHttpCrashSessionChanged, &[head(200, &other, true)]).is_some());
        assert_eq!(trips(ClientFault::FuzzHttpHangAccepted, &[head(202, &[], true)]), Some(Crash::Hang));
        let mut legacy = HttpBugs::new(Flavor::LegacySse);
        assert!(legacy.trips(ClientFault::FuzzHttpHangAccepted, &head(202, &[], true)).is_none());
        let end = |bytes| HttpEvent::End { n: 2, end: BodyEnd::Complete { bytes } };
        assert!(trips(ClientFault::FuzzHttpCrashEmptyError, &[head(503, &[], true), end(0)]).is_some());
        assert!(trips(ClientFault::FuzzHttpCrashEmptyError, &[head(503, &[], true), end(9)]).is_none());
        let retry =
            |ms| HttpEvent::Event { n: 2, event: SseEvent { retry: Some(ms), ..SseEvent::default() } };
        assert!(trips(ClientFault::FuzzHttpCrashRetry, &[retry(5_000_000)]).is_some());
        assert!(trips(ClientFault::FuzzHttpCrashRetry, &[retry(1000)]).is_none());
    }
}
