//! Steps of the HTTP transport scenarios (`transport_http.feature`, `transport_sse.feature`):
//! requests a correct client would not make (no session header, a foreign `Origin`, a wrong
//! protocol version), the GET stream, DELETE, and what the HTTP responses must be. The rules
//! every exchange must follow are judged by the recorder ([`mcpspec::judge::server::http`]); these
//! steps make sure each is exercised, and judge what only a deliberate request shows.

use super::{Halt, Pending, ServerWorld};
use crate::suite::scenario::Scenario as _;
use cucumber::{given, then, when};
use mcpspec::judge::server::http::HttpChecker;
use mcpspec_protocol::wire::Message;
use mcpspec_reference::transport::http_client::{BodyEnd, Exchange, Tweaks};
use serde_json::{json, Value};

impl ServerWorld {
    /// POSTs a message with `tweaks`, awaiting its answer like any message when it is a request.
    pub(super) async fn post(&mut self, message: Message, tweaks: Tweaks) -> Result<(), Halt> {
        let what = match &message {
            Message::Request(r) => format!("the {} request", r.method),
            Message::Notification(n) => format!("the {} notification", n.method),
            Message::Response(_) => "a response".to_owned(),
        };
        let id = match &message {
            Message::Request(r) => Some(r.id.clone()),
            _ => None,
        };
        let Some(n) = self.session()?.post_with(&message.to_value(), &tweaks) else {
            return Err(self.skip("the server is not reached over HTTP".into()));
        };
        self.exchange = Some(n);
        if let Some(id) = id {
            self.pending.push(Pending {
                id: Some(id),
                idless_ok: false,
                barrier: false,
                what,
                request: None,
            });
        }
        Ok(())
    }

    /// The head of the last exchange a step made, waited for; a missing one fails.
    pub(super) async fn last_exchange(&mut self) -> Result<Exchange, Halt> {
        let Some(n) = self.exchange else {
            return Err(self.harness_error("no HTTP request was made (a When step is missing)".into()));
        };
        let within = self.timeout();
        match self.session()?.wait_exchange(n, within).await {
            Ok(x) => Ok(x),
            Err(why) => Err(self.fail("an HTTP response", why)),
        }
    }

    fn http_rules(&mut self) -> Result<&HttpChecker, Halt> {
        if self.session()?.recorder().http().is_none() {
            return Err(self.skip("the server is not reached over HTTP".into()));
        }
        Ok(self.session.as_ref().and_then(|s| s.recorder().http()).expect("checked above"))
    }
}

/// `Name: value` of a step.
fn header(text: &str) -> (String, String) {
    let (name, value) = text.split_once(':').unwrap_or((text, ""));
    (name.trim().to_ascii_lowercase(), value.trim().to_owned())
}

/// Tweaks that send the header `text` (`MCP-Protocol-Version` and the session header replace
/// the session's own).
fn with_header(text: &str) -> Tweaks {
    let (name, value) = header(text);
    match name.as_str() {
        "mcp-protocol-version" => Tweaks { protocol_version: Some(value), ..Tweaks::default() },
        "mcp-session-id" => Tweaks { session: Some(value), ..Tweaks::default() },
        _ => Tweaks { headers: vec![(name, value)], ..Tweaks::default() },
    }
}

#[given("the server issued a session id")]
async fn issued_session_id(w: &mut ServerWorld) -> Result<(), Halt> {
    if w.session()?.http_session_id().is_none() {
        return Err(w.skip("the server issued no session id (sessions are optional)".into()));
    }
    Ok(())
}

#[when(expr = "the client POSTs a {string} request")]
async fn posts_request(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let request = w.modern_request(&method, None)?;
    w.post(request, Tweaks::default()).await
}

#[when(expr = "the client POSTs a {string} request without the session header")]
async fn posts_without_session(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let request = w.modern_request(&method, None)?;
    w.post(request, Tweaks { no_session: true, ..Tweaks::default() }).await
}

#[when(expr = "the client POSTs a {string} request with the header {string}")]
async fn posts_with_header(w: &mut ServerWorld, method: String, text: String) -> Result<(), Halt> {
    let request = w.modern_request(&method, None)?;
    w.post(request, with_header(&text)).await
}

#[when(expr = "the client POSTs a {string} request without the protocol version header")]
async fn posts_without_version(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    let request = w.modern_request(&method, None)?;
    let tweaks = Tweaks { protocol_version: Some(String::new()), ..Tweaks::default() };
    w.post(request, tweaks).await
}

#[when(expr = "the client POSTs the {string} notification")]
async fn posts_notification(w: &mut ServerWorld, method: String) -> Result<(), Halt> {
    w.post(Message::notification(&method, None), Tweaks::default()).await
}

#[when(expr = "the client POSTs the {string} notification with the header {string}")]
async fn posts_notification_with_header(
    w: &mut ServerWorld,
    method: String,
    text: String,
) -> Result<(), Halt> {
    w.post(Message::notification(&method, None), with_header(&text)).await
}

#[given("the client has opened its GET stream")]
async fn has_opened_get(w: &mut ServerWorld) -> Result<(), Halt> {
    // A client opens it once initialized (`ServerSession::send_value`); a scenario judges that one,
    // not a second stream of its own.
    let within = w.timeout();
    w.session()?.settle_http(within).await;
    match w.http_rules()?.first_get() {
        Some(n) => {
            w.exchange = Some(n);
            Ok(())
        }
        None => Err(w.harness_error("the session opened no GET stream".into())),
    }
}

#[when("the client ends the session with DELETE")]
async fn deletes(w: &mut ServerWorld) -> Result<(), Halt> {
    let within = w.timeout();
    w.session()?.settle_http(within).await;
    let Some(n) = w.session()?.http_request("DELETE", &Tweaks::default()) else {
        return Err(w.skip("the server is not reached over HTTP".into()));
    };
    w.exchange = Some(n);
    let x = w.last_exchange().await?;
    match x.status {
        200..=299 => Ok(()),
        // transports.mdx: "The server MAY respond to this request with HTTP 405".
        405 => Err(w.skip(format!("the server does not let clients end sessions ({})", x.describe()))),
        _ => Err(w.fail("2xx, or 405 for a server that does not let clients end sessions", x.describe())),
    }
}

#[then(expr = "the HTTP status is {int}")]
async fn status_is(w: &mut ServerWorld, status: u16) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    w.check(x.status == status, format!("HTTP {status}"), x.describe());
    Ok(())
}

#[then("the HTTP status is a client error")]
async fn status_is_4xx(w: &mut ServerWorld) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    w.check((400..500).contains(&x.status), "an HTTP 4xx status", x.describe());
    Ok(())
}

/// Any error status: the spec asks for one ("e.g., 400 Bad Request") without naming it.
#[then("the HTTP status is an error status")]
async fn status_is_error(w: &mut ServerWorld) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    w.check(x.status >= 400, "an HTTP error status (4xx or 5xx)", x.describe());
    Ok(())
}

#[then("the request is accepted")]
async fn accepted(w: &mut ServerWorld) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    w.check((200..300).contains(&x.status), "an HTTP 2xx status", x.describe());
    Ok(())
}

#[then("the HTTP response is 202 Accepted with no body")]
async fn accepted_202(w: &mut ServerWorld) -> Result<(), Halt> {
    judge_202(w, "202 Accepted with no body").await
}

async fn judge_202(w: &mut ServerWorld, expected: &str) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    let within = w.timeout();
    let ended = w.session()?.wait_body_end(x.n, within).await;
    let end = w.http_rules()?.body_end(x.n).cloned();
    let actual = match (&end, ended) {
        (Some(BodyEnd::Complete { bytes: 0 }), _) => x.describe(),
        (Some(BodyEnd::Complete { bytes }), _) => format!("{}, with a body of {bytes} bytes", x.describe()),
        (Some(other), _) => format!("{}, whose body {other:?}", x.describe()),
        (None, _) => format!("{}, whose body did not end within {within:?}", x.describe()),
    };
    let ok = x.status == 202 && end == Some(BodyEnd::Complete { bytes: 0 });
    w.check(ok, expected, actual);
    Ok(())
}

/// streamable-http.mdx#sending-messages (2026-07-28): a notification the server accepts gets
/// 202 with no body; one it cannot accept, an HTTP error status. This revision defines no client
/// notification over HTTP, so either may be right; anything else is wrong.
#[then("the HTTP response is 202 Accepted with no body, or an HTTP error status")]
async fn accepted_202_or_refused(w: &mut ServerWorld) -> Result<(), Halt> {
    let expected = "202 Accepted with no body, or an HTTP error status";
    let x = w.last_exchange().await?;
    if x.status >= 400 {
        w.check(true, expected, format!("refused: {}", x.describe()));
        return Ok(());
    }
    judge_202(w, expected).await
}

#[then("the HTTP response is JSON or an SSE stream")]
async fn json_or_sse(w: &mut ServerWorld) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    let media = x.media_type();
    let ok = matches!(media.as_deref(), Some("application/json" | "text/event-stream"));
    w.check(ok, "Content-Type: application/json or text/event-stream", x.describe());
    Ok(())
}

#[then("the HTTP response is JSON or 406")]
async fn json_or_406(w: &mut ServerWorld) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    let json = (200..300).contains(&x.status) && x.media_type().as_deref() == Some("application/json");
    w.check(json || x.status == 406, "Content-Type: application/json, or 406 Not Acceptable", x.describe());
    Ok(())
}

#[then("the GET is answered with an SSE stream or 405")]
async fn get_sse_or_405(w: &mut ServerWorld) -> Result<(), Halt> {
    let x = w.last_exchange().await?;
    let sse = (200..300).contains(&x.status) && x.media_type().as_deref() == Some("text/event-stream");
    w.check(
        sse || x.status == 405,
        "Content-Type: text/event-stream, or 405 Method Not Allowed",
        x.describe(),
    );
    Ok(())
}

#[then("the session id is visible ASCII")]
async fn session_id_ascii(w: &mut ServerWorld) -> Result<(), Halt> {
    let id = w.session()?.http_session_id().unwrap_or_default().to_owned();
    let ok = !id.is_empty() && id.bytes().all(|b| (0x21..=0x7e).contains(&b));
    w.check(ok, "a session id of visible ASCII characters (0x21 to 0x7E)", format!("{id:?}"));
    Ok(())
}

/// Two calls of the picked tool at once, each with a progress token: two POST streams, each
/// with events of its own.
#[when("the client calls the tool twice at once, each with a progress token")]
async fn calls_twice_with_progress(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(tool) = w.subject.clone() else {
        return Err(w.harness_error("no tool picked (a Given step is missing)".into()));
    };
    let arguments =
        mcpspec_protocol::arguments::example_object(tool.get("inputSchema").unwrap_or(&Value::Null));
    for token in ["mcpspec-resume-1", "mcpspec-resume-2"] {
        let params =
            json!({ "name": tool["name"], "arguments": arguments, "_meta": { "progressToken": token } });
        w.send_request("tools/call", Some(params)).await?;
    }
    Ok(())
}

/// The connection of the first call's POST drops once its stream has carried an event; the
/// transport resumes it with GET and `Last-Event-ID` if it saw an event id, as a client
/// SHOULD (basic/transports.mdx#resumability-and-redelivery).
#[when("the first call's connection drops after its stream's first event")]
async fn first_connection_drops(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(id) = w.pending.first().and_then(|p| p.id.clone()) else {
        return Err(w.harness_error("no call awaits an answer (a When step is missing)".into()));
    };
    let within = w.timeout();
    if !w.session()?.wait_stream_event(&id, within).await {
        return Err(w.skip(format!("no SSE event came on the stream of the call {id} within {within:?}")));
    }
    match w.session()?.break_stream_of(&id) {
        Some(n) => {
            w.exchange = Some(n);
            Ok(())
        }
        None => Err(w.skip(format!("the stream of the call {id} had ended before it could drop"))),
    }
}

/// basic/transports.mdx#resumability-and-redelivery: a server resuming a stream replays only
/// what that stream would have carried, never messages of another. A server that gave the
/// stream no event id, or did not take the resumption, offers none (a MAY): nothing to judge.
#[then("the resumed stream replayed nothing of another stream")]
async fn replayed_own_stream(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(broken) = w.exchange else { return Err(w.harness_error("no stream was dropped".into())) };
    let pending = std::mem::take(&mut w.pending);
    let within = w.timeout();
    for id in pending.iter().filter_map(|p| p.id.clone()) {
        // The replay may rightly not hold the answer (the server MAY replay): a late or missing
        // answer is not what this judges.
        let _ = w.session()?.wait_response(&id, within).await;
    }
    w.session()?.settle_http(std::time::Duration::from_millis(200)).await;
    let http = w.http_rules()?;
    let resumptions: Vec<_> = http.resumptions_of(broken).into_iter().map(|(n, r)| (n, r.clone())).collect();
    let taken =
        resumptions.iter().filter(|(n, _)| http.exchange(*n).is_some_and(|x| x.status == 200)).count();
    if taken == 0 {
        let why = match resumptions.is_empty() {
            true => "the stream carried no event id to resume from, so it was not resumed",
            false => "the server did not take the GET with Last-Event-ID",
        };
        return Err(w.skip(format!("{why}: the server offers no resumption (it MAY)")));
    }
    let foreign: Vec<String> = resumptions.iter().flat_map(|(_, r)| r.foreign.clone()).collect();
    let replayed: usize = resumptions.iter().map(|(_, r)| r.messages).sum();
    let actual = match foreign.is_empty() {
        true => format!("resumed with Last-Event-ID: {replayed} message(s), all of the dropped stream's own"),
        false => format!("the resumed stream carried {} of another stream", foreign.join(", ")),
    };
    w.check(foreign.is_empty(), "a resumed stream carrying only what the dropped stream would have", actual);
    Ok(())
}

#[then("each request is answered on the stream of its own POST")]
async fn each_on_its_stream(w: &mut ServerWorld) -> Result<(), Halt> {
    let pending = std::mem::take(&mut w.pending);
    let within = w.timeout();
    let mut wrong = Vec::new();
    for p in &pending {
        let Some(id) = p.id.clone() else { continue };
        if let Err(e) = w.session()?.wait_response(&id, within).await {
            return Err(w.fail(format!("a response to {} (id {id})", p.what), e.to_string()));
        }
        let on = w.http_rules()?.answered_on(&id);
        let posted = w.session()?.recorder().http().and_then(|h| h.posted_in(&id));
        if on.is_none() || on != posted {
            wrong.push(format!("id {id}: POSTed in exchange #{posted:?}, answered on #{on:?}"));
        }
    }
    let actual = if wrong.is_empty() { "each on its own".to_owned() } else { wrong.join("; ") };
    w.check(
        wrong.is_empty(),
        "each response on the SSE stream or JSON body of the POST that carried its request",
        actual,
    );
    Ok(())
}

#[when(expr = "the client POSTs {int} {string} requests at once")]
async fn posts_many(w: &mut ServerWorld, count: usize, method: String) -> Result<(), Halt> {
    for _ in 0..count.min(16) {
        let id = w.session()?.fresh_id();
        w.post(Message::request(id, &method, None), Tweaks::default()).await?;
    }
    Ok(())
}

#[then("the SSE stream began with an endpoint event")]
async fn began_with_endpoint(w: &mut ServerWorld) -> Result<(), Halt> {
    let first = w.http_rules()?.first_event(1).map(|(kind, data)| (kind.to_owned(), data.to_owned()));
    let actual = match &first {
        Some((kind, data)) => format!("the first event: {kind} {data:?}"),
        None => "no event on the stream".to_owned(),
    };
    let ok = first.as_ref().is_some_and(|(kind, _)| kind == "endpoint");
    w.check(ok, "an endpoint event first, naming where to POST", actual);
    Ok(())
}

#[then("the answer came as a message event on the SSE stream")]
async fn answer_as_message_event(w: &mut ServerWorld) -> Result<(), Halt> {
    let Some(Pending { id: Some(id), what, .. }) = w.pending.first().cloned() else {
        return Err(w.harness_error("no request awaits an answer".into()));
    };
    w.await_answer().await?;
    let on = w.http_rules()?.answered_on(&id);
    w.check(
        on == Some(1),
        format!("the answer to {what} as a message event on the SSE stream"),
        match on {
            Some(1) => "on the SSE stream".to_owned(),
            Some(n) => format!("on exchange #{n}, not the SSE stream"),
            None => "not seen on any stream".to_owned(),
        },
    );
    Ok(())
}
