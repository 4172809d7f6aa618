use std::path::Path;

use crate::plan::{mirror::mirror, parse, Plan};
use crate::state::machine::TaskStatus;

const TAGGED: &str = r#"{
  "master": {
    "tasks": [
      {
        "id": 1,
        "title": "Set up the repository",
        "description": "Create package.json and src/index.ts",
        "status": "done",
        "dependencies": [],
        "priority": "high",
        "details": "Use npm init.",
        "testStrategy": "npm test passes"
      },
      {
        "id": 2,
        "title": "Build the API",
        "description": "REST endpoints",
        "status": "pending",
        "dependencies": [1],
        "subtasks": [
          { "id": 1, "title": "Routes", "description": "", "status": "done", "dependencies": [] },
          { "id": 2, "title": "Handlers", "status": "in-progress", "dependencies": [1, "1"],
            "acceptanceCriteria": "- returns 200" }
        ]
      },
      { "id": 3, "title": "Docs", "status": "deferred", "dependencies": ["2.2"] },
      { "id": 4, "title": "Old idea", "status": "cancelled", "dependencies": [] },
      { "id": 5, "title": "Review me", "status": "review", "dependencies": [] }
    ],
    "metadata": { "created": "2025-01-01" }
  },
  "feature-x": { "tasks": [ { "id": 1, "title": "Other", "status": "pending" } ] }
}
"#;

fn read(text: &str) -> Plan {
    parse(Path::new(".taskmaster/tasks/tasks.json"), text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn tasks_subtasks_statuses_and_deps() {
    let plan = read(TAGGED);
    assert_eq!(plan.format.name(), "taskmaster");
    let ids: Vec<&str> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
    // Every tag is read; the tasks of a tag other than master take its name.
    assert_eq!(ids, ["1", "2", "2.1", "2.2", "3", "4", "5", "feature-x.1"]);
    let t = |id: &str| plan.tasks.iter().find(|t| t.id == id).unwrap();
    let statuses: Vec<TaskStatus> = plan.tasks.iter().map(|t| t.status).collect();
    use TaskStatus::*;
    assert_eq!(
        statuses,
        [Completed, Pending, Completed, Pending, Skipped, Skipped, Pending, Pending]
    );
    assert_eq!(t("1").line, 4);
    assert_eq!(
        t("1").requirement.as_deref(),
        Some("Create package.json and src/index.ts\n\nUse npm init.")
    );
    assert_eq!(t("1").acceptance.as_deref(), Some("npm test passes"));
    assert_eq!(t("1").extra["priority"], "high");
    assert_eq!(t("1").file.as_deref(), Some("package.json"));
    // A subtask's number is a sibling; a parent waits for its subtasks, which wait
    // for what it waits for.
    assert_eq!(t("2.2").deps, ["2.1", "1"]);
    assert_eq!(t("2").deps, ["1", "2.1", "2.2"]);
    assert_eq!(t("2.1").deps, ["1"]);
    assert_eq!(t("2.2").phase, "Build the API");
    assert_eq!(t("1").phase, "master");
    assert_eq!(t("feature-x.1").phase, "feature-x");
    assert_eq!(t("2.2").acceptance.as_deref(), Some("- returns 200"));
    assert_eq!(t("3").deps, ["2.2"]);
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    assert_eq!(plan.detected, "8 task objects; 2 tags");
}

#[test]
fn the_legacy_layout_and_errors() {
    let plan = read(
        r#"{"tasks": [{"id": 1, "title": "A", "status": "pending"}, {"id": 2, "title": "B", "dependencies": [1], "status": "weird"}]}"#,
    );
    assert_eq!(plan.tasks.len(), 2);
    assert_eq!(plan.warnings.len(), 1);
    assert!(plan.warnings[0].message.contains("\"weird\""));
    let err = parse(
        Path::new("tasks.json"),
        "{\"tasks\": [\n  {\"id\": 1, \"title\": \"A\",}\n]}",
    )
    .unwrap_err();
    assert!(
        err.message
            .starts_with("tasks.json:2: not valid JSON at column 26"),
        "{}",
        err.message
    );
    let err = parse(
        Path::new("tasks.json"),
        "{\"tasks\": [{\"id\": 1, \"title\": \"A\", \"dependencies\": [9]}]}",
    )
    .unwrap_err();
    assert!(
        err.message
            .contains("task 1 depends on 9, which is not a task"),
        "{}",
        err.message
    );
    let err = parse(Path::new("tasks.json"), "{\"tasks\": [{\"title\": \"A\"}]}").unwrap_err();
    assert!(err.message.contains("has no \"id\""), "{}", err.message);
}

#[test]
fn a_status_goes_back_in_place_and_nothing_else_moves() {
    let plan = read(TAGGED);
    let mut tasks = plan.tasks.clone();
    for t in &mut tasks {
        match t.id.as_str() {
            "2" => t.status = TaskStatus::Completed,
            "2.2" => t.status = TaskStatus::Completed,
            "4" => t.status = TaskStatus::Skipped,
            "5" => t.status = TaskStatus::Pending,
            _ => {}
        }
    }
    let out = mirror(plan.format, TAGGED, &tasks);
    let expected = TAGGED
        .replacen(
            r#""status": "pending",
        "dependencies": [1],"#,
            r#""status": "done",
        "dependencies": [1],"#,
            1,
        )
        .replacen(r#""status": "in-progress""#, r#""status": "done""#, 1);
    assert_eq!(out, expected);
    // The other tag's task 1 is not master's 1: untouched.
    assert!(out.contains(r#"{ "id": 1, "title": "Other", "status": "pending" }"#));
}

#[test]
fn bare_lists_tags_as_lists_written_ids_and_subtasks_that_wait_for_their_parents_deps() {
    let bare = r#"[{"id": "1", "title": "A", "status": "done", "subtasks": [
        {"id": "1.1", "title": "A1"}, {"id": "1.2", "title": "A2", "status": "pending"}]}]"#;
    let plan = read(bare);
    let got: Vec<(&str, TaskStatus)> = plan
        .tasks
        .iter()
        .map(|t| (t.id.as_str(), t.status))
        .collect();
    // `"1.1"` is written whole; a subtask without a status under a done task is done.
    assert_eq!(
        got,
        [
            ("1", TaskStatus::Completed),
            ("1.1", TaskStatus::Completed),
            ("1.2", TaskStatus::Pending)
        ]
    );
    let tag_as_list = r#"{"master": [{"id": 1, "title": "A"}, {"id": 5, "title": "E"},
        {"id": 7, "title": "G", "dependencies": [5], "subtasks": [
            {"id": 1, "title": "G1", "dependencies": [5]},
            {"id": 5, "title": "G5", "dependencies": [1]}]}]}"#;
    let plan = read(tag_as_list);
    let t = |id: &str| plan.tasks.iter().find(|t| t.id == id).unwrap();
    // `5` of subtask 7.1 comes after it: task 5 is meant (what 7 waits for); `1` of
    // 7.5 is its sibling 7.1.
    assert_eq!(t("7.1").deps, ["5"]);
    assert_eq!(t("7.5").deps, ["7.1", "5"]);
    assert_eq!(t("7").deps, ["5", "7.1", "7.5"]);
}
