//! A checkpoint: the state snapshot, then the plan copy's mirrored statuses.
//!
//! The plan copy (`tasks-<name>.md` in the workflow dir) shows each task's status as
//! the source format writes it, so a person reading it sees the truth; it is derived
//! from the state, so it is written second.
//!
//! While tasks run, the scheduler does not wait for a checkpoint, which on a large
//! plan takes a while: a run's periodic checkpoints take the state as it stands
//! (`Session::snapshot`: the tasks are shared, not copied) and write both on a
//! thread of their own, the snapshot first. So that thread takes little of a core
//! from the tasks, a checkpoint is due every [`EVERY`], or [`COST_SHARE`] times as
//! long as the last one's thread spent on a CPU (waiting for `fsync` takes none)
//! when that is longer; the floor bounds the log a reader folds after a crash. The
//! guarantees are those of a checkpoint written in line: every event is in the log
//! before the next task starts, so the snapshot only shortens what a reader folds;
//! the snapshot marks only events already synced; one checkpoint writes at a time,
//! in order; and the checkpoint at a stop waits for one still writing, then writes
//! both before it returns. A crash while one writes leaves the older files whole
//! (each is replaced by a rename), which the next command's catch-up brings up.

use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::plan::mirror::PlanCopy;
use crate::state::Session;

/// A checkpoint written whole before it returns: the snapshot, then the plan copy.
///
/// From `MIRROR_BESIDE_FROM` tasks on, the copy's new text is worked out on another
/// thread while the snapshot is written (docs/ARCHITECTURE.md "Performance devices
/// kept" gives what it gains), and written after it, as always; if the copy changed
/// on disk meanwhile (a person's edit), it is worked out again from what is there.
pub fn save(session: &mut Session) -> Result<()> {
    let Some(copy) = PlanCopy::of(session)? else {
        return session.checkpoint_snapshot();
    };
    let mirrored = if session.state()?.tasks.len() >= MIRROR_BESIDE_FROM {
        // The statuses as this save writes them: it moves none. The side thread
        // drops its handles on the tasks too, beside the snapshot's write, where
        // on this thread they would follow it.
        let tasks = session.state()?.tasks.clone();
        let side = || {
            let tasks = tasks;
            copy.mirrored(&tasks)
        };
        let (mirrored, saved) = crate::beside::both(side, || session.checkpoint_snapshot());
        saved?;
        mirrored
    } else {
        session.checkpoint_snapshot()?;
        copy.mirrored(&session.state()?.tasks)
    };
    match mirrored {
        None => Ok(()),
        Some(mirrored) if mirrored.is_current() => mirrored.write(),
        Some(stale) => {
            drop(stale);
            copy.bring_up_to(&session.state()?.tasks)
        }
    }
}

/// How many tasks a plan has before its copy is worked out beside the snapshot's
/// write ([`save`]): below that the saving is not worth a second thread (a judgment,
/// not a measured break-even).
const MIRROR_BESIDE_FROM: usize = 200;

/// How often a run writes a checkpoint, at most.
pub const EVERY: Duration = Duration::from_secs(1);
/// How many times the CPU time of the last checkpoint to wait before the next, at
/// least.
pub const COST_SHARE: u32 = 30;

/// When the next checkpoint is due after one that started at `last` and took `took`
/// of CPU time to write (of wall time, for one written in line).
pub fn next_due(last: Instant, took: Duration) -> Instant {
    last + EVERY.max(took * COST_SHARE)
}

/// A run's checkpoints, with at most one being written in the background.
pub struct Checkpoints {
    writing: Option<JoinHandle<Result<Duration>>>,
    /// When the last checkpoint started, and how long the last written one took.
    last: Instant,
    took: Duration,
}

impl Default for Checkpoints {
    fn default() -> Checkpoints {
        Checkpoints {
            writing: None,
            last: Instant::now(),
            took: Duration::ZERO,
        }
    }
}

impl Checkpoints {
    /// Whether a checkpoint is due now (see the module docs); one still being
    /// written is never followed by another.
    pub fn due(&mut self) -> Result<bool> {
        if self.writing.as_ref().is_some_and(|w| !w.is_finished()) {
            return Ok(false);
        }
        self.settle()?;
        Ok(Instant::now() >= next_due(self.last, self.took))
    }

    /// A checkpoint while tasks run, written on another thread (after [`due`]
    /// said so: it waits for one still being written).
    ///
    /// [`due`]: Checkpoints::due
    pub fn while_running(&mut self, session: &mut Session) -> Result<()> {
        self.settle()?;
        self.last = Instant::now();
        let Some(snapshot) = session.snapshot()? else {
            save(session)?;
            self.took = self.last.elapsed();
            return Ok(());
        };
        let copy = PlanCopy::of(session)?;
        self.writing = Some(std::thread::spawn(move || {
            let state = snapshot.write()?;
            if let Some(copy) = copy {
                copy.bring_up_to(&state.tasks)?;
            }
            // This thread's CPU time, all of it the checkpoint's.
            let spent = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
            Ok(Duration::new(
                u64::try_from(spent.tv_sec).unwrap_or(0),
                u32::try_from(spent.tv_nsec).unwrap_or(0),
            ))
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
            Some(Ok(outcome)) => {
                self.took = outcome?;
                Ok(())
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_is_due_every_second_or_thirty_times_its_cost() {
        let t = Instant::now();
        // Cheap checkpoints (a small plan; a 10,000-task one's 5 ms of CPU): every
        // second.
        assert_eq!(next_due(t, Duration::ZERO), t + EVERY);
        assert_eq!(next_due(t, Duration::from_millis(5)), t + EVERY);
        assert_eq!(next_due(t, Duration::from_millis(25)), t + EVERY);
        assert_eq!(
            next_due(t, Duration::from_millis(40)),
            t + Duration::from_millis(1200)
        );
        // Dear ones (100,000 tasks: about 160 ms of a core): a thirtieth of the
        // time goes to them, not more.
        assert_eq!(
            next_due(t, Duration::from_millis(160)),
            t + Duration::from_millis(4800)
        );
    }
}
