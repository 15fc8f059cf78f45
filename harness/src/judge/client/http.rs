//! The HTTP transport rules a client must follow, judged on every exchange the scenario server's
//! endpoint saw (its [`HttpRecord`]s), whatever the scenario: the `Accept` of POSTs and GETs,
//! the session id once issued, `MCP-Protocol-Version` after initialization (2025-06-18+), one
//! message per POST (2025-06-18+), `retry` before a resumption (2025-11-25 polling), and in
//! legacy HTTP+SSE, POSTs to the endpoint the `endpoint` event named. The server-side twin is
//! [`HttpChecker`](crate::judge::server::http::HttpChecker). Sans-IO: it sees the records in the order the endpoint logged
//! them, so a test can feed it records by hand.

use crate::judge::rules;
use crate::judge::rules::Violation;
use mcpspec_protocol::Revision;
use mcpspec_reference::transport::http_server::{accept_lists, Exchange, HttpRecord};
use mcpspec_reference::transport::Flavor;
use serde_json::Value;
use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// How many exchanges, polls and session ids the checker remembers (a flood costs bounded
/// memory).
const KEPT: usize = 4_096;

/// Judges the HTTP requests of a client, across the sessions it starts.
#[derive(Debug)]
pub struct HttpClientChecker {
    flavor: Flavor,
    /// The revision the scenario runs at (which rules apply).
    revision: Revision,
    /// Session ids the endpoint issued (Streamable HTTP).
    issued: HashSet<String>,
    /// When the first one was issued: records arrive by session, not in time order (a request
    /// refused before any session is drained after the session's own), and only a request made
    /// after it must carry one.
    first_issued_at: Option<Instant>,
    /// Per session id: the version the scenario server answered `initialize` with, and the
    /// stream that answer went out on.
    negotiated: HashMap<String, (String, u64)>,
    /// Legacy: the path and query each `endpoint` event named.
    endpoints: HashSet<String>,
    /// Streams closed after their priming event: by event id, when and with which `retry`.
    polls: HashMap<String, (Instant, Duration)>,
    /// Every exchange seen, oldest first (bounded).
    exchanges: VecDeque<Exchange>,
    /// The inputSchema of each tool of the scenario server with `x-mcp-header` parameters, by
    /// name: what a call's `Mcp-Param-*` headers are held to.
    param_schemas: HashMap<String, Value>,
}

impl HttpClientChecker {
    pub fn new(flavor: Flavor, revision: Revision) -> HttpClientChecker {
        HttpClientChecker {
            flavor,
            revision,
            issued: HashSet::new(),
            first_issued_at: None,
            negotiated: HashMap::new(),
            endpoints: HashSet::new(),
            polls: HashMap::new(),
            exchanges: VecDeque::new(),
            param_schemas: HashMap::new(),
        }
    }

    /// The scenario server's tools with `x-mcp-header` parameters (inputSchema by name).
    pub fn param_schemas(&self) -> &HashMap<String, Value> {
        &self.param_schemas
    }

    /// The scenario server's tools with `x-mcp-header` parameters (inputSchema by name).
    pub fn with_param_schemas(mut self, schemas: HashMap<String, Value>) -> Self {
        self.param_schemas = schemas;
        self
    }

    pub fn flavor(&self) -> Flavor {
        self.flavor
    }

    /// The revision the scenario runs at.
    pub fn revision(&self) -> Revision {
        self.revision
    }

    /// Legacy HTTP+SSE: a session's `endpoint` event named `path_and_query`.
    pub fn endpoint_announced(&mut self, path_and_query: &str) {
        if self.endpoints.len() < KEPT {
            self.endpoints.insert(path_and_query.to_owned());
        }
    }

    /// The exchanges seen so far, oldest first.
    pub fn exchanges(&self) -> impl Iterator<Item = &Exchange> {
        self.exchanges.iter()
    }

    /// The polls (streams closed after their priming event) seen: event id, when, `retry`.
    pub fn polls(&self) -> impl Iterator<Item = (&str, Instant, Duration)> {
        self.polls.iter().map(|(id, (at, retry))| (id.as_str(), *at, *retry))
    }

    /// Judges one POST body the client sent: one message, or (2025-03-26 only) a batch.
    pub fn on_post_body(&mut self, value: &Value) -> Vec<Violation> {
        match value {
            Value::Array(items) if self.revision >= Revision::V2025_06_18 => vec![Violation::new(
                &rules::HTTP_CLIENT_ONE_MESSAGE,
                format!("one JSON-RPC message per POST (no batches in {})", self.revision),
                format!("a POST holding a batch of {} messages", items.len()),
            )],
            _ => Vec::new(),
        }
    }

    /// Judges one record of the endpoint's log, `session` being the session it belongs to (if
    /// any: a request refused before a session was found has none).
    pub fn on_record(&mut self, session: Option<&str>, record: &HttpRecord) -> Vec<Violation> {
        let mut out = Vec::new();
        match record {
            HttpRecord::Exchange(x) => {
                self.on_exchange(x, &mut out);
                if self.exchanges.len() >= KEPT {
                    self.exchanges.pop_front();
                }
                self.exchanges.push_back(x.clone());
            }
            HttpRecord::Sent(sent) => {
                let version = sent.message.pointer("/result/protocolVersion").and_then(Value::as_str);
                if let (Some(version), Some(session)) = (version, session) {
                    if self.negotiated.len() < KEPT {
                        self.negotiated.insert(session.to_owned(), (version.to_owned(), sent.stream));
                    }
                }
            }
            HttpRecord::PollClosed { event_id, retry, at, .. } if self.polls.len() < KEPT => {
                self.polls.insert(event_id.clone(), (*at, *retry));
            }
            _ => {}
        }
        out
    }

    fn on_exchange(&mut self, x: &Exchange, out: &mut Vec<Violation>) {
        // A protected endpoint: its metadata documents are not the transport's, and a request
        // refused with a challenge is authorization's to judge (`auth.rs`), made before or
        // outside any session as the flow requires.
        if x.response_headers.iter().any(|(k, _)| k == "www-authenticate")
            || x.path == mcpspec_reference::transport::http_server::ELSEWHERE_PRM_PATH
            || x.path.starts_with("/.well-known/")
        {
            return;
        }
        let header = |name: &str| x.request_headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        let what = format!("{} {} → {}", x.method, x.path, x.status);
        let accept = header("accept");
        let shown = |h: Option<&str>| h.map_or_else(|| "no header".to_owned(), |v| format!("{v:?}"));
        match x.method.as_str() {
            "POST"
                if self.flavor == Flavor::Streamable
                    && !(accept_lists(accept, "application/json")
                        && accept_lists(accept, "text/event-stream")) =>
            {
                out.push(Violation::new(
                    &rules::HTTP_CLIENT_POST_ACCEPT,
                    "Accept listing both application/json and text/event-stream",
                    format!("{what} with Accept: {}", shown(accept)),
                ));
            }
            "GET" if !accept_lists(accept, "text/event-stream") => out.push(Violation::new(
                &rules::HTTP_CLIENT_GET_ACCEPT,
                "Accept listing text/event-stream",
                format!("{what} with Accept: {}", shown(accept)),
            )),
            _ => {}
        }
        // What else a client may ask of the endpoint: GET opens a stream (its body, if any, is
        // no message), DELETE ends a session (Streamable HTTP), OPTIONS is a browser's CORS
        // preflight, HEAD a probe. A message in a request of any other method did not go by POST.
        // (A Content-Type on a GET is no body: HTTP clients send their default headers.)
        if !matches!(x.method.as_str(), "POST" | "OPTIONS" | "GET" | "DELETE" | "HEAD") {
            out.push(Violation::new(
                &rules::HTTP_CLIENT_POST_MESSAGES,
                "JSON-RPC messages sent with POST (GET and DELETE carry none)",
                what.clone(),
            ));
        }
        if let (Some(request), "POST") = (&x.request, x.method.as_str()) {
            out.extend(modern_header_violations(&x.request_headers, request));
            out.extend(param_header_violations(&x.request_headers, request, &self.param_schemas));
        }
        match self.flavor {
            Flavor::Streamable => self.judge_session(x, &what, out),
            Flavor::LegacySse => {
                if x.method == "POST" && !self.endpoints.contains(&x.path) {
                    let named: Vec<&String> = self.endpoints.iter().collect();
                    out.push(Violation::new(
                        &rules::SSE_CLIENT_POST_ENDPOINT,
                        format!("POSTs to the endpoint the endpoint event named ({named:?})"),
                        what.clone(),
                    ));
                }
            }
        }
        if let Some(last) = header("last-event-id") {
            if let Some((closed, retry)) = self.polls.get(last) {
                let waited = x.at.saturating_duration_since(*closed);
                if waited < *retry {
                    out.push(Violation::new(
                        &rules::HTTP_CLIENT_RETRY,
                        format!(
                            "a reconnection no sooner than retry ({} ms) after the stream closed",
                            retry.as_millis()
                        ),
                        format!("{what} with Last-Event-ID {last:?} {} ms after", waited.as_millis()),
                    ));
                }
            }
        }
    }

    /// Streamable HTTP: the session id on every request once issued; from 2025-06-18 the
    /// protocol-version header on every request after initialization.
    fn judge_session(&mut self, x: &Exchange, what: &str, out: &mut Vec<Violation>) {
        let header = |name: &str| x.request_headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let sent_id = header("mcp-session-id");
        let issued_here =
            x.response_headers.iter().find(|(k, _)| k == "mcp-session-id").map(|(_, v)| v.clone());
        // A POST without a session id that opened a session is an initialize (a re-initialize
        // after a 404 included): the one request that goes without.
        let later = self.first_issued_at.is_some_and(|at| x.at > at);
        if sent_id.is_none() && issued_here.is_none() && later {
            out.push(Violation::new(
                &rules::HTTP_CLIENT_SESSION_ID,
                "the session id the server issued on every later request",
                format!("{what} without Mcp-Session-Id"),
            ));
        }
        if let Some(id) = issued_here {
            self.first_issued_at = Some(self.first_issued_at.map_or(x.at, |at| at.min(x.at)));
            if self.issued.len() < KEPT {
                self.issued.insert(id);
            }
        }
        let Some(session) = sent_id else { return };
        let Some((version, init_stream)) = self.negotiated.get(&session) else { return };
        let at_least_2025_06_18 = version.parse::<Revision>().is_ok_and(|r| r >= Revision::V2025_06_18);
        // The GET that resumes the initialize's own stream comes before the client can know the
        // version: it is fetching the answer that names it.
        let fetching_answer =
            x.method == "GET" && header("last-event-id").is_some() && x.stream == Some(*init_stream);
        if !at_least_2025_06_18 || fetching_answer {
            return;
        }
        match header("mcp-protocol-version") {
            None => out.push(Violation::new(
                &rules::HTTP_CLIENT_PROTOCOL_VERSION,
                format!(
                    "MCP-Protocol-Version on every request after initialization ({version} was negotiated)"
                ),
                format!("{what} without MCP-Protocol-Version"),
            )),
            Some(v) if v.trim() != version => out.push(Violation::new(
                &rules::HTTP_CLIENT_PROTOCOL_VERSION_NEGOTIATED,
                format!("MCP-Protocol-Version: {version} (the version negotiated)"),
                format!("{what} with MCP-Protocol-Version: {v}"),
            )),
            Some(_) => {}
        }
    }
}

/// The request-metadata headers of one modern POST (`streamable-http.mdx#request-metadata`),
/// judged against its body: `MCP-Protocol-Version` equal to `_meta`'s version, `Mcp-Method`
/// equal to the method, `Mcp-Name` (its Base64 sentinel decoded) equal to `params.name` or
/// `params.uri` where the method has one. `headers` are lower-case names with their values, as
/// the endpoint saw them; a body that is no modern request is not judged here.
pub fn modern_header_violations(headers: &[(String, String)], body: &Value) -> Vec<Violation> {
    use mcpspec_protocol::modern::{self as era, PROTOCOL_VERSION_KEY};
    let mut out = Vec::new();
    let (Some(method), Some(_)) = (body.get("method").and_then(Value::as_str), body.get("id")) else {
        return out;
    };
    let params = body.get("params");
    let Some(version) = params.and_then(|p| p.pointer("/_meta")).and_then(|m| m.get(PROTOCOL_VERSION_KEY))
    else {
        return out;
    };
    let header =
        |name: &str| headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str());
    let what = format!("the POST of {method}");
    let version = version.as_str().unwrap_or_default();
    match header(era::headers::PROTOCOL_VERSION) {
        Some(v) if v.trim() == version => {}
        sent => out.push(Violation::new(
            &super::modern::HTTP_VERSION_HEADER,
            format!("MCP-Protocol-Version: {version} (the body's _meta version)"),
            sent.map_or_else(
                || format!("{what} without it"),
                |v| format!("{what} with MCP-Protocol-Version: {v}"),
            ),
        )),
    }
    match header(era::headers::METHOD) {
        Some(m) if m.trim() == method => {}
        sent => out.push(Violation::new(
            &super::modern::HTTP_METHOD_HEADER,
            format!("Mcp-Method: {method}"),
            sent.map_or_else(|| format!("{what} without it"), |m| format!("{what} with Mcp-Method: {m}")),
        )),
    }
    if let Some(name) = era::name_source(method, params) {
        let sent = header(era::headers::NAME);
        // A value that is not plain visible ASCII MUST travel in the sentinel (value-encoding).
        let plain = sent.is_some_and(|h| h.bytes().all(|b| (0x20..0x7f).contains(&b)));
        if !plain || sent.and_then(|h| era::decode_header_value(h.trim())).as_deref() != Some(name) {
            out.push(Violation::new(
                &super::modern::HTTP_NAME_HEADER,
                format!("Mcp-Name: {}", era::encode_header_value(name)),
                sent.map_or_else(|| format!("{what} without it"), |n| format!("{what} with Mcp-Name: {n}")),
            ));
        }
    }
    out
}

/// The `Mcp-Param-*` headers of one modern `tools/call` POST, judged against its arguments for
/// a tool of `schemas` (`streamable-http.mdx#custom-headers-from-tool-parameters`): a header
/// for each annotated argument with a value, matching it once decoded; none for a null or
/// absent one; every value visible ASCII, in the Base64 sentinel when it must be; integers
/// within the safe range. Another method or tool is not judged here.
pub fn param_header_violations(
    headers: &[(String, String)],
    body: &Value,
    schemas: &HashMap<String, Value>,
) -> Vec<Violation> {
    use super::modern::{
        PARAM_HEADER_ENCODED, PARAM_HEADER_MIRRORED, PARAM_HEADER_OMITTED, PARAM_HEADER_SAFE_INTEGER,
    };
    use mcpspec_protocol::modern as era;
    use mcpspec_protocol::param_headers::{
        annotations, header_text, is_unsafe_integer, mismatches, Mismatch,
    };
    let mut out = Vec::new();
    if body.get("method").and_then(Value::as_str) != Some("tools/call") {
        return out;
    }
    let Some(tool) = body.pointer("/params/name").and_then(Value::as_str) else { return out };
    let Some(schema) = schemas.get(tool) else { return out };
    let arguments = body.pointer("/params/arguments");
    let what = format!("the POST of tools/call {tool:?}");
    for a in annotations(schema) {
        if let Some(v) = a.value_in(arguments).filter(|v| is_unsafe_integer(v)) {
            out.push(Violation::new(
                &PARAM_HEADER_SAFE_INTEGER,
                format!("{} within -(2^53-1)..2^53-1", a.path.join(".")),
                format!("{what} with {}: {v}", a.path.join(".")),
            ));
        }
    }
    let sent: Vec<(String, String)> =
        headers.iter().filter(|(k, _)| k.starts_with(era::headers::PARAM_PREFIX)).cloned().collect();
    for m in mismatches(schema, arguments, &sent) {
        let expected_for = |header: &str| {
            let a = annotations(schema).into_iter().find(|a| a.header() == header);
            let text = a.and_then(|a| a.value_in(arguments).and_then(header_text));
            text.map_or_else(
                || format!("no {header} header"),
                |t| format!("{header}: {}", era::encode_header_value(&t)),
            )
        };
        let rule = match &m {
            Mismatch::Missing { .. } => &PARAM_HEADER_MIRRORED,
            Mismatch::Unexpected { .. } => &PARAM_HEADER_OMITTED,
            Mismatch::Invalid { .. } => &PARAM_HEADER_ENCODED,
            // A value that had to travel in the sentinel and came plain is an encoding fault.
            Mismatch::Differs { header, sent, .. } => {
                let needed = expected_for(header);
                match needed.contains("=?base64?") && !sent.trim().starts_with("=?base64?") {
                    true => &PARAM_HEADER_ENCODED,
                    false => &PARAM_HEADER_MIRRORED,
                }
            }
            _ => &PARAM_HEADER_MIRRORED,
        };
        out.push(Violation::new(rule, expected_for(m.header()), format!("{what}: {m}")));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_reference::transport::http_server::SentMessage;
    use serde_json::json;

    fn exchange(method: &str, headers: &[(&str, &str)], status: u16, issued: Option<&str>) -> HttpRecord {
        HttpRecord::Exchange(Exchange {
            method: method.into(),
            path: "/mcp".into(),
            request_headers: headers.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect(),
            status,
            response_content_type: None,
            response_headers: issued
                .map(|i| vec![("mcp-session-id".to_owned(), i.to_owned())])
                .unwrap_or_default(),
            stream: Some(1),
            replayed: Vec::new(),
            request: None,
            at: Instant::now(),
        })
    }

    const BOTH: &str = "application/json, text/event-stream";

    fn ids(v: &[Violation]) -> Vec<&str> {
        v.iter().map(|v| v.rule.id).collect()
    }

    /// Regression: a request refused before the session existed (a probe, say) is drained after
    /// the session's records; it was judged "later" than the session id and failed session-id.
    #[test]
    fn a_request_made_before_the_session_is_not_judged_later() {
        let mut c = HttpClientChecker::new(Flavor::Streamable, Revision::V2025_11_25);
        let before = exchange("POST", &[("accept", BOTH)], 400, None);
        assert!(c.on_record(None, &exchange("POST", &[("accept", BOTH)], 200, Some("s1"))).is_empty());
        assert!(c.on_record(None, &before).is_empty());
        let after = exchange("POST", &[("accept", BOTH)], 400, None);
        assert_eq!(ids(&c.on_record(None, &after)), ["http-client/session-id"]);
    }

    #[test]
    fn a_correct_session_passes_and_each_omission_is_named() {
        let mut c = HttpClientChecker::new(Flavor::Streamable, Revision::V2025_06_18);
        assert!(c.on_record(None, &exchange("POST", &[("accept", BOTH)], 200, Some("s1"))).is_empty());
        let answer = json!({"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}});
        let sent =
            HttpRecord::Sent(SentMessage { stream: 1, event_id: None, json_body: false, message: answer });
        c.on_record(Some("s1"), &sent);
        let good = [("accept", BOTH), ("mcp-session-id", "s1"), ("mcp-protocol-version", "2025-06-18")];
        assert!(c.on_record(Some("s1"), &exchange("POST", &good, 202, None)).is_empty());
        let v = c.on_record(None, &exchange("POST", &[("accept", "application/json")], 400, None));
        assert_eq!(ids(&v), ["http-client/post-accept", "http-client/session-id"]);
        let v = c.on_record(
            Some("s1"),
            &exchange("GET", &[("accept", "*/*"), ("mcp-session-id", "s1")], 200, None),
        );
        assert_eq!(ids(&v), ["http-client/get-accept", "http-client/protocol-version-header"]);
        let old = [("accept", BOTH), ("mcp-session-id", "s1"), ("mcp-protocol-version", "2025-03-26")];
        assert_eq!(
            ids(&c.on_record(Some("s1"), &exchange("POST", &old, 200, None))),
            ["http-client/protocol-version-negotiated"]
        );
        // A re-initialize opens a new session without the old id: allowed.
        assert!(c.on_record(None, &exchange("POST", &[("accept", BOTH)], 200, Some("s2"))).is_empty());
        assert_eq!(ids(&c.on_post_body(&json!([{}, {}]))), ["http-client/one-message-per-post"]);
    }

    #[test]
    fn a_reconnection_before_retry_is_caught() {
        let mut c = HttpClientChecker::new(Flavor::Streamable, Revision::V2025_11_25);
        let at = Instant::now();
        let poll =
            HttpRecord::PollClosed { stream: 1, event_id: "1-1".into(), retry: Duration::from_secs(60), at };
        c.on_record(Some("s"), &poll);
        let v = c.on_record(
            Some("s"),
            &exchange("GET", &[("accept", "text/event-stream"), ("last-event-id", "1-1")], 200, None),
        );
        assert_eq!(ids(&v), ["http-client/respect-retry"]);
    }

    #[test]
    fn legacy_posts_go_to_the_announced_endpoint() {
        let mut c = HttpClientChecker::new(Flavor::LegacySse, Revision::V2024_11_05);
        c.endpoint_announced("/messages?sessionId=abc");
        let HttpRecord::Exchange(mut x) = exchange("POST", &[], 202, None) else { unreachable!() };
        x.path = "/messages?sessionId=abc".into();
        assert!(c.on_record(Some("abc"), &HttpRecord::Exchange(x.clone())).is_empty());
        x.path = "/sse".into();
        assert_eq!(ids(&c.on_record(None, &HttpRecord::Exchange(x))), ["sse-client/post-to-endpoint"]);
    }

    #[test]
    fn modern_headers_mirror_the_body() {
        use mcpspec_protocol::modern::{request_meta, with_request_meta};
        let meta = request_meta("2026-07-28", &json!({}), None);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": with_request_meta(Some(json!({"name": "天気"})), &meta)});
        let h = |v: &str, m: &str, n: &str| -> Vec<(String, String)> {
            [("mcp-protocol-version", v), ("mcp-method", m), ("mcp-name", n)]
                .iter()
                .filter(|(_, v)| !v.is_empty())
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        let name = mcpspec_protocol::modern::encode_header_value("天気");
        assert!(modern_header_violations(&h("2026-07-28", "tools/call", &name), &body).is_empty());
        assert_eq!(
            ids(&modern_header_violations(&h("2025-11-25", "tools/call", &name), &body)),
            ["http-client/modern-protocol-version-header"]
        );
        assert_eq!(
            ids(&modern_header_violations(&h("2026-07-28", "", "天気"), &body)),
            ["http-client/modern-method-header", "http-client/modern-name-header"]
        );
        let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": with_request_meta(None, &meta)});
        assert!(modern_header_violations(&h("2026-07-28", "tools/list", ""), &list).is_empty());
        let legacy = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"});
        assert!(modern_header_violations(&[], &legacy).is_empty(), "a legacy body is not judged here");
        // What the reference client's transport sends passes.
        let sent = mcpspec_reference::transport::http_client::modern_request_headers(&body).unwrap();
        assert!(modern_header_violations(&sent, &body).is_empty());
    }

    #[test]
    fn param_headers_mirror_the_arguments() {
        use mcpspec_protocol::param_headers::mirrored_headers;
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "priority": {"type": "integer", "x-mcp-header": "Priority"},
            "verbose": {"type": ["boolean", "null"], "x-mcp-header": "Verbose"}}});
        let schemas = HashMap::from([("t".to_owned(), schema.clone())]);
        let call = |args: Value| json!({"method": "tools/call", "id": 1, "params": {"name": "t", "arguments": args}});
        let judge = |args: Value, h: &[(&str, &str)]| {
            let h: Vec<(String, String)> =
                h.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect();
            ids(&param_header_violations(&h, &call(args), &schemas))
                .into_iter()
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let args = json!({"region": "=?base64?literal?=", "priority": 42, "verbose": null});
        let good = mirrored_headers(&schema, Some(&args));
        let good: Vec<(&str, &str)> = good.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert!(judge(args.clone(), &good).is_empty());
        assert_eq!(
            judge(args.clone(), &[("mcp-param-region", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")]),
            ["http-client/param-header-mirrored"]
        );
        let plain = [("mcp-param-region", "=?base64?literal?="), ("mcp-param-priority", "42")];
        assert_eq!(judge(args.clone(), &plain), ["http-client/param-header-encoding"]);
        let mut extra = good.clone();
        extra.push(("mcp-param-verbose", "null"));
        assert_eq!(judge(args, &extra), ["http-client/param-header-omitted"]);
        let big = json!({"priority": 9_007_199_254_740_993_i64});
        assert_eq!(
            judge(big, &[("mcp-param-priority", "9007199254740993")]),
            ["http-client/param-header-safe-integer"]
        );
        let other =
            json!({"method": "tools/call", "id": 1, "params": {"name": "u", "arguments": {"region": "x"}}});
        assert!(param_header_violations(&[], &other, &schemas).is_empty(), "a tool without annotations");
    }
}
