//! The run report: one entry per scenario and revision, its checks, and a summary; rendered to
//! the console line by line and written as `report.json`.

use crate::recorder::TranscriptEntry;
use crate::verdict::{Check, Level, Verdict};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Mutex;

/// Exit codes of `mcpspec server` (and every certifying command).
pub mod exit {
    /// No MUST was broken.
    pub const OK: u8 = 0;
    /// At least one MUST was broken.
    pub const MUST_FAILED: u8 = 1;
    /// The command line was wrong.
    pub const USAGE: u8 = 2;
    /// The implementation could not be started, or mcpspec itself failed: no verdict.
    pub const ERROR: u8 = 3;
    /// Nothing could be tested: the server speaks none of the revisions tried, and broke no
    /// MUST on the way. No verdict either.
    pub const NOT_TESTED: u8 = 4;
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub passed: usize,
    pub failed: usize,
    pub warnings: usize,
    pub skipped: usize,
    pub errors: usize,
}

impl Summary {
    fn count(&mut self, v: Verdict) {
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Warning => self.warnings += 1,
            Verdict::Skipped => self.skipped += 1,
            Verdict::Error => self.errors += 1,
        }
    }

    /// `12 passed, 1 failed, 0 warnings, 0 skipped, 0 errors`
    pub fn line(&self) -> String {
        format!(
            "{} passed, {} failed, {} warnings, {} skipped, {} errors",
            self.passed, self.failed, self.warnings, self.skipped, self.errors
        )
    }
}

/// `legacy` or `modern`: the era a revision belongs to, as reports name it.
pub fn era_name(revision: mcpspec_reference::Revision) -> &'static str {
    match revision.era() {
        mcpspec_reference::Era::Legacy => "legacy",
        mcpspec_reference::Era::Modern => "modern",
    }
}

/// One scenario run at one revision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScenarioReport {
    /// Stable id from the scenario's `@id:` tag; outline examples append `[values]`.
    pub id: String,
    pub name: String,
    /// The feature file, relative to `scenarios/`.
    pub feature: String,
    pub revision: String,
    /// `legacy` (the initialize handshake, 2024-11-05 … 2025-11-25) or `modern` (stateless,
    /// 2026-07-28 on): the era the verdict belongs to (`basic/versioning.mdx#terminology`).
    pub era: &'static str,
    pub level: Level,
    pub spec: String,
    pub verdict: Verdict,
    /// Why the scenario was skipped or could not be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub checks: Vec<Check>,
    pub duration_ms: u64,
    /// How the implementation's process ended (absent when it went on to the next scenario).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shutdown: Option<String>,
    /// The shared process the scenario ran in, when it shared one with other scenarios: which,
    /// the scenario's place on it, and whether it was handed on or why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The end of the implementation's stderr, kept when the scenario did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The wire log, kept when the scenario did not pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Vec<TranscriptEntry>>,
    /// Position in the suite, for a stable order; not part of the report.
    #[serde(skip)]
    pub order: (usize, usize, usize),
}

impl ScenarioReport {
    /// The verdict of a scenario from its checks: an error reason wins, a scenario that
    /// exercised no check is an error (never a pass), otherwise the worst check decides.
    pub fn verdict_of(checks: &[Check], error: Option<&str>) -> Verdict {
        if error.is_some() || checks.is_empty() {
            return Verdict::Error;
        }
        checks.iter().map(|c| c.verdict).max().unwrap_or(Verdict::Error)
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct ToolInfo {
    pub name: &'static str,
    pub version: &'static str,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub mcpspec: ToolInfo,
    /// `server` or `client`: the role of the implementation under test.
    pub role: &'static str,
    pub command: String,
    pub revisions: Vec<String>,
    pub summary: Summary,
    pub scenarios: Vec<ScenarioReport>,
    pub duration_ms: u64,
    /// Why no revision could be tested, when none could: the run then has no verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_tested: Option<String>,
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`, `SIGHUP`): the report holds the
    /// scenarios that finished before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<&'static str>,
}

impl Report {
    pub fn new(
        role: &'static str,
        command: String,
        revisions: Vec<String>,
        mut scenarios: Vec<ScenarioReport>,
        duration_ms: u64,
    ) -> Report {
        scenarios.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
        let mut summary = Summary::default();
        for s in &scenarios {
            summary.count(s.verdict);
        }
        Report {
            mcpspec: ToolInfo { name: "mcpspec", version: env!("CARGO_PKG_VERSION") },
            role,
            command,
            revisions,
            summary,
            scenarios,
            duration_ms,
            not_tested: None,
            interrupted: None,
        }
    }

    /// 3 when anything could not be judged, else 1 when a MUST failed, else 4 when no
    /// revision could be tested, else 0.
    pub fn exit_code(&self) -> u8 {
        if self.summary.errors > 0 {
            exit::ERROR
        } else if self.summary.failed > 0 {
            exit::MUST_FAILED
        } else if self.not_tested.is_some() {
            exit::NOT_TESTED
        } else {
            exit::OK
        }
    }

    /// Writes `dir/report.json`, creating `dir`.
    pub fn write_json(&self, dir: &Path) -> std::io::Result<std::path::PathBuf> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join("report.json");
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        std::fs::write(&path, text)?;
        Ok(path)
    }
}

/// The scenario reports of a run as they finish: each is shown on the console as it comes and
/// kept, so that a run stopped half-way still reports what ran.
#[derive(Default)]
pub struct Results {
    reports: Mutex<Vec<ScenarioReport>>,
}

impl Results {
    pub fn new() -> Results {
        Results::default()
    }

    /// A scenario finished (or was reported without running).
    pub fn push(&self, report: ScenarioReport) {
        println!("{}", console_entry(&report));
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
        println!("{}", console_entry(report));
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

/// The console line of a scenario, followed by its non-passing checks.
pub fn console_entry(s: &ScenarioReport) -> String {
    let tag = match s.verdict {
        Verdict::Passed => "PASS ",
        Verdict::Failed => "FAIL ",
        Verdict::Warning => "WARN ",
        Verdict::Skipped => "SKIP ",
        Verdict::Error => "ERROR",
    };
    let mut out = format!("{tag} {:<10} {}  {}", s.revision, s.id, s.name);
    if let Some(reason) = &s.reason {
        let _ = write!(out, "\n        {reason}");
    }
    for c in
        s.checks.iter().filter(|c| matches!(c.verdict, Verdict::Failed | Verdict::Warning | Verdict::Error))
    {
        let _ = write!(
            out,
            "\n        {} {} {}  ({})\n          expected: {}\n          actual:   {}",
            if c.verdict == Verdict::Failed { "✗" } else { "!" },
            c.level,
            c.id,
            c.spec,
            shorten(&c.expected),
            shorten(&c.actual),
        );
    }
    out
}

/// Console lines stay readable; report.json keeps the whole text (and the stderr tail).
fn shorten(text: &str) -> String {
    const MAX: usize = 240;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}… (see report.json)", &text[..cut]),
        None => text.to_owned(),
    }
}
