//! A re-import (`workflow-start` on a workflow that has one): the plan compared
//! with what the workflow runs (`plan::replan`), and, when the change may be
//! applied, the change record, the backup it names, the tasks carried over and the
//! status moves — inside the import's transaction (`super::import`).

use serde_json::json;

use super::Outcome;
use crate::clock;
use crate::error::{Result, WfError};
use crate::fs::durable::write_atomic;
use crate::plan::diff::PlanDiff;
use crate::plan::replan;
use crate::project::Project;
use crate::state::model::{DeltaTracking, Task};
use crate::state::Session;

/// Applies a re-import as `replan::assess` decides, inside the import's transaction:
/// the change record, then the backup it names, then the tasks and the status moves.
/// A major change without `--force` is refused; when it is an edit of the workflow's
/// own plan (`own_plan`), the state records that a decision is owed (the plan file
/// no longer says what the workflow runs), else nothing is written: a mistaken
/// `workflow-start OTHER.md` leaves the workflow exactly as it was.
#[allow(clippy::too_many_arguments)]
pub(super) fn reimport(
    session: &mut Session,
    project: &Project,
    name: &str,
    tasks_file: &str,
    tech_design: Option<String>,
    mut tasks: Vec<Task>,
    force: bool,
    own_plan: bool,
    now: &str,
) -> Result<Outcome> {
    // The current state is read in place, not copied: a copy would add the whole
    // state to the peak memory.
    let replan::Assessment { diff, verdict } =
        replan::assess(session.state()?, &tasks, tasks_file, force)?;
    let backup = match verdict {
        replan::Verdict::ProseOnly => return Ok(Outcome::ProseOnly),
        replan::Verdict::NeedsDecision { why } if !own_plan => {
            return Err(WfError::usage(replan::decision_message(why, &diff)));
        }
        replan::Verdict::NeedsDecision { why } => {
            let state = session.state_mut()?;
            state.decision_required = true;
            state.decision_options = replan::DECISION_OPTIONS.map(String::from).to_vec();
            state.replan_reason = Some("major_change".into());
            session.save()?;
            return Err(WfError::usage(replan::decision_message(why, &diff)));
        }
        replan::Verdict::Apply { backup } => backup,
    };
    // The old state as it is, kept before anything changes; written after the change
    // record that names it, so an uncommitted attempt's backup is found and swept.
    session.stage_side_files();
    let backup = if backup {
        let bytes = serde_json::to_vec_pretty(session.state()?)
            .map_err(|e| WfError::usage(e.to_string()))?;
        Some((format!("backup-{}.json", clock::now_millis()), bytes))
    } else {
        None
    };
    let mut old_tasks = std::mem::take(&mut session.state_mut()?.tasks);
    replan::carry_over(&mut old_tasks, &mut tasks, &diff.unchanged)?;
    let change = record_delta(session, &diff, backup.as_ref().map(|b| b.0.as_str()), now)?;
    if let Some((name, bytes)) = &backup {
        write_atomic(&session.store().dir().join(name), bytes)?;
    }
    let state = session.state_mut()?;
    state.use_subagent = tasks.len() > 5;
    state.tasks = crate::state::model::shared(tasks);
    state.task_name = Some(name.to_string());
    state.tasks_file = tasks_file.to_string();
    if tech_design.is_some() {
        state.tech_design = tech_design;
    }
    state.project_name.clone_from(&project.name);
    state.decision_required = false;
    state.decision_options.clear();
    state.replan_reason = None;
    state.current_task = None;
    state.failure_reason = None;
    for (to, reason) in replan::status_moves(state.status) {
        session.set_workflow_status(to, Some(reason))?;
    }
    Ok(Outcome::Reimported { diff, change })
}

/// `changes/CHG-NNN/delta.json` (naming the backup taken for it) and
/// `delta_tracking`. The number is one past the committed state's counter: a record
/// of a re-import that never commits is swept by the next writer.
fn record_delta(
    session: &mut Session,
    diff: &PlanDiff,
    backup: Option<&str>,
    now: &str,
) -> Result<String> {
    let dir = session.store().dir().to_path_buf();
    let state = session.state_mut()?;
    let tracking = state.delta_tracking.get_or_insert_with(|| DeltaTracking {
        enabled: true,
        changes_dir: "changes/".into(),
        ..DeltaTracking::default()
    });
    tracking.change_counter += 1;
    let id = format!("CHG-{:03}", tracking.change_counter);
    tracking.current_change = Some(id.clone());
    tracking.applied_changes.push(id.clone());
    let delta = json!({
        "id": id,
        "created_at": now,
        "ADDED": diff.added,
        "MODIFIED": diff.modified,
        "REMOVED": diff.removed,
        "backup": backup,
    });
    let change_dir = dir.join("changes").join(&id);
    crate::fs::ensure_dir(&change_dir)?;
    let bytes = serde_json::to_vec_pretty(&delta).map_err(|e| WfError::usage(e.to_string()))?;
    write_atomic(&change_dir.join("delta.json"), &bytes)?;
    Ok(id)
}
