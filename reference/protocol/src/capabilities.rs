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
