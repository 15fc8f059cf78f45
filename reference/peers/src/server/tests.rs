//! Transcript-style tests of the reference server, on virtual time: `t.send(…)` is what the
//! client writes, the returned values are what the server writes; `t.advance(ms)` lets time pass.

use super::*;
use serde_json::json;

struct T {
    s: ReferenceServer,
    now: Instant,
    next_id: i64,
}

impl T {
    fn new() -> T {
        T::with(ServerConfig::default(), None)
    }

    fn with(config: ServerConfig, fault: Option<Fault>) -> T {
        T { s: ReferenceServer::new(config).with_fault(fault), now: Instant::now(), next_id: 100 }
    }

    /// Initialized at `rev` with these client capabilities.
    fn at(rev: &str, caps: Value) -> T {
        T::at_with(rev, caps, None)
    }

    fn at_with(rev: &str, caps: Value, fault: Option<Fault>) -> T {
        let mut t = T::with(ServerConfig::default(), fault);
        let init = t.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":rev,"capabilities":caps,"clientInfo":{"name":"t","version":"1"}}}));
        assert_eq!(init[0]["result"]["protocolVersion"], rev);
        assert!(t.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).is_empty());
        t
    }

    fn send(&mut self, v: Value) -> Vec<Value> {
        self.s.on_value_at(&v, self.now)
    }

    fn advance(&mut self, ms: u64) -> Vec<Value> {
        self.now += Duration::from_millis(ms);
        self.s.poll(self.now)
    }

    /// Sends a request and returns its single answer.
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let mut out = self.send(json!({"jsonrpc":"2.0","id":self.next_id,"method":method,"params":params}));
        assert_eq!(out.len(), 1, "{method}: {out:?}");
        let a = out.remove(0);
        assert_eq!(a["id"], self.next_id);
        a
    }

    fn tool(&mut self, name: &str, args: Value) -> Value {
        self.call("tools/call", json!({"name": name, "arguments": args}))
    }

    /// Every item of a paginated list, following cursors.
    fn all(&mut self, method: &str, key: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut cursor: Option<Value> = None;
        for _ in 0..50 {
            let params = cursor.map_or(json!({}), |c| json!({ "cursor": c }));
            let page = self.call(method, params);
            let r = &page["result"];
            items.extend(r[key].as_array().unwrap().iter().cloned());
            match r.get("nextCursor") {
                Some(c) => cursor = Some(c.clone()),
                None => return items,
            }
        }
        panic!("{method} does not end");
    }
}

fn names(items: &[Value], key: &str) -> Vec<String> {
    items.iter().map(|i| i[key].as_str().unwrap().to_owned()).collect()
}

const REVS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

// ---- lifecycle and base protocol -----------------------------------------------------------

#[test]
fn lifecycle_echoes_each_legacy_revision_and_counter_offers_the_rest() {
    for r in REVS {
        T::at(r, json!({}));
    }
    for v in ["1999-01-01", "2099-12-31", "garbage", "2026-07-28"] {
        let mut t = T::new();
        let a = t.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":v,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
        assert_eq!(a[0]["result"]["protocolVersion"], "2025-11-25", "{v}");
    }
}

#[test]
fn lifecycle_capabilities_per_revision() {
    for r in REVS {
        let mut t = T::new();
        let a = t.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":r,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
        let caps = &a[0]["result"]["capabilities"];
        assert_eq!(caps["tools"], json!({"listChanged": true}));
        assert_eq!(caps["resources"], json!({"subscribe": true, "listChanged": true}));
        assert_eq!(caps["prompts"], json!({"listChanged": true}));
        assert_eq!(caps["logging"], json!({}));
        assert_eq!(caps.get("completions").is_some(), r != "2024-11-05", "{r}");
    }
}

#[test]
fn base_pings_before_and_after_initialize_and_never_answers_notifications() {
    let mut t = T::new();
    assert_eq!(t.send(json!({"jsonrpc":"2.0","id":"p","method":"ping"}))[0]["result"], json!({}));
    let mut t = T::at("2025-06-18", json!({}));
    assert!(t.send(json!({"jsonrpc":"2.0","method":"no/such"})).is_empty());
    assert!(t.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).is_empty());
    assert_eq!(
        t.send(json!({"jsonrpc":"2.0","id":0,"method":"ping"})),
        [json!({"jsonrpc":"2.0","id":0,"result":{}})]
    );
}

#[test]
fn base_answers_errors_with_their_codes() {
    let mut t = T::new();
    assert_eq!(t.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))[0]["error"]["code"], -32600);
    let mut t = T::at("2025-06-18", json!({}));
    assert_eq!(t.call("nope", json!({}))["error"]["code"], -32601);
    assert_eq!(t.tool("x", json!({}))["error"]["code"], -32602);
    assert_eq!(
        t.send(json!({"jsonrpc":"2.0","id":null,"method":"ping"})),
        [
            json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: the request id is null; MCP request ids must be a string or an integer"}})
        ]
    );
    // An id without a method: an invalid request, answered with its id.
    assert_eq!(
        t.send(json!({"jsonrpc":"2.0","id":5}))[0],
        json!({"jsonrpc":"2.0","id":5,"error":{"code":-32600,"message":"Invalid Request: the message has none of \"method\", \"result\" or \"error\""}})
    );
    let parse = t.s.on_frame_at(&framing::decode_line(b"y"), t.now);
    assert_eq!(parse[0]["error"]["code"], -32700);
    assert!(parse[0].get("id").is_none());
    // A second initialize is refused.
    assert_eq!(t.call("initialize", json!({"protocolVersion":"2025-06-18"}))["error"]["code"], -32600);
}

#[test]
fn base_batches_only_in_2025_03_26() {
    let batch = json!([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/x"},{"jsonrpc":"2.0","id":2,"method":"ping"}]);
    let mut t = T::at("2025-03-26", json!({}));
    assert_eq!(t.send(batch.clone())[0].as_array().map(Vec::len), Some(2));
    assert_eq!(t.send(json!([]))[0]["error"]["code"], -32600);
    let init_in_batch = t.send(json!([{"jsonrpc":"2.0","id":7,"method":"initialize","params":{}}]));
    assert_eq!(init_in_batch[0][0]["error"]["code"], -32600);
    for r in ["2024-11-05", "2025-06-18", "2025-11-25"] {
        let mut t = T::at(r, json!({}));
        let a = t.send(batch.clone());
        assert_eq!(a[0]["error"]["code"], -32600, "{r}");
        assert!(a[0].get("id").is_none());
    }
}

#[test]
fn base_a_batch_waits_for_its_slow_member() {
    let mut t = T::at("2025-03-26", json!({}));
    let batch = json!([{"jsonrpc":"2.0","id":1,"method":"ping"},
        {"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":30}}}]);
    assert!(t.send(batch).is_empty());
    let out = t.advance(30);
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].as_array().unwrap().iter().map(|a| a["id"].clone()).collect::<Vec<_>>(),
        [json!(1), json!(2)]
    );
}

#[test]
fn base_concurrent_requests_are_answered_independently() {
    let mut t = T::at("2025-06-18", json!({}));
    assert!(t.send(json!({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"slow","arguments":{"ms":100}}})).is_empty());
    assert!(t.send(json!({"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"slow","arguments":{"ms":50}}})).is_empty());
    assert_eq!(t.call("ping", json!({}))["result"], json!({}));
    assert_eq!(t.s.next_deadline(), Some(t.now + Duration::from_millis(50)));
    let out = t.advance(50);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], "b");
    let out = t.advance(50);
    assert_eq!(out[0]["id"], "a");
    assert_eq!(out[0]["result"]["content"][0]["text"], "slept 100 ms");
    assert_eq!(t.s.next_deadline(), None);
}

#[test]
fn base_an_id_in_flight_cannot_be_reused() {
    let mut t = T::at("2025-06-18", json!({}));
    t.send(
        json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow","arguments":{"ms":10}}}),
    );
    let a = t.send(json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    assert_eq!(a[0]["error"]["code"], -32600);
}

// ---- cancellation --------------------------------------------------------------------------

#[test]
fn cancel_stops_a_slow_request_and_ignores_the_rest() {
    let mut t = T::at("2025-06-18", json!({}));
    t.send(
        json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"slow","arguments":{"ms":100}}}),
    );
    assert!(t.s.is_in_flight(&RequestId::Integer(9)));
    assert!(t
        .send(
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"x"}})
        )
        .is_empty());
    assert!(t.advance(1000).is_empty());
    assert_eq!(t.s.next_deadline(), None);
    // Unknown, finished, malformed, initialize's: all ignored.
    for params in [
        json!({"requestId": 9}),
        json!({"requestId": "nope"}),
        json!({}),
        json!({"requestId": 1}),
        json!(null),
    ] {
        assert!(t
            .send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":params}))
            .is_empty());
    }
    assert_eq!(t.call("ping", json!({}))["result"], json!({}));
}

#[test]
fn cancel_of_a_waiting_tool_cancels_its_request_to_the_client() {
    let mut t = T::at("2025-06-18", json!({"sampling": {}}));
    let out =
        t.send(json!({"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"test_sampling"}}));
    assert_eq!(out[0]["method"], "sampling/createMessage");
    let ours = out[0]["id"].clone();
    let out = t.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}));
    assert_eq!(
        out,
        [
            json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":ours,"reason":"the tools/call that needed this sampling/createMessage was cancelled"}})
        ]
    );
    // A late answer from the client is ignored.
    assert!(t.send(json!({"jsonrpc":"2.0","id":ours,"result":{"role":"assistant","content":{"type":"text","text":"x"},"model":"m"}})).is_empty());
}

// ---- pagination ----------------------------------------------------------------------------

#[test]
fn pagination_every_list_paginates_without_duplicates() {
    for r in REVS {
        let mut t = T::at(r, json!({}));
        for (method, key, name, min) in [
            ("tools/list", "tools", "name", 13),
            ("resources/list", "resources", "uri", 3),
            ("resources/templates/list", "resourceTemplates", "uriTemplate", 3),
            ("prompts/list", "prompts", "name", 4),
        ] {
            let first = t.call(method, json!({}));
            assert_eq!(first["result"][key].as_array().unwrap().len(), 2, "{r} {method}");
            let cursor = first["result"]["nextCursor"].as_str().unwrap().to_owned();
            assert!(cursor.parse::<u64>().is_err(), "opaque, not a number: {cursor}");
            let all = names(&t.all(method, key), name);
            let mut unique = all.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), all.len(), "{r} {method}: {all:?}");
            assert!(all.len() >= min, "{r} {method}: {all:?}");
        }
    }
}

#[test]
fn pagination_invalid_cursors_are_invalid_params() {
    let mut t = T::at("2025-11-25", json!({}));
    let tools_cursor = t.call("tools/list", json!({}))["result"]["nextCursor"].clone();
    for cursor in [json!("nope"), json!("2"), json!(2), tools_cursor] {
        assert_eq!(t.call("prompts/list", json!({"cursor": cursor}))["error"]["code"], -32602, "{cursor}");
    }
}

// ---- tools ---------------------------------------------------------------------------------

#[test]
fn tools_per_revision() {
    let has = |r: &str, name: &str| {
        let mut t = T::at(r, json!({}));
        names(&t.all("tools/list", "tools"), "name").iter().any(|n| n == name)
    };
    assert!(!has("2024-11-05", "test_audio_content"));
    assert!(has("2025-03-26", "test_audio_content"));
    assert!(!has("2025-03-26", "test_elicitation"));
    assert!(has("2025-06-18", "test_elicitation"));
    let mut t = T::at("2024-11-05", json!({}));
    assert_eq!(t.tool("test_audio_content", json!({}))["error"]["code"], -32602);
    let mut t = T::at("2025-06-18", json!({}));
    let add = t.all("tools/list", "tools").into_iter().find(|t| t["name"] == "add").unwrap();
    assert_eq!(add["outputSchema"]["required"], json!(["sum"]));
    let mut t = T::at("2025-03-26", json!({}));
    let add = t.all("tools/list", "tools").into_iter().find(|t| t["name"] == "add").unwrap();
    assert!(add.get("outputSchema").is_none() && add.get("title").is_none());
    assert_eq!(add["annotations"]["readOnlyHint"], true);
    let mut t = T::at("2024-11-05", json!({}));
    assert!(t.all("tools/list", "tools").iter().all(|t| t.get("annotations").is_none()));
}

#[test]
fn tools_fixture_content() {
    let mut t = T::at("2025-11-25", json!({}));
    let kinds = |r: &Value| {
        r["result"]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["type"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(kinds(&t.tool("test_simple_text", json!({}))), ["text"]);
    assert_eq!(kinds(&t.tool("test_image_content", json!({}))), ["image"]);
    assert_eq!(kinds(&t.tool("test_audio_content", json!({}))), ["audio"]);
    assert_eq!(kinds(&t.tool("test_embedded_resource", json!({}))), ["resource"]);
    assert_eq!(kinds(&t.tool("test_multiple_content_types", json!({}))), ["text", "image", "resource"]);
    assert_eq!(t.tool("test_error_handling", json!({}))["result"]["isError"], true);
    assert_eq!(t.tool("echo", json!({"message": "hi"}))["result"]["content"][0]["text"], "hi");
}

#[test]
fn tools_bad_arguments_follow_the_revision() {
    for r in ["2024-11-05", "2025-03-26", "2025-06-18"] {
        let mut t = T::at(r, json!({}));
        assert_eq!(t.tool("add", json!({"a": 1}))["error"]["code"], -32602, "{r}");
        assert_eq!(t.tool("slow", json!({"ms": "x"}))["error"]["code"], -32602, "{r}");
    }
    let mut t = T::at("2025-11-25", json!({}));
    assert_eq!(t.tool("add", json!({"a": 1}))["result"]["isError"], true);
    assert_eq!(t.tool("add", json!({"a": 1, "b": 2.5}))["result"]["structuredContent"], json!({"sum": 3.5}));
    // Unknown tools and non-object arguments stay protocol errors.
    assert_eq!(t.tool("nope", json!({}))["error"]["code"], -32602);
    assert_eq!(t.call("tools/call", json!({"name": "echo", "arguments": 5}))["error"]["code"], -32602);
    let mut t = T::at("2025-03-26", json!({}));
    assert!(t.tool("add", json!({"a": 1, "b": 2}))["result"].get("structuredContent").is_none());
}

// ---- progress ------------------------------------------------------------------------------

#[test]
fn progress_increases_and_stops_before_the_response() {
    for r in REVS {
        let mut t = T::at(r, json!({}));
        let req = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"tok"}}});
        assert!(t.send(req).is_empty());
        let mut out = Vec::new();
        for _ in 0..5 {
            out.extend(t.advance(10));
        }
        assert_eq!(out.len(), 4, "{out:?}");
        let progress: Vec<u64> = out[..3].iter().map(|n| n["params"]["progress"].as_u64().unwrap()).collect();
        assert_eq!(progress, [1, 2, 3]);
        assert!(out[..3].iter().all(|n| n["params"]["progressToken"] == "tok" && n["params"]["total"] == 3));
        assert_eq!(out[0]["params"].get("message").is_some(), r != "2024-11-05", "{r}");
        assert_eq!(out[3]["id"], 3);
    }
}

#[test]
fn progress_without_a_token_sends_none() {
    let mut t = T::at("2025-06-18", json!({}));
    t.send(json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_progress"}}));
    let out = t.advance(100);
    assert_eq!(out.len(), 1);
    assert_eq!(out[0]["id"], 3);
    let mut t = T::at("2025-06-18", json!({}));
    t.send(json!({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":7}}}));
    let out = t.advance(100);
    assert_eq!(out[0]["params"]["progressToken"], 7);
}

#[test]
fn progress_waits_for_initialized() {
    let mut t = T::new();
    t.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
    t.send(json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"tok"}}}));
    let out = t.advance(100);
    assert_eq!(out.len(), 1, "only the response: {out:?}");
    assert_eq!(out[0]["id"], 3);
}

// ---- logging -------------------------------------------------------------------------------

fn levels(out: &[Value]) -> Vec<String> {
    out.iter()
        .filter(|m| m["method"] == "notifications/message")
        .map(|m| m["params"]["level"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn logging_filters_by_the_level_set() {
    let mut t = T::at("2025-06-18", json!({}));
    let call =
        json!({"jsonrpc":"2.0","id":"l","method":"tools/call","params":{"name":"test_tool_with_logging"}});
    let out = t.send(call.clone());
    assert_eq!(levels(&out), ["debug", "info", "warning", "error"]);
    assert_eq!(out.last().unwrap()["id"], "l");
    assert_eq!(t.call("logging/setLevel", json!({"level": "warning"}))["result"], json!({}));
    assert_eq!(levels(&t.send(call.clone())), ["warning", "error"]);
    for bad in [json!({"level": "loud"}), json!({}), json!({"level": 3})] {
        assert_eq!(t.call("logging/setLevel", bad)["error"]["code"], -32602);
    }
    assert_eq!(levels(&t.send(call)), ["warning", "error"]);
}

// ---- resources -----------------------------------------------------------------------------

#[test]
fn resources_read_static_binary_template_and_unknown() {
    let mut t = T::at("2025-06-18", json!({}));
    let text = t.call("resources/read", json!({"uri": "test://static-text"}));
    assert!(text["result"]["contents"][0]["text"].is_string());
    let blob = t.call("resources/read", json!({"uri": "test://static-binary"}));
    assert_eq!(blob["result"]["contents"][0]["blob"], catalog::PNG_1PX);
    let tpl = t.call("resources/read", json!({"uri": "test://template/42/data"}));
    assert_eq!(tpl["result"]["contents"][0]["uri"], "test://template/42/data");
    assert!(tpl["result"]["contents"][0]["text"].as_str().unwrap().contains("42"));
    let missing = t.call("resources/read", json!({"uri": "test://nope"}));
    assert_eq!(missing["error"]["code"], -32002);
    assert_eq!(missing["error"]["data"], json!({"uri": "test://nope"}));
    assert_eq!(t.call("resources/read", json!({}))["error"]["code"], -32602);
}

#[test]
fn resources_subscribers_hear_about_changes() {
    let mut t = T::at("2025-06-18", json!({}));
    assert!(levels(&t.tool("touch_watched", json!({})).as_array().cloned().unwrap_or_default()).is_empty());
    assert_eq!(t.call("resources/subscribe", json!({"uri": catalog::WATCHED}))["result"], json!({}));
    let updated =
        json!({"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":catalog::WATCHED}});
    assert_eq!(t.advance(50), std::slice::from_ref(&updated));
    let out =
        t.send(json!({"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":"touch_watched"}}));
    assert_eq!(out[0], updated);
    assert_eq!(out[1]["id"], "t");
    assert_eq!(t.call("resources/unsubscribe", json!({"uri": catalog::WATCHED}))["result"], json!({}));
    assert_eq!(
        t.send(json!({"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"touch_watched"}}))
            .len(),
        1
    );
    assert_eq!(t.call("resources/subscribe", json!({"uri": "test://nope"}))["error"]["code"], -32002);
}

#[test]
fn resources_no_update_before_initialized() {
    let mut t = T::new();
    t.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
    t.call("resources/subscribe", json!({"uri": catalog::WATCHED}));
    assert!(t.advance(60).is_empty());
    t.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    assert_eq!(t.advance(60)[0]["method"], "notifications/resources/updated");
}

// ---- prompts and completion ----------------------------------------------------------------

#[test]
fn prompts_get_and_errors() {
    let mut t = T::at("2025-06-18", json!({}));
    let simple = t.call("prompts/get", json!({"name": "test_simple_prompt"}));
    assert_eq!(simple["result"]["messages"][0]["role"], "user");
    let args = t.call(
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}}),
    );
    assert_eq!(args["result"]["messages"][0]["content"]["text"], "Prompt with arguments: arg1='a', arg2='b'");
    let emb = t.call("prompts/get", json!({"name": "test_prompt_with_embedded_resource", "arguments": {"resourceUri": "test://static-text"}}));
    assert_eq!(emb["result"]["messages"][0]["content"]["type"], "resource");
    let img = t.call("prompts/get", json!({"name": "test_prompt_with_image"}));
    assert_eq!(img["result"]["messages"][0]["content"]["type"], "image");
    assert_eq!(t.call("prompts/get", json!({"name": "nope"}))["error"]["code"], -32602);
    let missing =
        t.call("prompts/get", json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}}));
    assert_eq!(missing["error"]["code"], -32602);
}

#[test]
fn completion_caps_at_100_with_total_and_has_more() {
    let mut t = T::at("2025-03-26", json!({}));
    let c = t.call("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"}, "argument": {"name": "id", "value": ""}}));
    assert_eq!(c["result"]["completion"]["values"].as_array().unwrap().len(), 100);
    assert_eq!(c["result"]["completion"]["total"], 250);
    assert_eq!(c["result"]["completion"]["hasMore"], true);
    let c = t.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "al"}}));
    assert_eq!(c["result"]["completion"], json!({"values": ["alpha"], "total": 1, "hasMore": false}));
    let c = t.call(
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "nope"}, "argument": {"name": "arg1", "value": ""}}),
    );
    assert_eq!(c["error"]["code"], -32602);
}

// ---- server-initiated requests -------------------------------------------------------------

#[test]
fn client_requests_only_to_clients_that_declared_the_capability() {
    let mut t = T::at("2025-11-25", json!({}));
    for tool in ["test_sampling", "test_elicitation", "test_roots"] {
        let a = t.tool(tool, json!({}));
        assert_eq!(a["result"]["isError"], true, "{tool}");
    }
}

#[test]
fn a_url_only_client_is_sent_to_a_consent_page_and_told_when_it_is_done() {
    let mut t = T::at("2025-11-25", json!({"elicitation": {"url": {}}}));
    let out = t.send(json!({"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"test_elicitation","arguments":{}}}));
    let req = &out[0];
    assert_eq!(req["method"], "elicitation/create");
    assert_eq!(req["params"]["mode"], "url");
    let id = req["params"]["elicitationId"].as_str().unwrap().to_owned();
    assert!(req["params"]["url"].as_str().unwrap().starts_with("https://"), "{req}");
    let done = t.send(json!({"jsonrpc":"2.0","id":req["id"],"result":{"action":"accept"}}));
    assert_eq!(done[0]["method"], "notifications/elicitation/complete");
    assert_eq!(done[0]["params"]["elicitationId"], id.as_str());
    assert_eq!(done[1]["id"], "e");
    assert!(done[1]["result"]["content"][0]["text"].as_str().unwrap().contains("action=accept"));
}

#[test]
fn sampling_round_trip_and_unique_ids() {
    let mut t = T::at("2025-06-18", json!({"sampling": {}}));
    let mut ids = Vec::new();
    for k in 0..2 {
        let out = t.send(json!({"jsonrpc":"2.0","id":k,"method":"tools/call","params":{"name":"test_sampling","arguments":{"prompt":"hi"}}}));
        assert_eq!(out.len(), 1);
        let req = &out[0];
        assert_eq!(req["method"], "sampling/createMessage");
        assert!(req["params"].get("tools").is_none());
        ids.push(req["id"].clone());
        let done = t.send(json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}));
        assert_eq!(done[0]["id"], k);
        assert_eq!(done[0]["result"]["content"][0]["text"], "LLM response: hello");
    }
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn sampling_tools_only_with_sampling_tools_and_a_correct_loop() {
    let mut t = T::at("2025-06-18", json!({"sampling": {"tools": {}}}));
    let out = t.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_sampling"}}));
    assert!(out[0]["params"].get("tools").is_none(), "sampling.tools is 2025-11-25 only");
    let mut t = T::at("2025-11-25", json!({"sampling": {}}));
    let out = t.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_sampling"}}));
    assert!(out[0]["params"].get("tools").is_none());

    let mut t = T::at("2025-11-25", json!({"sampling": {"tools": {}}}));
    let out = t.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_sampling"}}));
    let mut req = out[0].clone();
    assert_eq!(req["params"]["tools"][0]["name"], "lookup");
    for round in 0..2 {
        let use_ = json!({"type":"tool_use","id":format!("u{round}"),"name":"lookup","input":{"query":"q"}});
        let out = t.send(json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":[{"type":"text","text":"let me look"},use_],"model":"m","stopReason":"toolUse"}}));
        req = out[0].clone();
        let messages = req["params"]["messages"].as_array().unwrap();
        let last = messages.last().unwrap();
        assert_eq!(last["role"], "user");
        let results = last["content"].as_array().unwrap();
        assert!(results.iter().all(|c| c["type"] == "tool_result"));
        assert_eq!(results[0]["toolUseId"], format!("u{round}"));
        assert_eq!(messages.len(), 3 + 2 * round);
    }
    let out = t.send(json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":{"type":"text","text":"42"},"model":"m","stopReason":"endTurn"}}));
    assert_eq!(out[0]["id"], 1);
    assert_eq!(out[0]["result"]["content"][0]["text"], "LLM response: 42");
}

#[test]
fn sampling_tool_loop_is_bounded() {
    let mut t = T::at("2025-11-25", json!({"sampling": {"tools": {}}}));
    let mut req = t
        .send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_sampling"}}))[0]
        .clone();
    let mut choices = Vec::new();
    for k in 0..10 {
        choices.push(req["params"]["toolChoice"]["mode"].as_str().unwrap().to_owned());
        let out = t.send(json!({"jsonrpc":"2.0","id":req["id"],"result":{"role":"assistant","content":{"type":"tool_use","id":format!("u{k}"),"name":"lookup","input":{}},"model":"m","stopReason":"toolUse"}}));
        if out[0]["id"] == 1 {
            assert_eq!(out[0]["result"]["isError"], true);
            assert_eq!(choices, ["auto", "auto", "auto", "none"]);
            return;
        }
        req = out[0].clone();
    }
    panic!("the loop did not end");
}

#[test]
fn client_requests_wait_for_initialized_and_time_out() {
    let mut t = T::new();
    t.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}}));
    assert!(t
        .send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_roots"}}))
        .is_empty());
    let out = t.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    assert_eq!(out[0]["method"], "roots/list");
    let ours = out[0]["id"].clone();
    let out = t.advance(5000);
    assert_eq!(
        out[0],
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":ours,"reason":"no answer within 5000 ms"}})
    );
    assert_eq!(out[1]["id"], 2);
    assert_eq!(out[1]["result"]["isError"], true);
}

#[test]
fn client_errors_and_unknown_responses() {
    let mut t = T::at("2025-06-18", json!({"elicitation": {}, "roots": {}}));
    let req = t
        .send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation"}}))[0]
        .clone();
    assert_eq!(req["method"], "elicitation/create");
    assert!(req["params"].get("mode").is_none());
    let out = t.send(json!({"jsonrpc":"2.0","id":req["id"],"error":{"code":-1,"message":"user declined"}}));
    assert_eq!(out[0]["result"]["isError"], true);
    assert!(t.send(json!({"jsonrpc":"2.0","id":"never-sent","result":{}})).is_empty());
    let req = t.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_roots"}}))[0]
        .clone();
    let out = t.send(json!({"jsonrpc":"2.0","id":req["id"],"result":{"roots":[{"uri":"file:///tmp"}]}}));
    assert_eq!(out[0]["result"]["content"][0]["text"], "The client has 1 root(s): file:///tmp");
    let mut t = T::at("2025-11-25", json!({"elicitation": {}}));
    let req = t
        .send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_elicitation"}}))[0]
        .clone();
    assert_eq!(req["params"]["mode"], "form");
    let out = t.send(
        json!({"jsonrpc":"2.0","id":req["id"],"result":{"action":"accept","content":{"username":"u"}}}),
    );
    assert_eq!(out[0]["result"]["isError"], false);
}

// ---- stdio ---------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn stdio_wakes_for_deadlines_and_exits_at_eof() {
    use tokio::io::{AsyncBufReadExt, BufReader};
    let (mut client, server_end) = tokio::io::duplex(1 << 16);
    let (read_half, write_half) = tokio::io::split(server_end);
    let task =
        tokio::spawn(serve_stdio(ReferenceServer::new(ServerConfig::default()), None, read_half, write_half));
    let script = concat!(
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"slow","arguments":{"ms":1000}}}"#,
        "\n",
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
        "\n",
    );
    client.write_all(script.as_bytes()).await.unwrap();
    let (read_back, mut write_back) = tokio::io::split(client);
    let mut lines = BufReader::new(read_back).lines();
    let started = tokio::time::Instant::now();
    let mut ids = Vec::new();
    for _ in 0..3 {
        let line = lines.next_line().await.unwrap().unwrap();
        ids.push(serde_json::from_str::<Value>(&line).unwrap()["id"].clone());
    }
    assert_eq!(ids, [json!(1), json!(3), json!(2)]);
    assert!(started.elapsed() >= Duration::from_millis(1000));
    write_back.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), task).await.unwrap().unwrap().unwrap();
}

// ---- robustness ----------------------------------------------------------------------------

mod properties {
    use super::*;
    use mcpspec_protocol::testing::arb_json;
    use proptest::prelude::*;

    const METHODS: [&str; 16] = [
        "ping",
        "tools/list",
        "tools/call",
        "resources/list",
        "resources/templates/list",
        "resources/read",
        "resources/subscribe",
        "resources/unsubscribe",
        "prompts/list",
        "prompts/get",
        "logging/setLevel",
        "completion/complete",
        "notifications/cancelled",
        "initialize",
        "no/such",
        "response",
    ];
    const TOOLS: [&str; 6] =
        ["test_sampling", "test_elicitation", "test_roots", "slow", "test_tool_with_progress", "add"];

    proptest! {
        /// Any sequence of requests, cancels and client answers, with any params and any time
        /// between them: no panic, and every request is answered at most once.
        #[test]
        fn any_session_is_survived(
            rev in 0usize..4,
            steps in proptest::collection::vec((0usize..16, 0usize..6, arb_json(), 0u64..3000), 0..25),
        ) {
            let caps = json!({"sampling": {"tools": {}}, "elicitation": {}, "roots": {}});
            let mut t = T::at(REVS[rev], caps);
            let mut answered = std::collections::HashSet::new();
            let mut server_requests: Vec<Value> = Vec::new();
            for (i, (m, tool, params, ms)) in steps.into_iter().enumerate() {
                let message = match METHODS[m] {
                    "tools/call" => json!({"jsonrpc":"2.0","id":i,"method":"tools/call",
                        "params":{"name":TOOLS[tool],"arguments":params}}),
                    "notifications/cancelled" => json!({"jsonrpc":"2.0","method":"notifications/cancelled",
                        "params":{"requestId": i.saturating_sub(tool)}}),
                    "response" => match server_requests.pop() {
                        Some(id) => json!({"jsonrpc":"2.0","id":id,"result":params}),
                        None => json!({"jsonrpc":"2.0","id":i,"result":params}),
                    },
                    method => json!({"jsonrpc":"2.0","id":i,"method":method,"params":params}),
                };
                let mut out = t.send(message);
                out.extend(t.advance(ms));
                for v in out {
                    for one in v.as_array().cloned().unwrap_or_else(|| vec![v.clone()]) {
                        if one.get("method").is_some() {
                            if let Some(id) = one.get("id") {
                                server_requests.push(id.clone());
                            }
                        } else if let Some(id) = one.get("id") {
                            prop_assert!(answered.insert(id.to_string()), "answered twice: {one}");
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn tasks_run_tools_report_and_end_as_the_spec_says() {
    let mut t = T::at("2025-11-25", json!({}));
    let tools = t.all("tools/list", "tools");
    let support =
        |n: &str| tools.iter().find(|x| x["name"] == n).map(|x| x["execution"]["taskSupport"].clone());
    assert_eq!(support("slow"), Some(json!("optional")));
    assert_eq!(support("test_task_required"), Some(json!("required")));
    assert_eq!(support("echo"), Some(Value::Null), "no execution: never as a task");
    // A plain call of the task-only tool, and a task-augmented call of a tool that is never
    // one, are -32601.
    assert_eq!(t.tool("test_task_required", json!({}))["error"]["code"], -32601);
    let plain_as_task =
        t.call("tools/call", json!({"name": "echo", "arguments": {"message": "x"}, "task": {}}));
    assert_eq!(plain_as_task["error"]["code"], -32601);

    // Created at once, working; the result waits for the tool.
    let created =
        t.call("tools/call", json!({"name": "slow", "arguments": {"ms": 50}, "task": {"ttl": 5000}}));
    let task = created["result"]["task"].clone();
    assert!(mcpspec_protocol::tasks::task_problems(&task).is_empty(), "{task}");
    assert_eq!(task["status"], "working");
    assert_eq!(task["ttl"], 5000);
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(t.call("tasks/get", json!({"taskId": id}))["result"]["status"], "working");
    t.next_id += 1;
    let waiting = t.next_id;
    assert!(t
        .send(json!({"jsonrpc":"2.0","id":waiting,"method":"tasks/result","params":{"taskId":id}}))
        .is_empty());
    let out = t.advance(60);
    assert!(
        out.iter().all(|m| m["method"] != "notifications/tasks/status"),
        "an end no request made is not notified"
    );
    let result = out.iter().find(|m| m["id"] == waiting).expect("tasks/result answered once the task ended");
    assert_eq!(result["result"]["content"][0]["text"], "slept 50 ms");
    assert_eq!(mcpspec_protocol::tasks::related_task(&result["result"]), Some(id.as_str()));
    // Listed; a terminal task cannot be cancelled; an unknown one is -32602.
    let listed = t.all("tasks/list", "tasks");
    assert!(listed.iter().any(|x| x["taskId"] == id.as_str()));
    assert_eq!(t.call("tasks/cancel", json!({"taskId": id}))["error"]["code"], -32602);
    assert_eq!(t.call("tasks/get", json!({"taskId": "nope"}))["error"]["code"], -32602);

    // A working task cancelled stays cancelled.
    let created = t.call("tools/call", json!({"name": "test_task_required", "arguments": {}, "task": {}}));
    let id = created["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    t.next_id += 1;
    let out = t.send(json!({"jsonrpc":"2.0","id":t.next_id,"method":"tasks/cancel","params":{"taskId":id}}));
    let status =
        out.iter().find(|m| m["method"] == "notifications/tasks/status").expect("a status notification");
    assert_eq!(status["params"]["status"], "cancelled");
    let cancelled = out.iter().find(|m| m["id"] == t.next_id).expect("tasks/cancel answered");
    assert_eq!(cancelled["result"]["status"], "cancelled");
    t.advance(1000);
    assert_eq!(t.call("tasks/get", json!({"taskId": id}))["result"]["status"], "cancelled");
    // Other revisions have no tasks.
    let mut old = T::at("2025-06-18", json!({}));
    assert_eq!(old.call("tasks/list", json!({}))["error"]["code"], -32601);
    assert!(old.all("tools/list", "tools").iter().all(|x| x.get("execution").is_none()));
}

/// server/tools.mdx#security-considerations: every tool's arguments are checked against its
/// inputSchema (a tool error from 2025-11-25, -32602 before); `tool-arguments-unchecked` lets
/// them through. utilities/completion.mdx#security: a completion argument without its value is
/// refused; `completion-inputs-unchecked` completes it.
#[test]
fn tool_and_completion_inputs_are_validated_unless_a_fault_says_otherwise() {
    let mut t = T::at("2025-11-25", json!({}));
    let refused = t.tool("test_sampling", json!({"prompt": 12345}));
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(T::at("2025-06-18", json!({})).tool("echo", json!({"message": 5}))["error"]["code"], -32602);
    let mut t = T::at_with("2025-11-25", json!({}), Some(Fault::ToolArgumentsUnchecked));
    let echoed = t.tool("echo", json!({"message": 5}));
    assert_eq!(echoed["result"]["content"][0]["text"], "5", "{echoed}");
    let no_value = json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1"}});
    assert_eq!(
        T::at("2024-11-05", json!({})).call("completion/complete", no_value.clone())["error"]["code"],
        -32602
    );
    let mut t = T::at_with("2024-11-05", json!({}), Some(Fault::CompletionInputsUnchecked));
    assert!(t.call("completion/complete", no_value)["result"]["completion"]["values"].is_array());
}

/// A server serves what it declares; the `*-served-undeclared` faults drop the declaration only.
#[test]
fn served_undeclared_faults_hide_the_capability_not_the_feature() {
    let caps = |fault| {
        let mut t = T::with(ServerConfig::default(), Some(fault));
        let init = t.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
        t.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        let listed = t.call("prompts/list", json!({}))["result"]["prompts"].as_array().map_or(0, Vec::len);
        (init[0]["result"]["capabilities"].clone(), listed)
    };
    let (declared, listed) = caps(Fault::FeaturesServedUndeclared);
    assert!(declared.get("tools").is_none() && declared.get("prompts").is_none(), "{declared}");
    assert!(declared.get("resources").is_none() && declared.get("completions").is_some());
    assert!(listed > 0);
    let (declared, _) = caps(Fault::CompletionsServedUndeclared);
    assert!(declared.get("completions").is_none() && declared.get("prompts").is_some(), "{declared}");
}

/// tasks.mdx#input-required-status: the task-only tool that elicits sends its elicitation/create
/// naming the task in its related-task `_meta`, the task `input_required` until the answer;
/// then it completes with what the user gave. The faults leave the `_meta` out, or name
/// another task.
#[test]
fn a_task_asking_for_input_names_the_task_and_waits_input_required() {
    let elicit = |fault: Option<Fault>| {
        let mut t = T::at_with("2025-11-25", json!({"elicitation": {}}), fault);
        t.next_id += 1;
        let call = json!({"name": "test_task_elicitation", "arguments": {}, "task": {}});
        let out = t.send(json!({"jsonrpc":"2.0","id":t.next_id,"method":"tools/call","params":call}));
        let created = out.iter().find(|m| m["id"] == t.next_id).expect("the CreateTaskResult");
        let id = created["result"]["task"]["taskId"].as_str().unwrap().to_owned();
        let request =
            out.iter().find(|m| m["method"] == "elicitation/create").expect("an elicitation").clone();
        (t, id, request)
    };
    let (mut t, id, request) = elicit(None);
    assert_eq!(request["params"]["_meta"][mcpspec_protocol::tasks::RELATED_TASK_META]["taskId"], id.as_str());
    assert_eq!(t.call("tasks/get", json!({"taskId": id}))["result"]["status"], "input_required");
    let answer =
        json!({"jsonrpc":"2.0","id":request["id"],"result":{"action":"accept","content":{"username":"u"}}});
    t.send(answer);
    assert_eq!(t.call("tasks/get", json!({"taskId": id}))["result"]["status"], "completed");
    let result = t.call("tasks/result", json!({"taskId": id}));
    assert!(result["result"]["content"][0]["text"].as_str().unwrap().contains("accept"), "{result}");
    let (_, _, request) = elicit(Some(Fault::TaskInputRequestUnrelated));
    assert!(request["params"].get("_meta").is_none(), "{request}");
    let (_, id, request) = elicit(Some(Fault::TaskInputRequestOtherTask));
    assert_ne!(request["params"]["_meta"][mcpspec_protocol::tasks::RELATED_TASK_META]["taskId"], id.as_str());
}
