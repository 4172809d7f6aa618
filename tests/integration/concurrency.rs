//! The concurrency suite: 50 `wf` processes at once on one workflow.
//!
//! They mix `status`, `workflow-unblock`, `constraints add`, `workflow-execute` and
//! `resume`, half of the writers with `--wait`, half without. What must hold:
//! - exactly one execute runs at a time (task commands take a `mkdir` mutex and log
//!   their `wf`'s pid; a second holder or interleaved pids would show);
//! - a writer without `--wait` that finds the lock taken exits 4 (locked) and changes
//!   nothing; one with `--wait` always gets its turn;
//! - every constraint whose `add` exited 0 is in the final state, none that exited 4
//!   is (no lost update);
//! - readers never see a torn file: a watcher parses the snapshot the whole time,
//!   and every `status` exits 0;
//! - afterwards the event log is gap-free, every task ran exactly once, and the
//!   workflow completes.

use std::collections::HashMap;
use std::process::{Child, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::crash::check_event_log;
use crate::plans::{assert_invariants, plan, start, task, T};
use crate::test::Test;

const PHASES: [&str; 5] = ["a", "b", "c", "d", "e"];
const PER_PHASE: usize = 4;

/// 20 tasks in 5 phases (so each phase-mode execute does a slice), one of them
/// waiting on `api_spec` so `workflow-unblock` has something to do.
fn storm_plan() -> String {
    let mut tasks: Vec<T<'_>> = Vec::new();
    for (p, phase) in PHASES.iter().enumerate() {
        for k in 1..=PER_PHASE {
            let id: &'static str = Box::leak(format!("T{}", p * PER_PHASE + k).into_boxed_str());
            // The mutex: if another execute's task held it, mkdir fails and says so.
            let cmd = format!(
                "mkdir excl.d 2>/dev/null || echo OVERLAP {id} >> overlap.log; echo {id} $PPID >> runs.log; sleep 0.02; rmdir excl.d"
            );
            let mut t = task(id, phase).verify(&cmd);
            if id == "T10" {
                t = t.field("阻塞依赖", "api_spec");
            }
            tasks.push(t);
        }
    }
    plan(&tasks)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Kind {
    Status,
    Unblock,
    AddHard,
    AddSoft,
    Execute,
    Resume,
}

struct Proc {
    kind: Kind,
    wait: bool,
    description: Option<String>,
    child: Child,
}

#[test]
fn fifty_processes_on_one_workflow_lose_nothing() {
    let t = Test::new();
    start(&t, &storm_plan());
    let state_path = t.workflow_dir().join("workflow-state.json");

    // The watcher: parses the snapshot as fast as it can while the storm runs.
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicUsize::new(0));
    let watcher = {
        let (stop, reads, path) = (stop.clone(), reads.clone(), state_path.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let bytes = std::fs::read(&path).expect("the snapshot is always there");
                if let Err(e) = wf::state::store::parse_state(&path, &bytes) {
                    panic!("a reader saw a torn or invalid snapshot: {e}");
                }
                reads.fetch_add(1, Ordering::Relaxed);
            }
        })
    };

    // 10 execute, 8 resume, 12 status, 6 unblock, 7 hard + 7 soft adds = 50.
    let mut plan: Vec<(Kind, bool)> = Vec::new();
    for i in 0..10 {
        plan.push((Kind::Execute, i % 2 == 0));
    }
    for i in 0..8 {
        plan.push((Kind::Resume, i % 2 == 0));
    }
    for _ in 0..12 {
        plan.push((Kind::Status, false));
    }
    for i in 0..6 {
        plan.push((Kind::Unblock, i % 2 == 0));
    }
    // At most 7 per list: `add` refuses an 8th, which is not what this tests.
    for i in 0..7 {
        plan.push((Kind::AddHard, i % 2 == 0));
        plan.push((Kind::AddSoft, i % 2 == 1));
    }
    assert_eq!(plan.len(), 50);
    // Interleave the kinds so they start mixed, not in blocks.
    let mut order: Vec<usize> = (0..plan.len()).collect();
    let mut rng = crate::crash::Rng::new(0x5eed);
    for i in (1..order.len()).rev() {
        order.swap(i, rng.range(0, i as u64) as usize);
    }

    let mut procs = Vec::new();
    for (n, &i) in order.iter().enumerate() {
        let (kind, wait) = plan[i];
        let description = match kind {
            Kind::AddHard => Some(format!("hard constraint number {n}")),
            Kind::AddSoft => Some(format!("soft constraint number {n}")),
            _ => None,
        };
        let mut args: Vec<String> = match kind {
            Kind::Status => vec!["status".into(), "--json".into()],
            Kind::Unblock => vec!["workflow-unblock".into(), "api_spec".into()],
            Kind::AddHard => vec!["constraints".into(), "add".into()],
            Kind::AddSoft => vec!["constraints".into(), "add".into(), "--soft".into()],
            Kind::Execute => vec!["workflow-execute".into()],
            Kind::Resume => vec!["resume".into()],
        };
        if let Some(d) = &description {
            args.push(d.clone());
        }
        if wait {
            args.push("--wait".into());
            args.push("120".into());
        }
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let child = t
            .command(&argv)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn wf");
        procs.push(Proc {
            kind,
            wait,
            description,
            child,
        });
    }

    // Collect every outcome before asserting, so the watcher is stopped (and the
    // temp dir still there) whatever fails.
    let outcomes: Vec<(Kind, bool, Option<String>, i32, String)> = procs
        .into_iter()
        .map(|p| {
            let out = p.child.wait_with_output().expect("wait for wf");
            let code = out.status.code().unwrap_or(-1);
            let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
            (p.kind, p.wait, p.description, code, stderr)
        })
        .collect();
    stop.store(true, Ordering::Relaxed);
    watcher
        .join()
        .expect("the watcher saw only whole snapshots");

    let mut added: Vec<(Kind, String)> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    let mut codes: HashMap<(Kind, i32), usize> = HashMap::new();
    for (kind, wait, description, code, stderr) in outcomes {
        *codes.entry((kind, code)).or_insert(0) += 1;
        assert!(!stderr.contains("panicked"), "{kind:?} panicked: {stderr}");
        let allowed: &[i32] = match (kind, wait) {
            (Kind::Status, _) => &[0],
            (Kind::Execute | Kind::Resume, true) => &[0, 3],
            (Kind::Execute | Kind::Resume, false) => &[0, 3, 4],
            (_, true) => &[0],
            (_, false) => &[0, 4],
        };
        assert!(
            allowed.contains(&code),
            "{kind:?} (wait {wait}) exited {code}, expected one of {allowed:?}\n{stderr}"
        );
        if code == 4 {
            assert!(
                stderr.starts_with("wf: error: ") && stderr.contains("is locked by wf process"),
                "exit 4 must say who holds the lock: {stderr}"
            );
        }
        if let Some(d) = description {
            match code {
                0 => added.push((kind, d)),
                _ => refused.push(d),
            }
        }
    }
    eprintln!(
        "concurrency: exit codes {codes:?}; watcher parsed the snapshot {} times",
        reads.load(Ordering::Relaxed)
    );

    // No lost update: exactly the adds that succeeded are there.
    let state = t.state();
    for (kind, list) in [(Kind::AddHard, "hard"), (Kind::AddSoft, "soft")] {
        let mut have: Vec<String> = state["constraints"][list]
            .as_array()
            .expect("constraint list")
            .iter()
            .filter_map(|c| c["description"].as_str().map(str::to_string))
            .collect();
        let mut want: Vec<String> = added
            .iter()
            .filter(|(k, _)| *k == kind)
            .map(|(_, d)| d.clone())
            .collect();
        have.sort();
        want.sort();
        assert_eq!(have, want, "constraints.{list} lost or invented an update");
    }
    // Whole descriptions, not substrings: "… number 1" is inside "… number 12".
    let all: std::collections::HashSet<&str> = ["hard", "soft"]
        .iter()
        .filter_map(|list| state["constraints"][list].as_array())
        .flatten()
        .filter_map(|c| c["description"].as_str())
        .collect();
    for d in &refused {
        assert!(!all.contains(d.as_str()), "a refused add left {d:?}");
    }

    // Finish the run and check that every task ran once, one execute at a time.
    t.wf(&["workflow-unblock", "api_spec"]).ok();
    t.wf(&["resume", "--ci"]).ok();
    assert_eq!(t.state()["status"], "completed");
    assert!(
        !t.project.join("overlap.log").exists(),
        "two executes ran tasks at once: {}",
        t.read("overlap.log")
    );
    let runs = t.read("runs.log");
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut pids: Vec<&str> = Vec::new();
    for line in runs.lines() {
        let mut words = line.split(' ');
        let (Some(id), Some(pid)) = (words.next(), words.next()) else {
            panic!("odd runs.log line {line:?}");
        };
        *seen.entry(id).or_insert(0) += 1;
        if pids.last() != Some(&pid) {
            assert!(
                !pids.contains(&pid),
                "wf {pid} ran tasks again after another wf had run some: executes interleaved\n{runs}"
            );
            pids.push(pid);
        }
    }
    assert_eq!(seen.len(), PHASES.len() * PER_PHASE, "{runs}");
    assert!(seen.values().all(|&n| n == 1), "a task ran twice: {runs}");
    check_event_log(&t.workflow_dir().join("events.jsonl"));
    assert_invariants(&t);
}
