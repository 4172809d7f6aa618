//! `wf init`: write the starter plan, the project config and the hook settings into
//! the project (`src/setup/init.rs` decides what to write; `src/report/init.rs` says
//! what was done). The project is found as every command finds it, but its config is
//! not read: a broken config is one of the files `init --force` replaces.

use std::path::Path;

use crate::cli::InitArgs;
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;

pub fn run(explicit: Option<&Path>, args: &InitArgs, out: &Output) -> Result<i32> {
    let dir = Project::locate(explicit)?;
    let files = crate::setup::init::init(&dir, args.force, crate::clock::now_millis())?;
    out.json_value(&crate::report::init::json(&dir, &files));
    out.say(crate::report::init::text(&files));
    Ok(0)
}
