//! `wf logs [TASK]`: a task's log from the project, without knowing where the workflow
//! dir is. Read-only. The path is built from the task id and the attempt (never taken
//! from the state file), and the file is opened as `wf` opens its own: no link, a
//! regular file only.

use serde_json::json;

use crate::cli::LogsArgs;
use crate::error::{Result, WfError};
use crate::exec::process::log_path;
use crate::output::Output;
use crate::project::Project;
use crate::report::logs;

pub fn run(project: &Project, args: &LogsArgs, out: &Output) -> Result<i32> {
    let (store, state) = super::load_state(project)?;
    let task = logs::pick(&state, args.task.as_deref()).map_err(WfError::usage)?;
    let attempt = logs::attempt(task, args.attempt).map_err(WfError::usage)?;
    let path = log_path(&store.logs_dir(), &task.id, attempt);
    if args.path {
        out.json_value(&json!({"task": task.id, "attempt": attempt, "path": path}));
        out.say(path.display().to_string());
        return Ok(0);
    }
    let bytes = match crate::fs::read_regular(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => {
            return Err(WfError::usage(format!(
                "task {} attempt {attempt} left no log at {}: a log is kept only when a check prints something or fails",
                task.id,
                path.display()
            )))
        }
        Err(e) => return Err(e),
    };
    let text = String::from_utf8_lossy(&bytes);
    out.json_value(&json!({"task": task.id, "attempt": attempt, "path": path, "text": text}));
    if !out.json {
        // A task's output must not drive the terminal it is shown on.
        let shown = if out.stdout_tty {
            crate::output::strip_controls(&text)
        } else {
            text.into_owned()
        };
        let _ = out.print(shown);
    }
    Ok(0)
}
