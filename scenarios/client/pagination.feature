Feature: Client pagination
  A list result with nextCursor has more pages. Clients MUST treat the cursor as an opaque
  token: it goes back in the next request exactly as received. A result without nextCursor is
  the end of the results. The scenario server pages its tool list with a cursor holding a
  space, a slash, a plus sign and a non-ASCII letter, which a careless client would encode.

  @id:client-pagination/cursor-opaque @MUST @spec:server/utilities/pagination.mdx @until:2025-11-25
  Scenario: the client sends the cursor back unchanged
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the client sends a "tools/list" request
    And the scenario server answers it with a first page whose next cursor is "mcpspec page 2/2+é=="
    Then the client asks for the next page with that very cursor
    When the scenario server answers it with the last page

  @id:client-pagination/end-of-results @SHOULD @spec:server/utilities/pagination.mdx @until:2025-11-25
  Scenario: the client asks for no page after one without nextCursor
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the client sends a "tools/list" request
    And the scenario server answers it with a first page whose next cursor is "mcpspec page 2/2+é=="
    Then the client asks for the next page with that very cursor
    When the scenario server answers it with the last page
    Then the client asks for no page after the last
