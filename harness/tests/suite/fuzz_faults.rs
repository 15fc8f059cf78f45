//! The planted bugs of `mcpspec fuzz` (`mcpspec reference server --fault fuzz-…`), as a fuzzer
//! meets them: a process that dies (or hangs) on its trigger, with the stderr of a real Rust bug,
//! and that answers near misses like the clean server. And the clean server itself, the fuzzer's
//! no-finding baseline: no hostile line kills it.

use crate::support::MCPSPEC;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long any answer, or the end of the process, may take.
const LIMIT: Duration = Duration::from_secs(10);

/// `mcpspec reference server [--fault FAULT]` on pipes, read by threads, every wait bounded.
struct Served {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Option<JoinHandle<String>>,
    next_id: u64,
}

impl Served {
    fn start(fault: Option<&str>) -> Served {
        let mut cmd = Command::new(MCPSPEC);
        cmd.args(["reference", "server"]);
        if let Some(f) = fault {
            cmd.args(["--fault", f]);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn mcpspec reference server");
        let stdout = child.stdout.take().unwrap();
        let mut stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stderr = std::thread::spawn(move || {
            let mut s = String::new();
            let _ = stderr.read_to_string(&mut s);
            s
        });
        Served { stdin: child.stdin.take(), child, lines, stderr: Some(stderr), next_id: 100 }
    }

    /// A legacy session at 2025-06-18, initialized.
    fn legacy(fault: Option<&str>) -> Served {
        let mut s = Served::start(fault);
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "fuzz-faults", "version": "1"}}),
        );
        assert!(init["result"].is_object(), "{init}");
        s.send_json(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        s
    }

    /// Writes one line (a newline is added); the server may be gone already.
    fn send(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        let _ = stdin.write_all(&[line, b"\n"].concat()).and_then(|()| stdin.flush());
    }

    fn send_json(&mut self, v: &Value) {
        self.send(v.to_string().as_bytes());
    }

    /// The response to `id`, skipping whatever else comes first; `None` after [`LIMIT`].
    fn response(&mut self, id: &Value, limit: Duration) -> Option<Value> {
        let until = Instant::now() + limit;
        loop {
            let line = self.lines.recv_timeout(until.checked_duration_since(Instant::now())?).ok()?;
            let Ok(v) = serde_json::from_str::<Value>(&line) else { continue };
            if v.get("method").is_none() && v["id"] == *id {
                return Some(v);
            }
        }
    }

    /// Sends a request and returns its response (failing the test without one).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(&id, LIMIT).unwrap_or_else(|| panic!("no answer to {method} within {LIMIT:?}"))
    }

    /// A modern (2026-07-28) request, `_meta` included.
    fn modern(&mut self, method: &str, mut params: Value) -> Value {
        params["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}});
        self.request(method, params)
    }

    /// Asserts the server still answers `ping`.
    fn pings(&mut self) {
        let pong = self.request("ping", json!({}));
        assert_eq!(pong["result"], json!({}), "{pong}");
    }

    /// Waits for the process to end (failing after [`LIMIT`]); its status and stderr.
    fn ended(mut self) -> (ExitStatus, String) {
        let until = Instant::now() + LIMIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                break status;
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!("the server did not end within {LIMIT:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        (status, self.stderr.take().unwrap().join().unwrap_or_default())
    }

    /// Asserts the server neither answers nor ends for `quiet` (stdin closed half-way), then
    /// kills it; its stderr.
    fn hangs(mut self, quiet: Duration) -> String {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send_json(&json!({"jsonrpc": "2.0", "id": id, "method": "ping"}));
        assert_eq!(self.response(&id, quiet / 2), None, "a hung server answered");
        self.stdin = None;
        std::thread::sleep(quiet / 2);
        assert!(self.child.try_wait().expect("wait").is_none(), "a hung server exited at stdin EOF");
        self.child.kill().expect("kill");
        self.ended().1
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn nested(depth: usize) -> Vec<u8> {
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"x":{}{}}}}}"#,
        "[".repeat(depth - 2),
        "]".repeat(depth - 2)
    )
    .into_bytes()
}

fn ping_with_id(len: usize) -> Value {
    json!({"jsonrpc": "2.0", "id": "i".repeat(len), "method": "ping"})
}

fn call(name: &str, args: Value) -> Value {
    json!({"name": name, "arguments": args})
}

const PANIC_NOTE: &str = "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n";

/// Asserts a panic in `main`: exit status 101, and stderr is exactly the panic's.
fn assert_panicked(served: Served, at: &str, message: &str) {
    let (status, stderr) = served.ended();
    assert_eq!(status.code(), Some(101), "{status:?}\n{stderr}");
    assert!(stderr.starts_with(&format!("thread 'main' panicked at {at}")), "{stderr}");
    assert!(stderr.ends_with(&format!(":\n{message}\n{PANIC_NOTE}")), "{stderr}");
}

#[test]
fn fuzz_crash_deep_nesting_aborts_beyond_64_levels_only() {
    let mut s = Served::legacy(Some("fuzz-crash-deep-nesting"));
    // Exactly 64 levels: a request like any other.
    s.send(&nested(64));
    assert_eq!(s.response(&json!(1), LIMIT).expect("answered")["result"], json!({}));
    s.send(format!("{}{}", "{\"a\":".repeat(64), "}".repeat(64)).as_bytes());
    s.send(format!("\"{}\"", "[".repeat(10_000)).as_bytes());
    s.pings();
    s.send(&nested(65));
    let (status, stderr) = s.ended();
    assert_eq!(status.signal(), Some(SIGABRT), "{status:?}\n{stderr}");
    assert_eq!(stderr, "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n");
}

/// SIGABRT's number (6 on Linux and macOS), without a libc dependency for one constant.
const SIGABRT: i32 = 6;

#[test]
fn fuzz_crash_deep_nesting_trips_on_unparsable_lines_too() {
    let mut s = Served::start(Some("fuzz-crash-deep-nesting"));
    s.pings();
    s.send(&vec![b'['; 100_000]);
    let (status, _) = s.ended();
    assert_eq!(status.signal(), Some(SIGABRT), "{status:?}");
}

#[test]
fn fuzz_crash_long_id_panics_beyond_512_bytes_only() {
    let mut s = Served::legacy(Some("fuzz-crash-long-id"));
    s.send_json(&ping_with_id(512));
    assert!(s.response(&json!("i".repeat(512)), LIMIT).is_some());
    // A response with a long id is not a request.
    s.send_json(&json!({"jsonrpc": "2.0", "id": "r".repeat(1000), "result": {}}));
    s.pings();
    s.send_json(&ping_with_id(513));
    assert_panicked(s, "reference/peers/src/server/ids.rs:", "id buffer overflow: 513 > 512");

    let mut s = Served::start(Some("fuzz-crash-long-id"));
    s.send_json(&json!({"jsonrpc": "2.0", "id": "m".repeat(2000), "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}));
    assert_panicked(s, "reference/peers/src/server/ids.rs:", "id buffer overflow: 2000 > 512");
}

#[test]
fn fuzz_crash_invalid_utf8_panics_on_bad_bytes_only() {
    let mut s = Served::legacy(Some("fuzz-crash-invalid-utf8"));
    let echo = s.request("tools/call", call("echo", json!({"message": "é – 😀 日本"})));
    assert_eq!(echo["result"]["content"][0]["text"], "é – 😀 日本");
    s.send(
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"t\":\"\u{0}\u{7f}ü\"}}".as_bytes(),
    );
    s.pings();
    s.send(b"{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\",\"params\":{\"t\":\"\xc3\x28\"}}");
    assert_panicked(
        s,
        "reference/protocol/src/framing.rs:",
        "called `Result::unwrap()` on an `Err` value: Utf8Error { valid_up_to: 55, error_len: Some(1) }",
    );
}

#[test]
fn fuzz_crash_tool_argument_divides_by_zero_on_slow_ms_0_only() {
    let mut s = Served::legacy(Some("fuzz-crash-tool-argument"));
    let add = s.request("tools/call", call("add", json!({"a": 0, "b": 0})));
    assert_eq!(add["result"]["structuredContent"]["sum"], 0.0, "{add}");
    let slow = s.request("tools/call", call("slow", json!({"ms": 1})));
    assert!(slow["result"].is_object(), "{slow}");
    let bad = s.request("tools/call", call("slow", json!({"ms": -1})));
    assert_eq!(bad["error"]["code"], -32602, "{bad}");
    s.pings();
    s.send_json(&json!({"jsonrpc": "2.0", "id": "boom", "method": "tools/call",
        "params": call("slow", json!({"ms": 0}))}));
    assert_panicked(s, "reference/peers/src/server/jobs.rs:", "attempt to divide by zero");

    // The modern era runs the same tool.
    let mut s = Served::start(Some("fuzz-crash-tool-argument"));
    let slow = s.modern("tools/call", call("slow", json!({"ms": 2})));
    assert!(slow["result"].is_object(), "{slow}");
    s.send_json(&json!({"jsonrpc": "2.0", "id": "boom", "method": "tools/call",
        "params": {"name": "slow", "arguments": {"ms": 0}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}));
    assert_panicked(s, "reference/peers/src/server/jobs.rs:", "attempt to divide by zero");
}

#[test]
fn fuzz_hang_on_input_hangs_on_an_empty_cursor_only() {
    let mut s = Served::legacy(Some("fuzz-hang-on-input"));
    let first = s.request("tools/list", json!({}));
    assert!(first["result"]["tools"].is_array(), "{first}");
    for list in ["tools/list", "prompts/list", "resources/list"] {
        assert_eq!(s.request(list, json!({"cursor": "x"}))["error"]["code"], -32602);
        assert!(s.request(list, json!({"cursor": null}))["result"].is_object());
    }
    s.pings();
    s.send_json(
        &json!({"jsonrpc": "2.0", "id": "stuck", "method": "prompts/list", "params": {"cursor": ""}}),
    );
    assert_eq!(s.response(&json!("stuck"), Duration::from_millis(500)), None);
    let stderr = s.hangs(Duration::from_millis(1000));
    assert!(!stderr.contains("panicked"), "{stderr}");

    let mut s = Served::start(Some("fuzz-hang-on-input"));
    assert!(s.modern("resources/list", json!({"cursor": "x"}))["error"].is_object());
    assert!(s.modern("tools/list", json!({"cursor": ""}))["error"].is_object(), "only prompts/list hangs");
    s.send_json(&json!({"jsonrpc": "2.0", "id": "stuck", "method": "prompts/list", "params": {"cursor": "",
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}));
    s.hangs(Duration::from_millis(1000));
}

/// A few hundred hostile lines, the fuzz faults' triggers among them, in a fixed pseudo-random
/// order.
fn hostile_lines() -> Vec<Vec<u8>> {
    let mut lines: Vec<Vec<u8>> = vec![
        vec![b'['; 100_000],
        "{\"a\":".repeat(100_000).into_bytes(),
        nested(65),
        nested(200),
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"t\":\"\xff\xfe\"}}".to_vec(),
        b"\xc3\x28\xa0\xa1\xe2\x28\xa1\xf0\x28\x8c\xbc".to_vec(),
        ping_with_id(1024 * 1024).to_string().into_bytes(),
        ping_with_id(513).to_string().into_bytes(),
        b"\0\0\0{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\0".to_vec(),
        json!({"jsonrpc":"2.0","id":"t","method":"tools/call","params":call("slow", json!({"ms": 0}))})
            .to_string()
            .into_bytes(),
        json!({"jsonrpc":"2.0","id":"c","method":"tools/list","params":{"cursor":""}}).to_string().into_bytes(),
        json!({"jsonrpc":"2.0","id":"c","method":"prompts/list","params":{"cursor":""}}).to_string().into_bytes(),
        json!([{"jsonrpc":"2.0","id":"b","method":"resources/list","params":{"cursor":""}}])
            .to_string()
            .into_bytes(),
        b"{\"jsonrpc\":\"2.0\",\"id\":1e999999,\"method\":\"ping\"}".to_vec(),
        b"{\"jsonrpc\":\"2.0\",\"id\":-0,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{\"ms\":1e400}}}".to_vec(),
        b"\xef\xbb\xbf{}".to_vec(),
        b"{\"jsonrpc\":\"2.0\"".to_vec(),
        b"null".to_vec(),
        b"[]".to_vec(),
        b"\"\\ud800\"".to_vec(),
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for i in 0..300 {
        let r = next();
        let line = match i % 6 {
            // Raw bytes, anything but a newline.
            0 => (0..r % 200).map(|_| (next() % 256) as u8).filter(|b| *b != b'\n').collect(),
            // Deep, unbalanced or mixed nesting.
            1 => (0..(r % 5000)).map(|_| if next() % 2 == 0 { b'[' } else { b'{' }).collect(),
            // Requests of random methods with random ids and params.
            2 => {
                let methods = ["ping", "tools/list", "tools/call", "prompts/get", "resources/read",
                    "initialize", "completion/complete", "logging/setLevel", "nope"];
                let method = methods[(r % methods.len() as u64) as usize];
                let id = match next() % 4 {
                    0 => json!("x".repeat((next() % 2000) as usize)),
                    1 => json!(next() as i64),
                    2 => Value::Null,
                    _ => json!({"o": 1}),
                };
                json!({"jsonrpc": "2.0", "id": id, "method": method,
                    "params": {"name": "slow", "cursor": "", "arguments": {"ms": next() % 3}}})
                .to_string()
                .into_bytes()
            }
            // Valid JSON cut short.
            3 => {
                let full = json!({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": call("echo", json!({"message": "ünï 😀"}))})
                .to_string()
                .into_bytes();
                full[..(r as usize % full.len())].to_vec()
            }
            // Multibyte text with NULs and controls.
            4 => format!("{{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{{\"t\":\"\u{0}\u{1}é{i}\u{1f600}\"}}}}")
                .into_bytes(),
            // Invalid UTF-8 in the middle of a request.
            _ => [b"{\"jsonrpc\":\"2.0\",\"id\":".as_slice(), &[0x80 | (r % 64) as u8, 0xff], b",\"method\":\"ping\"}"]
                .concat(),
        };
        lines.push(line);
    }
    lines
}

#[test]
fn the_clean_reference_server_survives_every_hostile_line() {
    let mut s = Served::legacy(None);
    for (i, line) in hostile_lines().iter().enumerate() {
        s.send(line);
        if i % 50 == 0 {
            s.pings();
        }
    }
    s.pings();
    assert!(s.child.try_wait().expect("wait").is_none(), "the clean server died");
    s.stdin = None;
    let (status, stderr) = s.ended();
    assert!(status.success(), "{status:?}\n{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("overflowed"), "{stderr}");
}
