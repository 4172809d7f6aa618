//! A hand-off in words: which agent the task wants, that no executor is configured,
//! what `workflow-execute` checks when it comes back — and that it exits 0 (nothing
//! failed), while `--ci` fails the task. And a task the name classifier blocks: the
//! word that matched, and the English opt-out. Each shown whole.

use crate::test::Test;

const CLAUDE: &str = "# Tasks: hand-off\n\n## T1: Add the parser\n- **Phase**: build\n- **File**: src/parse.py\n- **actions**: edit_file\n- **Verify**: `test -f src/parse.py`\n";

#[test]
fn a_hand_off_names_the_agent_wanted_and_its_checks_and_exits_0() {
    let t = Test::new();
    t.write("tasks.md", CLAUDE);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    insta::assert_snapshot!(t.wf(&["workflow-execute"]).whole(), @r#"
    exit: 0
    --- stdout
    Handed off: task T1 wants an agent that can implement (actions: edit_file). No executor is configured (wf.executors), so it is yours or Claude Code's to do; when it is done, `wf workflow-execute` checks its 1 command ("Verify" below).

    # T1: Add the parser

    - **Workflow**: hand-off
    - **Phase**: build
    - **Status**: in_progress
    - **Actions**: edit_file

    ## Files

    - File: `src/parse.py`

    ## Verify

    The task is done when these commands succeed (run with `sh -c` in the project directory):

    ```sh
    test -f src/parse.py
    ```

    --- stderr
    "#);
}

#[test]
fn a_review_is_handed_to_an_agent_that_can_review() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks: review\n\n## T1: Review the parser\n- **Phase**: review\n- **actions**: codex_review\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let run = t.wf(&["workflow-execute"]).code(0);
    let first = run.stdout.lines().next().unwrap_or("").to_string();
    insta::assert_snapshot!(first, @"Handed off: task T1 wants an agent that can review (actions: codex_review). No executor is configured (wf.executors), so it is yours or Claude Code's to do; when it is done, `wf workflow-execute` checks nothing: it is accepted on your word (`--require-checks` refuses that).");
}

#[test]
fn a_spec_kit_line_is_checked_by_what_it_names_when_it_comes_back() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks\n\n## Phase 1: Setup\n- [ ] T001 Create the project structure in src/app/\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    insta::assert_snapshot!(t.wf(&["workflow-execute"]).whole(), @r#"
    exit: 0
    --- stdout
    Handed off: task T001 wants an agent that can implement. No executor is configured (wf.executors), so it is yours or Claude Code's to do; when it is done, `wf workflow-execute` checks the 4 things under "What wf checks" below.

    # T001: Create the project structure in src/app/

    - **Workflow**: Tasks
    - **Phase**: Phase 1: Setup
    - **Status**: in_progress

    ## Files

    - File: `src/app/`

    ## Plan context

    - **Spec folder**: `[ROOT]/project`

    ## What wf checks

    This task has no command of its own. When it comes back, wf checks what its line names:

    - `src/app/` exists and is not empty
    - `src/app/` changed since the task was handed off (created, if it was not there)
    - the work changed at least one file
    - at the end of phase `Phase 1: Setup`, the project's tests: none that passed at the phase's start may fail

    --- stderr
    "#);
}

#[test]
fn ci_fails_the_task_a_run_would_hand_off() {
    let t = Test::new();
    t.write("tasks.md", CLAUDE);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--ci"]).whole(), @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ✗ T1 Add the parser: task T1 needs an agent (edit_file) and --ci does not hand off; configure an executor in wf.executors
    --- stderr
    Failed: task T1 failed: task T1 needs an agent (edit_file) and --ci does not hand off; configure an executor in wf.executors
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
}

#[test]
fn the_json_of_a_hand_off_says_handed_off_with_exit_code_0() {
    let t = Test::new();
    t.write("tasks.md", CLAUDE);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let v = t.wf(&["workflow-execute", "--json"]).code(0).json();
    assert_eq!(
        (
            v["stop"].as_str(),
            v["task"].as_str(),
            v["exit_code"].as_i64()
        ),
        (Some("handed_off"), Some("T1"), Some(0))
    );
}

#[test]
fn a_task_the_classifier_blocks_says_which_word_and_how_to_opt_out() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks: blockers\n\n## T1: Fetch the user list\n- **Phase**: code\n- **Verify**: `true`\n\n## T2: Style the page\n- **Phase**: code\n- **File**: src/pages/home.tsx\n- **Verify**: `true`\n\n## T3: Fetch the orders\n- **Phase**: code\n- **Blocked by**: none\n- **Verify**: `true`\n",
    );
    insta::assert_snapshot!(t.wf(&["workflow-start", "tasks.md"]).whole(), @r#"
    exit: 0
    --- stdout
    Planned `blockers`: 3 tasks (claude-workflow).
    ┌───────┬───────┬──────┬─────────┐
    │ phase ┆ tasks ┆ done ┆ blocked │
    ╞═══════╪═══════╪══════╪═════════╡
    │ code  ┆ 3     ┆ 0    ┆ 2       │
    └───────┴───────┴──────┴─────────┘
    Blocked: T1 waits on api_spec (name has the word "fetch")
    Blocked: T2 waits on design_spec (file src/pages/home.tsx is under pages/)
      wf read that from the names and files; if a task waits on nothing, write `- **Blocked by**: none` in the task.
    Checks: 3 by a command, 0 by what their line names, 0 by nothing.
    Audit: passed (0 errors, 2 warnings).
      tasks.md:3: warning: T1: the task names no file and states no requirement
      tasks.md:12: warning: T3: the task names no file and states no requirement
    Next: `wf workflow-execute`.
    --- stderr
    "#);
}
