//! Turning workflow state into text: the status table, task briefs, the task graph,
//! JUnit XML and GitHub Actions output.
//!
//! Everything here is a pure function from state (and, for JUnit, the task logs it
//! names) to a `String` or JSON value. Nothing reads clap, the environment or prints;
//! the commands decide where the text goes. Plan text is hostile input, so every
//! format has its own escaping, tested with hostile strings.

pub mod brief;
pub mod checks;
pub mod constraints;
pub mod distributed;
pub mod doctor;
pub mod events;
pub mod execute;
pub mod export;
pub mod findings;
pub mod github;
pub mod gitlab;
pub mod graph;
pub mod heartbeat;
pub mod hook;
pub mod init;
pub mod junit;
pub mod list;
pub mod logs;
pub mod next;
pub mod progress;
pub mod proof;
pub mod resources;
pub mod show;
pub mod start;
pub mod status;
mod status_detail;
pub mod table;
pub mod tasks;
pub mod timing;
pub mod verify;

use crate::state::model::Glance;
use crate::state::task_ref::TaskRef;
use serde::Serialize;

use crate::state::machine::TaskStatus;
use crate::state::model::{ContextMetrics, WorkflowState};

use crate::config::DEFAULT_CONTEXT_WINDOW;

/// How many tasks are in each status, and the share done.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub total: usize,
    pub completed: usize,
    pub skipped: usize,
    pub failed: usize,
    pub blocked: usize,
    pub in_progress: usize,
    pub pending: usize,
    /// (completed + skipped) / total, in whole percent rounded down, so 100 means
    /// every task is done.
    pub percent: u32,
}

impl Counts {
    pub fn of(tasks: &[TaskRef]) -> Counts {
        let mut by_status = crate::state::summary::StatusCounts::default();
        for t in tasks {
            by_status.add(t.status());
        }
        Counts::of_status(by_status, tasks.len())
    }

    pub fn of_digest(d: &crate::state::summary::Digest) -> Counts {
        Counts::of_status(d.counts, d.total)
    }

    fn of_status(c: crate::state::summary::StatusCounts, total: usize) -> Counts {
        Counts {
            total,
            completed: c.completed,
            skipped: c.skipped,
            failed: c.failed,
            blocked: c.blocked,
            in_progress: c.in_progress,
            pending: c.pending,
            percent: percent(c.completed + c.skipped, total),
        }
    }

    pub fn done(&self) -> usize {
        self.completed + self.skipped
    }
}

fn percent(part: usize, whole: usize) -> u32 {
    if whole == 0 {
        return 0;
    }
    // u128 so a hostile count cannot overflow.
    ((part as u128 * 100) / whole as u128).min(100) as u32
}

/// Where the context usage stands against the thresholds of `contextMetrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ContextLevel {
    Ok,
    Warning,
    Danger,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ContextUsage {
    pub estimated_tokens: u64,
    pub window: u64,
    /// estimatedTokens / window × 100, to one decimal.
    pub usage_percent: f64,
    pub level: ContextLevel,
}

impl ContextUsage {
    /// `window` 0 falls back to [`DEFAULT_CONTEXT_WINDOW`] rather than dividing by zero.
    pub fn of(metrics: &ContextMetrics, window: u64) -> ContextUsage {
        let window = if window == 0 {
            DEFAULT_CONTEXT_WINDOW
        } else {
            window
        };
        let raw = metrics.estimated_tokens as f64 * 100.0 / window as f64;
        let usage_percent = (raw * 10.0).round() / 10.0;
        let level = if raw >= f64::from(metrics.danger_threshold) {
            ContextLevel::Danger
        } else if raw >= f64::from(metrics.warning_threshold) {
            ContextLevel::Warning
        } else {
            ContextLevel::Ok
        };
        ContextUsage {
            estimated_tokens: metrics.estimated_tokens,
            window,
            usage_percent,
            level,
        }
    }
}

/// The word for `n` things: `one` for 1, else `many` ("1 warning", "2 warnings").
/// The one place output picks a noun's number, so no line says "1 warnings".
pub fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// The name people know the workflow by: the plugin's `task_name`, else the project.
pub fn workflow_name(state: &WorkflowState) -> &str {
    state
        .task_name
        .as_deref()
        .filter(|n| !n.trim().is_empty())
        .unwrap_or(&state.project_name)
}

/// Why the plan skipped task `id`, from `skipped_info` (`{"T3": {"reason": …}}` or
/// `{"T3": "…"}`); empty when it does not say.
pub fn skip_reason<'a>(state: &'a WorkflowState, id: &str) -> &'a str {
    match state.skipped_info.get(id) {
        Some(serde_json::Value::String(s)) => s,
        Some(v) => v.get("reason").and_then(|r| r.as_str()).unwrap_or_default(),
        None => "",
    }
}

/// A text bar such as `[██████░░░░]` for `percent` of `width` cells.
pub fn bar(percent: f64, width: usize) -> String {
    let filled = ((percent.clamp(0.0, 100.0) / 100.0) * width as f64).round() as usize;
    let filled = filled.min(width);
    format!("[{}{}]", "█".repeat(filled), "░".repeat(width - filled))
}

pub use crate::escape::one_line;

/// At most `max` characters of `s`, with `…` when cut.
pub fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The emoji the plugin's plans use for a status (✅ ⏳ ❌ ⏭️), plus 🚧 and ⏸ for
/// the two it has none for.
pub fn status_emoji(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Completed => "✅",
        TaskStatus::InProgress => "⏳",
        TaskStatus::Failed => "❌",
        TaskStatus::Skipped => "⏭️",
        TaskStatus::Blocked => "🚧",
        TaskStatus::Pending => "⏸",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_rounds_down_and_handles_empty() {
        assert_eq!(percent(0, 0), 0);
        assert_eq!(percent(7, 8), 87);
        assert_eq!(percent(8, 8), 100);
    }

    #[test]
    fn context_levels_follow_thresholds() {
        let mut m = ContextMetrics {
            estimated_tokens: 130_000,
            ..ContextMetrics::default()
        };
        let u = ContextUsage::of(&m, 0);
        assert_eq!(u.window, DEFAULT_CONTEXT_WINDOW);
        assert!(
            (u.usage_percent - 65.0).abs() < f64::EPSILON,
            "{}",
            u.usage_percent
        );
        assert_eq!(u.level, ContextLevel::Warning);
        m.estimated_tokens = 160_000;
        assert_eq!(ContextUsage::of(&m, 200_000).level, ContextLevel::Danger);
        m.estimated_tokens = 1;
        assert_eq!(ContextUsage::of(&m, 200_000).level, ContextLevel::Ok);
    }

    #[test]
    fn bar_and_truncate() {
        assert_eq!(bar(50.0, 4), "[██░░]");
        assert_eq!(bar(250.0, 2), "[██]");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("abc", 4), "abc");
        assert_eq!(one_line("a\nb\tc"), "a b c");
    }
}
