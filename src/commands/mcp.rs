//! `wf mcp`: the workflow as an MCP server on stdin/stdout (src/mcp/). Runs until the
//! client closes stdin; stdout is the protocol's, so nothing else is printed there.
//!
//! The MCP SDK and its async runtime are linked into `wf` but start only here: no
//! other command runs any of their code.

use crate::cli::GlobalArgs;
use crate::error::Result;

/// How long a call waits for another `wf`'s lock without `--wait`: an agent's call
/// should queue behind a shell `wf` rather than fail at once, as `--wait` does.
#[cfg(feature = "mcp")]
const DEFAULT_WAIT_SECS: u64 = 600;

/// `wf mcp`: serves the tools until the client closes stdin (0) or a signal comes
/// (130), with the project of `-C` and the lock wait of `--wait`.
#[cfg(feature = "mcp")]
pub fn run(global: &GlobalArgs) -> Result<i32> {
    let ctx = crate::mcp::tools::Context::new(
        global.project.clone(),
        std::time::Duration::from_secs(global.wait.unwrap_or(DEFAULT_WAIT_SECS)),
    );
    crate::mcp::server::serve(ctx)
}

#[cfg(not(feature = "mcp"))]
pub fn run(_: &GlobalArgs) -> Result<i32> {
    Err(crate::error::WfError::usage(
        "this wf was built without the `mcp` feature; build it with `cargo install --path .` (the feature is on by default)",
    ))
}
