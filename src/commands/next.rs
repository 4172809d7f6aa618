//! `wf next`: the brief of the task to do now (the one in progress, else the first
//! ready one), or why there is none. Read-only; always exit 0 when it can answer.

use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::report::next;

pub fn run(project: &Project, out: &Output) -> Result<i32> {
    let (_, state) = super::load_state(project)?;
    state.require_tasks()?;
    let answer = next::next(&state);
    out.json_value(&next::json(&state, &answer));
    out.say(next::text(&state, &answer).trim_end());
    Ok(0)
}
