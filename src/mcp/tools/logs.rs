//! The `logs` tool: a task's last log, its tail bounded. Read-only.

use super::{tail, Answer, Context, LogsQuery, LOGS_DEFAULT_LINES, LOGS_MAX_LINES};
use crate::error::Result;
use crate::error::WfError;
use crate::exec::process::log_path;
use crate::project::Project;
use crate::report::one_line;
use serde_json::json;

/// The end of a task's log: the task `wf logs` would pick (in progress, else failed,
/// else the last that ran) or the one asked for, its last attempt or the one asked
/// for. Read-only. The path is built from the task id and attempt (src/commands/logs.rs).
pub fn logs(ctx: &Context, query: &LogsQuery) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let store = project.store();
    let state = store.load()?.ok_or_else(|| project.no_workflow())?;
    let task = crate::report::logs::pick(&state, query.task.as_deref())?;
    let attempt = crate::report::logs::attempt(task, query.attempt).map_err(WfError::usage)?;
    let lines = query
        .lines
        .unwrap_or(LOGS_DEFAULT_LINES)
        .clamp(1, LOGS_MAX_LINES);
    let path = log_path(&store.logs_dir(), &task.id, attempt);
    let bytes = match crate::fs::read_regular(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => {
            return Err(WfError::usage(crate::report::logs::no_log(
                &task.id, attempt, &path,
            )))
        }
        Err(e) => return Err(e),
    };
    let (text, cut) = tail(&String::from_utf8_lossy(&bytes), lines);
    let body = json!({
        "task": task.id,
        "attempt": attempt,
        "attempts": task.attempts,
        "path": path,
        "lines": text.lines().count(),
        "cut": cut,
        "text": text,
    });
    let head = format!(
        "--- {} attempt {attempt} of {}{}: {} ---\n",
        one_line(&task.id),
        task.attempts,
        if cut { ", last lines" } else { "" },
        path.display()
    );
    Ok(Answer::new(body, format!("{head}{text}"), false))
}
