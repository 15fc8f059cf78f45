//! The Server-Sent Events codec (WHATWG HTML, "Server-sent events", the event stream format), a
//! sans-IO state machine like the stdio [`LineDecoder`](crate::framing::LineDecoder): feed it the
//! bytes of a `text/event-stream` body in chunks of any size and it yields the same
//! [`SseEvent`]s as if it had been fed everything at once. MCP's HTTP transports carry one
//! JSON-RPC message in the `data` of each event (`basic/transports.mdx`, Streamable HTTP and
//! HTTP+SSE).
//!
//! Lines end in CRLF, LF or a lone CR. A line `field: value` sets a field (one space after the
//! colon is dropped); a line starting with `:` is a comment; an empty line dispatches the event.
//! `data` lines accumulate, joined by `\n`. A byte order mark at the very start is skipped.
//! An event never holds more than the maximum event size: a larger one is reported once, as
//! [`SseItem::TooLong`], and the rest of it is skipped up to the empty line that ends it.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event` field; `None` when absent (the spec's default type, `message`).
    pub event: Option<String>,
    /// The `data` lines joined by `\n`.
    pub data: String,
    /// The `id` field of this event, when it had one (an id containing NUL is ignored, as the
    /// spec says).
    pub id: Option<String>,
    /// The `retry` field, in milliseconds, when it had a valid one.
    pub retry: Option<u64>,
    /// The event had at least one `data` line. A browser drops an event without one (it only
    /// sets the last event id or the retry): such events are yielded anyway, for the transport
    /// checks, with this false.
    pub has_data: bool,
}

impl SseEvent {
    /// The event's type, `message` when none was given.
    pub fn kind(&self) -> &str {
        self.event.as_deref().unwrap_or("message")
    }

    /// An event of type `message` (none given) carrying `data`.
    pub fn message(data: impl Into<String>) -> SseEvent {
        SseEvent { data: data.into(), has_data: true, ..SseEvent::default() }
    }
}

/// What the decoder yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseItem {
    /// A complete event (terminated by an empty line).
    Event(SseEvent),
    /// An event grew past the maximum size; what followed of it, up to its end, was skipped.
    /// `excerpt` is the beginning of its data.
    TooLong { limit: usize, excerpt: String },
}

/// Decodes a `text/event-stream` body.
#[derive(Debug)]
pub struct SseDecoder {
    max: usize,
    /// The line in progress.
    line: Vec<u8>,
    /// The last byte seen was a CR ending a line: an LF right after it belongs to that ending.
    after_cr: bool,
    /// Nothing has been read yet (a BOM may come).
    at_start: bool,
    /// The event in progress.
    event: SseEvent,
    /// Bytes the event in progress holds.
    size: usize,
    /// Inside an event that crossed the limit: skipping to its end.
    skipping: bool,
    /// Events dispatched so far.
    count: u64,
    /// The first bytes of the stream, while a BOM may be among them.
    head: Vec<u8>,
    /// While skipping: the line in progress had bytes (it is not the empty line ending the event).
    skipped_line: bool,
    /// The start of the oversized event being skipped.
    excerpt: String,
}

impl SseDecoder {
    /// A decoder whose events hold at most `max_event_bytes` (fields and data together).
    pub fn new(max_event_bytes: usize) -> SseDecoder {
        SseDecoder {
            max: max_event_bytes,
            line: Vec::new(),
            after_cr: false,
            at_start: true,
            event: SseEvent::default(),
            size: 0,
            skipping: false,
            count: 0,
            head: Vec::new(),
            skipped_line: false,
            excerpt: String::new(),
        }
    }

    /// Bytes held for the line in progress (never more than the maximum event size), and, at the
    /// very start, the (at most two) bytes of a byte order mark still being read.
    pub fn buffered(&self) -> usize {
        self.line.len() + self.head.len()
    }

    /// How many events (and oversized events) were yielded so far.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Feeds a chunk; every event it completes is appended to `out`.
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<SseItem>) {
        if self.at_start {
            // A BOM is looked for only at the very start, and may itself arrive split.
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            let take = (3 - self.head.len()).min(bytes.len());
            self.head.extend_from_slice(&bytes[..take]);
            bytes = &bytes[take..];
            if self.head.len() < 3 && BOM.starts_with(&self.head) {
                return;
            }
            self.at_start = false;
            let head = std::mem::take(&mut self.head);
            if head != BOM {
                self.feed(&head, out);
            }
        }
        self.feed(bytes, out);
    }

    fn feed(&mut self, mut bytes: &[u8], out: &mut Vec<SseItem>) {
        while !bytes.is_empty() {
            if self.after_cr && bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
            self.after_cr = false;
            let Some(at) = memchr::memchr2(b'\n', b'\r', bytes) else {
                self.take(bytes);
                return;
            };
            self.take(&bytes[..at]);
            self.after_cr = bytes[at] == b'\r';
            bytes = &bytes[at + 1..];
            self.end_line(out);
        }
    }

    /// The stream ended: an event not terminated by an empty line is dropped, as the spec says.
    /// Returns whether anything was pending (a truncated event).
    pub fn finish(&mut self) -> bool {
        let pending = !self.line.is_empty()
            || !self.head.is_empty()
            || self.size > 0
            || self.skipping
            || self.event != SseEvent::default();
        self.line.clear();
        self.head.clear();
        self.event = SseEvent::default();
        self.size = 0;
        self.skipping = false;
        pending
    }

    /// Decodes a whole body.
    pub fn decode_all(max_event_bytes: usize, bytes: &[u8]) -> Vec<SseItem> {
        let mut decoder = SseDecoder::new(max_event_bytes);
        let mut out = Vec::new();
        decoder.push(bytes, &mut out);
        out
    }

    /// Part of a line, kept unless the event is being skipped or crosses the limit now.
    fn take(&mut self, part: &[u8]) {
        if part.is_empty() {
            return;
        }
        if self.skipping {
            self.skipped_line = true;
            return;
        }
        self.line.extend_from_slice(part);
        if self.size + self.line.len() > self.max {
            // Keep the start of the oversized event for the report, then nothing more of it. The
            // line is cut where it crossed the limit, so that the excerpt does not depend on how
            // much of it the last chunk happened to bring.
            self.line.truncate(self.max.saturating_sub(self.size) + 1);
            let head = match self.event.data.is_empty() {
                true => {
                    let value = self.line.strip_prefix(b"data:").unwrap_or(&self.line);
                    excerpt(value.strip_prefix(b" ").unwrap_or(value))
                }
                false => excerpt(self.event.data.as_bytes()),
            };
            self.excerpt = head;
            self.skipping = true;
            self.skipped_line = true;
            self.line.clear();
            self.event = SseEvent::default();
        }
    }

    fn end_line(&mut self, out: &mut Vec<SseItem>) {
        if self.skipping {
            // Only an empty line ends the oversized event.
            if !self.skipped_line {
                out.push(SseItem::TooLong { limit: self.max, excerpt: std::mem::take(&mut self.excerpt) });
                self.count += 1;
                self.size = 0;
                self.skipping = false;
            }
            self.skipped_line = false;
            return;
        }
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            // An event of comments, unknown fields or invalid values only carries nothing: like a
            // browser, nothing is dispatched (a keep-alive comment is not an event).
            if self.event != SseEvent::default() {
                out.push(SseItem::Event(std::mem::take(&mut self.event)));
                self.count += 1;
            }
            self.size = 0;
            return;
        }
        self.size += line.len() + 1;
        if line[0] == b':' {
            return;
        }
        let (field, value) = match memchr::memchr(b':', &line) {
            Some(at) => {
                let value = &line[at + 1..];
                (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (&line[..], &b""[..]),
        };
        let value = String::from_utf8_lossy(value);
        match field {
            b"data" => {
                if self.event.has_data {
                    self.event.data.push('\n');
                }
                self.event.data.push_str(&value);
                self.event.has_data = true;
            }
            b"event" => self.event.event = Some(value.into_owned()),
            b"id" if !value.contains('\0') => self.event.id = Some(value.into_owned()),
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.event.retry = value.parse().ok();
            }
            _ => {}
        }
        // The line was taken to be read: its buffer is kept for the next one.
        self.line = line;
        self.line.clear();
    }
}

/// How much of an oversized event a report shows.
const EXCERPT_BYTES: usize = 120;

fn excerpt(bytes: &[u8]) -> String {
    let head = &bytes[..bytes.len().min(EXCERPT_BYTES)];
    let mut s = String::from_utf8_lossy(head).into_owned();
    if bytes.len() > EXCERPT_BYTES {
        s.push('…');
    }
    s
}

/// The bytes of one event: `id`, `event`, `retry`, then one `data` line per line of its data,
/// and the empty line. An event without data (`has_data` false) gets no `data` line.
pub fn encode(event: &SseEvent) -> Vec<u8> {
    let mut out = String::new();
    if let Some(id) = &event.id {
        out.push_str(&format!("id: {}\n", single_line(id)));
    }
    if let Some(kind) = &event.event {
        out.push_str(&format!("event: {}\n", single_line(kind)));
    }
    if let Some(retry) = event.retry {
        out.push_str(&format!("retry: {retry}\n"));
    }
    if event.has_data {
        for line in event.data.split('\n') {
            out.push_str("data: ");
            out.push_str(line.strip_suffix('\r').unwrap_or(line));
            out.push('\n');
        }
    }
    out.push('\n');
    out.into_bytes()
}

/// A field value that cannot end its line early.
fn single_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn events(bytes: &[u8]) -> Vec<SseItem> {
        SseDecoder::decode_all(1 << 20, bytes)
    }

    fn event(data: &str) -> SseItem {
        SseItem::Event(SseEvent::message(data))
    }

    #[test]
    fn fields_comments_and_line_endings() {
        let body = b"\xEF\xBB\xBF: a comment\nevent: message\r\nid: 7\rdata: {\"a\":1}\n\ndata\n\n";
        let got = events(body);
        assert_eq!(
            got,
            vec![
                SseItem::Event(SseEvent {
                    event: Some("message".into()),
                    data: "{\"a\":1}".into(),
                    id: Some("7".into()),
                    retry: None,
                    has_data: true,
                }),
                event(""),
            ]
        );
    }

    #[test]
    fn data_lines_join_and_one_space_is_dropped() {
        assert_eq!(events(b"data:a\ndata:  b\n\n"), vec![event("a\n b")]);
    }

    #[test]
    fn retry_needs_digits_and_events_without_data_are_kept() {
        let got = events(b"retry: 1500\nid: e1\n\nretry: x\n\n");
        assert_eq!(
            got,
            vec![
                SseItem::Event(SseEvent { id: Some("e1".into()), retry: Some(1500), ..SseEvent::default() }),
                // `retry: x` is ignored, and an event with nothing in it is no event.
            ]
        );
    }

    #[test]
    fn comments_and_unknown_fields_alone_make_no_event() {
        assert_eq!(events(b": keep-alive\n\nfoo: bar\n\n: again\ndata: x\n\n"), vec![event("x")]);
    }

    #[test]
    fn a_truncated_event_is_dropped_at_the_end() {
        let mut d = SseDecoder::new(1 << 20);
        let mut out = Vec::new();
        d.push(b"data: x\n", &mut out);
        assert!(out.is_empty());
        assert!(d.finish());
        assert!(!d.finish());
    }

    #[test]
    fn an_oversized_event_is_reported_once_and_skipped() {
        let mut body = b"data: ".to_vec();
        body.extend(std::iter::repeat_n(b'x', 100));
        body.extend(b"\ndata: more\n\ndata: next\n\n");
        let got = SseDecoder::decode_all(50, &body);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(matches!(&got[0], SseItem::TooLong { limit: 50, excerpt } if excerpt.starts_with("xxx")));
        assert_eq!(got[1], event("next"));
    }

    #[test]
    fn encode_round_trips() {
        let e = SseEvent {
            event: Some("endpoint".into()),
            data: "/messages?sessionId=1\nsecond".into(),
            id: Some("s1-4".into()),
            retry: Some(10),
            has_data: true,
        };
        assert_eq!(events(&encode(&e)), vec![SseItem::Event(e)]);
    }

    fn arb_event() -> impl Strategy<Value = SseEvent> {
        let text = "[^\r\n\0]{0,20}";
        (
            proptest::option::of("[a-z]{1,8}"),
            proptest::collection::vec(text, 0..4),
            proptest::option::of("[a-zA-Z0-9-]{1,10}"),
            proptest::option::of(0u64..100_000),
        )
            .prop_map(|(event, data, id, retry)| SseEvent {
                event,
                has_data: !data.is_empty(),
                data: data.join("\n"),
                id,
                retry,
            })
            .prop_filter("an event must have at least one field", |e| {
                e.has_data || e.event.is_some() || e.id.is_some() || e.retry.is_some()
            })
    }

    proptest! {
        /// Chunking never changes what is decoded, and encoding round-trips.
        #[test]
        fn chunks_decode_like_the_whole(evs in proptest::collection::vec(arb_event(), 0..6),
                                        cuts in proptest::collection::vec(0usize..400, 0..8)) {
            let body: Vec<u8> = evs.iter().flat_map(encode).collect();
            let whole = SseDecoder::decode_all(1 << 20, &body);
            let want: Vec<SseItem> = evs.iter().cloned().map(SseItem::Event).collect();
            prop_assert_eq!(&whole, &want);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(body.len())).collect();
            cuts.sort_unstable();
            let mut d = SseDecoder::new(1 << 20);
            let mut got = Vec::new();
            let mut from = 0;
            for c in cuts.into_iter().chain([body.len()]) {
                d.push(&body[from..c], &mut got);
                from = c;
            }
            prop_assert_eq!(got, whole);
        }

        /// Any bytes, in any chunks: no panic, and the limit holds.
        #[test]
        fn arbitrary_bytes_are_bounded(body in proptest::collection::vec(any::<u8>(), 0..600),
                                       at in 0usize..600) {
            let at = at.min(body.len());
            let mut d = SseDecoder::new(64);
            let mut got = Vec::new();
            d.push(&body[..at], &mut got);
            d.push(&body[at..], &mut got);
            prop_assert_eq!(got, SseDecoder::decode_all(64, &body));
            for item in SseDecoder::decode_all(64, &body) {
                if let SseItem::Event(e) = item {
                    prop_assert!(e.data.len() <= 64 * 3, "{}", e.data.len());
                }
            }
        }
    }
}
