//! A checkpoint: the state snapshot, then the plan copy's mirrored statuses.
//!
//! The plan copy (`tasks-<name>.md` in the workflow dir) shows each task's status as
//! the source format writes it, so a person reading it sees the truth; it is derived
//! from the state, so it is written second.

use std::path::{Component, Path};

use crate::error::Result;
use crate::fs::durable::write_atomic;
use crate::plan::{mirror::mirror, Format};
use crate::state::Session;

pub fn save(session: &mut Session) -> Result<()> {
    session.save()?;
    mirror_plan_copy(session)
}

/// Brings the plan copy's statuses up to the state; writes only when they differ.
pub fn mirror_plan_copy(session: &Session) -> Result<()> {
    let state = session.state()?;
    // A format this wf does not know (a state from a newer one) keeps its copy as is.
    let Some(format) = state.plan_format.as_deref().and_then(Format::named) else {
        return Ok(());
    };
    // tasks_file comes from a file a user may edit: one plain name, nothing more.
    let name = Path::new(&state.tasks_file);
    if name.components().count() != 1
        || !matches!(name.components().next(), Some(Component::Normal(_)))
    {
        return Ok(());
    }
    let path = session.store().dir().join(name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(());
    };
    let mirrored = mirror(format, &text, &state.tasks);
    if mirrored != text {
        write_atomic(&path, mirrored.as_bytes())?;
    }
    Ok(())
}
