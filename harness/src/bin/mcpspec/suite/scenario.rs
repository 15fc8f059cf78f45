//! What every scenario keeps, whichever role mcpspec plays in it: the suite context, its run
//! (plan and revision), the checks so far, and how it stopped (halted by a failed check, skipped
//! because it does not apply, or ended by a harness error). Both cucumber worlds
//! (`ServerWorld`, `ClientWorld`) hold one [`ScenarioState`] and reach it through the
//! [`Scenario`] trait, so a step records checks the same way in either suite.

use super::context::SuiteContext;
use super::plan::ScenarioRun;
use mcpspec::judge::verdict::{Check, Level, Verdict};
use mcpspec_protocol::Revision;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Stops a scenario: what it needed did not happen (the failed check is already recorded), it
/// does not apply (skipped), or the harness could not act.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct Halt(String);

/// A requirement checks are charged to: the scenario's own (from its plan), or the
/// precondition a Given step is establishing.
#[derive(Debug, Clone)]
pub struct Requirement {
    pub id: String,
    pub level: Level,
    /// Document under `docs/specification/<revision>/`.
    pub doc: String,
}

/// What the runner reports of a scenario's state once it ends ([`ScenarioState::take`]).
pub struct WorldState {
    pub checks: Vec<Check>,
    pub error: Option<String>,
    pub halted: bool,
    pub skipped: Option<String>,
    pub started: Instant,
}

/// One scenario's bookkeeping.
pub struct ScenarioState {
    pub ctx: Option<Arc<SuiteContext>>,
    /// The revision the scenario runs at.
    pub revision: Revision,
    /// The scenario's plan, set by the before hook.
    pub run: Option<ScenarioRun>,
    /// The requirement a Given step is establishing, which its failures are charged to.
    pub precondition: Option<Requirement>,
    pub checks: Vec<Check>,
    /// Set when a step stopped the scenario because something it needed failed.
    pub halted: Option<String>,
    /// Set when the scenario does not apply to the implementation (it is then skipped).
    pub skipped: Option<String>,
    /// Set when the harness could not judge (e.g. the implementation did not start).
    pub error: Option<String>,
    pub started: Instant,
}

impl std::fmt::Debug for ScenarioState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScenarioState")
            .field("revision", &self.revision)
            .field("id", &self.id())
            .field("checks", &self.checks.len())
            .field("halted", &self.halted)
            .field("skipped", &self.skipped)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl Default for ScenarioState {
    fn default() -> Self {
        ScenarioState {
            ctx: None,
            revision: Revision::latest_legacy(),
            run: None,
            precondition: None,
            checks: Vec::new(),
            halted: None,
            skipped: None,
            error: None,
            started: Instant::now(),
        }
    }
}

impl ScenarioState {
    /// The before hook: the scenario starts now.
    pub fn begin(&mut self, ctx: Arc<SuiteContext>, run: ScenarioRun) {
        self.ctx = Some(ctx);
        self.revision = run.revision;
        self.run = Some(run);
        self.started = Instant::now();
    }

    /// The scenario's id (empty before the before hook).
    pub fn id(&self) -> &str {
        self.run.as_ref().map_or("", |r| r.plan.id.as_str())
    }

    /// The scenario's clause, under `docs/specification/<revision>/`.
    pub fn doc(&self) -> &str {
        self.run.as_ref().map_or("", |r| r.plan.doc.as_str())
    }

    /// What the runner reports; the checks move out.
    pub fn take(&mut self) -> WorldState {
        WorldState {
            checks: std::mem::take(&mut self.checks),
            error: self.error.clone(),
            halted: self.halted.is_some(),
            skipped: self.skipped.clone(),
            started: self.started,
        }
    }

    /// The spec path of `doc` at the scenario's revision.
    pub fn spec(&self, doc: &str) -> String {
        self.revision.doc(doc)
    }

    /// The requirement checks are charged to: the precondition a Given step is establishing,
    /// else the scenario's own.
    pub fn requirement(&self) -> Requirement {
        self.precondition.clone().unwrap_or_else(|| {
            let plan = &self.run.as_ref().expect("the before hook sets the scenario's run").plan;
            Requirement { id: plan.id.clone(), level: plan.level, doc: plan.doc.clone() }
        })
    }
}

/// The steps' way to the scenario's bookkeeping, shared by both worlds.
pub trait Scenario {
    fn state(&self) -> &ScenarioState;
    fn state_mut(&mut self) -> &mut ScenarioState;

    fn ctx(&self) -> Arc<SuiteContext> {
        self.state().ctx.clone().expect("the before hook sets the suite context")
    }

    fn timeout(&self) -> Duration {
        self.ctx().timeout
    }

    /// Records a check of the scenario's requirement (or of the precondition being
    /// established).
    fn check(&mut self, ok: bool, expected: impl Into<String>, actual: impl Into<String>) {
        let state = self.state_mut();
        let meta = state.requirement();
        let spec = state.spec(&meta.doc);
        state.checks.push(Check::judge(meta.id, meta.level, spec, ok, expected, actual));
    }

    /// Records a warning against the scenario's requirement, citing `doc` (for behaviour the
    /// spec itself is ambiguous about, or a weaker rule inside a stronger scenario).
    fn warn(&mut self, doc: &str, expected: impl Into<String>, actual: impl Into<String>) {
        let state = self.state_mut();
        let meta = state.requirement();
        let spec = state.spec(doc);
        state.checks.push(Check {
            id: meta.id,
            level: meta.level,
            spec,
            verdict: Verdict::Warning,
            expected: expected.into(),
            actual: actual.into(),
            message: None,
            baselined: false,
            clauses: Vec::new(),
        });
    }

    /// Records a check of the scenario's requirement that could not be judged (inconclusive): it
    /// is listed, with why, and counts neither for nor against.
    fn inconclusive(&mut self, expected: impl Into<String>, actual: impl Into<String>) {
        let state = self.state_mut();
        let meta = state.requirement();
        let spec = state.spec(&meta.doc);
        state.checks.push(Check {
            id: meta.id,
            level: meta.level,
            spec,
            verdict: Verdict::Skipped,
            expected: expected.into(),
            actual: actual.into(),
            message: None,
            baselined: false,
            clauses: Vec::new(),
        });
    }

    /// Records a failed check of the scenario's requirement and stops the scenario.
    fn fail(&mut self, expected: impl Into<String>, actual: impl Into<String>) -> Halt {
        let actual = actual.into();
        self.check(false, expected, actual.clone());
        self.state_mut().halted = Some(actual.clone());
        Halt(actual)
    }

    /// The scenario does not apply to the implementation under test.
    fn skip(&mut self, why: String) -> Halt {
        self.state_mut().skipped = Some(why.clone());
        Halt(why)
    }

    /// The harness could not act: the scenario ends with an error verdict.
    fn harness_error(&mut self, why: String) -> Halt {
        self.state_mut().error = Some(why.clone());
        Halt(why)
    }
}
