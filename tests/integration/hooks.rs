//! `wf hook EVENT`: Claude Code hooks fed real-shaped JSON on stdin (the field
//! names of docs/hooks.md: `session_id`, `transcript_path`, `cwd`,
//! `permission_mode`, `hook_event_name`, `source`, `prompt`, `stop_hook_active`,
//! `last_assistant_message`), answering in the shapes docs/hooks.md gives.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::plans::{plan, start, task};
use crate::test::{snapshot_dir, Run, Test};

fn payload(t: &Test, event: &str, extra: Value) -> String {
    let mut p = json!({
        "session_id": "abc123",
        "transcript_path": "/tmp/transcript.jsonl",
        "cwd": t.project.display().to_string(),
        "permission_mode": "default",
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

/// The `additionalContext` of a `SessionStart` or `UserPromptSubmit` answer.
fn context(run: &Run, event: &str) -> String {
    let answer: Value = serde_json::from_str(run.stdout.trim()).expect("a JSON answer");
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"], event,
        "{answer}"
    );
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .expect("additionalContext")
        .to_string()
}

/// The answer as JSON, `null` when the hook printed nothing.
fn answer(run: &Run) -> Value {
    if run.stdout.is_empty() {
        return Value::Null;
    }
    serde_json::from_str(run.stdout.trim()).expect("a JSON answer")
}

/// The project as a git repository with everything committed.
fn git_init(t: &Test) {
    t.git_commit_all();
}

fn handed_off(t: &Test) {
    start(
        t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("grep -q hello hello.txt")]),
    );
    t.wf(&["workflow-execute"]).code(0);
}

#[test]
fn session_start_without_a_workflow_says_nothing() {
    let mut t = Test::new();
    let run = hook(&mut t, "SessionStart", json!({"source": "startup"})).ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn session_start_gives_the_line_and_the_next_task_brief() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "setup")
            .verify("true")
            .field("验收", "it builds")]),
    );
    let run = hook(
        &mut t,
        "SessionStart",
        json!({"source": "startup", "model": "claude-sonnet-4-5"}),
    )
    .ok();
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
    {"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"wf: workflow planned (0/1 tasks done). Current task T1 (task T1): ready.\n\n# T1: task T1\n\n- **Workflow**: test plan\n- **Phase**: setup\n- **Status**: pending\n\n## Requirement\n\ndo T1\n\n## Acceptance\n\nit builds\n\n## Verify\n\nThe task is done when these commands succeed (run with `sh -c` in the project directory):\n\n```sh\ntrue\n```\n"}}
    --- stderr
    "#);
}

/// Two agent tasks, T1 handed off: T1 makes hello.txt, T2 world.txt.
fn two_handed_off(t: &Test) {
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
    t.wf(&["workflow-execute"]).code(0);
}

#[test]
fn the_brief_is_given_once_per_session_and_again_when_the_task_changes() {
    let mut t = Test::new();
    two_handed_off(&t);
    let prompt = |t: &mut Test, session: &str| {
        let run = hook(
            t,
            "UserPromptSubmit",
            json!({"session_id": session, "prompt": "continue"}),
        )
        .ok();
        assert_eq!(run.stderr, "");
        context(&run, "UserPromptSubmit")
    };
    // The first prompt of a session: the line, then the brief.
    let first = prompt(&mut t, "s1");
    insta::assert_snapshot!(first, @r"
    wf: workflow running (0/2 tasks done). Current task T1 (task T1): in progress (handed off to you): do it; when you stop, wf runs its checks.

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
    ");
    // The next prompts of that session: one line.
    let second = prompt(&mut t, "s1");
    insta::assert_snapshot!(second, @"wf: workflow running (0/2 tasks done). Current task T1 (task T1): in progress (handed off to you): do it; when you stop, wf runs its checks. Its brief was given earlier in this session; `wf next` prints it again.");
    assert_eq!(prompt(&mut t, "s1"), second);
    // Another session has not seen it.
    assert_eq!(prompt(&mut t, "s2"), first);
    // A compacted context lost it: SessionStart gives it again, then one line.
    let run = hook(
        &mut t,
        "SessionStart",
        json!({"session_id": "s1", "source": "compact"}),
    )
    .ok();
    assert_eq!(context(&run, "SessionStart"), first);
    assert!(!prompt(&mut t, "s1").contains("# T1"));
    // A resumed session still has it.
    let run = hook(
        &mut t,
        "SessionStart",
        json!({"session_id": "s1", "source": "resume"}),
    )
    .ok();
    assert!(!context(&run, "SessionStart").contains("# T1"));
    // T1 done, T2 handed off: the current task changed, so its brief comes.
    t.write("hello.txt", "hello\n");
    t.wf(&["workflow-execute"]).code(0);
    let next = prompt(&mut t, "s1");
    assert!(
        next.starts_with(
            "wf: workflow running (1/2 tasks done). Current task T2 (task T2): in progress"
        ) && next.contains("\n\n# T2: task T2\n")
            && next.contains("grep -q world world.txt"),
        "{next}"
    );
    assert!(!prompt(&mut t, "s1").contains("# T2"));
    // Without a session id there is nothing to remember by: the brief every time.
    let run = hook(
        &mut t,
        "UserPromptSubmit",
        json!({"session_id": null, "prompt": "go"}),
    )
    .ok();
    assert!(context(&run, "UserPromptSubmit").contains("# T2"));
    // The markers are the hook's own files, under hooks/sessions/.
    let markers = std::fs::read_dir(t.workflow_dir().join("hooks/sessions"))
        .unwrap()
        .count();
    assert_eq!(markers, 2);
}

#[test]
fn a_ready_task_is_one_line_on_a_prompt_and_nothing_to_do_is_said_too() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    let run = hook(&mut t, "UserPromptSubmit", json!({"prompt": "hi"})).ok();
    insta::assert_snapshot!(context(&run, "UserPromptSubmit"), @"wf: workflow planned (0/1 tasks done). Current task T1 (task T1): ready.");
    t.wf(&["workflow-execute"]).ok();
    let run = hook(&mut t, "UserPromptSubmit", json!({"prompt": "hi"})).ok();
    insta::assert_snapshot!(context(&run, "UserPromptSubmit"), @"wf: workflow completed (1/1 tasks done). All 1 tasks are done; archive it with `wf archive` to start another.");
}

/// T1 handed off, with a check that prints 25 lines (colours included) and fails,
/// one that fails silently, and a declared file that is missing.
fn failing_loudly(t: &Test) {
    start(
        t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("echo building; for n in $(seq 1 25); do echo \"test $n ok\"; done; printf '\\033[31mFAILED: expected hello\\033[0m\\n' >&2; exit 3")
            .field("验证命令", "`test -f hello.txt`")]),
    );
    t.wf(&["workflow-execute"]).code(0);
}

/// The whole output, then the block reason as the agent reads it.
fn whole_with_reason(run: &Run) -> String {
    let reason = answer(run)["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    format!("{}--- reason\n{reason}\n", run.whole())
}

#[test]
fn stop_blocks_with_each_failing_check_its_exit_and_the_tail_of_its_log() {
    let mut t = Test::new();
    failing_loudly(&t);
    let run = hook(
        &mut t,
        "Stop",
        json!({"stop_hook_active": false, "last_assistant_message": "Done!"}),
    )
    .ok();
    insta::assert_snapshot!(whole_with_reason(&run), @r#"
    exit: 0
    --- stdout
    {"decision":"block","reason":"wf: task T1 (task T1) is not done: 3 of its 3 checks fail.\n\n✗ `echo building; for n in $(seq 1 25); do echo \"test $n ok\"; done; printf '\\033[31mFAILED: expected hello\\033[0m\\n' >&2; exit 3` exited with 3; the last lines of its output:\n    test 7 ok\n    test 8 ok\n    test 9 ok\n    test 10 ok\n    test 11 ok\n    test 12 ok\n    test 13 ok\n    test 14 ok\n    test 15 ok\n    test 16 ok\n    test 17 ok\n    test 18 ok\n    test 19 ok\n    test 20 ok\n    test 21 ok\n    test 22 ok\n    test 23 ok\n    test 24 ok\n    test 25 ok\n    FAILED: expected hello\n\n✗ `test -f hello.txt` exited with 1 and printed nothing\n\n✗ declared files are missing: hello.txt\n\nFix what these checks report and run them yourself to confirm. When you stop again, wf runs them again; once they pass, wf records the task as done and gives you the next one."}
    --- stderr
    --- reason
    wf: task T1 (task T1) is not done: 3 of its 3 checks fail.

    ✗ `echo building; for n in $(seq 1 25); do echo "test $n ok"; done; printf '\033[31mFAILED: expected hello\033[0m\n' >&2; exit 3` exited with 3; the last lines of its output:
        test 7 ok
        test 8 ok
        test 9 ok
        test 10 ok
        test 11 ok
        test 12 ok
        test 13 ok
        test 14 ok
        test 15 ok
        test 16 ok
        test 17 ok
        test 18 ok
        test 19 ok
        test 20 ok
        test 21 ok
        test 22 ok
        test 23 ok
        test 24 ok
        test 25 ok
        FAILED: expected hello

    ✗ `test -f hello.txt` exited with 1 and printed nothing

    ✗ declared files are missing: hello.txt

    Fix what these checks report and run them yourself to confirm. When you stop again, wf runs them again; once they pass, wf records the task as done and gives you the next one.
    "#);
}

#[test]
fn a_failure_on_an_unchanged_tree_is_answered_without_running_the_check_again() {
    let mut t = Test::new();
    // The check counts its runs in a file outside the project (not in its tree),
    // and takes two seconds, so a rerun also shows in the time.
    start(
        &t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("echo run >> ../runs.txt; sleep 2; grep hello hello.txt")]),
    );
    t.wf(&["workflow-execute"]).code(0);
    git_init(&t);
    let counter = t.root.join("runs.txt");
    let runs = || {
        std::fs::read_to_string(&counter)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let stop = |t: &mut Test| {
        let started = Instant::now();
        let run = hook(t, "Stop", json!({"stop_hook_active": false})).ok();
        (answer(&run), started.elapsed())
    };
    let (first, took) = stop(&mut t);
    assert_eq!(first["decision"], "block", "{first}");
    assert_eq!(runs(), 1);
    assert!(took >= Duration::from_secs(2), "{took:?}");
    // Nothing changed: the same failure, at once, the check not run.
    let (second, took) = stop(&mut t);
    assert_eq!(runs(), 1, "the check ran again on an unchanged tree");
    assert!(took < Duration::from_secs(2), "{took:?}");
    assert_eq!(second["decision"], "block");
    let reason = second["reason"].as_str().unwrap();
    assert!(
        reason.contains(
            "The working tree has not changed since they last ran, so they were not run again"
        ),
        "{reason}"
    );
    // The first reason, less that sentence.
    assert_eq!(
        reason.replace("\nThe working tree has not changed since they last ran, so they were not run again; this is their last result.", ""),
        first["reason"].as_str().unwrap()
    );
    // A change to the tree (an untracked file here) runs the check again.
    t.write("hello.txt", "goodbye\n");
    let (third, _) = stop(&mut t);
    assert_eq!(runs(), 2);
    assert_eq!(third["decision"], "block");
    assert!(!third["reason"].as_str().unwrap().contains("not run again"));
    // So does a second edit of the same file, and then it passes: the hook records
    // T1 as `wf workflow-execute` would, its checks run once more in full (issue 52:
    // the loop flows; a pass is not remembered, the engine checks for itself).
    t.write("hello.txt", "hello\n");
    let (fourth, _) = stop(&mut t);
    assert_eq!(runs(), 4);
    assert_eq!(
        fourth,
        json!({"systemMessage": "wf: task T1 passed its checks and is done; the run stops here: the workflow is completed."})
    );
}

#[test]
fn outside_git_the_checks_always_run() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("echo run >> ../runs.txt; false")]),
    );
    t.wf(&["workflow-execute"]).code(0);
    for _ in 0..2 {
        let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
        assert_eq!(answer(&run)["decision"], "block");
    }
    let runs = std::fs::read_to_string(t.root.join("runs.txt")).unwrap();
    assert_eq!(runs.lines().count(), 2);
}

#[test]
fn stop_writes_only_its_own_files_in_the_workflow_dir() {
    let mut t = Test::new();
    handed_off(&t);
    git_init(&t);
    let outside_hooks = |t: &Test| -> Vec<_> {
        snapshot_dir(&t.workflow_dir())
            .into_iter()
            .filter(|(p, _)| !p.starts_with(t.workflow_dir().join("hooks")))
            .collect()
    };
    let before = outside_hooks(&t);
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    assert_eq!(answer(&run)["decision"], "block");
    assert_eq!(
        before,
        outside_hooks(&t),
        "the hook wrote in the workflow dir"
    );
    let hooks_dir = t.workflow_dir().join("hooks");
    let mut hooks: Vec<_> = snapshot_dir(&hooks_dir)
        .into_iter()
        .map(|(p, _)| {
            let rel = p.strip_prefix(&hooks_dir).unwrap().to_string_lossy();
            // A session's file is named by the hash of its id.
            match rel.split_once('/') {
                Some((dir, _)) => format!("{dir}/SESSION.json"),
                None => rel.into_owned(),
            }
        })
        .collect();
    hooks.sort();
    // Where it read the session's transcript to, besides the checks' memo.
    assert_eq!(
        hooks,
        [
            "stop-blocks.json",
            "stop-checks.json",
            "transcripts/SESSION.json"
        ]
    );
}

/// `stop_hook_active` (issue 52): an agent a `Stop` already kept working is held
/// again while it changes something (tests/integration/hook_loop.rs counts the
/// limit), and let stop when it changed nothing; a passing task is recorded.
#[test]
fn stop_hook_active_lets_an_agent_that_changed_nothing_stop() {
    let mut t = Test::new();
    handed_off(&t);
    git_init(&t);
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": true})).ok();
    assert_eq!(
        answer(&run)["decision"],
        "block",
        "a first failure holds the agent"
    );
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": true})).ok();
    assert_eq!(
        answer(&run),
        json!({"systemMessage": "wf: 2 of the 2 checks of task T1 still fail; the agent changed nothing since they last failed, so it may stop. `wf workflow-execute` shows what fails."}),
        "stop_hook_active must not loop an agent that does nothing"
    );
    t.write("hello.txt", "hello\n");
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    assert_eq!(
        answer(&run)["systemMessage"],
        "wf: task T1 passed its checks and is done; the run stops here: the workflow is completed."
    );
    assert!(answer(&run).get("decision").is_none());
}

#[test]
fn stop_without_an_active_task_is_allowed() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("false")]));
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn subagent_stop_blocks_only_when_configured() {
    let mut t = Test::new();
    handed_off(&t);
    let subagent = json!({
        "stop_hook_active": false,
        "agent_id": "a1b2c3",
        "agent_type": "Explore",
        "agent_transcript_path": "/tmp/agent.jsonl",
        "last_assistant_message": "Found it."
    });
    let run = hook(&mut t, "SubagentStop", subagent.clone()).ok();
    assert_eq!(
        run.stdout, "",
        "a subagent's stop is not blocked by default"
    );
    assert_eq!(run.stderr, "");
    t.config(r#"{"wf": {"block_subagent_stop": true}}"#);
    let run = hook(&mut t, "SubagentStop", subagent).ok();
    let answer = answer(&run);
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(answer["reason"]
        .as_str()
        .unwrap()
        .starts_with("wf: task T1 (task T1) is not done: 2 of its 2 checks fail."));
    t.config(r#"{"wf": {"block_subagent_stop": false}}"#);
    let run = hook(&mut t, "SubagentStop", json!({"stop_hook_active": false})).ok();
    assert_eq!(run.stdout, "");
}

#[test]
fn a_check_that_overruns_the_hook_budget_is_reported_not_blocked() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("sleep 30")
            .field("验证命令", "`false`")]),
    );
    t.wf(&["workflow-execute"]).code(0);
    // The hello.txt is there, so only the budget stands in the way.
    t.write("hello.txt", "hello\n");
    t.config(r#"{"wf": {"hook_timeout_secs": 1}}"#);
    let started = Instant::now();
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
    {"systemMessage":"wf: the checks of task T1 did not finish within the hook's 1 s budget (wf.hook_timeout_secs), so the stop was not blocked; run `wf workflow-execute` to check the task in full."}
    --- stderr
    "#);
    // The task's own timeout, below the budget, is a failure of the work.
    t.config(r#"{"wf": {"hook_timeout_secs": 30, "timeout_secs": 1}}"#);
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    let reason = answer(&run)["reason"].as_str().unwrap().to_string();
    assert!(
        reason.contains("✗ `sleep 30` timed out after 1s"),
        "{reason}"
    );
    assert!(
        reason.contains("✗ `false` exited with 1 and printed nothing"),
        "{reason}"
    );
}

#[test]
fn a_bad_hook_setting_is_a_warning_not_a_broken_editor() {
    let mut t = Test::new();
    handed_off(&t);
    t.config(r#"{"wf": {"hook_timeout_secs": 600}}"#);
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    --- stderr
    wf hook Stop: [ROOT]/project/.claude/config/project-config.json:1:9: wf.hook_timeout_secs is 600, outside 1..=590; set it within that range or remove it
    ");
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

/// A spec-kit line has no command: `Stop` blocks on the file its line creates
/// (docs/proof.md "Derived checks") until the agent writes it.
#[test]
fn stop_blocks_on_the_file_a_spec_kit_line_creates() {
    let mut t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create the project README in README.md\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute"]).code(0);
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    let reason = answer(&run)["reason"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        reason.contains("declared files are missing: README.md"),
        "{}",
        run.stdout
    );
    t.write("README.md", "# the project\n");
    let run = hook(&mut t, "Stop", json!({"stop_hook_active": false})).ok();
    assert_eq!(answer(&run)["decision"], Value::Null, "{}", run.stdout);
}
