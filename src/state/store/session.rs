//! A writer's session ([`Session`]): the state under the lock, the events it appends
//! and folds, its transactions, and the snapshots it writes (in line, or taken for
//! another thread: [`Snapshot`]).

use std::io::Seek;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{no_workflow, Store, STATE_FILE};
use crate::config::Role;
use crate::error::{Result, WfError};
use crate::fs::durable::Temp;
use crate::state::event::{EventData, TaskMove, WorkflowMove};
use crate::state::event_log::{Event, EventLog, NewEvent};
use crate::state::evidence::{Evidence, Proof};
use crate::state::fold::apply_live;
use crate::state::glance::Keeper;
use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::{Glance, LogMark, WorkflowState};
use crate::state::recover::CatchUp;
use crate::state::snapshot_file::{self, Prior, SharedPrior};
use crate::state::summary::{self, FileId};

/// A locked read-modify-write of one workflow. Dropping it releases the lock.
pub struct Session {
    pub(super) store: Store,
    pub(super) lock: fs_err::File,
    /// The current state (snapshot plus folded log), `None` before the first start.
    pub state: Option<WorkflowState>,
    pub(super) log: Option<EventLog>,
    /// Events emitted now belong to a transaction that the next `save` commits.
    pub(super) in_txn: bool,
    /// Side files of a change are written but not yet all in place.
    pub(super) staged: bool,
    /// The last event the snapshot on disk covers.
    pub(super) saved_seq: u64,
    /// The snapshot was behind the log when the lock was taken: the next save also
    /// brings the plan copy up (`recover::CatchUp::AtNextSave`); if none comes, the
    /// drop settles it (the log is ahead of `saved_seq`).
    pub(super) catch_up: bool,
    /// The snapshot on disk, for the next one to copy unchanged records from.
    pub(super) prior: SharedPrior,
    /// The glance a run keeps current between snapshots (`Session::keep_glance`).
    pub(super) glance: Option<Keeper>,
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
            .is_some_and(|l| l.mark().seq > self.saved_seq);
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
            let state = self.state.as_mut().ok_or_else(no_workflow)?;
            if let Some(glance) = self.glance.as_mut() {
                let before = event.task_id.as_deref().and_then(|id| state.position(id));
                glance.applied(before.map(|i| &state.tasks[i]), &event);
            }
            apply_live(state, &event)?;
        }
        Ok(event)
    }

    /// Keeps the glance (`state::glance`) from now on: each state-changing event is
    /// noted, and [`Session::write_glance`] writes what they made of the state. For a
    /// run, whose progress would otherwise be readable only by folding the log.
    pub fn keep_glance(&mut self) {
        if let (None, Some(state)) = (&self.glance, self.state.as_mut()) {
            self.glance = Some(Keeper::new(state, &self.store.state_path()));
        }
    }

    /// Writes the held events and the glance, if kept and changed: the state as of
    /// the log's end. The glance is made before the events are written and written
    /// just after them, so a run killed between the two leaves a log one write
    /// ahead of it rather than a whole glance's making. Best effort, as the summary.
    pub fn write_glance(&mut self) -> Result<()> {
        let made = match (self.glance.as_mut(), self.log.as_ref(), self.state.as_ref()) {
            (Some(glance), Some(log), Some(state)) if !self.in_txn => {
                glance.make(&self.store.state_path(), state, log.mark_after_held())
            }
            _ => false,
        };
        self.write_held_events()?;
        if let (true, Some(glance)) = (made, self.glance.as_mut()) {
            glance.put(&self.store.dir);
        }
        Ok(())
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
            let after = marked_seq(self.state.as_ref());
            self.log = Some(EventLog::open(&self.store.events_path(), after)?);
        }
        self.log.as_mut().ok_or_else(no_workflow)
    }

    /// Drops what this session holds in memory and recovers from the files alone:
    /// an open transaction is rolled back, and the snapshot catches up with the log.
    fn settle(&mut self) -> Result<()> {
        self.log = None;
        self.glance = None;
        self.in_txn = false;
        self.staged = false;
        self.state = self.store.load()?;
        self.saved_seq = marked_seq(self.state.as_ref());
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
        self.glance = None;
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
            .task_ref(id)
            .ok_or_else(|| WfError::usage(format!("no task {id} in this workflow")))?
            .status();
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
            state.event_log = Some(EventLog::open(&self.store.events_path(), 0)?.mark());
        }
        write_snapshot(
            &self.store.dir,
            &self.store.state_path(),
            state,
            &self.prior,
        )?;
        self.saved_seq = state.event_log.map_or(0, |m| m.seq);
        self.in_txn = false;
        if let Some(glance) = self.glance.as_mut() {
            glance.saved(state, &self.store.state_path());
        }
        crate::state::glance::remove(&self.store.dir);
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
        // The glance first: taking the copy of a large state takes the scheduler a
        // while, and a run killed meanwhile left the glance behind the log.
        self.write_glance()?;
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
        if let Some(glance) = self.glance.as_mut() {
            glance.snapshot_taken(&mut copy);
        }
        Ok(Some(Snapshot {
            state: copy,
            dir: self.store.dir.clone(),
            prior: Arc::clone(&self.prior),
        }))
    }
}

/// The last event `state`'s snapshot holds; 0 for none.
pub(super) fn marked_seq(state: Option<&WorkflowState>) -> u64 {
    state.and_then(|s| s.event_log).map_or(0, |m| m.seq)
}

/// The log synced, and the mark of its end: what a snapshot may say it holds, so it
/// never marks events a power loss could take back.
pub(super) fn synced_mark(log: &mut EventLog) -> Result<LogMark> {
    log.sync()?;
    Ok(log.mark())
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
pub(super) fn write_snapshot(
    dir: &Path,
    path: &Path,
    state: &mut WorkflowState,
    prior: &SharedPrior,
) -> Result<usize> {
    state.sync_progress();
    // The summary and index of the snapshot being replaced stay until the new ones
    // replace them: until the rename they still describe the file at `path`, and
    // after it no reader takes them (they name the old file, which a new snapshot
    // never is). Removed first, a stop in the middle of a large snapshot left
    // readers the whole load.
    // Streamed into the temp file: a large snapshot is megabytes of JSON that need
    // not also sit in memory.
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
