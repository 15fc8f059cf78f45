//! The catalog of wire rules: what the session checker and the schema validator judge on every
//! message, whatever the scenario. Scenario checks carry their id, level and clause in the
//! feature files' tags instead (`@id:…`, `@MUST`, `@spec:…`).

use crate::judge::verdict::Level;
use mcpspec_protocol::Revision;

/// One normative rule of the spec.
#[derive(Debug, PartialEq, Eq)]
pub struct Rule {
    /// Stable id, `area/what`.
    pub id: &'static str,
    pub level: Level,
    /// Document and section under `docs/specification/<revision>/`.
    pub doc: &'static str,
    /// Where 2024-11-05 keeps the same rule, when it is another document.
    pub doc_2024: Option<&'static str>,
    /// The requirement, quoted or closely paraphrased from the spec.
    pub requirement: &'static str,
    /// The level before 2025-06-18, when it was weaker: "Both parties SHOULD … only use
    /// capabilities that were successfully negotiated" became MUST in 2025-06-18
    /// (`changelog.mdx` item 9).
    pub level_before_2025_06_18: Option<Level>,
    /// The first and last revisions that have the rule (`None`: from the first, to the last).
    pub since: Option<Revision>,
    pub until: Option<Revision>,
}

impl Rule {
    /// The spec path this rule rests on in `revision`.
    pub fn spec(&self, revision: Revision) -> String {
        let doc = match (revision, self.doc_2024) {
            (Revision::V2024_11_05, Some(doc)) => doc,
            _ => self.doc,
        };
        revision.doc(doc)
    }

    /// Whether `revision` has this rule (its clause exists there).
    pub fn applies(&self, revision: Revision) -> bool {
        self.since.is_none_or(|s| revision >= s) && self.until.is_none_or(|u| revision <= u)
    }

    /// The level of this rule in `revision`.
    pub fn level_at(&self, revision: Revision) -> Level {
        match self.level_before_2025_06_18 {
            Some(level) if revision < Revision::V2025_06_18 => level,
            _ => self.level,
        }
    }
}

macro_rules! rules {
    ($($name:ident = $id:literal, $level:ident $(/ $before:ident)?, $doc:literal, $doc_2024:expr, $req:literal
        $(, since $since:ident)? $(, until $until:ident)?;)*) => {
        $(pub const $name: Rule = Rule {
            id: $id, level: Level::$level, doc: $doc, doc_2024: $doc_2024, requirement: $req,
            level_before_2025_06_18: rules!(@before $($before)?),
            since: rules!(@rev $($since)?), until: rules!(@rev $($until)?),
        };)*
        /// Every wire rule, for listings and tests.
        pub const ALL: &[&Rule] = &[$(&$name),*];
    };
    (@before) => { None };
    (@before $before:ident) => { Some(Level::$before) };
    (@rev) => { None };
    (@rev $rev:ident) => { Some(Revision::$rev) };
}

const MESSAGES_2024: Option<&str> = Some("basic/messages.mdx");
/// The legacy HTTP+SSE transport: its own section in 2024-11-05, the backwards-compatibility
/// section of Streamable HTTP after.
const HTTP_SSE_2024: Option<&str> = Some("basic/transports.mdx#http-with-sse");

rules! {
    JSONRPC_ENVELOPE = "jsonrpc/envelope", MUST, "basic/index.mdx", MESSAGES_2024,
        "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification, with MCP's rules on ids, results and errors.";
    JSONRPC_VERSION = "jsonrpc/version", MUST, "basic/index.mdx", MESSAGES_2024,
        "All messages between MCP clients and servers MUST follow the JSON-RPC 2.0 specification (\"jsonrpc\": \"2.0\").";
    JSONRPC_OBJECT = "jsonrpc/message-object", MUST, "basic/index.mdx", MESSAGES_2024,
        "Every JSON-RPC message is a JSON object (a request, a notification or a response).";
    REQUEST_ID_NOT_NULL = "jsonrpc/request-id-not-null", MUST, "basic/index.mdx#requests", MESSAGES_2024,
        "Requests MUST include a string or integer ID. Unlike base JSON-RPC, the ID MUST NOT be null.";
    REQUEST_ID_TYPE = "jsonrpc/request-id-type", MUST, "basic/index.mdx#requests", MESSAGES_2024,
        "Requests MUST include a string or integer ID.";
    REQUEST_ID_UNIQUE = "jsonrpc/request-id-unique", MUST, "basic/index.mdx#requests", MESSAGES_2024,
        "The request ID MUST NOT have been previously used by the requestor within the same session.";
    NOTIFICATION_NO_ID = "jsonrpc/notification-no-id", MUST, "basic/index.mdx#notifications", MESSAGES_2024,
        "Notifications MUST NOT include an ID.";
    METHOD_STRING = "jsonrpc/method-string", MUST, "basic/index.mdx", MESSAGES_2024,
        "A request or notification names its method with a string (JSON-RPC 2.0).";
    RESULT_XOR_ERROR = "jsonrpc/response-result-xor-error", MUST, "basic/index.mdx#responses", MESSAGES_2024,
        "Either a result or an error MUST be set. A response MUST NOT set both.";
    RESPONSE_HAS_ID = "jsonrpc/response-id", MUST, "basic/index.mdx#responses", MESSAGES_2024,
        "Responses MUST include the same ID as the request they correspond to.";
    RESPONSE_ID_MATCHES = "jsonrpc/response-id-matches-request", MUST, "basic/index.mdx#responses", MESSAGES_2024,
        "Responses MUST include the same ID as the request they correspond to (same value and same JSON type).";
    ERROR_CODE_INTEGER = "jsonrpc/error-code-integer", MUST, "basic/index.mdx#responses", MESSAGES_2024,
        "Error codes MUST be integers.";
    ERROR_SHAPE = "jsonrpc/error-object", MUST, "basic/index.mdx#responses", MESSAGES_2024,
        "Errors carry at least an integer code and a string message.";
    ELICITATION_NO_SECRETS = "elicitation/form-no-secrets", MUST, "client/elicitation.mdx#user-interaction-model", None,
        "Servers MUST NOT use form mode elicitation to request sensitive information such as passwords, API keys, access tokens, or payment credentials (2025-06-18: MUST NOT request sensitive information); judged by the field names and titles that name such a secret.", since V2025_06_18;
    ELICITATION_URL_NO_USER_DATA = "elicitation/url-no-user-data", MUST, "client/elicitation.mdx#safe-url-handling", None,
        "The URL of a URL mode elicitation MUST NOT contain sensitive information about the end-user, including credentials and personally identifiable information; judged by userinfo, e-mail addresses and query parameters named for secrets.", since V2025_11_25;
    SUBSCRIPTION_END_CANCELLED = "subscriptions/end-cancelled", SHOULD, "basic/patterns/cancellation.mdx", None,
        "A server tearing down a subscription stream MUST send notifications/cancelled naming the subscriptions/listen request (basic/patterns/cancellation.mdx); basic/patterns/subscriptions.mdx#graceful-closure asks instead (SHOULD) for a completion result to that request. The pages disagree, so a completion result without the cancellation is a warning that cites both.", since V2026_07_28;
    CLIENT_ELICITATION_MODE = "client-elicitation/declares-a-mode", MUST, "client/elicitation.mdx#capabilities", None,
        "Clients declaring the elicitation capability MUST support at least one mode (form or url); an empty elicitation object means form mode.", since V2025_11_25;
    INITIALIZE_NOT_BATCHED = "lifecycle/initialize-not-batched", MUST, "basic/lifecycle.mdx#initialization", None,
        "The initialization request MUST NOT be part of a JSON-RPC batch, as other requests and notifications are not possible until initialization has completed.", since V2025_03_26, until V2025_03_26;
    BATCH_REVISION = "jsonrpc/batch-revision", MUST, "basic/transports.mdx#stdio", None,
        "JSON-RPC batches exist only in 2025-03-26; elsewhere stdio messages are individual JSON-RPC requests, notifications, or responses.";
    STDOUT_ONLY_MCP = "stdio/stdout-only-mcp", MUST, "basic/transports.mdx#stdio", None,
        "The server MUST NOT write anything to its stdout that is not a valid MCP message.";
    STDOUT_UTF8 = "stdio/utf8", MUST, "basic/transports.mdx#stdio", None,
        "JSON-RPC messages MUST be UTF-8 encoded.";
    NEWLINE_DELIMITED = "stdio/newline-delimited", MUST, "basic/transports.mdx#stdio", None,
        "Messages are delimited by newlines, and MUST NOT contain embedded newlines.";
    BLANK_LINE = "stdio/blank-line", SHOULD, "basic/transports.mdx#stdio", None,
        "The server MUST NOT write anything to its stdout that is not a valid MCP message (an empty line is at best tolerated: the spec does not say).";
    MESSAGE_SIZE = "stdio/message-size-limit", SHOULD, "basic/transports.mdx#stdio", None,
        "One message per line; mcpspec reads lines up to its --max-message-bytes limit and cannot judge a longer one.";
    SCHEMA_VALID = "schema/message-valid", MUST, "basic/index.mdx", MESSAGES_2024,
        "All messages MUST follow the JSON-RPC 2.0 specification and the revision's schema (schema.ts, published as schema.json).";
    SCHEMA_FORMAT = "schema/format", SHOULD, "basic/index.mdx", MESSAGES_2024,
        "Strings match the format the revision's schema gives them (uri, uri-template, byte). In JSON Schema 2020-12 `format` is an annotation, which validators need not assert: a mismatch is reported, not failed.";
    SCHEMA_KNOWN_METHOD = "schema/known-method", MUST / SHOULD, "basic/lifecycle.mdx#operation", None,
        "Both parties SHOULD (2025-06-18: MUST) respect the negotiated protocol version: methods sent are ones the revision defines.";
    LOGGING_DECLARED = "capabilities/logging-declared", MUST, "server/utilities/logging.mdx#capabilities", None,
        "Servers that emit log message notifications MUST declare the logging capability.";
    SERVER_CAPABILITY_NEGOTIATED = "capabilities/server-uses-negotiated", MUST / SHOULD, "basic/lifecycle.mdx#operation", None,
        "Only use capabilities that were successfully negotiated: list_changed only with listChanged, resources/updated only with subscribe.";
    CLIENT_CAPABILITY_NEGOTIATED = "capabilities/server-requests-declared", MUST / SHOULD, "basic/lifecycle.mdx#operation", None,
        "Only use capabilities that were successfully negotiated: sampling, roots and elicitation requests only to a client that declared them.";
    SAMPLING_TOOLS_DECLARED = "sampling/tools-capability", MUST, "client/sampling.mdx#capabilities", None,
        "Servers MUST NOT send tool-enabled sampling requests to Clients that have not declared support for tool use via the sampling.tools capability.";
    SAMPLING_TOOL_BALANCE = "sampling/tool-result-balance", MUST, "client/sampling.mdx#tool-use-and-result-balance", None,
        "Every assistant message containing ToolUseContent blocks MUST be followed by a user message that consists entirely of ToolResultContent blocks, each tool use matched by a tool result with its toolUseId, before any other message.", since V2025_11_25;
    ELICITATION_MODE_DECLARED = "elicitation/mode-declared", MUST, "client/elicitation.mdx#capabilities", None,
        "Servers MUST NOT send elicitation requests with modes that are not supported by the client.", since V2025_06_18;
    ELICITATION_URL_VALID = "elicitation/url-valid", MUST, "client/elicitation.mdx#url-mode-elicitation-requests", None,
        "URL mode elicitation requests MUST specify mode \"url\", a message, and include url and elicitationId. The url parameter MUST contain a valid URL.", since V2025_11_25;
    ELICITATION_COMPLETE_KNOWN = "elicitation/complete-known-id", MUST, "client/elicitation.mdx#completion-notifications-for-url-mode-elicitation", None,
        "Servers sending notifications/elicitation/complete MUST only send it to the client that initiated the elicitation request, and MUST include the elicitationId established in the original elicitation/create request.", since V2025_11_25, until V2025_11_25;
    ELICITATION_REQUIRED_URL_MODE = "elicitation/required-error-url-mode", MUST, "client/elicitation.mdx#url-elicitation-required-error", None,
        "The URLElicitationRequiredError (-32042) MUST include a list of the elicitations required; any elicitations it returns MUST be URL mode elicitations and have an elicitationId property.", since V2025_11_25, until V2025_11_25;
    BEFORE_INITIALIZED = "lifecycle/server-quiet-before-initialized", SHOULD, "basic/lifecycle.mdx#initialization", None,
        "The server SHOULD NOT send requests other than pings and logging before receiving the initialized notification.";
    PROGRESS_TOKEN_KNOWN = "progress/token-active", MUST, "basic/utilities/progress.mdx", None,
        "Progress notifications MUST only reference tokens that were provided in an active request and are associated with an in-progress operation.";
    PROGRESS_INCREASING = "progress/increasing", MUST, "basic/utilities/progress.mdx", None,
        "The progress value MUST increase with each notification, even if the total is unknown.";
    PROGRESS_STOPS = "progress/stops-after-completion", MUST, "basic/utilities/progress.mdx", None,
        "Progress notifications MUST stop after completion.";
    PROGRESS_TOKEN_UNIQUE = "progress/token-unique", MUST, "basic/utilities/progress.mdx", None,
        "Progress tokens MUST be unique across all active requests.";
    CANCEL_IN_FLIGHT = "cancellation/in-flight-only", MUST, "basic/utilities/cancellation.mdx", None,
        "Cancellation notifications MUST only reference requests that were previously issued in the same direction and are believed to still be in-progress.";
    CANCEL_REQUEST_ID = "cancellation/request-id-required", MUST, "schema.mdx#cancellednotificationparams", None,
        "requestId: the ID of the request to cancel; it MUST be provided for cancelling non-task requests (tasks are cancelled with tasks/cancel, never by this notification) (2025-11-25).", since V2025_11_25, until V2025_11_25;
    CANCEL_NOT_INITIALIZE = "cancellation/not-initialize", MUST, "basic/utilities/cancellation.mdx", None,
        "The initialize request MUST NOT be cancelled by clients.";
    SERVER_CAPABILITY_USED = "capabilities/client-uses-negotiated", MUST / SHOULD, "basic/lifecycle.mdx#operation", None,
        "Only use capabilities that were successfully negotiated: tools, resources, prompts, logging and completion requests only to a server that declared them; roots/list_changed only from a client that declared roots.listChanged.";
    HTTP_MESSAGE_JSON = "http/message-json", MUST, "basic/transports.mdx#streamable-http", HTTP_SSE_2024,
        "Messages are JSON-RPC messages encoded as JSON (UTF-8): a response body of Content-Type application/json holds one, and each SSE message event's data holds one.";
    HTTP_ACCEPTED_202 = "http/notification-202", MUST, "basic/transports.mdx#sending-messages-to-the-server", None,
        "If the input consists solely of JSON-RPC responses or notifications and the server accepts the input, the server MUST return HTTP status code 202 Accepted with no body.", since V2025_03_26;
    HTTP_RESPONSE_CONTENT_TYPE = "http/response-content-type", MUST, "basic/transports.mdx#sending-messages-to-the-server", None,
        "If the input contains any number of JSON-RPC requests, the server MUST either return Content-Type: text/event-stream, to initiate an SSE stream, or Content-Type: application/json, to return one JSON object.", since V2025_03_26;
    HTTP_RESPONSE_ON_STREAM = "http/response-on-its-stream", SHOULD, "basic/transports.mdx#sending-messages-to-the-server", None,
        "The SSE stream SHOULD eventually include one JSON-RPC response per JSON-RPC request sent in the POST body; the server SHOULD NOT close it before sending the response (2025-11-25: unless it sent an event id to resume from).", since V2025_03_26;
    HTTP_SESSION_ID_ASCII = "http/session-id-visible-ascii", MUST, "basic/transports.mdx#session-management", None,
        "The session ID MUST only contain visible ASCII characters (ranging from 0x21 to 0x7E).", since V2025_03_26;
    HTTP_GET_SSE_OR_405 = "http/get-sse-or-405", MUST, "basic/transports.mdx#listening-for-messages-from-the-server", None,
        "The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed.", since V2025_03_26;
    HTTP_NO_RESPONSE_ON_GET = "http/no-response-on-get", MUST, "basic/transports.mdx#listening-for-messages-from-the-server", None,
        "The server MUST NOT send a JSON-RPC response on the stream unless resuming a stream associated with a previous client request.", since V2025_03_26;
    HTTP_POST_STREAM_RELATED = "http/post-stream-related", MUST, "basic/transports/streamable-http.mdx#receiving-messages", None,
        "Notifications the server sends on the SSE stream of a POST MUST relate to the originating client request (progress, log messages; change notifications only on a subscriptions/listen stream).", since V2026_07_28;
    HTTP_EVENT_ID_UNIQUE = "http/event-id-unique", MUST, "basic/transports.mdx#resumability-and-redelivery", None,
        "If present, the ID MUST be globally unique across all streams within that session.", since V2025_03_26, until V2025_11_25;
    HTTP_NO_BROADCAST = "http/no-broadcast", MUST, "basic/transports.mdx#multiple-connections", None,
        "The server MUST send each of its JSON-RPC messages on only one of the connected streams; that is, it MUST NOT broadcast the same message across multiple streams.", since V2025_03_26;
    SSE_ENDPOINT_EVENT = "sse/endpoint-event", MUST, "basic/transports.mdx#backwards-compatibility", HTTP_SSE_2024,
        "When a client connects, the server MUST send an endpoint event containing a URI for the client to use for sending messages.";
    SSE_MESSAGE_EVENTS = "sse/message-events", MUST, "basic/transports.mdx#backwards-compatibility", HTTP_SSE_2024,
        "Server messages are sent as SSE message events, with the message content encoded as JSON in the event data.";
    HTTP_CLIENT_POST_ACCEPT = "http-client/post-accept", MUST, "basic/transports.mdx#sending-messages-to-the-server", None,
        "The client MUST include an Accept header, listing both application/json and text/event-stream as supported content types.", since V2025_03_26;
    HTTP_CLIENT_GET_ACCEPT = "http-client/get-accept", MUST, "basic/transports.mdx#listening-for-messages-from-the-server", None,
        "The client MUST include an Accept header, listing text/event-stream as a supported content type.", since V2025_03_26;
    HTTP_CLIENT_SESSION_ID = "http-client/session-id", MUST, "basic/transports.mdx#session-management", None,
        "If an Mcp-Session-Id is returned by the server during initialization, clients using the Streamable HTTP transport MUST include it in the Mcp-Session-Id header on all of their subsequent HTTP requests.", since V2025_03_26;
    HTTP_CLIENT_PROTOCOL_VERSION = "http-client/protocol-version-header", MUST, "basic/transports.mdx#protocol-version-header", None,
        "If using HTTP, the client MUST include the MCP-Protocol-Version: <protocol-version> HTTP header on all subsequent requests to the MCP server.", since V2025_06_18;
    HTTP_CLIENT_PROTOCOL_VERSION_NEGOTIATED = "http-client/protocol-version-negotiated", SHOULD, "basic/transports.mdx#protocol-version-header", None,
        "The protocol version sent by the client SHOULD be the one negotiated during initialization.", since V2025_06_18;
    HTTP_CLIENT_POST_MESSAGES = "http-client/post-messages", MUST, "basic/transports.mdx#sending-messages-to-the-server", None,
        "The client MUST use HTTP POST to send JSON-RPC messages to the MCP endpoint (GET only opens a stream, DELETE only ends a session).", since V2025_03_26;
    HTTP_CLIENT_ONE_MESSAGE = "http-client/one-message-per-post", MUST, "basic/transports.mdx#sending-messages-to-the-server", None,
        "The body of the POST request MUST be a single JSON-RPC request, notification, or response (batches only in 2025-03-26).", since V2025_03_26;
    HTTP_CLIENT_RETRY = "http-client/respect-retry", MUST, "basic/transports.mdx#sending-messages-to-the-server", None,
        "The client MUST respect the retry field, both when the server closes the connection and when it terminates the SSE stream.", since V2025_03_26;
    SSE_CLIENT_POST_ENDPOINT = "sse-client/post-to-endpoint", MUST, "basic/transports.mdx#backwards-compatibility", HTTP_SSE_2024,
        "All subsequent client messages MUST be sent as HTTP POST requests to the endpoint named by the server's endpoint event.";
    REQUEST_ID_NOT_OUTSTANDING = "jsonrpc/request-id-not-outstanding", MUST, "basic/index.mdx#requests", None,
        "The request ID MUST NOT match the ID of any other request the sender has issued and not yet received a response for (2026-07-28).";
    MODERN_NO_SERVER_REQUESTS = "modern/no-server-requests", MUST, "basic/patterns/index.mdx", None,
        "Servers MUST NOT initiate JSON-RPC requests: what they need from the client they ask for with an InputRequiredResult (2026-07-28).", since V2026_07_28;
    MODERN_RESULT_TYPE = "modern/result-type", MUST, "basic/index.mdx#responses", None,
        "The result MUST include a resultType field: \"complete\" or \"input_required\" (a value unknown to the client MUST be considered invalid).", since V2026_07_28;
    EXTENSION_IDENTIFIERS = "extensions/identifier-naming", MUST, "basic/versioning.mdx#extension-negotiation", None,
        "Extension identifiers (the keys of capabilities.extensions) MUST follow the _meta key naming rules, with a mandatory prefix.", since V2026_07_28;
    MODERN_ERROR_CODES = "modern/error-codes", MUST, "basic/index.mdx#error-codes", None,
        "Implementations MUST NOT emit any code from the -32020…-32099 sub-range that is not defined by this specification, and implementations of 2026-07-28 MUST NOT emit -32002 or -32042.", since V2026_07_28;
    CACHE_HINTS = "caching/hints", MUST, "server/utilities/caching.mdx", None,
        "Servers MUST include caching hints on complete results of server/discover, tools/list, prompts/list, resources/list, resources/templates/list and resources/read: ttlMs, an integer >= 0, and cacheScope, \"public\" or \"private\".", since V2026_07_28;
    CACHE_SCOPE_PAGES = "caching/same-scope-every-page", MUST, "server/utilities/caching.mdx", None,
        "Servers MUST apply the same cacheScope to all response pages for a given list request.", since V2026_07_28;
    MRTR_SUPPORTED_REQUESTS = "mrtr/supported-requests", MUST, "basic/patterns/mrtr.mdx#supported-requests", None,
        "Servers MUST NOT send InputRequiredResult responses on any client requests but prompts/get, resources/read and tools/call.", since V2026_07_28;
    MRTR_INPUT_OR_STATE = "mrtr/input-or-state", MUST, "basic/patterns/mrtr.mdx#server-requirements-basic-workflow", None,
        "Servers MUST include at least one of inputRequests or requestState in every InputRequiredResult response.", since V2026_07_28;
    MRTR_INPUT_REQUESTS = "mrtr/input-request-kinds", MUST, "basic/patterns/mrtr.mdx#server-requirements-basic-workflow", None,
        "inputRequests values are request objects that MUST be one of ElicitRequest, CreateMessageRequest or ListRootsRequest.", since V2026_07_28;
    MRTR_DECLARED = "mrtr/input-requests-declared", MUST, "basic/patterns/mrtr.mdx#server-requirements-basic-workflow", None,
        "Servers MUST NOT send an inputRequests that the client has not declared support for in its capabilities.", since V2026_07_28;
    LOG_LEVEL_PER_REQUEST = "logging/per-request-level", MUST, "server/utilities/logging.mdx#per-request-log-level", None,
        "The server MUST NOT emit notifications/message for a request that does not include io.modelcontextprotocol/logLevel in its _meta.", since V2026_07_28;
    SUBSCRIPTION_ACK_FIRST = "subscriptions/acknowledged-first", MUST, "basic/patterns/subscriptions.mdx#acknowledgment", None,
        "The server MUST send notifications/subscriptions/acknowledged as the first message carrying the subscription's ID, and MUST NOT send any notification on the subscription before it.", since V2026_07_28;
    SUBSCRIPTION_ID = "subscriptions/subscription-id", MUST, "basic/patterns/subscriptions.mdx#receiving-notifications", None,
        "All notifications delivered on the stream carry io.modelcontextprotocol/subscriptionId in _meta: the JSON-RPC id of the subscriptions/listen request that opened it.", since V2026_07_28;
    SUBSCRIPTION_ONLY_REQUESTED = "subscriptions/only-requested", MUST, "basic/patterns/subscriptions.mdx#opening-a-stream", None,
        "The server MUST NOT send notification types the client has not explicitly requested.", since V2026_07_28;
    NO_CRASH = "robustness/no-crash", MUST, "basic/index.mdx#responses", MESSAGES_2024,
        "Every request MUST be answered with a result or an error (JSON-RPC 2.0). An implementation that dies on its input answers none of the requests in flight, and an HTTP server that drops the connection without a response answers none of its request; ending the connection is the client's to begin (basic/lifecycle.mdx#shutdown).";
    NO_HANG = "robustness/no-hang", MUST, "basic/index.mdx#responses", MESSAGES_2024,
        "Every request MUST be answered with a result or an error; a ping MUST be answered promptly (basic/utilities/ping.mdx). After the input, the fuzzer's barrier request (ping; server/discover in the modern era) went unanswered.";
    NO_UNCAUGHT_ERROR = "robustness/no-uncaught-error", SHOULD, "basic/index.mdx#responses", MESSAGES_2024,
        "A message the implementation cannot handle SHOULD get a JSON-RPC error response (parse error, invalid request, invalid params, internal error), not an uncaught exception. stderr is free for logging (basic/transports.mdx#stdio); a panic or traceback there shows the error escaped its handler.";
    META_KEY_FORMAT = "meta/key-format", MUST, "basic/index.mdx#_meta", None,
        "A _meta key is an optional prefix (dot-separated labels, each starting with a letter and ending with a letter or digit, with letters, digits or hyphens inside, followed by a slash) and a name that, unless empty, begins and ends with an alphanumeric character (2025-06-18 on).", since V2025_06_18;
    META_TRACE_CONTEXT = "meta/trace-context", MUST, "basic/index.mdx#_meta", None,
        "When present in _meta, traceparent and tracestate follow the W3C Trace Context format and baggage the W3C Baggage format (2026-07-28).", since V2026_07_28;
    X_MCP_HEADER = "tools/x-mcp-header", MUST, "basic/transports/streamable-http.mdx#schema-extension", None,
        "An x-mcp-header value is a non-empty HTTP token without control characters, unique ignoring case within its inputSchema, on an integer, string or boolean parameter reached from the schema root through properties keys alone (2026-07-28).", since V2026_07_28;
    SCHEMA_DIALECT_VALID = "schema/dialect-valid", MUST, "basic/index.mdx#schema-validation", None,
        "Every schema (a tool's inputSchema and outputSchema, an elicitation's requestedSchema) is valid under the dialect its $schema declares, or JSON Schema 2020-12 when it declares none (2025-11-25 on).", since V2025_11_25;
    TASK_STATUS_LIFECYCLE = "tasks/status-lifecycle", MUST, "basic/utilities/tasks.mdx#task-status-lifecycle", None,
        "Tasks MUST begin in the working status when created. Receivers MUST only transition tasks through the valid paths (from working or input_required to another status); tasks with a completed, failed or cancelled status are in a terminal state and MUST NOT transition to any other status (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_NO_RELATED_META = "tasks/no-related-meta-in-task-messages", SHOULD, "basic/utilities/tasks.mdx#associating-task-related-messages", None,
        "For the tasks/get, tasks/list and tasks/cancel operations requestors and receivers SHOULD NOT include io.modelcontextprotocol/related-task metadata in their messages (nor requestors in tasks/result requests), and notifications/tasks/status SHOULD NOT include it: the taskId is already present (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_CAPABILITY_DECLARED = "tasks/capability-declared", MUST, "basic/utilities/tasks.mdx#capabilities", None,
        "Servers and clients that support task-augmented requests MUST declare a tasks capability during initialization; the set in capabilities.tasks.requests is exhaustive: a CreateTaskResult answers only a request type declared there (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_PROGRESS_STOPS = "progress/task-stops-at-terminal", MUST, "basic/utilities/progress.mdx#behavior-requirements", None,
        "For task-augmented requests, the progressToken provided in the original request MUST continue to be used for progress notifications throughout the task's lifetime, even after the CreateTaskResult has been returned; progress notifications for tasks MUST stop after the task reaches a terminal status (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_RESULT_NAMES_TASK = "tasks/result-names-task", MUST, "basic/utilities/tasks.mdx#associating-task-related-messages", None,
        "A message tied to a task carries io.modelcontextprotocol/related-task in _meta with that task's taskId; a tasks/result answer, whose result does not name the task otherwise, always does, naming the task the request asked for (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_RELATED_TASK_KNOWN = "tasks/related-task-known", MUST, "basic/utilities/tasks.mdx#associating-task-related-messages", None,
        "A request tied to a task, such as an elicitation the task's tool call depends on, names that very task in its related-task _meta: a task of the session, never one that does not exist (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_LIST_CURSOR_OPAQUE = "tasks/list-cursor-as-given", MUST, "basic/utilities/tasks.mdx#task-listing", None,
        "A requestor treats tasks/list cursors as opaque: the cursor of a tasks/list request is a nextCursor the receiver gave, sent back unparsed and unchanged (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_TOOLS_CALL_CAPABILITY = "tasks/client-tools-call-capability", MUST, "basic/utilities/tasks.mdx#tool-level-negotiation", None,
        "A client never calls a tool as a task (tools/call carrying task) on a server whose capabilities lack tasks.requests.tools.call, whatever the tool's execution.taskSupport says (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_FORBIDDEN_TOOL = "tasks/client-forbidden-tool-plain", MUST, "basic/utilities/tasks.mdx#tool-level-negotiation", None,
        "On a server declaring tasks.requests.tools.call, a client never calls as a task a tool whose execution.taskSupport is absent or \"forbidden\" (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_REQUIRED_TOOL = "tasks/client-required-tool-as-task", MUST, "basic/utilities/tasks.mdx#tool-level-negotiation", None,
        "On a server declaring tasks.requests.tools.call, a client calls a tool whose execution.taskSupport is \"required\" only as a task, never plainly (2025-11-25).", since V2025_11_25, until V2025_11_25;
    TASK_CANCEL_BY_TASKS_CANCEL = "cancellation/task-by-tasks-cancel", MUST, "basic/utilities/cancellation.mdx#behavior-requirements", None,
        "A task-augmented request is cancelled with tasks/cancel, never with notifications/cancelled naming it; tasks have a cancellation of their own, which answers with the task's final state (2025-11-25).", since V2025_11_25, until V2025_11_25;
    NOTIFICATION_UNANSWERED = "jsonrpc/notification-unanswered", MUST, "basic/index.mdx#notifications", MESSAGES_2024,
        "Notifications MUST NOT include an ID; the receiver MUST NOT send a response (JSON-RPC 2.0: the Server MUST NOT reply to a Notification).";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut ids: Vec<_> = ALL.iter().map(|r| r.id).collect();
        ids.sort_unstable();
        let n = ids.len();
        ids.dedup();
        assert_eq!(ids.len(), n, "duplicate rule id");
        for r in ALL {
            assert!(r.id.split('/').count() == 2 && !r.requirement.is_empty(), "{}", r.id);
        }
    }

    #[test]
    fn cites_messages_mdx_in_2024() {
        assert_eq!(
            RESPONSE_ID_MATCHES.spec(Revision::V2024_11_05),
            "docs/specification/2024-11-05/basic/messages.mdx"
        );
        assert_eq!(
            RESPONSE_ID_MATCHES.spec(Revision::V2025_06_18),
            "docs/specification/2025-06-18/basic/index.mdx#responses"
        );
    }
}

/// One broken rule, on one message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub rule: &'static Rule,
    pub expected: String,
    pub actual: String,
}

impl Violation {
    pub fn new(rule: &'static Rule, expected: impl Into<String>, actual: impl Into<String>) -> Self {
        Violation { rule, expected: expected.into(), actual: actual.into() }
    }
}
