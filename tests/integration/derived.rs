//! Checks derived from a task's line (issue 47, docs/proof.md "Derived checks"): a
//! spec-kit plan whose lines carry no command, done by a scripted agent
//! (`fixtures/agents/calc-agent.sh`) between each hand-off and the next check — one
//! that does nothing, one that writes the wrong file, one that writes a test that
//! passes before its implementation, one that breaks an earlier phase's test, and one
//! that does the work — through `workflow-execute` with node's own test runner (found
//! from `package.json`), and through `wf mcp`'s `done` with a shell test runner set
//! in the config.

use std::process::Command;

use serde_json::{json, Value};

use crate::plans::{plan, start, task, task_status};
use crate::test::{fixture, Run, Test};

/// The calculator plan, its tests written in `ext` (`js`, `sh`).
fn calc_plan(ext: &str) -> String {
    format!(
        "# Tasks: calculator\n\n\
         ## Phase 1: Setup\n\n\
         - [ ] T001 Create the calculator module in src/calc.{ext}\n\n\
         ## Phase 2: User Story 1 - add numbers\n\n\
         - [ ] T002 [US1] Write the test for add in tests/add.test.{ext}\n\
         - [ ] T003 [US1] Implement add in src/calc.{ext}\n\n\
         **Checkpoint**: adding works\n\n\
         ## Phase 3: User Story 2 - subtract numbers\n\n\
         - [ ] T004 [US2] Implement subtract in src/calc.{ext}\n\n\
         **Checkpoint**: subtracting works, and adding still does\n"
    )
}

/// A runner of shell tests that prints TAP: each file named, or every
/// `tests/*.test.sh`.
const SHELL_RUNNER: &str = r#"[ $# -gt 0 ] || set -- tests/*.test.sh
n=0 failed=0
for f in "$@"; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    if sh "$f" >/dev/null 2>&1; then echo "ok $n - $f"; else echo "not ok $n - $f"; failed=1; fi
done
exit $failed
"#;

/// A git project with the calculator plan imported: `js` tests run with `node
/// --test` (read from package.json), `sh` ones with `run-tests.sh` (set as
/// `wf.test_command`). None when git (or node, for `js`) is not installed.
fn calc_project(lang: &str) -> Option<Test> {
    let needs: &[&str] = if lang == "js" {
        &["git", "node"]
    } else {
        &["git"]
    };
    if needs.iter().any(|p| which::which(p).is_err()) {
        return None;
    }
    let t = Test::new();
    if lang == "js" {
        t.write("package.json", r#"{"scripts": {"test": "node --test"}}"#);
    } else {
        t.write("run-tests.sh", SHELL_RUNNER);
        t.config(json!({"wf": {"test_command": "sh run-tests.sh"}}).to_string());
    }
    t.write("tasks.md", calc_plan(lang));
    t.git_commit_all();
    t.wf(&["workflow-start", "tasks.md"]).ok();
    Some(t)
}

/// The scripted agent does `task` in `mode`.
fn agent(t: &Test, lang: &str, mode: &str, task: &str) {
    let ok = Command::new(fixture("agents/calc-agent.sh"))
        .args([lang, mode, task])
        .current_dir(&t.project)
        .status()
        .expect("run the scripted agent")
        .success();
    assert!(ok, "the scripted agent failed on {task}");
}

/// `workflow-execute --all` until the plan ends or a check fails, the agent doing
/// each task handed off in the mode `mode_of` gives for it: the last run.
fn run_with_agent(t: &Test, lang: &str, mode_of: impl Fn(&str) -> &'static str) -> Run {
    loop {
        let run = t.wf(&["workflow-execute", "--all"]);
        // A hand-off exits 0, as a completed run does: its line tells them apart.
        let handed_off = run.stdout.lines().any(|l| l.starts_with("Handed off:"));
        if !(run.code == 0 && handed_off) {
            return run;
        }
        let id = t.state()["current_task"].as_str().unwrap().to_string();
        agent(t, lang, mode_of(&id), &id);
    }
}

fn said(run: &Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

/// The derived checks in `task`'s evidence, as `kind result subject`.
fn derived(state: &Value, task: &str) -> Vec<String> {
    let t = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == task)
        .unwrap();
    t["evidence"]["derived"]
        .as_array()
        .unwrap_or_else(|| panic!("{task} has no derived checks: {t:#}"))
        .iter()
        .map(|d| {
            format!(
                "{} {} {}",
                d["kind"].as_str().unwrap(),
                d["result"].as_str().unwrap(),
                d["subject"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn an_agent_that_does_nothing_is_refused_with_the_file_it_did_not_create() {
    let Some(t) = calc_project("js") else { return };
    let run = run_with_agent(&t, "js", |_| "nothing");
    assert_eq!(run.code, 1, "{}", said(&run));
    assert!(
        said(&run).contains("T001 failed: src/calc.js was not created"),
        "{}",
        said(&run)
    );
    assert_eq!(task_status(&t.state(), "T001"), "failed");
}

#[test]
fn an_agent_that_writes_the_wrong_file_is_refused() {
    let Some(t) = calc_project("js") else { return };
    let run = run_with_agent(&t, "js", |_| "wrong-file");
    assert_eq!(run.code, 1, "{}", said(&run));
    assert!(
        said(&run).contains("T001 failed: src/calc.js was not created"),
        "{}",
        said(&run)
    );
    assert!(t.project.join("src/calculator.js").exists());
}

#[test]
fn a_test_that_passes_before_its_implementation_is_flagged() {
    let Some(t) = calc_project("js") else { return };
    let run = run_with_agent(
        &t,
        "js",
        |id| if id == "T002" { "early-test" } else { "proper" },
    );
    assert_eq!(run.code, 0, "{}", said(&run));
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert!(
        state["check_warnings"]["T002"]
            .as_str()
            .is_some_and(|w| w.contains("tests/add.test.js: test passed before its implementation")),
        "{:#}",
        state["check_warnings"]
    );
    assert!(derived(&state, "T002").contains(&"test warning tests/add.test.js".to_string()));
    let status = t.wf(&["status"]).ok().stdout;
    assert!(
        status.contains("test passed before its implementation"),
        "{status}"
    );
}

#[test]
fn an_agent_that_breaks_an_earlier_test_fails_the_checkpoint_naming_it() {
    let Some(t) = calc_project("js") else { return };
    let run = run_with_agent(
        &t,
        "js",
        |id| if id == "T004" { "breaks" } else { "proper" },
    );
    assert_eq!(run.code, 1, "{}", said(&run));
    assert!(
        said(&run).contains(
            "checkpoint of `Phase 3: User Story 2 - subtract numbers`: adds passed at the phase's start and fails now"
        ),
        "{}",
        said(&run)
    );
    assert_eq!(task_status(&t.state(), "T004"), "failed");
    assert_eq!(task_status(&t.state(), "T003"), "completed");
}

#[test]
fn an_agent_that_does_the_work_completes_with_evidence_naming_every_derived_check() {
    let Some(t) = calc_project("js") else { return };
    let run = run_with_agent(&t, "js", |_| "proper");
    assert_eq!(run.code, 0, "{}", said(&run));
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert_eq!(
        derived(&state, "T001"),
        [
            "created passed src/calc.js",
            "changed passed src/calc.js",
            "something_changed passed ",
            "checkpoint passed Phase 1: Setup",
        ]
    );
    assert_eq!(
        derived(&state, "T002"),
        [
            "created passed tests/add.test.js",
            "changed passed tests/add.test.js",
            "something_changed passed ",
            "test red tests/add.test.js",
        ]
    );
    assert_eq!(
        derived(&state, "T003"),
        [
            "changed passed src/calc.js",
            "something_changed passed ",
            "checkpoint passed Phase 2: User Story 1 - add numbers",
            "test passed tests/add.test.js",
        ]
    );
    assert!(state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["accepted_unchecked"].is_null()));
    // `wf show` says what each check found.
    let show = t.wf(&["show", "T002"]).ok().stdout;
    assert!(
        show.contains(
            "✓ red test: tests/add.test.js exited with 1 before its implementation, as it should"
        ),
        "{show}"
    );
}

#[test]
fn require_checks_fails_a_task_nothing_checks_and_allow_unchecked_accepts_it() {
    if which::which("git").is_err() {
        return;
    }
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks\n\n## Phase 1: Docs\n\n- [ ] T001 Review the design with the team\n",
    );
    t.git_commit_all();
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute", "--require-checks"]).code(0);
    let run = t.wf(&["workflow-execute", "--require-checks"]).code(1);
    assert!(
        said(&run).contains("nothing checks task T001"),
        "{}",
        said(&run)
    );
    t.wf(&["workflow-execute", "--retry"]).code(0);
    let run = t.wf(&["workflow-execute", "--allow-unchecked"]).ok();
    assert!(said(&run).contains("accepted unchecked"), "{}", said(&run));
}

/// The brief of `wf next` (what a hand-off prints, what `wf mcp`'s `next` answers)
/// names a `wf.checks` command among the checks of a task whose file it matches.
#[test]
fn the_brief_names_the_wf_checks_command_a_task_will_be_checked_by() {
    let t = Test::new();
    t.config(json!({"wf": {"checks": {"src/**/*.py": "ruff check \"$@\""}}}).to_string());
    t.write(
        "tasks.md",
        "# Tasks\n\n## Phase 1: Core\n\n- [ ] T001 Add the parser in src/p.py\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let named = "`ruff check \"$@\"` passes for src/p.py (wf.checks)";
    let brief = &t.wf(&["next", "--json"]).ok().json()["brief"];
    assert!(
        brief["derived_checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == named),
        "{brief:#}"
    );
    assert!(
        brief["markdown"].as_str().unwrap().contains(named),
        "{brief:#}"
    );
    let text = t.wf(&["next"]).ok().stdout;
    assert!(text.contains(named), "{text}");
}

/// `--ci` requires checks as `--require-checks` does: an executor's work that
/// nothing checks fails the run, unless `--allow-unchecked` says to take its word.
#[test]
fn ci_fails_a_task_nothing_checks_unless_allow_unchecked() {
    let t = Test::new();
    let agent = fixture("agents/edits-and-claims.sh").display().to_string();
    t.config(
        json!({"wf": {"executors": [
            {"name": "coder", "command": [agent], "capabilities": ["implement"]}
        ]}})
        .to_string(),
    );
    start(&t, &plan(&[task("T1", "a").field("actions", "edit_file")]));
    let run = t.wf(&["workflow-execute", "--ci"]).code(1);
    assert!(
        said(&run).contains("nothing checks task T1"),
        "{}",
        said(&run)
    );
    assert_eq!(task_status(&t.state(), "T1"), "failed");
    let run = t
        .wf(&["workflow-execute", "--ci", "--retry", "--allow-unchecked"])
        .ok();
    assert!(said(&run).contains("accepted unchecked"), "{}", said(&run));
    assert_eq!(task_status(&t.state(), "T1"), "completed");
}

mod through_mcp {
    use super::*;
    use crate::mcp::{is_error, structured, Server};

    /// `next` then `done` until the plan ends or a check fails, the agent doing each
    /// task in the mode `mode_of` gives: the last `done`'s result.
    fn done_with_agent(t: &Test, mode_of: impl Fn(&str) -> &'static str) -> Value {
        let mut server = Server::start(t);
        loop {
            let next = server.call("next", json!({}));
            assert!(!is_error(&next), "{next}");
            let Some(id) = structured(&next)["brief"]["task"]["id"]
                .as_str()
                .map(str::to_string)
            else {
                panic!("nothing handed off: {next}");
            };
            agent(t, "sh", mode_of(&id), &id);
            let done = server.call("done", json!({}));
            if is_error(&done) || structured(&done)["workflow_status"] == "completed" {
                return done;
            }
        }
    }

    #[test]
    fn an_agent_that_does_nothing_is_refused() {
        let Some(t) = calc_project("sh") else { return };
        let done = done_with_agent(&t, |_| "nothing");
        assert!(is_error(&done), "{done}");
        assert!(
            done.to_string().contains("src/calc.sh was not created"),
            "{done}"
        );
    }

    #[test]
    fn an_agent_that_writes_the_wrong_file_is_refused() {
        let Some(t) = calc_project("sh") else { return };
        let done = done_with_agent(&t, |_| "wrong-file");
        assert!(
            done.to_string().contains("src/calc.sh was not created"),
            "{done}"
        );
    }

    #[test]
    fn a_test_that_passes_before_its_implementation_is_flagged() {
        let Some(t) = calc_project("sh") else { return };
        let done = done_with_agent(&t, |id| if id == "T002" { "early-test" } else { "proper" });
        assert!(!is_error(&done), "{done}");
        let warning = &t.state()["check_warnings"]["T002"];
        assert!(
            warning
                .as_str()
                .is_some_and(|w| w.contains("test passed before its implementation")),
            "{warning}"
        );
    }

    #[test]
    fn an_agent_that_breaks_an_earlier_test_fails_the_checkpoint() {
        let Some(t) = calc_project("sh") else { return };
        let done = done_with_agent(&t, |id| if id == "T004" { "breaks" } else { "proper" });
        assert!(is_error(&done), "{done}");
        assert!(
            done.to_string()
                .contains("tests/add.test.sh passed at the phase's start and fails now"),
            "{done}"
        );
    }

    #[test]
    fn an_agent_that_does_the_work_completes_with_its_evidence() {
        let Some(t) = calc_project("sh") else { return };
        let done = done_with_agent(&t, |_| "proper");
        assert!(!is_error(&done), "{done}");
        let state = t.state();
        assert_eq!(state["status"], "completed");
        assert!(derived(&state, "T002").contains(&"test red tests/add.test.sh".to_string()));
        assert!(derived(&state, "T003")
            .contains(&"checkpoint passed Phase 2: User Story 1 - add numbers".to_string()));
    }
}
