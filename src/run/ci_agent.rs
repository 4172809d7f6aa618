//! An agent task done in a CI job (`wf run-task --agents`, docs/distributed.md
//! "Agent tasks"): the project's configured executors (`wf.executors`) do it as
//! `workflow-execute` would have them, and the same checks decide — what its line
//! names, its commands, the claim against what changed in the tree. The job's
//! outputs (`--outputs`) hand the files it declares to the jobs after it; nothing
//! of the workflow is written.
//!
//! The job must have each executor's program and credentials (`wf.export.setup`,
//! `wf.export.env`); an executor whose program is missing fails the task here,
//! naming it, never a pass.

use crate::config::Config;
use crate::run::agent::{self, Dispatch};
use crate::run::engine::BriefFn;
use crate::run::executor::Pool;
use crate::run::work::{Part, TaskOutcome, Verdict, WorkCtx};
use crate::state::model::{Task, WorkflowState};

/// The outcome of the executors' work and its checks, with the executors' names, or
/// why none could start.
pub fn do_in_job(
    ctx: &WorkCtx,
    state: &WorkflowState,
    task: &Task,
    config: &Config,
    brief: BriefFn,
) -> Result<(TaskOutcome, String), Verdict> {
    let mut pool = Pool::from_config(config, None);
    let mut executors = Vec::new();
    for capability in pool.required(task) {
        match pool.allocate(&capability, false) {
            Some(executor) => executors.push(executor),
            None => {
                return Err(Verdict::Failed {
                    reason: no_executor(&pool, &capability, task),
                })
            }
        }
    }
    let names: Vec<&str> = executors.iter().map(|e| e.config.name.as_str()).collect();
    let names = names.join(", ");
    let dispatch = Dispatch {
        brief: brief(state, task, &crate::run::derived::config_checks(config)).into_bytes(),
        executors,
        mock: None,
        before_implementation: false,
        part: Part::Standalone,
    };
    // The executors' events have no workflow to go to: what they did is in the
    // outcome (its claim, changes, checks), and so in the result.
    Ok((
        agent::do_agent_task(ctx, task, 1, dispatch, &mut |_| {}),
        names,
    ))
}

fn no_executor(pool: &Pool, capability: &str, task: &Task) -> String {
    if pool.all_broken(capability) {
        format!(
            "task {} needs an executor offering `{capability}`, and the program of every one in wf.executors that does is missing in this job; install it with a wf.export.setup step",
            task.id
        )
    } else {
        format!(
            "task {} needs an executor offering `{capability}`, and wf.executors has none; add one, or export with --agent-tasks fail|omit",
            task.id
        )
    }
}
