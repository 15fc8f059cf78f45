@since:2026-07-28
Feature: The modern era
  From 2026-07-28 there is no handshake and no session: every request carries its protocol
  version and the client's capabilities in _meta, server/discover says what the server offers,
  and each request is accepted or refused on its own. Every result says its resultType, and
  cacheable results carry caching hints (judged on every message: modern/result-type,
  caching/hints).

  @id:discover/result @MUST @spec:server/discover.mdx
  Scenario: server/discover names the revision under test, the capabilities and caching hints
    Given a server process
    When the client sends a "server/discover" request
    Then the server answers with a result
    And the result's "supportedVersions" lists the revision under test
    And the result has the members "capabilities", "ttlMs", "cacheScope"

  @id:discover/capabilities-honest @MUST @spec:server/discover.mdx
  Scenario Outline: what server/discover declares is what the server serves (<method>)
    Given the client has discovered the server
    When the client sends a "<method>" request
    Then the server answers as its "<capability>" capability says
    Examples:
      | method                   | capability |
      | tools/list               | tools      |
      | prompts/list             | prompts    |
      | resources/list           | resources  |
      | resources/templates/list | resources  |

  @id:meta/required @MUST @spec:basic/index.mdx#_meta
  Scenario Outline: a request whose _meta <problem> is refused with -32602
    Given the client has discovered the server
    When the client sends a "server/discover" request whose _meta <change>
    Then the server answers with error -32602
    And over HTTP the status is 400
    Examples:
      | problem                          | change                                                                    |
      | is missing                       | is left out                                                               |
      | lacks the protocol version       | lacks "io.modelcontextprotocol/protocolVersion"                           |
      | lacks the client capabilities    | lacks "io.modelcontextprotocol/clientCapabilities"                        |
      | has capabilities of a wrong type | sets "io.modelcontextprotocol/clientCapabilities" to "all of them"        |

  @id:version/unsupported @MUST @spec:basic/versioning.mdx#protocol-version-negotiation
  Scenario: a request at a version the server does not implement gets -32022 with the versions it does
    Given the client has discovered the server
    When the client sends a "server/discover" request whose _meta sets "io.modelcontextprotocol/protocolVersion" to "1999-01-01"
    Then the server answers with error -32022
    And the error names the supported versions and the requested "1999-01-01"
    And over HTTP the status is 400

  @id:version/initialize-names-versions @SHOULD @spec:basic/versioning.mdx#backward-compatibility-with-initialization-based-versions
  Scenario: a server of the modern era only names its versions when refusing initialize
    Given the client has discovered the server
    And the server speaks only the modern era
    When the client sends "initialize" offering "2025-11-25" as a legacy client
    Then the server refuses it naming the revision under test, unless it serves the legacy era too

  @id:removed/method @MUST @spec:basic/index.mdx#error-codes
  Scenario Outline: <method>, which 2026-07-28 removed, is a method the server does not have
    # JSON-RPC's -32601 (Method not found); over HTTP with 404 (streamable-http.mdx
    # #protocol-version-header: "If the server does not implement the requested RPC method").
    Given the client has discovered the server
    When the client sends a "<method>" request
      """
      <params>
      """
    Then the server answers with error -32601
    And over HTTP the status is 404
    Examples:
      | method                | params                          |
      | ping                  | {}                              |
      | logging/setLevel      | {"level": "info"}               |
      | resources/subscribe   | {"uri": "mcpspec://anything"}   |
      | resources/unsubscribe | {"uri": "mcpspec://anything"}   |
      | tasks/list            | {}                              |
      | tasks/get             | {"taskId": "mcpspec-no-task"}   |

  @id:resources/unknown-invalid-params @MUST @spec:server/resources.mdx#error-handling
  Scenario: reading a resource that does not exist gets -32602, never empty contents
    Given the client has discovered the server
    And the server declares the "resources" capability
    When the client sends a "resources/read" request
      """
      {"uri": "mcpspec://no-such-resource"}
      """
    Then the server answers with error -32602

  @id:modern/id-echo @MUST @spec:basic/index.mdx#responses
  Scenario Outline: a request id comes back exactly as sent (<kind>)
    Given the client has discovered the server
    When the client sends a "server/discover" request with id <id>
    Then the server answers with a result
    And the response id is exactly <id>
    Examples:
      | kind                         | id               |
      | a string                     | "mcpspec-id"     |
      | zero                         | 0                |
      | a negative integer           | -7               |
      | the largest exact double     | 9007199254740991 |
      | an empty string              | ""               |
      | a string with non-ASCII text | "mcpspec-ü-😀"   |

  @id:modern/id-reused-after-answer @MUST @spec:basic/index.mdx#requests
  Scenario: an id whose request was answered may be used again
    # 2026-07-28 asks only that an id not match a request still awaiting its answer.
    Given the client has discovered the server
    When the client sends a "server/discover" request with id "mcpspec-again"
    Then the server answers with a result
    When the client sends a "server/discover" request with id "mcpspec-again"
    Then the server answers with a result

  @id:modern/concurrent-requests @MUST @spec:basic/index.mdx#requests
  Scenario: requests sent at once are all answered, in any order
    Given the client has discovered the server
    When the client sends 8 "server/discover" requests at once
    Then the server answers every request

  # server/tools.mdx, prompts.mdx and resources.mdx #capabilities: a list may be empty or change
  # over time, but it never differs between connections nor changes because of other requests.
  # Listed twice on one connection (the other lists in between) and once on a new one, within
  # a second or two: a list that changed over time in that window would show here too.
  @id:modern/lists-stable @MUST @spec:server/tools.mdx#capabilities
  Scenario: the tool, prompt and resource lists are the same after other requests and on a new connection
    Given the client has discovered the server
    When the client lists every tool, prompt and resource the server declares
    And the client lists every tool, prompt and resource the server declares
    And the client connects again
    And the client lists every tool, prompt and resource the server declares
    Then each list holds the same items every time
