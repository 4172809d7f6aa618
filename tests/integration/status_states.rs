//! `wf status` in every state a workflow can rest in — planned, paused, blocked,
//! failed, handed off, interrupted, completed — shown whole (exit code, stdout,
//! stderr): each ends with the command to run next, as `git status` does.

use std::time::{Duration, Instant};

use crate::plans::{plan, start, task};
use crate::test::{Run, Test};

/// `wf status` whole, its task times masked (`0.1s` on a slow machine).
fn status(t: &Test) -> String {
    let run: Run = t.wf(&["status"]).ok();
    regex::Regex::new(r"\b\d+\.\ds\b")
        .unwrap()
        .replace_all(&run.whole(), "N.Ns")
        .into_owned()
}

fn two_tasks(t: &Test, second: &str) {
    start(
        t,
        &plan(&[
            task("T1", "build").verify("true"),
            task("T2", "check").verify(second).deps("T1"),
        ]),
    );
}

#[test]
fn status_of_a_planned_workflow_says_to_execute() {
    let t = Test::new();
    two_tasks(&t, "true");
    insta::assert_snapshot!(status(&t), @"
    exit: 0
    --- stdout
    ┌──────────────┬──────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ test plan                                                    │
    ╞══════════════╪══════════════════════════════════════════════════════════════╡
    │ Status       ┆ planned                                                      │
    │ Mode         ┆ --phase (stops when the phase changes)                       │
    │ Progress     ┆ [░░░░░░░░░░░░░░░░░░░░] 0% (0/2 done: 0 completed, 0 skipped) │
    │ Current task ┆ T1: task T1 (pending)                                        │
    │ Next ready   ┆ T1: task T1                                                  │
    └──────────────┴──────────────────────────────────────────────────────────────┘

    id  status   phase  time  tries  task
    T1  pending  build     -      -  task T1
    T2  pending  check     -      -  task T2

    Next: T1 is ready; `wf workflow-execute` runs it.
    --- stderr
    ");
}

#[test]
fn status_of_a_paused_workflow_names_the_next_task() {
    let t = Test::new();
    two_tasks(&t, "true");
    t.wf(&["workflow-execute", "--step"]).ok();
    insta::assert_snapshot!(status(&t), @"
    exit: 0
    --- stdout
    ┌──────────────┬───────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ test plan                                                     │
    ╞══════════════╪═══════════════════════════════════════════════════════════════╡
    │ Status       ┆ paused                                                        │
    │ Mode         ┆ --step (stops after each task)                                │
    │ Progress     ┆ [██████████░░░░░░░░░░] 50% (1/2 done: 1 completed, 0 skipped) │
    │ Current task ┆ T2: task T2 (pending)                                         │
    │ Next ready   ┆ T2: task T2                                                   │
    │ Stopped      ┆ step mode: one task per run                                   │
    └──────────────┴───────────────────────────────────────────────────────────────┘

    id  status     phase  time  tries  task
    T1  completed  build  N.Ns      1  task T1
    T2  pending    check     -      -  task T2

    Next: T2 is ready; `wf workflow-execute` runs it.
    --- stderr
    ");
}

#[test]
fn status_of_a_failed_workflow_says_how_to_see_why_retry_skip_or_abandon() {
    let t = Test::new();
    two_tasks(&t, "echo 'expected 2 words, got 3'; false");
    t.wf(&["workflow-execute", "--all"]).code(1);
    insta::assert_snapshot!(status(&t), @"
    exit: 0
    --- stdout
    ┌──────────────┬─────────────────────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ test plan                                                                   │
    ╞══════════════╪═════════════════════════════════════════════════════════════════════════════╡
    │ Status       ┆ failed                                                                      │
    │ Mode         ┆ --all (runs to the end or the first failure)                                │
    │ Progress     ┆ [██████████░░░░░░░░░░] 50% (1/2 done: 1 completed, 0 skipped)               │
    │ Current task ┆ T2: task T2 (failed)                                                        │
    │ Next ready   ┆ —                                                                           │
    │ Failed       ┆ T2: task T2 — check `echo 'expected 2 words, got 3'; false` exited with 1   │
    │ Failure      ┆ task T2 failed: check `echo 'expected 2 words, got 3'; false` exited with 1 │
    └──────────────┴─────────────────────────────────────────────────────────────────────────────┘

    id  status     phase  time  tries  task
    T1  completed  build  N.Ns      1  task T1
    T2  failed     check  N.Ns      1  task T2

    Next: Failed: T2. `wf logs T2` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip T2 --reason …`, or put the workflow away with `wf archive --force`.
    --- stderr
    ");
}

#[test]
fn status_of_a_blocked_workflow_names_the_unblock_command() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "build").verify("true"),
            task("T2", "build")
                .verify("true")
                .field("blocked_by", "api_spec")
                .deps("T1"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).code(3);
    insta::assert_snapshot!(status(&t), @"
    exit: 0
    --- stdout
    ┌──────────────┬───────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ test plan                                                     │
    ╞══════════════╪═══════════════════════════════════════════════════════════════╡
    │ Status       ┆ blocked                                                       │
    │ Mode         ┆ --all (runs to the end or the first failure)                  │
    │ Progress     ┆ [██████████░░░░░░░░░░] 50% (1/2 done: 1 completed, 0 skipped) │
    │ Current task ┆ —                                                             │
    │ Next ready   ┆ —                                                             │
    │ Blocked      ┆ T2: task T2 (api_spec)                                        │
    │ Stopped      ┆ waiting on api_spec                                           │
    └──────────────┴───────────────────────────────────────────────────────────────┘

    id  status     phase  time  tries  task
    T1  completed  build  N.Ns      1  task T1
    T2  blocked    build     -      -  task T2

    Next: Blocked by api_spec: once it is there, `wf workflow-unblock api_spec` lifts it.
    --- stderr
    ");
}

#[test]
fn status_of_a_handed_off_task_says_to_do_it_then_execute() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "build").field("actions", "edit_file")]),
    );
    t.wf(&["workflow-execute", "--all"]).code(0);
    insta::assert_snapshot!(status(&t), @"
    exit: 0
    --- stdout
    ┌──────────────┬──────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ test plan                                                    │
    ╞══════════════╪══════════════════════════════════════════════════════════════╡
    │ Status       ┆ running                                                      │
    │ Mode         ┆ --all (runs to the end or the first failure)                 │
    │ Progress     ┆ [░░░░░░░░░░░░░░░░░░░░] 0% (0/1 done: 0 completed, 0 skipped) │
    │ Current task ┆ T1: task T1 (in_progress)                                    │
    │ Next ready   ┆ —                                                            │
    │ Stopped      ┆ task T1 is handed off to an agent                            │
    │ Context      ┆ [░░░░░░░░░░░░░░░░░░░░] 0.0% (23 of 200,000 tokens, ok)       │
    └──────────────┴──────────────────────────────────────────────────────────────┘

    id  status       phase  time  tries  task
    T1  in_progress  build     -      1  task T1

    Next: T1 is in progress (handed off): do it, then run `wf workflow-execute` to verify it.
    --- stderr
    ");
}

#[test]
fn status_of_an_interrupted_run_says_to_resume() {
    let t = Test::new();
    two_tasks(&t, "sleep 30");
    let mut run = t.command(&["workflow-execute", "--all"]);
    let mut child = run
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn wf");
    let deadline = Instant::now() + Duration::from_secs(30);
    while !t
        .events()
        .iter()
        .any(|e| e["task_id"] == "T2" && e["data"]["to"] == "in_progress")
    {
        assert!(Instant::now() < deadline, "T2 never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Killed as a crash would: nothing of wf's own ends the run.
    child.kill().expect("kill wf");
    child.wait().expect("wait for wf");
    insta::assert_snapshot!(status(&t), @"
    exit: 0
    --- stdout
    ┌──────────────┬───────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ test plan                                                     │
    ╞══════════════╪═══════════════════════════════════════════════════════════════╡
    │ Status       ┆ running                                                       │
    │ Mode         ┆ --phase (stops when the phase changes)                        │
    │ Progress     ┆ [██████████░░░░░░░░░░] 50% (1/2 done: 1 completed, 0 skipped) │
    │ Current task ┆ T2: task T2 (in_progress)                                     │
    │ Next ready   ┆ —                                                             │
    └──────────────┴───────────────────────────────────────────────────────────────┘

    id  status       phase  time  tries  task
    T1  completed    build  N.Ns      1  task T1
    T2  in_progress  check     -      1  task T2

    Next: The run that was executing T2 is gone; `wf resume` runs it again.
    --- stderr
    ");
}

#[test]
fn status_of_a_completed_workflow_says_to_archive() {
    let t = Test::new();
    two_tasks(&t, "true");
    t.wf(&["workflow-execute", "--all"]).ok();
    insta::assert_snapshot!(status(&t), @"
    exit: 0
    --- stdout
    ┌──────────────┬────────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ test plan                                                      │
    ╞══════════════╪════════════════════════════════════════════════════════════════╡
    │ Status       ┆ completed                                                      │
    │ Mode         ┆ --all (runs to the end or the first failure)                   │
    │ Progress     ┆ [████████████████████] 100% (2/2 done: 2 completed, 0 skipped) │
    │ Current task ┆ —                                                              │
    │ Next ready   ┆ —                                                              │
    └──────────────┴────────────────────────────────────────────────────────────────┘

    id  status     phase  time  tries  task
    T1  completed  build  N.Ns      1  task T1
    T2  completed  check  N.Ns      1  task T2

    Next: All 2 tasks are done; archive it with `wf archive` to start another.
    --- stderr
    ");
}

#[test]
fn a_failed_workflow_resumes_after_a_fix_or_is_abandoned_with_its_record() {
    let t = Test::new();
    two_tasks(&t, "test -f fixed");
    t.wf(&["workflow-execute", "--all"]).code(1);
    t.write("fixed", "");
    let resumed = t.wf(&["resume"]).ok();
    insta::assert_snapshot!(resumed.whole(), @"
    exit: 0
    --- stdout
    Retrying T2.
    ▶ T2 task T2 (attempt 2)
    ✓ T2 task T2 (N.Ns)
    Completed: 2/2 tasks done.
    --- stderr
    ");
    assert_eq!(t.state()["status"], "completed");
    assert_eq!(t.state()["retry_counts"]["T2"], 1);

    let t = Test::new();
    two_tasks(&t, "false");
    t.wf(&["workflow-execute", "--all"]).code(1);
    let refused = t.wf(&["archive"]).code(2);
    insta::assert_snapshot!(refused.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: the workflow is failed; only a completed workflow is archived, unless `wf archive --force` abandons it (its record is kept)
    ");
    let abandoned = t.wf(&["archive", "--force"]).ok();
    insta::assert_snapshot!(abandoned.whole(), @"
    exit: 0
    --- stdout
    archived test plan to [ROOT]/home/[ID]/archive/20260108T100000Z
    start the next workflow with `wf workflow-start PLAN.md`
    --- stderr
    ");
    let archived: Vec<_> = std::fs::read_dir(t.workflow_dir().join("archive"))
        .expect("the archive dir")
        .collect();
    assert_eq!(archived.len(), 1, "one archive, with the record in it");
    let record = archived[0]
        .as_ref()
        .unwrap()
        .path()
        .join("workflow-state.json");
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(record).unwrap()).unwrap();
    assert_eq!(state["status"], "archived");
    assert_eq!(state["status_reason"], "abandoned while failed");
    assert_eq!(
        state["failure_reason"].as_str().map(|r| r.contains("T2")),
        Some(true)
    );
}
