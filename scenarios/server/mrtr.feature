@since:2026-07-28 @fixture
Feature: Multi round-trip requests
  A stateless server asks for what it needs from the client (an elicitation, a sampling, the
  roots) by answering tools/call, prompts/get or resources/read with an InputRequiredResult;
  the client retries the request, under a new id, with the answers and the server's exact
  requestState. Only what the request's _meta declared may be asked for, never on other
  requests (judged on every message: mrtr/…). These scenarios use the official fixture's
  tools; the sweep judges every other tool of a server the same way.

  @id:mrtr/elicitation @MUST @spec:basic/patterns/mrtr.mdx#basic-workflow
  Scenario: test_elicitation asks for an elicitation and completes when retried with the answer
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server offers the tool "test_elicitation"
    And input requests are answered step by step
    When the client calls the tool
    Then the server asks for input with an "elicitation/create" input request
    When the client retries with the input and the request state
    Then the server answers with a result
    And the tool result is not an error

  @id:mrtr/sampling @MUST @spec:basic/patterns/mrtr.mdx#basic-workflow
  Scenario: test_sampling asks for a sampling and completes when retried with the answer
    Given the client has discovered the server declaring the client capabilities
      """
      {"sampling": {}}
      """
    And the server offers the tool "test_sampling"
    And input requests are answered step by step
    When the client calls the tool
    Then the server asks for input with an "sampling/createMessage" input request
    When the client retries with the input and the request state
    Then the server answers with a result
    And the tool result is not an error

  @id:mrtr/undeclared @MUST @spec:basic/patterns/mrtr.mdx#server-requirements-basic-workflow
  Scenario Outline: <tool> asks nothing of a client that declared no <capability>
    Given the client has discovered the server
    And the server offers the tool "<tool>"
    And input requests are answered step by step
    When the client calls the tool
    Then the server asks for no "<input>" input
    Examples:
      | tool             | capability  | input                  |
      | test_elicitation | elicitation | elicitation/create     |
      | test_sampling    | sampling    | sampling/createMessage |

  @id:mrtr/request-state-tampered @SHOULD @spec:basic/patterns/mrtr.mdx#server-requirements-basic-workflow
  Scenario: a tampered requestState does not complete the request
    # Servers MUST reject state that fails verification when it matters to their logic, and
    # MAY skip integrity protection when tampering can cause nothing worse than a failure:
    # from outside, a completed request is a warning, not a proven violation.
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server offers the tool "test_elicitation"
    And input requests are answered step by step
    When the client calls the tool
    Then the server asks for input with an "elicitation/create" input request
    When the client retries with the input and a tampered request state
    Then the server does not complete the request

  @id:mrtr/missing-input-asked-again @SHOULD @spec:basic/patterns/mrtr.mdx#error-handling
  Scenario: a retry without the input asked for is asked again, not failed
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server offers the tool "test_elicitation"
    And input requests are answered step by step
    When the client calls the tool
    Then the server asks for input with an "elicitation/create" input request
    When the client retries with the request state but without the input
    Then the server asks for input with an "elicitation/create" input request

  @id:mrtr/extra-input-ignored @SHOULD @spec:basic/patterns/mrtr.mdx#error-handling
  Scenario: an unexpected extra entry in inputResponses is ignored
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server offers the tool "test_elicitation"
    And input requests are answered step by step
    When the client calls the tool
    Then the server asks for input with an "elicitation/create" input request
    When the client retries with the input, an unexpected extra entry and the request state
    Then the server answers with a result
    And the tool result is not an error

  @id:mrtr/several-inputs @MUST @spec:basic/patterns/mrtr.mdx#inputrequests
  Scenario: several inputs asked for in one result are all answered, and the request completes
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}, "sampling": {}, "roots": {}}
      """
    And the server offers the tool "test_mrtr_multiple_inputs"
    And input requests are answered step by step
    When the client calls the tool
    Then the server asks for 2 or more inputs in one result
    When the client retries with the input and the request state
    Then the server answers with a result
    And the tool result is not an error

  @id:mrtr/multi-round @MUST @spec:basic/patterns/mrtr.mdx#basic-workflow
  Scenario: a request that needs input in two rounds completes after both
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}, "sampling": {}}
      """
    And the server offers the tool "test_mrtr_multi_round"
    When the client calls the tool
    Then the server answers with a result
    And the tool result is not an error
    And the server asked for input in 2 or more rounds

  @id:mrtr/prompt @MUST @spec:basic/patterns/mrtr.mdx#supported-requests
  Scenario: a prompt that needs input is got once the input is given
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server declares the "prompts" capability
    And the server lists the prompt "test_mrtr_prompt"
    When the client sends a "prompts/get" request
      """
      {"name": "test_mrtr_prompt"}
      """
    Then the server answers with a result
    And the result's "messages" is not empty
    And the server asked for input in 1 or more rounds

  @id:mrtr/resource @MUST @spec:basic/patterns/mrtr.mdx#supported-requests
  Scenario: a resource that needs input is read once the input is given
    Given the client has discovered the server declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server declares the "resources" capability
    And the server lists the resource "test://mrtr/needs-input"
    When the client sends a "resources/read" request
      """
      {"uri": "test://mrtr/needs-input"}
      """
    Then the server answers with a result
    And the result's "contents" is not empty
    And the server asked for input in 1 or more rounds

  # basic/index.mdx#_meta: what a request needs and the client did not declare is refused with
  # -32021 (over HTTP, 400), never asked for (mrtr/undeclared). A server that serves the tool
  # without it needed nothing, and the scenario is skipped.
  @id:meta/missing-capability @MUST @spec:basic/index.mdx#_meta
  Scenario Outline: <tool>, called by a client that declared no <capability>, is refused with -32021 naming it
    Given the client has discovered the server
    And the server offers the tool "<tool>"
    And input requests are answered step by step
    When the client calls the tool
    Then the server refuses it with error -32021 naming the client capability "<capability>"
    And over HTTP the status is 400
    Examples:
      | tool             | capability  |
      | test_elicitation | elicitation |
      | test_sampling    | sampling    |
