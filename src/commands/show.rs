//! `wf show TASK`: one task for people, its evidence, and whether it is up to date
//! now (`src/proof/now.rs`). Read-only: no lock, nothing written.

use crate::cli::ShowArgs;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;

pub fn run(project: &Project, args: &ShowArgs, out: &Output) -> Result<i32> {
    let (_store, state) = super::load_state(project)?;
    let task = state.task(&args.task)?.ok_or_else(|| {
        WfError::usage(format!(
            "no task {} in this workflow; `wf status --all` lists the task ids (and `wf show <TAB>` completes them)",
            crate::report::one_line(&args.task)
        ))
    })?;
    let now = crate::proof::now::now(&project.dir, &state, task)?;
    let checks = crate::run::derived::config_checks(&project.config);
    let derived = crate::report::checks::derived_lines(task, &checks);
    out.json_value(&crate::report::show::json(task, &now, &derived));
    out.say(crate::report::show::text(task, &now, &derived, out.look()));
    Ok(0)
}
