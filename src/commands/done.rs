//! `wf done --agent NAME`: the task leased to an agent (`wf next --agent NAME`)
//! comes back. Under the workflow's lock: its worktree's work committed and merged in
//! memory first — a branch that would conflict is not checked, and the task stays the
//! agent's with the files named — then one step of the engine takes it back (its
//! checks, in its worktree), and a task that passed is merged into the project's
//! checkout and its lease let go (`agent::parallel`). A failed task is checked again
//! by the next `wf done --agent NAME`. Exit 0 when it passed, 1 when it failed or
//! conflicts.

use std::time::Duration;

use serde_json::json;

use crate::agent::parallel::Turn;
use crate::cli::{DoneArgs, GlobalArgs};
use crate::error::{ErrorKind, Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::report::one_line;
use crate::run::engine::Stop;
use crate::state::TaskStatus;

pub fn run(project: &Project, global: &GlobalArgs, args: &DoneArgs, out: &Output) -> Result<i32> {
    let agent = args.agent.as_str();
    let wait = Duration::from_secs(global.wait.unwrap_or(0));
    let mut session = crate::agent::step::lock(project, wait, "done --agent")?;
    crate::run::recovery::refuse_undecided(&mut session, false, false)?;
    let mut turn = Turn::begin(project, &mut session, agent)?;
    let no_task = || {
        WfError::usage(format!(
            "agent {} holds no task; `wf next --agent {}` leases one",
            one_line(agent),
            one_line(agent)
        ))
    };
    let id = turn.own().map(|l| l.task.clone()).ok_or_else(no_task)?;
    let (status, message) = {
        let task = session.state()?.task(&id)?.ok_or_else(no_task)?;
        (task.status, format!("{id}: {}", one_line(&task.name)))
    };
    if let Some(conflict) = turn.conflicts(project, &id, &message)? {
        let files: Vec<String> = conflict.files.iter().map(|f| one_line(f)).collect();
        out.json_value(&json!({"agent": agent, "task": id, "result": "conflict", "conflicting_files": conflict.files, "head": conflict.head}));
        out.say(format!(
            "{id} was not checked: its branch conflicts with the project's head ({}) in {}. Merge that commit into the task's worktree, settle those files, commit, then run `wf done --agent {}` again.",
            conflict.head,
            files.join(", "),
            one_line(agent)
        ));
        return Ok(ErrorKind::Failed.exit_code());
    }
    let caller = turn.caller(Some(&id));
    let step = |session: &mut _| {
        crate::agent::step::step(project, session, crate::report::brief::brief, &caller)
    };
    match status {
        // Fixed since it failed: handed off again (in its worktree), then taken back.
        TaskStatus::Failed => {
            crate::run::recovery::retry(&mut session, &id)?;
            let (stop, _) = step(&mut session)?;
            if stop != Stop::HandedOff(id.clone()) {
                return Err(WfError::usage(format!(
                    "task {id} could not be handed back to agent {}: the run stopped first",
                    one_line(agent)
                )));
            }
        }
        TaskStatus::InProgress => {}
        _ => {
            // Done or put back by someone else meanwhile: the lease is stale.
            turn.let_go(&session, &id)?;
            return Err(WfError::usage(format!(
                "task {id} is {status}, no longer out with agent {}; `wf next --agent {}` leases the next one",
                one_line(agent),
                one_line(agent)
            )));
        }
    }
    let (_, mut problems) = step(&mut session)?;
    problems.extend(turn.settle_return(project, &session, &id, &message)?);
    let task = session.state()?.task(&id)?.ok_or_else(no_task)?;
    let passed = task.status.is_done();
    out.json_value(&json!({
        "agent": agent,
        "task": id,
        "result": if passed { "passed" } else { "failed" },
        "status": task.status,
        "reason": task.failure_reason,
        "problems": problems,
    }));
    let mut text = if passed {
        format!("{id} passed its checks and is {}.", task.status)
    } else {
        format!(
            "{id} is {}: {}",
            task.status,
            one_line(task.failure_reason.as_deref().unwrap_or("not checked"))
        )
    };
    for problem in &problems {
        text.push_str(&format!("\nproblem: {}", one_line(problem)));
    }
    out.say(text);
    Ok(if passed {
        0
    } else {
        ErrorKind::Failed.exit_code()
    })
}
