//! The zero-decision audit and dependency classification on one small plan per
//! pattern (`fixtures/plans/a-*.md`), through `wf check` (every finding at once, as
//! `file:line: severity: message`) and `workflow-start` (what is recorded).

use serde_json::Value;

use crate::plans::{plan, task};
use crate::test::{fixture, snapshot_dir, Test};

/// A test project whose `tasks.md` is the fixture `plans/<name>.md`.
fn with_plan(name: &str) -> Test {
    let t = Test::new();
    let text = std::fs::read(fixture(&format!("plans/{name}.md"))).expect("fixture");
    t.write("tasks.md", text);
    t
}

/// `wf check tasks.md`'s stdout, after asserting its exit code and a silent stderr.
#[track_caller]
fn check(t: &Test, code: i32) -> String {
    let run = t.wf(&["check", "tasks.md"]).code(code);
    assert_eq!(run.stderr, "", "check wrote to stderr");
    run.stdout
}

/// `workflow-start --json`'s result.
#[track_caller]
fn start(t: &Test) -> Value {
    t.wf(&["--json", "workflow-start", "tasks.md"]).ok().json()
}

/// `(task, pattern, severity, line)` of each recorded audit finding.
fn findings(run: &Value) -> Vec<(String, String, String, u64)> {
    run["audit"]["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                f["taskId"].as_str().unwrap_or("").to_string(),
                f["pattern"].as_str().unwrap_or("").to_string(),
                f["severity"].as_str().unwrap_or("").to_string(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

fn f(task: &str, pattern: &str, severity: &str, line: u64) -> (String, String, String, u64) {
    (task.into(), pattern.into(), severity.into(), line)
}

/// `(task, blocked_by)` of each task the import marked blocked.
fn blocked(run: &Value) -> Vec<(String, Vec<String>)> {
    run["blocked"]
        .as_array()
        .expect("blocked")
        .iter()
        .map(|b| {
            let kinds = b["blocked_by"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|k| k.as_str().map(str::to_string))
                .collect();
            (b["id"].as_str().unwrap_or("").to_string(), kinds)
        })
        .collect()
}

#[track_caller]
fn passes_clean(name: &str, tasks: usize, format: &str, checks: &str) {
    let t = with_plan(name);
    assert_eq!(
        check(&t, 0),
        format!("tasks.md: format {format}: {tasks} {}\ntasks.md: {tasks} tasks ({format}): 0 errors, 0 warnings, 0 blocked\ntasks.md: checks: {checks}\n", if format == "spec-kit" { "`- [ ] T001` task lines" } else { "`## T1: name` task headings" })
    );
    let run = start(&t);
    assert_eq!(run["audit"]["passed"], true, "{run}");
    assert_eq!(findings(&run), vec![]);
    assert_eq!(blocked(&run), vec![]);
}

#[test]
fn code_spans_and_file_names_are_not_findings() {
    passes_clean(
        "a-code-spans",
        2,
        "claude-workflow",
        "0 by a command, 2 by what their line names, 0 by nothing",
    );
}

#[test]
fn route_segments_in_paths_are_not_placeholders_and_spec_kit_is_not_classified() {
    passes_clean(
        "a-routes",
        4,
        "spec-kit",
        "0 by a command, 4 by what their line names, 0 by nothing",
    );
}

#[test]
fn type_css_regex_and_json_brackets_are_not_placeholders() {
    passes_clean(
        "a-syntax",
        7,
        "spec-kit",
        "0 by a command, 6 by what their line names, 1 by nothing (T004)",
    );
}

#[test]
fn story_and_tag_labels_are_not_placeholders() {
    passes_clean(
        "a-story-labels",
        3,
        "spec-kit",
        "0 by a command, 3 by what their line names, 0 by nothing",
    );
}

#[test]
fn template_placeholders_still_fail_the_audit() {
    let t = with_plan("a-placeholders");
    assert_eq!(
        check(&t, 2),
        "tasks.md:5: error: T001: name contains \"[###-feature-name]\": an unfilled template placeholder\n\
         tasks.md:6: error: T002: name contains \"[e.g., Python 3.11]\": an unfilled template placeholder\n\
         tasks.md:7: error: T003: name contains \"[NEEDS CLARIFICATION: Redis or Postgres?]\": an unfilled template placeholder\n\
         tasks.md:8: error: T004: name contains \"{{user_name}}\": an unfilled template placeholder\n\
         tasks.md:9: error: T005: name contains \"[Entity1]\": an unfilled template placeholder\n\
         tasks.md:10: error: T006: name contains \"[FEATURE NAME]\": an unfilled template placeholder\n\
         tasks.md:11: error: T007: name contains \"NEEDS CLARIFICATION\": an unfilled template placeholder\n\
         tasks.md: format spec-kit: 7 `- [ ] T001` task lines\n\
         tasks.md: 7 tasks (spec-kit): 7 errors, 0 warnings, 0 blocked\n\
         tasks.md: checks: 0 by a command, 7 by what their line names, 0 by nothing\n"
    );
    let run = start(&t);
    assert_eq!(run["audit"]["passed"], false);
    assert_eq!(
        findings(&run),
        (1..=7)
            .map(|i| f(&format!("T00{i}"), "placeholder", "error", 4 + i))
            .collect::<Vec<_>>()
    );
    assert_eq!(blocked(&run), vec![]);
}

#[test]
fn completed_and_deferred_tasks_are_not_audited() {
    let t = with_plan("a-done");
    assert_eq!(
        check(&t, 2),
        "tasks.md:8: error: T004: name contains \"TBD\": a decision is still open\n\
         tasks.md: format spec-kit: 4 `- [ ] T001` task lines\n\
         tasks.md: 4 tasks (spec-kit): 1 error, 0 warnings, 0 blocked\n\
         tasks.md: checks: 0 by a command, 4 by what their line names, 0 by nothing\n"
    );
    let run = start(&t);
    assert_eq!(run["audit"]["passed"], false);
    assert_eq!(findings(&run), vec![f("T004", "TBD", "error", 8)]);
}

#[test]
fn a_tasks_own_depends_on_marker_is_not_an_open_condition() {
    let t = with_plan("a-depends-on");
    assert_eq!(
        check(&t, 2),
        "tasks.md:18: error: T3: requirement contains \"depends on\": a condition the executor would have to decide; list task deps in a Depends field\n\
         tasks.md: format claude-workflow: 3 `## T1: name` task headings\n\
         tasks.md: 3 tasks (claude-workflow): 1 error, 0 warnings, 0 blocked\n\
         tasks.md: checks: 0 by a command, 3 by what their line names, 0 by nothing\n"
    );
    let run = start(&t);
    assert_eq!(findings(&run), vec![f("T3", "depends on", "error", 18)]);
}

#[test]
fn agent_work_without_actions_is_a_warning_not_a_refusal() {
    let t = with_plan("a-agent-work");
    assert_eq!(
        check(&t, 2),
        "tasks.md:3: warning: T1: no actions field: its steps or requirement say what to do, so an agent does it\n\
         tasks.md:10: warning: T2: no actions field: its steps or requirement say what to do, so an agent does it\n\
         tasks.md:15: error: T3: no actions, commands, steps or requirement: what to do is left to the executor\n\
         tasks.md: format claude-workflow: 3 `## T1: name` task headings\n\
         tasks.md: 3 tasks (claude-workflow): 1 error, 2 warnings, 0 blocked\n\
         tasks.md: checks: 0 by a command, 3 by what their line names, 0 by nothing\n"
    );
    let run = start(&t);
    assert_eq!(
        findings(&run),
        vec![
            f("T1", "missing actions", "warning", 3),
            f("T2", "missing actions", "warning", 10),
            f("T3", "missing actions", "error", 15),
        ]
    );
}

#[test]
fn the_plugins_team_board_passes_the_audit() {
    let t = Test::new();
    let board = std::fs::read(crate::test::format_file(
        "claude-workflow/team.team-tasks.md",
    ))
    .expect("board");
    t.write("tasks.md", board);
    let run = t.wf(&["--json", "check", "tasks.md"]).ok().json();
    assert_eq!(run["summary"]["errors"], 0, "{run}");
    assert_eq!(start(&t)["audit"]["passed"], true);
}

#[test]
fn classification_matches_words_not_letters() {
    let t = with_plan("a-word-boundaries");
    let note = |line: u32, id: &str, kind: &str, why: &str| {
        format!("tasks.md:{line}: note: {id} would start blocked on {kind} ({why}): lift it with `wf workflow-unblock {kind}` once that input is ready, or write `- **Blocked by**: none` in the task if it waits on nothing\n")
    };
    assert_eq!(
        check(&t, 0),
        [
            note(18, "T4", "api_spec", "name has the word \"api\""),
            note(23, "T5", "api_spec", "name has the word \"service\""),
            note(28, "T6", "api_spec", "name has the word \"fetch\""),
            note(33, "T7", "design_spec", "name contains 表单"),
            "tasks.md: format claude-workflow: 7 `## T1: name` task headings\n\
             tasks.md: 7 tasks (claude-workflow): 0 errors, 0 warnings, 4 blocked\n\
             tasks.md: checks: 0 by a command, 7 by what their line names, 0 by nothing\n"
                .into(),
        ]
        .concat()
    );
    let run = start(&t);
    let api = || vec!["api_spec".to_string()];
    assert_eq!(
        blocked(&run),
        vec![
            ("T4".into(), api()),
            ("T5".into(), api()),
            ("T6".into(), api()),
            ("T7".into(), vec!["design_spec".to_string()]),
        ]
    );
}

#[test]
fn blockers_none_opts_a_task_out_of_classification() {
    let t = with_plan("a-opt-out");
    assert_eq!(
        check(&t, 0),
        "tasks.md:9: note: T2 would start blocked on api_spec (name has the word \"fetch\"): lift it with `wf workflow-unblock api_spec` once that input is ready, or write `- **Blocked by**: none` in the task if it waits on nothing\n\
         tasks.md: format claude-workflow: 3 `## T1: name` task headings\n\
         tasks.md: 3 tasks (claude-workflow): 0 errors, 0 warnings, 1 blocked\n\
         tasks.md: checks: 0 by a command, 3 by what their line names, 0 by nothing\n"
    );
    assert_eq!(
        blocked(&start(&t)),
        vec![("T2".into(), vec!["api_spec".to_string()])]
    );
}

#[test]
fn findings_name_the_line_of_their_field() {
    let t = with_plan("a-field-lines");
    assert_eq!(
        check(&t, 2),
        "tasks.md:7: warning: T1: requirement contains \"maybe\": an undecided option\n\
         tasks.md:10: error: T1: acceptance contains \"TBD\": a decision is still open\n\
         tasks.md: format claude-workflow: 1 `## T1: name` task heading\n\
         tasks.md: 1 task (claude-workflow): 1 error, 1 warning, 0 blocked\n\
         tasks.md: checks: 0 by a command, 1 by what their line names, 0 by nothing\n"
    );
    assert_eq!(
        findings(&start(&t)),
        vec![f("T1", "maybe", "warning", 7), f("T1", "TBD", "error", 10)]
    );
}

#[test]
fn config_classifies_spec_kit_or_turns_classification_off_or_replaces_the_rules() {
    let t = with_plan("a-routes");
    t.config(r#"{"wf": {"classify": {"formats": ["spec-kit"]}}}"#);
    let note = |line: u32, id: &str, kind: &str, why: &str| {
        format!("tasks.md:{line}: note: {id} would start blocked on {kind} ({why}): lift it with `wf workflow-unblock {kind}` once that input is ready\n")
    };
    assert_eq!(
        check(&t, 0),
        [
            note(
                5,
                "T001",
                "api_spec",
                "file src/app/api/venues/[id]/route.ts is under api/"
            ),
            note(
                6,
                "T002",
                "api_spec",
                "file app/api/auth/[...nextauth]/route.ts is under api/"
            ),
            note(
                7,
                "T003",
                "design_spec",
                "file app/blog/[slug]/page.tsx is a .tsx file"
            ),
            // The route `/venues/[id]` is not T004's file; the component is.
            note(
                8,
                "T004",
                "design_spec",
                "file src/components/VenueCard.tsx is under components/"
            ),
            "tasks.md: format spec-kit: 4 `- [ ] T001` task lines\n\
             tasks.md: 4 tasks (spec-kit): 0 errors, 0 warnings, 4 blocked\n\
             tasks.md: checks: 0 by a command, 4 by what their line names, 0 by nothing\n"
                .into(),
        ]
        .concat()
    );

    let t = with_plan("a-word-boundaries");
    t.config(r#"{"wf": {"classify": {"formats": []}}}"#);
    assert_eq!(
        check(&t, 0),
        "tasks.md: format claude-workflow: 7 `## T1: name` task headings\n\
         tasks.md: 7 tasks (claude-workflow): 0 errors, 0 warnings, 0 blocked\n\
         tasks.md: checks: 0 by a command, 7 by what their line names, 0 by nothing\n"
    );
    assert_eq!(blocked(&start(&t)), vec![]);

    let t = with_plan("a-word-boundaries");
    t.config(
        r#"{"wf": {"classify": {"builtin": false}, "blockers": {"release": {"name": "release"}}}}"#,
    );
    assert_eq!(
        check(&t, 0),
        "tasks.md:3: note: T1 would start blocked on release (name matches wf.blockers.release.name at \"release\"): lift it with `wf workflow-unblock release` once that input is ready, or write `- **Blocked by**: none` in the task if it waits on nothing\n\
         tasks.md: format claude-workflow: 7 `## T1: name` task headings\n\
         tasks.md: 7 tasks (claude-workflow): 0 errors, 0 warnings, 1 blocked\n\
         tasks.md: checks: 0 by a command, 7 by what their line names, 0 by nothing\n"
    );
}

#[test]
fn bad_classify_config_is_one_line_error() {
    let t = with_plan("a-clean");
    t.config(r#"{"wf": {"classify": {"formats": ["speckit"]}}}"#);
    let run = t.wf(&["check", "tasks.md"]).code(2);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 2
    --- stdout
    --- stderr
    wf: error: [ROOT]/project/.claude/config/project-config.json: wf.classify.formats lists "speckit", which is not a plan format; use some of claude-workflow, spec-kit, kiro, openspec, bmad, taskmaster, checklist ([] turns classification off)
    "#);
    t.config(r#"{"wf": {"classify": {"format": []}}}"#);
    let run = t.wf(&["check", "tasks.md"]).code(2);
    assert!(
        run.stderr.contains("project-config.json:1:")
            && run.stderr.contains("unknown field `format`"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
}

#[test]
fn check_on_a_clean_plan_prints_one_line_and_writes_nothing() {
    let t = with_plan("a-clean");
    std::fs::remove_dir(&t.home).expect("empty home");
    let before = snapshot_dir(&t.project);
    assert_eq!(
        check(&t, 0),
        "tasks.md: format claude-workflow: 2 `## T1: name` task headings\n\
         tasks.md: 2 tasks (claude-workflow): 0 errors, 0 warnings, 0 blocked\n\
         tasks.md: checks: 1 by a command, 1 by what their line names, 0 by nothing\n"
    );
    assert!(!t.home.exists(), "check created WF_HOME");
    assert_eq!(snapshot_dir(&t.project), before);
}

#[test]
fn check_beside_a_workflow_leaves_it_byte_identical() {
    let t = with_plan("a-clean");
    start(&t);
    t.write(
        "other.md",
        std::fs::read(fixture("plans/a-placeholders.md")).unwrap(),
    );
    let home = snapshot_dir(&t.home);
    let project = snapshot_dir(&t.project);
    let run = t.wf(&["check", "other.md"]).code(2);
    assert!(
        run.stdout.starts_with("other.md:5: error: T001:"),
        "{}",
        run.stdout
    );
    assert_eq!(snapshot_dir(&t.home), home);
    assert_eq!(snapshot_dir(&t.project), project);
}

#[test]
fn check_json_lists_every_finding_with_a_schema_version() {
    let t = with_plan("a-field-lines");
    let run = t.wf(&["--json", "check", "tasks.md"]).code(2);
    let v = run.json();
    assert_eq!(v["schemaVersion"], 2);
    assert_eq!(v["file"], "tasks.md");
    assert_eq!(v["format"], "claude-workflow");
    assert_eq!(v["tasks"], 1);
    assert_eq!(
        v["findings"],
        serde_json::json!([
            {"file": "tasks.md", "line": 7, "severity": "warning", "kind": "audit",
             "message": "T1: requirement contains \"maybe\": an undecided option", "task": "T1", "pattern": "maybe"},
            {"file": "tasks.md", "line": 10, "severity": "error", "kind": "audit",
             "message": "T1: acceptance contains \"TBD\": a decision is still open", "task": "T1", "pattern": "TBD"},
        ])
    );
    assert_eq!(
        v["summary"],
        serde_json::json!({"errors": 1, "warnings": 1, "notes": 0, "blocked": 0, "audit_passed": false})
    );
    assert_eq!(v["exit_code"], 2);
}

#[test]
fn check_strict_exits_1_on_warnings_only() {
    let t = Test::new();
    t.write(
        "tasks.md",
        plan(&[task("T1", "a")
            .field("文件", "a.ts")
            .field("actions", "edit_file")])
        .replace("do T1", "add caching if needed"),
    );
    let out = t.wf(&["check", "tasks.md"]).ok().stdout;
    assert!(
        out.contains(": warning: T1: requirement contains \"if needed\""),
        "{out}"
    );
    t.wf(&["check", "--strict", "tasks.md"]).code(1);
    let clean = with_plan("a-clean");
    clean.wf(&["check", "--strict", "tasks.md"]).ok();
}

#[test]
fn check_shows_plan_warnings_and_constraint_ambiguities() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "# P\n\n- **actions**: stray\n\n## 约束\n\n- 性能可能需要优化\n\n## T1: Add health\n- **文件**: a.ts\n- **actions**: edit_file\n",
    );
    let out = check(&t, 0);
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("tasks.md:3: warning: the task field \"actions\" is outside any task"),
        "{out}"
    );
    assert_eq!(
        lines[1],
        "tasks.md:7: note: constraint is ambiguous (maybe): - 性能可能需要优化"
    );
    assert_eq!(
        lines[2],
        "tasks.md: format claude-workflow: 1 `## T1: name` task heading"
    );
    assert_eq!(
        lines[3],
        "tasks.md: 1 task (claude-workflow): 0 errors, 1 warning, 0 blocked"
    );
}

#[test]
fn check_of_a_plan_that_does_not_parse_is_one_error_as_start_reports_it() {
    let t = with_plan("a-clean");
    t.write("bad.md", "## T1: a\n- **actions**: x\n- **依赖**: T9\n");
    let check = t.wf(&["check", "bad.md"]).code(2);
    let start = t.wf(&["workflow-start", "bad.md"]).code(2);
    assert_eq!(check.stdout, "");
    assert_eq!(check.stderr, start.stderr);
    assert_eq!(check.stderr.lines().count(), 1, "{}", check.stderr);
    assert!(
        check.stderr.starts_with("wf: error: bad.md:3: "),
        "{}",
        check.stderr
    );
}

#[test]
fn start_says_on_stderr_when_the_audit_failed() {
    let t = with_plan("a-field-lines");
    let run = t.wf(&["workflow-start", "tasks.md"]).ok();
    assert_eq!(
        run.stderr,
        "wf: audit: 1 error — workflow-execute will refuse this plan until it is fixed (see `wf check tasks.md`) or it is run with --allow-audit-errors\n\
         tasks.md:7: warning: T1: requirement contains \"maybe\": an undecided option\n\
         tasks.md:10: error: T1: acceptance contains \"TBD\": a decision is still open\n"
    );
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
    Planned `where findings are`: 1 task (claude-workflow).
    ┌───────┬───────┬──────┬─────────┐
    │ phase ┆ tasks ┆ done ┆ blocked │
    ╞═══════╪═══════╪══════╪═════════╡
    │ code  ┆ 1     ┆ 0    ┆ 0       │
    └───────┴───────┴──────┴─────────┘
    Checks: 0 by a command, 1 by what their line names, 0 by nothing.
    Audit: FAILED (1 error, 1 warning).
    Next: settle the audit errors in the plan and import it again, or run `wf workflow-execute --allow-audit-errors`.
    --- stderr
    wf: audit: 1 error — workflow-execute will refuse this plan until it is fixed (see `wf check tasks.md`) or it is run with --allow-audit-errors
    tasks.md:7: warning: T1: requirement contains "maybe": an undecided option
    tasks.md:10: error: T1: acceptance contains "TBD": a decision is still open
    "#);
    let clean = with_plan("a-clean");
    assert_eq!(clean.wf(&["workflow-start", "tasks.md"]).ok().stderr, "");
}

#[test]
fn blocked_message_tells_classified_tasks_from_those_waiting_on_them() {
    let t = Test::new();
    t.write(
        "tasks.md",
        plan(&[
            task("T1", "a")
                .field("文件", "src/users.ts")
                .field("actions", "edit_file"),
            task("T2", "a")
                .field("文件", "src/list.ts")
                .field("actions", "edit_file")
                .deps("T1"),
            task("T3", "a")
                .field("文件", "src/count.ts")
                .field("actions", "edit_file")
                .deps("T2"),
        ])
        .replace("## T1: task T1", "## T1: Fetch users"),
    );
    start(&t);
    let run = t.wf(&["workflow-execute"]).code(3);
    insta::assert_snapshot!(run.whole(), @"
    exit: 3
    --- stdout
    Blocked: T1 waits on api_spec; 2 more tasks wait on them. Lift with `wf workflow-unblock api_spec`.
    --- stderr
    ");
}
