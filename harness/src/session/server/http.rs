//! A server session over HTTP (Streamable HTTP or the legacy HTTP+SSE): the exchanges the waits
//! need to know of, the refusals that answer a POST, and the requests a correct client would
//! not make (HTTP scenarios). The session's common logic is in the parent module.

use super::{ServerSession, KEPT_MESSAGES, TAIL_WAIT};
use crate::judge::checker::SessionChecker;
use mcpspec_protocol::framing::{Frame, FrameContent};
use mcpspec_protocol::wire::{Message, RequestId};
use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::transport::http_client::{
    BodyKind, ConnectError, Exchange, Flavor, HttpClientOptions, HttpClientTransport, HttpEvent, Tweaks,
};
use mcpspec_reference::transport::RecvError;
use serde_json::Value;
use std::collections::{HashSet, VecDeque};
use std::time::Duration;
use tokio::time::Instant;

/// A session over HTTP: the transport, and what the session's waits need to know of its
/// exchanges.
pub(super) struct HttpLink {
    pub(super) transport: HttpClientTransport,
    /// The exchange that carried the last message sent.
    pub(super) last_sent: Option<u64>,
    /// Exchanges whose bodies have ended (bounded: only the latest are kept).
    pub(super) ended: VecDeque<u64>,
    /// Requests that will get no answer over HTTP, and why.
    pub(super) unanswered: Vec<(RequestId, String)>,
    /// Exchanges refused with an error status whose body was a JSON-RPC error without an id
    /// (kept as the answers to what they carried, [`ServerSession::keep_refusal`]; bounded).
    pub(super) refused: HashSet<u64>,
    /// The GET stream was opened.
    pub(super) get_opened: bool,
    /// The session was ended (DELETE sent, or the server said the session is gone).
    pub(super) ended_session: Option<String>,
}

/// How many ended exchanges an HTTP session remembers.
const ENDED_KEPT: usize = 64;

impl HttpLink {
    /// Before a request: the protocol-version header follows the negotiated revision
    /// (`basic/transports.mdx`, from 2025-06-18: "MUST include the MCP-Protocol-Version header
    /// on all subsequent requests").
    fn prepare(&mut self, checker: &SessionChecker) {
        let version =
            checker.negotiated().filter(|r| *r >= Revision::V2025_06_18).map(|r| r.as_str().to_owned());
        self.transport.set_protocol_version(version);
    }

    /// Connects to the server.
    pub(super) async fn connect(options: HttpClientOptions) -> Result<HttpLink, ConnectError> {
        Ok(HttpLink {
            transport: HttpClientTransport::connect(options).await?,
            last_sent: None,
            ended: VecDeque::new(),
            unanswered: Vec::new(),
            refused: HashSet::new(),
            get_opened: false,
            ended_session: None,
        })
    }

    /// POSTs one message; a client that has initialized opens the GET stream for the server's
    /// own messages.
    pub(super) fn send(&mut self, value: &Value, checker: &SessionChecker) {
        self.prepare(checker);
        self.last_sent = Some(self.transport.send(value));
        let initialized = value.get("method").and_then(Value::as_str) == Some("notifications/initialized");
        if initialized && self.transport.options().flavor == Flavor::Streamable && !self.get_opened {
            self.get_opened = true;
            self.transport.open_get(&Tweaks::default());
        }
    }

    /// POSTs raw bytes as one body (a line's newline is not part of it).
    pub(super) fn send_bytes(&mut self, bytes: &[u8], checker: &SessionChecker) {
        self.prepare(checker);
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        self.last_sent = Some(self.transport.send_bytes(body));
    }

    /// Whether the session is Streamable HTTP, where a message's own exchange is the barrier
    /// that proves silence ([`ServerSession::wait_answer_or_silence`]).
    pub(super) fn streamable(&self) -> bool {
        self.transport.options().flavor == Flavor::Streamable
    }
}

impl ServerSession {
    /// The next frame over HTTP, `None` for an event that carried none (recorded here: the
    /// head of a response, an SSE event without a message, a body's end, a refusal).
    pub(super) async fn next_http(&mut self, left: Duration) -> Result<Option<Frame>, RecvError> {
        let super::Link::Http(http) = &mut self.link else { return Ok(None) };
        let event = http.transport.recv(left).await?;
        match &event {
            HttpEvent::Message { n, frame, .. } => {
                self.read_from = Some(*n);
                // `basic/transports.mdx`: input the server does not accept gets an HTTP error
                // status, whose body MAY be a JSON-RPC error without an id. That error answers
                // the POST, not a message: kept aside, it answers the requests the POST carried
                // (or, for a malformed body, the body itself), and is not judged as a message.
                let refused = self.recorder.exchange(*n).is_some_and(|x| x.status >= 400);
                if let (true, FrameContent::Json { value, .. }) = (refused, &frame.content) {
                    if value.get("error").is_some() && value.get("id").is_none_or(Value::is_null) {
                        if http.refused.len() < ENDED_KEPT {
                            http.refused.insert(*n);
                        }
                        self.recorder.record_refusal(*n, value);
                        let (requests, status) = self
                            .recorder
                            .exchange(*n)
                            .map(|x| (x.requests.clone(), x.status))
                            .unwrap_or_default();
                        self.keep_refusal(value, &requests, status);
                        return Ok(None);
                    }
                }
                let frame = frame.clone();
                self.recorder.record_http(&event);
                return Ok(Some(frame));
            }
            HttpEvent::End { n, .. } | HttpEvent::Failed { n, .. } => {
                http.ended.push_back(*n);
                if http.ended.len() > ENDED_KEPT {
                    http.ended.pop_front();
                }
            }
            // A refusal has answered them already.
            HttpEvent::Unanswered { n, .. } if http.refused.contains(n) => {}
            HttpEvent::Unanswered { ids, why, .. } => {
                http.unanswered.extend(ids.iter().map(|id| (id.clone(), why.clone())));
            }
            HttpEvent::Response(x) => {
                // The server says the session is gone (`404` to a request that carried its id).
                if x.status == 404 && x.request_headers.iter().any(|(k, _)| k == "mcp-session-id") {
                    http.ended_session
                        .get_or_insert_with(|| format!("{} (the session is gone)", x.describe()));
                }
            }
            HttpEvent::Event { .. } => {}
        }
        self.recorder.record_http(&event);
        Ok(None)
    }

    /// Ends the HTTP session: with DELETE when the server issued a session id (after the heads of
    /// every request made so far), else says why there is nothing to end.
    pub(super) async fn end_http(&mut self) -> String {
        let super::Link::Http(http) = &mut self.link else { return String::new() };
        match (&http.ended_session, http.transport.session_id()) {
            (Some(why), _) => why.clone(),
            (None, None) => "no session id was issued: nothing to end".into(),
            (None, Some(_)) => {
                self.settle_http(TAIL_WAIT).await;
                let super::Link::Http(http) = &mut self.link else { return String::new() };
                http.ended_session = Some("ended with DELETE".into());
                let n = http.transport.delete(&Tweaks::default());
                match self.wait_exchange(n, Duration::from_secs(2)).await {
                    Ok(x) => format!("ended with {}", x.describe()),
                    Err(why) => format!("DELETE sent: {why}"),
                }
            }
        }
    }

    /// Over HTTP: waits at most `within` for the first SSE event on the stream of the POST that
    /// carried request `id` (whatever else arrives is kept as usual); whether one came.
    pub async fn wait_stream_event(&mut self, id: &RequestId, within: Duration) -> bool {
        self.read_until(within, |s| {
            let http = s.recorder.http();
            http.and_then(|h| h.posted_in(id))
                .is_some_and(|n| http.is_some_and(|h| h.first_event(n).is_some()))
        })
        .await
    }

    /// Over Streamable HTTP: closes the connection of the POST that carried request `id`, as a
    /// network failure would; the transport resumes the stream with `Last-Event-ID` if it saw
    /// an event id on it. The exchange, or `None` (over stdio, or nothing left to break).
    pub fn break_stream_of(&mut self, id: &RequestId) -> Option<u64> {
        let n = self.recorder.http()?.posted_in(id)?;
        let super::Link::Http(http) = &mut self.link else { return None };
        http.transport.break_stream(n).then_some(n)
    }

    /// Over HTTP: POSTs `value` (recorded as sent) with `tweaks`, a request a correct client
    /// would not make; returns the exchange's number. `None` over stdio.
    pub fn post_with(&mut self, value: &Value, tweaks: &Tweaks) -> Option<u64> {
        let super::Link::Http(http) = &mut self.link else { return None };
        self.footprint.note("the client made an HTTP request a correct client would not make");
        self.recorder.record_value(Direction::ClientToServer, value);
        http.prepare(self.recorder.checker());
        let kind = BodyKind::of(value);
        let n = http.transport.send_with(value.to_string().into_bytes(), kind, tweaks);
        http.last_sent = Some(n);
        Some(n)
    }

    /// Over HTTP: a GET of the endpoint (the server's stream) or a DELETE of the session, with
    /// `tweaks`; returns the exchange's number. `None` over stdio.
    pub fn http_request(&mut self, method: &str, tweaks: &Tweaks) -> Option<u64> {
        let super::Link::Http(http) = &mut self.link else { return None };
        http.prepare(self.recorder.checker());
        let n = match method {
            "DELETE" => {
                self.footprint.note("the client ended the HTTP session");
                http.ended_session = Some("the client ended the session with DELETE".into());
                http.transport.delete(tweaks)
            }
            _ => {
                self.footprint.note("the client opened a GET stream of its own");
                http.transport.open_get(tweaks)
            }
        };
        Some(n)
    }

    /// Waits at most `within` for the response head of every HTTP request made so far: before
    /// the session is ended, since a request still on its way would reach a session already
    /// gone (a server that never answers one is judged elsewhere).
    pub async fn settle_http(&mut self, within: Duration) {
        let super::Link::Http(http) = &self.link else { return };
        let last = http.transport.exchanges_started();
        let deadline = Instant::now() + within;
        for n in 1..=last {
            let left = deadline.saturating_duration_since(Instant::now());
            if self.wait_exchange(n, left).await.is_err() && Instant::now() >= deadline {
                return;
            }
        }
    }

    /// The session's HTTP transport, when it has one.
    pub fn http_session_id(&self) -> Option<&str> {
        match &self.link {
            super::Link::Http(http) => http.transport.session_id(),
            super::Link::Stdio(_) | super::Link::Tenant(_) => None,
        }
    }

    /// Waits at most `within` for the head of exchange `n`'s response, reading (and keeping)
    /// whatever else arrives meanwhile. `Err` with why, when it failed or did not come.
    pub async fn wait_exchange(&mut self, n: u64, within: Duration) -> Result<Exchange, String> {
        let deadline = Instant::now() + within;
        loop {
            if let Some(x) = self.recorder.exchange(n) {
                return Ok(x.clone());
            }
            if let Some(why) = self.recorder.exchange_failure(n) {
                return Err(why.to_owned());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left).await {
                Ok(Some((frame, _place))) => {
                    for i in self.record(frame) {
                        self.take_unsolicited(i).await.map_err(|e| e.to_string())?;
                    }
                }
                Ok(None) => {}
                Err(_) => return Err(format!("no response within {within:?}")),
            }
        }
    }

    /// Waits at most `within` for exchange `n`'s body to end (what it carried is kept as usual).
    pub async fn wait_body_end(&mut self, n: u64, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        loop {
            if self.exchange_ended(n) {
                return true;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left).await {
                Ok(Some((frame, _place))) => {
                    for i in self.record(frame) {
                        if self.take_unsolicited(i).await.is_err() {
                            return false;
                        }
                    }
                }
                Ok(None) => {}
                Err(_) => return false,
            }
        }
    }

    pub(super) fn exchange_ended(&self, n: u64) -> bool {
        match &self.link {
            super::Link::Http(http) => http.ended.contains(&n),
            super::Link::Stdio(_) | super::Link::Tenant(_) => false,
        }
    }

    /// Keeps an HTTP refusal (an error status whose body is a JSON-RPC error without an id) for
    /// what its POST carried (`requests`): for a body that held no request (a malformed one), the
    /// answer without an id it is; for one request, that request's answer. A batch's refusal
    /// answers the POST, not each request in it: a batch is answered only by a response to each
    /// of its requests (`basic/index.mdx#batching`), so its requests are left unanswered, with
    /// why.
    pub(super) fn keep_refusal(&mut self, refusal: &Value, requests: &[RequestId], status: u16) {
        let answer = match requests {
            [] => refusal.clone(),
            [id] => {
                let mut answer = refusal.clone();
                answer["id"] = id.to_value();
                answer
            }
            batch => {
                let super::Link::Http(http) = &mut self.link else { return };
                let code =
                    refusal.pointer("/error/code").map_or_else(|| "no code".to_owned(), Value::to_string);
                let why = format!(
                    "the POST of a batch of {} requests was refused with HTTP {status} and one error without an \
                     id (code {code}), which answers the POST, not each request in it",
                    batch.len()
                );
                http.unanswered.extend(batch.iter().map(|id| (id.clone(), why.clone())));
                return;
            }
        };
        if let Ok(Message::Response(r)) = Message::from_value(&answer) {
            if self.early.len() < KEPT_MESSAGES {
                self.early.push((super::answer_stub(&answer), r));
            }
        }
    }

    /// Why an answer to one of `targets` cannot come over HTTP any more.
    pub(super) fn unanswerable(&self, targets: &[(Option<&RequestId>, bool)]) -> Option<String> {
        let super::Link::Http(http) = &self.link else { return None };
        targets.iter().find_map(|(id, _)| {
            let id = (*id)?;
            http.unanswered.iter().find(|(u, _)| u == id).map(|(_, why)| why.clone())
        })
    }

    /// The HTTP exchange that carried the last message sent, over HTTP.
    pub fn last_exchange(&self) -> Option<u64> {
        match &self.link {
            super::Link::Http(http) => http.last_sent,
            super::Link::Stdio(_) | super::Link::Tenant(_) => None,
        }
    }
}
