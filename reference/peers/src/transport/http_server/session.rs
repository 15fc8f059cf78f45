//! One MCP session of the HTTP endpoint: its streams, the routing of what the app sends, SSE
//! event ids and replay buffers. No sockets and no awaiting: connections are the sending halves
//! of bounded channels (`try_send`), so every decision here is synchronous and made under the
//! endpoint's lock.
//!
//! Streams are numbered per session: 0 is the standalone GET stream (and, in legacy HTTP+SSE,
//! the only stream), 1, 2, … are POST streams in the order of their POSTs. An event id is
//! `<stream>-<n>` (see [`rules::event_id`]), so ids are unique in the session and a
//! `Last-Event-ID` names the one stream to resume.

use super::rules::{self, Outbound};
use super::{Flavor, HttpRecord, Limits, SentMessage};
use crate::faults::Fault;
use crate::transport::SendError;
use axum::body::Bytes;
use mcpspec_protocol::framing::{Frame, FrameContent};
use mcpspec_protocol::revision::Revision;
use mcpspec_protocol::sse::{self, SseEvent};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;
use tokio::sync::{mpsc, oneshot};

/// The standalone GET stream (legacy: the session's one stream).
pub(crate) const STANDALONE: u64 = 0;

/// How a POST holding requests is answered, once the first message for it is known (JSON
/// responses mode): one JSON body when that message is its final response, else an SSE stream.
#[derive(Debug)]
pub(crate) enum PostReply {
    Json(Value),
    Sse(mpsc::Receiver<Bytes>),
}

/// The live HTTP connection of a stream, if any.
#[derive(Debug)]
enum Conn {
    /// Nobody is listening: events only go to the replay buffer.
    None,
    /// An open `text/event-stream` body. `serial` tells this connection from a later one on the
    /// same stream when it drops.
    Sse { tx: mpsc::Sender<Bytes>, serial: u64 },
    /// A POST in JSON-responses mode whose answer is not decided yet.
    Deciding { tx: oneshot::Sender<PostReply>, serial: u64 },
}

#[derive(Debug)]
struct Stream {
    /// Opened by a POST (else the standalone GET stream).
    post: bool,
    /// Keys of the POST's requests not answered yet.
    pending: BTreeSet<String>,
    conn: Conn,
    /// Events sent so far, by their number, for `Last-Event-ID` (bounded: oldest dropped).
    replay: VecDeque<(u64, Bytes)>,
    next_event: u64,
    /// The POST's last response went out: nothing more will be sent on it.
    finished: bool,
}

impl Stream {
    fn new(post: bool) -> Stream {
        Stream {
            post,
            pending: BTreeSet::new(),
            conn: Conn::None,
            replay: VecDeque::new(),
            next_event: 1,
            finished: false,
        }
    }

    fn live(&self) -> bool {
        match &self.conn {
            Conn::None => false,
            Conn::Sse { tx, .. } => !tx.is_closed(),
            Conn::Deciding { tx, .. } => !tx.is_closed(),
        }
    }
}

/// A new connection for a GET.
#[derive(Debug)]
pub(crate) struct Opened {
    pub stream: u64,
    pub serial: u64,
    pub rx: mpsc::Receiver<Bytes>,
    /// The ids of the events replayed on it (`Last-Event-ID`).
    pub replayed: Vec<String>,
}

/// Why a GET cannot open a stream.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum OpenError {
    /// That stream already has a live connection (409 Conflict).
    Busy(u64),
}

#[derive(Debug)]
pub(crate) struct Session {
    pub flavor: Flavor,
    pub fault: Option<Fault>,
    /// The negotiated revision, read from the app's answer to `initialize`.
    pub revision: Option<Revision>,
    initialize_key: Option<String>,
    inbound: mpsc::Sender<(Frame, Option<u64>)>,
    next_line: u64,
    streams: BTreeMap<u64, Stream>,
    next_stream: u64,
    next_serial: u64,
    /// Server requests and notifications waiting for a GET stream.
    held: VecDeque<Value>,
    log: VecDeque<HttpRecord>,
    pub log_dropped: u64,
    pub last_active: Instant,
    /// DELETEd while fault `http-deleted-session-served` keeps it going.
    pub deleted: bool,
    /// The session of one modern (2026-07-28) request: never announced, never named by a
    /// client, gone with its response stream.
    pub hidden: bool,
    limits: Limits,
}

impl Session {
    pub fn new(
        flavor: Flavor,
        fault: Option<Fault>,
        inbound: mpsc::Sender<(Frame, Option<u64>)>,
        limits: Limits,
        now: Instant,
    ) -> Session {
        Session {
            flavor,
            fault,
            revision: None,
            initialize_key: None,
            inbound,
            next_line: 0,
            streams: BTreeMap::new(),
            next_stream: 1,
            next_serial: 0,
            held: VecDeque::new(),
            log: VecDeque::new(),
            log_dropped: 0,
            last_active: now,
            deleted: false,
            hidden: false,
            limits,
        }
    }

    pub fn record(&mut self, record: HttpRecord) {
        if self.log.len() >= self.limits.log_records {
            self.log.pop_front();
            self.log_dropped += 1;
        }
        self.log.push_back(record);
    }

    pub fn take_log(&mut self) -> Vec<HttpRecord> {
        self.log.drain(..).collect()
    }

    /// Hands one message to the app, with the POST stream it came on (`None`: a POST that
    /// opened none). `false`: its queue is full or it is gone.
    pub fn deliver(&mut self, value: Value, stream: Option<u64>) -> bool {
        if value["method"] == "initialize" {
            if let Some(id) = value.get("id") {
                self.initialize_key = Some(rules::request_key(id));
            }
        }
        self.next_line += 1;
        let frame =
            Frame { line: self.next_line, content: FrameContent::Json { value, crlf: false, lines: 1 } };
        self.inbound.try_send((frame, stream)).is_ok()
    }

    /// Whether any stream has a live connection (a session someone listens to is not idle).
    pub fn has_live_connection(&self) -> bool {
        self.streams.values().any(Stream::live)
    }

    /// Whether a message of the app's own (a request or notification not sent in reply to a
    /// POST) reaches the client now: its standalone stream (the GET stream; legacy: the SSE
    /// stream) has a live connection.
    pub fn standalone_live(&self) -> bool {
        self.streams.get(&STANDALONE).is_some_and(Stream::live)
    }

    fn serial(&mut self) -> u64 {
        self.next_serial += 1;
        self.next_serial
    }

    /// A POST holding `requests` opens its stream. With `json` the answer waits for the first
    /// message (see [`PostReply`]); else an SSE body opens now, primed with an event that has
    /// an id and empty data when `priming` (2025-11-25, SEP-1699). With `poll`, the priming
    /// event carries `retry` and the connection closes right after it (the client polls).
    pub fn open_post(
        &mut self,
        requests: Vec<String>,
        json: bool,
        priming: bool,
        poll: Option<std::time::Duration>,
    ) -> (u64, u64, PostOpen) {
        let no = self.next_stream;
        self.next_stream += 1;
        let serial = self.serial();
        let mut stream = Stream::new(true);
        stream.pending = requests.into_iter().collect();
        let json = json && self.fault != Some(Fault::SseCloseBeforeResponse);
        let open = if json {
            let (tx, rx) = oneshot::channel();
            stream.conn = Conn::Deciding { tx, serial };
            PostOpen::Deciding(rx)
        } else {
            let (tx, rx) = mpsc::channel(self.limits.queued_events);
            stream.conn = Conn::Sse { tx, serial };
            PostOpen::Sse(rx)
        };
        self.streams.insert(no, stream);
        self.prune_finished();
        if priming && !json {
            let retry = poll.map(|d| d.as_millis() as u64);
            let data = SseEvent { has_data: true, retry, ..SseEvent::default() };
            self.emit(no, data, None);
            if let (Some(retry), Some(s)) = (poll, self.streams.get_mut(&no)) {
                // The connection ends (dropping the sender ends the body once the priming
                // event is read); the stream lives on for `Last-Event-ID`.
                s.conn = Conn::None;
                let event_id = rules::event_id(no, s.next_event - 1);
                self.record(HttpRecord::PollClosed { stream: no, event_id, retry, at: Instant::now() });
            }
        }
        if self.fault == Some(Fault::SseCloseBeforeResponse) {
            // The defect: the stream ends before its response (which only a resumption sees).
            if let Some(s) = self.streams.get_mut(&no) {
                s.conn = Conn::None;
            }
        }
        (no, serial, open)
    }

    /// The POST's message did not reach the app: its stream is dropped again.
    pub fn abandon(&mut self, stream: u64) {
        self.streams.remove(&stream);
    }

    /// A GET opens (or, with `Last-Event-ID`, resumes) a stream.
    pub fn open_get(&mut self, last_event_id: Option<&str>) -> Result<Opened, OpenError> {
        let resume = last_event_id
            .and_then(rules::parse_event_id)
            .filter(|(s, _)| self.streams.contains_key(s) && self.flavor == Flavor::Streamable);
        let (no, after) = resume.unwrap_or((STANDALONE, 0));
        let stream = self.streams.entry(no).or_insert_with(|| Stream::new(false));
        // A resumption says the client lost that stream: the new connection takes it over even
        // if the server has not noticed the old one drop yet. A second plain GET is refused.
        if stream.live() && resume.is_none() {
            return Err(OpenError::Busy(no));
        }
        let capacity = self.limits.queued_events.max(self.limits.replay_events + 1);
        let (tx, rx) = mpsc::channel(capacity);
        let mut replayed = Vec::new();
        if resume.is_some() {
            let mut events: Vec<(u64, u64, Bytes)> =
                stream.replay.iter().filter(|(n, _)| *n > after).map(|(n, b)| (no, *n, b.clone())).collect();
            if self.fault == Some(Fault::SseReplayOtherStream) {
                // The defect: events of every other stream come along too.
                for (other, s) in &self.streams {
                    if *other != no {
                        events.extend(s.replay.iter().map(|(n, b)| (*other, *n, b.clone())));
                    }
                }
            }
            for (s, n, bytes) in events {
                if tx.try_send(bytes).is_ok() {
                    replayed.push(rules::event_id(s, n));
                }
            }
        }
        let serial = self.serial();
        let stream = self.streams.get_mut(&no).expect("inserted above");
        if stream.finished {
            // A finished POST stream: after the replay there is nothing more; dropping `tx`
            // ends the body once the replay is read.
            drop(tx);
        } else {
            stream.conn = Conn::Sse { tx, serial };
        }
        if no == STANDALONE {
            while let Some(message) = self.held.pop_front() {
                self.emit_message(STANDALONE, message, false);
            }
        }
        Ok(Opened { stream: no, serial, rx, replayed })
    }

    /// Legacy HTTP+SSE: the GET stream opens with the `endpoint` event naming where to POST.
    pub fn open_legacy(&mut self, endpoint: &str) -> (mpsc::Receiver<Bytes>, u64) {
        let serial = self.serial();
        let (tx, rx) = mpsc::channel(self.limits.queued_events);
        let mut stream = Stream::new(false);
        stream.conn = Conn::Sse { tx, serial };
        self.streams.insert(STANDALONE, stream);
        let kind = match self.fault {
            // The defect: the endpoint comes as an ordinary message event; no `endpoint` event.
            Some(Fault::SseNoEndpointEvent) => "message",
            _ => "endpoint",
        };
        let event = SseEvent { event: Some(kind.into()), ..SseEvent::message(endpoint) };
        self.emit(STANDALONE, event, None);
        (rx, serial)
    }

    /// A connection's body was dropped (the client went away, or it ended).
    pub fn connection_dropped(&mut self, stream: u64, serial: u64) {
        if let Some(s) = self.streams.get_mut(&stream) {
            let this = match &s.conn {
                Conn::Sse { serial: x, .. } | Conn::Deciding { serial: x, .. } => *x == serial,
                Conn::None => false,
            };
            if this {
                s.conn = Conn::None;
            }
        }
    }

    /// Routes one message of the app onto exactly one stream (or holds it). `origin` is the
    /// POST stream of the message the app was handling when it wrote this one, if any.
    pub fn route(&mut self, message: Value, origin: Option<u64>) -> Result<(), SendError> {
        if self.flavor == Flavor::LegacySse {
            self.emit_message(STANDALONE, message, false);
            return Ok(());
        }
        // The origin counts while it still waits for responses.
        let origin =
            origin.filter(|no| self.streams.get(no).is_some_and(|s| s.post && !s.pending.is_empty()));
        match rules::classify_outbound(&message) {
            Outbound::Response { keys, .. } => self.route_response(message, keys, origin),
            Outbound::Other => self.route_other(message, origin),
        }
    }

    fn route_response(
        &mut self,
        message: Value,
        keys: Vec<String>,
        origin: Option<u64>,
    ) -> Result<(), SendError> {
        self.sniff_revision(&message, &keys);
        let waiting = || self.streams.iter().rev().filter(|(_, s)| s.post && !s.pending.is_empty());
        let matched = waiting().find(|(_, s)| keys.iter().any(|k| s.pending.contains(k))).map(|(no, _)| *no);
        // A response whose id matches nothing in flight (a null id, or an id the app got wrong)
        // answers the POST whose message the app was handling (else the latest still waiting),
        // as a server that writes to the stream of the request it handles would send it; the
        // checks judge its id.
        let target = matched.or(origin).or_else(|| waiting().next().map(|(no, _)| *no));
        let Some(no) = target else {
            let why = "no POST holds a request with this id (answered already, or never asked)";
            self.record(HttpRecord::Undeliverable { message, why: why.into() });
            return Ok(());
        };
        if self.fault == Some(Fault::SseResponseWithheld) {
            // The defect: the response is dropped and its stream stays open.
            let why = "withheld (fault sse-response-withheld)";
            self.record(HttpRecord::Undeliverable { message, why: why.into() });
            return Ok(());
        }
        let stream = self.streams.get_mut(&no).expect("found above");
        match matched {
            Some(_) => keys.iter().for_each(|k| {
                stream.pending.remove(k);
            }),
            None => stream.pending.clear(),
        }
        let last = stream.pending.is_empty();
        let on_get = self.fault == Some(Fault::SseResponseOnGet)
            && self.streams.get(&STANDALONE).is_some_and(Stream::live);
        if on_get {
            // The defect: the response goes out on the standalone GET stream.
            self.emit_message(STANDALONE, message, false);
        } else {
            self.emit_message(no, message, last);
        }
        if last {
            self.finish(no);
        }
        Ok(())
    }

    fn route_other(&mut self, message: Value, origin: Option<u64>) -> Result<(), SendError> {
        if self.fault == Some(Fault::SseBroadcast) {
            let live: Vec<u64> = self
                .streams
                .iter()
                .filter(|(_, s)| s.live() && !s.finished && matches!(s.conn, Conn::Sse { .. }))
                .map(|(no, _)| *no)
                .collect();
            if live.len() > 1 {
                // The defect: the same message on every open stream.
                for no in live {
                    self.emit_message(no, message.clone(), false);
                }
                return Ok(());
            }
        }
        // Related to a request in flight: on the stream of the POST whose message the app was
        // handling, else of the latest POST still waiting for its answer.
        let post = self.streams.iter().rev().find(|(_, s)| s.post && !s.finished && !s.pending.is_empty());
        if let Some(no) = origin.or(post.map(|(no, _)| *no)) {
            self.emit_message(no, message, false);
            return Ok(());
        }
        if self.streams.get(&STANDALONE).is_some_and(Stream::live) {
            self.emit_message(STANDALONE, message, false);
            return Ok(());
        }
        if self.held.len() >= self.limits.held_messages {
            return Err(SendError::Backlog { limit: self.limits.held_messages });
        }
        self.record(HttpRecord::Held { message: message.clone() });
        self.held.push_back(message);
        Ok(())
    }

    /// The negotiated revision, from the answer to `initialize`.
    fn sniff_revision(&mut self, message: &Value, keys: &[String]) {
        let Some(init) = &self.initialize_key else { return };
        if keys.contains(init) {
            let version = message.pointer("/result/protocolVersion").and_then(Value::as_str);
            self.revision = version.and_then(|v| v.parse().ok());
        }
    }

    fn emit_message(&mut self, no: u64, message: Value, last: bool) {
        let data = serde_json::to_string(&message).unwrap_or_default();
        let kind = match (self.flavor, self.fault) {
            (Flavor::LegacySse, Some(Fault::SseWrongEventType)) => Some("mcp-message".to_owned()),
            (Flavor::LegacySse, _) => Some("message".to_owned()),
            (Flavor::Streamable, _) => None,
        };
        let event = SseEvent { event: kind, ..SseEvent::message(data) };
        self.emit(no, event, last.then_some(message));
    }

    /// Writes one event on a stream: numbered, kept for replay, sent to the live connection if
    /// there is one. `json_candidate` is the POST's final response, which a POST in JSON mode
    /// takes as its whole body instead.
    fn emit(&mut self, no: u64, mut event: SseEvent, json_candidate: Option<Value>) {
        let legacy = self.flavor == Flavor::LegacySse;
        let repeat_ids = self.fault == Some(Fault::SseEventIdsRepeat);
        let queued = self.limits.queued_events;
        let replay_limit = self.limits.replay_events;
        let Some(stream) = self.streams.get_mut(&no) else { return };
        if let Conn::Deciding { .. } = stream.conn {
            let Conn::Deciding { tx, serial } = std::mem::replace(&mut stream.conn, Conn::None) else {
                unreachable!("matched above")
            };
            if let Some(message) = json_candidate {
                let _ = tx.send(PostReply::Json(message.clone()));
                self.record(HttpRecord::Sent(SentMessage {
                    stream: no,
                    event_id: None,
                    json_body: true,
                    message,
                }));
                return;
            }
            let (sse_tx, sse_rx) = mpsc::channel(queued);
            if tx.send(PostReply::Sse(sse_rx)).is_ok() {
                stream.conn = Conn::Sse { tx: sse_tx, serial };
            }
        }
        let n = stream.next_event;
        stream.next_event += 1;
        let id = match (legacy, repeat_ids) {
            (true, _) => None,
            // The defect: every stream counts from 1, so ids repeat across streams.
            (false, true) => Some(n.to_string()),
            (false, false) => Some(rules::event_id(no, n)),
        };
        event.id = id.clone();
        let bytes = Bytes::from(sse::encode(&event));
        if !legacy {
            if stream.replay.len() >= replay_limit {
                stream.replay.pop_front();
            }
            stream.replay.push_back((n, bytes.clone()));
        }
        if let Conn::Sse { tx, .. } = &stream.conn {
            if tx.try_send(bytes).is_err() {
                // Gone, or too slow to keep up: the rest waits in the replay buffer.
                stream.conn = Conn::None;
            }
        }
        let message = serde_json::from_str(&event.data).unwrap_or(Value::Null);
        if event.has_data && !event.data.is_empty() {
            self.record(HttpRecord::Sent(SentMessage {
                stream: no,
                event_id: id,
                json_body: false,
                message,
            }));
        }
    }

    /// The POST's last response is out: its stream ends (dropping the sender ends the body once
    /// what is queued has been read).
    fn finish(&mut self, no: u64) {
        if let Some(s) = self.streams.get_mut(&no) {
            s.finished = true;
            s.conn = Conn::None;
            self.record(HttpRecord::StreamClosed { stream: no });
        }
    }

    /// Keeps the replay buffers of the latest finished POST streams only.
    fn prune_finished(&mut self) {
        let finished: Vec<u64> = self.streams.iter().filter(|(_, s)| s.finished).map(|(no, _)| *no).collect();
        let excess = finished.len().saturating_sub(self.limits.finished_streams_kept);
        for no in finished.into_iter().take(excess) {
            self.streams.remove(&no);
        }
    }
}

/// What a POST holding requests gets back from [`Session::open_post`].
#[derive(Debug)]
pub(crate) enum PostOpen {
    Sse(mpsc::Receiver<Bytes>),
    Deciding(oneshot::Receiver<PostReply>),
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::sse::{SseDecoder, SseItem};
    use serde_json::json;

    fn session(fault: Option<Fault>) -> (Session, mpsc::Receiver<(Frame, Option<u64>)>) {
        let (tx, rx) = mpsc::channel(16);
        (Session::new(Flavor::Streamable, fault, tx, Limits::default(), Instant::now()), rx)
    }

    /// Everything queued on a connection, decoded.
    fn drain(rx: &mut mpsc::Receiver<Bytes>) -> Vec<SseEvent> {
        let mut d = SseDecoder::new(1 << 20);
        let mut items = Vec::new();
        while let Ok(b) = rx.try_recv() {
            d.push(&b, &mut items);
        }
        items
            .into_iter()
            .map(|i| match i {
                SseItem::Event(e) => e,
                other => panic!("{other:?}"),
            })
            .collect()
    }

    fn sse(open: PostOpen) -> mpsc::Receiver<Bytes> {
        match open {
            PostOpen::Sse(rx) => rx,
            PostOpen::Deciding(_) => panic!("not an SSE stream"),
        }
    }

    #[test]
    fn each_message_on_one_stream_with_session_unique_ids() {
        let (mut s, _) = session(None);
        let (a, _, open) = s.open_post(vec!["1".into()], false, false, None);
        let mut a_rx = sse(open);
        let (b, _, open) = s.open_post(vec!["2".into()], false, true, None);
        let mut b_rx = sse(open);
        let mut get = s.open_get(None).unwrap();
        let note = json!({"jsonrpc":"2.0","method":"notifications/message"});
        s.route(note.clone(), None).unwrap(); // related: the latest POST waiting
        s.route(json!({"jsonrpc":"2.0","id":1,"result":{}}), None).unwrap();
        s.route(json!({"jsonrpc":"2.0","id":2,"result":{}}), None).unwrap();
        s.route(note.clone(), None).unwrap(); // nothing in flight: the GET stream
        let (on_a, on_b, on_get) = (drain(&mut a_rx), drain(&mut b_rx), drain(&mut get.rx));
        assert_eq!(on_a.len(), 1);
        assert_eq!(on_b.len(), 3, "priming, the notification, the response: {on_b:?}");
        assert!(on_b[0].data.is_empty() && on_b[0].has_data);
        assert_eq!(on_get.len(), 1);
        let ids: Vec<String> = on_a.iter().chain(&on_b).chain(&on_get).filter_map(|e| e.id.clone()).collect();
        let unique: BTreeSet<&String> = ids.iter().collect();
        assert_eq!(unique.len(), ids.len());
        assert!(on_a.iter().all(|e| e.id.as_deref().is_some_and(|i| i.starts_with(&format!("{a}-")))));
        assert!(on_b.iter().all(|e| e.id.as_deref().is_some_and(|i| i.starts_with(&format!("{b}-")))));
        // Both POST streams ended: their senders are gone.
        assert!(a_rx.try_recv().is_err() && s.streams[&a].finished);
    }

    /// An error without an id (a batch refused, say) goes to the POST whose message it answers,
    /// not to the latest one waiting.
    #[test]
    fn an_unmatched_answer_goes_to_the_post_it_answers() {
        let (mut s, _) = session(None);
        let (a, _, open) = s.open_post(vec!["b1".into(), "b2".into()], false, false, None);
        let mut a_rx = sse(open);
        let (_, _, open) = s.open_post(vec!["3".into()], false, false, None);
        let mut b_rx = sse(open);
        let refusal = json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"no batches"}});
        s.route(refusal, Some(a)).unwrap();
        assert_eq!(drain(&mut a_rx).len(), 1);
        assert!(drain(&mut b_rx).is_empty());
    }

    #[test]
    fn held_until_a_get_stream_opens_and_bounded() {
        let (mut s, _) = session(None);
        let note = json!({"jsonrpc":"2.0","method":"notifications/tools/list_changed"});
        for _ in 0..Limits::default().held_messages {
            s.route(note.clone(), None).unwrap();
        }
        assert!(matches!(s.route(note.clone(), None), Err(SendError::Backlog { .. })));
        let mut get = s.open_get(None).unwrap();
        assert_eq!(drain(&mut get.rx).len(), Limits::default().held_messages);
        assert_eq!(s.open_get(None).unwrap_err(), OpenError::Busy(STANDALONE));
    }

    #[test]
    fn json_mode_takes_a_lone_response_as_the_body() {
        let (mut s, _) = session(None);
        let (_, _, open) = s.open_post(vec!["1".into()], true, false, None);
        let PostOpen::Deciding(mut rx) = open else { panic!("JSON mode decides later") };
        s.route(json!({"jsonrpc":"2.0","id":1,"result":{}}), None).unwrap();
        assert!(matches!(rx.try_recv(), Ok(PostReply::Json(v)) if v["id"] == 1));
        let (_, _, open) = s.open_post(vec!["2".into()], true, false, None);
        let PostOpen::Deciding(mut rx) = open else { panic!("JSON mode decides later") };
        s.route(json!({"jsonrpc":"2.0","method":"notifications/progress"}), None).unwrap();
        assert!(matches!(rx.try_recv(), Ok(PostReply::Sse(_))));
    }

    #[test]
    fn a_resumption_replays_only_its_stream() {
        let (mut s, _) = session(None);
        let (a, serial, open) = s.open_post(vec!["1".into()], false, false, None);
        drop(open);
        s.connection_dropped(a, serial);
        let (_, _, other) = s.open_post(vec!["2".into()], false, false, None);
        s.route(json!({"jsonrpc":"2.0","id":2,"result":{}}), None).unwrap();
        drop(other);
        s.route(json!({"jsonrpc":"2.0","id":1,"result":{}}), None).unwrap();
        let mut resumed = s.open_get(Some(&rules::event_id(a, 0))).unwrap();
        assert_eq!(resumed.stream, a);
        let events = drain(&mut resumed.rx);
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].id.as_deref(), Some(rules::event_id(a, 1).as_str()));
    }
}
