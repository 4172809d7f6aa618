//! The import of a plan into a workflow (`wf workflow-start PLAN.md`): a validated,
//! classified, audited workflow from a plan read by `plan`, or an edited plan
//! re-imported without losing progress. The command reads the plan and says what
//! the import did; everything between is here.
//!
//! Everything that can fail on the plan (reading, parsing, validation, config rules)
//! happens before the lock is taken and before any file is written. Under the lock,
//! the tasks are read from the text a second time (`plan::Outline`: a fresh import
//! never holds them all whole), classified and audited; that pass finds nothing new
//! wrong with the plan.
//!
//! An import is one transaction (see `state::recover`): the change record and the
//! backup go under names the current state does not refer to, the plan copy and
//! `project-meta.json` are staged as `.staged-*`, the events are appended as a
//! transaction, and the rename of the new state commits it all; only then are the
//! staged files moved into place. A failure or a kill anywhere before that rename
//! leaves the old workflow (or none) for every reader, and the next writer sweeps
//! what the attempt left; after it, the next writer finishes the moves.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::clock;
use crate::error::{Result, WfError};
use crate::fs::durable::write_atomic;
use crate::plan::diff::PlanDiff;
use crate::plan::{self, classify, replan, Outline};
use crate::project::Project;
use crate::proof::derive::Counts;
use crate::state::model::{Glance, ZeroDecisionAudit};
use crate::state::recover::{promote_staged, staged};
use crate::state::{Session, TaskStatus, WorkflowStatus};

mod anchor;
mod fresh;
mod phases;
mod reimport;

use anchor::Anchor;
pub use phases::Phases;
use reimport::reimport;

/// What `workflow-start` was asked to import.
pub struct Request<'a> {
    /// The plan as the user named it.
    pub plan: &'a Path,
    /// `--name`: the workflow's name, else the plan's title, else its file stem.
    pub name: Option<&'a str>,
    /// `--tech-design`.
    pub tech_design: Option<&'a Path>,
    /// `--force`: apply a major change, or import an unchanged plan again.
    pub force: bool,
    /// `--wait`: how long to wait for another writer's lock.
    pub wait: Option<Duration>,
}

/// What an import did.
pub enum Report {
    /// The plan the workflow already has, unchanged: nothing was imported.
    Unchanged {
        tasks_file: String,
    },
    Imported(Box<Done>),
}

/// An import committed: what to tell the user.
pub struct Done {
    pub outcome: Outcome,
    /// The tasks per phase, as imported.
    pub phases: Phases,
    /// How they are checked (docs/proof.md "Derived checks").
    pub checks: Counts,
    /// The classifier's rules the import applied (the summary names the words that
    /// blocked a task).
    pub rules: classify::Rules,
    /// Paths the plan's tasks declare outside the project, left out of their files.
    pub left_out: Vec<String>,
    /// The workflow, still locked, to say what it is now.
    pub session: Session,
}

/// Imports `outline`, read from `text`, into `project`'s workflow, in one
/// transaction; the plan's own warnings are the caller's to say.
pub fn import(
    project: &Project,
    request: &Request,
    text: String,
    outline: Outline,
) -> Result<Report> {
    // Shared with the hash, not borrowed by it: the import lets go of the text
    // before the save, where it would be a large part of the save's memory.
    let text = Arc::new(text);
    // Hashed beside the import's own work, on the other core.
    // Scoped, so an import that stops early still waits for it.
    std::thread::scope(|scope| {
        let hashed = Arc::clone(&text);
        let digest = scope.spawn(move || crate::plan::digest::text_digest(&hashed));
        let digest = move || {
            digest
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        transaction(project, request, text, outline, digest)
    })
}

fn transaction(
    project: &Project,
    request: &Request,
    text: Arc<String>,
    outline: Outline,
    digest: impl FnOnce() -> String,
) -> Result<Report> {
    let format = outline.format;
    let rules = classify::Rules::from_config(&project.config)?.for_plan(format);
    let name = request
        .name
        .map(str::to_string)
        .or_else(|| outline.title.clone())
        .unwrap_or_else(|| {
            request
                .plan
                .file_stem()
                .map_or_else(|| "plan".into(), |s| s.to_string_lossy().into_owned())
        });
    let tasks_file = format!("tasks-{}.{}", sanitize_name(&name), format.extension());
    let tech_design = match request.tech_design {
        Some(p) if !p.exists() => {
            return Err(WfError::usage(format!(
                "--tech-design {}: no such file",
                p.display()
            )))
        }
        // A run reads its size at every start (the context estimate).
        Some(p) if !p.is_file() => {
            return Err(WfError::usage(format!(
                "--tech-design {}: not a regular file (a directory, pipe or device); give the path of the design document",
                p.display()
            )))
        }
        Some(p) => Some(relative_to(&project.dir, p)),
        None => None,
    };
    let now = clock::now_rfc3339();
    crate::constraints::project::check(&project.config)?;

    let mut session = project.store().lock(request.wait, "workflow-start")?;
    // Refused before anything is written, not replaced at the commit: a link where
    // wf keeps its files is an error to show, whatever it points at.
    for name in [tasks_file.as_str(), "project-meta.json"] {
        crate::fs::refuse_symlink(&session.store().dir().join(name))?;
    }
    let task_count = outline.len();
    let digest = digest();
    let anchor = Anchor::of(project, request.plan);
    session.begin_txn();

    let config_checks = crate::run::derived::config_checks(&project.config);
    let (
        outcome,
        Imported {
            audit,
            phases,
            checks,
        },
    ) = match session.state.take() {
        None => {
            let (tasks, imported) = fresh::stream_tasks(
                &mut session,
                &text,
                outline,
                &rules,
                (&anchor, &config_checks),
                &now,
            )?;
            session.state = Some(fresh::fresh_state(
                project,
                &name,
                &tasks_file,
                tech_design,
                tasks,
                &now,
            ));
            session.set_workflow_status(WorkflowStatus::Planned, None)?;
            (Outcome::Fresh, imported)
        }
        Some(old) => {
            if let Some(why) = replan::refusal(&old) {
                return Err(WfError::usage(why));
            }
            let same_plan = old.tasks_file == tasks_file
                && match &old.plan_digest {
                    Some(d) => *d == digest,
                    // Imported before wf kept a digest: compare with the copy.
                    None => std::fs::read_to_string(session.store().dir().join(&old.tasks_file))
                        .is_ok_and(|copy| copy == *text),
                };
            let unblocked = old.unblocked.clone();
            // The plan the workflow was imported from, edited — or another one.
            let own_plan = old.plan_file.as_deref().is_none_or(|file| {
                request
                    .plan
                    .canonicalize()
                    .is_ok_and(|p| p == std::path::Path::new(file))
            });
            session.state = Some(old);
            if same_plan && !request.force {
                keep_unchanged(&mut session, &tasks_file, &text)?;
                return Ok(Report::Unchanged { tasks_file });
            }
            let mut tasks = outline.into_tasks(&text)?;
            let mut checks = Counts::default();
            for task in &mut tasks {
                anchor.task(task);
                classify::apply(task, &rules, &unblocked);
                checks.add(task, &config_checks);
            }
            let audit = plan::audit::audit_as(&tasks, &text, Some(format), &now);
            let outcome = reimport(
                &mut session,
                project,
                &name,
                &tasks_file,
                tech_design,
                tasks,
                request.force,
                own_plan,
                &now,
            )?;
            let phases = Phases::of(session.state()?)?;
            (
                outcome,
                Imported {
                    audit,
                    phases,
                    checks,
                },
            )
        }
    };

    let seeded = {
        let state = session.state_mut()?;
        state.zero_decision_audit = audit;
        state.phase = Some("plan".into());
        // Absolute, as the plugin writes it; the brief reads the plan's folder from it.
        state.plan_file = Some(
            request
                .plan
                .canonicalize()
                .unwrap_or_else(|_| request.plan.to_path_buf())
                .display()
                .to_string(),
        );
        state.plan_format = Some(format.name().to_string());
        state.plan_digest = Some(digest);
        state.mode = if state
            .tasks
            .iter()
            .any(|t| t.status() == TaskStatus::Blocked)
        {
            "progressive".into()
        } else {
            "normal".into()
        };
        crate::constraints::project::seed(&mut state.constraints, &project.config)?
    };
    for constraint in seeded {
        session.emit(crate::state::event_log::NewEvent::new(
            crate::state::event::EventData::ConstraintAdded(
                crate::state::event::ConstraintChange { constraint },
            ),
        ))?;
    }
    let dir = session.store().dir().to_path_buf();
    session.stage_side_files();
    write_atomic(&staged(&dir, &tasks_file), text.as_bytes())?;
    // The hash is done with it (`digest` was joined above): freed here.
    drop(text);
    let digest = session.state()?.plan_digest.clone();
    write_meta(
        &dir,
        project,
        request.plan,
        format,
        task_count,
        digest,
        &now,
    )?;
    session.emit(crate::state::event_log::NewEvent::new(
        crate::state::event::EventData::PlanImported(crate::state::event::PlanImported {
            plan: request.plan.display().to_string(),
            format: format.name().to_string(),
            tasks: task_count,
        }),
    ))?;
    // The commit point: the new state, naming the new plan's digest.
    session.save()?;
    // A fresh import's copy already shows what the plan says; only a re-import can
    // carry progress the new text does not show.
    let mirror = matches!(outcome, Outcome::Reimported { .. } | Outcome::ProseOnly);
    promote_staged(&session, mirror)?;
    session.side_files_placed();
    Ok(Report::Imported(Box::new(Done {
        outcome,
        phases,
        checks,
        rules,
        left_out: anchor.left_out.take(),
        session,
    })))
}

/// What an import did to the tasks.
pub enum Outcome {
    Fresh,
    /// The plan's text changed but no task did.
    ProseOnly,
    Reimported {
        diff: PlanDiff,
        change: String,
    },
}

/// What an import learnt of the plan's tasks on the way.
pub(crate) struct Imported {
    audit: ZeroDecisionAudit,
    phases: Phases,
    /// How they are checked (docs/proof.md "Derived checks").
    checks: Counts,
}

/// The plan the state already has, imported again: nothing changes, but a plan copy
/// removed by hand is written again, and a pending decision is answered "keep".
fn keep_unchanged(session: &mut Session, tasks_file: &str, text: &str) -> Result<()> {
    // Restore a plan copy removed by hand (or left empty by a wf that wrote the
    // copy after the state); a no-op when it is there.
    let copy = session.store().dir().join(tasks_file);
    if std::fs::read_to_string(&copy).map_or(true, |c| c.is_empty()) {
        write_atomic(&copy, text.as_bytes())?;
        crate::plan::mirror::mirror_plan_copy(session)?;
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
    Ok(())
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
    let meta = serde_json::json!({
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
