//! The dual-era reference client over Streamable HTTP, end to end against the reference server
//! on 127.0.0.1: a modern server is spoken to statelessly, a legacy one after falling back to
//! `initialize` (`streamable-http.mdx#backward-compatibility`: a 4xx whose body holds no modern
//! error means a legacy server). Every wait is bounded.

use mcpspec_protocol::Revision;
use mcpspec_reference::client::run_http;
use mcpspec_reference::server::{serve_http, ReferenceServer, ServerConfig};
use mcpspec_reference::transport::http_server::{Flavor, HttpListener, HttpServerOptions};
use std::time::Duration;

const T: Duration = Duration::from_secs(5);

/// Runs the client (legacy revisions and 2026-07-28, in `scenario`) against a reference server
/// speaking `server`.
async fn client_against(server: Vec<Revision>, scenario: Option<&str>) -> Result<(), String> {
    let mut options = HttpServerOptions::new(Flavor::Streamable);
    options.accepted_revisions = server.clone();
    let listener =
        tokio::time::timeout(T, HttpListener::bind(options)).await.expect("bind in time").expect("bind");
    let url = url::Url::parse(&listener.url()).expect("a URL");
    let config = ServerConfig { supported: server, ..ServerConfig::default() };
    let task = tokio::spawn(async move {
        let _ = serve_http(listener, move || ReferenceServer::new(config.clone())).await;
    });
    let mut supported = Revision::LEGACY.to_vec();
    supported.push(Revision::V2026_07_28);
    let run = run_http(url, Flavor::Streamable, supported, scenario, None, T, None);
    let outcome = tokio::time::timeout(T * 3, run).await.unwrap_or_else(|_| Err("no end in time".into()));
    task.abort();
    outcome
}

#[tokio::test]
async fn the_dual_era_client_speaks_to_a_modern_server_statelessly() {
    let outcome = client_against(vec![Revision::V2026_07_28], Some("client-modern/mrtr-multi-round")).await;
    assert_eq!(outcome, Ok(()));
}

#[tokio::test]
async fn the_dual_era_client_falls_back_to_initialize_with_a_legacy_server() {
    let outcome = client_against(Revision::LEGACY.to_vec(), None).await;
    assert_eq!(outcome, Ok(()));
}
