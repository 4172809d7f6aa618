//! What the next writer does with what a killed or failed writer left behind.
//!
//! Every change `wf` makes has one commit point: the rename of a new
//! `workflow-state.json` (for an archive, the same rename, of the state that says
//! `archived`). Before it, a change writes its other files only under names no
//! committed state refers to, and appends its events as a transaction (`txn`) that
//! readers never fold; after it, those files are moved into place. So a reader sees
//! the old workflow or the new one, whole, and whatever an attempt left behind is
//! either rolled forward (it belongs to the committed state) or swept (it does not):
//!
//! | left behind                          | committed (state agrees)        | not committed        |
//! |--------------------------------------|---------------------------------|----------------------|
//! | `txn` events past the snapshot's mark | —  (the mark covers them)       | cut off the log      |
//! | `.staged-tasks-*.md`, `.staged-project-meta.json` | renamed into place, plan copy mirrored | removed |
//! | `changes/CHG-n/` (and the backup its `delta.json` names) | kept | removed (n is past the state's change counter) |
//! | `.archiving` (names `archive/<dir>/`) | the move is finished into that dir | removed, with the empty dir |
//! | `.tmp-*` (a killed atomic write)      | removed                         | removed              |
//!
//! Last, a snapshot behind the event log (a writer killed before its final save) is
//! saved again, so tools that read `workflow-state.json` without folding the log (the
//! claude-workflow plugin, `jq`) see what `wf status` sees.
//!
//! It all runs when a writer takes the lock, before the command does anything else.

use std::path::{Component, Path, PathBuf};

use crate::error::Result;
use crate::fs::durable;
use crate::state::store::Session;
use crate::state::{event_log, WorkflowStatus};

/// Prefix of a side file written before its change commits.
pub const STAGED_PREFIX: &str = ".staged-";
/// The journal of an archive under way: the name of its `archive/<dir>`.
pub const ARCHIVE_JOURNAL: &str = ".archiving";

/// When the snapshot found behind the event log is written again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatchUp {
    /// Now, with the plan copy: a session settling what its command left.
    Now,
    /// By the session's next save (which then mirrors the plan copy too), or, if its
    /// command never saves, when the session is dropped: a writer that goes on to
    /// save anyway (a `--step` resume) writes the snapshot once, not twice.
    AtNextSave,
}

pub fn recover(session: &mut Session, catch_up: CatchUp) -> Result<()> {
    let dir = session.store().dir().to_path_buf();
    durable::sweep_tmp(&dir);
    for (_, change) in change_dirs(&dir) {
        durable::sweep_tmp(&change);
    }
    let events = session.store().events_path();
    let has_log = events.symlink_metadata().is_ok();
    let mark = session
        .state
        .as_ref()
        .and_then(|s| s.event_log)
        .unwrap_or_default();
    if has_log {
        event_log::cut_uncommitted(&events, mark.seq, mark.offset)?;
    }
    finish_archive(session)?;
    if session.state.is_none() {
        remove_staged(&dir);
        return Ok(());
    }
    promote_staged(session, true)?;
    sweep_uncommitted_changes(session);
    if has_log && session.log()?.mark().seq > mark.seq {
        match catch_up {
            CatchUp::Now => {
                session.save()?;
                (session.store().plan().mirror)(session)?;
            }
            CatchUp::AtNextSave => session.catch_up_at_next_save(),
        }
    }
    Ok(())
}

/// `<dir>/.staged-<name>`: where a change writes `<dir>/<name>` before it commits.
pub fn staged(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{STAGED_PREFIX}{name}"))
}

fn staged_files(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter_map(|e| {
            let name = e
                .file_name()
                .to_str()?
                .strip_prefix(STAGED_PREFIX)?
                .to_string();
            Some((name, e.path()))
        })
        .collect();
    out.sort();
    out
}

fn remove_staged(dir: &Path) {
    for (_, path) in staged_files(dir) {
        let _ = std::fs::remove_file(path);
    }
}

/// Moves the staged side files that belong to the committed state into place (the
/// plan copy whose text has the state's digest, the meta that names that digest),
/// and removes the others. With `mirror`, a promoted plan copy then shows the
/// state's task statuses.
pub fn promote_staged(session: &Session, mirror: bool) -> Result<()> {
    let state = session.state()?;
    let dir = session.store().dir();
    let Some(digest) = state.plan_digest.as_deref() else {
        remove_staged(dir);
        return Ok(());
    };
    let mut promoted = false;
    for (name, path) in staged_files(dir) {
        let belongs = if name == "project-meta.json" {
            std::fs::read(&path)
                .ok()
                .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
                .is_some_and(|meta| meta["plan_digest"] == digest)
        } else {
            name == state.tasks_file
                && one_component(&name)
                && (session.store().plan().digest_file)(&path).is_ok_and(|d| d == digest)
        };
        if belongs && path.is_file() {
            durable::rename(&path, &dir.join(&name))?;
            promoted = true;
        } else {
            let _ = std::fs::remove_file(&path);
        }
    }
    if promoted {
        durable::sync_dir(dir)?;
        if mirror {
            (session.store().plan().mirror)(session)?;
        }
    }
    Ok(())
}

fn one_component(name: &str) -> bool {
    let mut parts = Path::new(name).components();
    matches!(parts.next(), Some(Component::Normal(_))) && parts.next().is_none()
}

/// `changes/CHG-<n>/` dirs with their number.
fn change_dirs(dir: &Path) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir.join("changes")) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let n = e.file_name().to_str()?.strip_prefix("CHG-")?.parse().ok()?;
            Some((n, e.path()))
        })
        .collect()
}

/// A change record numbered past the state's counter was written by a re-import
/// that never committed: it and the backup it names go.
fn sweep_uncommitted_changes(session: &Session) {
    let Some(state) = session.state.as_ref() else {
        return;
    };
    let counter = state
        .delta_tracking
        .as_ref()
        .map_or(0, |d| d.change_counter);
    let dir = session.store().dir();
    for (n, change) in change_dirs(dir) {
        if n <= counter {
            continue;
        }
        let backup = std::fs::read(change.join("delta.json"))
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|d| d["backup"].as_str().map(str::to_string));
        if let Some(backup) = backup.filter(|b| b.starts_with("backup-") && one_component(b)) {
            let _ = std::fs::remove_file(dir.join(backup));
        }
        let _ = std::fs::remove_dir_all(&change);
    }
}

/// The archive dir an `.archiving` journal names, if it names a plain one.
pub fn archive_in_progress(dir: &Path) -> Option<PathBuf> {
    let name = std::fs::read_to_string(dir.join(ARCHIVE_JOURNAL)).ok()?;
    let name = name.trim();
    one_component(name).then(|| dir.join("archive").join(name))
}

/// An archive stopped part-way: finished into the dir it chose if its state says
/// `archived` (committed); undone if not.
fn finish_archive(session: &mut Session) -> Result<()> {
    let dir = session.store().dir().to_path_buf();
    let journal = dir.join(ARCHIVE_JOURNAL);
    if journal.symlink_metadata().is_err() {
        return Ok(());
    }
    let dest = archive_in_progress(&dir);
    let status = session.state.as_ref().map(|s| s.status);
    match (status, dest) {
        (Some(WorkflowStatus::Archived), Some(dest)) => {
            crate::state::archive::move_into(session, &dest)?;
        }
        (Some(WorkflowStatus::Archived), None) | (None, _) => {
            let _ = std::fs::remove_file(&journal);
        }
        (Some(_), dest) => {
            let _ = std::fs::remove_file(&journal);
            if let Some(dest) = dest {
                let _ = std::fs::remove_dir(dest); // only if still empty
            }
        }
    }
    Ok(())
}
