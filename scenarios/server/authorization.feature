@auth @transport:http @transport:sse @since:2025-03-26
Feature: Authorization: a protected server
  An MCP server over HTTP that requires authorization is an OAuth 2.1 resource server. Without a
  token it answers 401 with a Bearer challenge; it says where its protected resource metadata is
  (RFC 9728), which names its authorization servers, whose metadata (RFC 8414 or OpenID
  Connect) a client finds in the order the revision gives (at 2025-03-26, at the server's own
  origin, else the default endpoints there); it serves only tokens issued for it,
  and only in the Authorization header. Scenarios that need a token run with --auth-token or
  --auth-issuer (mcpspec as the issuer, minting valid and flawed tokens); without either they
  are skipped, with the reason. A server that serves requests without a token, when mcpspec was
  not told it is protected, skips them all.

  @id:authorization/unauthenticated-401 @MUST @spec:basic/authorization.mdx#error-handling
  Scenario: a request without a token gets 401 with a Bearer challenge
    Given a protected server
    When the client sends its first request without a token
    Then the server refuses it with 401 and a Bearer challenge

  # OAuth 2.1 section 5.3.1 (RFC 6750 section 3.1), which token-handling makes the rule: a request
  # with no authentication information gets no error code in its challenge.
  @id:authorization/no-error-without-token @SHOULD @spec:basic/authorization.mdx#token-handling
  Scenario: the challenge to a request without a token carries no error code
    Given a protected server
    When the client sends its first request without a token
    Then the challenge carries no error code

  # 2025-03-26 has no protected resource metadata: the MCP server's origin (its URL, the path
  # dropped) is the authorization base URL, where a client looks for the authorization server's
  # RFC 8414 metadata, and, when there is none, for the default /authorize, /token and /register.
  # Nothing here needs a user: each endpoint is asked what a client that holds nothing asks
  # (a GET of /authorize, a code never issued at /token, a public client's registration).
  @id:authorization/legacy-metadata-at-origin @SHOULD @spec:basic/authorization.mdx#server-metadata-discovery @until:2025-03-26
  Scenario: the authorization server metadata is at the MCP server's origin, and the endpoints it names answer
    Given a protected server
    When the client looks for the authorization server metadata at the server's origin
    Then the metadata is found there and names the endpoints of the code flow
    When the client tries the endpoints of the code flow at the server's origin
    Then each endpoint answers as an OAuth endpoint

  @id:authorization/legacy-default-endpoints @MUST @spec:basic/authorization.mdx#server-metadata-discovery @until:2025-03-26
  Scenario: without metadata, the default endpoints answer at the MCP server's origin
    Given a protected server
    And the server serves no authorization server metadata at its origin
    When the client tries the endpoints of the code flow at the server's origin
    Then each endpoint answers as an OAuth endpoint

  @id:authorization/challenge-resource-metadata @MUST @spec:basic/authorization.mdx#authorization-server-location @since:2025-06-18 @until:2025-06-18
  Scenario: the 401 challenge names the protected resource metadata
    Given a protected server
    When the client sends its first request without a token
    Then the challenge names where the protected resource metadata is

  @id:authorization/challenge-scope @SHOULD @spec:basic/authorization.mdx#protected-resource-metadata-discovery-requirements @since:2025-11-25 @until:2025-11-25
  Scenario: the 401 challenge names the scopes the server needs
    Given a protected server
    When the client sends its first request without a token
    Then the challenge names the scopes the server needs

  @id:authorization/challenge-scope-selection @SHOULD @spec:basic/authorization.mdx#scope-selection-strategy @since:2026-07-28
  Scenario: the 401 challenge names the scopes the server needs, for the client's scope selection
    Given a protected server
    When the client sends its first request without a token
    Then the challenge names the scopes the server needs

  @id:authorization/prm-discoverable @MUST @spec:basic/authorization.mdx#protected-resource-metadata-discovery-requirements @since:2025-11-25
  Scenario: the protected resource metadata is found from the challenge or at a well-known URL
    Given a protected server
    When the client looks for the protected resource metadata
    Then the protected resource metadata is found

  @id:authorization/prm-resource @MUST @spec:basic/authorization.mdx#canonical-server-uri @since:2025-06-18
  Scenario: the protected resource metadata's resource is the server's canonical URI
    Given a protected server
    When the client looks for the protected resource metadata
    Then its resource is the server's canonical URI

  @id:authorization/prm-authorization-servers @MUST @spec:basic/authorization.mdx#authorization-server-location @since:2025-06-18
  Scenario: the protected resource metadata names at least one authorization server
    Given a protected server
    When the client looks for the protected resource metadata
    Then it names at least one authorization server

  @id:authorization/as-metadata @MUST @spec:basic/authorization.mdx#server-metadata-discovery @since:2025-06-18 @until:2025-06-18
  Scenario: each authorization server's RFC 8414 metadata is found, names its issuer and offers S256
    Given a protected server
    When the client looks for the protected resource metadata
    And the client looks for each authorization server's metadata
    Then each authorization server's metadata is found, names its issuer and offers S256

  @id:authorization/as-metadata-discovery @MUST @spec:basic/authorization.mdx#authorization-server-metadata-discovery @since:2025-11-25
  Scenario: each authorization server's metadata is found in the revision's order, names its issuer and offers S256
    Given a protected server
    When the client looks for the protected resource metadata
    And the client looks for each authorization server's metadata
    Then each authorization server's metadata is found, names its issuer and offers S256

  @id:authorization/invalid-token-401 @MUST @spec:basic/authorization.mdx#token-handling
  Scenario: a token that is not one gets 401
    Given a protected server
    When the client presents a "garbage" token
    Then the server refuses it with 401

  @id:authorization/valid-token-served @MUST @spec:basic/authorization.mdx#token-handling
  Scenario: the token mcpspec was given (or minted) is served
    Given a protected server
    And a token for the server
    When the client presents a "valid" token
    Then the server serves it

  @id:authorization/tampered-token-401 @MUST @spec:basic/authorization.mdx#token-handling
  Scenario: a tampered copy of a valid token gets 401
    Given a protected server
    And a token the server accepts
    When the client presents a "tampered" token
    Then the server refuses it with 401

  @id:authorization/no-token-in-query @MUST @spec:basic/authorization.mdx#token-requirements
  Scenario: a valid token in the query string, and not in the header, is not served
    Given a protected server
    And a token the server accepts
    When the client sends the token in the query string only
    Then the server refuses it with 401

  @id:authorization/token-refused @MUST @spec:basic/authorization.mdx#token-handling
  Scenario Outline: a token mcpspec minted with one flaw gets 401
    Given a protected server
    And a token the server accepts
    When the client presents a "<flaw>" token
    Then the server refuses it with 401

    Examples:
      | flaw          |
      | expired       |
      | not-yet-valid |
      | wrong-issuer  |
      | bad-signature |

  @id:authorization/audience-validation @MUST @spec:basic/authorization.mdx#token-handling @since:2025-06-18
  Scenario: a token issued for another resource gets 401
    Given a protected server
    And a token the server accepts
    When the client presents a "wrong-audience" token
    Then the server refuses it with 401

  @id:authorization/insufficient-scope-403 @SHOULD @spec:basic/authorization.mdx#runtime-insufficient-scope-errors @since:2025-11-25
  Scenario: a token without the scopes the server asks for gets 403 insufficient_scope
    Given a protected server
    And a token the server accepts
    And the server asks for a scope
    When the client presents a "missing-scope" token
    Then the server refuses it with 403 insufficient_scope, naming the scope and the metadata

  @id:authorization/no-offline-access @SHOULD @spec:basic/authorization.mdx#refresh-tokens @since:2026-07-28
  Scenario: neither the challenge nor the protected resource metadata offers offline_access
    Given a protected server
    When the client looks for the protected resource metadata
    Then neither the challenge nor the metadata lists offline_access
