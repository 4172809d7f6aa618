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
use crate::state::event::EventKind;
use crate::state::event_log::Event;
use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::WorkflowState;
use serde_json::Value;

/// Whether a reader's fold applies an event of this kind (as a line names it) and
/// `txn`: one of ours that changes the state, not part of a transaction. Readers
/// that keep or scan only such events ask this, so the rule is this one.
pub fn folds(kind: &str, txn: bool) -> bool {
    !txn && EventKind::named_changes_state(kind)
}

/// A reader's fold of one event past the snapshot's mark.
pub fn apply_event(state: &mut WorkflowState, event: &Event) -> Result<()> {
    if !folds(&event.kind, event.txn) {
        return Ok(());
    }
    apply_live(state, event)
}

/// The writer's application of an event it just appended, transaction or not.
pub fn apply_live(state: &mut WorkflowState, event: &Event) -> Result<()> {
    // Another tool's event, or one of a newer wf: not ours to apply.
    let Some(kind) = EventKind::parse(&event.kind) else {
        return Ok(());
    };
    match kind {
        EventKind::TaskStatusChanged => apply_task_status(state, event)?,
        EventKind::WorkflowStatusChanged => apply_workflow_status(state, event)?,
        EventKind::TaskVerified => apply_verified(state, event)?,
        EventKind::GateResult => {
            if let Some(id) = &event.task_id {
                state.quality_gates.insert(id.clone(), event.data.clone());
            }
            // A gate verifies the hard constraints as `wf constraints verify` does.
            let checked = event.data.get("verifications").and_then(|v| v.as_array());
            for v in checked.into_iter().flatten() {
                if let Ok(v) = serde_json::from_value(v.clone()) {
                    state.constraints.record(&v);
                }
            }
        }
        EventKind::PlanImported
        | EventKind::ConstraintAdded
        | EventKind::ConstraintRemoved
        | EventKind::ConstraintPromoted
        | EventKind::ConstraintsMerged
        | EventKind::ConstraintVerified
        | EventKind::TaskExecutionStarted
        | EventKind::TaskExecutionResult
        | EventKind::TaskAcceptedUnchecked
        | EventKind::TaskDispatchRequested
        | EventKind::TaskDispatchAck
        | EventKind::TaskDispatchNack
        | EventKind::TaskReviewResult
        | EventKind::ResourceAllocated
        | EventKind::ResourceReleased
        | EventKind::ResourceMissing => return Ok(()),
    }
    state.updated_at.clone_from(&event.ts);
    Ok(())
}

/// A status read from `value`, `event`'s `data.{key}`.
fn status_field<T>(
    event: &Event,
    key: &str,
    value: Option<&Value>,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<T> {
    value
        .and_then(Value::as_str)
        .and_then(parse)
        .ok_or_else(|| bad_event(event, &format!("no valid data.{key}")))
}

fn bad_event(event: &Event, what: &str) -> WfError {
    // Kind and task id come from the file: kept to one line.
    WfError::new(
        ErrorKind::CorruptState,
        crate::error::one_line(&format!(
            "event log: event {} ({}) has {what}; move events.jsonl away to continue from the last snapshot",
            event.seq, event.kind
        )),
    )
}

/// The fields of a task move's `data` that the fold reads, found in one pass over it.
/// A lookup by key hashes the key (serde_json's map, with std's SipHash), and a move
/// has thirteen to look up: a tenth of the fold's work on a task run.
#[derive(Default)]
struct MoveData<'a> {
    to: Option<&'a Value>,
    reason: Option<&'a Value>,
    retry: Option<&'a Value>,
    duration_ms: Option<&'a Value>,
    usage: Option<&'a Value>,
    handoff: Option<&'a Value>,
    log: Option<&'a Value>,
    blocked_by: Option<&'a Value>,
    unblocked: Option<&'a Value>,
    base_tree: Option<&'a Value>,
    reopened: Option<&'a Value>,
    accepted_unchecked: Option<&'a Value>,
    dispatch_failure: Option<&'a Value>,
    phase_baseline: Option<&'a Value>,
    check_warning: Option<&'a Value>,
}

impl<'a> MoveData<'a> {
    /// `data`'s fields by name; none of a `data` that is not an object.
    fn of(data: &'a Value) -> MoveData<'a> {
        let mut found = MoveData::default();
        for (key, value) in data.as_object().into_iter().flatten() {
            let slot = match key.as_str() {
                "to" => &mut found.to,
                "reason" => &mut found.reason,
                "retry" => &mut found.retry,
                "duration_ms" => &mut found.duration_ms,
                "usage" => &mut found.usage,
                "handoff" => &mut found.handoff,
                "log" => &mut found.log,
                "blocked_by" => &mut found.blocked_by,
                "unblocked" => &mut found.unblocked,
                "base_tree" => &mut found.base_tree,
                "reopened" => &mut found.reopened,
                "accepted_unchecked" => &mut found.accepted_unchecked,
                "dispatch_failure" => &mut found.dispatch_failure,
                "phase_baseline" => &mut found.phase_baseline,
                "check_warning" => &mut found.check_warning,
                _ => continue,
            };
            *slot = Some(value);
        }
        found
    }
}

fn apply_task_status(state: &mut WorkflowState, event: &Event) -> Result<()> {
    let id = event
        .task_id
        .as_deref()
        .ok_or_else(|| bad_event(event, "no task_id"))?;
    let data = MoveData::of(&event.data);
    let to = status_field(event, "to", data.to, TaskStatus::parse)?;
    let reason = data.reason.and_then(Value::as_str);
    let retry = data.retry.and_then(Value::as_bool) == Some(true);
    let task = state
        .task_mut(id)
        .ok_or_else(|| bad_event(event, &format!("unknown task {id}")))?;
    task.status = task
        .status
        .to(to, id)
        .map_err(|e| bad_event(event, &e.message))?;
    if let Some(ms) = data.duration_ms.and_then(Value::as_u64) {
        task.duration_ms = Some(ms);
    }
    // Every attempt's usage adds to the task's: what was spent stays spent.
    if let Some(used) = data
        .usage
        .and_then(|u| serde_json::from_value::<crate::state::model::Usage>(u.clone()).ok())
    {
        task.usage = Some(task.usage.unwrap_or_default().plus(used));
    }
    match to {
        TaskStatus::InProgress => {
            task.attempts += 1;
            task.failure_reason = None;
            if let Some(ex) = &event.executor {
                task.executor = Some(ex.clone());
            }
            task.handed_off = (data.handoff.and_then(Value::as_bool) == Some(true)).then_some(true);
            if let Some(log) = data.log.and_then(Value::as_str) {
                task.log = Some(log.to_string());
            }
        }
        TaskStatus::Failed | TaskStatus::Blocked => {
            task.failure_reason = reason.map(str::to_string);
        }
        _ => task.failure_reason = None,
    }
    // Blockers travel with the event (set when blocked, cleared when unblocked), so a
    // reader folding the log sees the same task the writer saw.
    if let Some(kinds) = data.blocked_by.and_then(Value::as_array) {
        task.blocked_by = kinds
            .iter()
            .filter_map(|k| k.as_str().map(str::to_string))
            .collect();
    }
    if to == TaskStatus::Pending && data.unblocked.and_then(Value::as_bool) == Some(true) {
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
        TaskStatus::Completed => task.evidence.clone_from(&event.evidence),
        // The tree an agent's first attempt started from stays until the task is done
        // (a retry's start carries none).
        TaskStatus::InProgress => {
            if let Some(tree) = data.base_tree.and_then(Value::as_str) {
                task.base_tree = Some(tree.to_string());
            }
        }
        _ => {}
    }
    if to.is_done() {
        task.base_tree = None;
    }
    task.reopened = (to == TaskStatus::Pending)
        .then(|| data.reopened.and_then(Value::as_str))
        .flatten()
        .map(str::to_string);
    task.accepted_unchecked = to == TaskStatus::Completed
        && data.accepted_unchecked.and_then(Value::as_bool) == Some(true);
    if data.dispatch_failure.and_then(Value::as_bool) == Some(true) {
        task.dispatch_failures += 1;
    }
    // The phase's tests at its start, taken as its first checked task starts.
    let baseline = (to == TaskStatus::InProgress)
        .then(|| data.phase_baseline.cloned())
        .flatten()
        .and_then(|b| serde_json::from_value(b).ok())
        .map(|b| (task.phase.clone(), b));
    if let Some((phase, b)) = baseline {
        state.phase_baselines.insert(phase, b);
    }
    if to == TaskStatus::Completed {
        match data.check_warning.and_then(Value::as_str) {
            Some(w) => state.check_warnings.insert(id.to_string(), w.to_string()),
            None => state.check_warnings.remove(id),
        };
    }
    if to == TaskStatus::InProgress {
        state.current_task = Some(id.to_string());
    }
    if taken_back && state.status == WorkflowStatus::Running {
        state.status_reason = None;
    }
    if retry {
        *state.retry_counts.entry(id.to_string()).or_insert(0) += 1;
    }
    if to == TaskStatus::Skipped {
        state.skipped_info.insert(
            id.to_string(),
            serde_json::json!({"reason": reason.unwrap_or(""), "skippedAt": event.ts}),
        );
    }
    Ok(())
}

/// `wf verify` checked a completed task again and it passed: its new proof.
fn apply_verified(state: &mut WorkflowState, event: &Event) -> Result<()> {
    let id = event
        .task_id
        .as_deref()
        .ok_or_else(|| bad_event(event, "no task_id"))?;
    let evidence = event
        .evidence
        .clone()
        .ok_or_else(|| bad_event(event, "no valid data.evidence"))?;
    let task = state
        .task_mut(id)
        .ok_or_else(|| bad_event(event, &format!("unknown task {id}")))?;
    task.evidence = Some(evidence);
    Ok(())
}

fn apply_workflow_status(state: &mut WorkflowState, event: &Event) -> Result<()> {
    let to = status_field(event, "to", event.data.get("to"), |s| {
        WorkflowStatus::ALL.into_iter().find(|w| w.as_str() == s)
    })?;
    state.status = state
        .status
        .to(to)
        .map_err(|e| bad_event(event, &e.message))?;
    let reason = event
        .data
        .get("reason")
        .and_then(|v| v.as_str())
        .map(str::to_string);
    // failure_reason is the plugin's field for a failure; why a workflow rests
    // (paused, blocked) is not a failure and is kept apart.
    (state.failure_reason, state.status_reason) = match to {
        WorkflowStatus::Failed => (reason, None),
        WorkflowStatus::Blocked | WorkflowStatus::Paused => (None, reason),
        _ => (None, None),
    };
    if to == WorkflowStatus::Completed {
        state.completed_at = Some(event.ts.clone());
    }
    Ok(())
}
