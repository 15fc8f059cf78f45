@fixture
Feature: The official conformance fixture
  Servers that implement the tool, resource and prompt names of the official conformance
  suite's fixture get these deeper scenarios too; on other servers they are skipped.

  @id:fixture/simple-text @MUST @spec:server/tools.mdx#calling-tools
  Scenario: test_simple_text answers with text content
    Given an initialized session
    And the server offers the tool "test_simple_text"
    When the client calls the tool
    Then the server answers with a result
    And the tool result is not an error

  @id:fixture/error-handling @MUST @spec:server/tools.mdx#error-handling
  Scenario: test_error_handling reports a tool execution error in the result
    Given an initialized session
    And the server offers the tool "test_error_handling"
    When the client calls the tool
    Then the server answers with a result
    And the tool result is an error

  @id:fixture/progress @MUST @spec:basic/utilities/progress.mdx
  Scenario: test_tool_with_progress reports progress with the request's token
    Given an initialized session
    And the server offers the tool "test_tool_with_progress"
    When the client calls the tool with the progress token "mcpspec-progress"
    Then the server answers with a result
    And the server sent progress for the token "mcpspec-progress"

  @id:fixture/sampling @MUST @spec:client/sampling.mdx @until:2025-11-25
  Scenario: test_sampling asks the client for a sampling when the client declared sampling
    Given an initialized session declaring the client capabilities
      """
      {"sampling": {}}
      """
    And the server offers the tool "test_sampling"
    When the client calls the tool
    Then the server answers with a result
    And the server sent a "sampling/createMessage" request

  @id:fixture/no-sampling-undeclared @MUST @spec:basic/lifecycle.mdx#operation @until:2025-11-25
  Scenario: test_sampling sends no sampling request to a client that did not declare sampling
    Given an initialized session
    And the server offers the tool "test_sampling"
    When the client calls the tool
    Then the server answers with a result or an error
    And the server sent no "sampling/createMessage" request

  @id:fixture/elicitation @MUST @spec:client/elicitation.mdx @since:2025-06-18 @until:2025-11-25
  Scenario: test_elicitation asks the client when the client declared elicitation
    Given an initialized session declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server offers the tool "test_elicitation"
    When the client calls the tool
    Then the server answers with a result
    And the server sent a "elicitation/create" request

  @id:fixture/no-elicitation-undeclared @MUST @spec:basic/lifecycle.mdx#operation @since:2025-06-18 @until:2025-11-25
  Scenario: test_elicitation sends no elicitation request to a client that did not declare it
    Given an initialized session
    And the server offers the tool "test_elicitation"
    When the client calls the tool
    Then the server answers with a result or an error
    And the server sent no "elicitation/create" request

  @id:fixture/sampling-tool-loop @MUST @spec:client/sampling.mdx#tool-use-and-result-balance @since:2025-11-25 @until:2025-11-25
  Scenario: test_sampling runs a balanced tool loop with a client that declared sampling.tools
    Given an initialized session declaring the client capabilities
      """
      {"sampling": {"tools": {}}}
      """
    And the server offers the tool "test_sampling"
    When the client calls the tool
    Then the server answers with a result
    And the server sent a "sampling/createMessage" request

  @id:fixture/logging @MUST @spec:server/utilities/logging.mdx#capabilities
  Scenario: test_tool_with_logging logs only as a server that declared logging
    Given an initialized session
    And the server offers the tool "test_tool_with_logging"
    When the client calls the tool
    Then the server answers with a result

  @id:fixture/static-resources @MUST @spec:server/resources.mdx#reading-resources
  Scenario Outline: the fixture's <kind> resource is read with its contents
    Given an initialized session
    And the server declares the "resources" capability
    And the server lists the <listing> "<listed>"
    When the client sends a "resources/read" request
      """
      {"uri": "<uri>"}
      """
    Then the server answers with a result
    And the result's "contents" is not empty

    Examples:
      | kind      | uri                     | listing           | listed                    |
      | text      | test://static-text      | resource          | test://static-text        |
      | binary    | test://static-binary    | resource          | test://static-binary      |
      | templated | test://template/42/data | resource template | test://template/{id}/data |

  @id:fixture/watched-resource @MUST @spec:server/resources.mdx#subscriptions @until:2025-11-25
  Scenario: a subscription to the fixture's watched resource brings resources/updated
    Given an initialized session
    And the server declares the "resources.subscribe" capability
    And the server lists the resource "test://watched-resource"
    When the client sends a "resources/subscribe" request
      """
      {"uri": "test://watched-resource"}
      """
    Then the server answers with the result {}
    And the server sends a "notifications/resources/updated" notification

  @id:fixture/prompt-with-arguments @MUST @spec:server/prompts.mdx#getting-a-prompt
  Scenario: the fixture's prompt with arguments is filled in
    Given an initialized session
    And the server declares the "prompts" capability
    And the server lists the prompt "test_prompt_with_arguments"
    When the client sends a "prompts/get" request
      """
      {"name": "test_prompt_with_arguments", "arguments": {"arg1": "one", "arg2": "two"}}
      """
    Then the server answers with a result
    And the result's "messages" is not empty
