//! `glance.json`: the summary kept current between snapshots, so the read paths
//! (`wf status`, `wf next`, `wf hook`) are as fast while a run goes on, or after it
//! died, as just after a snapshot (docs/state-file.md "The glance").
//!
//! Without it, a reader past the snapshot folds the log's tail onto the task index
//! (`state::task_index`): after a run was killed, up to a checkpoint's worth of
//! progress to fold and every task's entry to read. A run's scheduler instead keeps
//! the digest current as its tasks move (`state::live_digest`) and, with a turn's
//! events, writes the summary of the state as it stands at the log's end, at most
//! every [`EVERY`]. A reader whose log holds nothing to fold past that mark takes it
//! as it is; one that folds a tail with no writer running leaves its view as the
//! glance ([`write_back`]).
//!
//! Like the summary, it is never a source of truth. It is written in place, after a
//! header naming the wf that wrote it, its length and a hash of it, so a write torn
//! by a crash, or read half done, is no glance. It is used only while it names the
//! file that is the snapshot, the last line of the log before its mark is the event
//! it names, and nothing past the mark changes the state; else the reader takes the
//! summary's way, as before.

use std::collections::HashMap;
use std::fs::File;
use std::hash::BuildHasher;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::value::RawValue;

use crate::state::event_log::{Event, EventLine};
use crate::state::fold::{apply_event, folds};
use crate::state::live_digest::LiveDigest;
use crate::state::model::{Glance as _, LogMark, Task, WorkflowState};
use crate::state::summary::{self, FileId, View, MAX_LISTED};
use crate::state::task_index::WRITER;
use crate::state::task_ref::TaskRef;

pub const GLANCE_FILE: &str = "glance.json";
const MAGIC: &str = "wf-glance";
/// The longest last line of the log a reader looks back over to find the event a
/// glance names; a longer one (a proof with much output) sends it the summary's way.
const LAST_LINE_MAX: u64 = 64 * 1024;

/// The least time between two glances a run makes. A glance reads the records of
/// the tasks it names anew and writes them all; made every turn, it slowed a run of
/// tasks that do nothing noticeably. The scheduler looks again at least every turn
/// (`run::dispatch`), so a run that waits on its tasks has its glance current
/// soon after its last event.
const EVERY: Duration = Duration::from_millis(100);

/// The hash of a glance's body: only to tell a whole write from a torn one.
fn hash(body: &[u8]) -> u64 {
    foldhash::quality::FixedState::with_seed(0x9e37_79b9_7f4a_7c15).hash_one(body)
}

/// A writer's glance: the digest kept current, the state's other fields as a reader
/// folds them, and the file it is written to.
#[derive(Debug)]
pub struct Keeper {
    live: Option<LiveDigest>,
    /// The tasks moved since the last write.
    moved: Vec<String>,
    /// Something that changes the state was applied since the last write.
    changed: bool,
    /// The state's fields but its tasks, as the whole load reads them: those of the
    /// snapshot file named with them, with the events since folded on. A writer sets
    /// some fields (the run's mode, its counters) that reach the files only with its
    /// next snapshot; a reader after a crash does not see them, nor does the glance.
    base: Option<(FileId, WorkflowState)>,
    /// The same of a snapshot being written on another thread, from its mark on:
    /// the base once that file is the snapshot.
    next: Option<WorkflowState>,
    /// The named tasks of the last write, by id, as written.
    records: HashMap<String, Box<RawValue>>,
    file: Option<File>,
    buf: Vec<u8>,
    /// When the last glance was made.
    made_at: Option<Instant>,
}

/// The fields of `state` but its tasks and the per-task maps a summary leaves out.
pub fn fields_of(state: &mut WorkflowState) -> WorkflowState {
    summary::without_per_task_parts(state, |fields| fields.clone())
}

impl Keeper {
    /// A glance of `state`, as it was read from the snapshot at `state_path` and the
    /// log: nothing changed since.
    pub fn new(state: &mut WorkflowState, state_path: &Path) -> Keeper {
        Keeper {
            live: None,
            moved: Vec::new(),
            changed: true,
            base: FileId::at(state_path).map(|id| (id, fields_of(state))),
            next: None,
            records: HashMap::new(),
            file: None,
            buf: Vec::new(),
            made_at: None,
        }
    }

    /// `event`, which changes the state, is about to be applied; `before` is the
    /// task it moves as it stands.
    pub fn applied(&mut self, before: Option<&TaskRef>, event: &Event) {
        self.changed = true;
        if let Some(id) = &event.task_id {
            self.moved.push(id.clone());
        }
        // The task as far as the fold's effects on the state's fields read it, in
        // a copy of its own: the whole task's copy, twice a task run, is what the
        // engine's tests forbid (`the_engine_does_not_make_the_state_copy_...`).
        let light = before.map(|t| Task {
            id: t.id().to_owned(),
            status: t.status(),
            handed_off: t.handed_off().then_some(true),
            ..Task::default()
        });
        let mut folded = true;
        let bases = [self.base.as_mut().map(|(_, f)| f), self.next.as_mut()];
        for fields in bases.into_iter().flatten() {
            fields.tasks.extend(light.clone().map(TaskRef::new));
            folded &= apply_event(fields, event).is_ok();
            fields.tasks.clear();
        }
        if !folded {
            // Nothing to trust until the next save.
            (self.base, self.next) = (None, None);
        }
    }

    /// A snapshot of `state` is to be written on another thread.
    pub fn snapshot_taken(&mut self, state: &mut WorkflowState) {
        self.next = Some(fields_of(state));
    }

    /// `state` was written as the snapshot at `state_path`, and the glance removed
    /// ([`remove`]): the next one is a file of its own.
    pub fn saved(&mut self, state: &mut WorkflowState, state_path: &Path) {
        self.base = FileId::at(state_path).map(|id| (id, fields_of(state)));
        self.next = None;
        self.file = None;
    }

    /// Makes the glance of `state`, whose events reach the log up to `mark`, if it
    /// changed since the last; whether there is one for [`Keeper::put`] to write.
    pub fn make(&mut self, state_path: &Path, state: &WorkflowState, mark: LogMark) -> bool {
        if !self.changed || self.made_at.is_some_and(|at| at.elapsed() < EVERY) {
            return false;
        }
        self.changed = false;
        self.made_at = Some(Instant::now());
        let moved = std::mem::take(&mut self.moved);
        let live = match self.live.take() {
            Some(mut live) if live.total() == state.tasks.len() => {
                let at: Vec<usize> = state.with_positions(|position| {
                    moved.iter().filter_map(|id| position(id)).collect()
                });
                live.update(state, &at);
                live
            }
            _ => LiveDigest::new(state),
        };
        let digest = live.digest(state);
        self.live = Some(live);
        // A plugin state nobody adopted has no tasks to summarise, and a long list
        // is no glance (`summary::stage`).
        if state.tasks.is_empty() || state.unadopted.is_some() || digest.urgent.len() > MAX_LISTED {
            return false;
        }
        let Some(id) = FileId::at(state_path) else {
            return false;
        };
        if self.base.as_ref().is_none_or(|(of, _)| *of != id) {
            match self.next.take() {
                Some(fields) => self.base = Some((id, fields)),
                None => return false,
            }
        }
        let Some((_, fields)) = self.base.as_mut() else {
            return false;
        };
        // Each named task as written last time, unless it moved since: most of
        // them are the same from one turn to the next (the pending tasks at the
        // head of the list), and writing them again was most of a glance's cost.
        let named = summary::named_positions(&digest, state);
        let mut records = std::mem::take(&mut self.records);
        for id in &moved {
            records.remove(id.as_str());
        }
        let mut kept = HashMap::with_capacity(named.len());
        for &i in &named {
            let task = &state.tasks[i];
            let record = match records.remove(task.id()) {
                Some(record) => record,
                // A task whose record no longer reads leaves no glance, as no summary.
                None => match task.task().map(serde_json::value::to_raw_value) {
                    Ok(Ok(record)) => record,
                    _ => return false,
                },
            };
            kept.insert(task.id().to_owned(), record);
        }
        let raw: Vec<&RawValue> = named
            .iter()
            .filter_map(|&i| kept.get(state.tasks[i].id()).map(|r| &**r))
            .collect();
        let mut body = Vec::with_capacity(self.buf.capacity());
        let written = summary::write(&mut body, id, mark, &digest, fields, &raw);
        drop(raw);
        self.records = kept;
        if written.is_err() {
            return false;
        }
        self.buf.clear();
        frame(&mut self.buf, &body);
        true
    }

    /// Writes the glance [`Keeper::make`] made, in place. Not synced: a glance that
    /// is missing, torn or behind the log sends readers the summary's way.
    pub fn put(&mut self, dir: &Path) {
        if self.file.is_none() {
            self.file = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .mode(0o644)
                .custom_flags(libc::O_NOFOLLOW)
                .open(dir.join(GLANCE_FILE))
                .ok();
        }
        if let Some(file) = &self.file {
            if file.write_all_at(&self.buf, 0).is_err() {
                self.file = None;
            }
        }
    }
}

/// Removes the glance in `dir`: after a save on the writer's thread the summary is
/// current, and a glance naming the snapshot before it would cost every read a look
/// at it. Not from the checkpoint
/// thread: the scheduler writes the glance in place, and would go on writing to the
/// file removed.
pub fn remove(dir: &Path) {
    let _ = std::fs::remove_file(dir.join(GLANCE_FILE));
}

/// `body` after the header that says it was written whole by this wf.
fn frame(out: &mut Vec<u8>, body: &[u8]) {
    out.extend_from_slice(
        format!("{MAGIC} {WRITER} {} {:016x}\n", body.len(), hash(body)).as_bytes(),
    );
    out.extend_from_slice(body);
}

/// Writes the glance of `view`, which a reader folded from the snapshot `snapshot`
/// and the log up to `mark`, when no writer holds the lock: after a run died, the
/// first read folds what it left past its last glance, and the reads after it take
/// this one. A live writer keeps its own glance, which this would replace under it.
/// Best effort; the lock is held shared while it is written and renamed into place.
pub fn write_back(dir: &Path, snapshot: FileId, mark: LogMark, view: &mut View) {
    let Ok(lock) = crate::fs::open_regular(&dir.join(crate::state::store::LOCK_FILE), false) else {
        return;
    };
    if lock.file().try_lock_shared().is_err() {
        return;
    }
    let tasks = std::mem::take(&mut view.state.tasks);
    let named: crate::error::Result<Vec<&Task>> = tasks.iter().map(TaskRef::task).collect();
    let mut body = Vec::new();
    let written = named.is_ok_and(|named| {
        summary::write(
            &mut body,
            snapshot,
            mark,
            &view.digest,
            &mut view.state,
            &named,
        )
        .is_ok()
    });
    view.state.tasks = tasks;
    if written {
        let mut framed = Vec::with_capacity(body.len() + 64);
        frame(&mut framed, &body);
        let mut staged = crate::state::index_file::Staged::new(dir);
        staged.add(GLANCE_FILE, |w| {
            std::io::Write::write_all(w, &framed).map_err(serde_json::Error::io)
        });
        staged.place();
    }
    let _ = lock.unlock();
}

/// The view from the glance in `dir`, if it can be trusted to be the workflow now.
pub fn read(dir: &Path, state_path: &Path, events_path: &Path) -> Option<View> {
    let bytes = crate::fs::read_regular(&dir.join(GLANCE_FILE)).ok()?;
    let body = whole_body(&bytes)?;
    let (mark, view) = summary::read_later(body, state_path)?;
    log_ends_at(events_path, mark).then_some(view)
}

/// The body the header says was written, if it was written whole by this wf.
fn whole_body(bytes: &[u8]) -> Option<&[u8]> {
    let eol = memchr::memchr(b'\n', bytes)?;
    let header = std::str::from_utf8(&bytes[..eol]).ok()?;
    let mut words = header.split(' ');
    let named = words.next() == Some(MAGIC) && words.next() == Some(WRITER);
    let len: usize = words.next()?.parse().ok()?;
    let hashed = u64::from_str_radix(words.next()?, 16).ok()?;
    let body = bytes.get(eol + 1..)?.get(..len)?;
    (named && words.next().is_none() && hash(body) == hashed).then_some(body)
}

/// Whether the log's last line before `mark` is the event `mark` names and nothing
/// past it changes the state.
fn log_ends_at(events_path: &Path, mark: LogMark) -> bool {
    let Ok(file) = crate::fs::open_regular(events_path, false) else {
        return false;
    };
    let Ok(meta) = file.metadata() else {
        return false;
    };
    if mark.offset == 0 || meta.len() < mark.offset {
        return false;
    }
    let start = mark.offset.saturating_sub(LAST_LINE_MAX);
    let Some(window) =
        crate::fs::read_span(file.file(), start, mark.offset).filter(|w| w.last() == Some(&b'\n'))
    else {
        return false;
    };
    let before = &window[..window.len() - 1];
    let line = match memchr::memrchr(b'\n', before) {
        Some(at) => &before[at + 1..],
        None if start == 0 => before,
        None => return false,
    };
    if !EventLine::parse(line).is_ok_and(|head| head.seq == mark.seq) {
        return false;
    }
    crate::state::event_log::for_each_parsed_from(
        events_path,
        mark.offset,
        |_, line| {
            let head = EventLine::parse(line)?;
            Ok(head.seq > mark.seq && folds(&head.kind, head.txn))
        },
        |folded| if folded { Err(changed()) } else { Ok(()) },
    )
    .is_ok()
}

/// The log changed the state past the glance's mark: never shown.
fn changed() -> crate::error::WfError {
    crate::error::WfError::new(crate::error::ErrorKind::CorruptState, "changed")
}
