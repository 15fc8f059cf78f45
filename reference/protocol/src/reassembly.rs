//! Reassembly of messages split over several lines, above the stdio line decoder.
//!
//! The spec forbids it (`basic/transports.mdx`: messages "MUST NOT contain embedded newlines"),
//! but servers that pretty-print their JSON exist. Line by line, such a message is a run of
//! lines that are not JSON, and a peer judged so answers nothing: every scenario then waits out
//! its timeout. [`Reassembler`] wraps a [`LineDecoder`], leaves it as it is (its byte-exact
//! property is fuzzed), and looks at the lines it cuts: after a line that opens a JSON value and
//! ends inside it, it gathers the following lines until the value is complete and hands over
//! that one value, flagged with the number of lines it spans ([`FrameContent::Json`]'s
//! `lines`), so the violation is reported once and the message is judged as the message it is.
//!
//! Everything else passes through untouched. Gathering is bounded: the whole value may not be
//! longer than the maximum message size nor span more than [`MAX_LINES`] lines; when a bound is
//! crossed, the stream ends, or the lines do not make one value, the gathered lines are handed
//! over one by one, exactly as the line decoder alone would have decoded them. Finding where the
//! value ends costs one pass over its bytes ([`Nesting`]) and one parse at the end: a hostile
//! peer cannot make reassembly quadratic.

use crate::framing::{Frame, FrameContent, FrameError, LineDecoder, RawLine};

/// The most lines one reassembled message may span.
pub const MAX_LINES: usize = 100_000;

/// A [`LineDecoder`] that reassembles messages split over several lines. Same interface: feed
/// it bytes in chunks of any size, then [`Reassembler::finish`].
#[derive(Debug)]
pub struct Reassembler {
    decoder: LineDecoder,
    max: usize,
    max_lines: usize,
    pending: Option<Pending>,
}

/// Lines gathered for one value.
#[derive(Debug)]
struct Pending {
    /// The first line, as the decoder alone decodes it (handed over as is if reassembly fails).
    first: Frame,
    /// The gathered lines joined with `\n`, the first included.
    text: Vec<u8>,
    /// Where each line after the first starts and ends in `text`.
    rest: Vec<(usize, usize)>,
    nesting: Nesting,
}

impl Reassembler {
    /// A reassembler over a decoder with the maximum message size `max_message_bytes`, which
    /// also bounds a reassembled message.
    pub fn new(max_message_bytes: usize) -> Reassembler {
        Reassembler::with_max_lines(max_message_bytes, MAX_LINES)
    }

    /// Ditto, spanning at most `max_lines` lines.
    pub fn with_max_lines(max_message_bytes: usize, max_lines: usize) -> Reassembler {
        Reassembler {
            decoder: LineDecoder::new(max_message_bytes),
            max: max_message_bytes,
            max_lines: max_lines.max(1),
            pending: None,
        }
    }

    /// Bytes held for messages in progress (at most about twice the maximum message size).
    pub fn buffered(&self) -> usize {
        self.decoder.buffered() + self.pending.as_ref().map_or(0, |p| p.text.len())
    }

    /// Feeds a chunk; complete frames are appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<Frame>) {
        let Reassembler { decoder, max, max_lines, pending } = self;
        decoder.cut(bytes, |line, raw| take(pending, *max, *max_lines, line, raw, out));
    }

    /// Ends the stream: gathered lines that never made a value are handed over one by one,
    /// then the decoder's unterminated last line, if any.
    pub fn finish(&mut self, out: &mut Vec<Frame>) {
        if let Some(p) = self.pending.take() {
            give_up(p, out);
        }
        out.extend(self.decoder.finish());
    }

    /// Decodes a whole byte string at once.
    pub fn decode_all(max_message_bytes: usize, bytes: &[u8]) -> Vec<Frame> {
        let mut r = Reassembler::new(max_message_bytes);
        let mut out = Vec::new();
        r.push(bytes, &mut out);
        r.finish(&mut out);
        out
    }
}

/// One line from the decoder.
fn take(
    pending: &mut Option<Pending>,
    max: usize,
    max_lines: usize,
    line: u64,
    raw: RawLine<'_>,
    out: &mut Vec<Frame>,
) {
    let Some(p) = pending.as_mut() else {
        let content = raw.decode(max);
        if let (RawLine::Line(bytes), FrameContent::Invalid(FrameError::NotJson { reason, excerpt })) =
            (raw, &content)
        {
            // The decoder's own sign of a message split over lines (what the checker reports as
            // stdio/newline-delimited): the line opens a value and ends inside it.
            if reason.is_eof() && excerpt.opens_a_value() {
                let mut nesting = Nesting::default();
                if nesting.feed(bytes).is_none() {
                    *pending = Some(Pending {
                        first: Frame { line, content },
                        text: bytes.to_vec(),
                        rest: Vec::new(),
                        nesting,
                    });
                    return;
                }
            }
        }
        out.push(Frame { line, content });
        return;
    };
    let bytes = match raw {
        RawLine::Line(bytes)
            if p.text.len() + 1 + bytes.len() <= max
                && p.rest.len() + 1 < max_lines
                && !starts_a_value_of_its_own(bytes) =>
        {
            bytes
        }
        // Too long, one line too many, or the start of another message: what was gathered is
        // not a message mcpspec can judge as one, and this line is taken afresh.
        _ => {
            give_up(pending.take().expect("pending"), out);
            return take(pending, max, max_lines, line, raw, out);
        }
    };
    p.text.push(b'\n');
    let start = p.text.len();
    p.text.extend_from_slice(bytes);
    p.rest.push((start, p.text.len()));
    if p.nesting.feed(bytes).is_none() {
        return;
    }
    let p = pending.take().expect("pending");
    match serde_json::from_slice(&p.text) {
        Ok(value) => out.push(Frame {
            line: p.first.line,
            content: FrameContent::Json {
                value,
                crlf: bytes.ends_with(b"\r"),
                lines: p.rest.len() as u64 + 1,
            },
        }),
        // The value closed but the lines are not one JSON value (say, trailing garbage).
        Err(_) => give_up(p, out),
    }
}

/// Whether a line opens an object or array and goes on after its bracket: a message (or the
/// start of one) rather than a line inside a pretty-printed value, where a line that starts
/// with a bracket holds nothing but it, or an empty `{}` / `[]`, and perhaps a comma. So a stray
/// line that opens a value cannot swallow the well-formed messages after it.
fn starts_a_value_of_its_own(line: &[u8]) -> bool {
    let trimmed = line.trim_ascii().strip_suffix(b",").unwrap_or(line.trim_ascii());
    matches!(trimmed.first(), Some(b'{' | b'[')) && !matches!(trimmed, b"{" | b"[" | b"{}" | b"[]")
}

/// Hands the gathered lines over one by one, as the decoder alone would have.
fn give_up(p: Pending, out: &mut Vec<Frame>) {
    let first = p.first.line;
    out.push(p.first);
    for (i, (start, end)) in p.rest.into_iter().enumerate() {
        out.push(Frame {
            line: first + 1 + i as u64,
            content: crate::framing::decode_line(&p.text[start..end]),
        });
    }
}

/// Where a JSON value that starts with `{` or `[` ends, byte by byte: the depth of brackets
/// outside strings. It trusts the parser for everything else (the value is parsed once it
/// closes), so it need not know numbers or literals.
#[derive(Debug, Default, Clone)]
struct Nesting {
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl Nesting {
    /// Feeds the next bytes; `Some(i)` when the outermost value closes at byte `i`.
    fn feed(&mut self, bytes: &[u8]) -> Option<usize> {
        for (i, &b) in bytes.iter().enumerate() {
            if self.in_string {
                match b {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framing::DEFAULT_MAX_MESSAGE_BYTES;
    use proptest::prelude::*;
    use serde_json::{json, Value};

    fn frames(max: usize, chunks: &[&[u8]]) -> Vec<Frame> {
        let mut r = Reassembler::new(max);
        let mut out = Vec::new();
        for c in chunks {
            r.push(c, &mut out);
        }
        r.finish(&mut out);
        out
    }

    /// `bytes` cut at the offsets `cuts` (in any order, clamped to its length).
    fn cut(bytes: &[u8], cuts: Vec<usize>) -> Vec<&[u8]> {
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(bytes.len())).collect();
        cuts.sort_unstable();
        let mut pieces = Vec::new();
        let mut start = 0;
        for c in cuts {
            pieces.push(&bytes[start..c]);
            start = c;
        }
        pieces.push(&bytes[start..]);
        pieces
    }

    fn pretty(v: &Value) -> Vec<u8> {
        let mut b = serde_json::to_vec_pretty(v).unwrap();
        b.push(b'\n');
        b
    }

    #[test]
    fn a_pretty_printed_message_is_one_value_flagged_with_its_lines() {
        let ping = json!({"jsonrpc": "2.0", "id": 1, "result": {"a": [1, "}"], "b": "\"{"}});
        let bytes = [b"{\"x\":1}\n".as_slice(), &pretty(&ping), b"{\"y\":2}\n"].concat();
        let out = frames(DEFAULT_MAX_MESSAGE_BYTES, &[&bytes]);
        let got: Vec<_> = out
            .iter()
            .map(|f| match &f.content {
                FrameContent::Json { value, lines, .. } => (f.line, value.clone(), *lines),
                other => panic!("{other:?}"),
            })
            .collect();
        let n = pretty(&ping).iter().filter(|b| **b == b'\n').count() as u64;
        assert_eq!(got, [(1, json!({"x": 1}), 1), (2, ping, n), (2 + n, json!({"y": 2}), 1)]);
    }

    /// Lines that never make a value come out exactly as from the line decoder alone: cut off
    /// by the end of the stream, by a bound, or by not being JSON once the value closes.
    #[test]
    fn what_is_not_one_value_passes_as_the_decoder_cut_it() {
        let cases: [(usize, &[u8]); 5] = [
            (1024, b"{\n  \"a\": 1,\n"),
            (1024, b"{\n  \"a\": 1\n} trailing\n{}\n"),
            (1024, b"[\n not json\n]\nx\n"),
            (16, b"{\n  \"a\": \"a long string\"\n}\n"),
            (1024, b"{\n  \"a\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\xff\"\n}\n"),
        ];
        for (max, bytes) in cases {
            assert_eq!(
                frames(max, &[bytes]),
                LineDecoder::decode_all(max, bytes),
                "{}",
                String::from_utf8_lossy(bytes)
            );
        }
        let many = [b"[\n".as_slice(), &b"1,\n".repeat(10), b"1]\n"].concat();
        let mut r = Reassembler::with_max_lines(1024, 5);
        let mut out = Vec::new();
        r.push(&many, &mut out);
        r.finish(&mut out);
        assert_eq!(out, LineDecoder::decode_all(1024, &many));
        let mut r = Reassembler::with_max_lines(1024, 12);
        let mut out = Vec::new();
        r.push(&many, &mut out);
        assert!(
            matches!(&out[..], [Frame { line: 1, content: FrameContent::Json { lines: 12, .. } }]),
            "{out:?}"
        );
    }

    /// A stray line that opens a value does not swallow the messages after it.
    #[test]
    fn a_stray_opening_line_leaves_the_next_message_alone() {
        let bytes = b"{\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n  [\n1]\n";
        let out = frames(1024, &[bytes]);
        assert!(matches!(out[0].content, FrameContent::Invalid(FrameError::NotJson { .. })), "{out:?}");
        assert!(
            matches!(&out[1], Frame { line: 2, content: FrameContent::Json { lines: 1, .. } }),
            "{out:?}"
        );
        assert!(
            matches!(&out[2], Frame { line: 3, content: FrameContent::Json { lines: 2, .. } }),
            "{out:?}"
        );
        assert!(starts_a_value_of_its_own(b"  {\"a\": 1}") && starts_a_value_of_its_own(b"[1,"));
        assert!(!starts_a_value_of_its_own(b"  {},\r") && !starts_a_value_of_its_own(b"  \"a\": {"));
    }

    /// A peer that opens a value and never closes it costs no more than the limit.
    #[test]
    fn an_endless_value_is_bounded() {
        let mut r = Reassembler::new(4096);
        let mut out = Vec::new();
        r.push(b"{\n", &mut out);
        for _ in 0..10_000 {
            r.push(b"  \"k\": [1, 2, 3],\n", &mut out);
            assert!(r.buffered() <= 2 * 4096 + 1);
        }
        assert!(out.len() > 9_000, "the lines past the limit are handed over: {}", out.len());
        assert!(out.iter().all(|f| matches!(f.content, FrameContent::Invalid(_))));
    }

    proptest! {
        /// Pretty-printing any sequence of messages and feeding it in any chunks yields the same
        /// values, each flagged with the lines it spans; compact messages between them are
        /// untouched.
        #[test]
        fn pretty_printed_messages_reassemble_in_any_chunks(
            values in proptest::collection::vec(
                (crate::testing::arb_json(), any::<bool>()), 0..6),
            cuts in proptest::collection::vec(0usize..4000, 0..8),
        ) {
            let mut bytes = Vec::new();
            let mut want = Vec::new();
            for (v, as_pretty) in &values {
                // Only objects and arrays are messages (or batches); a scalar is one line anyway.
                let v = json!({"jsonrpc": "2.0", "method": "m", "params": {"v": v}});
                let line = if *as_pretty { pretty(&v) } else { crate::framing::encode(&v) };
                let lines = line.iter().filter(|b| **b == b'\n').count() as u64;
                bytes.extend(&line);
                want.push((v, lines));
            }
            let pieces = cut(&bytes, cuts);
            let got: Vec<(Value, u64)> = frames(DEFAULT_MAX_MESSAGE_BYTES, &pieces).into_iter().map(|f| match f.content {
                FrameContent::Json { value, lines, .. } => (value, lines),
                other => panic!("{other:?}"),
            }).collect();
            prop_assert_eq!(got, want);
        }

        /// Any bytes, in any chunks: the same frames as in one piece, and where no line was
        /// reassembled, exactly the line decoder's frames.
        #[test]
        fn any_stream_is_split_invariant(bytes in proptest::collection::vec(
                prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'['), Just(b']'), Just(b'"'),
                    Just(b'\\'), Just(b'1'), Just(b','), Just(b':'), any::<u8>()], 0..300),
            cuts in proptest::collection::vec(0usize..300, 0..8),
            max in 1usize..64) {
            let whole = Reassembler::decode_all(max, &bytes);
            let pieces = cut(&bytes, cuts);
            prop_assert_eq!(frames(max, &pieces), whole.clone());
            if whole.iter().all(|f| !matches!(f.content, FrameContent::Json { lines: 2.., .. })) {
                prop_assert_eq!(whole, LineDecoder::decode_all(max, &bytes));
            }
        }
    }
}
