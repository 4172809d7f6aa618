//! What `wf next` shows: the task to do now, or why there is none — the answer of
//! `run::now`, which `workflow-execute` acts on too, put into words.

use serde_json::{json, Value};

use super::brief::{brief, brief_json};
use super::one_line;
use crate::proof::derive::ConfigCheck;
use crate::run::now::{self, Facts, Now};
use crate::state::model::{Task, WorkflowState};
use crate::state::summary::Digest;

/// Why `wf next` shows what it shows; the `reason` of the JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    Undecided,
    Interrupted,
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
            Reason::Undecided => "undecided",
            Reason::Interrupted => "interrupted",
            Reason::InProgress => "in_progress",
            Reason::Ready => "ready",
            Reason::Failed => "failed",
            Reason::Blocked => "blocked",
            Reason::Waiting => "waiting",
            Reason::Done => "done",
        }
    }

    /// The code `workflow-execute` would exit with before it runs anything: 0 when it
    /// would go on, else its refusal's (`wf next` exits with it too).
    pub fn exit_code(self) -> i32 {
        use crate::error::ErrorKind;
        match self {
            Reason::Undecided => ErrorKind::Usage.exit_code(),
            Reason::Failed => ErrorKind::Failed.exit_code(),
            Reason::Blocked => ErrorKind::Blocked.exit_code(),
            _ => 0,
        }
    }
}

pub struct Next<'a> {
    pub reason: Reason,
    pub task: Option<&'a Task>,
    /// One line for a person: what to do about it.
    pub message: String,
}

/// What to do now, as `run::now` decides it, in words.
pub fn next_given(state: &WorkflowState, facts: Facts) -> crate::error::Result<Next<'_>> {
    next_in(state, &Digest::of(state), facts)
}

/// `next_given` of a state and its digest (a view read from the summary holds only
/// the tasks its digest names).
pub fn next_in<'a>(
    state: &'a WorkflowState,
    digest: &Digest,
    facts: Facts,
) -> crate::error::Result<Next<'a>> {
    let (reason, task, message) = match now::what_now_in(state, digest, facts)? {
        Now::Undecided(why) => (Reason::Undecided, None, format!("Nothing runs until this is decided: {why}.")),
        Now::Interrupted(tasks) => (
            Reason::Interrupted,
            tasks.first().copied(),
            format!(
                "The run that was executing {} is gone; `wf resume` runs {} again.",
                one_line(&ids(&tasks)),
                if tasks.len() == 1 { "it" } else { "them" }
            ),
        ),
        Now::HandedOff(t) if t.handed_off == Some(true) => (
            Reason::InProgress,
            Some(t),
            format!(
                "{} is in progress (handed off): do it, then run `wf workflow-execute` to verify it.",
                one_line(&t.id)
            ),
        ),
        // Not an agent's: the run that holds the lock is running it.
        Now::HandedOff(t) => (
            Reason::InProgress,
            Some(t),
            format!(
                "{} is in progress: another wf is running it; `wf logs --follow {}` shows its output.",
                one_line(&t.id),
                one_line(&t.id)
            ),
        ),
        Now::Failed(tasks) => {
            let mut message = format!(
                "Failed: {}. `wf logs {id}` shows why; after a fix, `wf resume` runs {them} again. Or skip it with `wf workflow-execute --skip {id} --reason …`, or put the workflow away with `wf archive --force`.",
                one_line(&ids(&tasks)),
                id = one_line(&tasks[0].id),
                them = if tasks.len() == 1 { "it" } else { "them" },
            );
            // What else stands in the way, so one answer tells all of it.
            let kinds = &digest.blocker_kinds;
            if !kinds.is_empty() {
                message.push('\n');
                message.push_str(&blocked_message(kinds));
            }
            (Reason::Failed, None, message)
        }
        Now::Ready(t) => (
            Reason::Ready,
            Some(t),
            format!("{} is ready; `wf workflow-execute` runs it.", one_line(&t.id)),
        ),
        Now::Done { completed } => (
            Reason::Done,
            None,
            format!(
                "All {} tasks are done; {}.",
                digest.total,
                if completed {
                    "archive it with `wf archive` to start another"
                } else {
                    "run `wf workflow-execute` to finish the workflow"
                }
            ),
        ),
        Now::Blocked(kinds) => (Reason::Blocked, None, blocked_message(&kinds)),
        Now::Waiting => (Reason::Waiting, None, waiting(digest)),
        Now::NoTasks => (Reason::Done, None, "The workflow has no tasks.".into()),
    };
    Ok(Next {
        reason,
        task,
        message,
    })
}

fn blocked_message(kinds: &std::collections::BTreeSet<String>) -> String {
    let names = kinds.iter().map(String::as_str).collect::<Vec<_>>();
    // With one kind the command is written out whole, ready to copy.
    let kind = match names.as_slice() {
        [one] => one_line(one),
        _ => "KIND".into(),
    };
    format!(
        "Blocked by {}: once it is there, `wf workflow-unblock {kind}` lifts it.",
        one_line(&names.join(", "))
    )
}

fn ids(tasks: &[&Task]) -> String {
    tasks
        .iter()
        .map(|t| t.id.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Pending tasks whose dependencies are neither done nor explained above (e.g. a
/// dependency id the state does not know).
fn waiting(digest: &Digest) -> String {
    let stuck: Vec<String> = digest
        .waiting
        .iter()
        .map(|(id, open)| format!("{id} waits for {}", open.join(", ")))
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
pub fn text(state: &WorkflowState, n: &Next<'_>, checks: &[ConfigCheck]) -> String {
    match n.task {
        Some(t) => format!("{}\n\n{}", n.message, brief(state, t, checks)),
        None => n.message.clone(),
    }
}

/// `wf next --json`.
pub fn json(state: &WorkflowState, n: &Next<'_>, checks: &[ConfigCheck]) -> Value {
    json_in(state, &Digest::of(state), n, checks)
}

/// `json` of a state and its digest.
pub fn json_in(
    state: &WorkflowState,
    digest: &Digest,
    n: &Next<'_>,
    checks: &[ConfigCheck],
) -> Value {
    json!({
        "reason": n.reason.as_str(),
        "message": n.message,
        "brief": n.task.map(|t| brief_json(state, t, checks)),
        "failed": digest.failed,
        "blocked_kinds": digest.blocker_kinds,
    })
}
