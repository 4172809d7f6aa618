//! The four tools of `wf mcp` as plain functions: `next`, `done`, `status`, `logs`.
//!
//! Each returns an [`Answer`] whatever happens: a failed check, no workflow, a
//! corrupt state or a lock another `wf` keeps past the wait are answers with
//! `is_error` (the CLI's error object and message), never a protocol error and never
//! the end of the server.
//!
//! `next` and `done` change the workflow only the way `wf workflow-execute` does: they
//! take the lock, recover an interrupted run and refuse an undecided plan
//! (`src/run/recovery.rs`), then run the engine (`src/run/engine.rs`) in step mode, so
//! a call starts at most one task. `next` hands an agent task off exactly as a run
//! without executors does (the task `in_progress` with `handed_off`, the workflow left
//! `running`); `done` takes a handed-off task back (its checks, tests, gate, commit)
//! or runs a command task, records the outcome, and stops before the task after it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{json, Map, Value};

use crate::config::Role;
use crate::error::{Result, WfError};
use crate::exec::process::log_path;
use crate::output::{error_json, strip_controls, JSON_SCHEMA_VERSION};
use crate::project::Project;
use crate::report::next::{self as next_report, Next, Reason};
use crate::report::{one_line, Counts};
use crate::run::engine::{needs_agent, Engine, Mode, Options, Reporter, RunSummary, Stop};
use crate::run::executor::Pool;
use crate::run::recovery;
use crate::run::work::{TaskOutcome, WorkCtx};
use crate::state::event::EventKind;
use crate::state::event_log::NewEvent;
use crate::state::{Session, Task, TaskStatus, WorkflowState, WorkflowStatus};

/// The most lines of a failed check's log `done` quotes.
pub const DONE_TAIL_LINES: usize = 40;
/// The lines `logs` shows when not asked, and the most it shows when asked.
pub const LOGS_DEFAULT_LINES: usize = 100;
pub const LOGS_MAX_LINES: usize = 2000;
/// The most bytes of log text one answer carries: an agent's context is not the place
/// for a test suite's whole output.
pub const TAIL_MAX_BYTES: usize = 16 * 1024;

/// Where the tools work and how long a call waits for another `wf`'s lock.
#[derive(Debug, Clone)]
pub struct Context {
    /// `-C DIR`, else the directory `wf mcp` was started in; the project is found
    /// again on every call, as every `wf` command finds it.
    pub project: Option<PathBuf>,
    pub wait: Duration,
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
        let mut doc = Map::new();
        doc.insert("schemaVersion".into(), JSON_SCHEMA_VERSION.into());
        if let Value::Object(body) = body {
            doc.extend(body);
        }
        Answer {
            json: Value::Object(doc),
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

    fn of(result: Result<Answer>) -> Answer {
        result.unwrap_or_else(|e| Answer::error(&e))
    }
}

/// The agent's word on the work it finished (`done`'s optional arguments); recorded as
/// an executor's claim is (docs/events.md `task.execution_result`), and checked by the
/// task's own checks, never taken for them.
#[derive(Debug, Clone, Default)]
pub struct Claim {
    pub summary: Option<String>,
    pub changed_files: Vec<String>,
}

/// `logs`' arguments: the task (else the one `wf logs` picks), the attempt (else its
/// last), how many lines from the end.
#[derive(Debug, Clone, Default)]
pub struct LogsQuery {
    pub task: Option<String>,
    pub attempt: Option<u32>,
    pub lines: Option<usize>,
}

// ---------------------------------------------------------------------------- next

/// `wf next`'s answer (`run::now`), for a caller holding the lock: no other run can
/// be going on, and an interrupted one was recovered when the lock was taken.
fn what_now(state: &WorkflowState) -> next_report::Next<'_> {
    next_report::next_given(
        state,
        crate::run::now::Facts {
            writer_alive: true,
            ..crate::run::now::Facts::default()
        },
    )
}

/// The task to do now and what to do with it, or why there is none.
pub fn next(ctx: &Context) -> Answer {
    Answer::of(next_inner(ctx))
}

fn next_inner(ctx: &Context) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let mut session = lock(&project, ctx, "mcp next")?;
    let hand_off = {
        let state = session.state()?;
        let n = what_now(state);
        n.reason == Reason::Ready && n.task.is_some_and(needs_agent) && !failed_run(state)
    };
    let mut problems = Vec::new();
    if hand_off {
        problems = run_step(&project, &mut session)?.1;
    }
    let state = session.state()?;
    let n = what_now(state);
    let then = advice(state, &n);
    let mut body = next_report::json(state, &n);
    body["workflow_status"] = json!(state.status);
    body["status_reason"] = json!(state.status_reason);
    body["handed_off"] = json!(n.task.is_some_and(|t| t.handed_off == Some(true)));
    body["then"] = json!(then);
    body["problems"] = json!(problems);
    let mut text = next_report::text(state, &n).trim_end().to_string();
    if let Some(why) = paused(state) {
        text.push_str(&format!("\n\nThe last run paused: {why}."));
    }
    text.push_str(&format!("\n\n{then}"));
    Ok(Answer::new(body, text, false))
}

/// What the agent does next, in this server's words (the report's message speaks of
/// `wf workflow-execute`, which `done` stands for here).
fn advice(state: &WorkflowState, n: &Next<'_>) -> String {
    if let Some(t) = first_failed(state).filter(|_| failed_run(state) || n.reason == Reason::Failed)
    {
        return format!(
            "Task {id} failed: fix what its checks say, then call `done` to check it again (or the user skips it: `wf workflow-execute --skip {id} --reason …`).",
            id = one_line(&t.id)
        );
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
            "wf does this task itself (it needs no agent work): call `done` to run its checks."
                .into()
        }
        Reason::Blocked => {
            "Nothing to do until the user lifts the blocker with `wf workflow-unblock KIND`.".into()
        }
        Reason::Waiting | Reason::Failed => "Nothing is ready to do now.".into(),
        Reason::Done if state.status == WorkflowStatus::Completed => {
            "The workflow is completed.".into()
        }
        Reason::Done => {
            "Every task is done: call `done` to finish the workflow (its final checks).".into()
        }
    }
}

// ---------------------------------------------------------------------------- done

/// "I finished the current task": its checks run, the result is recorded, and the
/// answer is the next step, or each failed check with the end of its log.
pub fn done(ctx: &Context, claim: &Claim) -> Answer {
    Answer::of(done_inner(ctx, claim))
}

fn done_inner(ctx: &Context, claim: &Claim) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let mut session = lock(&project, ctx, "mcp done")?;
    recovery::refuse_undecided(&mut session, false, false)?;
    let mut problems = Vec::new();
    let target = {
        let state = session.state()?;
        match state.status {
            WorkflowStatus::Completed => {
                return Ok(Answer::new(
                    json!({"result": "completed", "workflow_status": state.status, "then": "The workflow is completed; nothing is left to check."}),
                    "The workflow is already completed; nothing is left to check.".into(),
                    false,
                ))
            }
            WorkflowStatus::Archived | WorkflowStatus::Idle => {
                return Err(WfError::usage(format!(
                    "the workflow is {}; start one with `wf workflow-start PLAN.md`",
                    state.status
                )))
            }
            _ => {}
        }
        let n = what_now(state);
        let failed =
            first_failed(state).filter(|_| failed_run(state) || n.reason == Reason::Failed);
        match (failed, n.reason, n.task) {
            (Some(t), _, _) => Target::Retry(t.id.clone()),
            (None, Reason::InProgress | Reason::Ready, Some(t)) => Target::Task {
                id: t.id.clone(),
                agent: needs_agent(t),
                handed_off: t.handed_off == Some(true),
            },
            (None, Reason::Done, _) => Target::Finish,
            _ => {
                let then = advice(state, &n);
                return Ok(Answer::new(
                    json!({"result": "nothing_to_check", "reason": n.reason.as_str(), "message": n.message, "workflow_status": state.status, "then": then}),
                    format!(
                        "No task is being worked on, so there is nothing to check.\n{}\n\n{then}",
                        n.message
                    ),
                    true,
                ));
            }
        }
    };
    let id = match target {
        Target::Finish => None,
        Target::Retry(id) => {
            recovery::retry(&mut session, &id)?;
            let task = session.state()?.task(&id).cloned();
            if task.as_ref().is_some_and(needs_agent) {
                problems.extend(hand_off(&project, &mut session, &id)?);
            }
            Some(id)
        }
        Target::Task {
            id,
            agent,
            handed_off,
        } => {
            // An agent task `next` was not asked for goes the same way: handed off,
            // then taken back, so its result is recorded as any hand-off's.
            if agent && !handed_off {
                problems.extend(hand_off(&project, &mut session, &id)?);
            }
            Some(id)
        }
    };
    if let Some(id) = &id {
        record_claim(&mut session, id, claim)?;
    }
    let (stop, more) = run_step(&project, &mut session)?;
    problems.extend(more);
    let state = session.state()?;
    Ok(done_answer(&session, state, id.as_deref(), &stop, problems))
}

/// What `done` checks.
enum Target {
    /// The task in progress or the first ready one.
    Task {
        id: String,
        agent: bool,
        handed_off: bool,
    },
    /// A failed task: the agent fixed it and asks for its checks again.
    Retry(String),
    /// Every task is done but the workflow is not completed: its final checks.
    Finish,
}

/// Hands `id` off with a run of the engine that does nothing else; the problems it
/// reported. A task the run did not hand off (another one was ready before it) is
/// refused with how the run stopped.
fn hand_off(project: &Project, session: &mut Session, id: &str) -> Result<Vec<String>> {
    let (stop, problems) = run_step(project, session)?;
    match stop {
        Stop::HandedOff(handed) if handed == id => Ok(problems),
        other => Err(WfError::usage(format!(
            "task {id} could not be handed to the agent: the run stopped ({})",
            stop_word(session.state()?, &other)
        ))),
    }
}

/// The agent's claim, as an executor's is recorded (`src/run/agent.rs`).
fn record_claim(session: &mut Session, id: &str, claim: &Claim) -> Result<()> {
    if claim.summary.is_none() && claim.changed_files.is_empty() {
        return Ok(());
    }
    session.emit(
        NewEvent::new(
            EventKind::TaskExecutionResult,
            json!({"success": true, "changed_files": claim.changed_files, "summary": claim.summary.clone().unwrap_or_default()}),
        )
        .task(id)
        .executor("mcp", Role::Executor),
    )?;
    Ok(())
}

fn done_answer(
    session: &Session,
    state: &WorkflowState,
    id: Option<&str>,
    stop: &Stop,
    problems: Vec<String>,
) -> Answer {
    let n = what_now(state);
    let next = json!({
        "reason": n.reason.as_str(),
        "message": n.message,
        "task": n.task.map(|t| t.id.clone()),
    });
    let word = stop_word(state, stop);
    let task = id.and_then(|id| state.task(id));
    let run_failed = match stop {
        Stop::Failed { task: None, reason } => Some(reason.clone()),
        _ => None,
    };
    let Some(task) = task else {
        // The final checks of a workflow whose tasks were all done.
        let text = match &run_failed {
            Some(reason) => format!("The workflow's final checks failed: {}", one_line(reason)),
            None => format!("The workflow is {}.", state.status),
        };
        return Answer::new(
            json!({"result": if run_failed.is_some() { "failed" } else { "passed" }, "reason": run_failed, "stop": word, "workflow_status": state.status, "next": next, "problems": problems}),
            text,
            run_failed.is_some(),
        );
    };
    let head = json!({
        "task": task.id,
        "name": task.name,
        "status": task.status,
        "attempt": task.attempts,
        "stop": word,
        "workflow_status": state.status,
        "problems": problems,
    });
    match task.status {
        TaskStatus::Completed | TaskStatus::Skipped => {
            let then = match (&run_failed, n.task) {
                (Some(reason), _) => format!(
                    "The workflow's final checks failed: {}. Fix it, then call `done` again.",
                    one_line(reason)
                ),
                (None, Some(t)) => format!(
                    "Next: {} ({}). Call `next` for its brief.",
                    one_line(&t.id),
                    one_line(&t.name)
                ),
                (None, None) => advice(state, &n),
            };
            let mut body = head;
            body["result"] = json!(if run_failed.is_some() {
                "workflow_failed"
            } else {
                "passed"
            });
            body["accepted_unchecked"] = json!(task.accepted_unchecked);
            body["reason"] = json!(run_failed);
            body["next"] = next;
            body["then"] = json!(then);
            let how = if task.accepted_unchecked {
                "was accepted unchecked (nothing checks it)"
            } else {
                "passed its checks"
            };
            let text = format!(
                "{} {how} and is {}.\n{then}",
                one_line(&task.id),
                task.status
            );
            Answer::new(body, text, run_failed.is_some())
        }
        TaskStatus::Failed => {
            let reason = task.failure_reason.clone().unwrap_or_default();
            let path = log_path(&session.store().logs_dir(), &task.id, task.attempts.max(1));
            let (tail, cut) = read_tail(&path, DONE_TAIL_LINES);
            let checks = failed_checks(task, &reason, tail.as_deref());
            let then = "Fix what failed, then call `done` again.";
            let mut body = head;
            body["result"] = json!("failed");
            body["reason"] = json!(reason);
            body["failed_checks"] = json!(checks);
            body["log"] = json!(path);
            body["log_tail_cut"] = json!(cut);
            body["then"] = json!(then);
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
            text.push_str(then);
            Answer::new(body, text, true)
        }
        _ => {
            // Interrupted, blocked for a resource, or still out with the agent.
            let mut body = head;
            body["result"] = json!("not_checked");
            body["reason"] = json!(state.status_reason);
            body["next"] = next;
            let text = format!(
                "{} was not checked: the run stopped ({word}){}.",
                one_line(&task.id),
                state
                    .status_reason
                    .as_deref()
                    .map(|r| format!(": {}", one_line(r)))
                    .unwrap_or_default()
            );
            Answer::new(body, text, true)
        }
    }
}

/// Each check the failure reason names, with its exit code when it exited: the
/// task's own commands first (they may hold backticks), else every `` `command` ``
/// followed by how it ended (a gate's verifier, a hard constraint's `verifyCmd`).
/// The attempt stopped at its first failure, so its log ends with that check's output.
/// The checks the reason names, the last one with the log's tail (the log ends with
/// the output of the check that failed last).
fn failed_checks(task: &Task, reason: &str, tail: Option<&str>) -> Vec<Value> {
    let found = crate::run::failure::failed_checks(task, reason);
    let last = found.len().saturating_sub(1);
    found
        .into_iter()
        .enumerate()
        .map(|(i, check)| {
            let mut value = json!(check);
            value["log_tail"] = json!(if i == last { tail } else { None });
            value
        })
        .collect()
}

// -------------------------------------------------------------------------- status

/// Where the workflow stands, compactly: progress, the current task, failures,
/// blockers. Read-only, as `wf status`: no lock, nothing written.
pub fn status(ctx: &Context) -> Answer {
    Answer::of(status_inner(ctx))
}

fn status_inner(ctx: &Context) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let store = project.store();
    let state = store.load()?.ok_or_else(|| project.no_workflow())?;
    let c = Counts::of(&state.tasks);
    let interrupted = state.status == WorkflowStatus::Running
        && state.handed_off_task().is_none()
        && !store.writer_alive();
    let current = state
        .current_task
        .as_deref()
        .and_then(|id| state.task(id))
        .map(|t| json!({"id": t.id, "name": t.name, "status": t.status, "handed_off": t.handed_off == Some(true)}));
    let failed: Vec<Value> = state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Failed)
        .map(|t| json!({"id": t.id, "name": t.name, "reason": t.failure_reason}))
        .collect();
    let blocked: Vec<Value> = state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Blocked)
        .map(|t| json!({"id": t.id, "name": t.name, "blocked_by": t.blocked_by}))
        .collect();
    let n = next_report::next_given(
        &state,
        crate::run::now::Facts {
            writer_alive: store.writer_alive(),
            ..crate::run::now::Facts::default()
        },
    );
    let body = json!({
        "workflow": crate::report::workflow_name(&state),
        "status": state.status,
        "status_reason": state.status_reason,
        "interrupted": interrupted,
        "execution_mode": state.execution_mode,
        "progress": {
            "done": c.done(), "total": c.total, "percent": c.percent,
            "completed": c.completed, "skipped": c.skipped, "failed": c.failed,
            "blocked": c.blocked, "in_progress": c.in_progress, "pending": c.pending,
        },
        "current_task": current,
        "next": {"reason": n.reason.as_str(), "task": n.task.map(|t| t.id.clone()), "message": n.message},
        "failed": failed,
        "blocked": blocked,
        "failure_reason": state.failure_reason,
    });
    let mut text = format!(
        "{}: {}{} — {}/{} done ({} completed, {} skipped, {} failed, {} blocked)",
        one_line(crate::report::workflow_name(&state)),
        state.status,
        state
            .status_reason
            .as_deref()
            .map(|r| format!(" ({})", one_line(r)))
            .unwrap_or_default(),
        c.done(),
        c.total,
        c.completed,
        c.skipped,
        c.failed,
        c.blocked
    );
    if interrupted {
        text.push_str("\nInterrupted: the run that was executing this workflow is gone; `wf resume` (or `done`) continues where it stopped.");
    }
    text.push_str(&format!("\nNext: {}", n.message));
    Ok(Answer::new(body, text, false))
}

// ---------------------------------------------------------------------------- logs

/// The end of a task's log: the task `wf logs` would pick (in progress, else failed,
/// else the last that ran) or the one asked for, its last attempt or the one asked
/// for. Read-only. The path is built from the task id and attempt (src/commands/logs.rs).
pub fn logs(ctx: &Context, query: &LogsQuery) -> Answer {
    Answer::of(logs_inner(ctx, query))
}

fn logs_inner(ctx: &Context, query: &LogsQuery) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let store = project.store();
    let state = store.load()?.ok_or_else(|| project.no_workflow())?;
    let task = crate::report::logs::pick(&state, query.task.as_deref()).map_err(WfError::usage)?;
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

/// The last `lines` of a log, at most [`TAIL_MAX_BYTES`], without control characters
/// (a check's output must not reach the agent's terminal or confuse its reader); and
/// whether anything was left out.
pub fn tail(text: &str, lines: usize) -> (String, bool) {
    let clean = strip_controls(text);
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

fn read_tail(path: &Path, lines: usize) -> (Option<String>, bool) {
    match crate::fs::read_regular(path) {
        Ok(bytes) => {
            let (text, cut) = tail(&String::from_utf8_lossy(&bytes), lines);
            (Some(text), cut)
        }
        Err(_) => (None, false),
    }
}

// -------------------------------------------------------------------------- shared

/// The workflow's lock for a call that writes, taken as `wf workflow-execute` takes it
/// (src/commands/execute.rs), then what it settles before running: an interrupted run
/// recovered. No workflow is the CLI's error, without a workflow dir made for a lock.
fn lock(project: &Project, ctx: &Context, command: &str) -> Result<Session> {
    let store = project.store();
    if store.load_snapshot()?.is_none() {
        return Err(project.no_workflow());
    }
    store.refuse_untouched_without_tasks()?;
    let mut session = store.lock(Some(ctx.wait), command)?;
    session.state()?.require_tasks()?;
    recovery::recover_interrupted(&mut session)?;
    Ok(session)
}

/// A run stopped by a failure that `wf workflow-execute` would not go past without
/// `--retry` or `--skip`.
fn failed_run(state: &WorkflowState) -> bool {
    state.status == WorkflowStatus::Failed && first_failed(state).is_some()
}

fn first_failed(state: &WorkflowState) -> Option<&Task> {
    state.tasks.iter().find(|t| t.status == TaskStatus::Failed)
}

fn paused(state: &WorkflowState) -> Option<String> {
    (state.status == WorkflowStatus::Paused).then(|| {
        one_line(
            state
                .status_reason
                .as_deref()
                .unwrap_or("no reason recorded"),
        )
    })
}

/// The word `wf workflow-execute --json` gives a stop (`report::execute`).
fn stop_word(state: &WorkflowState, stop: &Stop) -> String {
    let (doc, _) = crate::report::execute::stop_report(state, stop, &RunSummary::default(), false);
    doc["stop"].as_str().unwrap_or_default().to_string()
}

/// One step of a run: the engine in step mode starts at most one task (after taking
/// back a handed-off one), so a call never runs more than it answers for. Step mode is
/// this server's way of working, not the user's: the workflow keeps the mode it had,
/// and the next `wf workflow-execute` without a flag runs in it.
fn run_step(project: &Project, session: &mut Session) -> Result<(Stop, Vec<String>)> {
    let mode = session.state()?.execution_mode.clone();
    let ran = run_engine(project, session, Mode::Step)?;
    if session.state()?.execution_mode != mode {
        session.state_mut()?.execution_mode = mode;
        session.save()?;
    }
    Ok(ran)
}

/// Runs the engine as `wf workflow-execute` builds it (src/commands/execute.rs), with
/// two differences: never CI (an MCP client is an agent at work, not a CI job), and no
/// executors — the client is the agent, so every agent task is handed to it, never to
/// a program of `wf.executors`. Returns how the run stopped and the problems it met.
fn run_engine(project: &Project, session: &mut Session, mode: Mode) -> Result<(Stop, Vec<String>)> {
    let state = session.state()?;
    let opts = Options::for_workflow(
        &project.config,
        &project.dir,
        session.store().dir(),
        state,
        mode,
    );
    let mut no_executors = project.config.clone();
    no_executors.wf.executors.clear();
    let pool = Pool::from_config(&no_executors, None);
    let ctx = WorkCtx::new(
        project.dir.clone(),
        session.store().dir().to_path_buf(),
        project.config.clone(),
        state.constraints.hard.clone(),
    );
    let mut quiet = Quiet::default();
    let mut engine = Engine::new(
        session,
        ctx,
        opts,
        pool,
        crate::report::brief::brief,
        &mut quiet,
    )?;
    let stop = engine.run()?;
    drop(engine);
    Ok((stop, quiet.problems))
}

/// The run's progress goes nowhere: stdout is the protocol's. Its problems (a
/// capability no executor offers, an interrupted task's partial outputs) go into the
/// answer.
#[derive(Default)]
struct Quiet {
    problems: Vec<String>,
}

impl Reporter for Quiet {
    fn started(&mut self, _: &Task) {}
    fn finished(&mut self, _: &Task, _: &TaskOutcome) {}
    fn progress(&mut self, _: usize, _: usize) {}
    fn problem(&mut self, text: &str) {
        self.problems.push(one_line(text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tail_is_the_last_lines_without_controls_and_bounded() {
        let (text, cut) = tail("a\nb\x1b[31mred\x1b[0m\nc\n", 2);
        assert_eq!((text.as_str(), cut), ("bred\nc", true));
        let (text, cut) = tail("one\n", 5);
        assert_eq!((text.as_str(), cut), ("one", false));
        let long = "é".repeat(TAIL_MAX_BYTES);
        let (text, cut) = tail(&long, 1);
        assert!(text.len() <= TAIL_MAX_BYTES && cut);
    }

    #[test]
    fn the_last_failed_check_carries_the_log_tail() {
        let task = Task {
            id: "T1".into(),
            verify: vec!["false".into()],
            ..Task::default()
        };
        let checks = failed_checks(&task, "check `false` exited with 1", Some("tail"));
        assert_eq!(checks[0]["command"], "false");
        assert_eq!(checks[0]["exit_code"], 1);
        assert_eq!(checks[0]["log_tail"], "tail");
    }
}
