//! Replays the event-log tail onto a snapshot.
//!
//! Between snapshots, progress lives only in the event log; this is how every reader
//! sees it. Only events that change state are folded — the rest are for people and
//! UIs. Folding goes through the same transition tables as the live run.
//!
//! Events of a transaction (`txn`: an import, a re-import, an archive) are never
//! folded: they describe a change that also wrote other files, and they take effect
//! only through the snapshot whose rename commits them. A reader that meets them past
//! the snapshot's mark is looking at an attempt that has not committed (yet, or ever),
//! and sees the workflow as it was before it.

use crate::error::{ErrorKind, Result, WfError};
use crate::state::event::{EventData, EventKind, TaskMove, Verified, WorkflowMove};
use crate::state::event_log::Event;
use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::WorkflowState;

/// Whether a reader's fold applies an event of this kind (as a line names it) and
/// `txn`: one of ours that changes the state, not part of a transaction. Readers
/// that keep or scan only such events ask this, so the rule is this one.
pub fn folds(kind: &str, txn: bool) -> bool {
    !txn && EventKind::parse(kind).is_some_and(EventKind::changes_state)
}

/// A reader's fold of one event past the snapshot's mark.
pub fn apply_event(state: &mut WorkflowState, event: &Event) -> Result<()> {
    if event.txn {
        return Ok(());
    }
    apply_live(state, event)
}

/// The writer's application of an event it just appended, transaction or not.
pub fn apply_live(state: &mut WorkflowState, event: &Event) -> Result<()> {
    match &event.data {
        EventData::TaskStatusChanged(m) => apply_task_status(state, event, m)?,
        EventData::WorkflowStatusChanged(m) => apply_workflow_status(state, event, m)?,
        EventData::TaskVerified(v) => apply_verified(state, event, v)?,
        EventData::GateResult(gate) => {
            if let Some(id) = &event.task_id {
                let record = serde_json::to_value(gate).unwrap_or_default();
                state.quality_gates.insert(id.clone(), record);
            }
            // A gate verifies the hard constraints as `wf constraints verify` does.
            for v in &gate.verifications {
                state.constraints.record(v);
            }
        }
        EventData::Unreadable { kind, error, .. } if kind.changes_state() => {
            return Err(bad_event(event, &format!("no valid data ({error})")));
        }
        EventData::PlanImported(_)
        | EventData::ConstraintAdded(_)
        | EventData::ConstraintRemoved(_)
        | EventData::ConstraintPromoted(_)
        | EventData::ConstraintsMerged(_)
        | EventData::ConstraintVerified(_)
        | EventData::TaskExecutionStarted(_)
        | EventData::TaskExecutionResult(_)
        | EventData::TaskAcceptedUnchecked(_)
        | EventData::TaskDispatchRequested(_)
        | EventData::TaskDispatchAck(_)
        | EventData::TaskDispatchNack(_)
        | EventData::TaskReviewResult(_)
        | EventData::ResourceAllocated(_)
        | EventData::ResourceReleased(_)
        | EventData::ResourceMissing(_)
        // Another tool's event, or one of a newer wf: not ours to apply.
        | EventData::Foreign { .. }
        | EventData::Unreadable { .. } => return Ok(()),
    }
    state.updated_at.clone_from(&event.ts);
    Ok(())
}

fn bad_event(event: &Event, what: &str) -> WfError {
    // Kind and task id come from the file: kept to one line.
    WfError::new(
        ErrorKind::CorruptState,
        crate::error::one_line(&format!(
            "event log: event {} ({}) has {what}; move events.jsonl away to continue from the last snapshot",
            event.seq,
            event.kind()
        )),
    )
}

fn apply_task_status(state: &mut WorkflowState, event: &Event, m: &TaskMove) -> Result<()> {
    let id = event
        .task_id
        .as_deref()
        .ok_or_else(|| bad_event(event, "no task_id"))?;
    let to = m.to;
    let task = state
        .task_mut(id)?
        .ok_or_else(|| bad_event(event, &format!("unknown task {id}")))?;
    task.status = task
        .status
        .to(to, id)
        .map_err(|e| bad_event(event, &e.message))?;
    if let Some(ms) = m.duration_ms {
        task.duration_ms = Some(ms);
    }
    // Every attempt's usage adds to the task's: what was spent stays spent.
    if let Some(used) = m.usage {
        task.usage = Some(task.usage.unwrap_or_default().plus(used));
    }
    match to {
        TaskStatus::InProgress => {
            task.attempts += 1;
            task.failure_reason = None;
            if let Some(ex) = &event.executor {
                task.executor = Some(ex.clone());
            }
            task.handed_off = m.handoff.then_some(true);
            if let Some(log) = &m.log {
                task.log = Some(log.clone());
            }
        }
        TaskStatus::Failed | TaskStatus::Blocked => {
            task.failure_reason.clone_from(&m.reason);
        }
        _ => task.failure_reason = None,
    }
    // Blockers travel with the event (set when blocked, cleared when unblocked), so a
    // reader folding the log sees the same task the writer saw.
    if let Some(kinds) = &m.blocked_by {
        task.blocked_by.clone_from(kinds);
    }
    if to == TaskStatus::Pending && m.unblocked {
        task.dispatch_failures = 0;
    }
    // A handed-off task that comes back takes its hand-off's reason with it (the
    // run that handed it off left the workflow running with that reason).
    let taken_back = to != TaskStatus::InProgress && task.handed_off == Some(true);
    if to != TaskStatus::InProgress {
        task.handed_off = None;
    }
    match to {
        // A completion carries its proof; one without (a plugin's, an old wf's) has none.
        TaskStatus::Completed => task.evidence.clone_from(&m.evidence),
        // The tree an agent's first attempt started from stays until the task is done
        // (a retry's start carries none).
        TaskStatus::InProgress => {
            if let Some(tree) = &m.base_tree {
                task.base_tree = Some(tree.clone());
            }
        }
        _ => {}
    }
    if to.is_done() {
        task.base_tree = None;
    }
    task.reopened = (to == TaskStatus::Pending)
        .then(|| m.reopened.clone())
        .flatten();
    task.accepted_unchecked = to == TaskStatus::Completed && m.accepted_unchecked;
    if m.dispatch_failure {
        task.dispatch_failures += 1;
    }
    // The phase's tests at its start, taken as its first checked task starts.
    let baseline = (to == TaskStatus::InProgress)
        .then_some(m.phase_baseline.as_ref())
        .flatten()
        .map(|b| (task.phase.clone(), b.clone()));
    if let Some((phase, b)) = baseline {
        state.phase_baselines.insert(phase, b);
    }
    if to == TaskStatus::Completed {
        match &m.check_warning {
            Some(w) => state.check_warnings.insert(id.to_string(), w.clone()),
            None => state.check_warnings.remove(id),
        };
    }
    if to == TaskStatus::InProgress {
        state.current_task = Some(id.to_string());
    }
    if taken_back && state.status == WorkflowStatus::Running {
        state.status_reason = None;
    }
    if m.retry {
        *state.retry_counts.entry(id.to_string()).or_insert(0) += 1;
    }
    if to == TaskStatus::Skipped {
        state.skipped_info.insert(
            id.to_string(),
            serde_json::json!({"reason": m.reason.as_deref().unwrap_or(""), "skippedAt": event.ts}),
        );
    }
    Ok(())
}

/// `wf verify` checked a completed task again and it passed: its new proof.
fn apply_verified(state: &mut WorkflowState, event: &Event, v: &Verified) -> Result<()> {
    let id = event
        .task_id
        .as_deref()
        .ok_or_else(|| bad_event(event, "no task_id"))?;
    let task = state
        .task_mut(id)?
        .ok_or_else(|| bad_event(event, &format!("unknown task {id}")))?;
    task.evidence = Some(v.evidence.clone());
    Ok(())
}

fn apply_workflow_status(state: &mut WorkflowState, event: &Event, m: &WorkflowMove) -> Result<()> {
    state.status = state
        .status
        .to(m.to)
        .map_err(|e| bad_event(event, &e.message))?;
    let reason = m.reason.clone();
    // failure_reason is the plugin's field for a failure; why a workflow rests
    // (paused, blocked) is not a failure and is kept apart.
    (state.failure_reason, state.status_reason) = match m.to {
        WorkflowStatus::Failed => (reason, None),
        WorkflowStatus::Blocked | WorkflowStatus::Paused => (None, reason),
        // An abandoned workflow (`wf archive --force`) keeps why it failed in its
        // record, and says it was abandoned.
        WorkflowStatus::Archived => (state.failure_reason.take(), reason),
        _ => (None, None),
    };
    if m.to == WorkflowStatus::Completed {
        state.completed_at = Some(event.ts.clone());
    }
    Ok(())
}
