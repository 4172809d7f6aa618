//! `summary.json`, the compact view beside the snapshot (docs/state-file.md "The
//! summary"): the read paths (`wf status`, `wf next`, the hooks) answer from it
//! without parsing the whole state while it is current, show exactly what the whole
//! load shows, and fall back to the whole load whenever it is missing, torn,
//! corrupt, of another version, for another snapshot, or behind the event log.
//!
//! `WF_TEST_NO_FULL_LOAD=1` makes parsing the whole snapshot an error, so a read
//! path that does it when it need not fails here; `WF_TEST_NO_SUMMARY=1` makes the
//! readers ignore the summary, the reference every answer is compared with.

use serde_json::{json, Value};

use crate::plans::{plan, start, task};
use crate::test::{Run, Test};

/// Over the 40 tasks the task list shows, so the summary holds a part of them.
const TASKS: usize = 50;

fn chain(fail_at: Option<usize>) -> String {
    let ids: Vec<String> = (1..=TASKS).map(|i| format!("T{i}")).collect();
    let tasks: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let t = task(id, if i < 25 { "one" } else { "two" });
            let t = t.verify(if Some(i + 1) == fail_at {
                "false"
            } else {
                "true"
            });
            if i == 0 {
                t
            } else {
                t.deps(&ids[i - 1])
            }
        })
        .collect();
    plan(&tasks)
}

/// The read paths whose output must not depend on how the state was read, with the
/// hook event each reads on stdin. The hooks get no session id, so they keep no memo
/// between two runs. (`wf status --json` prints every task whole: it always loads
/// the whole state.)
fn reads() -> Vec<(Vec<&'static str>, Option<&'static str>)> {
    vec![
        (vec!["status"], None),
        (vec!["next"], None),
        (vec!["--json", "next"], None),
        (vec!["hook", "Stop"], Some("Stop")),
        (vec!["hook", "SessionStart"], Some("SessionStart")),
        (vec!["hook", "UserPromptSubmit"], Some("UserPromptSubmit")),
    ]
}

pub(crate) fn read(t: &Test, args: &[&str], event: Option<&str>, env: Option<&str>) -> Run {
    use std::io::Write;
    use std::process::Stdio;
    let mut cmd = t.command(args);
    if let Some(key) = env {
        cmd.env(key, "1");
    }
    cmd.stdin(if event.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn wf");
    if let Some(event) = event {
        let payload = json!({"cwd": t.project.display().to_string(), "hook_event_name": event});
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(payload.to_string().as_bytes());
    }
    let out = child.wait_with_output().expect("wait for wf");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        root: t.root.clone(),
    }
}

/// Every read path answers from the summary (the whole parse is forbidden) with
/// what the whole load answers.
#[track_caller]
fn same_from_summary(t: &Test, what: &str) {
    assert!(
        t.workflow_dir().join("summary.json").is_file(),
        "{what}: no summary"
    );
    same_as_the_whole_load(t, what, "the summary");
}

/// Every read path answers without the whole load (it is forbidden), with what the
/// whole load answers and nothing on stderr; `by` names what answered instead.
#[track_caller]
pub(crate) fn same_as_the_whole_load(t: &Test, what: &str, by: &str) {
    for (args, event) in reads() {
        let fast = read(t, &args, event, Some("WF_TEST_NO_FULL_LOAD"));
        let whole = read(t, &args, event, Some("WF_TEST_NO_SUMMARY"));
        assert_eq!(
            (fast.code, &fast.stdout, &fast.stderr),
            (whole.code, &whole.stdout, &whole.stderr),
            "{what}: `wf {}` differs between {by} and the whole load",
            args.join(" ")
        );
        assert!(fast.stderr.is_empty(), "{what}: {}", fast.stderr);
    }
}

/// Every read path loads the whole state: nothing else can answer.
#[track_caller]
pub(crate) fn loads_it_whole(t: &Test, what: &str) {
    for (args, event) in reads() {
        let refused = read(t, &args, event, Some("WF_TEST_NO_FULL_LOAD"));
        assert!(
            refused.stderr.contains("WF_TEST_NO_FULL_LOAD"),
            "{what}: `wf {}` did not load the whole state: {refused:?}",
            args.join(" ")
        );
    }
}

/// Every read path loads the whole state (the summary cannot be used) and answers
/// as the whole load does.
#[track_caller]
fn falls_back(t: &Test, what: &str) {
    // The glance an earlier read left (`state::glance::write_back`) would answer
    // first: what is checked here is the summary's way without it.
    let _ = std::fs::remove_file(t.workflow_dir().join("glance.json"));
    loads_it_whole(t, what);
    for (args, event) in reads() {
        let plain = read(t, &args, event, None);
        let whole = read(t, &args, event, Some("WF_TEST_NO_SUMMARY"));
        assert_eq!(
            (plain.code, &plain.stdout, &plain.stderr),
            (whole.code, &whole.stdout, &whole.stderr),
            "{what}: `wf {}`",
            args.join(" ")
        );
    }
}

fn summary_path(t: &Test) -> std::path::PathBuf {
    t.workflow_dir().join("summary.json")
}

/// A workflow of [`chain`] with its first task run by `--step`.
fn one_step_in() -> Test {
    let t = Test::new();
    start(&t, &chain(None));
    t.wf(&["workflow-execute", "--step"]).ok();
    t
}

/// `path` holds `good` with `edit` made to it, and every read falls back.
fn falls_back_edited(
    t: &Test,
    path: &std::path::Path,
    good: &[u8],
    what: &str,
    edit: impl FnOnce(&mut Value),
) {
    let mut value: Value = serde_json::from_slice(good).unwrap();
    edit(&mut value);
    std::fs::write(path, value.to_string()).unwrap();
    falls_back(t, what);
}

pub(crate) fn index_path(t: &Test) -> std::path::PathBuf {
    t.workflow_dir().join("task-index.json")
}

/// Appends `line` to the event log, as a run that dies before its snapshot leaves it.
pub(crate) fn append_event(t: &Test, line: &Value) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(t.workflow_dir().join("events.jsonl"))
        .unwrap();
    writeln!(f, "{line}").unwrap();
}

pub(crate) fn last_seq(t: &Test) -> u64 {
    t.events().last().and_then(|e| e["seq"].as_u64()).unwrap()
}

/// An event line of `kind` about task `id`, as a run writes it.
fn event(seq: u64, kind: &str, id: &str, data: Value) -> Value {
    json!({"seq": seq, "ts": "2026-01-08T10:00:01Z", "type": kind, "task_id": id,
        "actor": "wf.orchestrator", "role": "orchestrator", "data": data})
}

pub(crate) fn moved(seq: u64, id: &str, data: Value) -> Value {
    event(seq, "task.status_changed", id, data)
}

#[test]
fn read_paths_answer_from_a_current_summary_as_the_whole_load_does() {
    let t = Test::new();
    start(&t, &chain(Some(30)));
    same_from_summary(&t, "imported");
    t.wf(&["workflow-execute", "--step"]).ok();
    same_from_summary(&t, "one step");
    t.wf(&["workflow-execute", "--all"]).code(1);
    same_from_summary(&t, "failed at T30");
    t.wf(&["workflow-execute", "--skip", "T30", "--reason", "later"])
        .ok();
    same_from_summary(&t, "skipped T30, the rest run");
    let status = t.wf(&["status"]).ok();
    assert!(status.stdout.contains("Progress"), "{}", status.stdout);
}

#[test]
fn a_handed_off_task_is_found_from_the_summary_by_every_hook() {
    let t = Test::new();
    let mut tasks = vec![task("T1", "impl")
        .field("actions", "create_file")
        .field("创建文件", "hello.txt")
        .verify("grep -q hello hello.txt")];
    let ids: Vec<String> = (2..=TASKS).map(|i| format!("T{i}")).collect();
    tasks.extend(ids.iter().map(|id| task(id, "impl").verify("true")));
    start(&t, &plan(&tasks));
    t.wf(&["workflow-execute"]).code(0);
    same_from_summary(&t, "handed off");
    // Stop runs the task's checks: the task comes from the summary.
    let stop = read(
        &t,
        &["hook", "Stop"],
        Some("Stop"),
        Some("WF_TEST_NO_FULL_LOAD"),
    );
    assert!(stop.stderr.is_empty(), "{stop:?}");
    let answer: Value = serde_json::from_str(stop.stdout.trim()).expect("a JSON answer");
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(
        answer["reason"].as_str().unwrap_or("").contains("T1"),
        "{answer}"
    );
}

#[test]
fn a_missing_torn_corrupt_or_old_summary_is_never_used() {
    let t = one_step_in();
    let good = std::fs::read(summary_path(&t)).unwrap();
    std::fs::remove_file(summary_path(&t)).unwrap();
    falls_back(&t, "deleted");
    std::fs::write(summary_path(&t), &good[..good.len() / 2]).unwrap();
    falls_back(&t, "truncated");
    std::fs::write(summary_path(&t), b"\x00\xffnot json").unwrap();
    falls_back(&t, "garbage");
    falls_back_edited(&t, &summary_path(&t), &good, "another version", |v| {
        v["summary_version"] = json!(0);
    });
    // A link planted in its place is not followed.
    let elsewhere = t.root.join("elsewhere.json");
    std::fs::write(&elsewhere, &good).unwrap();
    std::fs::remove_file(summary_path(&t)).unwrap();
    std::os::unix::fs::symlink(&elsewhere, summary_path(&t)).unwrap();
    falls_back(&t, "a link");
    std::fs::remove_file(summary_path(&t)).unwrap();
    std::fs::write(summary_path(&t), &good).unwrap();
    same_from_summary(&t, "restored");
}

#[test]
fn a_summary_of_another_snapshot_is_never_used() {
    let t = one_step_in();
    // Another tool rewrites the snapshot (as the plugin or jq does: a new file).
    let state_path = t.workflow_dir().join("workflow-state.json");
    let mut state: Value = serde_json::from_slice(&std::fs::read(&state_path).unwrap()).unwrap();
    state["tasks"][1]["status"] = json!("skipped");
    state["tasks"][1]["name"] = json!("renamed by hand");
    let tmp = t.workflow_dir().join("edited.json");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
    std::fs::rename(&tmp, &state_path).unwrap();
    falls_back(&t, "snapshot replaced");
    let next = t.wf(&["next"]).ok();
    assert!(next.stdout.contains("T3 is ready"), "{}", next.stdout);
    // Rewritten in place, a different size.
    state["tasks"][2]["name"] = json!("renamed in place, a longer name");
    std::fs::write(&state_path, serde_json::to_vec_pretty(&state).unwrap()).unwrap();
    falls_back(&t, "snapshot rewritten in place");
    // The next writer writes a summary of its own snapshot.
    t.wf(&["workflow-execute", "--step"]).ok();
    same_from_summary(&t, "after the next step");
}

#[test]
fn progress_in_the_event_log_past_the_summary_is_always_shown() {
    let t = one_step_in();
    let seq = last_seq(&t);
    // An event that changes nothing: the summary is still current.
    append_event(
        &t,
        &event(seq + 1, "task.execution_started", "T2", json!({})),
    );
    same_from_summary(&t, "a note past the mark");
    // A status move past the mark (a run that died before its snapshot): folded
    // onto the task index, with the same answer as the whole load.
    append_event(
        &t,
        &moved(
            seq + 2,
            "T2",
            json!({"from": "pending", "to": "skipped", "reason": "by hand"}),
        ),
    );
    same_from_summary(&t, "a status move past the mark");
    let next = t.wf(&["next"]).ok();
    assert!(next.stdout.contains("T3 is ready"), "{}", next.stdout);
    // Without the index, the summary alone cannot show it: the whole load does.
    std::fs::remove_file(index_path(&t)).unwrap();
    falls_back(&t, "a status move past the mark, no index");
    // A transaction nobody committed is not folded, by either reader.
    let t = Test::new();
    start(&t, &chain(None));
    let mut line = moved(
        last_seq(&t) + 1,
        "T1",
        json!({"from": "pending", "to": "skipped"}),
    );
    line["txn"] = json!(true);
    append_event(&t, &line);
    same_from_summary(&t, "an uncommitted transaction past the mark");
}

#[test]
fn a_plugin_state_without_a_summary_still_reads() {
    let t = Test::new();
    t.plugin_state();
    let status = read(&t, &["status"], None, None);
    assert_eq!(status.code, 0, "{status:?}");
    assert!(!summary_path(&t).exists());
    falls_back(&t, "plugin state");
}

/// After a crash the snapshot is behind the log: a `--step` resume folds the tail,
/// runs one task and writes the snapshot once (and the plan copy once), not once
/// for the catch-up, once for the recovery and once at the end. Counted with the
/// fault hook: a third durable rename would fail the command, and say so.
#[test]
fn a_step_resume_after_a_crash_writes_the_snapshot_once() {
    let t = Test::new();
    start(&t, &chain(None));
    let path = t.workflow_dir().join("workflow-state.json");
    let before = std::fs::read(&path).unwrap();
    t.wf(&["workflow-execute", "--step"]).ok();
    // What a kill before the final save leaves: the log ahead of the snapshot.
    std::fs::write(&path, &before).unwrap();
    std::fs::remove_file(summary_path(&t)).unwrap();
    assert_eq!(t.state_file()["tasks"][0]["status"], "pending");
    let mut cmd = t.command(&["resume", "--step"]);
    cmd.env("WF_TEST_FAULT", "rename:3")
        .stdout(std::process::Stdio::null());
    let run = t.within(cmd, 60);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(!run.stderr.contains("test fault"), "{}", run.stderr);
    let raw = t.state_file();
    assert_eq!(raw["tasks"][0]["status"], "completed");
    assert_eq!(raw["tasks"][1]["status"], "completed");
    let copy = std::fs::read_dir(t.workflow_dir())
        .unwrap()
        .flatten()
        .find(|e| e.file_name().to_string_lossy().starts_with("tasks-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .expect("a plan copy");
    assert!(copy.contains("## T2: task T2 ✅"), "{copy}");
    same_from_summary(&t, "after the resume");
}

/// A writer that dies while it writes a snapshot leaves the summary and index of the
/// one before: they still describe the file in place, and the read paths fold the
/// log past them, as the whole load does (removed first, every read was the whole
/// load until the next writer).
#[test]
fn a_stop_in_the_middle_of_a_snapshot_leaves_the_reads_their_summary() {
    let t = one_step_in();
    let index_before = std::fs::read(index_path(&t)).unwrap();
    let events_before = t.events().len();
    let died = t
        .command(&["workflow-execute", "--step"])
        .env("WF_TEST_CRASH_AT", "before-rename")
        .output()
        .unwrap();
    assert!(!died.status.success(), "the crash point was not reached");
    assert!(t.events().len() > events_before, "the step logged nothing");
    assert_eq!(std::fs::read(index_path(&t)).unwrap(), index_before);
    same_from_summary(&t, "after a stop before the snapshot's rename");
}

/// Imports a chain of `n` tasks whose task `stop` touches `reached` and sleeps
/// `secs` seconds; the others check `true`.
pub(crate) fn start_chain_sleeping_at(t: &Test, n: usize, stop: usize, secs: u32) {
    let ids: Vec<String> = (1..=n).map(|i| format!("T{i}")).collect();
    let sleeper = format!("sh -c 'touch reached; sleep {secs}'");
    let tasks: Vec<_> = ids
        .iter()
        .enumerate()
        .map(|(i, id)| {
            let check = if i + 1 == stop {
                sleeper.as_str()
            } else {
                "true"
            };
            let t = task(id, "one").verify(check);
            if i == 0 {
                t
            } else {
                t.deps(&ids[i - 1])
            }
        })
        .collect();
    start(t, &plan(&tasks));
}

/// `wf workflow-execute --all --ci` started in `t` and running until the chain of
/// [`start_chain_sleeping_at`] reached its sleeping task.
pub(crate) fn run_until_reached(t: &Test) -> std::process::Child {
    let run = t
        .command(&["workflow-execute", "--all", "--ci"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn wf");
    let reached = t.project.join("reached");
    let waited = std::time::Instant::now();
    while !reached.exists() {
        assert!(
            waited.elapsed().as_secs() < 60,
            "the sleeping task never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    run
}

/// A run killed mid-way leaves its progress in the log past the snapshot: the read
/// paths fold it onto the task index, parse only the records they show, and answer
/// as the whole load does.
#[test]
fn after_a_kill_the_read_paths_fold_the_log_onto_the_task_index() {
    let t = Test::new();
    start_chain_sleeping_at(&t, TASKS, 45, 5);
    let snapshot = std::fs::read(t.workflow_dir().join("workflow-state.json")).unwrap();
    let mut run = run_until_reached(&t);
    run.kill().expect("SIGKILL wf");
    run.wait().unwrap();
    // The run took no checkpoint: the snapshot and its index are the start's.
    assert_eq!(
        std::fs::read(t.workflow_dir().join("workflow-state.json")).unwrap(),
        snapshot
    );
    // Without the glance the run kept (tests/integration/glance.rs), the fold it
    // stands in for.
    std::fs::remove_file(t.workflow_dir().join("glance.json")).unwrap();
    same_from_summary(&t, "killed at T45");
    let status = read(&t, &["status"], None, Some("WF_TEST_NO_FULL_LOAD")).stdout;
    assert!(status.contains("(44/50 done"), "{status}");
    assert!(status.contains("T45: task T45 (in_progress)"), "{status}");
}

/// The index is used only for the snapshot and log mark it was written with, and
/// only whole; anything else is the whole load, which answers the same.
#[test]
fn a_missing_torn_or_stale_task_index_is_never_used() {
    let t = one_step_in();
    append_event(
        &t,
        &moved(
            last_seq(&t) + 1,
            "T2",
            json!({"from": "pending", "to": "in_progress", "attempt": 1}),
        ),
    );
    same_from_summary(&t, "a task started past the mark");
    let good = std::fs::read(index_path(&t)).unwrap();
    std::fs::write(index_path(&t), &good[..good.len() / 2]).unwrap();
    falls_back(&t, "torn index");
    let index = index_path(&t);
    falls_back_edited(&t, &index, &good, "index of another version", |v| {
        v["index_version"] = json!(0);
    });
    falls_back_edited(&t, &index, &good, "index of another snapshot", |v| {
        v["snapshot"]["ino"] = json!(1);
    });
    falls_back_edited(&t, &index, &good, "index of another log mark", |v| {
        v["event_log"]["seq"] = json!(1);
    });
    // A span (an entry's last field) that does not hold its task's record.
    falls_back_edited(&t, &index, &good, "a span pointing at another task", |v| {
        let other = v["tasks"][2].as_array().unwrap().last().unwrap().clone();
        *v["tasks"][1].as_array_mut().unwrap().last_mut().unwrap() = other;
    });
    std::fs::write(index_path(&t), &good).unwrap();
    same_from_summary(&t, "index restored");
}

/// An event past the mark that the fold refuses (an unknown task) is reported by
/// the whole load, as without the index.
#[test]
fn an_event_the_fold_refuses_is_reported_by_the_whole_load() {
    let t = one_step_in();
    append_event(
        &t,
        &moved(
            last_seq(&t) + 1,
            "T999",
            json!({"from": "pending", "to": "in_progress"}),
        ),
    );
    falls_back(&t, "an unknown task past the mark");
    let status = t.wf(&["status"]);
    assert_eq!(status.code, 5, "{}", status.whole());
    assert!(
        status.stderr.contains("unknown task T999"),
        "{}",
        status.stderr
    );

    // A note that is not an event (its time is a number), before a status move: the
    // whole load refuses the line, so the index is not used to skip over it.
    let t = one_step_in();
    let seq = last_seq(&t);
    append_event(&t, &{
        let mut line = event(seq + 1, "task.execution_started", "T2", json!({}));
        line["ts"] = json!(5);
        line
    });
    append_event(
        &t,
        &moved(
            seq + 2,
            "T2",
            json!({"from": "pending", "to": "in_progress"}),
        ),
    );
    falls_back(&t, "a note that is not an event");
    let status = t.wf(&["status"]);
    assert_eq!(status.code, 5, "{}", status.whole());

    // Nor with only notes past the mark: the summary is not shown over a line the
    // whole load refuses.
    let t = one_step_in();
    let seq = last_seq(&t);
    append_event(&t, &{
        let mut line = event(seq + 1, "task.execution_started", "T2", json!({}));
        line["actor"] = json!(["not", "a", "string"]);
        line
    });
    append_event(
        &t,
        &event(seq + 2, "task.execution_started", "T2", json!({})),
    );
    falls_back(&t, "only notes, one not an event");
    let status = t.wf(&["status"]);
    assert_eq!(status.code, 5, "{}", status.whole());
}

/// A writer's load leaves the tasks it does not look at unread, at the spans the
/// task index names (`state::task_ref`). A record changed in place under that index
/// (the same inode, size and time) is refused when it is read, with the file and
/// the task named, never taken for another task; the index is dropped, so the next
/// command parses the file whole and says what is wrong in it.
#[test]
fn a_record_changed_in_place_under_its_index_is_refused_when_read() {
    let t = one_step_in();
    let at = crate::unreadable_task::change_t2_in_place(&t);
    let path = t.workflow_dir().join("workflow-state.json");

    let run = t.wf(&["resume", "--step"]);
    assert_eq!(run.code, 5, "{run:?}");
    assert!(
        run.stderr.contains("workflow-state.json")
            && run.stderr.contains("task T2")
            && run.stderr.contains("changed in place"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    assert!(!index_path(&t).exists());
    let again = t.wf(&["resume", "--step"]);
    assert_eq!(again.code, 5, "{again:?}");
    assert!(
        again
            .stderr
            .contains("does not fit the workflow-state layout"),
        "{}",
        again.stderr
    );
    let now = std::fs::read(&path).unwrap();
    assert_eq!(&now[at..at + 9], b"123456789", "the file is left as it was");
}
