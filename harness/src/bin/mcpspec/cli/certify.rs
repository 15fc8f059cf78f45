//! `mcpspec server` and `mcpspec client`: one certification, either role. The options become a
//! plan (the target, the schemas, the run's bounds), the plan runs the role's suite, and the
//! suite's scenario reports become the run's report in every format.

use super::{parse_header, parse_revision, parse_seconds, schema_set, signals, ServerTransport, UsageError};
use crate::suite;
use anyhow::Context as _;
use clap::Args;
use mcpspec::report::cost::Implementation;
use mcpspec::report::shard::{Shard, ShardInfo};
use mcpspec::report::{Cost, Policy, Report, RunInfo, ScenarioSet};
use mcpspec::session::server::auth::{self, AuthSetup};
use mcpspec::session::target::{Detection, Target};
use mcpspec_protocol::framing::DEFAULT_MAX_MESSAGE_BYTES;
use mcpspec_protocol::Revision;
use mcpspec_reference::auth::{AuthServerOptions, AuthorizationServer};
use mcpspec_reference::transport::http_client::{HeaderName, HeaderValue, HttpClientOptions};
use mcpspec_reference::transport::Flavor;
use mcpspec_reference::transport::{ChildOptions, CommandSpec};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The options of `mcpspec server` and `mcpspec client`: one certification, either role.
#[derive(Args)]
pub struct CertifyArgs {
    /// A revision to certify (repeatable). Default for servers: every released revision, both
    /// eras (2024-11-05 … 2026-07-28); one the server does not speak is reported as skipped.
    /// The draft runs when named.
    #[arg(long = "revision", value_name = "R", value_parser = parse_revision)]
    pub revisions: Vec<Revision>,
    /// Write DIR/report.json.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Seconds to wait for each expected message, connection or exit.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Validate messages with the schemas in DIR/<revision>/schema.json (e.g. the official ones)
    /// instead of mcpspec's own.
    #[arg(long, value_name = "DIR", env = "MCPSPEC_SCHEMA_DIR")]
    pub schema_dir: Option<PathBuf>,
    /// Scenarios run at once (default: servers, 32; clients, 16); their starts take turns, one
    /// or two per core at a time, as the starts measure.
    #[arg(short = 'j', long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Servers: run every scenario in a process of its own. By default a scenario that left
    /// its session as it found it (only reading requests, nothing failed or in flight) hands
    /// the process on to the next scenario that needs the same revision and capabilities.
    #[arg(long, env = "MCPSPEC_ISOLATE", value_parser = clap::builder::FalseyValueParser::new())]
    pub isolate: bool,
    /// The longest line (one message) read from the implementation, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_MESSAGE_BYTES)]
    pub max_message_bytes: usize,
    /// Read the .feature files from DIR (or DIR/server, DIR/client) instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// Servers: do not sweep (call every advertised tool, prompt, resource and completion with
    /// generated arguments, under several client personas).
    #[arg(long)]
    pub no_sweep: bool,
    /// Servers: let the sweep call tools whose annotations say destructiveHint: true.
    #[arg(long)]
    pub sweep_destructive: bool,
    /// Servers: seconds the sweep waits for each of its calls (at most --timeout). A call still
    /// running then is cancelled and listed, unjudged: a tool may rightly take longer, and one
    /// such tool would otherwise cost every sweep scenario the whole --timeout.
    #[arg(long, value_name = "SECS", default_value_t = 5.0, value_parser = parse_seconds)]
    pub sweep_timeout: f64,
    /// Servers: certify the server at this URL, over HTTP. With a command too, mcpspec starts
    /// the command first (with `{port}` replaced in both, and PORT set).
    #[arg(long, value_name = "URL")]
    pub url: Option<String>,
    /// The transport: stdio (default without --url), http (Streamable HTTP) or sse (the legacy
    /// HTTP+SSE transport). With --url and no --transport, Streamable HTTP, falling back to
    /// HTTP+SSE as the spec's backwards-compatibility section describes.
    #[arg(long, value_name = "T", value_enum)]
    pub transport: Option<ServerTransport>,
    /// Servers over HTTP: a header for every request, `Name: value` (repeatable), e.g. for a
    /// server behind auth. Values are never written to reports.
    #[arg(long = "header", value_name = "HEADER", value_parser = parse_header)]
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// Servers over HTTP: an OAuth access token for the server (sent as `Authorization: Bearer
    /// T` with every request, never reported). The authorization scenarios then also check that
    /// a tampered copy, and the token in the query string, are refused.
    #[arg(long, value_name = "T", conflicts_with = "auth_issuer")]
    pub auth_token: Option<String>,
    /// Servers over HTTP started from a command: mcpspec runs an authorization server on
    /// 127.0.0.1 and passes its issuer URL to the command in MCPSPEC_AUTH_ISSUER (metadata at
    /// its RFC 8414 well-known URL, keys at its jwks_uri); it then mints the tokens the run
    /// presents, valid and flawed (audience: the server's canonical URI).
    #[arg(long)]
    pub auth_issuer: bool,
    /// Known failures: a YAML file of `server:` and `client:` lists of scenario ids (or
    /// `scenario:check-id`), the official conformance suite's format; an entry may also be a
    /// mapping with `id`, `revision`, `transport`, `clause` and `reason`. A listed failure passes
    /// as expected; an unlisted one fails; a listed one that no longer fails fails as stale.
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
    /// SHOULD failures fail the run (exit 1) and the certification, as MUST failures do.
    #[arg(long)]
    pub strict: bool,
    /// Run only the scenarios whose id matches GLOB (repeatable), e.g. 'lifecycle/*' or
    /// 'sweep/tools' (every example of an outline). `mcpspec list` lists the ids.
    #[arg(long = "scenario", value_name = "GLOB")]
    pub scenario: Vec<String>,
    /// Run only the scenarios carrying TAG, on them or their feature (repeatable), e.g.
    /// `negotiation`, `SHOULD`, `transport:http`.
    #[arg(long = "tag", value_name = "TAG")]
    pub tag: Vec<String>,
    /// Show only the certification and the summary (no line per scenario, no progress bar).
    #[arg(short, long, conflicts_with = "verbose")]
    pub quiet: bool,
    /// Also show every message of every session as it crosses the wire (a live wire log).
    #[arg(short, long)]
    pub verbose: bool,
    /// Seconds the whole run may take: scenarios still running then are reported as errors,
    /// with the reason, and the reports are written.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub deadline: Option<f64>,
    /// Run CMD through `sh -c` (its words joined by spaces), for pipes, redirections or
    /// variables. Without it CMD is run directly, never by a shell.
    #[arg(long)]
    pub shell: bool,
    /// Run shard I of N of the scenario runs (e.g. `2/3`, one job of a CI matrix): each run, a
    /// scenario at a revision, falls in one shard by its id and revision alone. `mcpspec merge`
    /// makes the shards' report directories one report, certified as one run.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// The implementation's command line.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// Which side of MCP a run certifies.
#[derive(Clone, Copy)]
pub enum Role {
    Server,
    Client,
}

impl Role {
    pub fn name(self) -> &'static str {
        match self {
            Role::Server => "server",
            Role::Client => "client",
        }
    }
}

/// Client scenarios run at once by default. A client scenario mostly waits on the client (one
/// that explores a server at a human pace takes 15 s to finish, and
/// client-lifecycle/shutdown waits for it); its CPU goes into the client's start, and starts
/// take turns, one or two per core ([`mcpspec::session::starts::turn`]). Measured on 2 busy
/// cores (issue #12): the exploring client's full suite (its client-lifecycle/shutdown waits
/// 15 s for it, at each of 4 revisions) in 20 s, the TypeScript SDK client's in 22 s, and the
/// Python SDK client's (a second of CPU per start) in 62 s with no start timing out.
const CLIENT_JOBS: usize = 16;

/// Server scenarios run at once by default. A server run is bound by two things: the CPU of
/// starting server processes (which take turns, one or two per core, and which shared sessions make
/// fewer), and waits no CPU can shorten (a tool that runs past `--timeout` in every sweep). So
/// many scenarios wait at once while their starts take turns. Measured on 2 cores with
/// `bench/jobs.sh` (issue #12), one run each: server-everything's full suite in 46 s at 16,
/// 34 s at 32 and 38 s at 64; the Python SDK server's in 89 s at 16 and 75 s at 32, with the
/// same verdicts at every value.
const SERVER_JOBS: usize = 32;

fn parse_shard(s: &str) -> Result<Shard, String> {
    s.parse()
}

/// Runs a certification; returns the exit code (a usage error: 2).
pub async fn run(role: Role, args: CertifyArgs) -> u8 {
    match certify(role, args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcpspec: {e:#}");
            e.downcast_ref::<UsageError>()
                .map_or(mcpspec::report::exit::ERROR, |_| mcpspec::report::exit::USAGE)
        }
    }
}

/// `mcpspec server` and `mcpspec client`: plans the run from the options, runs the role's suite
/// and reports.
async fn certify(role: Role, args: CertifyArgs) -> anyhow::Result<u8> {
    let started = Instant::now();
    let started_at = std::time::SystemTime::now();
    // Caught from the start: a signal while an HTTP server command starts stops the run as soon
    // as the start is over (bounded by its wait), and the served process is ended with it.
    let stopped = signals::stopped();
    open_console(
        args.quiet,
        args.verbose,
        args.headers.iter().filter_map(|(_, v)| v.to_str().ok().map(str::to_owned)),
    );
    let plan = plan(role, &args).await?;
    // The authorization server lives as long as the run (`_issuer`: dropped at the end).
    let Plan { config, baseline, selection, served, issuer: _issuer } = plan;
    let (display, transport) = (config.target.display(), config.target.transport());
    // A server given by URL alone runs outside mcpspec: its CPU cannot be measured.
    let implementation = match (&config.target, &served) {
        (Target::Http(_), None) => {
            Implementation::Elsewhere("the server at the URL runs outside mcpspec".to_owned())
        }
        _ => Implementation::Children,
    };
    let results = config.results.clone();
    let suite = async {
        match role {
            Role::Server => suite::run::run_server_suite(config).await,
            Role::Client => suite::run::run_client_suite(config).await,
        }
    };
    let (run, stop) = run_until_stopped(suite, stopped, served, "server", &results, &args.revisions).await?;
    let source = scenario_source(args.scenarios.as_ref());
    // Measured once every process of the run has ended (sessions shut down, `served` stopped).
    let cost = Cost::measure(started.elapsed(), mcpspec::session::starts::started(), implementation);
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
        cost,
    };
    let policy = Policy { baseline: baseline.as_ref(), strict: args.strict, shard: args.shard.is_some() };
    let mut report = Report::new(info, run.scenarios, &policy);
    if let Some(shard) = args.shard {
        ShardInfo::stamp(&mut report, shard, args.strict, baseline.as_ref());
    }
    report_and_exit(report, args.report_dir.as_deref(), args.quiet, started, stop)
}

/// Runs `suite` until it ends or a signal stops it: what it judged, or (stopped) what had
/// finished by then, and the signal. A stopped run drops the suite, and every session it holds
/// ends its process group on drop; the process mcpspec started for the run (`served`, the `what`
/// under test) is ended either way.
pub(super) async fn run_until_stopped(
    suite: impl std::future::Future<Output = anyhow::Result<suite::run::SuiteRun>>,
    stopped: impl std::future::Future<Output = signals::Stop>,
    served: Option<mcpspec::session::target::ServedProcess>,
    what: &str,
    results: &mcpspec::report::Results,
    revisions: &[Revision],
) -> Result<(suite::run::SuiteRun, Option<signals::Stop>), UsageError> {
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
        eprintln!("mcpspec: the {what} process {}", end.describe());
    }
    let run = match suite {
        Some(suite) => suite.map_err(|e| UsageError(format!("{e:#}")))?,
        None => suite::run::SuiteRun {
            scenarios: results.take(),
            revisions: revisions.to_vec(),
            not_tested: None,
        },
    };
    Ok((run, stop))
}

/// Where a run's scenarios came from, for its report.
pub(super) fn scenario_source(dir: Option<&PathBuf>) -> String {
    match dir {
        Some(dir) => dir.display().to_string(),
        None => "built-in".to_owned(),
    }
}

/// The console's mode, the live wire log, and the secrets kept out of every report (`secrets`:
/// the run's own, beyond credential-like environment variables).
pub(super) fn open_console(quiet: bool, verbose: bool, secrets: impl IntoIterator<Item = String>) {
    mcpspec::report::console::init(match (quiet, verbose) {
        (true, _) => mcpspec::report::console::Mode::Quiet,
        (_, true) => mcpspec::report::console::Mode::Verbose,
        _ => mcpspec::report::console::Mode::Normal,
    });
    // Only a verbose console shows the live wire log. Without a sink a recorder writes out no
    // more of a message than its transcript shows: a 4 MiB result is not serialized whole
    // (twice its size while written) for 2,000 characters of it.
    if verbose && !quiet {
        mcpspec::judge::recorder::log_wire_to(|label, arrow, text| {
            mcpspec::report::console::get().wire(label, arrow, text)
        });
    }
    // Secrets (credential-like environment variables, --header values) never reach a report.
    mcpspec::report::redact::init(secrets);
}

/// What a certification runs: the suite's configuration, the baseline and selection its report
/// applies, and the server process started for the run (a server over HTTP given as a command).
struct Plan {
    config: suite::context::SuiteConfig,
    baseline: Option<mcpspec::report::baseline::Baseline>,
    selection: mcpspec::report::Selection,
    served: Option<mcpspec::session::target::ServedProcess>,
    /// mcpspec's authorization server (`--auth-issuer`), kept for the whole run.
    issuer: Option<Arc<AuthorizationServer>>,
}

/// How the implementation is reached, and how mcpspec authenticates to it.
struct Reach {
    target: Target,
    served: Option<mcpspec::session::target::ServedProcess>,
    auth: AuthSetup,
    /// The run's verdict when the server is protected and mcpspec holds no token.
    protected: Option<String>,
    issuer: Option<Arc<AuthorizationServer>>,
}

/// Reads the options into a plan; starts the server of an HTTP run given as a command.
async fn plan(role: Role, args: &CertifyArgs) -> anyhow::Result<Plan> {
    let baseline = match &args.expected_failures {
        Some(path) => {
            Some(mcpspec::report::baseline::Baseline::load(path).map_err(|e| UsageError(e.to_string()))?)
        }
        None => None,
    };
    let selection = mcpspec::report::Selection { scenario: args.scenario.clone(), tag: args.tag.clone() };
    let mut filter = suite::plan::Filter::new(selection.clone()).map_err(UsageError)?;
    filter.shard = args.shard;
    if args.shard.is_some() && args.report_dir.is_none() {
        eprintln!("mcpspec: --shard without --report-dir: this shard's report is not written, so no merge can use it");
    }
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
        Arc::new(suite::bounds::RunBounds::new(role.name(), args.deadline.map(Duration::from_secs_f64)));
    let Reach { target, served, auth, protected, issuer } = target(role, args, &child, &bounds).await?;
    let config = suite::context::SuiteConfig {
        target,
        revisions: args.revisions.clone(),
        timeout,
        child,
        schemas,
        jobs,
        scenarios: args.scenarios.clone(),
        sweep: suite::context::SweepOptions {
            enabled: !args.no_sweep,
            destructive: args.sweep_destructive,
            call_timeout: Duration::from_secs_f64(args.sweep_timeout).min(timeout),
        },
        isolate: args.isolate,
        results: Arc::new(mcpspec::report::Results::judged_by(baseline.clone(), role.name(), args.strict)),
        selection: filter,
        bounds,
        auth: Arc::new(auth),
        protected,
    };
    Ok(Plan { config, baseline, selection, served, issuer })
}

/// Where the implementation is and how to reach it: a command over stdio, a client reaching
/// mcpspec over HTTP, or a server over HTTP (at `--url`, or started here from its command on a
/// free port, then detected: Streamable HTTP, else HTTP+SSE).
async fn target(
    role: Role,
    args: &CertifyArgs,
    child: &ChildOptions,
    bounds: &suite::bounds::RunBounds,
) -> anyhow::Result<Reach> {
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
    let command = match command_line(&args.command, args.shell) {
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
    if (args.auth_token.is_some() || args.auth_issuer) && !http {
        let why = "--auth-token and --auth-issuer are for servers over HTTP (--url or --transport http|sse)";
        return Err(UsageError(why.into()).into());
    }
    if args.auth_issuer && command.is_none() {
        let why = "--auth-issuer needs the server's command: mcpspec passes its issuer URL to it in \
                   MCPSPEC_AUTH_ISSUER when it starts it";
        return Err(UsageError(why.into()).into());
    }
    // mcpspec as the issuer: its authorization server, bound to loopback, for the whole run.
    let issuer = match args.auth_issuer {
        true => {
            let options = AuthServerOptions {
                // Any scope the server asks for is granted; tokens outlive any run.
                scopes_supported: Vec::new(),
                token_lifetime: Duration::from_secs(24 * 3600),
                ..AuthServerOptions::default()
            };
            let server = AuthorizationServer::bind(options)
                .await
                .map_err(|e| anyhow::anyhow!("cannot start mcpspec's authorization server: {e}"))?;
            eprintln!("mcpspec: authorization server (--auth-issuer) at {}", server.issuer());
            Some(Arc::new(server))
        }
        false => None,
    };
    // A server over HTTP: started here when it is a command, for the whole run.
    let mut served = None;
    let mut auth = AuthSetup::default();
    let mut protected = None;
    let target = match (http, command) {
        (false, Some(command)) => match client_flavor {
            Some(flavor) => Target::ClientOverHttp(command, flavor),
            None => Target::Stdio(command),
        },
        (false, None) => unreachable!("a command is set unless --url is given"),
        (true, command) => {
            let port = match &command {
                Some(_) => mcpspec::session::target::free_port().context("cannot find a free port")?,
                None => 0,
            };
            let legacy = args.transport == Some(ServerTransport::Sse);
            let default_url = format!("http://127.0.0.1:{{port}}/{}", if legacy { "sse" } else { "mcp" });
            let url_text = args.url.clone().unwrap_or(default_url).replace("{port}", &port.to_string());
            let url = url::Url::parse(&url_text).map_err(|e| UsageError(format!("--url {url_text}: {e}")))?;
            if let Some(command) = &command {
                let mut command = command.clone();
                if let Some(issuer) = &issuer {
                    command.env.push((ISSUER_ENV.into(), issuer.issuer().into()));
                }
                // A server starting takes longer than a message: three timeouts, at least 10 s.
                let within = (Duration::from_secs_f64(args.timeout) * 3).max(Duration::from_secs(10));
                let process =
                    mcpspec::session::target::ServedProcess::start(&command, port, child.clone(), within)
                        .await
                        .map_err(|e| anyhow::anyhow!("the server did not start: {e}"))?;
                served = Some(process);
            }
            let flavor = if legacy { Flavor::LegacySse } else { Flavor::Streamable };
            let mut options = HttpClientOptions::new(url, flavor);
            options.headers = args.headers.clone();
            if let Some(token) = &args.auth_token {
                mcpspec::report::redact::add(token);
                options.headers.push(bearer_header(token)?);
            }
            options.max_message_bytes = args.max_message_bytes;
            options.request_timeout = Duration::from_secs_f64(args.timeout);
            // A server that cannot be reached is no server to judge: the run stops at once, its
            // scenarios reported as not run (exit 3).
            match mcpspec::session::target::detect(&options).await {
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
            let within = Duration::from_secs_f64(args.timeout);
            match &issuer {
                Some(issuer) => {
                    auth = auth::as_issuer(issuer.clone(), &options, within).await;
                    if let Some(token) = &auth.token {
                        options.headers.push(bearer_header(token)?);
                    }
                }
                // `--header 'Authorization: Bearer T'` names a token as `--auth-token T` does.
                None => auth.token = args.auth_token.clone().or_else(|| header_bearer(&args.headers)),
            }
            if !auth.asserted() && !args.headers.iter().any(|(k, _)| k.as_str() == "authorization") {
                protected = protected_without_token(&options, within).await;
            }
            Target::Http(options)
        }
    };
    Ok(Reach { target, served, auth, protected, issuer })
}

/// The environment variable that gives a server command mcpspec's issuer URL.
const ISSUER_ENV: &str = "MCPSPEC_AUTH_ISSUER";

/// `Authorization: Bearer token`, or a usage error for a token no header can carry.
fn bearer_header(token: &str) -> anyhow::Result<(HeaderName, HeaderValue)> {
    let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
        .map_err(|_| UsageError("--auth-token: not a value an HTTP header can carry".into()))?;
    value.set_sensitive(true);
    Ok((HeaderName::from_static("authorization"), value))
}

/// The token of an `Authorization: Bearer T` among `--header`s.
fn header_bearer(headers: &[(HeaderName, HeaderValue)]) -> Option<String> {
    let (_, value) = headers.iter().find(|(k, _)| k.as_str() == "authorization")?;
    let (scheme, token) = value.to_str().ok()?.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim().to_owned())
}

/// The run's verdict when the server answers mcpspec's first request with 401 and mcpspec has
/// no token: said once, and on the console at once.
async fn protected_without_token(options: &HttpClientOptions, within: Duration) -> Option<String> {
    let request = auth::first_request(options, Revision::V2025_11_25);
    let answer = auth::send(&request, within).await.ok()?;
    if answer.status() != 401 {
        return None;
    }
    let verdict = format!(
        "protected: the server answered {} without a token; run with --auth-token T (a token it \
         accepts) or --auth-issuer (mcpspec as its authorization server, passed to it in \
         {ISSUER_ENV}) to certify the rest. Only the authorization scenarios ran.",
        answer.describe()
    );
    eprintln!("mcpspec: {verdict}");
    Some(verdict)
}

/// Writes the reports (every format, to `--report-dir`), prints the certification and the
/// summary; returns the run's exit code.
pub(super) fn report_and_exit(
    mut report: Report,
    report_dir: Option<&std::path::Path>,
    quiet: bool,
    started: Instant,
    stop: Option<signals::Stop>,
) -> anyhow::Result<u8> {
    report.redact(&mcpspec::report::redact::run());
    if let Some(dir) = report_dir {
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
    if !quiet {
        print!("{}", mcpspec::report::console::console_digest(&report));
    }
    print!("{}", mcpspec::report::console::console_footer(&report));
    println!("summary: {} ({:.1} s)", report.summary.line(), started.elapsed().as_secs_f64());
    Ok(stop.map_or_else(|| report.exit_code(), |s| s.exit_code()))
}

/// The implementation's command line: run as given (the program found on `PATH`, never a
/// shell), or with `shell`, as one `sh -c` script of its words joined by spaces. `None` when
/// no command is given.
pub(super) fn command_line(
    argv: &[std::ffi::OsString],
    shell: bool,
) -> Option<mcpspec_reference::transport::CommandSpec> {
    use mcpspec_reference::transport::CommandSpec;
    if !shell || argv.is_empty() {
        return CommandSpec::from_argv(argv.iter().cloned());
    }
    let script = argv.iter().map(|a| a.to_string_lossy()).collect::<Vec<_>>().join(" ");
    CommandSpec::from_argv(["sh".to_owned(), "-c".to_owned(), script])
}
