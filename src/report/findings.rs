//! The findings `wf check` lists and `workflow-start` shows after an import: plan
//! lines not read as written, audit findings, ambiguities in the plan's constraints,
//! and tasks that would start blocked — each as `file:line: severity: message`.
//!
//! Severities: `error` (the audit fails, so `workflow-execute` would refuse the plan),
//! `warning` (a plan line not read as written, an audit warning) and `note` (a task
//! that would start blocked on an external input, an ambiguity in the plan's
//! constraints).

use std::path::Path;

use serde::Serialize;
use serde_json::Value;

use super::plural;
use crate::plan::{classify, Plan};
use crate::state::model::{Task, ZeroDecisionAudit};
use crate::state::TaskStatus;

#[derive(Debug, Clone, Serialize)]
pub(crate) struct Finding {
    pub file: String,
    pub line: usize,
    pub severity: &'static str,
    /// `plan`, `audit`, `classification`, `ambiguity` or (`--for-ci`) `ci`.
    pub kind: &'static str,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
}

impl Finding {
    /// `file:line: severity: message`.
    pub(crate) fn line_text(&self) -> String {
        format!(
            "{}:{}: {}: {}",
            self.file, self.line, self.severity, self.message
        )
    }
}

/// Every finding on `plan`, in line order (at one line, errors before warnings before
/// notes).
pub(crate) fn all(
    file: &str,
    plan: &Plan,
    audit: &ZeroDecisionAudit,
    rules: &classify::Rules,
) -> Vec<Finding> {
    let mut findings = plan_findings(file, plan);
    findings.extend(audit_findings(file, audit));
    findings.extend(ambiguity_findings(file, plan, audit));
    findings.extend(classification_findings(file, plan, rules));
    findings.sort_by_key(|f| (f.line, rank(f.severity)));
    findings
}

fn rank(severity: &str) -> u8 {
    match severity {
        "error" => 0,
        "warning" => 1,
        _ => 2,
    }
}

/// Lines the parser did not read as written.
fn plan_findings(file: &str, plan: &Plan) -> Vec<Finding> {
    plan.warnings
        .iter()
        .map(|w| Finding {
            file: file.to_string(),
            line: w.line,
            severity: "warning",
            kind: "plan",
            message: w.message.clone(),
            task: None,
            pattern: None,
        })
        .collect()
}

/// The audit's findings, each at its line.
pub(crate) fn audit_findings(file: &str, audit: &ZeroDecisionAudit) -> Vec<Finding> {
    audit
        .anti_patterns
        .iter()
        .map(|f| Finding {
            file: file.to_string(),
            line: f.line.unwrap_or(1),
            severity: if f.severity == "error" {
                "error"
            } else {
                "warning"
            },
            kind: "audit",
            message: format!("{}: {}", f.task_id, f.description),
            task: Some(f.task_id.clone()),
            pattern: Some(f.pattern.clone()),
        })
        .collect()
}

/// What the audit found in the plan's constraints and placeholder task lines: open
/// questions to settle, not refusals.
fn ambiguity_findings(file: &str, plan: &Plan, audit: &ZeroDecisionAudit) -> Vec<Finding> {
    let line_of = |v: &Value| -> usize {
        v["line"].as_u64().map_or_else(
            || {
                let id = v["taskId"].as_str().unwrap_or("");
                plan.tasks.iter().find(|t| t.id == id).map_or(1, |t| t.line)
            },
            |l| usize::try_from(l).unwrap_or(1),
        )
    };
    audit
        .remaining_ambiguities
        .iter()
        .map(|v| {
            let pattern = v["pattern"].as_str().unwrap_or("").to_string();
            let text = v["text"].as_str().unwrap_or("");
            let message = if pattern == "placeholder task id" {
                format!("placeholder task line, not imported: {text}")
            } else {
                let owner = match (v["taskId"].as_str(), v["field"].as_str()) {
                    (Some(id), Some(field)) => format!("{id} {field}"),
                    _ => "constraint".to_string(),
                };
                format!("{owner} is ambiguous ({pattern}): {text}")
            };
            Finding {
                file: file.to_string(),
                line: line_of(v),
                severity: "note",
                kind: "ambiguity",
                message,
                task: v["taskId"].as_str().map(str::to_string),
                pattern: Some(pattern),
            }
        })
        .collect()
}

/// How a task of a claude-workflow plan says it waits on nothing, whatever its name.
pub(crate) const OPT_OUT: &str = "write `- **Blocked by**: none` in the task";

/// The blocker kinds `task` waits on, and for each why: the word (or file) the
/// classifier matched (`api_spec (name has the word "api")`), else the plan's field.
/// Before an import classified it and after, the same answer.
pub(crate) fn blocked_why(task: &Task, rules: &classify::Rules) -> (Vec<String>, Vec<String>) {
    let matched = classify::matches(task, rules);
    let mut kinds = task.blocked_by.clone();
    for m in &matched {
        if !kinds.contains(&m.kind) {
            kinds.push(m.kind.clone());
        }
    }
    let reasons = kinds
        .iter()
        .map(|k| match matched.iter().find(|m| &m.kind == k) {
            Some(m) => format!("{k} ({})", m.reason),
            None => format!("{k} (its Blocked by field)"),
        })
        .collect();
    (kinds, reasons)
}

/// The tasks `workflow-start` would mark blocked, and why.
fn classification_findings(file: &str, plan: &Plan, rules: &classify::Rules) -> Vec<Finding> {
    let mut out = Vec::new();
    for t in &plan.tasks {
        if t.status != TaskStatus::Pending {
            continue;
        }
        let (kinds, reasons) = blocked_why(t, rules);
        if kinds.is_empty() {
            continue;
        }
        let hint = if plan.format.writes_fields() {
            format!(", or {OPT_OUT} if it waits on nothing")
        } else {
            String::new()
        };
        out.push(Finding {
            file: file.to_string(),
            line: t.line,
            severity: "note",
            kind: "classification",
            message: format!(
                "{} would start blocked on {}: lift it with `wf workflow-unblock {}` once that input is ready{hint}",
                t.id,
                reasons.join(", "),
                kinds.first().map_or("all", String::as_str),
            ),
            task: Some(t.id.clone()),
            pattern: None,
        });
    }
    out
}

/// At most this many findings are listed after an import; `wf check` lists them all.
pub(crate) const SHOWN_AFTER_IMPORT: usize = 20;

/// Findings as `file:line: severity: message` lines, at most [`SHOWN_AFTER_IMPORT`],
/// then how many more `wf check` would show.
pub(crate) fn finding_lines(plan_path: &Path, audit: &ZeroDecisionAudit) -> Vec<String> {
    let file = plan_path.display().to_string();
    let all = audit_findings(&file, audit);
    let mut lines: Vec<String> = all
        .iter()
        .take(SHOWN_AFTER_IMPORT)
        .map(Finding::line_text)
        .collect();
    if all.len() > SHOWN_AFTER_IMPORT {
        lines.push(format!(
            "… and {} more (`wf check {file}` lists them all)",
            all.len() - SHOWN_AFTER_IMPORT
        ));
    }
    lines
}

/// What workflow-start says on stderr when its audit fails: the headline, then the
/// findings.
pub(crate) fn audit_failure_lines(plan_path: &Path, audit: &ZeroDecisionAudit) -> Vec<String> {
    let file = plan_path.display().to_string();
    let errors = audit
        .anti_patterns
        .iter()
        .filter(|f| f.severity == "error")
        .count();
    let mut lines = vec![format!(
        "audit: {errors} {} — workflow-execute will refuse this plan until {} fixed (see `wf check {file}`) or it is run with --allow-audit-errors",
        plural(errors, "error", "errors"),
        if errors == 1 { "it is" } else { "they are" },
    )];
    lines.extend(finding_lines(plan_path, audit));
    lines
}

/// How a plan's tasks are checked, for `wf check` and `workflow-start`: `checks: 3
/// by a command, 12 by what their line names, 1 by nothing (T009)`.
pub fn checks_line(counts: &crate::proof::derive::Counts) -> String {
    let mut text = format!(
        "checks: {} by a command, {} by what their line names, {} by nothing",
        counts.command, counts.derived, counts.none,
    );
    if !counts.unchecked.is_empty() {
        let more = counts.none.saturating_sub(counts.unchecked.len());
        let ids: Vec<String> = counts
            .unchecked
            .iter()
            .map(|id| super::one_line(id))
            .collect();
        text.push_str(&format!(" ({}", ids.join(", ")));
        if more > 0 {
            text.push_str(&format!(", and {more} more"));
        }
        text.push(')');
    }
    text
}
