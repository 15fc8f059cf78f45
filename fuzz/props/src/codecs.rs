//! The stdio and SSE codecs on any input: split-invariant, bounded, and, for the reassembler,
//! exact where nothing was split and faithful where something was.

use mcpspec_protocol::framing::{self, Excerpt, Frame, FrameContent, FrameError, LineDecoder, RawLine};
use serde_json::Value;

/// The stdio codec on any input.
///
/// Layout of `data`: `[limit, cuts, cut_1 … cut_n, stream…]`. `limit` picks the maximum
/// message size (1..=128 bytes, on both sides of what an excerpt shows, or the default when its
/// top bit is set); `cuts & 7` chunk sizes (each 0..=31 bytes, used in turn) cut the stream.
///
/// The reference is the stream cut at every newline ([`lines_of`]). Fed in those chunks, and in
/// one piece, [`LineDecoder::cut`] must hand over exactly those lines, numbered in order, each
/// line longer than the limit as its head (the moment it crosses the limit), and never buffer
/// more than the limit; [`LineDecoder::finish`] must report exactly a tail within the limit.
/// In one piece, each line is decoded as well ([`RawLine::decode`], what
/// [`LineDecoder::push`] does with it), and must give a frame of the kind its length calls for.
///
/// Decoding depends on nothing but the line's bytes, so equal lines mean equal frames however
/// the stream is cut (split invariance). Comparing bytes is also stricter than comparing
/// frames (two lines may decode to the same value), and decodes each line once. That a
/// decoded value survives [`framing::encode`] is [`decoded_value`]'s, which the `wire_checker`
/// target runs on every value it decodes.
pub fn framing(data: &[u8]) {
    let Some((max, sizes, stream)) = layout(data) else { return };
    let lines: Vec<(&[u8], bool)> = lines_of(stream).collect();
    cuts_at_newlines(max, stream, &lines, &sizes, false);
    cuts_at_newlines(max, stream, &lines, &[stream.len().max(1)], true);
}

/// The SSE decoder ([`mcpspec_protocol::sse`]) on any input, laid out as for [`framing`]: the first byte
/// sets the maximum event size, the second how many chunk sizes follow, the rest is the body.
///
/// Fed in the chunks and in one piece, it must give the same events; it never holds more than
/// the limit; an oversized event is reported, never yielded; and every event it yields, encoded
/// again ([`mcpspec_protocol::sse::encode`]), decodes to itself.
pub fn sse(data: &[u8]) {
    use mcpspec_protocol::sse::{encode, SseDecoder, SseItem};
    let Some((max, sizes, body)) = layout(data) else { return };
    let whole = SseDecoder::decode_all(max, body);
    let mut decoder = SseDecoder::new(max);
    let mut chunked = Vec::new();
    let mut at = 0;
    for size in sizes.iter().cycle() {
        let end = (at + size).min(body.len());
        decoder.push(&body[at..end], &mut chunked);
        // The line in progress stays within the limit; before it, at most the two bytes of a
        // byte order mark still being read.
        assert!(decoder.buffered() <= max + 2, "buffered {} bytes, limit {max}", decoder.buffered());
        at = end;
        if at == body.len() {
            break;
        }
    }
    assert_eq!(chunked, whole, "chunks decode like the whole");
    for item in &whole {
        if let SseItem::Event(event) = item {
            let again = SseDecoder::decode_all(framing::DEFAULT_MAX_MESSAGE_BYTES, &encode(event));
            assert_eq!(again, vec![item.clone()], "an event survives encoding");
        }
    }
}

/// The layout of the byte-stream targets' inputs: `[limit, n, n chunk sizes, stream…]`. The
/// limit byte sets the maximum message size (its top bit: the default), `n & 7` how many chunk
/// sizes (each `% 32`) follow. `None` for an input too short to hold the two header bytes.
fn layout(data: &[u8]) -> Option<(usize, Vec<usize>, &[u8])> {
    let [limit, cuts, rest @ ..] = data else { return None };
    let max = if limit & 0x80 != 0 { framing::DEFAULT_MAX_MESSAGE_BYTES } else { usize::from(*limit) + 1 };
    let n = usize::from(cuts & 7).min(rest.len());
    let (sizes, stream) = rest.split_at(n);
    let mut sizes: Vec<usize> = sizes.iter().map(|s| usize::from(s % 32)).collect();
    if sizes.iter().all(|s| *s == 0) {
        // Empty pushes are worth making, but something must move the stream on.
        sizes.push(stream.len().max(1));
    }
    Some((max, sizes, stream))
}

/// The reassembler ([`mcpspec_protocol::reassembly`]) on any input, laid out as for [`framing`].
///
/// Fed in the chunks and in one piece, it must give the same frames, never hold more than
/// twice the limit (the line in progress and the value being gathered), and, where it made
/// nothing whole, give exactly the line decoder's frames. Then every object or array decoded
/// from a line is pretty-printed, and the pretty stream fed in the same chunks (with the
/// default limit) must give back exactly those values, each flagged with the lines it spans.
pub fn reassembly(data: &[u8]) {
    use mcpspec_protocol::reassembly::Reassembler;
    let Some((max, sizes, stream)) = layout(data) else { return };
    let chunked = |max: usize, stream: &[u8]| {
        let mut r = Reassembler::new(max);
        let mut out = Vec::new();
        let mut at = 0;
        for size in sizes.iter().cycle() {
            let end = (at + size).min(stream.len());
            r.push(&stream[at..end], &mut out);
            assert!(r.buffered() <= 2 * max + 1, "buffered {} bytes, limit {max}", r.buffered());
            at = end;
            if at == stream.len() {
                break;
            }
        }
        r.finish(&mut out);
        out
    };
    let whole = Reassembler::decode_all(max, stream);
    assert_eq!(chunked(max, stream), whole, "chunks {sizes:?}");
    if !whole.iter().any(|f| matches!(f.content, FrameContent::Json { lines: 2.., .. })) {
        assert_eq!(whole, LineDecoder::decode_all(max, stream));
    }
    let mut pretty = Vec::new();
    let mut want = Vec::new();
    for f in &whole {
        if let FrameContent::Json { value: value @ (Value::Object(_) | Value::Array(_)), .. } = &f.content {
            let mut text = serde_json::to_vec_pretty(value).expect("a value prints");
            text.push(b'\n');
            want.push((value.clone(), text.iter().filter(|b| **b == b'\n').count() as u64));
            pretty.extend(text);
        }
    }
    let got: Vec<(Value, u64)> = chunked(framing::DEFAULT_MAX_MESSAGE_BYTES, &pretty)
        .into_iter()
        .map(|f| match f.content {
            FrameContent::Json { value, lines, .. } => (value, lines),
            other => panic!("line {} of the pretty stream: {other:?}", f.line),
        })
        .collect();
    assert_eq!(got, want, "chunks {sizes:?}");
}

/// Feeds `stream` to a decoder in chunks of `sizes` (used in turn; one must not be zero) and
/// panics unless it cuts `lines`, as described at [`framing`]; with `decode`, each line is
/// decoded too.
fn cuts_at_newlines(max: usize, stream: &[u8], lines: &[(&[u8], bool)], sizes: &[usize], decode: bool) {
    let mut expected = lines.iter().zip(1..);
    let mut decoder = LineDecoder::new(max);
    let mut check = |number: u64, raw: RawLine<'_>| {
        let Some((&(line, terminated), n)) = expected.next() else {
            panic!("line {number} is past the end of the stream: {raw:?}, chunks {sizes:?}")
        };
        let too_long = line.len() > max;
        let want = if too_long {
            RawLine::TooLong(&line[..line.len().min(max + 1).min(framing::EXCERPT_BYTES + 1)])
        } else {
            RawLine::Line(line)
        };
        assert_eq!((number, raw), (n, want), "chunks {sizes:?}");
        assert!(terminated || too_long, "line {n} has no newline yet: {raw:?}");
        if decode {
            match raw.decode(max) {
                FrameContent::Invalid(FrameError::TooLong { limit, .. }) => assert!(too_long && limit == max),
                FrameContent::Invalid(FrameError::Unterminated { .. }) => panic!("line {n} has its newline"),
                content => assert!(!too_long, "line {n} of {} bytes: {content:?}", line.len()),
            }
        }
    };
    let mut at = 0;
    for size in sizes.iter().cycle() {
        let end = (at + size).min(stream.len());
        decoder.cut(&stream[at..end], &mut check);
        // The line in progress stays within the limit; before it, at most the two bytes of a
        // byte order mark still being read.
        assert!(decoder.buffered() <= max + 2, "buffered {} bytes, limit {max}", decoder.buffered());
        at = end;
        if at == stream.len() {
            break;
        }
    }
    let tail = decoder.finish();
    match expected.next() {
        Some((&(line, false), n)) if line.len() <= max => {
            let excerpt = Excerpt::of(line);
            let want = FrameContent::Invalid(FrameError::Unterminated { len: line.len(), excerpt });
            assert_eq!(tail, Some(Frame { line: n, content: want }), "chunks {sizes:?}");
        }
        next => {
            assert!(next.is_none() && tail.is_none(), "{next:?} left, {tail:?} at the end; chunks {sizes:?}")
        }
    }
}

/// The lines of `stream`, each with whether a newline ends it: the stream cut at every `\n`, a
/// non-empty tail being one more line.
fn lines_of(stream: &[u8]) -> impl Iterator<Item = (&[u8], bool)> {
    let mut start = 0;
    let newlines = memchr::memchr_iter(b'\n', stream).map(|end| (end, true));
    newlines.chain([(stream.len(), false)]).map_while(move |(end, terminated)| {
        let line = (terminated || start < end).then(|| (&stream[start..end], terminated));
        start = end + 1;
        line
    })
}
