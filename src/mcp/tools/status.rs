//! The `status` tool: progress, the current task, failures and blockers, compactly. Read-only.

use super::{situation, Answer, Context};
use crate::error::Result;
use crate::project::Project;
use crate::report::next as next_report;
use crate::report::one_line;
use crate::report::Counts;
use crate::state::model::{Glance, Task};
use crate::state::TaskStatus;
use crate::state::WorkflowStatus;
use serde_json::json;
use serde_json::Value;

/// Where the workflow stands, compactly: progress, the current task, failures,
/// blockers. Read-only, as `wf status`: no lock, nothing written.
pub fn status(ctx: &Context) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let store = project.store();
    let state = store.load()?.ok_or_else(|| project.no_workflow())?;
    let others =
        crate::run::lease::live(store.dir(), &project.config).held_by_others(Some(&ctx.agent));
    let c = Counts::of(&state.tasks);
    let interrupted = state.status == WorkflowStatus::Running
        && state.handed_off_task().is_none()
        && !store.writer_alive();
    let current = state.current_task.as_deref().map(|id| state.task(id));
    let current = current.transpose()?.flatten().map(|t| json!({"id": t.id, "name": t.name, "status": t.status, "handed_off": t.handed_off == Some(true)}));
    let listed = |status, entry: fn(&Task) -> Value| -> Result<Vec<Value>> {
        let with = state.tasks.iter().filter(|t| t.status() == status);
        with.map(|t| Ok(entry(t.task()?))).collect()
    };
    let failed = listed(
        TaskStatus::Failed,
        |t| json!({"id": t.id, "name": t.name, "reason": t.failure_reason}),
    )?;
    let blocked = listed(
        TaskStatus::Blocked,
        |t| json!({"id": t.id, "name": t.name, "blocked_by": t.blocked_by}),
    )?;
    let n = next_report::next_given(
        &state,
        crate::run::now::Facts {
            writer_alive: store.writer_alive(),
            ..crate::run::now::Facts::default()
        },
    )?;
    let body = json!({
        "workflow": crate::report::workflow_name(&state),
        "status": state.status,
        "status_reason": state.status_reason,
        "interrupted": interrupted,
        "execution_mode": state.execution_mode,
        "progress": {
            "done": c.done(), "total": c.total, "percent": c.percent,
            "completed": c.completed, "skipped": c.skipped, "failed": c.failed,
            "blocked": c.blocked, "in_progress": c.in_progress, "pending": c.pending,
        },
        "current_task": current,
        "next": {"reason": n.reason.as_str(), "task": n.task.map(|t| t.id.clone()), "message": situation(&state, &n, &others)},
        "failed": failed,
        "blocked": blocked,
        "failure_reason": state.failure_reason,
    });
    let mut text = format!(
        "{}: {}{} — {}/{} done ({} completed, {} skipped, {} failed, {} blocked)",
        one_line(crate::report::workflow_name(&state)),
        state.status,
        state
            .status_reason
            .as_deref()
            .map(|r| format!(" ({})", one_line(r)))
            .unwrap_or_default(),
        c.done(),
        c.total,
        c.completed,
        c.skipped,
        c.failed,
        c.blocked
    );
    if interrupted {
        text.push_str("\nInterrupted: the run that was executing this workflow is gone; call `done` to continue where it stopped.");
    }
    text.push_str(&format!("\nNext: {}", situation(&state, &n, &others)));
    Ok(Answer::new(body, text, false))
}
