//! Runs a suite: loads the feature files of a role (`server`, `client`), decides which
//! revisions to run (for servers: those the server speaks), runs every scenario once per
//! revision under cucumber (each in a fresh session, `-j` at a time), and collects one
//! [`ScenarioReport`] per scenario and revision. Each role brings its own cucumber `World`
//! ([`RoleWorld`]); loading, planning, hooks and reports are shared.

use crate::suite::bounds::{RunBounds, Stopped};
use crate::suite::client::ClientWorld;
use crate::suite::scenario::{Scenario, ScenarioMeta};
use crate::suite::server::sweep::SweepOptions;
use crate::suite::server::ServerWorld;
use cucumber::gherkin::{self, GherkinEnv};
use cucumber::{event, feature::Ext as _, parser, writer, Event};
use futures::FutureExt as _;
use include_dir::{include_dir, Dir};
use mcpspec::judge::recorder::TranscriptEntry;
use mcpspec::judge::verdict::Check;
use mcpspec::judge::verdict::{Level, Verdict};
use mcpspec::report::{Results, ScenarioReport};
use mcpspec::session::pool::{SessionPool, SharedSession};
use mcpspec::session::server::ServerSession;
use mcpspec::session::server::{StartError, WaitError};
use mcpspec::session::target::Target;
use mcpspec_protocol::modern;
use mcpspec_protocol::wire::{ErrorObject, Outcome};
use mcpspec_protocol::{Era, Revision};
use mcpspec_reference::transport::http_client::ConnectError;
use mcpspec_reference::transport::ChildOptions;
use mcpspec_schema::SchemaSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The scenarios shipped inside the binary.
static SCENARIOS: Dir<'_> = include_dir!("$CARGO_MANIFEST_DIR/../scenarios");

/// Everything a scenario needs from the run.
pub struct SuiteContext {
    /// The implementation under test, and how to reach it.
    pub target: Target,
    pub timeout: Duration,
    pub child: ChildOptions,
    pub schemas: Option<Arc<SchemaSet>>,
    pub sweep: SweepOptions,
    /// Sessions between scenarios (server suite).
    pub pool: SessionPool,
    results: Arc<Results>,
    selection: Filter,
    /// Rules the server broke after a scenario had ended, on its shared session, charged to
    /// that scenario at the end of the run: its id, revision and the checks.
    late: Mutex<Vec<(String, Revision, Vec<Check>)>>,
    /// Shared sessions being ended.
    retiring: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// The run's gate and deadline.
    pub bounds: Arc<RunBounds>,
}

impl SuiteContext {
    /// The context every scenario of a run shares.
    fn of(config: &SuiteConfig) -> Arc<SuiteContext> {
        Arc::new(SuiteContext {
            target: config.target.clone(),
            timeout: config.timeout,
            child: config.child.clone(),
            schemas: config.schemas.clone(),
            sweep: config.sweep,
            // As many idle sessions as scenarios run at once: enough for each runner of
            // scenarios to find one, few enough to bound the processes alive.
            pool: SessionPool::new(!config.isolate, config.jobs),
            results: config.results.clone(),
            selection: config.selection.clone(),
            late: Mutex::new(Vec::new()),
            retiring: Mutex::new(Vec::new()),
            bounds: config.bounds.clone(),
        })
    }

    /// Ends a shared session no scenario will use again, in the background (no scenario waits
    /// for another's process to end); what its server wrote after its last scenario ended is
    /// charged to that scenario.
    pub fn retire(self: &Arc<Self>, shared: SharedSession) {
        let ctx = self.clone();
        let ending = tokio::spawn(async move {
            let (id, revision, tail) = shared.retire().await;
            if !tail.is_empty() {
                ctx.late.lock().expect("late lock").push((id, revision, tail));
            }
        });
        self.retiring.lock().expect("retiring lock").push(ending);
    }

    /// Ends every idle session, and adds what their servers wrote late to the reports of the
    /// scenarios they had served last (printing those again).
    async fn close_pool(self: &Arc<Self>) {
        for idle in self.pool.drain() {
            self.retire(idle);
        }
        let retiring = std::mem::take(&mut *self.retiring.lock().expect("retiring lock"));
        futures::future::join_all(retiring).await;
        let late = std::mem::take(&mut *self.late.lock().expect("late lock"));
        let note = "the server broke a rule after this scenario ended, on the process it left running";
        for (id, revision, tail) in late {
            // The tail holds only checks worse than passed (`SharedSession::retire`).
            self.results.amend(&id, revision.as_str(), tail, note);
        }
    }
}

/// How one run is configured.
pub struct SuiteConfig {
    /// The implementation under test: a command (stdio; a client is always one), or a server's URL.
    pub target: Target,
    /// The revisions to certify; empty means every released revision the server speaks.
    pub revisions: Vec<Revision>,
    pub timeout: Duration,
    pub child: ChildOptions,
    pub schemas: Option<Arc<SchemaSet>>,
    pub jobs: usize,
    /// Read the feature files from here instead of the embedded ones.
    pub scenarios: Option<PathBuf>,
    pub sweep: SweepOptions,
    /// Run every scenario in a process of its own (`--isolate`), never on a shared session.
    pub isolate: bool,
    /// Where finished scenarios go: the caller keeps them if the run is stopped half-way.
    pub results: Arc<Results>,
    /// The part of the suite to run (`--scenario`, `--tag`).
    pub selection: Filter,
    /// The run's gate and deadline ([`crate::suite::bounds`]).
    pub bounds: Arc<RunBounds>,
}

/// `--scenario GLOB` and `--tag TAG`, ready to match: a scenario runs when its id (or the id
/// of its outline, without `[values]`) matches one of the globs, and it or its feature carries
/// one of the tags; an empty list does not narrow.
#[derive(Clone)]
pub struct Filter {
    pub asked: mcpspec::report::Selection,
    globs: globset::GlobSet,
}

impl Filter {
    pub fn new(asked: mcpspec::report::Selection) -> Result<Filter, String> {
        let mut globs = globset::GlobSetBuilder::new();
        for g in &asked.scenario {
            globs.add(globset::Glob::new(g).map_err(|e| format!("--scenario {g:?}: {e}"))?);
        }
        let globs = globs.build().map_err(|e| format!("--scenario: {e}"))?;
        Ok(Filter { asked, globs })
    }

    fn selects(&self, feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> bool {
        let by_id = self.asked.scenario.is_empty()
            || meta_of(scenario).is_ok_and(|m| {
                let outline = m.id.split_once('[').map_or(m.id.as_str(), |(base, _)| base);
                self.globs.is_match(&m.id) || self.globs.is_match(outline)
            });
        let by_tag =
            self.asked.tag.is_empty()
                || feature.tags.iter().chain(&scenario.tags).any(|t| {
                    self.asked.tag.iter().any(|asked| asked.strip_prefix('@').unwrap_or(asked) == t)
                });
        by_id && by_tag
    }
}

/// A feature file: its path under `scenarios/` and its text.
struct Source {
    path: String,
    text: String,
}

fn sources(role: &str, dir: Option<&Path>) -> anyhow::Result<Vec<Source>> {
    let mut out = Vec::new();
    match dir {
        Some(dir) => {
            let base = dir.join(role);
            let base = if base.is_dir() { base } else { dir.to_path_buf() };
            let entries = std::fs::read_dir(&base)
                .map_err(|e| anyhow::anyhow!("cannot read the scenario folder {}: {e}", base.display()))?;
            for entry in entries {
                let path = entry?.path();
                if path.extension().is_some_and(|e| e == "feature") {
                    let text = std::fs::read_to_string(&path)
                        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
                    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    out.push(Source { path: format!("{role}/{name}"), text });
                }
            }
        }
        None => {
            let folder = SCENARIOS.get_dir(role).into_iter().flat_map(|d| d.files());
            for file in folder.filter(|f| f.path().extension().is_some_and(|e| e == "feature")) {
                let text = file.contents_utf8().unwrap_or_default().to_owned();
                out.push(Source { path: file.path().to_string_lossy().into_owned(), text });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    if out.is_empty() {
        anyhow::bail!("no .feature files for the {role} suite were found");
    }
    Ok(out)
}

/// One scenario of a suite as `mcpspec list` shows it: where it applies, what it rests on.
#[derive(Debug, serde::Serialize)]
pub struct Listed {
    pub id: String,
    pub name: String,
    pub role: &'static str,
    pub level: Level,
    pub feature: String,
    /// The revisions it runs at (its `@since`, `@until`, `@except` tags).
    pub revisions: Vec<String>,
    /// The transports it runs over (its `@transport:` tags, and what each revision defines).
    pub transports: Vec<&'static str>,
    pub tags: Vec<String>,
    /// The clause, at the newest revision it runs at.
    pub spec: String,
}

/// Every scenario of the `role` suite (from `dir`, or the built-in ones) that runs at one of
/// `revisions`.
pub fn catalog(
    role: &'static str,
    dir: Option<&Path>,
    revisions: &[Revision],
) -> anyhow::Result<Vec<Listed>> {
    let features = parse(&sources(role, dir)?)?;
    let mut out = Vec::new();
    for feature in &features {
        for scenario in &feature.scenarios {
            let meta = meta_of(scenario).map_err(|e| anyhow::anyhow!(e))?;
            let at: Vec<Revision> =
                revisions.iter().copied().filter(|r| applies(feature, scenario, *r)).collect();
            let Some(newest) = at.iter().max() else { continue };
            let transports = ["stdio", "http", "sse"]
                .into_iter()
                .filter(|t| on_transport(feature, scenario, t))
                .filter(|t| at.iter().any(|r| transport_carries(t, *r).is_none()))
                .collect();
            out.push(Listed {
                id: meta.id,
                name: scenario.name.clone(),
                role,
                level: meta.level,
                feature: feature_file(feature),
                revisions: at.iter().map(|r| r.to_string()).collect(),
                transports,
                tags: tags_of(feature, scenario),
                spec: newest.doc(&meta.doc),
            });
        }
    }
    Ok(out)
}

/// Fails when the selection leaves no scenario of the suite.
fn check_selection(features: &[gherkin::Feature], selection: &Filter, role: &str) -> anyhow::Result<()> {
    if features.iter().any(|f| f.scenarios.iter().any(|s| selection.selects(f, s))) {
        return Ok(());
    }
    let asked = &selection.asked;
    anyhow::bail!(
        "no {role} scenario matches --scenario {:?} --tag {:?} (`mcpspec list --role {role}` lists them)",
        asked.scenario,
        asked.tag
    )
}

/// Parses the feature files, expanding outlines.
fn parse(sources: &[Source]) -> anyhow::Result<Vec<gherkin::Feature>> {
    sources
        .iter()
        .map(|s| {
            let mut f = gherkin::Feature::parse(&s.text, GherkinEnv::default())
                .map_err(|e| anyhow::anyhow!("scenarios/{}: {e}", s.path))?;
            f.path = Some(PathBuf::from(&s.path));
            let f = f.expand_examples().map_err(|e| anyhow::anyhow!("scenarios/{}: {e}", s.path))?;
            for sc in &f.scenarios {
                meta_of(sc)
                    .map_err(|e| anyhow::anyhow!("scenarios/{} line {}: {e}", s.path, sc.position.line))?;
            }
            Ok(f)
        })
        .collect()
}

/// The `@id:`, level and `@spec:` tags of a scenario; example values extend the id.
fn meta_of(scenario: &gherkin::Scenario) -> Result<ScenarioMeta, String> {
    let tag = |prefix: &str| scenario.tags.iter().find_map(|t| t.strip_prefix(prefix)).map(str::to_owned);
    let id = tag("id:").ok_or("the scenario has no @id: tag")?;
    let doc = tag("spec:").ok_or("the scenario has no @spec: tag")?;
    let level = scenario
        .tags
        .iter()
        .find_map(|t| t.parse::<Level>().ok())
        .ok_or("the scenario has no @MUST, @SHOULD or @MAY tag")?;
    let example = scenario
        .examples
        .first()
        .and_then(|e| e.table.as_ref())
        .and_then(|t| t.rows.get(1))
        .and_then(|row| row.first());
    let id = match example {
        Some(value) => format!("{id}[{value}]"),
        None => id,
    };
    Ok(ScenarioMeta { id, level, doc })
}

/// Whether a scenario applies to a revision (`@since:`, `@until:` and `@except:` tags, on it
/// or its feature).
fn applies(feature: &gherkin::Feature, scenario: &gherkin::Scenario, revision: Revision) -> bool {
    feature.tags.iter().chain(&scenario.tags).all(|t| {
        if let Some(since) = t.strip_prefix("since:").and_then(|r| r.parse::<Revision>().ok()) {
            revision >= since
        } else if let Some(until) = t.strip_prefix("until:").and_then(|r| r.parse::<Revision>().ok()) {
            revision <= until
        } else if let Some(except) = t.strip_prefix("except:").and_then(|r| r.parse::<Revision>().ok()) {
            revision != except
        } else {
            true
        }
    })
}

/// Whether a scenario runs over `transport` (`stdio`, `http`, `sse`): one with `@transport:`
/// tags (on it or its feature) runs over those transports only, the others over every one.
fn on_transport(feature: &gherkin::Feature, scenario: &gherkin::Scenario, transport: &str) -> bool {
    let mut named =
        feature.tags.iter().chain(&scenario.tags).filter_map(|t| t.strip_prefix(TRANSPORT_TAG)).peekable();
    named.peek().is_none() || named.any(|t| t == transport)
}

const TRANSPORT_TAG: &str = "transport:";
const REVISION_TAG: &str = "mcpspec-revision:";
const ORDER_TAG: &str = "mcpspec-order:";
/// Scenarios about negotiation itself, run also at revisions the server counter-offers.
const NEGOTIATION_TAG: &str = "negotiation";
/// The sweep's feature, left out by `--no-sweep`.
const SWEEP_TAG: &str = "sweep";

/// What a one-off initialize (legacy era) or server/discover (stateless era) says about a
/// revision.
enum Probe {
    Echoed,
    /// The server does not speak the revision; why, in words.
    CounterOffered(String),
    /// `initialize` got an error: what a server of the stateless era only answers (decided
    /// with the other probes), else inconclusive.
    Refused(String),
    Inconclusive,
    NotStarted(String),
}

async fn probe(ctx: &SuiteContext, revision: Revision) -> Probe {
    let mut session =
        match mcpspec::session::server::ServerSession::start(&ctx.target, ctx.child.clone(), revision, None)
            .await
        {
            Ok(s) => s,
            // A server that answers with a defect: the scenarios judge it (sse/endpoint-event).
            Err(StartError::Connect(ConnectError::NoEndpoint { .. })) => {
                ctx.bounds.contact();
                return Probe::Inconclusive;
            }
            Err(e) => {
                ctx.bounds.no_contact(format!("it could not be started: {e}"), &[]);
                return Probe::NotStarted(e.to_string());
            }
        };
    session.set_label(format!("(probe) {revision}"));
    let (method, probe) = match revision.era() {
        Era::Legacy => ("initialize", probe_initialize(&mut session, ctx, revision).await),
        Era::Modern => ("server/discover", probe_discover(&mut session, ctx, revision).await),
    };
    // The gate hears of the attempt once its process has ended (a closing gate stops the run).
    let (probe, answered) = probe;
    // A malformed answer, or over HTTP any response head (a stream that never carries the
    // answer, an error status), is contact all the same: the server answered, wrongly, and the
    // scenarios judge how.
    let answered_http = session.recorder().exchange(1).is_some();
    let answered = answered.or_else(|e| match e {
        WaitError::Malformed(_) | WaitError::Http(_) => Ok(()),
        _ if answered_http => Ok(()),
        other => Err(other),
    });
    let behaviour =
        answered.map_err(|e| crate::suite::bounds::server_behaviour(&mut session, method, &e, ctx.timeout));
    let end = session.shutdown().await;
    let left = match &end {
        mcpspec::session::server::SessionEnd::Process(r) => r.left.clone(),
        mcpspec::session::server::SessionEnd::Http(_) => Vec::new(),
    };
    if !left.is_empty() {
        eprintln!(
            "mcpspec: the server probed at {revision} left running outside its process group: {}",
            left.join(", ")
        );
    }
    match behaviour {
        Ok(()) => ctx.bounds.contact(),
        Err(b) => ctx.bounds.no_contact(b, &left),
    }
    probe
}

/// A legacy revision is spoken when `initialize` echoes it.
async fn probe_initialize(
    session: &mut ServerSession,
    ctx: &SuiteContext,
    revision: Revision,
) -> (Probe, Result<(), WaitError>) {
    let params = serde_json::json!({
        "protocolVersion": revision.as_str(),
        "capabilities": {},
        "clientInfo": { "name": "mcpspec-probe", "version": env!("CARGO_PKG_VERSION") },
    });
    let answer = session.request("initialize", Some(params), ctx.timeout).await;
    let probe = match answer {
        Ok(r) => match r.outcome {
            Outcome::Result(r) => match r.get("protocolVersion").and_then(|v| v.as_str()) {
                Some(v) if v == revision.as_str() => Probe::Echoed,
                Some(v) => Probe::CounterOffered(format!("it counter-offered {v:?}")),
                None => Probe::Inconclusive,
            },
            Outcome::Error(e) => Probe::Refused(format!("initialize got error {} ({})", e.code, e.message)),
        },
        Err(e) => return (Probe::Inconclusive, Err(e)),
    };
    (probe, Ok(()))
}

/// A stateless revision is spoken when `server/discover` lists it; an
/// `UnsupportedProtocolVersionError` says which are (`basic/versioning.mdx`). Anything else —
/// an error of another kind, or silence — is a server of the legacy era only, as a dual-era
/// client concludes too (`basic/transports/stdio.mdx#backward-compatibility`).
async fn probe_discover(
    session: &mut ServerSession,
    ctx: &SuiteContext,
    revision: Revision,
) -> (Probe, Result<(), WaitError>) {
    let version = modern::wire_version(revision);
    let listed = modern::version_list;
    let answer = match session.request("server/discover", None, ctx.timeout).await {
        Ok(answer) => answer,
        Err(e) => {
            let why = format!("it speaks only the legacy era: server/discover got {e}");
            return (Probe::CounterOffered(why), Err(e));
        }
    };
    let probe = match answer.outcome {
        Outcome::Result(r) => {
            let supported = listed(r.get("supportedVersions"));
            if supported.iter().any(|v| v == version) {
                Probe::Echoed
            } else {
                Probe::CounterOffered(format!("its server/discover lists {supported:?}"))
            }
        }
        Outcome::Error(e) if e.code == ErrorObject::UNSUPPORTED_PROTOCOL_VERSION => {
            let supported = listed(e.data.as_ref().and_then(|d| d.get("supported")));
            Probe::CounterOffered(format!(
                "it answered server/discover with -32022, supporting {supported:?}"
            ))
        }
        Outcome::Error(e) => Probe::CounterOffered(format!(
            "it speaks only the legacy era: server/discover got error {} ({})",
            e.code, e.message
        )),
    };
    (probe, Ok(()))
}

/// Probes until the gate has seen [`crate::suite::bounds::ATTEMPTS`] sessions fail, or one work: a
/// run with fewer revisions than attempts tries the first revision again (each a fresh process).
async fn probe_again(ctx: &SuiteContext, revision: Revision) {
    loop {
        let (failed, working) = ctx.bounds.attempts();
        if working || failed >= crate::suite::bounds::ATTEMPTS {
            return;
        }
        let more = crate::suite::bounds::ATTEMPTS - failed;
        futures::future::join_all((0..more).map(|_| probe(ctx, revision))).await;
    }
}

/// Why `transport` cannot carry `revision`, if it cannot.
fn transport_carries(transport: &str, revision: Revision) -> Option<&'static str> {
    match transport {
        "http" if revision < Revision::V2025_03_26 => {
            Some("Streamable HTTP begins with 2025-03-26: 2024-11-05 defines stdio and HTTP+SSE only")
        }
        "sse" if revision.era() == Era::Modern => Some(
            "HTTP+SSE is a transport of the legacy era: the stateless revisions define stdio and Streamable HTTP \
             (2026-07-28 basic/transports/streamable-http.mdx#backward-compatibility)",
        ),
        _ => None,
    }
}

/// Runs the suite; returns the scenario reports (printing each as it finishes).
pub async fn run_server_suite(config: SuiteConfig) -> anyhow::Result<SuiteRun> {
    let mut features = parse(&sources("server", config.scenarios.as_deref())?)?;
    check_selection(&features, &config.selection, "server")?;
    if !config.sweep.enabled {
        features.retain(|f| !f.tags.iter().any(|t| t == SWEEP_TAG));
    }
    let ctx = SuiteContext::of(&config);
    let explicit = !config.revisions.is_empty();
    let revisions = if explicit { config.revisions.clone() } else { Revision::RELEASED.to_vec() };

    // Which revisions to run, and why the others are skipped.
    let mut skipped = Vec::new();
    let transport = ctx.target.transport();
    let (possible, impossible): (Vec<Revision>, Vec<Revision>) =
        revisions.iter().partition(|r| transport_carries(transport, **r).is_none());
    for revision in impossible {
        let why = transport_carries(transport, revision).unwrap_or_default();
        skipped.push(Skip {
            revision,
            verdict: Verdict::Skipped,
            why: why.to_owned(),
            counter_offered: false,
        });
    }
    let probing = async {
        let probes = futures::future::join_all(possible.iter().map(|r| probe(&ctx, *r))).await;
        if let Some(first) = possible.first() {
            probe_again(&ctx, *first).await;
        }
        probes
    };
    // The gate decides during the probes; the deadline may pass during them.
    let probes = tokio::select! {
        probes = probing => probes,
        _ = ctx.bounds.stopped() => Vec::new(),
    };
    if let Some(stopped) = ctx.bounds.stopped_why() {
        let planned = plan(&ctx, &features, &revisions, &possible, &skipped);
        return Ok(stop_run(&ctx, &planned, &stopped, revisions));
    }
    // A server that answers server/discover and refuses initialize speaks the stateless era
    // only (basic/versioning.mdx#backward-compatibility-with-initialization-based-versions).
    let modern =
        possible.iter().zip(&probes).any(|(r, p)| r.era() == Era::Modern && matches!(p, Probe::Echoed));
    let mut to_run = Vec::new();
    for (revision, probe) in possible.iter().zip(probes) {
        let why_not = |v: &str| {
            format!(
                "the server does not speak {revision}: {v} (name it with --revision to certify it anyway)"
            )
        };
        let skip = |why: String, counter_offered: bool| Skip {
            revision: *revision,
            verdict: Verdict::Skipped,
            why,
            counter_offered,
        };
        match probe {
            Probe::NotStarted(why) => skipped.push(Skip {
                revision: *revision,
                verdict: Verdict::Error,
                why,
                counter_offered: false,
            }),
            Probe::CounterOffered(v) if !explicit => skipped.push(skip(why_not(&v), true)),
            Probe::Refused(v) if modern && !explicit => {
                skipped.push(skip(why_not(&format!("it speaks only the stateless era: {v}")), false))
            }
            _ => to_run.push(*revision),
        }
    }

    // A run that could test no revision has no verdict, whatever its negotiation scenarios say.
    let not_tested = to_run.is_empty().then(|| {
        let why: Vec<String> = skipped.iter().map(|s| format!("{}: {}", s.revision, s.why)).collect();
        format!("no revision could be tested ({})", why.join("; "))
    });
    let run_features = plan(&ctx, &features, &revisions, &to_run, &skipped);
    if let Some(stopped) = run_bounded::<ServerWorld>(&ctx, &run_features, config.jobs).await {
        return Ok(stop_run(&ctx, &run_features, &stopped, revisions));
    }
    ctx.close_pool().await;
    Ok(SuiteRun { scenarios: ctx.results.take(), revisions, not_tested })
}

/// Runs the client suite: every scenario at every revision asked for (default: every legacy
/// revision), each with a fresh run of the client command.
pub async fn run_client_suite(config: SuiteConfig) -> anyhow::Result<SuiteRun> {
    let features = parse(&sources("client", config.scenarios.as_deref())?)?;
    check_selection(&features, &config.selection, "client")?;
    let ctx = SuiteContext::of(&config);
    // Every released revision by default; the draft only when named (it shares 2026-07-28's
    // wire string, so a client cannot tell them apart).
    let revisions =
        if config.revisions.is_empty() { Revision::RELEASED.to_vec() } else { config.revisions.clone() };
    let transport = ctx.target.transport();
    let (to_run, impossible): (Vec<Revision>, Vec<Revision>) =
        revisions.iter().partition(|r| transport_carries(transport, **r).is_none());
    let skipped: Vec<_> = impossible
        .into_iter()
        .map(|revision| Skip {
            revision,
            verdict: Verdict::Skipped,
            why: transport_carries(transport, revision).unwrap_or_default().to_owned(),
            counter_offered: false,
        })
        .collect();
    let run_features =
        crate::suite::client::paced_first(plan(&ctx, &features, &revisions, &to_run, &skipped));
    if let Some(stopped) = run_bounded::<ClientWorld>(&ctx, &run_features, config.jobs).await {
        return Ok(stop_run(&ctx, &run_features, &stopped, revisions));
    }
    Ok(SuiteRun { scenarios: ctx.results.take(), revisions, not_tested: None })
}

/// What a suite run yields: a report per scenario and revision, the revisions tried, and why
/// none could be tested, when none could.
pub struct SuiteRun {
    pub scenarios: Vec<ScenarioReport>,
    pub revisions: Vec<Revision>,
    pub not_tested: Option<String>,
}

/// A revision not run, and why.
struct Skip {
    revision: Revision,
    /// `Skipped`, or `Error` when the implementation could not even be started.
    verdict: Verdict,
    why: String,
    /// The server answered `initialize` at this revision with another: its `@negotiation`
    /// scenarios run here all the same.
    counter_offered: bool,
}

/// One copy of each feature per revision to run, holding the scenarios that apply to it;
/// scenarios of `skipped` revisions are reported at once, with the reason — but for the
/// `@negotiation` scenarios of a revision the server counter-offered, which run there too: what
/// a server answers with is evidence of what it supports.
fn plan(
    ctx: &SuiteContext,
    features: &[gherkin::Feature],
    revisions: &[Revision],
    to_run: &[Revision],
    skipped: &[Skip],
) -> Vec<gherkin::Feature> {
    let mut run_features = Vec::new();
    let transport = ctx.target.transport();
    for (order, feature) in features.iter().enumerate() {
        for (rev_index, revision) in revisions.iter().enumerate() {
            let skip = skipped.iter().find(|s| s.revision == *revision);
            let (scenarios, unrun_here): (Vec<_>, Vec<_>) = feature
                .scenarios
                .iter()
                .filter(|s| applies(feature, s, *revision) && on_transport(feature, s, transport))
                .filter(|s| ctx.selection.selects(feature, s))
                .cloned()
                .partition(|s| match skip {
                    None => to_run.contains(revision),
                    Some(skip) => skip.counter_offered && s.tags.iter().any(|t| t == NEGOTIATION_TAG),
                });
            ctx.results.planned(scenarios.len() + if skip.is_some() { unrun_here.len() } else { 0 });
            if let Some(Skip { verdict, why, .. }) = skip {
                for s in &unrun_here {
                    let order = (order, s.position.line, rev_index);
                    ctx.results.push(unrun(feature, s, (*revision, transport), *verdict, why, order));
                }
            }
            if scenarios.is_empty() {
                continue;
            }
            let mut copy = feature.clone();
            copy.scenarios = scenarios;
            copy.name = format!("{} [{revision}]", feature.name);
            copy.tags.push(format!("{REVISION_TAG}{revision}"));
            copy.tags.push(format!("{ORDER_TAG}{order}:{rev_index}"));
            run_features.push(copy);
        }
    }
    run_features
}

/// What a role's cucumber `World` tells the runner about a scenario.
pub trait RoleWorld:
    Scenario + cucumber::World + cucumber::codegen::WorldInventory + std::fmt::Debug
{
    /// Prepares the world for a scenario (the before hook).
    fn begin(&mut self, ctx: Arc<SuiteContext>, revision: Revision, meta: Option<ScenarioMeta>) {
        self.state_mut().begin(ctx, revision, meta);
    }
    /// The scenario's own state: its checks so far, a harness error, whether a step stopped
    /// it (halted or skipped), why it was skipped, when it started.
    fn take_state(&mut self) -> WorldState {
        self.state_mut().take()
    }
    /// Ends the session with the implementation under test — or hands it on, when the role
    /// shares sessions, the scenario was `clean` (no harness error, not stopped) and left it
    /// as it found it: adds the wire checks to `checks`; returns how it ended, and — when
    /// `failing` says the scenario does not pass with the checks given — the end of its stderr
    /// and the wire transcript.
    fn end_session(
        &mut self,
        checks: &mut Vec<Check>,
        failing: &dyn Fn(&[Check]) -> bool,
        clean: bool,
    ) -> impl std::future::Future<Output = SessionEnd>;
}

/// See [`RoleWorld::take_state`].
pub struct WorldState {
    pub meta: Option<ScenarioMeta>,
    pub checks: Vec<Check>,
    pub error: Option<String>,
    pub halted: bool,
    pub skipped: Option<String>,
    pub started: Instant,
}

/// See [`RoleWorld::end_session`].
#[derive(Default)]
pub struct SessionEnd {
    pub shutdown: Option<String>,
    /// The shared process the scenario ran in, if it shared one.
    pub session: Option<String>,
    pub stderr: Option<String>,
    pub transcript: Option<Vec<TranscriptEntry>>,
}

/// Runs the scenarios until they end or the run's bounds stop it (the gate closes, the deadline
/// passes); returns why it stopped, if it did. A stopped run drops its scenarios: each session
/// ends its process group on drop, and no scenario waits out another's timeout.
async fn run_bounded<W: RoleWorld>(
    ctx: &Arc<SuiteContext>,
    run_features: &[gherkin::Feature],
    jobs: usize,
) -> Option<Stopped> {
    tokio::select! {
        () = run_cucumber::<W>(ctx, run_features.to_vec(), jobs) => None,
        stopped = ctx.bounds.stopped() => Some(stopped),
    }
}

/// The end of a run its bounds stopped: every planned scenario that did not finish is reported
/// as an error with the reason (in report.json; the console gets one line), and a gate that
/// closed is the run's verdict (`not_tested`: no verdict).
fn stop_run(
    ctx: &Arc<SuiteContext>,
    run_features: &[gherkin::Feature],
    stopped: &Stopped,
    revisions: Vec<Revision>,
) -> SuiteRun {
    let why = stopped.reason();
    let transport = ctx.target.transport();
    let planned = run_features
        .iter()
        .flat_map(|f| {
            let (feature_index, rev_index) = feature_order(f);
            let revision = feature_revision(f);
            let why = &why;
            f.scenarios.iter().map(move |s| {
                let order = (feature_index, s.position.line, rev_index);
                unrun(f, s, (revision, transport), Verdict::Error, why, order)
            })
        })
        .collect();
    let unfinished = ctx.results.fill_unfinished(planned);
    let not_tested = match stopped {
        Stopped::NoSession(verdict) => {
            println!("NOT RUN {unfinished} scenarios (listed in report.json): {verdict}");
            Some(verdict.clone())
        }
        Stopped::Deadline(_) => {
            println!("NOT FINISHED {unfinished} scenarios (listed in report.json as errors): {why}");
            None
        }
    };
    SuiteRun { scenarios: ctx.results.take(), revisions, not_tested }
}

async fn run_cucumber<W: RoleWorld>(
    ctx: &Arc<SuiteContext>,
    run_features: Vec<gherkin::Feature>,
    jobs: usize,
) {
    if run_features.is_empty() {
        return;
    }
    let before_ctx = ctx.clone();
    let after_ctx = ctx.clone();
    W::cucumber::<&str>()
        .with_parser(Features(run_features))
        .with_writer(Silent)
        .with_default_cli()
        .max_concurrent_scenarios(jobs.max(1))
        .before(move |feature, _rule, scenario, world| {
            let ctx = before_ctx.clone();
            async move {
                world.begin(ctx, feature_revision(feature), meta_of(scenario).ok());
            }
            .boxed_local()
        })
        .after(move |feature, _rule, scenario, finished, world| {
            let ctx = after_ctx.clone();
            async move {
                let transport = ctx.target.transport();
                ctx.results.push(finish(feature, scenario, finished, world, transport).await);
            }
            .boxed_local()
        })
        .run(())
        .await;
}

fn feature_revision(feature: &gherkin::Feature) -> Revision {
    feature
        .tags
        .iter()
        .find_map(|t| t.strip_prefix(REVISION_TAG))
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(Revision::latest_legacy)
}

fn feature_order(feature: &gherkin::Feature) -> (usize, usize) {
    let tag = feature.tags.iter().find_map(|t| t.strip_prefix(ORDER_TAG)).unwrap_or("0:0");
    let mut parts = tag.split(':').map(|p| p.parse().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// The tags of a scenario and its feature as a report lists them: without `@`, without the
/// runner's own, each once.
fn tags_of(feature: &gherkin::Feature, scenario: &gherkin::Scenario) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    for t in feature.tags.iter().chain(&scenario.tags) {
        if !t.starts_with(REVISION_TAG) && !t.starts_with(ORDER_TAG) && !tags.contains(t) {
            tags.push(t.clone());
        }
    }
    tags
}

fn feature_file(feature: &gherkin::Feature) -> String {
    feature.path.as_ref().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default()
}

/// The report of a scenario that was not run.
fn unrun(
    feature: &gherkin::Feature,
    scenario: &gherkin::Scenario,
    (revision, transport): (Revision, &'static str),
    verdict: Verdict,
    why: &str,
    order: (usize, usize, usize),
) -> ScenarioReport {
    let meta =
        meta_of(scenario).unwrap_or(ScenarioMeta { id: "?".into(), level: Level::MUST, doc: String::new() });
    ScenarioReport {
        id: meta.id,
        name: scenario.name.clone(),
        feature: feature_file(feature),
        revision: revision.to_string(),
        transport,
        era: revision.era().name(),
        level: meta.level,
        spec: revision.doc(&meta.doc),
        tags: tags_of(feature, scenario),
        verdict,
        reason: Some(why.to_owned()),
        baseline: None,
        checks: Vec::new(),
        duration_ms: 0,
        shutdown: None,
        session: None,
        stderr: None,
        transcript: None,
        order,
    }
}

/// Ends a scenario: ends the session with the implementation, gathers the step and wire checks,
/// and judges.
async fn finish<W: RoleWorld>(
    feature: &gherkin::Feature,
    scenario: &gherkin::Scenario,
    finished: &event::ScenarioFinished,
    world: Option<&mut W>,
    transport: &'static str,
) -> ScenarioReport {
    let revision = feature_revision(feature);
    let (feature_index, rev_index) = feature_order(feature);
    let order = (feature_index, scenario.position.line, rev_index);
    let Some(world) = world else {
        return unrun(
            feature,
            scenario,
            (revision, transport),
            Verdict::Error,
            "the scenario could not start (no world)",
            order,
        );
    };
    let WorldState { meta, mut checks, mut error, halted, skipped, started } = world.take_state();
    let meta = meta.unwrap_or(ScenarioMeta { id: "?".into(), level: Level::MUST, doc: String::new() });
    if error.is_none() && !halted && skipped.is_none() {
        error = match finished {
            event::ScenarioFinished::StepSkipped => {
                Some("a step matches no step definition (see harness/src/steps/)".to_owned())
            }
            event::ScenarioFinished::StepFailed(_, _, e) => Some(format!("harness error: {e}")),
            event::ScenarioFinished::BeforeHookFailed(_) => {
                Some("harness error: the before hook failed".to_owned())
            }
            event::ScenarioFinished::StepPassed => None,
        };
    }
    let failing = |checks: &[Check]| ScenarioReport::verdict_of(checks, error.as_deref()) != Verdict::Passed;
    let clean = error.is_none() && !halted;
    let SessionEnd { shutdown, session, stderr, transcript } =
        world.end_session(&mut checks, &failing, clean).await;
    let (verdict, reason) = match (&error, &skipped) {
        // A scenario that does not apply is skipped — unless what it saw on the way broke a rule.
        (None, Some(why)) => {
            let worst = checks.iter().map(|c| c.verdict).filter(|v| *v >= Verdict::Warning).max();
            (worst.unwrap_or(Verdict::Skipped), Some(why.clone()))
        }
        _ => (
            ScenarioReport::verdict_of(&checks, error.as_deref()),
            error.or_else(|| checks.is_empty().then(|| "no check was exercised".to_owned())),
        ),
    };
    ScenarioReport {
        id: meta.id,
        name: scenario.name.clone(),
        feature: feature_file(feature),
        revision: revision.to_string(),
        transport,
        era: revision.era().name(),
        level: meta.level,
        spec: revision.doc(&meta.doc),
        tags: tags_of(feature, scenario),
        verdict,
        reason,
        baseline: None,
        checks,
        duration_ms: started.elapsed().as_millis() as u64,
        shutdown,
        session,
        stderr,
        transcript,
        order,
    }
}

/// The name of a revision's era in reports (`basic/versioning.mdx#terminology`).
/// Hands cucumber the prepared features.
struct Features(Vec<gherkin::Feature>);

impl<I> cucumber::Parser<I> for Features {
    type Cli = cucumber::cli::Empty;
    type Output = futures::stream::Iter<std::vec::IntoIter<parser::Result<gherkin::Feature>>>;

    fn parse(self, _input: I, _cli: Self::Cli) -> Self::Output {
        futures::stream::iter(self.0.into_iter().map(Ok).collect::<Vec<_>>())
    }
}

/// mcpspec prints its own results; cucumber's events are not shown.
struct Silent;

impl<W: cucumber::World> cucumber::Writer<W> for Silent {
    type Cli = cucumber::cli::Empty;

    async fn handle_event(&mut self, _event: parser::Result<Event<event::Cucumber<W>>>, _cli: &Self::Cli) {}
}

impl writer::Normalized for Silent {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_embedded_scenario_has_id_level_and_spec() {
        for (role, at_least) in [("server", 10), ("client", 8)] {
            every_scenario_of(role, at_least);
        }
    }

    /// Every clause a scenario or a wire rule cites at 2026-07-28 is a page of 2026-07-28 (the
    /// era moved and removed pages: `Revision::doc` follows them).
    #[test]
    fn every_clause_cited_at_2026_is_a_page_of_2026() {
        use mcpspec_protocol::revision::is_page_2026;
        let modern = Revision::V2026_07_28;
        for role in ["server", "client"] {
            for f in parse(&sources(role, None).unwrap()).unwrap() {
                for s in f.scenarios.iter().filter(|s| applies(&f, s, modern)) {
                    let meta = meta_of(s).unwrap();
                    assert!(
                        is_page_2026(&modern.doc(&meta.doc)),
                        "{role} {}: {}",
                        meta.id,
                        modern.doc(&meta.doc)
                    );
                }
            }
        }
        for rule in mcpspec::judge::rules::ALL.iter().chain(mcpspec::judge::client::modern::ALL) {
            assert!(is_page_2026(&rule.spec(modern)), "{}: {}", rule.id, rule.spec(modern));
        }
    }

    fn every_scenario_of(role: &str, at_least: usize) {
        let features = parse(&sources(role, None).unwrap()).unwrap();
        let n: usize = features.iter().map(|f| f.scenarios.len()).sum();
        assert!(n >= at_least, "{n} {role} scenarios");
        let mut ids: Vec<String> =
            features.iter().flat_map(|f| &f.scenarios).map(|s| meta_of(s).unwrap().id).collect();
        let total = ids.len();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), total, "scenario ids must be unique");
    }
}
