//! A checkpoint: the state snapshot, then the plan copy's mirrored statuses.
//!
//! The plan copy (`tasks-<name>.md` in the workflow dir) shows each task's status as
//! the source format writes it, so a person reading it sees the truth; it is derived
//! from the state, so it is written second.
//!
//! While tasks run, the scheduler must not wait for a checkpoint: mirroring means
//! parsing and rewriting the whole copy (at 100,000 tasks, 15 MB and about half a
//! second, BENCHMARKS.md), so a run's periodic checkpoints write the snapshot on the
//! scheduler's thread and hand the copy to a thread of their own, with the statuses
//! the snapshot holds. The copy is written after the snapshot it shows, never
//! before; one mirror writes at a time, in order; and the checkpoint at a stop waits
//! for a mirror still writing, then writes both, so a run ends with both current. A
//! crash while a mirror writes leaves the older copy whole (it is replaced by a
//! rename); the next command's catch-up save mirrors it again.

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

/// A run's checkpoints, with at most one plan-copy mirror writing in the background.
#[derive(Default)]
pub struct Checkpoints {
    mirror: Option<JoinHandle<Result<()>>>,
}

impl Checkpoints {
    /// A checkpoint while tasks run: the snapshot now, the plan copy on another
    /// thread. When the previous mirror is still writing, this one leaves the copy
    /// to the next checkpoint rather than wait for it.
    pub fn while_running(&mut self, session: &mut Session) -> Result<()> {
        session.save()?;
        if self.mirror.as_ref().is_some_and(|m| !m.is_finished()) {
            return Ok(());
        }
        self.settle()?;
        if let Some(copy) = PlanCopy::of(session)? {
            let statuses = statuses(&session.state()?.tasks);
            self.mirror = Some(std::thread::spawn(move || copy.bring_up_to(&statuses)));
        }
        Ok(())
    }

    /// The checkpoint at a stop: once a mirror still writing is done, the snapshot
    /// and the plan copy, both written when it returns.
    pub fn at_stop(&mut self, session: &mut Session) -> Result<()> {
        self.settle()?;
        save(session)
    }

    /// Waits for the mirror in the background, if any, and gives its outcome (a
    /// panic in it, a bug, goes on here).
    fn settle(&mut self) -> Result<()> {
        match self.mirror.take().map(JoinHandle::join) {
            Some(Ok(outcome)) => outcome,
            Some(Err(panic)) => std::panic::resume_unwind(panic),
            None => Ok(()),
        }
    }
}

impl Drop for Checkpoints {
    /// A run that ends early (an error) still leaves no mirror writing behind it.
    fn drop(&mut self) {
        if let Some(mirror) = self.mirror.take() {
            let _ = mirror.join();
        }
    }
}
