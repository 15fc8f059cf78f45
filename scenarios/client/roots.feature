Feature: Roots
  A client that declares the roots capability answers roots/list with its roots, each a
  file:// URI. A client that does not declare it answers roots/list with -32601 (Method not
  found).

  @id:client-roots/list @MUST @spec:client/roots.mdx#listing-roots @until:2025-11-25
  Scenario: roots/list is answered with file:// URIs
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "roots" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "roots/list" request
    Then the client answers it with roots whose URIs are file:// URIs

  @id:client-roots/undeclared @SHOULD @spec:client/roots.mdx#error-handling @until:2025-11-25
  Scenario: roots/list is answered with -32601 by a client that did not declare roots
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client did not declare the "roots" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "roots/list" request
    Then the client answers it with error -32601
