//! The answers still due on each POST of an HTTP client transport: which requests await one,
//! where each SSE stream stood, a broken stream resumed with `Last-Event-ID` (honouring
//! `retry`), and when the answers will not come.

use super::*;

/// The requests of one POST awaiting answers, and where its SSE stream stood.
#[derive(Debug, Default)]
pub(super) struct Post {
    pub(super) ids: Vec<RequestId>,
    pub(super) last_event_id: Option<String>,
    pub(super) retry: Option<u64>,
    pub(super) resumes: u32,
    /// The response has a 2xx status (an error status's body is a refusal, which the caller
    /// makes the answer to the requests).
    pub(super) ok: bool,
    /// The response's status, once its head came (named when the answers never do).
    pub(super) status: Option<u16>,
    /// Whether a broken stream may be resumed with `Last-Event-ID` (legacy era only).
    pub(super) resumable: bool,
}

/// How many times a broken stream is resumed with `Last-Event-ID` before its requests are given up.
const MAX_RESUMES: u32 = 3;
/// The longest `retry` honoured before reconnecting; a longer one is cut to this (every wait is
/// bounded, and the caller's timeout is far shorter anyway).
const MAX_RETRY: Duration = Duration::from_secs(30);

impl HttpClientTransport {
    /// A request the client cancels is owed no response (`basic/utilities/cancellation.mdx`: the
    /// receiver SHOULD NOT send one), on its stream or any other: its POST's stream may end
    /// without it, and is then neither resumed for it nor said to have left it unanswered.
    pub(super) fn forget_cancelled(&mut self, body: &Value) {
        let messages = match body {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        for m in messages.into_iter().filter(|m| m["method"] == "notifications/cancelled") {
            let Some(id) = m.pointer("/params/requestId").and_then(RequestId::from_value) else { continue };
            for post in self.posts.values_mut() {
                post.ids.retain(|i| *i != id);
            }
        }
    }

    /// Keeps the session id, the answers still due on each POST, and where each stream stood;
    /// resumes a stream that broke before its answers (honouring `retry`), or says they will
    /// not come.
    pub(super) fn follow(&mut self, event: &HttpEvent) {
        match event {
            HttpEvent::Response(x) => {
                let ok = (200..300).contains(&x.status);
                if self.session.is_none() && ok {
                    self.session = x.header(SESSION_HEADER).map(str::to_owned);
                }
                if let Some(post) = self.posts.get_mut(&x.n) {
                    post.ok = ok;
                    post.status = Some(x.status);
                }
            }
            HttpEvent::Message { n, frame, sse } => {
                if let Some(post) = self.posts.get_mut(n) {
                    if let Some(meta) = sse {
                        post.last_event_id = meta.id.clone().or(post.last_event_id.take());
                        post.retry = meta.retry.or(post.retry);
                    }
                }
                if let FrameContent::Json { value, .. } = &frame.content {
                    self.learn_tools(value);
                    // An error without an id on a POST's own stream answers the POST as a whole
                    // (a batch the revision does not have, a body the server could not read).
                    let idless = value.get("error").is_some() && value.get("id").is_none_or(Value::is_null);
                    if let Some(post) = self.posts.get_mut(n).filter(|p| idless && p.ok) {
                        post.ids.clear();
                    }
                    for id in response_ids(value) {
                        for post in self.posts.values_mut() {
                            post.ids.retain(|i| *i != id);
                        }
                    }
                }
            }
            HttpEvent::Event { n, event } => {
                if let Some(post) = self.posts.get_mut(n) {
                    post.last_event_id = event.id.clone().or(post.last_event_id.take());
                    post.retry = event.retry.or(post.retry);
                }
            }
            HttpEvent::End { n, .. } | HttpEvent::Failed { n, .. } => {
                let Some(post) = self.posts.remove(n) else { return };
                if post.ids.is_empty() {
                    return;
                }
                let failed = matches!(event, HttpEvent::Failed { .. });
                match (&post.last_event_id, failed) {
                    (Some(last), false)
                        if post.resumable
                            && post.resumes < MAX_RESUMES
                            && self.options.resumption != Resumption::Never =>
                    {
                        let delay = match self.options.resumption {
                            Resumption::IgnoreRetry => Duration::ZERO,
                            _ => Duration::from_millis(post.retry.unwrap_or(0)).min(MAX_RETRY),
                        };
                        let tweaks = Tweaks { last_event_id: Some(last.clone()), ..Tweaks::default() };
                        let m = self.get_after(&tweaks, delay);
                        self.posts.insert(m, Post { resumes: post.resumes + 1, ..post });
                    }
                    _ => {
                        let why = match (failed, post.last_event_id.is_some()) {
                            (true, _) => match event {
                                HttpEvent::Failed { method, url, error, .. } => {
                                    format!("{method} {url} failed: {error}")
                                }
                                _ => "the request failed".to_owned(),
                            },
                            (false, true) => {
                                format!("the stream broke {} times, resumed each time", post.resumes)
                            }
                            (false, false) => match post.status.filter(|s| !(200..300).contains(s)) {
                                Some(status) => format!(
                                    "the response was HTTP {status} {}, and its body answered none of them",
                                    reqwest::StatusCode::from_u16(status)
                                        .ok()
                                        .and_then(|s| s.canonical_reason())
                                        .unwrap_or("")
                                ),
                                None => "the response ended without them, with no event id to resume from"
                                    .to_owned(),
                            },
                        };
                        self.made.push_back(HttpEvent::Unanswered { n: *n, ids: post.ids, why });
                    }
                }
            }
            HttpEvent::Unanswered { .. } => {}
        }
    }
}
