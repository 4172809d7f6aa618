//! Errors that end a command, each with a kind that `main` maps to an exit code.
//!
//! The codes are part of the interface (README "Exit codes"); scripts and hooks
//! branch on them, so a kind never changes its code.

use std::fmt;

/// What went wrong, as far as the caller's next move is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A task or verifier failed; the workflow is `failed`.
    Failed,
    /// Bad arguments, a bad plan, bad config or an unusable environment.
    Usage,
    /// Only blocked tasks are left; something outside `wf` must happen first.
    Blocked,
    /// Another `wf` process holds the lock.
    Locked,
    /// The state file is corrupt or from a newer `wf`; it was left untouched.
    CorruptState,
    /// A task was handed to an agent and waits for its work.
    HandedOff,
    /// Interrupted by SIGINT, SIGTERM, SIGHUP or SIGQUIT; progress was saved.
    Interrupted,
}

impl ErrorKind {
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Failed => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Blocked => 3,
            ErrorKind::Locked => 4,
            ErrorKind::CorruptState => 5,
            ErrorKind::HandedOff => 6,
            ErrorKind::Interrupted => 130,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::Failed => "failed",
            ErrorKind::Usage => "usage",
            ErrorKind::Blocked => "blocked",
            ErrorKind::Locked => "locked",
            ErrorKind::CorruptState => "corrupt_state",
            ErrorKind::HandedOff => "handed_off",
            ErrorKind::Interrupted => "interrupted",
        }
    }
}

/// An error that ends a command: a kind and a one-line message.
#[derive(Debug)]
pub struct WfError {
    pub kind: ErrorKind,
    pub message: String,
}

impl WfError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        WfError {
            kind,
            message: message.into(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        WfError::new(ErrorKind::Usage, message)
    }
}

impl fmt::Display for WfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WfError {}

impl From<std::io::Error> for WfError {
    fn from(err: std::io::Error) -> Self {
        WfError::usage(err.to_string())
    }
}

impl From<anyhow::Error> for WfError {
    fn from(err: anyhow::Error) -> Self {
        match err.downcast::<WfError>() {
            Ok(wf) => wf,
            Err(other) => WfError::usage(format!("{other:#}")),
        }
    }
}

pub type Result<T, E = WfError> = std::result::Result<T, E>;

/// `text` on one line: newlines and other control characters escaped. For text
/// quoted from input (a serde message naming an unknown key, say), so an error
/// stays one line whatever the input held.
pub fn one_line(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// `Err(WfError)` with a formatted message: `bail!(Usage, "…{x}…")`.
#[macro_export]
macro_rules! bail {
    ($kind:ident, $($arg:tt)*) => {
        return Err($crate::error::WfError::new($crate::error::ErrorKind::$kind, format!($($arg)*)))
    };
}
