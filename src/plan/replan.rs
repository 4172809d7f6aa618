//! Re-importing a plan over a workflow that already has one: what the new text means
//! for the progress the state holds (docs/plans.md "Re-import").
//!
//! Pure rules; a re-import (`src/import/reimport.rs`) asks [`assess`] and writes
//! what it decides as one transaction. Progress is never
//! dropped without the user's say: a change that would reset completed work, or swap
//! the plan under an active run, needs `--force`, and then the old state is backed up
//! first.

use crate::state::model::Glance;
use crate::state::task_ref::TaskRef;
use std::collections::{HashMap, HashSet};

use crate::plan::diff::{self, PlanDiff};
use crate::state::model::{Task, WorkflowState};
use crate::state::{TaskStatus, WorkflowStatus};

/// What a re-import does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Only prose changed: no task to reset, no change to record.
    ProseOnly,
    /// A major change without `--force`: refused, and the state asks for a decision.
    NeedsDecision { why: &'static str },
    /// Applied; with `backup`, the old state is kept before anything changes.
    Apply { backup: bool },
}

/// A re-import's diff against the current tasks and what follows from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Assessment {
    pub diff: PlanDiff,
    pub verdict: Verdict,
}

/// The choices a refused major change leaves the user (`decisionOptions`).
pub const DECISION_OPTIONS: [&str; 2] = [
    "apply: wf workflow-start PLAN --force (the current state is backed up first)",
    "keep: re-import the current plan, or carry on with wf workflow-execute",
];

/// Why a re-import over `old` cannot happen at all, if it cannot. `archived` is final:
/// an archived workflow still in its dir is one whose archive stopped part-way, and
/// `wf archive` finishes moving it away; a re-import must not bring it back.
pub fn refusal(old: &WorkflowState) -> Option<&'static str> {
    (old.status == WorkflowStatus::Archived).then_some(
        "the workflow here is archived but its files were not all moved into archive/; run `wf archive` to finish, then import the plan again",
    )
}

/// Weighs `tasks` (as parsed from the new plan, named `tasks_file`) against `old`.
///
/// Major: a completed task changed or removed, or a different plan (another file, or
/// no task in common) while the workflow is active. Anything else is minor.
pub fn assess(
    old: &WorkflowState,
    tasks: &[Task],
    tasks_file: &str,
    force: bool,
) -> crate::error::Result<Assessment> {
    let diff = diff::diff(&old.whole_tasks()?, tasks);
    let same_file = old.tasks_file == tasks_file;
    if diff.is_empty() && !force && same_file {
        return Ok(Assessment {
            diff,
            verdict: Verdict::ProseOnly,
        });
    }
    let completed: HashSet<&str> = old
        .tasks
        .iter()
        .filter(|t| t.status() == TaskStatus::Completed)
        .map(Glance::id)
        .collect();
    let touches_done = diff
        .modified
        .iter()
        .chain(&diff.removed)
        .any(|id| completed.contains(id.as_str()));
    let different_plan = !same_file || diff.unchanged.is_empty() && !old.tasks.is_empty();
    let active = !matches!(
        old.status,
        WorkflowStatus::Completed | WorkflowStatus::Archived | WorkflowStatus::Idle
    );
    let swaps_active_plan = different_plan && active;
    let verdict = if (touches_done || swaps_active_plan) && !force {
        Verdict::NeedsDecision {
            why: if swaps_active_plan {
                "it is a different plan while the current one is active"
            } else {
                "it changes or removes completed tasks"
            },
        }
    } else {
        Verdict::Apply {
            backup: touches_done || swaps_active_plan || force,
        }
    };
    Ok(Assessment { diff, verdict })
}

/// The one-line refusal of a major change.
pub fn decision_message(why: &str, diff: &PlanDiff) -> String {
    let list = |ids: &[String]| {
        if ids.is_empty() {
            "none".to_string()
        } else {
            ids.join(", ")
        }
    };
    format!(
        "this re-import is a major change: {why} (modified: {}; removed: {}); pass --force to apply it (a backup of the state is kept)",
        list(&diff.modified),
        list(&diff.removed)
    )
}

/// Unchanged tasks keep what happened to them (status, attempts, log…), moved over
/// from `old`, with the blockers the new import gave them; a kept task that was
/// blocked and has no blocker left is pending again. Changed and new tasks start over.
pub fn carry_over(
    old: &mut [TaskRef],
    tasks: &mut [Task],
    unchanged: &[String],
) -> crate::error::Result<()> {
    let unchanged: HashSet<&str> = unchanged.iter().map(String::as_str).collect();
    let kept: HashMap<String, usize> = old
        .iter()
        .enumerate()
        .filter(|(_, t)| unchanged.contains(t.id()))
        .map(|(i, t)| (t.id().to_owned(), i))
        .collect();
    for task in tasks {
        if let Some(prev) = kept.get(&task.id).and_then(|&i| old.get_mut(i)) {
            let blocked_by = std::mem::take(&mut task.blocked_by);
            *task = std::mem::take(prev).into_task()?;
            if task.status == TaskStatus::Blocked && blocked_by.is_empty() {
                task.status = TaskStatus::Pending;
            }
            task.blocked_by = blocked_by;
        }
    }
    Ok(())
}

/// The workflow moves an applied re-import makes from `from`, each through the
/// state machine's table: a running workflow is paused first (its run is gone), then
/// everything not already planned becomes planned.
pub fn status_moves(from: WorkflowStatus) -> Vec<(WorkflowStatus, &'static str)> {
    match from {
        WorkflowStatus::Planned => Vec::new(),
        WorkflowStatus::Running => vec![
            (WorkflowStatus::Paused, "interrupted"),
            (WorkflowStatus::Planned, "re-imported"),
        ],
        _ => vec![(WorkflowStatus::Planned, "re-imported")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, digest: &str, status: TaskStatus) -> Task {
        Task {
            id: id.into(),
            name: id.into(),
            digest: digest.into(),
            status,
            ..Task::default()
        }
    }

    fn old(status: WorkflowStatus, tasks: Vec<Task>) -> WorkflowState {
        let mut s = WorkflowState::new();
        s.status = status;
        s.tasks_file = "tasks-p.md".into();
        s.tasks = tasks.into_iter().map(TaskRef::new).collect();
        s
    }

    use TaskStatus::{Blocked, Completed, Failed, Pending};
    use WorkflowStatus::{Archived, Completed as Done, Idle, Paused, Planned, Running};

    #[test]
    fn each_change_gets_its_verdict() {
        let two = || vec![task("T1", "a", Completed), task("T2", "b", Pending)];
        type Case = (
            &'static str,
            WorkflowState,
            Vec<Task>,
            &'static str,
            bool,
            Verdict,
        );
        let cases: Vec<Case> = vec![
            (
                "prose only",
                old(Paused, two()),
                vec![task("T1", "a", Pending), task("T2", "b", Pending)],
                "tasks-p.md",
                false,
                Verdict::ProseOnly,
            ),
            (
                "prose only, forced",
                old(Paused, two()),
                vec![task("T1", "a", Pending), task("T2", "b", Pending)],
                "tasks-p.md",
                true,
                Verdict::Apply { backup: true },
            ),
            (
                "a pending task changed",
                old(Paused, two()),
                vec![task("T1", "a", Pending), task("T2", "c", Pending)],
                "tasks-p.md",
                false,
                Verdict::Apply { backup: false },
            ),
            (
                "a task added",
                old(Running, two()),
                vec![
                    task("T1", "a", Pending),
                    task("T2", "b", Pending),
                    task("T3", "d", Pending),
                ],
                "tasks-p.md",
                false,
                Verdict::Apply { backup: false },
            ),
            (
                "a completed task changed",
                old(Paused, two()),
                vec![task("T1", "z", Pending), task("T2", "b", Pending)],
                "tasks-p.md",
                false,
                Verdict::NeedsDecision {
                    why: "it changes or removes completed tasks",
                },
            ),
            (
                "a completed task removed",
                old(Done, two()),
                vec![task("T2", "b", Pending)],
                "tasks-p.md",
                false,
                Verdict::NeedsDecision {
                    why: "it changes or removes completed tasks",
                },
            ),
            (
                "a completed task removed, forced",
                old(Done, two()),
                vec![task("T2", "b", Pending)],
                "tasks-p.md",
                true,
                Verdict::Apply { backup: true },
            ),
            (
                "another plan while active",
                old(Paused, vec![task("T2", "b", Pending)]),
                vec![task("T2", "b", Pending)],
                "tasks-q.md",
                false,
                Verdict::NeedsDecision {
                    why: "it is a different plan while the current one is active",
                },
            ),
            (
                "no task in common while active",
                old(Planned, vec![task("T2", "b", Pending)]),
                vec![task("X1", "x", Pending)],
                "tasks-p.md",
                false,
                Verdict::NeedsDecision {
                    why: "it is a different plan while the current one is active",
                },
            ),
            (
                "another plan while idle",
                old(Idle, vec![task("T2", "b", Failed)]),
                vec![task("X1", "x", Pending)],
                "tasks-q.md",
                false,
                Verdict::Apply { backup: false },
            ),
            (
                "another plan once completed",
                old(Done, vec![task("T2", "b", Pending)]),
                vec![task("X1", "x", Pending)],
                "tasks-q.md",
                false,
                Verdict::Apply { backup: false },
            ),
            (
                "into an empty workflow",
                old(Paused, vec![]),
                vec![task("X1", "x", Pending)],
                "tasks-p.md",
                false,
                Verdict::Apply { backup: false },
            ),
        ];
        for (name, old, tasks, file, force, want) in cases {
            assert_eq!(
                assess(&old, &tasks, file, force).unwrap().verdict,
                want,
                "{name}"
            );
        }
    }

    #[test]
    fn the_refusal_names_what_changed() {
        let a = assess(
            &old(
                Paused,
                vec![
                    task("T1", "a", Completed),
                    task("T2", "b", Pending),
                    task("T3", "c", Pending),
                ],
            ),
            &[task("T1", "z", Pending), task("T2", "b", Pending)],
            "tasks-p.md",
            false,
        )
        .unwrap();
        let Verdict::NeedsDecision { why } = a.verdict else {
            panic!("{a:?}")
        };
        assert_eq!(
            decision_message(why, &a.diff),
            "this re-import is a major change: it changes or removes completed tasks (modified: T1; removed: T3); pass --force to apply it (a backup of the state is kept)"
        );
    }

    #[test]
    fn unchanged_tasks_keep_their_record_and_take_the_new_blockers() {
        let mut was_blocked = task("T1", "a", Blocked);
        was_blocked.blocked_by = vec!["api_spec".into()];
        was_blocked.attempts = 2;
        let old = vec![
            was_blocked,
            task("T2", "b", Completed),
            task("T3", "c", Failed),
        ];
        let mut new = vec![
            task("T1", "a", Pending),
            task("T2", "b", Pending),
            task("T3", "changed", Pending),
        ];
        let mut old: Vec<TaskRef> = old.into_iter().map(TaskRef::new).collect();
        carry_over(&mut old, &mut new, &["T1".into(), "T2".into()]).unwrap();
        let seen: Vec<(&str, TaskStatus, u32)> = new
            .iter()
            .map(|t| (t.id.as_str(), t.status, t.attempts))
            .collect();
        // T1 lost its blocker in the new import: pending again, attempts kept.
        assert_eq!(
            seen,
            vec![("T1", Pending, 2), ("T2", Completed, 0), ("T3", Pending, 0)]
        );
        assert!(new[0].blocked_by.is_empty());
    }

    #[test]
    fn status_moves_are_legal_from_every_status_but_archived() {
        for from in WorkflowStatus::ALL {
            if from == Archived {
                assert!(refusal(&old(Archived, vec![])).is_some());
                continue;
            }
            let mut at = from;
            for (to, _) in status_moves(from) {
                assert!(at.can_move_to(to), "{at} -> {to}");
                at = to;
            }
            assert_eq!(at, Planned, "from {from}");
        }
    }
}
