Feature: Report snapshot
  A small, stable suite for the report's snapshot test: it does not change when the product's
  scenarios do.

  @id:lifecycle/initialize-result @MUST @spec:basic/lifecycle.mdx#initialization
  Scenario: initialize is answered with the server's revision, capabilities and information
    Given a server process
    When the client sends "initialize" offering the revision under test
    Then the server answers with a result
    And the result has the members "protocolVersion", "capabilities", "serverInfo"

  @id:ping/after-initialize @MUST @spec:basic/utilities/ping.mdx
  Scenario: ping is answered with an empty result once the session is initialized
    Given an initialized session
    When the client sends a "ping" request
    Then the server answers with the result {}

  @id:resources/subscribe @MUST @spec:server/resources.mdx#subscriptions
  Scenario: a scenario whose capability is missing is skipped
    Given an initialized session
    And the server declares the "mcpspec-no-such-capability" capability
    When the client sends a "ping" request
    Then the server answers with the result {}
