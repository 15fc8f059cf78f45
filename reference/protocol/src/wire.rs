//! The JSON-RPC 2.0 / MCP wire model: one typed view of every message, shared by the reference
//! peers, the session checker, scenario steps and fuzz generation.
//!
//! Decoding is deliberately separate from JSON parsing: [`Message::from_value`] classifies any
//! JSON value and says precisely which envelope rule it breaks ([`EnvelopeError`]), because an
//! implementation under test sends exactly the messages a typed parser would refuse to read.
//! Request ids keep their JSON type (`1` and `"1"` are different ids), as the spec requires
//! (`basic/index.mdx`: "Responses MUST include the same ID as the request they correspond to").

use serde_json::{Map, Number, Value};
use std::fmt;

/// Which way a message travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    ClientToServer,
    ServerToClient,
}

impl Direction {
    pub fn reverse(self) -> Direction {
        match self {
            Direction::ClientToServer => Direction::ServerToClient,
            Direction::ServerToClient => Direction::ClientToServer,
        }
    }

    /// `client-to-server` / `server-to-client`, as the CLI and reports spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::ClientToServer => "client-to-server",
            Direction::ServerToClient => "server-to-client",
        }
    }

    /// The arrow used in transcripts: `→` for what the client sends.
    pub fn arrow(self) -> &'static str {
        match self {
            Direction::ClientToServer => "→",
            Direction::ServerToClient => "←",
        }
    }
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A request id: a string or an integer, never null. The variant is the JSON type on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// Any integer JSON can carry in i64 or u64.
    Integer(i128),
    String(String),
}

impl RequestId {
    /// Reads an id member. `None` when the value is neither a string nor an integer.
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::String(s) => Some(RequestId::String(s.clone())),
            Value::Number(n) => integer_of(n).map(RequestId::Integer),
            _ => None,
        }
    }

    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Integer(i) => Value::Number(number_of(*i)),
            RequestId::String(s) => Value::String(s.clone()),
        }
    }

    /// The same id with the other JSON type (`1` ↔ `"1"`): what a peer that changed the id's
    /// type would answer with.
    pub fn twin(&self) -> Option<RequestId> {
        match self {
            RequestId::Integer(i) => Some(RequestId::String(i.to_string())),
            RequestId::String(s) => s.parse::<i128>().ok().map(RequestId::Integer),
        }
    }

    /// `integer` or `string`, for messages about a changed id type.
    pub fn type_name(&self) -> &'static str {
        match self {
            RequestId::Integer(_) => "integer",
            RequestId::String(_) => "string",
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Integer(i) => write!(f, "{i}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(i: i64) -> Self {
        RequestId::Integer(i.into())
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.to_owned())
    }
}

/// The smallest and largest integers an id may hold: what JSON parsers commonly carry exactly.
const ID_MIN: i128 = i64::MIN as i128;
const ID_MAX: i128 = u64::MAX as i128;

fn integer_of(n: &Number) -> Option<i128> {
    if let Some(i) = n.as_i64() {
        return Some(i.into());
    }
    if let Some(u) = n.as_u64() {
        return Some(u.into());
    }
    // JSON Schema counts `1.0` as an integer, so the wire model does too; anything with a
    // fraction, or beyond what i64/u64 carry exactly, is not an id.
    let f = n.as_f64()?;
    if f.fract() == 0.0 && f >= ID_MIN as f64 && f < ID_MAX as f64 {
        Some(f as i128)
    } else {
        None
    }
}

fn number_of(i: i128) -> Number {
    if let Ok(i) = i64::try_from(i) {
        Number::from(i)
    } else if let Ok(u) = u64::try_from(i) {
        Number::from(u)
    } else {
        // Unreachable for ids read by `integer_of`; clamp rather than panic for hand-built ones.
        Number::from(if i < 0 { i64::MIN } else { i64::MAX })
    }
}

/// The JSON-RPC error object of an error response.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorObject {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl ErrorObject {
    pub const PARSE_ERROR: i64 = -32700;
    pub const INVALID_REQUEST: i64 = -32600;
    pub const METHOD_NOT_FOUND: i64 = -32601;
    pub const INVALID_PARAMS: i64 = -32602;
    pub const INTERNAL_ERROR: i64 = -32603;
    /// Resource not found (docs only, 2024-11-05 … 2025-11-25: `server/resources.mdx`).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// HTTP headers that do not match the body (2026-07-28, `streamable-http.mdx`).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// A request that needs a client capability its `_meta` did not declare (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// A protocol version the server does not implement (2026-07-28, `basic/versioning.mdx`).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

    pub fn new(code: i64, message: impl Into<String>) -> Self {
        ErrorObject { code, message: message.into(), data: None }
    }

    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("code".into(), self.code.into());
        m.insert("message".into(), self.message.clone().into());
        if let Some(d) = &self.data {
            m.insert("data".into(), d.clone());
        }
        Value::Object(m)
    }
}

/// A request: it carries an id and expects exactly one response.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub id: RequestId,
    pub method: String,
    pub params: Option<Value>,
}

/// A notification: no id, never answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub method: String,
    pub params: Option<Value>,
}

/// A response: a result or an error for the request with the same id.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// `None` only for error responses to a request whose id could not be read (a parse error
    /// or an invalid request); the message then has a null or absent `id`.
    pub id: Option<RequestId>,
    pub outcome: Outcome,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Result(Value),
    Error(ErrorObject),
}

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    Request(Request),
    Notification(Notification),
    Response(Response),
}

/// Why a JSON value is not a well-formed JSON-RPC 2.0 / MCP message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EnvelopeError {
    /// A JSON array: a batch, legal only in 2025-03-26. The caller decides.
    #[error("the message is a JSON array (a JSON-RPC batch)")]
    Batch,
    /// Not an object at all (a string, number, null, …).
    #[error("the message is a JSON {0}, not an object")]
    NotAnObject(&'static str),
    /// `jsonrpc` is missing or is not exactly `"2.0"`.
    #[error("\"jsonrpc\" must be \"2.0\", found {0}")]
    BadVersion(String),
    /// `method` is present but not a string.
    #[error("\"method\" must be a string, found {0}")]
    MethodNotString(String),
    /// A request or notification that also carries `result` or `error`.
    #[error("a message with \"method\" must not carry \"result\" or \"error\"")]
    MethodWithOutcome,
    /// `"id": null` on a request (MCP forbids null ids outright).
    #[error("the request id is null; MCP request ids must be a string or an integer")]
    NullRequestId,
    /// An id that is neither a string nor an integer.
    #[error("the id must be a string or an integer, found {0}")]
    BadIdType(String),
    /// A response with both `result` and `error`.
    #[error("the response sets both \"result\" and \"error\"")]
    BothResultAndError,
    /// Neither `method` nor `result` nor `error`.
    #[error("the message has none of \"method\", \"result\" or \"error\"")]
    Unclassifiable,
    /// A result response with no id, or with a null id.
    #[error("the result response has no usable id (found {0})")]
    ResultWithoutId(String),
    /// `error` is not an object.
    #[error("\"error\" must be an object, found {0}")]
    ErrorNotObject(String),
    /// `error.code` missing or not an integer.
    #[error("\"error.code\" must be an integer, found {0}")]
    ErrorCodeNotInteger(String),
    /// `error.message` missing or not a string.
    #[error("\"error.message\" must be a string, found {0}")]
    ErrorMessageNotString(String),
}

/// A short rendering of a JSON value for error messages: type and, if small, the value.
pub fn describe(value: Option<&Value>) -> String {
    match value {
        None => "nothing".to_owned(),
        Some(v) => {
            let text = v.to_string();
            if text.len() <= 40 {
                format!("{} {text}", json_type(v))
            } else {
                format!("{} ({} bytes)", json_type(v), text.len())
            }
        }
    }
}

/// The JSON type name of a value.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl Message {
    /// Classifies a JSON value as a message, or says which envelope rule it breaks.
    pub fn from_value(value: &Value) -> Result<Message, EnvelopeError> {
        let obj = match value {
            Value::Object(o) => o,
            Value::Array(_) => return Err(EnvelopeError::Batch),
            other => return Err(EnvelopeError::NotAnObject(json_type(other))),
        };
        match obj.get("jsonrpc") {
            Some(Value::String(v)) if v == "2.0" => {}
            other => return Err(EnvelopeError::BadVersion(describe(other))),
        }
        let params = obj.get("params").cloned();
        if let Some(method) = obj.get("method") {
            let Value::String(method) = method else {
                return Err(EnvelopeError::MethodNotString(describe(Some(method))));
            };
            if obj.contains_key("result") || obj.contains_key("error") {
                return Err(EnvelopeError::MethodWithOutcome);
            }
            let method = method.clone();
            return match obj.get("id") {
                None => Ok(Message::Notification(Notification { method, params })),
                Some(Value::Null) => Err(EnvelopeError::NullRequestId),
                Some(id) => match RequestId::from_value(id) {
                    Some(id) => Ok(Message::Request(Request { id, method, params })),
                    None => Err(EnvelopeError::BadIdType(describe(Some(id)))),
                },
            };
        }
        let id = match obj.get("id") {
            None | Some(Value::Null) => None,
            Some(id) => {
                Some(RequestId::from_value(id).ok_or_else(|| EnvelopeError::BadIdType(describe(Some(id))))?)
            }
        };
        match (obj.get("result"), obj.get("error")) {
            (Some(_), Some(_)) => Err(EnvelopeError::BothResultAndError),
            (None, None) => Err(EnvelopeError::Unclassifiable),
            (Some(result), None) => match id {
                Some(id) => {
                    Ok(Message::Response(Response { id: Some(id), outcome: Outcome::Result(result.clone()) }))
                }
                None => Err(EnvelopeError::ResultWithoutId(describe(obj.get("id")))),
            },
            (None, Some(error)) => {
                Ok(Message::Response(Response { id, outcome: Outcome::Error(error_object(error)?) }))
            }
        }
    }

    /// The canonical JSON form: `jsonrpc`, `id`, then `method`/`params` or `result`/`error`.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert("jsonrpc".into(), "2.0".into());
        match self {
            Message::Request(r) => {
                m.insert("id".into(), r.id.to_value());
                m.insert("method".into(), r.method.clone().into());
                if let Some(p) = &r.params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Notification(n) => {
                m.insert("method".into(), n.method.clone().into());
                if let Some(p) = &n.params {
                    m.insert("params".into(), p.clone());
                }
            }
            Message::Response(r) => {
                if let Some(id) = &r.id {
                    m.insert("id".into(), id.to_value());
                }
                match &r.outcome {
                    Outcome::Result(v) => m.insert("result".into(), v.clone()),
                    Outcome::Error(e) => m.insert("error".into(), e.to_value()),
                };
            }
        }
        Value::Object(m)
    }

    pub fn request(id: impl Into<RequestId>, method: &str, params: Option<Value>) -> Message {
        Message::Request(Request { id: id.into(), method: method.to_owned(), params })
    }

    pub fn notification(method: &str, params: Option<Value>) -> Message {
        Message::Notification(Notification { method: method.to_owned(), params })
    }

    pub fn result(id: RequestId, result: Value) -> Message {
        Message::Response(Response { id: Some(id), outcome: Outcome::Result(result) })
    }

    pub fn error(id: Option<RequestId>, error: ErrorObject) -> Message {
        Message::Response(Response { id, outcome: Outcome::Error(error) })
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }
}

fn error_object(error: &Value) -> Result<ErrorObject, EnvelopeError> {
    let Value::Object(e) = error else {
        return Err(EnvelopeError::ErrorNotObject(describe(Some(error))));
    };
    let code = match e.get("code") {
        Some(Value::Number(n)) if n.as_i64().is_some() => n.as_i64().unwrap_or_default(),
        other => return Err(EnvelopeError::ErrorCodeNotInteger(describe(other))),
    };
    let message = match e.get("message") {
        Some(Value::String(s)) => s.clone(),
        other => return Err(EnvelopeError::ErrorMessageNotString(describe(other))),
    };
    Ok(ErrorObject { code, message, data: e.get("data").cloned() })
}

/// Integer ids at the edges of what an id may hold (JSON-RPC ids are any integer; readers keep
/// them in i64, u64 or a double): what fuzz inputs try.
pub const EDGE_IDS: [i128; 6] = [0, -1, i64::MIN as i128, i64::MAX as i128, u64::MAX as i128, 1 << 53];

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_the_id_type() {
        let a = Message::from_value(&json!({"jsonrpc":"2.0","id":1,"method":"ping"})).unwrap();
        let b = Message::from_value(&json!({"jsonrpc":"2.0","id":"1","method":"ping"})).unwrap();
        assert_ne!(a, b);
        assert_eq!(a.to_value()["id"], json!(1));
        assert_eq!(b.to_value()["id"], json!("1"));
    }

    #[test]
    fn large_and_negative_ids_survive() {
        for id in [json!(0), json!(-1), json!(i64::MIN), json!(u64::MAX), json!("")] {
            let m = json!({"jsonrpc":"2.0","id":id,"method":"ping"});
            assert_eq!(Message::from_value(&m).unwrap().to_value(), m);
        }
    }

    #[test]
    fn names_each_envelope_fault() {
        let cases = [
            (json!([]), EnvelopeError::Batch),
            (json!({"jsonrpc":"2.0","id":null,"method":"x"}), EnvelopeError::NullRequestId),
            (
                json!({"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":""}}),
                EnvelopeError::BothResultAndError,
            ),
            (json!({"jsonrpc":"2.0","id":1.5,"method":"x"}), EnvelopeError::BadIdType("number 1.5".into())),
            (
                json!({"jsonrpc":"1.0","id":1,"method":"x"}),
                EnvelopeError::BadVersion("string \"1.0\"".into()),
            ),
            (
                json!({"jsonrpc":"2.0","id":1,"error":{"code":"x","message":""}}),
                EnvelopeError::ErrorCodeNotInteger("string \"x\"".into()),
            ),
            (json!({"jsonrpc":"2.0","result":{}}), EnvelopeError::ResultWithoutId("nothing".into())),
        ];
        for (value, want) in cases {
            assert_eq!(Message::from_value(&value), Err(want), "{value}");
        }
    }

    #[test]
    fn error_responses_may_lack_an_id() {
        let m = json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}});
        let Message::Response(r) = Message::from_value(&m).unwrap() else { panic!() };
        assert_eq!(r.id, None);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::testing::arb_message;
    use proptest::prelude::*;

    proptest! {
        /// model → JSON → text → JSON → model is the identity, ids keep their type.
        #[test]
        fn message_round_trip(m in arb_message()) {
            let text = serde_json::to_string(&m.to_value()).unwrap();
            let back: Value = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(Message::from_value(&back), Ok(m));
        }
    }
}
