//! The client persona: what a client declares in `initialize` and how it answers the server's
//! requests — a deterministic stand-in for a user and a model, so a server's sampling tool loop,
//! elicitation or roots request can run to completion. The reference client answers through it,
//! and the harness plays it towards a server under test. Sans-IO.

use mcpspec_protocol::arguments::example_object;
use mcpspec_protocol::capabilities::declares;
use mcpspec_protocol::elicitation;
use mcpspec_protocol::sampling::{self, tool_balance_violations};
use mcpspec_protocol::wire::{ErrorObject, Message, Request};
use serde_json::{json, Value};

/// How many tool rounds the scripted model plays in one conversation before it answers with
/// text.
const MAX_TOOL_ROUNDS: usize = 3;

/// The client mcpspec plays (the reference client, and the harness towards a server).
#[derive(Debug, Clone)]
pub struct ClientPersona {
    /// The `capabilities` object sent in `initialize`.
    pub capabilities: Value,
    /// The user declines every elicitation instead of accepting it.
    pub declines_elicitation: bool,
    /// The roots `roots/list` answers with (the user may open another folder: `add_root`).
    roots: Vec<Value>,
}

impl Default for ClientPersona {
    fn default() -> Self {
        ClientPersona::new(json!({}))
    }
}

/// The root the persona lists (`client/roots.mdx`: roots are `file://` URIs).
pub const ROOT_URI: &str = "file:///tmp/mcpspec/project";

impl ClientPersona {
    pub fn new(capabilities: Value) -> Self {
        ClientPersona {
            capabilities,
            declines_elicitation: false,
            roots: vec![json!({ "uri": ROOT_URI, "name": "project" })],
        }
    }

    fn declares(&self, capability: &str) -> bool {
        self.capabilities.get(capability).is_some()
    }

    /// The user opens one more folder: a root `roots/list` answers with from now on.
    pub fn add_root(&mut self, uri: &str, name: &str) {
        self.roots.push(json!({ "uri": uri, "name": name }));
    }

    /// Whether the persona uses tools in sampling: only when it declared `sampling.tools`
    /// (client/sampling.mdx#tools-in-sampling: tool use is declared before it is used).
    pub fn uses_tools(&self) -> bool {
        declares(&self.capabilities, "sampling.tools")
    }

    /// The answer to a server's request.
    pub fn answer(&mut self, request: &Request) -> Message {
        let id = request.id.clone();
        let params = request.params.clone().unwrap_or(Value::Null);
        let undeclared = |what: &str| {
            Message::error(
                Some(id.clone()),
                ErrorObject::new(
                    ErrorObject::METHOD_NOT_FOUND,
                    format!("Method not found: this client did not declare {what}"),
                ),
            )
        };
        match request.method.as_str() {
            "ping" => Message::result(id, json!({})),
            "roots/list" if self.declares("roots") => Message::result(id, json!({ "roots": self.roots })),
            "sampling/createMessage" if self.declares("sampling") => match self.sample(&params) {
                Ok(result) => Message::result(id, result),
                Err(e) => Message::error(Some(id), e),
            },
            "elicitation/create" if self.declares("elicitation") => match self.elicit(&params) {
                Ok(result) => Message::result(id, result),
                Err(e) => Message::error(Some(id), e),
            },
            "roots/list" => undeclared("roots"),
            "sampling/createMessage" => undeclared("sampling"),
            "elicitation/create" => undeclared("elicitation"),
            other => Message::error(
                Some(id),
                ErrorObject::new(ErrorObject::METHOD_NOT_FOUND, format!("Method not found: {other}")),
            ),
        }
    }

    /// The `inputResponses` answering an `InputRequiredResult`'s `inputRequests` (modern era,
    /// `basic/patterns/mrtr.mdx`): each entry answered as the request it holds would be, under
    /// the same key; an entry the persona refuses (a capability it did not declare, a request
    /// it finds malformed) is left out, as a client that cannot fulfil it would.
    pub fn answer_inputs(&mut self, input_requests: &Value) -> Value {
        let mut responses = serde_json::Map::new();
        for (key, input) in input_requests.as_object().into_iter().flatten() {
            let Some(method) = input.get("method").and_then(Value::as_str) else { continue };
            let request =
                Request { id: 0.into(), method: method.to_owned(), params: input.get("params").cloned() };
            if let Message::Response(mcpspec_protocol::wire::Response {
                outcome: mcpspec_protocol::wire::Outcome::Result(r),
                ..
            }) = self.answer(&request)
            {
                responses.insert(key.clone(), r);
            }
        }
        Value::Object(responses)
    }

    /// The scripted model: while tools are offered and allowed (and `sampling.tools` was
    /// declared), it uses the first one, for at most a few rounds per conversation (counted in
    /// the request's own messages, so each tool loop of a session gets its rounds); then it
    /// answers in text. A request that breaks the tool-use balance gets -32602, as client/sampling.mdx
    /// (error handling) says clients SHOULD answer it.
    pub(super) fn sample(&self, params: &Value) -> Result<Value, ErrorObject> {
        let unbalanced = tool_balance_violations(params);
        if let Some(first) = unbalanced.first() {
            let what = match first.contains("mixes") {
                true => "Tool results mixed with other content",
                false => "Tool result missing in request",
            };
            return Err(ErrorObject::new(
                ErrorObject::INVALID_PARAMS,
                format!("{what}: {}", unbalanced.join("; ")),
            ));
        }
        // schema.ts (2025-11-25) CreateMessageRequestParams.tools: "The client MUST return an
        // error if this field is provided but ClientCapabilities.sampling.tools is not declared."
        if params.get("tools").is_some() && !self.uses_tools() {
            return Err(ErrorObject::new(
                ErrorObject::INVALID_PARAMS,
                "Invalid params: tools in a sampling request to a client that did not declare sampling.tools",
            ));
        }
        let tools = match self.uses_tools() {
            true => params.get("tools").and_then(Value::as_array).cloned().unwrap_or_default(),
            false => Vec::new(),
        };
        let choice = params.pointer("/toolChoice/mode").and_then(Value::as_str).unwrap_or("auto");
        let rounds = params
            .get("messages")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|m| {
                m["role"] == "assistant" && sampling::blocks(m).iter().any(|b| b["type"] == "tool_use")
            })
            .count();
        if let (Some(tool), true) = (tools.first(), choice != "none" && rounds < MAX_TOOL_ROUNDS) {
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("tool");
            let input = example_object(tool.get("inputSchema").unwrap_or(&Value::Null));
            return Ok(json!({
                "role": "assistant",
                "content": [{
                    "type": "tool_use",
                    "id": format!("mcpspec-tool-use-{}", rounds + 1),
                    "name": name,
                    "input": input,
                }],
                "model": "mcpspec-scripted",
                "stopReason": "toolUse",
            }));
        }
        Ok(json!({
            "role": "assistant",
            "content": { "type": "text", "text": "mcpspec scripted reply" },
            "model": "mcpspec-scripted",
            "stopReason": "endTurn",
        }))
    }

    /// Accepts an elicitation in a mode it declared (or declines it, when the persona's user
    /// declines): content that satisfies the requested schema, its defaults pre-populated (form
    /// mode), nothing for URL mode. A mode it did not
    /// declare gets -32602 (client/elicitation.mdx#error-handling, 2025-11-25: MUST).
    fn elicit(&self, params: &Value) -> Result<Value, ErrorObject> {
        let mode = elicitation::mode(params);
        if !elicitation::mode_declared(&self.capabilities, mode) {
            let declared = self.capabilities.get("elicitation").cloned().unwrap_or(Value::Null);
            return Err(ErrorObject::new(
                ErrorObject::INVALID_PARAMS,
                format!(
                    "Invalid params: elicitation mode {mode:?} was not declared (elicitation: {declared})"
                ),
            ));
        }
        let schema = params.get("requestedSchema").unwrap_or(&Value::Null);
        if let Some(dialect) =
            mcpspec_protocol::dialect::unsupported_dialect(schema).filter(|_| mode != "url")
        {
            // basic/index.mdx#implementation-requirements (2025-11-25 on): MUST answer an
            // unsupported dialect with an error saying so.
            return Err(ErrorObject::new(
                ErrorObject::INVALID_PARAMS,
                format!("Invalid params: the requestedSchema's dialect {dialect} is not supported (JSON Schema 2020-12, 2019-09, draft-07, -06 and -04 are)"),
            ));
        }
        if self.declines_elicitation {
            return Ok(json!({ "action": "decline" }));
        }
        if mode == "url" {
            return Ok(json!({ "action": "accept" }));
        }
        Ok(json!({ "action": "accept", "content": example_object(schema) }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::wire::RequestId;

    fn request(method: &str, params: Value) -> Request {
        Request { id: RequestId::from(7), method: method.into(), params: Some(params) }
    }

    #[test]
    fn undeclared_capabilities_get_method_not_found() {
        let mut p = ClientPersona::default();
        let Message::Response(r) = p.answer(&request("roots/list", json!({}))) else { panic!() };
        assert!(matches!(r.outcome, mcpspec_protocol::wire::Outcome::Error(e) if e.code == -32601));
    }

    #[test]
    fn the_scripted_model_runs_a_bounded_tool_loop() {
        let mut p = ClientPersona::new(json!({"sampling": {"tools": {}}}));
        let start = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "go"}}], "maxTokens": 10, "tools": [{"name": "t", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]});
        // Two loops in one session: each conversation gets its own rounds.
        for _ in 0..2 {
            let mut params = start.clone();
            let mut reasons = Vec::new();
            for _ in 0..5 {
                let Message::Response(r) = p.answer(&request("sampling/createMessage", params.clone()))
                else {
                    panic!()
                };
                let mcpspec_protocol::wire::Outcome::Result(v) = r.outcome else { panic!() };
                reasons.push(v["stopReason"].as_str().unwrap().to_owned());
                if v["stopReason"] == "toolUse" {
                    let id = v["content"][0]["id"].clone();
                    let messages = params["messages"].as_array_mut().unwrap();
                    messages.push(json!({"role": "assistant", "content": v["content"]}));
                    messages.push(json!({"role": "user", "content": [{"type": "tool_result", "toolUseId": id, "content": []}]}));
                }
            }
            assert_eq!(reasons, ["toolUse", "toolUse", "toolUse", "endTurn", "endTurn"]);
        }
    }

    #[test]
    fn elicitation_content_satisfies_the_schema() {
        let schema = json!({"type": "object", "properties": {
            "name": {"type": "string", "minLength": 10}, "age": {"type": "integer", "minimum": 18},
            "ok": {"type": "boolean", "default": false}, "color": {"type": "string", "enum": ["red", "blue"]}},
            "required": ["name", "age", "color"]});
        let p = ClientPersona::new(json!({"elicitation": {}}));
        let v = p.elicit(&json!({"message": "m", "requestedSchema": schema})).unwrap();
        assert_eq!(v["content"], json!({"name": "mcpspecxxx", "age": 18, "ok": false, "color": "red"}));
    }

    fn error_code(p: &mut ClientPersona, method: &str, params: Value) -> Option<i64> {
        let Message::Response(r) = p.answer(&request(method, params)) else { panic!() };
        match r.outcome {
            mcpspec_protocol::wire::Outcome::Error(e) => Some(e.code),
            mcpspec_protocol::wire::Outcome::Result(_) => None,
        }
    }

    #[test]
    fn unbalanced_tool_loops_get_invalid_params() {
        let mut p = ClientPersona::new(json!({"sampling": {"tools": {}}}));
        let tool_use = json!({"role": "assistant", "content": {"type": "tool_use", "id": "a", "name": "t", "input": {}}});
        let params = json!({"messages": [tool_use, {"role": "user", "content": {"type": "text", "text": "?"}}], "maxTokens": 5});
        assert_eq!(error_code(&mut p, "sampling/createMessage", params), Some(-32602));
    }

    /// schema.ts (2025-11-25): a client that did not declare sampling.tools MUST return an error
    /// for a request that carries tools; without tools it samples as ever.
    #[test]
    fn tools_offered_to_a_persona_without_sampling_tools_get_an_error() {
        let mut p = ClientPersona::new(json!({"sampling": {}}));
        let params = json!({"messages": [], "maxTokens": 5, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
        assert_eq!(error_code(&mut p, "sampling/createMessage", params), Some(-32602));
        let plain = json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 5});
        let Message::Response(r) = p.answer(&request("sampling/createMessage", plain)) else { panic!() };
        let mcpspec_protocol::wire::Outcome::Result(v) = r.outcome else { panic!() };
        assert_eq!(v["stopReason"], "endTurn");
    }

    #[test]
    fn elicitation_modes_must_be_declared() {
        let url = json!({"mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "e"});
        let form = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
        let mut form_only = ClientPersona::new(json!({"elicitation": {}}));
        assert_eq!(error_code(&mut form_only, "elicitation/create", url.clone()), Some(-32602));
        assert_eq!(error_code(&mut form_only, "elicitation/create", form.clone()), None);
        let mut url_only = ClientPersona::new(json!({"elicitation": {"url": {}}}));
        assert_eq!(error_code(&mut url_only, "elicitation/create", url), None);
        assert_eq!(error_code(&mut url_only, "elicitation/create", form), Some(-32602));
    }
}
