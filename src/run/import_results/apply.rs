//! Recording one result as a local run records a task: the moves through the task
//! machine, the events, the attempt's log, the evidence — and, for a quality gate,
//! this workflow's hard constraints checked again here.

use serde_json::{json, Value};

use super::history::History;
use super::{Fate, Loaded, Options, Txn};
use crate::error::{Result, WfError};
use crate::run::standalone::TaskResultFile;
use crate::state::event::{EventData, ExecutionResult, ExecutionStarted, GateRecord, TaskMove};
use crate::state::event_log::NewEvent;
use crate::state::{Session, TaskStatus, WorkflowStatus};

/// Records one result whose task's dependencies are done, with the notes it was
/// taken with and those applying it adds.
pub(super) fn apply(
    session: &mut Session,
    item: &Loaded,
    mut notes: Vec<String>,
    history: &History,
    opts: &Options<'_>,
    txn: &mut Txn,
) -> Result<(Fate, Vec<String>)> {
    let r = &item.result;
    let task = session
        .state()?
        .task(&r.task_id)?
        .cloned()
        .ok_or_else(|| WfError::usage(format!("no task {}", r.task_id)))?;
    match task.status {
        TaskStatus::Pending => {}
        // A new result for a task that failed here: it goes back to pending first,
        // as a retry would (`--retry`, `src/run/recovery.rs`) — saying so when the
        // failure was a local run's, which a result from elsewhere now overrides.
        TaskStatus::Failed => {
            let mut data = TaskMove {
                reason: Some(format!("a new result from {}", item.file.display())),
                ..TaskMove::default()
            };
            if let Some(why) = history.local_failure.get(&task.id).filter(|_| r.success) {
                notes.push(format!("it failed here before: {why}"));
                data.overrides_failure = Some(why.clone());
            }
            txn.open(session);
            session.set_task_status(&task.id, TaskStatus::Pending, data, None)?;
        }
        TaskStatus::Blocked => {
            return Ok((
                Fate::Refused(format!(
                    "task {} is blocked by {}; lift it with `wf workflow-unblock` first",
                    task.id,
                    task.blocked_by.join(", ")
                )),
                notes,
            ))
        }
        TaskStatus::InProgress => {
            return Ok((
                Fate::Refused(format!(
                    "task {} is in progress here (a run, or handed off to an agent); settle it with `wf resume` first",
                    task.id
                )),
                notes,
            ))
        }
        TaskStatus::Completed | TaskStatus::Skipped => return Ok((Fate::AlreadyDone, notes)),
    }
    txn.open(session);
    if session.state()?.status != WorkflowStatus::Running {
        session.set_workflow_status(WorkflowStatus::Running, None)?;
    }
    let state = session.state_mut()?;
    if state.started_at.is_none() {
        state.started_at = Some(r.started_at.clone());
    }
    let attempt = task.attempts + 1;
    let log = write_log(session, &task.id, attempt, r);
    let imported_from = item.file.display().to_string();
    let data = TaskMove {
        attempt: Some(attempt),
        log: log.clone(),
        imported: Some(imported_from.clone()),
        ..TaskMove::default()
    };
    session.set_task_status(&task.id, TaskStatus::InProgress, data, None)?;
    session.emit(
        NewEvent::new(EventData::TaskExecutionStarted(ExecutionStarted {
            attempt: Some(attempt),
            log,
            result_id: Some(r.result_id.clone()),
            mock: false,
        }))
        .task(&task.id),
    )?;
    let stale = notes.iter().find_map(|n| n.strip_prefix("stale: "));
    session.emit(
        NewEvent::new(EventData::TaskExecutionResult(ExecutionResult {
            success: r.success,
            verified: Some(r.verified),
            duration_ms: Some(r.duration_ms),
            reason: r.reason.clone(),
            result_id: Some(r.result_id.clone()),
            fingerprint: Some(r.fingerprint.fingerprint.clone()),
            runner: r.runner.clone(),
            stale: stale.map(str::to_string),
            ..ExecutionResult::default()
        }))
        .task(&task.id),
    )?;
    let mut failure = r.reason.clone().filter(|_| !r.success);
    if let Some(gate) = &r.gate {
        let mut gate = gate.clone();
        if r.success {
            // Checked again here: the hard constraints of this workflow, on this tree.
            let why = recheck_gate(session, opts, &task, attempt, &mut gate)?;
            notes.push(format!(
                "quality gate checked again against this workflow's hard constraints: {}",
                why.as_deref().unwrap_or("they hold")
            ));
            failure = why.map(|why| format!("quality gate {} (imported): {why}", task.id));
        }
        let record = GateRecord::of(&gate).map_err(|e| {
            WfError::usage(format!(
                "{}: its quality gate record does not read: {e}",
                item.file.display()
            ))
        })?;
        session.emit(NewEvent::new(EventData::GateResult(record)).task(&task.id))?;
    }
    let end = TaskMove {
        duration_ms: Some(r.duration_ms),
        imported: Some(imported_from),
        result_id: Some(r.result_id.clone()),
        ..TaskMove::default()
    };
    if r.success && failure.is_none() {
        let evidence = evidence_of(session.state()?, r)?;
        let data = TaskMove {
            verified: Some(r.verified),
            ..end
        };
        session.complete_task(&task.id, data, evidence)?;
    } else {
        let data = TaskMove {
            reason: Some(failure.unwrap_or_else(|| "its result says it failed".into())),
            ..end
        };
        session.set_task_status(&task.id, TaskStatus::Failed, data, None)?;
    }
    Ok((Fate::Applied, notes))
}

/// Runs this workflow's hard constraints here, as a gate does, and writes what they
/// found into the imported `gate` record: the first failure, or none when they hold.
/// A gate that passed in CI checked CI's constraints on CI's tree; this machine's
/// may hold more.
fn recheck_gate(
    session: &Session,
    opts: &Options<'_>,
    task: &crate::state::model::Task,
    attempt: u32,
    gate: &mut Value,
) -> Result<Option<String>> {
    let ctx = crate::run::work::WorkCtx::for_session(opts.project, opts.config, session)?;
    let log = ctx.log_for(task, attempt);
    let checked = crate::exec::reactor::block_on(crate::run::gate::gate_constraints(&ctx, &log));
    let (results, failure, verifications) = match checked {
        Ok(c) => (c.results, c.failure, c.verifications),
        Err(_) => {
            return Ok(Some(
                "the hard constraints could not be checked here".into(),
            ))
        }
    };
    if !gate["constraints"].is_object() {
        gate["constraints"] = json!({});
    }
    for (id, word) in results {
        gate["constraints"][id] = word;
    }
    gate["verifications"] = serde_json::to_value(verifications).unwrap_or_default();
    if failure.is_some() {
        gate["passed"] = false.into();
    }
    Ok(failure)
}

/// The attempt's log in the workflow dir as a local run writes it — each command's
/// `$ command` line, then its output (here, its tail) — so `wf logs` and the JUnit
/// report show an imported failure as a local one. Created anew (an import that did
/// not commit may have left one), never through a link. Best effort: the result
/// stands without it. None when no command ran. Relative to the workflow dir.
fn write_log(session: &Session, task_id: &str, attempt: u32, r: &TaskResultFile) -> Option<String> {
    if r.checks.is_empty() {
        return None;
    }
    let dir = session.store().dir();
    let path = crate::exec::process::log_path(&dir.join("logs"), task_id, attempt);
    let mut text = String::new();
    for c in &r.checks {
        text.push_str(&format!("$ {}\n", c.run.command));
        if !c.log_tail.is_empty() {
            text.push_str(&c.log_tail);
            text.push('\n');
        }
    }
    std::fs::create_dir_all(path.parent()?).ok()?;
    let mut file = crate::fs::durable::replace_new(&path).ok()?;
    std::io::Write::write_all(&mut file, text.as_bytes()).ok()?;
    Some(
        path.strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string(),
    )
}

/// The evidence a passing result brings: its checks (each with its log's digest),
/// the CI job it came from, and its inputs resealed with
/// the fingerprints this workflow's dependencies have (a CI job knew none of them),
/// so it is the fingerprint a local run of the same files would have recorded.
fn evidence_of(
    state: &crate::state::WorkflowState,
    r: &TaskResultFile,
) -> Result<crate::state::evidence::Evidence> {
    let deps = r
        .fingerprint
        .deps
        .iter()
        .map(|d| {
            Ok(crate::state::evidence::DepDigest {
                id: d.id.clone(),
                fingerprint: crate::proof::recorded_fingerprint(state, &d.id)?,
            })
        })
        .collect::<Result<_>>()?;
    // The run's own log digest does not travel in the file (`CheckRun` skips it);
    // the result's does.
    let runs: Vec<crate::run::work::CheckRun> = r
        .checks
        .iter()
        .map(|c| crate::run::work::CheckRun {
            log_digest: c.log_digest.clone(),
            ..c.run.clone()
        })
        .collect();
    Ok(crate::state::evidence::Evidence {
        at: r.finished_at.clone(),
        inputs: crate::proof::fingerprint::seal(
            r.fingerprint.definition.clone(),
            r.fingerprint.files.clone(),
            deps,
        ),
        checks: crate::run::work::CheckRun::evidence(&runs),
        runner: r.runner.clone(),
        cached: r.cached,
        executor: r.executor.clone(),
        claim: r.claim.clone(),
        changes: r.changes.clone(),
        derived: r.derived.clone(),
    })
}
