//! The workflow at a glance, without its whole state: what the editor's and the
//! agent's read paths (`wf status`, `wf next`, `wf hook`) show, computed once per
//! snapshot and kept beside it in `summary.json` (docs/state-file.md "The summary").
//!
//! A [`Digest`] is everything those paths take from the task list — counts, the
//! ready, failed, blocked and waiting tasks, the short task list, usage — and the
//! tasks it names are kept whole beside it, with the state's other fields. Both ways
//! of reading go through it: a reader with a current summary takes the digest from
//! the file; any other reader loads the whole state and computes the digest from it
//! (`Digest::of`), so the two cannot show different things.
//!
//! The summary is an index, never a source of truth. A writer replaces it after each
//! snapshot, naming the snapshot file it describes (device, inode, size,
//! modification time: every snapshot is a new file, renamed into place) and the
//! event-log mark that snapshot has. A reader uses it only when that file is
//! still the snapshot; when the log holds progress past the mark (a run going on, or
//! one that died), it folds that onto the task index written with it
//! (`state::task_index`). Anything else — no summary, a torn or unreadable one, one
//! of another version, a snapshot written by another tool, an index that cannot be
//! used — is the whole load, as before.

use crate::state::task_ref::TaskRef;
use std::collections::{BTreeSet, HashSet};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::state::index_file::Staged;
use crate::state::machine::TaskStatus;
use crate::state::model::{Glance, LogMark, Task, Usage, WorkflowState, SCHEMA_VERSION};
use crate::state::task_index;

pub const SUMMARY_FILE: &str = "summary.json";
/// The layout of `summary.json`; a reader ignores a file of any other.
pub const SUMMARY_VERSION: u32 = 1;
/// Ready tasks named (`wf status` shows five, `wf next` runs the first).
pub const READY_SHOWN: usize = 5;
/// Blocked, failed or unchecked tasks `wf status` lists before "… and N more".
pub const LIST_CAP: usize = 10;
/// How many tasks the task list under `wf status` shows before it is cut.
pub const SHORT_LIST: usize = 40;
/// Pending tasks `wf next` names when nothing is ready.
pub const WAITING_SHOWN: usize = 5;
/// Tasks the usage summary names as the most expensive.
pub const MOST_EXPENSIVE: usize = 5;
/// With more tasks than this in progress, failed or blocked, no summary is written:
/// its lists would no longer be small, and readers load the whole state.
pub const MAX_LISTED: usize = 1000;

/// How many tasks are in each status.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatusCounts {
    pub completed: usize,
    pub skipped: usize,
    pub failed: usize,
    pub blocked: usize,
    pub in_progress: usize,
    pub pending: usize,
}

impl StatusCounts {
    /// Counts one task in `status`.
    pub fn add(&mut self, status: TaskStatus) {
        *self.of(status) += 1;
    }

    /// Counts one task in `status` no more (it moved).
    pub fn remove(&mut self, status: TaskStatus) {
        let n = self.of(status);
        *n = n.saturating_sub(1);
    }

    fn of(&mut self, status: TaskStatus) -> &mut usize {
        match status {
            TaskStatus::Completed => &mut self.completed,
            TaskStatus::Skipped => &mut self.skipped,
            TaskStatus::Failed => &mut self.failed,
            TaskStatus::Blocked => &mut self.blocked,
            TaskStatus::InProgress => &mut self.in_progress,
            TaskStatus::Pending => &mut self.pending,
        }
    }
}

/// The reported usage: totals and the tasks that cost most.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageDigest {
    pub total: Usage,
    /// Tasks whose executors reported usage.
    pub tasks: usize,
    /// At most [`MOST_EXPENSIVE`], the most expensive first (by cost, then tokens),
    /// plan order among equals.
    pub most: Vec<(String, Usage)>,
}

/// The usage digest of the tasks that reported usage, given in plan order.
pub fn usage_digest(mut usage: Vec<(&str, Usage)>) -> Option<UsageDigest> {
    if usage.is_empty() {
        return None;
    }
    let mut total = UsageDigest {
        tasks: usage.len(),
        ..UsageDigest::default()
    };
    for (_, u) in &usage {
        total.total = total.total.plus(*u);
    }
    let key = |u: &Usage| (u.cost_usd.unwrap_or(0.0), u.tokens());
    // Stable: plan order among equals.
    usage.sort_by(|(_, a), (_, b)| {
        let (ca, ta) = key(a);
        let (cb, tb) = key(b);
        cb.total_cmp(&ca).then(tb.cmp(&ta))
    });
    total.most = usage
        .into_iter()
        .take(MOST_EXPENSIVE)
        .map(|(id, u)| (id.to_string(), u))
        .collect();
    Some(total)
}

/// What the read paths take from the task list. Ids are in plan order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Digest {
    pub total: usize,
    pub counts: StatusCounts,
    /// Every task in progress.
    pub in_progress: Vec<String>,
    /// The first task in progress that was handed off to an agent.
    pub handed_off: Option<String>,
    /// Every failed task.
    pub failed: Vec<String>,
    /// Every task in progress, failed or blocked: the ones the task list always shows.
    pub urgent: Vec<String>,
    /// The first [`LIST_CAP`] tasks blocked, or held by a blocker and not done.
    pub blocked: Vec<String>,
    pub blocked_count: usize,
    /// The first [`LIST_CAP`] tasks completed with nothing that checked them.
    pub unchecked: Vec<String>,
    pub unchecked_count: usize,
    /// The first [`READY_SHOWN`] ready tasks (`state::ready`).
    pub ready: Vec<String>,
    pub ready_count: usize,
    /// The blocker kinds holding tasks that are not done (`blocked` for a blocked
    /// task without kinds).
    pub blocker_kinds: BTreeSet<String>,
    /// The first [`WAITING_SHOWN`] pending tasks, each with its dependencies that are
    /// not done.
    pub waiting: Vec<(String, Vec<String>)>,
    /// The first [`SHORT_LIST`] pending tasks.
    pub pending: Vec<String>,
    pub usage: Option<UsageDigest>,
}

impl Digest {
    /// The digest of a whole state: one pass over the tasks, plus the ready test.
    pub fn of(state: &WorkflowState) -> Digest {
        Digest::of_tasks::<TaskRef>(&state.tasks)
    }

    /// The digest of `tasks`, in plan order.
    pub fn of_tasks<G: Glance>(tasks: &[impl std::borrow::Borrow<G>]) -> Digest {
        // foldhash, not std's SipHash: every snapshot's summary and every read
        // path's fold builds this over all the tasks. The done ones only: a fresh
        // import's summary holds none, and every task's status would add to its
        // peak memory.
        let done_ids: HashSet<&str, foldhash::fast::RandomState> = tasks
            .iter()
            .map(std::borrow::Borrow::<G>::borrow)
            .filter(|t| t.status().is_done())
            .map(Glance::id)
            .collect();
        let done = |id: &str| done_ids.contains(id);
        let mut d = Digest {
            total: tasks.len(),
            ..Digest::default()
        };
        let mut usage: Vec<(&str, Usage)> = Vec::new();
        for t in tasks {
            let t: &G = t.borrow();
            let id = || t.id().to_string();
            let status = t.status();
            d.counts.add(status);
            match status {
                TaskStatus::InProgress => {
                    d.in_progress.push(id());
                    if d.handed_off.is_none() && t.handed_off() {
                        d.handed_off = Some(id());
                    }
                }
                TaskStatus::Failed => d.failed.push(id()),
                TaskStatus::Pending => {
                    if d.pending.len() < SHORT_LIST {
                        d.pending.push(id());
                    }
                    if d.waiting.len() < WAITING_SHOWN {
                        let open = t.deps().filter(|x| !done(x)).map(str::to_owned).collect();
                        d.waiting.push((id(), open));
                    }
                }
                _ => {}
            }
            if matches!(
                status,
                TaskStatus::InProgress | TaskStatus::Failed | TaskStatus::Blocked
            ) {
                d.urgent.push(id());
            }
            if status == TaskStatus::Blocked || (!t.blocked_by().is_empty() && !status.is_done()) {
                d.blocked_count += 1;
                if d.blocked.len() < LIST_CAP {
                    d.blocked.push(id());
                }
            }
            if !status.is_done() {
                if status == TaskStatus::Blocked && t.blocked_by().is_empty() {
                    d.blocker_kinds.insert("blocked".into());
                }
                d.blocker_kinds.extend(t.blocked_by().map(str::to_owned));
            }
            if t.accepted_unchecked() && status == TaskStatus::Completed {
                d.unchecked_count += 1;
                if d.unchecked.len() < LIST_CAP {
                    d.unchecked.push(id());
                }
            }
            if crate::state::ready::is_ready(t, done) {
                d.ready_count += 1;
                if d.ready.len() < READY_SHOWN {
                    d.ready.push(id());
                }
            }
            if let Some(u) = t.usage() {
                usage.push((t.id(), u));
            }
        }
        d.usage = usage_digest(usage);
        d
    }

    /// Completed or skipped.
    pub fn done(&self) -> usize {
        self.counts.completed + self.counts.skipped
    }

    /// Every task the digest names, and the state's current task: the tasks a reader
    /// of the summary gets whole. With few tasks, all of them (the task list shows
    /// every task then).
    pub fn named(&self, state: &WorkflowState) -> BTreeSet<String> {
        self.named_among::<TaskRef>(&state.tasks, state.current_task.as_deref())
    }

    /// [`Digest::named`] for the digest of `tasks`, with `current` the current task.
    pub fn named_among<G: Glance>(
        &self,
        tasks: &[impl std::borrow::Borrow<G>],
        current: Option<&str>,
    ) -> BTreeSet<String> {
        if self.total <= SHORT_LIST {
            return tasks.iter().map(|t| t.borrow().id().to_string()).collect();
        }
        let mut ids: BTreeSet<String> = BTreeSet::new();
        let lists = [
            &self.in_progress,
            &self.failed,
            &self.urgent,
            &self.blocked,
            &self.unchecked,
            &self.ready,
            &self.pending,
        ];
        for list in lists {
            ids.extend(list.iter().cloned());
        }
        ids.extend(self.waiting.iter().map(|(id, _)| id.clone()));
        ids.extend(self.handed_off.iter().cloned());
        ids.extend(current.map(str::to_string));
        if let Some(u) = &self.usage {
            ids.extend(u.most.iter().map(|(id, _)| id.clone()));
        }
        ids
    }
}

/// A state to read from and its digest. From a current summary, `state` holds the
/// tasks the digest names and the state's other fields, except the per-task maps and
/// lists the read paths do not show (`progress`, `skipped_info`, `quality_gates`,
/// `phase_baselines`),
/// and, for a task completed in a log tail folded onto the task index, its proof;
/// otherwise it is the whole state.
#[derive(Debug)]
pub struct View {
    pub state: WorkflowState,
    pub digest: Digest,
}

impl View {
    /// The view of a whole state.
    pub fn whole(state: WorkflowState) -> View {
        let digest = Digest::of(&state);
        View { state, digest }
    }
}

/// Which file a summary describes: a snapshot is never rewritten in place, so a new
/// one is another inode (and, to be sure, size and time are compared too).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileId {
    pub dev: u64,
    pub ino: u64,
    pub len: u64,
    pub mtime: i64,
    pub mtime_ns: i64,
}

impl FileId {
    pub fn of(meta: &std::fs::Metadata) -> FileId {
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            len: meta.len(),
            mtime: meta.mtime(),
            mtime_ns: meta.mtime_nsec(),
        }
    }

    /// The identity of the file at `path`, if it is a regular file (a link is not
    /// followed).
    pub fn at(path: &Path) -> Option<FileId> {
        let meta = std::fs::symlink_metadata(path).ok()?;
        meta.file_type().is_file().then(|| FileId::of(&meta))
    }
}

#[derive(Serialize)]
struct SummaryOut<'a, T: Serialize> {
    summary_version: u32,
    snapshot: FileId,
    event_log: LogMark,
    digest: &'a Digest,
    state: &'a WorkflowState,
    tasks: &'a [T],
}

#[derive(Deserialize)]
struct SummaryIn {
    summary_version: u32,
    snapshot: FileId,
    event_log: LogMark,
    digest: Digest,
    state: WorkflowState,
    tasks: Vec<TaskRef>,
}

/// Removes the summary and the task index: done before a snapshot is written, so a
/// writer stopped between the two leaves none rather than one that a check would
/// have to catch.
pub fn remove(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(SUMMARY_FILE));
    let _ = std::fs::remove_file(dir.join(task_index::INDEX_FILE));
}

/// Writes the summary of `state`, about to be saved as the snapshot `snapshot` with
/// its task records at `spans`, and the task index beside it, to temp files beside
/// their places: they are written while the snapshot syncs, and put in place once it
/// is (`Staged::place`). Best effort and not synced: they are indexes that readers
/// check against the snapshot, so a missing or torn one only sends them to the whole
/// load. (Their writes are not fault points of `WF_TEST_FAULT`: the state's durable
/// writes keep their numbers.)
pub fn stage(
    dir: &Path,
    snapshot: FileId,
    state: &mut WorkflowState,
    spans: &[[u64; 2]],
) -> Staged {
    let mut staged = Staged::new(dir);
    let Some(mark) = state.event_log else {
        return staged;
    };
    // A plugin state nobody adopted has no tasks to summarise, and the read paths
    // have to say why: they load it whole.
    if state.tasks.is_empty() || state.unadopted.is_some() {
        return staged;
    }
    let digest = Digest::of(state);
    // `urgent` holds every task in progress, failed or blocked.
    if digest.urgent.len() > MAX_LISTED {
        return staged;
    }
    task_index::stage(&mut staged, snapshot, mark, state, spans);
    let at = named_positions(&digest, state);
    let tasks = std::mem::take(&mut state.tasks);
    // A named task whose record no longer reads leaves no summary: the read paths
    // load the whole state, and say what is wrong in it.
    let named: crate::error::Result<Vec<&Task>> = at.iter().map(|&i| tasks[i].task()).collect();
    if let Ok(named) = named {
        staged.add(SUMMARY_FILE, |w| {
            write(w, snapshot, mark, &digest, state, &named)
        });
    }
    state.tasks = tasks;
    staged
}

/// The positions of the tasks `digest` names in `state`, in plan order.
pub(crate) fn named_positions(digest: &Digest, state: &WorkflowState) -> Vec<usize> {
    // By position: looking every task's id up in the set of names compared strings
    // several times a task.
    let names = digest.named(state);
    let mut named: Vec<usize> =
        state.with_positions(|position| names.iter().filter_map(|id| position(id)).collect());
    named.sort_unstable();
    named
}

/// Writes a summary whose digest is `digest`, as of the snapshot `snapshot` and the
/// log mark `mark`: the digest, the tasks it names whole (`named`, in plan order),
/// and the other fields of `fields` (whose own tasks are not written).
pub(crate) fn write<T: Serialize>(
    w: &mut dyn std::io::Write,
    snapshot: FileId,
    mark: LogMark,
    digest: &Digest,
    fields: &mut WorkflowState,
    named: &[T],
) -> serde_json::Result<()> {
    let event_log = fields.event_log.replace(mark);
    let written = without_per_task_parts(fields, |fields| {
        let out = SummaryOut {
            summary_version: SUMMARY_VERSION,
            snapshot,
            event_log: mark,
            digest,
            state: fields,
            tasks: named,
        };
        serde_json::to_writer(w, &out)
    });
    fields.event_log = event_log;
    written
}

/// `f` of `state` with its tasks and the per-task maps a summary leaves out taken
/// out, and put back after: the summary holds the named tasks only, and no copy of
/// the rest is made.
pub(crate) fn without_per_task_parts<R>(
    state: &mut WorkflowState,
    f: impl FnOnce(&mut WorkflowState) -> R,
) -> R {
    let tasks = std::mem::take(&mut state.tasks);
    let progress = std::mem::take(&mut state.progress);
    let skipped = std::mem::take(&mut state.skipped_info);
    let gates = std::mem::take(&mut state.quality_gates);
    let baselines = std::mem::take(&mut state.phase_baselines);
    let out = f(state);
    state.tasks = tasks;
    state.progress = progress;
    state.skipped_info = skipped;
    state.quality_gates = gates;
    state.phase_baselines = baselines;
    out
}

/// A summary read from `bytes` if it can be trusted to describe the snapshot at
/// `state_path` as of its log mark: its layout, its schema, the file it names.
fn trusted(bytes: &[u8], state_path: &Path) -> Option<SummaryIn> {
    let file: SummaryIn = serde_json::from_slice(bytes).ok()?;
    if file.summary_version != SUMMARY_VERSION || file.state.wf_schema > SCHEMA_VERSION {
        return None;
    }
    if FileId::at(state_path) != Some(file.snapshot) {
        return None;
    }
    if file.state.event_log != Some(file.event_log) {
        return None;
    }
    Some(file)
}

impl SummaryIn {
    fn into_view(self) -> View {
        let mut state = self.state;
        state.tasks = self.tasks;
        View {
            state,
            digest: self.digest,
        }
    }
}

/// The view from a summary written after the snapshot `state_path` (`state::glance`)
/// at a log mark it returns with it, if it can be trusted as [`read`] trusts one.
pub(crate) fn read_later(bytes: &[u8], state_path: &Path) -> Option<(LogMark, View)> {
    let file = trusted(bytes, state_path)?;
    Some((file.event_log, file.into_view()))
}

/// The view from a current summary, or `None` when there is none to trust (the
/// caller then loads the whole state, which also reports what is wrong, if anything).
pub fn read(dir: &Path, state_path: &Path, events_path: &Path) -> Option<View> {
    if crate::testing::summary_off() {
        return None;
    }
    if let Some(view) = crate::state::glance::read(dir, state_path, events_path) {
        return Some(view);
    }
    let bytes = crate::fs::read_regular(&dir.join(SUMMARY_FILE)).ok()?;
    let file = trusted(&bytes, state_path)?;
    // What the whole load would fold past the snapshot's mark, read once: nothing
    // (the log ends there, or holds only notes and uncommitted transactions), and the
    // summary is the answer; else the task index takes it.
    match task_index::fold_tail(
        dir,
        state_path,
        events_path,
        &file.state,
        file.snapshot,
        file.event_log,
    ) {
        task_index::Tail::Empty => {}
        task_index::Tail::Folded(mut view, end) => {
            // The next reader takes it as it is, unless the log moves on.
            crate::state::glance::write_back(dir, file.snapshot, end, &mut view);
            return Some(*view);
        }
        task_index::Tail::Unsure => return None,
    }
    Some(file.into_view())
}
