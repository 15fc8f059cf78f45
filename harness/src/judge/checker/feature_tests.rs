//! The checker's negotiation rules: capabilities, the initialized phase, progress and the
//! server's own requests.

use super::tests::{ids, C2S, S2C};
use super::*;
use serde_json::json;

/// An initialized session: the client declared `client_caps`, the server `server_caps`.
fn initialized(client_caps: Value, server_caps: Value) -> SessionChecker {
    let mut c = SessionChecker::new(Revision::V2025_11_25);
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":client_caps}}));
    c.on_value(
        S2C,
        &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":server_caps}}),
    );
    c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    c
}

#[test]
fn notifications_need_their_capability() {
    let mut c = initialized(json!({}), json!({"tools":{}}));
    let log = json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}});
    assert_eq!(ids(&c.on_value(S2C, &log)), ["capabilities/logging-declared"]);
    let changed = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"});
    assert_eq!(ids(&c.on_value(S2C, &changed)), ["capabilities/server-uses-negotiated"]);
    let mut ok = initialized(json!({}), json!({"logging":{},"tools":{"listChanged":true}}));
    assert!(ids(&ok.on_value(S2C, &log)).is_empty());
    assert!(ids(&ok.on_value(S2C, &changed)).is_empty());
}

#[test]
fn server_requests_need_client_capabilities() {
    let mut c = initialized(json!({"elicitation":{}}), json!({}));
    let sampling = json!({"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1}});
    assert_eq!(ids(&c.on_value(S2C, &sampling)), ["capabilities/server-requests-declared"]);
    let url = json!({"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://x","elicitationId":"e"}});
    assert_eq!(ids(&c.on_value(S2C, &url)), ["elicitation/mode-declared"]);
    let mut t = initialized(json!({"sampling":{}}), json!({}));
    let tools = json!({"jsonrpc":"2.0","id":3,"method":"sampling/createMessage","params":{"messages":[],"maxTokens":1,"tools":[{"name":"t","inputSchema":{"type":"object"}}]}});
    assert_eq!(ids(&t.on_value(S2C, &tools)), ["sampling/tools-capability"]);
}

#[test]
fn requests_before_initialized_are_flagged() {
    let mut c = SessionChecker::new(Revision::V2025_06_18);
    c.on_value(
        C2S,
        &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{"roots":{}}}}),
    );
    c.on_value(
        S2C,
        &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{}}}),
    );
    assert!(ids(&c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"p","method":"ping"}))).is_empty());
    let roots = json!({"jsonrpc":"2.0","id":"r","method":"roots/list"});
    assert_eq!(ids(&c.on_value(S2C, &roots)), ["lifecycle/server-quiet-before-initialized"]);
}

#[test]
fn progress_follows_its_request() {
    let mut c = initialized(json!({}), json!({"tools":{}}));
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":"tok"}}}));
    let p = |v: f64| json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"tok","progress":v}});
    assert!(ids(&c.on_value(S2C, &p(1.0))).is_empty());
    assert_eq!(ids(&c.on_value(S2C, &p(1.0))), ["progress/increasing"]);
    c.on_value(S2C, &json!({"jsonrpc":"2.0","id":5,"result":{"content":[]}}));
    assert_eq!(ids(&c.on_value(S2C, &p(3.0))), ["progress/stops-after-completion"]);
    let stranger =
        json!({"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":9,"progress":1}});
    assert_eq!(ids(&c.on_value(S2C, &stranger)), ["progress/token-active"]);
}

#[test]
fn progress_tokens_are_unique_among_active_requests() {
    let mut c = initialized(json!({}), json!({"tools":{}}));
    let call = |id: i64, token: Value| json!({"jsonrpc":"2.0","id":id,"method":"tools/call","params":{"name":"t","_meta":{"progressToken":token}}});
    assert!(ids(&c.on_value(C2S, &call(1, json!("tok")))).is_empty());
    assert_eq!(ids(&c.on_value(C2S, &call(2, json!("tok")))), ["progress/token-unique"]);
    // A token of another JSON type is another token.
    assert!(ids(&c.on_value(C2S, &call(3, json!(7)))).is_empty());
    // Free again once its request is answered, or cancelled by its sender.
    c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{"content":[]}}));
    assert!(ids(&c.on_value(C2S, &call(4, json!("tok")))).is_empty());
    let cancel = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}});
    assert!(ids(&c.on_value(C2S, &cancel)).is_empty());
    assert!(ids(&c.on_value(C2S, &call(5, json!(7)))).is_empty());
}

#[test]
fn cancellations_name_the_cancellers_own_requests_and_never_initialize() {
    let mut c = initialized(json!({}), json!({"tools":{}}));
    let cancel = |id: Value| json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id,"reason":"r"}});
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"t"}}));
    assert!(ids(&c.on_value(C2S, &cancel(json!("c1")))).is_empty());
    // Already answered: the answer may have crossed the cancel.
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":"c2","method":"tools/list"}));
    c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"c2","result":{"tools":[]}}));
    assert!(ids(&c.on_value(C2S, &cancel(json!("c2")))).is_empty());
    assert_eq!(ids(&c.on_value(C2S, &cancel(json!("never")))), ["cancellation/in-flight-only"]);
    // The other side's request is not the client's to cancel.
    c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"s1","method":"ping"}));
    assert_eq!(ids(&c.on_value(C2S, &cancel(json!("s1")))), ["cancellation/in-flight-only"]);
    let twin = c.on_value(C2S, &cancel(json!(0)));
    assert_eq!(ids(&twin), ["cancellation/not-initialize"]);
    let wrong_type = c.on_value(C2S, &cancel(json!("0")));
    assert_eq!(ids(&wrong_type), ["cancellation/in-flight-only"]);
    assert!(wrong_type[0].violations[0].actual.contains("the request had id 0 (integer)"));
    // The server's cancellation of its own request is fine.
    assert!(ids(&c.on_value(S2C, &cancel(json!("s1")))).is_empty());
}

#[test]
fn client_requests_need_server_capabilities() {
    let mut c = initialized(json!({"roots":{}}), json!({"tools":{},"resources":{}}));
    let req = |id: i64, method: &str| json!({"jsonrpc":"2.0","id":id,"method":method,"params":{}});
    assert!(ids(&c.on_value(C2S, &req(1, "tools/list"))).is_empty());
    assert!(ids(&c.on_value(C2S, &req(2, "resources/read"))).is_empty());
    assert!(ids(&c.on_value(C2S, &req(3, "ping"))).is_empty());
    for (id, method) in
        [(4, "prompts/list"), (5, "resources/subscribe"), (6, "logging/setLevel"), (7, "completion/complete")]
    {
        assert_eq!(
            ids(&c.on_value(C2S, &req(id, method))),
            ["capabilities/client-uses-negotiated"],
            "{method}"
        );
    }
    let changed = json!({"jsonrpc":"2.0","method":"notifications/roots/list_changed"});
    assert_eq!(ids(&c.on_value(C2S, &changed)), ["capabilities/client-uses-negotiated"]);
    // Before the server has answered initialize nothing is negotiated, so nothing is judged.
    let mut early = SessionChecker::new(Revision::V2025_06_18);
    early.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities":{}}}));
    assert!(ids(&early.on_value(C2S, &req(1, "prompts/list"))).is_empty());
}

#[test]
fn an_error_without_id_answers_only_malformed_input() {
    let mut c = initialized(json!({}), json!({}));
    let parse_error = json!({"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}});
    assert_eq!(ids(&c.on_value(S2C, &parse_error)), ["jsonrpc/notification-unanswered"]);
    c.on_frame(C2S, mcpspec_protocol::framing::decode_line(b"y"));
    assert!(ids(&c.on_value(S2C, &parse_error)).is_empty());
}

/// 2025-11-25's schema leaves requestId optional, for tasks, which this notification MUST NOT
/// cancel: a cancellation without it, from either side, names nothing it may cancel.
#[test]
fn a_cancellation_names_its_request_at_2025_11_25() {
    let mut c = initialized(json!({}), json!({}));
    let bare = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"r"}});
    assert_eq!(ids(&c.on_value(C2S, &bare)), ["cancellation/request-id-required"]);
    assert_eq!(ids(&c.on_value(S2C, &bare)), ["cancellation/request-id-required"]);
    let ping = json!({"jsonrpc":"2.0","id":5,"method":"ping"});
    c.on_value(C2S, &ping);
    let named = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}});
    assert!(ids(&c.on_value(C2S, &named)).is_empty());
    // Before 2025-11-25 the schema requires requestId and judges its absence.
    let mut old = SessionChecker::new(Revision::V2025_06_18);
    assert!(ids(&old.on_value(C2S, &bare)).is_empty());
}
