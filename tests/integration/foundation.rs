//! Project discovery, ids, and the state store seen from outside.

use crate::test::Test;

#[test]
fn status_without_a_workflow_says_how_to_start() {
    let t = Test::new();
    let run = t.wf(&["status"]).code(2);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: no workflow for [ROOT]/project (id [ID]); start one with `wf workflow-start PLAN.md`
    ");
}

#[test]
fn invalid_project_id_in_config_is_refused() {
    for bad in ["../x", "", &"a".repeat(65)] {
        let t = Test::new();
        t.config(serde_json::json!({"project": {"id": bad}}).to_string());
        let run = t.wf(&["status"]).code(2);
        assert!(run.stderr.contains("project.id"), "{}", run.stderr);
        assert!(run.stderr.contains("project-config.json"), "{}", run.stderr);
    }
}

use crate::test::format_file;

fn example_state_with_unknowns() -> serde_json::Value {
    let text = std::fs::read_to_string(format_file("claude-workflow/workflow-state.example.json"))
        .expect("the plugin's example state");
    let mut value: serde_json::Value = serde_json::from_str(&text).expect("example is JSON");
    value["future_plugin_field"] =
        serde_json::json!({"nested": {"list": [1, 2.5, "x", null], "flag": true}});
    value["progress"]["in_review"] = serde_json::json!(["T4"]);
    value["contextMetrics"]["compressionThreshold"] = serde_json::json!(0.75);
    value["constraints"]["hard"][0]["reviewNotes"] = serde_json::json!({"by": "gemini"});
    value["zeroDecisionAudit"]["auditor"] = serde_json::json!("codex");
    value
}

#[test]
fn plugin_state_round_trips_with_unknown_fields_kept() {
    let t = Test::new();
    let original = example_state_with_unknowns();
    std::fs::create_dir_all(t.workflow_dir()).unwrap();
    let path = t.workflow_dir().join("workflow-state.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&original).unwrap()).unwrap();

    let store = wf::state::Store::new(t.workflow_dir(), wf::plan::STORE_ACCESS);
    let mut session = store.lock(None, "test").expect("lock");
    session.save().expect("save");
    drop(session);

    let mut saved: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // The two keys wf adds: its schema marker and the event-log mark.
    let obj = saved.as_object_mut().unwrap();
    assert_eq!(obj.remove("wf_schema"), Some(serde_json::json!(1)));
    assert!(obj.remove("event_log").is_some());
    assert_eq!(saved, original);
}

#[test]
fn plugin_state_is_readable_by_status() {
    let t = Test::new();
    t.plugin_state();
    let state = t.state();
    assert_eq!(state["status"], "running");
    assert_eq!(state["current_task"], "T3");
}

#[test]
fn project_id_comes_from_config_when_set() {
    let t = Test::new();
    t.config(r#"{"project": {"id": "my-proj_1"}}"#);
    t.write(
        "tasks.md",
        "## T1: one\n- **阶段**: a\n- **验证命令**: `true`\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    assert!(t.home.join("my-proj_1/workflow-state.json").exists());
    assert!(!t.workflow_dir().exists());
}

#[test]
fn project_id_is_the_md5_prefix_of_the_canonical_path() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "## T1: one\n- **阶段**: a\n- **验证命令**: `true`\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let expected: String = {
        use std::process::Command;
        let out = Command::new("md5sum")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut c| {
                use std::io::Write;
                c.stdin
                    .take()
                    .unwrap()
                    .write_all(t.project.to_string_lossy().as_bytes())?;
                c.wait_with_output()
            })
            .expect("md5sum");
        String::from_utf8_lossy(&out.stdout)[..12].to_string()
    };
    assert!(
        t.home.join(&expected).join("workflow-state.json").exists(),
        "no state under {expected}"
    );
    let state = t.state();
    assert_eq!(state["project_id"], expected);
}

fn corrupt_cases() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("truncated", b"{\n  \"status\": \"runn".to_vec()),
        ("not json", b"hello".to_vec()),
        (
            "wrong type",
            br#"{"status": "running", "progress": 5}"#.to_vec(),
        ),
        ("not utf-8", b"{\"status\": \"\xff\xfe\"}".to_vec()),
        (
            "future schema",
            br#"{"wf_schema": 9, "status": "running"}"#.to_vec(),
        ),
        ("unknown status", br#"{"status": "exploded"}"#.to_vec()),
    ]
}

#[test]
fn corrupt_state_is_refused_and_left_byte_identical() {
    for (name, bytes) in corrupt_cases() {
        let t = Test::new();
        std::fs::create_dir_all(t.workflow_dir()).unwrap();
        std::fs::write(t.workflow_dir().join("workflow-state.json"), &bytes).unwrap();
        let before = t.workflow_files();
        for args in [
            &["status"][..],
            &["workflow-execute"],
            &["workflow-unblock", "all"],
            &["resume"],
        ] {
            let run = t.wf(args);
            assert_eq!(
                run.code, 5,
                "{name}: {args:?} exit {}\n{}",
                run.code, run.stderr
            );
            assert!(
                run.stderr.contains("workflow-state.json"),
                "{name}: {}",
                run.stderr
            );
            assert_eq!(
                run.stderr.trim().lines().count(),
                1,
                "{name}: not one line: {}",
                run.stderr
            );
        }
        let after: Vec<_> = t.workflow_files();
        assert_eq!(before, after, "{name}: files changed");
    }
}

#[test]
fn corrupt_state_error_names_line_and_column() {
    let t = Test::new();
    std::fs::create_dir_all(t.workflow_dir()).unwrap();
    std::fs::write(
        t.workflow_dir().join("workflow-state.json"),
        b"{\n  \"status\": \"running\",\n  oops\n}",
    )
    .unwrap();
    let run = t.wf(&["status"]).code(5);
    insta::assert_snapshot!(run.whole(), @"
    exit: 5
    --- stdout
    --- stderr
    wf: error: [ROOT]/home/[ID]/workflow-state.json:3:3: the state file is not valid JSON (key must be a string at line 3 column 3); the file was left as it was (restore a backup-*.json or start again with `wf workflow-start --force`)
    ");
}

#[test]
fn a_write_killed_midway_leaves_the_old_state() {
    let mut t = Test::new();
    t.write(
        "tasks.md",
        "## T1: one\n- **阶段**: a\n- **验证命令**: `true`\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let before = std::fs::read(t.workflow_dir().join("workflow-state.json")).unwrap();
    t.env("WF_TEST_CRASH_AT", "before-rename");
    let run = t.wf(&["workflow-unblock", "all"]);
    assert_ne!(run.code, 0, "the crash hook did not fire");
    let after = std::fs::read(t.workflow_dir().join("workflow-state.json")).unwrap();
    assert_eq!(before, after, "a torn write replaced the state");
    let t2 = &mut t;
    t2.env_remove("WF_TEST_CRASH_AT");
}

#[test]
fn twenty_concurrent_writers_lose_no_update() {
    let t = Test::new();
    let blockers: serde_json::Map<String, serde_json::Value> = (0..20)
        .map(|i| {
            (
                format!("kind{i}"),
                serde_json::json!({"name": format!("zzz-never-{i}")}),
            )
        })
        .collect();
    t.config(serde_json::json!({"wf": {"blockers": blockers}}).to_string());
    t.write(
        "tasks.md",
        "## T1: one\n- **阶段**: a\n- **验证命令**: `true`\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let children: Vec<_> = (0..20)
        .map(|i| {
            t.command(&["--wait", "60", "workflow-unblock", &format!("kind{i}")])
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .expect("spawn")
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().expect("wait");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let state = t.state();
    let mut unblocked: Vec<String> = state["unblocked"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    unblocked.sort();
    let mut expected: Vec<String> = (0..20).map(|i| format!("kind{i}")).collect();
    expected.sort();
    assert_eq!(unblocked, expected);
}

#[test]
fn a_moved_away_event_log_starts_afresh_without_hiding_progress() {
    let t = Test::new();
    t.write(
        "tasks.md",
        "## T1: one\n- **阶段**: a\n- **验证命令**: `true`\n\n## T2: two\n- **阶段**: a\n- **验证命令**: `true`\n- **依赖**: T1\n",
    );
    t.wf(&["workflow-start", "tasks.md"]).ok();
    t.wf(&["workflow-execute", "--step"]).ok();
    std::fs::rename(
        t.workflow_dir().join("events.jsonl"),
        t.root.join("old-events.jsonl"),
    )
    .unwrap();
    t.wf(&["workflow-execute", "--step"]).ok();
    let state = t.state();
    assert_eq!(state["status"], "completed");
    // New events are numbered past the snapshot's mark, so readers fold them.
    let first: serde_json::Value = serde_json::from_str(
        std::fs::read_to_string(t.workflow_dir().join("events.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let old_last = std::fs::read_to_string(t.root.join("old-events.jsonl"))
        .unwrap()
        .lines()
        .count() as u64;
    assert!(first["seq"].as_u64().unwrap() > old_last, "{first}");
}
