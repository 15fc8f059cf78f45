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
        ".cost.wall_ms" => "[ms]",
        ".cost.starts" => "[n]",
        ".cost.mcpspec_cpu_ms" => "[ms]",
        ".cost.implementation_cpu_ms" => "[ms]",
        ".cost.implementation_cpu_per_start_ms" => "[ms]",
    });
    // What the redactions hide: the figures a run over stdio measures.
    let cost = &report["cost"];
    assert!(cost["starts"].as_u64().is_some_and(|n| n >= 1), "{cost}");
    assert!(cost["implementation_cpu_ms"].as_u64().is_some_and(|ms| ms > 0), "{cost}");
    assert!(cost["mcpspec_cpu_ms"].as_u64().is_some_and(|ms| ms > 0), "{cost}");
    assert!(cost.get("implementation_cpu_unknown").is_none(), "{cost}");
    let line = format!(
        "cost: {:.1} s wall, {} process",
        cost["wall_ms"].as_u64().unwrap() as f64 / 1000.0,
        cost["starts"]
    );
    assert!(run.stdout.contains(&line), "the console's closing lines say the cost: {}", run.stdout);
}

/// A server given by URL runs outside mcpspec: its CPU is unknown, and the report says so
/// rather than 0.
#[test]
fn the_cpu_of_a_server_at_a_url_is_unknown() {
    let server = ServedReference::start(&[]);
    let args = ["server", "--url", &server.url, "--revision", "2025-06-18", "--scenarios", SCENARIOS];
    let run = run(&args, true, Duration::from_secs(120));
    let report = run.report.as_ref().unwrap_or_else(|| panic!("{}", run.describe()));
    let cost = &report["cost"];
    assert!(
        cost["implementation_cpu_ms"].is_null() && cost["implementation_cpu_per_start_ms"].is_null(),
        "{cost}"
    );
    assert_eq!(cost["starts"], 0, "{cost}");
    assert_eq!(cost["implementation_cpu_unknown"], "the server at the URL runs outside mcpspec");
    assert!(
        run.stdout.contains("the implementation unknown (the server at the URL runs outside mcpspec)"),
        "{}",
        run.stdout
    );
}

/// `mcpspec server --report-dir` with a fault at one revision, over the lifecycle scenarios:
/// passes (none: every answer's id is a string), failures, and skips at a revision the server
/// does not speak — in every format.
fn lifecycle_run(extra: &[&str]) -> Run {
    let mut args = vec![
        "server",
        "--revision",
        "2025-06-18",
        "--timeout",
        "3",
        "--scenario",
        "lifecycle/*",
        "--scenario",
        "ping/*",
    ];
    args.extend(extra);
    args.extend(["--", MCPSPEC, "reference", "server", "--fault", "stringify-ids"]);
    run(&args, true, Duration::from_secs(120))
}

#[test]
fn every_format_is_written_and_reads_as_its_consumers_read_it() {
    let run = lifecycle_run(&[]);
    assert_eq!(run.code, Some(1), "{}", run.describe());
    let dir = run.report_dir.path();
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["badge.json", "junit.xml", "report.html", "report.json", "summary.md"]);
    let report = run.report.as_ref().unwrap();
    assert_eq!(report["certification"][0]["verdict"], "not_conformant");
    assert_eq!(report["scenario_set"]["selection"]["scenario"], serde_json::json!(["lifecycle/*", "ping/*"]));
    let ran = report["scenarios"].as_array().unwrap();
    assert!(ran.iter().all(|s| {
        let id = s["id"].as_str().unwrap();
        id.starts_with("lifecycle/") || id.starts_with("ping/")
    }));
    // A JUnit consumer reads one suite, a testcase per scenario, the failures counted.
    let junit = std::fs::read(dir.join("junit.xml")).unwrap();
    let suites = junit_parser::from_reader(std::io::Cursor::new(junit)).expect("junit.xml parses");
    assert_eq!(suites.suites.len(), 1);
    let suite = &suites.suites[0];
    assert_eq!(suite.cases.len(), ran.len());
    assert_eq!(suite.failures as u64, run.summary("failed"));
    let failed = suite.cases.iter().find(|c| c.status.is_failure()).expect("a failing testcase");
    let text = failed.status.failure_as_ref().text.clone();
    assert!(
        text.contains("jsonrpc/response-id-matches-request")
            && text.contains("docs/specification/2025-06-18/"),
        "{text}"
    );
    // shields.io reads the badge: its four members, the failing revision named, red.
    let badge: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("badge.json")).unwrap()).unwrap();
    assert_eq!(badge["schemaVersion"], 1);
    assert_eq!(badge["color"], "red", "{badge}");
    assert!(badge["label"].as_str().unwrap().contains("server"), "{badge}");
    let failing = report["certification"][0]["revision"].as_str().unwrap();
    assert!(badge["message"].as_str().unwrap().contains(&format!("{failing} ✗")), "{badge}");
    let summary = std::fs::read_to_string(dir.join("summary.md")).unwrap();
    assert!(summary.contains("❌ not conformant") && summary.contains("### Failures"), "{summary}");
    let html = std::fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.contains("not conformant"), "the verdict is in the page without script");
    // The console says the same.
    assert!(run.stdout.contains("certification 2025-06-18 stdio: not conformant"), "{}", run.stdout);
}

/// Writes `text` as a baseline file beside the run.
fn baseline(text: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("baseline.yaml");
    std::fs::write(&path, text).unwrap();
    let path = path.display().to_string();
    (dir, path)
}

#[test]
fn a_baseline_turns_known_failures_green_and_fails_on_new_and_stale_ones() {
    // Every scenario the fault fails, listed as the official suite lists them (plain ids).
    let first = lifecycle_run(&[]);
    let failed: Vec<String> = first.report.as_ref().unwrap()["scenarios"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["verdict"] == "failed")
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(failed.len() >= 3, "{}", first.describe());
    let all = format!("server:\n{}", failed.iter().map(|id| format!("  - {id}\n")).collect::<String>());
    let (_keep, path) = baseline(&all);
    let known = lifecycle_run(&["--expected-failures", &path]);
    assert_eq!(known.code, Some(0), "{}", known.describe());
    assert_eq!(known.summary("expected_failures") as usize, failed.len());
    assert_eq!(known.summary("failed"), 0);
    // The certification does not move: a known failure is still one.
    assert_eq!(known.report.as_ref().unwrap()["certification"][0]["verdict"], "not_conformant");

    // One failure left out of the baseline fails the run.
    let fewer =
        format!("server:\n{}", failed[1..].iter().map(|id| format!("  - {id}\n")).collect::<String>());
    let (_keep, path) = baseline(&fewer);
    let unlisted = lifecycle_run(&["--expected-failures", &path]);
    assert_eq!(unlisted.code, Some(1), "{}", unlisted.describe());
    assert_eq!(unlisted.summary("failed"), 1);

    // The same baseline against the server without the fault: every entry is stale.
    let (_keep, path) = baseline(&all);
    let args = ["server", "--revision", "2025-06-18", "--scenario", "lifecycle/*", "--scenario", "ping/*"];
    let tail = ["--expected-failures", &path, "--", MCPSPEC, "reference", "server"];
    let fixed = run(&[&args[..], &tail].concat(), true, Duration::from_secs(120));
    assert_eq!(fixed.code, Some(1), "{}", fixed.describe());
    assert_eq!(fixed.summary("stale") as usize, failed.len());
    assert!(fixed.stdout.contains("no longer fails"), "{}", fixed.stdout);
}

#[test]
fn strict_fails_a_broken_should() {
    // unknown-tool-is-error-result breaks tools/unknown-tool, a SHOULD.
    let args = |strict: bool| {
        let mut a = vec!["server", "--revision", "2025-11-25", "--scenario", "tools/unknown-tool"];
        if strict {
            a.push("--strict");
        }
        a.extend(["--", MCPSPEC, "reference", "server", "--fault", "unknown-tool-is-error-result"]);
        run(&a, true, Duration::from_secs(60))
    };
    let lenient = args(false);
    assert_eq!(lenient.code, Some(0), "{}", lenient.describe());
    assert_eq!(lenient.report.as_ref().unwrap()["certification"][0]["verdict"], "conformant_with_warnings");
    let strict = args(true);
    assert_eq!(strict.code, Some(1), "{}", strict.describe());
    assert_eq!(strict.report.as_ref().unwrap()["certification"][0]["verdict"], "not_conformant");
}

#[test]
fn a_selection_that_matches_nothing_is_a_usage_error() {
    let run = run(&["server", "--scenario", "no-such/*", "--tag", "nowhere"], false, Duration::from_secs(30));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    assert!(run.stderr.contains("no server scenario matches"), "{}", run.stderr);
    let bad = run_baseline_error("servers:\n  - a\n");
    assert!(bad.contains("is not a baseline"), "{bad}");
}

fn run_baseline_error(text: &str) -> String {
    let (_keep, path) = baseline(text);
    let run = run(&["server", "--expected-failures", &path], false, Duration::from_secs(30));
    assert_eq!(run.code, Some(2), "{}", run.describe());
    run.stderr
}

#[test]
fn tags_select_scenarios() {
    let run =
        run(&["server", "--revision", "2025-11-25", "--tag", "@negotiation"], true, Duration::from_secs(60));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let scenarios = run.report.as_ref().unwrap()["scenarios"].as_array().unwrap().clone();
    assert!(!scenarios.is_empty());
    assert!(scenarios.iter().all(|s| s["tags"].as_array().unwrap().iter().any(|t| t == "negotiation")));
}

#[test]
fn list_names_every_scenario_with_its_clause() {
    let run = run(&["list", "--format", "json"], false, Duration::from_secs(30));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let listing: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let scenarios = listing["scenarios"].as_array().unwrap();
    assert!(scenarios.len() > 150, "{}", scenarios.len());
    for role in ["server", "client"] {
        assert!(scenarios.iter().any(|s| s["role"] == role));
    }
    for s in scenarios {
        assert!(s["spec"].as_str().unwrap().starts_with("docs/specification/"), "{s}");
        assert!(
            !s["revisions"].as_array().unwrap().is_empty() && !s["transports"].as_array().unwrap().is_empty(),
            "{s}"
        );
    }
    let lifecycle = scenarios.iter().find(|s| s["id"] == "lifecycle/exit-on-stdin-close").unwrap();
    assert_eq!(lifecycle["transports"], serde_json::json!(["stdio"]), "{lifecycle}");
    assert!(listing["rules"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == "jsonrpc/response-id-matches-request"));
    let table = run_list(&["list", "--role", "client", "--revision", "2024-11-05"]);
    assert!(table.contains("client-lifecycle/") && !table.contains("\nserver "), "{table}");
}

fn run_list(args: &[&str]) -> String {
    let run = run(args, false, Duration::from_secs(30));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    run.stdout
}

#[test]
fn secrets_stay_out_of_reports_and_the_console() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(MCPSPEC);
    cmd.args([
        "server",
        "--revision",
        "2025-06-18",
        "--scenario",
        "lifecycle/initialize-result",
        "--report-dir",
    ])
    .arg(dir.path())
    // The secret rides on the command line too, where its shape gives it away.
    .args([
        "--",
        "env",
        "MY_API_KEY=tok-7a7a7a7a",
        MCPSPEC,
        "reference",
        "server",
        "--fault",
        "stringify-ids",
    ])
    .env("MY_SERVICE_TOKEN", "tok-7a7a7a7a")
    .env("MCPSPEC_TEST_MARKER", "secrets");
    let out = cmd.output().unwrap();
    let everything = [
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect::<Vec<_>>()
            .join("\n"),
    ]
    .join("\n");
    assert!(everything.contains("[redacted]"), "{everything}");
    assert!(!everything.contains("tok-7a7a7a7a"), "{everything}");
}

/// Runs the whole built-in server suite one scenario at a time (so it is still running), stops
/// it with `signal` after the first scenarios, and reads what it left.
fn stopped_by(signal: nix::sys::signal::Signal) -> (Option<i32>, serde_json::Value, String) {
    use std::io::BufRead as _;
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("mcpspec-stopped-{signal}-{}", std::process::id());
    let mut child = std::process::Command::new(MCPSPEC)
        // --verbose: a line per scenario as it ends (without it, passes wait for the digest).
        .args(["server", "-j", "1", "--no-sweep", "--verbose", "--report-dir"])
        .arg(dir.path())
        .env("MCPSPEC_TEST_MARKER", &marker)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    // Three scenarios have finished: the run is under way. (The wire log's lines come between.)
    let verdicts = ["PASS", "FAIL", "WARN", "SKIP", "ERROR"];
    let mut ended = 0;
    while ended < 3 {
        let line = lines.next().expect("a scenario line").unwrap();
        ended += usize::from(verdicts.iter().any(|v| line.starts_with(v)));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
    let rest: Vec<String> = lines.map_while(Result::ok).collect();
    let code = {
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                break status.code();
            }
            assert!(started.elapsed() < Duration::from_secs(30), "mcpspec did not stop on {signal}");
            std::thread::sleep(Duration::from_millis(20));
        }
    };
    let text = std::fs::read_to_string(dir.path().join("report.json")).expect("a report of what ran");
    let report: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_report_schema(&report);
    assert_no_leftovers(&marker);
    (code, report, rest.join("\n"))
}

#[test]
fn a_run_stopped_by_a_signal_reports_what_ran() {
    for (signal, code) in [(nix::sys::signal::Signal::SIGINT, 130), (nix::sys::signal::Signal::SIGTERM, 143)]
    {
        let (exit, report, _) = stopped_by(signal);
        assert_eq!(exit, Some(code), "{signal}");
        assert_eq!(report["interrupted"], signal.as_str(), "{signal}");
        let ran = report["scenarios"].as_array().unwrap().len();
        assert!(ran >= 3, "{signal}: {ran} scenarios reported");
        // Far from the whole suite: the run did stop.
        assert!((report["summary"]["passed"].as_u64().unwrap() as usize) < 150, "{report}");
        assert!(
            report["certification"].as_array().unwrap().iter().all(|c| c["verdict"] != "conformant"),
            "{report}"
        );
    }
}

/// Without --verbose, a whole run against a conformant legacy-only server fits in a screenful,
/// the verdict last: no line per passing scenario, and scenarios skipped for one reason said
/// once (a server that does not speak 2026-07-28 once printed 87 SKIP lines with the same
/// reason, after 400 PASS lines).
#[test]
fn the_console_of_a_conformant_run_is_short() {
    let legacy = "2024-11-05,2025-03-26,2025-06-18,2025-11-25";
    let run = run(
        &["server", "--timeout", "5", "--", MCPSPEC, "reference", "server", "--supported", legacy],
        true,
        Duration::from_secs(180),
    );
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert!(lines.len() <= 100, "{} lines:\n{}", lines.len(), run.stdout);
    assert!(lines.last().is_some_and(|l| l.starts_with("summary: ")), "{}", run.stdout);
    let skips: Vec<&&str> =
        lines.iter().filter(|l| l.starts_with("SKIP") && l.contains("2026-07-28")).collect();
    assert_eq!(skips.len(), 1, "{skips:#?}");
    assert!(!lines.iter().any(|l| l.starts_with("PASS  20")), "no line per pass\n{}", run.stdout);
    // --verbose still lists every scenario.
    let args = ["server", "--verbose", "--revision", "2025-11-25", "--", MCPSPEC, "reference", "server"];
    let verbose = crate::support::run(&args, true, Duration::from_secs(180));
    assert!(
        verbose.stdout.lines().filter(|l| l.starts_with("PASS  20")).count() > 50,
        "{}",
        verbose.describe()
    );
}
