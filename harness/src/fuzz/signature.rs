//! A finding's signature and its stable id.
//!
//! The frame part comes from the tail of the child's stderr: [`top_frame`] recognizes the crash
//! reports of the runtimes MCP servers are written in (Rust, Python, Node.js, Go, Java, C with
//! glibc or AddressSanitizer) and reduces the last one to its exception type and top frame,
//! normalized so that the same bug reads the same in every run and on every machine: no line
//! numbers, addresses, pids, times or absolute paths, and quoted user data cut short.
//! [`has_panic`] is the same recognition asked as a yes/no question, for a process that lives on.

use regex::Regex;
use serde::Serialize;
use std::sync::LazyLock;

/// What oracle tripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    /// The process exited or was killed.
    Crash,
    /// The barrier (ping, or `server/discover` in the modern era) went unanswered; over HTTP,
    /// also a request that got no response head in time.
    Hang,
    /// Over HTTP: the connection closed without a response, the server living on (or, at a
    /// URL, where mcpspec cannot see it).
    Reset,
    /// Over HTTP: a 5xx answer, an error that escaped the server's handlers.
    ServerError,
    /// An answer with an id that was never sent, or a second answer to one request.
    IdDesync,
    /// A response to a notification.
    AnsweredNotification,
    /// A message invalid under the negotiated revision's schema.
    SchemaInvalid,
    /// A panic, traceback or uncaught exception on stderr while the process lived on.
    StderrPanic,
}

impl Oracle {
    /// Every oracle, most telling first.
    pub const ALL: [Oracle; 8] = [
        Oracle::Crash,
        Oracle::Hang,
        Oracle::Reset,
        Oracle::ServerError,
        Oracle::IdDesync,
        Oracle::AnsweredNotification,
        Oracle::SchemaInvalid,
        Oracle::StderrPanic,
    ];

    /// The kebab-case name, as serialized: the prefix of [`Signature::id`].
    pub fn name(self) -> &'static str {
        match self {
            Oracle::Crash => "crash",
            Oracle::Hang => "hang",
            Oracle::Reset => "reset",
            Oracle::ServerError => "server-error",
            Oracle::IdDesync => "id-desync",
            Oracle::AnsweredNotification => "answered-notification",
            Oracle::SchemaInvalid => "schema-invalid",
            Oracle::StderrPanic => "stderr-panic",
        }
    }

    /// Whether the oracle watches a campaign over `transport` (`stdio`, `http`, `sse`): the
    /// HTTP layer's own only over HTTP.
    pub fn watches(self, transport: &str) -> bool {
        !matches!(self, Oracle::Reset | Oracle::ServerError) || transport != "stdio"
    }
}

/// What makes two findings the same bug.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Signature {
    pub oracle: Oracle,
    /// The method of the culprit message (`tools/call`), `(unparsable)` for bytes that are no
    /// message, `(none)` when nothing points at one.
    pub method: String,
    /// The normalized top frame or exception type from stderr (`rust panic at src/parse.rs: …`,
    /// `python RecursionError at server.py in handle`, `node TypeError at handle (server.js)`),
    /// empty when stderr says nothing.
    pub frame: String,
}

impl Signature {
    /// `crash-1a2b3c4d`: the oracle and a hash of the rest, the same in every run and version.
    /// The hash input is fixed (`oracle\0method\0frame`, SHA-256): ids end up in issue
    /// trackers and baselines, so changing it would re-report every known finding as new.
    pub fn id(&self) -> String {
        let oracle = self.oracle.name();
        let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
        for (i, part) in [oracle, &self.method, &self.frame].into_iter().enumerate() {
            if i > 0 {
                ctx.update(b"\0");
            }
            ctx.update(part.as_bytes());
        }
        let digest = ctx.finish();
        let hex: String = digest.as_ref()[..4].iter().map(|b| format!("{b:02x}")).collect();
        format!("{oracle}-{hex}")
    }
}

/// The longest frame kept: enough for a type, a short message and a location.
const MAX_FRAME_CHARS: usize = 160;

/// Quoted text longer than this is cut: it is usually the fuzzer's own data echoed back, which
/// differs between two inputs hitting the same bug.
const MAX_QUOTED_CHARS: usize = 16;

/// The normalized top frame or exception type of a stderr tail (which may start mid-line and
/// hold unrelated log lines): the last crash report recognized, else the last non-empty line.
pub fn top_frame(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().collect();
    if let Some(report) = last_report(&lines) {
        return report.frame;
    }
    // Node's version trailer closes every report it prints: the line before it says more.
    let last = lines.iter().rev().find(|l| !l.trim().is_empty() && !NODE_TRAILER.is_match(l));
    last.map(|l| cap(&normalize(l.trim()))).unwrap_or_default()
}

/// Whether stderr shows a panic, a traceback, an uncaught exception or a fatal runtime error.
/// An error message alone (`Error: Method not found`, a logged JSON-RPC error) is no panic;
/// neither is a Node.js or Java exception with its stack of a type the program may have thrown
/// and caught itself (`McpError`), unless the runtime says it went uncaught.
pub fn has_panic(stderr: &str) -> bool {
    let lines: Vec<&str> = stderr.lines().collect();
    let panicked = reports(&lines).any(|r| r.certain);
    panicked
}

/// One crash report found in the tail.
#[derive(Debug)]
struct Report {
    /// Index of the line the report starts at: the latest report is the one that counts.
    line: usize,
    frame: String,
    /// Certainly a crash or panic, not possibly a logged error that was handled.
    certain: bool,
    /// Only a weak hint (the shell's `Aborted`): any other report wins over it.
    weak: bool,
}

/// Finds the last crash report of one runtime in the tail's lines.
type Detector = fn(&[&str]) -> Option<Report>;

fn reports<'a>(lines: &'a [&'a str]) -> impl Iterator<Item = Report> + 'a {
    let detectors: [Detector; 6] = [rust, python, node, go, java, native];
    detectors.into_iter().filter_map(move |detect| detect(lines))
}

fn last_report(lines: &[&str]) -> Option<Report> {
    let mut all: Vec<Report> = reports(lines).collect();
    if all.iter().any(|r| !r.weak) {
        all.retain(|r| !r.weak);
    }
    all.into_iter().max_by_key(|r| r.line)
}

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("a valid built-in pattern")
}

static RUST_PANIC: LazyLock<Regex> = LazyLock::new(|| {
    // 1.73+: `thread 'main' panicked at src/x.rs:1:2:` then the message on the next line
    // (recent versions add the thread id: `thread 'main' (4711) panicked`); before 1.73:
    // `thread 'main' panicked at 'msg', src/x.rs:1:2`.
    re(r"thread '[^']*'(?: \(\d+\))? panicked at (?:'(?P<old_msg>.*)', (?P<old_loc>\S+?)|(?P<loc>\S+?):?)$")
});
static RUST_OVERFLOW: LazyLock<Regex> =
    LazyLock::new(|| re(r"thread '[^']*'(?: \(\d+\))? has overflowed its stack"));
static RUST_FATAL: LazyLock<Regex> = LazyLock::new(|| re(r"^fatal runtime error: (.*)$"));

fn rust(lines: &[&str]) -> Option<Report> {
    let (at, line) = lines
        .iter()
        .enumerate()
        .rev()
        .find(|(_, l)| RUST_PANIC.is_match(l) || RUST_OVERFLOW.is_match(l) || RUST_FATAL.is_match(l))?;
    let report = |line, frame: String| Some(Report { line, frame: cap(&frame), certain: true, weak: false });
    if let Some(c) = RUST_PANIC.captures(line) {
        let (location, message) = match c.name("old_loc") {
            Some(loc) => (loc.as_str(), c.name("old_msg").map_or("", |m| m.as_str())),
            None => (c.name("loc").map_or("", |m| m.as_str()), lines.get(at + 1).copied().unwrap_or("")),
        };
        return report(
            at,
            format!("rust panic at {}: {}", rust_path(location), normalize(without_payload(message))),
        );
    }
    if RUST_OVERFLOW.is_match(line) {
        return report(at, "rust stack overflow".into());
    }
    let message = RUST_FATAL.captures(line).map_or("", |c| c.get(1).map_or("", |m| m.as_str()));
    // A stack overflow reports itself twice (`has overflowed its stack`, then `fatal runtime
    // error: stack overflow`): one bug, one frame.
    let start = at.saturating_sub(2);
    if let Some(overflow) = (start..at).find(|&i| RUST_OVERFLOW.is_match(lines[i])) {
        return report(overflow, "rust stack overflow".into());
    }
    report(at, format!("rust fatal runtime error: {}", normalize(message)))
}

/// A panic message without the values it prints with `{:?}` (`Utf8Error { valid_up_to: 0,
/// error_len: None }` becomes `Utf8Error`): they vary with the input that hit the same bug.
fn without_payload(message: &str) -> &str {
    let cut = [" {", " ("].iter().filter_map(|p| message.find(p)).min().unwrap_or(message.len());
    message[..cut].trim_end()
}

/// A panic location without line and column, relative to its crate: `src/parse.rs` stays,
/// `/home/u/.cargo/registry/src/index…/serde_json-1.0.140/src/de.rs` becomes
/// `serde_json/src/de.rs`.
fn rust_path(location: &str) -> String {
    static LINE_COL: LazyLock<Regex> = LazyLock::new(|| re(r"(?::\d+)+$"));
    static VERSION: LazyLock<Regex> = LazyLock::new(|| re(r"-\d+\.\d+\.\d+.*$"));
    let path = LINE_COL.replace(location, "").replace('\\', "/");
    if !path.starts_with('/') && !path.contains(":/") {
        return path;
    }
    let parts: Vec<&str> = path.split('/').collect();
    match parts.iter().rposition(|p| *p == "src") {
        Some(src) if src > 0 => {
            let krate = VERSION.replace(parts[src - 1], "");
            format!("{krate}/{}", parts[src..].join("/"))
        }
        _ => parts.last().copied().unwrap_or_default().to_owned(),
    }
}

/// A traceback line without the `  | ` margins anyio and CPython put around the tracebacks
/// inside an exception group; `None` for the group's separator lines (`+-+---- 1 ----`).
fn python_content(line: &str) -> Option<&str> {
    let trimmed = line.trim_start();
    if trimmed.starts_with("+-") || trimmed.starts_with("+--") {
        return None;
    }
    match trimmed.strip_prefix("| ").or_else(|| trimmed.strip_prefix("+ ")) {
        Some(inner) => Some(inner),
        None if trimmed == "|" => Some(""),
        None => Some(line),
    }
}

static PY_TRACEBACK: LazyLock<Regex> = LazyLock::new(|| re(r"Traceback \(most recent call last\):\s*$"));
static PY_FRAME: LazyLock<Regex> =
    LazyLock::new(|| re(r#"^\s+File "(?P<file>[^"]*)", line \d+, in (?P<func>.+)$"#));
static PY_EXCEPTION: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?P<type>[A-Za-z_][\w.]*)(?::\s?(?P<msg>.*))?$"));

fn python(lines: &[&str]) -> Option<Report> {
    let start = lines.iter().rposition(|l| PY_TRACEBACK.is_match(l))?;
    // From the last traceback on: the innermost frame, then the exception line. A group's
    // exception line (`ExceptionGroup: … (1 sub-exception)`) is skipped for the sub-exception
    // that follows it: the innermost real exception is the bug.
    let mut frame = None;
    let mut exception = None;
    let mut in_group = false;
    for line in &lines[start + 1..] {
        let Some(content) = python_content(line) else { continue };
        if let Some(c) = PY_FRAME.captures(content) {
            frame = Some(format!("{} in {}", file_name(&c["file"]), c["func"].trim()));
            continue;
        }
        if content.starts_with(char::is_whitespace) || content.is_empty() {
            continue;
        }
        if PY_TRACEBACK.is_match(content) {
            continue;
        }
        if let Some(c) = PY_EXCEPTION.captures(content) {
            let kind = c["type"].to_owned();
            let is_group = kind.ends_with("ExceptionGroup")
                || c.name("msg").is_some_and(|m| m.as_str().trim_end().ends_with("sub-exception)"))
                || c.name("msg").is_some_and(|m| m.as_str().trim_end().ends_with("sub-exceptions)"));
            if is_group {
                in_group = true;
                exception.get_or_insert(kind);
                continue;
            }
            if in_group || exception.is_none() {
                exception = Some(kind);
            }
            break;
        }
        if !in_group {
            break;
        }
    }
    let exception = exception.unwrap_or_else(|| "(traceback)".into());
    let frame = match frame {
        Some(f) => format!("python {exception} at {f}"),
        None => format!("python {exception}"),
    };
    Some(Report { line: start, frame: cap(&frame), certain: true, weak: false })
}

static JS_FRAME: LazyLock<Regex> = LazyLock::new(|| re(r"^\s+at (?P<body>.+)$"));
static JAVA_FRAME: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\s+at [\w$.<>/]+\((?:[\w$-]+\.(?:java|kt|scala):\d+|Native Method|Unknown Source)")
});
/// The first line of a thrown error: `TypeError: …`, `TypeError [ERR_X]: …`, `McpError: …`,
/// Deno's and the REPL's `Uncaught (in promise) Error: …`. Only names of error types: a
/// bare `word: text` is a log line.
static JS_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"^(?P<uncaught>(?:error: )?Uncaught (?:\(in promise\) )?)?(?P<type>(?:[A-Za-z_$][\w$]*\.)*[A-Za-z_$]*(?:Error|Exception))(?: \[[A-Z0-9_]+\])?(?::\s?(?P<msg>.*))?$",
    )
});
static JS_UNCAUGHT: LazyLock<Regex> =
    LazyLock::new(|| re(r"^(?:error: )?Uncaught (?:\(in promise\) )?(?P<what>.*)$"));
static JS_REJECTION: LazyLock<Regex> = LazyLock::new(|| {
    re(r"^\[UnhandledPromiseRejection: .*?(?:The promise rejected with the reason (?P<reason>.*?)\.)?\]")
});
static NODE_TRAILER: LazyLock<Regex> = LazyLock::new(|| re(r"^Node\.js v\d+"));
/// Error types only a bug throws: a program throws and catches its own `Error`s and
/// `McpError`s, and may log them with their stack, but not these.
const JS_BUG_TYPES: [&str; 5] = ["TypeError", "RangeError", "ReferenceError", "SyntaxError", "InternalError"];

fn node(lines: &[&str]) -> Option<Report> {
    let thrown = node_thrown(lines);
    // Without a stack: the REPL's or Deno's `Uncaught …`, Node's unhandled rejection of a
    // value that is no Error.
    let bare = lines.iter().rposition(|l| JS_UNCAUGHT.is_match(l) || JS_REJECTION.is_match(l)).map(|at| {
        let frame = match JS_REJECTION.captures(lines[at]) {
            Some(c) => format!(
                "node UnhandledPromiseRejection: {}",
                normalize(c.name("reason").map_or("", |m| m.as_str()))
            ),
            None => format!(
                "node Uncaught {}",
                normalize(&JS_UNCAUGHT.captures(lines[at]).expect("matched")["what"])
            ),
        };
        Report { line: at, frame: cap(&frame), certain: true, weak: false }
    });
    match (thrown, bare) {
        (Some(t), Some(b)) if b.line > t.line => Some(b),
        (Some(t), _) => Some(t),
        (None, b) => b,
    }
}

/// An error with its stack: the last run of `    at …` lines that are not Java's, and the
/// error line above it.
fn node_thrown(lines: &[&str]) -> Option<Report> {
    let last = lines.iter().rposition(|l| JS_FRAME.is_match(l) && !JAVA_FRAME.is_match(l))?;
    let mut first = last;
    while first > 0 && JS_FRAME.is_match(lines[first - 1]) {
        first -= 1;
    }
    // The message may span lines: the header is the nearest error line above the stack.
    let header_at =
        (first.saturating_sub(6)..first).rev().find(|&i| JS_HEADER.is_match(lines[i].trim_end()))?;
    let c = JS_HEADER.captures(lines[header_at].trim_end())?;
    let kind = c["type"].to_owned();
    let frames = &lines[first..=last];
    let body = |l: &&str| JS_FRAME.captures(l).map(|c| c["body"].to_owned());
    let user = frames
        .iter()
        .filter_map(body)
        .find(|b| !b.contains("node:internal/") && !b.contains("(internal/") && !b.starts_with("internal/"));
    let top = user.or_else(|| frames.iter().find_map(body)).map(|b| js_frame(&b));
    // Node reports an uncaught error with the source line and a caret above it, and its own
    // version below the stack.
    let uncaught = c.name("uncaught").is_some()
        || lines[last + 1..].iter().take(12).any(|l| NODE_TRAILER.is_match(l))
        || lines[header_at.saturating_sub(6)..header_at]
            .iter()
            .any(|l| l.contains("triggerUncaughtException"));
    let certain = uncaught || JS_BUG_TYPES.contains(&kind.as_str());
    let frame = match top {
        Some(top) => format!("node {kind} at {top}"),
        None => format!("node {kind}: {}", normalize(c.name("msg").map_or("", |m| m.as_str()))),
    };
    Some(Report { line: header_at, frame: cap(&frame), certain, weak: false })
}

/// `handle (/app/server.js:10:5)` → `handle (server.js)`; `/app/server.js:10:5` → `server.js`.
fn js_frame(body: &str) -> String {
    static LOCATION: LazyLock<Regex> = LazyLock::new(|| re(r"^(?P<func>.*?) \((?P<loc>[^()]*)\)$"));
    let location = |loc: &str| {
        let without_line = LINE_COL_SUFFIX.replace(loc, "");
        file_name(&without_line).to_owned()
    };
    match LOCATION.captures(body) {
        Some(c) if c["loc"].contains(['/', '\\', ':']) => {
            format!("{} ({})", c["func"].trim(), location(&c["loc"]))
        }
        Some(c) => c["func"].trim().to_owned(),
        None => location(body.trim()),
    }
}

static GO_PANIC: LazyLock<Regex> = LazyLock::new(|| re(r"^(?P<kind>panic|fatal error): (?P<msg>.*)$"));
static GO_GOROUTINE: LazyLock<Regex> = LazyLock::new(|| re(r"^goroutine \d+ \[[^\]]*\]:$"));

fn go(lines: &[&str]) -> Option<Report> {
    let goroutine = lines.iter().rposition(|l| GO_GOROUTINE.is_match(l))?;
    let at = lines[..goroutine].iter().rposition(|l| GO_PANIC.is_match(l))?;
    // A panic while panicking lists both (`panic: x [recovered]`, then `\tpanic: y`): the
    // first is the cause.
    let c = GO_PANIC.captures(lines[at])?;
    let message = c["msg"].trim_end_matches(" [recovered]");
    let function = lines[goroutine + 1..]
        .iter()
        .take_while(|l| !l.is_empty())
        .filter(|l| !l.starts_with(char::is_whitespace))
        .map(|l| go_function(l))
        .find(|f| !f.starts_with("panic") && !f.starts_with("runtime.") && !f.is_empty());
    let frame = match function {
        Some(f) => format!("go {}: {} in {f}", &c["kind"], normalize(message)),
        None => format!("go {}: {}", &c["kind"], normalize(message)),
    };
    Some(Report { line: at, frame: cap(&frame), certain: true, weak: false })
}

/// `main.(*Server).handle(0xc0000a6000, {0x4d, 0x2})` → `main.(*Server).handle`: the
/// arguments are the balanced group that ends the line.
fn go_function(line: &str) -> String {
    let line = line.trim_end();
    let line = line.strip_suffix("...").unwrap_or(line).trim_end();
    if !line.ends_with(')') {
        return line.to_owned();
    }
    let mut depth = 0usize;
    for (i, ch) in line.char_indices().rev() {
        match ch {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return line[..i].to_owned();
                }
            }
            _ => {}
        }
    }
    line.to_owned()
}

static JAVA_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    re(r#"^(?:Exception in thread "[^"]*" |Caused by: )(?P<type>[\w$.]+)(?::\s?(?P<msg>.*))?$"#)
});

fn java(lines: &[&str]) -> Option<Report> {
    // The last header is the root cause of a chain (`Caused by:` come last).
    let at = lines.iter().rposition(|l| JAVA_HEADER.is_match(l))?;
    let c = JAVA_HEADER.captures(lines[at])?;
    let top = lines[at + 1..].iter().take(3).find_map(|l| {
        l.trim_start().strip_prefix("at ").map(|f| f.split('(').next().unwrap_or(f).to_owned())
    });
    let kind = &c["type"];
    let frame = match top {
        Some(f) => format!("java {kind} at {f}"),
        None => format!("java {kind}"),
    };
    // Java servers log handled exceptions with their causes: only an uncaught one, a JVM
    // error or an exception only bugs throw is a panic.
    let simple = kind.rsplit('.').next().unwrap_or(kind);
    let certain = lines[..=at].iter().any(|l| l.starts_with("Exception in thread \""))
        || simple.ends_with("Error")
        || JAVA_BUG_TYPES.contains(&simple);
    Some(Report { line: at, frame: cap(&frame), certain, weak: false })
}

const JAVA_BUG_TYPES: [&str; 6] = [
    "NullPointerException",
    "ClassCastException",
    "ArithmeticException",
    "ArrayIndexOutOfBoundsException",
    "StringIndexOutOfBoundsException",
    "IndexOutOfBoundsException",
];

static NATIVE_SIGNAL: LazyLock<Regex> = LazyLock::new(|| {
    // The shell's report of a signal: the whole line, or bash's `…: line 1: 123 Segmentation
    // fault (core dumped) ./server`.
    const SIGNALS: &str = "Segmentation fault|Bus error|Illegal instruction|Floating point exception|Aborted";
    re(&format!(
        r"^(?:(?P<alone>{SIGNALS})(?:\s+\(core dumped\))?\s*|.*\b\d+\s+(?P<after_pid>{SIGNALS})\b.*)$"
    ))
});
static NATIVE_GLIBC: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"\*\*\* (?P<smash>stack smashing|buffer overflow) detected \*\*\*|(?P<double>double free)|^(?P<heap>(?:malloc|free|realloc|munmap_chunk|malloc_consolidate|corrupted size)[^:]*): (?P<what>.*)$",
    )
});
static ASAN: LazyLock<Regex> = LazyLock::new(|| re(r"ERROR: (?P<tool>\w+Sanitizer): (?P<kind>[\w-]+)"));
static ASAN_FRAME: LazyLock<Regex> = LazyLock::new(|| re(r"^\s*#\d+ 0x[0-9a-fA-F]+ in (?P<func>\S+)"));

fn native(lines: &[&str]) -> Option<Report> {
    let mut best: Option<Report> = None;
    let mut consider = |r: Report| {
        let better = match &best {
            None => true,
            Some(b) if b.weak != r.weak => b.weak,
            Some(b) => r.line >= b.line,
        };
        if better {
            best = Some(r);
        }
    };
    if let Some(at) = lines.iter().rposition(|l| ASAN.is_match(l)) {
        let c = ASAN.captures(lines[at])?;
        let func = lines[at + 1..]
            .iter()
            .filter_map(|l| ASAN_FRAME.captures(l))
            .map(|f| f["func"].to_owned())
            .find(|f| {
                !f.starts_with("__asan") && !f.starts_with("__interceptor") && !f.starts_with("__sanitizer")
            });
        let frame = match func {
            Some(f) => format!("native {} {} in {f}", &c["tool"], &c["kind"]),
            None => format!("native {} {}", &c["tool"], &c["kind"]),
        };
        consider(Report { line: at, frame: cap(&frame), certain: true, weak: false });
    }
    if let Some(at) = lines.iter().rposition(|l| NATIVE_GLIBC.is_match(l)) {
        let c = NATIVE_GLIBC.captures(lines[at])?;
        let frame = if let Some(smash) = c.name("smash") {
            format!("native {} detected", smash.as_str())
        } else if c.name("double").is_some() || lines[at].contains("double free") {
            "native double free".to_owned()
        } else {
            format!("native {}: {}", &c["heap"], normalize(&c["what"]))
        };
        consider(Report { line: at, frame: cap(&frame), certain: true, weak: false });
    }
    if let Some(at) = lines.iter().rposition(|l| NATIVE_SIGNAL.is_match(l)) {
        let c = NATIVE_SIGNAL.captures(lines[at])?;
        let signal = c.name("alone").or(c.name("after_pid")).map_or("", |m| m.as_str()).to_owned();
        // Every abort (a Rust panic with `panic = "abort"`, glibc's checks) ends in the
        // shell's `Aborted`: it names the bug only when nothing else does.
        let weak = signal == "Aborted";
        consider(Report { line: at, frame: format!("native {signal}"), certain: true, weak });
    }
    best
}

/// `/usr/lib/python3.12/site-packages/mcp/server.py` → `server.py`; also `file://` URLs and
/// Windows paths.
fn file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

static LINE_COL_SUFFIX: LazyLock<Regex> = LazyLock::new(|| re(r"(?::\d+)+$"));

/// Removes what differs between two runs of the same bug (see the module documentation).
fn normalize(text: &str) -> String {
    static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
        vec![
            // Absolute paths (Unix, Windows, file URLs) keep their file name; what follows a
            // file name (`:10:5`) is a position.
            (
                re(
                    r#"(?P<pre>^|[\s('"\[=<,])(?:file://)?(?:[A-Za-z]:\\|/)(?:[^\s/\\:'"()<>,]+[/\\])*(?P<file>[^\s/\\:'"()<>,]+)"#,
                ),
                "${pre}${file}",
            ),
            (re(r"(?P<file>\.[A-Za-z]\w*)(?::\d+)+"), "${file}"),
            (
                re(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
                "<uuid>",
            ),
            (re(r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?"), "<time>"),
            (re(r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?"), "<time>"),
            (re(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),
            (re(r"\b\d+(?:\.\d+)?\s?(?:ns|µs|us|ms|s|secs?|seconds?|min|minutes?|h|hours?)\b"), "<duration>"),
            (re(r"\b\d+(?:\.\d+)?\b"), "N"),
        ]
    });
    let mut out = shorten_quotes(text);
    for (pattern, replacement) in RULES.iter() {
        out = pattern.replace_all(&out, *replacement).into_owned();
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Quoted text (`'…'`, `"…"`) longer than [`MAX_QUOTED_CHARS`] keeps only its beginning.
fn shorten_quotes(text: &str) -> String {
    static QUOTED: LazyLock<Regex> = LazyLock::new(|| re(r#""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'"#));
    QUOTED
        .replace_all(text, |c: &regex::Captures<'_>| {
            let quoted = &c[0];
            let quote = &quoted[..1];
            let inner = &quoted[1..quoted.len() - 1];
            if inner.chars().count() <= MAX_QUOTED_CHARS {
                return quoted.to_owned();
            }
            let head: String = inner.chars().take(MAX_QUOTED_CHARS).collect();
            format!("{quote}{head}…{quote}")
        })
        .into_owned()
}

fn cap(frame: &str) -> String {
    if frame.chars().count() <= MAX_FRAME_CHARS {
        return frame.to_owned();
    }
    let mut out: String = frame.chars().take(MAX_FRAME_CHARS - 1).collect();
    out.push('…');
    out
}

#[cfg(test)]
mod tests;
