//! Everything the reference server sends, in a session that touches every feature, is valid
//! under the schema of the negotiated revision: mcpspec's own schemas and, when
//! `../shared/schemas` exists beside the checkout, the official ones.

use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::server::{ReferenceServer, ServerConfig};
use mcpspec_schema::{SchemaSet, StreamValidator, Validation};
use serde_json::{json, Value};
use std::path::Path;
use std::time::{Duration, Instant};

/// A client that plays a whole session and answers the server's requests.
struct Client<'a> {
    server: ReferenceServer,
    stream: StreamValidator<'a>,
    now: Instant,
    rev: Revision,
    next_id: i64,
    checked: usize,
    which: &'a str,
    tool_uses: usize,
}

impl Client<'_> {
    fn deliver(&mut self, message: Value) {
        self.stream.validate(Direction::ClientToServer, &message);
        let replies = self.server.on_value_at(&message, self.now);
        self.judge(replies);
    }

    fn advance(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
        let replies = self.server.poll(self.now);
        self.judge(replies);
    }

    fn judge(&mut self, replies: Vec<Value>) {
        for reply in replies {
            for v in self.stream.validate(Direction::ServerToClient, &reply) {
                // Digest §T2: an error for a request whose id could not be read carries no id, as
                // JSON-RPC says; the schemas before 2025-11-25 require one. JSON-RPC wins.
                let idless_error = reply.get("id").is_none() && reply.get("error").is_some();
                assert!(
                    matches!(v, Validation::Valid { .. })
                        || (idless_error && self.rev < Revision::V2025_11_25),
                    "{} {}: the reference server sent {reply}: {v:?}",
                    self.which,
                    self.rev
                );
                self.checked += 1;
            }
            if let (Some(id), Some(method)) = (reply.get("id"), reply["method"].as_str()) {
                let result = self.answer(method);
                self.deliver(json!({"jsonrpc": "2.0", "id": id, "result": result}));
            }
        }
    }

    /// The client's answer to a server request.
    fn answer(&mut self, method: &str) -> Value {
        match method {
            "sampling/createMessage" if self.rev >= Revision::V2025_11_25 && self.tool_uses < 2 => {
                self.tool_uses += 1;
                json!({"role": "assistant", "model": "scripted", "stopReason": "toolUse",
                    "content": [{"type": "tool_use", "id": format!("use-{}", self.tool_uses),
                        "name": "lookup", "input": {"query": "q"}}]})
            }
            "sampling/createMessage" => json!({"role": "assistant", "model": "scripted",
                "stopReason": "endTurn", "content": {"type": "text", "text": "hello"}}),
            "elicitation/create" => json!({"action": "accept", "content": {"username": "u"}}),
            "roots/list" => json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]}),
            "ping" => json!({}),
            other => panic!("unexpected server request {other}"),
        }
    }

    fn request(&mut self, method: &str, params: Value) {
        self.next_id += 1;
        let id =
            if self.next_id % 2 == 0 { json!(self.next_id) } else { json!(format!("r{}", self.next_id)) };
        self.deliver(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
    }

    fn list_all(&mut self, method: &str) {
        let mut params = json!({});
        for _ in 0..20 {
            self.next_id += 1;
            let m = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
            self.stream.validate(Direction::ClientToServer, &m);
            let replies = self.server.on_value_at(&m, self.now);
            let next = replies[0]["result"].get("nextCursor").cloned();
            self.judge(replies);
            match next {
                Some(c) => params = json!({"cursor": c}),
                None => return,
            }
        }
        panic!("{method} does not end");
    }
}

fn session(set: &SchemaSet, rev: Revision, which: &str) -> usize {
    let mut c = Client {
        server: ReferenceServer::new(ServerConfig::default()),
        stream: StreamValidator::new(set.get(rev).unwrap()),
        now: Instant::now(),
        rev,
        next_id: 1,
        checked: 0,
        which,
        tool_uses: 0,
    };
    let mut caps = json!({"sampling": {}, "roots": {"listChanged": true}});
    if rev >= Revision::V2025_06_18 {
        caps["elicitation"] = json!({});
    }
    if rev >= Revision::V2025_11_25 {
        caps["sampling"] = json!({"tools": {}});
        caps["elicitation"] = json!({"form": {}});
    }
    c.deliver(json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}));
    c.deliver(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": rev.as_str(),
        "capabilities": caps, "clientInfo": {"name": "mcpspec-test", "version": "1"}}}),
    );
    c.deliver(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    for list in ["tools/list", "resources/list", "resources/templates/list", "prompts/list"] {
        c.list_all(list);
    }
    c.request("tools/list", json!({"cursor": "bogus"}));
    let tools = [
        ("test_simple_text", json!({})),
        ("test_image_content", json!({})),
        ("test_audio_content", json!({})),
        ("test_embedded_resource", json!({})),
        ("test_multiple_content_types", json!({})),
        ("test_tool_with_logging", json!({})),
        ("test_error_handling", json!({})),
        ("test_sampling", json!({"prompt": "hi"})),
        ("test_elicitation", json!({})),
        ("test_roots", json!({})),
        ("echo", json!({"message": "hi"})),
        ("echo", json!({})),
        ("add", json!({"a": 1, "b": 2})),
        ("touch_watched", json!({})),
        ("no-such-tool", json!({})),
    ];
    for (name, args) in tools {
        c.request("tools/call", json!({"name": name, "arguments": args}));
    }
    c.request("tools/call", json!({"name": "test_tool_with_progress", "_meta": {"progressToken": "p1"}}));
    c.request("tools/call", json!({"name": "slow", "arguments": {"ms": 20}}));
    c.advance(100);
    // A cancelled slow call, and a sampling call the client never answers.
    c.deliver(
        json!({"jsonrpc": "2.0", "id": "cancel-me", "method": "tools/call", "params": {"name": "slow"}}),
    );
    c.deliver(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": "cancel-me"}}),
    );
    c.request("logging/setLevel", json!({"level": "warning"}));
    c.request("logging/setLevel", json!({"level": "loud"}));
    c.request("tools/call", json!({"name": "test_tool_with_logging"}));
    for uri in [
        "test://static-text",
        "test://static-binary",
        "test://template/7/data",
        "test://greeting/ann",
        "test://nope",
    ] {
        c.request("resources/read", json!({"uri": uri}));
    }
    c.request("resources/subscribe", json!({"uri": "test://watched-resource"}));
    c.advance(100);
    c.request("tools/call", json!({"name": "touch_watched"}));
    c.request("resources/unsubscribe", json!({"uri": "test://watched-resource"}));
    c.request("prompts/get", json!({"name": "test_simple_prompt"}));
    c.request(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}),
    );
    c.request("prompts/get", json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://static-text"}}));
    c.request("prompts/get", json!({"name": "test_prompt_with_image"}));
    c.request("prompts/get", json!({"name": "test_prompt_with_arguments"}));
    c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "a"}}),
    );
    c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
        "argument": {"name": "id", "value": "1"}}),
    );
    c.request("no/such/method", json!({}));
    c.deliver(json!({"jsonrpc": "2.0", "id": null, "method": "ping"}));
    if rev.allows_batches() {
        c.deliver(json!([{"jsonrpc": "2.0", "id": 900, "method": "ping"},
            {"jsonrpc": "2.0", "id": 901, "method": "tools/call", "params": {"name": "slow", "arguments": {"ms": 5}}}]));
        c.advance(10);
    }
    // The client never answers this one: the tool gives up and cancels its request.
    c.tool_uses = 99;
    let mut silent = c.server.on_value_at(
        &json!({"jsonrpc": "2.0", "id": "unanswered", "method": "tools/call", "params": {"name": "test_roots"}}),
        c.now,
    );
    c.stream.validate(Direction::ClientToServer, &json!({"jsonrpc": "2.0", "id": "unanswered", "method": "tools/call", "params": {"name": "test_roots"}}));
    assert_eq!(silent.len(), 1);
    let roots = silent.remove(0);
    c.stream.validate(Direction::ServerToClient, &roots);
    c.advance(10_000);
    let unanswered: Vec<_> = c
        .stream
        .unanswered()
        .filter(|(d, ..)| *d == Direction::ClientToServer)
        .map(|(_, id, m)| format!("{id} {m}"))
        .collect();
    assert_eq!(unanswered, ["\"cancel-me\" tools/call"], "{which} {rev}");
    c.checked
}

fn official() -> Option<SchemaSet> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/schemas");
    dir.is_dir().then(|| SchemaSet::from_dir(&dir).expect("the official schemas load"))
}

#[test]
fn every_answer_is_valid_under_our_schemas() {
    let set = SchemaSet::builtin();
    for rev in Revision::LEGACY {
        assert!(session(&set, rev, "ours") > 60, "{rev}");
    }
}

#[test]
fn every_answer_is_valid_under_the_official_schemas() {
    let Some(set) = official() else {
        eprintln!("../shared/schemas is absent: skipped");
        return;
    };
    for rev in Revision::LEGACY {
        assert!(session(&set, rev, "official") > 60, "{rev}");
    }
}

// ---- the modern era ---------------------------------------------------------------------

/// A modern client: every request carries `_meta`; MRTR exchanges are played to the end. Every
/// message both ways is validated under the 2026-07-28 schema.
struct Modern<'a> {
    server: ReferenceServer,
    stream: StreamValidator<'a>,
    now: Instant,
    next_id: i64,
    checked: usize,
    which: &'a str,
    caps: Value,
    tool_uses: usize,
}

impl Modern<'_> {
    fn meta(&self) -> Value {
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": self.caps,
            "io.modelcontextprotocol/clientInfo": {"name": "mcpspec-test", "version": "1"}})
    }

    fn judge(&mut self, replies: &[Value]) {
        for reply in replies {
            for v in self.stream.validate(Direction::ServerToClient, reply) {
                assert!(
                    matches!(v, Validation::Valid { .. }),
                    "{}: the reference server sent {reply}: {v:?}",
                    self.which
                );
                self.checked += 1;
            }
        }
    }

    /// Sends one message as it is; returns what the server wrote.
    fn raw(&mut self, message: Value) -> Vec<Value> {
        self.stream.validate(Direction::ClientToServer, &message);
        let replies = self.server.on_value_at(&message, self.now);
        self.judge(&replies);
        replies
    }

    fn advance(&mut self, ms: u64) {
        self.now += Duration::from_millis(ms);
        let replies = self.server.poll(self.now);
        self.judge(&replies);
    }

    /// A request with `_meta`; returns its response (the last message answering it).
    fn request(&mut self, method: &str, mut params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        let mut meta = self.meta();
        if let Some(extra) = params.get("_meta").and_then(Value::as_object) {
            meta.as_object_mut().unwrap().extend(extra.clone());
        }
        params["_meta"] = meta;
        let replies = self.raw(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        replies.into_iter().rev().find(|r| r["id"] == id && r.get("method").is_none()).unwrap_or(Value::Null)
    }

    /// The client's answer to an input request.
    fn answer(&mut self, request: &Value) -> Value {
        match request["method"].as_str() {
            Some("sampling/createMessage")
                if request["params"].get("tools").is_some() && self.tool_uses < 2 =>
            {
                self.tool_uses += 1;
                json!({"role": "assistant", "model": "scripted", "stopReason": "toolUse",
                    "content": [{"type": "tool_use", "id": format!("use-{}", self.tool_uses),
                        "name": "lookup", "input": {"query": "q"}}]})
            }
            Some("sampling/createMessage") => json!({"role": "assistant", "model": "scripted",
                "stopReason": "endTurn", "content": {"type": "text", "text": "hello"}}),
            Some("elicitation/create") => {
                json!({"action": "accept", "content": {"username": "u", "topic": "owls"}})
            }
            _ => json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]}),
        }
    }

    /// A request played through every `input_required` to its end.
    fn play(&mut self, method: &str, params: Value) -> Value {
        let mut answer = self.request(method, params.clone());
        for _ in 0..10 {
            if answer["result"]["resultType"] != "input_required" {
                return answer;
            }
            let mut responses = serde_json::Map::new();
            let asks = answer["result"]["inputRequests"].as_object().cloned().unwrap_or_default();
            for (k, r) in asks {
                let a = self.answer(&r);
                responses.insert(k, a);
            }
            let mut retry = params.clone();
            retry["inputResponses"] = Value::Object(responses);
            retry["requestState"] = answer["result"]["requestState"].clone();
            answer = self.request(method, retry);
        }
        panic!("{method} {params} does not end");
    }
}

fn modern_session(set: &SchemaSet, which: &str) -> usize {
    let mut c = Modern {
        server: ReferenceServer::new(ServerConfig::default()),
        stream: StreamValidator::new(set.get(Revision::V2026_07_28).expect("a 2026-07-28 schema")),
        now: Instant::now(),
        next_id: 0,
        checked: 0,
        which,
        caps: json!({"sampling": {"tools": {}}, "elicitation": {"form": {}}, "roots": {}}),
        tool_uses: 0,
    };
    c.request("server/discover", json!({}));
    for list in ["tools/list", "resources/list", "resources/templates/list", "prompts/list"] {
        let mut params = json!({});
        for _ in 0..20 {
            let page = c.request(list, params);
            match page["result"].get("nextCursor") {
                Some(next) => params = json!({"cursor": next}),
                None => break,
            }
        }
    }
    c.request("tools/list", json!({"cursor": ""}));
    let tools = [
        "test_simple_text",
        "test_image_content",
        "test_audio_content",
        "test_embedded_resource",
        "test_multiple_content_types",
        "test_tool_with_logging",
        "test_error_handling",
        "test_sampling",
        "test_elicitation",
        "test_roots",
        "test_mrtr_multiple_inputs",
        "test_mrtr_multi_round",
        "touch_watched",
        "no-such-tool",
    ];
    for name in tools {
        c.play("tools/call", json!({"name": name, "arguments": {}}));
    }
    c.request("tools/call", json!({"name": "echo", "arguments": {"message": "hi"}}));
    c.request("tools/call", json!({"name": "add", "arguments": {"a": 1, "b": 2}}));
    c.request(
        "tools/call",
        json!({"name": "test_tool_with_logging", "_meta": {"io.modelcontextprotocol/logLevel": "debug"}}),
    );
    c.request("tools/call", json!({"name": "test_tool_with_progress", "_meta": {"progressToken": "p1"}}));
    c.advance(100);
    for uri in [
        "test://static-text",
        "test://static-binary",
        "test://watched-resource",
        "test://template/7/data",
        "test://nope",
    ] {
        c.request("resources/read", json!({"uri": uri}));
    }
    c.play("resources/read", json!({"uri": "test://mrtr/needs-input"}));
    c.play("prompts/get", json!({"name": "test_mrtr_prompt"}));
    c.request(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}),
    );
    c.request("prompts/get", json!({"name": "test_prompt_with_image"}));
    c.request("prompts/get", json!({"name": "nope"}));
    c.request(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "a"}}),
    );
    // A listen stream: acknowledged, one update, then cancelled.
    c.next_id += 1;
    let listen_id = json!(format!("listen-{}", c.next_id));
    let meta = c.meta();
    c.raw(
        json!({"jsonrpc": "2.0", "id": listen_id, "method": "subscriptions/listen", "params": {"_meta": meta,
        "notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://watched-resource"]}}}),
    );
    c.advance(100);
    c.raw(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"_meta": {}, "requestId": listen_id}}));
    // Errors: unknown and removed methods, a missing capability, a tampered state, bad _meta.
    c.request("ping", json!({}));
    c.request("no/such/method", json!({}));
    c.request("tools/call", json!({"name": "test_elicitation", "requestState": "tampered"}));
    c.caps = json!({});
    c.request("tools/call", json!({"name": "test_roots"}));
    c.raw(json!({"jsonrpc": "2.0", "id": "no-meta", "method": "server/discover"}));
    c.raw(json!({"jsonrpc": "2.0", "id": "old", "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}}}));
    c.checked
}

#[test]
fn every_modern_answer_is_valid_under_our_schema() {
    let set = SchemaSet::builtin();
    let n = modern_session(&set, "ours");
    assert!(n >= 70, "{n}");
}

#[test]
fn every_modern_answer_is_valid_under_the_official_schema() {
    let Some(set) = official() else {
        eprintln!("../shared/schemas is absent: skipped");
        return;
    };
    if set.get(Revision::V2026_07_28).is_none() {
        eprintln!("no official 2026-07-28 schema: skipped");
        return;
    }
    let n = modern_session(&set, "official");
    assert!(n >= 70, "{n}");
}
