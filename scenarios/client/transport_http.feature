Feature: Client over HTTP
  mcpspec serves the client over Streamable HTTP (2025-03-26 on) or the legacy HTTP+SSE
  transport, at a URL it passes as the client command's last argument. Every scenario of the
  suite runs over the transport certified, and every request the client makes is judged by the
  client HTTP rules (http-client/…, sse-client/…); these scenarios add what only a server can
  provoke: an ended session, a stream closed for polling, a GET refused.

  @transport:http @id:client-http/reinitialize-after-404 @MUST @spec:basic/transports.mdx#session-management @until:2025-11-25
  Scenario: after a 404 for its session, the client starts a new session with initialize
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it, then ends the HTTP session
    Then the client starts a new HTTP session with an initialize request

  # 2025-11-25 (SEP-1699): the server may close a POST's connection after an event with an id,
  # sending retry first; "The client MUST respect the retry field" and resumes with GET.
  @transport:http @since:2025-11-25 @id:client-http/resume-after-retry @MUST @spec:basic/transports.mdx#sending-messages-to-the-server @until:2025-11-25
  Scenario: the client respects retry and resumes a closed POST stream with GET and Last-Event-ID
    Given a client connected to a scenario server that closes each POST stream after its priming event, with retry 300 ms
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client resumes the stream with GET and Last-Event-ID, no sooner than retry, and reads the answer

  # The scenario server answers with SSE streams in every other scenario; here with JSON bodies:
  # "the client MUST support both these cases". Reading the initialize's answer is what lets
  # the client send notifications/initialized.
  @transport:http @id:client-http/json-answers @MUST @spec:basic/transports.mdx#sending-messages-to-the-server @until:2025-11-25
  Scenario: the client reads an answer sent as one application/json body
    Given a client connected to a scenario server that answers with application/json bodies
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    And the answer to the client's initialize went out as an application/json body

  # 2026-07-28: the same rule for a client of the modern era, which has no initialize: what it
  # sends after the first answer shows it read it.
  @transport:http @since:2026-07-28 @id:client-http/modern-json-answers @MUST @spec:basic/transports/streamable-http.mdx#sending-messages
  Scenario: a client of the modern era reads answers sent as application/json bodies
    Given a client connected to a scenario server that answers with application/json bodies
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client made a request after one of its requests was answered with an application/json body

  @transport:http @id:client-http/delete-session @SHOULD @spec:basic/transports.mdx#session-management @until:2025-11-25
  Scenario: the client ends its session with DELETE when it is done
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client ends its HTTP session with DELETE when it is done

  # The spec lets a server answer GET with 405 and says nothing more of the client: it SHOULD
  # carry on with POSTs, as a server without a stream of its own is a correct server.
  @transport:http @id:client-http/get-405 @SHOULD @spec:basic/transports.mdx#listening-for-messages-from-the-server @until:2025-11-25
  Scenario: the client carries on when the server answers GET with 405
    Given a client connected to a scenario server that answers GET with 405
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    And the client sends a request after its GET is refused with 405

  @transport:sse @id:client-sse/post-to-endpoint @MUST @spec:basic/transports.mdx#backwards-compatibility @until:2025-11-25
  Scenario: the client POSTs to the endpoint the endpoint event named
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    And the client's HTTP requests follow the transport's rules
