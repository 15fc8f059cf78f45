// A plain MCP client on the official TypeScript SDK (npm `@modelcontextprotocol/sdk`, found at
// $MCPSPEC_TS_SDK), used as a third-party client under test over HTTP: it connects to the URL
// in its last argument (mcpspec's scenario server) with StreamableHTTPClientTransport, or with
// SSEClientTransport when MCPSPEC_TS_TRANSPORT=sse; initializes, lists the tools page by page
// (when the server declares tools), calls the first tool that needs no arguments, ends the
// session with DELETE (Streamable HTTP) and exits. Sampling gets a fixed text reply;
// elicitations are declined.
import { pathToFileURL } from "node:url";

const sdk = process.env.MCPSPEC_TS_SDK;
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const { Client } = await load("client/index.js");
const { CreateMessageRequestSchema, ElicitRequestSchema } = await load("types.js");

const url = new URL(process.argv[process.argv.length - 1]);
const sse = process.env.MCPSPEC_TS_TRANSPORT === "sse";
const transport = sse
  ? new (await load("client/sse.js")).SSEClientTransport(url)
  : new (await load("client/streamableHttp.js")).StreamableHTTPClientTransport(url);
const client = new Client(
  { name: "mcpspec-interop-ts-http", version: "0.0.0" },
  { capabilities: { sampling: {}, elicitation: { form: {} } } },
);
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant",
  content: { type: "text", text: "Hello from the TypeScript SDK client over HTTP." },
  model: "mcpspec-interop",
  stopReason: "endTurn",
}));
client.setRequestHandler(ElicitRequestSchema, async () => ({ action: "decline" }));

// Every wait is bounded: the whole run may take 30 s at most.
const deadline = setTimeout(() => {
  console.error("ts-sdk-http-client: gave up after 30 s");
  process.exit(3);
}, 30_000);

try {
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
  if (!sse) await transport.terminateSession();
  await client.close();
  clearTimeout(deadline);
} catch (e) {
  console.error(`ts-sdk-http-client: ${e?.stack ?? e}`);
  clearTimeout(deadline);
  process.exit(1);
}
