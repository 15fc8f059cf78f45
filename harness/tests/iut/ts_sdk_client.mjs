// A plain MCP client written on the official TypeScript SDK (npm `@modelcontextprotocol/sdk`,
// found at $MCPSPEC_TS_SDK), used as a third-party client under test by mcpspec's client
// suite: it spawns the server named by MCP_CONFORMANCE_SERVER_COMMAND (a JSON array) over
// stdio, initializes, lists the tools page by page (when the server declares tools), calls the first tool that needs no
// arguments, and closes.
import { pathToFileURL } from "node:url";

const sdk = process.env.MCPSPEC_TS_SDK;
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");

const argv = JSON.parse(process.env.MCP_CONFORMANCE_SERVER_COMMAND);
const transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1) });
const client = new Client({ name: "mcpspec-interop-ts", version: "0.0.0" });
await client.connect(transport);
// Only what the server declared (lifecycle.mdx#operation).
if (!client.getServerCapabilities()?.tools) {
  await client.close();
  process.exit(0);
}
const tools = [];
let cursor;
do {
  const page = await client.listTools(cursor ? { cursor } : undefined);
  tools.push(...page.tools);
  cursor = page.nextCursor;
} while (cursor);
const tool = tools.find((t) => !(t.inputSchema?.required?.length));
if (tool && process.env.MCP_CONFORMANCE_SCENARIO === "client-cancellation/late-response") {
  // The scenario asks the client to cancel its call: abort it if it takes more than 200 ms (the
  // SDK then sends notifications/cancelled).
  await client
    .callTool({ name: tool.name, arguments: {} }, undefined, { signal: AbortSignal.timeout(200) })
    .catch(() => {});
  // Give the late response time to arrive before closing.
  await new Promise((resolve) => setTimeout(resolve, 500));
} else if (tool) {
  await client.callTool({ name: tool.name, arguments: {} });
}
await client.close();
