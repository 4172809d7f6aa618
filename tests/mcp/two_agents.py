"""Two MCP clients of another implementation (the Python `mcp` SDK), each with its own
`wf mcp` server, working one spec-kit plan at once (src/agent/parallel.rs). Run by
tests/integration/mcp.rs, which sets up the project (a git repository with
`wf.agents.worktrees: true`) and the plan:

    T001           create base.txt
    T002 [P]       create a.txt, add "a" to shared.txt
    T003 [P]       create b.txt, add "b" to shared.txt
    T004           join them in all.txt

Each agent gets a different task, each in its own worktree; the second branch to come
back conflicts in shared.txt, is returned to its agent with the file named, settled
there, and merged. Arguments: WF_BINARY PROJECT_DIR. The environment carries WF_HOME,
WF_NOW, WF_SERVER_HOME and git's identity. Prints one line per step; any failed
expectation exits non-zero with what was seen.
"""

import asyncio
import json
import os
import subprocess
import sys
from contextlib import AsyncExitStack

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def expect(cond, what, seen):
    if not cond:
        sys.exit(f"FAILED: {what}\nseen: {json.dumps(seen, indent=2, default=str)}")
    print(f"ok: {what}")


def write(dir, name, text):
    with open(os.path.join(dir, name), "w") as f:
        f.write(text)


async def client(stack, binary, project):
    keep = ("WF_HOME", "WF_NOW", "PATH", "HOME", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL",
            "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_CONFIG_GLOBAL")
    env = {k: os.environ[k] for k in keep if k in os.environ}
    if "WF_SERVER_HOME" in os.environ:
        env["HOME"] = os.environ["WF_SERVER_HOME"]
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=project, env=env)
    read, write_ = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(read, write_))
    await session.initialize()
    return session


async def call(session, tool, args=None):
    result = await session.call_tool(tool, args or {})
    return result.structured_content, result.is_error


async def main(binary, project):
    async with AsyncExitStack() as stack:
        alice = await client(stack, binary, project)
        bob = await client(stack, binary, project)

        doc, _ = await call(alice, "next")
        expect(doc["brief"]["task"]["id"] == "T001" and doc["worktree"], "alice gets T001 in a worktree", doc)
        t001 = doc["worktree"]["dir"]
        doc, _ = await call(bob, "next")
        expect(doc["brief"] is None and doc["reason"] == "waiting", "bob waits: nothing else is ready", doc)
        write(t001, "base.txt", "base\n")
        doc, err = await call(alice, "done")
        expect(not err and doc["result"] == "passed", "T001 passes and is merged", doc)

        # Both [P] tasks at once, asked for together.
        (a, _), (b, _) = await asyncio.gather(call(alice, "next"), call(bob, "next"))
        ids = {a["brief"]["task"]["id"], b["brief"]["task"]["id"]}
        expect(ids == {"T002", "T003"}, "two agents, two different tasks", [a, b])
        expect(a["worktree"]["dir"] != b["worktree"]["dir"], "each in its own worktree", [a, b])
        by_task = {a["brief"]["task"]["id"]: (alice, a["worktree"]["dir"]),
                   b["brief"]["task"]["id"]: (bob, b["worktree"]["dir"])}
        (first, first_dir), (second, second_dir) = by_task["T003"], by_task["T002"]
        write(first_dir, "b.txt", "b\n")
        write(first_dir, "shared.txt", "list:\nb\n")
        write(second_dir, "a.txt", "a\n")
        write(second_dir, "shared.txt", "list:\na\n")
        doc, err = await call(first, "done")
        expect(not err and doc["result"] == "passed" and doc["task"] == "T003", "T003 passes and is merged", doc)
        doc, err = await call(second, "done")
        expect(err and doc["result"] == "conflict", "T002's branch conflicts", doc)
        expect(doc["conflicting_files"] == ["shared.txt"], "the conflict names shared.txt", doc)
        expect("shared.txt" in doc["then"] and "`done`" in doc["then"], "the answer says what to do", doc)
        # The agent settles it in its worktree, as the answer says.
        merge = subprocess.run(["git", "merge", "-q", doc["head"]], cwd=second_dir, capture_output=True)
        expect(merge.returncode != 0, "the merge conflicts in the worktree too", merge.stdout.decode())
        write(second_dir, "shared.txt", "list:\na\nb\n")
        subprocess.run(["git", "commit", "-qam", "settle shared.txt"], cwd=second_dir, check=True)
        doc, err = await call(second, "done")
        expect(not err and doc["result"] == "passed" and doc["task"] == "T002", "T002 passes once settled", doc)

        doc, _ = await call(first, "next")
        expect(doc["brief"]["task"]["id"] == "T004", "T004 once both are in", doc)
        write(doc["worktree"]["dir"], "all.txt", "a\nb\n")
        doc, err = await call(first, "done")
        expect(not err and doc["result"] == "passed", "T004 passes", doc)
        doc, _ = await call(second, "next")
        expect(doc["reason"] == "done", "every task is done", doc)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
