//! The `next` tool: the task to do now, handed off when it is agent work; a failed
//! task's brief with its failure; or why there is none.

use super::{
    advice, failure, paused, run_step, situation, task_to_check, to_fix, what_now, Answer, Context,
};
use crate::agent::parallel::Turn;
use crate::agent::step::lock;
use crate::error::Result;
use crate::project::Project;
use crate::report::brief;
use crate::report::next as next_report;
use crate::report::one_line;
use serde_json::json;

/// The task to do now and what to do with it, or why there is none.
pub fn next(ctx: &Context) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let mut session = lock(&project, ctx.wait, "mcp next")?;
    let mut turn = Turn::begin(&project, &mut session, &ctx.agent)?;
    let others = turn.others();
    let own_tree = project.config.wf.agents.worktrees == Some(true);
    let problems = turn.take_next(&project, &mut session, own_tree, |session, caller| {
        run_step(&project, session, caller)
    })?;
    let state = session.state()?;
    let n = what_now(state, &turn)?;
    ctx.give(task_to_check(state, &n, &others)?);
    let then = advice(state, &n, &others);
    let checks = crate::run::derived::config_checks(&project.config);
    let mut body = next_report::json(state, &n, &checks);
    let mut text = situation(state, &n, &others);
    body["message"] = json!(text);
    body["workflow_status"] = json!(state.status);
    body["status_reason"] = json!(state.status_reason);
    body["handed_off"] = json!(n.task.is_some_and(|t| t.handed_off == Some(true)));
    let tree = n
        .task
        .and_then(|t| turn.leases.of_task(&t.id))
        .and_then(|l| l.worktree.as_ref());
    body["worktree"] = json!(tree.map(|w| json!({"dir": w.dir, "branch": w.branch})));
    body["then"] = json!(then);
    body["problems"] = json!(problems);
    match (n.task, to_fix(state, &n, &others)) {
        // The task to fix: its brief, then what failed, as `done` said it.
        (_, Some(failed)) => {
            let failed = failed.task()?;
            let (doc, said) = failure(&session.store().logs_dir(), failed);
            body["brief"] = brief::brief_json(state, failed, &checks);
            body["failure"] = doc;
            text = format!("{said}\n{}", brief::brief(state, failed, &checks));
        }
        (Some(task), None) => text = format!("{text}\n\n{}", brief::brief(state, task, &checks)),
        (None, None) => {}
    }
    let mut text = text.trim_end().to_string();
    if let Some(tree) = tree {
        text.push_str(&format!(
            "\n\nWork in {}: this task's own git worktree, on branch {}. wf commits it and merges it back when the task passes.",
            tree.dir.display(),
            one_line(&tree.branch)
        ));
    }
    if let Some(why) = paused(state) {
        text.push_str(&format!("\n\nThe last run paused: {why}."));
    }
    text.push_str(&format!("\n\n{then}"));
    Ok(Answer::new(body, text, false))
}
