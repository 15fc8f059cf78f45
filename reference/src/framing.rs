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

#[derive(Debug, Clone, PartialEq)]
pub enum FrameContent {
    /// A line holding one JSON value. `crlf` is set when the line ended in `\r\n`: the spec does
    /// not say whether CR is allowed before the newline, so it is recorded, not judged here.
    Json { value: Value, crlf: bool },
    /// An empty (or whitespace-only) line.
    Blank,
    /// A line that is not one JSON value.
    Invalid(FrameError),
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
    TooLong { limit: usize, excerpt: String },
    /// The line is not valid UTF-8 (`basic/transports.mdx`: messages MUST be UTF-8 encoded).
    #[error("line is not valid UTF-8 (first bad byte at offset {offset}): {excerpt}")]
    InvalidUtf8 { offset: usize, excerpt: String },
    /// The line is UTF-8 but not a single JSON value.
    #[error("line is not JSON ({reason}): {excerpt}")]
    NotJson { reason: String, excerpt: String },
    /// The stream ended in the middle of a line (no final newline).
    #[error("stream ended inside a line of {len} bytes with no newline: {excerpt}")]
    Unterminated { len: usize, excerpt: String },
}

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
    pub fn push(&mut self, mut bytes: &[u8], out: &mut Vec<Frame>) {
        while !bytes.is_empty() {
            let newline = memchr::memchr(b'\n', bytes);
            let (chunk, rest, ends_line) = match newline {
                Some(i) => (&bytes[..i], &bytes[i + 1..], true),
                None => (bytes, &bytes[bytes.len()..], false),
            };
            if ends_line && !self.skipping && self.buf.is_empty() && chunk.len() <= self.max {
                // A whole line inside one chunk (the usual case): decoded where it lies, without
                // the copy into `buf` that a line split across chunks needs.
                self.line += 1;
                out.push(Frame { line: self.line, content: decode_line(chunk) });
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
                    let excerpt = excerpt(&self.buf);
                    self.buf.clear();
                    out.push(Frame {
                        line: self.line + 1,
                        content: FrameContent::Invalid(FrameError::TooLong { limit: self.max, excerpt }),
                    });
                } else {
                    self.buf.extend_from_slice(chunk);
                }
            }
            if ends_line {
                self.line += 1;
                if self.skipping {
                    self.skipping = false;
                } else {
                    let content = decode_line(&self.buf);
                    out.push(Frame { line: self.line, content });
                }
                self.buf.clear();
            }
            bytes = rest;
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
                excerpt: excerpt(&buf),
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

fn decode_line(raw: &[u8]) -> FrameContent {
    let (line, crlf) = match raw.strip_suffix(b"\r") {
        Some(l) => (l, true),
        None => (raw, false),
    };
    let text = match std::str::from_utf8(line) {
        Ok(t) => t,
        Err(e) => {
            return FrameContent::Invalid(FrameError::InvalidUtf8 {
                offset: e.valid_up_to(),
                excerpt: excerpt(line),
            })
        }
    };
    if text.trim().is_empty() {
        return FrameContent::Blank;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => FrameContent::Json { value, crlf },
        Err(e) => {
            let mut reason = e.to_string();
            if text.starts_with('\u{feff}') {
                reason.push_str("; the line starts with a UTF-8 byte order mark");
            }
            FrameContent::Invalid(FrameError::NotJson { reason, excerpt: excerpt(line) })
        }
    }
}

/// The first bytes of a line, printable, for error messages.
const EXCERPT_BYTES: usize = 80;

///
/// The text is what `String::from_utf8_lossy` and `str::escape_debug` make of it, quoted. A
/// hostile peer can fill every line with garbage, so the common cases (ASCII, and bytes that are
/// not UTF-8) take a fast path: `escape_debug`'s Unicode tables cost more than all the rest of
/// decoding such a line.
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
                FrameContent::Json { value, crlf } => format!("json {value} {crlf}"),
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
        let excerpt = format!("\"{}\"", "x".repeat(9));
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
        assert_eq!(frames(1024, &[&bytes])[0].content, FrameContent::Json { value: v, crlf: false });
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
        fn encode_decode_round_trip(values in proptest::collection::vec(crate::wire::tests_support::arb_json(), 0..6)) {
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

/// Properties the fuzz targets check, callable from `cargo test` too.
pub mod fuzz {
    use super::*;

    /// Splits `data` into chunks (sizes taken from its first bytes), decodes chunk by chunk and
    /// in one piece, and panics if the frames differ or the buffer outgrows the limit.
    pub fn split_invariance(data: &[u8]) {
        let Some((&max_seed, rest)) = data.split_first() else { return };
        let Some((&cut_seed, bytes)) = rest.split_first() else { return };
        let max = usize::from(max_seed % 64) + 1;
        let whole = LineDecoder::decode_all(max, bytes);
        let mut decoder = LineDecoder::new(max);
        let mut frames = Vec::new();
        let step = usize::from(cut_seed % 17) + 1;
        for (i, chunk) in bytes.chunks(step).enumerate() {
            // Vary the chunk boundaries: every other chunk is split once more.
            let (a, b) = chunk.split_at(if i % 2 == 0 { chunk.len() / 2 } else { chunk.len() });
            decoder.push(a, &mut frames);
            decoder.push(b, &mut frames);
            assert!(decoder.buffered() <= max, "buffered {} > limit {max}", decoder.buffered());
        }
        frames.extend(decoder.finish());
        assert_eq!(frames, whole);
    }
}
