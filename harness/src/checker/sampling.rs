//! The 2025-11-25 tool-use rules of `sampling/createMessage` (client/sampling.mdx): every
//! assistant `tool_use` is answered, before any other message, by a user message made only of
//! `tool_result` blocks, one per tool use, with matching `toolUseId`s.

use serde_json::Value;

/// The content blocks of a sampling message (a single block or an array).
fn blocks(message: &Value) -> Vec<&Value> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
}
