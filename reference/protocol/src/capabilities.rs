//! Capability negotiation (basic/lifecycle.mdx#capability-negotiation): whether a
//! `capabilities` object declares a (sub-)capability, and which server capability a client
//! request needs. Sans-IO.

use crate::revision::Revision;
use serde_json::Value;

/// The server capability (a dot-separated path) a client request of `method` needs at
/// `revision`, if any.
pub fn server_capability_for(method: &str, revision: Revision) -> Option<&'static str> {
    Some(match method {
        "tools/list" | "tools/call" => "tools",
        "resources/list" | "resources/templates/list" | "resources/read" => "resources",
        "resources/subscribe" | "resources/unsubscribe" => "resources.subscribe",
        "prompts/list" | "prompts/get" => "prompts",
        "logging/setLevel" => "logging",
        // 2024-11-05 had completion/complete without a capability to declare.
        "completion/complete" if revision >= Revision::V2025_03_26 => "completions",
        _ => return None,
    })
}

/// Why keys of `caps.extensions` are not extension identifiers (basic/versioning.mdx#extension-
/// negotiation, 2026-07-28: the `_meta` key naming rules, with a prefix that may not be left
/// out), one line per key.
pub fn extension_identifier_problems(caps: &Value) -> Vec<String> {
    let Some(extensions) = caps.get("extensions").and_then(Value::as_object) else { return Vec::new() };
    extensions
        .keys()
        .filter_map(|key| match key.split_once('/') {
            None => Some(format!("{key:?} has no prefix (vendor/name)")),
            Some(_) => crate::meta::key_problem(key).map(|why| format!("{key:?}: {why}")),
        })
        .collect()
}

/// Whether `path` (dot-separated, e.g. `sampling.tools`) names a present, non-false member of
/// `caps`.
pub fn declares(caps: &Value, path: &str) -> bool {
    let mut at = caps;
    for key in path.split('.') {
        match at.get(key) {
            Some(v) => at = v,
            None => return false,
        }
    }
    !matches!(at, Value::Null | Value::Bool(false))
}

/// What a successful result of the client request `method` shows the server serves (the
/// items a list holds, the completion values it offers, the tool it called, the prompt or
/// resource it got), which the server's capabilities must then declare (server/tools.mdx,
/// prompts.mdx, resources.mdx and utilities/completion.mdx, #capabilities: a server that
/// supports the feature MUST declare it). `None` when the result shows nothing served: an
/// empty list or no completion values is what a server without the feature may answer.
pub fn served(method: &str, result: &Value) -> Option<String> {
    let count = |pointer: &str| result.pointer(pointer).and_then(Value::as_array).map_or(0, Vec::len);
    let listed = |pointer: &str, what: &str| {
        let n = count(pointer);
        (n > 0).then(|| format!("{n} {what}"))
    };
    match method {
        "tools/list" => listed("/tools", "tools"),
        "prompts/list" => listed("/prompts", "prompts"),
        "resources/list" => listed("/resources", "resources"),
        "resources/templates/list" => listed("/resourceTemplates", "resource templates"),
        "completion/complete" => listed("/completion/values", "completion values"),
        "tools/call" => Some("a tool call's result".to_owned()),
        "prompts/get" => Some("a prompt".to_owned()),
        "resources/read" => Some("a resource's contents".to_owned()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_empty_list_shows_nothing_served() {
        assert_eq!(served("prompts/list", &json!({ "prompts": [] })), None);
        assert_eq!(served("completion/complete", &json!({ "completion": { "values": [] } })), None);
        assert_eq!(served("ping", &json!({})), None);
    }

    #[test]
    fn items_or_an_item_show_the_feature_served() {
        let tools = json!({ "tools": [{ "name": "a" }, { "name": "b" }] });
        assert_eq!(served("tools/list", &tools).as_deref(), Some("2 tools"));
        let values = json!({ "completion": { "values": ["x"] } });
        assert_eq!(served("completion/complete", &values).as_deref(), Some("1 completion values"));
        assert!(served("resources/read", &json!({ "contents": [] })).is_some());
    }
}

#[cfg(test)]
mod extension_tests {
    use super::extension_identifier_problems;
    use serde_json::json;

    #[test]
    fn extension_identifiers_need_a_valid_prefix() {
        let ok = json!({"extensions": {"io.modelcontextprotocol/tasks": {}, "com.example/ui-2": {"a": 1}}});
        assert!(extension_identifier_problems(&ok).is_empty());
        let bad = json!({"extensions": {"tasks": {}, "1bad.example/x": {}, "com.example/-x": {}}});
        assert_eq!(extension_identifier_problems(&bad).len(), 3, "{bad}");
        assert!(extension_identifier_problems(&json!({"tools": {}})).is_empty());
    }
}
