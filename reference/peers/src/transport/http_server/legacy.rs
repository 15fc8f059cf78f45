//! The legacy HTTP+SSE transport (2024-11-05): the GET stream that announces its endpoint, and
//! POSTs to that endpoint.

use super::admission::*;
use super::*;

pub(super) async fn legacy(endpoint: &Arc<Endpoint>, request: Request) -> Reply {
    let (parts, body) = request.into_parts();
    if let Some(refused) = rebinding_refused(endpoint, &parts) {
        return refused;
    }
    let path = parts.uri.path();
    if path == endpoint.options.path && parts.method == Method::GET {
        return legacy_get(endpoint, &parts.headers);
    }
    if path == endpoint.options.messages_path && parts.method == Method::POST {
        return legacy_post(endpoint, &parts.headers, parts.uri.query(), body).await;
    }
    if path == endpoint.options.path || path == endpoint.options.messages_path {
        let allow = if path == endpoint.options.path { "GET" } else { "POST" };
        let mut r = status_only(StatusCode::METHOD_NOT_ALLOWED);
        r.headers_mut().insert(header::ALLOW, HeaderValue::from_static(allow));
        return r.into();
    }
    status_only(StatusCode::NOT_FOUND).into()
}

pub(super) fn legacy_get(endpoint: &Arc<Endpoint>, headers: &HeaderMap) -> Reply {
    if !rules::accept_lists(header_str(headers, "accept"), "text/event-stream") {
        let why = "Not Acceptable: the SSE endpoint serves text/event-stream";
        return error(StatusCode::NOT_ACCEPTABLE, SERVER_ERROR, why).into();
    }
    let mut state = endpoint.lock();
    let (id, inbound) = match create_session(endpoint, &mut state, Flavor::LegacySse, false) {
        Ok(created) => created,
        Err(refused) => return refused.into(),
    };
    let uri = format!("{}?sessionId={}", endpoint.options.messages_path, id);
    let Some(session) = state.sessions.get_mut(&id) else {
        return error(StatusCode::INTERNAL_SERVER_ERROR, SERVER_ERROR, "session vanished").into();
    };
    let (rx, serial) = session.open_legacy(&uri);
    drop(state);
    if let Err(refused) = hand_over(endpoint, &id, inbound) {
        return refused.into();
    }
    let g = guard(endpoint, &id, session::STANDALONE, serial, true);
    Reply {
        response: sse_response(endpoint, rx, g),
        session: Some(id),
        stream: Some(0),
        replayed: Vec::new(),
        request: None,
    }
}

pub(super) async fn legacy_post(
    endpoint: &Arc<Endpoint>,
    headers: &HeaderMap,
    query: Option<&str>,
    body: Body,
) -> Reply {
    if !rules::is_json_content_type(header_str(headers, "content-type"))
        && endpoint.fault() != Some(Fault::HttpContentTypeUnchecked)
    {
        let why = "Unsupported Media Type: Content-Type must be application/json";
        return error(StatusCode::UNSUPPORTED_MEDIA_TYPE, SERVER_ERROR, why).into();
    }
    let id = url::form_urlencoded::parse(query.unwrap_or("").as_bytes())
        .find(|(k, _)| k == "sessionId")
        .map(|(_, v)| v.into_owned());
    let Some(id) = id else {
        return error(StatusCode::BAD_REQUEST, SERVER_ERROR, "Bad Request: sessionId is required").into();
    };
    if !endpoint.lock().sessions.contains_key(&id) {
        return error(StatusCode::NOT_FOUND, SERVER_ERROR, "Session not found").into();
    }
    let value = match read_message(endpoint, headers, body).await {
        Ok(v) => v,
        Err(refused) => return refused.into(),
    };
    if let Err(why) = rules::classify(&value) {
        return error(StatusCode::BAD_REQUEST, INVALID_REQUEST, &format!("Invalid Request: {why}")).into();
    }
    let mut state = endpoint.lock();
    let Some(session) = state.sessions.get_mut(&id) else {
        return error(StatusCode::NOT_FOUND, SERVER_ERROR, "Session not found").into();
    };
    session.last_active = Instant::now();
    let reply = Reply {
        response: Response::default(),
        session: Some(id),
        stream: None,
        replayed: Vec::new(),
        request: None,
    };
    if !session.deliver(value, None) {
        return busy(reply);
    }
    Reply { response: status_only(StatusCode::ACCEPTED), ..reply }
}
