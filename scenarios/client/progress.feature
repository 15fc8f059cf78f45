Feature: Client progress and notifications
  A client that puts a progressToken in a request receives notifications/progress for it while
  the request runs; a server that declared listChanged may send list_changed notifications at
  any time. The client takes both in its stride and keeps answering. The session checker also
  judges every request the client sends, in every scenario: its progress tokens are unique
  among its active requests (progress/token-unique).

  @id:client-progress/notifications-tolerated @MUST @spec:basic/utilities/progress.mdx @until:2025-11-25
  Scenario: the client takes progress and list_changed notifications while its request runs
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the client sends a "tools/call" request
    And the scenario server sends progress and list_changed notifications
    And the scenario server sends a "ping" request
    Then the client answers it with the result {}
