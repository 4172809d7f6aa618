//! An agent's session through the hooks (issue 52): what it used read from its
//! transcript and counted to each task (`fixtures/transcripts/`), and the `Stop`
//! hook carrying it from task to task.

use serde_json::{json, Value};

use crate::plans::{plan, start, task};
use crate::test::{fixture, Test};

/// Two agent tasks: T1 makes hello.txt, T2 world.txt after it.
fn two_tasks(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "impl")
                .field("actions", "create_file")
                .field("创建文件", "hello.txt")
                .verify("grep -q hello hello.txt"),
            task("T2", "impl")
                .field("actions", "create_file")
                .field("创建文件", "world.txt")
                .verify("grep -q world world.txt")
                .deps("T1"),
        ]),
    );
    t.git_commit_all();
}

/// Runs `wf hook EVENT` with a payload of Claude Code's shape for session `s1`.
fn hook(t: &mut Test, event: &str, transcript: &std::path::Path, extra: Value) -> Value {
    let mut p = json!({
        "session_id": "s1",
        "transcript_path": transcript.display().to_string(),
        "cwd": t.project.display().to_string(),
        "permission_mode": "default",
        "hook_event_name": event,
    });
    if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    t.stdin(p.to_string());
    let run = t.wf(&["hook", event]).ok();
    assert_eq!(run.stderr, "", "{event}");
    if run.stdout.is_empty() {
        Value::Null
    } else {
        serde_json::from_str(run.stdout.trim()).expect("a JSON answer")
    }
}

/// Appends lines `from..to` (1-based, inclusive) of the fixture transcript: the
/// session writing them as it goes.
fn replay(to_file: &std::path::Path, from: usize, to: usize) {
    use std::io::Write;
    let all = std::fs::read_to_string(fixture("transcripts/claude-code-session.jsonl")).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(to_file)
        .unwrap();
    for line in all.lines().skip(from - 1).take(to + 1 - from) {
        writeln!(f, "{line}").unwrap();
    }
}

fn task_usage(t: &Test, id: &str) -> Value {
    let state = t.state();
    state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|task| task["id"] == id)
        .map(|task| task["usage"].clone())
        .unwrap()
}

fn assert_cost(usage: &Value, dollars: f64) {
    let cost = usage["cost_usd"].as_f64().expect("a cost");
    assert!(
        (cost - dollars).abs() < 1e-9,
        "{cost} != {dollars}: {usage}"
    );
}

#[test]
fn a_replayed_transcript_costs_each_task_what_it_used() {
    let mut t = Test::new();
    two_tasks(&t);
    let transcript = t.root.join("session.jsonl");
    // The session starts before its transcript is written.
    hook(
        &mut t,
        "SessionStart",
        &transcript,
        json!({"source": "startup"}),
    );
    // Lines 1–3: the agent starts the run; nothing is handed off when it is read.
    replay(&transcript, 1, 3);
    hook(
        &mut t,
        "UserPromptSubmit",
        &transcript,
        json!({"prompt": "go"}),
    );
    t.wf(&["workflow-execute"]).code(0);
    // Lines 4–8: T1's work, one response written as two lines. The Stop finds T1's
    // checks passing, records it with what it used, and hands the agent T2.
    replay(&transcript, 4, 8);
    t.write("hello.txt", "hello\n");
    let stop = hook(
        &mut t,
        "Stop",
        &transcript,
        json!({"stop_hook_active": false}),
    );
    assert_eq!(stop["decision"], "block", "{stop}");
    // The agent stops again before writing anything: T2 fails, nothing is read,
    // nothing counted twice.
    let stop = hook(
        &mut t,
        "Stop",
        &transcript,
        json!({"stop_hook_active": true}),
    );
    assert_eq!(stop["decision"], "block", "{stop}");
    // Lines 9–12: T2's, one of them a Haiku call.
    replay(&transcript, 9, 12);
    t.write("world.txt", "world\n");
    hook(
        &mut t,
        "UserPromptSubmit",
        &transcript,
        json!({"prompt": "go on"}),
    );
    let stop = hook(
        &mut t,
        "Stop",
        &transcript,
        json!({"stop_hook_active": false}),
    );
    assert!(stop.get("decision").is_none(), "{stop}");

    let t1 = task_usage(&t, "T1");
    assert_eq!(
        (
            &t1["input_tokens"],
            &t1["output_tokens"],
            &t1["cache_write_tokens"],
            &t1["cache_read_tokens"]
        ),
        (&json!(11_904), &json!(290), &json!(1_100), &json!(10_800)),
        "{t1}"
    );
    // Sonnet 4.5: 4 plain input × $3, 290 out × $15, 1,100 cache writes × $3.75,
    // 10,800 reads × $0.30, per million.
    assert_cost(
        &t1,
        (4.0 * 3.0 + 290.0 * 15.0 + 1_100.0 * 3.75 + 10_800.0 * 0.3) / 1e6,
    );
    let t2 = task_usage(&t, "T2");
    assert_eq!(
        (&t2["input_tokens"], &t2["output_tokens"]),
        (&json!(7_002), &json!(170)),
        "{t2}"
    );
    // Haiku 4.5 at $1/$5, then Sonnet.
    let haiku = (500.0 * 1.0 + 20.0 * 5.0) / 1e6;
    let sonnet = (2.0 * 3.0 + 150.0 * 15.0 + 400.0 * 3.75 + 6_100.0 * 0.3) / 1e6;
    assert_cost(&t2, haiku + sonnet);
    // The workflow's totals, as `wf status --json` gives them.
    let status = t.wf(&["--json", "status"]).ok().json();
    assert_eq!(
        status["usage"]["input_tokens"],
        json!(11_904 + 7_002),
        "{status}"
    );
    assert_eq!(status["usage"]["tasks"], json!(2), "{status}");
    // Nothing waits any more.
    let pending = t.workflow_dir().join("usage");
    assert_eq!(
        std::fs::read_dir(&pending).map_or(0, Iterator::count),
        0,
        "{}",
        pending.display()
    );
}

#[test]
fn a_transcript_wf_cannot_read_is_usage_unknown() {
    let mut t = Test::new();
    two_tasks(&t);
    t.wf(&["workflow-execute"]).code(0);
    let transcript = t.root.join("session.jsonl");
    hook(
        &mut t,
        "SessionStart",
        &transcript,
        json!({"source": "startup"}),
    );
    std::fs::create_dir(&transcript).unwrap();
    hook(
        &mut t,
        "UserPromptSubmit",
        &transcript,
        json!({"prompt": "go"}),
    );
    std::fs::remove_dir(&transcript).unwrap();
    std::fs::write(
        &transcript,
        "not json \"usage\"\n{\"type\":\"assistant\"}\n",
    )
    .unwrap();
    t.write("hello.txt", "hello\n");
    let stop = hook(&mut t, "Stop", &transcript, json!({}));
    assert_eq!(stop["decision"], "block", "T2 handed on: {stop}");
    assert_eq!(task_usage(&t, "T1"), Value::Null);
    assert_eq!(t.state()["tasks"][0]["status"], "completed");
}

/// Three agent tasks, each making its file: T1 and T2 in phase `a`, T3 in `b`.
fn three_tasks(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "a")
                .field("actions", "create_file")
                .field("创建文件", "one.txt")
                .verify("grep -q one one.txt"),
            task("T2", "a")
                .field("actions", "create_file")
                .field("创建文件", "two.txt")
                .verify("grep -q two two.txt")
                .deps("T1"),
            task("T3", "b")
                .field("actions", "create_file")
                .field("创建文件", "three.txt")
                .verify("grep -q three three.txt")
                .deps("T2"),
        ]),
    );
    t.git_commit_all();
}

fn statuses(t: &Test) -> Vec<String> {
    t.state()["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|task| task["status"].as_str().unwrap().to_string())
        .collect()
}

/// The agent's side of the loop: it does the task (writes its file) and stops; the
/// `Stop` payload says whether a `Stop` hook kept it working (every stop after the
/// first, since no user turn comes in between).
fn work_and_stop(t: &mut Test, file: &str, word: &str, active: bool) -> Value {
    let transcript = t.root.join("none.jsonl");
    t.write(file, format!("{word}\n"));
    hook(t, "Stop", &transcript, json!({"stop_hook_active": active}))
}

#[test]
fn the_stop_hook_carries_the_agent_through_three_tasks_in_all_mode() {
    let mut t = Test::new();
    three_tasks(&t);
    t.wf(&["workflow-execute", "--all"]).code(0);
    let first = work_and_stop(&mut t, "one.txt", "one", false);
    assert_eq!(first["decision"], "block", "{first}");
    let reason = first["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(
            "wf: task T1 (task T1) passed its checks and is done. Your next task is T2 (task T2)"
        ),
        "{reason}"
    );
    // The brief the agent needs, its Verify section first of all.
    assert!(
        reason.contains("# T2: task T2")
            && reason.contains("## Verify")
            && reason.contains("grep -q two two.txt"),
        "{reason}"
    );
    assert!(reason.len() <= 8 * 1024);
    assert_eq!(statuses(&t), ["completed", "in_progress", "pending"]);
    let second = work_and_stop(&mut t, "two.txt", "two", true);
    assert_eq!(second["decision"], "block", "{second}");
    assert!(
        second["reason"]
            .as_str()
            .unwrap()
            .contains("Your next task is T3 (task T3)"),
        "{second}"
    );
    let third = work_and_stop(&mut t, "three.txt", "three", true);
    assert_eq!(
        third,
        json!({"systemMessage": "wf: task T3 passed its checks and is done; the run stops here: the workflow is completed."})
    );
    assert_eq!(statuses(&t), ["completed", "completed", "completed"]);
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn the_loop_stops_where_the_mode_says() {
    // Phase mode: on from T1 to T2 (phase a), not into T3 (phase b).
    let mut t = Test::new();
    three_tasks(&t);
    t.wf(&["workflow-execute", "--phase"]).code(0);
    let first = work_and_stop(&mut t, "one.txt", "one", false);
    assert_eq!(first["decision"], "block", "{first}");
    let second = work_and_stop(&mut t, "two.txt", "two", true);
    assert!(second.get("decision").is_none(), "{second}");
    let message = second["systemMessage"].as_str().unwrap();
    assert!(
        message.starts_with("wf: task T2 passed its checks and is done; the run stops here:"),
        "{message}"
    );
    assert_eq!(statuses(&t), ["completed", "completed", "pending"]);

    // Step mode: T1 recorded, nothing handed on.
    let mut t = Test::new();
    three_tasks(&t);
    t.wf(&["workflow-execute", "--step"]).code(0);
    let first = work_and_stop(&mut t, "one.txt", "one", false);
    assert_eq!(
        first,
        json!({"systemMessage": "wf: task T1 passed its checks and is done; the run stops here: step mode: one task per run."})
    );
    assert_eq!(statuses(&t), ["completed", "pending", "pending"]);
}

#[test]
fn a_making_progress_agent_is_held_past_one_retry_but_not_forever() {
    let mut t = Test::new();
    three_tasks(&t);
    t.config(r#"{"wf": {"hook_max_blocks": 3}}"#);
    t.wf(&["workflow-execute", "--all"]).code(0);
    // Each stop changes the tree (a wrong word each time): still progress, so the
    // agent is kept at it although `stop_hook_active` is set, three times in all.
    for (n, word) in ["uno", "eins", "un"].iter().enumerate() {
        let stop = work_and_stop(&mut t, "one.txt", word, n > 0);
        assert_eq!(stop["decision"], "block", "stop {n}: {stop}");
    }
    let fourth = work_and_stop(&mut t, "one.txt", "jeden", true);
    assert_eq!(
        fourth["systemMessage"],
        "wf: 1 of the 1 checks of task T1 still fail; the agent was kept working on it 3 times in a row (wf.hook_max_blocks), so it may stop. `wf workflow-execute` shows what fails."
    );
    // A user's turn starts the count again; an agent that changed nothing since the
    // last failure is let stop at once.
    let fifth = work_and_stop(&mut t, "one.txt", "jeden", false);
    assert_eq!(fifth["decision"], "block", "{fifth}");
    let sixth = work_and_stop(&mut t, "one.txt", "jeden", true);
    assert_eq!(
        sixth["systemMessage"],
        "wf: 1 of the 1 checks of task T1 still fail; the agent changed nothing since they last failed, so it may stop. `wf workflow-execute` shows what fails."
    );
}
