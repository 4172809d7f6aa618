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

#[test]
fn logs_follow_prints_the_running_attempt_until_it_ends() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify("echo one; sleep 1; echo two; sleep 1; printf 'three\\033]0;title\\007\\n'")]),
    );
    let mut run = t
        .command(&["workflow-execute", "--all"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start the run");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while crate::plans::task_status(&t.state(), "T1") != "in_progress" {
        assert!(std::time::Instant::now() < deadline, "T1 never started");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let began = std::time::Instant::now();
    let mut follow = t.command(&["logs", "--follow"]);
    follow.stdout(std::process::Stdio::piped());
    let follow = t.within(follow, 30);
    assert!(run.wait().expect("the run ends").success());
    assert!(
        began.elapsed() >= std::time::Duration::from_millis(1500),
        "--follow ended before the attempt did"
    );
    // The whole log, in order; piped, the task's bytes are passed on as written.
    insta::assert_snapshot!(follow.whole().replace('\u{1b}', "<ESC>").replace('\u{7}', "<BEL>"), @r"
    exit: 0
    --- stdout
    $ echo one; sleep 1; echo two; sleep 1; printf 'three\033]0;title\007\n'
    one
    two
    three<ESC>]0;title<BEL>
    --- stderr
    ");
}

#[test]
fn logs_follow_of_an_ended_attempt_prints_it_and_returns() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("echo done; false")]));
    t.wf(&["workflow-execute", "--all"]).code(1);
    let mut follow = t.command(&["logs", "--follow"]);
    follow.stdout(std::process::Stdio::piped());
    let run = t.within(follow, 10);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    $ echo done; false
    done
    --- stderr
    ");
    insta::assert_snapshot!(t.wf(&["logs", "--follow", "--json"]).whole(), @r#"
    exit: 2
    --- stdout
    {
      "schemaVersion": 2,
      "error": {
        "kind": "usage",
        "message": "--follow prints a stream, which has no JSON form; use --json without it, or --path",
        "exit_code": 2
      }
    }
    --- stderr
    wf: error: --follow prints a stream, which has no JSON form; use --json without it, or --path
    "#);
}
