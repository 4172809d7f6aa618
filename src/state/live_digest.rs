//! The read paths' digest (`summary::Digest`) kept current as a writer's tasks move,
//! so a run can write it after every turn (`state::glance`) without a pass over
//! every task: each task's place in the digest's lists is remembered, and a move
//! looks again only at the task that moved and, when it became done or stopped
//! being done, at the tasks that depend on it.
//!
//! [`LiveDigest::digest`] gives what [`Digest::of`] gives of the same state; the
//! tests compare the two after random moves.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::state::machine::TaskStatus;
use crate::state::model::{Glance, Usage, WorkflowState};
use crate::state::summary::{
    usage_digest, Digest, StatusCounts, LIST_CAP, READY_SHOWN, SHORT_LIST, WAITING_SHOWN,
};

/// The digest's lists of tasks, each a bit of [`LiveDigest::member`].
const IN_PROGRESS: usize = 0;
const FAILED: usize = 1;
const PENDING: usize = 2;
/// In progress, failed or blocked.
const URGENT: usize = 3;
/// Blocked, or held by a blocker and not done.
const BLOCKED: usize = 4;
/// Completed with nothing that checked it.
const UNCHECKED: usize = 5;
const READY: usize = 6;
const LISTS: usize = 7;

/// The digest of a writer's state, by task position.
#[derive(Debug)]
pub struct LiveDigest {
    /// Each task's status and whether it was done, as last looked at.
    status: Vec<TaskStatus>,
    /// Which lists each task is in (bit `i`: list `i`), as last looked at.
    member: Vec<u8>,
    /// The positions in each list, in plan order.
    lists: [BTreeSet<usize>; LISTS],
    counts: StatusCounts,
    /// The blocker kinds of the tasks not done, each with how many tasks it holds.
    kinds: BTreeMap<String, usize>,
    /// The kinds each task adds to `kinds`, for the tasks that add any.
    kinds_of: HashMap<usize, Vec<String>>,
    /// The usage each task reported, for those that did.
    usage: BTreeMap<usize, Usage>,
    /// The positions of the tasks that depend on each task.
    dependents: Vec<Vec<usize>>,
}

impl LiveDigest {
    /// The digest of `state` as it stands: one pass over its tasks.
    pub fn new(state: &WorkflowState) -> LiveDigest {
        let n = state.tasks.len();
        let mut live = LiveDigest {
            status: state.tasks.iter().map(Glance::status).collect(),
            member: vec![0; n],
            lists: Default::default(),
            counts: StatusCounts::default(),
            kinds: BTreeMap::new(),
            kinds_of: HashMap::new(),
            usage: BTreeMap::new(),
            dependents: vec![Vec::new(); n],
        };
        state.with_positions(|position| {
            for (i, t) in state.tasks.iter().enumerate() {
                for dep in t.deps() {
                    if let Some(d) = position(dep) {
                        live.dependents[d].push(i);
                    }
                }
            }
            for &status in &live.status {
                live.counts.add(status);
            }
            for i in 0..n {
                live.place(state, i, position);
            }
        });
        live
    }

    /// How many tasks it was made for: a state with another number is digested anew.
    pub fn total(&self) -> usize {
        self.status.len()
    }

    /// Looks again at the tasks at `moved` (each after its change) and at what
    /// depends on those whose doneness changed.
    pub fn update(&mut self, state: &WorkflowState, moved: &[usize]) {
        let mut again: BTreeSet<usize> = BTreeSet::new();
        for &i in moved {
            let Some(t) = state.tasks.get(i) else {
                continue;
            };
            let (was, now) = (self.status[i], t.status());
            if was != now {
                self.counts.remove(was);
                self.counts.add(now);
                self.status[i] = now;
                if was.is_done() != now.is_done() {
                    again.extend(&self.dependents[i]);
                }
            }
            again.insert(i);
        }
        state.with_positions(|position| {
            for i in again {
                self.place(state, i, position);
            }
        });
    }

    /// Puts the task at `i` in the lists it belongs to now, and out of the others.
    fn place(
        &mut self,
        state: &WorkflowState,
        i: usize,
        position: &mut dyn FnMut(&str) -> Option<usize>,
    ) {
        let t = &state.tasks[i];
        let status = self.status[i];
        let done = status.is_done();
        let blocked_by = t.blocked_by();
        let statuses = &self.status;
        let dep_done = |d: &str| position(d).is_some_and(|p| statuses[p].is_done());
        let in_list = [
            status == TaskStatus::InProgress,
            status == TaskStatus::Failed,
            status == TaskStatus::Pending,
            matches!(
                status,
                TaskStatus::InProgress | TaskStatus::Failed | TaskStatus::Blocked
            ),
            status == TaskStatus::Blocked || (!blocked_by.is_empty() && !done),
            t.accepted_unchecked() && status == TaskStatus::Completed,
            crate::state::ready::is_ready(t, dep_done),
        ];
        let mut member = 0u8;
        for (list, &is_in) in in_list.iter().enumerate() {
            let bit = 1u8 << list;
            if is_in {
                member |= bit;
            }
            match (self.member[i] & bit != 0, is_in) {
                (false, true) => {
                    self.lists[list].insert(i);
                }
                (true, false) => {
                    self.lists[list].remove(&i);
                }
                _ => {}
            }
        }
        self.member[i] = member;
        let mut kinds: Vec<String> = Vec::new();
        if !done {
            if status == TaskStatus::Blocked && blocked_by.is_empty() {
                kinds.push("blocked".into());
            }
            kinds.extend(blocked_by.map(str::to_owned));
        }
        self.set_kinds(i, kinds);
        match t.usage() {
            Some(u) => self.usage.insert(i, u),
            None => self.usage.remove(&i),
        };
    }

    fn set_kinds(&mut self, i: usize, kinds: Vec<String>) {
        for kind in self.kinds_of.remove(&i).unwrap_or_default() {
            if let Some(n) = self.kinds.get_mut(&kind) {
                *n -= 1;
                if *n == 0 {
                    self.kinds.remove(&kind);
                }
            }
        }
        if kinds.is_empty() {
            return;
        }
        for kind in &kinds {
            *self.kinds.entry(kind.clone()).or_insert(0) += 1;
        }
        self.kinds_of.insert(i, kinds);
    }

    /// The digest, as [`Digest::of`] gives it for `state` (the state it follows).
    pub fn digest(&self, state: &WorkflowState) -> Digest {
        let id = |i: &usize| state.tasks[*i].id().to_string();
        let first = |list: usize, n: usize| self.lists[list].iter().take(n).map(id).collect();
        let waiting = self.lists[PENDING]
            .iter()
            .take(WAITING_SHOWN)
            .map(|i| {
                let open = state.with_positions(|position| {
                    state.tasks[*i]
                        .deps()
                        .filter(|d| !position(d).is_some_and(|p| self.status[p].is_done()))
                        .map(str::to_owned)
                        .collect()
                });
                (id(i), open)
            })
            .collect();
        Digest {
            total: self.total(),
            counts: self.counts,
            in_progress: first(IN_PROGRESS, usize::MAX),
            handed_off: self.lists[IN_PROGRESS]
                .iter()
                .find(|&&i| state.tasks[i].handed_off())
                .map(id),
            failed: first(FAILED, usize::MAX),
            urgent: first(URGENT, usize::MAX),
            blocked: first(BLOCKED, LIST_CAP),
            blocked_count: self.lists[BLOCKED].len(),
            unchecked: first(UNCHECKED, LIST_CAP),
            unchecked_count: self.lists[UNCHECKED].len(),
            ready: first(READY, READY_SHOWN),
            ready_count: self.lists[READY].len(),
            blocker_kinds: self.kinds.keys().cloned().collect(),
            waiting,
            pending: first(PENDING, SHORT_LIST),
            usage: usage_digest(
                self.usage
                    .iter()
                    .map(|(&i, &u)| (state.tasks[i].id(), u))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Task;
    use crate::state::summary::Digest;
    use crate::state::task_ref::TaskRef;
    use proptest::prelude::*;

    const STATUSES: [TaskStatus; 6] = [
        TaskStatus::Pending,
        TaskStatus::InProgress,
        TaskStatus::Completed,
        TaskStatus::Skipped,
        TaskStatus::Failed,
        TaskStatus::Blocked,
    ];

    /// A task's id, deps (some on a task the plan lacks) and blockers.
    fn plan(n: usize, seeds: &[u8]) -> WorkflowState {
        let mut state = WorkflowState::new();
        state.tasks = (0..n)
            .map(|i| {
                let seed = seeds[i % seeds.len()] as usize;
                let mut deps: Vec<String> = (0..seed % 3)
                    .map(|k| format!("T{}", (i + k * 7 + seed) % (n + 2)))
                    .filter(|d| *d != format!("T{i}"))
                    .collect();
                deps.dedup();
                Task {
                    id: format!("T{i}"),
                    deps,
                    blocked_by: if seed.is_multiple_of(7) {
                        vec!["api".into()]
                    } else {
                        vec![]
                    },
                    ..Task::default()
                }
            })
            .map(TaskRef::new)
            .collect();
        state
    }

    /// One change to task `i`, as the fold or a writer may make it.
    fn change(task: &mut Task, what: u8) {
        match what % 5 {
            0 | 1 => task.status = STATUSES[(what / 5) as usize % STATUSES.len()],
            2 => task.accepted_unchecked = !task.accepted_unchecked,
            3 => {
                task.blocked_by = match what % 3 {
                    0 => vec![],
                    1 => vec!["api".into()],
                    _ => vec!["api".into(), "review".into()],
                }
            }
            _ => {
                task.usage = what.is_multiple_of(2).then(|| Usage {
                    input_tokens: u64::from(what),
                    cost_usd: (!what.is_multiple_of(3)).then_some(f64::from(what % 4) / 10.0),
                    ..Usage::default()
                });
                task.handed_off = what.is_multiple_of(3).then_some(true);
            }
        }
    }

    proptest! {
        #[test]
        fn kept_current_it_is_the_digest_of_the_state(
            n in 1usize..30,
            seeds in proptest::collection::vec(any::<u8>(), 1..8),
            moves in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<bool>()), 0..60),
        ) {
            let mut state = plan(n, &seeds);
            let mut live = LiveDigest::new(&state);
            prop_assert_eq!(live.digest(&state), Digest::of(&state));
            let mut moved = Vec::new();
            for (at, what, batch) in moves {
                let i = at % n;
                let id = state.tasks[i].id().to_string();
                change(state.task_mut(&id).unwrap().unwrap(), what);
                moved.push(i);
                // Several moves at once, as a turn's events are.
                if !batch {
                    live.update(&state, &moved);
                    moved.clear();
                    prop_assert_eq!(live.digest(&state), Digest::of(&state));
                }
            }
            live.update(&state, &moved);
            prop_assert_eq!(live.digest(&state), Digest::of(&state));
        }
    }
}
