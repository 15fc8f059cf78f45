Feature: Client version negotiation
  The client offers the latest revision it supports (or the one it is asked to offer). The server answers with the same revision
  or counter-offers one it supports; the client carries on at a counter-offer it supports and
  disconnects from one it does not. Every scenario runs with the scenario server speaking each
  legacy revision in turn.

  # The harness names the revision the scenario server speaks in
  # MCP_CONFORMANCE_PROTOCOL_VERSION: a client that offers that revision does what it was asked
  # and passes; a client that ignores the variable is expected to offer its latest revision.
  @id:client-version/offers-latest @SHOULD @spec:basic/lifecycle.mdx#version-negotiation @until:2025-11-25
  Scenario: the client offers the latest revision
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    And the client offers the latest protocol revision, or the one it was asked to offer

  @id:client-version/counter-offer-supported @MUST @spec:basic/lifecycle.mdx#version-negotiation @until:2025-11-25
  Scenario: the client carries on at the revision the server answers with
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized

  # The offer is a revision the client supports: answered with that very revision, the client
  # carries on (a client that then disconnects offered what it does not speak).
  @id:client-version/offer-supported @MUST @spec:basic/lifecycle.mdx#version-negotiation @until:2025-11-25
  Scenario: the client carries on at the revision it offered
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it with the revision the client offered
    Then the client sends notifications/initialized

  @id:client-version/counter-offer-unsupported @SHOULD @spec:basic/lifecycle.mdx#version-negotiation @until:2025-11-25
  Scenario: the client disconnects from a revision it does not support
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it with protocol version "1999-01-01"
    Then the client disconnects without sending another request
