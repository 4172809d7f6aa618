//! The Markdown job summary for `$GITHUB_STEP_SUMMARY`: a headline, the progress,
//! and a table of tasks. Table and HTML syntax is escaped so plan text cannot reshape
//! the table.

use crate::report::{one_line, status_emoji, truncate, workflow_name, Counts};
use crate::state::machine::TaskStatus;
use crate::state::model::WorkflowState;

/// The job summary: headline, progress, and a table of tasks.
pub fn step_summary(state: &WorkflowState) -> String {
    let c = Counts::of(&state.tasks);
    let mut md = format!(
        "## wf: {} — {} {}\n\n",
        cell(workflow_name(state)),
        headline_emoji(state),
        state.status
    );
    md.push_str(&format!(
        "**Progress:** {}/{} tasks done ({}%) · {} completed · {} skipped · {} failed · {} blocked · {} in progress · {} pending\n\n",
        c.done(), c.total, c.percent, c.completed, c.skipped, c.failed, c.blocked, c.in_progress, c.pending
    ));
    if let Some(reason) = state.failure_reason.as_deref().filter(|r| !r.is_empty()) {
        md.push_str(&format!("**Failure:** {}\n\n", cell(reason)));
    }
    if state.tasks.is_empty() {
        md.push_str("_No tasks._\n");
        return md;
    }
    md.push_str("| | Task | Phase | Status | Reason |\n|---|---|---|---|---|\n");
    for t in &state.tasks {
        md.push_str(&format!(
            "| {} | {} | {} | {} | {} |\n",
            status_emoji(t.status),
            cell(&format!("{}: {}", t.id, truncate(&t.name, 80))),
            cell(&t.phase),
            t.status,
            cell(&reason(state, t))
        ));
    }
    md
}

fn headline_emoji(state: &WorkflowState) -> &'static str {
    use crate::state::machine::WorkflowStatus as W;
    match state.status {
        W::Completed | W::Archived => "✅",
        W::Failed => "❌",
        W::Blocked => "🚧",
        W::Paused => "⏸",
        _ => "⏳",
    }
}

fn reason(state: &WorkflowState, t: &crate::state::model::Task) -> String {
    match t.status {
        TaskStatus::Failed => t.failure_reason.clone().unwrap_or_default(),
        TaskStatus::Blocked => t.blocked_by.join(", "),
        TaskStatus::Skipped => match state.skipped_info.get(&t.id) {
            Some(serde_json::Value::String(s)) => s.clone(),
            Some(v) => v
                .get("reason")
                .and_then(|r| r.as_str())
                .unwrap_or_default()
                .to_string(),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// Text for one Markdown table cell: one line, `|` escaped, HTML neutralised.
pub fn cell(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in one_line(s).trim().chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_cells_cannot_break_the_table() {
        assert_eq!(cell("a|b\n<img src=x>&"), "a\\|b &lt;img src=x&gt;&amp;");
    }
}
