//! Real I/O around the sans-IO codecs. One module per transport; each yields decoded
//! [`Frame`](mcpspec_protocol::framing::Frame)s and takes JSON values to send: [`child`] runs a peer as a
//! child process over pipes, [`http_client`] reaches a server over MCP's HTTP transports and
//! [`http_server`] serves them; [`canary`] records who fetches a URL nobody should fetch.

pub mod canary;
pub mod child;
pub mod hostile_http;
pub mod http_client;
pub mod http_server;

pub use child::{ChildOptions, ChildTransport, CommandSpec, ShutdownReport, Stage, StdoutUse};

use std::time::Duration;

/// Which of MCP's HTTP transports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// Streamable HTTP (2025-03-26 on): one endpoint for POST, GET and DELETE.
    Streamable,
    /// HTTP+SSE (2024-11-05, deprecated since): a GET stream per session, whose `endpoint`
    /// event names where to POST.
    LegacySse,
}

impl Flavor {
    /// The name on the command line: `http`, `sse`.
    pub fn name(self) -> &'static str {
        match self {
            Flavor::Streamable => "http",
            Flavor::LegacySse => "sse",
        }
    }
}

/// Why a transport could not hand over a frame.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecvError {
    /// Nothing arrived within the wait.
    #[error("nothing arrived within {0:?}")]
    Timeout(Duration),
    /// The peer closed its side (stdout reached end of file).
    #[error("the peer closed the stream")]
    Closed,
}

/// Why a transport could not send.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SendError {
    /// The peer did not take the bytes within the write timeout (it is not reading).
    #[error("the peer did not read {bytes} bytes within {timeout:?}")]
    Timeout { bytes: usize, timeout: Duration },
    /// The peer's side is closed (broken pipe).
    #[error("the peer's input is closed: {0}")]
    Closed(std::io::Error),
    /// The HTTP session has ended (DELETEd by the client, reaped, or its stream dropped).
    #[error("the HTTP session has ended")]
    SessionEnded,
    /// No stream could take the message and the messages already held for one reach the limit.
    #[error("{limit} messages already wait for a stream to open; the client does not listen")]
    Backlog { limit: usize },
}
