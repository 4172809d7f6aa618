//! `wf.export` in the project config (docs/distributed.md "Settings"): what a
//! pipeline needs besides the plan — runners, setup steps, triggers, timeouts,
//! variables, concurrency, how wf is installed — kept in the project so that
//! exporting again after a plan edit keeps it, checked strictly with the file and
//! line of a mistake, and `wf export --check` for a CI step that keeps the
//! committed pipeline in sync.

use crate::distributed::{assert_valid_pipeline, jobs_of};
use crate::plans::{add_changelog_constraint, plan, start, start_gated, task};
use crate::test::Test;

const CONFIG: &str = ".claude/config/project-config.json";

/// Every setting, each with a value that stands out in the exported file.
const EVERY_SETTING: &str = r#"{
  "wf": {
    "timeout_secs": 30,
    "export": {
      "install": "git:https://example.com/wf.git@0123abcd",
      "agent_tasks": "omit",
      "max_jobs": 50,
      "runs_on": ["self-hosted", "linux"],
      "image": "python:3.12",
      "tags": ["docker"],
      "setup": [
        {"name": "Python", "uses": "actions/setup-python@v6", "with": {"python-version": "3.12", "cache": "pip"}},
        {"name": "Dependencies", "run": "pip install -r requirements.txt"},
        {"name": "Node", "run": "npm ci", "phases": ["web"]},
        {"run": "make fixtures", "tasks": ["T2"]}
      ],
      "triggers": {"push": ["main", "release/*"], "pull_request": [], "workflow_dispatch": true},
      "timeout_minutes": 45,
      "env": {"MY_VAR": "hello"},
      "concurrency": {"group": "ci-wf-${{ github.ref }}", "cancel_in_progress": true},
      "cache": true
    }
  }
}
"#;

fn three() -> String {
    plan(&[
        task("T1", "api").verify("true"),
        task("T2", "web").verify("true").deps("T1"),
        task("T3", "web").verify("true").deps("T1"),
        task("T4", "api"),
    ])
}

fn export(t: &Test, target: &str, file: &str) -> String {
    t.wf(&["export", target, "-o", file]).ok();
    t.read(file)
}

/// The lines of `a` that `b` lacks, counted as a multiset.
fn removed<'a>(a: &'a str, b: &str) -> Vec<&'a str> {
    let mut left: Vec<&str> = b.lines().collect();
    a.lines()
        .filter(|l| match left.iter().position(|x| x == l) {
            Some(i) => {
                left.swap_remove(i);
                false
            }
            None => true,
        })
        .collect()
}

#[test]
fn every_setting_reaches_both_pipelines_and_survives_a_plan_edit() {
    let t = Test::new();
    t.write(CONFIG, EVERY_SETTING);
    start(&t, &three());
    let gh = export(&t, "github-actions", "gh.yml");
    let gl = export(&t, "gitlab-ci", "gl.yml");
    assert_valid_pipeline(&t.project.join("gh.yml"), "vendor.github-workflows");
    assert_valid_pipeline(&t.project.join("gl.yml"), "vendor.gitlab-ci");
    for needle in [
        "with the wf.export settings of .claude/config/project-config.json:\n#   install, agent_tasks, max_jobs, runs_on, image, tags, setup, triggers, timeout_minutes, env, concurrency, cache.",
        "    runs-on:\n      - self-hosted\n      - linux\n",
        "      - name: Python\n        uses: actions/setup-python@v6\n        with:\n          cache: pip\n          python-version: \"3.12\"\n",
        "      - name: Dependencies\n        run: pip install -r requirements.txt\n",
        "on:\n  push:\n    branches:\n      - main\n      - release/*\n  pull_request: {}\n  workflow_dispatch: {}\n",
        "    timeout-minutes: 45\n",
        "  MY_VAR: hello\n",
        "concurrency:\n  group: ci-wf-${{ github.ref }}\n  cancel-in-progress: true\n",
        "key: wf-git-0123abcd-${{ runner.os }}",
        // The verification cache, restored before the tasks and kept after them.
        "      - name: Restore the verification cache\n        uses: actions/cache/restore@v6\n        with:\n          path: .wf-cache\n          key: wf-verify-task-T1-${{ github.run_id }}-${{ github.run_attempt }}\n          restore-keys: wf-verify-task-T1-\n",
        "--cache .wf-cache -- 'T1'",
        "      - name: Keep the verification cache\n        if: always()\n        uses: actions/cache/save@v6\n        with:\n          path: .wf-cache\n          key: wf-verify-task-T1-${{ github.run_id }}-${{ github.run_attempt }}\n",
        // T4 needs an agent, and agent_tasks is omit.
        "#   T4: it needs an agent (--agent-tasks omit)\n",
    ] {
        assert!(gh.contains(needle), "{needle:?} not in:\n{gh}");
    }
    // Scoped steps: `npm ci` only in the web phase's jobs, `make fixtures` only in
    // T2's; the collect job gets the steps for every job.
    for (job, _, runs) in jobs_of(&gh, false) {
        let has = |c: &str| runs.iter().any(|r| r == c);
        assert_eq!(has("npm ci"), job == "task-T2" || job == "task-T3", "{job}");
        assert_eq!(has("make fixtures"), job == "task-T2", "{job}");
        assert!(
            has("pip install -r requirements.txt") || job == "build",
            "{job}"
        );
    }
    for needle in [
        "workflow:\n  rules:\n    - if: $CI_PIPELINE_SOURCE == \"push\" && $CI_COMMIT_BRANCH == \"main\"\n    - if: $CI_PIPELINE_SOURCE == \"push\" && $CI_COMMIT_BRANCH =~ /^release\\/.*$/\n    - if: $CI_PIPELINE_SOURCE == \"merge_request_event\"\n    - if: $CI_PIPELINE_SOURCE == \"web\"\n  auto_cancel:\n    on_new_commit: interruptible\n",
        "default:\n  image: python:3.12\n  tags:\n    - docker\n  interruptible: true\n",
        "  timeout: 45 minutes\n",
        "    - pip install -r requirements.txt\n",
        "  MY_VAR: hello\n",
        "  cache:\n    key: wf-git-0123abcd\n",
        "  cache:\n    key: wf-verify-task-T1\n    paths:\n      - .wf-cache/\n    when: always\n",
        "    - wf run-task --ci --result-dir 'results/task-T1' --cache .wf-cache -- 'T1'\n",
        "Note: wf.export.setup[0] uses the GitHub action actions/setup-python@v6, which GitLab has not",
    ] {
        assert!(gl.contains(needle), "{needle:?} not in:\n{gl}");
    }
    assert!(!gl.contains("uses:"), "{gl}");

    // The plan changes: a task added, a command edited. Exported again, no line a
    // setting wrote is gone; and with the edit undone, the files are as they were.
    let original = t.read("tasks.md");
    let edited = plan(&[
        task("T1", "api").verify("echo changed"),
        task("T2", "web").verify("true").deps("T1"),
        task("T3", "web").verify("true").deps("T1"),
        task("T4", "api"),
        task("T5", "api").verify("true").deps("T3"),
    ]);
    t.write("tasks.md", &edited);
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let gh2 = export(&t, "github-actions", "gh2.yml");
    let gl2 = export(&t, "gitlab-ci", "gl2.yml");
    for (before, after) in [(&gh, &gh2), (&gl, &gl2)] {
        let gone = removed(before, after);
        assert!(
            gone.iter().all(|l| !l.contains("MY_VAR")
                && !l.contains("pip install")
                && !l.contains("setup-python")
                && !l.contains("self-hosted")
                && !l.contains("45")
                && !l.contains("main")
                && !l.contains("ci-wf")
                && !l.contains("python:3.12")
                && !l.contains("docker")
                && !l.contains("wf-verify")),
            "a setting's line is gone after the plan edit: {gone:?}"
        );
        assert!(after.contains("T5"), "{after}");
    }
    t.write("tasks.md", &original);
    t.wf(&["workflow-start", "tasks.md", "--force"]).ok();
    assert_eq!(export(&t, "github-actions", "gh3.yml"), gh);
    assert_eq!(export(&t, "gitlab-ci", "gl3.yml"), gl);
}

#[test]
fn check_exits_1_when_the_committed_pipeline_is_out_of_date() {
    let t = Test::new();
    start(&t, &three());
    let file = ".github/workflows/wf.yml";
    t.wf(&["export", "github-actions", "--install", "path", "-o", file])
        .ok();
    let check = |more: &[&str]| {
        let mut args = vec![
            "export",
            "github-actions",
            "--install",
            "path",
            "--check",
            "-o",
            file,
        ];
        args.extend(more);
        t.wf(&args)
    };
    let run = check(&[]).ok();
    assert_eq!(run.stdout.trim(), format!("{file} is up to date"));
    let before = t.read(file);
    // A setting changes: the file is out of date, and --check leaves it alone.
    t.write(CONFIG, r#"{"wf": {"export": {"timeout_minutes": 9}}}"#);
    let run = check(&[]).code(1);
    assert!(
        run.stderr
            .contains(&format!("{file} is out of date: line "))
            && run
                .stderr
                .contains("export it again with the same command without --check"),
        "{}",
        run.stderr
    );
    assert_eq!(t.read(file), before);
    let doc = check(&["--json"]).code(1).json();
    assert_eq!(doc["up_to_date"], false);
    // A missing file is out of date too; --check without -o is refused.
    t.wf(&["export", "gitlab-ci", "--check", "-o", ".gitlab-ci.yml"])
        .code(1);
    t.wf(&["export", "gitlab-ci", "--check"]).code(2);
}

#[test]
fn a_mistake_in_the_settings_names_the_file_the_line_and_the_fix() {
    let t = Test::new();
    start(&t, &three());
    for (config, says) in [
        (
            "{\"wf\": {\"export\": {\n  \"runs-on\": \"linux\"}}}",
            "unknown field `runs-on`, expected one of",
        ),
        (
            "{\"wf\": {\"export\": {\n  \"runs-on\": \"linux\"}}}",
            "did you mean `runs_on`?",
        ),
        (
            "{\"wf\": {\"export\": {\n  \"timeout_minutes\": 0}}}",
            ":2:3: wf.export.timeout_minutes is 0, outside 1..=4320",
        ),
        (
            "{\"wf\": {\"export\": {\n  \"agent_tasks\": \"skip\"}}}",
            ":2:3: wf.export.agent_tasks is \"skip\"; use \"fail\"",
        ),
        (
            "{\"wf\": {\"export\": {\"setup\": [{\"uses\": \"a/b@v1\", \"run\": \"x\"}]}}}",
            "setup[0] needs exactly one of \"uses\" (a GitHub action) or \"run\" (a shell line)",
        ),
        (
            "{\"wf\": {\"export\": {\"env\": {\"WF_HOME\": \"x\"}}}}",
            "env sets WF_HOME, which the pipeline sets itself",
        ),
        (
            "{\"wf\": {\"export\": {\"triggers\": {\"push\": [\"ma in\"]}}}}",
            "triggers.push names the branch \"ma in\"",
        ),
        (
            "{\"wf\": {\"export\": {\"install\": \"git:https://x/wf.git@main\"}}}",
            "wf.export.install: --install \"git:https://x/wf.git@main\": pin a commit id",
        ),
    ] {
        t.write(CONFIG, config);
        let before = t.workflow_files();
        let run = t.wf(&["export", "github-actions"]).code(2);
        let line = run.stderr.trim();
        assert!(line.contains(says), "{config}: {line}");
        assert!(line.contains("project-config.json"), "{line}");
        assert_eq!(line.lines().count(), 1, "{line}");
        assert_eq!(t.workflow_files(), before);
    }
}

#[test]
fn deferred_tasks_are_skipped_and_agent_tasks_are_named_at_export() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").field("状态", "deferred").verify("false"),
            task("T3", "a").verify("true").deps("T2"),
            task("T4", "a").deps("T1"),
        ]),
    );
    let run = t
        .wf(&["export", "github-actions", "--install", "path"])
        .ok();
    // T2 is not run; T3, after it, is, without waiting for it.
    assert!(!run.stdout.contains("'T2'"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("#   T2: the plan skips it (deferred); its dependants run without it\n"),
        "{}",
        run.stdout
    );
    let jobs = jobs_of(&run.stdout, false);
    let t3 = jobs.iter().find(|(id, _, _)| id == "task-T3").unwrap();
    assert!(t3.1.is_empty(), "{t3:?}");
    // T4 needs an agent: said at export, on stderr and in the file.
    assert!(
        run.stderr
            .contains("note: T4 needs an agent: each job fails its task (--agent-tasks fail)"),
        "{}",
        run.stderr
    );
    assert!(
        run.stdout.contains("# Note: T4 needs an agent"),
        "{}",
        run.stdout
    );
    let doc = t
        .wf(&["export", "gitlab-ci", "--install", "path", "--json"])
        .ok()
        .json();
    assert_eq!(doc["skipped"], serde_json::json!(["T2"]));
    assert_eq!(doc["agent_tasks"], serde_json::json!(["T4"]));
}

#[test]
fn a_gate_whose_hard_constraints_stay_on_this_machine_is_named_at_export() {
    // Constraints added with `wf constraints add` live in this machine's workflow; a
    // CI job imports the plan afresh, so its gate cannot run them. Said, with where
    // they are checked, and not said when there is no gate.
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start_gated(&t);
    let quiet = t
        .wf(&["export", "github-actions", "--install", "path"])
        .ok();
    assert!(
        !quiet.stderr.contains("hard constraints"),
        "{}",
        quiet.stderr
    );
    add_changelog_constraint(&t, &[]);
    let run = t
        .wf(&["export", "github-actions", "--install", "path"])
        .ok();
    let said = "the job of quality gate T2 does not run the hard constraints C001: they are in this machine's workflow only, and a CI job imports the plan afresh; commit them with `wf constraints add --project-config`";
    assert!(run.stderr.contains(said), "{}", run.stderr);
    assert!(
        run.stdout.contains("# Note: the job of quality gate T2"),
        "{}",
        run.stdout
    );
}

#[test]
fn check_for_ci_warns_of_a_file_a_job_would_not_be_handed() {
    let t = Test::new();
    let text = "# Tasks: x\n\n## T1: Build the bundle\n- **阶段**: b\n- **需求**: Write dist/app.js with the bundler.\n- **验证命令**: `mkdir -p dist && echo x > dist/app.js`\n\n## T2: Ship it\n- **阶段**: b\n- **依赖**: T1\n- **需求**: Upload dist/app.js.\n- **验证命令**: `test -f dist/app.js`\n";
    t.write("tasks.md", text);
    // Without --for-ci, nothing to say of it; with it, a warning on T2's line.
    let says = "tasks.md:8: warning: task T2 names dist/app.js, which T1 (upstream) names too but does not declare it writes";
    assert!(!t.wf(&["check", "tasks.md"]).ok().stdout.contains(says));
    let run = t.wf(&["check", "--for-ci", "tasks.md"]).ok();
    assert!(run.stdout.contains(says), "{}", run.stdout);
    let doc = t
        .wf(&["check", "--for-ci", "tasks.md", "--json"])
        .ok()
        .json();
    assert!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["kind"] == "ci" && f["task"] == "T2"),
        "{doc}"
    );
    // Declared, it is handed on: no warning.
    t.write(
        "tasks.md",
        text.replace(
            "- **需求**: Write dist/app.js",
            "- **创建文件**: dist/app.js\n- **需求**: Write dist/app.js",
        ),
    );
    let run = t.wf(&["check", "--for-ci", "tasks.md"]).ok();
    assert!(!run.stdout.contains("names dist/app.js"), "{}", run.stdout);
}
