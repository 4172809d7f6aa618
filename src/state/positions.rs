//! Where each task is in a workflow's `tasks`, by id: a cache every hit of which is
//! checked against the tasks, so a replaced or reordered list never answers wrong.

use crate::state::model::Glance as _;
use crate::state::task_ref::TaskRef;

/// A cache of task positions. Every hit is checked against `tasks`; a miss first
/// indexes the tasks appended since the last look (a state built a task at a time
/// pays O(1) per task), then rebuilds it, so replacing or reordering `tasks` can never
/// return a wrong task.
#[derive(Default)]
pub(super) struct TaskIndex(std::sync::Mutex<Positions>);

/// Positions in `tasks`, hashed by the id of the task at each: the ids are the
/// tasks' own, not copies, which a first `resume --step` after a crash would
/// otherwise make of every id.
#[derive(Default)]
pub(super) struct Positions {
    at: hashbrown::HashTable<usize>,
    // foldhash, not std's SipHash: ids come from the user's own plan, and the lookups
    // are on every read path's fold.
    hasher: foldhash::fast::RandomState,
    /// How many of `tasks` (from the front) `at` has seen.
    seen: usize,
    /// How many times every task was indexed again, for the tests.
    pub(super) rebuilds: usize,
}

/// An id's hash in [`Positions`].
fn id_hash(hasher: &foldhash::fast::RandomState, id: &str) -> u64 {
    std::hash::BuildHasher::hash_one(hasher, id)
}

impl Positions {
    pub(super) fn find(&self, tasks: &[TaskRef], id: &str) -> Option<usize> {
        let hash = id_hash(&self.hasher, id);
        let is = |&i: &usize| tasks.get(i).is_some_and(|t| t.id() == id);
        self.at.find(hash, is).copied()
    }

    /// Indexes `tasks[from..]`. A position whose task has changed since it was
    /// indexed is rehashed as whatever is there now: at worst a lookup misses and
    /// rebuilds.
    fn add(&mut self, tasks: &[TaskRef], from: usize) {
        let hasher = &self.hasher;
        let hash_at = |&i: &usize| tasks.get(i).map_or(0, |t| id_hash(hasher, t.id()));
        self.at.reserve(tasks.len().saturating_sub(from), hash_at);
        for (i, task) in tasks.iter().enumerate().skip(from) {
            self.at
                .insert_unique(id_hash(hasher, task.id()), i, hash_at);
        }
        self.seen = tasks.len();
    }

    /// Indexes what `tasks` gained since the last look, or all of it again when the
    /// tasks seen are not where they were.
    pub(super) fn position(&mut self, tasks: &[TaskRef], id: &str) -> Option<usize> {
        if let Some(i) = self.find(tasks, id) {
            return Some(i);
        }
        if self.seen < tasks.len() {
            self.add(tasks, self.seen);
            if let Some(i) = self.find(tasks, id) {
                return Some(i);
            }
        }
        self.at.clear();
        self.rebuilds += 1;
        self.add(tasks, 0);
        self.find(tasks, id)
    }
}

impl TaskIndex {
    pub(super) fn position(&self, tasks: &[TaskRef], id: &str) -> Option<usize> {
        self.lock().position(tasks, id)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Positions> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Clone for TaskIndex {
    fn clone(&self) -> Self {
        TaskIndex::default()
    }
}

impl PartialEq for TaskIndex {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for TaskIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TaskIndex")
    }
}
