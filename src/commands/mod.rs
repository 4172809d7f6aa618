//! One file per subcommand. Each loads what it needs, calls the core, and hands the
//! result to a renderer; it returns the exit code of a run that finished.

pub(crate) mod archive;
mod check;
pub mod completions;
mod constraints;
mod doctor;
mod done;
mod events;
pub mod execute;
mod export;

mod graph;
mod hook;
mod import_results;
mod init;
mod list;
mod logs;
mod man;
pub(crate) mod mcp;
mod next;
mod proof;
mod report;
mod resources;
mod resume;
mod run_task;
mod show;
mod start;
mod status;
mod ui;
mod unblock;
mod verify;

use crate::cli::{Cli, Command};
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::state::summary::View;
use crate::state::{Store, WorkflowState};

pub fn run(cli: &Cli, out: &Output) -> Result<i32> {
    if out.json {
        refuse_json(&cli.command)?;
    }
    let project = || Project::discover(cli.global.project.as_deref());
    match &cli.command {
        Command::Status(args) => status::run(&project()?, args, out),
        Command::WorkflowExecute(args) => execute::run(&project()?, &cli.global, args, out),
        Command::Verify(args) => verify::run(&project()?, &cli.global, args, out),
        Command::Proof(args) => proof::run(cli.global.project.as_deref(), args, out),
        Command::Show(args) => show::run(&project()?, args, out),
        Command::WorkflowUnblock(args) => unblock::run(&project()?, &cli.global, args, out),
        Command::Resume(args) => resume::run(&cli.global, args, out),
        Command::Constraints(args) => constraints::run(&project()?, &cli.global, args, out),
        Command::Doctor => doctor::run(cli.global.project.as_deref(), out),
        Command::Init(args) => init::run(cli.global.project.as_deref(), args, out),
        Command::WorkflowStart(args) => {
            let plan = plan_to_read(&args.plan, out)?;
            let args = crate::cli::StartArgs {
                plan,
                ..args.clone()
            };
            start::run(&project()?, &cli.global, &args, out)
        }
        Command::Check(args) => {
            let plan = plan_to_read(&args.plan, out)?;
            check::run(
                &project()?,
                &crate::cli::CheckArgs {
                    plan,
                    ..args.clone()
                },
                out,
            )
        }
        Command::Next(args) => next::run(&project()?, &cli.global, args, out),
        Command::Done(args) => done::run(&project()?, &cli.global, args, out),
        Command::List(args) => list::run(args, out),
        Command::Graph(args) => graph::run(&project()?, args, out),
        Command::Events(args) => events::run(&project()?, args, out),
        Command::Logs(args) => logs::run(&project()?, args, out),
        Command::Report(args) => report::run(&project()?, args, out),
        Command::Export(args) => export::run(&project()?, args, out),
        Command::RunTask(args) => run_task::run(&project()?, args, out),
        Command::ImportResults(args) => {
            import_results::run(&project()?, cli.global.wait, args, out)
        }
        Command::Archive(args) => archive::run(&project()?, args, cli.global.wait, out),
        Command::Completions(args) => completions::run(args, out),
        Command::Man(args) => man::run(args, out),
        Command::Resources => resources::run(&project()?, out),
        Command::Hook(args) => Ok(hook::run(cli.global.project.as_deref(), args)),
        Command::Mcp => mcp::run(&cli.global),
        Command::Ui(args) => ui::run(&project()?, &cli.global, args, out),
    }
}

/// `--json` on a command whose output has a fixed form of its own — a shell script, a
/// man page, the hook protocol's answer, the MCP protocol — is refused rather than ignored, so a script
/// that asks for JSON learns at once that it gets none.
fn refuse_json(command: &Command) -> Result<()> {
    let (name, form) = match command {
        Command::Completions(_) => ("completions", "a shell script"),
        Command::Man(_) => ("man", "a roff man page"),
        Command::Hook(_) => ("hook", "the answer Claude Code's hook protocol asks for"),
        Command::Mcp => ("mcp", "the MCP protocol, whose tool results carry JSON"),
        _ => return Ok(()),
    };
    Err(WfError::usage(format!(
        "`wf {name}` has no JSON form (it prints {form}); drop --json"
    )))
}

/// The current state for a read-only command: no lock, nothing written. No workflow
/// is a usage error that says how to start one.
fn load_state(project: &Project) -> Result<(Store, WorkflowState)> {
    let store = project.store();
    let state = store.load()?.ok_or_else(|| project.no_workflow())?;
    Ok((store, state))
}

/// The plan file `workflow-start` and `check` read: `given`, or the one found in it
/// (a directory; `.` when none was named), said on stderr when wf picked it.
fn plan_to_read(given: &std::path::Path, out: &Output) -> Result<std::path::PathBuf> {
    let here = std::env::current_dir()
        .map_err(|e| WfError::io(&e, format!("cannot read the current directory: {e}")))?;
    let (plan, why) = crate::plan::locate::plan_path(given, &here)?;
    if let (Some(why), false) = (why, out.quiet) {
        crate::output::stderr_line(format_args!("wf: reading {} ({why})", plan.display()));
    }
    Ok(plan)
}

/// What a read path shows, from the summary when it is current (`Store::view`).
fn load_view(project: &Project) -> Result<(Store, View)> {
    let store = project.store();
    let view = store.view()?.ok_or_else(|| project.no_workflow())?;
    Ok((store, view))
}

/// The cache directory `--cache`/`--no-cache` name: the workflow dir's `cache/` by
/// default (`workflow-execute`, `resume`, `verify`).
pub(crate) fn cache_dir(
    args: &crate::cli::CacheArgs,
    workflow_dir: &std::path::Path,
) -> Option<std::path::PathBuf> {
    if args.no_cache {
        return None;
    }
    Some(
        args.cache
            .clone()
            .unwrap_or_else(|| workflow_dir.join(crate::proof::cache::DEFAULT_DIR)),
    )
}
