//! `wf status`: where the workflow stands. Read-only: it takes no lock and writes
//! nothing, whatever it finds.

use crate::cli::StatusArgs;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;

pub fn run(project: &Project, _args: &StatusArgs, out: &Output) -> Result<i32> {
    let store = project.store();
    let state = store.load()?.ok_or_else(|| {
        WfError::usage(format!(
            "no workflow for {} (id {}); start one with `wf workflow-start PLAN.md`",
            project.dir.display(),
            project.id
        ))
    })?;
    out.json_value(&serde_json::json!({
        "schemaVersion": 1,
        "state": state,
    }));
    out.say(format!("{}: {}", state.project_name, state.status));
    Ok(0)
}
