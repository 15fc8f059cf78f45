//! A finding's signature and its stable id. (Contract; the implementation lands with issue
//! #15.)

use serde::Serialize;

/// What oracle tripped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Oracle {
    /// The process exited or was killed.
    Crash,
    /// The barrier (ping, or `server/discover` in the modern era) went unanswered.
    Hang,
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
    pub const ALL: [Oracle; 6] = [
        Oracle::Crash,
        Oracle::Hang,
        Oracle::IdDesync,
        Oracle::AnsweredNotification,
        Oracle::SchemaInvalid,
        Oracle::StderrPanic,
    ];
}

/// What makes two findings the same bug.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct Signature {
    pub oracle: Oracle,
    /// The method of the culprit message (`tools/call`), `(unparsable)` for bytes that are no
    /// message, `(none)` when nothing points at one.
    pub method: String,
    /// The normalized top frame or exception type from stderr (`panicked at src/parse.rs`,
    /// `RecursionError`, `TypeError at handle (server.js)`), empty when stderr says nothing.
    pub frame: String,
}

impl Signature {
    /// `crash-1a2b3c4d`: the oracle and a hash of the rest, the same in every run and version.
    pub fn id(&self) -> String {
        let _ = self;
        String::new()
    }
}

/// The normalized top frame or exception type of a stderr tail.
pub fn top_frame(stderr: &str) -> String {
    let _ = stderr;
    String::new()
}

/// Whether stderr shows a panic, traceback or uncaught exception.
pub fn has_panic(stderr: &str) -> bool {
    stderr.contains("panicked at") || stderr.contains("Traceback (most recent call last)")
}
