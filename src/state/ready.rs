//! The ready queue's membership test (docs/execution.md "The ready queue").
//!
//! A task is ready when it is pending, not held by an external blocker, and every
//! dependency is completed or skipped. Shared by `status`, `next` and the execution
//! engine so they never disagree about what runs next.

use std::collections::HashMap;

use crate::state::machine::TaskStatus;
use crate::state::model::{Glance, WorkflowState};

/// Whether `task` may run now, given how to tell a done dependency.
pub fn is_ready(task: &impl Glance, dep_done: impl FnMut(&str) -> bool) -> bool {
    task.status() == TaskStatus::Pending
        && task.blocked_by().is_empty()
        && task.deps().all(dep_done)
}

pub fn ready(state: &WorkflowState) -> Vec<usize> {
    let status: HashMap<&str, TaskStatus> =
        state.tasks.iter().map(|t| (t.id(), t.status())).collect();
    state
        .tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| is_ready(*t, |d| status.get(d).is_some_and(|s| s.is_done())))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Task;
    use crate::state::task_ref::TaskRef;

    fn task(id: &str, status: TaskStatus, deps: &[&str], blocked_by: &[&str]) -> Task {
        Task {
            id: id.into(),
            name: id.into(),
            status,
            deps: deps.iter().map(std::string::ToString::to_string).collect(),
            blocked_by: blocked_by
                .iter()
                .map(std::string::ToString::to_string)
                .collect(),
            ..Task::default()
        }
    }

    fn state(tasks: Vec<Task>) -> WorkflowState {
        let mut s: WorkflowState =
            serde_json::from_value(serde_json::json!({"status": "running"})).unwrap();
        s.tasks = tasks.into_iter().map(TaskRef::new).collect();
        s
    }

    #[test]
    fn ready_follows_deps_blockers_and_document_order() {
        let s = state(vec![
            task("T1", TaskStatus::Completed, &[], &[]),
            task("T2", TaskStatus::Skipped, &[], &[]),
            task("T3", TaskStatus::Pending, &["T1", "T2"], &[]),
            task("T4", TaskStatus::Pending, &["T5"], &[]),
            task("T5", TaskStatus::Failed, &[], &[]),
            task("T6", TaskStatus::Pending, &[], &["api_spec"]),
            task("T7", TaskStatus::Pending, &[], &[]),
            task("T8", TaskStatus::InProgress, &[], &[]),
            task("T9", TaskStatus::Pending, &["nope"], &[]),
        ]);
        assert_eq!(ready(&s), vec![2, 6]);
    }
}
