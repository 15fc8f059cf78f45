//! The scenario reports of a run as they finish, shown on the console as they come.

use super::baseline::Baseline;
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
    /// The baseline the report will apply, to show a listed failure as the expected failure it
    /// will be rather than as a failure: the role it judges, and `--strict`.
    baseline: Option<(Baseline, &'static str, bool)>,
}

impl Results {
    pub fn new() -> Results {
        Results::default()
    }

    /// Results shown as `baseline` will judge them, for `role` (`server` or `client`), with
    /// `--strict` or not. What is kept is unchanged: the report applies the baseline itself.
    pub fn judged_by(baseline: Option<Baseline>, role: &'static str, strict: bool) -> Results {
        Results { baseline: baseline.map(|b| (b, role, strict)), ..Results::default() }
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
        match self.as_the_baseline_sees(&report) {
            Some(expected) => console::get().scenario(&expected, false),
            None => console::get().scenario(&report, false),
        }
        self.reports.lock().expect("results lock").push(report);
    }

    /// A failing scenario as the baseline sees it, when it lists the failure. (Staleness waits
    /// for the end of the run: an entry may yet match a failure in a scenario still to come.)
    fn as_the_baseline_sees(&self, report: &ScenarioReport) -> Option<ScenarioReport> {
        let (baseline, role, strict) = self.baseline.as_ref()?;
        if !matches!(report.verdict, Verdict::Failed | Verdict::Warning) {
            return None;
        }
        let mut seen = [report.clone()];
        baseline.apply(role, &mut seen, *strict);
        let [seen] = seen;
        (seen.verdict != report.verdict).then_some(seen)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Level::MUST;
    use crate::report::tests::{check, scenario};
    use std::path::Path;

    #[test]
    fn a_listed_failure_is_shown_as_expected_and_kept_as_it_ran() {
        let baseline = Baseline::parse(Path::new("b.yaml"), "server:\n  - a/listed\n").unwrap();
        let results = Results::judged_by(Some(baseline), "server", false);
        let listed = scenario("a/listed", "2025-06-18", vec![check("a/listed", MUST, Verdict::Failed)]);
        let unlisted = scenario("b/unlisted", "2025-06-18", vec![check("b/unlisted", MUST, Verdict::Failed)]);
        let passed = scenario("a/listed", "2025-11-25", vec![check("a/listed", MUST, Verdict::Passed)]);
        assert_eq!(results.as_the_baseline_sees(&listed).map(|s| s.verdict), Some(Verdict::ExpectedFailure));
        assert!(results.as_the_baseline_sees(&unlisted).is_none());
        // A pass is shown as it is: whether the entry is stale is known at the end of the run.
        assert!(results.as_the_baseline_sees(&passed).is_none());
        results.push(listed);
        assert_eq!(results.take()[0].verdict, Verdict::Failed, "the report applies the baseline itself");
        assert!(Results::new().as_the_baseline_sees(&unlisted).is_none());
    }
}
