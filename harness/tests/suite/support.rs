//! Running the binary with a time limit, reading its report, finding leftover processes.

use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

pub const MCPSPEC: &str = env!("CARGO_BIN_EXE_mcpspec");

/// The official schemas beside the project, when present (reference data for tests only).
pub fn shared_schemas() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/schemas"));
    dir.is_dir().then_some(dir)
}

pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub report: Option<Value>,
    pub elapsed: Duration,
    pub marker: String,
    /// Where `--report-dir` pointed (removed when the run is dropped).
    pub report_dir: tempfile::TempDir,
    /// mcpspec's peak resident memory (VmHWM), KiB, as last sampled before it exited.
    pub peak_rss_kib: u64,
}

impl Run {
    /// Every check of every scenario: (scenario id, revision, check).
    pub fn checks(&self) -> Vec<(String, String, Value)> {
        let mut out = Vec::new();
        for s in self.report.as_ref().and_then(|r| r["scenarios"].as_array()).into_iter().flatten() {
            for c in s["checks"].as_array().into_iter().flatten() {
                out.push((
                    s["id"].as_str().unwrap_or("").to_owned(),
                    s["revision"].as_str().unwrap_or("").to_owned(),
                    c.clone(),
                ));
            }
        }
        out
    }

    /// The report entries of the scenario `id`, one per revision it ran at.
    pub fn scenarios(&self, id: &str) -> Vec<Value> {
        let all = self.report.as_ref().and_then(|r| r["scenarios"].as_array());
        all.into_iter().flatten().filter(|s| s["id"] == id).cloned().collect()
    }

    pub fn summary(&self, key: &str) -> u64 {
        self.report
            .as_ref()
            .and_then(|r| r["summary"][key].as_u64())
            .unwrap_or_else(|| panic!("no summary.{key}: {}", self.describe()))
    }

    pub fn describe(&self) -> String {
        format!(
            "exit {:?} after {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.elapsed, self.stdout, self.stderr
        )
    }
}

/// Runs `cmd` (stdin empty, stdout and stderr read to their ends), killing it after `limit`:
/// its exit status (none when it was killed), stdout and stderr.
/// `each` is called every 20 ms while it runs, with its pid and the time since it started.
pub fn output_within(
    mut cmd: Command,
    limit: Duration,
    mut each: impl FnMut(u32, Duration),
) -> (Option<std::process::ExitStatus>, String, String) {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let read_all = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = pipe.read_to_string(&mut s);
            s
        })
    };
    let out_t = read_all(Box::new(child.stdout.take().unwrap()));
    let err_t = read_all(Box::new(child.stderr.take().unwrap()));
    let status = loop {
        each(child.id(), started.elapsed());
        if let Some(status) = child.try_wait().expect("wait") {
            break Some(status);
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status, out_t.join().unwrap_or_default(), err_t.join().unwrap_or_default())
}

static COUNTER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Runs `mcpspec ARGS`, with `--report-dir` appended when `report` is set, killing it (and
/// failing the test) after `limit`.
pub fn run(args: &[&str], report: bool, limit: Duration) -> Run {
    run_signalled(args, report, limit, None)
}

/// [`run`], sending mcpspec `signal` (`TERM`, `INT`, `HUP`) once `after` has passed.
pub fn run_signalled(args: &[&str], report: bool, limit: Duration, signal: Option<(&str, Duration)>) -> Run {
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    let marker = format!("mcpspec-test-{}-{n}", std::process::id());
    let dir = tempfile::tempdir().expect("tempdir");
    let mut cmd = Command::new(MCPSPEC);
    let mut all: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    if report {
        let at = all.iter().position(|a| a == "--").unwrap_or(all.len());
        all.insert(at, dir.path().display().to_string());
        all.insert(at, "--report-dir".into());
    }
    cmd.args(&all).env("MCPSPEC_TEST_MARKER", &marker);
    let started = Instant::now();
    let mut peak_rss_kib = 0;
    let mut signal = signal;
    let (status, stdout, stderr) = output_within(cmd, limit, |pid, elapsed| {
        // VmHWM only grows: the last sample before the exit is the peak.
        peak_rss_kib = peak_rss(pid).unwrap_or(peak_rss_kib);
        if let Some((name, _)) = signal.filter(|(_, after)| elapsed >= *after) {
            let sent = Command::new("kill").arg(format!("-{name}")).arg(pid.to_string()).status();
            assert!(sent.is_ok_and(|s| s.success()), "kill -{name} failed");
            signal = None;
        }
    });
    let elapsed = started.elapsed();
    let run = Run {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        report: std::fs::read_to_string(dir.path().join("report.json")).ok().map(|t| {
            let report: Value = serde_json::from_str(&t).expect("report.json is JSON");
            assert_report_schema(&report);
            report
        }),
        elapsed,
        marker,
        report_dir: dir,
        peak_rss_kib,
    };
    assert!(status.is_some(), "mcpspec did not finish within {limit:?}\n{}", run.describe());
    run
}

/// Every report.json a test reads is checked against the schema the project ships.
pub fn assert_report_schema(report: &Value) {
    static SCHEMA: std::sync::OnceLock<jsonschema::Validator> = std::sync::OnceLock::new();
    let schema = SCHEMA.get_or_init(|| {
        let text = include_str!("../../report.schema.json");
        jsonschema::validator_for(&serde_json::from_str(text).expect("JSON")).expect("the schema compiles")
    });
    let errors: Vec<String> =
        schema.iter_errors(report).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert!(errors.is_empty(), "report.json does not match harness/report.schema.json: {errors:#?}");
}

/// VmHWM of process `pid`, KiB.
fn peak_rss(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// How a scenario's report entry says it used a server process others used too: `None` for a
/// process of its own; else whether it held it alone (one after another) or shared it at once,
/// and how many scenarios had used the process when it joined (itself included).
pub fn shared_use(scenario: &Value) -> Option<(bool, usize)> {
    let session = scenario["session"].as_str()?;
    let rest = session.strip_prefix("shared process #")?;
    let (_, rest) = rest.split_once(", scenario ")?;
    let (n, rest) = rest.split_once(' ')?;
    Some((rest.contains("(with others at once)"), n.parse().ok()?))
}

/// `mcpspec server [EXTRA] -- mcpspec reference server [--fault FAULT]`, with a report and, when
/// present, the official schemas.
pub fn certify_reference(fault: Option<&str>, extra: &[&str], limit: Duration) -> Run {
    let schemas = shared_schemas().map(|p| p.display().to_string());
    let mut args = vec!["server"];
    if let Some(s) = &schemas {
        args.extend(["--schema-dir", s.as_str()]);
    }
    args.extend(extra);
    args.extend(["--", MCPSPEC, "reference", "server"]);
    if let Some(f) = fault {
        args.extend(["--fault", f]);
    }
    run(&args, true, limit)
}

/// Processes still alive that carry the run's marker in their environment.
pub fn leftovers(marker: &str) -> Vec<String> {
    let needle = format!("MCPSPEC_TEST_MARKER={marker}\0");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.chars().all(|c| c.is_ascii_digit()) {
            continue;
        }
        let Ok(env) = std::fs::read(entry.path().join("environ")) else {
            continue;
        };
        if !String::from_utf8_lossy(&env).contains(&needle) {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // A zombie is already dead; its parent reaps it.
        if stat.contains(") Z ") {
            continue;
        }
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        found.push(format!("{pid}: {}", String::from_utf8_lossy(&cmdline).replace('\0', " ")));
    }
    found
}

/// Waits up to a second for the marker's processes to go (the kernel reaps asynchronously).
pub fn assert_no_leftovers(marker: &str) {
    let left = settled_leftovers(marker);
    assert!(left.is_empty(), "processes left behind: {left:#?}");
}

/// The marker's processes still there after up to a second (the kernel reaps asynchronously).
pub fn settled_leftovers(marker: &str) -> Vec<String> {
    let mut left = leftovers(marker);
    for _ in 0..50 {
        if left.is_empty() {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
        left = leftovers(marker);
    }
    left
}

/// `mcpspec reference server --transport http --port 0 [ARGS]` as a process of its own, for runs
/// that reach a server by `--url`: its URL as it reported it. Killed when dropped.
pub struct ServedReference {
    pub url: String,
    child: std::process::Child,
}

impl ServedReference {
    pub fn start(args: &[&str]) -> ServedReference {
        let mut child = Command::new(MCPSPEC)
            .args(["reference", "server", "--transport", "http", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start the reference server");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            use std::io::BufRead as _;
            for line in std::io::BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        // "mcpspec reference server: listening on http://127.0.0.1:PORT/mcp"
        let line = rx.recv_timeout(Duration::from_secs(10));
        let url = line.as_ref().ok().and_then(|l| l.rsplit(' ').next()).map(str::to_owned);
        let served = ServedReference { url: url.unwrap_or_default(), child };
        assert!(
            served.url.starts_with("http://"),
            "the reference server did not say where it listens: {line:?}"
        );
        served
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        url::Url::parse(&self.url).ok().and_then(|u| u.port()).expect("a port in the URL")
    }
}

impl Drop for ServedReference {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One test per row of a fault table: the fault, the revision it shows in, the check that
/// catches it, and the verdict (MUST → failed, SHOULD → warning), asserted by `$assert`
/// (`fn(fault, revision, check, verdict)`, the table's own run of mcpspec).
macro_rules! caught_by {
    ($assert:ident; $($name:ident: $fault:literal at $rev:literal => $check:literal $verdict:literal;)*) => {
        $(#[test]
        fn $name() {
            $assert($fault, $rev, $check, $verdict);
        })*
    };
}
pub(crate) use caught_by;
