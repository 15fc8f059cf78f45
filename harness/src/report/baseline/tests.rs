//! Baseline semantics: listed, unlisted, stale, strict, unexercised, and the file's forms.

use super::*;
use crate::judge::verdict::Level::{MUST, SHOULD};
use crate::judge::verdict::Verdict::{self, ExpectedFailure, Failed, Passed, Skipped, Warning};
use crate::report::tests::{check, scenario};

fn baseline(text: &str) -> Baseline {
    Baseline::parse(Path::new("b.yaml"), text).unwrap()
}

fn verdicts(scenarios: &[ScenarioReport]) -> Vec<(String, String, Verdict)> {
    scenarios.iter().map(|s| (s.id.clone(), s.revision.clone(), s.verdict)).collect()
}

fn v(id: &str, revision: &str, verdict: Verdict) -> (String, String, Verdict) {
    (id.to_owned(), revision.to_owned(), verdict)
}

#[test]
fn a_listed_failure_is_expected_and_an_unlisted_one_fails() {
    let mut runs = vec![
        scenario("a/listed", "2025-06-18", vec![check("a/listed", MUST, Failed)]),
        scenario("b/unlisted", "2025-06-18", vec![check("b/unlisted", MUST, Failed)]),
    ];
    let outcome = baseline("server:\n  - a/listed\n").apply("server", &mut runs, false);
    assert_eq!(
        verdicts(&runs),
        [v("a/listed", "2025-06-18", ExpectedFailure), v("b/unlisted", "2025-06-18", Failed)]
    );
    assert!(runs[0].checks[0].baselined);
    assert_eq!(runs[0].baseline.as_ref().unwrap().status, BaselineStatus::Expected);
    assert_eq!(outcome.expected, ["a/listed"]);
    assert!(outcome.stale.is_empty() && outcome.unexercised.is_empty());
}

#[test]
fn an_entry_that_no_longer_fails_is_stale_and_fails_its_scenario() {
    let mut runs = vec![scenario("a/fixed", "2025-06-18", vec![check("a/fixed", MUST, Passed)])];
    let outcome = baseline("server:\n  - a/fixed\n").apply("server", &mut runs, false);
    assert_eq!(verdicts(&runs), [v("a/fixed", "2025-06-18", Failed)]);
    assert!(runs[0].reason.as_deref().unwrap().contains("stale baseline entry"), "{:?}", runs[0].reason);
    assert_eq!(runs[0].baseline.as_ref().unwrap().status, BaselineStatus::Stale);
    assert_eq!(outcome.stale, ["a/fixed"]);
}

#[test]
fn an_entry_whose_scenario_did_not_run_is_unexercised_not_stale() {
    let mut runs = vec![scenario("a/skipped", "2025-06-18", vec![])];
    let outcome = baseline("server:\n  - a/skipped\n  - z/unknown\n").apply("server", &mut runs, false);
    assert_eq!(verdicts(&runs), [v("a/skipped", "2025-06-18", Skipped)]);
    assert_eq!(outcome.unexercised, ["a/skipped", "z/unknown"]);
    assert!(outcome.stale.is_empty());
}

#[test]
fn strict_makes_warnings_fail_unless_listed() {
    // `Report::new` turns warnings into failures under --strict before the baseline applies.
    let mut runs = vec![
        scenario("a/should", "2025-06-18", vec![check("a/should", SHOULD, Warning)]),
        scenario("b/should", "2025-06-18", vec![check("b/should", SHOULD, Warning)]),
    ];
    for s in &mut runs {
        s.verdict = Failed;
    }
    baseline("server:\n  - a/should\n").apply("server", &mut runs, true);
    assert_eq!(
        verdicts(&runs),
        [v("a/should", "2025-06-18", ExpectedFailure), v("b/should", "2025-06-18", Failed)]
    );
    // Without --strict, a listed warning is expected too, and an unlisted one stays a warning.
    let mut runs = vec![
        scenario("a/should", "2025-06-18", vec![check("a/should", SHOULD, Warning)]),
        scenario("b/should", "2025-06-18", vec![check("b/should", SHOULD, Warning)]),
    ];
    baseline("server:\n  - a/should\n").apply("server", &mut runs, false);
    assert_eq!(
        verdicts(&runs),
        [v("a/should", "2025-06-18", ExpectedFailure), v("b/should", "2025-06-18", Warning)]
    );
}

#[test]
fn a_check_entry_covers_that_check_only() {
    let two = || vec![check("x/one", MUST, Failed), check("x/two", MUST, Failed)];
    let mut runs = vec![scenario("x", "2025-06-18", two())];
    baseline("server:\n  - \"x:x/one\"\n").apply("server", &mut runs, false);
    assert_eq!(verdicts(&runs), [v("x", "2025-06-18", Failed)]);
    assert_eq!(runs[0].checks.iter().map(|c| c.baselined).collect::<Vec<_>>(), [true, false]);
    let mut runs = vec![scenario("x", "2025-06-18", two())];
    baseline("server:\n  - \"x:x/one\"\n  - \"x:x/two\"\n").apply("server", &mut runs, false);
    assert_eq!(verdicts(&runs), [v("x", "2025-06-18", ExpectedFailure)]);
}

#[test]
fn revision_and_transport_narrow_an_entry() {
    let mut runs = vec![
        scenario("batch", "2025-03-26", vec![check("batch", MUST, Failed)]),
        scenario("batch", "2025-06-18", vec![check("batch", MUST, Failed)]),
    ];
    let text = "server:\n  - id: batch\n    revision: 2025-03-26\n    transport: stdio\n    clause: docs/x.mdx\n    reason: r\n  - id: batch\n    revision: 2025-06-18\n    transport: http\n";
    let outcome = baseline(text).apply("server", &mut runs, false);
    assert_eq!(
        verdicts(&runs),
        [v("batch", "2025-03-26", ExpectedFailure), v("batch", "2025-06-18", Failed)]
    );
    assert_eq!(outcome.expected, ["batch @2025-03-26 @stdio"]);
    assert_eq!(outcome.unexercised, ["batch @2025-06-18 @http"]);
}

#[test]
fn an_outline_id_covers_its_examples_and_client_entries_leave_servers_alone() {
    let mut runs = vec![
        scenario("sweep/tools[sampling]", "2025-06-18", vec![check("schema/message-valid", MUST, Failed)]),
        scenario("sweep/tools-declining", "2025-06-18", vec![check("schema/message-valid", MUST, Failed)]),
    ];
    baseline("server:\n  - \"sweep/tools:schema/message-valid\"\nclient:\n  - sweep/tools-declining\n")
        .apply("server", &mut runs, false);
    assert_eq!(
        verdicts(&runs),
        [
            v("sweep/tools[sampling]", "2025-06-18", ExpectedFailure),
            v("sweep/tools-declining", "2025-06-18", Failed)
        ]
    );
}

#[test]
fn the_official_suites_file_reads_unchanged() {
    // The shape of the official suite's --expected-failures file: plain lists, comments.
    let text = "# known failures of our SDK\nserver:\n  - tools-call-with-progress\n  - \"server-initialize:version-negotiation\"\nclient:\n  - auth/basic-dcr\n";
    let b = baseline(text);
    assert_eq!(b.server.len(), 2);
    assert_eq!(b.server[1].scenario, "server-initialize");
    assert_eq!(b.server[1].check.as_deref(), Some("version-negotiation"));
    assert_eq!(b.client[0].scenario, "auth/basic-dcr");
    // An empty file lists nothing; a file of comments too.
    assert!(baseline("").server.is_empty());
    assert!(baseline("# nothing yet\n").client.is_empty());
}

#[test]
fn a_broken_file_is_a_clear_error() {
    let err = |text: &str| Baseline::parse(Path::new("b.yaml"), text).unwrap_err().to_string();
    assert!(err("servers:\n  - a\n").contains("is not a baseline"), "{}", err("servers:\n  - a\n"));
    assert!(err("server: [").contains("is not a baseline"));
    assert!(err("server:\n  - id: a\n    revision: 2031-01-01\n").contains("server entry 1"));
    assert!(err("server:\n  - id: a\n    transport: websocket\n").contains("transport \"websocket\""));
    assert!(err("server:\n  - \":check\"\n").contains("names no scenario"));
    assert!(
        err("server:\n  - id: a\n    typo: 1\n").contains("is not a baseline")
            || err("server:\n  - id: a\n    typo: 1\n").contains("entry")
    );
    let missing = Baseline::load(Path::new("/nonexistent/b.yaml")).unwrap_err().to_string();
    assert!(missing.contains("cannot read the baseline /nonexistent/b.yaml"), "{missing}");
}

#[test]
fn a_colon_inside_example_values_is_part_of_the_id() {
    assert_eq!(split_check("meta/required[is: missing]:c/d"), ("meta/required[is: missing]", Some("c/d")));
    assert_eq!(split_check("a/b"), ("a/b", None));
}

#[test]
fn a_star_entry_covers_one_check_in_every_scenario() {
    let mut runs = vec![
        scenario("a/one", "2025-06-18", vec![check("a/one", MUST, Passed), check("http/wire", MUST, Failed)]),
        scenario("b/two", "2025-11-25", vec![check("http/wire", MUST, Failed)]),
        scenario(
            "c/three",
            "2025-11-25",
            vec![check("c/three", MUST, Failed), check("http/wire", MUST, Failed)],
        ),
    ];
    let outcome = baseline("server:\n  - \"*:http/wire\"\n").apply("server", &mut runs, false);
    assert_eq!(
        verdicts(&runs),
        [
            v("a/one", "2025-06-18", ExpectedFailure),
            v("b/two", "2025-11-25", ExpectedFailure),
            v("c/three", "2025-11-25", Failed)
        ]
    );
    assert_eq!(outcome.expected, ["*:http/wire"]);
}

#[test]
fn a_star_entry_whose_rule_held_everywhere_is_stale_without_failing_each_scenario() {
    let mut runs = vec![scenario("a/one", "2025-06-18", vec![check("a/one", MUST, Passed)])];
    let outcome =
        baseline("server:\n  - id: \"*:http/wire\"\n    transport: http\n").apply("server", &mut runs, false);
    // Over stdio (the scenario's transport) the http entry names nothing that ran.
    assert_eq!(outcome.unexercised, ["*:http/wire @http"]);
    let mut runs = vec![scenario("a/one", "2025-06-18", vec![check("a/one", MUST, Passed)])];
    let outcome = baseline("server:\n  - \"*:http/wire\"\n").apply("server", &mut runs, false);
    assert_eq!(outcome.stale, ["*:http/wire"]);
    assert_eq!(verdicts(&runs), [v("a/one", "2025-06-18", Passed)]);
}

#[test]
fn a_bare_star_is_refused() {
    let err = Baseline::parse(Path::new("b.yaml"), "server:\n  - \"*\"\n").unwrap_err().to_string();
    assert!(err.contains("name the check too"), "{err}");
}

#[test]
fn an_intermittent_entry_is_expected_when_it_fails_and_never_stale() {
    let text = "server:\n  - id: a/race\n    intermittent: true\n    reason: a race\n";
    let mut runs = vec![scenario("a/race", "2025-06-18", vec![check("a/race", MUST, Failed)])];
    let outcome = baseline(text).apply("server", &mut runs, false);
    assert_eq!(verdicts(&runs), [v("a/race", "2025-06-18", ExpectedFailure)]);
    assert_eq!(outcome.expected, ["a/race"]);
    let mut runs = vec![scenario("a/race", "2025-06-18", vec![check("a/race", MUST, Passed)])];
    let outcome = baseline(text).apply("server", &mut runs, false);
    assert_eq!(verdicts(&runs), [v("a/race", "2025-06-18", Passed)]);
    assert!(outcome.stale.is_empty());
    assert_eq!(outcome.unexercised, ["a/race"]);
}
