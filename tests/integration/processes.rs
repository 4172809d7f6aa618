//! The processes a task starts: capped logs, no descendant outliving its task (by
//! completion, timeout or a signal to `wf`), and every terminating signal handled
//! like Ctrl-C.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::plans::{plan, start, task, task_status, T};
use crate::test::Test;

/// A `sleep` argument no other test (or other run of this suite) uses, so a
/// survivor can be found by its argv alone.
fn marker(n: u32) -> String {
    format!("300.{}{n:02}", std::process::id())
}

/// Live (non-zombie) processes with `arg` in their argv.
fn survivors(arg: &str) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        if !cmdline.split(|&b| b == 0).any(|a| a == arg.as_bytes()) {
            continue;
        }
        let zombie = std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|stat| {
            stat.rsplit(')')
                .next()
                .and_then(|rest| rest.split_whitespace().next())
                == Some("Z")
        });
        if !zombie {
            found.push(pid);
        }
    }
    found
}

/// Whether `pid` is a live process; a zombie is dead.
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            != Some("Z")
    })
}

/// Kills whatever a failing test left behind, so a red test leaks no sleeps.
struct Reap(Vec<String>);

impl Drop for Reap {
    fn drop(&mut self) {
        for m in &self.0 {
            for pid in survivors(m) {
                // SAFETY: kill(2) on a pid found by its unique argv; no memory touched.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }
}

/// No process with `arg` in its argv is alive (a killed one may take a moment to go).
#[track_caller]
fn assert_none_survive(arg: &str, when: &str) {
    let deadline = Instant::now() + Duration::from_secs(2);
    while !survivors(arg).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let left = survivors(arg);
    assert!(
        left.is_empty(),
        "`sleep {arg}` survived {when}: pids {left:?}"
    );
}

/// The ways a task's command can leave a process behind in a new session.
fn escapes(m: &[String]) -> String {
    format!(
        // setsid'd straight from the task's shell.
        "setsid sh -c 'sleep {}' & \
         sh -c 'setsid sh -c \"sleep {}\" &'; \
         ( setsid sleep {} > /dev/null 2>&1 & ); \
         sh -c '(setsid sh -c \"sh -c \\\"sleep {}\\\" &\" &) &'",
        m[0], m[1], m[2], m[3]
    )
}

fn markers(first: u32) -> Vec<String> {
    (first..first + 4).map(marker).collect()
}

/// Spawns `wf ARGS` and waits until `file` exists in the project.
fn spawn_until(t: &Test, args: &[&str], file: &str) -> Child {
    spawn_ignoring_until(t, args, &[], file)
}

/// [`spawn_until`], `wf` started with the signals in `ignored` ignored (as `nohup`
/// starts it) and the other ones these tests send at their default — so they reach
/// wf as from a terminal even when the tests run under `nohup`.
fn spawn_ignoring_until(t: &Test, args: &[&str], ignored: &'static [i32], file: &str) -> Child {
    let mut cmd = t.command(args);
    crate::test::signals_at_default_but(&mut cmd, ignored);
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn wf");
    let path = t.project.join(file);
    let deadline = Instant::now() + Duration::from_secs(30);
    while !path.exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(path.exists(), "{file} never appeared");
    // Let the task's shell start the rest of its line.
    std::thread::sleep(Duration::from_millis(300));
    child
}

#[test]
fn unbounded_task_log_is_capped_keeping_head_and_tail() {
    let t = Test::new();
    t.config(r#"{"wf": {"log_cap_bytes": 100000}}"#);
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("echo FIRST-LINE; yes | head -c 5000000; echo; echo LAST-LINE")
        ]),
    );
    t.wf(&["workflow-execute"]).ok();
    let log = std::fs::read(t.workflow_dir().join("logs/T1.1.log")).expect("log");
    let text = String::from_utf8_lossy(&log);
    // The cap bounds the output; the `$ command` header and the marker line are extra.
    let header = text.lines().next().unwrap_or("").len() + 1;
    assert!(
        log.len() <= 100_000 + header + 120,
        "log is {} bytes",
        log.len()
    );
    assert!(text.contains("FIRST-LINE"), "head lost");
    assert!(text.trim_end().ends_with("LAST-LINE"), "tail lost");
    let marker_line = text
        .lines()
        .find(|l| l.contains("bytes elided"))
        .expect("a marker line");
    // 5,000,000 of `y\n`, two marker lines and a newline, less the 100,000 kept.
    let elided: u64 = marker_line
        .split_whitespace()
        .find_map(|w| w.parse().ok())
        .expect("a count in the marker");
    assert_eq!(elided, 5_000_000 + 11 + 10 + 1 - 100_000, "{marker_line}");
}

#[test]
fn log_cap_out_of_range_is_refused_naming_the_key() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    t.config("{\"wf\": {\n  \"log_cap_bytes\": 10\n}}");
    let run = t.wf(&["workflow-execute"]);
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("project-config.json:2:")
            && run
                .stderr
                .contains("wf.log_cap_bytes is 10, outside 4096..="),
        "{}",
        run.stderr
    );
    assert_eq!(task_status(&t.state_file(), "T1"), "pending");
}

#[test]
fn a_log_that_cannot_be_written_fails_softly_with_its_reason() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("echo output; false")]));
    // A link where the log goes: the log is refused (never followed) and cannot be
    // written, as on a full disk.
    let logs = t.workflow_dir().join("logs");
    std::fs::create_dir_all(&logs).expect("logs dir");
    std::os::unix::fs::symlink("/dev/null", logs.join("T1.1.log")).expect("link");
    let run = t.wf(&["workflow-execute"]).code(1);
    insta::assert_snapshot!(run.whole(), @"
    exit: 1
    --- stdout
    ▶ T1 task T1
    ✗ T1 task T1: check `echo output; false` exited with 1 (cannot write the log [ROOT]/home/[ID]/logs/T1.1.log: Too many levels of symbolic links (os error 40))
    --- stderr
    Failed: task T1 failed: check `echo output; false` exited with 1 (cannot write the log [ROOT]/home/[ID]/logs/T1.1.log: Too many levels of symbolic links (os error 40))
    `wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.
    ");
    let state = t.state();
    assert_eq!(task_status(&state, "T1"), "failed");
    let reason = state["tasks"][0]["failure_reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("exited with 1") && reason.contains("log") && reason.contains("T1.1.log"),
        "{reason}"
    );
}

#[test]
fn setsid_descendants_escaped_a_completed_task() {
    let t = Test::new();
    let m = markers(0);
    let _reap = Reap(m.clone());
    start(&t, &plan(&[task("T1", "a").verify(&escapes(&m))]));
    t.wf(&["workflow-execute"]).ok();
    assert_eq!(t.state()["status"], "completed");
    for arg in &m {
        assert_none_survive(arg, "a completed task");
    }
}

#[test]
fn setsid_descendants_escaped_a_timeout() {
    let t = Test::new();
    let m = markers(10);
    let _reap = Reap(m.clone());
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify(&format!("{}; sleep 100", escapes(&m)))
            .field("timeout", "1")]),
    );
    let run = t.wf(&["workflow-execute"]).code(1);
    assert!(run.stderr.contains("timed out"), "{}", run.stderr);

    for arg in &m {
        assert_none_survive(arg, "a timeout");
    }
}

#[test]
fn setsid_descendants_escaped_ctrl_c() {
    let t = Test::new();
    let m = markers(20);
    let _reap = Reap(m.clone());
    start(
        &t,
        &plan(&[task("T1", "a").verify(&format!("{}; touch started; sleep 100", escapes(&m)))]),
    );
    let child = spawn_until(&t, &["workflow-execute"], "started");
    // SAFETY: signalling a child process we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().expect("wait");
    assert_eq!(out.status.code(), Some(130));
    for arg in &m {
        assert_none_survive(arg, "Ctrl-C");
    }
}

#[test]
fn a_sweep_spared_another_running_tasks_processes() {
    // T1 ends while T2 runs; T2 depends on a process of its own that left T2's
    // session and lost its parent. T1's sweep ends T1's escapee and nothing of T2's.
    let t = Test::new();
    let m = marker(30);
    let _reap = Reap(vec![m.clone()]);
    start(
        &t,
        &plan(&[
            task("T1", "a").verify(&format!(
                "setsid sleep {m} & while ! test -f t2.waiting; do sleep 0.05; done"
            )),
            task("T2", "a")
                .verify(
                    "( setsid sh -c 'touch t2.waiting; sleep 1.5; echo done > t2.out' & ); \
                     while ! test -f t2.out; do sleep 0.05; done",
                )
                .field("timeout", "20"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--jobs", "2"]).ok();
    assert_eq!(t.state()["status"], "completed", "{}", run.stdout);
    assert_eq!(t.read("t2.out"), "done\n");
    assert_none_survive(&m, "its task with --jobs 2");
}

/// A task that writes part of its declared output, starts an escapee, and waits.
fn interrupted_task(m: &str) -> T<'static> {
    task("T1", "a")
        .verify(&format!(
            "echo half > out.txt; setsid sleep {m} & echo $$ > child.pid; touch started; sleep 100"
        ))
        .field("creates", "out.txt, never.txt")
}

fn signal_ends_the_run_like_ctrl_c(sig: i32, n: u32) {
    let t = Test::new();
    let m = marker(n);
    let _reap = Reap(vec![m.clone()]);
    start(&t, &plan(&[interrupted_task(&m)]));
    let child = spawn_until(&t, &["workflow-execute"], "started");
    // SAFETY: signalling a child process we spawned.
    unsafe { libc::kill(child.id() as i32, sig) };
    let out = child.wait_with_output().expect("wait");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(130),
        "signal {sig}: {:?}\n{stdout}\n{stderr}",
        out.status
    );
    let state = t.state();
    assert_eq!(state["status"], "paused", "signal {sig}");
    assert_eq!(task_status(&state, "T1"), "pending", "signal {sig}");
    let pid = t.read("child.pid").trim().to_string();
    assert!(
        !alive(&pid),
        "signal {sig}: the task's shell {pid} survived"
    );
    assert_none_survive(&m, &format!("signal {sig}"));
    // The partial output is named, in the run's output and in the event; the file
    // the task never wrote is not, and nothing is deleted.
    let said = format!("{stdout}{stderr}");
    assert!(
        said.contains("T1 was interrupted; it may have left a partial out.txt"),
        "signal {sig}: {said}"
    );
    assert!(!said.contains("never.txt"), "{said}");
    assert_eq!(t.read("out.txt"), "half\n");
    let events = std::fs::read_to_string(t.workflow_dir().join("events.jsonl")).expect("event log");
    let back: Vec<serde_json::Value> = events
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "task.status_changed" && e["data"]["to"] == "pending")
        .collect();
    assert_eq!(back.len(), 1, "signal {sig}: {events}");
    assert_eq!(
        back[0]["data"]["partial_outputs"],
        serde_json::json!(["out.txt"]),
        "signal {sig}"
    );
}

#[test]
fn sigint_ends_the_run_and_names_partial_outputs() {
    signal_ends_the_run_like_ctrl_c(libc::SIGINT, 40);
}

#[test]
fn sigterm_ends_the_run_like_ctrl_c() {
    signal_ends_the_run_like_ctrl_c(libc::SIGTERM, 41);
}

#[test]
fn sighup_left_tasks_running() {
    signal_ends_the_run_like_ctrl_c(libc::SIGHUP, 42);
}

#[test]
fn sigquit_left_tasks_running() {
    signal_ends_the_run_like_ctrl_c(libc::SIGQUIT, 43);
}

/// `nohup wf workflow-execute`: SIGHUP, ignored when `wf` started, stays ignored —
/// a closed terminal neither stops the run nor reaches its commands (which get it
/// ignored, as `nohup` promised them).
#[test]
fn a_sighup_ignored_at_start_stays_ignored_in_the_run_and_its_commands() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a").verify(
            "grep '^SigIgn' /proc/self/status > ign.txt; touch started; \
             i=0; while [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i+1)); done; [ -e go ]",
        )]),
    );
    let child = spawn_ignoring_until(&t, &["workflow-execute"], &[libc::SIGHUP], "started");
    // SAFETY: signalling a child process we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
    std::thread::sleep(Duration::from_millis(300));
    std::fs::write(t.project.join("go"), "").unwrap();
    let out = child.wait_with_output().expect("wait");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{:?}\n{said}", out.status);
    assert_eq!(t.state()["status"], "completed", "{said}");
    let ign = t.read("ign.txt");
    let mask = u64::from_str_radix(ign.split_whitespace().nth(1).unwrap(), 16).unwrap();
    assert_ne!(mask & (1 << (libc::SIGHUP - 1)), 0, "{ign}");
}

/// A command's stdin is `/dev/null`, never `wf`'s own: a command that reads stdin
/// finds it empty, though `wf` was given input.
#[test]
fn each_command_reads_dev_null_not_the_stdin_wf_was_given() {
    let mut t = Test::new();
    let check = |id: &str| {
        format!(
            "read x; echo \"read $? [$x] $(readlink /proc/self/fd/0)\" > in-{id}.txt; echo to-out; echo to-err >&2"
        )
    };
    start(
        &t,
        &plan(&[
            task("T1", "a").verify(&check("T1")),
            task("T2", "b").verify(&check("T2")),
        ]),
    );
    t.stdin("meant for wf, not its commands\n".repeat(4));
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    for id in ["T1", "T2"] {
        assert_eq!(
            t.read(&format!("in-{id}.txt")),
            "read 1 [] /dev/null\n",
            "{}",
            run.whole()
        );
        let log = std::fs::read_to_string(t.workflow_dir().join(format!("logs/{id}.1.log")))
            .expect("log");
        assert!(
            log.contains("to-out") && log.contains("to-err"),
            "{id}: {log}"
        );
    }
}

/// Each command opens its own `/dev/null`: what one does to its stdin (a lock taken
/// on it, here) is not left for the next. One kept open by `wf` and shared by every
/// command (tried) left T1's lock held for T2.
#[test]
fn a_commands_stdin_is_its_own_not_shared_with_the_next() {
    if std::process::Command::new("flock")
        .arg("-V")
        .output()
        .is_err()
    {
        panic!("the test needs util-linux's flock");
    }
    let t = Test::new();
    start(
        &t,
        &plan(&[
            task("T1", "a").verify("flock -x 0"),
            task("T2", "b")
                .deps("T1")
                .verify("flock -n -x /dev/null true; echo \"rc=$?\" > fl2.txt"),
        ]),
    );
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    assert_eq!(t.read("fl2.txt"), "rc=0\n", "{}", run.whole());
}
