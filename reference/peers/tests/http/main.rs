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

/// A plain reqwest client (`http_client::client_builder` installs the TLS provider reqwest needs).
fn plain_client() -> reqwest::Client {
    mcpspec_reference::transport::http_client::client_builder().build().expect("an HTTP client")
}

mod auth_server;
mod faults;
mod legacy;
mod modern;
mod protected;
mod streamable;

use legacy::{legacy_open, legacy_post};
use streamable::link_recv;
