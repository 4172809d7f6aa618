//! Text from a plan or a result never drives the terminal it is shown on: escape and
//! control sequences in a title, a task's name, phase, requirement, files or commands,
//! and in a check's output, are shown escaped (`\u{1b}]52;…`) by every command that
//! prints them — never passed through, where an OSC 52 would write the user's
//! clipboard and a CSI clear their screen. (`wf logs` on a terminal is in
//! `terminal.rs`; piped, it passes a log's bytes on as written.)

use serde_json::Value;

use crate::test::Test;

/// An OSC 52 clipboard write, a CSI screen clear and a C1 CSI (one character).
const OSC52: &str = "\u{1b}]52;c;cHduZWQ=\u{7}";
const CSI: &str = "\u{1b}[2J";
const C1: &str = "\u{9b}31m";

/// Every control character in `text` but newline and tab: what must not reach a
/// terminal.
fn controls(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| c.is_control() && *c != '\n' && *c != '\t')
        .collect()
}

#[track_caller]
fn assert_shown_escaped(what: &str, text: &str) {
    let found = controls(text);
    assert!(
        found.is_empty(),
        "{what} let {found:?} through:\n{}",
        text.escape_debug()
    );
}

/// Every string in a JSON document, for output whose reader shows the strings (the
/// hooks' JSON, which Claude Code shows the agent and the user).
fn strings(value: &Value, out: &mut String) {
    match value {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| strings(v, out)),
        _ => {}
    }
}

fn hostile_plan(agent: bool) -> String {
    let work = if agent {
        "- **actions**: create_file\n"
    } else {
        ""
    };
    format!(
        "# Tasks: evil {OSC52} plan\n\n## T1: name {CSI} {C1} end\n- **阶段**: ph{OSC52}ase\n- **需求**: req {OSC52} {CSI} {C1} done\n{work}- **创建文件**: f{C1}.txt\n- **验证命令**: `printf 'out \\033]52;c;eA==\\007 x\\n'; echo '{CSI}'; false`\n"
    )
}

#[test]
fn plan_and_result_text_is_shown_escaped_by_every_command() {
    let t = Test::new();
    t.write("tasks.md", hostile_plan(false));
    let mut seen = Vec::new();
    let mut look = |what: &str, args: &[&str]| {
        let run = t.wf(args);
        assert_shown_escaped(&format!("`wf {what}` stdout"), &run.stdout);
        assert_shown_escaped(&format!("`wf {what}` stderr"), &run.stderr);
        seen.push(run.stdout);
    };
    look("workflow-start", &["workflow-start", "tasks.md"]);
    look("next", &["next"]);
    look("show", &["show", "T1"]);
    look("workflow-execute", &["workflow-execute", "--all"]);
    look("status", &["status"]);
    look("status --detail", &["status", "--detail"]);
    look("events", &["events"]);
    look("next after the failure", &["next"]);
    look("show after the failure", &["show", "T1"]);
    look("report", &["report", "junit"]);
    // Shown, escaped: the reader sees that something was there.
    let all = seen.join("\n");
    assert!(all.contains(r"\u{1b}]52;c;cHduZWQ=\u{7}"), "{all}");
    assert!(all.contains(r"\u{9b}31m"), "{all}");
    assert!(all.contains(r"\u{1b}[2J"), "{all}");
}

#[test]
fn the_hooks_show_plan_and_check_text_escaped() {
    let mut t = Test::new();
    t.write("tasks.md", hostile_plan(true));
    t.wf(&["workflow-start", "tasks.md"]).ok();
    // No executor: T1 is handed off, as to an agent in Claude Code.
    t.wf(&["workflow-execute"]).code(0);
    for event in ["SessionStart", "UserPromptSubmit", "Stop"] {
        t.stdin(format!(
            r#"{{"session_id": "s1", "hook_event_name": "{event}"}}"#
        ));
        let run = t.wf(&["hook", event]).ok();
        assert_shown_escaped(&format!("`wf hook {event}` stderr"), &run.stderr);
        let doc: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("{event}: not JSON ({e}): {}", run.stdout));
        let mut text = String::new();
        strings(&doc, &mut text);
        assert_shown_escaped(&format!("`wf hook {event}`'s JSON"), &text);
        assert!(text.contains("\\u{9b}31m"), "{event}: {text}");
    }
}
