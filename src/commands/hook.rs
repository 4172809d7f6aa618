//! `wf hook EVENT`: Claude Code hooks (`.claude/settings.json`), as docs/hooks.md
//! describes them.
//!
//! A hook must never break the editor: any error, even a panic, is a warning on
//! stderr and exit 0.

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};

use crate::agent::checks::{self, Verdict};
use crate::agent::parallel::Turn;
use crate::agent::{memo, transcript, tree};
use crate::cli::HookArgs;
use crate::output;
use crate::project::Project;
use crate::report::hook as hook_report;
use crate::report::next::{next_in, Reason};
use crate::run::engine::{Mode, Stop};
use crate::run::work::WorkCtx;
use crate::state::model::Glance;
use crate::state::summary::View;
use crate::state::{Task, TaskStatus, WorkflowState};

/// Hook input larger than this is not a hook payload.
const MAX_INPUT: u64 = 1024 * 1024;

/// The most of the budget `git status` may take for the tree's fingerprint.
const GIT_TIME: Duration = Duration::from_secs(10);

pub fn run(explicit_project: Option<&std::path::Path>, args: &HookArgs) -> i32 {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        hook(explicit_project, args)
    }));
    let why = match outcome {
        Ok(Ok(())) => return 0,
        // The error and what it happened in, on one line.
        Ok(Err(why)) => format!("{why:#}"),
        // The panic message is already on stderr.
        Err(_) => "internal error; ignoring this event".to_string(),
    };
    output::stderr_line(format_args!("wf hook {}: {why}", args.event));
    0
}

/// Prints the hook's answer. The editor closing its end is its choice, not an error.
fn answer(text: &str) -> anyhow::Result<()> {
    match output::write_stdout(format!("{text}\n").as_bytes()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(e).context("cannot write the answer to stdout")
        }
        _ => Ok(()),
    }
}

fn hook(explicit_project: Option<&std::path::Path>, args: &HookArgs) -> anyhow::Result<()> {
    // The budget counts from here: the editor's timeout does.
    let started = Instant::now();
    let mut input = String::new();
    // Run by hand at a terminal there is no JSON to wait for.
    if !std::io::stdin().is_terminal() {
        std::io::stdin()
            .take(MAX_INPUT)
            .read_to_string(&mut input)
            .context("cannot read the hook JSON on stdin")?;
    }
    let payload: Value = if input.trim().is_empty() {
        json!({})
    } else {
        serde_json::from_str(&input)
            .map_err(|e| anyhow!("the hook JSON on stdin is not valid ({e}); ignoring it"))?
    };
    let event = payload
        .get("hook_event_name")
        .and_then(Value::as_str)
        .unwrap_or(&args.event)
        .to_string();
    let dir: Option<PathBuf> = explicit_project.map(PathBuf::from).or_else(|| {
        payload
            .get("cwd")
            .and_then(Value::as_str)
            .map(PathBuf::from)
    });
    let project = Project::discover(dir.as_deref())?;
    // From the summary when it is current: an editor calls this many times a
    // minute, and the answer needs one task, not the whole state.
    let Some(mut view) = project.store().view()? else {
        return Ok(());
    };
    let str_field = |name: &str| payload.get(name).and_then(Value::as_str);
    let session = str_field("session_id").filter(|s| !s.is_empty());
    // With several agents at once, the tasks leased to other sessions are theirs:
    // this session is told, checked and charged only for its own (`run::lease`).
    let leases = crate::run::lease::live(project.store().dir(), &project.config);
    if !leases.leases.is_empty() {
        let others = leases.held_by_others(session);
        view.digest = crate::agent::parallel::seen_by(&view.state, view.digest, &others);
    }
    let transcript = str_field("transcript_path").filter(|s| !s.is_empty());
    if let (Some(session), Some(transcript)) = (session, transcript) {
        if let Err(why) = count_usage(&project, &view, session, Path::new(transcript)) {
            output::stderr_line(format_args!("wf hook {event}: {why:#}"));
        }
    }
    match event.as_str() {
        "SessionStart" | "UserPromptSubmit" => {
            context(&project, &view, &event, session, str_field("source"))
        }
        "Stop" => stop(&project, &view, &payload, session, started),
        // A subagent is not the one working on the handed-off task, unless the
        // project says its stops count too.
        "SubagentStop" if project.config.wf.block_subagent_stop == Some(true) => {
            stop(&project, &view, &payload, session, started)
        }
        "SubagentStop" => Ok(()),
        other => bail!("unknown hook event `{other}`; wf handles SessionStart, UserPromptSubmit, Stop and SubagentStop"),
    }
}

/// What the agent used since the last hook of its session, read from its transcript
/// (docs/hooks.md "Usage"): counted to the task handed off now, kept for it until
/// it comes back (`run::usage::add_pending`). A session first seen is read from
/// here on; an unreadable transcript is usage unknown.
fn count_usage(
    project: &Project,
    view: &View,
    session: &str,
    transcript: &Path,
) -> anyhow::Result<()> {
    let store = project.store();
    let dir = store.dir();
    let Some(mark) = memo::transcript_mark(dir, session) else {
        let start = transcript::end_of(transcript).unwrap_or_else(|| transcript::Mark {
            path: transcript.to_string_lossy().into_owned(),
            ..transcript::Mark::default()
        });
        memo::remember_transcript(dir, session, &start)
            .context("cannot record where the transcript was read to")?;
        return Ok(());
    };
    let Some(read) = transcript::read(transcript, &mark, &project.config.wf.prices) else {
        return Ok(());
    };
    let handed_off = view.digest.handed_off.as_deref();
    let task = handed_off.map_or(Ok(None), |id| view.state.task(id))?;
    if let (Some(used), Some(task)) = (read.usage, task) {
        crate::run::usage::add_pending(dir, &task.id, task.attempts.max(1), used)
            .context("cannot keep the usage read from the transcript")?;
    }
    memo::remember_transcript(dir, session, &read.mark)
        .context("cannot record where the transcript was read to")?;
    Ok(())
}

/// `SessionStart` and `UserPromptSubmit`: one line of context, and the current
/// task's brief when this session has not had it yet (docs/hooks.md "Context").
fn context(
    project: &Project,
    view: &View,
    event: &str,
    session: Option<&str>,
    source: Option<&str>,
) -> anyhow::Result<()> {
    let (state, digest) = (&view.state, &view.digest);
    let store = project.store();
    let dir = store.dir();
    // The answer `wf next` and `workflow-execute` give (run/now.rs), a crashed run's
    // task included.
    let facts = crate::run::now::Facts {
        writer_alive: store.writer_alive(),
        ..crate::run::now::Facts::default()
    };
    let n = next_in(state, digest, facts)?;
    let mut text = hook_report::context_line(state, digest, &n);
    // The brief of a task handed off, or at a session's start of the next one too.
    let due = n
        .task
        .filter(|_| n.reason == Reason::InProgress || event == "SessionStart");
    let Some(task) = due else {
        return answer_context(event, &text);
    };
    // A cleared or compacted context no longer holds the brief it was given.
    if let (Some(session), "SessionStart", Some("clear" | "compact")) = (session, event, source) {
        memo::forget_brief(dir, session);
    }
    let mark = memo::brief_mark(task);
    let given = session.and_then(|s| memo::last_brief(dir, s));
    if given.as_deref() == Some(mark.as_str()) {
        text.push(' ');
        text.push_str(hook_report::BRIEF_GIVEN);
        return answer_context(event, &text);
    }
    text.push_str("\n\n");
    let checks = crate::run::derived::config_checks(&project.config);
    text.push_str(&crate::report::brief::brief(state, task, &checks));
    answer_context(event, &text)?;
    if let Some(session) = session {
        memo::remember_brief(dir, session, &mark)
            .context("cannot record which brief this session was given")?;
    }
    Ok(())
}

fn answer_context(event: &str, text: &str) -> anyhow::Result<()> {
    answer(
        &json!({
            "hookSpecificOutput": {"hookEventName": event, "additionalContext": text}
        })
        .to_string(),
    )
}

/// `Stop`: while the handed-off task's checks fail, keep the agent working with
/// what failed (docs/hooks.md "Stop").
fn stop(
    project: &Project,
    view: &View,
    payload: &Value,
    session: Option<&str>,
    started: Instant,
) -> anyhow::Result<()> {
    let handed_off = view.digest.handed_off.as_deref();
    let Some(task) = handed_off.map_or(Ok(None), |id| view.state.task(id))? else {
        return Ok(());
    };
    let dir = project.store().dir().to_path_buf();
    let dir = dir.as_path();
    let budget = project.config.wf.hook_budget();
    let deadline = started + budget;
    let scratch = tempfile::tempdir().context("no temp dir for the checks' logs")?;
    let ctx = WorkCtx::new(
        project.dir.clone(),
        scratch.path().to_path_buf(),
        project.config.clone(),
        // Evidence checks only: gates (and their constraints) are not run here.
        Vec::new(),
    );
    // The tree as the checks find it: taken before they run, so whatever they
    // write makes the next key differ and they run again.
    let declared: Vec<&str> = task
        .file
        .iter()
        .chain(&task.creates)
        .chain(&task.modifies)
        .map(String::as_str)
        .collect();
    let git_time = deadline
        .saturating_duration_since(Instant::now())
        .min(GIT_TIME);
    let key = tree::fingerprint(&project.dir, &declared, git_time)
        .map(|t| memo::stop_key(task, ctx.timeout(task), &t));
    let remembered = key.as_deref().and_then(|k| memo::recall_failure(dir, k));
    let from_memo = remembered.is_some();
    let evaluation = remembered.unwrap_or_else(|| checks::run(&ctx, task, budget, deadline));
    let active = payload.get("stop_hook_active").and_then(Value::as_bool) == Some(true);
    let mark = memo::brief_mark(task);
    let mut kept = Ok(());
    let reply = match evaluation.verdict() {
        Verdict::Failing => {
            if let (false, Some(key)) = (from_memo, &key) {
                kept = memo::remember_failure(dir, key, &evaluation);
            }
            // `stop_hook_active`: the agent is already working because of a `Stop`. It
            // is kept at it while it changes something, up to `wf.hook_max_blocks`
            // times in a row; a user's turn starts the count again.
            let blocks = if active {
                memo::stop_blocks(dir, &mark)
            } else {
                0
            };
            let progress = !from_memo;
            if active && (!progress || blocks >= project.config.wf.hook_max_blocks()) {
                json!({"systemMessage": hook_report::still_failing_message(task, &evaluation, blocks, progress)})
            } else {
                kept = kept.and(memo::remember_stop_blocks(dir, &mark, blocks + 1));
                json!({
                    "decision": "block",
                    "reason": hook_report::block_reason(task, &evaluation, from_memo),
                })
            }
        }
        Verdict::Passed => {
            memo::forget_failure(dir);
            advance(project, task, session, deadline).unwrap_or_else(|why| {
                output::stderr_line(format_args!(
                    "wf hook Stop: the task could not be recorded: {why:#}"
                ));
                json!({"systemMessage": hook_report::passed_message(task)})
            })
        }
        Verdict::Undecided => {
            memo::forget_failure(dir);
            json!({"systemMessage": hook_report::undecided_message(task, &evaluation)})
        }
    };
    answer(&reply.to_string())?;
    kept.context("cannot remember the checks' result")?;
    Ok(())
}

/// The most of the budget the `Stop` hook waits for the workflow's lock to record a
/// passing task: a `wf` holding it longer is running, and records it itself.
const LOCK_WAIT: Duration = Duration::from_secs(10);

/// `Stop` on a task whose checks pass: the task is taken back and recorded as `wf
/// workflow-execute` would (its whole checks, gate and commit), and the run goes on
/// in the workflow's mode; when it hands the agent the next task, the answer blocks
/// the stop with that task's brief, so the agent goes on without a user's turn
/// (docs/hooks.md "The loop"). Else the user is told where the run stopped.
fn advance(
    project: &Project,
    task: &Task,
    session_id: Option<&str>,
    deadline: Instant,
) -> anyhow::Result<Value> {
    let passed = json!({"systemMessage": hook_report::passed_message(task)});
    let wait = deadline
        .saturating_duration_since(Instant::now())
        .min(LOCK_WAIT);
    let mut session = crate::agent::step::lock(project, wait, "hook Stop")?;
    let handed_off = |state: &WorkflowState| {
        state
            .task_ref(&task.id)
            .is_some_and(|t| t.status() == TaskStatus::InProgress && t.handed_off())
    };
    // Another `wf` recorded it between the checks and the lock.
    if !handed_off(session.state()?) {
        return Ok(passed);
    }
    let mode = Mode::from_state_name(&session.state()?.execution_mode);
    // The session's lease, when it holds one: its task is the one taken back, let
    // go once done, and the task handed off after it leased to it in turn.
    let mut turn = match session_id {
        Some(id) => Some(Turn::begin(project, &mut session, id)?).filter(|t| t.own().is_some()),
        None => None,
    };
    let caller = turn
        .as_ref()
        .map(|t| t.caller(Some(&task.id)))
        .unwrap_or_default();
    let (stop, _) = crate::agent::step::run_engine(
        project,
        &mut session,
        mode,
        crate::report::brief::brief,
        &caller,
    )?;
    if let Some(turn) = &mut turn {
        turn.settle_return(project, &session, &task.id, &task.id)?;
        if let Stop::HandedOff(next) = &stop {
            turn.lease(&session, next, None)?;
        }
    }
    let state = session.state()?;
    let Some(done) = state.task(&task.id)? else {
        return Ok(passed);
    };
    if done.status == TaskStatus::Failed {
        let reason = done.failure_reason.as_deref().unwrap_or_default();
        return Ok(json!({"systemMessage": hook_report::failed_on_return_message(done, reason)}));
    }
    if !done.status.is_done() {
        return Ok(passed);
    }
    if let Stop::HandedOff(next) = &stop {
        if let Some(next) = state.task(next)? {
            let checks = crate::run::derived::config_checks(&project.config);
            let brief = crate::report::brief::brief(state, next, &checks);
            if let Some(session_id) = session_id {
                memo::remember_brief(session.store().dir(), session_id, &memo::brief_mark(next))
                    .context("cannot record which brief this session was given")?;
            }
            return Ok(json!({
                "decision": "block",
                "reason": hook_report::next_task_reason(done, next, &brief),
            }));
        }
    }
    Ok(json!({"systemMessage": hook_report::recorded_message(done, &stop_words(&stop))}))
}

/// Where a run stopped, in words for the user.
fn stop_words(stop: &Stop) -> String {
    match stop {
        Stop::Completed => "the workflow is completed".into(),
        Stop::Paused(why) => why.clone(),
        Stop::Blocked { kinds, .. } => format!("blocked by {}", kinds.join(", ")),
        Stop::Failed { reason, .. } => format!("failed: {reason}"),
        Stop::HandedOff(id) => format!("{id} is handed off"),
        Stop::Interrupted => "interrupted".into(),
    }
}
