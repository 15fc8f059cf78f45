Feature: Server features
  Tools, resources, prompts, logging and completion, each tested only when the server declares
  its capability (otherwise skipped, with the reason), but for the probes that a server which
  did not declare a feature serves none of it.

  @id:tools/unknown-tool @SHOULD @spec:server/tools.mdx#error-handling
  Scenario: calling a tool that does not exist is a protocol error
    Given an initialized session
    And the server declares the "tools" capability
    When the client calls a tool the server does not offer
    Then the server answers with an error, preferably -32602

  @id:resources/read @MUST @spec:server/resources.mdx#reading-resources
  Scenario: a listed resource can be read, and its contents name it
    Given an initialized session
    And the server declares the "resources" capability
    And the server lists a resource
    When the client reads the resource
    Then the server answers with a result
    And the contents name the resource

  @id:resources/unknown @SHOULD @spec:server/resources.mdx#error-handling @until:2025-11-25
  Scenario: reading a resource that does not exist gets error -32002
    Given an initialized session
    And the server declares the "resources" capability
    When the client sends a "resources/read" request
      """
      {"uri": "mcpspec://no-such-resource"}
      """
    Then the server answers with error -32002

  @id:resources/subscribe @MUST @spec:server/resources.mdx#subscriptions @until:2025-11-25
  Scenario: a client can subscribe to a listed resource and unsubscribe again
    Given an initialized session
    And the server declares the "resources.subscribe" capability
    And the server lists a resource
    When the client subscribes to the resource
    Then the server answers with the result {}
    When the client unsubscribes to the resource
    Then the server answers with the result {}

  @id:prompts/unknown @SHOULD @spec:server/prompts.mdx#error-handling
  Scenario: getting a prompt that does not exist gets error -32602
    Given an initialized session
    And the server declares the "prompts" capability
    When the client sends a "prompts/get" request
      """
      {"name": "mcpspec-no-such-prompt"}
      """
    Then the server answers with error -32602

  @id:prompts/missing-argument @SHOULD @spec:server/prompts.mdx#error-handling
  Scenario: getting a prompt without its required arguments gets error -32602
    Given an initialized session
    And the server declares the "prompts" capability
    And the server lists a prompt with a required argument
    When the client gets the prompt without its required arguments
    Then the server answers with error -32602

  @id:logging/set-level @MUST @spec:server/utilities/logging.mdx#setting-log-level @until:2025-11-25
  Scenario: logging/setLevel is answered with an empty result
    Given an initialized session
    And the server declares the "logging" capability
    When the client sends a "logging/setLevel" request
      """
      {"level": "debug"}
      """
    Then the server answers with the result {}

  @id:logging/invalid-level @SHOULD @spec:server/utilities/logging.mdx#error-handling @until:2025-11-25
  Scenario: an invalid log level gets error -32602
    Given an initialized session
    And the server declares the "logging" capability
    When the client sends a "logging/setLevel" request
      """
      {"level": "mcpspec-loud"}
      """
    Then the server answers with error -32602

  @id:completion/at-most-100 @MUST @spec:server/utilities/completion.mdx#completion-results @since:2025-03-26
  Scenario: completion of a prompt argument offers at most 100 values
    Given an initialized session
    And the server declares the "completions" capability
    And the server declares the "prompts" capability
    And the server lists a prompt with an argument
    When the client asks to complete the prompt's first argument
    Then the server answers with a result
    And the result's "completion.values" holds at most 100 items

  @id:completion/template-at-most-100 @MUST @spec:server/utilities/completion.mdx#completion-results @since:2025-03-26
  Scenario: completion of a resource template variable offers at most 100 values
    Given an initialized session
    And the server declares the "completions" capability
    And the server declares the "resources" capability
    And the server lists a resource template
    When the client asks to complete the template's first variable
    Then the server answers with a result
    And the result's "completion.values" holds at most 100 items

  @id:tools/structured-output @MUST @spec:server/tools.mdx#output-schema @since:2025-06-18
  Scenario: a tool with an output schema returns structured content that conforms to it
    Given an initialized session
    And the server declares the "tools" capability
    And the server lists a read-only tool with an output schema
    When the client calls the tool
    Then the server answers with a result
    And the structured content conforms to the output schema

  @id:logging/level-filter @SHOULD @spec:server/utilities/logging.mdx#log-levels @fixture @until:2025-11-25
  Scenario: after logging/setLevel the server sends only messages at that level or above
    Given an initialized session
    And the server declares the "logging" capability
    And the server offers the tool "test_tool_with_logging"
    When the client sends a "logging/setLevel" request
      """
      {"level": "error"}
      """
    Then the server answers with the result {}
    When the client calls the tool
    Then the server answers with a result
    And no log message below "error" arrived

  # What a server serves it declares: mcpspec asks for a feature the server did not declare
  # (knowingly, as a probe) and accepts any error or an empty answer; items served fail.
  # From 2026-07-28, discover/capabilities-honest judges the same for tools, prompts and resources.
  @id:tools/served-only-if-declared @MUST @spec:server/tools.mdx#capabilities @until:2025-11-25
  Scenario: a server that did not declare tools lists none
    Given an initialized session
    And the server does not declare the "tools" capability
    When the client sends a "tools/list" request
    Then the server serves nothing it did not declare

  @id:prompts/served-only-if-declared @MUST @spec:server/prompts.mdx#capabilities @until:2025-11-25
  Scenario: a server that did not declare prompts lists none
    Given an initialized session
    And the server does not declare the "prompts" capability
    When the client sends a "prompts/list" request
    Then the server serves nothing it did not declare

  @id:resources/served-only-if-declared @MUST @spec:server/resources.mdx#capabilities @until:2025-11-25
  Scenario Outline: a server that did not declare resources lists none (<method>)
    Given an initialized session
    And the server does not declare the "resources" capability
    When the client sends a "<method>" request
    Then the server serves nothing it did not declare
    Examples:
      | method                   |
      | resources/list           |
      | resources/templates/list |

  @id:completion/served-only-if-declared @MUST @spec:server/utilities/completion.mdx#capabilities @since:2025-03-26
  Scenario: a server that did not declare completions completes nothing
    Given an initialized session
    And the server does not declare the "completions" capability
    And the server declares the "prompts" capability
    And the server lists a prompt with an argument
    When the client asks to complete the prompt's first argument
    Then the server serves nothing it did not declare

  @id:tools/validate-inputs @MUST @spec:server/tools.mdx#security-considerations
  Scenario: a tool called with arguments its input schema refuses does not succeed
    Given an initialized session
    And the server declares the "tools" capability
    And the server lists a tool with a required typed argument
    When the client calls the tool with arguments its input schema refuses
    Then the server refuses the call with an error or a tool error

  # basic/index.mdx#json-schema-usage (2025-11-25 on): a schema without $schema is JSON Schema
  # 2020-12, and schemas are validated by their own dialect. Only a tool whose schema reads
  # differently under another dialect (prefixItems, which draft-07 ignores) can show it.
  @id:tools/validate-by-dialect @MUST @since:2025-11-25 @spec:basic/index.mdx#implementation-requirements
  Scenario: a tool refuses arguments that only its schema's own JSON Schema dialect refuses
    Given an initialized session
    And the server declares the "tools" capability
    And the server lists a tool whose input schema tells its dialect from another
    When the client calls the tool with arguments only its schema's own dialect refuses
    Then the server refuses the call, as its schema's own dialect does

  # server/resources.mdx#security-considerations (2026-07-28): a server serving file://
  # resources sanitizes their paths. The URI climbs from a listed file's folder, one level past
  # the root, to /etc/passwd, its .. segments written out as they are.
  @id:resources/no-path-traversal @MUST @since:2026-07-28 @spec:server/resources.mdx#security-considerations
  Scenario: a file:// URI that climbs out of a listed resource's folder is not read
    Given an initialized session
    And the server declares the "resources" capability
    And the server lists a file:// resource in a folder
    When the client reads a file:// URI that climbs out of the resource's folder
    Then the server refuses to read it

  @id:completion/validate-inputs @MUST @spec:server/utilities/completion.mdx#security
  Scenario: a completion request without the argument's value is refused
    Given an initialized session
    And the server declares the "completions" capability, where its revision has it
    And the server declares the "prompts" capability
    And the server lists a prompt with an argument
    When the client asks to complete the prompt's first argument without a value
    Then the server answers with an error, preferably -32602
