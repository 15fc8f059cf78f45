//! The session checker on transcripts: the envelope, ids and batches, and the helpers the
//! other checker tests share.

use super::*;
use serde_json::json;

pub(crate) const C2S: Direction = Direction::ClientToServer;
pub(crate) const S2C: Direction = Direction::ServerToClient;

/// The ids of the rules the inspections found broken, in order.
pub(crate) fn ids(inspections: &[Inspection]) -> Vec<&'static str> {
    inspections.iter().flat_map(|i| i.violations.iter().map(|v| v.rule.id)).collect()
}

fn session() -> SessionChecker {
    let mut c = SessionChecker::new(Revision::V2025_06_18);
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":1,"method":"ping"}));
    // Past the handshake: the phase rules have nothing to say.
    c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    c
}

#[test]
fn a_matching_response_names_its_method() {
    let mut c = session();
    let out = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{}}));
    assert_eq!(ids(&out), Vec::<&str>::new());
    assert_eq!(out[0].answered_method.as_deref(), Some("ping"));
}

#[test]
fn a_changed_id_type_is_named() {
    let mut c = session();
    assert_eq!(c.outstanding_match(C2S, &RequestId::from("1")), Some(RequestId::from(1)));
    let out = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"1","result":{}}));
    assert_eq!(ids(&out), ["jsonrpc/response-id-matches-request"]);
    assert!(out[0].violations[0].actual.contains("(string) answering the ping request with id 1 (integer)"));
    assert_eq!(out[0].answered_method.as_deref(), Some("ping"), "still validated as a ping result");
}

#[test]
fn duplicate_and_unknown_responses_fail() {
    let mut c = session();
    c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{}}));
    let again = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":1,"result":{}}));
    assert!(again[0].violations[0].actual.starts_with("a second response"));
    let unknown = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":7,"result":{}}));
    assert_eq!(ids(&unknown), ["jsonrpc/response-id-matches-request"]);
}

#[test]
fn envelope_faults_map_to_their_rules() {
    let mut c = session();
    let cases = [
        (
            json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"x"}}),
            "jsonrpc/response-result-xor-error",
        ),
        (json!({"jsonrpc":"2.0","id":null,"method":"roots/list"}), "jsonrpc/request-id-not-null"),
        (json!({"jsonrpc":"2.0","id":2,"error":{"code":1.5,"message":"x"}}), "jsonrpc/error-code-integer"),
        (json!({"jsonrpc":"2.0","id":5,"method":"notifications/progress"}), "jsonrpc/notification-no-id"),
        (json!("hello"), "jsonrpc/message-object"),
        (json!([]), "jsonrpc/batch-revision"),
    ];
    for (v, want) in cases {
        assert_eq!(ids(&c.on_value(S2C, &v)), [want], "{v}");
    }
}

#[test]
fn reused_request_ids_fail() {
    let mut c = session();
    c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"a","method":"ping"}));
    let out = c.on_value(S2C, &json!({"jsonrpc":"2.0","id":"a","method":"ping"}));
    assert_eq!(ids(&out), ["jsonrpc/request-id-unique"]);
}

#[test]
fn initialize_moves_the_revision() {
    let mut c = SessionChecker::new(Revision::V2025_11_25);
    c.on_value(C2S, &json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}));
    c.on_value(S2C, &json!({"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-03-26"}}));
    assert_eq!(c.revision(), Revision::V2025_03_26);
    c.on_value(C2S, &json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
    assert!(ids(&c.on_value(S2C, &json!([{"jsonrpc":"2.0","method":"notifications/x"}]))).is_empty());
}

/// A message reassembled from the lines it was split over breaks the framing once, and is
/// judged as the message it is: here, the answer to the outstanding ping.
#[test]
fn a_reassembled_message_is_flagged_and_judged() {
    let mut c = session();
    let pong =
        FrameContent::Json { value: json!({"jsonrpc":"2.0","id":1,"result":{}}), crlf: false, lines: 5 };
    let out = c.on_frame(S2C, pong);
    assert_eq!(ids(&out), ["stdio/newline-delimited"]);
    assert!(out[0].violations[0].actual.contains("over 5 lines"), "{:?}", out[0].violations);
    assert_eq!(out[1].answered_method.as_deref(), Some("ping"));
    assert_eq!(c.outstanding_match(C2S, &RequestId::from(1)), None, "answered");
    let again = FrameContent::Json {
        value: json!({"jsonrpc":"2.0","method":"notifications/x"}),
        crlf: false,
        lines: 3,
    };
    assert_eq!(ids(&c.on_frame(S2C, again.clone())), Vec::<&str>::new(), "reported once");
    assert_eq!(ids(&c.on_frame(C2S, again)), ["stdio/newline-delimited"], "per side");
}

#[test]
fn framing_faults_map_to_stdio_rules() {
    let mut c = session();
    let bad = mcpspec_protocol::framing::decode_line(b"y");
    assert_eq!(ids(&c.on_frame(S2C, bad)), ["stdio/stdout-only-mcp"]);
    assert_eq!(ids(&c.on_frame(S2C, FrameContent::Blank)), ["stdio/blank-line"]);
}
