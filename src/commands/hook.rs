//! `wf hook EVENT`: Claude Code hooks (`.claude/settings.json`).
//!
//! The hook JSON arrives on stdin (`session_id`, `cwd`, `hook_event_name`,
//! `stop_hook_active`, …). `SessionStart` and `UserPromptSubmit` print the current
//! task's brief, which Claude Code adds to the agent's context. `Stop` and
//! `SubagentStop` keep the agent working while a handed-off task's checks fail, by
//! printing `{"decision": "block", "reason": …}`. A hook must never break the editor:
//! bad JSON, an unknown event, no workflow or any error is a warning on stderr and
//! exit 0 — a stdout the editor stopped reading too, and even a panic, which is caught
//! here as the last line of defence. It is read-only: it takes no lock and writes
//! nothing in the workflow dir.

use std::io::{IsTerminal, Read};
use std::path::PathBuf;

use anyhow::{anyhow, bail, Context};
use serde_json::{json, Value};

use crate::cli::HookArgs;
use crate::exec::process::Children;
use crate::output::{self, Output};
use crate::project::Project;
use crate::report::next::{next, Reason};
use crate::run::work::{self, Part, Verdict, WorkCtx};
use crate::state::TaskStatus;

/// Hook input larger than this is not a hook payload.
const MAX_INPUT: u64 = 1024 * 1024;

pub fn run(explicit_project: Option<&std::path::Path>, args: &HookArgs, out: &Output) -> i32 {
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        hook(explicit_project, args, out)
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

fn hook(
    explicit_project: Option<&std::path::Path>,
    args: &HookArgs,
    _out: &Output,
) -> anyhow::Result<()> {
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
    let Some(state) = project.store().load()? else {
        return Ok(());
    };
    match event.as_str() {
        "SessionStart" | "UserPromptSubmit" => {
            let n = next(&state);
            let text = match n.task {
                Some(task) if n.reason == Reason::InProgress || event == "SessionStart" => {
                    format!("wf: {}\n\n{}", n.message, crate::report::brief::brief(&state, task))
                }
                _ => format!("wf: {}", n.message),
            };
            answer(&text)
        }
        "Stop" | "SubagentStop" => {
            if payload.get("stop_hook_active").and_then(Value::as_bool) == Some(true) {
                return Ok(());
            }
            let Some(task) = state
                .tasks
                .iter()
                .find(|t| t.status == TaskStatus::InProgress && t.handed_off == Some(true))
            else {
                return Ok(());
            };
            let scratch = tempfile::tempdir().context("no temp dir for the checks' logs")?;
            let ctx = WorkCtx {
                project: project.dir.clone(),
                workflow_dir: scratch.path().to_path_buf(),
                config: project.config.clone(),
                children: Children::default(),
                // Evidence checks only: gates (and their constraints) are not run here.
                hard_constraints: Vec::new(),
            };
            let outcome = work::do_task(&ctx, task, task.attempts.max(1), Part::Evidence);
            if let Verdict::Failed { reason } = outcome.verdict {
                let reason = format!(
                    "wf: task {} is not done yet: {reason}. Keep working until its checks pass; then stop again.",
                    task.id
                );
                return answer(&json!({"decision": "block", "reason": reason}).to_string());
            }
            Ok(())
        }
        other => bail!("unknown hook event `{other}`; wf handles SessionStart, UserPromptSubmit, Stop and SubagentStop"),
    }
}
