//! Bends of the HTTP layer a client reads, for client campaigns over Streamable HTTP and
//! HTTP+SSE: one response of mcpspec's endpoint sent as a broken or hostile server would send it
//! ([`ReplyBend`], applied by the endpoint itself). What a client must survive there is what
//! `basic/transports.mdx` leaves to the server: the status (a 404 ending its session, a 202
//! where the answer was due, errors and redirects), the headers it reads (`Content-Type` and
//! its parameters, `Mcp-Session-Id`, `MCP-Protocol-Version`), and the SSE stream
//! (`retry`, event ids, comments, events without data, huge events, split events, a stream
//! that never ends), a JSON body where SSE was expected, a body cut short.
//!
//! Sans-IO: a bend is drawn from the input's random stream like every other mutation.

use crate::fuzz::input::{Bend, ReplyBend};
use mcpspec_reference::transport::Flavor;
use rand::seq::IndexedRandom;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;

/// One bend of a response, as drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ReplyMutation {
    /// 400, 403, 404, 405, 406, 409, 413, 415, 429: the request refused.
    ClientError,
    /// 500, 502, 503, 504, with an empty body, text, or a JSON-RPC error.
    ServerError,
    /// 301, 302, 303, 307, 308 back to the same URL.
    Redirect,
    /// 202 Accepted with no body, where the answer to a request was due.
    Accepted,
    /// `Content-Type` wrong, missing, or with odd parameters.
    ContentType,
    /// `Mcp-Session-Id` of another session, empty, missing, or huge.
    SessionId,
    /// `MCP-Protocol-Version` naming another or no revision.
    ProtocolVersion,
    /// A header value with bytes that are not UTF-8 (or not visible ASCII).
    HeaderBytes,
    /// The body in writes of 1 to 7 bytes.
    Split,
    /// SSE fields, comments and odd events before the body.
    Lead,
    /// An event of 16 KiB to 1 MiB before the body.
    BigEvent,
    /// The stream never ends.
    Endless,
    /// The body cut short, the connection broken.
    Truncate,
    /// The body labelled with the other media type.
    SwapType,
    /// An SSE body's message sent as a JSON body.
    AsJson,
}

impl ReplyMutation {
    /// Every bend with its weight among bends.
    pub const WEIGHTED: [(ReplyMutation, u32); 15] = [
        (ReplyMutation::ClientError, 10),
        (ReplyMutation::ServerError, 10),
        (ReplyMutation::Redirect, 4),
        (ReplyMutation::Accepted, 8),
        (ReplyMutation::ContentType, 10),
        (ReplyMutation::SessionId, 8),
        (ReplyMutation::ProtocolVersion, 4),
        (ReplyMutation::HeaderBytes, 6),
        (ReplyMutation::Split, 6),
        (ReplyMutation::Lead, 12),
        (ReplyMutation::BigEvent, 6),
        (ReplyMutation::Endless, 6),
        (ReplyMutation::Truncate, 6),
        (ReplyMutation::SwapType, 4),
        (ReplyMutation::AsJson, 4),
    ];
}

const CLIENT_ERRORS: [u16; 9] = [400, 403, 404, 405, 406, 409, 413, 415, 429];
const SERVER_ERRORS: [u16; 4] = [500, 502, 503, 504];
const REDIRECTS: [u16; 5] = [301, 302, 303, 307, 308];
const ERROR_BODIES: [&str; 4] = [
    "",
    "Internal Server Error",
    r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}"#,
    "<html><body>502 Bad Gateway</body></html>",
];
const CONTENT_TYPES: [&str; 10] = [
    "text/html",
    "application/octet-stream",
    "TEXT/EVENT-STREAM",
    "text/event-stream; charset",
    "application/json; charset=utf-16",
    "text/event-stream;;",
    "application/json; boundary=\"unterminated",
    "text/event-stream; charset=utf-8; charset=latin-1",
    "application/json+fuzz",
    "text/event-streamx",
];
const PROTOCOL_VERSIONS: [&str; 4] = ["1999-01-01", "2025-03-26", "garbage", "2026-07-28"];
/// Header values whose bytes are not visible ASCII; each character below U+0100 is one byte.
const ODD_BYTES: [&str; 4] = ["\u{ff}\u{fe}", "caf\u{e9}", "\u{80}\u{81}\u{82}", "snow\u{2603}man"];
const ODD_BYTE_HEADERS: [&str; 4] =
    ["mcp-session-id", "content-type", "x-mcpspec-fuzz", "mcp-protocol-version"];
/// What a client may meet before an SSE body's events, each with its terminating blank line.
const LEADS: [&str; 14] = [
    "retry: 1000\n\n",
    "retry: abc\n\n",
    "retry: -1\n\n",
    "retry: 99999999999\n\n",
    "retry: 1.5\n\n",
    "retry:\n\n",
    "id: 42\n\n",
    "id: \n\n",
    ": a comment\n\n",
    "event: message\n\n",
    "event: ping\ndata: {}\n\n",
    "data:\n\n",
    "data: not json\n\n",
    "\u{feff}: a BOM first\r\n\r\n",
];
/// What an endless stream repeats.
const ENDLESS: [&str; 3] = [
    ": keep-alive\n\n",
    "\n",
    "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"debug\",\"data\":\"more\"}}\n\n",
];

/// A bend of one response of the endpoint. `posts`: how many POSTs the client made in its clean
/// run (the bent one is one of them, or a GET stream).
pub fn reply(mutation: ReplyMutation, flavor: Flavor, posts: u32, rng: &mut ChaCha8Rng) -> ReplyBend {
    let pick =
        |rng: &mut ChaCha8Rng, values: &[&str]| values.choose(rng).copied().unwrap_or_default().to_owned();
    let status = |rng: &mut ChaCha8Rng, codes: &[u16]| codes.choose(rng).copied().unwrap_or(500);
    let bend = match mutation {
        ReplyMutation::ClientError => {
            Bend::Status { status: status(rng, &CLIENT_ERRORS), body: String::new() }
        }
        ReplyMutation::ServerError => {
            Bend::Status { status: status(rng, &SERVER_ERRORS), body: pick(rng, &ERROR_BODIES) }
        }
        ReplyMutation::Redirect => Bend::Status { status: status(rng, &REDIRECTS), body: String::new() },
        ReplyMutation::Accepted => Bend::Status { status: 202, body: String::new() },
        ReplyMutation::ContentType => Bend::Header {
            name: "content-type".into(),
            value: rng.random_bool(0.85).then(|| pick(rng, &CONTENT_TYPES)),
        },
        ReplyMutation::SessionId => Bend::Header {
            name: "mcp-session-id".into(),
            value: match rng.random_range(0..4) {
                0 => None,
                1 => Some(String::new()),
                2 => Some("s".repeat(rng.random_range(1024..=8192))),
                _ => Some(format!("another-session-{}", rng.random_range(0..1000))),
            },
        },
        ReplyMutation::ProtocolVersion => {
            Bend::Header { name: "mcp-protocol-version".into(), value: Some(pick(rng, &PROTOCOL_VERSIONS)) }
        }
        ReplyMutation::HeaderBytes => {
            Bend::Header { name: pick(rng, &ODD_BYTE_HEADERS), value: Some(pick(rng, &ODD_BYTES)) }
        }
        ReplyMutation::Split => Bend::Split { size: rng.random_range(1..=7) },
        ReplyMutation::Lead => {
            let count = rng.random_range(1..=3);
            Bend::Lead { text: (0..count).map(|_| pick(rng, &LEADS)).collect() }
        }
        ReplyMutation::BigEvent => Bend::BigEvent { bytes: 1 << rng.random_range(14..=20) },
        ReplyMutation::Endless => Bend::Endless { text: pick(rng, &ENDLESS) },
        ReplyMutation::Truncate => Bend::Truncate { at: rng.random_range(0..=120) },
        ReplyMutation::SwapType => Bend::SwapType,
        ReplyMutation::AsJson => Bend::AsJson,
    };
    // Over HTTP+SSE every message comes on the GET stream (a POST gets 202 and nothing else):
    // bends of the stream go there mostly. Over Streamable HTTP the POSTs carry the answers.
    let get_share = match flavor {
        Flavor::LegacySse => 0.6,
        Flavor::Streamable => 0.15,
    };
    let (method, nth) = match rng.random_bool(get_share) {
        true => ("GET", 0),
        false => ("POST", rng.random_range(0..posts.clamp(1, 12))),
    };
    ReplyBend { method: method.into(), nth, bend }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    /// Every header a bend sets is one the endpoint can send (else the bend would silently do
    /// nothing), and the odd bytes are there.
    #[test]
    fn every_bent_header_is_sendable() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut odd = 0;
        for _ in 0..300 {
            for (mutation, _) in ReplyMutation::WEIGHTED {
                let bend = reply(mutation, Flavor::Streamable, 5, &mut rng);
                assert!(bend.nth < 5 || bend.method == "GET", "{bend:?}");
                let Bend::Header { name, value: Some(value) } = &bend.bend else { continue };
                let bytes = mcpspec_reference::transport::http_server::latin1(value);
                assert!(
                    mcpspec_reference::transport::http_client::HeaderValue::from_bytes(&bytes).is_ok(),
                    "{name}: {value:?} cannot be sent"
                );
                odd += usize::from(bytes.iter().any(|b| !b.is_ascii()));
            }
        }
        assert!(odd > 50, "{odd} values with bytes outside ASCII");
    }
}
