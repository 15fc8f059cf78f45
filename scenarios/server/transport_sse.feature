@transport:sse @until:2025-11-25
Feature: HTTP+SSE transport (2024-11-05, deprecated since)
  The legacy HTTP transport: the client GETs an SSE stream whose first event, endpoint, names
  where to POST its messages; the server's messages come as message events on that stream.

  @id:sse/endpoint-event @MUST @spec:basic/transports.mdx
  Scenario: the SSE stream begins with an endpoint event
    Given an initialized session
    Then the SSE stream began with an endpoint event

  @id:sse/post-accepted @MUST @spec:basic/transports.mdx
  Scenario: messages POSTed to the endpoint are accepted
    Given an initialized session
    When the client POSTs a "ping" request
    Then the request is accepted

  @id:sse/message-events @MUST @spec:basic/transports.mdx
  Scenario: the server's messages come as message events on the SSE stream
    Given an initialized session
    When the client POSTs a "ping" request
    Then the answer came as a message event on the SSE stream
