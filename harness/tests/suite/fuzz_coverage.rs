//! `mcpspec fuzz --coverage python` as a user runs it, against a small Python server of our own
//! (standard library only): a guided campaign keeps inputs that reach new lines (in its corpus
//! folder, and says how many), an unguided one measures the same and keeps none for it; both
//! report the lines reached by minute. The sources' probes are tested on real processes in
//! `fuzz::coverage` (the wrapper on a script, the inspector on node).

use crate::support::{assert_no_leftovers, run};
use std::time::Duration;

/// A stdio MCP server at 2025-06-18 with one tool, whose branches depend on its argument.
const SERVER: &str = r#"
import json, sys

def probe(word):
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
                "properties": {"word": {"type": "string"}}, "required": ["word"]}}]}
    if method == "tools/call" and isinstance(params, dict) and params.get("name") == "probe":
        arguments = params.get("arguments") if isinstance(params.get("arguments"), dict) else {}
        return {"content": [{"type": "text", "text": probe(arguments.get("word"))}]}
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

/// `mcpspec fuzz --coverage python [EXTRA] --runs 300 -- python3 SERVER`: the run, its coverage
/// line, and the files of its corpus folder.
fn campaign(extra: &[&str]) -> (crate::support::Run, String, usize) {
    let dir = tempfile::tempdir().expect("tempdir");
    let server = dir.path().join("server.py");
    std::fs::write(&server, SERVER).expect("server");
    let (server, corpus, findings) = (
        server.display().to_string(),
        dir.path().join("corpus").display().to_string(),
        dir.path().join("findings").display().to_string(),
    );
    let mut args = vec!["fuzz", "--coverage", "python", "--revision", "2025-06-18", "--runs", "300"];
    args.extend(extra);
    args.extend(["--seed", "1", "--corpus", &corpus, "--findings", &findings, "--", "python3", &server]);
    let run = run(&args, true, Duration::from_secs(120));
    assert_eq!(run.code, Some(0), "{}", run.describe());
    let line = run.stdout.lines().find(|l| l.starts_with("coverage (python")).unwrap_or_default().to_owned();
    let session = run.scenarios("fuzz/campaign")[0]["session"].as_str().unwrap_or_default().to_owned();
    assert!(session.ends_with(&line), "report.json says what the console says: {session}\n{line}");
    let kept = std::fs::read_dir(&corpus).map(|d| d.count()).unwrap_or(0);
    assert_no_leftovers(&run.marker);
    (run, line, kept)
}

/// The number before `what` in a coverage line.
fn count_before(line: &str, what: &str) -> u64 {
    let at = line.find(what).unwrap_or_else(|| panic!("no {what:?} in {line:?}"));
    line[..at].split_whitespace().last().and_then(|n| n.parse().ok()).unwrap_or_else(|| panic!("{line}"))
}

#[test]
fn a_guided_campaign_keeps_the_inputs_that_reach_new_lines() {
    let (guided, line, files) = campaign(&[]);
    assert!(line.starts_with("coverage (python, guided): "), "{}", guided.describe());
    let (lines, kept) = (count_before(&line, "lines of Python run"), count_before(&line, "input(s) kept"));
    assert!(lines > 20, "the server's lines (and its imports') are counted: {line}");
    assert!(kept > 0 && files as u64 >= kept, "{kept} kept, {files} corpus files: {line}");

    let (unguided, line, _) = campaign(&["--unguided"]);
    assert!(line.starts_with("coverage (python, measured, not guided): "), "{}", unguided.describe());
    assert!(count_before(&line, "lines of Python run") > 20, "measured all the same: {line}");
    assert_eq!(count_before(&line, "input(s) kept"), 0, "{line}");
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
