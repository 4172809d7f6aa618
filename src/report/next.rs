//! What `wf next` shows: the task to do now, or why there is none.
//!
//! A task in progress comes first — it was handed off and someone is (or should be)
//! working on it — then the first ready task. With neither, the answer names what
//! is in the way: failed tasks, external blockers, or nothing (all done).

use std::collections::{BTreeSet, HashMap};

use serde_json::{json, Value};

use super::brief::{brief, brief_json};
use super::{one_line, Counts};
use crate::state::machine::TaskStatus;
use crate::state::model::{Task, WorkflowState};
use crate::state::ready::ready;

/// Why `wf next` shows what it shows; the `reason` of the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    InProgress,
    Ready,
    Failed,
    Blocked,
    Waiting,
    Done,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::InProgress => "in_progress",
            Reason::Ready => "ready",
            Reason::Failed => "failed",
            Reason::Blocked => "blocked",
            Reason::Waiting => "waiting",
            Reason::Done => "done",
        }
    }
}

pub struct Next<'a> {
    pub reason: Reason,
    pub task: Option<&'a Task>,
    /// One line for a person: what to do about it.
    pub message: String,
}

pub fn next(state: &WorkflowState) -> Next<'_> {
    if let Some(t) = in_progress(state) {
        let message = format!(
            "{} is in progress (handed off): do it, then run `wf workflow-execute` to verify it.",
            one_line(&t.id)
        );
        return Next {
            reason: Reason::InProgress,
            task: Some(t),
            message,
        };
    }
    if let Some(&i) = ready(state).first() {
        let t = &state.tasks[i];
        return Next {
            reason: Reason::Ready,
            task: Some(t),
            message: format!("{} is ready.", one_line(&t.id)),
        };
    }
    let (reason, message) = why_nothing(state);
    Next {
        reason,
        task: None,
        message,
    }
}

/// The task in progress: `current_task` when it is, else the first in document order.
fn in_progress(state: &WorkflowState) -> Option<&Task> {
    let current = state
        .current_task
        .as_deref()
        .and_then(|id| state.task(id))
        .filter(|t| t.status == TaskStatus::InProgress);
    current.or_else(|| {
        state
            .tasks
            .iter()
            .find(|t| t.status == TaskStatus::InProgress)
    })
}

fn why_nothing(state: &WorkflowState) -> (Reason, String) {
    let c = Counts::of(&state.tasks);
    if c.total == 0 {
        return (Reason::Done, "The workflow has no tasks.".into());
    }
    if c.done() == c.total {
        let then = if state.status == crate::state::WorkflowStatus::Completed {
            "archive it with `wf archive` to start another"
        } else {
            "run `wf workflow-execute` to finish the workflow"
        };
        return (
            Reason::Done,
            format!("All {} tasks are done; {then}.", c.total),
        );
    }
    let failed: Vec<&Task> = state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Failed)
        .collect();
    let kinds = blocker_kinds(state);
    let mut parts = Vec::new();
    if let Some(first) = failed.first() {
        let ids: Vec<&str> = failed.iter().map(|t| t.id.as_str()).collect();
        parts.push(format!(
            "Failed: {}. Retry with `wf workflow-execute --retry {id}` or skip with `wf workflow-execute --skip {id} --reason …`.",
            one_line(&ids.join(", ")),
            id = one_line(&first.id)
        ));
    }
    if !kinds.is_empty() {
        let kinds: Vec<&str> = kinds.into_iter().collect();
        parts.push(format!(
            "Blocked by {}: lift with `wf workflow-unblock KIND` once it is available.",
            one_line(&kinds.join(", "))
        ));
    }
    let reason = if !failed.is_empty() {
        Reason::Failed
    } else if !parts.is_empty() {
        Reason::Blocked
    } else {
        parts.push(waiting(state));
        Reason::Waiting
    };
    (reason, parts.join("\n"))
}

/// The blocker kinds holding tasks that are not done, sorted.
fn blocker_kinds(state: &WorkflowState) -> BTreeSet<&str> {
    let mut kinds = BTreeSet::new();
    for t in state.tasks.iter().filter(|t| !t.status.is_done()) {
        if t.status == TaskStatus::Blocked && t.blocked_by.is_empty() {
            kinds.insert("blocked");
        }
        kinds.extend(t.blocked_by.iter().map(String::as_str));
    }
    kinds
}

/// Pending tasks whose dependencies are neither done nor explained above (e.g. a
/// dependency id the state does not know).
fn waiting(state: &WorkflowState) -> String {
    let status: HashMap<&str, TaskStatus> = state
        .tasks
        .iter()
        .map(|t| (t.id.as_str(), t.status))
        .collect();
    let stuck: Vec<String> = state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Pending)
        .take(5)
        .map(|t| {
            let open: Vec<&str> = t
                .deps
                .iter()
                .filter(|d| !status.get(d.as_str()).is_some_and(|s| s.is_done()))
                .map(String::as_str)
                .collect();
            format!("{} waits for {}", t.id, open.join(", "))
        })
        .collect();
    one_line(&format!(
        "No task is ready: {}.",
        if stuck.is_empty() {
            "nothing pending".to_string()
        } else {
            stuck.join("; ")
        }
    ))
}

/// `wf next` as Markdown: the one-line message, then the brief.
pub fn text(state: &WorkflowState, n: &Next<'_>) -> String {
    match n.task {
        Some(t) => format!("{}\n\n{}", n.message, brief(state, t)),
        None => n.message.clone(),
    }
}

/// `wf next --json`.
pub fn json(state: &WorkflowState, n: &Next<'_>) -> Value {
    let failed: Vec<&str> = state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Failed)
        .map(|t| t.id.as_str())
        .collect();
    json!({
        "reason": n.reason.as_str(),
        "message": n.message,
        "brief": n.task.map(|t| brief_json(state, t)),
        "failed": failed,
        "blocked_kinds": blocker_kinds(state),
    })
}
