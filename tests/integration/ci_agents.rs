//! Agent tasks in CI with `--agent-tasks run` (docs/distributed.md "Agent tasks"):
//! the exported job runs `wf run-task --agents`, the configured executor does the
//! task in the job, the task's checks decide, and `wf import-results` folds the
//! executor's work back with its evidence.

use serde_json::{json, Value};

use crate::distributed::assert_valid_pipeline;
use crate::test::{fixture, Test};

/// A spec-kit plan: every task is an agent's; T001 is checked by what its line
/// names only, T002 by its inline verify command too, reading T001's file.
const PLAN: &str = "# Tasks: greet\n\n## Phase 1: Setup\n\n- [ ] T001 Create hello.txt with a greeting\n- [ ] T002 Check the greeting in hello.txt (verify: `grep -q hello hello.txt`)\n";

fn project(agent: &str) -> Test {
    let t = Test::new();
    let agent = fixture(&format!("agents/{agent}")).display().to_string();
    t.config(
        json!({"wf": {
            "executors": [
                {"name": "coder", "command": [agent], "capabilities": ["implement"]}
            ],
            "export": {"env": {"CODER_KEY": "${{ secrets.CODER_KEY }}"}}
        }})
        .to_string(),
    );
    t.write("tasks.md", PLAN);
    t.git_commit_all();
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t
}

/// What the exported job of T001 and T002 runs, with `--agent-tasks run`.
fn run_job(t: &Test) -> crate::test::Run {
    t.wf(&[
        "run-task",
        "--ci",
        "--agents",
        "--result-dir",
        "results",
        "--",
        "T001",
        "T002",
    ])
}

fn result(t: &Test, id: &str) -> Value {
    serde_json::from_str(&t.read(&format!("results/{id}.json"))).unwrap()
}

#[test]
fn an_agent_task_is_done_in_its_job_by_the_configured_executor() {
    let t = project("edits-and-claims.sh");
    let run = t
        .wf(&[
            "export",
            "github-actions",
            "--install",
            "path",
            "--agent-tasks",
            "run",
        ])
        .ok();
    assert!(run.stdout.contains(" --agents"), "{}", run.stdout);
    // The executor's credentials reach the job as the project config says.
    assert!(
        run.stdout.contains("CODER_KEY: ${{ secrets.CODER_KEY }}"),
        "{}",
        run.stdout
    );
    t.write("gh.yml", &run.stdout);
    assert_valid_pipeline(&t.project.join("gh.yml"), "vendor.github-workflows");
    assert!(
        run.stderr
            .contains("T001, T002 need an agent: each job has the executor (coder) do its task"),
        "{}",
        run.stderr
    );
    // What the job runs: the executor writes hello.txt, the line's checks confirm it.
    let run = run_job(&t);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let done = result(&t, "T001");
    assert_eq!(done["success"], true, "{done}");
    assert_eq!(done["executor"], "coder", "{done}");
    assert_eq!(done["claim"]["summary"], "wrote hello.txt", "{done}");
    assert!(
        done["derived"].as_array().is_some_and(|d| !d.is_empty()),
        "the line's checks ran: {done}"
    );
    assert_eq!(result(&t, "T002")["success"], true);
    assert_eq!(result(&t, "T002")["executor"], "coder");
    // Folded back in the collect job, a fresh checkout (without the job's files):
    // completed, with the executor's work as its evidence.
    std::fs::remove_file(t.root.join("project/hello.txt")).unwrap();
    t.wf(&["import-results", "results"]).ok();
    let state = t.state();
    let task = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "T001")
        .unwrap()
        .clone();
    assert_eq!(task["status"], "completed", "{task}");
    assert_eq!(task["evidence"]["executor"], "coder", "{task}");
    assert!(task["evidence"]["derived"].is_array(), "{task}");
    let statuses: Vec<&str> = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["completed", "completed"]);
}

#[test]
fn an_executor_that_did_nothing_fails_its_task_in_the_job() {
    let t = project("claims-without-work.sh");
    let run = run_job(&t);
    assert_eq!(run.code, 1, "{}{}", run.stdout, run.stderr);
    let failed = result(&t, "T001");
    assert_eq!(failed["success"], false, "{failed}");
    assert!(
        failed["reason"]
            .as_str()
            .unwrap_or("")
            .contains("hello.txt"),
        "the reason names the file the work lacks: {failed}"
    );
}

#[test]
fn a_forged_pass_of_an_agent_task_without_an_executor_is_refused() {
    // Without --agents the job fails T001; a result edited to say it passed is
    // refused at import, since no executor did the work.
    let t = project("edits-and-claims.sh");
    t.wf(&["run-task", "--ci", "--result-dir", "results", "--", "T001"])
        .code(1);
    let mut forged = result(&t, "T001");
    forged["success"] = true.into();
    forged["verified"] = true.into();
    forged["reason"] = Value::Null;
    // Its id made right for the new content, as anyone can (an MD5, not a
    // signature): what refuses it is the rule, not the checksum.
    let mut file: wf::run::standalone::TaskResultFile = serde_json::from_value(forged).unwrap();
    file.result_id = file.id_for(None);
    t.write("forged/T001.json", serde_json::to_string(&file).unwrap());
    let run = t.wf(&["import-results", "forged"]);
    assert_ne!(run.code, 0, "{}{}", run.stdout, run.stderr);
    assert!(
        run.stderr
            .contains("task T001 needs an agent, and no executor did it"),
        "{}",
        run.stderr
    );
}

#[test]
fn run_without_an_executor_is_refused_at_export() {
    let t = Test::new();
    t.write("tasks.md", PLAN);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let run = t
        .wf(&[
            "export",
            "gitlab-ci",
            "--install",
            "path",
            "--agent-tasks",
            "run",
        ])
        .code(2);
    assert!(
        run.stderr.contains(
            "--agent-tasks run: task T001 needs an executor offering `implement`, and wf.executors in"
        ),
        "{}",
        run.stderr
    );
}
