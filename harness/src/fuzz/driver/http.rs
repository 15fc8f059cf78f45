//! The implementation under fuzzing over HTTP: Streamable HTTP or HTTP+SSE, at a URL or started
//! from a command on a free port.
//!
//! Each write of an input is one request body, sent as a correct client would send a message
//! (POST, `Accept`, `Content-Type`, the session's `Mcp-Session-Id` and `MCP-Protocol-Version`,
//! the modern era's `Mcp-Method`), unless the input's [`HttpShape`](crate::fuzz::HttpShape)
//! bends the method or a header. The stdio generators' framing mutations arrive here as broken
//! bodies: a split write is two bodies, coalesced writes one body holding several messages.
//!
//! Writes go one at a time, each waited for until its response ends, or until every request it
//! carried was answered on a stream that stays open: HTTP keeps no order between concurrent
//! requests, and a window's verdict must not depend on which connection the runtime served
//! first. A window ends with the same barrier as over stdio (`ping`, or `server/discover`).
//!
//! What trips, besides the message oracles the [`Watch`] shares with stdio: a 5xx answer
//! (`server-error`), a request whose connection closed without a response while the server
//! lives on (`reset`), a request with no response head within the hang timeout or a barrier
//! never answered (`hang`), and the process ending (`crash`, when mcpspec started it).
//! A 404 to the session's own id means the server ended the session (it may, at any time): the
//! next window sets up another, no finding.

use super::{
    answer_to, discover, initialize, request_meta, tail, DriverConfig, HttpTarget, Outcome, StartError,
};
use crate::fuzz::coverage::{self, python::LineFile, sancov::EdgeFile, Pending, Probe, Reached};
use crate::fuzz::oracle::{Trip, Watch};
use crate::fuzz::signature::{has_panic, Oracle};
use crate::fuzz::{HttpShape, Input};
use crate::session::target::{free_port, ServedProcess};
use mcpspec_protocol::framing::FrameContent;
use mcpspec_protocol::wire::RequestId;
use mcpspec_protocol::{modern, Era, Revision};
use mcpspec_reference::transport::child::describe_status;
use mcpspec_reference::transport::http_client::{
    BodyKind, HttpClientOptions, HttpClientTransport, HttpEvent, Resumption, Tweaks, SESSION_HEADER,
};
use mcpspec_reference::transport::{ChildOptions, RecvError, StdoutUse};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use url::Url;

/// One server (started here, or at a URL) and the session the campaign speaks to it.
pub struct HttpDriver {
    config: Arc<DriverConfig>,
    target: HttpTarget,
    served: Option<ServedProcess>,
    /// The served process's coverage (`--coverage python`).
    probe: Option<Probe>,
    /// The endpoint of the running server (`{port}` replaced).
    url: Option<Url>,
    session: Option<HttpClientTransport>,
    watch: Watch,
    barriers: u64,
    /// The server ended the session (a 404 to the session's own id).
    lost: bool,
    /// How many times a process was started (none for a server at a URL).
    pub starts: u64,
    /// The `initialize` (or `server/discover`) result of the current session.
    pub server_description: Option<Value>,
}

/// Why a request or the window ended early.
#[derive(Debug, Clone)]
enum Ended {
    /// No response head, or no answer to the barrier, in time.
    Silent,
    /// The request failed (refused, reset) or its body broke off before its answers.
    Dropped(String),
}

/// What one request came to.
#[derive(Default)]
struct Settled {
    status: Option<u16>,
    /// The answer to the id waited for, when one was.
    answer: Option<Value>,
}

impl HttpDriver {
    pub fn new(config: Arc<DriverConfig>, target: HttpTarget) -> HttpDriver {
        let watch = Watch::new(config.revision, config.schemas.clone());
        HttpDriver {
            config,
            target,
            served: None,
            probe: None,
            url: None,
            session: None,
            watch,
            barriers: 0,
            lost: false,
            starts: 0,
            server_description: None,
        }
    }

    pub fn config(&self) -> &DriverConfig {
        &self.config
    }

    /// A session set up, on a running server (started when it is a command and none runs).
    pub async fn ensure_started(&mut self) -> Result<(), StartError> {
        let died = self.served.as_mut().is_some_and(|p| p.try_exit().is_some());
        if self.session.is_some() && !self.lost && !died {
            return Ok(());
        }
        if died {
            self.stop().await;
        }
        self.start(true).await
    }

    /// The server running (started if it is a command and none runs), and a new session: set
    /// up unless `setup` is false (an input that brings its own handshake).
    async fn start(&mut self, setup: bool) -> Result<(), StartError> {
        self.end_session();
        if self.url.is_none() {
            self.url = Some(self.serve().await?);
        }
        let url = self.url.clone().expect("served");
        let options = HttpClientOptions {
            headers: self.target.headers.clone(),
            max_message_bytes: self.config.max_message_bytes,
            request_timeout: self.config.hang_timeout,
            // A broken stream is a finding here, not something to resume.
            resumption: Resumption::Never,
            ..HttpClientOptions::new(url.clone(), self.target.flavor)
        };
        let transport =
            tokio::time::timeout(self.config.start_timeout, HttpClientTransport::connect(options))
                .await
                .map_err(|_| {
                    StartError::Setup(format!("{url}: no session within {:?}", self.config.start_timeout))
                })?
                .map_err(|e| StartError::Setup(format!("{url}: {e}")))?;
        self.session = Some(transport);
        self.watch = Watch::new(self.config.revision, self.config.schemas.clone());
        self.lost = false;
        self.server_description = None;
        if setup {
            match self.setup().await {
                Ok(description) => self.server_description = Some(description),
                Err(why) => {
                    let why = self.explain(why).await;
                    return Err(StartError::Setup(why));
                }
            }
        }
        Ok(())
    }

    /// Starts the server's command on a free port, or takes the URL as it is; the endpoint.
    async fn serve(&mut self) -> Result<Url, StartError> {
        let Some(command) = &self.target.command else {
            return Url::parse(&self.target.url)
                .map_err(|e| StartError::Spawn(format!("{}: {e}", self.target.url)));
        };
        let port = free_port().map_err(|e| StartError::Spawn(format!("cannot find a free port: {e}")))?;
        let url_text = self.target.url.replace(crate::session::target::PORT_PLACEHOLDER, &port.to_string());
        let url = Url::parse(&url_text).map_err(|e| StartError::Spawn(format!("{url_text}: {e}")))?;
        let options = ChildOptions {
            max_message_bytes: self.config.max_message_bytes,
            write_timeout: self.config.hang_timeout,
            shutdown_grace: Duration::from_millis(500),
            stderr_tail_bytes: 16 * 1024,
            frame_queue: 16,
            stdout: StdoutUse::Log,
            ..ChildOptions::default()
        };
        let (command, pending) = match &self.config.coverage {
            Some(config) => match coverage::prepare(config, command).map_err(StartError::Spawn)? {
                // Node waits for its inspector before it listens: refused with the options.
                (_, Pending::Inspector) => {
                    return Err(StartError::Spawn("--coverage node is for servers over stdio".into()))
                }
                (command, pending) => (command, Some(pending)),
            },
            None => (command.clone(), None),
        };
        let process = ServedProcess::start(&command, port, options, self.config.start_timeout)
            .await
            .map_err(StartError::Spawn)?;
        self.probe = match pending {
            None | Some(Pending::Inspector) => None,
            Some(Pending::LineFile(file)) => Some(Probe::Python(LineFile::new(file))),
            // It listens: its runtime mapped the file long before, or never will.
            Some(Pending::EdgeFile(file)) => {
                match EdgeFile::attach(file, Duration::from_secs(1), || true).await {
                    Ok(edges) => Some(Probe::Sancov(edges)),
                    Err(why) => {
                        process.stop().await;
                        return Err(StartError::Spawn(format!("--coverage sancov: {why}")));
                    }
                }
            }
        };
        self.starts += 1;
        // What it said while starting ("listening on …") is no window's.
        process.take_stderr();
        self.served = Some(process);
        Ok(url)
    }

    /// The legacy handshake (`initialize`, `notifications/initialized`), or in the modern era
    /// `server/discover`: the result that describes the server.
    async fn setup(&mut self) -> Result<Value, String> {
        let revision = self.config.revision;
        let id = "mcpspec-init";
        let request = match revision.era() {
            Era::Legacy => initialize(revision),
            Era::Modern => discover(revision, id),
        };
        let within = self.config.start_timeout;
        let settled = self
            .send_and_settle(&request, Some(id), within)
            .await
            .map_err(|e| format!("{} got no answer: {}", request["method"], describe_ended(&e)))?;
        let Some(answer) = settled.answer else {
            let status = settled.status.map_or("no response".to_owned(), |s| format!("HTTP {s}"));
            return Err(format!("{} got no answer ({status})", request["method"]));
        };
        let Some(result) = answer.get("result") else {
            return Err(format!(
                "it answered with an error: {}",
                answer.get("error").unwrap_or(&Value::Null)
            ));
        };
        if revision.era() == Era::Legacy {
            let agreed: Option<Revision> =
                result.get("protocolVersion").and_then(Value::as_str).and_then(|v| v.parse().ok());
            let version = agreed.unwrap_or(revision);
            let session = self.session.as_mut().expect("connected");
            // From 2025-06-18 every request after initialization names the version
            // (`basic/transports.mdx#protocol-version-header`).
            session.set_protocol_version(
                (version >= Revision::V2025_06_18).then(|| version.as_str().to_owned()),
            );
            let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
            self.send_and_settle(&initialized, None, within)
                .await
                .map_err(|e| format!("notifications/initialized: {}", describe_ended(&e)))?;
        }
        self.watch.take_trips();
        Ok(result.clone())
    }

    /// What went wrong starting a session, with how the process ended if it did.
    async fn explain(&mut self, why: String) -> String {
        let Some(process) = self.served.as_mut() else { return why };
        match process.wait_exit(Duration::from_millis(300)).await {
            Some(status) => format!(
                "{why}; the server {}; stderr: {}",
                describe_status(status),
                tail(&process.take_stderr_to_end(Duration::from_millis(500)).await)
            ),
            None => why,
        }
    }

    /// Sends the inputs in the running session, then a barrier, and judges the window.
    pub async fn run(&mut self, inputs: &[&Input]) -> Result<Outcome, StartError> {
        self.ensure_started().await?;
        Ok(self.window(inputs).await)
    }

    /// One input on a process (a server at a URL: a session) of its own, as a reproducer
    /// replays: set up unless the input is `fresh`, the input, a barrier; ended after.
    pub async fn run_alone(&mut self, input: &Input) -> Result<Outcome, StartError> {
        self.stop().await;
        self.start(!input.fresh).await?;
        let outcome = self.window(&[input]).await;
        self.stop().await;
        Ok(outcome)
    }

    async fn window(&mut self, inputs: &[&Input]) -> Outcome {
        let start = Instant::now();
        let mut outcome = Outcome::default();
        for (place, input) in inputs.iter().enumerate() {
            self.watch.mark_input(place);
            // A shape that names an unknown method was refused when the input was read.
            let tweaks = tweaks_of(input.http.as_ref());
            for write in input.writes.iter().filter(|w| !w.is_empty()) {
                if let Err(how) = self.send_body(write, &tweaks).await {
                    return self.ended(outcome, start, how, body_method(write)).await;
                }
            }
        }
        self.barriers += 1;
        let id = format!("mcpspec-barrier-{}", self.barriers);
        let barrier = match self.config.revision.era() {
            Era::Legacy => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            Era::Modern => discover(self.config.revision, &id),
        };
        match self.send_and_settle(&barrier, Some(&id), self.config.hang_timeout).await {
            Ok(settled) if settled.answer.is_some() => {}
            // The server ended the session meanwhile (a DELETE in the window, an expiry), or
            // there is none (an input that brought a broken handshake of its own): the barrier
            // cannot be answered in it, and a refusal in time shows the server alive, no hang.
            Ok(settled) if self.lost || settled.status.is_some_and(|s| (400..500).contains(&s)) => {}
            Ok(_) => return self.ended(outcome, start, Ended::Silent, None).await,
            Err(how) => return self.ended(outcome, start, how, None).await,
        }
        outcome.elapsed = start.elapsed();
        outcome.trips.extend(self.watch.take_trips());
        if let Some(process) = self.served.as_mut() {
            if let Some(status) = process.try_exit() {
                // It answered the barrier, then died: still a crash of this window.
                let stderr = process.take_stderr_to_end(Duration::from_millis(500)).await;
                outcome.trips.push(Trip {
                    oracle: Oracle::Crash,
                    method: None,
                    detail: format!("the process {}", describe_status(status)),
                    message: None,
                });
                outcome.stderr = stderr;
                self.stop().await;
                return outcome;
            }
            outcome.stderr = process.take_stderr();
        }
        if has_panic(&outcome.stderr) {
            outcome.trips.push(Trip {
                oracle: Oracle::StderrPanic,
                method: self.watch.unanswered().into_iter().next(),
                detail: format!("stderr shows an uncaught error: {}", tail(&outcome.stderr)),
                message: None,
            });
        }
        outcome
    }

    /// One write of an input as one request; waits until it is settled.
    async fn send_body(&mut self, body: &[u8], tweaks: &Tweaks) -> Result<(), Ended> {
        self.watch.sent_body(body);
        let kind = match serde_json::from_slice::<Value>(body) {
            Ok(v) => BodyKind::of(&v),
            Err(_) => BodyKind::Other,
        };
        let session = self.session.as_mut().expect("started");
        let n = session.send_with(body.to_vec(), kind, tweaks);
        // A 404 ends the session only when the request carried the session's own id.
        let own_session = tweaks.method.is_none_or(|m| m == "POST" || m == "DELETE")
            && !tweaks.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(SESSION_HEADER));
        let method = body_method(body);
        let settled = self.settle(n, None, self.config.hang_timeout, own_session, method.as_deref()).await?;
        if tweaks.method == Some("DELETE")
            && own_session
            && settled.status.is_some_and(|s| (200..300).contains(&s))
        {
            self.lost = true;
        }
        Ok(())
    }

    /// Sends one message of the driver's own (never bent) and waits until it is settled.
    async fn send_and_settle(
        &mut self,
        message: &Value,
        answer_id: Option<&str>,
        within: Duration,
    ) -> Result<Settled, Ended> {
        let bytes = serde_json::to_vec(message).expect("a message serializes");
        self.watch.sent_body(&bytes);
        let session = self.session.as_mut().expect("started");
        let n = session.send_with(bytes, BodyKind::of(message), &Tweaks::default());
        let method = message.get("method").and_then(Value::as_str).map(str::to_owned);
        self.settle(n, answer_id, within, true, method.as_deref()).await
    }

    /// Reads events until exchange `n` is settled: its response ended, or every request it
    /// carried was answered (a stream may stay open after), or — waiting for `answer_id` — that
    /// answer came on any stream (HTTP+SSE answers on the GET stream). Everything read
    /// meanwhile is judged, and the server's own requests answered.
    async fn settle(
        &mut self,
        n: u64,
        answer_id: Option<&str>,
        within: Duration,
        own_session: bool,
        method: Option<&str>,
    ) -> Result<Settled, Ended> {
        let deadline = tokio::time::Instant::now() + within;
        let mut settled = Settled::default();
        let mut carried: Vec<RequestId> = Vec::new();
        let mut answered: HashSet<RequestId> = HashSet::new();
        let mut ended = false;
        let mut streaming = false;
        loop {
            let done = match answer_id {
                Some(_) => settled.answer.is_some() || (ended && self.target.flavor_answers_in_response()),
                None => {
                    ended
                        || (settled.status.is_some()
                            && (streaming || !carried.is_empty())
                            && carried.iter().all(|id| answered.contains(id)))
                }
            };
            if done {
                return Ok(settled);
            }
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let session = self.session.as_mut().expect("started");
            let event = match session.recv(left).await {
                Ok(event) => event,
                Err(RecvError::Timeout(_)) if settled.status.is_some() && answer_id.is_none() => {
                    return Ok(settled)
                }
                Err(RecvError::Timeout(_)) => return Err(Ended::Silent),
                Err(RecvError::Closed) => return Err(Ended::Dropped("the transport closed".into())),
            };
            match event {
                HttpEvent::Response(x) => {
                    // 500, 502 and 504 are errors that escaped (or a process behind a proxy
                    // that failed); 501 and 503 are refusals a server means (a method it does
                    // not implement, too many sessions).
                    // A request answered 5xx without JSON or a stream: the error escaped the
                    // server's handlers (a JSON-RPC internal error in a JSON body is an answer).
                    // 501 and 503 are refusals a server means (a method it does not implement,
                    // too many sessions); a notification may be refused with any error status.
                    let answered_as_json_rpc =
                        matches!(x.media_type().as_deref(), Some("application/json" | "text/event-stream"));
                    if matches!(x.status, 500 | 502 | 504) && !x.requests.is_empty() && !answered_as_json_rpc
                    {
                        self.watch.push_trip(Trip {
                            oracle: Oracle::ServerError,
                            method: body_method_of(&x.requests, method, x.n == n),
                            detail: format!(
                                "{} {} carrying a request was answered {} {}",
                                x.method,
                                path_of(&x.url),
                                x.status,
                                x.media_type().unwrap_or_else(|| "with no body type".into())
                            ),
                            message: None,
                        });
                    }
                    if x.n == n {
                        settled.status = Some(x.status);
                        carried = x.requests.clone();
                        // A stream that carries no answer of ours (a GET, a notification
                        // answered with one) may stay open as long as it likes.
                        streaming = x.media_type().as_deref() == Some("text/event-stream");
                        // Any error status refuses what the body carried; its body may say
                        // why in a JSON-RPC error without an id.
                        if x.status >= 400 {
                            self.watch.refused(&x.requests);
                        }
                        if x.status == 404
                            && own_session
                            && self.session.as_ref().is_some_and(|s| s.session_id().is_some())
                        {
                            self.lost = true;
                        }
                    }
                }
                HttpEvent::Message { frame, .. } => {
                    if let FrameContent::Json { value, .. } = &frame.content {
                        for item in messages_in(value) {
                            if item.get("method").is_none() {
                                if let Some(id) = item.get("id").and_then(RequestId::from_value) {
                                    if answer_id.is_some_and(|want| item.get("id") == Some(&json!(want))) {
                                        settled.answer = Some(item.clone());
                                    }
                                    answered.insert(id);
                                }
                            }
                        }
                    }
                    for request in self.watch.received(&frame) {
                        let answer = answer_to(&request);
                        let bytes = serde_json::to_vec(&answer).expect("a message serializes");
                        self.watch.sent_body(&bytes);
                        let session = self.session.as_mut().expect("started");
                        session.send_with(bytes, BodyKind::of(&answer), &Tweaks::default());
                    }
                }
                HttpEvent::End { n: m, end } if m == n => {
                    ended = true;
                    if let mcpspec_reference::transport::http_client::BodyEnd::Broken(why) = end {
                        if carried.iter().any(|id| !answered.contains(id)) {
                            return Err(Ended::Dropped(format!("the response body broke off: {why}")));
                        }
                    }
                    if answer_id.is_none() {
                        return Ok(settled);
                    }
                }
                HttpEvent::Failed { n: m, error, .. } if m == n => return Err(Ended::Dropped(error)),
                _ => {}
            }
        }
    }

    /// The request failed, went silent, or the barrier went unanswered: a crash when the
    /// process is gone, else a hang or a reset; the session (and a hung process) is ended,
    /// and the next window starts anew.
    async fn ended(
        &mut self,
        mut outcome: Outcome,
        start: Instant,
        how: Ended,
        method: Option<String>,
    ) -> Outcome {
        let unanswered = self.watch.unanswered();
        let method = method.or_else(|| unanswered.first().cloned());
        outcome.trips.extend(self.watch.take_trips());
        // A process that died closed its connections a moment before it is reaped; one that
        // lives on (a reset, a hang) costs this wait on every probe, so it is short.
        let status = match (self.served.as_mut(), &how) {
            (Some(process), Ended::Dropped(_)) => process.wait_exit(Duration::from_millis(150)).await,
            (Some(process), Ended::Silent) => process.try_exit(),
            (None, _) => None,
        };
        let waiting = if unanswered.is_empty() {
            String::new()
        } else {
            format!("; unanswered: {}", unanswered.join(", "))
        };
        let hang_timeout = self.config.hang_timeout;
        let trip = match (&status, &how) {
            (Some(status), _) => Trip {
                oracle: Oracle::Crash,
                method,
                detail: format!("the process {}{waiting}", describe_status(*status)),
                message: None,
            },
            (None, Ended::Dropped(why)) if !why.contains("no response head within") => Trip {
                oracle: Oracle::Reset,
                method,
                detail: format!("the connection ended without a response: {why}{waiting}"),
                message: None,
            },
            (None, _) => Trip {
                oracle: Oracle::Hang,
                method,
                detail: format!("no response within {hang_timeout:?}{waiting}"),
                message: None,
            },
        };
        outcome.stderr = match (self.served.as_mut(), status) {
            (Some(process), Some(_)) => process.take_stderr_to_end(Duration::from_millis(500)).await,
            (Some(process), None) => process.take_stderr(),
            (None, _) => String::new(),
        };
        // A dead or hung process is started again; a reset leaves a live one serving.
        match trip.oracle {
            Oracle::Reset => self.end_session(),
            _ => {
                self.stop().await;
            }
        }
        outcome.trips.push(trip);
        outcome.elapsed = start.elapsed();
        outcome
    }

    /// The lines the served process reached since the last take (`--coverage python`).
    pub async fn take_coverage(&mut self) -> Option<Reached> {
        self.served.as_ref()?;
        self.probe.as_mut()?.take(self.config.hang_timeout).await
    }

    /// What each answered request of the last window came back as.
    pub fn take_shapes(&mut self) -> Vec<(usize, String)> {
        self.watch.take_shapes()
    }

    /// One request of the driver's own in the running session: its result, or `None`.
    pub async fn call(&mut self, method: &str, params: Value) -> Option<Value> {
        self.ensure_started().await.ok()?;
        self.barriers += 1;
        let id = format!("mcpspec-call-{}", self.barriers);
        let params = match self.config.revision.era() {
            Era::Legacy => params,
            Era::Modern => modern::with_request_meta(Some(params), &request_meta(self.config.revision)),
        };
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let settled = self.send_and_settle(&request, Some(&id), self.config.start_timeout).await.ok()?;
        self.watch.take_trips();
        settled.answer?.get("result").cloned()
    }

    /// Drops the session (its requests under way end with it).
    fn end_session(&mut self) {
        if let Some(mut session) = self.session.take() {
            session.abort();
        }
        self.lost = false;
    }

    /// Ends the session and the process, if one was started; names what it left running
    /// outside its process group.
    pub async fn stop(&mut self) -> Option<String> {
        self.end_session();
        self.probe = None;
        let process = self.served.take()?;
        self.url = None;
        let end = process.stop().await;
        (!end.left.is_empty()).then(|| end.left.join(", "))
    }
}

impl HttpTarget {
    /// Whether a request's answer comes in its own response (Streamable HTTP), so a response
    /// that ended without it will never bring it; over HTTP+SSE it comes on the GET stream.
    fn flavor_answers_in_response(&self) -> bool {
        self.flavor == mcpspec_reference::transport::Flavor::Streamable
    }
}

/// The transport's tweaks for an input's shape.
fn tweaks_of(shape: Option<&HttpShape>) -> Tweaks {
    let Some(shape) = shape else { return Tweaks::default() };
    Tweaks { method: shape.method().ok().flatten(), headers: shape.headers.clone(), ..Tweaks::default() }
}

/// The method of the body that exchange carried: known for the exchange being settled.
fn body_method_of(requests: &[RequestId], method: Option<&str>, this_exchange: bool) -> Option<String> {
    (this_exchange && !requests.is_empty()).then(|| method.map(str::to_owned)).flatten()
}

/// The method a body's (first) message carries, when it parses as one.
fn body_method(body: &[u8]) -> Option<String> {
    let value: Value = serde_json::from_slice(body).ok()?;
    messages_in(&value).iter().find_map(|m| m.get("method").and_then(Value::as_str)).map(str::to_owned)
}

/// The messages of a body: the message, or a batch's items.
fn messages_in(value: &Value) -> Vec<&Value> {
    match value {
        Value::Array(items) => items.iter().collect(),
        one => vec![one],
    }
}

fn path_of(url: &str) -> String {
    Url::parse(url).map(|u| u.path().to_owned()).unwrap_or_else(|_| url.to_owned())
}

fn describe_ended(how: &Ended) -> String {
    match how {
        Ended::Silent => "no answer in time".to_owned(),
        Ended::Dropped(why) => why.clone(),
    }
}
