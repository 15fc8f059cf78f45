//! A POST of the modern era (2026-07-28): checked here (`_meta`, the mirrored headers), then a
//! session of its own that ends with its response.

use super::admission::*;
use super::*;

/// A JSON-RPC error answering a modern request, with its id when it could be read.
pub(super) fn modern_error(status: StatusCode, id: Option<RequestId>, error: ErrorObject) -> Response {
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Body::from(Message::error(id, error).to_value().to_string()))
        .unwrap_or_default()
}

/// A POST of the modern era (see the module doc).
pub(super) async fn modern_post(endpoint: &Arc<Endpoint>, headers: &HeaderMap, value: Value) -> Reply {
    let fault = endpoint.fault();
    // The deliberate defect `modern-http-status-200-on-error`: every refusal says 200.
    let status =
        |s: StatusCode| if fault == Some(Fault::ModernHttpStatus200OnError) { StatusCode::OK } else { s };
    let id = value.get("id").and_then(RequestId::from_value);
    if value.get("method").is_none() || value.get("id").is_none() {
        if value.get("method").is_some() {
            // streamable-http.mdx: this revision defines no client notifications over HTTP
            // (closing a stream is the cancellation); one that comes is accepted, and has no
            // effect.
            if fault == Some(Fault::ModernHttpNotificationRefusedOk) {
                let why = "Method not found: this server takes no client notifications over HTTP";
                return modern_error(StatusCode::OK, None, ErrorObject::new(-32601, why)).into();
            }
            return status_only(StatusCode::ACCEPTED).into();
        }
        let why = "Invalid Request: a client MUST NOT send JSON-RPC responses (streamable-http.mdx)";
        return modern_error(status(StatusCode::BAD_REQUEST), id, ErrorObject::new(INVALID_REQUEST, why))
            .into();
    }
    // A message that is not a valid request (a null or fractional id, a method that is not a
    // string, another JSON-RPC version) is an invalid request before anything in its params is
    // (JSON-RPC 2.0 §5.1), as over stdio.
    if let Err(e) = Message::from_value(&value) {
        let error = ErrorObject::new(INVALID_REQUEST, format!("Invalid Request: {e}"));
        return modern_error(status(StatusCode::BAD_REQUEST), id, error).into();
    }
    // The fault `modern-http-version-header-optional` reads a missing header as `_meta`'s version.
    let meta_version = value
        .pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .map(str::as_bytes)
        .filter(|_| fault == Some(Fault::ModernHttpVersionHeaderOptional));
    let mirrored = rules::Mirrored {
        version: headers.get("mcp-protocol-version").map(HeaderValue::as_bytes).or(meta_version),
        method: headers.get("mcp-method").map(HeaderValue::as_bytes),
        name: headers.get("mcp-name").map(HeaderValue::as_bytes),
    };
    let meta_required = fault != Some(Fault::ModernMetaNotRequired);
    let names_checked = fault != Some(Fault::ModernHttpHeaderUnchecked);
    if let Some(mut error) = rules::modern_refusal(&value, &mirrored, meta_required, names_checked) {
        if value["method"] == "initialize" {
            // versioning.mdx: a modern-only server "SHOULD name the protocol versions it
            // supports in any error it returns to an `initialize` request, on any transport".
            let supported = mcpspec_protocol::modern::supported_list(&endpoint.options.accepted_revisions);
            error.message = format!("{} (this server speaks {})", error.message, supported.join(", "));
            error.data = Some(serde_json::json!({ "supported": supported }));
        }
        return modern_error(status(StatusCode::BAD_REQUEST), id, error).into();
    }
    if let Some(error) = param_refusal(endpoint, headers, &value) {
        return modern_error(status(StatusCode::BAD_REQUEST), id, error).into();
    }
    let key = rules::request_key(&value["id"]);
    let opened = {
        let mut state = endpoint.lock();
        match create_session(endpoint, &mut state, Flavor::Streamable, true) {
            Err(refused) => Err(Reply::from(refused)),
            Ok((sid, inbound)) => match state.sessions.get_mut(&sid) {
                None => {
                    Err(error(StatusCode::INTERNAL_SERVER_ERROR, SERVER_ERROR, "session vanished").into())
                }
                Some(session) => {
                    // No priming event and no resumption: "Resumable SSE streams via
                    // Last-Event-ID are not supported" in 2026-07-28.
                    let (stream, serial, open) = session.open_post(vec![key], true, false, None);
                    if session.deliver(value, Some(stream)) {
                        Ok((sid, inbound, stream, serial, open))
                    } else {
                        state.sessions.remove(&sid);
                        Err(busy(Reply::plain(Response::default())))
                    }
                }
            },
        }
    };
    let (sid, inbound, stream, serial, open) = match opened {
        Ok(o) => o,
        Err(reply) => return reply,
    };
    if let Err(refused) = hand_over(endpoint, &sid, inbound) {
        endpoint.lock().sessions.remove(&sid);
        return refused.into();
    }
    // The session ends with this connection: the response sent, or the client gone.
    let g = guard(endpoint, &sid, stream, serial, true);
    let response = match open {
        PostOpen::Sse(rx) => sse_response(endpoint, rx, g),
        PostOpen::Deciding(rx) => match endpoint.app_answer(rx).await {
            Ok(Ok(PostReply::Json(message))) => {
                let code = StatusCode::from_u16(rules::modern_status(&message)).unwrap_or(StatusCode::OK);
                let content_type = match fault {
                    Some(Fault::HttpTextPlain) => "text/plain",
                    _ => "application/json",
                };
                Response::builder()
                    .status(status(code))
                    .header(header::CONTENT_TYPE, content_type)
                    .body(Body::from(message.to_string()))
                    .unwrap_or_default()
            }
            Ok(Ok(PostReply::Sse(rx))) => sse_response(endpoint, rx, g),
            Ok(Err(_)) => {
                error(StatusCode::INTERNAL_SERVER_ERROR, SERVER_ERROR, "the request ended without a response")
            }
            Err(_) => error(StatusCode::GATEWAY_TIMEOUT, SERVER_ERROR, "no response in time"),
        },
    };
    Reply { response, session: None, stream: Some(stream), replayed: Vec::new(), request: None }
}

/// Why a `tools/call` is refused for its `Mcp-Param-*` headers ([`rules::param_refusal`]), as
/// bent by the `modern-http-param-header-` faults: not checked at all, a header expected even
/// for a null or absent argument, names compared with their case (only a header spelled as the
/// annotation is seen; HTTP hands names over in lower case), integers compared as text.
fn param_refusal(endpoint: &Endpoint, headers: &HeaderMap, value: &Value) -> Option<ErrorObject> {
    let fault = endpoint.fault();
    if fault == Some(Fault::ModernParamHeaderUnchecked) {
        return None;
    }
    let schemas = &endpoint.options.param_schemas;
    let mut sent = rules::param_headers(headers);
    let schema = value.pointer("/params/name").and_then(Value::as_str).and_then(|n| schemas.get(n));
    let annotations = schema.map(mcpspec_protocol::param_headers::annotations).unwrap_or_default();
    if fault == Some(Fault::ModernParamHeaderCaseSensitive) {
        let spelled: Vec<String> = annotations.iter().map(|a| format!("mcp-param-{}", a.name)).collect();
        sent.retain(|(k, _)| spelled.contains(k));
    }
    if fault == Some(Fault::ModernParamHeaderAlwaysExpected) && value["method"] == "tools/call" {
        if let Some(a) = annotations.iter().find(|a| !sent.iter().any(|(k, _)| *k == a.header())) {
            return Some(mcpspec_protocol::modern::header_mismatch(format!("{} is required", a.header())));
        }
    }
    if fault == Some(Fault::ModernParamHeaderIntegerAsText) {
        let arguments = value.pointer("/params/arguments");
        for a in &annotations {
            let body = a.value_in(arguments).filter(|v| v.is_i64() || v.is_u64());
            let header = sent.iter().find(|(k, _)| *k == a.header()).map(|(_, v)| v.trim());
            if let (Some(body), Some(header)) = (body.map(Value::to_string), header) {
                if header != body {
                    let why = format!("{} {header:?} differs from the body's {body}", a.header());
                    return Some(mcpspec_protocol::modern::header_mismatch(why));
                }
            }
        }
    }
    rules::param_refusal(value, schemas, &sent)
}
