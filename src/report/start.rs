//! What `workflow-start` says after an import: the phases as a table, what a
//! re-import changed, the blocked tasks, and the audit — its findings on stdout when
//! it passed, and on stderr when it failed (where they are not lost in the summary:
//! `workflow-execute` will refuse).

use std::path::Path;

use crate::output::Look;
use serde_json::{json, Value};

use super::findings::{audit_failure_lines, finding_lines};
use crate::import::Phases;
use crate::plan::classify;
use crate::plan::diff::PlanDiff;
use crate::state::model::Glance;
use crate::state::{TaskStatus, WorkflowState};

/// The next step after an import the audit passed: run it — or, when nothing can
/// start because every open task waits on an external input, lift that first.
fn next_after_import(state: &WorkflowState) -> String {
    // Read through `Glance`: an import reads back only the records it must.
    let done: std::collections::HashSet<&str> = state
        .tasks
        .iter()
        .filter(|t| t.status().is_done())
        .map(Glance::id)
        .collect();
    let startable = state
        .tasks
        .iter()
        .any(|t| t.status() == TaskStatus::Pending && t.deps().all(|d| done.contains(d)));
    if startable || done.len() == state.tasks.len() {
        return "\nNext: `wf workflow-execute`.".into();
    }
    let mut kinds: Vec<&str> = state
        .tasks
        .iter()
        .filter(|t| t.status() == TaskStatus::Blocked)
        .flat_map(|t| t.blocked_by())
        .collect();
    kinds.sort_unstable();
    kinds.dedup();
    let lift = match kinds.as_slice() {
        [one] => *one,
        _ => "KIND",
    };
    format!(
        "\nNext: no task can start, every one waits on {}; once it is there, `wf workflow-unblock {lift}` lifts it.",
        kinds.join(", ")
    )
}

/// A line for each blocked task (ten at most, then a count) with what it waits on
/// and why — the word or file the classifier matched, or the plan's field — and,
/// when the classifier blocked one, how a task that waits on nothing opts out.
fn blocked_lines<'a>(
    state: &WorkflowState,
    ids: impl Iterator<Item = &'a str>,
    rules: &classify::Rules,
) -> crate::error::Result<String> {
    const SHOWN: usize = 10;
    let (mut text, mut more, mut classified) = (String::new(), 0, false);
    for (i, id) in ids.enumerate() {
        if i >= SHOWN {
            more += 1;
            continue;
        }
        let Some(task) = state.task(id)? else {
            continue;
        };
        let (_, reasons) = super::findings::blocked_why(task, rules);
        classified |= reasons
            .iter()
            .any(|r| !r.ends_with("(its Blocked by field)"));
        text.push_str(&format!("\nBlocked: {id} waits on {}", reasons.join(", ")));
    }
    if more > 0 {
        text.push_str(&format!(
            "\nBlocked: {more} more {}",
            super::plural(more, "task", "tasks")
        ));
    }
    if classified {
        let writes_fields = state
            .plan_format
            .as_deref()
            .and_then(crate::plan::Format::named)
            .is_some_and(crate::plan::Format::writes_fields);
        text.push_str(&format!(
            "\n  wf read that from the names and files; if a task waits on nothing, {}.",
            if writes_fields {
                super::findings::OPT_OUT
            } else {
                "leave its format out of wf.classify.formats"
            }
        ));
    }
    Ok(text)
}

/// The summary of an import: JSON, the text for stdout, and lines for stderr.
pub struct Summary {
    pub json: Value,
    pub text: String,
    pub stderr: Vec<String>,
}

/// `change`: a re-import's change id and diff, none for a fresh import. `phases`: the
/// state's tasks counted ([`Phases::of`], or as an import made them).
pub fn summary(
    state: &WorkflowState,
    (phases, checks): (&Phases, &crate::proof::derive::Counts),
    change: Option<(&str, &PlanDiff)>,
    plan_path: &Path,
    (rules, look): (&classify::Rules, Look),
) -> crate::error::Result<Summary> {
    let phases = phases.rows();
    // By what the task index holds of each task: a fresh import's tasks are not read.
    let blocked_tasks = || {
        state
            .tasks
            .iter()
            .filter(|t| t.status() == TaskStatus::Blocked)
    };
    let blocked: Vec<Value> = blocked_tasks()
        .map(|t| json!({"id": t.id(), "blocked_by": t.blocked_by()}))
        .collect();
    let audit = &state.zero_decision_audit;
    let errors = audit
        .anti_patterns
        .iter()
        .filter(|f| f.severity == "error")
        .count();
    let warnings = audit.anti_patterns.len() - errors;
    let json = json!({
        "changed": true,
        "workflow": state.task_name,
        "status": state.status,
        "format": state.plan_format,
        "tasks_file": state.tasks_file,
        "tasks": state.tasks.len(),
        "mode": state.mode,
        "phases": phases.iter().map(|(p, n, d, b)| json!({"phase": p, "tasks": n, "done": d, "blocked": b})).collect::<Vec<_>>(),
        "blocked": blocked,
        "audit": {"passed": audit.passed, "errors": errors, "warnings": warnings, "findings": audit.anti_patterns},
        "checks": checks,
        "change": change.map(|(id, _)| id),
        "diff": change.map(|(_, diff)| diff),
    });
    let mut table = super::table::new(look);
    table.set_header(vec!["phase", "tasks", "done", "blocked"]);
    for (p, n, d, b) in phases {
        table.add_row(vec![
            super::one_line(p),
            n.to_string(),
            d.to_string(),
            b.to_string(),
        ]);
    }
    let mut text = format!(
        "Planned `{}`: {} {} ({}).\n{table}",
        super::one_line(state.task_name.as_deref().unwrap_or("")),
        state.tasks.len(),
        super::plural(state.tasks.len(), "task", "tasks"),
        state.plan_format.as_deref().unwrap_or("?"),
    );
    if let Some((id, diff)) = change {
        text.push_str(&format!(
            "\nRe-imported as {id}: added {}, modified {}, removed {}, unchanged {}.",
            list_or_none(&diff.added),
            list_or_none(&diff.modified),
            list_or_none(&diff.removed),
            diff.unchanged.len()
        ));
    }
    text.push_str(&blocked_lines(
        state,
        blocked_tasks().map(Glance::id),
        rules,
    )?);
    let mut checks_line = super::findings::checks_line(checks);
    checks_line[..1].make_ascii_uppercase();
    text.push_str(&format!("\n{checks_line}."));
    text.push_str(&format!(
        "\nAudit: {} ({errors} {}, {warnings} {}).",
        if audit.passed { "passed" } else { "FAILED" },
        super::plural(errors, "error", "errors"),
        super::plural(warnings, "warning", "warnings"),
    ));
    let mut stderr = Vec::new();
    if audit.passed {
        for line in finding_lines(plan_path, audit) {
            text.push_str(&format!("\n  {line}"));
        }
        text.push_str(&next_after_import(state));
    } else {
        // The findings start with their file:line, as a compiler's do.
        for (i, line) in audit_failure_lines(plan_path, audit)
            .into_iter()
            .enumerate()
        {
            stderr.push(if i == 0 { format!("wf: {line}") } else { line });
        }
        text.push_str(
            "\nNext: settle the audit errors in the plan and import it again, or run `wf workflow-execute --allow-audit-errors`.",
        );
    }
    Ok(Summary { json, text, stderr })
}

/// `a, b, c`, or `none`.
pub fn list_or_none(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}
