//! Which checks a failure reason names, and how each ended: for `workflow-execute
//! --json`'s per-task results and the `done` tool's answer.
//!
//! Read from the reason the engine recorded (`check \`CMD\` exited with N`, `test
//! \`CMD\` timed out after …`) — the one record every path keeps, a run's and a
//! crashed run's alike — matching the task's own check commands first, so a command
//! holding backticks is read whole.

use serde::Serialize;

use crate::state::model::Task;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailedCheck {
    pub command: String,
    /// Its exit code, when it exited (not when killed, timed out or never started).
    pub exit_code: Option<i64>,
    /// How it ended, in words: `exited with 1`, `timed out after 30s`.
    pub ended: String,
}

/// A command in backticks and how it ended, for a reason that names a command the
/// task does not list itself (a gate's verifier).
static MENTIONED: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(
        r"`([^`]+)` ((?:exited with|was killed|timed out|was interrupted|could not start)[^;`]*)",
    )
    .expect("a valid regex")
});

pub fn failed_checks(task: &Task, reason: &str) -> Vec<FailedCheck> {
    let mut found: Vec<(String, String)> = Vec::new();
    for cmd in task.check_commands() {
        let head = format!("`{cmd}` ");
        if let Some(at) = reason.find(&head) {
            found.push((cmd.to_string(), ending(&reason[at + head.len()..])));
        }
    }
    if found.is_empty() {
        for c in MENTIONED.captures_iter(reason) {
            found.push((c[1].to_string(), ending(&c[2])));
        }
    }
    found
        .into_iter()
        .map(|(command, ended)| FailedCheck {
            exit_code: ended
                .strip_prefix("exited with ")
                .and_then(|n| n.trim().parse::<i64>().ok()),
            command,
            ended,
        })
        .collect()
}

/// How a command ended, up to the end of its clause in a failure reason.
fn ending(rest: &str) -> String {
    let end = rest.find([';', '(']).unwrap_or(rest.len());
    rest[..end].trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_reason_gives_each_check_with_its_exit_code() {
        let task = Task {
            id: "T1".into(),
            verify: vec!["test -f `echo done.txt`".into()],
            ..Task::default()
        };
        let checks = failed_checks(&task, "check `test -f `echo done.txt`` exited with 1");
        assert_eq!(
            checks,
            [FailedCheck {
                command: "test -f `echo done.txt`".into(),
                exit_code: Some(1),
                ended: "exited with 1".into()
            }]
        );
        let gate = failed_checks(
            &Task::default(),
            "quality gate T4: score 0 is below the threshold 80; test `sh tests/check.sh` exited with 2",
        );
        assert_eq!(gate[0].command, "sh tests/check.sh");
        assert_eq!(gate[0].exit_code, Some(2));
        let timed = failed_checks(
            &Task {
                verify: vec!["sleep 9".into()],
                ..Task::default()
            },
            "check `sleep 9` timed out after 1s (its process group was killed)",
        );
        assert_eq!(timed[0].exit_code, None);
        assert_eq!(timed[0].ended, "timed out after 1s");
        assert!(failed_checks(&Task::default(), "executor `x` reported failure").is_empty());
    }
}
