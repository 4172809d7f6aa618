//! How a command talks to its caller: human text, JSON, colour and quiet mode.
//!
//! Results go to stdout, diagnostics to stderr. With `--json`, stdout carries one JSON
//! document — the result or `{"error": …}` — and nothing else.

use std::io::{IsTerminal, Write};

use serde::Serialize;

use crate::cli::{ColorChoice, GlobalArgs};
use crate::error::WfError;

pub struct Output {
    pub json: bool,
    pub quiet: bool,
    pub color: bool,
    pub stdout_tty: bool,
}

impl Output {
    pub fn new(args: &GlobalArgs) -> Output {
        let stdout_tty = std::io::stdout().is_terminal();
        let color = match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                stdout_tty && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        };
        Output {
            json: args.json,
            quiet: args.quiet,
            color,
            stdout_tty,
        }
    }

    /// Human text for stdout; silent under `--quiet` and `--json`.
    pub fn say(&self, text: impl AsRef<str>) {
        if !self.quiet && !self.json {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", text.as_ref());
        }
    }

    /// A warning on stderr; silent under `--quiet`.
    pub fn warn(&self, text: impl AsRef<str>) {
        if !self.quiet {
            eprintln!("wf: warning: {}", text.as_ref());
        }
    }

    /// The command's JSON result (only under `--json`).
    pub fn json_value<T: Serialize>(&self, value: &T) {
        if self.json {
            // Encoded whole, then written once: stdout is line-buffered, and a large
            // document written line by line costs a system call per line.
            let Ok(mut bytes) = serde_json::to_vec_pretty(value) else {
                return;
            };
            bytes.push(b'\n');
            let _ = std::io::stdout().lock().write_all(&bytes);
        }
    }

    pub fn error(&self, err: &WfError) {
        if self.json {
            self.json_value(&serde_json::json!({
                "error": {
                    "kind": err.kind.name(),
                    "message": err.message,
                    "exit_code": err.kind.exit_code(),
                }
            }));
        }
        // One line whatever the message quotes from input: hooks read stderr by line.
        eprintln!("wf: error: {}", crate::error::one_line(&err.message));
    }

    /// `text` in the given ANSI colour when colour is on.
    pub fn paint(&self, text: &str, color: Color) -> String {
        if !self.color {
            return text.to_string();
        }
        let code = match color {
            Color::Red => 31,
            Color::Green => 32,
            Color::Yellow => 33,
            Color::Blue => 34,
            Color::Dim => 2,
            Color::Bold => 1,
        };
        format!("\x1b[{code}m{text}\x1b[0m")
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Color {
    Red,
    Green,
    Yellow,
    Blue,
    Dim,
    Bold,
}
