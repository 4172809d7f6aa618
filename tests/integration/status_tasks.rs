//! `wf status` lists the tasks: what ran, how long, how often, and what failed —
//! filtered by `--failed` and `--phase`, cut to 40 lines on a long plan unless `--all`.

use crate::plans::{plan, start, task};
use crate::test::Test;

/// The run's durations (`0.0s`, `1.2s`) vary by machine: `N.Ns`.
fn steady(text: &str) -> String {
    regex::Regex::new(r"\b\d+\.\ds\b")
        .expect("a valid regex")
        .replace_all(text, "N.Ns")
        .into_owned()
}

fn ran_with_a_failure() -> Test {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "setup").verify("true"),
            task("T2", "build").verify("true"),
            task("T3", "build").verify("echo boom; exit 3"),
            task("T4", "ship").deps("T3"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).code(1);
    t
}

/// The task list: what follows the summary table's last line.
/// The task list of `wf status`: after the summary table, before the closing
/// "Next:" line.
fn task_list(stdout: &str) -> String {
    let list = stdout.split_once("┘\n\n").map_or(stdout, |(_, list)| list);
    let list = list.split_once("\nNext: ").map_or(list, |(list, _)| list);
    steady(list)
}

#[test]
fn status_lists_every_task_with_its_time_and_attempts() {
    let t = ran_with_a_failure();
    let run = t.wf(&["status"]).ok();
    insta::assert_snapshot!(task_list(&run.stdout), @"
    id  status     phase  time  tries  task
    T1  completed  setup  N.Ns      1  task T1
    T2  completed  build  N.Ns      1  task T2
    T3  failed     build  N.Ns      1  task T3
    T4  pending    ship      -      -  task T4
    ");
}

#[test]
fn failed_and_phase_narrow_the_list() {
    let t = ran_with_a_failure();
    let failed = t.wf(&["status", "--failed"]).ok();
    insta::assert_snapshot!(task_list(&failed.stdout), @r"
    id  status  phase  time  tries  task
    T3  failed  build  N.Ns      1  task T3
    ");
    let build = t.wf(&["status", "--phase", "build"]).ok();
    insta::assert_snapshot!(task_list(&build.stdout), @r"
    id  status     phase  time  tries  task
    T2  completed  build  N.Ns      1  task T2
    T3  failed     build  N.Ns      1  task T3
    ");
}

#[test]
fn an_unknown_phase_is_refused_with_the_phases_there_are() {
    let t = ran_with_a_failure();
    insta::assert_snapshot!(t.wf(&["status", "--phase", "deploy"]).whole(), @r"
    exit: 2
    --- stdout
    --- stderr
    wf: error: --phase deploy: no task of the plan is in that phase; its phases: setup, build, ship
    ");
}

#[test]
fn a_long_plan_is_cut_to_what_needs_attention_unless_all() {
    let t = Test::new();
    let tasks: Vec<String> = (1..=60).map(|n| format!("T{n}")).collect();
    start(
        &t,
        &plan(&tasks.iter().map(|id| task(id, "a")).collect::<Vec<_>>()),
    );
    let cut = t.wf(&["status"]).ok();
    let list = task_list(&cut.stdout);
    assert_eq!(
        list.lines().count(),
        42,
        "header, 40 tasks, the note:\n{list}"
    );
    assert!(
        list.ends_with("… and 20 more (0 done, 20 to do): `wf status --all` lists every task.\n"),
        "{list}"
    );
    let all = t.wf(&["status", "--all"]).ok();
    assert_eq!(task_list(&all.stdout).lines().count(), 61);
}
