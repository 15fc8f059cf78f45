@since:2025-03-26 @transport:http
Feature: Authorization servers
  An MCP client walks an OAuth 2.1 authorization server's discovery, registration and
  authorization-code grant with PKCE before its first request. mcpspec plays that client: it finds
  the server's metadata the way the revision says (RFC 8414, OpenID Connect Discovery), registers
  (RFC 7591) unless given a client, asks for a code without following the redirect (the headless
  contract: the code is read from the 302's Location) and redeems it, then tries what a server
  must refuse. A server that needs a person to approve is skipped, with the reason, never failed.

  # Metadata (RFC 8414 sections 2 and 3, OpenID Connect Discovery 1.0 section 4).

  @id:authorization-server/metadata-at-origin @SHOULD @until:2025-03-26 @spec:basic/authorization.mdx#server-metadata-discovery
  Scenario: the authorization server serves RFC 8414 metadata at the base URL's origin
    Given an authorization server
    Then its metadata is found

  @id:authorization-server/metadata-rfc8414 @MUST @since:2025-06-18 @until:2025-06-18 @spec:basic/authorization.mdx#server-metadata-discovery
  Scenario: the authorization server serves RFC 8414 metadata for its issuer
    Given an authorization server
    Then its metadata is found

  @id:authorization-server/metadata-discovery @MUST @since:2025-11-25 @spec:basic/authorization.mdx#authorization-server-metadata-discovery
  Scenario: the authorization server's metadata is found at an RFC 8414 or OpenID Connect URL, in the revision's order
    Given an authorization server
    Then its metadata is found

  @id:authorization-server/metadata-issuer @MUST @spec:basic/authorization.mdx#overview
  Scenario: the metadata's issuer is the issuer it was looked up for
    Given an authorization server
    And its metadata
    Then its issuer is the issuer it was looked up for

  @id:authorization-server/metadata-required @MUST @spec:basic/authorization.mdx#overview
  Scenario: the metadata names the endpoints and response types the code flow needs
    Given an authorization server
    And its metadata
    Then it names the members the code flow needs

  @id:authorization-server/metadata-s256 @MUST @since:2025-06-18 @spec:basic/authorization.mdx#authorization-code-protection
  Scenario: the metadata lists S256 in code_challenge_methods_supported
    Given an authorization server
    And its metadata
    Then it lists S256 among its code challenge methods

  @id:authorization-server/endpoints-https @MUST @spec:basic/authorization.mdx#security-considerations
  Scenario: every endpoint the metadata names is https, or http to loopback
    Given an authorization server
    And its metadata
    Then its endpoints are https URLs or loopback ones

  # Registration (RFC 7591 section 3).

  @id:authorization-server/dynamic-registration @MUST @spec:basic/authorization.mdx#dynamic-client-registration
  Scenario: dynamic client registration gives the client an id
    Given an authorization server
    And it offers dynamic client registration
    When the client registers itself
    Then the authorization server answers 201 with a client_id

  # The authorization-code grant with PKCE (OAuth 2.1 section 4.1, RFC 7636, RFC 8707).

  @id:authorization-server/code-flow @MUST @spec:basic/authorization.mdx#authorization-flow-steps
  Scenario: the authorization-code grant with PKCE S256 gives a Bearer access token
    Given an authorization server
    And a registered client
    When the client asks for an authorization code
    Then the authorization server redirects to the redirect URI with a code and the state
    When the client redeems the code with its code_verifier
    Then the authorization server issues a Bearer access token

  @id:authorization-server/pkce-verifier @MUST @since:2025-06-18 @spec:basic/authorization.mdx#authorization-code-protection
  Scenario: a code redeemed with a wrong code_verifier is refused
    Given an authorization server
    And a registered client
    And an authorization code
    When the client redeems the code with a wrong code_verifier
    Then the authorization server refuses it

  @id:authorization-server/code-single-use @MUST @since:2025-06-18 @spec:basic/authorization.mdx#authorization-code-protection
  Scenario: an authorization code is redeemed once only
    Given an authorization server
    And a registered client
    And an access token
    When the client redeems the same code again
    Then the authorization server refuses it

  @id:authorization-server/redirect-uri-registered @MUST @spec:basic/authorization.mdx#security-considerations
  Scenario: the authorization endpoint never redirects to a redirect URI the client did not register
    Given an authorization server
    And a registered client
    When the client asks for an authorization code for a redirect URI it did not register
    Then the authorization server does not redirect there

  @id:authorization-server/token-redirect-uri @MUST @since:2025-06-18 @spec:basic/authorization.mdx#open-redirection
  Scenario: a code redeemed with another redirect_uri than its authorization request's is refused
    Given an authorization server
    And a registered client
    And an authorization code
    When the client redeems the code with another redirect_uri
    Then the authorization server refuses it

  @id:authorization-server/resource-audience @SHOULD @since:2025-06-18 @spec:basic/authorization.mdx#resource-parameter-implementation
  Scenario: an access token asked for a resource is restricted to that resource
    Given an authorization server
    And a registered client
    And an access token
    Then the access token's audience is the resource it was asked for

  @id:authorization-server/refresh-rotation @MUST @since:2025-06-18 @spec:basic/authorization.mdx#token-theft
  Scenario: a public client's refresh token is rotated, and the one it replaced is refused
    Given an authorization server
    And a registered public client
    And an access token with a refresh token
    When the client refreshes the access token
    Then the authorization server issues a new refresh token
    When the client refreshes with the replaced refresh token
    Then the authorization server refuses it

  # RFC 9207: the issuer in the authorization response.

  @id:authorization-server/iss-parameter @MUST @since:2026-07-28 @spec:basic/authorization.mdx#authorization-response-validation
  Scenario: an authorization server that advertises RFC 9207 sends its issuer in the authorization response
    Given an authorization server
    And its metadata advertises authorization_response_iss_parameter_supported
    And a registered client
    When the client asks for an authorization code
    Then the redirect carries iss, the issuer

  # Client ID metadata documents (2025-11-25 on): mcpspec names itself by the URL of a document
  # it serves over https on loopback (its certificate issued by a CA of the run, or of
  # --cimd-ca DIR). A valid document is named first: a server that never fetches it (no
  # client_id_metadata_document_supported, no trust in the CA, no loopback fetches) or refuses it
  # is skipped with the reason, never passed.

  @id:authorization-server/cimd-client-id @MUST @since:2025-11-25 @spec:basic/authorization.mdx#implementation-requirements
  Scenario: a client ID metadata document whose client_id is not its URL is refused
    Given an authorization server
    And it takes client ID metadata documents
    When the client names itself by a client ID metadata document whose client_id is not its URL
    Then the authorization server refuses the client

  @id:authorization-server/cimd-redirect-uri @MUST @since:2025-11-25 @spec:basic/authorization.mdx#implementation-requirements
  Scenario: an authorization request whose redirect URI its client ID metadata document does not list is refused
    Given an authorization server
    And it takes client ID metadata documents
    When the client names itself by a client ID metadata document that does not list the redirect URI
    Then the authorization server refuses the client

  @id:authorization-server/cimd-valid-json @MUST @since:2025-11-25 @spec:basic/authorization.mdx#implementation-requirements
  Scenario: a client ID metadata document that is not JSON is refused
    Given an authorization server
    And it takes client ID metadata documents
    When the client names itself by a client ID metadata document that is not JSON
    Then the authorization server refuses the client
