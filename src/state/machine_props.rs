//! Property tests of the two state machines as the fold applies them.
//!
//! Any sequence of legal events, folded onto a state, keeps it consistent with a
//! simple model (status, attempts, retry counts) and with itself (no failure reason
//! on a healthy task, hand-off only while in progress, progress lists that match the
//! statuses). Any illegal event is refused — by the table and by the fold — and
//! leaves the state exactly as it was. The plan round-trip properties live in
//! `plan/prop_tests.rs`.

use crate::state::model::Glance;
use crate::state::task_ref::TaskRef;

use proptest::prelude::*;

use crate::state::event::{EventData, TaskMove, WorkflowMove};
use crate::state::event_log::Event;
use crate::state::fold::apply_event;
use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::{Task, WorkflowState};

fn state_with(n: usize) -> WorkflowState {
    let mut state = WorkflowState::new();
    state.status = WorkflowStatus::Running;
    state.tasks = (1..=n)
        .map(|i| Task {
            id: format!("T{i}"),
            name: format!("task {i}"),
            ..Task::default()
        })
        .map(TaskRef::new)
        .collect();
    state.sync_progress();
    state
}

fn task_event(seq: u64, id: &str, from: TaskStatus, to: TaskStatus, flags: u8) -> Event {
    let data = TaskMove {
        reason: (flags & 1 != 0).then(|| "because".to_string()),
        handoff: flags & 2 != 0 && to == TaskStatus::InProgress,
        retry: flags & 4 != 0 && to == TaskStatus::Pending,
        from,
        to,
        ..TaskMove::default()
    };
    Event {
        seq,
        ts: format!("2026-01-08T10:00:{:02}Z", seq % 60),
        task_id: Some(id.into()),
        executor: None,
        actor: "wf.orchestrator".into(),
        role: "orchestrator".into(),
        data: EventData::TaskStatusChanged(data),
        txn: false,
    }
}

fn workflow_event(seq: u64, from: WorkflowStatus, to: WorkflowStatus) -> Event {
    Event {
        seq,
        ts: "2026-01-08T10:00:00Z".into(),
        task_id: None,
        executor: None,
        actor: "wf.orchestrator".into(),
        role: "orchestrator".into(),
        data: EventData::WorkflowStatusChanged(WorkflowMove {
            from,
            to,
            reason: Some("r".into()),
        }),
        txn: false,
    }
}

fn legal_from(from: TaskStatus) -> Vec<TaskStatus> {
    TaskStatus::ALL
        .into_iter()
        .filter(|to| from.can_move_to(*to))
        .collect()
}

/// The parts of the state the fold may touch, for "nothing changed" checks (the
/// state's id index is a cache and not compared).
fn observable(state: &WorkflowState) -> serde_json::Value {
    serde_json::to_value(state).unwrap_or_default()
}

/// What a task should look like after the moves so far.
#[derive(Debug, Clone, Default)]
struct Model {
    status: TaskStatus,
    attempts: u32,
    retries: u32,
}

fn check_consistent(state: &mut WorkflowState, models: &[Model]) -> Result<(), TestCaseError> {
    for (task, model) in state.tasks.iter().zip(models) {
        prop_assert_eq!(task.status(), model.status, "{}", &task.id());
        prop_assert_eq!(
            task.task().unwrap().attempts,
            model.attempts,
            "{}",
            &task.id()
        );
        let retries = state.retry_counts.get(task.id()).copied().unwrap_or(0);
        prop_assert_eq!(retries, model.retries, "{}", &task.id());
        if task.handed_off() {
            prop_assert_eq!(task.status(), TaskStatus::InProgress, "{}", &task.id());
        }
        if !matches!(task.status(), TaskStatus::Failed | TaskStatus::Blocked) {
            prop_assert!(
                task.task().unwrap().failure_reason.is_none(),
                "{} keeps a reason",
                &task.id()
            );
        }
        prop_assert_eq!(
            task.status().is_done(),
            matches!(task.status(), TaskStatus::Completed | TaskStatus::Skipped)
        );
    }
    if let Some(current) = &state.current_task {
        prop_assert!(
            state.task(current).unwrap().is_some(),
            "current task {current} unknown"
        );
    }
    state.sync_progress();
    let ids = |s: TaskStatus| -> Vec<String> {
        state
            .tasks
            .iter()
            .filter(|t| t.status() == s)
            .map(|t| t.id().to_owned())
            .collect()
    };
    prop_assert_eq!(&state.progress.completed, &ids(TaskStatus::Completed));
    prop_assert_eq!(&state.progress.blocked, &ids(TaskStatus::Blocked));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// No sequence of legal task events reaches an inconsistent state.
    #[test]
    fn legal_task_events_keep_the_state_consistent(
        n in 1usize..5,
        steps in proptest::collection::vec((0usize..8, 0usize..8, 0u8..8), 0..80),
    ) {
        let mut state = state_with(n);
        let mut models = vec![Model::default(); n];
        for (seq, (which, pick, flags)) in steps.into_iter().enumerate() {
            let i = which % n;
            let from = models[i].status;
            let options = legal_from(from);
            prop_assert!(!options.is_empty(), "{from} is a dead end");
            let to = options[pick % options.len()];
            let id = format!("T{}", i + 1);
            let event = task_event(seq as u64 + 1, &id, from, to, flags);
            prop_assert!(apply_event(&mut state, &event).is_ok(), "{from} -> {to} refused");
            models[i].status = to;
            if to == TaskStatus::InProgress {
                models[i].attempts += 1;
            }
            if flags & 4 != 0 && to == TaskStatus::Pending {
                models[i].retries += 1;
            }
            check_consistent(&mut state, &models)?;
        }
    }

    /// Every illegal task move is refused by the table and by the fold, names both
    /// states, and changes nothing.
    #[test]
    fn illegal_task_events_are_refused_and_change_nothing(
        walk in proptest::collection::vec(0usize..8, 0..20),
        to_pick in 0usize..6,
        flags in 0u8..8,
    ) {
        let mut state = state_with(1);
        let mut from = TaskStatus::Pending;
        for (seq, pick) in walk.iter().enumerate() {
            let options = legal_from(from);
            let to = options[pick % options.len()];
            prop_assert!(apply_event(&mut state, &task_event(seq as u64 + 1, "T1", from, to, 0)).is_ok());
            from = to;
        }
        let to = TaskStatus::ALL[to_pick];
        prop_assume!(!from.can_move_to(to));
        let err = from.to(to, "T1").err();
        prop_assert!(err.is_some());
        let message = err.map(|e| e.message).unwrap_or_default();
        prop_assert!(message.contains(from.as_str()) && message.contains(to.as_str()), "{}", message);
        let before = observable(&state);
        let refused = apply_event(&mut state, &task_event(99, "T1", from, to, flags));
        prop_assert!(refused.is_err(), "fold accepted {from} -> {to}");
        prop_assert_eq!(observable(&state), before);
    }

    /// The workflow machine: legal walks are applied as the table says; illegal
    /// moves are refused and change nothing; a reason is kept only where it means
    /// something; completed_at is set on completion.
    #[test]
    fn workflow_events_follow_the_table(
        steps in proptest::collection::vec((0usize..8, any::<bool>()), 0..60),
    ) {
        let mut state = state_with(1);
        state.status = WorkflowStatus::Idle;
        for (seq, (pick, try_illegal)) in steps.into_iter().enumerate() {
            let from = state.status;
            let to = WorkflowStatus::ALL[pick];
            let event = workflow_event(seq as u64 + 1, from, to);
            if from.can_move_to(to) {
                let failed_before = state.failure_reason.is_some();
                prop_assert!(apply_event(&mut state, &event).is_ok());
                prop_assert_eq!(state.status, to);
                // A failure keeps its reason as failure_reason; a rest (paused,
                // blocked) keeps it as status_reason; an archive keeps the failure
                // it had and says why it was archived (abandoned or not); anything
                // else clears both.
                let archived = to == WorkflowStatus::Archived;
                prop_assert_eq!(
                    state.failure_reason.is_some(),
                    to == WorkflowStatus::Failed || (archived && failed_before)
                );
                let rests = matches!(to, WorkflowStatus::Blocked | WorkflowStatus::Paused);
                prop_assert_eq!(state.status_reason.is_some(), rests || archived);
                if to == WorkflowStatus::Completed {
                    prop_assert!(state.completed_at.is_some());
                }
            } else if try_illegal {
                let before = observable(&state);
                prop_assert!(apply_event(&mut state, &event).is_err(), "{from} -> {to} accepted");
                prop_assert_eq!(observable(&state), before);
            }
        }
    }
}

#[test]
fn every_task_status_is_reachable_and_none_is_a_dead_end() {
    let mut seen = vec![TaskStatus::Pending];
    let mut i = 0;
    while i < seen.len() {
        for to in legal_from(seen[i]) {
            if !seen.contains(&to) {
                seen.push(to);
            }
        }
        i += 1;
    }
    assert_eq!(seen.len(), TaskStatus::ALL.len(), "reachable: {seen:?}");
    for s in TaskStatus::ALL {
        assert!(!legal_from(s).is_empty(), "{s} is a dead end");
    }
    // A task only starts from pending: in_progress is never re-entered directly.
    for s in TaskStatus::ALL {
        assert_eq!(
            s.can_move_to(TaskStatus::InProgress),
            s == TaskStatus::Pending,
            "{s}"
        );
    }
}

#[test]
fn archived_is_final_and_idle_only_follows_planned() {
    for to in WorkflowStatus::ALL {
        assert!(
            !WorkflowStatus::Archived.can_move_to(to),
            "archived -> {to}"
        );
        if to == WorkflowStatus::Idle {
            for from in WorkflowStatus::ALL {
                assert_eq!(from.can_move_to(to), from == WorkflowStatus::Planned);
            }
        }
    }
}
