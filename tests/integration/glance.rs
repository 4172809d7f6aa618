//! `glance.json`, the summary a run keeps current between snapshots (docs/state-file.md
//! "The glance"): while a run goes on and after it was killed, the read paths answer
//! from it — neither the whole state nor the task index read — exactly what the whole
//! load answers; a glance that is torn, changed, another wf's, or behind the log is
//! never used.

use serde_json::json;

use crate::plans::{plan, start, task};
use crate::summary::{
    append_event, index_path, last_seq, loads_it_whole, moved, read, run_until_reached,
    same_as_the_whole_load, start_chain_sleeping_at,
};
use crate::test::Test;

const TASKS: usize = 50;

/// A chain of [`TASKS`] whose task `stop` starts a 60 s sleep, run until it starts:
/// the test, and the running `wf`.
fn run_to(stop: usize) -> (Test, std::process::Child) {
    let t = Test::new();
    start_chain_sleeping_at(&t, TASKS, stop, 60);
    let run = run_until_reached(&t);
    (t, run)
}

/// Removes the summary and the task index, so only the glance can answer without
/// the whole load.
fn only_the_glance(t: &Test) {
    let _ = std::fs::remove_file(t.workflow_dir().join("summary.json"));
    let _ = std::fs::remove_file(index_path(t));
}

/// Waits until the running `wf`'s glance has caught up with its log (it makes one
/// at most every few dozen milliseconds): until `wf status` answers with neither
/// the whole load nor the summary and task index, which [`only_the_glance`] removed.
fn glance_caught_up(t: &Test) {
    let waited = std::time::Instant::now();
    loop {
        let run = read(t, &["status"], None, Some("WF_TEST_NO_FULL_LOAD"));
        if !run.stderr.contains("WF_TEST_NO_FULL_LOAD") {
            return;
        }
        assert!(
            waited.elapsed().as_secs() < 10,
            "the glance never caught up"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// [`run_to`] T3, its glance written, then SIGKILL: the run's progress is in the
/// log past the snapshot, and with `only` only the glance can answer without the
/// whole load.
fn killed_at_t3_keeping(only: bool) -> Test {
    let (t, mut run) = run_to(3);
    let waited = std::time::Instant::now();
    while !std::fs::read_to_string(glance_path(&t))
        .is_ok_and(|glance| glance.contains(r#""in_progress":["T3"]"#))
    {
        assert!(waited.elapsed().as_secs() < 10, "no glance of T3 running");
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    run.kill().expect("SIGKILL wf");
    run.wait().unwrap();
    if only {
        only_the_glance(&t);
    }
    t
}

fn killed_at_t3() -> Test {
    killed_at_t3_keeping(true)
}

/// Appends T3's completion to the log: progress past any glance's mark.
fn t3_completed(t: &Test) {
    append_event(
        t,
        &moved(
            last_seq(t) + 1,
            "T3",
            json!({"from": "in_progress", "to": "completed"}),
        ),
    );
}

fn glance_path(t: &Test) -> std::path::PathBuf {
    t.workflow_dir().join("glance.json")
}

#[test]
fn while_a_run_goes_on_the_read_paths_answer_from_its_glance() {
    let (t, mut run) = run_to(3);
    only_the_glance(&t);
    glance_caught_up(&t);
    same_as_the_whole_load(&t, "running T3", "the glance");
    let status = read(&t, &["status"], None, Some("WF_TEST_NO_FULL_LOAD")).stdout;
    assert!(status.contains("(2/50 done"), "{status}");
    run.kill().expect("SIGKILL wf");
    run.wait().unwrap();
}

#[test]
fn after_a_kill_the_read_paths_answer_from_the_glance_as_the_whole_load_does() {
    let t = killed_at_t3();
    same_as_the_whole_load(&t, "killed at T3", "the glance");
    let status = read(&t, &["status"], None, Some("WF_TEST_NO_FULL_LOAD")).stdout;
    assert!(status.contains("(2/50 done"), "{status}");
    assert!(status.contains("T3: task T3 (in_progress)"), "{status}");
    let next = read(&t, &["--json", "next"], None, Some("WF_TEST_NO_FULL_LOAD")).stdout;
    assert!(next.contains("T3"), "{next}");
}

/// A glance torn by a crash or a half-done read, changed, written by another wf, or
/// with anything past its mark that changes the state is no glance.
#[test]
fn a_torn_changed_foreign_or_stale_glance_is_never_used() {
    let t = killed_at_t3();
    let good = std::fs::read(glance_path(&t)).unwrap();
    let eol = good.iter().position(|&b| b == b'\n').unwrap();
    let tries: Vec<(&str, Vec<u8>)> = vec![
        ("torn", good[..good.len() - 10].to_vec()),
        ("a header only", good[..=eol].to_vec()),
        ("a byte of its body changed", {
            let mut b = good.clone();
            let at = eol + (good.len() - eol) / 2;
            b[at] = if b[at] == b'1' { b'2' } else { b'1' };
            b
        }),
        ("another wf's", {
            let text = String::from_utf8(good.clone()).unwrap();
            text.replacen("wf-glance ", "wf-glance 0.0.1+", 1)
                .into_bytes()
        }),
        ("empty", Vec::new()),
    ];
    for (what, bytes) in tries {
        std::fs::write(glance_path(&t), bytes).unwrap();
        loads_it_whole(&t, what);
    }
    // Whole again, with stale bytes of a longer glance after it: used.
    let mut longer = good.clone();
    longer.extend_from_slice(b"{\"left\": \"over\"}");
    std::fs::write(glance_path(&t), &longer).unwrap();
    same_as_the_whole_load(&t, "restored", "the glance");
    // Progress past its mark: the whole load shows it.
    t3_completed(&t);
    loads_it_whole(&t, "a task completed past the glance");
    let whole = read(&t, &["status"], None, None).stdout;
    assert!(whole.contains("(3/50 done"), "{whole}");
}

/// A log cut before the glance's mark (a power loss takes back what was not synced)
/// makes the glance stale: what the log still holds is the answer.
#[test]
fn a_glance_past_the_end_of_the_log_is_never_used() {
    let t = killed_at_t3();
    let log = t.workflow_dir().join("events.jsonl");
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let kept = lines[..lines.len() - 2].join("\n") + "\n";
    std::fs::write(&log, kept).unwrap();
    loads_it_whole(&t, "log cut before the mark");
}

/// After a kill that left the glance behind the log, the first read folds the
/// tail the summary's way and leaves a glance of what it found: the reads after it
/// take that glance, and answer as the whole load does.
#[test]
fn the_first_read_past_a_stale_glance_leaves_one_the_next_reads_take() {
    let t = killed_at_t3_keeping(false);
    t3_completed(&t);
    let before = std::fs::read(glance_path(&t)).unwrap();
    let first = read(&t, &["status"], None, Some("WF_TEST_NO_FULL_LOAD"));
    assert!(first.stdout.contains("(3/50 done"), "{first:?}");
    assert!(
        std::fs::read(glance_path(&t)).unwrap() != before,
        "no glance left"
    );
    only_the_glance(&t);
    same_as_the_whole_load(&t, "the glance a read left", "the glance");
    let status = read(&t, &["status"], None, Some("WF_TEST_NO_FULL_LOAD")).stdout;
    assert!(status.contains("(3/50 done"), "{status}");
}

/// While a writer holds the lock, a reader leaves its glance alone: the writer
/// keeps its own in place, and one renamed over it would be lost to it.
#[test]
fn a_reader_leaves_the_glance_alone_while_the_lock_is_held() {
    let t = killed_at_t3_keeping(false);
    t3_completed(&t);
    let before = std::fs::read(glance_path(&t)).unwrap();
    let lock = std::fs::File::open(t.workflow_dir().join(".lock")).unwrap();
    lock.lock().unwrap();
    let status = read(&t, &["status"], None, None).stdout;
    assert!(status.contains("(3/50 done"), "{status}");
    assert!(
        std::fs::read(glance_path(&t)).unwrap() == before,
        "written under the lock"
    );
    lock.unlock().unwrap();
    read(&t, &["status"], None, None);
    assert!(
        std::fs::read(glance_path(&t)).unwrap() != before,
        "lock free: not written"
    );
}

/// A save makes the summary current: the run that ends takes its glance with it, and
/// reads do not look at one that names a snapshot gone.
#[test]
fn a_run_that_ends_leaves_no_glance() {
    let t = Test::new();
    let ids: Vec<String> = (1..=5).map(|i| format!("T{i}")).collect();
    let tasks: Vec<_> = ids
        .iter()
        .map(|id| task(id, "one").verify("true"))
        .collect();
    start(&t, &plan(&tasks));
    t.wf(&["workflow-execute", "--all", "--ci"]).ok();
    assert!(!glance_path(&t).exists(), "the glance outlived the run");
    let status = read(&t, &["status"], None, Some("WF_TEST_NO_FULL_LOAD")).stdout;
    assert!(status.contains("(5/5 done"), "{status}");
}
