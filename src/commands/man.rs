//! `wf man`: the man page as roff, generated from the clap definitions (committed as
//! `completions/wf.1`; `scripts/refresh-completions` regenerates it).

use std::io::Write;

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::{Result, WfError};

pub fn run() -> Result<i32> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut buf)
        .map_err(|e| WfError::usage(format!("cannot render the man page: {e}")))?;
    // A closed pipe (`wf man | head`) is not an error worth reporting.
    let _ = std::io::stdout().lock().write_all(&buf);
    Ok(0)
}
