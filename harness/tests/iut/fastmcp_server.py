"""An MCP server on FastMCP (PyPI package `fastmcp`), an implementation under test of mcpspec's
interop matrix. It uses what FastMCP offers a server author, with its decorators: tools that log
(`ctx.info`) and report progress, tools that ask the client for a sampling, an elicitation or its
roots when the client declared them, a resource, a resource template, a prompt, and completions.

`fastmcp_server.py` serves stdio; `fastmcp_server.py http PORT` serves Streamable HTTP on
127.0.0.1:PORT at /mcp (FastMCP's defaults otherwise: sessions, its Host/Origin guard).
`fastmcp_protected_server.py` serves the same features behind FastMCP's JWT auth (`register`)."""

import sys
from dataclasses import dataclass

from fastmcp import Context, FastMCP
from mcp import types

NAMES = ["ada", "alan", "grace"]


@dataclass
class Answer:
    name: str


def register(server: FastMCP) -> FastMCP:
    """Gives `server` every feature of this implementation under test."""

    @server.tool
    def add(a: int, b: int) -> int:
        """Add two integers."""
        return a + b

    @server.tool
    def hello() -> str:
        """Say hello (no arguments)."""
        return "Hello from FastMCP."

    @server.tool
    async def count(n: int, ctx: Context) -> str:
        """Count to n (at most 3), logging and reporting progress on the way."""
        steps = max(1, min(n, 3))
        for i in range(steps):
            await ctx.info(f"step {i + 1} of {steps}")
            await ctx.report_progress(i + 1, steps, f"step {i + 1}")
        return f"counted to {steps}"

    @server.tool
    async def ask_model(question: str, ctx: Context) -> str:
        """Ask the client's model, when the client offers sampling."""
        caps = ctx.session.client_capabilities
        if caps is None or caps.sampling is None:
            return "the client offers no sampling"
        message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text=question))
        result = await ctx.session.create_message([message], max_tokens=50)
        return getattr(result.content, "text", "(no text)")

    @server.tool
    async def ask_user(ctx: Context) -> str:
        """Ask the user for a name, when the client offers form elicitation."""
        caps = ctx.session.client_capabilities
        elicitation = caps.elicitation if caps else None
        if elicitation is None or (elicitation.url is not None and elicitation.form is None):
            return "the client offers no form elicitation"
        result = await ctx.elicit("What is your name?", response_type=Answer)
        return f"{result.action}: {getattr(result, 'data', None)}"

    @server.tool
    async def roots(ctx: Context) -> str:
        """List the client's roots, when the client offers them."""
        caps = ctx.session.client_capabilities
        if caps is None or caps.roots is None:
            return "the client offers no roots"
        result = await ctx.session.list_roots()
        return ", ".join(str(r.uri) for r in result.roots) or "(none)"

    @server.prompt
    def greeting(name: str) -> str:
        """A greeting for someone."""
        return f"Say hello to {name}."

    @server.resource("mcpspec://interop/motd", mime_type="text/plain")
    def motd() -> str:
        """The message of the day."""
        return "Interop today."

    @server.resource("mcpspec://interop/greeting/{name}", mime_type="text/plain")
    def greeting_for(name: str) -> str:
        """A greeting for someone."""
        return f"Hello, {name}."

    def complete(ref, argument, context):
        prefix = argument.value or ""
        return [n for n in NAMES if n.startswith(prefix)]

    server.add_completion_handler(complete)
    return server


if __name__ == "__main__":
    server = register(FastMCP("mcpspec-interop-fastmcp"))
    if len(sys.argv) == 3 and sys.argv[1] == "http":
        server.run("http", host="127.0.0.1", port=int(sys.argv[2]), path="/mcp", show_banner=False)
    elif len(sys.argv) == 1:
        server.run(show_banner=False)
    else:
        sys.exit("usage: fastmcp_server.py [http PORT]")
