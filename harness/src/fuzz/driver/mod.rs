//! The implementation under fuzzing and the session the campaign speaks to it: over stdio
//! (`stdio.rs`: a long-lived child process, inputs pipelined between barriers) or over HTTP
//! (`http.rs`: a server at a URL, or started from a command on a free port; each write one
//! request body). Both judge with the same sans-IO [`Watch`](super::oracle::Watch) and end each
//! window with the same barrier request, so a campaign, its minimization and a replay run the
//! same way over either.

mod http;
mod stdio;

pub use http::HttpDriver;
pub use stdio::StdioDriver;

use super::oracle::Trip;
use super::Input;
use mcpspec_protocol::framing::{Frame, FrameContent};
use mcpspec_protocol::{modern, Revision};
use mcpspec_reference::transport::http_client::{HeaderName, HeaderValue};
use mcpspec_reference::transport::{CommandSpec, Flavor};
use mcpspec_schema::SchemaSet;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// Which side of the protocol the implementation under fuzzing is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FuzzRole {
    Server,
    Client,
}

impl FuzzRole {
    /// `server` or `client`, as reports name a role.
    pub fn name(self) -> &'static str {
        match self {
            FuzzRole::Server => "server",
            FuzzRole::Client => "client",
        }
    }
}

/// What is fuzzed, and over which transport.
#[derive(Debug, Clone)]
pub enum FuzzTarget {
    /// A command spoken to over its stdio: a process per driver, started again after a crash.
    Stdio(CommandSpec),
    /// A server over Streamable HTTP or HTTP+SSE.
    Http(HttpTarget),
}

/// A server over HTTP.
#[derive(Debug, Clone)]
pub struct HttpTarget {
    pub flavor: Flavor,
    /// The endpoint; `{port}` stands for the port a started command listens on.
    pub url: String,
    /// The server's command (`{port}` in its arguments, `PORT` in its environment), started by
    /// each driver on a free port, and again after a crash; `None`: a server already running
    /// at `url`, which mcpspec cannot restart (its crash ends the campaign).
    pub command: Option<CommandSpec>,
    /// Headers added to every request (`--header`, e.g. a token).
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl FuzzTarget {
    /// `stdio`, `http` or `sse`.
    pub fn transport(&self) -> &'static str {
        match self {
            FuzzTarget::Stdio(_) => "stdio",
            FuzzTarget::Http(h) => h.flavor.name(),
        }
    }

    /// The command, or the URL when there is none, for reports.
    pub fn display(&self) -> String {
        match self {
            FuzzTarget::Stdio(command) => command.display(),
            FuzzTarget::Http(HttpTarget { command: Some(command), .. }) => command.display(),
            FuzzTarget::Http(h) => h.url.clone(),
        }
    }

    /// The URL of a server over HTTP (`{port}` as given).
    pub fn url(&self) -> Option<&str> {
        match self {
            FuzzTarget::Stdio(_) => None,
            FuzzTarget::Http(h) => Some(&h.url),
        }
    }
}

/// The name every fuzzing client uses.
pub const CLIENT_NAME: &str = "mcpspec-fuzz";

/// What every driver of a campaign shares.
#[derive(Clone)]
pub struct DriverConfig {
    /// Which side the implementation is: a server (fuzzed by a [`Driver`]), or a client
    /// (fuzzed by [`crate::fuzz::client`], mcpspec its server over stdio).
    pub role: FuzzRole,
    pub target: FuzzTarget,
    pub revision: Revision,
    /// Judge what the implementation sends (none: no schema oracle).
    pub schemas: Option<Arc<SchemaSet>>,
    /// How long a barrier may take before the implementation is said to hang.
    pub hang_timeout: Duration,
    /// How long the implementation may take to start and answer `initialize`.
    pub start_timeout: Duration,
    pub max_message_bytes: usize,
    /// Where the server's runtime reports the code it ran (`--coverage`), when asked.
    pub coverage: Option<crate::fuzz::coverage::CoverageConfig>,
}

/// What one window (or one probe) came to.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// Every oracle that tripped, crash and hang included.
    pub trips: Vec<Trip>,
    /// What the implementation wrote to stderr during the window.
    pub stderr: String,
    /// From the first write to the barrier's answer.
    pub elapsed: Duration,
}

impl Outcome {
    /// The trip that matters most: a crash explains a hang, a hang explains the rest.
    pub fn primary(&self) -> Option<&Trip> {
        self.trips.iter().min_by_key(|t| t.oracle)
    }
}

/// Why a driver could not get a session going: no verdict on the implementation, a campaign
/// cannot run.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("{0}")]
    Spawn(String),
    #[error("the implementation did not complete initialize: {0}")]
    Setup(String),
}

/// A session with the implementation, over its transport.
pub enum Driver {
    // Boxed: a driver lives as long as a worker, and the two are of unequal size.
    Stdio(Box<StdioDriver>),
    Http(Box<HttpDriver>),
}

impl Driver {
    pub fn new(config: Arc<DriverConfig>) -> Driver {
        match config.target.clone() {
            FuzzTarget::Stdio(command) => Driver::Stdio(Box::new(StdioDriver::new(config, command))),
            FuzzTarget::Http(target) => Driver::Http(Box::new(HttpDriver::new(config, target))),
        }
    }

    pub fn config(&self) -> &DriverConfig {
        match self {
            Driver::Stdio(d) => d.config(),
            Driver::Http(d) => d.config(),
        }
    }

    /// How many times a process was started.
    pub fn starts(&self) -> u64 {
        match self {
            Driver::Stdio(d) => d.starts,
            Driver::Http(d) => d.starts,
        }
    }

    /// The `initialize` (or `server/discover`) result of the current session.
    pub fn server_description(&self) -> Option<&Value> {
        match self {
            Driver::Stdio(d) => d.server_description.as_ref(),
            Driver::Http(d) => d.server_description.as_ref(),
        }
    }

    /// A session set up (legacy: initialized), started when there is none.
    pub async fn ensure_started(&mut self) -> Result<(), StartError> {
        match self {
            Driver::Stdio(d) => d.ensure_started().await,
            Driver::Http(d) => d.ensure_started().await,
        }
    }

    /// Writes the inputs into the running session, then a barrier, and judges the window.
    pub async fn run(&mut self, inputs: &[&Input]) -> Result<Outcome, StartError> {
        match self {
            Driver::Stdio(d) => d.run(inputs).await,
            Driver::Http(d) => d.run(inputs).await,
        }
    }

    /// Runs one input on a process (over HTTP, a session) of its own, the way a reproducer
    /// replays: set up unless the input is `fresh`, the input, a barrier.
    pub async fn run_alone(&mut self, input: &Input) -> Result<Outcome, StartError> {
        match self {
            Driver::Stdio(d) => d.run_alone(input).await,
            Driver::Http(d) => d.run_alone(input).await,
        }
    }

    /// The code the process reached since the last take (`--coverage`): `None` without a
    /// coverage source, or when the process could not say.
    pub async fn take_coverage(&mut self) -> Option<crate::fuzz::coverage::Reached> {
        match self {
            Driver::Stdio(d) => d.take_coverage().await,
            Driver::Http(d) => d.take_coverage().await,
        }
    }

    /// What each answered request of the last window came back as.
    pub fn take_shapes(&mut self) -> Vec<(usize, String)> {
        match self {
            Driver::Stdio(d) => d.take_shapes(),
            Driver::Http(d) => d.take_shapes(),
        }
    }

    /// One request of the driver's own in the running session: its result, or `None` when it
    /// answered with an error or not in time.
    pub async fn call(&mut self, method: &str, params: Value) -> Option<Value> {
        match self {
            Driver::Stdio(d) => d.call(method, params).await,
            Driver::Http(d) => d.call(method, params).await,
        }
    }

    /// Ends the session and its process, if any; names what it left running outside its
    /// process group.
    pub async fn stop(&mut self) -> Option<String> {
        match self {
            Driver::Stdio(d) => d.stop().await,
            Driver::Http(d) => d.stop().await,
        }
    }
}

pub(crate) fn is_answer_to(frame: &Frame, id: &str) -> bool {
    let FrameContent::Json { value, .. } = &frame.content else { return false };
    value.get("id").and_then(Value::as_str) == Some(id) && value.get("method").is_none()
}

/// The fuzzer's answer to a request from the implementation: an empty result to `ping`, no
/// roots, and "not supported" for the rest (it declares no capabilities).
pub(crate) fn answer_to(request: &Value) -> Value {
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    match request.get("method").and_then(Value::as_str) {
        Some("ping") => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
        _ => {
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "not supported by mcpspec fuzz"}})
        }
    }
}

/// The `initialize` request of the fuzzing client (no capabilities: the implementation has no
/// reason to send requests of its own).
pub fn initialize(revision: Revision) -> Value {
    json!({"jsonrpc": "2.0", "id": "mcpspec-init", "method": "initialize", "params": {
        "protocolVersion": revision.as_str(),
        "capabilities": {},
        "clientInfo": {"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")},
    }})
}

/// The `_meta` every modern-era request of the fuzzing client carries.
pub fn request_meta(revision: Revision) -> Value {
    modern::request_meta(
        modern::wire_version(revision),
        &json!({}),
        Some(&json!({"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")})),
    )
}

pub(crate) fn discover(revision: Revision, id: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
           "params": modern::with_request_meta(None, &request_meta(revision))})
}

/// The last lines of a stderr text, for one-line details.
pub fn tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    let start = lines.len().saturating_sub(3);
    let mut text = lines[start..].join(" | ");
    if text.len() > 300 {
        let mut cut = text.len() - 300;
        while !text.is_char_boundary(cut) {
            cut += 1;
        }
        text = format!("…{}", &text[cut..]);
    }
    if text.is_empty() {
        "(nothing)".to_owned()
    } else {
        text
    }
}
