//! The task graph as Mermaid (`flowchart TD`) or Graphviz DOT, coloured by status.
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

/// Fill, stroke and text colour per status, shared by both formats.
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
