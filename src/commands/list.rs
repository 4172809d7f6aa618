//! `wf list`: every workflow under the home, most recently updated first. Read-only:
//! it needs no project and takes no lock.

use serde_json::json;

use crate::error::Result;
use crate::output::Output;

pub fn run(args: &crate::cli::ListArgs, out: &Output) -> Result<i32> {
    let home = crate::project::workflow_home()?;
    let mut workflows = crate::project::workflows(&home);
    if args.archived {
        workflows.extend(crate::project::archived_workflows(&home));
    }
    out.json_value(&json!({"home": home, "workflows": workflows}));
    if workflows.is_empty() {
        out.say(format!(
            "No workflow under {}; start one with `wf workflow-start PLAN.md`.",
            home.display()
        ));
        return Ok(0);
    }
    out.say(crate::report::list::table(&workflows, out.look()));
    Ok(0)
}
