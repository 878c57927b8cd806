"""The Python MCP SDK against a registry MCP endpoint: lists the tools and calls one, in the era asked for.

Usage: python-client.py URL KEY ERA(initialize|discover) TOOL ARGUMENTS_JSON [RESOURCE_URI]
Prints one JSON object: the negotiated protocol version, the tool names, the call's result and, when a resource URI
is given, what reading it returned.
"""

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


async def main(url: str, key: str, era: str, tool: str, arguments: str, resource: str | None = None) -> None:
    async with create_mcp_http_client(headers={"Authorization": f"Bearer {key}"}) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                if era == "discover":
                    await session.discover()
                else:
                    await session.initialize()
                tools = await session.list_tools()
                result = await session.call_tool(tool, json.loads(arguments))
                out = {
                    "protocolVersion": session.protocol_version,
                    "tools": sorted(t.name for t in tools.tools),
                    "result": result.model_dump(mode="json", by_alias=True, exclude_none=True),
                }
                if resource:
                    read = await session.read_resource(resource)
                    out["resource"] = read.model_dump(mode="json", by_alias=True, exclude_none=True)
                print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:7]))
