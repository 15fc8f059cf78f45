//! Streamable HTTP (2025-03-26 on): a POST of messages, the GET stream, DELETE of a session, and
//! sessions created and handed to the app.

use super::admission::*;
use super::modern::modern_post;
use super::*;

pub(super) async fn streamable(endpoint: &Arc<Endpoint>, request: Request) -> Reply {
    let (parts, body) = request.into_parts();
    if let Some(refused) = rebinding_refused(endpoint, &parts) {
        return refused;
    }
    if parts.uri.path() != endpoint.options.path {
        return status_only(StatusCode::NOT_FOUND).into();
    }
    match parts.method {
        Method::POST => post(endpoint, &parts.headers, body).await,
        Method::GET => get(endpoint, &parts.headers),
        Method::DELETE => delete(endpoint, &parts.headers),
        _ => {
            let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
            r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            r.into()
        }
    }
}

pub(super) async fn post(endpoint: &Arc<Endpoint>, headers: &HeaderMap, body: Body) -> Reply {
    let fault = endpoint.fault();
    let accept = header_str(headers, "accept");
    let accepts_both =
        rules::accept_lists(accept, "application/json") && rules::accept_lists(accept, "text/event-stream");
    if !accepts_both && fault != Some(Fault::HttpAcceptUnchecked) {
        let why = "Not Acceptable: Accept must list both application/json and text/event-stream";
        return error(StatusCode::NOT_ACCEPTABLE, SERVER_ERROR, why).into();
    }
    if !rules::is_json_content_type(header_str(headers, "content-type"))
        && fault != Some(Fault::HttpContentTypeUnchecked)
    {
        let why = "Unsupported Media Type: Content-Type must be application/json";
        return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, SERVER_ERROR, why).into();
    }
    let value = match read_message(endpoint, headers, body).await {
        Ok(v) => v,
        Err(refused) => return refused.into(),
    };
    super::planted::on_body(endpoint, &value).await;
    if fault == Some(Fault::HttpRefuseBatches) && value.is_array() {
        let why = "Invalid Request: batches are not supported";
        return error(StatusCode::BAD_REQUEST, INVALID_REQUEST, why).into();
    }
    let version_header = headers.get("mcp-protocol-version").map(HeaderValue::as_bytes);
    if rules::is_modern_post(&value, version_header, &endpoint.options.accepted_revisions) {
        let request = rules::mirrored_request(&value);
        let mut reply = modern_post(endpoint, headers, value).await;
        reply.request = request;
        return reply;
    }
    let header_revision = match version_refused(endpoint, headers) {
        Ok(r) => r,
        Err(refused) => return refused.into(),
    };
    let inbound = match rules::classify(&value) {
        Ok(i) => i,
        Err(why) => {
            return error(StatusCode::BAD_REQUEST, INVALID_REQUEST, &format!("Invalid Request: {why}")).into()
        }
    };
    let (mut reply, id, serial, open, created_rx) =
        match admit(endpoint, headers, value, inbound, header_revision) {
            Admitted::Done(reply) => return reply,
            Admitted::Stream { reply, id, serial, open, created_rx } => (reply, id, serial, open, created_rx),
        };
    let stream = reply.stream.unwrap_or_default();
    let serial_guard = guard(endpoint, &id, stream, serial, false);
    let created = created_rx.is_some();
    if let Some(inbound) = created_rx {
        if let Err(refused) = hand_over(endpoint, &id, inbound) {
            return refused.into();
        }
    }
    let mut response = match open {
        PostOpen::Sse(rx) => sse_response(endpoint, rx, serial_guard),
        PostOpen::Deciding(rx) => match endpoint.app_answer(rx).await {
            Ok(Ok(PostReply::Json(message))) => {
                let content_type = match fault {
                    Some(Fault::HttpTextPlain) => "text/plain",
                    _ => "application/json",
                };
                Response::builder()
                    .status(StatusCode::OK)
                    .header(header::CONTENT_TYPE, content_type)
                    .body(Body::from(message.to_string()))
                    .unwrap_or_default()
            }
            Ok(Ok(PostReply::Sse(rx))) => sse_response(endpoint, rx, serial_guard),
            Ok(Err(_)) => error(StatusCode::NOT_FOUND, SERVER_ERROR, "Session ended before the response"),
            Err(_) => error(StatusCode::GATEWAY_TIMEOUT, SERVER_ERROR, "no response in time"),
        },
    };
    if created {
        let value = HeaderValue::from_bytes(&rules::session_id_bytes(&id));
        if let Ok(value) = value {
            response.headers_mut().insert("mcp-session-id", value);
        }
    }
    reply.response = response;
    reply
}

/// GET and DELETE without a legacy session, on an endpoint that serves the modern era:
/// 405 (2026-07-28 streamable-http.mdx#backward-compatibility: "respond with `405 Method Not
/// Allowed`"). With a session id they stay legacy requests.
pub(super) fn no_legacy_session(endpoint: &Endpoint, headers: &HeaderMap) -> Option<Reply> {
    let accepted = &endpoint.options.accepted_revisions;
    let modern = accepted.iter().any(|r| r.era() == Era::Modern);
    let legacy = accepted.iter().any(|r| r.era() == Era::Legacy);
    if !modern || (legacy && headers.contains_key("mcp-session-id")) {
        return None;
    }
    let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
    r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST"));
    Some(r.into())
}

pub(super) fn get(endpoint: &Arc<Endpoint>, headers: &HeaderMap) -> Reply {
    if endpoint.fault() == Some(Fault::HttpGetJson) {
        return Response::builder()
            .status(StatusCode::OK)
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from("{}"))
            .unwrap_or_default()
            .into();
    }
    if let Some(refused) = no_legacy_session(endpoint, headers) {
        return refused;
    }
    if !rules::accept_lists(header_str(headers, "accept"), "text/event-stream") {
        let why = "Not Acceptable: a GET must accept text/event-stream";
        return error(StatusCode::NOT_ACCEPTABLE, SERVER_ERROR, why).into();
    }
    if let Err(refused) = version_refused(endpoint, headers) {
        return refused.into();
    }
    let mut state = endpoint.lock();
    let id = match session_of(endpoint, &state, headers) {
        Ok(id) => id,
        Err(refused) => return refused.into(),
    };
    let Some(session) = state.sessions.get_mut(&id) else {
        return error(StatusCode::NOT_FOUND, SERVER_ERROR, "Session not found").into();
    };
    session.last_active = Instant::now();
    let last_event_id = header_str(headers, "last-event-id");
    if !endpoint.options.get_stream && last_event_id.is_none() {
        drop(state);
        let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
        r.headers_mut().insert(header::ALLOW, HeaderValue::from_static("POST, DELETE"));
        return Reply { response: r, session: Some(id), stream: None, replayed: Vec::new(), request: None };
    }
    let mut reply = Reply::plain(Response::default());
    reply.session = Some(id.clone());
    match session.open_get(last_event_id) {
        Ok(opened) => {
            drop(state);
            reply.stream = Some(opened.stream);
            reply.replayed = opened.replayed;
            let g = guard(endpoint, &id, opened.stream, opened.serial, false);
            reply.response = sse_response(endpoint, opened.rx, g);
        }
        Err(OpenError::Busy(stream)) => {
            let why = format!("Conflict: stream {stream} of this session is already open");
            reply.response = error(StatusCode::CONFLICT, SERVER_ERROR, &why);
        }
    }
    reply
}

pub(super) fn delete(endpoint: &Arc<Endpoint>, headers: &HeaderMap) -> Reply {
    if let Some(refused) = no_legacy_session(endpoint, headers) {
        return refused;
    }
    if let Err(refused) = version_refused(endpoint, headers) {
        return refused.into();
    }
    let mut state = endpoint.lock();
    let id = match session_of(endpoint, &state, headers) {
        Ok(id) => id,
        Err(refused) => return refused.into(),
    };
    if endpoint.fault() == Some(Fault::HttpDeletedSessionServed) {
        // The defect: the session is only marked, and goes on serving.
        if let Some(s) = state.sessions.get_mut(&id) {
            s.deleted = true;
        }
    } else {
        state.sessions.remove(&id);
    }
    Reply::plain(status_only(StatusCode::OK))
}
