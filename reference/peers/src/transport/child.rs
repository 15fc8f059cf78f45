//! The stdio transport from the client's side: the implementation under test runs as a child
//! process, in a process group of its own, and mcpspec talks to it over its stdin and stdout.
//!
//! Everything is bounded: reads wait at most the caller's timeout, writes at most the write
//! timeout, stdout is decoded by a [`Reassembler`] (the line decoder, with messages split over
//! lines made whole again and flagged) with a maximum message size, stderr keeps
//! only its last bytes. Shutdown follows the spec (`basic/lifecycle.mdx`, Shutdown, stdio):
//! close stdin, wait, SIGTERM, wait, SIGKILL; SIGKILL goes to the whole process group, and the
//! group is killed again when the transport is dropped, so no process outlives it.

use super::{RecvError, SendError};
use mcpspec_protocol::framing::{Frame, DEFAULT_MAX_MESSAGE_BYTES};
use mcpspec_protocol::reassembly::Reassembler;
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{mpsc, OwnedSemaphorePermit, Semaphore, SemaphorePermit};
use tokio::task::JoinHandle;

/// The command line of an implementation under test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandSpec {
    pub program: OsString,
    pub args: Vec<OsString>,
    /// Extra environment variables.
    pub env: Vec<(OsString, OsString)>,
    pub cwd: Option<PathBuf>,
}

impl CommandSpec {
    /// `argv[0]` is the program, the rest its arguments. `None` for an empty argv.
    pub fn from_argv<I, S>(argv: I) -> Option<CommandSpec>
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        let mut it = argv.into_iter().map(Into::into);
        let program = it.next()?;
        Some(CommandSpec { program, args: it.collect(), env: Vec::new(), cwd: None })
    }

    /// The command as a shell-like string, for reports.
    pub fn display(&self) -> String {
        std::iter::once(&self.program)
            .chain(&self.args)
            .map(|a| {
                let s = a.to_string_lossy();
                if s.is_empty() || s.contains(|c: char| c.is_whitespace() || c == '\'' || c == '"') {
                    format!("'{}'", s.replace('\'', r"'\''"))
                } else {
                    s.into_owned()
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Limits of one child-process session.
#[derive(Debug, Clone)]
pub struct ChildOptions {
    pub max_message_bytes: usize,
    /// How long one write may wait for the child to read.
    pub write_timeout: Duration,
    /// How long each shutdown stage waits for the child to exit.
    pub shutdown_grace: Duration,
    /// How many of the last stderr bytes (and stdout bytes, when stdout is a log) to keep.
    pub stderr_tail_bytes: usize,
    /// How many decoded frames may wait unread before the stdout reader stops reading (the
    /// child then blocks on its writes: a flood costs bounded memory).
    pub frame_queue: usize,
    /// How many bytes of decoded frames ([`Frame::weight`]) may wait unread before the stdout
    /// reader stops reading; a frame larger than this still passes, alone. Without it, a child
    /// answering with 4 MiB results would have 256 of them decoded ahead of its reader.
    pub queued_bytes: usize,
    /// What the child's stdout carries.
    pub stdout: StdoutUse,
}

/// What a child's stdout carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StdoutUse {
    /// Messages, decoded into frames for [`ChildTransport::recv`] (a stdio peer).
    #[default]
    Messages,
    /// A log nobody receives as messages (a server reached over HTTP, whose web framework
    /// writes a line per request there): read as it comes into the same bounded tail as stderr.
    /// Left as messages, the unread frames would fill the queue and then the pipe, and the
    /// child would block on its next write to stdout (a Python server stopped answering every
    /// request after about 80 KB of access log).
    Log,
}

impl Default for ChildOptions {
    fn default() -> Self {
        ChildOptions {
            max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
            write_timeout: Duration::from_secs(5),
            shutdown_grace: Duration::from_secs(2),
            stderr_tail_bytes: 16 * 1024,
            frame_queue: 256,
            queued_bytes: 1 << 20,
            stdout: StdoutUse::Messages,
        }
    }
}

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpawnError {
    /// The program could not be started (not found, not executable, …).
    #[error("could not start {command}: {source}")]
    Spawn { command: String, source: std::io::Error },
}

/// Which shutdown stage ended the child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    /// It had exited before shutdown began.
    AlreadyExited,
    /// It exited after its stdin was closed, as the spec expects.
    StdinClosed,
    /// It needed SIGTERM.
    Sigterm,
    /// It ended on SIGTERM sent at once, with its stdin closed ([`ChildTransport::terminate`]).
    Stopped,
    /// It needed SIGKILL.
    Sigkill,
    /// It survived SIGKILL within the grace period (stuck in the kernel); given up on.
    Unkillable,
}

/// How a child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShutdownReport {
    pub stage: Stage,
    pub status: Option<ExitStatus>,
    /// Processes outside the child's process group (one that left it with `setsid`) that still
    /// held its pipes once the group was killed: `pid 123 (sleep 300)`. mcpspec cannot end
    /// what left its group without guessing; it names them.
    pub left: Vec<String>,
}

impl ShutdownReport {
    /// "exited with status 0 after its stdin was closed", "needed SIGKILL (killed by …)".
    pub fn describe(&self) -> String {
        let status = match self.status {
            Some(s) => describe_status(s),
            None => "still running".to_owned(),
        };
        let mut text = match self.stage {
            Stage::AlreadyExited => format!("{status} before shutdown began"),
            Stage::StdinClosed => format!("{status} after its stdin was closed"),
            Stage::Sigterm => format!("needed SIGTERM ({status})"),
            Stage::Stopped => format!("ended by SIGTERM with its stdin closed ({status})"),
            Stage::Sigkill => format!("needed SIGKILL ({status})"),
            Stage::Unkillable => format!("survived SIGKILL ({status})"),
        };
        if !self.left.is_empty() {
            text.push_str(&format!(
                "; left running outside its process group, holding its pipes: {}",
                self.left.join(", ")
            ));
        }
        text
    }
}

/// "exited with status 3", "killed by signal SIGKILL".
pub fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with status {code}"),
        (None, Some(sig)) => match Signal::try_from(sig) {
            Ok(s) => format!("killed by signal {s}"),
            Err(_) => format!("killed by signal {sig}"),
        },
        _ => format!("ended ({status})"),
    }
}

/// A running implementation under test, spoken to over its stdio.
pub struct ChildTransport {
    child: Child,
    pgid: Pid,
    stdin: Option<ChildStdin>,
    /// Each frame with its share of [`ChildOptions::queued_bytes`], given back as it is taken.
    frames: mpsc::Receiver<(Frame, Share)>,
    stderr: Arc<Mutex<StderrTail>>,
    readers: Vec<JoinHandle<()>>,
    /// Which of `readers` reads stderr, until [`Self::take_stderr_to_end`] has waited for it.
    stderr_reader: Option<usize>,
    exit: Option<ExitStatus>,
    options: ChildOptions,
    command: String,
    /// The pipes between mcpspec and the child (`pipe:[inode]`, as /proc shows them), to find
    /// who still holds them once the child's group is gone ([`pipe_holders`]).
    pipes: Vec<String>,
    /// Whether a shutdown has looked for processes left holding the pipes already.
    left_sought: bool,
}

impl ChildTransport {
    /// Starts the command in a new process group with piped stdin, stdout and stderr.
    pub fn spawn(spec: &CommandSpec, options: ChildOptions) -> Result<ChildTransport, SpawnError> {
        let mut cmd = Command::new(&spec.program);
        cmd.args(&spec.args)
            .envs(spec.env.iter().map(|(k, v)| (k, v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(true);
        if let Some(dir) = &spec.cwd {
            cmd.current_dir(dir);
        }
        let command = spec.display();
        let mut child =
            cmd.spawn().map_err(|source| SpawnError::Spawn { command: command.clone(), source })?;
        // `process_group(0)` makes the child the leader of a group whose id is its pid.
        let pgid = Pid::from_raw(child.id().map(|id| id as i32).unwrap_or(0));
        let pipes = {
            use std::os::fd::AsRawFd as _;
            let fds = [
                child.stdin.as_ref().map(|p| p.as_raw_fd()),
                child.stdout.as_ref().map(|p| p.as_raw_fd()),
                child.stderr.as_ref().map(|p| p.as_raw_fd()),
            ];
            fds.into_iter().flatten().filter_map(pipe_name).collect()
        };
        let stdin = child.stdin.take();
        let (tx, frames) = mpsc::channel(options.frame_queue.max(1));
        let stderr = Arc::new(Mutex::new(StderrTail::new(options.stderr_tail_bytes)));
        let mut readers = Vec::new();
        if let Some(out) = child.stdout.take() {
            readers.push(match options.stdout {
                StdoutUse::Messages => tokio::spawn(read_frames(
                    out,
                    options.max_message_bytes,
                    Queue::new(tx, options.queued_bytes),
                )),
                StdoutUse::Log => tokio::spawn(read_into_tail(out, stderr.clone())),
            });
        }
        let mut stderr_reader = None;
        if let Some(err) = child.stderr.take() {
            stderr_reader = Some(readers.len());
            readers.push(tokio::spawn(read_into_tail(err, stderr.clone())));
        }
        Ok(ChildTransport {
            child,
            pgid,
            stdin,
            frames,
            stderr,
            readers,
            stderr_reader,
            exit: None,
            options,
            command,
            pipes,
            left_sought: false,
        })
    }

    /// The command line, for reports.
    pub fn command(&self) -> &str {
        &self.command
    }

    /// The process group the child leads (its pid); 0 if it had none.
    pub fn process_group(&self) -> i32 {
        self.pgid.as_raw()
    }

    /// Writes one message as a line.
    pub async fn send(&mut self, message: &Value) -> Result<(), SendError> {
        self.send_bytes(&mcpspec_protocol::framing::encode(message)).await
    }

    /// Writes raw bytes (for malformed input on purpose).
    pub async fn send_bytes(&mut self, bytes: &[u8]) -> Result<(), SendError> {
        let timeout = self.options.write_timeout;
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(SendError::Closed(std::io::ErrorKind::BrokenPipe.into()));
        };
        let write = async {
            stdin.write_all(bytes).await?;
            stdin.flush().await
        };
        match tokio::time::timeout(timeout, write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(SendError::Closed(e)),
            Err(_) => Err(SendError::Timeout { bytes: bytes.len(), timeout }),
        }
    }

    /// The next frame from stdout, waiting at most `timeout`. With no time left (a zero
    /// `timeout`) it is a timeout even when frames are queued: callers pass what is left of a
    /// deadline, and against a child that floods stdout the queue is never empty, while
    /// `tokio::time::timeout` tries the queue before the clock.
    pub async fn recv(&mut self, timeout: Duration) -> Result<Frame, RecvError> {
        self.recv_holding(timeout).await.map(|(frame, _)| frame)
    }

    /// [`Self::recv`], with the frame's place among the process's large lines, for a consumer
    /// that holds it until it is done with the frame: one that keeps the frame unread for a
    /// while (a shared process's inboxes), or judges it.
    pub async fn recv_holding(&mut self, timeout: Duration) -> Result<(Frame, LargePlace), RecvError> {
        if timeout.is_zero() {
            return Err(RecvError::Timeout(timeout));
        }
        match tokio::time::timeout(timeout, self.frames.recv()).await {
            Ok(Some((frame, share))) => Ok((frame, share.large)),
            Ok(None) => Err(RecvError::Closed),
            Err(_) => Err(RecvError::Timeout(timeout)),
        }
    }

    /// A frame already read from stdout, without waiting: for a writer that drains what the
    /// child answers between its writes, so neither side blocks on a full pipe.
    pub fn try_recv(&mut self) -> Result<Frame, RecvError> {
        match self.frames.try_recv() {
            Ok((frame, _share)) => Ok(frame),
            Err(mpsc::error::TryRecvError::Empty) => Err(RecvError::Timeout(Duration::ZERO)),
            Err(mpsc::error::TryRecvError::Disconnected) => Err(RecvError::Closed),
        }
    }

    /// The write end of the child's stdin while it is open, for a test peer that hands it on
    /// (the reference client's fault that leaves it open in a process of its own).
    pub fn stdin_fd(&self) -> Option<std::os::fd::BorrowedFd<'_>> {
        use std::os::fd::AsFd as _;
        self.stdin.as_ref().map(|s| s.as_fd())
    }

    /// How many bytes written to the child's stdin it has not read yet (`None` once stdin is
    /// closed, or when the kernel does not say): a child that never reads keeps them all.
    pub fn stdin_unread(&self) -> Option<usize> {
        use std::os::fd::AsRawFd as _;
        let fd = self.stdin.as_ref()?.as_raw_fd();
        let mut unread: nix::libc::c_int = 0;
        // SAFETY: FIONREAD writes one c_int through the pointer, which points at one; `fd` is
        // open for as long as `self.stdin` holds it.
        let rc = unsafe { nix::libc::ioctl(fd, nix::libc::FIONREAD, &mut unread) };
        (rc == 0).then_some(unread.max(0) as usize)
    }

    /// Closes the child's stdin (end of file on its side).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Waits at most `timeout` for the child to exit.
    pub async fn wait_exit(&mut self, timeout: Duration) -> Option<ExitStatus> {
        if self.exit.is_none() {
            if let Ok(Ok(status)) = tokio::time::timeout(timeout, self.child.wait()).await {
                self.exit = Some(status);
            }
        }
        self.exit
    }

    /// Whether the child has exited, without waiting.
    pub fn try_exit(&mut self) -> Option<ExitStatus> {
        if self.exit.is_none() {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.exit = Some(status);
            }
        }
        self.exit
    }

    /// The last bytes the child wrote to stderr (and to stdout, when it is a log), lossily decoded.
    pub fn stderr_tail(&self) -> String {
        self.stderr.lock().map(|t| t.text()).unwrap_or_default()
    }

    /// The stderr bytes kept since the last call (at most the tail's size), lossily decoded,
    /// and forgets them: what the child wrote while one input was handled.
    pub fn take_stderr(&self) -> String {
        self.stderr
            .lock()
            .map(|mut t| {
                let text = t.text();
                t.bytes.clear();
                t.dropped = 0;
                text
            })
            .unwrap_or_default()
    }

    /// [`Self::take_stderr`] once stderr has reached its end (the child exited: what it wrote
    /// while dying is all there), waiting at most `within` (a grandchild may hold it open).
    pub async fn take_stderr_to_end(&mut self, within: Duration) -> String {
        if let Some(reader) = self.stderr_reader.take() {
            let _ = tokio::time::timeout(within, &mut self.readers[reader]).await;
        }
        self.take_stderr()
    }

    /// Ends the child as the spec says: close stdin, wait, SIGTERM, wait, SIGKILL. Whatever
    /// stage ended it, the rest of its process group is killed too.
    pub async fn shutdown(&mut self) -> ShutdownReport {
        let grace = self.options.shutdown_grace;
        let report = if let Some(status) = self.try_exit() {
            ShutdownReport { stage: Stage::AlreadyExited, status: Some(status), left: Vec::new() }
        } else {
            self.close_stdin();
            match self.wait_exit(grace).await {
                Some(status) => {
                    ShutdownReport { stage: Stage::StdinClosed, status: Some(status), left: Vec::new() }
                }
                None => self.signal_stages(Stage::Sigterm).await,
            }
        };
        self.signal_group(Signal::SIGKILL);
        self.close_stdin();
        self.name_the_left(report).await
    }

    /// Once the group is killed, its pipes close — unless a process outside the group holds
    /// them (a grandchild that called `setsid`): those are named in the report. Only looked for
    /// when stdout is still open a moment after the kill, so a clean end costs no /proc scan.
    async fn name_the_left(&mut self, mut report: ShutdownReport) -> ShutdownReport {
        self.left_sought = true;
        let Some(stdout_reader) = self.readers.first() else { return report };
        for _ in 0..10 {
            if stdout_reader.is_finished() {
                return report;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        report.left = pipe_holders(&self.pipes, self.pgid.as_raw());
        report
    }

    /// Ends the child without waiting for it to exit on its own: SIGTERM to its process group
    /// with its stdin closed at the same moment (a child that ignores the signal still reads
    /// its end of file), then SIGKILL after the grace. For a peer whose ending nothing is
    /// judged on: a client under test (its stdin is not its MCP connection), or a server once
    /// its scenarios are over — how a server exits on its own once stdin closes is what a
    /// scenario tests, and waiting for it everywhere else is costly: a Python SDK server spends
    /// 0.26 s of CPU doing so, against 0.45 s for its start and handshake (issue #31: 8
    /// processes at once, one run). The rest of its process group is killed too.
    pub async fn terminate(&mut self) -> ShutdownReport {
        let report = match self.try_exit() {
            Some(status) => {
                ShutdownReport { stage: Stage::AlreadyExited, status: Some(status), left: Vec::new() }
            }
            None => self.signal_stages(Stage::Stopped).await,
        };
        self.signal_group(Signal::SIGKILL);
        self.close_stdin();
        self.name_the_left(report).await
    }

    /// SIGTERM to the process group (its stdin closed too), wait, SIGKILL, wait: the report of
    /// whichever ended it, `on_sigterm` the stage if SIGTERM did.
    async fn signal_stages(&mut self, on_sigterm: Stage) -> ShutdownReport {
        let grace = self.options.shutdown_grace;
        self.signal_group(Signal::SIGTERM);
        self.close_stdin();
        if let Some(status) = self.wait_exit(grace).await {
            return ShutdownReport { stage: on_sigterm, status: Some(status), left: Vec::new() };
        }
        self.signal_group(Signal::SIGKILL);
        match self.wait_exit(grace).await {
            Some(status) => ShutdownReport { stage: Stage::Sigkill, status: Some(status), left: Vec::new() },
            None => ShutdownReport { stage: Stage::Unkillable, status: None, left: Vec::new() },
        }
    }

    fn signal_group(&self, signal: Signal) {
        if self.pgid.as_raw() > 0 {
            // ESRCH (no such group: everyone has exited) is the expected, happy failure.
            let _ = killpg(self.pgid, signal);
        }
    }
}

impl Drop for ChildTransport {
    fn drop(&mut self) {
        self.signal_group(Signal::SIGKILL);
        // A transport dropped before its shutdown (a run stopped by a signal, its deadline or its
        // gate) still says what it could not end: whoever holds its pipes outside the group.
        let open = self.readers.first().is_some_and(|r| !r.is_finished());
        if open && !self.left_sought {
            let left = pipe_holders(&self.pipes, self.pgid.as_raw());
            if !left.is_empty() {
                eprintln!(
                    "mcpspec: {} left running outside its process group, holding its pipes: {}",
                    self.command,
                    left.join(", ")
                );
            }
        }
        for r in &self.readers {
            r.abort();
        }
    }
}

/// `pipe:[inode]` for a pipe's file descriptor in this process, as /proc names it.
fn pipe_name(fd: std::os::fd::RawFd) -> Option<String> {
    let link = std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()?;
    let name = link.to_string_lossy().into_owned();
    name.starts_with("pipe:").then_some(name)
}

/// The processes, outside process group `pgid` and other than this one, holding any of
/// `pipes` open: `pid 123 (sleep 300)`. Reads /proc (Linux); finds nothing elsewhere.
pub fn pipe_holders(pipes: &[String], pgid: i32) -> Vec<String> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if pid == me || !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        // Field 5 of /proc/PID/stat is the process group; the command (field 2) may hold spaces
        // and parentheses, so the fields are counted after its closing one.
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let group = stat.rsplit_once(") ").and_then(|(_, rest)| rest.split(' ').nth(2));
        if group == Some(&pgid.to_string()) || group.is_none() {
            continue;
        }
        let holds = std::fs::read_dir(entry.path().join("fd")).into_iter().flatten().flatten().any(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|l| pipes.iter().any(|p| l.as_os_str() == p.as_str()))
        });
        if holds {
            let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            found.push(format!("pid {pid} ({})", cmdline.trim()));
        }
    }
    found
}

/// A line at least this long is *large*: only [`LARGE_LINES_AT_ONCE`] of them are read, or
/// wait to be taken and judged, at once in the whole process. A reader asks for a place once
/// this much of a line is buffered, so a reader waiting for one holds little: asked at 1 MiB,
/// the readers waiting held more than the lines being read (issue #31: peak RSS with 4 MiB
/// results, 10 and 10,000 tools, all revisions, one run each: 152 and 191 MiB asking at 1 MiB
/// with 4 places, 119 and 155 at 256 KiB with 2, at the same wall time).
const LARGE_LINE: usize = 256 << 10;
/// How many large lines the children of one process may have being read or waiting, together.
/// Each child's queue holds little (`ChildOptions::queued_bytes`), but a large message still
/// passes alone, and with the one its reader decodes meanwhile, dozens of children returning
/// 4 MiB results at once held hundreds of MiB (issue #31).
const LARGE_LINES_AT_ONCE: usize = 2;
/// How long a reader waits for a place for a large line before it reads on regardless: a child
/// whose consumer is busy elsewhere must not stall the others for longer. Places come free as
/// fast as consumers judge what they took, so on a slow or loaded machine a short wait lets
/// every reader read on at once: at 500 ms, a certification with 1,000 tools returning 4 MiB
/// peaked at 275.8 MiB RSS in 54.5 s; at 5 s, 102.8 MiB in 45.6 s (dist build, a day this
/// 2-core machine ran at half its usual speed; issue #31).
const LARGE_LINE_WAIT: Duration = Duration::from_secs(5);
static LARGE_LINES: Semaphore = Semaphore::const_new(LARGE_LINES_AT_ONCE);

/// What a queued frame holds until it is taken: its room in its queue, and its place among the
/// large lines of the process if it is one and got one.
struct Share {
    _bytes: OwnedSemaphorePermit,
    large: LargePlace,
}

/// The place among the process's large lines ([`LARGE_LINES_AT_ONCE`]) of the line a frame was
/// read from, given back when dropped; empty for any other frame. [`ChildTransport::recv_holding`]
/// hands it over with the frame, so a consumer that holds the frame unread in a queue of its
/// own (a process shared by several sessions), or while it judges it, holds its place too.
#[derive(Default)]
pub struct LargePlace {
    _held: Option<SemaphorePermit<'static>>,
}

/// Where the stdout reader puts decoded frames: a queue bounded by count (the channel) and by
/// bytes (the semaphore, in KiB).
struct Queue {
    frames: mpsc::Sender<(Frame, Share)>,
    bytes: Arc<Semaphore>,
    /// The semaphore's size, in KiB.
    budget: usize,
}

impl Queue {
    fn new(frames: mpsc::Sender<(Frame, Share)>, bytes: usize) -> Queue {
        Queue { frames, bytes: Arc::new(Semaphore::new(kib(bytes))), budget: kib(bytes) }
    }

    /// Waits for room for the frame, then queues it with its place among the large lines, if
    /// any; false once nobody receives.
    async fn put(&self, frame: Frame, large: Option<SemaphorePermit<'static>>) -> bool {
        // At most the whole budget: a frame larger than it waits for an empty queue and
        // passes alone.
        let units = kib(frame.weight()).min(self.budget);
        let Ok(bytes) = self.bytes.clone().acquire_many_owned(units as u32).await else { return false };
        self.frames.send((frame, Share { _bytes: bytes, large: LargePlace { _held: large } })).await.is_ok()
    }
}

/// Bytes in KiB, at least 1, as the byte budget's semaphore counts them (its permits fit u32).
fn kib(bytes: usize) -> usize {
    (bytes / 1024).clamp(1, u32::MAX as usize)
}

async fn read_frames(mut out: impl AsyncRead + Unpin, max: usize, queue: Queue) {
    let mut decoder = Reassembler::new(max);
    let mut buf = vec![0u8; 64 * 1024];
    let mut frames = Vec::new();
    // The place of the large line being read, and whether one was asked for (once per line:
    // a reader that waited in vain reads on).
    let (mut large, mut asked) = (None, false);
    loop {
        if !asked && decoder.buffered() >= LARGE_LINE {
            asked = true;
            large =
                tokio::time::timeout(LARGE_LINE_WAIT, LARGE_LINES.acquire()).await.ok().and_then(Result::ok);
        }
        let n = match out.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        decoder.push(&buf[..n], &mut frames);
        // The large line being read ends in the first frame out (its place goes with it), or
        // was skipped as too long (its place is given back).
        for f in frames.drain(..) {
            if !queue.put(f, large.take()).await {
                return;
            }
        }
        if decoder.buffered() < LARGE_LINE {
            (large, asked) = (None, false);
        }
    }
    decoder.finish(&mut frames);
    for f in frames {
        if !queue.put(f, large.take()).await {
            return;
        }
    }
}

async fn read_into_tail(mut err: impl AsyncRead + Unpin, tail: Arc<Mutex<StderrTail>>) {
    let mut buf = vec![0u8; 16 * 1024];
    loop {
        match err.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if let Ok(mut t) = tail.lock() {
                    t.push(&buf[..n]);
                }
            }
        }
    }
}

/// The last `cap` bytes of a stream.
struct StderrTail {
    bytes: std::collections::VecDeque<u8>,
    cap: usize,
    dropped: u64,
}

impl StderrTail {
    fn new(cap: usize) -> Self {
        StderrTail { bytes: Default::default(), cap, dropped: 0 }
    }

    fn push(&mut self, chunk: &[u8]) {
        self.bytes.extend(chunk);
        while self.bytes.len() > self.cap {
            let excess = self.bytes.len() - self.cap;
            self.bytes.drain(..excess);
            self.dropped += excess as u64;
        }
    }

    fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let mut s = String::new();
        if self.dropped > 0 {
            s.push_str(&format!("[… {} earlier bytes dropped]\n", self.dropped));
        }
        s.push_str(&String::from_utf8_lossy(&[a, b].concat()));
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpspec_protocol::framing::FrameContent;
    use serde_json::json;

    fn sh(script: &str) -> CommandSpec {
        CommandSpec::from_argv(["sh", "-c", script]).unwrap()
    }

    fn quick() -> ChildOptions {
        ChildOptions { shutdown_grace: Duration::from_millis(300), ..ChildOptions::default() }
    }

    #[tokio::test]
    async fn echoes_through_cat_and_exits_on_stdin_close() {
        let mut t = ChildTransport::spawn(&sh("exec cat"), quick()).unwrap();
        t.send(&json!({"jsonrpc":"2.0","method":"x"})).await.unwrap();
        let f = t.recv(Duration::from_secs(5)).await.unwrap();
        assert!(matches!(f.content, FrameContent::Json { .. }));
        let r = t.shutdown().await;
        assert_eq!(r.stage, Stage::StdinClosed, "{}", r.describe());
    }

    #[tokio::test]
    async fn terminate_skips_the_stdin_stage() {
        // `cat` would exit on end of file; terminate does not offer it one first.
        let mut t = ChildTransport::spawn(&sh("exec cat"), quick()).unwrap();
        let r = t.terminate().await;
        assert_eq!(r.stage, Stage::Stopped, "{}", r.describe());
        let mut t = ChildTransport::spawn(&sh("exit 3"), quick()).unwrap();
        t.wait_exit(Duration::from_secs(5)).await;
        assert_eq!(t.terminate().await.stage, Stage::AlreadyExited);
    }

    #[tokio::test]
    async fn escalates_to_sigterm_then_sigkill() {
        let mut t =
            ChildTransport::spawn(&sh("trap '' TERM; while :; do sleep 0.05; done"), quick()).unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let r = t.shutdown().await;
        assert_eq!(r.stage, Stage::Sigkill, "{}", r.describe());

        let mut t = ChildTransport::spawn(&sh("exec sleep 30"), quick()).unwrap();
        let r = t.shutdown().await;
        assert_eq!(r.stage, Stage::Sigterm, "{}", r.describe());
    }

    #[tokio::test]
    async fn terminate_signals_and_closes_stdin_at_once() {
        // Waits for neither end of file nor the grace: SIGTERM ends it at once (a grace long
        // enough that a loaded machine cannot blur the two).
        let patient = ChildOptions { shutdown_grace: Duration::from_secs(10), ..ChildOptions::default() };
        let mut t = ChildTransport::spawn(&sh("exec sleep 30"), patient).unwrap();
        let began = std::time::Instant::now();
        let r = t.terminate().await;
        assert_eq!(r.stage, Stage::Stopped, "{}", r.describe());
        assert!(began.elapsed() < Duration::from_secs(5), "{:?}", began.elapsed());
        assert_eq!(r.describe(), "ended by SIGTERM with its stdin closed (killed by signal SIGTERM)");
        // One that ignores SIGTERM still reads its end of file.
        let mut t = ChildTransport::spawn(&sh("trap '' TERM; cat > /dev/null"), quick()).unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        let r = t.terminate().await;
        assert_eq!((r.stage, r.status.and_then(|s| s.code())), (Stage::Stopped, Some(0)), "{}", r.describe());
        // One that ignores both needs SIGKILL.
        let mut t =
            ChildTransport::spawn(&sh("trap '' TERM; while :; do sleep 0.05; done"), quick()).unwrap();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(t.terminate().await.stage, Stage::Sigkill);
    }

    #[tokio::test]
    async fn grandchildren_die_with_the_group() {
        let dir = std::env::temp_dir().join(format!("mcpspec-grandchild-{}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        let script = format!("sleep 30 & echo $! > {}; wait", dir.display());
        let mut t = ChildTransport::spawn(&sh(&script), quick()).unwrap();
        let mut pid = None;
        for _ in 0..100 {
            if let Ok(s) = std::fs::read_to_string(&dir) {
                if let Ok(p) = s.trim().parse::<i32>() {
                    pid = Some(p);
                    break;
                }
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let pid = pid.expect("grandchild started");
        t.shutdown().await;
        drop(t);
        let _ = std::fs::remove_file(&dir);
        // The grandchild is killed with its group; give the kernel a moment to reap it.
        let mut alive = true;
        for _ in 0..100 {
            alive = std::path::Path::new(&format!("/proc/{pid}")).exists()
                && !std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default().contains(") Z ");
            if !alive {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(!alive, "grandchild {pid} survived");
    }

    #[tokio::test]
    async fn a_flood_is_bounded_and_stderr_keeps_its_tail() {
        let opts = ChildOptions { frame_queue: 4, stderr_tail_bytes: 64, ..quick() };
        let mut t = ChildTransport::spawn(&sh("yes '{}' & yes err >&2"), opts).unwrap();
        for _ in 0..100 {
            t.recv(Duration::from_secs(5)).await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert!(t.stderr_tail().ends_with("err\n"));
        let r = t.shutdown().await;
        assert!(r.stage >= Stage::StdinClosed);
    }

    /// Large messages wait in the child's pipe once their bytes fill the queue, however few
    /// they are: with 1 MiB of room, about ten lines of 100 KiB are read ahead, not the 256
    /// the count allows; a message larger than the room still passes, alone.
    #[tokio::test]
    async fn a_flood_of_large_lines_is_bounded_by_bytes() {
        let lines = r#"x=$(head -c 102400 /dev/zero | tr '\0' a); while :; do echo "\"$x\""; done"#;
        let opts = ChildOptions { frame_queue: 256, queued_bytes: 1 << 20, ..quick() };
        let mut t = ChildTransport::spawn(&sh(lines), opts).unwrap();
        t.recv(Duration::from_secs(5)).await.expect("a first line");
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mut ahead = 0;
        while t.try_recv().is_ok() {
            ahead += 1;
        }
        assert!((5..=16).contains(&ahead), "{ahead} lines of 100 KiB read ahead with 1 MiB of room");
        t.shutdown().await;

        let big = r#"x=$(head -c 102400 /dev/zero | tr '\0' a); echo "[\"$x\",\"$x\",\"$x\"]"; echo 1"#;
        let opts = ChildOptions { queued_bytes: 100 << 10, ..quick() };
        let mut t = ChildTransport::spawn(&sh(big), opts).unwrap();
        for _ in 0..2 {
            t.recv(Duration::from_secs(5)).await.expect("a line three times the room, then one");
        }
        t.shutdown().await;
    }

    /// Only a few large lines are read or held at once in the whole process, but none waits
    /// for a place for long: with more children holding 2 MiB lines unread than there are
    /// places, each line is still read, and every child's lines arrive whole, in order.
    #[tokio::test]
    async fn large_lines_share_a_few_places_and_none_starves() {
        let two_lines = r#"x=$(head -c 2097152 /dev/zero | tr '\0' a); echo "\"$x\""; echo "\"$x\"""#;
        let children = LARGE_LINES_AT_ONCE + 3;
        let mut all: Vec<ChildTransport> =
            (0..children).map(|_| ChildTransport::spawn(&sh(two_lines), quick()).unwrap()).collect();
        // Nobody receives for a while: the places are all taken, the other readers read on
        // once they have waited LARGE_LINE_WAIT.
        tokio::time::sleep(LARGE_LINE_WAIT * 2).await;
        for t in &mut all {
            for _ in 0..2 {
                let frame = t.recv(Duration::from_secs(10)).await.expect("a 2 MiB line");
                let FrameContent::Json { value, .. } = frame.content else { panic!("{frame:?}") };
                assert_eq!(value.as_str().map(str::len), Some(2 << 20));
            }
        }
        for mut t in all {
            t.shutdown().await;
        }
    }

    /// A child whose stdout is a log is never held up by it: with stdout read as messages,
    /// nobody receiving, the same child blocks once the queue and the pipe are full.
    #[tokio::test]
    async fn a_log_on_stdout_never_blocks_the_child() {
        let writes_a_long_log = "yes 'INFO: 127.0.0.1 - POST /mcp 200' | head -n 40000; echo done";
        let opts = ChildOptions { frame_queue: 4, stderr_tail_bytes: 64, stdout: StdoutUse::Log, ..quick() };
        let mut t = ChildTransport::spawn(&sh(writes_a_long_log), opts).unwrap();
        assert!(t.wait_exit(Duration::from_secs(10)).await.is_some(), "the child wrote its log and exited");
        // The log lands in the tail, as stderr does.
        for _ in 0..100 {
            if t.stderr_tail().ends_with("done\n") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(t.stderr_tail().ends_with("done\n"), "{:?}", t.stderr_tail());
        t.shutdown().await;

        let opts = ChildOptions { frame_queue: 4, stdout: StdoutUse::Messages, ..quick() };
        let mut t = ChildTransport::spawn(&sh(writes_a_long_log), opts).unwrap();
        assert!(t.wait_exit(Duration::from_millis(500)).await.is_none(), "unread messages hold the child up");
        t.shutdown().await;
    }

    /// Regression: a loop that reads until a deadline ran forever against a flood, because
    /// the queue always held a frame when the time was up.
    #[tokio::test]
    async fn a_deadline_passes_during_a_flood() {
        use std::time::Instant;
        let mut t = ChildTransport::spawn(&sh("yes 'flood flood flood'"), quick()).unwrap();
        let start = Instant::now();
        let deadline = start + Duration::from_millis(200);
        let mut frames = 0u64;
        let bounded = tokio::time::timeout(Duration::from_secs(10), async {
            while t.recv(deadline.saturating_duration_since(Instant::now())).await.is_ok() {
                frames += 1;
            }
        });
        assert!(bounded.await.is_ok(), "still reading after 10 s, {frames} frames");
        assert!(
            frames > 0 && start.elapsed() < Duration::from_secs(2),
            "{frames} frames, {:?}",
            start.elapsed()
        );
        t.shutdown().await;
    }

    #[tokio::test]
    async fn missing_program_is_a_clear_error() {
        let e = ChildTransport::spawn(&CommandSpec::from_argv(["/nonexistent/mcp"]).unwrap(), quick())
            .err()
            .unwrap();
        assert!(e.to_string().starts_with("could not start /nonexistent/mcp:"), "{e}");
    }

    #[tokio::test]
    async fn recv_times_out_and_sees_eof() {
        let mut t = ChildTransport::spawn(&sh("sleep 0.2"), quick()).unwrap();
        assert_eq!(
            t.recv(Duration::from_millis(50)).await,
            Err(RecvError::Timeout(Duration::from_millis(50)))
        );
        assert_eq!(t.recv(Duration::from_secs(5)).await, Err(RecvError::Closed));
        let stage = t.shutdown().await.stage;
        assert!(matches!(stage, Stage::AlreadyExited | Stage::StdinClosed), "{stage:?}");
    }
}
