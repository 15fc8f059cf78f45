//! The command line: one module per command, each taking its options, planning what to run and
//! running it. Shared here: the command enum, the parsers of values several commands take, and
//! the errors that make a usage exit.

pub mod authorization;
pub mod certify;
pub mod config;
pub mod fuzz;
pub mod init;
pub mod list;
pub mod merge;
pub mod reference;
pub mod signals;
pub mod validate;

use clap::{Parser, Subcommand};
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::http_client::{HeaderName, HeaderValue};
use mcpspec_schema::SchemaSet;
use std::path::PathBuf;
use std::sync::Arc;

/// Conformance test suite and protocol fuzzer for the Model Context Protocol.
///
/// Without a command: `mcpspec run`, which certifies the implementations mcpspec.toml lists.
#[derive(Parser)]
#[command(name = "mcpspec", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Cli {
    /// The command to run: the one given, else `mcpspec run`.
    pub fn into_command(self) -> Command {
        self.command.unwrap_or_else(|| Command::Run(config::RunArgs::default()))
    }
}

#[derive(Subcommand)]
pub enum Command {
    /// Certify each implementation the config file lists (mcpspec.toml, or --config FILE):
    /// `mcpspec run [--only NAME]... [FLAGS...]`, the flags overriding the file's.
    ///
    /// Each implementation is certified as `mcpspec server` or `mcpspec client` would certify it
    /// with the flags its keys name. The exit code is the worst of theirs.
    Run(config::RunArgs),
    /// Write mcpspec.toml (and .github/workflows/mcpspec.yml) for the implementation in the
    /// current directory, detected from package.json, pyproject.toml or Cargo.toml.
    ///
    /// Asks on stdin only for what it cannot detect; with --yes (or without a terminal) takes
    /// the defaults and says what it assumed. Never overwrites a file without --force.
    Init(init::InitArgs),
    /// Certify an MCP server: `mcpspec server -- CMD [ARGS...]` (stdio), `mcpspec server --url
    /// URL` (HTTP), or `mcpspec server --transport http -- CMD` (a command serving HTTP on
    /// `{port}`).
    ///
    /// Without a command or URL, certifies mcpspec's own reference server.
    Server(certify::CertifyArgs),
    /// Certify an MCP client: `mcpspec client -- CMD [ARGS...]`.
    ///
    /// Per scenario, mcpspec plays the server and runs CMD with MCP_CONFORMANCE_SERVER_COMMAND
    /// (a JSON array: the argv of the server the client must spawn, a relay to mcpspec),
    /// MCP_CONFORMANCE_SCENARIO, MCP_CONFORMANCE_PROTOCOL_VERSION and MCP_CONFORMANCE_CONTEXT.
    /// Without a command, certifies mcpspec's own reference client.
    Client(certify::CertifyArgs),
    /// Certify an OAuth 2.1 authorization server as MCP requires of it: `mcpspec authorization
    /// --url ISSUER [--client-id ID --client-secret S]`, or `-- CMD` serving it on `{port}`.
    ///
    /// Its metadata (RFC 8414, OpenID Connect Discovery) in the revision's order, dynamic client
    /// registration (RFC 7591), the authorization-code grant with PKCE S256 through the headless
    /// redirect (a 302 to the redirect URI), and what it must refuse. Without a URL or command,
    /// certifies mcpspec's own reference authorization server.
    Authorization(authorization::AuthorizationArgs),
    /// The relay a client under test spawns as its server: bridges stdin and stdout to mcpspec.
    Peer {
        /// The socket mcpspec listens on.
        #[arg(long, value_name = "SOCKET")]
        connect: PathBuf,
    },
    /// Fuzz an MCP server or client: `mcpspec fuzz [--role client] [--transport http] [--duration
    /// 60] -- CMD [ARGS...]`, `mcpspec fuzz --url URL`.
    ///
    /// Finds crashes, hangs, id desyncs, answered notifications, schema-invalid messages and
    /// uncaught errors on stderr; reports each once (by signature), minimized, with a
    /// reproducer that `mcpspec replay` runs. Without a command, fuzzes the reference server.
    /// `mcpspec fuzz merge DIR... --into OUT` unites the corpora and findings of a campaign's
    /// shards (`--shard I/N`).
    Fuzz(fuzz::FuzzArgs),
    /// Run a reproducer written by `mcpspec fuzz`: exit 1 while it still fails, 0 once fixed.
    Replay(fuzz::ReplayArgs),
    /// Validate JSON Lines (one message per line) against a revision's schema.
    Validate(validate::ValidateArgs),
    /// List every scenario and wire rule: level, revisions, transports, tags and clause.
    List(list::ListArgs),
    /// Merge the report directories of a run's shards (`--shard I/N`) into one report, in every
    /// format: `mcpspec merge DIR... --report-dir OUT`.
    ///
    /// The certification, the baseline (stale entries are judged over every shard) and the exit
    /// code are those of the run on one machine. Shards of different runs are refused.
    Merge(merge::MergeArgs),
    /// Run mcpspec's reference implementation.
    Reference {
        #[command(subcommand)]
        role: reference::ReferenceRole,
    },
}

impl Command {
    /// The fuzzer's work is a pipe ping-pong with its children: on one thread, a frame read
    /// from a child reaches the window that waits for it without a wakeup across threads (which
    /// cost more than the work itself). The children run on the other cores.
    pub fn single_threaded(&self) -> bool {
        matches!(self, Command::Fuzz(_) | Command::Replay(_))
    }

    /// These hold many sessions at once, each of which may read a message of megabytes: their
    /// large buffers go back to the system when freed ([`crate::give_large_blocks_back`]).
    pub fn holds_many_sessions(&self) -> bool {
        matches!(self, Command::Server(_) | Command::Client(_) | Command::Authorization(_) | Command::Run(_))
    }

    /// These handle SIGINT, SIGTERM and SIGHUP themselves: they stop, end every process they
    /// started and write the reports of what ran.
    pub fn handles_signals(&self) -> bool {
        matches!(
            self,
            Command::Fuzz(fuzz::FuzzArgs { action: None, .. })
                | Command::Server(_)
                | Command::Client(_)
                | Command::Authorization(_)
                | Command::Run(_)
        )
    }
}

/// Runs the command; returns its exit code.
pub async fn run(command: Command) -> u8 {
    match command {
        Command::Run(args) => config::run(args).await,
        Command::Init(args) => init::run(args),
        Command::Server(args) => certify::run(certify::Role::Server, args).await,
        Command::Client(args) => certify::run(certify::Role::Client, args).await,
        Command::Authorization(args) => authorization::run(args).await,
        Command::Peer { connect } => reference::peer(&connect).await,
        Command::Reference { role } => reference::run(role).await,
        Command::Validate(args) => validate::run(args),
        Command::List(args) => list::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Fuzz(fuzz::FuzzArgs { action: Some(fuzz::FuzzAction::Merge(args)), .. }) => {
            fuzz::merge(args)
        }
        Command::Fuzz(fuzz::FuzzArgs { action: Some(fuzz::FuzzAction::SancovRuntime(args)), .. }) => {
            fuzz::sancov_runtime(args)
        }
        Command::Fuzz(args) => fuzz::fuzz(args).await,
        Command::Replay(args) => fuzz::replay(args).await,
    }
}

#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ServerTransport {
    Stdio,
    Http,
    Sse,
}

pub fn parse_revision(s: &str) -> Result<Revision, String> {
    s.parse().map_err(|e: mcpspec_protocol::UnknownRevision| e.to_string())
}

pub fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 86_400.0 => Ok(v),
        _ => Err(format!("{s:?} is not a number of seconds between 0 and 86400")),
    }
}

pub fn parse_header(s: &str) -> Result<(HeaderName, HeaderValue), String> {
    mcpspec::session::target::parse_header(s)
}

/// The schemas of `--schema-dir DIR` (DIR/<revision>/schema.json), or mcpspec's own.
pub fn schema_set(dir: Option<&PathBuf>) -> Result<Arc<SchemaSet>, String> {
    match dir {
        Some(dir) => SchemaSet::from_dir(dir).map(Arc::new).map_err(|e| format!("--schema-dir: {e}")),
        None => Ok(SchemaSet::shared_builtin()),
    }
}

/// A wrong command line: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct UsageError(pub String);
