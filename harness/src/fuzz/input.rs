//! What the fuzzer sends: an [`Input`] is a short sequence of writes to the implementation's
//! stdin, each written in one `write` call. Framing mutations live in the bytes themselves: a
//! write may hold one line, several lines (coalesced), part of a line (split), no newline at
//! all, invalid UTF-8, a NUL or a BOM. So the same type carries a well-formed request, a
//! mutated one, a stateful sequence (cancel races, id reuse, floods) and a reproducer.
//!
//! An input is written to files (corpus entries, reproducers) as readable JSON: each write as
//! the JSON message it is when the bytes are exactly that message's line, else as text when
//! they are UTF-8, else as Base64 ([`WriteRepr`]).

use base64::Engine as _;
use mcpspec_protocol::framing;
pub use mcpspec_reference::transport::http_server::{Bend, ReplyBend};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One fuzz input: what is written, in order, after the session is set up.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct Input {
    /// What the input is, for people: `tools/call echo, field "message" retyped to array`.
    pub label: String,
    /// Each element is written with one write call.
    pub writes: Vec<Vec<u8>>,
    /// Run on a process of its own, from its start: the writes carry whatever handshake the
    /// input wants (none, a broken one, requests before it). Otherwise the input is written
    /// into a session the driver has already set up (initialized in the legacy era).
    pub fresh: bool,
    /// Over HTTP, how each of its writes is sent when not as a correct client would POST it
    /// (another method, bent headers), or, fuzzing a client, the response mcpspec bends;
    /// ignored over stdio.
    pub http: Option<HttpShape>,
}

/// How an input's writes travel over HTTP: each write is one request body, and the request is
/// bent as this says. What a correct client sends stays unless a header here replaces it.
/// Fuzzing a client, mcpspec is the server: `reply` is the one response it sends bent.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct HttpShape {
    /// The request method instead of POST (one of [`HTTP_METHODS`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// Headers replacing the client's own of the same name (lower-case names); an empty value
    /// leaves the header out.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headers: Vec<(String, String)>,
    /// Fuzzing a client over HTTP: the response of mcpspec's endpoint that is bent, and how.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reply: Option<ReplyBend>,
}

/// The methods an input may send its bodies with.
pub const HTTP_METHODS: [&str; 7] = ["POST", "GET", "PUT", "DELETE", "PATCH", "OPTIONS", "HEAD"];

impl HttpShape {
    /// The method, as the transport takes it: a name not in [`HTTP_METHODS`] is an error.
    pub fn method(&self) -> Result<Option<&'static str>, String> {
        match &self.method {
            None => Ok(None),
            Some(m) => {
                HTTP_METHODS.iter().copied().find(|known| known.eq_ignore_ascii_case(m)).map(Some).ok_or_else(
                    || format!("{m:?} is not an HTTP method mcpspec sends ({})", HTTP_METHODS.join(", ")),
                )
            }
        }
    }

    /// For people: `PUT, accept: application/json, no mcp-session-id`.
    pub fn describe(&self) -> String {
        let mut parts: Vec<String> = self.method.iter().cloned().collect();
        parts.extend(self.reply.as_ref().map(ReplyBend::describe));
        for (name, value) in &self.headers {
            parts.push(match value.is_empty() {
                true => format!("no {name}"),
                false if value.len() > 40 => format!("{name}: ({} bytes)", value.len()),
                false => format!("{name}: {value}"),
            });
        }
        parts.join(", ")
    }
}

impl Input {
    /// An input of whole messages, one line each.
    pub fn messages(label: impl Into<String>, messages: &[Value]) -> Input {
        Input {
            label: label.into(),
            writes: messages.iter().map(framing::encode).collect(),
            fresh: false,
            http: None,
        }
    }

    /// Every byte of the input, in order (what the implementation reads).
    pub fn stream(&self) -> Vec<u8> {
        self.writes.concat()
    }

    pub fn len_bytes(&self) -> usize {
        self.writes.iter().map(Vec::len).sum()
    }

    /// The methods of the requests the input sends (each once, in order; `initialize` only when
    /// it sends nothing else): what a finding with no culprit message of its own is named by.
    pub fn request_methods(&self) -> Vec<String> {
        let mut methods: Vec<String> = Vec::new();
        let frames = mcpspec_protocol::framing::LineDecoder::decode_all(usize::MAX, &self.stream());
        for frame in frames {
            let mcpspec_protocol::framing::FrameContent::Json { value, .. } = frame.content else { continue };
            let messages = match value {
                Value::Array(items) => items,
                one => vec![one],
            };
            for m in messages.iter().filter(|m| m.get("id").is_some()) {
                if let Some(method) = m.get("method").and_then(Value::as_str) {
                    if !methods.iter().any(|x| x == method) {
                        methods.push(method.to_owned());
                    }
                }
            }
        }
        if methods.len() > 1 {
            methods.retain(|m| m != "initialize");
        }
        methods
    }
}

/// How one write is kept in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteRepr {
    /// The bytes are exactly `framing::encode(message)`: the message and its newline.
    Message(Value),
    /// UTF-8 text, written as is (newlines included: a missing one means none was sent).
    Text(String),
    /// Anything else.
    Base64(String),
}

impl WriteRepr {
    pub fn of(bytes: &[u8]) -> WriteRepr {
        if let Some(line) = bytes.strip_suffix(b"\n") {
            if !line.contains(&b'\n') {
                if let Ok(value) = serde_json::from_slice::<Value>(line) {
                    if framing::encode(&value) == bytes {
                        return WriteRepr::Message(value);
                    }
                }
            }
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => WriteRepr::Text(text.to_owned()),
            Err(_) => WriteRepr::Base64(base64::engine::general_purpose::STANDARD.encode(bytes)),
        }
    }

    pub fn to_bytes(&self) -> Result<Vec<u8>, String> {
        match self {
            WriteRepr::Message(value) => Ok(framing::encode(value)),
            WriteRepr::Text(text) => Ok(text.as_bytes().to_vec()),
            WriteRepr::Base64(b64) => base64::engine::general_purpose::STANDARD
                .decode(b64)
                .map_err(|e| format!("invalid Base64 in a write: {e}")),
        }
    }
}

/// An input as kept in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InputFile {
    pub label: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fresh: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub http: Option<HttpShape>,
    pub writes: Vec<WriteRepr>,
}

impl From<&Input> for InputFile {
    fn from(input: &Input) -> Self {
        InputFile {
            label: input.label.clone(),
            fresh: input.fresh,
            http: input.http.clone(),
            writes: input.writes.iter().map(|w| WriteRepr::of(w)).collect(),
        }
    }
}

impl TryFrom<&InputFile> for Input {
    type Error = String;
    fn try_from(file: &InputFile) -> Result<Self, String> {
        Ok(Input {
            label: file.label.clone(),
            fresh: file.fresh,
            http: match &file.http {
                Some(shape) => shape.method().map(|_| Some(shape.clone()))?,
                None => None,
            },
            writes: file.writes.iter().map(WriteRepr::to_bytes).collect::<Result<_, _>>()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A crash or hang names no culprit message: its finding is named by the requests its
    /// reproducer sends (once named "(no request)" for a lone completion/complete).
    #[test]
    fn an_input_names_the_requests_it_sends() {
        let handshake = [
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        ];
        let complete = json!({"jsonrpc": "2.0", "id": 1, "method": "completion/complete", "params": {}});
        assert_eq!(
            Input::messages("c", std::slice::from_ref(&complete)).request_methods(),
            ["completion/complete"]
        );
        let fresh =
            Input::messages("h", &[handshake[0].clone(), handshake[1].clone(), complete.clone(), complete]);
        assert_eq!(fresh.request_methods(), ["completion/complete"], "the handshake is not the culprit");
        assert_eq!(Input::messages("i", &handshake[..1]).request_methods(), ["initialize"]);
        let garbage =
            Input { label: "g".into(), writes: vec![b"{\"id\":".to_vec()], fresh: false, http: None };
        assert!(garbage.request_methods().is_empty());
    }

    #[test]
    fn writes_are_kept_as_messages_text_or_base64_and_come_back_byte_for_byte() {
        let input = Input {
            label: "mixed".into(),
            writes: vec![
                framing::encode(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})),
                b"{\"jsonrpc\": \"2.0\"}\n".to_vec(), // not the canonical encoding: text
                b"{\"id\":1,".to_vec(),               // split: no newline
                vec![0xff, b'{', 0, b'\n'],           // not UTF-8
            ],
            fresh: true,
            http: None,
        };
        let file = InputFile::from(&input);
        assert!(matches!(file.writes[0], WriteRepr::Message(_)));
        assert!(matches!(file.writes[1], WriteRepr::Text(_)));
        assert!(matches!(file.writes[2], WriteRepr::Text(_)));
        assert!(matches!(file.writes[3], WriteRepr::Base64(_)));
        let text = serde_json::to_string(&file).unwrap();
        let back: InputFile = serde_json::from_str(&text).unwrap();
        assert_eq!(Input::try_from(&back).unwrap(), input);
    }
}
