//! Mutations of the HTTP layer, for campaigns over Streamable HTTP and HTTP+SSE: a valid message
//! sent with one header bent, left out, or grown, with another method, or many sessions
//! opened at once. The headers are the ones the transport gives meaning to
//! (`basic/transports.mdx`): `Mcp-Session-Id`, `MCP-Protocol-Version`, `Accept`, `Content-Type`,
//! `Origin`, `Last-Event-ID`, and the modern era's `Mcp-Method` and `Mcp-Name`.
//!
//! Values are visible ASCII (what a header may hold and every HTTP client sends); what a server
//! makes of the bytes below that is the framing mutations' job, on bodies.

use crate::fuzz::input::{HttpShape, HTTP_METHODS};
use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// One mutation of the HTTP layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HttpMutation {
    /// `Mcp-Session-Id` of a session that does not exist (short, odd, or empty).
    SessionUnknown,
    /// No `Mcp-Session-Id` on a request of a session.
    SessionMissing,
    /// An `Mcp-Session-Id` of 257 bytes to 8 KiB.
    SessionLong,
    /// `MCP-Protocol-Version` that names no revision, or another revision than the session's.
    ProtocolVersion,
    /// No `MCP-Protocol-Version`.
    ProtocolVersionMissing,
    /// `Accept` without one of the two media types, or none.
    Accept,
    /// `Content-Type` other than JSON, with a charset, or none.
    ContentType,
    /// `Origin` of another site, or `null`.
    Origin,
    /// `Last-Event-ID` on a POST, well-formed or not.
    LastEventId,
    /// `Mcp-Method` and `Mcp-Name` that disagree with the body, or are garbage.
    MethodHeaders,
    /// A header of 16 to 64 KiB, or a hundred headers.
    BigHeaders,
    /// The body sent with GET, PUT, DELETE, PATCH, OPTIONS or HEAD instead of POST.
    Method,
    /// A fresh process sent 8 to 64 `initialize` requests without a session: as many
    /// sessions opened and never ended (the input is `fresh`).
    SessionChurn,
}

impl HttpMutation {
    /// Every HTTP mutation with its weight among HTTP mutations.
    pub const WEIGHTED: [(HttpMutation, u32); 13] = [
        (HttpMutation::SessionUnknown, 20),
        (HttpMutation::SessionMissing, 10),
        (HttpMutation::SessionLong, 10),
        (HttpMutation::ProtocolVersion, 20),
        (HttpMutation::ProtocolVersionMissing, 8),
        (HttpMutation::Accept, 20),
        (HttpMutation::ContentType, 20),
        (HttpMutation::Origin, 12),
        (HttpMutation::LastEventId, 8),
        (HttpMutation::MethodHeaders, 12),
        (HttpMutation::BigHeaders, 6),
        (HttpMutation::Method, 20),
        (HttpMutation::SessionChurn, 6),
    ];
}

const SESSION_IDS: [&str; 6] =
    ["0", "unknown", "../../etc/passwd", "%00", "a b", "'; DROP TABLE sessions;--"];
const VERSIONS: [&str; 7] =
    ["1999-01-01", "2025-13-45", "latest", "2024-11-05", "2025-03-26", "2026-07-28", "DRAFT-2026-v1"];
const ACCEPTS: [&str; 6] = [
    "",
    "application/json",
    "text/event-stream",
    "text/html",
    "*/*",
    "application/json;q=0, text/event-stream;q=0",
];
const CONTENT_TYPES: [&str; 7] = [
    "",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json; charset=latin-1",
    "application/json; charset=utf-16",
    "application/jsonx",
    ";;;",
];
const ORIGINS: [&str; 4] =
    ["http://evil.example", "null", "https://127.0.0.1.evil.example", "http://localhost.evil.example:80"];
const EVENT_IDS: [&str; 4] = ["0", "-1", "stream-999/42", "x"];
const MCP_METHODS: [&str; 5] = ["tools/list", "", "initialize", "TOOLS/CALL", "no/such-method"];

/// The shape a mutation gives an input; `None` for [`HttpMutation::SessionChurn`], which
/// changes the input itself (see [`churn`]).
pub fn shape(mutation: HttpMutation, rng: &mut ChaCha8Rng) -> Option<HttpShape> {
    let header = |name: &str, value: String| HttpShape {
        headers: vec![(name.to_owned(), value)],
        ..HttpShape::default()
    };
    let pick =
        |rng: &mut ChaCha8Rng, values: &[&str]| values.choose(rng).copied().unwrap_or_default().to_owned();
    Some(match mutation {
        HttpMutation::SessionUnknown => header("mcp-session-id", pick(rng, &SESSION_IDS)),
        // An empty value leaves the header out.
        HttpMutation::SessionMissing => header("mcp-session-id", String::new()),
        HttpMutation::SessionLong => header("mcp-session-id", "s".repeat(rng.random_range(257..=8192))),
        HttpMutation::ProtocolVersion => header("mcp-protocol-version", pick(rng, &VERSIONS)),
        HttpMutation::ProtocolVersionMissing => header("mcp-protocol-version", String::new()),
        HttpMutation::Accept => header("accept", pick(rng, &ACCEPTS)),
        HttpMutation::ContentType => header("content-type", pick(rng, &CONTENT_TYPES)),
        HttpMutation::Origin => header("origin", pick(rng, &ORIGINS)),
        HttpMutation::LastEventId => header("last-event-id", pick(rng, &EVENT_IDS)),
        HttpMutation::MethodHeaders => HttpShape {
            headers: vec![
                ("mcp-method".into(), pick(rng, &MCP_METHODS)),
                ("mcp-name".into(), pick(rng, &["", "nope", "../x"])),
            ],
            ..HttpShape::default()
        },
        HttpMutation::BigHeaders => match rng.random_bool(0.5) {
            true => header("x-mcpspec-fuzz", "h".repeat(rng.random_range(16 * 1024..=64 * 1024))),
            false => HttpShape {
                headers: (0..100).map(|i| (format!("x-mcpspec-fuzz-{i}"), format!("{i}"))).collect(),
                ..HttpShape::default()
            },
        },
        HttpMutation::Method => {
            let others: Vec<&str> = HTTP_METHODS.iter().copied().filter(|m| *m != "POST").collect();
            HttpShape { method: Some(pick(rng, &others)), ..HttpShape::default() }
        }
        HttpMutation::SessionChurn => return None,
    })
}

/// How many sessions a churn opens.
pub fn churn_count(rng: &mut ChaCha8Rng) -> usize {
    rng.random_range(8..=64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Every header value is one an HTTP client can send (visible ASCII and spaces), so a
    /// mutation reaches the server instead of failing in mcpspec's own client.
    #[test]
    fn every_shape_is_sendable() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for _ in 0..500 {
            for (mutation, _) in HttpMutation::WEIGHTED {
                let Some(shape) = shape(mutation, &mut rng) else { continue };
                assert!(shape.method().is_ok(), "{shape:?}");
                for (name, value) in &shape.headers {
                    assert!(
                        mcpspec_reference::transport::http_client::HeaderName::from_bytes(name.as_bytes())
                            .is_ok(),
                        "{name}"
                    );
                    assert!(
                        mcpspec_reference::transport::http_client::HeaderValue::from_str(value).is_ok(),
                        "{name}: {value}"
                    );
                }
            }
        }
    }
}
