//! `junit.xml`: the report as CI systems read test results. One `<testsuite>` per revision and
//! transport, one `<testcase>` per scenario run there. A failure carries every broken check
//! (id, level, clause, expected, actual); a skip carries its reason; a scenario mcpspec could not
//! judge is an `<error>`. Warnings (SHOULD) and expected failures pass, their checks listed in
//! `<system-out>`; under `--strict` warnings fail, and a stale baseline entry fails.

use super::{Report, ScenarioReport};
use crate::judge::verdict::{Check, Verdict};
use quick_xml::events::{BytesDecl, BytesText, Event};
use quick_xml::Writer;
use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;

/// The JUnit XML of a report.
pub fn render(report: &Report) -> String {
    let mut writer = Writer::new_with_indent(Vec::new(), b' ', 2);
    write(&mut writer, report).expect("writing XML into memory does not fail");
    let mut text = String::from_utf8(writer.into_inner()).expect("the XML is written from UTF-8 text");
    text.push('\n');
    text
}

fn write(w: &mut Writer<Vec<u8>>, report: &Report) -> io::Result<()> {
    w.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)))?;
    let counts = Counts::of(report.scenarios.iter());
    let name = format!("mcpspec {} {}", report.role, xml_safe(&report.command));
    w.create_element("testsuites")
        .with_attribute(("name", name.as_str()))
        .with_attribute(("tests", counts.tests.to_string().as_str()))
        .with_attribute(("failures", counts.failures.to_string().as_str()))
        .with_attribute(("errors", counts.errors.to_string().as_str()))
        .with_attribute(("skipped", counts.skipped.to_string().as_str()))
        .with_attribute(("time", seconds(report.duration_ms).as_str()))
        .with_attribute(("timestamp", report.started_at.as_str()))
        .write_inner_content(|w| {
            for (revision, transport) in suites(report) {
                let of: Vec<&ScenarioReport> = report
                    .scenarios
                    .iter()
                    .filter(|s| s.revision == revision && s.transport == transport)
                    .collect();
                suite(w, report, &revision, transport, &of)?;
            }
            Ok::<(), io::Error>(())
        })?;
    Ok(())
}

/// The (revision, transport) pairs of the report, in its order: the certification's, then any
/// others the scenarios name.
fn suites(report: &Report) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> =
        report.certification.iter().map(|c| (c.revision.clone(), c.transport)).collect();
    for s in &report.scenarios {
        if !out.iter().any(|(r, t)| *r == s.revision && *t == s.transport) {
            out.push((s.revision.clone(), s.transport));
        }
    }
    out
}

fn suite(
    w: &mut Writer<Vec<u8>>,
    report: &Report,
    revision: &str,
    transport: &str,
    scenarios: &[&ScenarioReport],
) -> io::Result<()> {
    let counts = Counts::of(scenarios.iter().copied());
    let time: u64 = scenarios.iter().map(|s| s.duration_ms).sum();
    let certification =
        report.certification.iter().find(|c| c.revision == revision && c.transport == transport);
    w.create_element("testsuite")
        .with_attribute(("name", format!("{} {revision} {transport}", report.role).as_str()))
        .with_attribute(("tests", counts.tests.to_string().as_str()))
        .with_attribute(("failures", counts.failures.to_string().as_str()))
        .with_attribute(("errors", counts.errors.to_string().as_str()))
        .with_attribute(("skipped", counts.skipped.to_string().as_str()))
        .with_attribute(("time", seconds(time).as_str()))
        .with_attribute(("timestamp", report.started_at.as_str()))
        .write_inner_content(|w| {
            w.create_element("properties").write_inner_content(|w| {
                let mut properties = vec![
                    ("mcpspec.version", report.mcpspec.version.to_owned()),
                    ("role", report.role.to_owned()),
                    ("command", report.command.clone()),
                    ("revision", revision.to_owned()),
                    ("transport", transport.to_owned()),
                ];
                if let Some(c) = certification {
                    properties.push(("certification", c.verdict.words().to_owned()));
                    properties.push(("certification.reason", c.reason.clone()));
                }
                for (name, value) in &properties {
                    w.create_element("property")
                        .with_attribute(("name", *name))
                        .with_attribute(("value", xml_safe(value).as_ref()))
                        .write_empty()?;
                }
                Ok::<(), io::Error>(())
            })?;
            for s in scenarios {
                case(w, s)?;
            }
            Ok::<(), io::Error>(())
        })?;
    Ok(())
}

fn case(w: &mut Writer<Vec<u8>>, s: &ScenarioReport) -> io::Result<()> {
    let classname = s.feature.strip_suffix(".feature").unwrap_or(&s.feature).replace('/', ".");
    let element = w
        .create_element("testcase")
        .with_attribute(("name", xml_safe(&format!("{} — {}", s.id, s.name)).as_ref()))
        .with_attribute(("classname", xml_safe(&classname).as_ref()))
        .with_attribute(("time", seconds(s.duration_ms).as_str()));
    let broken: Vec<&Check> = s.checks.iter().filter(|c| c.broken()).collect();
    match s.verdict {
        Verdict::Passed if broken.is_empty() => {
            element.write_empty()?;
        }
        Verdict::Skipped => {
            element.write_inner_content(|w| {
                let reason = s.reason.as_deref().unwrap_or("not applicable");
                w.create_element("skipped")
                    .with_attribute(("message", xml_safe(reason).as_ref()))
                    .write_empty()?;
                Ok::<(), io::Error>(())
            })?;
        }
        Verdict::Error => {
            element.write_inner_content(|w| {
                let reason = s.reason.as_deref().unwrap_or("mcpspec could not judge the scenario");
                w.create_element("error")
                    .with_attribute(("message", xml_safe(reason).as_ref()))
                    .with_attribute(("type", "error"))
                    .write_text_content(BytesText::new(&xml_safe(&details(s, &broken))))?;
                Ok::<(), io::Error>(())
            })?;
        }
        Verdict::Failed => {
            element.write_inner_content(|w| {
                let (message, kind) = match broken.iter().find(|c| !c.baselined) {
                    Some(c) => (format!("{} {}: {}", c.level, c.id, c.actual), c.level.to_string()),
                    None => (s.reason.clone().unwrap_or_else(|| "failed".to_owned()), "baseline".to_owned()),
                };
                w.create_element("failure")
                    .with_attribute(("message", xml_safe(&shorten(&message)).as_ref()))
                    .with_attribute(("type", kind.as_str()))
                    .write_text_content(BytesText::new(&xml_safe(&details(s, &broken))))?;
                Ok::<(), io::Error>(())
            })?;
        }
        // Passed with warnings, warnings, expected failures: the run passes; what broke is told.
        Verdict::Passed | Verdict::Warning | Verdict::ExpectedFailure => {
            element.write_inner_content(|w| {
                w.create_element("system-out")
                    .write_text_content(BytesText::new(&xml_safe(&details(s, &broken))))?;
                Ok::<(), io::Error>(())
            })?;
        }
    }
    Ok(())
}

/// The scenario's verdict, reason, baseline and every broken check, as plain text.
fn details(s: &ScenarioReport, broken: &[&Check]) -> String {
    let mut out =
        format!("{} at {} over {}: {}\nclause: {}\n", s.id, s.revision, s.transport, s.verdict, s.spec);
    if let Some(reason) = &s.reason {
        let _ = writeln!(out, "reason: {reason}");
    }
    if let Some(mark) = &s.baseline {
        let _ = writeln!(out, "baseline ({:?}): {}", mark.status, mark.entries.join(", "));
    }
    for c in broken {
        let _ = write!(
            out,
            "\n{} {} {}{}\n  clause:   {}\n  expected: {}\n  actual:   {}\n",
            c.verdict,
            c.level,
            c.id,
            if c.baselined { " (expected: in the baseline)" } else { "" },
            c.spec,
            c.expected,
            c.actual
        );
    }
    out
}

struct Counts {
    tests: usize,
    failures: usize,
    errors: usize,
    skipped: usize,
}

impl Counts {
    fn of<'a>(scenarios: impl Iterator<Item = &'a ScenarioReport>) -> Counts {
        let mut c = Counts { tests: 0, failures: 0, errors: 0, skipped: 0 };
        for s in scenarios {
            c.tests += 1;
            match s.verdict {
                Verdict::Failed => c.failures += 1,
                Verdict::Error => c.errors += 1,
                Verdict::Skipped => c.skipped += 1,
                Verdict::Passed | Verdict::Warning | Verdict::ExpectedFailure => {}
            }
        }
        c
    }
}

fn seconds(ms: u64) -> String {
    format!("{:.3}", ms as f64 / 1000.0)
}

fn shorten(text: &str) -> Cow<'_, str> {
    const MAX: usize = 500;
    match text.char_indices().nth(MAX) {
        Some((cut, _)) => Cow::Owned(format!("{}…", &text[..cut])),
        None => Cow::Borrowed(text),
    }
}

/// Text XML 1.0 can carry: the control characters it forbids (even escaped), which an
/// implementation's output may hold, become U+FFFD.
pub fn xml_safe(text: &str) -> Cow<'_, str> {
    let allowed = |c: char| matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..='\u{10FFFF}');
    if text.chars().all(allowed) {
        Cow::Borrowed(text)
    } else {
        Cow::Owned(text.chars().map(|c| if allowed(c) { c } else { '\u{FFFD}' }).collect())
    }
}
