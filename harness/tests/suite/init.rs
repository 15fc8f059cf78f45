//! `mcpspec init` and `mcpspec.toml`, as a developer meets them: init in a project of each
//! ecosystem (no terminal: the defaults, said), never overwriting; and the written config run,
//! with `mcpspec run` and bare `mcpspec`, against the reference server.

use crate::support::{output_within, MCPSPEC};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// `mcpspec ARGS` in `dir`, stdin empty (no terminal): exit code, stdout, stderr.
fn mcpspec_in(dir: &Path, args: &[&str], limit: Duration) -> (Option<i32>, String, String) {
    let mut cmd = Command::new(MCPSPEC);
    cmd.args(args).current_dir(dir);
    let (status, stdout, stderr) = output_within(cmd, limit, |_, _| {});
    assert!(status.is_some(), "mcpspec {args:?} did not finish within {limit:?}\n{stdout}\n{stderr}");
    (status.and_then(|s| s.code()), stdout, stderr)
}

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn init_writes_a_config_and_a_workflow_for_each_ecosystem() {
    let cases: [(&str, &str, &str, &str); 3] = [
        (
            "package.json",
            r#"{"name": "@acme/demo", "bin": {"demo": "./bin/demo.js"}}"#,
            r#"command = ["node", "./bin/demo.js"]"#,
            "command: \"node ./bin/demo.js\"",
        ),
        (
            "pyproject.toml",
            "[project]\nname = \"demo\"\n[project.scripts]\ndemo = \"demo:main\"\n",
            r#"command = ["uv", "run", "demo"]"#,
            "astral-sh/setup-uv",
        ),
        (
            "Cargo.toml",
            "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n",
            r#"command = ["cargo", "run", "--quiet", "--bin", "demo"]"#,
            "command: \"cargo run --quiet --bin demo\"",
        ),
    ];
    for (manifest, text, config_line, workflow_line) in cases {
        let dir = project(&[(manifest, text)]);
        let (code, stdout, stderr) = mcpspec_in(dir.path(), &["init"], Duration::from_secs(30));
        assert_eq!(code, Some(0), "{manifest}: {stdout}\n{stderr}");
        let config = std::fs::read_to_string(dir.path().join("mcpspec.toml")).unwrap();
        assert!(
            config.contains(config_line) && config.contains("role = \"server\""),
            "{manifest}:\n{config}"
        );
        let workflow = std::fs::read_to_string(dir.path().join(".github/workflows/mcpspec.yml")).unwrap();
        assert!(
            workflow.contains(workflow_line) && workflow.contains("uses: mcpspec/mcpspec@main"),
            "{workflow}"
        );
        // Without a terminal, what it assumed is said.
        assert!(stdout.contains("assumed: role server"), "{stdout}");
        assert!(stderr.contains(manifest), "{stderr}");

        // Never overwritten without --force.
        std::fs::write(dir.path().join("mcpspec.toml"), "# mine\n").unwrap();
        let (code, _, stderr) = mcpspec_in(dir.path(), &["init"], Duration::from_secs(30));
        assert_eq!(code, Some(2));
        assert!(stderr.contains("mcpspec.toml exists: nothing written (--force overwrites it"), "{stderr}");
        assert_eq!(std::fs::read_to_string(dir.path().join("mcpspec.toml")).unwrap(), "# mine\n");
        let (code, _, _) = mcpspec_in(dir.path(), &["init", "--force"], Duration::from_secs(30));
        assert_eq!(code, Some(0));
        assert!(std::fs::read_to_string(dir.path().join("mcpspec.toml")).unwrap().contains(config_line));
    }
    // Nothing to detect and no terminal to ask: nothing written, and how to go on.
    let empty = project(&[]);
    let (code, _, stderr) = mcpspec_in(empty.path(), &["init", "--yes"], Duration::from_secs(30));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("cannot tell how to start") && stderr.contains("nothing written"), "{stderr}");
    assert!(!empty.path().join("mcpspec.toml").exists());
}

#[test]
fn the_written_config_certifies_the_reference_server() {
    // A Node package whose bin is the reference server (through node, as a package's would be).
    let server = format!(
        "const {{ spawn }} = require('child_process');\n\
         const child = spawn({:?}, ['reference', 'server'], {{ stdio: 'inherit' }});\n\
         child.on('exit', (code) => process.exit(code ?? 1));\n",
        MCPSPEC
    );
    let dir = project(&[
        ("package.json", r#"{"name": "ref-server", "bin": "./server.js"}"#),
        ("server.js", &server),
    ]);
    let (code, stdout, stderr) =
        mcpspec_in(dir.path(), &["init", "--yes", "--no-workflow"], Duration::from_secs(30));
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(!dir.path().join(".github").exists());
    // The file as written; the command line narrows the run (flags override the file).
    let flags = [
        "run",
        "--revision",
        "2025-11-25",
        "--scenario",
        "ping/*",
        "--scenario",
        "lifecycle/initialize-result",
    ];
    let (code, stdout, stderr) = mcpspec_in(dir.path(), &flags, Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stderr.contains("certifying ref-server (server)"), "{stderr}");
    assert!(stdout.contains("certification 2025-11-25 stdio: conformant"), "{stdout}");
    let report = dir.path().join("mcpspec-report/ref-server/report.json");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert!(report["command"].as_str().unwrap().starts_with("node ./server.js"), "{}", report["command"]);
    assert_eq!(report["scenarios"].as_array().unwrap().len(), 4, "three ping scenarios and one lifecycle");

    // Bare `mcpspec` is `mcpspec run`: the file alone decides (a bad key is its error).
    let mut config = std::fs::read_to_string(dir.path().join("mcpspec.toml")).unwrap();
    config.push_str("revisions = [\"2025-06-18\"]\nscenario = [\"ping/after-initialize\"]\nstrict = true\n");
    std::fs::write(dir.path().join("mcpspec.toml"), &config).unwrap();
    let (code, stdout, stderr) = mcpspec_in(dir.path(), &[], Duration::from_secs(120));
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("certification 2025-06-18 stdio: conformant"), "{stdout}");
    std::fs::write(dir.path().join("mcpspec.toml"), config.replace("strict = true", "stirct = true"))
        .unwrap();
    let (code, _, stderr) = mcpspec_in(dir.path(), &[], Duration::from_secs(30));
    assert_eq!(code, Some(2));
    assert!(stderr.contains("unknown key `stirct`") && stderr.contains("mcpspec.toml"), "{stderr}");
}
