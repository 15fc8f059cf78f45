Feature: Base protocol
  All messages follow JSON-RPC 2.0 with MCP's rules on top: request ids are strings or
  integers and come back exactly as sent, errors carry integer codes, notifications are never
  answered, malformed input gets an error rather than a dead session.

  @id:jsonrpc/id-echo @MUST @spec:basic/index.mdx#responses @until:2025-11-25
  Scenario Outline: a request id comes back exactly as sent (<kind>)
    Given an initialized session
    When the client sends a "ping" request with id <id>
    Then the server answers with the result {}
    And the response id is exactly <id>

    Examples:
      | kind                            | id                     |
      | a string                        | "mcpspec-id"           |
      | zero                            | 0                      |
      | a negative integer              | -7                     |
      | the largest exact double        | 9007199254740991       |
      | an empty string                 | ""                     |
      | a string of digits              | "42"                   |
      | a string with non-ASCII text    | "mcpspec-ü-😀"         |

  @id:jsonrpc/id-echo-beyond-double @SHOULD @spec:basic/index.mdx#responses @until:2025-11-25
  Scenario: an integer id beyond double precision comes back exactly as sent
    Given an initialized session
    When the client sends a "ping" request with id 9007199254740993
    Then the server answers with the result {}
    And the response id is exactly 9007199254740993

  @id:jsonrpc/unknown-method @MUST @spec:basic/index.mdx#requests
  Scenario: an unknown method gets error -32601 (Method not found)
    Given an initialized session
    When the client sends a "mcpspec/no-such-method" request
    Then the server answers with error -32601

  @id:jsonrpc/parse-error @SHOULD @spec:basic/index.mdx
  Scenario: a line that is not JSON gets error -32700 (Parse error)
    Given an initialized session
    When the client writes the line "{this is not JSON"
    Then the server answers with error -32700

  @id:jsonrpc/survives-malformed-json @MUST @spec:basic/index.mdx
  Scenario: the session survives a line that is not JSON
    Given an initialized session
    When the client writes the line "this is not JSON"
    Then the session is still alive

  @id:jsonrpc/invalid-request @SHOULD @spec:basic/index.mdx#requests
  Scenario Outline: a message that is not a valid request gets error -32600 (<shape>)
    Given an initialized session
    When the client writes the message <message>
    Then the server answers with error -32600
    And the session is still alive

    Examples:
      | shape                 | message                                              |
      | no method             | {"jsonrpc":"2.0","id":"mcpspec-bad-1"}               |
      | a method not a string | {"jsonrpc":"2.0","id":"mcpspec-bad-2","method":42}   |
      | jsonrpc 1.0           | {"jsonrpc":"1.0","id":"mcpspec-bad-3","method":"ping"} |
      | a null id             | {"jsonrpc":"2.0","id":null,"method":"ping"}          |
      | a fractional id       | {"jsonrpc":"2.0","id":1.5,"method":"ping"}           |

  @id:jsonrpc/notifications-unanswered @MUST @spec:basic/index.mdx#notifications
  Scenario: notifications are never answered, known or unknown
    Given an initialized session
    When the client sends the "notifications/mcpspec/unknown" notification
    And the client sends the "notifications/initialized" notification
    And the client sends the "notifications/progress" notification
      """
      {"progressToken": "mcpspec-never-issued", "progress": 1}
      """
    Then the session is still alive

  @id:jsonrpc/batch-answered @MUST @spec:basic/index.mdx#batching @since:2025-03-26 @until:2025-03-26
  Scenario: a batch of requests is answered, each request once
    Given an initialized session
    When the client writes the message [{"jsonrpc":"2.0","id":"mcpspec-b1","method":"ping"},{"jsonrpc":"2.0","id":"mcpspec-b2","method":"ping"}]
    Then the server answers the batch with responses to "mcpspec-b1", "mcpspec-b2"
    And the session is still alive

  @id:jsonrpc/batch-rejected @SHOULD @spec:basic/transports.mdx#stdio @except:2025-03-26
  Scenario: a batch is refused where the revision has none
    Given an initialized session
    When the client writes the message [{"jsonrpc":"2.0","id":"mcpspec-b1","method":"ping"},{"jsonrpc":"2.0","id":"mcpspec-b2","method":"ping"}]
    Then the session is still alive

  @id:jsonrpc/concurrent-requests @MUST @spec:basic/index.mdx#requests @until:2025-11-25
  Scenario: requests sent at once are all answered, in any order
    Given an initialized session
    When the client sends 8 "ping" requests at once
    Then the server answers every request
