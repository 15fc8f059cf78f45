//! A campaign in the report formats of a conformance run: each finding is an entry that
//! fails at its rule's level, citing the rule's clause; the campaign itself is an entry whose
//! checks are the oracles that never tripped.

use super::campaign::{CampaignResult, Finding};
use super::driver::{tail, DriverConfig};
use super::rule_of;
use crate::judge::verdict::{Check, Verdict};
use crate::report::{Policy, Report, RunInfo, ScenarioReport};
use mcpspec_protocol::Revision;
use std::path::Path;

/// The report of a campaign (`role` server).
pub fn report(
    result: &CampaignResult,
    driver: &DriverConfig,
    seed: u64,
    findings_dir: Option<&Path>,
    policy: &Policy,
) -> Report {
    let revision = driver.revision;
    let mut scenarios = Vec::new();
    let tripped: Vec<_> = result.findings.iter().map(|f| f.signature.oracle).collect();
    let checks: Vec<Check> = result
        .oracles
        .iter()
        .filter(|o| !tripped.contains(o))
        .map(|&o| {
            let rule = rule_of(o, revision);
            Check::judge(
                rule.id,
                rule.level_at(revision),
                rule.spec(revision),
                true,
                rule.requirement,
                format!("never tripped in {} inputs", result.inputs),
            )
        })
        .collect();
    let (verdict, reason) = match (result.inputs, checks.is_empty()) {
        (0, _) => (Verdict::Error, Some("no input was run".to_owned())),
        (_, true) => (Verdict::Skipped, Some("every oracle tripped: see the findings".to_owned())),
        _ => (ScenarioReport::verdict_of(&checks, None), None),
    };
    scenarios.push(ScenarioReport {
        id: "fuzz/campaign".to_owned(),
        name: format!(
            "{} inputs in {:.0} s, seed {seed}{}",
            result.inputs,
            result.elapsed.as_secs_f64(),
            if result.interrupted { ", interrupted" } else { "" }
        ),
        feature: "fuzz".to_owned(),
        revision: revision.as_str().to_owned(),
        transport: "stdio",
        era: revision.era().name(),
        level: crate::judge::verdict::Level::MUST,
        spec: revision.doc("basic/index.mdx"),
        tags: vec!["fuzz".to_owned()],
        verdict,
        reason,
        baseline: None,
        checks,
        duration_ms: result.elapsed.as_millis() as u64,
        shutdown: None,
        session: Some(format!(
            "{} windows, {} process starts, corpus {} loaded + {} added{}",
            result.windows,
            result.starts,
            result.corpus_loaded,
            result.corpus_added,
            coverage_text(result, driver).map(|c| format!("; {c}")).unwrap_or_default()
        )),
        stderr: None,
        transcript: None,
        order: (0, 0, 0),
    });
    for (i, finding) in result.findings.iter().enumerate() {
        scenarios.push(finding_entry(finding, driver, findings_dir, i + 1));
    }
    let info = RunInfo {
        role: driver.role.name(),
        command: driver.target.display(),
        transport: driver.target.transport(),
        started_at: std::time::SystemTime::now() - result.elapsed,
        duration_ms: result.elapsed.as_millis() as u64,
        revisions: vec![revision.as_str().to_owned()],
        scenario_set: None,
        not_tested: None,
        interrupted: None,
        // The campaign's processes are all the target's (every one ended by now).
        cost: crate::report::Cost::measure(
            result.elapsed,
            result.starts,
            crate::report::cost::Implementation::Children,
        ),
    };
    Report::new(info, scenarios, policy)
}

fn finding_entry(
    finding: &Finding,
    driver: &DriverConfig,
    findings_dir: Option<&Path>,
    order: usize,
) -> ScenarioReport {
    let revision = driver.revision;
    let rule = rule_of(finding.signature.oracle, revision);
    let level = rule.level_at(revision);
    let reproducer = match findings_dir {
        Some(dir) => format!("; reproducer {}", dir.join(format!("{}.json", finding.id)).display()),
        None => String::new(),
    };
    let actual = format!(
        "{} (input: {}; {} bytes in {} writes{}{reproducer})",
        finding.detail,
        finding.reproducer.label,
        finding.reproducer.len_bytes(),
        finding.reproducer.writes.len(),
        if finding.reproduced { "" } else { "; did not trip again on a fresh process" },
    );
    let mut check = Check::judge(rule.id, level, rule.spec(revision), false, rule.requirement, actual);
    if !finding.proven() {
        check.verdict = Verdict::Warning;
    }
    let frame = if finding.signature.frame.is_empty() {
        String::new()
    } else {
        format!(" ({})", finding.signature.frame)
    };
    ScenarioReport {
        id: format!("fuzz/{}", finding.id),
        name: format!("{} on {}{frame}", finding.signature.oracle.name(), finding.method()),
        feature: "fuzz".to_owned(),
        revision: revision.as_str().to_owned(),
        transport: "stdio",
        era: revision.era().name(),
        level,
        spec: rule.spec(revision),
        tags: vec!["fuzz".to_owned(), super::signature::Oracle::name(finding.signature.oracle).to_owned()],
        verdict: check.verdict,
        reason: (!finding.reproduced).then(|| "did not trip again on a fresh process".to_owned()),
        baseline: None,
        checks: vec![check],
        duration_ms: finding.found_after.as_millis() as u64,
        shutdown: None,
        session: Some(format!(
            "hit {} time(s); first by input #{} after {:.1} s; minimized in {} probes",
            finding.hits,
            finding.input_index,
            finding.found_after.as_secs_f64(),
            finding.probes
        )),
        stderr: (!finding.stderr.trim().is_empty()).then(|| finding.stderr.clone()),
        transcript: None,
        order: (1, order, 0),
    }
}

/// What the server's code reached (`--coverage`): the units once the server had started, then
/// by each minute and at the end, and the inputs kept for it, e.g. `coverage (python, guided):
/// 2210 lines of Python run; at start 1800, by 60 s 2010, by 120 s 2150, by 150.2 s 2210; 41
/// input(s) kept for new code`.
pub fn coverage_text(result: &CampaignResult, driver: &DriverConfig) -> Option<String> {
    let log = driver.coverage.as_ref()?.log.lock().ok()?;
    let by_time: Vec<String> = log
        .by_minute(result.elapsed)
        .iter()
        .map(|(at, units)| match at.subsec_millis() {
            0 => format!("by {} s {units}", at.as_secs()),
            _ => format!("by {:.1} s {units}", at.as_secs_f64()),
        })
        .collect();
    Some(format!(
        "coverage ({}, {}): {} {}; at start {}, {}; {} input(s) kept for new code",
        log.source.name(),
        if log.guided { "guided" } else { "measured, not guided" },
        log.units(),
        log.source.unit(),
        log.at_start(),
        by_time.join(", "),
        log.kept
    ))
}

/// The console lines of a campaign: one per finding, then the totals.
pub fn console(result: &CampaignResult, findings_dir: Option<&Path>) -> String {
    let mut out = String::new();
    for f in &result.findings {
        let rule = rule_of(f.signature.oracle, result.catalog.revision.unwrap_or(Revision::latest_legacy()));
        out.push_str(&format!(
            "FINDING {}  {} on {}: {}\n  rule {} ({}), hit {} time(s), reproducer {} bytes{}\n",
            f.id,
            f.signature.oracle.name(),
            f.method(),
            f.detail,
            rule.id,
            rule.level,
            f.hits,
            f.reproducer.len_bytes(),
            findings_dir
                .map(|d| format!(": {}", d.join(format!("{}.json", f.id)).display()))
                .unwrap_or_default()
        ));
        if !f.stderr.trim().is_empty() {
            out.push_str(&format!("  stderr: {}\n", tail(&f.stderr)));
        }
    }
    for (d, label) in &result.slowest {
        out.push_str(&format!("slow window: {:.0} ms (from {label})\n", d.as_secs_f64() * 1000.0));
    }
    let rate = result.inputs as f64 / result.elapsed.as_secs_f64().max(1e-9);
    out.push_str(&format!(
        "fuzz: {} inputs in {:.1} s ({rate:.0}/s), {} windows, {} process starts, {} finding(s){}\n",
        result.inputs,
        result.elapsed.as_secs_f64(),
        result.windows,
        result.starts,
        result.findings.len(),
        if result.interrupted { ", interrupted" } else { "" }
    ));
    out
}
