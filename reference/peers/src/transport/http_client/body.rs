//! What crosses the wire below the transport: request headers applied (and bent by tweaks),
//! response bodies read within their bounds (JSON or SSE), and the ids a body carries.

use super::*;

pub(super) fn apply(
    mut request: reqwest::RequestBuilder,
    ours: &[(String, String)],
    custom: &[(HeaderName, HeaderValue)],
) -> reqwest::RequestBuilder {
    for (k, v) in ours {
        request = request.header(k.as_str(), v.as_str());
    }
    for (k, v) in custom {
        request = request.header(k.clone(), v.clone());
    }
    request
}

/// Response headers as text (values that are not visible ASCII are shown lossily).
pub(super) fn header_list(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect()
}

/// "connection refused (…)": reqwest's error with its sources.
pub(super) fn describe_error(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        s.push_str(&format!(": {inner}"));
        source = inner.source();
    }
    s
}

/// What a response body holds, by its content type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Body {
    /// `text/event-stream`: events, each `message` event one message.
    Sse,
    /// `application/json`: one message (or batch).
    Json,
    /// Anything else (an error page, a 202's empty body): counted, not decoded as a message.
    Other,
}

/// Reads a body: SSE events one by one, or a whole JSON body (up to the maximum message size).
pub(super) async fn read_body(
    n: u64,
    mut response: reqwest::Response,
    kind: Body,
    max: usize,
    tx: &mpsc::Sender<HttpEvent>,
) {
    let mut bytes = 0u64;
    let mut decoder = SseDecoder::new(max);
    let mut items = Vec::new();
    let mut body = Vec::new();
    let mut too_long = false;
    let end = loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                bytes += chunk.len() as u64;
                match kind {
                    Body::Sse => {
                        decoder.push(&chunk, &mut items);
                        for item in items.drain(..) {
                            if tx.send(sse_event(n, item, decoder.count())).await.is_err() {
                                return;
                            }
                        }
                    }
                    Body::Json if body.len() + chunk.len() <= max => {
                        // Grown to the limit at most, never to the next power of two past it.
                        let wanted = (body.len() + chunk.len()).max(body.capacity() * 2).min(max);
                        body.reserve_exact(wanted.saturating_sub(body.len()));
                        body.extend_from_slice(&chunk);
                    }
                    Body::Json => {
                        // Past the maximum message size the body is not read further: a body
                        // without end would otherwise hold its connection until the scenario
                        // ends, and what was read is enough to say what it was.
                        too_long = true;
                        break BodyEnd::Broken(format!(
                            "not read past the maximum message size ({max} bytes)"
                        ));
                    }
                    Body::Other => {}
                }
            }
            Ok(None) => {
                break match kind == Body::Sse && decoder.finish() {
                    true => BodyEnd::Truncated,
                    false => BodyEnd::Complete { bytes },
                }
            }
            Err(e) => break BodyEnd::Broken(describe_error(&e)),
        }
    };
    if kind == Body::Json && (too_long || !body.is_empty()) {
        let content = match too_long {
            true => FrameContent::Invalid(FrameError::TooLong {
                limit: max,
                excerpt: mcpspec_protocol::framing::Excerpt::of(&body),
            }),
            false => decode_line(&body),
        };
        let frame = Frame { line: 1, content };
        if tx.send(HttpEvent::Message { n, frame, sse: None }).await.is_err() {
            return;
        }
    }
    let _ = tx.send(HttpEvent::End { n, end }).await;
}

/// An SSE item as an event: `message` events (and events without a type) with data are messages.
pub(super) fn sse_event(n: u64, item: SseItem, count: u64) -> HttpEvent {
    match item {
        SseItem::Event(event) if event.kind() == "message" && !event.data.trim().is_empty() => {
            let content = decode_line(event.data.as_bytes());
            let meta = SseMeta { id: event.id, event: event.event, retry: event.retry };
            HttpEvent::Message { n, frame: Frame { line: count, content }, sse: Some(meta) }
        }
        SseItem::Event(event) => HttpEvent::Event { n, event },
        SseItem::TooLong { limit, excerpt } => {
            let content = FrameContent::Invalid(FrameError::TooLong {
                limit,
                excerpt: mcpspec_protocol::framing::Excerpt::of(excerpt.as_bytes()),
            });
            HttpEvent::Message { n, frame: Frame { line: count, content }, sse: None }
        }
    }
}

/// The request-metadata headers of a modern request (one whose `params._meta` names its
/// protocol version; `streamable-http.mdx#request-metadata`): `MCP-Protocol-Version` equal to
/// that version, `Mcp-Method` the method, and for `tools/call`, `prompts/get` and
/// `resources/read` `Mcp-Name` the name or URI (Base64 sentinel when it is not plain visible
/// ASCII). `None` for anything else (a legacy request, a notification, a batch: the modern era
/// has no batches, so one is sent as the legacy transport would).
pub fn modern_request_headers(body: &Value) -> Option<Vec<(String, String)>> {
    use mcpspec_protocol::modern::{self, headers};
    let method = body.get("method")?.as_str()?;
    body.get("id")?;
    let params = body.get("params");
    let version = params?.get("_meta")?.get(modern::PROTOCOL_VERSION_KEY)?.as_str()?;
    let mut h = vec![
        (headers::PROTOCOL_VERSION.to_owned(), modern::encode_header_value(version)),
        (headers::METHOD.to_owned(), modern::encode_header_value(method)),
    ];
    if let Some(name) = modern::name_source(method, params) {
        h.push((headers::NAME.to_owned(), modern::encode_header_value(name)));
    }
    Some(h)
}

/// The ids of the requests in a message or batch.
pub(super) fn request_ids(value: &Value) -> Vec<RequestId> {
    let one = |v: &Value| match v.get("method") {
        Some(_) => v.get("id").and_then(RequestId::from_value),
        None => None,
    };
    match value {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    }
}

/// The ids answered by a response or a batch of them.
pub(super) fn response_ids(value: &Value) -> Vec<RequestId> {
    let one = |v: &Value| match v.get("method") {
        None => v.get("id").and_then(RequestId::from_value),
        Some(_) => None,
    };
    match value {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    }
}
