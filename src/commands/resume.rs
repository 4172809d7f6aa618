//! `wf resume`: continue a paused, interrupted, blocked or failed workflow.
//!
//! In a project with a workflow it is `workflow-execute` with recovery. Outside one it
//! lists the resumable workflows under the home, most promising first
//! (docs/execution.md "Resume": runnable > priority > most recently updated), and resumes the one picked.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::json;

use crate::cli::{GlobalArgs, ResumeArgs};
use crate::commands::execute::execute_locked;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::state::{Store, WorkflowStatus};

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
    execute_locked(&project, &mut session, &args.execute, out)
}

struct Candidate {
    project_path: PathBuf,
    name: String,
    status: WorkflowStatus,
    runnable: bool,
    priority: i64,
    updated_at: String,
}

fn resumable(home: &std::path::Path) -> Vec<Candidate> {
    let Ok(entries) = std::fs::read_dir(home) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for entry in entries.flatten() {
        let store = Store::new(entry.path(), crate::plan::STORE_ACCESS);
        let Ok(Some(state)) = store.load() else {
            continue;
        };
        let runnable = match state.status {
            WorkflowStatus::Paused | WorkflowStatus::Running | WorkflowStatus::Planned => true,
            WorkflowStatus::Blocked | WorkflowStatus::Failed => false,
            _ => continue,
        };
        let Some(project_path) = std::fs::read_to_string(entry.path().join("project-meta.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|m| {
                m.get("project_path")
                    .and_then(|p| p.as_str())
                    .map(PathBuf::from)
            })
        else {
            continue;
        };
        found.push(Candidate {
            project_path,
            name: state
                .task_name
                .clone()
                .unwrap_or_else(|| state.project_name.clone()),
            status: state.status,
            runnable,
            priority: state
                .extra
                .get("priority")
                .and_then(serde_json::Value::as_i64)
                .unwrap_or(0),
            updated_at: state.updated_at.clone(),
        });
    }
    found.sort_by(|a, b| {
        b.runnable
            .cmp(&a.runnable)
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
                c.status,
                c.project_path.display(),
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
        out.json_value(&json!({"resumable": found.iter().map(|c| json!({
            "name": c.name, "status": c.status, "project": c.project_path, "updated_at": c.updated_at,
        })).collect::<Vec<_>>()}));
        out.say(format!("Resumable workflows:\n{}", list.join("\n")));
        return Err(WfError::usage(
            "no workflow in this project; pass --yes to resume the first one, or -C DIR to pick one",
        ));
    };
    let path = &found[choice].project_path;
    Project::discover(Some(path)).map(Some)
}
