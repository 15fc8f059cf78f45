//! A server session over stdio: the server's process, what it has left unread, its stderr, and
//! how it exits. The session's common logic is in the parent module.

use super::ServerSession;
use mcpspec_reference::transport::child::describe_status;
use mcpspec_reference::transport::RecvError;
use std::time::Duration;
use tokio::time::Instant;

impl ServerSession {
    /// Over stdio: whether the server process is still running, and how many bytes written to
    /// its stdin it has left unread. `None` over HTTP.
    pub fn process_state(&mut self) -> Option<(Option<String>, Option<usize>)> {
        let super::Link::Stdio(child) = &mut self.link else { return None };
        let exited = child.try_exit().map(describe_status);
        Some((exited, child.stdin_unread()))
    }

    pub fn stderr_tail(&self) -> String {
        match &self.link {
            super::Link::Stdio(child) => child.stderr_tail(),
            super::Link::Http(_) => String::new(),
        }
    }

    /// Closes the server's stdin and waits at most `within` for it to exit on its own.
    pub async fn close_stdin_and_wait(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let super::Link::Stdio(child) = &mut self.link else { return None };
        child.close_stdin();
        // Keep reading so a server that writes on its way out is not blocked on a full pipe.
        let deadline = Instant::now() + within;
        loop {
            let super::Link::Stdio(child) = &mut self.link else { return None };
            if let Some(status) = child.try_exit() {
                let _ = self.drain(Duration::from_millis(50)).await;
                return Some(status);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return None;
            }
            match child.recv(left.min(Duration::from_millis(20))).await {
                Ok(frame) => {
                    self.record(&frame);
                }
                Err(RecvError::Closed) => {
                    return child.wait_exit(deadline.saturating_duration_since(Instant::now())).await
                }
                Err(RecvError::Timeout(_)) => {}
            }
        }
    }

    /// How the server ended, if it has (waiting briefly for it): `" (exited with status 1)"`.
    pub async fn exit_note(&mut self) -> String {
        let super::Link::Stdio(child) = &mut self.link else { return String::new() };
        match child.wait_exit(Duration::from_millis(500)).await {
            Some(status) => format!(" ({})", describe_status(status)),
            None => String::new(),
        }
    }
}
