//! The header and body rules of MCP's HTTP transports (spec digest §N, §O), as plain functions:
//! no sockets, no clock, so each rule is unit-tested on its own and the handlers read as a list
//! of checks.

use mcpspec_protocol::modern as era;
use mcpspec_protocol::revision::{Era, Revision};
use mcpspec_protocol::wire::ErrorObject;
use serde_json::{json, Value};
use std::io::Read;

/// Which `Origin`s the endpoint serves (basic/transports.mdx: servers "MUST validate the `Origin`
/// header" against DNS rebinding; 2025-11-25: an invalid one gets 403). A request without
/// `Origin` (not from a browser) is always served.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum OriginPolicy {
    /// `http(s)://localhost`, `127.0.0.1` or `[::1]`, with any port.
    #[default]
    Localhost,
    /// Exactly these origins (`scheme://host[:port]`, compared case-insensitively).
    Exact(Vec<String>),
    /// Any origin (for an endpoint behind its own gatekeeper).
    Any,
}

impl OriginPolicy {
    pub fn allows(&self, origin: &str) -> bool {
        match self {
            OriginPolicy::Any => true,
            OriginPolicy::Exact(list) => list.iter().any(|o| o.eq_ignore_ascii_case(origin.trim())),
            OriginPolicy::Localhost => is_localhost_origin(origin),
        }
    }
}

fn is_localhost_origin(origin: &str) -> bool {
    let Ok(url) = url::Url::parse(origin.trim()) else { return false };
    if !matches!(url.scheme(), "http" | "https") || url.path() != "/" && !url.path().is_empty() {
        return false;
    }
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Whether a `Host` (or HTTP/2 authority) names the endpoint listening on `listening`. DNS
/// rebinding points a name the attacker owns at a loopback address, so the browser's `Host`
/// is that name: only `localhost` and address literals are served (a loopback address, or the
/// address listened on; any address when listening on all of them), and only with the port
/// listened on (a `Host` without one means port 80). Names other than `localhost` get 403, like
/// a foreign `Origin` (basic/transports.mdx: servers validate what they are asked as, against
/// DNS rebinding).
pub fn host_allowed(host: &str, listening: std::net::SocketAddr) -> bool {
    let Ok(url) = url::Url::parse(&format!("http://{}", host.trim())) else { return false };
    let plain = url.path() == "/" && url.query().is_none() && url.username().is_empty();
    if !plain || url.port_or_known_default() != Some(listening.port()) {
        return false;
    }
    let address =
        |ip: std::net::IpAddr| ip.is_loopback() || listening.ip().is_unspecified() || ip == listening.ip();
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => address(ip.into()),
        Some(url::Host::Ipv6(ip)) => address(ip.into()),
        None => false,
    }
}

/// Whether an `Accept` header lists `media` itself. Wildcards do not count: the client "MUST
/// include an `Accept` header, listing both `application/json` and `text/event-stream`", and a
/// conformance peer holds it to the letter.
pub fn accept_lists(accept: Option<&str>, media: &str) -> bool {
    accept.is_some_and(|a| a.split(',').any(|range| media_type(range).eq_ignore_ascii_case(media)))
}

/// Whether a `Content-Type` header says `application/json` (parameters such as `charset` aside).
pub fn is_json_content_type(content_type: Option<&str>) -> bool {
    content_type.is_some_and(|c| media_type(c).eq_ignore_ascii_case("application/json"))
}

fn media_type(value: &str) -> &str {
    value.split(';').next().unwrap_or("").trim()
}

/// Checks `MCP-Protocol-Version` (2025-06-18+): absent is fine (the server assumes 2025-03-26);
/// present, it must name a revision the endpoint accepts, else 400.
pub fn protocol_version(header: Option<&[u8]>, accepted: &[Revision]) -> Result<Option<Revision>, String> {
    let Some(raw) = header else { return Ok(None) };
    let text = std::str::from_utf8(raw).map_err(|_| "MCP-Protocol-Version is not UTF-8".to_owned())?;
    let revision: Revision =
        text.trim().parse().map_err(|_| format!("MCP-Protocol-Version {text:?} is not a known revision"))?;
    if !accepted.contains(&revision) {
        return Err(format!("MCP-Protocol-Version {text:?} is not supported by this server"));
    }
    Ok(Some(revision))
}

/// A fresh session id: 128 bits from the kernel's CSPRNG as 32 hex digits, which are visible
/// ASCII (0x21–0x7E) as the spec requires. `malformed` (fault `http-session-id-invalid-chars`)
/// appends a space and a Latin-1 `é`, both outside that range.
pub fn new_session_id(malformed: bool) -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    let mut id: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if malformed {
        id.push_str(" \u{e9}");
    }
    Ok(id)
}

/// A session id as a header carries it: each char one byte (Latin-1), so that an id with a byte
/// above 0x7E (a fault) round-trips exactly.
pub fn session_id_bytes(id: &str) -> Vec<u8> {
    id.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect()
}

/// The session id a header names (Latin-1, the inverse of [`session_id_bytes`]).
pub fn session_id_of(header: &[u8]) -> String {
    header.iter().map(|b| char::from(*b)).collect()
}

/// Whether a session id is made only of visible ASCII (0x21–0x7E), as the spec requires.
pub fn is_visible_ascii(id: &[u8]) -> bool {
    !id.is_empty() && id.iter().all(|b| (0x21..=0x7e).contains(b))
}

/// What a POST body holds, as far as the transport needs to know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbound {
    /// The keys ([`request_key`]) of the requests in it, in order; empty when it holds only
    /// notifications and responses (answered 202).
    pub requests: Vec<String>,
    /// It is a single `initialize` request (which opens a session).
    pub initialize: bool,
}

/// Classifies a POST body (one message, or a batch in 2025-03-26). A message with an id and no
/// `result` or `error` counts as a request even if it lacks a method: the app answers it (with
/// -32600) on the POST's stream. Errors are the reason for a 400.
pub fn classify(value: &Value) -> Result<Inbound, String> {
    let items: Vec<&Value> = match value {
        Value::Array(items) if items.is_empty() => return Err("an empty batch".into()),
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    let mut requests = Vec::new();
    for item in &items {
        let Value::Object(o) = item else {
            return Err("a JSON-RPC message must be an object".into());
        };
        let response = o.contains_key("result") || o.contains_key("error");
        match (o.get("id"), o.contains_key("method"), response) {
            (_, false, true) => {}
            (Some(id @ (Value::String(_) | Value::Number(_))), _, _) => requests.push(request_key(id)),
            (Some(_), _, _) => return Err("a request id must be a string or a number".into()),
            (None, true, _) => {}
            (None, false, false) => return Err("neither a request, a notification nor a response".into()),
        }
    }
    let initialize = !value.is_array() && value["method"] == "initialize" && !requests.is_empty();
    Ok(Inbound { requests, initialize })
}

/// The key of a request id: its JSON text, so that `1` and `"1"` differ as JSON-RPC says.
pub fn request_key(id: &Value) -> String {
    serde_json::to_string(id).unwrap_or_default()
}

/// What a message the app sends is, for routing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outbound {
    /// A response (or a batch of responses) answering these request keys; a response with a
    /// null or missing id answers "the whole body" of the POST it belongs to.
    Response { keys: Vec<String>, null_id: bool },
    /// A request or a notification of the server.
    Other,
}

pub fn classify_outbound(value: &Value) -> Outbound {
    let items: Vec<&Value> = match value {
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    };
    let responses: Vec<&&Value> =
        items.iter().filter(|v| v.get("method").is_none() && v.get("id").is_some() || is_error(v)).collect();
    if responses.is_empty() {
        return Outbound::Other;
    }
    let mut keys = Vec::new();
    let mut null_id = false;
    for r in responses {
        match r.get("id") {
            Some(id @ (Value::String(_) | Value::Number(_))) => keys.push(request_key(id)),
            _ => null_id = true,
        }
    }
    Outbound::Response { keys, null_id }
}

fn is_error(v: &Value) -> bool {
    v.get("method").is_none() && (v.get("error").is_some() || v.get("result").is_some())
}

/// An SSE event id that says which stream it belongs to (2025-11-25: IDs SHOULD encode the
/// stream), unique in the session: `<stream>-<n>`.
pub fn event_id(stream: u64, n: u64) -> String {
    format!("{stream}-{n}")
}

/// The stream and the position a `Last-Event-ID` names.
pub fn parse_event_id(id: &str) -> Option<(u64, u64)> {
    let (stream, n) = id.trim().split_once('-')?;
    Some((stream.parse().ok()?, n.parse().ok()?))
}

/// The body of an HTTP error: a JSON-RPC error without an id (basic/transports.mdx: the body
/// "MAY comprise a JSON-RPC error response that has no `id`").
pub fn error_body(code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "error": { "code": code, "message": message } })
}

/// Whether a POST is served by the modern era's rules of 2026-07-28 (an endpoint that accepts a
/// modern revision; `basic/versioning.mdx`: a dual-era server "selects its behavior from how the
/// client opens"): a single message whose `_meta` names a version, `server/discover`, or one whose
/// `MCP-Protocol-Version` names a modern revision; on a modern-only endpoint, every single
/// message. Batches and everything else stay legacy.
pub fn is_modern_post(value: &Value, version_header: Option<&[u8]>, accepted: &[Revision]) -> bool {
    if !accepted.iter().any(|r| r.era() == Era::Modern) || !value.is_object() {
        return false;
    }
    let legacy = accepted.iter().any(|r| r.era() == Era::Legacy);
    let header_modern = version_header
        .and_then(|h| std::str::from_utf8(h).ok())
        .and_then(|h| h.trim().parse::<Revision>().ok())
        .is_some_and(|r| r.era() == Era::Modern);
    !legacy
        || value["method"] == "server/discover"
        || era::declares_version(value.get("params"))
        || header_modern
}

/// The request headers that mirror a modern request's body (`streamable-http.mdx#request-metadata`).
#[derive(Debug, Clone, Copy, Default)]
pub struct Mirrored<'a> {
    pub version: Option<&'a [u8]>,
    pub method: Option<&'a [u8]>,
    pub name: Option<&'a [u8]>,
}

/// Why a modern POST is refused before the app sees it (always HTTP 400): `_meta` missing or
/// malformed (-32602, `basic/index.mdx#_meta`: "On HTTP, the response status MUST be 400"), or a
/// header that is missing or does not match the body (-32020, `streamable-http.mdx#server-
/// validation`; `Mcp-Name` is compared after undoing its Base64 sentinel). `meta_required` and
/// `names_checked` are off only for deliberate faults.
pub fn modern_refusal(
    value: &Value,
    h: &Mirrored,
    meta_required: bool,
    names_checked: bool,
) -> Option<ErrorObject> {
    let params = value.get("params");
    let meta = match era::read_request_meta(params) {
        Ok(meta) => Some(meta),
        Err(_) if !meta_required => None,
        Err(problem) => {
            return Some(ErrorObject::new(ErrorObject::INVALID_PARAMS, format!("Invalid params: {problem}")))
        }
    };
    fn text(b: Option<&[u8]>) -> Option<Result<&str, std::str::Utf8Error>> {
        b.map(|b| std::str::from_utf8(b).map(str::trim))
    }
    match (text(h.version), &meta) {
        (None, _) => return Some(era::header_mismatch("MCP-Protocol-Version is required")),
        (Some(Err(_)), _) => return Some(era::header_mismatch("MCP-Protocol-Version is not UTF-8")),
        (Some(Ok(v)), Some(meta)) if v != meta.version => {
            let why = format!("MCP-Protocol-Version {v:?} differs from _meta's {:?}", meta.version);
            return Some(era::header_mismatch(why));
        }
        _ => {}
    }
    if !names_checked {
        return None;
    }
    let method = value.get("method").and_then(Value::as_str).unwrap_or("");
    match text(h.method) {
        Some(Ok(m)) if m == method => {}
        Some(Ok(m)) => {
            return Some(era::header_mismatch(format!("Mcp-Method {m:?} differs from method {method:?}")))
        }
        _ => return Some(era::header_mismatch("Mcp-Method is required (the request's method)")),
    }
    if let Some(body) = era::name_source(method, params) {
        let header = h.name.and_then(|b| std::str::from_utf8(b).ok()).map(str::trim);
        match header.map(era::decode_header_value) {
            None => return Some(era::header_mismatch(format!("Mcp-Name is required for {method}"))),
            Some(None) => return Some(era::header_mismatch("Mcp-Name has a malformed Base64 sentinel")),
            Some(Some(n)) if n != body => {
                return Some(era::header_mismatch(format!("Mcp-Name {n:?} differs from the body's {body:?}")))
            }
            Some(Some(_)) => {}
        }
    }
    None
}

/// The `Mcp-Param-*` headers of a request: lower-case names (as HTTP hands them over), lossy
/// values (a byte outside ASCII stays visible as such).
pub fn param_headers(headers: &axum::http::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(k, _)| k.as_str().starts_with(era::headers::PARAM_PREFIX))
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect()
}

/// A modern request reduced to what its headers mirror, for the log: `method`, `id`, and in
/// `params` the `_meta` protocol version, `name`, `uri` and `arguments`.
pub fn mirrored_request(value: &Value) -> Option<Value> {
    let method = value.get("method")?.as_str()?;
    let params = value.get("params");
    let mut kept = serde_json::Map::new();
    for key in ["name", "uri", "arguments"] {
        if let Some(v) = params.and_then(|p| p.get(key)) {
            kept.insert(key.to_owned(), v.clone());
        }
    }
    if let Some(v) = params.and_then(|p| p.pointer("/_meta")).and_then(|m| m.get(era::PROTOCOL_VERSION_KEY)) {
        kept.insert("_meta".to_owned(), json!({ era::PROTOCOL_VERSION_KEY: v }));
    }
    Some(json!({ "method": method, "id": value.get("id").cloned().unwrap_or(Value::Null), "params": kept }))
}

/// Why a modern `tools/call` is refused for its `Mcp-Param-*` headers (`sent`), -32020
/// (`streamable-http.mdx#server-behavior-for-custom-headers`): the first
/// [`mismatch`](mcpspec_protocol::param_headers::mismatches) against the arguments, for a tool
/// of `schemas` (by name); `None` for another method or tool, or when they match.
pub fn param_refusal(
    value: &Value,
    schemas: &std::collections::HashMap<String, Value>,
    sent: &[(String, String)],
) -> Option<ErrorObject> {
    if value.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let schema = schemas.get(value.pointer("/params/name")?.as_str()?)?;
    let found = mcpspec_protocol::param_headers::mismatches(schema, value.pointer("/params/arguments"), sent);
    found.first().map(|m| era::header_mismatch(m.to_string()))
}

/// The HTTP status of the app's answer to a modern request sent as one JSON body: 404 for -32601
/// (`streamable-http.mdx#protocol-version-header`), 400 for the era's own errors (-32020,
/// -32021, -32022; `basic/index.mdx`, `basic/versioning.mdx`), 200 for every other answer (a
/// JSON-RPC error about the request's content, such as an unknown tool, is not a transport
/// failure).
pub fn modern_status(message: &Value) -> u16 {
    match message.pointer("/error/code").and_then(Value::as_i64) {
        Some(ErrorObject::METHOD_NOT_FOUND) => 404,
        Some(code) if era::is_modern_error(code) => 400,
        _ => 200,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_and_content_type() {
        let both = Some("application/json, text/event-stream;q=0.9");
        assert!(accept_lists(both, "application/json") && accept_lists(both, "text/event-stream"));
        assert!(!accept_lists(Some("*/*"), "application/json"));
        assert!(!accept_lists(None, "text/event-stream"));
        assert!(is_json_content_type(Some("Application/JSON; charset=utf-8")));
        assert!(!is_json_content_type(Some("text/plain")) && !is_json_content_type(None));
    }

    #[test]
    fn origins() {
        let p = OriginPolicy::Localhost;
        for ok in ["http://localhost", "http://localhost:3000", "https://127.0.0.1:8", "http://[::1]:9"] {
            assert!(p.allows(ok), "{ok}");
        }
        for bad in ["http://evil.example", "null", "http://localhost.evil.example", "file://localhost"] {
            assert!(!p.allows(bad), "{bad}");
        }
        assert!(OriginPolicy::Exact(vec!["https://app.example".into()]).allows("HTTPS://app.example"));
    }

    #[test]
    fn hosts() {
        let at = |a: &str| a.parse::<std::net::SocketAddr>().unwrap();
        let lo = at("127.0.0.1:4321");
        for ok in ["127.0.0.1:4321", "localhost:4321", "LOCALHOST:4321", "[::1]:4321", "127.0.0.2:4321"] {
            assert!(host_allowed(ok, lo), "{ok}");
        }
        for bad in [
            "evil.example:4321",
            "localhost.evil.example:4321",
            "127.0.0.1",
            "127.0.0.1:80",
            "localhost:1234",
            "10.0.0.1:4321",
            "",
            "user@localhost:4321",
            "localhost:4321/x",
        ] {
            assert!(!host_allowed(bad, lo), "{bad:?}");
        }
        assert!(host_allowed("localhost", at("127.0.0.1:80")), "no port: 80");
        assert!(host_allowed("10.0.0.1:4321", at("10.0.0.1:4321")), "the address listened on");
        assert!(host_allowed("192.168.1.9:4321", at("0.0.0.0:4321")), "any address when bound to all");
        assert!(!host_allowed("rebind.example:4321", at("0.0.0.0:4321")), "never a foreign name");
    }

    #[test]
    fn protocol_version_header() {
        let all = Revision::LEGACY;
        assert_eq!(protocol_version(None, &all), Ok(None));
        assert_eq!(protocol_version(Some(b"2025-06-18"), &all), Ok(Some(Revision::V2025_06_18)));
        assert!(protocol_version(Some(b"1999-01-01"), &all).is_err());
        assert!(protocol_version(Some(b"2025-06-18"), &[Revision::V2025_03_26]).is_err());
        assert!(protocol_version(Some(b"\xff"), &all).is_err());
    }

    /// Session ids are 128 bits from the CSPRNG: 32 hex digits, and no two alike in 10 000.
    #[test]
    fn session_ids_carry_128_random_bits() {
        let ids: std::collections::HashSet<String> =
            (0..10_000).map(|_| new_session_id(false).unwrap()).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(ids.iter().all(|id| id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())));
    }

    #[test]
    fn session_ids() {
        let id = new_session_id(false).unwrap();
        assert!(is_visible_ascii(id.as_bytes()) && id.len() == 32);
        assert_ne!(id, new_session_id(false).unwrap());
        let bad = new_session_id(true).unwrap();
        let bytes = session_id_bytes(&bad);
        assert!(!is_visible_ascii(&bytes));
        assert_eq!(session_id_of(&bytes), bad);
    }

    #[test]
    fn bodies() {
        let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}});
        assert_eq!(classify(&init), Ok(Inbound { requests: vec!["1".into()], initialize: true }));
        let note = json!({"jsonrpc":"2.0","method":"notifications/initialized"});
        assert_eq!(classify(&note).unwrap().requests.len(), 0);
        let batch = json!([{"jsonrpc":"2.0","id":"a","method":"ping"}, note]);
        assert_eq!(classify(&batch).unwrap().requests, vec!["\"a\"".to_owned()]);
        assert!(!classify(&batch).unwrap().initialize);
        assert!(classify(&json!([])).is_err() && classify(&json!(3)).is_err());
        assert!(classify(&json!({"jsonrpc":"2.0"})).is_err());
        assert!(classify(&json!({"jsonrpc":"2.0","id":null,"method":"ping"})).is_err());
        assert_eq!(classify(&json!({"jsonrpc":"2.0","id":5})).unwrap().requests, vec!["5".to_owned()]);
    }

    #[test]
    fn outbound() {
        assert_eq!(
            classify_outbound(&json!({"jsonrpc":"2.0","id":1,"result":{}})),
            Outbound::Response { keys: vec!["1".into()], null_id: false }
        );
        assert_eq!(
            classify_outbound(&json!({"jsonrpc":"2.0","error":{"code":-32600,"message":"x"}})),
            Outbound::Response { keys: vec![], null_id: true }
        );
        assert_eq!(
            classify_outbound(&json!({"jsonrpc":"2.0","id":1,"method":"roots/list"})),
            Outbound::Other
        );
        assert_eq!(
            classify_outbound(&json!({"jsonrpc":"2.0","method":"notifications/message"})),
            Outbound::Other
        );
    }

    #[test]
    fn modern_posts_and_their_refusals() {
        let all: Vec<Revision> = Revision::ALL.to_vec();
        let meta = era::request_meta("2026-07-28", &json!({}), None);
        let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params": era::with_request_meta(Some(json!({"name":"Hello, 世界"})), &meta)});
        assert!(is_modern_post(&call, None, &all));
        assert!(!is_modern_post(&call, None, &Revision::LEGACY));
        let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{}});
        assert!(!is_modern_post(&init, Some(b"2025-11-25"), &all));
        assert!(is_modern_post(&init, Some(b"2026-07-28"), &all));
        assert!(is_modern_post(&init, None, &[Revision::V2026_07_28]));
        let name = era::encode_header_value("Hello, 世界");
        let ok = Mirrored {
            version: Some(b"2026-07-28"),
            method: Some(b"tools/call"),
            name: Some(name.as_bytes()),
        };
        assert_eq!(modern_refusal(&call, &ok, true, true), None);
        let code = |h: &Mirrored| modern_refusal(&call, h, true, true).map(|e| e.code);
        assert_eq!(code(&Mirrored { version: None, ..ok }), Some(-32020));
        assert_eq!(code(&Mirrored { version: Some(b"2025-11-25"), ..ok }), Some(-32020));
        assert_eq!(code(&Mirrored { method: Some(b"tools/list"), ..ok }), Some(-32020));
        assert_eq!(code(&Mirrored { name: Some(b"other"), ..ok }), Some(-32020));
        assert_eq!(code(&Mirrored { name: None, ..ok }), Some(-32020));
        assert_eq!(modern_refusal(&call, &Mirrored { name: Some(b"other"), ..ok }, true, false), None);
        let bare = json!({"jsonrpc":"2.0","id":1,"method":"tools/list"});
        assert_eq!(modern_refusal(&bare, &ok, true, true).map(|e| e.code), Some(-32602));
        assert_eq!(modern_status(&json!({"error":{"code":-32601}})), 404);
        assert_eq!(modern_status(&json!({"error":{"code":-32022}})), 400);
        assert_eq!(modern_status(&json!({"error":{"code":-32602}})), 200);
        assert_eq!(modern_status(&json!({"result":{}})), 200);
    }

    #[test]
    fn param_headers_are_held_to_the_arguments() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}});
        let schemas = std::collections::HashMap::from([("t".to_owned(), schema)]);
        let call = |args: Value| json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":args}});
        let h = |v: &str| vec![("mcp-param-region".to_owned(), v.to_owned())];
        let code = |c: &Value, sent: &[(String, String)]| param_refusal(c, &schemas, sent).map(|e| e.code);
        assert_eq!(code(&call(json!({"region": "eu"})), &h("eu")), None);
        assert_eq!(code(&call(json!({"region": "eu"})), &h("us")), Some(-32020));
        assert_eq!(code(&call(json!({"region": "eu"})), &[]), Some(-32020));
        assert_eq!(code(&call(json!({"region": null})), &[]), None);
        assert_eq!(code(&call(json!({})), &[]), None);
        let other = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"u"}});
        assert_eq!(code(&other, &h("us")), None, "another tool's headers are not recognized");
        let reduced = mirrored_request(&call(json!({"region": "eu"}))).unwrap();
        assert_eq!(reduced["params"]["arguments"]["region"], "eu");
    }

    #[test]
    fn event_ids() {
        assert_eq!(parse_event_id(&event_id(3, 17)), Some((3, 17)));
        assert_eq!(parse_event_id("nope"), None);
    }
}
