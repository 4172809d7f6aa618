//! What `wf hook` tells the agent and the user (docs/hooks.md): the one line of
//! context on every prompt, and the `Stop` answers — the block reason that lists
//! each failing check with its exit and the tail of its output, and the short
//! messages for the user.
//!
//! Plan text (ids, names, commands) is put on one line; check output comes already
//! stripped of control characters (`agent::checks::log_tail`).

use super::next::{Next, Reason};
use super::{one_line, truncate, Counts};
use crate::agent::checks::{Check, Evaluation, Outcome};
use crate::state::model::{Task, WorkflowState};
use crate::state::summary::Digest;

/// Failing checks whose output is quoted in a block reason; the others are named
/// only, so the reason stays a few KiB however many checks fail.
pub const QUOTED_CHECKS: usize = 5;

/// The line every `SessionStart` and `UserPromptSubmit` gives: the workflow's
/// status and progress, and the current task with what to do about it.
pub fn context_line(state: &WorkflowState, digest: &Digest, next: &Next<'_>) -> String {
    let c = Counts::of_digest(digest);
    let head = format!(
        "wf: workflow {} ({}/{} tasks done).",
        state.status,
        c.done(),
        c.total
    );
    let Some(task) = next.task else {
        return format!("{head} {}", one_line(&next.message));
    };
    let what = if next.reason == Reason::InProgress {
        "in progress (handed off to you): do it; when you stop, wf runs its checks"
    } else {
        "ready"
    };
    format!("{head} Current task {}: {what}.", task_label(task))
}

/// What the context says instead of the brief when this session already has it.
pub const BRIEF_GIVEN: &str =
    "Its brief was given earlier in this session; `wf next` prints it again.";

/// `T1 (the task's name)`, on one line.
fn task_label(task: &Task) -> String {
    format!(
        "{} ({})",
        one_line(&task.id),
        truncate(&one_line(&task.name), 120)
    )
}

/// The reason a `Stop` is blocked with: every failing check with its exit and the
/// last lines of its output, the checks the budget cut short, and what to do.
/// `remembered`: the result is the last run's, the tree being unchanged since.
pub fn block_reason(task: &Task, e: &Evaluation, remembered: bool) -> String {
    let failing = e.failing().count();
    let mut head = format!(
        "wf: task {} is not done: {failing} of its {} checks {}.",
        task_label(task),
        e.checks.len(),
        if failing == 1 { "fails" } else { "fail" }
    );
    if remembered {
        head.push_str("\nThe working tree has not changed since they last ran, so they were not run again; this is their last result.");
    }
    let mut parts = vec![head];
    let mut quoted = 0;
    for check in &e.checks {
        let quote = check.failed() && quoted < QUOTED_CHECKS;
        if let Some(line) = describe(check, e.budget_secs, quote) {
            quoted += usize::from(quote);
            parts.push(line);
        }
    }
    parts.push("Fix what these checks report and run them yourself to confirm. When you stop again, wf runs them again; once they pass, wf records the task as done and gives you the next one.".into());
    parts.join("\n\n")
}

/// One check in a block reason; nothing for one that passed.
fn describe(check: &Check, budget_secs: u64, quote: bool) -> Option<String> {
    let cmd = one_line(&check.command);
    let line = match &check.outcome {
        Outcome::Passed => return None,
        Outcome::Missing { files } => format!(
            "✗ declared files are missing: {}",
            one_line(&files.join(", "))
        ),
        Outcome::Failed { how, .. } => {
            let mut line = format!("✗ `{cmd}` {how}");
            if !quote {
                line.push_str(" (output not quoted)");
            } else if check.tail.is_empty() {
                line.push_str(" and printed nothing");
            } else {
                line.push_str("; the last lines of its output:\n");
                let tail: Vec<String> = check.tail.lines().map(|l| format!("    {l}")).collect();
                line.push_str(&tail.join("\n"));
            }
            line
        }
        Outcome::OverBudget => format!(
            "… `{cmd}` did not finish within the hook's {budget_secs} s budget; that is not a failure of the work (`wf workflow-execute` runs it in full)"
        ),
        Outcome::NotRun => format!(
            "… `{cmd}` was not run: the hook's {budget_secs} s budget was spent"
        ),
    };
    Some(line)
}

/// Most bytes of a `Stop` answer's reason that carries the next task's brief: a
/// hook's output goes into the agent's context whole (docs/hooks.md "Size").
pub const MAX_REASON: usize = 8 * 1024;

/// The reason a `Stop` is blocked with when the task passed and was recorded, and
/// the next one is handed to the agent: its brief, within [`MAX_REASON`].
pub fn next_task_reason(done: &Task, next: &Task, brief: &str) -> String {
    let head = format!(
        "wf: task {} passed its checks and is done. Your next task is {}; its brief follows. Do it; when you stop, wf runs its checks.\n\n",
        task_label(done),
        task_label(next)
    );
    let room = MAX_REASON.saturating_sub(head.len());
    format!("{head}{}", cap_brief(brief, room))
}

/// For the user, when the task passed and was recorded and the run stops here
/// (the mode, the budget, a blocker, the end): `stop` says why.
pub fn recorded_message(done: &Task, stop: &str) -> String {
    format!(
        "wf: task {} passed its checks and is done; the run stops here: {}.",
        one_line(&done.id),
        one_line(stop)
    )
}

/// For the user, when the task failed what `wf` checks as it takes a task back
/// (its derived checks, a gate) though the hook's checks passed.
pub fn failed_on_return_message(task: &Task, reason: &str) -> String {
    format!(
        "wf: task {} passed its own checks but failed as wf took it back: {}. `wf next` shows what to do.",
        one_line(&task.id),
        one_line(reason)
    )
}

/// `brief` in at most `max` bytes, its `## Verify` section always whole: what the
/// agent must make pass matters most. What is cut from before it is marked, with
/// where the whole brief is.
pub fn cap_brief(brief: &str, max: usize) -> String {
    if brief.len() <= max {
        return brief.to_string();
    }
    const CUT: &str = "\n\n[… brief cut to fit the hook's answer; `wf next` prints it whole …]\n\n";
    let verify = brief.find("\n## Verify").map_or("", |at| &brief[at + 1..]);
    let verify = super::truncate(verify, max.saturating_sub(CUT.len()));
    let room = max.saturating_sub(verify.len() + CUT.len());
    let mut end = room.min(brief.len());
    while !brief.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}{CUT}{verify}", &brief[..end])
}

/// For the user, when the checks pass: the task still has to be recorded.
pub fn passed_message(task: &Task) -> String {
    format!(
        "wf: the checks of task {} pass; run `wf workflow-execute` to record it as done.",
        one_line(&task.id)
    )
}

/// For the user, when the budget stopped a check before any failed: nothing is
/// known, so the agent is not held.
pub fn undecided_message(task: &Task, e: &Evaluation) -> String {
    format!(
        "wf: the checks of task {} did not finish within the hook's {} s budget (wf.hook_timeout_secs), so the stop was not blocked; run `wf workflow-execute` to check the task in full.",
        one_line(&task.id),
        e.budget_secs
    )
}

/// For the user, when the checks still fail but the agent is let stop: it was kept
/// working `blocks` times in a row on the task already (the limit,
/// `wf.hook_max_blocks`), or changed nothing since the last time.
pub fn still_failing_message(task: &Task, e: &Evaluation, blocks: u32, progress: bool) -> String {
    let why = if progress {
        format!("the agent was kept working on it {blocks} times in a row (wf.hook_max_blocks)")
    } else {
        "the agent changed nothing since they last failed".to_string()
    };
    format!(
        "wf: {} of the {} checks of task {} still fail; {why}, so it may stop. `wf workflow-execute` shows what fails.",
        e.failing().count(),
        e.checks.len(),
        one_line(&task.id)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_capped_brief_keeps_its_verify_section_whole() {
        let brief = format!(
            "# T2: two\n\n## Requirement\n\n{}\n\n## Verify\n\n```sh\ngrep -q two two.txt\n```\n",
            "word ".repeat(5000)
        );
        let capped = cap_brief(&brief, 2048);
        assert!(capped.len() <= 2048, "{}", capped.len());
        assert!(capped.starts_with("# T2: two\n"), "{capped}");
        assert!(
            capped.ends_with("## Verify\n\n```sh\ngrep -q two two.txt\n```\n"),
            "{capped}"
        );
        assert!(capped.contains("`wf next` prints it whole"), "{capped}");
        // A short one is left as it is; a multi-byte text is cut on a boundary.
        assert_eq!(cap_brief("# T1\n", 2048), "# T1\n");
        let wide = format!("# T3\n{}\n## Verify\n\nok\n", "é".repeat(3000));
        assert!(cap_brief(&wide, 1000).len() <= 1000);
    }
}
