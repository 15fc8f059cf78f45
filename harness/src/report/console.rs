//! The console while a run goes: each scenario's line as it finishes (its broken checks below
//! it), a progress bar on a terminal and plain lines otherwise (CI logs), colours unless
//! `NO_COLOR` is set or the output is not a terminal, `--quiet` for the closing lines only, and
//! `--verbose` for a live wire log (every message of every session, as it crosses the wire).

use super::run::Report;
use super::scenario::ScenarioReport;
use crate::judge::verdict::Verdict;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::sync::OnceLock;

/// How much the console shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The certification and the summary only.
    Quiet,
    /// A line per scenario (its broken checks below it).
    #[default]
    Normal,
    /// Also every message of every session, live.
    Verbose,
}

/// The run's console.
pub struct Console {
    mode: Mode,
    /// On a terminal (stderr): scenarios done of those planned.
    bar: Option<ProgressBar>,
    color: bool,
}

static CONSOLE: OnceLock<Console> = OnceLock::new();

/// Sets up the console of a certifying run; the first call wins.
pub fn init(mode: Mode) {
    let color = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    console::set_colors_enabled(color);
    let bar = (mode != Mode::Quiet && std::io::stderr().is_terminal()).then(|| {
        let bar = ProgressBar::with_draw_target(Some(0), ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} scenarios  {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar());
        bar.set_style(style);
        bar.enable_steady_tick(std::time::Duration::from_millis(200));
        bar
    });
    let _ = CONSOLE.set(Console { mode, bar, color });
}

/// The run's console (plain lines, if [`init`] was not called).
pub fn get() -> &'static Console {
    CONSOLE.get_or_init(|| Console { mode: Mode::Normal, bar: None, color: false })
}

impl Console {
    /// A line on stdout, above the progress bar if there is one.
    pub fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| println!("{text}")),
            None => println!("{text}"),
        }
    }

    /// More scenario runs are planned.
    pub fn planned(&self, n: usize) {
        if let Some(bar) = &self.bar {
            bar.inc_length(n as u64);
        }
    }

    /// A scenario finished (or was reported without running); `again` when it is shown anew
    /// (a late finding).
    pub fn scenario(&self, report: &ScenarioReport, again: bool) {
        if !again {
            if let Some(bar) = &self.bar {
                bar.inc(1);
                if matches!(report.verdict, Verdict::Failed | Verdict::Error) {
                    bar.set_message(format!("last failure: {} {}", report.revision, report.id));
                }
            }
        }
        // Without --verbose only what needs a look is shown as it comes; passes and skips are
        // summed up at the end (`console_digest`), grouped by reason.
        let needs_a_look = !matches!(report.verdict, Verdict::Passed | Verdict::Skipped);
        if self.mode == Mode::Quiet || (self.mode == Mode::Normal && !needs_a_look) {
            return;
        }
        let text = crate::report::redact::run().text(&console_entry(report)).into_owned();
        self.line(&self.paint(report.verdict, text));
    }

    /// One message of a session (`--verbose`): `label` names the scenario.
    pub fn wire(&self, label: &str, dir: &str, text: &str) {
        if self.mode != Mode::Verbose {
            return;
        }
        let text = crate::report::redact::run().text(text).into_owned();
        let line = format!("  {label} {dir} {text}");
        self.line(&if self.color { console::style(line).dim().to_string() } else { line });
    }

    /// The run is over: the bar goes.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }

    /// The verdict tag (the line's first word) in its colour.
    fn paint(&self, verdict: Verdict, text: String) -> String {
        if !self.color {
            return text;
        }
        let (tag, rest) = text.split_at(text.find(' ').unwrap_or(text.len()));
        let style = console::style(tag);
        let tag = match verdict {
            Verdict::Passed => style.green(),
            Verdict::Failed => style.red().bold(),
            Verdict::Error => style.magenta().bold(),
            Verdict::Warning => style.yellow(),
            Verdict::ExpectedFailure => style.cyan(),
            Verdict::Skipped => style.dim(),
        };
        format!("{tag}{rest}")
    }
}

/// What the console sums up once every scenario has finished, above the certification: the
/// scenario runs that passed, per revision, and those skipped, grouped by their reason (a
/// server that does not speak a revision skips every scenario of it for one reason, said once).
/// Failures, warnings and errors were shown as they came.
pub fn console_digest(report: &Report) -> String {
    let mut out = String::new();
    let mut skips: Vec<(&str, Vec<&str>, usize)> = Vec::new();
    for s in report.scenarios.iter().filter(|s| s.verdict == Verdict::Skipped) {
        let reason = s.reason.as_deref().unwrap_or("no reason given");
        match skips.iter_mut().find(|(r, _, _)| *r == reason) {
            Some((_, revisions, n)) => {
                *n += 1;
                if !revisions.contains(&s.revision.as_str()) {
                    revisions.push(&s.revision);
                }
            }
            None => skips.push((reason, vec![&s.revision], 1)),
        }
    }
    for (reason, revisions, n) in &skips {
        let _ = writeln!(out, "SKIP  {n} scenario run(s) at {}: {reason}", revisions.join(", "));
    }
    let mut passed: Vec<(&str, usize)> = Vec::new();
    for s in report.scenarios.iter().filter(|s| s.verdict == Verdict::Passed) {
        match passed.iter_mut().find(|(r, _)| *r == s.revision) {
            Some((_, n)) => *n += 1,
            None => passed.push((&s.revision, 1)),
        }
    }
    if !passed.is_empty() {
        let per: Vec<String> = passed.iter().map(|(r, n)| format!("{n} at {r}")).collect();
        let total: usize = passed.iter().map(|(_, n)| n).sum();
        let _ = writeln!(out, "PASS  {total} scenario run(s): {} (--verbose lists each)", per.join(", "));
    }
    out
}

/// What the console shows once every scenario has: the certification of each revision, what
/// the baseline made of its entries, and what the run cost.
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
    let _ = writeln!(out, "{}", report.cost.line());
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
