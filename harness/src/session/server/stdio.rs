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

    /// The end of the server's stderr, also of a process other scenarios share.
    pub async fn stderr(&self) -> String {
        match &self.link {
            super::Link::Tenant(tenant) => tenant.host().stderr_tail().await,
            _ => self.stderr_tail(),
        }
    }

    pub fn stderr_tail(&self) -> String {
        match &self.link {
            super::Link::Stdio(child) => child.stderr_tail(),
            super::Link::Http(_) | super::Link::Tenant(_) => String::new(),
        }
    }

    /// Closes the server's stdin and waits at most `within` for it to exit on its own.
    pub async fn close_stdin_and_wait(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        // No later scenario can use the process (nor one using it at the same time).
        self.footprint.note("the client closed the server's stdin");
        if let super::Link::Tenant(tenant) = &self.link {
            return self.close_shared_stdin(tenant.host().clone(), within).await;
        }
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
                    self.record(frame);
                }
                Err(RecvError::Closed) => {
                    return child.wait_exit(deadline.saturating_duration_since(Instant::now())).await
                }
                Err(RecvError::Timeout(_)) => {}
            }
        }
    }

    /// [`Self::close_stdin_and_wait`] for a tenant, which holds the process alone: what the
    /// server writes until its stdout closes is recorded, then its exit is awaited.
    async fn close_shared_stdin(
        &mut self,
        host: std::sync::Arc<super::Host>,
        within: Duration,
    ) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + within;
        host.close_stdin().await;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left).await {
                Ok(Some((frame, _place))) => drop(self.record(frame)),
                Ok(None) => {}
                Err(RecvError::Closed) => break,
                Err(RecvError::Timeout(_)) => return None,
            }
        }
        host.wait_exit(deadline.saturating_duration_since(Instant::now())).await
    }

    /// How the server ended, if it has (waiting briefly for it): `" (exited with status 1)"`.
    pub async fn exit_note(&mut self) -> String {
        let child = match &mut self.link {
            super::Link::Stdio(child) => child,
            super::Link::Tenant(tenant) => {
                return tenant.exited().map(|how| format!(" ({how})")).unwrap_or_default()
            }
            super::Link::Http(_) => return String::new(),
        };
        match child.wait_exit(Duration::from_millis(500)).await {
            Some(status) => format!(" ({})", describe_status(status)),
            None => String::new(),
        }
    }
}
