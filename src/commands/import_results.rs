//! `wf import-results DIR|FILE…`: result files of `wf run-task` folded into the
//! workflow under its lock (`src/run/import_results/`, docs/distributed.md). Every file is
//! read before the lock is taken, so a malformed one stops the import before anything
//! is written. Exit 2 when a result was refused, else 1 when the workflow failed or
//! (with `--job`) a task's result never came, else 0.

use std::time::Duration;

use crate::cli::ImportResultsArgs;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::run::import_results;
use crate::run::standalone;
use crate::state::WorkflowStatus;

pub fn run(
    project: &Project,
    wait: Option<u64>,
    args: &ImportResultsArgs,
    out: &Output,
) -> Result<i32> {
    let jobs = import_results::Jobs::parse(&args.jobs).map_err(WfError::usage)?;
    let (loaded, ignored) = import_results::read_all(&args.paths)?;
    let store = project.store();
    store.refuse_untouched_without_tasks()?;
    let mut session = store.lock(wait.map(Duration::from_secs), "import-results")?;
    let opts = import_results::Options {
        project: &project.dir,
        config: &project.config,
        allow_stale: args.allow_stale,
        jobs,
        key: standalone::result_key(),
    };
    let mut summary = import_results::import(&mut session, loaded, &opts)?;
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
        i32::from(status == WorkflowStatus::Failed || !summary.missing.is_empty())
    };
    out.conclude(&text, code == 0);
    Ok(code)
}
