//! Beyond one machine (docs/distributed.md): `wf run-task` runs one task's checks on
//! their own and writes a result file; `wf import-results` folds result files into
//! the workflow as if the tasks had run here; `wf export` writes the CI pipeline that
//! does both.

use serde_json::Value;

use crate::plans::{plan, start, task};
use crate::test::Test;

/// T1 passes; T2 (after T1) fails; T3 needs an agent; T4 after T2.
fn a_plan() -> String {
    plan(&[
        task("T1", "a").verify("echo one"),
        task("T2", "a").verify("echo broken >&2; exit 3").deps("T1"),
        task("T3", "b"),
        task("T4", "b").verify("true").deps("T2"),
    ])
}

fn result(t: &Test, rel: &str) -> Value {
    serde_json::from_str(&t.read(rel)).expect("a result file is JSON")
}

// ---- run-task ----

#[test]
fn run_task_writes_a_result_and_nothing_in_the_workflow() {
    let t = Test::new();
    start(&t, &a_plan());
    let before = t.workflow_files();
    let run = t
        .wf(&["run-task", "T1", "--result", "results/T1.json"])
        .ok();
    assert!(run.stdout.contains("Task T1 passed."), "{}", run.stdout);
    let run = t
        .wf(&["run-task", "T2", "--result", "results/T2.json"])
        .code(1);
    assert!(
        run.stderr
            .contains("Task T2 failed: check `echo broken >&2; exit 3` exited with 3"),
        "{}",
        run.stderr
    );
    assert_eq!(
        t.workflow_files(),
        before,
        "run-task wrote in the workflow dir"
    );
    assert_eq!(t.state()["status"], "planned");

    let r1 = result(&t, "results/T1.json");
    assert_eq!(r1["kind"], "wf.task_result");
    assert_eq!(r1["schemaVersion"], 2);
    assert_eq!(r1["success"], true);
    assert_eq!(r1["plan_digest"], t.state()["plan_digest"]);
    assert_eq!(r1["checks"][0]["command"], "echo one");
    assert_eq!(r1["checks"][0]["argv"], serde_json::json!(["echo", "one"]));
    assert_eq!(r1["checks"][0]["exit_code"], 0);
    assert_eq!(r1["checks"][0]["log_tail"], "one");
    let r2 = result(&t, "results/T2.json");
    assert_eq!(r2["success"], false);
    assert_eq!(r2["checks"][0]["exit_code"], 3);
    assert_eq!(r2["checks"][0]["log_tail"], "broken");
    assert_eq!(
        r2["checks"][0]["argv"],
        serde_json::json!(["/bin/sh", "-c", "echo broken >&2; exit 3"])
    );
}

#[test]
fn run_task_runs_while_another_wf_holds_the_lock() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("sleep 3"),
            task("T2", "a").verify("echo two"),
        ]),
    );
    let mut execute = t.command(&["workflow-execute", "--all"]);
    let mut child = execute
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn execute");
    // Wait until the run holds the lock (its task is in progress).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while crate::plans::task_status(&t.state(), "T1") != "in_progress" {
        assert!(
            std::time::Instant::now() < deadline,
            "the run never started T1"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    t.wf(&["run-task", "T2", "--result", "T2.json"]).ok();
    assert_eq!(result(&t, "T2.json")["success"], true);
    assert!(child.wait().expect("wait").success());
}

#[test]
fn a_result_keeps_a_bounded_tail_without_control_characters() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify(
        "i=0; while [ $i -lt 3000 ]; do printf '\\033[31mline %s\\033[0m \\007x\\n' $i; i=$((i+1)); done; exit 1",
    )]));
    t.wf(&["run-task", "T1", "--result", "T1.json"]).code(1);
    let tail = result(&t, "T1.json")["checks"][0]["log_tail"]
        .as_str()
        .expect("a tail")
        .to_string();
    assert!(tail.len() <= 4096, "{} bytes", tail.len());
    assert!(tail.lines().count() <= 41, "{} lines", tail.lines().count());
    assert!(tail.ends_with("line 2999 x"), "{tail}");
    assert!(
        !tail.chars().any(|c| c.is_control() && c != '\n'),
        "{tail:?}"
    );
}

#[test]
fn an_agent_task_is_refused_unless_the_ci_rules_fail_it() {
    let t = Test::new();
    start(&t, &a_plan());
    let run = t.wf(&["run-task", "T3", "--result", "T3.json"]).code(2);
    assert!(
        run.stderr.contains("task T3 needs an agent"),
        "{}",
        run.stderr
    );
    assert!(!t.project.join("T3.json").exists());
    t.wf(&["run-task", "T3", "--ci", "--result", "T3.json"])
        .code(1);
    let r = result(&t, "T3.json");
    assert_eq!(r["needs_agent"], true);
    assert_eq!(r["success"], false);
    assert_eq!(r["checks"], serde_json::json!([]));
    // CI=true is the CI rules too.
    let mut t2 = Test::new();
    start(&t2, &a_plan());
    t2.env("CI", "true");
    t2.wf(&["run-task", "T3", "--result", "T3.json"]).code(1);
}

#[test]
fn run_task_of_an_unknown_task_names_the_fix() {
    let t = Test::new();
    start(&t, &a_plan());
    let run = t.wf(&["run-task", "T9", "--result", "T9.json"]).code(2);
    assert_eq!(
        run.stderr.trim(),
        "wf: error: no task T9 in this workflow; `wf status` lists the task ids"
    );
}

#[test]
fn run_task_skips_the_commit_a_ci_checkout_cannot_keep() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a").verify("true").field("动作", "git_commit")]),
    );
    let run = t.wf(&["run-task", "T1", "--result", "T1.json"]).ok();
    let r = result(&t, "T1.json");
    assert_eq!(
        r["checks"].as_array().map(Vec::len),
        Some(1),
        "{}",
        run.stdout
    );
}
