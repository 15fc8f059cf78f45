"""A plain MCP server written on the official Python SDK (PyPI package `mcp`, 2.x), used as a
third-party implementation under test by mcpspec's interoperability tests.

`python_mcp_server.py` serves stdio; `python_mcp_server.py streamable-http PORT` (or `sse PORT`)
serves HTTP on 127.0.0.1:PORT, at /mcp (or /sse)."""

import sys

from mcp.server.mcpserver import MCPServer

server = MCPServer("mcpspec-interop-python")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    if len(sys.argv) == 3:
        server.run(sys.argv[1], host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()
