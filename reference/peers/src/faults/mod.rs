//! Fault injection for test peers: the reference server with one deliberate defect, so that
//! mcpspec's own tests can prove each check fails when it should (`mcpspec reference server
//! --fault NAME`). Never used unless asked for.
//!
//! A fault is either a small transformation of what [`serve_stdio`](crate::server::serve_stdio)
//! reads or writes ([`injection`]), or a flag the server consults where the defect is a decision
//! (see [`ReferenceServer::with_fault`](crate::server::ReferenceServer::with_fault)), or (the
//! `http-`, `sse-` and `modern-http-` faults) a defect of the HTTP endpoint
//! ([`HttpServerOptions::fault`](crate::transport::http_server::HttpServerOptions::fault)).
//! The `modern-` faults act only on requests of the modern era (2026-07-28): a legacy session
//! of the same server never sees them.
//! Over HTTP, the transformations of messages apply as over stdio; those of bytes (marked
//! "stdio only") do not.

pub(crate) mod injection;

use std::str::FromStr;

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
    /// A form elicitation also asks for the user's password (client/elicitation.mdx: servers
    /// MUST NOT ask for sensitive information in form mode).
    ElicitationAsksSecret => "elicitation-asks-secret",
    /// A URL-mode elicitation's URL carries the user's e-mail address in its query.
    ElicitationUrlUserData => "elicitation-url-user-data",
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
    /// The initialize result declares no `tools`, `prompts` or `resources`, which the server
    /// serves all the same.
    FeaturesServedUndeclared => "features-served-undeclared",
    /// The initialize and `server/discover` results declare no `completions`, which the server
    /// serves all the same.
    CompletionsServedUndeclared => "completions-served-undeclared",
    /// Tool arguments are not validated against the tool's inputSchema; `echo` echoes a message
    /// of any type as its JSON text.
    ToolArgumentsUnchecked => "tool-arguments-unchecked",
    /// The inputSchema of `test_schema_dialect` (no `$schema`: JSON Schema 2020-12) is read as
    /// draft-07, which ignores its prefixItems: a point of strings is taken.
    ToolSchemaDraft07 => "tool-schema-draft-07",
    /// A completion argument without its `value` is completed as if the value were empty.
    CompletionInputsUnchecked => "completion-inputs-unchecked",
    // ---- the modern era (2026-07-28; `server/modern.rs`, `server/mrtr.rs`) ----
    // Each acts only on requests served by the modern era's rules; legacy sessions are untouched.
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
    /// Every `tools/call` also announces `notifications/tools/list_changed`, which over HTTP
    /// goes out on the call's own stream (where only notifications relating to it may).
    ModernChangeOnCallStream => "modern-change-on-call-stream",
    /// A `file://` URI beside the reference's file resource is read from disk, its path
    /// joined to a real folder with its `..` segments left in: `../../etc/passwd` is served.
    ResourcesPathTraversal => "resources-path-traversal",
    /// `server/discover` advertises an extension named `tasks`, without the prefix extension
    /// identifiers must have (`io.modelcontextprotocol/tasks`).
    ModernExtensionUnprefixed => "modern-extension-unprefixed",
    /// A subscription whose lifetime is over ends with a completion result to its
    /// `subscriptions/listen` request alone, without notifications/cancelled naming it.
    ModernListenEndsWithResult => "modern-listen-ends-with-result",
    /// `tools/list` holds a tool named after the process: the tool set differs between
    /// connections (server/tools.mdx#capabilities).
    ModernToolsPerProcess => "modern-tools-per-process",
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
    /// An MRTR fixture called without the client capability it needs is refused with -32602
    /// (invalid params) instead of -32021 naming the capability (basic/index.mdx#_meta).
    ModernMissingCapabilityWrongCode => "modern-missing-capability-wrong-code",
    /// Every result's `_meta` holds `_internal`, a key whose name begins with an underscore
    /// (basic/index.mdx#_meta, 2025-06-18 on: MUST begin and end with an alphanumeric).
    MetaKeyMalformed => "meta-key-malformed",
    /// `tools/list` results give their first tool an inputSchema of `"type": "invalid_type"`
    /// (basic/index.mdx#schema-validation, 2025-11-25 on: valid under its dialect).
    ToolSchemaInvalid => "tool-schema-invalid",
    /// Modern `tools/list` results annotate a `number` parameter with `x-mcp-header: "Bad Name"`
    /// (streamable-http.mdx#schema-extension: a token, on integer, string or boolean only).
    ModernXMcpHeaderInvalid => "modern-x-mcp-header-invalid",
    /// Every result's `_meta` holds a `traceparent` that is not W3C Trace Context
    /// (basic/index.mdx#_meta, 2026-07-28).
    TraceparentMalformed => "traceparent-malformed",
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
    /// Error responses to modern requests drop the request id (which was readable).
    ModernErrorWithoutId => "modern-error-without-id",
    /// Every modern `tools/call` is preceded by a `ping` request to the client (servers MUST
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
    /// HTTP: errors of modern requests are answered with status 200 (not 400 / 404).
    ModernHttpStatus200OnError => "modern-http-status-200-on-error",
    /// HTTP: a notification POSTed is refused with status 200 and a JSON-RPC error, where a
    /// refusal needs an HTTP error status (and an acceptance 202).
    ModernHttpNotificationRefusedOk => "modern-http-notification-refused-ok",
    /// HTTP: a modern request without `MCP-Protocol-Version` is served as if the header named
    /// its `_meta`'s version, also by a server that speaks no revision before 2025-06-18 (which
    /// MUST reject it with 400 + -32020).
    ModernHttpVersionHeaderOptional => "modern-http-version-header-optional",
    /// HTTP: `Mcp-Param-*` headers are not compared with a tool call's arguments (a missing,
    /// differing or malformed one is served instead of 400 + -32020;
    /// streamable-http.mdx#server-behavior-for-custom-headers).
    ModernParamHeaderUnchecked => "modern-http-param-header-unchecked",
    /// HTTP: every `x-mcp-header` parameter of a called tool needs its `Mcp-Param-*` header,
    /// even one that is null or absent from the arguments (refused with 400 + -32020; the
    /// server MUST NOT expect it).
    ModernParamHeaderAlwaysExpected => "modern-http-param-header-always-expected",
    /// HTTP: `Mcp-Param-*` header names are compared with their case, as the annotation spells
    /// them (`Mcp-Param-Region`): one sent in another case is not seen (case-sensitivity: MUST
    /// compare names ignoring case).
    ModernParamHeaderCaseSensitive => "modern-http-param-header-case-sensitive",
    /// HTTP: an integer's `Mcp-Param-*` header is compared with the argument as text, so `42.0`
    /// does not match 42 (servers SHOULD compare numerically; streamable-http.mdx#server-validation).
    ModernParamHeaderIntegerAsText => "modern-http-param-header-integer-as-text",
    // ---- tasks (2025-11-25, `server/tasks.rs`) ----
    /// The `tasks/result` answer carries no `io.modelcontextprotocol/related-task` in its
    /// `_meta` (tasks.mdx#associating-task-related-messages: MUST).
    TaskResultWithoutRelatedTask => "task-result-without-related-task",
    /// `tasks/cancel` of a task already completed succeeds (and reports it cancelled) instead of
    /// -32602 (tasks.mdx#cancelling-tasks: MUST).
    TaskCancelTerminalAccepted => "task-cancel-terminal-accepted",
    /// `tasks/get` of an unknown task id answers -32600 instead of -32602
    /// (tasks.mdx#protocol-errors: MUST).
    TaskUnknownWrongCode => "task-unknown-wrong-code",
    /// A plain call of the task-only tool is served instead of refused with -32601
    /// (tasks.mdx#tool-level-negotiation: MUST).
    TaskRequiredServedPlain => "task-required-served-plain",
    /// Task objects carry no `lastUpdatedAt` (tasks.mdx#task-metadata: MUST).
    TaskNoLastUpdated => "task-no-last-updated",
    /// `tasks/list` leaves out completed tasks, which `tasks/get` still returns
    /// (tasks.mdx#listing-tasks: MUST).
    TaskListOmitsCompleted => "task-list-omits-completed",
    /// A cancelled task reports `completed` once its work would have finished
    /// (tasks.mdx#cancelling-tasks: it MUST stay cancelled).
    TaskCancelledCompletes => "task-cancelled-completes",
    /// Task ids count up, `task-1`, `task-2`, …: unique, but guessable
    /// (tasks.mdx#task-isolation-and-access-control: without context binding, MUST be
    /// cryptographically secure).
    TaskIdsSequential => "task-ids-sequential",
    /// Every task of a session gets the id of its first (random) one
    /// (tasks.mdx#task-id-requirements: ids MUST be unique).
    TaskIdRepeats => "task-id-repeats",
    /// A task that `tasks/get` has reported terminal reads `working` at the next `tasks/get`
    /// (tasks.mdx#task-status-lifecycle: terminal statuses MUST NOT change).
    TaskTerminalReopens => "task-terminal-reopens",
    /// The results of `tasks/get` and `tasks/cancel` carry `io.modelcontextprotocol/related-task`
    /// in their `_meta` (tasks.mdx#associating-task-related-messages: SHOULD NOT).
    TaskResultsRelatedMeta => "task-results-related-meta",
    /// `tasks/result` adds a text block of its own to the tool's answer
    /// (tasks.mdx#result-retrieval: MUST return exactly what the request would have returned).
    TaskResultAltered => "task-result-altered",
    /// A request other than `tools/call` carrying `task` is refused with -32602
    /// (tasks.mdx#task-support-and-handling: MUST be processed normally).
    TaskFieldRefused => "task-field-refused",
    /// `tasks/get`, `tasks/result` and `tasks/cancel` take their task from the related-task
    /// `_meta` when there is one (tasks.mdx#associating-task-related-messages: the `taskId`
    /// parameter MUST be the source of truth).
    TaskMetaOverridesParam => "task-meta-overrides-param",
    /// `tasks/list` pages never carry `nextCursor`: only the first page is ever listed
    /// (tasks.mdx#task-listing: MUST include it when more tasks are available).
    TaskListNoNextCursor => "task-list-no-next-cursor",
    /// The `tasks` capability leaves out `requests`, yet tools still run as tasks
    /// (tasks.mdx#capabilities: parties that support task-augmented requests MUST declare them).
    TaskCapabilityUndeclared => "task-capability-undeclared",
    /// A task's progress comes under a token of the server's own, not the call's
    /// (progress.mdx#behavior-requirements: the original token MUST be used throughout the task).
    TaskProgressNewToken => "task-progress-new-token",
    /// One more progress notification for a task's token right after `tasks/result` gave its
    /// final answer (progress.mdx#behavior-requirements: MUST stop at the terminal status).
    TaskProgressAfterEnd => "task-progress-after-end",
    /// A failed task carries no `statusMessage` (tasks.mdx#task-execution-errors: the tasks/get
    /// response SHOULD say why).
    TaskFailedWithoutMessage => "task-failed-without-message",
    /// Arguments a tool's inputSchema refuses get -32602 (as before 2025-11-25), and `tasks/result`
    /// of a task whose call so failed answers a `CallToolResult` with `isError` instead of that
    /// error (tasks.mdx#task-execution-errors: it MUST return the same JSON-RPC error).
    TaskErrorBecomesResult => "task-error-becomes-result",
    /// A task takes the id the requestor proposed in `task.taskId`, when it proposes one
    /// (tasks.mdx#task-id-requirements: the receiver MUST generate task ids).
    TaskIdFromRequestor => "task-id-from-requestor",
    /// The elicitation a task's tool sends carries no related-task `_meta`
    /// (tasks.mdx#input-required-status: the request MUST name the task).
    TaskInputRequestUnrelated => "task-input-request-unrelated",
    /// The elicitation a task's tool sends names a task that does not exist in its related-task
    /// `_meta` (tasks.mdx#associating-task-related-messages: a request a task depends on MUST
    /// carry that task's id).
    TaskInputRequestOtherTask => "task-input-request-other-task",
    // ---- the HTTP layer (`transport::http_server`), Streamable HTTP unless "legacy" ----
    /// A POST holding only notifications or responses is answered 200 with a JSON body, not 202.
    HttpAcceptedWithBody => "http-accepted-with-body",
    /// A POSTed batch is refused with 400 and one JSON-RPC error without an id ("batches are not
    /// supported"), at every revision: at 2025-03-26, whose servers MUST receive batches, no
    /// request of the batch is answered.
    HttpRefuseBatches => "http-refuse-batches",
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
    /// A POST holding only notifications or responses for a session the server does not know
    /// (none, or one it never issued) is answered 202 and dropped, not refused with 400 or 404.
    HttpRefusedNotificationAccepted => "http-refused-notification-accepted",
    // ---- the protected mode (`transport::http_server::protect`, issue #28): each breaks one rule
    // of an OAuth resource server; they act only when the server is protected (`--auth-issuer`).
    /// A 401 carries no `WWW-Authenticate` header.
    AuthNoChallenge => "auth-no-challenge",
    /// The 401 challenge names no `resource_metadata` (the PRM is still at the well-known URLs).
    AuthChallengeWithoutMetadata => "auth-challenge-without-metadata",
    /// The challenge to a request without a token carries `error="invalid_token"`.
    AuthErrorWithoutToken => "auth-error-without-token",
    /// The 401 challenge names no `scope`.
    AuthChallengeWithoutScope => "auth-challenge-without-scope",
    /// No `resource_metadata` in the challenge, and no PRM at the well-known URLs either.
    AuthPrmUndiscoverable => "auth-prm-undiscoverable",
    /// The PRM's `resource` is not the server's canonical URI.
    AuthPrmWrongResource => "auth-prm-wrong-resource",
    /// The PRM's `authorization_servers` is empty.
    AuthPrmNoAuthorizationServers => "auth-prm-no-authorization-servers",
    /// The PRM names an authorization server that serves no metadata.
    AuthPrmDeadAuthorizationServer => "auth-prm-dead-authorization-server",
    /// The PRM and the challenge advertise `offline_access` (2026-07-28: SHOULD NOT).
    AuthOfflineAccessAdvertised => "auth-offline-access-advertised",
    /// A request without a token is served.
    AuthUnauthenticatedServed => "auth-unauthenticated-served",
    /// Any bearer token at all is served, a garbage string included.
    AuthAcceptsGarbage => "auth-accepts-garbage",
    /// Token signatures are not checked.
    AuthIgnoresSignature => "auth-ignores-signature",
    /// Token audiences are not checked (RFC 8707).
    AuthIgnoresAudience => "auth-ignores-audience",
    /// Expired tokens are served.
    AuthIgnoresExpiry => "auth-ignores-expiry",
    /// Tokens not valid yet (`nbf`) are served.
    AuthIgnoresNotBefore => "auth-ignores-not-before",
    /// Tokens of another issuer are served.
    AuthIgnoresIssuer => "auth-ignores-issuer",
    /// A token in the `access_token` query parameter is served.
    AuthAcceptsQueryToken => "auth-accepts-query-token",
    /// Scopes are not checked: a token without the required scope is served.
    AuthNoScopeCheck => "auth-no-scope-check",
    /// A token without the required scope gets 401 instead of 403 `insufficient_scope`.
    AuthInsufficientScope401 => "auth-insufficient-scope-401",
    /// 2025-03-26: no authorization server metadata at the MCP server's origin (the default
    /// endpoints are still there).
    AuthLegacyNoMetadata => "auth-legacy-no-metadata",
    /// 2025-03-26: the metadata at the MCP server's origin names no `token_endpoint`.
    AuthLegacyMetadataIncomplete => "auth-legacy-metadata-incomplete",
    /// 2025-03-26: neither metadata nor the default endpoints at the MCP server's origin.
    AuthLegacyNoDefaultEndpoints => "auth-legacy-no-default-endpoints",
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
    // ---- planted bugs of the HTTP layer for `mcpspec fuzz --transport http` ----
    // Each trips only on its trigger (`transport/http_server/planted.rs`); otherwise the server
    // is the clean reference server over HTTP. An HTTP fuzzer must find each within a minute.
    /// An `Mcp-Session-Id` longer than 256 bytes overflows a fixed buffer: a panic in `main`
    /// (exit status 101).
    FuzzHttpCrashSessionId => "fuzz-http-crash-session-id",
    /// A `Content-Type` naming a charset other than UTF-8 is looked up in a table that lacks
    /// it: a panic in `main` (exit status 101).
    FuzzHttpCrashCharset => "fuzz-http-crash-charset",
    /// A JSON array body (a batch, or any array) is indexed as an object: a panic in `main`
    /// (exit status 101).
    FuzzHttpCrashBatch => "fuzz-http-crash-batch",
    /// Sessions go into a table of 24 slots that are never freed: creating the 25th panics
    /// (exit status 101). A leak per session, found only by opening many.
    FuzzHttpCrashSessionLeak => "fuzz-http-crash-session-leak",
    /// A POST whose `Accept` lacks `text/event-stream` is answered 500 Internal Server Error
    /// (the handler's error escaped), where a 406 was due.
    FuzzHttp500Accept => "fuzz-http-500-accept",
    /// An `MCP-Protocol-Version` that names no revision is answered 500, where a 400 was due.
    FuzzHttp500ProtocolVersion => "fuzz-http-500-protocol-version",
    /// A request with an `Origin` of another site panics in its handler's task: the connection
    /// drops without a response, and the process lives on.
    FuzzHttpResetOrigin => "fuzz-http-reset-origin",
    /// A GET takes the endpoint's lock and blocks its thread for good: every request after it
    /// hangs, the process alive.
    FuzzHttpHangGet => "fuzz-http-hang-get",
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
}
