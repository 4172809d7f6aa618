//! `wf next` and `workflow-execute` agree in every state a workflow can be in (issue
//! 16): what `next` names is what `execute` does — the task it names is the one
//! `execute` works on, and when `next` says nothing can run, `execute` refuses or
//! stops with the same code `next` exits with.

use std::time::{Duration, Instant};

use crate::plans::{plan, start, task, task_status};
use crate::test::Test;

/// Runs `wf next`, then `wf workflow-execute`, and checks they agree.
#[track_caller]
fn agree(t: &Test, state: &str, want_reason: &str) {
    let next = t.wf(&["next", "--json"]);
    let answer = next.json();
    assert_eq!(answer["reason"], want_reason, "{state}: {answer:#}");
    let named = answer["brief"]["task"]["id"].as_str().map(str::to_string);
    let before = t.events().len();
    let execute = t.wf(&["workflow-execute", "--json"]);
    let worked_on = t
        .events()
        .into_iter()
        .skip(before)
        .find_map(|e| e["task_id"].as_str().map(str::to_string));
    match want_reason {
        "ready" | "in_progress" | "interrupted" => {
            assert_eq!(next.code, 0, "{state}: next goes on");
            assert_eq!(
                worked_on, named,
                "{state}: next named {named:?}, execute worked on {worked_on:?}\n{}",
                execute.stderr
            );
        }
        "done" => {
            assert_eq!((next.code, execute.code), (0, 0), "{state}");
            assert_eq!(execute.json()["stop"], "completed", "{state}");
            assert_eq!(worked_on, None, "{state}: nothing to work on");
        }
        // Nothing can run: execute refuses or stops with the code next exits with.
        _ => {
            assert_ne!(next.code, 0, "{state}");
            assert_eq!(
                execute.code, next.code,
                "{state}: next exits {}, execute {}\n{}",
                next.code, execute.code, execute.stderr
            );
            assert_eq!(worked_on, None, "{state}: no task may run");
        }
    }
}

#[test]
fn next_and_execute_agree_in_every_state() {
    // Planned: the first task.
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "b").verify("true"),
        ]),
    );
    agree(&t, "planned", "ready");

    // Paused before a quality gate, then failed, then handed off.
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a")
                .field("actions", "run_tests")
                .field("quality_gate", "true")
                .deps("T1"),
            task("T3", "a").verify("test -f done.txt").deps("T2"),
            task("T4", "a").deps("T3"),
            // Ready whatever T3 does: a failed workflow must still be refused first.
            task("T5", "a").verify("true"),
        ]),
    );
    t.wf(&["workflow-execute", "--quality-gate"]).ok();
    assert_eq!(
        task_status(&t.state(), "T2"),
        "pending",
        "paused before the gate"
    );
    agree(&t, "paused at a gate", "ready");
    assert_eq!(task_status(&t.state(), "T3"), "failed");
    agree(&t, "failed", "failed");
    // T3 fixed; T4 is agent work and goes to the agent.
    t.write("done.txt", "x");
    t.wf(&["workflow-execute", "--retry"]).code(0);
    agree(&t, "handed off", "in_progress");

    // Blocked: the only task left waits on an API spec.
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").field("阻塞依赖", "api_spec").verify("true"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).code(3);
    agree(&t, "blocked", "blocked");
    // Every task done but not yet completed, then completed.
    t.wf(&["workflow-unblock", "api_spec"]).ok();
    agree(&t, "unblocked", "ready");
    agree(&t, "completed", "done");

    // A decision is needed: an open question nobody answered.
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    t.write("analysis.json", r#"{"openQuestions": ["which database?"]}"#);
    t.wf(&["constraints", "merge", "analysis.json"]).ok();
    agree(&t, "undecided", "undecided");

    // Interrupted: a run killed while T1's check ran.
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("sleep 2"),
            task("T2", "a").verify("true"),
        ]),
    );
    let mut run = t
        .command(&["workflow-execute", "--all"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start a run");
    let deadline = Instant::now() + Duration::from_secs(20);
    while task_status(&t.state(), "T1") != "in_progress" {
        assert!(Instant::now() < deadline, "T1 never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    run.kill().expect("kill the run");
    run.wait().expect("reap the run");
    let next = t.wf(&["next", "--json"]).ok().json();
    assert_eq!(next["reason"], "interrupted", "{next:#}");
    assert_eq!(next["brief"]["task"]["id"], "T1");
    let before = t.events().len();
    let execute = t.wf(&["workflow-execute", "--step"]);
    assert!(
        execute.stderr.contains("interrupted; T1 will run again"),
        "{}",
        execute.stderr
    );
    let reran = t
        .events()
        .into_iter()
        .skip(before)
        .find(|e| e["type"] == "task.status_changed" && e["data"]["to"] == "in_progress")
        .map(|e| e["task_id"].clone());
    assert_eq!(reran, Some("T1".into()));
}
