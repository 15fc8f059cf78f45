//! Structure-aware client sessions: a [`Script`] of valid and broken client messages, read from
//! any bytes with `arbitrary` and written back to the bytes it was read from
//! ([`Script::to_bytes`]), so seed corpora are readable scripts rather than opaque bytes.

use arbitrary::{Arbitrary, Unstructured};
use mcpspec_protocol::framing;
use mcpspec_protocol::revision::Revision;
use mcpspec_protocol::wire::{RequestId, EDGE_IDS};
use serde_json::{json, Value};

/// The longest script read from one input: enough for any session worth having.
pub const MAX_OPS: usize = 64;

/// A client session: what the client writes, one line per op, valid and broken alike. Read from
/// bytes with [`Script::from_bytes`] (any bytes make a script), written back with
/// [`Script::to_bytes`]; every field holds a small selector byte that [`Script::to_stream`]
/// turns into JSON, so a script is the same session for every revision it is played at.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Script {
    pub ops: Vec<ClientOp>,
}

/// One line the client writes.
#[derive(Debug, Clone, PartialEq)]
pub enum ClientOp {
    /// `initialize`, asking for a [`Version`].
    Initialize {
        id: Id,
        version: Version,
    },
    /// `notifications/initialized`.
    Initialized,
    Ping {
        id: Id,
    },
    ToolsList {
        id: Id,
    },
    /// `tools/call` of `echo`; `text` picks from [`TEXTS`].
    CallEcho {
        id: Id,
        text: u8,
    },
    /// `tools/call` of `add`; `a` and `b` pick from [`NUMBERS`] (not all of them numbers).
    CallAdd {
        id: Id,
        a: u8,
        b: u8,
    },
    /// A broken `tools/call` (`which` picks from [`BAD_CALLS`]).
    CallBad {
        id: Id,
        which: u8,
    },
    /// `notifications/cancelled` for `target` (in flight, answered or never sent).
    Cancel {
        target: Id,
    },
    /// Another method from [`OTHER_METHODS`]; a notification when `id` is `None`.
    Other {
        id: Option<Id>,
        method: u8,
    },
    /// A line that breaks the JSON-RPC envelope ([`BROKEN`]).
    Broken {
        id: Id,
        which: u8,
    },
    /// A raw line: one of [`GARBAGE`], or (when `which` is past the list) `bytes` as is.
    Garbage {
        which: u8,
        bytes: Vec<u8>,
    },
    /// A JSON-RPC batch of ops (legal only in 2025-03-26); nested batches stay nested.
    Batch {
        ops: Vec<ClientOp>,
    },
    /// A response from the client (to a server request, or to nothing).
    Response {
        id: Id,
        error: bool,
    },
    /// `tools/call` of one of [`TOOLS`]; `arg` picks its arguments (see [`ClientOp::to_value_in`]).
    CallTool {
        id: Id,
        tool: u8,
        arg: u8,
    },
    /// A well-formed request from [`KNOWN`] (resources, prompts, logging, completion, pages).
    Known {
        id: Id,
        which: u8,
    },
    /// No line: virtual time moves on by `step²` milliseconds (0 to 65 s) and the server is
    /// polled, so slow tools finish, progress is sent and the server's own requests time out.
    Advance {
        step: u8,
    },
    /// An answer to the latest request the server sent the client (or, with none, to id 999);
    /// `shape` picks it from [`ANSWERS`] (past the list: an error).
    Answer {
        shape: u8,
    },
}

/// Tools of the reference server's catalog (and one it does not have).
pub const TOOLS: [&str; 15] = [
    "test_simple_text",
    "test_image_content",
    "test_audio_content",
    "test_embedded_resource",
    "test_multiple_content_types",
    "test_tool_with_logging",
    "test_tool_with_progress",
    "test_error_handling",
    "test_sampling",
    "test_elicitation",
    "test_roots",
    "slow",
    "touch_watched",
    "echo",
    "no_such_tool",
];

/// Well-formed requests: (method, params).
pub const KNOWN: [(&str, &str); 14] = [
    ("resources/list", "{}"),
    ("resources/templates/list", "{}"),
    ("resources/read", r#"{"uri":"test://static-text"}"#),
    ("resources/read", r#"{"uri":"test://template/7/data"}"#),
    ("resources/read", r#"{"uri":"test://nope"}"#),
    ("resources/subscribe", r#"{"uri":"test://watched-resource"}"#),
    ("resources/unsubscribe", r#"{"uri":"test://watched-resource"}"#),
    ("prompts/list", "{}"),
    ("prompts/get", r#"{"name":"simple_prompt"}"#),
    (
        "completion/complete",
        r#"{"ref":{"type":"ref/prompt","name":"complex_prompt"},"argument":{"name":"style","value":"f"}}"#,
    ),
    ("logging/setLevel", r#"{"level":"debug"}"#),
    ("logging/setLevel", r#"{"level":"emergency"}"#),
    ("tools/list", r#"{"cursor":"bogus"}"#),
    ("ping", r#"{"_meta":{"progressToken":1}}"#),
];

/// Client answers to the server's requests: result shapes (valid for sampling, elicitation,
/// roots, or for none of them); past the list, an error.
pub const ANSWERS: [&str; 6] = [
    r#"{"role":"assistant","content":{"type":"text","text":"hi"},"model":"fuzz","stopReason":"endTurn"}"#,
    r#"{"action":"decline"}"#,
    r#"{"roots":[{"uri":"file:///tmp","name":"tmp"}]}"#,
    r#"{}"#,
    r#""not an object""#,
    r#"{"action":"accept","content":{}}"#,
];

/// A request id, by kind: small integers and their string twins collide on purpose, so the
/// same id is reused and `1` meets `"1"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Id {
    /// The integer `n`.
    Int(u8),
    /// The string of the decimal digits of `n` (the twin of `Int(n)`).
    Digits(u8),
    /// The string `"req-n"`.
    Name(u8),
    /// One of [`EDGE_IDS`].
    Edge(u8),
}

/// The `protocolVersion` an `initialize` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The revision the script is played at.
    Target,
    /// One of [`VERSIONS`] (other revisions, unknown versions, a missing or ill-typed one).
    Listed(u8),
}

/// Versions an `initialize` may ask for besides the one under test. `Listed(i)` past the list
/// sends a number (`VERSIONS.len()`) or leaves `protocolVersion` out (`VERSIONS.len() + 1`).
pub const VERSIONS: [&str; 10] = [
    "2024-11-05",
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "draft",
    "1999-01-01",
    "2099-12-31",
    "",
    "garbage",
];
pub(crate) const VERSION_CHOICES: u8 = VERSIONS.len() as u8 + 2;

/// Messages for `echo`.
pub const TEXTS: [&str; 7] =
    ["hello", "", "two\nlines\r\n", "ünïcödé ✓ 🦀", "\u{0}\u{1b}[31m", "\"}{\\", "{}"];

/// Arguments for `add`: numbers at the edges, and values that are not numbers.
pub fn number(n: u8) -> Value {
    NUMBERS_JSON
        .get(usize::from(n))
        .map(|t| serde_json::from_str(t).expect("listed JSON"))
        .unwrap_or(Value::Null)
}
/// How many values [`number`] picks from.
pub const NUMBERS: usize = NUMBERS_JSON.len();
const NUMBERS_JSON: [&str; 12] = [
    "0",
    "1",
    "-1",
    "2.5",
    "1e308",
    "-1e308",
    "9223372036854775807",
    "18446744073709551615",
    "0.1",
    "\"3\"",
    "null",
    "[1]",
];

/// Broken `tools/call` params.
pub const BAD_CALLS: [&str; 8] = [
    r#"{"name":"nope"}"#,
    r#"{"name":"echo"}"#,
    r#"{"name":"echo","arguments":{"message":5}}"#,
    r#"{"name":"add","arguments":{"a":1}}"#,
    r#"{"name":5}"#,
    r#"{"name":"echo","arguments":"x"}"#,
    r#"[]"#,
    r#"null"#,
];

/// Other methods a client may send (some from other revisions, some from no revision).
pub const OTHER_METHODS: [&str; 16] = [
    "resources/list",
    "resources/read",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "server/discover",
    "sampling/createMessage",
    "notifications/progress",
    "notifications/roots/list_changed",
    "notifications/initialized",
    "notifications/cancelled",
    "",
    "rpc.discover",
    "no/such/method",
];

/// Lines that break the envelope; `{id}` is replaced by the op's id.
pub const BROKEN: [&str; 14] = [
    r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}"#,
    r#"{"jsonrpc":"1.0","id":{id},"method":"ping"}"#,
    r#"{"id":{id},"method":"ping"}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":5}"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"ping","result":{}}"#,
    r#"{"jsonrpc":"2.0","id":{id},"result":{},"error":{"code":1,"message":"x"}}"#,
    r#"{"jsonrpc":"2.0","id":{id}}"#,
    r#"{}"#,
    r#""ping""#,
    r#"[[{"jsonrpc":"2.0","id":{id},"method":"ping"}]]"#,
    r#"{"jsonrpc":"2.0","id":{id},"method":"initialize"}"#,
];

/// Raw lines that are not one JSON-RPC message.
pub const GARBAGE: [&[u8]; 9] = [
    b"",
    b"   \t",
    b"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":\"bom\",\"method\":\"ping\"}",
    b"\xff\xfe\x00{",
    b"Content-Length: 52\r",
    b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r",
    b"{\"jsonrpc\":\"2.0\",",
    b"{\"jsonrpc\":\"2.0\",\"id\":\"two\",\"method\":\"ping\"} {\"jsonrpc\":\"2.0\"}",
    b"[]",
];

impl Id {
    pub fn to_value(self) -> Value {
        match self {
            Id::Int(n) => json!(n),
            Id::Digits(n) => json!(n.to_string()),
            Id::Name(n) => json!(format!("req-{n}")),
            Id::Edge(n) => RequestId::Integer(EDGE_IDS[usize::from(n) % EDGE_IDS.len()]).to_value(),
        }
    }

    fn read(u: &mut Unstructured) -> Id {
        let kind = byte(u);
        let n = byte(u);
        match kind % 4 {
            0 => Id::Int(n),
            1 => Id::Digits(n),
            2 => Id::Name(n),
            _ => Id::Edge(n % EDGE_IDS.len() as u8),
        }
    }

    fn write(self, out: &mut Vec<u8>) {
        out.extend(match self {
            Id::Int(n) => [0, n],
            Id::Digits(n) => [1, n],
            Id::Name(n) => [2, n],
            Id::Edge(n) => [3, n],
        });
    }
}

/// One selector byte; past the end of the input, 0 (as `arbitrary` does).
fn byte(u: &mut Unstructured) -> u8 {
    u8::arbitrary(u).unwrap_or(0)
}

fn pick(u: &mut Unstructured, n: usize) -> u8 {
    (usize::from(byte(u)) % n) as u8
}

impl ClientOp {
    const KINDS: u8 = 17;

    fn read(u: &mut Unstructured, depth: u8) -> ClientOp {
        match byte(u) % Self::KINDS {
            0 => {
                let id = Id::read(u);
                let v = byte(u);
                let version =
                    if v == 0 { Version::Target } else { Version::Listed((v - 1) % VERSION_CHOICES) };
                ClientOp::Initialize { id, version }
            }
            1 => ClientOp::Initialized,
            2 => ClientOp::Ping { id: Id::read(u) },
            3 => ClientOp::ToolsList { id: Id::read(u) },
            4 => ClientOp::CallEcho { id: Id::read(u), text: pick(u, TEXTS.len()) },
            5 => ClientOp::CallAdd { id: Id::read(u), a: pick(u, NUMBERS), b: pick(u, NUMBERS) },
            6 => ClientOp::CallBad { id: Id::read(u), which: pick(u, BAD_CALLS.len()) },
            7 => ClientOp::Cancel { target: Id::read(u) },
            8 => {
                let notification = byte(u) & 1 == 1;
                let id = Id::read(u);
                ClientOp::Other { id: (!notification).then_some(id), method: pick(u, OTHER_METHODS.len()) }
            }
            9 => ClientOp::Broken { id: Id::read(u), which: pick(u, BROKEN.len()) },
            10 => {
                let which = pick(u, GARBAGE.len() + 1);
                let len = if usize::from(which) == GARBAGE.len() { usize::from(byte(u) % 64) } else { 0 };
                let bytes = (0..len).map(|_| byte(u)).filter(|b| *b != b'\n').collect();
                ClientOp::Garbage { which, bytes }
            }
            11 => {
                let len = byte(u) % 5;
                let ops = if depth >= 2 {
                    Vec::new()
                } else {
                    (0..len).map(|_| ClientOp::read(u, depth + 1)).collect()
                };
                ClientOp::Batch { ops }
            }
            12 => {
                let id = Id::read(u);
                ClientOp::Response { id, error: byte(u) & 1 == 1 }
            }
            13 => ClientOp::CallTool { id: Id::read(u), tool: pick(u, TOOLS.len()), arg: byte(u) },
            14 => ClientOp::Known { id: Id::read(u), which: pick(u, KNOWN.len()) },
            15 => ClientOp::Advance { step: byte(u) },
            _ => ClientOp::Answer { shape: pick(u, ANSWERS.len() + 1) },
        }
    }

    fn write(&self, out: &mut Vec<u8>) {
        match self {
            ClientOp::Initialize { id, version } => {
                out.push(0);
                id.write(out);
                out.push(match version {
                    Version::Target => 0,
                    Version::Listed(i) => i + 1,
                });
            }
            ClientOp::Initialized => out.push(1),
            ClientOp::Ping { id } => {
                out.push(2);
                id.write(out);
            }
            ClientOp::ToolsList { id } => {
                out.push(3);
                id.write(out);
            }
            ClientOp::CallEcho { id, text } => {
                out.push(4);
                id.write(out);
                out.push(*text);
            }
            ClientOp::CallAdd { id, a, b } => {
                out.push(5);
                id.write(out);
                out.extend([*a, *b]);
            }
            ClientOp::CallBad { id, which } => {
                out.push(6);
                id.write(out);
                out.push(*which);
            }
            ClientOp::Cancel { target } => {
                out.push(7);
                target.write(out);
            }
            ClientOp::Other { id, method } => {
                out.extend([8, u8::from(id.is_none())]);
                id.unwrap_or(Id::Int(0)).write(out);
                out.push(*method);
            }
            ClientOp::Broken { id, which } => {
                out.push(9);
                id.write(out);
                out.push(*which);
            }
            ClientOp::Garbage { which, bytes } => {
                out.extend([10, *which]);
                if usize::from(*which) == GARBAGE.len() {
                    out.push(bytes.len() as u8);
                    out.extend(bytes);
                }
            }
            ClientOp::Batch { ops } => {
                out.extend([11, ops.len() as u8]);
                ops.iter().for_each(|op| op.write(out));
            }
            ClientOp::Response { id, error } => {
                out.push(12);
                id.write(out);
                out.push(u8::from(*error));
            }
            ClientOp::CallTool { id, tool, arg } => {
                out.push(13);
                id.write(out);
                out.extend([*tool, *arg]);
            }
            ClientOp::Known { id, which } => {
                out.push(14);
                id.write(out);
                out.push(*which);
            }
            ClientOp::Advance { step } => out.extend([15, *step]),
            ClientOp::Answer { shape } => out.extend([16, *shape]),
        }
    }

    /// The op as one JSON value, or `None` for a raw line or no line.
    pub fn to_value(&self, target: Revision) -> Option<Value> {
        self.to_value_in(target, None)
    }

    /// The op as one JSON value, `server_request` being the id of the latest request the server
    /// sent (what [`ClientOp::Answer`] answers).
    pub fn to_value_in(&self, target: Revision, server_request: Option<&Value>) -> Option<Value> {
        let request = |id: &Id, method: &str, params: Option<Value>| {
            let mut m = json!({"jsonrpc": "2.0", "id": id.to_value(), "method": method});
            if let Some(p) = params {
                m["params"] = p;
            }
            m
        };
        Some(match self {
            ClientOp::Initialize { id, version } => {
                let mut params = json!({
                    "capabilities": {},
                    "clientInfo": {"name": "mcpspec-fuzz", "version": "0"},
                });
                match version {
                    Version::Target => params["protocolVersion"] = target.as_str().into(),
                    Version::Listed(i) => match VERSIONS.get(usize::from(*i)) {
                        Some(v) => params["protocolVersion"] = (*v).into(),
                        None if usize::from(*i) == VERSIONS.len() => {
                            params["protocolVersion"] = json!(20241105)
                        }
                        None => {}
                    },
                }
                request(id, "initialize", Some(params))
            }
            ClientOp::Initialized => json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            ClientOp::Ping { id } => request(id, "ping", None),
            ClientOp::ToolsList { id } => request(id, "tools/list", Some(json!({}))),
            ClientOp::CallEcho { id, text } => {
                let message = TEXTS[usize::from(*text) % TEXTS.len()];
                request(id, "tools/call", Some(json!({"name": "echo", "arguments": {"message": message}})))
            }
            ClientOp::CallAdd { id, a, b } => request(
                id,
                "tools/call",
                Some(json!({"name": "add", "arguments": {"a": number(*a), "b": number(*b)}})),
            ),
            ClientOp::CallBad { id, which } => {
                let params = serde_json::from_str(BAD_CALLS[usize::from(*which) % BAD_CALLS.len()]).ok();
                request(id, "tools/call", params)
            }
            ClientOp::Cancel { target } => json!({
                "jsonrpc": "2.0",
                "method": "notifications/cancelled",
                "params": {"requestId": target.to_value(), "reason": "fuzz"},
            }),
            ClientOp::Other { id, method } => {
                let method = OTHER_METHODS[usize::from(*method) % OTHER_METHODS.len()];
                match id {
                    Some(id) => request(id, method, Some(json!({}))),
                    None => json!({"jsonrpc": "2.0", "method": method, "params": {}}),
                }
            }
            ClientOp::Broken { id, which } => {
                let text =
                    BROKEN[usize::from(*which) % BROKEN.len()].replace("{id}", &id.to_value().to_string());
                serde_json::from_str(&text).expect("listed JSON")
            }
            ClientOp::Garbage { .. } | ClientOp::Advance { .. } => return None,
            ClientOp::Batch { ops } => Value::Array(
                ops.iter()
                    .map(|op| {
                        op.to_value_in(target, server_request).unwrap_or_else(|| json!("not json in a batch"))
                    })
                    .collect(),
            ),
            ClientOp::CallTool { id, tool, arg } => {
                let name = TOOLS[usize::from(*tool) % TOOLS.len()];
                let arguments = match name {
                    "slow" => json!({"ms": u64::from(*arg) * 100}),
                    "echo" => json!({"message": TEXTS[usize::from(*arg) % TEXTS.len()]}),
                    "test_sampling" | "test_elicitation" => json!({"prompt": "fuzz", "message": "fuzz"}),
                    _ => json!({}),
                };
                let mut params = json!({"name": name, "arguments": arguments});
                if arg & 1 == 1 {
                    params["_meta"] = json!({"progressToken": format!("p{arg}")});
                }
                request(id, "tools/call", Some(params))
            }
            ClientOp::Known { id, which } => {
                let (method, params) = KNOWN[usize::from(*which) % KNOWN.len()];
                request(id, method, serde_json::from_str(params).ok())
            }
            ClientOp::Answer { shape } => {
                let id = server_request.cloned().unwrap_or(json!(999));
                match ANSWERS.get(usize::from(*shape)) {
                    Some(result) => {
                        let result: Value = serde_json::from_str(result).expect("listed JSON");
                        json!({"jsonrpc": "2.0", "id": id, "result": result})
                    }
                    None => json!({"jsonrpc": "2.0", "id": id, "error": {"code": -1, "message": "declined"}}),
                }
            }
            ClientOp::Response { id, error } => match error {
                false => json!({"jsonrpc": "2.0", "id": id.to_value(), "result": {}}),
                true => {
                    json!({"jsonrpc": "2.0", "id": id.to_value(), "error": {"code": -1, "message": "no"}})
                }
            },
        })
    }

    /// The op as the line the client writes, newline included (`None` for [`ClientOp::Advance`]).
    pub fn to_line(&self, target: Revision) -> Option<Vec<u8>> {
        self.to_line_in(target, None)
    }

    /// [`ClientOp::to_line`], with the id of the server's latest request (see
    /// [`ClientOp::to_value_in`]).
    pub fn to_line_in(&self, target: Revision, server_request: Option<&Value>) -> Option<Vec<u8>> {
        match (self, self.to_value_in(target, server_request)) {
            (_, Some(v)) => Some(framing::encode(&v)),
            (ClientOp::Garbage { which, bytes }, None) => {
                let mut line = GARBAGE.get(usize::from(*which)).map_or_else(|| bytes.clone(), |g| g.to_vec());
                line.push(b'\n');
                Some(line)
            }
            (_, None) => None,
        }
    }
}

impl Script {
    /// Reads a script from any bytes (at most [`MAX_OPS`] ops; a byte past the end reads as 0).
    pub fn from_bytes(data: &[u8]) -> Script {
        let mut u = Unstructured::new(data);
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < MAX_OPS {
            ops.push(ClientOp::read(&mut u, 0));
        }
        Script { ops }
    }

    /// The bytes [`Script::from_bytes`] reads back as this script (for writing seed corpora).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.ops.iter().for_each(|op| op.write(&mut out));
        out
    }

    /// What the client writes when the script is played at `target`.
    pub fn to_stream(&self, target: Revision) -> Vec<u8> {
        self.ops.iter().filter_map(|op| op.to_line(target)).flatten().collect()
    }
}

impl<'a> Arbitrary<'a> for Script {
    fn arbitrary(u: &mut Unstructured<'a>) -> arbitrary::Result<Self> {
        let mut ops = Vec::new();
        while !u.is_empty() && ops.len() < MAX_OPS {
            ops.push(ClientOp::read(u, 0));
        }
        Ok(Script { ops })
    }
}

/// A script's ops as text, one per line, for corpus notes and failure messages.
pub fn describe(script: &Script) -> String {
    script.ops.iter().map(|op| format!("{op:?}\n")).collect()
}
