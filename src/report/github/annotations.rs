//! `::error` and `::warning` workflow commands, each pointing at the task's line in
//! the plan, so GitHub shows it on the plan file in the pull request.
//!
//! Text follows the runner's escaping (`%`, CR, LF; plus `:` and `,` in properties)
//! so a reason or a task name cannot end the command early or inject another one.
//!
//! The location is the line and plan path recorded at import (`Task.line`,
//! `plan_file`), still right because mirroring statuses never shifts a line.

use crate::state::model::Glance;
use std::path::{Path, PathBuf};

use crate::report::truncate;
use crate::state::machine::TaskStatus;
use crate::state::model::{Task, WorkflowState};

/// `::error` for each failed task (and for a workflow failure no task explains),
/// `::warning` for each blocked task. `plan` is the plan's path as GitHub resolves
/// it ([`plan_path`]), when known.
pub fn annotations(state: &WorkflowState, plan: Option<&str>) -> crate::error::Result<Vec<String>> {
    let mut out = Vec::new();
    for t in &state.tasks {
        if !matches!(t.status(), TaskStatus::Failed | TaskStatus::Blocked) {
            continue;
        }
        let t = t.task()?;
        let message = match t.status {
            TaskStatus::Failed => t.failure_reason.as_deref().unwrap_or("failed").to_string(),
            TaskStatus::Blocked if t.blocked_by.is_empty() => "blocked".to_string(),
            TaskStatus::Blocked => format!("blocked by {}", t.blocked_by.join(", ")),
            _ => continue,
        };
        let level = if t.status == TaskStatus::Failed {
            "error"
        } else {
            "warning"
        };
        out.push(format!(
            "::{level} {}::{}",
            properties(t, plan),
            escape_data(&message)
        ));
    }
    let any_failed_task = state.tasks.iter().any(|t| t.status() == TaskStatus::Failed);
    if let Some(reason) = state.failure_reason.as_deref().filter(|r| !r.is_empty()) {
        if !any_failed_task {
            out.push(format!("::error title=wf::{}", escape_data(reason)));
        }
    }
    Ok(out)
}

/// `file=…,line=…,title=…`: the location when known, and the task's id and name.
fn properties(task: &Task, plan: Option<&str>) -> String {
    let mut props = Vec::new();
    if let Some(file) = plan {
        props.push(format!("file={}", escape_property(file)));
        if task.line > 0 {
            props.push(format!("line={}", task.line));
        }
    }
    let title = format!("{} {}", task.id, truncate(&task.name, 80));
    props.push(format!("title={}", escape_property(title.trim())));
    props.join(",")
}

/// The imported plan's path as GitHub resolves an annotation's `file`: relative to
/// `base` — the runner's checkout (`$GITHUB_WORKSPACE`) when given, else the project.
/// `None` when the state names no plan, or the plan lies outside `base` (GitHub
/// shows no location there anyway) or is not UTF-8.
pub fn plan_path(state: &WorkflowState, project: &Path, base: Option<&Path>) -> Option<String> {
    let plan = Path::new(state.plan_file.as_deref().filter(|p| !p.is_empty())?);
    // The plugin writes `plan_file` relative to the project.
    let plan = canonical(&project.join(plan));
    let base = canonical(base.unwrap_or(project));
    let rel = plan.strip_prefix(&base).ok()?;
    let text = rel.to_str()?;
    (!text.is_empty()).then(|| text.to_string())
}

/// `path` with links resolved, or as it is when it cannot be (a plan since removed).
fn canonical(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

/// A workflow command's message: `%`, CR and LF percent-encoded, as the runner
/// decodes them.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A workflow command's property value: also `:` and `,`, which end a property.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::task_ref::TaskRef;

    fn failed(line: usize, name: &str) -> WorkflowState {
        let mut s = WorkflowState::new();
        s.tasks.push(TaskRef::new(Task {
            id: "T3".into(),
            name: name.into(),
            line,
            status: TaskStatus::Failed,
            failure_reason: Some("100% broken\nnext".into()),
            ..Task::default()
        }));
        s
    }

    #[test]
    fn data_escaping_keeps_one_command_per_line() {
        let e = escape_data("100% broken\r\n::error::injected");
        assert_eq!(e, "100%25 broken%0D%0A::error::injected");
        assert!(!e.contains('\n'));
    }

    #[test]
    fn property_escaping_covers_separators() {
        assert_eq!(escape_property("wf T1,a:b%\n\r"), "wf T1%2Ca%3Ab%25%0A%0D");
    }

    #[test]
    fn an_error_carries_file_line_and_title() {
        let rows = [
            (
                failed(19, "Log in"),
                Some("docs/plan,v2.md"),
                "::error file=docs/plan%2Cv2.md,line=19,title=T3 Log in::100%25 broken%0Anext",
            ),
            (
                failed(0, "plugin state"),
                Some("tasks.md"),
                "::error file=tasks.md,title=T3 plugin state::100%25 broken%0Anext",
            ),
            (
                failed(7, "a: b, c\n::warning::x"),
                None,
                "::error title=T3 a%3A b%2C c%0A%3A%3Awarning%3A%3Ax::100%25 broken%0Anext",
            ),
        ];
        for (state, plan, want) in rows {
            assert_eq!(annotations(&state, plan).unwrap(), vec![want.to_string()]);
        }
    }

    #[test]
    fn the_plan_path_is_relative_to_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("repo/sub")).unwrap();
        std::fs::write(root.join("repo/sub/tasks.md"), "").unwrap();
        let mut s = WorkflowState::new();
        let project = root.join("repo/sub");
        s.plan_file = Some(project.join("tasks.md").display().to_string());
        let repo = root.join("repo");
        assert_eq!(plan_path(&s, &project, None).as_deref(), Some("tasks.md"));
        assert_eq!(
            plan_path(&s, &project, Some(&repo)).as_deref(),
            Some("sub/tasks.md")
        );
        assert_eq!(plan_path(&s, &project, Some(&root.join("elsewhere"))), None);
        s.plan_file = Some("tasks.md".into());
        assert_eq!(
            plan_path(&s, &project, Some(&repo)).as_deref(),
            Some("sub/tasks.md")
        );
        s.plan_file = None;
        assert_eq!(plan_path(&s, &project, None), None);
    }
}
