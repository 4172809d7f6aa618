//! One file per subcommand. Each loads what it needs, calls the core, and hands the
//! result to a renderer; it returns the exit code of a run that finished.

mod status;

use crate::cli::{Cli, Command};
use crate::error::Result;
use crate::output::Output;
use crate::project::Project;

pub fn run(cli: &Cli, out: &Output) -> Result<i32> {
    let project = || Project::discover(cli.global.project.as_deref());
    match &cli.command {
        Command::Status(args) => status::run(&project()?, args, out),
        _ => Err(crate::error::WfError::usage("not built yet")),
    }
}
