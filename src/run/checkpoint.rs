//! A checkpoint: the state snapshot, then the plan copy's mirrored statuses.

use crate::error::Result;
use crate::state::Session;

pub fn save(session: &mut Session) -> Result<()> {
    session.save()
}
