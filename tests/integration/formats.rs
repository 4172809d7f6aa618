//! The plan formats of other planning tools, end to end (issue 48): a fixture of
//! each — Kiro, OpenSpec, a BMAD story, Taskmaster — at the path its tool writes it,
//! checked (`wf check` names the format, why, and every finding), imported, run to
//! the end with mocked agents, and its status written back in the workflow's copy
//! in the file's own syntax: the copy differs from the plan only in the boxes or
//! status values of the tasks that changed.

use crate::test::{fixture, Run, Test};

/// The fixture `plans/<name>` written at `path` in the project.
fn plan_at(t: &Test, name: &str, path: &str) -> String {
    let text = std::fs::read_to_string(fixture(&format!("plans/{name}"))).expect("fixture");
    t.write(path, &text);
    text
}

/// Imports the plan at `path`, runs every task with a mocked agent, and gives the
/// workflow's copy of the plan.
fn run_to_the_end(t: &Test, path: &str) -> String {
    t.wf(&["workflow-start", path]).ok();
    t.wf(&["workflow-execute", "--all", "--mock", "success"])
        .ok();
    assert_eq!(t.state()["status"], "completed", "{}", t.state());
    let name = t.state()["tasks_file"].as_str().unwrap_or("").to_string();
    std::fs::read_to_string(t.workflow_dir().join(name)).expect("the plan copy")
}

/// The lines that differ between `a` and `b` (same line count), as `(old, new)`.
fn changed_lines<'a>(a: &'a str, b: &'a str) -> Vec<(&'a str, &'a str)> {
    assert_eq!(
        a.lines().count(),
        b.lines().count(),
        "a line came or went:\n{b}"
    );
    a.lines().zip(b.lines()).filter(|(x, y)| x != y).collect()
}

/// `wf check`'s output, the project's path as `[ROOT]`.
fn check(t: &Test, path: &str) -> Run {
    t.wf(&["check", path])
}

#[test]
fn a_kiro_spec_runs_and_its_boxes_are_ticked() {
    let t = Test::new();
    let path = ".kiro/specs/csv-reader/tasks.md";
    let plan = plan_at(&t, "kiro-tasks.md", path);
    insta::assert_snapshot!(check(&t, path).ok().whole(), @r"
    exit: 0
    --- stdout
    .kiro/specs/csv-reader/tasks.md: format kiro: 6 checkbox tasks; path .kiro/specs/; _Requirements:_ lines; optional `- [ ]*` tasks; # Implementation Plan
    .kiro/specs/csv-reader/tasks.md: 6 tasks (kiro): 0 errors, 0 warnings, 0 blocked
    .kiro/specs/csv-reader/tasks.md: checks: 0 by a command, 5 by what their line names, 1 by nothing (2.1)
    --- stderr
    ");
    let copy = run_to_the_end(&t, path);
    assert_eq!(
        changed_lines(&plan, &copy),
        [
            (
                "- [ ] 2. Build the CSV reader",
                "- [x] 2. Build the CSV reader"
            ),
            (
                "- [ ] 2.2 (P) Read the records",
                "- [x] 2.2 (P) Read the records"
            ),
            (
                "- [ ]* 2.3 Write property tests for the reader",
                "- [x]* 2.3 Write property tests for the reader"
            ),
            (
                "- [ ] 3. Wire the command line",
                "- [x] 3. Wire the command line"
            ),
        ]
    );
    // A parent waits for its sub-tasks, and 2.2 (P) runs beside 2.1.
    let task = |id: &str| {
        t.state()["tasks"]
            .as_array()
            .and_then(|a| a.iter().find(|x| x["id"] == id).cloned())
            .unwrap_or_default()
    };
    assert_eq!(task("2")["deps"], serde_json::json!(["2.1", "2.2", "2.3"]));
    assert_eq!(task("2.2")["deps"], serde_json::json!(["1"]));
    assert_eq!(task("3")["deps"], serde_json::json!(["2.2", "2"]));
}

#[test]
fn an_openspec_change_runs_and_its_brief_carries_the_proposal_and_deltas() {
    let t = Test::new();
    let dir = "openspec/changes/add-csv-export";
    let plan = plan_at(&t, "openspec-change/tasks.md", &format!("{dir}/tasks.md"));
    plan_at(
        &t,
        "openspec-change/proposal.md",
        &format!("{dir}/proposal.md"),
    );
    plan_at(
        &t,
        "openspec-change/specs/csv-export/spec.md",
        &format!("{dir}/specs/csv-export/spec.md"),
    );
    let path = format!("{dir}/tasks.md");
    insta::assert_snapshot!(check(&t, &path).ok().whole(), @r"
    exit: 0
    --- stdout
    openspec/changes/add-csv-export/tasks.md: format openspec: 4 checkbox tasks; path openspec/changes/; 2 `## 1. Group` headings
    openspec/changes/add-csv-export/tasks.md: 4 tasks (openspec): 0 errors, 0 warnings, 0 blocked
    openspec/changes/add-csv-export/tasks.md: checks: 0 by a command, 4 by what their line names, 0 by nothing
    --- stderr
    ");
    t.wf(&["workflow-start", &path]).ok();
    let brief = t.wf(&["next"]).ok().stdout;
    assert!(
        brief.contains("## Change proposal (proposal.md)"),
        "{brief}"
    );
    assert!(
        brief.contains("Users want their data out of the tool as CSV."),
        "{brief}"
    );
    assert!(
        brief.contains("## Spec delta (specs/csv-export/spec.md)"),
        "{brief}"
    );
    assert!(brief.contains("### Requirement: CSV export"), "{brief}");
    t.wf(&["workflow-execute", "--all", "--mock", "success"])
        .ok();
    let name = t.state()["tasks_file"].as_str().unwrap_or("").to_string();
    let copy = std::fs::read_to_string(t.workflow_dir().join(name)).expect("copy");
    assert_eq!(
        changed_lines(&plan, &copy),
        [
            (
                "- [ ] 1.2 Add the `csv` dependency to `Cargo.toml` and verify `cargo build` passes",
                "- [x] 1.2 Add the `csv` dependency to `Cargo.toml` and verify `cargo build` passes"
            ),
            (
                "- [ ] 2.1 Write rows with quoting in `src/export/csv.rs`",
                "- [x] 2.1 Write rows with quoting in `src/export/csv.rs`"
            ),
            (
                "- [ ] 2.2 Add a test for commas and quotes in `tests/export.rs`",
                "- [x] 2.2 Add a test for commas and quotes in `tests/export.rs`"
            ),
        ]
    );
}

#[test]
fn a_bmad_story_runs_with_its_criteria_in_the_brief() {
    let t = Test::new();
    let path = "docs/stories/1.2.sign-in.story.md";
    let plan = plan_at(&t, "bmad-story.md", path);
    insta::assert_snapshot!(check(&t, path).ok().whole(), @r#"
    exit: 0
    --- stdout
    docs/stories/1.2.sign-in.story.md: format bmad: 7 checkbox tasks under `## Tasks / Subtasks`; story Status: "ready-for-dev"; 4 story sections; a story file's path; fewer in other formats (spec-kit has 2, kiro has 3, openspec has 3)
    docs/stories/1.2.sign-in.story.md: 7 tasks (bmad): 0 errors, 0 warnings, 0 blocked
    docs/stories/1.2.sign-in.story.md: checks: 0 by a command, 7 by what their line names, 0 by nothing
    --- stderr
    "#);
    t.wf(&["workflow-start", path]).ok();
    let brief = t.wf(&["next"]).ok().stdout;
    // The next task is 1.2, under Task 1 (AC: #1): the criterion it serves.
    assert!(
        brief.contains("1. A user signs in with email and password"),
        "{brief}"
    );
    assert!(!brief.contains("2. A wrong password"), "{brief}");
    t.wf(&["workflow-execute", "--all", "--mock", "success"])
        .ok();
    assert_eq!(t.state()["status"], "completed");
    let name = t.state()["tasks_file"].as_str().unwrap_or("").to_string();
    let copy = std::fs::read_to_string(t.workflow_dir().join(name)).expect("copy");
    let changed: Vec<&str> = changed_lines(&plan, &copy)
        .into_iter()
        .map(|c| c.1)
        .collect();
    assert_eq!(
        changed,
        [
            "  - [x] Wire the submit button to `src/api/session.ts`",
            "- [x] Task 2: Show errors (AC: 2, 3)",
            "  - [x] 2.1 Show the error banner",
            "- [x] [AI-Review][High] Rate-limit the sign-in endpoint",
        ]
    );
    // The deferred task stays deferred, as its line says.
    assert!(copy.contains("- [ ] Write the end-to-end test (SKIPPED - not required for MVP)"));
}

#[test]
fn a_taskmaster_list_runs_and_only_its_status_values_change() {
    let t = Test::new();
    let path = ".taskmaster/tasks/tasks.json";
    let plan = plan_at(&t, "taskmaster-tasks.json", path);
    insta::assert_snapshot!(check(&t, path).ok().whole(), @r"
    exit: 0
    --- stdout
    .taskmaster/tasks/tasks.json: format taskmaster: 5 task objects; 1 tag
    .taskmaster/tasks/tasks.json: 5 tasks (taskmaster): 0 errors, 0 warnings, 0 blocked
    .taskmaster/tasks/tasks.json: checks: 0 by a command, 5 by what their line names, 0 by nothing
    --- stderr
    ");
    t.wf(&["workflow-start", path]).ok();
    assert_eq!(t.state()["tasks_file"], "tasks-tasks.json");
    let brief = t.wf(&["next"]).ok().stdout;
    assert!(
        brief.contains("Define the routes in src/routes/notes.ts"),
        "{brief}"
    );
    t.wf(&["workflow-execute", "--all", "--mock", "success"])
        .ok();
    let copy = std::fs::read_to_string(t.workflow_dir().join("tasks-tasks.json")).expect("copy");
    assert_eq!(
        changed_lines(&plan, &copy),
        [
            (
                r#"        "status": "pending","#,
                r#"        "status": "done","#
            ),
            (
                r#"            "status": "pending","#,
                r#"            "status": "done","#
            ),
            (
                r#"            "status": "pending","#,
                r#"            "status": "done","#
            ),
        ]
    );
    // Still the JSON it was, every other byte as it was.
    let value: serde_json::Value = serde_json::from_str(&copy).expect("valid JSON");
    assert_eq!(value["master"]["tasks"][2]["status"], "deferred");
}

#[test]
fn the_format_is_named_by_format_and_an_unknown_name_is_a_usage_error() {
    let t = Test::new();
    plan_at(&t, "openspec-change/tasks.md", "tasks.md");
    let run = t.wf(&["check", "--format", "kiro", "tasks.md"]).ok();
    assert!(
        run.stdout
            .contains("tasks.md: format kiro: named by --format"),
        "{}",
        run.stdout
    );
    let run = t
        .wf(&["workflow-start", "--format", "asciidoc", "tasks.md"])
        .code(2);
    assert!(
        run.stderr.contains("not a plan format; use one of claude-workflow, spec-kit, kiro, openspec, bmad, taskmaster, checklist"),
        "{}",
        run.stderr
    );
    assert!(!t.workflow_dir().exists());
}

/// A plan of each format at its tool's path, whose first pending task names a file
/// on its line or in its details and carries no command: `(path, text, task, file)`.
const NAMING_A_FILE: &[(&str, &str, &str, &str)] = &[
    (
        ".kiro/specs/parser/tasks.md",
        "# Implementation Plan\n\n\
         - [ ] 1. Create the parser\n  \
           - Write the parse function in `src/parser.py`\n  \
           - _Requirements: 1.1_\n",
        "1",
        "src/parser.py",
    ),
    (
        "openspec/changes/add-export/tasks.md",
        "## 1. Implementation\n\n- [ ] 1.1 Create the exporter in `src/export.ts`\n",
        "1.1",
        "src/export.ts",
    ),
    (
        "docs/stories/1.1.sign-in.md",
        "# Story 1.1: Sign in\n\n## Status\n\nApproved\n\n\
         ## Acceptance Criteria\n\n1. A user signs in with email and password\n\n\
         ## Tasks / Subtasks\n\n\
         - [ ] Task 1: Create the sign-in form in src/signin.tsx (AC: 1)\n",
        "1",
        "src/signin.tsx",
    ),
    (
        ".taskmaster/tasks/tasks.json",
        r#"{"master": {"tasks": [{"id": 1, "title": "Create the config loader",
            "description": "Write the loader in src/config.js", "status": "pending",
            "dependencies": [], "priority": "high", "details": "", "testStrategy": ""}]}}"#,
        "1",
        "src/config.js",
    ),
];

#[test]
fn a_task_of_each_format_whose_file_the_agent_never_writes_is_refused() {
    if which::which("git").is_err() {
        return;
    }
    for (path, text, id, file) in NAMING_A_FILE {
        let t = Test::new();
        t.write(path, text);
        t.git_commit_all();
        t.wf(&["workflow-start", path]).ok();
        // Handed off to the agent, which comes back having written nothing.
        t.wf(&["workflow-execute", "--all"]).code(0);
        let run = t.wf(&["workflow-execute", "--all"]).code(1);
        let said = format!("{}{}", run.stdout, run.stderr);
        assert!(
            said.contains(&format!("{id} failed: {file} was not created")),
            "{path}: {said}"
        );
        assert_eq!(
            crate::plans::task_status(&t.state(), id),
            "failed",
            "{path}"
        );
    }
}
