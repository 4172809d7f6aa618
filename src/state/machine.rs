//! The workflow and task state machines as explicit transition tables.
//!
//! Every status change in `wf` goes through [`WorkflowStatus::to`] or
//! [`TaskStatus::to`]; a move that is not in the table is an error naming both
//! states, never a silent overwrite (docs/state-machines.md).

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{ErrorKind, WfError};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum WorkflowStatus {
    #[default]
    Idle,
    Planned,
    Running,
    Paused,
    Blocked,
    Failed,
    Completed,
    Archived,
}

use WorkflowStatus as W;

/// `(from, to)`: the workflow moves `wf` makes (docs/state-machines.md), `→ planned`
/// included for a re-import of an edited plan (docs/plans.md "Re-import").
const WORKFLOW_MOVES: &[(WorkflowStatus, WorkflowStatus)] = &[
    (W::Idle, W::Planned),
    (W::Planned, W::Running),
    (W::Planned, W::Idle),
    (W::Running, W::Paused),
    (W::Running, W::Blocked),
    (W::Running, W::Failed),
    (W::Running, W::Completed),
    (W::Paused, W::Running),
    (W::Blocked, W::Running),
    (W::Failed, W::Running),
    (W::Completed, W::Archived),
    // `wf archive --force`: abandoned, its record kept.
    (W::Planned, W::Archived),
    (W::Running, W::Archived),
    (W::Paused, W::Archived),
    (W::Blocked, W::Archived),
    (W::Failed, W::Archived),
    (W::Paused, W::Planned),
    (W::Blocked, W::Planned),
    (W::Failed, W::Planned),
    (W::Completed, W::Planned),
];

impl WorkflowStatus {
    pub const ALL: [WorkflowStatus; 8] = [
        W::Idle,
        W::Planned,
        W::Running,
        W::Paused,
        W::Blocked,
        W::Failed,
        W::Completed,
        W::Archived,
    ];

    pub fn can_move_to(self, to: WorkflowStatus) -> bool {
        WORKFLOW_MOVES.contains(&(self, to))
    }

    /// The checked move `self → to`.
    pub fn to(self, to: WorkflowStatus) -> Result<WorkflowStatus, WfError> {
        if self.can_move_to(to) {
            Ok(to)
        } else {
            Err(WfError::new(
                ErrorKind::Usage,
                format!("the workflow cannot go from {self} to {to}"),
            ))
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            W::Idle => "idle",
            W::Planned => "planned",
            W::Running => "running",
            W::Paused => "paused",
            W::Blocked => "blocked",
            W::Failed => "failed",
            W::Completed => "completed",
            W::Archived => "archived",
        }
    }
}

impl fmt::Display for WorkflowStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    #[default]
    Pending,
    Blocked,
    InProgress,
    Completed,
    Skipped,
    Failed,
}

use TaskStatus as T;

/// `(from, to)`: the task moves. `in_progress → pending` is an interrupted or
/// nacked attempt; `in_progress → skipped` gives up on a handed-off task;
/// `completed/skipped → pending` is a re-import that changed the task.
const TASK_MOVES: &[(TaskStatus, TaskStatus)] = &[
    (T::Pending, T::InProgress),
    (T::Pending, T::Blocked),
    (T::Pending, T::Skipped),
    (T::Blocked, T::Pending),
    (T::Blocked, T::Skipped),
    (T::InProgress, T::Completed),
    (T::InProgress, T::Failed),
    (T::InProgress, T::Pending),
    (T::InProgress, T::Blocked),
    (T::InProgress, T::Skipped),
    (T::Failed, T::Pending),
    (T::Failed, T::Skipped),
    (T::Completed, T::Pending),
    (T::Skipped, T::Pending),
];

impl TaskStatus {
    pub const ALL: [TaskStatus; 6] = [
        T::Pending,
        T::Blocked,
        T::InProgress,
        T::Completed,
        T::Skipped,
        T::Failed,
    ];

    pub fn can_move_to(self, to: TaskStatus) -> bool {
        TASK_MOVES.contains(&(self, to))
    }

    /// The checked move `self → to` for task `id`.
    pub fn to(self, to: TaskStatus, id: &str) -> Result<TaskStatus, WfError> {
        if self.can_move_to(to) {
            Ok(to)
        } else {
            Err(WfError::new(
                ErrorKind::Usage,
                format!("task {id} cannot go from {self} to {to}"),
            ))
        }
    }

    /// Completed or skipped: dependants may run.
    pub fn is_done(self) -> bool {
        matches!(self, T::Completed | T::Skipped)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            T::Pending => "pending",
            T::Blocked => "blocked",
            T::InProgress => "in_progress",
            T::Completed => "completed",
            T::Skipped => "skipped",
            T::Failed => "failed",
        }
    }

    pub fn parse(s: &str) -> Option<TaskStatus> {
        TaskStatus::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_workflow_moves_are_allowed() {
        for (from, to) in [
            (W::Idle, W::Planned),
            (W::Planned, W::Running),
            (W::Running, W::Completed),
            (W::Failed, W::Running),
            (W::Completed, W::Archived),
        ] {
            assert!(from.to(to).is_ok(), "{from} -> {to}");
        }
    }

    #[test]
    fn illegal_workflow_move_names_both_states() {
        let err = W::Completed.to(W::Running).unwrap_err();
        assert_eq!(
            err.message,
            "the workflow cannot go from completed to running"
        );
        assert!(W::Archived.to(W::Planned).is_err());
    }

    #[test]
    fn illegal_task_move_names_both_states() {
        let err = T::Completed.to(T::Failed, "T1").unwrap_err();
        assert_eq!(err.message, "task T1 cannot go from completed to failed");
        assert!(T::Pending.to(T::Completed, "T1").is_err());
    }

    #[test]
    fn status_names_round_trip() {
        for s in TaskStatus::ALL {
            assert_eq!(TaskStatus::parse(s.as_str()), Some(s));
        }
    }
}
