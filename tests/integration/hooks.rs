//! `wf hook EVENT`: Claude Code hooks fed real-shaped JSON on stdin.

use serde_json::{json, Value};

use crate::plans::{plan, start, task};
use crate::test::{snapshot_dir, Test};

fn payload(t: &Test, event: &str, extra: Value) -> String {
    let mut p = json!({
        "session_id": "abc123",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": t.project.display().to_string(),
        "hook_event_name": event,
    });
    if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    p.to_string()
}

fn hook(t: &mut Test, event: &str, extra: Value) -> crate::test::Run {
    let input = payload(t, event, extra);
    t.stdin(input);
    t.wf(&["hook", event])
}

fn handed_off(t: &Test) {
    start(
        t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("grep -q hello hello.txt")]),
    );
    t.wf(&["workflow-execute"]).code(6);
}

#[test]
fn session_start_without_a_workflow_says_nothing() {
    let mut t = Test::new();
    let run = hook(&mut t, "SessionStart", json!({"source": "startup"})).ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn session_start_prints_the_next_task_brief() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "setup")
            .verify("true")
            .field("验收", "it builds")]),
    );
    let run = hook(&mut t, "SessionStart", json!({"source": "startup"})).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    wf: T1 is ready.

    # T1: task T1

    - **Workflow**: test plan
    - **Phase**: setup
    - **Status**: pending

    ## Requirement

    do T1

    ## Acceptance

    it builds

    ## Verify

    The task is done when these commands succeed (run with `sh -c` in the project directory):

    ```sh
    true
    ```

    --- stderr
    ");
}

#[test]
fn user_prompt_submit_shows_the_handed_off_task() {
    let mut t = Test::new();
    handed_off(&t);
    let run = hook(&mut t, "UserPromptSubmit", json!({"prompt": "continue"})).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    wf: T1 is in progress (handed off): do it, then run `wf workflow-execute` to verify it.

    # T1: task T1

    - **Workflow**: test plan
    - **Phase**: impl
    - **Status**: in_progress
    - **Actions**: create_file

    ## Requirement

    do T1

    ## Files

    - Create: `hello.txt`

    ## Verify

    The task is done when these commands succeed (run with `sh -c` in the project directory):

    ```sh
    grep -q hello hello.txt
    ```

    --- stderr
    ");
}

#[test]
fn stop_is_blocked_while_the_handed_off_task_fails_its_checks() {
    let mut t = Test::new();
    handed_off(&t);
    let before = snapshot_dir(&t.workflow_dir());
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    let decision: Value = serde_json::from_str(run.stdout.trim()).expect("JSON decision");
    assert_eq!(decision["decision"], "block");
    assert!(
        decision["reason"].as_str().unwrap().contains("T1"),
        "{decision}"
    );
    assert_eq!(
        before,
        snapshot_dir(&t.workflow_dir()),
        "the hook wrote in the workflow dir"
    );
}

#[test]
fn stop_is_allowed_once_the_checks_pass_or_the_hook_is_already_active() {
    let mut t = Test::new();
    handed_off(&t);
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": true})).ok();
    assert_eq!(run.stdout, "", "stop_hook_active must not loop the agent");
    t.write("hello.txt", "hello\n");
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn stop_without_an_active_task_is_allowed() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("false")]));
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn unknown_events_and_bad_json_never_block_the_editor() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    let run = hook(&mut t, "PreCompact", json!({})).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    --- stderr
    wf hook PreCompact: unknown hook event `PreCompact`; wf handles SessionStart, UserPromptSubmit, Stop and SubagentStop
    ");
    t.stdin("{not json");
    let run = t.wf(&["hook", "Stop"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    --- stderr
    wf hook Stop: the hook JSON on stdin is not valid (key must be a string at line 1 column 2); ignoring it
    ");
    assert_eq!(run.stdout, "");
}

#[test]
fn a_corrupt_state_does_not_block_the_editor() {
    let mut t = Test::new();
    std::fs::create_dir_all(t.workflow_dir()).unwrap();
    std::fs::write(t.workflow_dir().join("workflow-state.json"), "{").unwrap();
    let run = hook(&mut t, "Stop", json!({})).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    --- stderr
    wf hook Stop: [ROOT]/home/[ID]/workflow-state.json:1:1: the state file is not valid JSON (EOF while parsing an object at line 1 column 1); the file was left as it was (restore a backup-*.json or start again with `wf workflow-start --force`)
    ");
}
