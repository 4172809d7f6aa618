//! `wf events --task/--type/-n` (issue 17 item 3): the events asked for, nothing else.

use crate::plans::{plan, start, task};
use crate::test::Test;

fn two_task_run() -> Test {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("true").deps("T1"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    t
}

#[test]
fn events_filter_by_task_and_type() {
    let t = two_task_run();
    let run = t.wf(&["events", "--task", "T2", "--type", "task.status_changed"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
       8 2026-01-08T10:00:00Z wf.orchestrator task.status_changed T2 attempt=1 log=logs/T2.1.log from=pending to=in_progress
      11 2026-01-08T10:00:00Z wf.orchestrator task.status_changed T2 verified=true duration_ms=0 from=in_progress to=completed
    --- stderr
    ");
}

#[test]
fn events_last_n_keeps_the_newest_and_json_lines_stay_as_stored() {
    let t = two_task_run();
    let all = t.wf(&["--json", "events"]).ok().stdout;
    let last = t.wf(&["--json", "events", "-n", "2"]).ok().stdout;
    let tail: Vec<&str> = all
        .lines()
        .rev()
        .take(2)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    assert_eq!(last.lines().collect::<Vec<_>>(), tail);
}

#[test]
fn events_refuses_a_type_wf_never_writes() {
    let t = two_task_run();
    let run = t.wf(&["events", "--type", "task.done"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.starts_with("wf: error: --type task.done: wf writes no such event; use one of workflow.status_changed, task.status_changed,"),
        "{}",
        run.stderr
    );
}
