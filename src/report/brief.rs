//! A task's brief: everything a person or an agent needs to do one task, as
//! Markdown (`wf next`, and the text executors receive on stdin) or as JSON.
//!
//! The brief is self-contained: the requirement, the files, the steps and their
//! checks, the commands that will verify the work, and the workflow's hard
//! constraints, so an executor needs no other file to know what "done" means.
//!
//! It also carries the plan's context around the task, which the plan's format reads
//! from the plan the workflow was imported from (`plan_file`, `plan::Context`): for a
//! spec-kit plan, its phase's `**Goal**` / `**Independent Test**` / `**Checkpoint**`
//! lines and the spec folder; for an OpenSpec change, its proposal and spec deltas;
//! and the task's user story, the workflow's design document and the task's design
//! references. A plan that is gone just leaves the context out.

use serde_json::{json, Value};

use super::workflow_name;
use crate::plan::{Context, Format};
use crate::proof::derive::ConfigCheck;
use crate::state::model::{Task, WorkflowState};

/// The brief as Markdown; `checks` the project's `wf.checks`, for what wf will
/// check of a task with no command of its own.
pub fn brief(state: &WorkflowState, task: &Task, checks: &[ConfigCheck]) -> String {
    let mut md = String::new();
    md.push_str(&format!(
        "# {}: {}\n\n",
        inline(&task.id),
        inline(&task.name)
    ));
    facts(&mut md, state, task);
    section(&mut md, "Requirement", task.requirement.as_deref());
    section(&mut md, "Acceptance", task.acceptance.as_deref());
    files(&mut md, task);
    list(&mut md, "Design references", &task.design_refs);
    plan_context(&mut md, state, task);
    section(&mut md, "Reuse", task.reuse.as_deref());
    steps(&mut md, task);
    verify(&mut md, task, checks);
    hard_constraints(&mut md, state);
    extra_fields(&mut md, task);
    md.truncate(md.trim_end().len());
    md.push('\n');
    // Plan text reaches a terminal, an agent's context and an executor's stdin
    // through the brief: none of its control characters drives any of them.
    crate::escape::controls(&md, crate::escape::Lines::Keep).into_owned()
}

/// The brief as JSON: the task as stored, the hard constraints, and the Markdown.
pub fn brief_json(state: &WorkflowState, task: &Task, checks: &[ConfigCheck]) -> Value {
    json!({
        "workflow": workflow_name(state),
        "workflow_status": state.status,
        "task": task,
        "check_commands": task.check_commands().collect::<Vec<_>>(),
        "derived_checks": super::checks::derived_lines(task, checks),
        "hard_constraints": state.constraints.hard,
        "markdown": brief(state, task, checks),
    })
}

fn facts(md: &mut String, state: &WorkflowState, task: &Task) {
    let mut line = |k: &str, v: &str| {
        if !v.is_empty() {
            md.push_str(&format!("- **{k}**: {}\n", inline(v)));
        }
    };
    line("Workflow", workflow_name(state));
    line("Phase", &task.phase);
    line("Status", task.status.as_str());
    line("Depends on", &task.deps.join(", "));
    line("Blocked by", &task.blocked_by.join(", "));
    line("Actions", &task.actions.join(", "));
    if task.quality_gate {
        let threshold = task.threshold.unwrap_or(80);
        line("Quality gate", &format!("yes (threshold {threshold})"));
    }
    if let Some(n) = state.retry_counts.get(&task.id) {
        line("Retries so far", &n.to_string());
    }
    if let Some(r) = task.failure_reason.as_deref() {
        line("Last failure", r);
    }
    md.push('\n');
}

fn plan_context(md: &mut String, state: &WorkflowState, task: &Task) {
    let mut lines = Vec::new();
    if let Some(story) = task.story.as_deref() {
        lines.push(format!("- **User story**: {}", inline(story)));
    }
    let plan = state
        .plan_file
        .as_deref()
        .map(std::path::Path::new)
        .filter(|p| p.is_absolute());
    let format = state.plan_format.as_deref().and_then(Format::named);
    let context = match (format, plan) {
        (Some(format), Some(plan)) => format.context(plan, task),
        _ => Context::default(),
    };
    for (key, value) in &context.lines {
        lines.push(format!("- **{}**: {}", inline(key), inline(value)));
    }
    if let Some((label, dir, present)) = &context.folder {
        let mut line = format!("- **{label}**: {}", code_span(&dir.display().to_string()));
        if !present.is_empty() {
            line.push_str(&format!(" — {}", present.join(", ")));
        }
        lines.push(line);
    }
    if let Some(design) = state.tech_design.as_deref() {
        lines.push(format!("- **Design document**: {}", code_span(design)));
    }
    block(md, "Plan context", lines);
    for (title, body) in &context.documents {
        let fence = fence_for(body);
        md.push_str(&format!(
            "## {}\n\n{fence}markdown\n{}\n{fence}\n\n",
            inline(title),
            body.trim_end()
        ));
    }
}

fn section(md: &mut String, title: &str, body: Option<&str>) {
    if let Some(body) = body.map(str::trim).filter(|b| !b.is_empty()) {
        md.push_str(&format!("## {title}\n\n{body}\n\n"));
    }
}

/// A section of `lines`, one to a line; nothing when there are none.
fn block(md: &mut String, title: &str, lines: Vec<String>) {
    if lines.is_empty() {
        return;
    }
    md.push_str(&format!("## {title}\n\n"));
    for line in lines {
        md.push_str(&line);
        md.push('\n');
    }
    md.push('\n');
}

fn list(md: &mut String, title: &str, items: &[String]) {
    block(
        md,
        title,
        items.iter().map(|i| format!("- {}", inline(i))).collect(),
    );
}

fn files(md: &mut String, task: &Task) {
    let groups: [(&str, Vec<&String>); 4] = [
        ("File", task.file.iter().collect()),
        ("Create", task.creates.iter().collect()),
        ("Modify", task.modifies.iter().collect()),
        ("Test", task.tests.iter().collect()),
    ];
    let lines = groups
        .into_iter()
        .flat_map(|(kind, paths)| {
            paths
                .into_iter()
                .map(move |p| format!("- {kind}: {}", code_span(p)))
        })
        .collect();
    block(md, "Files", lines);
}

fn steps(md: &mut String, task: &Task) {
    let lines = task.steps.iter().enumerate().map(|(i, s)| {
        let mut line = format!("{}. **{}**: {}", i + 1, inline(&s.id), inline(&s.action));
        if let Some(out) = s.output.as_deref() {
            line.push_str(&format!(" → {}", inline(out)));
        }
        match (s.check_cmd.as_deref(), s.check.as_deref()) {
            (Some(cmd), _) => line.push_str(&format!("\n   - Check: {}", code_span(cmd))),
            (None, Some(check)) => line.push_str(&format!("\n   - Check: {}", inline(check))),
            (None, None) => {}
        }
        line
    });
    block(md, "Steps", lines.collect());
}

fn verify(md: &mut String, task: &Task, checks: &[ConfigCheck]) {
    let cmds: Vec<&str> = task.check_commands().collect();
    if cmds.is_empty() && task.expect.is_none() {
        derived(md, task, checks);
        return;
    }
    md.push_str("## Verify\n\nThe task is done when these commands succeed (run with `sh -c` in the project directory):\n\n");
    if !cmds.is_empty() {
        let body = cmds.join("\n");
        let fence = fence_for(&body);
        md.push_str(&format!("{fence}sh\n{body}\n{fence}\n"));
    }
    if let Some(e) = task.expect.as_deref() {
        md.push_str(&format!("\nExpected: {}\n", inline(e)));
    }
    md.push('\n');
}

/// What wf checks when a task with no command comes back: what its line names
/// (docs/proof.md "Derived checks"), or that nothing does.
fn derived(md: &mut String, task: &Task, checks: &[ConfigCheck]) {
    if !crate::run::work::derivable(task) {
        return;
    }
    let lines = super::checks::derived_lines(task, checks);
    md.push_str("## What wf checks\n\n");
    if lines.is_empty() {
        md.push_str("Nothing: this task has no command and its line names nothing wf can check, so it is accepted on your word (`--require-checks` and `--ci` refuse it).\n\n");
        return;
    }
    md.push_str("This task has no command of its own. When it comes back, wf checks what its line names:\n\n");
    for l in lines {
        md.push_str(&format!("- {l}\n"));
    }
    md.push('\n');
}

fn hard_constraints(md: &mut String, state: &WorkflowState) {
    let lines = state.constraints.hard.iter().map(|c| {
        let mut line = format!(
            "- **{}** ({}): {}",
            inline(&c.id),
            inline(&c.category),
            inline(&c.description)
        );
        if let Some(cmd) = c.verify_cmd.as_deref() {
            line.push_str(&format!(" — verified by {}", code_span(cmd)));
        }
        line
    });
    block(md, "Hard constraints (must hold)", lines.collect());
}

/// Plan fields `wf` does not know, kept so the executor still sees them.
fn extra_fields(md: &mut String, task: &Task) {
    let lines = task.extra.iter().map(|(k, v)| {
        let text = match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        format!("- **{}**: {}", inline(k), inline(&text))
    });
    block(md, "Other plan fields", lines.collect());
}

/// Text for a single Markdown line: line breaks folded so plan text cannot start a
/// heading or a list of its own.
fn inline(s: &str) -> String {
    super::one_line(s.trim())
}

/// `s` as a code span whose delimiter is longer than any backtick run inside it.
fn code_span(s: &str) -> String {
    let s = inline(s);
    let ticks = "`".repeat(longest_backtick_run(&s) + 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{s}{pad}{ticks}")
}

/// A code fence longer than any backtick run in `body`, so the body cannot close it.
fn fence_for(body: &str) -> String {
    "`".repeat((longest_backtick_run(body) + 1).max(3))
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_fences_outlast_backticks() {
        assert_eq!(code_span("a.rs"), "`a.rs`");
        assert_eq!(code_span("a`b"), "``a`b``");
        assert_eq!(code_span("`x`"), "`` `x` ``");
        assert_eq!(fence_for("echo ```"), "````");
        assert_eq!(fence_for("echo"), "```");
    }

    #[test]
    fn hostile_names_cannot_add_headings() {
        let state: WorkflowState =
            serde_json::from_value(json!({"status": "running", "project_name": "p"})).unwrap();
        let task = Task {
            id: "T1".into(),
            name: "x\n# injected".into(),
            ..Task::default()
        };
        let md = brief(&state, &task, &[]);
        assert!(md.starts_with("# T1: x # injected\n"), "{md}");
        assert!(!md.contains("\n# injected"), "{md}");
    }
}
