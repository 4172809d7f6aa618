//! The task graph as text for a terminal (the tasks by level, each with what it waits
//! for), or as Mermaid (`flowchart TD`) or Graphviz DOT, coloured by status.
//!
//! Nodes are named by position (`t0`, `t1`, …), never by the plan's ids, so no id can
//! break the syntax; the id and a short name go in an escaped label. Edges run from
//! each dependency to the task that waits for it; a dependency the state does not
//! know is left out rather than drawn as a node the plan never declared.

use crate::state::model::Glance;
use std::collections::HashMap;

use super::{one_line, truncate};
use crate::state::machine::TaskStatus;
use crate::state::model::WorkflowState;

/// How long a name may be in a node label.
const LABEL_NAME_MAX: usize = 40;

/// Fill and stroke colour per status, shared by both formats.
fn colors(status: TaskStatus) -> (&'static str, &'static str) {
    match status {
        TaskStatus::Completed => ("#d4edda", "#28a745"),
        TaskStatus::Skipped => ("#e2e3e5", "#6c757d"),
        TaskStatus::Failed => ("#f8d7da", "#dc3545"),
        TaskStatus::Blocked => ("#fff3cd", "#ffc107"),
        TaskStatus::InProgress => ("#cce5ff", "#007bff"),
        TaskStatus::Pending => ("#ffffff", "#999999"),
    }
}

/// `(from, to)` task indices, dependency first, in document order.
fn edges(state: &WorkflowState) -> Vec<(usize, usize)> {
    let index: HashMap<&str, usize> = state
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id(), i))
        .collect();
    let mut out = Vec::new();
    for (i, t) in state.tasks.iter().enumerate() {
        for d in t.deps() {
            if let Some(&j) = index.get(d) {
                out.push((j, i));
            }
        }
    }
    out
}

fn label(id: &str, name: &str) -> String {
    one_line(&format!("{id}: {}", truncate(name.trim(), LABEL_NAME_MAX)))
}

/// The graph as a Mermaid flowchart.
pub fn mermaid(state: &WorkflowState) -> crate::error::Result<String> {
    let mut out = String::from("flowchart TD\n");
    for (i, t) in state.whole_tasks()?.into_iter().enumerate() {
        out.push_str(&format!(
            "    t{i}[\"{}\"]\n",
            mermaid_escape(&label(&t.id, &t.name))
        ));
    }
    for (from, to) in edges(state) {
        out.push_str(&format!("    t{from} --> t{to}\n"));
    }
    for status in TaskStatus::ALL {
        let (fill, stroke) = colors(status);
        out.push_str(&format!(
            "    classDef {} fill:{fill},stroke:{stroke},color:#000\n",
            status.as_str()
        ));
    }
    for status in TaskStatus::ALL {
        let nodes: Vec<String> = state
            .tasks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.status() == status)
            .map(|(i, _)| format!("t{i}"))
            .collect();
        if !nodes.is_empty() {
            out.push_str(&format!(
                "    class {} {}\n",
                nodes.join(","),
                status.as_str()
            ));
        }
    }
    Ok(out)
}

/// The graph as Graphviz DOT.
pub fn dot(state: &WorkflowState) -> crate::error::Result<String> {
    let mut out = String::from(
        "digraph wf {\n    rankdir=TB;\n    node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n",
    );
    for (i, t) in state.whole_tasks()?.into_iter().enumerate() {
        let (fill, stroke) = colors(t.status);
        out.push_str(&format!(
            "    t{i} [label=\"{}\", fillcolor=\"{fill}\", color=\"{stroke}\", tooltip=\"{}\"];\n",
            dot_escape(&label(&t.id, &t.name)),
            t.status
        ));
    }
    for (from, to) in edges(state) {
        out.push_str(&format!("    t{from} -> t{to};\n"));
    }
    out.push_str("}\n");
    Ok(out)
}

/// The graph for a terminal: the tasks by level (a task sits one level below the
/// deepest task it waits for), in plan order within a level, each with its status
/// mark and what it waits for, cut to `width` columns.
pub fn text(state: &WorkflowState, width: usize) -> crate::error::Result<String> {
    let tasks = state.whole_tasks()?;
    let levels = levels(tasks.len(), &edges(state));
    let deepest = levels.iter().copied().max().unwrap_or(0);
    let mut out = String::new();
    for level in 0..=deepest {
        out.push_str(&format!("Level {}\n", level + 1));
        for (t, _) in tasks.iter().zip(&levels).filter(|(_, l)| **l == level) {
            let waits = if t.deps.is_empty() {
                String::new()
            } else {
                format!("  ← {}", one_line(&t.deps.join(", ")))
            };
            let head = format!("  {} {}  ", mark(t.status), one_line(&t.id));
            let room = width.saturating_sub(head.chars().count() + waits.chars().count());
            let name = truncate(&one_line(t.name.trim()), room.max(12));
            let line = truncate(&format!("{head}{name}{waits}"), width);
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str("\n✓ completed  ✗ failed  ▶ in progress  · pending  ⊘ blocked  ↷ skipped\n");
    out.push_str("As a picture: `wf graph --format mermaid` or `--format dot`.\n");
    Ok(out)
}

fn mark(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Completed => "✓",
        TaskStatus::Failed => "✗",
        TaskStatus::InProgress => "▶",
        TaskStatus::Pending => "·",
        TaskStatus::Blocked => "⊘",
        TaskStatus::Skipped => "↷",
    }
}

/// Each task's level: 0 for a task that waits for none, else one more than the
/// deepest of those it waits for (Kahn's order, so a long chain needs no deep
/// recursion). A task on a cycle, which an import refuses, goes below the rest.
fn levels(count: usize, edges: &[(usize, usize)]) -> Vec<usize> {
    let mut waits_for = vec![0usize; count];
    let mut waited_by = vec![Vec::new(); count];
    for &(from, to) in edges {
        waits_for[to] += 1;
        waited_by[from].push(to);
    }
    let mut level = vec![0usize; count];
    let mut ready: Vec<usize> = (0..count).filter(|&i| waits_for[i] == 0).collect();
    let mut placed = vec![false; count];
    while let Some(i) = ready.pop() {
        placed[i] = true;
        for &next in &waited_by[i] {
            level[next] = level[next].max(level[i] + 1);
            waits_for[next] -= 1;
            if waits_for[next] == 0 {
                ready.push(next);
            }
        }
    }
    let below = level.iter().copied().max().unwrap_or(0) + 1;
    for (i, done) in placed.iter().enumerate() {
        if !done {
            level[i] = below;
        }
    }
    level
}

/// Text safe inside a Mermaid `["…"]` label: quotes, brackets, angle brackets,
/// backticks, `#` and `&` become Mermaid entity codes (`#quot;`, `#91;`, …), so
/// nothing closes the label, starts markdown or is read as HTML.
pub fn mermaid_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '#' | '[' | ']' | '(' | ')' | '{' | '}' | '<' | '>' | '`' | '|' | '&' | ';' | '\\' => {
                out.push_str(&format!("#{};", c as u32));
            }
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// Text safe inside a DOT double-quoted string: `\` and `"` escaped, so neither
/// Graphviz's escapes (`\N`, `\l`) nor a stray quote take effect; line breaks become
/// spaces.
pub fn dot_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOSTILE: &str = "a\"]; click t0 \"javascript:x\" <script>`x`\n[y]{z}|w#1;&\\";

    #[test]
    fn a_task_sits_one_level_below_the_deepest_it_waits_for() {
        // 0 → 1 → 3, 0 → 2 → 3, and 4 alone; the edge 3 → 1 would close a cycle.
        assert_eq!(
            super::levels(5, &[(0, 1), (1, 3), (0, 2), (2, 3)]),
            [0, 1, 1, 2, 0]
        );
        assert_eq!(super::levels(3, &[(0, 1), (1, 2), (2, 1)]), [0, 2, 2]);
    }

    #[test]
    fn mermaid_escape_leaves_no_syntax() {
        let e = mermaid_escape(HOSTILE);
        for bad in ['"', '[', ']', '<', '>', '`', '\n', '{', '}', '|', '\\'] {
            assert!(!e.contains(bad), "{bad:?} in {e}");
        }
        // Every `#` and `;` left is part of an entity code.
        assert!(e.starts_with("a#quot;#93;#59; click"), "{e}");
    }

    #[test]
    fn dot_escape_keeps_the_string_closed() {
        let e = dot_escape(HOSTILE);
        assert!(!e.contains('\n'));
        // Every quote is preceded by a backslash that is not itself escaped.
        let bytes = e.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if b == b'"' {
                let slashes = bytes[..i].iter().rev().take_while(|&&c| c == b'\\').count();
                assert_eq!(slashes % 2, 1, "unescaped quote at {i} in {e}");
            }
        }
        assert!(e.ends_with("&\\\\"), "{e}");
    }
}
