//! `wf mcp`: the workflow as an MCP server, so an agent drives the loop of README
//! "Agents" itself — ask for the task (`next`), do it, say it is done (`done`) and
//! hear whether its checks agree — instead of a person running `wf workflow-execute`.
//!
//! `tools/` is each tool as a plain function (a file each) of the project and its arguments,
//! returning the answer (JSON, text, whether it is an error); `server.rs` puts them on
//! the MCP protocol with the `rmcp` SDK, over the stdio lines of `transport.rs`. Each call finds the project, takes the
//! workflow's lock when it writes (with a wait, as `--wait` does) and lets it go when
//! it returns, so a shell `wf` works on the same workflow between two calls.

pub mod schemas;
pub mod server;
pub mod tools;
pub mod transport;
