//! Hostile implementations: the run still ends within its timeout with a clear verdict, and no
//! process is left behind.

use crate::support::*;
use std::time::Duration;

fn hostile(fault: &str) -> Run {
    let run = certify_reference(
        Some(fault),
        &["--timeout", "1", "--revision", "2025-06-18", "-j", "16"],
        Duration::from_secs(60),
    );
    assert_no_leftovers(&run.marker);
    run
}

#[test]
fn a_server_that_crashes_at_start_fails_with_its_stderr() {
    let run = hostile("crash-at-start");
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert_eq!(run.summary("passed"), 0);
    let c = run.checks().into_iter().find(|(id, _, _)| id == "lifecycle/initialize-result").unwrap().2;
    assert!(c["actual"].as_str().unwrap().contains("exited with status 1"), "{c}");
    assert!(run.stdout.contains("crash-at-start"), "stderr tail shown: {}", run.stdout);
}

#[test]
fn a_server_that_hangs_fails_each_scenario_within_the_timeout() {
    let run = hostile("hang");
    assert_eq!(run.code, Some(1), "{}", run.describe());
    assert_eq!(run.summary("passed"), 0);
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
    let c = run.checks().into_iter().find(|(id, _, _)| id == "ping/before-initialize").unwrap().2;
    assert_eq!(c["actual"], "no response within 1s");
}

#[test]
fn a_server_that_floods_stdout_is_bounded() {
    let run = hostile("flood");
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let flood: Vec<_> =
        run.checks().into_iter().filter(|(_, _, c)| c["id"] == "stdio/stdout-only-mcp").collect();
    assert!(!flood.is_empty());
    assert!(flood.iter().any(|(_, _, c)| c["actual"].as_str().unwrap().contains("more like it")));
    assert!(run.elapsed < Duration::from_secs(30), "{:?}", run.elapsed);
}

#[test]
fn a_server_that_ignores_sigterm_is_killed_and_reported() {
    let run = hostile("ignore-sigterm");
    assert_eq!(run.code, Some(0), "a SHOULD is a warning\n{}", run.describe());
    let c = run.checks().into_iter().find(|(id, _, _)| id == "lifecycle/exit-on-stdin-close").unwrap().2;
    assert_eq!(c["verdict"], "warning");
    assert!(c["actual"].as_str().unwrap().contains("needed SIGKILL"), "{c}");
}

#[test]
fn a_server_that_spawns_a_grandchild_leaves_nothing_behind() {
    let run = hostile("spawn-grandchild");
    assert_eq!(run.code, Some(0), "{}", run.describe());
}
