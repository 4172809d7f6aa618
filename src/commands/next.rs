//! `wf next`: the brief of the task to do now (the one in progress, else the first
//! ready one), or why there is none. Read-only. The answer is `run::now`'s, the one
//! `workflow-execute` acts on, and so is the exit code: 0 when `workflow-execute`
//! would go on, else the code it would refuse with (1 failed, 2 a decision is
//! needed, 3 blocked).
//!
//! `wf next --agent NAME` is the one form that writes: under the workflow's lock it
//! leases the task to that agent (`agent::parallel`), handing it off first when it
//! was only ready, so another agent's `next` gets another task; with `--worktree`
//! the task is done in a git worktree of its own. `wf done --agent NAME` brings it
//! back.

use std::time::Duration;

use serde_json::json;

use crate::agent::parallel::Turn;
use crate::cli::{GlobalArgs, NextArgs};
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::report::next;
use crate::run::now::Facts;

pub fn run(project: &Project, global: &GlobalArgs, args: &NextArgs, out: &Output) -> Result<i32> {
    match &args.agent {
        Some(agent) => lease(project, global, agent, args.worktree, out),
        None => read(project, out),
    }
}

fn read(project: &Project, out: &Output) -> Result<i32> {
    let (store, view) = super::load_view(project)?;
    let (state, digest) = (&view.state, &view.digest);
    if digest.total == 0 {
        state.require_tasks()?;
    }
    let facts = Facts {
        writer_alive: store.writer_alive(),
        ..Facts::default()
    };
    let answer = next::next_in(state, digest, facts)?;
    let checks = crate::run::derived::config_checks(&project.config);
    out.json_value(&next::json_in(state, digest, &answer, &checks));
    out.say(next::text(state, &answer, &checks).trim_end());
    Ok(answer.reason.exit_code())
}

/// The agent's task: the one it holds, a hand-off nobody holds, else the first
/// ready agent task, handed off and leased to it.
fn lease(
    project: &Project,
    global: &GlobalArgs,
    agent: &str,
    own_tree: bool,
    out: &Output,
) -> Result<i32> {
    let wait = Duration::from_secs(global.wait.unwrap_or(0));
    let mut session = crate::agent::step::lock(project, wait, "next --agent")?;
    let mut turn = Turn::begin(project, &mut session, agent)?;
    let own_tree = own_tree || project.config.wf.agents.worktrees == Some(true);
    let problems = turn.take_next(project, &mut session, own_tree, |session, caller| {
        crate::agent::step::step(project, session, crate::report::brief::brief, caller)
    })?;
    let state = session.state()?;
    let mut n = next::next_in(state, &turn.digest(state), Facts::locked())?;
    if let Some(t) = n.task.filter(|t| turn.leases.of_task(&t.id).is_some()) {
        // The task is this agent's: it comes back with `done`, not with a run.
        n.message = format!(
            "{} is leased to {}: do it, then run `wf done --agent {}`.",
            t.id,
            crate::report::one_line(agent),
            crate::report::one_line(agent)
        );
    }
    let checks = crate::run::derived::config_checks(&project.config);
    let tree = n
        .task
        .and_then(|t| turn.leases.of_task(&t.id))
        .and_then(|l| l.worktree.as_ref());
    let mut doc = next::json(state, &n, &checks);
    doc["agent"] = json!(agent);
    doc["worktree"] = json!(tree.map(|w| json!({"dir": w.dir, "branch": w.branch})));
    doc["problems"] = json!(problems);
    out.json_value(&doc);
    let mut text = next::text(state, &n, &checks).trim_end().to_string();
    if let Some(tree) = tree {
        text.push_str(&format!(
            "\n\nWork in {} (branch {}): `wf done --agent {agent}` checks it there and merges it back.",
            tree.dir.display(),
            crate::report::one_line(&tree.branch)
        ));
    }
    for problem in &problems {
        text.push_str(&format!("\nproblem: {}", crate::report::one_line(problem)));
    }
    out.say(text);
    Ok(n.reason.exit_code())
}
