//! The planted bugs of the HTTP layer (the `fuzz-http-` faults), as an HTTP fuzzer meets them:
//! each looks, from outside, like a real bug of an HTTP server written in Rust, and trips only on
//! its trigger; otherwise the endpoint is the clean one. Crashes end the process as
//! [`Crash::happen`] does; the others answer 500, drop the connection, or wedge the endpoint.

use super::*;
use crate::faults::injection::Crash;

/// The longest `Mcp-Session-Id` the fixed buffer takes (`fuzz-http-crash-session-id`).
const MAX_SESSION_ID_BYTES: usize = 256;
/// The slots of the session table that is never freed (`fuzz-http-crash-session-leak`).
pub(super) const SESSION_SLOTS: u64 = 24;

/// Before the request is handled: what a planted bug does with its head, if it trips.
pub(super) async fn at_head(endpoint: &Endpoint, method: &Method, headers: &HeaderMap) -> Option<Response> {
    let fault = endpoint.fault()?;
    match fault {
        Fault::FuzzHttpCrashSessionId => {
            let len = headers.get("mcp-session-id").map_or(0, |v| v.len());
            if len > MAX_SESSION_ID_BYTES {
                let message = format!("session id buffer overflow: {len} > {MAX_SESSION_ID_BYTES}");
                let at = "reference/peers/src/transport/http_server/session.rs:212:9";
                match (Crash::Panic { at, message }).happen().await {}
            }
        }
        Fault::FuzzHttpCrashCharset => {
            let charset = header_str(headers, "content-type").and_then(|v| {
                v.split(';')
                    .skip(1)
                    .find_map(|p| p.trim().strip_prefix("charset=").map(str::to_ascii_lowercase))
            });
            if let Some(charset) = charset.filter(|c| c.trim_matches('"') != "utf-8") {
                let message = format!("called `Option::unwrap()` on a `None` value (charset {charset:?})");
                let at = "reference/peers/src/transport/http_server/rules.rs:97:58";
                match (Crash::Panic { at, message }).happen().await {}
            }
        }
        Fault::FuzzHttp500Accept if *method == Method::POST => {
            let accept = header_str(headers, "accept");
            if !rules::accept_lists(accept, "text/event-stream") {
                return Some(status_only(StatusCode::INTERNAL_SERVER_ERROR));
            }
        }
        Fault::FuzzHttp500ProtocolVersion => {
            let version = header_str(headers, "mcp-protocol-version");
            if version.is_some_and(|v| v.parse::<Revision>().is_err()) {
                return Some(status_only(StatusCode::INTERNAL_SERVER_ERROR));
            }
        }
        Fault::FuzzHttpResetOrigin => {
            let origin = header_str(headers, "origin");
            if origin.is_some_and(|o| !endpoint.options.allowed_origins.allows(o)) {
                // A panic in the connection's task: the task ends, the connection with it,
                // unanswered. Its message is written as Rust writes one; the unwinding skips
                // the panic hook, so no backtrace (RUST_BACKTRACE) costs a second per trip.
                let crash = Crash::Panic {
                    at: "reference/peers/src/transport/http_server/rules.rs:131:17",
                    message: format!("origin check: unexpected origin {origin:?}"),
                };
                eprint!("{}", crash.stderr().replace("thread 'main'", "thread 'tokio-runtime-worker'"));
                std::panic::resume_unwind(Box::new("origin check"));
            }
        }
        Fault::FuzzHttpHangGet if *method == Method::GET => wedge(endpoint),
        _ => {}
    }
    None
}

/// A POST body, parsed: `fuzz-http-crash-batch` dies on an array.
pub(super) async fn on_body(endpoint: &Endpoint, value: &Value) {
    if endpoint.fault() == Some(Fault::FuzzHttpCrashBatch) && value.is_array() {
        let message = "called `Option::unwrap()` on a `None` value".to_owned();
        let at = "reference/peers/src/transport/http_server/streamable.rs:44:41";
        match (Crash::Panic { at, message }).happen().await {}
    }
}

/// Whether creating a session now trips `fuzz-http-crash-session-leak` (the `created`-th
/// session of the process, counting from 1).
pub(super) fn session_leak_trips(endpoint: &Endpoint, created: u64) -> Option<Crash> {
    (endpoint.fault() == Some(Fault::FuzzHttpCrashSessionLeak) && created > SESSION_SLOTS).then(|| {
        Crash::Panic {
            at: "reference/peers/src/transport/http_server/admission.rs:139:5",
            message: format!(
                "index out of bounds: the len is {SESSION_SLOTS} but the index is {}",
                created - 1
            ),
        }
    })
}

/// The endpoint's lock, held by a thread that never wakes: every other request waits for it,
/// on every worker (`fuzz-http-hang-get`).
fn wedge(endpoint: &Endpoint) -> ! {
    let _held = endpoint.lock();
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}
