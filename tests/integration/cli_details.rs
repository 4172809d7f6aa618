//! The small things of the first ten minutes: `--version` names the commit, `-C DIR`
//! reads relative paths in DIR, the plan is found when none is named, `wf list
//! --archived`, `events --type` by the end of a type's name.

use crate::plans::{plan, task};
use crate::test::Test;

const SPEC: &str = "# Tasks\n\n## Phase 1: Setup\n- [ ] T001 Write the notes in notes.md\n";

#[test]
fn version_carries_the_commit_in_a_checkout() {
    let t = Test::new();
    let run = t.wf(&["--version"]).ok();
    let in_git = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .is_ok_and(|o| o.status.success());
    let form = if in_git {
        r"^wf \d+\.\d+\.\d+ \([0-9a-f]{12}\)\n$"
    } else {
        r"^wf \d+\.\d+\.\d+\n$"
    };
    assert!(
        regex::Regex::new(form).unwrap().is_match(&run.stdout),
        "{}",
        run.stdout
    );
}

#[test]
fn dash_c_reads_the_plan_and_writes_files_in_its_directory() {
    let t = Test::new();
    t.write("tasks.md", plan(&[task("T1", "a").verify("true")]));
    let mut start = t.command(&["-C", "project", "workflow-start", "tasks.md"]);
    start.current_dir(&t.root);
    let run = t.within(start, 30);
    assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
    let mut execute = t.command(&[
        "-C",
        "project",
        "workflow-execute",
        "--all",
        "--junit",
        "out.xml",
    ]);
    execute.current_dir(&t.root);
    assert_eq!(t.within(execute, 30).code, 0);
    assert!(
        t.project.join("out.xml").is_file(),
        "--junit out.xml is not in DIR"
    );
}

#[test]
fn the_plan_is_found_when_none_is_named_and_a_spec_directory_is_read() {
    let t = Test::new();
    t.write("specs/001-notes/tasks.md", SPEC);
    insta::assert_snapshot!(t.wf(&["check"]).whole(), @"
    exit: 0
    --- stdout
    specs/001-notes/tasks.md: format spec-kit: 1 `- [ ] T001` task line
    specs/001-notes/tasks.md: 1 task (spec-kit): 0 errors, 0 warnings, 0 blocked
    specs/001-notes/tasks.md: checks: 0 by a command, 1 by what their line names, 0 by nothing
    --- stderr
    wf: reading specs/001-notes/tasks.md (the newest specs/*/tasks.md)
    ");
    insta::assert_snapshot!(t.wf(&["workflow-start", "specs/001-notes"]).whole(), @"
    exit: 0
    --- stdout
    Planned `Tasks`: 1 task (spec-kit).
    ┌────────────────┬───────┬──────┬─────────┐
    │ phase          ┆ tasks ┆ done ┆ blocked │
    ╞════════════════╪═══════╪══════╪═════════╡
    │ Phase 1: Setup ┆ 1     ┆ 0    ┆ 0       │
    └────────────────┴───────┴──────┴─────────┘
    Checks: 0 by a command, 1 by what their line names, 0 by nothing.
    Audit: passed (0 errors, 0 warnings).
    Next: `wf workflow-execute`.
    --- stderr
    ");
    let empty = Test::new();
    insta::assert_snapshot!(empty.wf(&["workflow-start"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: no plan named and no plan found in [ROOT]/project: looked for tasks.md, specs/*/tasks.md, .taskmaster/tasks/tasks.json, .kiro/specs/*/tasks.md, openspec/changes/*/tasks.md; name the plan file, as `wf workflow-start PLAN.md`
    ");
}

#[test]
fn list_archived_shows_the_archived_workflows_too() {
    let t = Test::new();
    t.write("tasks.md", plan(&[task("T1", "a").verify("true")]));
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute", "--all"]).ok();
    t.wf(&["archive"]).ok();
    assert!(t.wf(&["list", "--json"]).ok().json()["workflows"]
        .as_array()
        .unwrap()
        .is_empty());
    let listed = t.wf(&["list", "--archived", "--json"]).ok().json();
    let w = &listed["workflows"][0];
    assert_eq!(w["status"], "archived");
    assert!(
        w["id"].as_str().unwrap().contains("/archive/"),
        "{listed:#}"
    );
}

#[test]
fn events_type_takes_the_end_of_a_types_name() {
    let t = Test::new();
    t.write("tasks.md", plan(&[task("T1", "a").verify("true")]));
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute", "--all"]).ok();
    let run = t.wf(&["events", "--type", "status_changed", "--json"]).ok();
    let types: std::collections::BTreeSet<String> = run
        .stdout
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["type"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        types.into_iter().collect::<Vec<_>>(),
        ["task.status_changed", "workflow.status_changed"]
    );
    insta::assert_snapshot!(t.wf(&["events", "--type", "nope"]).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: --type nope: wf writes no such event; use one of workflow.status_changed, task.status_changed, gate.result, task.verified, plan.imported, constraint.added, constraint.removed, constraint.promoted, constraint.merged, constraint.verified, task.execution_started, task.execution_result, task.accepted_unchecked, task.dispatch_requested, task.dispatch_ack, task.dispatch_nack, task.review_result, resource.allocated, resource.released, resource.missing (or the part after a dot, as status_changed)
    ");
}
