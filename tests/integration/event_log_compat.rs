//! Logs written by an older `wf` still read. `fixtures/events/` holds a log written
//! by `main` at 6cde2a2, before events were typed (`fixtures/events/make-fixture.sh`:
//! a constraint edit, a failure, a retry, a quality gate, a hand-off, a result
//! imported from `wf run-task`, a skip, a `--mock` rehearsal with retries, `wf
//! verify`), with the snapshot it started from and the state that `wf` folded the
//! two to. Today's readers and writers fold it to the same state.

use serde_json::Value;

use crate::test::{fixture, Test};

/// A workflow whose snapshot is the fixture's first and whose log is the whole
/// fixture log: every event after the import is past the snapshot's mark.
fn old_log() -> Test {
    let t = Test::new();
    let dir = t.workflow_dir();
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        fixture("events/start-state.json"),
        dir.join("workflow-state.json"),
    )
    .unwrap();
    std::fs::copy(fixture("events/events.jsonl"), dir.join("events.jsonl")).unwrap();
    t
}

fn folded_then() -> Value {
    let text = std::fs::read_to_string(fixture("events/folded-status.json")).unwrap();
    serde_json::from_str::<Value>(&text).unwrap()["state"].clone()
}

#[test]
fn a_log_written_before_events_were_typed_folds_as_it_did() {
    let t = old_log();
    assert_eq!(t.state(), folded_then());
}

#[test]
fn a_writer_folds_that_log_as_readers_do() {
    let t = old_log();
    // Takes the lock (the writer's load and fold), changes `unblocked` only, and
    // writes the snapshot the log was ahead of.
    t.wf(&["workflow-unblock", "api_spec"]).ok();
    let mut written = t.state_file();
    let mut expected = folded_then();
    assert_eq!(written["unblocked"], serde_json::json!(["api_spec"]));
    for state in [&mut written, &mut expected] {
        let fields = state.as_object_mut().unwrap();
        fields.remove("unblocked");
        fields.remove("event_log");
    }
    assert_eq!(written, expected);
}

#[test]
fn wf_events_shows_every_line_of_that_log() {
    let t = old_log();
    let lines = std::fs::read_to_string(fixture("events/events.jsonl")).unwrap();
    let shown = t.wf(&["events"]).ok().stdout;
    assert_eq!(shown.lines().count(), lines.lines().count(), "{shown}");
    let json = t.wf(&["events", "--json"]).ok().stdout;
    let stored: Vec<String> = lines
        .lines()
        .map(|l| format!("{{\"schemaVersion\":2,{}", &l[1..]))
        .collect();
    assert_eq!(
        json.lines().collect::<Vec<_>>(),
        stored,
        "--json: the lines as stored"
    );
}
