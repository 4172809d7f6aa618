//! Sizes a plan's fields may not exceed, checked at import so an oversized value is
//! refused with its line instead of failing later: a verify command runs as a
//! program's argument list, which the kernel caps (`E2BIG`), and each one is copied
//! into the state, every log header and every report.

use super::PlanError;
use crate::state::model::Task;

/// The longest verify command a plan may hold: 128 KiB, the most one argument may be.
pub const MAX_VERIFY_CMD_BYTES: usize = 128 * 1024;

/// Refuses a verify command over [`MAX_VERIFY_CMD_BYTES`], at the line that holds it
/// (the task's heading when it cannot be found).
/// `text` is the plan's, for the line an error names.
pub(crate) fn check(task: &Task, text: &str) -> Result<(), PlanError> {
    let Some(cmd) = task.verify.iter().find(|c| c.len() > MAX_VERIFY_CMD_BYTES) else {
        return Ok(());
    };
    // The command's first characters, cut on a character boundary.
    let mut cut = 64.min(cmd.len());
    while !cmd.is_char_boundary(cut) {
        cut -= 1;
    }
    let head = &cmd[..cut];
    let line = super::doc::iter(text)
        .skip(task.line.saturating_sub(1))
        .find(|l| l.raw.contains(head))
        .map_or(task.line, |l| l.no);
    Err(PlanError::new(
        line,
        format!(
            "task {}'s verify command is {} bytes, more than the {MAX_VERIFY_CMD_BYTES} a command may have; put the commands in a script and run that",
            task.id,
            cmd.len()
        ),
    ))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    #[test]
    fn a_verify_command_over_128_kib_is_refused_with_its_line() {
        let big = "x".repeat(super::MAX_VERIFY_CMD_BYTES + 1);
        let ok = "y".repeat(super::MAX_VERIFY_CMD_BYTES);
        let plan = format!(
            "# Tasks: t\n\n## T1: one\n- **阶段**: a\n- **需求**: r\n- **验证命令**: `{ok}`\n\n## T2: two\n- **阶段**: a\n- **需求**: r\n- **验证命令**: `true`, `{big}`\n"
        );
        let err = super::super::parse(Path::new("tasks.md"), &plan).unwrap_err();
        assert!(
            err.message
                .starts_with("tasks.md:11: task T2's verify command is 131073 bytes"),
            "{}",
            &err.message[..200.min(err.message.len())]
        );
    }
}
