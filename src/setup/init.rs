//! `wf init`: the files a project starts with — a starter plan, the project config
//! and the Claude Code hook settings — written without ever losing a byte the
//! project already had.
//!
//! A file already as `init` writes it is skipped, so running `init` again completes
//! a half-finished setup. Any other plan or config is a conflict that writes
//! nothing; `--force` replaces it after keeping it as `FILE.backup-<ms>`, since an
//! edited file is the user's work. Existing settings get the `wf hook` groups merged
//! into their text (`hooks::merge`) rather than refused: refusing would leave
//! `--force`, and the loss of the user's other settings, as the only way.

use std::path::{Path, PathBuf};

use std::io::Write;

use serde::Serialize;
use serde_json::json;

use crate::config::CONFIG_PATH;
use crate::constraints::verify::DEFAULT_PREFIXES;
use crate::error::{Result, WfError};
use crate::setup::hooks::{self, SETTINGS_PATH};

/// The starter plan's name in the project.
pub const PLAN_PATH: &str = "tasks.md";

/// A small plan in the claude-workflow format — the one `wf` reads fields, checks
/// and dependencies from (docs/plans.md) — whose tasks prove themselves with
/// commands that pass in a project `init` has just set up.
pub const STARTER_PLAN: &str = "\
# Tasks: starter plan

A starter plan written by `wf init`. Each task is a `## ID: name` heading followed by
`- **field**: value` lines: the commands under **verify** prove the task done, and
**depends** orders the tasks. Replace these tasks with your own, lint them with
`wf check tasks.md`, import them with `wf workflow-start tasks.md` and run them with
`wf workflow-execute`.

A plan in a format without fields (spec-kit, Kiro, OpenSpec) puts a check on the
task's line, as in ``T4 Add the parser in src/p.py (verify: `pytest tests/test_p.py`)``;
a line without one is checked by what it names (the files it creates or changes,
the tests it writes), and `checks` under `wf` in `.claude/config/project-config.json`
runs a command for the files matching a path glob (docs/plans.md).

## T1: Check the project config
- **phase**: setup
- **requirement**: The project has the config that `wf init` wrote.
- **acceptance**: `.claude/config/project-config.json` exists.
- **verify**: `test -f .claude/config/project-config.json`
- **status**: pending

## T2: Check the Claude Code hook settings
- **phase**: setup
- **requirement**: Claude Code runs `wf hook` when a session starts, on each prompt and when the agent stops.
- **acceptance**: `.claude/settings.json` names `wf hook Stop`.
- **depends**: T1
- **verify**: `grep -q \"wf hook Stop\" .claude/settings.json`
- **status**: pending

## T3: Check the plan
- **phase**: verify
- **requirement**: This plan is still in the project.
- **acceptance**: `tasks.md` is not empty.
- **depends**: T2
- **verify**: `test -s tasks.md`
- **status**: pending
";

/// The project config `init` writes: the `wf` settings people change first, each
/// at the value `wf` uses when it is unset (`src/config.rs`, README "Agents" and
/// "Verify"), so the file changes nothing until edited. The prefixes are the
/// defaults written out, because a list set here replaces them.
pub fn starter_config() -> String {
    hooks::to_text(&json!({
        "wf": {
            "timeout_secs": crate::exec::DEFAULT_TIMEOUT.as_secs(),
            "max_retries": 3,
            "allowed_command_prefixes": DEFAULT_PREFIXES,
            "checks": {},
            "executors": [],
        }
    }))
}

/// What `init` did with one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Created,
    /// An existing file replaced under `--force`, kept as the backup.
    Replaced,
    /// The wf hooks added to existing settings, the old file kept as the backup.
    Merged,
    /// Already as `init` would write it: left alone.
    Skipped,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileResult {
    /// Relative to the project.
    pub path: String,
    pub action: Action,
    /// Where the old file was kept, relative to the project.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub backup: Option<String>,
    /// Why, in a few words.
    pub reason: String,
}

/// What is at a path before anything is written.
enum Found {
    Missing,
    File(Vec<u8>),
}

/// One file's planned write.
struct Step {
    rel: &'static str,
    action: Action,
    bytes: Vec<u8>,
    reason: String,
}

impl Step {
    fn new(
        rel: &'static str,
        action: Action,
        bytes: impl Into<Vec<u8>>,
        reason: impl Into<String>,
    ) -> Step {
        let (bytes, reason) = (bytes.into(), reason.into());
        Step {
            rel,
            action,
            bytes,
            reason,
        }
    }
}

/// Writes the starter files into the project at `dir`. `now_ms` names the backups.
/// On a conflict without `force`, nothing is written and the error lists every
/// conflicting file and the fix.
pub fn init(dir: &Path, force: bool, now_ms: i64) -> Result<Vec<FileResult>> {
    for rel in [".claude", ".claude/config"] {
        real_dir_or_none(dir, rel)?;
    }
    let mut steps = Vec::new();
    let mut conflicts = Vec::new();
    let config = starter_config();
    for (rel, text) in [(PLAN_PATH, STARTER_PLAN), (CONFIG_PATH, config.as_str())] {
        steps.push(match found(dir, rel)? {
            Found::Missing => Step::new(rel, Action::Created, text, "new"),
            Found::File(old) if old == text.as_bytes() => {
                Step::new(rel, Action::Skipped, old, "already as wf init writes it")
            }
            Found::File(_) => {
                conflicts.push(rel.to_string());
                Step::new(rel, Action::Replaced, text, "--force")
            }
        });
    }
    let recommended = hooks::to_text(&hooks::recommended());
    steps.push(match found(dir, SETTINGS_PATH)? {
        Found::Missing => Step::new(SETTINGS_PATH, Action::Created, recommended, "new"),
        Found::File(old) => settings_step(&old, &mut conflicts),
    });
    if !conflicts.is_empty() && !force {
        let (exist, them, each) = if conflicts.len() == 1 {
            ("exists", "it", "the old one")
        } else {
            ("exist", "them", "each old one")
        };
        let last = conflicts.pop().unwrap_or_default();
        let list = if conflicts.is_empty() {
            last
        } else {
            format!("{} and {last}", conflicts.join(", "))
        };
        return Err(WfError::usage(format!(
            "{list} already {exist}; nothing was written (move {them} away, or pass --force to replace {them}, keeping {each} as FILE.backup-<ms>)",
        )));
    }
    let mut done = Vec::new();
    for step in steps {
        let path = dir.join(step.rel);
        let backup = match step.action {
            Action::Skipped => None,
            Action::Created => {
                ensure_parent(dir, step.rel)?;
                crate::fs::durable::create_atomic(&path, &step.bytes)?;
                None
            }
            Action::Replaced | Action::Merged => {
                let backup = format!("{}.backup-{now_ms}", step.rel);
                crate::fs::durable::link_backup(&path, &dir.join(&backup))?;
                replace_keeping_mode(&path, &step.bytes)?;
                Some(backup)
            }
        };
        done.push(FileResult {
            path: step.rel.to_string(),
            action: step.action,
            backup,
            reason: step.reason,
        });
    }
    Ok(done)
}

/// Writes `bytes` over the file at `path` as one rename, the new file given the old
/// one's permissions: a `settings.json` kept 0600 stays 0600.
fn replace_keeping_mode(path: &Path, bytes: &[u8]) -> Result<()> {
    let mode = std::fs::symlink_metadata(path)
        .map_err(|e| WfError::io(&e, format!("cannot read {}: {e}", path.display())))?
        .permissions();
    let mut temp = crate::fs::durable::Temp::create(path)?;
    temp.fill(|file| {
        file.set_permissions(mode)?;
        file.write_all(bytes)
    })?;
    temp.sync()?.commit()
}

/// Existing settings: skipped when they wire every hook, else merged into their
/// text (`hooks::merge`: only the additions are written); settings that cannot be
/// merged are a conflict `--force` replaces.
fn settings_step(old: &[u8], conflicts: &mut Vec<String>) -> Step {
    let replace = |why: String, conflicts: &mut Vec<String>| {
        conflicts.push(format!(
            "{SETTINGS_PATH} ({why}, so the hooks cannot be merged)"
        ));
        let recommended = hooks::to_text(&hooks::recommended());
        Step::new(SETTINGS_PATH, Action::Replaced, recommended, "--force")
    };
    if let Err(bad) = hooks::read(old) {
        let why = format!("line {}, column {}: {}", bad.line, bad.col, bad.what);
        return replace(why, conflicts);
    }
    let text = String::from_utf8_lossy(old);
    match hooks::merge(&text) {
        Ok((_, added)) if added.is_empty() => Step::new(
            SETTINGS_PATH,
            Action::Skipped,
            old,
            "already has the wf hooks",
        ),
        Ok((merged, added)) => {
            let why = format!(
                "added wf hook {}; every other setting kept",
                added.join(", ")
            );
            Step::new(SETTINGS_PATH, Action::Merged, merged, why)
        }
        Err(why) => replace(why, conflicts),
    }
}

/// What is at `rel`: nothing, or a regular file's bytes. A link, a directory or
/// anything else there is an error: `init` writes regular files only.
fn found(dir: &Path, rel: &str) -> Result<Found> {
    let path = dir.join(rel);
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Found::Missing),
        Err(e) => Err(WfError::io(
            &e,
            format!("cannot read {}: {e}", path.display()),
        )),
        Ok(m) if m.file_type().is_symlink() => Err(not_real(&path, "a symbolic link")),
        Ok(m) if !m.is_file() => Err(not_real(&path, "not a regular file")),
        Ok(_) => crate::fs::read_regular(&path).map(Found::File),
    }
}

/// Refuses a link or a file where a directory `init` writes into goes.
fn real_dir_or_none(dir: &Path, rel: &str) -> Result<()> {
    let path = dir.join(rel);
    match std::fs::symlink_metadata(&path) {
        Ok(m) if m.file_type().is_symlink() => Err(not_real(&path, "a symbolic link")),
        Ok(m) if !m.is_dir() => Err(not_real(&path, "not a directory")),
        _ => Ok(()),
    }
}

fn not_real(path: &Path, what: &str) -> WfError {
    WfError::usage(format!(
        "{} is {what}; wf init writes only real files and directories in the project (move it away and run `wf init` again)",
        path.display()
    ))
}

/// Creates the directories above `rel` inside the project, one at a time, each
/// checked not to be a link.
fn ensure_parent(dir: &Path, rel: &str) -> Result<()> {
    let mut at = PathBuf::from(dir);
    let parts: Vec<&str> = rel.split('/').collect();
    for part in &parts[..parts.len() - 1] {
        at.push(part);
        crate::fs::durable::create_dir(&at)?;
        crate::fs::refuse_symlink(&at)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starter_plan_parses_without_warnings_and_audits_clean() {
        let plan = crate::plan::parse(Path::new(PLAN_PATH), STARTER_PLAN).unwrap();
        assert_eq!(plan.format, crate::plan::Format::CLAUDE_WORKFLOW);
        assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
        let ids: Vec<&str> = plan.tasks.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["T1", "T2", "T3"]);
        assert!(plan.tasks.iter().all(|t| !t.verify.is_empty()));
        let audit = crate::plan::audit::audit(&plan.tasks, STARTER_PLAN, "now");
        assert!(audit.passed, "{:?}", audit.anti_patterns);
        assert!(audit.anti_patterns.is_empty(), "{:?}", audit.anti_patterns);
    }

    #[test]
    fn the_starter_config_is_valid_and_sets_the_defaults() {
        let config =
            crate::config::Config::parse(Path::new("c.json"), starter_config().as_bytes()).unwrap();
        assert_eq!(config.wf.timeout_secs, Some(120));
        assert_eq!(config.wf.max_retries, Some(3));
        let prefixes = config.wf.allowed_command_prefixes.unwrap();
        assert_eq!(prefixes, DEFAULT_PREFIXES);
        assert!(config.wf.executors.is_empty());
    }

    #[test]
    fn a_second_init_skips_everything_and_a_conflict_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let first = init(dir.path(), false, 1).unwrap();
        assert!(first.iter().all(|f| f.action == Action::Created));
        let again = init(dir.path(), false, 2).unwrap();
        assert!(
            again.iter().all(|f| f.action == Action::Skipped),
            "{again:?}"
        );

        std::fs::write(dir.path().join(PLAN_PATH), "# mine\n").unwrap();
        std::fs::remove_file(dir.path().join(CONFIG_PATH)).unwrap();
        let err = init(dir.path(), false, 3).unwrap_err();
        assert!(
            err.message
                .starts_with("tasks.md already exists; nothing was written"),
            "{}",
            err.message
        );
        // The missing config was not written either.
        assert!(!dir.path().join(CONFIG_PATH).exists());
    }
}
