//! `wf import-results DIR|FILE…`: result files of `wf run-task` folded into the
//! workflow under its lock (`src/run/import.rs`, docs/distributed.md). Every file is
//! read before the lock is taken, so a malformed one stops the import before anything
//! is written. Exit 2 when a result was refused, else 1 when the workflow failed,
//! else 0.

use std::time::Duration;

use crate::cli::ImportResultsArgs;
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;
use crate::run::import;
use crate::state::WorkflowStatus;

pub fn run(
    project: &Project,
    wait: Option<u64>,
    args: &ImportResultsArgs,
    out: &Output,
) -> Result<i32> {
    let (loaded, ignored) = import::read_all(&args.paths)?;
    let store = project.store();
    store.refuse_untouched_without_tasks()?;
    let mut session = store.lock(wait.map(Duration::from_secs), "import-results")?;
    let mut summary = import::import(&mut session, loaded)?;
    summary.ignored = ignored;
    let status = session.state()?.status;
    out.json_value(&crate::report::distributed::import_json(
        &summary,
        status.as_str(),
    ));
    let text = crate::report::distributed::import_text(&summary, status.as_str());
    let code = if summary.refused() > 0 {
        2
    } else {
        i32::from(status == WorkflowStatus::Failed)
    };
    out.conclude(&text, code == 0);
    Ok(code)
}
