//! One file per subcommand. Each loads what it needs, calls the core, and hands the
//! result to a renderer; it returns the exit code of a run that finished.

pub(crate) mod archive;
mod check;
mod completions;
mod constraints;
mod events;
pub mod execute;

mod graph;
mod hook;
mod man;
mod next;
mod report;
mod resources;
mod resume;
mod start;
mod status;
mod unblock;

use std::path::{Path, PathBuf};

use crate::cli::{Cli, Command};
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::state::{Store, WorkflowState};

pub fn run(cli: &Cli, out: &Output) -> Result<i32> {
    let project = || Project::discover(cli.global.project.as_deref());
    match &cli.command {
        Command::Status(args) => status::run(&project()?, args, out),
        Command::WorkflowExecute(args) => execute::run(&project()?, &cli.global, args, out),
        Command::WorkflowUnblock(args) => unblock::run(&project()?, &cli.global, args, out),
        Command::Resume(args) => resume::run(&cli.global, args, out),
        Command::Constraints(args) => constraints::run(&project()?, &cli.global, args, out),
        Command::WorkflowStart(args) => start::run(&project()?, &cli.global, args, out),
        Command::Check(args) => check::run(&project()?, args, out),
        Command::Next => next::run(&project()?, out),
        Command::Graph(args) => graph::run(&project()?, args, out),
        Command::Events(args) => events::run(&project()?, args, out),
        Command::Report(args) => report::run(&project()?, args, out),
        Command::Archive => archive::run(&project()?, cli.global.wait, out),
        Command::Completions(args) => completions::run(args, out),
        Command::Man => man::run(out),
        Command::Resources => resources::run(&project()?, out),
        Command::Hook(args) => Ok(hook::run(cli.global.project.as_deref(), args, out)),
    }
}

/// The current state for a read-only command: no lock, nothing written. No workflow
/// is a usage error that says how to start one.
fn load_state(project: &Project) -> Result<(Store, WorkflowState)> {
    let store = project.store();
    let state = store.load()?.ok_or_else(|| {
        WfError::usage(format!(
            "no workflow for {} (id {}); start one with `wf workflow-start PLAN.md`",
            project.dir.display(),
            project.id
        ))
    })?;
    Ok((store, state))
}

/// The imported plan copies (`tasks-<name>.md`) in a workflow dir, sorted; the one
/// `tasks_file` names first when it is among them.
fn plan_copies(dir: &Path, state: &WorkflowState) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut copies: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("tasks-") && n.ends_with(".md"))
                && p.is_file()
        })
        .collect();
    copies.sort();
    let named = Path::new(&state.tasks_file).file_name();
    if let Some(pos) = copies.iter().position(|p| p.file_name() == named) {
        let first = copies.remove(pos);
        copies.insert(0, first);
    }
    copies
}
