//! A task as a state holds it ([`TaskRef`]): shared, and — in a state loaded from a
//! snapshot whose task index this build wrote — read from its record only when
//! something looks at more of it than the index holds.
//!
//! Sharing: a checkpoint written on its own thread holds the state's tasks while the
//! run goes on (src/run/checkpoint.rs), and the prior snapshot holds each weakly,
//! or none when the tasks were made from its records (`state::snapshot_file`); a
//! task is changed through [`TaskRef::make_mut`], which copies it first only while a
//! checkpoint still holds it, and lets go of its record.
//!
//! Reading on first look: the first `--step` after a crash parsed every record of the
//! snapshot, most of its time (BENCHMARKS.md), to run one task. A task loaded unread
//! keeps where its record is and what the task index says of it (its id, status,
//! dependencies, blockers: [`Glance`]); the scheduler, the fold's lookups and the
//! summary read only that, a look at any other field (or a change) reads and parses
//! the record, and a snapshot copies the record's bytes while the task is unchanged
//! (`state::snapshot_file`).
//!
//! A read can fail: a record written over in place no longer reads as its task. The
//! whole task is reached only through calls that say so ([`TaskRef::task`],
//! [`TaskRef::make_mut`], [`TaskRef::into_task`]), each an error the caller passes
//! up, never an exit from deep inside a look.

use std::sync::{Arc, OnceLock, Weak};

use crate::error::{ErrorKind, Result, WfError};
use crate::state::ids::Ids;
use crate::state::machine::TaskStatus;
use crate::state::model::{Glance, Task, Usage};

/// A task of a state: [`TaskRef::task`] gives the whole task (parsing its record on
/// the first look, which can fail); [`Glance`] gives what the scheduler and the
/// summary need without it.
pub struct TaskRef(Arc<Slot>);

#[derive(Clone)]
struct Slot {
    /// Boxed: a task left unread holds only its index entry, not the 800 bytes of a
    /// task.
    task: OnceLock<Box<Task>>,
    /// Its record in the snapshot it was loaded from, while it has not changed since.
    /// Held in the slot, not boxed beside it, for the same allocation.
    record: Option<Record>,
}

/// A task's record in a snapshot, and what the task index says of it (`span` among
/// it).
#[derive(Clone)]
pub struct Record {
    pub source: Arc<Source>,
    pub glance: crate::state::task_index::Entry,
}

/// The file holding the tasks' records, open: the snapshot they were loaded from (a
/// snapshot is replaced by a rename, never written in place, so the handle reads the
/// file that was loaded), or the unnamed file an import wrote them to
/// (`state::spill`).
#[derive(Debug)]
pub struct Source {
    /// The snapshot's path; none for an import's unnamed file.
    pub snapshot: Option<std::path::PathBuf>,
    pub file: std::fs::File,
}

#[cfg(test)]
thread_local! {
    /// How many times [`TaskRef::make_mut`] copied a task on this thread, because
    /// something else held it: a test's count of copies the engine should not make.
    pub(crate) static COPIES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl TaskRef {
    pub fn new(task: Task) -> TaskRef {
        TaskRef(Arc::new(Slot {
            task: OnceLock::from(Box::new(task)),
            record: None,
        }))
    }

    /// A task to be read from `record` when first looked at.
    pub fn unread(record: Record) -> TaskRef {
        TaskRef(Arc::new(Slot {
            task: OnceLock::new(),
            record: Some(record),
        }))
    }

    /// The whole task, read from its record first if it was not: an error when the
    /// record no longer reads as the task (see [`read_record`]).
    pub fn task(&self) -> Result<&Task> {
        if let Some(task) = self.0.task.get() {
            return Ok(task);
        }
        let Some(record) = self.0.record.as_ref() else {
            unreachable!("a task is built whole or loaded from its record")
        };
        let task = read_record(record)?;
        Ok(self.0.task.get_or_init(|| Box::new(task)))
    }

    /// The task to change: read first if it was not, a copy of its own first if a
    /// checkpoint being written still holds it (`Arc::make_mut`; the prior snapshot's
    /// weak handles do not count: the task moves to a new allocation uncopied).
    pub fn make_mut(&mut self) -> Result<&mut Task> {
        self.task()?;
        #[cfg(test)]
        if Arc::strong_count(&self.0) > 1 {
            COPIES.with(|copies| copies.set(copies.get() + 1));
        }
        let slot = Arc::make_mut(&mut self.0);
        slot.record = None;
        Ok(slot.task.get_mut().expect("read just above"))
    }

    /// The task itself, read first if it was not; a copy if anything else holds it.
    pub fn into_task(self) -> Result<Task> {
        self.task()?;
        Ok(*Arc::unwrap_or_clone(self.0)
            .task
            .into_inner()
            .expect("read just above"))
    }

    /// Where the task's record is in `source`, if it was made from one there and has
    /// not changed since (read or not): what a snapshot copies in its place.
    pub fn record_in(&self, source: &Arc<Source>) -> Option<[u64; 2]> {
        let record = self.0.record.as_ref()?;
        Arc::ptr_eq(&record.source, source).then_some(record.glance.span.bounds())
    }

    /// Whether the task has been parsed (built, changed, or looked at whole).
    pub fn is_read(&self) -> bool {
        self.0.task.get().is_some()
    }

    pub fn ptr_eq(a: &TaskRef, b: &TaskRef) -> bool {
        Arc::ptr_eq(&a.0, &b.0)
    }

    pub fn downgrade(&self) -> WeakTask {
        WeakTask(Arc::downgrade(&self.0))
    }

    /// What the task is known by without reading it: the whole task once read (or
    /// built), else what the task index said of it.
    pub fn glanced(&self) -> Glanced<'_> {
        match (self.0.task.get(), self.0.record.as_ref()) {
            (Some(task), _) => Glanced::Task(task),
            (None, Some(record)) => Glanced::Entry(&record.glance),
            (None, None) => unreachable!("a task is built whole or loaded from its record"),
        }
    }
}

/// Parses a record the task index named in a snapshot this build wrote. Every such
/// record is one this build serialized (or copied from a snapshot it serialized it
/// into), read from the file the index names, so it parses; one that does not means
/// the file was written over in place since with the same size and time. The index
/// is forgotten then, so the next command reads the whole file.
fn read_record(record: &Record) -> Result<Task> {
    crate::testing::record_read();
    let [start, end] = record.glance.span.bounds();
    let bytes = crate::fs::read_span(&record.source.file, start, end);
    match bytes.map(|bytes| serde_json::from_slice::<Task>(&bytes)) {
        Some(Ok(task)) if task.id == record.glance.id() => Ok(task),
        _ => {
            let (id, at) = (record.glance.id(), format!("bytes {start}..{end}"));
            let message = if let Some(path) = &record.source.snapshot {
                crate::state::task_index::forget(path);
                format!(
                    "{}: the record of task {id} ({at}) no longer reads as that task: the \
                     file was changed in place while wf read it. Run the command again: it \
                     reads the whole file (and names what is wrong in it).",
                    path.display(),
                )
            } else {
                // Nothing but this process can reach an import's unnamed file.
                format!(
                    "the record of task {id} ({at}) that this import wrote does not read \
                     back as that task; this is a bug in wf, please report it."
                )
            };
            Err(WfError::new(ErrorKind::CorruptState, message))
        }
    }
}

pub enum Glanced<'a> {
    Task(&'a Task),
    Entry(&'a crate::state::task_index::Entry),
}

macro_rules! glanced {
    ($self:ident . $m:ident ()) => {
        match $self.glanced() {
            Glanced::Task(t) => Glance::$m(t),
            Glanced::Entry(e) => Glance::$m(e),
        }
    };
}

impl Glance for TaskRef {
    fn id(&self) -> &str {
        glanced!(self.id())
    }
    fn status(&self) -> TaskStatus {
        glanced!(self.status())
    }
    fn deps(&self) -> Ids<'_> {
        glanced!(self.deps())
    }
    fn blocked_by(&self) -> Ids<'_> {
        glanced!(self.blocked_by())
    }
    fn handed_off(&self) -> bool {
        glanced!(self.handed_off())
    }
    fn accepted_unchecked(&self) -> bool {
        glanced!(self.accepted_unchecked())
    }
    fn usage(&self) -> Option<Usage> {
        glanced!(self.usage())
    }
}

impl Clone for TaskRef {
    fn clone(&self) -> TaskRef {
        TaskRef(Arc::clone(&self.0))
    }
}

impl Default for TaskRef {
    fn default() -> TaskRef {
        TaskRef::new(Task::default())
    }
}

impl PartialEq for TaskRef {
    fn eq(&self, other: &TaskRef) -> bool {
        // A task that cannot be read equals none but itself.
        TaskRef::ptr_eq(self, other)
            || matches!((self.task(), other.task()), (Ok(a), Ok(b)) if a == b)
    }
}

impl std::fmt::Debug for TaskRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.task() {
            Ok(task) => task.fmt(f),
            Err(err) => write!(f, "TaskRef({:?}, unreadable: {err})", self.id()),
        }
    }
}

impl serde::Serialize for TaskRef {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // What the error said reaches the caller in serde's message; the snapshot
        // writer copies an unread task's record and never reads it here.
        self.task().map_err(serde::ser::Error::custom)?.serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for TaskRef {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<TaskRef, D::Error> {
        Task::deserialize(d).map(TaskRef::new)
    }
}

/// A weak handle on a state's task: it keeps the task's allocation, so no task made
/// since has its address, and does not keep [`TaskRef::make_mut`] from moving it.
pub struct WeakTask(Weak<Slot>);

impl WeakTask {
    /// Whether `task` is the very task this handle was taken from, unchanged since.
    pub fn is(&self, task: &TaskRef) -> bool {
        std::ptr::eq(self.0.as_ptr(), Arc::as_ptr(&task.0))
    }

    pub fn upgrade(&self) -> Option<TaskRef> {
        self.0.upgrade().map(TaskRef)
    }
}

impl std::fmt::Debug for WeakTask {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WeakTask")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::task_index::{Entry, Span, INDEX_FILE};
    use std::os::unix::fs::FileExt;

    /// A task unread at the record `bytes` of a snapshot file in `dir`.
    fn unread_in(dir: &std::path::Path, task: &Task, bytes: &[u8]) -> TaskRef {
        let path = dir.join("workflow-state.json");
        std::fs::write(&path, bytes).unwrap();
        let source = Arc::new(Source {
            snapshot: Some(path.clone()),
            file: std::fs::File::open(&path).unwrap(),
        });
        let span = Span::new(0, bytes.len() as u64).unwrap();
        TaskRef::unread(Record {
            source,
            glance: Entry::of(task, span),
        })
    }

    #[test]
    fn a_record_changed_in_place_is_an_error_naming_the_file_and_the_task() {
        let task = Task {
            id: "T2".into(),
            name: "task T2".into(),
            ..Task::default()
        };
        let record = serde_json::to_vec(&task).unwrap();
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(unread_in(dir.path(), &task, &record).task().unwrap(), &task);

        // The same length, other bytes: another task's id, then no JSON at all.
        let other_id = String::from_utf8(record.clone())
            .unwrap()
            .replace("\"T2\"", "\"T9\"");
        let broken = String::from_utf8(record.clone())
            .unwrap()
            .replacen('{', "[", 1);
        for changed in [other_id, broken] {
            assert_eq!(changed.len(), record.len());
            let mut unread = unread_in(dir.path(), &task, changed.as_bytes());
            let index = dir.path().join(INDEX_FILE);
            std::fs::write(&index, "{}").unwrap();
            let err = unread.task().unwrap_err();
            assert_eq!(err.kind, crate::error::ErrorKind::CorruptState);
            assert!(
                err.message.contains("workflow-state.json")
                    && err.message.contains("task T2")
                    && err.message.contains("changed in place")
                    && !err.message.contains('\n'),
                "{}",
                err.message
            );
            assert!(!index.exists(), "the task index is forgotten");
            assert!(!unread.is_read());
            assert!(unread.make_mut().is_err());
            assert!(unread.clone().into_task().is_err());
            // The glance is still there: the scheduler can go on looking.
            assert_eq!((unread.id(), unread.status()), ("T2", TaskStatus::Pending));
        }
    }

    #[test]
    fn a_record_read_back_from_the_file_changed_after_it_was_opened_is_refused() {
        let task = Task {
            id: "T1".into(),
            ..Task::default()
        };
        let record = serde_json::to_vec(&task).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let unread = unread_in(dir.path(), &task, &record);
        // Written over in place through another handle, after the load opened it.
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(dir.path().join("workflow-state.json"))
            .unwrap();
        file.write_all_at(b"!", 0).unwrap();
        let err = unread.task().unwrap_err();
        assert!(
            err.message.contains("task T1 (bytes 0.."),
            "{}",
            err.message
        );
    }
}
