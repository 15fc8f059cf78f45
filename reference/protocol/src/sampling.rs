//! The rules of `sampling/createMessage` (client/sampling.mdx): the 2025-11-25 tool-use rules of
//! a request — every assistant `tool_use` is answered, before any other message, by a user
//! message made only of `tool_result` blocks, one per tool use, with matching `toolUseId`s — and
//! what a client's result must hold. Sans-IO: the same judgement runs live or over a transcript.

use serde_json::{json, Value};

/// The content blocks of a sampling message (a single block or an array).
pub fn blocks(message: &Value) -> Vec<&Value> {
    match message.get("content") {
        Some(Value::Array(a)) => a.iter().collect(),
        Some(v @ Value::Object(_)) => vec![v],
        _ => Vec::new(),
    }
}

fn kind(block: &Value) -> &str {
    block.get("type").and_then(Value::as_str).unwrap_or("")
}

/// What is wrong with the tool-use balance of a sampling request's `messages`, one line each.
pub fn tool_balance_violations(params: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(messages) = params.get("messages").and_then(Value::as_array) else { return out };
    let mut open: Option<(usize, Vec<String>)> = None;
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("");
        let content = blocks(m);
        let results: Vec<&Value> = content.iter().copied().filter(|b| kind(b) == "tool_result").collect();
        if !results.is_empty() && results.len() != content.len() {
            out.push(format!("message {i} mixes tool_result blocks with other content"));
        }
        if let Some((at, uses)) = open.take() {
            if role != "user" || results.is_empty() {
                out.push(format!("the tool uses of message {at} are not answered by message {i}"));
            } else {
                let ids: Vec<&str> =
                    results.iter().filter_map(|b| b.get("toolUseId").and_then(Value::as_str)).collect();
                for u in &uses {
                    if !ids.contains(&u.as_str()) {
                        out.push(format!("tool use {u:?} of message {at} has no tool_result in message {i}"));
                    }
                }
                for id in ids.iter().filter(|id| !uses.iter().any(|u| u == *id)) {
                    out.push(format!("message {i} answers tool use {id:?}, which message {at} did not make"));
                }
            }
            continue;
        }
        if !results.is_empty() {
            out.push(format!("message {i} holds tool results but follows no tool use"));
        }
        let uses: Vec<String> = content
            .iter()
            .filter(|b| kind(b) == "tool_use")
            .map(|b| b.get("id").and_then(Value::as_str).unwrap_or("").to_owned())
            .collect();
        if !uses.is_empty() {
            if role != "assistant" {
                out.push(format!("message {i} holds tool_use blocks but its role is {role:?}"));
            }
            open = Some((i, uses));
        }
    }
    if let Some((at, _)) = open {
        out.push(format!("the tool uses of message {at}, the last message, are not answered"));
    }
    out
}

/// A short rendering of an optional member, for reports.
pub(crate) fn brief(v: Option<&Value>) -> String {
    match v {
        None => "absent".to_owned(),
        Some(v) => {
            let text = v.to_string();
            match text.char_indices().nth(60) {
                Some((at, _)) => format!("{}…", &text[..at]),
                None => text,
            }
        }
    }
}

/// The `tool_use` blocks of a sampling result (or message).
pub fn tool_uses(message: &Value) -> Vec<&Value> {
    blocks(message).into_iter().filter(|b| kind(b) == "tool_use").collect()
}

/// What a client's `sampling/createMessage` result was judged on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplingJudgement {
    /// Broken MUSTs: missing `role`, `content` or `model`; tool uses the request did not allow.
    pub problems: Vec<String>,
    /// For a result that uses tools: why its `stopReason` is not `"toolUse"` (`Some(Ok)` when it
    /// is). `None` when the result uses no tool, so the rule did not apply.
    pub stop_reason: Option<Result<(), String>>,
    /// One line describing the result, for reports.
    pub summary: String,
}

/// Judges a client's result to a `sampling/createMessage` request with `params`.
///
/// - `role`, `content` and `model` are required by `CreateMessageResult` in every revision.
/// - A `tool_use` names a tool the request offered, has an id, comes in an `assistant` message
///   (client/sampling.mdx#message-roles), and only when the request allowed tools: not with
///   `toolChoice: {mode: "none"}` ("Model MUST NOT use any tools"), never without `tools`;
///   with `toolChoice: {mode: "required"}` a conversation that used no tool yet does not end
///   in a result without one.
/// - A result never holds `tool_result` blocks: those are the server's, in user messages.
/// - `stopReason` is optional ("if known"), but a model that stops to use tools knows why:
///   the 2025-11-25 schema names `"toolUse"` for it, and the server's duty to answer every tool
///   use is keyed on `stopReason: "toolUse"` (client/sampling.mdx#security-considerations), so
///   a tool-using result without it is judged apart, at SHOULD.
pub fn judge_sampling_result(params: &Value, result: &Value) -> SamplingJudgement {
    let mut problems = Vec::new();
    let missing: Vec<&str> =
        ["role", "content", "model"].into_iter().filter(|m| result.get(*m).is_none()).collect();
    if !missing.is_empty() {
        problems.push(format!("the result has no {}", missing.join(", ")));
    }
    if result.get("model").is_some_and(|m| !m.is_string()) {
        problems.push("model is not a string".to_owned());
    }
    let role = result.get("role").and_then(Value::as_str).unwrap_or("");
    let offered: Vec<&str> = params
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| t.iter().filter_map(|t| t.get("name").and_then(Value::as_str)).collect())
        .unwrap_or_default();
    let choice = params.pointer("/toolChoice/mode").and_then(Value::as_str).unwrap_or("auto");
    let uses = tool_uses(result);
    // "required": the model uses at least one tool before it finishes; a conversation that has
    // used none yet cannot finish with this result.
    let used_before = params
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .any(|m| m["role"] == "assistant" && blocks(m).iter().any(|b| kind(b) == "tool_use"));
    if choice == "required" && uses.is_empty() && !used_before && !offered.is_empty() {
        problems.push(
            "it uses no tool, though the request said toolChoice {mode: \"required\"} and the conversation has used none yet"
                .to_owned(),
        );
    }
    if !uses.is_empty() {
        if offered.is_empty() {
            problems.push("it uses a tool, though the request offered none".to_owned());
        } else if choice == "none" {
            problems.push("it uses a tool, though the request said toolChoice {mode: \"none\"}".to_owned());
        }
        if role != "assistant" {
            problems.push(format!("its tool uses come with role {role:?}, not \"assistant\""));
        }
    }
    let mut ids = Vec::new();
    for u in &uses {
        let name = u.get("name").and_then(Value::as_str).unwrap_or("");
        if !offered.is_empty() && !offered.contains(&name) {
            problems.push(format!("it uses tool {name:?}, which the request did not offer"));
        }
        match u.get("id").and_then(Value::as_str).filter(|i| !i.is_empty()) {
            None => problems.push(format!("its use of tool {name:?} has no id")),
            Some(id) if ids.contains(&id) => problems.push(format!("tool use id {id:?} occurs twice")),
            Some(id) => ids.push(id),
        }
    }
    if blocks(result).iter().any(|b| kind(b) == "tool_result") {
        problems.push("it holds tool_result blocks, which only user messages carry".to_owned());
    }
    let stop = result.get("stopReason");
    let stop_reason = (!uses.is_empty()).then(|| match stop.and_then(Value::as_str) {
        Some("toolUse") => Ok(()),
        Some(other) => Err(format!("stopReason {other:?} on a result that uses tools")),
        None => Err("no stopReason on a result that uses tools".to_owned()),
    });
    let what = match uses.len() {
        0 => "a message".to_owned(),
        n => format!("{n} tool use(s)"),
    };
    let summary = format!(
        "{what} from model {}, role {}, stopReason {}",
        brief(result.get("model")),
        brief(result.get("role")),
        brief(stop),
    );
    SamplingJudgement { problems, stop_reason, summary }
}

/// The next request of a tool loop, as a server following client/sampling.mdx#multi-turn-tool-loop
/// sends it: the previous request's messages, the client's `result` as an assistant message,
/// then a user message answering each of its tool uses with a `tool_result` (or, after a final
/// text, a plain user turn); tools kept, `toolChoice` set to `choice` when given.
pub fn next_turn(params: &Value, result: &Value, choice: Option<&str>) -> Value {
    let mut next = params.clone();
    let mut messages = params.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
    messages
        .push(json!({ "role": "assistant", "content": result.get("content").cloned().unwrap_or(json!([])) }));
    let uses = tool_uses(result);
    let reply = match uses.is_empty() {
        true => json!({ "type": "text", "text": "Thank you. Anything to add?" }),
        false => Value::Array(
            uses.iter()
                .map(|u| {
                    let name = u.get("name").and_then(Value::as_str).unwrap_or("");
                    json!({
                        "type": "tool_result",
                        "toolUseId": u.get("id").cloned().unwrap_or(Value::Null),
                        "content": [{ "type": "text", "text": format!("{name}: 18°C, partly cloudy") }],
                    })
                })
                .collect(),
        ),
    };
    messages.push(json!({ "role": "user", "content": reply }));
    next["messages"] = Value::Array(messages);
    if let Some(mode) = choice {
        next["toolChoice"] = json!({ "mode": mode });
    }
    next
}

#[cfg(test)]
mod tests {

    #[test]
    fn required_tool_choice_needs_a_tool_before_finishing() {
        use serde_json::json;
        let tools = json!([{ "name": "t", "inputSchema": { "type": "object" } }]);
        let ask = json!({ "messages": [{ "role": "user", "content": { "type": "text", "text": "go" } }],
            "maxTokens": 9, "tools": tools, "toolChoice": { "mode": "required" } });
        let text = json!({ "role": "assistant", "content": { "type": "text", "text": "hi" }, "model": "m" });
        let used = json!({ "role": "assistant", "model": "m", "stopReason": "toolUse",
            "content": [{ "type": "tool_use", "id": "u1", "name": "t", "input": {} }] });
        assert!(super::judge_sampling_result(&ask, &text).problems.iter().any(|p| p.contains("required")));
        assert!(super::judge_sampling_result(&ask, &used).problems.is_empty());
        // Once a tool was used, the conversation may finish in text.
        let mut later = ask.clone();
        later["messages"].as_array_mut().unwrap().extend([
            used.clone(),
            json!({ "role": "user",
            "content": [{ "type": "tool_result", "toolUseId": "u1", "content": [] }] }),
        ]);
        assert!(super::judge_sampling_result(&later, &text).problems.is_empty());
    }
    use super::*;

    fn user(content: Value) -> Value {
        json!({"role": "user", "content": content})
    }
    fn assistant(content: Value) -> Value {
        json!({"role": "assistant", "content": content})
    }
    fn tool_use(id: &str) -> Value {
        json!({"type": "tool_use", "id": id, "name": "t", "input": {}})
    }
    fn tool_result(id: &str) -> Value {
        json!({"type": "tool_result", "toolUseId": id, "content": []})
    }
    fn text() -> Value {
        json!({"type": "text", "text": "hi"})
    }

    #[test]
    fn a_balanced_loop_passes() {
        let p = json!({"messages": [user(text()), assistant(json!([tool_use("a"), tool_use("b")])),
            user(json!([tool_result("a"), tool_result("b")])), assistant(text())]});
        assert!(tool_balance_violations(&p).is_empty());
    }

    #[test]
    fn each_imbalance_is_named() {
        let cases = [
            (json!([user(text()), assistant(tool_use("a"))]), "not answered"),
            (json!([assistant(tool_use("a")), user(tool_result("b"))]), "has no tool_result"),
            (json!([assistant(tool_use("a")), user(json!([tool_result("a"), text()]))]), "mixes"),
            (json!([assistant(tool_use("a")), user(text())]), "not answered by message 1"),
            (json!([user(tool_result("x"))]), "follows no tool use"),
        ];
        for (messages, want) in cases {
            let v = tool_balance_violations(&json!({ "messages": messages }));
            assert!(v.iter().any(|l| l.contains(want)), "{messages}: {v:?}");
        }
    }

    #[test]
    fn a_result_is_judged_against_its_request() {
        let tools = json!({"messages": [user(text())], "maxTokens": 9, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]});
        let used =
            json!({"role": "assistant", "content": [tool_use("a")], "model": "m", "stopReason": "toolUse"});
        let j = judge_sampling_result(&tools, &used);
        assert_eq!((j.problems.len(), j.stop_reason.clone()), (0, Some(Ok(()))), "{j:?}");
        let text_result = json!({"role": "assistant", "content": text(), "model": "m"});
        let j = judge_sampling_result(&tools, &text_result);
        assert_eq!((j.problems.len(), j.stop_reason), (0, None));

        let no_stop = json!({"role": "assistant", "content": [tool_use("a")], "model": "m"});
        assert!(judge_sampling_result(&tools, &no_stop).stop_reason.is_some_and(|r| r.is_err()));
        let none =
            json!({"messages": [], "maxTokens": 9, "tools": tools["tools"], "toolChoice": {"mode": "none"}});
        let cases = [
            (&tools, json!({"role": "assistant", "content": text()}), "no model"),
            (&none, used.clone(), "mode: \"none\""),
            (&json!({"messages": []}), used.clone(), "offered none"),
            (&tools, json!({"role": "user", "content": [tool_use("a")], "model": "m"}), "role \"user\""),
            (
                &tools,
                json!({"role": "assistant", "content": [tool_use("a"), tool_use("a")], "model": "m"}),
                "twice",
            ),
            (
                &tools,
                json!({"role": "assistant", "content": {"type": "tool_use", "id": "x", "name": "u", "input": {}}, "model": "m"}),
                "did not offer",
            ),
            (
                &tools,
                json!({"role": "assistant", "content": [tool_result("a")], "model": "m"}),
                "tool_result",
            ),
        ];
        for (params, result, want) in cases {
            let j = judge_sampling_result(params, &result);
            assert!(j.problems.iter().any(|p| p.contains(want)), "{result}: {j:?}");
        }
    }

    #[test]
    fn the_next_turn_answers_every_tool_use() {
        let first = json!({"messages": [user(text())], "maxTokens": 9, "tools": [{"name": "t"}]});
        let used = json!({"role": "assistant", "content": [tool_use("a"), tool_use("b")], "model": "m"});
        let next = next_turn(&first, &used, None);
        assert_eq!(next["messages"].as_array().map(Vec::len), Some(3));
        assert!(tool_balance_violations(&next).is_empty(), "{next}");
        let last =
            next_turn(&next, &json!({"role": "assistant", "content": text(), "model": "m"}), Some("none"));
        assert_eq!(last["toolChoice"]["mode"], "none");
        assert!(tool_balance_violations(&last).is_empty(), "{last}");
    }
}
