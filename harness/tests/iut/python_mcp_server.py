"""A plain MCP server written on the official Python SDK (PyPI package `mcp`, 2.x), used as a
third-party implementation under test by mcpspec's interoperability tests."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("mcpspec-interop-python")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


if __name__ == "__main__":
    server.run()
