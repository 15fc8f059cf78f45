//! Steps of the client scenarios over HTTP (`basic/transports.mdx`): the scenario server ends a
//! session, polls (closes POST streams after a priming event with `retry`) or refuses GET, and
//! the steps judge what the client did from the exchanges its endpoint logged.

use super::{connect, is_request, ClientWorld, Halt};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec::session::client::{Ending, ServerScript};
use mcpspec_reference::transport::http_server::Exchange;
use std::time::Duration;

/// How often a step that waits for an exchange (which carries no message) looks again.
const LOOK_EVERY: Duration = Duration::from_millis(50);

#[given(
    regex = r"^a client connected to a scenario server that closes each POST stream after its priming event, with retry (\d+) ms$"
)]
async fn connected_polling(w: &mut ClientWorld, retry: u64) -> Result<(), Halt> {
    let script =
        ServerScript { poll_after_priming: Some(Duration::from_millis(retry)), ..ServerScript::default() };
    connect(w, script).await
}

#[given("a client connected to a scenario server that answers GET with 405")]
async fn connected_refusing_get(w: &mut ClientWorld) -> Result<(), Halt> {
    connect(w, ServerScript { refuse_get: true, ..ServerScript::default() }).await
}

#[given("a client connected to a scenario server that answers with application/json bodies")]
async fn connected_json(w: &mut ClientWorld) -> Result<(), Halt> {
    connect(w, ServerScript { json_responses: true, ..ServerScript::default() }).await
}

/// The scenario server answered the client's `initialize` with one `application/json` body (not
/// an SSE stream): what the steps before it proved the client read was such a body.
#[then("the answer to the client's initialize went out as an application/json body")]
async fn initialize_answered_as_json(w: &mut ClientWorld) -> Result<(), Halt> {
    let session = w.session()?;
    session.drain_http();
    let exchanges: Vec<Exchange> =
        session.recorder().http_client().map(|c| c.exchanges().cloned().collect()).unwrap_or_default();
    // The first POST answered 200 is the initialize's: a step before checked that initialize
    // opened the session, and a dual-era client's server/discover probe before it is refused.
    let first = exchanges.iter().find(|x| x.method == "POST" && x.status == 200);
    let expected = "the initialize POST answered 200 with Content-Type application/json";
    let actual = first.map_or("no POST".to_owned(), |x| {
        format!(
            "{} {} → {} {}",
            x.method,
            x.path,
            x.status,
            x.response_content_type.as_deref().unwrap_or("(no type)")
        )
    });
    let json = first.is_some_and(|x| {
        x.status == 200
            && x.response_content_type.as_deref().is_some_and(|t| t.starts_with("application/json"))
    });
    w.check(json, expected, actual);
    Ok(())
}

/// 2026-07-28 (streamable-http.mdx#sending-messages): the client MUST support answers as one
/// `application/json` body. Reading one is what lets it go on: a request after the first POST
/// answered so shows it read that answer (a client that cannot waits for it in vain).
#[then("the client made a request after one of its requests was answered with an application/json body")]
async fn went_on_after_json(w: &mut ClientWorld) -> Result<(), Halt> {
    super::modern::legacy_only(w)?;
    let session = w.session()?;
    session.drain_http();
    let exchanges: Vec<Exchange> =
        session.recorder().http_client().map(|c| c.exchanges().cloned().collect()).unwrap_or_default();
    let json = |x: &Exchange| {
        x.method == "POST"
            && x.status == 200
            && x.response_content_type.as_deref().is_some_and(|t| t.starts_with("application/json"))
    };
    let expected =
        "a POST of the client's after its first request answered 200 with an application/json body";
    let Some(first) = exchanges.iter().position(json) else {
        return Err(w.fail(
            expected,
            format!("no POST answered 200 with application/json among {} exchanges", exchanges.len()),
        ));
    };
    let x = &exchanges[first];
    let later = exchanges[first + 1..].iter().filter(|y| y.method == "POST").count();
    let answered = format!("{} {} → {} application/json", x.method, x.path, x.status);
    let actual = match later {
        0 => format!("{answered}, and no POST after it"),
        n => format!("{answered}, then {n} more POST(s)"),
    };
    w.check(later > 0, expected, actual);
    Ok(())
}

#[when("the scenario server answers it, then ends the HTTP session")]
async fn answers_then_ends(w: &mut ClientWorld) -> Result<(), Halt> {
    let Some(init) = w.held.take() else {
        return Err(w.harness_error("no request of the client's to answer (a step is missing)".into()));
    };
    // The answer is queued on the POST's stream before the session goes: the client reads it,
    // and its next request gets 404.
    let served = w.session()?.serve_then_end_http_session(&init);
    served.map_err(|e| w.lost("the client reads the answer to its request".into(), e))
}

#[then("the client starts a new HTTP session with an initialize request")]
async fn new_session(w: &mut ClientWorld) -> Result<(), Halt> {
    let within = w.timeout();
    let session = w.session()?;
    let found = session.wait_for(within, |i| is_request(i, "initialize")).await;
    let sessions = session.http_sessions();
    let expected = "after a 404 for its session, a new initialize without a session id (a new session)";
    match found {
        Ok(_) if sessions >= 2 => {
            w.check(true, expected, format!("initialize in session {sessions}"));
            Ok(())
        }
        Ok(_) => Err(w.fail(expected, "an initialize inside the ended session")),
        Err(e) => Err(w.lost(expected.into(), e)),
    }
}

/// The GETs of the session with `Last-Event-ID`.
fn resumptions(w: &mut ClientWorld) -> Vec<Exchange> {
    let Some(session) = w.session.as_mut() else { return Vec::new() };
    session.drain_http();
    let Some(c) = session.recorder().http_client() else { return Vec::new() };
    c.exchanges()
        .filter(|x| x.method == "GET" && x.request_headers.iter().any(|(k, _)| k == "last-event-id"))
        .cloned()
        .collect()
}

#[then(
    "the client resumes the stream with GET and Last-Event-ID, no sooner than retry, and reads the answer"
)]
async fn resumes(w: &mut ClientWorld) -> Result<(), Halt> {
    let within = w.timeout();
    let deadline = tokio::time::Instant::now() + within;
    let expected = "a GET with Last-Event-ID naming the priming event, no sooner than its retry";
    let mut read_answer = false;
    loop {
        let resumed = resumptions(w).first().cloned();
        if let (Some(x), true) = (&resumed, read_answer) {
            let session = w.session()?;
            let header = x.request_headers.iter().find(|(k, _)| k == "last-event-id").map(|(_, v)| v.clone());
            let poll = session.recorder().http_client().and_then(|c| {
                c.polls().find(|(id, ..)| Some(*id) == header.as_deref()).map(|(_, at, r)| (at, r))
            });
            let Some((closed, retry)) = poll else {
                let actual = format!("GET with Last-Event-ID {header:?}, which names no closed stream");
                return Err(w.fail(expected, actual));
            };
            let waited = x.at.saturating_duration_since(closed);
            let actual = format!(
                "GET {} with Last-Event-ID {header:?}, {} ms after the stream closed (retry {} ms)",
                x.path,
                waited.as_millis(),
                retry.as_millis()
            );
            w.check(waited >= retry, expected, actual);
            return Ok(());
        }
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        if left.is_zero() {
            let actual = match (resumed, read_answer) {
                (None, _) => format!("no such GET within {within:?}"),
                (Some(_), _) => "a GET with Last-Event-ID, but no notifications/initialized after it".into(),
            };
            return Err(w.fail(expected, actual));
        }
        // notifications/initialized shows the client read the answer it resumed for; what
        // else it sends meanwhile is served.
        let initialized = |i: &mcpspec::judge::checker::Inspection| matches!(&i.message, Some(mcpspec_protocol::wire::Message::Notification(n)) if n.method == "notifications/initialized");
        if let Ok(i) = w.session()?.wait_for(left.min(LOOK_EVERY), initialized).await {
            read_answer = true;
            let _ = w.session()?.serve(&i).await;
        }
    }
}

#[then("the client ends its HTTP session with DELETE when it is done")]
async fn ends_with_delete(w: &mut ClientWorld) -> Result<(), Halt> {
    let idle = w.timeout();
    let budget = idle * 3;
    let ending = w.session()?.serve_until_done(idle, budget).await;
    w.session()?.drain_http();
    let session = w.session()?;
    let deletes = session
        .recorder()
        .http_client()
        .map(|c| c.exchanges().filter(|x| x.method == "DELETE").count())
        .unwrap_or_default();
    let expected = "a DELETE with the session id once the client is done";
    match (&ending, deletes) {
        (_, n) if n > 0 => {
            w.check(true, expected, format!("{n} DELETE request(s)"));
            Ok(())
        }
        (Ending::StillActive { .. }, _) => {
            Err(w.skip(format!("the client was still at work after {budget:?}: how it ends is unknown")))
        }
        (ending, _) => Err(w.fail(expected, format!("no DELETE; the session ended so: {ending:?}"))),
    }
}

#[then("the client sends a request after its GET is refused with 405")]
async fn carries_on_after_405(w: &mut ClientWorld) -> Result<(), Halt> {
    let within = w.timeout();
    let found = w
        .session()?
        .wait_for(within, |i| matches!(&i.message, Some(mcpspec_protocol::wire::Message::Request(r)) if r.method != "ping" && r.method != "initialize"))
        .await;
    let expected = "the client goes on with its session once a GET is refused with 405";
    let found = match found {
        Ok(i) => i,
        Err(e) => return Err(w.lost(expected.into(), e)),
    };
    let method =
        found.message.as_ref().map(|m| m.method().unwrap_or_default().to_owned()).unwrap_or_default();
    let _ = w.session()?.serve(&found).await;
    w.session()?.drain_http();
    let refused = w
        .session()?
        .recorder()
        .http_client()
        .is_some_and(|c| c.exchanges().any(|x| x.method == "GET" && x.status == 405));
    let actual = match refused {
        true => format!("a GET was refused with 405, and the client sent {method}"),
        false => format!("the client opened no GET stream, and sent {method}"),
    };
    w.check(true, expected, actual);
    Ok(())
}

#[then("the client's HTTP requests follow the transport's rules")]
async fn follows_rules(w: &mut ClientWorld) -> Result<(), Halt> {
    let session = w.session()?;
    session.drain_http();
    let findings = session.recorder().findings_with_prefix(&["http-client/", "sse-client/"]);
    let count = session.recorder().http_client().map(|c| c.exchanges().count()).unwrap_or_default();
    let expected = "every HTTP request as the transport requires";
    match findings.is_empty() {
        true => {
            w.check(true, expected, format!("{count} request(s), none breaking a rule"));
            Ok(())
        }
        false => Err(w.fail(expected, findings.join("; "))),
    }
}
