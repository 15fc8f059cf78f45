//! The codec, wire-model and script properties: their seed corpora replayed, and proptest.

use crate::codecs::{framing, reassembly, sse};
use crate::corpus::replay;
use crate::script::*;
use crate::wire::wire_value;
use mcpspec_protocol::framing::LineDecoder;
use mcpspec_protocol::testing::{arb_json, arb_message};
use mcpspec_protocol::wire::RequestId;
use mcpspec_protocol::wire::EDGE_IDS;
use mcpspec_protocol::Revision;
use proptest::prelude::*;
use serde_json::{json, Value};

#[test]
fn the_framing_corpus_replays() {
    let n = replay("framing", framing);
    assert!(n >= 20, "fuzz/corpus/framing holds {n} files; the seed corpus is missing");
}

#[test]
fn the_sse_corpus_replays() {
    let n = replay("sse", sse);
    assert!(n >= 5, "fuzz/corpus/sse holds {n} files; the seed corpus is missing");
}

#[test]
fn the_www_authenticate_corpus_replays() {
    let n = replay("www_authenticate", crate::www_authenticate);
    assert!(n >= 8, "fuzz/corpus/www_authenticate holds {n} files; the seed corpus is missing");
}

proptest! {
    #[test]
    fn www_authenticate_holds_for_any_text(text in "\\PC{0,80}") {
        crate::www_authenticate(text.as_bytes());
    }
}

#[test]
fn the_reassembly_corpus_replays() {
    let n = replay("reassembly", reassembly);
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
    let leaf = prop_oneof![
        (arb_id(), proptest::option::of(0..VERSION_CHOICES)).prop_map(|(id, v)| {
            ClientOp::Initialize { id, version: v.map_or(Version::Target, Version::Listed) }
        }),
        Just(ClientOp::Initialized),
        arb_id().prop_map(|id| ClientOp::Ping { id }),
        arb_id().prop_map(|id| ClientOp::ToolsList { id }),
        (arb_id(), 0..TEXTS.len() as u8).prop_map(|(id, text)| ClientOp::CallEcho { id, text }),
        (arb_id(), 0..NUMBERS as u8, 0..NUMBERS as u8).prop_map(|(id, a, b)| ClientOp::CallAdd { id, a, b }),
        (arb_id(), 0..BAD_CALLS.len() as u8).prop_map(|(id, which)| ClientOp::CallBad { id, which }),
        arb_id().prop_map(|target| ClientOp::Cancel { target }),
        (proptest::option::of(arb_id()), 0..OTHER_METHODS.len() as u8)
            .prop_map(|(id, method)| ClientOp::Other { id, method }),
        (arb_id(), 0..BROKEN.len() as u8).prop_map(|(id, which)| ClientOp::Broken { id, which }),
        (0..GARBAGE.len() as u8).prop_map(|which| ClientOp::Garbage { which, bytes: vec![] }),
        proptest::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..63)
            .prop_map(|bytes| ClientOp::Garbage { which: GARBAGE.len() as u8, bytes }),
        (arb_id(), any::<bool>()).prop_map(|(id, error)| ClientOp::Response { id, error }),
        (arb_id(), 0..TOOLS.len() as u8, any::<u8>()).prop_map(|(id, tool, arg)| ClientOp::CallTool {
            id,
            tool,
            arg
        }),
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
                [a, b, c, d, e, f].into_iter().filter_map(|(k, v)| v.map(|v| (k.to_owned(), v))).collect(),
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
        for m in &messages { data.extend(mcpspec_protocol::framing::encode(&m.to_value())); }
        reassembly(&data);
    }

    /// What `encode` writes for any message, the framing property accepts and reads back.
    #[test]
    fn encoded_messages_frame_back(messages in proptest::collection::vec(arb_message(), 0..5), limit in any::<u8>()) {
        let mut data = vec![limit | 0x80, 0];
        for m in &messages { data.extend(mcpspec_protocol::framing::encode(&m.to_value())); }
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
