//! `wf workflow-start PLAN.md`: import a plan into a validated, classified, audited
//! workflow — or re-import an edited plan without losing progress.
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

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use crate::cli::{GlobalArgs, StartArgs};
use crate::clock;
use crate::error::{Result, WfError};
use crate::fs::durable::write_atomic;
use crate::output::Output;
use crate::plan::audit::Auditor;
use crate::plan::diff::PlanDiff;
use crate::plan::{self, classify, replan, Outline};
use crate::project::Project;
use crate::proof::derive::{ConfigCheck, Counts};
use crate::report::start::Phases;
use crate::state::model::{DeltaTracking, Glance, Task, WorkflowState, ZeroDecisionAudit};
use crate::state::recover::{promote_staged, staged};
use crate::state::spill::Spill;
use crate::state::task_ref::TaskRef;
use crate::state::{Session, TaskStatus, WorkflowStatus};

mod reimport;
use reimport::reimport;

pub fn run(project: &Project, global: &GlobalArgs, args: &StartArgs, out: &Output) -> Result<i32> {
    let (text, outline) = plan::read_outline(&args.plan, args.format)?;
    for w in &outline.warnings {
        out.warn(format!("{}:{}: {}", args.plan.display(), w.line, w.message));
    }
    // Shared with the hash, not borrowed by it: the import lets go of the text
    // before the save (at 100,000 tasks, a fifth of the save's memory).
    let text = Arc::new(text);
    // Hashed beside the import's own work: at 100,000 tasks a few percent of it.
    // Scoped, so an import that stops early still waits for it.
    std::thread::scope(|scope| {
        let hashed = Arc::clone(&text);
        let digest = scope.spawn(move || crate::plan::digest::text_digest(&hashed));
        let digest = move || {
            digest
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        import(project, global, args, out, text, outline, digest)
    })
}

fn import(
    project: &Project,
    global: &GlobalArgs,
    args: &StartArgs,
    out: &Output,
    text: Arc<String>,
    outline: Outline,
    digest: impl FnOnce() -> String,
) -> Result<i32> {
    let format = outline.format;
    let rules = classify::Rules::from_config(&project.config)?.for_plan(format);
    let name = args
        .name
        .clone()
        .or_else(|| outline.title.clone())
        .unwrap_or_else(|| {
            args.plan
                .file_stem()
                .map_or_else(|| "plan".into(), |s| s.to_string_lossy().into_owned())
        });
    let tasks_file = format!("tasks-{}.{}", sanitize_name(&name), format.extension());
    let tech_design = match &args.tech_design {
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

    let mut session = project
        .store()
        .lock(global.wait.map(Duration::from_secs), "workflow-start")?;
    // Refused before anything is written, not replaced at the commit: a link where
    // wf keeps its files is an error to show, whatever it points at.
    for name in [tasks_file.as_str(), "project-meta.json"] {
        crate::fs::refuse_symlink(&session.store().dir().join(name))?;
    }
    let task_count = outline.len();
    let digest = digest();
    let anchor = Anchor::of(project, &args.plan);
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
            let (tasks, imported) = stream_tasks(
                &mut session,
                &text,
                outline,
                &rules,
                (&anchor, &config_checks),
                &now,
            )?;
            session.state = Some(fresh_state(
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
                args.plan
                    .canonicalize()
                    .is_ok_and(|p| p == std::path::Path::new(file))
            });
            session.state = Some(old);
            if same_plan && !args.force {
                return keep_unchanged(&mut session, &tasks_file, &text, out);
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
                args.force,
                own_plan,
                &now,
            )?;
            let phases = Phases::of(session.state()?);
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
            args.plan
                .canonicalize()
                .unwrap_or_else(|_| args.plan.clone())
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
    write_meta(&dir, project, &args.plan, format, task_count, digest, &now)?;
    session.emit(crate::state::event_log::NewEvent::new(
        crate::state::event::EventData::PlanImported(crate::state::event::PlanImported {
            plan: args.plan.display().to_string(),
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
    for warning in anchor.left_out.borrow().iter() {
        out.warn(warning);
    }
    render_summary(
        session.state()?,
        (&phases, &checks),
        &outcome,
        &args.plan,
        (&rules, out),
    );
    Ok(0)
}

/// What an import did to the tasks.
enum Outcome {
    Fresh,
    /// The plan's text changed but no task did.
    ProseOnly,
    Reimported {
        diff: PlanDiff,
        change: String,
    },
}

/// What an import learnt of the plan's tasks on the way.
struct Imported {
    audit: ZeroDecisionAudit,
    phases: Phases,
    /// How they are checked (docs/proof.md "Derived checks").
    checks: Counts,
}

/// The plan the state already has, imported again: nothing changes, but a plan copy
/// removed by hand is written again, and a pending decision is answered "keep".
fn keep_unchanged(
    session: &mut Session,
    tasks_file: &str,
    text: &str,
    out: &Output,
) -> Result<i32> {
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
    out.json_value(&json!({"changed": false, "tasks_file": tasks_file}));
    out.say("The plan is already imported and unchanged; nothing to do.");
    Ok(0)
}

/// A fresh import's tasks: each read from the plan's text again
/// ([`Outline::each_task`]), classified, audited, counted and written to a
/// [`Spill`] — held unread, so the import never holds every task at once — and the
/// next save is made to copy their records.
fn stream_tasks(
    session: &mut Session,
    text: &str,
    outline: Outline,
    rules: &classify::Rules,
    (anchor, config_checks): (&Anchor, &[ConfigCheck]),
    now: &str,
) -> Result<(Vec<TaskRef>, Imported)> {
    let dir = session.store().dir().to_path_buf();
    let spill_error = |e: std::io::Error| {
        WfError::io(
            &e,
            format!("cannot write the import's tasks in {}: {e}", dir.display()),
        )
    };
    let mut spill = Spill::create(&dir, outline.len()).map_err(spill_error)?;
    let mut auditor = Auditor::new(text, Some(outline.format));
    let mut phases = Phases::default();
    let mut checks = Counts::default();
    outline.each_task(text, |task| {
        anchor.task(task);
        // A fresh workflow has no kinds lifted.
        classify::apply(task, rules, &[]);
        auditor.task(task);
        phases.add(task);
        checks.add(task, config_checks);
        spill.push(task).map_err(spill_error)
    })?;
    let (tasks, prior) = spill.finish().map_err(spill_error)?;
    session.copy_records_from(prior);
    let audit = auditor.finish(now);
    Ok((
        tasks,
        Imported {
            audit,
            phases,
            checks,
        },
    ))
}

/// Where the plan is, to anchor the paths its tasks declare in the project
/// (`plan::anchor`), and the paths it left out.
struct Anchor {
    /// The plan as the user named it, for a warning's `FILE:LINE:`.
    shown: String,
    /// Its folder relative to the project; none when it is outside the project.
    dir: Option<PathBuf>,
    left_out: std::cell::RefCell<Vec<String>>,
}

impl Anchor {
    fn of(project: &Project, plan: &Path) -> Anchor {
        let dir = plan
            .parent()
            .map(|d| {
                if d.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    d
                }
            })
            .and_then(|d| d.canonicalize().ok())
            .and_then(|d| d.strip_prefix(&project.dir).ok().map(Path::to_path_buf));
        Anchor {
            shown: plan.display().to_string(),
            dir,
            left_out: std::cell::RefCell::default(),
        }
    }

    /// Anchors `task`'s declared paths; one outside the project is left out, and
    /// said after the import.
    fn task(&self, task: &mut Task) {
        for path in plan::anchor::anchor(task, self.dir.as_deref()) {
            self.left_out.borrow_mut().push(format!(
                "{}:{}: task {} names {}, which is outside the project: it is not one of the task's files (wf neither checks nor fingerprints it)",
                self.shown,
                task.line,
                crate::report::one_line(&task.id),
                crate::report::one_line(&path)
            ));
        }
    }
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

fn fresh_state(
    project: &Project,
    name: &str,
    tasks_file: &str,
    tech_design: Option<String>,
    tasks: Vec<TaskRef>,
    now: &str,
) -> WorkflowState {
    let mut state = WorkflowState::new();
    state.project_id.clone_from(&project.id);
    state.project_name.clone_from(&project.name);
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

fn render_summary(
    state: &WorkflowState,
    (phases, checks): (&Phases, &Counts),
    outcome: &Outcome,
    plan_path: &Path,
    (rules, out): (&classify::Rules, &Output),
) {
    let change = match outcome {
        Outcome::Reimported { diff, change } => Some((change.as_str(), diff)),
        _ => None,
    };
    let summary = crate::report::start::summary(
        state,
        (phases, checks),
        change,
        plan_path,
        (rules, out.look()),
    );
    out.json_value(&summary.json);
    for line in &summary.stderr {
        crate::output::stderr_line(format_args!("{line}"));
    }
    out.say(summary.text);
}
