//! Faults in action: what the fault layer of [`serve_stdio`](crate::server::serve_stdio) does
//! to the lines a faulty reference server reads and writes ([`FaultState`]), and how a planted
//! bug ends the process ([`Crash`]), as the real bug would from outside.

use super::Fault;
use mcpspec_protocol::framing::{self, FrameContent};
use mcpspec_protocol::wire::RequestId;
use serde_json::{json, Value};
use std::time::Duration;
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// What the fault layer does with an incoming line before the server sees it.
#[derive(Debug, PartialEq)]
pub(crate) enum Intercept {
    /// Hand it to the server.
    Pass,
    /// Exit the process with this status.
    Exit(i32),
    /// Answer with these messages instead of asking the server.
    Answer(Vec<Value>),
    /// Die (or hang) as the planted bug does.
    Crash(Crash),
}

/// How a planted bug (the `fuzz-` faults) ends the process, as the real bug would from outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Crash {
    /// A panic in the main thread: Rust's panic message at `at` on stderr, exit status 101.
    Panic { at: &'static str, message: String },
    /// A recursive function ran out of stack: Rust's stack overflow message, then SIGABRT.
    StackOverflow,
    /// Stuck in a loop: alive, but reading and answering nothing more, whatever comes (the end
    /// of stdin included). Only SIGTERM or SIGKILL end it.
    Hang,
}

/// The nesting a recursive parser survives (`fuzz-crash-deep-nesting`).
pub(crate) const MAX_NESTING: usize = 64;
/// The longest string id the fixed id buffer takes (`fuzz-crash-long-id`).
pub(crate) const MAX_ID_BYTES: usize = 512;

impl Crash {
    /// What the process writes to stderr as it dies.
    pub(crate) fn stderr(&self) -> String {
        match self {
            Crash::Panic { at, message } => format!(
                "thread 'main' panicked at {at}:\n{message}\nnote: run with `RUST_BACKTRACE=1` \
                 environment variable to display a backtrace\n"
            ),
            Crash::StackOverflow => {
                "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n".into()
            }
            Crash::Hang => String::new(),
        }
    }

    /// Ends the process as the bug does; a hang awaits forever instead. Never returns.
    pub(crate) async fn happen(self) -> std::convert::Infallible {
        if self == Crash::Hang {
            loop {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
        }
        eprint!("{}", self.stderr());
        match self {
            Crash::StackOverflow => std::process::abort(),
            _ => std::process::exit(101),
        }
    }

    /// `fuzz-crash-tool-argument`: `slow`'s `ms` as a divisor.
    pub(crate) fn divide_by_zero() -> Crash {
        Crash::Panic {
            at: "reference/peers/src/server/jobs.rs:87:24",
            message: "attempt to divide by zero".into(),
        }
    }
}

/// A look at one raw line (without its `\n`) before it is decoded: the crash it causes, if any.
pub(crate) type LineCheck = fn(&[u8]) -> Option<Crash>;

impl Fault {
    /// The check of each raw line (without its `\n`) before it is decoded, for the faults that
    /// act on bytes (stdio only); `None` for every other fault, which then costs nothing.
    pub(crate) fn line_check(self) -> Option<LineCheck> {
        match self {
            Fault::FuzzCrashDeepNesting => {
                Some(|line| nests_deeper_than(line, MAX_NESTING).then_some(Crash::StackOverflow))
            }
            Fault::FuzzCrashInvalidUtf8 => Some(|line| {
                let error = std::str::from_utf8(line).err()?;
                Some(Crash::Panic {
                    at: "reference/protocol/src/framing.rs:273:51",
                    message: format!("called `Result::unwrap()` on an `Err` value: {error:?}"),
                })
            }),
            _ => None,
        }
    }
}

/// Whether more than `max` arrays or objects are open at once anywhere in `line`: brackets
/// outside strings, counted on the bytes (whatever else the line holds), so that the count
/// itself never recurses.
pub(crate) fn nests_deeper_than(line: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in line {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The length of the longest string id over [`MAX_ID_BYTES`] of a request in `value` (a
/// message or a batch), if any.
fn overlong_request_id(value: &Value) -> Option<usize> {
    let of = |m: &Value| match (m.get("method"), m.get("id")) {
        (Some(_), Some(Value::String(id))) if id.len() > MAX_ID_BYTES => Some(id.len()),
        _ => None,
    };
    match value {
        Value::Array(items) => items.iter().find_map(of),
        _ => of(value),
    }
}

/// The notifications the reference server knows; the rest are "unknown".
const KNOWN_NOTIFICATIONS: [&str; 4] = [
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// A fault in action inside [`serve_stdio`](crate::server::serve_stdio).
pub(crate) struct FaultState {
    fault: Fault,
    answered: bool,
    notifications_sent: u64,
}

impl FaultState {
    pub(crate) fn new(fault: Fault) -> Self {
        FaultState { fault, answered: false, notifications_sent: 0 }
    }

    pub(crate) async fn at_start<W: AsyncWrite + Unpin>(&mut self, out: &mut W) -> std::io::Result<()> {
        match self.fault {
            Fault::CrashAtStart => {
                eprintln!("fatal: mcpspec fault 'crash-at-start'");
                std::process::exit(1);
            }
            Fault::Flood => loop {
                out.write_all(b"flood flood flood flood flood flood flood flood flood flood\n").await?;
            },
            Fault::IgnoreSigterm => ignore_sigterm(),
            Fault::SpawnGrandchild => {
                // Inherits our process group; `std` so that nothing waits for it.
                std::process::Command::new("sleep").arg("300").spawn()?;
            }
            Fault::ExitAtOnce => std::process::exit(0),
            Fault::NeverRead | Fault::CloseStdout => {
                if self.fault == Fault::CloseStdout {
                    close_stdout();
                }
                live_on();
            }
            Fault::EndlessLine => {
                let chunk = vec![b'x'; 1 << 20];
                for _ in 0..1024 {
                    out.write_all(&chunk).await?;
                }
                out.flush().await?;
                live_on();
            }
            Fault::NotificationFlood => {
                let line = framing::encode(&json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "flood"}}));
                let batch = line.repeat(64);
                loop {
                    out.write_all(&batch).await?;
                }
            }
            Fault::AnswerLate => std::thread::sleep(Duration::from_secs(600)),
            Fault::GrandchildHoldsPipes | Fault::SetsidGrandchild => {
                spawn_pipe_holder(self.fault == Fault::SetsidGrandchild)?;
                eprintln!("fatal: mcpspec fault '{}'", self.fault.name());
                std::process::exit(1);
            }
            _ => {}
        }
        Ok(())
    }

    /// Looks at a line before the server does.
    /// `in_flight` says whether the server is still working on a request.
    pub(crate) fn intercept(
        &mut self,
        incoming: &FrameContent,
        in_flight: impl Fn(&RequestId) -> bool,
    ) -> Intercept {
        let value = match incoming {
            FrameContent::Invalid(_) if self.fault == Fault::CrashOnGarbage => return Intercept::Exit(1),
            FrameContent::Json { value, .. } => value,
            _ => return Intercept::Pass,
        };
        match self.fault {
            Fault::CrashMidSession
                if value.get("id").is_some()
                    && value.get("method").and_then(Value::as_str).is_some_and(|m| m != "initialize") =>
            {
                Intercept::Exit(1)
            }
            Fault::FuzzCrashLongId => match overlong_request_id(value) {
                Some(len) => Intercept::Crash(Crash::Panic {
                    at: "reference/peers/src/server/ids.rs:48:13",
                    message: format!("id buffer overflow: {len} > {MAX_ID_BYTES}"),
                }),
                None => Intercept::Pass,
            },
            Fault::RejectBatches if value.is_array() => Intercept::Answer(vec![json!({"jsonrpc": "2.0",
                "error": {"code": -32600, "message": "Invalid Request: batches are not supported"}})]),
            Fault::AcceptInvalidRequest
                if value.get("method").is_none()
                    && value.get("result").is_none()
                    && value.get("error").is_none() =>
            {
                match value.get("id").filter(|id| RequestId::from_value(id).is_some()) {
                    Some(id) => Intercept::Answer(vec![json!({"jsonrpc": "2.0", "id": id, "result": {}})]),
                    None => Intercept::Pass,
                }
            }
            Fault::CrashOnUnknownCancel if value["method"] == "notifications/cancelled" => {
                match RequestId::from_value(&value["params"]["requestId"]) {
                    Some(id) if in_flight(&id) => Intercept::Pass,
                    _ => Intercept::Exit(1),
                }
            }
            _ => Intercept::Pass,
        }
    }

    /// Turns the server's answers to `incoming` (`None`: to the passing of time) into the bytes
    /// to write.
    pub(crate) fn outgoing(&mut self, incoming: Option<&FrameContent>, answers: Vec<Value>) -> Vec<u8> {
        let mut bytes = Vec::new();
        if self.fault == Fault::InvalidUtf8 {
            // A lone continuation byte and a byte UTF-8 never uses, inside what looks like JSON.
            for _ in &answers {
                bytes.extend(b"{\"jsonrpc\":\"2.0\",\"result\":\"\x80\xff\"}\n");
            }
            return bytes;
        }
        if !answers.is_empty() && !self.answered {
            self.answered = true;
            match self.fault {
                Fault::NonJsonLine => bytes.extend(b"[info] reference server ready\n"),
                Fault::HugeLine => {
                    // One memset: written byte by byte, a debug build spent a third of a
                    // second of CPU per start on it.
                    bytes.extend_from_slice(&vec![b'x'; 16 * 1024 * 1024]);
                    bytes.push(b'\n');
                }
                _ => {}
            }
        }
        for a in self.messages(incoming, answers) {
            let response = a.get("method").is_none();
            if self.fault == Fault::PrettyPrintedJson && response {
                bytes.extend(serde_json::to_vec_pretty(&a).unwrap_or_default());
                bytes.push(b'\n');
            } else {
                bytes.extend(framing::encode(&a));
            }
        }
        bytes
    }

    /// The message-level part of [`outgoing`](Self::outgoing): the server's answers to
    /// `incoming` as the fault changes them (added, altered, duplicated or dropped messages).
    /// This part applies over every transport; the bytes around it only over stdio.
    pub(crate) fn messages(
        &mut self,
        incoming: Option<&FrameContent>,
        mut answers: Vec<Value>,
    ) -> Vec<Value> {
        let mut out = Vec::new();
        let incoming = match incoming {
            Some(FrameContent::Json { value, .. }) => Some(value),
            _ => None,
        };
        let method = incoming.and_then(|v| v.get("method")).and_then(Value::as_str);
        let is_request = incoming.is_some_and(|v| v.get("id").is_some());
        let initialize = method == Some("initialize");
        if initialize {
            let init_ok = answers.iter().any(|a| a.get("result").is_some());
            match self.fault {
                Fault::ListChangedBeforeInitialized if init_ok => {
                    answers.push(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
                }
                // A ping would be legal here (lifecycle.mdx: "other than pings and logging"),
                // and a request for an undeclared capability would be a second defect: the early
                // request is roots/list, or sampling, whichever the client declared.
                Fault::RequestBeforeInitialized if init_ok => {
                    let caps = incoming.map(|v| &v["params"]["capabilities"]);
                    let declared = |c: &str| caps.and_then(|caps| caps.get(c)).is_some_and(|v| !v.is_null());
                    if declared("roots") {
                        answers.push(
                            json!({"jsonrpc": "2.0", "id": "mcpspec-early-request", "method": "roots/list"}),
                        );
                    } else if declared("sampling") {
                        answers.push(json!({"jsonrpc": "2.0", "id": "mcpspec-early-request",
                            "method": "sampling/createMessage", "params": {"maxTokens": 10,
                                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}}));
                    }
                }
                _ => {}
            }
        }
        if self.fault == Fault::AnswerNotifications
            && !is_request
            && method.is_some_and(|m| !KNOWN_NOTIFICATIONS.contains(&m))
        {
            answers.push(json!({"jsonrpc": "2.0",
                "error": {"code": -32601, "message": format!("Method not found: {}", method.unwrap_or(""))}}));
        }
        // After the answer: nothing waits for it, so only judging what is still in flight at
        // the end of a session catches it.
        if self.fault == Fault::ProgressTokenZero
            && is_request
            && method == Some("tools/call")
            && incoming.is_some_and(|v| v.pointer("/params/_meta/progressToken").is_none())
        {
            answers.push(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 0, "progress": 1}}));
        }
        for mut a in answers {
            let response = a.get("method").is_none();
            let notification = !response && a.get("id").is_none();
            let mut copies = 1;
            match self.fault {
                Fault::EchoUnsupportedRevision if initialize => {
                    let requested = incoming.map(|v| v["params"]["protocolVersion"].clone());
                    if let (Some(v @ Value::String(_)), Some(result)) = (requested, a.get_mut("result")) {
                        result["protocolVersion"] = v;
                    }
                }
                Fault::WebsiteUrlNotUri if initialize => {
                    if let Some(info) = a.pointer_mut("/result/serverInfo").and_then(Value::as_object_mut) {
                        info.insert("websiteUrl".into(), "not a uri".into());
                    }
                }
                Fault::UndeclaredLogging if initialize => {
                    if let Some(caps) = a.pointer_mut("/result/capabilities").and_then(Value::as_object_mut) {
                        caps.remove("logging");
                    }
                }
                Fault::ResultAndError if a.get("result").is_some() => {
                    a["error"] = json!({"code": -32603, "message": "and also an error"});
                }
                Fault::StringifyIds if response => {
                    if let Some(n) = a.get("id").filter(|id| id.is_number()) {
                        a["id"] = n.to_string().into();
                    }
                }
                Fault::UnknownMethodWrongCode if a["error"]["code"] == -32601 => {
                    a["error"]["code"] = json!(-32603)
                }
                Fault::UnknownResourceWrongCode if a["error"]["code"] == -32002 => {
                    a["error"]["code"] = json!(-32603)
                }
                Fault::ErrorCodeString if a["error"]["code"].is_i64() => {
                    a["error"]["code"] = a["error"]["code"].to_string().into();
                }
                Fault::ProgressUnknownToken if a["method"] == "notifications/progress" => {
                    a["params"]["progressToken"] = "mcpspec-token-nobody-sent".into();
                }
                Fault::NotificationWithId if notification => {
                    self.notifications_sent += 1;
                    a["id"] = format!("notification-{}", self.notifications_sent).into();
                }
                Fault::NullIdResponse if response && !initialize => a["id"] = Value::Null,
                Fault::DuplicateResponse if response && method == Some("ping") => copies = 2,
                Fault::PingNonEmptyResult if method == Some("ping") && a.get("result").is_some() => {
                    a["result"] = json!({"ok": true});
                }
                // Not on ping: its result is judged as exactly `{}` by the scenarios that use it.
                Fault::MetaKeyMalformed
                    if a.get("result").is_some_and(Value::is_object) && method != Some("ping") =>
                {
                    a["result"]["_meta"]["_internal"] = json!(true);
                }
                Fault::TraceparentMalformed
                    if a.get("result").is_some_and(Value::is_object) && method != Some("ping") =>
                {
                    a["result"]["_meta"]["traceparent"] = json!("00-not-a-trace-01");
                }
                Fault::ModernXMcpHeaderInvalid if a["result"]["resultType"].is_string() => {
                    let tools = a["result"]["tools"].as_array_mut().into_iter().flatten();
                    for tool in tools {
                        if let Some(props) =
                            tool.pointer_mut("/inputSchema/properties").and_then(Value::as_object_mut)
                        {
                            props.insert(
                                "mcpspecBad".into(),
                                json!({"type": "number", "x-mcp-header": "Bad Name"}),
                            );
                        }
                    }
                }
                Fault::ToolSchemaInvalid if a["result"]["tools"].is_array() => {
                    if let Some(schema) = a.pointer_mut("/result/tools/0/inputSchema") {
                        schema["properties"]["mcpspecBad"] = json!({"type": "invalid_type"});
                    }
                }
                Fault::Hang => return Vec::new(),
                _ => {}
            }
            for _ in 0..copies {
                out.push(a.clone());
            }
        }
        out
    }

    /// After stdin closed: some faults refuse to exit.
    pub(crate) async fn at_eof(&mut self) {
        if matches!(self.fault, Fault::Hang | Fault::IgnoreSigterm) {
            loop {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
        }
    }
}

/// Closes every descriptor of this process that is its stdout's pipe (fd 1 and the copies the
/// event loop writes through): the reader sees end of file while the process lives on.
fn close_stdout() {
    let Ok(stdout) = std::fs::read_link("/proc/self/fd/1") else { return };
    let fds: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == stdout))
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    for fd in fds {
        let _ = nix::unistd::close(fd);
    }
}

/// Starts a grandchild that holds this process's stdin, stdout and stderr open: `sleep 300` in
/// the process group, or with `setsid`, `sleep 60` in a session (and group) of its own.
pub(crate) fn spawn_pipe_holder(setsid: bool) -> std::io::Result<()> {
    let mut grandchild = std::process::Command::new("sleep");
    if setsid {
        grandchild.arg("60");
        use std::os::unix::process::CommandExt as _;
        // SAFETY: setsid is async-signal-safe, as code between fork and exec must be.
        unsafe {
            grandchild.pre_exec(|| nix::unistd::setsid().map(drop).map_err(std::io::Error::from));
        }
    } else {
        grandchild.arg("300");
    }
    // Inherits stdin, stdout and stderr: the pipes stay open while it lives.
    grandchild.spawn().map(drop)
}

/// Blocks this thread until the process is killed (a hostile process never exits on its own).
pub(crate) fn live_on() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn ignore_sigterm() {
    use nix::sys::signal::{signal, SigHandler, Signal};
    // SAFETY: installing SIG_IGN runs no handler code; nothing else in this process relies on
    // SIGTERM's disposition.
    unsafe {
        let _ = signal(Signal::SIGTERM, SigHandler::SigIgn);
    }
}
