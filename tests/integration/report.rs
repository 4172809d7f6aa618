//! What users see and plug into: `status`, `next`, `graph`, `events`, `report`,
//! `archive`, completions and the man page, run against fixed states from
//! `fixtures/states/` (the commands that create states are tested elsewhere).

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::test::{fixture, snapshot_dir, Test};

/// A test whose workflow dir holds `fixtures/states/<name>` (a dir or one state file).
fn with_state(name: &str) -> Test {
    let t = Test::new();
    let src = fixture(&format!("states/{name}"));
    let dest = t.workflow_dir();
    std::fs::create_dir_all(&dest).expect("workflow dir");
    if src.is_dir() {
        copy_dir(&src, &dest);
    } else {
        std::fs::copy(&src, dest.join("workflow-state.json")).expect("copy state");
    }
    t
}

fn copy_dir(src: &Path, dest: &Path) {
    for entry in std::fs::read_dir(src).expect("read fixture dir").flatten() {
        let to = dest.join(entry.file_name());
        if entry.path().is_dir() {
            std::fs::create_dir_all(&to).expect("mkdir");
            copy_dir(&entry.path(), &to);
        } else {
            std::fs::copy(entry.path(), &to).expect("copy fixture");
        }
    }
}

/// Rewrites the state file through `edit`.
fn edit_state(t: &Test, edit: impl FnOnce(&mut Value)) {
    let path = t.workflow_dir().join("workflow-state.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    edit(&mut v);
    std::fs::write(&path, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
}

fn task_mut<'a>(state: &'a mut Value, id: &str) -> &'a mut Value {
    state["tasks"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|t| t["id"] == id)
        .unwrap()
}

/// Output with the temp paths replaced, so snapshots do not depend on them.
fn redact(t: &Test, text: &str) -> String {
    text.replace(&t.workflow_dir().display().to_string(), "[WORKFLOW_DIR]")
        .replace(&t.root.display().to_string(), "[TMP]")
}

fn event_line(seq: u64, kind: &str, task: Option<&str>, data: Value) -> String {
    let mut e = json!({
        "seq": seq, "ts": format!("2026-01-08T09:0{seq}:00Z"), "type": kind,
        "actor": "wf.orchestrator", "role": "orchestrator", "data": data,
    });
    if let Some(id) = task {
        e["task_id"] = id.into();
    }
    e.to_string()
}

// ---- status ----

#[test]
fn status_table() {
    let t = with_state("running");
    let run = t.wf(&["status"]).ok();
    insta::assert_snapshot!("status_plain", run.stdout);
}

#[test]
fn status_detail() {
    let t = with_state("running");
    let run = t.wf(&["status", "--detail"]).ok();
    insta::assert_snapshot!("status_detail", run.stdout);
}

#[test]
fn status_json() {
    let t = with_state("running");
    let run = t.wf(&["status", "--json"]).ok();
    let v = run.json();
    assert_eq!(v["schemaVersion"], 2);
    assert_eq!(v["state"]["status"], "running");
    assert_eq!(v["state"]["plugin_field_wf_does_not_know"]["kept"], true);
    assert_eq!(v["next_ready"], json!(["T6", "T8"]));
    assert_eq!(v["context"]["level"], "warning");
    assert_eq!(v["state"], t.state());
    assert_eq!(v["state"]["tasks"], t.state_file()["tasks"]);
    assert_eq!(
        v["paths"]["plan_copy"],
        Value::Null,
        "the fixture has no plan copy"
    );
    insta::assert_snapshot!("status_json", redact(&t, &run.stdout));
}

#[test]
fn st_is_status() {
    let t = with_state("running");
    assert_eq!(t.wf(&["st"]).ok().stdout, t.wf(&["status"]).ok().stdout);
}

#[test]
fn status_reports_the_plan_copy() {
    let t = with_state("running");
    std::fs::write(t.workflow_dir().join("tasks-user-auth.md"), "# plan\n").unwrap();
    let v = t.wf(&["status", "--json"]).ok().json();
    let copy = v["paths"]["plan_copy"].as_str().unwrap();
    assert!(copy.ends_with("/tasks-user-auth.md"), "{copy}");
}

#[test]
fn status_is_read_only() {
    let t = with_state("running");
    let events = t.workflow_dir().join("events.jsonl");
    let line = event_line(1, "task.execution_started", Some("T5"), json!({}));
    std::fs::write(&events, format!("{line}\n{{\"seq\":2,\"ts")).unwrap();
    t.write("README.md", "hello\n");
    let before = snapshot_dir(&t.home);
    t.wf(&["status"]).ok();
    t.wf(&["status", "--detail"]).ok();
    t.wf(&["status", "--json"]).ok();
    assert_eq!(snapshot_dir(&t.home), before);
    assert_eq!(t.read("README.md"), "hello\n");
}

#[test]
fn corrupt_state_is_reported_and_left_alone() {
    let t = with_state("running");
    let path = t.workflow_dir().join("workflow-state.json");
    std::fs::write(&path, "{\n  \"status\": \"running\",\n  \"tasks\": [\n").unwrap();
    let before = snapshot_dir(&t.home);
    let run = t.wf(&["status"]).code(5);
    assert!(
        run.stderr.contains(&format!("{}:4:", path.display())),
        "{}",
        run.stderr
    );
    t.wf(&["status", "--json"]).code(5);
    assert_eq!(snapshot_dir(&t.home), before);
}

#[test]
fn colour_follows_the_flag_and_no_color() {
    let t = with_state("running");
    let always = t.wf(&["--color", "always", "status"]).ok().stdout;
    assert!(always.contains("\x1b["), "{always}");
    let auto = t.wf(&["status"]).ok().stdout;
    assert!(
        !auto.contains('\x1b'),
        "NO_COLOR is set by the Test builder"
    );
    let never = t.wf(&["--color", "never", "status"]).ok().stdout;
    assert!(!never.contains('\x1b'));
    let mut t = t;
    t.env_remove("NO_COLOR");
    let piped = t.wf(&["status"]).ok().stdout;
    assert!(
        !piped.contains('\x1b'),
        "auto: no colour when stdout is a pipe"
    );
    t.env("NO_COLOR", "1");
    let forced = t.wf(&["--color", "always", "status"]).ok().stdout;
    assert!(
        forced.contains("\x1b["),
        "--color always wins over NO_COLOR"
    );
}

#[test]
fn quiet_status_prints_nothing() {
    let t = with_state("running");
    assert_eq!(t.wf(&["-q", "status"]).ok().stdout, "");
}

#[test]
fn status_of_a_plugin_written_state() {
    let t = Test::new();
    t.plugin_state();
    let run = t.wf(&["status"]).ok();
    assert!(run.stdout.contains("my-project"), "{}", run.stdout);
    let v = t.wf(&["status", "--json"]).ok().json();
    assert_eq!(v["progress"]["total"], 0);
    assert_eq!(v["state"]["collaboration"]["lead"], "codex");
}

#[test]
fn status_json_is_fast_on_a_thousand_tasks() {
    let t = Test::new();
    let tasks: Vec<Value> = (0..1000)
        .map(|i| {
            let deps: Vec<String> = (i.max(3) - 3..i).map(|d| format!("T{d}")).collect();
            let status = if i < 400 { "completed" } else { "pending" };
            json!({"id": format!("T{i}"), "name": format!("task {i}"), "phase": format!("P{}", i / 100),
                   "status": status, "deps": deps})
        })
        .collect();
    let state = json!({"status": "running", "project_name": "big", "tasks": tasks});
    std::fs::create_dir_all(t.workflow_dir()).unwrap();
    std::fs::write(
        t.workflow_dir().join("workflow-state.json"),
        state.to_string(),
    )
    .unwrap();
    t.wf(&["status", "--json"]).ok();
    let start = Instant::now();
    let v = t.wf(&["status", "--json"]).ok().json();
    let took = start.elapsed();
    assert_eq!(v["progress"]["total"], 1000);
    assert_eq!(v["next_ready"], json!(["T400"]));
    // Generous for a debug build on a busy CI machine; a release build takes a few ms.
    assert!(took < Duration::from_secs(2), "took {took:?}");
    t.wf(&["status", "--detail"]).ok();
}

// ---- next ----

/// The `running` fixture with its plan decided: the audit's errors accepted (as
/// `--allow-audit-errors` records) and its open question answered. Until then nothing
/// runs, and `wf next` says so.
fn decided_running() -> Test {
    let t = with_state("running");
    edit_state(&t, |s| {
        s["zeroDecisionAudit"]["acceptedAt"] = "2026-01-08T09:00:00Z".into();
        s["constraints"]["openQuestions"] = json!([]);
    });
    t
}

#[test]
fn next_says_a_decision_is_needed_when_execute_would_refuse() {
    let t = with_state("running");
    let run = t.wf(&["next", "--json"]).code(2);
    assert_eq!(run.json()["reason"], "undecided");
    let execute = t.wf(&["workflow-execute"]).code(2);
    assert!(
        execute.stderr.contains("zero-decision audit"),
        "{}",
        execute.stderr
    );
    edit_state(&t, |s| {
        s["zeroDecisionAudit"]["acceptedAt"] = "2026-01-08T09:00:00Z".into();
    });
    let v = t.wf(&["next", "--json"]).code(2).json();
    assert!(
        v["message"].as_str().unwrap().contains("open question"),
        "{v}"
    );
}

#[test]
fn next_shows_the_handed_off_task_first() {
    let t = decided_running();
    let run = t.wf(&["next"]).ok();
    insta::assert_snapshot!("next_in_progress", run.stdout);
    let v = t.wf(&["next", "--json"]).ok().json();
    assert_eq!(v["schemaVersion"], 2);
    assert_eq!(v["reason"], "in_progress");
    assert_eq!(v["brief"]["task"]["id"], "T5");
    assert_eq!(v["brief"]["task"]["owner"], "alice");
    assert_eq!(
        v["brief"]["check_commands"],
        json!(["npm test -- session", "test -f src/middleware/session.ts"])
    );
    assert_eq!(v["brief"]["hard_constraints"][0]["id"], "C001");
    assert!(v["brief"]["markdown"]
        .as_str()
        .unwrap()
        .starts_with("# T5: Add session middleware"));
    assert_eq!(v["failed"], json!(["T3"]));
    assert_eq!(v["blocked_kinds"], json!(["api_spec"]));
}

#[test]
fn next_does_not_wait_for_stdin() {
    let mut t = decided_running();
    t.stdin("ignored");
    let v = t.wf(&["next", "--json"]).ok().json();
    assert_eq!(v["reason"], "in_progress");
}

#[test]
fn next_then_shows_the_first_ready_task() {
    let t = decided_running();
    edit_state(&t, |s| task_mut(s, "T5")["status"] = "completed".into());
    let v = t.wf(&["next", "--json"]).ok().json();
    assert_eq!(v["reason"], "ready");
    assert_eq!(v["brief"]["task"]["id"], "T6");
}

#[test]
fn next_explains_why_nothing_is_ready() {
    let t = decided_running();
    edit_state(&t, |s| {
        for id in ["T5", "T6", "T8"] {
            task_mut(s, id)["status"] = "completed".into();
        }
    });
    // Nothing ready, T3 failed: the code workflow-execute would refuse with (1).
    let run = t.wf(&["next"]).code(1);
    assert!(run.stdout.contains("Failed: T3"), "{}", run.stdout);
    assert!(run.stdout.contains("Blocked by api_spec"), "{}", run.stdout);
    let v = t.wf(&["next", "--json"]).code(1).json();
    assert_eq!(v["reason"], "failed");
    assert_eq!(v["brief"], Value::Null);

    edit_state(&t, |s| task_mut(s, "T3")["status"] = "skipped".into());
    let v = t.wf(&["next", "--json"]).ok().json();
    assert_eq!(v["reason"], "ready", "T7 depends on T3 only");
    edit_state(&t, |s| task_mut(s, "T7")["status"] = "completed".into());
    let v = t.wf(&["next", "--json"]).code(3).json();
    assert_eq!(v["reason"], "blocked");

    let done = with_state("completed.json");
    let run = done.wf(&["next"]).ok();
    assert!(
        run.stdout.contains("All 2 tasks are done"),
        "{}",
        run.stdout
    );
}

// ---- graph ----

#[test]
fn graph_mermaid_and_dot() {
    let t = with_state("running");
    let mermaid = t.wf(&["graph"]).ok().stdout;
    assert_eq!(mermaid, t.wf(&["graph", "--format", "mermaid"]).ok().stdout);
    insta::assert_snapshot!("graph_mermaid", mermaid);
    insta::assert_snapshot!("graph_dot", t.wf(&["graph", "--format", "dot"]).ok().stdout);
}

/// The text a terminal gets by default (tests/integration/tmux.rs shows it there):
/// the tasks by level, each with its mark and what it waits for, every line within
/// the width.
#[test]
fn graph_as_text_lists_the_tasks_by_level() {
    let t = with_state("running");
    let run = t.wf(&["graph", "--format", "text"]).ok();
    assert!(
        run.stdout.lines().all(|l| l.chars().count() <= 80),
        "{}",
        run.stdout
    );
    insta::assert_snapshot!("graph_text", run.stdout);
}

// ---- CI reports ----

#[test]
fn junit_report() {
    let t = with_state("running");
    let xml = t.wf(&["report", "junit"]).ok().stdout;
    assert!(xml.contains("expected &lt;200&gt; got &lt;500&gt; &amp; &quot;oops&quot;"));
    assert!(!xml.contains("step 10: ok"), "only the last 40 lines");
    assert!(xml.contains("step 11: ok"));
    insta::assert_snapshot!("junit", xml);
    let out = t.root.join("junit.xml");
    t.wf(&["report", "junit", "-o", out.to_str().unwrap()]).ok();
    assert_eq!(std::fs::read_to_string(out).unwrap(), xml);
}

#[test]
fn github_reports() {
    let t = with_state("running");
    insta::assert_snapshot!(
        "github_annotations",
        t.wf(&["report", "github-annotations"]).ok().stdout
    );
    insta::assert_snapshot!(
        "github_summary",
        t.wf(&["report", "github-summary"]).ok().stdout
    );
}

/// T1 accepted with nothing to check it, under a name full of Markdown, HTML and
/// table syntax; T2 skipped.
fn unchecked_and_hostile() -> Test {
    let t = with_state("completed.json");
    edit_state(&t, |state| {
        let t1 = task_mut(state, "T1");
        t1["name"] =
            "a | b *bold* _it_ ~~x~~ [link](http://e) `x|y` <img src=x>\n# not a heading".into();
        t1["accepted_unchecked"] = true.into();
    });
    t
}

#[test]
fn the_github_summary_shows_an_unchecked_task_as_unchecked_and_escapes_names() {
    let t = unchecked_and_hostile();
    insta::assert_snapshot!(t.wf(&["report", "github-summary"]).whole(), @r"
    exit: 0
    --- stdout
    ## wf: docs — ✅ completed

    **Progress:** 2/2 tasks done (100%) · 1 completed (1 unchecked) · 1 skipped · 0 failed · 0 blocked · 0 in progress · 0 pending

    | | Task | Phase | Status | Reason |
    |---|---|---|---|---|
    | ❔ | T1: a &#124; b &#42;bold&#42; &#95;it&#95; &#126;&#126;x&#126;&#126; &#91;link&#93;(http://e) <code>x&#124;y</code> &lt;img src=x&gt; &#35; not a heading | P1 | unchecked | accepted unchecked: nothing checked it |
    | ⏭️ | T2: Write the changelog | P1 | skipped |  |
    --- stderr
    ");
}

#[test]
fn junit_reports_an_unchecked_task_as_skipped_not_passed() {
    let t = unchecked_and_hostile();
    let xml = t.wf(&["report", "junit"]).ok().stdout;
    let case: Vec<&str> = xml
        .lines()
        .skip_while(|l| !l.contains("name=\"T1: "))
        .take(3)
        .collect();
    insta::assert_snapshot!(case.join("\n"), @r#"
    <testcase classname="P1" name="T1: a | b *bold* _it_ ~~x~~ [link](http://e) `x|y` &lt;img src=x&gt;&#10;# not a heading" time="0.000">
      <skipped message="accepted unchecked: completed with nothing that checked it (no command, nothing its line names that wf can check)"/>
    </testcase>
    "#);
    assert!(xml.contains("skipped=\"2\""), "{xml}");
}

// ---- events ----

fn write_events(t: &Test, tail: &str) {
    let lines = [
        event_line(
            1,
            "resource.allocated",
            None,
            json!({"executor": "claude", "slots": 1, "note": null}),
        ),
        event_line(
            2,
            "task.dispatch_requested",
            Some("T5"),
            json!({"executor": "claude"}),
        ),
    ];
    std::fs::write(
        t.workflow_dir().join("events.jsonl"),
        format!("{}\n{}\n{tail}", lines[0], lines[1]),
    )
    .unwrap();
}

#[test]
fn events_skip_a_torn_final_line() {
    let t = with_state("completed.json");
    write_events(&t, "{\"seq\":3,\"ts\":\"2026-01");
    let run = t.wf(&["events"]).ok();
    assert_eq!(
        run.stdout,
        "   1 2026-01-08T09:01:00Z wf.orchestrator resource.allocated - executor=claude slots=1\n   2 2026-01-08T09:02:00Z wf.orchestrator task.dispatch_requested T5 executor=claude\n"
    );
    let json = t.wf(&["events", "--json"]).ok().stdout;
    let lines: Vec<Value> = json
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["task_id"], "T5");
}

#[test]
fn events_without_a_log_print_nothing() {
    let t = with_state("completed.json");
    assert_eq!(t.wf(&["events"]).ok().stdout, "");
}

#[test]
fn events_follow_prints_new_lines() {
    let t = with_state("completed.json");
    write_events(&t, "");
    let mut child = t
        .command(&["events", "--follow"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let wait = Duration::from_secs(10);
    assert!(rx
        .recv_timeout(wait)
        .unwrap()
        .contains("resource.allocated"));
    assert!(rx
        .recv_timeout(wait)
        .unwrap()
        .contains("task.dispatch_requested"));
    // A line written in two parts is shown once, when complete.
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .open(t.workflow_dir().join("events.jsonl"))
        .unwrap();
    let third = event_line(3, "task.execution_started", Some("T5"), json!({}));
    let (a, b) = third.split_at(20);
    log.write_all(a.as_bytes()).unwrap();
    log.flush().unwrap();
    std::thread::sleep(Duration::from_millis(250));
    log.write_all(format!("{b}\n").as_bytes()).unwrap();
    let got = rx.recv_timeout(wait).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    assert!(got.contains("task.execution_started T5"), "{got}");
}

// ---- archive ----

#[test]
fn archive_is_refused_unless_completed() {
    let t = with_state("running");
    let before = t.workflow_files();
    let run = t.wf(&["archive"]).code(2);
    assert!(
        run.stderr
            .contains("the workflow is running; only a completed workflow is archived, unless `wf archive --force` abandons it"),
        "{}",
        run.stderr
    );
    let after: Vec<_> = t.workflow_files();
    assert_eq!(after, before);
}

#[test]
fn archive_without_a_workflow_is_refused() {
    let t = Test::new();
    t.wf(&["archive"]).code(2);
    assert!(!t.workflow_dir().exists());
}

#[test]
fn archive_moves_a_completed_workflow_away() {
    let t = with_state("completed.json");
    let dir = t.workflow_dir();
    std::fs::write(dir.join("tasks-docs.md"), "# plan\n").unwrap();
    std::fs::write(dir.join("project-meta.json"), "{}").unwrap();
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    std::fs::write(dir.join("logs/T1-1.log"), "ok\n").unwrap();
    write_events(&t, "");
    let v = t.wf(&["archive", "--json"]).ok().json();
    let dest = dir.join("archive/20260108T100000Z");
    assert_eq!(v["archived_to"], dest.display().to_string());
    for name in [
        "workflow-state.json",
        "events.jsonl",
        "tasks-docs.md",
        "project-meta.json",
        "logs/T1-1.log",
    ] {
        assert!(dest.join(name).exists(), "{name} not archived");
        assert!(!dir.join(name).exists(), "{name} left behind");
    }
    let archived: Value =
        serde_json::from_str(&std::fs::read_to_string(dest.join("workflow-state.json")).unwrap())
            .unwrap();
    assert_eq!(archived["status"], "archived");
    let log = std::fs::read_to_string(dest.join("events.jsonl")).unwrap();
    assert!(log.contains("\"to\":\"archived\""), "{log}");
    // The dir is ready for a new workflow.
    t.wf(&["status"]).code(2);
    // A second archive in the same second gets its own dir.
    std::fs::copy(
        fixture("states/completed.json"),
        dir.join("workflow-state.json"),
    )
    .unwrap();
    t.wf(&["archive"]).ok();
    assert!(dir
        .join("archive/20260108T100000Z-2/workflow-state.json")
        .exists());
}

// ---- completions and man page ----

/// Regenerates each committed file with the binary (the completion scripts are the
/// registrations that call back into `wf`); a stale one fails with the command that
/// refreshes them all.
#[test]
fn committed_completions_are_current() {
    let t = Test::new();
    let update = std::env::var_os("WF_UPDATE_COMPLETIONS").is_some_and(|v| v == "1");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("completions");
    let files: [(&[&str], &str); 6] = [
        (&["completions", "bash"], "wf.bash"),
        (&["completions", "zsh"], "_wf"),
        (&["completions", "fish"], "wf.fish"),
        (&["completions", "powershell"], "_wf.ps1"),
        (&["completions", "elvish"], "wf.elv"),
        (&["man"], "wf.1"),
    ];
    let mut stale = Vec::new();
    // A page per subcommand, as wf(1) names them: wf-status.1, wf-constraints-add.1.
    let mut pages: Vec<(Vec<String>, String)> = Vec::new();
    let cli = <wf::cli::Cli as clap::CommandFactory>::command();
    let mut todo: Vec<(Vec<String>, &clap::Command)> = vec![(Vec::new(), &cli)];
    while let Some((path, cmd)) = todo.pop() {
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            let mut path = path.clone();
            path.push(sub.get_name().to_string());
            todo.push((path.clone(), sub));
            pages.push((path.clone(), format!("wf-{}.1", path.join("-"))));
        }
    }
    for (path, name) in &pages {
        let mut args = vec!["man"];
        args.extend(path.iter().map(String::as_str));
        let fresh = t.wf(&args).ok().stdout;
        let file = dir.join(name);
        if update {
            std::fs::write(&file, &fresh).unwrap();
        } else if std::fs::read_to_string(&file).ok().as_deref() != Some(fresh.as_str()) {
            stale.push(name.as_str());
        }
    }
    // wf(1) names only pages that are there.
    let main = t.wf(&["man"]).ok().stdout;
    for reference in regex::Regex::new(r"wf\\-[a-z\\-]+\(1\)")
        .unwrap()
        .find_iter(&main)
    {
        let page = reference.as_str().replace("\\-", "-").replace("(1)", ".1");
        assert!(
            dir.join(&page).exists(),
            "wf(1) names {page}, which is not in completions/"
        );
    }
    for (args, name) in files {
        let fresh = t.wf(args).ok().stdout;
        assert!(!fresh.is_empty(), "{args:?} printed nothing");
        let path = dir.join(name);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &fresh).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(fresh.as_str()) {
            stale.push(name);
        }
    }
    assert!(
        stale.is_empty(),
        "completions/{stale:?} do not match the CLI; run scripts/refresh-completions \
         (or WF_UPDATE_COMPLETIONS=1 cargo test --test integration committed_completions) and commit completions/"
    );
}

#[test]
fn the_man_page_has_exit_status_environment_files_and_examples() {
    let t = Test::new();
    let page = t.wf(&["man"]).ok().stdout;
    for section in [
        "EXIT STATUS",
        "ENVIRONMENT",
        "FILES",
        "EXAMPLES",
        "SUBCOMMANDS",
    ] {
        assert!(
            page.contains(&format!(".SH \"{section}\""))
                || page.contains(&format!(".SH {section}")),
            "no {section}"
        );
    }
    for name in [
        "WF_HOME",
        "NO_COLOR",
        "CLICOLOR_FORCE",
        "CI",
        "GITHUB_ACTIONS",
    ] {
        assert!(page.contains(name), "ENVIRONMENT lacks {name}");
    }
    insta::assert_snapshot!(t.wf(&["man", "constraints", "nope"]).whole(), @r#"
    exit: 2
    --- stdout
    --- stderr
    wf: error: `wf-constraints` has no subcommand "nope"; the pages are for add, list, remove, promote, merge, verify
    "#);
}

#[test]
fn the_guide_exit_codes_are_the_error_kinds() {
    let guide =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/guide.md"))
            .expect("docs/guide.md");
    let success = format!("| 0 | {} |", wf::error::SUCCESS_MEANING);
    assert!(
        guide.contains(&success),
        "the guide's exit codes lack: {success}"
    );
    for kind in wf::error::ErrorKind::ALL {
        let row = format!("| {} | {} |", kind.exit_code(), kind.meaning());
        assert!(guide.contains(&row), "the guide's exit codes lack: {row}");
    }
}
