@tasks @slow @since:2025-11-25 @until:2025-11-25
Feature: Tasks
  2025-11-25's experimental tasks (basic/utilities/tasks.mdx). A server that declares
  tasks.requests.tools.call lets a client call a tool as a task: the call carries `task`, the
  server answers at once with the task, working, and the tool's own answer waits for
  tasks/result. Each tool says in `execution.taskSupport` whether it may run as a task
  (optional), must (required) or may not (forbidden, or nothing said). tasks/get reads a task,
  tasks/list lists them, tasks/cancel ends one that is not over yet. From 2026-07-28 tasks are an
  extension with a shape of their own; these scenarios are 2025-11-25's.

  @id:tasks/create-task-result @MUST @spec:basic/utilities/tasks.mdx#creating-tasks
  Scenario: a tool called as a task is answered at once with the task, working
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working

  @id:tasks/get-task @MUST @spec:basic/utilities/tasks.mdx#getting-tasks
  Scenario: tasks/get reads the task that was created, its ttl included
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working
    When the client gets the task
    Then the server answers with the task

  @id:tasks/result-exact @MUST @spec:basic/utilities/tasks.mdx#result-retrieval
  Scenario: tasks/result waits for the tool and gives its own answer, naming the task
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working
    When the client asks for the task's result
    Then the server answers with the tool's answer, naming the task

  @id:tasks/get-implies-list @MUST @spec:basic/utilities/tasks.mdx#task-listing
  Scenario: a task the client can get is in its tasks/list
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server declares the "tasks.list" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working
    When the client asks for the task's result
    Then the server answers with the tool's answer, naming the task
    When the client lists "tasks/list" to the end
    Then the listing holds the task

  @id:tasks/cancel-terminal-error @MUST @spec:basic/utilities/tasks.mdx#task-cancellation
  Scenario: cancelling a task that is over is refused with -32602
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server declares the "tasks.cancel" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working
    When the client asks for the task's result
    Then the server answers with the tool's answer, naming the task
    When the client cancels the task
    Then the server answers with error -32602

  @id:tasks/cancelled-stays @MUST @spec:basic/utilities/tasks.mdx#task-cancellation
  Scenario: a task cancelled while working is cancelled before the answer, and stays cancelled
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server declares the "tasks.cancel" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working
    When the client cancels the task
    Then the task is cancelled, and stays cancelled

  @id:tasks/unknown-task @MUST @spec:basic/utilities/tasks.mdx#protocol-errors
  Scenario: tasks/get of a task that does not exist is refused with -32602
    Given an initialized session
    And the server declares the "tasks" capability
    When the client sends a "tasks/get" request
      """
      {"taskId": "mcpspec-no-such-task"}
      """
    Then the server answers with error -32602

  @id:tasks/required-tool-plain-error @MUST @spec:basic/utilities/tasks.mdx#tool-level-negotiation
  Scenario: a tool that runs only as a task, called plainly, is refused with -32601
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that must run as a task
    When the client calls the tool
    Then the server answers with error -32601

  @id:tasks/forbidden-tool-task-error @SHOULD @spec:basic/utilities/tasks.mdx#tool-level-negotiation
  Scenario: a tool that never runs as a task, called as one, is refused with -32601
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may not run as a task
    When the client calls the tool as a task
    Then the server answers with error -32601

  @id:tasks/ids-unique @MUST @spec:basic/utilities/tasks.mdx#task-id-requirements
  Scenario: tasks created one after another each have an id of their own
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task 3 times
    Then the server creates 3 tasks, no two with the same id

  @id:tasks/ids-unguessable @MUST @spec:basic/utilities/tasks.mdx#task-isolation-and-access-control
  Scenario: without an authorization context to bind them to, task ids cannot be guessed
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task 3 times
    Then the server creates 3 tasks whose ids cannot be guessed

  @id:tasks/terminal-final @MUST @spec:basic/utilities/tasks.mdx#task-status-lifecycle
  Scenario: tasks/get follows a task along the lifecycle to its end, and the end is final
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working
    And tasks/get follows the task to its end, which is final

  @id:tasks/result-as-plain-call @MUST @spec:basic/utilities/tasks.mdx#result-retrieval
  Scenario: tasks/result gives exactly what the same call gives without a task
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may or may not run as a task
    Then the task's result is what a plain call of the tool answers

  @id:tasks/result-error-as-plain-call @MUST @spec:basic/utilities/tasks.mdx#task-execution-errors
  Scenario: tasks/result of a call that fails gives exactly what the same call gives without a task
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may or may not run as a task
    Then the task's result, for arguments its input schema refuses, is what a plain call of the tool answers

  @id:tasks/id-by-receiver @MUST @spec:basic/utilities/tasks.mdx#task-id-requirements
  Scenario: a task's id is one the server generated, not one the client proposed
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task, proposing the task id "mcpspec-proposed-task-id"
    Then the server creates a task whose id is its own, not "mcpspec-proposed-task-id"

  # The server's tools say nothing of what they ask for: the step picks a tool that may run as
  # a task and speaks of eliciting, sampling or input (the reference server's
  # test_task_elicitation), else the first; a task that asks for nothing is skipped.
  @id:tasks/input-request-names-task @MUST @spec:basic/utilities/tasks.mdx#input-required-status
  Scenario: a request the server sends the client for a task names that task
    Given an initialized session declaring the client capabilities
      """
      {"elicitation": {}, "sampling": {}}
      """
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task, preferably one that asks for input
    When the client calls the tool as a task
    Then the server creates a task, working
    When the client asks for the task's result
    Then the server answers with the tool's answer, naming the task
    And every request the server sent while the task ran named it in its related-task _meta

  @id:tasks/param-over-meta @MUST @spec:basic/utilities/tasks.mdx#associating-task-related-messages
  Scenario: tasks/get reads the task its taskId names, whatever related-task _meta says
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task
    Then the server creates a task, working
    When the client gets the task, its _meta naming another task
    Then the server answers with the task

  @id:tasks/list-pages @MUST @spec:basic/utilities/tasks.mdx#task-listing
  Scenario: tasks/list leads from page to page with nextCursor to every task
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server declares the "tasks.list" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task 12 times
    Then the server creates 12 tasks
    When the client lists "tasks/list" to the end
    Then the listing holds every task created

  @id:tasks/undeclared-request-type @MUST @spec:basic/utilities/tasks.mdx#task-support-and-handling
  Scenario: a request type the server runs no tasks for is processed normally, its task ignored
    Given an initialized session
    And the server declares the "tools" capability
    When the client sends a "tools/list" request
      """
      {"task": {"ttl": 60000}}
      """
    Then the server answers with a result
    And the result has the members "tools"

  @id:tasks/undeclared-tool-call @MUST @spec:basic/utilities/tasks.mdx#task-support-and-handling
  Scenario: a server that declared no tasks for tools/call answers a call as a task as a plain one
    Given an initialized session
    And the server declares the "tools" capability
    And the server does not declare the "tasks.requests.tools.call" capability
    And the server lists a tool, preferably one that may run as a task
    When the client calls the tool as a task
    Then the server answers as a plain call of the tool, with no task

  @id:tasks/progress-under-call-token @MUST @spec:basic/utilities/tasks.mdx#task-progress-notifications
  Scenario: a task's progress comes under its call's progress token, and stops at the task's end
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task with the progress token "mcpspec-task-progress"
    Then the server creates a task, working
    When the client asks for the task's result
    Then the server answers with the tool's answer, naming the task
    And the task's progress, if any, came under the token "mcpspec-task-progress"

  @id:tasks/failed-says-why @SHOULD @spec:basic/utilities/tasks.mdx#task-execution-errors
  Scenario: a task whose tool call fails ends failed, and tasks/get says why
    Given an initialized session
    And the server declares the "tasks.requests.tools.call" capability
    And the server lists a tool that may run as a task
    When the client calls the tool as a task with arguments its input schema refuses
    Then the task fails, and tasks/get says why
