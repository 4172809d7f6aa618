//! `wf ui`: the live view (src/ui/, docs/ui.md). Finds the workflow — the project's,
//! or with `--archived` one of its archives, read-only — and serves it until Ctrl-C.

use crate::cli::{GlobalArgs, UiArgs};
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::state::Store;

pub fn run(project: &Project, global: &GlobalArgs, args: &UiArgs, out: &Output) -> Result<i32> {
    let live = project.store();
    let (store, archived) = match &args.archived {
        None => (live, false),
        Some(stamp) => (
            Store::new(archive_dir(&live, stamp)?, crate::plan::STORE_ACCESS),
            true,
        ),
    };
    // No workflow is refused as `wf status` refuses it; one archived or started
    // while the page is open is shown as it comes.
    if store.view()?.is_none() {
        return Err(project.no_workflow());
    }
    let workflow = crate::ui::Workflow {
        project: project.dir.clone(),
        config: project.config.clone(),
        store,
        archived,
    };
    let opts = crate::ui::Options {
        port: args.port,
        open: args.open,
        read_only: args.read_only,
        wait: global.wait,
    };
    crate::ui::serve(workflow, &opts, out)
}

/// `archive/STAMP` of the workflow dir, or its newest archive when `stamp` is empty.
/// STAMP is a name under `archive/`, never a path.
fn archive_dir(store: &Store, stamp: &str) -> Result<std::path::PathBuf> {
    let base = store.dir().join("archive");
    let mut names: Vec<String> = std::fs::read_dir(&base)
        .map(|dir| {
            dir.flatten()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let chosen = if stamp.is_empty() {
        names.last()
    } else {
        names.iter().find(|n| *n == stamp)
    };
    match chosen {
        Some(name) => Ok(base.join(name)),
        None if names.is_empty() => Err(WfError::usage(format!(
            "--archived: no archived workflow in {}; `wf archive` archives a completed one",
            base.display()
        ))),
        None => Err(WfError::usage(format!(
            "--archived {}: no such archive; the archives: {}",
            crate::report::one_line(stamp),
            names.join(", ")
        ))),
    }
}
