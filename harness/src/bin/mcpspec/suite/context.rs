//! What a run's scenarios share: how to reach the implementation, the run's options, the
//! session pool, where results go and the run's bounds. Built once per run from its
//! [`SuiteConfig`].

use super::bounds::RunBounds;
use super::plan::{Filter, ScenarioRun};
use mcpspec::judge::verdict::Check;
use mcpspec::report::Results;
use mcpspec::session::pool::{SessionPool, SharedSession};
use mcpspec::session::server::auth::AuthSetup;
use mcpspec::session::target::Target;
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::ChildOptions;
use mcpspec_schema::SchemaSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The sweep's options for a run (`--no-sweep`, `--sweep-destructive`, `--sweep-timeout`).
#[derive(Debug, Clone, Copy)]
pub struct SweepOptions {
    pub enabled: bool,
    /// Call tools whose `annotations.destructiveHint` is true.
    pub destructive: bool,
    /// How long the sweep waits for each call (`--sweep-timeout`, at most `--timeout`).
    pub call_timeout: Duration,
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
    /// The run's gate and deadline ([`super::bounds`]).
    pub bounds: Arc<RunBounds>,
    /// How mcpspec authenticates to an OAuth-protected server (`--auth-token`, `--auth-issuer`).
    pub auth: Arc<AuthSetup>,
    /// The server answered 401 and mcpspec has no token: only the authorization scenarios run,
    /// and this is the run's verdict ("protected: …").
    pub protected: Option<String>,
}

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
    pub results: Arc<Results>,
    pub selection: Filter,
    /// The scenario runs planned, by index: the index is the one tag the runner adds to a
    /// scenario it hands cucumber (`mcpspec-run:N`), so its hooks find the run without reading
    /// any other tag again.
    runs: Mutex<Vec<ScenarioRun>>,
    /// Rules the server broke after a scenario had ended, on its shared session, charged to
    /// that scenario at the end of the run: its id, revision and the checks.
    late: Mutex<Vec<(String, Revision, Vec<Check>)>>,
    /// Shared sessions being ended.
    retiring: Mutex<Vec<tokio::task::JoinHandle<()>>>,
    /// What each scenario (by id) did when it ran on a session of its own: whether it only
    /// read, with well-formed messages — so its runs at other revisions may share a process
    /// with others at once ([`mcpspec::session::pool::SessionPool::join`]).
    readers: Mutex<std::collections::HashMap<String, bool>>,
    /// Runs (by index) whose verdicts could not stand on a process shared at once, and why:
    /// run again, each in a process of its own, once the others are done.
    again: Mutex<Vec<(usize, String)>>,
    /// The run's gate and deadline.
    pub bounds: Arc<RunBounds>,
    /// How mcpspec authenticates to an OAuth-protected server.
    pub auth: Arc<AuthSetup>,
}

/// The tag that names a scenario's run ([`SuiteContext::run_of`]).
pub const RUN_TAG: &str = "mcpspec-run:";

/// The index of the run a scenario stands for (its [`RUN_TAG`]).
fn run_index(scenario: &cucumber::gherkin::Scenario) -> Option<usize> {
    scenario.tags.iter().find_map(|t| t.strip_prefix(RUN_TAG))?.parse().ok()
}

impl SuiteContext {
    /// The context every scenario of a run shares.
    pub fn of(config: &SuiteConfig) -> Arc<SuiteContext> {
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
            runs: Mutex::new(Vec::new()),
            late: Mutex::new(Vec::new()),
            retiring: Mutex::new(Vec::new()),
            readers: Mutex::new(std::collections::HashMap::new()),
            again: Mutex::new(Vec::new()),
            bounds: config.bounds.clone(),
            auth: config.auth.clone(),
        })
    }

    /// Plans one run of a scenario; returns the tag that names it.
    pub fn add_run(&self, run: ScenarioRun) -> String {
        let mut runs = self.runs.lock().expect("runs lock");
        runs.push(run);
        format!("{RUN_TAG}{}", runs.len() - 1)
    }

    /// The run a scenario handed to cucumber stands for (by its run tag).
    pub fn run_of(&self, scenario: &cucumber::gherkin::Scenario) -> Option<ScenarioRun> {
        let n = run_index(scenario)?;
        self.runs.lock().expect("runs lock").get(n).cloned()
    }

    /// Whether the scenario `id` only read, with well-formed messages, where it ran on a
    /// session of its own (`None`: not known yet).
    pub fn only_reads(&self, id: &str) -> Option<bool> {
        self.readers.lock().expect("readers lock").get(id).copied()
    }

    /// What a run of the scenario `id` on a session of its own showed: once it did more than
    /// read, it never shares a process at once again.
    pub fn learn_reads(&self, id: &str, only_read: bool) {
        let mut readers = self.readers.lock().expect("readers lock");
        let known = readers.entry(id.to_owned()).or_insert(only_read);
        *known &= only_read;
    }

    /// The run of `scenario` is to be judged again in a process of its own (`why`).
    pub fn run_again(&self, scenario: &cucumber::gherkin::Scenario, why: String) {
        if let Some(n) = run_index(scenario) {
            self.again.lock().expect("again lock").push((n, why));
        }
    }

    /// The scenarios of `features` to run again, each in a process of its own (their runs
    /// now say why), in features holding only them.
    pub fn take_again(&self, features: &[cucumber::gherkin::Feature]) -> Vec<cucumber::gherkin::Feature> {
        let again = std::mem::take(&mut *self.again.lock().expect("again lock"));
        if again.is_empty() {
            return Vec::new();
        }
        let mut runs = self.runs.lock().expect("runs lock");
        for (n, why) in &again {
            if let Some(run) = runs.get_mut(*n) {
                run.alone = Some(why.clone());
            }
        }
        let wanted: std::collections::HashSet<usize> = again.iter().map(|(n, _)| *n).collect();
        features
            .iter()
            .filter_map(|f| {
                let mut copy = f.clone();
                copy.scenarios.retain(|s| run_index(s).is_some_and(|n| wanted.contains(&n)));
                (!copy.scenarios.is_empty()).then_some(copy)
            })
            .collect()
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
    pub async fn close_pool(self: &Arc<Self>) {
        for idle in self.pool.drain() {
            self.retire(idle);
        }
        let retiring = std::mem::take(&mut *self.retiring.lock().expect("retiring lock"));
        futures::future::join_all(retiring).await;
        let tenants_late = self.pool.close_hosts().await;
        let mut late = std::mem::take(&mut *self.late.lock().expect("late lock"));
        late.extend(tenants_late);
        let note = "the server broke a rule after this scenario ended, on the process it left running";
        for (id, revision, tail) in late {
            // The tail holds only checks worse than passed (`SharedSession::retire`).
            self.results.amend(&id, revision.as_str(), tail, note);
        }
    }
}
