//! A checkpoint: the state snapshot, then the plan copy's mirrored statuses.
//!
//! The plan copy (`tasks-<name>.md` in the workflow dir) shows each task's status as
//! the source format writes it, so a person reading it sees the truth; it is derived
//! from the state, so it is written second.

use crate::error::Result;
use crate::state::Session;

pub fn save(session: &mut Session) -> Result<()> {
    // `Session::checkpoint` mirrors through `plan::STORE_ACCESS`, which is
    // `plan::mirror::mirror_plan_copy`.
    session.checkpoint()
}
