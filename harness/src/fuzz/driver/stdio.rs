//! The implementation under fuzzing, as a long-lived child process over stdio.
//!
//! Throughput comes from pipelining: a window of inputs is written back to back (draining what
//! the implementation answers between writes, so neither side blocks on a full pipe), then one
//! barrier request, and the window is judged when the barrier is answered. A window costs one
//! round trip however many inputs it holds; a process costs one start however many windows it
//! serves, and is started again only after it crashed or hung.
//!
//! The barrier is `ping` in the legacy era (which "MUST respond promptly",
//! `basic/utilities/ping.mdx`) and `server/discover` in the modern era, which removed ping.
//! Setup is the legacy handshake (`initialize`, its answer awaited, `notifications/initialized`)
//! or nothing in the modern era, where every request carries its own `_meta`.

use super::{
    answer_to, discover, initialize, is_answer_to, request_meta, tail, DriverConfig, Outcome, StartError,
};
use crate::fuzz::coverage::{self, Probe, Reached};
use crate::fuzz::oracle::{Trip, Watch};
use crate::fuzz::signature::{has_panic, Oracle};
use crate::fuzz::Input;
use mcpspec_protocol::framing::{self, Frame, FrameContent};
use mcpspec_protocol::{modern, Era};
use mcpspec_reference::transport::{
    child::describe_status, ChildOptions, ChildTransport, CommandSpec, RecvError, SendError, StdoutUse,
};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// One implementation process and its session.
pub struct StdioDriver {
    config: Arc<DriverConfig>,
    command: CommandSpec,
    child: Option<ChildTransport>,
    /// The running process's coverage (`--coverage`).
    probe: Option<Probe>,
    watch: Watch,
    barriers: u64,
    /// The process was started without setup and has not answered yet.
    starting: bool,
    /// How many times a process was started.
    pub starts: u64,
    /// The `initialize` (or `server/discover`) result of the current process.
    pub server_description: Option<Value>,
}

impl StdioDriver {
    pub fn new(config: Arc<DriverConfig>, command: CommandSpec) -> StdioDriver {
        let watch = Watch::new(config.revision, config.schemas.clone());
        StdioDriver {
            config,
            command,
            child: None,
            probe: None,
            watch,
            barriers: 0,
            starting: false,
            starts: 0,
            server_description: None,
        }
    }

    pub fn config(&self) -> &DriverConfig {
        &self.config
    }

    fn options(&self) -> ChildOptions {
        ChildOptions {
            max_message_bytes: self.config.max_message_bytes,
            write_timeout: self.config.hang_timeout,
            shutdown_grace: Duration::from_millis(500),
            stderr_tail_bytes: 16 * 1024,
            frame_queue: 1024,
            stdout: StdoutUse::Messages,
            ..ChildOptions::default()
        }
    }

    /// A process with its session set up (legacy: initialized), started when there is none.
    pub async fn ensure_started(&mut self) -> Result<(), StartError> {
        if self.child.is_some() {
            return Ok(());
        }
        self.start(true).await
    }

    async fn start(&mut self, setup: bool) -> Result<(), StartError> {
        self.stop().await;
        let (command, pending) = match &self.config.coverage {
            Some(config) => {
                let (command, pending) =
                    coverage::prepare(config, &self.command).map_err(StartError::Spawn)?;
                (command, Some(pending))
            }
            None => (self.command.clone(), None),
        };
        let mut child =
            ChildTransport::spawn(&command, self.options()).map_err(|e| StartError::Spawn(e.to_string()))?;
        self.starts += 1;
        if let Some(pending) = pending {
            match pending.attach(&mut child, self.config.start_timeout).await {
                Ok(probe) => self.probe = Some(probe),
                Err(why) => {
                    child.terminate().await;
                    return Err(StartError::Setup(format!("--coverage: {why}")));
                }
            }
        }
        self.child = Some(child);
        // Without setup, the first barrier also waits for the process to start.
        self.starting = !setup;
        self.watch = Watch::new(self.config.revision, self.config.schemas.clone());
        self.server_description = None;
        if setup {
            let description = self.setup().await;
            match description {
                Ok(d) => self.server_description = Some(d),
                Err(mut why) => {
                    if let Some(left) = self.stop().await {
                        why.push_str(&format!("; left running outside its process group: {left}"));
                    }
                    return Err(StartError::Setup(why));
                }
            }
        }
        Ok(())
    }

    /// The legacy handshake, or in the modern era `server/discover`: the result that
    /// describes the server.
    async fn setup(&mut self) -> Result<Value, String> {
        let revision = self.config.revision;
        let (request, id) = match revision.era() {
            Era::Legacy => (initialize(revision), "mcpspec-init"),
            Era::Modern => (discover(revision, "mcpspec-init"), "mcpspec-init"),
        };
        if let Err(e) = self.send(&framing::encode(&request)).await {
            // A process that is gone closes its stdin before anything can be read from it: what
            // matters is how it ended, which its exit says (it may take a moment to be reaped).
            let child = self.child.as_mut().expect("started");
            return Err(match child.wait_exit(Duration::from_millis(500)).await {
                Some(status) => format!(
                    "it {} before reading {}; stderr: {}",
                    describe_status(status),
                    request["method"],
                    tail(&child.take_stderr())
                ),
                None => format!("writing {}: {e}", request["method"]),
            });
        }
        let deadline = Instant::now() + self.config.start_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let child = self.child.as_mut().expect("started");
            let frame = match child.recv(left).await {
                Ok(frame) => frame,
                Err(RecvError::Closed) => {
                    let status = child.wait_exit(Duration::from_millis(500)).await;
                    let stderr = child.take_stderr();
                    return Err(format!(
                        "it ended ({}) before answering; stderr: {}",
                        status.map(describe_status).unwrap_or_else(|| "stdout closed".into()),
                        tail(&stderr)
                    ));
                }
                Err(_) => {
                    let within = self.config.start_timeout;
                    return Err(match (child.try_exit(), child.stdin_unread()) {
                        (Some(status), _) => {
                            format!("it {} without answering within {within:?}", describe_status(status))
                        }
                        (None, Some(unread)) if unread > 0 => {
                            format!("no answer within {within:?}: it never read its stdin ({unread} bytes unread)")
                        }
                        _ => format!("no answer within {within:?}"),
                    });
                }
            };
            self.watch.received(&frame);
            let FrameContent::Json { value, .. } = &frame.content else { continue };
            if value.get("id") == Some(&json!(id)) {
                let Some(result) = value.get("result") else {
                    return Err(format!(
                        "it answered with an error: {}",
                        value.get("error").unwrap_or(&Value::Null)
                    ));
                };
                if revision.era() == Era::Legacy {
                    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
                    self.send(&framing::encode(&initialized))
                        .await
                        .map_err(|e| format!("writing initialized: {e}"))?;
                }
                self.watch.take_trips();
                return Ok(result.clone());
            }
        }
    }

    /// Writes the inputs into the running session, then a barrier, and judges the window.
    pub async fn run(&mut self, inputs: &[&Input]) -> Result<Outcome, StartError> {
        self.ensure_started().await?;
        Ok(self.window(inputs).await)
    }

    /// Runs one input on a process of its own, the way a reproducer replays: started, set up
    /// unless the input is `fresh`, the input, a barrier. The process is ended after.
    pub async fn run_alone(&mut self, input: &Input) -> Result<Outcome, StartError> {
        self.start(!input.fresh).await?;
        let outcome = self.window(&[input]).await;
        self.stop().await;
        Ok(outcome)
    }

    async fn window(&mut self, inputs: &[&Input]) -> Outcome {
        let start = Instant::now();
        let mut outcome = Outcome::default();
        // Whole lines of consecutive inputs go out in one write: a pipe keeps no write
        // boundaries, and a system call per line costs more than the server's work. An input
        // that splits a line over writes keeps its writes, each flushed on its own.
        let mut pending: Vec<u8> = Vec::new();
        for (place, input) in inputs.iter().enumerate() {
            self.watch.mark_input(place);
            let splits = input.writes.len() > 1 && input.writes.iter().any(|w| !w.ends_with(b"\n"));
            for write in input.writes.iter().filter(|w| !w.is_empty()) {
                self.watch.sent(write);
                if splits {
                    if let Err(e) = self.flush(&mut pending).await {
                        return self.ended(outcome, start, e).await;
                    }
                    pending.extend_from_slice(write);
                    if let Err(e) = self.flush(&mut pending).await {
                        return self.ended(outcome, start, e).await;
                    }
                } else {
                    pending.extend_from_slice(write);
                }
            }
            if pending.len() >= 64 * 1024 {
                if let Err(e) = self.flush(&mut pending).await {
                    return self.ended(outcome, start, e).await;
                }
            }
        }
        // A tail without its newline would swallow the barrier's line.
        if self.watch.in_line() {
            self.watch.sent(b"\n");
            pending.push(b'\n');
        }
        self.barriers += 1;
        let id = format!("mcpspec-barrier-{}", self.barriers);
        let barrier = match self.config.revision.era() {
            Era::Legacy => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
            Era::Modern => discover(self.config.revision, &id),
        };
        let barrier = framing::encode(&barrier);
        self.watch.sent(&barrier);
        pending.extend_from_slice(&barrier);
        if let Err(e) = self.flush(&mut pending).await {
            return self.ended(outcome, start, e).await;
        }
        let wait = match std::mem::take(&mut self.starting) {
            true => self.config.hang_timeout + self.config.start_timeout,
            false => self.config.hang_timeout,
        };
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let child = self.child.as_mut().expect("started");
            match child.recv(left).await {
                Ok(frame) => {
                    let answered = is_answer_to(&frame, &id);
                    self.receive(&frame).await;
                    if answered {
                        break;
                    }
                }
                Err(RecvError::Closed) => return self.ended(outcome, start, Ended::Closed).await,
                Err(_) => return self.ended(outcome, start, Ended::Silent).await,
            }
        }
        outcome.elapsed = start.elapsed();
        outcome.trips.extend(self.watch.take_trips());
        outcome.stderr = self.child.as_ref().map(ChildTransport::take_stderr).unwrap_or_default();
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

    /// Writes what is pending (already shown to the watch), then reads what is already there,
    /// answering the implementation's own requests.
    async fn flush(&mut self, pending: &mut Vec<u8>) -> Result<(), Ended> {
        if pending.is_empty() {
            return Ok(());
        }
        let Some(child) = self.child.as_mut() else { return Err(Ended::Closed) };
        let written = child.send_bytes(pending).await;
        pending.clear();
        match written {
            Ok(()) => {}
            Err(SendError::Timeout { .. }) => return Err(Ended::NotReading),
            Err(_) => return Err(Ended::Closed),
        }
        loop {
            let Some(child) = self.child.as_mut() else { return Ok(()) };
            match child.try_recv() {
                Ok(frame) => self.receive(&frame).await,
                // Closed: the window's end finds out how and why.
                Err(_) => return Ok(()),
            }
        }
    }

    async fn receive(&mut self, frame: &Frame) {
        for request in self.watch.received(frame) {
            let answer = answer_to(&request);
            // An implementation that stops reading shows at the barrier.
            let _ = self.send(&framing::encode(&answer)).await;
        }
    }

    async fn send(&mut self, bytes: &[u8]) -> Result<(), Ended> {
        let Some(child) = self.child.as_mut() else { return Err(Ended::Closed) };
        self.watch.sent(bytes);
        match child.send_bytes(bytes).await {
            Ok(()) => Ok(()),
            Err(SendError::Timeout { .. }) => Err(Ended::NotReading),
            Err(_) => Err(Ended::Closed),
        }
    }

    /// The process died, stopped reading or went silent: a crash or a hang, and the process
    /// is gone either way (the next window starts another).
    async fn ended(&mut self, mut outcome: Outcome, start: Instant, how: Ended) -> Outcome {
        let unanswered = self.watch.unanswered();
        let method = unanswered.first().cloned();
        outcome.trips.extend(self.watch.take_trips());
        // A process with a debugger attached waits for it to leave before it exits.
        self.probe = None;
        let mut child = self.child.take().expect("started");
        let status = match how {
            Ended::Closed => child.wait_exit(Duration::from_millis(500)).await,
            _ => child.try_exit(),
        };
        let waiting = if unanswered.is_empty() {
            String::new()
        } else {
            format!("; unanswered: {}", unanswered.join(", "))
        };
        let trip = match status {
            Some(status) => Trip {
                oracle: Oracle::Crash,
                method,
                detail: format!("the process {}{waiting}", describe_status(status)),
                message: None,
            },
            None => {
                let what = match how {
                    Ended::NotReading => {
                        format!("stopped reading its input (a write waited {:?})", self.config.hang_timeout)
                    }
                    Ended::Closed => "closed its output and lives on".to_owned(),
                    Ended::Silent => {
                        format!("did not answer the barrier within {:?}", self.config.hang_timeout)
                    }
                };
                Trip {
                    oracle: Oracle::Hang,
                    method,
                    detail: format!("the process {what}{waiting}"),
                    message: None,
                }
            }
        };
        // What it wrote while dying, to the end of its stderr; or, hung, what it wrote before
        // it is stopped (not what stopping it makes it say).
        outcome.stderr = match status {
            Some(_) => child.take_stderr_to_end(Duration::from_millis(500)).await,
            None => child.take_stderr(),
        };
        outcome.trips.push(trip);
        child.terminate().await;
        outcome.elapsed = start.elapsed();
        outcome
    }

    /// What each answered request of the last window came back as (see
    /// [`Watch::take_shapes`]).
    pub fn take_shapes(&mut self) -> Vec<(usize, String)> {
        self.watch.take_shapes()
    }

    /// One request of the driver's own in the running session (listing what the server
    /// offers): its result, or `None` when it answered with an error or not in time.
    pub async fn call(&mut self, method: &str, params: Value) -> Option<Value> {
        self.ensure_started().await.ok()?;
        self.barriers += 1;
        let id = format!("mcpspec-call-{}", self.barriers);
        let params = match self.config.revision.era() {
            Era::Legacy => params,
            Era::Modern => modern::with_request_meta(Some(params), &request_meta(self.config.revision)),
        };
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send(&framing::encode(&request)).await.ok()?;
        let deadline = Instant::now() + self.config.start_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let frame = self.child.as_mut()?.recv(left).await.ok()?;
            self.receive(&frame).await;
            if is_answer_to(&frame, &id) {
                self.watch.take_trips();
                let FrameContent::Json { value, .. } = frame.content else { return None };
                return value.get("result").cloned();
            }
        }
    }

    /// The code the process reached since the last take (`--coverage`).
    pub async fn take_coverage(&mut self) -> Option<Reached> {
        self.child.as_ref()?;
        self.probe.as_mut()?.take(self.config.hang_timeout).await
    }

    /// Ends the process, if one runs; names what it left running outside its process group.
    pub async fn stop(&mut self) -> Option<String> {
        self.probe = None;
        let mut child = self.child.take()?;
        let end = child.terminate().await;
        (!end.left.is_empty()).then(|| end.left.join(", "))
    }
}

#[derive(Debug, Clone, Copy)]
enum Ended {
    /// stdout closed, or stdin refused a write.
    Closed,
    /// A write timed out: it is not reading.
    NotReading,
    /// No barrier answer in time.
    Silent,
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Ended::Closed => "the pipe is closed",
            Ended::NotReading => "the write timed out",
            Ended::Silent => "no answer",
        })
    }
}
