//! The scheduler of `workflow-execute`: picks ready tasks, dispatches them to
//! workers, records every transition, and stops where the mode says.
//!
//! The main thread owns the locked session: it alone changes state and writes the
//! event log; workers only run commands and send back an outcome. Progress is durable
//! per task through the event log; the snapshot is rewritten at most every
//! [`SNAPSHOT_EVERY`] and at every stop, so a 10,000-task run costs O(1) per task.

use std::collections::HashMap;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use serde_json::json;

use std::collections::HashSet;

use crate::error::Result;
use crate::run::agent::{self, Dispatch};
use crate::run::context;
use crate::run::executor::{Executor, Pool};
use crate::run::policy::{self, Assignment, Next, OutcomeFacts, StopCheck};
pub use crate::run::policy::{agent_actions, needs_agent, Mode, Stop};
use crate::run::signals;
use crate::run::work::{self, Part, TaskOutcome, Verdict, WorkCtx};
use crate::run::workers::Workers;
use crate::state::event_log::NewEvent;
use crate::state::model::Task;
use crate::state::{Session, TaskStatus, WorkflowStatus};

pub const SNAPSHOT_EVERY: Duration = Duration::from_secs(2);

#[derive(Debug, Clone)]
pub struct Options {
    pub mode: Mode,
    /// Run to the end: no pauses, no agent limits, no hand-offs.
    pub ci: bool,
    pub jobs: usize,
    pub context_window: u64,
    pub plan_chars: usize,
    pub design_chars: usize,
    /// Bounded retries of a failed agent task, each on the strongest executor.
    pub max_retries: u32,
}

/// What the command shows while the run goes on.
pub trait Reporter {
    fn started(&mut self, task: &Task);
    fn finished(&mut self, task: &Task, outcome: &TaskOutcome);
    /// Counts after each finished task: (done, total).
    fn progress(&mut self, done: usize, total: usize);
    /// Something went wrong that is not a task failure: a missing capability.
    fn problem(&mut self, text: &str);
}

/// Renders the brief an executor gets on stdin.
pub type BriefFn = fn(&crate::state::WorkflowState, &Task) -> String;

#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub ran: usize,
    pub passed: usize,
    pub failed: usize,
}

pub struct Engine<'a> {
    session: &'a mut Session,
    /// Shared with the workers: one per task would copy the config each time.
    ctx: Arc<WorkCtx>,
    opts: Options,
    reporter: &'a mut dyn Reporter,
    index: HashMap<String, usize>,
    last_snapshot: Instant,
    summary: RunSummary,
    /// Agent tasks done in this run (the consecutive-task limit counts these).
    agent_tasks: u32,
    pool: Pool,
    brief: BriefFn,
    /// Tasks whose next attempt goes to the strongest executor (seed 000 §8.3).
    escalate: HashSet<String>,
    /// Executors each running task holds, to release when it ends.
    held: HashMap<String, Vec<(String, &'static str)>>,
    /// Every task before this index is done.
    first_open: std::cell::Cell<usize>,
    /// How many tasks are completed or skipped, kept as they finish.
    done: usize,
}

enum Msg {
    Event(NewEvent),
    Done(TaskOutcome),
}

/// How a task leaves pending.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Start {
    Command,
    /// To executors; the first one's name is recorded on the task.
    Dispatched(Option<String>),
    HandOff,
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
        let index = session
            .state()?
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (t.id.clone(), i))
            .collect();
        Ok(Engine {
            session,
            ctx: Arc::new(ctx),
            opts,
            reporter,
            index,
            last_snapshot: Instant::now(),
            summary: RunSummary::default(),
            agent_tasks: 0,
            pool,
            brief,
            escalate: HashSet::new(),
            held: HashMap::new(),
            first_open: std::cell::Cell::new(0),
            done: 0,
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
        self.begin()?;
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
            .filter(|t| t.status.is_done())
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
        let handed: Vec<Task> = self
            .session
            .state()?
            .tasks
            .iter()
            .filter(|t| t.status == TaskStatus::InProgress && t.handed_off == Some(true))
            .cloned()
            .collect();
        let mut phase = None;
        for task in handed {
            self.reporter.started(&task);
            let outcome = {
                // The checks run on this thread, so Ctrl-C needs its own watcher.
                let _watch = signals::InterruptWatch::start(self.ctx.children.clone());
                work::do_task(&self.ctx, &task, task.attempts.max(1), Part::Full)
            };
            if let Some(stop) = self.apply_outcome(&task, outcome)? {
                return Ok(Err(stop));
            }
            phase = Some(task.phase.clone());
        }
        Ok(Ok(phase))
    }

    fn schedule(&mut self, returned_phase: Option<String>) -> Result<Stop> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let mut running: HashSet<String> = HashSet::new();
        let mut workers = Workers::new(self.opts.jobs);
        let mut pending_stop: Option<Stop> = None;
        // A task that came back from a hand-off counts as this run's first.
        let mut dispatched = usize::from(returned_phase.is_some());
        let mut run_phase: Option<String> = returned_phase;
        loop {
            if signals::count() > 0 && pending_stop != Some(Stop::Interrupted) {
                let grace = policy::interrupt_grace(signals::count());
                self.ctx.children.interrupt(grace, || signals::count() > 1);
                pending_stop = Some(Stop::Interrupted);
            }
            if pending_stop.is_none() {
                while running.len() < self.opts.jobs {
                    let Some(task) = self.next_ready(&running)? else {
                        break;
                    };
                    let running_tasks: Vec<&Task> =
                        running.iter().filter_map(|id| self.task(id)).collect();
                    if policy::waits_for_commit(&task, &running_tasks) {
                        break;
                    }
                    if let Some(stop) =
                        self.stop_before(&task, dispatched, &run_phase, !running.is_empty())?
                    {
                        if running.is_empty() {
                            pending_stop = Some(stop);
                        }
                        break;
                    }
                    match self.assign(&task) {
                        Assignment::HandOff if self.opts.ci => {
                            self.start_task(&task, Start::Command)?;
                            let outcome = TaskOutcome {
                                task_id: task.id.clone(),
                                verdict: Verdict::Failed {
                                    reason: policy::ci_handoff_reason(&task),
                                },
                                gate: None,
                                log: String::new(),
                                duration: Duration::ZERO,
                            };
                            if let Some(stop) = self.apply_outcome(&task, outcome)? {
                                pending_stop = Some(stop);
                            }
                            break;
                        }
                        Assignment::HandOff => {
                            if !running.is_empty() {
                                break;
                            }
                            self.start_task(&task, Start::HandOff)?;
                            self.agent_tasks += 1;
                            pending_stop = Some(Stop::HandedOff(task.id.clone()));
                            break;
                        }
                        Assignment::Missing(capability) => {
                            self.missing_capability(&task, &capability)?;
                            continue;
                        }
                        Assignment::Agent(caps) => {
                            let Some(executors) = self.allocate(&task, &caps)? else {
                                let still_pending = self.task(&task.id).map(|t| t.status)
                                    == Some(TaskStatus::Pending);
                                if running.is_empty() && still_pending {
                                    // Nothing will free a slot: say so rather than spin.
                                    self.missing_capability(&task, &caps.join(", "))?;
                                    continue;
                                }
                                break;
                            };
                            run_phase.get_or_insert_with(|| task.phase.clone());
                            self.announce_dispatch(&task, task.attempts + 1, &executors)?;
                            let attempt = self.start_task(
                                &task,
                                Start::Dispatched(executors.first().map(|e| e.config.name.clone())),
                            )?;
                            self.reporter.started(&task);
                            dispatched += 1;
                            self.agent_tasks += 1;
                            let dispatch = Dispatch {
                                brief: (self.brief)(self.session.state()?, &task).into_bytes(),
                                executors,
                                mock: self.pool.mock().cloned(),
                            };
                            let ctx = self.ctx.clone();
                            let tx = tx.clone();
                            running.insert(task.id.clone());
                            workers.run(move || {
                                let events = tx.clone();
                                let mut emit = |e: NewEvent| {
                                    let _ = events.send(Msg::Event(e));
                                };
                                let outcome = guarded(&task, || {
                                    agent::do_agent_task(&ctx, &task, attempt, dispatch, &mut emit)
                                });
                                let _ = tx.send(Msg::Done(outcome));
                            });
                        }
                        Assignment::Command => {
                            run_phase.get_or_insert_with(|| task.phase.clone());
                            let attempt = self.start_task(&task, Start::Command)?;
                            self.reporter.started(&task);
                            dispatched += 1;
                            let ctx = self.ctx.clone();
                            let tx = tx.clone();
                            running.insert(task.id.clone());
                            workers.run(move || {
                                let outcome = guarded(&task, || {
                                    work::do_task(&ctx, &task, attempt, Part::Full)
                                });
                                let _ = tx.send(Msg::Done(outcome));
                            });
                        }
                    }
                    if policy::one_at_a_time(self.opts.mode, self.opts.ci) {
                        break;
                    }
                }
            }
            if running.is_empty() {
                if let Some(stop) = pending_stop.take() {
                    return Ok(stop);
                }
                if let Some(stop) =
                    policy::step_done(self.opts.mode, self.opts.ci, dispatched, self.any_ready()?)
                {
                    return Ok(stop);
                }
                match self.next_ready(&running)? {
                    Some(_) => continue,
                    None => return self.nothing_ready(),
                }
            }
            match rx.recv_timeout(Duration::from_millis(50)) {
                Ok(Msg::Event(event)) => {
                    self.session.emit(event)?;
                }
                Ok(Msg::Done(outcome)) => {
                    running.remove(&outcome.task_id);
                    let Some(task) = self.task(&outcome.task_id).cloned() else {
                        continue;
                    };
                    if let Some(stop) = self.apply_outcome(&task, outcome)? {
                        if policy::replaces(&pending_stop, &stop) {
                            pending_stop = Some(stop);
                        }
                    }
                    self.maybe_snapshot()?;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => {}
            }
        }
    }

    fn task(&self, id: &str) -> Option<&Task> {
        let i = *self.index.get(id)?;
        self.session.state().ok()?.tasks.get(i)
    }

    /// The first ready task (`policy::next_ready`) not already running.
    fn next_ready(&self, running: &HashSet<String>) -> Result<Option<Task>> {
        let state = self.session.state()?;
        let (next, first_open) =
            policy::next_ready(&state.tasks, &self.index, self.first_open.get(), running);
        self.first_open.set(first_open);
        Ok(next.cloned())
    }

    fn any_ready(&self) -> Result<bool> {
        Ok(self.next_ready(&HashSet::new())?.is_some())
    }

    /// The mode's stop rules (`policy::stop_before`), checked before starting `task`.
    fn stop_before(
        &self,
        task: &Task,
        dispatched: usize,
        run_phase: &Option<String>,
        busy: bool,
    ) -> Result<Option<Stop>> {
        let state = self.session.state()?;
        Ok(policy::stop_before(
            task,
            &StopCheck {
                mode: self.opts.mode,
                ci: self.opts.ci,
                dispatched,
                run_phase: run_phase.as_deref(),
                busy,
                pause_before_commit: state.pause_before_commit,
                agent_tasks: self.agent_tasks,
                usage: context::usage_percent(&state.context_metrics, self.opts.context_window),
                danger_threshold: state.context_metrics.danger_threshold,
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

    /// seed 002 §2: a capability nobody offers is reported, never skipped silently.
    fn missing_capability(&mut self, task: &Task, capability: &str) -> Result<()> {
        let reason = format!(
            "no executor offers capability `{capability}` (needed by task {}); add one to wf.executors in the project config",
            task.id
        );
        self.block_for_resource(task, "resource.missing", capability, reason, false)
    }

    /// Reports why no executor can take `task` (an event of `kind`) and blocks it on
    /// `resource_missing`, which `wf workflow-unblock` lifts once the pool is fixed.
    fn block_for_resource(
        &mut self,
        task: &Task,
        kind: &'static str,
        capability: &str,
        reason: String,
        dispatch_failure: bool,
    ) -> Result<()> {
        self.session.emit(
            NewEvent::new(kind, json!({"capability": capability, "reason": reason})).task(&task.id),
        )?;
        self.session.set_task_status(
            &task.id,
            TaskStatus::Blocked,
            json!({"reason": reason, "blocked_by": ["resource_missing"], "dispatch_failure": dispatch_failure}),
            None,
        )?;
        self.reporter.problem(&reason);
        Ok(())
    }

    /// Takes an executor for each capability; `None` when one is busy (try later).
    /// Executors that can never start make the task blocked.
    fn allocate(&mut self, task: &Task, caps: &[String]) -> Result<Option<Vec<Executor>>> {
        let escalate = self.escalate.contains(&task.id);
        let mut taken: Vec<Executor> = Vec::new();
        for cap in caps {
            match self.pool.allocate(cap, escalate) {
                Some(ex) => taken.push(ex),
                None => {
                    for ex in &taken {
                        self.pool.release(&ex.config.name);
                    }
                    if self.pool.all_broken(cap) {
                        let reason = format!(
                            "every executor offering `{cap}` is unusable (its program is not on PATH); task {} cannot be dispatched",
                            task.id
                        );
                        self.block_for_resource(task, "task.dispatch_nack", cap, reason, true)?;
                    }
                    return Ok(None);
                }
            }
        }
        // Executors before reviewers: review what was done.
        taken.sort_by_key(|e| e.config.role == "reviewer");
        Ok(Some(taken))
    }

    fn announce_dispatch(
        &mut self,
        task: &Task,
        attempt: u32,
        executors: &[Executor],
    ) -> Result<()> {
        let mut names = Vec::new();
        for (n, ex) in executors.iter().enumerate() {
            let role = ex.role();
            let dispatch_id = format!("{}-{attempt}-{}", task.id, n + 1);
            self.session.emit(
                NewEvent::new("resource.allocated", json!({"level": ex.config.level, "escalated": self.escalate.contains(&task.id)}))
                    .task(&task.id)
                    .executor(&ex.config.name, role),
            )?;
            self.session.emit(
                NewEvent::new(
                    "task.dispatch_requested",
                    json!({"dispatchId": dispatch_id, "attempt": attempt}),
                )
                .task(&task.id)
                .executor(&ex.config.name, role),
            )?;
            names.push((ex.config.name.clone(), role));
        }
        self.held.insert(task.id.clone(), names);
        Ok(())
    }

    fn release(&mut self, task_id: &str, reason: &str) -> Result<()> {
        for (name, role) in self.held.remove(task_id).unwrap_or_default() {
            self.pool.release(&name);
            self.session.emit(
                NewEvent::new("resource.released", json!({"reason": reason}))
                    .task(task_id)
                    .executor(&name, role),
            )?;
        }
        Ok(())
    }

    /// `pending → in_progress`; returns the attempt number.
    fn start_task(&mut self, task: &Task, how: Start) -> Result<u32> {
        let attempt = task.attempts + 1;
        let logs = self.ctx.workflow_dir.join("logs");
        let log = crate::run::process::log_path(&logs, &task.id, attempt);
        let log = log
            .strip_prefix(&self.ctx.workflow_dir)
            .unwrap_or(&log)
            .display()
            .to_string();
        let mut data = json!({"attempt": attempt, "log": log});
        if how == Start::HandOff {
            data["handoff"] = true.into();
        }
        let executor = match &how {
            Start::Dispatched(Some(name)) => Some((name.as_str(), "executor")),
            _ => None,
        };
        self.session
            .set_task_status(&task.id, TaskStatus::InProgress, data, executor)?;
        // An executor's start is its own event (after its ack); wf's own work starts now.
        if how == Start::Command {
            self.session.emit(
                NewEvent::new(
                    "task.execution_started",
                    json!({"attempt": attempt, "log": log}),
                )
                .task(&task.id),
            )?;
        }
        Ok(attempt)
    }

    /// Records an outcome; returns a stop when it ends the run.
    fn apply_outcome(&mut self, task: &Task, outcome: TaskOutcome) -> Result<Option<Stop>> {
        self.summary.ran += 1;
        // A dispatched task's executor reported its own result; wf reports its own work.
        let dispatched = self.held.contains_key(&task.id);
        if !dispatched {
            self.session.emit(
            NewEvent::new(
                "task.execution_result",
                json!({
                    "success": matches!(outcome.verdict, Verdict::Passed { .. }),
                    "verified": matches!(outcome.verdict, Verdict::Passed { verified: true }),
                    "duration_ms": outcome.duration.as_millis() as u64,
                    "reason": match &outcome.verdict { Verdict::Failed { reason } => Some(reason.as_str()), _ => None },
                }),
            )
            .task(&task.id),
            )?;
        }
        if let Some(gate) = &outcome.gate {
            self.session.record(
                NewEvent::new(crate::state::fold::GATE_RESULT, gate.clone()).task(&task.id),
            )?;
        }
        self.release(&task.id, policy::release_reason(&outcome.verdict))?;
        let facts = OutcomeFacts {
            dispatched,
            handed_off: task.handed_off == Some(true),
            needs_agent: needs_agent(task),
            pool_empty: self.pool.is_empty(),
            mock: self.pool.mock().is_some(),
            dispatch_failures: self.task(&task.id).map_or(0, |t| t.dispatch_failures),
            retries: (self.session.state()?.retry_counts)
                .get(&task.id)
                .copied()
                .unwrap_or(0),
            max_retries: self.opts.max_retries,
        };
        let reason = match &outcome.verdict {
            Verdict::Failed { reason } | Verdict::DispatchFailed { reason, .. } => reason.as_str(),
            _ => "",
        };
        let stop = match policy::after_outcome(&outcome.verdict, &facts) {
            Next::Block => {
                self.session.set_task_status(
                    &task.id,
                    TaskStatus::Blocked,
                    json!({"reason": reason, "blocked_by": ["resource_missing"], "dispatch_failure": true}),
                    None,
                )?;
                self.reporter
                    .problem(&format!("task {} is blocked: {reason}", task.id));
                None
            }
            Next::Redispatch => {
                self.session.set_task_status(
                    &task.id,
                    TaskStatus::Pending,
                    json!({"reason": reason, "dispatch_failure": true}),
                    None,
                )?;
                None
            }
            Next::Escalate => {
                self.summary.failed += 1;
                self.escalate.insert(task.id.clone());
                self.session.set_task_status(
                    &task.id,
                    TaskStatus::Pending,
                    json!({"reason": reason, "retry": true, "escalate": true}),
                    None,
                )?;
                None
            }
            Next::Complete {
                unchecked,
                agent_work,
            } => {
                self.done += 1;
                self.summary.passed += 1;
                let verified = matches!(outcome.verdict, Verdict::Passed { verified: true });
                let mut data = json!({"verified": verified});
                if unchecked.is_some() {
                    data["accepted_unchecked"] = true.into();
                }
                self.session
                    .set_task_status(&task.id, TaskStatus::Completed, data, None)?;
                if let Some(reason) = unchecked {
                    self.session.emit(
                        NewEvent::new("task.accepted_unchecked", json!({ "reason": reason }))
                            .task(&task.id),
                    )?;
                }
                if agent_work {
                    let now = crate::clock::now_rfc3339();
                    let state = self.session.state_mut()?;
                    state.consecutive_count += 1;
                    context::record(&mut state.context_metrics, &task.id, &now);
                }
                None
            }
            Next::Fail => {
                self.summary.failed += 1;
                self.session.set_task_status(
                    &task.id,
                    TaskStatus::Failed,
                    json!({"reason": reason}),
                    None,
                )?;
                Some(Stop::Failed {
                    task: Some(task.id.clone()),
                    reason: format!("task {} failed: {reason}", task.id),
                })
            }
            Next::Requeue => {
                self.session.set_task_status(
                    &task.id,
                    TaskStatus::Pending,
                    json!({"reason": "interrupted; it will run again"}),
                    None,
                )?;
                Some(Stop::Interrupted)
            }
        };
        if let Some(current) = self.task(&task.id).cloned() {
            self.reporter.finished(&current, &outcome);
        }
        let (done, total) = self.counts()?;
        self.reporter.progress(done, total);
        Ok(stop)
    }

    fn counts(&self) -> Result<(usize, usize)> {
        Ok((self.done, self.session.state()?.tasks.len()))
    }

    /// Nothing ready and nothing running: done, blocked, or stuck behind a failure.
    fn nothing_ready(&mut self) -> Result<Stop> {
        match policy::nothing_ready(&self.session.state()?.tasks) {
            Some(stop) => Ok(stop),
            None => Ok(self.verify_deliverables()),
        }
    }

    /// seed 000 verifyDeliverables: every file a task said it creates exists, and the
    /// final verifiers (the hard constraints' commands) pass.
    fn verify_deliverables(&self) -> Stop {
        let Ok(state) = self.session.state() else {
            return Stop::Completed;
        };
        let missing =
            policy::missing_deliverables(&state.tasks, |f| self.ctx.project.join(f).exists());
        if !missing.is_empty() {
            return Stop::Failed {
                task: None,
                reason: format!("missing deliverables: {}", missing.join(", ")),
            };
        }
        match work::final_verifiers(&self.ctx) {
            Ok(()) => Stop::Completed,
            Err(reason) => Stop::Failed { task: None, reason },
        }
    }

    fn maybe_snapshot(&mut self) -> Result<()> {
        if self.last_snapshot.elapsed() >= SNAPSHOT_EVERY {
            crate::run::checkpoint::save(self.session)?;
            self.last_snapshot = Instant::now();
        }
        Ok(())
    }

    /// Moves the workflow to where the run stopped and writes the snapshot.
    fn finish(&mut self, stop: Stop) -> Result<Stop> {
        let stop = policy::final_stop(stop, self.session.state()?.tasks.is_empty());
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
        crate::run::checkpoint::save(self.session)?;
        Ok(stop)
    }
}

/// Runs a worker's body so that a panic becomes the task's failure: the scheduler
/// waits for every worker's outcome, and a silent one would hang the run.
fn guarded(task: &Task, body: impl FnOnce() -> TaskOutcome) -> TaskOutcome {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)).unwrap_or_else(|_| TaskOutcome {
        task_id: task.id.clone(),
        verdict: Verdict::Failed {
            reason: "internal error: the worker running this task panicked".into(),
        },
        gate: None,
        log: String::new(),
        duration: Duration::ZERO,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::process::Children;

    struct Quiet;
    impl Reporter for Quiet {
        fn started(&mut self, _: &Task) {}
        fn finished(&mut self, _: &Task, _: &TaskOutcome) {}
        fn progress(&mut self, _: usize, _: usize) {}
        fn problem(&mut self, _: &str) {}
    }

    #[test]
    fn a_workflow_with_no_tasks_is_never_completed() {
        let dir = tempfile::tempdir().unwrap();
        let store = crate::state::Store::new(dir.path().join("w"));
        crate::state::store::ensure_dir(store.dir()).unwrap();
        std::fs::write(store.state_path(), r#"{"status": "planned"}"#).unwrap();
        let mut session = store.lock(None, "test").unwrap();
        let ctx = WorkCtx {
            project: dir.path().to_path_buf(),
            workflow_dir: store.dir().to_path_buf(),
            config: crate::config::Config::default(),
            children: Children::default(),
            hard_constraints: Vec::new(),
        };
        let pool = Pool::from_config(&ctx.config, None);
        let opts = Options {
            mode: Mode::All,
            ci: true,
            jobs: 1,
            context_window: 200_000,
            plan_chars: 0,
            design_chars: 0,
            max_retries: 1,
        };
        let mut quiet = Quiet;
        let brief: BriefFn = crate::report::brief::brief;
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
}
