//! Handing work to workers and executors, and taking their slots back.
//!
//! The engine decides (`policy`) and records; this is the part that touches the
//! executor pool and the worker threads: taking executors for a task and announcing
//! them, moving the task to `in_progress`, running it on a worker where a panic
//! still yields an outcome, and releasing what it held when it ends. Keeping it here
//! leaves the scheduling loop in `engine.rs` short enough to read as the policy's
//! order of events.

use std::collections::HashSet;
use std::sync::mpsc;
use std::time::Duration;

use serde_json::json;

use crate::config::Role;
use crate::error::Result;
use crate::run::agent::{self, Dispatch};
use crate::run::engine::Engine;
use crate::run::executor::Executor;
use crate::run::policy::{self, Stop};
use crate::run::work::{self, Part, TaskOutcome, Verdict};
use crate::run::workers::Workers;
use crate::state::event::EventKind;
use crate::state::event_log::NewEvent;
use crate::state::model::Task;
use crate::state::TaskStatus;

/// What a worker sends back.
pub(super) enum Msg {
    Event(NewEvent),
    Done(TaskOutcome),
}

/// How a task leaves pending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Start {
    Command,
    /// To executors; the first one's name is recorded on the task.
    Dispatched(Option<String>),
    HandOff,
}

/// The tasks out on workers, and the channel their events and outcomes come back on.
pub(super) struct Floor {
    // Dropped in this order, as the scheduler's locals were.
    workers: Workers<Msg>,
    running: HashSet<String>,
    rx: mpsc::Receiver<Msg>,
    tx: mpsc::Sender<Msg>,
}

impl Floor {
    pub(super) fn new(jobs: usize) -> Floor {
        let (tx, rx) = mpsc::channel::<Msg>();
        Floor {
            workers: Workers::new(jobs, tx.clone()),
            running: HashSet::new(),
            rx,
            tx,
        }
    }

    pub(super) fn running(&self) -> &HashSet<String> {
        &self.running
    }

    /// The next message from a worker, if one comes within 50 ms.
    pub(super) fn next(&self) -> Option<Msg> {
        self.rx.recv_timeout(Duration::from_millis(50)).ok()
    }

    /// A task's outcome came in: it no longer runs.
    pub(super) fn finished(&mut self, task_id: &str) {
        self.running.remove(task_id);
    }

    /// Runs `body` on a worker ([`Engine::hand_to_worker`] writes the held events first).
    fn spawn(
        &mut self,
        task: Task,
        body: impl FnOnce(&Task, &mut dyn FnMut(NewEvent)) -> TaskOutcome + Send + 'static,
    ) {
        let tx = self.tx.clone();
        self.running.insert(task.id.clone());
        self.workers.run(move || {
            let mut emit = |e: NewEvent| {
                let _ = tx.send(Msg::Event(e));
            };
            // The worker sends it, once the task is freed (`workers::work`).
            Msg::Done(guarded(&task, || body(&task, &mut emit)))
        });
    }
}

impl Engine<'_> {
    /// Starts `task` on its executors, on a worker.
    pub(super) fn dispatch_agent(
        &mut self,
        task: Task,
        executors: Vec<Executor>,
        floor: &mut Floor,
    ) -> Result<()> {
        self.announce_dispatch(&task, task.attempts + 1, &executors)?;
        let attempt = self.start_task(
            &task,
            Start::Dispatched(executors.first().map(|e| e.config.name.clone())),
        )?;
        self.reporter.started(&task);
        self.agent_tasks += 1;
        let dispatch = Dispatch {
            brief: (self.brief)(self.session.state()?, &task).into_bytes(),
            executors,
            mock: self.pool.mock().cloned(),
        };
        let ctx = self.ctx.clone();
        self.hand_to_worker(floor, task, move |task, emit| {
            agent::do_agent_task(&ctx, task, attempt, dispatch, emit)
        })
    }

    /// Runs `task`'s own commands (`wf` does it itself), on a worker.
    pub(super) fn run_command(&mut self, task: Task, floor: &mut Floor) -> Result<()> {
        let attempt = self.start_task(&task, Start::Command)?;
        self.reporter.started(&task);
        let ctx = self.ctx.clone();
        self.hand_to_worker(floor, task, move |task, _| {
            work::do_task(&ctx, task, attempt, Part::Full)
        })
    }

    /// Hands `task` to a worker once the events held so far are written: its start
    /// is in the log before its work begins.
    fn hand_to_worker(
        &mut self,
        floor: &mut Floor,
        task: Task,
        body: impl FnOnce(&Task, &mut dyn FnMut(NewEvent)) -> TaskOutcome + Send + 'static,
    ) -> Result<()> {
        self.session.write_held_events()?;
        floor.spawn(task, body);
        Ok(())
    }

    /// Hands `task` to an agent outside `wf`: the run stops until it comes back.
    pub(super) fn hand_off(&mut self, task: &Task) -> Result<Stop> {
        self.start_task(task, Start::HandOff)?;
        self.agent_tasks += 1;
        Ok(Stop::HandedOff(task.id.clone()))
    }

    /// `--ci` does not hand off: the task fails instead.
    pub(super) fn refuse_hand_off(&mut self, task: &Task) -> Result<Option<Stop>> {
        self.start_task(task, Start::Command)?;
        let outcome = TaskOutcome {
            task_id: task.id.clone(),
            verdict: Verdict::Failed {
                reason: policy::ci_handoff_reason(task),
            },
            gate: None,
            log: String::new(),
            duration: Duration::ZERO,
            usage: None,
            checks: Vec::new(),
            claim: None,
            changes: None,
        };
        self.apply_outcome(task, outcome)
    }

    /// A capability nobody offers is reported, never skipped silently.
    pub(super) fn missing_capability(&mut self, task: &Task, capability: &str) -> Result<()> {
        let reason = format!(
            "no executor offers capability `{capability}` (needed by task {}); add one to wf.executors in the project config",
            task.id
        );
        self.block_for_resource(task, EventKind::ResourceMissing, capability, reason, false)
    }

    /// Reports why no executor can take `task` (an event of `kind`) and blocks it on
    /// `resource_missing`, which `wf workflow-unblock` lifts once the pool is fixed.
    pub(super) fn block_for_resource(
        &mut self,
        task: &Task,
        kind: EventKind,
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
                    self.block_for_resource(task, EventKind::TaskDispatchNack, cap, reason, true)?;
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
                NewEvent::new(EventKind::ResourceAllocated, json!({"level": ex.config.level, "escalated": self.escalate.contains(&task.id)}))
                    .task(&task.id)
                    .executor(&ex.config.name, role),
            )?;
            self.session.emit(
                NewEvent::new(
                    EventKind::TaskDispatchRequested,
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

    pub(super) fn release(&mut self, task_id: &str, reason: &str) -> Result<()> {
        for (name, role) in self.held.remove(task_id).unwrap_or_default() {
            self.pool.release(&name);
            self.session.emit(
                NewEvent::new(EventKind::ResourceReleased, json!({"reason": reason}))
                    .task(task_id)
                    .executor(&name, role),
            )?;
        }
        Ok(())
    }

    /// `pending → in_progress`; returns the attempt number.
    pub(super) fn start_task(&mut self, task: &Task, how: Start) -> Result<u32> {
        let attempt = task.attempts + 1;
        let logs = self.ctx.workflow_dir.join("logs");
        let log = crate::exec::process::log_path(&logs, &task.id, attempt);
        let log = log
            .strip_prefix(&self.ctx.workflow_dir)
            .unwrap_or(&log)
            .display()
            .to_string();
        let mut data = json!({"attempt": attempt, "log": log});
        if how == Start::HandOff {
            data["handoff"] = true.into();
            // The tree the agent starts from, to tell what it changed when the task
            // comes back (docs/proof.md "Agent work").
            if let Some(tree) = crate::proof::tree::snapshot(&self.ctx.project) {
                data["base_tree"] = tree.into();
            }
        }
        let executor = match &how {
            Start::Dispatched(Some(name)) => Some((name.as_str(), Role::Executor)),
            _ => None,
        };
        self.session
            .set_task_status(&task.id, TaskStatus::InProgress, data, executor)?;
        // An executor's start is its own event (after its ack); wf's own work starts now.
        if how == Start::Command {
            self.session.emit(
                NewEvent::new(
                    EventKind::TaskExecutionStarted,
                    json!({"attempt": attempt, "log": log}),
                )
                .task(&task.id),
            )?;
        }
        Ok(attempt)
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
        usage: None,
        checks: Vec::new(),
        claim: None,
        changes: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panicking_worker_still_reports_a_failure() {
        let task = Task {
            id: "T1".into(),
            ..Task::default()
        };
        let mut floor = Floor::new(1);
        floor.spawn(task, |_, _| panic!("boom"));
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

    #[test]
    fn worker_events_come_before_the_outcome() {
        let mut floor = Floor::new(2);
        let task = Task {
            id: "T2".into(),
            ..Task::default()
        };
        floor.spawn(task, |task, emit| {
            emit(NewEvent::new(EventKind::TaskExecutionStarted, json!({})).task(&task.id));
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
