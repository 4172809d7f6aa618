//! The portable proof (docs/proof.md "Portable proof"): `wf proof export` writes the
//! evidence of every completed task, `wf proof check` confirms it against a working
//! tree — in place, and in a fresh copy of the project with no workflow at all —
//! names each task whose inputs changed (and its dependants), and catches a document
//! edited by hand. And `wf show TASK`, which prints one task's evidence and whether
//! it still holds.

use serde_json::Value;

use crate::plans::{plan, start, task};
use crate::test::Test;

/// A completed plan T1 ← T2 ← T3, each task declaring one file that its check
/// reads, and T4 skipped.
fn completed() -> Test {
    let t = Test::new();
    for f in ["a.txt", "b.txt", "c.txt"] {
        t.write(f, "ok\n");
    }
    start(
        &t,
        &plan(&[
            task("T1", "build")
                .field("文件", "a.txt")
                .verify("grep -q ok a.txt"),
            task("T2", "build")
                .field("文件", "b.txt")
                .deps("T1")
                .verify("grep -q ok b.txt"),
            task("T3", "build")
                .field("文件", "c.txt")
                .deps("T2")
                .verify("grep -q ok c.txt"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    t
}

#[test]
fn an_exported_proof_checks_in_place_and_in_a_fresh_copy_without_the_workflow() {
    let t = completed();
    let run = t.wf(&["proof", "export", "p.json"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    Wrote p.json: the proof of 3 completed tasks. Check it anywhere with `wf proof check p.json`.
    --- stderr
    ");
    let doc: Value = serde_json::from_str(&t.read("p.json")).expect("the proof is JSON");
    assert_eq!(doc["kind"], "wf.proof");
    assert_eq!(doc["plan_file"], "tasks.md");
    assert_eq!(doc["exported_at"], crate::test::NOW);
    let ids: Vec<&str> = doc["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| t["id"].as_str().expect("id"))
        .collect();
    assert_eq!(ids, ["T1", "T2", "T3"]);
    assert_eq!(
        doc["tasks"][1]["evidence"]["inputs"]["files"][0]["path"],
        "b.txt"
    );
    assert_eq!(
        doc["tasks"][1]["evidence"]["inputs"]["deps"][0]["fingerprint"],
        doc["tasks"][0]["evidence"]["inputs"]["fingerprint"]
    );

    let run = t.wf(&["proof", "check", "p.json"]).ok();
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    p.json: all 3 proven tasks match the working tree.
    --- stderr
    ");

    // The project's files, not the workflow: a fresh clone elsewhere.
    let clone = Test::new();
    for f in ["a.txt", "b.txt", "c.txt", "p.json", "tasks.md"] {
        clone.write(f, t.read(f));
    }
    clone.wf(&["status"]).code(2);
    let run = clone.wf(&["proof", "check", "p.json"]).ok();
    assert_eq!(
        run.stdout,
        "p.json: all 3 proven tasks match the working tree.\n"
    );
    let run = clone.wf(&["proof", "check", "p.json", "--json"]).ok();
    assert_eq!(run.json()["counts"]["matches"], 3);
    assert!(
        !clone.home.join(clone.project_id()).exists(),
        "a check writes no workflow"
    );
}

#[test]
fn an_edited_file_names_its_task_and_every_task_downstream() {
    let t = completed();
    t.wf(&["proof", "export", "p.json"]).ok();
    t.write("b.txt", "ok, edited\n");
    let run = t.wf(&["proof", "check", "p.json"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    --- stderr
    ✗ T2 changed: b.txt changed
    ✗ T3 changed: its dependency T2 changed
    p.json: 1 of 3 proven tasks match the working tree. Changed since the export: T2, T3; `wf verify` checks them again, then export again.
    ");
    let run = t.wf(&["proof", "check", "p.json", "--json"]).code(1);
    let doc = run.json();
    assert_eq!(doc["mismatches"], serde_json::json!(["T2", "T3"]));
    assert_eq!(doc["tasks"][1]["files"], serde_json::json!(["b.txt"]));
    assert_eq!(doc["tasks"][2]["deps"], serde_json::json!(["T2"]));

    // Put back as it was: the proof holds again.
    t.write("b.txt", "ok\n");
    t.wf(&["proof", "check", "p.json"]).ok();
}

#[test]
fn a_digest_edited_by_hand_is_reported_as_tampered() {
    let t = completed();
    t.wf(&["proof", "export", "p.json"]).ok();
    // Make the document agree with an edited a.txt without recomputing T1's
    // fingerprint, as someone covering up a change would.
    t.write("a.txt", "ok, but not what passed\n");
    let mut doc: Value = serde_json::from_str(&t.read("p.json")).expect("JSON");
    let digest = format!("sha256:{}", sha256_hex(b"ok, but not what passed\n"));
    doc["tasks"][0]["evidence"]["inputs"]["files"][0]["digest"] = Value::String(digest);
    t.write("p.json", serde_json::to_string_pretty(&doc).expect("JSON"));
    let run = t.wf(&["proof", "check", "p.json"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    --- stderr
    ✗ T1 was edited after the export: its recorded fingerprint is not the hash of its recorded inputs
    ✗ T2 changed: its dependency T1 changed
    ✗ T3 changed: its dependency T2 changed
    ✗ p.json was edited after the export: its digest is not the hash of its content
    p.json: 0 of 3 proven tasks match the working tree. Changed since the export: T2, T3; `wf verify` checks them again, then export again. Edited after the export: T1. The document proves nothing as it stands: export it again where the workflow is.
    ");
    let run = t.wf(&["proof", "check", "p.json", "--json"]).code(1);
    assert_eq!(run.json()["tasks"][0]["result"], "tampered");
}

#[test]
fn an_edit_outside_the_fingerprints_is_caught_by_the_document_digest() {
    let t = completed();
    t.wf(&["proof", "export", "p.json"]).ok();
    let mut doc: Value = serde_json::from_str(&t.read("p.json")).expect("JSON");
    doc["tasks"][2]["evidence"]["checks"][0]["argv"] = serde_json::json!(["pytest", "-q"]);
    t.write("p.json", serde_json::to_string(&doc).expect("JSON"));
    let run = t.wf(&["proof", "check", "p.json"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    --- stderr
    ✗ p.json was edited after the export: its digest is not the hash of its content
    p.json: 3 of 3 proven tasks match the working tree. The document proves nothing as it stands: export it again where the workflow is.
    ");
    let doc = t.wf(&["proof", "check", "p.json", "--json"]).code(1).json();
    assert_eq!(
        (doc["ok"].clone(), doc["intact"].clone()),
        (Value::Bool(false), Value::Bool(false))
    );
    assert_eq!(doc["mismatches"], serde_json::json!([]));
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    format!("{:x}", sha2::Sha256::digest(bytes))
}

#[test]
fn what_is_not_a_proof_document_exits_2_with_one_line_naming_the_file() {
    let t = Test::new();
    t.write("torn.json", "{ \"kind\": \"wf.proof\", ");
    t.write("other.json", "{\"kind\": \"wf.task_result\"}");
    t.write("short.json", "{\"kind\": \"wf.proof\", \"tasks\": []}");
    for (file, start) in [
        ("torn.json", "torn.json:1:"),
        ("other.json", "other.json: not a wf proof document"),
        ("short.json", "short.json:1:"),
        ("missing.json", "cannot read missing.json: "),
    ] {
        let run = t.wf(&["proof", "check", file]).code(2);
        let line = run.stderr.strip_prefix("wf: error: ").expect(&run.stderr);
        assert!(line.starts_with(start), "{file}: {line}");
        assert_eq!(line.lines().count(), 1, "{file}: {line}");
        assert!(line.contains("wf proof export"), "{file}: {line}");
    }
}

#[test]
fn export_without_a_workflow_says_how_to_start_one() {
    let t = Test::new();
    let run = t.wf(&["proof", "export", "p.json"]).code(2);
    assert!(run.stderr.contains("wf workflow-start"), "{}", run.stderr);
    assert!(!t.project.join("p.json").exists());
}

/// `text` with each shortened fingerprint as `sha256:[FP]`: what a fingerprint
/// covers is `src/proof/fingerprint.rs`'s to test, not the layout's.
fn unhashed(text: &str) -> String {
    regex::Regex::new("sha256:[0-9a-f]{12}")
        .expect("a valid regex")
        .replace_all(text, "sha256:[FP]")
        .into_owned()
}

#[test]
fn show_prints_a_task_its_evidence_and_whether_it_still_holds() {
    let t = completed();
    insta::assert_snapshot!(unhashed(&t.wf(&["show", "T2"]).ok().whole()), @"
    exit: 0
    --- stdout
    T2  task T2
    status     completed
    phase      build
    deps       T1
    files      b.txt
    checks     grep -q ok b.txt
    evidence   passed at 2026-01-08T10:00:00Z, fingerprint sha256:[FP]
      check    grep -q ok b.txt → exit 0 (N.Ns)
      cached   no
    now        up to date
    --- stderr
    ");
    t.write("a.txt", "ok, edited\n");
    insta::assert_snapshot!(unhashed(&t.wf(&["show", "T3"]).ok().whole()), @"
    exit: 0
    --- stdout
    T3  task T3
    status     completed
    phase      build
    deps       T2
    files      c.txt
    checks     grep -q ok c.txt
    evidence   passed at 2026-01-08T10:00:00Z, fingerprint sha256:[FP]
      check    grep -q ok c.txt → exit 0 (N.Ns)
      cached   no
    now        not up to date: its dependency T2 changed; `wf verify T3` checks it again
    --- stderr
    ");
    let doc = t.wf(&["show", "T1", "--json"]).ok().json();
    assert_eq!(doc["task"]["id"], "T1");
    assert_eq!(doc["task"]["status"], "completed");
    assert_eq!(doc["up_to_date"], false);
    assert_eq!(doc["changed"], serde_json::json!(["a.txt changed"]));
    t.write("a.txt", "ok\n");
    let doc = t.wf(&["show", "T3", "--json"]).ok().json();
    assert_eq!(doc["up_to_date"], true);
    assert_eq!(
        doc["fingerprint_now"],
        doc["task"]["evidence"]["inputs"]["fingerprint"]
    );
}

#[test]
fn show_a_pending_task_and_an_unknown_one() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "build").field("创建文件", "new.py")]),
    );
    insta::assert_snapshot!(t.wf(&["show", "T1"]).ok().whole(), @"
    exit: 0
    --- stdout
    T1  task T1
    status     pending
    phase      build
    deps       none
    files      new.py
    checks     none of its own; wf checks what its line names:
      derived  `new.py` exists and is not empty
      derived  `new.py` changed since the task was handed off (created, if it was not there)
      derived  the work changed at least one file
      derived  at the end of phase `build`, the project's tests: none that passed at the phase's start may fail
    evidence   none: it is pending
    --- stderr
    ");
    assert_eq!(
        t.wf(&["show", "T1", "--json"]).ok().json()["up_to_date"],
        Value::Null
    );
    insta::assert_snapshot!(t.wf(&["show", "T9"]).code(2).whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: no task T9 in this workflow; `wf status --all` lists the task ids (and `wf show <TAB>` completes them)
    ");
}
