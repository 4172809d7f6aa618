//! One file per subcommand. Each loads what it needs, calls the core, and hands the
//! result to a renderer; it returns the exit code of a run that finished.

mod constraints;
pub mod execute;
mod resume;
mod status;
mod unblock;

use crate::cli::{Cli, Command};
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;

pub fn run(cli: &Cli, out: &Output) -> Result<i32> {
    let project = || Project::discover(cli.global.project.as_deref());
    match &cli.command {
        Command::Status(args) => status::run(&project()?, args, out),
        Command::WorkflowExecute(args) => execute::run(&project()?, &cli.global, args, out),
        Command::WorkflowUnblock(args) => unblock::run(&project()?, &cli.global, args, out),
        Command::Resume(args) => resume::run(&cli.global, args, out),
        Command::Constraints(args) => constraints::run(&project()?, &cli.global, args, out),
        Command::WorkflowStart(_) => Err(crate::error::WfError::usage("not built yet")),
    }
}
