//! `wf resume`: continue a paused, interrupted, blocked or failed workflow.
//!
//! In a project with a workflow it is `workflow-execute` with recovery. Outside one it
//! lists the resumable workflows under the home, most promising first
//! (docs/execution.md "Resume": runnable > priority > most recently updated), and resumes the one picked.

use crate::state::model::Glance;
use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use serde_json::json;

use crate::cli::{GlobalArgs, ResumeArgs};
use crate::commands::execute::execute_locked;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::{Listed, Project};
use crate::state::WorkflowStatus;

pub fn run(global: &GlobalArgs, args: &ResumeArgs, out: &Output) -> Result<i32> {
    let here = Project::discover(global.project.as_deref())?;
    let has_workflow = here.store().state_path().exists();
    let project = if has_workflow || global.project.is_some() {
        here
    } else {
        match pick(&here.home, args.yes, out)? {
            Some(p) => p,
            None => return Ok(0),
        }
    };
    let store = project.store();
    store.refuse_untouched_without_tasks()?;
    let mut session = store.lock(global.wait.map(Duration::from_secs), "resume")?;
    let settling = args.execute.retry.is_some() || args.execute.skip.is_some();
    if !settling && session.state.as_ref().map(|s| s.status) == Some(WorkflowStatus::Failed) {
        retry_failed(&mut session, out)?;
    }
    execute_locked(&project, &mut session, &args.execute, out)
}

/// `wf resume` on a failed workflow: whoever resumes it has fixed what failed, so
/// every failed task goes back to pending (each counted as a retry) and runs again.
fn retry_failed(session: &mut crate::state::Session, out: &Output) -> Result<()> {
    let failed: Vec<String> = session
        .state()?
        .tasks
        .iter()
        .filter(|t| t.status() == crate::state::TaskStatus::Failed)
        .map(|t| t.id().to_owned())
        .collect();
    for id in &failed {
        crate::run::recovery::retry(session, id)?;
    }
    if !failed.is_empty() {
        out.say(format!("Retrying {}.", failed.join(", ")));
    }
    Ok(())
}

/// The workflows `wf resume` can continue, most promising first: runnable (paused,
/// running, planned) before blocked or failed, then by priority, then most recently
/// updated. Those whose project is unknown are left out: there is nowhere to run them.
fn resumable(home: &std::path::Path) -> Vec<Listed> {
    use WorkflowStatus::{Blocked, Failed, Paused, Planned, Running};
    let runnable = |w: &Listed| matches!(w.status, Some(Paused | Running | Planned));
    let mut found: Vec<Listed> = crate::project::workflows(home)
        .into_iter()
        .filter(|w| {
            w.project.is_some() && (runnable(w) || matches!(w.status, Some(Blocked | Failed)))
        })
        .collect();
    found.sort_by(|a, b| {
        runnable(b)
            .cmp(&runnable(a))
            .then(b.priority.cmp(&a.priority))
            .then(b.updated_at.cmp(&a.updated_at))
    });
    found
}

fn pick(home: &std::path::Path, yes: bool, out: &Output) -> Result<Option<Project>> {
    let found = resumable(home);
    if found.is_empty() {
        out.json_value(&json!({"resumable": []}));
        out.say("Nothing to resume: no paused, blocked, failed or interrupted workflow.");
        return Ok(None);
    }
    let list: Vec<String> = found
        .iter()
        .enumerate()
        .map(|(i, c)| {
            format!(
                "{:>2}. {} [{}] {} (updated {})",
                i + 1,
                c.name,
                c.status.map_or("?", WorkflowStatus::as_str),
                c.project
                    .as_deref()
                    .unwrap_or(std::path::Path::new("?"))
                    .display(),
                c.updated_at
            )
        })
        .collect();
    let choice = if yes {
        0
    } else if std::io::stdin().is_terminal() && !out.json {
        let _ = write!(
            std::io::stderr().lock(),
            "Resumable workflows:\n{}\nResume which? [1] ",
            list.join("\n")
        );
        let mut line = String::new();
        let _ = std::io::stdin().lock().read_line(&mut line);
        match line.trim() {
            "" => 0,
            n => match n.parse::<usize>() {
                Ok(k) if (1..=found.len()).contains(&k) => k - 1,
                _ => {
                    return Err(WfError::usage(format!(
                        "`{n}` is not one of 1..{}",
                        found.len()
                    )))
                }
            },
        }
    } else {
        // One document under --json: the error; `wf list --json` has the workflows.
        out.say(format!("Resumable workflows:\n{}", list.join("\n")));
        return Err(WfError::usage(format!(
            "no workflow in this project, {} resumable elsewhere (`wf list` shows them); pass --yes to resume the first one, or -C DIR to pick one",
            found.len()
        )));
    };
    match &found[choice].project {
        Some(path) => Project::discover(Some(path)).map(Some),
        None => Ok(None),
    }
}
