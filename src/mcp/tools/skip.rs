//! The `skip` tool: a task left undone with a reason, as `wf workflow-execute --skip
//! TASK --reason TEXT` leaves it, so the tasks after it can go on.

use super::{advice, first_failed, situation, what_now, Answer, Context};
use crate::agent::step::lock;
use crate::error::{Result, WfError};
use crate::project::Project;
use crate::report::one_line;
use crate::run::recovery;
use crate::state::model::Glance;
use crate::state::WorkflowStatus;
use serde_json::json;

/// Skips `task` (by default the failed task, else the one this server gave) for
/// `reason`; the answer is what is next.
pub fn skip(ctx: &Context, task: Option<&str>, reason: &str) -> Result<Answer> {
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(WfError::usage(
            "skip needs a reason: say why the task is left undone",
        ));
    }
    let project = Project::discover(ctx.project.as_deref())?;
    let mut session = lock(&project, ctx.wait, "mcp skip")?;
    let mut turn = crate::agent::parallel::Turn::begin(&project, &mut session, &ctx.agent)?;
    let others = turn.others();
    let target = {
        let state = session.state()?;
        if matches!(
            state.status,
            WorkflowStatus::Completed | WorkflowStatus::Archived
        ) {
            return Err(WfError::usage(format!(
                "the workflow is {}; there is nothing to skip",
                state.status
            )));
        }
        match task {
            Some(id) => id.to_string(),
            None => first_failed(state, &others)
                .map(|t| t.id().to_owned())
                .or_else(|| ctx.given())
                .ok_or_else(|| {
                    WfError::usage(
                        "no task has failed and none was given to you: name the task to skip",
                    )
                })?,
        }
    };
    let id = recovery::skip(&mut session, &target, reason)?;
    turn.let_go(&session, &id)?;
    if ctx.given().as_deref() == Some(id.as_str()) {
        ctx.give(None);
    }
    let state = session.state()?;
    let n = what_now(state, &turn)?;
    let then = match n.task {
        Some(t) if n.reason == crate::report::next::Reason::Ready => format!(
            "Next: {} ({}). Call `next` for its brief.",
            one_line(&t.id),
            one_line(&t.name)
        ),
        _ => advice(state, &n, &others),
    };
    let body = json!({
        "task": id,
        "status": "skipped",
        "reason": reason,
        "workflow_status": state.status,
        "next": {"reason": n.reason.as_str(), "task": n.task.map(|t| t.id.clone()), "message": situation(state, &n, &others)},
        "then": then,
    });
    let text = format!(
        "{} is skipped: {}.\n{then}",
        one_line(&id),
        one_line(reason)
    );
    Ok(Answer::new(body, text, false))
}
