Feature: Client lifecycle
  mcpspec plays the server. The client starts the server command it is given, sends initialize
  first, waits for the answer (sending nothing but pings meanwhile), confirms with
  notifications/initialized, answers the server's pings, and on stdio ends the session by
  closing the server's stdin (client-lifecycle/shutdown; every other scenario ends the session
  itself once its own checks are judged).

  @id:client-lifecycle/initialize-first @MUST @spec:basic/lifecycle.mdx#initialization @until:2025-11-25
  Scenario: initialize is the client's first message
    Given a client connected to the scenario server
    Then the client's first message is an initialize request

  @id:client-lifecycle/initialized-after-response @MUST @spec:basic/lifecycle.mdx#initialization @until:2025-11-25
  Scenario: notifications/initialized follows the initialize response, and only pings precede it
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    And the client sends nothing but pings before the answer
    When the scenario server answers it
    Then the client sends notifications/initialized

  @id:client-lifecycle/request-ids @MUST @spec:basic/index.mdx#requests @until:2025-11-25
  Scenario: the client's request ids are unique in the session and never null
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    And the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client's request ids are unique and not null

  @id:client-lifecycle/ping @MUST @spec:basic/utilities/ping.mdx @until:2025-11-25
  Scenario: the client answers the server's ping with an empty result
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "ping" request
    Then the client answers it with the result {}

  @id:client-lifecycle/ping-while-waiting @MUST @spec:basic/utilities/ping.mdx @until:2025-11-25
  Scenario: the client answers a ping while it waits for the answer to its own request
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    And the client sends a "tools/list" request
    And the scenario server sends a "ping" request
    Then the client answers it with the result {}

  # The one client scenario that judges how a client ends its session; the others end it
  # themselves once their own checks are judged. A client that is still at work (sending
  # anything but pings) is served for up to 6 timeouts, and is inconclusive (skipped) if it is
  # still at work then; silence for one timeout with the server's stdin open is judged at once,
  # and so is a client that exits while the server's stdin stays open (held by a process it left
  # behind), once the relay has had time to read the end of file.
  # Over HTTP the session ends with DELETE instead (client-http/delete-session).
  @transport:stdio @id:client-lifecycle/shutdown @SHOULD @spec:basic/lifecycle.mdx#shutdown @until:2025-11-25
  Scenario: the client ends the session by closing the server's stdin
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client closes the server's stdin when it is done

  # Before 2025-06-18 the rule was a SHOULD; the session checker judges it there
  # (capabilities/client-uses-negotiated), in every scenario.
  @id:client-lifecycle/negotiated-capabilities @MUST @spec:basic/lifecycle.mdx#operation @since:2025-06-18 @until:2025-11-25
  Scenario: the client uses only the capabilities the server declared
    Given a client connected to the scenario server
    And the scenario server declares the capabilities {}
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client sent only requests the scenario server declared
