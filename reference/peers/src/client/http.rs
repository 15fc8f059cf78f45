//! The reference client over HTTP (Streamable HTTP or legacy HTTP+SSE): the same
//! [`ReferenceClient`] as over stdio, driven through the HTTP client transport.

use super::auth::OAuthClient;
use super::{ClientFault, Phase, ReferenceClient};
use crate::transport::http_client::{
    BodyKind, HttpClientOptions, HttpClientTransport, HttpEvent, ParamHeaders, Resumption, Tweaks,
    SESSION_HEADER,
};
use crate::transport::{Flavor, RecvError};
use mcpspec_protocol::framing::FrameContent;
use mcpspec_protocol::wire::RequestId;
use mcpspec_protocol::Revision;
use serde_json::Value;
use std::time::Duration;

/// How many times the reference client starts a new session after a 404 before it gives up.
const MAX_REINITIALIZE: u32 = 3;

/// Runs the reference client against the server at `url` over HTTP (`flavor`): the same
/// [`ReferenceClient`] as over stdio, each message one POST; from 2025-06-18 the
/// `MCP-Protocol-Version` header once initialized; the GET stream opened (a 405 is fine); a 404
/// for its session answered with a new `initialize` (`basic/transports.mdx#session-management`);
/// a POST stream closed early resumed with `Last-Event-ID` after `retry` (by the transport);
/// and, done, the session ended with DELETE. Each wait is bounded by `timeout`.
pub async fn run_http(
    url: url::Url,
    flavor: Flavor,
    supported: Vec<Revision>,
    scenario: Option<&str>,
    fault: Option<ClientFault>,
    timeout: Duration,
    client_metadata_url: Option<String>,
) -> Result<(), String> {
    let mut options = HttpClientOptions::new(url.clone(), flavor);
    options.request_timeout = timeout;
    options.resumption = match fault {
        Some(ClientFault::HttpIgnoresRetry) => Resumption::IgnoreRetry,
        Some(ClientFault::HttpNoResume) => Resumption::Never,
        _ => Resumption::HonourRetry,
    };
    options.param_headers = match fault {
        Some(ClientFault::ModernParamHeadersOmitted) => ParamHeaders::Omit,
        Some(ClientFault::ModernParamHeadersUnencoded) => ParamHeaders::Unencoded,
        Some(ClientFault::ModernParamHeadersForMissingValues) => ParamHeaders::ForMissingValues,
        _ => ParamHeaders::Mirror,
    };
    let mut t = HttpClientTransport::connect(options).await.map_err(|e| e.to_string())?;
    if fault == Some(ClientFault::SsePostWrongPath) {
        t.set_post_url(url.clone());
    }
    if fault == Some(ClientFault::AuthForeignToken) {
        // A token some other authorization server issued, kept from elsewhere.
        use_token(&mut t, &url, "mcpspec-token-of-another-authorization-server", None);
    }
    let mut client = ReferenceClient::new(supported.clone(), fault).for_scenario(scenario);
    let mut out = client.start();
    let mut reinitialized = 0;
    let mut get_opened = false;
    // Events read while waiting for a POST's response head, handled in order after.
    let mut early: std::collections::VecDeque<HttpEvent> = Default::default();
    // Modern era: the request each POST carried, by exchange, so that an error without an id
    // in an error status's body answers it (`streamable-http.mdx#backward-compatibility`: the
    // body of a 4xx tells a modern server from a legacy one).
    let mut posted: std::collections::HashMap<u64, RequestId> = Default::default();
    // The OAuth flow, begun at the first refusal; the exchanges refused; why it failed.
    let mut oauth: Option<OAuthClient> = None;
    let mut refused: std::collections::HashSet<u64> = Default::default();
    let mut auth_failed: Option<String> = None;
    // The planted bugs of the transport (`fuzz-http-` faults), tripping on what it yields.
    let mut bugs = super::planted::HttpBugs::new(flavor);
    let outcome = loop {
        // The legacy session's machinery (protocol-version header once negotiated, the GET
        // stream, the session header) has no place in the modern era.
        let initialized = client.revision.is_some() && !client.is_modern();
        if fault == Some(ClientFault::HttpBatch) && initialized && out.len() > 1 {
            out = vec![Value::Array(std::mem::take(&mut out))];
        }
        for value in std::mem::take(&mut out) {
            // Each POST goes out once the one before has its response head: POSTs made at once
            // race, and the order of messages is the client's to keep (a cancellation after its
            // request, notifications/initialized before what follows it).
            let n = send_http(&mut t, &value, fault, initialized);
            if client.is_modern() {
                if let Some(id) = value.get("id").and_then(RequestId::from_value) {
                    if posted.len() < 1_024 {
                        posted.insert(n, id);
                    }
                }
            }
            let mut n = n;
            let mut attempts = 0;
            loop {
                await_head(&mut t, n, timeout, &mut early).await;
                // basic/authorization.mdx: a 401 (or a 403 insufficient_scope) is answered by
                // authorizing, then sending the same message again, a bounded number of times.
                let Some((status, challenge)) = refusal(&early, n) else { break };
                let limit = match fault {
                    // Bounded all the same: a wait in mcpspec is never endless.
                    Some(ClientFault::AuthUnboundedStepUp) => 4 * MAX_AUTHORIZATIONS,
                    _ => MAX_AUTHORIZATIONS,
                };
                if attempts >= limit {
                    break;
                }
                attempts += 1;
                early.retain(|e| e.exchange() != n);
                refused.insert(n);
                if oauth.is_none() {
                    match OAuthClient::from_env(url.clone(), fault, timeout) {
                        Ok(o) => {
                            oauth = Some(match client_metadata_url.clone() {
                                Some(u) => o.with_client_metadata_url(u),
                                None => o,
                            })
                        }
                        Err(why) => {
                            auth_failed = Some(why);
                            break;
                        }
                    }
                }
                let Some(o) = oauth.as_mut() else { break };
                match o.authorize(status, &challenge).await {
                    Ok(token) => use_token(&mut t, &url, &token, fault),
                    Err(why) => {
                        auth_failed = Some(why);
                        break;
                    }
                }
                n = send_http(&mut t, &value, fault, initialized);
            }
            if auth_failed.is_some() {
                break;
            }
        }
        if let Some(why) = auth_failed.take() {
            break Err(why);
        }
        if client.finished() {
            break Ok(());
        }
        let next = match early.pop_front() {
            Some(e) => Ok(e),
            None => t.recv(timeout).await,
        };
        // What still comes of a refused exchange (its body's end, its requests unanswered)
        // is over: the message went again, authorized.
        if next.as_ref().is_ok_and(|e| refused.contains(&e.exchange())) {
            continue;
        }
        let event = match next {
            Ok(e) => e,
            Err(RecvError::Timeout(d)) => {
                break Err(format!("the server sent nothing for {d:?} ({:?})", client.phase()))
            }
            Err(RecvError::Closed) => break Err(format!("the connection closed ({:?})", client.phase())),
        };
        if let Some(crash) = fault.and_then(|f| bugs.trips(f, &event)) {
            match crash.happen().await {}
        }
        let read_to_end = fault.and_then(|f| bugs.reads_to_end(f, &event));
        match event {
            // The fault reads SSE streams only: a message that came as a JSON body is lost.
            HttpEvent::Message { sse: None, .. } if fault == Some(ClientFault::HttpSseOnly) => continue,
            HttpEvent::Message { n, frame, .. } => {
                let FrameContent::Json { value, .. } = &frame.content else { continue };
                let mut values = match value {
                    Value::Array(items) => items.clone(),
                    other => vec![other.clone()],
                };
                if client.is_modern() {
                    for v in &mut values {
                        let idless = v.get("error").is_some() && v.get("id").is_none_or(Value::is_null);
                        if let (true, Some(id)) = (idless, posted.get(&n)) {
                            v["id"] = id.to_value();
                        }
                    }
                }
                for v in &values {
                    out.extend(client.on_message(v));
                    super::fetch_all(client.take_fetches()).await;
                }
                if let (Some(revision), false) = (client.revision, initialized) {
                    // transports.mdx#protocol-version-header: on every request after
                    // initialization, from 2025-06-18.
                    let header = match fault {
                        _ if revision < Revision::V2025_06_18 => None,
                        Some(ClientFault::HttpNoProtocolVersion) => None,
                        Some(ClientFault::HttpWrongProtocolVersion) => Some("2025-03-26".to_owned()),
                        _ => Some(revision.as_str().to_owned()),
                    };
                    t.set_protocol_version(header);
                }
            }
            HttpEvent::Response(x) if x.status == 404 => {
                // Only a 404 for the session in force: one for an older session came late.
                let ours = x
                    .request_headers
                    .iter()
                    .any(|(k, v)| k == SESSION_HEADER && Some(v.as_str()) == t.session_id());
                if !ours {
                    continue;
                }
                if fault == Some(ClientFault::HttpNoReinitialize) || reinitialized >= MAX_REINITIALIZE {
                    break Err(format!("{}: the session is gone", x.describe()));
                }
                reinitialized += 1;
                t.reset_session();
                get_opened = false;
                client = ReferenceClient::new(supported.clone(), fault).for_scenario(scenario);
                out = client.start();
            }
            HttpEvent::Unanswered { ids, .. } if client.is_modern() => {
                // A probe unanswered means a legacy server (it falls back); another request, that
                // the client gives up (its phase says why).
                out.extend(client.on_no_answer(&ids));
            }
            HttpEvent::End { n, .. } => {
                posted.remove(&n);
            }
            HttpEvent::Unanswered { ids, why, .. }
                // A 404 makes the requests of the old session unanswered: the new one asks again.
                // The modern era's requests (a probe refused before falling back) are over.
                if (reinitialized == 0 || t.session_id().is_some())
                    && !ids.iter().all(|id| client.sent_in_modern_era(id)) => {
                    let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
                    break Err(format!("no answer to {} will come: {why}", ids.join(", ")));
                }
            _ => {}
        }
        if let Some(n) = read_to_end {
            // The planted bug (`fuzz-http-hang-endless-stream`): the POST's stream is read to its
            // end before anything else, with no timeout; what comes meanwhile waits.
            loop {
                match t.recv(Duration::from_secs(3600)).await {
                    Ok(HttpEvent::End { n: m, .. }) if m == n => break,
                    Ok(other) => early.push_back(other),
                    Err(RecvError::Closed) => break,
                    Err(RecvError::Timeout(_)) => {}
                }
            }
        }
        if flavor == Flavor::Streamable
            && client.revision.is_some()
            && !client.is_modern()
            && !get_opened
            && t.session_id().is_some()
        {
            // The server's own stream (it may answer 405: then there is none).
            get_opened = true;
            t.open_get(&Tweaks::default());
        }
    };
    let outcome = match client.phase() {
        Phase::Gave(why) => Err(why.clone()),
        _ => outcome,
    };
    // transports.mdx#session-management: clients SHOULD DELETE a session they no longer need.
    if flavor == Flavor::Streamable && t.session_id().is_some() && fault != Some(ClientFault::HttpNoDelete) {
        let n = t.delete(&Tweaks::default());
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            match t.recv(left).await {
                Ok(HttpEvent::Response(x)) if x.n == n => break,
                Ok(HttpEvent::Failed { n: m, .. }) if m == n => break,
                Ok(_) => {}
                Err(_) => break,
            }
        }
    }
    t.abort();
    outcome
}

/// How many times one message is authorized and sent again before the client gives up (the
/// first authorization and [`super::auth::MAX_STEP_UPS`] step-ups fit).
const MAX_AUTHORIZATIONS: u32 = 3;

/// Waits (at most `timeout`) until exchange `n` has its response head (or failed), keeping
/// every event read meanwhile in `early`.
async fn await_head(
    t: &mut HttpClientTransport,
    n: u64,
    timeout: Duration,
    early: &mut std::collections::VecDeque<HttpEvent>,
) {
    let deadline = tokio::time::Instant::now() + timeout;
    while !early.iter().any(|e| matches!(e, HttpEvent::Response(x) if x.n == n)) {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        match t.recv(left).await {
            Ok(e) => {
                let done = matches!(&e, HttpEvent::Failed { n: m, .. } if *m == n);
                early.push_back(e);
                if done {
                    break;
                }
            }
            Err(_) => break,
        }
    }
}

/// Exchange `n`'s refusal that authorizing answers: a 401, or a 403 whose challenge says
/// `insufficient_scope` (another 403, an Origin refused say, is not OAuth's); its status and
/// `WWW-Authenticate` values.
fn refusal(early: &std::collections::VecDeque<HttpEvent>, n: u64) -> Option<(u16, Vec<String>)> {
    let x = early.iter().find_map(|e| match e {
        HttpEvent::Response(x) if x.n == n => Some(x),
        _ => None,
    })?;
    let challenge: Vec<String> = x
        .headers
        .iter()
        .filter(|(k, _)| k.eq_ignore_ascii_case("www-authenticate"))
        .map(|(_, v)| v.clone())
        .collect();
    let scope_error = mcpspec_protocol::auth::BearerChallenge::find(&challenge)
        .ok()
        .flatten()
        .is_some_and(|c| c.error.as_deref() == Some("insufficient_scope"));
    (x.status == 401 || (x.status == 403 && scope_error)).then_some((x.status, challenge))
}

/// Sends `token` with every request from now on: in the `Authorization` header, or (the fault)
/// as `access_token` in the query alone.
fn use_token(t: &mut HttpClientTransport, url: &url::Url, token: &str, fault: Option<ClientFault>) {
    if fault == Some(ClientFault::AuthTokenInQuery) {
        let mut u = url.clone();
        u.query_pairs_mut().append_pair("access_token", token);
        t.set_post_url(u);
        return;
    }
    let value = crate::transport::http_client::HeaderValue::from_str(&format!("Bearer {token}")).ok();
    t.set_header(crate::transport::http_client::HeaderName::from_static("authorization"), value);
}

/// POSTs one message (or batch) as the reference client would, bent by `fault`.
fn send_http(
    t: &mut HttpClientTransport,
    value: &Value,
    fault: Option<ClientFault>,
    initialized: bool,
) -> u64 {
    let tweaks = tweaks_for(value, fault, initialized);
    t.send_with(value.to_string().into_bytes(), BodyKind::of(value), &tweaks)
}

/// The tweaks of one POST of the reference client: none, unless `fault` bends a header.
fn tweaks_for(value: &Value, fault: Option<ClientFault>, initialized: bool) -> Tweaks {
    let mut tweaks = Tweaks::default();
    let modern = value
        .pointer("/params/_meta")
        .and_then(|m| m.get(mcpspec_protocol::modern::PROTOCOL_VERSION_KEY))
        .is_some();
    if modern && fault == Some(ClientFault::ModernHeaderVersionMismatch) {
        // streamable-http.mdx#protocol-version-header: the header MUST match `_meta`.
        tweaks.protocol_version = Some("2025-11-25".into());
    }
    match fault {
        Some(ClientFault::HttpAcceptJsonOnly) => {
            tweaks.headers.push(("accept".into(), "application/json".into()))
        }
        Some(ClientFault::HttpNoSessionHeader) if initialized => tweaks.no_session = true,
        Some(ClientFault::HttpPutNotifications)
            if value.get("method").is_some() && value.get("id").is_none() =>
        {
            tweaks.method = Some("PUT")
        }
        _ => {}
    }
    tweaks
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_header_version_fault_bends_modern_requests_only() {
        let meta = mcpspec_protocol::modern::request_meta("2026-07-28", &json!({}), None);
        let modern = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
            "params": mcpspec_protocol::modern::with_request_meta(None, &meta)});
        let fault = Some(ClientFault::ModernHeaderVersionMismatch);
        assert_eq!(tweaks_for(&modern, fault, false).protocol_version.as_deref(), Some("2025-11-25"));
        assert_eq!(tweaks_for(&modern, None, false).protocol_version, None);
        let legacy = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"});
        assert_eq!(tweaks_for(&legacy, fault, true).protocol_version, None);
    }
}
