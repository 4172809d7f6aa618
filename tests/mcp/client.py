"""An MCP client from another implementation (the Python `mcp` SDK) driving the real
`wf mcp`: initialize, list the tools (strict input schemas, output schemas that the
SDK checks every structured result against, `readOnlyHint`), `next`, `done` before
the work, `next` again (the brief with the failure), `done` after it with the usage
it took, `status`, `logs`, arguments the schemas refuse. Run by tests/integration/mcp.rs, which sets up the project and the plan:

    T1  create_file hello.txt, checked by `grep -q hello hello.txt`
    T2  a command task after T1

Arguments: WF_BINARY PROJECT_DIR. The environment carries WF_HOME, WF_NOW and
WF_SERVER_HOME (the HOME the server gets).
Prints one line per step; any failed expectation exits non-zero with what was seen.
"""

import asyncio
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def expect(cond, what, seen):
    if not cond:
        sys.exit(f"FAILED: {what}\nseen: {json.dumps(seen, indent=2, default=str)}")
    print(f"ok: {what}")


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


async def main(binary, project):
    env = {k: os.environ[k] for k in ("WF_HOME", "WF_NOW", "PATH", "HOME") if k in os.environ}
    # The server's home is the test's; this interpreter keeps its own, where `mcp` is.
    if "WF_SERVER_HOME" in os.environ:
        env["HOME"] = os.environ["WF_SERVER_HOME"]
    params = StdioServerParameters(command=binary, args=["mcp"], cwd=project, env=env)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = init.server_info
            expect(info.name == "wf", "the server says it is wf", info.model_dump())

            tools = (await session.list_tools()).tools
            names = sorted(t.name for t in tools)
            expect(len(names) <= 6, "at most 6 tools", names)
            for name in ("next", "done", "skip", "status", "logs"):
                expect(name in names, f"tool `{name}` is listed", names)
            by_name = {t.name: t for t in tools}
            for t in tools:
                schema = t.input_schema
                expect(schema.get("additionalProperties") is False, f"`{t.name}` refuses unknown arguments", schema)
                expect(t.output_schema is not None, f"`{t.name}` has an output schema", t.model_dump())
                read_only = bool(t.annotations and t.annotations.read_only_hint)
                expect(read_only == (t.name in ("status", "logs")), f"`{t.name}` readOnlyHint is {read_only}", t.model_dump())
            attempt = by_name["logs"].input_schema["properties"]["attempt"]
            expect("minimum" in json.dumps(attempt) and '"minimum": 1' in json.dumps(attempt), "logs' attempt starts at 1", attempt)

            nxt = await session.call_tool("next", {})
            doc = nxt.structured_content
            expect(not nxt.is_error, "next is not an error", doc)
            expect(doc["schemaVersion"] == 2, "next carries schemaVersion", doc)
            expect(doc["reason"] == "in_progress" and doc["handed_off"], "next hands T1 off", doc)
            expect(doc["brief"]["task"]["id"] == "T1", "next is T1's brief", doc)
            expect("grep -q hello hello.txt" in text_of(nxt), "the brief's text names T1's check", text_of(nxt))

            fail = await session.call_tool("done", {"summary": "not yet"})
            doc = fail.structured_content
            expect(fail.is_error, "done before the work is an error result", doc)
            expect(doc["result"] == "failed" and doc["task"] == "T1", "T1 failed its checks", doc)
            check = doc["failed_checks"][0]
            expect(check["command"] == "grep -q hello hello.txt", "the failing check's command", check)
            expect(check["exit_code"] == 2, "its exit code", check)
            expect("No such file" in (check["log_tail"] or ""), "the end of its log", check)
            expect("No such file" in text_of(fail), "the text quotes the log", text_of(fail))

            again = await session.call_tool("next", {})
            doc = again.structured_content
            expect(doc["reason"] == "failed" and doc["brief"]["task"]["id"] == "T1", "next on the failed T1 gives its brief", doc)
            expect(doc["failure"]["failed_checks"][0]["command"] == "grep -q hello hello.txt", "with the failure", doc)
            expect("call `done`" in doc["then"] and "call `skip`" in doc["then"], "and names the tools to call", doc)
            expect("wf workflow-execute" not in text_of(again), "no shell command in the answer", text_of(again))

            with open(os.path.join(project, "hello.txt"), "w") as f:
                f.write("hello\n")

            ok = await session.call_tool(
                "done",
                {
                    "summary": "wrote hello.txt",
                    "changed_files": ["hello.txt"],
                    "usage": {"input_tokens": 12000, "output_tokens": 800, "cache_read_tokens": 10000, "model": "claude-sonnet-4-5"},
                },
            )
            doc = ok.structured_content
            expect(not ok.is_error, "done after the work passes", doc)
            expect(doc["result"] == "passed" and doc["status"] == "completed", "T1 is completed", doc)
            expect(doc["next"]["task"] == "T2", "and T2 is next", doc)

            st = await session.call_tool("status", {})
            doc = st.structured_content
            expect(not st.is_error, "status is not an error", doc)
            expect(doc["progress"]["completed"] == 1 and doc["progress"]["total"] == 2, "status counts T1 completed", doc)
            expect(doc["next"]["task"] == "T2", "status agrees T2 is next", doc)

            logs = await session.call_tool("logs", {"task": "T1", "attempt": 1})
            doc = logs.structured_content
            expect(not logs.is_error and "No such file" in doc["text"], "logs shows T1's first attempt", doc)

            for tool, args, what in (
                ("next", {"task": "T1"}, "an argument next does not take"),
                ("done", {"summery": "typo"}, "a misspelled argument"),
                ("logs", {"attempt": 0}, "attempt 0"),
                ("skip", {}, "skip without a reason"),
            ):
                refused = None
                try:
                    res = await session.call_tool(tool, args)
                    refused = res.is_error
                except Exception as e:  # the SDK raises the protocol's invalid-params error
                    refused = "Invalid" in str(e) or "invalid" in str(e)
                expect(refused, f"{tool} refuses {what}", args)

            missing = await session.call_tool("logs", {"task": "T9"})
            expect(missing.is_error, "logs of an unknown task is an error result", missing.structured_content)
            expect(
                missing.structured_content["error"]["message"] == "there is no task T9 in this workflow",
                "with the CLI's message",
                missing.structured_content,
            )
    print("done")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
