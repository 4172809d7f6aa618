//! CI first-class (issue 17 item 4): `--keep-going`, GitHub annotations with the
//! plan's file and line, a job summary that renders, JUnit checked against a schema,
//! and GitLab's collapsible sections — each end to end with the real binary.

use serde_json::json;

use crate::plans::{assert_invariants, plan, start, statuses, task};
use crate::test::Test;

/// T1 fails; T2 and the gate T5 depend on it (T4 through T2); T3 does not.
fn a_plan_with_one_failure() -> String {
    plan(&[
        task("T1", "a").verify("echo T1 >> runs.log; exit 1"),
        task("T2", "a").verify("echo T2 >> runs.log").deps("T1"),
        task("T3", "a").verify("echo T3 >> runs.log"),
        task("T4", "b").verify("echo T4 >> runs.log").deps("T2"),
        task("T5", "b").field("质量关卡", "true").deps("T1, T3"),
        task("T6", "b").verify("echo T6 >> runs.log").deps("T3"),
    ])
}

fn statuses_of(t: &Test) -> Vec<(String, String)> {
    statuses(&t.state())
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
        .collect()
}

// ---- --keep-going ----

#[test]
fn keep_going_runs_every_task_that_does_not_depend_on_a_failure() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start(&t, &a_plan_with_one_failure());
    let run = t
        .wf(&["workflow-execute", "--all", "--ci", "--keep-going"])
        .code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ▶ T1 task T1
    ✗ T1 task T1: check `echo T1 >> runs.log; exit 1` exited with 1
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ echo T1 >> runs.log; exit 1
    ▶ T3 task T3
    ✓ T3 task T3 (N.Ns)
    ▶ T6 task T6
    ✓ T6 task T6 (N.Ns)
    --- stderr
    Failed: task T1 failed: check `echo T1 >> runs.log; exit 1` exited with 1
    Failed tasks: T1
    Not run (they depend on a failed task): T2, T4, T5
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(t.read("runs.log"), "T1\nT3\nT6\n");
    assert_eq!(
        statuses_of(&t),
        pairs(&[
            ("T1", "failed"),
            ("T2", "pending"),
            ("T3", "completed"),
            ("T4", "pending"),
            ("T5", "pending"),
            ("T6", "completed"),
        ])
    );
    assert_eq!(t.state()["status"], "failed");
    assert_invariants(&t);
}

#[test]
fn without_keep_going_the_run_stops_at_the_first_failure() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start(&t, &a_plan_with_one_failure());
    let run = t.wf(&["workflow-execute", "--all", "--ci"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ▶ T1 task T1
    ✗ T1 task T1: check `echo T1 >> runs.log; exit 1` exited with 1
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ echo T1 >> runs.log; exit 1
    --- stderr
    Failed: task T1 failed: check `echo T1 >> runs.log; exit 1` exited with 1
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(t.read("runs.log"), "T1\n");
    assert_eq!(t.state()["status"], "failed");
}

#[test]
fn keep_going_json_lists_failed_and_not_run_tasks() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start(&t, &a_plan_with_one_failure());
    let run = t
        .wf(&["--json", "workflow-execute", "--all", "--ci", "-k"])
        .code(1);
    let v = run.json();
    assert_eq!(v["stop"], "failed");
    assert_eq!(v["exit_code"], 1);
    assert_eq!(v["failed_tasks"], json!(["T1"]));
    assert_eq!(v["not_run"], json!(["T2", "T4", "T5"]));
    assert_eq!(
        (v["ran"].clone(), v["passed"].clone()),
        (json!(3), json!(2))
    );
}

#[test]
fn keep_going_with_jobs_runs_the_same_tasks() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start(&t, &a_plan_with_one_failure());
    let run = t
        .wf(&["workflow-execute", "--all", "--ci", "-k", "--jobs", "3"])
        .code(1);
    assert!(
        run.stderr
            .contains("Not run (they depend on a failed task): T2, T4, T5"),
        "{}",
        run.stderr
    );
    let mut ran: Vec<&str> = Vec::new();
    let log = t.read("runs.log");
    ran.extend(log.lines());
    ran.sort_unstable();
    assert_eq!(ran, ["T1", "T3", "T6"]);
    assert_eq!(t.state()["status"], "failed");
    assert_invariants(&t);
}

#[test]
fn keep_going_with_two_failures_names_both_and_a_retry_goes_on() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("test -f fixed"),
            task("T2", "a").verify("exit 2"),
            task("T3", "a").verify("true").deps("T1"),
            task("T4", "a").verify("true"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--all", "--ci", "-k"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ▶ T1 task T1
    ✗ T1 task T1: check `test -f fixed` exited with 1
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ test -f fixed
    ▶ T2 task T2
    ✗ T2 task T2: check `exit 2` exited with 2
      --- last lines of [ROOT]/home/[ID]/logs/T2.1.log ---
      | $ exit 2
    ▶ T4 task T4
    ✓ T4 task T4 (N.Ns)
    --- stderr
    Failed: 2 tasks failed (T1, T2); task T1 failed: check `test -f fixed` exited with 1
    Failed tasks: T1, T2
    Not run (they depend on a failed task): T3
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(
        t.state()["failure_reason"],
        "2 tasks failed (T1, T2); task T1 failed: check `test -f fixed` exited with 1"
    );
    // Retrying one leaves the other failed: the workflow stays failed.
    t.write("fixed", "");
    let run = t
        .wf(&["workflow-execute", "--all", "--ci", "-k", "--retry", "T1"])
        .code(1);
    assert!(run.stderr.contains("Failed tasks: T2\n"), "{}", run.stderr);
    assert_eq!(
        statuses_of(&t),
        pairs(&[
            ("T1", "completed"),
            ("T2", "failed"),
            ("T3", "completed"),
            ("T4", "completed"),
        ])
    );
}

#[test]
fn keep_going_in_phase_mode_ends_failed_at_the_phase_end() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("exit 1"),
            task("T2", "a").verify("echo T2 >> runs.log"),
            task("T3", "b").verify("echo T3 >> runs.log"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--phase", "-k"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: check `exit 1` exited with 1
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ exit 1
    ▶ T2 task T2
    ✓ T2 task T2 (N.Ns)
    --- stderr
    Failed: task T1 failed: check `exit 1` exited with 1
    Failed tasks: T1
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    assert_eq!(t.read("runs.log"), "T2\n");
    assert_eq!(t.state()["status"], "failed");
    assert_invariants(&t);
}

// ---- GitHub Actions ----

/// A plan in `docs/` whose names and commands carry the characters that break
/// annotations and tables: `,` `:` `|` `<` `>` `&` and backticks.
const CI_PLAN: &str = "# Tasks: ci demo

## T1: Build the `core` | lib
- **阶段**: build
- **需求**: build it
- **验证命令**: `echo built`

## T2: Check the <limits> & counts
- **阶段**: build
- **需求**: check them
- **验证命令**: `test 3 -gt 5 > /dev/null || exit 4`

## T3: Package, sign: ship
- **阶段**: ship
- **需求**: ship it
- **依赖**: T2
- **验证命令**: `true`
";

/// A GitHub Actions job: `GITHUB_ACTIONS=true`, a step summary file, and the
/// checkout at `workspace`.
fn github_job(workspace: &str) -> (Test, std::path::PathBuf) {
    let mut t = Test::new();
    t.write("docs/tasks.md", CI_PLAN);
    t.wf(&["workflow-start", "docs/tasks.md"]).ok();
    let summary = t.root.join("step-summary.md");
    let workspace = t.root.join(workspace);
    t.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", summary.display().to_string())
        .env("GITHUB_WORKSPACE", workspace.display().to_string());
    (t, summary)
}

#[test]
fn a_github_actions_run_annotates_the_plan_line_and_writes_the_summary() {
    let (t, summary) = github_job("project");
    let run = t
        .wf(&["workflow-execute", "--all", "--ci", "--keep-going"])
        .code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ▶ T1 Build the `core` | lib
    ::group::✓ T1 Build the `core` | lib (N.Ns)
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ echo built
      | built
    ::endgroup::
    ▶ T2 Check the <limits> & counts
    ✗ T2 Check the <limits> & counts: check `test 3 -gt 5 > /dev/null || exit 4` exited with 4
      --- last lines of [ROOT]/home/[ID]/logs/T2.1.log ---
      | $ test 3 -gt 5 > /dev/null || exit 4
    ::error file=docs/tasks.md,line=8,title=T2 Check the <limits> & counts::check `test 3 -gt 5 > /dev/null || exit 4` exited with 4
    --- stderr
    Failed: task T2 failed: check `test 3 -gt 5 > /dev/null || exit 4` exited with 4
    Failed tasks: T2
    Not run (they depend on a failed task): T3
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    insta::assert_snapshot!(std::fs::read_to_string(&summary).unwrap(), @"
    ## wf: ci demo — ❌ failed

    **Progress:** 1/3 tasks done (33%) · 1 completed · 0 skipped · 1 failed · 0 blocked · 0 in progress · 1 pending

    **Failure:** task T2 failed: check <code>test 3 -gt 5 &gt; /dev/null &#124;&#124; exit 4</code> exited with 4

    | | Task | Phase | Status | Reason |
    |---|---|---|---|---|
    | ✅ | T1: Build the <code>core</code> &#124; lib | build | completed |  |
    | ❌ | T2: Check the &lt;limits&gt; &amp; counts | build | failed | check <code>test 3 -gt 5 &gt; /dev/null &#124;&#124; exit 4</code> exited with 4 |
    | ⏸ | T3: Package, sign: ship | ship | pending |  |
    ");
    // `wf report` prints the same annotations from the state.
    let report = t.wf(&["report", "github-annotations"]).ok().stdout;
    assert!(run.stdout.ends_with(&report), "{report}");
}

#[test]
fn annotations_name_the_plan_relative_to_the_checkout() {
    // The project is a folder of the repository the runner checked out.
    let (t, _) = github_job("");
    let run = t.wf(&["workflow-execute", "--all", "--ci"]).code(1);
    assert!(
        run.stdout
            .contains("::error file=project/docs/tasks.md,line=8,title=T2 "),
        "{}",
        run.stdout
    );
    // A checkout that does not hold the plan: no location, still an error.
    let (t, _) = github_job("elsewhere");
    let run = t.wf(&["workflow-execute", "--all", "--ci"]).code(1);
    assert!(run.stdout.contains("\n::error title=T2 "), "{}", run.stdout);
}

// ---- JUnit ----

/// Validates `xml` against `fixtures/junit/junit.xsd` with xmllint. Without xmllint
/// the check is skipped loudly — unless `WF_REQUIRE_XMLLINT=1`, which `.ci/run` sets
/// after installing it, so CI always validates.
fn assert_valid_junit(t: &Test, xml: &str) {
    if which::which("xmllint").is_err() {
        assert!(
            std::env::var_os("WF_REQUIRE_XMLLINT").is_none_or(|v| v != "1"),
            "xmllint is required (WF_REQUIRE_XMLLINT=1) but not on PATH"
        );
        eprintln!("!!! xmllint is not installed: the JUnit schema check is SKIPPED (apt-get install libxml2-utils)");
        return;
    }
    let file = t.root.join("junit-under-test.xml");
    std::fs::write(&file, xml).unwrap();
    let out = std::process::Command::new("xmllint")
        .args(["--noout", "--schema"])
        .arg(crate::test::fixture("junit/junit.xsd"))
        .arg(&file)
        .output()
        .expect("run xmllint");
    assert!(
        out.status.success(),
        "wf's JUnit does not validate:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn junit_has_times_and_phases_and_validates_against_the_schema() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start(&t, &a_plan_with_one_failure());
    let junit = t.root.join("run.xml");
    t.wf(&[
        "workflow-execute",
        "--all",
        "--ci",
        "-k",
        "--junit",
        junit.to_str().unwrap(),
    ])
    .code(1);
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_valid_junit(&t, &xml);
    // The report from the state afterwards is the same document.
    assert_eq!(t.wf(&["report", "junit"]).ok().stdout, xml);
    // A run that finds nothing left to do still writes the report it is asked for.
    t.wf(&["workflow-execute", "--skip", "T1", "--reason", "known"])
        .ok();
    t.wf(&["workflow-execute", "--all"]).ok();
    let again = t.root.join("again.xml");
    let done = t.wf(&["workflow-execute", "--junit", again.to_str().unwrap()]);
    assert!(done.ok().stdout.contains("already completed"));
    assert_valid_junit(&t, &std::fs::read_to_string(&again).unwrap());
    // Durations vary; everything else is fixed.
    let time = regex::Regex::new(r#" time="\d+\.\d{3}""#).unwrap();
    assert_eq!(
        time.find_iter(&xml).count(),
        8,
        "every testcase, suite and suites"
    );
    insta::assert_snapshot!(time.replace_all(&xml, r#" time="N""#), @r#"
    <?xml version="1.0" encoding="UTF-8"?>
    <testsuites name="wf" tests="6" failures="1" errors="0" time="N">
      <testsuite name="test plan" tests="6" failures="1" errors="0" skipped="3" time="N" timestamp="2026-01-08T10:00:00">
        <testcase classname="a" name="T1: task T1" time="N">
          <failure message="check `echo T1 &gt;&gt; runs.log; exit 1` exited with 1" type="failed">$ echo T1 &gt;&gt; runs.log; exit 1</failure>
        </testcase>
        <testcase classname="a" name="T2: task T2" time="N">
          <skipped message="not run: it depends on a failed task"/>
        </testcase>
        <testcase classname="a" name="T3: task T3" time="N"/>
        <testcase classname="b" name="T4: task T4" time="N">
          <skipped message="not run: it depends on a failed task"/>
        </testcase>
        <testcase classname="b" name="T5: task T5" time="N">
          <skipped message="not run: it depends on a failed task"/>
        </testcase>
        <testcase classname="b" name="T6: task T6" time="N"/>
      </testsuite>
    </testsuites>
    "#);
}

#[test]
fn junit_of_every_status_validates_against_the_schema() {
    // The fixture state has a failed task with a log, skipped, blocked, in-progress
    // and pending ones, and names with quotes and angle brackets.
    let t = Test::new();
    let dir = t.workflow_dir();
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    let src = crate::test::fixture("states/running");
    std::fs::copy(
        src.join("workflow-state.json"),
        dir.join("workflow-state.json"),
    )
    .unwrap();
    std::fs::copy(src.join("logs/T3-3.log"), dir.join("logs/T3-3.log")).unwrap();
    let xml = t.wf(&["report", "junit"]).ok().stdout;
    assert_valid_junit(&t, &xml);
    // Hostile text: XML-forbidden characters and colour codes in a name.
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a <b> & \"c\"").verify("printf '\\033[31mred\\001\\n'; exit 1")]),
    );
    t.wf(&["workflow-execute", "--ci"]).code(1);
    assert_valid_junit(&t, &t.wf(&["report", "junit"]).ok().stdout);
}

// ---- GitLab CI ----

#[test]
fn under_gitlab_ci_each_task_is_a_collapsible_section() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo compiled 3 files"),
            task("T2.x", "a").verify("echo 'oops: 1 > 0'; exit 2"),
            task("T3", "a").verify("true").deps("T2.x"),
        ]),
    );
    t.env("GITLAB_CI", "true");
    let run = t.wf(&["workflow-execute", "--ci", "-k"]).code(1);
    // WF_NOW pins the clock, so the sections' times are fixed.
    let shown = run.whole().replace('\x1b', "<ESC>").replace('\r', "<CR>");
    insta::assert_snapshot!(shown, @"
    exit: 1
    --- stdout
    CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop).
    ▶ T1 task T1
    <ESC>[0Ksection_start:1767866400:wf_T1_1[collapsed=true]<CR><ESC>[0K✓ T1 task T1 (N.Ns)
      --- last lines of [ROOT]/home/[ID]/logs/T1.1.log ---
      | $ echo compiled 3 files
      | compiled 3 files
    <ESC>[0Ksection_end:1767866400:wf_T1_1<CR><ESC>[0K
    ▶ T2.x task T2.x
    <ESC>[0Ksection_start:1767866400:wf_T2.x_1<CR><ESC>[0K✗ T2.x task T2.x: check `echo 'oops: 1 > 0'; exit 2` exited with 2
      --- last lines of [ROOT]/home/[ID]/logs/T2_2ex.1.log ---
      | $ echo 'oops: 1 > 0'; exit 2
      | oops: 1 > 0
    <ESC>[0Ksection_end:1767866400:wf_T2.x_1<CR><ESC>[0K
    --- stderr
    Failed: task T2.x failed: check `echo 'oops: 1 > 0'; exit 2` exited with 2
    Failed tasks: T2.x
    Not run (they depend on a failed task): T3
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
}

#[test]
fn under_gitlab_ci_a_verbose_run_shows_each_line_once() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("printf 'pass%s\\n' -line-42"),
            task("T2", "a").verify("printf 'fail%s\\n' -line-43; exit 2"),
        ]),
    );
    t.env("GITLAB_CI", "true");
    let run = t.wf(&["workflow-execute", "--ci", "-k", "-v"]).code(1);
    // What the checks print, which their command lines do not spell: streamed, and
    // not repeated in the sections.
    crate::test::assert_each_once(&run.stdout, &["pass-line-42", "fail-line-43"]);
    assert_eq!(run.stdout.matches("\x1b[0Ksection_end:").count(), 2);
    assert!(
        run.stdout.contains("  log: ") && run.stdout.contains("logs/T2.1.log"),
        "each section names its log: {}",
        run.stdout
    );
}

#[test]
fn a_task_name_cannot_forge_a_gitlab_section() {
    let mut t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks: forge\n\n## T1: x section_end:1:wf_T1_1\r\x1b[0K y\n- **阶段**: a\n- **需求**: do it\n- **验证命令**: `true`\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.env("GITLAB_CI", "true");
    let run = t.wf(&["workflow-execute", "--ci"]).ok();
    let markers: Vec<&str> = run.stdout.matches("\x1b[0Ksection_").collect();
    assert_eq!(markers.len(), 2, "{:?}", run.stdout);
    assert!(!run.stdout.contains("\r\x1b[0K y"), "{:?}", run.stdout);
}

#[test]
fn without_keep_going_a_retry_with_another_failure_left_is_refused_as_before() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("exit 1"),
            task("T2", "a").verify("exit 1"),
        ]),
    );
    t.wf(&["workflow-execute", "--ci", "-k"]).code(1);
    let run = t.wf(&["workflow-execute", "--ci", "--retry", "T1"]).code(1);
    assert!(
        run.stderr.contains("the workflow failed: 2 tasks failed"),
        "{}",
        run.stderr
    );
}

#[test]
fn keep_going_in_ci_goes_past_an_agent_task_it_cannot_hand_off() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").field("actions", "edit_file"),
            task("T2", "a").verify("echo T2 >> runs.log"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--ci", "-k"]).code(1);
    assert!(run.stderr.contains("Failed tasks: T1\n"), "{}", run.stderr);
    assert_eq!(t.read("runs.log"), "T2\n");
}

#[test]
fn resume_takes_keep_going_too() {
    let t = Test::new();
    start(&t, &a_plan_with_one_failure());
    t.config(r#"{"scripts": {"test": "true"}}"#);
    t.wf(&["resume", "--all", "--ci", "-k"]).code(1);
    assert_eq!(t.read("runs.log"), "T1\nT3\nT6\n");
}
