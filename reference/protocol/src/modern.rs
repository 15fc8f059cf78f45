//! The vocabulary of the modern era, 2026-07-28 and the draft: what every request
//! carries in `_meta`, the errors the era defines, which methods it removed, which may answer
//! with an `InputRequiredResult` (MRTR) and which are cacheable, and the HTTP request headers
//! that mirror the body. Pure functions over JSON values, shared by the reference peers and the
//! harness's checks, so one reading of the spec serves both sides.
//!
//! Pages (under `docs/specification/2026-07-28/`): `basic/index.mdx` (`_meta`, error codes),
//! `basic/versioning.mdx`, `basic/patterns/mrtr.mdx`, `basic/patterns/subscriptions.mdx`,
//! `server/utilities/caching.mdx`, `basic/transports/streamable-http.mdx` (request metadata).

use crate::wire::ErrorObject;
use crate::Revision;
use base64::Engine as _;
use serde_json::{json, Map, Value};

/// `_meta` key of the protocol version a request is made at (required on every request).
pub const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the client's capabilities (required on every request).
pub const CLIENT_CAPABILITIES_KEY: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's `Implementation` (SHOULD).
pub const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the log level a request asks for (replaces `logging/setLevel`).
pub const LOG_LEVEL_KEY: &str = "io.modelcontextprotocol/logLevel";
/// `result._meta` key of the server's `Implementation` (SHOULD).
pub const SERVER_INFO_KEY: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key naming the `subscriptions/listen` request a notification belongs to.
pub const SUBSCRIPTION_ID_KEY: &str = "io.modelcontextprotocol/subscriptionId";

/// `resultType` of a finished request.
pub const COMPLETE: &str = "complete";
/// `resultType` of an `InputRequiredResult` (MRTR).
pub const INPUT_REQUIRED: &str = "input_required";

/// The HTTP headers that mirror a request's body (`streamable-http.mdx#request-metadata`),
/// lower-case as HTTP compares them.
pub mod headers {
    pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
    pub const METHOD: &str = "mcp-method";
    pub const NAME: &str = "mcp-name";
    /// The prefix of headers mirroring tool parameters (`x-mcp-header`).
    pub const PARAM_PREFIX: &str = "mcp-param-";
}

/// The client requests a modern server serves (`ClientRequest` of 2026-07-28).
pub const CLIENT_REQUESTS: [&str; 10] = [
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "completion/complete",
];

/// Whether a request may be answered with an `InputRequiredResult`: "Servers **MUST NOT** send
/// `InputRequiredResult` responses on any other client requests" (`mrtr.mdx#supported-requests`).
pub fn allows_input_required(method: &str) -> bool {
    matches!(method, "prompts/get" | "resources/read" | "tools/call")
}

/// Whether a complete result of this request MUST carry `ttlMs` and `cacheScope`
/// (`server/utilities/caching.mdx`).
pub fn is_cacheable(method: &str) -> bool {
    matches!(
        method,
        "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
            | "resources/read"
    )
}

/// The `_meta` of a modern request: its version, the client's capabilities and identity.
pub fn request_meta(version: &str, capabilities: &Value, client_info: Option<&Value>) -> Value {
    let mut meta = Map::new();
    meta.insert(PROTOCOL_VERSION_KEY.into(), json!(version));
    meta.insert(CLIENT_CAPABILITIES_KEY.into(), capabilities.clone());
    if let Some(info) = client_info {
        meta.insert(CLIENT_INFO_KEY.into(), info.clone());
    }
    Value::Object(meta)
}

/// `params` with the members of `meta` added to its `_meta` (made an object if it is none);
/// members already in `params._meta` (a progress token, say) are kept.
pub fn with_request_meta(params: Option<Value>, meta: &Value) -> Value {
    let mut params = match params {
        Some(Value::Object(m)) => m,
        _ => Map::new(),
    };
    let slot = params.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
    if !slot.is_object() {
        *slot = Value::Object(Map::new());
    }
    if let (Some(slot), Some(meta)) = (slot.as_object_mut(), meta.as_object()) {
        for (k, v) in meta {
            slot.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Value::Object(params)
}

/// Whether a request's `params._meta` names a protocol version at all (valid or not): what makes
/// a dual-era peer serve it by the modern era's rules (`basic/versioning.mdx#backward-compatibility-
/// with-initialization-based-versions`: "A request carrying modern per-request `_meta` is served
/// statelessly").
pub fn declares_version(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object)
        .is_some_and(|m| m.contains_key(PROTOCOL_VERSION_KEY))
}

/// The versions a server speaks as `supportedVersions` and `data.supported` list them: every one,
/// newest first, each once (the draft shares its wire string with 2026-07-28).
pub fn supported_list(supported: &[Revision]) -> Vec<&'static str> {
    let mut revs = supported.to_vec();
    revs.sort_unstable_by(|a, b| b.cmp(a));
    let mut out: Vec<&'static str> = Vec::new();
    for r in revs {
        let v = wire_version(r);
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// What a modern request says about itself in `params._meta`.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    pub version: String,
    pub capabilities: Value,
    pub client_info: Option<Value>,
    pub log_level: Option<String>,
}

/// Why a request's `_meta` is malformed: "A request missing either is malformed; the server
/// **MUST** reject it with JSON-RPC error code `-32602`" (`basic/index.mdx#_meta`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MetaProblem {
    #[error("the request has no params._meta")]
    NoMeta,
    #[error("params._meta has no {0:?}")]
    Missing(&'static str),
    #[error("params._meta {key:?} is {why}")]
    Invalid { key: &'static str, why: String },
}

/// Reads `params._meta` of a modern request.
pub fn read_request_meta(params: Option<&Value>) -> Result<RequestMeta, MetaProblem> {
    let meta = params.and_then(|p| p.get("_meta")).and_then(Value::as_object).ok_or(MetaProblem::NoMeta)?;
    let version = match meta.get(PROTOCOL_VERSION_KEY) {
        None => return Err(MetaProblem::Missing(PROTOCOL_VERSION_KEY)),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            let why = format!("{}, not a string", crate::wire::json_type(other));
            return Err(MetaProblem::Invalid { key: PROTOCOL_VERSION_KEY, why });
        }
    };
    let capabilities = match meta.get(CLIENT_CAPABILITIES_KEY) {
        None => return Err(MetaProblem::Missing(CLIENT_CAPABILITIES_KEY)),
        Some(v @ Value::Object(_)) => v.clone(),
        Some(other) => {
            let why = format!("{}, not an object", crate::wire::json_type(other));
            return Err(MetaProblem::Invalid { key: CLIENT_CAPABILITIES_KEY, why });
        }
    };
    let log_level = meta.get(LOG_LEVEL_KEY).and_then(Value::as_str).map(str::to_owned);
    Ok(RequestMeta { version, capabilities, client_info: meta.get(CLIENT_INFO_KEY).cloned(), log_level })
}

/// The version strings a modern revision is spoken with on the wire. The draft has no string
/// of its own: its schema's `LATEST_PROTOCOL_VERSION` is `2026-07-28`.
pub fn wire_version(revision: Revision) -> &'static str {
    match revision {
        Revision::Draft => Revision::V2026_07_28.as_str(),
        other => other.as_str(),
    }
}

/// The version strings of a `supportedVersions` or `data.supported` list (what is not a string
/// is left out; no list is an empty one).
pub fn version_list(list: Option<&Value>) -> Vec<String> {
    list.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
        .unwrap_or_default()
}

/// `UnsupportedProtocolVersionError` (`basic/versioning.mdx#protocol-version-negotiation`).
pub fn unsupported_version(requested: &str, supported: &[&str]) -> ErrorObject {
    ErrorObject::new(ErrorObject::UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported, "requested": requested }))
}

/// `HeaderMismatchError` (`streamable-http.mdx#server-validation`).
pub fn header_mismatch(why: impl Into<String>) -> ErrorObject {
    ErrorObject::new(ErrorObject::HEADER_MISMATCH, format!("Header mismatch: {}", why.into()))
}

/// `MissingRequiredClientCapabilityError` (`basic/index.mdx`).
pub fn missing_capability(required: Value) -> ErrorObject {
    ErrorObject::new(ErrorObject::MISSING_REQUIRED_CLIENT_CAPABILITY, "Missing required client capability")
        .with_data(json!({ "requiredCapabilities": required }))
}

/// Whether an error code is one only a modern server sends: what tells a dual-era client it
/// reached a modern server rather than a legacy one (`basic/versioning.mdx#backward-compatibility`).
pub fn is_modern_error(code: i64) -> bool {
    matches!(
        code,
        ErrorObject::HEADER_MISMATCH
            | ErrorObject::MISSING_REQUIRED_CLIENT_CAPABILITY
            | ErrorObject::UNSUPPORTED_PROTOCOL_VERSION
    )
}

/// The body value `Mcp-Name` mirrors: `params.name` (tools/call, prompts/get) or `params.uri`
/// (resources/read); `None` for other methods.
pub fn name_source<'a>(method: &str, params: Option<&'a Value>) -> Option<&'a str> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    params?.get(key)?.as_str()
}

const SENTINEL_START: &str = "=?base64?";
const SENTINEL_END: &str = "?=";

/// A value as a header carries it: plain when it is visible ASCII without surrounding spaces
/// and does not look like the sentinel, else `=?base64?…?=` (`streamable-http.mdx#value-encoding`).
pub fn encode_header_value(value: &str) -> String {
    let plain = !value.is_empty()
        && value.bytes().all(|b| (0x20..0x7f).contains(&b))
        && !value.starts_with(' ')
        && !value.ends_with(' ')
        && !value.starts_with(SENTINEL_START);
    if plain {
        value.to_owned()
    } else {
        base64_sentinel(value)
    }
}

/// A value in the Base64 sentinel form, `=?base64?…?=`, whatever it holds.
pub fn base64_sentinel(value: &str) -> String {
    format!("{SENTINEL_START}{}{SENTINEL_END}", base64::engine::general_purpose::STANDARD.encode(value))
}

/// The value a header carries, its sentinel encoding undone; `None` when it is encoded badly.
pub fn decode_header_value(header: &str) -> Option<String> {
    match header.strip_prefix(SENTINEL_START).and_then(|h| h.strip_suffix(SENTINEL_END)) {
        Some(encoded) => {
            let bytes = base64::engine::general_purpose::STANDARD.decode(encoded).ok()?;
            String::from_utf8(bytes).ok()
        }
        None => Some(header.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_is_read_and_its_problems_named() {
        let meta =
            request_meta("2026-07-28", &json!({"roots": {}}), Some(&json!({"name": "c", "version": "1"})));
        let params = with_request_meta(Some(json!({"name": "t", "_meta": {"progressToken": 3}})), &meta);
        let read = read_request_meta(Some(&params)).unwrap();
        assert_eq!(read.version, "2026-07-28");
        assert_eq!(read.capabilities, json!({"roots": {}}));
        assert_eq!(params["_meta"]["progressToken"], 3, "existing members are kept");
        assert_eq!(read_request_meta(None), Err(MetaProblem::NoMeta));
        let no_caps = json!({"_meta": {PROTOCOL_VERSION_KEY: "2026-07-28"}});
        assert_eq!(read_request_meta(Some(&no_caps)), Err(MetaProblem::Missing(CLIENT_CAPABILITIES_KEY)));
        let bad = json!({"_meta": {PROTOCOL_VERSION_KEY: 2026, CLIENT_CAPABILITIES_KEY: {}}});
        assert!(matches!(read_request_meta(Some(&bad)), Err(MetaProblem::Invalid { .. })));
    }

    #[test]
    fn header_values_round_trip_through_the_sentinel() {
        for v in ["get_weather", "Hello, 世界", " padded ", "line1\nline2", "=?base64?literal?=", ""] {
            let h = encode_header_value(v);
            assert!(h.bytes().all(|b| (0x20..0x7f).contains(&b)), "{h:?}");
            assert_eq!(decode_header_value(&h).as_deref(), Some(v));
        }
        assert_eq!(encode_header_value("get_weather"), "get_weather");
        assert_eq!(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
        assert_eq!(decode_header_value("=?base64?!!!?="), None);
    }

    #[test]
    fn method_sets() {
        assert!(!CLIENT_REQUESTS.contains(&"initialize") && !CLIENT_REQUESTS.contains(&"ping"));
        assert!(allows_input_required("tools/call") && !allows_input_required("tools/list"));
        assert!(is_cacheable("resources/read") && !is_cacheable("tools/call"));
        assert!(is_modern_error(-32022) && !is_modern_error(-32601));
        assert_eq!(wire_version(Revision::Draft), "2026-07-28");
    }
}
