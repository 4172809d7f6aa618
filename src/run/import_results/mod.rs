//! `wf import-results`: result files of `wf run-task` (`src/run/standalone.rs`)
//! folded into the workflow under its lock, as if the tasks had run here
//! (docs/distributed.md "`wf import-results DIR|FILE…`").
//!
//! Every move goes through the state machine (`Session::set_task_status`,
//! `set_workflow_status`) with the events a local run writes — `→ in_progress`,
//! `task.execution_started`, `task.execution_result`, `gate.result`, `→ completed` or
//! `→ failed` — so status, the JUnit report and the job summary read an imported task
//! as a local one. Results are applied in dependency order; one whose task's
//! dependencies are still not done after every other has been applied is refused.
//! What a result must be to be taken at all is `trust`'s; reading the files is
//! `read`'s.
//!
//! An import is one transaction (`Session::begin_txn`): its events are committed
//! together by the snapshot it ends with, so an import stopped anywhere — a fault, a
//! kill, a full disk — leaves the old workflow, and the next one starts over from
//! it. A task left `in_progress` by an import all the same (a wf before this one
//! wrote no transaction) is put back to pending first. Whether a result was imported
//! before is read from the task transitions it made, not from the result's own
//! event; and a workflow left `running` with nothing in progress is settled even
//! when nothing new applies. The same result twice changes nothing.

mod apply;
mod history;
mod read;
mod trust;

pub use read::{read_all, Loaded, ARTIFACT_PREFIX, MAX_RESULT_BYTES};
pub use trust::Jobs;

use crate::state::model::{Glance, WorkflowState};
use crate::state::task_ref::TaskRef;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::config::Config;
use crate::error::{Result, WfError};
use crate::run::policy::{self, Stop};
use crate::state::{Session, TaskStatus, WorkflowStatus};

use history::History;

/// What an import is given besides its results.
pub struct Options<'a> {
    pub project: &'a Path,
    pub config: &'a Config,
    /// `--allow-stale`: a result computed on another tree is imported, as stale.
    pub allow_stale: bool,
    /// `--job`: the tasks each job of an exported pipeline ran.
    pub jobs: Jobs,
    /// `WF_RESULT_KEY`: results must be signed with it.
    pub key: Option<Vec<u8>>,
}

/// What became of one result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    /// Recorded: the task is now completed or failed.
    Applied,
    /// This very result was imported before (or twice in this call): nothing to do.
    Duplicate,
    /// The task was already done here (completed or skipped): nothing to do.
    AlreadyDone,
    /// Not imported, and why.
    Refused(String),
}

impl Fate {
    pub fn name(&self) -> &'static str {
        match self {
            Fate::Applied => "applied",
            Fate::Duplicate => "duplicate",
            Fate::AlreadyDone => "already_done",
            Fate::Refused(_) => "refused",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Imported {
    pub file: PathBuf,
    pub task_id: String,
    pub success: bool,
    pub fate: Fate,
    /// What an applied result overrode or could not vouch for: imported as stale,
    /// a local failure it replaced, a gate checked again here.
    pub notes: Vec<String>,
}

/// A task of an exported pipeline's job that has no result and nothing to explain
/// why: no failure before it in its job, every dependency done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    pub task_id: String,
    pub job: String,
}

#[derive(Debug, Clone, Default)]
pub struct ImportSummary {
    pub results: Vec<Imported>,
    /// JSON files found in a directory that are no result files (another artifact).
    pub ignored: Vec<PathBuf>,
    /// Where the workflow stands afterwards, when the import moved it.
    pub stop: Option<Stop>,
    /// With `--job`: the tasks whose result never came.
    pub missing: Vec<Missing>,
}

impl ImportSummary {
    pub fn refused(&self) -> usize {
        self.results
            .iter()
            .filter(|r| matches!(r.fate, Fate::Refused(_)))
            .count()
    }
}
/// The session's transaction, opened before the import's first change.
struct Txn(bool);

impl Txn {
    fn open(&mut self, session: &mut Session) {
        if !self.0 {
            session.begin_txn();
            self.0 = true;
        }
    }
}

/// Folds `loaded` into the workflow `session` holds, then checkpoints it.
pub fn import(
    session: &mut Session,
    loaded: Vec<Loaded>,
    opts: &Options<'_>,
) -> Result<ImportSummary> {
    let state = session.state()?;
    state.require_tasks()?;
    if matches!(
        state.status,
        WorkflowStatus::Idle | WorkflowStatus::Archived
    ) {
        return Err(WfError::usage(format!(
            "the workflow is {}; start one with `wf workflow-start PLAN.md` before importing results",
            state.status
        )));
    }
    let order: HashMap<String, usize> = state
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id().to_owned(), i))
        .collect();
    let history = History::read(session)?;
    // The commit this tree is at, asked of git once for every result.
    let head = crate::run::standalone::head_commit(opts.project);
    let mut summary = ImportSummary::default();
    let mut waiting: Vec<(Loaded, Vec<String>)> = Vec::new();
    let mut taken: HashMap<String, (String, PathBuf)> = HashMap::new();
    for item in loaded {
        let fate = match verdict(session, &item, &history, &taken, opts)? {
            Ok(notes) => {
                taken.insert(
                    item.result.task_id.clone(),
                    (item.result.result_id.clone(), item.file.clone()),
                );
                waiting.push((item, notes));
                continue;
            }
            Err(fate) => fate,
        };
        summary.results.push(imported(&item, fate, Vec::new()));
    }
    let mut txn = Txn(false);
    let mut changed = history::recover_stranded(session, &history, &mut txn)?;
    waiting.sort_by_key(|(l, _)| order.get(&l.result.task_id).copied().unwrap_or(usize::MAX));
    // Dependency order: apply every result whose task's dependencies are done, again
    // and again, until a pass applies none.
    loop {
        let mut progressed = false;
        let mut still = Vec::new();
        for (item, notes) in waiting {
            let (status, deps_done) = {
                let state = session.state()?;
                let Some(task) = state.task_ref(&item.result.task_id) else {
                    continue;
                };
                (task.status(), open_deps(state, task).next().is_none())
            };
            if status.is_done() {
                summary
                    .results
                    .push(imported(&item, Fate::AlreadyDone, Vec::new()));
                progressed = true;
                continue;
            }
            if !deps_done {
                still.push((item, notes));
                continue;
            }
            progressed = true;
            let notes = match on_this_tree(session, &item, head.as_deref(), notes, opts)? {
                Ok(notes) => notes,
                Err(fate) => {
                    summary.results.push(imported(&item, fate, Vec::new()));
                    continue;
                }
            };
            let (fate, notes) = apply::apply(session, &item, notes, &history, opts, &mut txn)?;
            changed |= fate == Fate::Applied;
            summary.results.push(imported(&item, fate, notes));
        }
        waiting = still;
        if !progressed || waiting.is_empty() {
            break;
        }
    }
    for (item, _) in waiting {
        let state = session.state()?;
        let open: Vec<String> = state
            .task_ref(&item.result.task_id)
            .map(|t| open_deps(state, t).map(str::to_owned).collect())
            .unwrap_or_default();
        summary.results.push(imported(
            &item,
            Fate::Refused(format!(
                "task {} depends on {}, which {} not done (no passing result for it here or among these files)",
                item.result.task_id,
                open.join(", "),
                if open.len() == 1 { "is" } else { "are" }
            )),
            Vec::new(),
        ));
    }
    summary.missing = missing(session, &opts.jobs)?;
    // A workflow left `running` with nothing in progress (an import stopped before it
    // settled, by a wf before this one) is settled even when nothing new applies.
    let state = session.state()?;
    let stuck = state.status == WorkflowStatus::Running
        && !state
            .tasks
            .iter()
            .any(|t| t.status() == TaskStatus::InProgress);
    if changed || stuck {
        txn.open(session);
        summary.stop = Some(settle(session)?);
    }
    // Nothing changed, nothing written: importing the same results again leaves the
    // workflow's files as they were.
    if txn.0 {
        crate::run::checkpoint::save(session)?;
    }
    Ok(summary)
}

/// Whether `item` may be applied, its tree apart ([`on_this_tree`]): `Ok` with the
/// notes it carries (another plan's result), or the fate it meets instead.
fn verdict(
    session: &Session,
    item: &Loaded,
    history: &History,
    taken: &HashMap<String, (String, PathBuf)>,
    opts: &Options<'_>,
) -> Result<std::result::Result<Vec<String>, Fate>> {
    let r = &item.result;
    let state = session.state()?;
    let digest = state.plan_digest.clone().unwrap_or_default();
    let refuse = |why: String| Ok(Err(Fate::Refused(why)));
    let Some(task) = state.task(&r.task_id)? else {
        return refuse(if r.plan_digest == digest {
            format!(
                "this workflow has no task {}",
                crate::error::one_line(&r.task_id)
            )
        } else {
            format!(
                "it is for another plan (plan digest {}, this workflow's is {}), which has a task {} this one has not; import results into the workflow of the plan they ran",
                short(&r.plan_digest),
                short(&digest),
                crate::error::one_line(&r.task_id)
            )
        });
    };
    // Another plan's result is taken for a task whose definition is the same there
    // and here: an edit to one task refuses that task's results, not the plan's.
    let mut notes = Vec::new();
    if r.plan_digest != digest {
        if r.fingerprint.definition != task.digest || task.digest.is_empty() {
            return refuse(format!(
                "task {}'s definition changed since it ran (the plan's digest was {}, now {}); run it again",
                task.id,
                short(&r.plan_digest),
                short(&digest)
            ));
        }
        notes.push(format!(
            "the plan changed since it ran (digest {}, now {}), task {}'s definition did not",
            short(&r.plan_digest),
            short(&digest),
            task.id
        ));
    }
    if let Err(why) = trust::check_id(r, opts.key.as_deref()) {
        return refuse(why);
    }
    if !opts.jobs.is_empty() {
        if let Err(why) = opts.jobs.check(item.job.as_deref(), &r.task_id) {
            return refuse(why);
        }
    }
    if history.imported.contains(&r.result_id) {
        return Ok(Err(Fate::Duplicate));
    }
    match taken.get(&r.task_id) {
        Some((id, _)) if *id == r.result_id => return Ok(Err(Fate::Duplicate)),
        Some((_, other)) => {
            return refuse(format!(
                "{} holds another result for task {}; import one result per task at a time",
                other.display(),
                r.task_id
            ))
        }
        None => {}
    }
    if let Err(why) = trust::check_claim(r, task) {
        return refuse(why);
    }
    Ok(Ok(notes))
}

/// Whether `item` ran on this tree, asked when its task's dependencies are done (a
/// file an upstream task wrote is compared with what that task's evidence says it
/// left): `Ok` with its notes (stale, under `--allow-stale`), or its refusal.
fn on_this_tree(
    session: &Session,
    item: &Loaded,
    head: Option<&str>,
    mut notes: Vec<String>,
    opts: &Options<'_>,
) -> Result<std::result::Result<Vec<String>, Fate>> {
    let state = session.state()?;
    let Some(task) = state.task(&item.result.task_id)? else {
        return Ok(Ok(notes));
    };
    if let Some(why) = trust::tree_mismatch(&item.result, opts.project, head, state, task)? {
        if !opts.allow_stale {
            return Ok(Err(Fate::Refused(format!(
                "{why}; run it again on this tree, or import it as stale with --allow-stale"
            ))));
        }
        notes.push(format!("stale: {why}"));
    }
    Ok(Ok(notes))
}

/// With `--job`: each job's first task that has no result, no failure before it in
/// its job, and every dependency done — its result was lost, or the job never ran.
fn missing(session: &Session, jobs: &Jobs) -> Result<Vec<Missing>> {
    let state = session.state()?;
    let mut out = Vec::new();
    for (job, tasks) in &jobs.tasks {
        for id in tasks {
            let Some(task) = state.task_ref(id) else {
                break;
            };
            match task.status() {
                TaskStatus::Completed | TaskStatus::Skipped => continue,
                TaskStatus::Pending
                    if task
                        .deps()
                        .all(|d| state.task_ref(d).is_some_and(|t| t.status().is_done())) =>
                {
                    out.push(Missing {
                        task_id: id.clone(),
                        job: job.clone(),
                    });
                }
                _ => {}
            }
            break;
        }
    }
    Ok(out)
}

/// `task`'s dependencies that are not done.
fn open_deps<'a>(state: &'a WorkflowState, task: &'a TaskRef) -> impl Iterator<Item = &'a str> {
    task.deps()
        .filter(move |d| !state.task_ref(d).is_some_and(|t| t.status().is_done()))
}

fn imported(item: &Loaded, fate: Fate, notes: Vec<String>) -> Imported {
    Imported {
        file: item.file.clone(),
        task_id: item.result.task_id.clone(),
        success: item.result.success,
        fate,
        notes,
    }
}

fn short(digest: &str) -> String {
    if digest.is_empty() {
        "none".into()
    } else {
        digest.chars().take(12).collect()
    }
}

/// Moves the workflow to where the imported results leave it: failed when a task
/// failed, completed when every task is done, else paused until the rest is run or
/// imported.
fn settle(session: &mut Session) -> Result<Stop> {
    let tasks = &session.state()?.tasks;
    let stop = match policy::nothing_ready(tasks)? {
        None => policy::final_stop(Stop::Completed, tasks.is_empty()),
        Some(stop @ Stop::Failed { .. }) => stop,
        Some(_) => {
            let open = tasks.iter().filter(|t| !t.status().is_done()).count();
            Stop::Paused(format!(
                "results imported; {open} {} still to do: `wf workflow-execute` runs them, or import their results",
                if open == 1 { "task" } else { "tasks" }
            ))
        }
    };
    let (status, reason) = policy::stop_status(&stop);
    if let Some(status) = status {
        if session.state()?.status == WorkflowStatus::Running {
            session.set_workflow_status(status, reason.as_deref())?;
        }
    }
    Ok(stop)
}
