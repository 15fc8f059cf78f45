Feature: Elicitation
  A client that declares the elicitation capability answers elicitation/create with the user's
  action: accept, decline or cancel. Accepted form content satisfies the requested schema; from
  2025-11-25 the form is pre-populated with the schema's defaults, URL mode (declared as
  elicitation.url) is answered without content, and a request in a mode the client did not
  declare is answered with -32602. The last scenario sends what a server must not (an
  undeclared mode) on purpose: the client's answer is what is judged.

  @id:client-elicitation/form @SHOULD @since:2025-06-18 @spec:client/elicitation.mdx#security-considerations @until:2025-11-25
  Scenario: a form elicitation is accepted with content satisfying the requested schema, or declined or cancelled
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "elicitation.form" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "elicitation/create" request with the params
      """
      {
        "message": "Please tell us about yourself.",
        "requestedSchema": {
          "type": "object",
          "properties": {
            "name": { "type": "string", "minLength": 2, "maxLength": 50 },
            "email": { "type": "string", "format": "email" },
            "age": { "type": "integer", "minimum": 18, "maximum": 150 },
            "subscribe": { "type": "boolean" },
            "plan": { "type": "string", "enum": ["free", "pro"] }
          },
          "required": ["name", "email", "age", "subscribe", "plan"]
        }
      }
      """
    Then the client answers it with accept, decline or cancel, accepted content satisfying the requested schema

  @id:client-elicitation/defaults @SHOULD @since:2025-11-25 @spec:client/elicitation.mdx#requested-schema @until:2025-11-25
  Scenario: an accepted form carries the requested schema's defaults
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "elicitation.form" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "elicitation/create" request with the params
      """
      {
        "mode": "form",
        "message": "Confirm your settings.",
        "requestedSchema": {
          "type": "object",
          "properties": {
            "name": { "type": "string", "default": "Ada" },
            "retries": { "type": "integer", "minimum": 0, "default": 3 },
            "verbose": { "type": "boolean", "default": true },
            "color": { "type": "string", "enum": ["red", "green"], "default": "green" }
          }
        }
      }
      """
    Then the client accepts it with a value for every field that has a default, unless it declines or cancels

  @id:client-elicitation/url @MUST @since:2025-11-25 @spec:client/elicitation.mdx#response-actions @until:2025-11-25
  Scenario: a URL mode elicitation is answered with accept, decline or cancel, without content
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "elicitation.url" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "elicitation/create" request with the params
      """
      {
        "mode": "url",
        "message": "Please connect your example.com account.",
        "url": "https://example.com/connect?session=mcpspec",
        "elicitationId": "mcpspec-elicitation-1"
      }
      """
    Then the client answers it with accept, decline or cancel and no content

  # {listener}: a URL on a listener of the scenario server's, which records every request.
  @id:client-elicitation/no-prefetch @MUST @since:2025-11-25 @spec:client/elicitation.mdx#safe-url-handling @until:2025-11-25
  Scenario: a URL mode elicitation's URL is not fetched by a client that does not accept
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "elicitation.url" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "elicitation/create" request with the params
      """
      {
        "mode": "url",
        "message": "Please connect your account.",
        "url": "{listener}/connect?session=mcpspec",
        "elicitationId": "mcpspec-elicitation-3"
      }
      """
    Then the client answers it with accept, decline or cancel and no content
    And the client fetched nothing from the scenario server's listener, unless it accepted

  @id:client-elicitation/unsupported-dialect @MUST @since:2025-11-25 @spec:basic/index.mdx#implementation-requirements @until:2025-11-25
  Scenario: a form whose schema names a JSON Schema dialect the client does not know is answered with an error
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "elicitation.form" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "elicitation/create" request with the params
      """
      {
        "mode": "form",
        "message": "Please tell us your name.",
        "requestedSchema": {
          "$schema": "https://mcpspec.invalid/schema/unknown-dialect",
          "type": "object",
          "properties": { "name": { "type": "string" } },
          "required": ["name"]
        }
      }
      """
    Then the client answers it with an error, as its schema's dialect is unknown

  @id:client-elicitation/unknown-complete-ignored @MUST @since:2025-11-25 @spec:client/elicitation.mdx#completion-notifications-for-url-mode-elicitation @until:2025-11-25
  Scenario: a completion notification for an elicitation the client never saw is ignored
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "elicitation.url" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server announces the completion of an elicitation it never sent
    And the scenario server sends a "ping" request
    Then the client answers it with the result {}

  @id:client-elicitation/undeclared-mode @MUST @since:2025-11-25 @spec:client/elicitation.mdx#error-handling @until:2025-11-25
  Scenario: a URL mode elicitation to a client that did not declare URL mode is answered with -32602
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "elicitation" capability
    And the client did not declare the "elicitation.url" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "elicitation/create" request with the params
      """
      {
        "mode": "url",
        "message": "Please connect your example.com account.",
        "url": "https://example.com/connect?session=mcpspec",
        "elicitationId": "mcpspec-elicitation-2"
      }
      """
    Then the client answers it with error -32602

  # basic/lifecycle.mdx#operation (MUST since 2025-06-18, when elicitation arrived): a client that
  # did not declare elicitation does not elicit; it answers with an error (the spec names no
  # code; -32601 as for roots). The scenario server sends it on purpose.
  @id:client-elicitation/undeclared @MUST @since:2025-06-18 @spec:basic/lifecycle.mdx#operation @until:2025-11-25
  Scenario: elicitation/create is answered with an error by a client that did not declare elicitation
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client did not declare the "elicitation" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "elicitation/create" request with the params
      """
      {
        "message": "Please tell us your name.",
        "requestedSchema": {
          "type": "object",
          "properties": { "name": { "type": "string" } },
          "required": ["name"]
        }
      }
      """
    Then the client answers it with an error, not a result
