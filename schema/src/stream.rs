//! Validating a sequence of messages — a transcript, a JSON Lines file — rather than one.
//!
//! [`RevisionSchema::validate`] needs the method a result answers; a [`StreamValidator`]
//! remembers the method of every request it has seen, by direction and id (ids keep their JSON
//! type: `1` and `"1"` differ), so each result is matched to its request. It also splits JSON-RPC
//! batches: an array is a batch of messages only in 2025-03-26
//! (`docs/specification/2025-03-26/basic/index.mdx`); in every other revision it is not a
//! message at all.

use crate::{RevisionSchema, Validation, Violation};
use mcpspec_reference::{Direction, RequestId};
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
