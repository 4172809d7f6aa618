//! Taking a task's outcome back: what it leads to, written down.
//!
//! `policy::after_outcome` decides whether an outcome completes, retries,
//! escalates, blocks or fails a task; this applies that answer to the session (the
//! task's status and its data, the result and gate events, the executors released,
//! the run's counters and context history) so that every path a worker's report can
//! take is recorded the same way, whether it came from a worker, a hand-off coming
//! back, or `--ci` refusing one.

use crate::error::{Result, WfError};
use crate::run::context;
use crate::run::engine::{Engine, TaskResult};
use crate::run::policy::{self, needs_agent, Next, OutcomeFacts, Stop};
use crate::run::work::{self, TaskOutcome, Verdict};
use crate::state::event::{EventData, ExecutionResult, GateRecord, Reason, TaskMove};
use crate::state::event_log::NewEvent;
use crate::state::model::Glance;
use crate::state::model::Task;
use crate::state::task_ref::TaskRef;
use crate::state::TaskStatus;

impl Engine<'_> {
    /// `--require-checks`: an agent's work that nothing checked fails instead of
    /// completing on the agent's word (a rehearsal did no work: it is left alone).
    fn require_checked(&self, task: &Task, outcome: &mut TaskOutcome) {
        let agents = self.held.contains_key(&task.id) || task.handed_off == Some(true);
        if self.opts.require_checks
            && self.pool.mock().is_none()
            && (agents || needs_agent(task))
            && outcome.verdict == (Verdict::Passed { verified: false })
        {
            outcome.verdict = Verdict::Failed {
                reason: format!(
                    "nothing checks task {}: it has no command of its own and its line names nothing wf can check; add `(verify: `COMMAND`)` to its line or a wf.checks entry, or pass --allow-unchecked to accept it on the agent's word",
                    task.id
                ),
            };
        }
    }

    /// Records an outcome; returns a stop when it ends the run. Takes the caller's
    /// handle on the task and lets it go before the task's status changes (see
    /// `Engine::start_task`).
    pub(super) fn apply_outcome(
        &mut self,
        task: TaskRef,
        mut outcome: TaskOutcome,
    ) -> Result<Option<Stop>> {
        self.close_phase(task.task()?, &mut outcome)?;
        self.require_checked(task.task()?, &mut outcome);
        self.summary.ran += 1;
        let id = task.id().to_owned();
        // A dispatched task's executor reported its own result; wf reports its own work.
        let dispatched = self.held.contains_key(&id);
        if !dispatched {
            self.session.emit(
                NewEvent::new(EventData::TaskExecutionResult(ExecutionResult {
                    success: matches!(outcome.verdict, Verdict::Passed { .. }),
                    verified: Some(matches!(
                        outcome.verdict,
                        Verdict::Passed { verified: true }
                    )),
                    duration_ms: Some(outcome.duration.as_millis() as u64),
                    reason: match &outcome.verdict {
                        Verdict::Failed { reason } => Some(reason.clone()),
                        _ => None,
                    },
                    ..ExecutionResult::default()
                }))
                .task(&id),
            )?;
        }
        if let Some(gate) = &outcome.gate {
            let record = GateRecord::of(gate).map_err(|e| {
                WfError::usage(format!("quality gate {id}: its record does not read: {e}"))
            })?;
            self.session
                .emit(NewEvent::new(EventData::GateResult(record)).task(&id))?;
        }
        self.release(&id, policy::release_reason(&outcome.verdict))?;
        let facts = OutcomeFacts {
            dispatched,
            handed_off: task.handed_off(),
            needs_agent: needs_agent(task.task()?),
            pool_empty: self.pool.is_empty(),
            mock: self.pool.mock().is_some(),
            dispatch_failures: self.task(&id)?.map_or(0, |t| t.dispatch_failures),
            retries: (self.session.state()?.retry_counts)
                .get(&id)
                .copied()
                .unwrap_or(0),
            max_retries: self.opts.max_retries,
        };
        let reason = match &outcome.verdict {
            Verdict::Failed { reason } | Verdict::DispatchFailed { reason, .. } => reason.as_str(),
            _ => "",
        };
        let duration_ms = u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX);
        // What the executors used goes with whatever the outcome leads to, so the
        // task's total counts every attempt, failed ones too.
        if let Some(used) = outcome.usage {
            self.spent.add(used);
        }
        let paid = |data: TaskMove| TaskMove {
            usage: outcome.usage,
            ..data
        };
        let stop = match policy::after_outcome(&outcome.verdict, &facts) {
            Next::Block => {
                drop(task);
                self.session.set_task_status(
                    &id,
                    TaskStatus::Blocked,
                    paid(TaskMove {
                        reason: Some(reason.to_string()),
                        blocked_by: Some(vec!["resource_missing".into()]),
                        dispatch_failure: true,
                        ..TaskMove::default()
                    }),
                    None,
                )?;
                self.reporter
                    .problem(&format!("task {id} is blocked: {reason}"));
                None
            }
            Next::Redispatch => {
                drop(task);
                self.session.set_task_status(
                    &id,
                    TaskStatus::Pending,
                    paid(TaskMove {
                        reason: Some(reason.to_string()),
                        dispatch_failure: true,
                        ..TaskMove::default()
                    }),
                    None,
                )?;
                None
            }
            Next::Escalate => {
                self.summary.failed += 1;
                drop(task);
                self.escalate.insert(id.clone());
                self.session.set_task_status(
                    &id,
                    TaskStatus::Pending,
                    paid(TaskMove {
                        reason: Some(reason.to_string()),
                        retry: true,
                        escalate: true,
                        ..TaskMove::default()
                    }),
                    None,
                )?;
                None
            }
            Next::Complete {
                unchecked,
                agent_work,
            } => {
                self.done += 1;
                if let Some(i) = self.session.state()?.position(&id) {
                    self.queue.done(i);
                }
                self.summary.passed += 1;
                let verified = matches!(outcome.verdict, Verdict::Passed { verified: true });
                let evidence = self.evidence(task.task()?, &outcome)?;
                let data = paid(TaskMove {
                    verified: Some(verified),
                    duration_ms: Some(duration_ms),
                    accepted_unchecked: unchecked.is_some(),
                    check_warning: check_warning(&outcome.derived),
                    commit: outcome.commit.clone().map(Box::new),
                    ..TaskMove::default()
                });
                if verified {
                    self.remember(task.task()?, &evidence);
                }
                drop(task);
                self.session.complete_task(&id, data, evidence)?;
                if let Some(reason) = unchecked {
                    self.session.emit(
                        NewEvent::new(EventData::TaskAcceptedUnchecked(Reason {
                            reason: reason.to_string(),
                        }))
                        .task(&id),
                    )?;
                }
                if agent_work {
                    let now = crate::clock::now_rfc3339();
                    let state = self.session.state_mut()?;
                    state.consecutive_count += 1;
                    context::record(&mut state.context_metrics, &id, &now, outcome.usage);
                }
                None
            }
            Next::Fail => {
                self.summary.failed += 1;
                drop(task);
                self.session.set_task_status(
                    &id,
                    TaskStatus::Failed,
                    paid(TaskMove {
                        reason: Some(reason.to_string()),
                        duration_ms: Some(duration_ms),
                        ..TaskMove::default()
                    }),
                    None,
                )?;
                policy::stop_after_failure(&id, reason, self.opts.keep_going)
            }
            Next::Requeue => {
                // Half-written declared outputs are named, so a later "completed"
                // never rests on one unseen.
                let partial = work::partial_outputs(&self.ctx.project, task.task()?);
                drop(task);
                self.session.set_task_status(
                    &id,
                    TaskStatus::Pending,
                    paid(TaskMove {
                        reason: Some("interrupted; it will run again".into()),
                        partial_outputs: Some(partial.clone()),
                        ..TaskMove::default()
                    }),
                    None,
                )?;
                if let Some(note) = work::interrupted_note(&id, &partial) {
                    self.reporter.problem(&note);
                }
                Some(Stop::Interrupted)
            }
        };
        if let Some(current) = self.task_arc(&id).cloned() {
            self.summary.tasks.push(task_result(
                current.task()?,
                &outcome,
                &self.ctx.workflow_dir,
            ));
            self.reporter.finished(current.task()?, &outcome);
        }
        let (done, total) = self.counts()?;
        self.reporter.progress(done, total);
        Ok(stop)
    }

    pub(super) fn counts(&self) -> Result<(usize, usize)> {
        Ok((self.done, self.session.state()?.tasks.len()))
    }
}

fn task_result(task: &Task, outcome: &TaskOutcome, workflow_dir: &std::path::Path) -> TaskResult {
    let log = (!outcome.log.is_empty()).then(|| workflow_dir.join(&outcome.log));
    TaskResult {
        id: task.id.clone(),
        status: task.status,
        attempt: task.attempts,
        duration_ms: u64::try_from(outcome.duration.as_millis()).unwrap_or(u64::MAX),
        log,
        cached: false,
        failed_checks: match &outcome.verdict {
            Verdict::Failed { reason } => crate::run::failure::failed_checks(task, reason),
            _ => Vec::new(),
        },
        reason: match &outcome.verdict {
            Verdict::Failed { reason } | Verdict::DispatchFailed { reason, .. } => {
                Some(reason.clone())
            }
            Verdict::Interrupted => Some("interrupted; it will run again".into()),
            Verdict::Passed { .. } => None,
        },
    }
}

/// What a completing task's derived checks have to say (a test that passed before
/// its implementation, a check that cannot run here), for `wf status`.
fn check_warning(derived: &[crate::state::evidence::DerivedCheck]) -> Option<String> {
    use crate::state::evidence::DerivedResult;
    let said: Vec<&str> = derived
        .iter()
        .filter(|d| matches!(d.result, DerivedResult::Warning | DerivedResult::CannotRun))
        .map(|d| d.note.as_str())
        .collect();
    (!said.is_empty()).then(|| said.join("; "))
}
