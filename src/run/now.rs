//! What a workflow needs next, decided in one place: `wf next` shows it, and
//! `workflow-execute` refuses or goes on by it, so the two never disagree (before,
//! `wf next` called a task ready while `workflow-execute` refused a failed workflow).
//! The hooks and the agent tools read it through `wf next`'s report.
//!
//! Pure: the state and two facts in, the answer out. The order is the order of
//! `workflow-execute`: a plan that needs a decision is refused before anything runs;
//! a crashed run's tasks go back to pending and run again; a handed-off task is taken
//! back and verified; a failed workflow is refused until the failure is retried or
//! skipped; then the first ready task runs; with none, the run ends completed,
//! blocked, or waiting.

use crate::error::Result;
use std::collections::BTreeSet;

use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::{Task, WorkflowState};
use crate::state::summary::Digest;

/// What the state cannot tell by itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct Facts {
    /// A `wf` process holds the workflow's lock (a run is going on).
    pub writer_alive: bool,
    /// `--allow-audit-errors` was given (or was, before: the state remembers it).
    pub allow_audit_errors: bool,
    /// `--allow-open-questions` was given.
    pub allow_open_questions: bool,
}

impl Facts {
    /// What a caller holding the workflow's lock knows: no other run is going on
    /// (an interrupted one was recovered when the lock was taken).
    pub fn locked() -> Facts {
        Facts {
            writer_alive: true,
            ..Facts::default()
        }
    }
}

#[derive(Debug, PartialEq)]
pub enum Now<'a> {
    /// The plan needs a decision before anything runs; why, and what to do.
    Undecided(String),
    /// A run ended without saving (killed, crashed): these tasks run again.
    Interrupted(Vec<&'a Task>),
    /// Handed off to an agent: do it, then `workflow-execute` verifies it.
    HandedOff(&'a Task),
    /// The workflow failed: retry or skip these first.
    Failed(Vec<&'a Task>),
    /// The task to run now.
    Ready(&'a Task),
    /// Every task is done; `completed` once the workflow says so.
    Done { completed: bool },
    /// Nothing is ready and these blocker kinds hold the rest.
    Blocked(BTreeSet<String>),
    /// Pending tasks wait on something that is neither done nor blocked.
    Waiting,
    /// The workflow has no tasks.
    NoTasks,
}

pub fn what_now(state: &WorkflowState, facts: Facts) -> Result<Now<'_>> {
    what_now_in(state, &Digest::of(state), facts)
}

/// `what_now` of a state and its digest (`state::summary`): `state` needs to hold
/// only the tasks the digest names, as a view read from the summary does.
pub fn what_now_in<'a>(state: &'a WorkflowState, digest: &Digest, facts: Facts) -> Result<Now<'a>> {
    if digest.total == 0 {
        return Ok(Now::NoTasks);
    }
    if let Some(why) = undecided(state, facts.allow_audit_errors, facts.allow_open_questions) {
        return Ok(Now::Undecided(why));
    }
    let tasks = |ids: &[String]| -> Result<Vec<&'a Task>> {
        ids.iter()
            .filter_map(|id| state.task(id).transpose())
            .collect()
    };
    let in_progress = tasks(&digest.in_progress)?;
    if state.status == WorkflowStatus::Running && !facts.writer_alive {
        let rerun: Vec<&Task> = in_progress
            .iter()
            .copied()
            .filter(|t| t.handed_off != Some(true))
            .collect();
        if !rerun.is_empty() {
            return Ok(Now::Interrupted(rerun));
        }
    }
    // The task in progress: `current_task` when it is, else the first in plan order.
    // Either is one the digest counts in progress: an agent's caller leaves out the
    // tasks leased to other agents (`run::lease`).
    let current = match state.current_task.as_deref() {
        Some(id) => state.task(id)?,
        None => None,
    };
    let current = current
        .filter(|t| t.status == TaskStatus::InProgress && digest.in_progress.contains(&t.id));
    if let Some(task) = current.or_else(|| in_progress.first().copied()) {
        return Ok(Now::HandedOff(task));
    }
    let failed = tasks(&digest.failed)?;
    if state.status == WorkflowStatus::Failed && !failed.is_empty() {
        return Ok(Now::Failed(failed));
    }
    if let Some(id) = digest.ready.first() {
        if let Some(task) = state.task(id)? {
            return Ok(Now::Ready(task));
        }
    }
    if digest.done() == digest.total {
        return Ok(Now::Done {
            completed: matches!(
                state.status,
                WorkflowStatus::Completed | WorkflowStatus::Archived
            ),
        });
    }
    if !failed.is_empty() {
        return Ok(Now::Failed(failed));
    }
    Ok(if digest.blocker_kinds.is_empty() {
        Now::Waiting
    } else {
        Now::Blocked(digest.blocker_kinds.clone())
    })
}

/// Why the plan cannot run until someone decides: a re-import waiting for `--force`,
/// audit errors nobody accepted, open questions. None when it can run.
pub fn undecided(
    state: &WorkflowState,
    allow_audit_errors: bool,
    allow_open_questions: bool,
) -> Option<String> {
    if state.decision_required {
        return Some(format!(
            "a re-import needs your decision ({}): run `wf workflow-start PLAN.md --force` to apply it, or re-import the previous plan",
            state.replan_reason.as_deref().unwrap_or("major change")
        ));
    }
    let audit = &state.zero_decision_audit;
    if !audit.passed && !audit.extra.contains_key("acceptedAt") && !allow_audit_errors {
        let errors: Vec<String> = audit
            .anti_patterns
            .iter()
            .filter(|f| f.severity == "error")
            .take(3)
            .map(|f| format!("{}: {}", f.task_id, f.description))
            .collect();
        return Some(format!(
            "the plan's zero-decision audit found undecided items ({}); settle them in the plan and run `wf workflow-start` again, or pass --allow-audit-errors",
            errors.join("; ")
        ));
    }
    let questions = &state.constraints.open_questions;
    if !questions.is_empty() && !allow_open_questions {
        return Some(format!(
            "{} open question(s) nobody has answered (first: {}); answer them and remove them with `wf constraints`, or pass --allow-open-questions",
            questions.len(),
            questions[0]
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Glance;
    use crate::state::task_ref::TaskRef;

    fn task(id: &str, status: TaskStatus) -> Task {
        Task {
            id: id.into(),
            name: id.into(),
            status,
            ..Task::default()
        }
    }

    fn state(status: WorkflowStatus, tasks: Vec<Task>) -> WorkflowState {
        let mut s = WorkflowState::new();
        s.status = status;
        s.tasks = tasks.into_iter().map(TaskRef::new).collect();
        s
    }

    fn ids(tasks: &[&Task]) -> Vec<String> {
        tasks.iter().map(|t| t.id.clone()).collect()
    }

    /// The answer as a word and the tasks it names, for table rows.
    fn answer(s: &WorkflowState, facts: Facts) -> (&'static str, Vec<String>) {
        match what_now(s, facts).unwrap() {
            Now::Undecided(_) => ("undecided", vec![]),
            Now::Interrupted(t) => ("interrupted", ids(&t)),
            Now::HandedOff(t) => ("handed_off", vec![t.id.clone()]),
            Now::Failed(t) => ("failed", ids(&t)),
            Now::Ready(t) => ("ready", vec![t.id.clone()]),
            Now::Done { completed: true } => ("completed", vec![]),
            Now::Done { completed: false } => ("done", vec![]),
            Now::Blocked(k) => ("blocked", k.into_iter().collect()),
            Now::Waiting => ("waiting", vec![]),
            Now::NoTasks => ("no_tasks", vec![]),
        }
    }

    #[test]
    fn each_state_has_one_answer() {
        use TaskStatus::{Completed, Failed, InProgress, Pending};
        use WorkflowStatus as W;
        let alive = Facts {
            writer_alive: true,
            ..Facts::default()
        };
        let gone = Facts::default();
        let mut handed = task("T1", InProgress);
        handed.handed_off = Some(true);
        let mut blocked = task("T2", Pending);
        blocked.blocked_by = vec!["api_spec".into()];
        let mut waits = task("T2", Pending);
        waits.deps = vec!["T9".into()];
        type Row = (WorkflowState, Facts, (&'static str, Vec<&'static str>));
        let rows: Vec<Row> = vec![
            (state(W::Planned, vec![]), gone, ("no_tasks", vec![])),
            (
                state(W::Planned, vec![task("T1", Pending)]),
                gone,
                ("ready", vec!["T1"]),
            ),
            // A failed workflow is refused, even with another task ready.
            (
                state(W::Failed, vec![task("T1", Failed), task("T2", Pending)]),
                gone,
                ("failed", vec!["T1"]),
            ),
            // A failure a --keep-going run left in a paused workflow: the rest runs.
            (
                state(W::Paused, vec![task("T1", Failed), task("T2", Pending)]),
                gone,
                ("ready", vec!["T2"]),
            ),
            (
                state(W::Running, vec![task("T1", InProgress)]),
                gone,
                ("interrupted", vec!["T1"]),
            ),
            // While a run holds the lock its task is simply in progress.
            (
                state(W::Running, vec![task("T1", InProgress)]),
                alive,
                ("handed_off", vec!["T1"]),
            ),
            // A hand-off survives a crash: it is the agent's, not the run's.
            (
                state(W::Running, vec![handed]),
                gone,
                ("handed_off", vec!["T1"]),
            ),
            (
                state(W::Blocked, vec![task("T1", Completed), blocked]),
                gone,
                ("blocked", vec!["api_spec"]),
            ),
            (
                state(W::Paused, vec![task("T1", Completed), waits]),
                gone,
                ("waiting", vec![]),
            ),
            (
                state(W::Paused, vec![task("T1", Completed)]),
                gone,
                ("done", vec![]),
            ),
            (
                state(W::Completed, vec![task("T1", Completed)]),
                gone,
                ("completed", vec![]),
            ),
        ];
        for (s, facts, (word, named)) in rows {
            let got = answer(&s, facts);
            assert_eq!(
                (got.0, got.1.iter().map(String::as_str).collect::<Vec<_>>()),
                (word, named),
                "{:?} {:?}",
                s.status,
                s.tasks
                    .iter()
                    .map(|t| (t.id(), t.status()))
                    .collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn a_plan_that_needs_a_decision_comes_first() {
        let mut s = state(WorkflowStatus::Failed, vec![task("T1", TaskStatus::Failed)]);
        s.constraints.open_questions = vec!["which database?".into()];
        assert!(
            matches!(what_now(&s, Facts::default()).unwrap(), Now::Undecided(why) if why.contains("which database?"))
        );
        let allowed = Facts {
            allow_open_questions: true,
            ..Facts::default()
        };
        assert!(matches!(what_now(&s, allowed).unwrap(), Now::Failed(_)));
        s.decision_required = true;
        assert!(
            matches!(what_now(&s, allowed).unwrap(), Now::Undecided(why) if why.contains("--force"))
        );
    }
}
