//! The verification cache in a CI job (`wf run-task --cache DIR`, docs/distributed.md
//! "The verification cache in CI"): a task whose inputs passed before is answered
//! from the cache and not run, its result says so and imports as a cached pass; an
//! edit to one of its files, or to a file upstream, runs it again; a planted record
//! whose checks are not the task's answers nothing.

use crate::plans::{plan, start, task};
use crate::test::Test;

/// T1 writes nothing and reads a.txt; T2, after T1, reads b.txt. Each check counts
/// its runs in runs.log.
fn two_tasks() -> String {
    plan(&[
        task("T1", "a")
            .field("文件", "a.txt")
            .verify("echo T1 >> runs.log"),
        task("T2", "a")
            .field("文件", "b.txt")
            .verify("echo T2 >> runs.log")
            .deps("T1"),
    ])
}

fn project() -> Test {
    let t = Test::new();
    t.write("a.txt", "a\n");
    t.write("b.txt", "b\n");
    start(&t, &two_tasks());
    t
}

/// One run of the job: both tasks through the cache in `.wf-cache`, results in
/// `dir`.
fn job(t: &Test, dir: &str) -> serde_json::Value {
    t.wf(&[
        "run-task",
        "--ci",
        "--cache",
        ".wf-cache",
        "--result-dir",
        dir,
        "--json",
        "--",
        "T1",
        "T2",
    ])
    .ok()
    .json()
}

fn runs(t: &Test) -> String {
    std::fs::read_to_string(t.project.join("runs.log")).unwrap_or_default()
}

fn cached(doc: &serde_json::Value) -> Vec<bool> {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["cached"] == true)
        .collect()
}

#[test]
fn a_second_run_of_a_job_on_the_same_files_runs_nothing() {
    let t = project();
    let first = job(&t, "r1");
    assert_eq!(runs(&t), "T1\nT2\n");
    assert_eq!(cached(&first), [false, false]);
    let second = job(&t, "r2");
    assert_eq!(runs(&t), "T1\nT2\n", "nothing ran the second time");
    assert_eq!(cached(&second), [true, true]);
    let check = &second["results"][0]["checks"][0];
    assert_eq!(check["command"], "echo T1 >> runs.log");
    assert_eq!(check["exit_code"], 0);
    let doc = t
        .wf(&["run-task", "--ci", "--cache", ".wf-cache", "T1", "--json"])
        .ok()
        .json();
    assert_eq!(doc["cached"], true, "{doc}");
    let schema = crate::json_contract::schema("run-task");
    assert!(schema.is_valid(&doc), "{doc}");
    let text = t
        .wf(&["run-task", "--ci", "--cache", ".wf-cache", "T1"])
        .ok()
        .stdout;
    assert!(
        text.contains("Task T1 is up to date: its checks passed on the same inputs before"),
        "{text}"
    );
}

#[test]
fn a_cached_result_imports_as_a_cached_pass() {
    let t = project();
    job(&t, "r1");
    job(&t, "r2");
    t.wf(&["import-results", "r2"]).ok();
    let state = t.state();
    for i in 0..2 {
        let task = &state["tasks"][i];
        assert_eq!(task["status"], "completed", "{task}");
        assert_eq!(task["evidence"]["cached"], true, "{task}");
        assert_eq!(task["evidence"]["checks"][0]["exit_code"], 0, "{task}");
    }
}

#[test]
fn an_edit_upstream_runs_the_tasks_after_it_again() {
    let t = project();
    job(&t, "r1");
    t.write("a.txt", "edited\n");
    let again = job(&t, "r2");
    assert_eq!(
        cached(&again),
        [false, false],
        "T2 is after T1, whose file changed"
    );
    assert_eq!(runs(&t), "T1\nT2\nT1\nT2\n");
    t.write("b.txt", "edited\n");
    let third = job(&t, "r3");
    assert_eq!(cached(&third), [true, false]);
}

#[test]
fn a_planted_record_with_other_checks_answers_nothing() {
    // A record anyone can write (its fingerprint is computable from the plan and the
    // files) completes a task only when it holds the task's own commands, passed.
    let t = project();
    job(&t, "r1");
    let dir = t.project.join(".wf-cache");
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let mut planted = String::new();
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let mut record: serde_json::Value = serde_json::from_str(line).unwrap();
            record["checks"] = serde_json::json!([]);
            planted.push_str(&format!("{record}\n"));
        }
        std::fs::write(&path, planted).unwrap();
    }
    let again = job(&t, "r2");
    assert_eq!(cached(&again), [false, false]);
    assert_eq!(runs(&t), "T1\nT2\nT1\nT2\n");
}

#[test]
fn an_unreadable_cache_line_is_said_and_costs_a_run() {
    let t = project();
    job(&t, "r1");
    let dir = t.project.join(".wf-cache");
    let segment = std::fs::read_dir(&dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&segment, "not a record\n").unwrap();
    let out = t
        .wf(&["run-task", "--ci", "--cache", ".wf-cache", "T1"])
        .ok();
    assert!(out.stderr.contains("warning"), "{}", out.stderr);
    assert_eq!(runs(&t), "T1\nT2\nT1\n");
}

/// The exported GitHub workflow with `wf.export.cache` on, run twice by `act`
/// (tests/act/: the cache stand-in keeps entries between the runs): the second run
/// answers the tasks whose declared files did not change from each job's cache,
/// runs the one that declares none, and the collect job imports the cached passes
/// as such.
#[test]
fn a_second_pipeline_run_takes_unchanged_tasks_from_the_cache() {
    let t = Test::new();
    let log = t.root.join("runs.log");
    let counted = |id: &str| format!("echo {id} >> {}", log.display());
    t.write("src/a.txt", "alpha\n");
    t.write("src/b.txt", "beta\n");
    t.write(
        ".claude/config/project-config.json",
        r#"{"wf": {"export": {"cache": true}}}"#,
    );
    start(
        &t,
        &plan(&[
            task("T1", "a")
                .field("文件", "src/a.txt")
                .verify(&format!("grep -q alpha src/a.txt && {}", counted("T1"))),
            task("T2", "a")
                .field("文件", "src/b.txt")
                .deps("T1")
                .verify(&format!("grep -q beta src/b.txt && {}", counted("T2"))),
            // No declared input: a fingerprint cannot tell it is unchanged.
            task("T3", "a").verify(&counted("T3")),
        ]),
    );
    let Some(first) = crate::distributed::run_under_act(&t, "path") else {
        return;
    };
    assert!(first.passed, "{}", first.log);
    std::fs::remove_dir_all(&first.artifacts).unwrap();
    let second = crate::distributed::act(&t, "path", &[]);
    assert!(second.passed, "{}", second.log);
    let ran = std::fs::read_to_string(&log).unwrap();
    let times = |id: &str| ran.lines().filter(|l| *l == id).count();
    assert_eq!(
        (times("T1"), times("T2"), times("T3")),
        (1, 1, 2),
        "{ran}\n{}",
        second.log
    );
    let state = crate::distributed::uploaded_state(&second.artifacts, &second.log);
    assert_eq!(state["status"], "completed", "{}", second.log);
    let cached: Vec<(String, bool)> = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap().to_string(),
                t["evidence"]["cached"] == true,
            )
        })
        .collect();
    assert_eq!(
        cached,
        [
            ("T1".into(), true),
            ("T2".into(), true),
            ("T3".into(), false)
        ]
    );
}
