//! The GitHub Action (`action.yml`, its logic in `harness/action/`): the certification step run
//! as Actions runs it, with its inputs as INPUT_* variables and the GITHUB_* files it writes,
//! against the reference server (clean: the step passes; with a planted fault: it fails, and
//! writes its outputs all the same); and every input of `action.yml` reaches the step.

use crate::support::{output_within, MCPSPEC};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// Runs `harness/action/run.sh` with `inputs`; its exit code, the outputs it wrote, the summary
/// it appended, and the report directory.
fn certify(inputs: &[(&str, String)]) -> (Option<i32>, String, String, tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let (outputs, summary) = (dir.path().join("output"), dir.path().join("summary"));
    let reports = dir.path().join("reports");
    let mut cmd = Command::new("bash");
    cmd.arg(root().join("harness/action/run.sh"))
        .env("MCPSPEC_BIN", MCPSPEC)
        .env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("INPUT_REPORT_DIR", &reports);
    for (k, v) in inputs {
        cmd.env(format!("INPUT_{k}"), v);
    }
    let (status, stdout, stderr) = output_within(cmd, Duration::from_secs(120), |_, _| {});
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    (status.and_then(|s| s.code()), read(&outputs), read(&summary), dir, format!("{stdout}\n{stderr}"))
}

fn inputs(fault: Option<&str>) -> Vec<(&'static str, String)> {
    let command = match fault {
        Some(f) => format!("'{MCPSPEC}' reference server --fault {f}"),
        None => format!("'{MCPSPEC}' reference server"),
    };
    vec![
        ("ROLE", "server".into()),
        ("COMMAND", command),
        ("REVISIONS", "2025-06-18, 2025-11-25".into()),
        ("ARGS", "--scenario lifecycle/* --scenario ping/* -j 4".into()),
    ]
}

#[test]
fn the_action_certifies_a_server_and_reports_to_the_job() {
    let (code, outputs, summary, dir, log) = certify(&inputs(None));
    assert_eq!(code, Some(0), "{log}");
    assert!(outputs.contains("exit-code=0\n"), "{outputs}");
    assert!(outputs.contains("badge=2025-06-18 ✓ · 2025-11-25 ✓\n"), "{outputs}");
    assert!(summary.contains("## mcpspec server: ✅ passes"), "{summary}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("reports/report.json")).unwrap())
            .unwrap();
    let revisions: Vec<&str> =
        report["certification"].as_array().unwrap().iter().map(|c| c["revision"].as_str().unwrap()).collect();
    assert_eq!(revisions, ["2025-06-18", "2025-11-25"], "the revisions input was read");
    assert!(
        report["scenarios"].as_array().unwrap().iter().all(|s| {
            let id = s["id"].as_str().unwrap();
            id.starts_with("lifecycle/") || id.starts_with("ping/")
        }),
        "the args input was passed"
    );
}

#[test]
fn the_action_fails_on_a_broken_must_and_still_writes_its_outputs() {
    let (code, outputs, summary, _dir, log) = certify(&inputs(Some("stringify-ids")));
    assert_eq!(code, Some(1), "{log}");
    assert!(outputs.contains("exit-code=1\n") && outputs.contains("✗"), "{outputs}");
    assert!(summary.contains("❌ fails"), "{summary}");
    let (code, _, _, _, log) = certify(&[("ROLE", "both".into())]);
    assert_eq!(code, Some(2), "a role that is neither: a usage error\n{log}");
}

#[test]
fn every_input_of_the_action_reaches_its_step() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let action: serde_json::Value = yaml_serde::from_str(&text).expect("action.yml parses");
    let script = std::fs::read_to_string(root().join("harness/action/run.sh")).unwrap();
    let steps = action["runs"]["steps"].as_array().expect("a composite action's steps");
    let certify = steps.iter().find(|s| s["id"] == "certify").expect("the certify step");
    for (name, _) in action["inputs"].as_object().unwrap() {
        if name == "upload" {
            // Read by the upload step itself.
            assert!(text.contains("inputs.upload"), "upload is read");
            continue;
        }
        let var = format!("INPUT_{}", name.to_uppercase().replace('-', "_"));
        assert_eq!(
            certify["env"][&var],
            format!("${{{{ inputs.{name} }}}}"),
            "action.yml passes {name} to the step as {var}"
        );
        assert!(script.contains(&var), "run.sh reads {var}");
    }
    for (name, _) in action["outputs"].as_object().unwrap() {
        assert!(script.contains(&format!("echo \"{name}=")), "run.sh writes the output {name}");
    }
}
