//! Hostile surroundings: a stdout whose reader is gone, a FIFO where a file belongs,
//! absurd numbers in the config, a full disk, escape sequences in a task's output,
//! and constraint ids that must never come back.
//!
//! Every run here has a deadline, so a hang fails the test instead of the suite.

use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::plans::{plan, start, task};
use crate::test::{Run, Test};

/// `wf ARGS` with stdout a pipe whose reader has already gone, as after
/// `wf … | head -1` once `head` has its line: every write to it fails with EPIPE.
#[track_caller]
fn with_closed_stdout(t: &Test, args: &[&str]) -> Run {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let mut cmd = t.command(args);
    cmd.stdout(writer);
    t.within(cmd, 30)
}

#[track_caller]
fn assert_quiet(run: &Run, code: i32, what: &str) {
    assert_eq!(run.code, code, "{what}: exit code\nstderr:\n{}", run.stderr);
    for noise in ["panicked", "Broken pipe", "cannot write to stdout"] {
        assert!(
            !run.stderr.contains(noise),
            "{what}: {noise:?} on stderr:\n{}",
            run.stderr
        );
    }
}

fn mkfifo(path: &Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).expect("path");
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0, "mkfifo");
}

/// A workflow of `n` passing tasks and one that fails, imported.
fn workflow(t: &Test, n: usize) {
    let ids: Vec<String> = (1..=n).map(|i| format!("T{i}")).collect();
    let mut tasks: Vec<_> = ids
        .iter()
        .map(|id| task(id, "build").verify("true"))
        .collect();
    tasks.push(task("T999", "build").verify("false"));
    start(t, &plan(&tasks));
}

// ---- issue 14 item 5: constraint ids ----

#[test]
fn constraint_ids_are_not_reused_after_removing_the_newest() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    assert_eq!(
        t.wf(&["constraints", "add", "a"]).ok().stdout.trim(),
        "C001"
    );
    assert_eq!(
        t.wf(&["constraints", "add", "b"]).ok().stdout.trim(),
        "C002"
    );
    t.wf(&["constraints", "remove", "C002"]).ok();
    assert_eq!(
        t.wf(&["constraints", "add", "c"]).ok().stdout.trim(),
        "C003"
    );
    // Kept in the state file, so it survives the save and the next load.
    assert_eq!(t.state_file()["constraints"]["lastId"], 3);
    t.wf(&["constraints", "remove", "C003"]).ok();
    t.wf(&["constraints", "remove", "C001"]).ok();
    assert_eq!(
        t.wf(&["constraints", "add", "d", "--soft"])
            .ok()
            .stdout
            .trim(),
        "C004"
    );
    // A merged set's C002 is not the removed C002: it gets a fresh id.
    t.write(
        "model.json",
        json!({"soft": [{"id": "C002", "description": "a model's own", "sourceModel": "codex"}]})
            .to_string(),
    );
    t.wf(&["constraints", "merge", "model.json"]).ok();
    let c = &t.state_file()["constraints"];
    let ids: Vec<&str> = c["soft"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["C004", "C005"]);
    assert_eq!(c["lastId"], 5);
}

// ---- issue 14 item 6: a closed stdout ----

#[test]
fn a_closed_pipe_ends_report_junit_quietly() {
    let t = Test::new();
    workflow(&t, 300);
    t.wf(&["workflow-execute"]).code(1);
    for format in ["junit", "github-annotations", "github-summary"] {
        let run = with_closed_stdout(&t, &["report", format]);
        assert_quiet(&run, 0, format);
    }
    let run = with_closed_stdout(&t, &["--json", "report", "junit"]);
    assert_quiet(&run, 0, "--json report junit");
}

#[test]
fn a_closed_pipe_ends_completions_and_man_quietly() {
    let t = Test::new();
    for args in [
        &["completions", "bash"][..],
        &["completions", "zsh"],
        &["man"],
    ] {
        let run = with_closed_stdout(&t, args);
        assert_quiet(&run, 0, &args.join(" "));
    }
}

#[test]
fn a_closed_pipe_ends_every_read_command_quietly() {
    let t = Test::new();
    workflow(&t, 20);
    t.wf(&["constraints", "add", "x"]).ok();
    for args in [
        &["status"][..],
        &["--json", "status"],
        &["next"],
        &["graph"],
        &["events"],
        &["constraints", "list"],
        &["resources"],
    ] {
        let run = with_closed_stdout(&t, args);
        assert_quiet(&run, 0, &args.join(" "));
    }
}

#[test]
fn a_closed_pipe_in_github_mode_execute_keeps_the_failure_code() {
    let mut t = Test::new();
    workflow(&t, 5);
    t.env("GITHUB_ACTIONS", "true");
    let run = with_closed_stdout(&t, &["workflow-execute"]);
    // The run went on to the end and failed on T999, as it would with a reader.
    assert_quiet(&run, 1, "GitHub-mode execute");
    assert!(run.stderr.contains("Failed:"), "{}", run.stderr);
    assert_eq!(t.state()["status"], "failed");
}

#[test]
fn a_closed_pipe_never_breaks_a_hook() {
    let t = Test::new();
    workflow(&t, 3);
    for event in ["SessionStart", "UserPromptSubmit"] {
        let run = with_closed_stdout(&t, &["hook", event]);
        assert_quiet(&run, 0, event);
        assert!(run.stderr.is_empty(), "{event}: {}", run.stderr);
    }
    // A Stop that blocks a handed-off task has a long answer to write.
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "impl")
            .field("actions", "create_file")
            .field("创建文件", "hello.txt")
            .verify("seq 1 5000; false")]),
    );
    t.wf(&["workflow-execute"]).code(0);
    let run = with_closed_stdout(&t, &["hook", "Stop"]);
    assert_quiet(&run, 0, "Stop");
    assert!(run.stderr.is_empty(), "Stop: {}", run.stderr);
}

// ---- issue 14 item 7: a FIFO where a file belongs ----

#[test]
fn a_fifo_as_the_state_is_refused_at_once() {
    let t = Test::new();
    workflow(&t, 2);
    let state = t.workflow_dir().join("workflow-state.json");
    std::fs::remove_file(&state).unwrap();
    mkfifo(&state);
    for args in [
        &["status"][..],
        &["next"],
        &["graph"],
        &["constraints", "list"],
        &["report", "junit"],
        &["workflow-execute"],
    ] {
        let run = t.within(t.command(args), 5);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("workflow-state.json is a FIFO")
                && run.stderr.contains("not a regular file"),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_fifo_as_the_state_does_not_hang_the_stop_hook() {
    let t = Test::new();
    workflow(&t, 2);
    let state = t.workflow_dir().join("workflow-state.json");
    std::fs::remove_file(&state).unwrap();
    mkfifo(&state);
    for event in ["Stop", "SubagentStop", "SessionStart", "UserPromptSubmit"] {
        let started = Instant::now();
        let run = t.within(t.command(&["hook", event]), 2);
        assert!(started.elapsed() < Duration::from_secs(2), "{event}");
        assert_eq!(run.code, 0, "{event}: {}", run.stderr);
        assert!(
            run.stderr.contains(&format!("wf hook {event}:")) && run.stderr.contains("FIFO"),
            "{event}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{event}: {}", run.stdout);
    }
}

#[test]
fn a_fifo_as_the_event_log_the_lock_or_the_config_is_refused_at_once() {
    let t = Test::new();
    workflow(&t, 2);
    let events = t.workflow_dir().join("events.jsonl");
    std::fs::remove_file(&events).unwrap();
    mkfifo(&events);
    for args in [&["status"][..], &["events"], &["workflow-execute"]] {
        let run = t.within(t.command(args), 5);
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("events.jsonl is a FIFO"),
            "{}",
            run.stderr
        );
    }
    std::fs::remove_file(&events).unwrap();

    let lock = t.workflow_dir().join(".lock");
    let _ = std::fs::remove_file(&lock);
    mkfifo(&lock);
    t.within(t.command(&["status"]), 5).ok();
    let run = t.within(t.command(&["workflow-execute"]), 5).code(2);
    assert!(run.stderr.contains(".lock is a FIFO"), "{}", run.stderr);
    std::fs::remove_file(&lock).unwrap();

    let config = t.project.join(".claude/config/project-config.json");
    std::fs::create_dir_all(config.parent().unwrap()).unwrap();
    mkfifo(&config);
    let run = t.within(t.command(&["status"]), 5).code(2);
    assert!(
        run.stderr.contains("project-config.json is a FIFO"),
        "{}",
        run.stderr
    );
    let run = t.within(t.command(&["hook", "Stop"]), 2).ok();
    assert!(run.stderr.contains("FIFO"), "{}", run.stderr);
}

// ---- issue 14 item 8: absurd numbers ----

#[test]
fn absurd_config_timeout_is_a_config_error_not_a_panic() {
    let t = Test::new();
    workflow(&t, 1);
    t.wf(&[
        "constraints",
        "add",
        "dir exists",
        "--verify-cmd",
        "test -d .",
    ])
    .ok();
    for (config, key, range) in [
        (
            json!({"wf": {"timeout_secs": u64::MAX}}),
            "wf.timeout_secs is 18446744073709551615",
            "1..=604800",
        ),
        (
            json!({"wf": {"timeout_secs": 0}}),
            "wf.timeout_secs is 0",
            "1..=604800",
        ),
        (
            json!({"wf": {"context_window_tokens": 0}}),
            "wf.context_window_tokens is 0",
            "1..=1000000000",
        ),
        (
            json!({"wf": {"max_retries": 1000}}),
            "wf.max_retries is 1000",
            "0..=100",
        ),
        (
            json!({"wf": {"executors": [{"name": "x", "command": ["x"], "timeout_secs": u64::MAX}]}}),
            "wf.executors[0].timeout_secs is 18446744073709551615",
            "1..=604800",
        ),
        (
            json!({"wf": {"executors": [{"name": "x", "command": ["x"], "max_parallel": 0}]}}),
            "wf.executors[0].max_parallel is 0",
            "1..=64",
        ),
        (
            json!({"wf": {"executors": [{"name": "x", "command": ["x"], "level": 0}]}}),
            "wf.executors[0].level is 0",
            "1..=100",
        ),
    ] {
        t.config(config.to_string());
        for args in [&["constraints", "verify"][..], &["workflow-execute"]] {
            let run = t.within(t.command(args), 30);
            assert_eq!(run.code, 2, "{config} {args:?}: {}", run.stderr);
            assert!(
                run.stderr.contains("project-config.json:")
                    && run.stderr.contains(key)
                    && run.stderr.contains(range),
                "{config}: {}",
                run.stderr
            );
        }
    }
}

#[test]
fn a_huge_wait_or_plan_timeout_does_not_overflow_the_deadline() {
    let t = Test::new();
    start(
        &t,
        &plan(&[task("T1", "a")
            .verify("true")
            .field("timeout", "18446744073709551615")]),
    );
    t.within(
        t.command(&["--wait", "18446744073709551615", "constraints", "add", "x"]),
        30,
    )
    .ok();
    t.within(t.command(&["workflow-execute"]), 30).ok();
}

// ---- issue 14 item 12: I/O errors, escapes, oversized commands ----

#[test]
fn io_errors_exit_7_not_2() {
    let t = Test::new();
    workflow(&t, 1);
    let run = t.wf(&["report", "junit", "-o", "/dev/full"]).code(7);
    assert!(
        run.stderr.contains("cannot write /dev/full: No space left"),
        "{}",
        run.stderr
    );
    let run = t.wf(&["--json", "report", "junit", "-o", "/dev/full"]);
    assert_eq!(run.json()["error"]["kind"], "io");
    assert_eq!(run.json()["error"]["exit_code"], 7);
    let full = std::fs::File::options()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let mut cmd = t.command(&["status"]);
    cmd.stdout(full);
    let run = t.within(cmd, 10);
    assert_eq!(run.code, 7, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("wf: error: cannot write to stdout: No space left"),
        "{}",
        run.stderr
    );
    // A path that cannot be one is still bad input; a missing directory is made.
    t.write("file", "");
    t.wf(&["report", "junit", "-o", "file/x.xml"]).code(2);
    t.wf(&["report", "junit", "-o", "made/by/wf/x.xml"]).ok();
    assert!(t.project.join("made/by/wf/x.xml").is_file());
}

#[test]
fn task_output_replayed_in_a_failure_tail_shows_control_sequences_escaped() {
    let t = Test::new();
    t.write(
        "noisy.sh",
        "printf 'plain line\\n\\033[31mred\\033[0m\\n\\033]0;pwned\\007title\\n\\033[2J\\033cwiped\\n'\nexit 1\n",
    );
    start(&t, &plan(&[task("T1", "a").verify("sh noisy.sh")]));
    let run = t.wf(&["workflow-execute"]).code(1);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("--- last lines of"), "{all}");
    assert!(all.contains("| plain line"), "{all}");
    // Colour is dropped (shown as escapes it buries the words); the rest is escaped.
    assert!(all.contains("| red\n"), "{all}");
    assert!(all.contains(r"| \u{1b}]0;pwned\u{7}title"), "{all}");
    assert!(all.contains(r"| \u{1b}[2J\u{1b}cwiped"), "{all}");
    assert!(
        !all.contains('\x1b'),
        "an escape reached the terminal: {all:?}"
    );
    assert!(!all.contains('\x07'), "a BEL reached the terminal: {all:?}");
}

#[test]
fn a_verify_command_over_128_kib_is_refused_at_import() {
    let t = Test::new();
    let big = format!("echo {}", "x".repeat(128 * 1024));
    t.write(
        "tasks.md",
        plan(&[task("T1", "a").verify("true"), task("T2", "a").verify(&big)]),
    );
    let run = t.wf(&["workflow-start", "tasks.md"]).code(2);
    assert!(
        run.stderr.contains(
            "tasks.md:11: task T2's verify command is 131077 bytes, more than the 131072"
        ),
        "{}",
        &run.stderr[..run.stderr.len().min(300)]
    );
    assert!(!t.workflow_dir().join("workflow-state.json").exists());
}

#[test]
fn a_fifo_at_a_task_log_does_not_hang_execute() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("echo output; false")]));
    let logs = t.workflow_dir().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    mkfifo(&logs.join("T1.1.log"));
    let run = t.within(t.command(&["workflow-execute"]), 10).code(1);
    let state = t.state();
    let reason = state["tasks"][0]["failure_reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("exited with 1") && reason.contains("cannot write the log"),
        "{reason} / {}",
        run.stderr
    );
}

/// The dirs under the workflow's `archive/`, each with how many entries it holds.
fn archive_dirs(t: &Test) -> Vec<(String, usize)> {
    let Ok(entries) = std::fs::read_dir(t.workflow_dir().join("archive")) else {
        return Vec::new();
    };
    let mut dirs: Vec<(String, usize)> = entries
        .flatten()
        .map(|e| {
            let n = std::fs::read_dir(e.path()).map_or(0, Iterator::count);
            (e.file_name().to_string_lossy().into_owned(), n)
        })
        .collect();
    dirs.sort();
    dirs
}

/// An `archive` killed or stopped by a failing write at any point leaves, once the
/// next command has run, one archive holding the workflow (or none, the workflow
/// still here) — never an empty `archive/<time>/` beside it nor an `.archiving`
/// journal.
#[test]
fn a_stopped_archive_leaves_no_empty_dir_or_journal_after_the_next_command() {
    let t = Test::new();
    let mut archives = 0;
    let mut archive_once = |how: &[(&str, &str)]| -> bool {
        start(&t, &plan(&[task("T1", "a").verify("true")]));
        t.wf(&["workflow-execute", "--all"]).ok();
        let mut cmd = t.command(&["archive"]);
        for (key, value) in how {
            cmd.env(key, value);
        }
        cmd.stdout(std::process::Stdio::piped());
        let stopped = t.within(cmd, 30).code != 0;
        // The next command finishes or undoes it.
        t.wf(&["archive"]);
        archives += 1;
        let dirs = archive_dirs(&t);
        assert!(
            !t.workflow_dir().join(".archiving").exists(),
            "{how:?}: a stale journal"
        );
        assert!(
            dirs.iter().all(|(_, n)| *n > 0),
            "{how:?}: an empty archive dir: {dirs:?}"
        );
        assert_eq!(dirs.len(), archives, "{how:?}: {dirs:?}");
        assert!(!t.workflow_dir().join("workflow-state.json").exists());
        stopped
    };
    // Killed at the first rename, as SIGKILL would.
    assert!(archive_once(&[("WF_TEST_CRASH_AT", "before-rename")]));
    for op in ["create", "write", "fsync", "rename"] {
        for n in 1.. {
            let fault = format!("{op}:{n}");
            if !archive_once(&[("WF_TEST_FAULT", &fault)]) {
                break;
            }
        }
    }
}

/// A link, a FIFO or a directory the user names is refused with that path and what
/// it is — not with a word about wf's own workflow directory, which the user never
/// named.
#[test]
fn errors_about_a_path_the_user_named_name_it_and_no_workflow_directory() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    t.wf(&["workflow-execute", "--all"]).ok();
    t.write("real.json", "{}");
    std::os::unix::fs::symlink(t.project.join("real.json"), t.project.join("link.json")).unwrap();
    mkfifo(&t.project.join("fifo.json"));
    std::fs::create_dir(t.project.join("dir.json")).unwrap();
    let rows: [(&[&str], &str); 6] = [
        (
            &["import-results", "link.json"],
            "link.json is a symbolic link",
        ),
        (
            &["proof", "check", "link.json"],
            "link.json is a symbolic link",
        ),
        (
            &["proof", "check", "fifo.json"],
            "fifo.json is a FIFO (named pipe)",
        ),
        (&["proof", "check", "dir.json"], "dir.json is a directory"),
        (
            &["constraints", "merge", "fifo.json"],
            "fifo.json is a FIFO (named pipe)",
        ),
        (
            &["-C", "real.json", "status"],
            "real.json is not a directory",
        ),
    ];
    for (args, says) in rows {
        let run = t.within(t.command(args), 30);
        assert_ne!(run.code, 0, "{args:?}");
        assert!(run.stderr.contains(says), "{args:?}: {}", run.stderr);
        for wrong in ["workflow directory", "wf keeps its own data"] {
            assert!(!run.stderr.contains(wrong), "{args:?}: {}", run.stderr);
        }
    }
}

/// An output the user points at a pipe or a device (`-o /dev/null`, `-o /dev/stdout`)
/// is written into it, as a shell's `>` does, by every command that writes a file the
/// user names: replaced by a temp file renamed over it, the pipe or the device node
/// would become a plain file.
#[test]
fn an_output_named_onto_a_pipe_or_a_device_is_written_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("true")]));
    // The run first: the rows after it report and prove its completed task.
    let rows: [(&[&str], &str); 5] = [
        (
            &["workflow-execute", "--all", "--junit", "out"],
            "<testsuite",
        ),
        (&["report", "junit", "-o", "out"], "<testsuite"),
        (&["export", "github-actions", "-o", "out"], "jobs:"),
        (&["proof", "export", "out"], "\"tasks\""),
        (&["run-task", "T1", "--result", "out"], "\"task_id\""),
    ];
    for (args, holds) in rows {
        let fifo = t.project.join("out");
        mkfifo(&fifo);
        let (sent, got) = std::sync::mpsc::channel();
        let reader = fifo.clone();
        std::thread::spawn(move || sent.send(std::fs::read_to_string(reader)));
        let run = t.within(t.command(args), 30);
        assert_eq!(run.code, 0, "{args:?}: {}", run.stderr);
        let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "{args:?}: the pipe became {kind:?}");
        let text = got
            .recv_timeout(Duration::from_secs(30))
            .expect("read")
            .unwrap();
        assert!(text.contains(holds), "{args:?}: {text}");
        std::fs::remove_file(&fifo).unwrap();
    }
    // Through a link to a device or a pipe, as `/dev/stdout` is.
    let run = t.wf(&["report", "junit", "-o", "/dev/stdout"]).ok();
    assert!(run.stdout.contains("<testsuite"), "{}", run.stdout);
    // A device node, where this process may make one (as root): a copy of /dev/null.
    let null = t.project.join("null");
    let made = rustix::fs::mknodat(
        rustix::fs::CWD,
        &null,
        rustix::fs::FileType::CharacterDevice,
        rustix::fs::Mode::from_raw_mode(0o666),
        rustix::fs::makedev(1, 3),
    );
    if made.is_ok() {
        t.wf(&["proof", "export", "null"]).ok();
        let kind = std::fs::symlink_metadata(&null).unwrap().file_type();
        assert!(kind.is_char_device(), "the device became {kind:?}");
    }
}
