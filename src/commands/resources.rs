//! `wf resources`: the executor pool as a capability catalog (docs/executors.md): for
//! each capability, how many executors offer it, how many are usable, and each one's
//! level and status. Read-only; it needs no workflow, only the project config.

use serde_json::json;

use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::run::executor::Pool;

// The signature every command has, though listing resources cannot fail.
#[allow(clippy::unnecessary_wraps)]
pub fn run(project: &Project, out: &Output) -> Result<i32> {
    let pool = Pool::from_config(&project.config, None);
    let catalog = pool.catalog();
    out.json_value(&json!({"capabilities": catalog}));
    if catalog.is_empty() {
        out.say(format!(
            "No executors configured: agent tasks are handed off to you (see wf.executors in {}).",
            project.config.display_path()
        ));
        return Ok(0);
    }
    out.say(crate::report::resources::catalog_table(
        &catalog,
        out.look(),
    ));
    Ok(0)
}
