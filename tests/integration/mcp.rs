//! `wf mcp`: the real binary as an MCP server. One test drives it with a client of
//! another implementation (the Python `mcp` SDK, tests/mcp/client.py); the others
//! speak JSON-RPC to it directly, one line per message, to check each tool and the
//! error cases, and that a shell `wf` runs between two calls.
#![cfg(feature = "mcp")]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::plans::{assert_invariants, plan, start, task, task_status};
use crate::test::Test;

/// A `wf mcp` process and the messages it wrote, read on a thread so a silent server
/// fails the test after a timeout instead of hanging it.
pub(crate) struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Server {
    pub(crate) fn start(t: &Test) -> Server {
        Server::start_with(t, &["mcp"])
    }

    fn start_with(t: &Test, args: &[&str]) -> Server {
        Server::spawn(t.command(args))
    }

    fn spawn(mut command: std::process::Command) -> Server {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn wf mcp");
        let stdout = child.stdout.take().expect("stdout pipe");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut server = Server {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let init = server.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "wf-tests", "version": "0"},
            }),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "wf", "{init}");
        server.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        server
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{message}").expect("write to wf mcp");
        stdin.flush().expect("flush");
    }

    /// Writes `line` and a newline to the server as they are, JSON or not.
    fn send_line(&mut self, line: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(line).expect("write to wf mcp");
        stdin.write_all(b"\n").expect("write to wf mcp");
        stdin.flush().expect("flush");
    }

    /// The next message the server writes, within 60 s.
    fn message(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|e| panic!("no message from wf mcp: {e}"));
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("wf mcp wrote a line that is not JSON ({e}): {line}"))
    }

    /// Sends a request and returns its response (notifications in between skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|e| panic!("no answer to {method} from wf mcp: {e}"));
            let message: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("wf mcp wrote a line that is not JSON ({e}): {line}"));
            if message["id"] == id {
                return message;
            }
        }
    }

    /// Calls a tool; the result (`content`, `structuredContent`, `isError`).
    pub(crate) fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let response = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(
            response.get("error").is_none(),
            "a protocol error instead of a tool result: {response}"
        );
        response["result"].clone()
    }

    /// Closes stdin and waits for the server to end; its exit code.
    fn close(mut self) -> i32 {
        drop(self.stdin.take());
        for _ in 0..500 {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code().unwrap_or(-1);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        panic!("wf mcp did not end when its stdin closed");
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn structured(result: &Value) -> &Value {
    &result["structuredContent"]
}

fn text(result: &Value) -> String {
    result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

pub(crate) fn is_error(result: &Value) -> bool {
    result["isError"] == true
}

/// T1 needs an agent (it creates hello.txt, which its check greps); T2, a command
/// task, follows it.
fn agent_plan(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "impl")
                .field("actions", "create_file")
                .field("创建文件", "hello.txt")
                .verify("grep -q hello hello.txt"),
            task("T2", "impl").verify("echo T2 >> runs.log").deps("T1"),
        ]),
    );
}

/// Whether the Python MCP SDK is there to drive `wf mcp`; the test named is skipped,
/// said loudly, when it is not (and fails under WF_REQUIRE_MCP_CLIENT, as .ci/run sets).
fn python_client(test: &str) -> bool {
    let has_client = std::process::Command::new("python3")
        .args(["-c", "import mcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_client {
        assert!(
            std::env::var_os("WF_REQUIRE_MCP_CLIENT").is_none(),
            "WF_REQUIRE_MCP_CLIENT is set but `python3 -c \"import mcp\"` fails: pip install mcp"
        );
        eprintln!(
            "\n*** SKIPPED {test}: the Python MCP SDK is not installed (pip install mcp) ***\n"
        );
    }
    has_client
}

#[test]
fn a_python_mcp_client_drives_wf_mcp_through_a_task() {
    let t = Test::new();
    if !python_client("a_python_mcp_client_drives_wf_mcp_through_a_task") {
        return;
    }
    agent_plan(&t);
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/client.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_wf"))
        .arg(&t.project)
        .env("WF_HOME", &t.home)
        .env("WF_NOW", crate::test::NOW)
        .env("WF_SERVER_HOME", t.root.join("user-home"))
        .env_remove("CI")
        .output()
        .expect("run python3");
    crate::test::assert_script_done(&out, "the Python client");
    // What the client saw is what the workflow holds.
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "completed");
    assert_eq!(task_status(&state, "T2"), "pending");
    // `done`'s usage, priced by its model (Sonnet: 2,000 plain input × $3, 800
    // output × $15, 10,000 cache reads × $0.30, per million).
    let t1 = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|task| task["id"] == "T1")
        .unwrap();
    let usage = &t1["usage"];
    assert_eq!(usage["input_tokens"], 12_000, "{usage}");
    assert_eq!(usage["cache_read_tokens"], 10_000, "{usage}");
    let cost = usage["cost_usd"].as_f64().expect("a cost");
    let expected = (2_000.0 * 3.0 + 800.0 * 15.0 + 10_000.0 * 0.3) / 1e6;
    assert!((cost - expected).abs() < 1e-9, "{cost} != {expected}");
    assert_invariants(&t);
}

#[test]
fn the_tools_are_the_five_named_ones_and_wf_mcp_has_no_json_form() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    let list = server.request("tools/list", json!({}));
    let mut names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    names.sort_unstable();
    assert_eq!(names, ["done", "logs", "next", "skip", "status"]);
    // Every client's model reads the whole list: under 1,500 tokens of schema. In
    // cl100k_base this list runs at about 4.3 characters a token
    // (tests/mcp/schema_tokens.py), so 6,000 characters is the bound.
    let listed = serde_json::to_string(&list["result"]["tools"]).unwrap();
    assert!(listed.len() <= 6_000, "{} characters", listed.len());
    assert_eq!(server.close(), 0);
    let run = t.wf(&["mcp", "--json"]).code(2);
    assert_eq!(
        run.json()["error"]["message"],
        "`wf mcp` has no JSON form (it prints the MCP protocol, whose tool results carry JSON); drop --json"
    );
}

/// `wf mcp` serves with the project of `-C` and the lock wait of `--wait`, from
/// outside the project too.
#[test]
fn wf_mcp_serves_the_project_named_by_its_global_options() {
    let t = Test::new();
    agent_plan(&t);
    let project = t.project.to_str().expect("a UTF-8 path");
    // Started outside the project: -C reaches the server.
    let mut command = t.command(&["-C", project, "--wait", "5", "mcp"]);
    command.current_dir(&t.root);
    let mut server = Server::spawn(command);
    let status = server.call("status", json!({}));
    assert!(!is_error(&status), "{status}");
    assert_eq!(structured(&status)["progress"]["total"], 2, "{status}");
    let next = server.call("next", json!({}));
    assert_eq!(structured(&next)["brief"]["task"]["id"], "T1", "{next}");
    assert_eq!(server.close(), 0);
}

#[test]
fn next_hands_an_agent_task_off_as_workflow_execute_does() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    let next = server.call("next", json!({}));
    assert!(!is_error(&next), "{next}");
    let doc = structured(&next);
    assert_eq!(doc["schemaVersion"], 2);
    assert_eq!(doc["reason"], "in_progress");
    assert_eq!(doc["handed_off"], true);
    assert_eq!(doc["brief"]["task"]["id"], "T1");
    assert_eq!(doc["workflow_status"], "running");
    assert!(text(&next).contains("# T1: task T1"), "{}", text(&next));
    assert!(text(&next).contains("call `done`"), "{}", text(&next));
    // The state a hand-off leaves: T1 in progress and handed off, the workflow
    // running, the mode the workflow had.
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "in_progress");
    let t1 = &state["tasks"][0];
    assert_eq!(t1["handed_off"], true, "{t1}");
    assert_eq!(state["status"], "running");
    assert_eq!(state["execution_mode"], "phase");
    // Asked again, the same task: nothing is handed off twice.
    let again = server.call("next", json!({}));
    assert_eq!(structured(&again)["brief"]["task"]["attempts"], 1);
    // And the CLI agrees.
    assert!(t.wf(&["next"]).ok().stdout.starts_with("T1 is in progress"));
    assert_eq!(server.close(), 0);
}

#[test]
fn done_answers_a_failed_check_as_an_error_result_then_records_the_pass() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    server.call("next", json!({}));
    let fail = server.call(
        "done",
        json!({"summary": "wrote it", "changed_files": ["hello.txt"]}),
    );
    assert!(is_error(&fail), "{fail}");
    let doc = structured(&fail);
    assert_eq!(doc["result"], "failed");
    assert_eq!(doc["task"], "T1");
    assert_eq!(
        doc["failed_checks"],
        json!([{
            "command": "grep -q hello hello.txt",
            "exit_code": 2,
            "ended": "exited with 2",
            "log_tail": "$ grep -q hello hello.txt\ngrep: hello.txt: No such file or directory",
        }])
    );
    assert!(
        text(&fail).contains("grep: hello.txt: No such file or directory"),
        "{}",
        text(&fail)
    );
    assert_eq!(task_status(&t.state(), "T1"), "failed");
    // The claim is recorded as an executor's, beside wf's own verdict.
    let events = t.wf(&["events", "--json", "--task", "T1"]).ok().stdout;
    assert!(
        events.contains(r#""executor":"mcp""#) && events.contains("wrote it"),
        "{events}"
    );

    // `next` after a failure says what to do; `done` after the work checks again.
    let next = server.call("next", json!({}));
    assert!(
        structured(&next)["then"]
            .as_str()
            .is_some_and(|s| s.contains("call `done` to check it again")),
        "{next}"
    );
    t.write("hello.txt", "hello\n");
    let pass = server.call("done", json!({}));
    assert!(!is_error(&pass), "{pass}");
    let doc = structured(&pass);
    assert_eq!(doc["result"], "passed");
    assert_eq!(doc["status"], "completed");
    assert_eq!(doc["attempt"], 2);
    assert_eq!(doc["next"]["task"], "T2");
    assert_eq!(task_status(&t.state(), "T1"), "completed");
    // Step mode checked one task; the workflow keeps its own mode.
    assert_eq!(t.state()["execution_mode"], "phase");

    // T2 needs no agent: `next` does not hand it off, `done` runs it.
    let next = server.call("next", json!({}));
    assert_eq!(structured(&next)["reason"], "ready");
    assert_eq!(structured(&next)["handed_off"], false);
    let last = server.call("done", json!({}));
    assert!(!is_error(&last), "{last}");
    assert_eq!(structured(&last)["workflow_status"], "completed");
    assert_eq!(t.read("runs.log"), "T2\n");
    let after = server.call("done", json!({}));
    assert_eq!(structured(&after)["result"], "completed");
    assert_eq!(server.close(), 0);
    assert_invariants(&t);
}

#[test]
fn done_refuses_a_claim_of_a_file_git_saw_no_change_in() {
    if which::which("git").is_err() {
        return;
    }
    let t = Test::new();
    t.write("README.md", "a project\n");
    agent_plan(&t);
    t.git_commit_all();
    let mut server = Server::start(&t);
    server.call("next", json!({}));
    t.write("hello.txt", "hello\n");
    let refused = server.call(
        "done",
        json!({"summary": "wrote it and documented it", "changed_files": ["hello.txt", "README.md"]}),
    );
    assert!(is_error(&refused), "{refused}");
    let doc = structured(&refused);
    assert_eq!(doc["result"], "claim_rejected");
    assert_eq!(doc["changed_files"], json!(["hello.txt"]));
    assert!(
        text(&refused)
            .contains("claimed to change README.md but the working tree shows no change there"),
        "{}",
        text(&refused)
    );
    // Nothing recorded: the task is still the agent's, not failed.
    assert_eq!(task_status(&t.state(), "T1"), "in_progress");
    let pass = server.call("done", json!({"changed_files": ["hello.txt"]}));
    assert!(!is_error(&pass), "{pass}");
    assert_eq!(task_status(&t.state(), "T1"), "completed");
    let evidence = &t.state()["tasks"][0]["evidence"];
    assert_eq!(
        evidence["changes"]["files"],
        json!(["hello.txt"]),
        "{evidence}"
    );
    assert_eq!(server.close(), 0);
}

#[test]
fn status_and_logs_answer_compactly_and_bounded() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    let status = server.call("status", json!({}));
    let doc = structured(&status);
    assert_eq!(doc["status"], "planned");
    assert_eq!(doc["progress"]["total"], 2);
    assert_eq!(doc["next"]["task"], "T1");
    // No task has run: the CLI's message, as an error result.
    let logs = server.call("logs", json!({}));
    assert!(is_error(&logs), "{logs}");
    assert_eq!(
        structured(&logs)["error"]["message"],
        "no task has run yet, so there is no log; run `wf workflow-execute`"
    );
    server.call("next", json!({}));
    server.call("done", json!({}));
    let status = server.call("status", json!({}));
    let doc = structured(&status);
    assert_eq!(doc["status"], "failed");
    assert_eq!(doc["failed"][0]["id"], "T1");
    assert!(text(&status).contains("0/2 done"), "{}", text(&status));
    let logs = server.call("logs", json!({"lines": 1}));
    assert!(!is_error(&logs), "{logs}");
    let doc = structured(&logs);
    assert_eq!(
        (&doc["task"], &doc["attempt"], &doc["cut"], &doc["text"]),
        (
            &json!("T1"),
            &json!(1),
            &json!(true),
            &json!("grep: hello.txt: No such file or directory")
        )
    );
    let logs = server.call("logs", json!({"task": "T1", "attempt": 3}));
    assert_eq!(
        structured(&logs)["error"]["message"],
        "task T1 has run 1 time(s); --attempt takes 1 to 1"
    );
    assert_eq!(server.close(), 0);
}

#[test]
fn errors_are_tool_results_with_the_clis_message_and_the_server_goes_on() {
    let t = Test::new();
    let mut server = Server::start(&t);
    let cli = t.wf(&["status", "--json"]).code(2).json();
    for tool in ["next", "done", "status", "logs"] {
        let result = server.call(tool, json!({}));
        assert!(is_error(&result), "{tool}: {result}");
        assert_eq!(structured(&result)["error"], cli["error"], "{tool}");
        assert_eq!(structured(&result)["schemaVersion"], 2);
    }
    // No workflow dir was made for a lock.
    assert!(!t.workflow_dir().exists());
    // A corrupt state: exit 5's kind and message, and the server still answers.
    agent_plan(&t);
    std::fs::write(t.workflow_dir().join("workflow-state.json"), "{ not json").unwrap();
    let cli = t.wf(&["status", "--json"]).code(5).json();
    for tool in ["next", "done", "status"] {
        let result = server.call(tool, json!({}));
        assert!(is_error(&result), "{tool}: {result}");
        assert_eq!(structured(&result)["error"]["kind"], "corrupt_state");
        assert_eq!(structured(&result)["error"], cli["error"], "{tool}");
    }
    assert_eq!(server.close(), 0);
}

#[test]
fn done_with_nothing_in_progress_or_ready_says_why() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl")
            .field("阻塞依赖", "api_spec")
            .verify("true")]),
    );
    let mut server = Server::start(&t);
    let done = server.call("done", json!({}));
    assert!(is_error(&done), "{done}");
    let doc = structured(&done);
    assert_eq!(doc["result"], "nothing_to_check");
    assert_eq!(doc["reason"], "blocked");
    let next = server.call("next", json!({}));
    assert!(!is_error(&next));
    assert_eq!(structured(&next)["reason"], "blocked");
    // In MCP terms: the user lifts the blocker; the agent is told which tool to call.
    assert!(
        text(&next).contains("Blocked by api_spec.") && text(&next).contains("call `status`"),
        "{}",
        text(&next)
    );
    assert!(!text(&next).contains("wf workflow"), "{}", text(&next));
    assert_eq!(server.close(), 0);
}

#[test]
fn a_shell_workflow_execute_runs_between_two_calls() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    server.call("next", json!({}));
    // The server holds no lock between calls: the shell takes T1 back and goes on.
    t.write("hello.txt", "hello\n");
    let run = t.wf(&["workflow-execute"]).ok();
    assert!(
        run.stdout.contains("Completed: 2/2 tasks done."),
        "{}",
        run.stdout
    );
    let status = server.call("status", json!({}));
    assert_eq!(structured(&status)["status"], "completed");
    assert_eq!(structured(&status)["progress"]["done"], 2);
    assert_eq!(server.close(), 0);
    assert_invariants(&t);
}

/// Waits (at most 10 s) for T1's check to create `started`.
#[track_caller]
fn wait_for_start(t: &Test, what: &str) {
    let started = t.project.join("started");
    for _ in 0..1000 {
        if started.exists() {
            return;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("{what}");
}

/// A shell `wf workflow-execute`, returned once its T1 (`touch started && …`) runs:
/// it holds the lock then.
fn shell_running_t1(t: &Test) -> Child {
    let shell = t
        .command(&["workflow-execute"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn wf workflow-execute");
    wait_for_start(t, "the shell run never started T1");
    shell
}

#[test]
fn a_call_waits_for_a_shell_wf_holding_the_lock() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl").verify("touch started && sleep 1")]),
    );
    let mut server = Server::start(&t);
    // Once the shell run is checking T1 it holds the lock; a call queues behind it.
    let mut shell = shell_running_t1(&t);
    let done = server.call("done", json!({}));
    assert!(shell.wait().expect("wait").success());
    // The shell ran T1; the call, once it had the lock, found nothing left to check.
    assert_eq!(structured(&done)["result"], "completed", "{done}");
    assert_eq!(server.close(), 0);
}

#[test]
fn a_signal_ends_the_server_and_stops_the_checks_of_a_call_in_flight() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl").verify("touch started && sleep 30")]),
    );
    // Idle: it ends at once, with the code of an interrupted run.
    let server = Server::start(&t);
    // SAFETY: signalling a child process we spawned.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    assert_eq!(wait_for_exit(server), 130);

    // In the middle of `done`: its check is ended and the state saved, as a run's.
    // (`next` first: `done` checks only a task the agent was given.)
    let mut server = Server::start(&t);
    server.call("next", json!({}));
    server.send(&json!({"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "done", "arguments": {}}}));
    wait_for_start(&t, "the check never started");
    // SAFETY: as above.
    unsafe { libc::kill(server.child.id() as i32, libc::SIGTERM) };
    assert_eq!(wait_for_exit(server), 130);
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "pending");
    assert_eq!(state["status"], "paused");
    assert_invariants(&t);
}

/// The exit code of a server that must end within 15 s.
fn wait_for_exit(mut server: Server) -> i32 {
    for _ in 0..1500 {
        if let Some(status) = server.child.try_wait().expect("wait") {
            return status.code().unwrap_or(-1);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("wf mcp did not end after the signal");
}

/// Every line gets an answer: one that is not JSON a parse error (-32700, id null),
/// JSON that is not a request an invalid request (-32600, with its id when it has
/// one), and the server goes on answering.
#[test]
fn an_unparsable_line_gets_a_parse_error_and_the_server_goes_on() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    for line in [
        &b"this is not json"[..],
        b"{\"jsonrpc\": \"2.0\", \"id\": 7,",
        b"\xff\xfe{}",
    ] {
        server.send_line(line);
        let answer = server.message();
        assert_eq!(answer["jsonrpc"], "2.0", "{answer}");
        assert_eq!(answer["id"], Value::Null, "{answer}");
        assert_eq!(answer["error"]["code"], -32700, "{answer}");
    }
    server.send_line(br#"{"jsonrpc": "2.0", "id": 8, "method": 12}"#);
    let answer = server.message();
    assert_eq!(
        (&answer["id"], &answer["error"]["code"]),
        (&json!(8), &json!(-32600)),
        "{answer}"
    );
    let status = server.call("status", json!({}));
    assert!(!is_error(&status), "{status}");
    assert_eq!(server.close(), 0);
}

/// A request over the size limit is refused with an error, without reading it whole
/// into memory, and the next request is answered.
#[test]
fn a_request_over_the_size_limit_gets_an_error() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    let summary = "x".repeat(5 * 1024 * 1024);
    let request = json!({"jsonrpc": "2.0", "id": 40, "method": "tools/call", "params": {"name": "done", "arguments": {"summary": summary}}});
    server.send_line(request.to_string().as_bytes());
    let answer = server.message();
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("over the size limit"), "{message}");
    // Nothing was done with it: T1 was never checked.
    assert_eq!(task_status(&t.state(), "T1"), "pending");
    let status = server.call("status", json!({}));
    assert!(!is_error(&status), "{status}");
    assert_eq!(server.close(), 0);
}

/// A client that goes away before `initialize` ends the server with 0 and nothing
/// on stderr: that is how a client says it is done.
#[test]
fn stdin_closed_before_initialize_exits_0_quietly() {
    let t = Test::new();
    agent_plan(&t);
    for input in [&b""[..], b"\n", b"not json\n"] {
        let mut child = t
            .command(&["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn wf mcp");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write");
        let out = child.wait_with_output().expect("wait for wf mcp");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{input:?}: {stderr}");
        assert_eq!(stderr, "", "{input:?}");
    }
}

/// Two agent tasks: `done` said twice after T1 passed (a client retrying the call)
/// checks nothing — T2 was never given to the agent, so it is not handed off and
/// failed on the spot — and says to call `next`.
#[test]
fn a_repeated_done_never_checks_a_task_the_agent_was_not_given() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "impl")
                .field("actions", "create_file")
                .field("创建文件", "hello.txt")
                .verify("grep -q hello hello.txt"),
            task("T2", "impl")
                .field("actions", "create_file")
                .field("创建文件", "two.txt")
                .verify("test -f two.txt")
                .deps("T1"),
            task("T3", "impl").verify("echo T3 >> runs.log").deps("T2"),
        ]),
    );
    let mut server = Server::start(&t);
    server.call("next", json!({}));
    t.write("hello.txt", "hello\n");
    let pass = server.call("done", json!({}));
    assert_eq!(structured(&pass)["result"], "passed", "{pass}");
    let again = server.call("done", json!({}));
    assert!(is_error(&again), "{again}");
    assert_eq!(structured(&again)["result"], "not_given", "{again}");
    assert!(text(&again).contains("call `next`"), "{}", text(&again));
    let state = t.state();
    assert_eq!(task_status(&state, "T2"), "pending");
    assert_eq!(state["tasks"][1]["attempts"], Value::Null, "T2 never ran");
    // Given by `next`, it is checked.
    server.call("next", json!({}));
    t.write("two.txt", "");
    assert_eq!(
        structured(&server.call("done", json!({})))["result"],
        "passed"
    );
    // A command task is the agent's once `next` named it: not before.
    let early = server.call("done", json!({}));
    assert_eq!(structured(&early)["result"], "not_given", "{early}");
    assert!(!t.project.join("runs.log").exists(), "T3 ran unasked");
    server.call("next", json!({}));
    assert_eq!(
        structured(&server.call("done", json!({})))["result"],
        "passed"
    );
    assert_eq!(t.read("runs.log"), "T3\n");
    assert_eq!(server.close(), 0);
    assert_invariants(&t);
}

/// A command task a shell `wf workflow-execute` is running is not "handed off": not
/// in `wf next`, not in the `status` tool, which read the state while that run holds
/// the lock.
#[test]
fn a_command_task_another_wf_runs_is_not_called_handed_off() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl").verify("touch started && sleep 3")]),
    );
    let mut server = Server::start(&t);
    let mut shell = shell_running_t1(&t);
    let status = server.call("status", json!({}));
    let next = &structured(&status)["next"];
    let message = next["message"].as_str().unwrap_or_default();
    assert!(!message.contains("handed off"), "{status}");
    assert!(message.contains("another wf"), "{status}");
    assert!(!text(&status).contains("handed off"), "{}", text(&status));
    let cli = t.wf(&["next"]).ok();
    assert!(!cli.stdout.contains("handed off"), "{}", cli.stdout);
    assert!(cli.stdout.contains("another wf"), "{}", cli.stdout);
    assert!(shell.wait().expect("wait").success());
    assert_eq!(server.close(), 0);
}

/// Issue 52: the spending budget applies to an MCP agent too. The work already
/// handed off is recorded, with the usage `done` reports; past the budget, `next`
/// and `done` say so in words instead of offering the next agent task as wf's own.
#[test]
fn past_the_budget_next_and_done_say_so_and_the_work_done_is_recorded() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "impl")
                .field("actions", "create_file")
                .field("创建文件", "one.txt")
                .verify("grep -q one one.txt"),
            task("T2", "impl")
                .field("actions", "create_file")
                .field("创建文件", "two.txt")
                .verify("grep -q two two.txt")
                .deps("T1"),
        ]),
    );
    t.config(r#"{"wf": {"budget_tokens": 1000}}"#);
    let mut server = Server::start(&t);
    let next = server.call("next", json!({}));
    assert_eq!(structured(&next)["brief"]["task"]["id"], "T1", "{next}");
    t.write("one.txt", "one\n");
    let done = server.call(
        "done",
        json!({"usage": {"input_tokens": 4000, "output_tokens": 500, "cost_usd": 0.02}}),
    );
    let doc = structured(&done);
    assert_eq!(doc["result"], "passed", "{done}");
    let then = doc["then"].as_str().unwrap();
    assert!(
        then.starts_with("Stop here: the spending budget is reached (budget reached: 4500 tokens used, wf.budget_tokens is 1000"),
        "{then}"
    );
    let next = server.call("next", json!({}));
    let doc = structured(&next);
    assert_eq!(doc["handed_off"], false, "{next}");
    assert!(
        doc["then"]
            .as_str()
            .unwrap()
            .starts_with("Stop here: the spending budget is reached"),
        "{next}"
    );
    assert!(!doc["then"]
        .as_str()
        .unwrap()
        .contains("wf does this task itself"));
    let done = server.call("done", json!({}));
    assert!(is_error(&done), "{done}");
    assert_eq!(structured(&done)["result"], "budget_reached", "{done}");
    assert_eq!(server.close(), 0);
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "completed");
    assert_eq!(task_status(&state, "T2"), "pending");
    let t1 = &state["tasks"][0]["usage"];
    assert_eq!(
        (&t1["input_tokens"], &t1["output_tokens"], &t1["cost_usd"]),
        (&json!(4000), &json!(500), &json!(0.02)),
        "{t1}"
    );
}

/// Two clients, two `wf mcp` servers, one spec-kit plan with `[P]` tasks, each task
/// in a worktree of its own (tests/mcp/two_agents.py): no task done twice, both
/// branches merged, the planted conflict returned to its agent with the file named,
/// and the project's files those of a serial run.
#[test]
fn two_python_mcp_clients_work_one_plan_at_once_each_in_its_own_worktree() {
    if !python_client("two_python_mcp_clients_work_one_plan_at_once_each_in_its_own_worktree") {
        return;
    }
    let t =
        crate::agents_parallel::project_with(Some(r#"{"wf": {"agents": {"worktrees": true}}}"#));
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp/two_agents.py");
    let out = t
        .program("python3")
        .arg(&script)
        .arg(env!("CARGO_BIN_EXE_wf"))
        .arg(&t.project)
        .env("WF_SERVER_HOME", t.root.join("user-home"))
        // The interpreter keeps its own home, where `mcp` is installed.
        .env("HOME", std::env::var_os("HOME").unwrap_or_default())
        .output()
        .expect("run python3");
    crate::test::assert_script_done(&out, "the two Python clients");
    for id in ["T001", "T002", "T003", "T004"] {
        assert_eq!(
            crate::agents_parallel::status_of(&t, id),
            "completed",
            "{id}"
        );
    }
    let handoffs = t
        .events()
        .iter()
        .filter(|e| e["type"] == "task.status_changed" && e["data"]["to"] == "in_progress")
        .count();
    assert_eq!(handoffs, 4, "each task handed off once");
    assert_eq!(
        crate::agents_parallel::files(&t),
        crate::agents_parallel::serial_run()
    );
    assert_invariants(&t);
}

/// `skip` of the task `next` handed off leaves no workflow `running` with nothing out:
/// it pauses, with the skip as its reason (a running workflow with no lock holder and
/// no hand-off reads as a crashed run).
#[test]
fn skipping_the_handed_off_task_pauses_the_workflow() {
    let t = Test::new();
    agent_plan(&t);
    let mut server = Server::start(&t);
    server.call("next", json!({}));
    assert_eq!(t.state()["status"], "running");
    let result = server.call("skip", json!({"reason": "done by hand"}));
    assert_eq!(result["structuredContent"]["task"], "T1", "{result}");
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "skipped");
    assert_eq!(state["status"], "paused", "{state}");
    assert_eq!(state["status_reason"], "task T1 was skipped: done by hand");
    assert_eq!(server.close(), 0);
}
