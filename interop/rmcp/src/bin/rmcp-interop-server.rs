//! A plain MCP server on rmcp (crates.io), an implementation under test of mcpspec's interop
//! matrix: three tools declared with rmcp's macros, served as the SDK serves them by default.
//!
//! `rmcp-interop-server` serves stdio; `rmcp-interop-server http PORT` serves Streamable HTTP
//! on 127.0.0.1:PORT (any path; mcpspec uses /mcp) with `StreamableHttpService`'s default
//! configuration, sessions and all: what a user of the SDK gets without tuning it.

use rmcp::handler::server::{router::tool::ToolRouter, wrapper::Parameters};
use rmcp::model::{Implementation, ServerCapabilities, ServerConfig};
use rmcp::transport::streamable_http_server::{session::local::LocalSessionManager, StreamableHttpService};
use rmcp::{schemars, tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use std::sync::Arc;

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first addend.
    a: i64,
    /// The second addend.
    b: i64,
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to send back.
    text: String,
}

#[derive(Clone)]
struct Interop {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Interop {
    fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

    #[tool(description = "Add two integers")]
    fn add(&self, Parameters(AddArgs { a, b }): Parameters<AddArgs>) -> String {
        a.saturating_add(b).to_string()
    }

    #[tool(description = "Send the text back")]
    fn echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Say hello (no arguments)")]
    fn hello(&self) -> String {
        "Hello from rmcp".to_owned()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Interop {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mcpspec-interop-rmcp", env!("CARGO_PKG_VERSION")))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {
            let running = Interop::new().serve(rmcp::transport::stdio()).await?;
            running.waiting().await?;
        }
        [mode, port] if mode == "http" => serve_http(port.parse()?).await?,
        _ => anyhow::bail!("usage: rmcp-interop-server [http PORT]"),
    }
    Ok(())
}

/// Streamable HTTP on 127.0.0.1:`port`, one hyper connection task per client connection.
async fn serve_http(port: u16) -> anyhow::Result<()> {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    use hyper_util::service::TowerToHyperService;
    let service =
        StreamableHttpService::new(|| Ok(Interop::new()), Arc::new(LocalSessionManager::default()), Default::default());
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    loop {
        let (stream, _) = listener.accept().await?;
        let connection = TowerToHyperService::new(service.clone());
        tokio::spawn(async move {
            // A client that hangs up mid-request ends its own connection only.
            let _ = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), connection)
                .await;
        });
    }
}
