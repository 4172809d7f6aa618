//! The `done` tool: the current task's checks run through the engine, the result recorded, and the answer — what is next, or each failed check with the end of its log.

use super::{
    advice, budget_reached, failure, run_step, situation, task_to_check, what_now, Answer, Claim,
    Context,
};
use crate::agent::step::lock;
use std::collections::HashSet;
use std::path::Path;

use crate::agent::parallel::Turn;
use crate::agent::step::Caller;
use crate::agent::worktree::Conflict;
use crate::config::Role;
use crate::error::Result;
use crate::error::WfError;
use crate::project::Project;
use crate::report::execute::stop_word;
use crate::report::next::{Next, Reason};
use crate::report::one_line;
use crate::run::engine::needs_agent;
use crate::run::engine::Stop;
use crate::run::recovery;
use crate::state::event::{EventData, ExecutionResult};
use crate::state::event_log::NewEvent;
use crate::state::Session;
use crate::state::TaskStatus;
use crate::state::WorkflowState;
use crate::state::WorkflowStatus;
use serde_json::json;

/// "I finished the current task": its checks run, the result is recorded, and the
/// answer is the next step, or each failed check with the end of its log.
pub fn done(ctx: &Context, claim: &Claim) -> Result<Answer> {
    let project = Project::discover(ctx.project.as_deref())?;
    let mut session = lock(&project, ctx.wait, "mcp done")?;
    recovery::refuse_undecided(&mut session, false, false)?;
    let mut turn = Turn::begin(&project, &mut session, &ctx.agent)?;
    let others = turn.others();
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
        let n = what_now(state, &turn)?;
        let target = match (task_to_check(state, &n, &others)?, n.reason) {
            (Some(t), _) if t.status == TaskStatus::Failed => Target::Retry(t.id.clone()),
            (Some(t), _) => Target::Task {
                id: t.id.clone(),
                agent: needs_agent(t),
                handed_off: t.handed_off == Some(true),
            },
            (None, Reason::Done) => Target::Finish,
            (None, _) => {
                let then = advice(state, &n, &others);
                return Ok(Answer::new(
                    json!({"result": "nothing_to_check", "reason": n.reason.as_str(), "message": situation(state, &n, &others), "workflow_status": state.status, "then": then}),
                    format!(
                        "No task is being worked on, so there is nothing to check.\n{}\n\n{then}",
                        situation(state, &n, &others)
                    ),
                    true,
                ));
            }
        };
        if let Some(id) = target.not_given(ctx.given().as_deref()) {
            return Ok(not_given(state, &n, id, &others));
        }
        target
    };
    // A task in a worktree of its own comes back only if its branch merges cleanly:
    // else nothing is checked nor recorded, and the task stays this agent's.
    let (checked, message) = match &target {
        Target::Task { id, .. } | Target::Retry(id) => {
            let name = session.state()?.task(id)?.map(|t| one_line(&t.name));
            (
                Some(id.clone()),
                format!("{id}: {}", name.unwrap_or_default()),
            )
        }
        Target::Finish => (None, String::new()),
    };
    if let Some(id) = &checked {
        if let Some(conflict) = turn.conflicts(&project, id, &message)? {
            return Ok(conflicted(session.state()?, &turn, id, &conflict));
        }
    }
    let caller = turn.caller(checked.as_deref());
    // A claim is compared with what git saw change since the hand-off only when the
    // hand-off was before this call: one made now has seen nothing yet.
    let checked_claim = matches!(
        target,
        Target::Task {
            handed_off: true,
            ..
        }
    );
    let id = match target {
        Target::Finish => None,
        Target::Retry(id) => {
            recovery::retry(&mut session, &id)?;
            let agent = session.state()?.task(&id)?.is_some_and(needs_agent);
            if agent {
                problems.extend(hand_off(&project, &mut session, &id, &caller)?);
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
                if let Some(answer) = over_budget(&project, session.state()?, &id)? {
                    return Ok(answer);
                }
                problems.extend(hand_off(&project, &mut session, &id, &caller)?);
            }
            Some(id)
        }
    };
    let tree = caller.tree.clone().unwrap_or_else(|| project.dir.clone());
    if let Some(id) = &id {
        if let Some(rejected) = claim_rejected(&tree, session.state()?, id, claim, checked_claim)? {
            return Ok(rejected);
        }
        record_claim(&mut session, id, claim)?;
        record_usage(&project, &session, id, claim)?;
    }
    let (stop, more) = run_step(&project, &mut session, &caller)?;
    problems.extend(more);
    if let Some(id) = &id {
        problems.extend(turn.settle_return(&project, &session, id, &message)?);
    }
    let state = session.state()?;
    done_answer(&session, state, &turn, id.as_deref(), &stop, problems)
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

impl Target {
    /// The task this call would check when the agent never had it: neither handed
    /// off to an agent nor given by `next` (`given`). A `done` said twice — a client
    /// retrying the call — must not check, and fail, the task after the one done.
    fn not_given(&self, given: Option<&str>) -> Option<&str> {
        match self {
            Target::Finish
            | Target::Task {
                handed_off: true, ..
            } => None,
            Target::Task { id, .. } | Target::Retry(id) => {
                (given != Some(id.as_str())).then_some(id.as_str())
            }
        }
    }
}

/// `done` about a task the agent was never given: nothing checked, call `next`.
fn not_given(state: &WorkflowState, n: &Next<'_>, id: &str, others: &HashSet<String>) -> Answer {
    let then = format!(
        "Nothing was checked: {id} is next, but it was never given to you; call `next` for its brief, do it, then call `done`.",
        id = one_line(id)
    );
    Answer::new(
        json!({"result": "not_given", "task": id, "reason": n.reason.as_str(), "message": situation(state, n, others), "workflow_status": state.status, "then": then}),
        then.clone(),
        true,
    )
}

/// Hands `id` off with a run of the engine that does nothing else; the problems it
/// reported. A task the run did not hand off (another one was ready before it) is
/// refused with how the run stopped.
fn hand_off(
    project: &Project,
    session: &mut Session,
    id: &str,
    caller: &Caller,
) -> Result<Vec<String>> {
    let (stop, problems) = run_step(project, session, caller)?;
    match stop {
        Stop::HandedOff(handed) if handed == id => Ok(problems),
        other => Err(WfError::usage(format!(
            "task {id} could not be handed to the agent: the run stopped ({})",
            stop_word(&other)
        ))),
    }
}

/// The claim-evidence rule on files (docs/proof.md "Agent work"): a claimed file
/// that did not change since the hand-off is refused as an error result, before
/// any check runs; the task stays with the agent.
fn claim_rejected(
    tree: &Path,
    state: &WorkflowState,
    id: &str,
    claim: &Claim,
    checked: bool,
) -> Result<Option<Answer>> {
    if !checked || claim.changed_files.is_empty() {
        return Ok(None);
    }
    let Some(task) = state.task(id)? else {
        return Ok(None);
    };
    let Some(seen) = crate::run::proven::changes_since(tree, task) else {
        return Ok(None);
    };
    let Err(why) = crate::proof::check_changes(&claim.changed_files, &seen, false) else {
        return Ok(None);
    };
    Ok(Some(Answer::new(
        json!({"result": "claim_rejected", "task": id, "reason": why, "changed_files": seen.files, "workflow_status": state.status}),
        format!(
            "The claim was not accepted: {why}. Nothing was recorded; {id} is still yours. Call `done` again with the files you really changed."
        ),
        true,
    )))
}

/// An agent task that was never handed off, once the spending budget is reached:
/// nothing is handed out past it, so nothing is checked, and the answer says why in
/// words (a task handed off before is still taken back: its work is recorded).
fn over_budget(project: &Project, state: &WorkflowState, id: &str) -> Result<Option<Answer>> {
    let spent = crate::run::usage::total(&state.tasks);
    let wf = &project.config.wf;
    let task = state.task(id)?;
    let why = budget_reached(state)
        .map(str::to_string)
        .or_else(|| crate::run::usage::over_budget(&spent, wf.budget_tokens, wf.budget_usd))
        .or_else(|| crate::run::usage::task_over_budget(task?, wf));
    let Some(why) = why else {
        return Ok(None);
    };
    let then = format!(
        "Stop here: the spending budget is reached ({}). {} was not handed to you, so nothing was checked; the user raises the budget to go on.",
        one_line(&why),
        one_line(id)
    );
    Ok(Some(Answer::new(
        json!({"result": "budget_reached", "task": id, "reason": why, "workflow_status": state.status, "then": then}),
        then.clone(),
        true,
    )))
}

/// `done` on a task whose branch would conflict with the project's head: nothing
/// checked or recorded; the agent merges the head into its worktree, settles the
/// files named, and calls `done` again.
fn conflicted(state: &WorkflowState, turn: &Turn, id: &str, conflict: &Conflict) -> Answer {
    let files = &conflict.files;
    let tree = turn.leases.of_task(id).and_then(|l| l.worktree.as_ref());
    let (dir, branch) = tree.map_or((String::new(), String::new()), |t| {
        (t.dir.display().to_string(), one_line(&t.branch))
    });
    let shown: Vec<String> = files.iter().map(|f| one_line(f)).collect();
    let then = format!(
        "Nothing was checked: your branch {branch} conflicts with the project's head in {}. In {dir}, merge the head (`git merge {head}`), settle those files, commit, then call `done` again. {id} is still yours.",
        shown.join(", "),
        head = conflict.head,
        id = one_line(id),
    );
    Answer::new(
        json!({"result": "conflict", "task": id, "conflicting_files": files, "head": conflict.head, "worktree": {"dir": dir, "branch": branch}, "workflow_status": state.status, "then": then}),
        then.clone(),
        true,
    )
}

/// What the agent says this attempt used, kept for the task until the engine
/// records it with the outcome (`run::usage::add_pending`), priced by its model
/// when it gives no cost.
fn record_usage(project: &Project, session: &Session, id: &str, claim: &Claim) -> Result<()> {
    let Some(reported) = &claim.usage else {
        return Ok(());
    };
    let Some(task) = session.state()?.task(id)? else {
        return Ok(());
    };
    let model = reported.model.as_deref().unwrap_or_default();
    let used = crate::run::prices::priced(&project.config.wf.prices, model, reported.usage);
    crate::run::usage::add_pending(session.store().dir(), id, task.attempts.max(1), used)
}

/// The agent's claim, as an executor's is recorded (`src/run/agent.rs`).
fn record_claim(session: &mut Session, id: &str, claim: &Claim) -> Result<()> {
    if claim.summary.is_none() && claim.changed_files.is_empty() {
        return Ok(());
    }
    session.emit(
        NewEvent::new(EventData::TaskExecutionResult(ExecutionResult {
            success: true,
            changed_files: Some(claim.changed_files.clone()),
            summary: Some(claim.summary.clone().unwrap_or_default()),
            ..ExecutionResult::default()
        }))
        .task(id)
        .executor("mcp", Role::Executor),
    )?;
    Ok(())
}

fn done_answer(
    session: &Session,
    state: &WorkflowState,
    turn: &Turn,
    id: Option<&str>,
    stop: &Stop,
    problems: Vec<String>,
) -> Result<Answer> {
    let n = what_now(state, turn)?;
    let others = turn.others();
    let next = json!({
        "reason": n.reason.as_str(),
        "message": situation(state, &n, &others),
        "task": n.task.map(|t| t.id.clone()),
    });
    let word = stop_word(stop);
    let task = id.map_or(Ok(None), |id| state.task(id))?;
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
        return Ok(Answer::new(
            json!({"result": if run_failed.is_some() { "failed" } else { "passed" }, "reason": run_failed, "stop": word, "workflow_status": state.status, "next": next, "problems": problems}),
            text,
            run_failed.is_some(),
        ));
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
    Ok(match task.status {
        TaskStatus::Completed | TaskStatus::Skipped => {
            let then = match (&run_failed, n.task) {
                (Some(reason), _) => format!(
                    "The workflow's final checks failed: {}. Fix it, then call `done` again.",
                    one_line(reason)
                ),
                (None, Some(t)) if budget_reached(state).is_none() => format!(
                    "Next: {} ({}). Call `next` for its brief.",
                    one_line(&t.id),
                    one_line(&t.name)
                ),
                (None, _) => advice(state, &n, &others),
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
            let (failure, text) = failure(&session.store().logs_dir(), task);
            let then = "Fix what failed, then call `done` again, or call `skip` with a reason.";
            let mut body = head;
            body["result"] = json!("failed");
            for key in ["reason", "failed_checks", "log", "log_tail_cut"] {
                body[key] = failure[key].clone();
            }
            body["then"] = json!(then);
            Answer::new(body, format!("{text}{then}"), true)
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
    })
}
