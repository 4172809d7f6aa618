//! `wf events --task/--type/-n/--since` (issue 17 item 3): the events asked for,
//! nothing else; `--json` lines are the stored events with `schemaVersion` first.

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
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
       8 2026-01-08T10:00:00Z wf.orchestrator task.status_changed T2 attempt=1 log=logs/T2.1.log from=pending to=in_progress
      11 2026-01-08T10:00:00Z wf.orchestrator task.status_changed T2 verified=true duration_ms=N from=in_progress to=completed evidence={"at":"2026-01-08T10:00:00Z","inputs":{"fingerprint":"sha25…
    --- stderr
    "#);
}

#[test]
fn events_last_n_keeps_the_newest_and_json_lines_are_the_stored_ones_versioned() {
    let t = two_task_run();
    let all = t.wf(&["--json", "events"]).ok().stdout;
    let stored = std::fs::read_to_string(t.workflow_dir().join("events.jsonl")).unwrap();
    for (shown, stored) in all.lines().zip(stored.lines()) {
        let mut shown: serde_json::Value = serde_json::from_str(shown).expect("a JSON line");
        assert_eq!(shown["schemaVersion"], 2);
        shown.as_object_mut().unwrap().remove("schemaVersion");
        assert_eq!(
            shown,
            serde_json::from_str::<serde_json::Value>(stored).unwrap()
        );
    }
    assert_eq!(all.lines().count(), stored.lines().count());
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

#[test]
fn events_since_keeps_those_at_or_after_a_time_or_within_an_age() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    t.env("WF_NOW", "2026-01-08T12:00:00Z");
    t.wf(&["workflow-execute", "--all"]).ok();
    let types = |args: &[&str]| -> Vec<String> {
        t.wf(args)
            .ok()
            .stdout
            .lines()
            .map(|l| l.split_whitespace().nth(1).unwrap_or("").to_string())
            .collect()
    };
    let imported = types(&["events"]);
    let at_noon = types(&["events", "--since", "2026-01-08T12:00:00Z"]);
    assert!(imported.iter().any(|ts| ts == "2026-01-08T10:00:00Z"));
    assert!(!at_noon.is_empty());
    assert!(
        at_noon.iter().all(|ts| ts == "2026-01-08T12:00:00Z"),
        "{at_noon:?}"
    );
    // WF_NOW is 12:00: the last hour holds the run, not the import at 10:00.
    assert_eq!(types(&["events", "--since", "1h"]), at_noon);
    assert_eq!(types(&["events", "--since", "3h"]), imported);
    insta::assert_snapshot!(t.wf(&["events", "--since", "yesterday"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: --since yesterday is neither a time like 2026-11-25T10:00:00Z nor an age like 30s, 15m, 2h or 3d
    ");
}
