//! What `wf run-task` and `wf import-results` print (docs/distributed.md): one line
//! per command or result, then one line that sums it up.

use crate::run::import_results::{Fate, ImportSummary};
use crate::run::standalone::TaskResultFile;

/// `✓ check `cargo test` (0.4s)` per command, the tail of a failed one's output
/// (unless it was `streamed` as it came), and the verdict.
pub fn run_task_text(
    result: &TaskResultFile,
    written: Option<&std::path::Path>,
    streamed: bool,
) -> String {
    let mut text = String::new();
    for c in &result.checks {
        let passed = c.run.exit_code == Some(0);
        text.push_str(&format!(
            "{} {} `{}` {} ({:.1}s)\n",
            if passed { "✓" } else { "✗" },
            c.run.what,
            crate::report::one_line(&c.run.command),
            c.run.outcome,
            c.run.duration_ms as f64 / 1000.0
        ));
        if !passed && !streamed && !c.log_tail.is_empty() {
            for line in c.log_tail.lines() {
                text.push_str(&format!("  | {line}\n"));
            }
        }
    }
    let verdict = if result.cached {
        format!(
            "Task {} is up to date: its checks passed on the same inputs before (from the cache).",
            result.task_id
        )
    } else if result.success {
        format!("Task {} passed.", result.task_id)
    } else {
        format!(
            "Task {} failed: {}",
            result.task_id,
            crate::report::one_line(result.reason.as_deref().unwrap_or("no reason given"))
        )
    };
    text.push_str(&verdict);
    if let Some(path) = written {
        text.push_str(&format!(" Result: {}", path.display()));
    }
    text
}

/// One line per result, then the workflow's status.
pub fn import_text(summary: &ImportSummary, status: &str) -> String {
    let mut text = String::new();
    for r in &summary.results {
        // Where it came from, then what it overrode or could not vouch for.
        let from = std::iter::once(r.file.display().to_string())
            .chain(r.notes.iter().cloned())
            .collect::<Vec<_>>()
            .join("; ");
        let line = match &r.fate {
            Fate::Applied if r.success => format!("✓ {} completed ({from})", r.task_id),
            Fate::Applied => format!("✗ {} failed ({from})", r.task_id),
            Fate::Duplicate => format!("= {} already imported ({})", r.task_id, r.file.display()),
            Fate::AlreadyDone => {
                format!("= {} already done here ({})", r.task_id, r.file.display())
            }
            Fate::Refused(why) => format!("! {}: refused: {why}", r.file.display()),
        };
        text.push_str(&crate::escape::controls(&line, crate::escape::Lines::Keep));
        text.push('\n');
    }
    for m in &summary.missing {
        text.push_str(&crate::escape::controls(
            &format!(
                "! no result for {} from job {}: the job did not run it, or its result was lost on the way\n",
                m.task_id, m.job
            ),
            crate::escape::Lines::Keep,
        ));
    }
    if !summary.ignored.is_empty() {
        text.push_str(&format!(
            "Ignored {} JSON {} that {} not wf results.\n",
            summary.ignored.len(),
            super::plural(summary.ignored.len(), "file", "files"),
            super::plural(summary.ignored.len(), "is", "are")
        ));
    }
    let applied = summary
        .results
        .iter()
        .filter(|r| r.fate == Fate::Applied)
        .count();
    text.push_str(&format!(
        "Imported {applied} result(s), refused {}; the workflow is {status}.",
        summary.refused()
    ));
    text
}

/// The `--json` document of `import-results`.
pub fn import_json(summary: &ImportSummary, status: &str) -> serde_json::Value {
    let results: Vec<serde_json::Value> = summary
        .results
        .iter()
        .map(|r| {
            serde_json::json!({
                "file": r.file,
                "task_id": r.task_id,
                "success": r.success,
                "fate": r.fate.name(),
                "reason": match &r.fate { Fate::Refused(why) => Some(why.as_str()), _ => None },
                "notes": r.notes,
            })
        })
        .collect();
    let missing: Vec<serde_json::Value> = summary
        .missing
        .iter()
        .map(|m| serde_json::json!({"task_id": m.task_id, "job": m.job}))
        .collect();
    serde_json::json!({
        "results": results,
        "missing": missing,
        "ignored": summary.ignored,
        "refused": summary.refused(),
        "status": status,
    })
}
