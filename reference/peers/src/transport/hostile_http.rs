//! Hostile HTTP servers for mcpspec's own tests (issue #17): the `http-` faults that replace the
//! whole endpoint ([`Fault::is_hostile_http`]) with a raw TCP listener, because what they do
//! (a head that never ends, a reset connection) is below what an HTTP library lets a server do.
//! Every request gets the same treatment, whatever it asks. Every write loop is bounded (ten
//! minutes a connection), so even an abandoned peer ends.

use crate::faults::Fault;
use std::time::Duration;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

/// How long one connection is kept busy at most.
const BUSY_FOR: Duration = Duration::from_secs(600);
/// The most of a request head read before answering.
const MAX_HEAD: usize = 64 * 1024;

/// Serves `fault` on `listener` until the task is dropped; `path` is the URL path a redirect
/// points back to.
pub async fn serve(listener: TcpListener, fault: Fault, path: String) {
    loop {
        let Ok((conn, _)) = listener.accept().await else { continue };
        let path = path.clone();
        tokio::spawn(async move {
            let _ = tokio::time::timeout(BUSY_FOR, answer(conn, fault, &path)).await;
        });
    }
}

async fn answer(mut conn: TcpStream, fault: Fault, path: &str) -> std::io::Result<()> {
    read_head(&mut conn).await?;
    match fault {
        Fault::HttpSlowloris => {
            for byte in b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-slow: ".iter().cycle() {
                conn.write_all(&[*byte]).await?;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
        Fault::HttpEndlessSse => {
            conn.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n\r\n",
            )
            .await?;
            let event = b"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\
                          \"params\":{\"level\":\"info\",\"data\":\"flood\"}}\n\n";
            loop {
                conn.write_all(event).await?;
            }
        }
        Fault::HttpEndlessChunked => {
            conn.write_all(
                b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n",
            )
            .await?;
            let chunk = format!("{:x}\r\n[{}\r\n", 4097, " ".repeat(4096));
            conn.write_all(chunk.as_bytes()).await?;
            let spaces = format!("{:x}\r\n{}\r\n", 4096, " ".repeat(4096));
            loop {
                conn.write_all(spaces.as_bytes()).await?;
            }
        }
        Fault::HttpStalledBody => {
            conn.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{\"jsonrpc\":")
                .await?;
            tokio::time::sleep(BUSY_FOR).await;
        }
        Fault::HttpWrongContentType => {
            let page = "<!doctype html><title>Welcome</title><p>Hello from a web server.</p>\n";
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                page.len()
            );
            conn.write_all(head.as_bytes()).await?;
            conn.write_all(page.as_bytes()).await?;
        }
        Fault::HttpRedirectLoop => {
            let head = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nlocation: {path}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n"
            );
            conn.write_all(head.as_bytes()).await?;
        }
        Fault::HttpServerError => {
            let body = "Service Unavailable";
            let head = format!(
                "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            conn.write_all(head.as_bytes()).await?;
            conn.write_all(body.as_bytes()).await?;
        }
        _ => {
            // A linger of zero makes closing send RST instead of FIN. The deprecation is about a
            // positive linger blocking the thread on close; zero closes at once.
            #[allow(deprecated)]
            conn.set_linger(Some(Duration::ZERO))?;
            return Ok(());
        }
    }
    conn.shutdown().await
}

/// Reads until the end of the request head (or `MAX_HEAD` bytes, or the peer's end): the
/// request is never looked at, only waited for, so that the answer comes after it.
async fn read_head(conn: &mut TcpStream) -> std::io::Result<()> {
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while head.len() < MAX_HEAD && !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = conn.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(())
}
