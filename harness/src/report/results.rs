//! The scenario reports of a run as they finish, shown on the console as they come.

use super::console;
use super::scenario::ScenarioReport;
use crate::judge::verdict::{Check, Verdict};
use std::sync::Mutex;

/// The scenario reports of a run as they finish: each is shown on the console as it comes and
/// kept, so that a run stopped half-way still reports what ran.
#[derive(Default)]
pub struct Results {
    reports: Mutex<Vec<ScenarioReport>>,
    /// Scenario runs planned so far (each reported once, run or not).
    planned: std::sync::atomic::AtomicUsize,
}

impl Results {
    pub fn new() -> Results {
        Results::default()
    }

    /// `n` more scenario runs are planned.
    pub fn planned(&self, n: usize) {
        self.planned.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        console::get().planned(n);
    }

    /// Scenario runs planned.
    pub fn planned_count(&self) -> usize {
        self.planned.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A scenario finished (or was reported without running).
    pub fn push(&self, report: ScenarioReport) {
        console::get().scenario(&report, false);
        self.reports.lock().expect("results lock").push(report);
    }

    /// Adds checks found after the scenario `id` at `revision` had been reported (what a server
    /// wrote on the process the scenario left running); shows the scenario again.
    pub fn amend(&self, id: &str, revision: &str, late: Vec<Check>, note: &str) {
        let mut reports = self.reports.lock().expect("results lock");
        let Some(report) = reports.iter_mut().find(|r| r.id == id && r.revision == revision) else {
            return;
        };
        report.verdict = late.iter().map(|c| c.verdict).fold(report.verdict, Verdict::max);
        report.checks.extend(late);
        report.reason.get_or_insert_with(|| note.to_owned());
        console::get().scenario(report, true);
    }

    /// Reports, without showing them, the scenarios of `planned` that have not finished (no
    /// report for their id and revision yet): a run stopped early lists what it did not run
    /// in report.json, under one verdict on the console ([`crate::bounds`]). Returns how many.
    pub fn fill_unfinished(&self, planned: Vec<ScenarioReport>) -> usize {
        let mut reports = self.reports.lock().expect("results lock");
        let before = reports.len();
        for p in planned {
            if !reports.iter().any(|r| r.id == p.id && r.revision == p.revision) {
                reports.push(p);
            }
        }
        reports.len() - before
    }

    /// Every report so far; the results are empty afterwards.
    pub fn take(&self) -> Vec<ScenarioReport> {
        std::mem::take(&mut *self.reports.lock().expect("results lock"))
    }
}
