@since:2026-07-28
Feature: Subscriptions
  In the modern era a client asks for notifications with subscriptions/listen and a filter;
  the server acknowledges the subscription before anything else on it, sends only what was
  asked for, and marks each notification with the subscription's id (the listen request's id)
  (judged on every message: subscriptions/…).

  @id:subscriptions/acknowledged @MUST @spec:basic/patterns/subscriptions.mdx#acknowledgment
  Scenario: subscriptions/listen is acknowledged with the subscription's id
    Given the client has discovered the server
    And the server declares the "tools.listChanged" capability
    When the client listens for "toolsListChanged"
    Then the server acknowledges the subscription
    When the client ends the subscription
    Then the session is still alive

  @id:subscriptions/resource-updated @MUST @spec:basic/patterns/subscriptions.mdx#receiving-notifications @fixture
  Scenario: a subscription to the fixture's watched resource brings resources/updated on it
    Given the client has discovered the server
    And the server declares the "resources.subscribe" capability
    And the server lists the resource "test://watched-resource"
    When the client listens for updates of "test://watched-resource"
    Then the server acknowledges the subscription
    And the server sends a "notifications/resources/updated" notification
    When the client ends the subscription
    Then the session is still alive

  # Each kind of notification alone, and resource updates only: whatever else arrives on the
  # subscription (judged on every message: subscriptions/only-requested) shows a server pushing
  # what its filter did not ask for, which a listen for everything would hide.
  @id:subscriptions/filter-alone @MUST @spec:basic/patterns/subscriptions.mdx#opening-a-stream
  Scenario Outline: a subscription asking for <kind> alone is acknowledged and carries nothing else
    Given the client has discovered the server
    And the server declares the "<capability>" capability
    When the client listens for "<kind>"
    Then the server acknowledges the subscription
    When the client ends the subscription
    Then the session is still alive

    Examples:
      | kind                 | capability             |
      | toolsListChanged     | tools.listChanged      |
      | promptsListChanged   | prompts.listChanged    |
      | resourcesListChanged | resources.listChanged  |

  @id:subscriptions/filter-resources-only @MUST @spec:basic/patterns/subscriptions.mdx#opening-a-stream
  Scenario: a subscription to one resource's updates only is acknowledged and carries nothing else
    Given the client has discovered the server
    And the server declares the "resources.subscribe" capability
    And the server lists a resource
    When the client listens for updates of the resource
    Then the server acknowledges the subscription
    When the client ends the subscription
    Then the session is still alive
