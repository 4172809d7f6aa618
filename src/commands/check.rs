//! `wf check PLAN`: lint a plan without importing it.
//!
//! The same reading `workflow-start` does — parse and graph validation, the project
//! config's classification rules, the zero-decision audit — with every finding
//! (`src/report/findings.rs`) shown at once as `file:line: severity: message`, and
//! nothing written: no lock is taken, no workflow dir is created, nothing under
//! WF_HOME is read or touched.
//!
//! Exit codes: 0 no errors (warnings allowed), 1 warnings under `--strict`, 2 errors;
//! a plan that does not parse is one error, reported as `workflow-start` reports it.

use serde_json::json;

use crate::cli::CheckArgs;
use crate::error::Result;
use crate::output::Output;
use crate::plan::{self, audit, classify};
use crate::project::Project;
use crate::report::findings;
use crate::report::plural;

pub fn run(project: &Project, args: &CheckArgs, out: &Output) -> Result<i32> {
    let (text, plan) = plan::read(&args.plan, args.format)?;
    let rules = classify::Rules::from_config(&project.config)?.for_plan(plan.format);
    let file = args.plan.display().to_string();
    let audit = audit::audit_as(
        &plan.tasks,
        &text,
        Some(plan.format),
        &crate::clock::now_rfc3339(),
    );
    let mut findings = findings::all(&file, &plan, &audit, &rules);
    if args.for_ci {
        // What an exported pipeline would not hand a task (`src/run/carry.rs`).
        findings.extend(
            crate::run::carry::undeclared_handoffs(&plan.tasks)
                .into_iter()
                .map(|(task, line, message)| findings::Finding {
                    file: file.clone(),
                    line,
                    severity: "warning",
                    kind: "ci",
                    message,
                    task: Some(task),
                    pattern: None,
                }),
        );
        findings.sort_by_key(|f| f.line);
    }
    let mut checks = crate::proof::derive::Counts::default();
    let config_checks = crate::run::derived::config_checks(&project.config);
    for task in &plan.tasks {
        checks.add(task, &config_checks);
    }

    let count = |s: &str| findings.iter().filter(|f| f.severity == s).count();
    let (errors, warnings, notes) = (count("error"), count("warning"), count("note"));
    let blocked = findings
        .iter()
        .filter(|f| f.kind == "classification")
        .count();
    let code = if errors > 0 {
        2
    } else {
        i32::from(warnings > 0 && args.strict)
    };
    out.json_value(&json!({
        "file": file,
        "format": plan.format,
        "detected": plan.detected,
        "tasks": plan.tasks.len(),
        "findings": findings,
        "summary": {
            "errors": errors,
            "warnings": warnings,
            "notes": notes,
            "blocked": blocked,
            "audit_passed": audit.passed,
        },
        "checks": checks,
        "exit_code": code,
    }));
    if !out.json {
        let mut text = String::new();
        for f in &findings {
            if !out.quiet || f.severity == "error" {
                text.push_str(&f.line_text());
                text.push('\n');
            }
        }
        if !out.quiet {
            text.push_str(&format!(
                "{file}: format {}: {}\n{file}: {} {} ({}): {errors} {}, {warnings} {}, {blocked} blocked\n",
                plan.format.name(),
                plan.detected,
                plan.tasks.len(),
                plural(plan.tasks.len(), "task", "tasks"),
                plan.format.name(),
                plural(errors, "error", "errors"),
                plural(warnings, "warning", "warnings"),
            ));
            text.push_str(&format!("{file}: {}\n", findings::checks_line(&checks)));
        }
        use std::io::Write;
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    }
    Ok(code)
}
