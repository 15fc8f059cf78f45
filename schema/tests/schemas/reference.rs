//! Everything the reference server sends in a session, per legacy revision, is valid under our
//! schemas and (when present) the official ones; the client's side of the script too, except the
//! deliberately unknown method.

use mcpspec_reference::server::{ReferenceServer, ServerConfig};
use mcpspec_reference::{Direction, Revision};
use mcpspec_schema::{SchemaSet, StreamValidator, Validation};
use serde_json::{json, Value};

fn script(rev: Revision) -> Vec<Value> {
    let init = |v: &str| {
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": v,
            "capabilities": {}, "clientInfo": {"name": "mcpspec-test", "version": "1"}}})
    };
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}),
        init(rev.as_str()),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "no-such-tool", "arguments": {}}}),
        json!({"jsonrpc": "2.0", "id": 6, "method": "no/such/method"}),
        json!({"jsonrpc": "2.0", "id": "7", "method": "ping"}),
    ]
}

fn check(set: &SchemaSet, which: &str) -> usize {
    let mut checked = 0;
    for rev in Revision::LEGACY {
        let mut server = ReferenceServer::new(ServerConfig::default());
        let mut stream = StreamValidator::new(set.get(rev).unwrap());
        for message in script(rev) {
            for v in stream.validate(Direction::ClientToServer, &message) {
                let expected_unknown = message["method"] == "no/such/method";
                assert!(
                    v.is_valid() || (expected_unknown && matches!(v, Validation::UnknownMethod { .. })),
                    "{which} {rev}: client message {message}: {v:?}"
                );
            }
            for reply in server.on_value(&message) {
                for v in stream.validate(Direction::ServerToClient, &reply) {
                    assert!(v.is_valid(), "{which} {rev}: reference server sent {reply}: {v:?}");
                    checked += 1;
                }
            }
        }
    }
    checked
}

#[test]
fn the_reference_server_sends_only_valid_messages() {
    assert!(check(crate::ours(), "ours") >= 4 * 8);
    if let Some(official) = crate::official() {
        check(official, "official");
    }
}
