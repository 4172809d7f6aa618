//! Errors that end a command, each with a kind that `main` maps to an exit code.
//!
//! The codes are part of the interface (README "Exit codes"); scripts and hooks
//! branch on them, so a kind never changes its code, and a code given up is not
//! given again: 6 was a hand-off's until a hand-off stopped being an error (it
//! exits 0: the work waits for a person or an agent, nothing failed). Where an error only needs
//! telling, not a code — `wf hook`, which reports every failure as a warning and exits
//! 0 — `anyhow` carries it with the context of each step it crossed.

use std::fmt;

/// What went wrong, as far as the caller's next move is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A task or verifier failed; the workflow is `failed`. (`wf doctor` exits with
    /// this code when a check finds a problem, and `wf check --strict` on warnings:
    /// something failed that the caller must fix, as with a failed task.)
    Failed,
    /// Bad arguments, a bad plan, bad config or an unusable environment.
    Usage,
    /// Only blocked tasks are left, or a CI run stopped at the spending budget;
    /// something outside `wf` must happen first.
    Blocked,
    /// Another `wf` process holds the lock.
    Locked,
    /// The state file is corrupt or from a newer `wf`; it was left untouched.
    CorruptState,
    /// Interrupted by SIGINT, SIGTERM, SIGHUP or SIGQUIT; progress was saved.
    Interrupted,
    /// Reading or writing a file failed for a reason of the system, not of the input:
    /// a full disk, a read-only file system, denied permission, a device error.
    Io,
}

/// What exit code 0 tells the caller (the man page's EXIT STATUS, the guide's table).
pub const SUCCESS_MEANING: &str = "success: completed, paused at a stop point, or a task handed off to you or an agent (no executor configured; `--ci` fails such a task instead, 1)";

impl ErrorKind {
    /// Every kind, in the order of their exit codes.
    pub const ALL: [ErrorKind; 7] = [
        ErrorKind::Failed,
        ErrorKind::Usage,
        ErrorKind::Blocked,
        ErrorKind::Locked,
        ErrorKind::CorruptState,
        ErrorKind::Io,
        ErrorKind::Interrupted,
    ];

    /// What the exit code tells the caller, as README "Exit codes" and the man page's
    /// EXIT STATUS say it (a test keeps the README's table the same).
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorKind::Failed => "the workflow failed (a task or verifier failed); `wf doctor` found a problem; `wf check --strict` found warnings",
            ErrorKind::Usage => "usage or bad input: arguments, plan, config, environment",
            ErrorKind::Blocked => "blocked: only tasks waiting on an external blocker are left, or (in CI) the spending budget paused the run with tasks not run",
            ErrorKind::Locked => "locked: another `wf` holds the workflow (use `--wait [SECS]`)",
            ErrorKind::CorruptState => {
                "the state file is corrupt or from a newer `wf`; it was left untouched"
            }
            ErrorKind::Io => "an I/O error: a file could not be read or written (disk full, read-only file system, permission denied, device error); a path that does not exist or is a directory is bad input (2)",
            ErrorKind::Interrupted => "interrupted (SIGINT/Ctrl-C, SIGTERM, SIGHUP, SIGQUIT); progress was saved, `wf resume` continues",
        }
    }

    pub fn exit_code(self) -> i32 {
        match self {
            ErrorKind::Failed => 1,
            ErrorKind::Usage => 2,
            ErrorKind::Blocked => 3,
            ErrorKind::Locked => 4,
            ErrorKind::CorruptState => 5,
            ErrorKind::Io => 7,
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
            ErrorKind::Interrupted => "interrupted",
            ErrorKind::Io => "io",
        }
    }
}

/// An error that ends a command: a kind and a one-line message.
#[derive(Debug)]
pub struct WfError {
    pub kind: ErrorKind,
    pub message: String,
    /// What the system said, when a file operation failed.
    pub io: Option<std::io::ErrorKind>,
    /// Further errors found in the same pass (every graph error of a plan), each a
    /// message as `message` is, shown after it.
    pub more: Vec<String>,
}

impl WfError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        WfError {
            kind,
            message: message.into(),
            io: None,
            more: Vec::new(),
        }
    }

    pub fn usage(message: impl Into<String>) -> Self {
        WfError::new(ErrorKind::Usage, message)
    }

    /// A failed file operation, `message` saying which (it should quote `err`). A path
    /// that does not exist, or is a directory where a file belongs (or the reverse),
    /// is bad input; anything else the system refused is [`ErrorKind::Io`].
    pub fn io(err: &std::io::Error, message: impl Into<String>) -> Self {
        use std::io::ErrorKind as K;
        let kind = match err.kind() {
            K::NotFound | K::IsADirectory | K::NotADirectory | K::InvalidInput => ErrorKind::Usage,
            _ => ErrorKind::Io,
        };
        WfError {
            kind,
            message: message.into(),
            io: Some(err.kind()),
            more: Vec::new(),
        }
    }

    /// Where in which file the error is, when its message says so. Every error about
    /// a line of input starts `FILE:LINE: ` or `FILE:LINE:COLUMN: ` (the form editors
    /// and CI annotations jump to), so the message is where it is read from.
    pub fn location(&self) -> Option<Location> {
        let (head, _) = self.message.split_once(": ")?;
        let number = |s: &str| s.parse::<usize>().ok().filter(|&n| n > 0);
        let (rest, last) = head.rsplit_once(':')?;
        let last = number(last)?;
        let (file, line, column) = match rest.rsplit_once(':') {
            Some((file, line)) if number(line).is_some() => (file, number(line)?, Some(last)),
            _ => (rest, last, None),
        };
        (!file.is_empty()).then(|| Location {
            file: file.to_string(),
            line,
            column,
        })
    }

    /// Whether this is a write to a stdout whose reader has gone (`wf … | head`).
    pub fn is_broken_pipe(&self) -> bool {
        self.io == Some(std::io::ErrorKind::BrokenPipe)
    }
}

/// A place in a file an error is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    pub file: String,
    pub line: usize,
    pub column: Option<usize>,
}

impl fmt::Display for WfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for WfError {}

impl From<std::io::Error> for WfError {
    fn from(err: std::io::Error) -> Self {
        WfError::io(&err, err.to_string())
    }
}

pub type Result<T, E = WfError> = std::result::Result<T, E>;

/// `text` on one line: newlines and other control characters escaped. For text
/// quoted from input (a serde message naming an unknown key, say), so an error
/// stays one line whatever the input held.
pub fn one_line(text: &str) -> String {
    crate::escape::controls(text, crate::escape::Lines::Escape).into_owned()
}

/// Levenshtein distance, in characters: how far an unknown name is from a known
/// one, for a message's "did you mean" (a plan's field, a config key).
pub fn edit_distance(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row.first().copied().unwrap_or(0);
        if let Some(first) = row.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let up = row.get(j + 1).copied().unwrap_or(0);
            let left = row.get(j).copied().unwrap_or(0);
            let best = (diag + usize::from(ca != cb)).min(up + 1).min(left + 1);
            diag = up;
            if let Some(cell) = row.get_mut(j + 1) {
                *cell = best;
            }
        }
    }
    row.last().copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_error_about_a_line_says_where_it_is() {
        let at = |m: &str| {
            super::WfError::usage(m)
                .location()
                .map(|l| (l.file, l.line, l.column))
        };
        assert_eq!(at("tasks.md:7: bad id"), Some(("tasks.md".into(), 7, None)));
        assert_eq!(
            at("/a b/state.json:3:24: expected `,`"),
            Some(("/a b/state.json".into(), 3, Some(24)))
        );
        assert_eq!(at("no task T9 in this workflow"), None);
        assert_eq!(at("--phase deploy: no task"), None);
        assert_eq!(at("missing.json: no such file"), None);
        assert_eq!(at("tasks.md:0: nothing"), None);
        assert_eq!(at(":7: no file"), None);
    }

    use super::*;
    use std::io::{Error, ErrorKind as K};

    #[test]
    fn io_errors_exit_7_and_keep_what_the_system_said() {
        for kind in [
            K::StorageFull,
            K::ReadOnlyFilesystem,
            K::PermissionDenied,
            K::Other,
        ] {
            let err = WfError::from(Error::from(kind));
            assert_eq!((err.kind, err.io), (ErrorKind::Io, Some(kind)));
            assert_eq!((err.kind.exit_code(), err.kind.name()), (7, "io"));
        }
        // A path that is not there, or is a directory, is bad input.
        for kind in [K::NotFound, K::IsADirectory, K::NotADirectory] {
            let err = WfError::io(&Error::from(kind), "x");
            assert_eq!((err.kind, err.io), (ErrorKind::Usage, Some(kind)));
        }
        assert!(WfError::from(Error::from(K::BrokenPipe)).is_broken_pipe());
        assert!(!WfError::usage("x").is_broken_pipe());
    }
}
