//! Crash recovery around a hand-off: what a killed `wf` left running is ended before
//! the next run starts the same work again, and the hand-off itself survives.

use std::process::{Child, Stdio};
use std::time::Duration;

use crate::plans::{plan, start, task, task_status};
use crate::test::Test;

/// A `workflow-execute` in the background, once `marker` (a file a check writes
/// when it starts) exists in the project.
fn execute_until(t: &Test, marker: &str) -> Child {
    let child = t
        .command(&["workflow-execute"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn wf");
    let started = t.project.join(marker);
    for _ in 0..500 {
        if started.exists() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(
        started.exists(),
        "{marker} never appeared: the check never started"
    );
    child
}

#[test]
fn a_crash_while_taking_back_a_handed_off_task_leaves_no_check_running() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a")
            .field("actions", "edit_file")
            .verify("echo x >> starts.log && sleep 2 && echo x >> ends.log")]),
    );
    t.wf(&["workflow-execute"]).code(0);
    // Taking T1 back runs its check; kill wf while the check sleeps.
    let mut child = execute_until(&t, "starts.log");
    let _ = child.kill(); // SIGKILL
    child.wait().expect("reap wf");
    // Still handed off: the agent's work is not lost.
    let state = t.state_file();
    assert_eq!(task_status(&state, "T1"), "in_progress");
    assert_eq!(state["tasks"][0]["handed_off"], true, "{state}");

    t.wf(&["workflow-execute"]).ok();
    // Give an orphaned first check the time to finish, had it survived.
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(t.read("starts.log"), "x\nx\n");
    assert_eq!(t.read("ends.log"), "x\n", "the old check was still running");
    assert_eq!(task_status(&t.state(), "T1"), "completed");
}

#[test]
fn a_stale_hand_off_reason_is_cleared_when_the_task_is_taken_back() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").field("actions", "edit_file").verify("true"),
            task("T2", "a")
                .verify("touch t2.started && sleep 3")
                .deps("T1"),
        ]),
    );
    t.wf(&["workflow-execute"]).code(0);
    assert_eq!(
        t.state_file()["status_reason"],
        "task T1 is handed off to an agent"
    );
    let mut child = execute_until(&t, "t2.started");
    // T1 is back and T2 runs: nothing is handed off any more.
    let mut state = t.state();
    for _ in 0..300 {
        if task_status(&state, "T1") == "completed" {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
        state = t.state();
    }
    let _ = child.wait();
    assert_eq!(task_status(&state, "T1"), "completed");
    assert!(state["status_reason"].is_null(), "{state}");
}
