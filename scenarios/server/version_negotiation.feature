@until:2025-11-25
Feature: Version negotiation
  In the initialize request the client sends a protocol version it supports. If the server
  supports it, it MUST respond with the same version; otherwise it MUST respond with another
  version it supports. Each revision is negotiated in a session of its own.

  @id:version/echo-supported @MUST @spec:basic/lifecycle.mdx#version-negotiation
  Scenario: a revision the server supports is echoed
    Given a server process
    When the client sends "initialize" offering the revision under test
    Then the server answers with a result
    And the result's "protocolVersion" is the revision under test

  # Runs at every revision tried, also at those the server answers with another one
  # (@negotiation): a counter-offer names a revision the server supports, so that one must be
  # echoed in turn. A server that keeps counter-offering is caught here, not just skipped. A
  # server that echoed the revision offered has shown that already: the offer in turn would be
  # the same bytes to another fresh process, which is not started.
  @id:version/answer-supported @MUST @spec:basic/lifecycle.mdx#version-negotiation @negotiation
  Scenario: the revision the server answers with is one it supports: offered in turn, it is echoed
    Given a server process
    When the client sends "initialize" offering the revision under test
    Then the server answers with a result
    And the revision it answered with, offered in turn to a fresh process, is echoed

  # Offers a version of its own to a fresh process: the same bytes whatever the revision under
  # test, judged on what the server negotiates. It runs once, at the newest revision tried, and
  # that run stands for the others (@revision-independent): four processes, not sixteen.
  @id:version/counter-offer @MUST @spec:basic/lifecycle.mdx#version-negotiation @revision-independent
  Scenario Outline: an unsupported version gets a counter-offer of a supported one (<why>)
    Given a server process
    When the client sends "initialize" offering "<version>"
    Then the server counter-offers a revision it supports

    Examples:
      | version        | why                      |
      | 1999-01-01     | a date before MCP        |
      | 2099-12-31     | a date in the future     |
      | not-a-version  | not a date at all        |
      | 2025-06-18-rc1 | a known date with suffix |
