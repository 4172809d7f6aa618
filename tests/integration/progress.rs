//! Long work is visible where no progress bar shows it: a line when a task starts, a
//! heartbeat for a task that runs long, and `--dry-run`, the order a run would take
//! without running or writing anything.

use crate::plans::{plan, start, task};
use crate::test::Test;

fn mixed_plan(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "setup").verify("echo T1"),
            task("T2", "setup")
                .verify("echo T2")
                .verify("echo again")
                .deps("T1"),
            task("T3", "build").field("actions", "edit_file").deps("T2"),
            task("T4", "build").field("质量关卡", "true").deps("T3"),
            task("T5", "ship").field("actions", "git_commit").deps("T4"),
            task("T6", "ship")
                .field("阻塞依赖", "api_spec")
                .verify("true"),
            task("T7", "ship").verify("true").deps("T6"),
        ]),
    );
}

#[test]
fn dry_run_prints_the_order_and_where_the_mode_stops_and_writes_nothing() {
    let t = Test::new();
    mixed_plan(&t);
    let before = t.workflow_files();
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--dry-run"]).whole(), @"
    exit: 0
    --- stdout
    A dry run: nothing is run or written.
    Would run, in this order, under --phase:
      1. T1 task T1: runs `echo T1`
      2. T2 task T2: runs `echo T2` and 1 more
         ↳ --phase stops here: the next task's phase differs
      3. T3 task T3: handed off to you or an agent (no executor is configured)
      4. T4 task T4: quality gate
      5. T5 task T5: commits
    Not reached:
      T6 task T6: waits on api_spec
      T7 task T7: after T6
    --- stderr
    ");
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--dry-run", "--all", "--ci"]).whole(), @"
    exit: 0
    --- stdout
    A dry run: nothing is run or written.
    Would run, in this order, under --all:
      1. T1 task T1: runs `echo T1`
      2. T2 task T2: runs `echo T2` and 1 more
      3. T3 task T3: fails: it needs an agent and --ci does not hand off
         ↳ the run fails here
      4. T4 task T4: quality gate
      5. T5 task T5: commits
    Not reached:
      T6 task T6: waits on api_spec
      T7 task T7: after T6
    --- stderr
    ");
    assert_eq!(t.workflow_files(), before, "--dry-run wrote a file");
}

#[test]
fn dry_run_json_lists_the_order_and_what_is_not_reached() {
    let t = Test::new();
    mixed_plan(&t);
    let v = t
        .wf(&["workflow-execute", "--dry-run", "--json"])
        .ok()
        .json();
    let ids = |key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids("order"), ["T1", "T2", "T3", "T4", "T5"]);
    assert_eq!(ids("not_reached"), ["T6", "T7"]);
    assert_eq!(v["mode"], "phase");
    assert!(
        crate::json_contract::schema("execute-dry-run").is_valid(&v),
        "{v:#}"
    );
}

#[test]
fn a_task_that_runs_long_gets_a_heartbeat_between_its_start_and_end() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "slow").verify("sleep 2.5")]));
    t.env("WF_TEST_HEARTBEAT_SECS", "1");
    let run = t.wf(&["workflow-execute"]).ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"▶ T1 task T1"), "{}", run.stdout);
    assert_eq!(
        lines.get(1),
        Some(&"… T1 task T1: still running (1s)"),
        "{}",
        run.stdout
    );
    assert!(
        lines.iter().any(|l| l.starts_with("✓ T1 task T1 (")),
        "{}",
        run.stdout
    );
}
