//! Fault injection for test peers: the reference server with one deliberate defect, so that
//! mcpspec's own tests can prove each check fails when it should (`mcpspec reference server
//! --fault NAME`). Never used unless asked for.
//!
//! A fault is either a small transformation of what [`serve_stdio`](crate::server::serve_stdio)
//! reads or writes (`FaultState`), or a flag the server consults where the defect is a decision
//! (see [`ReferenceServer::with_fault`](crate::server::ReferenceServer::with_fault)), or (the
//! `http-`, `sse-` and `modern-http-` faults) a defect of the HTTP endpoint
//! ([`HttpServerOptions::fault`](crate::transport::http_server::HttpServerOptions::fault)).
//! The `modern-` faults act only on requests of the stateless era (2026-07-28): a legacy session
//! of the same server never sees them.
//! Over HTTP, the transformations of messages apply as over stdio; those of bytes (marked
//! "stdio only") do not.

use crate::server::ReferenceServer;
use mcpspec_protocol::framing::{self, FrameContent};
use mcpspec_protocol::wire::RequestId;
use serde_json::{json, Value};
use std::str::FromStr;
use std::time::Duration;
use tokio::io::{AsyncWrite, AsyncWriteExt};

macro_rules! faults {
    ($( $(#[doc = $doc:literal])* $variant:ident => $name:literal, )*) => {
        /// One deliberate defect.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Fault {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Fault {
            /// Every fault, in the order of this file.
            pub const ALL: &'static [Fault] = &[$(Fault::$variant),*];

            /// The CLI name (`--fault NAME`).
            pub fn name(self) -> &'static str {
                match self {
                    $( Fault::$variant => $name, )*
                }
            }
        }
    };
}

faults! {
    /// `initialize` echoes whatever version the client asked for, supported or not.
    EchoUnsupportedRevision => "echo-unsupported-revision",
    /// `initialize` never echoes: every offer gets another supported revision (the next one,
    /// round the list), so no revision is ever agreed on.
    CounterOfferAlways => "counter-offer-always",
    /// Writes a log line (not JSON) to stdout before its first answer (stdio only).
    NonJsonLine => "non-json-line",
    /// Every result response also carries an `error`.
    ResultAndError => "result-and-error",
    /// Integer request ids are answered as strings.
    StringifyIds => "stringify-ids",
    /// Exits with status 1 before reading anything, complaining on stderr.
    CrashAtStart => "crash-at-start",
    /// Reads its input but never answers, and does not exit when stdin closes.
    Hang => "hang",
    /// Writes garbage to stdout without end and never reads (stdio only).
    Flood => "flood",
    /// Writes one 16 MiB line before its first answer (stdio only).
    HugeLine => "huge-line",
    /// Serves normally but ignores SIGTERM and keeps running after stdin closes.
    IgnoreSigterm => "ignore-sigterm",
    /// Starts a grandchild process (`sleep 300`) in its process group, then serves normally.
    SpawnGrandchild => "spawn-grandchild",
    // ---- hostile processes (issue #17): what a broken or malicious server does to the process
    // and its pipes, stdio only. A run must end on time against each, with nothing left behind.
    /// Exits with status 0 before reading anything.
    ExitAtOnce => "exit-at-once",
    /// Never reads its stdin and never writes; lives until killed.
    NeverRead => "never-read",
    /// Writes 1 GiB without a newline, then nothing more, reading nothing.
    EndlessLine => "endless-line",
    /// Writes valid `notifications/message` without end and never reads.
    NotificationFlood => "notification-flood",
    /// Answers every line with a line that is not UTF-8.
    InvalidUtf8 => "invalid-utf8",
    /// Closes its stdout at once and keeps running (reading, never exiting on its own).
    CloseStdout => "close-stdout",
    /// Serves `initialize`, then exits with status 1 on the next request.
    CrashMidSession => "crash-mid-session",
    /// Reads nothing for ten minutes, then serves: every answer comes ten minutes late.
    AnswerLate => "answer-late",
    /// A grandchild in its process group holds its stdin, stdout and stderr open (`sleep 300`);
    /// the server itself exits with status 1 at once.
    GrandchildHoldsPipes => "grandchild-holds-pipes",
    /// A grandchild that leaves the process group (`setsid`) holds its stdin, stdout and stderr
    /// open for 60 s; the server itself exits with status 1 at once. Nothing that kills process
    /// groups reaches it: it must be named.
    SetsidGrandchild => "setsid-grandchild",
    /// Unknown methods get -32603 instead of -32601.
    UnknownMethodWrongCode => "unknown-method-wrong-code",
    /// Unknown notifications are answered with an error response (-32601, no id).
    AnswerNotifications => "answer-notifications",
    /// Lines that are not JSON and messages that are not valid requests get no answer at all;
    /// the session goes on.
    SilentOnMalformed => "silent-on-malformed",
    /// Exits with status 1 on a line that is not JSON.
    CrashOnGarbage => "crash-on-garbage",
    /// `{"jsonrpc":"2.0","id":N}` (no method) is answered with a result.
    AcceptInvalidRequest => "accept-invalid-request",
    /// Every batch is answered with one -32600 error, in 2025-03-26 too.
    RejectBatches => "reject-batches",
    /// Batches are processed in every revision.
    AcceptBatches => "accept-batches",
    /// Sends `notifications/tools/list_changed` right after the initialize response.
    ListChangedBeforeInitialized => "list-changed-before-initialized",
    /// Sends `notifications/message` but does not declare `logging`.
    UndeclaredLogging => "undeclared-logging",
    /// `test_tool_with_progress` reports 3, 2, 1.
    ProgressDecreasing => "progress-decreasing",
    /// `test_tool_with_progress` sends one more progress notification after its response.
    ProgressAfterResponse => "progress-after-response",
    /// Progress notifications carry a token nobody sent.
    ProgressUnknownToken => "progress-unknown-token",
    /// Cancellation is ignored: `slow` still answers after a cancel.
    RespondAfterCancel => "respond-after-cancel",
    /// Exits with status 1 when a cancel names a request that is not in flight.
    CrashOnUnknownCancel => "crash-on-unknown-cancel",
    /// The last page's `nextCursor` points to the first page.
    PaginationCycle => "pagination-cycle",
    /// Consecutive pages overlap by one item.
    PaginationDuplicates => "pagination-duplicates",
    /// An invalid cursor gets the first page.
    AcceptInvalidCursor => "accept-invalid-cursor",
    /// An unknown tool gets an `isError` result instead of a JSON-RPC error.
    UnknownToolIsErrorResult => "unknown-tool-is-error-result",
    /// `add` refuses every call with an error result (`isError`, no `structuredContent`), as a
    /// tool does with arguments it does not accept.
    OutputToolRefuses => "output-tool-refuses",
    /// `add`'s `structuredContent` violates its `outputSchema` (`sum` is a string).
    StructuredContentMismatch => "structured-content-mismatch",
    /// An unknown resource gets -32603 instead of -32002.
    UnknownResourceWrongCode => "unknown-resource-wrong-code",
    /// `prompts/get` without a required argument succeeds.
    PromptMissingArgumentAccepted => "prompt-missing-argument-accepted",
    /// `logging/setLevel` with an invalid level succeeds.
    InvalidLogLevelAccepted => "invalid-log-level-accepted",
    /// Log messages ignore the level set by `logging/setLevel`.
    LogLevelIgnored => "log-level-ignored",
    /// A completion carries 150 values.
    CompletionTooMany => "completion-too-many",
    /// `test_sampling` sends `sampling/createMessage` to a client without `sampling`.
    SamplingWithoutCapability => "sampling-without-capability",
    /// `test_sampling` sends `tools` to a client without `sampling.tools`.
    SamplingToolsWithoutCapability => "sampling-tools-without-capability",
    /// An extra tool without a fixture name, `summarize`, samples with `tools` even from a client
    /// that declared `sampling` without `sampling.tools` (found only by calling every tool).
    UnnamedSamplingTools => "unnamed-sampling-tools",
    /// An extra tool without a fixture name, `research`, runs a sampling tool loop whose next
    /// request leaves the model's `tool_use` without its `tool_result`.
    UnnamedUnbalancedToolLoop => "unnamed-unbalanced-tool-loop",
    /// Once `test_simple_text` has been called, `tools/list` holds one more tool, and no
    /// `notifications/tools/list_changed` says so (though `listChanged` is declared).
    ToolAddedSilently => "tool-added-silently",
    /// Not a defect: the same change as `tool-added-silently`, announced with
    /// `notifications/tools/list_changed` — the innocent side of that check.
    ToolAddedAnnounced => "tool-added-announced",
    /// Once a tool call has been carried out, `tools/list` answers with an internal error: state
    /// one scenario leaves behind for the next, which sessions shared blindly would misjudge.
    ListingFailsAfterCall => "listing-fails-after-call",
    /// `test_roots` sends `roots/list` to a client that did not declare `roots`.
    RootsWithoutCapability => "roots-without-capability",
    /// `test_elicitation`'s URL-mode elicitation names something that is not a URL.
    ElicitationUrlInvalid => "elicitation-url-invalid",
    /// `test_elicitation` announces a URL-mode elicitation complete under an id it never used.
    ElicitationCompleteUnknown => "elicitation-complete-unknown",
    /// `test_elicitation` sends `elicitation/create` to a client without `elicitation`.
    ElicitationWithoutCapability => "elicitation-without-capability",
    /// Responses are pretty-printed over several lines (stdio only).
    PrettyPrintedJson => "pretty-printed-json",
    /// Sends `roots/list` (or `sampling/createMessage`, whichever the client declared; nothing to
    /// a client that declared neither) right after the initialize response, before `initialized`.
    RequestBeforeInitialized => "request-before-initialized",
    /// Notifications carry an `id`.
    NotificationWithId => "notification-with-id",
    /// Each ping is answered twice.
    DuplicateResponse => "duplicate-response",
    /// Responses (but the initialize response) carry `"id": null`.
    NullIdResponse => "null-id-response",
    /// Error codes are strings.
    ErrorCodeString => "error-code-string",
    /// `ping` is answered with `{"ok":true}`.
    PingNonEmptyResult => "ping-non-empty-result",
    /// Every `tools/call` that carries no progress token is followed, right after its answer,
    /// by a progress notification with token `0`, which no request of the client carries.
    ProgressTokenZero => "progress-token-zero",
    /// The initialize result's `serverInfo.websiteUrl` is `"not a uri"`: from 2025-11-25 on,
    /// where it has `format: uri`, a message whose only defect is a format.
    WebsiteUrlNotUri => "website-url-not-uri",
    // ---- the stateless era (2026-07-28; `server/modern.rs`, `server/mrtr.rs`) ----
    // Each acts only on requests served by the stateless rules; legacy sessions are untouched.
    /// `server/discover` answers without `ttlMs` and `cacheScope` (caching.mdx: MUST include).
    ModernDiscoverMissingCacheHints => "modern-discover-missing-cache-hints",
    /// `server/discover` declares `prompts`, but `prompts/list` answers -32601.
    ModernDiscoverListsUndeclared => "modern-discover-lists-undeclared",
    /// A request whose `params._meta` lacks the version or the capabilities is served (as the
    /// newest modern version, no capabilities) instead of -32602. On a dual-era server a request
    /// without `_meta` is legacy, so `server/discover` without `_meta` shows it (or any request
    /// to a modern-only server).
    ModernMetaNotRequired => "modern-meta-not-required",
    /// An unsupported `_meta` protocol version gets -32602 instead of -32022.
    ModernUnsupportedVersionWrongCode => "modern-unsupported-version-wrong-code",
    /// The -32022 of an unsupported version has no `data.supported` (only `requested`).
    ModernUnsupportedVersionNoList => "modern-unsupported-version-no-list",
    /// `ping` (removed in 2026-07-28) is answered with a result instead of -32601.
    ModernRemovedMethodServed => "modern-removed-method-served",
    /// Results carry no `resultType`.
    ModernResultTypeMissing => "modern-result-type-missing",
    /// `tools/list` results carry no `ttlMs` and `cacheScope`.
    ModernCacheHintsMissing => "modern-cache-hints-missing",
    /// Every cacheable result says `ttlMs: -1000` (caching.mdx: MUST be `>= 0`).
    ModernNegativeTtl => "modern-negative-ttl",
    /// Every cacheable result says `cacheScope: "shared"` (neither `public` nor `private`).
    ModernBadCacheScope => "modern-bad-cache-scope",
    /// `test_elicitation` (and every MRTR fixture) asks for input the request's capabilities do
    /// not declare instead of -32021 (mrtr.mdx: MUST NOT).
    ModernInputRequestUndeclared => "modern-input-request-undeclared",
    /// A retry's `requestState` is decoded but never verified: a tampered state is accepted (an
    /// undecodable one counts as none) instead of -32602.
    ModernRequestStateUnchecked => "modern-request-state-unchecked",
    /// `tools/list` answers `input_required` (mrtr.mdx: only prompts/get, resources/read and
    /// tools/call may).
    ModernInputRequiredOnList => "modern-input-required-on-list",
    /// The first answer of an MRTR fixture is `input_required` with neither `inputRequests` nor
    /// `requestState` (mrtr.mdx: MUST include at least one).
    ModernInputRequiredEmpty => "modern-input-required-empty",
    /// A retry missing some input responses gets -32602 instead of a new `input_required`
    /// asking again (mrtr.mdx: SHOULD).
    ModernMissingInputError => "modern-missing-input-error",
    /// A retry whose `inputResponses` holds a key that was not asked for gets -32602 instead of
    /// the extra being ignored (mrtr.mdx: SHOULD ignore).
    ModernExtraInputRejected => "modern-extra-input-rejected",
    /// `resources/read` of an unknown resource answers `contents: []` (resources.mdx: MUST NOT).
    ModernUnknownResourceEmptyContents => "modern-unknown-resource-empty-contents",
    /// `resources/read` of an unknown resource answers -32002, which 2026-07-28 implementations
    /// MUST NOT emit, instead of -32602.
    ModernUnknownResourceOldCode => "modern-unknown-resource-old-code",
    /// Error responses to stateless requests drop the request id (which was readable).
    ModernErrorWithoutId => "modern-error-without-id",
    /// Every stateless `tools/call` is preceded by a `ping` request to the client (servers MUST
    /// NOT initiate requests in 2026-07-28).
    ModernServerSendsRequest => "modern-server-sends-request",
    /// `subscriptions/listen` is never acknowledged: its notifications come without
    /// `notifications/subscriptions/acknowledged` first.
    ModernListenNoAck => "modern-listen-no-ack",
    /// Notifications of a listen stream carry no `_meta` subscription id.
    ModernListenMissingSubscriptionId => "modern-listen-missing-subscription-id",
    /// A listen stream that did not ask for `toolsListChanged` gets a
    /// `notifications/tools/list_changed` right after its acknowledgement.
    ModernListenUnrequested => "modern-listen-unrequested",
    /// `test_tool_with_logging` logs to a request whose `_meta` names no `logLevel`
    /// (logging.mdx: MUST NOT).
    ModernLogWithoutLevel => "modern-log-without-level",
    /// HTTP: `Mcp-Method` and `Mcp-Name` are not compared with the body (a mismatch is served
    /// instead of 400 + -32020).
    ModernHttpHeaderUnchecked => "modern-http-header-unchecked",
    /// HTTP: errors of stateless requests are answered with status 200 (not 400 / 404).
    ModernHttpStatus200OnError => "modern-http-status-200-on-error",
    // ---- the HTTP layer (`transport::http_server`), Streamable HTTP unless "legacy" ----
    /// A POST holding only notifications or responses is answered 200 with a JSON body, not 202.
    HttpAcceptedWithBody => "http-accepted-with-body",
    /// Session ids end in a space and a Latin-1 `é`, outside visible ASCII (0x21–0x7E).
    HttpSessionIdInvalidChars => "http-session-id-invalid-chars",
    /// DELETE answers 200 but the session goes on serving, instead of 404 afterwards.
    HttpDeletedSessionServed => "http-deleted-session-served",
    /// A request without `Mcp-Session-Id` is served by the latest session instead of 400.
    HttpMissingSessionIdServed => "http-missing-session-id-served",
    /// An unknown session id gets 400 instead of 404.
    HttpUnknownSession400 => "http-unknown-session-400",
    /// An invalid or unsupported `MCP-Protocol-Version` is accepted instead of 400.
    HttpProtocolVersionUnchecked => "http-protocol-version-unchecked",
    /// A foreign `Origin` is served instead of 403.
    HttpForeignOriginAccepted => "http-foreign-origin-accepted",
    /// A POST whose `Accept` lacks `application/json` or `text/event-stream` is served, not 406.
    HttpAcceptUnchecked => "http-accept-unchecked",
    /// A POST whose `Content-Type` is not `application/json` is served instead of 415.
    HttpContentTypeUnchecked => "http-content-type-unchecked",
    /// GET is answered 200 `application/json` `{}`: neither an SSE stream nor 405.
    HttpGetJson => "http-get-json",
    /// Answers to POSTs holding requests (SSE or JSON) say `Content-Type: text/plain`.
    HttpTextPlain => "http-text-plain",
    /// SSE event ids count from 1 on every stream (no stream prefix): repeated across streams.
    SseEventIdsRepeat => "sse-event-ids-repeat",
    /// Server requests and notifications go out on every open stream (broadcast) when there
    /// are two or more.
    SseBroadcast => "sse-broadcast",
    /// Responses go out on the GET stream (when one is open); their POST stream ends empty.
    SseResponseOnGet => "sse-response-on-get",
    /// A POST's SSE stream ends right away (after the priming event, if any), before its
    /// response (2025-03-26/06-18: SHOULD NOT); only a resumption finds the response.
    SseCloseBeforeResponse => "sse-close-before-response",
    /// Responses are dropped and their POST's SSE stream stays open without end.
    SseResponseWithheld => "sse-response-withheld",
    /// A GET with `Last-Event-ID` also replays the events of every other stream.
    SseReplayOtherStream => "sse-replay-other-stream",
    /// Legacy: the endpoint URI comes as a `message` event; there is no `endpoint` event.
    SseNoEndpointEvent => "sse-no-endpoint-event",
    /// Legacy: messages go out as `event: mcp-message` instead of `message`.
    SseWrongEventType => "sse-wrong-event-type",
    // ---- hostile HTTP servers (issue #17), HTTP only: the endpoint is replaced by a raw
    // listener that answers every request alike (`transport::hostile_http`). A run must end on
    // time against each, bounded, with nothing left behind.
    /// Sends a response head one byte a second, never finishing it (slowloris).
    HttpSlowloris => "http-slowloris",
    /// Answers with an SSE stream of valid `notifications/message` without end, never a response.
    HttpEndlessSse => "http-endless-sse",
    /// Answers with a chunked `application/json` body that never ends.
    HttpEndlessChunked => "http-endless-chunked",
    /// Answers with a JSON head announcing 1000 bytes, sends the first few, then nothing more.
    HttpStalledBody => "http-stalled-body",
    /// Answers 200 with `Content-Type: text/html` and a page.
    HttpWrongContentType => "http-wrong-content-type",
    /// Answers 307 back to the same URL: a redirect loop.
    HttpRedirectLoop => "http-redirect-loop",
    /// Answers 503 Service Unavailable to everything.
    HttpServerError => "http-server-error",
    /// Resets every connection (TCP RST) once a request has arrived.
    HttpConnectionReset => "http-connection-reset",
    // ---- planted crashes for `mcpspec fuzz` (`Crash`) ----
    // Each looks, from outside, like a real bug of a Rust server, and trips only on its trigger:
    // otherwise the server is the clean reference server, in both eras. Fuzzing must find each.
    /// A line whose JSON nests deeper than 64 levels (brackets outside strings, counted on the
    /// raw bytes) overflows the stack of a recursive parser: Rust's stack overflow message on
    /// stderr, then SIGABRT. The input a fuzzer's nesting mutations must reach (stdio only).
    FuzzCrashDeepNesting => "fuzz-crash-deep-nesting",
    /// A request whose `id` is a string longer than 512 bytes overflows a fixed id buffer: a
    /// panic in `main` (exit status 101). Found by growing ids, not by any valid session.
    FuzzCrashLongId => "fuzz-crash-long-id",
    /// A line holding invalid UTF-8 is unwrapped as text: a panic on `Utf8Error` in the framing
    /// (exit status 101). Found only by mutating bytes below the JSON level (stdio only).
    FuzzCrashInvalidUtf8 => "fuzz-crash-invalid-utf8",
    /// `tools/call` of `slow` with `ms: 0`, the minimum of its `inputSchema`, divides by zero: a
    /// panic in `main` (exit status 101). Found by schema-driven generation reaching boundary
    /// values; any other tool, or `slow` with another `ms`, is served normally.
    FuzzCrashToolArgument => "fuzz-crash-tool-argument",
    /// A `prompts/list` whose `cursor` is `""`, once the server really lists, loops forever: from then on nothing
    /// is read or answered, and the end of stdin is ignored. Found only by a fuzzer that tells a
    /// hang from a slow answer.
    FuzzHangOnInput => "fuzz-hang-on-input",
}

impl FromStr for Fault {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Fault::ALL.iter().copied().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
            format!("unknown fault {s:?} (known: {})", names.join(", "))
        })
    }
}

/// What the fault layer does with an incoming line before the server sees it.
#[derive(Debug, PartialEq)]
pub(crate) enum Intercept {
    /// Hand it to the server.
    Pass,
    /// Exit the process with this status.
    Exit(i32),
    /// Answer with these messages instead of asking the server.
    Answer(Vec<Value>),
    /// Die (or hang) as the planted bug does.
    Crash(Crash),
}

/// How a planted bug (the `fuzz-` faults) ends the process, as the real bug would from outside.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Crash {
    /// A panic in the main thread: Rust's panic message at `at` on stderr, exit status 101.
    Panic { at: &'static str, message: String },
    /// A recursive function ran out of stack: Rust's stack overflow message, then SIGABRT.
    StackOverflow,
    /// Stuck in a loop: alive, but reading and answering nothing more, whatever comes (the end
    /// of stdin included). Only SIGTERM or SIGKILL end it.
    Hang,
}

/// The nesting a recursive parser survives (`fuzz-crash-deep-nesting`).
pub(crate) const MAX_NESTING: usize = 64;
/// The longest string id the fixed id buffer takes (`fuzz-crash-long-id`).
pub(crate) const MAX_ID_BYTES: usize = 512;

impl Crash {
    /// What the process writes to stderr as it dies.
    pub(crate) fn stderr(&self) -> String {
        match self {
            Crash::Panic { at, message } => format!(
                "thread 'main' panicked at {at}:\n{message}\nnote: run with `RUST_BACKTRACE=1` \
                 environment variable to display a backtrace\n"
            ),
            Crash::StackOverflow => {
                "\nthread 'main' has overflowed its stack\nfatal runtime error: stack overflow\n".into()
            }
            Crash::Hang => String::new(),
        }
    }

    /// Ends the process as the bug does; a hang awaits forever instead. Never returns.
    pub(crate) async fn happen(self) -> std::convert::Infallible {
        if self == Crash::Hang {
            loop {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
        }
        eprint!("{}", self.stderr());
        match self {
            Crash::StackOverflow => std::process::abort(),
            _ => std::process::exit(101),
        }
    }

    /// `fuzz-crash-tool-argument`: `slow`'s `ms` as a divisor.
    pub(crate) fn divide_by_zero() -> Crash {
        Crash::Panic {
            at: "reference/peers/src/server/jobs.rs:87:24",
            message: "attempt to divide by zero".into(),
        }
    }
}

/// A look at one raw line (without its `\n`) before it is decoded: the crash it causes, if any.
pub(crate) type LineCheck = fn(&[u8]) -> Option<Crash>;

impl Fault {
    /// Whether the fault replaces the whole HTTP endpoint with a hostile listener
    /// ([`crate::transport::hostile_http`]).
    pub fn is_hostile_http(self) -> bool {
        matches!(
            self,
            Fault::HttpSlowloris
                | Fault::HttpEndlessSse
                | Fault::HttpEndlessChunked
                | Fault::HttpStalledBody
                | Fault::HttpWrongContentType
                | Fault::HttpRedirectLoop
                | Fault::HttpServerError
                | Fault::HttpConnectionReset
        )
    }

    /// The check of each raw line (without its `\n`) before it is decoded, for the faults that
    /// act on bytes (stdio only); `None` for every other fault, which then costs nothing.
    pub(crate) fn line_check(self) -> Option<LineCheck> {
        match self {
            Fault::FuzzCrashDeepNesting => {
                Some(|line| nests_deeper_than(line, MAX_NESTING).then_some(Crash::StackOverflow))
            }
            Fault::FuzzCrashInvalidUtf8 => Some(|line| {
                let error = std::str::from_utf8(line).err()?;
                Some(Crash::Panic {
                    at: "reference/protocol/src/framing.rs:273:51",
                    message: format!("called `Result::unwrap()` on an `Err` value: {error:?}"),
                })
            }),
            _ => None,
        }
    }
}

/// Whether more than `max` arrays or objects are open at once anywhere in `line`: brackets
/// outside strings, counted on the bytes (whatever else the line holds), so that the count
/// itself never recurses.
pub(crate) fn nests_deeper_than(line: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in line {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// The length of the longest string id over [`MAX_ID_BYTES`] of a request in `value` (a
/// message or a batch), if any.
fn overlong_request_id(value: &Value) -> Option<usize> {
    let of = |m: &Value| match (m.get("method"), m.get("id")) {
        (Some(_), Some(Value::String(id))) if id.len() > MAX_ID_BYTES => Some(id.len()),
        _ => None,
    };
    match value {
        Value::Array(items) => items.iter().find_map(of),
        _ => of(value),
    }
}

/// The notifications the reference server knows; the rest are "unknown".
const KNOWN_NOTIFICATIONS: [&str; 4] = [
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/roots/list_changed",
];

/// A fault in action inside [`serve_stdio`](crate::server::serve_stdio).
pub(crate) struct FaultState {
    fault: Fault,
    answered: bool,
    notifications_sent: u64,
}

impl FaultState {
    pub(crate) fn new(fault: Fault) -> Self {
        FaultState { fault, answered: false, notifications_sent: 0 }
    }

    pub(crate) async fn at_start<W: AsyncWrite + Unpin>(&mut self, out: &mut W) -> std::io::Result<()> {
        match self.fault {
            Fault::CrashAtStart => {
                eprintln!("fatal: mcpspec fault 'crash-at-start'");
                std::process::exit(1);
            }
            Fault::Flood => loop {
                out.write_all(b"flood flood flood flood flood flood flood flood flood flood\n").await?;
            },
            Fault::IgnoreSigterm => ignore_sigterm(),
            Fault::SpawnGrandchild => {
                // Inherits our process group; `std` so that nothing waits for it.
                std::process::Command::new("sleep").arg("300").spawn()?;
            }
            Fault::ExitAtOnce => std::process::exit(0),
            Fault::NeverRead | Fault::CloseStdout => {
                if self.fault == Fault::CloseStdout {
                    close_stdout();
                }
                live_on();
            }
            Fault::EndlessLine => {
                let chunk = vec![b'x'; 1 << 20];
                for _ in 0..1024 {
                    out.write_all(&chunk).await?;
                }
                out.flush().await?;
                live_on();
            }
            Fault::NotificationFlood => {
                let line = framing::encode(&json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "flood"}}));
                let batch = line.repeat(64);
                loop {
                    out.write_all(&batch).await?;
                }
            }
            Fault::AnswerLate => std::thread::sleep(Duration::from_secs(600)),
            Fault::GrandchildHoldsPipes | Fault::SetsidGrandchild => {
                spawn_pipe_holder(self.fault == Fault::SetsidGrandchild)?;
                eprintln!("fatal: mcpspec fault '{}'", self.fault.name());
                std::process::exit(1);
            }
            _ => {}
        }
        Ok(())
    }

    /// Looks at a line before the server does.
    pub(crate) fn intercept(&mut self, incoming: &FrameContent, server: &ReferenceServer) -> Intercept {
        let value = match incoming {
            FrameContent::Invalid(_) if self.fault == Fault::CrashOnGarbage => return Intercept::Exit(1),
            FrameContent::Json { value, .. } => value,
            _ => return Intercept::Pass,
        };
        match self.fault {
            Fault::CrashMidSession
                if value.get("id").is_some()
                    && value.get("method").and_then(Value::as_str).is_some_and(|m| m != "initialize") =>
            {
                Intercept::Exit(1)
            }
            Fault::FuzzCrashLongId => match overlong_request_id(value) {
                Some(len) => Intercept::Crash(Crash::Panic {
                    at: "reference/peers/src/server/ids.rs:48:13",
                    message: format!("id buffer overflow: {len} > {MAX_ID_BYTES}"),
                }),
                None => Intercept::Pass,
            },
            Fault::RejectBatches if value.is_array() => Intercept::Answer(vec![json!({"jsonrpc": "2.0",
                "error": {"code": -32600, "message": "Invalid Request: batches are not supported"}})]),
            Fault::AcceptInvalidRequest
                if value.get("method").is_none()
                    && value.get("result").is_none()
                    && value.get("error").is_none() =>
            {
                match value.get("id").filter(|id| RequestId::from_value(id).is_some()) {
                    Some(id) => Intercept::Answer(vec![json!({"jsonrpc": "2.0", "id": id, "result": {}})]),
                    None => Intercept::Pass,
                }
            }
            Fault::CrashOnUnknownCancel if value["method"] == "notifications/cancelled" => {
                match RequestId::from_value(&value["params"]["requestId"]) {
                    Some(id) if server.is_in_flight(&id) => Intercept::Pass,
                    _ => Intercept::Exit(1),
                }
            }
            _ => Intercept::Pass,
        }
    }

    /// Turns the server's answers to `incoming` (`None`: to the passing of time) into the bytes
    /// to write.
    pub(crate) fn outgoing(&mut self, incoming: Option<&FrameContent>, answers: Vec<Value>) -> Vec<u8> {
        let mut bytes = Vec::new();
        if self.fault == Fault::InvalidUtf8 {
            // A lone continuation byte and a byte UTF-8 never uses, inside what looks like JSON.
            for _ in &answers {
                bytes.extend(b"{\"jsonrpc\":\"2.0\",\"result\":\"\x80\xff\"}\n");
            }
            return bytes;
        }
        if !answers.is_empty() && !self.answered {
            self.answered = true;
            match self.fault {
                Fault::NonJsonLine => bytes.extend(b"[info] reference server ready\n"),
                Fault::HugeLine => {
                    bytes.extend(std::iter::repeat_n(b'x', 16 * 1024 * 1024));
                    bytes.push(b'\n');
                }
                _ => {}
            }
        }
        for a in self.messages(incoming, answers) {
            let response = a.get("method").is_none();
            if self.fault == Fault::PrettyPrintedJson && response {
                bytes.extend(serde_json::to_vec_pretty(&a).unwrap_or_default());
                bytes.push(b'\n');
            } else {
                bytes.extend(framing::encode(&a));
            }
        }
        bytes
    }

    /// The message-level part of [`outgoing`](Self::outgoing): the server's answers to
    /// `incoming` as the fault changes them (added, altered, duplicated or dropped messages).
    /// This part applies over every transport; the bytes around it only over stdio.
    pub(crate) fn messages(
        &mut self,
        incoming: Option<&FrameContent>,
        mut answers: Vec<Value>,
    ) -> Vec<Value> {
        let mut out = Vec::new();
        let incoming = match incoming {
            Some(FrameContent::Json { value, .. }) => Some(value),
            _ => None,
        };
        let method = incoming.and_then(|v| v.get("method")).and_then(Value::as_str);
        let is_request = incoming.is_some_and(|v| v.get("id").is_some());
        let initialize = method == Some("initialize");
        if initialize {
            let init_ok = answers.iter().any(|a| a.get("result").is_some());
            match self.fault {
                Fault::ListChangedBeforeInitialized if init_ok => {
                    answers.push(json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}))
                }
                // A ping would be legal here (lifecycle.mdx: "other than pings and logging"),
                // and a request for an undeclared capability would be a second defect: the early
                // request is roots/list, or sampling, whichever the client declared.
                Fault::RequestBeforeInitialized if init_ok => {
                    let caps = incoming.map(|v| &v["params"]["capabilities"]);
                    let declared = |c: &str| caps.and_then(|caps| caps.get(c)).is_some_and(|v| !v.is_null());
                    if declared("roots") {
                        answers.push(
                            json!({"jsonrpc": "2.0", "id": "mcpspec-early-request", "method": "roots/list"}),
                        );
                    } else if declared("sampling") {
                        answers.push(json!({"jsonrpc": "2.0", "id": "mcpspec-early-request",
                            "method": "sampling/createMessage", "params": {"maxTokens": 10,
                                "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}]}}));
                    }
                }
                _ => {}
            }
        }
        if self.fault == Fault::AnswerNotifications
            && !is_request
            && method.is_some_and(|m| !KNOWN_NOTIFICATIONS.contains(&m))
        {
            answers.push(json!({"jsonrpc": "2.0",
                "error": {"code": -32601, "message": format!("Method not found: {}", method.unwrap_or(""))}}));
        }
        // After the answer: nothing waits for it, so only judging what is still in flight at
        // the end of a session catches it.
        if self.fault == Fault::ProgressTokenZero
            && is_request
            && method == Some("tools/call")
            && incoming.is_some_and(|v| v.pointer("/params/_meta/progressToken").is_none())
        {
            answers.push(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                "params": {"progressToken": 0, "progress": 1}}));
        }
        for mut a in answers {
            let response = a.get("method").is_none();
            let notification = !response && a.get("id").is_none();
            let mut copies = 1;
            match self.fault {
                Fault::EchoUnsupportedRevision if initialize => {
                    let requested = incoming.map(|v| v["params"]["protocolVersion"].clone());
                    if let (Some(v @ Value::String(_)), Some(result)) = (requested, a.get_mut("result")) {
                        result["protocolVersion"] = v;
                    }
                }
                Fault::WebsiteUrlNotUri if initialize => {
                    if let Some(info) = a.pointer_mut("/result/serverInfo").and_then(Value::as_object_mut) {
                        info.insert("websiteUrl".into(), "not a uri".into());
                    }
                }
                Fault::UndeclaredLogging if initialize => {
                    if let Some(caps) = a.pointer_mut("/result/capabilities").and_then(Value::as_object_mut) {
                        caps.remove("logging");
                    }
                }
                Fault::ResultAndError if a.get("result").is_some() => {
                    a["error"] = json!({"code": -32603, "message": "and also an error"});
                }
                Fault::StringifyIds if response => {
                    if let Some(n) = a.get("id").filter(|id| id.is_number()) {
                        a["id"] = n.to_string().into();
                    }
                }
                Fault::UnknownMethodWrongCode if a["error"]["code"] == -32601 => {
                    a["error"]["code"] = json!(-32603)
                }
                Fault::UnknownResourceWrongCode if a["error"]["code"] == -32002 => {
                    a["error"]["code"] = json!(-32603)
                }
                Fault::ErrorCodeString if a["error"]["code"].is_i64() => {
                    a["error"]["code"] = a["error"]["code"].to_string().into();
                }
                Fault::ProgressUnknownToken if a["method"] == "notifications/progress" => {
                    a["params"]["progressToken"] = "mcpspec-token-nobody-sent".into();
                }
                Fault::NotificationWithId if notification => {
                    self.notifications_sent += 1;
                    a["id"] = format!("notification-{}", self.notifications_sent).into();
                }
                Fault::NullIdResponse if response && !initialize => a["id"] = Value::Null,
                Fault::DuplicateResponse if response && method == Some("ping") => copies = 2,
                Fault::PingNonEmptyResult if method == Some("ping") && a.get("result").is_some() => {
                    a["result"] = json!({"ok": true});
                }
                Fault::Hang => return Vec::new(),
                _ => {}
            }
            for _ in 0..copies {
                out.push(a.clone());
            }
        }
        out
    }

    /// After stdin closed: some faults refuse to exit.
    pub(crate) async fn at_eof(&mut self) {
        if matches!(self.fault, Fault::Hang | Fault::IgnoreSigterm) {
            loop {
                tokio::time::sleep(Duration::from_secs(3600)).await;
            }
        }
    }
}

/// Closes every descriptor of this process that is its stdout's pipe (fd 1 and the copies the
/// event loop writes through): the reader sees end of file while the process lives on.
fn close_stdout() {
    let Ok(stdout) = std::fs::read_link("/proc/self/fd/1") else { return };
    let fds: Vec<i32> = std::fs::read_dir("/proc/self/fd")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| std::fs::read_link(e.path()).is_ok_and(|l| l == stdout))
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect();
    for fd in fds {
        let _ = nix::unistd::close(fd);
    }
}

/// Starts a grandchild that holds this process's stdin, stdout and stderr open: `sleep 300` in
/// the process group, or with `setsid`, `sleep 60` in a session (and group) of its own.
pub(crate) fn spawn_pipe_holder(setsid: bool) -> std::io::Result<()> {
    let mut grandchild = std::process::Command::new("sleep");
    if setsid {
        grandchild.arg("60");
        use std::os::unix::process::CommandExt as _;
        // SAFETY: setsid is async-signal-safe, as code between fork and exec must be.
        unsafe {
            grandchild.pre_exec(|| nix::unistd::setsid().map(drop).map_err(std::io::Error::from));
        }
    } else {
        grandchild.arg("300");
    }
    // Inherits stdin, stdout and stderr: the pipes stay open while it lives.
    grandchild.spawn().map(drop)
}

/// Blocks this thread until the process is killed (a hostile process never exits on its own).
pub(crate) fn live_on() -> ! {
    loop {
        std::thread::sleep(Duration::from_secs(3600));
    }
}

fn ignore_sigterm() {
    use nix::sys::signal::{signal, SigHandler, Signal};
    // SAFETY: installing SIG_IGN runs no handler code; nothing else in this process relies on
    // SIGTERM's disposition.
    unsafe {
        let _ = signal(Signal::SIGTERM, SigHandler::SigIgn);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::ServerConfig;
    use std::time::Instant;

    /// The server behind the fault layer, as `serve_stdio` runs it, on virtual time.
    struct Peer {
        server: ReferenceServer,
        layer: FaultState,
        now: Instant,
    }

    impl Peer {
        fn new(fault: Fault) -> Peer {
            let server = ReferenceServer::new(ServerConfig::default()).with_fault(Some(fault));
            Peer { server, layer: FaultState::new(fault), now: Instant::now() }
        }

        /// Initialized at `rev`; returns what the server wrote for `initialize`.
        fn at(fault: Fault, rev: &str, caps: Value) -> (Peer, Vec<Value>) {
            let mut p = Peer::new(fault);
            let init = p.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
                "protocolVersion":rev,"capabilities":caps,"clientInfo":{"name":"t","version":"1"}}}));
            p.send(json!({"jsonrpc":"2.0","method":"notifications/initialized"}));
            (p, init)
        }

        fn feed(&mut self, frame: FrameContent) -> Result<Vec<u8>, i32> {
            let answers = match self.layer.intercept(&frame, &self.server) {
                Intercept::Exit(code) => return Err(code),
                // What a panic in `main` exits with (only `fuzz-crash-long-id` crashes here).
                Intercept::Crash(_) => return Err(101),
                Intercept::Answer(a) => a,
                Intercept::Pass => self.server.on_frame_at(&frame, self.now),
            };
            Ok(self.layer.outgoing(Some(&frame), answers))
        }

        fn bytes(&mut self, v: Value) -> Vec<u8> {
            self.feed(FrameContent::Json { value: v, crlf: false, lines: 1 }).expect("no exit")
        }

        fn send(&mut self, v: Value) -> Vec<Value> {
            lines(&self.bytes(v))
        }

        fn advance(&mut self, ms: u64) -> Vec<Value> {
            self.now += Duration::from_millis(ms);
            let answers = self.server.poll(self.now);
            lines(&self.layer.outgoing(None, answers))
        }

        fn call(&mut self, method: &str, params: Value) -> Value {
            let mut out = self.send(json!({"jsonrpc":"2.0","id":7,"method":method,"params":params}));
            assert_eq!(out.len(), 1, "{out:?}");
            out.remove(0)
        }
    }

    fn lines(bytes: &[u8]) -> Vec<Value> {
        bytes
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .map(|l| serde_json::from_slice(l).expect("one JSON value per line"))
            .collect()
    }

    fn at(fault: Fault, rev: &str) -> Peer {
        Peer::at(fault, rev, json!({})).0
    }

    fn tool(name: &str, args: Value) -> Value {
        json!({"jsonrpc":"2.0","id":"t","method":"tools/call","params":{"name":name,"arguments":args}})
    }

    #[test]
    fn names_are_unique_and_parse_back() {
        assert_eq!(Fault::ALL.len(), 124);
        for f in Fault::ALL {
            assert_eq!(f.name().parse::<Fault>(), Ok(*f));
        }
        let mut names: Vec<_> = Fault::ALL.iter().map(|f| f.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), Fault::ALL.len());
        assert!("nope".parse::<Fault>().unwrap_err().contains("ping-non-empty-result"));
    }

    #[test]
    fn skeleton_faults() {
        let (_, init) = Peer::at(Fault::WebsiteUrlNotUri, "2025-11-25", json!({}));
        assert_eq!(init[0]["result"]["serverInfo"]["websiteUrl"], "not a uri");
        let (_, init) = Peer::at(Fault::ResultAndError, "2025-06-18", json!({}));
        assert!(init[0].get("error").is_some() && init[0].get("result").is_some());
        let mut p = at(Fault::StringifyIds, "2025-06-18");
        assert_eq!(p.call("ping", json!({}))["id"], "7");
        let mut p = Peer::new(Fault::NonJsonLine);
        assert!(p.bytes(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).starts_with(b"[info]"));
        let mut p = Peer::new(Fault::EchoUnsupportedRevision);
        let init = p.send(json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}));
        assert_eq!(init[0]["result"]["protocolVersion"], "1999-01-01");
        let mut p = Peer::new(Fault::Hang);
        assert!(p.bytes(json!({"jsonrpc":"2.0","id":1,"method":"ping"})).is_empty());
    }

    #[test]
    fn unknown_method_wrong_code() {
        assert_eq!(
            at(Fault::UnknownMethodWrongCode, "2025-06-18").call("nope", json!({}))["error"]["code"],
            -32603
        );
    }

    #[test]
    fn answer_notifications() {
        let mut p = at(Fault::AnswerNotifications, "2025-06-18");
        let out = p.send(json!({"jsonrpc":"2.0","method":"notifications/unknown"}));
        assert_eq!(out[0]["error"]["code"], -32601);
        assert!(out[0].get("id").is_none());
        assert!(p
            .send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}))
            .is_empty());
    }

    #[test]
    fn crash_on_garbage() {
        let mut p = at(Fault::CrashOnGarbage, "2025-06-18");
        let garbage = framing::decode_line(b"{");
        assert_eq!(p.feed(garbage), Err(1));
    }

    /// The planted bugs of `mcpspec fuzz`, below the process: what trips each and what does not
    /// (the process itself: `harness/tests/suite/fuzz_faults.rs`).
    #[test]
    fn fuzz_line_checks_trip_on_their_trigger_only() {
        let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n)).into_bytes();
        let nesting = Fault::FuzzCrashDeepNesting.line_check().unwrap();
        assert_eq!(nesting(&deep(65)), Some(Crash::StackOverflow));
        assert_eq!(nesting(&"{\"a\":".repeat(65).into_bytes()), Some(Crash::StackOverflow));
        assert_eq!(nesting(&deep(64)), None);
        // Brackets inside strings (escaped quotes included) are text; closers never go below 0.
        let quoted = format!("{{\"a\":\"\\\"{}\"}}", "[".repeat(100));
        assert_eq!(nesting(quoted.as_bytes()), None);
        assert_eq!(nesting(&[b"]]]]".as_slice(), &deep(64)].concat()), None);
        assert!(nests_deeper_than(&vec![b'['; 1_000_000], 64));

        let utf8 = Fault::FuzzCrashInvalidUtf8.line_check().unwrap();
        let Some(Crash::Panic { message, .. }) = utf8(b"{\"a\":\"\xff\"}") else { panic!() };
        assert_eq!(
            message,
            "called `Result::unwrap()` on an `Err` value: Utf8Error { valid_up_to: 6, error_len: Some(1) }"
        );
        assert_eq!(utf8("{\"a\":\"é😀\"}".as_bytes()), None);
        assert!(Fault::ALL.iter().filter(|f| f.line_check().is_some()).count() == 2);
    }

    #[test]
    fn fuzz_crash_long_id() {
        let mut p = at(Fault::FuzzCrashLongId, "2025-06-18");
        let ping = |id: usize| FrameContent::Json {
            value: json!({"jsonrpc":"2.0","id":"x".repeat(id),"method":"ping"}),
            crlf: false,
            lines: 1,
        };
        assert_eq!(p.layer.intercept(&ping(512), &p.server), Intercept::Pass);
        let Intercept::Crash(crash) = p.layer.intercept(&ping(513), &p.server) else { panic!() };
        assert!(crash.stderr().starts_with("thread 'main' panicked at reference/peers/src/server/ids.rs:"));
        assert!(crash.stderr().contains("\nid buffer overflow: 513 > 512\n"), "{}", crash.stderr());
        let response = json!({"jsonrpc":"2.0","id":"x".repeat(600),"result":{}});
        assert_eq!(p.feed(FrameContent::Json { value: response, crlf: false, lines: 1 }), Ok(Vec::new()));
    }

    #[test]
    fn fuzz_crash_tool_argument_and_hang_are_decisions_of_the_server() {
        let mut p = at(Fault::FuzzCrashToolArgument, "2025-06-18");
        assert_eq!(
            p.send(tool("add", json!({"a": 0, "b": 0})))[0]["result"]["structuredContent"]["sum"],
            0.0
        );
        assert!(p.send(tool("slow", json!({"ms": 1}))).is_empty());
        assert_eq!(p.server.take_crash(), None);
        assert_eq!(p.advance(1)[0]["id"], "t");
        assert!(p.send(tool("slow", json!({"ms": 0}))).is_empty());
        assert_eq!(p.server.take_crash(), Some(Crash::divide_by_zero()));
        assert_eq!(Crash::divide_by_zero().stderr().lines().nth(1), Some("attempt to divide by zero"));

        let mut p = at(Fault::FuzzHangOnInput, "2025-06-18");
        for list in ["tools/list", "prompts/list", "resources/list", "resources/templates/list"] {
            assert_eq!(p.call(list, json!({"cursor": "bogus"}))["error"]["code"], -32602);
            assert_eq!(p.server.take_crash(), None);
        }
        for list in ["tools/list", "resources/list", "resources/templates/list"] {
            p.call(list, json!({"cursor": ""}));
            assert_eq!(p.server.take_crash(), None, "{list}");
        }
        p.call("prompts/list", json!({"cursor": ""}));
        assert_eq!(p.server.take_crash(), Some(Crash::Hang));
    }

    #[test]
    fn accept_invalid_request() {
        let mut p = at(Fault::AcceptInvalidRequest, "2025-06-18");
        assert_eq!(p.send(json!({"jsonrpc":"2.0","id":5})), [json!({"jsonrpc":"2.0","id":5,"result":{}})]);
    }

    #[test]
    fn reject_and_accept_batches() {
        let batch =
            json!([{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","id":2,"method":"ping"}]);
        let out = at(Fault::RejectBatches, "2025-03-26").send(batch.clone());
        assert_eq!(out[0]["error"]["code"], -32600);
        let out = at(Fault::AcceptBatches, "2025-06-18").send(batch);
        assert_eq!(out[0].as_array().map(Vec::len), Some(2));
    }

    #[test]
    fn list_changed_and_request_before_initialized() {
        let (_, init) = Peer::at(Fault::ListChangedBeforeInitialized, "2025-06-18", json!({}));
        assert_eq!(init[1]["method"], "notifications/tools/list_changed");
        let (_, init) = Peer::at(Fault::RequestBeforeInitialized, "2025-06-18", json!({"roots": {}}));
        assert_eq!(init[1]["method"], "roots/list");
        let (_, init) = Peer::at(Fault::RequestBeforeInitialized, "2025-06-18", json!({"sampling": {}}));
        assert_eq!(init[1]["method"], "sampling/createMessage");
        assert_eq!(Peer::at(Fault::RequestBeforeInitialized, "2025-06-18", json!({})).1.len(), 1);
        assert!(init[1].get("id").is_some());
    }

    #[test]
    fn undeclared_logging() {
        let (mut p, init) = Peer::at(Fault::UndeclaredLogging, "2025-06-18", json!({}));
        assert!(init[0]["result"]["capabilities"].get("logging").is_none());
        let out = p.send(tool("test_tool_with_logging", json!({})));
        assert_eq!(out[0]["method"], "notifications/message");
    }

    fn progress(fault: Fault) -> Vec<Value> {
        let mut p = at(fault, "2025-06-18");
        let call = json!({"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"test_tool_with_progress","_meta":{"progressToken":"tok"}}});
        assert!(p.send(call).is_empty());
        (0..5).flat_map(|_| p.advance(10)).collect()
    }

    #[test]
    fn progress_faults() {
        let values = |out: &[Value]| -> Vec<Value> {
            out.iter()
                .filter(|m| m["method"] == "notifications/progress")
                .map(|m| m["params"]["progress"].clone())
                .collect()
        };
        assert_eq!(values(&progress(Fault::ProgressDecreasing)), [json!(3), json!(2), json!(1)]);
        let after = progress(Fault::ProgressAfterResponse);
        assert_eq!(after[3]["id"], "p");
        assert_eq!(after[4]["method"], "notifications/progress");
        let unknown = progress(Fault::ProgressUnknownToken);
        assert_eq!(unknown[0]["params"]["progressToken"], "mcpspec-token-nobody-sent");
        let mut p = at(Fault::ProgressTokenZero, "2025-06-18");
        let out = p.send(tool("test_simple_text", json!({})));
        assert_eq!(out[0]["id"], "t");
        assert_eq!(out[1]["params"], json!({"progressToken": 0, "progress": 1}));
        let with_token = json!({"jsonrpc":"2.0","id":"p","method":"tools/call","params":{"name":"test_simple_text","_meta":{"progressToken":"tok"}}});
        assert_eq!(p.send(with_token).len(), 1, "a call with a token gets no stray progress");
    }

    #[test]
    fn respond_after_cancel() {
        let mut p = at(Fault::RespondAfterCancel, "2025-06-18");
        p.send(tool("slow", json!({"ms": 10})));
        p.send(json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"t"}}));
        assert_eq!(p.advance(10)[0]["id"], "t");
    }

    #[test]
    fn crash_on_unknown_cancel() {
        let mut p = at(Fault::CrashOnUnknownCancel, "2025-06-18");
        p.send(tool("slow", json!({"ms": 10})));
        let cancel = |id: &str| FrameContent::Json {
            value: json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":id}}),
            crlf: false,
            lines: 1,
        };
        assert_eq!(p.feed(cancel("t")), Ok(Vec::new()));
        assert_eq!(p.feed(cancel("t")), Err(1));
    }

    fn pages(fault: Fault, max: usize) -> (Vec<String>, bool) {
        let mut p = at(fault, "2025-06-18");
        let mut names = Vec::new();
        let mut params = json!({});
        for _ in 0..max {
            let page = p.call("prompts/list", params);
            names.extend(
                page["result"]["prompts"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|p| p["name"].as_str().unwrap().to_owned()),
            );
            match page["result"].get("nextCursor") {
                Some(c) => params = json!({"cursor": c}),
                None => return (names, true),
            }
        }
        (names, false)
    }

    #[test]
    fn pagination_faults() {
        assert!(pages(Fault::PaginationDuplicates, 10).1);
        let (names, ended) = pages(Fault::PaginationDuplicates, 10);
        assert!(ended && names.len() == 6, "{names:?}");
        let (names, ended) = pages(Fault::PaginationCycle, 6);
        assert!(!ended);
        assert_eq!(names[4], names[0]);
        let mut p = at(Fault::AcceptInvalidCursor, "2025-06-18");
        assert_eq!(
            p.call("tools/list", json!({"cursor": "bogus"}))["result"]["tools"].as_array().unwrap().len(),
            2
        );
    }

    #[test]
    fn tool_faults() {
        let mut p = at(Fault::UnknownToolIsErrorResult, "2025-06-18");
        assert_eq!(p.send(tool("nope", json!({})))[0]["result"]["isError"], true);
        let mut p = at(Fault::StructuredContentMismatch, "2025-06-18");
        assert_eq!(
            p.send(tool("add", json!({"a": 1, "b": 2})))[0]["result"]["structuredContent"]["sum"],
            "3"
        );
    }

    #[test]
    fn resource_and_prompt_faults() {
        let mut p = at(Fault::UnknownResourceWrongCode, "2025-06-18");
        assert_eq!(p.call("resources/read", json!({"uri": "test://nope"}))["error"]["code"], -32603);
        let mut p = at(Fault::PromptMissingArgumentAccepted, "2025-06-18");
        assert!(p.call("prompts/get", json!({"name": "test_prompt_with_arguments"})).get("result").is_some());
    }

    #[test]
    fn logging_faults() {
        let mut p = at(Fault::InvalidLogLevelAccepted, "2025-06-18");
        assert_eq!(p.call("logging/setLevel", json!({"level": "loud"}))["result"], json!({}));
        let mut p = at(Fault::LogLevelIgnored, "2025-06-18");
        p.call("logging/setLevel", json!({"level": "error"}));
        assert_eq!(p.send(tool("test_tool_with_logging", json!({})))[0]["params"]["level"], "debug");
    }

    #[test]
    fn completion_too_many() {
        let mut p = at(Fault::CompletionTooMany, "2025-06-18");
        let c = p.call("completion/complete", json!({"ref": {"type": "ref/resource", "uri": "test://template/{id}/data"}, "argument": {"name": "id", "value": ""}}));
        assert_eq!(c["result"]["completion"]["values"].as_array().unwrap().len(), 150);
    }

    #[test]
    fn client_capability_faults() {
        let mut p = at(Fault::SamplingWithoutCapability, "2025-06-18");
        assert_eq!(p.send(tool("test_sampling", json!({})))[0]["method"], "sampling/createMessage");
        let (mut p, _) =
            Peer::at(Fault::SamplingToolsWithoutCapability, "2025-11-25", json!({"sampling": {}}));
        assert!(p.send(tool("test_sampling", json!({})))[0]["params"]["tools"].is_array());
        let mut p = at(Fault::ElicitationWithoutCapability, "2025-06-18");
        assert_eq!(p.send(tool("test_elicitation", json!({})))[0]["method"], "elicitation/create");
    }

    #[test]
    fn framing_and_envelope_faults() {
        let ping = json!({"jsonrpc":"2.0","id":3,"method":"ping"});
        let bytes = Peer::new(Fault::PrettyPrintedJson).bytes(ping.clone());
        assert!(bytes.iter().filter(|b| **b == b'\n').count() > 1);
        let mut p = at(Fault::NotificationWithId, "2025-06-18");
        assert!(p.send(tool("test_tool_with_logging", json!({})))[0].get("id").is_some());
        assert_eq!(at(Fault::DuplicateResponse, "2025-06-18").send(ping.clone()).len(), 2);
        let (mut p, init) = Peer::at(Fault::NullIdResponse, "2025-06-18", json!({}));
        assert_eq!(init[0]["id"], 1);
        assert_eq!(p.send(ping.clone())[0]["id"], Value::Null);
        assert_eq!(
            at(Fault::ErrorCodeString, "2025-06-18").call("nope", json!({}))["error"]["code"],
            "-32601"
        );
        assert_eq!(at(Fault::PingNonEmptyResult, "2025-06-18").send(ping)[0]["result"], json!({"ok": true}));
    }
}
