//! Runs a suite: loads the role's scenarios ([`super::load`]), decides which revisions to run
//! (for servers: those the server speaks, [`super::probe`]), plans one run per scenario and
//! revision, runs them under cucumber (`-j` at a time, within the run's bounds), and collects
//! one [`ScenarioReport`] per run. Each role brings its own cucumber `World`
//! ([`RoleWorld`]); everything here is shared.

use super::authorization::AuthorizationWorld;
use super::bounds::Stopped;
use super::client::ClientWorld;
use super::context::{SuiteConfig, SuiteContext};
use super::load::{load, LoadedFeature};
use super::plan::{transport_carries, ScenarioPlan, ScenarioRun};
use super::probe::{probe, probe_again, Probe};
use super::scenario::WorldState;
use super::server::ServerWorld;
use super::world::{Ending, RoleWorld, SessionEnd};
use cucumber::gherkin;
use cucumber::{event, parser, writer, Event};
use futures::FutureExt as _;
use mcpspec::judge::verdict::{Check, Verdict};
use mcpspec::report::ScenarioReport;
use mcpspec_protocol::auth::discovery::has_authorization;
use mcpspec_protocol::{Era, Revision};
use std::sync::Arc;

/// The sweep's feature, left out by `--no-sweep`.
const SWEEP_TAG: &str = "sweep";
/// The authorization scenarios' feature: all that runs against a protected server without a
/// token.
const AUTH_TAG: &str = "auth";

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

/// Runs the server suite; returns the scenario reports (printing each as it finishes).
pub async fn run_server_suite(config: SuiteConfig) -> anyhow::Result<SuiteRun> {
    let mut features = load("server", config.scenarios.as_deref())?;
    check_selection(&features, &config, "server")?;
    if !config.sweep.enabled {
        features.retain(|f| !f.feature.tags.iter().any(|t| t == SWEEP_TAG));
    }
    // A protected server mcpspec holds no token for: what needs no token is judged (the
    // authorization scenarios), the rest is one verdict, not a list of 401s.
    if config.protected.is_some() {
        features.retain(|f| f.feature.tags.iter().any(|t| t == AUTH_TAG));
    }
    let ctx = SuiteContext::of(&config);
    let explicit = !config.revisions.is_empty();
    let revisions = if explicit { config.revisions.clone() } else { Revision::RELEASED.to_vec() };

    // Which revisions to run, and why the others are skipped.
    let transport = ctx.target.transport();
    let (possible, impossible): (Vec<Revision>, Vec<Revision>) =
        revisions.iter().partition(|r| transport_carries(transport, **r).is_none());
    let mut skipped = untransportable(transport, impossible);
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
    // A server that answers server/discover and refuses initialize speaks the modern era
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
                skipped.push(skip(why_not(&format!("it speaks only the modern era: {v}")), false))
            }
            _ => to_run.push(*revision),
        }
    }

    // A run that could test no revision has no verdict, whatever its negotiation scenarios say.
    let not_tested = to_run.is_empty().then(|| {
        let why: Vec<String> = skipped.iter().map(|s| format!("{}: {}", s.revision, s.why)).collect();
        format!("no revision could be tested ({})", why.join("; "))
    });
    let not_tested = config.protected.clone().or(not_tested);
    let run_features = plan(&ctx, &features, &revisions, &to_run, &skipped);
    if let Some(stopped) = run_bounded::<ServerWorld>(&ctx, &run_features, config.jobs).await {
        return Ok(stop_run(&ctx, &run_features, &stopped, revisions));
    }
    ctx.close_pool().await;
    Ok(SuiteRun { scenarios: ctx.results.take(), revisions, not_tested })
}

/// Runs the client suite: every scenario at every revision asked for (default: every released
/// revision), each with a fresh run of the client command.
pub async fn run_client_suite(config: SuiteConfig) -> anyhow::Result<SuiteRun> {
    let features = load("client", config.scenarios.as_deref())?;
    check_selection(&features, &config, "client")?;
    let ctx = SuiteContext::of(&config);
    // Every released revision by default; the draft only when named (it shares 2026-07-28's
    // wire string, so a client cannot tell them apart).
    let revisions =
        if config.revisions.is_empty() { Revision::RELEASED.to_vec() } else { config.revisions.clone() };
    let transport = ctx.target.transport();
    let (to_run, impossible): (Vec<Revision>, Vec<Revision>) =
        revisions.iter().partition(|r| transport_carries(transport, **r).is_none());
    let skipped = untransportable(transport, impossible);
    let run_features = super::client::paced_first(plan(&ctx, &features, &revisions, &to_run, &skipped));
    if let Some(stopped) = run_bounded::<ClientWorld>(&ctx, &run_features, config.jobs).await {
        return Ok(stop_run(&ctx, &run_features, &stopped, revisions));
    }
    Ok(SuiteRun { scenarios: ctx.results.take(), revisions, not_tested: None })
}

/// The authorization-server suite's role: its scenarios' folder and the report's `role`.
pub const AUTHORIZATION_SERVER: &str = "authorization-server";

/// Runs the authorization-server suite: every scenario at every revision asked for (default:
/// every released revision with authorization, 2025-03-26 on), each its own OAuth client of the
/// server (requests outside any session: nothing to probe or share).
pub async fn run_authorization_suite(config: SuiteConfig) -> anyhow::Result<SuiteRun> {
    let features = load(AUTHORIZATION_SERVER, config.scenarios.as_deref())?;
    check_selection(&features, &config, AUTHORIZATION_SERVER)?;
    let ctx = SuiteContext::of(&config);
    let revisions = match config.revisions.is_empty() {
        true => Revision::RELEASED.into_iter().filter(|r| has_authorization(*r)).collect(),
        false => config.revisions.clone(),
    };
    let run_features = plan(&ctx, &features, &revisions, &revisions, &[]);
    if let Some(stopped) = run_bounded::<AuthorizationWorld>(&ctx, &run_features, config.jobs).await {
        return Ok(stop_run(&ctx, &run_features, &stopped, revisions));
    }
    Ok(SuiteRun { scenarios: ctx.results.take(), revisions, not_tested: None })
}

/// The revisions the run's transport cannot carry, skipped with the reason.
fn untransportable(transport: &str, revisions: Vec<Revision>) -> Vec<Skip> {
    revisions
        .into_iter()
        .map(|revision| Skip {
            revision,
            verdict: Verdict::Skipped,
            why: transport_carries(transport, revision).unwrap_or_default().to_owned(),
            counter_offered: false,
        })
        .collect()
}

/// Fails when the selection leaves no scenario of the suite.
fn check_selection(features: &[LoadedFeature], config: &SuiteConfig, role: &str) -> anyhow::Result<()> {
    let selection = &config.selection;
    if features.iter().flat_map(|f| &f.plans).any(|p| selection.selects(p)) {
        return Ok(());
    }
    let asked = &selection.asked;
    anyhow::bail!(
        "no {role} scenario matches --scenario {:?} --tag {:?} (`mcpspec list --role {role}` lists them)",
        asked.scenario,
        asked.tag
    )
}

/// One copy of each feature per revision to run, holding the scenarios that apply to it, each
/// tagged with its planned run ([`SuiteContext::add_run`]); scenarios of `skipped` revisions are
/// reported at once, with the reason — but for the `@negotiation` scenarios of a revision the
/// server counter-offered, which run there too: what a server answers with is evidence of what
/// it supports.
fn plan(
    ctx: &SuiteContext,
    features: &[LoadedFeature],
    revisions: &[Revision],
    to_run: &[Revision],
    skipped: &[Skip],
) -> Vec<gherkin::Feature> {
    let mut run_features = Vec::new();
    let transport = ctx.target.transport();
    // Two passes over the revisions. The first holds the `@slow` scenarios of every revision:
    // their waits on the server's own work (a tool running until the timeout) then overlap the
    // others' starts instead of trailing them. The second goes revision by revision: a
    // scenario's first runs show what it does (whether it only reads) before its runs at later
    // revisions start ([`SuiteContext::learn_reads`]). At each revision of a pass, the
    // scenarios that start a process of their own go first: the processes they hand on serve
    // the others ([`ScenarioPlan::own_process`]); then those declaring a persona's
    // capabilities, which join the first pass: the processes they leave serve the persona
    // sweeps after them ([`ScenarioPlan::persona`]). The first pass goes from the newest
    // revision to the oldest: the newest hold most of its scenarios (the tasks, the personas of
    // 2025-11-25, the modern era's own), and the longest of them then start first instead of
    // trailing (issue #31, A/B runs on 2 cores: mcp-server-time 17.4-19.6 s in five runs
    // against 20.0-20.6 s in four; the Python SDK server 20.2-22.6 s against 21.8-23.6 s).
    let passes = [true, false].into_iter().flat_map(|first| {
        let order: Vec<_> = match first {
            true => revisions.iter().enumerate().rev().collect(),
            false => revisions.iter().enumerate().collect(),
        };
        order.into_iter().flat_map(move |r| [0, 1, 2].map(|turn| (first, r, turn)))
    });
    // Where a scenario runs as planned: a revision run (not skipped), that it applies to, over
    // this transport, in this selection.
    let runs_at = |plan: &ScenarioPlan, revision: Revision| {
        to_run.contains(&revision)
            && skipped.iter().all(|s| s.revision != revision)
            && plan.applies(revision)
            && plan.on_transport(transport)
            && ctx.selection.runs(plan, revision)
    };
    // Those revisions, each with its place in the order.
    let runs = |p: &ScenarioPlan| -> Vec<(Revision, usize)> {
        revisions.iter().enumerate().filter(|(_, r)| runs_at(p, **r)).map(|(i, r)| (*r, i)).collect()
    };
    // A scenario run at one revision only has nothing to learn from its other runs, nor to
    // teach them: it goes with the `@slow` ones, so that a wait of its own for the timeout (a
    // server that never answers a batch) overlaps the rest instead of trailing it. So does a
    // `@revision-independent` one, run once for all: the processes it hands on (at the
    // revision the server counter-offers) then serve that revision's first-pass scenarios,
    // instead of coming after everyone at it has found one.
    let first_pass = |p: &ScenarioPlan| p.slow || p.persona || p.revision_independent || runs(p).len() == 1;
    let pass_of = |p: &ScenarioPlan| match (first_pass(p), p.own_process, p.persona && !p.slow) {
        (first, true, _) => (first, 0),
        (first, false, true) => (first, 1),
        (first, false, false) => (first, 2),
    };
    // A `@revision-independent` scenario runs at the newest of them, standing for the others.
    let stands_for = |plan: &ScenarioPlan, revision: Revision| -> Option<Vec<(Revision, usize)>> {
        if !plan.revision_independent || !runs_at(plan, revision) {
            return Some(Vec::new());
        }
        let at = runs(plan);
        let newest = at.iter().map(|(r, _)| *r).max();
        (newest == Some(revision)).then(|| at.into_iter().filter(|(r, _)| *r != revision).collect())
    };
    for (first, (rev_index, revision), turn) in passes {
        for (order, loaded) in features.iter().enumerate() {
            let skip = skipped.iter().find(|s| s.revision == *revision);
            let (scenarios, unrun_here): (Vec<_>, Vec<_>) = loaded
                .scenarios()
                .filter(|(_, p)| pass_of(p) == (first, turn))
                .filter(|(_, p)| p.applies(*revision) && p.on_transport(transport))
                .filter(|(_, p)| ctx.selection.runs(p, *revision))
                .filter_map(|(s, p)| {
                    let run = ScenarioRun {
                        plan: p.clone(),
                        revision: *revision,
                        order: (order, s.position.line, rev_index),
                        alone: None,
                        stands_for: stands_for(p, *revision)?,
                    };
                    Some((s, run))
                })
                .partition(|(_, run)| match skip {
                    None => to_run.contains(revision),
                    Some(skip) => skip.counter_offered && run.plan.negotiation,
                });
            let standing: usize = scenarios.iter().map(|(_, run)| run.stands_for.len()).sum();
            ctx.results
                .planned(scenarios.len() + standing + if skip.is_some() { unrun_here.len() } else { 0 });
            if let Some(Skip { verdict, why, .. }) = skip {
                for (_, run) in &unrun_here {
                    ctx.results.push(unrun(run, transport, *verdict, why));
                }
            }
            if scenarios.is_empty() {
                continue;
            }
            let mut copy = loaded.feature.clone();
            copy.scenarios = scenarios
                .into_iter()
                .map(|(s, run)| {
                    let mut s = s.clone();
                    s.tags.push(ctx.add_run(run));
                    s
                })
                .collect();
            copy.name = format!("{} [{revision}]", loaded.feature.name);
            run_features.push(copy);
        }
    }
    run_features
}

/// Runs the scenarios until they end or the run's bounds stop it (the gate closes, the deadline
/// passes); returns why it stopped, if it did. A stopped run drops its scenarios: each session
/// ends its process group on drop, and no scenario waits out another's timeout.
async fn run_bounded<W: RoleWorld>(
    ctx: &Arc<SuiteContext>,
    run_features: &[gherkin::Feature],
    jobs: usize,
) -> Option<Stopped> {
    let run = async {
        run_cucumber::<W>(ctx, run_features.to_vec(), jobs).await;
        // The runs whose verdicts could not stand on a process shared at once, each alone.
        let again = ctx.take_again(run_features);
        run_cucumber::<W>(ctx, again, jobs).await;
    };
    tokio::select! {
        () = run => None,
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
        .flat_map(|f| &f.scenarios)
        .filter_map(|s| ctx.run_of(s))
        .flat_map(|run| {
            let entry = unrun(&run, transport, Verdict::Error, &why);
            let mut entries = run.standing_entries(&entry);
            entries.push(entry);
            entries
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
        .before(move |_feature, _rule, scenario, world| {
            let ctx = before_ctx.clone();
            async move {
                // Every scenario the runner hands cucumber carries its run (see `plan`).
                if let Some(run) = ctx.run_of(scenario) {
                    world.begin(ctx, run);
                }
            }
            .boxed_local()
        })
        .after(move |_feature, _rule, scenario, finished, world| {
            let ctx = after_ctx.clone();
            async move {
                let Some(run) = ctx.run_of(scenario) else {
                    return ctx.results.push(unplanned(scenario, ctx.target.transport()));
                };
                match finish(&run, finished, world, ctx.target.transport()).await {
                    Ok(report) => {
                        run.standing_entries(&report).into_iter().for_each(|e| ctx.results.push(e));
                        ctx.results.push(report)
                    }
                    Err(again) => ctx.run_again(scenario, again),
                }
            }
            .boxed_local()
        })
        .run(())
        .await;
}

/// The report of a run with no checks yet: its plan's facts at its revision.
fn report_of(
    run: &ScenarioRun,
    transport: &'static str,
    verdict: Verdict,
    reason: Option<String>,
) -> ScenarioReport {
    let plan = &run.plan;
    ScenarioReport {
        id: plan.id.clone(),
        name: plan.name.clone(),
        feature: plan.feature.clone(),
        revision: run.revision.to_string(),
        transport,
        era: run.revision.era().name(),
        level: plan.level,
        spec: plan.spec(run.revision),
        tags: plan.tags.clone(),
        verdict,
        reason,
        baseline: None,
        checks: Vec::new(),
        duration_ms: 0,
        shutdown: None,
        session: None,
        stderr: None,
        transcript: None,
        order: run.order,
    }
}

/// The report of a scenario that was not run.
fn unrun(run: &ScenarioRun, transport: &'static str, verdict: Verdict, why: &str) -> ScenarioReport {
    report_of(run, transport, verdict, Some(why.to_owned()))
}

/// The report of a scenario cucumber ran that the runner did not plan (a runner bug): an error,
/// never a verdict.
fn unplanned(scenario: &gherkin::Scenario, transport: &'static str) -> ScenarioReport {
    let plan = Arc::new(ScenarioPlan::unknown(&scenario.name));
    let run = ScenarioRun {
        plan,
        revision: Revision::latest_legacy(),
        order: (usize::MAX, 0, 0),
        alone: None,
        stands_for: Vec::new(),
    };
    unrun(&run, transport, Verdict::Error, "harness error: the runner did not plan this scenario")
}

/// Ends a scenario: ends the session with the implementation, gathers the step and wire checks,
/// and judges — or says why the run is to be judged again, alone.
async fn finish<W: RoleWorld>(
    run: &ScenarioRun,
    finished: &event::ScenarioFinished,
    world: Option<&mut W>,
    transport: &'static str,
) -> Result<ScenarioReport, String> {
    let Some(world) = world else {
        return Ok(unrun(run, transport, Verdict::Error, "the scenario could not start (no world)"));
    };
    let WorldState { mut checks, mut error, halted, skipped, started } = world.take_state();
    if error.is_none() && !halted && skipped.is_none() {
        error = match finished {
            event::ScenarioFinished::StepSkipped => {
                Some("a step matches no step definition (see harness/src/bin/mcpspec/suite/)".to_owned())
            }
            event::ScenarioFinished::StepFailed(_, _, e) => Some(format!("harness error: {e}")),
            event::ScenarioFinished::BeforeHookFailed(_) => {
                Some("harness error: the before hook failed".to_owned())
            }
            event::ScenarioFinished::StepPassed => None,
        };
    }
    let failing = |checks: &[Check]| ScenarioReport::verdict_of(checks, error.as_deref()) != Verdict::Passed;
    let ending = match (error.is_none(), halted) {
        (true, false) => Ending::Finished,
        (true, true) if ScenarioReport::verdict_of(&checks, None) <= Verdict::Warning => {
            Ending::HaltedOnWarning
        }
        _ => Ending::Broken,
    };
    let SessionEnd { shutdown, session, stderr, transcript, again } =
        world.end_session(&mut checks, &failing, ending).await;
    if let Some(again) = again {
        return Err(again);
    }
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
    Ok(ScenarioReport {
        checks,
        duration_ms: started.elapsed().as_millis() as u64,
        shutdown,
        session,
        stderr,
        transcript,
        ..report_of(run, transport, verdict, reason)
    })
}

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
