"""The size of `wf mcp`'s tool list as a client's model sees it: every tool's name,
description, input schema, output schema and annotations, as JSON, counted in tokens
with tiktoken's cl100k_base when it can load it (set TIKTOKEN_CACHE_DIR to a cache
holding the BPE file where there is no network), else estimated as characters / 4.

Arguments: WF_BINARY PROJECT_DIR. Prints `tokens N (how)` and `chars N`.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def count(text):
    try:
        import tiktoken

        return len(tiktoken.get_encoding("cl100k_base").encode(text)), "tiktoken cl100k_base"
    except Exception:
        return (len(text) + 3) // 4, "estimate: characters / 4"


async def main(binary, project):
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=project)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
    listed = [t.model_dump(mode="json", exclude_none=True, by_alias=True) for t in tools]
    text = json.dumps(listed, separators=(",", ":"))
    tokens, how = count(text)
    print(f"tools {len(listed)}")
    print(f"tokens {tokens} ({how})")
    print(f"chars {len(text)}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
