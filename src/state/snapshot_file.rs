//! Writing the snapshot file: the state as pretty JSON streamed into it, each task
//! record's byte span noted as it goes (the task index keeps them for the read
//! paths), and the record of every task unchanged since the snapshot before copied
//! from that file instead of serialized again.
//!
//! Serializing every task was most of a snapshot's cost, while between two
//! snapshots only the tasks that ran change.
//!
//! The writer holding the lock keeps a [`Prior`]: the snapshot on disk, a weak
//! handle on every task `Arc` it holds and where each record lies (for tasks made
//! from records, only the file: below). A task is changed
//! only through `WorkflowState::task_mut` (`Arc::make_mut`) or replaced by a new
//! `Arc`, so while the prior holds them a task changed since is another allocation:
//! the same address as the prior's task at the same position means "unchanged". Its
//! record is copied from the old file, through a handle on that very file (its
//! [`FileId`] as written or as read; a rename over it leaves that inode readable):
//! the bytes this version of wf serialized for the same task at the same depth. For
//! a snapshot this writer wrote, the new file is byte for byte what serializing
//! every task gives (a property test says so); for the one it loaded, the records
//! are as read, which parse to the same tasks (a float may read back rounded, and
//! an unknown field nested in a record is kept, not dropped). Anything unexpected
//! — the old file changed since the copy began, bytes at a span that are not a
//! record of that task's id, a failed or short read (then nothing more is copied)
//! — serializes that task as before, and the old file changed by the end of the
//! write writes the snapshot again without copying.
//!
//! A task made from a record — an import's spill, or a load that left the tasks
//! unread (`state::task_ref`) — names that record itself while it is unchanged
//! (`TaskRef::record_in`): the prior of such a state holds only the file. A writer
//! knows the spans of a snapshot it wrote itself; for a snapshot it parsed whole,
//! the task index written with that snapshot says where each record is
//! (`task_index::spans_for`), if it names that very file and log mark, was written
//! by this version of wf, and lists the same tasks in the same order.
//!
//! The copy goes through the JSON formatter: the tasks' `serialize_with`
//! ([`serialize_tasks`]) serializes a copied record as a unit, and the formatter
//! writes the record's bytes where that `null` would go, so every separator and
//! indent around it is the serializer's own. Both reach the write in progress
//! through a thread-local: the derived `Serialize` of the state gives its `tasks`
//! field no way to reach the writer.

use crate::state::model::Glance;
use crate::state::task_ref::{Source, TaskRef, WeakTask};
use std::cell::{Cell, RefCell};
use std::io::{self, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};

use serde::ser::SerializeSeq;
use serde::{Serialize, Serializer};
use serde_json::ser::{Formatter, PrettyFormatter};

use crate::state::model::{LogMark, WorkflowState};
use crate::state::summary::FileId;
use crate::state::task_index;

/// What [`write`] wrote.
#[derive(Debug)]
pub struct Written {
    /// The byte span of every task record, in order.
    pub spans: Vec<[u64; 2]>,
    /// How many of them were copied from the prior snapshot.
    pub copied: usize,
    /// Whether the prior snapshot's file was the same file from the start of the
    /// write to its end (always, when nothing was copied).
    pub intact: bool,
}

/// Writes `state` to `out` (which starts at offset 0) as pretty JSON, copying the
/// records `copier` has, and says where every task record went.
pub fn write<W: Write>(
    out: W,
    state: &WorkflowState,
    copier: Option<Copier>,
) -> io::Result<Written> {
    struct Stop;
    impl Drop for Stop {
        fn drop(&mut self) {
            WRITING.with(|w| w.borrow_mut().take());
        }
    }
    let written = Rc::new(Cell::new(0));
    let mut counted = Counted {
        inner: out,
        buf: Vec::with_capacity(BUF),
        written: Rc::clone(&written),
    };
    WRITING.with(|w| {
        *w.borrow_mut() = Some(Writing {
            written,
            spans: Vec::new(),
            copier,
        });
    });
    // Whether the write returns, fails or panics, what it noted goes with it.
    let _stop = Stop;
    let mut ser =
        serde_json::Serializer::with_formatter(&mut counted, Copying(PrettyFormatter::new()));
    state.serialize(&mut ser).map_err(io::Error::from)?;
    counted.flush()?;
    // Set above, taken only here or by `Stop`.
    let Some(w) = WRITING.with(|w| w.borrow_mut().take()) else {
        return Err(io::Error::other("a snapshot's write lost its recording"));
    };
    let copier = w.copier.as_ref();
    Ok(Written {
        spans: w.spans,
        copied: copier.map_or(0, |c| c.copied),
        intact: copier.is_none_or(|c| c.copied == 0 || c.intact()),
    })
}

/// Writes `task`'s record as [`write`] puts it in a snapshot: pretty JSON indented
/// as an element of the state's `tasks` array, so a [`Copier`] can copy it into one
/// (`state::spill`).
pub fn write_record(out: &mut Vec<u8>, task: &crate::state::model::Task) -> io::Result<()> {
    let mut formatter = PrettyFormatter::new();
    // Two levels in: the state's object and its `tasks` array.
    formatter.begin_object(&mut io::sink())?;
    formatter.begin_array(&mut io::sink())?;
    task.serialize(&mut serde_json::Serializer::with_formatter(out, formatter))
        .map_err(io::Error::from)
}

thread_local! {
    static WRITING: RefCell<Option<Writing>> = const { RefCell::new(None) };
}

/// A snapshot being written on this thread.
struct Writing {
    written: Rc<Cell<u64>>,
    spans: Vec<[u64; 2]>,
    copier: Option<Copier>,
}

fn written() -> Option<u64> {
    WRITING.with(|w| w.borrow().as_ref().map(|w| w.written.get()))
}

/// A buffered writer that counts what passes through it. serde_json writes a pretty
/// snapshot in small pieces — a quote, a key, an indent — so this is the one layer
/// each goes through on its way to the file, not a counter and then a `BufWriter`.
struct Counted<W> {
    inner: W,
    buf: Vec<u8>,
    written: Rc<Cell<u64>>,
}

/// How much [`Counted`] holds before it writes.
const BUF: usize = 64 * 1024;

impl<W: Write> Counted<W> {
    fn write_buf(&mut self) -> io::Result<()> {
        let wrote = self.inner.write_all(&self.buf);
        self.buf.clear();
        wrote
    }
}

impl<W: Write> Write for Counted<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_all(buf)?;
        Ok(buf.len())
    }

    #[inline]
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        if self.buf.len() + buf.len() > BUF {
            self.write_buf()?;
        }
        if buf.len() >= BUF {
            self.inner.write_all(buf)?;
        } else {
            self.buf.extend_from_slice(buf);
        }
        self.written.set(self.written.get() + buf.len() as u64);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.write_buf()?;
        self.inner.flush()
    }
}

/// `WorkflowState::tasks` as serde writes it; while a snapshot is being written
/// ([`write`]), each record's span is noted, and an unchanged task's record is
/// staged for the formatter to copy.
#[allow(clippy::ptr_arg)] // serde's `serialize_with` passes the field as declared.
pub fn serialize_tasks<S: Serializer>(tasks: &Vec<TaskRef>, s: S) -> Result<S::Ok, S::Error> {
    struct Spanned<'a>(usize, &'a TaskRef);
    impl Serialize for Spanned<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let start = written();
            let staged = WRITING.with(|w| {
                let mut w = w.borrow_mut();
                let copier = w.as_mut().and_then(|w| w.copier.as_mut());
                copier.is_some_and(|c| c.stage(self.0, self.1))
            });
            let done = if staged {
                s.serialize_unit()?
            } else {
                self.1.serialize(s)?
            };
            if let (Some(start), Some(end)) = (start, written()) {
                WRITING.with(|w| {
                    if let Some(w) = w.borrow_mut().as_mut() {
                        w.spans.push([start, end]);
                    }
                });
            }
            Ok(done)
        }
    }
    let mut seq = s.serialize_seq(Some(tasks.len()))?;
    for (i, task) in tasks.iter().enumerate() {
        seq.serialize_element(&Spanned(i, task))?;
    }
    seq.end()
}

/// serde_json's pretty layout, with a staged record written where its unit would be.
struct Copying(PrettyFormatter<'static>);

impl Formatter for Copying {
    fn write_null<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        WRITING.with(|w| {
            let mut w = w.borrow_mut();
            match w.as_mut().and_then(|w| w.copier.as_mut()?.take_staged()) {
                Some(record) => writer.write_all(record),
                None => writer.write_all(b"null"),
            }
        })
    }

    fn begin_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_array(writer)
    }

    fn end_array<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array(writer)
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_array_value(writer, first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_array_value(writer)
    }

    fn begin_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object(writer)
    }

    fn end_object<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object(writer)
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        first: bool,
    ) -> io::Result<()> {
        self.0.begin_object_key(writer, first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.begin_object_value(writer)
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, writer: &mut W) -> io::Result<()> {
        self.0.end_object_value(writer)
    }
}

/// The prior of a session's next snapshot, shared with the checkpoint thread that
/// may write it. One snapshot is written at a time; a writer that finds none here
/// serializes every task.
pub type SharedPrior = Arc<Mutex<Option<Prior>>>;

/// A snapshot file, and how to tell its tasks that are unchanged since and where
/// their records are in it ([`Old`]).
#[derive(Debug)]
pub struct Prior {
    file: std::fs::File,
    id: FileId,
    old: Old,
}

/// The tasks a prior's file holds the records of.
#[derive(Debug)]
enum Old {
    /// Its tasks, held weakly, and their spans. Weakly: only their identity is
    /// needed, and a weak handle still keeps the allocation, so no task made since
    /// can take its address. A strong one would make the first change of every task
    /// after a snapshot clone it whole (`Arc::make_mut` on a shared task); with only
    /// weak handles left, `make_mut` moves the task to a new allocation instead.
    Listed { tasks: Vec<WeakTask>, spans: Spans },
    /// Each task made from a record of `source` and unchanged since names it
    /// ([`TaskRef::record_in`]): the tasks an import spilled, or a load left unread.
    /// No task is held: on a large fresh import a list of spans and one of weak
    /// handles would be a visible part of its peak memory.
    InRecords(Arc<Source>),
}

#[derive(Debug)]
enum Spans {
    /// As written.
    Known(Vec<[u64; 2]>),
    /// In the task index written with the snapshot: read when a snapshot is
    /// written, which most commands that take the lock never do.
    InIndex { dir: PathBuf, mark: LogMark },
}

impl Prior {
    /// The snapshot just written and renamed to `path` as the file `id`, with
    /// `tasks`' records at `spans`; none if `path` is another file by now.
    pub fn written(
        path: &Path,
        id: FileId,
        tasks: &[TaskRef],
        spans: Vec<[u64; 2]>,
    ) -> Option<Prior> {
        let file = crate::fs::open_regular(path, false).ok()?.into_parts().0;
        (FileId::of(&file.metadata().ok()?) == id).then(|| Prior {
            file,
            id,
            old: Old::Listed {
                tasks: tasks.iter().map(TaskRef::downgrade).collect(),
                spans: Spans::Known(spans),
            },
        })
    }

    /// The snapshot just loaded from `file` (the file `id` when the read began) in
    /// the workflow dir `dir`, with log mark `mark`, before anything changed its
    /// tasks; `unread` is the source the load left them unread in, as the task
    /// index said (`Store::lock`).
    pub fn loaded(
        file: std::fs::File,
        id: FileId,
        tasks: &[TaskRef],
        dir: &Path,
        mark: Option<LogMark>,
        unread: Option<Arc<Source>>,
    ) -> Option<Prior> {
        let mark = mark?;
        let old = match unread {
            Some(source) => Old::InRecords(source),
            None => Old::Listed {
                tasks: tasks.iter().map(TaskRef::downgrade).collect(),
                spans: Spans::InIndex {
                    dir: dir.to_path_buf(),
                    mark,
                },
            },
        };
        Some(Prior { file, id, old })
    }

    /// The records an import wrote to `file`, the file of `source`, which nothing
    /// else writes (`state::spill`).
    pub fn spilled(file: std::fs::File, source: Arc<Source>) -> io::Result<Prior> {
        Ok(Prior {
            id: FileId::of(&file.metadata()?),
            file,
            old: Old::InRecords(source),
        })
    }

    /// The prior in `shared`, taken out for one snapshot's write.
    pub fn take(shared: &SharedPrior) -> Option<Prior> {
        shared.lock().unwrap_or_else(PoisonError::into_inner).take()
    }

    /// Makes `prior` the one the next snapshot copies from.
    pub fn keep(shared: &SharedPrior, prior: Option<Prior>) {
        *shared.lock().unwrap_or_else(PoisonError::into_inner) = prior;
    }

    /// What copies this prior's records into the next snapshot; none when the file
    /// is no longer what it was or its spans are not known.
    pub fn copier(self) -> Option<Copier> {
        if FileId::of(&self.file.metadata().ok()?) != self.id {
            return None;
        }
        let from = match self.old {
            Old::Listed { tasks, spans } => {
                let spans = match spans {
                    Spans::Known(spans) => spans,
                    Spans::InIndex { ref dir, mark } => {
                        task_index::spans_for(dir, self.id, mark, &tasks)?
                    }
                };
                if spans.len() != tasks.len() {
                    return None;
                }
                CopyFrom::Listed { tasks, spans }
            }
            Old::InRecords(source) => CopyFrom::InRecords(source),
        };
        Some(Copier {
            file: self.file,
            id: self.id,
            from,
            buf: Vec::new(),
            buf_at: 0,
            staged: None,
            copied: 0,
        })
    }
}

/// Gives the old record of each unchanged task, in the order of the snapshot.
#[derive(Debug)]
pub struct Copier {
    file: std::fs::File,
    id: FileId,
    from: CopyFrom,
    /// Read ahead from the old file, starting at `buf_at`: records are asked for in
    /// order, so one read serves many.
    buf: Vec<u8>,
    buf_at: u64,
    /// Where in `buf` the record staged for the formatter is.
    staged: Option<Range<usize>>,
    copied: usize,
}

/// How a [`Copier`] finds an unchanged task's old record.
#[derive(Debug)]
enum CopyFrom {
    /// At the task's position, when the weak handle there is the task's.
    Listed {
        tasks: Vec<WeakTask>,
        spans: Vec<[u64; 2]>,
    },
    /// Where the task itself says ([`Old::InRecords`]).
    InRecords(Arc<Source>),
    /// Nowhere: the old file could not be read where a span said.
    Nothing,
}

/// How much of the old file one read takes.
const READ_AHEAD: usize = 256 * 1024;

impl Copier {
    /// Stages the old record of `task`, the snapshot's `i`th, if the task has not
    /// changed since and the old file holds a record of that task's id there.
    fn stage(&mut self, i: usize, task: &TaskRef) -> bool {
        self.staged = None;
        let span = match &self.from {
            CopyFrom::Listed { tasks, spans } => tasks
                .get(i)
                .filter(|old| old.is(task))
                .and(spans.get(i).copied()),
            CopyFrom::InRecords(source) => task.record_in(source),
            CopyFrom::Nothing => None,
        };
        let Some([start, end]) = span else {
            return false;
        };
        let Some(at) = self.read(start, end) else {
            // The file cannot be read as it was: copy nothing more from it.
            self.from = CopyFrom::Nothing;
            return false;
        };
        if !is_record_of(&self.buf[at.clone()], task.id()) {
            return false;
        }
        self.staged = Some(at);
        self.copied += 1;
        true
    }

    /// Whether the old file is still the one the records were copied from (as
    /// checked when the copy began): one written over in place meanwhile may
    /// have given bytes that were never this writer's.
    fn intact(&self) -> bool {
        self.file
            .metadata()
            .is_ok_and(|meta| FileId::of(&meta) == self.id)
    }

    /// The record staged last, once.
    fn take_staged(&mut self) -> Option<&[u8]> {
        let at = self.staged.take()?;
        self.buf.get(at)
    }

    /// Where the old file's bytes `start..end` are in `buf`, read if they are not.
    fn read(&mut self, start: u64, end: u64) -> Option<Range<usize>> {
        let len = usize::try_from(end.checked_sub(start)?).ok()?;
        let held = start >= self.buf_at && end <= self.buf_at + self.buf.len() as u64;
        if !held {
            // Grown, not emptied and zeroed again at each read: a full read leaves
            // it at its size. A failed read leaves nothing that looks held.
            self.buf.resize(len.max(READ_AHEAD), 0);
            let got = read_at_most(&self.file, &mut self.buf, start);
            self.buf.truncate(got.unwrap_or(0));
            self.buf_at = start;
            got?;
        }
        let from = usize::try_from(start - self.buf_at).ok()?;
        (from + len <= self.buf.len()).then_some(from..from + len)
    }
}

/// Whether `record` is a task record whose `id`, its first field, is `id`: a check
/// that the bytes at a span are the task's, as the read paths check what they
/// read at a span (`task_index`).
fn is_record_of(record: &[u8], id: &str) -> bool {
    let Some(rest) = record.strip_prefix(b"{") else {
        return false;
    };
    let Some(rest) = rest.trim_ascii_start().strip_prefix(b"\"id\":") else {
        return false;
    };
    let Ok(quoted) = serde_json::to_vec(id) else {
        return false;
    };
    rest.trim_ascii_start().starts_with(&quoted) && record.ends_with(b"}")
}

/// Fills `buf` from `file` at `offset`; short only at the end of the file.
fn read_at_most(file: &std::fs::File, buf: &mut [u8], offset: u64) -> Option<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], offset + got as u64) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    Some(got)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Task;
    use proptest::prelude::*;

    fn task(i: usize, name: &str) -> TaskRef {
        TaskRef::new(Task {
            id: format!("T{i}"),
            name: format!("{name} \"{i}\" — ünïcode\n"),
            deps: (i > 1).then(|| format!("T{}", i - 1)).into_iter().collect(),
            ..Task::default()
        })
    }

    fn state_of(n: usize) -> WorkflowState {
        let mut state = WorkflowState::new();
        state.tasks = (1..=n).map(|i| task(i, "step")).collect();
        state
    }

    /// Writes `state` to `path` as the store does, copying from `prior`; the prior
    /// of the next write and how many records were copied.
    fn write_file(path: &Path, state: &WorkflowState, prior: Option<Prior>) -> (Prior, usize) {
        let file = std::fs::File::create(path).unwrap();
        let copier = prior.and_then(Prior::copier);
        let written = write(file, state, copier).unwrap();
        let copied = written.copied;
        let id = FileId::of(&std::fs::metadata(path).unwrap());
        (
            Prior::written(path, id, &state.tasks, written.spans).unwrap(),
            copied,
        )
    }

    /// A temp dir with `n` tasks written to its `a.json` as the store writes them, and
    /// that write's prior.
    fn written_once(n: usize) -> (tempfile::TempDir, PathBuf, WorkflowState, Prior) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json");
        let state = state_of(n);
        let (prior, _) = write_file(&path, &state, None);
        (dir, path, state, prior)
    }

    fn full(state: &WorkflowState) -> Vec<u8> {
        serde_json::to_vec_pretty(state).unwrap()
    }

    #[test]
    fn each_span_holds_its_task_record_and_nothing_is_noted_outside_a_write() {
        let mut state = state_of(30);
        // Records longer than the writer's buffer, and records across its edges.
        for i in [3, 4, 20] {
            state.tasks[i].make_mut().unwrap().name = "n".repeat(BUF + i);
        }
        let mut out = Vec::new();
        let spans = write(&mut out, &state, None).unwrap().spans;
        let bytes = full(&state);
        assert_eq!(out, bytes);
        assert_eq!(spans.len(), state.tasks.len());
        for (task, [start, end]) in state.tasks.iter().zip(spans) {
            let record = &bytes[usize::try_from(start).unwrap()..usize::try_from(end).unwrap()];
            let read: Task = serde_json::from_slice(record).unwrap();
            assert_eq!(&read, task.task().unwrap());
        }
        // Serialized anywhere else, the tasks note nothing.
        let _ = serde_json::to_vec(&state).unwrap();
        assert!(written().is_none());
    }

    #[test]
    fn a_task_changed_after_a_snapshot_is_moved_not_copied_and_serialized_again() {
        let (_dir, path, mut state, prior) = written_once(3);
        let name = state.tasks[1].task().unwrap().name.as_ptr();
        let task = state.task_mut("T2").unwrap().unwrap();
        task.status = crate::state::machine::TaskStatus::Completed;
        assert_eq!(task.name.as_ptr(), name, "the task was copied whole");
        let next = path.with_file_name("b.json");
        let (_, copied) = write_file(&next, &state, Some(prior));
        assert_eq!(copied, 2);
        assert_eq!(std::fs::read(&next).unwrap(), full(&state));
    }

    #[test]
    fn only_the_changed_tasks_are_serialized_again() {
        let dir = tempfile::tempdir().unwrap();
        let mut state = state_of(5);
        let (prior, copied) = write_file(&dir.path().join("a.json"), &state, None);
        assert_eq!(copied, 0);
        state.task_mut("T3").unwrap().unwrap().name = "changed".into();
        let path = dir.path().join("b.json");
        let (prior, copied) = write_file(&path, &state, Some(prior));
        assert_eq!(copied, 4);
        assert_eq!(std::fs::read(&path).unwrap(), full(&state));
        // The next write copies from this one, T3's new record too.
        let (_, copied) = write_file(&dir.path().join("c.json"), &state, Some(prior));
        assert_eq!(copied, 5);
    }

    #[test]
    fn a_file_renamed_in_before_the_prior_is_taken_is_not_one() {
        let (dir, path, state, written) = written_once(3);
        std::fs::write(dir.path().join("b.json"), full(&state)).unwrap();
        std::fs::rename(dir.path().join("b.json"), &path).unwrap();
        let Old::Listed {
            spans: Spans::Known(spans),
            ..
        } = written.old
        else {
            unreachable!("a prior written holds its spans")
        };
        assert!(Prior::written(&path, written.id, &state.tasks, spans).is_none());
    }

    #[test]
    fn a_prior_written_over_while_its_records_are_copied_says_so() {
        let (_dir, path, state, prior) = written_once(3);
        let copier = prior.copier().unwrap();
        // In place, the same bytes: only the file's time says it was written.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(&path, full(&state)).unwrap();
        let written = write(Vec::new(), &state, Some(copier)).unwrap();
        assert_eq!(written.copied, 3);
        assert!(!written.intact);
        let nothing_copied = write(Vec::new(), &state, None).unwrap();
        assert!(nothing_copied.intact);
    }

    #[test]
    fn a_span_of_another_task_is_not_copied() {
        let (dir, _path, state, mut prior) = written_once(3);
        if let Old::Listed {
            spans: Spans::Known(spans),
            ..
        } = &mut prior.old
        {
            spans.swap(0, 1);
        }
        let out = dir.path().join("b.json");
        let (_, copied) = write_file(&out, &state, Some(prior));
        assert_eq!(copied, 1);
        assert_eq!(std::fs::read(&out).unwrap(), full(&state));
    }

    #[test]
    fn a_prior_whose_file_changed_since_copies_nothing() {
        let (_dir, path, _state, prior) = written_once(3);
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b" ")
            .unwrap();
        assert!(prior.copier().is_none());
    }

    #[test]
    fn a_span_that_holds_no_record_is_serialized_instead() {
        let (dir, _path, state, mut prior) = written_once(4);
        // The first span moved by a byte, the third past the end of the file: the
        // second is copied, and once the file cannot be read where a span says,
        // nothing more is.
        if let Old::Listed {
            spans: Spans::Known(spans),
            ..
        } = &mut prior.old
        {
            spans[0][0] += 1;
            spans[2] = [1 << 40, (1 << 40) + 10];
        }
        let out = dir.path().join("b.json");
        let (_, copied) = write_file(&out, &state, Some(prior));
        assert_eq!(copied, 1);
        assert_eq!(std::fs::read(&out).unwrap(), full(&state));
    }

    /// What a run, a re-import or an edit may do to the tasks between snapshots.
    #[derive(Debug, Clone)]
    enum Change {
        Status(usize),
        Rename(usize),
        /// The same task, as a new `Arc`.
        Replace(usize),
        Insert(usize),
        Remove(usize),
    }

    fn change() -> impl Strategy<Value = Change> {
        prop_oneof![
            (0..64usize).prop_map(Change::Status),
            (0..64usize).prop_map(Change::Rename),
            (0..64usize).prop_map(Change::Replace),
            (0..64usize).prop_map(Change::Insert),
            (0..64usize).prop_map(Change::Remove),
        ]
    }

    fn apply(state: &mut WorkflowState, change: &Change, fresh: &mut usize) {
        let n = state.tasks.len();
        match *change {
            Change::Status(i) if n > 0 => {
                let id = state.tasks[i % n].id().to_owned();
                let task = state.task_mut(&id).unwrap().unwrap();
                task.status = crate::state::machine::TaskStatus::Completed;
                task.duration_ms = Some(7);
            }
            Change::Rename(i) if n > 0 => {
                let id = state.tasks[i % n].id().to_owned();
                state
                    .task_mut(&id)
                    .unwrap()
                    .unwrap()
                    .name
                    .push_str(" and more");
            }
            Change::Replace(i) if n > 0 => {
                let same = Task::clone(state.tasks[i % n].task().unwrap());
                state.tasks[i % n] = TaskRef::new(same);
            }
            Change::Insert(i) => {
                *fresh += 1;
                state.tasks.insert(i % (n + 1), task(1000 + *fresh, "new"));
            }
            Change::Remove(i) if n > 0 => {
                state.tasks.remove(i % n);
            }
            _ => {}
        }
    }

    proptest! {
        #[test]
        fn a_snapshot_that_copies_records_is_byte_for_byte_the_full_one(
            n in 0..40usize,
            rounds in prop::collection::vec(prop::collection::vec(change(), 0..8), 1..4),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let mut state = state_of(n);
            let (mut prior, _) = write_file(&dir.path().join("0.json"), &state, None);
            let mut fresh = 0;
            for (round, changes) in rounds.iter().enumerate() {
                let before = state.tasks.clone();
                for c in changes {
                    apply(&mut state, c, &mut fresh);
                }
                let unchanged = state
                    .tasks
                    .iter()
                    .enumerate()
                    .filter(|(i, t)| before.get(*i).is_some_and(|b| TaskRef::ptr_eq(b, t)))
                    .count();
                let path = dir.path().join(format!("{}.json", round + 1));
                let (next, copied) = write_file(&path, &state, Some(prior));
                prop_assert_eq!(std::fs::read(&path).unwrap(), full(&state));
                prop_assert_eq!(copied, unchanged);
                prior = next;
            }
        }
    }
}
