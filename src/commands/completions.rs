//! `wf completions SHELL`: a completion script generated from the clap definitions,
//! so it always matches the commands this build has. Copies are committed under
//! `completions/`; `scripts/refresh-completions` regenerates them.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::Result;
use crate::output::Output;

pub fn run(args: &CompletionsArgs, out: &Output) -> Result<i32> {
    let mut cmd = Cli::command();
    // Into a buffer, then written once: `generate` panics when its writer fails.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "wf", &mut script);
    out.print(script)?;
    Ok(0)
}
