//! `mcpspec reference server|client`: mcpspec's own reference implementation, run as any other
//! MCP server or client (the built-in default a certification runs against); and `mcpspec peer`,
//! the relay a client under test spawns as its server.

use super::{parse_revision, parse_seconds, ServerTransport};
use clap::Subcommand;
use mcpspec::report::exit;
use mcpspec::session::client::auth::ORIGIN_PATHS;
use mcpspec_protocol::Revision;
use mcpspec_reference::client::ClientFault;
use mcpspec_reference::faults::Fault;
use mcpspec_reference::server::{serve_http, serve_stdio, ReferenceServer, ServerConfig};
use mcpspec_reference::transport::http_server::{HttpListener, HttpServerOptions, Protection};
use mcpspec_reference::transport::{CommandSpec, Flavor};
use std::path::Path;
use std::time::Duration;

#[derive(Subcommand)]
pub enum ReferenceRole {
    /// The reference MCP server, on stdin/stdout or over HTTP.
    Server {
        /// A revision to offer (repeatable). Default: every legacy revision and 2026-07-28.
        #[arg(long = "revision", value_name = "R", value_parser = parse_revision)]
        revisions: Vec<Revision>,
        /// The revisions to speak, comma-separated (adds to --revision): e.g. `2026-07-28` for
        /// a modern-only server, `2024-11-05,2025-11-25` for a legacy-only one.
        #[arg(long, value_name = "REVISIONS", value_delimiter = ',', value_parser = parse_revision)]
        supported: Vec<Revision>,
        /// Inject a deliberate defect (for mcpspec's own tests).
        #[arg(long, value_name = "NAME", hide = true, value_parser = parse_fault)]
        fault: Option<Fault>,
        /// End every subscriptions/listen stream on its own this many milliseconds after it
        /// opened, with notifications/cancelled (0: right behind its acknowledgement; modern era;
        /// for mcpspec's own tests).
        #[arg(long, value_name = "MS", hide = true)]
        listen_lifetime: Option<u64>,
        /// stdio; http: Streamable HTTP at /mcp; sse: legacy HTTP+SSE at /sse and /messages.
        #[arg(long, value_enum, default_value_t = ServerTransport::Stdio)]
        transport: ServerTransport,
        /// HTTP: the port to listen on (0: a free one).
        #[arg(long, value_name = "N", default_value_t = 0)]
        port: u16,
        /// HTTP: the address to listen on.
        #[arg(long, value_name = "ADDR", default_value = "127.0.0.1")]
        bind: std::net::IpAddr,
        /// Streamable HTTP: answer a POST with one application/json body when all it produces
        /// is its responses.
        #[arg(long)]
        json_responses: bool,
        /// HTTP: serve as an OAuth-protected resource trusting this authorization server (its
        /// issuer URL): protected resource metadata, 401 challenges, tokens checked against the
        /// issuer's keys; an issuer at the root of an http origin is relayed from this server's
        /// origin too (2025-03-26's metadata and default endpoints). `mcpspec server
        /// --auth-issuer` sets MCPSPEC_AUTH_ISSUER for its command.
        #[arg(long, value_name = "URL", env = "MCPSPEC_AUTH_ISSUER")]
        auth_issuer: Option<String>,
        /// HTTP, with --auth-issuer: a scope every token must carry (repeatable; default `mcp`).
        #[arg(long = "auth-scope", value_name = "SCOPE")]
        auth_scopes: Vec<String>,
        /// Benchmarks: N more tools, and as many resources and prompts, beside the fixture's
        /// (`bench/growth.sh`).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
        catalogue: Option<u32>,
        /// Benchmarks, with --catalogue: the bytes of text each grown tool, resource and prompt
        /// answers with.
        #[arg(long, value_name = "BYTES", default_value_t = 1024, requires = "catalogue",
              value_parser = clap::value_parser!(u32).range(0..=64 * 1024 * 1024))]
        result_bytes: u32,
        /// Benchmarks, with --catalogue: milliseconds each grown tool takes to answer.
        #[arg(long, value_name = "MS", default_value_t = 0, requires = "catalogue",
              value_parser = clap::value_parser!(u32).range(0..=600_000))]
        tool_delay_ms: u32,
        /// Items per page of every list (small by default, so that every list paginates).
        #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u32).range(1..=100_000))]
        page_size: u32,
    },
    /// The reference MCP client: spawns the server named by MCP_CONFORMANCE_SERVER_COMMAND
    /// (a JSON array), initializes, lists and calls a tool, then closes the server's stdin.
    Client {
        /// A revision the client supports (repeatable). Default: every legacy revision, and the
        /// modern one MCP_CONFORMANCE_PROTOCOL_VERSION names, if it names one (the client then
        /// probes with server/discover and falls back to initialize).
        #[arg(long = "revision", value_name = "R", value_parser = parse_revision)]
        revisions: Vec<Revision>,
        /// The scenario (also read from MCP_CONFORMANCE_SCENARIO); the reference client does
        /// the same in every scenario, except that it cancels its tool call in
        /// client-cancellation/late-response.
        #[arg(long, value_name = "NAME", env = "MCP_CONFORMANCE_SCENARIO")]
        scenario: Option<String>,
        /// Seconds to wait for each answer of the server.
        #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_seconds)]
        timeout: f64,
        /// Inject a deliberate defect (for mcpspec's own tests).
        #[arg(long, value_name = "NAME", hide = true)]
        fault: Option<ClientFault>,
        /// stdio (spawn MCP_CONFORMANCE_SERVER_COMMAND); http or sse: connect to the server URL
        /// (the last argument, else MCP_CONFORMANCE_SERVER_URL) over Streamable HTTP or HTTP+SSE.
        #[arg(long, value_enum, default_value_t = ServerTransport::Stdio)]
        transport: ServerTransport,
        /// The server's URL (over http or sse).
        #[arg(value_name = "URL")]
        url: Option<String>,
        /// OAuth: the URL of the client's metadata document, its client_id where the
        /// authorization server takes client ID metadata documents (2025-11-25 on). Default: an
        /// address under mcpspec.invalid, where nothing is hosted.
        #[arg(long, value_name = "URL", env = "MCPSPEC_CLIENT_METADATA_URL")]
        client_metadata_url: Option<String>,
    },
}

fn parse_fault(s: &str) -> Result<Fault, String> {
    s.parse()
}

/// `mcpspec reference server|client`.
pub async fn run(role: ReferenceRole) -> u8 {
    match role {
        ReferenceRole::Client {
            revisions,
            scenario,
            timeout,
            fault,
            transport,
            url,
            client_metadata_url,
        } => {
            let asked = std::env::var(mcpspec::session::client::PROTOCOL_VERSION_ENV).ok();
            let revisions = mcpspec_reference::client::supported_for(revisions, asked.as_deref());
            match transport {
                ServerTransport::Stdio => reference_client(revisions, scenario, timeout, fault).await,
                ServerTransport::Http | ServerTransport::Sse => {
                    let flavor = if transport == ServerTransport::Sse {
                        Flavor::LegacySse
                    } else {
                        Flavor::Streamable
                    };
                    let run = ClientRun { revisions, scenario, timeout, fault, client_metadata_url };
                    reference_client_http(flavor, url, run).await
                }
            }
        }
        ReferenceRole::Server {
            mut revisions,
            supported,
            fault,
            listen_lifetime,
            transport,
            port,
            bind,
            json_responses,
            auth_issuer,
            auth_scopes,
            catalogue,
            result_bytes,
            tool_delay_ms,
            page_size,
        } => {
            let bulk = catalogue.map(|n| mcpspec_reference::server::Bulk {
                items: n as usize,
                result_bytes: result_bytes as usize,
                delay: Duration::from_millis(tool_delay_ms.into()),
            });
            let mut config = ServerConfig {
                listen_lifetime: listen_lifetime.map(Duration::from_millis),
                page_size: page_size as usize,
                bulk,
                ..ServerConfig::default()
            };
            revisions.extend(supported);
            if !revisions.is_empty() {
                config.supported = revisions;
            }
            let flavor = match transport {
                ServerTransport::Stdio => None,
                ServerTransport::Http => Some(Flavor::Streamable),
                ServerTransport::Sse => Some(Flavor::LegacySse),
            };
            // The steps of `test_tool_with_progress` leave a client's cancel time to land: over
            // HTTP it travels on a request of its own; over stdio a line on a pipe is quick, but
            // on a loaded machine the client's reaction to the first step took more than the 10 ms
            // of the default (cancellation/no-response-after-cancel then warned now and then; it
            // now calls a response that crossed the cancel inconclusive). Longer steps cost the
            // fuzzer: 250 ms made the planted session leak's campaign 64.5 s against 54.9 s.
            config.progress_interval = config.progress_interval.max(Duration::from_millis(100));
            if let Some(flavor) = flavor {
                let mut options = HttpServerOptions::new(flavor);
                options.bind = std::net::SocketAddr::new(bind, port);
                options.json_responses = json_responses;
                options.fault = fault;
                options.accepted_revisions = config.supported.clone();
                options.param_schemas = mcpspec_reference::server::param_schemas(&config.supported);
                if let Some(issuer) = auth_issuer {
                    let scopes = if auth_scopes.is_empty() { vec!["mcp".to_owned()] } else { auth_scopes };
                    options.authorization_relay = origin_relay(&issuer);
                    options.protection = Some(std::sync::Arc::new(Protection::new(issuer, scopes)));
                }
                return reference_server_http(config, options).await;
            }
            let server = ReferenceServer::new(config);
            let (input, output) = stdio_streams();
            match serve_stdio(server, fault, input, output).await {
                Ok(()) => exit::OK,
                // The client went away mid-write: nothing left to serve.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
                Err(e) => {
                    eprintln!("mcpspec reference server: {e}");
                    exit::ERROR
                }
            }
        }
    }
}

/// 2025-03-26's authorization base URL is the MCP server's origin
/// (`basic/authorization.mdx#authorization-base-url`): the paths a client of that revision
/// looks for there, relayed to the issuer, as the client scenarios' protected server does
/// ([`ORIGIN_PATHS`]). Only an issuer the same paths reach: `http`, at the root of its host.
fn origin_relay(issuer: &str) -> Option<(std::net::SocketAddr, Vec<String>)> {
    let url = url::Url::parse(issuer).ok()?;
    if url.scheme() != "http" || !url.path().trim_end_matches('/').is_empty() {
        return None;
    }
    let to = url.socket_addrs(|| Some(80)).ok()?.into_iter().next()?;
    Some((to, ORIGIN_PATHS.iter().map(|p| p.to_string()).collect()))
}

/// `mcpspec peer --connect SOCKET`: bridges stdin and stdout to the mcpspec run listening there.
pub async fn peer(connect: &Path) -> u8 {
    let within = Duration::from_secs(10);
    match mcpspec::session::client::relay(connect, tokio::io::stdin(), tokio::io::stdout(), within).await {
        Ok(()) => exit::OK,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
        Err(e) => {
            eprintln!("mcpspec peer: {}: {e}", connect.display());
            exit::ERROR
        }
    }
}

/// The reference server's stdin and stdout. Pipes (what every client gives a server) are read
/// and written through the runtime's event loop; tokio's own stdio does each read and write on
/// its blocking pool, a thread hand-off per message that costs more than serving it. Anything
/// else (a file, a terminal) gets tokio's stdio.
fn stdio_streams() -> (Box<dyn tokio::io::AsyncRead + Unpin>, Box<dyn tokio::io::AsyncWrite + Unpin>) {
    use std::os::fd::AsFd as _;
    use tokio::net::unix::pipe;
    let input = std::io::stdin()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Receiver::from_owned_fd(fd).ok())
        .map(|r| Box::new(r) as Box<dyn tokio::io::AsyncRead + Unpin>)
        .unwrap_or_else(|| Box::new(tokio::io::stdin()));
    let output = std::io::stdout()
        .as_fd()
        .try_clone_to_owned()
        .ok()
        .and_then(|fd| pipe::Sender::from_owned_fd(fd).ok())
        .map(|w| Box::new(w) as Box<dyn tokio::io::AsyncWrite + Unpin>)
        .unwrap_or_else(|| Box::new(tokio::io::stdout()));
    (input, output)
}

/// `mcpspec reference server --transport http|sse`: serves until interrupted.
async fn reference_server_http(config: ServerConfig, options: HttpServerOptions) -> u8 {
    let bind = options.bind;
    if let Some(fault) = options.fault.filter(|f| f.is_hostile_http()) {
        let listener = match tokio::net::TcpListener::bind(bind).await {
            Ok(l) => l,
            Err(e) => {
                eprintln!("mcpspec reference server: cannot listen on {bind}: {e}");
                return exit::ERROR;
            }
        };
        let at = listener.local_addr().map_or_else(|_| bind.to_string(), |a| a.to_string());
        eprintln!("mcpspec reference server: listening on http://{at}{}", options.path);
        mcpspec_reference::transport::hostile_http::serve(listener, fault, options.path).await;
        return exit::OK;
    }
    let listener = match HttpListener::bind(options).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("mcpspec reference server: cannot listen on {bind}: {e}");
            return exit::ERROR;
        }
    };
    eprintln!("mcpspec reference server: listening on {}", listener.url());
    match serve_http(listener, move || ReferenceServer::new(config.clone())).await {
        Ok(()) => exit::OK,
        Err(e) => {
            eprintln!("mcpspec reference server: {e}");
            exit::ERROR
        }
    }
}

/// `mcpspec reference client --transport http|sse [URL]`: runs the reference client against
/// the server at URL (else `MCP_CONFORMANCE_SERVER_URL`).
/// What the reference client does over HTTP, as its options say.
struct ClientRun {
    revisions: Vec<Revision>,
    scenario: Option<String>,
    timeout: f64,
    fault: Option<ClientFault>,
    client_metadata_url: Option<String>,
}

async fn reference_client_http(flavor: Flavor, url: Option<String>, run: ClientRun) -> u8 {
    let ClientRun { revisions, scenario, timeout, fault, client_metadata_url } = run;
    let var = mcpspec::session::client::SERVER_URL_ENV;
    let Some(text) = url.or_else(|| std::env::var(var).ok()) else {
        eprintln!("mcpspec reference client: no server URL (give it as the last argument, or set {var})");
        return exit::USAGE;
    };
    let url = match url::Url::parse(&text) {
        Ok(u) => u,
        Err(e) => {
            eprintln!("mcpspec reference client: {text:?} is not a URL: {e}");
            return exit::USAGE;
        }
    };
    let timeout = Duration::from_secs_f64(timeout);
    let run = mcpspec_reference::client::run_http(
        url,
        flavor,
        revisions,
        scenario.as_deref(),
        fault,
        timeout,
        client_metadata_url,
    );
    match run.await {
        Ok(()) => exit::OK,
        Err(why) => {
            eprintln!("mcpspec reference client: {why}");
            exit::ERROR
        }
    }
}

/// `mcpspec reference client`: runs the reference client against the server command in
/// `MCP_CONFORMANCE_SERVER_COMMAND`.
async fn reference_client(
    revisions: Vec<Revision>,
    scenario: Option<String>,
    timeout: f64,
    fault: Option<ClientFault>,
) -> u8 {
    let var = mcpspec::session::client::SERVER_COMMAND_ENV;
    let Ok(text) = std::env::var(var) else {
        eprintln!("mcpspec reference client: {var} is not set (a JSON array: the server's argv)");
        return exit::USAGE;
    };
    let argv: Vec<String> = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("mcpspec reference client: {var} is not a JSON array of strings: {e}");
            return exit::USAGE;
        }
    };
    let Some(command) = CommandSpec::from_argv(argv) else {
        eprintln!("mcpspec reference client: {var} is an empty array");
        return exit::USAGE;
    };
    let timeout = Duration::from_secs_f64(timeout);
    match mcpspec_reference::client::run_stdio(&command, revisions, scenario.as_deref(), fault, timeout).await
    {
        Ok(()) => exit::OK,
        Err(why) => {
            eprintln!("mcpspec reference client: {why}");
            exit::ERROR
        }
    }
}
