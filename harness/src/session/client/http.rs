//! A client under test over HTTP (Streamable HTTP or the legacy HTTP+SSE): the scenario server
//! is an [`HttpListener`] on 127.0.0.1, the client command gets its URL as its last argument and
//! in `MCP_CONFORMANCE_SERVER_URL`, messages cross the endpoint's [`SessionLink`], and every
//! exchange the endpoint logged is judged by the client HTTP rules. The session's common logic
//! is in the parent module.

use super::auth::SessionAuth;
use super::{
    first_contact, spawn_client, ClientSession, ClientWaitError, Inspection, ServerScript, StartError,
    EXIT_POLL, SERVER_URL_ENV,
};
use crate::judge::recorder::WireRecorder;
use mcpspec_protocol::framing::Frame;
use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::server::ReferenceServer;
use mcpspec_reference::transport::http_server::{HttpListener, HttpServerOptions, SessionLink};
use mcpspec_reference::transport::{ChildOptions, CommandSpec, Flavor, RecvError};
use mcpspec_schema::SchemaSet;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// The scenario server's HTTP endpoint and the client's current session at it.
pub(super) struct HttpEndpoint {
    pub(super) listener: HttpListener,
    /// The client's current session (a client that re-initializes gets a new one).
    pub(super) session: Option<SessionLink>,
    /// The POST stream of the client's last message: what the scenario server writes in reply
    /// goes there when the endpoint cannot match it by id.
    pub(super) origin: Option<u64>,
    /// Sessions the client started.
    pub(super) sessions: usize,
    /// The scenario server ended the current session (a 404 awaits the client's next request):
    /// the session's end is no end of the client's.
    pub(super) ended_by_server: bool,
    /// The authorization server of a protected endpoint.
    pub(super) auth: Option<SessionAuth>,
}

impl HttpEndpoint {
    /// Everything the endpoint logged since the last call, to the recorder: the current
    /// session's records first, then those of requests that found no session.
    pub(super) fn drain(&self, recorder: &mut WireRecorder) {
        if let Some(s) = &self.session {
            for record in s.take_log() {
                recorder.record_http_record(Some(s.id()), &record);
            }
        }
        for record in self.listener.take_log() {
            recorder.record_http_record(None, &record);
        }
    }
}

impl ClientSession {
    /// Serves HTTP (`flavor`) on 127.0.0.1 and starts the client command with the endpoint's
    /// URL as its last argument and in [`SERVER_URL_ENV`], plus the other conformance variables.
    #[allow(clippy::too_many_arguments)]
    pub async fn start_http(
        command: &CommandSpec,
        flavor: Flavor,
        options: ChildOptions,
        revision: Revision,
        schemas: Option<Arc<SchemaSet>>,
        scenario: &str,
        context: &Value,
        script: ServerScript,
    ) -> Result<ClientSession, StartError> {
        let mut http = HttpServerOptions::new(flavor);
        http.max_message_bytes = options.max_message_bytes;
        http.poll_after_priming = script.poll_after_priming;
        http.get_stream = !script.refuse_get;
        http.json_responses = script.json_responses;
        http.bend = script.bend.clone();
        if revision.era() == mcpspec_protocol::Era::Modern {
            // The endpoint serves the modern era beside legacy sessions: each modern POST is
            // a session of its own, never announced (`streamable-http.mdx`).
            http.accepted_revisions.push(revision);
            // The endpoint holds calls of the reference tools' x-mcp-header parameters to their
            // Mcp-Param headers, as the reference server's own does.
            http.param_schemas = mcpspec_reference::server::param_schemas(&[revision]);
        }
        let serve_error = |source| StartError::Serve { flavor: flavor.name(), source };
        // Bound first: at 2025-03-26 the authorization server's issuer is this origin.
        let tcp = tokio::net::TcpListener::bind(http.bind).await.map_err(serve_error)?;
        let origin = format!("http://{}", tcp.local_addr().map_err(serve_error)?);
        let mut context = context.clone();
        let auth = match script.auth.clone() {
            Some(a) => {
                let at_origin = a.at_origin.is_some().then(|| origin.clone());
                let (auth, with_credentials) = SessionAuth::start(a, &context, at_origin)
                    .await
                    .map_err(|source| StartError::Serve { flavor: "an authorization server", source })?;
                http.protection = Some(auth.script.protection(&auth.server, auth.next.as_ref()));
                if auth.script.at_origin.is_some() {
                    let paths = super::auth::ORIGIN_PATHS.iter().map(|p| p.to_string()).collect();
                    http.authorization_relay = Some((auth.server.local_addr(), paths));
                }
                context = with_credentials;
                Some(auth)
            }
            None => None,
        };
        let param_schemas = http.param_schemas.clone();
        let listener = HttpListener::serve_on(tcp, http).map_err(serve_error)?;
        let url = listener.url();
        let mut spec = command.clone();
        spec.args.push(url.clone().into());
        let (client, options) =
            spawn_client(spec, (SERVER_URL_ENV, url), scenario, revision, &context, options)?;
        let link = super::Link::Http(HttpEndpoint {
            listener,
            session: None,
            origin: None,
            sessions: 0,
            ended_by_server: false,
            auth,
        });
        let recorder = WireRecorder::new(revision, Direction::ClientToServer, schemas)
            .with_http_server(flavor)
            .with_param_schemas(param_schemas);
        Ok(ClientSession::around(client, link, recorder, revision, script, options))
    }

    /// Over HTTP: waits at most `within` for the client's first session (its `initialize`
    /// POST, or legacy, its GET), reading (and dropping) what it prints meanwhile.
    pub(super) async fn accept_http(
        &mut self,
        within: Duration,
        slot: Option<crate::session::starts::StartTurn>,
    ) -> Result<(), ClientWaitError> {
        let super::Link::Http(http) = &mut self.link else { return Ok(()) };
        if http.session.is_some() {
            return Ok(());
        }
        let contact = async { http.listener.next_session(within).await.ok_or_else(String::new) };
        let session = first_contact(&mut self.client, within, slot, contact).await;
        match session {
            Ok(link) => {
                self.adopt(link);
                Ok(())
            }
            Err(note) => Err(ClientWaitError::NotConnected(within, note)),
        }
    }

    /// Takes a new HTTP session of the client's: the first, or a later one (it re-initialized),
    /// which starts a new session for the checks and the scenario server alike.
    pub(super) fn adopt(&mut self, link: SessionLink) {
        let super::Link::Http(http) = &mut self.link else { return };
        if let Some(old) = http.session.take() {
            for record in old.take_log() {
                self.recorder.record_http_record(Some(old.id()), &record);
            }
        }
        http.sessions += 1;
        http.ended_by_server = false;
        http.origin = None;
        let options = http.listener.options();
        if options.flavor == Flavor::LegacySse {
            let endpoint = format!("{}?sessionId={}", options.messages_path, link.id());
            self.recorder.endpoint_announced(&endpoint);
        }
        // The modern era has no sessions: each request is one of the endpoint's unannounced
        // per-request sessions, and the checker follows the client across them (an MRTR retry is
        // judged against the answer to the request before it).
        let modern = self.recorder.revision().era() == mcpspec_protocol::Era::Modern;
        if http.sessions > 1 && !modern {
            self.recorder.new_session(format!("[HTTP] the client started session {}", http.sessions));
            self.server = ReferenceServer::new(Self::server_config(self.recorder.revision()));
            self.eof = false;
        }
        http.session = Some(link);
    }

    /// Over HTTP: answers `inspection` as [`ClientSession::serve`] does and ends the client's
    /// session from the server's side in the same step, so that its next request gets 404. In
    /// two steps, a client quick to follow the answer with a request (or a harness slowed by a
    /// loaded machine between them) had that request's stream closed unanswered instead.
    pub fn serve_then_end_http_session(&mut self, inspection: &Inspection) -> Result<(), ClientWaitError> {
        let answers = self.answers(inspection);
        answers.iter().for_each(|a| self.note_sent(a));
        let super::Link::Http(http) = &mut self.link else {
            return Err(ClientWaitError::Send("the client is not over HTTP: no HTTP session to end".into()));
        };
        let Some(session) = &http.session else {
            return Err(ClientWaitError::Send("the client has no HTTP session".into()));
        };
        let sent = session.send_in_reply_then_close(&answers, http.origin);
        http.ended_by_server = true;
        http.drain(&mut self.recorder);
        sent.map_err(|e| ClientWaitError::Send(e.to_string()))
    }

    /// Over a protected endpoint: its authorization server and what it answered so far.
    pub fn auth(&mut self) -> Option<&mut SessionAuth> {
        match &mut self.link {
            super::Link::Http(h) => h.auth.as_mut(),
            super::Link::Stdio(_) => None,
        }
    }

    /// The scenario server's URL (over HTTP).
    pub fn http_url(&self) -> Option<String> {
        match &self.link {
            super::Link::Http(h) => Some(h.listener.url()),
            super::Link::Stdio(_) => None,
        }
    }

    /// How many HTTP sessions the client started.
    pub fn http_sessions(&self) -> usize {
        match &self.link {
            super::Link::Http(h) => h.sessions,
            super::Link::Stdio(_) => 0,
        }
    }

    /// Brings the record of HTTP exchanges up to date (what steps then read from the recorder).
    pub fn drain_http(&mut self) {
        if let super::Link::Http(http) = &self.link {
            http.drain(&mut self.recorder);
        }
    }

    /// Over HTTP: whether the client reached the scenario server at all (a request that made no
    /// session, refused for its headers, counts). Over stdio the relay's connection is the contact.
    pub fn reached_http(&self) -> bool {
        match &self.link {
            super::Link::Http(h) => h.session.is_some() || h.listener.unsessioned_requests() > 0,
            super::Link::Stdio(_) => false,
        }
    }

    /// Over HTTP, one step of [`Self::recv`]: the next POST body of the current session (its
    /// messages queued), a new session, the session's end, or what the scenario server has due;
    /// `Err` once `deadline` passes.
    pub(super) async fn recv_http(
        &mut self,
        deadline: Instant,
        within: Duration,
    ) -> Result<(), ClientWaitError> {
        let due = self.server.next_deadline().map(Instant::from_std);
        let wake = due.map_or(deadline, |d| d.min(deadline));
        // Short waits, so that a client that exits is seen: over HTTP its going is the end of
        // its session (there is no pipe to close), whether or not it sent DELETE.
        let left = wake.saturating_duration_since(Instant::now()).min(EXIT_POLL);
        let super::Link::Http(http) = &mut self.link else { return Ok(()) };
        let client = &mut self.client;
        enum Got {
            Frame(Frame, Option<u64>),
            Session(SessionLink),
            Ended,
            Nothing,
        }
        let got = match http.session.as_mut() {
            Some(session) => tokio::select! {
                r = session.recv_from(left) => match r {
                    Ok((frame, origin)) => Got::Frame(frame, origin),
                    Err(RecvError::Closed) => Got::Ended,
                    Err(RecvError::Timeout(_)) => Got::Nothing,
                },
                s = http.listener.next_session(left) => s.map_or(Got::Nothing, Got::Session),
                // The client's stdout is not MCP traffic over HTTP: read so it never blocks.
                Ok(_) = client.recv(left) => return Ok(()),
            },
            None => tokio::select! {
                s = http.listener.next_session(left) => s.map_or(Got::Nothing, Got::Session),
                Ok(_) = client.recv(left) => return Ok(()),
            },
        };
        http.drain(&mut self.recorder);
        match got {
            Got::Frame(frame, origin) => {
                http.origin = origin;
                if let mcpspec_protocol::framing::FrameContent::Json { value, .. } = &frame.content {
                    self.recorder.record_post_body(value);
                }
                self.take(frame);
            }
            Got::Session(link) => self.adopt(link),
            // Modern era: a request's session ends with its response; the client goes on
            // with its next POST, or exits (seen below, when nothing comes).
            Got::Ended if self.recorder.revision().era() == mcpspec_protocol::Era::Modern => {
                http.drain(&mut self.recorder);
                http.session = None;
            }
            Got::Ended if http.ended_by_server => {
                // The 404 the client gets next is the scenario's doing; its new session is awaited.
                if Instant::now() >= deadline {
                    return Err(ClientWaitError::Timeout(within));
                }
                let left = deadline.saturating_duration_since(Instant::now());
                match http.listener.next_session(left).await {
                    Some(link) => self.adopt(link),
                    None => return Err(ClientWaitError::Timeout(within)),
                }
            }
            Got::Ended => {
                // The client ended the session (DELETE; legacy: its GET stream closed).
                http.drain(&mut self.recorder);
                self.eof = true;
            }
            Got::Nothing if due.is_some_and(|d| d <= Instant::now()) => {
                for message in self.server.poll(std::time::Instant::now()) {
                    let _ = self.send_value(&message).await;
                }
            }
            Got::Nothing if Instant::now() >= deadline => return Err(ClientWaitError::Timeout(within)),
            Got::Nothing => {
                if self.client.try_exit().is_some() {
                    http.drain(&mut self.recorder);
                    self.eof = true;
                }
            }
        }
        Ok(())
    }
}
