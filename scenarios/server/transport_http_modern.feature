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
