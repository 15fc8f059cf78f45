//! The formats of one synthetic run holding every verdict — passed, failed, a warning, skipped,
//! an error, an expected failure and a stale baseline entry — pinned by snapshots; and the
//! certification's rules.

use super::console::{console_entry, console_footer};
use super::*;
use crate::judge::recorder::TranscriptEntry;
use crate::judge::verdict::{Check, Level, Verdict};
use crate::report::baseline::Baseline;

/// A check of `id` with the verdict `verdict`, at `level`.
pub(crate) fn check(id: &str, level: Level, verdict: Verdict) -> Check {
    Check {
        id: id.to_owned(),
        level,
        spec: format!("docs/specification/2025-06-18/{id}.mdx"),
        verdict,
        expected: format!("what {id} requires"),
        actual: if verdict == Verdict::Passed { "as required".to_owned() } else { format!("{id} broken") },
        message: (verdict != Verdict::Passed).then_some(1),
        baselined: false,
        clauses: Vec::new(),
    }
}

/// A scenario run of `id` at `revision` whose verdict follows from `checks` (or is `skipped`
/// with a reason when there are none).
pub(crate) fn scenario(id: &str, revision: &str, checks: Vec<Check>) -> ScenarioReport {
    let verdict =
        if checks.is_empty() { Verdict::Skipped } else { ScenarioReport::verdict_of(&checks, None) };
    let failing = !matches!(verdict, Verdict::Passed | Verdict::Skipped);
    ScenarioReport {
        id: id.to_owned(),
        name: format!("the scenario {id}"),
        feature: "server/sample.feature".to_owned(),
        revision: revision.to_owned(),
        transport: "stdio",
        era: "legacy",
        level: Level::MUST,
        spec: format!("docs/specification/{revision}/{id}.mdx"),
        tags: vec!["sample".to_owned()],
        verdict,
        reason: checks.is_empty().then(|| "the server does not declare the \"tools\" capability".to_owned()),
        baseline: None,
        checks,
        duration_ms: 12,
        shutdown: failing.then(|| "exited with status 0 after its stdin was closed".to_owned()),
        session: None,
        stderr: failing.then(|| "warning: <script>alert(1)</script> & \u{1b}[31mred\u{1b}[0m".to_owned()),
        transcript: failing.then(|| {
            vec![
                TranscriptEntry {
                    dir: "→",
                    line: None,
                    at_ms: 0,
                    text: r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.to_owned(),
                },
                TranscriptEntry {
                    dir: "←",
                    line: Some(1),
                    at_ms: 3,
                    text: r#"{"jsonrpc":"2.0","id":"1","result":{}}"#.to_owned(),
                },
            ]
        }),
        order: (0, 0, 0),
    }
}

pub(crate) fn info(revisions: &[&str]) -> RunInfo {
    RunInfo {
        role: "server",
        command: "node server.js --token=abc123".to_owned(),
        transport: "stdio",
        started_at: std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_795_000_000),
        duration_ms: 1234,
        revisions: revisions.iter().map(|r| r.to_string()).collect(),
        scenario_set: Some(ScenarioSet {
            source: "built-in".to_owned(),
            scenarios: 8,
            selection: Selection::default(),
        }),
        not_tested: None,
        interrupted: None,
        cost: Cost::new(1234, 7, 310, Some(2_100), None),
    }
}

/// Every verdict a report can hold: at 2025-06-18 a pass, a MUST failure, a SHOULD warning, a
/// skip, an error, a failure the baseline expects and a pass the baseline says fails (stale);
/// 2024-11-05 was not spoken.
fn every_verdict() -> Report {
    use Level::*;
    use Verdict::*;
    let mut error = scenario("lifecycle/exit", "2025-06-18", vec![check("lifecycle/exit", MUST, Passed)]);
    error.verdict = Error;
    error.reason = Some("the server did not start: No such file or directory".to_owned());
    let mut not_spoken = scenario("ping/after-initialize", "2024-11-05", vec![]);
    not_spoken.reason =
        Some("the server does not speak 2024-11-05: it counter-offered \"2025-06-18\"".to_owned());
    let scenarios = vec![
        scenario("ping/after-initialize", "2025-06-18", vec![check("ping/after-initialize", MUST, Passed)]),
        scenario(
            "jsonrpc/response-id",
            "2025-06-18",
            vec![
                check("jsonrpc/response-id", MUST, Passed),
                check("jsonrpc/response-id-matches-request", MUST, Failed),
            ],
        ),
        scenario("tools/unknown-tool", "2025-06-18", vec![check("tools/unknown-tool", SHOULD, Warning)]),
        scenario("resources/subscribe", "2025-06-18", vec![]),
        error,
        scenario("jsonrpc/batch-answered", "2025-06-18", vec![check("jsonrpc/batch-answered", MUST, Failed)]),
        scenario("prompts/get", "2025-06-18", vec![check("prompts/get", MUST, Passed)]),
        not_spoken,
    ];
    let baseline = Baseline::parse(
        std::path::Path::new("known.yaml"),
        "server:\n  - id: jsonrpc/batch-answered\n    revision: 2025-06-18\n    reason: no batches\n  - prompts/get\n  - lifecycle/never-ran\n",
    )
    .unwrap();
    let mut report = Report::new(
        info(&["2025-06-18", "2024-11-05"]),
        scenarios,
        &Policy { baseline: Some(&baseline), strict: false, shard: false },
    );
    report.redact(&crate::report::redact::Redactor::new([("MY_TOKEN", "abc123")], []));
    report
}

#[test]
fn every_format_of_a_run_with_every_verdict() {
    let report = every_verdict();
    insta::assert_json_snapshot!("report_json", report);
    insta::assert_snapshot!("junit_xml", junit::render(&report));
    insta::assert_snapshot!("summary_md", markdown::render(&report));
    insta::assert_json_snapshot!("badge_json", badge::render(&report));
    let mut console: Vec<String> = report.scenarios.iter().map(console_entry).collect();
    console.push(console_footer(&report));
    insta::assert_snapshot!("console", console.join("\n"));
}

#[test]
fn certification_follows_the_scenarios_not_the_baseline() {
    let report = every_verdict();
    let at = |r: &str| report.certification.iter().find(|c| c.revision == r).unwrap();
    // A MUST failure makes 2025-06-18 not conformant, baselined or not.
    assert_eq!(at("2025-06-18").verdict, Conformance::NotConformant);
    assert_eq!(at("2024-11-05").verdict, Conformance::NotTested);
    assert!(at("2024-11-05").reason.contains("counter-offered"), "{}", at("2024-11-05").reason);
    // The run's gate: an error (exit 3) beats the rest.
    assert_eq!(report.exit_code(), exit::ERROR);
    assert_eq!(report.summary.expected_failures, 1);
    assert_eq!(report.summary.stale, 1);
}

#[test]
fn conformance_of_one_revision() {
    use Level::*;
    use Verdict::*;
    let verdict = |checks: Vec<Vec<Check>>, strict: bool| {
        let scenarios: Vec<_> = checks.into_iter().map(|c| scenario("s", "2025-06-18", c)).collect();
        let report =
            Report::new(info(&["2025-06-18"]), scenarios, &Policy { baseline: None, strict, shard: false });
        (report.certification[0].verdict, report.exit_code())
    };
    let pass = || check("a", MUST, Passed);
    let warn = || check("b", SHOULD, Warning);
    let fail = || check("c", MUST, Failed);
    assert_eq!(verdict(vec![vec![pass()], vec![]], false), (Conformance::Conformant, exit::OK));
    assert_eq!(
        verdict(vec![vec![pass()], vec![warn()]], false),
        (Conformance::ConformantWithWarnings, exit::OK)
    );
    assert_eq!(
        verdict(vec![vec![pass()], vec![warn()]], true),
        (Conformance::NotConformant, exit::MUST_FAILED)
    );
    assert_eq!(
        verdict(vec![vec![fail()], vec![warn()]], false),
        (Conformance::NotConformant, exit::MUST_FAILED)
    );
    assert_eq!(verdict(vec![vec![]], false), (Conformance::NotTested, exit::OK));
    // Stopped half-way: what ran passed, but that certifies nothing.
    let mut stopped = info(&["2025-06-18"]);
    stopped.interrupted = Some("SIGTERM");
    let report = Report::new(stopped, vec![scenario("s", "2025-06-18", vec![pass()])], &Policy::default());
    assert_eq!(report.certification[0].verdict, Conformance::Inconclusive);
    assert!(report.certification[0].reason.contains("SIGTERM"));
}

#[test]
fn junit_text_is_xml_whatever_the_implementation_wrote() {
    let mut report = every_verdict();
    for s in &mut report.scenarios {
        for c in &mut s.checks {
            c.actual = "\u{0}\u{1}</failure>]]>&<\u{fffe}".to_owned();
        }
    }
    let xml = junit::render(&report);
    let parsed = junit_parser::from_reader(std::io::Cursor::new(xml.as_bytes())).expect("parses as JUnit");
    assert_eq!(parsed.suites.len(), 2);
    assert!(xml.contains("&lt;/failure&gt;]]&gt;&amp;&lt;"), "{xml}");
}

#[test]
fn a_report_is_replaced_whole() {
    let dir = tempfile::tempdir().unwrap();
    let report = every_verdict();
    let written = report.write_all(dir.path()).unwrap();
    assert_eq!(written.len(), 5);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 5, "no temporary file is left: {names:?}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap()).unwrap();
    assert_eq!(json["summary"]["failed"], 2);
}

/// The page written beside report.json is the page of report.json's value: its header read
/// from the report without its scenarios, its embedded copy written from the report itself.
#[test]
fn report_html_is_the_page_of_report_json() {
    let dir = tempfile::tempdir().unwrap();
    let report = every_verdict();
    report.write_all(dir.path()).unwrap();
    let value = serde_json::to_value(&report).unwrap();
    let page = std::fs::read_to_string(dir.path().join("report.html")).unwrap();
    assert_eq!(page, html::render(&value));
    assert!(!report.scenarios.is_empty() && report.without_scenarios().scenarios.is_empty());
    assert_eq!(serde_json::to_value(report.without_scenarios()).unwrap()["summary"], value["summary"]);
}

/// `harness/report.schema.json`, compiled.
pub(crate) fn report_schema() -> jsonschema::Validator {
    let text = include_str!("../../report.schema.json");
    let schema: serde_json::Value = serde_json::from_str(text).expect("the report schema is JSON");
    jsonschema::validator_for(&schema).expect("the report schema compiles")
}

#[test]
fn report_json_matches_its_schema() {
    let schema = report_schema();
    let mut stopped = info(&["2025-06-18"]);
    stopped.interrupted = Some("SIGHUP");
    stopped.not_tested = Some("no revision could be tested".to_owned());
    let reports = [every_verdict(), Report::new(stopped, vec![], &Policy::default())];
    for report in reports {
        let value = serde_json::to_value(&report).unwrap();
        let errors: Vec<String> =
            schema.iter_errors(&value).map(|e| format!("{}: {e}", e.instance_path())).collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }
    // The schema can fail: a verdict it does not know, a check without its clause.
    let mut value = serde_json::to_value(every_verdict()).unwrap();
    value["scenarios"][0]["verdict"] = "maybe".into();
    value["scenarios"][1]["checks"][0]["spec"] = "somewhere".into();
    assert_eq!(schema.iter_errors(&value).count(), 2);
}
