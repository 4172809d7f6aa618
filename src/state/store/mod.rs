//! Where a workflow lives on disk and how its state is read and written.
//!
//! - Readers take no lock: they read the last snapshot (`workflow-state.json`) and
//!   fold the event-log tail written after it, so they always see current progress.
//!   The read paths that show one task or a summary (`view`) read `summary.json`
//!   instead while it describes that snapshot and the log holds nothing to fold
//!   (`state::summary`).
//! - Writers hold an exclusive lock on `.lock` (never deleted) for the whole of a
//!   read-modify-write. The lock file names the holder's pid.
//! - A snapshot is written to a temp file in the same directory, synced, renamed over
//!   the old one, and the directory is synced: a crash leaves the old or the new file.
//!   That rename is the commit point of every change a writer makes: the events that
//!   describe a multi-file change (an import, a re-import, an archive) are appended
//!   as a transaction (`txn`) that readers never fold, so until the rename they see
//!   the old workflow, after it the new one (see `recover` for what the next writer
//!   does with an attempt that never reached its rename).
//! - Taking the lock runs `recover::recover` before anything else: it sweeps what a
//!   killed or failed writer left, and brings the snapshot up to the event log.
//! - A corrupt or newer-schema state is refused with its path and position, never
//!   overwritten.

use std::io::Write;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::error::{ErrorKind, Result, WfError};
use crate::fs::{ensure_dir, open_regular_kept, read_rest, read_span, refuse_symlink};
use crate::state::model::WorkflowState;
use crate::state::recover::CatchUp;
use crate::state::snapshot_file::Prior;
use crate::state::summary::{self, FileId, View};

mod read;
mod session;
pub use read::parse_state;
use read::{fold, parse_unread, read_tail, written_mark, Also, Read, Tail};
pub use session::{Session, Snapshot};

pub const STATE_FILE: &str = "workflow-state.json";
pub const EVENTS_FILE: &str = "events.jsonl";
pub const LOCK_FILE: &str = ".lock";
/// Beside the plan copy: where it shows each task's status (`plan::mirror`).
pub const MIRROR_INDEX_FILE: &str = "mirror-index.json";

/// What the store needs done with a workflow's plan, which only the layers above it
/// know how to read and write; whoever opens a store gives it (`plan::STORE_ACCESS`),
/// so `state` depends on nothing above it.
#[derive(Clone, Copy)]
pub struct PlanAccess {
    /// Loads the tasks of a plugin-written state (one without `tasks`) from its plan
    /// (`src/plan/adopt.rs`); `dir` is the workflow dir, `project` the project's.
    pub adopt: fn(state: &mut WorkflowState, dir: &Path, project: Option<&Path>),
    /// Brings the plan copy's task statuses up to the state.
    pub mirror: fn(&Session) -> Result<()>,
    /// The `plan_digest` of a plan file's text, read a piece at a time.
    pub digest_file: fn(&Path) -> std::io::Result<String>,
}

impl std::fmt::Debug for PlanAccess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlanAccess")
    }
}

/// A workflow directory: `<home>/<project-id>/`.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    /// The project the workflow belongs to: a plugin state's `plan_file` may be
    /// relative to it (see `plan::adopt`).
    project: Option<PathBuf>,
    plan: PlanAccess,
}

impl Store {
    pub fn new(dir: PathBuf, plan: PlanAccess) -> Store {
        Store {
            dir,
            project: None,
            plan,
        }
    }

    /// The store of `project`'s workflow dir.
    pub fn for_project(dir: PathBuf, project: &Path, plan: PlanAccess) -> Store {
        Store {
            dir,
            project: Some(project.to_path_buf()),
            plan,
        }
    }

    pub fn plan(&self) -> PlanAccess {
        self.plan
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn state_path(&self) -> PathBuf {
        self.dir.join(STATE_FILE)
    }

    pub fn events_path(&self) -> PathBuf {
        self.dir.join(EVENTS_FILE)
    }

    pub fn lock_path(&self) -> PathBuf {
        self.dir.join(LOCK_FILE)
    }

    pub fn logs_dir(&self) -> PathBuf {
        self.dir.join("logs")
    }

    /// The state as of now — snapshot plus event-log tail — or `None` when no
    /// workflow was started here. Takes no lock and writes nothing.
    pub fn load(&self) -> Result<Option<WorkflowState>> {
        self.read_snapshot(Also::Tail)?
            .map(|read| fold(read.state, read.tail))
            .transpose()
    }

    /// What the read paths show (`wf status`, `wf next`, the hooks): from the
    /// summary beside the snapshot when it is current, else the whole state as
    /// `load` reads it, with its digest (`state::summary`). Takes no lock and writes
    /// nothing.
    pub fn view(&self) -> Result<Option<View>> {
        if !is_linked(&self.dir) {
            if let Some(view) = summary::read(&self.dir, &self.state_path(), &self.events_path()) {
                return Ok(Some(view));
            }
        }
        Ok(self.load()?.map(View::whole))
    }

    /// The snapshot alone, validated; a plugin-written one with its tasks adopted.
    pub fn load_snapshot(&self) -> Result<Option<WorkflowState>> {
        Ok(self.read_snapshot(Also::Nothing)?.map(|read| read.state))
    }

    /// [`Store::load_snapshot`], with the file it was read from, still open, and its
    /// identity as it was when the read began; and what `also` asks for.
    ///
    /// A writer (`Also::TailAndSpans`) leaves the tasks unread where the task index
    /// allows ([`parse_unread`]), found by the mark the snapshot's last lines name
    /// (our writer puts `event_log` last); any other read parses the whole file.
    fn read_snapshot(&self, also: Also) -> Result<Option<Read>> {
        let path = self.state_path();
        if crate::testing::full_load_forbidden() {
            return Err(WfError::new(
                ErrorKind::Usage,
                format!(
                    "{}: parsing the whole state is forbidden here (WF_TEST_NO_FULL_LOAD)",
                    path.display()
                ),
            ));
        }
        // Readers refuse a linked workflow dir as writers do: reading through it
        // would show a state that is not this workflow's.
        refuse_symlink(&self.dir)?;
        refuse_symlink(&path)?;
        let (file, meta) = match open_regular_kept(&path) {
            Ok(opened) => opened,
            Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => return Ok(None),
            Err(e) => return Err(e),
        };
        let id = FileId::of(&meta);
        let unread = (also == Also::TailAndSpans)
            .then(|| read_span(&file, meta.len().saturating_sub(128), meta.len()))
            .flatten()
            .and_then(|end| written_mark(&end))
            .and_then(|mark| parse_unread(&path, &file, id, &self.dir, mark));
        let (mut state, unread) = match unread {
            Some((state, source)) => (state, Some(source)),
            None => (parse_state(&path, &read_rest(&file)?)?, None),
        };
        (self.plan.adopt)(&mut state, &self.dir, self.project.as_deref());
        let tail = match also {
            Also::Nothing => Tail::default(),
            Also::Tail | Also::TailAndSpans => {
                read_tail(&self.events_path(), state.event_log.unwrap_or_default())?
            }
        };
        Ok(Some(Read {
            state,
            tail,
            file,
            id,
            unread,
        }))
    }

    /// Refuses a state without tasks in a workflow dir no `wf` writer has touched
    /// yet (no lock file: a plugin's dir), before the lock is taken, so the refusal
    /// leaves that dir exactly as it was — not even a lock file. Once `wf` has
    /// written here, the check under the lock is the one that counts.
    pub fn refuse_untouched_without_tasks(&self) -> Result<()> {
        if std::fs::symlink_metadata(self.lock_path()).is_ok() {
            return Ok(());
        }
        match self.load_snapshot()? {
            Some(state) => state.require_tasks(),
            None => Ok(()),
        }
    }

    /// Whether a `wf` process holds the writer's lock right now. Read-only: it never
    /// creates the lock file, and only probes the lock.
    pub fn writer_alive(&self) -> bool {
        let Ok(file) = crate::fs::open_regular(&self.lock_path(), false) else {
            return false;
        };
        match file.file().try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(_) => true,
        }
    }

    /// Takes the writer's lock, waiting up to `wait` for another holder.
    pub fn lock(&self, wait: Option<Duration>, command: &str) -> Result<Session> {
        ensure_dir(&self.dir)?;
        // Writers put logs, change records and archives in these; a link would send
        // those writes outside the workflow dir.
        for sub in ["logs", "changes", "archive"] {
            refuse_symlink(&self.dir.join(sub))?;
        }
        let path = self.lock_path();
        let file = crate::fs::durable::open_append(&path)?;
        // Without --wait there is still a short grace: `wf status` probes the lock
        // for a moment, and a writer that meets that probe must not fail for it.
        let deadline = Some(crate::clock::deadline_after(
            wait.unwrap_or(Duration::from_millis(150)),
        ));
        loop {
            match file.file().try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) => {
                    if deadline.is_some_and(|d| Instant::now() < d) {
                        std::thread::sleep(Duration::from_millis(20));
                        continue;
                    }
                    let holder = read_holder(&path);
                    let holder = holder.trim();
                    let who = if holder.is_empty() {
                        "another wf process".to_string()
                    } else {
                        format!("wf process {holder}")
                    };
                    let hint = if wait.is_some() {
                        "it did not finish within --wait"
                    } else {
                        "wait for it, or pass --wait to queue behind it"
                    };
                    return Err(WfError::new(
                        ErrorKind::Locked,
                        format!("{} is locked by {who}; {hint}", self.dir.display()),
                    ));
                }
                Err(std::fs::TryLockError::Error(e)) => {
                    return Err(WfError::io(
                        &e,
                        format!("cannot lock {}: {e}", path.display()),
                    ))
                }
            }
        }
        let mut lock = file;
        // Name the holder for whoever finds the lock taken. Best effort: the lock is
        // what guards, the text only explains.
        let _ = lock.file().set_len(0);
        let _ = writeln!(lock, "{} ({command})", std::process::id());
        // The snapshot's tasks are noted before the log's tail changes any of them,
        // so the next snapshot copies the records of the rest (`state::snapshot_file`).
        let (state, prior) = match self.read_snapshot(Also::TailAndSpans)? {
            Some(Read {
                state,
                tail,
                file,
                id,
                unread,
            }) => {
                let prior =
                    Prior::loaded(file, id, &state.tasks, &self.dir, state.event_log, unread);
                (Some(fold(state, tail)?), prior)
            }
            None => (None, None),
        };
        let saved_seq = session::marked_seq(state.as_ref());
        let mut session = Session {
            store: self.clone(),
            lock,
            state,
            log: None,
            in_txn: false,
            staged: false,
            saved_seq,
            catch_up: false,
            prior: Arc::new(Mutex::new(prior)),
            glance: None,
        };
        crate::state::recover::recover(&mut session, CatchUp::AtNextSave)?;
        Ok(session)
    }
}

/// The holder's text from the lock file. A holder empties the file and writes its
/// pid just after taking the lock; a contender that reads in that window would say
/// "another wf process" instead of naming it, so an empty file is read again briefly.
fn read_holder(path: &Path) -> String {
    let deadline = Instant::now() + Duration::from_millis(200);
    loop {
        let text = fs_err::read_to_string(path).unwrap_or_default();
        if !text.trim().is_empty() || Instant::now() >= deadline {
            return text;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The workflow dir is a link (refused by every load, which says so).
fn is_linked(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink())
}

fn no_workflow() -> WfError {
    WfError::usage("no workflow here yet; start one with `wf workflow-start PLAN.md`")
}

#[cfg(test)]
mod tests {
    use super::session::{synced_mark, write_snapshot};
    use super::*;
    use crate::state::event::TaskMove;
    use crate::state::event_log;
    use crate::state::evidence::Evidence;
    use crate::state::fold::apply_event;
    use crate::state::machine::TaskStatus;
    use crate::state::model::Glance;
    use crate::state::model::LogMark;
    use crate::state::task_ref::TaskRef;

    #[test]
    fn truncated_state_names_position() {
        let err = parse_state(Path::new("/w/s.json"), b"{\n  \"status\": \"run").unwrap_err();
        assert_eq!(err.kind, ErrorKind::CorruptState);
        assert!(err.message.starts_with("/w/s.json:2:"), "{}", err.message);
    }

    /// A store in `dir` whose plan access does nothing: these tests never adopt or
    /// mirror a plan.
    fn plain_store(dir: &Path) -> Store {
        let none = PlanAccess {
            adopt: |_, _, _| {},
            mirror: |_| Ok(()),
            digest_file: |_| Ok(String::new()),
        };
        Store::new(dir.join("w"), none)
    }

    /// A state of pending tasks with these ids.
    fn state_of(ids: &[&str]) -> WorkflowState {
        let mut state = WorkflowState::new();
        state.tasks = ids
            .iter()
            .map(|id| {
                TaskRef::new(crate::state::model::Task {
                    id: (*id).into(),
                    ..Default::default()
                })
            })
            .collect();
        state
    }

    #[test]
    fn a_tail_keeps_only_the_events_the_fold_applies() {
        let dir = tempfile::tempdir().unwrap();
        let events = dir.path().join("events.jsonl");
        let line = |seq: u64, kind: &str, extra: &str| {
            format!(
                r#"{{"seq":{seq},"ts":"t","type":"{kind}","task_id":"T1","actor":"wf.o","role":"o","data":{{"to":"completed"}}{extra}}}"#
            )
        };
        let log = [
            line(1, "task.status_changed", ""),
            line(2, "note.added", ""),
            line(3, "task.status_changed", r#","txn":true"#),
            line(4, "task.execution_started", ""),
            line(5, "another.tool", ""),
            // Not as our writer lays a line out: parsed whole, kept only if it
            // changes the state.
            line(6, "task.status_changed", "").replace(r#""seq":6,"#, r#""seq": 6,"#),
            line(7, "note.added", "").replace(r#""seq":7,"#, r#""seq": 7,"#),
        ]
        .join("\n");
        std::fs::write(&events, log + "\n").unwrap();
        let tail = read_tail(&events, LogMark { seq: 2, offset: 0 }).unwrap();
        assert!(tail.past_mark);
        assert_eq!(tail.events.iter().map(|e| e.seq).collect::<Vec<_>>(), [6]);
        // Past the mark, nothing the fold applies: still a read past it.
        let tail = read_tail(&events, LogMark { seq: 6, offset: 0 }).unwrap();
        assert!(tail.past_mark && tail.events.is_empty());
        let tail = read_tail(&events, LogMark { seq: 7, offset: 0 }).unwrap();
        assert!(!tail.past_mark && tail.events.is_empty());
    }

    /// A store in `dir` whose snapshot holds `tasks` tasks and whose log then
    /// completed the first `done` (with proofs, past 64 KB of log for 300), killed
    /// before it caught up.
    fn killed_with_a_tail(dir: &Path, tasks: usize, done: usize) -> Store {
        let store = plain_store(dir);
        let ids: Vec<String> = (1..=tasks).map(|i| format!("T{i}")).collect();
        let mut session = store.lock(None, "test").unwrap();
        session.state = Some(state_of(
            &ids.iter().map(String::as_str).collect::<Vec<_>>(),
        ));
        session.save().unwrap();
        let pad = "x".repeat(100);
        for id in &ids[..done] {
            let data = TaskMove {
                reason: Some(pad.clone()),
                ..TaskMove::default()
            };
            session
                .set_task_status(id, TaskStatus::InProgress, data, None)
                .unwrap();
            let proof = Evidence {
                at: format!("t-{id}"),
                ..Evidence::default()
            };
            session
                .complete_task(id, TaskMove::default(), proof)
                .unwrap();
        }
        session.log().unwrap().sync().unwrap();
        // Killed: no catch-up on the way out, and the lock is free.
        session.lock.file().unlock().unwrap();
        std::mem::forget(session);
        store
    }

    /// The log mark of `store`'s snapshot.
    fn snapshot_mark(store: &Store) -> LogMark {
        store.load_snapshot().unwrap().unwrap().event_log.unwrap()
    }

    /// Rewrites `store`'s snapshot, whose log mark is `mark`, so that its last lines
    /// name another one (inside a field of another tool's) a line 40 KB into the
    /// tail; its records stay where they were. The wrong mark and the new text.
    fn misled_at_a_wrong_mark(store: &Store, mark: LogMark) -> (LogMark, String) {
        let log = std::fs::read(store.events_path()).unwrap();
        let past = usize::try_from(mark.offset).unwrap() + 40_000;
        let line_start = past + log[past..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let wrong = LogMark {
            seq: mark.seq,
            offset: line_start as u64,
        };
        let text = std::fs::read_to_string(store.state_path()).unwrap();
        let end = text.rfind('}').unwrap();
        let misled = format!(
            "{},\n  \"other\": {{\"event_log\": {}}}\n}}\n",
            text[..end].trim_end(),
            serde_json::to_string(&wrong).unwrap()
        );
        std::fs::write(store.state_path(), &misled).unwrap();
        assert_eq!(written_mark(misled.as_bytes()), Some(wrong));
        (wrong, misled)
    }

    #[test]
    fn a_long_tail_folds_as_its_events_applied_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let store = killed_with_a_tail(dir.path(), 300, 300);
        let bytes = std::fs::read(store.state_path()).unwrap();
        let mark = parse_state(&store.state_path(), &bytes)
            .unwrap()
            .event_log
            .unwrap();
        assert_eq!(
            written_mark(&bytes),
            Some(mark),
            "the guess at our own layout"
        );
        let loaded = store.load().unwrap().unwrap();
        assert!(loaded
            .tasks
            .iter()
            .all(|t| t.status() == TaskStatus::Completed));
        // As the fold read it before any of this: every event parsed whole,
        // applied as it was read.
        let mut whole = store.load_snapshot().unwrap().unwrap();
        event_log::for_each_from(&store.events_path(), mark.offset, |event| {
            if event.seq > mark.seq {
                apply_event(&mut whole, &event)?;
            }
            Ok(())
        })
        .unwrap();
        whole.sync_progress();
        assert_eq!(loaded, whole);
        assert_eq!(
            loaded.tasks[9].task().unwrap().proof().map(|e| e.at),
            Some("t-T10".to_string())
        );
        // Last lines that name another mark: the tail is read from the real one.
        misled_at_a_wrong_mark(&store, mark);
        let reread = store.load().unwrap().unwrap();
        assert!(reread
            .tasks
            .iter()
            .all(|t| t.status() == TaskStatus::Completed));
        assert_eq!(reread.event_log, Some(mark));
    }

    #[test]
    fn a_writer_copies_records_where_the_index_read_with_the_load_says() {
        // A store killed after `done` of 600 tasks, locked, its index then deleted:
        // the records the stop snapshot copies.
        let copied_without_the_index = |done: usize| {
            let dir = tempfile::tempdir().unwrap();
            let store = killed_with_a_tail(dir.path(), 600, done);
            let mut session = store.lock(None, "test").unwrap();
            std::fs::remove_file(store.dir.join(crate::state::task_index::INDEX_FILE)).unwrap();
            let mark = synced_mark(session.log().unwrap()).unwrap();
            let state = session.state.as_mut().unwrap();
            state.event_log = Some(mark);
            let copied = write_snapshot(&store.dir, &store.state_path(), state, &session.prior);
            let written = std::fs::read(store.state_path()).unwrap();
            assert_eq!(written, serde_json::to_vec_pretty(state).unwrap());
            copied.unwrap()
        };
        // The load read the index (its tasks were left unread), with a long tail
        // or a short one: it is not needed again, and the records of the tasks the
        // tail left alone are copied.
        assert_eq!(copied_without_the_index(300), 300);
        assert_eq!(copied_without_the_index(3), 597);
    }

    #[test]
    fn a_writer_parses_only_the_records_of_the_tasks_it_looks_at() {
        for (tasks, done) in [(600, 300), (600, 3), (40, 0)] {
            let dir = tempfile::tempdir().unwrap();
            let store = killed_with_a_tail(dir.path(), tasks, done);
            let mut session = store.lock(None, "test").unwrap();
            let state = session.state.as_mut().unwrap();
            let read = |state: &WorkflowState| state.tasks.iter().filter(|t| t.is_read()).count();
            // The load read the records of the tasks the tail moved, and no other.
            assert_eq!(read(state), done, "{tasks} tasks, {done} done");
            assert!(state
                .tasks
                .iter()
                .all(|t| t.is_read() == (t.status() == TaskStatus::Completed)));
            // What the scheduler and the summary look at leaves the rest unread.
            state.sync_progress();
            let _ = crate::state::summary::Digest::of(state);
            assert_eq!(read(state), done);
            // Looked at whole, every task is what the whole parse reads.
            let whole = store.load().unwrap().unwrap();
            assert_eq!(*state, whole);
            // The next snapshot is byte for byte the whole serialization, the records
            // of the tasks left alone copied.
            let mark = synced_mark(session.log().unwrap()).unwrap();
            let state = session.state.as_mut().unwrap();
            state.event_log = Some(mark);
            let copied =
                write_snapshot(&store.dir, &store.state_path(), state, &session.prior).unwrap();
            assert_eq!(copied, tasks - done);
            let written = std::fs::read(store.state_path()).unwrap();
            assert_eq!(written, serde_json::to_vec_pretty(state).unwrap());
        }
    }

    #[test]
    fn a_broken_line_before_the_last_is_an_error_not_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let store = killed_with_a_tail(dir.path(), 50, 50);
        let events = store.events_path();
        let mark = snapshot_mark(&store);
        let mut log = std::fs::read(&events).unwrap();
        log.extend_from_slice(b"{\"seq\": broken\n");
        log.extend_from_slice(
            &std::fs::read(&events).unwrap()[usize::try_from(mark.offset).unwrap()..],
        );
        std::fs::write(&events, &log).unwrap();
        let Err(err) = read_tail(&events, mark) else {
            panic!("a broken line before the end read as none")
        };
        assert!(
            err.message.contains("after the snapshot is not valid JSON"),
            "{}",
            err.message
        );
    }

    #[test]
    fn a_snapshot_not_laid_out_as_its_index_says_is_parsed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = killed_with_a_tail(dir.path(), 50, 10);
        let path = store.state_path();
        let id = FileId::of(&std::fs::metadata(&path).unwrap());
        let mark = snapshot_mark(&store);
        let file = std::fs::File::open(&path).unwrap();
        assert!(parse_unread(&path, &file, id, &store.dir, mark).is_some());
        // Each index entry's span moved one byte on: no record where the index says.
        let index_path = store.dir.join(crate::state::task_index::INDEX_FILE);
        let index = std::fs::read_to_string(&index_path).unwrap();
        let shifted = regex::Regex::new(r"\[(\d+),(\d+)\]\]")
            .unwrap()
            .replace_all(&index, |c: &regex::Captures| {
                let n = |i: usize| c[i].parse::<u64>().unwrap() + 1;
                format!("[{},{}]]", n(1), n(2))
            });
        assert_ne!(shifted, index);
        std::fs::write(&index_path, shifted.as_bytes()).unwrap();
        assert!(parse_unread(&path, &file, id, &store.dir, mark).is_none());
        // Another mark than the index's, or another file: no index at all.
        std::fs::write(&index_path, index.as_bytes()).unwrap();
        let other = LogMark {
            seq: mark.seq + 1,
            ..mark
        };
        assert!(parse_unread(&path, &file, id, &store.dir, other).is_none());
        let moved = FileId {
            len: id.len + 1,
            ..id
        };
        assert!(parse_unread(&path, &file, moved, &store.dir, mark).is_none());
        // With the spans shifted, the lock parses every task, and gets them all.
        std::fs::write(&index_path, shifted.as_bytes()).unwrap();
        let session = store.lock(None, "test").unwrap();
        let tasks = &session.state().unwrap().tasks;
        assert_eq!(tasks.len(), 50);
        assert!(tasks.iter().all(TaskRef::is_read));
    }

    #[test]
    fn a_wrong_guess_of_the_mark_leaves_every_task_parsed() {
        let dir = tempfile::tempdir().unwrap();
        let store = killed_with_a_tail(dir.path(), 600, 300);
        let path = store.state_path();
        let mark = snapshot_mark(&store);
        let (wrong, _) = misled_at_a_wrong_mark(&store, mark);
        // An index that names this file at the wrong mark, so that the load finds
        // an index for its guess.
        let index_path = store.dir.join(crate::state::task_index::INDEX_FILE);
        let mut index: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&index_path).unwrap()).unwrap();
        let id = FileId::of(&std::fs::metadata(&path).unwrap());
        index["snapshot"] = serde_json::to_value(id).unwrap();
        index["event_log"] = serde_json::to_value(wrong).unwrap();
        std::fs::write(&index_path, serde_json::to_vec(&index).unwrap()).unwrap();
        assert!(crate::state::task_index::entries_for(&store.dir, id, wrong).is_some());

        let mut session = store.lock(None, "test").unwrap();
        std::fs::remove_file(&index_path).unwrap();
        let state = session.state.as_mut().unwrap();
        assert_eq!(state.event_log, Some(mark));
        let done = |state: &WorkflowState| {
            state
                .tasks
                .iter()
                .filter(|t| t.status() == TaskStatus::Completed)
                .count()
        };
        assert_eq!(done(state), 300);
        // The index went with the wrong guess (every task was parsed): with the
        // index gone, the write finds no spans, and copies no record.
        let mark = synced_mark(session.log().unwrap()).unwrap();
        let state = session.state.as_mut().unwrap();
        state.event_log = Some(mark);
        let copied = write_snapshot(&store.dir, &path, state, &session.prior).unwrap();
        assert_eq!(copied, 0);
        assert_eq!(done(&store.load().unwrap().unwrap()), 300);
    }

    #[test]
    fn a_snapshot_that_cannot_be_put_in_place_leaves_the_old_indexes_and_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let store = plain_store(dir.path());
        let mut session = store.lock(None, "test").unwrap();
        session.state = Some(state_of(&["T1", "T2"]));
        session.save().unwrap();
        let read = |name: &str| std::fs::read(store.dir.join(name)).unwrap();
        let before = (
            read(summary::SUMMARY_FILE),
            read(crate::state::task_index::INDEX_FILE),
        );
        // A directory in the snapshot's place: its rename fails.
        let path = store.state_path();
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir_all(path.join("in the way")).unwrap();
        let state = session.state.as_mut().unwrap();
        state.tasks[0].make_mut().unwrap().status = TaskStatus::Completed;
        assert!(write_snapshot(&store.dir, &path, state, &session.prior).is_err());
        assert_eq!(
            (
                read(summary::SUMMARY_FILE),
                read(crate::state::task_index::INDEX_FILE)
            ),
            before
        );
        let temps = std::fs::read_dir(&store.dir)
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy()
                    .starts_with(crate::fs::durable::TMP_PREFIX)
            })
            .count();
        assert_eq!(temps, 0);
    }

    #[test]
    fn locked_error_names_the_holder_written_just_after_the_lock() {
        // Regression: a contender reading the lock file between the holder's
        // truncate and its pid write said "another wf process" (seen in
        // tests/integration/concurrency.rs).
        let dir = tempfile::tempdir().unwrap();
        let store = plain_store(dir.path());
        let _held = store.lock(None, "test").unwrap();
        std::fs::write(store.lock_path(), "").unwrap();
        let lock_path = store.lock_path();
        let writer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            std::fs::write(lock_path, "4242 (workflow-execute)\n").unwrap();
        });
        let err = store.lock(None, "second").err().unwrap();
        writer.join().unwrap();
        assert_eq!(err.kind, ErrorKind::Locked);
        assert!(err.message.contains("wf process 4242"), "{}", err.message);
    }

    #[test]
    fn a_snapshot_taken_is_written_as_it_was_while_the_session_moves_on() {
        let dir = tempfile::tempdir().unwrap();
        let store = plain_store(dir.path());
        let mut session = store.lock(None, "test").unwrap();
        session.state = Some(state_of(&["T1", "T2"]));
        session.save().unwrap();
        session
            .set_task_status("T1", TaskStatus::InProgress, TaskMove::default(), None)
            .unwrap();
        let snapshot = session.snapshot().unwrap().expect("a snapshot to write");
        // The session goes on while the snapshot waits to be written: its tasks
        // were shared, so this change must copy T1, not reach the snapshot.
        session
            .set_task_status("T1", TaskStatus::Completed, TaskMove::default(), None)
            .unwrap();
        let written = snapshot.write().unwrap();
        let status = |s: &WorkflowState, i: usize| s.tasks[i].status();
        assert_eq!(status(&written, 0), TaskStatus::InProgress);
        assert_eq!(status(session.state().unwrap(), 0), TaskStatus::Completed);
        // T2 was not changed: still one task for both.
        assert!(TaskRef::ptr_eq(
            &written.tasks[1],
            &session.state().unwrap().tasks[1]
        ));
        // On disk: the snapshot as taken, marking the log up to the first change,
        // and progress recomputed from its tasks; readers fold the second change.
        let on_disk = store.load_snapshot().unwrap().unwrap();
        assert_eq!(status(&on_disk, 0), TaskStatus::InProgress);
        assert_eq!(on_disk.event_log, written.event_log);
        assert!(on_disk.progress.completed.is_empty());
        assert_eq!(
            status(&store.load().unwrap().unwrap(), 0),
            TaskStatus::Completed
        );
    }

    #[test]
    fn a_writer_copies_the_records_of_the_snapshot_it_loaded_where_the_index_says() {
        let dir = tempfile::tempdir().unwrap();
        let store = plain_store(dir.path());
        let mut session = store.lock(None, "test").unwrap();
        session.state = Some(state_of(&["T1", "T2", "T3"]));
        session
            .set_task_status("T1", TaskStatus::InProgress, TaskMove::default(), None)
            .unwrap();
        session.save().unwrap();
        drop(session);
        // Taken again: the snapshot is loaded, the log holds nothing past it.
        let mut session = store.lock(None, "test").unwrap();
        session
            .set_task_status("T2", TaskStatus::InProgress, TaskMove::default(), None)
            .unwrap();
        let path = store.state_path();
        // As `save` writes it, the log's mark with it.
        let copy = |session: &mut Session| {
            let mark = synced_mark(session.log().unwrap()).unwrap();
            let state = session.state.as_mut().unwrap();
            state.event_log = Some(mark);
            write_snapshot(&store.dir, &path, state, &session.prior).unwrap()
        };
        assert_eq!(copy(&mut session), 2);
        let written = std::fs::read(&path).unwrap();
        let state = session.state.as_ref().unwrap();
        assert_eq!(written, serde_json::to_vec_pretty(state).unwrap());
        // A snapshot that is not the file the index names (a copy put in its place)
        // is serialized whole.
        drop(session);
        std::fs::copy(&path, dir.path().join("copy")).unwrap();
        std::fs::rename(dir.path().join("copy"), &path).unwrap();
        let mut session = store.lock(None, "test").unwrap();
        assert_eq!(copy(&mut session), 0);
    }

    #[test]
    fn future_schema_is_refused() {
        let err =
            parse_state(Path::new("s"), br#"{"wf_schema": 99, "status": "idle"}"#).unwrap_err();
        assert!(err.message.contains("newer wf"), "{}", err.message);
    }
}
