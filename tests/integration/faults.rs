//! Faults at every write point, the SQLite way, and links planted where `wf` writes.
//!
//! `WF_TEST_FAULT=<op>:<n>[:<errno>]` makes the n-th create, write, fsync or rename
//! of one `wf` process fail (see `src/testing.rs`). For each command below, each op
//! and both errnos, the test runs the command with n = 1, 2, … on a fresh copy of the
//! same workflow, until it succeeds without meeting the fault. After every fault:
//! - the state file parses, and `wf status --json` agrees with it (workflow status
//!   and every task's status) — no reader sees what the raw file does not say;
//! - the workflow is the old one or the new one, whole (per command, below);
//! - nothing an attempt writes before its commit is left (`.tmp-*`, `.staged-*`),
//!   and no event of an uncommitted transaction is left in the log;
//! - running the command again completes it, and no task that had completed runs
//!   again (task commands append to `runs.log`).
//!
//! It prints how many fault points it covered.

use std::path::Path;

use serde_json::{json, Value};

use crate::crash::check_event_log;
use crate::plans::{plan, start, statuses, task};
use crate::test::Test;

const OPS: [&str; 4] = ["create", "write", "fsync", "rename"];
const ERRNOS: [&str; 2] = ["EIO", "ENOSPC"];

/// One command under faults.
struct Scenario {
    name: &'static str,
    /// Brings a fresh test to the state the command starts from.
    setup: fn(&Test),
    args: &'static [&'static str],
    /// Old or new, whole: given the raw state (or `None`: no state file).
    whole: fn(&Test, Option<&Value>) -> Result<(), String>,
    /// The command's change is complete: nothing left to run again.
    done: fn(&Test) -> bool,
}

fn three_tasks() -> String {
    plan(&[
        task("T1", "a").verify("echo T1 >> runs.log"),
        task("T2", "a").verify("echo T2 >> runs.log"),
        task("T3", "a").verify("echo T3 >> runs.log"),
    ])
}

fn edited_plan() -> String {
    plan(&[
        task("T1", "a").verify("echo T1 >> runs.log"),
        task("T2", "a").verify("echo T2 edited >> runs.log"),
        task("T4", "a").verify("echo T4 >> runs.log"),
    ])
}

/// Three tasks whose checks write nothing: `wf verify --all` runs them again, which
/// the re-run check below must not count as a completed task running again.
fn quiet_tasks() -> String {
    plan(&[
        task("T1", "a").verify("true").field("file", "f1.txt"),
        task("T2", "a").verify("true").deps("T1"),
        task("T3", "a").verify("true"),
    ])
}

/// `quiet_tasks` run to completion.
fn quiet_and_done(t: &Test) {
    t.write("f1.txt", "one\n");
    start(t, &quiet_tasks());
    t.wf(&["workflow-execute", "--ci", "--all"]).ok();
}

fn events_of(t: &Test, kind: &str) -> usize {
    let events = t.workflow_dir().join("events.jsonl");
    let mark = raw_state(t).map_or(0, |s| s["event_log"]["seq"].as_u64().unwrap_or(0));
    check_event_log(&events)
        .iter()
        .filter(|e| e["type"] == kind && (e["txn"] != true || e["seq"].as_u64() <= Some(mark)))
        .count()
}

fn all_completed(s: &Value) -> bool {
    statuses(s).iter().all(|(_, st)| st == "completed")
}

fn ids(state: &Value) -> Vec<String> {
    state["tasks"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| t["id"].as_str().unwrap_or("").to_string())
        .collect()
}

fn constraint_count(state: &Value) -> usize {
    ["hard", "soft"]
        .iter()
        .map(|k| state["constraints"][k].as_array().map_or(0, Vec::len))
        .sum()
}

fn raw_state(t: &Test) -> Option<Value> {
    let path = t.workflow_dir().join("workflow-state.json");
    let bytes = std::fs::read(&path).ok()?;
    if let Err(e) = wf::state::store::parse_state(&path, &bytes) {
        panic!("the state file does not parse: {e}");
    }
    Some(serde_json::from_slice(&bytes).expect("state is JSON"))
}

/// The non-empty dirs under `archive/`.
fn archives(t: &Test) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(t.workflow_dir().join("archive")) else {
        return Vec::new();
    };
    let mut dirs: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_some()))
        .collect();
    dirs.sort();
    dirs
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if ok {
        Ok(())
    } else {
        Err(what())
    }
}

fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "workflow-start",
            setup: |t| {
                t.write("tasks.md", three_tasks());
            },
            args: &["workflow-start", "tasks.md"],
            whole: |_, raw| match raw {
                None => Ok(()),
                Some(s) => check(
                    ids(s) == ["T1", "T2", "T3"] && s["status"] == "planned",
                    || format!("a partial import: {:?} {}", ids(s), s["status"]),
                ),
            },
            done: |t| {
                let dir = t.workflow_dir();
                dir.join("workflow-state.json").exists()
                    && dir.join("tasks-test-plan.md").exists()
                    && dir.join("project-meta.json").exists()
            },
        },
        Scenario {
            name: "workflow-start --force (edited plan)",
            setup: |t| {
                start(t, &three_tasks());
                t.wf(&["workflow-execute", "--ci", "--all"]).ok();
                t.write("tasks.md", edited_plan());
            },
            args: &["workflow-start", "--force", "tasks.md"],
            whole: |t, raw| {
                let s = raw.ok_or("the state file is gone")?;
                let old = ids(s) == ["T1", "T2", "T3"]
                    && s["status"] == "completed"
                    && s["delta_tracking"]["change_counter"] == 0
                    && !t.workflow_dir().join("changes/CHG-001").exists();
                let new = ids(s) == ["T1", "T2", "T4"]
                    && s["status"] == "planned"
                    && s["tasks"][0]["status"] == "completed"
                    && s["delta_tracking"]["change_counter"] == 1;
                check(old || new, || {
                    format!("neither old nor new: {:?} {}", ids(s), s["status"])
                })
            },
            done: |t| {
                let dir = t.workflow_dir();
                let copy =
                    std::fs::read_to_string(dir.join("tasks-test-plan.md")).unwrap_or_default();
                let meta: Value = std::fs::read(dir.join("project-meta.json"))
                    .ok()
                    .and_then(|b| serde_json::from_slice(&b).ok())
                    .unwrap_or_default();
                raw_state(t).is_some_and(|s| {
                    ids(&s) == ["T1", "T2", "T4"] && meta["plan_digest"] == s["plan_digest"]
                }) && copy.contains("T4")
                    && dir.join("changes/CHG-001/delta.json").exists()
            },
        },
        Scenario {
            name: "workflow-execute",
            setup: |t| start(t, &three_tasks()),
            args: &["workflow-execute", "--ci", "--all"],
            whole: |_, raw| {
                let s = raw.ok_or("the state file is gone")?;
                check(ids(s) == ["T1", "T2", "T3"], || {
                    format!("tasks {:?}", ids(s))
                })
            },
            done: |t| raw_state(t).is_some_and(|s| s["status"] == "completed"),
        },
        Scenario {
            name: "constraints add",
            setup: |t| start(t, &three_tasks()),
            args: &["constraints", "add", "never log secrets"],
            whole: |_, raw| {
                let s = raw.ok_or("the state file is gone")?;
                check(constraint_count(s) <= 1, || "two constraints".into())
            },
            done: |t| raw_state(t).is_some_and(|s| constraint_count(&s) == 1),
        },
        Scenario {
            name: "constraints remove",
            setup: |t| {
                start(t, &three_tasks());
                t.wf(&["constraints", "add", "never log secrets"]).ok();
            },
            args: &["constraints", "remove", "C001"],
            whole: |_, raw| {
                let s = raw.ok_or("the state file is gone")?;
                check(constraint_count(s) <= 1, || "constraints appeared".into())
            },
            done: |t| raw_state(t).is_some_and(|s| constraint_count(&s) == 0),
        },
        Scenario {
            name: "constraints merge",
            setup: |t| {
                start(t, &three_tasks());
                let set = json!({
                    "hard": [{"id": "C010", "description": "no plaintext passwords", "sourceModel": "codex", "phase": "analysis"}],
                    "soft": [{"id": "S1", "description": "small functions", "sourceModel": "codex", "phase": "analysis"}],
                });
                t.write("codex.json", set.to_string());
            },
            args: &["constraints", "merge", "codex.json"],
            whole: |_, raw| {
                let s = raw.ok_or("the state file is gone")?;
                let n = constraint_count(s);
                check(n == 0 || n == 2, || {
                    format!("a partial merge: {n} constraints")
                })
            },
            done: |t| raw_state(t).is_some_and(|s| constraint_count(&s) == 2),
        },
        Scenario {
            name: "import-results",
            setup: |t| {
                start(t, &three_tasks());
                for id in ["T1", "T2", "T3"] {
                    t.wf(&["run-task", id, "--result", &format!("results/{id}.json")])
                        .ok();
                }
                // The checks ran where the results were made; here, nothing runs.
                let _ = std::fs::remove_file(t.project.join("runs.log"));
            },
            args: &["import-results", "results"],
            whole: |_, raw| {
                let s = raw.ok_or("the state file is gone")?;
                let old =
                    s["status"] == "planned" && statuses(s).iter().all(|(_, st)| st == "pending");
                let new = s["status"] == "completed" && all_completed(s);
                check(old || new, || {
                    format!("neither old nor new: {} {:?}", s["status"], statuses(s))
                })
            },
            done: |t| raw_state(t).is_some_and(|s| s["status"] == "completed" && all_completed(&s)),
        },
        Scenario {
            name: "verify",
            setup: quiet_and_done,
            args: &["verify", "--all"],
            whole: |_, raw| {
                let s = raw.ok_or("the state file is gone")?;
                check(s["status"] == "completed" && all_completed(s), || {
                    format!("{} {:?}", s["status"], statuses(s))
                })
            },
            done: |t| events_of(t, "task.verified") >= 3,
        },
        Scenario {
            name: "proof export",
            setup: quiet_and_done,
            args: &["proof", "export", "proof.json"],
            whole: |t, raw| {
                let s = raw.ok_or("the state file is gone")?;
                check(all_completed(s), || "the workflow changed".into())?;
                let stray = std::fs::read_dir(&t.project)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .any(|e| e.file_name().to_string_lossy().starts_with(".tmp-"));
                check(!stray, || "a temp file of the export is left".into())?;
                match std::fs::read(t.project.join("proof.json")) {
                    Err(_) => Ok(()),
                    Ok(bytes) => check(serde_json::from_slice::<Value>(&bytes).is_ok(), || {
                        "proof.json is half written".into()
                    }),
                }
            },
            done: |t| {
                t.project.join("proof.json").exists()
                    && t.wf(&["proof", "check", "proof.json"]).code == 0
            },
        },
        Scenario {
            name: "archive",
            setup: |t| {
                start(t, &three_tasks());
                t.wf(&["workflow-execute", "--ci", "--all"]).ok();
            },
            args: &["archive"],
            whole: |t, raw| {
                check(archives(t).len() <= 1, || {
                    format!("an archive split over {:?}", archives(t))
                })?;
                match raw {
                    None => check(archives(t).len() == 1, || "the workflow vanished".into()),
                    Some(s) => check(
                        s["status"] == "completed" || s["status"] == "archived",
                        || format!("status {}", s["status"]),
                    ),
                }
            },
            done: |t| {
                raw_state(t).is_none()
                    && archives(t).len() == 1
                    && archives(t)[0].join("workflow-state.json").exists()
                    && archives(t)[0].join("events.jsonl").exists()
                    && archives(t)[0].join("tasks-test-plan.md").exists()
            },
        },
    ]
}

/// Copies a tree (files and dirs; no links are made by these tests).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir").flatten() {
        let dest = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy");
        }
    }
}

pub fn restore(t: &Test, saved: &Path) {
    for name in ["home", "project"] {
        let _ = std::fs::remove_dir_all(t.root.join(name));
        copy_tree(&saved.join(name), &t.root.join(name));
    }
}

fn runs(t: &Test) -> Vec<String> {
    std::fs::read_to_string(t.project.join("runs.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Everything checked after the command met its fault.
fn after_fault(t: &Test, sc: &Scenario) -> Result<(), String> {
    let dir = t.workflow_dir();
    let raw = raw_state(t);
    let status = t.wf(&["status", "--json"]);
    match &raw {
        Some(s) => {
            check(status.code == 0, || {
                format!("status failed: {}", status.stderr)
            })?;
            let seen = status.json()["state"].clone();
            check(seen["status"] == s["status"], || {
                format!("status says {}, the file {}", seen["status"], s["status"])
            })?;
            check(statuses(&seen) == statuses(s), || {
                format!("status {:?} / file {:?}", statuses(&seen), statuses(s))
            })?;
        }
        None => check(status.code != 0, || {
            "status shows a workflow with no state file".into()
        })?,
    }
    (sc.whole)(t, raw.as_ref())?;
    let stray: Vec<String> = std::fs::read_dir(&dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-") || n.starts_with(".staged-"))
        .collect();
    check(stray.is_empty(), || format!("left behind: {stray:?}"))?;
    let mark = raw
        .as_ref()
        .map_or(0, |s| s["event_log"]["seq"].as_u64().unwrap_or(0));
    let events = dir.join("events.jsonl");
    if events.exists() {
        let uncommitted = check_event_log(&events)
            .iter()
            .filter(|e| e["txn"] == true && e["seq"].as_u64().unwrap_or(0) > mark)
            .count();
        check(uncommitted == 0, || {
            format!("{uncommitted} uncommitted txn events in the log")
        })?;
    }
    // Run again: it completes, and no task that had completed runs again.
    let completed: Vec<String> = raw
        .as_ref()
        .map(statuses)
        .unwrap_or_default()
        .into_iter()
        .filter(|(_, s)| s == "completed")
        .map(|(id, _)| id)
        .collect();
    let before = runs(t);
    if !(sc.done)(t) {
        let again: &[&str] = match sc.name {
            "workflow-execute" => &["resume", "--ci"],
            _ => sc.args,
        };
        let run = t.wf(again);
        check(run.code == 0, || {
            format!("the rerun failed: {}", run.stderr)
        })?;
        check((sc.done)(t), || {
            "the rerun did not complete the change".into()
        })?;
    }
    let after = runs(t);
    for id in completed {
        let count = |r: &[String]| {
            r.iter()
                .filter(|l| l.split(' ').next() == Some(&id))
                .count()
        };
        check(count(&after) == count(&before), || {
            format!("{id} had completed and ran again")
        })?;
    }
    if let Some(s) = raw_state(t) {
        let seen = t.state();
        check(statuses(&seen) == statuses(&s), || {
            "status and file disagree after the rerun".into()
        })?;
    }
    Ok(())
}

/// Runs one scenario over every fault point; returns how many it covered and a
/// line of figures (points per op).
fn sweep(sc: &Scenario) -> (usize, String) {
    let t = Test::new();
    (sc.setup)(&t);
    let saved = t.root.join("saved");
    for name in ["home", "project"] {
        copy_tree(&t.root.join(name), &saved.join(name));
    }
    let mut covered = 0;
    let mut points = Vec::new();
    for op in OPS {
        for errno in ERRNOS {
            let mut n = 1;
            loop {
                restore(&t, &saved);
                let spec = format!("{op}:{n}:{errno}");
                let out = t
                    .command(sc.args)
                    .env("WF_TEST_FAULT", &spec)
                    .output()
                    .expect("run wf");
                let stderr = String::from_utf8_lossy(&out.stderr);
                if !stderr.contains("wf: test fault:") {
                    assert_eq!(
                        out.status.code(),
                        Some(0),
                        "{}: with no fault met ({spec}) the command failed: {stderr}",
                        sc.name
                    );
                    break;
                }
                if let Err(e) = after_fault(&t, sc) {
                    panic!(
                        "{} with WF_TEST_FAULT={spec}: {e}\nwf said: {stderr}",
                        sc.name
                    );
                }
                covered += 1;
                n += 1;
                assert!(n < 500, "{}: no end to {op} points", sc.name);
            }
            if errno == "EIO" {
                points.push(format!("{op} {}", n - 1));
            }
        }
    }
    (covered, format!("{}: {}", sc.name, points.join(", ")))
}

#[test]
fn every_fault_point_leaves_the_old_or_the_new_workflow_whole() {
    // One thread per command: most of the time goes to starting processes.
    let results: Vec<(usize, String)> = std::thread::scope(|s| {
        let handles: Vec<_> = scenarios()
            .into_iter()
            .map(|sc| s.spawn(move || sweep(&sc)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    });
    let covered: usize = results.iter().map(|r| r.0).sum();
    eprintln!("fault points covered: {covered} (each op × EIO and ENOSPC)");
    for (_, line) in &results {
        eprintln!("  {line}");
    }
    assert!(covered > 0);
}

#[test]
fn regression_a_symlink_at_the_commit_message_file_was_followed() {
    // `git_commit` wrote `logs/T1.<n>.commit-msg` with a plain write, which follows a
    // link planted there: a task could overwrite any file wf may write.
    let mut t = Test::new();
    t.git_identity();
    let _ = std::fs::remove_dir_all(t.project.join(".git"));
    let init = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&t.project)
        .status()
        .expect("git init");
    assert!(init.success());
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify("echo change > f.txt")
            .field("files", "f.txt")
            .field("actions", "git_commit")]),
    );
    let outside = t.root.join("outside.txt");
    std::fs::write(&outside, "untouched\n").unwrap();
    let logs = t.workflow_dir().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::os::unix::fs::symlink(&outside, logs.join("T1.1.commit-msg")).unwrap();
    t.wf(&["workflow-execute", "--ci"]);
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "untouched\n",
        "the commit message was written through the link"
    );
    let log = std::process::Command::new("git")
        .args(["log", "--format=%s"])
        .current_dir(&t.project)
        .output()
        .expect("git log");
    assert!(
        String::from_utf8_lossy(&log.stdout).contains("T1: task T1"),
        "no commit was made"
    );
}

#[test]
fn regression_an_archive_stopped_part_way_was_split_over_two_directories() {
    // Stopped after moving some files, `wf archive` run again made a second
    // `archive/<time>-2/` for the rest.
    let t = Test::new();
    start(&t, &three_tasks());
    t.wf(&["workflow-execute", "--ci", "--all"]).ok();
    // The first rename is the journal's, the second the state's (the commit), the
    // third the first file moved into the archive.
    let out = t
        .command(&["archive"])
        .env("WF_TEST_FAULT", "rename:3")
        .output()
        .expect("run wf");
    assert_ne!(out.status.code(), Some(0), "the fault was not met");
    t.wf(&["archive"]);
    let dirs = archives(&t);
    assert_eq!(dirs.len(), 1, "the archive is split: {dirs:?}");
    for name in ["workflow-state.json", "events.jsonl", "tasks-test-plan.md"] {
        assert!(
            dirs[0].join(name).exists(),
            "{name} is not in {}",
            dirs[0].display()
        );
    }
    assert!(raw_state(&t).is_none());
}
