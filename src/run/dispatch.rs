//! Handing work to workers and executors, and taking their slots back.
//!
//! The engine decides (`policy`) and records; this is the part that touches the
//! executor pool and the worker threads: taking executors for a task and announcing
//! them, moving the task to `in_progress`, running it where a panic still yields an
//! outcome, and releasing what it held when it ends. Keeping it here leaves the
//! scheduling loop in `engine.rs` short enough to read as the policy's order of
//! events.
//!
//! A command task runs on the scheduler's own thread: its commands are futures
//! (`exec::reactor`), started and reaped between the scheduler's turns, so a task
//! costs no hand-over to another thread and back. An agent task, whose executor
//! streams events while it works, runs on a worker thread.

use crate::state::model::Glance;
use crate::state::task_ref::TaskRef;
use std::collections::{HashSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::sync::{mpsc, Arc};
use std::task::Poll;
use std::time::Duration;

use crate::config::Role;
use crate::error::Result;
use crate::exec::reactor::{self, Bell};
use crate::run::agent::{self, Dispatch};
use crate::run::engine::Engine;
use crate::run::executor::Executor;
use crate::run::policy::{self, Stop};
use crate::run::work::{self, Part, Ran, TaskOutcome, Verdict};
use crate::run::workers::Workers;
use crate::state::event::{
    Allocated, DispatchRequested, EventData, ExecutionStarted, Missing, Reason, TaskMove,
};
use crate::state::event_log::NewEvent;
use crate::state::model::Task;
use crate::state::TaskStatus;

/// What a worker sends back.
// Each message is moved through the channel once and kept nowhere: its size is a
// copy, not memory held.
#[allow(clippy::large_enum_variant)]
pub(super) enum Msg {
    Event(NewEvent),
    Done(TaskOutcome),
}

/// How a task leaves pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Start {
    Command,
    /// To executors; the first one's name is recorded on the task, and the move
    /// names it in the role it was taken for.
    Dispatched(Option<(String, Role)>),
    HandOff,
}

/// A task's work run on the scheduler's thread, by task id.
type Here = (String, Pin<Box<dyn Future<Output = TaskOutcome>>>);

/// How long the scheduler waits for news before it looks at the signals again.
const TURN: Duration = Duration::from_millis(50);

/// The running tasks: those out on workers, with the channel their events and
/// outcomes come back on, and those run on this thread.
pub(super) struct Floor {
    // Dropped in this order, as the scheduler's locals were.
    workers: Workers<Msg>,
    here: Vec<Here>,
    /// Outcomes of tasks run here, not yet taken by the scheduler.
    finished: VecDeque<TaskOutcome>,
    running: HashSet<String>,
    rx: mpsc::Receiver<Msg>,
    tx: mpsc::Sender<Msg>,
    /// Rung by a worker after each message it sends: ends a wait on this thread's
    /// commands.
    bell: Arc<Bell>,
}

impl Floor {
    pub(super) fn new(jobs: usize) -> std::io::Result<Floor> {
        let (tx, rx) = mpsc::channel::<Msg>();
        let bell = Arc::new(Bell::new()?);
        let ringer = bell.clone();
        Ok(Floor {
            workers: Workers::new(jobs, tx.clone(), move || ringer.ring()),
            here: Vec::new(),
            finished: VecDeque::new(),
            running: HashSet::new(),
            rx,
            tx,
            bell,
        })
    }

    pub(super) fn running(&self) -> &HashSet<String> {
        &self.running
    }

    /// The next outcome or worker message, if one comes within [`TURN`] (or before a
    /// signal cuts the wait short). The commands of tasks run here make progress
    /// meanwhile.
    pub(super) fn next(&mut self) -> Option<Msg> {
        if let Some(outcome) = self.finished.pop_front() {
            return Some(Msg::Done(outcome));
        }
        if let Ok(msg) = self.rx.try_recv() {
            return Some(msg);
        }
        if self.here.is_empty() {
            return self.rx.recv_timeout(TURN).ok();
        }
        // Every task run here was polled since it came (`run_here`): each one waits.
        let [rang] = reactor::wait([self.bell.fd()], TURN);
        if !rang.is_empty() {
            self.bell.quiet();
        }
        self.poll_here();
        match self.finished.pop_front() {
            Some(outcome) => Some(Msg::Done(outcome)),
            None => self.rx.try_recv().ok(),
        }
    }

    /// Lets every task run here go as far as it can without waiting.
    fn poll_here(&mut self) {
        let mut i = 0;
        while i < self.here.len() {
            if self.poll_one(i) {
                i += 1;
            }
        }
    }

    /// Polls the task run here at `i`; a panic is the task's failure, as on a
    /// worker. Whether it is still running (and still at `i`).
    fn poll_one(&mut self, i: usize) -> bool {
        let polled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            reactor::poll_once(self.here[i].1.as_mut())
        }));
        let outcome = match polled {
            Ok(Poll::Pending) => return true,
            Ok(Poll::Ready(outcome)) => outcome,
            Err(_) => failed(&self.here[i].0, PANICKED.into()),
        };
        drop(self.here.swap_remove(i));
        self.finished.push_back(outcome);
        false
    }

    /// Runs `work` on this thread, between the scheduler's turns: its first command
    /// starts now.
    fn run_here(&mut self, task_id: String, work: impl Future<Output = TaskOutcome> + 'static) {
        self.running.insert(task_id.clone());
        self.here.push((task_id, Box::pin(work)));
        self.poll_one(self.here.len() - 1);
    }

    /// A task's outcome came in: it no longer runs.
    pub(super) fn finished(&mut self, task_id: &str) {
        self.running.remove(task_id);
    }

    /// Runs `body` on a worker ([`Engine::dispatch_agent`] writes the held events first).
    fn spawn(
        &mut self,
        task: TaskRef,
        body: impl FnOnce(&Task, &mut dyn FnMut(NewEvent)) -> TaskOutcome + Send + 'static,
    ) {
        let tx = self.tx.clone();
        let bell = self.bell.clone();
        self.running.insert(task.id().to_owned());
        self.workers.run(move || {
            let mut emit = |e: NewEvent| {
                let _ = tx.send(Msg::Event(e));
                bell.ring();
            };
            // The worker sends it, once the task is freed (`workers::work`).
            Msg::Done(match task.task() {
                Ok(whole) => guarded(whole, || body(whole, &mut emit)),
                Err(err) => failed(task.id(), err.message),
            })
        });
    }
}

impl Engine<'_> {
    /// Starts `task` on its executors, on a worker once the events held so far are
    /// written: its start is in the log before its work begins.
    pub(super) fn dispatch_agent(
        &mut self,
        task: TaskRef,
        executors: Vec<Executor>,
        floor: &mut Floor,
    ) -> Result<()> {
        self.announce_dispatch(task.task()?, task.task()?.attempts + 1, &executors)?;
        let (attempt, task) = self.start_task(
            task,
            Start::Dispatched(
                executors
                    .first()
                    .map(|e| (e.config.name.clone(), e.config.role)),
            ),
        )?;
        self.reporter.started(task.task()?);
        self.agent_tasks += 1;
        let dispatch = Dispatch {
            brief: (self.brief)(
                self.session.state()?,
                task.task()?,
                &crate::run::derived::config_checks(&self.ctx.config),
            )
            .into_bytes(),
            executors,
            mock: self.pool.mock().cloned(),
            before_implementation: self.before_implementation(task.task()?)?,
            part: crate::run::work::Part::Full,
        };
        let ctx = self.ctx.clone();
        self.session.write_glance()?;
        floor.spawn(task, move |task, emit| {
            agent::do_agent_task(&ctx, task, attempt, dispatch, emit)
        });
        Ok(())
    }

    /// Runs `task`'s own commands (`wf` does it itself), on this thread; its start is
    /// in the log before its first command runs.
    pub(super) fn run_command(&mut self, task: TaskRef, floor: &mut Floor) -> Result<()> {
        let (attempt, task) = self.start_task(task, Start::Command)?;
        self.reporter.started(task.task()?);
        // The glance too, or a run killed while the command starts leaves it behind.
        self.session.write_glance()?;
        let ctx = self.ctx.clone();
        floor.run_here(task.id().to_owned(), async move {
            match task.task() {
                Ok(whole) => work::do_task(&ctx, whole, attempt, Part::Full, None).await,
                Err(err) => failed(task.id(), err.message),
            }
        });
        Ok(())
    }

    /// Hands `task` to an agent outside `wf`: the run stops until it comes back.
    pub(super) fn hand_off(&mut self, task: TaskRef) -> Result<Stop> {
        let (_, task) = self.start_task(task, Start::HandOff)?;
        self.agent_tasks += 1;
        Ok(Stop::HandedOff(task.id().to_owned()))
    }

    /// `--ci` does not hand off: the task fails instead.
    pub(super) fn refuse_hand_off(&mut self, task: TaskRef) -> Result<Option<Stop>> {
        let (_, task) = self.start_task(task, Start::Command)?;
        let outcome = failed(task.id(), policy::ci_handoff_reason(task.task()?));
        self.apply_outcome(task, outcome)
    }

    /// A capability nobody offers is reported, never skipped silently.
    pub(super) fn missing_capability(&mut self, task: &Task, capability: &str) -> Result<()> {
        let reason = format!(
            "no executor offers capability `{capability}` (needed by task {}); add one to wf.executors in the project config",
            task.id
        );
        self.block_for_resource(task, capability, reason, false)
    }

    /// Reports why no executor can take `task` (`resource.missing`) and blocks it on
    /// `resource_missing`, which `wf workflow-unblock` lifts once the pool is fixed.
    pub(super) fn block_for_resource(
        &mut self,
        task: &Task,
        capability: &str,
        reason: String,
        dispatch_failure: bool,
    ) -> Result<()> {
        self.session.emit(
            NewEvent::new(EventData::ResourceMissing(Missing {
                capability: capability.to_string(),
                reason: reason.clone(),
            }))
            .task(&task.id),
        )?;
        self.session.set_task_status(
            &task.id,
            TaskStatus::Blocked,
            TaskMove {
                reason: Some(reason.clone()),
                blocked_by: Some(vec!["resource_missing".into()]),
                dispatch_failure,
                ..TaskMove::default()
            },
            None,
        )?;
        self.reporter.problem(&reason);
        Ok(())
    }

    /// Takes an executor for each capability; `None` when one is busy (try later).
    /// Executors that can never start make the task blocked.
    pub(super) fn allocate(
        &mut self,
        task: &Task,
        caps: &[String],
    ) -> Result<Option<Vec<Executor>>> {
        let escalate = self.escalate.contains(&task.id);
        let mut taken: Vec<Executor> = Vec::new();
        for cap in caps {
            if let Some(ex) = self.pool.allocate(cap, escalate) {
                taken.push(ex);
            } else {
                for ex in &taken {
                    self.pool.release(&ex.config.name);
                }
                if self.pool.all_broken(cap) {
                    let reason = format!(
                        "every executor offering `{cap}` is unusable (its program is not on PATH); task {} cannot be dispatched",
                        task.id
                    );
                    self.block_for_resource(task, cap, reason, true)?;
                }
                return Ok(None);
            }
        }
        // Executors before reviewers: review what was done.
        taken.sort_by_key(|e| e.config.role == Role::Reviewer);
        Ok(Some(taken))
    }

    pub(super) fn announce_dispatch(
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
                NewEvent::new(EventData::ResourceAllocated(Allocated {
                    level: ex.config.level,
                    escalated: self.escalate.contains(&task.id),
                }))
                .task(&task.id)
                .executor(&ex.config.name, role),
            )?;
            self.session.emit(
                NewEvent::new(EventData::TaskDispatchRequested(DispatchRequested {
                    dispatch_id,
                    attempt,
                }))
                .task(&task.id)
                .executor(&ex.config.name, role),
            )?;
            names.push((ex.config.name.clone(), role));
        }
        self.held.insert(task.id.clone(), names);
        Ok(())
    }

    pub(super) fn release(&mut self, task_id: &str, reason: &str) -> Result<()> {
        for (name, role) in self.held.remove(task_id).unwrap_or_default() {
            self.pool.release(&name);
            self.session.emit(
                NewEvent::new(EventData::ResourceReleased(Reason {
                    reason: reason.to_string(),
                }))
                .task(task_id)
                .executor(&name, role),
            )?;
        }
        Ok(())
    }

    /// `pending → in_progress`; returns the attempt number and the task as started.
    /// Takes the caller's handle on the task: held across the status change, it would
    /// make the state copy the whole task (`TaskRef::make_mut`).
    pub(super) fn start_task(&mut self, task: TaskRef, how: Start) -> Result<(u32, TaskRef)> {
        let attempt = task.task()?.attempts + 1;
        let id = task.id().to_owned();
        // An agent's work is judged against the tree it started from: the first
        // attempt's, kept until the task completes, so a retry cannot wash out what an
        // earlier attempt changed (docs/proof.md "Agent work"). A rehearsal does no
        // work to compare.
        let agent = how == Start::HandOff
            || (matches!(how, Start::Dispatched(_)) && self.pool.mock().is_none());
        let takes_base = agent && task.task()?.base_tree.is_none();
        let baseline = self.phase_baseline(task.task()?, attempt)?;
        drop(task);
        let logs = self.ctx.workflow_dir.join("logs");
        let log = crate::exec::process::log_path(&logs, &id, attempt);
        let log = self.ctx.relative(&log);
        let data = TaskMove {
            attempt: Some(attempt),
            log: Some(log.clone()),
            handoff: how == Start::HandOff,
            base_tree: takes_base
                .then(|| crate::proof::tree::snapshot(&self.ctx.project))
                .flatten(),
            phase_baseline: baseline,
            ..TaskMove::default()
        };
        let executor = match &how {
            Start::Dispatched(Some((name, role))) => Some((name.as_str(), *role)),
            _ => None,
        };
        self.session
            .set_task_status(&id, TaskStatus::InProgress, data, executor)?;
        // An executor's start is its own event (after its ack); wf's own work starts now.
        if how == Start::Command {
            self.session.emit(
                NewEvent::new(EventData::TaskExecutionStarted(ExecutionStarted {
                    attempt: Some(attempt),
                    log: Some(log),
                    ..ExecutionStarted::default()
                }))
                .task(&id),
            )?;
        }
        Ok((attempt, self.task_handle(&id)?))
    }
}

/// Runs a worker's body so that a panic becomes the task's failure: the scheduler
/// waits for every worker's outcome, and a silent one would hang the run.
fn guarded(task: &Task, body: impl FnOnce() -> TaskOutcome) -> TaskOutcome {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(body))
        .unwrap_or_else(|_| failed(&task.id, PANICKED.into()))
}

const PANICKED: &str = "internal error: the work of this task panicked";

/// The outcome of a task whose work could not run to its end: it panicked, or (a
/// task `start_task` changed is read already, so this is not expected) the task
/// could not be read on the worker.
fn failed(task_id: &str, reason: String) -> TaskOutcome {
    TaskOutcome::new(
        task_id,
        Verdict::Failed { reason },
        Ran::default(),
        String::new(),
        Duration::ZERO,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Constraint;

    #[test]
    fn a_panicking_worker_still_reports_a_failure() {
        let task = Task {
            id: "T1".into(),
            ..Task::default()
        };
        let mut floor = Floor::new(1).unwrap();
        floor.spawn(TaskRef::new(task), |_, _| panic!("boom"));
        assert!(floor.running().contains("T1"));
        let outcome = loop {
            match floor.next() {
                Some(Msg::Done(outcome)) => break outcome,
                Some(Msg::Event(_)) | None => {}
            }
        };
        assert_eq!(outcome.task_id, "T1");
        assert!(
            matches!(&outcome.verdict, Verdict::Failed { reason } if reason.contains("panicked")),
            "{:?}",
            outcome.verdict
        );
        floor.finished("T1");
        assert!(floor.running().is_empty());
    }

    fn next_outcome(floor: &mut Floor) -> TaskOutcome {
        loop {
            if let Some(Msg::Done(outcome)) = floor.next() {
                floor.finished(&outcome.task_id);
                return outcome;
            }
        }
    }

    #[test]
    fn a_panic_in_a_task_run_here_is_its_failure() {
        let mut floor = Floor::new(1).unwrap();
        floor.run_here("T1".into(), async { panic!("boom") });
        let outcome = next_outcome(&mut floor);
        assert_eq!(outcome.task_id, "T1");
        assert!(
            matches!(&outcome.verdict, Verdict::Failed { reason } if reason.contains("panicked")),
            "{:?}",
            outcome.verdict
        );
        assert!(floor.running().is_empty());
    }

    /// A task whose one check is `check`.
    fn checking(id: &str, check: String) -> Task {
        Task {
            id: id.into(),
            verify: vec![check],
            ..Task::default()
        }
    }

    /// A floor running `tasks` here, in the project `dir`, with `hard` constraints.
    fn running_here_in(dir: &std::path::Path, tasks: Vec<Task>, hard: Vec<Constraint>) -> Floor {
        let ctx = Arc::new(crate::run::work::WorkCtx::new(
            dir.to_path_buf(),
            dir.join("w"),
            crate::config::Config::default(),
            hard,
        ));
        let mut floor = Floor::new(tasks.len()).unwrap();
        for task in tasks {
            let ctx = ctx.clone();
            floor.run_here(task.id.clone(), async move {
                work::do_task(&ctx, &task, 1, Part::Full, None).await
            });
        }
        floor
    }

    /// A floor with a task per `(id, check)` run here, its project a temp dir (kept
    /// alive by the returned guard).
    fn running_here(checks: &[(&str, String)]) -> (tempfile::TempDir, Floor) {
        let dir = tempfile::tempdir().unwrap();
        let tasks = checks
            .iter()
            .map(|(id, check)| checking(id, check.clone()))
            .collect();
        let floor = running_here_in(dir.path(), tasks, Vec::new());
        (dir, floor)
    }

    /// `touch mine`, then wait (5 s at most) for `other` to be there.
    fn waits_for(mine: &str, other: &str) -> String {
        format!(
            "touch {mine}; i=0; while [ ! -e {other} ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; test -e {other}"
        )
    }

    /// Each task's command waits for the other's to have started: both finish only
    /// if this one thread runs them at once.
    #[test]
    fn tasks_run_here_run_their_commands_at_once() {
        let (_dir, mut floor) =
            running_here(&[("A", waits_for("a", "b")), ("B", waits_for("b", "a"))]);
        let mut passed = Vec::new();
        for _ in 0..2 {
            let outcome = next_outcome(&mut floor);
            assert!(
                matches!(outcome.verdict, Verdict::Passed { verified: true }),
                "{}: {:?}",
                outcome.task_id,
                outcome.verdict
            );
            passed.push(outcome.task_id);
        }
        passed.sort();
        assert_eq!(passed, ["A", "B"]);
    }

    /// A task whose command left a stray that ignores SIGTERM is swept for a second
    /// (SIGTERM, then SIGKILL): meanwhile the other task's command, run on the same
    /// thread, still ends and is reaped on time.
    #[test]
    fn a_slow_sweep_holds_up_no_other_task_run_here() {
        let started = std::time::Instant::now();
        let (_dir, mut floor) = running_here(&[
            (
                "A",
                "setsid sh -c 'trap \"\" TERM; exec sleep 30' > /dev/null 2>&1 & sleep 0.1".into(),
            ),
            ("B", "sleep 0.4".into()),
        ]);
        let first = next_outcome(&mut floor);
        let took = started.elapsed();
        let second = next_outcome(&mut floor);
        assert_eq!(
            (first.task_id.as_str(), second.task_id.as_str()),
            ("B", "A"),
            "B's command ended while A's stray was being swept"
        );
        assert!(took < Duration::from_millis(900), "B took {took:?}");
        for outcome in [first, second] {
            assert!(
                matches!(outcome.verdict, Verdict::Passed { verified: true }),
                "{}: {:?}",
                outcome.task_id,
                outcome.verdict
            );
        }
    }

    /// A quality gate's hard-constraint check runs among the other tasks' commands:
    /// it waits for a file the other task makes, which it could not if it held the
    /// thread.
    #[test]
    fn a_quality_gate_run_here_holds_up_no_other_task() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("scripts")).unwrap();
        std::fs::write(dir.path().join("scripts/wait.sh"), waits_for("g", "b")).unwrap();
        let gate = Task {
            id: "G".into(),
            quality_gate: true,
            ..Task::default()
        };
        let hard = Constraint {
            id: "C1".into(),
            description: "B has started".into(),
            kind: "hard".into(),
            category: "requirement".into(),
            source_model: "user".into(),
            phase: "analysis".into(),
            verified: None,
            verify_cmd: Some("sh scripts/wait.sh".into()),
            extra: serde_json::Map::new(),
        };
        let mut floor = running_here_in(
            dir.path(),
            vec![gate, checking("B", waits_for("b", "g"))],
            vec![hard],
        );
        let mut outcomes: Vec<TaskOutcome> = (0..2).map(|_| next_outcome(&mut floor)).collect();
        outcomes.sort_by(|a, b| a.task_id.cmp(&b.task_id));
        assert!(
            matches!(outcomes[0].verdict, Verdict::Passed { .. }),
            "B: {:?}",
            outcomes[0].verdict
        );
        let record = outcomes[1].gate.as_ref().expect("a gate record");
        assert_eq!(record["constraints"]["C1"], "passed", "{record}");
    }

    #[test]
    fn worker_events_come_before_the_outcome() {
        let mut floor = Floor::new(2).unwrap();
        let task = Task {
            id: "T2".into(),
            ..Task::default()
        };
        floor.spawn(TaskRef::new(task), |task, emit| {
            emit(
                NewEvent::new(EventData::TaskExecutionStarted(ExecutionStarted::default()))
                    .task(&task.id),
            );
            guarded(task, || panic!("after the event"))
        });
        let mut seen = Vec::new();
        loop {
            match floor.next() {
                Some(Msg::Event(_)) => seen.push("event"),
                Some(Msg::Done(_)) => {
                    seen.push("done");
                    break;
                }
                None => {}
            }
        }
        assert_eq!(seen, ["event", "done"]);
    }
}
