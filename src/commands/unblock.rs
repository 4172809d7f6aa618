//! `wf workflow-unblock KIND|all`: an external dependency (an API spec, a design)
//! has arrived, so tasks waiting only on it may run.

use crate::state::model::Glance;
use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::json;

use crate::cli::{GlobalArgs, UnblockArgs};
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::state::event::TaskMove;
use crate::state::{TaskStatus, WorkflowStatus};

pub fn run(
    project: &Project,
    global: &GlobalArgs,
    args: &UnblockArgs,
    out: &Output,
) -> Result<i32> {
    let store = project.store();
    store.refuse_untouched_without_tasks()?;
    let mut session = store.lock(global.wait.map(Duration::from_secs), "workflow-unblock")?;
    let state = session.state()?;
    state.require_tasks()?;
    let known = known_kinds(project, state);
    let lifting: Vec<String> = if args.kind == "all" {
        known.iter().cloned().collect()
    } else if known.contains(&args.kind) {
        vec![args.kind.clone()]
    } else {
        return Err(WfError::usage(format!(
            "unknown blocker kind `{}`; known kinds: {}, all",
            args.kind,
            known.iter().cloned().collect::<Vec<_>>().join(", ")
        )));
    };

    let mut freed = Vec::new();
    let ids: Vec<String> = state.tasks.iter().map(|t| t.id().to_owned()).collect();
    for id in ids {
        let state = session.state_mut()?;
        let Some(task) = state.task_mut(&id)? else {
            continue;
        };
        let before = task.blocked_by.len();
        task.blocked_by.retain(|k| !lifting.contains(k));
        if before > 0 && task.blocked_by.is_empty() && task.status == TaskStatus::Blocked {
            session.set_task_status(
                &id,
                TaskStatus::Pending,
                TaskMove {
                    reason: Some(format!("unblocked {}", lifting.join(", "))),
                    blocked_by: Some(Vec::new()),
                    unblocked: true,
                    ..TaskMove::default()
                },
                None,
            )?;
            freed.push(id);
        }
    }
    let state = session.state_mut()?;
    for kind in &lifting {
        if !state.unblocked.contains(kind) {
            state.unblocked.push(kind.clone());
        }
    }
    if state.status == WorkflowStatus::Blocked {
        // blocked → running on unblock (docs/state-machines.md). Nothing runs until the next
        // execute, so the workflow rests as paused rather than claim to be running.
        session.set_workflow_status(WorkflowStatus::Running, None)?;
        session.set_workflow_status(
            WorkflowStatus::Paused,
            Some(&format!(
                "unblocked {}; run `wf workflow-execute` to continue",
                lifting.join(", ")
            )),
        )?;
    }
    session.save()?;
    out.json_value(&json!({"unblocked": lifting, "freed": freed}));
    out.say(format!(
        "Unblocked {}: {} {} can run now{}",
        lifting.join(", "),
        freed.len(),
        crate::report::plural(freed.len(), "task", "tasks"),
        if freed.is_empty() {
            String::new()
        } else {
            format!(" ({})", freed.join(", "))
        }
    ));
    Ok(0)
}

/// The kinds a user may lift: the two builtin ones, the config's, and any a task
/// carries (an explicit 阻塞依赖 of the plan).
fn known_kinds(project: &Project, state: &crate::state::WorkflowState) -> BTreeSet<String> {
    let mut kinds = BTreeSet::from(["api_spec", "design_spec"].map(String::from));
    kinds.extend(project.config.wf.blockers.keys().cloned());
    kinds.extend(
        state
            .tasks
            .iter()
            .flat_map(|t| t.blocked_by().map(str::to_owned)),
    );
    kinds
}
