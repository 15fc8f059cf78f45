//! The packages of `harness/dist/pack.sh` (issue #32), installed as their users install them,
//! each certifying the reference server through the command it puts on the PATH: the wheel into
//! a fresh virtual environment (`pip install`, as `uvx` and `pipx run` do), the npm tarballs into
//! an empty project (`npx mcpspec`, exit status and all passed through the launcher), and the
//! release archive unpacked and run with an empty environment. `.ci/run` packs the build the
//! tests use and names the folder in MCPSPEC_DIST_DIR.

use crate::support::output_within;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn dist() -> PathBuf {
    PathBuf::from(
        std::env::var("MCPSPEC_DIST_DIR").expect("MCPSPEC_DIST_DIR is not set: .ci/run packs into it"),
    )
}

/// The one file in the packages' folder whose name starts with `prefix` and ends with `suffix`.
fn artefact(prefix: &str, suffix: &str) -> PathBuf {
    let found: Vec<PathBuf> = std::fs::read_dir(dist())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with(prefix) && name.ends_with(suffix)
        })
        .collect();
    assert_eq!(found.len(), 1, "{prefix}*{suffix} in {}: {found:?}", dist().display());
    found[0].clone()
}

/// Runs `cmd` (bounded) and returns its exit code with what it printed.
fn run(mut cmd: Command, limit: Duration) -> (Option<i32>, String) {
    cmd.env("NO_COLOR", "1");
    let (status, stdout, stderr) = output_within(cmd, limit, |_, _| {});
    (status.and_then(|s| s.code()), format!("{stdout}\n{stderr}"))
}

/// A certification of the reference server (the built-in default) small enough for a test:
/// one revision, the lifecycle scenarios; `extra` after it.
fn certify_args<'a>(report: &'a Path, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "server",
        "--revision",
        "2025-11-25",
        "--scenario",
        "lifecycle/*",
        "--report-dir",
        report.to_str().unwrap(),
    ];
    args.extend(extra);
    args
}

fn assert_conformant(report: &Path, log: &str) {
    let text = std::fs::read_to_string(report.join("report.json")).unwrap_or_else(|e| panic!("{e}\n{log}"));
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(report["certification"][0]["verdict"], "conformant", "{log}");
    assert!(report["summary"]["passed"].as_u64().unwrap() > 0, "{log}");
}

#[test]
#[ignore = "needs the packages: .ci/run packs them (MCPSPEC_DIST_DIR)"]
fn dist_the_wheel_installs_into_a_fresh_venv_and_certifies() {
    let wheel = artefact("mcpspec-", ".whl");
    let tmp = tempfile::tempdir().unwrap();
    let venv = tmp.path().join("venv");
    let mut cmd = Command::new("python3");
    cmd.args(["-m", "venv"]).arg(&venv);
    let (code, log) = run(cmd, Duration::from_secs(120));
    assert_eq!(code, Some(0), "{log}");
    let mut cmd = Command::new(venv.join("bin/pip"));
    cmd.args(["install", "--no-index", "--quiet"]).arg(&wheel);
    let (code, log) = run(cmd, Duration::from_secs(300));
    assert_eq!(code, Some(0), "pip install {}: {log}", wheel.display());
    let installed = venv.join("bin/mcpspec");
    let report = tmp.path().join("report");
    let mut cmd = Command::new(&installed);
    cmd.args(certify_args(&report, &[]));
    let (code, log) = run(cmd, Duration::from_secs(300));
    assert_eq!(code, Some(0), "{log}");
    assert_conformant(&report, &log);
}

#[test]
#[ignore = "needs the packages: .ci/run packs them (MCPSPEC_DIST_DIR)"]
fn dist_the_npm_packages_install_and_npx_certifies() {
    let launcher = artefact("mcpspec-0", ".tgz");
    let platform = artefact("mcpspec-linux-", ".tgz");
    let tmp = tempfile::tempdir().unwrap();
    let project = tmp.path().join("project");
    std::fs::create_dir(&project).unwrap();
    let mut cmd = Command::new("npm");
    cmd.current_dir(&project)
        .args(["install", "--no-audit", "--no-fund", "--loglevel=error"])
        .arg(&platform)
        .arg(&launcher);
    let (code, log) = run(cmd, Duration::from_secs(300));
    assert_eq!(code, Some(0), "npm install: {log}");
    let report = tmp.path().join("report");
    let mut cmd = Command::new("npx");
    cmd.current_dir(&project).args(["--no-install", "mcpspec"]).args(certify_args(&report, &[]));
    let (code, log) = run(cmd, Duration::from_secs(300));
    assert_eq!(code, Some(0), "{log}");
    assert_conformant(&report, &log);
    // A failing certification fails through the launcher too: its exit status is mcpspec's.
    let report = tmp.path().join("failing");
    let mut cmd = Command::new("npx");
    cmd.current_dir(&project).args(["--no-install", "mcpspec"]).args(certify_args(
        &report,
        &[
            "--scenario",
            "jsonrpc/*",
            "--",
            "npx",
            "--no-install",
            "mcpspec",
            "reference",
            "server",
            "--fault",
            "stringify-ids",
        ],
    ));
    let (code, log) = run(cmd, Duration::from_secs(300));
    assert_eq!(code, Some(1), "{log}");
}

#[test]
#[ignore = "needs the packages: .ci/run packs them (MCPSPEC_DIST_DIR)"]
fn dist_the_archive_runs_in_an_empty_environment() {
    let archive = artefact("mcpspec-", ".tar.gz");
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("tar");
    cmd.arg("-xzf").arg(&archive).arg("-C").arg(tmp.path());
    let (code, log) = run(cmd, Duration::from_secs(120));
    assert_eq!(code, Some(0), "{log}");
    let folder = archive.file_name().unwrap().to_string_lossy().trim_end_matches(".tar.gz").to_owned();
    let binary = tmp.path().join(&folder).join("mcpspec");
    assert!(tmp.path().join(&folder).join("README.md").exists());
    // Nothing but the C library and its kin: every shared library it needs is found.
    let mut cmd = Command::new("ldd");
    cmd.arg(&binary);
    let (_, libraries) = run(cmd, Duration::from_secs(30));
    assert!(!libraries.contains("not found"), "{libraries}");
    let report = tmp.path().join("report");
    let home = tmp.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let mut cmd = Command::new(&binary);
    cmd.env_clear().env("PATH", "/usr/bin:/bin").env("HOME", &home).args(certify_args(&report, &[]));
    let (code, log) = run(cmd, Duration::from_secs(300));
    assert_eq!(code, Some(0), "{log}");
    assert_conformant(&report, &log);
}

/// The files that name a release archive, read from the repository.
fn repo_file(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    std::fs::read_to_string(root.join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The targets the release workflow builds, from its matrix.
fn release_targets() -> Vec<String> {
    let workflow: serde_json::Value =
        yaml_serde::from_str(&repo_file(".github/workflows/release.yml")).unwrap();
    let matrix = workflow["jobs"]["archive"]["strategy"]["matrix"]["include"].as_array().expect("a matrix");
    matrix.iter().map(|m| m["target"].as_str().expect("a target").to_owned()).collect()
}

#[test]
fn release_archives_are_named_alike_by_pack_sh_the_workflow_and_binstall() {
    // What the issue asks for: Linux x86_64 and aarch64, macOS, Windows.
    let targets = release_targets();
    for wanted in ["x86_64-unknown-linux-gnu", "aarch64-unknown-linux-gnu", "apple-darwin", "windows"] {
        assert!(targets.iter().any(|t| t.contains(wanted)), "no {wanted} in {targets:?}");
    }
    let workflow = repo_file(".github/workflows/release.yml");
    assert!(
        workflow.contains("CHANNELS=archive harness/dist/pack.sh dist"),
        "the workflow packs with pack.sh"
    );
    assert!(workflow.contains("tags: [\"v*\"]"), "releases are tagged v<version>, as binstall's URL says");

    let manifest: toml::Table = toml::from_str(&repo_file("harness/Cargo.toml")).unwrap();
    let binstall = &manifest["package"]["metadata"]["binstall"];
    let (url, bin_dir) = (binstall["pkg-url"].as_str().unwrap(), binstall["bin-dir"].as_str().unwrap());
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("tgz"));

    // pack.sh run for each target, with stand-ins for cargo, rustc and the binary: the archive
    // it writes is the one binstall asks for, holding the binary where binstall looks.
    let version = "9.8.7";
    for target in &targets {
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        std::fs::create_dir_all(r.join("harness/dist")).unwrap();
        std::fs::create_dir_all(r.join("target/dist")).unwrap();
        std::fs::create_dir_all(r.join("bin")).unwrap();
        std::fs::write(r.join("harness/dist/pack.sh"), repo_file("harness/dist/pack.sh")).unwrap();
        std::fs::write(r.join("README.md"), "readme").unwrap();
        let exe = if target.contains("windows") { ".exe" } else { "" };
        let script = |path: PathBuf, body: &str| {
            std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        };
        script(r.join(format!("target/dist/mcpspec{exe}")), &format!("echo mcpspec {version}"));
        script(r.join("bin/cargo"), "exit 0");
        script(r.join("bin/rustc"), &format!("echo 'host: {target}'"));
        let out = r.join("out");
        let mut cmd = Command::new("bash");
        cmd.arg(r.join("harness/dist/pack.sh")).arg(&out).env("CHANNELS", "archive").env(
            "PATH",
            format!("{}:{}", r.join("bin").display(), std::env::var("PATH").unwrap_or_default()),
        );
        let (code, log) = run(cmd, Duration::from_secs(30));
        assert_eq!(code, Some(0), "{target}: {log}");

        let render = |template: &str| {
            template
                .replace("{ repo }", "https://github.com/mcpspec/mcpspec")
                .replace("{ version }", version)
                .replace("{ target }", target)
                .replace("{ archive-suffix }", ".tar.gz")
                .replace("{ bin }", "mcpspec")
                .replace("{ binary-ext }", exe)
        };
        let url = render(url);
        assert!(
            url.starts_with(&format!("https://github.com/mcpspec/mcpspec/releases/download/v{version}/")),
            "{url}"
        );
        let archive = out.join(url.rsplit('/').next().unwrap());
        assert!(archive.is_file(), "{target}: pack.sh did not write {} ({log})", archive.display());
        let (code, listing) = run(
            {
                let mut tar = Command::new("tar");
                tar.arg("-tzf").arg(&archive);
                tar
            },
            Duration::from_secs(10),
        );
        assert_eq!(code, Some(0), "{listing}");
        assert!(
            listing.lines().any(|l| l == render(bin_dir)),
            "{target}: {} not in {listing}",
            render(bin_dir)
        );
    }
}

/// `harness/dist/container.sh OUT` with `env`, no container runtime (the static checks): its
/// exit code and what it printed.
fn container_sh(out: &Path, env: &[(&str, &Path)]) -> (Option<i32>, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("dist/container.sh");
    let mut cmd = Command::new("bash");
    cmd.arg(script).arg(out).env("CONTAINER_RUNTIME", "none");
    for (k, v) in env {
        cmd.env(k, v);
    }
    run(cmd, Duration::from_secs(30))
}

/// A folder as pack.sh leaves it: the Linux archive of version 9.8.7, holding `inside`.
fn packed(inside: &str) -> tempfile::TempDir {
    let out = tempfile::tempdir().unwrap();
    let name = "mcpspec-9.8.7-x86_64-unknown-linux-gnu";
    let stage = out.path().join("stage");
    std::fs::create_dir_all(stage.join(name)).unwrap();
    std::fs::write(stage.join(name).join(inside), "binary").unwrap();
    let status = Command::new("tar")
        .arg("-czf")
        .arg(out.path().join(format!("{name}.tar.gz")))
        .arg("-C")
        .arg(&stage)
        .arg(name)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::remove_dir_all(stage).unwrap();
    out
}

#[test]
fn container_sh_holds_the_dockerfile_to_pack_sh_and_a_pinned_base() {
    let out = packed("mcpspec");
    let (code, log) = container_sh(out.path(), &[]);
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("debian:12.8-slim: pinned") && log.contains("ADDs pack.sh's archive"), "{log}");
    assert!(log.contains("holds mcpspec-9.8.7-x86_64-unknown-linux-gnu/mcpspec (version 9.8.7"), "{log}");
    assert!(log.contains("checked the Dockerfile statically only"), "{log}");
    // Demanded, a build that cannot happen fails.
    let (code, log) = container_sh(out.path(), &[("CONTAINER_REQUIRED", Path::new("1"))]);
    assert_eq!(code, Some(1), "{log}");

    // What it refuses: an archive without the binary, a floating base, another archive name.
    let (code, log) = container_sh(packed("README.md").path(), &[]);
    assert_eq!(code, Some(1), "{log}");
    assert!(log.contains("does not hold mcpspec-9.8.7-x86_64-unknown-linux-gnu/mcpspec"), "{log}");
    let dockerfile =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("dist/Dockerfile")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (from, to, says) in [
        ("ARG BASE=debian:12.8-slim", "ARG BASE=debian:bookworm-slim", "is not pinned"),
        ("ARG BASE=debian:12.8-slim", "ARG BASE=debian:latest", "latest moves"),
        ("ADD mcpspec-${VERSION}-${TARGET}.tar.gz", "ADD mcpspec-${TARGET}.tar.gz", "but pack.sh writes"),
        ("/opt/mcpspec-${VERSION}-${TARGET}/mcpspec", "/opt/mcpspec/mcpspec", "but pack.sh's archive holds"),
    ] {
        assert!(dockerfile.contains(from), "the Dockerfile has no {from:?}");
        let changed = dir.path().join("Dockerfile");
        std::fs::write(&changed, dockerfile.replace(from, to)).unwrap();
        let (code, log) = container_sh(out.path(), &[("DOCKERFILE", &changed)]);
        assert_eq!(code, Some(1), "{to}: {log}");
        assert!(log.contains(says), "{to}: {log}");
    }
}
