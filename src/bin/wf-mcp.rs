//! `wf-mcp`: the MCP server `wf mcp` runs, a binary of its own so that `wf` does not
//! link the MCP SDK and its runtime (src/commands/mcp.rs). A one-line shell around the
//! library, as `main.rs` is.

fn main() {
    std::process::exit(wf::run_mcp_server());
}
