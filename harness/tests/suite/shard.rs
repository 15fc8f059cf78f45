//! `--shard I/N` and `mcpspec merge`: the reference server's certification (with a fault and
//! `--strict`, so that there are failures, and a baseline, with an entry expected at one
//! revision and one stale over the whole run, which no shard may say alone) run whole and in
//! three shards gives, merged, the same verdict for every run, the same certification, baseline
//! outcome and exit code. Shards of different runs are refused.

use crate::support::{assert_report_schema, run, Run, MCPSPEC};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

/// The reference server with `accept-invalid-cursor` (a SHOULD broken in the four
/// `pagination/invalid-cursor` examples), under `--strict`, at two revisions, a part of the
/// suite whose verdicts no timing decides (four runs at once load the machine): a few seconds.
fn certify(baseline: &str, extra: &[&str]) -> Run {
    let mut args =
        vec!["server", "--revision", "2025-06-18", "--revision", "2025-11-25", "--no-sweep", "--strict"];
    for area in
        ["pagination/*", "ping/*", "version/*", "prompts/*", "resources/*", "tools/*", "jsonrpc/id-echo*"]
    {
        args.extend(["--scenario", area]);
    }
    args.extend(["--expected-failures", baseline]);
    args.extend(extra);
    args.extend(["--", MCPSPEC, "reference", "server", "--fault", "accept-invalid-cursor"]);
    run(&args, true, Duration::from_secs(120))
}

fn verdicts(report: &Value) -> BTreeMap<(String, String), Value> {
    report["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| ((s["id"].as_str().unwrap().to_owned(), s["revision"].to_string()), s["verdict"].clone()))
        .collect()
}

fn certification(report: &Value) -> Vec<(Value, Value)> {
    let all = report["certification"].as_array().unwrap();
    all.iter().map(|c| (c["revision"].clone(), c["verdict"].clone())).collect()
}

fn merge(dirs: &[&Path], out: &Path) -> (Option<i32>, String, String) {
    let mut cmd = std::process::Command::new(MCPSPEC);
    cmd.arg("merge").args(dirs).arg("--report-dir").arg(out);
    let (status, stdout, stderr) = crate::support::output_within(cmd, Duration::from_secs(30), |_, _| {});
    (status.and_then(|s| s.code()), stdout, stderr)
}

#[test]
fn three_shards_merged_certify_as_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    let baseline = dir.path().join("baseline.yaml");
    // Expected at one revision only (the other's failures are not), and one that passes.
    let text =
        "server:\n  - id: pagination/invalid-cursor\n    revision: 2025-06-18\n  - ping/after-initialize\n";
    std::fs::write(&baseline, text).unwrap();
    let baseline = baseline.display().to_string();
    let baseline = baseline.as_str();
    let (whole, shards) = std::thread::scope(|s| {
        let whole = s.spawn(move || certify(baseline, &[]));
        let shards: Vec<_> = ["1/3", "2/3", "3/3"]
            .map(|i| s.spawn(move || certify(baseline, &["--shard", i])))
            .into_iter()
            .collect();
        (whole.join().unwrap(), shards.into_iter().map(|h| h.join().unwrap()).collect::<Vec<_>>())
    });
    let whole_report = whole.report.as_ref().unwrap_or_else(|| panic!("{}", whole.describe()));
    let all = verdicts(whole_report);
    for verdict in ["failed", "passed", "expected_failure"] {
        assert!(all.values().any(|v| v == verdict), "no {verdict} in {all:?}");
    }

    // Each run is in exactly one shard, and the shards together ran them all.
    let mut union = BTreeMap::new();
    for (i, shard) in shards.iter().enumerate() {
        let report = shard.report.as_ref().unwrap_or_else(|| panic!("{}", shard.describe()));
        assert_eq!(report["shard"]["index"], i + 1);
        assert_eq!(report["shard"]["count"], 3);
        let mine = verdicts(report);
        assert!(
            !mine.is_empty() && mine.len() < all.len(),
            "shard {}: {} of {}",
            i + 1,
            mine.len(),
            all.len()
        );
        for (run, _) in mine {
            assert!(union.insert(run.clone(), i).is_none(), "{run:?} ran in two shards");
        }
        // No shard judges an entry stale: one may fail in another shard.
        assert_eq!(report["summary"]["stale"], 0, "{}", shard.describe());
    }
    assert_eq!(union.keys().collect::<Vec<_>>(), all.keys().collect::<Vec<_>>());

    let out = dir.path().join("merged");
    let dirs: Vec<&Path> = shards.iter().map(|s| s.report_dir.path()).collect();
    let (code, stdout, stderr) = merge(&dirs, &out);
    let merged: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("report.json")).unwrap()).unwrap();
    assert_report_schema(&merged);
    assert_eq!(code, whole.code, "{stdout}\n{stderr}");
    assert_eq!(verdicts(&merged), all);
    assert_eq!(certification(&merged), certification(whole_report));
    assert_eq!(merged["summary"], whole_report["summary"]);
    assert_eq!(merged["baseline"], whole_report["baseline"]);
    assert_eq!(whole_report["baseline"]["stale"], serde_json::json!(["ping/after-initialize"]));
    assert!(merged.get("shard").is_none(), "the merged report is the whole run's");
    // In suite order, as the whole run lists them.
    let ids =
        |r: &Value| r["scenarios"].as_array().unwrap().iter().map(|s| s["id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&merged), ids(whole_report));
    for name in ["junit.xml", "report.html", "summary.md", "badge.json"] {
        assert!(out.join(name).is_file(), "{name} missing");
    }
    assert!(stdout.contains("certification 2025-06-18 stdio:"), "{stdout}");

    // Two of three shards, a shard twice, or a whole run's report: usage errors saying which.
    let (code, _, stderr) = merge(&dirs[..2], &dir.path().join("x"));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("shard(s) 3 of 3 missing"), "{stderr}");
    let (code, _, stderr) = merge(&[dirs[0], dirs[1], dirs[2], dirs[1]], &dir.path().join("x"));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("shard 2/3 is given twice"), "{stderr}");
    let (code, _, stderr) = merge(&[whole.report_dir.path()], &dir.path().join("x"));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("the report of a whole run"), "{stderr}");
    assert!(!dir.path().join("x").exists(), "nothing is written when the shards do not merge");
}

#[test]
fn a_bad_shard_is_a_usage_error() {
    for bad in ["0/3", "4/3", "3"] {
        let run = run(&["server", "--shard", bad], false, Duration::from_secs(30));
        assert_eq!(run.code, Some(2), "{}", run.describe());
        assert!(run.stderr.contains("expected I/N"), "{}", run.stderr);
    }
}
