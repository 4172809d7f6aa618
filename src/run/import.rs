//! `wf import-results`: result files of `wf run-task` (`src/run/standalone.rs`)
//! folded into the workflow under its lock, as if the tasks had run here
//! (docs/distributed.md "Bringing results home").
//!
//! Every move goes through the state machine (`Session::set_task_status`,
//! `set_workflow_status`) with the events a local run writes — `→ in_progress`,
//! `task.execution_started`, `task.execution_result`, `gate.result`, `→ completed` or
//! `→ failed` — so status, the JUnit report and the job summary read an imported task
//! as a local one. Results are applied in dependency order; one whose task's
//! dependencies are still not done after every other has been applied is refused,
//! as is one for another plan. The same result twice changes nothing.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::error::{Result, WfError};
use crate::run::policy::{self, Stop};
use crate::run::standalone::{TaskResultFile, RESULT_KIND};
use crate::state::event::EventKind;
use crate::state::event_log::{self, NewEvent};
use crate::state::{Session, TaskStatus, WorkflowStatus};

/// How deep `import-results DIR` looks: `gh run download` puts each artifact in a
/// folder of its own, `glab` and hand-made layouts rarely go deeper.
const MAX_DEPTH: usize = 4;

/// A result file, read.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub file: PathBuf,
    pub result: TaskResultFile,
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
}

#[derive(Debug, Clone, Default)]
pub struct ImportSummary {
    pub results: Vec<Imported>,
    /// JSON files found in a directory that are no result files (another artifact).
    pub ignored: Vec<PathBuf>,
    /// Where the workflow stands afterwards, when the import moved it.
    pub stop: Option<Stop>,
}

impl ImportSummary {
    pub fn refused(&self) -> usize {
        self.results
            .iter()
            .filter(|r| matches!(r.fate, Fate::Refused(_)))
            .count()
    }
}

/// Reads every result named: a file must be a result file; a directory is searched
/// (links not followed) for `*.json` files, and those that are not results are
/// listed in `ignored`.
pub fn read_all(paths: &[PathBuf]) -> Result<(Vec<Loaded>, Vec<PathBuf>)> {
    let mut loaded = Vec::new();
    let mut ignored = Vec::new();
    for path in paths {
        let meta = std::fs::symlink_metadata(path).map_err(|e| {
            WfError::io(
                &e,
                format!(
                    "{}: {e}; name a result file or a directory of them",
                    path.display()
                ),
            )
        })?;
        if meta.is_dir() {
            let mut files = Vec::new();
            json_files(path, 0, &mut files);
            files.sort();
            for file in files {
                match read_one(&file)? {
                    Some(result) => loaded.push(Loaded { file, result }),
                    None => ignored.push(file),
                }
            }
        } else {
            match read_one(path)? {
                Some(result) => loaded.push(Loaded {
                    file: path.clone(),
                    result,
                }),
                None => {
                    return Err(WfError::usage(format!(
                        "{}: not a wf result file (no \"kind\": \"{RESULT_KIND}\"); name the files `wf run-task --result` wrote",
                        path.display()
                    )))
                }
            }
        }
    }
    Ok((loaded, ignored))
}

fn json_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() && depth < MAX_DEPTH {
            json_files(&path, depth + 1, out);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// The result in `path`; `None` for JSON that is not a result file (no `kind`), an
/// error naming the file and position for one that claims to be and is not.
fn read_one(path: &Path) -> Result<Option<TaskResultFile>> {
    let bytes = crate::fs::read_regular(path)
        .map_err(|e| WfError::usage(format!("{}: {}", path.display(), e.message)))?;
    let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
        return Ok(None);
    };
    if value.get("kind").and_then(Value::as_str) != Some(RESULT_KIND) {
        return Ok(None);
    }
    serde_json::from_slice::<TaskResultFile>(&bytes)
        .map(Some)
        .map_err(|e| {
            WfError::usage(format!(
                "{}:{}:{}: not a valid wf result file ({}); write it again with `wf run-task TASK --result FILE`",
                path.display(),
                e.line(),
                e.column(),
                crate::error::one_line(&e.to_string())
            ))
        })
}

/// The `result_id`s already imported into this workflow, from its event log.
fn imported_ids(session: &Session) -> Result<HashSet<String>> {
    let mut ids = HashSet::new();
    event_log::for_each_from(
        &session.store().events_path(),
        0,
        |event: event_log::Event| {
            if event.kind == EventKind::TaskExecutionResult.name() {
                if let Some(id) = event.data.get("result_id").and_then(Value::as_str) {
                    ids.insert(id.to_string());
                }
            }
            Ok(())
        },
    )?;
    Ok(ids)
}

/// Folds `loaded` into the workflow `session` holds, then checkpoints it.
pub fn import(session: &mut Session, loaded: Vec<Loaded>) -> Result<ImportSummary> {
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
    let digest = state.plan_digest.clone().unwrap_or_default();
    let order: HashMap<String, usize> = state
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    let seen_before = imported_ids(session)?;
    let mut summary = ImportSummary::default();
    let mut waiting: Vec<Loaded> = Vec::new();
    let mut taken: HashMap<String, (String, PathBuf)> = HashMap::new();
    for item in loaded {
        let r = &item.result;
        let refuse = |why: String| Imported {
            file: item.file.clone(),
            task_id: r.task_id.clone(),
            success: r.success,
            fate: Fate::Refused(why),
        };
        let verdict = if r.plan_digest != digest {
            Some(refuse(format!(
                "it is for another plan (plan digest {}, this workflow's is {}); import results into the workflow of the plan they ran",
                short(&r.plan_digest),
                short(&digest)
            )))
        } else if !order.contains_key(&r.task_id) {
            Some(refuse(format!(
                "this workflow has no task {}",
                crate::error::one_line(&r.task_id)
            )))
        } else if r.content_id() != r.result_id {
            Some(refuse(
                "its result_id does not match its content: it was changed after `wf run-task` wrote it".into(),
            ))
        } else if seen_before.contains(&r.result_id) {
            Some(Imported {
                fate: Fate::Duplicate,
                ..refuse(String::new())
            })
        } else {
            match taken.get(&r.task_id) {
                Some((id, _)) if *id == r.result_id => Some(Imported {
                    fate: Fate::Duplicate,
                    ..refuse(String::new())
                }),
                Some((_, other)) => Some(refuse(format!(
                    "{} holds another result for task {}; import one result per task at a time",
                    other.display(),
                    r.task_id
                ))),
                None => None,
            }
        };
        if let Some(done) = verdict {
            summary.results.push(done);
        } else {
            taken.insert(r.task_id.clone(), (r.result_id.clone(), item.file.clone()));
            waiting.push(item);
        }
    }
    waiting.sort_by_key(|l| order.get(&l.result.task_id).copied().unwrap_or(usize::MAX));
    // Dependency order: apply every result whose task's dependencies are done, again
    // and again, until a pass applies none.
    loop {
        let mut progressed = false;
        let mut still = Vec::new();
        for item in waiting {
            let (status, deps_done) = {
                let state = session.state()?;
                let Some(task) = state.task(&item.result.task_id) else {
                    continue;
                };
                let done = task
                    .deps
                    .iter()
                    .all(|d| state.task(d).is_some_and(|t| t.status.is_done()));
                (task.status, done)
            };
            if status.is_done() {
                summary.results.push(imported(&item, Fate::AlreadyDone));
                progressed = true;
                continue;
            }
            if !deps_done {
                still.push(item);
                continue;
            }
            let fate = apply(session, &item)?;
            summary.results.push(imported(&item, fate));
            progressed = true;
        }
        waiting = still;
        if !progressed || waiting.is_empty() {
            break;
        }
    }
    for item in waiting {
        let state = session.state()?;
        let open: Vec<String> = state
            .task(&item.result.task_id)
            .map(|t| {
                t.deps
                    .iter()
                    .filter(|d| !state.task(d).is_some_and(|t| t.status.is_done()))
                    .cloned()
                    .collect()
            })
            .unwrap_or_default();
        summary.results.push(imported(
            &item,
            Fate::Refused(format!(
                "task {} depends on {}, which {} not done (no passing result for it here or among these files)",
                item.result.task_id,
                open.join(", "),
                if open.len() == 1 { "is" } else { "are" }
            )),
        ));
    }
    // Nothing applied, nothing written: importing the same results again leaves the
    // workflow's files as they were.
    if summary.results.iter().any(|r| r.fate == Fate::Applied) {
        summary.stop = Some(settle(session)?);
        crate::run::checkpoint::save(session)?;
    }
    Ok(summary)
}

fn imported(item: &Loaded, fate: Fate) -> Imported {
    Imported {
        file: item.file.clone(),
        task_id: item.result.task_id.clone(),
        success: item.result.success,
        fate,
    }
}

fn short(digest: &str) -> String {
    if digest.is_empty() {
        "none".into()
    } else {
        digest.chars().take(12).collect()
    }
}

/// Records one result whose task's dependencies are done.
fn apply(session: &mut Session, item: &Loaded) -> Result<Fate> {
    let r = &item.result;
    let task = session
        .state()?
        .task(&r.task_id)
        .cloned()
        .ok_or_else(|| WfError::usage(format!("no task {}", r.task_id)))?;
    match task.status {
        TaskStatus::Pending => {}
        // A new result for a task that failed here: it goes back to pending first,
        // as a retry would (`--retry`, `src/run/recovery.rs`).
        TaskStatus::Failed => {
            session.set_task_status(
                &task.id,
                TaskStatus::Pending,
                json!({"reason": format!("a new result from {}", item.file.display())}),
                None,
            )?;
        }
        TaskStatus::Blocked => {
            return Ok(Fate::Refused(format!(
                "task {} is blocked by {}; lift it with `wf workflow-unblock` first",
                task.id,
                task.blocked_by.join(", ")
            )))
        }
        TaskStatus::InProgress => {
            return Ok(Fate::Refused(format!(
                "task {} is in progress here (an interrupted run, or handed off); settle it with `wf resume` first",
                task.id
            )))
        }
        TaskStatus::Completed | TaskStatus::Skipped => return Ok(Fate::AlreadyDone),
    }
    if session.state()?.status != WorkflowStatus::Running {
        session.set_workflow_status(WorkflowStatus::Running, None)?;
    }
    let state = session.state_mut()?;
    if state.started_at.is_none() {
        state.started_at = Some(r.started_at.clone());
    }
    let attempt = task.attempts + 1;
    let log = write_log(session, &task.id, attempt, r);
    let mut data = json!({"attempt": attempt, "imported": item.file.display().to_string()});
    if let Some(log) = &log {
        data["log"] = log.clone().into();
    }
    session.set_task_status(&task.id, TaskStatus::InProgress, data, None)?;
    session.emit(
        NewEvent::new(
            EventKind::TaskExecutionStarted,
            json!({"attempt": attempt, "log": log, "result_id": r.result_id}),
        )
        .task(&task.id),
    )?;
    session.emit(
        NewEvent::new(
            EventKind::TaskExecutionResult,
            json!({
                "success": r.success,
                "verified": r.verified,
                "duration_ms": r.duration_ms,
                "reason": r.reason,
                "result_id": r.result_id,
                "fingerprint": r.fingerprint.fingerprint,
                "runner": r.runner,
            }),
        )
        .task(&task.id),
    )?;
    if let Some(gate) = &r.gate {
        session.emit(NewEvent::new(EventKind::GateResult, gate.clone()).task(&task.id))?;
    }
    if r.success {
        let evidence = evidence_of(session.state()?, r);
        session.complete_task(
            &task.id,
            json!({"verified": r.verified, "duration_ms": r.duration_ms}),
            evidence,
        )?;
    } else {
        let reason = r
            .reason
            .clone()
            .unwrap_or_else(|| "its result says it failed".into());
        session.set_task_status(
            &task.id,
            TaskStatus::Failed,
            json!({"reason": reason, "duration_ms": r.duration_ms}),
            None,
        )?;
    }
    Ok(Fate::Applied)
}

/// The attempt's log in the workflow dir as a local run writes it — each command's
/// `$ command` line, then its output (here, its tail) — so `wf logs` and the JUnit
/// report show an imported failure as a local one. Best effort: the result stands
/// without it. None when no command ran. Relative to the workflow dir.
fn write_log(session: &Session, task_id: &str, attempt: u32, r: &TaskResultFile) -> Option<String> {
    use std::io::Write;
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
    let mut file = crate::exec::process::open_log(&path).ok()?;
    file.write_all(text.as_bytes()).ok()?;
    Some(
        path.strip_prefix(dir)
            .unwrap_or(&path)
            .display()
            .to_string(),
    )
}

/// Moves the workflow to where the imported results leave it: failed when a task
/// failed, completed when every task is done, else paused until the rest is run or
/// imported.
fn settle(session: &mut Session) -> Result<Stop> {
    let tasks = &session.state()?.tasks;
    let stop = match policy::nothing_ready(tasks) {
        None => policy::final_stop(Stop::Completed, tasks.is_empty()),
        Some(stop @ Stop::Failed { .. }) => stop,
        Some(_) => {
            let open = tasks.iter().filter(|t| !t.status.is_done()).count();
            Stop::Paused(format!(
                "results imported; {open} task(s) still to do: `wf workflow-execute` runs them, or import their results"
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

/// The evidence a passing result brings: its checks, and its inputs resealed with
/// the fingerprints this workflow's dependencies have (a CI job knew none of them),
/// so it is the fingerprint a local run of the same files would have recorded.
fn evidence_of(
    state: &crate::state::WorkflowState,
    r: &TaskResultFile,
) -> crate::state::evidence::Evidence {
    let deps = r
        .fingerprint
        .deps
        .iter()
        .map(|d| crate::state::evidence::DepDigest {
            id: d.id.clone(),
            fingerprint: crate::proof::recorded_fingerprint(state, &d.id),
        })
        .collect();
    crate::state::evidence::Evidence {
        at: r.finished_at.clone(),
        inputs: crate::proof::fingerprint::seal(
            r.fingerprint.definition.clone(),
            r.fingerprint.files.clone(),
            deps,
        ),
        checks: crate::run::work::CheckRun::evidence(r.checks.iter().map(|c| &c.run)),
        ..crate::state::evidence::Evidence::default()
    }
}
