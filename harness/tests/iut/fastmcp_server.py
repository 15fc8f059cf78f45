"""A plain MCP server on FastMCP (PyPI package `fastmcp`), an implementation under test of
mcpspec's interop matrix: two tools, a prompt and a resource, with FastMCP's decorators.

`fastmcp_server.py` serves stdio; `fastmcp_server.py http PORT` serves Streamable HTTP on
127.0.0.1:PORT at /mcp (FastMCP's defaults otherwise: sessions, its Host/Origin guard)."""

import sys

from fastmcp import FastMCP

server = FastMCP("mcpspec-interop-fastmcp")


@server.tool
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool
def hello() -> str:
    """Say hello (no arguments)."""
    return "Hello from FastMCP."


@server.prompt
def greeting(name: str) -> str:
    """A greeting for someone."""
    return f"Say hello to {name}."


@server.resource("mcpspec://interop/motd", mime_type="text/plain")
def motd() -> str:
    """The message of the day."""
    return "Interop today."


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "http":
        server.run("http", host="127.0.0.1", port=int(sys.argv[2]), path="/mcp", show_banner=False)
    elif len(sys.argv) == 1:
        server.run(show_banner=False)
    else:
        sys.exit("usage: fastmcp_server.py [http PORT]")
