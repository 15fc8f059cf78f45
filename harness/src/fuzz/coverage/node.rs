//! Node's coverage, through its inspector.
//!
//! The process is started with `--inspect-brk=127.0.0.1:0` in `NODE_OPTIONS`: it listens on a
//! loopback port it names on stderr ("Debugger listening on ws://127.0.0.1:PORT/ID") and waits
//! before the first line of the server runs. mcpspec connects, starts V8's precise coverage
//! with block counts (`Profiler.startPreciseCoverage {callCount, detailed}`), and lets it run:
//! every function the server compiles is measured from its first run. After each window,
//! `Profiler.takePreciseCoverage` returns the counts since the last take (V8 resets them).
//!
//! A connected inspector keeps a process that exits waiting for it to disconnect ("Waiting for
//! the debugger to disconnect..."): the connection's task watches for the end of the
//! execution context (`Runtime.executionContextDestroyed`) and disconnects, so a server that
//! exits still exits, and a crash is still a crash.

use super::Reached;
use mcpspec_reference::transport::child::describe_status;
use mcpspec_reference::transport::ChildTransport;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::ffi::OsString;
use std::time::{Duration, Instant};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

/// `NODE_OPTIONS` with the inspector asked for: what was there, then ours.
pub fn node_options(inherited: &std::ffi::OsStr) -> OsString {
    let mut options = inherited.to_owned();
    if !options.is_empty() {
        options.push(" ");
    }
    options.push("--inspect-brk=127.0.0.1:0");
    options
}

/// The inspector's WebSocket URL, from what Node wrote to stderr; only a loopback one.
pub fn inspector_url(stderr: &str) -> Option<String> {
    let re = regex::Regex::new(r"Debugger listening on (ws://127\.0\.0\.1:[0-9]{1,5}/[0-9A-Za-z-]+)").ok()?;
    re.captures(stderr).map(|c| c[1].to_owned())
}

/// The blocks that ran, from a `Profiler.takePreciseCoverage` result: for each script (Node's
/// own `node:` modules and scripts without a URL left out), the byte ranges whose innermost
/// reported range has a count above zero.
///
/// V8 reports, per function, its range then its blocks' ranges, properly nested; a block whose
/// count equals its parent's may be merged away, and a function that did not run is reported
/// only when its parent did (with count 0). What ran at a position is therefore the count of
/// the innermost range that holds it, across all the script's functions.
pub fn reached(take: &Value) -> Reached {
    let mut out = Vec::new();
    for script in take.get("result").and_then(Value::as_array).into_iter().flatten() {
        let url = script.get("url").and_then(Value::as_str).unwrap_or_default();
        if url.is_empty() || url.starts_with("node:") {
            continue;
        }
        let mut ranges: Vec<(u32, u32, u64)> = Vec::new();
        for function in script.get("functions").and_then(Value::as_array).into_iter().flatten() {
            for range in function.get("ranges").and_then(Value::as_array).into_iter().flatten() {
                let field = |k: &str| range.get(k).and_then(Value::as_u64);
                if let (Some(start), Some(end), Some(count)) =
                    (field("startOffset"), field("endOffset"), field("count"))
                {
                    let clamp = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
                    ranges.push((clamp(start), clamp(end), count));
                }
            }
        }
        let ran = ran_segments(ranges);
        if !ran.is_empty() {
            out.push((url.to_owned(), ran));
        }
    }
    Reached::Ranges(out)
}

/// The positions whose innermost range has a count above zero, as merged segments.
fn ran_segments(mut ranges: Vec<(u32, u32, u64)>) -> Vec<(u32, u32)> {
    // Outer before inner: by start, the longer first.
    ranges.sort_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut emit = |from: u32, to: u32, count: u64| {
        if from >= to || count == 0 {
            return;
        }
        match out.last_mut() {
            Some(last) if last.1 == from => last.1 = to,
            _ => out.push((from, to)),
        }
    };
    // The ranges open at `cursor`, innermost last.
    let mut open: Vec<(u32, u64)> = Vec::new();
    let mut cursor = 0u32;
    for (start, end, count) in ranges {
        while let Some(&(top_end, top_count)) = open.last() {
            if top_end > start {
                break;
            }
            emit(cursor, top_end, top_count);
            cursor = cursor.max(top_end);
            open.pop();
        }
        if let Some(&(_, top_count)) = open.last() {
            emit(cursor, start, top_count);
        }
        cursor = cursor.max(start);
        // A range that overlaps its parent's end (V8 never sends one) ends with its parent.
        let end = open.last().map_or(end, |&(top_end, _)| end.min(top_end));
        open.push((end, count));
    }
    while let Some((top_end, top_count)) = open.pop() {
        emit(cursor, top_end, top_count);
        cursor = cursor.max(top_end);
    }
    out
}

type Call = (String, Value, oneshot::Sender<Value>);

/// A connection to one process's inspector, with precise coverage started.
pub struct Inspector {
    calls: mpsc::Sender<Call>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Inspector {
    fn drop(&mut self) {
        // Dropping the socket disconnects: a process waiting for its debugger goes on exiting.
        self.task.abort();
    }
}

impl Inspector {
    /// Connects to the inspector `child` announces on its stderr (waiting at most `within`),
    /// starts precise coverage and lets the server run.
    pub async fn attach(child: &mut ChildTransport, within: Duration) -> Result<Inspector, String> {
        let deadline = Instant::now() + within;
        let url = loop {
            if let Some(url) = inspector_url(&child.stderr_tail()) {
                break url;
            }
            if let Some(status) = child.try_exit() {
                return Err(format!(
                    "it {} before its inspector listened; stderr: {}",
                    describe_status(status),
                    crate::fuzz::driver::tail(&child.stderr_tail())
                ));
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "no \"Debugger listening on ws://127.0.0.1:…\" on its stderr within {within:?}: \
                     --coverage node needs the command to be node itself (not npx or a shell script)"
                ));
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let left = deadline.saturating_duration_since(Instant::now());
        let (socket, _) = tokio::time::timeout(left, tokio_tungstenite::connect_async(url.as_str()))
            .await
            .map_err(|_| format!("{url}: no WebSocket connection within {within:?}"))?
            .map_err(|e| format!("{url}: {e}"))?;
        let (calls, requests) = mpsc::channel(4);
        let inspector = Inspector { calls, task: tokio::spawn(serve(socket, requests)) };
        for (method, params) in [
            ("Profiler.enable", json!({})),
            // Its events tell when the process ends (see the module's comment).
            ("Runtime.enable", json!({})),
            ("Profiler.startPreciseCoverage", json!({"callCount": true, "detailed": true})),
            ("Runtime.runIfWaitingForDebugger", json!({})),
        ] {
            let left = deadline.saturating_duration_since(Instant::now()).max(Duration::from_millis(100));
            let answer = inspector
                .call(method, params, left)
                .await
                .ok_or_else(|| format!("{url}: no answer to {method}"))?;
            if let Some(error) = answer.get("error") {
                return Err(format!("{url}: {method} failed: {error}"));
            }
        }
        // What it said about its inspector is no window's.
        child.take_stderr();
        Ok(inspector)
    }

    /// One inspector method: its answer, or `None` when the connection ended or `within` passed.
    async fn call(&self, method: &str, params: Value, within: Duration) -> Option<Value> {
        let (reply, answer) = oneshot::channel();
        self.calls.send((method.to_owned(), params, reply)).await.ok()?;
        tokio::time::timeout(within, answer).await.ok()?.ok()
    }

    /// The blocks that ran since the last take.
    pub async fn take(&mut self, within: Duration) -> Option<Reached> {
        let answer = self.call("Profiler.takePreciseCoverage", json!({}), within).await?;
        answer.get("result").map(reached)
    }
}

/// The connection: sends calls, routes answers by id, disconnects when the process's execution
/// context is destroyed (it is exiting) or the connection ends.
async fn serve<S>(mut socket: tokio_tungstenite::WebSocketStream<S>, mut calls: mpsc::Receiver<Call>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    use futures::{SinkExt as _, StreamExt as _};
    let mut waiting: HashMap<u64, oneshot::Sender<Value>> = HashMap::new();
    let mut next = 0u64;
    loop {
        tokio::select! {
            call = calls.recv() => {
                let Some((method, params, reply)) = call else { break };
                next += 1;
                let text = json!({"id": next, "method": method, "params": params}).to_string();
                if socket.send(Message::text(text)).await.is_err() {
                    break;
                }
                waiting.insert(next, reply);
            }
            message = socket.next() => {
                let text = match message {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(_)) | Err(_)) | None => break,
                    Some(Ok(_)) => continue,
                };
                let Ok(value) = serde_json::from_str::<Value>(text.as_str()) else { continue };
                match value.get("id").and_then(Value::as_u64) {
                    Some(id) => {
                        if let Some(reply) = waiting.remove(&id) {
                            let _ = reply.send(value);
                        }
                    }
                    None if value.get("method").and_then(Value::as_str)
                        == Some("Runtime.executionContextDestroyed") => break,
                    None => {}
                }
            }
        }
    }
    let _ = tokio::time::timeout(Duration::from_millis(200), socket.close(None)).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn take(functions: Value) -> Value {
        json!({"result": [
            {"scriptId": "1", "url": "node:internal/main", "functions": [
                {"functionName": "", "ranges": [{"startOffset": 0, "endOffset": 100, "count": 1}]}]},
            {"scriptId": "2", "url": "file:///srv/server.js", "functions": functions},
        ]})
    }

    #[test]
    fn blocks_that_ran_are_reached_and_blocks_that_did_not_are_not() {
        // function a(x) { if (x > 1) { … } else { … } }: a ran, its `then` block did not.
        let result = take(json!([
            {"functionName": "a", "ranges": [
                {"startOffset": 0, "endOffset": 56, "count": 1},
                {"startOffset": 36, "endOffset": 54, "count": 0}]},
            {"functionName": "", "ranges": [
                {"startOffset": 82, "endOffset": 236, "count": 2},
                {"startOffset": 137, "endOffset": 153, "count": 0},
                {"startOffset": 190, "endOffset": 234, "count": 0}]},
            // A nested function that did not run, reported because its parent ran.
            {"functionName": "", "ranges": [{"startOffset": 201, "endOffset": 230, "count": 0}]},
        ]));
        assert_eq!(
            reached(&result),
            Reached::Ranges(vec![(
                "file:///srv/server.js".into(),
                vec![(0, 36), (54, 56), (82, 137), (153, 190), (234, 236)]
            )])
        );
    }

    #[test]
    fn a_block_inside_a_block_that_did_not_run_can_still_have_run_nothing() {
        let result = take(json!([
            {"functionName": "", "ranges": [
                {"startOffset": 0, "endOffset": 100, "count": 0},
                {"startOffset": 10, "endOffset": 50, "count": 3},
                {"startOffset": 20, "endOffset": 30, "count": 0}]},
        ]));
        assert_eq!(
            reached(&result),
            Reached::Ranges(vec![("file:///srv/server.js".into(), vec![(10, 20), (30, 50)])])
        );
    }

    #[test]
    fn nothing_run_and_nothing_well_formed_is_nothing_reached() {
        assert_eq!(reached(&take(json!([]))), Reached::Ranges(vec![]));
        assert_eq!(reached(&json!({"result": "no"})), Reached::Ranges(vec![]));
        let odd = take(json!([{"ranges": [{"startOffset": "0", "endOffset": 5, "count": 1}]}]));
        assert_eq!(reached(&odd), Reached::Ranges(vec![]));
    }

    /// Whether node runs here; where `MCPSPEC_REQUIRE_NODE` is set (CI), its absence fails.
    fn node_installed() -> bool {
        let found =
            std::process::Command::new("node").arg("--version").output().is_ok_and(|o| o.status.success());
        if !found {
            assert!(
                std::env::var_os("MCPSPEC_REQUIRE_NODE").is_none(),
                "MCPSPEC_REQUIRE_NODE is set and node is missing"
            );
            eprintln!("skipped: node is not installed");
        }
        found
    }

    /// A script run as a campaign runs a server: the first input reports the blocks it ran, the
    /// same input again nothing new, the other branch new bytes; and a process that exits with
    /// the inspector attached still exits (it would wait for its debugger otherwise).
    #[tokio::test]
    async fn the_inspector_reports_blocks_run_for_the_first_time() {
        use super::super::{prepare, CoverageConfig, CoverageMap, Source};
        use mcpspec_reference::transport::{ChildOptions, CommandSpec, StdoutUse};
        if !node_installed() {
            return;
        }
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("branches.js");
        let script = r#"
function answer(line) {
  if (line.startsWith("deep")) {
    return "deep";
  }
  return "shallow";
}
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "exit") process.exit(3);
  console.log(JSON.stringify({ answer: answer(line) }));
});
"#;
        std::fs::write(&path, script).expect("script");
        let config = CoverageConfig::new(Source::Node, true).expect("coverage folder");
        let command = CommandSpec::from_argv(["node".into(), path.into_os_string()]).expect("argv");
        let (spec, pending) = prepare(&config, &command).expect("node");
        let options = ChildOptions {
            max_message_bytes: 1 << 20,
            write_timeout: Duration::from_secs(5),
            shutdown_grace: Duration::from_millis(500),
            stderr_tail_bytes: 16 * 1024,
            frame_queue: 16,
            stdout: StdoutUse::Messages,
            ..ChildOptions::default()
        };
        let mut child = ChildTransport::spawn(&spec, options).expect("node starts");
        let mut probe =
            pending.attach(&mut child, Duration::from_secs(10)).await.expect("the inspector attaches");
        let mut map = CoverageMap::default();
        map.absorb(&probe.take(Duration::from_secs(5)).await.expect("startup"));
        let mut ask = async |line: &str| {
            child.send_bytes(format!("{line}\n").as_bytes()).await.expect("write");
            let frame = child.recv(Duration::from_secs(5)).await.expect("an answer");
            let reached = probe.take(Duration::from_secs(5)).await.expect("a take");
            (format!("{:?}", frame.content), map.absorb(&reached))
        };
        let (answer, new) = ask("first").await;
        assert!(answer.contains("shallow") && new > 0, "{answer}: {new} new bytes");
        let (answer, new) = ask("second").await;
        assert!(answer.contains("shallow") && new == 0, "the same path again: {answer}: {new} new bytes");
        let (answer, new) = ask("deep").await;
        // `{ return "deep"; }`: the block's bytes.
        assert!(
            answer.contains("deep") && (10..40).contains(&new),
            "the other branch: {answer}: {new} new bytes"
        );
        child.send_bytes(b"exit\n").await.expect("write");
        let status = child.wait_exit(Duration::from_secs(5)).await;
        assert_eq!(status.and_then(|s| s.code()), Some(3), "it exits with its debugger attached");
    }

    #[test]
    fn the_inspector_url_is_read_from_stderr_only_on_loopback() {
        let stderr = "Debugger listening on ws://127.0.0.1:41231/2e88f94c-0b03-4572-b5ee-f4ee5613c0ab\nFor help, see: https://nodejs.org/en/docs/inspector\n";
        assert_eq!(
            inspector_url(stderr).as_deref(),
            Some("ws://127.0.0.1:41231/2e88f94c-0b03-4572-b5ee-f4ee5613c0ab")
        );
        assert_eq!(inspector_url("Debugger listening on ws://0.0.0.0:9229/abc\n"), None);
        assert_eq!(inspector_url("nothing here"), None);
        assert_eq!(node_options("".as_ref()), "--inspect-brk=127.0.0.1:0");
        assert_eq!(
            node_options("--max-old-space-size=100".as_ref()),
            "--max-old-space-size=100 --inspect-brk=127.0.0.1:0"
        );
    }
}
