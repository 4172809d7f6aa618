//! `wf logs [TASK]` (issue 17 item 3): a task's log, read from the project.

use crate::plans::{plan, start, task};
use crate::test::Test;

#[test]
fn logs_shows_the_failed_tasks_last_log_and_its_path() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a")
                .verify("echo checking; echo broken >&2; false")
                .deps("T1"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).code(1);
    insta::assert_snapshot!(t.wf(&["logs"]).whole(), @"
    exit: 0
    --- stdout
    $ echo checking; echo broken >&2; false
    checking
    broken
    --- stderr
    ");
    insta::assert_snapshot!(t.wf(&["logs", "T2", "--path"]).whole(), @"
    exit: 0
    --- stdout
    [ROOT]/home/[ID]/logs/T2.1.log
    --- stderr
    ");
    let json = t.wf(&["--json", "logs"]).ok().json();
    assert_eq!(
        (json["task"].as_str(), json["attempt"].as_u64()),
        (Some("T2"), Some(1))
    );
    assert!(json["text"].as_str().unwrap().contains("broken"), "{json}");
}

#[test]
fn logs_says_why_there_is_nothing_to_show() {
    let t = Test::new();
    insta::assert_snapshot!(t.wf(&["logs"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: no workflow for [ROOT]/project (id [ID]); start one with `wf workflow-start PLAN.md`
    ");
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("true"),
        ]),
    );
    insta::assert_snapshot!(t.wf(&["logs"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: no task has run yet, so there is no log; run `wf workflow-execute`
    ");
    t.wf(&["workflow-execute", "--all"]).ok();
    // A check that printed nothing and passed leaves no log.
    insta::assert_snapshot!(t.wf(&["logs", "T1"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: task T1 attempt 1 left no log at [ROOT]/home/[ID]/logs/T1.1.log: a log is kept only when a check prints something or fails
    ");
    insta::assert_snapshot!(t.wf(&["logs", "T1", "--attempt", "2"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: task T1 has run 1 time(s); --attempt takes 1 to 1
    ");
    insta::assert_snapshot!(t.wf(&["logs", "T9"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: there is no task T9 in this workflow
    ");
}
