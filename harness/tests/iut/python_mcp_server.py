"""An MCP server written on the official Python SDK (PyPI package `mcp`, 2.x), used as a
third-party implementation under test by mcpspec's interoperability tests. It uses what the
SDK offers a server author, as its documentation shows: tools that log (`ctx.info`), report
progress, and ask the client for a sampling, an elicitation or its roots when
the client declared them; a resource, a resource template and a prompt with completions; and
an extension (SEP-2133: `com.example.mcpspec/greeting`, advertised under
`capabilities.extensions`, contributing a tool).

`python_mcp_server.py` serves stdio; `python_mcp_server.py streamable-http PORT` (or `sse PORT`)
serves HTTP on 127.0.0.1:PORT, at /mcp (or /sse). `python_mcp_protected_server.py` serves the
same features behind the SDK's OAuth resource server (`register`)."""

import sys

from pydantic import BaseModel

from mcp import types
from mcp.server.extension import Extension, ToolBinding
from mcp.server.mcpserver import Context, MCPServer

class Answer(BaseModel):
    name: str


NAMES = ["ada", "alan", "grace"]


def register(server: MCPServer) -> MCPServer:
    """Gives `server` every feature of this implementation under test."""

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    async def count(n: int, ctx: Context) -> str:
        """Count to n (at most 3), logging and reporting progress on the way."""
        steps = max(1, min(n, 3))
        for i in range(steps):
            await ctx.info(f"step {i + 1} of {steps}")
            await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        return f"counted to {steps}"

    @server.tool()
    async def ask_model(question: str, ctx: Context) -> str:
        """Ask the client's model, when the client offers sampling."""
        caps = ctx.client_capabilities
        if caps is None or caps.sampling is None:
            return "the client offers no sampling"
        message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))
        result = await ctx.session.create_message([message], max_tokens=50, related_request_id=ctx.request_id)
        return getattr(result.content, "text", "(no text)")

    @server.tool()
    async def ask_user(ctx: Context) -> str:
        """Ask the user for a name, when the client offers elicitation."""
        caps = ctx.client_capabilities
        elicitation = caps.elicitation if caps else None
        # `{}` declares form mode; a client that names only `url` offers no form.
        if elicitation is None or (elicitation.url is not None and elicitation.form is None):
            return "the client offers no form elicitation"
        result = await ctx.elicit("What is your name?", Answer)
        return f"{result.action}: {getattr(result, 'data', None)}"

    @server.tool()
    async def roots(ctx: Context) -> str:
        """List the client's roots, when the client offers them."""
        caps = ctx.client_capabilities
        if caps is None or caps.roots is None:
            return "the client offers no roots"
        result = await ctx.session.list_roots()
        return ", ".join(str(r.uri) for r in result.roots) or "(none)"

    @server.resource("mcpspec://interop/motd", mime_type="text/plain")
    def motd() -> str:
        """The message of the day."""
        return "Interop today."

    @server.resource("mcpspec://interop/greeting/{name}", mime_type="text/plain")
    def greeting_for(name: str) -> str:
        """A greeting for someone."""
        return f"Hello, {name}."

    @server.prompt()
    def greet(name: str) -> str:
        """A greeting prompt."""
        return f"Say hello to {name}."

    @server.completion()
    async def complete(ref, argument, context):
        prefix = argument.value or ""
        return types.Completion(values=[n for n in NAMES if n.startswith(prefix)])

    return server


def greet(name: str) -> str:
    """Greet someone by name (the greeting extension's tool)."""
    return f"Hello, {name}!"


class Greeting(Extension):
    """An additive extension, as the SDK's documentation shows one: a tool and its settings."""

    identifier = "com.example.mcpspec/greeting"

    def settings(self):
        return {"language": "en"}

    def tools(self):
        return (ToolBinding(fn=greet),)


if __name__ == "__main__":
    server = register(MCPServer("mcpspec-interop-python", extensions=[Greeting()]))
    if len(sys.argv) == 3:
        server.run(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
