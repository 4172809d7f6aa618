//! A fresh import: the plan's tasks streamed into a new workflow, never all held
//! whole at once.

use serde_json::{json, Value};

use super::anchor::Anchor;
use super::{Imported, Phases};
use crate::error::{Result, WfError};
use crate::plan::audit::Auditor;
use crate::plan::{classify, Outline};
use crate::project::Project;
use crate::proof::derive::{ConfigCheck, Counts};
use crate::state::model::{DeltaTracking, WorkflowState};
use crate::state::spill::Spill;
use crate::state::task_ref::TaskRef;
use crate::state::Session;

/// A fresh import's tasks: each read from the plan's text again
/// ([`Outline::each_task`]), classified, audited, counted and written to a
/// [`Spill`] — held unread, so the import never holds every task at once — and the
/// next save is made to copy their records.
pub(super) fn stream_tasks(
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

pub(super) fn fresh_state(
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
