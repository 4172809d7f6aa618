//! `wf archive`: moves a completed workflow into `archive/<UTC time>/` inside the
//! workflow dir, leaving the dir ready for a new `workflow-start`.
//!
//! Under the writer's lock, the state first moves `completed → archived` through the
//! workflow machine (logged and saved), then the files move; the state file moves
//! last. A crash part-way leaves an `archived` state in place, and running
//! `wf archive` again finishes the move.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::json;

use crate::error::{ErrorKind, Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::report::workflow_name;
use crate::state::store::{EVENTS_FILE, STATE_FILE};
use crate::state::WorkflowStatus;

/// Files and dirs of a workflow besides the state, the log and the plan copies.
const MOVED: &[&str] = &["project-meta.json", "logs", "changes"];

pub fn run(project: &Project, wait: Option<u64>, out: &Output) -> Result<i32> {
    let store = project.store();
    // Checked before locking so a project without a workflow gets no directory.
    if store.load_snapshot()?.is_none() {
        return Err(WfError::usage(format!(
            "no workflow for {} to archive; start one with `wf workflow-start PLAN.md`",
            project.dir.display()
        )));
    }
    let mut session = store.lock(wait.map(Duration::from_secs), "archive")?;
    let state = session.state()?;
    let name = workflow_name(state).to_string();
    match state.status {
        WorkflowStatus::Completed => {
            session.set_workflow_status(WorkflowStatus::Archived, Some("archived"))?;
            session.save()?;
        }
        // An earlier archive stopped after saving: finish its move.
        WorkflowStatus::Archived => {}
        other => {
            return Err(WfError::new(
                ErrorKind::Usage,
                format!("the workflow is {other}; only a completed workflow can be archived"),
            ))
        }
    }
    let state = session.state()?.clone();
    let dir = store.dir();
    let dest = new_archive_dir(dir)?;
    let mut names: Vec<PathBuf> = super::plan_copies(dir, &state);
    names.extend(backups(dir));
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
        std::fs::rename(&from, dest.join(file_name)).map_err(|e| {
            WfError::io(
                &e,
                format!(
                    "cannot move {} into {}: {e}; run `wf archive` again to finish",
                    from.display(),
                    dest.display()
                ),
            )
        })?;
        moved.push(file_name.to_string_lossy().into_owned());
    }
    sync_dir(&dest);
    sync_dir(dir);
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

/// `archive/<20260108T100000Z>/`, with `-2`, `-3`… when that second is taken.
fn new_archive_dir(dir: &Path) -> Result<PathBuf> {
    let stamp = crate::clock::now().strftime("%Y%m%dT%H%M%SZ").to_string();
    let base = dir.join("archive");
    crate::state::store::ensure_dir(&base)?;
    for n in 1..1000 {
        let name = if n == 1 {
            stamp.clone()
        } else {
            format!("{stamp}-{n}")
        };
        let path = base.join(name);
        match std::fs::create_dir(&path) {
            Ok(()) => return Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(WfError::io(
                    &e,
                    format!("cannot create {}: {e}", path.display()),
                ))
            }
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

/// Makes the renames durable. Best effort: the moves already happened.
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}
