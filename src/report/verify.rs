//! What `wf verify` prints (docs/proof.md "Verify"): one line per task that ran or
//! would run, with why; a count of those up to date; and the verdict.

use serde_json::{json, Value};

use crate::run::verify::{Report, Standing};

/// The text report.
pub fn text(report: &Report, dry_run: bool) -> String {
    let mut lines = Vec::new();
    for t in &report.tasks {
        let why = super::one_line(&t.why.join("; "));
        let line = match t.result {
            Standing::UpToDate => continue,
            Standing::Cached => format!("✓ {} up to date in the cache ({why})", t.id),
            Standing::Passed => match &t.behind_failure {
                Some(failed) => format!(
                    "✓ {} passes its own checks again ({why}), but {failed}, which it depends on, no longer passes",
                    t.id
                ),
                None => format!("✓ {} passes again ({why})", t.id),
            },
            Standing::WouldRun => format!("• {} would run: {why}", t.id),
            Standing::Unchecked => format!("- {} has nothing that checks it ({why})", t.id),
            Standing::Failed => format!(
                "✗ {} no longer passes: {} ({why}){}",
                t.id,
                super::one_line(t.reason.as_deref().unwrap_or("")),
                t.log
                    .as_ref()
                    .map_or(String::new(), |l| format!("; log: {l}"))
            ),
        };
        lines.push(line);
    }
    let up = report.count(Standing::UpToDate);
    let cached = report.count(Standing::Cached);
    let ran = report.count(Standing::Passed) + report.count(Standing::Failed);
    let mut summary = if dry_run {
        format!(
            "{} would run, {up} up to date, {cached} up to date in the cache (dry run: nothing ran).",
            report.count(Standing::WouldRun)
        )
    } else {
        format!("{ran} checked again, {up} up to date, {cached} up to date in the cache.")
    };
    if report.regressions.is_empty() {
        if let Some(why) = &report.not_completed {
            summary.push_str(&format!(
                " Every task passes, but the workflow is not completed: {}",
                super::one_line(why)
            ));
        }
    } else {
        summary.push_str(&format!(
            " {} no longer pass{} and {} back to pending; the workflow is {}. Fix, then run `wf verify` again.",
            report.regressions.join(", "),
            if report.regressions.len() == 1 { "es" } else { "" },
            if report.regressions.len() == 1 { "is" } else { "are" },
            report.workflow_status
        ));
    }
    lines.push(summary);
    lines.join("\n")
}

/// The `--json` document (docs/json/verify.schema.json).
pub fn json(report: &Report, dry_run: bool) -> Value {
    json!({
        "dry_run": dry_run,
        "tasks": report.tasks,
        "regressions": report.regressions,
        "counts": {
            "up_to_date": report.count(Standing::UpToDate),
            "cached": report.count(Standing::Cached),
            "passed": report.count(Standing::Passed),
            "failed": report.count(Standing::Failed),
            "would_run": report.count(Standing::WouldRun),
            "unchecked": report.count(Standing::Unchecked),
        },
        "workflow_status": report.workflow_status,
        "not_completed": report.not_completed,
    })
}
