//! Hostile implementations (issue #17): whatever the implementation does to its process and
//! pipes, a run ends within its bounds, names the behaviour in its verdict, keeps mcpspec's
//! memory bounded, leaves no process behind (a process scan; the only exception is a process
//! that left the group with `setsid`, which must be named) and writes a complete report.
//!
//! The peers are the hidden faults of the reference peers (`mcpspec reference server|client
//! --fault NAME`). Each table runs its rows at once, each row a run of its own: they mostly
//! wait, and the CI machine has two cores. Every row prints its line of the closing table:
//! behaviour, verdict, time to verdict, peak RSS, leftover processes.

use crate::support::*;
use std::time::Duration;

/// mcpspec's peak resident memory must stay under this, whatever the implementation does.
/// (64 MiB until the clause inventory, issue #29: parsing its six revisions costs about 12 MiB
/// of peak, measured as `mcpspec list --coverage` against `mcpspec --version`, 25 vs 13 MiB.
/// 80 MiB until shared processes and coverage-guided fuzzing, issues #31 and #30: the debug
/// build's full runs of these rows peaked at 77.6–80.4 MiB, a flood or an endless line no
/// higher than a run that went well, so the bound still tells growth without end from a
/// larger program.)
const MAX_RSS_KIB: u64 = 96 * 1024;

/// One hostile behaviour and what the run must say about it.
struct Row {
    fault: &'static str,
    /// The exit code of the run.
    code: i32,
    /// Text the run's verdict (report.json `not_tested`, else the console) must hold; an entry
    /// `a|b` is held by either.
    says: &'static [&'static str],
    /// The run ends within this, margin included.
    within: Duration,
    /// The peer leaves processes outside its process group (`setsid`): allowed, if named.
    escapes: bool,
    /// Whether the run must write report.json (`mcpspec fuzz` writes none when the
    /// implementation never completes its handshake).
    report: bool,
    /// mcpspec's peak RSS bound for this row.
    max_rss_kib: u64,
    /// The longest any one scenario of the run may take. Where a run is many scenarios each
    /// bounded by the timeout, this is what "ends on time" means; the run's own bound then only
    /// catches a run that never ends, with room for a loaded machine's slower waves.
    per_scenario: Option<Duration>,
}

const fn row(fault: &'static str, code: i32, says: &'static [&'static str], secs: u64) -> Row {
    Row {
        fault,
        code,
        says,
        within: Duration::from_secs(secs),
        escapes: false,
        report: true,
        max_rss_kib: MAX_RSS_KIB,
        per_scenario: None,
    }
}

/// `r`, each of whose scenarios must end within 10 s (at `--timeout 1`).
fn per_scenario(r: Row) -> Row {
    Row { per_scenario: Some(Duration::from_secs(10)), ..r }
}

/// What one row measured, for the closing table.
struct Measured {
    line: String,
    failure: Option<String>,
}

/// Runs every row at once (`args` with the fault appended), then asserts each.
fn run_table(role: &str, rows: Vec<Row>, args: impl Fn(&str) -> Vec<String> + Sync) {
    let measured: Vec<Measured> = std::thread::scope(|scope| {
        let handles: Vec<_> = rows
            .iter()
            .map(|row| {
                let args = args(row.fault);
                scope.spawn(move || judge(row, &args))
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("row thread")).collect()
    });
    println!("{role}: behaviour | exit | verdict | time | peak RSS | leftovers");
    for m in &measured {
        println!("{}", m.line);
    }
    let failures: Vec<&String> = measured.iter().filter_map(|m| m.failure.as_ref()).collect();
    assert!(failures.is_empty(), "{} of {} rows failed:\n{}", failures.len(), measured.len(), {
        failures.iter().map(|f| f.as_str()).collect::<Vec<_>>().join("\n\n")
    });
}

fn judge(row: &Row, args: &[String]) -> Measured {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = run(&args, true, row.within + Duration::from_secs(60));
    let left = settled_leftovers(&run.marker);
    let text = format!("{}\n{}", run.stdout, run.stderr);
    let mut problems = Vec::new();
    // Escapees are allowed only when the peer makes them, and only when the run named them.
    let (named, unnamed): (Vec<&String>, Vec<&String>) = left.iter().partition(|l| {
        let pid = l.split(':').next().unwrap_or("");
        row.escapes && text.contains(&format!("pid {pid} ("))
    });
    // A grandchild that calls setsid after a run stopped looked (its parent killed by then)
    // cannot be named; it is still only ever the peer's `sleep 60`.
    let (unnamed, late): (Vec<&String>, Vec<&String>) =
        unnamed.into_iter().partition(|l| !(row.escapes && l.ends_with(": sleep 60 ")));
    for l in named.iter().chain(&late) {
        if let Some(pid) = l.split(':').next() {
            let _ = std::process::Command::new("kill").args(["-KILL", pid]).status();
        }
    }
    if row.escapes && named.is_empty() {
        problems.push("the peer's setsid grandchild was neither found nor named".to_owned());
    }
    if !unnamed.is_empty() {
        problems.push(format!("processes left behind: {unnamed:#?}"));
    }
    if run.code != Some(row.code) {
        problems.push(format!("exit code {:?}, expected {}", run.code, row.code));
    }
    if run.elapsed > row.within {
        problems.push(format!("took {:?}, bound {:?}", run.elapsed, row.within));
    }
    if run.peak_rss_kib == 0 || run.peak_rss_kib > row.max_rss_kib {
        problems.push(format!("peak RSS {} KiB (bound {} KiB)", run.peak_rss_kib, row.max_rss_kib));
    }
    let verdict = run
        .report
        .as_ref()
        .and_then(|r| r["not_tested"].as_str().map(str::to_owned))
        .unwrap_or_else(|| run.stdout.lines().last().unwrap_or("").to_owned());
    for says in row.says {
        let held = says.split('|').any(|alt| text.contains(alt) || verdict.contains(alt));
        if !held {
            problems.push(format!("the run does not say {says:?}"));
        }
    }
    match &run.report {
        None if !row.report => {}
        None => problems.push("no report.json".to_owned()),
        Some(report) => {
            let scenarios = report["scenarios"].as_array().map_or(&[][..], Vec::as_slice);
            if scenarios.is_empty() {
                problems.push("report.json lists no scenario".to_owned());
            }
            let longest = scenarios
                .iter()
                .map(|s| (s["duration_ms"].as_u64().unwrap_or(u64::MAX), s["id"].as_str().unwrap_or("?")))
                .max();
            if let (Some(limit), Some((ms, id))) = (row.per_scenario, longest) {
                if ms > limit.as_millis() as u64 {
                    problems.push(format!("{id} took {ms} ms, bound {limit:?} a scenario"));
                }
            }
            // A run the gate stopped: no verdict, every scenario listed as not run, none passed.
            if report.get("not_tested").is_some_and(|v| v.is_string()) && run.code == Some(3) {
                let passed = report["summary"]["passed"].as_u64().unwrap_or(0);
                if passed > 0 {
                    problems.push(format!("{passed} scenarios passed in a run with no working session"));
                }
            }
        }
    }
    let line = format!(
        "{} | {:?} | {} | {:.1} s | {:.1} MiB | {}",
        row.fault,
        run.code,
        verdict.chars().take(160).collect::<String>(),
        run.elapsed.as_secs_f64(),
        run.peak_rss_kib as f64 / 1024.0,
        match (named.len(), late.len()) {
            (0, 0) => "0".to_owned(),
            (n, 0) => format!("{n} named setsid escapee(s)"),
            (n, late) => format!("{n} named setsid escapee(s), {late} escaped after the run looked"),
        },
    );
    let failure =
        (!problems.is_empty()).then(|| format!("{}: {}\n{}", row.fault, problems.join("; "), run.describe()));
    Measured { line, failure }
}

/// `--timeout 1` at one revision: a gate that closes does so after three attempts, each a
/// probe of `--timeout` plus a shutdown (stdin closed, SIGTERM, SIGKILL, a second each).
const GATE_SECS: u64 = 12;

#[test]
fn hostile_servers_end_on_time_with_a_named_verdict_bounded_and_clean() {
    const NO_SESSION: &str = "could not be brought to a working session in 3 attempts";
    let rows = vec![
        row(
            "crash-at-start",
            3,
            &[NO_SESSION, "exited with status 1", "fatal: mcpspec fault 'crash-at-start'"],
            GATE_SECS,
        ),
        row("exit-at-once", 3, &[NO_SESSION, "exited with status 0 without answering initialize"], GATE_SECS),
        row("never-read", 3, &[NO_SESSION, "never read its stdin"], GATE_SECS),
        row("hang", 3, &[NO_SESSION, "never answered initialize within 1s"], GATE_SECS),
        row(
            "endless-line",
            3,
            &[NO_SESSION, "only lines that are not MCP messages", "maximum message size"],
            GATE_SECS,
        ),
        row("notification-flood", 3, &[NO_SESSION, "notifications meanwhile"], GATE_SECS),
        row("flood", 3, &[NO_SESSION, "only lines that are not MCP messages"], GATE_SECS),
        row("invalid-utf8", 3, &[NO_SESSION, "not valid UTF-8"], GATE_SECS),
        row(
            "close-stdout",
            3,
            &[NO_SESSION, "closed its stdout without answering initialize and kept running"],
            GATE_SECS,
        ),
        row("answer-late", 3, &[NO_SESSION, "never read its stdin"], GATE_SECS),
        row("grandchild-holds-pipes", 3, &[NO_SESSION, "exited with status 1"], GATE_SECS),
        Row {
            escapes: true,
            ..row("setsid-grandchild", 3, &[NO_SESSION, "left running outside its process group"], GATE_SECS)
        },
        // A session works, then every scenario's process dies under it: judged scenario by scenario.
        row("crash-mid-session", 1, &["exited with status 1"], 40),
        row("ignore-sigterm", 0, &["needed SIGKILL"], 40),
        row("spawn-grandchild", 0, &["summary: "], 40),
    ];
    run_table("server", rows, |fault| {
        let mut args: Vec<String> = [
            "server",
            "--timeout",
            "1",
            "--revision",
            "2025-06-18",
            "-j",
            "8",
            "--",
            MCPSPEC,
            "reference",
            "server",
        ]
        .map(String::from)
        .to_vec();
        args.extend(["--fault".to_owned(), fault.to_owned()]);
        args
    });
}

/// Hostile HTTP servers (`mcpspec reference server --transport http --fault http-…`, a raw
/// listener behind the `{port}` mcpspec picks): whatever the server does on the wire, the run
/// ends on time, bounded, clean, and says what it met.
#[test]
fn hostile_http_servers_end_on_time_with_a_named_verdict_bounded_and_clean() {
    // Each run below that gets to its scenarios is 115 of them, 8 at a time, each ending
    // at its 1 s timeout or sooner: alone, the longest took 2.5 s and the runs 16-28 s; with
    // three busy loops beside them, 21-38 s. So each scenario is held to 10 s, and each run to
    // twice what it took on the loaded machine.
    let rows = vec![
        // The head never completes: "no response head within 1s", or "nothing arrived within 1s"
        // when the probe's own wait ends first.
        row("http-slowloris", 3, &["cannot reach the server", "within 1"], 20),
        // Every scenario's wait ends at its timeout. The verdict says only that no response came
        // (not yet that an endless stream came instead; the transcript shows it).
        // mcpspec's peak RSS, bounded here above what it reaches so that it cannot grow
        // unnoticed: 57 MiB alone at first (73 MiB in the table), when scenarios opened their
        // HTTP sessions two at a time; 92.8-93.3 MiB alone once all 8 read at once. It follows
        // the scenarios at once, not the time they read (8 of them: 65 MiB at a 1 s and at a
        // 4 s timeout). Found since (heaptrack, the row alone): the heap peaked at 34 MiB as the
        // reports were written, its largest part (14.5 MiB) a JSON value of the whole report made
        // for report.html, a map per transcript line of 115 failing scenarios. Without that
        // value: 80-81 MiB alone, 76.5 MiB in the table. Most of the rest is the debug binary
        // itself (the rows that end at once: 43 MiB).
        per_scenario(Row {
            max_rss_kib: 112 * 1024,
            ..row("http-endless-sse", 1, &["no response within 1s"], 80)
        }),
        // Which comes first depends on how fast the machine reads: the message size limit, or
        // the 1 s wait (seen in a full test run at load 9, at 82 MiB peak RSS: the same
        // buffering as the endless stream's, so the same bound; 74.6-78.1 MiB alone since all
        // 8 scenarios read at once, 82.8 MiB beside three busy loops).
        per_scenario(Row {
            max_rss_kib: 112 * 1024,
            ..row("http-endless-chunked", 1, &["maximum message size|no response within 1s"], 60)
        }),
        per_scenario(row("http-stalled-body", 1, &["no response within 1s"], 60)),
        per_scenario(row("http-wrong-content-type", 1, &["200 text/html"], 45)),
        row("http-redirect-loop", 3, &["cannot reach the server", "too many redirects"], 20),
        per_scenario(row("http-server-error", 1, &["503"], 45)),
        row("http-connection-reset", 3, &["cannot reach the server", "Connection reset by peer"], 20),
    ];
    run_table("http server", rows, |fault| {
        [
            "server",
            "--transport",
            "http",
            "--timeout",
            "1",
            "--revision",
            "2025-06-18",
            "-j",
            "8",
            "--",
            MCPSPEC,
            "reference",
            "server",
            "--transport",
            "http",
            "--port",
            "{port}",
            "--fault",
            fault,
        ]
        .map(String::from)
        .to_vec()
    });
}

#[test]
fn hostile_clients_end_on_time_with_a_named_verdict_bounded_and_clean() {
    const NO_SESSION: &str = "the client could not be brought to a working session in 3 attempts";
    let rows = vec![
        row("exit-early", 3, &[NO_SESSION, "the client exited with status 3"], GATE_SECS),
        row("exit-at-once", 3, &[NO_SESSION, "the client exited with status 0"], GATE_SECS),
        row("answer-late", 3, &[NO_SESSION, "did not start the server command within 1s"], GATE_SECS),
        Row { escapes: true, ..row("setsid-grandchild", 3, &[NO_SESSION], GATE_SECS) },
        // Clients that connect: each scenario judges them, within its own timeout, and is held
        // to 10 s. A run is 43 scenarios 4 at a time; reading a flood is mcpspec's CPU, so the
        // runs' own bounds leave room for a loaded machine. Alone: silent 13.3 s, flood 26.8 s,
        // notification-flood 9.0 s, invalid-utf8 8.0 s, the longest scenario 4.0 s (flood); in
        // a full test run the flood took 41.1 s.
        per_scenario(row("silent", 1, &["nothing within 1s"], 60)),
        // Each garbage line is a finding; past ten of a rule they are only counted (the
        // recorder kept them all: 238 MiB at -j 1).
        per_scenario(row("flood", 1, &["more like it"], 80)),
        per_scenario(row("endless-line", 1, &["maximum message size"], 60)),
        per_scenario(row("notification-flood", 1, &["notifications/roots/list_changed"], 60)),
        per_scenario(row("invalid-utf8", 1, &["not valid UTF-8"], 60)),
    ];
    run_table("client", rows, |fault| {
        let mut args: Vec<String> = [
            "client",
            "--timeout",
            "1",
            "--revision",
            "2025-11-25",
            "-j",
            "4",
            "--",
            MCPSPEC,
            "reference",
            "client",
        ]
        .map(String::from)
        .to_vec();
        args.extend(["--fault".to_owned(), fault.to_owned()]);
        args
    });
}

#[test]
fn hostile_servers_end_a_fuzz_campaign_on_time_bounded_and_clean() {
    // The handshake waits max(--hang-timeout, 10 s): the bound of a process that never answers.
    let rows = vec![
        Row {
            report: false,
            ..row("exit-at-once", 3, &["did not complete initialize", "exited with status 0"], 12)
        },
        Row {
            report: false,
            ..row("close-stdout", 3, &["did not complete initialize", "stdout closed"], 12)
        },
        Row {
            report: false,
            ..row("never-read", 3, &["did not complete initialize", "never read its stdin"], 20)
        },
        Row {
            report: false,
            ..row("notification-flood", 3, &["did not complete initialize", "no answer within 10s"], 20)
        },
        Row {
            escapes: true,
            report: false,
            ..row(
                "setsid-grandchild",
                3,
                &["exited with status 1", "left running outside its process group"],
                20,
            )
        },
        row("crash-mid-session", 1, &["robustness/no-crash"], 60),
    ];
    let findings = tempfile::tempdir().expect("tempdir");
    run_table("fuzz", rows, |fault| {
        let dir = findings.path().join(fault).display().to_string();
        let mut args: Vec<String> = [
            "fuzz",
            "--runs",
            "64",
            "--hang-timeout",
            "1",
            "--minimize-probes",
            "10",
            "--findings",
            &dir,
            "--",
            MCPSPEC,
            "reference",
            "server",
        ]
        .map(String::from)
        .to_vec();
        args.extend(["--fault".to_owned(), fault.to_owned()]);
        args
    });
}

/// A stopped run ends every process group it started and writes the report of what finished:
/// each signal, both roles, a fuzz campaign and a server served over HTTP for the run. The
/// implementations ignore SIGTERM or never end on their own, so only mcpspec's cleanup ends them.
#[test]
fn a_signal_ends_every_process_and_leaves_a_parseable_report() {
    let server = [
        "server",
        "--timeout",
        "5",
        "-j",
        "4",
        "--",
        MCPSPEC,
        "reference",
        "server",
        "--fault",
        "ignore-sigterm",
    ];
    let client = [
        "client",
        "--timeout",
        "5",
        "-j",
        "4",
        "--",
        MCPSPEC,
        "reference",
        "client",
        "--fault",
        "no-shutdown",
    ];
    let http = [
        "server",
        "--timeout",
        "5",
        "-j",
        "4",
        "--transport",
        "http",
        "--",
        MCPSPEC,
        "reference",
        "server",
        "--transport",
        "http",
        "--port",
        "{port}",
    ];
    let findings = tempfile::tempdir().expect("tempdir");
    let dir = findings.path().display().to_string();
    let fuzz = [
        "fuzz",
        "--duration",
        "60",
        "-j",
        "2",
        "--findings",
        &dir,
        "--",
        MCPSPEC,
        "reference",
        "server",
        "--fault",
        "ignore-sigterm",
    ];
    let mut cases: Vec<(&str, &[&str], &str, i32)> = Vec::new();
    for (signal, code) in [("TERM", 143), ("INT", 130), ("HUP", 129)] {
        cases.push(("server", &server[..], signal, code));
        cases.push(("client", &client[..], signal, code));
    }
    cases.push(("http", &http[..], "TERM", 143));
    cases.push(("fuzz", &fuzz[..], "TERM", 143));
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = cases
            .iter()
            .map(|(what, args, signal, code)| {
                scope.spawn(move || {
                    let after = Duration::from_millis(2500);
                    let run = run_signalled(args, true, Duration::from_secs(60), Some((signal, after)));
                    let left = settled_leftovers(&run.marker);
                    let mut problems = Vec::new();
                    if run.code != Some(*code) {
                        problems.push(format!("exit code {:?}, expected {code}", run.code));
                    }
                    if !left.is_empty() {
                        problems.push(format!("left behind: {left:#?}"));
                    }
                    // Ended promptly: the signal, then every group killed. Alone, 1.0-3.0 s after
                    // the signal; beside the hostile tables, a server run once took 10.2 s.
                    if run.elapsed > after + Duration::from_secs(15) {
                        problems.push(format!("ended {:?} after the start", run.elapsed));
                    }
                    match (&run.report, *what) {
                        (None, _) => problems.push("no parseable report.json".to_owned()),
                        (Some(r), "fuzz") if r["scenarios"].as_array().is_none() => {
                            problems.push("report.json without scenarios".to_owned())
                        }
                        (Some(_), "fuzz") => {}
                        (Some(r), _) if r["interrupted"] != format!("SIG{signal}") => {
                            problems.push(format!("interrupted: {}", r["interrupted"]))
                        }
                        (Some(_), _) => {}
                    }
                    println!(
                        "{what} SIG{signal}: exit {:?} after {:.1} s, peak RSS {:.1} MiB, {} left",
                        run.code,
                        run.elapsed.as_secs_f64(),
                        run.peak_rss_kib as f64 / 1024.0,
                        left.len()
                    );
                    (!problems.is_empty())
                        .then(|| format!("{what} SIG{signal}: {}\n{}", problems.join("; "), run.describe()))
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().expect("case thread")).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `--deadline`: scenarios still running when it passes are errors with the reason, and the
/// report is written.
#[test]
fn the_deadline_ends_a_run_and_reports_what_did_not_finish() {
    let args = [
        "server",
        "--timeout",
        "30",
        "--deadline",
        "3",
        "--revision",
        "2025-06-18",
        "--",
        MCPSPEC,
        "reference",
        "server",
        "--fault",
        "ignore-sigterm",
    ];
    let run = run(&args, true, Duration::from_secs(60));
    assert_no_leftovers(&run.marker);
    assert!(run.elapsed < Duration::from_secs(8), "{}", run.describe());
    let report = run.report.as_ref().expect("report.json");
    let unfinished: Vec<_> = report["scenarios"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|s| s["reason"].as_str().is_some_and(|r| r.contains("--deadline of 3 s passed")))
        .collect();
    assert!(!unfinished.is_empty(), "{}", run.describe());
    assert!(unfinished.iter().all(|s| s["verdict"] == "error"));
    assert_eq!(run.code, Some(3), "{}", run.describe());
}
