//! `mcpspec fuzz` and `mcpspec replay`: the command line around `mcpspec::fuzz`.

use super::{parse_header, parse_revision, parse_seconds, schema_set, ServerTransport};
use clap::Args;
use mcpspec::fuzz::campaign::{self, CampaignConfig, Limit};
use mcpspec::fuzz::client::ClientCampaign;
use mcpspec::fuzz::driver::{tail, DriverConfig, FuzzRole, FuzzTarget, HttpTarget};
use mcpspec::fuzz::minimize::Budget;
use mcpspec::fuzz::replay::{self, Replayed, Reproducer};
use mcpspec::report::exit;
use mcpspec::report::Policy;
use mcpspec_protocol::framing::DEFAULT_MAX_MESSAGE_BYTES;
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::http_client::{HeaderName, HeaderValue, HttpClientOptions};
use mcpspec_reference::transport::http_server::HttpServerOptions;
use mcpspec_reference::transport::{CommandSpec, Flavor};
use std::ffi::OsString;
use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct FuzzArgs {
    #[command(subcommand)]
    pub action: Option<FuzzAction>,
    /// The revision to fuzz at (default 2025-11-25; 2026-07-28 fuzzes the modern era). A
    /// server that negotiates another one is fuzzed at that one.
    #[arg(long, value_name = "R", value_parser = parse_revision)]
    pub revision: Option<Revision>,
    /// The campaign's seed: the same seed, corpus and implementation give the same inputs.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Seconds to fuzz for (default 60, unless --runs is given).
    #[arg(long, value_name = "SECS", value_parser = parse_seconds, conflicts_with = "runs")]
    pub duration: Option<f64>,
    /// Inputs to run (of this shard), instead of a duration.
    #[arg(long, value_name = "N")]
    pub runs: Option<u64>,
    /// Workers, each with a process of its own.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 1)]
    pub jobs: usize,
    /// Run shard I of N (input indices I, I+N, I+2N, …): split a campaign over CI jobs.
    #[arg(long, value_name = "I/N", default_value = "0/1")]
    pub shard: mcpspec::fuzz::campaign::Shard,
    /// Inputs kept between runs: read at the start, new ones added.
    #[arg(long, value_name = "DIR")]
    pub corpus: Option<PathBuf>,
    /// Where reproducers are written (one JSON file per finding, as soon as it is found).
    #[arg(long, value_name = "DIR", default_value = "mcpspec-findings")]
    pub findings: PathBuf,
    /// Write DIR/report.json.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Seconds a barrier may take before the implementation is said to hang.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = parse_seconds)]
    pub hang_timeout: f64,
    /// Inputs written between two barriers.
    #[arg(long, value_name = "N", default_value_t = 32)]
    pub window: usize,
    /// Coverage guidance: the server's runtime reports the code each input reached, and inputs
    /// that reach code no process of the campaign reached before join the corpus at once
    /// (mutated by later inputs). node: CMD is node itself, started with its inspector on
    /// loopback (NODE_OPTIONS=--inspect-brk=127.0.0.1:0; stdio only). python: CMD is
    /// `python script.py …` or `python -m module …`, run through a wrapper mcpspec writes
    /// (sys.monitoring, sys.settrace before 3.12). sancov: CMD is a native server built with
    /// SanitizerCoverage (trace-pc-guard) and mcpspec's runtime linked in (`mcpspec fuzz
    /// sancov-runtime`). The implementation's source is not changed. Each input is its own
    /// window. The units reached, by minute, are in the console and report.json.
    #[arg(long, value_name = "SOURCE", conflicts_with = "window", value_parser = parse_coverage)]
    pub coverage: Option<mcpspec::fuzz::coverage::Source>,
    /// With --coverage: measure only, keep inputs as without it (the baseline a guided
    /// campaign is compared with: same seed, same duration).
    #[arg(long, requires = "coverage")]
    pub unguided: bool,
    /// Probes (each a fresh process) to spend minimizing one finding.
    #[arg(long, value_name = "N", default_value_t = 300)]
    pub minimize_probes: usize,
    /// Call tools whose annotations say destructiveHint: true.
    #[arg(long)]
    pub destructive: bool,
    /// Known findings: a baseline (see `mcpspec server --expected-failures`) whose `server:`
    /// list names finding ids (`fuzz/crash-1a2b3c4d`): a listed finding passes as expected.
    /// A campaign that does not meet a listed finding leaves it unexercised, never stale.
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
    /// Stop once this many distinct findings are proven: one that did not trip again on a
    /// fresh process (not a crash) is reported as a warning and does not count.
    #[arg(long, value_name = "N")]
    pub max_findings: Option<usize>,
    /// Validate with the schemas in DIR/<revision>/schema.json instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    pub schema_dir: Option<PathBuf>,
    /// The longest line read from the implementation, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
    #[command(flatten)]
    pub reach: Reach,
}

/// What `mcpspec fuzz` does besides fuzzing.
#[derive(clap::Subcommand)]
pub enum FuzzAction {
    /// Unite the outputs of a campaign's shards: `mcpspec fuzz merge DIR... --into OUT`.
    ///
    /// Each DIR is the folder a shard wrote its corpus and findings into (`mcpspec fuzz --shard
    /// I/N --corpus DIR/corpus --findings DIR/findings`). OUT gets `corpus/` (every input of
    /// every shard, once) and `findings/` (every finding once, with the smallest reproducer the
    /// shards found). Exit 1 when a finding breaks a MUST, 0 otherwise, 2 when the folders are
    /// not the shards of one campaign.
    Merge(MergeArgs),
    /// Write mcpspec's SanitizerCoverage runtime (C source) to FILE, for `--coverage sancov`.
    ///
    /// Build it (`cc -c -O2 -fPIC FILE -o mcpspec_sancov.o`) and link it into a server built
    /// with edge instrumentation: clang `-fsanitize-coverage=trace-pc-guard`, or Rust
    /// `RUSTFLAGS="-C passes=sancov-module -C llvm-args=-sanitizer-coverage-level=3 -C
    /// llvm-args=-sanitizer-coverage-trace-pc-guard -C link-arg=/path/mcpspec_sancov.o"`.
    SancovRuntime(SancovRuntimeArgs),
}

#[derive(Args)]
pub struct SancovRuntimeArgs {
    /// Where to write the C source (a new file).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// `mcpspec fuzz sancov-runtime FILE`: the runtime's source, written where asked.
pub fn sancov_runtime(args: SancovRuntimeArgs) -> u8 {
    let written =
        std::fs::OpenOptions::new().write(true).create_new(true).open(&args.file).and_then(|mut f| {
            std::io::Write::write_all(&mut f, mcpspec::fuzz::coverage::sancov::RUNTIME.as_bytes())
        });
    match written {
        Ok(()) => {
            println!(
                "{}: build it with: cc -c -O2 -fPIC {} -o mcpspec_sancov.o",
                args.file.display(),
                args.file.display()
            );
            exit::OK
        }
        Err(e) => {
            eprintln!("mcpspec fuzz sancov-runtime: {}: {e}", args.file.display());
            exit::USAGE
        }
    }
}

#[derive(Args)]
pub struct MergeArgs {
    /// The shards' folders, each holding corpus/ and findings/ (either may be missing).
    #[arg(value_name = "DIR", required = true)]
    pub shards: Vec<PathBuf>,
    /// The folder to write corpus/ and findings/ into (new, or without either).
    #[arg(long, value_name = "OUT")]
    pub into: PathBuf,
}

/// `mcpspec fuzz merge`: the shards' corpora and findings made one; exit 1 with a MUST finding.
pub fn merge(args: MergeArgs) -> u8 {
    match mcpspec::fuzz::merge::merge(&args.shards, &args.into) {
        Err(e) => {
            eprintln!("mcpspec fuzz merge: {e}");
            match e {
                mcpspec::fuzz::merge::MergeError::Io { .. } => exit::ERROR,
                _ => exit::USAGE,
            }
        }
        Ok(merged) => {
            println!(
                "fuzz merge: {} shard(s); corpus: {} input(s) in {} ({} the same input in another shard); {} finding(s) in {}",
                merged.shards,
                merged.corpus,
                args.into.join("corpus").display(),
                merged.corpus_duplicates,
                merged.findings.len(),
                args.into.join("findings").display(),
            );
            for finding in &merged.findings {
                println!(
                    "  {} {} ({}), found by {} shard(s): mcpspec replay {}",
                    finding.level,
                    finding.id,
                    finding.rule,
                    finding.shards,
                    finding.file.display()
                );
            }
            // As a campaign's report judges them: a broken MUST fails, a SHOULD warns.
            if merged.findings.iter().any(|f| f.level.starts_with("MUST")) {
                exit::MUST_FAILED
            } else {
                exit::OK
            }
        }
    }
}

/// Which implementation and how it is reached: the same words as `mcpspec server|client`.
#[derive(Args)]
pub struct Reach {
    /// What the implementation is: a server (default), or a client, which mcpspec serves as
    /// `mcpspec client` does: over stdio (the client is given `mcpspec peer` as its server
    /// command), or over http|sse (the URL of mcpspec's endpoint appended to CMD).
    #[arg(long, value_enum)]
    pub role: Option<Role>,
    /// The transport: stdio (default without --url), http (Streamable HTTP) or sse (HTTP+SSE).
    /// Over http and sse, CMD is started on a free port: `{port}` in it (and `PORT` in its
    /// environment) says which.
    #[arg(long, value_enum)]
    pub transport: Option<ServerTransport>,
    /// A server already running over HTTP (`{port}` in it stands for the port CMD is started
    /// on). With no --transport, Streamable HTTP, falling back to HTTP+SSE.
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// A header sent with every HTTP request (repeatable), e.g. 'Authorization: Bearer …'.
    #[arg(long = "header", value_name = "HEADER", value_parser = parse_header)]
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The implementation's command line (default: the reference server).
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

#[derive(Args)]
pub struct ReplayArgs {
    /// A reproducer written by `mcpspec fuzz`.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Seconds a barrier may take before the implementation is said to hang.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = parse_seconds)]
    pub hang_timeout: f64,
    /// Validate with the schemas in DIR/<revision>/schema.json instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    pub schema_dir: Option<PathBuf>,
    #[command(flatten)]
    pub reach: Reach,
}

/// The side of the protocol the implementation is.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Role {
    Server,
    Client,
}

/// What is fuzzed, for the implementation's role: a server ([`fuzz_target`]) or a client
/// ([`client_target`]).
async fn target_of(role: FuzzRole, reach: Reach) -> Result<FuzzTarget, String> {
    match role {
        FuzzRole::Client => client_target(reach),
        FuzzRole::Server => fuzz_target(reach).await,
    }
}

/// A client to fuzz: its command (the reference client when none is given), served over stdio,
/// or over http|sse as `mcpspec client --transport http|sse` serves it: mcpspec's endpoint on a
/// free port of 127.0.0.1 for each run, its URL appended to the command.
fn client_target(reach: Reach) -> Result<FuzzTarget, String> {
    if reach.url.is_some() || !reach.headers.is_empty() {
        return Err("a client is served by mcpspec, at a URL of its own: no --url or --header (--transport http|sse serves it over HTTP)".into());
    }
    let flavor = match reach.transport {
        None | Some(ServerTransport::Stdio) => None,
        Some(ServerTransport::Http) => Some(Flavor::Streamable),
        Some(ServerTransport::Sse) => Some(Flavor::LegacySse),
    };
    let command = match CommandSpec::from_argv(reach.command) {
        Some(command) => command,
        None => {
            let me =
                std::env::current_exe().map_err(|e| format!("cannot find mcpspec's own executable: {e}"))?;
            eprintln!("mcpspec: no client command given; using the built-in reference client");
            let mut argv = vec![me.into_os_string(), "reference".into(), "client".into()];
            if let Some(flavor) = flavor {
                argv.extend(["--transport".into(), flavor.name().into()]);
            }
            CommandSpec::from_argv(argv).expect("non-empty argv")
        }
    };
    let Some(flavor) = flavor else { return Ok(FuzzTarget::Stdio(command)) };
    let path = HttpServerOptions::new(flavor).path;
    // `{port}`: each run's endpoint is on a port of its own.
    let url = format!("http://127.0.0.1:{{port}}{path}");
    Ok(FuzzTarget::Http(HttpTarget { flavor, url, command: Some(command), headers: Vec::new() }))
}

/// The relay a client under fuzzing spawns as its server: this very mcpspec, `peer`.
fn relay() -> Result<Vec<String>, String> {
    let me = std::env::current_exe().map_err(|e| format!("cannot find mcpspec's own executable: {e}"))?;
    Ok(vec![me.display().to_string(), "peer".into()])
}

/// What is fuzzed: the command over stdio, a server at `--url`, or the command started on a
/// free port over HTTP (`--transport http|sse`); the built-in reference server when no command
/// or URL is given.
async fn fuzz_target(reach: Reach) -> Result<FuzzTarget, String> {
    let http = match (reach.transport, &reach.url) {
        (Some(ServerTransport::Stdio), Some(_)) => return Err("--url needs --transport http or sse".into()),
        (Some(ServerTransport::Http | ServerTransport::Sse), _) | (None, Some(_)) => true,
        _ => false,
    };
    if !http && !reach.headers.is_empty() {
        return Err("--header is for servers over HTTP (--url or --transport http|sse)".into());
    }
    let command = match CommandSpec::from_argv(reach.command) {
        Some(command) => Some(command),
        None if reach.url.is_some() => None,
        None => {
            let me =
                std::env::current_exe().map_err(|e| format!("cannot find mcpspec's own executable: {e}"))?;
            eprintln!("mcpspec: no server command given; using the built-in reference server");
            let mut argv = vec![me.into_os_string(), "reference".into(), "server".into()];
            if http {
                let transport = if reach.transport == Some(ServerTransport::Sse) { "sse" } else { "http" };
                argv.extend(["--transport".into(), transport.into(), "--port".into(), "{port}".into()]);
            }
            Some(CommandSpec::from_argv(argv).expect("non-empty argv"))
        }
    };
    if !http {
        return Ok(FuzzTarget::Stdio(command.expect("a command unless --url")));
    }
    let legacy = reach.transport == Some(ServerTransport::Sse);
    let url = reach
        .url
        .unwrap_or_else(|| format!("http://127.0.0.1:{{port}}/{}", if legacy { "sse" } else { "mcp" }));
    let mut flavor = if legacy { Flavor::LegacySse } else { Flavor::Streamable };
    // A running server named by URL alone: which transport it speaks is found out, as
    // `mcpspec server --url` does.
    if let (None, None) = (reach.transport, &command) {
        let parsed = url::Url::parse(&url).map_err(|e| format!("--url {url}: {e}"))?;
        let mut options = HttpClientOptions::new(parsed, Flavor::Streamable);
        options.headers = reach.headers.clone();
        match mcpspec::session::target::detect(&options).await {
            Ok((found, note)) => {
                if let Some(note) = note {
                    eprintln!("mcpspec: {note}");
                }
                flavor = found;
            }
            Err(mcpspec::session::target::Detection::Unreachable(why)) => {
                return Err(format!("cannot reach the server: {why}"))
            }
            Err(mcpspec::session::target::Detection::Unclear(why)) => {
                eprintln!("mcpspec: cannot tell the HTTP transport ({why}); trying Streamable HTTP")
            }
        }
    }
    Ok(FuzzTarget::Http(HttpTarget { flavor, url, command, headers: reach.headers }))
}

pub async fn fuzz(args: FuzzArgs) -> u8 {
    let usage = |why: String| {
        eprintln!("mcpspec fuzz: {why}");
        exit::USAGE
    };
    let role = match args.reach.role {
        Some(Role::Client) => FuzzRole::Client,
        _ => FuzzRole::Server,
    };
    let target = match target_of(role, args.reach).await {
        Ok(t) => t,
        Err(why) => return usage(why),
    };
    let schemas = match schema_set(args.schema_dir.as_ref()) {
        Ok(s) => s,
        Err(why) => return usage(why),
    };
    let baseline =
        match args.expected_failures.as_deref().map(mcpspec::report::baseline::Baseline::load).transpose() {
            Ok(b) => b,
            Err(e) => return usage(e.to_string()),
        };
    let coverage = match coverage_of(args.coverage, args.unguided, role, &target) {
        Ok(c) => c,
        Err(why) => return usage(why),
    };
    let hang_timeout = Duration::from_secs_f64(args.hang_timeout);
    let driver = Arc::new(DriverConfig {
        role,
        target,
        coverage,
        revision: args.revision.unwrap_or(Revision::latest_legacy()),
        schemas: Some(schemas),
        hang_timeout,
        start_timeout: hang_timeout.max(Duration::from_secs(10)),
        max_message_bytes: args.max_message_bytes,
    });
    let limit = match (args.runs, args.duration) {
        (Some(runs), _) => Limit::Runs(runs),
        (None, Some(secs)) => Limit::Duration(Duration::from_secs_f64(secs)),
        (None, None) => Limit::Duration(Duration::from_secs(60)),
    };
    let config = CampaignConfig {
        driver: driver.clone(),
        seed: args.seed,
        limit,
        jobs: args.jobs.max(1),
        shard: args.shard,
        corpus_dir: args.corpus,
        findings_dir: Some(args.findings.clone()),
        // With coverage, the code a window reached is its one input's.
        window: if driver.coverage.is_some() { 1 } else { args.window.max(1) },
        minimize: Budget { probes: args.minimize_probes, time: Duration::from_secs(60) },
        destructive: args.destructive,
        progress: std::io::stderr().is_terminal(),
        max_findings: args.max_findings,
    };
    // Ctrl-C (or SIGTERM, SIGHUP) stops the campaign after the windows in flight; what was
    // found is written. A second signal quits at once.
    let stop = Arc::new(AtomicBool::new(false));
    let flag = stop.clone();
    let stopped_by = Arc::new(std::sync::OnceLock::new());
    let by = stopped_by.clone();
    let first = crate::cli::signals::stopped();
    tokio::spawn(async move {
        let signal = first.await;
        let _ = by.set(signal);
        flag.store(true, Ordering::Relaxed);
        eprintln!(
            "\nmcpspec fuzz: stopped by {} (a second signal quits at once); writing what was found",
            signal.name()
        );
        let again = crate::cli::signals::stopped().await;
        std::process::exit(again.exit_code().into());
    });
    let result = match role {
        FuzzRole::Server => campaign::run(config, stop.clone()).await,
        FuzzRole::Client => {
            let relay = match relay() {
                Ok(r) => r,
                Err(why) => return usage(why),
            };
            let client = ClientCampaign {
                driver: driver.clone(),
                relay,
                seed: args.seed,
                limit: config.limit,
                shard: config.shard,
                findings_dir: config.findings_dir.clone(),
                minimize: config.minimize,
                max_findings: config.max_findings,
                jobs: config.jobs,
            };
            client.campaign(stop.clone()).await
        }
    };
    let result = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("mcpspec fuzz: {e}");
            return exit::ERROR;
        }
    };
    let findings_dir = Some(args.findings.as_path()).filter(|_| !result.findings.is_empty());
    print!("{}", mcpspec::fuzz::report::console(&result, findings_dir));
    if let Some(coverage) = mcpspec::fuzz::report::coverage_text(&result, &driver) {
        println!("{coverage}");
    }
    let policy = Policy { baseline: baseline.as_ref(), strict: false, shard: false };
    let mut report = mcpspec::fuzz::report::report(&result, &driver, args.seed, findings_dir, &policy);
    report.redact(&mcpspec::report::redact::run());
    if let Some(dir) = &args.report_dir {
        match report.write_all(dir) {
            Ok(_) => eprintln!("mcpspec fuzz: reports written to {}", dir.display()),
            Err(e) => {
                eprintln!("mcpspec fuzz: cannot write the report to {}: {e}", dir.display());
                return exit::ERROR;
            }
        }
    }
    if let Some(signal) = stopped_by.get() {
        return signal.exit_code();
    }
    report.exit_code()
}

fn parse_coverage(s: &str) -> Result<mcpspec::fuzz::coverage::Source, String> {
    s.parse()
}

/// The campaign's coverage source (`--coverage`), for a server it can measure.
fn coverage_of(
    source: Option<mcpspec::fuzz::coverage::Source>,
    unguided: bool,
    role: FuzzRole,
    target: &FuzzTarget,
) -> Result<Option<mcpspec::fuzz::coverage::CoverageConfig>, String> {
    use mcpspec::fuzz::coverage::{CoverageConfig, Source};
    let Some(source) = source else { return Ok(None) };
    match (role, target) {
        (FuzzRole::Client, _) => return Err("--coverage is for servers".into()),
        (_, FuzzTarget::Http(HttpTarget { command: None, .. })) => {
            return Err("--coverage needs the server's command: mcpspec starts it to measure it".into())
        }
        // Node waits for its inspector before it runs a line, so before it listens.
        (_, FuzzTarget::Http(_)) if source == Source::Node => {
            return Err("--coverage node is for servers over stdio".into())
        }
        _ => {}
    }
    // A Python command that cannot be wrapped is refused now, not at the first start.
    if source == Source::Python {
        let (FuzzTarget::Stdio(command) | FuzzTarget::Http(HttpTarget { command: Some(command), .. })) =
            target
        else {
            return Err("--coverage needs the server's command".into());
        };
        let argv: Vec<OsString> =
            std::iter::once(command.program.clone()).chain(command.args.iter().cloned()).collect();
        mcpspec::fuzz::coverage::python::wrap_argv(&argv, "WRAPPER".as_ref())?;
    }
    CoverageConfig::new(source, !unguided)
        .map(Some)
        .map_err(|e| format!("cannot create the coverage folder: {e}"))
}

pub async fn replay(args: ReplayArgs) -> u8 {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("mcpspec replay: cannot read {}: {e}", args.file.display());
            return exit::USAGE;
        }
    };
    let (reproducer, revision, input) = match Reproducer::parse(&text) {
        Ok(r) => r,
        Err(why) => {
            eprintln!("mcpspec replay: {}: {why}", args.file.display());
            return exit::USAGE;
        }
    };
    // The role the reproducer was found in, unless --role says otherwise.
    let role = match (args.reach.role, reproducer.role.as_deref()) {
        (Some(Role::Client), _) | (None, Some("client")) => FuzzRole::Client,
        _ => FuzzRole::Server,
    };
    let target = match target_of(role, args.reach).await {
        Ok(t) => t,
        Err(why) => {
            eprintln!("mcpspec replay: {why}");
            return exit::USAGE;
        }
    };
    let schemas = match schema_set(args.schema_dir.as_ref()) {
        Ok(s) => s,
        Err(why) => {
            eprintln!("mcpspec replay: {why}");
            return exit::USAGE;
        }
    };
    let hang_timeout = Duration::from_secs_f64(args.hang_timeout);
    let config = DriverConfig {
        role,
        target,
        revision,
        schemas: Some(schemas),
        hang_timeout,
        start_timeout: hang_timeout.max(Duration::from_secs(10)),
        max_message_bytes: mcpspec_protocol::framing::DEFAULT_MAX_MESSAGE_BYTES,
        coverage: None,
    };
    let id = &reproducer.finding;
    match replay::replay(config, &reproducer, &input).await {
        Ok(Replayed::StillFails(o)) => {
            let trip = o.primary().map(|t| t.detail.clone()).unwrap_or_default();
            println!("{id}: still fails ({}): {trip}", reproducer.oracle);
            if !o.stderr.trim().is_empty() {
                println!("  stderr: {}", tail(&o.stderr));
            }
            exit::MUST_FAILED
        }
        Ok(Replayed::FailsDifferently(o)) => {
            let trip = o.primary().map(|t| format!("{:?}: {}", t.oracle, t.detail)).unwrap_or_default();
            println!("{id}: fails differently from the recorded {}: {trip}", reproducer.oracle);
            exit::MUST_FAILED
        }
        Ok(Replayed::Fixed(_)) => {
            println!("{id}: fixed (nothing tripped)");
            exit::OK
        }
        Err(e) => {
            eprintln!("mcpspec replay: {e}");
            exit::ERROR
        }
    }
}
