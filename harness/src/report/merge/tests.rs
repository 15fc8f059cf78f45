//! A run judged whole and the same run judged in shards then merged give the same report; shards
//! of different runs are refused, saying what differs.

use super::*;
use crate::judge::verdict::Level::{MUST, SHOULD};
use crate::judge::verdict::Verdict::{Failed, Passed, Warning};
use crate::report::baseline::Baseline;
use crate::report::tests::{check, info, scenario};
use crate::report::{Policy, Report};
use serde_json::Value;

const A: &str = "2025-06-18";
const B: &str = "2025-11-25";

/// An id whose runs at A and B fall in different shards of 3 (so one baseline entry is used in
/// one shard and would look stale in the other), with `prefix`.
fn split_id(prefix: &str) -> String {
    (0..)
        .map(|i| format!("{prefix}-{i}"))
        .find(|id| Shard::of(id, A, 3) != Shard::of(id, B, 3))
        .expect("some id splits")
}

/// Forty runs at two revisions with every verdict the wire gives, in suite order.
fn raw() -> (Vec<ScenarioReport>, String) {
    let split = split_id("known/fails-at-a");
    let mut runs = Vec::new();
    for i in 0..20usize {
        for (r, revision) in [A, B].into_iter().enumerate() {
            let id = match i {
                0 => split.clone(),
                _ => format!("area/scenario-{i}"),
            };
            let checks = match (i % 5, i, revision) {
                (_, 0, A) => vec![check(&id, MUST, Failed)],
                (_, 0, _) => vec![check(&id, MUST, Passed)],
                (0, ..) => vec![check(&id, MUST, Passed), check("jsonrpc/id", MUST, Failed)],
                (1, ..) => vec![check(&id, SHOULD, Warning)],
                (2, ..) => vec![],
                _ => vec![check(&id, MUST, Passed)],
            };
            let mut s = scenario(&id, revision, checks);
            s.order = (i / 7, 10 + i, r);
            runs.push(s);
        }
    }
    (runs, split)
}

fn baseline(split: &str) -> Baseline {
    let text = format!(
        "server:\n  - {split}\n  - area/scenario-5\n  - area/scenario-6\n  - area/scenario-8\n  - id: area/scenario-1\n    revision: {B}\n  - area/never-ran\n"
    );
    Baseline::parse(std::path::Path::new("known.yaml"), &text).unwrap()
}

fn whole(strict: bool) -> Report {
    let (runs, split) = raw();
    let baseline = baseline(&split);
    let mut info = info(&[A, B]);
    info.scenario_set.as_mut().unwrap().scenarios = runs.len();
    Report::new(info, runs, &Policy { baseline: Some(&baseline), strict, shard: false })
}

/// The reports of the run's three shards, as `report.json` holds them.
fn shard_reports(strict: bool) -> Vec<(PathBuf, ShardReport)> {
    let (runs, split) = raw();
    let baseline = baseline(&split);
    (1..=3)
        .map(|index| {
            let shard = Shard { index, count: 3 };
            let mine: Vec<ScenarioReport> =
                runs.iter().filter(|s| shard.holds(&s.id, &s.revision)).cloned().collect();
            let mut info = info(&[A, B]);
            info.scenario_set.as_mut().unwrap().scenarios = mine.len();
            let policy = Policy { baseline: Some(&baseline), strict, shard: true };
            let mut report = Report::new(info, mine, &policy);
            ShardInfo::stamp(&mut report, shard, strict, Some(&baseline));
            let text = serde_json::to_string(&report).unwrap();
            (PathBuf::from(format!("shard-{index}/report.json")), serde_json::from_str(&text).unwrap())
        })
        .collect()
}

fn merged(shards: Vec<(PathBuf, ShardReport)>) -> Report {
    let merged = merge(shards).unwrap();
    let (_, split) = raw();
    let baseline = baseline(&split);
    assert_eq!(merged.baseline.as_ref().map(|b| b.sha256.clone()), Some(baseline.sha256.clone()));
    let policy = Policy { baseline: Some(&baseline), strict: merged.strict, shard: false };
    Report::new(merged.info, merged.scenarios, &policy)
}

#[test]
fn three_shards_merged_are_the_whole_run() {
    for strict in [false, true] {
        let whole = whole(strict);
        let mut merged = merged(shard_reports(strict));
        // What the three shards cost is their sum, not the whole run's: the one field apart.
        assert_eq!(merged.cost, crate::report::Cost::new(3 * 1234, 3 * 7, 3 * 310, Some(3 * 2_100), None));
        merged.cost = whole.cost.clone();
        // Every other field: the scenarios in suite order with their verdicts and baseline marks, the
        // certification, the summary, the baseline's outcome (stale across shards), the facts.
        assert_eq!(
            serde_json::to_value(&merged).unwrap(),
            serde_json::to_value(&whole).unwrap(),
            "strict {strict}"
        );
        assert_eq!(merged.exit_code(), whole.exit_code());
        // What makes the case: an entry used in one shard looked stale in another, and the
        // whole run has one stale entry, which no single shard judged.
        let outcome = whole.baseline.as_ref().unwrap();
        assert_eq!(outcome.stale, vec!["area/scenario-8"], "strict {strict}");
        assert!(outcome.expected.iter().any(|e| e.starts_with("known/fails-at-a")));
    }
}

#[test]
fn a_shard_judges_no_entry_stale() {
    let shards = shard_reports(false);
    for (_, s) in &shards {
        assert!(s
            .scenarios
            .iter()
            .all(|s| s.baseline.as_ref().is_none_or(|b| b.status != crate::report::BaselineStatus::Stale)));
    }
}

#[test]
fn undoing_a_shards_policy_gives_back_what_the_wire_gave() {
    for strict in [false, true] {
        let (runs, _) = raw();
        for (_, shard) in shard_reports(strict) {
            for s in shard.scenarios {
                let mut back = s.clone();
                as_judged_on_the_wire(&mut back);
                let original = runs.iter().find(|r| r.id == s.id && r.revision == s.revision).unwrap();
                let mut original = original.clone();
                original.order = (0, 0, 0);
                for c in &mut back.checks {
                    c.clauses.clear();
                }
                assert_eq!(back, original, "strict {strict}");
            }
        }
    }
}

fn refused(shards: Vec<(PathBuf, ShardReport)>) -> String {
    match merge(shards) {
        Ok(_) => panic!("merged shards it should have refused"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn shards_of_different_runs_are_refused_saying_what_differs() {
    let mut shards = shard_reports(false);
    shards[1].1.command = "node other.js".to_owned();
    let why = refused(shards);
    assert!(
        why.contains("the implementation: ") && why.contains("node other.js") && why.contains("shard-2"),
        "{why}"
    );

    let mut shards = shard_reports(false);
    shards[2].1.revisions.pop();
    assert!(refused(shards).contains("the revisions: "));

    let mut shards = shard_reports(false);
    shards[0].1.mcpspec.version = "0.0.1".to_owned();
    let why = refused(shards);
    assert!(why.contains("written by mcpspec 0.0.1"), "{why}");

    let mut shards = shard_reports(false);
    shards[1].1.shard.as_mut().unwrap().strict = true;
    assert!(refused(shards).contains("--strict: false in"));

    let mut shards = shard_reports(false);
    shards[1].1.shard.as_mut().unwrap().baseline.as_mut().unwrap().sha256 = "0".repeat(64);
    assert!(refused(shards).contains("the baseline: known.yaml"));
}

#[test]
fn missing_overlapping_and_whole_reports_are_refused() {
    let mut shards = shard_reports(false);
    shards.remove(1);
    let why = refused(shards);
    assert!(why.contains("shard(s) 2 of 3 missing"), "{why}");

    let mut shards = shard_reports(false);
    let again = shard_reports(false).remove(0);
    shards.push((PathBuf::from("copy/report.json"), again.1));
    let why = refused(shards);
    assert!(why.contains("shard 1/3 is given twice") && why.contains("copy/report.json"), "{why}");

    let mut shards = shard_reports(false);
    shards[0].1.shard = None;
    assert!(refused(shards).contains("the report of a whole run"));

    // A run moved to another shard's report: it is not that shard's.
    let mut shards = shard_reports(false);
    let moved = shards[0].1.scenarios.pop().unwrap();
    let order = shards[0].1.shard.as_mut().unwrap().order.pop().unwrap();
    shards[1].1.scenarios.push(moved);
    shards[1].1.shard.as_mut().unwrap().order.push(order);
    let why = refused(shards);
    assert!(why.contains("belongs to shard 1/3, not to shard 2/3"), "{why}");

    assert!(refused(Vec::new()).contains("no report directory"));
}

#[test]
fn a_report_mcpspec_did_not_write_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("report.json"), r#"{"mcpspec":{"version":"x"}}"#).unwrap();
    let why = read(&[dir.path().to_owned()]).err().unwrap().to_string();
    assert!(why.contains("is not an mcpspec report") && why.contains("report.json"), "{why}");
    let why = read(&[dir.path().join("nowhere")]).err().unwrap().to_string();
    assert!(why.contains("cannot read") && why.contains("--report-dir"), "{why}");
    let value: Value = serde_json::to_value(whole(false)).unwrap();
    std::fs::write(dir.path().join("report.json"), value.to_string()).unwrap();
    assert!(read(&[dir.path().to_owned()]).err().unwrap().to_string().contains("whole run"));
}
