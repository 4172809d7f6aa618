//! `wf doctor`: one line per check, exit 1 on a problem, and nothing written.

use crate::test::{snapshot_dir, Test};

/// A project set up by `wf init`, its starter plan imported, and the `wf` its hooks
/// run on PATH.
fn healthy() -> Test {
    let mut t = Test::new();
    let path = std::env::var("PATH").unwrap_or_default();
    t.env("PATH", format!("{}:{path}", wf_dir()));
    t.wf(&["init", "--quiet"]).ok();
    t.wf(&["workflow-start", "tasks.md", "--quiet"]).ok();
    t
}

/// Runs `wf doctor ARGS` and checks it wrote nothing in the project or the home.
fn doctor(t: &Test, args: &[&str]) -> crate::test::Run {
    let before = (snapshot_dir(&t.project), snapshot_dir(&t.home));
    let mut full = vec!["doctor"];
    full.extend_from_slice(args);
    let run = t.wf(&full);
    assert_eq!(
        (snapshot_dir(&t.project), snapshot_dir(&t.home)),
        before,
        "doctor wrote something"
    );
    run
}

#[test]
fn doctor_on_a_healthy_project() {
    let t = healthy();
    let run = doctor(&t, &[]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ok       config       .claude/config/project-config.json reads, its wf section checked
    ok       executors    none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do
    ok       hooks        SessionStart, UserPromptSubmit, Stop run `wf hook` (.claude/settings.json)
    ok       state        starter plan: planned, 3 tasks
    ok       constraints  no constraint has a verifyCmd
    ok       lock         free
    No problems found.
    --- stderr
    ");
}

#[test]
fn doctor_with_a_bad_config_names_its_line_and_still_checks_the_rest() {
    let t = Test::new();
    t.config("{\n  \"wf\": {\n    \"timout_secs\": 60\n  }\n}\n");
    let run = doctor(&t, &[]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    problem  config       [ROOT]/project/.claude/config/project-config.json:3:17: invalid project config: unknown field `timout_secs`, expected one of `timeout_secs`, `max_retries`, `context_window_tokens`, `budget_tokens`, `budget_usd`, `task_budget_tokens`, `task_budget_usd`, `prices`, `log_cap_bytes`, `hook_timeout_secs`, `hook_max_blocks`, `block_subagent_stop`, `allowed_command_prefixes`, `reject_undeclared_changes`, `uncached_tasks`, `test_command`, `checks`, `require_checks`, `pause_at`, `max_consecutive_agent_tasks`, `executors`, `classify`, `blockers`, `verifiers`, `capabilities`, `export`, `constraints`, `agents` at line 3 column 17; did you mean `timeout_secs`?; fix: correct .claude/config/project-config.json where the message points; every command but init and doctor refuses to start until then
    warning  executors    not checked: the config does not read; fix: run `wf doctor` again once the problem above is fixed
    warning  hooks        no `wf hook` for SessionStart, UserPromptSubmit, Stop in Claude Code's settings: an agent in Claude Code is not given the task's brief, nor kept working while its checks fail; fix: `wf init` merges them into .claude/settings.json (every other setting kept); without Claude Code, ignore this
    warning  state        not checked: the config does not read, so the workflow is unknown; fix: run `wf doctor` again once the problem above is fixed
    warning  constraints  not checked: the config does not read; fix: run `wf doctor` again once the problem above is fixed
    warning  lock         not checked: the config does not read, so the workflow is unknown; fix: run `wf doctor` again once the problem above is fixed
    1 problem (exit 1), 5 warnings.
    --- stderr
    ");
}

#[test]
fn doctor_with_a_missing_executor() {
    let t = healthy();
    t.config(
        r#"{"wf": {"executors": [{"name": "ghost", "command": ["wf-no-such-agent", "-p"], "capabilities": ["implement"]}]}}"#,
    );
    let run = doctor(&t, &[]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ok       config       .claude/config/project-config.json reads, its wf section checked
    problem  executors    wf.executors[0] (ghost): `wf-no-such-agent` is not on PATH; fix: install it or add its directory to PATH, or correct its command in wf.executors of .claude/config/project-config.json; a task given to it fails
    ok       hooks        SessionStart, UserPromptSubmit, Stop run `wf hook` (.claude/settings.json)
    ok       state        starter plan: planned, 3 tasks
    ok       constraints  no constraint has a verifyCmd
    ok       lock         free
    1 problem (exit 1), 0 warnings.
    --- stderr
    ");
}

#[test]
fn doctor_without_hooks_warns_and_exits_0() {
    let t = healthy();
    std::fs::remove_file(t.project.join(".claude/settings.json")).unwrap();
    let run = doctor(&t, &[]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ok       config       .claude/config/project-config.json reads, its wf section checked
    ok       executors    none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do
    warning  hooks        no `wf hook` for SessionStart, UserPromptSubmit, Stop in Claude Code's settings: an agent in Claude Code is not given the task's brief, nor kept working while its checks fail; fix: `wf init` merges them into .claude/settings.json (every other setting kept); without Claude Code, ignore this
    ok       state        starter plan: planned, 3 tasks
    ok       constraints  no constraint has a verifyCmd
    ok       lock         free
    No problems found; 1 warning.
    --- stderr
    ");
}

#[test]
fn doctor_reports_a_verify_cmd_that_verify_would_refuse() {
    let t = healthy();
    // A model's constraint set: merge takes it as it is.
    t.write(
        "codex.json",
        r#"{"hard": [
            {"id": "C001", "description": "the build is clean", "sourceModel": "codex", "verifyCmd": "cargo build"},
            {"id": "C002", "description": "no stray files", "sourceModel": "codex", "verifyCmd": "rm -rf tmp"}
        ]}"#,
    );
    t.wf(&["constraints", "merge", "codex.json", "--quiet"])
        .ok();
    let run = doctor(&t, &[]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ok       config       .claude/config/project-config.json reads, its wf section checked
    ok       executors    none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do
    ok       hooks        SessionStart, UserPromptSubmit, Stop run `wf hook` (.claude/settings.json)
    ok       state        starter plan: planned, 3 tasks
    problem  constraints  verify will refuse to run this verifyCmd: C002 `rm -rf tmp` (no allowed prefix); fix: add the prefix to wf.allowed_command_prefixes in .claude/config/project-config.json (a list set there replaces the defaults), or replace the command: `wf constraints remove ID`, then `wf constraints add … --verify-cmd CMD`
    ok       lock         free
    1 problem (exit 1), 0 warnings.
    --- stderr
    ");
}

#[test]
fn doctor_with_a_corrupt_state_is_a_problem_not_a_crash() {
    let t = healthy();
    std::fs::write(
        t.workflow_dir().join("workflow-state.json"),
        "{\n  \"status\": \"runn",
    )
    .unwrap();
    let run = doctor(&t, &[]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ok       config       .claude/config/project-config.json reads, its wf section checked
    ok       executors    none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do
    ok       hooks        SessionStart, UserPromptSubmit, Stop run `wf hook` (.claude/settings.json)
    problem  state        [ROOT]/home/[ID]/workflow-state.json:2:17: the state file is not valid JSON (EOF while parsing a string at line 2 column 17); the file was left as it was (restore a backup-*.json or start again with `wf workflow-start --force`); fix: restore a backup-*.json of [ROOT]/home/[ID] over it, or start again with `wf workflow-start --force PLAN`; every command that reads the state refuses until then
    warning  constraints  not checked: the state does not read; fix: run `wf doctor` again once the problem above is fixed
    ok       lock         free
    1 problem (exit 1), 1 warning.
    --- stderr
    ");
}

#[test]
fn doctor_with_a_stale_lock_warns_and_leaves_it() {
    let t = healthy();
    std::fs::write(t.workflow_dir().join(".lock"), "4242 (workflow-execute)\n").unwrap();
    let run = doctor(&t, &[]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    ok       config       .claude/config/project-config.json reads, its wf section checked
    ok       executors    none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do
    ok       hooks        SessionStart, UserPromptSubmit, Stop run `wf hook` (.claude/settings.json)
    ok       state        starter plan: planned, 3 tasks
    ok       constraints  no constraint has a verifyCmd
    warning  lock         stale: [ROOT]/home/[ID]/.lock names wf process 4242 (workflow-execute), which ended without releasing it (it was killed); the kernel freed the lock with it, so nothing waits on it; fix: nothing to delete: the next command that writes (`wf resume` after a run) recovers what it left
    No problems found; 1 warning.
    --- stderr
    ");
    // It blocks nothing: the next writer takes the lock.
    t.wf(&["workflow-execute", "--all", "--quiet"]).ok();
}

#[test]
fn doctor_json_on_a_healthy_project() {
    let t = healthy();
    let run = doctor(&t, &["--json"]);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
    {
      "schemaVersion": 2,
      "checks": [
        {
          "name": "config",
          "status": "ok",
          "message": ".claude/config/project-config.json reads, its wf section checked",
          "fix": null
        },
        {
          "name": "executors",
          "status": "ok",
          "message": "none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do",
          "fix": null
        },
        {
          "name": "hooks",
          "status": "ok",
          "message": "SessionStart, UserPromptSubmit, Stop run `wf hook` (.claude/settings.json)",
          "fix": null
        },
        {
          "name": "state",
          "status": "ok",
          "message": "starter plan: planned, 3 tasks",
          "fix": null
        },
        {
          "name": "constraints",
          "status": "ok",
          "message": "no constraint has a verifyCmd",
          "fix": null
        },
        {
          "name": "lock",
          "status": "ok",
          "message": "free",
          "fix": null
        }
      ],
      "ok": true
    }
    --- stderr
    "#);
}

#[test]
fn doctor_json_with_problems() {
    let t = healthy();
    t.config(r#"{"wf": {"timeout_secs": 0}}"#);
    let run = doctor(&t, &["--json"]);
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 1
    --- stdout
    {
      "schemaVersion": 2,
      "checks": [
        {
          "name": "config",
          "status": "problem",
          "message": "[ROOT]/project/.claude/config/project-config.json:1:9: wf.timeout_secs is 0, outside 1..=604800; set it within that range or remove it",
          "fix": "correct .claude/config/project-config.json where the message points; every command but init and doctor refuses to start until then"
        },
        {
          "name": "executors",
          "status": "warning",
          "message": "not checked: the config does not read",
          "fix": "run `wf doctor` again once the problem above is fixed"
        },
        {
          "name": "hooks",
          "status": "ok",
          "message": "SessionStart, UserPromptSubmit, Stop run `wf hook` (.claude/settings.json)",
          "fix": null
        },
        {
          "name": "state",
          "status": "warning",
          "message": "not checked: the config does not read, so the workflow is unknown",
          "fix": "run `wf doctor` again once the problem above is fixed"
        },
        {
          "name": "constraints",
          "status": "warning",
          "message": "not checked: the config does not read",
          "fix": "run `wf doctor` again once the problem above is fixed"
        },
        {
          "name": "lock",
          "status": "warning",
          "message": "not checked: the config does not read, so the workflow is unknown",
          "fix": "run `wf doctor` again once the problem above is fixed"
        }
      ],
      "ok": false
    }
    --- stderr
    "#);
    assert_eq!(run.json()["ok"], false);
}

#[test]
fn doctor_quiet_prints_only_the_problems() {
    let t = healthy();
    std::fs::remove_file(t.project.join(".claude/settings.json")).unwrap();
    doctor(&t, &["-q"]).ok();
    t.config(r#"{"wf": {"timeout_secs": 0}}"#);
    let run = doctor(&t, &["-q"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    --- stderr
    problem  config  [ROOT]/project/.claude/config/project-config.json:1:9: wf.timeout_secs is 0, outside 1..=604800; set it within that range or remove it; fix: correct .claude/config/project-config.json where the message points; every command but init and doctor refuses to start until then
    ");
}

/// Hooks that run a `wf` the shell cannot find fail on every prompt: doctor says so,
/// whether the hook names `wf` to be found on PATH or a path that is not there.
#[test]
fn doctor_reports_the_hooks_broken_when_the_wf_they_run_is_not_on_path() {
    let mut t = healthy();
    let empty = t.root.join("empty-bin");
    std::fs::create_dir(&empty).unwrap();
    t.env("PATH", empty.to_str().unwrap());
    let run = doctor(&t, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let hooks = run
        .stdout
        .lines()
        .find(|l| l.contains("hooks"))
        .unwrap_or_default()
        .to_string();
    assert!(hooks.starts_with("problem  hooks"), "{}", run.stdout);
    assert!(hooks.contains("`wf` is not on PATH"), "{hooks}");
    // Named by a path that does not exist: broken too.
    let mut t = healthy();
    let settings = t
        .read(".claude/settings.json")
        .replace("\"wf hook Stop\"", "\"/nowhere/bin/wf hook Stop\"");
    t.write(".claude/settings.json", settings);
    t.env("PATH", wf_dir());
    let run = doctor(&t, &[]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert!(run.stdout.contains("/nowhere/bin/wf"), "{}", run.stdout);
}

/// The directory of the `wf` under test, for a PATH on which hooks find it.
fn wf_dir() -> String {
    std::path::Path::new(env!("CARGO_BIN_EXE_wf"))
        .parent()
        .unwrap()
        .display()
        .to_string()
}
