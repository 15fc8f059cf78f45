//! One response bent on its way out ([`HttpServerOptions::bend`]), for fuzzing a client's HTTP
//! layer (`mcpspec fuzz --role client --transport http|sse`): the `nth` answer to a request of one
//! method is sent as a broken or hostile server would send it — another status, a header bent,
//! its body re-chunked, led by SSE fields and events a client must cope with, never ended, cut
//! short, or in the other media type. A bend is data (a fuzz input carries it, a reproducer
//! keeps it); applying it only changes what the endpoint already answered, so the sessions go on
//! as they would (a body dropped is, to the session, a connection the client closed).
//!
//! Every stream here is bounded in time ([`ENDLESS_FOR`], [`COLLECT_FOR`]) and in size.
//!
//! [`HttpServerOptions::bend`]: super::HttpServerOptions::bend

use axum::body::{Body, Bytes};
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use mcpspec_protocol::sse::{SseDecoder, SseItem};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::pin::Pin;
use std::sync::Mutex;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;

/// How long an endless stream goes on at most (the client under test is ended well before).
pub const ENDLESS_FOR: Duration = Duration::from_secs(600);
/// The pause between two repetitions of an endless stream's text: endless, not a flood that
/// would take a core from the client under test.
const ENDLESS_EVERY: Duration = Duration::from_millis(20);
/// How long [`Bend::AsJson`] waits for the SSE body's first message.
pub const COLLECT_FOR: Duration = Duration::from_secs(5);
/// The most of a body [`Bend::AsJson`] reads.
const COLLECT_BYTES: usize = 4 * 1024 * 1024;

/// Which response is bent, and how.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ReplyBend {
    /// The method of the request whose response is bent (`POST`, `GET`, `DELETE`).
    pub method: String,
    /// Which of that method's responses: 0 for the first.
    pub nth: u32,
    pub bend: Bend,
}

/// What is done to the response.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bend {
    /// Another status, with `body` (as `text/plain`; none when empty) instead of the real one.
    /// A 3xx points back at the request's own path.
    Status { status: u16, body: String },
    /// A response header set to `value`, or removed (`None`). Each character of `value` below
    /// U+0100 is one byte (Latin-1), so that a value that is not UTF-8 can be kept in a file.
    Header { name: String, value: Option<String> },
    /// The body re-chunked into writes of `size` bytes (an SSE event split across them).
    Split { size: usize },
    /// `text` before the body: SSE fields (`retry:`, `id:`), comments, events without data, ….
    Lead { text: String },
    /// A `notifications/message` event whose data string is `bytes` long, before the body.
    BigEvent { bytes: usize },
    /// The body, then `text` again and again: a stream that never ends (within [`ENDLESS_FOR`]).
    Endless { text: String },
    /// The body cut after `at` bytes, the connection then broken.
    Truncate { at: usize },
    /// The body as it is, labelled with the other media type (JSON as `text/event-stream`, SSE
    /// as `application/json`).
    SwapType,
    /// An SSE body's first message sent as an `application/json` body instead: JSON where SSE
    /// was expected (a body without one, within [`COLLECT_FOR`], becomes empty).
    AsJson,
}

impl ReplyBend {
    /// For people: `POST #2: status 500 (empty)`.
    pub fn describe(&self) -> String {
        let what = match &self.bend {
            Bend::Status { status, body } if body.is_empty() => format!("status {status}, no body"),
            Bend::Status { status, body } => format!("status {status}, a {}-byte text body", body.len()),
            Bend::Header { name, value: None } => format!("no {name}"),
            Bend::Header { name, value: Some(v) } if v.chars().count() > 40 => {
                format!("{name}: ({} bytes)", latin1(v).len())
            }
            Bend::Header { name, value: Some(v) } => format!("{name}: {v:?}"),
            Bend::Split { size } => format!("body in writes of {size} bytes"),
            Bend::Lead { text } => format!("led by {text:?}"),
            Bend::BigEvent { bytes } => format!("led by an event of {} KiB", bytes / 1024),
            Bend::Endless { text } => format!("never ending, {text:?} repeated"),
            Bend::Truncate { at } => format!("cut after {at} bytes"),
            Bend::SwapType => "labelled with the other media type".into(),
            Bend::AsJson => "an SSE body sent as JSON".into(),
        };
        format!("{} #{}: {what}", self.method, self.nth)
    }
}

impl ReplyBend {
    /// Smaller bends of the same response, for minimizing a reproducer (each strictly smaller,
    /// so shrinking ends): a lead's events one at a time, half a big event, half a long header
    /// value, an error status without its body, half the bytes before a cut.
    pub fn smaller(&self) -> Vec<ReplyBend> {
        let with = |bend| ReplyBend { bend, ..self.clone() };
        match &self.bend {
            Bend::Lead { text } => {
                let events: Vec<&str> = text.split_inclusive("\n\n").collect();
                match events.len() {
                    0 | 1 => Vec::new(),
                    _ => events.iter().map(|e| with(Bend::Lead { text: (*e).to_owned() })).collect(),
                }
            }
            Bend::BigEvent { bytes } if *bytes > 1024 => vec![with(Bend::BigEvent { bytes: bytes / 2 })],
            Bend::Header { name, value: Some(v) } if v.chars().count() > 16 => {
                let half = v.chars().take(v.chars().count() / 2).collect();
                vec![with(Bend::Header { name: name.clone(), value: Some(half) })]
            }
            Bend::Status { status, body } if !body.is_empty() => {
                vec![with(Bend::Status { status: *status, body: String::new() })]
            }
            Bend::Truncate { at } if *at > 0 => vec![with(Bend::Truncate { at: at / 2 })],
            _ => Vec::new(),
        }
    }
}

/// How many requests of each method the endpoint has answered: which one a bend is for.
#[derive(Debug, Default)]
pub(super) struct Answered(Mutex<HashMap<String, u32>>);

impl Answered {
    /// The bend for this request, when it is the one bent (counting it either way).
    pub(super) fn bend_for<'a>(&self, bend: Option<&'a ReplyBend>, method: &str) -> Option<&'a Bend> {
        let bend = bend?;
        let mut counts = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(method.to_owned()).or_default();
        let nth = *count;
        *count = count.saturating_add(1);
        (bend.method.eq_ignore_ascii_case(method) && bend.nth == nth).then_some(&bend.bend)
    }
}

/// `value`'s bytes: a character below U+0100 is that byte, any other its UTF-8.
pub fn latin1(value: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(value.len());
    for c in value.chars() {
        match u8::try_from(u32::from(c)) {
            Ok(b) => out.push(b),
            Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

/// The `notifications/message` event of [`Bend::BigEvent`].
pub fn big_event(bytes: usize) -> Vec<u8> {
    let data = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{{\"level\":\"info\",\"data\":\"{}\"}}}}",
        "x".repeat(bytes)
    );
    format!("event: message\ndata: {data}\n\n").into_bytes()
}

/// `response` as `bend` says; `path` is the request's path and query (where a redirect points).
pub(super) async fn apply(bend: &Bend, path: &str, mut response: Response) -> Response {
    match bend {
        Bend::Status { status, body } => {
            let status = StatusCode::from_u16(*status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut bent = Response::new(Body::from(body.clone()));
            *bent.status_mut() = status;
            // The session's own headers stay (a 404 for a session names it); the body's go.
            for (name, value) in response.headers() {
                if name != header::CONTENT_TYPE && name != header::CONTENT_LENGTH {
                    bent.headers_mut().append(name.clone(), value.clone());
                }
            }
            if !body.is_empty() {
                bent.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
            }
            if status.is_redirection() {
                if let Ok(to) = HeaderValue::from_str(path) {
                    bent.headers_mut().insert(header::LOCATION, to);
                }
            }
            bent
        }
        Bend::Header { name, value } => {
            let Ok(name) = HeaderName::from_bytes(name.as_bytes()) else { return response };
            match value.as_deref().map(|v| HeaderValue::from_bytes(&latin1(v))) {
                None => {
                    response.headers_mut().remove(&name);
                }
                Some(Ok(value)) => {
                    response.headers_mut().insert(name, value);
                }
                // A byte no HTTP library can send (a control character): as it was.
                Some(Err(_)) => {}
            }
            response
        }
        Bend::SwapType => {
            let sse = media_type(&response).is_some_and(|m| m == "text/event-stream");
            let other = if sse { "application/json" } else { "text/event-stream" };
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(other));
            response
        }
        Bend::AsJson => {
            if media_type(&response).is_none_or(|m| m != "text/event-stream") {
                return response;
            }
            let (mut parts, body) = response.into_parts();
            let data = first_message(body).await;
            parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
            parts.headers.remove(header::CONTENT_LENGTH);
            Response::from_parts(parts, Body::from(data))
        }
        Bend::Split { .. }
        | Bend::Lead { .. }
        | Bend::BigEvent { .. }
        | Bend::Endless { .. }
        | Bend::Truncate { .. } => {
            let (mut parts, body) = response.into_parts();
            if matches!(bend, Bend::Lead { .. } | Bend::BigEvent { .. } | Bend::Endless { .. }) {
                // The body grows: its length is no longer known.
                parts.headers.remove(header::CONTENT_LENGTH);
            }
            let (tx, rx) = mpsc::channel(16);
            tokio::spawn(pipe(bend.clone(), body, tx));
            Response::from_parts(parts, Body::from_stream(Piped(rx)))
        }
    }
}

fn media_type(response: &Response) -> Option<String> {
    let value = response.headers().get(header::CONTENT_TYPE)?.to_str().ok()?;
    Some(value.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
}

/// The data of the first `message` event of an SSE body, read for at most [`COLLECT_FOR`].
async fn first_message(body: Body) -> Vec<u8> {
    let mut stream = body.into_data_stream();
    let mut decoder = SseDecoder::new(COLLECT_BYTES);
    let mut items = Vec::new();
    let deadline = tokio::time::Instant::now() + COLLECT_FOR;
    let mut read = 0usize;
    while read < COLLECT_BYTES {
        let next = std::future::poll_fn(|cx| futures_core::Stream::poll_next(Pin::new(&mut stream), cx));
        let Ok(Some(Ok(chunk))) = tokio::time::timeout_at(deadline, next).await else { break };
        read += chunk.len();
        decoder.push(&chunk, &mut items);
        let message = items.iter().find_map(|item| match item {
            SseItem::Event(e) if e.has_data && e.kind() == "message" => Some(e.data.clone()),
            _ => None,
        });
        if let Some(data) = message {
            return data.into_bytes();
        }
    }
    Vec::new()
}

/// Copies `body` to `tx` as `bend` says (the bends of the body's bytes).
async fn pipe(bend: Bend, body: Body, tx: mpsc::Sender<Result<Bytes, std::io::Error>>) {
    let lead = match &bend {
        Bend::Lead { text } => Some(text.clone().into_bytes()),
        Bend::BigEvent { bytes } => Some(big_event(*bytes)),
        _ => None,
    };
    if let Some(lead) = lead {
        if tx.send(Ok(Bytes::from(lead))).await.is_err() {
            return;
        }
    }
    let mut stream = body.into_data_stream();
    let mut sent = 0usize;
    loop {
        let next = std::future::poll_fn(|cx| futures_core::Stream::poll_next(Pin::new(&mut stream), cx));
        let chunk = match next.await {
            Some(Ok(chunk)) => chunk,
            Some(Err(e)) => {
                let _ = tx.send(Err(std::io::Error::other(e.to_string()))).await;
                return;
            }
            None => break,
        };
        let pieces: Vec<Bytes> = match &bend {
            Bend::Split { size } => chunk.chunks((*size).max(1)).map(Bytes::copy_from_slice).collect(),
            Bend::Truncate { at } => {
                let keep = at.saturating_sub(sent).min(chunk.len());
                sent += chunk.len();
                if keep < chunk.len() {
                    let _ = tx.send(Ok(chunk.slice(..keep))).await;
                    // An error ends the body without its proper end: the connection breaks.
                    let _ = tx.send(Err(std::io::Error::other("truncated (a fuzz input's bend)"))).await;
                    return;
                }
                vec![chunk]
            }
            _ => vec![chunk],
        };
        for piece in pieces {
            if tx.send(Ok(piece)).await.is_err() {
                return;
            }
        }
    }
    if let Bend::Truncate { at } = bend {
        if sent <= at {
            // A body shorter than the cut is cut at its end: no proper end either.
            let _ = tx.send(Err(std::io::Error::other("truncated (a fuzz input's bend)"))).await;
        }
        return;
    }
    if let Bend::Endless { text } = bend {
        let text = Bytes::from(text.into_bytes());
        let until = tokio::time::Instant::now() + ENDLESS_FOR;
        // A client that stops reading holds the send: bounded by the same end.
        while let Ok(Ok(())) = tokio::time::timeout_at(until, tx.send(Ok(text.clone()))).await {
            tokio::time::sleep(ENDLESS_EVERY).await;
        }
    }
}

/// A body from a channel (see [`pipe`]).
struct Piped(mpsc::Receiver<Result<Bytes, std::io::Error>>);

impl futures_core::Stream for Piped {
    type Item = Result<Bytes, std::io::Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(response: Response) -> (StatusCode, Option<String>, Result<Vec<u8>, String>) {
        let status = response.status();
        let kind = media_type(&response);
        let mut stream = response.into_body().into_data_stream();
        let mut out = Vec::new();
        loop {
            let next = std::future::poll_fn(|cx| futures_core::Stream::poll_next(Pin::new(&mut stream), cx));
            match tokio::time::timeout(Duration::from_secs(5), next).await {
                Ok(Some(Ok(chunk))) => out.extend_from_slice(&chunk),
                Ok(Some(Err(e))) => return (status, kind, Err(e.to_string())),
                Ok(None) | Err(_) => return (status, kind, Ok(out)),
            }
        }
    }

    fn sse(body: &'static str) -> Response {
        let mut r = Response::new(Body::from(body));
        r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        r.headers_mut().insert("mcp-session-id", HeaderValue::from_static("s1"));
        r
    }

    const EVENT: &str = "id: 1\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n";

    #[test]
    fn only_the_nth_response_of_its_method_is_bent() {
        let bend = ReplyBend { method: "POST".into(), nth: 1, bend: Bend::SwapType };
        let answered = Answered::default();
        assert!(answered.bend_for(Some(&bend), "POST").is_none());
        assert!(answered.bend_for(Some(&bend), "GET").is_none());
        assert!(answered.bend_for(Some(&bend), "POST").is_some());
        assert!(answered.bend_for(Some(&bend), "POST").is_none());
    }

    #[test]
    fn smaller_bends_are_smaller_and_end() {
        let lead = ReplyBend {
            method: "GET".into(),
            nth: 0,
            bend: Bend::Lead { text: "data: x\n\nretry: 9\n\n".into() },
        };
        let parts: Vec<Bend> = lead.smaller().into_iter().map(|b| b.bend).collect();
        assert_eq!(
            parts,
            [Bend::Lead { text: "data: x\n\n".into() }, Bend::Lead { text: "retry: 9\n\n".into() }]
        );
        assert!(ReplyBend { bend: parts[0].clone(), ..lead.clone() }.smaller().is_empty());
        let mut big = ReplyBend { bend: Bend::BigEvent { bytes: 1 << 20 }, ..lead };
        let mut steps = 0;
        while let Some(next) = big.smaller().pop() {
            big = next;
            steps += 1;
        }
        assert_eq!((steps, big.bend), (10, Bend::BigEvent { bytes: 1024 }));
    }

    #[tokio::test]
    async fn statuses_headers_and_types_are_bent_and_bytes_survive_as_latin1() {
        let bent = apply(&Bend::Status { status: 307, body: String::new() }, "/mcp", sse(EVENT)).await;
        assert_eq!(bent.headers().get(header::LOCATION).unwrap(), "/mcp");
        assert_eq!(bent.headers().get("mcp-session-id").unwrap(), "s1");
        assert_eq!(body_of(bent).await, (StatusCode::TEMPORARY_REDIRECT, None, Ok(Vec::new())));
        let odd = Bend::Header { name: "mcp-session-id".into(), value: Some("\u{ff}\u{fe}x".into()) };
        let bent = apply(&odd, "/mcp", sse(EVENT)).await;
        assert_eq!(bent.headers().get("mcp-session-id").unwrap().as_bytes(), [0xff, 0xfe, b'x']);
        let gone = Bend::Header { name: "content-type".into(), value: None };
        assert!(apply(&gone, "/mcp", sse(EVENT)).await.headers().get(header::CONTENT_TYPE).is_none());
        let swapped = apply(&Bend::SwapType, "/mcp", sse(EVENT)).await;
        assert_eq!(media_type(&swapped).as_deref(), Some("application/json"));
        let json = body_of(apply(&Bend::AsJson, "/mcp", sse(EVENT)).await).await;
        assert_eq!(json.1.as_deref(), Some("application/json"));
        assert_eq!(json.2.unwrap(), br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    }

    #[tokio::test]
    async fn bodies_are_split_led_cut_and_kept_going() {
        let (_, _, split) = body_of(apply(&Bend::Split { size: 3 }, "/", sse(EVENT)).await).await;
        assert_eq!(split.unwrap(), EVENT.as_bytes());
        let lead = Bend::Lead { text: "retry: x\n\n".into() };
        let (_, _, led) = body_of(apply(&lead, "/", sse(EVENT)).await).await;
        assert_eq!(led.unwrap(), format!("retry: x\n\n{EVENT}").as_bytes());
        let (_, _, cut) = body_of(apply(&Bend::Truncate { at: 5 }, "/", sse(EVENT)).await).await;
        assert!(cut.is_err(), "a cut body ends in an error: {cut:?}");
        let (_, _, big) = body_of(apply(&Bend::BigEvent { bytes: 70_000 }, "/", sse(EVENT)).await).await;
        assert!(big.unwrap().len() > 70_000);
        let endless = apply(&Bend::Endless { text: ": more\n\n".into() }, "/", sse(EVENT)).await;
        let mut stream = endless.into_body().into_data_stream();
        let mut read = 0;
        for _ in 0..10 {
            let next = std::future::poll_fn(|cx| futures_core::Stream::poll_next(Pin::new(&mut stream), cx));
            read += tokio::time::timeout(Duration::from_secs(5), next).await.unwrap().unwrap().unwrap().len();
        }
        assert!(read > EVENT.len(), "the stream goes on after the body");
    }
}
