//! `wf logs [TASK]`: a task's log from the project, without knowing where the workflow
//! dir is. Read-only. The path is built from the task id and the attempt (never taken
//! from the state file), and the file is opened as `wf` opens its own: no link, a
//! regular file only. `--follow` prints what the attempt writes while it runs, and
//! ends when it has ended and its log is read to the end.

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

use serde_json::json;

use crate::cli::LogsArgs;
use crate::error::{Result, WfError};
use crate::exec::process::log_path;
use crate::output::Output;
use crate::project::Project;
use crate::report::logs;
use crate::state::{Store, TaskStatus};

pub fn run(project: &Project, args: &LogsArgs, out: &Output) -> Result<i32> {
    let (store, state) = super::load_state(project)?;
    let task = logs::pick(&state, args.task.as_deref())?;
    let attempt = logs::attempt(task, args.attempt).map_err(WfError::usage)?;
    let path = log_path(&store.logs_dir(), &task.id, attempt);
    if args.path {
        out.json_value(&json!({"task": task.id, "attempt": attempt, "path": path}));
        out.say(path.display().to_string());
        return Ok(0);
    }
    if args.follow {
        if out.json {
            return Err(WfError::usage(
                "--follow prints a stream, which has no JSON form; use --json without it, or --path",
            ));
        }
        return follow(&store, &task.id, attempt, &path, out);
    }
    let bytes = match crate::fs::read_regular(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => {
            return Err(WfError::usage(logs::no_log(&task.id, attempt, &path)))
        }
        Err(e) => return Err(e),
    };
    let text = String::from_utf8_lossy(&bytes);
    out.json_value(&json!({"task": task.id, "attempt": attempt, "path": path, "text": text}));
    if !out.json {
        let _ = out.print(shown(&text, out));
    }
    Ok(0)
}

/// A task's output must not drive the terminal it is shown on.
fn shown(text: &str, out: &Output) -> String {
    if out.stdout_tty {
        crate::escape::output(text).into_owned()
    } else {
        text.to_string()
    }
}

/// How often `--follow` looks for more.
const POLL: Duration = Duration::from_millis(100);

/// Prints the log as it grows — only whole lines while the attempt runs, so a
/// control sequence is never cut in two — until the attempt has ended and every byte
/// it wrote is printed. A log that does not exist yet is waited for: a check that has
/// printed nothing has none.
fn follow(store: &Store, id: &str, attempt: u32, path: &Path, out: &Output) -> Result<i32> {
    let mut offset = 0u64;
    let mut polls = 0u32;
    loop {
        // Whether it runs is read before the log: what it wrote before it ended is in
        // the log by then, so the last read below gets all of it. A state left
        // `in_progress` by a run that is gone is not running (the cheap lock probe
        // first): a crashed run must not keep `--follow` waiting for ever. The state
        // itself — a whole parse — is read once every STATE_EVERY polls.
        let running = store.writer_alive()
            && (!polls.is_multiple_of(STATE_EVERY) || attempt_running(store, id, attempt)?);
        polls += 1;
        let (bytes, next) = read_from(path, offset, running)?;
        offset = next;
        if !bytes.is_empty()
            && out
                .print(shown(&String::from_utf8_lossy(&bytes), out))
                .is_err()
        {
            return Ok(0);
        }
        if !running {
            return Ok(0);
        }
        std::thread::sleep(POLL);
    }
}

/// How many polls `--follow` makes between reads of the state (one a second).
const STATE_EVERY: u32 = 10;

/// Whether the state says `attempt` of task `id` is still in progress.
fn attempt_running(store: &Store, id: &str, attempt: u32) -> Result<bool> {
    let Some(state) = store.load()? else {
        return Ok(false);
    };
    Ok(state
        .task(id)?
        .is_some_and(|t| t.status == TaskStatus::InProgress && t.attempts == attempt))
}

/// The bytes of `path` after `offset` (whole lines only when `whole_lines`), and the
/// offset after them; nothing when the file is not there yet.
fn read_from(path: &Path, offset: u64, whole_lines: bool) -> Result<(Vec<u8>, u64)> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(file) => file,
        Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => return Ok((Vec::new(), offset)),
        Err(e) => return Err(e),
    };
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    if whole_lines {
        let end = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        bytes.truncate(end);
    }
    let next = offset + bytes.len() as u64;
    Ok((bytes, next))
}
