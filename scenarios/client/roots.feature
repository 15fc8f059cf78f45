Feature: Roots
  A client that declares the roots capability answers roots/list with its roots, each a
  file:// URI, and validates them against path traversal: no root it lists holds a . or ..
  segment (the server sees no other trace of that validation). A client that does not declare it answers roots/list with -32601 (Method not
  found).

  @id:client-roots/list @MUST @spec:client/roots.mdx#listing-roots @until:2025-11-25
  Scenario: roots/list is answered with file:// URIs
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "roots" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "roots/list" request
    Then the client answers it with roots whose URIs are file:// URIs without dot segments

  # The roots change on cue only in a client that opts in by the scenario's name (the reference
  # client's user opens a second folder once the roots were listed); a client whose roots stay
  # the same is skipped, never passed.
  @id:client-roots/list-changed @MUST @spec:client/roots.mdx#root-list-changes @until:2025-11-25
  Scenario: a client whose roots change says so with notifications/roots/list_changed
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "roots.listChanged" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    # The client's own request is held unanswered, so it stays for both roots/list requests.
    When the client sends a "tools/list" request
    And the scenario server sends a "roots/list" request
    Then the client answers it with roots whose URIs are file:// URIs without dot segments
    When the scenario server waits up to 1 second for "notifications/roots/list_changed"
    And the scenario server sends a "roots/list" request
    Then the client answers it with roots whose URIs are file:// URIs without dot segments
    And the client announced each change of its roots with notifications/roots/list_changed

  @id:client-roots/undeclared @SHOULD @spec:client/roots.mdx#error-handling @until:2025-11-25
  Scenario: roots/list is answered with -32601 by a client that did not declare roots
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client did not declare the "roots" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "roots/list" request
    Then the client answers it with error -32601
