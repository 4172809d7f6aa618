//! Proof-carrying completion (issue 18, docs/proof.md): every completed task keeps
//! its evidence; `wf verify` runs again only what changed, reopens what no longer
//! passes and completes the workflow again once it does; the verification cache
//! lets a second clone skip every unchanged command task; an agent's claim is
//! checked against what git saw change.
//!
//! Every check appends its task id to `runs.log` in the project, so "ran nothing"
//! is counted, not assumed.

use serde_json::{json, Value};

use crate::plans::{plan, start, task, task_status};
use crate::test::{fixture, Test};

/// T1 declares src/a.txt (its check wants `good` in it); T2 depends on T1 and
/// declares src/b.txt; T3 stands alone with src/c.txt.
fn three_tasks() -> String {
    plan(&[
        task("T1", "build")
            .field("文件", "src/a.txt")
            .verify("echo T1 >> runs.log && grep -qx good src/a.txt"),
        task("T2", "build")
            .deps("T1")
            .field("文件", "src/b.txt")
            .verify("echo T2 >> runs.log && test -s src/b.txt"),
        task("T3", "build")
            .field("文件", "src/c.txt")
            .verify("echo T3 >> runs.log && test -s src/c.txt"),
    ])
}

fn write_sources(t: &Test) {
    t.write("src/a.txt", "good\n");
    t.write("src/b.txt", "b\n");
    t.write("src/c.txt", "c\n");
}

/// The ids the checks appended to runs.log since it was last taken.
fn runs(t: &Test) -> Vec<String> {
    let path = t.project.join("runs.log");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let _ = std::fs::remove_file(&path);
    text.lines().map(str::to_string).collect()
}

fn completed_three() -> Test {
    let t = Test::new();
    write_sources(&t);
    start(&t, &three_tasks());
    t.wf(&["workflow-execute", "--all"]).ok();
    assert_eq!(runs(&t), ["T1", "T2", "T3"]);
    t
}

#[test]
fn every_completed_task_carries_its_evidence() {
    let t = completed_three();
    let state = t.wf(&["status", "--json"]).ok().json();
    let tasks = state["state"]["tasks"].as_array().unwrap();
    let t1 = &tasks[0]["evidence"];
    assert!(t1["inputs"]["fingerprint"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    assert_eq!(t1["inputs"]["files"][0]["path"], "src/a.txt");
    assert_eq!(
        t1["checks"][0]["argv"],
        json!([
            "/bin/sh",
            "-c",
            "echo T1 >> runs.log && grep -qx good src/a.txt"
        ])
    );
    assert_eq!(t1["checks"][0]["exit_code"], 0);
    // T2's inputs carry T1's fingerprint: a change upstream reaches it.
    assert_eq!(tasks[1]["evidence"]["inputs"]["deps"][0]["id"], "T1");
    assert_eq!(
        tasks[1]["evidence"]["inputs"]["deps"][0]["fingerprint"],
        t1["inputs"]["fingerprint"]
    );
    // And the event log has it, so a reader after a crash has it too.
    let completed = t
        .events()
        .into_iter()
        .find(|e| {
            e["type"] == "task.status_changed"
                && e["task_id"] == "T1"
                && e["data"]["to"] == "completed"
        })
        .unwrap();
    assert_eq!(completed["data"]["evidence"], *t1);
}

#[test]
fn verify_runs_nothing_when_nothing_changed_and_only_what_changed_after_an_edit() {
    let t = completed_three();
    let before = t.workflow_files();
    let run = t.wf(&["verify"]).ok();
    assert_eq!(runs(&t), Vec::<String>::new(), "{}", run.stdout);
    assert!(
        t.workflow_files() == before,
        "an all-up-to-date verify writes nothing"
    );
    assert_eq!(
        run.stdout.trim(),
        "0 checked again, 3 up to date, 0 up to date in the cache."
    );

    // T1's file breaks: T1 and its dependant run (with --no-cache: nothing was
    // cached for these inputs anyway), T3 does not; T1 is reopened, exit 1.
    t.write("src/a.txt", "bad\n");
    let dry = t.wf(&["verify", "--dry-run", "--json"]).ok().json();
    let would: Vec<(&str, &str)> = dry["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["id"].as_str().unwrap(), x["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        would,
        [
            ("T1", "would_run"),
            ("T2", "would_run"),
            ("T3", "up_to_date")
        ]
    );
    assert_eq!(dry["tasks"][0]["why"], json!(["src/a.txt changed"]));
    assert_eq!(dry["tasks"][1]["why"], json!(["its dependency T1 changed"]));
    assert_eq!(runs(&t), Vec::<String>::new(), "a dry run runs nothing");

    let run = t.wf(&["verify"]).code(1);
    assert_eq!(runs(&t), ["T1", "T2"]);
    assert!(run.stderr.contains("✗ T1 no longer passes: check `echo T1 >> runs.log && grep -qx good src/a.txt` exited with 1 (src/a.txt changed)"), "{}", run.stderr);
    assert!(
        run.stderr
            .contains("T1 no longer passes and is back to pending; the workflow is planned."),
        "{}",
        run.stderr
    );
    // T2's own checks pass, but it is not said to pass plainly: the task it
    // builds on no longer does.
    assert!(
        run.stderr.contains("✓ T2 passes its own checks again (its dependency T1 changed), but T1, which it depends on, no longer passes"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("T2 passes again"), "{}", run.stderr);
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "pending");
    assert_eq!(task_status(&state, "T2"), "completed");
    assert_eq!(state["status"], "planned");

    // Fixed: the reopened T1 passes (run again: no cache), its dependant runs
    // again, the workflow is completed again.
    t.write("src/a.txt", "good\n");
    let run = t.wf(&["verify", "--no-cache"]).ok();
    assert_eq!(runs(&t), ["T1", "T2"], "{}", run.stdout);
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "completed");
    assert_eq!(state["status"], "completed");
    // And then nothing is left to run.
    t.wf(&["verify"]).ok();
    assert_eq!(runs(&t), Vec::<String>::new());
}

#[test]
fn a_fix_back_to_proven_inputs_is_answered_from_the_cache() {
    let t = completed_three();
    t.write("src/a.txt", "bad\n");
    t.wf(&["verify"]).code(1);
    assert_eq!(runs(&t), ["T1", "T2"]);
    // The same content as when T1 and T2 first passed: the cache has both.
    t.write("src/a.txt", "good\n");
    let run = t.wf(&["verify"]).ok();
    assert_eq!(runs(&t), Vec::<String>::new(), "{}", run.stdout);
    assert!(
        run.stdout.contains("✓ T1 up to date in the cache"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .ends_with("0 checked again, 1 up to date, 2 up to date in the cache.\n"),
        "{}",
        run.stdout
    );
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn verify_all_runs_everything_and_a_task_list_takes_its_dependants() {
    let t = completed_three();
    t.wf(&["verify", "--all"]).ok();
    assert_eq!(runs(&t), ["T1", "T2", "T3"]);
    t.wf(&["verify", "--all", "T1"]).ok();
    assert_eq!(runs(&t), ["T1", "T2"]);
    let run = t.wf(&["verify", "T9"]).code(2);
    assert!(run.stderr.contains("no task T9"), "{}", run.stderr);
}

#[test]
fn a_second_clone_with_the_cache_restored_runs_only_what_differs() {
    let first = Test::new();
    let cache = first.root.join("shared-cache");
    let cache_arg = cache.display().to_string();
    write_sources(&first);
    start(&first, &three_tasks());
    first
        .wf(&["workflow-execute", "--all", "--cache", &cache_arg])
        .ok();
    assert_eq!(runs(&first), ["T1", "T2", "T3"]);

    // Same files elsewhere, another workflow home: every task is up to date.
    let second = Test::new();
    write_sources(&second);
    start(&second, &three_tasks());
    let run = second
        .wf(&["workflow-execute", "--all", "--cache", &cache_arg])
        .ok();
    assert_eq!(runs(&second), Vec::<String>::new(), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("✓ T1 task T1 (up to date: passed before on the same inputs)"),
        "{}",
        run.stdout
    );
    let state = second.state();
    assert_eq!(state["status"], "completed");
    let json = second.wf(&["status", "--json"]).ok().json();
    assert_eq!(json["state"]["tasks"][0]["evidence"]["cached"], true);

    // A third where T3's file differs: exactly T3 runs.
    let third = Test::new();
    write_sources(&third);
    third.write("src/c.txt", "other c\n");
    start(&third, &three_tasks());
    let run = third
        .wf(&["workflow-execute", "--all", "--cache", &cache_arg, "--json"])
        .ok()
        .json();
    assert_eq!(runs(&third), ["T3"]);
    let cached: Vec<bool> = run["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["cached"] == true)
        .collect();
    assert_eq!(cached, [true, true, false], "{run:#}");

    // --no-cache runs everything.
    let fourth = Test::new();
    write_sources(&fourth);
    start(&fourth, &three_tasks());
    fourth
        .wf(&[
            "workflow-execute",
            "--all",
            "--cache",
            &cache_arg,
            "--no-cache",
        ])
        .code(2);
    fourth.wf(&["workflow-execute", "--all", "--no-cache"]).ok();
    assert_eq!(runs(&fourth), ["T1", "T2", "T3"]);
}

#[test]
fn a_task_marked_uncached_or_declaring_no_files_always_runs() {
    let first = Test::new();
    let cache = first.root.join("c").display().to_string();
    let tasks = plan(&[
        task("T1", "x")
            .field("文件", "a.txt")
            .verify("echo T1 >> runs.log"),
        task("T2", "x").verify("echo T2 >> runs.log"),
        task("T3", "x")
            .field("文件", "a.txt")
            .verify("echo T3 >> runs.log"),
    ]);
    first.write("a.txt", "a\n");
    first.config(json!({"wf": {"uncached_tasks": ["T3"]}}).to_string());
    start(&first, &tasks);
    first
        .wf(&["workflow-execute", "--all", "--cache", &cache])
        .ok();
    assert_eq!(runs(&first), ["T1", "T2", "T3"]);
    let second = Test::new();
    second.write("a.txt", "a\n");
    second.config(json!({"wf": {"uncached_tasks": ["T3"]}}).to_string());
    start(&second, &tasks);
    second
        .wf(&["workflow-execute", "--all", "--cache", &cache])
        .ok();
    assert_eq!(runs(&second), ["T2", "T3"]);
}

/// A git repository with an agent task that must write hello.txt, done by `script`.
fn agent_project(script: &str, extra: Value) -> Test {
    let mut wf = json!({"executors": [{"name": "coder", "command": [fixture(&format!("agents/{script}")).display().to_string()], "capabilities": ["implement"]}]});
    for (k, v) in extra.as_object().into_iter().flatten() {
        wf[k] = v.clone();
    }
    hello_project(&wf)
}

/// A git repository whose one agent task must write hello.txt (it declares only
/// that), imported, with `wf` as the project config's `wf` section.
pub(crate) fn hello_project(wf: &Value) -> Test {
    let t = Test::new();
    t.config(json!({ "wf": wf }).to_string());
    t.write("README.md", "a project\n");
    t.write("notes.txt", "notes\n");
    t.write(
        "tasks.md",
        plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("grep -q hello hello.txt")]),
    );
    t.git_commit_all();
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t
}

pub(crate) fn has_git() -> bool {
    which::which("git").is_ok()
}

#[test]
fn an_agent_claiming_a_file_it_did_not_change_is_rejected() {
    if !has_git() {
        return;
    }
    let t = agent_project("claims-more-than-it-did.sh", json!({"max_retries": 0}));
    let run = t.wf(&["workflow-execute", "--all"]).code(1);
    assert_eq!(task_status(&t.state(), "T1"), "failed");
    assert!(
        run.stdout
            .contains("claimed to change README.md but the working tree shows no change there")
            || run
                .stderr
                .contains("claimed to change README.md but the working tree shows no change there"),
        "{}\n{}",
        run.stdout,
        run.stderr
    );
    let review = t
        .events()
        .into_iter()
        .find(|e| e["type"] == "task.review_result" && e["data"]["passed"] == false)
        .expect("the claim check's review");
    assert!(review["data"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("claim without evidence"));
}

#[test]
fn an_agent_changing_an_undeclared_file_is_reported_and_rejected_when_configured() {
    if !has_git() {
        return;
    }
    let t = agent_project("edits-undeclared.sh", json!({}));
    t.wf(&["workflow-execute", "--all"]).ok();
    let state = t.wf(&["status", "--json"]).ok().json();
    let changes = &state["state"]["tasks"][0]["evidence"]["changes"];
    assert_eq!(changes["files"], json!(["hello.txt", "notes.txt"]));
    assert_eq!(changes["undeclared"], json!(["notes.txt"]));
    assert_eq!(
        state["state"]["tasks"][0]["evidence"]["claim"]["changed_files"],
        json!(["hello.txt"])
    );

    let strict = agent_project(
        "edits-undeclared.sh",
        json!({"reject_undeclared_changes": true, "max_retries": 0}),
    );
    let run = strict.wf(&["workflow-execute", "--all"]).code(1);
    assert_eq!(task_status(&strict.state(), "T1"), "failed");
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(
        all.contains("changed notes.txt, which the task does not declare"),
        "{all}"
    );
}

#[test]
fn a_handed_off_task_comes_back_with_the_changes_git_saw() {
    if !has_git() {
        return;
    }
    // No executor configured: the agent task is handed off, and the "agent" is this
    // test, writing files before taking it back.
    let t = agent_project("edits-and-claims.sh", json!({}));
    t.config("{}");
    t.wf(&["workflow-execute", "--all"]).code(0);
    assert_eq!(task_status(&t.state(), "T1"), "in_progress");
    t.write("hello.txt", "hello\n");
    t.write("notes.txt", "scribbled\n");
    t.wf(&["workflow-execute", "--all"]).ok();
    let state = t.wf(&["status", "--json"]).ok().json();
    let changes = &state["state"]["tasks"][0]["evidence"]["changes"];
    assert_eq!(
        changes["files"],
        json!(["hello.txt", "notes.txt"]),
        "{state:#}"
    );
    assert_eq!(changes["undeclared"], json!(["notes.txt"]));
}

#[test]
fn an_imported_result_brings_its_evidence_so_verify_finds_it_up_to_date() {
    let t = Test::new();
    write_sources(&t);
    start(&t, &three_tasks());
    t.wf(&["run-task", "T1", "--result", "r/T1.json"]).ok();
    t.wf(&["run-task", "T2", "--result", "r/T2.json"]).ok();
    assert_eq!(runs(&t), ["T1", "T2"]);
    t.wf(&["import-results", "r/T1.json"]).ok();
    t.wf(&["import-results", "r/T2.json"]).ok();
    let run = t.wf(&["verify", "--json"]).ok().json();
    let results: Vec<&str> = run["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["up_to_date", "up_to_date"], "{run:#}");
    assert_eq!(runs(&t), Vec::<String>::new());
    // T2's evidence carries T1's fingerprint as this workflow knows it.
    let state = t.state();
    assert_eq!(
        state["tasks"][1]["evidence"]["inputs"]["deps"][0]["fingerprint"],
        state["tasks"][0]["evidence"]["inputs"]["fingerprint"]
    );
}

/// Evidence in the state that does not read as evidence (a hand edit, another
/// tool's) is none to every reader: `show` and `verify` say so, the JSON outputs
/// show `null` rather than the text, and `verify` records its evidence again.
#[test]
fn evidence_that_does_not_read_is_none_said_so_and_recorded_again() {
    let t = completed_three();
    let mut state = t.state_file();
    state["tasks"][0]["evidence"] = json!({"at": 1, "inputs": "none"});
    t.write_state(&state);
    let shown = t.wf(&["show", "T1", "--json"]).ok().json();
    assert_eq!(shown["task"]["evidence"], Value::Null, "{shown}");
    assert!(t
        .wf(&["show", "T1"])
        .ok()
        .stdout
        .contains("does not read as evidence"));
    assert_eq!(t.state()["tasks"][0]["evidence"], Value::Null);
    let dry = t.wf(&["verify", "--dry-run", "--json"]).ok().json();
    assert!(
        dry.to_string()
            .contains("its recorded evidence does not read as evidence"),
        "{dry}"
    );
    // Recorded again: from the cache, which holds a pass on the same inputs.
    t.wf(&["verify"]).ok();
    assert_eq!(t.state()["tasks"][0]["evidence"]["cached"], true);
    assert!(t.state()["tasks"][0]["evidence"]["inputs"]["fingerprint"]
        .as_str()
        .is_some_and(|f| f.starts_with("sha256:")));
}
