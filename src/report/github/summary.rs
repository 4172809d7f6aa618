//! The Markdown job summary for `$GITHUB_STEP_SUMMARY`: a headline, the progress,
//! what the agents used (when they said), and a table of tasks. Table, HTML and
//! Markdown syntax is escaped so plan text can neither reshape the table nor add
//! markup (emphasis, links, headings). A task accepted with nothing to check it
//! reads as unchecked (❔), never as passed.

use crate::report::{one_line, status_emoji, truncate, workflow_name, Counts};
use crate::state::machine::TaskStatus;
use crate::state::model::WorkflowState;
use crate::state::summary::Digest;

/// The job summary: headline, progress, and a table of tasks.
pub fn step_summary(state: &WorkflowState) -> crate::error::Result<String> {
    let c = Counts::of(&state.tasks);
    let mut md = format!(
        "## wf: {} — {} {}\n\n",
        cell(workflow_name(state)),
        headline_emoji(state),
        state.status
    );
    let tasks = state.whole_tasks()?;
    let unchecked = tasks.iter().filter(|t| is_unchecked(t)).count();
    let unchecked = if unchecked > 0 {
        format!(" ({unchecked} unchecked)")
    } else {
        String::new()
    };
    md.push_str(&format!(
        "**Progress:** {}/{} tasks done ({}%) · {} completed{unchecked} · {} skipped · {} failed · {} blocked · {} in progress · {} pending\n\n",
        c.done(), c.total, c.percent, c.completed, c.skipped, c.failed, c.blocked, c.in_progress, c.pending
    ));
    if let Some(used) = crate::report::status::usage_text(&Digest::of(state)) {
        md.push_str(&format!("**Usage:** {}\n\n", cell(&used)));
    }
    if let Some(reason) = state.failure_reason.as_deref().filter(|r| !r.is_empty()) {
        md.push_str(&format!("**Failure:** {}\n\n", cell(reason)));
    }
    if state.tasks.is_empty() {
        md.push_str("_No tasks._\n");
        return Ok(md);
    }
    md.push_str("| | Task | Phase | Status | Reason |\n|---|---|---|---|---|\n");
    for t in tasks {
        let (mark, status) = if is_unchecked(t) {
            ("❔", "unchecked".to_string())
        } else {
            (status_emoji(t.status), t.status.to_string())
        };
        md.push_str(&format!(
            "| {mark} | {} | {} | {status} | {} |\n",
            cell(&format!("{}: {}", t.id, truncate(&t.name, 80))),
            cell(&t.phase),
            cell(&reason(state, t))
        ));
    }
    Ok(md)
}

/// A task completed with nothing that checked it ("accepted unchecked").
fn is_unchecked(t: &crate::state::model::Task) -> bool {
    t.status == TaskStatus::Completed && t.accepted_unchecked
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
        TaskStatus::Skipped => crate::report::skip_reason(state, &t.id).into(),
        TaskStatus::Completed if t.accepted_unchecked => {
            "accepted unchecked: nothing checked it".into()
        }
        _ => String::new(),
    }
}

/// Text for one Markdown table cell that both stays in its cell and renders as
/// written: one line; a backticked span becomes `<code>…</code>`, since inside a
/// Markdown code span GitHub shows entities such as `&gt;` literally while inside
/// `<code>` it decodes them; `&`, `<`, `>` are entities everywhere and `|` is
/// `&#124;`, so no raw `|` is left to end the cell (GitHub splits a table row before
/// it reads entities) and no raw `<` to open HTML. A backtick left unmatched is
/// shown as one.
pub fn cell(s: &str) -> String {
    let text = one_line(s);
    let parts: Vec<&str> = text.trim().split('`').collect();
    let mut out = String::with_capacity(text.len());
    for (i, part) in parts.iter().enumerate() {
        let closed = i + 1 < parts.len();
        match (i % 2 == 1, closed) {
            (false, _) => out.push_str(&entities(part, TEXT)),
            (true, true) if part.is_empty() => {}
            (true, true) => {
                out.push_str("<code>");
                out.push_str(&entities(part, CODE));
                out.push_str("</code>");
            }
            (true, false) => {
                out.push_str("&#96;");
                out.push_str(&entities(part, TEXT));
            }
        }
    }
    out
}

/// What is written as an entity outside code: HTML's three, the cell's `|`, `\` (a
/// backslash would escape the `&` of the entity after it), and what Markdown reads
/// as markup — emphasis, strike-through, links, a heading's or list's first mark —
/// since a reference to a character is never markup (CommonMark 6.2).
const TEXT: &[char] = &['&', '<', '>', '|', '\\', '*', '_', '[', ']', '~', '#', '!'];
/// Inside `<code>` Markdown still applies, so its emphasis, link and escape
/// characters are entities too: the command reads exactly as written.
const CODE: &[char] = &['&', '<', '>', '|', '\\', '*', '_', '[', ']', '~', '`'];

fn entities(s: &str, which: &[char]) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c if which.contains(&c) => out.push_str(&format!("&#{};", u32::from(c))),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_cells_cannot_break_the_table_and_render_as_written() {
        let rows = [
            ("a|b\n<img src=x>&", "a&#124;b &lt;img src=x&gt;&amp;"),
            (
                "verify `test $(wc -l < f) -gt 2 | grep *x*` exited",
                "verify <code>test $(wc -l &lt; f) -gt 2 &#124; grep &#42;x&#42;</code> exited",
            ),
            ("a `b` c `d", "a <code>b</code> c &#96;d"),
            ("``", ""),
            (
                "x\\|y `a\\_[b]~`",
                "x&#92;&#124;y <code>a&#92;&#95;&#91;b&#93;&#126;</code>",
            ),
        ];
        for (text, want) in rows {
            assert_eq!(cell(text), want, "{text}");
            assert!(!cell(text).contains('|'), "{text}");
        }
    }
}
