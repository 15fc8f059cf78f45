//! The reference server over MCP's HTTP transports: one [`ReferenceServer`] per session of an
//! [`HttpListener`], each driven by the loop that also serves stdio ([`super::serve::drive`]).

use super::serve::{drive, Pipe};
use super::ReferenceServer;
use crate::faults::injection::FaultState;
use crate::faults::Fault;
use crate::transport::http_server::{HttpListener, SessionLink};
use crate::transport::{RecvError, SendError};
use mcpspec_protocol::framing::FrameContent;
use serde_json::Value;
use std::collections::HashMap;
use std::time::Duration;
use tokio::task::JoinSet;

/// Serves every session the listener hands over, each with a server from `make_server`, until
/// this future is dropped (which ends every session). The fault of the listener's options (test
/// peers only) applies to both layers: `http-`/`sse-` faults in the endpoint, the others in each
/// server and in the messages it writes.
pub async fn serve_http<F>(mut listener: HttpListener, make_server: F) -> std::io::Result<()>
where
    F: Fn() -> ReferenceServer,
{
    let fault = listener.options().fault;
    if let Some(f) = fault.filter(|f| *f != Fault::Flood) {
        // Process-wide faults (crash, ignored SIGTERM, grandchild) act once, at the start; the
        // byte stream they would write to does not exist here.
        FaultState::new(f).at_start(&mut tokio::io::sink()).await?;
    }
    let mut sessions = JoinSet::new();
    loop {
        // A bounded wait, so that finished sessions are collected even when none start.
        if let Some(link) = listener.next_session(Duration::from_secs(1)).await {
            let server = make_server().with_fault(fault);
            sessions.spawn(serve_session(server, fault, link));
        }
        while sessions.try_join_next().is_some() {}
    }
}

/// Serves one session until it ends.
async fn serve_session(mut server: ReferenceServer, fault: Option<Fault>, link: SessionLink) {
    let mut fault = fault.map(FaultState::new);
    let mut pipe = HttpPipe { link, origin: None, tokens: HashMap::new() };
    // An error here is the session ending (the client deleted it or went away).
    let _ = drive(&mut server, fault.as_mut(), &mut pipe).await;
}

struct HttpPipe {
    link: SessionLink,
    /// The POST stream of the message being handled.
    origin: Option<u64>,
    /// The POST stream of each request that asked for progress, by its token (as JSON text):
    /// a timer's progress goes on the stream of the request it reports on
    /// (`basic/transports.mdx`: messages on a POST's stream relate to its request), never on
    /// another request's, which may end first.
    tokens: HashMap<String, u64>,
}

/// How many progress tokens a session remembers (the oldest are forgotten past it).
const TOKENS_KEPT: usize = 1024;

impl Pipe for HttpPipe {
    async fn next_frame(&mut self) -> std::io::Result<Option<FrameContent>> {
        loop {
            // Bounded waits; the session itself ends when deleted, dropped or reaped when idle.
            match self.link.recv_from(Duration::from_secs(60)).await {
                Ok((frame, origin)) => {
                    self.origin = origin;
                    if let (FrameContent::Json { value, .. }, Some(origin)) = (&frame.content, origin) {
                        if let Some(token) = value.pointer("/params/_meta/progressToken") {
                            if self.tokens.len() >= TOKENS_KEPT {
                                self.tokens.clear();
                            }
                            self.tokens.insert(token.to_string(), origin);
                        }
                    }
                    return Ok(Some(frame.content));
                }
                Err(RecvError::Timeout(_)) => continue,
                Err(RecvError::Closed) => return Ok(None),
            }
        }
    }

    async fn write(
        &mut self,
        fault: Option<&mut FaultState>,
        incoming: Option<&FrameContent>,
        answers: Vec<Value>,
    ) -> std::io::Result<()> {
        let messages = match fault {
            Some(f) => f.messages(incoming, answers),
            None => answers,
        };
        // Answers to a message go where it came from; what a timer wrote (`incoming` None)
        // is routed by id or to the latest stream waiting.
        let origin = incoming.and(self.origin);
        for message in &messages {
            let by_token = message
                .pointer("/params/progressToken")
                .filter(|_| message["method"] == "notifications/progress")
                .and_then(|token| self.tokens.get(&token.to_string()).copied());
            match self.link.send_in_reply(message, by_token.or(origin)) {
                Ok(()) => {}
                // Nobody listens for server-initiated messages: this one is dropped, the session
                // goes on (the client may still POST).
                Err(SendError::Backlog { .. }) => {}
                Err(e) => return Err(std::io::Error::new(std::io::ErrorKind::BrokenPipe, e)),
            }
        }
        Ok(())
    }
}
