Feature: Client cancellation
  Either side may cancel a request it sent and still believes in progress, with
  notifications/cancelled. The receiver stops working on it and SHOULD NOT answer it, but an
  answer may cross the cancellation, and both sides MUST handle that race; an answer sent once
  the cancellation has had time to arrive breaks the SHOULD. Invalid cancellations are ignored;
  a response that arrives after the sender cancelled is ignored.
  The session checker also judges every cancellation the client sends, in every scenario: only
  its own requests (cancellation/in-flight-only), never initialize (cancellation/not-initialize).

  @id:client-cancellation/server-cancels @MUST @spec:basic/utilities/cancellation.mdx @until:2025-11-25
  Scenario: the client carries on after the server cancels its own request
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the client sends a "tools/list" request
    And the scenario server sends a request and cancels it at once
    And the scenario server sends a "ping" request
    Then the client answers it with the result {}
    And the client answered the cancelled request at most once

  # The answer may cross the cancellation; once the cancellation has had time to arrive (a few
  # times the slowest ping round trip the session measured, at least 250 ms), the client sends
  # none. The client is watched until it answers the request, or else until the timeout has
  # passed since the cancellation.
  @id:client-cancellation/no-answer-after-cancel @SHOULD @spec:basic/utilities/cancellation.mdx#behavior-requirements @until:2025-11-25
  Scenario: the client does not answer a request once the server's cancellation of it has arrived
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the client sends a "tools/list" request
    And the scenario server sends a "ping" request
    Then the client answers it with the result {}
    When the scenario server sends a request and cancels it at once
    Then the client does not answer it once the cancellation has had time to arrive

  @id:client-cancellation/unknown-ignored @SHOULD @spec:basic/utilities/cancellation.mdx @until:2025-11-25
  Scenario: the client ignores a cancellation of a request that was never sent
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the client sends a "tools/list" request
    And the scenario server cancels a request it never sent
    And the scenario server sends a "ping" request
    Then the client answers it with the result {}

  # A client opts in by this scenario's name (MCP_CONFORMANCE_SCENARIO): it cancels its tool
  # call. Clients that do not cancel within 2 s are skipped.
  @id:client-cancellation/late-response @SHOULD @spec:basic/utilities/cancellation.mdx @until:2025-11-25
  Scenario: the client ignores the answer to a request it cancelled
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the client sends a "tools/call" request
    Then the client cancels it
    When the scenario server answers it
    Then the client ignores the late response
