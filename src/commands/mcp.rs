//! `wf mcp`: the workflow as an MCP server on stdin/stdout (src/mcp/). Runs until the
//! client closes stdin; stdout is the protocol's, so nothing else is printed there.
//!
//! The server is a binary of its own, `wf-mcp` (src/bin/wf-mcp.rs), installed beside
//! `wf`: the MCP SDK and its async runtime are most of `wf`'s code, and linked into
//! `wf` they cost every other command start-up time (relocated at load, page by page),
//! `wf hook Stop` and `wf status` included. `wf mcp` replaces itself with the sibling
//! (exec: the same process, stdin, stdout and signals), so `claude mcp add wf -- wf mcp`
//! keeps working; `wf-mcp` takes the same options and serves on its own too.

use crate::cli::GlobalArgs;
#[cfg(feature = "mcp")]
use crate::cli::McpCli;
use crate::error::{Result, WfError};

/// The server's binary, next to `wf`.
#[cfg(feature = "mcp")]
const SERVER_BINARY: &str = "wf-mcp";

/// How long a call waits for another `wf`'s lock without `--wait`: an agent's call
/// should queue behind a shell `wf` rather than fail at once, as `--wait` does.
#[cfg(feature = "mcp")]
const DEFAULT_WAIT_SECS: u64 = 600;

/// `wf mcp`: execs `wf-mcp` from the directory of the running `wf` with the options
/// the server reads (`-C`, `--wait`); returns only when it cannot.
#[cfg(feature = "mcp")]
pub fn run(global: &GlobalArgs) -> Result<i32> {
    use std::os::unix::process::CommandExt;

    let exe = std::env::current_exe()
        .map_err(|e| WfError::io(&e, format!("cannot find the running wf binary: {e}")))?;
    let server = exe.with_file_name(SERVER_BINARY);
    let mut command = std::process::Command::new(&server);
    // `--opt=value`, so a value that starts with `-` stays a value.
    if let Some(project) = &global.project {
        let mut arg = std::ffi::OsString::from("--project=");
        arg.push(project);
        command.arg(arg);
    }
    if let Some(wait) = global.wait {
        command.arg(format!("--wait={wait}"));
    }
    let err = command.exec();
    if err.kind() == std::io::ErrorKind::NotFound {
        return Err(WfError::usage(format!(
            "`wf mcp` runs the MCP server {}, which is missing; install it beside wf with `cargo install --path .` (it installs both binaries), or copy {SERVER_BINARY} from the same build next to {}",
            server.display(),
            exe.display()
        )));
    }
    Err(WfError::io(
        &err,
        format!("cannot run the MCP server {}: {err}", server.display()),
    ))
}

#[cfg(not(feature = "mcp"))]
pub fn run(_: &GlobalArgs) -> Result<i32> {
    Err(WfError::usage(
        "this wf was built without the `mcp` feature; build it with `cargo install --path .` (the feature is on by default)",
    ))
}

/// `wf-mcp`: serves the tools until the client closes stdin (0) or a signal comes
/// (130).
#[cfg(feature = "mcp")]
pub fn serve(cli: &McpCli) -> Result<i32> {
    let ctx = crate::mcp::tools::Context::new(
        cli.project.clone(),
        std::time::Duration::from_secs(cli.wait.unwrap_or(DEFAULT_WAIT_SECS)),
    );
    crate::mcp::server::serve(ctx)
}
