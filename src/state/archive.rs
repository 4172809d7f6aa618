//! Archiving moves a finished workflow's files into `archive/<UTC time>/` inside its
//! dir: the order of the moves and the journal that lets the next writer finish a move
//! that was stopped part-way (`src/state/recover.rs`). `wf archive`
//! (`src/commands/archive.rs`) decides when.

use std::path::{Path, PathBuf};

use crate::error::{Result, WfError};
use crate::fs::durable;
use crate::state::recover::ARCHIVE_JOURNAL;
use crate::state::store::{EVENTS_FILE, MIRROR_INDEX_FILE, STATE_FILE};
use crate::state::{Session, WorkflowState};

/// Files and dirs of a workflow besides the state, the log and the plan copies.
const MOVED: &[&str] = &["project-meta.json", MIRROR_INDEX_FILE, "logs", "changes"];

/// Moves an `archived` workflow's files into `dest` (made if missing), the state
/// last, then removes the journal. Files an earlier attempt moved are not there any
/// more and are skipped.
pub fn move_into(session: &mut Session, dest: &Path) -> Result<Vec<String>> {
    let state = session.state()?.clone();
    let dir = session.store().dir().to_path_buf();
    // The summary describes the state that is leaving; readers of the dir find none.
    crate::state::summary::remove(&dir);
    crate::fs::ensure_dir(&dir.join("archive"))?;
    durable::create_dir(dest)?;
    let mut names: Vec<PathBuf> = plan_copies(&dir, &state);
    names.extend(backups(&dir));
    names.extend(
        MOVED
            .iter()
            .chain(&[EVENTS_FILE, STATE_FILE])
            .map(|n| dir.join(n)),
    );
    let mut moved = Vec::new();
    for from in names {
        let Some(file_name) = from.file_name() else {
            continue;
        };
        if std::fs::symlink_metadata(&from).is_err() {
            continue;
        }
        durable::rename(&from, &dest.join(file_name)).map_err(|e| {
            WfError::usage(format!(
                "{}; any wf command that writes finishes the archive",
                e.message
            ))
        })?;
        moved.push(file_name.to_string_lossy().into_owned());
    }
    session.clear();
    durable::sync_dir(dest)?;
    durable::sync_dir(&dir)?;
    let _ = std::fs::remove_file(dir.join(ARCHIVE_JOURNAL));
    Ok(moved)
}

/// `archive/<20260108T100000Z>/`, with `-2`, `-3`… when that second is taken: a
/// name nothing has, not made yet. The caller holds the writer's lock, so no other
/// `wf` takes it meanwhile; [`move_into`] makes it once the archive has committed,
/// so an archive stopped before its commit leaves no empty dir behind.
pub fn free_archive_dir(dir: &Path) -> Result<PathBuf> {
    let stamp = crate::clock::now().strftime("%Y%m%dT%H%M%SZ").to_string();
    let base = dir.join("archive");
    for n in 1..1000 {
        let name = if n == 1 {
            stamp.clone()
        } else {
            format!("{stamp}-{n}")
        };
        let path = base.join(name);
        if std::fs::symlink_metadata(&path).is_err() {
            return Ok(path);
        }
    }
    Err(WfError::usage(format!(
        "{} has too many archives for {stamp}",
        base.display()
    )))
}

/// `backup-<ms>.json` files left by re-imports: they belong to this workflow.
fn backups(dir: &Path) -> Vec<PathBuf> {
    files_named(dir, "backup-", ".json")
}

/// The imported plan copies (`tasks-<name>.md`, `.json` for a Taskmaster plan) in a
/// workflow dir, sorted; the one `tasks_file` names first when it is among them.
pub fn plan_copies(dir: &Path, state: &WorkflowState) -> Vec<PathBuf> {
    let mut copies: Vec<PathBuf> = files_named(dir, "tasks-", ".md")
        .into_iter()
        .chain(files_named(dir, "tasks-", ".json"))
        .filter(|p| p.is_file())
        .collect();
    copies.sort();
    let named = Path::new(&state.tasks_file).file_name();
    if let Some(pos) = copies.iter().position(|p| p.file_name() == named) {
        let first = copies.remove(pos);
        copies.insert(0, first);
    }
    copies
}

/// The entries of `dir` named `<prefix>…<suffix>`, sorted. These are names `wf`
/// writes itself, in lower case, so the comparison is exact.
#[allow(clippy::case_sensitive_file_extension_comparisons)]
fn files_named(dir: &Path, prefix: &str, suffix: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(prefix) && n.ends_with(suffix))
        })
        .collect();
    out.sort();
    out
}
