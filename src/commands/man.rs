//! `wf man`: the man page as roff, generated from the clap definitions (committed as
//! `completions/wf.1`; `scripts/refresh-completions` regenerates it).

use clap::CommandFactory;

use crate::cli::Cli;
use crate::error::{Result, WfError};
use crate::output::Output;

pub fn run(out: &Output) -> Result<i32> {
    let mut buf = Vec::new();
    clap_mangen::Man::new(Cli::command())
        .render(&mut buf)
        .map_err(|e| WfError::io(&e, format!("cannot render the man page: {e}")))?;
    out.print(buf)?;
    Ok(0)
}
