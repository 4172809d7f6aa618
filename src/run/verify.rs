//! `wf verify`: completed tasks checked again, only where something changed
//! (docs/proof.md "Verify").
//!
//! Every completed task (and every task an earlier verify reopened) is taken in
//! dependency order. Its inputs are fingerprinted as they are now, with the
//! fingerprints its dependencies have now — so a change upstream reaches every task
//! downstream — and compared with those its evidence recorded. Equal, and the task
//! is up to date: nothing runs. Different (or no evidence, or no declared files to
//! tell by, or `--all`), and its checks run again — unless the verification cache
//! holds a pass on exactly these inputs. A task that passes gets new evidence; one
//! that fails goes back to pending with the reason, and a completed workflow with
//! it goes back to planned. When every task is done again, the workflow is
//! completed again (after its final verifiers).

use crate::state::model::Glance;
use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::error::{ErrorKind, Result, WfError};
use crate::proof::{self, cache::Cache};
use crate::run::work::{self, Part, Verdict, WorkCtx};
use crate::state::event::{EventData, TaskMove, Verified};
use crate::state::event_log::NewEvent;
use crate::state::evidence::{Evidence, Inputs, Proof};
use crate::state::model::{Task, WorkflowState};
use crate::state::{Session, TaskStatus, WorkflowStatus};

/// What `wf verify` was asked.
#[derive(Debug, Default)]
pub struct Request {
    /// Only these tasks (and what depends on them); every one when empty.
    pub tasks: Vec<String>,
    /// Run every check, changed or not.
    pub all: bool,
    /// Say what would run and why; run and write nothing.
    pub dry_run: bool,
    pub cache: Option<Cache>,
}

/// What became of one task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Standing {
    /// Same inputs as when it passed: not run.
    UpToDate,
    /// Changed, but the cache holds a pass on exactly these inputs: not run.
    Cached,
    /// Its checks ran again and passed.
    Passed,
    /// Its checks ran again and failed: reopened.
    Failed,
    /// `--dry-run`: it would run.
    WouldRun,
    /// Nothing can check it (no command, no declared file, no gate): left as it is.
    Unchecked,
}

/// One task's line of the report.
#[derive(Debug, Clone, Serialize)]
pub struct Checked {
    pub id: String,
    pub result: Standing,
    /// Why it ran (or would): each input that changed, "no evidence", `--all`…
    pub why: Vec<String>,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Its log, relative to the workflow dir, when its checks ran and printed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// The task it depends on (directly or down a chain) that no longer passes: its
    /// own checks may pass, the work it builds on does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub behind_failure: Option<String>,
}

/// The whole answer.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub tasks: Vec<Checked>,
    /// The tasks that no longer pass.
    pub regressions: Vec<String>,
    pub workflow_status: WorkflowStatus,
    /// Why the workflow is not completed again although every task passed (its
    /// final verifiers failed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_completed: Option<String>,
}

impl Report {
    pub fn count(&self, result: Standing) -> usize {
        self.tasks.iter().filter(|t| t.result == result).count()
    }
}

/// The tasks `verify` looks at: completed ones and those an earlier verify
/// reopened, limited to `wanted` and what depends on them, in dependency order.
fn selection(state: &WorkflowState, wanted: &[String]) -> Result<Vec<usize>> {
    let eligible = |t: &Task| t.status == TaskStatus::Completed || t.reopened.is_some();
    for id in wanted {
        let task = state.task(id)?.ok_or_else(|| {
            WfError::usage(format!(
                "no task {id} in this workflow; `wf status` lists the task ids"
            ))
        })?;
        if !eligible(task) {
            return Err(WfError::usage(format!(
                "task {id} is {}; `wf verify` checks completed tasks again (run it with `wf workflow-execute`)",
                task.status
            )));
        }
    }
    let order = proof::state_order(&state.tasks);
    let mut chosen: HashSet<&str> = wanted.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for i in order {
        let t = &state.tasks[i];
        if wanted.is_empty() || chosen.contains(t.id()) || t.deps().any(|d| chosen.contains(d)) {
            if !wanted.is_empty() {
                chosen.insert(t.id());
            }
            if eligible(t.task()?) {
                out.push(i);
            }
        }
    }
    Ok(out)
}

/// Why `task` must be checked again, given its inputs now (`--all`, then
/// `proof::stale_reasons`); empty when it is up to date.
fn reasons(task: &Task, now: &Inputs, all: bool) -> Vec<String> {
    let all = if all {
        vec!["--all".to_string()]
    } else {
        Vec::new()
    };
    proof::stale_reasons(task, task.proof().as_ref(), now, all)
}

/// Runs `verify` on the locked `session` (or, with `dry_run`, only reads it).
pub fn verify(session: &mut Session, ctx: &WorkCtx, request: &Request) -> Result<Report> {
    let order = selection(session.state()?, &request.tasks)?;
    // Who answers for a shared file is settled by the run that completed them, not
    // by this pass's reopenings.
    let shared = proof::shared_files(session.state()?)?;
    let mut now_fp: HashMap<String, String> = HashMap::new();
    let mut checked = Vec::new();
    let mut regressions = Vec::new();
    // Each task that sits behind one that no longer passes → that task.
    let mut behind: HashMap<String, String> = HashMap::new();
    let mut recompleted = 0usize;
    for i in order {
        let state = session.state()?;
        let task = state.tasks[i].task()?;
        let inputs = proof::inputs_with(&ctx.project, state, i, &now_fp, &shared)?;
        let why = reasons(task, &inputs, request.all);
        let behind_failure = task.deps.iter().find_map(|d| behind.get(d)).cloned();
        if let Some(failed) = &behind_failure {
            behind.insert(task.id.clone(), failed.clone());
        }
        let mut line = Checked {
            id: task.id.clone(),
            result: Standing::UpToDate,
            why: why.clone(),
            reason: None,
            log: None,
            behind_failure,
        };
        if why.is_empty() {
            now_fp.insert(task.id.clone(), inputs.fingerprint);
            checked.push(line);
            continue;
        }
        // Owned from here on: recording what became of it changes the state it is in.
        let task = task.clone();
        let cache = cacheable(ctx, &task, &inputs, request);
        let record = cache
            .and_then(|c| c.get(&inputs.fingerprint))
            .filter(|r| r.answers(&crate::run::proven::check_argvs(&task)));
        if let Some(record) = record {
            line.result = Standing::Cached;
            if !request.dry_run {
                let evidence = Evidence {
                    at: record.at,
                    inputs: inputs.clone(),
                    checks: record.checks,
                    cached: true,
                    ..Evidence::default()
                };
                recompleted += usize::from(record_pass(session, &task, evidence, &why)?);
            }
            now_fp.insert(task.id.clone(), inputs.fingerprint);
            checked.push(line);
            continue;
        }
        if request.dry_run {
            line.result = Standing::WouldRun;
            now_fp.insert(task.id.clone(), inputs.fingerprint);
            checked.push(line);
            continue;
        }
        let outcome = {
            let _watch = crate::run::signals::InterruptWatch::start(ctx.children.clone());
            crate::exec::reactor::block_on(work::do_task(
                ctx,
                &task,
                task.attempts.max(1),
                Part::Standalone,
                None,
            ))
        };
        let log = ctx.workflow_dir.join(&outcome.log);
        line.log = log
            .exists()
            .then(|| outcome.log.clone())
            .filter(|l| !l.is_empty());
        match &outcome.verdict {
            Verdict::Passed { verified: true } => {
                line.result = Standing::Passed;
                // The files as the checks just passed on them.
                let after =
                    proof::inputs_with(&ctx.project, session.state()?, i, &now_fp, &shared)?;
                let evidence = Evidence {
                    at: crate::clock::now_rfc3339(),
                    inputs: after,
                    checks: work::CheckRun::evidence(&outcome.checks),
                    executor: task.proof().and_then(|e| e.executor.clone()),
                    derived: outcome.derived.clone(),
                    ..Evidence::default()
                };
                if let Some(c) = cache {
                    c.put(&evidence.inputs.fingerprint, &task.id, &evidence.checks);
                }
                now_fp.insert(task.id.clone(), evidence.inputs.fingerprint.clone());
                recompleted += usize::from(record_pass(session, &task, evidence, &why)?);
            }
            Verdict::Passed { verified: false } => {
                line.result = Standing::Unchecked;
                now_fp.insert(task.id.clone(), inputs.fingerprint);
            }
            Verdict::Failed { reason } | Verdict::DispatchFailed { reason, .. } => {
                line.result = Standing::Failed;
                line.reason = Some(reason.clone());
                regressions.push(task.id.clone());
                behind.insert(task.id.clone(), task.id.clone());
                now_fp.insert(task.id.clone(), inputs.fingerprint);
                reopen(session, &task, reason)?;
            }
            Verdict::Interrupted => {
                return Err(WfError::new(
                    ErrorKind::Interrupted,
                    format!(
                        "verify was interrupted while checking {}; what it recorded before stays",
                        task.id
                    ),
                ));
            }
        }
        checked.push(line);
    }
    let mut not_completed = None;
    // Nothing recorded, nothing to write: a verify that finds everything up to date
    // leaves the workflow's files as they were.
    let recorded = checked
        .iter()
        .any(|c| c.result != Standing::UpToDate && c.result != Standing::Unchecked);
    if !request.dry_run && recorded {
        not_completed = settle_workflow(session, ctx, &regressions, recompleted)?;
        crate::run::checkpoint::save(session)?;
        if let Some(cache) = &request.cache {
            cache.flush()?;
        }
    }
    Ok(Report {
        tasks: checked,
        regressions,
        workflow_status: session.state()?.status,
        not_completed,
    })
}

/// The cache `task` may be answered from: one the cache may answer for at all
/// (`proven::cacheable`), with declared inputs, and no `--all`.
fn cacheable<'a>(
    ctx: &WorkCtx,
    task: &Task,
    inputs: &Inputs,
    request: &'a Request,
) -> Option<&'a Cache> {
    let ok = !request.all
        && proof::fingerprint::tells(inputs)
        && crate::run::proven::cacheable(task, &ctx.config);
    ok.then_some(request.cache.as_ref()).flatten()
}

/// Records that `task` passes on `evidence`; `Ok(true)` when that completed it again
/// (a task an earlier verify had reopened).
fn record_pass(
    session: &mut Session,
    task: &Task,
    evidence: Evidence,
    why: &[String],
) -> Result<bool> {
    let status = session.state()?.task_ref(&task.id).map(Glance::status);
    if status == Some(TaskStatus::Completed) {
        session.emit(
            NewEvent::new(EventData::TaskVerified(Verified {
                changed: why.to_vec(),
                evidence: Proof::of(evidence),
            }))
            .task(&task.id),
        )?;
        return Ok(false);
    }
    let verify = TaskMove {
        verify: true,
        ..TaskMove::default()
    };
    crate::run::proven::pass_unrun(session, task, verify, evidence)?;
    Ok(true)
}

/// Puts a task that no longer passes back to pending, with why.
fn reopen(session: &mut Session, task: &Task, reason: &str) -> Result<()> {
    if session.state()?.task_ref(&task.id).map(Glance::status) != Some(TaskStatus::Completed) {
        return Ok(());
    }
    let why = format!("wf verify: it no longer passes: {reason}");
    session.set_task_status(
        &task.id,
        TaskStatus::Pending,
        TaskMove {
            reason: Some(why.clone()),
            reopened: Some(why),
            ..TaskMove::default()
        },
        None,
    )?;
    Ok(())
}

/// A completed workflow with a regression goes back to planned; one whose every
/// task is done again (a reopened task passed) is completed again, when its final
/// verifiers pass. The reason it is not, when they fail.
fn settle_workflow(
    session: &mut Session,
    ctx: &WorkCtx,
    regressions: &[String],
    recompleted: usize,
) -> Result<Option<String>> {
    let status = session.state()?.status;
    if !regressions.is_empty() {
        if status == WorkflowStatus::Completed {
            let reason = format!("wf verify: {} no longer pass", regressions.join(", "));
            session.set_workflow_status(WorkflowStatus::Planned, Some(&reason))?;
        }
        return Ok(None);
    }
    let all_done = session.state()?.tasks.iter().all(|t| t.status().is_done());
    if recompleted == 0
        || !all_done
        || matches!(status, WorkflowStatus::Completed | WorkflowStatus::Archived)
    {
        return Ok(None);
    }
    if let Err(reason) = crate::run::gate::final_verifiers(ctx) {
        return Ok(Some(reason));
    }
    if status != WorkflowStatus::Running {
        session.set_workflow_status(WorkflowStatus::Running, None)?;
    }
    session.set_workflow_status(WorkflowStatus::Completed, None)?;
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::fingerprint;
    use crate::state::task_ref::TaskRef;

    fn t(id: &str, deps: &[&str]) -> Task {
        Task {
            id: id.into(),
            deps: deps.iter().map(|d| (*d).to_string()).collect(),
            status: TaskStatus::Completed,
            ..Task::default()
        }
    }

    #[test]
    fn dependencies_come_first_even_when_they_point_forward() {
        let tasks = [t("A", &["C"]), t("B", &[]), t("C", &["B"]), t("D", &["A"])].map(TaskRef::new);
        let order: Vec<&str> = proof::state_order(&tasks)
            .into_iter()
            .map(|i| tasks[i].id())
            .collect();
        assert_eq!(order, ["B", "C", "A", "D"]);
    }

    #[test]
    fn a_selection_takes_the_dependants_of_what_was_asked() {
        let mut state = WorkflowState::new();
        state.tasks = [
            t("T1", &[]),
            t("T2", &["T1"]),
            t("T3", &[]),
            t("T4", &["T2"]),
        ]
        .map(TaskRef::new)
        .into();
        let ids = |sel: Vec<usize>| -> Vec<String> {
            sel.into_iter()
                .map(|i| state.tasks[i].id().to_owned())
                .collect()
        };
        assert_eq!(
            ids(selection(&state, &["T1".into()]).unwrap()),
            ["T1", "T2", "T4"]
        );
        assert_eq!(ids(selection(&state, &[]).unwrap()).len(), 4);
        assert!(selection(&state, &["T9".into()]).is_err());
    }

    #[test]
    fn a_task_without_evidence_or_declared_files_is_never_up_to_date() {
        let now = fingerprint::seal("d".into(), Vec::new(), Vec::new());
        let mut task = t("T1", &[]);
        assert!(reasons(&task, &now, false)[0].starts_with("no evidence"));
        task.evidence = Some(crate::state::evidence::Proof::of(Evidence {
            inputs: now.clone(),
            ..Evidence::default()
        }));
        assert!(reasons(&task, &now, false)[0].starts_with("it declares no files"));
        let declared = fingerprint::seal(
            "d".into(),
            vec![crate::state::evidence::FileDigest {
                path: "a".into(),
                digest: None,
            }],
            Vec::new(),
        );
        task.evidence = Some(crate::state::evidence::Proof::of(Evidence {
            inputs: declared.clone(),
            ..Evidence::default()
        }));
        assert!(reasons(&task, &declared, false).is_empty());
        assert_eq!(reasons(&task, &declared, true), ["--all"]);
    }
}
