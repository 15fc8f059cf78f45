//! Everything the reference server sends in a session, per legacy revision, is valid under our
//! schemas and (when present) the official ones; so is the client's side of the script, except
//! the deliberately unknown method. The script walks the server's features: tools (each kind of
//! content, logging, progress, tool errors), resources (every page, read, templates, subscribe),
//! prompts, completion and logging.

use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::server::{ReferenceServer, ServerConfig};
use mcpspec_schema::{RevisionSchema, StreamValidator, Validation};
use serde_json::{json, Value};

/// A scripted client that checks every message both ways.
struct Client<'a> {
    server: ReferenceServer,
    stream: StreamValidator<'a>,
    next_id: i64,
    context: String,
    received: usize,
}

impl<'a> Client<'a> {
    fn new(schema: &'a RevisionSchema, which: &str) -> Client<'a> {
        Client {
            server: ReferenceServer::new(ServerConfig::default()),
            stream: StreamValidator::new(schema),
            next_id: 0,
            context: format!("{which} {}", schema.revision()),
            received: 0,
        }
    }

    fn send(&mut self, message: Value) -> Vec<Value> {
        for v in self.stream.validate(Direction::ClientToServer, &message) {
            let unknown = message["method"] == "no/such/method";
            assert!(
                v.is_valid() || (unknown && matches!(v, Validation::UnknownMethod { .. })),
                "{}: client message {message}: {v:?}",
                self.context
            );
        }
        let replies = self.server.on_value(&message);
        for reply in &replies {
            for v in self.stream.validate(Direction::ServerToClient, reply) {
                assert!(v.is_valid(), "{}: reference server sent {reply}: {v:?}", self.context);
            }
        }
        self.received += replies.len();
        replies
    }

    /// Sends a request; returns the result of the last reply (null for an error).
    fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let mut request = json!({"jsonrpc": "2.0", "id": self.next_id, "method": method});
        if !params.is_null() {
            request["params"] = params;
        }
        self.send(request).last().map(|r| r["result"].clone()).unwrap_or_default()
    }

    /// Every item under `key` of a paginated list, following `nextCursor`.
    fn list_all(&mut self, method: &str, key: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut params = json!({});
        for _ in 0..50 {
            let result = self.call(method, params);
            items.extend(result[key].as_array().cloned().unwrap_or_default());
            match result.get("nextCursor") {
                Some(next) => params = json!({"cursor": next}),
                None => break,
            }
        }
        items
    }
}

fn session(schema: &RevisionSchema, which: &str) -> usize {
    let rev = schema.revision();
    let mut client = Client::new(schema, which);
    client.call("ping", Value::Null);
    client.call(
        "initialize",
        json!({"protocolVersion": rev.as_str(), "capabilities": {},
               "clientInfo": {"name": "mcpspec-test", "version": "1"}}),
    );
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    client.call("logging/setLevel", json!({"level": "debug"}));
    for tool in client.list_all("tools/list", "tools") {
        let name = tool["name"].as_str().unwrap_or_default().to_owned();
        // Tools that ask the client something or take their time are left to the suite.
        if ["test_sampling", "test_elicitation", "test_roots", "slow"].contains(&name.as_str()) {
            continue;
        }
        let arguments = match name.as_str() {
            "echo" => json!({"message": "hi"}),
            "add" => json!({"a": 2, "b": 3.5}),
            _ => json!({}),
        };
        client.call(
            "tools/call",
            json!({"name": name, "arguments": arguments, "_meta": {"progressToken": "p1"}}),
        );
    }
    client.call("tools/call", json!({"name": "no-such-tool", "arguments": {}}));
    for resource in client.list_all("resources/list", "resources") {
        client.call("resources/read", json!({"uri": resource["uri"]}));
    }
    client.list_all("resources/templates/list", "resourceTemplates");
    client.call("resources/subscribe", json!({"uri": "test://watched-resource"}));
    client.call("tools/call", json!({"name": "touch_watched", "arguments": {}}));
    for prompt in client.list_all("prompts/list", "prompts") {
        let arguments: serde_json::Map<String, Value> = prompt["arguments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| {
                let name = a["name"].as_str()?;
                // An argument that names a resource gets a URI (the server embeds it as given).
                let value = if name.to_lowercase().contains("uri") { "test://static-text" } else { "x" };
                Some((name.to_owned(), json!(value)))
            })
            .collect();
        client.call("prompts/get", json!({"name": prompt["name"], "arguments": arguments}));
        client.call(
            "completion/complete",
            json!({"ref": {"type": "ref/prompt", "name": prompt["name"]}, "argument": {"name": "arg1", "value": ""}}),
        );
    }
    client.call("no/such/method", Value::Null);
    client.call("ping", Value::Null);
    client.received
}

#[test]
fn the_reference_server_sends_only_valid_messages() {
    for rev in Revision::LEGACY {
        let received = session(crate::ours().get(rev).unwrap(), "ours");
        assert!(received >= 30, "{rev}: the reference server sent only {received} messages");
        if let Some(official) = crate::official() {
            session(official.get(rev).unwrap(), "official");
        }
    }
}
