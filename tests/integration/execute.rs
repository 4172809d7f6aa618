//! `workflow-execute`, `resume`, `workflow-unblock`, retry and skip, end to end.

use std::time::{Duration, Instant};

use crate::plans::{assert_invariants, plan, start, task, task_status, T};
use crate::test::Test;

/// Whether `pid` is a live process; a zombie (killed, not yet reaped by whoever
/// inherited it) is dead.
fn alive(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            stat.rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                != Some("Z")
        }
        Err(_) => false,
    }
}

fn three_phases() -> String {
    plan(&[
        task("T1", "setup").verify("echo T1 >> runs.log"),
        task("T2", "setup").verify("echo T2 >> runs.log").deps("T1"),
        task("T3", "build").verify("echo T3 >> runs.log").deps("T2"),
        task("T4", "verify")
            .verify("echo T4 >> runs.log")
            .deps("T3"),
    ])
}

#[test]
fn phase_mode_stops_at_each_phase_change() {
    let t = Test::new();
    start(&t, &three_phases());
    let run = t.wf(&["workflow-execute"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    ▶ T2 task T2
    ✓ T2 task T2 (N.Ns)
    Paused (phase `setup` is done; next is phase `build`): 2/4 tasks done. Run `wf workflow-execute` to continue.
    --- stderr
    ");
    assert_eq!(t.read("runs.log"), "T1\nT2\n");
    assert_eq!(t.state()["status"], "paused");
    assert_invariants(&t);
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.read("runs.log"), "T1\nT2\nT3\n");
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.read("runs.log"), "T1\nT2\nT3\nT4\n");
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert_eq!(
        state["progress"]["completed"],
        serde_json::json!(["T1", "T2", "T3", "T4"])
    );
    assert!(state["completed_at"].is_string());
    assert_invariants(&t);
}

#[test]
fn step_mode_runs_one_task_per_call() {
    let t = Test::new();
    start(&t, &three_phases());
    for n in 1..=4 {
        t.wf(&["workflow-execute", "--step"]).ok();
        assert_eq!(t.read("runs.log").lines().count(), n);
    }
    assert_eq!(t.state()["status"], "completed");
    assert_eq!(t.state()["execution_mode"], "step");
}

/// T1, T2, a quality gate T3, then T4 with `git_commit`: the plan the modes differ on.
fn gate_and_commit_plan(t: &mut Test) {
    t.git_identity();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    t.git_commit_all();
    start(
        t,
        &plan(&[
            task("T1", "a").verify("echo T1 >> runs.log"),
            task("T2", "b").verify("echo T2 >> runs.log").deps("T1"),
            task("T3", "c")
                .field("质量关卡", "true")
                .field("actions", "run_tests")
                .deps("T2"),
            task("T4", "c")
                .verify("echo T4 >> runs.log")
                .field("actions", "git_commit")
                .deps("T3"),
        ]),
    );
}

#[test]
fn git_commit_commits_the_declared_files_and_no_build_droppings() {
    // T1 writes its declared out.txt and an untracked dropping; T2 changes a file
    // git tracks and declares nothing. Each commit takes only what it should.
    let mut t = Test::new();
    t.git_identity();
    t.write("tracked.txt", "old\n");
    t.git_commit_all();
    start(
        &t,
        &plan(&[
            task("T1", "a")
                .verify("echo new > out.txt && echo junk > dropping.o")
                .field("files", "out.txt")
                .field("actions", "git_commit"),
            task("T2", "a")
                .verify("echo changed > tracked.txt && echo junk > more.o")
                .field("actions", "git_commit")
                .deps("T1"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&t.project)
            .output()
            .expect("git");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(
        git(&["show", "--name-only", "--format=", "HEAD~1"]),
        "out.txt\n"
    );
    assert_eq!(
        git(&["show", "--name-only", "--format=", "HEAD"]),
        "tracked.txt\n"
    );
    let untracked = git(&["status", "--porcelain"]);
    assert!(
        untracked.contains("?? dropping.o") && untracked.contains("?? more.o"),
        "{untracked}"
    );
    let log = std::fs::read_to_string(t.workflow_dir().join("logs/T1.1.log")).unwrap();
    assert!(log.contains(": 1 file)"), "{log}");
    assert!(log.contains("(committed "), "{log}");
    // The run says what it committed, as the `→ completed` move records it.
    let short = |rev: &str| git(&["rev-parse", "--short", rev]).trim().to_string();
    let (first, second) = (short("HEAD~1"), short("HEAD"));
    let said: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| l.starts_with("Committed "))
        .collect();
    assert_eq!(
        said,
        [
            format!("Committed T1 as {first} (1 file)."),
            format!("Committed T2 as {second} (1 file)."),
        ],
        "{}",
        run.stdout
    );
    let commits: Vec<serde_json::Value> = t
        .events()
        .into_iter()
        .filter(|e| e["type"] == "task.status_changed" && e["data"]["to"] == "completed")
        .map(|e| e["data"]["commit"].clone())
        .collect();
    assert_eq!(
        commits,
        [
            serde_json::json!({"hash": first, "files": 1}),
            serde_json::json!({"hash": second, "files": 1}),
        ]
    );
}

#[test]
fn git_commit_with_nothing_staged_says_so_and_records_no_hash() {
    let mut t = Test::new();
    t.git_identity();
    t.write("README", "x\n");
    t.git_commit_all();
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify("true")
            .field("actions", "git_commit")]),
    );
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--all"]).whole(), @r"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    T1: nothing to commit.
    Completed: 1/1 tasks done.
    --- stderr
    ");
    let last = t
        .events()
        .into_iter()
        .rev()
        .find(|e| e["type"] == "task.status_changed" && e["data"]["to"] == "completed")
        .unwrap();
    assert_eq!(
        last["data"]["commit"],
        serde_json::json!({"hash": null, "files": 0})
    );
}

#[test]
fn all_mode_runs_to_the_end_through_gates_and_commits() {
    let mut t = Test::new();
    gate_and_commit_plan(&mut t);
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    ▶ T2 task T2
    ✓ T2 task T2 (N.Ns)
    ▶ T3 task T3
    ✓ T3 task T3 (N.Ns)
    ▶ T4 task T4
    ✓ T4 task T4 (N.Ns)
    T4: nothing to commit.
    Completed: 4/4 tasks done.
    --- stderr
    ");
    assert_eq!(t.read("runs.log"), "T1\nT2\nT4\n");
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert_eq!(state["execution_mode"], "all");
    assert_eq!(state["quality_gates"]["T3"]["passed"], true);
    assert_eq!(state["quality_gates"]["T3"]["score"], 100);
    assert_invariants(&t);
}

#[test]
fn quality_gate_mode_is_the_plugins_all_and_stops_before_gates_and_commits() {
    let mut t = Test::new();
    gate_and_commit_plan(&mut t);
    let run = t.wf(&["workflow-execute", "--quality-gate"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    ▶ T2 task T2
    ✓ T2 task T2 (N.Ns)
    Paused (before quality gate T3): 2/4 tasks done. Run `wf workflow-execute` to continue.
    --- stderr
    ");
    assert_eq!(t.read("runs.log"), "T1\nT2\n");
    assert_eq!(t.state()["execution_mode"], "quality_gate");
    // Sticky: no flag next time is the same mode; the gate runs first, then the
    // commit pauses.
    let run = t.wf(&["workflow-execute"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T3 task T3
    ✓ T3 task T3 (N.Ns)
    Paused (before the commit in T4): 3/4 tasks done. Run `wf workflow-execute` to continue.
    --- stderr
    ");
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
    assert_invariants(&t);
}

#[test]
fn pause_at_commit_pauses_phase_and_all_alike_and_the_config_sets_it() {
    for mode in ["--phase", "--all"] {
        let mut t = Test::new();
        gate_and_commit_plan(&mut t);
        // --phase stops at each of the three phases' ends too; --all only there.
        let runs = (1..=3)
            .find(|_| {
                t.wf(&["workflow-execute", mode, "--pause-at", "commit"])
                    .ok();
                t.state()["status_reason"] == "before the commit in T4"
            })
            .unwrap_or_else(|| panic!("{mode} never paused before the commit"));
        assert_eq!(runs, if mode == "--all" { 1 } else { 3 }, "{mode}");
        assert_eq!(t.read("runs.log"), "T1\nT2\n", "{mode}");
    }
    let mut t = Test::new();
    gate_and_commit_plan(&mut t);
    t.config(r#"{"scripts": {"test": "true"}, "wf": {"pause_at": "gate"}}"#);
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    ▶ T2 task T2
    ✓ T2 task T2 (N.Ns)
    Paused (before quality gate T3): 2/4 tasks done. Run `wf workflow-execute` to continue.
    --- stderr
    ");
    // --pause-at none overrides the config.
    let run = t
        .wf(&["workflow-execute", "--all", "--pause-at", "none"])
        .ok();
    assert_eq!(t.state()["status"], "completed", "{}", run.whole());
    let bad = t.wf(&["workflow-execute", "--pause-at", "gates"]).code(2);
    insta::assert_snapshot!(bad.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: invalid value 'gates' for '--pause-at <POINTS>': `gates` is not a pause point; use gate, commit or none; see `wf workflow-execute --help`
    ");
    t.config(r#"{"wf": {"pause_at": "commits"}}"#);
    let bad = t.wf(&["status"]).code(2);
    insta::assert_snapshot!(bad.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: [ROOT]/project/.claude/config/project-config.json: wf.pause_at: `commits` is not a pause point; use gate, commit or none
    ");
}

#[test]
fn ci_mode_runs_the_whole_plan_in_one_call_with_gates_enforced() {
    let mut t = Test::new();
    t.config(r#"{"scripts": {"test": "test -f runs.log"}}"#);
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo T1 >> runs.log"),
            task("T2", "b").field("质量关卡", "true").deps("T1"),
            task("T3", "c").verify("echo T3 >> runs.log").deps("T2"),
        ]),
    );
    t.env("CI", "true");
    t.wf(&["workflow-execute", "--all"]).ok();
    assert_eq!(t.state()["status"], "completed");
    assert_eq!(t.read("runs.log"), "T1\nT3\n");
}

#[test]
fn ci_mode_fails_on_a_failing_gate() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "exit 3"}}"#);
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "b").field("质量关卡", "true").deps("T1"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--all", "--ci"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    ▶ T2 task T2
    ✗ T2 task T2: quality gate T2: score 0 is below the threshold 80 (typecheck n/a, lint n/a, test failed, build n/a); test `exit 3` exited with 3
      --- last lines of [ROOT]/home/[ID]/logs/T2.1.log ---
      | $ exit 3
    --- stderr
    Failed: task T2 failed: quality gate T2: score 0 is below the threshold 80 (typecheck n/a, lint n/a, test failed, build n/a); test `exit 3` exited with 3
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    let state = t.state();
    assert_eq!(state["status"], "failed");
    assert_eq!(state["quality_gates"]["T2"]["passed"], false);
}

#[test]
fn failing_verifier_then_retry_completes() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("test -f fixed"),
            task("T2", "a").verify("echo T2 >> runs.log").deps("T1"),
        ]),
    );
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: check `test -f fixed` exited with 1
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ test -f fixed
    --- stderr
    Failed: task T1 failed: check `test -f fixed` exited with 1
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    let state = t.state();
    assert_eq!(state["status"], "failed");
    assert_eq!(task_status(&state, "T1"), "failed");
    assert!(state["failure_reason"]
        .as_str()
        .unwrap_or("")
        .contains("test -f fixed"));
    assert_invariants(&t);
    // Without --retry the workflow stays failed.
    t.wf(&["workflow-execute"]).code(1);
    t.write("fixed", "");
    t.wf(&["workflow-execute", "--retry"]).ok();
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert_eq!(state["retry_counts"]["T1"], 1);
    assert!(state["failure_reason"].is_null());
    assert_invariants(&t);
}

/// `--quiet` (a CI job's run) says nothing of a task that passed and all of one
/// that failed: its header and its log's last lines, on stderr.
#[test]
fn quiet_shows_a_failure_alone() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo T1 >> runs.log"),
            task("T2", "a").verify("test -f fixed").deps("T1"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--all", "--quiet"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    --- stderr
    ✗ T2 task T2: check `test -f fixed` exited with 1
      --- last lines of [ROOT]/home/[ID]/logs/T2.1.log ---
      | $ test -f fixed
    Failed: task T2 failed: check `test -f fixed` exited with 1
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(t.read("runs.log"), "T1\n");
}

#[test]
fn failing_verifier_then_skip_completes() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("false"),
            task("T2", "a").verify("echo T2 >> runs.log").deps("T1"),
        ]),
    );
    t.wf(&["workflow-execute"]).code(1);
    let run = t
        .wf(&["workflow-execute", "--skip", "--reason", "flaky upstream"])
        .ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    Skipped T1: flaky upstream
    ▶ T2 task T2
    ✓ T2 task T2 (N.Ns)
    Completed: 2/2 tasks done.
    --- stderr
    ");
    let state = t.state();
    assert_eq!(state["status"], "completed");
    assert_eq!(task_status(&state, "T1"), "skipped");
    assert_eq!(state["skipped_info"]["T1"]["reason"], "flaky upstream");
    assert_eq!(t.read("runs.log"), "T2\n");
    assert_invariants(&t);
}

#[test]
fn skip_needs_a_reason() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("false")]));
    t.wf(&["workflow-execute", "--skip"]).code(2);
}

#[test]
fn blocked_tasks_wait_and_unblock_frees_them() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo T1 >> runs.log"),
            task("T2", "a")
                .verify("echo T2 >> runs.log")
                .field("阻塞依赖", "api_spec"),
            task("T3", "a").verify("echo T3 >> runs.log"),
        ]),
    );
    let state = t.state();
    assert_eq!(state["mode"], "progressive");
    assert_eq!(task_status(&state, "T2"), "blocked");
    assert_eq!(state["progress"]["blocked"], serde_json::json!(["T2"]));
    let run = t.wf(&["workflow-execute"]).code(3);
    insta::assert_snapshot!(run.whole(), @"
    exit: 3
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    ▶ T3 task T3
    ✓ T3 task T3 (N.Ns)
    Blocked: T2 waits on api_spec. Lift with `wf workflow-unblock api_spec`.
    --- stderr
    ");
    assert_eq!(t.read("runs.log"), "T1\nT3\n");
    assert_eq!(t.state()["status"], "blocked");
    assert_invariants(&t);

    let run = t.wf(&["workflow-unblock", "nope"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: unknown blocker kind `nope`; known kinds: api_spec, design_spec, all
    ");

    t.wf(&["workflow-unblock", "api_spec"]).ok();
    let state = t.state();
    assert_eq!(task_status(&state, "T2"), "pending");
    assert_eq!(state["unblocked"], serde_json::json!(["api_spec"]));
    assert_eq!(state["status"], "paused");
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.read("runs.log"), "T1\nT3\nT2\n");
    assert_eq!(t.state()["status"], "completed");
    assert_invariants(&t);
}

#[test]
fn a_missing_tool_is_named_with_its_task() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a").verify("wf-missing-tool --version")]),
    );
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: check: `wf-missing-tool` is not on PATH (needed by task T1)
    --- stderr
    Failed: task T1 failed: check: `wf-missing-tool` is not on PATH (needed by task T1)
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
}

/// Program lookups are remembered for the run; one that vanished mid-run must be
/// looked up again, not fail with the old path.
#[test]
fn a_program_removed_mid_run_is_found_again_on_path() {
    use std::os::unix::fs::PermissionsExt;
    let mut t = Test::new();
    for dir in ["bin-a", "bin-b"] {
        let tool = format!("{dir}/wf-tool");
        let said = dir.trim_start_matches("bin-");
        t.write(&tool, format!("#!/bin/sh\necho {said} >> runs.log\n"));
        let path = t.project.join(&tool);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}:{}",
        t.project.join("bin-a").display(),
        t.project.join("bin-b").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    t.env("PATH", path);
    let remove = format!("rm {}", t.project.join("bin-a/wf-tool").display());
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("wf-tool"),
            task("T2", "a").verify(&remove).deps("T1"),
            task("T3", "a").verify("wf-tool").deps("T2"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    assert_eq!(t.read("runs.log"), "a\nb\n");
    assert_invariants(&t);
}

/// `bin/wf-tool` in the project, running `script`, with `bin` first on `wf`'s PATH.
fn tool_on_path(t: &mut Test, script: &str) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    t.write("bin/wf-tool", script);
    let tool = t.project.join("bin/wf-tool");
    std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!(
        "{}:{}",
        t.project.join("bin").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    t.env("PATH", path);
    tool
}

/// Task T2, after T1: removes `tool`.
fn removes(tool: &std::path::Path) -> T<'static> {
    task("T2", "a")
        .verify(&format!("rm {}", tool.display()))
        .deps("T1")
}

/// A program found on PATH earlier in the run is not looked at again before each
/// spawn; one removed from every PATH entry fails by name all the same.
#[test]
fn a_program_removed_mid_run_from_path_fails_as_not_on_path() {
    let mut t = Test::new();
    let tool = tool_on_path(&mut t, "#!/bin/sh\necho ran >> runs.log\n");
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("wf-tool"),
            removes(&tool),
            task("T3", "a").verify("wf-tool").deps("T2"),
        ]),
    );
    let out = t
        .wf(&["workflow-execute", "--all", "--json"])
        .code(1)
        .json();
    assert_eq!(t.read("runs.log"), "ran\n");
    let t3 = &out["tasks"][2];
    assert_eq!(t3["id"], "T3");
    assert_eq!(
        t3["reason"],
        "check: `wf-tool` is not on PATH (needed by task T3)"
    );
    assert_invariants(&t);
}

/// The logs directory is made with the first log, and made again if it goes.
#[test]
fn task_logs_are_written_even_after_the_logs_dir_is_removed() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo one"),
            task("T2", "a").verify("true").deps("T1"),
            task("T3", "a").verify("echo three").deps("T2"),
        ]),
    );
    let logs = t.workflow_dir().join("logs");
    assert!(!logs.exists(), "no log before any task ran");
    t.wf(&["workflow-execute", "--step"]).ok();
    assert!(logs.is_dir());
    std::fs::remove_dir_all(&logs).unwrap();
    t.wf(&["workflow-execute", "--all"]).ok();
    let state = t.state();
    let log = state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|task| task["id"] == "T3")
        .and_then(|task| task["log"].as_str())
        .expect("T3 names its log")
        .to_string();
    let text = std::fs::read_to_string(t.workflow_dir().join(&log)).unwrap();
    assert!(text.contains("three"), "{text}");
    assert_invariants(&t);
}

#[test]
fn timeout_kills_the_whole_process_group() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify("sleep 100 & echo $! > bg.pid; sleep 100")
            .field("timeout", "1")]),
    );
    let began = Instant::now();
    let run = t.wf(&["workflow-execute"]).code(1);
    assert!(
        began.elapsed() < Duration::from_secs(20),
        "the timeout did not fire"
    );
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: check `sleep 100 & echo $! > bg.pid; sleep 100` timed out after 1s (its process group was killed)
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ sleep 100 & echo $! > bg.pid; sleep 100
    --- stderr
    Failed: task T1 failed: check `sleep 100 & echo $! > bg.pid; sleep 100` timed out after 1s (its process group was killed)
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    let pid = t.read("bg.pid").trim().to_string();
    std::thread::sleep(Duration::from_millis(200));
    assert!(!alive(&pid), "background sleep {pid} survived the timeout");
}

#[test]
fn parallel_jobs_keep_output_grouped() {
    let t = Test::new();
    let noisy =
        |n: &str| format!("for i in 1 2 3 4 5 6 7 8 9 10; do echo {n}-line-$i; sleep 0.01; done");
    start(
        &t,
        &plan(&[
            task("T1", "a").verify(&noisy("T1")),
            task("T2", "a").verify(&noisy("T2")),
            task("T3", "a").verify(&noisy("T3")),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--jobs", "2"]).ok();
    // wf prints one summary line per task; the commands' own lines go to their logs.
    assert!(!run.stdout.contains("-line-"), "{}", run.stdout);
    for id in ["T1", "T2", "T3"] {
        let log = std::fs::read_to_string(t.workflow_dir().join(format!("logs/{id}.1.log")))
            .expect("log");
        let lines: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("-line-") && !l.starts_with("$ "))
            .collect();
        assert_eq!(lines.len(), 10, "{log}");
        assert!(
            lines.iter().all(|l| l.starts_with(&format!("{id}-"))),
            "log of {id} mixed: {log}"
        );
    }
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn sigint_pauses_kills_children_and_resume_completes() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo T1 >> runs.log"),
            task("T2", "a")
                .verify("test -f go || { echo $$ > child.pid; sleep 100; }")
                .deps("T1"),
            task("T3", "a").verify("echo T3 >> runs.log").deps("T2"),
        ]),
    );
    let mut cmd = t.command(&["workflow-execute"]);
    crate::test::signals_at_default_but(&mut cmd, &[]);
    let mut child = cmd
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    let pid_file = t.project.join("child.pid");
    let deadline = Instant::now() + Duration::from_secs(20);
    while !pid_file.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(100));
    // SAFETY: signalling a child process we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(130));
    let state = t.state();
    assert_eq!(state["status"], "paused");
    assert_eq!(task_status(&state, "T2"), "pending");
    let pid = t.read("child.pid").trim().to_string();
    assert!(!alive(&pid), "child {pid} survived Ctrl-C");
    t.write("go", "");
    t.wf(&["resume"]).ok();
    assert_eq!(t.state()["status"], "completed");
    assert_eq!(t.read("runs.log"), "T1\nT3\n");
    assert_invariants(&t);
}

#[test]
fn sigkill_mid_run_then_resume_runs_each_task_at_most_once_more() {
    let t = Test::new();
    let tasks: Vec<_> = (1..=12)
        .map(|n| {
            let id: &'static str = Box::leak(format!("T{n}").into_boxed_str());
            task(id, "a").verify(&format!("echo {id} >> runs.log; sleep 0.1"))
        })
        .collect();
    start(&t, &plan(&tasks));
    let mut child = t
        .command(&["workflow-execute", "--ci"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // Kill once a few tasks have run, however slow the machine is.
    let runs = t.project.join("runs.log");
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline
        && std::fs::read_to_string(&runs).map_or(0, |r| r.lines().count()) < 3
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = child.kill();
    let _ = child.wait();
    let before = t.read("runs.log").lines().count();
    assert!(before > 0 && before < 12, "kill landed at {before} runs");
    let state = t.state();
    assert_eq!(
        state["status"], "running",
        "a killed run leaves running behind"
    );
    t.wf(&["resume", "--ci"]).ok();
    assert_eq!(t.state()["status"], "completed");
    let log = t.read("runs.log");
    let mut extra = 0;
    for n in 1..=12 {
        let runs = log.lines().filter(|l| *l == format!("T{n}")).count();
        assert!((1..=2).contains(&runs), "T{n} ran {runs} times");
        extra += runs - 1;
    }
    assert!(
        extra <= 1,
        "{extra} tasks ran twice; only the one in flight may"
    );
    assert_invariants(&t);
}

#[test]
fn plan_text_never_reaches_a_shell() {
    let t = Test::new();
    let hostile = "# Tasks: $(touch PWNED1)\n\n## T1: name $(touch PWNED2) `touch PWNED3`; rm -rf x\n- **阶段**: a$(touch PWNED4)\n- **需求**: $(touch PWNED5)\n- **验证命令**: `true`\n";
    t.write("tasks.md", hostile);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute"]).ok();
    for n in 1..=5 {
        assert!(
            !t.project.join(format!("PWNED{n}")).exists(),
            "PWNED{n} was created"
        );
    }
}

#[test]
fn handed_off_task_completes_on_the_next_call_when_its_checks_pass() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a")
                .field("actions", "create_file")
                .field("创建文件", "hello.txt")
                .verify("grep -q hello hello.txt"),
            task("T2", "a").verify("echo T2 >> runs.log").deps("T1"),
        ]),
    );
    let run = t.wf(&["workflow-execute"]).code(0);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
    Handed off: task T1 wants an agent that can implement (actions: create_file). No executor is configured (wf.executors), so it is yours or Claude Code's to do; when it is done, `wf workflow-execute` checks its 1 command ("Verify" below).

    # T1: task T1

    - **Workflow**: test plan
    - **Phase**: a
    - **Status**: in_progress
    - **Actions**: create_file

    ## Requirement

    do T1

    ## Files

    - Create: `hello.txt`

    ## Verify

    The task is done when these commands succeed (run with `sh -c` in the project directory):

    ```sh
    grep -q hello hello.txt
    ```

    --- stderr
    "#);
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "in_progress");
    // Running, not paused: the claude-workflow plugin's hooks block an agent's work
    // on a workflow that is not running (see `Engine::finish`).
    assert_eq!(state["status"], "running");
    // Not done yet: the checks fail.
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: check `grep -q hello hello.txt` exited with 2
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ grep -q hello hello.txt
      | grep: hello.txt: No such file or directory
    --- stderr
    Failed: task T1 failed: check `grep -q hello hello.txt` exited with 2
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    t.write("hello.txt", "hello\n");
    t.wf(&["workflow-execute", "--retry"]).code(0);
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
    assert_invariants(&t);
}

#[test]
fn agent_tasks_fail_in_ci_mode_instead_of_waiting() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").field("actions", "edit_file")]));
    let run = t.wf(&["workflow-execute", "--ci"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ✗ T1 task T1: task T1 needs an agent (edit_file) and --ci does not hand off; configure an executor in wf.executors
    --- stderr
    Failed: task T1 failed: task T1 needs an agent (edit_file) and --ci does not hand off; configure an executor in wf.executors
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
}

#[test]
fn a_second_execute_is_refused_with_the_holders_pid() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a").verify("test -f go || sleep 5")]),
    );
    let mut child = t
        .command(&["workflow-execute"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn");
    // Wait until the first execute holds the lock (its pid is in the lock file).
    let lock = t.workflow_dir().join(".lock");
    let pid = child.id().to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline
        && !std::fs::read_to_string(&lock).is_ok_and(|l| l.starts_with(&pid))
    {
        std::thread::sleep(Duration::from_millis(10));
    }
    let run = t.wf(&["workflow-execute"]).code(4);
    assert!(
        run.stderr.contains(&child.id().to_string()),
        "{}",
        run.stderr
    );
    t.write("go", "");
    let _ = child.wait();
}

#[test]
fn a_missing_deliverable_fails_the_workflow() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify("true")
            .field("创建文件", "report.txt")]),
    );
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    --- stderr
    Failed: missing deliverables: report.txt
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(t.state()["status"], "failed");
}

#[test]
fn resume_outside_a_project_lists_and_picks_resumable_workflows() {
    let t = Test::new();
    start(&t, &three_phases());
    t.wf(&["workflow-execute"]).ok();
    // From a directory with no workflow of its own, but the same WF_HOME.
    let elsewhere = t.root.join("elsewhere");
    std::fs::create_dir_all(elsewhere.join(".git")).unwrap();
    let mut cmd = t.command(&["resume"]);
    let out = cmd.current_dir(&elsewhere).output().expect("run");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listing = String::from_utf8_lossy(&out.stdout);
    assert!(listing.contains("test plan [paused]"), "{listing}");
    let mut cmd = t.command(&["resume", "--yes"]);
    let out = cmd.current_dir(&elsewhere).output().expect("run");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(t.read("runs.log"), "T1\nT2\nT3\n");
}

#[test]
fn a_failing_hard_constraint_fails_completion() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    t.wf(&[
        "constraints",
        "add",
        "the report exists",
        "--verify-cmd",
        "test -f report.txt",
    ])
    .ok();
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    --- stderr
    Failed: final verifiers: hard constraint C001 failed: `test -f report.txt` exited with 1
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(t.state()["status"], "failed");
}

#[test]
fn a_gate_records_its_hard_constraint_verifications() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo T1 >> runs.log"),
            task("T2", "b").field("质量关卡", "true").deps("T1"),
        ]),
    );
    t.wf(&[
        "constraints",
        "add",
        "runs are logged",
        "--verify-cmd",
        "test -f runs.log",
    ])
    .ok();
    t.wf(&["workflow-execute", "--ci"]).ok();
    let state = t.state();
    assert_eq!(
        state["quality_gates"]["T2"]["constraints"]["C001"],
        "passed"
    );
    assert_eq!(state["constraints"]["hard"][0]["verified"], true);
    assert_eq!(
        state["constraints"]["verifications"][0]["constraintId"],
        "C001"
    );
    assert_eq!(state["constraints"]["verifications"][0]["passed"], true);
}

#[test]
fn in_ci_an_explicit_step_still_stops_after_one_task() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("true"),
        ]),
    );
    t.env("CI", "true");
    let run = t.wf(&["workflow-execute", "--step"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    CI: agent tasks fail instead of being handed off; the mode asked for keeps its stop.
    ▶ T1 task T1
    ✓ T1 task T1 (N.Ns)
    Paused (step mode: one task per run): 1/2 tasks done. Run `wf workflow-execute` to continue.
    --- stderr
    ");
    assert_eq!(task_status(&t.state(), "T2"), "pending");
    // Without a mode flag, CI runs to the end.
    let run = t.wf(&["workflow-execute"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ▶ T2 task T2
    ✓ T2 task T2 (N.Ns)
    Completed: 2/2 tasks done.
    --- stderr
    ");
}

#[test]
fn execute_json_reports_each_task_it_worked_on() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo fine"),
            task("T2", "a").verify("true"),
            task("T3", "a").verify("echo boom; exit 4").deps("T2"),
        ]),
    );
    let v = t
        .wf(&["workflow-execute", "--all", "--json"])
        .code(1)
        .json();
    let tasks = v["tasks"].as_array().expect("a tasks list");
    let row = |i: usize| {
        let r = &tasks[i];
        (
            r["id"].as_str().unwrap().to_string(),
            r["status"].as_str().unwrap().to_string(),
            r["attempt"].as_u64().unwrap(),
            r["reason"].as_str().map(str::to_string),
        )
    };
    assert_eq!(tasks.len(), 3, "{v:#}");
    assert_eq!(row(0), ("T1".into(), "completed".into(), 1, None));
    assert_eq!(row(1), ("T2".into(), "completed".into(), 1, None));
    assert_eq!(
        row(2),
        (
            "T3".into(),
            "failed".into(),
            1,
            Some("check `echo boom; exit 4` exited with 4".into())
        )
    );
    // A log only where a check printed or failed; absolute, so it opens from anywhere.
    assert_eq!(tasks[1]["log"], serde_json::Value::Null);
    for i in [0, 2] {
        let log = std::path::PathBuf::from(tasks[i]["log"].as_str().expect("a log"));
        assert!(log.is_absolute() && log.is_file(), "{log:?}");
    }
    assert!(tasks[2]["duration_ms"].is_u64());
    assert_eq!(
        tasks[2]["failed_checks"],
        serde_json::json!([{"command": "echo boom; exit 4", "exit_code": 4, "ended": "exited with 4"}])
    );
    assert_eq!(tasks[0]["failed_checks"], serde_json::json!([]));
}

/// A hard constraint's program found on PATH earlier in the run (by a task) and
/// removed since fails the final verifiers as a missing one does, by name.
#[test]
fn a_constraint_program_removed_mid_run_fails_as_not_on_path() {
    let mut t = Test::new();
    let tool = tool_on_path(&mut t, "#!/bin/sh\nexit 0\n");
    start(
        &t,
        &plan(&[task("T1", "a").verify("wf-tool"), removes(&tool)]),
    );
    t.config(r#"{"wf": {"allowed_command_prefixes": ["wf-tool"]}}"#);
    t.wf(&[
        "constraints",
        "add",
        "the tool passes",
        "--verify-cmd",
        "wf-tool",
    ])
    .ok();
    let run = t.wf(&["workflow-execute", "--all"]).code(1);
    assert!(
        run.stderr
            .contains("hard constraint C001 failed: `wf-tool` is not on PATH\n"),
        "{}",
        run.whole()
    );
}
