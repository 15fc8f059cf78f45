//! Fault injection for test peers: the reference server with one deliberate defect, so that
//! mcpspec's own tests can prove each check fails when it should (`mcpspec reference server
//! --fault NAME`). Never used unless asked for.

use crate::framing::{self, FrameContent};
use serde_json::{json, Value};
use std::str::FromStr;
use std::time::Duration;
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// One deliberate defect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Fault {
    /// `initialize` echoes whatever version the client asked for, supported or not.
    EchoUnsupportedRevision,
    /// Writes a log line (not JSON) to stdout before its first answer.
    NonJsonLine,
    /// Every result response also carries an `error`.
    ResultAndError,
    /// Integer request ids are answered as strings.
    StringifyIds,
    /// Exits with status 1 before reading anything, complaining on stderr.
    CrashAtStart,
    /// Reads its input but never answers, and does not exit when stdin closes.
    Hang,
    /// Writes garbage to stdout without end and never reads.
    Flood,
    /// Writes one 16 MiB line before its first answer.
    HugeLine,
    /// Serves normally but ignores SIGTERM and keeps running after stdin closes.
    IgnoreSigterm,
    /// Starts a grandchild process (`sleep 300`) in its process group, then serves normally.
    SpawnGrandchild,
}

impl Fault {
    pub const ALL: [Fault; 10] = [
        Fault::EchoUnsupportedRevision,
        Fault::NonJsonLine,
        Fault::ResultAndError,
        Fault::StringifyIds,
        Fault::CrashAtStart,
        Fault::Hang,
        Fault::Flood,
        Fault::HugeLine,
        Fault::IgnoreSigterm,
        Fault::SpawnGrandchild,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Fault::EchoUnsupportedRevision => "echo-unsupported-revision",
            Fault::NonJsonLine => "non-json-line",
            Fault::ResultAndError => "result-and-error",
            Fault::StringifyIds => "stringify-ids",
            Fault::CrashAtStart => "crash-at-start",
            Fault::Hang => "hang",
            Fault::Flood => "flood",
            Fault::HugeLine => "huge-line",
            Fault::IgnoreSigterm => "ignore-sigterm",
            Fault::SpawnGrandchild => "spawn-grandchild",
        }
    }
}

impl FromStr for Fault {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL.into_iter().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
            format!("unknown fault {s:?} (known: {})", names.join(", "))
        })
    }
}

/// A fault in action inside [`serve_stdio`](crate::server::serve_stdio).
pub(crate) struct FaultState {
    fault: Fault,
    answered: bool,
}

impl FaultState {
    pub(crate) fn new(fault: Fault) -> Self {
        FaultState { fault, answered: false }
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

    /// Turns the server's answers to `incoming` into the bytes to write.
    pub(crate) fn outgoing(&mut self, incoming: &FrameContent, mut answers: Vec<Value>) -> Vec<u8> {
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
        let requested = match incoming {
            FrameContent::Json { value, .. } if value["method"] == "initialize" => {
                value["params"]["protocolVersion"].as_str().map(str::to_owned)
            }
            _ => None,
        };
        for a in &mut answers {
            match self.fault {
                Fault::EchoUnsupportedRevision => {
                    if let (Some(v), Some(result)) = (&requested, a.get_mut("result")) {
                        result["protocolVersion"] = v.clone().into();
                    }
                }
                Fault::ResultAndError if a.get("result").is_some() => {
                    a["error"] = json!({"code": -32603, "message": "and also an error"});
                }
                Fault::StringifyIds => {
                    if let Some(n) = a.get("id").filter(|id| id.is_number()) {
                        a["id"] = n.to_string().into();
                    }
                }
                Fault::Hang => return Vec::new(),
                _ => {}
            }
            bytes.extend(framing::encode(a));
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
