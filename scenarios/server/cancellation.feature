Feature: Cancellation
  Either side may cancel a request it sent with notifications/cancelled. The receiver SHOULD
  stop and not respond; a response that crossed the cancel is legal; unknown, finished or
  malformed cancellations SHOULD be ignored. Both parties MUST handle these races gracefully.

  @id:cancellation/in-flight @MUST @spec:basic/utilities/cancellation.mdx#timing-considerations
  Scenario: a request cancelled at once is answered at most once, and the session stays healthy
    Given an initialized session
    When the client sends a "tools/list" request
    And the client cancels the request
    Then the server answers the request or drops it
    And the session is still alive

  @id:cancellation/after-completion @MUST @spec:basic/utilities/cancellation.mdx#timing-considerations @until:2025-11-25
  Scenario: cancelling a request already answered changes nothing
    Given an initialized session
    When the client sends a "ping" request
    Then the server answers with the result {}
    When the client cancels the answered request
    Then the session is still alive

  @id:cancellation/unknown-request @MUST @spec:basic/utilities/cancellation.mdx#error-handling
  Scenario Outline: a cancellation the server cannot match is ignored (<kind>)
    Given an initialized session
    When the client sends the "notifications/cancelled" notification
      """
      <params>
      """
    Then the session is still alive

    Examples:
      | kind               | params                                   |
      | an unknown id      | {"requestId": "mcpspec-never-sent"}      |
      | no requestId       | {"reason": "mcpspec"}                    |
      | a null requestId   | {"requestId": null}                      |
      | a requestId object | {"requestId": {"id": 1}}                 |

  # basic/utilities/cancellation.mdx#behavior-requirements: the receiver SHOULD not respond to a
  # cancelled request; a response written before it read the cancellation crossed it (timing
  # considerations). A liveness request after the cancel tells them apart: only a response after
  # its answer is judged; one before it leaves the scenario inconclusive.
  @id:cancellation/no-response-after-cancel @SHOULD @spec:basic/utilities/cancellation.mdx#behavior-requirements @fixture @until:2025-11-25
  Scenario: a request cancelled while it runs is not answered
    Given an initialized session
    And the server offers the tool "test_tool_with_progress"
    When the client calls the tool with the progress token "mcpspec-cancel-me"
    And the client cancels the request once it reports progress
    Then the server does not answer the cancelled request
    And the session is still alive

  # basic/transports/stdio.mdx#cancellation (2026-07-28): once the server has the cancellation it
  # MUST NOT send anything more for the request. A liveness request after the cancellation is the
  # barrier: what came before its answer crossed the cancellation; nothing may come after it.
  @id:cancellation/silent-after-cancel @MUST @since:2026-07-28 @transport:stdio @spec:basic/transports/stdio.mdx#cancellation @fixture
  Scenario: a request cancelled while it runs gets nothing more once the server has read the cancellation
    Given an initialized session
    And the server offers the tool "test_tool_with_progress"
    When the client calls the tool with the progress token "mcpspec-cancel-me"
    And the client cancels the request once it reports progress
    Then the server sends nothing more for the cancelled request once it has read the cancellation
    And the session is still alive
