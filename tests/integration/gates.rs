//! Quality gates that fit the project: each verifier from the tools the project
//! declares, named `typecheck` whatever the language; a detected tool that is not
//! installed is `missing` (not a failure) unless the config requires it;
//! `wf.verifiers.NAME: false` turns one off; a failing gate lists every verifier.

use crate::test::Test;

const GATE: &str = "# Tasks: gate\n\n## T1: Gate\n- **Phase**: check\n- **Quality gate**: true\n";
const PYPROJECT: &str =
    "[project]\nname = \"demo\"\n\n[tool.mypy]\nstrict = true\n\n[tool.ruff]\nline-length = 100\n";

/// A project whose PATH holds no tool at all: mypy and ruff are missing.
fn python_project(config: &str) -> Test {
    let mut t = Test::new();
    t.write("pyproject.toml", PYPROJECT);
    t.write("bin/.keep", "");
    t.config(config);
    let bin = t.project.join("bin");
    t.env("PATH", bin.display().to_string());
    t.write("tasks.md", GATE);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t
}

fn verifiers(t: &Test) -> serde_json::Value {
    t.state()["quality_gates"]["T1"]["verifiers"].clone()
}

#[test]
fn a_python_gate_counts_a_tool_not_installed_as_missing_not_failed() {
    let t = python_project(r#"{"scripts": {"test": "exit 0"}}"#);
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--all"]).whole(), @"
    exit: 0
    --- stdout
    ▶ T1 Gate
    ✓ T1 Gate (N.Ns)
    Completed: 1/1 tasks done.
    --- stderr
    ");
    assert_eq!(
        verifiers(&t),
        serde_json::json!({"typecheck": "missing", "lint": "missing", "test": "passed", "build": "n/a"})
    );
}

#[test]
fn a_required_verifier_whose_tool_is_missing_fails_the_gate_and_every_one_is_listed() {
    let t = python_project(
        r#"{"scripts": {"test": "exit 0"}, "wf": {"verifiers": {"typecheck": true}}}"#,
    );
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--all"]).whole(), @"
    exit: 1
    --- stdout
    ▶ T1 Gate
    ✗ T1 Gate: quality gate T1: score 50 is below the threshold 80 (typecheck failed, lint missing (`ruff` is not on PATH), test passed, build n/a); typecheck: `mypy` is not on PATH (needed by task T1)
    --- stderr
    Failed: task T1 failed: quality gate T1: score 50 is below the threshold 80 (typecheck failed, lint missing (`ruff` is not on PATH), test passed, build n/a); typecheck: `mypy` is not on PATH (needed by task T1)
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
}

#[test]
fn a_verifier_turned_off_is_not_run() {
    let t = python_project(
        r#"{"scripts": {"lint": "exit 0", "test": "exit 3"}, "wf": {"verifiers": {"test": false}}}"#,
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    assert_eq!(
        verifiers(&t),
        serde_json::json!({"typecheck": "missing", "lint": "passed", "test": "off", "build": "n/a"})
    );
}

#[test]
fn a_gate_with_nothing_to_run_says_what_each_verifier_was() {
    let t = python_project("{}");
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--all"]).whole(), @"
    exit: 1
    --- stdout
    ▶ T1 Gate
    ✗ T1 Gate: quality gate T1: no verifier could run in this project: typecheck missing (`mypy` is not on PATH), lint missing (`ruff` is not on PATH), test n/a, build n/a (set scripts.test, scripts.lint, scripts.build or scripts.typecheck in .claude/config/project-config.json)
    --- stderr
    Failed: task T1 failed: quality gate T1: no verifier could run in this project: typecheck missing (`mypy` is not on PATH), lint missing (`ruff` is not on PATH), test n/a, build n/a (set scripts.test, scripts.lint, scripts.build or scripts.typecheck in .claude/config/project-config.json)
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
}

#[test]
fn doctor_warns_when_a_gate_in_the_plan_cannot_pass_here() {
    let t = python_project("{}");
    insta::assert_snapshot!(t.wf(&["doctor"]).whole(), @"
    exit: 0
    --- stdout
    ok       config       .claude/config/project-config.json reads, its wf section checked
    ok       executors    none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do
    warning  hooks        no `wf hook` for SessionStart, UserPromptSubmit, Stop in Claude Code's settings: an agent in Claude Code is not given the task's brief, nor kept working while its checks fail; fix: `wf init` merges them into .claude/settings.json (every other setting kept); without Claude Code, ignore this
    ok       state        gate: planned, 1 task
    ok       constraints  no constraint has a verifyCmd
    warning  gates        quality gate T1 cannot pass here: no verifier would run (typecheck missing (`mypy` is not on PATH), lint missing (`ruff` is not on PATH), test n/a, build n/a); fix: install the missing tools, or set scripts.NAME or wf.verifiers.NAME (false turns one off) in .claude/config/project-config.json
    ok       lock         free
    No problems found; 2 warnings.
    --- stderr
    ");
}

#[test]
fn doctor_says_what_a_gate_will_run_when_it_can_pass() {
    let t = python_project(r#"{"scripts": {"test": "exit 0"}}"#);
    let run = t.wf(&["doctor"]).ok();
    let line = run
        .stdout
        .lines()
        .find(|l| l.contains("gates"))
        .unwrap_or("")
        .to_string();
    insta::assert_snapshot!(line, @"ok       gates        quality gate T1: typecheck missing (`mypy` is not on PATH), lint missing (`ruff` is not on PATH), test runs, build n/a");
}

#[test]
fn logs_shows_a_failed_gates_output() {
    let t = python_project(
        r#"{"scripts": {"lint": "echo lint ok", "test": "echo FAILED test_parse; exit 3"}}"#,
    );
    t.wf(&["workflow-execute", "--all"]).code(1);
    insta::assert_snapshot!(t.wf(&["logs", "T1"]).whole(), @"
    exit: 0
    --- stdout
    $ echo FAILED test_parse; exit 3
    FAILED test_parse
    --- stderr
    ");
}
