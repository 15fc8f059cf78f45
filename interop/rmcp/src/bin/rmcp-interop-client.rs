//! A plain MCP client on rmcp (crates.io), an implementation under test of mcpspec's interop
//! matrix, on the contract of `mcpspec client`: over stdio it spawns the server named by
//! MCP_CONFORMANCE_SERVER_COMMAND (a JSON array); given a URL as its last argument it speaks
//! Streamable HTTP to it. It offers the revision MCP_CONFORMANCE_PROTOCOL_VERSION names (a
//! modern one: rmcp's dual-era `Auto` lifecycle, probing with server/discover), lists the tools
//! when the server declares them, calls the first tool that needs no arguments, and ends the
//! session. It declares sampling and roots: sampling gets a fixed text reply, roots one root;
//! elicitations are declined (rmcp's default).

#![allow(deprecated)] // rmcp marks sampling and roots deprecated (SEP-2577); they are still MCP.

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ErrorData, Implementation, ListRootsResult, ProtocolVersion, Root, SamplingMessage,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ClientLifecycleMode, ClientServiceExt};
use std::time::Duration;

struct Interop {
    revision: Option<ProtocolVersion>,
}

impl ClientHandler for Interop {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder().enable_sampling().enable_roots().build();
        let config = ClientConfig::new(capabilities, Implementation::new("mcpspec-interop-rmcp-client", "0.0.0"));
        match &self.revision {
            Some(revision) if revision.has_initialize() => config.with_protocol_version(revision.clone()),
            _ => config,
        }
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let reply = SamplingMessage::assistant_text("Hello from the rmcp client.");
        Ok(CreateMessageResult::new(reply, "mcpspec-interop".to_owned())
            .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
    }

    async fn list_roots(&self, _context: RequestContext<RoleClient>) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new("file:///tmp/mcpspec/rmcp-client").with_name("work")]))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    // Every wait bounded: the whole run gets 30 s.
    tokio::time::timeout(Duration::from_secs(30), run()).await.map_err(|_| anyhow::anyhow!("gave up after 30 s"))?
}

async fn run() -> anyhow::Result<()> {
    let revision = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .map(|v| serde_json::from_value::<ProtocolVersion>(serde_json::Value::String(v)))
        .transpose()?;
    let lifecycle = match &revision {
        Some(modern) if !modern.has_initialize() => {
            ClientLifecycleMode::Auto { preferred_versions: vec![modern.clone()], legacy_version: None }
        }
        _ => ClientLifecycleMode::Initialize,
    };
    let handler = Interop { revision };
    let url = std::env::args().skip(1).last().filter(|a| a.starts_with("http://"));
    let client = match url {
        Some(url) => handler.serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), lifecycle).await?,
        None => {
            let argv: Vec<String> = serde_json::from_str(&std::env::var("MCP_CONFORMANCE_SERVER_COMMAND")?)?;
            let (program, args) = argv.split_first().ok_or_else(|| anyhow::anyhow!("an empty server command"))?;
            let mut command = tokio::process::Command::new(program);
            command.args(args);
            handler.serve_with_lifecycle(TokioChildProcess::new(command)?, lifecycle).await?
        }
    };
    let declares_tools = client.peer_info().is_some_and(|info| info.capabilities.tools.is_some());
    if declares_tools {
        let tools = client.list_all_tools().await?;
        let no_arguments = |tool: &&rmcp::model::Tool| {
            tool.input_schema.get("required").and_then(|r| r.as_array()).is_none_or(|r| r.is_empty())
        };
        if let Some(tool) = tools.iter().find(no_arguments) {
            client.call_tool(CallToolRequestParams::new(tool.name.clone())).await?;
        }
    }
    client.cancel().await?;
    Ok(())
}
