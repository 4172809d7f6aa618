//! `wf archive`: moves a completed workflow into `archive/<UTC time>/` inside the
//! workflow dir, leaving the dir ready for a new `workflow-start`.
//!
//! One archive lands in one dir, whatever stops it part-way. Under the writer's lock:
//! 1. the archive dir's name is chosen and written to the `.archiving` journal;
//! 2. the state moves `completed → archived` as a transaction and is saved — the
//!    commit point;
//! 3. the files move into the dir, the state last, and the journal goes.
//!
//! Stopped before 2, the next writer removes the journal (and the empty dir): the
//! workflow is still `completed`. Stopped after it, the next writer (any command that
//! takes the lock) finishes the move into the dir the journal names.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use crate::error::{ErrorKind, Result, WfError};
use crate::fs::durable;
use crate::fs::durable::write_atomic;
use crate::output::Output;
use crate::project::Project;
use crate::report::workflow_name;
use crate::state::recover::{archive_in_progress, ARCHIVE_JOURNAL};
use crate::state::store::{EVENTS_FILE, STATE_FILE};
use crate::state::{Session, WorkflowStatus};

/// Files and dirs of a workflow besides the state, the log and the plan copies.
const MOVED: &[&str] = &["project-meta.json", "logs", "changes"];

pub fn run(project: &Project, wait: Option<u64>, out: &Output) -> Result<i32> {
    let store = project.store();
    // Checked before locking so a project without a workflow gets no directory.
    let Some(before) = store.load_snapshot()? else {
        return Err(WfError::usage(format!(
            "no workflow for {} to archive; start one with `wf workflow-start PLAN.md`",
            project.dir.display()
        )));
    };
    let name = workflow_name(&before).to_string();
    // An archive stopped part-way is finished by taking the lock (see `recover`).
    let resumed = archive_in_progress(store.dir());
    let mut session = store.lock(wait.map(Duration::from_secs), "archive")?;
    let (dest, moved) = match (session.state.as_ref().map(|s| s.status), resumed) {
        (None, Some(dest)) => (dest, Vec::new()),
        (None, None) => {
            return Err(WfError::usage(format!(
                "no workflow for {} to archive; start one with `wf workflow-start PLAN.md`",
                project.dir.display()
            )))
        }
        (Some(WorkflowStatus::Completed), _) => {
            let dest = new_archive_dir(store.dir())?;
            let file_name = dest
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            session.stage_side_files();
            write_atomic(&store.dir().join(ARCHIVE_JOURNAL), file_name.as_bytes())?;
            session.begin_txn();
            session.set_workflow_status(WorkflowStatus::Archived, Some("archived"))?;
            session.save()?;
            let moved = move_into(&mut session, &dest)?;
            (dest, moved)
        }
        // Archived by a wf that kept no journal, and stopped part-way.
        (Some(WorkflowStatus::Archived), _) => {
            let dest = new_archive_dir(store.dir())?;
            let moved = move_into(&mut session, &dest)?;
            (dest, moved)
        }
        (Some(other), _) => {
            return Err(WfError::new(
                ErrorKind::Usage,
                format!("the workflow is {other}; only a completed workflow can be archived"),
            ))
        }
    };
    drop(session);
    out.json_value(&json!({
        "schemaVersion": 1,
        "workflow": name,
        "archived_to": dest,
        "moved": moved,
    }));
    out.say(format!(
        "archived {} to {}\nstart the next workflow with `wf workflow-start PLAN.md`",
        crate::report::one_line(&name),
        dest.display()
    ));
    Ok(0)
}

/// Moves an `archived` workflow's files into `dest` (made if missing), the state
/// last, then removes the journal. Files an earlier attempt moved are not there any
/// more and are skipped.
pub fn move_into(session: &mut Session, dest: &Path) -> Result<Vec<String>> {
    let state = session.state()?.clone();
    let dir = session.store().dir().to_path_buf();
    durable::create_dir(dest)?;
    let mut names: Vec<PathBuf> = super::plan_copies(&dir, &state);
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

/// `archive/<20260108T100000Z>/`, with `-2`, `-3`… when that second is taken.
fn new_archive_dir(dir: &Path) -> Result<PathBuf> {
    let stamp = crate::clock::now().strftime("%Y%m%dT%H%M%SZ").to_string();
    let base = dir.join("archive");
    crate::fs::ensure_dir(&base)?;
    for n in 1..1000 {
        let name = if n == 1 {
            stamp.clone()
        } else {
            format!("{stamp}-{n}")
        };
        let path = base.join(name);
        if durable::create_dir(&path)? {
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
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("backup-") && n.ends_with(".json"))
        })
        .collect();
    out.sort();
    out
}
