//! States the claude-workflow plugin wrote (no `tasks` array) are adopted from the
//! tasks file they name; what `wf` writes stays readable by the plugin; a workflow
//! with 0 tasks is never run or completed; the brief carries the plan's context.

use crate::plans::{plan, start, task, task_status};
use crate::test::{fixture, snapshot_dir, Test};

/// The plugin's example state with the tasks file it names (`tasks.md`) beside it.
fn adopted() -> Test {
    let t = Test::new();
    t.plugin_state();
    std::fs::copy(
        fixture("states/adopt-plugin/tasks.md"),
        t.workflow_dir().join("tasks.md"),
    )
    .expect("copy the tasks file");
    t
}

fn ids(v: &serde_json::Value) -> Vec<&str> {
    v.as_array()
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default()
}

#[test]
fn plugin_state_with_its_tasks_file_is_adopted_and_runs_the_next_pending_task() {
    let t = adopted();
    let status = t.wf(&["status", "--json"]).ok().json();
    assert_eq!(status["progress"]["total"], 6, "{status}");
    let state = &status["state"];
    for (id, want) in [
        ("T1", "completed"),
        ("T2", "completed"),
        ("T3", "pending"),
        ("T4", "pending"),
        ("T5", "blocked"),
        ("T6", "blocked"),
    ] {
        assert_eq!(task_status(state, id), want, "{id}");
    }
    assert_eq!(status["next_ready"], serde_json::json!(["T3"]));
    // The brief carries the plugin plan's design context.
    let brief = t.wf(&["next"]).ok().stdout;
    for want in [
        "# T3: 用户列表状态管理",
        "tech-design.md § 5.1",
        "**Design document**: `.claude/docs/tech-design.md`",
    ] {
        assert!(brief.contains(want), "missing {want:?} in:\n{brief}");
    }

    // Phase mode: T3 (phase implement) runs, T4 (phase validate) waits.
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.read("ran.log"), "T3\n");
    let saved = t.state_file();
    assert_eq!(task_status(&saved, "T3"), "completed");
    assert_eq!(ids(&saved["progress"]["completed"]), ["T1", "T2", "T3"]);
    assert_eq!(ids(&saved["progress"]["blocked"]), ["T5", "T6"]);
    assert_eq!(saved["current_task"], "T4");
    assert_eq!(saved["current_tasks"], serde_json::json!(["T4"]));
    assert_eq!(saved["phase"], "execute");
    // Every field of the plugin's state is kept.
    let original: serde_json::Value = serde_json::from_slice(
        &std::fs::read(crate::test::format_file(
            "claude-workflow/workflow-state.example.json",
        ))
        .unwrap(),
    )
    .unwrap();
    for key in [
        "project_id",
        "project_name",
        "use_subagent",
        "tasks_file",
        "tech_design",
        "sessions",
        "collaboration",
        "constraints",
        "delta_tracking",
        "created_at",
    ] {
        assert_eq!(saved[key], original[key], "{key}");
    }
    assert_eq!(
        saved["contextMetrics"]["history"][1],
        original["contextMetrics"]["history"][1]
    );
    // The plugin reads its tasks file's status marks: they follow the state.
    let copy = std::fs::read_to_string(t.workflow_dir().join("tasks.md")).unwrap();
    assert!(copy.contains("## T3: 用户列表状态管理 ✅"), "{copy}");
}

#[test]
fn plugin_state_without_a_task_source_is_refused_and_left_byte_identical() {
    let t = Test::new();
    t.plugin_state();
    let before = snapshot_dir(&t.home);
    for args in [
        &["workflow-execute"][..],
        &["resume"],
        &["next"],
        &["workflow-unblock", "all"],
    ] {
        let run = t.wf(args).code(2);
        assert!(
            run.stderr.contains("workflow-state.json")
                && run.stderr.contains("tasks.md does not exist")
                && run.stderr.contains("wf workflow-start --force PLAN.md"),
            "{args:?}: {}",
            run.stderr
        );
    }
    // Nothing appears (not even a lock file), nothing changes.
    assert_eq!(snapshot_dir(&t.home), before);
    // Read-only status still shows it, and says what is missing.
    let run = t.wf(&["status"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ┌──────────────┬────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────┐
    │ Workflow     ┆ my-project                                                                                                                                                                                                                                                         │
    ╞══════════════╪════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════════╡
    │ Status       ┆ running                                                                                                                                                                                                                                                            │
    │ Mode         ┆ --phase (stops when the phase changes)                                                                                                                                                                                                                             │
    │ Progress     ┆ [░░░░░░░░░░░░░░░░░░░░] 0% (0/0 done: 0 completed, 0 skipped)                                                                                                                                                                                                       │
    │ Tasks        ┆ [ROOT]/home/[ID]/workflow-state.json: the state has no tasks array and its tasks_file [ROOT]/home/[ID]/tasks.md does not exist; import the plan with `wf workflow-start --force PLAN.md` (the current state is kept as a backup) │
    │ Current task ┆ T3                                                                                                                                                                                                                                                                 │
    │ Next ready   ┆ —                                                                                                                                                                                                                                                                  │
    │ Context      ┆ [█████░░░░░░░░░░░░░░░] 22.5% (45,000 of 200,000 tokens, ok)                                                                                                                                                                                                        │
    └──────────────┴────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────┘
    Interrupted: the run that was executing this workflow is gone; `wf resume` continues where it stopped.

    Next: The workflow has no tasks.
    --- stderr
    ");
    let json = t.wf(&["status", "--json"]).ok().json();
    let why = json["unadopted"].as_str().unwrap_or_default();
    assert!(why.contains("tasks.md does not exist"), "{json}");
}

#[test]
fn the_fix_a_refusal_names_imports_the_plan() {
    let t = Test::new();
    t.plugin_state();
    t.write(
        "tasks.md",
        std::fs::read(fixture("states/adopt-plugin/tasks.md")).unwrap(),
    );
    t.wf(&["workflow-execute"]).code(2);
    t.wf(&["workflow-start", "--force", "tasks.md"]).ok();
    assert_eq!(t.state()["tasks"].as_array().map(Vec::len), Some(6));
    t.wf(&["workflow-execute", "--step"]).ok();
    assert!(t.read("ran.log").starts_with('T'));
}

#[test]
fn a_workflow_with_no_tasks_is_never_completed() {
    // A state with no task list and no task source.
    let t = Test::new();
    std::fs::create_dir_all(t.workflow_dir()).unwrap();
    let path = t.workflow_dir().join("workflow-state.json");
    std::fs::write(&path, r#"{"status": "planned", "project_name": "p"}"#).unwrap();
    let run = t.wf(&["workflow-execute", "--all"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: [ROOT]/home/[ID]/workflow-state.json: the state has no tasks array and names no task source (no tasks_file, no plan_file); import the plan with `wf workflow-start --force PLAN.md` (the current state is kept as a backup)
    ");
    assert_eq!(t.state()["status"], "planned");

    // A tasks file that holds no task is no task source either.
    let t = Test::new();
    t.plugin_state();
    std::fs::write(
        t.workflow_dir().join("tasks.md"),
        "# Tasks\n\nNothing yet.\n",
    )
    .unwrap();
    let run = t.wf(&["workflow-execute", "--all"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: [ROOT]/home/[ID]/workflow-state.json: [ROOT]/home/[ID]/tasks.md:1: not a task plan: found no tasks of any format wf reads (claude-workflow, spec-kit, kiro, openspec, bmad, taskmaster, checklist), e.g. `## T1: name` headings or `- [ ] T001 description` lines; write the plan in one of these formats or name it with --format; import the plan with `wf workflow-start --force PLAN.md` (the current state is kept as a backup)
    ");
    let state = t.state();
    assert_ne!(state["status"], "completed");
    assert!(state.get("completed_at").is_none(), "{state}");
}

#[test]
fn workflow_start_and_execute_write_the_plugins_current_task_and_phase() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").field("阻塞依赖", "api_spec").verify("true"),
            task("T2", "a").verify("echo T2 >> ran.log"),
            task("T3", "b").verify("echo T3 >> ran.log"),
        ]),
    );
    let saved = t.state_file();
    assert_eq!(task_status(&saved, "T1"), "blocked");
    // As the plugin's start: the first pending task, and the planning phase.
    assert_eq!(saved["current_task"], "T2");
    assert_eq!(saved["current_tasks"], serde_json::json!(["T2"]));
    assert_eq!(saved["phase"], "plan");
    let plan_file = saved["plan_file"].as_str().expect("plan_file");
    assert_eq!(
        std::path::Path::new(plan_file),
        t.project.join("tasks.md").as_path()
    );

    t.wf(&["workflow-execute", "--step"]).ok();
    let saved = t.state_file();
    assert_eq!(saved["phase"], "execute");
    assert_eq!(saved["current_task"], "T3");
    assert_eq!(saved["current_tasks"], serde_json::json!(["T3"]));
    assert_eq!(saved["plan_file"], plan_file);
}

const SPECKIT: &str = "# Tasks: Sign-in

## Phase 1: Setup

**Purpose**: project skeleton

- [x] T001 Create project structure

## Phase 3: User Story 1 - Sign in (Priority: P1)

**Goal**: a user signs in with email and password

**Independent Test**: sign in with a seeded user and see the dashboard

- [ ] T010 [US1] Implement the sign-in form in src/signin.ts

**Checkpoint**: User Story 1 works on its own
";

#[test]
fn the_brief_carries_the_spec_kit_story_phase_and_spec_folder() {
    let t = Test::new();
    t.write("specs/001-signin/tasks.md", SPECKIT);
    t.write("specs/001-signin/spec.md", "# Spec\n");
    t.write("specs/001-signin/plan.md", "# Plan\n");
    std::fs::create_dir_all(t.project.join("specs/001-signin/contracts")).unwrap();
    t.wf(&["workflow-start", "specs/001-signin/tasks.md"]).ok();
    let run = t.wf(&["next"]).ok();
    let out = &run.stdout;
    for want in [
        "**User story**: US1",
        "**Goal**: a user signs in with email and password",
        "**Independent Test**: sign in with a seeded user and see the dashboard",
        "**Checkpoint**: User Story 1 works on its own",
        "specs/001-signin` — spec.md, plan.md, contracts/",
    ] {
        assert!(out.contains(want), "missing {want:?} in:\n{out}");
    }
    assert!(!out.contains("project skeleton"), "{out}");
    assert!(!out.contains("data-model.md"), "{out}");
}

#[test]
fn a_handed_off_task_accepted_with_no_check_says_accepted_unchecked() {
    let t = Test::new();
    t.write("specs/001-signin/tasks.md", SPECKIT);
    t.wf(&["workflow-start", "specs/001-signin/tasks.md"]).ok();
    let run = t.wf(&["workflow-execute"]).code(0);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
    Handed off: task T010 wants an agent that can implement. No executor is configured (wf.executors), so it is yours or Claude Code's to do; when it is done, `wf workflow-execute` checks the 3 things under "What wf checks" below.

    # T010: Implement the sign-in form in src/signin.ts

    - **Workflow**: Sign-in
    - **Phase**: Phase 3: User Story 1 - Sign in (Priority: P1)
    - **Status**: in_progress
    - **Depends on**: T001

    ## Files

    - File: `src/signin.ts`

    ## Plan context

    - **User story**: US1
    - **Goal**: a user signs in with email and password
    - **Independent Test**: sign in with a seeded user and see the dashboard
    - **Checkpoint**: User Story 1 works on its own
    - **Spec folder**: `[ROOT]/project/specs/001-signin`

    ## What wf checks

    This task has no command of its own. When it comes back, wf checks what its line names:

    - `src/signin.ts` changed since the task was handed off (created, if it was not there)
    - the work changed at least one file
    - at the end of phase `Phase 3: User Story 1 - Sign in (Priority: P1)`, the project's tests: none that passed at the phase's start may fail

    --- stderr
    "#);
    // While the agent works, the plugin sees a running workflow with that task
    // current (its hooks block a paused one), and wf does not call it a crash.
    let saved = t.state_file();
    assert_eq!(saved["status"], "running");
    assert_eq!(saved["current_task"], "T010");
    assert_eq!(saved["current_tasks"], serde_json::json!(["T010"]));
    let status = t.wf(&["status"]).ok().stdout;
    assert!(!status.contains("Interrupted"), "{status}");
    assert!(status.contains("handed off"), "{status}");

    // Taken back with nothing to check it: completed, but not as verified work.
    t.wf(&["workflow-execute"]).ok();
    let status = t.wf(&["status", "--json"]).ok().json();
    assert_eq!(task_status(&status["state"], "T010"), "completed");
    assert_eq!(status["accepted_unchecked"], serde_json::json!(["T010"]));
    let text = t.wf(&["status"]).ok().stdout;
    assert!(text.contains("Accepted unchecked"), "{text}");
    let events = t.wf(&["events"]).ok().stdout;
    assert!(
        events
            .lines()
            .any(|l| l.contains("T010") && l.contains("accepted unchecked")),
        "{events}"
    );
}

#[test]
fn a_handed_off_task_with_a_check_is_not_accepted_unchecked() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a")
            .field("actions", "edit_file")
            .verify("test -f done.txt")]),
    );
    t.wf(&["workflow-execute"]).code(0);
    t.write("done.txt", "");
    t.wf(&["workflow-execute"]).ok();
    let status = t.wf(&["status", "--json"]).ok().json();
    assert_eq!(status["accepted_unchecked"], serde_json::json!([]));
    let events = t.wf(&["events"]).ok().stdout;
    assert!(!events.contains("accepted unchecked"), "{events}");
}

#[test]
fn a_running_state_without_a_hand_off_is_still_an_interrupted_run() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    let path = t.workflow_dir().join("workflow-state.json");
    let mut state = t.state_file();
    state["status"] = "running".into();
    std::fs::write(&path, state.to_string()).unwrap();
    let text = t.wf(&["status"]).ok().stdout;
    assert!(text.contains("Interrupted"), "{text}");
    assert_eq!(t.wf(&["status", "--json"]).ok().json()["interrupted"], true);
}

#[test]
fn an_executors_claim_that_nothing_checks_is_accepted_unchecked() {
    let t = Test::new();
    let agent = fixture("agents/edits-and-claims.sh").display().to_string();
    t.config(
        serde_json::json!({"wf": {"executors": [
            {"name": "coder", "command": [agent], "capabilities": ["implement"]}
        ]}})
        .to_string(),
    );
    start(&t, &plan(&[task("T1", "a").field("actions", "edit_file")]));
    let run = t.wf(&["workflow-execute"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ? T1 task T1 (N.Ns) (accepted unchecked: nothing checked it)
    Completed: 1/1 tasks done.
    --- stderr
    ");
    let status = t.wf(&["status", "--json"]).ok().json();
    assert_eq!(status["accepted_unchecked"], serde_json::json!(["T1"]));
    let events = t.wf(&["events"]).ok().stdout;
    assert!(events.contains("task.accepted_unchecked T1"), "{events}");
}
