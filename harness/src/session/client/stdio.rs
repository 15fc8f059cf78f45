//! A client under test over stdio: the client spawns `mcpspec peer --connect SOCKET` as its
//! MCP server ([`relay`]), which bridges the client's pipes to a Unix socket in a private
//! folder the session listens on, so every byte between client and relay crosses the harness.
//! The session's common logic is in the parent module.

use super::{
    first_contact, spawn_client, ClientSession, ClientWaitError, ServerScript, StartError, SERVER_COMMAND_ENV,
};
use crate::judge::recorder::WireRecorder;
use mcpspec_protocol::reassembly::Reassembler;
use mcpspec_protocol::{Direction, Revision};
use mcpspec_reference::transport::{ChildOptions, CommandSpec};
use mcpspec_schema::SchemaSet;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::{UnixListener, UnixStream};
use tokio::time::Instant;

/// The relay the client spawned as its server, connected over a Unix socket in a private
/// folder.
pub(super) struct StdioLink {
    pub(super) socket_dir: PathBuf,
    pub(super) listener: Option<UnixListener>,
    pub(super) reader: Option<OwnedReadHalf>,
    pub(super) writer: Option<OwnedWriteHalf>,
    pub(super) decoder: Reassembler,
}

static SESSIONS: AtomicUsize = AtomicUsize::new(0);

/// A fresh private folder (mode 0700) for one session's socket.
pub(super) fn private_dir() -> std::io::Result<PathBuf> {
    use std::os::unix::fs::DirBuilderExt as _;
    let n = SESSIONS.fetch_add(1, Ordering::SeqCst);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let dir = std::env::temp_dir().join(format!("mcpspec-{}-{n}-{nanos:x}", std::process::id()));
    std::fs::DirBuilder::new().mode(0o700).create(&dir)?;
    Ok(dir)
}

impl ClientSession {
    /// Listens on a private socket and starts the client command with the conformance
    /// environment. `relay` is the program and leading arguments of the relay (`mcpspec peer`).
    #[allow(clippy::too_many_arguments)]
    pub fn start(
        command: &CommandSpec,
        relay: &[String],
        options: ChildOptions,
        revision: Revision,
        schemas: Option<Arc<SchemaSet>>,
        scenario: &str,
        context: &Value,
        script: ServerScript,
    ) -> Result<ClientSession, StartError> {
        let socket_dir =
            private_dir().map_err(|source| StartError::Listen { path: std::env::temp_dir(), source })?;
        let socket = socket_dir.join("s");
        let listener = match UnixListener::bind(&socket) {
            Ok(l) => l,
            Err(source) => {
                let _ = std::fs::remove_dir_all(&socket_dir);
                return Err(StartError::Listen { path: socket, source });
            }
        };
        let mut argv: Vec<String> = relay.to_vec();
        argv.extend(["--connect".to_owned(), socket.display().to_string()]);
        let server = (SERVER_COMMAND_ENV, Value::from(argv).to_string());
        let (client, options) =
            match spawn_client(command.clone(), server, scenario, revision, context, options) {
                Ok(started) => started,
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&socket_dir);
                    return Err(e.into());
                }
            };
        let link = super::Link::Stdio(StdioLink {
            socket_dir,
            listener: Some(listener),
            reader: None,
            writer: None,
            decoder: Reassembler::new(options.max_message_bytes),
        });
        let recorder = WireRecorder::new(revision, Direction::ClientToServer, schemas);
        Ok(ClientSession::around(client, link, recorder, revision, script, options))
    }

    pub(super) async fn accept_stdio(
        &mut self,
        within: Duration,
        slot: Option<crate::session::starts::StartTurn>,
    ) -> Result<(), ClientWaitError> {
        let super::Link::Stdio(link) = &mut self.link else { return Ok(()) };
        if link.reader.is_some() {
            return Ok(());
        }
        let Some(listener) = link.listener.take() else {
            return Err(ClientWaitError::NotConnected(within, String::new()));
        };
        let contact = async {
            match listener.accept().await {
                Ok((stream, _)) => Ok(stream),
                Err(e) => Err(format!(" (accept failed: {e})")),
            }
        };
        let accepted = first_contact(&mut self.client, within, slot, contact).await;
        // One connection per session: nobody else may connect later.
        drop(listener);
        let super::Link::Stdio(link) = &mut self.link else { return Ok(()) };
        let _ = std::fs::remove_file(link.socket_dir.join("s"));
        match accepted {
            Ok(stream) => {
                let stream: UnixStream = stream;
                let (r, w) = stream.into_split();
                link.reader = Some(r);
                link.writer = Some(w);
                Ok(())
            }
            Err(note) => Err(ClientWaitError::NotConnected(within, note)),
        }
    }

    /// Over stdio, one step of [`Self::recv`]: what the relay brought (its messages queued),
    /// the connection's end, or what the scenario server has due; `Err` once `deadline` passes.
    pub(super) async fn recv_stdio(
        &mut self,
        deadline: Instant,
        within: Duration,
    ) -> Result<(), ClientWaitError> {
        let super::Link::Stdio(link) = &mut self.link else { return Ok(()) };
        let Some(reader) = link.reader.as_mut() else {
            return Err(ClientWaitError::Closed(" (it never connected)".into()));
        };
        // The scenario server's timers run meanwhile: what it has due (a slow tool's answer)
        // is sent when it is due, not when the client next writes.
        let due = self.server.next_deadline().map(Instant::from_std);
        let wake = due.map_or(deadline, |d| d.min(deadline));
        let left = wake.saturating_duration_since(Instant::now());
        let mut buf = [0u8; 16 * 1024];
        let mut frames = Vec::new();
        let client = &mut self.client;
        let read = tokio::select! {
            r = tokio::time::timeout(left, reader.read(&mut buf)) => r,
            // The client's own stdout is not MCP traffic; read it so a chatty client never
            // blocks on a full pipe.
            Ok(_) = client.recv(left) => return Ok(()),
        };
        match read {
            Err(_) if due.is_some_and(|d| d <= Instant::now()) => {
                for message in self.server.poll(std::time::Instant::now()) {
                    // A client that stopped reading is judged by the steps that wait on it.
                    let _ = self.send_value(&message).await;
                }
            }
            Err(_) => return Err(ClientWaitError::Timeout(within)),
            Ok(Ok(0)) | Ok(Err(_)) => {
                self.eof = true;
                link.decoder.finish(&mut frames);
            }
            Ok(Ok(n)) => link.decoder.push(&buf[..n], &mut frames),
        }
        for frame in frames {
            self.take(frame);
        }
        Ok(())
    }

    /// Writes one message to the relay, as one line.
    pub(super) async fn send_stdio(&mut self, value: &Value) -> Result<(), ClientWaitError> {
        self.send_stdio_bytes(&mcpspec_protocol::framing::encode(value)).await
    }

    /// Writes `bytes` to the client as they are (a fuzzer's broken lines); not recorded.
    pub(super) async fn send_stdio_bytes(&mut self, bytes: &[u8]) -> Result<(), ClientWaitError> {
        let super::Link::Stdio(link) = &mut self.link else {
            return Err(ClientWaitError::Send("raw bytes go over stdio only".into()));
        };
        let Some(writer) = link.writer.as_mut() else {
            return Err(ClientWaitError::Send("the client is not connected".into()));
        };
        let write = async {
            writer.write_all(bytes).await?;
            writer.flush().await
        };
        match tokio::time::timeout(self.options.write_timeout, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(ClientWaitError::Send(e.to_string())),
            Err(_) => Err(ClientWaitError::Send(format!(
                "the client read nothing for {:?}",
                self.options.write_timeout
            ))),
        }
    }
}

/// The relay (`mcpspec peer --connect SOCKET`): bridges this process's stdin and stdout to the
/// harness's socket. End of file on stdin is passed on (the harness sees the client close the
/// server's stdin); the relay exits when the harness closes the connection.
pub async fn relay<R, W>(
    socket: &Path,
    mut input: R,
    mut output: W,
    connect_within: Duration,
) -> std::io::Result<()>
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let stream =
        tokio::time::timeout(connect_within, UnixStream::connect(socket)).await.map_err(|_| {
            std::io::Error::new(std::io::ErrorKind::TimedOut, "the harness did not accept in time")
        })??;
    let (mut from_harness, mut to_harness) = stream.into_split();
    let up = async {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = input.read(&mut buf).await?;
            if n == 0 {
                to_harness.shutdown().await?;
                // Stay until the harness closes the connection.
                return std::future::pending::<std::io::Result<()>>().await;
            }
            to_harness.write_all(&buf[..n]).await?;
        }
    };
    let down = async {
        let mut buf = vec![0u8; 16 * 1024];
        loop {
            let n = from_harness.read(&mut buf).await?;
            if n == 0 {
                return Ok::<(), std::io::Error>(());
            }
            output.write_all(&buf[..n]).await?;
            output.flush().await?;
        }
    };
    tokio::select! {
        r = up => r,
        r = down => r,
    }
}
