//! `wf list`: every workflow under the home, found from anywhere — a moved project's
//! workflow, a corrupt one — and `wf resume` outside a project pointing at it.

use crate::plans::{plan, start, task};
use crate::test::Test;

/// A second project under the same home and temp root as `t`.
fn second_project(t: &Test, name: &str) -> std::path::PathBuf {
    let dir = t.root.join(name);
    std::fs::create_dir_all(dir.join(".git")).expect("second project");
    std::fs::write(
        dir.join("tasks.md"),
        plan(&[task("T1", "a").verify("false")]),
    )
    .expect("second plan");
    dir
}

#[test]
fn list_shows_every_workflow_and_which_project_is_gone() {
    let mut t = Test::new();
    t.env("WF_NOW", "2026-01-08T10:00:00Z");
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("true"),
        ]),
    );
    t.wf(&["workflow-execute", "--step"]).ok();
    let other = second_project(&t, "moved");
    let other_arg = other.display().to_string();
    t.env("WF_NOW", "2026-01-09T10:00:00Z");
    let plan_arg = other.join("tasks.md").display().to_string();
    t.wf(&["-C", &other_arg, "workflow-start", &plan_arg]).ok();
    std::fs::remove_dir_all(&other).expect("the project moves away");
    insta::assert_snapshot!(t.wf(&["list"]).whole(), @"
    exit: 0
    --- stdout
    ┌──────────────────────────────┬───────────┬─────────┬──────────┬──────────────────────┐
    │ project                      ┆ workflow  ┆ status  ┆ progress ┆ updated              │
    ╞══════════════════════════════╪═══════════╪═════════╪══════════╪══════════════════════╡
    │ [ROOT]/moved (gone) ┆ test plan ┆ planned ┆ 0/1      ┆ 2026-01-09T10:00:00Z │
    │ [ROOT]/project      ┆ test plan ┆ paused  ┆ 1/2      ┆ 2026-01-08T10:00:00Z │
    └──────────────────────────────┴───────────┴─────────┴──────────┴──────────────────────┘
    --- stderr
    ");
    let json = t.wf(&["list", "--json"]).ok().json();
    assert_eq!(json["workflows"][0]["project_exists"], false);
    assert_eq!(json["workflows"][1]["status"], "paused");
    assert_eq!(json["workflows"][1]["done"], 1);
    assert_eq!(json["workflows"][1]["total"], 2);
}

#[test]
fn a_corrupt_workflow_is_listed_as_unreadable_and_left_alone() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a")]));
    let state = t.workflow_dir().join("workflow-state.json");
    std::fs::write(&state, "{ not json").expect("corrupt the state");
    let run = t.wf(&["list", "--json"]).ok().json();
    assert_eq!(run["workflows"][0]["status"], serde_json::Value::Null);
    assert!(
        run["workflows"][0]["problem"]
            .as_str()
            .is_some_and(|p| p.contains("workflow-state.json")),
        "{run}"
    );
    assert_eq!(std::fs::read_to_string(&state).unwrap(), "{ not json");
}

#[test]
fn an_empty_home_lists_nothing_and_says_how_to_start() {
    let t = Test::new();
    insta::assert_snapshot!(t.wf(&["list"]).whole(), @r"
    exit: 0
    --- stdout
    No workflow under [ROOT]/home; start one with `wf workflow-start PLAN.md`.
    --- stderr
    ");
}

#[test]
fn resume_outside_a_project_gives_one_json_document_pointing_at_list() {
    let t = Test::new();
    let other = second_project(&t, "elsewhere");
    let other_arg = other.display().to_string();
    let plan_arg = other.join("tasks.md").display().to_string();
    t.wf(&["-C", &other_arg, "workflow-start", &plan_arg]).ok();
    t.wf(&["-C", &other_arg, "workflow-execute", "--step"])
        .code(1);
    let run = t.wf(&["resume", "--json"]).code(2);
    let v = run.json();
    assert_eq!(v["schemaVersion"], 2);
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("1 resumable elsewhere (`wf list` shows them)")),
        "{v}"
    );
}
