//! Admitting a request to a session: finding the session its header names, creating one (a
//! legacy `initialize`, a modern request), handing it to the app, and refusing when the endpoint
//! is at its limits.

use super::*;

/// The session a request names: `Err` is the refusal (400 without one, 404 unknown).
pub(super) fn session_of(
    endpoint: &Endpoint,
    state: &EndpointState,
    headers: &HeaderMap,
) -> Result<String, Refusal> {
    let fault = endpoint.fault();
    let Some(raw) = headers.get("mcp-session-id") else {
        if let (Some(Fault::HttpMissingSessionIdServed), Some(latest)) = (fault, &state.latest) {
            if state.sessions.contains_key(latest) {
                return Ok(latest.clone());
            }
        }
        let why = "Bad Request: Mcp-Session-Id header is required";
        return Err(Refusal::new(StatusCode::BAD_REQUEST, SERVER_ERROR, why));
    };
    let id = rules::session_id_of(raw.as_bytes());
    match state.sessions.get(&id) {
        Some(s) if s.hidden => Err(Refusal::new(StatusCode::NOT_FOUND, SERVER_ERROR, "Session not found")),
        Some(s) if !s.deleted || fault == Some(Fault::HttpDeletedSessionServed) => Ok(id),
        _ if fault == Some(Fault::HttpUnknownSession400) => {
            Err(Refusal::new(StatusCode::BAD_REQUEST, SERVER_ERROR, "Bad Request: no such session"))
        }
        _ => Err(Refusal::new(StatusCode::NOT_FOUND, SERVER_ERROR, "Session not found")),
    }
}

/// What [`admit`] decided about a POST.
pub(super) enum Admitted {
    /// Answered already (refused, or 202).
    Done(Reply),
    /// Its requests went to the app; the answer streams (or waits for the JSON body).
    Stream { reply: Reply, id: String, serial: u64, open: PostOpen, created_rx: Option<Inbound> },
}

/// The part of a POST done under the lock: find or create the session, open the POST's stream,
/// hand the message to the app.
pub(super) fn admit(
    endpoint: &Arc<Endpoint>,
    headers: &HeaderMap,
    value: Value,
    inbound: rules::Inbound,
    header_revision: Option<Revision>,
) -> Admitted {
    let fault = endpoint.fault();
    let mut state = endpoint.lock();
    let (id, created_rx) = if !headers.contains_key("mcp-session-id") && inbound.initialize {
        match create_session(endpoint, &mut state, Flavor::Streamable, false) {
            Ok((id, rx)) => (id, Some(rx)),
            Err(refused) => return Admitted::Done(refused.into()),
        }
    } else {
        match session_of(endpoint, &state, headers) {
            Ok(id) => (id, None),
            // The fault takes in what it cannot deliver anywhere, and says so with 202.
            Err(_)
                if inbound.requests.is_empty() && fault == Some(Fault::HttpRefusedNotificationAccepted) =>
            {
                let response = status_only(StatusCode::ACCEPTED);
                return Admitted::Done(Reply {
                    response,
                    session: None,
                    stream: None,
                    replayed: Vec::new(),
                    request: None,
                });
            }
            Err(refused) => return Admitted::Done(refused.into()),
        }
    };
    let Some(session) = state.sessions.get_mut(&id) else {
        return Admitted::Done(error(StatusCode::NOT_FOUND, SERVER_ERROR, "Session not found").into());
    };
    session.last_active = Instant::now();
    let mut reply = Reply {
        response: Response::default(),
        session: Some(id.clone()),
        stream: None,
        replayed: Vec::new(),
        request: None,
    };
    if inbound.requests.is_empty() {
        if !session.deliver(value, None) {
            return Admitted::Done(busy(reply));
        }
        reply.response = match fault {
            Some(Fault::HttpAcceptedWithBody) => Response::builder()
                .status(StatusCode::OK)
                .header(header::CONTENT_TYPE, "application/json")
                .body(Body::from(r#"{"accepted":true}"#))
                .unwrap_or_default(),
            _ => status_only(StatusCode::ACCEPTED),
        };
        return Admitted::Done(reply);
    }
    let requested =
        value.pointer("/params/protocolVersion").and_then(Value::as_str).and_then(|v| v.parse().ok());
    let revision = session.revision.or(header_revision).or(if inbound.initialize { requested } else { None });
    let priming = endpoint.options.priming && revision.is_some_and(|r| r >= Revision::V2025_11_25);
    let poll = endpoint.options.poll_after_priming.filter(|_| priming);
    let (stream, serial, open) =
        session.open_post(inbound.requests, endpoint.options.json_responses, priming, poll);
    reply.stream = Some(stream);
    if !session.deliver(value, Some(stream)) {
        session.abandon(stream);
        return Admitted::Done(busy(reply));
    }
    Admitted::Stream { reply, id, serial, open, created_rx }
}

pub(super) fn busy(mut reply: Reply) -> Reply {
    let why = "Service Unavailable: the session's queue is full";
    reply.response = error(StatusCode::SERVICE_UNAVAILABLE, SERVER_ERROR, why);
    reply
}

/// Hands a new session's link to the app ([`HttpListener::next_session`]); a 503 when the
/// app has too many new sessions waiting.
pub(super) fn hand_over(endpoint: &Arc<Endpoint>, id: &str, inbound: Inbound) -> Result<(), Refusal> {
    let link = SessionLink { id: id.to_owned(), endpoint: endpoint.clone(), inbound };
    match endpoint.new_sessions.try_send(link) {
        Ok(()) => Ok(()),
        Err(_) => {
            let why = "Service Unavailable: too many sessions";
            Err(Refusal::new(StatusCode::SERVICE_UNAVAILABLE, SERVER_ERROR, why))
        }
    }
}

/// Creates a session (its link is sent by the caller once the first message is in).
pub(super) fn create_session(
    endpoint: &Arc<Endpoint>,
    state: &mut EndpointState,
    flavor: Flavor,
    hidden: bool,
) -> Result<(String, Inbound), Refusal> {
    let options = &endpoint.options;
    // A session DELETEd while `http-deleted-session-served` keeps it going is not counted:
    // the planted defect is serving it, not refusing new sessions once enough were deleted.
    if state.sessions.values().filter(|s| !s.deleted).count() >= options.max_sessions {
        let why = "Service Unavailable: too many sessions";
        return Err(Refusal::new(StatusCode::SERVICE_UNAVAILABLE, SERVER_ERROR, why));
    }
    let malformed = endpoint.fault() == Some(Fault::HttpSessionIdInvalidChars);
    let id = match rules::new_session_id(malformed) {
        Ok(id) => id,
        Err(e) => {
            let why = format!("cannot make a session id: {e}");
            return Err(Refusal::new(StatusCode::INTERNAL_SERVER_ERROR, SERVER_ERROR, &why));
        }
    };
    state.created += 1;
    if let Some(crash) = super::planted::session_leak_trips(endpoint, state.created) {
        // Dies as the bug would, here and now: the lock and the runtime with it.
        eprint!("{}", crash.stderr());
        std::process::exit(101);
    }
    let (tx, rx) = mpsc::channel(options.limits.queued_messages.max(1));
    let mut session = Session::new(flavor, options.fault, tx, options.limits, Instant::now());
    session.hidden = hidden;
    state.sessions.insert(id.clone(), session);
    if !hidden {
        state.latest = Some(id.clone());
    }
    Ok((id, rx))
}
