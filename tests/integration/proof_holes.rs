//! The holes issue 47 found in the proof, one test each (docs/proof.md): a retry
//! that forgot what the first attempt changed, tasks sharing a file that failed
//! their own proof after a clean run, a stale proof exported without a word,
//! declared inputs the fingerprint did not see change, and a verification cache
//! that believed any record with the right fingerprint.
//!
//! Each of these failed on the main branch this work started from (90700e3).

use serde_json::{json, Value};

use crate::plans::{plan, start, task, task_status};
use crate::proof::{has_git, hello_project};
use crate::test::Test;

/// `proof::hello_project` with no executor: its task is handed off, and "the
/// agent" is the test.
fn handed_off_project(config: Value) -> Test {
    let t = hello_project(&config);
    t.wf(&["workflow-execute", "--all"]).code(0);
    t
}

fn all_output(run: &crate::test::Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

#[test]
fn a_retry_keeps_the_first_attempts_base_tree_so_an_undeclared_change_stays_refused() {
    if !has_git() {
        return;
    }
    let t = handed_off_project(json!({"reject_undeclared_changes": true}));
    t.write("hello.txt", "hello\n");
    t.write("notes.txt", "scribbled\n");
    let run = t.wf(&["workflow-execute", "--all"]).code(1);
    assert!(
        all_output(&run).contains("changed notes.txt, which the task does not declare"),
        "{}",
        all_output(&run)
    );
    // The retry hands the task off again; the agent does nothing more.
    t.wf(&["workflow-execute", "--all", "--retry", "T1"])
        .code(0);
    let run = t.wf(&["workflow-execute", "--all"]).code(1);
    assert!(
        all_output(&run).contains("changed notes.txt, which the task does not declare"),
        "the second attempt must not wash the first one's change: {}",
        all_output(&run)
    );
    assert_eq!(task_status(&t.state(), "T1"), "failed");
}

#[test]
fn evidence_after_a_retry_names_every_file_changed_across_the_attempts() {
    if !has_git() {
        return;
    }
    let t = handed_off_project(json!({}));
    // The first attempt scribbles on notes.txt and gets hello.txt wrong.
    t.write("hello.txt", "bye\n");
    t.write("notes.txt", "scribbled\n");
    t.wf(&["workflow-execute", "--all"]).code(1);
    t.wf(&["workflow-execute", "--all", "--retry", "T1"])
        .code(0);
    t.write("hello.txt", "hello\n");
    t.wf(&["workflow-execute", "--all"]).ok();
    let state = t.state();
    let changes = &state["tasks"][0]["evidence"]["changes"];
    assert_eq!(
        changes["files"],
        json!(["hello.txt", "notes.txt"]),
        "{state:#}"
    );
    assert_eq!(changes["undeclared"], json!(["notes.txt"]));
}

/// T1 writes shared.txt, T2 (after it) appends to it; both declare it.
fn sharing_a_file() -> Test {
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "build")
                .field("文件", "shared.txt")
                .verify("echo one > shared.txt"),
            task("T2", "build")
                .deps("T1")
                .field("文件", "shared.txt")
                .verify("echo two >> shared.txt"),
        ]),
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    t
}

#[test]
fn tasks_sharing_a_file_pass_their_own_proof_right_after_a_clean_run() {
    let t = sharing_a_file();
    t.wf(&["proof", "export", "proof.json"]).ok();
    let check = t.wf(&["proof", "check", "proof.json"]);
    assert_eq!(check.code, 0, "{}", all_output(&check));
    let dry = t.wf(&["verify", "--dry-run", "--json"]).ok().json();
    let results: Vec<&str> = dry["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["result"].as_str().unwrap())
        .collect();
    assert_eq!(results, ["up_to_date", "up_to_date"], "{dry:#}");
    // An edit after the run is the last task's to answer for, and its dependants'.
    t.write("shared.txt", "edited\n");
    let check = t.wf(&["proof", "check", "proof.json"]);
    assert_eq!(check.code, 1, "{}", all_output(&check));
    assert!(
        check.stderr.contains("T2 changed: shared.txt changed"),
        "{}",
        check.stderr
    );
}

#[test]
fn proof_export_refuses_stale_evidence_unless_told() {
    let t = sharing_a_file();
    t.write("shared.txt", "edited after the run\n");
    let refused = t.wf(&["proof", "export", "proof.json"]);
    assert_eq!(refused.code, 1, "{}", all_output(&refused));
    assert!(
        refused.stderr.contains("T2") && refused.stderr.contains("--allow-stale"),
        "{}",
        refused.stderr
    );
    assert!(!t.project.join("proof.json").exists(), "nothing written");
    let allowed = t
        .wf(&["proof", "export", "proof.json", "--allow-stale"])
        .ok();
    assert!(
        allowed.stderr.contains("out of date") || allowed.stdout.contains("out of date"),
        "said plainly: {}",
        all_output(&allowed)
    );
    assert!(t.project.join("proof.json").exists());
}

/// One command task declaring `path`, completed; then `edit` changes the project,
/// and `wf verify --dry-run` must want to run it again.
fn verify_sees(path: &str, before: impl Fn(&Test), edit: impl Fn(&Test)) -> Value {
    let t = Test::new();
    before(&t);
    start(
        &t,
        &plan(&[task("T1", "build").field("文件", path).verify("true")]),
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    let fresh = t.wf(&["verify", "--dry-run", "--json"]).ok().json();
    assert_eq!(fresh["tasks"][0]["result"], "up_to_date", "{fresh:#}");
    edit(&t);
    let dry = t.wf(&["verify", "--dry-run", "--json"]).ok().json();
    assert_eq!(dry["tasks"][0]["result"], "would_run", "{dry:#}");
    dry
}

fn symlink(t: &Test, target: &str, link: &str) {
    let path = t.project.join(link);
    let _ = std::fs::remove_file(&path);
    std::os::unix::fs::symlink(target, path).unwrap();
}

#[test]
fn a_declared_symlink_changes_the_fingerprint_when_it_points_elsewhere() {
    verify_sees(
        "link.txt",
        |t| {
            t.write("a.txt", "a\n").write("b.txt", "b\n");
            symlink(t, "a.txt", "link.txt");
        },
        |t| symlink(t, "b.txt", "link.txt"),
    );
    // And when what it points to changes.
    verify_sees(
        "link.txt",
        |t| {
            t.write("a.txt", "a\n");
            symlink(t, "a.txt", "link.txt");
        },
        |t| {
            t.write("a.txt", "changed\n");
        },
    );
}

#[test]
fn a_missing_declared_file_that_appears_as_a_link_changes_the_fingerprint() {
    let dry = verify_sees(
        "out.txt",
        |_| {},
        |t| symlink(t, "/etc/hostname", "out.txt"),
    );
    assert!(
        dry["tasks"][0]["why"].to_string().contains("out.txt"),
        "{dry:#}"
    );
}

#[test]
fn a_changed_exec_bit_changes_the_fingerprint() {
    use std::os::unix::fs::PermissionsExt as _;
    verify_sees(
        "run.sh",
        |t| {
            t.write("run.sh", "echo hi\n");
        },
        |t| {
            let path = t.project.join("run.sh");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        },
    );
}

#[test]
fn a_declared_directory_over_the_file_limit_is_never_up_to_date_silently() {
    let t = Test::new();
    for i in 0..10_001 {
        t.write(&format!("big/f{i}"), "x");
    }
    start(
        &t,
        &plan(&[task("T1", "build").field("文件", "big/").verify("true")]),
    );
    t.wf(&["workflow-execute", "--all"]).ok();
    t.write("big/f0", "changed");
    let dry = t.wf(&["verify", "--dry-run", "--json"]).ok().json();
    assert_eq!(dry["tasks"][0]["result"], "would_run", "{dry:#}");
    assert!(
        dry["tasks"][0]["why"].to_string().contains("big/"),
        "{dry:#}"
    );
}

/// A declared path outside the project was an input wf never read: its fingerprint
/// never changed. Such a path is no input now, and the import says so.
#[test]
fn a_declared_path_outside_the_project_is_no_input_and_said_at_import() {
    let t = Test::new();
    t.write(
        "tasks.md",
        plan(&[task("T1", "build")
            .field("文件", "../outside.txt")
            .field("修改文件", "inside.txt")
            .verify("true")]),
    );
    let run = t.wf(&["workflow-start", "tasks.md"]).ok();
    assert!(
        run.stderr
            .contains("tasks.md:3: task T1 names ../outside.txt, which is outside the project"),
        "{}",
        run.stderr
    );
    let files: Vec<String> = t.state()["tasks"][0]["modifies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert_eq!(files, ["inside.txt"]);
    assert!(t.state()["tasks"][0]["file"].is_null());
}

/// A command task whose only check is `false`, declaring a.txt, with its
/// fingerprint as it is now (what a cache record would be keyed by).
fn failing_task() -> (Test, String) {
    let t = Test::new();
    t.write("a.txt", "a\n");
    start(
        &t,
        &plan(&[task("T1", "build").field("文件", "a.txt").verify("false")]),
    );
    let show = t.wf(&["show", "T1", "--json"]).ok().json();
    let fingerprint = show["fingerprint_now"].as_str().unwrap().to_string();
    (t, fingerprint)
}

fn plant(t: &Test, name: &str, lines: &[Value]) {
    let dir = t.root.join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    let text: String = lines.iter().map(|l| l.to_string() + "\n").collect();
    std::fs::write(dir.join(name), text).unwrap();
}

fn record(fingerprint: &str, checks: Value) -> Value {
    json!({"kind": "wf.verification", "fingerprint": fingerprint, "task_id": "T1", "checks": checks, "at": "2026-01-01T00:00:00Z", "wf_version": "0.1.0"})
}

#[test]
fn a_planted_cache_record_whose_checks_are_not_the_tasks_completes_nothing() {
    for checks in [
        json!([]),
        json!([{"what": "check", "argv": ["true"], "exit_code": 0, "duration_ms": 1}]),
        json!([{"what": "check", "argv": ["/bin/sh", "-c", "false"], "exit_code": 1, "duration_ms": 1}]),
    ] {
        let (t, fingerprint) = failing_task();
        plant(&t, "1-1.jsonl", &[record(&fingerprint, checks.clone())]);
        let cache = t.root.join("cache").display().to_string();
        let run = t.wf(&["workflow-execute", "--all", "--cache", &cache]);
        assert_eq!(run.code, 1, "{checks}: {}", all_output(&run));
        assert_eq!(task_status(&t.state(), "T1"), "failed", "{checks}");
    }
}

#[test]
fn an_unreadable_cache_record_is_a_warning() {
    let (t, fingerprint) = failing_task();
    plant(
        &t,
        "1-1.jsonl",
        &[
            json!({"kind": "wf.verification", "fingerprint": fingerprint, "task_id": "T1", "checks": "broken"}),
        ],
    );
    let cache = t.root.join("cache").display().to_string();
    let run = t
        .wf(&["workflow-execute", "--all", "--cache", &cache])
        .code(1);
    let said = all_output(&run);
    assert!(
        said.contains("1-1.jsonl line 1: not a verification record"),
        "{said}"
    );
}

#[test]
fn the_cache_never_deletes_a_file_it_did_not_write() {
    let t = Test::new();
    t.write("a.txt", "a\n");
    start(
        &t,
        &plan(&[task("T1", "build").field("文件", "a.txt").verify("true")]),
    );
    // Enough segments that the next writer merges them, and two files of someone
    // else's: one with a name like a segment's, one not.
    for i in 0..40 {
        plant(
            &t,
            &format!("{i}-7.jsonl"),
            &[record(&format!("sha256:{i:064x}"), json!([]))],
        );
    }
    plant(&t, "notes.jsonl", &[json!({"mine": true})]);
    plant(&t, "99-7.jsonl", &[json!({"mine": true})]);
    let cache = t.root.join("cache").display().to_string();
    t.wf(&["workflow-execute", "--all", "--cache", &cache]).ok();
    assert!(t.root.join("cache/notes.jsonl").exists());
    assert!(t.root.join("cache/99-7.jsonl").exists());
}

#[test]
fn cache_segments_are_readable_by_the_group_that_reads_the_directory() {
    use std::os::unix::fs::PermissionsExt as _;
    let t = Test::new();
    t.write("a.txt", "a\n");
    start(
        &t,
        &plan(&[task("T1", "build").field("文件", "a.txt").verify("true")]),
    );
    let dir = t.root.join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o750)).unwrap();
    let cache = dir.display().to_string();
    t.wf(&["workflow-execute", "--all", "--cache", &cache]).ok();
    let segments: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(segments.len(), 1);
    let mode = segments[0].metadata().unwrap().permissions().mode() & 0o777;
    assert_eq!(mode & 0o040, 0o040, "group-readable: {mode:o}");
    assert_eq!(
        mode & 0o004,
        0,
        "not others', as the directory is not: {mode:o}"
    );
}

#[test]
fn a_cache_segment_over_the_size_limit_is_refused_unread() {
    let (t, _) = failing_task();
    let dir = t.root.join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    // Sparse: no disk is spent on it, but reading it whole would take 65 MiB.
    let big = std::fs::File::create(dir.join("2-2.jsonl")).unwrap();
    big.set_len(65 << 20).unwrap();
    let cache = dir.display().to_string();
    let run = t
        .wf(&["workflow-execute", "--all", "--cache", &cache])
        .code(1);
    let said = all_output(&run);
    assert!(
        said.contains("2-2.jsonl is 65 MiB, over the 64 MiB a segment may have"),
        "{said}"
    );
}

#[test]
fn a_spec_kit_task_whose_agent_did_nothing_is_refused_not_accepted() {
    if !has_git() {
        return;
    }
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks\n\n## Phase 1: Setup\n\n- [ ] T001 Create the project README in README.md\n",
    );
    t.git_commit_all();
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute"]).code(0);
    let run = t.wf(&["workflow-execute"]).code(1);
    assert!(
        all_output(&run).contains("README.md"),
        "the reason names the file: {}",
        all_output(&run)
    );
    assert_eq!(task_status(&t.state(), "T001"), "failed");
}
