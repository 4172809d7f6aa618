//! What `workflow-execute` settles before its engine runs: a run that ended without
//! saying so (crash recovery), the user's `--retry`/`--skip`, and the refusals of a
//! plan nobody has decided on yet (a major re-import, audit errors, open questions).
//!
//! Every change goes through the state machine (`Session::set_task_status`,
//! `Session::set_workflow_status`); the command prints what these return.

use crate::state::event::TaskMove;
use crate::state::model::Glance;

use crate::error::{Result, WfError};
use crate::state::{Session, TaskStatus, WorkflowStatus};

/// What recovery found of an interrupted run.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Tasks put back to pending to run again.
    pub rerun: Vec<String>,
    /// Process groups of the crashed run that were still running and were ended.
    pub ended: usize,
}

/// We hold the lock, so no live run owns a task: any task still `in_progress` that
/// was not handed off is left over from a crash. Its processes are ended (they live
/// in their own process groups), it goes back to pending (docs/execution.md "Crash recovery": completed
/// tasks are kept, in-progress ones retried), and a `running` workflow counts as
/// paused.
pub fn recover_interrupted(session: &mut Session) -> Result<Recovered> {
    let state = session.state()?;
    let in_flight: Vec<String> = state
        .tasks
        .iter()
        .filter(|t| t.status() == TaskStatus::InProgress && !t.handed_off())
        .map(|t| t.id().to_string())
        .collect();
    // A run that handed a task off leaves the workflow running on purpose (see
    // `Engine::finish`); that is not a crash.
    let running = state.status == WorkflowStatus::Running;
    let was_running = running && state.handed_off_task().is_none();
    if in_flight.is_empty() && !running {
        return Ok(Recovered::default());
    }
    // A `running` workflow with no live lock holder may have left checks running, hand-off
    // or not (a crash while a handed-off task was being taken back): end them, so this run
    // does not start a second copy. The handed-off task itself stays handed off.
    let ended = crate::exec::orphans::kill_orphans(session.store().dir());
    if in_flight.is_empty() && !was_running {
        return Ok(Recovered {
            rerun: Vec::new(),
            ended: ended.len(),
        });
    }
    for id in &in_flight {
        session.set_task_status(
            id,
            TaskStatus::Pending,
            TaskMove {
                reason: Some("interrupted: the previous run ended while it ran".into()),
                orphans_killed: Some(ended.len()),
                ..TaskMove::default()
            },
            None,
        )?;
    }
    if was_running {
        session.set_workflow_status(WorkflowStatus::Paused, Some("interrupted"))?;
    }
    // Not saved here: the moves are in the event log (every reader folds them), and
    // the caller's run writes the snapshot; a caller that stops before it leaves the
    // log ahead, which dropping the session settles. So a `--step` resume writes the
    // snapshot once.
    Ok(Recovered {
        rerun: in_flight,
        ended: ended.len(),
    })
}

/// `--retry [TASK]`: the task (the failed one when none is named) goes back to
/// pending. Returns its id.
pub fn retry(session: &mut Session, target: &str) -> Result<String> {
    let id = pick_target(session, target, "--retry")?;
    let retry = TaskMove {
        retry: true,
        ..TaskMove::default()
    };
    session.set_task_status(&id, TaskStatus::Pending, retry, None)?;
    session.save()?;
    Ok(id)
}

/// `--skip [TASK] --reason TEXT`: the task (the failed one when none is named) is
/// skipped, its dependants free to run. Returns its id.
pub fn skip(session: &mut Session, target: &str, reason: &str) -> Result<String> {
    let id = pick_target(session, target, "--skip")?;
    let skip = TaskMove {
        reason: Some(reason.to_string()),
        ..TaskMove::default()
    };
    session.set_task_status(&id, TaskStatus::Skipped, skip, None)?;
    // A hand-off keeps the workflow `running` (`Engine::finish`); with the task it
    // waited for skipped and none other out, nothing runs: it pauses, or it would
    // read as a crashed run.
    let state = session.state()?;
    let idle = state.status == WorkflowStatus::Running
        && !state
            .tasks
            .iter()
            .any(|t| t.status() == TaskStatus::InProgress);
    if idle {
        session.set_workflow_status(
            WorkflowStatus::Paused,
            Some(&format!("task {id} was skipped: {reason}")),
        )?;
    }
    session.save()?;
    Ok(id)
}

/// The task a `--retry`/`--skip` names, or the failed one when it names none.
fn pick_target(session: &Session, target: &str, flag: &str) -> Result<String> {
    let state = session.state()?;
    if target.is_empty() {
        return state
            .tasks
            .iter()
            .find(|t| t.status() == TaskStatus::Failed)
            .map(|t| t.id().to_owned())
            .ok_or_else(|| {
                WfError::usage(format!(
                    "{flag}: no task has failed; name the task: {flag} TASK"
                ))
            });
    }
    match state.task_ref(target) {
        Some(t) => Ok(t.id().to_owned()),
        None => Err(WfError::usage(format!(
            "{flag}: there is no task {target} in this workflow"
        ))),
    }
}

/// Refuses a plan someone still has to decide on. `allow_audit_errors` is a decision
/// too, remembered in the state until the plan is re-imported.
pub fn refuse_undecided(
    session: &mut Session,
    allow_audit_errors: bool,
    allow_open_questions: bool,
) -> Result<()> {
    if allow_audit_errors {
        let now = crate::clock::now_rfc3339();
        let audit = &mut session.state_mut()?.zero_decision_audit;
        if !audit.passed && !audit.extra.contains_key("acceptedAt") {
            audit.extra.insert("acceptedAt".into(), now.into());
        }
    }
    let state = session.state()?;
    // The audit's acceptance is in the state now; the flag is the open questions'.
    match crate::run::now::undecided(state, false, allow_open_questions) {
        Some(why) => Err(WfError::usage(why)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::Store;

    /// A locked session on a state with the given workflow status and tasks.
    fn session(dir: &tempfile::TempDir, status: &str, tasks: &str) -> Session {
        let store = Store::new(dir.path().join("w"), crate::plan::STORE_ACCESS);
        crate::fs::ensure_dir(store.dir()).unwrap();
        std::fs::write(
            store.state_path(),
            format!(r#"{{"status": "{status}", "tasks": [{tasks}]}}"#),
        )
        .unwrap();
        store.lock(None, "test").unwrap()
    }

    fn statuses(s: &Session) -> Vec<(String, TaskStatus)> {
        let state = s.state().unwrap();
        state
            .tasks
            .iter()
            .map(|t| (t.id().to_owned(), t.status()))
            .collect()
    }

    const T1_RUNNING_T2_HANDED_OFF: &str = r#"{"id": "T1", "name": "a", "status": "in_progress"},
        {"id": "T2", "name": "b", "status": "in_progress", "handed_off": true},
        {"id": "T3", "name": "c", "status": "completed"}"#;

    #[test]
    fn a_crashed_run_puts_its_in_flight_tasks_back_and_pauses_but_keeps_a_hand_off() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(&dir, "running", T1_RUNNING_T2_HANDED_OFF);
        let got = recover_interrupted(&mut s).unwrap();
        assert_eq!(got.rerun, vec!["T1".to_string()]);
        use TaskStatus::{Completed, InProgress, Pending};
        assert_eq!(
            statuses(&s),
            vec![
                ("T1".into(), Pending),
                ("T2".into(), InProgress),
                ("T3".into(), Completed)
            ]
        );
        // A handed-off task explains a running workflow; this one also had T1 in flight.
        assert_eq!(s.state().unwrap().status, WorkflowStatus::Running);
    }

    #[test]
    fn a_running_workflow_with_nothing_in_flight_is_paused_as_interrupted() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(
            &dir,
            "running",
            r#"{"id": "T1", "name": "a", "status": "pending"}"#,
        );
        assert_eq!(recover_interrupted(&mut s).unwrap(), Recovered::default());
        let state = s.state().unwrap();
        assert_eq!(state.status, WorkflowStatus::Paused);
        assert_eq!(state.status_reason.as_deref(), Some("interrupted"));
    }

    #[test]
    fn a_paused_workflow_needs_no_recovery() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(
            &dir,
            "paused",
            r#"{"id": "T1", "name": "a", "status": "pending"}"#,
        );
        assert_eq!(recover_interrupted(&mut s).unwrap(), Recovered::default());
        assert_eq!(s.state().unwrap().status, WorkflowStatus::Paused);
    }

    #[test]
    fn retry_and_skip_pick_the_failed_task_or_the_named_one_and_refuse_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = r#"{"id": "T1", "name": "a", "status": "completed"},
            {"id": "T2", "name": "b", "status": "failed"}"#;
        let mut s = session(&dir, "failed", tasks);
        assert_eq!(retry(&mut s, "").unwrap(), "T2");
        assert_eq!(
            skip(&mut s, "", "why").unwrap_err().message,
            "--skip: no task has failed; name the task: --skip TASK"
        );
        assert_eq!(
            retry(&mut s, "T9").unwrap_err().message,
            "--retry: there is no task T9 in this workflow"
        );
        // A completed task may be re-run, not skipped.
        assert_eq!(retry(&mut s, "T1").unwrap(), "T1");
        assert_eq!(skip(&mut s, "T2", "not needed").unwrap(), "T2");
        use TaskStatus::{Pending, Skipped};
        assert_eq!(
            statuses(&s),
            vec![("T1".into(), Pending), ("T2".into(), Skipped)]
        );
        let info = &s.state().unwrap().skipped_info;
        assert!(info.contains_key("T2"), "{info:?}");
    }

    #[test]
    fn an_undecided_plan_is_refused_until_it_is_decided() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = session(
            &dir,
            "planned",
            r#"{"id": "T1", "name": "a", "status": "pending"}"#,
        );
        refuse_undecided(&mut s, false, false).unwrap();
        s.state_mut().unwrap().decision_required = true;
        let err = refuse_undecided(&mut s, true, true).unwrap_err();
        assert!(
            err.message.starts_with("a re-import needs your decision"),
            "{}",
            err.message
        );
        s.state_mut().unwrap().decision_required = false;
        s.state_mut().unwrap().constraints.open_questions = vec!["which db?".into()];
        let err = refuse_undecided(&mut s, false, false).unwrap_err();
        assert_eq!(
            err.message,
            "1 open question(s) nobody has answered (first: which db?); answer them and remove them with `wf constraints`, or pass --allow-open-questions"
        );
        refuse_undecided(&mut s, false, true).unwrap();
    }
}
