"""A plain MCP client written on the official Python SDK (PyPI package `mcp`, 2.x), used as a
third-party client under test by mcpspec's client suite: it spawns the server named by
MCP_CONFORMANCE_SERVER_COMMAND (a JSON array), initializes, lists the tools page by page (when
the server declares tools), calls the first tool that needs no arguments, and exits. It answers
sampling with a fixed text reply (declaring sampling.tools) and accepts elicitations, filling
forms with defaults or examples."""

import asyncio
import json
import os

import anyio

from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client


async def sample(context, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
    """The application's model: a fixed text reply, never a tool use."""
    return types.CreateMessageResult(
        role="assistant",
        content=types.TextContent(type="text", text="Hello from the Python SDK client."),
        model="mcpspec-interop",
        stop_reason="endTurn",
    )


def example(schema: dict) -> object:
    """A value for one property of a requested schema: its default, else the first choice or
    the smallest value the schema allows."""
    if "default" in schema:
        return schema["default"]
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return schema.get("minimum", 0)
    if schema.get("format") == "email":
        return "user@example.com"
    return "x" * max(1, schema.get("minLength", 1))


async def elicit(context, params: types.ElicitRequestParams) -> types.ElicitResult:
    """The user: accepts, filling every field of a form with its default or an example."""
    schema = getattr(params, "requested_schema", None)
    if schema is None:
        return types.ElicitResult(action="accept")
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return types.ElicitResult(action="accept", content={k: example(v) for k, v in properties.items()})


async def roots(context) -> types.ListRootsResult:
    """The workspace: one root."""
    return types.ListRootsResult(roots=[types.Root(uri="file:///tmp/mcpspec/python-client", name="work")])


# The tool each MRTR scenario of the modern era asks a client to call (mcpspec's contract:
# the scenario's name in MCP_CONFORMANCE_SCENARIO).
SCENARIO_TOOLS = {
    "client-modern/mrtr-elicitation": "test_elicitation",
    "client-modern/mrtr-sampling": "test_sampling",
    "client-modern/mrtr-roots": "test_roots",
    "client-modern/mrtr-multiple-inputs": "test_mrtr_multiple_inputs",
    "client-modern/mrtr-multi-round": "test_mrtr_multi_round",
    "client-modern/mrtr-no-request-state": "test_elicitation",
}


async def modern(params: StdioServerParameters) -> None:
    """The modern era (2026-07-28): the SDK's high-level Client probes with server/discover
    (mode "auto"), stamps _meta on every request, drives MRTR rounds through the callbacks and
    caches results by their ttlMs."""
    from mcp import Client

    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    async with Client(
        params,
        sampling_callback=sample,
        sampling_capabilities=types.SamplingCapability(tools=types.SamplingToolsCapability()),
        elicitation_callback=elicit,
        list_roots_callback=roots,
    ) as client:
        if client.server_capabilities.tools is None:
            return
        tools = []
        cursor = None
        while True:
            page = await client.list_tools(cursor=cursor)
            tools.extend(page.tools)
            cursor = page.next_cursor
            # An empty string is a cursor too (pagination.mdx#implementation-guidelines).
            if cursor is None:
                break
        if scenario == "client-modern/caching":
            # The scenario's client needs the list again: the SDK's cache answers while fresh.
            await client.list_tools()
        wanted = SCENARIO_TOOLS.get(scenario)
        for tool in tools:
            if tool.name == wanted or (wanted is None and not (tool.input_schema or {}).get("required")):
                await client.call_tool(tool.name, {})
                break


async def main() -> None:
    argv = json.loads(os.environ["MCP_CONFORMANCE_SERVER_COMMAND"])
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    if os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "") >= "2026-07-28":
        await modern(params)
        return
    async with stdio_client(params) as (read, write):
        async with ClientSession(
            read,
            write,
            sampling_callback=sample,
            elicitation_callback=elicit,
            sampling_capabilities=types.SamplingCapability(tools=types.SamplingToolsCapability()),
        ) as session:
            init = await session.initialize()
            # Only what the server declared (lifecycle.mdx#operation).
            if init.capabilities.tools is None:
                return
            tools = []
            cursor = None
            while True:
                page_params = types.PaginatedRequestParams(cursor=cursor) if cursor is not None else None
                page = await session.list_tools(params=page_params)
                tools.extend(page.tools)
                cursor = page.next_cursor
                # An empty string is a cursor too (pagination.mdx#implementation-guidelines).
                if cursor is None:
                    break
            for tool in tools:
                if not (tool.input_schema or {}).get("required"):
                    if os.environ.get("MCP_CONFORMANCE_SCENARIO") == "client-cancellation/late-response":
                        # The scenario asks the client to cancel its call: give up after 200 ms
                        # (the SDK then sends notifications/cancelled), and wait for the late
                        # response before closing.
                        with anyio.move_on_after(0.2):
                            await session.call_tool(tool.name, {})
                        await anyio.sleep(0.5)
                    else:
                        await session.call_tool(tool.name, {})
                    break


if __name__ == "__main__":
    asyncio.run(main())
