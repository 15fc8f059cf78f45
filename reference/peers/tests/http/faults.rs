//! Every `http-`/`sse-` fault: one test each, asserting the defect it names.

use super::*;

// ---- faults: one test each, asserting the defect it names -----------------------------------

#[tokio::test]
async fn fault_http_accepted_with_body() {
    let s = with_fault(Flavor::Streamable, Fault::HttpAcceptedWithBody).await;
    let mut c = Client::new(&s.url, "2025-06-18");
    let params =
        json!({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}});
    let init = c.call("initialize", params).await;
    c.session = Some(init.headers["mcp-session-id"].to_str().unwrap().to_owned());
    let note = c.notify("notifications/initialized").await;
    assert_eq!(note.status, 200);
    assert!(!note.body.is_empty());
}

#[tokio::test]
async fn fault_http_refuse_batches() {
    let s = with_fault(Flavor::Streamable, Fault::HttpRefuseBatches).await;
    let c = session(&s, "2025-03-26").await;
    let batch =
        json!([{"jsonrpc":"2.0","id":"b1","method":"ping"},{"jsonrpc":"2.0","id":"b2","method":"ping"}]);
    let refused = full(c.send(&batch).await).await;
    assert_eq!(refused.status, 400);
    let error: Value = serde_json::from_slice(&refused.body).unwrap();
    assert_eq!(error["error"]["code"], -32600);
    assert!(error.get("id").is_none_or(Value::is_null), "{error}");
}

#[tokio::test]
async fn fault_http_session_id_invalid_chars() {
    let s = with_fault(Flavor::Streamable, Fault::HttpSessionIdInvalidChars).await;
    let init = Client::new(&s.url, "2025-06-18")
        .call(
            "initialize",
            json!({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}),
        )
        .await;
    let sid = init.headers["mcp-session-id"].as_bytes();
    assert!(!is_visible_ascii(sid));
    assert!(sid.contains(&b' ') && sid.iter().any(|b| *b > 0x7e));
}

#[tokio::test]
async fn fault_http_deleted_session_served() {
    let s = with_fault(Flavor::Streamable, Fault::HttpDeletedSessionServed).await;
    let mut c = session(&s, "2025-06-18").await;
    let deleted = within("DELETE", c.request(reqwest::Method::DELETE).send()).await.unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
    assert_eq!(c.call("ping", json!({})).await.status, 200, "served after DELETE");
}

#[tokio::test]
async fn fault_http_missing_session_id_served() {
    let s = with_fault(Flavor::Streamable, Fault::HttpMissingSessionIdServed).await;
    let mut c = session(&s, "2025-06-18").await;
    c.session = None;
    assert_eq!(c.call("ping", json!({})).await.status, 200, "served without a session id");
}

#[tokio::test]
async fn fault_http_unknown_session_400() {
    let s = with_fault(Flavor::Streamable, Fault::HttpUnknownSession400).await;
    let mut c = Client::new(&s.url, "2025-06-18");
    c.session = Some("never-issued".into());
    assert_eq!(c.call("ping", json!({})).await.status, 400);
}

#[tokio::test]
async fn fault_http_protocol_version_unchecked() {
    let s = with_fault(Flavor::Streamable, Fault::HttpProtocolVersionUnchecked).await;
    let c = session(&s, "2025-06-18").await;
    let mut bare = Client::new(&s.url, "2025-03-26");
    bare.session = c.session.clone();
    let r = bare
        .post(&json!({"jsonrpc":"2.0","id":5,"method":"ping"}))
        .header("mcp-protocol-version", "1999-01-01");
    assert_eq!(within("POST", r.send()).await.unwrap().status().as_u16(), 200);
}

#[tokio::test]
async fn fault_http_foreign_origin_accepted() {
    let s = with_fault(Flavor::Streamable, Fault::HttpForeignOriginAccepted).await;
    let c = session(&s, "2025-06-18").await;
    let r = c.post(&json!({"jsonrpc":"2.0","id":5,"method":"ping"})).header("origin", "http://evil.example");
    assert_eq!(within("POST", r.send()).await.unwrap().status().as_u16(), 200);
}

#[tokio::test]
async fn fault_http_refused_notification_accepted() {
    // A notification for a session that does not exist cannot be accepted: 404 from the clean
    // endpoint, 202 from the faulty one.
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    for (fault, expected) in [(None, 404), (Some(Fault::HttpRefusedNotificationAccepted), 202)] {
        let s = match fault {
            Some(f) => with_fault(Flavor::Streamable, f).await,
            None => server(Flavor::Streamable, |_| {}).await,
        };
        let r = reqwest::Client::new()
            .post(&s.url)
            .header("accept", BOTH)
            .header("content-type", "application/json")
            .header("mcp-session-id", "no-such-session")
            .header("mcp-protocol-version", "2025-06-18")
            .body(note.to_string());
        assert_eq!(within("POST", r.send()).await.unwrap().status().as_u16(), expected, "{fault:?}");
    }
}

#[tokio::test]
async fn fault_http_accept_unchecked() {
    let s = with_fault(Flavor::Streamable, Fault::HttpAcceptUnchecked).await;
    let c = session(&s, "2025-06-18").await;
    let r =
        c.post_as(&json!({"jsonrpc":"2.0","id":5,"method":"ping"}), "application/json", "application/json");
    assert_eq!(within("POST", r.send()).await.unwrap().status().as_u16(), 200);
}

#[tokio::test]
async fn fault_http_content_type_unchecked() {
    let s = with_fault(Flavor::Streamable, Fault::HttpContentTypeUnchecked).await;
    let c = session(&s, "2025-06-18").await;
    let r = c.post_as(&json!({"jsonrpc":"2.0","id":5,"method":"ping"}), BOTH, "text/plain");
    assert_eq!(within("POST", r.send()).await.unwrap().status().as_u16(), 200);
}

#[tokio::test]
async fn fault_http_get_json() {
    let s = with_fault(Flavor::Streamable, Fault::HttpGetJson).await;
    let c = session(&s, "2025-06-18").await;
    let get = full(c.get(None).await).await;
    assert_eq!((get.status, get.content_type()), (200, "application/json"));
}

#[tokio::test]
async fn fault_http_text_plain() {
    let s = with_fault(Flavor::Streamable, Fault::HttpTextPlain).await;
    let mut c = session(&s, "2025-06-18").await;
    assert_eq!(c.call("ping", json!({})).await.content_type(), "text/plain");
}

#[tokio::test]
async fn fault_sse_event_ids_repeat() {
    let s = with_fault(Flavor::Streamable, Fault::SseEventIdsRepeat).await;
    let mut c = session(&s, "2025-06-18").await;
    let a = c.call("ping", json!({})).await.ids();
    let b = c.call("ping", json!({})).await.ids();
    assert_eq!(a, b, "the same ids on two streams");
}

#[tokio::test]
async fn fault_sse_broadcast() {
    let s = with_fault(Flavor::Streamable, Fault::SseBroadcast).await;
    let mut c = session(&s, "2025-06-18").await;
    let get = c.get(None).await;
    let post = c.call("tools/call", json!({"name": "test_tool_with_logging", "arguments": {}})).await;
    let on_post: Vec<Value> =
        post.messages().into_iter().filter(|m| m["method"] == "notifications/message").collect();
    assert!(!on_post.is_empty());
    let on_get = read(get, T, |e| e.len() >= on_post.len()).await.messages();
    assert_eq!(on_get, on_post, "the same notifications on both streams");
}

#[tokio::test]
async fn fault_sse_response_on_get() {
    let s = with_fault(Flavor::Streamable, Fault::SseResponseOnGet).await;
    let mut c = session(&s, "2025-06-18").await;
    let get = c.get(None).await;
    let post = c.call("ping", json!({})).await;
    assert!(post.messages().is_empty(), "{post:?}");
    let on_get = read(get, T, |e| !e.is_empty()).await.messages();
    assert!(response_of(&on_get, 2).is_some(), "{on_get:?}");
}

#[tokio::test]
async fn fault_sse_close_before_response() {
    let s = with_fault(Flavor::Streamable, Fault::SseCloseBeforeResponse).await;
    let mut c = Client::new(&s.url, "2025-06-18");
    let params =
        json!({"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}});
    let init = c.call("initialize", params).await;
    assert!(init.ended && init.messages().is_empty(), "the stream ended without the response: {init:?}");
}

#[tokio::test]
async fn fault_sse_response_withheld() {
    let s = with_fault(Flavor::Streamable, Fault::SseResponseWithheld).await;
    let c = Client::new(&s.url, "2025-06-18");
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
        "capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let a = read(c.send(&init).await, Duration::from_millis(500), |_| false).await;
    assert_eq!(a.status, 200);
    assert!(!a.ended && a.messages().is_empty(), "open, and no response: {a:?}");
}

#[tokio::test]
async fn fault_sse_replay_other_stream() {
    let s = with_fault(Flavor::Streamable, Fault::SseReplayOtherStream).await;
    let mut c = session(&s, "2025-06-18").await;
    let first = c.call("ping", json!({})).await.ids();
    c.call("ping", json!({})).await;
    let resumed = full(c.get(Some(&first[0])).await).await;
    let (stream, _) = mcpspec_reference::transport::http_server::parse_event_id(&first[0]).unwrap();
    let foreign = resumed.ids().into_iter().filter(|id| !id.starts_with(&format!("{stream}-"))).count();
    assert!(foreign > 0, "{resumed:?}");
}

#[tokio::test]
async fn fault_sse_no_endpoint_event() {
    let s = with_fault(Flavor::LegacySse, Fault::SseNoEndpointEvent).await;
    let (_get, events, _) = legacy_open(&s).await;
    assert_eq!(events[0].kind(), "message");
}

#[tokio::test]
async fn fault_sse_wrong_event_type() {
    let s = with_fault(Flavor::LegacySse, Fault::SseWrongEventType).await;
    let (get, _, post_url) = legacy_open(&s).await;
    assert_eq!(legacy_post(&post_url, json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await, 202);
    let stream = read(get, T, |e| !e.is_empty()).await;
    assert_eq!(stream.events[0].kind(), "mcp-message");
}

#[tokio::test]
async fn message_faults_apply_over_http_too() {
    let s = with_fault(Flavor::Streamable, Fault::StringifyIds).await;
    let mut c = session(&s, "2025-06-18").await;
    let ping = c.call("ping", json!({})).await;
    assert_eq!(ping.messages()[0]["id"], "2", "{ping:?}");
    assert!(ping.ended);
}

#[test]
fn every_http_fault_has_a_test() {
    let source = include_str!("faults.rs");
    // The hostile servers replace the endpoint; each is a row of the harness's robustness table.
    let hostile = include_str!("../../../../harness/tests/suite/robustness.rs");
    for f in Fault::ALL.iter().filter(|f| f.name().starts_with("http-") || f.name().starts_with("sse-")) {
        if f.is_hostile_http() {
            let row = format!("row(\"{}\"", f.name());
            assert!(hostile.contains(&row), "no robustness row {row}");
            continue;
        }
        let test = format!("fn fault_{}()", f.name().replace('-', "_"));
        assert!(source.contains(&test), "no test {test}");
    }
}
