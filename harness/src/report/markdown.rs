//! `summary.md`: the report in a few lines of Markdown, for `$GITHUB_STEP_SUMMARY` and pull
//! request comments: the certification per revision, whether the run passes its gate, and the
//! failures that decided it (the first few; the rest are in the other formats).

use super::{Conformance, Report};
use crate::judge::verdict::Verdict;
use std::fmt::Write as _;

/// Failures listed one by one; the rest are counted.
const LISTED: usize = 20;

pub fn render(report: &Report) -> String {
    let mut out = String::new();
    let code = report.exit_code();
    let gate = match (report.interrupted, code) {
        (Some(signal), _) => format!("⏹️ stopped by {signal}: the report holds what ran"),
        (None, 0) => "✅ passes".to_owned(),
        (None, 1) => "❌ fails".to_owned(),
        (None, 4) => "⚪ nothing could be tested".to_owned(),
        (None, _) => "⚠️ could not be judged".to_owned(),
    };
    let _ = writeln!(out, "## mcpspec {}: {gate}\n", report.role);
    let _ = writeln!(
        out,
        "`{}` · {} · mcpspec {} · {} · {:.1} s\n",
        cell(&report.command).replace('`', "'"),
        report.transport,
        report.mcpspec.version,
        report.started_at,
        report.duration_ms as f64 / 1000.0
    );
    if !report.certification.is_empty() {
        out.push_str(
            "| revision | transport | certification | passed | failed | warnings | skipped | errors |\n",
        );
        out.push_str("|---|---|---|---:|---:|---:|---:|---:|\n");
        for c in &report.certification {
            let mark = match c.verdict {
                Conformance::Conformant => "✅",
                Conformance::ConformantWithWarnings => "🟡",
                Conformance::NotConformant => "❌",
                Conformance::NotTested => "⚪",
                Conformance::Inconclusive => "⚠️",
            };
            let s = &c.summary;
            let _ = writeln!(
                out,
                "| {} | {} | {mark} {} | {} | {} | {} | {} | {} |",
                c.revision,
                c.transport,
                c.verdict.words(),
                s.passed,
                s.failed,
                s.warnings,
                s.skipped,
                s.errors
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "**Scenarios:** {}\n", report.summary.line());
    if let Some(why) = &report.not_tested {
        let _ = writeln!(out, "**Not tested:** {}\n", cell(why));
    }
    if let Some(b) = &report.baseline {
        let _ = writeln!(
            out,
            "**Baseline** `{}`{}: {} of {} entries matched a failure, {} stale, {} unexercised\n",
            cell(&b.file),
            if b.strict { " (strict)" } else { "" },
            b.expected.len(),
            b.entries,
            b.stale.len(),
            b.unexercised.len()
        );
        for entry in &b.stale {
            let _ = writeln!(out, "- stale: `{}` no longer fails: remove it", cell(entry));
        }
        if !b.stale.is_empty() {
            out.push('\n');
        }
    }
    let failing: Vec<_> =
        report.scenarios.iter().filter(|s| matches!(s.verdict, Verdict::Failed | Verdict::Error)).collect();
    if !failing.is_empty() {
        let _ = writeln!(out, "### Failures ({})\n", failing.len());
        out.push_str("| scenario | revision | check | clause | actual |\n|---|---|---|---|---|\n");
        for s in failing.iter().take(LISTED) {
            let check = s.checks.iter().find(|c| c.broken() && !c.baselined);
            let (id, clause, actual) = match check {
                Some(c) => (format!("{} {}", c.level, c.id), c.spec.as_str(), c.actual.as_str()),
                None => (s.verdict.to_string(), s.spec.as_str(), s.reason.as_deref().unwrap_or("")),
            };
            let _ = writeln!(
                out,
                "| `{}` | {} | {} | {} | {} |",
                cell(&s.id),
                s.revision,
                cell(&id),
                cell(clause),
                cell(&short(actual))
            );
        }
        if failing.len() > LISTED {
            let _ = writeln!(out, "\n… and {} more (see junit.xml or report.html)", failing.len() - LISTED);
        }
        out.push('\n');
    }
    out
}

/// Text that stays inside one table cell.
fn cell(text: &str) -> String {
    text.replace('\\', "\\\\").replace('|', "\\|").replace(['\n', '\r'], " ")
}

fn short(text: &str) -> String {
    const MAX: usize = 160;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
