//! One HTTP request outside any MCP session, its answer read within a bound: what a client does
//! before its first session (the unauthenticated request of an OAuth-protected server, the
//! protected resource and authorization server metadata, RFC 9728 and RFC 8414) and what a check
//! does to present one token. Redirects are not followed (each hop is a finding of its own), and
//! an SSE body is not read (its head is the answer).

use super::client_builder;
use std::time::Duration;
use url::Url;

/// A request, as plain values.
#[derive(Clone)]
pub struct RawRequest {
    pub method: &'static str,
    pub url: Url,
    /// Lower-case names. Values may be secrets: never shown by `Debug`.
    pub headers: Vec<(String, String)>,
    pub body: Option<String>,
}

impl std::fmt::Debug for RawRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        write!(f, "{} {} (headers: {})", self.method, self.url, names.join(", "))
    }
}

/// Its answer.
#[derive(Debug, Clone)]
pub struct RawResponse {
    pub status: u16,
    /// Lower-case names, every value (a header sent twice appears twice).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The body was longer than the bound, or did not end within it (it is cut there).
    pub truncated: bool,
}

impl RawResponse {
    /// Every value of a header.
    pub fn header_values(&self, name: &str) -> Vec<&str> {
        self.headers.iter().filter(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str()).collect()
    }

    /// The media type, lower case, without parameters.
    pub fn media_type(&self) -> Option<String> {
        let v = self.header_values("content-type").into_iter().next()?;
        Some(v.split(';').next().unwrap_or("").trim().to_ascii_lowercase())
    }

    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

/// Sends `request`; the head must come within `within`, and the body (unless it is an SSE
/// stream) is read until its end, `max_body` bytes or `within` again, whichever comes first.
pub async fn oneshot(request: &RawRequest, within: Duration, max_body: usize) -> Result<RawResponse, String> {
    let client = client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(within)
        .build()
        .map_err(|e| format!("cannot make an HTTP client: {e}"))?;
    let method = reqwest::Method::from_bytes(request.method.as_bytes()).map_err(|e| e.to_string())?;
    let mut b = client.request(method, request.url.clone());
    for (k, v) in &request.headers {
        b = b.header(k, v);
    }
    if let Some(body) = &request.body {
        b = b.body(body.clone());
    }
    let what = format!("{} {}", request.method, request.url);
    let mut r = match tokio::time::timeout(within, b.send()).await {
        Ok(Ok(r)) => r,
        Ok(Err(e)) => return Err(format!("{what}: {e}")),
        Err(_) => return Err(format!("{what}: no answer within {within:?}")),
    };
    let status = r.status().as_u16();
    let headers: Vec<(String, String)> = r
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_owned(), String::from_utf8_lossy(v.as_bytes()).into_owned()))
        .collect();
    let mut out = RawResponse { status, headers, body: Vec::new(), truncated: false };
    if out.media_type().as_deref() == Some("text/event-stream") {
        out.truncated = true;
        return Ok(out);
    }
    let deadline = tokio::time::Instant::now() + within;
    loop {
        match tokio::time::timeout_at(deadline, r.chunk()).await {
            Ok(Ok(Some(chunk))) => {
                let room = max_body.saturating_sub(out.body.len());
                out.body.extend_from_slice(&chunk[..chunk.len().min(room)]);
                if chunk.len() > room {
                    out.truncated = true;
                    break;
                }
            }
            Ok(Ok(None)) => break,
            Ok(Err(e)) => return Err(format!("{what}: the body broke off: {e}")),
            Err(_) => {
                out.truncated = true;
                break;
            }
        }
    }
    Ok(out)
}
