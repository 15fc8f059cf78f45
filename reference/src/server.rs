//! The reference MCP server: a sans-IO handler ([`ReferenceServer`]) that turns each incoming
//! frame into the messages to send back, and [`serve_stdio`], the loop that runs it over a
//! byte stream. It speaks every legacy revision and answers exactly as the spec says, so the
//! suite can be proven against it; the same handler is what the fuzz targets drive.

use crate::faults::Fault;
use crate::framing::{self, FrameContent, LineDecoder};
use crate::revision::{Era, Revision};
use crate::wire::{EnvelopeError, ErrorObject, Message, Notification, Request, RequestId};
use serde_json::{json, Map, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// What the reference server offers.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Revisions it negotiates; the last one is its counter-offer for anything else.
    pub supported: Vec<Revision>,
    pub max_message_bytes: usize,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            supported: Revision::LEGACY.to_vec(),
            max_message_bytes: framing::DEFAULT_MAX_MESSAGE_BYTES,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Nothing but ping and initialize yet.
    AwaitingInitialize,
    /// `initialize` answered; `notifications/initialized` not yet seen.
    Initialized,
    /// `notifications/initialized` received.
    Operating,
}

/// The reference server's protocol state.
#[derive(Debug)]
pub struct ReferenceServer {
    config: ServerConfig,
    phase: Phase,
    revision: Option<Revision>,
}

impl ReferenceServer {
    pub fn new(config: ServerConfig) -> Self {
        ReferenceServer { config, phase: Phase::AwaitingInitialize, revision: None }
    }

    /// The negotiated revision, once `initialize` has been answered.
    pub fn revision(&self) -> Option<Revision> {
        self.revision
    }

    /// Handles one decoded line; returns the messages to write, in order.
    pub fn on_frame(&mut self, frame: &FrameContent) -> Vec<Value> {
        match frame {
            FrameContent::Json { value, .. } => self.on_value(value),
            // A stray empty line carries no request: nothing to answer.
            FrameContent::Blank => Vec::new(),
            FrameContent::Invalid(e) => {
                vec![Message::error(
                    None,
                    ErrorObject::new(ErrorObject::PARSE_ERROR, format!("Parse error: {e}")),
                )
                .to_value()]
            }
        }
    }

    /// Handles one JSON value (a message or, in 2025-03-26, a batch).
    pub fn on_value(&mut self, value: &Value) -> Vec<Value> {
        if let Value::Array(items) = value {
            return self.on_batch(items);
        }
        self.on_single(value).map(|m| m.to_value()).into_iter().collect()
    }

    fn on_batch(&mut self, items: &[Value]) -> Vec<Value> {
        let allowed = self.revision.is_some_and(Revision::allows_batches);
        if !allowed {
            let why = match self.revision {
                Some(r) => format!("Invalid Request: JSON-RPC batches are not part of revision {r}"),
                None => {
                    "Invalid Request: a batch cannot open a session (initialize must not be batched)".into()
                }
            };
            return vec![Message::error(None, ErrorObject::new(ErrorObject::INVALID_REQUEST, why)).to_value()];
        }
        if items.is_empty() {
            return vec![Message::error(
                None,
                ErrorObject::new(ErrorObject::INVALID_REQUEST, "Invalid Request: empty batch"),
            )
            .to_value()];
        }
        let answers: Vec<Value> = items
            .iter()
            .filter_map(|item| {
                if matches!(item, Value::Array(_)) {
                    return Some(invalid_request(None, "a batch may not contain a batch"));
                }
                if item.get("method").and_then(Value::as_str) == Some("initialize") {
                    return Some(invalid_request(
                        item.get("id").and_then(RequestId::from_value),
                        "initialize must not be part of a JSON-RPC batch",
                    ));
                }
                self.on_single(item)
            })
            .map(|m| m.to_value())
            .collect();
        if answers.is_empty() {
            Vec::new()
        } else {
            vec![Value::Array(answers)]
        }
    }

    fn on_single(&mut self, value: &Value) -> Option<Message> {
        match Message::from_value(value) {
            Ok(Message::Request(r)) => Some(self.on_request(r)),
            Ok(Message::Notification(n)) => {
                self.on_notification(n);
                None
            }
            // The reference server sends no requests, so there is nothing a response can answer.
            Ok(Message::Response(_)) => None,
            Err(e) => {
                // A message with a method and no readable id is a notification-shaped error:
                // it cannot be answered with its id, so answer with none, as JSON-RPC says.
                let id = match e {
                    EnvelopeError::NullRequestId | EnvelopeError::BadIdType(_) => None,
                    _ => value.get("id").and_then(RequestId::from_value),
                };
                Some(invalid_request(id, &e.to_string()))
            }
        }
    }

    fn on_notification(&mut self, n: Notification) {
        if n.method == "notifications/initialized" && self.phase == Phase::Initialized {
            self.phase = Phase::Operating;
        }
        // Every other notification (cancelled for a request already answered, progress,
        // unknown ones) is ignored: notifications are never answered.
    }

    fn on_request(&mut self, r: Request) -> Message {
        let params = r.params.as_ref();
        let outcome = match (r.method.as_str(), self.phase) {
            ("ping", _) => Ok(json!({})),
            ("initialize", Phase::AwaitingInitialize) => self.initialize(params),
            ("initialize", _) => Err(ErrorObject::new(
                ErrorObject::INVALID_REQUEST,
                "Invalid Request: the session is already initialized",
            )),
            (_, Phase::AwaitingInitialize) => Err(ErrorObject::new(
                ErrorObject::INVALID_REQUEST,
                format!(
                    "Invalid Request: {:?} before initialize; the session must begin with initialize",
                    r.method
                ),
            )),
            ("tools/list", _) => Ok(self.tools_list()),
            ("tools/call", _) => self.tools_call(params),
            (method, _) => {
                Err(ErrorObject::new(ErrorObject::METHOD_NOT_FOUND, format!("Method not found: {method}")))
            }
        };
        match outcome {
            Ok(result) => Message::result(r.id, result),
            Err(error) => Message::error(Some(r.id), error),
        }
    }

    fn initialize(&mut self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let requested = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("initialize needs params.protocolVersion, a string"))?;
        let legacy: Vec<Revision> =
            self.config.supported.iter().copied().filter(|r| r.era() == Era::Legacy).collect();
        // lifecycle.mdx: echo a supported version, otherwise counter-offer the latest supported.
        let revision = match requested.parse::<Revision>() {
            Ok(r) if legacy.contains(&r) => r,
            _ => *legacy.iter().max().ok_or_else(|| {
                ErrorObject::new(
                    ErrorObject::INTERNAL_ERROR,
                    "this server is configured with no legacy revision",
                )
            })?,
        };
        self.revision = Some(revision);
        self.phase = Phase::Initialized;
        let mut server_info = Map::new();
        server_info.insert("name".into(), "mcpspec-reference".into());
        server_info.insert("version".into(), env!("CARGO_PKG_VERSION").into());
        if revision >= Revision::V2025_06_18 {
            server_info.insert("title".into(), "mcpspec reference server".into());
        }
        let mut result = json!({
            "protocolVersion": revision.as_str(),
            "capabilities": { "tools": { "listChanged": false } },
            "serverInfo": server_info,
        });
        if revision >= Revision::V2025_03_26 {
            result["instructions"] = "The reference server of mcpspec: tools echo and add.".into();
        }
        Ok(result)
    }

    fn rev(&self) -> Revision {
        self.revision.unwrap_or_else(Revision::latest_legacy)
    }

    fn tools_list(&self) -> Value {
        let rev = self.rev();
        let mut echo = json!({
            "name": "echo",
            "description": "Returns its message as text.",
            "inputSchema": {
                "type": "object",
                "properties": { "message": { "type": "string" } },
                "required": ["message"],
            },
        });
        let mut add = json!({
            "name": "add",
            "description": "Adds two numbers.",
            "inputSchema": {
                "type": "object",
                "properties": { "a": { "type": "number" }, "b": { "type": "number" } },
                "required": ["a", "b"],
            },
        });
        if rev >= Revision::V2025_06_18 {
            echo["title"] = "Echo".into();
            add["title"] = "Add".into();
            add["outputSchema"] = json!({
                "type": "object",
                "properties": { "sum": { "type": "number" } },
                "required": ["sum"],
            });
        }
        json!({ "tools": [echo, add] })
    }

    fn tools_call(&self, params: Option<&Value>) -> Result<Value, ErrorObject> {
        let name = params
            .and_then(|p| p.get("name"))
            .and_then(Value::as_str)
            .ok_or_else(|| invalid_params("tools/call needs params.name, a string"))?;
        let args = params.and_then(|p| p.get("arguments")).cloned().unwrap_or(json!({}));
        let text = match name {
            "echo" => match args.get("message").and_then(Value::as_str) {
                Some(m) => Ok((m.to_owned(), None)),
                None => Err("echo needs the argument \"message\", a string".to_owned()),
            },
            "add" => match (args.get("a").and_then(Value::as_f64), args.get("b").and_then(Value::as_f64)) {
                (Some(a), Some(b)) => {
                    let sum = a + b;
                    Ok((sum.to_string(), Some(json!({ "sum": sum }))))
                }
                _ => Err("add needs the arguments \"a\" and \"b\", numbers".to_owned()),
            },
            other => return Err(invalid_params(&format!("Unknown tool: {other}"))),
        };
        match text {
            Ok((text, structured)) => {
                let mut result = json!({ "content": [{ "type": "text", "text": text }], "isError": false });
                if let Some(s) = structured.filter(|_| self.rev() >= Revision::V2025_06_18) {
                    result["structuredContent"] = s;
                }
                Ok(result)
            }
            // tools.mdx: from 2025-11-25 input validation errors are tool execution errors;
            // before, invalid arguments are a protocol error.
            Err(why) if self.rev() >= Revision::V2025_11_25 => {
                Ok(json!({ "content": [{ "type": "text", "text": why }], "isError": true }))
            }
            Err(why) => Err(invalid_params(&why)),
        }
    }
}

fn invalid_params(why: &str) -> ErrorObject {
    ErrorObject::new(ErrorObject::INVALID_PARAMS, format!("Invalid params: {why}"))
}

fn invalid_request(id: Option<RequestId>, why: &str) -> Message {
    Message::error(id, ErrorObject::new(ErrorObject::INVALID_REQUEST, format!("Invalid Request: {why}")))
}

/// Runs the server over a byte stream until its input ends, writing one line per message.
/// A fault (test peers only) changes what is written.
pub async fn serve_stdio<R, W>(
    mut server: ReferenceServer,
    fault: Option<Fault>,
    mut input: R,
    mut output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut decoder = LineDecoder::new(server.config.max_message_bytes);
    let mut buf = vec![0u8; 64 * 1024];
    let mut frames = Vec::new();
    let mut fault = fault.map(crate::faults::FaultState::new);
    if let Some(f) = fault.as_mut() {
        f.at_start(&mut output).await?;
    }
    loop {
        let n = input.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        decoder.push(&buf[..n], &mut frames);
        for frame in frames.drain(..) {
            let answers = server.on_frame(&frame.content);
            let bytes = match fault.as_mut() {
                Some(f) => f.outgoing(&frame.content, answers),
                None => answers.iter().flat_map(framing::encode).collect(),
            };
            output.write_all(&bytes).await?;
            output.flush().await?;
        }
    }
    if let Some(frame) = decoder.finish() {
        let answers = server.on_frame(&frame.content);
        output.write_all(&answers.iter().flat_map(framing::encode).collect::<Vec<u8>>()).await?;
    }
    output.flush().await?;
    if let Some(f) = fault.as_mut() {
        f.at_eof().await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> ReferenceServer {
        ReferenceServer::new(ServerConfig::default())
    }

    fn one(s: &mut ReferenceServer, v: Value) -> Value {
        let mut out = s.on_value(&v);
        assert_eq!(out.len(), 1, "{out:?}");
        out.remove(0)
    }

    fn init(s: &mut ReferenceServer, version: &str) -> Value {
        one(
            s,
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
            "protocolVersion":version,"capabilities":{},"clientInfo":{"name":"t","version":"1"}}}),
        )
    }

    #[test]
    fn echoes_each_legacy_revision_and_counter_offers_the_rest() {
        for r in Revision::LEGACY {
            assert_eq!(init(&mut server(), r.as_str())["result"]["protocolVersion"], r.as_str());
        }
        for v in ["1999-01-01", "2099-12-31", "garbage", "2026-07-28"] {
            assert_eq!(init(&mut server(), v)["result"]["protocolVersion"], "2025-11-25", "{v}");
        }
    }

    #[test]
    fn pings_before_and_after_initialize_and_never_answers_notifications() {
        let mut s = server();
        assert_eq!(one(&mut s, json!({"jsonrpc":"2.0","id":"p","method":"ping"}))["result"], json!({}));
        init(&mut s, "2025-06-18");
        assert!(s.on_value(&json!({"jsonrpc":"2.0","method":"notifications/initialized"})).is_empty());
        assert!(s.on_value(&json!({"jsonrpc":"2.0","method":"no/such"})).is_empty());
        assert_eq!(
            one(&mut s, json!({"jsonrpc":"2.0","id":0,"method":"ping"})),
            json!({"jsonrpc":"2.0","id":0,"result":{}})
        );
    }

    #[test]
    fn answers_errors_with_their_codes() {
        let mut s = server();
        assert_eq!(
            one(&mut s, json!({"jsonrpc":"2.0","id":1,"method":"tools/list"}))["error"]["code"],
            -32600
        );
        init(&mut s, "2025-06-18");
        assert_eq!(one(&mut s, json!({"jsonrpc":"2.0","id":2,"method":"nope"}))["error"]["code"], -32601);
        let unknown = json!({"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"x"}});
        assert_eq!(one(&mut s, unknown)["error"]["code"], -32602);
        assert_eq!(
            one(&mut s, json!({"jsonrpc":"2.0","id":null,"method":"ping"})),
            json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request: the request id is null; MCP request ids must be a string or an integer"}})
        );
        let parse = s.on_frame(&FrameContent::Invalid(framing::FrameError::NotJson {
            reason: "x".into(),
            excerpt: "y".into(),
        }));
        assert_eq!(parse[0]["error"]["code"], -32700);
    }

    #[test]
    fn batches_only_in_2025_03_26() {
        let mut s = server();
        init(&mut s, "2025-03-26");
        let batch = json!([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"ping"}]);
        assert_eq!(one(&mut s, batch.clone()).as_array().map(Vec::len), Some(2));
        let mut s = server();
        init(&mut s, "2025-06-18");
        assert_eq!(one(&mut s, batch)["error"]["code"], -32600);
    }

    #[test]
    fn tools_call_follows_the_revision_on_bad_arguments() {
        let call =
            json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}});
        let mut s = server();
        init(&mut s, "2025-06-18");
        assert_eq!(one(&mut s, call.clone())["error"]["code"], -32602);
        let mut s = server();
        init(&mut s, "2025-11-25");
        assert_eq!(one(&mut s, call)["result"]["isError"], true);
        let ok = json!({"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2.5}}});
        assert_eq!(one(&mut s, ok)["result"]["structuredContent"], json!({"sum": 3.5}));
    }
}
