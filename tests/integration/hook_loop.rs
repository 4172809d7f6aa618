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
    t.wf(&["workflow-execute"]).code(6);
    // Lines 4–8: T1's work, one response written as two lines.
    replay(&transcript, 4, 8);
    t.write("hello.txt", "hello\n");
    hook(
        &mut t,
        "Stop",
        &transcript,
        json!({"stop_hook_active": false}),
    );
    // A second Stop reads nothing new: nothing counted twice.
    hook(
        &mut t,
        "Stop",
        &transcript,
        json!({"stop_hook_active": true}),
    );
    t.wf(&["workflow-execute"]).code(6);
    // Lines 9–12: T2's, one of them a Haiku call.
    replay(&transcript, 9, 12);
    t.write("world.txt", "world\n");
    hook(
        &mut t,
        "UserPromptSubmit",
        &transcript,
        json!({"prompt": "go on"}),
    );
    t.wf(&["workflow-execute"]).ok();

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
    t.wf(&["workflow-execute"]).code(6);
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
    hook(&mut t, "Stop", &transcript, json!({}));
    t.wf(&["workflow-execute"]).code(6);
    assert_eq!(task_usage(&t, "T1"), Value::Null);
}
