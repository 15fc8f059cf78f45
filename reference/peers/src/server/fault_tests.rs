//! Each fault of the reference server, as `serve_stdio` runs it behind the fault layer, on
//! virtual time: what a client doing the normal thing sees.

use super::{ReferenceServer, ServerConfig};
use crate::faults::injection::*;
use crate::faults::Fault;
use mcpspec_protocol::framing::{self, FrameContent};
use serde_json::{json, Value};
use std::time::Duration;
use std::time::Instant;

/// The server behind the fault layer, as `serve_stdio` runs it, on virtual time.
struct Peer {
    server: ReferenceServer,
    layer: FaultState,
    now: Instant,
}

impl Peer {
    fn new(fault: Fault) -> Peer {
        let server = ReferenceServer::new(ServerConfig::default()).with_fault(Some(fault));
        Peer { server, layer: FaultState::new(fault), now: Instant::now() }
    }

    /// Initialized at `rev`; returns what the server wrote for `initialize`.
    fn at(fault: Fault, rev: &str, caps: Value) -> (Peer, Vec<Value>) {
        let mut p = Peer::new(fault);
        let init = p.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":rev,"capabilities":caps,"clientInfo":{"name":"t","version":"1"}}}));
        p.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        (p, init)
    }

    fn feed(&mut self, frame: FrameContent) -> Result<Vec<u8>, i32> {
        let answers = match self.layer.intercept(&frame, |id| self.server.is_in_flight(id)) {
            Intercept::Exit(code) => return Err(code),
            // What a panic in `main` exits with (only `fuzz-crash-long-id` crashes here).
            Intercept::Crash(_) => return Err(101),
            Intercept::Answer(a) => a,
            Intercept::Pass => self.server.on_frame_at(&frame, self.now),
        };
        Ok(self.layer.outgoing(Some(&frame), answers))
    }

    fn bytes(&mut self, v: Value) -> Vec<u8> {
        self.feed(FrameContent::Json { value: v, crlf: false, lines: 1 }).expect("no exit")
    }

    fn send(&mut self, v: Value) -> Vec<Value> {
        lines(&self.bytes(v))
    }

    fn advance(&mut self, ms: u64) -> Vec<Value> {
        self.now += Duration::from_millis(ms);
        let answers = self.server.poll(self.now);
        lines(&self.layer.outgoing(None, answers))
    }

    fn call(&mut self, method: &str, params: Value) -> Value {
        let mut out = self.send(json!({"jsonrpc":"2.0","id":7,"method":method,"params":params}));
        assert_eq!(out.len(), 1, "{out:?}");
        out.remove(0)
    }
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).expect("one JSON value per line"))
        .collect()
}

fn at(fault: Fault, rev: &str) -> Peer {
    Peer::at(fault, rev, json!({})).0
}

fn tool(name: &str, args: Value) -> Value {
    json!({"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":name,"arguments":args}})
}

#[test]
fn names_are_unique_and_parse_back() {
    // 124 before issue #27's http-refuse-batches, issue #28's 22 `auth-` faults (3 of 2025-03-26), issue #29's 5 and its 7 `task-` faults,
    // the 12 `task-` faults of the tasks coverage work, and the 6 of issue #29's capability, HTTP and
    // input-validation checks, the 4 `modern-http-param-header-` faults (x-mcp-header), the 4 `task-`
    // faults of the tasks clauses' coverage, and 4 more of issue #29's (lists per process, secrets
    // and user data in elicitations, a subscription ended by a result alone).
    assert_eq!(Fault::ALL.len(), 202);
    for f in Fault::ALL {
        assert_eq!(f.name().parse::<Fault>(), Ok(*f));
    }
    let mut names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), Fault::ALL.len());
    assert!("nope".parse::<Fault>().unwrap_err().contains("ping-non-empty-result"));
}

#[test]
fn skeleton_faults() {
    let (_, init) = Peer::at(Fault::WebsiteUrlNotUri, "2025-11-25", json!({}));
    assert_eq!(init[0]["result"]["serverInfo"]["websiteUrl"], "not a uri");
    let (_, init) = Peer::at(Fault::ResultAndError, "2025-06-18", json!({}));
    assert!(init[0].get("error").is_some() && init[0].get("result").is_some());
    let mut p = at(Fault::StringifyIds, "2025-06-18");
    assert_eq!(p.call("ping", json!({}))["id"], "7");
    let mut p = Peer::new(Fault::NonJsonLine);
    assert!(p.bytes(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).starts_with(b"[info]"));
    let mut p = Peer::new(Fault::EchoUnsupportedRevision);
    let init = p.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
    assert_eq!(init[0]["result"]["protocolVersion"], "1999-01-01");
    let mut p = Peer::new(Fault::Hang);
    assert!(p.bytes(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).is_empty());
}

#[test]
fn unknown_method_wrong_code() {
    assert_eq!(
        at(Fault::UnknownMethodWrongCode, "2025-06-18").call("nope", json!({}))["error"]["code"],
        -32603
    );
}

#[test]
fn answer_notifications() {
    let mut p = at(Fault::AnswerNotifications, "2025-06-18");
    let out = p.send(json!({"jsonrpc":"2.0","method":"notifications/unknown"}));
    assert_eq!(out[0]["error"]["code"], -32601);
    assert!(out[0].get("id").is_none());
    assert!(p
        .send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}))
        .is_empty());
}

#[test]
fn crash_on_garbage() {
    let mut p = at(Fault::CrashOnGarbage, "2025-06-18");
    let garbage = framing::decode_line(b"{");
    assert_eq!(p.feed(garbage), Err(1));
}

/// The planted bugs of `mcpspec fuzz`, below the process: what trips each and what does not
/// (the process itself: `harness/tests/suite/fuzz_faults.rs`).
#[test]
fn fuzz_line_checks_trip_on_their_trigger_only() {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
    let nesting = Fault::FuzzCrashDeepNesting.line_check().unwrap();
    assert_eq!(nesting(&deep(65)), Some(Crash::StackOverflow));
    assert_eq!(nesting(&"{\"a\":".repeat(65).into_bytes()), Some(Crash::StackOverflow));
    assert_eq!(nesting(&deep(64)), None);
    // Brackets inside strings (escaped quotes included) are text; closers never go below 0.
    let quoted = format!("{{\"a\":\"\\\"{}\"}}", "[".repeat(100));
    assert_eq!(nesting(quoted.as_bytes()), None);
    assert_eq!(nesting(&[b"]]]]".as_slice(), &deep(64)].concat()), None);
    assert!(nests_deeper_than(&vec![b'['; 1_000_000], 64));

    let utf8 = Fault::FuzzCrashInvalidUtf8.line_check().unwrap();
    let Some(Crash::Panic { message, .. }) = utf8(b"{\"a\":\"\xff\"}") else { panic!() };
    assert_eq!(
        message,
        "called `Result::unwrap()` on an `Err` value: Utf8Error { valid_up_to: 6, error_len: Some(1) }"
    );
    assert_eq!(utf8("{\"a\":\"é😀\"}".as_bytes()), None);
    assert!(Fault::ALL.iter().filter(|f| f.line_check().is_some()).count() == 2);
}

#[test]
fn fuzz_crash_long_id() {
    let mut p = at(Fault::FuzzCrashLongId, "2025-06-18");
    let ping = |id: usize| FrameContent::Json {
        value: json!({"jsonrpc":"2.0","id":"x".repeat(id),"method":"ping"}),
        crlf: false,
        lines: 1,
    };
    assert_eq!(p.layer.intercept(&ping(512), |id| p.server.is_in_flight(id)), Intercept::Pass);
    let Intercept::Crash(crash) = p.layer.intercept(&ping(513), |id| p.server.is_in_flight(id)) else {
        panic!()
    };
    assert!(crash.stderr().starts_with("thread 'main' panicked at reference/peers/src/server/ids.rs:"));
    assert!(crash.stderr().contains("\nid buffer overflow: 513 > 512\n"), "{}", crash.stderr());
    let response = json!({"jsonrpc":"2.0","id":"x".repeat(600),"result":{}});
    assert_eq!(p.feed(FrameContent::Json { value: response, crlf: false, lines: 1 }), Ok(Vec::new()));
}

#[test]
fn fuzz_crash_tool_argument_and_hang_are_decisions_of_the_server() {
    let mut p = at(Fault::FuzzCrashToolArgument, "2025-06-18");
    assert_eq!(p.send(tool("add", json!({"a": 0, "b": 0})))[0]["result"]["structuredContent"]["sum"], 0.0);
    assert!(p.send(tool("slow", json!({"ms": 1}))).is_empty());
    assert_eq!(p.server.take_crash(), None);
    assert_eq!(p.advance(1)[0]["id"], "t");
    assert!(p.send(tool("slow", json!({"ms": 0}))).is_empty());
    assert_eq!(p.server.take_crash(), Some(Crash::divide_by_zero()));
    assert_eq!(Crash::divide_by_zero().stderr().lines().nth(1), Some("attempt to divide by zero"));

    let mut p = at(Fault::FuzzHangOnInput, "2025-06-18");
    for list in ["tools/list", "prompts/list", "resources/list", "resources/templates/list"] {
        assert_eq!(p.call(list, json!({"cursor": "bogus"}))["error"]["code"], -32602);
        assert_eq!(p.server.take_crash(), None);
    }
    for list in ["tools/list", "resources/list", "resources/templates/list"] {
        p.call(list, json!({"cursor": ""}));
        assert_eq!(p.server.take_crash(), None, "{list}");
    }
    p.call("prompts/list", json!({"cursor": ""}));
    assert_eq!(p.server.take_crash(), Some(Crash::Hang));
}

#[test]
fn accept_invalid_request() {
    let mut p = at(Fault::AcceptInvalidRequest, "2025-06-18");
    assert_eq!(p.send(json!({"jsonrpc":"2.0","id":5})), [json!({"jsonrpc":"2.0","id":5,"result":{}})]);
}

#[test]
fn reject_and_accept_batches() {
    let batch = json!([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]);
    let out = at(Fault::RejectBatches, "2025-03-26").send(batch.clone());
    assert_eq!(out[0]["error"]["code"], -32600);
    let out = at(Fault::AcceptBatches, "2025-06-18").send(batch);
    assert_eq!(out[0].as_array().map(Vec::len), Some(2));
}

#[test]
fn list_changed_and_request_before_initialized() {
    let (_, init) = Peer::at(Fault::ListChangedBeforeInitialized, "2025-06-18", json!({}));
    assert_eq!(init[1]["method"], "notifications/tools/list_changed");
    let (_, init) = Peer::at(Fault::RequestBeforeInitialized, "2025-06-18", json!({"roots": {}}));
    assert_eq!(init[1]["method"], "roots/list");
    let (_, init) = Peer::at(Fault::RequestBeforeInitialized, "2025-06-18", json!({"sampling": {}}));
    assert_eq!(init[1]["method"], "sampling/createMessage");
    assert_eq!(Peer::at(Fault::RequestBeforeInitialized, "2025-06-18", json!({})).1.len(), 1);
    assert!(init[1].get("id").is_some());
}

#[test]
fn undeclared_logging() {
    let (mut p, init) = Peer::at(Fault::UndeclaredLogging, "2025-06-18", json!({}));
    assert!(init[0]["result"]["capabilities"].get("logging").is_none());
    let out = p.send(tool("test_tool_with_logging", json!({})));
    assert_eq!(out[0]["method"], "notifications/message");
}

fn progress(fault: Fault) -> Vec<Value> {
    let mut p = at(fault, "2025-06-18");
    let call = json!({"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"tok"}}});
    assert!(p.send(call).is_empty());
    (0..5).flat_map(|_| p.advance(10)).collect()
}

#[test]
fn progress_faults() {
    let values = |out: &[Value]| -> Vec<Value> {
        out.iter()
            .filter(|m| m["method"] == "notifications/progress")
            .map(|m| m["params"]["progress"].clone())
            .collect()
    };
    assert_eq!(values(&progress(Fault::ProgressDecreasing)), [json!(3), json!(2), json!(1)]);
    let after = progress(Fault::ProgressAfterResponse);
    assert_eq!(after[3]["id"], "p");
    assert_eq!(after[4]["method"], "notifications/progress");
    let unknown = progress(Fault::ProgressUnknownToken);
    assert_eq!(unknown[0]["params"]["progressToken"], "mcpspec-token-nobody-sent");
    let mut p = at(Fault::ProgressTokenZero, "2025-06-18");
    let out = p.send(tool("test_simple_text", json!({})));
    assert_eq!(out[0]["id"], "t");
    assert_eq!(out[1]["params"], json!({"progressToken": 0, "progress": 1}));
    let with_token = json!({"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"test_simple_text","_meta":{"progressToken":"tok"}}});
    assert_eq!(p.send(with_token).len(), 1, "a call with a token gets no stray progress");
}

#[test]
fn respond_after_cancel() {
    let mut p = at(Fault::RespondAfterCancel, "2025-06-18");
    p.send(tool("slow", json!({"ms": 10})));
    p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"t"}}));
    assert_eq!(p.advance(10)[0]["id"], "t");
}

#[test]
fn crash_on_unknown_cancel() {
    let mut p = at(Fault::CrashOnUnknownCancel, "2025-06-18");
    p.send(tool("slow", json!({"ms": 10})));
    let cancel = |id: &str| FrameContent::Json {
        value: json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}}),
        crlf: false,
        lines: 1,
    };
    assert_eq!(p.feed(cancel("t")), Ok(Vec::new()));
    assert_eq!(p.feed(cancel("t")), Err(1));
}

fn pages(fault: Fault, max: usize) -> (Vec<String>, bool) {
    let mut p = at(fault, "2025-06-18");
    let mut names = Vec::new();
    let mut params = json!({});
    for _ in 0..max {
        let page = p.call("prompts/list", params);
        names.extend(
            page["result"]["prompts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["name"].as_str().unwrap().to_owned()),
        );
        match page["result"].get("nextCursor") {
            Some(c) => params = json!({"cursor": c}),
            None => return (names, true),
        }
    }
    (names, false)
}

#[test]
fn pagination_faults() {
    assert!(pages(Fault::PaginationDuplicates, 10).1);
    let (names, ended) = pages(Fault::PaginationDuplicates, 10);
    assert!(ended && names.len() == 6, "{names:?}");
    let (names, ended) = pages(Fault::PaginationCycle, 6);
    assert!(!ended);
    assert_eq!(names[4], names[0]);
    let mut p = at(Fault::AcceptInvalidCursor, "2025-06-18");
    assert_eq!(
        p.call("tools/list", json!({"cursor": "bogus"}))["result"]["tools"].as_array().unwrap().len(),
        2
    );
}

#[test]
fn tool_faults() {
    let mut p = at(Fault::UnknownToolIsErrorResult, "2025-06-18");
    assert_eq!(p.send(tool("nope", json!({})))[0]["result"]["isError"], true);
    let mut p = at(Fault::StructuredContentMismatch, "2025-06-18");
    assert_eq!(p.send(tool("add", json!({"a": 1, "b": 2})))[0]["result"]["structuredContent"]["sum"], "3");
}

#[test]
fn resource_and_prompt_faults() {
    let mut p = at(Fault::UnknownResourceWrongCode, "2025-06-18");
    assert_eq!(p.call("resources/read", json!({"uri": "test://nope"}))["error"]["code"], -32603);
    let mut p = at(Fault::PromptMissingArgumentAccepted, "2025-06-18");
    assert!(p.call("prompts/get", json!({"name": "test_prompt_with_arguments"})).get("result").is_some());
}

#[test]
fn logging_faults() {
    let mut p = at(Fault::InvalidLogLevelAccepted, "2025-06-18");
    assert_eq!(p.call("logging/setLevel", json!({"level": "loud"}))["result"], json!({}));
    let mut p = at(Fault::LogLevelIgnored, "2025-06-18");
    p.call("logging/setLevel", json!({"level": "error"}));
    assert_eq!(p.send(tool("test_tool_with_logging", json!({})))[0]["params"]["level"], "debug");
}

#[test]
fn completion_too_many() {
    let mut p = at(Fault::CompletionTooMany, "2025-06-18");
    let c = p.call("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"}, "argument": {"name": "id", "value": ""}}));
    assert_eq!(c["result"]["completion"]["values"].as_array().unwrap().len(), 150);
}

#[test]
fn client_capability_faults() {
    let mut p = at(Fault::SamplingWithoutCapability, "2025-06-18");
    assert_eq!(p.send(tool("test_sampling", json!({})))[0]["method"], "sampling/createMessage");
    let (mut p, _) = Peer::at(Fault::SamplingToolsWithoutCapability, "2025-11-25", json!({"sampling": {}}));
    assert!(p.send(tool("test_sampling", json!({})))[0]["params"]["tools"].is_array());
    let mut p = at(Fault::ElicitationWithoutCapability, "2025-06-18");
    assert_eq!(p.send(tool("test_elicitation", json!({})))[0]["method"], "elicitation/create");
}

#[test]
fn framing_and_envelope_faults() {
    let ping = json!({"jsonrpc":"2.0","id":3,"method":"ping"});
    let bytes = Peer::new(Fault::PrettyPrintedJson).bytes(ping.clone());
    assert!(bytes.iter().filter(|b| **b == b'\n').count() > 1);
    let mut p = at(Fault::NotificationWithId, "2025-06-18");
    assert!(p.send(tool("test_tool_with_logging", json!({})))[0].get("id").is_some());
    assert_eq!(at(Fault::DuplicateResponse, "2025-06-18").send(ping.clone()).len(), 2);
    let (mut p, init) = Peer::at(Fault::NullIdResponse, "2025-06-18", json!({}));
    assert_eq!(init[0]["id"], 1);
    assert_eq!(p.send(ping.clone())[0]["id"], Value::Null);
    assert_eq!(at(Fault::ErrorCodeString, "2025-06-18").call("nope", json!({}))["error"]["code"], "-32601");
    assert_eq!(at(Fault::PingNonEmptyResult, "2025-06-18").send(ping)[0]["result"], json!({"ok": true}));
}
