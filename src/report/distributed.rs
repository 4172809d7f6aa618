//! What `wf run-task` prints (docs/distributed.md): one line per command, then the
//! verdict.

use crate::run::standalone::TaskResultFile;

/// `✓ check `cargo test` (0.4s)` per command, the tail of a failed one's output, and
/// the verdict.
pub fn run_task_text(result: &TaskResultFile, written: Option<&std::path::Path>) -> String {
    let mut text = String::new();
    for c in &result.checks {
        let passed = c.run.exit_code == Some(0);
        text.push_str(&format!(
            "{} {} `{}` {} ({:.1}s)\n",
            if passed { "✓" } else { "✗" },
            c.run.what,
            crate::output::strip_controls(&c.run.command),
            c.run.outcome,
            c.run.duration_ms as f64 / 1000.0
        ));
        if !passed && !c.log_tail.is_empty() {
            for line in c.log_tail.lines() {
                text.push_str(&format!("  | {line}\n"));
            }
        }
    }
    let verdict = if result.success {
        format!("Task {} passed.", result.task_id)
    } else {
        format!(
            "Task {} failed: {}",
            result.task_id,
            crate::output::strip_controls(result.reason.as_deref().unwrap_or("no reason given"))
        )
    };
    text.push_str(&verdict);
    if let Some(path) = written {
        text.push_str(&format!(" Result: {}", path.display()));
    }
    text
}
