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

use std::io::{Seek, Write};

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::config::Role;
use crate::error::{ErrorKind, Result, WfError};
use crate::fs::durable::Temp;
use crate::fs::{ensure_dir, open_regular_kept, read_rest, read_span, refuse_symlink};
use crate::state::event::{EventData, TaskMove, WorkflowMove};
use crate::state::event_log::{self, Event, EventLog, NewEvent};
use crate::state::evidence::{Evidence, Proof};
use crate::state::fold::{apply_event, apply_live, folds};
use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::{Glance, LogMark, WorkflowState, SCHEMA_VERSION};
use crate::state::recover::CatchUp;
use crate::state::snapshot_file::{self, Prior, SharedPrior};
use crate::state::summary::{self, FileId, View};
use crate::state::task_ref::TaskRef;

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
    /// allows ([`parse_unread`]); any other read parses the whole file. A long tail
    /// — after a crash, a second or more of progress — is read on a second thread
    /// meanwhile, from the mark the snapshot's last lines name (our writer puts
    /// `event_log` last). The parse then says whether that was its mark; if not,
    /// the tail is read again from the one it has.
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
        let events = self.events_path();
        let guess = (also != Also::Nothing)
            .then(|| read_span(&file, meta.len().saturating_sub(128), meta.len()))
            .flatten()
            .and_then(|end| written_mark(&end));
        let beside = guess.filter(|mark| worth_a_thread(&events, *mark));
        let parse = || {
            let unread = guess
                .filter(|_| also == Also::TailAndSpans)
                .and_then(|mark| parse_unread(&path, &file, id, &self.dir, mark));
            match unread {
                Some((state, source)) => Ok((state, Some(source))),
                None => parse_state(&path, &read_rest(&file)?).map(|state| (state, None)),
            }
        };
        let split = beside
            .filter(|_| also == Also::TailAndSpans)
            .and_then(|mark| {
                tail_split(
                    &events,
                    mark,
                    &self.dir.join(crate::state::task_index::INDEX_FILE),
                )
            });
        let (early, parsed) = match beside {
            Some(mark) => {
                let (first, (parsed, rest)) = crate::beside::both(
                    || read_tail_in(&events, mark, mark.offset, split),
                    || {
                        let parsed = parse();
                        let rest = split.map(|at| read_tail_in(&events, mark, at, None));
                        (parsed, rest)
                    },
                );
                (Some((mark, joined(first, rest))), parsed)
            }
            None => (None, parse()),
        };
        let (mut state, unread) = parsed?;
        (self.plan.adopt)(&mut state, &self.dir, self.project.as_deref());
        let mark = state.event_log.unwrap_or_default();
        let tail = match early {
            // A part that fails is read again whole, for the error the whole read gives.
            Some((guess, Some(tail))) if guess == mark => tail,
            early => {
                // A wrong guess's events go before the tail is read again.
                drop(early);
                match also {
                    Also::Nothing => Tail::default(),
                    Also::Tail | Also::TailAndSpans => read_tail(&events, mark)?,
                }
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
        let saved_seq = state
            .as_ref()
            .and_then(|s| s.event_log)
            .map_or(0, |m| m.seq);
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

/// A locked read-modify-write of one workflow. Dropping it releases the lock.
pub struct Session {
    store: Store,
    lock: fs_err::File,
    /// The current state (snapshot plus folded log), `None` before the first start.
    pub state: Option<WorkflowState>,
    log: Option<EventLog>,
    /// Events emitted now belong to a transaction that the next `save` commits.
    in_txn: bool,
    /// Side files of a change are written but not yet all in place.
    staged: bool,
    /// The last event the snapshot on disk covers.
    saved_seq: u64,
    /// The snapshot was behind the log when the lock was taken: the next save also
    /// brings the plan copy up (`recover::CatchUp::AtNextSave`); if none comes, the
    /// drop settles it (the log is ahead of `saved_seq`).
    catch_up: bool,
    /// The snapshot on disk, for the next one to copy unchanged records from.
    prior: SharedPrior,
}

impl Drop for Session {
    fn drop(&mut self) {
        // Events held by a scheduler that stopped on an error: written, as they
        // would have been at its next turn. Best effort: if the write fails they are
        // not in the log, and the settling below drops them from the state too.
        if let Some(log) = self.log.as_mut() {
            let _ = log.write_held();
        }
        // A command that failed after appending events, or inside a transaction,
        // leaves the snapshot behind the log or side files of an attempt: settle them
        // now, while still holding the lock, as the next writer would. Best effort: if
        // the disk refuses again, the next writer does it.
        let behind = self
            .log
            .as_ref()
            .is_some_and(|l| l.mark().0 > self.saved_seq);
        if self.in_txn || self.staged || behind {
            let _ = self.settle();
        }
        // Still locked here: clear the holder's pid so a later refusal never names a
        // process that is gone. Best effort; the lock is what guards.
        let _ = self.lock.file().set_len(0);
    }
}

impl Session {
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The state, or the error every command but `workflow-start` gives without one.
    pub fn state(&self) -> Result<&WorkflowState> {
        self.state.as_ref().ok_or_else(no_workflow)
    }

    pub fn state_mut(&mut self) -> Result<&mut WorkflowState> {
        self.state.as_mut().ok_or_else(no_workflow)
    }

    /// Appends an event to the log — it is part of the state from now on, even
    /// before the next snapshot, unless a transaction is open (see `begin_txn`) — and
    /// applies it to the state when its kind changes state
    /// ([`EventKind::changes_state`](crate::state::event::EventKind::changes_state)). Status moves go through `set_task_status` and
    /// `set_workflow_status`, which check them against the tables first.
    pub fn emit(&mut self, mut event: NewEvent) -> Result<Event> {
        event.txn = self.in_txn;
        let applies = event.data.changes_state();
        let event = self.log()?.append(event)?;
        if applies {
            apply_live(self.state_mut()?, &event)?;
        }
        Ok(event)
    }

    /// Holds the events emitted from now on in memory until [`Session::write_held_events`]
    /// (or a save) writes them together: one `write` for a scheduler's turn
    /// ([`EventLog::hold`] says when they must be written).
    pub fn hold_events(&mut self) -> Result<()> {
        self.log()?.hold();
        Ok(())
    }

    /// Writes the events held since [`Session::hold_events`], if any.
    pub fn write_held_events(&mut self) -> Result<()> {
        match self.log.as_mut() {
            Some(log) => log.write_held(),
            None => Ok(()),
        }
    }

    /// Writes the held events and ends the hold: each event is written as it is
    /// emitted again.
    pub fn release_events(&mut self) -> Result<()> {
        match self.log.as_mut() {
            Some(log) => log.release(),
            None => Ok(()),
        }
    }

    /// Opens a transaction: events emitted from now until the next `save` are marked
    /// `txn`, which readers never fold; they take effect only through the snapshot
    /// that `save` renames into place, all at once. For changes that touch more than
    /// the state (an import writes a plan copy and a change record; an archive moves
    /// files), so a reader never sees events of a change whose files are not there.
    pub fn begin_txn(&mut self) {
        self.in_txn = true;
    }

    /// Side files of this change (staged copies, a journal) are about to be written:
    /// until [`Session::side_files_placed`], dropping the session settles them.
    pub fn stage_side_files(&mut self) {
        self.staged = true;
    }

    pub fn side_files_placed(&mut self) {
        self.staged = false;
    }

    /// The writer's end of the event log, opened on first use.
    pub(crate) fn log(&mut self) -> Result<&mut EventLog> {
        if self.log.is_none() {
            let after = self
                .state
                .as_ref()
                .and_then(|s| s.event_log)
                .map_or(0, |m| m.seq);
            self.log = Some(EventLog::open(&self.store.events_path(), after)?);
        }
        self.log.as_mut().ok_or_else(no_workflow)
    }

    /// Drops what this session holds in memory and recovers from the files alone:
    /// an open transaction is rolled back, and the snapshot catches up with the log.
    fn settle(&mut self) -> Result<()> {
        self.log = None;
        self.in_txn = false;
        self.staged = false;
        self.state = self.store.load()?;
        self.saved_seq = self
            .state
            .as_ref()
            .and_then(|s| s.event_log)
            .map_or(0, |m| m.seq);
        crate::state::recover::recover(self, CatchUp::Now)
    }

    /// See `recover::CatchUp::AtNextSave`.
    pub(crate) fn catch_up_at_next_save(&mut self) {
        self.catch_up = true;
    }

    /// Forgets the state and the log after their files were moved away (an archive).
    pub(crate) fn clear(&mut self) {
        self.state = None;
        self.log = None;
        self.in_txn = false;
        self.staged = false;
    }

    /// Moves a task through the task machine: checked, logged, applied. `data`'s
    /// `from` and `to` are set here.
    pub fn set_task_status(
        &mut self,
        id: &str,
        to: TaskStatus,
        data: TaskMove,
        executor: Option<(&str, Role)>,
    ) -> Result<Event> {
        let mut event = self.task_move(id, to, data)?;
        if let Some((name, role)) = executor {
            event = event.executor(name, role);
        }
        self.emit(event)
    }

    /// Completes a task with its proof: [`Session::set_task_status`] to completed,
    /// the evidence carried in the move.
    pub fn complete_task(
        &mut self,
        id: &str,
        mut data: TaskMove,
        evidence: Evidence,
    ) -> Result<Event> {
        data.evidence = Some(Proof::of(evidence));
        let event = self.task_move(id, TaskStatus::Completed, data)?;
        self.emit(event)
    }

    /// The event that moves task `id` to `to`, checked against the task machine.
    fn task_move(&self, id: &str, to: TaskStatus, mut data: TaskMove) -> Result<NewEvent> {
        let from = self
            .state()?
            .task(id)
            .ok_or_else(|| WfError::usage(format!("no task {id} in this workflow")))?
            .status;
        from.to(to, id)?;
        data.from = from;
        data.to = to;
        Ok(NewEvent::new(EventData::TaskStatusChanged(data)).task(id))
    }

    /// Moves the workflow through the workflow machine: checked, logged, applied.
    pub fn set_workflow_status(
        &mut self,
        to: WorkflowStatus,
        reason: Option<&str>,
    ) -> Result<Event> {
        let from = self.state()?.status;
        from.to(to)?;
        let reason = reason.map(str::to_string);
        self.emit(NewEvent::new(EventData::WorkflowStatusChanged(
            WorkflowMove { from, to, reason },
        )))
    }

    /// Makes the next save copy the records `prior` holds of the state's tasks: a
    /// fresh import's, written as it made them (`state::spill`).
    pub fn copy_records_from(&mut self, prior: Prior) {
        Prior::keep(&self.prior, Some(prior));
    }

    /// `save` as a checkpoint's first half, for `run::checkpoint::save`, which brings
    /// the plan copy up to the state next: a catch-up save after a crash does not
    /// mirror the copy itself here, as a bare `save` does.
    pub(crate) fn checkpoint_snapshot(&mut self) -> Result<()> {
        self.catch_up = false;
        self.save()
    }

    /// Writes the snapshot: everything emitted so far is folded into it. The log is
    /// synced first, so the snapshot never marks events a power loss could take back.
    /// The rename of the snapshot commits an open transaction.
    pub fn save(&mut self) -> Result<()> {
        let Some(state) = self.state.as_mut() else {
            return Err(no_workflow());
        };
        // A transaction's save commits a new plan copy of its own (promoted after it).
        let mirror = std::mem::take(&mut self.catch_up) && !self.in_txn;
        if let Some(log) = self.log.as_mut() {
            state.event_log = Some(synced_mark(log)?);
        } else if state.event_log.is_none() {
            let log = EventLog::open(&self.store.events_path(), 0)?;
            let (seq, offset) = log.mark();
            state.event_log = Some(LogMark { seq, offset });
        }
        write_snapshot(
            &self.store.dir,
            &self.store.state_path(),
            state,
            &self.prior,
        )?;
        self.saved_seq = state.event_log.map_or(0, |m| m.seq);
        self.in_txn = false;
        if mirror {
            (self.store.plan.mirror)(self)?;
        }
        Ok(())
    }

    /// The state as it stands, to be written as the snapshot on another thread while
    /// this session goes on (a run's periodic checkpoints, src/run/checkpoint.rs),
    /// with the log synced up to the mark it carries, as `save` does. Its tasks are
    /// shared with this state, not copied: a task changed meanwhile is copied first
    /// (`WorkflowState::task_mut`). `None` when the save has to be written here and
    /// now: inside a transaction (its rename commits it), for the catch-up save
    /// after a crash (which also mirrors the plan copy), or before any event.
    pub fn snapshot(&mut self) -> Result<Option<Snapshot>> {
        if self.in_txn || self.catch_up {
            return Ok(None);
        }
        let Some(log) = self.log.as_mut() else {
            return Ok(None);
        };
        let mark = synced_mark(log)?;
        let state = self.state.as_mut().ok_or_else(no_workflow)?;
        // Recomputed from the tasks when the copy is written: not worth copying.
        let progress = std::mem::take(&mut state.progress);
        let mut copy = state.clone();
        state.progress = progress;
        copy.event_log = Some(mark);
        Ok(Some(Snapshot {
            state: copy,
            dir: self.store.dir.clone(),
            prior: Arc::clone(&self.prior),
        }))
    }
}

/// The log synced, and the mark of its end: what a snapshot may say it holds, so it
/// never marks events a power loss could take back.
fn synced_mark(log: &mut EventLog) -> Result<LogMark> {
    log.sync()?;
    let (seq, offset) = log.mark();
    Ok(LogMark { seq, offset })
}

/// A state taken by [`Session::snapshot`], to write as the workflow's snapshot. The
/// session's own `saved_seq` does not move: until a save of its own, a session that
/// ends early settles from the files (its drop), whether this write landed or not.
#[derive(Debug)]
pub struct Snapshot {
    state: WorkflowState,
    dir: PathBuf,
    prior: SharedPrior,
}

impl Snapshot {
    /// Writes it as `Session::save` does, and gives the state written.
    pub fn write(mut self) -> Result<WorkflowState> {
        let path = self.dir.join(STATE_FILE);
        write_snapshot(&self.dir, &path, &mut self.state, &self.prior)?;
        Ok(self.state)
    }
}

/// The snapshot of `state` at `path`, and the summary of it beside it; the records
/// of the tasks unchanged since `prior`'s snapshot are copied from it (their number
/// is returned), and this snapshot becomes the prior of the next.
fn write_snapshot(
    dir: &Path,
    path: &Path,
    state: &mut WorkflowState,
    prior: &SharedPrior,
) -> Result<usize> {
    state.sync_progress();
    // The summary and index of the snapshot being replaced stay until the new ones
    // replace them: until the rename they still describe the file at `path`, and
    // after it no reader takes them (they name the old file, which a new snapshot
    // never is). Removed first, a stop in the middle of a 100,000-task snapshot left
    // readers the whole load.
    // Streamed into the temp file: a 10,000-task snapshot is 4–9 MB of JSON that
    // need not also sit in memory.
    let copier = Prior::take(prior).and_then(Prior::copier);
    let mut temp = Temp::create(path)?;
    let written = temp.fill(|file| {
        let copied = snapshot_file::write(&mut *file, state, copier)?;
        if copied.intact {
            return Ok(copied);
        }
        // The old file was written over while its records were copied: this one is
        // written again, every task serialized.
        file.set_len(0)?;
        file.seek(std::io::SeekFrom::Start(0))?;
        snapshot_file::write(&mut *file, state, None)
    })?;
    // The summary and index name the file as written; a sync and a rename leave
    // what names it as it is.
    let (synced, staged) = temp.sync_with(|meta| {
        let id = meta.map(FileId::of)?;
        Some((id, summary::stage(dir, id, state, &written.spans)))
    })?;
    synced.commit()?;
    let file_id = staged.map(|(id, staged)| {
        staged.place();
        id
    });
    let next = file_id.and_then(|id| Prior::written(path, id, &state.tasks, written.spans));
    Prior::keep(prior, next);
    Ok(written.copied)
}

/// A snapshot as read: the state it holds, the log's tail past its mark (when asked
/// for), and the file it came from, with its identity when the read began.
struct Read {
    state: WorkflowState,
    tail: Tail,
    file: std::fs::File,
    id: FileId,
    /// The file the tasks were left unread in ([`parse_unread`]), whose records
    /// they name.
    unread: Option<Arc<crate::state::task_ref::Source>>,
}

/// What a read of the snapshot reads besides it.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Also {
    Nothing,
    /// The event log's tail past the snapshot's mark, read as the fold reads it.
    Tail,
    /// The tail, for a writer: its tasks left unread where the task index allows
    /// ([`parse_unread`]), whose spans the writer's next snapshot copies from
    /// (`state::snapshot_file`).
    TailAndSpans,
}

/// What the whole load folds of the log past a snapshot's mark.
#[derive(Default)]
struct Tail {
    /// The events to apply, in order: those past the mark that the fold applies
    /// (`fold::folds`).
    events: Vec<Event>,
    /// Whether any line past the mark was read.
    past_mark: bool,
}

/// `state`, as read from the snapshot, with the log's `tail` past its mark folded on.
fn fold(mut state: WorkflowState, tail: Tail) -> Result<WorkflowState> {
    for event in &tail.events {
        apply_event(&mut state, event)?;
    }
    if tail.past_mark {
        state.sync_progress();
    }
    Ok(state)
}

/// The events of the log past `mark`, as the fold reads them
/// (`event_log::read_for_fold`); only those it applies are kept.
fn read_tail(events: &Path, mark: LogMark) -> Result<Tail> {
    read_tail_in(events, mark, mark.offset, None)
}

/// The tail read in two parts, the second (if any) after the first; none when a part
/// failed.
fn joined(first: Result<Tail>, rest: Option<Result<Tail>>) -> Option<Tail> {
    let mut tail = first.ok()?;
    if let Some(rest) = rest {
        let rest = rest.ok()?;
        tail.past_mark |= rest.past_mark;
        tail.events.extend(rest.events);
    }
    Some(tail)
}

/// [`read_tail`] of the log's bytes `start..end` (`end` a line's start; none: to
/// the log's end).
fn read_tail_in(events: &Path, mark: LogMark, start: u64, end: Option<u64>) -> Result<Tail> {
    let mut tail = Tail::default();
    event_log::for_each_parsed_in(
        events,
        start,
        end,
        |_, line| event_log::read_for_fold(line),
        |(seq, event)| {
            if seq > mark.seq {
                tail.past_mark = true;
                tail.events.extend(event.filter(|e| folds(e.kind(), e.txn)));
            }
            Ok(())
        },
    )?;
    Ok(tail)
}

/// Where a writer's load splits a long tail: the thread beside the parse reads the
/// log up to there, and this one the rest once its parse is done. A writer's parse
/// is mostly the task index, read at about 30 instructions a byte against the log's
/// 50 (BENCHMARKS.md), so the part left to this thread is what evens the two out:
/// none when the index is as long to read as the whole tail.
fn tail_split(events: &Path, mark: LogMark, index: &Path) -> Option<u64> {
    let log = std::fs::metadata(events).ok()?.len();
    let tail = log.checked_sub(mark.offset)?;
    let index = std::fs::metadata(index).map_or(0, |m| m.len());
    let here = (tail * 5).checked_sub(index * 3)? / 10;
    let here = here.min(tail / 2);
    if here < 64 * 1024 {
        return None;
    }
    event_log::line_start_from(events, log - here)
}

/// The log mark in the last lines of a snapshot as our writer lays it out (a guess:
/// the parse has the real one).
fn written_mark(snapshot: &[u8]) -> Option<LogMark> {
    const KEY: &[u8] = b"\"event_log\": ";
    let end = &snapshot[snapshot.len().saturating_sub(128)..];
    let at = end.windows(KEY.len()).rposition(|w| w == KEY)?;
    let mut marks =
        serde_json::Deserializer::from_slice(&end[at + KEY.len()..]).into_iter::<LogMark>();
    marks.next()?.ok()
}

/// Whether the log's tail past `mark` is long enough to read on a thread of its own.
/// Reading 64 KB of log is about 3 M instructions (well under a millisecond here;
/// 88 M for the 1.8 MB a 10,000-task crash leaves), many times what starting a
/// thread costs; a shorter tail is not worth the thread's memory, and most loads
/// have none.
fn worth_a_thread(events: &Path, mark: LogMark) -> bool {
    std::fs::metadata(events).is_ok_and(|m| m.len().saturating_sub(mark.offset) >= 64 * 1024)
}

/// The workflow dir is a link (refused by every load, which says so).
fn is_linked(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.file_type().is_symlink())
}

fn no_workflow() -> WfError {
    WfError::usage("no workflow here yet; start one with `wf workflow-start PLAN.md`")
}

/// Parses and validates a state file's bytes; errors name the path and position.
pub fn parse_state(path: &Path, bytes: &[u8]) -> Result<WorkflowState> {
    let corrupt = |pos: String, what: String| {
        WfError::new(
            ErrorKind::CorruptState,
            format!(
                "{}{pos}: {what}; the file was left as it was (restore a backup-*.json or start again with `wf workflow-start --force`)",
                path.display()
            ),
        )
    };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, col) = crate::fs::line_col(bytes, e.valid_up_to());
        corrupt(
            format!(":{line}:{col}"),
            "the state file is not UTF-8".into(),
        )
    })?;
    // One typed pass in the common case: parsing into a `Value` first (to look at
    // `wf_schema`) and then again typed cost two full parses of every read — most of
    // `wf status` on a big workflow. The slow path below runs only when the typed
    // parse fails, so its errors (position, newer schema, layout) are unchanged.
    if let Ok(state) = serde_json::from_str::<WorkflowState>(text) {
        if state.wf_schema <= SCHEMA_VERSION {
            return refuse_duplicate_ids(state, &corrupt);
        }
    }
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        corrupt(
            format!(":{}:{}", e.line(), e.column()),
            format!(
                "the state file is not valid JSON ({})",
                crate::error::one_line(&e.to_string())
            ),
        )
    })?;
    if let Some(v) = value.get("wf_schema") {
        match v.as_u64() {
            Some(n) if n <= u64::from(SCHEMA_VERSION) => {}
            Some(n) => {
                return Err(corrupt(
                    String::new(),
                    format!("written by a newer wf (wf_schema {n}; this wf reads up to {SCHEMA_VERSION}); upgrade wf"),
                ))
            }
            None => return Err(corrupt(String::new(), "wf_schema is not a number".into())),
        }
    }
    let state = serde_json::from_str::<WorkflowState>(text).map_err(|e| {
        corrupt(
            format!(":{}:{}", e.line(), e.column()),
            format!(
                "the state does not fit the workflow-state layout ({})",
                crate::error::one_line(&e.to_string())
            ),
        )
    })?;
    refuse_duplicate_ids(state, &corrupt)
}

/// The state in the snapshot `file` (the file `id` at `path`) with every task left
/// unread (`state::task_ref`): the task index written with it (log mark `mark`) by
/// this build says where each record is and what a scheduler needs of it, and only
/// the rest of the file is read and parsed. `None` when the index is not that, or
/// the file is not laid out as it says: the whole parse reads it, and names what is
/// wrong.
///
/// A `--step` after a crash at 10,000 tasks spent three fifths of its instructions
/// parsing records it never looked at (BENCHMARKS.md).
fn parse_unread(
    path: &Path,
    file: &std::fs::File,
    id: FileId,
    dir: &Path,
    mark: LogMark,
) -> Option<(WorkflowState, Arc<crate::state::task_ref::Source>)> {
    let entries = crate::state::task_index::entries_for(dir, id, mark)?;
    let in_order = entries
        .windows(2)
        .all(|w| w[0].span.bounds()[1] < w[1].span.bounds()[0]);
    let (first, last) = (
        entries.first()?.span.bounds()[0],
        entries.last()?.span.bounds()[1],
    );
    if !in_order || first >= last || last > id.len {
        return None;
    }
    let head = read_span(file, 0, first)?;
    let rest = read_span(file, last, id.len)?;
    let open = head.trim_ascii_end().len().checked_sub(1)?;
    let key = head[..open].trim_ascii_end();
    let close = rest.len() - rest.trim_ascii_start().len();
    let laid_out =
        head[open] == b'[' && key.ends_with(b"\"tasks\":") && rest.get(close) == Some(&b']');
    if !laid_out {
        return None;
    }
    let mut text = head;
    text.truncate(open + 1);
    text.extend_from_slice(&rest[close..]);
    let mut state = parse_state(path, &text).ok()?;
    if state.event_log != Some(mark) || first_repeated(entries.iter().map(Glance::id)).is_some() {
        return None;
    }
    let source = Arc::new(crate::state::task_ref::Source {
        snapshot: Some(path.to_path_buf()),
        file: file.try_clone().ok()?,
    });
    state.tasks = entries
        .into_iter()
        .map(|glance| {
            TaskRef::unread(crate::state::task_ref::Record {
                source: Arc::clone(&source),
                glance,
            })
        })
        .collect();
    Some((state, source))
}

/// Tasks are found by id; with two of one id, updates would land on one and readers
/// could see the other.
fn refuse_duplicate_ids(
    state: WorkflowState,
    corrupt: &dyn Fn(String, String) -> WfError,
) -> Result<WorkflowState> {
    if let Some(dup) = first_repeated(state.tasks.iter().map(Glance::id)) {
        return Err(corrupt(
            String::new(),
            format!(
                "task id \"{}\" appears twice in tasks",
                crate::error::one_line(dup)
            ),
        ));
    }
    Ok(state)
}

/// The first id that comes again among `ids`.
fn first_repeated<'a>(ids: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::<_, foldhash::fast::RandomState>::default();
    ids.into_iter().find(|id| !seen.insert(*id))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Glance;

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
    /// tail, still worth a thread; its records stay where they were. The wrong
    /// mark and the new text.
    fn misled_at_a_wrong_mark(store: &Store, mark: LogMark) -> (LogMark, String) {
        let log = std::fs::read(store.events_path()).unwrap();
        let past = usize::try_from(mark.offset).unwrap() + 40_000;
        let line_start = past + log[past..].iter().position(|&b| b == b'\n').unwrap() + 1;
        let wrong = LogMark {
            seq: mark.seq,
            offset: line_start as u64,
        };
        assert!(worth_a_thread(&store.events_path(), wrong));
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
    fn a_long_tail_read_beside_the_parse_folds_as_read_after_it() {
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
        assert!(worth_a_thread(&store.events_path(), mark));
        let beside = store.load().unwrap().unwrap();
        assert!(beside
            .tasks
            .iter()
            .all(|t| t.status == TaskStatus::Completed));
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
        assert_eq!(beside, whole);
        assert_eq!(
            beside.tasks[9].proof().map(|e| e.at),
            Some("t-T10".to_string())
        );
        // Last lines that name another mark: the guess is wrong, and the tail is
        // read again from the real one.
        misled_at_a_wrong_mark(&store, mark);
        let reread = store.load().unwrap().unwrap();
        assert!(reread
            .tasks
            .iter()
            .all(|t| t.status == TaskStatus::Completed));
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
        // read beside it or a short one after: it is not needed again, and the
        // records of the tasks the tail left alone are copied.
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
    fn a_tail_read_in_two_parts_is_the_tail_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = killed_with_a_tail(dir.path(), 1500, 1500);
        let events = store.events_path();
        let mark = snapshot_mark(&store);
        let whole = read_tail(&events, mark).unwrap();
        let seqs = |tail: &Tail| tail.events.iter().map(|e| e.seq).collect::<Vec<_>>();
        let len = std::fs::metadata(&events).unwrap().len();
        for at in [mark.offset + 1, u64::midpoint(mark.offset, len), len - 1000] {
            let split = event_log::line_start_from(&events, at).unwrap();
            let first = read_tail_in(&events, mark, mark.offset, Some(split));
            let rest = read_tail_in(&events, mark, split, None);
            let two = joined(first, Some(rest)).unwrap();
            assert_eq!(seqs(&two), seqs(&whole), "split at {split}");
            assert!(two.past_mark);
        }
        // The lock splits a tail this long, and folds what the whole load folds.
        let index = store.dir.join(crate::state::task_index::INDEX_FILE);
        assert!(tail_split(&events, mark, &index).is_some());
        let session = store.lock(None, "test").unwrap();
        assert_eq!(*session.state().unwrap(), store.load().unwrap().unwrap());
    }

    #[test]
    fn a_broken_line_at_the_end_of_a_part_is_an_error_not_a_torn_line() {
        let dir = tempfile::tempdir().unwrap();
        let store = killed_with_a_tail(dir.path(), 50, 50);
        let events = store.events_path();
        let mark = snapshot_mark(&store);
        let mut log = std::fs::read(&events).unwrap();
        let split = log.len() as u64;
        log.extend_from_slice(b"{\"seq\": broken\n");
        let at = log.len() as u64;
        log.extend_from_slice(
            &std::fs::read(&events).unwrap()[usize::try_from(mark.offset).unwrap()..],
        );
        std::fs::write(&events, &log).unwrap();
        assert!(read_tail_in(&events, mark, mark.offset, Some(at)).is_err());
        assert!(read_tail_in(&events, mark, mark.offset, Some(split)).is_ok());
        // Read whole, the broken line is not the last: the error names it.
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
    fn a_wrong_guess_of_the_mark_drops_the_index_read_beside_the_parse() {
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
                .filter(|t| t.status == TaskStatus::Completed)
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
        state.tasks[0].make_mut().status = TaskStatus::Completed;
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
        let status = |s: &WorkflowState, i: usize| s.tasks[i].status;
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
