//! The extra tables of `wf status --detail`: phases, constraints, open questions,
//! success criteria, the audit and the quality gates.

use crate::state::model::Glance;
use std::collections::HashMap;

use comfy_table::{Cell, Color};
use serde_json::Value;

use super::status::colored;
use super::{one_line, truncate};
use crate::output::Look;
use crate::state::machine::TaskStatus;
use crate::state::model::{Constraint, WorkflowState};

/// The extra tables of `wf status --detail`: phases, constraints, audit, gates.
pub fn detail(state: &WorkflowState, look: Look) -> crate::error::Result<String> {
    let c = &state.constraints;
    let mut sections = vec![phases_table(state, look)?, constraints_table(state, look)];
    sections.extend(string_list("Open questions", &c.open_questions, look));
    sections.extend(string_list("Success criteria", &c.success_criteria, look));
    sections.push(audit_table(state, look));
    sections.extend(gates_table(state, look));
    Ok(sections.join("\n\n"))
}

#[derive(Default)]
struct PhaseRow {
    total: usize,
    done: usize,
    failed: usize,
    blocked: usize,
}

fn phases_table(state: &WorkflowState, look: Look) -> crate::error::Result<String> {
    // Phases in the order they first appear, counted in one pass.
    let mut order: Vec<&str> = Vec::new();
    let mut rows: HashMap<&str, PhaseRow> = HashMap::new();
    for t in state.whole_tasks()? {
        let phase = if t.phase.is_empty() { "—" } else { &t.phase };
        let row = rows.entry(phase).or_insert_with(|| {
            order.push(phase);
            PhaseRow::default()
        });
        row.total += 1;
        match t.status() {
            s if s.is_done() => row.done += 1,
            TaskStatus::Failed => row.failed += 1,
            TaskStatus::Blocked => row.blocked += 1,
            _ => {}
        }
    }
    let mut t = super::table::new(look);
    t.set_header(vec!["Phase", "Tasks", "Done", "Failed", "Blocked"]);
    for phase in order {
        if let Some(r) = rows.get(phase) {
            t.add_row(vec![
                one_line(phase),
                r.total.to_string(),
                r.done.to_string(),
                r.failed.to_string(),
                r.blocked.to_string(),
            ]);
        }
    }
    Ok(format!("Tasks per phase\n{t}"))
}

fn constraints_table(state: &WorkflowState, look: Look) -> String {
    let c = &state.constraints;
    if c.hard.is_empty() && c.soft.is_empty() {
        return "Constraints: none".into();
    }
    // The last verification of each constraint: later records win.
    let last: HashMap<&str, _> = c
        .verifications
        .iter()
        .map(|v| (v.constraint_id.as_str(), v))
        .collect();
    let mut t = super::table::new(look);
    t.set_header(vec![
        "Kind",
        "Id",
        "Category",
        "Source",
        "Verified",
        "Verify command",
        "Last check",
        "Description",
    ]);
    let all = c.hard.iter().map(|k| ("hard", k));
    for (kind, k) in all.chain(c.soft.iter().map(|k| ("soft", k))) {
        let check = match last.get(k.id.as_str()) {
            Some(v) => format!(
                "{} {} {}",
                if v.passed { "passed" } else { "FAILED" },
                one_line(&v.checked_at),
                truncate(&one_line(&v.details), 60)
            ),
            None => "—".into(),
        };
        t.add_row(vec![
            Cell::new(kind),
            Cell::new(one_line(&k.id)),
            Cell::new(one_line(&k.category)),
            Cell::new(one_line(&k.source_model)),
            verified_cell(k, look),
            Cell::new(k.verify_cmd.as_deref().map_or("—".into(), one_line)),
            Cell::new(check),
            Cell::new(truncate(&one_line(&k.description), 80)),
        ]);
    }
    format!("Constraints\n{t}")
}

fn verified_cell(k: &Constraint, look: Look) -> Cell {
    match k.verified {
        Some(true) => colored("yes", Color::Green, look.color),
        Some(false) => colored("no", Color::Red, look.color),
        None => Cell::new("—"),
    }
}

fn string_list(title: &str, items: &[String], look: Look) -> Option<String> {
    if items.is_empty() {
        return None;
    }
    let mut t = super::table::new(look);
    t.set_header(vec!["#", title]);
    for (i, item) in items.iter().enumerate() {
        t.add_row(vec![(i + 1).to_string(), one_line(item)]);
    }
    Some(format!("{title}\n{t}"))
}

fn audit_table(state: &WorkflowState, look: Look) -> String {
    let a = &state.zero_decision_audit;
    let headline = format!(
        "Zero-decision audit: {}{}",
        if a.passed { "passed" } else { "FAILED" },
        a.audited_at
            .as_deref()
            .map_or(String::new(), |at| format!(" ({})", one_line(at)))
    );
    if a.anti_patterns.is_empty() {
        return format!("{headline}, no findings");
    }
    let mut t = super::table::new(look);
    t.set_header(vec!["Task", "Severity", "Pattern", "Description"]);
    for f in &a.anti_patterns {
        let sev = one_line(&f.severity);
        let sev_cell = match f.severity.as_str() {
            "error" => colored(&sev, Color::Red, look.color),
            "warning" => colored(&sev, Color::Yellow, look.color),
            _ => Cell::new(sev),
        };
        t.add_row(vec![
            Cell::new(one_line(&f.task_id)),
            sev_cell,
            Cell::new(one_line(&f.pattern)),
            Cell::new(truncate(&one_line(&f.description), 80)),
        ]);
    }
    format!("{headline}\n{t}")
}

fn gates_table(state: &WorkflowState, look: Look) -> Option<String> {
    if state.quality_gates.is_empty() {
        return None;
    }
    let mut t = super::table::new(look);
    t.set_header(vec!["Quality gate", "Result"]);
    for (name, value) in &state.quality_gates {
        t.add_row(vec![one_line(name), truncate(&gate_summary(value), 100)]);
    }
    Some(format!("Quality gates\n{t}"))
}

/// A gate record on one line: `key=value` pairs for an object, the value otherwise.
fn gate_summary(value: &Value) -> String {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}={}", scalar(v)))
            .collect::<Vec<_>>()
            .join(" "),
        other => scalar(other),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => one_line(s),
        other => one_line(&other.to_string()),
    }
}
