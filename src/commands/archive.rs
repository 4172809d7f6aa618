//! `wf archive`: moves a completed workflow (or, with `--force`, one abandoned before
//! it completed) into `archive/<UTC time>/` inside the
//! workflow dir, leaving the dir ready for a new `workflow-start`.
//!
//! One archive lands in one dir, whatever stops it part-way. Under the writer's lock:
//! 1. the archive dir's name is chosen (the dir is not made yet) and written to the
//!    `.archiving` journal;
//! 2. the state moves `completed → archived` as a transaction and is saved — the
//!    commit point;
//! 3. the files move into the dir, the state last, and the journal goes.
//!
//! Stopped before 2, the next writer removes the journal: the workflow is still
//! `completed`, and no archive dir was made. Stopped after it, the next writer (any command that
//! takes the lock) finishes the move into the dir the journal names.

use std::time::Duration;

use serde_json::json;

use crate::cli::ArchiveArgs;
use crate::error::{Result, WfError};
use crate::fs::durable::write_atomic;
use crate::output::Output;
use crate::project::Project;
use crate::report::workflow_name;
use crate::state::recover::{archive_in_progress, ARCHIVE_JOURNAL};
use crate::state::{archive, WorkflowStatus};

/// `--force` abandons a workflow that did not complete: any but an idle one (the
/// lock is ours, so a `running` state is a run that is gone, or a hand-off).
fn abandons(args: &ArchiveArgs, status: WorkflowStatus) -> bool {
    args.force
        && matches!(
            status,
            WorkflowStatus::Planned
                | WorkflowStatus::Running
                | WorkflowStatus::Paused
                | WorkflowStatus::Blocked
                | WorkflowStatus::Failed
        )
}

pub fn run(project: &Project, args: &ArchiveArgs, wait: Option<u64>, out: &Output) -> Result<i32> {
    let store = project.store();
    // An archive stopped part-way is finished by taking the lock (see `recover`),
    // even one that had moved the state away already.
    let resumed = archive_in_progress(store.dir());
    let none = || {
        WfError::usage(format!(
            "no workflow for {} to archive; start one with `wf workflow-start PLAN.md`",
            project.dir.display()
        ))
    };
    // Checked before locking so a project without a workflow gets no directory.
    let before = store.load_snapshot()?;
    if before.is_none() && resumed.is_none() {
        return Err(none());
    }
    let name = before.as_ref().map(|s| workflow_name(s).to_string());
    let mut session = store.lock(wait.map(Duration::from_secs), "archive")?;
    let (dest, moved) = match (session.state.as_ref().map(|s| s.status), resumed) {
        (None, Some(dest)) => (dest, Vec::new()),
        (None, None) => return Err(none()),
        (Some(status), _) if status == WorkflowStatus::Completed || abandons(args, status) => {
            let dest = archive::free_archive_dir(store.dir())?;
            let file_name = dest
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            session.stage_side_files();
            write_atomic(&store.dir().join(ARCHIVE_JOURNAL), file_name.as_bytes())?;
            session.begin_txn();
            let reason = match status {
                WorkflowStatus::Completed => "archived".to_string(),
                other => format!("abandoned while {other}"),
            };
            session.set_workflow_status(WorkflowStatus::Archived, Some(&reason))?;
            session.save()?;
            let moved = archive::move_into(&mut session, &dest)?;
            (dest, moved)
        }
        // Archived by a wf that kept no journal, and stopped part-way.
        (Some(WorkflowStatus::Archived), _) => {
            let dest = archive::free_archive_dir(store.dir())?;
            let moved = archive::move_into(&mut session, &dest)?;
            (dest, moved)
        }
        (Some(other), _) => {
            return Err(WfError::usage(format!(
                "the workflow is {other}; only a completed workflow is archived, unless `wf archive --force` abandons it (its record is kept)"
            )))
        }
    };
    drop(session);
    out.json_value(&json!({
        "workflow": name,
        "archived_to": dest,
        "moved": moved,
    }));
    out.say(format!(
        "archived {} to {}\nstart the next workflow with `wf workflow-start PLAN.md`",
        name.as_deref()
            .map_or("the workflow".into(), crate::report::one_line),
        dest.display()
    ));
    Ok(0)
}
