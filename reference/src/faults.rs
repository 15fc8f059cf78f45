//! Fault injection for test peers: the reference server with one deliberate defect, so that
//! mcpspec's own tests can prove each check fails when it should (`mcpspec reference server
//! --fault NAME`). Never used unless asked for.
//!
//! A fault is either a small transformation of what [`serve_stdio`](crate::server::serve_stdio)
//! reads or writes ([`FaultState`]), or a flag the server consults where the defect is a decision
//! (see [`ReferenceServer::with_fault`](crate::server::ReferenceServer::with_fault)).

use crate::framing::{self, FrameContent};
use crate::server::ReferenceServer;
use crate::wire::RequestId;
use serde_json::{json, Value};
use std::str::FromStr;
use std::time::Duration;
use tokio::io::{AsyncWrite, AsyncWriteExt};

macro_rules! faults {
    ($( $(#[doc = $doc:literal])* $variant:ident => $name:literal, )*) => {
        /// One deliberate defect.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Fault {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Fault {
            /// Every fault, in the order of this file.
            pub const ALL: &'static [Fault] = &[$(Fault::$variant),*];

            /// The CLI name (`--fault NAME`).
            pub fn name(self) -> &'static str {
                match self {
                    $( Fault::$variant => $name, )*
                }
            }
        }
    };
}

faults! {
    /// `initialize` echoes whatever version the client asked for, supported or not.
    EchoUnsupportedRevision => "echo-unsupported-revision",
    /// Writes a log line (not JSON) to stdout before its first answer.
    NonJsonLine => "non-json-line",
    /// Every result response also carries an `error`.
    ResultAndError => "result-and-error",
    /// Integer request ids are answered as strings.
    StringifyIds => "stringify-ids",
    /// Exits with status 1 before reading anything, complaining on stderr.
    CrashAtStart => "crash-at-start",
    /// Reads its input but never answers, and does not exit when stdin closes.
    Hang => "hang",
    /// Writes garbage to stdout without end and never reads.
    Flood => "flood",
    /// Writes one 16 MiB line before its first answer.
    HugeLine => "huge-line",
    /// Serves normally but ignores SIGTERM and keeps running after stdin closes.
    IgnoreSigterm => "ignore-sigterm",
    /// Starts a grandchild process (`sleep 300`) in its process group, then serves normally.
    SpawnGrandchild => "spawn-grandchild",
    /// Unknown methods get -32603 instead of -32601.
    UnknownMethodWrongCode => "unknown-method-wrong-code",
    /// Unknown notifications are answered with an error response (-32601, no id).
    AnswerNotifications => "answer-notifications",
    /// Exits with status 1 on a line that is not JSON.
    CrashOnGarbage => "crash-on-garbage",
    /// `{"jsonrpc":"2.0","id":N}` (no method) is answered with a result.
    AcceptInvalidRequest => "accept-invalid-request",
    /// Every batch is answered with one -32600 error, in 2025-03-26 too.
    RejectBatches => "reject-batches",
    /// Batches are processed in every revision.
    AcceptBatches => "accept-batches",
    /// Sends `notifications/tools/list_changed` right after the initialize response.
    ListChangedBeforeInitialized => "list-changed-before-initialized",
    /// Sends `notifications/message` but does not declare `logging`.
    UndeclaredLogging => "undeclared-logging",
    /// `test_tool_with_progress` reports 3, 2, 1.
    ProgressDecreasing => "progress-decreasing",
    /// `test_tool_with_progress` sends one more progress notification after its response.
    ProgressAfterResponse => "progress-after-response",
    /// Progress notifications carry a token nobody sent.
    ProgressUnknownToken => "progress-unknown-token",
    /// Cancellation is ignored: `slow` still answers after a cancel.
    RespondAfterCancel => "respond-after-cancel",
    /// Exits with status 1 when a cancel names a request that is not in flight.
    CrashOnUnknownCancel => "crash-on-unknown-cancel",
    /// The last page's `nextCursor` points to the first page.
    PaginationCycle => "pagination-cycle",
    /// Consecutive pages overlap by one item.
    PaginationDuplicates => "pagination-duplicates",
    /// An invalid cursor gets the first page.
    AcceptInvalidCursor => "accept-invalid-cursor",
    /// An unknown tool gets an `isError` result instead of a JSON-RPC error.
    UnknownToolIsErrorResult => "unknown-tool-is-error-result",
    /// `add`'s `structuredContent` violates its `outputSchema` (`sum` is a string).
    StructuredContentMismatch => "structured-content-mismatch",
    /// An unknown resource gets -32603 instead of -32002.
    UnknownResourceWrongCode => "unknown-resource-wrong-code",
    /// `prompts/get` without a required argument succeeds.
    PromptMissingArgumentAccepted => "prompt-missing-argument-accepted",
    /// `logging/setLevel` with an invalid level succeeds.
    InvalidLogLevelAccepted => "invalid-log-level-accepted",
    /// Log messages ignore the level set by `logging/setLevel`.
    LogLevelIgnored => "log-level-ignored",
    /// A completion carries 150 values.
    CompletionTooMany => "completion-too-many",
    /// `test_sampling` sends `sampling/createMessage` to a client without `sampling`.
    SamplingWithoutCapability => "sampling-without-capability",
    /// `test_sampling` sends `tools` to a client without `sampling.tools`.
    SamplingToolsWithoutCapability => "sampling-tools-without-capability",
    /// `test_elicitation` sends `elicitation/create` to a client without `elicitation`.
    ElicitationWithoutCapability => "elicitation-without-capability",
    /// Responses are pretty-printed over several lines.
    PrettyPrintedJson => "pretty-printed-json",
    /// Sends a `ping` request right after the initialize response, before `initialized`.
    RequestBeforeInitialized => "request-before-initialized",
    /// Notifications carry an `id`.
    NotificationWithId => "notification-with-id",
    /// Each ping is answered twice.
    DuplicateResponse => "duplicate-response",
    /// Responses (but the initialize response) carry `"id": null`.
    NullIdResponse => "null-id-response",
    /// Error codes are strings.
    ErrorCodeString => "error-code-string",
    /// `ping` is answered with `{"ok":true}`.
    PingNonEmptyResult => "ping-non-empty-result",
}

impl FromStr for Fault {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL.iter().copied().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
            format!("unknown fault {s:?} (known: {})", names.join(", "))
        })
    }
}

/// What the fault layer does with an incoming line before the server sees it.
#[derive(Debug, PartialEq)]
pub(crate) enum Intercept {
    /// Hand it to the server.
    Pass,
    /// Exit the process with this status.
    Exit(i32),
    /// Answer with these messages instead of asking the server.
    Answer(Vec<Value>),
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
            _ => {}
        }
        Ok(())
    }

    /// Looks at a line before the server does.
    pub(crate) fn intercept(&mut self, incoming: &FrameContent, server: &ReferenceServer) -> Intercept {
        let value = match incoming {
            FrameContent::Invalid(_) if self.fault == Fault::CrashOnGarbage => return Intercept::Exit(1),
            FrameContent::Json { value, .. } => value,
            _ => return Intercept::Pass,
        };
        match self.fault {
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
                    Some(id) if server.is_in_flight(&id) => Intercept::Pass,
                    _ => Intercept::Exit(1),
                }
            }
            _ => Intercept::Pass,
        }
    }

    /// Turns the server's answers to `incoming` (`None`: to the passing of time) into the bytes
    /// to write.
    pub(crate) fn outgoing(&mut self, incoming: Option<&FrameContent>, mut answers: Vec<Value>) -> Vec<u8> {
        let mut bytes = Vec::new();
        if !answers.is_empty() && !self.answered {
            self.answered = true;
            match self.fault {
                Fault::NonJsonLine => bytes.extend(b"[info] reference server ready\n"),
                Fault::HugeLine => {
                    bytes.extend(std::iter::repeat_n(b'x', 16 * 1024 * 1024));
                    bytes.push(b'\n');
                }
                _ => {}
            }
        }
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
                Fault::RequestBeforeInitialized if init_ok => {
                    answers.push(json!({"jsonrpc": "2.0", "id": "mcpspec-early-ping", "method": "ping"}))
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
                Fault::Hang => return Vec::new(),
                _ => {}
            }
            for _ in 0..copies {
                if self.fault == Fault::PrettyPrintedJson && response {
                    bytes.extend(serde_json::to_vec_pretty(&a).unwrap_or_default());
                    bytes.push(b'\n');
                } else {
                    bytes.extend(framing::encode(&a));
                }
            }
        }
        bytes
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

fn ignore_sigterm() {
    use nix::sys::signal::{signal, SigHandler, Signal};
    // SAFETY: installing SIG_IGN runs no handler code; nothing else in this process relies on
    // SIGTERM's disposition.
    unsafe {
        let _ = signal(Signal::SIGTERM, SigHandler::SigIgn);
    }
}
