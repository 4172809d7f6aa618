//! The fold of a log tail onto the task index ([`fold_tail`]): the read paths' way
//! past a summary that no longer describes the workflow (the parent module says
//! when it is taken, and why it is never a source of truth).

use std::cell::OnceCell;
use std::collections::HashMap;
use std::path::Path;

use super::{read_index, Entry};
use crate::state::event::EventData;
use crate::state::event_log::{Event, EventLine};
use crate::state::fold::{apply_event, folds};
use crate::state::model::{current_of, Glance, LogMark, Task, WorkflowState};
use crate::state::summary::{Digest, FileId, View};
use crate::state::task_ref::TaskRef;

/// What the log past the summary's mark makes of the summary.
pub enum Tail {
    /// Nothing the whole load would fold: the summary is the workflow.
    Empty,
    /// The workflow with the tail folded on, as of the log mark given: the last
    /// whole line's.
    Folded(Box<View>, LogMark),
    /// The index cannot be trusted, or a line must be seen whole: load the state.
    Unsure,
}

/// The view of the snapshot `snapshot` (whose other fields are `state`, from the
/// summary, with log mark `mark`) with the log past the mark folded on, in one scan of
/// the log: every line is read in place for its place, kind and task, and only the
/// state-changing ones are built (without their proof) and folded as they are read —
/// half a run's events are notes, and most of the rest carry a proof no read path
/// shows. Each folded line names a task that is built from its entry the first time;
/// the index is read only when a line needs it.
pub fn fold_tail(
    dir: &Path,
    state_path: &Path,
    events_path: &Path,
    state: &WorkflowState,
    snapshot: FileId,
    mark: LogMark,
) -> Tail {
    let index = OnceCell::new();
    let mut light = state.clone();
    light.tasks = Vec::new();
    let mut fold = Fold {
        index: &index,
        index_of: (dir, snapshot, mark),
        position: OnceCell::new(),
        light,
        moved: Vec::new(),
        is_moved: Vec::new(),
        own_events: Vec::new(),
        folded: 0,
    };
    // The last whole line's seq and the offset past it: where the view stands.
    let mut end = mark;
    let scanned = crate::state::event_log::for_each_parsed_from(
        events_path,
        mark.offset,
        |offset, line| {
            let head = EventLine::parse(line)?;
            let past = LogMark {
                seq: head.seq,
                offset: offset + line.len() as u64 + 1,
            };
            let folded = head.seq > mark.seq && folds(&head.kind, head.txn);
            Ok((
                past,
                folded.then(|| (offset, line.len(), head.into_event())),
            ))
        },
        |(past, line)| {
            end = past;
            match line {
                Some((offset, len, event)) => fold.apply(offset, len, &event),
                None => Ok(()),
            }
        },
    );
    if scanned.is_err() {
        return Tail::Unsure;
    }
    if fold.folded == 0 {
        return Tail::Empty;
    }
    let Fold {
        position,
        mut light,
        moved,
        own_events,
        ..
    } = fold;
    drop(position);
    let Some(mut entries) = index.into_inner().flatten() else {
        return Tail::Unsure;
    };
    match view_of(
        state_path,
        events_path,
        state,
        snapshot,
        &mut entries,
        &mut light,
        &moved,
        &own_events,
    ) {
        Some(view) => Tail::Folded(Box::new(view), end),
        None => Tail::Unsure,
    }
}

/// A doubt that sends the reader to the whole load (which says what, if anything, is
/// wrong); never shown.
fn unsure() -> crate::error::WfError {
    crate::error::WfError::new(crate::error::ErrorKind::CorruptState, "unsure")
}

/// The fold of the tail as it is read.
struct Fold<'i> {
    /// The index, read at the first event to fold (`None`: it cannot be used), from
    /// the workflow dir, for the snapshot and mark, of `index_of`.
    index: &'i OnceCell<Option<Vec<Entry>>>,
    index_of: (&'i Path, FileId, LogMark),
    position: OnceCell<HashMap<&'i str, usize, foldhash::fast::RandomState>>,
    /// The state from the summary, holding only the tasks the tail moves.
    light: WorkflowState,
    /// For each of `light.tasks`, its entry.
    moved: Vec<usize>,
    is_moved: Vec<bool>,
    /// Where the task-level events of each moved task are in the log (entry, offset,
    /// length, seq), to fold them again onto the records the digest names.
    own_events: Vec<(usize, u64, usize, u64)>,
    folded: usize,
}

impl Fold<'_> {
    fn apply(&mut self, offset: u64, len: usize, event: &Event) -> crate::error::Result<()> {
        let (dir, snapshot, mark) = self.index_of;
        let entries = self
            .index
            .get_or_init(|| read_index(dir, snapshot, mark).map(|(_, entries)| entries))
            .as_ref()
            .ok_or_else(unsure)?;
        if let Some(id) = event.task_id.as_deref() {
            let position = self.position.get_or_init(|| {
                entries
                    .iter()
                    .enumerate()
                    .map(|(i, e)| (e.id(), i))
                    .collect()
            });
            let i = *position.get(id).ok_or_else(unsure)?;
            if self.is_moved.is_empty() {
                self.is_moved = vec![false; entries.len()];
            }
            if !self.is_moved[i] {
                self.is_moved[i] = true;
                self.moved.push(i);
                self.light.tasks.push(TaskRef::new(entries[i].task()));
            }
            if is_of_task(event) {
                self.own_events.push((i, offset, len, event.seq));
            }
        }
        apply_event(&mut self.light, event).map_err(|_| unsure())?;
        self.folded += 1;
        Ok(())
    }
}

/// The digest from the entries with the fold written back, and the tasks it names
/// whole: their records from the snapshot, with their own events folded on again.
#[allow(clippy::too_many_arguments)]
fn view_of(
    state_path: &Path,
    events_path: &Path,
    state: &WorkflowState,
    snapshot: FileId,
    entries: &mut [Entry],
    light: &mut WorkflowState,
    moved: &[usize],
    own_events: &[(usize, u64, usize, u64)],
) -> Option<View> {
    // The file read from is the one the index describes: a snapshot is never
    // rewritten in place, so a newer one renamed over it since is another inode.
    let file = crate::fs::open_regular(state_path, false).ok()?;
    if FileId::of(&file.metadata().ok()?) != snapshot {
        return None;
    }
    for (&i, task) in moved.iter().zip(&light.tasks) {
        // Built whole from its entry (`Fold::apply`): there is no record to fail.
        entries[i].take_fold(task.task().ok()?);
    }
    light.current_tasks = current_of::<Entry>(entries);
    light.current_task = light.current_tasks.first().cloned();
    let digest = Digest::of_tasks::<Entry>(entries);
    let named = digest.named_among::<Entry>(entries, light.current_task.as_deref());
    // The state's own fields come from the fold of every event above.
    let mut whole = state.clone();
    whole.tasks = Vec::with_capacity(named.len());
    let mut is_named = vec![false; entries.len()];
    for (i, entry) in entries.iter().enumerate() {
        if !named.contains(entry.id()) {
            continue;
        }
        is_named[i] = true;
        let [start, end] = entry.span.bounds();
        let record = crate::fs::read_span(file.file(), start, end)?;
        let task: Task = serde_json::from_slice(&record).ok()?;
        if task.id != entry.id() {
            return None;
        }
        whole.tasks.push(TaskRef::new(task));
    }
    // Opened only when a named task has events of its own to fold again.
    let log = OnceCell::new();
    for &(i, offset, len, seq) in own_events {
        if !is_named[i] {
            continue;
        }
        let log = log
            .get_or_init(|| crate::fs::open_regular(events_path, false).ok())
            .as_ref()?;
        let line = crate::fs::read_span(log.file(), offset, offset + len as u64)?;
        let event = EventLine::parse(&line).ok()?.into_event();
        if event.seq != seq {
            return None;
        }
        apply_event(&mut whole, &event).ok()?;
    }
    light.tasks = whole.tasks;
    Some(View {
        state: std::mem::take(light),
        digest,
    })
}

/// Events that change one task's own fields (the rest change the state's).
fn is_of_task(event: &Event) -> bool {
    matches!(
        event.data,
        EventData::TaskStatusChanged(_) | EventData::TaskVerified(_)
    )
}
