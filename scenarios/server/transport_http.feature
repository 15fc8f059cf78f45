@transport:http @until:2025-11-25
Feature: Streamable HTTP transport
  Over Streamable HTTP every client message is a POST to one endpoint, which also serves a GET
  stream for the server's own messages and a DELETE that ends the session. Each scenario makes
  sure one rule of the transport is exercised; the recorder also judges every exchange of every
  scenario (status codes, content types, session ids, event ids, which stream a message came on).

  @id:http/notification-202 @MUST @spec:basic/transports.mdx#sending-messages-to-the-server
  Scenario: a notification POSTed is accepted with 202 and no body
    Given an initialized session
    When the client POSTs the "notifications/initialized" notification
    Then the HTTP response is 202 Accepted with no body

  @id:http/request-json-or-sse @MUST @spec:basic/transports.mdx#sending-messages-to-the-server
  Scenario: a request POSTed is answered with JSON or an SSE stream
    Given an initialized session
    When the client POSTs a "ping" request
    Then the HTTP response is JSON or an SSE stream
    And the server answers with the result {}

  @id:http/concurrent-streams @SHOULD @spec:basic/transports.mdx#sending-messages-to-the-server
  Scenario: requests POSTed at once are each answered on the stream of their own POST
    Given an initialized session
    When the client POSTs 3 "ping" requests at once
    Then each request is answered on the stream of its own POST

  # The client MUST accept both (basic/transports.mdx); one that accepts only JSON must not get
  # a stream it said it cannot read (HTTP content negotiation, RFC 9110 section 12.5.1).
  @id:http/accept-honoured @SHOULD @spec:basic/transports.mdx#sending-messages-to-the-server
  Scenario: a POST that accepts only JSON gets JSON or 406 Not Acceptable
    Given an initialized session
    When the client POSTs a "ping" request with the header "Accept: application/json"
    Then the HTTP response is JSON or 406

  @id:http/get-sse-or-405 @MUST @spec:basic/transports.mdx#listening-for-messages-from-the-server
  Scenario: a GET of the endpoint opens an SSE stream or gets 405
    Given an initialized session
    And the client has opened its GET stream
    Then the GET is answered with an SSE stream or 405

  # A dropped connection is resumed with GET and Last-Event-ID, as a client SHOULD; the server
  # MAY replay what the stream missed, and MUST NOT replay what belonged to another stream: a
  # second call's stream runs beside it. A server whose streams carry no event ids, or that
  # does not take the GET, offers no resumption and is skipped.
  @id:http/replay-own-stream @MUST @spec:basic/transports.mdx#resumability-and-redelivery @until:2025-11-25
  Scenario: a stream resumed with Last-Event-ID replays nothing of another stream
    Given an initialized session
    And the server offers the tool "test_tool_with_progress"
    When the client calls the tool twice at once, each with a progress token
    And the first call's connection drops after its stream's first event
    Then the resumed stream replayed nothing of another stream

  @id:http/session-id-visible-ascii @MUST @spec:basic/transports.mdx#session-management
  Scenario: a session id holds visible ASCII characters only
    Given an initialized session
    And the server issued a session id
    Then the session id is visible ASCII

  @id:http/session-required @SHOULD @spec:basic/transports.mdx#session-management
  Scenario: a request without the session header is refused with 400
    Given an initialized session
    And the server issued a session id
    When the client POSTs a "ping" request without the session header
    Then the HTTP status is 400

  @id:http/session-terminated-404 @MUST @spec:basic/transports.mdx#session-management
  Scenario: once a session is ended with DELETE, its id gets 404
    Given an initialized session
    And the server issued a session id
    When the client ends the session with DELETE
    And the client POSTs a "ping" request
    Then the HTTP status is 404

  # The spec names no status for an id the server never issued. But a client tells a session
  # that is gone by its 404 ("MUST start a new session"), and a server that has forgotten a
  # session cannot tell it from one it never issued: answering 404 keeps such clients working.
  @id:http/unknown-session-404 @SHOULD @spec:basic/transports.mdx#session-management
  Scenario: a session id the server never issued gets 404
    Given an initialized session
    And the server issued a session id
    When the client POSTs a "ping" request with the header "Mcp-Session-Id: mcpspec-never-issued-session"
    Then the HTTP status is 404

  # A POST of notifications or responses the server cannot accept gets an HTTP error status
  # ("e.g., 400 Bad Request"); one for a session it never issued has nowhere to go.
  @id:http/refused-notification-error @MUST @spec:basic/transports.mdx#sending-messages-to-the-server
  Scenario: a notification for a session the server never issued gets an HTTP error status
    Given an initialized session
    And the server issued a session id
    When the client POSTs the "notifications/initialized" notification with the header "Mcp-Session-Id: mcpspec-never-issued-session"
    Then the HTTP status is an error status

  @id:http/protocol-version-invalid @MUST @spec:basic/transports.mdx#protocol-version-header @since:2025-06-18
  Scenario: an invalid MCP-Protocol-Version header gets 400
    Given an initialized session
    When the client POSTs a "ping" request with the header "MCP-Protocol-Version: 1999-01-01"
    Then the HTTP status is 400

  @id:http/protocol-version-absent @SHOULD @spec:basic/transports.mdx#protocol-version-header @since:2025-06-18
  Scenario: a request without MCP-Protocol-Version is served as 2025-03-26
    Given an initialized session
    When the client POSTs a "ping" request without the protocol version header
    Then the request is accepted
    And the server answers with the result {}

  # 2025-11-25 gives the status; earlier revisions only say servers MUST validate Origin.
  @id:http/origin-forbidden @MUST @spec:basic/transports.mdx#security-warning @since:2025-11-25
  Scenario: a foreign Origin gets 403 Forbidden
    Given an initialized session
    When the client POSTs a "ping" request with the header "Origin: http://mcpspec-rebinding.example"
    Then the HTTP status is 403

  @id:http/origin-validated @MUST @spec:basic/transports.mdx#security-warning @until:2025-06-18
  Scenario: a foreign Origin is refused
    Given an initialized session
    When the client POSTs a "ping" request with the header "Origin: http://mcpspec-rebinding.example"
    Then the HTTP status is a client error
