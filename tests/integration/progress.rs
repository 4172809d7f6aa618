//! Long work is visible where no progress bar shows it: a line when a task starts, a
//! heartbeat for a task that runs long, and `--dry-run`, the order a run would take
//! without running or writing anything.

use crate::plans::{plan, start, task};
use crate::test::Test;

fn mixed_plan(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "setup").verify("echo T1"),
            task("T2", "setup")
                .verify("echo T2")
                .verify("echo again")
                .deps("T1"),
            task("T3", "build").field("actions", "edit_file").deps("T2"),
            task("T4", "build").field("质量关卡", "true").deps("T3"),
            task("T5", "ship").field("actions", "git_commit").deps("T4"),
            task("T6", "ship")
                .field("阻塞依赖", "api_spec")
                .verify("true"),
            task("T7", "ship").verify("true").deps("T6"),
        ]),
    );
}

#[test]
fn dry_run_prints_the_order_and_where_the_mode_stops_and_writes_nothing() {
    let t = Test::new();
    mixed_plan(&t);
    let before = t.workflow_files();
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--dry-run"]).whole(), @"
    exit: 0
    --- stdout
    A dry run: nothing is run or written.
    Would run, in this order, under --phase:
      1. T1 task T1: runs `echo T1`
      2. T2 task T2: runs `echo T2` and 1 more
         ↳ --phase stops here: the next task's phase differs
      3. T3 task T3: handed off to you or an agent (no executor is configured)
      4. T4 task T4: quality gate
      5. T5 task T5: commits
    Not reached:
      T6 task T6: waits on api_spec
      T7 task T7: after T6
    --- stderr
    ");
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--dry-run", "--all", "--ci"]).whole(), @"
    exit: 0
    --- stdout
    A dry run: nothing is run or written.
    Would run, in this order, under --all:
      1. T1 task T1: runs `echo T1`
      2. T2 task T2: runs `echo T2` and 1 more
      3. T3 task T3: fails: it needs an agent and --ci does not hand off
         ↳ the run fails here
      4. T4 task T4: quality gate
      5. T5 task T5: commits
    Not reached:
      T6 task T6: waits on api_spec
      T7 task T7: after T6
    --- stderr
    ");
    assert_eq!(t.workflow_files(), before, "--dry-run wrote a file");
}

#[test]
fn dry_run_json_lists_the_order_and_what_is_not_reached() {
    let t = Test::new();
    mixed_plan(&t);
    let v = t
        .wf(&["workflow-execute", "--dry-run", "--json"])
        .ok()
        .json();
    let ids = |key: &str| -> Vec<String> {
        v[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids("order"), ["T1", "T2", "T3", "T4", "T5"]);
    assert_eq!(ids("not_reached"), ["T6", "T7"]);
    assert_eq!(v["mode"], "phase");
    assert!(
        crate::json_contract::schema("execute-dry-run").is_valid(&v),
        "{v:#}"
    );
}

#[test]
fn a_task_that_runs_long_gets_a_heartbeat_between_its_start_and_end() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "slow").verify("sleep 2.5")]));
    t.env("WF_TEST_HEARTBEAT_SECS", "1");
    let run = t.wf(&["workflow-execute"]).ok();
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(lines.first(), Some(&"▶ T1 task T1"), "{}", run.stdout);
    // The seconds it names are those the run had counted when the beat fell due:
    // 1 on a quiet machine, more on a loaded one.
    let beat = regex::Regex::new(r"^… T1 task T1: still running \(\d+s\)$").unwrap();
    assert!(
        lines.get(1).is_some_and(|l| beat.is_match(l)),
        "{}",
        run.stdout
    );
    assert!(
        lines.iter().any(|l| l.starts_with("✓ T1 task T1 (")),
        "{}",
        run.stdout
    );
}

fn noisy_plan(t: &Test) {
    start(
        t,
        &plan(&[
            task("T1", "build").verify("printf 'one\\ntwo\\n'"),
            task("T2", "build")
                .verify("printf 'red \\033[31mtext\\033[0m\\nno newline'; exit 3")
                .deps("T1"),
        ]),
    );
}

#[test]
fn verbose_streams_each_line_of_a_task_under_its_start_line_and_logs_it_too() {
    let mut t = Test::new();
    noisy_plan(&t);
    t.env_remove("GITHUB_ACTIONS").env_remove("GITLAB_CI");
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--all", "-v"]).whole(), @r"
    exit: 1
    --- stdout
    ▶ T1 task T1
      T1 | one
      T1 | two
    ✓ T1 task T1 (N.Ns)
    ▶ T2 task T2
      T2 | red text
      T2 | no newline
    ✗ T2 task T2: check `printf 'red \033[31mtext\033[0m\nno newline'; exit 3` exited with 3
      log: [ROOT]/home/[ID]/logs/T2.1.log
    --- stderr
    Failed: task T2 failed: check `printf 'red \033[31mtext\033[0m\nno newline'; exit 3` exited with 3
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    let log = t.workflow_dir().join("logs");
    let logged: Vec<String> = std::fs::read_dir(&log)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        logged.iter().any(|l| l.contains("one\ntwo\n")),
        "{logged:?}"
    );
}

#[test]
fn verbose_under_github_actions_streams_inside_the_tasks_group() {
    let mut t = Test::new();
    noisy_plan(&t);
    t.env("GITHUB_ACTIONS", "true")
        .env_remove("GITHUB_STEP_SUMMARY");
    insta::assert_snapshot!(t.wf(&["workflow-execute", "--all", "-v"]).whole(), @r"
    exit: 1
    --- stdout
    ::group::▶ T1 task T1
      T1 | one
      T1 | two
    ::endgroup::
    ✓ T1 task T1 (N.Ns)
    ::group::▶ T2 task T2
      T2 | red text
      T2 | no newline
    ::endgroup::
    ✗ T2 task T2: check `printf 'red \033[31mtext\033[0m\nno newline'; exit 3` exited with 3
      --- last lines of [ROOT]/home/[ID]/logs/T2.1.log ---
      | $ printf 'red \033[31mtext\033[0m\nno newline'; exit 3
      | red text
      | no newline
    ::error file=tasks.md,line=8,title=T2 task T2::check `printf 'red \033[31mtext\033[0m\nno newline'; exit 3` exited with 3
    --- stderr
    Failed: task T2 failed: check `printf 'red \033[31mtext\033[0m\nno newline'; exit 3` exited with 3
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
}

#[test]
fn verbose_under_github_actions_with_two_jobs_opens_no_group_to_interleave() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("printf 'one%s\\n' -a; sleep 0.2; printf 'one%s\\n' -b"),
            task("T2", "a").verify("printf 'two%s\\n' -a; sleep 0.2; printf 'two%s\\n' -b; exit 3"),
        ]),
    );
    t.env("GITHUB_ACTIONS", "true")
        .env_remove("GITHUB_STEP_SUMMARY");
    let run = t
        .wf(&["workflow-execute", "--all", "-v", "--jobs", "2", "-k"])
        .code(1);
    assert!(!run.stdout.contains("::group::"), "{}", run.stdout);
    crate::test::assert_each_once(&run.stdout, &["one-a", "one-b", "two-a", "two-b"]);
    assert!(
        run.stdout.contains("  log: ") && run.stdout.contains("logs/T2.1.log"),
        "the failure names its log: {}",
        run.stdout
    );
}

#[test]
fn verbose_with_json_keeps_stdout_a_document_and_streams_on_stderr() {
    let mut t = Test::new();
    noisy_plan(&t);
    t.env_remove("GITHUB_ACTIONS").env_remove("GITLAB_CI");
    let run = t.wf(&["workflow-execute", "--all", "-v", "--json"]);
    assert_eq!(run.code, 1, "{run:?}");
    let _: serde_json::Value =
        serde_json::from_str(&run.stdout).expect("stdout is one JSON document");
    assert!(!run.stdout.contains("T1 | one"), "{}", run.stdout);
    assert!(
        run.stderr.contains("  T1 | one\n  T1 | two\n"),
        "{}",
        run.stderr
    );
}
