//! `wf completions SHELL`: a completion script generated from the clap definitions,
//! so it always matches the commands this build has. Copies are committed under
//! `completions/`; `scripts/refresh-completions` regenerates them.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::Result;

pub fn run(args: &CompletionsArgs) -> Result<i32> {
    let mut cmd = Cli::command();
    clap_complete::generate(args.shell, &mut cmd, "wf", &mut std::io::stdout());
    Ok(0)
}
