//! A handed-off task's evidence checks, run for `wf hook Stop` within a time budget.
//!
//! The checks are the first of those `wf workflow-execute` runs when the task comes
//! back (`work::run_parts`, `src/run/work.rs`): its commands, then its declared files;
//! not its tests, quality gate or commit. Unlike there, a failure does not end the evaluation: the agent is told about
//! every failing check at once, each with its exit and the tail of its output, as
//! long as the budget lasts. A check the budget cuts short is reported as such — it
//! says nothing about the work — and the checks after it are not started.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::exec::process::{self, Exit, Program};
use crate::run::work::{self, WorkCtx};
use crate::state::model::Task;

/// Most lines of a check's output the answer quotes.
pub const TAIL_LINES: usize = 20;

/// Most bytes of a check's output the answer quotes.
pub const TAIL_BYTES: usize = 2048;

/// How one check ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum Outcome {
    Passed,
    /// It ran to its end (or to its own timeout) and failed: `how` in words
    /// ("exited with 1"), `code` its exit code when it exited.
    Failed {
        how: String,
        code: Option<i32>,
    },
    /// Stopped at the hook's budget, which says nothing about the work.
    OverBudget,
    /// Not started: the budget was spent before its turn.
    NotRun,
    /// The files the task declares it creates that are not there.
    Missing {
        files: Vec<String>,
    },
}

/// One check and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// The command as the plan gives it; empty for the declared-files check.
    pub command: String,
    pub outcome: Outcome,
    /// The last lines of its output (at most [`TAIL_LINES`] lines and [`TAIL_BYTES`]
    /// bytes), control characters stripped; empty when it printed nothing.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tail: String,
}

impl Check {
    pub fn failed(&self) -> bool {
        matches!(
            self.outcome,
            Outcome::Failed { .. } | Outcome::Missing { .. }
        )
    }
}

/// What the checks say about the task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every check ran and passed (or the task has none).
    Passed,
    /// At least one check failed.
    Failing,
    /// None failed, but the budget stopped one before it could tell.
    Undecided,
}

/// The checks of one task, as run (or remembered).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evaluation {
    pub task_id: String,
    /// The budget they ran in, in seconds.
    pub budget_secs: u64,
    pub checks: Vec<Check>,
}

impl Evaluation {
    pub fn verdict(&self) -> Verdict {
        if self.checks.iter().any(Check::failed) {
            Verdict::Failing
        } else if self
            .checks
            .iter()
            .all(|c| matches!(c.outcome, Outcome::Passed))
        {
            Verdict::Passed
        } else {
            Verdict::Undecided
        }
    }

    pub fn failing(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.failed())
    }
}

/// Runs `task`'s evidence checks in `ctx` until `deadline`: each command with the
/// task's own timeout, or less when less of the budget is left.
pub fn run(ctx: &WorkCtx, task: &Task, budget: Duration, deadline: Instant) -> Evaluation {
    let attempt = task.attempts.max(1);
    let own = ctx.timeout(task);
    let mut checks = Vec::new();
    for (i, command) in task.check_commands().enumerate() {
        let left = deadline.saturating_duration_since(Instant::now());
        let check = |outcome, tail| Check {
            command: command.to_string(),
            outcome,
            tail,
        };
        if left.is_zero() {
            checks.push(check(Outcome::NotRun, String::new()));
            continue;
        }
        let program = Program::Shell(command.to_string());
        if let Some(prog) = process::missing_program(&program) {
            let how = Exit::NotOnPath(prog).describe();
            checks.push(check(Outcome::Failed { how, code: None }, String::new()));
            continue;
        }
        let capped = left < own;
        let log = ctx.workflow_dir.join(format!("check-{}.log", i + 1));
        let exit = crate::exec::reactor::block_on(ctx.run_program(
            task,
            attempt,
            &program,
            &log,
            own.min(left),
        ))
        .exit;
        let outcome = match exit {
            Exit::Code(0) => Outcome::Passed,
            Exit::TimedOut(_) if capped => Outcome::OverBudget,
            Exit::Interrupted => Outcome::NotRun,
            Exit::Code(c) => Outcome::Failed {
                how: exit.describe(),
                code: Some(c),
            },
            other => Outcome::Failed {
                how: other.describe(),
                code: None,
            },
        };
        let tail = if outcome == Outcome::Passed {
            String::new()
        } else {
            log_tail(&log, command)
        };
        checks.push(check(outcome, tail));
    }
    let missing = work::missing_declared_files(&ctx.project, task);
    if !missing.is_empty() {
        checks.push(Check {
            command: String::new(),
            outcome: Outcome::Missing { files: missing },
            tail: String::new(),
        });
    }
    Evaluation {
        task_id: task.id.clone(),
        budget_secs: budget.as_secs(),
        checks,
    }
}

/// The last lines of a check's log, bounded and without control characters: the
/// output is the check's, and the answer goes to an agent and a terminal.
pub fn log_tail(log: &Path, command: &str) -> String {
    // One line more than shown: the log's first line is `$ command` (`lazylog`).
    let text = process::tail(log, TAIL_LINES + 1);
    let mut lines: Vec<&str> = text.lines().collect();
    if lines.first().and_then(|l| l.strip_prefix("$ ")) == Some(command) {
        lines.remove(0);
    }
    let shown = &lines[lines.len().saturating_sub(TAIL_LINES)..];
    let text = crate::escape::output(&shown.join("\n")).into_owned();
    last_bytes(text.trim_end(), TAIL_BYTES)
}

/// At most the last `max` bytes of `text`, from a line start when one is in reach,
/// with `…` first when something was cut.
fn last_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    // Room for the marker, `…\n` (4 bytes).
    let mut cut = text.len() - max.saturating_sub(4);
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    let rest = &text[cut..];
    let rest = match rest.find('\n') {
        Some(n) if n + 1 < rest.len() => &rest[n + 1..],
        _ => rest,
    };
    format!("…\n{rest}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    fn ctx(dir: &Path) -> WorkCtx {
        WorkCtx::new(
            dir.to_path_buf(),
            dir.join("scratch"),
            Config::default(),
            Vec::new(),
        )
    }

    fn task(verify: &[&str]) -> Task {
        Task {
            id: "T1".into(),
            verify: verify.iter().map(|v| (*v).to_string()).collect(),
            ..Task::default()
        }
    }

    #[test]
    fn every_failing_check_is_reported_with_its_tail() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = task(&[
            "true",
            "printf 'a\\nb\\n\\033[31mred\\033[0m\\n'; exit 3",
            "wf-no-such-program --x",
        ]);
        t.creates = vec!["made.txt".into()];
        let budget = Duration::from_secs(30);
        let e = run(&ctx(dir.path()), &t, budget, Instant::now() + budget);
        assert_eq!(e.verdict(), Verdict::Failing);
        assert_eq!(e.checks[0].outcome, Outcome::Passed);
        assert_eq!(
            e.checks[1].outcome,
            Outcome::Failed {
                how: "exited with 3".into(),
                code: Some(3)
            }
        );
        assert_eq!(e.checks[1].tail, "a\nb\nred");
        assert_eq!(
            e.checks[2].outcome,
            Outcome::Failed {
                how: "could not start: `wf-no-such-program` is not on PATH".into(),
                code: None
            }
        );
        assert_eq!(
            e.checks[3].outcome,
            Outcome::Missing {
                files: vec!["made.txt".into()]
            }
        );
        assert_eq!(e.failing().count(), 3);
    }

    #[test]
    fn the_budget_stops_a_check_without_failing_it() {
        let dir = tempfile::tempdir().unwrap();
        let t = task(&["sleep 5", "false"]);
        let started = Instant::now();
        let budget = Duration::from_millis(300);
        let e = run(&ctx(dir.path()), &t, budget, started + budget);
        assert!(started.elapsed() < Duration::from_secs(3));
        assert_eq!(e.checks[0].outcome, Outcome::OverBudget);
        assert_eq!(e.checks[1].outcome, Outcome::NotRun);
        assert_eq!(e.verdict(), Verdict::Undecided);
    }

    #[test]
    fn a_long_output_is_cut_to_its_last_lines_and_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("x.log");
        let mut text = String::from("$ make\n");
        for n in 1..=30 {
            text.push_str(&format!("line {n}\n"));
        }
        std::fs::write(&log, &text).unwrap();
        let tail = log_tail(&log, "make");
        assert_eq!(tail.lines().count(), TAIL_LINES);
        assert!(
            tail.starts_with("line 11\n") && tail.ends_with("line 30"),
            "{tail}"
        );
        let long = "é".repeat(3000);
        std::fs::write(&log, format!("$ make\n{long}\nend\n")).unwrap();
        let tail = log_tail(&log, "make");
        assert!(tail.len() <= TAIL_BYTES, "{}", tail.len());
        assert!(tail.starts_with("…\n") && tail.ends_with("end"), "{tail}");
        // A short log keeps everything but its `$ command` line.
        std::fs::write(&log, "$ make\nonly\n").unwrap();
        assert_eq!(log_tail(&log, "make"), "only");
    }
}
