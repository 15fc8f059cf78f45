//! `mcpspec authorization`: certify an OAuth 2.1 authorization server as MCP's authorization
//! pages require of it (`basic/authorization.mdx`, 2025-03-26 on, both eras). The options
//! become a plan (the issuer, the client mcpspec is, the run's bounds); the plan runs the
//! authorization-server suite (`scenarios/authorization-server/`), and its scenario reports
//! become the run's report in every format, as `mcpspec server` and `mcpspec client` write it.
//!
//! The server is reached at `--url ISSUER`; or started from a command (`-- CMD`, with `{port}`
//! replaced, as `mcpspec server --transport http` does); or, with neither, mcpspec's own
//! reference authorization server is certified.
//!
//! The client ID metadata documents mcpspec names itself by are served over https on loopback,
//! with a certificate of a CA the server must trust: made for the run (its certificate written
//! to a file a started command is told of in `NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE` and
//! `REQUESTS_CA_BUNDLE`), or kept in `--cimd-ca DIR` (`DIR/ca.pem`) for a server at a URL.

use super::certify::{command_line, open_console, report_and_exit, run_until_stopped, scenario_source};
use super::{parse_revision, parse_seconds, signals, UsageError};
use crate::suite;
use anyhow::Context as _;
use clap::Args;
use mcpspec::report::{Policy, Report, RunInfo, ScenarioSet};
use mcpspec::session::authorization::{AsTarget, GivenClient};
use mcpspec::session::target::{ServedProcess, Target};
use mcpspec_protocol::Revision;
use mcpspec_reference::auth::documents::{DocumentHost, HostCa};
use mcpspec_reference::auth::{AuthServerOptions, AuthorizationServer};
use mcpspec_reference::transport::http_client::oneshot::{oneshot, RawRequest};
use mcpspec_reference::transport::ChildOptions;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The redirect URI mcpspec registers and sends. Nothing listens there: the code is read from
/// the authorization endpoint's redirect, which is never followed.
const REDIRECT_URI: &str = "http://127.0.0.1:33418/mcpspec/callback";

/// The MCP server tokens are asked for (RFC 8707 `resource`), unless `--resource` says another.
const RESOURCE: &str = "http://127.0.0.1:33419/mcp";

/// The options of `mcpspec authorization`.
#[derive(Args)]
pub struct AuthorizationArgs {
    /// The issuer identifier of the authorization server (its metadata is looked for from it).
    /// With a command, `{port}` is replaced by the port mcpspec picks (default:
    /// http://127.0.0.1:{port}).
    #[arg(long, value_name = "ISSUER")]
    pub url: Option<String>,
    /// A client registered beforehand. Without it, mcpspec registers through dynamic client
    /// registration (RFC 7591) when the server offers it.
    #[arg(long, value_name = "ID")]
    pub client_id: Option<String>,
    /// The secret of --client-id (a confidential client; never reported).
    #[arg(long, value_name = "S", requires = "client_id")]
    pub client_secret: Option<String>,
    /// The redirect URI the client registered (never fetched: the code is read from the
    /// authorization endpoint's 302).
    #[arg(long, value_name = "URI", default_value = REDIRECT_URI)]
    pub redirect_uri: String,
    /// The MCP server's canonical URI that tokens are asked for (RFC 8707 `resource`).
    #[arg(long, value_name = "URI", default_value = RESOURCE)]
    pub resource: String,
    /// The scope to ask for (space-separated); none by default.
    #[arg(long, value_name = "SCOPE")]
    pub scope: Option<String>,
    /// Where the CA of the client ID metadata document host is kept (`ca.pem`, the certificate
    /// the authorization server must trust, and `ca-key.pem`), made there on the first run and
    /// reused after: for a server at --url, set up once to trust DIR/ca.pem. Without it, a CA
    /// is made for the run (a started command is told of it; a server at --url cannot trust
    /// it, and the client ID metadata document scenarios are skipped).
    #[arg(long, value_name = "DIR")]
    pub cimd_ca: Option<PathBuf>,
    /// A revision to certify (repeatable). Default: every released revision with
    /// authorization, 2025-03-26 … 2026-07-28.
    #[arg(long = "revision", value_name = "R", value_parser = parse_revision)]
    pub revisions: Vec<Revision>,
    /// Write the reports (report.json, junit.xml, report.html, summary.md, badge.json) to DIR.
    #[arg(long, value_name = "DIR")]
    pub report_dir: Option<PathBuf>,
    /// Seconds to wait for each answer.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = parse_seconds)]
    pub timeout: f64,
    /// Scenarios run at once.
    #[arg(short = 'j', long, value_name = "N", default_value_t = 8)]
    pub jobs: usize,
    /// Read the .feature files from DIR (or DIR/authorization-server) instead of the built-in ones.
    #[arg(long, value_name = "DIR")]
    pub scenarios: Option<PathBuf>,
    /// Known failures: a YAML file with an `authorization-server:` list (the format of
    /// `mcpspec server --expected-failures`).
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
    /// SHOULD failures fail the run (exit 1) and the certification, as MUST failures do.
    #[arg(long)]
    pub strict: bool,
    /// Run only the scenarios whose id matches GLOB (repeatable).
    #[arg(long = "scenario", value_name = "GLOB")]
    pub scenario: Vec<String>,
    /// Run only the scenarios carrying TAG (repeatable).
    #[arg(long = "tag", value_name = "TAG")]
    pub tag: Vec<String>,
    /// Show only the certification and the summary.
    #[arg(short, long)]
    pub quiet: bool,
    /// Seconds the whole run may take.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub deadline: Option<f64>,
    /// Run CMD through `sh -c`.
    #[arg(long)]
    pub shell: bool,
    /// A command that serves the authorization server on `{port}`, started for the run.
    #[arg(last = true, value_name = "CMD")]
    pub command: Vec<OsString>,
}

/// Runs the certification; returns the exit code (a usage error: 2, no verdict: 3).
pub async fn run(args: AuthorizationArgs) -> u8 {
    match certify(args).await {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mcpspec: {e:#}");
            e.downcast_ref::<UsageError>()
                .map_or(mcpspec::report::exit::ERROR, |_| mcpspec::report::exit::USAGE)
        }
    }
}

/// The https host of the client ID metadata documents, and the file its CA's certificate is in.
struct Documents {
    host: Arc<DocumentHost>,
    ca_file: PathBuf,
    /// The file is the run's own, removed at the end.
    temporary: bool,
}

impl Drop for Documents {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.ca_file);
        }
    }
}

async fn documents(args: &AuthorizationArgs) -> anyhow::Result<Documents> {
    let (ca, ca_file, temporary) = match &args.cimd_ca {
        Some(dir) => {
            let ca =
                HostCa::kept_in(dir).map_err(|e| UsageError(format!("--cimd-ca {}: {e}", dir.display())))?;
            (ca, dir.join("ca.pem"), false)
        }
        None => {
            let ca = HostCa::generate()?;
            let file = std::env::temp_dir().join(format!("mcpspec-cimd-ca-{}.pem", std::process::id()));
            std::fs::write(&file, ca.pem()).with_context(|| format!("cannot write {}", file.display()))?;
            (ca, file, true)
        }
    };
    let host = DocumentHost::start(&ca).await.context("cannot start the client ID metadata document host")?;
    Ok(Documents { host: Arc::new(host), ca_file, temporary })
}

/// Where the authorization server is, and what keeps it running for the run.
struct Reached {
    issuer: String,
    served: Option<ServedProcess>,
    /// mcpspec's own reference server, when no URL or command was given.
    _reference: Option<Arc<AuthorizationServer>>,
}

async fn reach(
    args: &AuthorizationArgs,
    timeout: Duration,
    documents: &Documents,
) -> anyhow::Result<Reached> {
    let mut command = command_line(&args.command, args.shell);
    if command.is_none() && args.url.is_none() {
        // Client ID metadata documents taken, from the run's host.
        let options = AuthServerOptions {
            client_id_metadata_documents: true,
            document_roots: vec![documents.host.ca_pem().to_owned()],
            ..AuthServerOptions::default()
        };
        let server = AuthorizationServer::bind(options)
            .await
            .map_err(|e| anyhow::anyhow!("cannot start mcpspec's reference authorization server: {e}"))?;
        eprintln!(
            "mcpspec: no --url or command given; certifying the built-in reference authorization server"
        );
        let issuer = server.issuer().to_owned();
        return Ok(Reached { issuer, served: None, _reference: Some(Arc::new(server)) });
    }
    let Some(command) = command.as_mut() else {
        return Ok(Reached { issuer: args.url.clone().unwrap_or_default(), served: None, _reference: None });
    };
    // The CA of the document host, for the runtimes that read these: Node adds it to its
    // roots; OpenSSL and Python's requests take it in place of theirs (a server that must also
    // reach other https hosts is better started apart, at a --url, trusting --cimd-ca's).
    for name in ["NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE"] {
        command.env.push((name.into(), documents.ca_file.clone().into()));
    }
    let port = mcpspec::session::target::free_port().context("cannot find a free port")?;
    let url = args.url.clone().unwrap_or_else(|| "http://127.0.0.1:{port}".into());
    let child =
        ChildOptions { shutdown_grace: timeout.min(Duration::from_secs(2)), ..ChildOptions::default() };
    // A server starting takes longer than an answer: three timeouts, at least 10 s.
    let within = (timeout * 3).max(Duration::from_secs(10));
    let served = ServedProcess::start(command, port, child, within)
        .await
        .map_err(|e| anyhow::anyhow!("the authorization server did not start: {e}"))?;
    Ok(Reached { issuer: url.replace("{port}", &port.to_string()), served: Some(served), _reference: None })
}

async fn certify(args: AuthorizationArgs) -> anyhow::Result<u8> {
    let (started, started_at) = (Instant::now(), std::time::SystemTime::now());
    let stopped = signals::stopped();
    open_console(args.quiet, false, args.client_secret.clone());
    let baseline = match &args.expected_failures {
        Some(path) => {
            Some(mcpspec::report::baseline::Baseline::load(path).map_err(|e| UsageError(e.to_string()))?)
        }
        None => None,
    };
    let selection = mcpspec::report::Selection { scenario: args.scenario.clone(), tag: args.tag.clone() };
    let filter = suite::plan::Filter::new(selection.clone()).map_err(UsageError)?;
    let timeout = Duration::from_secs_f64(args.timeout);
    for (option, value) in [("--redirect-uri", &args.redirect_uri), ("--resource", &args.resource)] {
        url::Url::parse(value).map_err(|e| UsageError(format!("{option} {value}: {e}")))?;
    }
    let documents = documents(&args).await?;
    let reached = reach(&args, timeout, &documents).await?;
    let issuer =
        url::Url::parse(&reached.issuer).map_err(|e| UsageError(format!("--url {}: {e}", reached.issuer)))?;
    // An issuer that cannot be reached is no server to judge: no verdict (exit 3).
    let probe = RawRequest { method: "GET", url: issuer.clone(), headers: Vec::new(), body: None };
    if let Err(e) = oneshot(&probe, timeout, 64 * 1024).await {
        anyhow::bail!("cannot reach the authorization server at {issuer}: {e}");
    }
    let target = AsTarget {
        issuer_id: reached.issuer.clone(),
        issuer,
        client: args
            .client_id
            .clone()
            .map(|client_id| GivenClient { client_id, client_secret: args.client_secret.clone() }),
        redirect_uri: args.redirect_uri.clone(),
        resource: args.resource.clone(),
        scope: args.scope.clone(),
        documents: Some(documents.host.clone()),
    };
    let role = suite::run::AUTHORIZATION_SERVER;
    let results = Arc::new(mcpspec::report::Results::new());
    let config = suite::context::SuiteConfig {
        target: Target::AuthorizationServer(target),
        revisions: args.revisions.clone(),
        timeout,
        child: ChildOptions::default(),
        schemas: None,
        jobs: args.jobs.max(1),
        scenarios: args.scenarios.clone(),
        sweep: suite::context::SweepOptions {
            enabled: false,
            destructive: false,
            call_timeout: Duration::ZERO,
        },
        isolate: true,
        results: results.clone(),
        selection: filter,
        bounds: Arc::new(suite::bounds::RunBounds::new(role, args.deadline.map(Duration::from_secs_f64))),
        auth: Arc::new(Default::default()),
        protected: None,
    };
    let suite = suite::run::run_authorization_suite(config);
    let served = reached.served;
    // An authorization server given by URL alone runs outside mcpspec, the built-in one inside
    // it: the CPU of neither can be told apart.
    let implementation = match (&served, &reached._reference) {
        (Some(_), _) => mcpspec::report::cost::Implementation::Children,
        (None, Some(_)) => mcpspec::report::cost::Implementation::Elsewhere(
            "the built-in reference authorization server runs inside mcpspec's process".to_owned(),
        ),
        (None, None) => mcpspec::report::cost::Implementation::Elsewhere(
            "the authorization server at the URL runs outside mcpspec".to_owned(),
        ),
    };
    let (run, stop) =
        run_until_stopped(suite, stopped, served, "authorization server", &results, &args.revisions).await?;
    let source = scenario_source(args.scenarios.as_ref());
    let starts = mcpspec::session::starts::started();
    let cost = mcpspec::report::Cost::measure(started.elapsed(), starts, implementation);
    let info = RunInfo {
        role,
        command: reached.issuer,
        transport: "http",
        started_at,
        duration_ms: started.elapsed().as_millis() as u64,
        revisions: run.revisions.iter().map(|r| r.to_string()).collect(),
        scenario_set: Some(ScenarioSet { source, scenarios: results.planned_count(), selection }),
        not_tested: run.not_tested,
        interrupted: stop.map(|s| s.name()),
        cost,
    };
    let report = Report::new(
        info,
        run.scenarios,
        &Policy { baseline: baseline.as_ref(), strict: args.strict, shard: false },
    );
    report_and_exit(report, args.report_dir.as_deref(), args.quiet, started, stop)
}
