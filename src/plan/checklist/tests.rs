use std::path::Path;

use crate::plan::test_support::Reach;
use crate::plan::{parse, Format, Plan};
use crate::state::machine::TaskStatus;

fn read(path: &str, text: &str) -> Plan {
    parse(Path::new(path), text).unwrap_or_else(|e| panic!("{e}"))
}

fn ids(plan: &Plan) -> Vec<&str> {
    plan.tasks.iter().map(|t| t.id.as_str()).collect()
}

fn deps<'a>(plan: &'a Plan, id: &str) -> Vec<&'a str> {
    let t = plan.tasks.iter().find(|t| t.id == id).unwrap();
    t.deps.iter().map(String::as_str).collect()
}

const KIRO: &str = "# Implementation Plan

- [x] 1. Set up the project skeleton
  - Create `src/main.rs` and `Cargo.toml`
  - _Requirements: 1.1_

- [ ] 2. Build the parser
- [x] 2.1 Read the header line
  - Parse the header in src/header.rs
  - _Requirements: 2.1, 2.2_
- [ ] 2.2 (P) Read the records
  - _Requirements: 2.3_
  - _Boundary: RecordReader_
- [ ]* 2.3 Write property tests for the reader
  - _Requirements: 2.1_

- [-] 3. Wire the CLI
  - _Depends: 2.2_
";

#[test]
fn kiro_tasks_sub_tasks_and_their_fields() {
    let plan = read(".kiro/specs/reader/tasks.md", KIRO);
    assert_eq!(plan.format.name(), "kiro");
    assert_eq!(ids(&plan), ["1", "2", "2.1", "2.2", "2.3", "3"]);
    let t = |id: &str| plan.tasks.iter().find(|t| t.id == id).unwrap();
    assert_eq!(t("1").status, TaskStatus::Completed);
    // Kiro's `[-]` is in progress: not finished work, so pending once imported.
    assert_eq!(t("3").status, TaskStatus::Pending);
    assert_eq!(t("1").file.as_deref(), Some("src/main.rs"));
    assert_eq!(t("1").modifies, ["Cargo.toml"]);
    assert_eq!(t("1").extra["requirements"], "1.1");
    assert_eq!(t("2.1").file.as_deref(), Some("src/header.rs"));
    assert_eq!(t("2.2").extra["boundary"], "RecordReader");
    assert!(t("2.2").parallel);
    assert_eq!(t("2.2").name, "Read the records");
    assert_eq!(t("2.3").extra["optional"], true);
    assert_eq!(t("2.3").status, TaskStatus::Pending);
    assert_eq!(t("2.1").phase, "2. Build the parser");
    assert_eq!(t("2").phase, "2. Build the parser");
    // A parent waits for its sub-tasks; order is the rest.
    assert_eq!(deps(&plan, "2"), ["2.1", "2.2", "2.3"]);
    let reach = Reach::new(&plan.tasks);
    assert!(reach.ancestors("2.1").contains("1"));
    // 2.2 (P) runs beside 2.1: both wait for 1, not for each other.
    assert!(!reach.ancestors("2.2").contains("2.1"));
    assert!(reach.ancestors("2.2").contains("1"));
    assert!(reach.ancestors("2.3").contains("2.1") && reach.ancestors("2.3").contains("2.2"));
    assert!(reach.ancestors("3").contains("2"));
}

#[test]
fn kiro_depends_on_an_unknown_task_is_refused_at_its_line() {
    let text = "- [ ] 1. A\n- [ ] 2. B\n  - _Depends: 1, 7.2_\n";
    let err = parse(Path::new(".kiro/specs/x/tasks.md"), text).unwrap_err();
    assert!(
        err.message
            .starts_with(".kiro/specs/x/tasks.md:3: task 2 depends on 7.2"),
        "{}",
        err.message
    );
}

#[test]
fn a_number_written_twice_is_read_with_a_warning() {
    let text = "## Phase 1\n- [ ] 1. A\n- [ ] 2. B\n## Phase 2\n- [ ] 1. C\n";
    let plan = read(".kiro/specs/x/tasks.md", text);
    assert_eq!(ids(&plan), ["1", "2", "1-2"]);
    assert_eq!(plan.warnings.len(), 1);
    assert_eq!(plan.warnings[0].line, 5);
    assert!(
        plan.warnings[0].message.contains("first at line 2"),
        "{}",
        plan.warnings[0].message
    );
}

const OPENSPEC: &str = "# Tasks

## 1. Setup

- [x] 1.1 Create the module in `src/export/mod.rs`
- [ ] 1.2 Add the dependency and verify `cargo build` passes

## 2. Core

- [ ] 2.1 Implement the CSV writer
  - [ ] 2.1.1 Quote fields with commas
- [ ] Document the format (deferred)
";

#[test]
fn openspec_groups_and_every_checkbox() {
    let plan = read("openspec/changes/add-export/tasks.md", OPENSPEC);
    assert_eq!(plan.format.name(), "openspec");
    // The unnumbered item is the fourth top-level one.
    assert_eq!(ids(&plan), ["1.1", "1.2", "2.1", "2.1.1", "4"]);
    let t = |id: &str| plan.tasks.iter().find(|t| t.id == id).unwrap();
    assert_eq!(t("1.1").phase, "1. Setup");
    assert_eq!(t("1.2").phase, "1. Setup");
    assert_eq!(t("2.1.1").phase, "2.1 Implement the CSV writer");
    assert_eq!(t("4").status, TaskStatus::Skipped);
    assert_eq!(t("4").name, "Document the format");
    assert_eq!(deps(&plan, "2.1"), ["2.1.1"]);
    let reach = Reach::new(&plan.tasks);
    assert!(reach.ancestors("2.1.1").contains("1.2"));
    assert!(reach.ancestors("4").contains("2.1"));
    // Without the path, the numbered lines and groups still tell it.
    assert_eq!(read("tasks.md", OPENSPEC).format.name(), "openspec");
}

const STORY: &str = "# Story 1.2: Sign in

Status: ready-for-dev

## Story

As a user, I want to sign in, so that my data is mine.

## Acceptance Criteria

1. A user signs in with email and password
2. A wrong password shows an error
3. Five failures lock the account

## Tasks / Subtasks

- [x] Task 1: Add the login form (AC: #1)
  - [x] Create `src/login.tsx`
  - [ ] Wire the submit button
- [ ] Task 2 (AC: 2, 3)
  - [ ] 2.1 Show the error banner
- [ ] Write the e2e test (SKIPPED - not required for MVP)

### Review Follow-ups (AI)

- [ ] [AI-Review][High] Rate-limit the endpoint

## Dev Notes

- [ ] not a task: a note's checkbox
";

#[test]
fn bmad_story_tasks_criteria_and_status() {
    let plan = read("docs/stories/1.2.story.md", STORY);
    assert_eq!(plan.format.name(), "bmad");
    assert!(plan.detected.contains("ready-for-dev"), "{}", plan.detected);
    assert_eq!(ids(&plan), ["1", "1.1", "1.2", "2", "2.1", "3", "4"]);
    let t = |id: &str| plan.tasks.iter().find(|t| t.id == id).unwrap();
    assert_eq!(t("1").name, "Add the login form");
    assert_eq!(
        t("1").acceptance.as_deref(),
        Some("1. A user signs in with email and password")
    );
    assert_eq!(
        t("1.2").acceptance,
        t("1").acceptance,
        "a subtask serves its parent's criteria"
    );
    assert_eq!(
        t("2").acceptance.as_deref(),
        Some("2. A wrong password shows an error\n3. Five failures lock the account")
    );
    assert_eq!(t("3").status, TaskStatus::Skipped);
    assert_eq!(t("3").name, "Write the e2e test");
    assert_eq!(
        t("3").acceptance.as_deref().map(|a| a.lines().count()),
        Some(3),
        "no AC named: all"
    );
    assert_eq!(t("4").phase, "Review Follow-ups (AI)");
    assert_eq!(t("1.1").file.as_deref(), Some("src/login.tsx"));
}

#[test]
fn legends_decide_what_a_mark_means() {
    let text = "Legend: [ ] todo, [~] skipped, [/] doing\n\n- [ ] 1. A\n- [~] 2. B\n- [/] 3. C\n- [-] 4. D\n";
    let plan = read("openspec/changes/x/tasks.md", text);
    let s: Vec<TaskStatus> = plan.tasks.iter().map(|t| t.status).collect();
    assert_eq!(
        s,
        [
            TaskStatus::Pending,
            TaskStatus::Skipped,
            TaskStatus::Pending,
            TaskStatus::Skipped
        ]
    );
}

#[test]
fn the_status_goes_back_in_the_box_of_each_format() {
    use crate::plan::mirror::mirror;
    let plan = read(".kiro/specs/reader/tasks.md", KIRO);
    let mut tasks = plan.tasks.clone();
    for t in &mut tasks {
        if t.id == "2.2" {
            t.status = TaskStatus::Completed;
        }
    }
    let out = mirror(Format::named("kiro").unwrap(), KIRO, &tasks);
    let changed: Vec<(&str, &str)> = KIRO
        .lines()
        .zip(out.lines())
        .filter(|(a, b)| a != b)
        .collect();
    // 3 shows `[-]`, in progress, and is: its box stays.
    assert_eq!(
        changed,
        [(
            "- [ ] 2.2 (P) Read the records",
            "- [x] 2.2 (P) Read the records"
        ),],
        "{out}"
    );
    let plan = read("docs/stories/1.2.story.md", STORY);
    let mut tasks = plan.tasks.clone();
    for t in &mut tasks {
        if t.id == "1.2" {
            t.status = TaskStatus::Completed;
        }
    }
    let out = mirror(plan.format, STORY, &tasks);
    assert_eq!(
        out,
        STORY.replace("- [ ] Wire the submit", "- [x] Wire the submit")
    );
}

#[test]
fn a_check_on_the_line_is_the_tasks_verify_in_every_checklist_format() {
    let line = "- [ ] 1.1 Add the parser in src/p.py (verify: `pytest tests/test_p.py`)";
    for (path, text) in [
        (
            ".kiro/specs/p/tasks.md",
            format!("# Implementation Plan\n\n{line}\n"),
        ),
        (
            "openspec/changes/add-p/tasks.md",
            format!("## 1. Parser\n\n{line}\n"),
        ),
        (
            "docs/stories/1.1.parser.md",
            format!("# Story 1.1\n\n## Status\n\nApproved\n\n## Tasks / Subtasks\n\n{line}\n"),
        ),
    ] {
        let plan = read(path, &text);
        let t = &plan.tasks[0];
        assert_eq!(t.name, "Add the parser in src/p.py", "{path}");
        assert_eq!(t.verify, ["pytest tests/test_p.py"], "{path}");
        // The command's words are not files the task names.
        assert_eq!(
            (t.file.as_deref(), t.modifies.as_slice()),
            (Some("src/p.py"), &[][..]),
            "{path}"
        );
    }
}
