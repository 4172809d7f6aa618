//! The `next` tool: the task to do now, handed off when it is agent work, or why there is none.

use super::{advice, failed_run, lock, paused, run_step, task_to_check, what_now, Answer, Context};
use crate::error::Result;
use crate::project::Project;
use crate::report::next as next_report;
use crate::report::next::Reason;
use crate::run::engine::needs_agent;
use serde_json::json;

/// The task to do now and what to do with it, or why there is none.
pub fn next(ctx: &Context) -> Answer {
    Answer::of(next_inner(ctx))
}

fn next_inner(ctx: &Context) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let mut session = lock(&project, ctx, "mcp next")?;
    let hand_off = {
        let state = session.state()?;
        let n = what_now(state);
        n.reason == Reason::Ready && n.task.is_some_and(needs_agent) && !failed_run(state)
    };
    let mut problems = Vec::new();
    if hand_off {
        problems = run_step(&project, &mut session)?.1;
    }
    let state = session.state()?;
    let n = what_now(state);
    ctx.give(task_to_check(state, &n));
    let then = advice(state, &n);
    let checks = crate::run::derived::config_checks(&project.config);
    let mut body = next_report::json(state, &n, &checks);
    body["workflow_status"] = json!(state.status);
    body["status_reason"] = json!(state.status_reason);
    body["handed_off"] = json!(n.task.is_some_and(|t| t.handed_off == Some(true)));
    body["then"] = json!(then);
    body["problems"] = json!(problems);
    let mut text = next_report::text(state, &n, &checks).trim_end().to_string();
    if let Some(why) = paused(state) {
        text.push_str(&format!("\n\nThe last run paused: {why}."));
    }
    text.push_str(&format!("\n\n{then}"));
    Ok(Answer::new(body, text, false))
}
