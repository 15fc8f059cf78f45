//! A listener on 127.0.0.1 that answers every request with a small page and records it: the
//! target of URLs an implementation is handed but must not fetch on its own (a URL mode
//! elicitation's URL before the user consents, `client/elicitation.mdx#safe-url-handling`).
//! What reached it, and when, is the evidence.

use axum::extract::Request;
use axum::response::Html;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One request that reached the listener.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    pub method: String,
    /// The path and query.
    pub target: String,
    pub at: Instant,
}

/// The listener; it stops when dropped.
#[derive(Debug)]
pub struct Canary {
    addr: SocketAddr,
    hits: Arc<Mutex<Vec<Hit>>>,
    task: tokio::task::JoinHandle<()>,
}

/// How many requests are recorded at most: a client fetching in a loop is caught by the first.
const MAX_HITS: usize = 64;

impl Canary {
    /// Binds a free port on 127.0.0.1 and serves there until dropped.
    pub async fn start() -> std::io::Result<Canary> {
        let tcp = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
        let addr = tcp.local_addr()?;
        let hits: Arc<Mutex<Vec<Hit>>> = Arc::default();
        let record = hits.clone();
        let router = axum::Router::new().fallback(move |request: Request| {
            let record = record.clone();
            async move {
                let target = request.uri().path_and_query().map_or("/", |p| p.as_str()).to_owned();
                let hit = Hit { method: request.method().to_string(), target, at: Instant::now() };
                let mut hits = record.lock().unwrap_or_else(|e| e.into_inner());
                if hits.len() < MAX_HITS {
                    hits.push(hit);
                }
                Html("<!doctype html><title>mcpspec</title><p>mcpspec: this page records who fetched it.</p>")
            }
        });
        let task = tokio::spawn(async move {
            let _ = axum::serve(tcp, router).await;
        });
        Ok(Canary { addr, hits, task })
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests recorded so far, in order.
    pub fn hits(&self) -> Vec<Hit> {
        self.hits.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

impl Drop for Canary {
    fn drop(&mut self) {
        self.task.abort();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_request_is_recorded_and_answered() {
        let canary = Canary::start().await.unwrap();
        let url = format!("{}/elicitation/x?y=1", canary.base_url());
        let client = crate::transport::http_client::client_builder().build().unwrap();
        let r = client.get(&url).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let r = client.head(canary.base_url()).send().await.unwrap();
        assert_eq!(r.status(), 200);
        let hits = canary.hits();
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!((hits[0].method.as_str(), hits[0].target.as_str()), ("GET", "/elicitation/x?y=1"));
        assert_eq!(hits[1].method, "HEAD");
    }
}
