//! What a person reads when a message is invalid: definition, JSON-pointer paths and message
//! for typical faults, as an insta snapshot (review changes with `cargo insta review`).

use mcpspec_protocol::{Direction, Revision};
use mcpspec_schema::Validation;
use serde_json::json;
use std::fmt::Write;

#[test]
fn violations_read_well() {
    let c2s = Direction::ClientToServer;
    let s2c = Direction::ServerToClient;
    let cases = vec![
        (
            Revision::V2025_06_18,
            c2s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": 20250618, "capabilities": {}, "clientInfo": {"name": "c"}}}),
            None,
        ),
        (
            Revision::V2025_06_18,
            s2c,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [{"type": "text"}]}}),
            Some("tools/call"),
        ),
        (
            Revision::V2025_06_18,
            s2c,
            json!({"jsonrpc": "2.0", "id": 1, "result": {"contents": [{"uri": "file:///x"}]}}),
            Some("resources/read"),
        ),
        (
            Revision::V2025_11_25,
            s2c,
            json!({"jsonrpc": "2.0", "id": 1, "method": "elicitation/create",
            "params": {"message": "x"}}),
            None,
        ),
        (
            Revision::V2026_07_28,
            c2s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "x", "_meta": {}}}),
            None,
        ),
        (Revision::V2024_11_05, c2s, json!({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}), None),
        (Revision::V2024_11_05, c2s, json!({"id": 1}), None),
        (Revision::V2024_11_05, s2c, json!({"jsonrpc": "2.0", "id": 1, "error": {"code": "oops"}}), None),
        (Revision::V2025_03_26, s2c, json!({"jsonrpc": "2.0", "method": "notifications/unknown"}), None),
        (Revision::V2025_03_26, s2c, json!({"jsonrpc": "2.0", "id": 9, "result": {}}), None),
    ];
    let set = crate::ours();
    let mut out = String::new();
    for (rev, direction, message, answered) in cases {
        writeln!(out, "{rev} {direction} {message}").unwrap();
        match set.get(rev).unwrap().validate(direction, &message, answered) {
            Validation::Invalid { definition, violations } => {
                writeln!(out, "  invalid against {definition}").unwrap();
                for v in violations {
                    writeln!(out, "  - at {:?} ({}): {}", v.instance_path, v.schema_path, v.message).unwrap();
                }
            }
            other => writeln!(out, "  {other:?}").unwrap(),
        }
    }
    insta::assert_snapshot!(out);
}
