@transport:http @since:2026-07-28
Feature: Streamable HTTP in the modern era
  Every POST mirrors its body in headers (MCP-Protocol-Version equal to _meta's version,
  Mcp-Method, and Mcp-Name for tools/call, resources/read and prompts/get); a server that
  processes the body rejects a mismatch with 400 and -32020. Unknown methods get 404 and
  -32601; no sessions, no GET stream.

  @id:http/header-version-mismatch @MUST @spec:basic/transports/streamable-http.mdx#protocol-version-header
  Scenario: an MCP-Protocol-Version header that differs from _meta gets 400 and -32020
    Given the client has discovered the server
    When the client POSTs a "server/discover" request with the header "MCP-Protocol-Version: 2025-11-25"
    Then the HTTP status is 400
    And the server answers with error -32020

  @id:http/header-method-mismatch @MUST @spec:basic/transports/streamable-http.mdx#server-validation
  Scenario Outline: an Mcp-Method header that <problem> gets 400 and -32020
    Given the client has discovered the server
    When the client POSTs a "server/discover" request with the header "<header>"
    Then the HTTP status is 400
    And the server answers with error -32020
    Examples:
      | problem                | header                 |
      | names another method   | Mcp-Method: tools/list |
      | is missing             | Mcp-Method:            |

  @id:http/header-name-mismatch @MUST @spec:basic/transports/streamable-http.mdx#server-validation
  Scenario: an Mcp-Name header that differs from the body's name gets 400 and -32020
    Given the client has discovered the server
    And the server declares the "resources" capability
    And the server lists a resource
    When the client POSTs a read of the resource with the header "Mcp-Name: mcpspec://another-resource"
    Then the HTTP status is 400
    And the server answers with error -32020

  @id:http/header-name-base64 @MUST @spec:basic/transports/streamable-http.mdx#value-encoding
  Scenario: an Mcp-Name header in the Base64 sentinel form is decoded before it is compared
    Given the client has discovered the server
    And the server declares the "resources" capability
    And the server lists a resource
    When the client POSTs a read of the resource with its name Base64-encoded
    Then the HTTP status is 200
    And the server answers with a result

  # Custom headers from tool parameters: a tool may annotate a parameter with x-mcp-header, and
  # a call then mirrors the argument in Mcp-Param-{name}. The scenarios pick a tool whose
  # annotations are valid, with a top-level string parameter (an optional one first); a server
  # with none is skipped (x-mcp-header is optional for servers). The other arguments are
  # examples from the schema, their headers as a correct client sends them.
  @id:http/param-header-mismatch @MUST @spec:basic/transports/streamable-http.mdx#server-behavior-for-custom-headers
  Scenario: an Mcp-Param header that differs from its argument gets 400 and -32020
    Given the client has discovered the server
    And the server lists a tool with an x-mcp-header string parameter
    When the client POSTs a call of the tool whose Mcp-Param header "names another value"
    Then the HTTP status is 400
    And the server answers with error -32020

  @id:http/param-header-missing @MUST @spec:basic/transports/streamable-http.mdx#server-behavior-for-custom-headers
  Scenario: a call without the Mcp-Param header of an argument it holds gets 400 and -32020
    Given the client has discovered the server
    And the server lists a tool with an x-mcp-header string parameter
    When the client POSTs a call of the tool whose Mcp-Param header "is missing"
    Then the HTTP status is 400
    And the server answers with error -32020

  @id:http/param-header-invalid-chars @MUST @spec:basic/transports/streamable-http.mdx#server-behavior-for-custom-headers
  Scenario Outline: an Mcp-Param header that <problem> is refused with 400 and -32020
    Given the client has discovered the server
    And the server lists a tool with an x-mcp-header string parameter
    When the client POSTs a call of the tool whose Mcp-Param header "<problem>"
    Then the HTTP status is 400
    And the server answers with error -32020
    Examples:
      | problem                        |
      | holds characters beyond ASCII  |
      | is a malformed Base64 sentinel |

  @id:http/param-header-null @MUST @spec:basic/transports/streamable-http.mdx#server-behavior-for-custom-headers
  Scenario: a call whose x-mcp-header argument is null needs no Mcp-Param header
    Given the client has discovered the server
    And the server lists a tool with an x-mcp-header string parameter
    When the client POSTs a call of the tool with its x-mcp-header parameter null and no Mcp-Param header
    Then the server does not refuse the request for its headers

  @id:http/param-header-absent @MUST @spec:basic/transports/streamable-http.mdx#server-behavior-for-custom-headers
  Scenario: a call without the x-mcp-header argument needs no Mcp-Param header
    Given the client has discovered the server
    And the server lists a tool with an x-mcp-header string parameter
    When the client POSTs a call of the tool with its x-mcp-header parameter absent and no Mcp-Param header
    Then the server does not refuse the request for its headers

  # mcpspec's HTTP client writes header names in lower case; the annotation names the header
  # with upper-case letters (else the scenario is skipped: it would test nothing).
  @id:http/param-header-case @MUST @spec:basic/transports/streamable-http.mdx#case-sensitivity
  Scenario: an Mcp-Param header named in another case than its annotation is honoured
    Given the client has discovered the server
    And the server lists a tool with an x-mcp-header string parameter
    When the client POSTs a call of the tool whose Mcp-Param header "is named in lower case"
    Then the HTTP status is 200
    And the server does not refuse the request for its headers

  @id:http/param-header-numeric @SHOULD @spec:basic/transports/streamable-http.mdx#server-validation
  Scenario: an integer Mcp-Param header written with a fraction (42.0 for 42) is compared as a number
    Given the client has discovered the server
    And the server lists a tool with an x-mcp-header integer parameter
    When the client POSTs a call of the tool whose Mcp-Param header "writes its integer with a fraction"
    Then the server does not refuse the request for its headers

  # This revision defines no client notification over Streamable HTTP (closing a stream is the
  # cancellation), so a server may take notifications/cancelled or refuse it: 202 with no body,
  # or an HTTP error status, and nothing else.
  @id:http/notification-accepted-or-refused @MUST @spec:basic/transports/streamable-http.mdx#sending-messages
  Scenario: a notification POSTed gets 202 Accepted with no body, or an HTTP error status
    Given an initialized session
    When the client POSTs the "notifications/cancelled" notification
    Then the HTTP response is 202 Accepted with no body, or an HTTP error status

  @id:http/unknown-method-404 @MUST @spec:basic/transports/streamable-http.mdx#protocol-version-header
  Scenario: a method the server does not implement gets 404 and -32601
    Given the client has discovered the server
    When the client POSTs a "mcpspec/no-such-method" request
    Then the HTTP status is 404
    And the server answers with error -32601

  @id:http/no-get-stream @SHOULD @spec:basic/transports/streamable-http.mdx#earlier-streamable-http-revisions
  Scenario: a server of the modern era only answers GET with 405
    Given the client has discovered the server
    And the server speaks only the modern era
    When the client opens a GET stream
    Then the HTTP status is 405

  # The rule against DNS rebinding outlives the handshake: the modern page keeps it, with 403.
  @id:http/origin-forbidden-modern @MUST @spec:basic/transports/streamable-http.mdx#security--endpoint
  Scenario: a foreign Origin gets 403 Forbidden
    Given the client has discovered the server
    When the client POSTs a "server/discover" request with the header "Origin: http://mcpspec-rebinding.example"
    Then the HTTP status is 403

  # A server that serves no client of a revision before 2025-06-18 (which had no such header)
  # rejects a request without MCP-Protocol-Version as #server-validation says: 400 and -32020.
  # One that serves such clients MAY take the request as 2025-03-26: an initialize offering
  # 2025-03-26 tells them apart.
  @id:http/version-header-required @MUST @spec:basic/transports/streamable-http.mdx#protocol-version-header
  Scenario: a server that serves no client before 2025-06-18 rejects a request without MCP-Protocol-Version with 400 and -32020
    Given the client has discovered the server
    And the server serves no client of a revision before 2025-06-18
    When the client POSTs a "server/discover" request without the protocol version header
    Then the HTTP status is 400
    And the server answers with error -32020
