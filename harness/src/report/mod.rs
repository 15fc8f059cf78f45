//! The run report: one entry per scenario and revision with its checks, a certification
//! verdict per revision, and a summary. The console shows it line by line as scenarios finish;
//! `--report-dir` writes it in every format, each from the same [`Report`]: `report.json` (the
//! contract, its schema in `harness/report.schema.json`), `junit.xml`, `report.html` and
//! `summary.md`.

pub mod console;
pub mod html;
pub mod junit;
pub mod markdown;

use crate::recorder::TranscriptEntry;
use crate::redact::Redactor;
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
    /// Scenarios whose every broken check the baseline lists.
    pub expected_failures: usize,
    /// Baseline entries that no longer fail (each also fails the scenarios it names).
    pub stale: usize,
}

impl Summary {
    fn count(&mut self, v: Verdict) {
        match v {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Warning => self.warnings += 1,
            Verdict::Skipped => self.skipped += 1,
            Verdict::Error => self.errors += 1,
            Verdict::ExpectedFailure => self.expected_failures += 1,
        }
    }

    fn of<'a>(scenarios: impl IntoIterator<Item = &'a ScenarioReport>) -> Summary {
        let mut summary = Summary::default();
        for s in scenarios {
            summary.count(s.verdict);
        }
        summary
    }

    /// `12 passed, 1 failed, 0 warnings, 0 skipped, 0 errors`, then the baseline's counts when
    /// there are any.
    pub fn line(&self) -> String {
        let mut line = format!(
            "{} passed, {} failed, {} warnings, {} skipped, {} errors",
            self.passed, self.failed, self.warnings, self.skipped, self.errors
        );
        if self.expected_failures > 0 || self.stale > 0 {
            let _ = write!(line, ", {} expected failures, {} stale", self.expected_failures, self.stale);
        }
        line
    }
}

/// `legacy` or `modern`: the era a revision belongs to, as reports name it.
pub fn era_name(revision: mcpspec_protocol::Revision) -> &'static str {
    match revision.era() {
        mcpspec_protocol::Era::Legacy => "legacy",
        mcpspec_protocol::Era::Modern => "modern",
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
    /// `stdio`, `http` (Streamable HTTP) or `sse` (HTTP+SSE): the transport it ran over.
    pub transport: &'static str,
    /// `legacy` (the initialize handshake, 2024-11-05 … 2025-11-25) or `modern` (stateless,
    /// 2026-07-28 on): the era the verdict belongs to (`basic/versioning.mdx#terminology`).
    pub era: &'static str,
    pub level: Level,
    pub spec: String,
    /// The tags of the scenario and its feature, without `@` (what `--tag` selects by).
    pub tags: Vec<String>,
    pub verdict: Verdict,
    /// Why the scenario was skipped or could not be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the baseline said of the scenario: its failures expected, or an entry gone stale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineMark>,
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

    /// Whether the scenario ran (was not skipped and could be judged).
    pub fn ran(&self) -> bool {
        !matches!(self.verdict, Verdict::Skipped | Verdict::Error)
    }
}

/// The baseline's word on a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BaselineMark {
    pub status: BaselineStatus,
    /// The entries that matched, as the baseline file words them.
    pub entries: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BaselineStatus {
    /// Every broken check is listed: the failure is known.
    Expected,
    /// An entry names this scenario as failing, and what it names passed: the entry must go.
    Stale,
}

#[derive(Debug, Clone, Serialize)]
pub struct ToolInfo {
    pub name: &'static str,
    pub version: &'static str,
}

/// Which scenarios a run was made of.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ScenarioSet {
    /// `built-in`, or the folder of `--scenarios`.
    pub source: String,
    /// Scenario × revision runs planned (after the selection).
    pub scenarios: usize,
    pub selection: Selection,
}

/// `--scenario GLOB` and `--tag TAG`: a part of the suite. Empty lists select everything.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Selection {
    pub scenario: Vec<String>,
    pub tag: Vec<String>,
}

impl Selection {
    pub fn is_everything(&self) -> bool {
        self.scenario.is_empty() && self.tag.is_empty()
    }
}

/// What a certification says of one revision over one transport.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Conformance {
    /// Every scenario that ran passed.
    Conformant,
    /// No MUST broken; a SHOULD was (without `--strict`).
    ConformantWithWarnings,
    /// A MUST was broken (or, with `--strict`, a SHOULD).
    NotConformant,
    /// Nothing ran: the implementation does not speak the revision, or the transport cannot
    /// carry it.
    NotTested,
    /// Something could not be judged, or the run stopped before everything ran.
    Inconclusive,
}

impl Conformance {
    pub fn words(self) -> &'static str {
        match self {
            Conformance::Conformant => "conformant",
            Conformance::ConformantWithWarnings => "conformant with warnings",
            Conformance::NotConformant => "not conformant",
            Conformance::NotTested => "not tested",
            Conformance::Inconclusive => "inconclusive",
        }
    }
}

/// The certification verdict of one revision over one transport.
#[derive(Debug, Clone, Serialize)]
pub struct Certification {
    pub revision: String,
    pub transport: &'static str,
    pub era: &'static str,
    pub verdict: Conformance,
    /// The verdict in words: what decided it.
    pub reason: String,
    /// The scenarios' verdicts before the baseline (which never changes a certification).
    pub summary: Summary,
}

/// What a run is judged by beyond the spec: the baseline of known failures, and `--strict`.
#[derive(Default)]
pub struct Policy<'a> {
    pub baseline: Option<&'a crate::baseline::Baseline>,
    /// SHOULD failures fail.
    pub strict: bool,
}

/// What the run was: whom it judged, how, and when.
pub struct RunInfo {
    /// `server` or `client`.
    pub role: &'static str,
    /// The implementation's command line or URL (redacted when written).
    pub command: String,
    pub transport: &'static str,
    pub started_at: std::time::SystemTime,
    pub duration_ms: u64,
    /// The revisions tried.
    pub revisions: Vec<String>,
    pub scenario_set: Option<ScenarioSet>,
    /// Why no revision could be tested, when none could.
    pub not_tested: Option<String>,
    /// The signal that stopped the run.
    pub interrupted: Option<&'static str>,
}

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub mcpspec: ToolInfo,
    /// `server` or `client`: the role of the implementation under test.
    pub role: &'static str,
    pub command: String,
    pub transport: &'static str,
    /// When the run started, RFC 3339 in UTC.
    pub started_at: String,
    pub revisions: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scenario_set: Option<ScenarioSet>,
    /// Per revision tried (and the run's transport): conformant or not, and why.
    pub certification: Vec<Certification>,
    pub summary: Summary,
    /// The baseline the run was judged with, and what came of its entries.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<crate::baseline::Outcome>,
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
    /// The report of a run: scenarios in suite order, the certification of each revision (from
    /// the scenarios' own verdicts, `--strict` applied), then the policy's verdicts (SHOULD
    /// failures failing under `--strict`, known failures expected, stale entries failing).
    pub fn new(info: RunInfo, mut scenarios: Vec<ScenarioReport>, policy: &Policy) -> Report {
        scenarios.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
        let certification = certify(&info, &scenarios, policy.strict);
        if policy.strict {
            for s in scenarios.iter_mut().filter(|s| s.verdict == Verdict::Warning) {
                s.verdict = Verdict::Failed;
                s.reason.get_or_insert_with(|| "--strict: a broken SHOULD fails".to_owned());
            }
        }
        let baseline = policy.baseline.map(|b| b.apply(info.role, &mut scenarios, policy.strict));
        let mut summary = Summary::of(&scenarios);
        summary.stale = baseline.as_ref().map_or(0, |b| b.stale.len());
        Report {
            mcpspec: ToolInfo { name: "mcpspec", version: env!("CARGO_PKG_VERSION") },
            role: info.role,
            command: info.command,
            transport: info.transport,
            started_at: humantime::format_rfc3339_seconds(info.started_at).to_string(),
            revisions: info.revisions,
            scenario_set: info.scenario_set,
            certification,
            summary,
            baseline,
            scenarios,
            duration_ms: info.duration_ms,
            not_tested: info.not_tested,
            interrupted: info.interrupted,
        }
    }

    /// 3 when anything could not be judged, else 1 when a MUST failed (or a SHOULD, under
    /// `--strict`, or a baseline entry went stale), else 4 when no revision could be tested,
    /// else 0.
    pub fn exit_code(&self) -> u8 {
        if self.summary.errors > 0 {
            exit::ERROR
        } else if self.summary.failed > 0 || self.summary.stale > 0 {
            exit::MUST_FAILED
        } else if self.not_tested.is_some() {
            exit::NOT_TESTED
        } else {
            exit::OK
        }
    }

    /// Writes `dir/report.json`, creating `dir`.
    pub fn write_json(&self, dir: &Path) -> std::io::Result<std::path::PathBuf> {
        let mut text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        text.push('\n');
        write_atomically(dir, "report.json", text.as_bytes())
    }

    /// Writes every format into `dir` (creating it), each file whole or not at all:
    /// `report.json`, `junit.xml`, `report.html`, `summary.md`. Returns the paths written.
    pub fn write_all(&self, dir: &Path) -> std::io::Result<Vec<std::path::PathBuf>> {
        let value = serde_json::to_value(self).map_err(std::io::Error::other)?;
        Ok(vec![
            self.write_json(dir)?,
            write_atomically(dir, "junit.xml", junit::render(self).as_bytes())?,
            write_atomically(dir, "report.html", html::render(&value).as_bytes())?,
            write_atomically(dir, "summary.md", markdown::render(self).as_bytes())?,
        ])
    }

    /// Replaces the run's secrets in every text of the report (see [`crate::redact`]).
    pub fn redact(&mut self, r: &Redactor) {
        self.command = r.command(&self.command);
        let text = |s: &mut String| {
            if let std::borrow::Cow::Owned(redacted) = r.text(s) {
                *s = redacted;
            }
        };
        for s in &mut self.scenarios {
            for field in [&mut s.reason, &mut s.shutdown, &mut s.session, &mut s.stderr].into_iter().flatten()
            {
                text(field);
            }
            for c in &mut s.checks {
                text(&mut c.expected);
                text(&mut c.actual);
            }
            for entry in s.transcript.iter_mut().flatten() {
                text(&mut entry.text);
            }
        }
        for c in &mut self.certification {
            text(&mut c.reason);
        }
        if let Some(why) = &mut self.not_tested {
            text(why);
        }
    }
}

/// Writes `dir/name` whole or not at all (see [`crate::files`]). A report is for sharing
/// (secrets are redacted): readable as any output file is.
pub fn write_atomically(dir: &Path, name: &str, bytes: &[u8]) -> std::io::Result<std::path::PathBuf> {
    let path = dir.join(name);
    crate::files::write_atomically(&path, bytes, crate::files::Access::Shared)?;
    Ok(path)
}

/// The certification of each revision tried, over the run's transport.
fn certify(info: &RunInfo, scenarios: &[ScenarioReport], strict: bool) -> Vec<Certification> {
    info.revisions
        .iter()
        .map(|revision| {
            let of: Vec<&ScenarioReport> = scenarios.iter().filter(|s| &s.revision == revision).collect();
            let summary = Summary::of(of.iter().copied());
            let era = revision.parse().map(era_name).unwrap_or("legacy");
            let (verdict, mut reason) = conformance(&of, &summary, strict);
            if verdict != Conformance::NotTested {
                if let Some(signal) = info.interrupted {
                    reason = format!("{reason}; the run was stopped by {signal} before every scenario ran");
                }
                if info.scenario_set.as_ref().is_some_and(|s| !s.selection.is_everything()) {
                    reason = format!("{reason}; only the selected scenarios ran (--scenario, --tag)");
                }
            }
            let verdict = match (verdict, info.interrupted) {
                (Conformance::Conformant | Conformance::ConformantWithWarnings, Some(_)) => {
                    Conformance::Inconclusive
                }
                _ => verdict,
            };
            Certification {
                revision: revision.clone(),
                transport: info.transport,
                era,
                verdict,
                reason,
                summary,
            }
        })
        .collect()
}

fn conformance(of: &[&ScenarioReport], summary: &Summary, strict: bool) -> (Conformance, String) {
    let broken = |level: Level| {
        of.iter()
            .flat_map(|s| &s.checks)
            .filter(|c| c.broken() && (c.level == Level::MUST) == (level == Level::MUST))
            .count()
    };
    let failing = summary.failed + if strict { summary.warnings } else { 0 };
    if failing > 0 {
        let what = if strict { "MUST or SHOULD" } else { "MUST" };
        let musts = broken(Level::MUST) + if strict { broken(Level::SHOULD) } else { 0 };
        return (
            Conformance::NotConformant,
            format!("{musts} broken {what} check(s) in {failing} scenario(s)"),
        );
    }
    if summary.errors > 0 {
        let why = of.iter().find(|s| s.verdict == Verdict::Error).and_then(|s| s.reason.clone());
        return (
            Conformance::Inconclusive,
            format!(
                "{} scenario(s) could not be judged{}",
                summary.errors,
                why.map(|w| format!(" (first: {w})")).unwrap_or_default()
            ),
        );
    }
    if summary.passed == 0 && summary.warnings == 0 {
        let why = of.iter().find_map(|s| s.reason.clone()).unwrap_or_else(|| "no scenario ran".to_owned());
        return (Conformance::NotTested, why);
    }
    if summary.warnings > 0 {
        return (
            Conformance::ConformantWithWarnings,
            format!(
                "no MUST broken; {} broken SHOULD check(s) in {} scenario(s)",
                broken(Level::SHOULD),
                summary.warnings
            ),
        );
    }
    (Conformance::Conformant, format!("{} scenario(s) passed, {} skipped", summary.passed, summary.skipped))
}

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

/// What the console shows once every scenario has: the certification of each revision, and
/// what the baseline made of its entries.
pub fn console_footer(report: &Report) -> String {
    let mut out = format!(
        "mcpspec {} certified the {} {} over {}, started {}",
        report.mcpspec.version, report.role, report.command, report.transport, report.started_at
    );
    if let Some(set) = &report.scenario_set {
        let _ = write!(out, "; scenarios: {} ({} runs", set.source, set.scenarios);
        for (flag, values) in [("--scenario", &set.selection.scenario), ("--tag", &set.selection.tag)] {
            for v in values {
                let _ = write!(out, " {flag} {v}");
            }
        }
        out.push(')');
    }
    out.push('\n');
    for c in &report.certification {
        let _ = writeln!(
            out,
            "certification {} {}: {} ({})",
            c.revision,
            c.transport,
            c.verdict.words(),
            c.reason
        );
    }
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            out,
            "baseline {}: {} of {} entries matched a failure, {} stale, {} unexercised",
            b.file,
            b.expected.len(),
            b.entries,
            b.stale.len(),
            b.unexercised.len()
        );
        for entry in &b.stale {
            let _ = writeln!(out, "  stale: {entry} no longer fails (remove it from the baseline)");
        }
        for entry in &b.unexercised {
            let _ = writeln!(out, "  unexercised: {entry} matched nothing that ran");
        }
    }
    out
}

/// The console line of a scenario, followed by its non-passing checks.
pub fn console_entry(s: &ScenarioReport) -> String {
    let tag = match s.verdict {
        Verdict::Passed => "PASS ",
        Verdict::ExpectedFailure => "XFAIL",
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
            "\n        {} {} {}  ({}){}\n          expected: {}\n          actual:   {}",
            if c.verdict == Verdict::Failed { "✗" } else { "!" },
            c.level,
            c.id,
            c.spec,
            if c.baselined { " [in the baseline]" } else { "" },
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

#[cfg(test)]
pub(crate) mod tests;
