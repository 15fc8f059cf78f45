//! The `mcpspec` command line.

mod fuzzing;
mod listing;
mod runner;
mod scenario;
mod signals;
mod steps;
mod steps_client;
mod validate;

use anyhow::Context as _;
use clap::{Args, Parser, Subcommand};
use mcpspec::http_target::Detection;
use mcpspec::report::{exit, Policy, Report, RunInfo, ScenarioSet};
use mcpspec::session::Target;
use mcpspec_protocol::framing::DEFAULT_MAX_MESSAGE_BYTES;
use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::client::ClientFault;
use mcpspec_reference::faults::Fault;
use mcpspec_reference::server::{serve_http, serve_stdio, ReferenceServer, ServerConfig};
use mcpspec_reference::transport::http_client::{HeaderName, HeaderValue, HttpClientOptions};
use mcpspec_reference::transport::http_server::{HttpListener, HttpServerOptions};
use mcpspec_reference::transport::Flavor;
use mcpspec_reference::transport::{ChildOptions, CommandSpec};
use mcpspec_schema::SchemaSet;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Conformance test suite and protocol fuzzer for the Model Context Protocol.
#[derive(Parser)]
#[command(name = "mcpspec", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Certify an MCP server: `mcpspec server -- CMD [ARGS...]` (stdio), `mcpspec server --url
    /// URL` (HTTP), or `mcpspec server --transport http -- CMD` (a command serving HTTP on
    /// `{port}`).
    ///
    /// Without a command or URL, certifies mcpspec's own reference server.
    Server(CertifyArgs),
    /// Certify an MCP client: `mcpspec client -- CMD [ARGS...]`.
    ///
    /// Per scenario, mcpspec plays the server and runs CMD with MCP_CONFORMANCE_SERVER_COMMAND
    /// (a JSON array: the argv of the server the client must spawn, a relay to mcpspec),
    /// MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and MCP_CONFORMANCE_CONTEXT.
    /// Without a command, certifies mcpspec's own reference client.
    Client(CertifyArgs),
    /// The relay a client under test spawns as its server: bridges stdin and stdout to mcpspec.
    Peer {
        /// The socket mcpspec listens on.
        #[arg(long, value_name = "SOCKET")]
        connect: PathBuf,
    },
    /// Fuzz an MCP server over stdio: `mcpspec fuzz [--duration 60] -- CMD [ARGS...]`.
    ///
    /// Finds crashes, hangs, id desyncs, answered notifications, schema-invalid messages and
    /// uncaught errors on stderr; reports each once (by signature), minimized, with a
    /// reproducer that `mcpspec replay` runs. Without a command, fuzzes the reference server.
    Fuzz(FuzzArgs),
    /// Run a reproducer written by `mcpspec fuzz`: exit 1 while it still fails, 0 once fixed.
    Replay(ReplayArgs),
    /// Validate JSON Lines (one message per line) against a revision's schema.
    Validate(ValidateArgs),
    /// List every scenario and wire rule: level, revisions, transports, tags and clause.
    List(ListArgs),
    /// Run mcpspec's reference implementation.
    Reference {
        #[command(subcommand)]
        role: ReferenceRole,
    },
}

/// The options of `mcpspec server` and `mcpspec client`: one certification, either role.
#[derive(Args)]
struct CertifyArgs {
    /// A revision to certify (repeatable). Default for servers: every released revision, both
    /// eras (2024-11-05 … 2026-07-28); one the server does not speak is reported as skipped.
    /// The draft runs when named.
    #[arg(long = "revision", value_name = "R", value_parser = parse_revision)]
    revisions: Vec<Revision>,
    /// Write DIR/report.json.
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// Seconds to wait for each expected message, connection or exit.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_seconds)]
    timeout: f64,
    /// Validate messages with the schemas in DIR/<revision>/schema.json (e.g. the official ones)
    /// instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    schema_dir: Option<PathBuf>,
    /// Scenarios run at once (default: servers, the number of cores; clients, 16, their starts
    /// a few per core at a time).
    #[arg(short = 'j', long, value_name = "N")]
    jobs: Option<usize>,
    /// Servers: run every scenario in a process of its own. By default a scenario that left
    /// its session as it found it (only reading requests, nothing failed or in flight) hands
    /// the process on to the next scenario that needs the same revision and capabilities.
    #[arg(long, env = "MCPSPEC_ISOLATE", value_parser = clap::builder::FalseyValueParser::new())]
    isolate: bool,
    /// The longest line (one message) read from the implementation, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// Read the .feature files from DIR (or DIR/server, DIR/client) instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    scenarios: Option<PathBuf>,
    /// Servers: do not sweep (call every advertised tool, prompt, resource and completion with
    /// generated arguments, under several client personas).
    #[arg(long)]
    no_sweep: bool,
    /// Servers: let the sweep call tools whose annotations say destructiveHint: true.
    #[arg(long)]
    sweep_destructive: bool,
    /// Servers: certify the server at this URL, over HTTP. With a command too, mcpspec starts
    /// the command first (with `{port}` replaced in both, and PORT set).
    #[arg(long, value_name = "URL")]
    url: Option<String>,
    /// The transport: stdio (default without --url), http (Streamable HTTP) or sse (the legacy
    /// HTTP+SSE transport). With --url and no --transport, Streamable HTTP, falling back to
    /// HTTP+SSE as the spec's backwards-compatibility section describes.
    #[arg(long, value_name = "T", value_enum)]
    transport: Option<ServerTransport>,
    /// Servers over HTTP: a header for every request, `Name: value` (repeatable), e.g. for a
    /// server behind auth. Values are never written to reports.
    #[arg(long = "header", value_name = "HEADER", value_parser = parse_header)]
    headers: Vec<(HeaderName, HeaderValue)>,
    /// Known failures: a YAML file of `server:` and `client:` lists of scenario ids (or
    /// `scenario:check-id`), the official conformance suite's format; an entry may also be a
    /// mapping with `id`, `revision`, `transport`, `clause` and `reason`. A listed failure passes
    /// as expected; an unlisted one fails; a listed one that no longer fails fails as stale.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
    /// SHOULD failures fail the run (exit 1) and the certification, as MUST failures do.
    #[arg(long)]
    strict: bool,
    /// Run only the scenarios whose id matches GLOB (repeatable), e.g. 'lifecycle/*' or
    /// 'sweep/tools' (every example of an outline). `mcpspec list` lists the ids.
    #[arg(long = "scenario", value_name = "GLOB")]
    scenario: Vec<String>,
    /// Run only the scenarios carrying TAG, on them or their feature (repeatable), e.g.
    /// `negotiation`, `SHOULD`, `transport:http`.
    #[arg(long = "tag", value_name = "TAG")]
    tag: Vec<String>,
    /// Show only the certification and the summary (no line per scenario, no progress bar).
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// Also show every message of every session as it crosses the wire (a live wire log).
    #[arg(short, long)]
    verbose: bool,
    /// Seconds the whole run may take: scenarios still running then are reported as errors,
    /// with the reason, and the reports are written.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    deadline: Option<f64>,
    /// Run CMD through `sh -c` (its words joined by spaces), for pipes, redirections or
    /// variables. Without it CMD is run directly, never by a shell.
    #[arg(long)]
    shell: bool,
    /// The implementation's command line.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

#[derive(Args)]
struct FuzzArgs {
    /// The revision to fuzz at (default 2025-11-25; 2026-07-28 fuzzes the stateless era). A
    /// server that negotiates another one is fuzzed at that one.
    #[arg(long, value_name = "R", value_parser = parse_revision)]
    revision: Option<Revision>,
    /// The campaign's seed: the same seed, corpus and implementation give the same inputs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    seed: u64,
    /// Seconds to fuzz for (default 60, unless --runs is given).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, conflicts_with = "runs")]
    duration: Option<f64>,
    /// Inputs to run (of this shard), instead of a duration.
    #[arg(long, value_name = "N")]
    runs: Option<u64>,
    /// Workers, each with a process of its own.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    jobs: usize,
    /// Run shard I of N (input indices I, I+N, I+2N, …): split a campaign over CI jobs.
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    shard: mcpspec::fuzz::campaign::Shard,
    /// Inputs kept between runs: read at the start, new ones added.
    #[arg(long, value_name = "DIR")]
    corpus: Option<PathBuf>,
    /// Where reproducers are written (one JSON file per finding, as soon as it is found).
    #[arg(long, value_name = "DIR", default_value = "mcpspec-findings")]
    findings: PathBuf,
    /// Write DIR/report.json.
    #[arg(long, value_name = "DIR")]
    report_dir: Option<PathBuf>,
    /// Seconds a barrier may take before the implementation is said to hang.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = parse_seconds)]
    hang_timeout: f64,
    /// Inputs written between two barriers.
    #[arg(long, value_name = "N", default_value_t = 32)]
    window: usize,
    /// Probes (each a fresh process) to spend minimizing one finding.
    #[arg(long, value_name = "N", default_value_t = 300)]
    minimize_probes: usize,
    /// Call tools whose annotations say destructiveHint: true.
    #[arg(long)]
    destructive: bool,
    /// Known findings: a baseline (see `mcpspec server --expected-failures`) whose `server:`
    /// list names finding ids (`fuzz/crash-1a2b3c4d`): a listed finding passes as expected.
    /// A campaign that does not meet a listed finding leaves it unexercised, never stale.
    #[arg(long, value_name = "FILE")]
    expected_failures: Option<PathBuf>,
    /// Stop once this many distinct findings are known.
    #[arg(long, value_name = "N")]
    max_findings: Option<usize>,
    /// Validate with the schemas in DIR/<revision>/schema.json instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    schema_dir: Option<PathBuf>,
    /// The longest line read from the implementation, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// The implementation's command line.
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

#[derive(Args)]
struct ReplayArgs {
    /// A reproducer written by `mcpspec fuzz`.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Seconds a barrier may take before the implementation is said to hang.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = parse_seconds)]
    hang_timeout: f64,
    /// Validate with the schemas in DIR/<revision>/schema.json instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    schema_dir: Option<PathBuf>,
    /// The implementation's command line (default: the reference server).
    #[arg(last = true, value_name = "CMD")]
    command: Vec<OsString>,
}

#[derive(Args)]
struct ListArgs {
    /// Only this role's scenarios (default: both).
    #[arg(long, value_enum)]
    role: Option<ListRole>,
    /// Only scenarios that run at this revision (repeatable).
    #[arg(long = "revision", value_name = "R", value_parser = parse_revision)]
    revisions: Vec<Revision>,
    /// `table` for people, `json` for tools.
    #[arg(long, value_enum, default_value_t = ListFormat::Table)]
    format: ListFormat,
    /// Read the .feature files from DIR instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    scenarios: Option<PathBuf>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum ListRole {
    Server,
    Client,
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ListFormat {
    Table,
    Json,
}

#[derive(Args)]
struct ValidateArgs {
    /// The revision whose schema judges the messages.
    #[arg(long, value_name = "R", value_parser = parse_revision)]
    revision: Revision,
    /// Which way every message travels; by default inferred per message (a response goes the
    /// other way from its request; a request the way its method is defined for).
    #[arg(long, value_name = "DIR", value_parser = parse_direction)]
    direction: Option<Direction>,
    /// Use the schemas in DIR/<revision>/schema.json instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    schema_dir: Option<PathBuf>,
    /// The longest line read, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    max_message_bytes: usize,
    /// The JSON Lines file (`-` or nothing: standard input).
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
}

#[derive(Subcommand)]
enum ReferenceRole {
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
    },
}

fn parse_header(s: &str) -> Result<(HeaderName, HeaderValue), String> {
    mcpspec::http_target::parse_header(s)
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum ServerTransport {
    Stdio,
    Http,
    Sse,
}

fn parse_revision(s: &str) -> Result<Revision, String> {
    s.parse().map_err(|e: mcpspec_protocol::UnknownRevision| e.to_string())
}

fn parse_direction(s: &str) -> Result<Direction, String> {
    match s {
        "client-to-server" => Ok(Direction::ClientToServer),
        "server-to-client" => Ok(Direction::ServerToClient),
        other => Err(format!("{other:?} is not a direction (client-to-server or server-to-client)")),
    }
}

fn parse_fault(s: &str) -> Result<Fault, String> {
    s.parse()
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds between 0 and 86400")),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The fuzzer's work is a pipe ping-pong with its children: on one thread, a frame read
    // from a child reaches the window that waits for it without a wakeup across threads
    // (which cost more than the work itself). The children run on the other cores.
    let runtime = if matches!(cli.command, Command::Fuzz(_) | Command::Replay(_)) {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    } else {
        tokio::runtime::Runtime::new()
    };
    let runtime = match runtime {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpspec: cannot start the async runtime: {e}");
            return ExitCode::from(exit::ERROR);
        }
    };
    let code = runtime.block_on(async {
        if matches!(cli.command, Command::Fuzz(_) | Command::Server(_) | Command::Client(_)) {
            // These handle SIGINT, SIGTERM and SIGHUP themselves: they stop, end every process
            // they started and write the reports of what ran.
            return run(cli).await;
        }
        tokio::select! {
            code = run(cli) => code,
            _ = tokio::signal::ctrl_c() => {
                // Dropping the run ends every session; each kills its process group.
                eprintln!("mcpspec: interrupted");
                130
            }
        }
    });
    // Don't wait for stray blocking tasks (a stdin read, a hung pipe) on the way out.
    runtime.shutdown_timeout(Duration::from_millis(100));
    ExitCode::from(code)
}

async fn run(cli: Cli) -> u8 {
    match cli.command {
        Command::Server(args) => match certify(Role::Server, args).await {
            Ok(code) => code,
            Err(e) => {
                eprintln!("mcpspec: {e:#}");
                e.downcast_ref::<UsageError>().map_or(exit::ERROR, |_| exit::USAGE)
            }
        },
        Command::Client(args) => match certify(Role::Client, args).await {
            Ok(code) => code,
            Err(e) => {
                eprintln!("mcpspec: {e:#}");
                e.downcast_ref::<UsageError>().map_or(exit::ERROR, |_| exit::USAGE)
            }
        },
        Command::Peer { connect } => {
            let within = Duration::from_secs(10);
            match mcpspec::client_session::relay(&connect, tokio::io::stdin(), tokio::io::stdout(), within)
                .await
            {
                Ok(()) => exit::OK,
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => exit::OK,
                Err(e) => {
                    eprintln!("mcpspec peer: {}: {e}", connect.display());
                    exit::ERROR
                }
            }
        }
        Command::Reference {
            role: ReferenceRole::Client { revisions, scenario, timeout, fault, transport, url },
        } => {
            let asked = std::env::var(mcpspec::client_session::PROTOCOL_VERSION_ENV).ok();
            let revisions = mcpspec_reference::client::supported_for(revisions, asked.as_deref());
            match transport {
                ServerTransport::Stdio => reference_client(revisions, scenario, timeout, fault).await,
                ServerTransport::Http | ServerTransport::Sse => {
                    let flavor = if transport == ServerTransport::Sse {
                        Flavor::LegacySse
                    } else {
                        Flavor::Streamable
                    };
                    reference_client_http(flavor, url, revisions, scenario, timeout, fault).await
                }
            }
        }
        Command::Validate(args) => validate_file(args),
        Command::List(args) => {
            let roles: &[&'static str] = match args.role {
                Some(ListRole::Server) => &["server"],
                Some(ListRole::Client) => &["client"],
                None => &["server", "client"],
            };
            let json = args.format == ListFormat::Json;
            match listing::list(roles, &args.revisions, args.scenarios.as_deref(), json) {
                Ok(text) => {
                    print!("{text}");
                    exit::OK
                }
                Err(e) => {
                    eprintln!("mcpspec list: {e:#}");
                    exit::USAGE
                }
            }
        }
        Command::Fuzz(args) => fuzzing::fuzz(args).await,
        Command::Replay(args) => fuzzing::replay(args).await,
        Command::Reference {
            role:
                ReferenceRole::Server { mut revisions, supported, fault, transport, port, bind, json_responses },
        } => {
            let mut config = ServerConfig::default();
            revisions.extend(supported);
            if !revisions.is_empty() {
                config.supported = revisions;
            }
            let flavor = match transport {
                ServerTransport::Stdio => None,
                ServerTransport::Http => Some(Flavor::Streamable),
                ServerTransport::Sse => Some(Flavor::LegacySse),
            };
            if let Some(flavor) = flavor {
                // A client's cancel travels on a request of its own, which takes longer than
                // a line on a pipe: the steps of `test_tool_with_progress` leave it time to land.
                config.progress_interval =
                    config.progress_interval.max(std::time::Duration::from_millis(100));
                let mut options = HttpServerOptions::new(flavor);
                options.bind = std::net::SocketAddr::new(bind, port);
                options.json_responses = json_responses;
                options.fault = fault;
                options.accepted_revisions = config.supported.clone();
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

/// The schemas of `--schema-dir DIR` (DIR/<revision>/schema.json), or mcpspec's own.
fn schema_set(dir: Option<&PathBuf>) -> Result<Arc<SchemaSet>, String> {
    match dir {
        Some(dir) => SchemaSet::from_dir(dir).map(Arc::new).map_err(|e| format!("--schema-dir: {e}")),
        None => Ok(SchemaSet::shared_builtin()),
    }
}

fn validate_file(args: ValidateArgs) -> u8 {
    let schemas = match schema_set(args.schema_dir.as_ref()) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("mcpspec validate: {e}");
            return exit::USAGE;
        }
    };
    let input: Box<dyn std::io::Read> = match args.file.as_deref() {
        None => Box::new(std::io::stdin().lock()),
        Some(p) if p.as_os_str() == "-" => Box::new(std::io::stdin().lock()),
        Some(p) => match std::fs::File::open(p) {
            Ok(f) => Box::new(f),
            Err(e) => {
                eprintln!("mcpspec validate: cannot read {}: {e}", p.display());
                return exit::USAGE;
            }
        },
    };
    let out = std::io::stdout().lock();
    match validate::run(&schemas, args.revision, args.direction, input, out, args.max_message_bytes) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcpspec validate: {e}");
            exit::ERROR
        }
    }
}

/// A wrong command line: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct UsageError(String);

/// Which side of MCP a run certifies.
#[derive(Clone, Copy)]
enum Role {
    Server,
    Client,
}

impl Role {
    fn name(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }
}

/// Client scenarios run at once by default. A client scenario mostly waits on the client (one
/// that explores a server at a human pace takes 15 s to finish, and
/// client-lifecycle/shutdown waits for it); its CPU goes into the client's start, and starts
/// take turns, a few per core ([`mcpspec::starts::turn`]). Measured on 2 busy
/// cores (issue #12): the exploring client's full suite (its client-lifecycle/shutdown waits
/// 15 s for it, at each of 4 revisions) in 20 s, the TypeScript SDK client's in 22 s, and the
/// Python SDK client's (a second of CPU per start) in 62 s with no start timing out.
const CLIENT_JOBS: usize = 16;

/// Server scenarios run at once by default. A server run is bound by two things: the CPU of
/// starting server processes (which take turns, a few per core, and which shared sessions make
/// fewer), and waits no CPU can shorten (a tool that runs past `--timeout` in every sweep). So
/// many scenarios wait at once while their starts take turns. Measured on 2 cores with
/// `bench/jobs.sh` (issue #12), one run each: server-everything's full suite in 46 s at 16,
/// 34 s at 32 and 38 s at 64; the Python SDK server's in 89 s at 16 and 75 s at 32, with the
/// same verdicts at every value.
const SERVER_JOBS: usize = 32;

/// `mcpspec server` and `mcpspec client`: runs the role's suite and reports.
async fn certify(role: Role, args: CertifyArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    // Caught from the start: a signal while an HTTP server command starts stops the run as soon
    // as the start is over (bounded by its wait), and the served process is ended with it.
    let stopped = signals::stopped();
    let started_at = std::time::SystemTime::now();
    mcpspec::report::console::init(match (args.quiet, args.verbose) {
        (true, _) => mcpspec::report::console::Mode::Quiet,
        (_, true) => mcpspec::report::console::Mode::Verbose,
        _ => mcpspec::report::console::Mode::Normal,
    });
    // Secrets (credential-like environment variables, --header values) never reach a report.
    mcpspec::redact::init(args.headers.iter().filter_map(|(_, v)| v.to_str().ok().map(str::to_owned)));
    let baseline = match &args.expected_failures {
        Some(path) => Some(mcpspec::baseline::Baseline::load(path).map_err(|e| UsageError(e.to_string()))?),
        None => None,
    };
    let selection = mcpspec::report::Selection { scenario: args.scenario.clone(), tag: args.tag.clone() };
    let filter = runner::Filter::new(selection.clone()).map_err(UsageError)?;
    let http = match (role, args.transport, &args.url) {
        (Role::Server, Some(ServerTransport::Stdio), Some(_)) => {
            return Err(UsageError("--url needs --transport http or sse".into()).into())
        }
        (Role::Server, Some(ServerTransport::Http | ServerTransport::Sse), _)
        | (Role::Server, None, Some(_)) => true,
        (Role::Client, _, Some(_)) => {
            let why =
                "a client is certified against mcpspec's own server: use --transport http|sse (mcpspec \
                       serves the URL and passes it to the client as its last argument)";
            return Err(UsageError(why.into()).into());
        }
        _ => false,
    };
    // A client over HTTP: mcpspec's scenario server listens, the client gets its URL.
    let client_flavor = match (role, args.transport) {
        (Role::Client, Some(ServerTransport::Http)) => Some(Flavor::Streamable),
        (Role::Client, Some(ServerTransport::Sse)) => Some(Flavor::LegacySse),
        _ => None,
    };
    let command = match mcpspec::bounds::command_line(&args.command, args.shell) {
        Some(c) => Some(c),
        None if http && args.url.is_some() => None,
        None => {
            let me = std::env::current_exe().context("cannot find mcpspec's own executable")?;
            let role = role.name();
            eprintln!("mcpspec: no {role} command given; certifying the built-in reference {role}");
            let mut argv = vec![me.into_os_string(), "reference".into(), role.into()];
            if let Some(flavor) = client_flavor {
                argv.extend(["--transport".into(), flavor.name().into()]);
            }
            if http {
                let transport = if args.transport == Some(ServerTransport::Sse) { "sse" } else { "http" };
                argv.extend(["--transport".into(), transport.into(), "--port".into(), "{port}".into()]);
            }
            Some(CommandSpec::from_argv(argv).expect("non-empty argv"))
        }
    };
    // The official files (or any others) on request; otherwise mcpspec's own schemas.
    let schemas = Some(schema_set(args.schema_dir.as_ref()).map_err(UsageError)?);
    let timeout = Duration::from_secs_f64(args.timeout);
    let child = ChildOptions {
        max_message_bytes: args.max_message_bytes,
        write_timeout: timeout,
        shutdown_grace: timeout.min(Duration::from_secs(2)),
        ..ChildOptions::default()
    };
    let jobs = args.jobs.unwrap_or(match role {
        Role::Client => CLIENT_JOBS,
        Role::Server => SERVER_JOBS,
    });
    let bounds =
        Arc::new(mcpspec::bounds::RunBounds::new(role.name(), args.deadline.map(Duration::from_secs_f64)));
    // A server over HTTP: started here when it is a command, for the whole run.
    let mut served = None;
    let target = match (http, command) {
        (false, Some(command)) => match client_flavor {
            Some(flavor) => Target::ClientOverHttp(command, flavor),
            None => Target::Stdio(command),
        },
        (false, None) => unreachable!("a command is set unless --url is given"),
        (true, command) => {
            let port = match &command {
                Some(_) => mcpspec::http_target::free_port().context("cannot find a free port")?,
                None => 0,
            };
            let legacy = args.transport == Some(ServerTransport::Sse);
            let default_url = format!("http://127.0.0.1:{{port}}/{}", if legacy { "sse" } else { "mcp" });
            let url_text = args.url.clone().unwrap_or(default_url).replace("{port}", &port.to_string());
            let url = url::Url::parse(&url_text).map_err(|e| UsageError(format!("--url {url_text}: {e}")))?;
            if let Some(command) = &command {
                // A server starting takes longer than a message: three timeouts, at least 10 s.
                let within = (timeout * 3).max(Duration::from_secs(10));
                let process =
                    mcpspec::http_target::ServedProcess::start(command, port, child.clone(), within)
                        .await
                        .map_err(|e| anyhow::anyhow!("the server did not start: {e}"))?;
                served = Some(process);
            }
            let flavor = if legacy { Flavor::LegacySse } else { Flavor::Streamable };
            let mut options = HttpClientOptions::new(url, flavor);
            options.headers = args.headers.clone();
            options.max_message_bytes = args.max_message_bytes;
            options.request_timeout = timeout;
            // A server that cannot be reached is no server to judge: the run stops at once, its
            // scenarios reported as not run (exit 3).
            match mcpspec::http_target::detect(&options).await {
                Ok((flavor, note)) if args.transport.is_none() => {
                    if let Some(note) = note {
                        eprintln!("mcpspec: {note}");
                    }
                    options.flavor = flavor;
                }
                Ok(_) => {}
                Err(Detection::Unreachable(why)) => {
                    let verdict = format!("cannot reach the server: {why}");
                    eprintln!("mcpspec: {verdict}");
                    bounds.unreachable(verdict);
                }
                Err(Detection::Unclear(why)) if args.transport.is_none() => {
                    eprintln!("mcpspec: cannot tell the HTTP transport ({why}); trying Streamable HTTP")
                }
                Err(Detection::Unclear(_)) => {}
            }
            Target::Http(options)
        }
    };
    let display = target.display();
    let transport = target.transport();
    let results = Arc::new(mcpspec::report::Results::new());
    let config = runner::SuiteConfig {
        target,
        revisions: args.revisions.clone(),
        timeout,
        child,
        schemas,
        jobs,
        scenarios: args.scenarios.clone(),
        sweep: steps::sweep::SweepOptions { enabled: !args.no_sweep, destructive: args.sweep_destructive },
        isolate: args.isolate,
        results: results.clone(),
        selection: filter,
        bounds,
    };
    let suite = async {
        match role {
            Role::Server => runner::run_server_suite(config).await,
            Role::Client => runner::run_client_suite(config).await,
        }
    };
    // A stopped run drops the suite: every session it holds ends its process group on drop.
    let (suite, stop) = tokio::select! {
        suite = suite => (Some(suite), None),
        stop = stopped => (None, Some(stop)),
    };
    mcpspec::report::console::get().finish();
    if let Some(stop) = stop {
        eprintln!("mcpspec: stopped by {}; reporting the scenarios that finished", stop.name());
    }
    if let Some(process) = served {
        let end = process.stop().await;
        eprintln!("mcpspec: the server process {}", end.describe());
    }
    let run = match suite {
        Some(suite) => suite.map_err(|e| UsageError(format!("{e:#}")))?,
        None => runner::SuiteRun {
            scenarios: results.take(),
            revisions: args.revisions.clone(),
            not_tested: None,
        },
    };
    let source = match &args.scenarios {
        Some(dir) => dir.display().to_string(),
        None => "built-in".to_owned(),
    };
    let info = RunInfo {
        role: role.name(),
        command: display,
        transport,
        started_at,
        duration_ms: started.elapsed().as_millis() as u64,
        revisions: run.revisions.iter().map(|r| r.to_string()).collect(),
        scenario_set: Some(ScenarioSet { source, scenarios: results.planned_count(), selection }),
        not_tested: run.not_tested,
        interrupted: stop.map(|s| s.name()),
    };
    let mut report =
        Report::new(info, run.scenarios, &Policy { baseline: baseline.as_ref(), strict: args.strict });
    report.redact(mcpspec::redact::run());
    if let Some(dir) = &args.report_dir {
        let written = report
            .write_all(dir)
            .with_context(|| format!("cannot write the reports to {}", dir.display()))?;
        let names: Vec<String> =
            written.iter().filter_map(|p| p.file_name()).map(|n| n.to_string_lossy().into_owned()).collect();
        eprintln!("mcpspec: reports written to {}: {}", dir.display(), names.join(", "));
    }
    if let Some(why) = &report.not_tested {
        println!("not tested: {why}");
    }
    print!("{}", mcpspec::report::console_footer(&report));
    println!("summary: {} ({:.1} s)", report.summary.line(), started.elapsed().as_secs_f64());
    Ok(stop.map_or_else(|| report.exit_code(), |s| s.exit_code()))
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
async fn reference_client_http(
    flavor: Flavor,
    url: Option<String>,
    revisions: Vec<Revision>,
    scenario: Option<String>,
    timeout: f64,
    fault: Option<ClientFault>,
) -> u8 {
    let var = mcpspec::client_session::SERVER_URL_ENV;
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
    let run =
        mcpspec_reference::client::run_http(url, flavor, revisions, scenario.as_deref(), fault, timeout);
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
    let var = mcpspec::client_session::SERVER_COMMAND_ENV;
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
