//! The report of a whole run: the run's facts, a certification verdict per revision tried, the
//! summary, and the exit code they decide.

use super::redact::Redactor;
use super::scenario::ScenarioReport;
use crate::judge::verdict::{Level, Verdict};
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

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

#[derive(Debug, Clone, Serialize)]
pub struct ToolInfo {
    pub name: &'static str,
    pub version: &'static str,
}

/// Which scenarios a run was made of.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScenarioSet {
    /// `built-in`, or the folder of `--scenarios`.
    pub source: String,
    /// Scenario × revision runs planned (after the selection).
    pub scenarios: usize,
    pub selection: Selection,
}

/// `--scenario GLOB` and `--tag TAG`: a part of the suite. Empty lists select everything.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    pub baseline: Option<&'a crate::report::baseline::Baseline>,
    /// SHOULD failures fail.
    pub strict: bool,
    /// The run is one shard of a run (`--shard`): the baseline judges no entry stale
    /// ([`crate::report::baseline::Baseline::apply_in_shard`]).
    pub shard: bool,
}

/// The reason a SHOULD failure gets under `--strict` when it has none of its own.
pub const STRICT_REASON: &str = "--strict: a broken SHOULD fails";

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
    /// What the run cost (measured at its end: [`crate::report::Cost::measure`]).
    pub cost: crate::report::Cost,
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
    pub baseline: Option<crate::report::baseline::Outcome>,
    pub scenarios: Vec<ScenarioReport>,
    pub duration_ms: u64,
    /// What the run cost: wall time, processes started, CPU of mcpspec and the implementation.
    pub cost: crate::report::Cost,
    /// Why no revision could be tested, when none could: the run then has no verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_tested: Option<String>,
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`, `SIGHUP`): the report holds the
    /// scenarios that finished before it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<&'static str>,
    /// The shard of a run this report holds (`--shard I/N`), for `mcpspec merge`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<crate::report::shard::ShardInfo>,
}

impl Report {
    /// The run's facts without its scenarios (their summary and certification stay): what a
    /// page's header shows, at a fraction of the whole report's size. Every field is named, so
    /// a new one is not left out by accident.
    pub fn without_scenarios(&self) -> Report {
        let Report {
            mcpspec,
            role,
            command,
            transport,
            started_at,
            revisions,
            scenario_set,
            certification,
            summary,
            baseline,
            scenarios: _,
            duration_ms,
            cost,
            not_tested,
            interrupted,
            shard,
        } = self;
        Report {
            mcpspec: mcpspec.clone(),
            role,
            command: command.clone(),
            transport,
            started_at: started_at.clone(),
            revisions: revisions.clone(),
            scenario_set: scenario_set.clone(),
            certification: certification.clone(),
            summary: summary.clone(),
            baseline: baseline.clone(),
            scenarios: Vec::new(),
            duration_ms: *duration_ms,
            cost: cost.clone(),
            not_tested: not_tested.clone(),
            interrupted: *interrupted,
            shard: shard.clone(),
        }
    }

    /// The report of a run: scenarios in suite order, the certification of each revision (from
    /// the scenarios' own verdicts, `--strict` applied), then the policy's verdicts (SHOULD
    /// failures failing under `--strict`, known failures expected, stale entries failing).
    pub fn new(info: RunInfo, mut scenarios: Vec<ScenarioReport>, policy: &Policy) -> Report {
        scenarios.sort_by(|a, b| a.order.cmp(&b.order).then_with(|| a.id.cmp(&b.id)));
        name_clauses(&mut scenarios);
        let certification = certify(&info, &scenarios, policy.strict);
        if policy.strict {
            for s in scenarios.iter_mut().filter(|s| s.verdict == Verdict::Warning) {
                s.verdict = Verdict::Failed;
                s.reason.get_or_insert_with(|| STRICT_REASON.to_owned());
            }
        }
        let baseline = policy.baseline.map(|b| match policy.shard {
            true => b.apply_in_shard(info.role, &mut scenarios, policy.strict),
            false => b.apply(info.role, &mut scenarios, policy.strict),
        });
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
            cost: info.cost,
            not_tested: info.not_tested,
            interrupted: info.interrupted,
            shard: None,
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
    /// Replaces the run's secrets in every text of the report (see [`crate::report::redact`]).
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

/// The certification of each revision tried, over the run's transport.
fn certify(info: &RunInfo, scenarios: &[ScenarioReport], strict: bool) -> Vec<Certification> {
    info.revisions
        .iter()
        .map(|revision| {
            let of: Vec<&ScenarioReport> = scenarios.iter().filter(|s| &s.revision == revision).collect();
            let summary = Summary::of(of.iter().copied());
            let era =
                revision.parse().map(|r: mcpspec_protocol::Revision| r.era().name()).unwrap_or("legacy");
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
    // A certification rests on the revision's own scenarios. Those about negotiation also run
    // at a revision the server counter-offered, as evidence of what it speaks: passing there,
    // they certify nothing (a server that speaks none of the revisions tried passes them all).
    let own =
        of.iter().filter(|s| matches!(s.verdict, Verdict::Passed | Verdict::Warning) && !s.is_negotiation());
    if own.count() == 0 {
        let skipped = of.iter().filter(|s| s.verdict == Verdict::Skipped);
        let why = skipped.chain(of.iter()).find_map(|s| s.reason.clone());
        return (Conformance::NotTested, why.unwrap_or_else(|| "no scenario ran".to_owned()));
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

/// Each check names the clauses of its entry's revision that list it in the clause inventory
/// (the one source of truth for which clause a check tests).
fn name_clauses(scenarios: &mut [ScenarioReport]) {
    for s in scenarios {
        let Ok(revision) = s.revision.parse::<mcpspec_protocol::Revision>() else { continue };
        let Ok(inventory) = crate::judge::clauses::Inventory::of(revision) else { continue };
        for check in &mut s.checks {
            check.clauses = inventory.clauses_of(&check.id).to_vec();
        }
    }
}
