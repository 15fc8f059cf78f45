Feature: The modern era (2026-07-28): a client without initialize
  From 2026-07-28 there is no initialize: every request carries its protocol version and the
  client's capabilities in _meta, a server that does not speak the version answers -32022 with
  the versions it supports, and a server that needs input from the user or the model answers
  tools/call, prompts/get or resources/read with an InputRequiredResult (resultType
  "input_required") instead of sending requests: the client answers the input requests and
  retries the original request with a new id, its inputResponses and the requestState echoed.
  The scenario server is mcpspec's reference server at the revision under test (modern-only: an
  initialize gets -32601), whose MRTR tools ask for input. Besides these scenarios, every
  request of the client is judged by the era's rules (client-modern/…: _meta on every request,
  no JSON-RPC responses, each MRTR retry, the retry after -32022).

  A client opts into an MRTR scenario by its name (MCP_CONFORMANCE_SCENARIO): it calls the tool
  the scenario names (test_elicitation, test_sampling, test_roots, test_mrtr_multiple_inputs,
  test_mrtr_multi_round); a client that does not call it is skipped.

  @id:client-modern/request-meta @MUST @since:2026-07-28 @spec:basic/index.mdx#_meta
  Scenario: every request carries its protocol version and the client's capabilities in _meta
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client sent requests, each with the request metadata in _meta, and no initialize

  # basic/transports/stdio.mdx#backward-compatibility: a dual-era client SHOULD probe with
  # server/discover before any other request; a modern-only one is RECOMMENDED to.
  @id:client-modern/discover-probe @SHOULD @since:2026-07-28 @transport:stdio @spec:basic/transports/stdio.mdx#backward-compatibility
  Scenario: the client probes with server/discover before any other request
    Given a client connected to the scenario server
    Then the client's first request is "server/discover"

  @id:client-modern/unsupported-version @SHOULD @since:2026-07-28 @spec:basic/versioning.mdx#protocol-version-negotiation
  Scenario: a request refused with -32022 is retried at a version from the supported list
    Given a client connected to the scenario server
    And the scenario server refuses the client's first request as an unsupported protocol version
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client retried the refused request at a version from the supported list, with a new id

  @id:client-modern/mrtr-elicitation @MUST @since:2026-07-28 @spec:basic/patterns/mrtr.mdx#client-requirements-basic-workflow
  Scenario: an elicitation input request is answered and the tool call retried to completion
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client completed its call of the tool "test_elicitation" after 1 round of input

  @id:client-modern/mrtr-sampling @MUST @since:2026-07-28 @spec:basic/patterns/mrtr.mdx#client-requirements-basic-workflow
  Scenario: a sampling input request is answered and the tool call retried to completion
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client completed its call of the tool "test_sampling" after at least 1 round of input

  @id:client-modern/mrtr-roots @MUST @since:2026-07-28 @spec:basic/patterns/mrtr.mdx#client-requirements-basic-workflow
  Scenario: a roots input request is answered and the tool call retried to completion
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client completed its call of the tool "test_roots" after 1 round of input
    And the roots the client gave for the tool "test_roots" are file:// URIs without dot segments

  @id:client-modern/mrtr-multiple-inputs @MUST @since:2026-07-28 @spec:basic/patterns/mrtr.mdx#client-requirements-basic-workflow
  Scenario: several input requests at once are all answered in one retry
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client completed its call of the tool "test_mrtr_multiple_inputs" after 1 round of input

  @id:client-modern/mrtr-multi-round @MUST @since:2026-07-28 @spec:basic/patterns/mrtr.mdx#client-requirements-basic-workflow
  Scenario: a second round of input is answered like the first, with the new requestState
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client completed its call of the tool "test_mrtr_multi_round" after 2 rounds of input

  # The scenario server leaves requestState out of its InputRequiredResults (it then asks
  # again: without its state it cannot go on): the client MUST NOT send one of its own.
  @id:client-modern/mrtr-no-request-state @MUST @since:2026-07-28 @spec:basic/patterns/mrtr.mdx#client-requirements-basic-workflow
  Scenario: an InputRequiredResult without requestState is retried without one
    Given a client connected to the scenario server
    And the scenario server sends no requestState
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client retried its call of the tool "test_elicitation", each retry without a requestState

  # server/utilities/caching.mdx: a result is fresh for ttlMs (the reference server's lists: 60 s);
  # "the client SHOULD consider the result fresh" and not fetch it again meanwhile. A client opts
  # into needing the tool list twice by this scenario's name.
  @id:client-modern/caching @SHOULD @since:2026-07-28 @spec:server/utilities/caching.mdx
  Scenario: a cacheable result is not asked for again while it is fresh
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client asked for no cacheable result again while it was fresh

  # streamable-http.mdx#request-metadata: every POST carries MCP-Protocol-Version equal to the
  # body's _meta version, Mcp-Method and (tools/call, resources/read, prompts/get) Mcp-Name; the
  # scenario server's endpoint checks them against the body and refuses a mismatch with 400 and
  # -32020 (HeaderMismatch), and the era's session-less POSTs carry no Mcp-Session-Id.
  @id:client-modern/http-request-headers @MUST @since:2026-07-28 @transport:http @spec:basic/transports/streamable-http.mdx#request-metadata
  Scenario: over Streamable HTTP, the request headers mirror the body and no POST is refused for them
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then no POST of the client was refused, and none carried a session id or went out as a GET

  # streamable-http.mdx#custom-headers-from-tool-parameters: the scenario server's tool
  # test_custom_headers annotates its parameters with x-mcp-header, and every tools/call POST of
  # a client is judged against its arguments (http-client/param-header-…: a header per argument
  # with a value, matching it once decoded and Base64-encoded where the value needs it, none for
  # a null or absent argument, integers within the safe range). A client opts in by this
  # scenario's name: it calls test_custom_headers with a value like the =?base64?…?= sentinel,
  # one beyond ASCII, an integer, a null one and one left out; a client that does not is skipped.
  @id:client-modern/param-headers @MUST @since:2026-07-28 @transport:http @spec:basic/transports/streamable-http.mdx#custom-headers-from-tool-parameters
  Scenario: a call of a tool with x-mcp-header parameters mirrors its arguments in Mcp-Param headers
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client called the tool "test_custom_headers", its Mcp-Param headers mirroring the arguments

  # streamable-http.mdx#schema-extension: a client over Streamable HTTP excludes a tool whose
  # x-mcp-header breaks the constraints from its tool list. The scenario server also lists one
  # (its annotation is no HTTP token) and a client opted in by the scenario's name is asked to
  # call it; a client that calls no tool at all is skipped.
  @id:client-modern/x-mcp-header-invalid @MUST @since:2026-07-28 @transport:http @spec:basic/transports/streamable-http.mdx#schema-extension
  Scenario: a tool whose x-mcp-header annotation breaks the constraints is never called
    Given a client connected to the scenario server
    And the scenario server also lists the tool "test_invalid_x_mcp_header" annotated with x-mcp-header "Bad Name"
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client called a tool, but never "test_invalid_x_mcp_header"

  # The legacy sampling scenarios, carried by MRTR: the scenario server answers the client's
  # tool call with an InputRequiredResult holding one sampling/createMessage input request, and
  # the client's answer is its entry in the retry's inputResponses. The era has no error for an
  # input request (an InputResponse is a CreateMessageResult, a ListRootsResult or an
  # ElicitResult): a client refuses one by answering nothing, or by not retrying at all
  # (client/sampling.mdx#error-handling: the server is not waiting for a reply). A user's
  # rejection looks the same.
  @id:client-modern/sampling-tool-loop @MUST @since:2026-07-28 @spec:client/sampling.mdx#tool-choice-modes
  Scenario: a tool loop over input requests runs to a final answer; each answer uses only the offered tools, and none with toolChoice "none"
    Given a client connected to the scenario server
    When the client sends a "tools/call" request
    Given the client declared the "sampling.tools" capability
    When the scenario server answers it asking for input: a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } }],
        "tools": [{
          "name": "get_weather",
          "description": "Current weather for a city",
          "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }
        }],
        "toolChoice": { "mode": "auto" },
        "maxTokens": 200
      }
      """
    Then the client answers it with a sampled message, or no answer (the user rejected it)
    When the scenario server continues the tool loop
    Then the client answers it with a sampled message, or no answer (the user rejected it)
    When the scenario server continues the tool loop with toolChoice "none"
    Then the client answers it with a sampled message, or no answer (the user rejected it)

  @id:client-modern/sampling-tool-choice-required @MUST @since:2026-07-28 @spec:client/sampling.mdx#tool-choice-modes
  Scenario: with toolChoice "required" the answer to a sampling input request uses one of the offered tools
    Given a client connected to the scenario server
    When the client sends a "tools/call" request
    Given the client declared the "sampling.tools" capability
    When the scenario server answers it asking for input: a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What time is it in Tokyo?" } }],
        "tools": [{
          "name": "get_time",
          "description": "Current time in a city",
          "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }
        }],
        "toolChoice": { "mode": "required" },
        "maxTokens": 200
      }
      """
    Then the client answers it with a sampled message, or no answer (the user rejected it)

  # The scenario server sends what a server must not (tools to a client that did not declare
  # sampling.tools) on purpose: the client's answer is what is judged.
  @id:client-modern/sampling-tools-undeclared @MUST @since:2026-07-28 @spec:client/sampling.mdx#tools-in-sampling
  Scenario: a client that did not declare sampling.tools does not use the tools of a sampling input request
    Given a client connected to the scenario server
    When the client sends a "tools/call" request
    Given the client declared the "sampling" capability
    And the client did not declare the "sampling.tools" capability
    When the scenario server answers it asking for input: a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } }],
        "tools": [{ "name": "get_weather", "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } } }],
        "toolChoice": { "mode": "required" },
        "maxTokens": 200
      }
      """
    Then the client answers it without using a tool

  # schema.ts, CreateMessageRequestParams.tools: the client MUST return an error when tools come
  # without sampling.tools declared; carried by MRTR, the error is no answer (see above).
  @id:client-modern/sampling-tools-undeclared-error @MUST @since:2026-07-28 @spec:schema.mdx#createmessagerequestparams
  Scenario: a client that did not declare sampling.tools gives no sampled answer to an input request with tools
    Given a client connected to the scenario server
    When the client sends a "tools/call" request
    Given the client declared the "sampling" capability
    And the client did not declare the "sampling.tools" capability
    When the scenario server answers it asking for input: a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } }],
        "tools": [{ "name": "get_weather", "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } } }],
        "maxTokens": 200
      }
      """
    Then the client refuses it: no answer in a retry, not a result

  # client/elicitation.mdx#elicitation-requests: an elicitation without mode is form mode. The
  # input request below has no mode: the client answers it as the form it is.
  @id:client-modern/elicitation-no-mode @MUST @since:2026-07-28 @spec:client/elicitation.mdx#elicitation-requests
  Scenario: an elicitation input request without mode is answered as a form
    Given a client connected to the scenario server
    When the client sends a "tools/call" request
    Given the client declared the "elicitation.form" capability
    When the scenario server answers it asking for input: a "elicitation/create" request with the params
      """
      {
        "message": "Please tell us about yourself.",
        "requestedSchema": {
          "type": "object",
          "properties": {
            "name": { "type": "string", "minLength": 2, "maxLength": 50 },
            "age": { "type": "integer", "minimum": 18, "maximum": 150 },
            "plan": { "type": "string", "enum": ["free", "pro"] }
          },
          "required": ["name", "age", "plan"]
        }
      }
      """
    Then the client answers it with accept, decline or cancel, accepted content satisfying the requested schema

  # client/elicitation.mdx#safe-url-handling: the URL is on a listener of the scenario server's
  # ({listener}), which records every request; a client that did not accept fetches nothing.
  @id:client-modern/elicitation-no-prefetch @MUST @since:2026-07-28 @spec:client/elicitation.mdx#safe-url-handling
  Scenario: the URL of a URL mode elicitation input request is not fetched by a client that does not accept
    Given a client connected to the scenario server
    When the client sends a "tools/call" request
    Given the client declared the "elicitation.url" capability
    When the scenario server answers it asking for input: a "elicitation/create" request with the params
      """
      {
        "mode": "url",
        "message": "Please connect your account.",
        "url": "{listener}/connect?session=mcpspec"
      }
      """
    Then the client answers it with accept, decline or cancel and no content
    And the client fetched nothing from the scenario server's listener, unless it accepted

  # basic/index.mdx#implementation-requirements: a dialect the client does not support is
  # refused; an input request has no error of its own, so the refusal leaves it unanswered.
  @id:client-modern/elicitation-unsupported-dialect @MUST @since:2026-07-28 @spec:basic/index.mdx#implementation-requirements
  Scenario: a form input request whose schema names a JSON Schema dialect the client does not know is refused
    Given a client connected to the scenario server
    When the client sends a "tools/call" request
    Given the client declared the "elicitation.form" capability
    When the scenario server answers it asking for input: a "elicitation/create" request with the params
      """
      {
        "mode": "form",
        "message": "Please tell us your name.",
        "requestedSchema": {
          "$schema": "https://mcpspec.invalid/schema/unknown-dialect",
          "type": "object",
          "properties": { "name": { "type": "string" } },
          "required": ["name"]
        }
      }
      """
    Then the client answers it with an error, as its schema's dialect is unknown

  # basic/index.mdx#ref-resolution: no $ref to a network URI is fetched on the implementation's
  # own (an opt-in mode that would is off by default). The scenario server lists a tool whose
  # input schema refers to a URL on its listener, which records every request.
  @id:client-modern/no-network-ref @MUST @since:2026-07-28 @spec:basic/index.mdx#ref-resolution
  Scenario: a $ref to a network URI in a listed tool's input schema is not fetched
    Given a client connected to the scenario server
    And the scenario server also lists a tool whose input schema refers to a URL on its listener
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client listed the tools, and fetched nothing from the scenario server's listener

  # server/utilities/pagination.mdx#implementation-guidelines: clients judge the end of results
  # by whether a nextCursor was given, not by its value; "" is a cursor like any other.
  @id:client-modern/empty-cursor @MUST @since:2026-07-28 @spec:server/utilities/pagination.mdx#implementation-guidelines
  Scenario: a page whose nextCursor is the empty string is followed by the next page
    Given a client connected to the scenario server
    And the scenario server pages its tool list in pages of 2 tools and then the rest, with the next cursor ""
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client asked for each next page of the tool list with its cursor

  # server/utilities/pagination.mdx#pagination-model: the server decides the page size, and a
  # client assumes none: a page shorter than the one before it is not the last while it has a
  # nextCursor.
  @id:client-modern/page-size @MUST @since:2026-07-28 @spec:server/utilities/pagination.mdx#pagination-model
  Scenario: a page shorter than the first, with a nextCursor, is followed by the next page
    Given a client connected to the scenario server
    And the scenario server pages its tool list in pages of 3, 1 tools and then the rest, with the next cursors "mcpspec-page-2", "mcpspec-page-3"
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client asked for each next page of the tool list with its cursor

  # basic/index.mdx#resulttype: a client treats a missing resultType as "complete" (a server of
  # an earlier version sends none). The scenario server leaves it out of its tool list's pages:
  # the client uses them (follows their nextCursor, calls a tool they list), neither asking for
  # a page again nor taking one for input_required. A client that makes no use of the list is
  # skipped.
  @id:client-modern/absent-result-type @MUST @since:2026-07-28 @spec:basic/index.mdx#resulttype
  Scenario: a result without resultType is taken for a complete one
    Given a client connected to the scenario server
    And the scenario server leaves resultType out of its tools/list results, as a server of an earlier version would
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client took each tools/list result without resultType for a complete one

  # basic/index.mdx#resulttype: a resultType the client does not recognize makes the result
  # invalid. The first tools/list is answered with a resultType no client knows, listing a tool
  # of its own: the client never uses that result, so never calls the tool.
  @id:client-modern/unknown-result-type @MUST @since:2026-07-28 @spec:basic/index.mdx#resulttype
  Scenario: a result of a resultType the client does not know is not used
    Given a client connected to the scenario server
    And the scenario server answers the first tools/list with resultType "mcpspec_unknown", listing only the tool "test_unknown_result_type"
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client listed the tools, but never called "test_unknown_result_type"
