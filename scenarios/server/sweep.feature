@sweep
Feature: Sweep
  Behaviour that only a server's own tools, prompts and resources trigger (sampling, elicitation,
  roots, progress, logging, subscriptions) is judged without fixture names: the client calls
  every advertised tool once with arguments generated from its inputSchema, under several client
  personas, gets every prompt, reads every resource and one URI per template, and asks for every
  completion; the calls of the client that declares nothing carry no progress token (a server
  must report progress only for a request that asked for it), the others carry one (so progress
  rules get judged). It expects nothing of the output: the session rules (capability gating, tool-use
  balance, progress, cancellation, schema) judge every message the server sends meanwhile, and
  the persona answers the server's requests as in the scripted scenarios. A list a tool call
  changed must have been announced by a server that declared listChanged. Each request must be
  answered; one unanswered within the timeout is cancelled and reported as inconclusive. Tools
  whose annotations say destructiveHint: true are not called unless --sweep-destructive;
  --no-sweep leaves this feature out.

  @id:sweep/tools @slow @MUST @spec:basic/index.mdx#responses
  Scenario Outline: every tool is called by a client declaring <persona>
    Given an initialized session declaring the client capabilities
      """
      <capabilities>
      """
    And the server declares the "tools" capability
    When the client calls every tool <how>
    Then every request of the sweep is answered
    And every list the calls changed was announced

    Examples:
      | persona      | capabilities                      | how                                            |
      | nothing      | {}                                | with generated arguments and no progress token |
      | sampling     | {"sampling": {}}                  | with generated arguments                       |
      | roots        | {"roots": {"listChanged": true}}  | with generated arguments                       |

    @since:2025-06-18
    Examples:
      | persona      | capabilities                      | how                      |
      | elicitation  | {"elicitation": {}}               | with generated arguments |

    @since:2025-11-25
    Examples:
      | persona         | capabilities                              | how                      |
      | sampling-tools  | {"sampling": {"tools": {}}}               | with generated arguments |
      | elicitation-url | {"elicitation": {"url": {}}}              | with generated arguments |

  @id:sweep/tools-declining @slow @MUST @spec:basic/index.mdx#responses @since:2025-06-18
  Scenario: every tool is called by a client whose user declines every elicitation
    Given an initialized session declaring the client capabilities
      """
      {"elicitation": {}}
      """
    And the server declares the "tools" capability
    And the client declines every elicitation
    When the client calls every tool with generated arguments
    Then every request of the sweep is answered
    And every list the calls changed was announced

  @id:sweep/prompts @MUST @spec:basic/index.mdx#responses
  Scenario: every prompt is got with generated arguments
    Given an initialized session
    And the server declares the "prompts" capability
    When the client gets every prompt with generated arguments
    Then every request of the sweep is answered

  @id:sweep/resources @MUST @spec:basic/index.mdx#responses
  Scenario: every resource is read, one URI per template too, and one is subscribed to
    Given an initialized session
    And the server declares the "resources" capability
    When the client reads every resource and one URI per template
    Then every request of the sweep is answered

  @id:sweep/completions @MUST @spec:basic/index.mdx#responses @since:2025-03-26
  Scenario: every prompt argument and template variable is completed
    Given an initialized session
    And the server declares the "completions" capability
    When the client asks to complete every prompt argument and template variable
    Then every request of the sweep is answered
