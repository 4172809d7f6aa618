//! `wf import-results` as a door into the workflow (docs/distributed.md "What a
//! result is trusted for"): an import stopped anywhere leaves the old workflow or the
//! new one; a result that cannot be true, a truncated or oversized file, a result
//! computed on another tree, one planted in another job's directory, an unsigned one
//! when a key is set — each is refused, naming why; a quality gate from CI is checked
//! again against this machine's hard constraints; a local failure is never overridden
//! without a word.

use serde_json::Value;
use wf::run::standalone::TaskResultFile;

use crate::plans::{
    add_changelog_constraint, plan, start, start_gated, statuses, task, task_status,
};
use crate::test::Test;

use crate::distributed::run_tasks;

/// Rewrites a result through `edit` with a `result_id` that matches the edit, as
/// anyone who can compute an MD5 can: only the checks of what a result may say
/// stand in the way.
pub fn forge(t: &Test, rel: &str, edit: impl FnOnce(&mut TaskResultFile)) {
    let mut r = read_result(t, rel);
    edit(&mut r);
    r.result_id = r.content_id();
    t.write(rel, serde_json::to_string_pretty(&r).unwrap());
}

fn read_result(t: &Test, rel: &str) -> TaskResultFile {
    serde_json::from_str(&t.read(rel)).expect("a result")
}

/// A failed result of one check made to say it passed, its check too.
pub fn as_a_pass(r: &mut TaskResultFile) {
    r.success = true;
    r.verified = true;
    r.reason = None;
    r.checks[0].run.exit_code = Some(0);
    r.checks[0].run.outcome = "exited with 0".into();
}

/// Imports `path`, which must be refused for `id` (exit 2): the reason.
fn refusal(t: &Test, path: &str, id: &str) -> String {
    let doc = t.wf(&["import-results", path, "--json"]).code(2).json();
    let (fate, reason) = fate_of(&doc, id);
    assert_eq!(fate, "refused", "{id}: {reason}");
    reason
}

fn fate_of(doc: &Value, id: &str) -> (String, String) {
    let r = doc["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["task_id"] == id)
        .unwrap_or_else(|| panic!("no result for {id} in {doc}"));
    (
        r["fate"].as_str().unwrap_or("").to_string(),
        r["reason"].as_str().unwrap_or("").to_string(),
    )
}

// ---- item 1: an interrupted import ----

fn three_tasks() -> String {
    plan(&[
        task("T1", "a").verify("echo T1 >> runs.log"),
        task("T2", "a").verify("echo T2 >> runs.log").deps("T1"),
        task("T3", "a").verify("echo T3 >> runs.log"),
    ])
}

#[test]
fn regression_an_import_killed_mid_task_stranded_it() {
    // Killed (SIGXFSZ: a full disk and a kill at once) anywhere in an import, the
    // next import refused the stranded task ("settle it with `wf resume` first") or
    // called its result a duplicate and exited 0, the workflow `running` for good,
    // and `wf resume` ran the task here.
    let t = Test::new();
    start(&t, &three_tasks());
    run_tasks(&t, &["T1", "T2", "T3"]);
    std::fs::remove_file(t.project.join("runs.log")).unwrap();
    let saved = t.root.join("saved");
    for name in ["home", "project"] {
        crate::faults::copy_tree(&t.root.join(name), &saved.join(name));
    }
    let events = t.workflow_dir().join("events.jsonl");
    let base = std::fs::metadata(&events).map_or(0, |m| m.len());
    let mut kills = 0;
    for extra in (0..6000).step_by(97) {
        crate::faults::restore(&t, &saved);
        if !crate::crash::run_with_file_limit(&t, &["import-results", "results"], base + extra) {
            break;
        }
        kills += 1;
        let again = t.wf(&["import-results", "results"]);
        assert_eq!(
            again.code,
            0,
            "killed at +{extra} bytes, the next import: {}",
            again.whole()
        );
        let state = t.state();
        assert_eq!(state["status"], "completed", "killed at +{extra} bytes");
        assert!(statuses(&state).iter().all(|(_, s)| s == "completed"));
        t.wf(&["resume", "--ci"]);
        assert!(
            !t.project.join("runs.log").exists(),
            "killed at +{extra} bytes: a task ran here after the import"
        );
        crate::plans::assert_invariants(&t);
    }
    assert!(kills > 3, "only {kills} kill points");
}

#[test]
fn an_import_settles_a_workflow_left_running_even_when_nothing_new_applies() {
    let t = Test::new();
    start(&t, &three_tasks());
    run_tasks(&t, &["T1", "T2", "T3"]);
    t.wf(&["import-results", "results"]).ok();
    // What an import stopped before its last step left (by a wf before this one).
    let mut state = t.state_file();
    state["status"] = "running".into();
    t.write_state(&state);
    assert_eq!(t.state()["status"], "running");
    let doc = t.wf(&["import-results", "results", "--json"]).ok().json();
    assert_eq!(fate_of(&doc, "T1").0, "duplicate");
    assert_eq!(t.state()["status"], "completed");
}

// ---- item 2: results that cannot be true ----

#[test]
fn regression_a_result_that_cannot_be_true_was_applied() {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("false"),
            task("T2", "a").verify("true"),
            task("T3", "a"),
        ]),
    );
    run_tasks(&t, &["T1", "T2", "T3"]);
    // Success with a check that exited 1.
    forge(&t, "results/T1.json", |r| {
        r.success = true;
        r.verified = true;
        r.reason = None;
    });
    // A task with a check, passed with none.
    forge(&t, "results/T2.json", |r| r.checks.clear());
    // An agent task passed with no work checked.
    forge(&t, "results/T3.json", |r| {
        r.success = true;
        r.verified = false;
        r.needs_agent = false;
        r.reason = None;
    });
    let doc = t
        .wf(&["import-results", "results", "--json"])
        .code(2)
        .json();
    for (id, why) in [
        ("T1", "it says it passed, but check `false` exited with 1"),
        ("T2", "it ran no check, but task T2 has 1: `true`"),
        ("T3", "task T3 needs an agent"),
    ] {
        let (fate, reason) = fate_of(&doc, id);
        assert_eq!(fate, "refused", "{id}: {reason}");
        assert!(reason.contains(why), "{id}: {reason}");
    }
    assert!(statuses(&t.state()).iter().all(|(_, s)| s == "pending"));
}

#[test]
fn regression_a_truncated_result_was_ignored_with_exit_0() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    run_tasks(&t, &["T1"]);
    let text = t.read("results/T1.json");
    t.write("results/T1.json", &text[..text.len() / 2]);
    let before = t.workflow_files();
    let run = t.wf(&["import-results", "results"]).code(2);
    assert!(
        run.stderr.contains("results/T1.json:") && run.stderr.contains("truncated or not JSON"),
        "{}",
        run.stderr
    );
    assert_eq!(t.workflow_files(), before);
}

#[test]
fn regression_an_oversized_result_was_read_whole() {
    // A 1 GB file was read into memory: under a 512 MB address-space limit the
    // import died; it must be refused from its size.
    use std::os::unix::process::CommandExt;
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    std::fs::create_dir_all(t.project.join("results")).unwrap();
    let big = std::fs::File::create(t.project.join("results/T1.json")).unwrap();
    big.set_len(1 << 30).unwrap();
    let mut cmd = t.command(&["import-results", "results"]);
    // SAFETY: setrlimit is async-signal-safe and touches only this child.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: 512 << 20,
                rlim_max: 512 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &raw const limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let out = cmd.output().expect("run wf");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("results/T1.json: 1073741824 bytes, over the limit"),
        "{stderr}"
    );
}

// ---- issue 47: what a result is trusted for ----

#[test]
fn regression_a_result_from_another_tree_was_applied() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify("grep -q good src/a.txt")
            .field("file", "src/a.txt")]),
    );
    t.write("src/a.txt", "good\n");
    run_tasks(&t, &["T1"]);
    // The tree changes before the import: the result is about a file that is gone.
    t.write("src/a.txt", "bad\n");
    let reason = refusal(&t, "results", "T1");
    assert!(
        reason.contains("it ran on another tree: src/a.txt differs"),
        "{reason}"
    );
    assert_eq!(task_status(&t.state(), "T1"), "pending");
    // --allow-stale imports it, and says so.
    let run = t.wf(&["import-results", "results", "--allow-stale"]).ok();
    assert!(
        run.stdout.contains(
            "✓ T1 completed (results/T1.json; stale: it ran on another tree: src/a.txt differs)"
        ),
        "{}",
        run.whole()
    );
    assert_eq!(task_status(&t.state(), "T1"), "completed");
}

#[test]
fn a_result_from_another_commit_is_refused() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    t.git_commit_all();
    run_tasks(&t, &["T1"]);
    t.write("later.txt", "x");
    t.git_commit_all();
    let reason = refusal(&t, "results", "T1");
    assert!(reason.contains("it ran on commit "), "{reason}");
}

#[test]
fn regression_with_a_key_set_unsigned_and_forged_results_were_applied() {
    let mut t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("true"),
            task("T2", "a").verify("false"),
        ]),
    );
    // Unsigned: run where no key was set.
    run_tasks(&t, &["T1"]);
    t.env("WF_RESULT_KEY", "s3cret");
    // Signed, then edited by one without the key: the signature kept.
    run_tasks(&t, &["T2"]);
    let mut r = read_result(&t, "results/T2.json");
    as_a_pass(&mut r);
    t.write("results/T2.json", serde_json::to_string_pretty(&r).unwrap());
    // And re-signed the only way one without the key can: an MD5.
    t.write("other/T2.json", t.read("results/T2.json"));
    forge(&t, "other/T2.json", |_| {});
    let reason = refusal(&t, "results/T1.json", "T1");
    assert!(reason.contains("it is not signed"), "{reason}");
    let reason = refusal(&t, "results/T2.json", "T2");
    assert!(reason.contains("its signature does not match"), "{reason}");
    let reason = refusal(&t, "other", "T2");
    assert!(reason.contains("it is not signed"), "{reason}");
    assert!(statuses(&t.state()).iter().all(|(_, s)| s == "pending"));
}

#[test]
fn the_checks_never_see_the_key() {
    let mut t = Test::new();
    t.config(r#"{"wf": {"allowed_command_prefixes": ["sh"]}}"#);
    t.write("probe.sh", "test -z \"$WF_RESULT_KEY\"\n");
    start(&t, &plan(&[task("T1", "a").verify("sh probe.sh")]));
    t.env("WF_RESULT_KEY", "s3cret");
    t.wf(&["run-task", "T1", "--result", "probe.json"]).ok();
}

#[test]
fn signed_results_import_with_the_key_and_are_refused_without_it() {
    let mut t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    t.env("WF_RESULT_KEY", "s3cret");
    run_tasks(&t, &["T1"]);
    assert!(
        t.read("results/T1.json")
            .contains("\"result_id\": \"hmac-sha256:"),
        "{}",
        t.read("results/T1.json")
    );
    let run = t
        .command(&["import-results", "results", "--json"])
        .env_remove("WF_RESULT_KEY")
        .output()
        .unwrap();
    let doc: Value = serde_json::from_slice(&run.stdout).unwrap();
    let (fate, reason) = fate_of(&doc, "T1");
    assert_eq!(fate, "refused");
    assert!(reason.contains("set WF_RESULT_KEY"), "{reason}");
    t.wf(&["import-results", "results"]).ok();
    assert_eq!(task_status(&t.state(), "T1"), "completed");
}

#[test]
fn regression_an_imported_gate_skipped_this_machines_hard_constraints() {
    let t = Test::new();
    t.config(r#"{"scripts": {"test": "true"}}"#);
    start_gated(&t);
    // The gate passes where it ran (no hard constraint there) ...
    run_tasks(&t, &["T1", "T2"]);
    // ... and this workflow has one that does not hold.
    add_changelog_constraint(&t, &[]);
    t.wf(&["import-results", "results"]).code(1);
    let state = t.state();
    assert_ne!(state["status"], "completed");
    assert_eq!(task_status(&state, "T2"), "failed");
    assert_eq!(
        state["quality_gates"]["T2"]["constraints"]["C001"],
        "failed"
    );
    // With the constraint met, a new import of the same results completes it.
    t.write("CHANGELOG.md", "- first\n");
    run_tasks(&t, &["T2"]);
    t.wf(&["import-results", "results/T2.json"]).ok();
    assert_eq!(t.state()["status"], "completed");
}

#[test]
fn regression_a_local_failure_was_overridden_without_a_word() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("test -f fixed")]));
    t.wf(&["workflow-execute", "--ci"]).code(1);
    assert_eq!(task_status(&t.state(), "T1"), "failed");
    t.write("fixed", "");
    run_tasks(&t, &["T1"]);
    let run = t.wf(&["import-results", "results"]).ok();
    assert!(
        run.stdout.contains(
            "✓ T1 completed (results/T1.json; it failed here before: check `test -f fixed` exited with 1)"
        ),
        "{}",
        run.whole()
    );
    // The log says what was overridden.
    assert!(
        t.events()
            .iter()
            .any(|e| e["task_id"] == "T1" && e["data"]["overrides_failure"].is_string()),
        "no event names the overridden failure"
    );
}
