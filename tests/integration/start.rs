//! `workflow-start`: importing real plans, validation, classification, audit, and
//! re-import without losing progress.

use serde_json::{json, Value};

use crate::plans::{assert_invariants, plan, start, task, task_status};
use crate::test::{fixture, format_file, Test};

fn import(t: &Test, path: &std::path::Path) -> Value {
    let dest = t.project.join("plan.md");
    std::fs::copy(path, &dest).expect("copy plan");
    t.wf(&["--json", "workflow-start", "plan.md"]).ok().json()
}

fn ids(state: &Value) -> Vec<String> {
    state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect()
}

fn task_of<'a>(state: &'a Value, id: &str) -> &'a Value {
    state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap()
}

#[test]
fn imports_the_real_claude_workflow_task_board() {
    let t = Test::new();
    let summary = import(&t, &format_file("claude-workflow/team.team-tasks.md"));
    assert_eq!(summary["tasks"], 3);
    assert_eq!(summary["format"], "claude-workflow");
    let state = t.state();
    assert_eq!(ids(&state), ["T1", "T2", "T3"]);
    let phases: Vec<&str> = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["phase"].as_str().unwrap())
        .collect();
    assert_eq!(phases, ["planning", "implement", "review"]);
    assert_eq!(task_of(&state, "T3")["quality_gate"], true);
    assert_eq!(task_of(&state, "T1")["steps"].as_array().unwrap().len(), 2);
    assert_eq!(state["status"], "planned");
    assert_eq!(state["phase"], "plan");
    assert_eq!(state["execution_mode"], "phase");
    assert_eq!(state["pause_before_commit"], true);
    assert_eq!(state["use_subagent"], false);
    assert_eq!(state["consecutive_count"], 0);
    assert_eq!(state["contextMetrics"]["warningThreshold"], 60);
    assert_eq!(state["contextMetrics"]["dangerThreshold"], 80);
    assert_eq!(state["contextMetrics"]["maxConsecutiveTasks"], 5);
    assert!(state["collaboration"]["mode"].is_string());
    assert_eq!(
        state["sessions"],
        json!({"codex": null, "gemini": null, "claude": null})
    );
    // The plan copy and the project meta are written beside the state.
    let copy = t.workflow_dir().join(state["tasks_file"].as_str().unwrap());
    assert!(copy.exists(), "{}", copy.display());
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(t.workflow_dir().join("project-meta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(meta["project_path"], t.project.display().to_string());
    assert_invariants(&t);
}

#[test]
fn imports_the_real_spec_kit_template_with_phase_order() {
    let t = Test::new();
    let summary = import(&t, &format_file("spec-kit/tasks-template.md"));
    assert_eq!(summary["format"], "spec-kit");
    let state = t.state();
    let ids = ids(&state);
    assert_eq!(ids.len(), 28);
    assert_eq!(ids.first().map(String::as_str), Some("T001"));
    assert_eq!(ids.last().map(String::as_str), Some("T028"));
    let t14 = task_of(&state, "T014");
    let deps: Vec<&str> = t14["deps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    assert!(deps.contains(&"T012") && deps.contains(&"T013"), "{deps:?}");
    assert_eq!(task_of(&state, "T012")["parallel"], true);
    assert_eq!(task_of(&state, "T012")["story"], "US1");
    assert!(task_of(&state, "T004")["phase"]
        .as_str()
        .unwrap()
        .starts_with("Phase 2"));
    // Phase 2 starts after phase 1 ends.
    let t4deps = task_of(&state, "T004")["deps"].as_array().unwrap().clone();
    assert!(!t4deps.is_empty(), "phase order is an edge");
    assert_invariants(&t);
}

#[test]
fn the_unfilled_claude_workflow_template_is_an_empty_plan() {
    let t = Test::new();
    std::fs::copy(
        format_file("claude-workflow/tasks-template.md"),
        t.project.join("plan.md"),
    )
    .unwrap();
    let run = t.wf(&["workflow-start", "plan.md"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: plan.md:1: the claude-workflow plan has no tasks (this looks like an unfilled template: `{{…}}` placeholders are not tasks); add tasks as `## T1: name` headings
    ");
    assert!(!t.workflow_dir().join("workflow-state.json").exists());
}

#[test]
fn imports_every_field_of_the_full_fixtures() {
    let t = Test::new();
    import(&t, &fixture("plans/claude-full.md"));
    let state = t.state();
    assert_eq!(
        task_status(&state, "T1"),
        "completed",
        "✅ and 状态 carry over"
    );
    assert_eq!(task_status(&state, "T4"), "skipped");
    assert_eq!(
        task_status(&state, "T3"),
        "blocked",
        "in progress in the plan is pending, and blocked by 阻塞依赖"
    );
    let t2 = task_of(&state, "T2");
    assert_eq!(t2["blocked_by"], json!(["api_spec"]));
    assert_eq!(t2["timeout_secs"], 600);
    assert_eq!(t2["verify"].as_array().unwrap().len(), 2);
    assert_eq!(state["mode"], "progressive");
    assert!(state["progress"]["blocked"]
        .as_array()
        .unwrap()
        .contains(&json!("T2")));

    let t = Test::new();
    import(&t, &fixture("plans/speckit-full.md"));
    let state = t.state();
    assert!(state["tasks"].as_array().unwrap().len() > 3);
    assert!(
        state["progress"]["completed"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "[x] is imported as done"
    );
    assert!(
        state["progress"]["skipped"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "DEFERRED is imported as skipped"
    );
}

#[test]
fn every_validation_error_is_one_line_with_file_and_line_and_writes_nothing() {
    let cases = [
        ("unknown-dep.md", "unknown"),
        ("cycle.md", "→"),
        ("empty.md", ""),
        ("bad-id.md", ""),
        ("not-a-plan.md", ""),
        ("speckit-cycle.md", "→"),
        ("speckit-unknown-dep.md", "unknown"),
        ("speckit-bad-id.md", ""),
    ];
    for (file, needle) in cases {
        let t = Test::new();
        std::fs::copy(fixture(&format!("plans/{file}")), t.project.join(file)).unwrap();
        let run = t.wf(&["workflow-start", file]).code(2);
        let line = run.stderr.trim();
        assert_eq!(line.lines().count(), 1, "{file}: {line}");
        assert!(line.contains(file), "{file}: names the file: {line}");
        assert!(line.contains(needle), "{file}: {line}");
        assert!(
            !t.workflow_dir().exists(),
            "{file}: wrote {}",
            t.workflow_dir().display()
        );
    }
}

#[test]
fn a_cycle_error_prints_the_cycle() {
    let t = Test::new();
    t.write(
        "tasks.md",
        plan(&[
            task("T1", "a").verify("true").deps("T2"),
            task("T2", "a").verify("true").deps("T1"),
        ]),
    );
    let run = t.wf(&["workflow-start", "tasks.md"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: tasks.md:7: dependency cycle T1 → T2 → T1 (each task depends on the next); remove one of these dependencies
    ");
}

/// Unknown ids (`t6` a typo of a task's, `T9` as near to T1 as to T2), and three
/// loops, two of them sharing a task: every one reported in one pass.
fn plan_with_every_graph_error() -> String {
    plan(&[
        task("T1", "a").verify("true").deps("T9"),
        task("T2", "a").verify("true").deps("T1, T3"),
        task("T3", "a").verify("true").deps("T2, T4"),
        task("T4", "a").verify("true").deps("T3"),
        task("T5", "a").verify("true").deps("t6, nope"),
        task("T6", "a").verify("true").deps("T7"),
        task("T7", "a").verify("true").deps("T6"),
    ])
}

#[test]
fn check_reports_every_unknown_dependency_and_every_cycle_at_once() {
    let t = Test::new();
    t.write("tasks.md", plan_with_every_graph_error());
    insta::assert_snapshot!(t.wf(&["check", "tasks.md"]).whole(), @r"
    exit: 2
    --- stdout
    --- stderr
    wf: error: tasks.md:7: task T1 depends on T9, which is not a task in this plan; fix the id or remove it from its Depends field
    wf: error: tasks.md:13: dependency cycle T2 → T3 → T2 (each task depends on the next); remove one of these dependencies
    wf: error: tasks.md:19: dependency cycle T3 → T4 → T3 (each task depends on the next); remove one of these dependencies
    wf: error: tasks.md:31: task T5 depends on t6, which is not a task in this plan; did you mean T6? fix the id or remove it from its Depends field
    wf: error: tasks.md:31: task T5 depends on nope, which is not a task in this plan; fix the id or remove it from its Depends field
    wf: error: tasks.md:37: dependency cycle T6 → T7 → T6 (each task depends on the next); remove one of these dependencies
    ");
    let v = t.wf(&["check", "tasks.md", "--json"]).code(2).json();
    assert!(crate::json_contract::schema("error").is_valid(&v), "{v:#}");
    let lines: Vec<u64> = v["error"]["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines.len(), 6, "{v:#}");
    // workflow-start refuses with the same messages, and writes nothing.
    let start = t.wf(&["workflow-start", "tasks.md"]).code(2);
    assert_eq!(start.stderr, t.wf(&["check", "tasks.md"]).stderr);
    assert!(!t.workflow_dir().join("state.json").exists());
}

#[test]
fn classification_blocks_api_and_design_tasks_and_exempts_skeletons() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "## T1: 用户服务层\n- **阶段**: a\n- **文件**: `src/services/user.ts`\n- **actions**: create_file\n\n\
         ## T2: 列表卡片组件\n- **阶段**: a\n- **文件**: `src/components/Card.vue`\n- **actions**: create_file\n\n\
         ## T3: 卡片骨架 skeleton\n- **阶段**: a\n- **文件**: `src/components/Skel.vue`\n- **actions**: create_file\n\n\
         ## T4: 数据获取\n- **阶段**: a\n- **文件**: `src/x.ts`\n- **actions**: create_file\n\n\
         ## T5: placeholder page\n- **阶段**: a\n- **文件**: `src/pages/P.tsx`\n- **actions**: create_file\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let state = t.state();
    assert_eq!(task_of(&state, "T1")["blocked_by"], json!(["api_spec"]));
    assert_eq!(task_of(&state, "T2")["blocked_by"], json!(["design_spec"]));
    assert!(
        task_of(&state, "T3")["blocked_by"].is_null(),
        "skeleton tasks are exempt"
    );
    assert_eq!(task_of(&state, "T4")["blocked_by"], json!(["api_spec"]));
    assert!(
        task_of(&state, "T5")["blocked_by"].is_null(),
        "placeholder tasks are exempt"
    );
    assert_eq!(state["mode"], "progressive");
}

#[test]
fn custom_blocker_kinds_from_config_classify_and_unblock() {
    let t = Test::new();
    t.config(r#"{"wf": {"blockers": {"legal_review": {"name": "license|合规"}}}}"#);
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true").field("需求", "x"),
            task("T2", "a").verify("true"),
        ])
        .replace("task T2", "license check"),
    );
    let state = t.state();
    assert_eq!(task_of(&state, "T2")["blocked_by"], json!(["legal_review"]));
    t.wf(&["workflow-unblock", "legal_review"]).ok();
    assert_eq!(task_status(&t.state(), "T2"), "pending");
}

#[test]
fn an_invalid_regex_in_config_names_the_key() {
    let t = Test::new();
    t.config(r#"{"wf": {"blockers": {"legal": {"name": "(unclosed"}}}}"#);
    t.write("tasks.md", plan(&[task("T1", "a").verify("true")]));
    let run = t.wf(&["workflow-start", "tasks.md"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: [ROOT]/project/.claude/config/project-config.json: wf.blockers.legal.name is not a valid regex (unclosed group); fix the pattern
    ");
}

#[test]
fn audit_records_errors_and_warnings_and_execution_refuses_errors() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "## T1: Decide storage\n- **阶段**: a\n- **需求**: TBD which database\n- **actions**: edit_file\n\n\
         ## T2: Polish\n- **阶段**: a\n- **需求**: add caching if needed\n- **验证命令**: `true`\n",
    );
    let run = t.wf(&["--json", "workflow-start", "tasks.md"]).ok().json();
    assert_eq!(run["audit"]["passed"], false);
    let state = t.state();
    let findings = state["zeroDecisionAudit"]["antiPatterns"]
        .as_array()
        .unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["taskId"] == "T1" && f["severity"] == "error"),
        "{findings:?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f["taskId"] == "T2" && f["severity"] == "warning"),
        "{findings:?}"
    );
    assert!(state["zeroDecisionAudit"]["auditedAt"].is_string());
    let run = t.wf(&["workflow-execute"]).code(2);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 2
    --- stdout
    --- stderr
    wf: error: the plan's zero-decision audit found undecided items (T1: requirement contains "TBD": a decision is still open); settle them in the plan and run `wf workflow-start` again, or pass --allow-audit-errors
    "#);
}

fn two_tasks(second: &str) -> String {
    plan(&[
        task("T1", "a").verify("echo T1 >> runs.log"),
        task("T2", "a").verify(second).deps("T1"),
    ])
}

#[test]
fn reimporting_the_same_plan_is_a_no_op_that_says_so() {
    let t = Test::new();
    start(&t, &two_tasks("true"));
    let before: Vec<_> = t.workflow_files();
    let run = t.wf(&["workflow-start", "tasks.md"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    The plan is already imported and unchanged; nothing to do.
    --- stderr
    ");
    let after: Vec<_> = t.workflow_files();
    assert_eq!(before, after);
}

#[test]
fn a_minor_change_keeps_progress_and_records_a_delta() {
    let t = Test::new();
    start(&t, &two_tasks("false"));
    t.wf(&["workflow-execute"]).code(1);
    assert_eq!(task_status(&t.state(), "T1"), "completed");
    // Fix T2 and add T3: T1 keeps its status, T2 starts over, T3 is new.
    let edited = plan(&[
        task("T1", "a").verify("echo T1 >> runs.log"),
        task("T2", "a").verify("true").deps("T1"),
        task("T3", "a").verify("true").deps("T2"),
    ]);
    t.write("tasks.md", &edited);
    let run = t.wf(&["--json", "workflow-start", "tasks.md"]).ok().json();
    assert_eq!(run["diff"]["added"], json!(["T3"]));
    assert_eq!(run["diff"]["modified"], json!(["T2"]));
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "completed");
    assert_eq!(task_status(&state, "T2"), "pending");
    assert_eq!(state["status"], "planned");
    assert_eq!(state["delta_tracking"]["current_change"], "CHG-001");
    let delta: Value = serde_json::from_str(
        &std::fs::read_to_string(t.workflow_dir().join("changes/CHG-001/delta.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(delta["ADDED"], json!(["T3"]));
    assert_eq!(delta["MODIFIED"], json!(["T2"]));
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
    assert_eq!(t.read("runs.log"), "T1\n", "T1 did not run again");
    assert_invariants(&t);
}

#[test]
fn a_major_change_needs_force_and_leaves_a_backup() {
    let t = Test::new();
    start(&t, &two_tasks("false"));
    t.wf(&["workflow-execute"]).code(1);
    // Changing the completed T1 is major.
    let edited = plan(&[
        task("T1", "a").verify("echo changed >> runs.log"),
        task("T2", "a").verify("true").deps("T1"),
    ]);
    t.write("tasks.md", &edited);
    let run = t.wf(&["workflow-start", "tasks.md"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: this re-import is a major change: it is a different plan while the current one is active (modified: T1, T2; removed: none); pass --force to apply it (a backup of the state is kept)
    ");
    let state = t.state();
    assert_eq!(state["decisionRequired"], true);
    assert_eq!(state["replanReason"], "major_change");
    assert_eq!(
        task_status(&state, "T1"),
        "completed",
        "nothing applied yet"
    );
    let run = t.wf(&["workflow-execute"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: a re-import needs your decision (major_change): run `wf workflow-start PLAN.md --force` to apply it, or re-import the previous plan
    ");

    t.wf(&["workflow-start", "tasks.md", "--force"]).ok();
    let backups: Vec<_> = std::fs::read_dir(t.workflow_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("backup-"))
        .collect();
    assert_eq!(backups.len(), 1);
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "pending");
    assert!(state["decisionRequired"].is_null() || state["decisionRequired"] == false);
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn removing_a_completed_task_is_major() {
    let t = Test::new();
    start(&t, &two_tasks("false"));
    t.wf(&["workflow-execute"]).code(1);
    t.write("tasks.md", plan(&[task("T2", "a").verify("true")]));
    let run = t.wf(&["workflow-start", "tasks.md"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: this re-import is a major change: it is a different plan while the current one is active (modified: T2; removed: T1); pass --force to apply it (a backup of the state is kept)
    ");
}

/// Another plan while this one is active needs `--force`, and its refusal writes
/// nothing: the workflow goes on exactly as before (`--retry` is taken), with no
/// decision asked of it.
#[test]
fn a_different_plan_while_one_is_active_needs_force() {
    let t = Test::new();
    start(&t, &two_tasks("false"));
    t.wf(&["workflow-execute"]).code(1);
    t.write(
        "other.md",
        plan(&[task("X1", "a").verify("true")]).replace("test plan", "another plan"),
    );
    let before = t.workflow_files();
    let run = t.wf(&["workflow-start", "other.md"]).code(2);
    assert_eq!(t.workflow_files(), before, "the refusal wrote something");
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: this re-import is a major change: it is a different plan while the current one is active (modified: none; removed: T1, T2); pass --force to apply it (a backup of the state is kept)
    ");
    // Retried, T2 runs (and fails) again: no decision stands in the way.
    let retry = t.wf(&["workflow-execute", "--retry", "T2"]).code(1);
    assert!(retry.stdout.contains("Retrying T2."), "{}", retry.stdout);
    t.wf(&["workflow-start", "other.md", "--force"]).ok();
    assert_eq!(ids(&t.state()), ["X1"]);
}

#[test]
fn allowing_audit_errors_is_remembered_until_the_next_import() {
    let t = Test::new();
    t.write("tasks.md", "## T1: Decide\n- **阶段**: a\n- **需求**: TBD\n- **验证命令**: `true`\n\n## T2: Next\n- **阶段**: b\n- **验证命令**: `true`\n");
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute"]).code(2);
    t.wf(&["workflow-execute", "--allow-audit-errors"]).ok();
    assert!(t.state()["zeroDecisionAudit"]["acceptedAt"].is_string());
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn reimporting_the_same_plan_after_progress_is_still_a_no_op() {
    let t = Test::new();
    start(&t, &two_tasks("false"));
    t.wf(&["workflow-execute"]).code(1);
    // The copy now shows T1 as done, but the source plan is the same.
    let run = t.wf(&["workflow-start", "tasks.md"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    The plan is already imported and unchanged; nothing to do.
    --- stderr
    ");
    assert_eq!(t.state()["status"], "failed");
}

#[test]
fn a_prose_only_edit_keeps_everything() {
    let t = Test::new();
    start(&t, &two_tasks("false"));
    t.wf(&["workflow-execute"]).code(1);
    t.write(
        "tasks.md",
        format!("{}\nSome notes at the end.\n", two_tasks("false")),
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "completed");
    assert_eq!(state["status"], "failed");
    assert!(!t.workflow_dir().join("changes/CHG-001").exists());
    assert_invariants(&t);
}

#[test]
fn reimporting_the_previous_plan_clears_a_pending_decision() {
    let t = Test::new();
    let original = two_tasks("false");
    start(&t, &original);
    t.wf(&["workflow-execute"]).code(1);
    let edited = plan(&[
        task("T1", "a").verify("echo changed >> runs.log"),
        task("T2", "a").verify("true").deps("T1"),
    ]);
    t.write("tasks.md", &edited);
    t.wf(&["workflow-start", "tasks.md"]).code(2);
    assert_eq!(t.state()["decisionRequired"], true);
    // "keep": re-import the plan the state already has.
    t.write("tasks.md", &original);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let state = t.state();
    assert!(state["decisionRequired"].is_null() || state["decisionRequired"] == false);
    assert!(state["replanReason"].is_null(), "{}", state["replanReason"]);
    let run = t.wf(&["workflow-execute"]);
    assert!(!run.stderr.contains("decision"), "{}", run.stderr);
}

#[test]
fn a_reimport_over_an_archived_workflow_is_refused_and_archive_finishes_it() {
    let t = Test::new();
    start(&t, &two_tasks("true"));
    // What an archive stopped part-way by a wf that kept no journal leaves: an
    // archived state still in the workflow dir.
    let path = t.workflow_dir().join("workflow-state.json");
    let mut state: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    state["status"] = "archived".into();
    std::fs::write(&path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
    let before = t.workflow_files();
    t.write("tasks.md", two_tasks("echo changed"));
    let run = t.wf(&["workflow-start", "tasks.md"]).code(2);
    assert_eq!(
        run.stderr,
        "wf: error: the workflow here is archived but its files were not all moved into archive/; run `wf archive` to finish, then import the plan again\n"
    );
    let after: Vec<_> = t.workflow_files();
    assert_eq!(before, after, "a refused re-import writes nothing");
    t.wf(&["archive"]).ok();
    // The archived workflow is gone from the dir; the plan starts a fresh one, and no
    // move in its log leaves `archived`.
    t.wf(&["workflow-start", "tasks.md"]).ok();
    assert_eq!(t.state()["status"], "planned");
    let log = t.read(&format!("{}/events.jsonl", t.workflow_dir().display()));
    assert!(!log.contains(r#""from":"archived""#), "{log}");
    t.wf(&["status"]).ok();
}

/// A 3,000-task claude-workflow plan: phases of 500, a chain of deps, every
/// hundredth task waiting on an API (classified blocked), every seventh done in the
/// plan.
fn big_claude_plan() -> String {
    let mut plan = String::from("# Tasks: big\n\n");
    for i in 1..=3000 {
        let name = if i % 100 == 0 { "数据获取" } else { "step" };
        let done = if i % 7 == 0 { " ✅" } else { "" };
        plan.push_str(&format!(
            "## T{i}: {name} {i}{done}\n- **阶段**: p{}\n- **文件**: `src/s{i}.ts`\n- **actions**: create_file\n- **验证命令**: `test -f src/s{i}.ts`\n",
            i / 500
        ));
        if i > 1 {
            plan.push_str(&format!("- **依赖**: T{}\n", i - 1));
        }
        plan.push('\n');
    }
    plan
}

/// A 3,000-task spec-kit plan: phases of 100, `[P]` marks, explicit deps and a
/// Dependencies section (edges the graph adds after its checks).
fn big_speckit_plan() -> String {
    let mut plan = String::from("# Tasks: big\n");
    for i in 1..=3000 {
        if (i - 1) % 100 == 0 {
            plan.push_str(&format!("\n## Phase {}: block\n\n", (i - 1) / 100 + 1));
        }
        let p = if i % 4 == 0 { "" } else { "[P] " };
        let dep = if i > 10 && i % 10 == 0 {
            format!(" (depends on T{:05})", i - 7)
        } else {
            String::new()
        };
        plan.push_str(&format!(
            "- [ ] T{i:05} {p}Implement part {i} in src/p{i}.rs{dep}\n"
        ));
    }
    plan.push_str("\n## Dependencies\n\n- T00050 depends on T00042\n");
    plan
}

/// A fresh import reads back, of the tasks it wrote as it read them (src/state/spill.rs,
/// whose unit test holds that they are kept unread), only the few the summary names,
/// whatever the plan's size (`WF_TEST_MAX_RECORD_READS`, src/testing.rs) — and leaves
/// the tasks a re-import, which holds them all, leaves of the same plan.
#[test]
fn a_fresh_import_reads_back_only_the_tasks_the_summary_names() {
    for (what, text) in [
        ("claude-workflow", big_claude_plan()),
        ("spec-kit", big_speckit_plan()),
    ] {
        let mut fresh = Test::new();
        fresh.write("tasks.md", &text);
        // The summary names the blocked tasks and the first pending ones.
        fresh.env("WF_TEST_MAX_RECORD_READS", "100");
        let summary = fresh
            .wf(&["--json", "workflow-start", "tasks.md"])
            .ok()
            .json();
        assert_eq!(summary["tasks"], 3000, "{what}");

        let whole = Test::new();
        whole.write("other.md", "## T9999: other\n- **actions**: x\n");
        whole.wf(&["workflow-start", "other.md"]).ok();
        whole.write("tasks.md", &text);
        let resummary = whole
            .wf(&["--json", "workflow-start", "--force", "tasks.md"])
            .ok()
            .json();
        for key in ["phases", "blocked", "audit", "mode", "tasks"] {
            assert_eq!(summary[key], resummary[key], "{what}: {key}");
        }
        let (a, b) = (fresh.state(), whole.state());
        assert_eq!(a["tasks"], b["tasks"], "{what}");
        assert_eq!(a["progress"], b["progress"], "{what}");
        assert_eq!(
            a["zero_decision_audit"]["anti_patterns"], b["zero_decision_audit"]["anti_patterns"],
            "{what}"
        );
    }
    let claude = Test::new();
    claude.write("tasks.md", big_claude_plan());
    let summary = claude
        .wf(&["--json", "workflow-start", "tasks.md"])
        .ok()
        .json();
    assert_eq!(summary["mode"], "progressive");
    assert_eq!(summary["phases"].as_array().map(Vec::len), Some(7));
    // Every hundredth but those done (700, 1400, 2100, 2800).
    assert_eq!(summary["blocked"].as_array().map(Vec::len), Some(26));
}
