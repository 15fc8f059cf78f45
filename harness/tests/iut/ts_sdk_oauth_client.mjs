// An OAuth MCP client on the official TypeScript SDK (npm `@modelcontextprotocol/sdk`, found at
// $MCPSPEC_TS_SDK), used as a third-party client under test over Streamable HTTP: the SDK's
// StreamableHTTPClientTransport with an OAuthClientProvider, so that the SDK's own `auth()` does
// the flow (protected resource metadata from the challenge or the well-known URLs, authorization
// server discovery, dynamic registration, PKCE, `resource`, scope selection, the step-up on 403
// insufficient_scope). What the SDK leaves to the application is done here, as an application
// would: the authorization URL is fetched without following the redirect (headless, as the
// official conformance suite's clients do), its `state` checked against the provider's, and the
// code handed to `transport.finishAuth`. Pre-registered credentials come from
// MCP_CONFORMANCE_CONTEXT (`client_id`, `client_secret`), as the official suite passes them.
// Then it initializes, lists the tools, calls the first one that needs no arguments and exits.
// Secrets are never printed.
import { pathToFileURL } from "node:url";
import { randomBytes } from "node:crypto";

const sdk = process.env.MCPSPEC_TS_SDK;
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const { Client } = await load("client/index.js");
const { StreamableHTTPClientTransport } = await load("client/streamableHttp.js");
const { UnauthorizedError } = await load("client/auth.js");
const { CreateMessageRequestSchema, ElicitRequestSchema } = await load("types.js");

const url = new URL(process.argv[process.argv.length - 1]);
let context = {};
try {
  context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") ?? {};
} catch {
  context = {};
}

// Every wait is bounded: the whole run may take 30 s at most.
const deadline = setTimeout(() => {
  console.error("ts-sdk-oauth-client: gave up after 30 s");
  process.exit(3);
}, 30_000);

/** Keeps everything in memory; the authorization "browser" is a fetch that does not follow. */
class HeadlessProvider {
  constructor() {
    this._client = context.client_id
      ? { client_id: context.client_id, client_secret: context.client_secret }
      : undefined;
    this._tokens = undefined;
    this._verifier = undefined;
    this._state = undefined;
    this.code = undefined;
  }
  get redirectUrl() {
    return "http://127.0.0.1:33419/callback";
  }
  // The client ID metadata document the client names itself by where the authorization server
  // takes one (nothing is hosted there: `.invalid` is reserved).
  get clientMetadataUrl() {
    return "https://mcpspec-interop.invalid/ts-sdk-oauth-client.json";
  }
  get clientMetadata() {
    return {
      client_name: "mcpspec-interop-ts-oauth",
      redirect_uris: [this.redirectUrl],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      application_type: "native",
    };
  }
  state() {
    this._state = randomBytes(16).toString("base64url");
    return this._state;
  }
  clientInformation() {
    return this._client;
  }
  saveClientInformation(info) {
    this._client = info;
  }
  tokens() {
    return this._tokens;
  }
  saveTokens(tokens) {
    this._tokens = tokens;
  }
  saveCodeVerifier(v) {
    this._verifier = v;
  }
  codeVerifier() {
    return this._verifier;
  }
  invalidateCredentials(scope) {
    if (scope === "all" || scope === "tokens") this._tokens = undefined;
    if (scope === "all" || scope === "client") this._client = undefined;
    if (scope === "all" || scope === "verifier") this._verifier = undefined;
  }
  async redirectToAuthorization(authorizationUrl) {
    const r = await fetch(authorizationUrl, { redirect: "manual", signal: AbortSignal.timeout(10_000) });
    const location = r.headers.get("location");
    if (!location) throw new Error(`the authorization endpoint answered ${r.status} without a redirect`);
    const back = new URL(location);
    if (back.searchParams.get("state") !== this._state) throw new Error("the authorization response's state does not match");
    if (back.searchParams.get("error")) throw new Error(`authorization refused: ${back.searchParams.get("error")}`);
    this.code = back.searchParams.get("code") ?? undefined;
  }
}

const provider = new HeadlessProvider();

function newClient() {
  const client = new Client(
    { name: "mcpspec-interop-ts-oauth", version: "0.0.0" },
    { capabilities: { sampling: {}, elicitation: { form: {} } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({
    role: "assistant",
    content: { type: "text", text: "Hello from the TypeScript SDK OAuth client." },
    model: "mcpspec-interop",
    stopReason: "endTurn",
  }));
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));
  return client;
}

/** One session: initialize, the tools page by page, one call, DELETE. */
async function session(client, transport) {
  await client.connect(transport);
  if (client.getServerCapabilities()?.tools) {
    const tools = [];
    let cursor;
    for (let page = 0; page < 100; page++) {
      const result = await client.listTools(cursor ? { cursor } : {});
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    const tool = tools.find((t) => !(t.inputSchema?.required?.length));
    if (tool) await client.callTool({ name: tool.name, arguments: {} });
  }
  await transport.terminateSession();
  await client.close();
}

try {
  // An UnauthorizedError means the SDK sent the user to authorize: the code is redeemed and the
  // session starts again, a bounded number of times (a step-up may need a second round).
  for (let attempt = 0; ; attempt++) {
    const transport = new StreamableHTTPClientTransport(url, { authProvider: provider });
    const client = newClient();
    try {
      await session(client, transport);
      break;
    } catch (e) {
      const code = provider.code;
      provider.code = undefined;
      if (!(e instanceof UnauthorizedError) || !code || attempt >= 3) throw e;
      await client.close().catch(() => {});
      await transport.finishAuth(code);
    }
  }
  clearTimeout(deadline);
} catch (e) {
  console.error(`ts-sdk-oauth-client: ${e?.message ?? e}`);
  clearTimeout(deadline);
  process.exit(1);
}
