//! The modern era (2026-07-28) on the same endpoint: requests without a session, refusals with
//! their status and code, both eras side by side.

use super::*;

// ---- the modern era (2026-07-28) on the same endpoint -------------------------------------

pub(crate) const MODERN: &str = "2026-07-28";

/// A dual-era endpoint: legacy sessions and modern requests.
pub(crate) async fn modern_server(fault: Option<Fault>) -> Server {
    server(Flavor::Streamable, |o| {
        o.accepted_revisions = ServerConfig::default().supported;
        o.fault = fault;
    })
    .await
}

pub(crate) fn modern_caps() -> Value {
    json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
}

/// A modern request body: `params` with `_meta`.
pub(crate) fn modern_body(id: Value, method: &str, mut params: Value, caps: &Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "mcpspec-test", "version": "1"}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A modern POST with the mirrored headers a correct client sends, changed by `tweak`
/// (`(name, None)` removes a header).
pub(crate) fn modern_post(
    url: &str,
    body: &Value,
    tweak: &[(&str, Option<&str>)],
) -> reqwest::RequestBuilder {
    let method = body["method"].as_str().unwrap_or("").to_owned();
    let mut headers: Vec<(String, String)> = vec![
        ("accept".into(), BOTH.into()),
        ("content-type".into(), "application/json".into()),
        ("mcp-protocol-version".into(), MODERN.into()),
        ("mcp-method".into(), method.clone()),
    ];
    let name = body["params"]["name"].as_str().or(body["params"]["uri"].as_str());
    if let (Some(n), "tools/call" | "prompts/get" | "resources/read") = (name, method.as_str()) {
        headers.push(("mcp-name".into(), mcpspec_protocol::modern::encode_header_value(n)));
    }
    for (k, v) in tweak {
        headers.retain(|(h, _)| h != k);
        if let Some(v) = v {
            headers.push(((*k).into(), (*v).into()));
        }
    }
    let mut b = plain_client().post(url).timeout(T).body(body.to_string());
    for (k, v) in headers {
        b = b.header(k, v);
    }
    b
}

pub(crate) async fn modern_call(url: &str, body: &Value, tweak: &[(&str, Option<&str>)]) -> Answer {
    full(within("POST", modern_post(url, body, tweak).send()).await.expect("POST")).await
}

/// The response in an answer (a JSON body or the last message of an SSE stream).
pub(crate) fn the_response(a: &Answer) -> Value {
    if a.content_type().starts_with("application/json") {
        return a.json();
    }
    a.messages().into_iter().rev().find(|m| m.get("method").is_none()).unwrap_or(Value::Null)
}

#[tokio::test]
async fn modern_requests_are_served_without_a_session() {
    let s = modern_server(None).await;
    let caps = modern_caps();
    let d = modern_call(&s.url, &modern_body(json!(1), "server/discover", json!({}), &caps), &[]).await;
    assert_eq!(d.status, 200, "{d:?}");
    assert!(d.content_type().starts_with("application/json"));
    assert!(d.headers.get("mcp-session-id").is_none(), "no session is minted");
    assert_eq!(d.json()["id"], 1);
    assert_eq!(d.json()["result"]["supportedVersions"][0], MODERN);
    let t = modern_call(
        &s.url,
        &modern_body(json!(2), "tools/call", json!({"name": "test_simple_text"}), &caps),
        &[],
    )
    .await;
    assert_eq!(t.json()["result"]["resultType"], "complete", "{t:?}");
    // A name outside plain ASCII travels Base64-encoded and is compared decoded.
    let u =
        modern_call(&s.url, &modern_body(json!(3), "tools/call", json!({"name": "Hello, 世界"}), &caps), &[])
            .await;
    assert_eq!((u.status, u.json()["error"]["code"].as_i64()), (200, Some(-32602)), "an unknown tool");
    // Mcp-Session-Id on a modern request is ignored.
    let ignored = modern_call(
        &s.url,
        &modern_body(json!(4), "tools/list", json!({}), &caps),
        &[("mcp-session-id", Some("not-a-session"))],
    )
    .await;
    assert_eq!(ignored.status, 200);
    assert!(ignored.json()["result"]["tools"].is_array());
    // Pages follow without a session: each request meets a fresh server.
    let next = ignored.json()["result"]["nextCursor"].clone();
    let page2 =
        modern_call(&s.url, &modern_body(json!(5), "tools/list", json!({"cursor": next}), &caps), &[]).await;
    assert!(page2.json()["result"]["tools"].is_array(), "{page2:?}");
}

#[tokio::test]
async fn modern_refusals_have_their_status_and_code() {
    let s = modern_server(None).await;
    let caps = modern_caps();
    let call = modern_body(json!("c"), "tools/call", json!({"name": "test_simple_text"}), &caps);
    type Case<'a> = (Value, Vec<(&'a str, Option<&'a str>)>, u16, i64);
    let cases: Vec<Case> = vec![
        (json!({"jsonrpc":"2.0","id":"c","method":"tools/list"}), vec![], 400, -32602),
        (call.clone(), vec![("mcp-protocol-version", None)], 400, -32020),
        (call.clone(), vec![("mcp-protocol-version", Some("2025-11-25"))], 400, -32020),
        (call.clone(), vec![("mcp-method", Some("tools/list"))], 400, -32020),
        (call.clone(), vec![("mcp-method", None)], 400, -32020),
        (call.clone(), vec![("mcp-name", Some("test_error_handling"))], 400, -32020),
        (call.clone(), vec![("mcp-name", None)], 400, -32020),
        (modern_body(json!("c"), "ping", json!({}), &caps), vec![], 404, -32601),
        (modern_body(json!("c"), "no/such", json!({}), &caps), vec![], 404, -32601),
        (
            modern_body(json!("c"), "tools/call", json!({"name": "test_roots"}), &json!({})),
            vec![],
            400,
            -32021,
        ),
    ];
    for (body, tweak, status, code) in cases {
        let a = modern_call(&s.url, &body, &tweak).await;
        assert_eq!(
            (a.status, a.json()["error"]["code"].as_i64()),
            (status, Some(code)),
            "{body} {tweak:?}: {a:?}"
        );
        assert_eq!(a.json()["id"], "c", "the id is kept");
    }
    let mut unsupported = modern_body(json!(9), "tools/list", json!({}), &caps);
    unsupported["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = "2099-01-01".into();
    let a = modern_call(&s.url, &unsupported, &[("mcp-protocol-version", Some("2099-01-01"))]).await;
    assert_eq!((a.status, a.json()["error"]["code"].as_i64()), (400, Some(-32022)), "{a:?}");
    assert_eq!(a.json()["error"]["data"]["supported"][0], MODERN);
    // GET and DELETE without a legacy session.
    for m in [reqwest::Method::GET, reqwest::Method::DELETE] {
        let r = within("GET", plain_client().request(m, &s.url).header("accept", "text/event-stream").send())
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 405);
    }
}

#[tokio::test]
async fn modern_and_legacy_share_the_endpoint() {
    let s = modern_server(None).await;
    let mut legacy = session(&s, "2025-11-25").await;
    let sid = legacy.session.clone().unwrap();
    let body = modern_body(json!(1), "tools/list", json!({}), &json!({}));
    let m = modern_call(&s.url, &body, &[("mcp-session-id", Some(&sid))]).await;
    assert_eq!(m.json()["result"]["resultType"], "complete");
    let l = legacy.call("tools/list", json!({})).await;
    let tools = response_of(&l.messages(), 2).unwrap()["result"].clone();
    assert!(tools["tools"].is_array() && tools.get("resultType").is_none());
    // GET with the legacy session still opens its stream.
    assert_eq!(legacy.get(None).await.status().as_u16(), 200);
}

#[tokio::test]
async fn modern_mrtr_over_http_and_logging_on_the_stream() {
    let s = modern_server(None).await;
    let caps = modern_caps();
    let first = modern_call(
        &s.url,
        &modern_body(json!(1), "tools/call", json!({"name": "test_elicitation"}), &caps),
        &[],
    )
    .await;
    let r = first.json()["result"].clone();
    assert_eq!(r["resultType"], "input_required", "{first:?}");
    let retry = json!({"name": "test_elicitation", "requestState": r["requestState"],
        "inputResponses": {"elicitation": {"action": "accept", "content": {"username": "u"}}}});
    let done = modern_call(&s.url, &modern_body(json!(2), "tools/call", retry, &caps), &[]).await;
    assert!(done.json()["result"]["content"][0]["text"].as_str().unwrap().contains("accept"), "{done:?}");
    let mut body = modern_body(json!(3), "tools/call", json!({"name": "test_tool_with_logging"}), &caps);
    body["params"]["_meta"]["io.modelcontextprotocol/logLevel"] = "info".into();
    let logged = modern_call(&s.url, &body, &[]).await;
    assert!(logged.content_type().starts_with("text/event-stream"), "{logged:?}");
    assert_eq!(logged.headers.get("x-accel-buffering").map(|v| v.as_bytes()), Some(&b"no"[..]));
    let msgs = logged.messages();
    assert_eq!(msgs.iter().filter(|m| m["method"] == "notifications/message").count(), 3);
    assert_eq!(the_response(&logged)["id"], 3);
}

#[tokio::test]
async fn modern_listen_streams_until_closed() {
    let s = modern_server(None).await;
    let body = modern_body(
        json!("sub"),
        "subscriptions/listen",
        json!({"notifications": {"resourceSubscriptions": ["test://watched-resource"]}}),
        &json!({}),
    );
    let r = within("POST", modern_post(&s.url, &body, &[]).send()).await.unwrap();
    let a = read(r, T, |events| events.len() >= 2).await;
    assert!(!a.ended, "the listen stream stays open");
    let msgs = a.messages();
    assert_eq!(msgs[0]["method"], "notifications/subscriptions/acknowledged", "{msgs:?}");
    assert_eq!(msgs[1]["method"], "notifications/resources/updated");
    assert_eq!(msgs[1]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], "sub");
}

#[tokio::test]
async fn closing_a_modern_stream_ends_its_request() {
    let mut options = HttpServerOptions::new(Flavor::Streamable);
    options.accepted_revisions = ServerConfig::default().supported;
    let mut listener = within("bind", HttpListener::bind(options)).await.unwrap();
    let body = modern_body(json!(1), "tools/call", json!({"name": "slow"}), &json!({}));
    let post = tokio::spawn(modern_post(&listener.url(), &body, &[]).send());
    let mut link = listener.next_session(T).await.expect("a session for the request");
    assert_eq!(link_recv(&mut link).await["method"], "tools/call");
    post.abort();
    let closed = within("the end of the request", async {
        loop {
            match link.recv(T).await {
                Err(RecvError::Closed) => return true,
                Err(_) => return false,
                Ok(_) => continue,
            }
        }
    })
    .await;
    assert!(closed, "the app hears that the request is gone");
}

#[tokio::test]
async fn fault_modern_http_header_unchecked() {
    let s = modern_server(Some(Fault::ModernHttpHeaderUnchecked)).await;
    let body = modern_body(json!(1), "tools/call", json!({"name": "test_simple_text"}), &json!({}));
    let a =
        modern_call(&s.url, &body, &[("mcp-method", Some("tools/list")), ("mcp-name", Some("other"))]).await;
    assert_eq!((a.status, a.json()["result"]["resultType"].as_str()), (200, Some("complete")), "{a:?}");
}

#[tokio::test]
async fn fault_modern_http_status_200_on_error() {
    let s = modern_server(Some(Fault::ModernHttpStatus200OnError)).await;
    let a = modern_call(&s.url, &modern_body(json!(1), "no/such", json!({}), &json!({})), &[]).await;
    assert_eq!((a.status, a.json()["error"]["code"].as_i64()), (200, Some(-32601)));
    let b = modern_call(&s.url, &json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}), &[]).await;
    assert_eq!((b.status, b.json()["error"]["code"].as_i64()), (200, Some(-32602)));
}

#[tokio::test]
async fn a_modern_only_endpoint_refuses_initialize_naming_its_versions() {
    let mut options = HttpServerOptions::new(Flavor::Streamable);
    options.accepted_revisions = vec![mcpspec_protocol::Revision::V2026_07_28];
    let listener = within("bind", HttpListener::bind(options)).await.unwrap();
    let url = listener.url();
    let only =
        ServerConfig { supported: vec![mcpspec_protocol::Revision::V2026_07_28], ..ServerConfig::default() };
    let task = tokio::spawn(async move {
        let _ = serve_http(listener, move || ReferenceServer::new(only.clone())).await;
    });
    let mut legacy = Client::new(&url, "2025-11-25");
    let params = json!({"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "l", "version": "1"}});
    let init = legacy.call("initialize", params).await;
    assert_eq!(init.status, 400, "{init:?}");
    assert!(init.headers.get("mcp-session-id").is_none());
    assert_eq!(init.json()["error"]["data"]["supported"], json!([MODERN]));
    assert!(init.json()["error"]["message"].as_str().unwrap().contains(MODERN));
    let r = within(
        "GET",
        plain_client().get(&url).header("accept", "text/event-stream").header("mcp-session-id", "x").send(),
    )
    .await
    .unwrap();
    assert_eq!(r.status().as_u16(), 405, "no legacy sessions at all");
    // The modern requests are served.
    let d = modern_call(&url, &modern_body(json!(1), "server/discover", json!({}), &json!({})), &[]).await;
    assert_eq!(d.json()["result"]["supportedVersions"], json!([MODERN]));
    task.abort();
}
