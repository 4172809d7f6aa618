//! A run of the engine for an agent that is its own executor: `wf mcp`'s tools
//! (`src/mcp/tools/`) and the `Stop` hook that completes a passing task and hands
//! the agent the next one (`src/commands/hook.rs`). The caller holds the workflow's
//! lock.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::Result;
use crate::project::Project;
use crate::run::engine::{BriefFn, Engine, Mode, Options, Reporter, Stop};
use crate::run::executor::Pool;
use crate::run::recovery;
use crate::run::work::{TaskOutcome, WorkCtx};
use crate::state::{Session, Task};

/// The workflow's lock for a call that writes, taken as `wf workflow-execute` takes it
/// (src/commands/execute.rs) with a wait of `wait`, then what it settles before
/// running: an interrupted run recovered. No workflow is the CLI's error, without a
/// workflow dir made for a lock.
pub fn lock(project: &Project, wait: Duration, command: &str) -> Result<Session> {
    let store = project.store();
    if store.load_snapshot()?.is_none() {
        return Err(project.no_workflow());
    }
    store.refuse_untouched_without_tasks()?;
    let mut session = store.lock(Some(wait), command)?;
    session.state()?.require_tasks()?;
    recovery::recover_interrupted(&mut session)?;
    Ok(session)
}

/// Whose run it is when several agents work at once (`run::lease`).
#[derive(Debug, Clone, Default)]
pub struct Caller {
    /// The task leased to the caller: of the leased tasks, the only one the run
    /// takes back.
    pub own: Option<String>,
    /// Where the caller's task is done and checked: the project's directory in the
    /// task's worktree (`agent::worktree`); the project's own when none.
    pub tree: Option<PathBuf>,
}

/// Runs the engine as `wf workflow-execute` builds it (src/commands/execute.rs), with
/// two differences: never CI (the caller is an agent at work, not a CI job), and no
/// executors — the caller is the agent, so every agent task is handed to it, never to
/// a program of `wf.executors`. `brief` writes a handed-off task's brief (the
/// callers' `report::brief::brief`, a layer above this one). Returns how the run
/// stopped and the problems it met, as the run said them.
pub fn run_engine(
    project: &Project,
    session: &mut Session,
    mode: Mode,
    brief: BriefFn,
    caller: &Caller,
) -> Result<(Stop, Vec<String>)> {
    let state = session.state()?;
    let mut opts = Options::for_workflow(
        &project.config,
        &project.dir,
        session.store().dir(),
        state,
        mode,
    );
    opts.held_elsewhere =
        crate::run::lease::live(session.store().dir(), &project.config).held_by_others(None);
    if let Some(own) = &caller.own {
        opts.held_elsewhere.remove(own);
    }
    let mut no_executors = project.config.clone();
    no_executors.wf.executors.clear();
    let pool = Pool::from_config(&no_executors, None);
    let tree = caller.tree.as_deref().unwrap_or(&project.dir);
    let ctx = WorkCtx::for_session(tree, &project.config, session)?;
    let mut quiet = Quiet::default();
    let mut engine = Engine::new(session, ctx, opts, pool, brief, &mut quiet)?;
    let stop = engine.run()?;
    drop(engine);
    Ok((stop, quiet.problems))
}

/// One step of a run for an agent's call: the engine in step mode starts at most one
/// task (after taking back the caller's handed-off one), so a call never runs more
/// than it answers for. Step mode is the agent's way of working, not the user's: the
/// workflow keeps the mode it had, and the next `wf workflow-execute` without a flag
/// runs in it.
pub fn step(
    project: &Project,
    session: &mut Session,
    brief: BriefFn,
    caller: &Caller,
) -> Result<(Stop, Vec<String>)> {
    let mode = session.state()?.execution_mode.clone();
    let ran = run_engine(project, session, Mode::Step, brief, caller)?;
    if session.state()?.execution_mode != mode {
        session.state_mut()?.execution_mode = mode;
        session.save()?;
    }
    Ok(ran)
}

/// The run's progress goes nowhere: stdout is the protocol's. Its problems (a
/// capability no executor offers, an interrupted task's partial outputs) go into the
/// answer.
#[derive(Default)]
struct Quiet {
    problems: Vec<String>,
}

impl Reporter for Quiet {
    fn started(&mut self, _: &Task) {}
    fn finished(&mut self, _: &Task, _: &TaskOutcome) {}
    fn progress(&mut self, _: usize, _: usize) {}
    fn problem(&mut self, text: &str) {
        self.problems.push(text.to_string());
    }
    fn up_to_date(&mut self, _: &Task) {}
}
