//! What checks a task, in words: the lines the brief, the hand-off and `wf show`
//! print for a task with no command of its own (docs/proof.md "Derived checks"),
//! and what each derived check found, from the task's evidence.

use crate::proof::derive::{self, ConfigCheck, Derived};
use crate::state::evidence::{DerivedCheck, DerivedKind, DerivedResult};
use crate::state::model::Task;

/// One line per check derived for `task` (none when it has commands of its own),
/// the phase's checkpoint last.
pub fn derived_lines(task: &Task, checks: &[ConfigCheck]) -> Vec<String> {
    let derived = derive::derive(task, checks);
    if derived.is_empty() {
        return Vec::new();
    }
    let mut lines: Vec<String> = derived.iter().map(line).collect();
    lines.push(format!(
        "at the end of phase `{}`, the project's tests: none that passed at the phase's start may fail",
        super::one_line(&task.phase)
    ));
    lines
}

fn line(d: &Derived) -> String {
    match d {
        Derived::Exists(p) => format!("`{}` exists and is not empty", super::one_line(p)),
        Derived::Changed(p) => format!(
            "`{}` changed since the task was handed off (created, if it was not there)",
            super::one_line(p)
        ),
        Derived::SomethingChanged => "the work changed at least one file".into(),
        Derived::Test(p) => format!(
            "`{}` runs with the project's test runner: it may fail until its story's implementation is done, and must pass at its phase's end",
            super::one_line(p)
        ),
        Derived::Command { command, files } => format!(
            "`{}` passes for {} (wf.checks)",
            super::one_line(command),
            files.iter().map(|f| super::one_line(f)).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// What a recorded derived check found, on one line: `✓ changed README.md`.
pub fn found_line(d: &DerivedCheck) -> String {
    let mark = match d.result {
        DerivedResult::Passed => "✓",
        DerivedResult::Red => "✓ red",
        DerivedResult::Warning => "! ",
        DerivedResult::Failed => "✗",
        DerivedResult::CannotRun => "- cannot run:",
    };
    let kind = match d.kind {
        DerivedKind::Created => "created",
        DerivedKind::Changed => "changed",
        DerivedKind::SomethingChanged => "something changed",
        DerivedKind::Test => "test",
        DerivedKind::Command => "wf.checks",
        DerivedKind::Checkpoint => "checkpoint",
    };
    format!("{mark} {kind}: {}", super::one_line(&d.note))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_with_a_command_has_no_derived_lines_and_one_without_ends_with_its_phase() {
        let mut t = Task {
            id: "T1".into(),
            name: "Create README.md".into(),
            phase: "Setup".into(),
            file: Some("README.md".into()),
            ..Task::default()
        };
        let lines = derived_lines(&t, &[]);
        assert_eq!(lines[0], "`README.md` exists and is not empty");
        assert!(lines
            .last()
            .unwrap()
            .starts_with("at the end of phase `Setup`"));
        t.verify = vec!["test -s README.md".into()];
        assert!(derived_lines(&t, &[]).is_empty());
    }
}
