//! Running one command: its own process group, a deadline, output to a capped log,
//! and nothing it started left running when it ends.
//!
//! Each command runs in a new process group so a timeout or Ctrl-C ends everything
//! it started (`sh -c 'sleep 100 & sleep 100'` leaves no survivors). A descendant
//! that leaves the group (`setsid`, a daemon's double fork) is caught another way:
//! `wf` is a child subreaper, so when its parent dies it becomes a child of `wf`; when
//! the command ends, every such process that belongs to it is ended and reaped (see
//! [`Children`] for which ones do). Output goes through a pipe to
//! the attempt's log file (see `lazylog`), so memory and disk stay bounded however
//! much a command prints. A command is text from the plan's command fields and
//! nothing else: no other plan text reaches a shell.

use std::collections::HashMap;

use std::io::{Read, Seek, SeekFrom};
use std::ops::Range;
use std::os::fd::AsFd as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::event::PollFlags;
use rustix::process::Signal;

use crate::exec::children::signal_group;
pub use crate::exec::children::Children;
use crate::exec::lazylog::LazyLog;
use crate::exec::reactor::readable;
use crate::exec::spawn::{Launch, Leader};

/// What to run: through `sh -c`, or a program with its arguments (no shell).
#[derive(Debug, Clone)]
pub enum Program {
    Shell(String),
    Argv(Vec<String>),
}

impl Program {
    pub fn display(&self) -> String {
        match self {
            Program::Shell(s) => s.clone(),
            Program::Argv(a) => a.join(" "),
        }
    }

    /// The argv to spawn. A shell line made only of plain words runs without the
    /// shell, as make does: same meaning, one exec fewer.
    pub fn argv(&self) -> Vec<String> {
        match self {
            Program::Argv(a) => a.clone(),
            Program::Shell(line) => match plain_words(line) {
                Some(words) => words,
                None => vec!["/bin/sh".into(), "-c".into(), line.clone()],
            },
        }
    }
}

/// Shell builtins and keywords: a line starting with one needs the shell.
const SHELL_WORDS: &[&str] = &[
    ".", ":", "alias", "bg", "break", "case", "cd", "command", "continue", "eval", "exec", "exit",
    "export", "fg", "for", "getopts", "hash", "if", "jobs", "read", "readonly", "return", "set",
    "shift", "source", "times", "trap", "type", "ulimit", "umask", "unalias", "unset", "until",
    "wait", "while", "function", "select", "!", "{", "}",
];

fn plain_words(line: &str) -> Option<Vec<String>> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./=:+,@%-".contains(c);
    if !line.chars().all(|c| plain(c) || c == ' ') {
        return None;
    }
    let words: Vec<String> = line
        .split(' ')
        .filter(|w| !w.is_empty())
        .map(String::from)
        .collect();
    let first = words.first()?;
    if SHELL_WORDS.contains(&first.as_str()) || first.contains('=') {
        return None;
    }
    Some(words)
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
    TimedOut(Duration),
    /// Stopped because `wf` was interrupted.
    Interrupted,
    /// Could not be started at all (bad cwd, no pipe, not executable…).
    SpawnFailed(String),
    /// Could not be started because its program is not on PATH: retrying cannot help.
    NotOnPath(String),
}

impl Exit {
    pub fn success(&self) -> bool {
        matches!(self, Exit::Code(0))
    }

    /// Its exit code, when it exited.
    pub fn code(&self) -> Option<i32> {
        match self {
            Exit::Code(c) => Some(*c),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        match self {
            Exit::Code(c) => format!("exited with {c}"),
            Exit::Signal(s) => format!("was killed by signal {s}"),
            Exit::TimedOut(d) => format!(
                "timed out after {}s (its process group was killed)",
                d.as_secs()
            ),
            Exit::Interrupted => "was interrupted".into(),
            Exit::SpawnFailed(e) => format!("could not start: {e}"),
            Exit::NotOnPath(prog) => format!("could not start: `{prog}` is not on PATH"),
        }
    }
}

pub struct Spec<'a> {
    pub program: Program,
    pub cwd: &'a Path,
    pub env: Vec<(String, String)>,
    pub timeout: Duration,
    pub log: &'a Path,
    pub stdin: Option<Vec<u8>>,
    /// Called once the process has started (an executor's dispatch ack).
    pub on_start: Option<&'a mut dyn FnMut()>,
    /// Most bytes of output the log keeps (`wf.log_cap_bytes`).
    pub log_cap: u64,
    /// Where the output is also shown, a line at a time, as it comes (`-v`).
    pub echo: Option<crate::exec::lazylog::Echo<'a>>,
}

/// Runs one command to its end (or its deadline), output appended to `spec.log`: a
/// future (see `reactor`).
pub async fn run(spec: Spec<'_>, children: &Children) -> Exit {
    run_with(spec, None, children).await.exit
}

/// How a logged command ended, and what it left in its log.
#[derive(Debug)]
pub struct Logged {
    pub exit: Exit,
    /// Why the log could not be written, if it could not: the command's result
    /// stands, and the reason belongs in its failure text.
    pub log_error: Option<String>,
    /// The bytes of the log this command wrote, its `$ header` line first; none when
    /// it wrote nothing.
    pub written: Option<Range<u64>>,
}

impl Logged {
    fn unlogged(exit: Exit) -> Logged {
        Logged {
            exit,
            log_error: None,
            written: None,
        }
    }
}

/// Like [`run`], but the log — `$ header`, then the output — is only created when the
/// command prints something or fails (see `lazylog`): a silent success writes no
/// file.
pub async fn run_logged(spec: Spec<'_>, header: &str, children: &Children) -> Logged {
    run_with(spec, Some(header), children).await
}

async fn run_with(spec: Spec<'_>, header: Option<&str>, children: &Children) -> Logged {
    if children.is_interrupted() {
        return Logged::unlogged(Exit::Interrupted);
    }
    let argv = spec.program.argv();
    let Some(prog) = argv.first() else {
        return Logged::unlogged(Exit::SpawnFailed("empty command".into()));
    };
    let mut path = program_path(prog, &spec.env, spec.cwd);
    let mut looked_again = false;
    let stdin = match spec.stdin.as_ref().map(|_| std::io::pipe()).transpose() {
        Ok(stdin) => stdin,
        Err(e) => {
            return Logged::unlogged(Exit::SpawnFailed(format!(
                "cannot make a pipe for its input: {e}"
            )))
        }
    };
    let (mut log, (number, mut child)) = loop {
        let (mut log, output) = match LazyLog::new(spec.log, header, spec.log_cap) {
            Ok((mut log, output)) => {
                log.echo_to(spec.echo);
                (log, output)
            }
            Err(e) => {
                return Logged::unlogged(Exit::SpawnFailed(format!(
                    "cannot make a pipe for its output: {e}"
                )))
            }
        };
        let spawned = match &path {
            Some(path) => children.spawn(&Launch {
                path,
                argv: &argv,
                cwd: spec.cwd,
                env: &spec.env,
                stdin: stdin.as_ref().map(|(read, _)| read.as_fd()),
                output: output.as_fd(),
            }),
            None => Err(std::io::ErrorKind::NotFound.into()),
        };
        // The pipe's end is what says the command may have exited: the parent's copy
        // of its write end goes now, or it never reaches its end.
        drop(output);
        match spawned {
            Ok(started) => break (log, started),
            // The program found on PATH earlier is no longer a file there: look it
            // up again. The failed spawn left nothing behind (its log is not created
            // yet).
            Err(_)
                if !looked_again
                    && !prog.contains('/')
                    && path.as_ref().is_some_and(|p| !p.is_file()) =>
            {
                looked_again = true;
                found().remove(prog);
                path = program_path(prog, &spec.env, spec.cwd);
            }
            Err(e) => {
                log.ensure();
                let exit = spawn_failure(&e, prog, path.as_deref(), spec.cwd);
                let log_error = log.finish();
                return Logged {
                    exit,
                    log_error,
                    written: log.written(),
                };
            }
        }
    };
    let pgid = child.id();
    if let Some(on_start) = spec.on_start {
        on_start();
    }
    if let (Some(input), Some((read, mut pipe))) = (spec.stdin, stdin) {
        drop(read);
        // The brief is small; a child that does not read it just gets EPIPE.
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = pipe.write_all(&input);
        });
    }
    let started = Instant::now();
    let status = wait_with_deadline(&mut child, pgid, children, &mut log, spec.timeout).await;
    // Whatever the leader did, nothing it started may outlive it.
    children.end(number, pgid).await;
    if !matches!(status, Waited::Exited(s) if s.success()) {
        log.ensure();
    }
    let log_error = log.finish();
    let exit = match status {
        Waited::Exited(status) => {
            if children.is_interrupted() && !status.success() {
                Exit::Interrupted
            } else {
                match (
                    status.code(),
                    std::os::unix::process::ExitStatusExt::signal(&status),
                ) {
                    (Some(c), _) => Exit::Code(c),
                    (None, Some(s)) => Exit::Signal(s),
                    (None, None) => Exit::Code(-1),
                }
            }
        }
        Waited::TimedOut if children.is_interrupted() => Exit::Interrupted,
        Waited::TimedOut => Exit::TimedOut(started.elapsed()),
        Waited::Error(e) => Exit::SpawnFailed(e),
    };
    Logged {
        exit,
        log_error,
        written: log.written(),
    }
}

/// What a failed spawn of `prog` (found at `path`, run in `cwd`) means. The spawn's
/// ENOENT is the directory's, the program's, or — the program being there — its `#!`
/// interpreter's or its loader's: only a program that is not there is "not on PATH".
fn spawn_failure(e: &std::io::Error, prog: &str, path: Option<&Path>, cwd: &Path) -> Exit {
    if e.kind() != std::io::ErrorKind::NotFound {
        return Exit::SpawnFailed(format!("`{prog}`: {e}"));
    }
    if !cwd.is_dir() {
        return Exit::SpawnFailed(format!("its directory {} is not there", cwd.display()));
    }
    // A relative path is the command's directory's, as the spawn took it.
    let Some(file) = path.map(|p| cwd.join(p)).filter(|p| p.is_file()) else {
        return Exit::NotOnPath(prog.to_string());
    };
    Exit::SpawnFailed(match interpreter_of(&file) {
        Some(interpreter) => {
            format!("`{prog}`: its interpreter {interpreter} (its #! line) is not there")
        }
        None => format!("`{prog}` is there but cannot be run: {e} (a missing loader?)"),
    })
}

/// The interpreter a script's `#!` line names, if it has one.
fn interpreter_of(script: &Path) -> Option<String> {
    let mut head = [0u8; 256];
    let read = crate::fs::open_regular(script, false)
        .ok()?
        .read(&mut head)
        .ok()?;
    let line = head[..read].strip_prefix(b"#!")?;
    let line = line.split(|&b| b == b'\n').next()?;
    let interpreter = std::str::from_utf8(line).ok()?.split_whitespace().next()?;
    Some(interpreter.to_string())
}

/// The program `prog` names: itself when it is a path (relative to the command's
/// directory), else where it is on the PATH the command gets. On `wf`'s own PATH a
/// program is looked up once per run, so no task searches PATH: like a shell's hash
/// table, a program installed later in an earlier PATH entry is not seen; one that
/// vanished is looked up again once its spawn fails. A PATH set for the command, or
/// one with a relative entry (it means the command's directory), is searched each
/// time. `None`: not found.
fn program_path(prog: &str, env: &[(String, String)], cwd: &Path) -> Option<PathBuf> {
    if prog.contains('/') {
        return Some(PathBuf::from(prog));
    }
    if let Some((_, path_var)) = env.iter().rev().find(|(k, _)| k == "PATH") {
        return which::which_in(prog, Some(path_var), cwd).ok();
    }
    match lookup(prog) {
        Lookup::Found(path) => Some(path),
        Lookup::NotFound => None,
        Lookup::Uncached => which::which_in(prog, std::env::var_os("PATH"), cwd).ok(),
    }
}

/// Whether a bare program name is on `wf`'s PATH, through the same cache as spawns:
/// asked before one, so a missing program fails with its name. A program found
/// earlier is taken as still there, with no stat of it: if it went, the spawn finds
/// out, looks again, and reports it not on PATH itself ([`Exit::NotOnPath`]).
pub fn on_path(prog: &str) -> bool {
    match lookup(prog) {
        Lookup::Found(_) => true,
        Lookup::NotFound => false,
        Lookup::Uncached => which::which(prog).is_ok(),
    }
}

/// The program `program` starts with, when it is a bare name that is not on PATH:
/// asked before a spawn, so a missing tool fails by name, not as a shell's 127.
pub fn missing_program(program: &Program) -> Option<String> {
    program
        .argv()
        .into_iter()
        .next()
        .filter(|p| !p.contains('/') && !on_path(p))
}

enum Lookup {
    Found(PathBuf),
    NotFound,
    /// PATH has a relative entry: the answer depends on the directory.
    Uncached,
}

/// Where each program was found on PATH this run.
fn found() -> std::sync::MutexGuard<'static, HashMap<String, PathBuf>> {
    static FOUND: OnceLock<Mutex<HashMap<String, PathBuf>>> = OnceLock::new();
    FOUND
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `wf`'s own PATH, read once (nothing in `wf` changes its environment), and
/// whether each of its entries is absolute.
fn own_path() -> Option<&'static (std::ffi::OsString, bool)> {
    static OWN: OnceLock<Option<(std::ffi::OsString, bool)>> = OnceLock::new();
    OWN.get_or_init(|| {
        let path_var = std::env::var_os("PATH")?;
        let absolute = std::env::split_paths(&path_var).all(|dir| dir.is_absolute());
        Some((path_var, absolute))
    })
    .as_ref()
}

fn lookup(prog: &str) -> Lookup {
    let Some((path_var, absolute)) = own_path() else {
        return Lookup::NotFound;
    };
    if !absolute {
        return Lookup::Uncached;
    }
    let mut found = found();
    if let Some(path) = found.get(prog) {
        return Lookup::Found(path.clone());
    }
    match which::which_in_global(prog, Some(path_var))
        .ok()
        .and_then(|mut paths| paths.next())
    {
        Some(path) => {
            found.insert(prog.to_string(), path.clone());
            Lookup::Found(path)
        }
        None => Lookup::NotFound,
    }
}

enum Waited {
    Exited(std::process::ExitStatus),
    TimedOut,
    Error(String),
}

/// How long a command's exit is watched through its output pipe alone.
const QUICK: Duration = Duration::from_millis(20);

/// What tells the wait that the command exited.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ExitWatch {
    /// The output pipe's end, for the command's first [`QUICK`] moments (a quick
    /// command's pipe ends as it exits)…
    PipeEnd,
    /// … then naps that grow to 20 ms (a process it started may hold the pipe open
    /// long after it exited).
    Nap,
}

/// Waits for the child, woken by its output's end or its output; a long command
/// costs a wake-up every 20 ms at most (interrupts, deadline).
async fn wait_with_deadline(
    child: &mut Leader,
    pgid: u32,
    children: &Children,
    log: &mut LazyLog<'_>,
    timeout: Duration,
) -> Waited {
    let mut deadline = crate::clock::deadline_after(timeout);
    let mut interrupted_at: Option<Instant> = None;
    let mut nap = Duration::from_micros(50);
    let quick_until = Instant::now() + QUICK;
    let mut watch = ExitWatch::PipeEnd;
    loop {
        if children.is_interrupted() && interrupted_at.is_none() {
            // Signal our own group too: interrupt() may have run before this group
            // was registered. Then give it the same grace before the deadline's SIGKILL.
            signal_group(pgid, Signal::TERM);
            interrupted_at = Some(Instant::now());
            deadline = deadline.min(Instant::now() + Duration::from_secs(2));
        }
        let pipe = log.fd();
        if watch == ExitWatch::PipeEnd && (pipe.is_none() || Instant::now() >= quick_until) {
            watch = ExitWatch::Nap;
        }
        // Waiting comes first: a command just started has neither printed nor exited,
        // and asking would cost a read and a wait4 that answer nothing. Woken by the
        // pipe's end, else by a nap.
        let slice = (Instant::now() + Duration::from_millis(20)).min(deadline);
        // Whether the command may have exited, and what its pipe had.
        let (exited, output) = match (&watch, pipe) {
            // The pipe's end (`HUP`: no writer left) says it may have: the pipe's
            // write ends are closed as it exits, a moment before a wait4 finds it.
            (ExitWatch::PipeEnd, Some(pipe)) => {
                let [output, _] = readable([Some(pipe), None], slice.min(quick_until)).await;
                (output.contains(PollFlags::HUP), output)
            }
            // Past the quick moments: it may have exited any time.
            (_, pipe) => {
                let [output, _] = readable([pipe, None], Instant::now() + nap).await;
                (true, output)
            }
        };
        nap = (nap * 2).min(Duration::from_millis(20));
        log.pump_ready(output);
        if exited {
            match reap(child, watch) {
                Ok(Some(status)) => return Waited::Exited(status),
                Ok(None) => {}
                Err(e) => return Waited::Error(e.to_string()),
            }
        }
        if Instant::now() >= deadline {
            signal_group(pgid, Signal::KILL);
            let _ = child.wait();
            return Waited::TimedOut;
        }
    }
}

/// Reaps the child if it exited. Its pipe's end comes a moment before its exit can
/// be reaped; the exiting child often runs on this CPU (the kernel wakes this thread
/// where it ran): a yield lets it finish, and a second look finds it.
fn reap(child: &mut Leader, watch: ExitWatch) -> std::io::Result<Option<std::process::ExitStatus>> {
    match child.try_wait()? {
        None if watch == ExitWatch::PipeEnd => {
            std::thread::yield_now();
            child.try_wait()
        }
        status => Ok(status),
    }
}

/// Opens a task log for appending, creating it — and its directory, the first time
/// or if it was removed — but never following a link planted where the log goes.
pub fn open_log(path: &Path) -> std::io::Result<std::fs::File> {
    open_log_at_end(path).map(|(file, _)| file)
}

/// [`open_log`], with the file's length when opened: where the next write lands.
pub fn open_log_at_end(path: &Path) -> std::io::Result<(std::fs::File, u64)> {
    let open = || {
        // O_NONBLOCK: opening a FIFO planted here returns at once instead of waiting
        // for a reader; it is then refused below. It changes nothing for a file.
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
            .open(path)?;
        let meta = file.metadata()?;
        if meta.is_file() {
            Ok((file, meta.len()))
        } else {
            Err(std::io::Error::other(format!(
                "{} is not a regular file",
                path.display()
            )))
        }
    };
    match open() {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            open()
        }
        other => other,
    }
}

/// The last `max_lines` lines of a log file, reading at most its last 64 KiB; empty
/// when it cannot be opened as a regular file (a link is not followed).
pub fn tail(path: &Path, max_lines: usize) -> String {
    const MAX: u64 = 64 * 1024;
    let Ok(mut f) = crate::fs::open_regular(path, false) else {
        return String::new();
    };
    let start = f.metadata().map_or(0, |m| m.len()).saturating_sub(MAX);
    // From the byte before `start`: whether the read begins at a line's start.
    let _ = f.seek(SeekFrom::Start(start.saturating_sub(1)));
    let mut buf = Vec::new();
    let _ = f.take(MAX + 1).read_to_end(&mut buf);
    let text = String::from_utf8_lossy(&buf);
    // A read begun inside a line drops that line's end: only whole lines are shown.
    let whole = if start > 0 {
        text.split_once('\n').map_or("", |(_, rest)| rest)
    } else {
        &text
    };
    let lines: Vec<&str> = whole.lines().collect();
    lines[lines.len().saturating_sub(max_lines)..].join("\n")
}

/// A log path inside `dir` for an attempt of a task. Letters, digits and `-` stay;
/// anything else becomes `_xx` (its bytes in hex), so no id can name a path outside
/// `dir` and two ids never share a log (`T1.2` → `T1_2e2`, `T1_2` → `T1_5f2`).
pub fn log_path(dir: &Path, task_id: &str, attempt: u32) -> PathBuf {
    let mut safe = String::with_capacity(task_id.len());
    for b in task_id.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' {
            safe.push(char::from(b));
        } else {
            safe.push_str(&format!("_{b:02x}"));
        }
    }
    dir.join(format!("{safe}.{attempt}.log"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_read_from_mid_file_drops_its_cut_first_line_only() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("big.log");
        // Twenty lines of `width` bytes, the last 64 KiB read: with 4,000 they start
        // inside the fourth line; with 4,096 exactly where the fifth begins.
        for (width, first, count) in [(4000, "05x", 16), (4096, "05x", 16)] {
            let line = |i: usize| format!("{i:02}{}\n", "x".repeat(width - 3));
            let text = (1..=20).map(line).collect::<Vec<_>>().concat();
            std::fs::write(&log, text).unwrap();
            let tail = tail(&log, 40);
            assert!(tail.starts_with(first), "{width}: {}", &tail[..8]);
            assert_eq!(tail.lines().count(), count, "{width}");
            assert!(tail.lines().all(|l| l.len() == width - 1), "{width}");
        }
    }

    #[test]
    fn plain_lines_skip_the_shell() {
        assert_eq!(plain_words("true").unwrap(), vec!["true"]);
        assert_eq!(
            plain_words("cargo test --quiet").unwrap(),
            vec!["cargo", "test", "--quiet"]
        );
        assert!(plain_words("echo $(touch x)").is_none());
        assert!(plain_words("a; b").is_none());
        assert!(plain_words("cd src").is_none());
        assert!(plain_words("FOO=1 make").is_none());
        assert!(plain_words("echo 'x'").is_none());
        assert!(plain_words("").is_none());
    }

    #[test]
    fn log_path_stays_inside_its_dir() {
        let p = log_path(Path::new("/w/logs"), "../../etc/passwd", 1);
        assert_eq!(p, Path::new("/w/logs/_2e_2e_2f_2e_2e_2fetc_2fpasswd.1.log"));
        assert_ne!(
            log_path(Path::new("/w"), "T1.2", 1),
            log_path(Path::new("/w"), "T1_2", 1)
        );
    }

    #[test]
    fn timeout_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survivor");
        let line = format!("(sleep 1; touch {}) & sleep 100", marker.display());
        let exit = run_line(&line, dir.path(), Duration::from_millis(300));
        assert!(matches!(exit, Exit::TimedOut(_)), "{exit:?}");
        std::thread::sleep(Duration::from_millis(1500));
        assert!(!marker.exists(), "a background child survived the timeout");
    }

    /// Runs `program` in `cwd` with `env`, its log at `log`.
    fn run_at(
        program: Program,
        cwd: &Path,
        log: &Path,
        env: Vec<(String, String)>,
        timeout: Duration,
    ) -> Exit {
        crate::exec::reactor::block_on(run(
            Spec {
                program,
                cwd,
                env,
                timeout,
                log,
                stdin: None,
                on_start: None,
                log_cap: crate::config::DEFAULT_LOG_CAP,
                echo: None,
            },
            &Children::default(),
        ))
    }

    /// Runs `program` in `dir` with `env`, its log `dir/t.log`.
    fn run_in(program: Program, dir: &Path, env: Vec<(String, String)>, timeout: Duration) -> Exit {
        run_at(program, dir, &dir.join("t.log"), env, timeout)
    }

    /// A bare program, no arguments.
    fn bare(program: &str) -> Program {
        Program::Argv(vec![program.into()])
    }

    fn run_line(line: &str, dir: &Path, timeout: Duration) -> Exit {
        run_in(Program::Shell(line.to_string()), dir, vec![], timeout)
    }

    #[test]
    fn an_exit_is_seen_while_a_child_it_left_keeps_printing() {
        // The pipe never ends and is never quiet for long: the naps' wait4 sees the
        // exit before the deadline.
        let dir = tempfile::tempdir().unwrap();
        let started = Instant::now();
        let exit = run_line(
            "(while :; do echo x; sleep 0.005; done) & sleep 0.1; exit 3",
            dir.path(),
            Duration::from_secs(20),
        );
        assert_eq!(exit, Exit::Code(3));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn an_exit_after_the_output_closed_is_waited_for() {
        // The pipe ends at once; the exit comes later.
        let dir = tempfile::tempdir().unwrap();
        let exit = run_line(
            "exec >&- 2>&-; sleep 0.2; exit 4",
            dir.path(),
            Duration::from_secs(20),
        );
        assert_eq!(exit, Exit::Code(4));
    }

    #[test]
    fn a_stray_that_left_its_emptied_group_is_still_ended() {
        // The command's group is empty when it ends (its shell is gone, the sleep
        // is in a session of its own), yet the sleep is its and must not outlive it.
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let line = format!(
            "setsid sleep 30 > /dev/null 2>&1 & echo $! > {}",
            pid_file.display()
        );
        let exit = run_line(&line, dir.path(), Duration::from_secs(10));
        assert_eq!(exit, Exit::Code(0));
        let pid = std::fs::read_to_string(&pid_file).unwrap();
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()));
        assert!(stat.is_err(), "the stray lives on: {stat:?}");
    }

    #[test]
    fn a_program_gone_from_where_it_was_found_is_looked_up_again() {
        let dir = tempfile::tempdir().unwrap();
        let run = |prog: &str| run_in(bare(prog), dir.path(), vec![], Duration::from_secs(10));
        // Spawns trust where a program was found; `true` "was" somewhere now gone
        // (a concurrent test spawning `true` meanwhile takes the same way back).
        let gone = dir.path().join("gone").join("true");
        found().insert("true".into(), gone.clone());
        assert_eq!(run("true"), Exit::Code(0));
        let now = found().get("true").cloned().expect("found again");
        assert!(now != gone && now.is_file(), "{now:?}");
        // Gone from everywhere: not on PATH, as when the spawn searched PATH itself.
        let prog = "wf-test-gone-from-path";
        found().insert(prog.into(), gone);
        assert_eq!(run(prog), Exit::NotOnPath(prog.into()));
        assert!(!found().contains_key(prog));
    }

    #[test]
    fn a_program_is_found_on_the_commands_own_path_and_a_relative_one_in_its_directory() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        for (file, code) in [("bin/wf-own-tool", 5), ("here/wf-rel-tool", 6)] {
            let path = dir.path().join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, format!("#!/bin/sh\nexit {code}\n")).unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let run_argv = |argv: &[&str], env: Vec<(String, String)>| {
            let argv = argv.iter().map(|a| (*a).to_string()).collect();
            run_in(Program::Argv(argv), dir.path(), env, Duration::from_secs(5))
        };
        let own_path = || vec![("PATH".to_string(), "/nowhere:bin".to_string())];
        // A PATH set for the command, with a relative entry: its directory's `bin`.
        assert_eq!(run_argv(&["wf-own-tool"], own_path()), Exit::Code(5));
        assert_eq!(
            run_argv(&["wf-rel-tool"], own_path()),
            Exit::NotOnPath("wf-rel-tool".into())
        );
        // A path with a `/` is the command's directory's.
        assert_eq!(run_argv(&["here/wf-rel-tool"], vec![]), Exit::Code(6));
        assert_eq!(
            run_argv(&["./wf-rel-tool"], vec![]),
            Exit::NotOnPath("./wf-rel-tool".into())
        );
    }

    #[test]
    fn missing_program_is_a_spawn_failure() {
        let dir = tempfile::tempdir().unwrap();
        let exit = run_in(
            bare("wf-no-such-program"),
            dir.path(),
            vec![],
            Duration::from_secs(5),
        );
        assert_eq!(exit, Exit::NotOnPath("wf-no-such-program".into()));
    }

    #[test]
    fn a_script_whose_interpreter_is_missing_is_told_so_not_that_it_is_not_on_path() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("build.sh");
        std::fs::write(&script, "#!/wf-no-such/bash -e\necho hi\n").unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let exit = run_in(
            bare("./build.sh"),
            dir.path(),
            vec![],
            Duration::from_secs(5),
        );
        assert_eq!(
            exit,
            Exit::SpawnFailed(
                "`./build.sh`: its interpreter /wf-no-such/bash (its #! line) is not there".into()
            )
        );
    }

    #[test]
    fn a_command_whose_directory_is_gone_is_told_so_not_that_its_program_is_missing() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("project");
        // Its log is elsewhere: the directory it runs in is not there.
        let log = dir.path().join("l");
        let exit = run_at(bare("true"), &gone, &log, vec![], Duration::from_secs(5));
        assert_eq!(
            exit,
            Exit::SpawnFailed(format!("its directory {} is not there", gone.display()))
        );
    }
}
