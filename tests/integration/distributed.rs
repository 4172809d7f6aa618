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

// ---- import-results ----

/// Runs `ids`' checks with run-task into `results/<id>.json`.
fn run_tasks(t: &Test, ids: &[&str]) {
    for id in ids {
        t.wf(&[
            "run-task",
            id,
            "--ci",
            "--result",
            &format!("results/{id}.json"),
        ]);
    }
}

#[test]
fn imported_results_read_like_a_local_run() {
    // The same plan, run locally and distributed: status, JUnit and the summary agree
    // but for times.
    let local = Test::new();
    start(&local, &a_plan());
    local
        .wf(&["workflow-execute", "--all", "--ci", "-k"])
        .code(1);

    let t = Test::new();
    start(&t, &a_plan());
    run_tasks(&t, &["T1", "T2", "T3"]);
    let run = t.wf(&["import-results", "results"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    --- stderr
    ✓ T1 completed (results/T1.json)
    ✗ T2 failed (results/T2.json)
    ✗ T3 failed (results/T3.json)
    Imported 3 result(s), refused 0; the workflow is failed.
    ");
    let statuses = |t: &Test| crate::plans::statuses(&t.state());
    assert_eq!(statuses(&t), statuses(&local));
    assert_eq!(t.state()["status"], "failed");
    crate::plans::assert_invariants(&t);
    let summary = |t: &Test| t.wf(&["report", "github-summary"]).ok().stdout;
    assert_eq!(summary(&t), summary(&local));
    let junit = |t: &Test| {
        let time = regex::Regex::new(r#" time="[0-9.]+""#).unwrap();
        let xml = t.wf(&["report", "junit"]).ok().stdout;
        time.replace_all(&xml, "").into_owned()
    };
    assert_eq!(junit(&t), junit(&local));
}

#[test]
fn results_are_applied_in_dependency_order_and_the_same_result_twice_changes_nothing() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("true").deps("T1"),
            task("T3", "a").verify("true").deps("T2"),
        ]),
    );
    run_tasks(&t, &["T1", "T2", "T3"]);
    // Named last first: applied first to last all the same.
    t.wf(&[
        "import-results",
        "results/T3.json",
        "results/T2.json",
        "results/T1.json",
    ])
    .ok();
    assert_eq!(t.state()["status"], "completed");
    let before = t.workflow_files();
    let again = t.wf(&["import-results", "results", "--json"]).ok().json();
    let fates: Vec<&str> = again["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["fate"].as_str().unwrap())
        .collect();
    assert_eq!(fates, ["duplicate", "duplicate", "duplicate"]);
    assert_eq!(
        t.workflow_files(),
        before,
        "a duplicate import wrote something"
    );
}

#[test]
fn a_result_whose_dependency_is_not_done_is_refused() {
    let t = Test::new();
    start(&t, &a_plan());
    run_tasks(&t, &["T4"]);
    let run = t.wf(&["import-results", "results/T4.json"]).code(2);
    assert!(
        run.stderr
            .contains("refused: task T4 depends on T2, which is not done"),
        "{}",
        run.stderr
    );
    assert_eq!(crate::plans::task_status(&t.state(), "T4"), "pending");
    assert_eq!(
        t.state()["status"],
        "planned",
        "nothing applied, nothing moved"
    );
    // T2 failed, so T4 stays refused with T1 and T2's results beside it.
    run_tasks(&t, &["T1", "T2"]);
    let doc = t
        .wf(&["import-results", "results", "--json"])
        .code(2)
        .json();
    let fate = |id: &str| {
        doc["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["task_id"] == id)
            .map(|r| r["fate"].as_str().unwrap().to_string())
            .unwrap()
    };
    assert_eq!(fate("T1"), "applied");
    assert_eq!(fate("T2"), "applied");
    assert_eq!(fate("T4"), "refused");
    assert_eq!(doc["status"], "failed");
}

#[test]
fn a_result_for_another_plan_is_refused() {
    let other = Test::new();
    start(&other, &plan(&[task("T1", "a").verify("echo other plan")]));
    run_tasks(&other, &["T1"]);
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    std::fs::create_dir_all(t.project.join("results")).unwrap();
    std::fs::copy(
        other.project.join("results/T1.json"),
        t.project.join("results/T1.json"),
    )
    .unwrap();
    let run = t.wf(&["import-results", "results"]).code(2);
    assert!(
        run.stderr.contains("refused: it is for another plan"),
        "{}",
        run.stderr
    );
    assert_eq!(crate::plans::task_status(&t.state(), "T1"), "pending");
}

#[test]
fn a_failed_result_fails_the_task_and_a_new_one_takes_it_back() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("test -f fixed")]));
    run_tasks(&t, &["T1"]);
    t.wf(&["import-results", "results"]).code(1);
    assert_eq!(crate::plans::task_status(&t.state(), "T1"), "failed");
    assert_eq!(t.state()["status"], "failed");
    // Fixed, run again elsewhere: the new result completes it.
    t.write("fixed", "");
    run_tasks(&t, &["T1"]);
    t.wf(&["import-results", "results"]).ok();
    assert_eq!(crate::plans::task_status(&t.state(), "T1"), "completed");
    assert_eq!(t.state()["status"], "completed");
    assert_eq!(t.state()["tasks"][0]["attempts"], 2);
}

#[test]
fn an_edited_or_malformed_result_is_refused_with_its_place() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("false")]));
    run_tasks(&t, &["T1"]);
    let text = t
        .read("results/T1.json")
        .replace("\"success\": false", "\"success\": true");
    t.write("results/T1.json", &text);
    let run = t.wf(&["import-results", "results"]).code(2);
    assert!(
        run.stderr.contains("changed after `wf run-task` wrote it"),
        "{}",
        run.stderr
    );
    assert_eq!(crate::plans::task_status(&t.state(), "T1"), "pending");
    // A file that claims to be a result and is not: file:line:col, nothing written.
    t.write(
        "bad/T1.json",
        "{\n  \"kind\": \"wf.task_result\",\n  \"task_id\": 7\n}\n",
    );
    let before = t.workflow_files();
    let run = t.wf(&["import-results", "bad"]).code(2);
    let line = run.stderr.trim();
    assert!(
        line.starts_with("wf: error: ") && line.contains("bad/T1.json:3:"),
        "{line}"
    );
    assert!(
        line.ends_with("write it again with `wf run-task TASK --result FILE`"),
        "{line}"
    );
    assert_eq!(t.workflow_files(), before);
    // Other JSON in a directory is ignored; named on the line, it is an error.
    t.write("other/state.json", "{\"status\": \"planned\"}");
    let run = t.wf(&["import-results", "other"]).ok();
    assert!(
        run.stdout.contains("Ignored 1 JSON file(s)"),
        "{}",
        run.stdout
    );
    t.wf(&["import-results", "other/state.json"]).code(2);
}
