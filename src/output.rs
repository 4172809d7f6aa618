//! How a command talks to its caller: human text, JSON, colour and quiet mode.
//!
//! Results go to stdout, diagnostics to stderr. With `--json`, stdout carries one JSON
//! document — the result or `{"error": …}` — and nothing else, and every document
//! carries [`JSON_SCHEMA_VERSION`] as its `schemaVersion` (docs/json.md, with a JSON
//! Schema per document in docs/json/).
//!
//! Every write to stdout or stderr goes through here, and none of them panics (as
//! `println!` does when the reader is gone). A stdout that cannot be written is
//! remembered: later writes are skipped, and [`Output::settle`] turns it into the
//! command's result — nothing at all for a closed pipe (`wf report junit | head -1`
//! ends quietly, as `head` asked), an I/O error for anything else (a full disk).

use std::io::{IsTerminal, Write};
use std::sync::OnceLock;

use serde::Serialize;

use crate::error::{Result, WfError};

/// The version of every `--json` document's layout: bumped on an incompatible
/// change of any of them (docs/json.md lists what each version changed).
pub const JSON_SCHEMA_VERSION: u32 = 2;

/// A `--json` document: the version first, then the command's own keys.
#[derive(Serialize)]
struct Document<'a, T: Serialize + ?Sized> {
    #[serde(rename = "schemaVersion")]
    schema_version: u32,
    #[serde(flatten)]
    body: &'a T,
}

/// `value`, an object, as a [`Document`] value: `schemaVersion` first, then its keys.
pub fn versioned<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<serde_json::Value> {
    serde_json::to_value(Document {
        schema_version: JSON_SCHEMA_VERSION,
        body: value,
    })
}

pub struct Output {
    pub json: bool,
    pub quiet: bool,
    pub color: bool,
    pub stdout_tty: bool,
    /// The width tables and the progress bar must fit: `COLUMNS` when it is a
    /// positive number, else the terminal's ([`DEFAULT_WIDTH`] for one that says it
    /// has 0 columns), else none (a pipe or a file keeps each line whole, for grep).
    pub width: Option<u16>,
    /// The first failed write to stdout: its kind and message.
    stdout_failed: OnceLock<(std::io::ErrorKind, String)>,
}

impl Output {
    /// `color`: forced on or off by `--color`, or `None` to follow the environment
    /// ([`color_from_env`]).
    pub fn new(json: bool, quiet: bool, color: Option<bool>) -> Output {
        let stdout_tty = std::io::stdout().is_terminal();
        let env = |name: &str| std::env::var(name).ok();
        let color = color.unwrap_or_else(|| color_from_env(stdout_tty, env));
        let width = width_from_env(env("COLUMNS").as_deref())
            .or_else(|| stdout_tty.then(|| terminal_width(std::io::stdout())));
        Output {
            json,
            quiet,
            color,
            stdout_tty,
            width,
            stdout_failed: OnceLock::new(),
        }
    }

    /// How tables are drawn for this reader.
    pub fn look(&self) -> Look {
        Look {
            color: self.color,
            width: self.width,
        }
    }

    /// Whether human text is shown: not under `--quiet` nor `--json`.
    pub fn says(&self) -> bool {
        !self.quiet && !self.json
    }

    /// Human text for stdout; silent under `--quiet` and `--json` ([`Output::says`]).
    /// A failed write does not stop the command (a workflow run goes on when its
    /// reader is gone); [`Output::settle`] reports it at the end.
    pub fn say(&self, text: impl AsRef<str>) {
        if self.says() {
            let text = text.as_ref();
            let mut line = String::with_capacity(text.len() + 1);
            line.push_str(text);
            line.push('\n');
            let _ = self.print(line);
        }
    }

    /// `bytes` on stdout as they are, for output that is the command's product (a
    /// report, a completion script): its caller stops at the first failure.
    pub fn print(&self, bytes: impl AsRef<[u8]>) -> Result<()> {
        if let Some((kind, message)) = self.stdout_failed.get() {
            return Err(stdout_error(*kind, message));
        }
        write_stdout(bytes.as_ref()).map_err(|e| {
            let (kind, message) = self.stdout_failed.get_or_init(|| (e.kind(), e.to_string()));
            stdout_error(*kind, message)
        })
    }

    /// A warning on stderr; silent under `--quiet`.
    pub fn warn(&self, text: impl AsRef<str>) {
        if !self.quiet {
            stderr_line(format_args!("wf: warning: {}", text.as_ref()));
        }
    }

    /// A command's closing text: on stdout when it `passed`, else on stderr (and not
    /// at all under `--json`, whose document says it).
    pub fn conclude(&self, text: &str, passed: bool) {
        if passed {
            self.say(text);
        } else if !self.json {
            stderr_line(format_args!("{text}"));
        }
    }

    /// The command's JSON result (only under `--json`): `value`, an object, with
    /// `schemaVersion` put first.
    pub fn json_value<T: Serialize + ?Sized>(&self, value: &T) {
        if self.json {
            let document = Document {
                schema_version: JSON_SCHEMA_VERSION,
                body: value,
            };
            // Encoded whole, then written once: stdout is line-buffered, and a large
            // document written line by line costs a system call per line.
            let Ok(mut bytes) = serde_json::to_vec_pretty(&document) else {
                return;
            };
            bytes.push(b'\n');
            let _ = self.print(bytes);
        }
    }

    /// The command's result with a failed stdout folded in: a command that failed
    /// keeps its own error or code; one that succeeded but could not write its
    /// output fails with an I/O error — except when the reader closed the pipe, which
    /// [`exit_code`] ends quietly.
    pub fn settle(&self, result: Result<i32>) -> Result<i32> {
        match (result, self.stdout_failed.get()) {
            (Ok(0), Some((kind, message))) => Err(stdout_error(*kind, message)),
            (result, _) => result,
        }
    }

    /// The exit code of a settled result, printing its error (none for a closed pipe).
    pub fn exit_code(&self, result: Result<i32>) -> i32 {
        match result {
            Ok(code) => code,
            Err(err) if err.is_broken_pipe() => 0,
            Err(err) => {
                self.error(&err);
                err.kind.exit_code()
            }
        }
    }

    pub fn error(&self, err: &WfError) {
        if self.json {
            self.json_value(&serde_json::json!({ "error": error_json(err) }));
        }
        // One line whatever the message quotes from input: hooks read stderr by line.
        for message in std::iter::once(&err.message).chain(&err.more) {
            stderr_line(format_args!(
                "wf: error: {}",
                crate::error::one_line(message)
            ));
        }
    }

    /// `text` in the given ANSI colour when colour is on.
    pub fn paint(&self, text: &str, color: Color) -> String {
        paint(text, color, self.color)
    }
}

/// The `error` object of the JSON error document (docs/json.md "Errors"): its kind,
/// message and exit code, and the place in a file when it is about one; with more
/// than one error found at once (a plan's graph errors), `errors` lists them all,
/// the first too, each with its place. `wf mcp` answers a failed tool call with the
/// same object.
pub fn error_json(err: &WfError) -> serde_json::Value {
    let mut error = serde_json::json!({
        "kind": err.kind.name(),
        "message": err.message,
        "exit_code": err.kind.exit_code(),
    });
    if let Some(at) = err.location() {
        error["file"] = at.file.into();
        error["line"] = at.line.into();
        if let Some(column) = at.column {
            error["column"] = column.into();
        }
    }
    if !err.more.is_empty() {
        let all = std::iter::once(&err.message)
            .chain(&err.more)
            .map(|message| {
                let mut one = serde_json::json!({ "message": message });
                if let Some(at) = WfError::new(err.kind, message.as_str()).location() {
                    one["file"] = at.file.into();
                    one["line"] = at.line.into();
                }
                one
            });
        error["errors"] = all.collect();
    }
    error
}

/// `text` in the given ANSI colour when `on`.
pub fn paint(text: &str, color: Color, on: bool) -> String {
    if !on {
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

/// Writes `bytes` to stdout and flushes. No panic, whatever stdout is.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(bytes).and_then(|()| out.flush())
}

/// One line on stderr. A stderr that cannot be written leaves nobody to tell, so the
/// failure is dropped rather than panicking as `eprintln!` does.
pub fn stderr_line(text: std::fmt::Arguments<'_>) {
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "{text}");
}

fn stdout_error(kind: std::io::ErrorKind, message: &str) -> WfError {
    WfError::io(
        &std::io::Error::from(kind),
        format!("cannot write to stdout: {message}"),
    )
}

/// Colour without `--color`, in the order most command-line tools agree on
/// (<https://bixense.com/clicolors/>, <https://no-color.org/>): `CLICOLOR_FORCE` set
/// and not `0` turns it on even in a pipe; else a non-empty `NO_COLOR` or
/// `CLICOLOR=0` turns it off; else colour on a terminal only.
fn color_from_env(stdout_tty: bool, env: impl Fn(&str) -> Option<String>) -> bool {
    if env("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
        return true;
    }
    if env("NO_COLOR").is_some_and(|v| !v.is_empty()) || env("CLICOLOR").as_deref() == Some("0") {
        return false;
    }
    stdout_tty
}

/// `COLUMNS` as a width, when it is one.
fn width_from_env(columns: Option<&str>) -> Option<u16> {
    columns?.trim().parse().ok().filter(|&w: &u16| w > 0)
}

/// The width of a terminal that does not say how wide it is: a terminal of 0 columns
/// (`docker run -t`, `script` without a terminal of its own, CI log collectors) is a
/// terminal of this many, not of one.
pub const DEFAULT_WIDTH: u16 = 80;

/// The width of the terminal `fd` is, [`DEFAULT_WIDTH`] when it says 0 or cannot say.
pub fn terminal_width(fd: impl std::os::fd::AsFd) -> u16 {
    rustix::termios::tcgetwinsize(fd)
        .ok()
        .map(|size| size.ws_col)
        .filter(|&w| w > 0)
        .unwrap_or(DEFAULT_WIDTH)
}

/// How a table is drawn: in colour or not, and the width it must fit (none: as wide
/// as its content).
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub color: bool,
    pub width: Option<u16>,
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

#[cfg(test)]
mod tests {
    use super::{color_from_env, width_from_env};

    #[test]
    fn colour_follows_clicolor_force_then_no_color_then_the_terminal() {
        type Vars = &'static [(&'static str, &'static str)];
        let rows: [(Vars, bool, bool); 9] = [
            (&[], true, true),
            (&[], false, false),
            (&[("NO_COLOR", "1")], true, false),
            (&[("NO_COLOR", "")], true, true),
            (&[("CLICOLOR", "0")], true, false),
            (&[("CLICOLOR_FORCE", "1")], false, true),
            (&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false, true),
            (&[("CLICOLOR_FORCE", "0")], false, false),
            (&[("CLICOLOR_FORCE", "0"), ("NO_COLOR", "1")], true, false),
        ];
        for (vars, tty, want) in rows {
            let env = |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_string())
            };
            assert_eq!(color_from_env(tty, env), want, "{vars:?} tty={tty}");
        }
    }

    #[test]
    fn columns_is_a_width_only_when_it_is_a_positive_number() {
        assert_eq!(width_from_env(Some("60")), Some(60));
        assert_eq!(width_from_env(Some(" 80 ")), Some(80));
        assert_eq!(width_from_env(Some("0")), None);
        assert_eq!(width_from_env(Some("wide")), None);
        assert_eq!(width_from_env(Some("-3")), None);
        assert_eq!(width_from_env(None), None);
    }
}
