//! `wf`: a fast, crash-safe workflow engine with file-based state.
//!
//! The binary (`main.rs`) is a thin shell around [`run_cli`]. The library exists so
//! fuzz targets, benchmarks and property tests reach the parsers and the store
//! directly. Layout (DESIGN.md §9): `commands` → `run` → `state`/`plan`; `report`
//! turns results into text; nothing below `commands` prints or knows clap.

pub mod cli;
pub mod clock;
pub mod commands;
pub mod config;
pub mod constraints;
pub mod error;
pub mod output;
pub mod plan;
pub mod project;
pub mod report;
pub mod run;
pub mod state;
pub mod testing;

use clap::Parser;

/// Parses the command line, runs the command, and returns the process exit code.
pub fn run_cli() -> i32 {
    let cli = cli::Cli::parse();
    let out = output::Output::new(&cli.global);
    match commands::run(&cli, &out) {
        Ok(code) => code,
        Err(err) => {
            out.error(&err);
            err.kind.exit_code()
        }
    }
}
