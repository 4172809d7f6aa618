//! Executors as a resource pool, with small fake agents from `fixtures/agents/`.

use serde_json::{json, Value};

use crate::plans::{assert_invariants, plan, start, task, task_status};
use crate::test::{fixture, Test};

fn agent(name: &str) -> String {
    fixture(&format!("agents/{name}")).display().to_string()
}

fn config(t: &Test, executors: Value) {
    t.config(json!({"wf": {"executors": executors, "max_retries": 2}}).to_string());
}

fn hello_plan() -> String {
    plan(&[task("T1", "impl")
        .field("actions", "create_file")
        .field("创建文件", "hello.txt")
        .verify("grep -q hello hello.txt")])
}

fn kinds(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|e| e["type"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn an_executor_that_does_the_work_completes_the_task_with_events_in_order() {
    let t = Test::new();
    config(
        &t,
        json!([{"name": "coder", "command": [agent("edits-and-claims.sh")], "capabilities": ["implement"]}]),
    );
    start(&t, &hello_plan());
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
    assert!(t.read("hello.txt").contains("hello from T1"));
    let ev = t.events();
    let run: Vec<String> = kinds(&ev)
        .into_iter()
        .skip_while(|k| k != "resource.allocated")
        .collect();
    assert_eq!(
        run,
        [
            "resource.allocated",
            "task.dispatch_requested",
            "task.status_changed",
            "task.dispatch_ack",
            "task.execution_started",
            "task.execution_result",
            "task.review_result",
            "resource.released",
            "task.status_changed",
            "workflow.status_changed",
        ]
        .map(String::from)
        .to_vec(),
        "{ev:#?}"
    );
    let ack = ev
        .iter()
        .find(|e| e["type"] == "task.dispatch_ack")
        .unwrap();
    assert_eq!(ack["actor"], "coder.executor");
    let released = ev
        .iter()
        .find(|e| e["type"] == "resource.released")
        .unwrap();
    assert_eq!(released["data"]["reason"], "completed");
    // Sequence numbers are gap-free.
    for (i, e) in ev.iter().enumerate() {
        assert_eq!(e["seq"], json!(i as u64 + 1));
    }
    assert_invariants(&t);
}

#[test]
fn a_claim_without_evidence_is_rejected() {
    let t = Test::new();
    config(
        &t,
        json!([{"name": "liar", "command": [agent("claims-without-work.sh")], "capabilities": ["implement"]}]),
    );
    start(&t, &hello_plan());
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: the executor claimed success but the checks disagree: check `grep -q hello hello.txt` exited with 2
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ [liar] [REPO]/fixtures/agents/claims-without-work.sh
      | ```json
      | {"success": true, "changed_files": ["hello.txt"], "summary": "done, trust me"}
      | ```
      | $ grep -q hello hello.txt
      | grep: hello.txt: No such file or directory
    ▶ T1 task T1 (attempt 2/3)
    ✗ T1 task T1: the executor claimed success but the checks disagree: check `grep -q hello hello.txt` exited with 2
      --- last lines of [ROOT]/home/[ID]/logs/T1.2.log ---
      | $ [liar] [REPO]/fixtures/agents/claims-without-work.sh
      | ```json
      | {"success": true, "changed_files": ["hello.txt"], "summary": "done, trust me"}
      | ```
      | $ grep -q hello hello.txt
      | grep: hello.txt: No such file or directory
    ▶ T1 task T1 (attempt 3/3)
    ✗ T1 task T1: the executor claimed success but the checks disagree: check `grep -q hello hello.txt` exited with 2
      --- last lines of [ROOT]/home/[ID]/logs/T1.3.log ---
      | $ [liar] [REPO]/fixtures/agents/claims-without-work.sh
      | ```json
      | {"success": true, "changed_files": ["hello.txt"], "summary": "done, trust me"}
      | ```
      | $ grep -q hello hello.txt
      | grep: hello.txt: No such file or directory
    --- stderr
    Failed: task T1 failed: the executor claimed success but the checks disagree: check `grep -q hello hello.txt` exited with 2
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    "#);
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "failed");
    assert_eq!(
        state["retry_counts"]["T1"], 2,
        "bounded retries are counted"
    );
    let rejected = t
        .events()
        .into_iter()
        .filter(|e| e["type"] == "task.review_result" && e["data"]["passed"] == false)
        .count();
    assert_eq!(rejected, 3, "each attempt's claim is rejected");
}

#[test]
fn a_malformed_claim_fails_closed() {
    let t = Test::new();
    config(
        &t,
        json!([{"name": "odd", "command": [agent("bad-claim.sh")], "capabilities": ["implement"]}]),
    );
    start(&t, &hello_plan());
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: executor `odd`: the claim is not valid (invalid type: string "yes", expected a boolean at line 1 column 17)
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ [odd] [REPO]/fixtures/agents/bad-claim.sh
      | hello > hello.txt
      | ```json
      | {"success": "yes"}
      | ```
    ▶ T1 task T1 (attempt 2/3)
    ✗ T1 task T1: executor `odd`: the claim is not valid (invalid type: string "yes", expected a boolean at line 1 column 17)
      --- last lines of [ROOT]/home/[ID]/logs/T1.2.log ---
      | $ [odd] [REPO]/fixtures/agents/bad-claim.sh
      | hello > hello.txt
      | ```json
      | {"success": "yes"}
      | ```
    ▶ T1 task T1 (attempt 3/3)
    ✗ T1 task T1: executor `odd`: the claim is not valid (invalid type: string "yes", expected a boolean at line 1 column 17)
      --- last lines of [ROOT]/home/[ID]/logs/T1.3.log ---
      | $ [odd] [REPO]/fixtures/agents/bad-claim.sh
      | hello > hello.txt
      | ```json
      | {"success": "yes"}
      | ```
    --- stderr
    Failed: task T1 failed: executor `odd`: the claim is not valid (invalid type: string "yes", expected a boolean at line 1 column 17)
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    "#);
}

#[test]
fn a_failure_escalates_to_the_strongest_executor() {
    let t = Test::new();
    config(
        &t,
        json!([
            {"name": "weak", "command": [agent("claims-without-work.sh")], "capabilities": ["implement"], "level": 1},
            {"name": "strong", "command": [agent("edits-and-claims.sh")], "capabilities": ["implement"], "level": 3}
        ]),
    );
    start(&t, &hello_plan());
    t.wf(&["workflow-execute"]).ok();
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert_eq!(state["retry_counts"]["T1"], 1);
    let allocated: Vec<String> = t
        .events()
        .into_iter()
        .filter(|e| e["type"] == "resource.allocated")
        .map(|e| e["executor"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(allocated, ["weak", "strong"]);
}

#[test]
fn a_missing_executor_program_is_a_nack_and_blocks_the_task() {
    let t = Test::new();
    config(
        &t,
        json!([{"name": "ghost", "command": ["wf-no-such-agent"], "capabilities": ["implement"]}]),
    );
    start(&t, &hello_plan());
    let run = t.wf(&["workflow-execute"]).code(3);
    assert!(
        run.stdout.contains("resource_missing") || run.stderr.contains("resource_missing"),
        "{}{}",
        run.stdout,
        run.stderr
    );
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "blocked");
    let ev = kinds(&t.events());
    // No executor that offers the capability can start: the engine says so as it
    // says "none offers it" (docs/events.md, "What the types settle" 2).
    assert!(ev.contains(&"resource.missing".to_string()), "{ev:?}");
    assert!(
        !ev.contains(&"task.execution_started".to_string()),
        "a nack is not an execution: {ev:?}"
    );
}

#[test]
fn a_hanging_executor_is_an_execution_failure_after_its_timeout() {
    let t = Test::new();
    config(
        &t,
        json!([{"name": "sloth", "command": [agent("hangs.sh")], "capabilities": ["implement"], "timeout_secs": 1}]),
    );
    t.config(json!({"wf": {"executors": [{"name": "sloth", "command": [agent("hangs.sh")], "capabilities": ["implement"], "timeout_secs": 1}], "max_retries": 0}}).to_string());
    start(&t, &hello_plan());
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: executor `sloth` timed out after 1s (its process group was killed)
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ [sloth] [REPO]/fixtures/agents/hangs.sh
    --- stderr
    Failed: task T1 failed: executor `sloth` timed out after 1s (its process group was killed)
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    let ev = kinds(&t.events());
    assert!(
        ev.contains(&"task.dispatch_ack".to_string()),
        "it started, so it was acked: {ev:?}"
    );
}

#[test]
fn a_capability_nobody_offers_is_a_structured_error() {
    let t = Test::new();
    config(
        &t,
        json!([{"name": "coder", "command": [agent("edits-and-claims.sh")], "capabilities": ["implement"]}]),
    );
    start(
        &t,
        &plan(&[task("T1", "review").field("actions", "codex_review")]),
    );
    let run = t.wf(&["workflow-execute"]).code(3);
    insta::assert_snapshot!(run.whole(), @"
    exit: 3
    --- stdout
    ! no executor offers capability `review` (needed by task T1); add one to wf.executors in the project config
    Blocked: T1 waits on resource_missing. Lift with `wf workflow-unblock resource_missing`.
    --- stderr
    ");
    let missing: Vec<Value> = t
        .events()
        .into_iter()
        .filter(|e| e["type"] == "resource.missing")
        .collect();
    assert_eq!(missing.len(), 1);
    assert_eq!(missing[0]["data"]["capability"], "review");
    assert_eq!(missing[0]["task_id"], "T1");
}

#[test]
fn a_reviewer_must_reach_the_threshold() {
    let t = Test::new();
    config(
        &t,
        json!([
            {"name": "coder", "command": [agent("edits-and-claims.sh")], "capabilities": ["implement"]},
            {"name": "critic", "command": [agent("reviewer.sh")], "capabilities": ["review"], "role": "reviewer"}
        ]),
    );
    start(
        &t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file, quality_review")
            .field("阈值", "90")]),
    );
    t.wf(&["workflow-execute"]).ok();
    let review = t
        .events()
        .into_iter()
        .find(|e| e["type"] == "task.review_result" && e["executor"] == "critic")
        .expect("a review result");
    assert_eq!(review["data"]["score"], 92);
    assert_eq!(review["data"]["passed"], true);
}

#[test]
fn mock_rehearsal_runs_a_failing_plan_without_agents() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "impl").field("actions", "edit_file"),
            task("T2", "impl").verify("echo T2 >> runs.log").deps("T1"),
        ]),
    );
    let run = t
        .wf(&["workflow-execute", "--mock", "executor=failure"])
        .code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: mock executor `mock-executor` reported failure (--mock)
    ▶ T1 task T1 (attempt 2/4)
    ✗ T1 task T1: mock executor `mock-executor` reported failure (--mock)
    ▶ T1 task T1 (attempt 3/4)
    ✗ T1 task T1: mock executor `mock-executor` reported failure (--mock)
    ▶ T1 task T1 (attempt 4/4)
    ✗ T1 task T1: mock executor `mock-executor` reported failure (--mock)
    --- stderr
    Failed: task T1 failed: mock executor `mock-executor` reported failure (--mock)
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(
        t.state()["retry_counts"]["T1"],
        3,
        "retries are rehearsed too"
    );
    t.wf(&["workflow-execute", "--skip", "T1", "--reason", "rehearsal"])
        .ok();
    assert_eq!(t.state()["status"], "completed");
    // And a passing rehearsal.
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl").field("actions", "edit_file")]),
    );
    t.wf(&["workflow-execute", "--mock", "success"]).ok();
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn a_torn_final_event_line_is_tolerated() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("true").deps("T1"),
        ]),
    );
    t.wf(&["workflow-execute", "--step"]).ok();
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(t.workflow_dir().join("events.jsonl"))
        .unwrap();
    f.write_all(b"{\"seq\": 99, \"ts\": \"2026").unwrap();
    drop(f);
    assert_eq!(t.state()["status"], "paused");
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
    let text = std::fs::read_to_string(t.workflow_dir().join("events.jsonl")).unwrap();
    assert!(text.ends_with('\n'));
    for (i, line) in text.lines().enumerate() {
        let e: Value = serde_json::from_str(line).expect("every line whole");
        assert_eq!(e["seq"], json!(i as u64 + 1));
    }
}

#[test]
fn resources_shows_the_capability_catalog() {
    let t = Test::new();
    config(
        &t,
        json!([
            {"name": "coder", "command": [agent("edits-and-claims.sh")], "capabilities": ["implement"], "level": 2},
            {"name": "ghost", "command": ["wf-no-such-agent"], "capabilities": ["implement", "review"]}
        ]),
    );
    let json = t.wf(&["--json", "resources"]).ok().json();
    let caps = json["capabilities"].as_array().unwrap();
    let implement = caps
        .iter()
        .find(|c| c["capability"] == "implement")
        .unwrap();
    assert_eq!(implement["resourceCount"], 2);
    assert_eq!(implement["availableCount"], 1);
    let review = caps.iter().find(|c| c["capability"] == "review").unwrap();
    assert_eq!(review["availableCount"], 0);
    assert_eq!(review["resources"][0]["status"], "error");
    let text = t.wf(&["resources"]).ok().stdout;
    assert!(text.contains("coder (executor, L2, available)"), "{text}");
    assert!(text.contains("not on PATH"), "{text}");
}

#[test]
fn agent_tasks_stop_at_the_consecutive_task_limit() {
    let t = Test::new();
    let tasks: Vec<_> = (1..=10)
        .map(|n| {
            let id: &'static str = Box::leak(format!("T{n}").into_boxed_str());
            task(id, "impl").field("actions", "edit_file")
        })
        .collect();
    start(&t, &plan(&tasks));
    let run = t.wf(&["workflow-execute", "--mock", "success"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ? T1 task T1 (N.Ns) (accepted unchecked: nothing checked it)
    ▶ T2 task T2
    ? T2 task T2 (N.Ns) (accepted unchecked: nothing checked it)
    ▶ T3 task T3
    ? T3 task T3 (N.Ns) (accepted unchecked: nothing checked it)
    ▶ T4 task T4
    ? T4 task T4 (N.Ns) (accepted unchecked: nothing checked it)
    ▶ T5 task T5
    ? T5 task T5 (N.Ns) (accepted unchecked: nothing checked it)
    ▶ T6 task T6
    ? T6 task T6 (N.Ns) (accepted unchecked: nothing checked it)
    ▶ T7 task T7
    ? T7 task T7 (N.Ns) (accepted unchecked: nothing checked it)
    ▶ T8 task T8
    ? T8 task T8 (N.Ns) (accepted unchecked: nothing checked it)
    Paused (8 agent tasks in a row (the limit; set wf.max_consecutive_agent_tasks to change it)): 8/10 tasks done. Run `wf workflow-execute` to continue.
    --- stderr
    ");
    let state = t.state();
    assert_eq!(
        state["progress"]["completed"].as_array().unwrap().len(),
        8,
        "simple tasks: 8 in a row"
    );
    assert_eq!(state["consecutive_count"], 8);
    assert_eq!(
        state["contextMetrics"]["history"].as_array().unwrap().len(),
        8
    );
    // CI mode has no such limit.
    t.wf(&["workflow-execute", "--mock", "success", "--ci"])
        .ok();
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn agent_tasks_wait_when_the_context_is_past_danger() {
    let t = Test::new();
    t.config(r#"{"wf": {"context_window_tokens": 5}}"#);
    start(
        &t,
        &plan(&[
            task("T1", "impl").field("actions", "edit_file"),
            task("T2", "impl").field("actions", "edit_file"),
        ]),
    );
    // The first agent task of a run goes ahead; the next one waits.
    let run = t.wf(&["workflow-execute", "--mock", "success"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ? T1 task T1 (N.Ns) (accepted unchecked: nothing checked it)
    Paused (context usage 820% is past the danger threshold 80%): 1/2 tasks done. Run `wf workflow-execute` to continue.
    --- stderr
    ");
    assert_eq!(task_status(&t.state(), "T1"), "completed");
    assert_eq!(task_status(&t.state(), "T2"), "pending");
}
