Feature: Sampling
  A client that declares the sampling capability answers sampling/createMessage with the
  message its model produced (role, content, model; schema-checked at the negotiated revision),
  or with error -1 when the user rejects the request.

  @id:client-sampling/create-message @MUST @spec:client/sampling.mdx#creating-messages
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
