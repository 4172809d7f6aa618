//! `wf init`: the starter files, written without losing anything already there.

use crate::test::Test;

const SETTINGS: &str = ".claude/settings.json";
const CONFIG: &str = ".claude/config/project-config.json";

#[test]
fn init_in_an_empty_project_writes_a_plan_that_checks_starts_and_runs() {
    let t = Test::new();
    let run = t.wf(&["init"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    created  tasks.md
    created  .claude/config/project-config.json
    created  .claude/settings.json

    Next:
      wf check tasks.md           lint the plan (edit it first: its tasks are examples)
      wf workflow-start tasks.md  import it
      wf workflow-execute         run its tasks to the next stop
      wf doctor                   check the setup whenever something seems off
    --- stderr
    ");
    t.wf(&["check", "tasks.md"]).ok();
    t.wf(&["workflow-start", "tasks.md"]).ok();
    let run = t.wf(&["workflow-execute", "--all"]).ok();
    assert!(
        run.stdout.contains("Completed: 3/3 tasks done."),
        "{}",
        run.stdout
    );
    // The hooks the README recommends, exactly.
    let settings: serde_json::Value = serde_json::from_str(&t.read(SETTINGS)).unwrap();
    assert_eq!(
        settings["hooks"]["Stop"][0]["hooks"][0]["command"],
        "wf hook Stop"
    );
}

#[test]
fn init_into_another_directory_with_c() {
    let t = Test::new();
    let other = t.root.join("other");
    std::fs::create_dir_all(&other).unwrap();
    t.wf(&["init", "-C", other.to_str().unwrap(), "--quiet"])
        .ok();
    assert!(other.join("tasks.md").is_file());
    assert!(other.join(CONFIG).is_file());
    assert!(!t.project.join("tasks.md").exists());
}

#[test]
fn init_refuses_to_overwrite_and_writes_nothing() {
    let t = Test::new();
    t.write("tasks.md", "# my plan\n");
    t.config(r#"{"project": {"name": "mine"}}"#);
    let run = t.wf(&["init"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: tasks.md and .claude/config/project-config.json already exist; nothing was written (move them away, or pass --force to replace them, keeping each old one as FILE.backup-<ms>)
    ");
    assert_eq!(t.read("tasks.md"), "# my plan\n");
    assert_eq!(t.read(CONFIG), r#"{"project": {"name": "mine"}}"#);
    // Not even the file that was missing.
    assert!(!t.project.join(SETTINGS).exists());
}

#[test]
fn init_again_skips_what_it_wrote() {
    let t = Test::new();
    t.wf(&["init"]).ok();
    let run = t.wf(&["init"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    skipped  tasks.md (already as wf init writes it)
    skipped  .claude/config/project-config.json (already as wf init writes it)
    skipped  .claude/settings.json (already has the wf hooks)

    Next:
      wf check tasks.md           lint the plan
      wf workflow-start tasks.md  import it
      wf workflow-execute         run its tasks to the next stop
      wf doctor                   check the setup whenever something seems off
    --- stderr
    ");
}

#[test]
fn init_force_replaces_and_keeps_each_old_file() {
    let t = Test::new();
    t.write("tasks.md", "# my plan\n");
    t.config(r#"{"wf": {"timeout_secs": 0}}"#);
    let run = t.wf(&["init", "--force"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    replaced tasks.md (--force; the old one is tasks.md.backup-1767866400000)
    replaced .claude/config/project-config.json (--force; the old one is .claude/config/project-config.json.backup-1767866400000)
    created  .claude/settings.json

    Next:
      wf check tasks.md           lint the plan (edit it first: its tasks are examples)
      wf workflow-start tasks.md  import it
      wf workflow-execute         run its tasks to the next stop
      wf doctor                   check the setup whenever something seems off
    --- stderr
    ");
    let ms = "1767866400000"; // test::NOW in ms
    assert_eq!(t.read(&format!("tasks.md.backup-{ms}")), "# my plan\n");
    assert_eq!(
        t.read(&format!("{CONFIG}.backup-{ms}")),
        r#"{"wf": {"timeout_secs": 0}}"#
    );
    t.wf(&["check", "tasks.md"]).ok();
}

#[test]
fn init_merges_the_hooks_into_existing_settings() {
    let t = Test::new();
    let mine = r#"{
  "model": "opus",
  "permissions": {"allow": ["Bash(cargo test:*)"]},
  "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}
}"#;
    t.write(SETTINGS, mine);
    let run = t.wf(&["init"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 0
    --- stdout
    created  tasks.md
    created  .claude/config/project-config.json
    merged   .claude/settings.json (added wf hook SessionStart, UserPromptSubmit, Stop; every other setting kept; the old one is .claude/settings.json.backup-1767866400000)

    Next:
      wf check tasks.md           lint the plan (edit it first: its tasks are examples)
      wf workflow-start tasks.md  import it
      wf workflow-execute         run its tasks to the next stop
      wf doctor                   check the setup whenever something seems off
    --- stderr
    ");
    // Added into its text, in its style (here, on the lines that held the hooks):
    // every byte it had is still there.
    insta::assert_snapshot!(t.read(SETTINGS), @r#"
    {
      "model": "opus",
      "permissions": {"allow": ["Bash(cargo test:*)"]},
      "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}, {"hooks": [{"type": "command", "command": "wf hook Stop"}]}], "SessionStart": [{"hooks": [{"type": "command", "command": "wf hook SessionStart"}]}], "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "wf hook UserPromptSubmit"}]}]}
    }
    "#);
    let ms = "1767866400000"; // test::NOW in ms
    assert_eq!(t.read(&format!("{SETTINGS}.backup-{ms}")), mine);
}

#[test]
fn init_refuses_settings_it_cannot_merge_until_forced() {
    let t = Test::new();
    t.write(SETTINGS, "{\n  \"hooks\": [\n}\n");
    let run = t.wf(&["init"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: .claude/settings.json (line 3, column 1: not valid JSON (expected value at line 3 column 1), so the hooks cannot be merged) already exists; nothing was written (move it away, or pass --force to replace it, keeping the old one as FILE.backup-<ms>)
    ");
    assert!(!t.project.join("tasks.md").exists());
    t.wf(&["init", "--force", "--quiet"]).ok();
    assert!(t.read(SETTINGS).contains("wf hook SessionStart"));
}

#[test]
fn init_never_writes_through_a_link() {
    let t = Test::new();
    let target = t.root.join("elsewhere.json");
    std::fs::write(&target, "{}").unwrap();
    std::fs::create_dir_all(t.project.join(".claude")).unwrap();
    std::os::unix::fs::symlink(&target, t.project.join(SETTINGS)).unwrap();
    let run = t.wf(&["init", "--force"]);
    insta::assert_snapshot!(run.whole(), @"
    exit: 2
    --- stdout
    --- stderr
    wf: error: [ROOT]/project/.claude/settings.json is a symbolic link; wf init writes only real files and directories in the project (move it away and run `wf init` again)
    ");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "{}");
    assert!(!t.project.join("tasks.md").exists());
}

#[test]
fn init_json_lists_each_file_and_what_was_done() {
    let t = Test::new();
    t.write(SETTINGS, r#"{"model": "opus"}"#);
    let run = t.wf(&["init", "--json"]).ok();
    insta::assert_snapshot!(run.whole(), @r#"
    exit: 0
    --- stdout
    {
      "schemaVersion": 2,
      "project": "[ROOT]/project",
      "files": [
        {
          "path": "tasks.md",
          "action": "created",
          "reason": "new"
        },
        {
          "path": ".claude/config/project-config.json",
          "action": "created",
          "reason": "new"
        },
        {
          "path": ".claude/settings.json",
          "action": "merged",
          "backup": ".claude/settings.json.backup-1767866400000",
          "reason": "added wf hook SessionStart, UserPromptSubmit, Stop; every other setting kept"
        }
      ],
      "next_steps": [
        "wf check tasks.md",
        "wf workflow-start tasks.md",
        "wf workflow-execute",
        "wf doctor"
      ]
    }
    --- stderr
    "#);
}

/// `wf init` adds the hooks to the user's settings and changes nothing else: the
/// file's mode, its numbers (none re-encoded, however big or precise), its key order,
/// its layout and its other hooks stay as they were; the only bytes that change are
/// the ones added.
#[test]
fn init_keeps_the_users_settings_as_they_were_and_writes_only_what_it_adds() {
    use std::os::unix::fs::PermissionsExt;
    let t = Test::new();
    let mine = r#"{
    "zeta": 12345678901234567890123,
    "alpha": 0.1000000000000000055511151231257827,
    "huge": 1e400,
    "hooks": {
        "Stop": [
            {"hooks": [{"type": "command", "command": "say done"}]}
        ],
        "PreToolUse": []
    },
    "permissions": {"allow": ["Bash(cargo test:*)"]}
}
"#;
    t.write(SETTINGS, mine);
    let path = t.project.join(SETTINGS);
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    t.wf(&["init"]).ok();
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the mode was {mode:o}");
    let group = |event: &str| {
        format!(
            r#"{{
                "hooks": [
                    {{
                        "type": "command",
                        "command": "wf hook {event}"
                    }}
                ]
            }}"#
        )
    };
    let want = format!(
        r#"{{
    "zeta": 12345678901234567890123,
    "alpha": 0.1000000000000000055511151231257827,
    "huge": 1e400,
    "hooks": {{
        "Stop": [
            {{"hooks": [{{"type": "command", "command": "say done"}}]}},
            {stop}
        ],
        "PreToolUse": [],
        "SessionStart": [
            {start}
        ],
        "UserPromptSubmit": [
            {prompt}
        ]
    }},
    "permissions": {{"allow": ["Bash(cargo test:*)"]}}
}}
"#,
        stop = group("Stop"),
        start = group("SessionStart"),
        prompt = group("UserPromptSubmit"),
    );
    assert_eq!(t.read(SETTINGS), want);
    // Claude Code reads it, and init finds nothing more to add.
    let run = t.wf(&["init"]).ok();
    assert!(
        run.stdout.contains("skipped  .claude/settings.json"),
        "{}",
        run.stdout
    );
    assert_eq!(t.read(SETTINGS), want);
}

/// A one-line settings file gets the hooks on its one line, in its own style.
#[test]
fn init_adds_to_a_one_line_settings_file_on_its_line() {
    let t = Test::new();
    t.write(SETTINGS, r#"{"model": "opus", "n": 1.50}"#);
    t.wf(&["init"]).ok();
    assert_eq!(
        t.read(SETTINGS),
        r#"{"model": "opus", "n": 1.50, "hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "wf hook SessionStart"}]}], "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "wf hook UserPromptSubmit"}]}], "Stop": [{"hooks": [{"type": "command", "command": "wf hook Stop"}]}]}}"#
    );
}

/// Whether `old` is `new` with text only added: every character of `old`, in order.
fn only_added_to(old: &str, new: &str) -> bool {
    let mut rest = new.chars();
    old.chars().all(|c| rest.any(|n| n == c))
}

/// Settings laid out as real projects lay them out (fixtures/settings/SOURCES.md):
/// `wf init` adds the hooks, changes no byte that was there, wires every event, and
/// finds nothing to add the second time.
#[test]
fn init_keeps_the_layout_of_settings_as_real_projects_write_them() {
    let dir = crate::test::fixture("settings");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "json") {
            continue;
        }
        seen += 1;
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let t = Test::new();
        let old = std::fs::read_to_string(&path).unwrap();
        t.write(SETTINGS, &old);
        t.wf(&["init", "--quiet"]).ok();
        let new = t.read(SETTINGS);
        assert!(
            only_added_to(&old, &new),
            "{name}: changed, not added to:\n{new}"
        );
        let doc: serde_json::Value =
            serde_json::from_str(&new).unwrap_or_else(|e| panic!("{name}: not JSON ({e}):\n{new}"));
        for event in ["SessionStart", "UserPromptSubmit", "Stop"] {
            let wired = doc["hooks"][event]
                .as_array()
                .into_iter()
                .flatten()
                .any(|g| g["hooks"][0]["command"] == format!("wf hook {event}"));
            assert!(wired, "{name}: no wf hook {event}:\n{new}");
        }
        t.wf(&["init", "--quiet"]).ok();
        assert_eq!(t.read(SETTINGS), new, "{name}: the second init changed it");
    }
    assert_eq!(seen, 5, "the fixtures in {}", dir.display());
}
