//! The tools of `wf mcp` as plain functions: `next`, `done`, `skip`, `status`, `logs`.
//!
//! Each returns an [`Answer`] or an error the server turns into one
//! (`server::WfServer::call`): a failed check, no workflow, a corrupt state or a lock
//! another `wf` keeps past the wait are answers with `is_error` (the CLI's error
//! object and message), never a protocol error and never the end of the server.
//!
//! `next` and `done` change the workflow only the way `wf workflow-execute` does: they
//! take the lock, recover an interrupted run and refuse an undecided plan
//! (`src/run/recovery.rs`), then run the engine (`src/run/engine.rs`) in step mode, so
//! a call starts at most one task. `next` hands an agent task off exactly as a run
//! without executors does (the task `in_progress` with `handed_off`, the workflow left
//! `running`); `done` takes a handed-off task back (its checks, tests, gate, commit)
//! or runs a command task, records the outcome, and stops before the task after it.

use crate::state::model::Glance;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use crate::agent::parallel::Turn;
use crate::agent::step::Caller;
use crate::error::{Result, WfError};
use crate::output::error_json;
use crate::project::Project;
use crate::report::next::{self as next_report, Next, Reason};
use crate::report::one_line;
use crate::run::engine::Stop;
use crate::state::task_ref::TaskRef;
use crate::state::{Session, Task, TaskStatus, WorkflowState, WorkflowStatus};

mod done;
mod logs;
mod next;
mod skip;
mod status;

pub use done::done;
pub use logs::logs;
pub use next::next;
pub use skip::skip;
pub use status::status;

/// The most lines of a failed check's log `done` quotes.
pub const DONE_TAIL_LINES: usize = 40;
/// The lines `logs` shows when not asked, and the most it shows when asked.
pub const LOGS_DEFAULT_LINES: usize = 100;
pub const LOGS_MAX_LINES: usize = 2000;
/// The most bytes of log text one answer carries: an agent's context is not the place
/// for a test suite's whole output.
pub const TAIL_MAX_BYTES: usize = 16 * 1024;

/// Where the tools work, how long a call waits for another `wf`'s lock, and which
/// task this server gave the agent.
#[derive(Debug, Clone)]
pub struct Context {
    /// `-C DIR`, else the directory `wf mcp` was started in; the project is found
    /// again on every call, as every `wf` command finds it.
    pub project: Option<PathBuf>,
    pub wait: Duration,
    /// Who this server's client is among the agents working the workflow at once:
    /// the name its leases are under (`run::lease`), `mcp-<pid>` of this server.
    pub agent: String,
    /// The task `next` last gave the agent (or `done` told it to fix): besides a task
    /// handed off to an agent, the only one `done` checks, so a `done` said twice
    /// never checks — nor fails — the task after, which the agent has not seen.
    given: Arc<Mutex<Option<String>>>,
}

impl Context {
    pub fn new(project: Option<PathBuf>, wait: Duration) -> Context {
        Context {
            project,
            wait,
            agent: format!("mcp-{}", std::process::id()),
            given: Arc::default(),
        }
    }

    fn given(&self) -> Option<String> {
        self.given.lock().map_or(None, |g| g.clone())
    }

    fn give(&self, task: Option<&Task>) {
        if let Ok(mut given) = self.given.lock() {
            *given = task.map(|t| t.id.clone());
        }
    }
}

/// What a tool answers.
#[derive(Debug, Clone)]
pub struct Answer {
    /// The structured content: `schemaVersion` first, then snake_case keys, as every
    /// `--json` document (docs/json.md).
    pub json: Value,
    /// The same for a reader: a brief, a check's output, one line of status.
    pub text: String,
    /// The call worked but its answer is a failure: a check failed, no workflow.
    pub is_error: bool,
}

impl Answer {
    fn new(body: Value, text: String, is_error: bool) -> Answer {
        Answer {
            // A `json!` object, which serializes.
            json: crate::output::versioned(&body).unwrap_or_default(),
            text,
            is_error,
        }
    }

    /// An error as the CLI reports it: `{"error": {kind, message, exit_code, …}}`
    /// and the message.
    pub fn error(err: &WfError) -> Answer {
        Answer::new(
            json!({ "error": error_json(err) }),
            format!("wf: error: {}", err.message),
            true,
        )
    }
}

/// The agent's word on the work it finished (`done`'s optional arguments); recorded as
/// an executor's claim is (docs/events.md `task.execution_result`), and checked by the
/// task's own checks, never taken for them. Its usage is recorded with the task's
/// outcome, as an executor's is.
#[derive(Debug, Clone, Default)]
pub struct Claim {
    pub summary: Option<String>,
    pub changed_files: Vec<String>,
    pub usage: Option<Reported>,
}

/// What an agent says it used: the tokens, and the cost or the model that prices them.
#[derive(Debug, Clone, Default)]
pub struct Reported {
    pub usage: crate::state::model::Usage,
    pub model: Option<String>,
}

/// `logs`' arguments: the task (else the one `wf logs` picks), the attempt (else its
/// last), how many lines from the end.
#[derive(Debug, Clone, Default)]
pub struct LogsQuery {
    pub task: Option<String>,
    pub attempt: Option<u32>,
    pub lines: Option<usize>,
}

/// The failed task this agent is to fix now: the first not another agent's, when
/// the run stopped on a failure (`wf workflow-execute` would not go past it without
/// `--retry` or `--skip`) or when it is what `wf next` names.
pub(super) fn to_fix<'a>(
    state: &'a WorkflowState,
    n: &Next<'_>,
    others: &HashSet<String>,
) -> Option<&'a TaskRef> {
    first_failed(state, others)
        .filter(|_| state.status == WorkflowStatus::Failed || n.reason == Reason::Failed)
}

/// The first failed task that is not another agent's (`others`, `run::lease`): a
/// task that failed in another agent's hands is that agent's to fix.
pub(super) fn first_failed<'a>(
    state: &'a WorkflowState,
    others: &HashSet<String>,
) -> Option<&'a TaskRef> {
    state
        .tasks
        .iter()
        .find(|t| t.status() == TaskStatus::Failed && !others.contains(t.id()))
}

pub(super) fn paused(state: &WorkflowState) -> Option<String> {
    (state.status == WorkflowStatus::Paused).then(|| {
        one_line(
            state
                .status_reason
                .as_deref()
                .unwrap_or("no reason recorded"),
        )
    })
}

/// One step of a run for this agent (`agent::step::step`), the problems on one line
/// each.
pub(super) fn run_step(
    project: &Project,
    session: &mut Session,
    caller: &Caller,
) -> Result<(Stop, Vec<String>)> {
    let (stop, problems) =
        crate::agent::step::step(project, session, crate::report::brief::brief, caller)?;
    Ok((stop, problems.iter().map(|p| one_line(p)).collect()))
}

/// The task `done` checks now: a failed one (to check again), else the one in
/// progress or ready; none when there is no task to check (every task done: the
/// final checks; or nothing can run).
pub(super) fn task_to_check<'a>(
    state: &'a WorkflowState,
    n: &Next<'a>,
    others: &HashSet<String>,
) -> crate::error::Result<Option<&'a Task>> {
    let failed = to_fix(state, n, others).map(TaskRef::task).transpose()?;
    Ok(failed.or(match n.reason {
        Reason::InProgress | Reason::Ready => n.task,
        _ => None,
    }))
}

/// `wf next`'s answer (`run::now`) for this agent (`Turn::digest`: the tasks other
/// agents hold are theirs), for a caller holding the lock: no other run can be going
/// on, and an interrupted one was recovered when the lock was taken.
pub(super) fn what_now<'a>(
    state: &'a WorkflowState,
    turn: &Turn,
) -> crate::error::Result<next_report::Next<'a>> {
    next_report::next_in(state, &turn.digest(state), crate::run::now::Facts::locked())
}

/// Why the spending budget stopped agent work, when it did: the engine pauses the
/// workflow with the reason `run::usage::over_budget` gives.
pub(super) fn budget_reached(state: &WorkflowState) -> Option<&str> {
    (state.status == WorkflowStatus::Paused)
        .then_some(state.status_reason.as_deref())
        .flatten()
        .filter(|why| why.starts_with("budget reached"))
}

/// Where the workflow stands, in this server's words: `wf next`'s message
/// (`report::next`) names shell commands, which an MCP client has no use for.
pub(super) fn situation(state: &WorkflowState, n: &Next<'_>, others: &HashSet<String>) -> String {
    let id = n.task.map(|t| one_line(&t.id));
    match n.reason {
        Reason::InProgress if n.task.is_some_and(|t| t.handed_off == Some(true)) => {
            format!(
                "{} is in progress, handed to the agent.",
                id.unwrap_or_default()
            )
        }
        // Not an agent's: the run that holds the lock is running it.
        Reason::InProgress => format!(
            "{} is in progress: another wf is running it.",
            id.unwrap_or_default()
        ),
        Reason::Ready => format!("{} is ready.", id.unwrap_or_default()),
        Reason::Interrupted => "A run was interrupted.".into(),
        Reason::Failed => format!(
            "Failed: {}.",
            first_failed(state, others).map_or_else(String::new, |t| one_line(t.id()))
        ),
        Reason::Blocked => {
            let kinds: Vec<&str> = state
                .tasks
                .iter()
                .flat_map(|t| t.blocked_by())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .collect();
            format!("Blocked by {}.", one_line(&kinds.join(", ")))
        }
        Reason::Done if state.status == WorkflowStatus::Completed => {
            "The workflow is completed.".into()
        }
        Reason::Done => "Every task is done.".into(),
        Reason::Undecided | Reason::Waiting => n.message.clone(),
    }
}

/// What the agent does next, in this server's words: the tools to call.
pub(super) fn advice(state: &WorkflowState, n: &Next<'_>, others: &HashSet<String>) -> String {
    if let Some(t) = to_fix(state, n, others) {
        return format!(
            "Task {id} failed: fix what its checks say, then call `done` to check it again, or call `skip` with a reason to leave it.",
            id = one_line(t.id())
        );
    }
    if let (Some(why), Reason::Ready) = (budget_reached(state), n.reason) {
        if n.task.is_some_and(crate::run::engine::needs_agent) {
            return format!(
                "Stop here: the spending budget is reached ({}). No more agent work is handed out until the user raises the budget; there is nothing to do now.",
                one_line(why)
            );
        }
    }
    match n.reason {
        Reason::InProgress => {
            "Do this task, then call `done`: wf runs its checks and records the result.".into()
        }
        Reason::Interrupted => {
            "A run was interrupted: call `done` to run its task again, or `next` to see it.".into()
        }
        Reason::Undecided => format!("The user must decide first: {}", n.message),
        Reason::Ready => {
            "wf does this task itself (it needs no agent work): call `done` to run it and its checks."
                .into()
        }
        Reason::Blocked => {
            "Nothing to do until the user lifts the blocker; call `status` to see it.".into()
        }
        Reason::Waiting | Reason::Failed => {
            "Nothing is ready to do now; call `status` to see why.".into()
        }
        Reason::Done if state.status == WorkflowStatus::Completed => {
            "The workflow is completed.".into()
        }
        Reason::Done => {
            "Every task is done: call `done` to finish the workflow (its final checks).".into()
        }
    }
}

/// A failed task's failure: its reason and each check it names, the last with its
/// log's tail, as JSON and as text for a reader.
pub(super) fn failure(logs_dir: &Path, task: &Task) -> (Value, String) {
    let reason = task.failure_reason.clone().unwrap_or_default();
    let path = crate::exec::process::log_path(logs_dir, &task.id, task.attempts.max(1));
    let (tail, cut) = read_tail(&path, DONE_TAIL_LINES);
    let found = crate::run::failure::failed_checks(task, &reason);
    let last = found.len().saturating_sub(1);
    let checks: Vec<Value> = found
        .into_iter()
        .enumerate()
        .map(|(i, check)| {
            let mut value = json!(check);
            value["log_tail"] = json!(if i == last { tail.as_deref() } else { None });
            value
        })
        .collect();
    let mut text = format!(
        "{} is not done: {}\n",
        one_line(&task.id),
        one_line(&reason)
    );
    if let Some(tail) = &tail {
        text.push_str(&format!(
            "--- last lines of {} ---\n{tail}\n",
            path.display()
        ));
    }
    let doc = json!({
        "reason": reason,
        "failed_checks": checks,
        "log": path,
        "log_tail_cut": cut,
    });
    (doc, text)
}

/// The last `lines` of a log, at most [`TAIL_MAX_BYTES`], without control characters
/// (a check's output must not reach the agent's terminal or confuse its reader); and
/// whether anything was left out.
pub fn tail(text: &str, lines: usize) -> (String, bool) {
    let clean = crate::escape::output(text);
    let all: Vec<&str> = clean.lines().collect();
    let start = all.len().saturating_sub(lines);
    let mut out = all[start..].join("\n");
    let mut cut = start > 0;
    if out.len() > TAIL_MAX_BYTES {
        let mut from = out.len() - TAIL_MAX_BYTES;
        while !out.is_char_boundary(from) {
            from += 1;
        }
        out = out[from..].to_string();
        cut = true;
    }
    (out, cut)
}

pub(super) fn read_tail(path: &Path, lines: usize) -> (Option<String>, bool) {
    match crate::fs::read_regular(path) {
        Ok(bytes) => {
            let (text, cut) = tail(&String::from_utf8_lossy(&bytes), lines);
            (Some(text), cut)
        }
        Err(_) => (None, false),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_failed_check_carries_the_log_tail() {
        let dir = tempfile::tempdir().unwrap();
        let task = Task {
            id: "T1".into(),
            verify: vec!["false".into()],
            attempts: 1,
            failure_reason: Some("check `false` exited with 1".into()),
            ..Task::default()
        };
        let log = crate::exec::process::log_path(dir.path(), "T1", 1);
        std::fs::create_dir_all(log.parent().unwrap()).unwrap();
        std::fs::write(&log, "$ false\ntail\n").unwrap();
        let (doc, text) = failure(dir.path(), &task);
        let checks = &doc["failed_checks"];
        assert_eq!(checks[0]["command"], "false");
        assert_eq!(checks[0]["exit_code"], 1);
        assert!(
            checks[0]["log_tail"].as_str().unwrap().ends_with("tail"),
            "{doc}"
        );
        assert!(
            text.starts_with("T1 is not done: check `false` exited with 1\n"),
            "{text}"
        );
    }

    #[test]
    fn a_tail_is_the_last_lines_with_controls_escaped_and_bounded() {
        let (text, cut) = tail("a\nb\x1b[31mred\x1b[0m\x1b[2J\nc\n", 2);
        assert_eq!((text.as_str(), cut), ("bred\\u{1b}[2J\nc", true));
        let (text, cut) = tail("one\n", 5);
        assert_eq!((text.as_str(), cut), ("one", false));
        let long = "é".repeat(TAIL_MAX_BYTES);
        let (text, cut) = tail(&long, 1);
        assert!(text.len() <= TAIL_MAX_BYTES && cut);
    }
}
