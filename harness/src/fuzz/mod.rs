//! `mcpspec fuzz`: black-box fuzzing of a running MCP implementation over its real transport.
//!
//! The stages an input passes, one module each:
//! - [`input`]: what is sent, a sequence of raw writes (framing mutations live in the bytes);
//! - [`generate`]: inputs from the revision's methods, the server's advertised tools, prompts
//!   and resources, structural and byte-level mutation, and stateful sequences; deterministic
//!   in `(seed, index)`, so a campaign is reproducible and splits into shards;
//! - `oracle`: what the implementation did with it (sans-IO: bytes in, frames out, exit status,
//!   stderr), judged into findings;
//! - [`signature`]: a finding's signature (oracle, method, the top frame of its stderr) and its
//!   stable id, so a crash found a thousand times is reported once;
//! - [`minimize`]: the smallest input that still fails the same way (over the writes, then the
//!   JSON of the culprit message, then its bytes);
//! - `driver`: the implementation as a long-lived child process, inputs pipelined between
//!   barriers, restarted after a crash; `campaign`: workers, shards, corpus, findings, reports;
//! - [`coverage`] (`--coverage node|python|sancov`): the code each input reached, from the server's
//!   runtime; inputs that reach new code join the corpus during the campaign.

pub mod campaign;
pub mod client;
pub mod coverage;
pub mod driver;
pub mod generate;
pub mod input;
pub mod merge;
pub mod minimize;
pub mod oracle;
pub mod replay;
pub mod report;
pub mod signature;

pub use input::{HttpShape, Input, InputFile, WriteRepr};

use crate::judge::rules::{self, Rule};
use mcpspec_protocol::Revision;
use serde_json::Value;
use signature::Oracle;

/// What the implementation advertised, learnt before the campaign starts: what generation
/// draws names and argument schemas from.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    /// The revision the campaign speaks (negotiated in the legacy era, sent in `_meta` in the
    /// modern one).
    pub revision: Option<Revision>,
    /// The `capabilities` of the `initialize` (or `server/discover`) result.
    pub capabilities: Value,
    /// Tool objects from `tools/list` (`name`, `inputSchema`, …), as the server sent them.
    pub tools: Vec<Value>,
    /// Prompt objects from `prompts/list` (`name`, `arguments`).
    pub prompts: Vec<Value>,
    /// Resource objects from `resources/list` (`uri`).
    pub resources: Vec<Value>,
    /// Resource template objects from `resources/templates/list` (`uriTemplate`).
    pub templates: Vec<Value>,
}

/// The rule each oracle's findings rest on, at `revision`.
pub fn rule_of(oracle: Oracle, revision: Revision) -> &'static Rule {
    match oracle {
        Oracle::Crash => &rules::NO_CRASH,
        Oracle::Hang => &rules::NO_HANG,
        // The request got no answer: the connection ended without one.
        Oracle::Reset => &rules::NO_CRASH,
        // A request answered 5xx with neither JSON nor an SSE stream (Streamable HTTP); before
        // it, HTTP+SSE answered over the stream, and a 5xx is an error that escaped its handler.
        Oracle::ServerError if revision >= Revision::V2025_03_26 => &rules::HTTP_RESPONSE_CONTENT_TYPE,
        Oracle::ServerError => &rules::NO_UNCAUGHT_ERROR,
        Oracle::IdDesync => &rules::RESPONSE_ID_MATCHES,
        Oracle::AnsweredNotification => &rules::NOTIFICATION_UNANSWERED,
        Oracle::SchemaInvalid => &rules::SCHEMA_VALID,
        Oracle::StderrPanic => &rules::NO_UNCAUGHT_ERROR,
    }
}
