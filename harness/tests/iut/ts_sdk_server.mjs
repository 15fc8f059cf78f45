// A plain MCP server written on the official TypeScript SDK (npm `@modelcontextprotocol/sdk`,
// found at $MCPSPEC_TS_SDK), an implementation under test of mcpspec's interop matrix: McpServer
// with two tools, a prompt and a resource, declared with zod as the SDK's README does.
//
// `ts_sdk_server.mjs` serves stdio; `ts_sdk_server.mjs http PORT` serves Streamable HTTP on
// 127.0.0.1:PORT at /mcp with the SDK's Express app (createMcpExpressApp) and one
// StreamableHTTPServerTransport per session, as the SDK documents it.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const sdk = process.env.MCPSPEC_TS_SDK;
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const { McpServer } = await load("server/mcp.js");
// zod is the SDK's own dependency: resolved from where the SDK is installed.
const { z } = await import(pathToFileURL(createRequire(`${sdk}/package.json`).resolve("zod")).href);

/** One McpServer per session (the SDK binds a server to one transport). */
function newServer() {
  const server = new McpServer({ name: "mcpspec-interop-ts", version: "0.0.0" });
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool("hello", { description: "Say hello (no arguments)" }, async () => ({
    content: [{ type: "text", text: "Hello from the TypeScript SDK server." }],
  }));
  server.registerPrompt(
    "greeting",
    { description: "A greeting for someone", argsSchema: { name: z.string() } },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }] }),
  );
  server.registerResource(
    "motd",
    "mcpspec://interop/motd",
    { description: "The message of the day", mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "Interop today." }] }),
  );
  return server;
}

const [mode, port] = process.argv.slice(2);
if (mode === undefined) {
  const { StdioServerTransport } = await load("server/stdio.js");
  await newServer().connect(new StdioServerTransport());
} else if (mode === "http" && port) {
  const { StreamableHTTPServerTransport } = await load("server/streamableHttp.js");
  const { createMcpExpressApp } = await load("server/express.js");
  const { isInitializeRequest } = await load("types.js");
  const app = createMcpExpressApp();
  const sessions = new Map();
  app.post("/mcp", async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined && id === undefined && isInitializeRequest(req.body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await newServer().connect(transport);
    }
    if (transport === undefined) {
      // basic/transports.mdx#session-management: an unknown (or ended) session is 404, a
      // request without one (other than initialize) is 400.
      const status = id === undefined ? 400 : 404;
      res.status(status).json({ jsonrpc: "2.0", error: { code: -32000, message: "No valid session" }, id: null });
      return;
    }
    await transport.handleRequest(req, res, req.body);
  });
  const existing = async (req, res) => {
    const transport = sessions.get(req.headers["mcp-session-id"]);
    if (transport === undefined) {
      res.status(req.headers["mcp-session-id"] === undefined ? 400 : 404).end();
      return;
    }
    await transport.handleRequest(req, res);
  };
  app.get("/mcp", existing);
  app.delete("/mcp", existing);
  app.listen(Number(port), "127.0.0.1");
} else {
  console.error("usage: ts_sdk_server.mjs [http PORT]");
  process.exit(2);
}
