"""A plain MCP client on FastMCP (PyPI package `fastmcp`), an implementation under test of
mcpspec's interop matrix, on the contract of `mcpspec client`: over stdio it spawns the server
named by MCP_CONFORMANCE_SERVER_COMMAND (a JSON array); given a URL as its last argument it
speaks Streamable HTTP to it. FastMCP's Client connects in its default mode ("auto": it probes
with server/discover and falls back to initialize), lists the tools when the server declares
them, calls the first tool that needs no arguments, and closes. Sampling gets a fixed text
reply, elicitations are declined, and it offers one root."""

import asyncio
import json
import os
import sys

from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport


async def sample(messages, params, context) -> str:
    """The application's model: a fixed text reply."""
    return "Hello from the FastMCP client."


async def elicit(message, response_type, params, context):
    """The user says no."""
    return ElicitResult(action="decline")


async def main() -> None:
    if len(sys.argv) > 1 and sys.argv[-1].startswith("http://"):
        target = sys.argv[-1]
    else:
        argv = json.loads(os.environ["MCP_CONFORMANCE_SERVER_COMMAND"])
        target = StdioTransport(command=argv[0], args=argv[1:])
    client = Client(
        target,
        roots=["file:///tmp/mcpspec/fastmcp-client"],
        sampling_handler=sample,
        elicitation_handler=elicit,
        timeout=20,
    )
    async with client:
        capabilities = client.initialize_result.capabilities if client.initialize_result else None
        if capabilities is not None and capabilities.tools is None:
            return
        tools = await client.list_tools()
        for tool in tools:
            if not (tool.inputSchema or {}).get("required"):
                await client.call_tool(tool.name, {})
                break


if __name__ == "__main__":
    # Every wait bounded: the whole run gets 30 s.
    asyncio.run(asyncio.wait_for(main(), 30))
