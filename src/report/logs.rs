//! Which task's log `wf logs` shows, and which attempt's.

use crate::error::WfError;
use crate::state::model::Glance;
use crate::state::{Task, TaskStatus, WorkflowState};

/// The task `wf logs` means: the one named, else the one in progress, else the first
/// failed, else the last (in plan order) that has run.
pub fn pick<'a>(state: &'a WorkflowState, named: Option<&str>) -> Result<&'a Task, WfError> {
    if let Some(id) = named {
        return state
            .task(id)?
            .ok_or_else(|| WfError::usage(format!("there is no task {id} in this workflow")));
    }
    let with = |status: TaskStatus| state.tasks.iter().find(|t| t.status() == status);
    if let Some(t) = with(TaskStatus::InProgress).or_else(|| with(TaskStatus::Failed)) {
        return t.task();
    }
    for t in state.tasks.iter().rev() {
        let t = t.task()?;
        if t.attempts > 0 {
            return Ok(t);
        }
    }
    Err(WfError::usage(
        "no task has run yet, so there is no log; run `wf workflow-execute`",
    ))
}

/// The attempt to show: `asked`, checked against the task's attempts, else its last.
pub fn attempt(task: &Task, asked: Option<u32>) -> Result<u32, String> {
    match (asked, task.attempts) {
        (_, 0) => Err(format!(
            "task {} has not run yet, so it has no log",
            task.id
        )),
        (Some(n), runs) if n == 0 || n > runs => Err(format!(
            "task {} has run {runs} time(s); --attempt takes 1 to {runs}",
            task.id
        )),
        (Some(n), _) => Ok(n),
        (None, runs) => Ok(runs),
    }
}

/// Why an attempt has no log to show (`wf logs`, and `wf mcp`'s `logs` tool).
pub fn no_log(id: &str, attempt: u32, path: &std::path::Path) -> String {
    format!(
        "task {id} attempt {attempt} left no log at {}: a log is kept only when a check prints something or fails",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::task_ref::TaskRef;

    fn task(id: &str, status: TaskStatus, attempts: u32) -> Task {
        Task {
            id: id.into(),
            name: id.into(),
            status,
            attempts,
            ..Task::default()
        }
    }

    fn state(tasks: Vec<Task>) -> WorkflowState {
        let mut s = WorkflowState::new();
        s.tasks = tasks.into_iter().map(TaskRef::new).collect();
        s
    }

    #[test]
    fn the_default_is_in_progress_then_failed_then_the_last_that_ran() {
        use TaskStatus::{Completed, Failed, InProgress, Pending};
        let s = state(vec![
            task("T1", Completed, 1),
            task("T2", Failed, 2),
            task("T3", Pending, 0),
        ]);
        assert_eq!(pick(&s, None).unwrap().id, "T2");
        let s = state(vec![task("T1", Failed, 1), task("T2", InProgress, 1)]);
        assert_eq!(pick(&s, None).unwrap().id, "T2");
        let s = state(vec![
            task("T1", Completed, 1),
            task("T2", Completed, 3),
            task("T3", Pending, 0),
        ]);
        assert_eq!(pick(&s, None).unwrap().id, "T2");
        assert!(pick(&state(vec![task("T1", Pending, 0)]), None).is_err());
        assert_eq!(
            pick(&s, Some("T9")).unwrap_err().message,
            "there is no task T9 in this workflow"
        );
    }

    #[test]
    fn the_attempt_is_the_last_or_one_that_happened() {
        let t = task("T1", TaskStatus::Failed, 2);
        assert_eq!(attempt(&t, None), Ok(2));
        assert_eq!(attempt(&t, Some(1)), Ok(1));
        assert_eq!(
            attempt(&t, Some(3)).unwrap_err(),
            "task T1 has run 2 time(s); --attempt takes 1 to 2"
        );
        assert!(attempt(&task("T2", TaskStatus::Pending, 0), None).is_err());
    }
}
