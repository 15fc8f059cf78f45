//! The stdio framing codec: one JSON-RPC message per line (`basic/transports.mdx`: "Messages
//! are delimited by newlines, and MUST NOT contain embedded newlines").
//!
//! [`LineDecoder`] is a sans-IO state machine: feed it bytes in chunks of any size and it yields
//! the same [`Frame`]s as if it had been fed everything at once. It never holds more than the
//! configured maximum message size: a longer line is reported once, the moment it crosses the
//! limit, and the rest of it is skipped up to the next newline. Lines that are not UTF-8 or not
//! JSON become error frames; decoding carries on with the next line.

use serde_json::Value;

/// The default maximum size of one message (the bytes of one line, without its newline).
pub const DEFAULT_MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// One line of a newline-delimited stream, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// 1-based line number in the stream.
    pub line: u64,
    pub content: FrameContent,
}

impl Frame {
    /// About how many bytes of memory the frame holds: its strings, and a word or so per value
    /// and member. For bounding what may wait unread by bytes as well as by count, so a stream
    /// of 4 MiB messages is held back as a stream of small ones is.
    pub fn weight(&self) -> usize {
        const NODE: usize = 32;
        match &self.content {
            FrameContent::Json { value, .. } => {
                // Iterative: a value may nest deeper than the stack would like to recurse.
                let mut stack = vec![value];
                let mut bytes = 0;
                while let Some(v) = stack.pop() {
                    bytes += NODE;
                    match v {
                        Value::String(s) => bytes += s.len(),
                        Value::Array(items) => stack.extend(items),
                        Value::Object(members) => {
                            for (key, member) in members {
                                bytes += key.len() + NODE;
                                stack.push(member);
                            }
                        }
                        Value::Null | Value::Bool(_) | Value::Number(_) => {}
                    }
                }
                bytes
            }
            FrameContent::Blank => NODE,
            // An excerpt and a few numbers: bounded, and not formatted to be weighed (a flood
            // of garbage lines is not to cost a formatting each).
            FrameContent::Invalid(_) => NODE + EXCERPT_BYTES + 1,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum FrameContent {
    /// A line holding one JSON value. `crlf` is set when the line ended in `\r\n`: the spec does
    /// not say whether CR is allowed before the newline, so it is recorded, not judged here.
    /// `lines` is how many lines the value spans: 1 from the line decoder; more for a message
    /// split over lines (pretty-printed), which [`crate::reassembly`] made whole again.
    Json { value: Value, crlf: bool, lines: u64 },
    /// An empty (or whitespace-only) line.
    Blank,
    /// A line that is not one JSON value.
    Invalid(FrameError),
}

/// One line as [`LineDecoder::cut`] hands it over, before decoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawLine<'a> {
    /// A line within the limit, without its `\n`.
    Line(&'a [u8]),
    /// A line longer than the limit: its first `limit + 1` bytes, or one more than an
    /// [`Excerpt`] shows if that is fewer. The rest of the line is skipped.
    TooLong(&'a [u8]),
}

impl RawLine<'_> {
    /// The frame's content, for a decoder whose maximum message size is `limit`.
    pub fn decode(self, limit: usize) -> FrameContent {
        match self {
            RawLine::Line(bytes) => decode_line(bytes),
            RawLine::TooLong(head) => {
                FrameContent::Invalid(FrameError::TooLong { limit, excerpt: Excerpt::of(head) })
            }
        }
    }
}

/// Why a line is not a message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FrameError {
    /// The line grew past the maximum message size; the rest of it is skipped. `excerpt` is
    /// its beginning, enough to tell a big message from garbage.
    #[error(
        "line exceeds the maximum message size of {limit} bytes (skipped to the next newline): {excerpt}"
    )]
    TooLong { limit: usize, excerpt: Excerpt },
    /// The line is not valid UTF-8 (`basic/transports.mdx`: messages MUST be UTF-8 encoded).
    #[error("line is not valid UTF-8 (first bad byte at offset {offset}): {excerpt}")]
    InvalidUtf8 { offset: usize, excerpt: Excerpt },
    /// The line is UTF-8 but not a single JSON value.
    #[error("line is not JSON ({reason}): {excerpt}")]
    NotJson { reason: JsonError, excerpt: Excerpt },
    /// The stream ended in the middle of a line (no final newline).
    #[error("stream ended inside a line of {len} bytes with no newline: {excerpt}")]
    Unterminated { len: usize, excerpt: Excerpt },
}

/// The first bytes of a line that is not a message, kept as they came and turned into text
/// (lossy UTF-8, debug-escaped, quoted, `…` when the line goes on) only when shown. A hostile
/// peer can fill every line with garbage: the decoder does not format what nobody reads.
#[derive(Clone, PartialEq, Eq)]
pub struct Excerpt {
    /// At most [`EXCERPT_BYTES`] + 1 bytes: the one past what is shown tells that the line
    /// goes on.
    head: Box<[u8]>,
}

impl Excerpt {
    /// The excerpt of a line that starts with `bytes`.
    pub fn of(bytes: &[u8]) -> Excerpt {
        Excerpt { head: bytes[..bytes.len().min(EXCERPT_BYTES + 1)].into() }
    }

    /// Whether the line, after JSON whitespace, opens an object or an array: the start of a
    /// message, as opposed to other output.
    pub fn opens_a_value(&self) -> bool {
        self.head
            .iter()
            .find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            .is_some_and(|b| matches!(b, b'{' | b'['))
    }
}

impl std::fmt::Display for Excerpt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&excerpt(&self.head))
    }
}

impl std::fmt::Debug for Excerpt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}

/// Why a line is not JSON: serde_json's error, kept as it came and rendered only when shown.
#[derive(Debug, Clone)]
pub struct JsonError {
    error: std::sync::Arc<serde_json::Error>,
    /// The line starts with a UTF-8 byte order mark, which JSON does not allow.
    bom: bool,
}

impl JsonError {
    /// The line ends inside a value: typically one message pretty-printed over several lines.
    pub fn is_eof(&self) -> bool {
        self.error.is_eof()
    }
}

impl From<serde_json::Error> for JsonError {
    fn from(error: serde_json::Error) -> JsonError {
        JsonError { error: std::sync::Arc::new(error), bom: false }
    }
}

/// Equal when they read the same. Comparing renders both, which is fine where frames are
/// compared: in tests (the fuzz targets compare the bytes of lines instead).
impl PartialEq for JsonError {
    fn eq(&self, other: &JsonError) -> bool {
        self.bom == other.bom && self.error.to_string() == other.error.to_string()
    }
}

impl Eq for JsonError {}

impl std::fmt::Display for JsonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.error)?;
        if self.bom {
            f.write_str("; the line starts with a UTF-8 byte order mark")?;
        }
        Ok(())
    }
}

/// The most a [`LineDecoder`]'s buffer keeps between lines: lines split across reads of up to
/// this size reuse it, longer ones allocate their own.
const KEPT_BUFFER_BYTES: usize = 64 * 1024;

/// Decodes a newline-delimited byte stream into frames.
#[derive(Debug)]
pub struct LineDecoder {
    buf: Vec<u8>,
    max: usize,
    /// Inside a line that crossed `max`: skipping to its end.
    skipping: bool,
    line: u64,
}

impl Default for LineDecoder {
    fn default() -> Self {
        LineDecoder::new(DEFAULT_MAX_MESSAGE_BYTES)
    }
}

impl LineDecoder {
    /// A decoder that accepts lines of at most `max_message_bytes` bytes.
    pub fn new(max_message_bytes: usize) -> Self {
        LineDecoder { buf: Vec::new(), max: max_message_bytes, skipping: false, line: 0 }
    }

    /// Bytes buffered for the line in progress (never more than the maximum message size).
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    /// Feeds a chunk; complete lines are appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        let limit = self.max;
        self.cut(bytes, |line, raw| out.push(Frame { line, content: raw.decode(limit) }));
    }

    /// Feeds a chunk and hands each line it completes to `each`, with its 1-based number, as
    /// bytes: the state machine of [`LineDecoder::push`] without the decoding, which is a pure
    /// function of the line ([`RawLine::decode`]). A line that crosses the limit is handed over
    /// the moment it does.
    pub fn cut(&mut self, mut bytes: &[u8], mut each: impl FnMut(u64, RawLine<'_>)) {
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            let (chunk, rest, ends_line) = match newline {
                Some(i) => (&bytes[..i], &bytes[i + 1..], true),
                None => (bytes, &bytes[bytes.len()..], false),
            };
            if ends_line && !self.skipping && self.buf.is_empty() && chunk.len() <= self.max {
                // A whole line inside one chunk (the usual case): handed over where it lies,
                // without the copy into `buf` that a line split across chunks needs.
                self.line += 1;
                each(self.line, RawLine::Line(chunk));
                bytes = rest;
                continue;
            }
            if !self.skipping {
                if self.buf.len() + chunk.len() > self.max {
                    self.skipping = true;
                    // Exactly the first `max + 1` bytes (at most, one more than an excerpt
                    // shows) are known however the line was chunked: that keeps the excerpt
                    // independent of chunking.
                    let known = (self.max + 1).min(EXCERPT_BYTES + 1);
                    self.buf.truncate(known);
                    let head = known.saturating_sub(self.buf.len()).min(chunk.len());
                    self.buf.extend_from_slice(&chunk[..head]);
                    each(self.line + 1, RawLine::TooLong(&self.buf));
                    self.release();
                } else {
                    self.make_room(chunk.len());
                    self.buf.extend_from_slice(chunk);
                }
            }
            if ends_line {
                self.line += 1;
                if self.skipping {
                    self.skipping = false;
                } else {
                    each(self.line, RawLine::Line(&self.buf));
                }
                self.release();
            }
            bytes = rest;
        }
    }

    /// Grows the buffer for `more` bytes by an eighth beyond what it needs, not by doubling as
    /// a `Vec` does: a line of a little over 4 MiB would otherwise be read into 8 MiB, in each
    /// of the readers a run has at once (issue #31). The copies stay few: growing by an eighth,
    /// a 4 MiB line is read in 64 KiB chunks with about 35 of them, and large blocks are
    /// mostly moved without copying (`mremap`). Never beyond the limit: no longer line is kept.
    fn make_room(&mut self, more: usize) {
        let needed = self.buf.len() + more;
        if needed > self.buf.capacity() {
            let roomy = needed.saturating_add(needed / 8).min(self.max.max(needed));
            self.buf.reserve_exact(roomy - self.buf.len());
        }
    }

    /// Empties the buffer after a line. What a long line made it grow to is given back: a
    /// session that once read a 4 MiB result would otherwise hold twice that for as long as
    /// its process lives, in each of the many a run keeps.
    fn release(&mut self) {
        if self.buf.capacity() > KEPT_BUFFER_BYTES {
            self.buf = Vec::new();
        } else {
            self.buf.clear();
        }
    }

    /// Ends the stream: a partial last line becomes an [`FrameError::Unterminated`] frame.
    pub fn finish(&mut self) -> Option<Frame> {
        let skipping = std::mem::take(&mut self.skipping);
        if self.buf.is_empty() || skipping {
            self.buf.clear();
            return None;
        }
        self.line += 1;
        let buf = std::mem::take(&mut self.buf);
        Some(Frame {
            line: self.line,
            content: FrameContent::Invalid(FrameError::Unterminated {
                len: buf.len(),
                excerpt: Excerpt::of(&buf),
            }),
        })
    }

    /// Decodes a whole byte string at once (the reference for split invariance).
    pub fn decode_all(max_message_bytes: usize, bytes: &[u8]) -> Vec<Frame> {
        let mut decoder = LineDecoder::new(max_message_bytes);
        let mut out = Vec::new();
        decoder.push(bytes, &mut out);
        out.extend(decoder.finish());
        out
    }
}

/// Decodes one line, given without its `\n` (a trailing `\r` is noted in [`FrameContent::Json`]).
pub fn decode_line(raw: &[u8]) -> FrameContent {
    let (line, crlf) = match raw.strip_suffix(b"\r") {
        Some(l) => (l, true),
        None => (raw, false),
    };
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return FrameContent::Invalid(FrameError::InvalidUtf8 {
                offset: e.valid_up_to(),
                excerpt: Excerpt::of(line),
            })
        }
    };
    if text.trim().is_empty() {
        return FrameContent::Blank;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => FrameContent::Json { value, crlf, lines: 1 },
        // An unpaired UTF-16 surrogate escape (`"\ud800"`) is JSON by its grammar (RFC 8259,
        // section 8.2, calls its meaning unpredictable), which serde_json refuses: it is read
        // as U+FFFD, as lenient decoders read it, so a peer that echoes one still sends a message.
        Err(e) => match without_lone_surrogates(text).and_then(|t| serde_json::from_str::<Value>(&t).ok()) {
            Some(value) => FrameContent::Json { value, crlf, lines: 1 },
            None => {
                let reason = JsonError { bom: text.starts_with('\u{feff}'), ..e.into() };
                FrameContent::Invalid(FrameError::NotJson { reason, excerpt: Excerpt::of(line) })
            }
        },
    }
}

/// `text` with every `\uXXXX` escape of an unpaired surrogate replaced by `\ufffd`, when it
/// has one.
fn without_lone_surrogates(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let escape_at = |i: usize| -> Option<u16> {
        let hex = bytes.get(i..i + 6)?;
        if &hex[..2] != b"\\u" {
            return None;
        }
        u16::from_str_radix(std::str::from_utf8(&hex[2..]).ok()?, 16).ok()
    };
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = escape_at(i) else {
            // Another escape (`\\`, `\"`, …): skip the character it escapes.
            i += 2;
            continue;
        };
        let paired = (0xD800..0xDC00).contains(&unit)
            && escape_at(i + 6).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if paired {
            i += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            let out = out.get_or_insert_with(|| String::with_capacity(text.len()));
            out.push_str(&text[copied..i]);
            out.push_str("\\ufffd");
            i += 6;
            copied = i;
        } else {
            i += 6;
        }
    }
    out.map(|mut out| {
        out.push_str(&text[copied..]);
        out
    })
}

#[cfg(test)]
mod surrogate_tests {
    use super::*;

    #[test]
    fn unpaired_surrogates_read_as_the_replacement_character() {
        let read = |line: &str| match decode_line(line.as_bytes()) {
            FrameContent::Json { value, .. } => value,
            other => panic!("{line}: {other:?}"),
        };
        assert_eq!(read(r#"{"id":"\udc00x"}"#)["id"], "\u{fffd}x");
        assert_eq!(read(r#"{"m":"a\ud800"}"#)["m"], "a\u{fffd}");
        assert_eq!(read(r#"{"m":"\ud800\n"}"#)["m"], "\u{fffd}\n");
        // A pair stays a pair; an escaped backslash is no escape.
        assert_eq!(read(r#"{"m":"\ud83e\udd80"}"#)["m"], "🦀");
        assert_eq!(read(r#"{"m":"\\ud800"}"#)["m"], "\\ud800");
        assert!(matches!(decode_line(br#"{"m":"\ud800"#), FrameContent::Invalid(_)));
    }
}

/// How many of a bad line's first bytes its error shows.
pub const EXCERPT_BYTES: usize = 80;

/// The text of an [`Excerpt`]: what `String::from_utf8_lossy` and `str::escape_debug` make of
/// the first bytes, quoted. The common cases (ASCII, and bytes that are not UTF-8) take a fast
/// path: `escape_debug`'s Unicode tables cost more than all the rest of decoding such a line.
fn excerpt(bytes: &[u8]) -> String {
    const MAX: usize = EXCERPT_BYTES;
    let head = &bytes[..bytes.len().min(MAX)];
    let mut s = String::with_capacity(head.len() + 8);
    s.push('"');
    for chunk in head.utf8_chunks() {
        if !chunk.valid().is_ascii() {
            // Other scripts: escape_debug treats a grapheme extender at the start of the
            // whole text differently, so the text goes through it in one piece.
            return excerpt_of_text(bytes);
        }
        // Runs of printable ASCII go in whole; quotes, backslashes and controls are escaped.
        let text = chunk.valid();
        let mut plain = 0;
        for (i, b) in text.bytes().enumerate() {
            if !matches!(b, b' '..=b'~') || matches!(b, b'"' | b'\'' | b'\\') {
                s.push_str(&text[plain..i]);
                s.extend(char::from(b).escape_debug());
                plain = i + 1;
            }
        }
        s.push_str(&text[plain..]);
        if !chunk.invalid().is_empty() {
            s.push(char::REPLACEMENT_CHARACTER);
        }
    }
    if bytes.len() > MAX {
        s.push('…');
    }
    s.push('"');
    s
}

/// [`excerpt`] of any text: the lossy UTF-8 of the first bytes, escaped for debugging, quoted.
fn excerpt_of_text(bytes: &[u8]) -> String {
    const MAX: usize = EXCERPT_BYTES;
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX)]);
    let mut s: String = text.escape_debug().collect();
    if bytes.len() > MAX {
        s.push('…');
    }
    format!("\"{s}\"")
}

/// Encodes one message as a line: compact JSON (which never holds a raw newline) plus `\n`.
pub fn encode(value: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec(value).unwrap_or_default();
    out.push(b'\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// A line just over 4 MiB, read in 64 KiB chunks, is gathered in a buffer an eighth larger
    /// than what it holds at most: doubling would have made it 8 MiB.
    #[test]
    fn a_long_line_is_gathered_without_doubling_its_buffer() {
        let mut d = LineDecoder::new(8 << 20);
        let mut out = Vec::new();
        let text = format!("{{\"text\":\"{}\"}}", "x".repeat(4 << 20));
        let mut most = 0;
        for chunk in text.as_bytes().chunks(64 * 1024) {
            d.push(chunk, &mut out);
            assert!(d.buf.capacity() <= (d.buf.len() + d.buf.len() / 8).max(64 * 1024 * 9 / 8));
            most = most.max(d.buf.capacity());
        }
        assert!(most >= text.len() && most <= text.len() + text.len() / 8, "{most} bytes for {}", text.len());
        d.push(b"\n", &mut out);
        assert!(matches!(&out[..], [Frame { content: FrameContent::Json { .. }, .. }]));
    }

    /// A long line split across reads is gathered in the buffer, which gives the memory back
    /// once the line is handed over; short split lines keep reusing it.
    #[test]
    fn a_long_line_leaves_no_big_buffer_behind() {
        let mut d = LineDecoder::new(8 << 20);
        let mut out = Vec::new();
        let text = format!("{{\"text\":\"{}\"}}", "x".repeat(4 << 20));
        for chunk in text.as_bytes().chunks(64 * 1024) {
            d.push(chunk, &mut out);
        }
        assert!(d.buf.capacity() >= 4 << 20, "the line in progress is buffered");
        d.push(b"\n{\"a\"", &mut out);
        assert_eq!(out.len(), 1, "{out:?}");
        assert!(d.buf.capacity() <= KEPT_BUFFER_BYTES, "{} bytes kept", d.buf.capacity());
        d.push(b":1}\n", &mut out);
        assert_eq!(out[1].content, FrameContent::Json { value: json!({"a": 1}), crlf: false, lines: 1 });
        assert!(d.buf.capacity() > 0 && d.buf.capacity() <= KEPT_BUFFER_BYTES);
    }

    /// A frame weighs about the memory it holds: a long string its length, nested members a
    /// little each, a garbage line no more than its excerpt however long the line.
    #[test]
    fn a_frame_weighs_what_it_holds() {
        let big = Frame {
            line: 1,
            content: FrameContent::Json { value: json!({"r": "x".repeat(1 << 20)}), crlf: false, lines: 1 },
        };
        assert!((1 << 20..(1 << 20) + 256).contains(&big.weight()), "{}", big.weight());
        let nested = json!([[[[{"a": [1, 2, 3]}]]]]);
        let small = Frame { line: 1, content: FrameContent::Json { value: nested, crlf: false, lines: 1 } };
        assert!((100..1000).contains(&small.weight()), "{}", small.weight());
        let garbage = frames(1 << 20, &[&[b'x'; 100_000], b"\n"]);
        assert!(garbage[0].weight() <= 32 + EXCERPT_BYTES + 1, "{}", garbage[0].weight());
    }

    fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut d = LineDecoder::new(max);
        let mut out = Vec::new();
        for c in chunks {
            d.push(c, &mut out);
        }
        out.extend(d.finish());
        out
    }

    #[test]
    fn decodes_lines_and_reports_bad_ones_without_stopping() {
        let out = frames(1024, &[b"{\"a\":1}\nhello\n\xff\xfe\n\n{\"b\":", b"2}\r\n"]);
        let kinds: Vec<_> = out
            .iter()
            .map(|f| match &f.content {
                FrameContent::Json { value, crlf, .. } => format!("json {value} {crlf}"),
                FrameContent::Blank => "blank".into(),
                FrameContent::Invalid(e) => format!("{e}"),
            })
            .collect();
        assert_eq!(kinds[0], "json {\"a\":1} false");
        assert!(kinds[1].starts_with("line is not JSON"), "{}", kinds[1]);
        assert!(kinds[2].starts_with("line is not valid UTF-8"), "{}", kinds[2]);
        assert_eq!(kinds[3], "blank");
        assert_eq!(kinds[4], "json {\"b\":2} true");
        assert_eq!(out.iter().map(|f| f.line).collect::<Vec<_>>(), [1, 2, 3, 4, 5]);
    }

    #[test]
    fn too_long_lines_are_reported_once_and_never_buffered() {
        let mut d = LineDecoder::new(8);
        let mut out = Vec::new();
        for _ in 0..1000 {
            d.push(b"xxxxxxxxxxxxxxxx", &mut out);
            assert!(d.buffered() <= 8);
        }
        d.push(b"xx\n{}\n", &mut out);
        assert_eq!(out.len(), 2);
        let excerpt = Excerpt::of(b"xxxxxxxxx");
        assert_eq!(excerpt.to_string(), "\"xxxxxxxxx\"");
        assert_eq!(out[0].content, FrameContent::Invalid(FrameError::TooLong { limit: 8, excerpt }));
        assert_eq!(out[1].line, 2);
        assert!(matches!(out[1].content, FrameContent::Json { .. }));
    }

    /// Regression (found by the split-invariance property): the excerpt of an over-long line
    /// once depended on where the chunk that crossed the limit ended.
    #[test]
    fn the_excerpt_of_a_long_line_does_not_depend_on_chunking() {
        let line = b"{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":{\"pad\":\"aaaaaaaaaaaaaaaa\"}}\n";
        let whole = frames(12, &[line]);
        let bytewise: Vec<&[u8]> = line.chunks(1).collect();
        assert_eq!(frames(12, &bytewise), whole);
        assert_eq!(frames(12, &[&line[..5], &line[5..]]), whole);
    }

    /// Errors keep the bytes and serde_json's error, and render them only when shown.
    #[test]
    fn errors_render_when_shown() {
        let long = [b"  [".as_slice(), &[b'a'; 100]].concat();
        let FrameContent::Invalid(FrameError::NotJson { reason, excerpt }) = decode_line(&long) else {
            panic!("{:?}", decode_line(&long))
        };
        assert!(excerpt.opens_a_value() && !reason.is_eof());
        assert_eq!(excerpt.to_string(), format!("\"  [{}…\"", "a".repeat(EXCERPT_BYTES - 3)));
        assert_eq!(reason.to_string(), "expected value at line 1 column 4");

        let FrameContent::Invalid(FrameError::NotJson { reason, excerpt }) = decode_line(b"{\"a\":\r") else {
            panic!()
        };
        assert!(reason.is_eof() && excerpt.opens_a_value());
        let FrameContent::Invalid(bom) = decode_line("\u{feff}{}".as_bytes()) else { panic!() };
        assert_eq!(
            bom.to_string(),
            "line is not JSON (expected value at line 1 column 1; the line starts with a UTF-8 byte \
             order mark): \"\\u{feff}{}\""
        );
        assert!(!Excerpt::of(b"x{").opens_a_value() && !Excerpt::of(b"").opens_a_value());
        assert_eq!(Excerpt::of("a\"\té".as_bytes()).to_string(), r#""a\"\té""#);
    }

    #[test]
    fn a_line_of_exactly_the_limit_passes() {
        let out = frames(4, &[b"1234\n12345\n"]);
        assert!(matches!(out[0].content, FrameContent::Json { .. }));
        assert!(matches!(out[1].content, FrameContent::Invalid(FrameError::TooLong { .. })));
    }

    #[test]
    fn an_unterminated_last_line_is_reported() {
        let out = frames(64, &[b"{}\n{\"x\":1}"]);
        assert!(matches!(out[1].content, FrameContent::Invalid(FrameError::Unterminated { len: 7, .. })));
    }

    #[test]
    fn encoding_never_embeds_a_newline() {
        let v = json!({"text": "two\nlines\r\n", "nested": {"a": [1, 2]}});
        let bytes = encode(&v);
        assert_eq!(bytes.iter().filter(|b| **b == b'\n').count(), 1);
        assert_eq!(
            frames(1024, &[&bytes])[0].content,
            FrameContent::Json { value: v, crlf: false, lines: 1 }
        );
    }

    proptest! {
        /// Any byte stream, cut anywhere, decodes to the same frames as in one piece.
        #[test]
        fn split_invariance(bytes in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'1'), Just(b'\r'), any::<u8>()], 0..400),
            cuts in proptest::collection::vec(0usize..400, 0..8),
            max in 1usize..64) {
            let whole = LineDecoder::decode_all(max, &bytes);
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
            cuts.sort_unstable();
            let mut pieces = Vec::new();
            let mut start = 0;
            for c in cuts { pieces.push(&bytes[start..c]); start = c; }
            pieces.push(&bytes[start..]);
            prop_assert_eq!(frames(max, &pieces), whole);
        }

        /// The fast excerpt is the lossy, debug-escaped text it stands for, byte for byte.
        #[test]
        fn excerpt_fast_path_matches_the_text(bytes in proptest::collection::vec(
                prop_oneof![Just(b'"'), Just(b'\''), Just(b'\\'), Just(0x7f), Just(0u8), Just(0xff),
                    Just(0xe9), Just(0xcc), Just(0x81), 0x20u8..0x7f, any::<u8>()], 0..120)) {
            prop_assert_eq!(excerpt(&bytes), excerpt_of_text(&bytes));
        }

        /// What `encode` writes, the decoder reads back unchanged.
        #[test]
        fn encode_decode_round_trip(values in proptest::collection::vec(crate::testing::arb_json(), 0..6)) {
            let mut bytes = Vec::new();
            for v in &values { bytes.extend(encode(v)); }
            let decoded: Vec<Value> = LineDecoder::decode_all(usize::MAX, &bytes).into_iter().map(|f| match f.content {
                FrameContent::Json { value, .. } => value,
                other => panic!("{other:?}"),
            }).collect();
            prop_assert_eq!(decoded, values);
        }
    }
}
