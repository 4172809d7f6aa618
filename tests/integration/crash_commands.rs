//! The crash soak of the commands beside the run: `import-results`, `verify`,
//! `proof export` and `archive`, each killed with SIGKILL at a random moment (a
//! seeded xorshift, as `crash.rs`), round after round, in turn.
//!
//! After every kill: the raw snapshot parses (or, for an archive that committed, is
//! gone), `wf status` reads what is there, the event log is gap-free, and no temp
//! file of the killed write is left once the next command has run. Then the same
//! command runs again without a kill and must finish what the killed one started:
//! every result imported and the workflow completed, with no task run here (an
//! import runs nothing, and `wf resume` after it must find nothing to do); every
//! task verified and still completed; a proof document that `wf proof check`
//! accepts; one archive directory holding the workflow.
//!
//! `cargo test` runs 16 rounds (four of each command); `scripts/crash-soak` runs
//! it with `WF_CRASH_ROUNDS` too.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::crash::{check_event_log, env_u64, run_and_kill, Rng};
use crate::plans::{plan, start, statuses, task, T};
use crate::test::Test;

const TASKS: usize = 30;

/// `TASKS` tasks in short chains, each check appending its id to `runs.log` and
/// declaring a file, so `verify` has inputs to fingerprint.
fn soak_plan() -> String {
    let tasks: Vec<T<'_>> = (1..=TASKS)
        .map(|n| {
            let id: &'static str = Box::leak(format!("T{n}").into_boxed_str());
            let t = task(id, "a")
                .verify(&format!("echo {id} >> runs.log"))
                .field("file", "input.txt");
            if n % 3 == 1 {
                t
            } else {
                let dep: &'static str = Box::leak(format!("T{}", n - 1).into_boxed_str());
                t.deps(dep)
            }
        })
        .collect();
    plan(&tasks)
}

/// The commands soaked, in turn.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Command {
    Import,
    Verify,
    ProofExport,
    Archive,
}

impl Command {
    const ALL: [Command; 4] = [
        Command::Import,
        Command::Verify,
        Command::ProofExport,
        Command::Archive,
    ];

    fn args(self) -> &'static [&'static str] {
        match self {
            Command::Import => &["import-results", "results"],
            Command::Verify => &["verify", "--all", "--no-cache"],
            Command::ProofExport => &["proof", "export", "proof.json"],
            Command::Archive => &["archive"],
        }
    }

    /// A workflow ready for the command: results to import, or a completed run.
    fn setup(self) -> Test {
        let t = Test::new();
        t.write("input.txt", "in\n");
        start(&t, &soak_plan());
        if self == Command::Import {
            let ids: Vec<String> = (1..=TASKS).map(|n| format!("T{n}")).collect();
            let mut args = vec!["run-task", "--result-dir", "results"];
            args.extend(ids.iter().map(String::as_str));
            t.wf(&args).ok();
        } else {
            t.wf(&["workflow-execute", "--ci", "--all"]).ok();
        }
        let _ = std::fs::remove_file(t.project.join("runs.log"));
        t
    }
}

/// The raw snapshot, checked to parse; `None` when there is none.
fn raw_state(t: &Test) -> Option<Value> {
    let path = t.workflow_dir().join("workflow-state.json");
    let bytes = std::fs::read(&path).ok()?;
    if let Err(e) = wf::state::store::parse_state(&path, &bytes) {
        panic!("the state file does not parse after a kill: {e}");
    }
    Some(serde_json::from_slice(&bytes).expect("state is JSON"))
}

/// The non-empty directories under `archive/`.
fn archives(t: &Test) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(t.workflow_dir().join("archive"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| std::fs::read_dir(p).is_ok_and(|mut d| d.next().is_some()))
        .collect()
}

fn temp_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".tmp-") || n.starts_with(".staged-"))
        .collect()
}

/// After a kill: what is on disk reads.
fn check_after_kill(t: &Test, what: &str) {
    let raw = raw_state(t);
    let status = t.wf(&["status", "--json"]);
    match &raw {
        Some(s) => {
            assert_eq!(status.code, 0, "{what}: status: {}", status.stderr);
            let seen = status.json()["state"].clone();
            for (id, st) in statuses(s) {
                if st == "completed" {
                    let folded = statuses(&seen).into_iter().find(|(i, _)| *i == id);
                    assert_eq!(
                        folded.map(|(_, s)| s).as_deref(),
                        Some("completed"),
                        "{what}: {id} is completed in the raw file only"
                    );
                }
            }
        }
        None => assert!(!archives(t).is_empty(), "{what}: the workflow vanished"),
    }
    let events = t.workflow_dir().join("events.jsonl");
    if events.exists() {
        check_event_log(&events);
    }
}

/// The command run again to its end, and what it must have finished. An archive
/// that committed before the kill (the state says `archived`, or is gone) is
/// finished by the next command that takes the lock, whichever it is: `wf archive`
/// then finds no workflow left to archive.
fn finish(t: &Test, cmd: Command, what: &str) {
    let committed =
        cmd == Command::Archive && raw_state(t).is_none_or(|s| s["status"] == "archived");
    let again = t.wf(cmd.args());
    if committed && again.code == 2 {
        assert!(
            again.stderr.contains("no workflow for"),
            "{what}: {}",
            again.whole()
        );
    } else {
        assert_eq!(again.code, 0, "{what}: the rerun: {}", again.whole());
    }
    assert!(
        temp_files(&t.workflow_dir()).is_empty() && temp_files(&t.project).is_empty(),
        "{what}: temp files left"
    );
    match cmd {
        Command::Import => {
            let state = t.state();
            assert_eq!(state["status"], "completed", "{what}");
            assert!(statuses(&state).iter().all(|(_, s)| s == "completed"));
            t.wf(&["resume", "--ci"]);
            assert!(
                !t.project.join("runs.log").exists(),
                "{what}: a task ran here after the import"
            );
            crate::plans::assert_invariants(t);
        }
        Command::Verify => {
            let state = t.state();
            assert_eq!(state["status"], "completed", "{what}");
            assert!(statuses(&state).iter().all(|(_, s)| s == "completed"));
            crate::plans::assert_invariants(t);
        }
        Command::ProofExport => {
            let check = t.wf(&["proof", "check", "proof.json"]);
            assert_eq!(check.code, 0, "{what}: {}", check.whole());
        }
        Command::Archive => {
            assert!(raw_state(t).is_none(), "{what}: the state is still there");
            let dirs = archives(t);
            assert_eq!(dirs.len(), 1, "{what}: archives {dirs:?}");
            assert!(dirs[0].join("workflow-state.json").exists(), "{what}");
        }
    }
}

#[test]
fn sigkill_in_import_verify_proof_export_and_archive_loses_nothing() {
    let seed = env_u64("WF_CRASH_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64)
    });
    let rounds = env_u64("WF_CRASH_ROUNDS").unwrap_or(16);
    let max_delay = env_u64("WF_CRASH_MAX_DELAY_MS").unwrap_or(60);
    eprintln!(
        "command crash soak: seed {seed}, {rounds} rounds, delays 0..={max_delay} ms (replay with WF_CRASH_SEED={seed})"
    );
    let mut rng = Rng::new(seed);
    let mut kills = [0u64; 4];
    let mut runs = [0u64; 4];
    for round in 0..rounds {
        let k = (round % 4) as usize;
        let cmd = Command::ALL[k];
        let t = cmd.setup();
        let delay = Duration::from_millis(rng.range(0, max_delay));
        let what = format!("seed {seed} round {round} {cmd:?} killed after {delay:?}");
        runs[k] += 1;
        match run_and_kill(&t, cmd.args(), delay) {
            None => kills[k] += 1,
            Some(code) => assert_eq!(code, 0, "{what}: it exited {code} by itself"),
        }
        check_after_kill(&t, &what);
        finish(&t, cmd, &what);
    }
    let line: Vec<String> = Command::ALL
        .iter()
        .enumerate()
        .map(|(k, c)| format!("{c:?} {}/{}", kills[k], runs[k]))
        .collect();
    eprintln!(
        "command crash soak figures: seed={seed} rounds={rounds} kills landed (of rounds): {}",
        line.join(", ")
    );
}
