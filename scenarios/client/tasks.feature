@tasks @since:2025-11-25 @until:2025-11-25
Feature: Client tasks
  2025-11-25's experimental tasks (basic/utilities/tasks.mdx), the client as requestor. The
  scenario server is mcpspec's reference server: it declares tasks.requests.tools.call, lists
  `slow` (execution.taskSupport "optional") and `test_task_required` ("required"), and sends no
  notifications/tasks/status while a task runs. A client calls tools as tasks only on a server
  that declared tasks.requests.tools.call, never a tool whose taskSupport is absent or
  "forbidden" as one, and a "required" one only as one: the session checker judges every
  tools/call of the client, in every scenario (tasks/client-tools-call-capability,
  tasks/client-forbidden-tool-plain, tasks/client-required-tool-as-task), every cancellation
  (cancellation/task-by-tasks-cancel) and every tasks/list cursor (tasks/list-cursor-as-given).

  A client opts into these scenarios by their names (MCP_CONFORMANCE_SCENARIO): it calls
  `test_task_required` (`slow` for client-tasks/cancel), and follows the task it gets; for
  client-tasks/list-cursor it calls `slow` as a task 11 times, more than one page of tasks/list
  (ten), and lists its tasks to the end. A client that calls no such tool, creates no task or
  asks for no second page is skipped.

  @id:client-tasks/required-tool @MUST @spec:basic/utilities/tasks.mdx#tool-level-negotiation
  Scenario: a tool that runs only as a task is called as one
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client called the tool "test_task_required" as a task

  @id:client-tasks/result-without-notifications @MUST @spec:basic/utilities/tasks.mdx#task-status-notification
  Scenario: the client gets its task's result by asking, with no status notification to wait for
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client fetched its task's result, though no status notification came

  @id:client-tasks/cancel @MUST @spec:basic/utilities/cancellation.mdx#behavior-requirements
  Scenario: the client cancels its task with tasks/cancel, not notifications/cancelled
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client cancelled its task with tasks/cancel

  @id:client-tasks/list-cursor @MUST @spec:basic/utilities/tasks.mdx#task-listing
  Scenario: the client sends each tasks/list cursor back as the server gave it
    Given a client connected to the scenario server
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client listed its tasks page by page, each cursor as the server gave it

  @id:client-tasks/undeclared-capability @MUST @spec:basic/utilities/tasks.mdx#tool-level-negotiation
  Scenario: a server without tasks.requests.tools.call gets no tool call as a task
    Given a client connected to the scenario server
    And the scenario server declares the capabilities {"tools": {}}
    When the scenario server serves the client until it is done or idle, for at most the timeout
    Then the client called no tool as a task
