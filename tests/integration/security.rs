//! Security tests: hostile plan text stays text, `wf` writes only inside its
//! workflow dir, its files are not world-writable, and links are refused.
//!
//! - Task names, ids, file fields, requirements, titles and `--name` carrying
//!   `$(touch PWNED)`, backticks, `; rm`, `../../`, newlines and NULs: nothing runs
//!   but the plan's own command fields, no path leaves the workflow dir, and a bad
//!   id is rejected (or, if accepted, is a safe id).
//! - With umask 000, no file or directory `wf` creates is world-writable.
//! - A symlinked state file, lock file, event log, plan copy, `logs/` or workflow
//!   dir is refused (exit 2) and the file it points to stays as it was.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::plans::{plan, start, task};
use crate::test::{snapshot_dir, Test};

const HOSTILE: &[&str] = &[
    "$(touch PWNED)",
    "`touch PWNED`",
    "; touch PWNED; rm -rf ../../victim",
    "../../victim/escape",
    "/tmp/../../victim/abs",
    "| touch PWNED &",
];

/// Every file under `root` that `touch PWNED` would have made. (Plan copies may
/// carry the text in their sanitized names; that is text, not execution.)
fn pwned(root: &Path) -> Vec<PathBuf> {
    snapshot_dir(root)
        .into_iter()
        .map(|(p, _)| p)
        .filter(|p| p.file_name().is_some_and(|n| n == "PWNED"))
        .collect()
}

/// A victim directory beside the project; nothing may touch it.
fn victim(t: &Test) -> PathBuf {
    let dir = t.root.join("victim");
    std::fs::create_dir_all(&dir).expect("victim dir");
    std::fs::write(dir.join("keep.txt"), "keep\n").expect("victim file");
    dir
}

#[test]
fn hostile_ids_are_rejected() {
    let ids = [
        "T1$(touch PWNED)",
        "T1`touch PWNED`",
        "T1;rm",
        "T1/../../victim",
        "../../T1",
        "T1\u{0}x",
    ];
    for id in ids {
        for text in [
            format!("## T0: fine\n- **actions**: x\n\n## {id}: evil\n- **actions**: x\n"),
            format!("## Phase 1: a\n\n- [ ] T001 fine\n- [ ] {id} evil\n"),
            format!("## T0: fine\n- **actions**: x\n- **依赖**: {id}\n"),
        ] {
            let t = Test::new();
            let victim = victim(&t);
            t.write("tasks.md", &text);
            let run = t.wf(&["workflow-start", "tasks.md"]);
            assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
            if run.code == 0 {
                // Accepted only if the hostile part was not taken as an id.
                let state = t.state();
                for task in state["tasks"].as_array().expect("tasks") {
                    let got = task["id"].as_str().unwrap_or("");
                    assert!(
                        wf::project::validate_id(got).is_ok() || got.contains('.'),
                        "id {got:?} accepted from {text:?}"
                    );
                    assert!(!got.contains('/') && !got.contains('$'), "{got:?}");
                }
            } else {
                assert_eq!(run.code, 2, "{text:?}: {}", run.stderr);
                // Each error one line of its own (a plan's graph errors all come
                // at once): nothing the id holds starts a line.
                assert!(
                    run.stderr.lines().all(|l| l.starts_with("wf: error: ")),
                    "{}",
                    run.stderr
                );
            }
            assert!(pwned(&t.root).is_empty(), "{text:?} ran something");
            assert_eq!(snapshot_dir(&victim).len(), 1);
        }
    }
}

#[test]
fn hostile_plan_text_is_never_executed_and_no_path_leaves_the_workflow_dir() {
    let t = Test::new();
    let victim = victim(&t);
    let victim_before = snapshot_dir(&victim);
    let mut tasks = Vec::new();
    for (n, evil) in HOSTILE.iter().enumerate() {
        let id: &'static str = Box::leak(format!("T{}", n + 1).into_boxed_str());
        tasks.push(
            task(id, "a")
                .field("文件", *evil)
                .field("修改文件", *evil)
                .field("测试文件", *evil)
                .field("复用", *evil)
                .field("设计参考", *evil)
                .field("验收", *evil)
                .field("阻塞依赖", "")
                .verify("true"),
        );
    }
    let mut text = plan(&tasks);
    // Names, phase and requirement lines carry it too; a newline inside a field
    // starts a new line, which is plain text to the parser.
    for evil in HOSTILE {
        text = text.replacen(
            "- **需求**: do",
            &format!("- **需求**: {evil}\n  ; touch PWNED\n  do"),
            1,
        );
    }
    text = text.replace(
        "# Tasks: test plan",
        "# Tasks: $(touch PWNED) ../../victim/title",
    );
    text = text.replace(": task T1", ": `touch PWNED` $(touch PWNED) ../../victim");
    start(&t, &text);
    let evil_name = "../../victim/name$(touch PWNED)\nsecond line";
    t.wf(&["workflow-start", "--force", "--name", evil_name, "tasks.md"])
        .ok();
    let run = t.wf(&["workflow-execute", "--ci"]);
    assert!(matches!(run.code, 0 | 1), "{}", run.stderr);
    for args in [
        &["status", "--detail"][..],
        &["status", "--json"],
        &["graph"],
        &["graph", "--format", "dot"],
        &["events"],
        &["next"],
        &["report", "junit"],
        &["report", "github-summary"],
    ] {
        let run = t.wf(args);
        assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    }
    assert!(
        pwned(&t.root).is_empty(),
        "plan text was executed: {:?}",
        pwned(&t.root)
    );
    assert_eq!(
        snapshot_dir(&victim),
        victim_before,
        "the victim dir changed"
    );
    // Everything wf wrote is in the workflow dir: the home holds nothing else.
    let wdir = t.workflow_dir();
    for (path, _) in snapshot_dir(&t.home) {
        assert!(
            path.starts_with(&wdir),
            "{} is outside the workflow dir",
            path.display()
        );
    }
    // The plan copies' names are sanitized to one component.
    for (path, _) in snapshot_dir(&wdir) {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(
            !name.contains('\n') && !name.contains('$'),
            "odd file name {name:?}"
        );
    }
}

#[test]
fn a_nul_in_a_plan_is_refused_before_anything_runs() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "## T1: a\u{0}$(touch PWNED)\n- **验证命令**: `touch PWNED`\n",
    );
    let run = t.wf(&["workflow-start", "tasks.md"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: tasks.md:1:9: contains a NUL byte, so it is not a text file; give a UTF-8 markdown plan
    ");
    assert!(!t.workflow_dir().join("workflow-state.json").exists());
    assert!(pwned(&t.root).is_empty());
}

#[test]
fn regression_task_logs_were_world_writable_under_umask_000() {
    let t = Test::new();
    t.write(
        "tasks.md",
        plan(&[
            task("T1", "a").verify("echo one"),
            task("T2", "a").verify("echo two").deps("T1"),
        ]),
    );
    let run = |args: &[&str]| {
        let mut cmd = t.command(args);
        // SAFETY: umask(2) in the child between fork and exec; async-signal-safe.
        unsafe {
            cmd.pre_exec(|| {
                libc::umask(0);
                Ok(())
            });
        }
        let out = cmd
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("run wf");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    run(&["workflow-start", "tasks.md"]);
    run(&["workflow-execute"]);
    run(&["constraints", "add", "keep it safe"]);
    run(&["archive"]);
    run(&["workflow-start", "tasks.md"]);
    let mut seen = 0;
    let mut stack = vec![t.home.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let meta = entry.metadata().expect("metadata");
            let mode = meta.permissions().mode();
            assert_eq!(
                mode & 0o002,
                0,
                "{} is world-writable ({mode:o})",
                entry.path().display()
            );
            seen += 1;
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    assert!(seen >= 8, "only {seen} files checked");
}

/// Moves `name` in the workflow dir out to `outside` and links it back; returns the
/// target's bytes (or listing) to compare afterwards.
fn link_out(t: &Test, name: &str) -> (PathBuf, Vec<(PathBuf, Vec<u8>)>) {
    let inside = t.workflow_dir().join(name);
    let outside = t
        .root
        .join(format!("outside-{}", name.trim_start_matches('.')));
    if inside.exists() {
        std::fs::rename(&inside, &outside).expect("move out");
    } else {
        std::fs::create_dir_all(&outside).expect("outside dir");
    }
    std::os::unix::fs::symlink(&outside, &inside).expect("symlink");
    let snap = if outside.is_dir() {
        snapshot_dir(&outside)
    } else {
        vec![(outside.clone(), std::fs::read(&outside).expect("read"))]
    };
    (outside, snap)
}

#[test]
fn symlinks_in_the_workflow_dir_are_refused_not_followed() {
    for (name, args) in [
        ("workflow-state.json", &["workflow-execute"][..]),
        ("workflow-state.json", &["constraints", "add", "x"]),
        (".lock", &["workflow-execute"]),
        (".lock", &["workflow-unblock", "all"]),
        ("events.jsonl", &["workflow-execute"]),
        ("logs", &["workflow-execute"]),
        ("changes", &["workflow-execute"]),
        (
            "tasks-test-plan.md",
            &["workflow-start", "--force", "tasks.md"],
        ),
    ] {
        let t = Test::new();
        start(&t, &plan(&[task("T1", "a").verify("echo hi")]));
        let (outside, before) = link_out(&t, name);
        let run = t.wf(args);
        assert_eq!(run.code, 2, "{name} / {args:?}: {}", run.stderr);
        assert!(
            run.stderr.contains("is a symbolic link"),
            "{name}: {}",
            run.stderr
        );
        let after = if outside.is_dir() {
            snapshot_dir(&outside)
        } else {
            vec![(outside.clone(), std::fs::read(&outside).expect("read"))]
        };
        assert_eq!(
            before, after,
            "{name}: the link's target was written through"
        );
    }
}

#[test]
fn a_symlinked_workflow_dir_is_refused_for_reads_and_writes() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("echo hi")]));
    let dir = t.workflow_dir();
    let outside = t.root.join("outside-dir");
    std::fs::rename(&dir, &outside).expect("move");
    std::os::unix::fs::symlink(&outside, &dir).expect("link");
    let before = snapshot_dir(&outside);
    for args in [
        &["status"][..],
        &["workflow-execute"],
        &["constraints", "add", "x"],
    ] {
        let run = t.wf(args).code(2);
        assert!(
            run.stderr.contains("is a symbolic link"),
            "{args:?}: {}",
            run.stderr
        );
    }
    assert_eq!(snapshot_dir(&outside), before);
}

#[test]
fn regression_a_symlinked_logs_dir_sent_task_logs_outside() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("echo hi")]));
    let (outside, before) = link_out(&t, "logs");
    t.wf(&["workflow-execute"]).code(2);
    assert_eq!(
        snapshot_dir(&outside),
        before,
        "a task log was written through the link"
    );
}

#[test]
fn regression_a_symlink_planted_at_a_task_log_was_followed() {
    let t = Test::new();
    start(&t, &plan(&[task("T1", "a").verify("echo hi; exit 1")]));
    let outside = t.root.join("outside.txt");
    std::fs::write(&outside, "untouched\n").unwrap();
    let logs = t.workflow_dir().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    std::os::unix::fs::symlink(&outside, logs.join("T1.1.log")).unwrap();
    t.wf(&["workflow-execute"]).code(1);
    assert_eq!(
        std::fs::read_to_string(&outside).unwrap(),
        "untouched\n",
        "the log was written through the link"
    );
}

#[test]
fn plan_text_in_a_runs_lines_cannot_drive_the_terminal() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "# Tasks: x\n\n## T1: evil \u{1b}]0;pwned\u{7} name\n- **阶段**: a\n- **验证命令**: echo \u{1b}[2J; false\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let run = t.wf(&["workflow-execute", "--all"]).code(1);
    assert!(
        run.stdout.contains(r"T1 evil \u{1b}]0;pwned\u{7} name"),
        "{run:?}"
    );
    assert!(
        !run.stdout.contains('\u{1b}') && !run.stderr.contains('\u{1b}'),
        "{run:?}"
    );
}
