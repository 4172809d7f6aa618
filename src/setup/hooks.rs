//! The Claude Code hook settings `wf` recommends (docs/guide.md "Claude Code hooks"): one
//! command hook per event in [`EVENTS`], each running `wf hook EVENT`, in the
//! project's `.claude/settings.json`.
//!
//! `wf hook` also answers `SubagentStop` (`src/commands/hook.rs`), but the guide
//! recommends only these three, so that is what `wf init` writes and `wf doctor`
//! expects: a subagent is not the one working on the handed-off task, and its stop
//! blocks only when `wf.block_subagent_stop` says so (docs/hooks.md). No `timeout`
//! is set: `wf.hook_timeout_secs` keeps the `Stop` hook under Claude Code's default.

use std::path::Path;

use serde_json::{json, Map, Value};

use crate::setup::json_text;

/// Where Claude Code reads a project's shared settings.
pub const SETTINGS_PATH: &str = ".claude/settings.json";

/// Claude Code's other settings files that may hold hooks, relative to the project:
/// the personal, uncommitted one. The user's `~/.claude/settings.json` counts too
/// (see [`settings_files`]).
pub const LOCAL_SETTINGS_PATH: &str = ".claude/settings.local.json";

/// The events the guide's settings wire to `wf hook`, in its order.
pub const EVENTS: [&str; 3] = ["SessionStart", "UserPromptSubmit", "Stop"];

/// The command Claude Code runs for `event`.
pub fn command(event: &str) -> String {
    format!("wf hook {event}")
}

/// One matcher group holding the `wf hook EVENT` command hook.
fn group(event: &str) -> Value {
    json!({"hooks": [{"type": "command", "command": command(event)}]})
}

/// `{"EVENT": [the wf hook group]}` for each of `events`.
fn groups(events: &[&str]) -> Value {
    let groups = events.iter().map(|e| (e.to_string(), json!([group(e)])));
    Value::Object(groups.collect())
}

/// The settings `wf init` writes when the project has none.
pub fn recommended() -> Value {
    json!({ "hooks": groups(&EVENTS) })
}

/// `value` as the file's text: pretty JSON and a final newline.
pub fn to_text(value: &Value) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|_| "{}".into());
    text.push('\n');
    text
}

/// Why a settings file cannot be read, and where (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadSettings {
    pub line: usize,
    pub col: usize,
    pub what: String,
}

/// A settings file's bytes, checked to be a JSON object, as the part `wf` reads: a
/// map holding its `hooks` (when it has one); or what is wrong and where. Only
/// `hooks` is read into values: a number elsewhere that no `f64` holds is still
/// JSON, and not `wf`'s to judge.
pub fn read(bytes: &[u8]) -> std::result::Result<Map<String, Value>, BadSettings> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, col) = crate::fs::line_col(bytes, e.valid_up_to());
        BadSettings {
            line,
            col,
            what: "not UTF-8".into(),
        }
    })?;
    let not_json = |e: serde_json::Error| BadSettings {
        line: e.line(),
        col: e.column(),
        what: format!(
            "not valid JSON ({})",
            crate::error::one_line(&e.to_string())
        ),
    };
    serde_json::from_str::<serde::de::IgnoredAny>(text).map_err(not_json)?;
    let root = json_text::parse(text).filter(|r| matches!(r.kind, json_text::Kind::Object(_)));
    let Some(root) = root else {
        return Err(BadSettings {
            line: 1,
            col: 1,
            what: "not a JSON object ({...}), as Claude Code settings are".into(),
        });
    };
    let mut settings = Map::new();
    if let Some(hooks) = root.member("hooks") {
        let value = serde_json::from_str(&text[hooks.start..hooks.end]).map_err(|e| {
            let (line, col) = crate::fs::line_col(bytes, hooks.start);
            BadSettings {
                line,
                col,
                what: format!(
                    "its \"hooks\" cannot be read ({})",
                    crate::error::one_line(&e.to_string())
                ),
            }
        })?;
        settings.insert("hooks".into(), value);
    }
    Ok(settings)
}

/// Whether a hook's command line runs `wf hook EVENT`: a program named `wf` (any
/// path to it), then somewhere the words `hook EVENT` (global flags such as `-C DIR`
/// may come between).
fn runs_wf_hook(line: &str, event: &str) -> bool {
    let Ok(words) = crate::constraints::verify::split(line) else {
        return false;
    };
    let is_wf = words
        .first()
        .and_then(|w| Path::new(w).file_name())
        .is_some_and(|n| n == "wf");
    is_wf && words.windows(2).any(|w| w[0] == "hook" && w[1] == event)
}

/// The command lines of `settings` that wire `event` to `wf hook`: command hooks
/// under `hooks.EVENT[*].hooks[*]` running it. Shapes that are not Claude Code's
/// are not a hook.
fn wf_hook_commands<'a>(
    settings: &'a Map<String, Value>,
    event: &'a str,
) -> impl Iterator<Item = &'a str> {
    settings
        .get("hooks")
        .and_then(|h| h.get(event))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|g| g.get("hooks").and_then(Value::as_array))
        .flatten()
        .filter(|h| h.get("type").and_then(Value::as_str) == Some("command"))
        .filter_map(|h| h.get("command").and_then(Value::as_str))
        .filter(move |c| runs_wf_hook(c, event))
}

/// Whether `settings` wires `event` to `wf hook`.
pub fn has(settings: &Map<String, Value>, event: &str) -> bool {
    wf_hook_commands(settings, event).next().is_some()
}

/// The programs the `wf hook` commands of `settings` start (each one's first word,
/// `wf` or a path to it), once each, for `wf doctor` to look for.
pub fn programs(settings: &Map<String, Value>) -> Vec<String> {
    let mut programs: Vec<String> = EVENTS
        .iter()
        .flat_map(|e| wf_hook_commands(settings, e))
        .filter_map(|line| {
            crate::constraints::verify::split(line)
                .ok()?
                .into_iter()
                .next()
        })
        .collect();
    programs.sort();
    programs.dedup();
    programs
}

/// The events of [`EVENTS`] that `settings` does not wire to `wf hook`.
pub fn missing(settings: &Map<String, Value>) -> Vec<&'static str> {
    EVENTS.into_iter().filter(|e| !has(settings, e)).collect()
}

/// `text`, settings [`read`] accepts, with the `wf hook` group added to every event
/// of [`EVENTS`] that lacks it, after the groups already there: written into the
/// text (`json_text`), so every byte it had stays as it was and the additions are
/// laid out as the text around them. Returns the new text and the events added
/// (none: the text as it was), or why the settings cannot take them (a `hooks` that
/// is not an object, an event that is not a list): editing those by hand is the
/// user's call.
pub fn merge(text: &str) -> std::result::Result<(String, Vec<&'static str>), String> {
    let settings = read(text.as_bytes()).map_err(|bad| bad.what)?;
    let missing = missing(&settings);
    let root = json_text::parse(text).ok_or("it is not JSON")?;
    if missing.is_empty() {
        return Ok((text.to_string(), missing));
    }
    let mut inserts = Vec::new();
    let mut members = Vec::new();
    match root.member("hooks") {
        None => {
            members.push(("hooks", groups(&missing)));
            inserts.push(json_text::add_members(text, &root, &members));
        }
        Some(hooks) => {
            if !matches!(hooks.kind, json_text::Kind::Object(_)) {
                return Err("its \"hooks\" is not an object".into());
            }
            for event in &missing {
                match hooks.member(event) {
                    None => members.push((*event, json!([group(event)]))),
                    Some(groups) if matches!(groups.kind, json_text::Kind::Array(_)) => {
                        inserts.push(json_text::add_elements(text, groups, &[group(event)]));
                    }
                    Some(_) => return Err(format!("its \"hooks\".\"{event}\" is not a list")),
                }
            }
            if !members.is_empty() {
                inserts.push(json_text::add_members(text, hooks, &members));
            }
        }
    }
    Ok((json_text::apply(text, inserts), missing))
}

/// The settings files Claude Code reads hooks from for this project, most specific
/// first: the project's local and shared ones, then the user's (under `home`).
pub fn settings_files(project: &Path, home: Option<&Path>) -> Vec<std::path::PathBuf> {
    let mut files = vec![
        project.join(LOCAL_SETTINGS_PATH),
        project.join(SETTINGS_PATH),
    ];
    if let Some(home) = home {
        files.push(home.join(".claude").join("settings.json"));
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn the_recommended_settings_are_the_readmes() {
        // The guide's "Claude Code hooks" shows exactly this JSON.
        let readme = include_str!("../../docs/guide.md");
        let start = readme
            .find("`.claude/settings.json`:\n\n```json\n")
            .unwrap();
        let block = &readme[start..];
        let block = &block[block.find('{').unwrap()..block.find("\n```\n").unwrap()];
        let shown: Value = serde_json::from_str(block).unwrap();
        assert_eq!(shown, recommended());
        assert!(missing(&map(recommended())).is_empty());
    }

    #[test]
    fn a_hook_runs_wf_hook_by_any_path_and_flags() {
        assert!(runs_wf_hook("wf hook Stop", "Stop"));
        assert!(runs_wf_hook("/usr/local/bin/wf -C /p hook Stop", "Stop"));
        assert!(runs_wf_hook("'/opt/my tools/wf' hook Stop", "Stop"));
        assert!(!runs_wf_hook("wf hook SessionStart", "Stop"));
        assert!(!runs_wf_hook("wfx hook Stop", "Stop"));
        assert!(!runs_wf_hook("echo wf hook Stop", "Stop"));
        assert!(!runs_wf_hook("wf 'hook", "Stop"));
    }

    #[test]
    fn merge_adds_what_is_missing_and_keeps_everything_else_as_it_was() {
        let text = r#"{
  "model": "opus",
  "hooks": {
    "Stop": [{"hooks": [{"type": "command", "command": "say done"}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "wf hook SessionStart"}]}]
  },
  "permissions": {"allow": ["Bash(cargo test:*)"]}
}"#;
        let (merged, added) = merge(text).unwrap();
        assert_eq!(added, ["UserPromptSubmit", "Stop"]);
        let s: Value = serde_json::from_str(&merged).unwrap();
        let keys: Vec<&String> = s.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "hooks", "permissions"]);
        let stop = &s["hooks"]["Stop"];
        assert_eq!(stop[0]["hooks"][0]["command"], "say done");
        assert_eq!(stop[1]["hooks"][0]["command"], "wf hook Stop");
        assert_eq!(s["hooks"]["SessionStart"].as_array().unwrap().len(), 1);
        // Only added to: the old text is there, in order, around the additions.
        let mut rest = merged.as_str();
        for piece in [
            "\"model\": \"opus\"",
            "\"say done\"}]}",
            "\"permissions\": {\"allow\": [\"Bash(cargo test:*)\"]}\n}",
        ] {
            rest = &rest[rest.find(piece).unwrap()..];
        }
        // A second merge adds nothing.
        let (again, added) = merge(&merged).unwrap();
        assert!(added.is_empty());
        assert_eq!(again, merged);
    }

    #[test]
    fn merge_refuses_shapes_that_are_not_claude_codes() {
        assert_eq!(
            merge(r#"{"hooks": []}"#).unwrap_err(),
            "its \"hooks\" is not an object"
        );
        assert_eq!(
            merge(r#"{"hooks": {"Stop": {}}}"#).unwrap_err(),
            "its \"hooks\".\"Stop\" is not a list"
        );
    }

    #[test]
    fn read_names_the_position_of_bad_json_and_takes_any_number() {
        let bad = read(b"{\n  \"a\": ,\n}").unwrap_err();
        assert_eq!((bad.line, bad.col), (2, 8));
        assert!(bad.what.starts_with("not valid JSON"), "{}", bad.what);
        let bad = read(b"[]").unwrap_err();
        assert_eq!((bad.line, bad.col), (1, 1));
        assert!(bad.what.contains("not a JSON object"), "{}", bad.what);
        assert!(read(br#"{"big": 1e400, "n": 123456789012345678901234567890}"#).is_ok());
    }
}
