//! Where the implementation under test is and how to reach it ([`Target`]); for a server over
//! HTTP, finding which of the two HTTP transports it speaks, and starting one given as a command
//! that listens on a port.

use mcpspec_reference::transport::http_client::{
    Flavor, HeaderName, HeaderValue, HttpClientOptions, HttpClientTransport, HttpEvent, Tweaks,
};
use mcpspec_reference::transport::{
    ChildOptions, ChildTransport, CommandSpec, RecvError, ShutdownReport, StdoutUse,
};
use serde_json::json;
use std::time::Duration;
use tokio::time::Instant;

/// Where the server under test is, and how to reach it.
#[derive(Debug, Clone)]
pub enum Target {
    /// A command started for each session, spoken to over its stdio.
    Stdio(CommandSpec),
    /// A server reached over HTTP (Streamable HTTP or legacy HTTP+SSE), a session per connection.
    Http(HttpClientOptions),
    /// A client command started for each session, reaching mcpspec's scenario server over HTTP
    /// (the URL is its last argument): client certification over Streamable HTTP or HTTP+SSE.
    ClientOverHttp(CommandSpec, Flavor),
    /// An OAuth authorization server, reached over HTTP at its issuer (`mcpspec authorization`).
    AuthorizationServer(crate::session::authorization::AsTarget),
}

impl Target {
    /// `stdio`, `http` or `sse`.
    pub fn transport(&self) -> &'static str {
        match self {
            Target::Stdio(_) => "stdio",
            Target::Http(o) => o.flavor.name(),
            Target::ClientOverHttp(_, flavor) => flavor.name(),
            Target::AuthorizationServer(_) => "http",
        }
    }

    /// The command or the URL, for reports.
    pub fn display(&self) -> String {
        match self {
            Target::Stdio(c) => c.display(),
            Target::Http(o) => o.url.to_string(),
            Target::ClientOverHttp(c, _) => c.display(),
            Target::AuthorizationServer(t) => t.issuer.to_string(),
        }
    }
}

/// The placeholder for the port in a server's command line and URL.
pub const PORT_PLACEHOLDER: &str = "{port}";

/// Why [`detect`] could not tell the transport.
#[derive(Debug)]
pub enum Detection {
    /// No HTTP answer at all: refused, reset, TLS failed, timed out.
    Unreachable(String),
    /// An answer, but neither transport's.
    Unclear(String),
}

/// Which transport a URL speaks, as the spec's backwards-compatibility section has a client find
/// out (`basic/transports.mdx#backwards-compatibility`): POST an `initialize`; a 4xx (2025-11-25:
/// 400, 404 or 405) means an old server, whose GET stream must then open with an `endpoint`
/// event. Returns the transport, and a note when it fell back.
pub async fn detect(options: &HttpClientOptions) -> Result<(Flavor, Option<String>), Detection> {
    let streamable = HttpClientOptions { flavor: Flavor::Streamable, ..options.clone() };
    let mut probe =
        HttpClientTransport::connect(streamable).await.map_err(|e| Detection::Unreachable(e.to_string()))?;
    let initialize = json!({
        "jsonrpc": "2.0", "id": "mcpspec-transport-probe", "method": "initialize",
        "params": {
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": { "name": "mcpspec-probe", "version": env!("CARGO_PKG_VERSION") },
        },
    });
    let n = probe.send(&initialize);
    let deadline = Instant::now() + options.request_timeout;
    let status = loop {
        match probe.recv(deadline.saturating_duration_since(Instant::now())).await {
            Ok(HttpEvent::Response(x)) if x.n == n => break x.status,
            Ok(HttpEvent::Failed { n: m, error, .. }) if m == n => {
                return Err(Detection::Unreachable(format!("POST {}: {error}", options.url)));
            }
            Ok(_) => {}
            // The whole wait, not what was left of it when the last event came.
            Err(RecvError::Timeout(_)) => {
                let waited = options.request_timeout;
                return Err(Detection::Unreachable(format!(
                    "POST {}: nothing arrived within {waited:?}",
                    options.url
                )));
            }
            Err(e) => return Err(Detection::Unreachable(format!("POST {}: {e}", options.url))),
        }
    };
    if probe.session_id().is_some() {
        probe.delete(&Tweaks::default());
        // The DELETE is sent before the transport is dropped; its answer does not matter.
        let _ = probe.recv(Duration::from_millis(500)).await;
    }
    drop(probe);
    if !(400..500).contains(&status) {
        return Ok((Flavor::Streamable, None));
    }
    // 401 is a protected server's answer to a request without a token (`basic/authorization.mdx`),
    // not an old transport's: both transports would answer it alike.
    if status == 401 {
        let note = format!(
            "POST {} got 401 (the server wants a token): taking it for Streamable HTTP (name \
             --transport sse for HTTP+SSE)",
            options.url
        );
        return Ok((Flavor::Streamable, Some(note)));
    }
    let legacy = HttpClientOptions { flavor: Flavor::LegacySse, ..options.clone() };
    match HttpClientTransport::connect(legacy).await {
        Ok(_) => Ok((
            Flavor::LegacySse,
            Some(format!(
                "POST {} got {status}, and a GET opened an SSE stream with an endpoint event: \
                 falling back to the HTTP+SSE transport (2024-11-05)",
                options.url
            )),
        )),
        Err(e) => Err(Detection::Unclear(format!(
            "POST {} got {status}, and the HTTP+SSE fallback failed too: {e}",
            options.url
        ))),
    }
}

/// A server process that listens on HTTP, started for a whole run.
pub struct ServedProcess {
    child: ChildTransport,
}

impl ServedProcess {
    /// Starts `command` with `{port}` in its arguments replaced by `port` and `PORT` set, and
    /// waits at most `within` until 127.0.0.1:`port` accepts connections.
    pub async fn start(
        command: &CommandSpec,
        port: u16,
        options: ChildOptions,
        within: Duration,
    ) -> Result<ServedProcess, String> {
        let mut spec = command.clone();
        let port_text = port.to_string();
        for arg in &mut spec.args {
            if let Some(s) = arg.to_str().filter(|s| s.contains(PORT_PLACEHOLDER)) {
                *arg = s.replace(PORT_PLACEHOLDER, &port_text).into();
            }
        }
        spec.env.push(("PORT".into(), port_text.into()));
        // Its stdout is a log (a line per request, for many web frameworks), never messages.
        let options = ChildOptions { stdout: StdoutUse::Log, ..options };
        let mut child = ChildTransport::spawn(&spec, options).map_err(|e| e.to_string())?;
        crate::session::starts::count_start();
        let deadline = Instant::now() + within;
        loop {
            if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
                return Ok(ServedProcess { child });
            }
            if let Some(status) = child.try_exit() {
                let stderr = child.stderr_tail();
                let last = stderr.trim().lines().last().unwrap_or("").to_owned();
                return Err(format!(
                    "{} {} before listening on port {port}; last stderr line: {last}",
                    spec.display(),
                    mcpspec_reference::transport::child::describe_status(status)
                ));
            }
            if Instant::now() >= deadline {
                child.shutdown().await;
                return Err(format!("{} did not listen on port {port} within {within:?}", spec.display()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Ends the process (SIGTERM, then SIGKILL: closing its stdin means nothing to an HTTP
    /// server).
    pub async fn stop(mut self) -> ShutdownReport {
        self.child.terminate().await
    }

    pub fn stderr_tail(&self) -> String {
        self.child.stderr_tail()
    }

    /// How it ended, if it has (without waiting).
    pub fn try_exit(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_exit()
    }

    /// How it ended, waiting at most `within` for it to be reaped.
    pub async fn wait_exit(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        self.child.wait_exit(within).await
    }

    /// What it wrote to stderr since the last call.
    pub fn take_stderr(&self) -> String {
        self.child.take_stderr()
    }

    /// What it wrote to stderr since the last call, to the end of the stream (a process that
    /// died), waiting at most `within`.
    pub async fn take_stderr_to_end(&mut self, within: Duration) -> String {
        self.child.take_stderr_to_end(within).await
    }
}

/// A port on 127.0.0.1 free a moment ago (the kernel's choice for port 0).
pub fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind(("127.0.0.1", 0))?.local_addr()?.port())
}

/// `Name: value` as a header.
pub fn parse_header(text: &str) -> Result<(HeaderName, HeaderValue), String> {
    let (name, value) = text.split_once(':').ok_or_else(|| format!("{text:?} is not `Name: value`"))?;
    let name =
        HeaderName::from_bytes(name.trim().as_bytes()).map_err(|e| format!("{:?}: {e}", name.trim()))?;
    let mut value = HeaderValue::from_str(value.trim()).map_err(|e| format!("the value of {name}: {e}"))?;
    // Never shown in debug output either: it is often a secret.
    value.set_sensitive(true);
    Ok((name, value))
}
