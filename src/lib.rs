//! `wf`: a fast, crash-safe workflow engine with file-based state.
//!
//! The binary (`main.rs`) is a thin shell around [`run_cli`]. The library exists so
//! fuzz targets, benchmarks and property tests reach the parsers and the store
//! directly. Layout (docs/ARCHITECTURE.md): `commands` → `run` → `state`/`plan`; `report`
//! turns results into text; nothing below `commands` prints or knows clap.

// Every write to stdout and stderr goes through `output`, which never panics.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod complete;
pub mod config;
pub mod constraints;
pub mod error;
pub mod exec;
pub mod fs;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod output;
pub mod plan;
pub mod project;
pub mod proof;
pub mod report;
pub mod run;
pub mod setup;
pub mod state;
pub mod testing;

use clap::Parser;

/// Parses the command line, runs the command, and returns the process exit code.
pub fn run_cli() -> i32 {
    // Before anything else: a shell asking for completions (`COMPLETE=bash wf -- …`)
    // gets only its candidates. Without `COMPLETE` this is one `getenv`.
    if let Some(code) = commands::completions::dynamic() {
        return code;
    }
    deny_world_write();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    let color = match cli.global.color {
        cli::ColorChoice::Always => Some(true),
        cli::ColorChoice::Never => Some(false),
        cli::ColorChoice::Auto => None,
    };
    let out = output::Output::new(cli.global.json, cli.global.quiet, color);
    let result = commands::run(&cli, &out);
    out.exit_code(out.settle(result))
}

/// `wf-mcp`'s `main`: serves `wf mcp` (src/commands/mcp.rs says why it is a binary of
/// its own). Only this binary reaches the MCP server's code, so `wf` links none of it.
#[cfg(feature = "mcp")]
pub fn run_mcp_server() -> i32 {
    deny_world_write();
    let out = output::Output::new(false, false, Some(false));
    let cli = match <cli::McpCli as Parser>::try_parse() {
        Ok(cli) => cli,
        Err(err) if err.use_stderr() => {
            let message = usage_message(&err.render().to_string(), &["mcp".to_string()]);
            out.error(&error::WfError::usage(message));
            return error::ErrorKind::Usage.exit_code();
        }
        // --help, --version
        Err(err) => {
            let _ = err.print();
            return err.exit_code();
        }
    };
    out.exit_code(commands::mcp::serve(&cli))
}

/// Prints a command-line error as every other error is printed: one line,
/// `wf: error: …`, exit 2 — hooks and CI read stderr line by line — and with `--json`
/// also the JSON error object on stdout. clap's tip (a similar subcommand or flag) is
/// kept, and the pointer names the help of the subcommand the line was for. Help and
/// version requests print as clap formats them.
fn usage_error(err: &clap::Error) -> i32 {
    use clap::error::ErrorKind as K;
    if matches!(
        err.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = err.print();
        return err.exit_code();
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let message = usage_message(&err.render().to_string(), &args);
    let json = args
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let out = output::Output::new(json, false, Some(false));
    out.error(&error::WfError::usage(message));
    error::ErrorKind::Usage.exit_code()
}

/// The one-line message of clap's rendering of an error (`error: <what>\n  <details>\n\n
/// tip: …\n\nUsage: …`): what went wrong, clap's tips, and which help to read.
fn usage_message(rendered: &str, args: &[String]) -> String {
    let first = rendered.split("\n\n").next().unwrap_or_default();
    let what = first
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let what = what.strip_prefix("error: ").unwrap_or(&what);
    let tips: Vec<&str> = rendered
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .collect();
    // The deepest subcommand the line names (`constraints add`), for its help.
    let mut command = <cli::Cli as clap::CommandFactory>::command();
    let mut path: Vec<String> = Vec::new();
    for arg in args.iter().take_while(|a| *a != "--") {
        let Some(sub) = command
            .get_subcommands()
            .find(|s| s.get_name() == arg || s.get_all_aliases().any(|alias| alias == arg))
            .cloned()
        else {
            continue;
        };
        path.push(sub.get_name().to_string());
        command = sub;
    }
    let help = if path.is_empty() {
        "wf --help".to_string()
    } else {
        format!("wf {} --help", path.join(" "))
    };
    let mut message = what.to_string();
    for tip in tips {
        message.push_str(&format!(" ({tip})"));
    }
    message.push_str(&format!("; see `{help}`"));
    message
}

/// Adds world-write to the umask: every file and directory `wf` creates (state,
/// logs, backups, archives) is then not world-writable, whatever umask it was started
/// with. Task commands inherit it, which only takes that one bit away from them.
fn deny_world_write() {
    // umask(2) is process-wide: this runs first thing, before any thread starts.
    use rustix::fs::Mode;
    let old = rustix::process::umask(Mode::from_raw_mode(0o022));
    rustix::process::umask(old | Mode::from_raw_mode(0o002));
}
