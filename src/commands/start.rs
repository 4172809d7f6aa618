//! `wf workflow-start PLAN.md`: import a plan into a validated, classified, audited
//! workflow — or re-import an edited plan without losing progress.
//!
//! Everything that can fail on the plan (reading, parsing, validation, config rules)
//! happens before the lock is taken and before any file is written.
//!
//! An import is one transaction (see `state::recover`): the change record and the
//! backup go under names the current state does not refer to, the plan copy and
//! `project-meta.json` are staged as `.staged-*`, the events are appended as a
//! transaction, and the rename of the new state commits it all; only then are the
//! staged files moved into place. A failure or a kill anywhere before that rename
//! leaves the old workflow (or none) for every reader, and the next writer sweeps
//! what the attempt left; after it, the next writer finishes the moves.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;
use std::time::Duration;

use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use serde_json::{json, Value};

use crate::cli::{GlobalArgs, StartArgs};
use crate::clock;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::plan::diff::PlanDiff;
use crate::plan::{self, classify};
use crate::project::Project;
use crate::state::model::{DeltaTracking, Task, WorkflowState};
use crate::state::recover::{promote_staged, staged};
use crate::state::store::write_atomic;
use crate::state::{Session, TaskStatus, WorkflowStatus};

pub fn run(project: &Project, global: &GlobalArgs, args: &StartArgs, out: &Output) -> Result<i32> {
    let (text, mut plan) = plan::read(&args.plan)?;
    for w in &plan.warnings {
        out.warn(format!("{}:{}: {}", args.plan.display(), w.line, w.message));
    }
    let rules = classify::Rules::from_config(&project.config)?.for_plan(plan.format);
    let name = args
        .name
        .clone()
        .or_else(|| plan.title.clone())
        .unwrap_or_else(|| {
            args.plan
                .file_stem()
                .map_or_else(|| "plan".into(), |s| s.to_string_lossy().into_owned())
        });
    let tasks_file = format!("tasks-{}.md", sanitize_name(&name));
    let tech_design = match &args.tech_design {
        Some(p) if !p.exists() => {
            return Err(WfError::usage(format!(
                "--tech-design {}: no such file",
                p.display()
            )))
        }
        Some(p) => Some(relative_to(&project.dir, p)),
        None => None,
    };
    let now = clock::now_rfc3339();
    let audit = plan::audit::audit(&plan.tasks, &text, &now);
    let digest = crate::plan::digest::text_digest(&text);

    let mut session = project
        .store()
        .lock(global.wait.map(Duration::from_secs), "workflow-start")?;
    // Refused before anything is written, not replaced at the commit: a link where
    // wf keeps its files is an error to show, whatever it points at.
    for name in [tasks_file.as_str(), "project-meta.json"] {
        crate::state::store::refuse_symlink(&session.store().dir().join(name))?;
    }
    let unblocked = session
        .state
        .as_ref()
        .map(|s| s.unblocked.clone())
        .unwrap_or_default();
    let task_count = plan.tasks.len();
    // Moved, not cloned: at 10,000 tasks a copy is ~7 MB of peak memory.
    let tasks = classify_all(std::mem::take(&mut plan.tasks), &rules, &unblocked);
    session.begin_txn();

    let outcome = match session.state.take() {
        None => {
            session.state = Some(fresh_state(
                project,
                &name,
                &tasks_file,
                tech_design,
                tasks,
                &now,
            ));
            session.set_workflow_status(WorkflowStatus::Planned, None)?;
            Outcome::Fresh
        }
        Some(old) => {
            let same_plan = old.tasks_file == tasks_file
                && match &old.plan_digest {
                    Some(d) => *d == digest,
                    // Imported before wf kept a digest: compare with the copy.
                    None => std::fs::read_to_string(session.store().dir().join(&old.tasks_file))
                        .is_ok_and(|copy| copy == text),
                };
            session.state = Some(old);
            if same_plan && !args.force {
                Outcome::Unchanged
            } else {
                reimport(
                    &mut session,
                    project,
                    &name,
                    &tasks_file,
                    tech_design,
                    tasks,
                    args.force,
                    &now,
                )?
            }
        }
    };
    if let Outcome::Unchanged = outcome {
        // Restore a plan copy removed by hand (or left empty by a wf that wrote the
        // copy after the state); a no-op when it is there.
        let copy = session.store().dir().join(&tasks_file);
        if std::fs::read_to_string(&copy).map_or(true, |c| c.is_empty()) {
            write_atomic(&copy, text.as_bytes())?;
            crate::run::checkpoint::mirror_plan_copy(&session)?;
        }
        // Re-importing the plan the state already has is the "keep" answer to a
        // pending major-change decision: clear it, or workflow-execute keeps refusing.
        if session.state()?.decision_required {
            let state = session.state_mut()?;
            state.decision_required = false;
            state.decision_options.clear();
            state.replan_reason = None;
            session.save()?;
        }
        out.json_value(&json!({"changed": false, "tasks_file": tasks_file}));
        out.say("The plan is already imported and unchanged; nothing to do.");
        return Ok(0);
    }
    if let Outcome::NeedsDecision(why) = &outcome {
        return Err(WfError::usage(why.clone()));
    }

    {
        let state = session.state_mut()?;
        state.zero_decision_audit = audit;
        state.phase = Some("plan".into());
        // Absolute, as the plugin writes it; the brief reads the plan's folder from it.
        state.plan_file = Some(
            args.plan
                .canonicalize()
                .unwrap_or_else(|_| args.plan.clone())
                .display()
                .to_string(),
        );
        state.plan_format = Some(plan.format.name().to_string());
        state.plan_digest = Some(digest);
        state.mode = if state.tasks.iter().any(|t| t.status == TaskStatus::Blocked) {
            "progressive".into()
        } else {
            "normal".into()
        };
    }
    let dir = session.store().dir().to_path_buf();
    session.stage_side_files();
    write_atomic(&staged(&dir, &tasks_file), text.as_bytes())?;
    let digest = session.state()?.plan_digest.clone();
    write_meta(
        &dir,
        project,
        &args.plan,
        plan.format,
        task_count,
        digest,
        &now,
    )?;
    session.emit(crate::state::event_log::NewEvent::new(
        "plan.imported",
        json!({"plan": args.plan.display().to_string(), "format": plan.format.name(), "tasks": task_count}),
    ))?;
    // The commit point: the new state, naming the new plan's digest.
    session.save()?;
    // A fresh import's copy already shows what the plan says; only a re-import can
    // carry progress the new text does not show.
    let mirror = matches!(outcome, Outcome::Reimported { .. } | Outcome::ProseOnly);
    promote_staged(&session, mirror)?;
    session.side_files_placed();
    render_summary(session.state()?, &outcome, &args.plan, out);
    Ok(0)
}

enum Outcome {
    Fresh,
    Unchanged,
    /// The plan's text changed but no task did.
    ProseOnly,
    Reimported {
        diff: PlanDiff,
        change: String,
    },
    NeedsDecision(String),
}

/// `tasks-<name>.md`: the name reduced to characters safe in one file name.
pub fn sanitize_name(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if c.is_alphanumeric() || c == '_' || c == '-' {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out: String = out.trim_matches('-').chars().take(64).collect();
    if out.is_empty() {
        "plan".into()
    } else {
        out
    }
}

fn relative_to(base: &Path, p: &Path) -> String {
    let abs = p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
    abs.strip_prefix(base).unwrap_or(&abs).display().to_string()
}

/// Sets each task's blockers (explicit plus classified, less what was lifted) and
/// marks a pending task with blockers `blocked`.
fn classify_all(mut tasks: Vec<Task>, rules: &classify::Rules, unblocked: &[String]) -> Vec<Task> {
    for task in &mut tasks {
        let mut kinds = task.blocked_by.clone();
        for kind in classify::classify(task, rules) {
            if !kinds.contains(&kind) {
                kinds.push(kind);
            }
        }
        kinds.retain(|k| !unblocked.contains(k));
        task.blocked_by = kinds;
        if task.status == TaskStatus::Pending && !task.blocked_by.is_empty() {
            task.status = TaskStatus::Blocked;
        }
    }
    tasks
}

fn fresh_state(
    project: &Project,
    name: &str,
    tasks_file: &str,
    tech_design: Option<String>,
    tasks: Vec<Task>,
    now: &str,
) -> WorkflowState {
    let mut state = WorkflowState::new();
    state.project_id = project.id.clone();
    state.project_name = project.name.clone();
    state.task_name = Some(name.to_string());
    state.tasks_file = tasks_file.to_string();
    state.tech_design = tech_design;
    state.use_subagent = tasks.len() > 5;
    state.collaboration = collaboration();
    state.created_at = now.to_string();
    state.updated_at = now.to_string();
    state.delta_tracking = Some(DeltaTracking {
        enabled: true,
        changes_dir: "changes/".into(),
        ..DeltaTracking::default()
    });
    state.tasks = tasks;
    state
}

/// The state's `collaboration` (docs/state-file.md), from the agent CLIs on PATH.
fn collaboration() -> Value {
    let found: Vec<&str> = ["codex", "gemini", "claude"]
        .into_iter()
        .filter(|c| which::which(c).is_ok())
        .collect();
    let mode = match found.len() {
        0 => "none",
        1 => "single",
        2 => "dual",
        _ => "triple",
    };
    json!({
        "schemaVersion": "2.1",
        "mode": mode,
        "lead": found.first(),
        "support": found.iter().skip(1).collect::<Vec<_>>(),
        "parallelPhases": if found.len() > 1 { json!(["analysis", "review"]) } else { json!([]) },
        "reason": format!("agent CLIs found on PATH: {}", if found.is_empty() { "none".to_string() } else { found.join(", ") }),
        "confidence": 1.0,
    })
}

#[allow(clippy::too_many_arguments)]
fn reimport(
    session: &mut Session,
    project: &Project,
    name: &str,
    tasks_file: &str,
    tech_design: Option<String>,
    mut tasks: Vec<Task>,
    force: bool,
    now: &str,
) -> Result<Outcome> {
    // The current state is read in place, not copied: at 10,000 tasks a copy is
    // ~15 MB of peak memory.
    let old = session.state()?;
    let diff = plan::diff::diff(&old.tasks, &tasks);
    if diff.is_empty() && !force && old.tasks_file == tasks_file {
        // Only prose changed: no task to reset, no delta to record.
        return Ok(Outcome::ProseOnly);
    }
    let old_status: HashMap<&str, TaskStatus> = old
        .tasks
        .iter()
        .map(|t| (t.id.as_str(), t.status))
        .collect();
    let touches_done = diff
        .modified
        .iter()
        .chain(diff.removed.iter())
        .any(|id| old_status.get(id.as_str()) == Some(&TaskStatus::Completed));
    let different_plan =
        old.tasks_file != tasks_file || diff.unchanged.is_empty() && !old.tasks.is_empty();
    let active = !matches!(
        old.status,
        WorkflowStatus::Completed | WorkflowStatus::Archived | WorkflowStatus::Idle
    );
    let major = touches_done || (different_plan && active);
    if major && !force {
        let why = if different_plan && active {
            "it is a different plan while the current one is active"
        } else {
            "it changes or removes completed tasks"
        };
        let state = session.state_mut()?;
        state.decision_required = true;
        state.decision_options = vec![
            "apply: wf workflow-start PLAN --force (the current state is backed up first)".into(),
            "keep: re-import the current plan, or carry on with wf workflow-execute".into(),
        ];
        state.replan_reason = Some("major_change".into());
        session.save()?;
        return Ok(Outcome::NeedsDecision(format!(
            "this re-import is a major change: {why} (modified: {}; removed: {}); pass --force to apply it (a backup of the state is kept)",
            list_or_none(&diff.modified),
            list_or_none(&diff.removed)
        )));
    }
    // The old state as it is, kept before anything changes; written after the change
    // record that names it, so an uncommitted attempt's backup is found and swept.
    session.stage_side_files();
    let backup = if major || force {
        let bytes = serde_json::to_vec_pretty(session.state()?)
            .map_err(|e| WfError::usage(e.to_string()))?;
        Some((format!("backup-{}.json", clock::now_millis()), bytes))
    } else {
        None
    };
    // Unchanged tasks keep what happened to them (moved over from the old state);
    // changed and new ones start over.
    let mut old_tasks = std::mem::take(&mut session.state_mut()?.tasks);
    let unchanged: HashSet<&str> = diff.unchanged.iter().map(String::as_str).collect();
    let kept: HashMap<String, usize> = old_tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| unchanged.contains(t.id.as_str()))
        .map(|(i, t)| (t.id.clone(), i))
        .collect();
    for task in &mut tasks {
        if let Some(prev) = kept.get(&task.id).and_then(|&i| old_tasks.get_mut(i)) {
            let blocked_by = std::mem::take(&mut task.blocked_by);
            *task = std::mem::take(prev);
            if task.status == TaskStatus::Blocked && blocked_by.is_empty() {
                task.status = TaskStatus::Pending;
            }
            task.blocked_by = blocked_by;
        }
    }
    let change = record_delta(session, &diff, backup.as_ref().map(|b| b.0.as_str()), now)?;
    if let Some((name, bytes)) = &backup {
        write_atomic(&session.store().dir().join(name), bytes)?;
    }
    let state = session.state_mut()?;
    state.use_subagent = tasks.len() > 5;
    state.tasks = tasks;
    state.task_name = Some(name.to_string());
    state.tasks_file = tasks_file.to_string();
    if tech_design.is_some() {
        state.tech_design = tech_design;
    }
    state.project_name = project.name.clone();
    state.decision_required = false;
    state.decision_options.clear();
    state.replan_reason = None;
    state.current_task = None;
    state.failure_reason = None;
    let status = state.status;
    if status == WorkflowStatus::Running {
        session.set_workflow_status(WorkflowStatus::Paused, Some("interrupted"))?;
    }
    if session.state()?.status != WorkflowStatus::Planned {
        if session.state()?.status == WorkflowStatus::Idle
            || session.state()?.status == WorkflowStatus::Archived
        {
            session.state_mut()?.status = WorkflowStatus::Idle;
        }
        session.set_workflow_status(WorkflowStatus::Planned, Some("re-imported"))?;
    }
    Ok(Outcome::Reimported { diff, change })
}

fn list_or_none(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}

/// `changes/CHG-NNN/delta.json` (naming the backup taken for it) and
/// `delta_tracking`. The number is one past the committed state's counter: a record
/// of a re-import that never commits is swept by the next writer.
fn record_delta(
    session: &mut Session,
    diff: &PlanDiff,
    backup: Option<&str>,
    now: &str,
) -> Result<String> {
    let dir = session.store().dir().to_path_buf();
    let state = session.state_mut()?;
    let tracking = state.delta_tracking.get_or_insert_with(|| DeltaTracking {
        enabled: true,
        changes_dir: "changes/".into(),
        ..DeltaTracking::default()
    });
    tracking.change_counter += 1;
    let id = format!("CHG-{:03}", tracking.change_counter);
    tracking.current_change = Some(id.clone());
    tracking.applied_changes.push(id.clone());
    let delta = json!({
        "id": id,
        "created_at": now,
        "ADDED": diff.added,
        "MODIFIED": diff.modified,
        "REMOVED": diff.removed,
        "backup": backup,
    });
    let change_dir = dir.join("changes").join(&id);
    crate::state::store::ensure_dir(&change_dir)?;
    let bytes = serde_json::to_vec_pretty(&delta).map_err(|e| WfError::usage(e.to_string()))?;
    write_atomic(&change_dir.join("delta.json"), &bytes)?;
    Ok(id)
}

fn write_meta(
    dir: &Path,
    project: &Project,
    plan_path: &Path,
    format: plan::Format,
    task_count: usize,
    plan_digest: Option<String>,
    now: &str,
) -> Result<()> {
    let source = plan_path
        .canonicalize()
        .unwrap_or_else(|_| plan_path.to_path_buf());
    let meta = json!({
        "project_id": project.id,
        "project_name": project.name,
        "project_path": project.dir,
        "plan_source": source,
        "plan_format": format.name(),
        "task_count": task_count,
        "plan_digest": plan_digest,
        "imported_at": now,
    });
    let bytes = serde_json::to_vec_pretty(&meta).map_err(|e| WfError::usage(e.to_string()))?;
    write_atomic(&staged(dir, "project-meta.json"), &bytes)
}

fn render_summary(state: &WorkflowState, outcome: &Outcome, plan_path: &Path, out: &Output) {
    let mut phases: BTreeMap<usize, (String, usize, usize, usize)> = BTreeMap::new();
    let mut order: HashMap<&str, usize> = HashMap::new();
    for t in &state.tasks {
        let n = order.len();
        let idx = *order.entry(t.phase.as_str()).or_insert(n);
        let e = phases
            .entry(idx)
            .or_insert_with(|| (t.phase.clone(), 0, 0, 0));
        e.1 += 1;
        if t.status.is_done() {
            e.2 += 1;
        }
        if t.status == TaskStatus::Blocked {
            e.3 += 1;
        }
    }
    let blocked: Vec<Value> = state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Blocked)
        .map(|t| json!({"id": t.id, "blocked_by": t.blocked_by}))
        .collect();
    let audit = &state.zero_decision_audit;
    let errors = audit
        .anti_patterns
        .iter()
        .filter(|f| f.severity == "error")
        .count();
    let warnings = audit.anti_patterns.len() - errors;
    let (change, diff) = match outcome {
        Outcome::Reimported { diff, change } => (Some(change.clone()), Some(diff)),
        _ => (None, None),
    };
    out.json_value(&json!({
        "changed": true,
        "workflow": state.task_name,
        "status": state.status,
        "format": state.plan_format,
        "tasks_file": state.tasks_file,
        "tasks": state.tasks.len(),
        "mode": state.mode,
        "phases": phases.values().map(|(p, n, d, b)| json!({"phase": p, "tasks": n, "done": d, "blocked": b})).collect::<Vec<_>>(),
        "blocked": blocked,
        "audit": {"passed": audit.passed, "errors": errors, "warnings": warnings, "findings": audit.anti_patterns},
        "change": change,
        "diff": diff,
    }));
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED);
    table.set_header(vec!["phase", "tasks", "done", "blocked"]);
    for (p, n, d, b) in phases.values() {
        table.add_row(vec![p.clone(), n.to_string(), d.to_string(), b.to_string()]);
    }
    let mut text = format!(
        "Planned `{}`: {} tasks ({}), mode {}.\n{table}",
        state.task_name.as_deref().unwrap_or(""),
        state.tasks.len(),
        state.plan_format.as_deref().unwrap_or("?"),
        state.mode,
    );
    if let (Some(change), Some(diff)) = (change, diff) {
        text.push_str(&format!(
            "\nRe-imported as {change}: added {}, modified {}, removed {}, unchanged {}.",
            list_or_none(&diff.added),
            list_or_none(&diff.modified),
            list_or_none(&diff.removed),
            diff.unchanged.len()
        ));
    }
    for t in state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Blocked)
    {
        text.push_str(&format!(
            "\nBlocked: {} waits on {}",
            t.id,
            t.blocked_by.join(", ")
        ));
    }
    text.push_str(&format!(
        "\nAudit: {} ({errors} errors, {warnings} warnings).",
        if audit.passed { "passed" } else { "FAILED" }
    ));
    if audit.passed {
        for line in super::check::finding_lines(plan_path, audit) {
            text.push_str(&format!("\n  {line}"));
        }
        text.push_str("\nNext: `wf workflow-execute`.");
    } else {
        // Said on stderr, where it is not lost in the summary: execute will refuse.
        let lines = super::check::audit_failure_lines(plan_path, audit);
        for (i, line) in lines.iter().enumerate() {
            // The findings start with their file:line, as a compiler's do.
            crate::output::stderr_line(format_args!("{}{line}", if i == 0 { "wf: " } else { "" }));
        }
        text.push_str(
            "\nNext: settle the audit errors in the plan and import it again, or run `wf workflow-execute --allow-audit-errors`.",
        );
    }
    out.say(text);
}
