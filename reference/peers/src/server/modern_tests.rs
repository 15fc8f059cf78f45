//! Transcript tests of the modern era (2026-07-28) on virtual time: `modern.rs`, `mrtr.rs`,
//! and each `modern-` fault changing what a client doing the normal thing sees.

use super::*;
use mcpspec_protocol::modern::{self as era, request_meta, with_request_meta};
use serde_json::json;

const V: &str = "2026-07-28";

struct M {
    s: ReferenceServer,
    now: Instant,
    next_id: i64,
    caps: Value,
}

fn all_caps() -> Value {
    json!({"sampling": {}, "elicitation": {"form": {}}, "roots": {}})
}

impl M {
    fn new() -> M {
        M::with(ServerConfig::default(), None)
    }

    fn with(config: ServerConfig, fault: Option<Fault>) -> M {
        M {
            s: ReferenceServer::new(config).with_fault(fault),
            now: Instant::now(),
            next_id: 0,
            caps: all_caps(),
        }
    }

    fn fault(fault: Fault) -> M {
        M::with(ServerConfig::default(), Some(fault))
    }

    fn modern_only() -> M {
        M::with(ServerConfig { supported: vec![Revision::V2026_07_28], ..ServerConfig::default() }, None)
    }

    fn send(&mut self, v: Value) -> Vec<Value> {
        self.s.on_value_at(&v, self.now)
    }

    fn advance(&mut self, ms: u64) -> Vec<Value> {
        self.now += Duration::from_millis(ms);
        self.s.poll(self.now)
    }

    /// `params` with this client's `_meta` added.
    fn params(&self, params: Value) -> Value {
        with_request_meta(
            Some(params),
            &request_meta(V, &self.caps, Some(&json!({"name": "m", "version": "1"}))),
        )
    }

    /// Sends a modern request; returns everything the server wrote.
    fn req(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.next_id += 1;
        let id = json!(self.next_id);
        let params = self.params(params);
        let out = self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        (id, out)
    }

    /// Sends a modern request and returns its single answer.
    fn call(&mut self, method: &str, params: Value) -> Value {
        let (id, mut out) = self.req(method, params);
        assert_eq!(out.len(), 1, "{method}: {out:?}");
        let a = out.remove(0);
        assert_eq!(a["id"], id, "{a}");
        a
    }

    fn tool(&mut self, name: &str, extra: Value) -> Value {
        let mut p = json!({"name": name, "arguments": {}});
        if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
            p.extend(extra.clone());
        }
        self.call("tools/call", p)
    }
}

fn code(a: &Value) -> i64 {
    a["error"]["code"].as_i64().unwrap_or_else(|| panic!("not an error: {a}"))
}

fn text(a: &Value) -> String {
    a["result"]["content"][0]["text"].as_str().unwrap_or_else(|| panic!("no text: {a}")).to_owned()
}

fn elicit_ok() -> Value {
    json!({"action": "accept", "content": {"username": "u", "topic": "owls"}})
}

fn sample_ok() -> Value {
    json!({"role": "assistant", "model": "m", "stopReason": "endTurn", "content": {"type": "text", "text": "hi"}})
}

fn roots_ok() -> Value {
    json!({"roots": [{"uri": "file:///tmp", "name": "tmp"}]})
}

/// The answer to each input request by its method.
fn answer_all(input_required: &Value) -> Value {
    let mut out = Map::new();
    for (k, r) in input_required["result"]["inputRequests"].as_object().expect("inputRequests") {
        let a = match r["method"].as_str() {
            Some("elicitation/create") => elicit_ok(),
            Some("sampling/createMessage") => sample_ok(),
            _ => roots_ok(),
        };
        out.insert(k.clone(), a);
    }
    Value::Object(out)
}

// ---- admission ------------------------------------------------------------------------------

#[test]
fn discover_names_versions_capabilities_and_cache_hints() {
    let mut m = M::new();
    let r = m.call("server/discover", json!({}))["result"].clone();
    assert_eq!(r["resultType"], "complete");
    assert_eq!(
        r["supportedVersions"],
        json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"])
    );
    assert!(r["capabilities"].get("tasks").is_none());
    for c in ["tools", "resources", "prompts", "completions", "logging"] {
        assert!(r["capabilities"].get(c).is_some(), "{c}");
    }
    assert_eq!(r["ttlMs"], 60_000);
    assert_eq!(r["cacheScope"], "public");
    assert_eq!(r["_meta"][era::SERVER_INFO_KEY]["name"], "mcpspec-reference");
    assert!(r["instructions"].is_string());
}

#[test]
fn meta_missing_or_invalid_is_invalid_params_with_the_id() {
    let mut m = M::new();
    // server/discover is modern on a dual-era server even without _meta.
    let a = m.send(json!({"jsonrpc":"2.0","id":"d","method":"server/discover"}));
    assert_eq!((code(&a[0]), &a[0]["id"]), (-32602, &json!("d")));
    assert!(a[0]["error"]["message"].as_str().unwrap().contains("_meta"));
    let a = m.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{era::PROTOCOL_VERSION_KEY: V}}}));
    assert_eq!(code(&a[0]), -32602);
    assert!(a[0]["error"]["message"].as_str().unwrap().contains("clientCapabilities"));
    let a = m.send(json!({"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{era::PROTOCOL_VERSION_KEY: 7, era::CLIENT_CAPABILITIES_KEY: {}}}}));
    assert_eq!(code(&a[0]), -32602);
    // A modern-only server takes every request by the modern era's rules.
    let mut m = M::modern_only();
    let a = m.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}));
    assert_eq!(code(&a[0]), -32602);
    // A legacy-only server knows nothing of it: a request before initialize.
    let mut legacy =
        M::with(ServerConfig { supported: Revision::LEGACY.to_vec(), ..ServerConfig::default() }, None);
    assert_eq!(code(&legacy.call("server/discover", json!({}))), -32600);
}

#[test]
fn unsupported_version_lists_every_supported_one() {
    let mut m = M::new();
    for v in ["2099-01-01", "2025-11-25", "draft"] {
        let p = with_request_meta(None, &request_meta(v, &json!({}), None));
        let a = m.send(json!({"jsonrpc":"2.0","id":"v","method":"tools/list","params":p}));
        assert_eq!(code(&a[0]), -32022, "{v}");
        assert_eq!(a[0]["id"], "v");
        assert_eq!(a[0]["error"]["data"]["requested"], v);
        assert_eq!(a[0]["error"]["data"]["supported"][0], "2026-07-28");
        assert_eq!(a[0]["error"]["data"]["supported"].as_array().unwrap().len(), 5);
    }
    // The draft speaks the same wire string.
    let mut d = M::with(ServerConfig { supported: vec![Revision::Draft], ..ServerConfig::default() }, None);
    assert_eq!(d.call("tools/list", json!({}))["result"]["resultType"], "complete");
}

#[test]
fn removed_and_unknown_methods_are_not_found() {
    let mut m = M::new();
    for method in [
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "resources/unsubscribe",
        "tasks/get",
        "tasks/list",
        "no/such",
    ] {
        assert_eq!(
            code(&m.call(method, json!({"uri": "test://static-text", "level": "info", "taskId": "t"}))),
            -32601,
            "{method}"
        );
    }
    // initialize with modern _meta, and initialize to a modern-only server, name the versions.
    let a = m.call("initialize", json!({"protocolVersion": "2025-11-25", "capabilities": {}}));
    assert_eq!(code(&a), -32601);
    let mut only = M::modern_only();
    let a = only.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"l","version":"1"}}}));
    assert!(a[0]["error"]["message"].as_str().unwrap().contains("2026-07-28"), "{a:?}");
    assert_eq!(a[0]["error"]["data"]["supported"], json!(["2026-07-28"]));
}

#[test]
fn invalid_log_level_is_invalid_params() {
    let mut m = M::new();
    let mut p = m.params(json!({"name": "test_simple_text"}));
    p["_meta"][era::LOG_LEVEL_KEY] = "loud".into();
    let a = m.send(json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":p}));
    assert_eq!(code(&a[0]), -32602);
}

#[test]
fn dual_era_on_one_connection() {
    let mut m = M::new();
    let init = m.send(json!({"jsonrpc":"2.0","id":"i","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"l","version":"1"}}}));
    assert_eq!(init[0]["result"]["protocolVersion"], "2025-06-18");
    assert!(m.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"})).is_empty());
    // A legacy request: legacy shape, no resultType.
    let legacy = m.send(json!({"jsonrpc":"2.0","id":"l","method":"tools/list"}));
    assert!(legacy[0]["result"].get("resultType").is_none());
    assert!(legacy[0]["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["name"] != "test_mrtr_multi_round"));
    // A modern one on the same connection: stateless, with the era's fields.
    let modern = m.call("tools/list", json!({}));
    assert_eq!(modern["result"]["resultType"], "complete");
    assert_eq!(modern["result"]["cacheScope"], "public");
    // And the legacy session goes on.
    assert_eq!(m.send(json!({"jsonrpc":"2.0","id":"p","method":"ping"}))[0]["result"], json!({}));
    assert_eq!(m.s.revision(), Some(Revision::V2025_06_18));
}

// ---- results and caching --------------------------------------------------------------------

#[test]
fn every_list_pages_statelessly_with_the_same_scope() {
    for (list, key) in [
        ("tools/list", "tools"),
        ("prompts/list", "prompts"),
        ("resources/list", "resources"),
        ("resources/templates/list", "resourceTemplates"),
    ] {
        let mut cursor: Option<Value> = None;
        let mut names = Vec::new();
        for _ in 0..20 {
            // A fresh server per page: cursors need no memory (HTTP meets a new one each time).
            let mut m = M::new();
            let a = m.call(list, cursor.clone().map_or(json!({}), |c| json!({"cursor": c})));
            let r = &a["result"];
            assert_eq!(
                (r["resultType"].as_str(), r["cacheScope"].as_str()),
                (Some("complete"), Some("public")),
                "{a}"
            );
            assert!(r["ttlMs"].as_u64().is_some());
            names.extend(r[key].as_array().unwrap().iter().cloned());
            match r.get("nextCursor") {
                Some(c) => cursor = Some(c.clone()),
                None => break,
            }
        }
        assert!(names.len() >= 3, "{list}");
    }
    let mut m = M::new();
    let tools = m.call("tools/list", json!({}));
    assert!(tools["result"]["nextCursor"].is_string());
    // An empty cursor is a cursor, and names no page.
    assert_eq!(code(&m.call("tools/list", json!({"cursor": ""}))), -32602);
    assert_eq!(code(&m.call("tools/list", json!({"cursor": "bogus"}))), -32602);
}

#[test]
fn resources_read_caches_and_unknown_is_invalid_params() {
    let mut m = M::new();
    let a = m.call("resources/read", json!({"uri": "test://static-text"}));
    assert_eq!(
        (a["result"]["ttlMs"].as_u64(), a["result"]["cacheScope"].as_str()),
        (Some(60_000), Some("public"))
    );
    let w = m.call("resources/read", json!({"uri": "test://watched-resource"}));
    assert_eq!(w["result"]["ttlMs"], 0);
    let u = m.call("resources/read", json!({"uri": "test://nope"}));
    assert_eq!(code(&u), -32602);
    assert_eq!(u["error"]["data"]["uri"], "test://nope");
    let l = m.call("resources/list", json!({"cursor": null}));
    assert!(l["result"]["resources"].is_array());
}

#[test]
fn plain_tools_prompts_and_completion_are_complete_results() {
    let mut m = M::new();
    let a = m.tool("test_simple_text", json!({}));
    assert_eq!(a["result"]["resultType"], "complete");
    assert!(a["result"].get("ttlMs").is_none(), "tools/call is not cacheable");
    assert_eq!(code(&m.tool("no-such-tool", json!({}))), -32602);
    let add = m.tool("add", json!({"arguments": {"a": 1, "b": 2}}));
    assert_eq!(add["result"]["structuredContent"]["sum"], 3.0);
    let p = m.call("prompts/get", json!({"name": "test_simple_prompt"}));
    assert_eq!(p["result"]["resultType"], "complete");
    let c = m.call("completion/complete", json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": {"name": "arg1", "value": "a"}}));
    assert_eq!(c["result"]["completion"]["values"], json!(["alpha"]));
    assert_eq!(c["result"]["resultType"], "complete");
}

#[test]
fn progress_goes_out_and_cancel_stops_a_request() {
    let mut m = M::new();
    let (id, out) =
        m.req("tools/call", json!({"name": "test_tool_with_progress", "_meta": {"progressToken": "p"}}));
    assert!(out.is_empty());
    let mut all = Vec::new();
    for _ in 0..5 {
        all.extend(m.advance(10));
    }
    assert_eq!(all.iter().filter(|v| v["method"] == "notifications/progress").count(), 3);
    assert_eq!(all.last().unwrap()["id"], id);
    assert_eq!(all.last().unwrap()["result"]["resultType"], "complete");
    // A cancelled slow call is never answered.
    let (id, _) = m.req("tools/call", json!({"name": "slow", "arguments": {"ms": 50}}));
    assert!(m.s.is_in_flight(&RequestId::Integer(id.as_i64().unwrap().into())));
    assert!(m
        .send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": id}}))
        .is_empty());
    assert!(m.advance(100).is_empty());
}

// ---- logging --------------------------------------------------------------------------------

#[test]
fn logging_only_for_requests_that_ask_at_or_above_their_level() {
    let mut m = M::new();
    let (_, out) = m.req("tools/call", json!({"name": "test_tool_with_logging"}));
    assert_eq!(out.len(), 1, "no logLevel, no log: {out:?}");
    let mut p = m.params(json!({"name": "test_tool_with_logging"}));
    p["_meta"][era::LOG_LEVEL_KEY] = "warning".into();
    let out = m.send(json!({"jsonrpc":"2.0","id":"lg","method":"tools/call","params":p}));
    let levels: Vec<_> = out
        .iter()
        .filter(|v| v["method"] == "notifications/message")
        .map(|v| v["params"]["level"].clone())
        .collect();
    assert_eq!(levels, [json!("warning"), json!("error")]);
    assert_eq!(out.last().unwrap()["id"], "lg");
    let mut f = M::fault(Fault::ModernLogWithoutLevel);
    let (_, out) = f.req("tools/call", json!({"name": "test_tool_with_logging"}));
    assert_eq!(out.len(), 5);
}

// ---- subscriptions --------------------------------------------------------------------------

#[test]
fn listen_acknowledges_first_then_sends_only_what_was_asked() {
    let mut m = M::new();
    let (id, out) = m.req(
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "resourceSubscriptions": ["test://watched-resource", "test://nope"]}}),
    );
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(out[0]["params"]["_meta"][era::SUBSCRIPTION_ID_KEY], id);
    assert_eq!(
        out[0]["params"]["notifications"],
        json!({"toolsListChanged": true, "resourceSubscriptions": ["test://watched-resource"]})
    );
    let later = m.advance(60);
    assert_eq!(later.len(), 1, "{later:?}");
    assert_eq!(later[0]["method"], "notifications/resources/updated");
    assert_eq!(later[0]["params"]["uri"], "test://watched-resource");
    assert_eq!(later[0]["params"]["_meta"][era::SUBSCRIPTION_ID_KEY], id);
    // touch_watched notifies the listener too (and answers its own request).
    let (_, out) = m.req("tools/call", json!({"name": "touch_watched"}));
    assert_eq!(out.len(), 2);
    // Cancelled: nothing more for it, not even a result.
    assert!(m
        .send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId": id}}))
        .is_empty());
    let (_, out) = m.req("tools/call", json!({"name": "touch_watched"}));
    assert_eq!(out.len(), 1);
    assert!(m.advance(1000).is_empty());
    assert!(m.s.next_deadline().is_none());
    // A listen without a filter is malformed.
    assert_eq!(code(&m.call("subscriptions/listen", json!({}))), -32602);
}

/// A listen stream with a lifetime ends on its own, with a notifications/cancelled naming it
/// and no result (cancellation.mdx); a zero lifetime ends it in the same answer as its
/// acknowledgement, so no client can end it first.
#[test]
fn a_listen_lifetime_ends_the_stream_with_a_cancellation() {
    let tools = json!({"notifications": {"toolsListChanged": true}});
    let config =
        |ms| ServerConfig { listen_lifetime: Some(Duration::from_millis(ms)), ..ServerConfig::default() };
    let mut m = M::with(config(5), None);
    let (id, out) = m.req("subscriptions/listen", tools.clone());
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(m.advance(4).is_empty());
    let later = m.advance(1);
    assert_eq!(later.len(), 1, "{later:?}");
    assert_eq!(later[0]["method"], "notifications/cancelled");
    assert_eq!(later[0]["params"]["requestId"], id);

    let mut m = M::with(config(0), None);
    let (id, out) = m.req("subscriptions/listen", tools);
    let methods: Vec<_> = out.iter().map(|o| o["method"].clone()).collect();
    assert_eq!(methods, ["notifications/subscriptions/acknowledged", "notifications/cancelled"], "{out:?}");
    assert_eq!(out[1]["params"]["requestId"], id);
    assert!(m.s.next_deadline().is_none());
}

// ---- MRTR -----------------------------------------------------------------------------------

/// Plays an MRTR exchange to the end, answering every input request; returns the rounds and the
/// final answer.
fn play(m: &mut M, method: &str, params: Value) -> (usize, Value) {
    let mut a = m.call(method, params.clone());
    let mut rounds = 0;
    while a["result"]["resultType"] == "input_required" {
        rounds += 1;
        assert!(rounds < 10, "{a}");
        assert!(a["result"].get("ttlMs").is_none());
        let mut retry = params.clone();
        retry["inputResponses"] = answer_all(&a);
        retry["requestState"] = a["result"]["requestState"].clone();
        a = m.call(method, retry);
    }
    (rounds, a)
}

#[test]
fn mrtr_fixtures_ask_and_complete() {
    let mut m = M::new();
    let first = m.tool("test_elicitation", json!({}));
    let r = &first["result"];
    assert_eq!(r["resultType"], "input_required");
    assert_eq!(r["inputRequests"]["elicitation"]["method"], "elicitation/create");
    assert_eq!(r["inputRequests"]["elicitation"]["params"]["mode"], "form");
    assert!(r["requestState"].is_string());
    assert_eq!(r["_meta"][era::SERVER_INFO_KEY]["name"], "mcpspec-reference");
    let (rounds, done) = play(&mut m, "tools/call", json!({"name": "test_elicitation"}));
    assert_eq!(rounds, 1);
    assert!(text(&done).starts_with("User response: action=accept"), "{done}");
    let (_, done) =
        play(&mut m, "tools/call", json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}));
    assert_eq!(text(&done), "LLM response: hi");
    let (_, done) = play(&mut m, "tools/call", json!({"name": "test_roots"}));
    assert_eq!(text(&done), "The client has 1 root(s): file:///tmp");
    let multi = m.tool("test_mrtr_multiple_inputs", json!({}));
    let keys: Vec<_> = multi["result"]["inputRequests"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, ["elicitation", "sampling", "roots"]);
    let (rounds, done) = play(&mut m, "tools/call", json!({"name": "test_mrtr_multiple_inputs"}));
    assert_eq!((rounds, text(&done).lines().count()), (1, 3));
    let (rounds, done) = play(&mut m, "tools/call", json!({"name": "test_mrtr_multi_round"}));
    assert_eq!(rounds, 2);
    assert_eq!(text(&done), "Topic: owls; LLM response: hi");
    let (rounds, done) = play(&mut m, "prompts/get", json!({"name": "test_mrtr_prompt"}));
    assert_eq!(rounds, 1);
    assert!(done["result"]["messages"][0]["content"]["text"].as_str().unwrap().contains("owls"));
    let (rounds, done) = play(&mut m, "resources/read", json!({"uri": "test://mrtr/needs-input"}));
    assert_eq!(rounds, 1);
    // An MRTR retry's result is not cacheable: ttl 0, private.
    assert_eq!(
        (done["result"]["ttlMs"].as_u64(), done["result"]["cacheScope"].as_str()),
        (Some(0), Some("private"))
    );
    assert_eq!(done["result"]["contents"][0]["uri"], "test://mrtr/needs-input");
    // Only declared capabilities are asked for.
    m.caps = json!({"roots": {}});
    let multi = m.tool("test_mrtr_multiple_inputs", json!({}));
    assert_eq!(multi["result"]["inputRequests"].as_object().unwrap().len(), 1);
}

#[test]
fn mrtr_sampling_with_tools_keeps_tool_uses_answered() {
    let mut m = M::new();
    m.caps = json!({"sampling": {"tools": {}}});
    let a = m.tool("test_sampling", json!({}));
    let req = &a["result"]["inputRequests"]["sampling"]["params"];
    assert_eq!(req["tools"][0]["name"], "lookup");
    let use_reply = json!({"role": "assistant", "model": "m", "stopReason": "toolUse",
        "content": [{"type": "tool_use", "id": "u1", "name": "lookup", "input": {"query": "q"}}]});
    let b = m.tool(
        "test_sampling",
        json!({"inputResponses": {"sampling": use_reply}, "requestState": a["result"]["requestState"]}),
    );
    let next = &b["result"]["inputRequests"]["sampling"]["params"];
    assert!(mcpspec_protocol::sampling::tool_balance_violations(next).is_empty(), "{next}");
    assert_eq!(next["messages"][2]["content"][0]["toolUseId"], "u1");
    let c = m.tool(
        "test_sampling",
        json!({"inputResponses": {"sampling": sample_ok()}, "requestState": b["result"]["requestState"]}),
    );
    assert_eq!(text(&c), "LLM response: hi");
}

#[test]
fn mrtr_rules_for_capabilities_state_and_responses() {
    let mut m = M::new();
    m.caps = json!({});
    for (tool, cap) in
        [("test_elicitation", "elicitation"), ("test_sampling", "sampling"), ("test_roots", "roots")]
    {
        let a = m.tool(tool, json!({}));
        assert_eq!(code(&a), -32021, "{tool}");
        assert!(a["error"]["data"]["requiredCapabilities"].get(cap).is_some());
    }
    assert_eq!(code(&m.call("prompts/get", json!({"name": "test_mrtr_prompt"}))), -32021);
    m.caps = all_caps();
    let a = m.tool("test_elicitation", json!({}));
    let state = a["result"]["requestState"].as_str().unwrap().to_owned();
    // Tampered: one character of the payload changed.
    let mut bad = state.clone().into_bytes();
    bad[3] = if bad[3] == b'A' { b'B' } else { b'A' };
    let bad = String::from_utf8(bad).unwrap();
    let r = m.tool(
        "test_elicitation",
        json!({"inputResponses": {"elicitation": elicit_ok()}, "requestState": bad}),
    );
    assert_eq!(code(&r), -32602);
    assert_eq!(code(&m.tool("test_elicitation", json!({"requestState": "garbage"}))), -32602);
    // Another tool's state.
    assert_eq!(
        code(&m.tool("test_roots", json!({"inputResponses": {"roots": roots_ok()}, "requestState": state}))),
        -32602
    );
    // Expired.
    m.now += Duration::from_secs(601);
    assert_eq!(
        code(&m.tool(
            "test_elicitation",
            json!({"inputResponses": {"elicitation": elicit_ok()}, "requestState": state})
        )),
        -32602
    );
    let a = m.tool("test_mrtr_multiple_inputs", json!({}));
    let state = a["result"]["requestState"].clone();
    // Missing answers: asked again, only those.
    let r = m.tool(
        "test_mrtr_multiple_inputs",
        json!({"inputResponses": {"roots": roots_ok()}, "requestState": state}),
    );
    assert_eq!(r["result"]["resultType"], "input_required");
    let again: Vec<_> = r["result"]["inputRequests"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(again, ["elicitation", "sampling"]);
    // The rest, with an extra entry that is ignored: complete.
    let r = m.tool(
        "test_mrtr_multiple_inputs",
        json!({"inputResponses": {"elicitation": elicit_ok(), "sampling": sample_ok(), "bonus": {}}, "requestState": r["result"]["requestState"]}),
    );
    assert_eq!(text(&r).lines().count(), 3, "{r}");
    // A response of the wrong shape.
    let a = m.tool("test_roots", json!({}));
    let r = m.tool(
        "test_roots",
        json!({"inputResponses": {"roots": {"nope": 1}}, "requestState": a["result"]["requestState"]}),
    );
    assert_eq!(code(&r), -32602);
}

#[test]
fn no_requests_to_the_client_and_no_legacy_codes() {
    let mut m = M::new();
    let mut out = Vec::new();
    for tool in
        ["test_sampling", "test_elicitation", "test_roots", "test_simple_text", "test_tool_with_progress"]
    {
        out.extend(m.req("tools/call", json!({"name": tool})).1);
    }
    out.extend(m.req("resources/read", json!({"uri": "test://nope"})).1);
    out.extend(m.advance(1000));
    for v in &out {
        assert!(!(v.get("id").is_some() && v.get("method").is_some()), "a request to the client: {v}");
        assert!(![-32002, -32042].contains(&v["error"]["code"].as_i64().unwrap_or(0)), "{v}");
    }
}

// ---- faults ---------------------------------------------------------------------------------

#[test]
fn faults_of_admission_and_results() {
    let mut f = M::fault(Fault::ModernDiscoverMissingCacheHints);
    assert!(f.call("server/discover", json!({}))["result"].get("ttlMs").is_none());
    let mut f = M::fault(Fault::ModernDiscoverListsUndeclared);
    assert!(f.call("server/discover", json!({}))["result"]["capabilities"].get("prompts").is_some());
    assert_eq!(code(&f.call("prompts/list", json!({}))), -32601);
    let mut f = M::fault(Fault::ModernMetaNotRequired);
    assert!(f.send(json!({"jsonrpc":"2.0","id":1,"method":"server/discover"}))[0].get("result").is_some());
    let bad_version = |f: &mut M| {
        let p = with_request_meta(None, &request_meta("2099-01-01", &json!({}), None));
        f.send(json!({"jsonrpc":"2.0","id":"v","method":"tools/list","params":p})).remove(0)
    };
    assert_eq!(code(&bad_version(&mut M::fault(Fault::ModernUnsupportedVersionWrongCode))), -32602);
    let a = bad_version(&mut M::fault(Fault::ModernUnsupportedVersionNoList));
    assert_eq!(code(&a), -32022);
    assert!(a["error"]["data"].get("supported").is_none());
    assert_eq!(
        M::fault(Fault::ModernRemovedMethodServed).call("ping", json!({}))["result"]["resultType"],
        "complete"
    );
    assert!(M::fault(Fault::ModernResultTypeMissing).call("tools/list", json!({}))["result"]
        .get("resultType")
        .is_none());
    let mut f = M::fault(Fault::ModernCacheHintsMissing);
    assert!(f.call("tools/list", json!({}))["result"].get("cacheScope").is_none());
    assert!(f.call("prompts/list", json!({}))["result"].get("cacheScope").is_some());
    assert_eq!(M::fault(Fault::ModernNegativeTtl).call("tools/list", json!({}))["result"]["ttlMs"], -1000);
    assert_eq!(
        M::fault(Fault::ModernBadCacheScope).call("resources/list", json!({}))["result"]["cacheScope"],
        "shared"
    );
    let mut f = M::fault(Fault::ModernUnknownResourceEmptyContents);
    assert_eq!(f.call("resources/read", json!({"uri": "test://nope"}))["result"]["contents"], json!([]));
    let mut f = M::fault(Fault::ModernUnknownResourceOldCode);
    assert_eq!(code(&f.call("resources/read", json!({"uri": "test://nope"}))), -32002);
    let mut f = M::fault(Fault::ModernErrorWithoutId);
    let (_, out) = f.req("no/such", json!({}));
    assert!(out[0].get("id").is_none() && code(&out[0]) == -32601);
    let mut f = M::fault(Fault::ModernServerSendsRequest);
    let (_, out) = f.req("tools/call", json!({"name": "test_simple_text"}));
    assert_eq!((out.len(), &out[0]["method"]), (2, &json!("ping")));
}

#[test]
fn faults_of_mrtr() {
    let mut f = M::fault(Fault::ModernInputRequestUndeclared);
    f.caps = json!({});
    assert_eq!(
        f.tool("test_elicitation", json!({}))["result"]["inputRequests"]["elicitation"]["method"],
        "elicitation/create"
    );
    let mut f = M::fault(Fault::ModernRequestStateUnchecked);
    let r = f.tool(
        "test_elicitation",
        json!({"inputResponses": {"elicitation": elicit_ok()}, "requestState": "garbage"}),
    );
    assert!(r.get("result").is_some(), "{r}");
    let mut f = M::fault(Fault::ModernInputRequiredOnList);
    assert_eq!(f.call("tools/list", json!({}))["result"]["resultType"], "input_required");
    let mut f = M::fault(Fault::ModernInputRequiredEmpty);
    let r = f.tool("test_elicitation", json!({}));
    assert_eq!(r["result"]["resultType"], "input_required");
    assert!(r["result"].get("inputRequests").is_none() && r["result"].get("requestState").is_none());
    let mut f = M::fault(Fault::ModernMissingInputError);
    let a = f.tool("test_mrtr_multiple_inputs", json!({}));
    assert_eq!(
        code(&f.tool(
            "test_mrtr_multiple_inputs",
            json!({"inputResponses": {}, "requestState": a["result"]["requestState"]})
        )),
        -32602
    );
    let mut f = M::fault(Fault::ModernExtraInputRejected);
    let a = f.tool("test_roots", json!({}));
    let r = f.tool("test_roots", json!({"inputResponses": {"roots": roots_ok(), "bonus": {}}, "requestState": a["result"]["requestState"]}));
    assert_eq!(code(&r), -32602);
}

#[test]
fn faults_of_listen() {
    let watched = json!({"notifications": {"resourceSubscriptions": ["test://watched-resource"]}});
    let mut f = M::fault(Fault::ModernListenNoAck);
    assert!(f.req("subscriptions/listen", watched.clone()).1.is_empty());
    assert_eq!(f.advance(60)[0]["method"], "notifications/resources/updated");
    let mut f = M::fault(Fault::ModernListenMissingSubscriptionId);
    let (_, out) = f.req("subscriptions/listen", watched.clone());
    assert!(out[0]["params"].get("_meta").is_none());
    let mut f = M::fault(Fault::ModernListenUnrequested);
    let (_, out) = f.req("subscriptions/listen", watched);
    assert_eq!(out[1]["method"], "notifications/tools/list_changed");
}

#[test]
fn modern_faults_leave_legacy_sessions_alone() {
    for fault in Fault::ALL.iter().filter(|f| f.name().starts_with("modern-")) {
        let mut m = M::fault(*fault);
        let init = m.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"l","version":"1"}}}));
        assert_eq!(init[0]["result"]["protocolVersion"], "2025-11-25");
        m.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
        let list = m.send(json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}));
        assert!(
            list[0]["result"]["tools"].is_array() && list[0]["result"].get("resultType").is_none(),
            "{fault:?}"
        );
        let e = m
            .send(json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"test_elicitation"}}));
        assert_eq!(e.len(), 1, "{fault:?}");
        assert_eq!(e[0]["method"], "elicitation/create", "{fault:?}");
        let u =
            m.send(json!({"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"test://nope"}}));
        assert_eq!(u[0]["error"]["code"], -32002, "{fault:?}");
        assert_eq!(u[0]["id"], 4);
        assert_eq!(m.send(json!({"jsonrpc":"2.0","id":5,"method":"ping"}))[0]["result"], json!({}));
    }
}

// ---- stdio ----------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn stdio_modern_only_listen_then_cancel() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let config = ServerConfig { supported: vec![Revision::V2026_07_28], ..ServerConfig::default() };
    let (client, server_end) = tokio::io::duplex(1 << 16);
    let (read_half, write_half) = tokio::io::split(server_end);
    let task = tokio::spawn(serve_stdio(ReferenceServer::new(config), None, read_half, write_half));
    let (read_back, mut write_back) = tokio::io::split(client);
    let mut lines = BufReader::new(read_back).lines();
    let meta = json!({era::PROTOCOL_VERSION_KEY: V, era::CLIENT_CAPABILITIES_KEY: {}});
    let listen = json!({"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{"_meta": meta,
        "notifications":{"resourceSubscriptions":["test://watched-resource"]}}});
    write_back.write_all(format!("{listen}\n").as_bytes()).await.unwrap();
    async fn next<R: tokio::io::AsyncBufRead + Unpin>(lines: &mut tokio::io::Lines<R>) -> Value {
        let line =
            tokio::time::timeout(Duration::from_secs(5), lines.next_line()).await.unwrap().unwrap().unwrap();
        serde_json::from_str::<Value>(&line).unwrap()
    }
    assert_eq!(next(&mut lines).await["method"], "notifications/subscriptions/acknowledged");
    // The watched resource changes 50 ms after the subscription (virtual time).
    assert_eq!(next(&mut lines).await["method"], "notifications/resources/updated");
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}});
    let discover = json!({"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta": meta}});
    write_back.write_all(format!("{cancel}\n{discover}\n").as_bytes()).await.unwrap();
    // Nothing more for the cancelled listen: the next line answers the discovery.
    let d = next(&mut lines).await;
    assert_eq!((d["id"].clone(), d["result"]["resultType"].clone()), (json!(2), json!("complete")));
    write_back.shutdown().await.unwrap();
    tokio::time::timeout(Duration::from_secs(5), task).await.unwrap().unwrap().unwrap();
}
