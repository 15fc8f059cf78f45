@transport:http @since:2025-03-26
Feature: Authorization: an OAuth client
  The scenario server is protected: its endpoint answers 401 with a Bearer challenge until the
  client presents a token of mcpspec's authorization server, issued for it. The client finds the
  protected resource metadata (RFC 9728), the authorization server's metadata (RFC 8414 or OpenID
  Connect, in the revision's order), registers (pre-registered credentials in
  MCP_CONFORMANCE_CONTEXT, a client ID metadata document where the authorization server takes
  one, else dynamic registration), and walks the authorization code flow
  with PKCE. The authorization endpoint approves at once with a 302 to the redirect URI: a client
  that reads the Location (or follows it) completes the flow headless. Each scenario sets up the
  authorization server as its table says and judges one rule on what both servers saw. At
  2025-03-26, which has no protected resource metadata, the authorization server answers at the
  MCP server's origin.

  @id:client-authorization/legacy-metadata-at-origin @MUST @spec:basic/authorization.mdx#authorization-base-url @until:2025-03-26
  Scenario: the client looks for the authorization server's metadata at the MCP server's origin
    Given a client connected to a protected scenario server
      | authorization base | the origin, with metadata |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "legacy-metadata-at-origin"

  @id:client-authorization/legacy-default-endpoints @MUST @spec:basic/authorization.mdx#fallbacks-for-servers-without-metadata-discovery @until:2025-03-26
  Scenario: without metadata, the client uses the default endpoints at the origin
    Given a client connected to a protected scenario server
      | authorization base | the origin, default endpoints only |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "legacy-default-endpoints"

  # 2025-03-26 asks for PKCE and for loopback or https redirect URIs under other headings than
  # later revisions (#implementation-requirements, #security-considerations): the same rules.
  @id:client-authorization/legacy-pkce @MUST @spec:basic/authorization.mdx#implementation-requirements @until:2025-03-26
  Scenario: the client uses PKCE with S256 (2025-03-26)
    Given a client connected to a protected scenario server
      | authorization base | the origin, with metadata |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "pkce-s256"

  @id:client-authorization/legacy-redirect-uri @MUST @spec:basic/authorization.mdx#security-considerations @until:2025-03-26
  Scenario: the client's redirect URIs are https or loopback (2025-03-26)
    Given a client connected to a protected scenario server
      | authorization base | the origin, with metadata |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "redirect-uri"

  @id:client-authorization/prm-from-challenge @MUST @spec:basic/authorization.mdx#authorization-server-location @since:2025-06-18
  Scenario: the client fetches the protected resource metadata the challenge names
    Given a client connected to a protected scenario server
      | challenge | metadata elsewhere |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "prm-from-challenge"

  @id:client-authorization/prm-well-known-fallback @MUST @spec:basic/authorization.mdx#protected-resource-metadata-discovery-requirements @since:2025-11-25
  Scenario: without resource_metadata in the challenge, the client tries the well-known URLs in order
    Given a client connected to a protected scenario server
      | challenge | no metadata |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "prm-well-known-order"

  @id:client-authorization/as-discovery-order @MUST @spec:basic/authorization.mdx#authorization-server-metadata-discovery @since:2025-11-25
  Scenario: the client looks for the authorization server's metadata in the revision's order
    Given a client connected to a protected scenario server
      | issuer path | /tenant1        |
      | metadata    | openid-appended |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "as-discovery-order"

  @id:client-authorization/as-discovery-order-root @MUST @spec:basic/authorization.mdx#authorization-server-metadata-discovery @since:2025-11-25
  Scenario: for an issuer without a path, the client tries OAuth metadata, then OpenID Connect discovery
    Given a client connected to a protected scenario server
      | metadata | openid-inserted |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "as-discovery-order"

  @id:client-authorization/issuer-mismatch @MUST @spec:basic/authorization.mdx#authorization-server-metadata-discovery @since:2026-07-28
  Scenario: the client does not use metadata whose issuer is not the issuer it looked up
    Given a client connected to a protected scenario server
      | fault | issuer-mismatch |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "issuer-mismatch-refused"

  @id:client-authorization/resource-mismatch @MUST @spec:basic/authorization.mdx#authorization-server-location @since:2025-06-18
  Scenario: the client uses no protected resource metadata that names another server as its resource
    Given a client connected to a protected scenario server
      | protected resource metadata | names another server |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "resource-mismatch-refused"

  @id:client-authorization/pkce-s256 @MUST @spec:basic/authorization.mdx#authorization-code-protection @since:2025-06-18
  Scenario: the client uses PKCE with S256
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "pkce-s256"

  @id:client-authorization/pkce-support-required @MUST @spec:basic/authorization.mdx#authorization-code-protection @since:2025-11-25
  Scenario: the client does not authorize when the metadata lists no PKCE methods
    Given a client connected to a protected scenario server
      | fault | no-challenge-methods |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "pkce-support-required"

  @id:client-authorization/state @SHOULD @spec:basic/authorization.mdx#open-redirection @since:2025-06-18
  Scenario: the client sends state in its authorization request
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "state"

  @id:client-authorization/redirect-uri-registered @MUST @spec:basic/authorization.mdx#open-redirection @since:2025-06-18
  Scenario: the client's authorization requests use a redirect URI it registered
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "redirect-uri-registered"

  @id:client-authorization/resource-parameter @MUST @spec:basic/authorization.mdx#resource-parameter-implementation @since:2025-06-18
  Scenario: the client names the server's canonical URI as resource in both requests
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "resource"

  @id:client-authorization/redirect-uri @MUST @spec:basic/authorization.mdx#communication-security @since:2025-06-18
  Scenario: the client's redirect URIs are https or loopback
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "redirect-uri"

  @id:client-authorization/bearer-header @MUST @spec:basic/authorization.mdx#token-requirements
  Scenario: the client sends its token in the Authorization header of every request
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "bearer-header"

  @id:client-authorization/no-token-in-query @MUST @spec:basic/authorization.mdx#token-requirements
  Scenario: the client never puts its token in the query string
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "no-token-in-query"

  # An endpoint refuses a token it did not have issued with invalid_token; the client must
  # not have presented one.
  @id:client-authorization/own-tokens-only @MUST @spec:basic/authorization.mdx#token-handling @since:2025-06-18
  Scenario: the client presents the server no token but the ones its authorization server issued
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "own-tokens-only"

  @id:client-authorization/scope-from-challenge @SHOULD @spec:basic/authorization.mdx#scope-selection-strategy @since:2025-11-25
  Scenario: the client asks for the scopes of the challenge, not all the metadata lists
    Given a client connected to a protected scenario server
      | advertised scopes | mcp:admin |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "scope-from-challenge"

  # The challenge's scope is one neither scopes_supported lists (the protected resource
  # metadata's nor the authorization server's); the authorization server grants it all the same.
  @id:client-authorization/challenge-scopes-unlisted @MUST @spec:basic/authorization.mdx#scope-selection-strategy @since:2025-11-25
  Scenario: the client asks for the challenged scopes though scopes_supported does not list them
    Given a client connected to a protected scenario server
      | scopes            | files:read                       |
      | advertised scopes | mcp                              |
      | scopes_supported  | leaves out the challenged scopes |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "challenge-scopes-requested"

  @id:client-authorization/scope-from-metadata @SHOULD @spec:basic/authorization.mdx#scope-selection-strategy @since:2025-11-25
  Scenario: without a scope in the challenge, the client asks for the metadata's scopes_supported
    Given a client connected to a protected scenario server
      | challenge         | no scope  |
      | advertised scopes | mcp:admin |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "scope-from-metadata"

  @id:client-authorization/scope-omitted @SHOULD @spec:basic/authorization.mdx#scope-selection-strategy @since:2025-11-25
  Scenario: with no scope in the challenge and no scopes_supported, the client asks for no scope
    Given a client connected to a protected scenario server
      | scopes    | none     |
      | challenge | no scope |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "scope-omitted"

  @id:client-authorization/step-up @SHOULD @spec:basic/authorization.mdx#step-up-authorization-flow @since:2025-11-25
  Scenario: on 403 insufficient_scope the client authorizes again for the union of scopes
    Given a client connected to a protected scenario server
      | step-up scopes | mcp:write |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "step-up"

  @id:client-authorization/step-up-keeps-scopes @SHOULD @spec:basic/authorization.mdx#scope-selection-strategy @since:2026-07-28
  Scenario: on a step-up challenge naming only the new scopes, the client asks for them with those it holds
    Given a client connected to a protected scenario server
      | step-up scopes    | mcp:write           |
      | step-up challenge | the new scopes only |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "step-up"

  @id:client-authorization/step-up-retry-limit @SHOULD @spec:basic/authorization.mdx#step-up-authorization-flow @since:2025-11-25
  Scenario: refused for its scope whatever its token holds, the client stops stepping up
    Given a client connected to a protected scenario server
      | every token | lacks a scope |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "step-up-retry-limit"

  @id:client-authorization/no-credential-reuse @MUST @spec:basic/authorization.mdx#authorization-server-binding @since:2026-07-28
  Scenario: when the resource moves to another authorization server, the client registers there anew
    Given a client connected to a protected scenario server
      | authorization server | changes after the first request |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "no-credential-reuse"

  @id:client-authorization/iss-mismatch @MUST @spec:basic/authorization.mdx#authorization-response-validation @since:2026-07-28
  Scenario: the client does not redeem a code whose iss names another issuer
    Given a client connected to a protected scenario server
      | fault | wrong-iss |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "iss-mismatch-refused"

  @id:client-authorization/iss-unadvertised @MUST @spec:basic/authorization.mdx#authorization-response-validation @since:2026-07-28
  Scenario: the client compares an iss the authorization server sends without advertising it
    Given a client connected to a protected scenario server
      | fault | wrong-iss-unadvertised |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "iss-mismatch-refused"

  @id:client-authorization/iss-missing @MUST @spec:basic/authorization.mdx#authorization-response-validation @since:2026-07-28
  Scenario: the client does not redeem a code whose redirect leaves out the iss the authorization server advertises
    Given a client connected to a protected scenario server
      | fault | no-iss |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "iss-mismatch-refused"

  # The authorization server answers with an error response (invalid_scope, an error_uri it
  # serves) whose iss names another issuer: acting on it would show as a fetch of the error_uri
  # or a new authorization asking for other scopes. Displaying it shows on no wire.
  @id:client-authorization/iss-mismatch-error-ignored @MUST @spec:basic/authorization.mdx#authorization-response-validation @since:2026-07-28
  Scenario: the client does not act on an error response whose iss names another issuer
    Given a client connected to a protected scenario server
      | fault | error-with-wrong-iss |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "iss-mismatch-error-ignored"

  @id:client-authorization/no-refresh-token-assumed @MUST @spec:basic/authorization.mdx#refresh-tokens @since:2026-07-28
  Scenario: issued no refresh token, the client goes on with its access token
    Given a client connected to a protected scenario server
      | refresh tokens | not issued |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "no-refresh-token-assumed"

  @id:client-authorization/iss-exact @MUST @spec:basic/authorization.mdx#authorization-response-validation @since:2026-07-28
  Scenario: the client compares iss as a plain string: the issuer with a trailing slash is another
    Given a client connected to a protected scenario server
      | fault | iss-with-trailing-slash |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "iss-mismatch-refused"

  @id:client-authorization/pre-registration @SHOULD @spec:basic/authorization.mdx#client-registration-approaches @since:2025-11-25 @until:2025-11-25
  Scenario: the client uses the pre-registered credentials it was given
    Given a client connected to a protected scenario server
      | registration | pre-registered |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "pre-registration"

  @id:client-authorization/dcr-application-type @MUST @spec:basic/authorization.mdx#application-type-and-redirect-uri-constraints @since:2026-07-28
  Scenario: the client names its application_type when it registers
    Given a client connected to a protected scenario server
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "application-type"

  # An OpenID Connect authorization server refuses every registration with
  # invalid_redirect_uri; client ID metadata documents and pre-registration are not offered.
  @id:client-authorization/registration-refused @MUST @spec:basic/authorization.mdx#application-type-and-redirect-uri-constraints @since:2026-07-28
  Scenario: refused registration over its redirect URIs, the client stops or retries a few times, never authorizing without a client id
    Given a client connected to a protected scenario server
      | fault | refuses-redirect-uris |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "registration-failure-handled"

  @id:client-authorization/token-endpoint-auth @MUST @spec:basic/authorization.mdx#standards-compliance @since:2025-06-18
  Scenario Outline: the client authenticates at the token endpoint the one way it takes (<method>)
    Given a client connected to a protected scenario server
      | token endpoint auth | <method> |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "token-endpoint-auth"

    Examples:
      | method              |
      | client_secret_basic |
      | client_secret_post  |
      | none                |

  @id:client-authorization/client-id-metadata-document @SHOULD @spec:basic/authorization.mdx#client-id-metadata-documents @since:2025-11-25
  Scenario: where the authorization server takes client ID metadata documents, the client names itself by one
    Given a client connected to a protected scenario server
      | registration | client ID metadata document |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "client-id-metadata-document"

  @id:client-authorization/client-id-metadata-document-url @MUST @spec:basic/authorization.mdx#implementation-requirements @since:2025-11-25
  Scenario: a client named by its metadata document names an https URL with a path, whose document names it
    Given a client connected to a protected scenario server
      | registration | client ID metadata document |
    When the client authorizes and initializes
    Then the client's authorization keeps the rule "client-id-metadata-document-valid"
