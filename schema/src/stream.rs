//! Validating a sequence of messages — a transcript, a JSON Lines file — rather than one.
//!
//! [`RevisionSchema::validate`] needs the method a result answers; a [`StreamValidator`]
//! remembers the method of every request it has seen, by direction and id (ids keep their JSON
//! type: `1` and `"1"` differ), so each result is matched to its request. It also splits JSON-RPC
//! batches: an array is a batch of messages only in 2025-03-26
//! (`docs/specification/2025-03-26/basic/index.mdx`); in every other revision it is not a
//! message at all.

use crate::{RevisionSchema, Validation, Violation};
use mcpspec_protocol::{Direction, RequestId};
use serde_json::Value;
use std::collections::HashMap;

/// Validates messages in order, matching results to the requests they answer.
pub struct StreamValidator<'a> {
    schema: &'a RevisionSchema,
    /// Requests seen and not yet answered: (the direction they travelled, id) → method.
    pending: HashMap<(Direction, RequestId), String>,
}

impl<'a> StreamValidator<'a> {
    pub fn new(schema: &'a RevisionSchema) -> StreamValidator<'a> {
        StreamValidator { schema, pending: HashMap::new() }
    }

    /// Validates one line's worth: a message, or a batch (one verdict per element).
    pub fn validate(&mut self, direction: Direction, message: &Value) -> Vec<Validation> {
        let Value::Array(items) = message else {
            return vec![self.validate_one(direction, message)];
        };
        if !self.schema.revision().allows_batches() {
            let key = if self.schema.document().get("$defs").is_some() { "$defs" } else { "definitions" };
            return vec![Validation::Invalid {
                definition: "JSONRPCMessage".to_owned(),
                violations: vec![Violation {
                    instance_path: String::new(),
                    schema_path: format!("/{key}/JSONRPCMessage"),
                    message: format!(
                        "a JSON array (batch) is not a message in {}; batches exist only in 2025-03-26",
                        self.schema.revision()
                    ),
                    format: None,
                }],
            }];
        }
        if items.is_empty() {
            return vec![Validation::Unmatched {
                reason: "an empty batch holds no message (JSON-RPC 2.0 calls it an invalid request)"
                    .to_owned(),
            }];
        }
        items.iter().map(|item| self.validate_one(direction, item)).collect()
    }

    /// Validates one message (not a batch).
    pub fn validate_one(&mut self, direction: Direction, message: &Value) -> Validation {
        let id = message.get("id").and_then(RequestId::from_value);
        let method = message.get("method").and_then(Value::as_str);
        let answered = match (method, id) {
            (Some(method), Some(id)) => {
                self.pending.insert((direction, id), method.to_owned());
                None
            }
            (None, Some(id)) if message.get("result").is_some() || message.get("error").is_some() => {
                self.pending.remove(&(direction.reverse(), id))
            }
            _ => None,
        };
        self.schema.validate(direction, message, answered.as_deref())
    }

    /// Requests seen that no response has answered yet, as (direction, id, method).
    pub fn unanswered(&self) -> impl Iterator<Item = (Direction, &RequestId, &str)> {
        self.pending.iter().map(|((d, id), m)| (*d, id, m.as_str()))
    }
}

/// What one line of a JSON Lines input holds.
#[derive(Debug, Clone, PartialEq)]
pub enum LineOutcome {
    /// Nothing but whitespace.
    Blank,
    /// Not JSON; `error` says where (`line 1 column 7` refers to the line itself).
    Malformed { error: String },
    /// A message (or a batch) travelling in `direction`, with one verdict per message.
    Judged { direction: Direction, verdicts: Vec<Validation> },
}

impl StreamValidator<'_> {
    /// Judges one line of JSON Lines input. Without a `direction`, it is inferred: see
    /// [`StreamValidator::infer_direction`].
    pub fn validate_line(&mut self, direction: Option<Direction>, line: &str) -> LineOutcome {
        let line = line.trim();
        if line.is_empty() {
            return LineOutcome::Blank;
        }
        let message: Value = match serde_json::from_str(line) {
            Ok(message) => message,
            Err(e) => return LineOutcome::Malformed { error: e.to_string() },
        };
        let direction = direction.unwrap_or_else(|| self.infer_direction(&message));
        LineOutcome::Judged { direction, verdicts: self.validate(direction, &message) }
    }

    /// The direction a message most likely travels: a response goes the other way from the
    /// request with its id; a request or notification goes the way its method is defined for
    /// (client-to-server when both sides may send it, e.g. `ping`, or neither may); a response
    /// to no known request is taken as the server's.
    pub fn infer_direction(&self, message: &Value) -> Direction {
        let message = match message {
            Value::Array(items) => match items.first() {
                Some(first) => first,
                None => return Direction::ClientToServer,
            },
            other => other,
        };
        let id = message.get("id").and_then(RequestId::from_value);
        match (message.get("method").and_then(Value::as_str), id) {
            (Some(method), id) => {
                let is_request = id.is_some();
                let by_client = self.schema.knows_method(Direction::ClientToServer, method, is_request);
                let by_server = self.schema.knows_method(Direction::ServerToClient, method, is_request);
                if by_server && !by_client {
                    Direction::ServerToClient
                } else {
                    Direction::ClientToServer
                }
            }
            (None, Some(id)) => {
                if self.pending.contains_key(&(Direction::ServerToClient, id)) {
                    Direction::ClientToServer
                } else {
                    Direction::ServerToClient
                }
            }
            (None, None) => Direction::ServerToClient,
        }
    }
}
