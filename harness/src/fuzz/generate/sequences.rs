//! Stateful inputs: several messages whose meaning lies in their order and ids. Cancels that
//! race their request (or come before it, or name no request), ids used twice, floods, answers
//! nobody asked for, notifications carrying ids, batches; requests without `_meta` or at an
//! unsupported version (modern era); and, rarely, inputs that bring their own opening on a fresh
//! process: requests before `initialize`, a second or a broken `initialize` (legacy era).

use super::{notification, Draw, Generator, Valid};
use mcpspec_protocol::framing::encode;
use mcpspec_protocol::{modern, Era};
use rand::seq::IndexedRandom;
use rand::RngExt;
use serde_json::{json, Value};

/// One stateful sequence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Sequence {
    /// A request followed at once by `notifications/cancelled` for it.
    CancelRace,
    /// `notifications/cancelled` for an id never sent.
    CancelUnknown,
    /// `notifications/cancelled` for a request sent right after it.
    CancelBeforeRequest,
    /// Two requests back to back with the same id.
    IdReuse,
    /// 50 to 500 cheap requests or notifications at once.
    Flood,
    /// A notification method sent with an id.
    NotificationWithId,
    /// A response (result or error) to a request never made.
    ResponseToNothing,
    /// A JSON-RPC batch of 0 to 4 messages (part of 2025-03-26 only, an error elsewhere).
    Batch,
    /// Fresh, legacy: requests before `initialize`, then the handshake.
    RequestsBeforeInitialize,
    /// Fresh, legacy: the handshake, then `initialize` again.
    SecondInitialize,
    /// Fresh, legacy: `initialize` with broken params.
    BrokenInitialize,
    /// Fresh, modern: a request without (part of) its `_meta`.
    MissingMeta,
    /// Fresh, modern: a request at a version the server does not speak.
    UnsupportedVersion,
}

impl Sequence {
    /// The sequences of an era with their weights among sequences (fresh ones, legacy only, about 1.5 %).
    pub fn weighted(era: Era) -> Vec<(Sequence, u32)> {
        let legacy = u32::from(era == Era::Legacy);
        let modern = u32::from(era == Era::Modern);
        vec![
            (Sequence::CancelRace, 45),
            (Sequence::CancelUnknown, 20),
            (Sequence::CancelBeforeRequest, 20),
            (Sequence::IdReuse, 30),
            (Sequence::Flood, 25),
            (Sequence::NotificationWithId, 25),
            (Sequence::ResponseToNothing, 25),
            (Sequence::Batch, 10),
            // A fresh process costs a start (milliseconds, seconds for some runtimes) where a
            // pipelined input costs microseconds: fresh inputs are kept to about 0.3 %.
            (Sequence::RequestsBeforeInitialize, legacy),
            (Sequence::SecondInitialize, legacy),
            (Sequence::BrokenInitialize, legacy),
            (Sequence::MissingMeta, 5 * modern),
            (Sequence::UnsupportedVersion, 5 * modern),
        ]
        .into_iter()
        .filter(|(_, w)| *w > 0)
        .collect()
    }
}

/// Versions a modern server does not speak (or that are no version at all).
const UNSUPPORTED_VERSIONS: [&str; 6] = ["1999-01-01", "2024-11-05", "2025-11-25", "2099-12-31", "", "draft"];

/// Broken `initialize` params: a description and the params (`None`: no params at all).
fn broken_initialize_params(version: &str, which: usize) -> (&'static str, Option<Value>) {
    let info = json!({"name": "mcpspec-fuzz", "version": env!("CARGO_PKG_VERSION")});
    match which {
        0 => ("no protocolVersion", Some(json!({"capabilities": {}, "clientInfo": info}))),
        1 => (
            "numeric protocolVersion",
            Some(json!({"protocolVersion": 20251125, "capabilities": {}, "clientInfo": info})),
        ),
        2 => (
            "unknown protocolVersion",
            Some(json!({"protocolVersion": "1999-01-01", "capabilities": {}, "clientInfo": info})),
        ),
        3 => (
            "capabilities an array",
            Some(json!({"protocolVersion": version, "capabilities": [], "clientInfo": info})),
        ),
        4 => ("no clientInfo", Some(json!({"protocolVersion": version, "capabilities": {}}))),
        5 => ("params null", Some(Value::Null)),
        _ => ("no params", None),
    }
}

impl Generator {
    pub(super) fn sequence(&self, sequence: Sequence, d: &mut Draw) -> super::Input {
        let (label, writes, fresh) = match sequence {
            Sequence::CancelRace => {
                let request = self.valid_request(d);
                let cancel = cancelled(&request.message["id"]);
                let label = format!("cancel race on {}", request.label);
                (label, self.lines(&[request.message, cancel], d), false)
            }
            Sequence::CancelUnknown => {
                let id = d.id();
                (format!("cancel for unknown id {id}"), vec![encode(&cancelled(&id))], false)
            }
            Sequence::CancelBeforeRequest => {
                let request = self.valid_request(d);
                let cancel = cancelled(&request.message["id"]);
                let label = format!("cancel before its request ({})", request.label);
                (label, self.lines(&[cancel, request.message], d), false)
            }
            Sequence::IdReuse => {
                let first = self.valid_request(d);
                let mut second = self.valid_request(d);
                second.message["id"] = first.message["id"].clone();
                let label = format!(
                    "id reuse: {} and {} share id {}",
                    first.label, second.label, first.message["id"]
                );
                (label, self.lines(&[first.message, second.message], d), false)
            }
            Sequence::Flood => {
                let count = (50.0 * 10f64.powf(d.rng.random_range(0.0..1.0))) as usize;
                let requests = d.rng.random_bool(0.7);
                let messages: Vec<Value> = (0..count)
                    .map(|_| if requests { self.cheap_request(d).message } else { cancelled(&d.id()) })
                    .collect();
                let what =
                    if requests { messages[0]["method"].as_str().unwrap_or_default() } else { "cancels" };
                (format!("flood: {count} {what}"), self.lines(&messages, d), false)
            }
            Sequence::NotificationWithId => {
                let notifications: Vec<_> = self.methods.iter().filter(|m| !m.request).collect();
                let mut message = match notifications.choose(&mut d.rng) {
                    Some(template) => self.schema_message(template, d).message,
                    None => notification("notifications/initialized", None),
                };
                message["id"] = d.id();
                let label = format!("{} with an id", message["method"].as_str().unwrap_or_default());
                (label, vec![encode(&message)], false)
            }
            Sequence::ResponseToNothing => {
                let id = d.id();
                // The error names its input, so that it can be told from the server's own.
                let error = |code: i64| json!({"code": code, "message": format!("mcpspec fuzz {}", d.index)});
                let (what, message) = match d.rng.random_range(0..3) {
                    0 => ("result", json!({"jsonrpc": "2.0", "id": id, "result": {}})),
                    1 => ("error", json!({"jsonrpc": "2.0", "id": id, "error": error(-32603)})),
                    _ => {
                        ("error with id null", json!({"jsonrpc": "2.0", "id": null, "error": error(-32700)}))
                    }
                };
                (format!("{what} response to nothing"), vec![encode(&message)], false)
            }
            Sequence::Batch => {
                let count = d.rng.random_range(0..=4);
                let batch: Vec<Value> = (0..count).map(|_| self.valid(d).message).collect();
                let allowed =
                    if self.revision.allows_batches() { "a revision with" } else { "a revision without" };
                (format!("batch of {count} at {allowed} batches"), vec![encode(&Value::Array(batch))], false)
            }
            Sequence::RequestsBeforeInitialize => {
                let early = self.valid_request(d);
                let label = format!("fresh: {} before initialize", early.label);
                let handshake = self.handshake(d);
                let after = self.cheap_request(d).message;
                let messages = [vec![early.message], handshake, vec![after]].concat();
                (label, self.lines(&messages, d), true)
            }
            Sequence::SecondInitialize => {
                let mut messages = self.handshake(d);
                messages.push(self.initialize(d));
                messages.push(self.cheap_request(d).message);
                ("fresh: initialize twice".to_owned(), self.lines(&messages, d), true)
            }
            Sequence::BrokenInitialize => {
                let (what, params) =
                    broken_initialize_params(self.revision.as_str(), d.rng.random_range(0..7));
                let mut initialize = json!({"jsonrpc": "2.0", "id": d.id(), "method": "initialize"});
                if let Some(params) = params {
                    initialize["params"] = params;
                }
                let messages = [
                    initialize,
                    notification("notifications/initialized", None),
                    self.cheap_request(d).message,
                ];
                (format!("fresh: initialize with {what}"), self.lines(&messages, d), true)
            }
            Sequence::MissingMeta => {
                let Valid { mut message, label } = self.valid_request(d);
                let what = match d.rng.random_range(0..4) {
                    0 => {
                        message["params"].as_object_mut().map(|p| p.shift_remove("_meta"));
                        "without _meta"
                    }
                    1 => {
                        message["params"]["_meta"]
                            .as_object_mut()
                            .map(|m| m.shift_remove(modern::PROTOCOL_VERSION_KEY));
                        "without a protocol version in _meta"
                    }
                    2 => {
                        message["params"]["_meta"]
                            .as_object_mut()
                            .map(|m| m.shift_remove(modern::CLIENT_CAPABILITIES_KEY));
                        "without client capabilities in _meta"
                    }
                    _ => {
                        message["params"]["_meta"][modern::CLIENT_CAPABILITIES_KEY] = json!("all");
                        "with client capabilities a string"
                    }
                };
                let after = self.cheap_request(d).message;
                // Modern era: every request stands alone, so the running session serves as well as
                // a fresh one.
                (format!("{label} {what}"), self.lines(&[message, after], d), false)
            }
            Sequence::UnsupportedVersion => {
                let Valid { mut message, label } = self.valid_request(d);
                let version = UNSUPPORTED_VERSIONS.choose(&mut d.rng).copied().unwrap_or_default();
                message["params"]["_meta"][modern::PROTOCOL_VERSION_KEY] = json!(version);
                let after = self.cheap_request(d).message;
                (format!("{label} at version {version:?}"), self.lines(&[message, after], d), false)
            }
        };
        super::Input { label, writes, fresh, http: None }
    }

    /// Lines of messages: one write each, or all in one write.
    fn lines(&self, messages: &[Value], d: &mut Draw) -> Vec<Vec<u8>> {
        let lines = messages.iter().map(encode);
        if d.rng.random_bool(0.5) {
            vec![lines.collect::<Vec<_>>().concat()]
        } else {
            lines.collect()
        }
    }

    pub(super) fn initialize(&self, d: &mut Draw) -> Value {
        let info = json!({"name": "mcpspec-fuzz", "version": env!("CARGO_PKG_VERSION")});
        let params =
            json!({"protocolVersion": self.revision.as_str(), "capabilities": {}, "clientInfo": info});
        json!({"jsonrpc": "2.0", "id": d.id(), "method": "initialize", "params": params})
    }

    /// `initialize` and `notifications/initialized`.
    fn handshake(&self, d: &mut Draw) -> Vec<Value> {
        vec![self.initialize(d), notification("notifications/initialized", None)]
    }
}

/// `notifications/cancelled` for `id`.
fn cancelled(id: &Value) -> Value {
    notification("notifications/cancelled", Some(json!({"requestId": id, "reason": "mcpspec fuzz"})))
}
