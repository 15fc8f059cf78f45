Feature: Client version negotiation
  The client offers the latest revision it supports. The server answers with the same revision
  or counter-offers one it supports; the client carries on at a counter-offer it supports and
  disconnects from one it does not. Every scenario runs with the scenario server speaking each
  legacy revision in turn.

  @id:client-version/offers-latest @SHOULD @spec:basic/lifecycle.mdx#version-negotiation
  Scenario: the client offers the latest revision
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    And the client offers the latest protocol revision

  @id:client-version/counter-offer-supported @MUST @spec:basic/lifecycle.mdx#version-negotiation
  Scenario: the client carries on at the revision the server answers with
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    And the client closes the server's stdin when it is done

  @id:client-version/counter-offer-unsupported @SHOULD @spec:basic/lifecycle.mdx#version-negotiation
  Scenario: the client disconnects from a revision it does not support
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it with protocol version "1999-01-01"
    Then the client disconnects without sending another request
