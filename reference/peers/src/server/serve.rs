//! The loop that runs the sans-IO handler over a byte stream: stdio for `mcpspec reference
//! server`, the same loop behind each HTTP session ([`super::http`]).

use super::*;

/// Runs the server over a byte stream until its input ends, writing one line per message; a
/// tokio sleep wakes it for the server's next deadline. A fault (test peers only) changes what
/// the server decides or what is written.
pub async fn serve_stdio<R, W>(
    server: ReferenceServer,
    fault: Option<Fault>,
    input: R,
    mut output: W,
) -> std::io::Result<()>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let fault = fault.or(server.fault);
    let mut server = server.with_fault(fault);
    let line_check = fault.and_then(Fault::line_check);
    let mut fault = fault.map(FaultState::new);
    if let Some(f) = fault.as_mut() {
        f.at_start(&mut output).await?;
    }
    let limit = server.config.max_message_bytes;
    let mut pipe = StdioPipe {
        input,
        output,
        decoder: LineDecoder::new(limit),
        limit,
        buf: vec![0u8; 64 * 1024],
        frames: VecDeque::new(),
        ended: false,
        line_check,
        fatal: None,
        out: Vec::new(),
    };
    drive(&mut server, fault.as_mut(), &mut pipe).await?;
    pipe.flush().await?;
    if let Some(f) = fault.as_mut() {
        f.at_eof().await;
    }
    Ok(())
}

/// Where a served session's messages come from and go to: the lines of a byte stream, or an
/// HTTP session.
pub(crate) trait Pipe {
    /// The next message of the client; `None` once it is gone. Cancel-safe: it races the
    /// server's next deadline.
    async fn next_frame(&mut self) -> std::io::Result<Option<FrameContent>>;

    /// Sends the server's answers to `incoming` (`None`: to the passing of time), through the
    /// fault layer if there is one.
    async fn write(
        &mut self,
        fault: Option<&mut FaultState>,
        incoming: Option<&FrameContent>,
        answers: Vec<Value>,
    ) -> std::io::Result<()>;

    /// Sends what [`Pipe::write`] held back, before the loop waits for more input.
    async fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The one serving loop of every transport: each frame in goes to the server (or the fault
/// layer) and its answers out; a tokio sleep wakes it for the server's next deadline. Ends when
/// the client is gone.
pub(crate) async fn drive<P: Pipe>(
    server: &mut ReferenceServer,
    mut fault: Option<&mut FaultState>,
    pipe: &mut P,
) -> std::io::Result<()> {
    let now = || tokio::time::Instant::now().into_std();
    loop {
        pipe.flush().await?;
        let deadline = server.next_deadline();
        let wake = async {
            match deadline {
                Some(at) => tokio::time::sleep_until(tokio::time::Instant::from_std(at)).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            frame = pipe.next_frame() => {
                let Some(frame) = frame? else { return Ok(()) };
                let answers = match fault.as_deref_mut().map(|f| f.intercept(&frame, |id| server.is_in_flight(id))) {
                    Some(Intercept::Exit(code)) => {
                        eprintln!("fatal: mcpspec fault exits with status {code}");
                        std::process::exit(code);
                    }
                    Some(Intercept::Answer(answers)) => answers,
                    Some(Intercept::Crash(crash)) => match crash.happen().await {},
                    Some(Intercept::Pass) | None => server.on_frame_at(&frame, now()),
                };
                if let Some(crash) = server.take_crash() {
                    match crash.happen().await {}
                }
                pipe.write(fault.as_deref_mut(), Some(&frame), answers).await?;
            }
            () = wake => {
                let answers = server.poll(now());
                pipe.write(fault.as_deref_mut(), None, answers).await?;
            }
        }
    }
}

/// A byte stream of newline-delimited messages.
struct StdioPipe<R, W> {
    input: R,
    output: W,
    decoder: LineDecoder,
    /// The decoder's maximum message size.
    limit: usize,
    buf: Vec<u8>,
    /// Decoded and not yet handed over.
    frames: VecDeque<Frame>,
    /// The input reached its end (the decoder's last, unterminated line is in `frames`).
    ended: bool,
    /// A fault's look at each raw line before it is decoded ([`Fault::line_check`]).
    line_check: Option<LineCheck>,
    /// The line check went off: once the lines before that one are handed over, the process
    /// dies; nothing after it is decoded.
    fatal: Option<Crash>,
    /// Answers not yet written: the answers to all the lines one read brought in go out in one
    /// write, once they are handled (a write per answer costs a system call each, and on
    /// tokio's stdout a trip through its blocking pool).
    out: Vec<u8>,
}

impl<R: AsyncRead + Unpin, W: AsyncWrite + Unpin> Pipe for StdioPipe<R, W> {
    async fn next_frame(&mut self) -> std::io::Result<Option<FrameContent>> {
        loop {
            if let Some(frame) = self.frames.pop_front() {
                return Ok(Some(frame.content));
            }
            if let Some(crash) = self.fatal.take() {
                match crash.happen().await {}
            }
            if self.ended {
                return Ok(None);
            }
            // The only await: cancelling it loses nothing, decoding below runs to completion.
            let n = self.input.read(&mut self.buf).await?;
            if n == 0 {
                self.ended = true;
                self.frames.extend(self.decoder.finish());
                continue;
            }
            let Some(check) = self.line_check else {
                let mut frames = Vec::new();
                self.decoder.push(&self.buf[..n], &mut frames);
                self.frames.extend(frames);
                continue;
            };
            let (limit, frames, fatal) = (self.limit, &mut self.frames, &mut self.fatal);
            self.decoder.cut(&self.buf[..n], |line, raw| {
                if fatal.is_some() {
                    return;
                }
                if let RawLine::Line(bytes) = raw {
                    *fatal = check(bytes);
                }
                if fatal.is_none() {
                    frames.push_back(Frame { line, content: raw.decode(limit) });
                }
            });
        }
    }

    async fn write(
        &mut self,
        fault: Option<&mut FaultState>,
        incoming: Option<&FrameContent>,
        answers: Vec<Value>,
    ) -> std::io::Result<()> {
        if answers.is_empty() && fault.is_none() {
            return Ok(());
        }
        let bytes = match fault {
            Some(f) => f.outgoing(incoming, answers),
            None => answers.iter().flat_map(framing::encode).collect(),
        };
        self.out.extend_from_slice(&bytes);
        // Time-driven answers (progress, a slow tool's result) and faults that write on their
        // own schedule go out now; answers to input wait for the lines read with it.
        if incoming.is_none() || self.frames.is_empty() || self.out.len() >= 64 * 1024 {
            self.flush().await?;
        }
        Ok(())
    }

    async fn flush(&mut self) -> std::io::Result<()> {
        if !self.out.is_empty() {
            let out = std::mem::take(&mut self.out);
            self.output.write_all(&out).await?;
            self.output.flush().await?;
            self.out = out;
            self.out.clear();
        }
        Ok(())
    }
}
