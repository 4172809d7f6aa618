//! The scheduler of `workflow-execute`: picks ready tasks, dispatches them to
//! workers, records every transition, and stops where the mode says.
//!
//! The main thread owns the locked session: it alone changes state and writes the
//! event log; workers only run commands and send back an outcome. Progress is durable
//! per task through the event log; the snapshot is rewritten now and then, off this
//! thread (`run::checkpoint`), and at every stop, so a run costs O(1) per task here.
//!
//! This file is the loop and the run's begin and end; it asks `policy` what to do
//! (pure rules, tested on plain data), has `dispatch` start the work, and `outcome`
//! record what came back, so the order of events in a run reads in one place.

use crate::state::task_ref::TaskRef;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::config::Role;
use crate::error::Result;
use crate::run::checkpoint::Checkpoints;
use crate::run::context;
use crate::run::derived::Returning;
use crate::run::dispatch::{Floor, Msg};
use crate::run::executor::Pool;
pub use crate::run::options::Options;
use crate::run::policy::{self, Assignment, StopCheck};
pub use crate::run::policy::{agent_actions, needs_agent, Mode, Stop};
use crate::run::ready_queue::ReadyQueue;
use crate::run::signals;
use crate::run::work::{self, Part, TaskOutcome, WorkCtx};
use crate::state::model::{Glance, Task};
use crate::state::{Session, TaskStatus, WorkflowStatus};

/// What the command shows while the run goes on.
pub trait Reporter {
    fn started(&mut self, task: &Task);
    fn finished(&mut self, task: &Task, outcome: &TaskOutcome);
    /// Counts after each finished task: (done, total).
    fn progress(&mut self, done: usize, total: usize);
    /// Something went wrong that is not a task failure: a missing capability.
    fn problem(&mut self, text: &str);
    /// A task was up to date: the cache held a passing record of its inputs.
    fn up_to_date(&mut self, task: &Task);
}

/// Where a run stands between slots being filled.
struct RunState {
    pending_stop: Option<Stop>,
    /// Tasks started in this run.
    dispatched: usize,
    /// The phase this run works in, once it started a task.
    run_phase: Option<String>,
}

/// Renders the brief an executor gets on stdin, with the project's `wf.checks`.
pub type BriefFn =
    fn(&crate::state::WorkflowState, &Task, &[crate::proof::derive::ConfigCheck]) -> String;

#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub ran: usize,
    pub passed: usize,
    pub failed: usize,
    /// Tasks found up to date in the verification cache: completed, not run.
    pub cached: usize,
    /// What became of each task this run worked on, in the order they finished.
    pub tasks: Vec<TaskResult>,
    /// A CI run that was to go to the end (`Stop::exit_code`).
    pub ci_to_the_end: bool,
}

/// One task's result in a run, for `workflow-execute --json` and the agent tools.
#[derive(Debug, Clone, serde::Serialize)]
pub struct TaskResult {
    pub id: String,
    /// The task's status after the run recorded the outcome (a retry can put a
    /// failed task back to pending).
    pub status: crate::state::TaskStatus,
    pub attempt: u32,
    pub duration_ms: u64,
    /// Where the attempt's log goes, absolute. A log is written only when a check
    /// prints or fails, so whether it is there is asked when the results are shown
    /// (`report::execute`), not per task on the run's hot path.
    pub log: Option<std::path::PathBuf>,
    /// Why it did not pass, when it did not.
    pub reason: Option<String>,
    /// The checks that failed: each command, its exit code and how it ended.
    pub failed_checks: Vec<crate::run::failure::FailedCheck>,
    /// Completed from the verification cache: nothing ran.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
}

pub struct Engine<'a> {
    pub(super) session: &'a mut Session,
    /// Shared with the workers: one per task would copy the config each time.
    pub(super) ctx: Arc<WorkCtx>,
    pub(super) opts: Options,
    pub(super) reporter: &'a mut dyn Reporter,
    checkpoints: Checkpoints,
    pub(super) summary: RunSummary,
    /// Agent tasks done in this run (the consecutive-task limit counts these).
    pub(super) agent_tasks: u32,
    pub(super) pool: Pool,
    pub(super) brief: BriefFn,
    /// Tasks whose next attempt goes to the strongest executor (`policy::Next::Escalate`).
    pub(super) escalate: HashSet<String>,
    /// Executors each running task holds, to release when it ends.
    pub(super) held: HashMap<String, Vec<(String, Role)>>,
    /// Which task starts next (`ready_queue.rs`): kept as tasks finish, not rescanned.
    pub(super) queue: ReadyQueue,
    /// How many tasks are completed or skipped, kept as they finish.
    pub(super) done: usize,
    /// What the executors reported they used, all tasks added up (`tasks` counts
    /// reports), kept as outcomes come in: the budget rule scans nothing per dispatch.
    pub(super) spent: crate::run::usage::Total,
    /// The verification cache, when the run uses one.
    pub(super) cache: Option<crate::proof::cache::Cache>,
}

impl<'a> Engine<'a> {
    pub fn new(
        session: &'a mut Session,
        ctx: WorkCtx,
        opts: Options,
        pool: Pool,
        brief: BriefFn,
        reporter: &'a mut dyn Reporter,
    ) -> Result<Engine<'a>> {
        let state = session.state()?;
        // Positions looked up in a row: a dependency the plan lacks is a miss, and
        // each lone miss would index every task again.
        let queue = state.with_positions(|position| ReadyQueue::new(&state.tasks, position));
        let spent = crate::run::usage::total(&session.state()?.tasks);
        let cache = opts.cache.clone().map(crate::proof::cache::Cache::new);
        let summary = RunSummary {
            ci_to_the_end: opts.ci && !opts.explicit_mode,
            ..RunSummary::default()
        };
        Ok(Engine {
            session,
            ctx: Arc::new(ctx),
            opts,
            reporter,
            checkpoints: Checkpoints::default(),
            summary,
            agent_tasks: 0,
            pool,
            brief,
            escalate: HashSet::new(),
            held: HashMap::new(),
            queue,
            spent,
            done: 0,
            cache,
        })
    }

    pub fn summary(&self) -> &RunSummary {
        &self.summary
    }

    /// Runs until a stop point; the workflow's status says where it stopped.
    pub fn run(&mut self) -> Result<Stop> {
        // Nothing to run is not "all done": a workflow is never completed with 0 tasks.
        self.session.state()?.require_tasks()?;
        signals::install();
        // Before `begin` changes the state's fields without an event.
        self.session.keep_glance();
        self.begin()?;
        // Where the run starts, before its first task: a bar that says 0/0 is a lie.
        let (done, total) = self.counts()?;
        self.reporter.progress(done, total);
        let returned = match self.take_back_handed_off()? {
            Ok(returned) => returned,
            Err(stop) => return self.finish(stop),
        };
        let stop = self.schedule(returned)?;
        self.finish(stop)
    }

    /// `→ running`, with the run's counters reset and the context re-estimated.
    fn begin(&mut self) -> Result<()> {
        self.done = self
            .session
            .state()?
            .tasks
            .iter()
            .filter(|t| t.status().is_done())
            .count();
        let tokens = context::estimate_tokens(
            self.opts.plan_chars,
            self.opts.design_chars,
            &self.ctx.project,
        );
        let state = self.session.state_mut()?;
        state.consecutive_count = 0;
        // The plugin's execute step moves `phase` from `plan` to `execute` likewise.
        state.phase = Some("execute".into());
        state.execution_mode = self.opts.mode.state_name().to_string();
        state.context_metrics.estimated_tokens = tokens;
        if state.started_at.is_none() {
            state.started_at = Some(crate::clock::now_rfc3339());
        }
        if state.status != WorkflowStatus::Running {
            self.session
                .set_workflow_status(WorkflowStatus::Running, None)?;
        }
        Ok(())
    }

    /// A task handed off to an agent earlier comes back: the whole task is done as
    /// if `wf` had run it (checks, tests, gate, commit) except the agent's part.
    /// `Ok(Ok(phase))`: the run goes on, in that task's phase when one came back.
    fn take_back_handed_off(&mut self) -> Result<std::result::Result<Option<String>, Stop>> {
        let handed: Vec<TaskRef> = self
            .session
            .state()?
            .tasks
            .iter()
            .filter(|t| t.status() == TaskStatus::InProgress && t.handed_off())
            .filter(|t| !self.opts.held_elsewhere.contains(t.id()))
            .cloned()
            .collect();
        let mut phase = None;
        for task in handed {
            let whole = task.task()?;
            self.reporter.started(whole);
            let mut outcome = {
                // The checks run on this thread, so Ctrl-C needs its own watcher.
                let _watch = signals::InterruptWatch::start(self.ctx.children.clone());
                let changes = crate::run::proven::changes_since(&self.ctx.project, whole);
                let returning = Returning {
                    seen: changes.as_ref(),
                    before_implementation: self.before_implementation(whole)?,
                };
                let mut outcome = crate::exec::reactor::block_on(work::do_task(
                    &self.ctx,
                    whole,
                    whole.attempts.max(1),
                    Part::Full,
                    Some(returning),
                ));
                crate::run::proven::judge_changes(&self.ctx, &mut outcome, changes);
                outcome
            };
            // What the agent reported it used on this attempt (its session read by
            // the hooks, or `done`'s word) is recorded with the outcome.
            let workflow_dir = self.session.store().dir().to_path_buf();
            let (id, attempt) = (whole.id.clone(), whole.attempts.max(1));
            if let Some(used) = crate::run::usage::pending(&workflow_dir, &id, attempt) {
                outcome.usage = Some(outcome.usage.unwrap_or_default().plus(used));
            }
            let task_phase = whole.phase.clone();
            let stop = self.apply_outcome(task, outcome)?;
            crate::run::usage::clear_pending(&workflow_dir, &id, attempt);
            if let Some(stop) = stop {
                return Ok(Err(stop));
            }
            phase = Some(task_phase);
        }
        Ok(Ok(phase))
    }

    /// Fills free slots with ready tasks and records outcomes as they come back,
    /// until nothing runs and a stop is due. The events of each turn — a task's
    /// outcome, the next one's start — are written together, before a task is handed
    /// to a worker and before the loop waits (`Session::hold_events`), and the glance
    /// after them before it waits.
    fn schedule(&mut self, returned_phase: Option<String>) -> Result<Stop> {
        self.session.hold_events()?;
        let stop = self.schedule_held(returned_phase);
        let written = self.session.release_events();
        let stop = stop?;
        written?;
        Ok(stop)
    }

    fn schedule_held(&mut self, returned_phase: Option<String>) -> Result<Stop> {
        let mut floor = Floor::new(self.opts.jobs)?;
        let mut run = RunState {
            pending_stop: None,
            // A task that came back from a hand-off counts as this run's first.
            dispatched: usize::from(returned_phase.is_some()),
            run_phase: returned_phase,
        };
        loop {
            if signals::count() > 0 && run.pending_stop != Some(Stop::Interrupted) {
                // The children are told to end: what is held goes first.
                self.session.write_held_events()?;
                // The grace is waited out on a thread of its own: this one reaps the
                // commands it runs (`dispatch::Floor`) meanwhile.
                let grace = policy::interrupt_grace(signals::count());
                let children = self.ctx.children.clone();
                std::thread::spawn(move || children.interrupt(grace, || signals::count() > 1));
                run.pending_stop = Some(Stop::Interrupted);
            }
            if run.pending_stop.is_none() {
                self.fill_slots(&mut floor, &mut run)?;
            }
            if floor.running().is_empty() {
                if let Some(stop) = run.pending_stop.take() {
                    return Ok(stop);
                }
                if let Some(stop) = policy::step_done(
                    self.opts.mode,
                    self.ci_runs_through(),
                    run.dispatched,
                    self.any_ready()?,
                ) {
                    return Ok(stop);
                }
                match self.next_ready(floor.running())? {
                    Some(_) => continue,
                    None => return self.nothing_ready(),
                }
            }
            // The turn's events, and the glance of what they made (`state::glance`):
            // what the read paths show while this loop waits.
            self.session.write_glance()?;
            match floor.next() {
                Some(Msg::Event(event)) => {
                    self.session.emit(event)?;
                }
                Some(Msg::Done(outcome)) => {
                    floor.finished(&outcome.task_id);
                    let Some(task) = self.task_arc(&outcome.task_id).cloned() else {
                        continue;
                    };
                    if let Some(stop) = self.apply_outcome(task, outcome)? {
                        if policy::replaces(&run.pending_stop, &stop) {
                            run.pending_stop = Some(stop);
                        }
                    }
                    self.maybe_snapshot()?;
                }
                None => {}
            }
        }
    }

    /// Starts ready tasks while a slot is free and no stop rule says otherwise.
    fn fill_slots(&mut self, floor: &mut Floor, run: &mut RunState) -> Result<()> {
        while floor.running().len() < self.opts.jobs {
            let Some(task) = self.next_ready(floor.running())? else {
                break;
            };
            let busy = !floor.running().is_empty();
            let running_tasks = floor
                .running()
                .iter()
                .filter_map(|id| self.task(id).transpose())
                .collect::<Result<Vec<&Task>>>()?;
            if policy::waits_for_commit(task.task()?, &running_tasks) {
                break;
            }
            if let Some(stop) =
                self.stop_before(task.task()?, run.dispatched, run.run_phase.as_deref(), busy)?
            {
                if !busy {
                    run.pending_stop = Some(stop);
                }
                break;
            }
            match self.assign(task.task()?) {
                Assignment::HandOff if self.opts.ci => {
                    match self.refuse_hand_off(task)? {
                        Some(stop) => {
                            run.pending_stop = Some(stop);
                            break;
                        }
                        // --keep-going: the refused task failed; fill on.
                        None => continue,
                    }
                }
                Assignment::HandOff => {
                    if busy {
                        break;
                    }
                    run.pending_stop = Some(self.hand_off(task)?);
                    break;
                }
                Assignment::Missing(capability) => {
                    self.missing_capability(task.task()?, &capability)?;
                    continue;
                }
                Assignment::Agent(caps) => {
                    let Some(executors) = self.allocate(task.task()?, &caps)? else {
                        let still_pending = self.task_arc(task.id()).map(Glance::status)
                            == Some(TaskStatus::Pending);
                        if !busy && still_pending {
                            // Nothing will free a slot: say so rather than spin.
                            self.missing_capability(task.task()?, &caps.join(", "))?;
                            continue;
                        }
                        break;
                    };
                    let phase = &task.task()?.phase;
                    run.run_phase.get_or_insert_with(|| phase.clone());
                    run.dispatched += 1;
                    self.dispatch_agent(task, executors, floor)?;
                }
                Assignment::Command => {
                    // Up to date: completed from the cache, not counted as a task run.
                    if self.complete_if_cached(task.task()?)? {
                        continue;
                    }
                    let phase = &task.task()?.phase;
                    run.run_phase.get_or_insert_with(|| phase.clone());
                    run.dispatched += 1;
                    self.run_command(task, floor)?;
                }
            }
            if policy::one_at_a_time(self.opts.mode, self.ci_runs_through()) {
                break;
            }
        }
        Ok(())
    }

    /// The task `id`, read whole; none when the state has no such task.
    pub(super) fn task(&self, id: &str) -> Result<Option<&Task>> {
        self.session.state()?.task(id)
    }

    /// The task as the state holds it: shared, so taking it copies nothing.
    pub(super) fn task_arc(&self, id: &str) -> Option<&TaskRef> {
        let state = self.session.state().ok()?;
        state.tasks.get(state.position(id)?)
    }

    /// A handle on task `id`, which the state has. Hold it only while the task's
    /// status does not change: the change copies a task someone else holds.
    pub(super) fn task_handle(&self, id: &str) -> Result<TaskRef> {
        self.task_arc(id)
            .cloned()
            .ok_or_else(|| crate::error::WfError::usage(format!("no task {id} in this workflow")))
    }

    /// The first ready task in plan order not already running.
    fn next_ready(&mut self, running: &HashSet<String>) -> Result<Option<TaskRef>> {
        let state = self.session.state()?;
        Ok(self.queue.next(&state.tasks, running).cloned())
    }

    /// How many tasks the ready queue has looked at in this run.
    pub fn examined(&self) -> u64 {
        self.queue.examined()
    }

    fn any_ready(&mut self) -> Result<bool> {
        Ok(self.next_ready(&HashSet::new())?.is_some())
    }

    /// Whether CI's "run to the end" replaces the mode's stops: not when the mode was
    /// asked for on the command line.
    fn ci_runs_through(&self) -> bool {
        self.summary.ci_to_the_end
    }

    /// The mode's stop rules (`policy::stop_before`), checked before starting `task`.
    fn stop_before(
        &self,
        task: &Task,
        dispatched: usize,
        run_phase: Option<&str>,
        busy: bool,
    ) -> Result<Option<Stop>> {
        let state = self.session.state()?;
        Ok(policy::stop_before(
            task,
            &StopCheck {
                mode: self.opts.mode,
                ci: self.ci_runs_through(),
                dispatched,
                run_phase,
                busy,
                pause_at: self
                    .opts
                    .mode
                    .pause_at(self.opts.pause_at, state.pause_before_commit),
                agent_tasks: self.agent_tasks,
                agent_limit: self.opts.agent_limit,
                usage: context::usage_percent(&state.context_metrics, self.opts.context_window),
                danger_threshold: state.context_metrics.danger_threshold,
                over_budget: crate::run::usage::over_budget(
                    &self.spent,
                    self.ctx.config.wf.budget_tokens,
                    self.ctx.config.wf.budget_usd,
                )
                .or_else(|| crate::run::usage::task_over_budget(task, &self.ctx.config.wf)),
            },
        ))
    }

    fn assign(&self, task: &Task) -> Assignment {
        policy::assign(
            task,
            self.pool.is_empty(),
            || self.pool.required(task),
            |c| self.pool.offers(c),
        )
    }

    /// Nothing ready and nothing running: done, blocked, or stuck behind a failure.
    /// The last outcomes are written first: the final verifiers run commands.
    fn nothing_ready(&mut self) -> Result<Stop> {
        self.session.write_held_events()?;
        match policy::nothing_ready(&self.session.state()?.tasks)? {
            Some(stop) => Ok(stop),
            None => self.verify_deliverables(),
        }
    }

    /// The end of a complete run: every file a task said it creates exists, and the
    /// final verifiers (the hard constraints' commands) pass.
    fn verify_deliverables(&self) -> Result<Stop> {
        let Ok(state) = self.session.state() else {
            return Ok(Stop::Completed);
        };
        let missing =
            policy::missing_deliverables(&state.tasks, |f| self.ctx.project.join(f).exists())?;
        if !missing.is_empty() {
            return Ok(Stop::Failed {
                task: None,
                reason: format!("missing deliverables: {}", missing.join(", ")),
            });
        }
        Ok(match crate::run::gate::final_verifiers(&self.ctx) {
            Ok(()) => Stop::Completed,
            Err(reason) => Stop::Failed { task: None, reason },
        })
    }

    fn maybe_snapshot(&mut self) -> Result<()> {
        if self.checkpoints.due()? {
            self.checkpoints.while_running(self.session)?;
            self.flush_cache();
        }
        Ok(())
    }

    /// Moves the workflow to where the run stopped and writes the snapshot.
    fn finish(&mut self, stop: Stop) -> Result<Stop> {
        let tasks = &self.session.state()?.tasks;
        let stop = policy::settle(policy::final_stop(stop, tasks.is_empty()), tasks)?;
        // A hand-off leaves the workflow `running` (`policy::stop_status`).
        let (status, reason) = policy::stop_status(&stop);
        match status {
            Some(status) if self.session.state()?.status == WorkflowStatus::Running => {
                self.session
                    .set_workflow_status(status, reason.as_deref())?;
            }
            Some(_) => {}
            None => self.session.state_mut()?.status_reason = reason,
        }
        self.checkpoints.at_stop(self.session)?;
        self.flush_cache();
        Ok(stop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Quiet;
    impl Reporter for Quiet {
        fn started(&mut self, _: &Task) {}
        fn finished(&mut self, _: &Task, _: &TaskOutcome) {}
        fn progress(&mut self, _: usize, _: usize) {}
        fn problem(&mut self, _: &str) {}
        fn up_to_date(&mut self, _: &Task) {}
    }

    #[test]
    fn a_workflow_with_no_tasks_is_never_completed() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::state::Store::new(dir.path().join("w"), crate::plan::STORE_ACCESS);
        crate::fs::ensure_dir(store.dir()).unwrap();
        std::fs::write(store.state_path(), r#"{"status": "planned"}"#).unwrap();
        let mut session = store.lock(None, "test").unwrap();
        let ctx = WorkCtx::new(
            dir.path().to_path_buf(),
            store.dir().to_path_buf(),
            crate::config::Config::default(),
            Vec::new(),
        );
        let pool = Pool::from_config(&ctx.config, None);
        let opts = Options {
            mode: Mode::All,
            ci: true,
            explicit_mode: false,
            keep_going: false,
            jobs: 1,
            context_window: 200_000,
            plan_chars: 0,
            design_chars: 0,
            max_retries: 1,
            cache: None,
            pause_at: policy::PauseAt::default(),
            agent_limit: None,
            require_checks: false,
            held_elsewhere: HashSet::new(),
        };
        let mut quiet = Quiet;
        let brief: BriefFn = |_, task, _| task.id.clone();
        let mut engine = Engine::new(&mut session, ctx, opts, pool, brief, &mut quiet).unwrap();
        // Refused before anything moves.
        let err = engine.run().unwrap_err();
        assert!(err.message.contains("no tasks"), "{}", err.message);
        assert_eq!(
            engine.session.state().unwrap().status,
            WorkflowStatus::Planned
        );
        // And the completion path turns "nothing left" into a failure, not completed.
        engine.session.state_mut().unwrap().status = WorkflowStatus::Running;
        let stop = engine.finish(Stop::Completed).unwrap();
        assert!(matches!(stop, Stop::Failed { .. }), "{stop:?}");
        assert_eq!(
            engine.session.state().unwrap().status,
            WorkflowStatus::Failed
        );
    }

    /// Runs a chain of `n` no-op command tasks with two slots; returns the tasks the
    /// ready queue looked at.
    fn examined_in_a_chain(n: usize, jobs: usize) -> u64 {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::state::Store::new(dir.path().join("w"), crate::plan::STORE_ACCESS);
        crate::fs::ensure_dir(store.dir()).unwrap();
        let tasks: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                let deps: Vec<String> = (i > 0).then(|| format!("T{}", i - 1)).into_iter().collect();
                serde_json::json!({"id": format!("T{i}"), "name": "t", "status": "pending", "deps": deps, "verify": [":"]})
            })
            .collect();
        std::fs::write(
            store.state_path(),
            serde_json::json!({"status": "planned", "tasks": tasks}).to_string(),
        )
        .unwrap();
        let mut session = store.lock(None, "test").unwrap();
        let ctx = WorkCtx::new(
            dir.path().to_path_buf(),
            store.dir().to_path_buf(),
            crate::config::Config::default(),
            Vec::new(),
        );
        let pool = Pool::from_config(&ctx.config, None);
        // Borrowed, not cloned: a copy of the state would hold every task while the
        // run changes it (`the_engine_does_not_make_the_state_copy_the_tasks_it_runs`).
        let opts = Options {
            ci: true,
            jobs,
            ..Options::for_workflow(
                &ctx.config,
                &ctx.project,
                &ctx.workflow_dir,
                session.state().unwrap(),
                Mode::All,
            )
        };
        let mut quiet = Quiet;
        let brief: BriefFn = |_, task, _| task.id.clone();
        let mut engine = Engine::new(&mut session, ctx, opts, pool, brief, &mut quiet).unwrap();
        assert_eq!(engine.run().unwrap(), Stop::Completed);
        engine.examined()
    }

    /// Starting a task and taking its outcome change its status in the state; with
    /// the engine still holding the task then, the state copied the whole task,
    /// twice a task run. A checkpoint written beside the run may still hold some.
    #[test]
    fn the_engine_does_not_make_the_state_copy_the_tasks_it_runs() {
        for jobs in [1, 2] {
            let before = crate::state::task_ref::COPIES.with(std::cell::Cell::get);
            examined_in_a_chain(20, jobs);
            let copies = crate::state::task_ref::COPIES.with(std::cell::Cell::get) - before;
            assert!(copies < 10, "jobs {jobs}: {copies} copies for 20 tasks run");
        }
    }

    #[test]
    fn the_engine_examines_a_bounded_number_of_tasks_per_dispatch() {
        // The real loop, not a model of it: three times the tasks, about three times
        // the work, with one slot or two (a scan per dispatch would be nine times).
        for jobs in [1, 2] {
            let small = examined_in_a_chain(40, jobs);
            let large = examined_in_a_chain(120, jobs);
            assert!(
                large <= small * 4,
                "jobs {jobs}: {small} examined for 40 tasks, {large} for 120"
            );
        }
    }
}
