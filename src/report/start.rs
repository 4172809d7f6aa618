//! What `workflow-start` says after an import: the phases as a table, what a
//! re-import changed, the blocked tasks, and the audit — its findings on stdout when
//! it passed, and on stderr when it failed (where they are not lost in the summary:
//! `workflow-execute` will refuse).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use crate::output::Look;
use serde_json::{json, Value};

use super::findings::{audit_failure_lines, finding_lines};
use crate::plan::diff::PlanDiff;
use crate::state::{TaskStatus, WorkflowState};

/// The summary of an import: JSON, the text for stdout, and lines for stderr.
pub struct Summary {
    pub json: Value,
    pub text: String,
    pub stderr: Vec<String>,
}

/// `change`: a re-import's change id and diff, none for a fresh import.
pub fn summary(
    state: &WorkflowState,
    change: Option<(&str, &PlanDiff)>,
    plan_path: &Path,
    look: Look,
) -> Summary {
    let phases = phase_counts(state);
    let blocked: Vec<Value> = state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Blocked)
        .map(|t| json!({"id": t.id, "blocked_by": t.blocked_by}))
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
        "change": change.map(|(id, _)| id),
        "diff": change.map(|(_, diff)| diff),
    });
    let mut table = super::table::new(look);
    table.set_header(vec!["phase", "tasks", "done", "blocked"]);
    for (p, n, d, b) in &phases {
        table.add_row(vec![p.clone(), n.to_string(), d.to_string(), b.to_string()]);
    }
    let mut text = format!(
        "Planned `{}`: {} tasks ({}), mode {}.\n{table}",
        state.task_name.as_deref().unwrap_or(""),
        state.tasks.len(),
        state.plan_format.as_deref().unwrap_or("?"),
        state.mode,
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
    for t in state
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::Blocked)
    {
        text.push_str(&format!(
            "\nBlocked: {} waits on {}",
            t.id,
            t.blocked_by.join(", ")
        ));
    }
    text.push_str(&format!(
        "\nAudit: {} ({errors} errors, {warnings} warnings).",
        if audit.passed { "passed" } else { "FAILED" }
    ));
    let mut stderr = Vec::new();
    if audit.passed {
        for line in finding_lines(plan_path, audit) {
            text.push_str(&format!("\n  {line}"));
        }
        text.push_str("\nNext: `wf workflow-execute`.");
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
    Summary { json, text, stderr }
}

/// Per phase, in plan order: name, tasks, done, blocked.
fn phase_counts(state: &WorkflowState) -> Vec<(String, usize, usize, usize)> {
    let mut phases: BTreeMap<usize, (String, usize, usize, usize)> = BTreeMap::new();
    let mut order: HashMap<&str, usize> = HashMap::new();
    for t in &state.tasks {
        let n = order.len();
        let idx = *order.entry(t.phase.as_str()).or_insert(n);
        let e = phases
            .entry(idx)
            .or_insert_with(|| (t.phase.clone(), 0, 0, 0));
        e.1 += 1;
        if t.status.is_done() {
            e.2 += 1;
        }
        if t.status == TaskStatus::Blocked {
            e.3 += 1;
        }
    }
    phases.into_values().collect()
}

/// `a, b, c`, or `none`.
pub fn list_or_none(ids: &[String]) -> String {
    if ids.is_empty() {
        "none".into()
    } else {
        ids.join(", ")
    }
}
