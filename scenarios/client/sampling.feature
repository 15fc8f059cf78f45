Feature: Sampling
  A client that declares the sampling capability answers sampling/createMessage with the
  message its model produced (role, content, model; schema-checked at the negotiated revision),
  or with error -1 when the user rejects the request. From 2025-11-25, a client that declared
  sampling.tools runs tool loops: its tool uses name offered tools (and carry stopReason
  "toolUse", checked as client-sampling/stop-reason at SHOULD), it uses none under toolChoice
  "none", and it answers requests that break the tool-use balance with -32602. Some scenarios
  send what a server must not (unbalanced tool loops, tools to a client that did not declare
  sampling.tools) on purpose: the client's answer to them is what is judged.

  @id:client-sampling/create-message @MUST @spec:client/sampling.mdx#creating-messages @until:2025-11-25
  Scenario: sampling/createMessage is answered with a message, or rejected with -1
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Say hello." } }],
        "maxTokens": 50
      }
      """
    Then the client answers it with a sampled message, or error -1 (the user rejected it)

  @id:client-sampling/tool-loop @MUST @since:2025-11-25 @spec:client/sampling.mdx#sampling-with-tools @until:2025-11-25
  Scenario: a tool loop runs to a final answer; each result is a message that uses only the offered tools, and none with toolChoice "none"
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling.tools" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } }],
        "tools": [{
          "name": "get_weather",
          "description": "Current weather for a city",
          "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }
        }],
        "toolChoice": { "mode": "auto" },
        "maxTokens": 200
      }
      """
    Then the client answers it with a sampled message, or error -1 (the user rejected it)
    When the scenario server continues the tool loop
    Then the client answers it with a sampled message, or error -1 (the user rejected it)
    When the scenario server continues the tool loop with toolChoice "none"
    Then the client answers it with a sampled message, or error -1 (the user rejected it)

  @id:client-sampling/tool-choice-required @MUST @since:2025-11-25 @spec:client/sampling.mdx#tool-choice-modes @until:2025-11-25
  Scenario: with toolChoice "required" the answer uses one of the offered tools
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling.tools" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What time is it in Tokyo?" } }],
        "tools": [{
          "name": "get_time",
          "description": "Current time in a city",
          "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"] }
        }],
        "toolChoice": { "mode": "required" },
        "maxTokens": 200
      }
      """
    Then the client answers it with a sampled message, or error -1 (the user rejected it)

  @id:client-sampling/tool-result-missing @SHOULD @since:2025-11-25 @spec:client/sampling.mdx#error-handling @until:2025-11-25
  Scenario: a tool use without a tool result is answered with -32602
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling.tools" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [
          { "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } },
          { "role": "assistant", "content": [{ "type": "tool_use", "id": "call_1", "name": "get_weather", "input": { "city": "Paris" } }] },
          { "role": "user", "content": { "type": "text", "text": "Never mind the tool; just guess." } }
        ],
        "tools": [{ "name": "get_weather", "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } } }],
        "maxTokens": 200
      }
      """
    Then the client answers it with error -32602

  @id:client-sampling/unknown-tool-use-id @SHOULD @since:2025-11-25 @spec:client/sampling.mdx#error-handling @until:2025-11-25
  Scenario: a tool result for a tool use that was never made is answered with -32602
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling.tools" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [
          { "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } },
          { "role": "assistant", "content": [{ "type": "tool_use", "id": "call_1", "name": "get_weather", "input": { "city": "Paris" } }] },
          { "role": "user", "content": [{ "type": "tool_result", "toolUseId": "call_999", "content": [{ "type": "text", "text": "18°C" }] }] }
        ],
        "tools": [{ "name": "get_weather", "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } } }],
        "maxTokens": 200
      }
      """
    Then the client answers it with error -32602

  @id:client-sampling/tool-results-mixed @SHOULD @since:2025-11-25 @spec:client/sampling.mdx#error-handling @until:2025-11-25
  Scenario: a user message mixing tool results with other content is answered with -32602
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling.tools" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [
          { "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } },
          { "role": "assistant", "content": [{ "type": "tool_use", "id": "call_1", "name": "get_weather", "input": { "city": "Paris" } }] },
          { "role": "user", "content": [
            { "type": "text", "text": "Here is the result:" },
            { "type": "tool_result", "toolUseId": "call_1", "content": [{ "type": "text", "text": "18°C" }] }
          ] }
        ],
        "tools": [{ "name": "get_weather", "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } } }],
        "maxTokens": 200
      }
      """
    Then the client answers it with error -32602

  @id:client-sampling/tools-undeclared @MUST @since:2025-11-25 @spec:client/sampling.mdx#tools-in-sampling @until:2025-11-25
  Scenario: a client that did not declare sampling.tools does not use the tools of a request
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling" capability
    And the client did not declare the "sampling.tools" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } }],
        "tools": [{ "name": "get_weather", "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } } }],
        "toolChoice": { "mode": "required" },
        "maxTokens": 200
      }
      """
    Then the client answers it without using a tool

  # schema.ts, CreateMessageRequestParams.tools: "The client MUST return an error if this field
  # is provided but ClientCapabilities.sampling.tools is not declared."
  @id:client-sampling/tools-undeclared-error @MUST @since:2025-11-25 @spec:schema.mdx#createmessagerequestparams @until:2025-11-25
  Scenario: a client that did not declare sampling.tools answers a request with tools with an error
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client declared the "sampling" capability
    And the client did not declare the "sampling.tools" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "What is the weather in Paris?" } }],
        "tools": [{ "name": "get_weather", "inputSchema": { "type": "object", "properties": { "city": { "type": "string" } } } }],
        "maxTokens": 200
      }
      """
    Then the client answers it with an error, not a result

  # basic/lifecycle.mdx#operation: both parties "only use capabilities that were successfully
  # negotiated" (MUST from 2025-06-18, SHOULD before): a client that did not declare sampling
  # does not sample; it answers with an error (the spec names no code; -32601 as for roots). The
  # scenario server sends what it must not (capabilities/server-requests-declared) on purpose.
  @id:client-sampling/undeclared @MUST @since:2025-06-18 @spec:basic/lifecycle.mdx#operation @until:2025-11-25
  Scenario: sampling/createMessage is answered with an error by a client that did not declare sampling
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client did not declare the "sampling" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Say hello." } }],
        "maxTokens": 50
      }
      """
    Then the client answers it with an error, not a result

  @id:client-sampling/undeclared-until-2025-03-26 @SHOULD @until:2025-03-26 @spec:basic/lifecycle.mdx#operation
  Scenario: sampling/createMessage is answered with an error by a client that did not declare sampling (a SHOULD before 2025-06-18)
    Given a client connected to the scenario server
    Then the client's first message is an initialize request
    Given the client did not declare the "sampling" capability
    When the scenario server answers it
    Then the client sends notifications/initialized
    When the scenario server sends a "sampling/createMessage" request with the params
      """
      {
        "messages": [{ "role": "user", "content": { "type": "text", "text": "Say hello." } }],
        "maxTokens": 50
      }
      """
    Then the client answers it with an error, not a result
