//! The legacy HTTP+SSE transport: the endpoint event, message events, a session's end.

use super::*;

// ---- legacy HTTP+SSE ----------------------------------------------------------------------

/// Opens a legacy session: the GET stream, its `endpoint` event, the POST URL.
pub(crate) async fn legacy_open(s: &Server) -> (reqwest::Response, Vec<SseEvent>, String) {
    let http = plain_client();
    let get = within("GET", http.get(&s.url).header("accept", "text/event-stream").send()).await.unwrap();
    assert_eq!(get.status().as_u16(), 200);
    let mut get = get;
    let mut decoder = SseDecoder::new(1 << 20);
    let mut items = Vec::new();
    while items.is_empty() {
        let chunk = within("endpoint event", get.chunk()).await.unwrap().expect("a first event");
        decoder.push(&chunk, &mut items);
    }
    let events: Vec<SseEvent> = items
        .into_iter()
        .map(|i| match i {
            SseItem::Event(e) => e,
            other => panic!("{other:?}"),
        })
        .collect();
    let post_url = format!("{}{}", s.base, events[0].data);
    (get, events, post_url)
}

pub(crate) async fn legacy_post(url: &str, body: Value) -> u16 {
    let r = plain_client().post(url).header("content-type", "application/json").body(body.to_string());
    within("POST", r.send()).await.unwrap().status().as_u16()
}

#[tokio::test]
async fn legacy_endpoint_event_and_message_events() {
    let s = server(Flavor::LegacySse, |_| {}).await;
    let (get, events, post_url) = legacy_open(&s).await;
    assert_eq!(events[0].kind(), "endpoint");
    assert!(events[0].data.starts_with("/messages?sessionId="), "{:?}", events[0]);
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05",
        "capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    assert_eq!(legacy_post(&post_url, init).await, 202);
    assert_eq!(
        legacy_post(&post_url, json!({"jsonrpc":"2.0","method":"notifications/initialized"})).await,
        202
    );
    assert_eq!(legacy_post(&post_url, json!({"jsonrpc":"2.0","id":2,"method":"tools/list"})).await, 202);
    assert_eq!(legacy_post(&post_url, json!({"jsonrpc":"2.0","id":3,"method":"ping"})).await, 202);
    let stream = read(get, T, |e| e.iter().any(|e| e.data.contains("\"id\":3"))).await;
    assert!(stream.events.iter().all(|e| e.kind() == "message"));
    let messages = stream.messages();
    assert_eq!(response_of(&messages, 1).unwrap()["result"]["protocolVersion"], "2024-11-05");
    assert!(response_of(&messages, 2).unwrap()["result"]["tools"].is_array());
    assert_eq!(response_of(&messages, 3).unwrap()["result"], json!({}));

    let unknown = format!("{}/messages?sessionId=nope", s.base);
    assert_eq!(legacy_post(&unknown, json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await, 404);
    let r = plain_client().post(&post_url).header("content-type", "text/plain").body("{}");
    assert_eq!(within("POST", r.send()).await.unwrap().status().as_u16(), 415);
    let foreign = plain_client()
        .get(&s.url)
        .header("accept", "text/event-stream")
        .header("origin", "http://evil.example");
    assert_eq!(within("GET", foreign.send()).await.unwrap().status().as_u16(), 403);
    let port = s.base.rsplit(':').next().unwrap().to_owned();
    let rebound = plain_client()
        .get(&s.url)
        .header("accept", "text/event-stream")
        .header("host", format!("rebind.example:{port}"));
    assert_eq!(within("GET", rebound.send()).await.unwrap().status().as_u16(), 403, "a foreign Host");
    let r = plain_client().post(&post_url).header("host", format!("rebind.example:{port}")).body("{}");
    assert_eq!(within("POST", r.send()).await.unwrap().status().as_u16(), 403, "a foreign Host");
}

#[tokio::test]
async fn legacy_session_ends_when_its_stream_drops() {
    let mut listener = HttpListener::bind(HttpServerOptions::new(Flavor::LegacySse)).await.unwrap();
    let s = Server {
        url: listener.url(),
        base: format!("http://{}", listener.local_addr()),
        task: tokio::spawn(async {}),
    };
    let (get, _, post_url) = legacy_open(&s).await;
    let mut link = within("session", listener.next_session(T)).await.unwrap();
    assert_eq!(legacy_post(&post_url, json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await, 202);
    assert_eq!(link_recv(&mut link).await["method"], "ping");
    drop(get);
    // The keep-alive (15 s by default) is not needed: hyper drops the body when the peer closes.
    let closed = within("close", async {
        loop {
            match link.recv(Duration::from_millis(50)).await {
                Err(RecvError::Closed) => return,
                _ => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    })
    .await;
    assert_eq!(closed, ());
    assert_eq!(legacy_post(&post_url, json!({"jsonrpc":"2.0","id":2,"method":"ping"})).await, 404);
}
