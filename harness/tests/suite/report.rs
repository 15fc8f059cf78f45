//! The report a human and a CI read: its shape is pinned by a snapshot.

use crate::support::*;
use std::time::Duration;

/// A small suite of its own, so the snapshot does not change with the product's scenarios.
const SCENARIOS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/suite/scenarios");

#[test]
fn report_json_shape() {
    // A failing run shows every part of a report: checks of both kinds, transcript, shutdown.
    let run = run(
        &[
            "server",
            "--revision",
            "2025-06-18",
            "--timeout",
            "2",
            "--scenarios",
            SCENARIOS,
            "--",
            MCPSPEC,
            "reference",
            "server",
            "--fault",
            "stringify-ids",
        ],
        true,
        Duration::from_secs(60),
    );
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let report = run.report.clone().unwrap();
    insta::assert_json_snapshot!(report, {
        ".duration_ms" => "[ms]",
        ".started_at" => "[time]",
        ".scenario_set.source" => "[dir]",
        ".command" => "[command]",
        ".scenarios[].transcript[].at_ms" => "[ms]",
        ".mcpspec.version" => "[version]",
        ".scenarios[].duration_ms" => "[ms]",
    });
}
