//! Adopting a state the claude-workflow plugin wrote.
//!
//! The plugin keeps no task list in `workflow-state.json`. Its v2 start step writes
//! the plan as a markdown file in the workflow dir and names it in `tasks_file`
//! (resolved under the workflow dir, never outside it), records what is done in the
//! `progress` lists (`completed`, `skipped`, `failed`, `blocked`), and points
//! `current_task` at the next task; its execute step re-reads that file on every
//! call and looks the next task up in document order, skipping the ids in those
//! lists. Later versions name the plan in `plan_file` instead (an absolute path, or
//! one relative to the project in older files) and keep `current_tasks`, an array
//! whose first entry is `current_task`.
//!
//! So a state without `tasks` is adopted the same way: its tasks come from
//! `tasks_file` (else `plan_file`), parsed by the normal plan parser, and the
//! progress lists give each task its status. Every other field is kept as it was.
//! A state with no readable task source is not guessed at: it stays without tasks,
//! `unadopted` says what is missing, and commands that run tasks refuse with that.

use std::path::{Component, Path, PathBuf};

use crate::plan::{self, classify};
use crate::state::machine::TaskStatus;
use crate::state::model::WorkflowState;

/// Loads the tasks of a state written without them. Leaves a state that has tasks
/// untouched; on failure sets `unadopted` and leaves the tasks empty.
pub fn adopt(state: &mut WorkflowState, dir: &Path, project: Option<&Path>) {
    if !state.tasks.is_empty() {
        return;
    }
    if let Err(why) = try_adopt(state, dir, project) {
        state.unadopted = Some(format!(
            "{}: {why}; {}",
            dir.join(crate::state::store::STATE_FILE).display(),
            crate::state::model::IMPORT_HINT
        ));
    }
}

fn try_adopt(state: &mut WorkflowState, dir: &Path, project: Option<&Path>) -> Result<(), String> {
    let path = source(state, dir, project)?;
    let (_, parsed) = plan::read(&path, None).map_err(|e| e.message)?;
    let mut tasks = parsed.tasks;
    let known: std::collections::HashSet<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
    let p = &state.progress;
    let lists = [
        ("completed", &p.completed, TaskStatus::Completed),
        ("skipped", &p.skipped, TaskStatus::Skipped),
        ("failed", &p.failed, TaskStatus::Failed),
        ("blocked", &p.blocked, TaskStatus::Blocked),
    ];
    for (name, ids, _) in lists {
        if let Some(id) = ids.iter().find(|id| !known.contains(id.as_str())) {
            return Err(format!(
                "progress.{name} names task {} that {} does not have (the tasks file does not belong to this state)",
                crate::error::one_line(id),
                path.display()
            ));
        }
    }
    if let Some(id) = state
        .current_task
        .as_deref()
        .filter(|id| !known.contains(id))
    {
        return Err(format!(
            "current_task {} is not a task of {}",
            crate::error::one_line(id),
            path.display()
        ));
    }
    let rules = classify::Rules::builtin();
    for task in &mut tasks {
        // The state's lists are what the plugin acts on; the markdown only mirrors
        // them, so they decide (the first that lists the task).
        task.status = lists
            .iter()
            .find(|(_, ids, _)| ids.contains(&task.id))
            .map_or(TaskStatus::Pending, |(_, _, status)| *status);
        if task.status == TaskStatus::Blocked {
            // The plugin lists a blocked task but not what it waits on; its own
            // classification rules (the builtin ones) name the kind.
            classify::apply(task, &rules, &state.unblocked);
            if task.blocked_by.is_empty() {
                task.blocked_by.push("external".into());
            }
        } else {
            task.blocked_by.clear();
        }
    }
    state.tasks = crate::state::model::shared(tasks);
    state.plan_format = Some(parsed.format.name().to_string());
    Ok(())
}

/// The plan file a plugin state names: `tasks_file` under the workflow dir, else
/// `plan_file`; the error says what is missing.
fn source(state: &WorkflowState, dir: &Path, project: Option<&Path>) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    if !state.tasks_file.is_empty() {
        let rel = Path::new(&state.tasks_file);
        // As the plugin resolves it: under the workflow dir, never outside it.
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(format!(
                "tasks_file {:?} leaves the workflow dir; it must name a file inside {}",
                state.tasks_file,
                dir.display()
            ));
        }
        let path = dir.join(rel);
        if path.is_file() {
            return Ok(path);
        }
        tried.push(format!("its tasks_file {} does not exist", path.display()));
    }
    if let Some(plan_file) = state.plan_file.as_deref().filter(|p| !p.is_empty()) {
        let p = Path::new(plan_file);
        let root = project.map(Path::to_path_buf).or_else(|| {
            state
                .extra
                .get("project_root")
                .and_then(|v| v.as_str())
                .map(PathBuf::from)
        });
        let path = match root {
            _ if p.is_absolute() => p.to_path_buf(),
            Some(root) => root.join(p),
            None => p.to_path_buf(),
        };
        if path.is_file() {
            return Ok(path);
        }
        tried.push(format!("its plan_file {} does not exist", path.display()));
    }
    if tried.is_empty() {
        return Err(
            "the state has no tasks array and names no task source (no tasks_file, no plan_file)"
                .into(),
        );
    }
    Err(format!(
        "the state has no tasks array and {}",
        tried.join(", and ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Glance;
    use serde_json::json;

    fn state(v: serde_json::Value) -> WorkflowState {
        serde_json::from_value(v).unwrap()
    }

    const PLAN: &str = "## T1: one\n- **阶段**: a\n- **验证命令**: `true`\n\n## T2: two\n- **阶段**: a\n- **验证命令**: `true`\n\n## T3: api client\n- **阶段**: b\n- **文件**: `src/api/client.ts`\n- **验证命令**: `true`\n";

    #[test]
    fn progress_lists_give_the_statuses() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tasks.md"), PLAN).unwrap();
        let mut s = state(
            json!({"status": "running", "tasks_file": "tasks.md", "current_task": "T2",
            "progress": {"completed": ["T1"], "blocked": ["T3"], "failed": [], "skipped": []}}),
        );
        adopt(&mut s, dir.path(), None);
        assert_eq!(s.unadopted, None);
        let st: Vec<_> = s.tasks.iter().map(Glance::status).collect();
        assert_eq!(
            st,
            [
                TaskStatus::Completed,
                TaskStatus::Pending,
                TaskStatus::Blocked
            ]
        );
        assert_eq!(s.tasks[2].blocked_by(), ["api_spec"]);
        assert_eq!(s.plan_format.as_deref(), Some("claude-workflow"));
    }

    #[test]
    fn a_state_without_a_task_source_stays_without_tasks_and_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = state(json!({"status": "running", "tasks_file": "tasks.md"}));
        adopt(&mut s, dir.path(), None);
        assert!(s.tasks.is_empty());
        let why = s.require_tasks().unwrap_err().message;
        assert!(why.contains("tasks.md does not exist"), "{why}");
        assert!(why.contains("wf workflow-start --force PLAN.md"), "{why}");
        let mut s = state(json!({"status": "running"}));
        adopt(&mut s, dir.path(), None);
        let why = s.require_tasks().unwrap_err().message;
        assert!(why.contains("no tasks_file, no plan_file"), "{why}");
    }

    #[test]
    fn tasks_file_outside_the_workflow_dir_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut s = state(json!({"status": "running", "tasks_file": "../x.md"}));
        adopt(&mut s, dir.path(), None);
        assert!(s.unadopted.unwrap().contains("leaves the workflow dir"));
    }

    #[test]
    fn plan_file_is_read_relative_to_the_project() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("p/.claude/plans")).unwrap();
        std::fs::write(dir.path().join("p/.claude/plans/x.md"), PLAN).unwrap();
        let mut s = state(
            json!({"status": "running", "plan_file": ".claude/plans/x.md",
            "current_tasks": ["T1"]}),
        );
        adopt(&mut s, dir.path(), Some(&dir.path().join("p")));
        assert_eq!(s.tasks.len(), 3);
        assert_eq!(s.tasks[2].status(), TaskStatus::Pending);
        assert!(s.tasks[2].blocked_by().is_empty());
    }

    #[test]
    fn progress_naming_an_unknown_task_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tasks.md"), PLAN).unwrap();
        let mut s = state(json!({"status": "running", "tasks_file": "tasks.md",
            "progress": {"completed": ["T9"]}}));
        adopt(&mut s, dir.path(), None);
        assert!(s.tasks.is_empty());
        assert!(s
            .unadopted
            .unwrap()
            .contains("progress.completed names task T9"));
    }
}
