//! The HTTP transport rules, judged on every exchange of a session with a server over Streamable
//! HTTP or legacy HTTP+SSE, whatever the scenario: status codes and content types of responses,
//! session ids, SSE event ids, which stream a message came on. Sans-IO: it sees the
//! [`HttpEvent`]s the transport yields, as they were recorded, so a transcript replays the same
//! verdicts.

use crate::judge::rules;
use crate::judge::rules::Violation;
use mcpspec_protocol::framing::FrameContent;
use mcpspec_protocol::wire::RequestId;
use mcpspec_reference::transport::http_client::{
    BodyEnd, BodyKind, Exchange, Flavor, HttpEvent, SESSION_HEADER,
};
use std::collections::{HashMap, HashSet, VecDeque};

/// How many exchanges, event ids and messages a session remembers (a flood costs bounded memory).
const KEPT: usize = 4_096;

/// Judges the HTTP exchanges of one session.
#[derive(Debug)]
pub struct HttpChecker {
    flavor: Flavor,
    exchanges: HashMap<u64, Exchange>,
    order: VecDeque<u64>,
    /// Why exchanges got no response.
    failures: HashMap<u64, String>,
    event_ids: HashSet<String>,
    /// Messages with an id from the server, and the exchange each came on.
    messages: HashMap<String, u64>,
    /// The first SSE event of each exchange: its type and data.
    first_events: HashMap<u64, (String, String)>,
    /// The session id's characters have been judged.
    session_judged: bool,
    /// How each body ended.
    ends: HashMap<u64, BodyEnd>,
    /// The exchange each response came on, by the id it answers.
    answered_on: HashMap<RequestId, u64>,
    /// The exchange each SSE event id came on (for what a `Last-Event-ID` resumes).
    event_origin: HashMap<String, u64>,
    /// Each GET that resumed a stream: the exchange whose stream it resumed, how many messages
    /// it carried, and those that belonged to another stream.
    resumed: HashMap<u64, Resumed>,
}

/// What a GET with `Last-Event-ID` carried.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resumed {
    /// The exchange whose stream the event id named (`None`: an id the server never sent).
    pub origin: Option<u64>,
    pub messages: usize,
    /// Responses to requests the resumed stream's POST did not carry.
    pub foreign: Vec<String>,
}

impl HttpChecker {
    pub fn new(flavor: Flavor) -> HttpChecker {
        HttpChecker {
            flavor,
            exchanges: HashMap::new(),
            order: VecDeque::new(),
            failures: HashMap::new(),
            event_ids: HashSet::new(),
            messages: HashMap::new(),
            first_events: HashMap::new(),
            session_judged: false,
            ends: HashMap::new(),
            answered_on: HashMap::new(),
            event_origin: HashMap::new(),
            resumed: HashMap::new(),
        }
    }

    /// What GET `n` carried, if it resumed a stream with `Last-Event-ID`.
    pub fn resumed(&self, n: u64) -> Option<&Resumed> {
        self.resumed.get(&n)
    }

    /// The GETs that resumed the stream of exchange `origin`.
    pub fn resumptions_of(&self, origin: u64) -> Vec<(u64, &Resumed)> {
        let mut found: Vec<(u64, &Resumed)> =
            self.resumed.iter().filter(|(_, r)| r.origin == Some(origin)).map(|(n, r)| (*n, r)).collect();
        found.sort_by_key(|(n, _)| *n);
        found
    }

    /// The exchange whose POST carried the request `id`.
    pub fn posted_in(&self, id: &RequestId) -> Option<u64> {
        self.exchanges.values().find(|x| x.requests.contains(id)).map(|x| x.n)
    }

    /// The first GET made in the session, once answered.
    pub fn first_get(&self) -> Option<u64> {
        self.exchanges.values().filter(|x| x.method == "GET").map(|x| x.n).min()
    }

    /// The type and data of exchange `n`'s first SSE event.
    pub fn first_event(&self, n: u64) -> Option<(&str, &str)> {
        self.first_events.get(&n).map(|(k, d)| (k.as_str(), d.as_str()))
    }

    /// How exchange `n`'s body ended, once it has.
    pub fn body_end(&self, n: u64) -> Option<&BodyEnd> {
        self.ends.get(&n)
    }

    /// The exchange on which the response to `id` came.
    pub fn answered_on(&self, id: &RequestId) -> Option<u64> {
        self.answered_on.get(id).copied()
    }

    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// The head of exchange `n`'s response, once it has come.
    pub fn exchange(&self, n: u64) -> Option<&Exchange> {
        self.exchanges.get(&n)
    }

    /// Why exchange `n` got no response, if it failed.
    pub fn failure(&self, n: u64) -> Option<&str> {
        self.failures.get(&n).map(String::as_str)
    }

    /// Judges one event.
    pub fn on_event(&mut self, event: &HttpEvent) -> Vec<Violation> {
        let mut out = Vec::new();
        if let HttpEvent::End { n, end } = event {
            if self.ends.len() < KEPT {
                self.ends.insert(*n, end.clone());
            }
        }
        match event {
            HttpEvent::Response(x) => {
                self.on_response(x, &mut out);
                self.keep(x.clone());
            }
            HttpEvent::Message { n, frame, sse } => {
                if let Some(meta) = sse {
                    let data = match &frame.content {
                        FrameContent::Json { value, .. } => value.to_string(),
                        _ => String::new(),
                    };
                    let kind = meta.event.clone().unwrap_or_else(|| "message".into());
                    self.on_sse_event(*n, meta.id.as_deref(), (kind, data), &mut out);
                }
                if let FrameContent::Json { value, .. } = &frame.content {
                    self.on_message(*n, value, &mut out);
                }
            }
            HttpEvent::Event { n, event } => {
                self.on_sse_event(
                    *n,
                    event.id.as_deref(),
                    (event.kind().to_owned(), event.data.clone()),
                    &mut out,
                );
                let carries_message = serde_json::from_str::<serde_json::Value>(&event.data)
                    .is_ok_and(|v| v.get("jsonrpc").is_some());
                if self.flavor == Flavor::LegacySse && carries_message {
                    out.push(Violation::new(
                        &rules::SSE_MESSAGE_EVENTS,
                        "a JSON-RPC message in an SSE event of type message",
                        format!("a message in an event of type {:?}: {}", event.kind(), event.data),
                    ));
                }
            }
            HttpEvent::End { n, end: BodyEnd::Complete { bytes } } if *bytes > 0 => {
                if let Some(x) = self.exchanges.get(n) {
                    if self.flavor == Flavor::Streamable
                        && x.method == "POST"
                        && x.body == BodyKind::NoRequests
                        && x.status == 202
                    {
                        out.push(Violation::new(
                            &rules::HTTP_ACCEPTED_202,
                            "202 Accepted with no body",
                            format!("{}, with a body of {bytes} bytes", x.describe()),
                        ));
                    }
                }
            }
            HttpEvent::End { .. } => {}
            HttpEvent::Failed { n, method, url, error } => {
                self.failures.insert(*n, format!("{method} {url}: {error}"));
            }
            HttpEvent::Unanswered { n, ids, why } => {
                if let Some(x) = self.exchanges.get(n).filter(|x| (200..300).contains(&x.status)) {
                    let ids: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
                    out.push(Violation::new(
                        &rules::HTTP_RESPONSE_ON_STREAM,
                        "a response to each request POSTed, on the stream that the POST opened",
                        format!("{}: no response to id {}; {why}", x.describe(), ids.join(", ")),
                    ));
                }
            }
        }
        out
    }

    fn on_response(&mut self, x: &Exchange, out: &mut Vec<Violation>) {
        if let Some(session) = x.header(SESSION_HEADER) {
            if !self.session_judged {
                self.session_judged = true;
                if session.is_empty() || !session.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
                    out.push(Violation::new(
                        &rules::HTTP_SESSION_ID_ASCII,
                        "a session id of visible ASCII characters (0x21 to 0x7E)",
                        format!("{}: {SESSION_HEADER}: {session:?}", x.describe()),
                    ));
                }
            }
        }
        if self.flavor != Flavor::Streamable {
            return;
        }
        let ok = (200..300).contains(&x.status);
        let media = x.media_type();
        match (x.method, x.body) {
            ("POST", BodyKind::NoRequests) if ok && x.status != 202 => {
                out.push(Violation::new(&rules::HTTP_ACCEPTED_202, "202 Accepted with no body", x.describe()))
            }
            ("POST", BodyKind::Requests)
                if ok && !matches!(media.as_deref(), Some("application/json" | "text/event-stream")) =>
            {
                out.push(Violation::new(
                    &rules::HTTP_RESPONSE_CONTENT_TYPE,
                    "Content-Type: text/event-stream or application/json",
                    x.describe(),
                ))
            }
            ("GET", _) if !resuming(x) => {
                let sse = ok && media.as_deref() == Some("text/event-stream");
                if !sse && x.status != 405 {
                    out.push(Violation::new(
                        &rules::HTTP_GET_SSE_OR_405,
                        "Content-Type: text/event-stream, or 405 Method Not Allowed",
                        x.describe(),
                    ));
                }
            }
            _ => {}
        }
    }

    /// An SSE event (with or without a message) on exchange `n`, with its id.
    fn on_sse_event(&mut self, n: u64, id: Option<&str>, event: (String, String), out: &mut Vec<Violation>) {
        if self.first_events.len() < KEPT && !self.first_events.contains_key(&n) {
            let endpoint = event.0 == "endpoint";
            self.first_events.insert(n, event);
            let first_get = self.exchanges.get(&n).is_some_and(|x| x.method == "GET");
            if self.flavor == Flavor::LegacySse && first_get && !endpoint {
                out.push(Violation::new(
                    &rules::SSE_ENDPOINT_EVENT,
                    "an endpoint event first on the SSE stream",
                    "the stream's first event is not an endpoint event",
                ));
            }
        }
        let Some(id) = id.filter(|id| !id.is_empty()) else { return };
        if self.event_origin.len() < KEPT {
            self.event_origin.entry(id.to_owned()).or_insert(n);
        }
        if self.event_ids.contains(id) {
            out.push(Violation::new(
                &rules::HTTP_EVENT_ID_UNIQUE,
                "event ids unique across every stream of the session",
                format!("the event id {id:?} again, on exchange #{n}"),
            ));
        } else if self.event_ids.len() < KEPT {
            self.event_ids.insert(id.to_owned());
        }
    }

    fn on_message(&mut self, n: u64, value: &serde_json::Value, out: &mut Vec<Violation>) {
        let items: Vec<&serde_json::Value> = match value {
            serde_json::Value::Array(items) => items.iter().collect(),
            other => vec![other],
        };
        let on_get = self.exchanges.get(&n).filter(|x| x.method == "GET");
        // A resuming GET: what it carries belongs to the stream its Last-Event-ID named
        // (basic/transports.mdx#resumability-and-redelivery: nothing of another stream).
        let resumes = on_get.and_then(|x| {
            x.request_headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("last-event-id"))
                .map(|(_, v)| v.clone())
        });
        if let Some(last) = resumes {
            let origin = self.event_origin.get(&last).copied();
            let own: Vec<RequestId> =
                origin.and_then(|o| self.exchanges.get(&o)).map(|x| x.requests.clone()).unwrap_or_default();
            if self.resumed.len() < KEPT || self.resumed.contains_key(&n) {
                let r = self.resumed.entry(n).or_insert_with(|| Resumed { origin, ..Resumed::default() });
                for item in &items {
                    r.messages += 1;
                    let response_id = item
                        .get("id")
                        .filter(|_| item.get("method").is_none())
                        .and_then(RequestId::from_value);
                    if let Some(id) = response_id.filter(|id| !own.contains(id)) {
                        if r.foreign.len() < 16 {
                            r.foreign.push(format!("the response to {id}"));
                        }
                    }
                }
            }
        }
        // 2026-07-28 streamable-http.mdx#receiving-messages: what a modern POST's stream carries
        // besides its response relates to its request. A modern POST names its method in
        // Mcp-Method; its stream may carry progress and log messages, and a
        // subscriptions/listen stream the changes subscribed to.
        let modern_method = self.exchanges.get(&n).filter(|x| x.method == "POST").and_then(|x| {
            x.request_headers
                .iter()
                .find(|(k, _)| k.eq_ignore_ascii_case("mcp-method"))
                .map(|(_, v)| v.clone())
        });
        if let Some(method) = modern_method.filter(|m| m != "subscriptions/listen") {
            for item in &items {
                let Some(kind) = item.get("method").and_then(serde_json::Value::as_str) else { continue };
                let related = matches!(kind, "notifications/progress" | "notifications/message");
                if item.get("id").is_none() && !related {
                    let x = &self.exchanges[&n];
                    out.push(Violation::new(
                        &rules::HTTP_POST_STREAM_RELATED,
                        "on a request's stream, only notifications relating to it (progress, log messages)",
                        format!("{kind} on the stream of the {method} POST ({})", x.describe()),
                    ));
                }
            }
        }
        for item in items {
            let is_response = item.get("method").is_none() && item.get("id").is_some();
            if let Some(id) = item.get("id").and_then(RequestId::from_value).filter(|_| is_response) {
                if self.answered_on.len() < KEPT {
                    self.answered_on.insert(id, n);
                }
            }
            if self.flavor == Flavor::Streamable && is_response {
                if let Some(x) = on_get.filter(|x| !resuming(x)) {
                    out.push(Violation::new(
                        &rules::HTTP_NO_RESPONSE_ON_GET,
                        "no JSON-RPC response on the GET stream (it is not resuming a request's stream)",
                        format!("{}: {item}", x.describe()),
                    ));
                }
            }
            // The same request or response on two streams. Messages without an id can repeat
            // innocently (two identical notifications); one id is one message — but for a
            // response on the stream of a POST that carried a request with its id: a client may
            // use an id again once it is answered (2026-07-28), and the same answer then comes
            // again, each time where it belongs.
            let own_stream = is_response
                && item
                    .get("id")
                    .and_then(RequestId::from_value)
                    .is_some_and(|id| self.exchanges.get(&n).is_some_and(|x| x.requests.contains(&id)));
            if item.get("id").is_some() && !own_stream {
                let key = item.to_string();
                match self.messages.get(&key) {
                    Some(first) if *first != n => out.push(Violation::new(
                        &rules::HTTP_NO_BROADCAST,
                        "each message on one stream only",
                        format!("the same message on exchanges #{first} and #{n}: {key}"),
                    )),
                    Some(_) => {}
                    None if self.messages.len() < KEPT => drop(self.messages.insert(key, n)),
                    None => {}
                }
            }
        }
    }

    fn keep(&mut self, x: Exchange) {
        self.order.push_back(x.n);
        self.exchanges.insert(x.n, x);
        if self.order.len() > KEPT {
            if let Some(old) = self.order.pop_front() {
                self.exchanges.remove(&old);
            }
        }
    }
}

/// A GET that resumes a stream (`Last-Event-ID`): responses may come on it.
fn resuming(x: &Exchange) -> bool {
    x.request_headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("last-event-id"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::framing::Frame;
    use mcpspec_reference::transport::http_client::SseMeta;
    use serde_json::json;

    fn head(
        n: u64,
        method: &'static str,
        body: BodyKind,
        status: u16,
        headers: &[(&str, &str)],
    ) -> HttpEvent {
        HttpEvent::Response(Exchange {
            n,
            method,
            url: "http://127.0.0.1:1/mcp".into(),
            request_headers: vec![],
            body,
            requests: vec![],
            status,
            headers: headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        })
    }

    fn message(n: u64, value: serde_json::Value, id: Option<&str>) -> HttpEvent {
        HttpEvent::Message {
            n,
            frame: Frame { line: 1, content: FrameContent::Json { value, crlf: false, lines: 1 } },
            sse: Some(SseMeta { id: id.map(str::to_owned), event: None, retry: None }),
        }
    }

    fn ids(c: &mut HttpChecker, events: &[HttpEvent]) -> Vec<&'static str> {
        events.iter().flat_map(|e| c.on_event(e)).map(|v| v.rule.id).collect()
    }

    /// 2026-07-28: a request's stream carries notifications relating to it; change
    /// notifications belong on a subscriptions/listen stream.
    #[test]
    fn a_modern_post_stream_carries_only_related_notifications() {
        let post = |n, method: &str| {
            let HttpEvent::Response(mut x) =
                head(n, "POST", BodyKind::Requests, 200, &[("content-type", "text/event-stream")])
            else {
                unreachable!()
            };
            x.request_headers = vec![("mcp-method".into(), method.into())];
            HttpEvent::Response(x)
        };
        let note =
            |n, method: &str| message(n, json!({"jsonrpc": "2.0", "method": method, "params": {}}), None);
        let mut c = HttpChecker::new(Flavor::Streamable);
        let fine = ids(
            &mut c,
            &[
                post(1, "tools/call"),
                note(1, "notifications/progress"),
                note(1, "notifications/message"),
                post(2, "subscriptions/listen"),
                note(2, "notifications/tools/list_changed"),
            ],
        );
        assert!(fine.is_empty(), "{fine:?}");
        let got = ids(&mut c, &[post(3, "tools/call"), note(3, "notifications/tools/list_changed")]);
        assert_eq!(got, ["http/post-stream-related"]);
    }

    #[test]
    fn a_correct_exchange_breaks_nothing() {
        let mut c = HttpChecker::new(Flavor::Streamable);
        let sse = [("content-type", "text/event-stream"), (SESSION_HEADER, "a1-B2")];
        let got = ids(
            &mut c,
            &[
                head(1, "POST", BodyKind::Requests, 200, &sse),
                message(1, json!({"jsonrpc":"2.0","id":1,"result":{}}), Some("s1-1")),
                HttpEvent::End { n: 1, end: BodyEnd::Complete { bytes: 80 } },
                head(2, "POST", BodyKind::NoRequests, 202, &[]),
                HttpEvent::End { n: 2, end: BodyEnd::Complete { bytes: 0 } },
                head(3, "GET", BodyKind::None, 405, &[]),
            ],
        );
        assert!(got.is_empty(), "{got:?}");
    }

    #[test]
    fn each_rule_can_fail() {
        let mut c = HttpChecker::new(Flavor::Streamable);
        let got = ids(
            &mut c,
            &[
                head(
                    1,
                    "POST",
                    BodyKind::Requests,
                    200,
                    &[("content-type", "text/plain"), (SESSION_HEADER, "a b")],
                ),
                head(2, "POST", BodyKind::NoRequests, 200, &[]),
                head(3, "POST", BodyKind::NoRequests, 202, &[]),
                HttpEvent::End { n: 3, end: BodyEnd::Complete { bytes: 2 } },
                head(4, "GET", BodyKind::None, 200, &[("content-type", "application/json")]),
                head(5, "GET", BodyKind::None, 200, &[("content-type", "text/event-stream")]),
                message(5, json!({"jsonrpc":"2.0","id":7,"result":{}}), Some("e1")),
                head(6, "POST", BodyKind::Requests, 200, &[("content-type", "text/event-stream")]),
                message(6, json!({"jsonrpc":"2.0","id":7,"result":{}}), Some("e1")),
            ],
        );
        for rule in [
            "http/response-content-type",
            "http/session-id-visible-ascii",
            "http/notification-202",
            "http/get-sse-or-405",
            "http/no-response-on-get",
            "http/event-id-unique",
            "http/no-broadcast",
        ] {
            assert!(got.contains(&rule), "{rule} not in {got:?}");
        }
        assert_eq!(got.iter().filter(|r| **r == "http/notification-202").count(), 2, "{got:?}");
    }

    #[test]
    fn legacy_streams_start_with_endpoint_and_carry_message_events() {
        use mcpspec_protocol::sse::SseEvent;
        let mut c = HttpChecker::new(Flavor::LegacySse);
        let sse = [("content-type", "text/event-stream")];
        let endpoint = SseEvent {
            event: Some("endpoint".into()),
            data: "/m?s=1".into(),
            has_data: true,
            ..Default::default()
        };
        let good = ids(
            &mut c,
            &[head(1, "GET", BodyKind::None, 200, &sse), HttpEvent::Event { n: 1, event: endpoint }],
        );
        assert!(good.is_empty(), "{good:?}");
        let mut c = HttpChecker::new(Flavor::LegacySse);
        let odd = SseEvent {
            event: Some("rpc".into()),
            data: r#"{"jsonrpc":"2.0","id":1,"result":{}}"#.into(),
            has_data: true,
            ..Default::default()
        };
        let bad =
            ids(&mut c, &[head(1, "GET", BodyKind::None, 200, &sse), HttpEvent::Event { n: 1, event: odd }]);
        assert_eq!(bad, ["sse/endpoint-event", "sse/message-events"]);
    }
}
