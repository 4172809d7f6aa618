//! A task record changed in place under its task index (same inode, size and time)
//! is an error returned when a command reads it (`state::task_ref`): one line naming
//! the file and the task, exit code 5 (corrupt state), nothing written; the index is
//! dropped, so the next command reads the whole file and names what is wrong in it.

use std::collections::BTreeMap;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

use crate::plans::{plan, start, task};
use crate::test::Test;

/// A workflow of three tasks in a chain, the first run by `--step`.
fn three_one_done() -> Test {
    let t = Test::new();
    let tasks = [
        task("T1", "one").verify("true"),
        task("T2", "one").verify("true").deps("T1"),
        task("T3", "one").verify("true").deps("T2"),
    ];
    start(&t, &plan(&tasks));
    t.wf(&["workflow-execute", "--step"]).ok();
    t
}

/// Writes over T2's name in the snapshot, keeping its inode, size and time: the
/// record the task index names no longer reads as a task. Returns where.
pub(crate) fn change_t2_in_place(t: &Test) -> usize {
    let path = t.workflow_dir().join("workflow-state.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let before = std::fs::metadata(&path).unwrap();
    let at = text.find("\"name\": \"task T2\"").unwrap() + "\"name\": ".len();
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.write_all_at(b"123456789", at as u64).unwrap();
    file.set_modified(before.modified().unwrap()).unwrap();
    drop(file);
    let after = std::fs::metadata(&path).unwrap();
    let same = |m: &std::fs::Metadata| (m.ino(), m.len(), m.mtime(), m.mtime_nsec());
    assert_eq!(same(&after), same(&before));
    at
}

/// Every file of the workflow dir, by name, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            let name = entry.file_name().to_string_lossy().into_owned();
            out.insert(name, std::fs::read(entry.path()).unwrap());
        }
    }
    out
}

/// Runs `args` on a fresh [`three_one_done`] with T2 changed in place; returns the
/// run, the files before and after it, and where T2's name was written over.
fn run_changed(args: &[&str]) -> (Test, crate::test::Run, Files, Files, usize) {
    let t = three_one_done();
    let at = change_t2_in_place(&t);
    let before = files(&t.workflow_dir());
    let run = t.wf(args);
    let after = files(&t.workflow_dir());
    (t, run, before, after, at)
}

type Files = BTreeMap<String, Vec<u8>>;

/// The run's error, on one line: exit code 5, the file and the fix named.
fn refused(run: &crate::test::Run, says: &[&str]) {
    assert_eq!(run.code, 5, "{run:?}");
    assert_eq!(run.stderr.trim_end().lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("wf: error: "), "{}", run.stderr);
    for word in says {
        assert!(run.stderr.contains(word), "{word}: {}", run.stderr);
    }
}

/// The next command reads the whole file and names where it is wrong.
fn whole_load_names_it(t: &Test, args: &[&str]) {
    let again = t.wf(args);
    refused(
        &again,
        &[
            "workflow-state.json:",
            "does not fit the workflow-state layout",
        ],
    );
}

#[test]
fn a_run_that_reads_a_record_changed_in_place_returns_an_error_and_writes_nothing() {
    // A writer loads lazily: the record is read when the run looks at T2.
    let (t, run, mut before, after, at) = run_changed(&["workflow-execute"]);
    refused(
        &run,
        &[
            "workflow-state.json",
            "task T2",
            "changed in place",
            "Run the command again",
        ],
    );
    // Nothing written but the task index let go, so the next load is whole.
    assert!(before.remove("task-index.json").is_some());
    assert_eq!(before, after, "only the task index is gone");
    assert_eq!(&after["workflow-state.json"][at..at + 9], b"123456789");
    whole_load_names_it(&t, &["workflow-execute"]);

    // As an error returned, it reaches `--json` as the error document.
    let (_t, run, _, _, _) = run_changed(&["workflow-execute", "--json"]);
    assert_eq!(run.code, 5, "{run:?}");
    let doc: serde_json::Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(doc["error"]["kind"], "corrupt_state", "{doc}");
    assert_eq!(doc["error"]["exit_code"], 5, "{doc}");
    assert!(
        doc["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("task T2") && m.contains("changed in place")),
        "{doc}"
    );
}

#[test]
fn reads_refuse_the_changed_file_or_answer_without_the_record() {
    // `wf show` loads the whole file: the layout error, at its line.
    let (t, run, before, after, _) = run_changed(&["show", "T2"]);
    refused(
        &run,
        &[
            "workflow-state.json:",
            "does not fit the workflow-state layout",
        ],
    );
    assert_eq!(before, after);
    whole_load_names_it(&t, &["show", "T2"]);

    // `wf status` answers from the summary, which holds T2 whole: the record is
    // not read, and nothing changes.
    let (t, run, before, after, _) = run_changed(&["status"]);
    assert_eq!(run.code, 0, "{run:?}");
    assert!(run.stdout.contains("T2: task T2"), "{}", run.stdout);
    assert_eq!(before, after);
    // Once a run let the index go, `wf status` meets the change in the whole load.
    t.wf(&["workflow-execute"]);
    whole_load_names_it(&t, &["status", "--all"]);
}
