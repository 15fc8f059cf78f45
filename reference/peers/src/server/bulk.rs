//! A grown catalogue, for measuring how mcpspec's cost grows with what a server offers
//! (`mcpspec reference server --catalogue N --result-bytes S`, `bench/growth.sh`, issue #31):
//! N more tools, resources and prompts beside the fixture's, each answering with S bytes of
//! text (a tool after a delay, if one is set). The fixture's own items are untouched, so every
//! scenario judges the server as without them.

use serde_json::{json, Value};
use std::time::Duration;

/// The size of the grown catalogue and of its answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bulk {
    /// Tools, and as many resources and prompts.
    pub items: usize,
    /// The length of the text each of them answers with, in bytes.
    pub result_bytes: usize,
    /// How long a grown tool takes to answer.
    pub delay: Duration,
}

const TOOL: &str = "bulk_tool_";
const RESOURCE: &str = "test://bulk/";
const PROMPT: &str = "bulk_prompt_";

impl Bulk {
    /// The `i`th grown tool (annotations exist from 2025-03-26: `with_annotations`). Items are
    /// made one at a time, only for the page asked for: a list request costs its page, not
    /// the whole catalogue, so the benchmark measures mcpspec rather than its own server.
    pub(crate) fn tool(&self, i: usize, with_annotations: bool) -> Value {
        let mut t = json!({
            "name": format!("{TOOL}{i}"),
            "description": format!("Answers with {} bytes of text.", self.result_bytes),
            "inputSchema": { "type": "object" },
        });
        if with_annotations {
            t["annotations"] = json!({ "readOnlyHint": true, "openWorldHint": false });
        }
        t
    }

    pub(crate) fn resource(&self, i: usize) -> Value {
        json!({ "uri": format!("{RESOURCE}{i}"), "name": format!("bulk-{i}"), "mimeType": "text/plain" })
    }

    pub(crate) fn prompt_item(&self, i: usize) -> Value {
        json!({ "name": format!("{PROMPT}{i}"), "description": "A grown prompt." })
    }

    /// Whether `name` is a grown tool.
    pub(crate) fn is_tool(&self, name: &str) -> bool {
        self.index(name, TOOL).is_some()
    }

    /// The `contents` of a grown resource, if `uri` is one.
    pub(crate) fn read(&self, uri: &str) -> Option<Value> {
        self.index(uri, RESOURCE)?;
        Some(json!([{ "uri": uri, "mimeType": "text/plain", "text": self.text() }]))
    }

    /// The result of `prompts/get` of a grown prompt, if `name` is one.
    pub(crate) fn prompt(&self, name: &str) -> Option<Value> {
        self.index(name, PROMPT)?;
        let message = json!({ "role": "user", "content": { "type": "text", "text": self.text() } });
        Some(json!({ "description": "A grown prompt.", "messages": [message] }))
    }

    /// The text every grown item answers with: `result_bytes` bytes.
    pub(crate) fn text(&self) -> String {
        "mcpspec ".repeat(self.result_bytes / 8 + 1)[..self.result_bytes].to_owned()
    }

    /// The number of a grown item named `prefix` + number, within the catalogue.
    fn index(&self, name: &str, prefix: &str) -> Option<usize> {
        let n: usize = name.strip_prefix(prefix)?.parse().ok()?;
        (n < self.items).then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_named_and_sized_as_asked() {
        let bulk = Bulk { items: 3, result_bytes: 1024, delay: Duration::ZERO };
        assert_eq!(bulk.tool(2, true)["name"], "bulk_tool_2");
        assert!(
            bulk.tool(2, true).get("annotations").is_some()
                && bulk.tool(2, false).get("annotations").is_none()
        );
        assert!(bulk.is_tool(bulk.tool(2, false)["name"].as_str().unwrap()));
        assert_eq!(bulk.resource(1)["uri"], "test://bulk/1");
        assert!(bulk.prompt(bulk.prompt_item(1)["name"].as_str().unwrap()).is_some());
        assert!(bulk.is_tool("bulk_tool_2") && !bulk.is_tool("bulk_tool_3") && !bulk.is_tool("bulk_tool_x"));
        assert_eq!(bulk.text().len(), 1024);
        assert_eq!(bulk.read("test://bulk/0").unwrap()[0]["text"].as_str().unwrap().len(), 1024);
        assert!(bulk.read("test://bulk/3").is_none());
        assert!(bulk.prompt("bulk_prompt_1").is_some() && bulk.prompt("bulk_prompt_9").is_none());
    }
}
