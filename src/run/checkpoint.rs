//! A checkpoint: the state snapshot, then the plan copy's mirrored statuses.
//!
//! The plan copy (`tasks-<name>.md` in the workflow dir) shows each task's status as
//! the source format writes it, so a person reading it sees the truth; it is derived
//! from the state, so it is written second.
//!
//! While tasks run, the scheduler must not wait for a checkpoint: at 100,000 tasks
//! writing the snapshot takes about 0.2 s and mirroring the plan copy (parsing and
//! rewriting 15 MB) about 0.3 s (BENCHMARKS.md). So a run's periodic checkpoints
//! take the state as it stands (`Session::snapshot`: the tasks are shared, not
//! copied) and write both on a thread of their own, the snapshot first. The
//! guarantees are those of a checkpoint written in line: every event is in the log
//! before the next task starts, so the snapshot only shortens what a reader folds;
//! the snapshot marks only events already synced; one checkpoint writes at a time,
//! in order; and the checkpoint at a stop waits for one still writing, then writes
//! both before it returns. A crash while one writes leaves the older files whole
//! (each is replaced by a rename), which the next command's catch-up brings up.

use std::thread::JoinHandle;

use crate::error::Result;
use crate::plan::mirror::{statuses, PlanCopy};
use crate::state::Session;

/// A checkpoint written whole before it returns: the snapshot, then the plan copy.
pub fn save(session: &mut Session) -> Result<()> {
    // `Session::checkpoint` mirrors through `plan::STORE_ACCESS`, which is
    // `plan::mirror::mirror_plan_copy`.
    session.checkpoint()
}

/// A run's checkpoints, with at most one being written in the background.
#[derive(Default)]
pub struct Checkpoints {
    writing: Option<JoinHandle<Result<()>>>,
}

impl Checkpoints {
    /// A checkpoint while tasks run, written on another thread. When the previous
    /// one is still being written, this one is left to the next checkpoint rather
    /// than waited for.
    pub fn while_running(&mut self, session: &mut Session) -> Result<()> {
        if self.writing.as_ref().is_some_and(|w| !w.is_finished()) {
            return Ok(());
        }
        self.settle()?;
        let Some(snapshot) = session.snapshot()? else {
            return save(session);
        };
        let copy = PlanCopy::of(session)?;
        self.writing = Some(std::thread::spawn(move || {
            let state = snapshot.write()?;
            match copy {
                Some(copy) => copy.bring_up_to(&statuses(&state.tasks)),
                None => Ok(()),
            }
        }));
        Ok(())
    }

    /// The checkpoint at a stop: once one still being written is done, the snapshot
    /// and the plan copy, both written when it returns.
    pub fn at_stop(&mut self, session: &mut Session) -> Result<()> {
        self.settle()?;
        save(session)
    }

    /// Waits for the checkpoint in the background, if any, and gives its outcome (a
    /// panic in it, a bug, goes on here).
    fn settle(&mut self) -> Result<()> {
        match self.writing.take().map(JoinHandle::join) {
            Some(Ok(outcome)) => outcome,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => Ok(()),
        }
    }
}

impl Drop for Checkpoints {
    /// A run that ends early (an error) still leaves nothing being written behind it.
    fn drop(&mut self) {
        if let Some(writing) = self.writing.take() {
            let _ = writing.join();
        }
    }
}
