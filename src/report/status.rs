//! The `wf status` view: a summary table, the `--detail` tables, and the versioned
//! JSON document.
//!
//! Lists in the table are capped so it stays readable; `--json` has everything.

use crate::state::model::Glance;
use std::path::PathBuf;

use comfy_table::{Cell, Color};

use crate::error::Result;
use crate::output::Look;
use serde::Serialize;

pub use super::status_detail::detail;
use super::{bar, one_line, truncate, workflow_name, ContextLevel, ContextUsage, Counts};
use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::{Task, WorkflowState};
use crate::state::ready::ready;
use crate::state::summary::{Digest, LIST_CAP, MOST_EXPENSIVE, READY_SHOWN};

/// The files behind the workflow, reported so scripts need not rebuild the paths.
#[derive(Debug, Clone, Serialize)]
pub struct Paths {
    pub workflow_dir: PathBuf,
    pub state_file: PathBuf,
    pub events_file: PathBuf,
    pub plan_copy: Option<PathBuf>,
}

/// `T1: name`, on one line and cut to a width that fits a table cell.
pub fn label(task: &Task) -> String {
    one_line(&format!("{}: {}", task.id, truncate(&task.name, 60)))
}

/// The summary table of `wf status`, of a state and its digest (a view read from
/// the summary holds only the tasks its digest names).
pub fn table(state: &WorkflowState, digest: &Digest, window: u64, look: Look) -> Result<String> {
    let counts = Counts::of_digest(digest);
    let context = ContextUsage::of(&state.context_metrics, window);
    let mut t = super::table::new(look);
    t.set_header(vec!["Workflow", &one_line(workflow_name(state))]);
    // A row of a label and its text, in `fg` when the reader has colour.
    let mut row = |label: &str, text: &str, fg: Option<Color>| {
        let cell = fg.map_or_else(|| Cell::new(text), |fg| colored(text, fg, look.color));
        t.add_row(vec![Cell::new(label), cell]);
    };
    let status = state.status;
    row("Status", status.as_str(), Some(workflow_color(status)));
    let mode = crate::run::policy::Mode::from_state_name(&state.execution_mode);
    row("Mode", &mode.describe(), None);
    row("Progress", &progress_text(&counts), None);
    if let Some(why) = state.unadopted.as_deref() {
        row("Tasks", &one_line(why), Some(Color::Red));
    }
    row("Current task", &current_task(state)?, None);
    row("Next ready", &next_ready_text(state, digest)?, None);
    if let Some(text) = blocked_text(state, digest)? {
        row("Blocked", &text, Some(Color::Yellow));
    }
    if let Some(text) = failed_text(state, digest)? {
        row("Failed", &text, Some(Color::Red));
    }
    // Completed on an agent's word with nothing that checked it: not verified work.
    let unchecked = tasks_of(state, &digest.unchecked, LIST_CAP)?
        .into_iter()
        .map(label);
    if let Some(text) = capped_lines(unchecked, digest.unchecked_count) {
        row("Accepted unchecked", &text, Some(Color::Yellow));
    }
    let warnings = state
        .check_warnings
        .iter()
        .map(|(id, w)| one_line(&format!("{id}: {}", truncate(w, 120))));
    if let Some(text) = capped_lines(warnings, state.check_warnings.len()) {
        row("Check warnings", &text, Some(Color::Yellow));
    }
    if let Some(reason) = state.failure_reason.as_deref().filter(|r| !r.is_empty()) {
        row("Failure", &one_line(reason), Some(Color::Red));
    }
    if let Some(reason) = state.status_reason.as_deref().filter(|r| !r.is_empty()) {
        row("Stopped", &one_line(reason), None);
    }
    if state.decision_required {
        let mut text = state
            .replan_reason
            .as_deref()
            .map_or_else(|| "the re-imported plan needs a decision".into(), one_line);
        if !state.decision_options.is_empty() {
            text.push_str(&format!(
                " (options: {})",
                one_line(&state.decision_options.join(", "))
            ));
        }
        row("Decision required", &text, Some(Color::Yellow));
    }
    if !state.retry_counts.is_empty() {
        let retries: Vec<String> = state
            .retry_counts
            .iter()
            .map(|(id, n)| format!("{} ×{n}", one_line(id)))
            .collect();
        row("Retries", &retries.join(", "), None);
    }
    if let Some(text) = usage_text(digest) {
        row("Usage", &text, None);
    }
    // The context is an agent's: a bar for a plan of shell commands says nothing. An
    // agent task is recorded in the history when done, and is the handed-off one.
    if !state.context_metrics.history.is_empty() || digest.handed_off.is_some() {
        let level_color = match context.level {
            ContextLevel::Ok => None,
            ContextLevel::Warning => Some(Color::Yellow),
            ContextLevel::Danger => Some(Color::Red),
        };
        row("Context", &context_text(&context), level_color);
    }
    Ok(t.to_string())
}

/// The `wf status --json` document. `state` is the loaded state, unchanged.
///
/// Borrowed and serialized directly (not built as a `serde_json::Value` first):
/// hooks call this many times a minute on states with a thousand tasks.
#[derive(Debug, Serialize)]
pub struct StatusJson<'a> {
    pub state: &'a WorkflowState,
    pub progress: Counts,
    pub next_ready: Vec<&'a str>,
    pub paths: &'a Paths,
    pub context: ContextUsage,
    /// The state says running but no `wf` process holds its lock: a crashed run.
    pub interrupted: bool,
    /// Tasks completed with nothing that checked them ("accepted unchecked").
    pub accepted_unchecked: Vec<&'a str>,
    /// Why a plugin-written state has no tasks (its task source is missing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unadopted: Option<&'a str>,
    /// What the executors reported they used, when any did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<UsageSummary>,
    /// Which agent holds which task, when several work at once (`run::lease`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub leases: Vec<crate::run::lease::Lease>,
}

/// The workflow's reported usage: totals and the tasks that cost most.
#[derive(Debug, Serialize)]
pub struct UsageSummary {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
    /// Tasks whose executors reported usage.
    pub tasks: usize,
    /// At most five, the most expensive first (by cost, then tokens).
    pub most_expensive: Vec<TaskUsage>,
}

#[derive(Debug, Serialize)]
pub struct TaskUsage {
    pub id: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

pub fn usage_summary(digest: &Digest) -> Option<UsageSummary> {
    let u = digest.usage.as_ref()?;
    Some(UsageSummary {
        input_tokens: u.total.input_tokens,
        output_tokens: u.total.output_tokens,
        cost_usd: u.total.cost_usd,
        tasks: u.tasks,
        most_expensive: u
            .most
            .iter()
            .take(MOST_EXPENSIVE)
            .map(|(id, used)| TaskUsage {
                id: id.clone(),
                input_tokens: used.input_tokens,
                output_tokens: used.output_tokens,
                cost_usd: used.cost_usd,
            })
            .collect(),
    })
}

/// `23,857 tokens (23,012 in, 845 out), $0.04 over 2 tasks; most: T2 $0.03, T1 $0.01`.
pub(crate) fn usage_text(digest: &Digest) -> Option<String> {
    let s = usage_summary(digest)?;
    let cost = |c: Option<f64>| c.map(|c| format!(", ${c:.2}")).unwrap_or_default();
    let most: Vec<String> = s
        .most_expensive
        .iter()
        .take(3)
        .map(|t| match t.cost_usd {
            Some(c) => format!("{} ${c:.2}", one_line(&t.id)),
            None => format!(
                "{} {} tokens",
                one_line(&t.id),
                thousands(t.input_tokens + t.output_tokens)
            ),
        })
        .collect();
    Some(format!(
        "{} tokens ({} in, {} out){} over {} task{}; most: {}",
        thousands(s.input_tokens + s.output_tokens),
        thousands(s.input_tokens),
        thousands(s.output_tokens),
        cost(s.cost_usd),
        s.tasks,
        if s.tasks == 1 { "" } else { "s" },
        most.join(", ")
    ))
}

pub fn json<'a>(
    state: &'a WorkflowState,
    paths: &'a Paths,
    window: u64,
    interrupted: bool,
) -> StatusJson<'a> {
    StatusJson {
        state,
        progress: Counts::of(&state.tasks),
        next_ready: ready(state)
            .into_iter()
            .map(|i| state.tasks[i].id())
            .collect(),
        paths,
        context: ContextUsage::of(&state.context_metrics, window),
        interrupted,
        accepted_unchecked: state
            .tasks
            .iter()
            .filter(|t| t.accepted_unchecked() && t.status() == TaskStatus::Completed)
            .map(Glance::id)
            .collect(),
        unadopted: state.unadopted.as_deref(),
        usage: usage_summary(&Digest::of(state)),
        leases: Vec::new(),
    }
}

pub(super) fn colored(text: &str, fg: Color, color: bool) -> Cell {
    let cell = Cell::new(text);
    if color {
        cell.fg(fg)
    } else {
        cell
    }
}

fn workflow_color(status: WorkflowStatus) -> Color {
    match status {
        WorkflowStatus::Completed | WorkflowStatus::Archived => Color::Green,
        WorkflowStatus::Failed => Color::Red,
        WorkflowStatus::Blocked | WorkflowStatus::Paused => Color::Yellow,
        _ => Color::Blue,
    }
}

fn progress_text(c: &Counts) -> String {
    format!(
        "{} {}% ({}/{} done: {} completed, {} skipped)",
        bar(f64::from(c.percent), 20),
        c.percent,
        c.done(),
        c.total,
        c.completed,
        c.skipped
    )
}

fn context_text(u: &ContextUsage) -> String {
    format!(
        "{} {:.1}% ({} of {} tokens, {})",
        bar(u.usage_percent, 20),
        u.usage_percent,
        thousands(u.estimated_tokens),
        thousands(u.window),
        match u.level {
            ContextLevel::Ok => "ok",
            ContextLevel::Warning => "warning",
            ContextLevel::Danger => "danger",
        }
    )
}

/// `130000` as `130,000`.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn current_task(state: &WorkflowState) -> Result<String> {
    Ok(match state.current_task.as_deref() {
        Some(id) => match state.task(id)? {
            Some(t) => format!("{} ({})", label(t), t.status),
            None => one_line(id),
        },
        None => "—".into(),
    })
}

/// The first `most` tasks of `ids` the state holds, in order, read.
fn tasks_of<'a>(state: &'a WorkflowState, ids: &'a [String], most: usize) -> Result<Vec<&'a Task>> {
    let mut tasks = Vec::new();
    for id in ids {
        if tasks.len() == most {
            break;
        }
        tasks.extend(state.task(id)?);
    }
    Ok(tasks)
}

fn next_ready_text(state: &WorkflowState, digest: &Digest) -> Result<String> {
    if digest.ready_count == 0 {
        return Ok("—".into());
    }
    let mut lines: Vec<String> = tasks_of(state, &digest.ready, READY_SHOWN)?
        .into_iter()
        .map(label)
        .collect();
    if digest.ready_count > READY_SHOWN {
        lines.push(format!("… and {} more", digest.ready_count - READY_SHOWN));
    }
    Ok(lines.join("\n"))
}

/// Tasks held by an external blocker, or in the blocked state: `T4: name (api_spec)`.
fn blocked_text(state: &WorkflowState, digest: &Digest) -> Result<Option<String>> {
    let blocked = tasks_of(state, &digest.blocked, LIST_CAP)?
        .into_iter()
        .map(|t| {
            let kinds = if t.blocked_by.is_empty() {
                "blocked".to_string()
            } else {
                one_line(&t.blocked_by.join(", "))
            };
            format!("{} ({kinds})", label(t))
        });
    Ok(capped_lines(blocked, digest.blocked_count))
}

fn failed_text(state: &WorkflowState, digest: &Digest) -> Result<Option<String>> {
    let failed = tasks_of(state, &digest.failed, LIST_CAP)?
        .into_iter()
        .map(|t| match t.failure_reason.as_deref() {
            Some(r) if !r.is_empty() => format!("{} — {}", label(t), truncate(&one_line(r), 120)),
            _ => label(t),
        });
    Ok(capped_lines(failed, digest.failed.len()))
}

/// The first [`LIST_CAP`] of `items`, then "… and N more" of `count` in all.
fn capped_lines(items: impl Iterator<Item = String>, count: usize) -> Option<String> {
    let mut lines: Vec<String> = items.take(LIST_CAP).collect();
    let more = count.saturating_sub(lines.len());
    if more > 0 {
        lines.push(format!("… and {more} more"));
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// The agents at work and what each holds, a line each: the task, since when, its
/// last call, and the worktree it works in. None when no task is leased.
pub fn leases(leases: &crate::run::lease::Leases) -> Option<String> {
    if leases.leases.is_empty() {
        return None;
    }
    let mut text = String::from("Agents:");
    for l in &leases.leases {
        text.push_str(&format!(
            "\n  {}  {}  since {}, last call {}",
            one_line(&l.agent),
            one_line(&l.task),
            l.since,
            l.seen
        ));
        if let Some(tree) = &l.worktree {
            text.push_str(&format!(
                ", in {} ({})",
                one_line(&tree.dir.to_string_lossy()),
                one_line(&tree.branch)
            ));
        }
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_digits() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
        assert_eq!(thousands(200_000), "200,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
