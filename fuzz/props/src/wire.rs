//! The wire model on any JSON value: it never panics, and a message that round-trips through it
//! keeps its meaning (ids keep their JSON type).

use mcpspec_protocol::framing::{self, FrameContent, LineDecoder};
use mcpspec_protocol::wire::{json_type, Message, Outcome, RequestId};
use serde_json::Value;

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
