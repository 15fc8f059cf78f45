Feature: Pagination
  List operations return pages: the server sets the page size, the client follows nextCursor,
  treats cursors as opaque, and a missing nextCursor ends the list. Invalid cursors SHOULD get
  -32602. Scenarios run only for the lists whose capability the server declares.

  @id:pagination/ends @SHOULD @spec:server/utilities/pagination.mdx
  Scenario Outline: <method> pages end, with each item once
    Given an initialized session
    And the server declares the "<capability>" capability
    When the client lists "<method>" to the end
    Then the listing ends
    And no "<key>" appears twice in the listing

    Examples:
      | method                   | capability | key         |
      | tools/list               | tools      | name        |
      | prompts/list             | prompts    | name        |
      | resources/list           | resources  | uri         |
      | resources/templates/list | resources  | uriTemplate |

  @id:pagination/invalid-cursor @SHOULD @spec:server/utilities/pagination.mdx#error-handling
  Scenario Outline: an invalid cursor for <method> gets error -32602
    Given an initialized session
    And the server declares the "<capability>" capability
    When the client sends a "<method>" request with an invalid cursor
    Then the server answers with error -32602

    Examples:
      | method                   | capability |
      | tools/list               | tools      |
      | prompts/list             | prompts    |
      | resources/list           | resources  |
      | resources/templates/list | resources  |
