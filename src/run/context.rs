//! Context metrics, as the original plugin keeps them (docs/state-file.md `contextMetrics`).
//!
//! They protect an agent's context window, so only tasks done by an agent (handed
//! off or dispatched to an executor) count towards the consecutive-task limit; a shell
//! command uses no context. estimatedTokens = (characters of the plan + the tech
//! design + at most 50,000 characters of `git diff HEAD --stat`) / 4; usage is a
//! percentage of a 200,000-token window unless `wf.context_window_tokens` says
//! otherwise.

use std::path::Path;
use std::process::{Command, Stdio};

use crate::state::model::{ContextMetrics, Task, Usage};

const DIFF_LIMIT: usize = 50_000;
const HISTORY: usize = 10;

pub fn estimate_tokens(plan_chars: usize, design_chars: usize, project: &Path) -> u64 {
    let diff = git_diff_stat_chars(project).min(DIFF_LIMIT);
    ((plan_chars + design_chars + diff) / 4) as u64
}

fn git_diff_stat_chars(project: &Path) -> usize {
    if !project.join(".git").exists() {
        return 0;
    }
    Command::new("git")
        .args(["diff", "HEAD", "--stat"])
        .current_dir(project)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_or(0, |o| String::from_utf8_lossy(&o.stdout).chars().count())
}

pub fn usage_percent(metrics: &ContextMetrics, window: u64) -> u32 {
    if window == 0 {
        return 100;
    }
    (metrics.estimated_tokens.saturating_mul(100) / window).min(1000) as u32
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Complexity {
    Simple,
    Medium,
    Complex,
}

/// How heavy a task is for an agent: files touched, actions, and whether it is a gate.
pub fn complexity(task: &Task) -> Complexity {
    let files = task.creates.len()
        + task.modifies.len()
        + task.tests.len()
        + usize::from(task.file.is_some());
    if task.quality_gate || files >= 3 || task.actions.len() >= 4 {
        Complexity::Complex
    } else if files <= 1 && task.actions.len() <= 2 {
        Complexity::Simple
    } else {
        Complexity::Medium
    }
}

/// The plugin's limit: 8/5/3 consecutive tasks by complexity, one less at 50 % usage
/// and two less at 70 %, never below 1.
pub fn max_consecutive(c: Complexity, usage: u32) -> u32 {
    let base: u32 = match c {
        Complexity::Simple => 8,
        Complexity::Medium => 5,
        Complexity::Complex => 3,
    };
    let cut = if usage >= 70 {
        2
    } else {
        u32::from(usage >= 50)
    };
    base.saturating_sub(cut).max(1)
}

/// Records one agent task in the history, keeping the last ten entries: the tokens
/// its executors reported, else the estimate, marked as one.
pub fn record(
    metrics: &mut ContextMetrics,
    task_id: &str,
    timestamp: &str,
    reported: Option<Usage>,
) {
    let mut entry = serde_json::json!({
        "taskId": task_id,
        "tokens": reported.map_or(metrics.estimated_tokens, |u| u.tokens()),
        "timestamp": timestamp,
        "estimated": reported.is_none(),
    });
    if let Some(cost) = reported.and_then(|u| u.cost_usd) {
        entry["costUsd"] = cost.into();
    }
    metrics.history.push(entry);
    let excess = metrics.history.len().saturating_sub(HISTORY);
    metrics.history.drain(..excess);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_follow_the_plugin() {
        assert_eq!(max_consecutive(Complexity::Simple, 0), 8);
        assert_eq!(max_consecutive(Complexity::Medium, 55), 4);
        assert_eq!(max_consecutive(Complexity::Complex, 75), 1);
    }

    #[test]
    fn history_keeps_ten() {
        let mut m = ContextMetrics::default();
        for i in 0..15 {
            record(&mut m, &format!("T{i}"), "t", None);
        }
        assert_eq!(m.history.len(), 10);
        assert_eq!(m.history[0]["taskId"], "T5");
    }
}
