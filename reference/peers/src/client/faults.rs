//! Fault injection for the reference client: one deliberate defect per run, so that mcpspec's own
//! tests can prove each client check fails when it should (`mcpspec reference client --fault
//! NAME`). Never used unless asked for.

/// A deliberate defect of the reference client.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ClientFault {
    /// Never sends `notifications/initialized`.
    SkipInitialized,
    /// Uses id 1 for every request.
    ReuseIds,
    /// Sends `tools/list` before `initialize`.
    RequestBeforeInitialize,
    /// Sends its `initialize` inside a JSON-RPC batch.
    InitializeBatched,
    /// Sends a ping with a null id after `notifications/initialized`.
    NullId,
    /// Sends `notifications/initialized` right after `initialize`, before its answer.
    EarlyInitialized,
    /// Does not answer the server's requests.
    IgnoreRequests,
    /// Carries on at a revision it does not support.
    AcceptAnyVersion,
    /// Offers its oldest revision instead of its latest.
    OfferOldest,
    /// Offers its latest legacy revision, then disconnects from a server that accepts it, as
    /// from a revision it does not support.
    OfferUnsupported,
    /// Never closes the server's stdin (and never exits on its own).
    NoShutdown,
    /// Exits at once, without starting the server.
    ExitEarly,
    /// Starts the server and never sends anything.
    Silent,
    /// Sends its `initialize`, then garbage lines without end, reading nothing.
    Flood,
    /// Lists a root whose URI is not a `file://` URI.
    RootsNotFile,
    /// Lists a root whose URI walks out of the project with a `..` segment (unvalidated).
    RootsTraversal,
    /// Opens a second root in the roots-change scenario without notifying the server.
    RootsChangedSilently,
    /// Answers sampling/createMessage with a result without `model`.
    SamplingWithoutModel,
    /// Declares no capability (not a defect: a plainer client, for the scenarios about
    /// undeclared capabilities).
    DeclareNothing,
    /// Sends the `nextCursor` back altered (as if it had been URL-encoded).
    CursorAltered,
    /// Asks once more, with the last cursor, after the page without `nextCursor`.
    PagesPastEnd,
    /// Takes a `nextCursor` of `""` for the end of the results.
    EmptyCursorEnds,
    /// Takes a page shorter than the first for the last one, ignoring its `nextCursor` (it
    /// assumes a fixed page size).
    PageSizeAssumed,
    /// Cancels its own `initialize` request.
    CancelInitialize,
    /// Cancels a request id it never used.
    CancelUnissued,
    /// Sends `notifications/cancelled` without `requestId` (only a reason) once initialized.
    CancelWithoutRequestId,
    /// Sends a ping carrying the progress token of its tool call while the call is active.
    ReuseProgressToken,
    /// Lists tools even when the server did not declare the tools capability.
    UndeclaredRequests,
    /// Gives up the session when the server cancels one of its requests.
    ExitOnCancel,
    /// Gives up the session on `notifications/elicitation/complete` for an elicitation it never
    /// saw, instead of ignoring it.
    ExitOnUnknownElicitationComplete,
    /// Answers a response to a request it cancelled with an error.
    LateResponseError,
    /// Declares roots without listChanged, then sends notifications/roots/list_changed.
    RootsChangedUndeclared,
    /// Samples from a request whose tool use has no tool result, instead of answering -32602.
    SamplingAcceptsUnbalanced,
    /// Samples from a request whose tool result answers a tool use that was never made.
    SamplingAcceptsUnknownToolUseId,
    /// Samples from a request whose user message mixes tool results with other content.
    SamplingAcceptsMixedToolResults,
    /// Uses tools in sampling without declaring `sampling.tools`.
    SamplingToolsUndeclared,
    /// Declares `sampling` without `sampling.tools`, and answers a sampling request carrying
    /// tools with a text result instead of an error.
    SamplingToolsIgnored,
    /// Answers sampling/createMessage without `stopReason`, tool uses included.
    SamplingWithoutStopReason,
    /// Answers a sampling request with `toolChoice: {mode: "required"}` in text, using no tool.
    SamplingIgnoresRequired,
    /// Answers a sampling request with `toolChoice: {mode: "none"}` with a use of the first tool
    /// offered.
    SamplingIgnoresNone,
    /// Declares `sampling` without `sampling.tools` (not a defect: a plainer client, for the
    /// scenarios about tools sent to a client that did not declare them).
    SamplingNoTools,
    /// Accepts form elicitations with content of the wrong types for the requested schema.
    ElicitContentOffSchema,
    /// Accepts form elicitations without the optional fields that have defaults.
    ElicitIgnoresDefaults,
    /// Declares form elicitation only, yet accepts URL mode requests.
    ElicitUndeclaredMode,
    /// Declares elicitation with neither form nor url mode (a misspelt `forms`).
    ElicitNoMode,
    /// Fetches a URL mode elicitation's URL (a link preview) before asking the user, who then
    /// declines.
    ElicitPrefetchUrl,
    /// Accepts a form elicitation whose requestedSchema names a JSON Schema dialect it does not
    /// know, as if it were 2020-12.
    ElicitUnknownDialect,
    /// Fetches every network `$ref` in the input schemas of the tools it lists (remote
    /// references followed by default).
    FetchesSchemaRefs,
    /// Refuses an elicitation without `mode` as invalid (-32602) instead of taking it for form
    /// mode.
    ElicitModeRequired,
    /// Declares no capability, yet answers roots, sampling and elicitation requests with results.
    AnswerUndeclared,
    /// Answers each request of the server's but pings a second late (a user pondering it), even
    /// when the server has cancelled it meanwhile.
    AnswerAfterCancel,
    /// Ends without closing the server's stdin: exits, leaving it open in a descendant that
    /// outlives it for 1.5 s.
    ExitHoldingStdin,
    /// HTTP: POSTs with `Accept: application/json` only.
    HttpAcceptJsonOnly,
    /// HTTP: leaves the session id out of every request after `initialize`.
    HttpNoSessionHeader,
    /// HTTP (2025-06-18+): never sends `MCP-Protocol-Version`.
    HttpNoProtocolVersion,
    /// HTTP (2025-06-18+): sends `MCP-Protocol-Version: 2025-03-26` whatever was negotiated.
    HttpWrongProtocolVersion,
    /// HTTP: POSTs `notifications/initialized` and its next request as one batch.
    HttpBatch,
    /// HTTP: gives up after a 404 for its session instead of initializing again.
    HttpNoReinitialize,
    /// HTTP: resumes a closed stream at once, ignoring `retry`.
    HttpIgnoresRetry,
    /// HTTP: never resumes a closed stream.
    HttpNoResume,
    /// HTTP: ends without DELETE.
    HttpNoDelete,
    /// Streamable HTTP: sends its notifications with PUT instead of POST.
    HttpPutNotifications,
    /// Streamable HTTP: reads answers from SSE streams only; one sent as an `application/json`
    /// body is lost.
    HttpSseOnly,
    /// HTTP+SSE: POSTs to the SSE URL instead of the endpoint the `endpoint` event named.
    SsePostWrongPath,
    /// OAuth: sends no `code_challenge` (no PKCE).
    AuthNoPkce,
    /// OAuth: uses the `plain` PKCE method instead of S256.
    AuthPlainPkce,
    /// OAuth: authorizes even when the metadata lists no S256 (2025-11-25: it must refuse).
    AuthIgnoresPkceSupport,
    /// OAuth: sends no `state`.
    AuthNoState,
    /// OAuth: sends no `resource` (RFC 8707) in either request.
    AuthNoResource,
    /// OAuth: sends `resource` in the authorization request only, not the token request.
    AuthResourceOnAuthorizeOnly,
    /// OAuth: uses a plain-http redirect URI to a host that is not loopback.
    AuthNonLoopbackRedirect,
    /// OAuth: sends the access token as `access_token` in the query, not the header.
    AuthTokenInQuery,
    /// OAuth: presents a token of another authorization server before authorizing.
    AuthForeignToken,
    /// OAuth: asks for the metadata's `scopes_supported` even when the challenge names a scope.
    AuthIgnoresChallengeScope,
    /// OAuth: omits `scope` when the challenge names none, ignoring `scopes_supported`.
    AuthNoScopeFallback,
    /// OAuth: uses authorization server metadata whose `issuer` is not the issuer looked up.
    AuthSkipsIssuerCheck,
    /// OAuth: redeems the code whatever the redirect's `iss` says (RFC 9207).
    AuthIgnoresIss,
    /// OAuth: tries OpenID Connect discovery before RFC 8414 metadata.
    AuthOidcFirst,
    /// OAuth: looks for the protected resource metadata at the well-known URLs, never at the challenge's `resource_metadata`.
    AuthPrmIgnoresChallenge,
    /// OAuth: looks for the protected resource metadata at the root well-known URL before the path-inserted one.
    AuthPrmRootFirst,
    /// OAuth: gives up on a 403 `insufficient_scope` instead of stepping up.
    AuthNoStepUp,
    /// OAuth: steps up asking only for the challenge's scopes, dropping those already granted.
    AuthStepUpWithoutUnion,
    /// OAuth: registers dynamically even when it was given pre-registered credentials.
    AuthIgnoresPreRegistration,
    /// OAuth: registers without `application_type` (2026-07-28: required).
    AuthNoApplicationType,
    /// OAuth at 2025-03-26: goes straight to the default endpoints, never looking for the metadata first.
    AuthLegacySkipsMetadata,
    /// OAuth at 2025-03-26: looks for the metadata with the MCP endpoint's path inserted, not at its origin.
    AuthLegacyKeepsPath,
    /// OAuth: uses the client id it registered at one authorization server with another.
    AuthReusesCredentials,
    /// OAuth: uses protected resource metadata whatever resource its `resource` names (RFC 9728 §3.3).
    AuthIgnoresPrmResource,
    /// OAuth: steps up again on every 403 `insufficient_scope`, with no limit of its own.
    AuthUnboundedStepUp,
    /// OAuth: registers dynamically though the authorization server takes client ID metadata documents.
    AuthIgnoresCimd,
    /// OAuth: names itself by a client ID metadata document URL that is plain http.
    AuthCimdHttpUrl,
    /// OAuth: authenticates at the token endpoint with HTTP Basic whatever method it registered.
    AuthIgnoresAuthMethod,
    /// OAuth: compares the redirect's `iss` only when the authorization server advertises it.
    AuthIssOnlyWhenAdvertised,
    /// OAuth: sends an authorization request with a redirect URI it did not register.
    AuthUnregisteredRedirect,
    /// OAuth: compares the redirect's `iss` with the issuer after normalizing both (case, a trailing slash).
    AuthIssNormalizes,
    /// OAuth: gives up when the token response carries no refresh token.
    AuthNeedsRefreshToken,
    /// OAuth: asks for the scope `mcp` when neither the challenge nor the metadata names a scope.
    AuthScopeWhenUndefined,
    /// OAuth: keeps only the challenged scopes `scopes_supported` lists (all of it when none is),
    /// as though the challenge were a subset of it.
    AuthAssumesScopeSubset,
    /// OAuth: on an authorization error response, fetches its `error_uri` to report it before
    /// comparing `iss`.
    AuthActsOnUnverifiedError,
    /// OAuth: carries on after a refused registration, naming itself by its `client_name`.
    AuthIgnoresRegistrationFailure,
    /// Modern era: leaves `io.modelcontextprotocol/protocolVersion` out of the `_meta` of every request after
    /// the `server/discover` probe.
    ModernMetaMissingVersion,
    /// Modern era: leaves `io.modelcontextprotocol/clientCapabilities` out of the `_meta` of every request
    /// after the probe.
    ModernMetaMissingCapabilities,
    /// Modern era: never sends `io.modelcontextprotocol/clientInfo` (a SHOULD).
    ModernNoClientInfo,
    /// Modern era: lists tools at once instead of probing with `server/discover` first (a dual-era
    /// client SHOULD probe, `basic/transports/stdio.mdx#backward-compatibility`).
    ModernNoProbe,
    /// Modern era over HTTP: sends `MCP-Protocol-Version: 2025-11-25` whatever `_meta` says.
    ModernHeaderVersionMismatch,
    /// Modern era: gives up on `-32022` instead of retrying with a version from `data.supported`.
    ModernGivesUpOnUnsupported,
    /// Modern era: retries after `-32022` with a version that is not in `data.supported`.
    ModernRetryUnsupportedVersion,
    /// MRTR: retries without the `requestState` it was given.
    ModernRequestStateDropped,
    /// MRTR: retries with the `requestState` it was given, altered.
    ModernRequestStateModified,
    /// MRTR: retries with a `requestState` though none was given.
    ModernRequestStateInvented,
    /// MRTR: retries with the JSON-RPC id of the request that got `input_required`.
    ModernRetrySameId,
    /// MRTR: retries without `inputResponses`, ignoring the `inputRequests` it was given.
    ModernInputsIgnored,
    /// MRTR: also sends the `inputResponses` and `requestState` of each retry on a
    /// `resources/list` request of its own, sent alongside the retry.
    ModernInputsOnOtherRequest,
    /// Modern era: takes a result whose `resultType` it does not know for a complete one, and
    /// uses it.
    ModernUnknownResultTypeUsed,
    /// Modern era: takes a result without `resultType` for an invalid one, and asks for it once
    /// more.
    ModernResultTypeRequired,
    /// MRTR: each retry declares no capability in its `_meta`, yet answers in `inputResponses`
    /// the input requests (roots, sampling, elicitation) the first request's capabilities allowed.
    ModernUndeclaredCapabilityUse,
    /// Caching: lists tools again when it needs them a second time, though the first list is still
    /// fresh (within its `ttlMs`).
    ModernIgnoresTtl,
    /// Modern era: also answers each input request as a JSON-RPC response (id: the input key), a
    /// message the era has no place for.
    ModernSendsResponses,
    /// Modern era over HTTP: sends no `Mcp-Param-*` header on a call of a tool whose
    /// parameters carry `x-mcp-header`.
    ModernParamHeadersOmitted,
    /// Modern era over HTTP: sends `Mcp-Param-*` values as plain text, never in the Base64
    /// sentinel (a value like the sentinel, or beyond ASCII, goes as it is).
    ModernParamHeadersUnencoded,
    /// Modern era over HTTP: also sends `Mcp-Param-{name}: null` for an argument that is null
    /// or absent.
    ModernParamHeadersForMissingValues,
    /// Modern era: calls the tool of the custom-headers scenario with an integer beyond
    /// JavaScript's safe range (2^53 + 1) in an `x-mcp-header` parameter.
    ModernParamHeaderUnsafeInteger,
    /// Modern era: keeps (and, asked to, calls) a tool whose `x-mcp-header` annotations break
    /// the constraints, instead of leaving it out of the tool list.
    ModernKeepsInvalidParamHeaderTool,
    // ---- hostile processes (issue #17), stdio ----
    /// Exits with status 0 at once, without starting the server.
    ExitAtOnce,
    /// Sleeps ten minutes before it starts the server.
    AnswerLate,
    /// A grandchild that leaves the process group (`setsid`) holds the client's stdin, stdout
    /// and stderr open for 60 s; the client exits with status 1 at once.
    SetsidGrandchild,
    /// Starts the server and writes 1 GiB to it without a newline, then nothing, reading nothing.
    EndlessLine,
    /// Starts the server and writes valid `notifications/roots/list_changed` without end.
    NotificationFlood,
    /// Starts the server and writes lines that are not UTF-8, without end.
    InvalidUtf8,
    // ---- tasks (2025-11-25, `client/tasks.rs`) ----
    /// Calls its tool as a task whatever the server's capabilities and the tool's
    /// `execution.taskSupport` say.
    TaskCallUnchecked,
    /// In the task scenarios, calls the tool that runs only as a task plainly.
    TaskRequiredPlain,
    /// Having created a task, waits for `notifications/tasks/status` before it asks for the
    /// task's result: it never polls.
    TaskAwaitsStatusNotification,
    /// Cancels its task-augmented tool call with `notifications/cancelled`, not `tasks/cancel`.
    TaskCancelledByNotification,
    /// Sends a tasks/list `nextCursor` back percent-encoded.
    TaskListCursorAltered,
    // ---- planted bugs for `mcpspec fuzz --role client` ----
    // Each looks, from outside, like a real bug of a Rust client, and trips only on its
    // trigger (`client/planted.rs`); otherwise the client is the clean reference client.
    /// A string longer than 64 KiB anywhere in a message overflows a fixed buffer: a panic
    /// (exit status 101).
    FuzzCrashLongString,
    /// A `tools/list` result whose `tools` is not an array, or a tool whose `name` is not a
    /// string, is unwrapped: a panic (exit status 101).
    FuzzCrashWrongType,
    /// A message nesting deeper than 64 levels overflows the stack of a recursive walk:
    /// Rust's stack overflow message, then SIGABRT.
    FuzzCrashDeepNesting,
    /// A response to an id it never sent is looked up and unwrapped: a panic (exit status 101).
    FuzzCrashUnknownId,
    /// An `elicitation/create` whose `requestedSchema` has a property with a `default` that is
    /// not a string (a boolean's, a number's) takes it for text: a panic (exit status 101).
    FuzzCrashElicitationSchema,
    /// A `sampling/createMessage` with an empty `messages` array is indexed at 0: a panic
    /// (exit status 101).
    FuzzCrashSamplingEmpty,
    /// A `notifications/progress` for a token it never sent loops forever: it reads and answers
    /// nothing more.
    FuzzHangProgress,
    /// Answers a `ping` twice.
    FuzzDoubleAnswer,
    // The planted bugs of its HTTP transport, for `mcpspec fuzz --role client --transport
    // http|sse` (`client/planted.rs`, [`super::planted::HttpBugs`]).
    /// Over HTTP: a response header whose value is not visible ASCII (bytes that are not UTF-8,
    /// say) is read with `to_str().unwrap()`: a panic (exit status 101).
    FuzzHttpCrashHeaderBytes,
    /// Over HTTP: a `Content-Type` parameter without `=` (`text/event-stream; charset`) is split
    /// and unwrapped: a panic (exit status 101).
    FuzzHttpCrashContentType,
    /// Over HTTP: an SSE event whose data is over 64 KiB overflows a fixed event buffer: a panic
    /// (exit status 101).
    FuzzHttpCrashBigEvent,
    /// Over HTTP: an SSE `retry` over 4 294 967 ms is turned into microseconds in a `u32`: an
    /// overflow panic (exit status 101).
    FuzzHttpCrashRetry,
    /// Over HTTP: a 5xx response's body is parsed as a JSON-RPC error and unwrapped; an empty
    /// one panics (exit status 101).
    FuzzHttpCrashEmptyError,
    /// Over HTTP: a response naming another `Mcp-Session-Id` than the request's trips an
    /// assertion: a panic (exit status 101).
    FuzzHttpCrashSessionChanged,
    /// Over HTTP: a 202 Accepted to a POST that carried requests leaves it waiting for their
    /// answers forever, reading nothing more.
    FuzzHttpHangAccepted,
    /// Over Streamable HTTP: each POST's SSE stream is read to its end, with no timeout, before
    /// anything else is done: a stream that never ends leaves it reading it forever.
    FuzzHttpHangEndlessStream,
}

impl ClientFault {
    pub const ALL: [ClientFault; 150] = [
        ClientFault::SkipInitialized,
        ClientFault::ReuseIds,
        ClientFault::RequestBeforeInitialize,
        ClientFault::InitializeBatched,
        ClientFault::NullId,
        ClientFault::EarlyInitialized,
        ClientFault::IgnoreRequests,
        ClientFault::AcceptAnyVersion,
        ClientFault::OfferOldest,
        ClientFault::OfferUnsupported,
        ClientFault::NoShutdown,
        ClientFault::ExitEarly,
        ClientFault::Silent,
        ClientFault::Flood,
        ClientFault::RootsNotFile,
        ClientFault::RootsTraversal,
        ClientFault::RootsChangedSilently,
        ClientFault::SamplingWithoutModel,
        ClientFault::DeclareNothing,
        ClientFault::CursorAltered,
        ClientFault::PagesPastEnd,
        ClientFault::EmptyCursorEnds,
        ClientFault::PageSizeAssumed,
        ClientFault::CancelInitialize,
        ClientFault::CancelUnissued,
        ClientFault::CancelWithoutRequestId,
        ClientFault::ReuseProgressToken,
        ClientFault::UndeclaredRequests,
        ClientFault::ExitOnCancel,
        ClientFault::ExitOnUnknownElicitationComplete,
        ClientFault::LateResponseError,
        ClientFault::RootsChangedUndeclared,
        ClientFault::SamplingAcceptsUnbalanced,
        ClientFault::SamplingAcceptsUnknownToolUseId,
        ClientFault::SamplingAcceptsMixedToolResults,
        ClientFault::SamplingToolsUndeclared,
        ClientFault::SamplingToolsIgnored,
        ClientFault::SamplingWithoutStopReason,
        ClientFault::SamplingIgnoresRequired,
        ClientFault::SamplingIgnoresNone,
        ClientFault::SamplingNoTools,
        ClientFault::ElicitContentOffSchema,
        ClientFault::ElicitIgnoresDefaults,
        ClientFault::ElicitUndeclaredMode,
        ClientFault::ElicitNoMode,
        ClientFault::ElicitPrefetchUrl,
        ClientFault::ElicitUnknownDialect,
        ClientFault::FetchesSchemaRefs,
        ClientFault::ElicitModeRequired,
        ClientFault::AnswerUndeclared,
        ClientFault::AnswerAfterCancel,
        ClientFault::ExitHoldingStdin,
        ClientFault::HttpAcceptJsonOnly,
        ClientFault::HttpNoSessionHeader,
        ClientFault::HttpNoProtocolVersion,
        ClientFault::HttpWrongProtocolVersion,
        ClientFault::HttpBatch,
        ClientFault::HttpNoReinitialize,
        ClientFault::HttpIgnoresRetry,
        ClientFault::HttpNoResume,
        ClientFault::HttpNoDelete,
        ClientFault::HttpPutNotifications,
        ClientFault::HttpSseOnly,
        ClientFault::SsePostWrongPath,
        ClientFault::AuthNoPkce,
        ClientFault::AuthPlainPkce,
        ClientFault::AuthIgnoresPkceSupport,
        ClientFault::AuthNoState,
        ClientFault::AuthNoResource,
        ClientFault::AuthResourceOnAuthorizeOnly,
        ClientFault::AuthNonLoopbackRedirect,
        ClientFault::AuthTokenInQuery,
        ClientFault::AuthForeignToken,
        ClientFault::AuthIgnoresChallengeScope,
        ClientFault::AuthNoScopeFallback,
        ClientFault::AuthSkipsIssuerCheck,
        ClientFault::AuthIgnoresIss,
        ClientFault::AuthOidcFirst,
        ClientFault::AuthPrmIgnoresChallenge,
        ClientFault::AuthPrmRootFirst,
        ClientFault::AuthNoStepUp,
        ClientFault::AuthStepUpWithoutUnion,
        ClientFault::AuthIgnoresPreRegistration,
        ClientFault::AuthNoApplicationType,
        ClientFault::AuthLegacySkipsMetadata,
        ClientFault::AuthLegacyKeepsPath,
        ClientFault::AuthReusesCredentials,
        ClientFault::AuthIgnoresPrmResource,
        ClientFault::AuthUnboundedStepUp,
        ClientFault::AuthIgnoresCimd,
        ClientFault::AuthCimdHttpUrl,
        ClientFault::AuthIgnoresAuthMethod,
        ClientFault::AuthIssOnlyWhenAdvertised,
        ClientFault::AuthScopeWhenUndefined,
        ClientFault::AuthNeedsRefreshToken,
        ClientFault::AuthUnregisteredRedirect,
        ClientFault::AuthIssNormalizes,
        ClientFault::AuthAssumesScopeSubset,
        ClientFault::AuthActsOnUnverifiedError,
        ClientFault::AuthIgnoresRegistrationFailure,
        ClientFault::ModernMetaMissingVersion,
        ClientFault::ModernMetaMissingCapabilities,
        ClientFault::ModernNoClientInfo,
        ClientFault::ModernNoProbe,
        ClientFault::ModernHeaderVersionMismatch,
        ClientFault::ModernGivesUpOnUnsupported,
        ClientFault::ModernRetryUnsupportedVersion,
        ClientFault::ModernRequestStateDropped,
        ClientFault::ModernRequestStateModified,
        ClientFault::ModernRequestStateInvented,
        ClientFault::ModernRetrySameId,
        ClientFault::ModernInputsIgnored,
        ClientFault::ModernInputsOnOtherRequest,
        ClientFault::ModernUnknownResultTypeUsed,
        ClientFault::ModernResultTypeRequired,
        ClientFault::ModernUndeclaredCapabilityUse,
        ClientFault::ModernIgnoresTtl,
        ClientFault::ModernSendsResponses,
        ClientFault::ModernParamHeadersOmitted,
        ClientFault::ModernParamHeadersUnencoded,
        ClientFault::ModernParamHeadersForMissingValues,
        ClientFault::ModernParamHeaderUnsafeInteger,
        ClientFault::ModernKeepsInvalidParamHeaderTool,
        ClientFault::ExitAtOnce,
        ClientFault::AnswerLate,
        ClientFault::SetsidGrandchild,
        ClientFault::EndlessLine,
        ClientFault::NotificationFlood,
        ClientFault::InvalidUtf8,
        ClientFault::TaskCallUnchecked,
        ClientFault::TaskRequiredPlain,
        ClientFault::TaskAwaitsStatusNotification,
        ClientFault::TaskCancelledByNotification,
        ClientFault::TaskListCursorAltered,
        ClientFault::FuzzCrashLongString,
        ClientFault::FuzzCrashWrongType,
        ClientFault::FuzzCrashDeepNesting,
        ClientFault::FuzzCrashUnknownId,
        ClientFault::FuzzCrashElicitationSchema,
        ClientFault::FuzzCrashSamplingEmpty,
        ClientFault::FuzzHangProgress,
        ClientFault::FuzzDoubleAnswer,
        ClientFault::FuzzHttpCrashHeaderBytes,
        ClientFault::FuzzHttpCrashContentType,
        ClientFault::FuzzHttpCrashBigEvent,
        ClientFault::FuzzHttpCrashRetry,
        ClientFault::FuzzHttpCrashEmptyError,
        ClientFault::FuzzHttpCrashSessionChanged,
        ClientFault::FuzzHttpHangAccepted,
        ClientFault::FuzzHttpHangEndlessStream,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ClientFault::SkipInitialized => "skip-initialized",
            ClientFault::ReuseIds => "reuse-ids",
            ClientFault::RequestBeforeInitialize => "request-before-initialize",
            ClientFault::InitializeBatched => "initialize-batched",
            ClientFault::NullId => "null-id",
            ClientFault::EarlyInitialized => "early-initialized",
            ClientFault::IgnoreRequests => "ignore-requests",
            ClientFault::AcceptAnyVersion => "accept-any-version",
            ClientFault::OfferOldest => "offer-oldest",
            ClientFault::OfferUnsupported => "offer-unsupported",
            ClientFault::NoShutdown => "no-shutdown",
            ClientFault::ExitEarly => "exit-early",
            ClientFault::Silent => "silent",
            ClientFault::Flood => "flood",
            ClientFault::RootsNotFile => "roots-not-file",
            ClientFault::RootsTraversal => "roots-traversal",
            ClientFault::RootsChangedSilently => "roots-changed-silently",
            ClientFault::SamplingWithoutModel => "sampling-without-model",
            ClientFault::DeclareNothing => "declare-nothing",
            ClientFault::CursorAltered => "cursor-altered",
            ClientFault::PagesPastEnd => "pages-past-end",
            ClientFault::EmptyCursorEnds => "empty-cursor-ends",
            ClientFault::PageSizeAssumed => "page-size-assumed",
            ClientFault::CancelInitialize => "cancel-initialize",
            ClientFault::CancelUnissued => "cancel-unissued",
            ClientFault::CancelWithoutRequestId => "cancel-without-request-id",
            ClientFault::ReuseProgressToken => "reuse-progress-token",
            ClientFault::UndeclaredRequests => "undeclared-requests",
            ClientFault::ExitOnCancel => "exit-on-cancel",
            ClientFault::ExitOnUnknownElicitationComplete => "exit-on-unknown-elicitation-complete",
            ClientFault::LateResponseError => "late-response-error",
            ClientFault::RootsChangedUndeclared => "roots-changed-undeclared",
            ClientFault::SamplingAcceptsUnbalanced => "sampling-accepts-unbalanced",
            ClientFault::SamplingAcceptsUnknownToolUseId => "sampling-accepts-unknown-tool-use-id",
            ClientFault::SamplingAcceptsMixedToolResults => "sampling-accepts-mixed-tool-results",
            ClientFault::SamplingToolsUndeclared => "sampling-tools-undeclared",
            ClientFault::SamplingToolsIgnored => "sampling-tools-ignored",
            ClientFault::SamplingWithoutStopReason => "sampling-without-stop-reason",
            ClientFault::SamplingIgnoresRequired => "sampling-ignores-required",
            ClientFault::SamplingIgnoresNone => "sampling-ignores-none",
            ClientFault::SamplingNoTools => "sampling-no-tools",
            ClientFault::ElicitContentOffSchema => "elicit-content-off-schema",
            ClientFault::ElicitIgnoresDefaults => "elicit-ignores-defaults",
            ClientFault::ElicitUndeclaredMode => "elicit-undeclared-mode",
            ClientFault::ElicitNoMode => "elicit-no-mode",
            ClientFault::ElicitPrefetchUrl => "elicit-prefetch-url",
            ClientFault::ElicitUnknownDialect => "elicit-unknown-dialect",
            ClientFault::FetchesSchemaRefs => "fetches-schema-refs",
            ClientFault::ElicitModeRequired => "elicit-mode-required",
            ClientFault::AnswerUndeclared => "answer-undeclared",
            ClientFault::AnswerAfterCancel => "answer-after-cancel",
            ClientFault::ExitHoldingStdin => "exit-holding-stdin",
            ClientFault::HttpAcceptJsonOnly => "http-accept-json-only",
            ClientFault::HttpNoSessionHeader => "http-no-session-header",
            ClientFault::HttpNoProtocolVersion => "http-no-protocol-version",
            ClientFault::HttpWrongProtocolVersion => "http-wrong-protocol-version",
            ClientFault::HttpBatch => "http-batch",
            ClientFault::HttpNoReinitialize => "http-no-reinitialize",
            ClientFault::HttpIgnoresRetry => "http-ignores-retry",
            ClientFault::HttpNoResume => "http-no-resume",
            ClientFault::HttpNoDelete => "http-no-delete",
            ClientFault::HttpPutNotifications => "http-put-notifications",
            ClientFault::HttpSseOnly => "http-sse-only",
            ClientFault::SsePostWrongPath => "sse-post-wrong-path",
            ClientFault::AuthNoPkce => "auth-no-pkce",
            ClientFault::AuthPlainPkce => "auth-plain-pkce",
            ClientFault::AuthIgnoresPkceSupport => "auth-ignores-pkce-support",
            ClientFault::AuthNoState => "auth-no-state",
            ClientFault::AuthNoResource => "auth-no-resource",
            ClientFault::AuthResourceOnAuthorizeOnly => "auth-resource-on-authorize-only",
            ClientFault::AuthNonLoopbackRedirect => "auth-non-loopback-redirect",
            ClientFault::AuthTokenInQuery => "auth-token-in-query",
            ClientFault::AuthForeignToken => "auth-foreign-token",
            ClientFault::AuthIgnoresChallengeScope => "auth-ignores-challenge-scope",
            ClientFault::AuthNoScopeFallback => "auth-no-scope-fallback",
            ClientFault::AuthSkipsIssuerCheck => "auth-skips-issuer-check",
            ClientFault::AuthIgnoresIss => "auth-ignores-iss",
            ClientFault::AuthOidcFirst => "auth-oidc-first",
            ClientFault::AuthPrmIgnoresChallenge => "auth-prm-ignores-challenge",
            ClientFault::AuthPrmRootFirst => "auth-prm-root-first",
            ClientFault::AuthNoStepUp => "auth-no-step-up",
            ClientFault::AuthStepUpWithoutUnion => "auth-step-up-without-union",
            ClientFault::AuthIgnoresPreRegistration => "auth-ignores-pre-registration",
            ClientFault::AuthNoApplicationType => "auth-no-application-type",
            ClientFault::AuthLegacySkipsMetadata => "auth-legacy-skips-metadata",
            ClientFault::AuthLegacyKeepsPath => "auth-legacy-keeps-path",
            ClientFault::AuthReusesCredentials => "auth-reuses-credentials",
            ClientFault::AuthIgnoresPrmResource => "auth-ignores-prm-resource",
            ClientFault::AuthUnboundedStepUp => "auth-unbounded-step-up",
            ClientFault::AuthIgnoresCimd => "auth-ignores-cimd",
            ClientFault::AuthCimdHttpUrl => "auth-cimd-http-url",
            ClientFault::AuthIgnoresAuthMethod => "auth-ignores-auth-method",
            ClientFault::AuthIssOnlyWhenAdvertised => "auth-iss-only-when-advertised",
            ClientFault::AuthScopeWhenUndefined => "auth-scope-when-undefined",
            ClientFault::AuthNeedsRefreshToken => "auth-needs-refresh-token",
            ClientFault::AuthUnregisteredRedirect => "auth-unregistered-redirect",
            ClientFault::AuthIssNormalizes => "auth-iss-normalizes",
            ClientFault::AuthAssumesScopeSubset => "auth-assumes-scope-subset",
            ClientFault::AuthActsOnUnverifiedError => "auth-acts-on-unverified-error",
            ClientFault::AuthIgnoresRegistrationFailure => "auth-ignores-registration-failure",
            ClientFault::ModernMetaMissingVersion => "modern-meta-missing-version",
            ClientFault::ModernMetaMissingCapabilities => "modern-meta-missing-capabilities",
            ClientFault::ModernNoClientInfo => "modern-no-client-info",
            ClientFault::ModernNoProbe => "modern-no-probe",
            ClientFault::ModernHeaderVersionMismatch => "modern-header-version-mismatch",
            ClientFault::ModernGivesUpOnUnsupported => "modern-gives-up-on-unsupported-version",
            ClientFault::ModernRetryUnsupportedVersion => "modern-retry-unsupported-version",
            ClientFault::ModernRequestStateDropped => "modern-request-state-dropped",
            ClientFault::ModernRequestStateModified => "modern-request-state-modified",
            ClientFault::ModernRequestStateInvented => "modern-request-state-invented",
            ClientFault::ModernRetrySameId => "modern-retry-same-id",
            ClientFault::ModernInputsIgnored => "modern-inputs-ignored",
            ClientFault::ModernInputsOnOtherRequest => "modern-inputs-on-other-request",
            ClientFault::ModernUnknownResultTypeUsed => "modern-unknown-result-type-used",
            ClientFault::ModernResultTypeRequired => "modern-result-type-required",
            ClientFault::ModernUndeclaredCapabilityUse => "modern-undeclared-capability-use",
            ClientFault::ModernIgnoresTtl => "modern-ignores-ttl",
            ClientFault::ModernSendsResponses => "modern-sends-responses",
            ClientFault::ModernParamHeadersOmitted => "modern-param-headers-omitted",
            ClientFault::ModernParamHeadersUnencoded => "modern-param-headers-unencoded",
            ClientFault::ModernParamHeadersForMissingValues => "modern-param-headers-for-missing-values",
            ClientFault::ModernParamHeaderUnsafeInteger => "modern-param-header-unsafe-integer",
            ClientFault::ModernKeepsInvalidParamHeaderTool => "modern-keeps-invalid-param-header-tool",
            ClientFault::ExitAtOnce => "exit-at-once",
            ClientFault::AnswerLate => "answer-late",
            ClientFault::SetsidGrandchild => "setsid-grandchild",
            ClientFault::EndlessLine => "endless-line",
            ClientFault::NotificationFlood => "notification-flood",
            ClientFault::InvalidUtf8 => "invalid-utf8",
            ClientFault::TaskCallUnchecked => "task-call-unchecked",
            ClientFault::TaskRequiredPlain => "task-required-plain",
            ClientFault::TaskAwaitsStatusNotification => "task-awaits-status-notification",
            ClientFault::TaskCancelledByNotification => "task-cancelled-by-notification",
            ClientFault::TaskListCursorAltered => "task-list-cursor-altered",
            ClientFault::FuzzCrashLongString => "fuzz-crash-long-string",
            ClientFault::FuzzCrashWrongType => "fuzz-crash-wrong-type",
            ClientFault::FuzzCrashDeepNesting => "fuzz-crash-deep-nesting",
            ClientFault::FuzzCrashUnknownId => "fuzz-crash-unknown-id",
            ClientFault::FuzzCrashElicitationSchema => "fuzz-crash-elicitation-schema",
            ClientFault::FuzzCrashSamplingEmpty => "fuzz-crash-sampling-empty",
            ClientFault::FuzzHangProgress => "fuzz-hang-progress",
            ClientFault::FuzzDoubleAnswer => "fuzz-double-answer",
            ClientFault::FuzzHttpCrashHeaderBytes => "fuzz-http-crash-header-bytes",
            ClientFault::FuzzHttpCrashContentType => "fuzz-http-crash-content-type",
            ClientFault::FuzzHttpCrashBigEvent => "fuzz-http-crash-big-event",
            ClientFault::FuzzHttpCrashRetry => "fuzz-http-crash-retry",
            ClientFault::FuzzHttpCrashEmptyError => "fuzz-http-crash-empty-error",
            ClientFault::FuzzHttpCrashSessionChanged => "fuzz-http-crash-session-changed",
            ClientFault::FuzzHttpHangAccepted => "fuzz-http-hang-accepted",
            ClientFault::FuzzHttpHangEndlessStream => "fuzz-http-hang-endless-stream",
        }
    }
}

impl std::str::FromStr for ClientFault {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ClientFault::ALL.iter().copied().find(|f| f.name() == s).ok_or_else(|| {
            let names: Vec<_> = ClientFault::ALL.iter().map(|f| f.name()).collect();
            format!("unknown client fault {s:?} (known: {})", names.join(", "))
        })
    }
}
