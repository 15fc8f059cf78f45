// A plain MCP client written on the official TypeScript SDK (npm `@modelcontextprotocol/sdk`,
// found at $MCPSPEC_TS_SDK), used as a third-party client under test by mcpspec's client
// suite: it spawns the server named by MCP_CONFORMANCE_SERVER_COMMAND (a JSON array) over
// stdio, initializes, lists the tools page by page (when the server declares tools), calls the
// first tool that needs no arguments (or, in a client-tasks/… scenario, calls tools as tasks
// with the SDK's experimental tasks API), and closes. It answers sampling with a fixed text reply
// (declaring sampling.tools) and accepts elicitations.
import { pathToFileURL } from "node:url";

const sdk = process.env.MCPSPEC_TS_SDK;
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const { Client } = await load("client/index.js");
const { StdioClientTransport } = await load("client/stdio.js");
const { CreateMessageRequestSchema, ElicitRequestSchema } = await load("types.js");

const argv = JSON.parse(process.env.MCP_CONFORMANCE_SERVER_COMMAND);
const transport = new StdioClientTransport({ command: argv[0], args: argv.slice(1) });
const client = new Client(
  { name: "mcpspec-interop-ts", version: "0.0.0" },
  { capabilities: { sampling: { tools: {} }, elicitation: { form: { applyDefaults: true }, url: {} } } },
);
// The application's model: a fixed text reply, never a tool use.
client.setRequestHandler(CreateMessageRequestSchema, async () => ({
  role: "assistant",
  content: { type: "text", text: "Hello from the TypeScript SDK client." },
  model: "mcpspec-interop",
  stopReason: "endTurn",
}));
// The user: accepts, filling each form field that has no default with an example (the SDK
// applies the defaults).
const example = (s) =>
  s.enum?.[0] ??
  (s.type === "boolean" ? false
    : s.type === "integer" || s.type === "number" ? (s.minimum ?? 0)
    : s.format === "email" ? "user@example.com"
    : "x".repeat(Math.max(1, s.minLength ?? 1)));
client.setRequestHandler(ElicitRequestSchema, async (request) => {
  const properties = request.params.requestedSchema?.properties;
  if (!properties) return { action: "accept" };
  const content = {};
  for (const [name, s] of Object.entries(properties)) if (!("default" in s)) content[name] = example(s);
  return { action: "accept", content };
});
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
const scenario = process.env.MCP_CONFORMANCE_SCENARIO ?? "";
const named = (name) => tools.find((t) => t.name === name);
// The SDK's experimental tasks (2025-11-25), where a client-tasks/… scenario asks for them: the
// tool that runs only as a task, followed to its result; `slow` as a task, cancelled once
// created (client-tasks/cancel); eleven of them, then every page of tasks/list
// (client-tasks/list-cursor).
const tasks = client.experimental?.tasks;
const startTask = async (name, args) => {
  for await (const m of tasks.callToolStream({ name, arguments: args }, undefined, { task: { ttl: 60000 } })) {
    if (m.type === "taskCreated") return m.task.taskId;
    if (m.type === "result" || m.type === "error") return undefined;
  }
};
if (tasks && scenario === "client-tasks/cancel" && named("slow")) {
  const id = await startTask("slow", { ms: 5000 });
  if (id) await tasks.cancelTask(id);
} else if (tasks && scenario === "client-tasks/list-cursor" && named("slow")) {
  for (let i = 0; i < 11; i++) await startTask("slow", { ms: 50 });
  let next;
  do {
    const page = await tasks.listTasks(next);
    next = page.nextCursor;
  } while (next);
} else if (tasks && scenario.startsWith("client-tasks/") && named("test_task_required")) {
  for await (const m of tasks.callToolStream({ name: "test_task_required", arguments: {} })) {
    if (m.type === "result" || m.type === "error") break;
  }
} else if (tool && scenario === "client-cancellation/late-response") {
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
