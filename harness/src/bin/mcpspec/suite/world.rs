//! What a role's cucumber `World` tells the runner about a scenario: the server suite's
//! `ServerWorld` and the client suite's `ClientWorld` each implement [`RoleWorld`], so loading,
//! planning, hooks and reports are shared.

use super::context::SuiteContext;
use super::plan::ScenarioRun;
use super::scenario::{Scenario, WorldState};
use mcpspec::judge::recorder::TranscriptEntry;
use mcpspec::judge::verdict::Check;
use std::sync::Arc;

/// A role's cucumber `World`.
pub trait RoleWorld:
    Scenario + cucumber::World + cucumber::codegen::WorldInventory + std::fmt::Debug
{
    /// Prepares the world for a scenario (the before hook).
    fn begin(&mut self, ctx: Arc<SuiteContext>, run: ScenarioRun) {
        self.state_mut().begin(ctx, run);
    }
    /// The scenario's own state: its checks so far, a harness error, whether a step stopped
    /// it (halted or skipped), why it was skipped, when it started.
    fn take_state(&mut self) -> WorldState {
        self.state_mut().take()
    }
    /// Ends the session with the implementation under test — or hands it on, when the role
    /// shares sessions, the scenario ended well enough (`ending`) and left it as it found it:
    /// adds the wire checks to `checks`; returns how it ended, and — when `failing` says the
    /// scenario does not pass with the checks given — the end of its stderr and the wire
    /// transcript.
    fn end_session(
        &mut self,
        checks: &mut Vec<Check>,
        failing: &dyn Fn(&[Check]) -> bool,
        ending: Ending,
    ) -> impl std::future::Future<Output = SessionEnd>;
}

/// How a scenario's steps ended, for whether its session may serve another.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// Every step ran (or a step skipped the scenario).
    Finished,
    /// A step's check failed, at worst a SHOULD, and stopped the scenario: the steps after it
    /// (a liveness check, say) did not run.
    HaltedOnWarning,
    /// A MUST failed and stopped it, or the harness erred.
    Broken,
}

/// See [`RoleWorld::end_session`].
#[derive(Default)]
pub struct SessionEnd {
    pub shutdown: Option<String>,
    /// The shared process the scenario ran in, if it shared one.
    pub session: Option<String>,
    pub stderr: Option<String>,
    pub transcript: Option<Vec<TranscriptEntry>>,
    /// The scenario ran on a process shared at once and its verdict cannot stand there (why):
    /// it is run again in a process of its own, and this run is not reported.
    pub again: Option<String>,
}
