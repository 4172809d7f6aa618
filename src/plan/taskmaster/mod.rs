//! Taskmaster's `.taskmaster/tasks/tasks.json`: task objects (`id`, `title`,
//! `description`, `details`, `testStrategy`, `status`, `dependencies`, `priority`,
//! `subtasks`), in the tagged layout (`{"master": {"tasks": [...]}, "feature-x":
//! {...}}`) or the legacy one (`{"tasks": [...]}`).
//!
//! **Which tasks**: the legacy list, else the `master` tag's (else the first tag's);
//! each other tag is named in a warning with its count, never dropped without a word.
//!
//! **Ids**: a task's `id`; a subtask's is its parent's and its own, `4.2`.
//!
//! **Status**: `done`/`completed` completed; `deferred`/`cancelled` skipped;
//! `in-progress`/`review` in progress; `blocked` blocked; `pending` pending (imported
//! as pending, as any status but finished work); another value is a warning, read as
//! pending. Written back as the same words, in place: only the status value's bytes
//! change.
//!
//! **Deps**: a task's `dependencies` as ids (`3`, `"2.1"`); a subtask's numbers (and
//! words without a dot) are its siblings (`2` of task 4 is `4.2`), as Taskmaster's
//! own next-task rule reads them. A parent waits for its subtasks, and its subtasks
//! for what it waits for.
//!
//! **Brief**: the description and `details` are the requirement, `testStrategy` (and
//! a subtask's `acceptanceCriteria`) the acceptance; the files the title and
//! description name are its files.

mod json;

use std::path::Path;

use json::{Node, Value};

use super::doc::Line;
use super::format::{counted, Detector, Evidence, Links, Pass, Reader, Shown, Spot};
use super::outline::Drafts;
use super::paths::{add_paths, paths_in};
use super::{Draft, PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

pub(crate) struct Taskmaster;

/// The one spot kind: a task's `"status"` value.
const STATUS: &str = "status";

impl Reader for Taskmaster {
    fn name(&self) -> &'static str {
        "taskmaster"
    }

    fn example(&self) -> &'static str {
        "task objects in a `{\"master\": {\"tasks\": [...]}}` tasks.json"
    }

    fn detector(&self, _path: Option<&Path>) -> Box<dyn Detector> {
        Box::new(Json)
    }

    fn parse(
        &self,
        text: &str,
        drafts: &mut Drafts<'_>,
        warnings: &mut Vec<PlanWarning>,
        _pass: Pass,
    ) -> Result<Links, PlanError> {
        let root = read(text)?;
        let Some((_, tasks)) = pick(&root, text, warnings) else {
            return Ok(None);
        };
        let lines = LineIndex::of(text);
        for task in tasks {
            let parent = draft(task, None, &lines, warnings)?;
            let parent_id = parent.task.id.clone();
            let parent_deps = parent.task.deps.clone();
            let mut parent = parent;
            let mut subtasks = Vec::new();
            for sub in task.get("subtasks").and_then(Node::as_array).unwrap_or(&[]) {
                let mut d = draft(sub, Some(&parent_id), &lines, warnings)?;
                if d.task.phase.is_empty() {
                    d.task.phase.clone_from(&parent.task.name);
                }
                for dep in &parent_deps {
                    if !d.task.deps.contains(dep) {
                        d.task.deps.push(dep.clone());
                    }
                }
                parent.task.deps.push(d.task.id.clone());
                subtasks.push(d);
            }
            drafts.push(parent)?;
            for d in subtasks {
                drafts.push(d)?;
            }
        }
        Ok(None)
    }

    fn deps_written_in(&self) -> &'static str {
        "its \"dependencies\""
    }

    fn spots(&self, text: &str, each: &mut dyn FnMut(Spot<'_>)) {
        let Ok(root) = json::parse(text) else {
            return;
        };
        let Some((_, tasks)) = pick(&root, text, &mut Vec::new()) else {
            return;
        };
        for task in tasks {
            let Some(id) = task.get("id").and_then(Node::as_word) else {
                continue;
            };
            if let Some(s) = task.get("status").filter(|s| s.as_str().is_some()) {
                each(Spot {
                    id,
                    at: s.start,
                    kind: STATUS,
                });
            }
            for sub in task.get("subtasks").and_then(Node::as_array).unwrap_or(&[]) {
                let Some(sid) = sub.get("id").and_then(Node::as_word) else {
                    continue;
                };
                if let Some(s) = sub.get("status").filter(|s| s.as_str().is_some()) {
                    let full = format!("{id}.{sid}");
                    each(Spot {
                        id: &full,
                        at: s.start,
                        kind: STATUS,
                    });
                }
            }
        }
    }

    fn show(
        &self,
        text: &str,
        at: usize,
        kind: &'static str,
        _id: &str,
        status: Option<TaskStatus>,
    ) -> Option<Shown> {
        let (end, shown) = json::string_at(text, at).filter(|_| kind == STATUS)?;
        let new = status
            .and_then(|s| word_for(&shown, s))
            .map(|w| format!("\"{w}\""));
        Some((end - at, new))
    }

    fn spot_kinds(&self) -> &'static [&'static str] {
        &[STATUS]
    }

    fn extension(&self) -> &'static str {
        "json"
    }

    fn title(&self, _text: &str) -> Option<String> {
        None
    }

    fn starts_task(&self, text: &str) -> bool {
        text.trim_start().starts_with("\"id\"")
    }
}

/// The whole text as JSON, or the error at its line and column.
fn read(text: &str) -> Result<Node, PlanError> {
    json::parse(text).map_err(|(at, what)| {
        let (line, col) = crate::fs::line_col(text.as_bytes(), at);
        PlanError::new(
            line,
            format!("not valid JSON at column {col}: {what}; fix the tasks.json (Taskmaster writes it with `task-master`)"),
        )
    })
}

/// The task list read: the legacy `tasks`, else the `master` tag's, else the first
/// tag's; the others named in a warning. `None`: no task list at all.
fn pick<'n>(
    root: &'n Node,
    text: &str,
    warnings: &mut Vec<PlanWarning>,
) -> Option<(Option<&'n str>, &'n [Node])> {
    if let Some(tasks) = root.get("tasks").and_then(Node::as_array) {
        return Some((None, tasks));
    }
    let Value::Object(members) = &root.value else {
        return None;
    };
    let tags: Vec<(&str, &[Node], usize)> = members
        .iter()
        .filter_map(|(k, v)| Some((k.as_str(), v.get("tasks")?.as_array()?, v.start)))
        .collect();
    let chosen = tags
        .iter()
        .position(|(k, _, _)| *k == "master")
        .or((!tags.is_empty()).then_some(0))?;
    for (i, (tag, tasks, at)) in tags.iter().enumerate() {
        if i != chosen {
            let (line, _) = crate::fs::line_col(text.as_bytes(), *at);
            let chosen_name = tags.get(chosen).map_or("", |t| t.0);
            warnings.push(PlanWarning::new(
                line,
                format!(
                    "the tag {} and its {} tasks are not read: wf reads the tag {} of a tagged tasks.json; import another tag from a tasks.json that holds it alone",
                    super::doc::shown(tag),
                    count(tasks),
                    super::doc::shown(chosen_name)
                ),
            ));
        }
    }
    tags.get(chosen).map(|(k, t, _)| (Some(*k), *t))
}

/// Tasks and subtasks in a list.
fn count(tasks: &[Node]) -> usize {
    tasks
        .iter()
        .map(|t| {
            1 + t
                .get("subtasks")
                .and_then(Node::as_array)
                .map_or(0, <[Node]>::len)
        })
        .sum()
}

/// The line of each byte offset, by the offsets where lines start.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn of(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex(starts)
    }

    fn line(&self, at: usize) -> usize {
        self.0.partition_point(|&s| s <= at)
    }
}

/// One task object as a draft; `parent` is the parent's id for a subtask.
fn draft(
    node: &Node,
    parent: Option<&str>,
    lines: &LineIndex,
    warnings: &mut Vec<PlanWarning>,
) -> Result<Draft, PlanError> {
    let line = lines.line(node.start);
    let text = |key: &str| {
        node.get(key)
            .and_then(Node::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    let Some(own) = node.get("id").and_then(Node::as_word) else {
        return Err(PlanError::new(
            line,
            "this task object has no \"id\"; give it one, as Taskmaster does (a number)",
        ));
    };
    let id = match parent {
        Some(p) => format!("{p}.{own}"),
        None => own.to_string(),
    };
    if !super::ids::is_valid_id(&id) {
        return Err(super::ids::bad_id(line, &id));
    }
    let name = text("title")
        .or_else(|| text("description"))
        .unwrap_or("")
        .to_string();
    if name.is_empty() {
        return Err(PlanError::new(
            line,
            format!(
                "task {id} has no \"title\"; give it one, e.g. \"title\": \"Set up the project\""
            ),
        ));
    }
    let status = match node.get("status").map(|s| s.as_str()) {
        None | Some(None) => TaskStatus::Pending,
        Some(Some(word)) => read_status(word).unwrap_or_else(|| {
            warnings.push(PlanWarning::new(
                line,
                format!(
                    "task {id} has the status {}, which is not a Taskmaster status, so it is read as pending; use pending, in-progress, review, done, deferred or cancelled",
                    super::doc::shown(word)
                ),
            ));
            TaskStatus::Pending
        }),
    };
    let mut task = Task {
        id: id.clone(),
        name,
        status,
        line,
        ..Task::default()
    };
    let requirement: Vec<&str> = [text("description"), text("details")]
        .into_iter()
        .flatten()
        .collect();
    if !requirement.is_empty() && requirement != [task.name.as_str()] {
        task.requirement = Some(requirement.join("\n\n"));
    }
    let acceptance: Vec<&str> = [text("testStrategy"), text("acceptanceCriteria")]
        .into_iter()
        .flatten()
        .collect();
    if !acceptance.is_empty() {
        task.acceptance = Some(acceptance.join("\n\n"));
    }
    if let Some(p) = text("priority") {
        task.extra
            .insert("priority".into(), serde_json::Value::String(p.to_string()));
    }
    let named = format!("{} {}", task.name, text("description").unwrap_or(""));
    add_paths(&mut task, paths_in(&named));
    for dep in node
        .get("dependencies")
        .and_then(Node::as_array)
        .unwrap_or(&[])
    {
        let Some(word) = dep.as_word() else {
            continue;
        };
        let full = match parent {
            Some(p) if !word.contains('.') => format!("{p}.{word}"),
            _ => word.to_string(),
        };
        if full != id && !task.deps.contains(&full) {
            task.deps.push(full);
        }
    }
    Ok(Draft {
        task,
        deps_line: line,
        group: 0,
    })
}

/// A Taskmaster status word as a task status; `None` for a word it does not write.
fn read_status(word: &str) -> Option<TaskStatus> {
    Some(match word.trim().to_ascii_lowercase().as_str() {
        "pending" | "todo" => TaskStatus::Pending,
        "done" | "completed" => TaskStatus::Completed,
        "in-progress" | "in_progress" | "review" => TaskStatus::InProgress,
        "deferred" | "cancelled" | "canceled" => TaskStatus::Skipped,
        "blocked" => TaskStatus::Blocked,
        _ => return None,
    })
}

/// The word to write for `s` where `shown` is written: `None` when it already reads
/// as `s` (`completed` stays for done, `cancelled` for skipped, `review` for in
/// progress).
fn word_for(shown: &str, s: TaskStatus) -> Option<&'static str> {
    if read_status(shown) == Some(s) {
        return None;
    }
    Some(match s {
        TaskStatus::Completed => "done",
        TaskStatus::InProgress => "in-progress",
        TaskStatus::Skipped => "deferred",
        TaskStatus::Blocked => "blocked",
        TaskStatus::Pending | TaskStatus::Failed => "pending",
    })
}

/// Detection: a text that is a JSON object holding a Taskmaster task list.
struct Json;

impl Detector for Json {
    fn line(&mut self, _line: &Line<'_>) {}

    fn finish(self: Box<Self>, text: &str) -> Evidence {
        if !text.trim_start().starts_with('{') {
            return Evidence::default();
        }
        let Ok(root) = json::parse(text) else {
            return Evidence {
                bare: true,
                why: vec!["a JSON object (not valid JSON)".into()],
                ..Evidence::default()
            };
        };
        let tagged = root.get("tasks").is_none();
        match pick(&root, text, &mut Vec::new()) {
            Some((tag, tasks)) => Evidence {
                tasks: count(tasks),
                signs: 1,
                bare: true,
                why: vec![match tag {
                    Some(tag) if tagged => format!(
                        "{} in the tag {}",
                        counted(count(tasks), "task object", "task objects"),
                        super::doc::shown(tag)
                    ),
                    _ => format!(
                        "{} in a `tasks` list",
                        counted(count(tasks), "task object", "task objects")
                    ),
                }],
            },
            None => Evidence::default(),
        }
    }
}

#[cfg(test)]
mod tests;
