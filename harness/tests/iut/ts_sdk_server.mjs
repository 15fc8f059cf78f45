// A plain MCP server written on the official TypeScript SDK (npm `@modelcontextprotocol/sdk`,
// found at $MCPSPEC_TS_SDK), an implementation under test of mcpspec's interop matrix: McpServer
// declared with zod as the SDK's README does, using what the SDK offers a server author: tools
// that log and report progress, tools that ask the client for a sampling, an elicitation or its
// roots when the client declared them, a resource, a resource template and a prompt with
// completions.
//
// `ts_sdk_server.mjs` serves stdio; `ts_sdk_server.mjs http PORT` serves Streamable HTTP on
// 127.0.0.1:PORT at /mcp with the SDK's Express app (createMcpExpressApp) and one
// StreamableHTTPServerTransport per session, as the SDK documents it. `ts_sdk_protected_server.mjs`
// imports `newServer` and `serveHttp` and puts the SDK's bearer-auth middleware in front.
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const sdk = process.env.MCPSPEC_TS_SDK;
const load = (path) => import(pathToFileURL(`${sdk}/dist/esm/${path}`).href);
const { McpServer, ResourceTemplate } = await load("server/mcp.js");
const { completable } = await load("server/completable.js");
// zod is the SDK's own dependency: resolved from where the SDK is installed.
const { z } = await import(pathToFileURL(createRequire(`${sdk}/package.json`).resolve("zod")).href);

const NAMES = ["ada", "alan", "grace"];
const completeName = (value) => NAMES.filter((n) => n.startsWith(value ?? ""));
const text = (t) => ({ content: [{ type: "text", text: t }] });

/** One McpServer per session (the SDK binds a server to one transport). */
export function newServer(name = "mcpspec-interop-ts") {
  const server = new McpServer({ name, version: "0.0.0" }, { capabilities: { logging: {} } });
  const client = () => server.server.getClientCapabilities() ?? {};
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: { a: z.number(), b: z.number() } },
    async ({ a, b }) => text(String(a + b)),
  );
  server.registerTool("hello", { description: "Say hello (no arguments)" }, async () =>
    text("Hello from the TypeScript SDK server."),
  );
  server.registerTool(
    "count",
    { description: "Count to n (at most 3), logging and reporting progress", inputSchema: { n: z.number() } },
    async ({ n }, extra) => {
      const steps = Math.max(1, Math.min(n, 3));
      const token = extra._meta?.progressToken;
      for (let i = 1; i <= steps; i++) {
        await server.sendLoggingMessage({ level: "info", data: `step ${i} of ${steps}` }, extra.sessionId);
        if (token !== undefined) {
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: steps, message: `step ${i}` },
          });
        }
      }
      return text(`counted to ${steps}`);
    },
  );
  server.registerTool(
    "ask_model",
    { description: "Ask the client's model, when it offers sampling", inputSchema: { question: z.string() } },
    async ({ question }, extra) => {
      if (!client().sampling) return text("the client offers no sampling");
      const result = await server.server.createMessage(
        { messages: [{ role: "user", content: { type: "text", text: question } }], maxTokens: 50 },
        { relatedRequestId: extra.requestId },
      );
      return text(result.content?.text ?? "(no text)");
    },
  );
  server.registerTool("ask_user", { description: "Ask the user for a name, when the client offers a form" }, async (extra) => {
    const elicitation = client().elicitation;
    // `{}` declares form mode; a client that names only `url` offers no form.
    if (!elicitation || (elicitation.url && !elicitation.form)) return text("the client offers no form elicitation");
    const result = await server.server.elicitInput(
      {
        message: "What is your name?",
        requestedSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
      },
      { relatedRequestId: extra.requestId },
    );
    return text(`${result.action}: ${JSON.stringify(result.content ?? null)}`);
  });
  server.registerTool("roots", { description: "List the client's roots, when it offers them" }, async (extra) => {
    if (!client().roots) return text("the client offers no roots");
    const result = await server.server.listRoots(undefined, { relatedRequestId: extra.requestId });
    return text(result.roots.map((r) => r.uri).join(", ") || "(none)");
  });
  server.registerPrompt(
    "greeting",
    { description: "A greeting for someone", argsSchema: { name: completable(z.string(), completeName) } },
    ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Say hello to ${name}.` } }] }),
  );
  server.registerResource(
    "motd",
    "mcpspec://interop/motd",
    { description: "The message of the day", mimeType: "text/plain" },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: "Interop today." }] }),
  );
  server.registerResource(
    "greeting-for",
    new ResourceTemplate("mcpspec://interop/greeting/{name}", { list: undefined, complete: { name: completeName } }),
    { description: "A greeting for someone", mimeType: "text/plain" },
    async (uri, { name }) => ({ contents: [{ uri: uri.href, mimeType: "text/plain", text: `Hello, ${name}.` }] }),
  );
  return server;
}

/**
 * Serves Streamable HTTP on 127.0.0.1:`port` at /mcp, a session per McpServer, with `guard`
 * (Express middleware, say the SDK's bearer auth) in front of every /mcp route; `setup` sees the
 * app first (to mount the SDK's metadata router).
 */
export async function serveHttp(port, { guard = (_req, _res, next) => next(), setup = () => {}, name } = {}) {
  const { StreamableHTTPServerTransport } = await load("server/streamableHttp.js");
  const { createMcpExpressApp } = await load("server/express.js");
  const { isInitializeRequest } = await load("types.js");
  const app = createMcpExpressApp();
  setup(app);
  const sessions = new Map();
  app.post("/mcp", guard, async (req, res) => {
    const id = req.headers["mcp-session-id"];
    let transport = id === undefined ? undefined : sessions.get(id);
    if (transport === undefined && id === undefined && isInitializeRequest(req.body)) {
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, transport),
      });
      transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
      await newServer(name).connect(transport);
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
  app.get("/mcp", guard, existing);
  app.delete("/mcp", guard, existing);
  app.listen(Number(port), "127.0.0.1");
}

// Run as a script (not imported by the protected server).
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [mode, port] = process.argv.slice(2);
  if (mode === undefined) {
    const { StdioServerTransport } = await load("server/stdio.js");
    await newServer().connect(new StdioServerTransport());
  } else if (mode === "http" && port) {
    await serveHttp(port);
  } else {
    console.error("usage: ts_sdk_server.mjs [http PORT]");
    process.exit(2);
  }
}
