//! The HTTP transports of the reference server, end to end over 127.0.0.1 with reqwest: the
//! rules of Streamable HTTP and legacy HTTP+SSE, and every `http-`/`sse-` fault. Every await is
//! bounded by [`T`].

use mcpspec_protocol::sse::{SseDecoder, SseEvent, SseItem};
use mcpspec_reference::faults::Fault;
use mcpspec_reference::server::{serve_http, ReferenceServer, ServerConfig};
use mcpspec_reference::transport::http_server::{
    is_visible_ascii, Flavor, HttpListener, HttpRecord, HttpServerOptions, SessionLink,
};
use mcpspec_reference::transport::RecvError;
use serde_json::{json, Value};
use std::collections::HashSet;
use std::future::Future;
use std::time::Duration;

/// The bound of every wait.
const T: Duration = Duration::from_secs(5);
const BOTH: &str = "application/json, text/event-stream";

async fn within<F: Future>(what: &str, f: F) -> F::Output {
    tokio::time::timeout(T, f).await.unwrap_or_else(|_| panic!("{what}: nothing within {T:?}"))
}

/// The reference server on a fresh listener; dropping it stops everything.
struct Server {
    url: String,
    base: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn server(flavor: Flavor, tweak: impl FnOnce(&mut HttpServerOptions)) -> Server {
    let mut options = HttpServerOptions::new(flavor);
    tweak(&mut options);
    let listener = within("bind", HttpListener::bind(options)).await.expect("bind");
    let url = listener.url();
    let base = format!("http://{}", listener.local_addr());
    let task = tokio::spawn(async move {
        let _ = serve_http(listener, || ReferenceServer::new(ServerConfig::default())).await;
    });
    Server { url, base, task }
}

async fn with_fault(flavor: Flavor, fault: Fault) -> Server {
    server(flavor, |o| o.fault = Some(fault)).await
}

/// An HTTP answer, its body read to the end (or, for a stream that stays open, for a while).
#[derive(Debug)]
struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
    events: Vec<SseEvent>,
    /// The body ended (else reading stopped at the wait).
    ended: bool,
}

impl Answer {
    fn content_type(&self) -> &str {
        self.headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("")
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The JSON-RPC messages of the SSE events (data that is JSON).
    fn messages(&self) -> Vec<Value> {
        self.events.iter().filter_map(|e| serde_json::from_str(&e.data).ok()).collect()
    }

    fn ids(&self) -> Vec<String> {
        self.events.iter().filter_map(|e| e.id.clone()).collect()
    }
}

/// Reads a response: the whole body, or until `enough` holds of the events so far, or `wait`.
async fn read(mut r: reqwest::Response, wait: Duration, enough: impl Fn(&[SseEvent]) -> bool) -> Answer {
    let status = r.status().as_u16();
    let headers = r.headers().clone();
    let mut body = Vec::new();
    let mut decoder = SseDecoder::new(1 << 20);
    let mut items = Vec::new();
    let mut events = Vec::new();
    let deadline = tokio::time::Instant::now() + wait;
    let mut ended = false;
    loop {
        match tokio::time::timeout_at(deadline, r.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                body.extend_from_slice(&chunk);
                decoder.push(&chunk, &mut items);
                for item in items.drain(..) {
                    match item {
                        SseItem::Event(e) => events.push(e),
                        other => panic!("the SSE decoder rejected what the server wrote: {other:?}"),
                    }
                }
                if enough(&events) {
                    break;
                }
            }
            Ok(Ok(None)) | Ok(Err(_)) => {
                ended = true;
                break;
            }
            Err(_) => break,
        }
    }
    Answer { status, headers, body, events, ended }
}

/// Reads a finite response to its end.
async fn full(r: reqwest::Response) -> Answer {
    let a = read(r, T, |_| false).await;
    assert!(a.ended, "the body did not end within {T:?}: {a:?}");
    a
}

struct Client {
    http: reqwest::Client,
    url: String,
    session: Option<String>,
    revision: &'static str,
    next_id: u64,
}

impl Client {
    fn new(url: &str, revision: &'static str) -> Client {
        Client { http: plain_client(), url: url.to_owned(), session: None, revision, next_id: 1 }
    }

    fn request(&self, method: reqwest::Method) -> reqwest::RequestBuilder {
        let mut b = self.http.request(method, &self.url).timeout(T);
        if let Some(s) = &self.session {
            b = b.header("mcp-session-id", s);
        }
        if self.revision != "2025-03-26" && self.session.is_some() {
            b = b.header("mcp-protocol-version", self.revision);
        }
        b
    }

    fn post(&self, body: &Value) -> reqwest::RequestBuilder {
        self.post_as(body, BOTH, "application/json")
    }

    /// A POST with these `Accept` and `Content-Type` headers.
    fn post_as(&self, body: &Value, accept: &str, content_type: &str) -> reqwest::RequestBuilder {
        self.request(reqwest::Method::POST)
            .header("accept", accept)
            .header("content-type", content_type)
            .body(body.to_string())
    }

    async fn send(&self, body: &Value) -> reqwest::Response {
        within("POST", self.post(body).send()).await.expect("POST")
    }

    async fn call(&mut self, method: &str, params: Value) -> Answer {
        let id = self.next_id;
        self.next_id += 1;
        let r = self.send(&json!({"jsonrpc":"2.0","id":id,"method":method,"params":params})).await;
        full(r).await
    }

    async fn notify(&self, method: &str) -> Answer {
        full(self.send(&json!({"jsonrpc":"2.0","method":method})).await).await
    }

    async fn get(&self, last_event_id: Option<&str>) -> reqwest::Response {
        let mut b = self.request(reqwest::Method::GET).header("accept", "text/event-stream");
        if let Some(id) = last_event_id {
            b = b.header("last-event-id", id);
        }
        within("GET", b.send()).await.expect("GET")
    }

    /// initialize + initialized; returns the initialize answer.
    async fn initialize(&mut self) -> Answer {
        let params = json!({"protocolVersion": self.revision, "capabilities": {},
            "clientInfo": {"name": "mcpspec-test", "version": "1"}});
        let init = self.call("initialize", params).await;
        assert_eq!(init.status, 200, "{init:?}");
        let sid = init.headers.get("mcp-session-id").expect("a session id");
        self.session = Some(String::from_utf8_lossy(sid.as_bytes()).into_owned());
        assert_eq!(self.notify("notifications/initialized").await.status, 202);
        init
    }
}

async fn session(s: &Server, revision: &'static str) -> Client {
    let mut c = Client::new(&s.url, revision);
    c.initialize().await;
    c
}

fn response_of(messages: &[Value], id: u64) -> Option<&Value> {
    messages.iter().find(|m| m["id"] == id && m.get("method").is_none())
}

// ---- Streamable HTTP ----------------------------------------------------------------------

#[tokio::test]
async fn streamable_initialize_list_and_ping() {
    let s = server(Flavor::Streamable, |_| {}).await;
    for revision in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let mut c = Client::new(&s.url, revision);
        let init = c.initialize().await;
        assert!(init.content_type().starts_with("text/event-stream"));
        let sid = init.headers.get("mcp-session-id").unwrap().as_bytes();
        assert!(is_visible_ascii(sid), "{sid:?}");
        assert_eq!(response_of(&init.messages(), 1).unwrap()["result"]["protocolVersion"], revision);
        // 2025-11-25: a priming event (an id, empty data) opens the stream.
        let primed = init.events.first().is_some_and(|e| e.id.is_some() && e.data.is_empty());
        assert_eq!(primed, revision == "2025-11-25", "{:?}", init.events);
        let tools = c.call("tools/list", json!({})).await;
        assert!(response_of(&tools.messages(), 2).unwrap()["result"]["tools"].is_array());
        let ping = c.call("ping", json!({})).await;
        assert_eq!(response_of(&ping.messages(), 3).unwrap()["result"], json!({}));
        let ids: Vec<String> = [init, tools, ping].iter().flat_map(Answer::ids).collect();
        let unique: HashSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len(), "event ids repeat: {ids:?}");
    }
}

#[tokio::test]
async fn json_responses_mode_answers_with_one_json_body() {
    let s = server(Flavor::Streamable, |o| o.json_responses = true).await;
    let mut c = session(&s, "2025-06-18").await;
    let ping = c.call("ping", json!({})).await;
    assert_eq!(ping.content_type(), "application/json");
    assert_eq!(ping.json()["result"], json!({}));
    // A tool that logs produces more than its response: that POST streams.
    let logged = c.call("tools/call", json!({"name": "test_tool_with_logging", "arguments": {}})).await;
    assert!(logged.content_type().starts_with("text/event-stream"), "{logged:?}");
    assert!(response_of(&logged.messages(), 3).is_some());
}

#[tokio::test]
async fn post_rules() {
    let s = server(Flavor::Streamable, |o| o.max_message_bytes = 4096).await;
    let c = session(&s, "2025-06-18").await;
    let ping = json!({"jsonrpc":"2.0","id":9,"method":"ping"});
    let status = |r: reqwest::Response| r.status().as_u16();
    let send = |b: reqwest::RequestBuilder| async move { within("POST", b.send()).await.expect("POST") };

    let only_json = c.post_as(&ping, "application/json", "application/json");
    assert_eq!(status(send(only_json).await), 406);
    let wildcard = c.post_as(&ping, "*/*", "application/json");
    assert_eq!(status(send(wildcard).await), 406);
    let plain = c.post_as(&ping, BOTH, "text/plain");
    assert_eq!(status(send(plain).await), 415);
    let with_charset = c.post_as(&ping, BOTH, "application/json; charset=utf-8");
    assert_eq!(status(send(with_charset).await), 200);
    let mut anonymous = Client::new(&s.url, "2025-06-18");
    assert_eq!(status(anonymous.send(&ping).await), 400);
    anonymous.session = Some("no-such-session".into());
    assert_eq!(status(anonymous.send(&ping).await), 404);
    // A client that sets the header itself (the helper adds it only after 2025-03-26).
    let mut bare = Client::new(&s.url, "2025-03-26");
    bare.session = c.session.clone();
    let bad_version = bare.post(&ping).header("mcp-protocol-version", "1999-01-01");
    assert_eq!(status(send(bad_version).await), 400);
    let unsupported = bare.post(&ping).header("mcp-protocol-version", "2026-07-28");
    assert_eq!(status(send(unsupported).await), 400);
    let conflicting = c.post(&ping).header("mcp-protocol-version", "2025-03-26");
    assert_eq!(status(send(conflicting).await), 400);
    assert_eq!(status(bare.send(&ping).await), 200, "absent: 2025-03-26 assumed");

    let foreign = full(send(c.post(&ping).header("origin", "http://evil.example")).await).await;
    assert_eq!(foreign.status, 403);
    assert!(foreign.json()["error"]["code"].is_i64() && foreign.json().get("id").is_none());
    let local = send(c.post(&ping).header("origin", "http://localhost:1234")).await;
    assert_eq!(status(local), 200);
    // DNS rebinding: a page on a name the attacker owns reaches 127.0.0.1 with that name as Host.
    let port = s.base.rsplit(':').next().unwrap().to_owned();
    let rebound = full(send(c.post(&ping).header("host", format!("rebind.example:{port}"))).await).await;
    assert_eq!(rebound.status, 403, "a foreign Host");
    assert!(rebound.json()["error"]["message"].as_str().unwrap().contains("Host"), "{:?}", rebound.json());
    assert_eq!(status(send(c.post(&ping).header("host", "127.0.0.1:1")).await), 403, "another port");
    assert_eq!(status(send(c.post(&ping).header("host", format!("localhost:{port}"))).await), 200);

    let big = json!({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"x".repeat(5000)}});
    assert_eq!(status(c.send(&big).await), 413);
    let garbage = full(send(c.post(&ping).body("{not json")).await).await;
    assert_eq!((garbage.status, garbage.json()["error"]["code"].clone()), (400, json!(-32700)));

    let put = c.request(reqwest::Method::PUT).body("{}");
    assert_eq!(status(send(put).await), 405);
    let note = full(
        c.send(&json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":77}})).await,
    )
    .await;
    assert_eq!((note.status, note.body.len()), (202, 0));
    let response = full(c.send(&json!({"jsonrpc":"2.0","id":"s1","result":{}})).await).await;
    assert_eq!((response.status, response.body.len()), (202, 0));
}

#[tokio::test]
async fn get_rules_and_delete() {
    let s = server(Flavor::Streamable, |_| {}).await;
    let c = session(&s, "2025-06-18").await;
    let not_sse = within("GET", c.request(reqwest::Method::GET).header("accept", "application/json").send())
        .await
        .unwrap();
    assert_eq!(not_sse.status().as_u16(), 406);
    let first = c.get(None).await;
    assert_eq!(first.status().as_u16(), 200);
    assert!(first.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    assert_eq!(c.get(None).await.status().as_u16(), 409, "a second standalone stream");
    drop(first);

    let deleted = within("DELETE", c.request(reqwest::Method::DELETE).send()).await.unwrap();
    assert!(matches!(deleted.status().as_u16(), 200 | 204));
    assert_eq!(c.send(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await.status().as_u16(), 404);
    assert_eq!(c.get(None).await.status().as_u16(), 404);
}

#[tokio::test]
async fn last_event_id_replays_only_that_stream() {
    let s = server(Flavor::Streamable, |_| {}).await;
    let mut c = session(&s, "2025-06-18").await;
    c.call("ping", json!({})).await; // another stream, with events of its own
    let call = json!({"jsonrpc":"2.0","id":"p","method":"tools/call",
        "params":{"name":"test_tool_with_progress","arguments":{},"_meta":{"progressToken":"tok"}}});
    // Take the first event of the progress stream, then drop the connection.
    let first = read(c.send(&call).await, T, |e| !e.is_empty()).await;
    let seen = first.events[0].id.clone().expect("an event id");
    let (stream, _) = mcpspec_reference::transport::http_server::parse_event_id(&seen).unwrap();
    drop(first);
    tokio::time::sleep(Duration::from_millis(200)).await; // the tool finishes meanwhile
    let resumed = full(c.get(Some(&seen)).await).await;
    assert_eq!(resumed.status, 200);
    let messages = resumed.messages();
    assert!(messages.iter().any(|m| m["id"] == "p" && m.get("result").is_some()), "{messages:?}");
    for id in resumed.ids() {
        let (s, _) = mcpspec_reference::transport::http_server::parse_event_id(&id).unwrap();
        assert_eq!(s, stream, "replayed {id} from another stream");
        assert_ne!(id, seen);
    }
}

#[tokio::test]
async fn batches_pass_through_as_one_frame() {
    let s = server(Flavor::Streamable, |_| {}).await;
    let c = session(&s, "2025-03-26").await;
    let batch = json!([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]);
    let a = full(c.send(&batch).await).await;
    let answers = a.messages();
    assert_eq!(answers[0].as_array().map(Vec::len), Some(2), "{answers:?}");
    let c = session(&s, "2025-06-18").await;
    let a = full(c.send(&batch).await).await;
    assert_eq!(a.messages()[0]["error"]["code"], -32600, "batches are 2025-03-26 only");
}

#[tokio::test]
async fn too_many_sessions_and_idle_reaping() {
    let s = server(Flavor::Streamable, |o| {
        o.max_sessions = 1;
        o.session_idle_timeout = Duration::from_millis(300);
    })
    .await;
    let c = session(&s, "2025-06-18").await;
    let mut other = Client::new(&s.url, "2025-06-18");
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
        "capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    assert_eq!(other.send(&init).await.status().as_u16(), 503);
    tokio::time::sleep(Duration::from_millis(1000)).await;
    assert_eq!(c.send(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})).await.status().as_u16(), 404);
    other.initialize().await;
}

// ---- the endpoint as an app sees it -------------------------------------------------------

async fn link_recv(link: &mut SessionLink) -> Value {
    match link.recv(T).await {
        Ok(frame) => match frame.content {
            mcpspec_protocol::framing::FrameContent::Json { value, .. } => value,
            other => panic!("not JSON: {other:?}"),
        },
        Err(e) => panic!("recv: {e}"),
    }
}

/// A Streamable HTTP session whose app side is the test itself.
async fn app_session() -> (HttpListener, SessionLink, Client) {
    let mut listener = HttpListener::bind(HttpServerOptions::new(Flavor::Streamable)).await.unwrap();
    let mut c = Client::new(&listener.url(), "2025-06-18");
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",
        "capabilities":{},"clientInfo":{"name":"t","version":"1"}}});
    let pending = tokio::spawn(c.post(&init).send());
    let mut link = within("session", listener.next_session(T)).await.expect("a session");
    assert_eq!(link_recv(&mut link).await["method"], "initialize");
    link.send(&json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{},
        "serverInfo":{"name":"app","version":"1"}}}))
        .unwrap();
    let r = within("init", pending).await.unwrap().unwrap();
    c.session = Some(r.headers()["mcp-session-id"].to_str().unwrap().to_owned());
    full(r).await;
    (listener, link, c)
}

#[tokio::test]
async fn routing_related_held_and_never_broadcast() {
    let (_listener, mut link, c) = app_session().await;
    assert_eq!(link.revision(), Some(mcpspec_protocol::Revision::V2025_06_18));
    // While a POST's request is handled, what the app sends goes on that POST's stream.
    let pending = tokio::spawn(c.post(&json!({"jsonrpc":"2.0","id":2,"method":"tools/call"})).send());
    assert_eq!(link_recv(&mut link).await["id"], 2);
    let log = json!({"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}});
    link.send(&log).unwrap();
    link.send(&json!({"jsonrpc":"2.0","id":2,"result":{"content":[]}})).unwrap();
    let post = full(within("POST", pending).await.unwrap().unwrap()).await;
    let messages = post.messages();
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/message");
    // Nothing in flight and no GET stream: held until one opens.
    link.send(&log).unwrap();
    let get = read(c.get(None).await, T, |e| !e.is_empty()).await;
    assert_eq!(get.messages(), vec![log.clone()]);
    // A response to nothing in flight goes nowhere (never on the GET stream).
    link.send(&json!({"jsonrpc":"2.0","id":99,"result":{}})).unwrap();
    let records = link.take_log();
    assert!(records.iter().any(|r| matches!(r, HttpRecord::Undeliverable { .. })));
    let sent: Vec<_> = records
        .iter()
        .filter_map(|r| match r {
            HttpRecord::Sent(m) => Some(m.clone()),
            _ => None,
        })
        .collect();
    assert!(sent.iter().any(|m| m.stream == 0 && m.message == log));
    assert!(records
        .iter()
        .any(|r| matches!(r, HttpRecord::Exchange(e) if e.method == "GET" && e.status == 200)));
}

#[tokio::test]
async fn delete_closes_the_link() {
    let (_listener, mut link, c) = app_session().await;
    let deleted = within("DELETE", c.request(reqwest::Method::DELETE).send()).await.unwrap();
    assert_eq!(deleted.status().as_u16(), 200);
    assert_eq!(within("recv", link.recv(T)).await, Err(RecvError::Closed));
    assert!(link.send(&json!({"jsonrpc":"2.0","method":"x"})).is_err());
}

// ---- legacy HTTP+SSE ----------------------------------------------------------------------

/// Opens a legacy session: the GET stream, its `endpoint` event, the POST URL.
async fn legacy_open(s: &Server) -> (reqwest::Response, Vec<SseEvent>, String) {
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

async fn legacy_post(url: &str, body: Value) -> u16 {
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
    let source = include_str!("http.rs");
    // The hostile servers replace the endpoint; each is a row of the harness's robustness table.
    let hostile = include_str!("../../../harness/tests/suite/robustness.rs");
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

/// A plain reqwest client (`http_client::client_builder` installs the TLS provider reqwest needs).
fn plain_client() -> reqwest::Client {
    mcpspec_reference::transport::http_client::client_builder().build().expect("an HTTP client")
}

// ---- the stateless era (2026-07-28) on the same endpoint -------------------------------------

const MODERN: &str = "2026-07-28";

/// A dual-era endpoint: legacy sessions and stateless requests.
async fn modern_server(fault: Option<Fault>) -> Server {
    server(Flavor::Streamable, |o| {
        o.accepted_revisions = ServerConfig::default().supported;
        o.fault = fault;
    })
    .await
}

fn modern_caps() -> Value {
    json!({"elicitation": {"form": {}}, "sampling": {}, "roots": {}})
}

/// A modern request body: `params` with `_meta`.
fn modern_body(id: Value, method: &str, mut params: Value, caps: &Value) -> Value {
    params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "mcpspec-test", "version": "1"}});
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A modern POST with the mirrored headers a correct client sends, changed by `tweak`
/// (`(name, None)` removes a header).
fn modern_post(url: &str, body: &Value, tweak: &[(&str, Option<&str>)]) -> reqwest::RequestBuilder {
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

async fn modern_call(url: &str, body: &Value, tweak: &[(&str, Option<&str>)]) -> Answer {
    full(within("POST", modern_post(url, body, tweak).send()).await.expect("POST")).await
}

/// The response in an answer (a JSON body or the last message of an SSE stream).
fn the_response(a: &Answer) -> Value {
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
    // The stateless requests are served.
    let d = modern_call(&url, &modern_body(json!(1), "server/discover", json!({}), &json!({})), &[]).await;
    assert_eq!(d.json()["result"]["supportedVersions"], json!([MODERN]));
    task.abort();
}
