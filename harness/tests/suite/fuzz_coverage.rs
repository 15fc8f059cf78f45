//! `mcpspec fuzz --coverage python` as a user runs it, against a small Python server of our own
//! (standard library only) with a deep branch: a call whose `word` is empty runs a line of its
//! own, and only such a call whose `count` is not an integer runs the deep one. A guided
//! campaign keeps the first call (new lines) and mutates it into the second; an unguided one,
//! same seed, same inputs count, measures the same lines and never gets there. The sources'
//! probes are tested on real processes in `fuzz::coverage` (the wrapper on a script, the
//! inspector on node, the SanitizerCoverage runtime on a compiled program).

use crate::support::{assert_no_leftovers, run};
use std::time::Duration;

/// A stdio MCP server at 2025-06-18 with one tool, whose branches depend on its arguments; the
/// deep branch appends a line to the file named by its first argument.
const SERVER: &str = r#"
import json, sys

def probe(word, count):
    if word == "":
        shape = "empty"
        if not isinstance(count, int):
            with open(sys.argv[1], "a") as mark:
                mark.write("deep\n")
            return "deep"
        return shape
    if not isinstance(word, str):
        return "not a word"
    if word.startswith("a"):
        return "starts with a"
    if len(word) > 8:
        return "long"
    return "short"

def result(method, params):
    if method == "initialize":
        return {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                "serverInfo": {"name": "coverage-fixture", "version": "1"}}
    if method == "ping":
        return {}
    if method == "tools/list":
        return {"tools": [{"name": "probe", "inputSchema": {"type": "object",
                "properties": {"word": {"type": "string"}, "count": {"type": "integer"}},
                "required": ["word", "count"]}}]}
    if method == "tools/call" and isinstance(params, dict) and params.get("name") == "probe":
        arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        return {"content": [{"type": "text", "text": probe(arguments.get("word"), arguments.get("count"))}]}
    return None

def no_constant(name):
    raise ValueError(name)

for line in sys.stdin:
    try:
        message = json.loads(line, parse_constant=no_constant)
    except (ValueError, RecursionError):
        print(json.dumps({"jsonrpc": "2.0", "id": None,
                          "error": {"code": -32700, "message": "parse error"}}), flush=True)
        continue
    if not isinstance(message, dict) or not isinstance(message.get("method"), str):
        continue
    if isinstance(message.get("id"), bool) or not isinstance(message.get("id"), (str, int)):
        continue
    answer = result(message["method"], message.get("params"))
    if answer is None:
        reply = {"jsonrpc": "2.0", "id": message["id"],
                 "error": {"code": -32601, "message": "method not found"}}
    else:
        reply = {"jsonrpc": "2.0", "id": message["id"], "result": answer}
    print(json.dumps(reply), flush=True)
"#;

/// What a campaign came to.
struct Campaign {
    run: crate::support::Run,
    /// Its coverage line (the console's, which report.json's campaign entry ends with).
    line: String,
    /// Files in its corpus folder.
    kept: usize,
    /// Calls that ran the deep branch.
    deep: usize,
}

/// `mcpspec fuzz --coverage python [EXTRA] --runs 2000 --seed 1 -- python3 SERVER MARK`.
fn campaign(extra: &[&str]) -> Campaign {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = dir.path().join("server.py");
    std::fs::write(&server, SERVER).expect("server");
    let mark = dir.path().join("deep");
    let (server, corpus, findings, mark_path) = (
        server.display().to_string(),
        dir.path().join("corpus").display().to_string(),
        dir.path().join("findings").display().to_string(),
        mark.display().to_string(),
    );
    let mut args = vec!["fuzz", "--coverage", "python", "--revision", "2025-06-18", "--runs", "2000"];
    args.extend(extra);
    args.extend([
        "--seed",
        "1",
        "--corpus",
        &corpus,
        "--findings",
        &findings,
        "--",
        "python3",
        &server,
        &mark_path,
    ]);
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let line = run.stdout.lines().find(|l| l.starts_with("coverage (python")).unwrap_or_default().to_owned();
    let session = run.scenarios("fuzz/campaign")[0]["session"].as_str().unwrap_or_default().to_owned();
    assert!(session.ends_with(&line), "report.json says what the console says: {session}\n{line}");
    let kept = std::fs::read_dir(&corpus).map(|d| d.count()).unwrap_or(0);
    let deep = std::fs::read_to_string(&mark).map(|t| t.lines().count()).unwrap_or(0);
    assert_no_leftovers(&run.marker);
    Campaign { run, line, kept, deep }
}

/// The number before `what` in a coverage line.
fn count_before(line: &str, what: &str) -> u64 {
    let at = line.find(what).unwrap_or_else(|| panic!("no {what:?} in {line:?}"));
    line[..at].split_whitespace().last().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{line}"))
}

#[test]
fn a_guided_campaign_reaches_the_branch_behind_a_kept_input_and_a_blind_one_does_not() {
    let guided = campaign(&[]);
    let line = &guided.line;
    assert!(line.starts_with("coverage (python, guided): "), "{}", guided.run.describe());
    let (lines, kept) = (count_before(line, "lines of Python run"), count_before(line, "input(s) kept"));
    assert!(lines > 20, "the server's lines are counted: {line}");
    assert!(kept > 0 && guided.kept as u64 >= kept, "{kept} kept, {} corpus files: {line}", guided.kept);
    assert!(guided.deep > 0, "the deep branch is reached by mutating a kept input: {line}");

    let blind = campaign(&["--unguided"]);
    let line = &blind.line;
    assert!(line.starts_with("coverage (python, measured, not guided): "), "{}", blind.run.describe());
    assert!(count_before(line, "lines of Python run") > 20, "measured all the same: {line}");
    assert_eq!(count_before(line, "input(s) kept"), 0, "{line}");
    assert_eq!(blind.deep, 0, "the same seed without guidance never gets there: {line}");
    assert!(
        count_before(line, "lines of Python run") < lines,
        "the guided campaign reached lines the blind one did not: {line} / {}",
        guided.line
    );
}

#[test]
fn coverage_that_cannot_be_measured_is_a_usage_error() {
    for (args, says) in [
        (
            &["fuzz", "--coverage", "python", "--runs", "1", "--", "node", "server.js"][..],
            "Python interpreter",
        ),
        (&["fuzz", "--coverage", "ruby", "--runs", "1", "--", "./server"][..], "node, python or sancov"),
        (
            &[
                "fuzz",
                "--coverage",
                "node",
                "--transport",
                "http",
                "--runs",
                "1",
                "--",
                "node",
                "s.js",
                "{port}",
            ][..],
            "stdio",
        ),
        (&["fuzz", "--coverage", "python", "--window", "4", "--", "python3", "s.py"][..], "--window"),
        (&["fuzz", "--unguided", "--runs", "1", "--", "python3", "s.py"][..], "--coverage"),
    ] {
        let r = run(args, false, Duration::from_secs(30));
        assert_eq!(r.code, Some(2), "{args:?}: {}", r.describe());
        assert!(r.stderr.contains(says), "{args:?}: {}", r.describe());
    }
}

/// `mcpspec fuzz sancov-runtime FILE` writes the runtime a native server links for `--coverage
/// sancov` (its probe is tested on a compiled program in `fuzz::coverage::sancov`), and never
/// over a file that exists.
#[test]
fn the_sancov_runtime_is_written_where_asked_and_nowhere_else() {
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("rt.c");
    let path = file.display().to_string();
    let r = run(&["fuzz", "sancov-runtime", &path], false, Duration::from_secs(30));
    assert_eq!(r.code, Some(0), "{}", r.describe());
    let source = std::fs::read_to_string(&file).expect("written");
    assert!(source.contains("__sanitizer_cov_trace_pc_guard_init") && source.contains("MCPSPEC_SANCOV_FILE"));
    let again = run(&["fuzz", "sancov-runtime", &path], false, Duration::from_secs(30));
    assert_eq!(again.code, Some(2), "{}", again.describe());
    assert_eq!(std::fs::read_to_string(&file).expect("still there"), source);
}
