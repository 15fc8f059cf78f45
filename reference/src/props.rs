//! Properties of the reference crate's codecs and model that must hold for *any* input, written
//! once and called from three places: the cargo-fuzz targets in `fuzz/fuzz_targets/` (one line
//! each), the replay of their committed seed corpora (`fuzz/corpus/<target>/`, an ordinary
//! `#[test]`), and proptest. Each function panics when its property breaks, and returns quietly
//! otherwise.
//!
//! - [`framing`]: the stdio line decoder is split-invariant, never buffers past its limit, and
//!   yields one frame per line;
//! - [`reassembly`]: the reassembler above it is split-invariant, bounded, leaves streams
//!   without split messages exactly as the line decoder cuts them, and makes any pretty-printed
//!   value whole again, flagged with the lines it spans;
//! - [`decoded_value`] / [`wire_value`]: a decoded value encodes back to itself; the message
//!   model never panics, and a message that round-trips through it keeps its meaning (ids keep
//!   their JSON type);
//! - [`Script`]: structure-aware client sessions (valid and broken messages) built from bytes
//!   with `arbitrary`, which the harness's session property feeds to the reference server. A
//!   script also encodes back to the bytes it was read from ([`Script::to_bytes`]), so seed
//!   corpora are written as readable scripts, not as opaque bytes.

use crate::framing::{self, Excerpt, Frame, FrameContent, FrameError, LineDecoder, RawLine};
use crate::revision::Revision;
use crate::wire::{json_type, Message, Outcome, RequestId};
pub use arbitrary::{self, Arbitrary, Unstructured};
use serde_json::{json, Value};

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

/// The SSE decoder ([`crate::sse`]) on any input, laid out as for [`framing`]: the first byte
/// sets the maximum event size, the second how many chunk sizes follow, the rest is the body.
///
/// Fed in the chunks and in one piece, it must give the same events; it never holds more than
/// the limit; an oversized event is reported, never yielded; and every event it yields, encoded
/// again ([`crate::sse::encode`]), decodes to itself.
pub fn sse(data: &[u8]) {
    use crate::sse::{encode, SseDecoder, SseItem};
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

/// The reassembler ([`crate::reassembly`]) on any input, laid out as for [`framing`].
///
/// Fed in the chunks and in one piece, it must give the same frames, never hold more than
/// twice the limit (the line in progress and the value being gathered), and, where it made
/// nothing whole, give exactly the line decoder's frames. Then every object or array decoded
/// from a line is pretty-printed, and the pretty stream fed in the same chunks (with the
/// default limit) must give back exactly those values, each flagged with the lines it spans.
pub fn reassembly(data: &[u8]) {
    use crate::reassembly::Reassembler;
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

/// A value decoded from a line: [`framing::encode`] writes it as one line that decodes back to
/// it, and the wire model keeps its meaning, for it and for each element of a batch (see
/// [`wire_value`]).
pub fn decoded_value(value: &Value) {
    let again = LineDecoder::decode_all(usize::MAX, &framing::encode(value));
    assert!(
        matches!(&again[..], [f] if matches!(&f.content, FrameContent::Json { value: v, crlf: false, lines: 1 } if v == value)),
        "encode/decode changed {value}: {again:?}"
    );
    wire_value(value);
    if let Value::Array(items) = value {
        items.iter().for_each(wire_value);
    }
}

/// [`Message::from_value`] never panics; errors render; a message it accepts prints back to
/// JSON that reads as the same message and means the same: the same id with the same JSON type,
/// method, params, result, and error code, message and data.
pub fn wire_value(value: &Value) {
    let message = match Message::from_value(value) {
        Ok(m) => m,
        Err(e) => {
            assert!(!e.to_string().is_empty());
            return;
        }
    };
    let printed = message.to_value();
    let text = serde_json::to_string(&printed).expect("a model prints as JSON");
    let reread: Value = serde_json::from_str(&text).expect("printed JSON parses");
    assert_eq!(Message::from_value(&reread).as_ref(), Ok(&message), "{text} reads as another message");

    let id_before = value.get("id").and_then(RequestId::from_value);
    let id_after = printed.get("id").and_then(RequestId::from_value);
    assert_eq!(id_before, id_after, "the id changed: {value} → {printed}");
    if let Some(id) = value.get("id").filter(|_| id_before.is_some()) {
        // `1.0` may print as `1` (both are integers to JSON Schema), but never as a string.
        assert_eq!(id.is_string(), printed["id"].is_string(), "the id changed type: {value} → {printed}");
    }
    // Members outside the model (a response's `params`, extra keys) are not its meaning.
    let members: &[&str] = match &message {
        Message::Request(_) | Message::Notification(_) => &["jsonrpc", "method", "params"],
        Message::Response(_) => &["jsonrpc", "result"],
    };
    for member in members {
        assert_eq!(value.get(member), printed.get(member), "{member} changed: {value} → {printed}");
    }
    if let Message::Response(r) = &message {
        if let Outcome::Error(e) = &r.outcome {
            let error = &value["error"];
            assert_eq!(error["code"].as_i64(), Some(e.code));
            assert_eq!(error["message"].as_str(), Some(e.message.as_str()));
            assert_eq!(error.get("data"), printed["error"].get("data"));
        }
    }
    assert!(!json_type(&printed).is_empty());
}

/// The longest script read from one input: enough for any session worth having.
pub const MAX_OPS: usize = 64;

/// A client session: what the client writes, one line per op, valid and broken alike. Read from
/// bytes with [`Script::from_bytes`] (any bytes make a script), written back with
/// [`Script::to_bytes`]; every field holds a small selector byte that [`Script::to_stream`]
/// turns into JSON, so a script is the same session for every revision it is played at.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    pub ops: Vec<ClientOp>,
}

/// One line the client writes.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientOp {
    /// `initialize`, asking for a [`Version`].
    Initialize {
        id: Id,
        version: Version,
    },
    /// `notifications/initialized`.
    Initialized,
    Ping {
        id: Id,
    },
    ToolsList {
        id: Id,
    },
    /// `tools/call` of `echo`; `text` picks from [`TEXTS`].
    CallEcho {
        id: Id,
        text: u8,
    },
    /// `tools/call` of `add`; `a` and `b` pick from [`NUMBERS`] (not all of them numbers).
    CallAdd {
        id: Id,
        a: u8,
        b: u8,
    },
    /// A broken `tools/call` (`which` picks from [`BAD_CALLS`]).
    CallBad {
        id: Id,
        which: u8,
    },
    /// `notifications/cancelled` for `target` (in flight, answered or never sent).
    Cancel {
        target: Id,
    },
    /// Another method from [`OTHER_METHODS`]; a notification when `id` is `None`.
    Other {
        id: Option<Id>,
        method: u8,
    },
    /// A line that breaks the JSON-RPC envelope ([`BROKEN`]).
    Broken {
        id: Id,
        which: u8,
    },
    /// A raw line: one of [`GARBAGE`], or (when `which` is past the list) `bytes` as is.
    Garbage {
        which: u8,
        bytes: Vec<u8>,
    },
    /// A JSON-RPC batch of ops (legal only in 2025-03-26); nested batches stay nested.
    Batch {
        ops: Vec<ClientOp>,
    },
    /// A response from the client (to a server request, or to nothing).
    Response {
        id: Id,
        error: bool,
    },
    /// `tools/call` of one of [`TOOLS`]; `arg` picks its arguments (see [`ClientOp::to_value_in`]).
    CallTool {
        id: Id,
        tool: u8,
        arg: u8,
    },
    /// A well-formed request from [`KNOWN`] (resources, prompts, logging, completion, pages).
    Known {
        id: Id,
        which: u8,
    },
    /// No line: virtual time moves on by `step²` milliseconds (0 to 65 s) and the server is
    /// polled, so slow tools finish, progress is sent and the server's own requests time out.
    Advance {
        step: u8,
    },
    /// An answer to the latest request the server sent the client (or, with none, to id 999);
    /// `shape` picks it from [`ANSWERS`] (past the list: an error).
    Answer {
        shape: u8,
    },
}

/// Tools of the reference server's catalog (and one it does not have).
pub const TOOLS: [&str; 15] = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_roots",
    "slow",
    "touch_watched",
    "echo",
    "no_such_tool",
];

/// Well-formed requests: (method, params).
pub const KNOWN: [(&str, &str); 14] = [
    ("resources/list", "{}"),
    ("resources/templates/list", "{}"),
    ("resources/read", r#"{"uri":"test://static-text"}"#),
    ("resources/read", r#"{"uri":"test://template/7/data"}"#),
    ("resources/read", r#"{"uri":"test://nope"}"#),
    ("resources/subscribe", r#"{"uri":"test://watched-resource"}"#),
    ("resources/unsubscribe", r#"{"uri":"test://watched-resource"}"#),
    ("prompts/list", "{}"),
    ("prompts/get", r#"{"name":"simple_prompt"}"#),
    (
        "completion/complete",
        r#"{"ref":{"type":"ref/prompt","name":"complex_prompt"},"argument":{"name":"style","value":"f"}}"#,
    ),
    ("logging/setLevel", r#"{"level":"debug"}"#),
    ("logging/setLevel", r#"{"level":"emergency"}"#),
    ("tools/list", r#"{"cursor":"bogus"}"#),
    ("ping", r#"{"_meta":{"progressToken":1}}"#),
];

/// Client answers to the server's requests: result shapes (valid for sampling, elicitation,
/// roots, or for none of them); past the list, an error.
pub const ANSWERS: [&str; 6] = [
    r#"{"role":"assistant","content":{"type":"text","text":"hi"},"model":"fuzz","stopReason":"endTurn"}"#,
    r#"{"action":"decline"}"#,
    r#"{"roots":[{"uri":"file:///tmp","name":"tmp"}]}"#,
    r#"{}"#,
    r#""not an object""#,
    r#"{"action":"accept","content":{}}"#,
];

/// A request id, by kind: small integers and their string twins collide on purpose, so the
/// same id is reused and `1` meets `"1"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    /// The integer `n`.
    Int(u8),
    /// The string of the decimal digits of `n` (the twin of `Int(n)`).
    Digits(u8),
    /// The string `"req-n"`.
    Name(u8),
    /// One of [`EDGE_IDS`].
    Edge(u8),
}

/// Ids at the edges of what an id may hold.
pub const EDGE_IDS: [i128; 6] = [0, -1, i64::MIN as i128, i64::MAX as i128, u64::MAX as i128, 1 << 53];

/// The `protocolVersion` an `initialize` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The revision the script is played at.
    Target,
    /// One of [`VERSIONS`] (other revisions, unknown versions, a missing or ill-typed one).
    Listed(u8),
}

/// Versions an `initialize` may ask for besides the one under test. `Listed(i)` past the list
/// sends a number (`VERSIONS.len()`) or leaves `protocolVersion` out (`VERSIONS.len() + 1`).
pub const VERSIONS: [&str; 10] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "draft",
    "1999-01-01",
    "2099-12-31",
    "",
    "garbage",
];
const VERSION_CHOICES: u8 = VERSIONS.len() as u8 + 2;

/// Messages for `echo`.
pub const TEXTS: [&str; 7] =
    ["hello", "", "two\nlines\r\n", "ünïcödé ✓ 🦀", "\u{0}\u{1b}[31m", "\"}{\\", "{}"];

/// Arguments for `add`: numbers at the edges, and values that are not numbers.
pub fn number(n: u8) -> Value {
    NUMBERS_JSON
        .get(usize::from(n))
        .map(|t| serde_json::from_str(t).expect("listed JSON"))
        .unwrap_or(Value::Null)
}
/// How many values [`number`] picks from.
pub const NUMBERS: usize = NUMBERS_JSON.len();
const NUMBERS_JSON: [&str; 12] = [
    "0",
    "1",
    "-1",
    "2.5",
    "1e308",
    "-1e308",
    "9223372036854775807",
    "18446744073709551615",
    "0.1",
    "\"3\"",
    "null",
    "[1]",
];

/// Broken `tools/call` params.
pub const BAD_CALLS: [&str; 8] = [
    r#"{"name":"nope"}"#,
    r#"{"name":"echo"}"#,
    r#"{"name":"echo","arguments":{"message":5}}"#,
    r#"{"name":"add","arguments":{"a":1}}"#,
    r#"{"name":5}"#,
    r#"{"name":"echo","arguments":"x"}"#,
    r#"[]"#,
    r#"null"#,
];

/// Other methods a client may send (some from other revisions, some from no revision).
pub const OTHER_METHODS: [&str; 16] = [
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "server/discover",
    "sampling/createMessage",
    "notifications/progress",
    "notifications/roots/list_changed",
    "notifications/initialized",
    "notifications/cancelled",
    "",
    "rpc.discover",
    "no/such/method",
];

/// Lines that break the envelope; `{id}` is replaced by the op's id.
pub const BROKEN: [&str; 14] = [
    r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
    r#"{"jsonrpc":"1.0","id":{id},"method":"ping"}"#,
    r#"{"id":{id},"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":5}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"ping","result":{}}"#,
    r#"{"jsonrpc":"2.0","id":{id},"result":{},"error":{"code":1,"message":"x"}}"#,
    r#"{"jsonrpc":"2.0","id":{id}}"#,
    r#"{}"#,
    r#""ping""#,
    r#"[[{"jsonrpc":"2.0","id":{id},"method":"ping"}]]"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"initialize"}"#,
];

/// Raw lines that are not one JSON-RPC message.
pub const GARBAGE: [&[u8]; 9] = [
    b"",
    b"   \t",
    b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"bom\",\"method\":\"ping\"}",
    b"\xff\xfe\x00{",
    b"Content-Length: 52\r",
    b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r",
    b"{\"jsonrpc\":\"2.0\",",
    b"{\"jsonrpc\":\"2.0\",\"id\":\"two\",\"method\":\"ping\"} {\"jsonrpc\":\"2.0\"}",
    b"[]",
];

impl Id {
    pub fn to_value(self) -> Value {
        match self {
            Id::Int(n) => json!(n),
            Id::Digits(n) => json!(n.to_string()),
            Id::Name(n) => json!(format!("req-{n}")),
            Id::Edge(n) => RequestId::Integer(EDGE_IDS[usize::from(n) % EDGE_IDS.len()]).to_value(),
        }
    }

    fn read(u: &mut Unstructured) -> Id {
        let kind = byte(u);
        let n = byte(u);
        match kind % 4 {
            0 => Id::Int(n),
            1 => Id::Digits(n),
            2 => Id::Name(n),
            _ => Id::Edge(n % EDGE_IDS.len() as u8),
        }
    }

    fn write(self, out: &mut Vec<u8>) {
        out.extend(match self {
            Id::Int(n) => [0, n],
            Id::Digits(n) => [1, n],
            Id::Name(n) => [2, n],
            Id::Edge(n) => [3, n],
        });
    }
}

/// One selector byte; past the end of the input, 0 (as `arbitrary` does).
fn byte(u: &mut Unstructured) -> u8 {
    u8::arbitrary(u).unwrap_or(0)
}

fn pick(u: &mut Unstructured, n: usize) -> u8 {
    (usize::from(byte(u)) % n) as u8
}

impl ClientOp {
    const KINDS: u8 = 17;

    fn read(u: &mut Unstructured, depth: u8) -> ClientOp {
        match byte(u) % Self::KINDS {
            0 => {
                let id = Id::read(u);
                let v = byte(u);
                let version =
                    if v == 0 { Version::Target } else { Version::Listed((v - 1) % VERSION_CHOICES) };
                ClientOp::Initialize { id, version }
            }
            1 => ClientOp::Initialized,
            2 => ClientOp::Ping { id: Id::read(u) },
            3 => ClientOp::ToolsList { id: Id::read(u) },
            4 => ClientOp::CallEcho { id: Id::read(u), text: pick(u, TEXTS.len()) },
            5 => ClientOp::CallAdd { id: Id::read(u), a: pick(u, NUMBERS), b: pick(u, NUMBERS) },
            6 => ClientOp::CallBad { id: Id::read(u), which: pick(u, BAD_CALLS.len()) },
            7 => ClientOp::Cancel { target: Id::read(u) },
            8 => {
                let notification = byte(u) & 1 == 1;
                let id = Id::read(u);
                ClientOp::Other { id: (!notification).then_some(id), method: pick(u, OTHER_METHODS.len()) }
            }
            9 => ClientOp::Broken { id: Id::read(u), which: pick(u, BROKEN.len()) },
            10 => {
                let which = pick(u, GARBAGE.len() + 1);
                let len = if usize::from(which) == GARBAGE.len() { usize::from(byte(u) % 64) } else { 0 };
                let bytes = (0..len).map(|_| byte(u)).filter(|b| *b != b'\n').collect();
                ClientOp::Garbage { which, bytes }
            }
            11 => {
                let len = byte(u) % 5;
                let ops = if depth >= 2 {
                    Vec::new()
                } else {
                    (0..len).map(|_| ClientOp::read(u, depth + 1)).collect()
                };
                ClientOp::Batch { ops }
            }
            12 => {
                let id = Id::read(u);
                ClientOp::Response { id, error: byte(u) & 1 == 1 }
            }
            13 => ClientOp::CallTool { id: Id::read(u), tool: pick(u, TOOLS.len()), arg: byte(u) },
            14 => ClientOp::Known { id: Id::read(u), which: pick(u, KNOWN.len()) },
            15 => ClientOp::Advance { step: byte(u) },
            _ => ClientOp::Answer { shape: pick(u, ANSWERS.len() + 1) },
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            ClientOp::Initialize { id, version } => {
                out.push(0);
                id.write(out);
                out.push(match version {
                    Version::Target => 0,
                    Version::Listed(i) => i + 1,
                });
            }
            ClientOp::Initialized => out.push(1),
            ClientOp::Ping { id } => {
                out.push(2);
                id.write(out);
            }
            ClientOp::ToolsList { id } => {
                out.push(3);
                id.write(out);
            }
            ClientOp::CallEcho { id, text } => {
                out.push(4);
                id.write(out);
                out.push(*text);
            }
            ClientOp::CallAdd { id, a, b } => {
                out.push(5);
                id.write(out);
                out.extend([*a, *b]);
            }
            ClientOp::CallBad { id, which } => {
                out.push(6);
                id.write(out);
                out.push(*which);
            }
            ClientOp::Cancel { target } => {
                out.push(7);
                target.write(out);
            }
            ClientOp::Other { id, method } => {
                out.extend([8, u8::from(id.is_none())]);
                id.unwrap_or(Id::Int(0)).write(out);
                out.push(*method);
            }
            ClientOp::Broken { id, which } => {
                out.push(9);
                id.write(out);
                out.push(*which);
            }
            ClientOp::Garbage { which, bytes } => {
                out.extend([10, *which]);
                if usize::from(*which) == GARBAGE.len() {
                    out.push(bytes.len() as u8);
                    out.extend(bytes);
                }
            }
            ClientOp::Batch { ops } => {
                out.extend([11, ops.len() as u8]);
                ops.iter().for_each(|op| op.write(out));
            }
            ClientOp::Response { id, error } => {
                out.push(12);
                id.write(out);
                out.push(u8::from(*error));
            }
            ClientOp::CallTool { id, tool, arg } => {
                out.push(13);
                id.write(out);
                out.extend([*tool, *arg]);
            }
            ClientOp::Known { id, which } => {
                out.push(14);
                id.write(out);
                out.push(*which);
            }
            ClientOp::Advance { step } => out.extend([15, *step]),
            ClientOp::Answer { shape } => out.extend([16, *shape]),
        }
    }

    /// The op as one JSON value, or `None` for a raw line or no line.
    pub fn to_value(&self, target: Revision) -> Option<Value> {
        self.to_value_in(target, None)
    }

    /// The op as one JSON value, `server_request` being the id of the latest request the server
    /// sent (what [`ClientOp::Answer`] answers).
    pub fn to_value_in(&self, target: Revision, server_request: Option<&Value>) -> Option<Value> {
        let request = |id: &Id, method: &str, params: Option<Value>| {
            let mut m = json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method});
            if let Some(p) = params {
                m["params"] = p;
            }
            m
        };
        Some(match self {
            ClientOp::Initialize { id, version } => {
                let mut params = json!({
                    "capabilities": {},
                    "clientInfo": {"name": "mcpspec-fuzz", "version": "0"},
                });
                match version {
                    Version::Target => params["protocolVersion"] = target.as_str().into(),
                    Version::Listed(i) => match VERSIONS.get(usize::from(*i)) {
                        Some(v) => params["protocolVersion"] = (*v).into(),
                        None if usize::from(*i) == VERSIONS.len() => {
                            params["protocolVersion"] = json!(20241105)
                        }
                        None => {}
                    },
                }
                request(id, "initialize", Some(params))
            }
            ClientOp::Initialized => json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ClientOp::Ping { id } => request(id, "ping", None),
            ClientOp::ToolsList { id } => request(id, "tools/list", Some(json!({}))),
            ClientOp::CallEcho { id, text } => {
                let message = TEXTS[usize::from(*text) % TEXTS.len()];
                request(id, "tools/call", Some(json!({"name": "echo", "arguments": {"message": message}})))
            }
            ClientOp::CallAdd { id, a, b } => request(
                id,
                "tools/call",
                Some(json!({"name": "add", "arguments": {"a": number(*a), "b": number(*b)}})),
            ),
            ClientOp::CallBad { id, which } => {
                let params = serde_json::from_str(BAD_CALLS[usize::from(*which) % BAD_CALLS.len()]).ok();
                request(id, "tools/call", params)
            }
            ClientOp::Cancel { target } => json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": target.to_value(), "reason": "fuzz"},
            }),
            ClientOp::Other { id, method } => {
                let method = OTHER_METHODS[usize::from(*method) % OTHER_METHODS.len()];
                match id {
                    Some(id) => request(id, method, Some(json!({}))),
                    None => json!({"jsonrpc": "2.0", "method": method, "params": {}}),
                }
            }
            ClientOp::Broken { id, which } => {
                let text =
                    BROKEN[usize::from(*which) % BROKEN.len()].replace("{id}", &id.to_value().to_string());
                serde_json::from_str(&text).expect("listed JSON")
            }
            ClientOp::Garbage { .. } | ClientOp::Advance { .. } => return None,
            ClientOp::Batch { ops } => Value::Array(
                ops.iter()
                    .map(|op| {
                        op.to_value_in(target, server_request).unwrap_or_else(|| json!("not json in a batch"))
                    })
                    .collect(),
            ),
            ClientOp::CallTool { id, tool, arg } => {
                let name = TOOLS[usize::from(*tool) % TOOLS.len()];
                let arguments = match name {
                    "slow" => json!({"ms": u64::from(*arg) * 100}),
                    "echo" => json!({"message": TEXTS[usize::from(*arg) % TEXTS.len()]}),
                    "test_sampling" | "test_elicitation" => json!({"prompt": "fuzz", "message": "fuzz"}),
                    _ => json!({}),
                };
                let mut params = json!({"name": name, "arguments": arguments});
                if arg & 1 == 1 {
                    params["_meta"] = json!({"progressToken": format!("p{arg}")});
                }
                request(id, "tools/call", Some(params))
            }
            ClientOp::Known { id, which } => {
                let (method, params) = KNOWN[usize::from(*which) % KNOWN.len()];
                request(id, method, serde_json::from_str(params).ok())
            }
            ClientOp::Answer { shape } => {
                let id = server_request.cloned().unwrap_or(json!(999));
                match ANSWERS.get(usize::from(*shape)) {
                    Some(result) => {
                        let result: Value = serde_json::from_str(result).expect("listed JSON");
                        json!({"jsonrpc": "2.0", "id": id, "result": result})
                    }
                    None => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -1, "message": "declined"}}),
                }
            }
            ClientOp::Response { id, error } => match error {
                false => json!({"jsonrpc": "2.0", "id": id.to_value(), "result": {}}),
                true => {
                    json!({"jsonrpc": "2.0", "id": id.to_value(), "error": {"code": -1, "message": "no"}})
                }
            },
        })
    }

    /// The op as the line the client writes, newline included (`None` for [`ClientOp::Advance`]).
    pub fn to_line(&self, target: Revision) -> Option<Vec<u8>> {
        self.to_line_in(target, None)
    }

    /// [`ClientOp::to_line`], with the id of the server's latest request (see
    /// [`ClientOp::to_value_in`]).
    pub fn to_line_in(&self, target: Revision, server_request: Option<&Value>) -> Option<Vec<u8>> {
        match (self, self.to_value_in(target, server_request)) {
            (_, Some(v)) => Some(framing::encode(&v)),
            (ClientOp::Garbage { which, bytes }, None) => {
                let mut line = GARBAGE.get(usize::from(*which)).map_or_else(|| bytes.clone(), |g| g.to_vec());
                line.push(b'\n');
                Some(line)
            }
            (_, None) => None,
        }
    }
}

impl Script {
    /// Reads a script from any bytes (at most [`MAX_OPS`] ops; a byte past the end reads as 0).
    pub fn from_bytes(data: &[u8]) -> Script {
        let mut u = Unstructured::new(data);
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < MAX_OPS {
            ops.push(ClientOp::read(&mut u, 0));
        }
        Script { ops }
    }

    /// The bytes [`Script::from_bytes`] reads back as this script (for writing seed corpora).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.ops.iter().for_each(|op| op.write(&mut out));
        out
    }

    /// What the client writes when the script is played at `target`.
    pub fn to_stream(&self, target: Revision) -> Vec<u8> {
        self.ops.iter().filter_map(|op| op.to_line(target)).flatten().collect()
    }
}

impl<'a> Arbitrary<'a> for Script {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < MAX_OPS {
            ops.push(ClientOp::read(u, 0));
        }
        Ok(Script { ops })
    }
}

/// A script's ops as text, one per line, for corpus notes and failure messages.
pub fn describe(script: &Script) -> String {
    script.ops.iter().map(|op| format!("{op:?}\n")).collect()
}

/// The folder of a fuzz target's committed seed corpus, from a crate directory of the
/// workspace (`env!("CARGO_MANIFEST_DIR")`).
pub fn corpus_dir(manifest_dir: &str, target: &str) -> std::path::PathBuf {
    std::path::Path::new(manifest_dir).join("..").join("fuzz").join("corpus").join(target)
}

/// Every file of a target's corpus, sorted by name (empty if the folder does not exist).
pub fn corpus_files(manifest_dir: &str, target: &str) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let dir = corpus_dir(manifest_dir, target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()));
            (p, bytes)
        })
        .collect();
    files.sort();
    files
}

/// Runs `property` on every file of a target's corpus, naming the file that fails; returns how
/// many files ran.
pub fn replay(manifest_dir: &str, target: &str, property: impl Fn(&[u8])) -> usize {
    let files = corpus_files(manifest_dir, target);
    for (path, bytes) in &files {
        if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| property(bytes))) {
            eprintln!("corpus file {} breaks the property of fuzz target {target}", path.display());
            std::panic::resume_unwind(panic);
        }
    }
    files.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::tests_support::{arb_json, arb_message};
    use proptest::prelude::*;

    const HERE: &str = env!("CARGO_MANIFEST_DIR");

    #[test]
    fn the_framing_corpus_replays() {
        let n = replay(HERE, "framing", framing);
        assert!(n >= 20, "fuzz/corpus/framing holds {n} files; the seed corpus is missing");
    }

    #[test]
    fn the_sse_corpus_replays() {
        let n = replay(HERE, "sse", sse);
        assert!(n >= 5, "fuzz/corpus/sse holds {n} files; the seed corpus is missing");
    }

    #[test]
    fn the_reassembly_corpus_replays() {
        let n = replay(HERE, "reassembly", reassembly);
        assert!(n >= 20, "fuzz/corpus/reassembly holds {n} files; the seed corpus is missing");
    }

    #[test]
    fn scripts_write_back_to_their_bytes() {
        let script = Script {
            ops: vec![
                ClientOp::Initialize { id: Id::Int(0), version: Version::Target },
                ClientOp::Initialized,
                ClientOp::Batch {
                    ops: vec![ClientOp::Ping { id: Id::Digits(1) }, ClientOp::Batch { ops: vec![] }],
                },
                ClientOp::Garbage { which: GARBAGE.len() as u8, bytes: b"junk".to_vec() },
                ClientOp::Other { id: None, method: 3 },
            ],
        };
        assert_eq!(Script::from_bytes(&script.to_bytes()), script);
        let stream = script.to_stream(Revision::V2025_03_26);
        let text = String::from_utf8_lossy(&stream);
        assert!(
            text.starts_with(r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"capabilities""#),
            "{text}"
        );
        assert_eq!(stream.iter().filter(|b| **b == b'\n').count(), 5);
    }

    fn arb_id() -> impl Strategy<Value = Id> {
        prop_oneof![
            any::<u8>().prop_map(Id::Int),
            any::<u8>().prop_map(Id::Digits),
            any::<u8>().prop_map(Id::Name),
            (0..EDGE_IDS.len() as u8).prop_map(Id::Edge),
        ]
    }

    fn arb_op() -> impl Strategy<Value = ClientOp> {
        let leaf =
            prop_oneof![
                (arb_id(), proptest::option::of(0..VERSION_CHOICES)).prop_map(|(id, v)| {
                    ClientOp::Initialize { id, version: v.map_or(Version::Target, Version::Listed) }
                }),
                Just(ClientOp::Initialized),
                arb_id().prop_map(|id| ClientOp::Ping { id }),
                arb_id().prop_map(|id| ClientOp::ToolsList { id }),
                (arb_id(), 0..TEXTS.len() as u8).prop_map(|(id, text)| ClientOp::CallEcho { id, text }),
                (arb_id(), 0..NUMBERS as u8, 0..NUMBERS as u8).prop_map(|(id, a, b)| ClientOp::CallAdd {
                    id,
                    a,
                    b
                }),
                (arb_id(), 0..BAD_CALLS.len() as u8).prop_map(|(id, which)| ClientOp::CallBad { id, which }),
                arb_id().prop_map(|target| ClientOp::Cancel { target }),
                (proptest::option::of(arb_id()), 0..OTHER_METHODS.len() as u8)
                    .prop_map(|(id, method)| ClientOp::Other { id, method }),
                (arb_id(), 0..BROKEN.len() as u8).prop_map(|(id, which)| ClientOp::Broken { id, which }),
                (0..GARBAGE.len() as u8).prop_map(|which| ClientOp::Garbage { which, bytes: vec![] }),
                proptest::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..63)
                    .prop_map(|bytes| ClientOp::Garbage { which: GARBAGE.len() as u8, bytes }),
                (arb_id(), any::<bool>()).prop_map(|(id, error)| ClientOp::Response { id, error }),
                (arb_id(), 0..TOOLS.len() as u8, any::<u8>())
                    .prop_map(|(id, tool, arg)| ClientOp::CallTool { id, tool, arg }),
                (arb_id(), 0..KNOWN.len() as u8).prop_map(|(id, which)| ClientOp::Known { id, which }),
                any::<u8>().prop_map(|step| ClientOp::Advance { step }),
                (0..=ANSWERS.len() as u8).prop_map(|shape| ClientOp::Answer { shape }),
            ];
        leaf.prop_recursive(2, 12, 4, |inner| {
            proptest::collection::vec(inner, 0..5).prop_map(|ops| ClientOp::Batch { ops })
        })
    }

    /// Objects with the envelope's members present or not, each of any JSON type: the inputs
    /// that reach every branch of `Message::from_value`.
    fn arb_envelope() -> impl Strategy<Value = Value> {
        let member = |name: &'static str, typical: Value| {
            proptest::option::of(prop_oneof![Just(typical), arb_json()]).prop_map(move |v| (name, v))
        };
        (
            member("jsonrpc", json!("2.0")),
            member("id", json!(7)),
            member("method", json!("tools/call")),
            member("params", json!({})),
            member("result", json!({})),
            member("error", json!({"code": -32601, "message": "no"})),
        )
            .prop_map(|members| {
                let (a, b, c, d, e, f) = members;
                Value::Object(
                    [a, b, c, d, e, f]
                        .into_iter()
                        .filter_map(|(k, v)| v.map(|v| (k.to_owned(), v)))
                        .collect(),
                )
            })
    }

    proptest! {
        /// The framing property on streams rich in newlines, CRs and JSON punctuation.
        #[test]
        fn framing_holds_on_json_like_streams(bytes in proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'"'), Just(b'1'), Just(b'\r'), Just(b' '), any::<u8>()], 0..300)) {
            framing(&bytes);
        }

        /// The reassembly property on streams rich in JSON punctuation, and on real messages
        /// (whose values it pretty-prints and reads back).
        #[test]
        fn reassembly_holds_on_json_like_streams(bytes in proptest::collection::vec(
            prop_oneof![Just(b'\n'), Just(b'{'), Just(b'}'), Just(b'['), Just(b']'), Just(b'"'), Just(b'1'),
                Just(b','), Just(b':'), Just(b'\r'), Just(b' '), any::<u8>()], 0..300),
            messages in proptest::collection::vec(arb_message(), 0..4), chunks in any::<[u8; 3]>()) {
            reassembly(&bytes);
            let mut data = vec![0x80, 2, chunks[0], chunks[1]];
            for m in &messages { data.extend(framing::encode(&m.to_value())); }
            reassembly(&data);
        }

        /// What `encode` writes for any message, the framing property accepts and reads back.
        #[test]
        fn encoded_messages_frame_back(messages in proptest::collection::vec(arb_message(), 0..5), limit in any::<u8>()) {
            let mut data = vec![limit | 0x80, 0];
            for m in &messages { data.extend(framing::encode(&m.to_value())); }
            framing(&data);
            let frames = LineDecoder::decode_all(usize::MAX, &data[2..]);
            prop_assert_eq!(frames.len(), messages.len());
        }

        /// Envelope-shaped objects with members of every type: the model never panics and keeps
        /// the meaning of what it accepts.
        #[test]
        fn the_model_keeps_meaning_on_envelope_shapes(value in arb_envelope()) {
            wire_value(&value);
        }

        #[test]
        fn the_model_keeps_meaning_on_any_json(value in arb_json()) {
            wire_value(&value);
        }

        /// Ids keep their JSON type and value over the whole range an id may hold.
        #[test]
        fn ids_round_trip(i in (i64::MIN as i128)..=(u64::MAX as i128), s in ".{0,8}") {
            for id in [RequestId::Integer(i), RequestId::String(s.clone())] {
                prop_assert_eq!(RequestId::from_value(&id.to_value()), Some(id));
            }
        }

        /// A script is the same script after writing it to bytes and reading it back, and any
        /// bytes read as a script that plays as one line per op.
        #[test]
        fn scripts_round_trip(ops in proptest::collection::vec(arb_op(), 0..MAX_OPS)) {
            let script = Script { ops };
            prop_assert_eq!(Script::from_bytes(&script.to_bytes()), script);
        }

        #[test]
        fn any_bytes_make_a_script(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            let script = Script::from_bytes(&bytes);
            for r in Revision::ALL {
                let stream = script.to_stream(r);
                let lines = script.ops.iter().filter(|op| !matches!(op, ClientOp::Advance { .. })).count();
                prop_assert_eq!(stream.iter().filter(|b| **b == b'\n').count(), lines);
            }
        }
    }
}
