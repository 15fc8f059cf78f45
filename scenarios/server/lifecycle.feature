@until:2025-11-25
Feature: Lifecycle
  The initialization phase is the first interaction between client and server: the client
  sends initialize, the server answers with its revision, capabilities and information, and the
  client confirms with notifications/initialized. Ping works in every phase. On stdio the
  client ends the session by closing the server's stdin; over HTTP, with DELETE.

  @id:lifecycle/initialize-result @MUST @spec:basic/lifecycle.mdx#initialization
  Scenario: initialize is answered with the server's revision, capabilities and information
    Given a server process
    When the client sends "initialize" offering the revision under test
    Then the server answers with a result
    And the result has the members "protocolVersion", "capabilities", "serverInfo"

  @id:lifecycle/initialized-accepted @MUST @spec:basic/lifecycle.mdx#initialization
  Scenario: notifications/initialized is accepted, never answered, and the session works after it
    Given an initialized session
    When the client sends a "ping" request
    Then the server answers with the result {}

  # Over Streamable HTTP a session begins with initialize: before it a request has no session
  # id, which a server that requires one SHOULD refuse with 400 (transport_http.feature).
  # Before initialize no revision is in force: a fresh process gets the same bytes whatever the
  # revision under test, and cannot tell one from another. So this scenario and the next one
  # before initialize run once, at the newest revision tried, and stand for the others
  # (@revision-independent).
  @id:ping/before-initialize @MUST @spec:basic/utilities/ping.mdx @transport:stdio @transport:sse @revision-independent
  Scenario: ping is answered with an empty result before initialization
    Given a server process
    When the client sends a "ping" request
    Then the server answers with the result {}

  @id:ping/between-initialize-and-initialized @MUST @spec:basic/utilities/ping.mdx
  Scenario: ping is answered between the initialize response and notifications/initialized
    Given a server process
    When the client sends "initialize" offering the revision under test
    Then the server answers with a result
    When the client sends a "ping" request
    Then the server answers with the result {}

  @id:ping/after-initialize @MUST @spec:basic/utilities/ping.mdx
  Scenario: ping is answered with an empty result once the session is initialized
    Given an initialized session
    When the client sends a "ping" request
    Then the server answers with the result {}
    When the client sends a "ping" request
    Then the server answers with the result {}

  @id:lifecycle/exit-on-stdin-close @SHOULD @spec:basic/lifecycle.mdx#shutdown @transport:stdio
  Scenario: the server exits once its stdin is closed
    Given an initialized session
    When the client closes the server's stdin
    Then the server exits within the timeout

  @id:lifecycle/request-before-initialize @MAY @spec:basic/lifecycle.mdx#initialization @transport:stdio @transport:sse @revision-independent
  Scenario: a request before initialize is answered or refused, and the session survives
    Given a server process
    When the client sends a "tools/list" request
    Then the server answers with a result or an error
    And the session is still alive

  @id:lifecycle/second-initialize @MAY @spec:basic/lifecycle.mdx#initialization
  Scenario: a second initialize is answered or refused, and the session survives
    Given an initialized session
    When the client sends "initialize" offering the revision under test
    Then the server answers with a result or an error
    And the session is still alive

  @id:lifecycle/quiet-before-initialized @SHOULD @spec:basic/lifecycle.mdx#initialization
  Scenario: before notifications/initialized the server sends nothing but pings and logging
    Given a server process
    When the client sends "initialize" offering the revision under test
      """
      {"roots": {"listChanged": true}, "sampling": {}}
      """
    Then the server answers with a result
    And the server sends nothing but pings and logging for 0.5 s
