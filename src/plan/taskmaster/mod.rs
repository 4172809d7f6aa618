//! Taskmaster's `.taskmaster/tasks/tasks.json`: task objects (`id`, `title`,
//! `status`, `dependencies`, `subtasks`, …) in the tagged layout or the legacy one.
//! Which tasks are read, their ids, status, dependencies and brief are in
//! docs/plans.md "Taskmaster".
//!
//! A tag other than `master` (without one, than the first tag) puts its name before
//! its tasks' ids (`feature-x.3`), since every tag numbers its tasks from 1. A
//! subtask's numbers name its siblings, as Taskmaster's own next-task rule reads
//! them. The status is written back in place: only the status value's bytes change.

mod json;

use std::path::Path;

use json::Node;

use super::doc::Line;
use super::format::{counted, Detector, Evidence, Facts, Links, Pass, Reader, Shown, Spot};
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
        let entries = entries(&root);
        let lines = LineIndex::of(text);
        let mut out: Vec<Draft> = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let parent = e.parent.and_then(|p| out.get(p));
            let mut d = draft(e, parent.map(|p| &p.task), &lines, warnings)?;
            d.task.deps = deps(&entries, i);
            // What its parent waits for (not the parent's edges to its subtasks).
            for dep in e.parent.map(|p| deps(&entries, p)).unwrap_or_default() {
                crate::plan::fields::push_unique(&mut d.task.deps, dep);
            }
            if let Some(p) = e.parent.and_then(|p| out.get_mut(p)) {
                p.task.deps.push(d.task.id.clone());
            }
            out.push(d);
        }
        for d in out {
            drafts.push(d)?;
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
        for e in entries(&root) {
            if let Some(s) = e.node.get("status").filter(|s| s.as_str().is_some()) {
                each(Spot {
                    id: &e.id,
                    at: s.start,
                    kind: STATUS,
                });
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

/// A task or subtask object of the file, with its id and where it sits.
struct Entry<'n> {
    node: &'n Node,
    id: String,
    /// Its own id as written (`2` of `4.2`).
    own: String,
    /// The position of its parent task, for a subtask.
    parent: Option<usize>,
    /// The tag of its list, when the file has several.
    tag: Option<&'n str>,
    /// What its list's ids start with (`feature-x.`, or nothing).
    prefix: String,
}

/// The task lists of `root`, `(tag, tasks)` in file order: the legacy `tasks`, a
/// bare array, or every tag's.
fn lists(root: &Node) -> Vec<(Option<&str>, &[Node])> {
    let legacy = root.get("tasks").and_then(Node::as_array);
    if let Some(tasks) = legacy.or_else(|| root.as_array()) {
        return vec![(None, tasks)];
    }
    let json::Value::Object(members) = &root.value else {
        return Vec::new();
    };
    members
        .iter()
        .filter_map(|(tag, v)| {
            let tasks = v
                .get("tasks")
                .and_then(Node::as_array)
                .or_else(|| v.as_array())?;
            // A tag is a list of task objects (or none yet).
            tasks
                .iter()
                .all(|t| t.get("id").is_some() || t.get("title").is_some())
                .then_some((Some(tag.as_str()), tasks))
        })
        .collect()
}

/// Every task and subtask of every list, in file order, with its id.
fn entries(root: &Node) -> Vec<Entry<'_>> {
    let lists = lists(root);
    let unprefixed = lists
        .iter()
        .position(|(tag, _)| *tag == Some("master"))
        .unwrap_or(0);
    let several = lists.len() > 1;
    let mut out = Vec::new();
    for (k, (tag, tasks)) in lists.into_iter().enumerate() {
        let prefix = match tag {
            Some(tag) if k != unprefixed => format!("{}.", id_safe(tag)),
            _ => String::new(),
        };
        let tag = tag.filter(|_| several);
        for task in tasks {
            let own = word(task.get("id"));
            let parent = out.len();
            out.push(Entry {
                node: task,
                id: format!("{prefix}{own}"),
                own: own.clone(),
                parent: None,
                tag,
                prefix: prefix.clone(),
            });
            for sub in task.get("subtasks").and_then(Node::as_array).unwrap_or(&[]) {
                let sub_own = word(sub.get("id"));
                // `"4.2"` under task 4: already its whole id.
                let id = match sub_own.strip_prefix(&format!("{own}.")) {
                    Some(_) => format!("{prefix}{sub_own}"),
                    None => format!("{prefix}{own}.{sub_own}"),
                };
                out.push(Entry {
                    node: sub,
                    id,
                    own: sub_own.rsplit('.').next().unwrap_or("").to_string(),
                    parent: Some(parent),
                    tag,
                    prefix: prefix.clone(),
                });
            }
        }
    }
    out
}

/// An id value as a word: a string, or a number as written; empty for none.
fn word(node: Option<&Node>) -> String {
    node.and_then(Node::as_word)
        .unwrap_or("")
        .trim()
        .to_string()
}

/// `tag` with every character an id may not hold as `-`.
fn id_safe(tag: &str) -> String {
    tag.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect()
}

/// The dependencies of the entry at `i`, as ids (docs/plans.md "Taskmaster").
fn deps(entries: &[Entry<'_>], i: usize) -> Vec<String> {
    let Some(e) = entries.get(i) else {
        return Vec::new();
    };
    let list = entries.iter().filter(|x| x.prefix == e.prefix);
    let top = |w: &str| list.clone().any(|x| x.parent.is_none() && x.own == w);
    let sibling = |w: &str| {
        list.clone()
            .any(|x| x.parent.is_some() && x.parent == e.parent && x.own == w)
    };
    let before = |w: &str| match (w.parse::<f64>(), e.own.parse::<f64>()) {
        (Ok(a), Ok(b)) => a < b,
        _ => true,
    };
    let parent_id = e
        .parent
        .and_then(|p| entries.get(p))
        .map(|p| p.own.as_str());
    let mut out: Vec<String> = Vec::new();
    for dep in e
        .node
        .get("dependencies")
        .and_then(Node::as_array)
        .unwrap_or(&[])
    {
        let Some(w) = dep.as_word().map(str::trim) else {
            continue;
        };
        let full = match parent_id {
            Some(p) if !w.contains('.') => {
                if sibling(w) && (before(w) || !top(w)) {
                    format!("{}{p}.{w}", e.prefix)
                } else if top(w) {
                    format!("{}{w}", e.prefix)
                } else {
                    format!("{}{p}.{w}", e.prefix)
                }
            }
            _ => format!("{}{w}", e.prefix),
        };
        if full != e.id && !out.contains(&full) {
            out.push(full);
        }
    }
    out
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

/// One task object `e` as a draft (its deps are set by the caller); `parent` is the
/// parent's task, for a subtask.
fn draft(
    e: &Entry<'_>,
    parent: Option<&Task>,
    lines: &LineIndex,
    warnings: &mut Vec<PlanWarning>,
) -> Result<Draft, PlanError> {
    let node = e.node;
    let line = lines.line(node.start);
    let text = |key: &str| {
        node.get(key)
            .and_then(Node::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    if e.own.is_empty() {
        return Err(PlanError::new(
            line,
            "this task object has no \"id\"; give it one, as Taskmaster does (a number)",
        ));
    }
    let id = e.id.clone();
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
        // A subtask without a status under a done task is done.
        None | Some(None) => match parent {
            Some(p) if p.status == TaskStatus::Completed => TaskStatus::Completed,
            _ => TaskStatus::Pending,
        },
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
    let phase = match (parent, e.tag) {
        (Some(p), _) => p.name.clone(),
        (None, Some(tag)) => tag.to_string(),
        (None, None) => String::new(),
    };
    let mut task = Task {
        id,
        name,
        phase,
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
    let files: Vec<String> = node
        .get("files")
        .and_then(Node::as_array)
        .unwrap_or(&[])
        .iter()
        .filter_map(|f| f.as_str().map(str::to_string))
        .collect();
    add_paths(&mut task, files);
    let named = format!("{} {}", task.name, text("description").unwrap_or(""));
    add_paths(&mut task, paths_in(&named));
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

/// The word to write for `s` where `shown` is written: `None` when an import reads
/// it as it reads `s` (`completed` stays for done, `cancelled` for skipped, and
/// `review`, `in-progress` or `blocked` for a task that is not finished).
fn word_for(shown: &str, s: TaskStatus) -> Option<&'static str> {
    let imported = super::status::imported;
    if read_status(shown).map(imported) == Some(imported(s)) {
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
    fn line(&mut self, _line: &Line<'_>, _facts: &Facts<'_>) {}

    fn finish(self: Box<Self>, text: &str) -> Evidence {
        if !text.trim_start().starts_with(['{', '[']) {
            return Evidence::default();
        }
        let Ok(root) = json::parse(text) else {
            return Evidence {
                bare: text.contains("\"tasks\""),
                why: vec!["a JSON task list that is not valid JSON".into()],
                ..Evidence::default()
            };
        };
        let lists = lists(&root);
        let tasks: usize = lists.iter().map(|(_, t)| count(t)).sum();
        if lists.is_empty() {
            return Evidence::default();
        }
        let tags = lists.iter().filter(|(tag, _)| tag.is_some()).count();
        let mut why = vec![counted(tasks, "task object", "task objects")];
        if tags > 0 {
            why.push(counted(tags, "tag", "tags"));
        }
        Evidence {
            tasks,
            signs: 1,
            bare: true,
            fallback: false,
            why,
        }
    }
}

#[cfg(test)]
mod tests;
