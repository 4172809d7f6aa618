//! An explicit check on a task's line, for plan formats that have no fields
//! (docs/plans.md "A check on the line"): `(verify: `cmd`)` after the description,
//! one command or several (`(verify: `a`, `b`)`).
//!
//! ```text
//! - [ ] T012 Add the parser in src/p.py (verify: `pytest tests/test_p.py`)
//! ```
//!
//! Every markdown reader calls [`take_verify`] on a task it read: the form leaves
//! the name, its commands go to `verify`, and the task stays an agent's work (the
//! `implement` action): the line says what to do, the command how wf knows it was
//! done. A `(verify: …)` with no backticked command is left in the name as prose.

use std::sync::LazyLock;

use regex::Regex;

use crate::state::model::Task;

/// `(verify:`, `(Verify:`, `（verify：`: where a check on the line opens. Where it
/// closes is found by [`closing`], which skips a `)` inside a backticked command
/// (`$(wc -w < f)`).
static VERIFY_RE: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)[(（]\s*verify\s*[:：]\s*").ok());

/// The action an inline check leaves on a task that named none: its line is work
/// for an agent, checked by the command (`src/run/policy.rs` `needs_agent`).
pub const IMPLEMENT: &str = "implement";

/// Moves each `(verify: `cmd`)` of `task.name` into `task.verify`; a task that
/// gained a command this way and names no action gets [`IMPLEMENT`].
pub fn take_verify(task: &mut Task) {
    // Every task of a plan is asked, twice at import: most names hold no
    // parenthesis, and are not searched.
    // `(`, or the first byte of `（` (U+FF08).
    if !task.name.bytes().any(|b| b == b'(' || b == 0xEF) {
        return;
    }
    let Some(re) = VERIFY_RE.as_ref() else {
        return;
    };
    let mut found = Vec::new();
    let mut spans = Vec::new();
    let mut from = 0;
    while let Some(open) = re.find_at(&task.name, from) {
        let Some((inner_end, end)) = closing(&task.name, open.end()) else {
            break;
        };
        from = end;
        let commands = backticked(&task.name[open.end()..inner_end]);
        if commands.is_empty() {
            continue;
        }
        found.extend(commands);
        spans.push(open.start()..end);
    }
    if found.is_empty() {
        return;
    }
    let mut name = String::with_capacity(task.name.len());
    let mut at = 0;
    for span in spans {
        name.push_str(&task.name[at..span.start]);
        at = span.end;
    }
    name.push_str(&task.name[at..]);
    task.name = name.split_whitespace().collect::<Vec<_>>().join(" ");
    task.verify.extend(found);
    if task.actions.is_empty() {
        task.actions.push(IMPLEMENT.to_string());
    }
}

/// Where the parenthesis whose content starts at `from` closes: the byte offset of
/// its `)` or `）` outside backticks, and the offset just past it. None when it
/// never closes.
fn closing(text: &str, from: usize) -> Option<(usize, usize)> {
    let mut in_code = false;
    for (i, c) in text[from..].char_indices() {
        match c {
            '`' => in_code = !in_code,
            ')' | '）' if !in_code => return Some((from + i, from + i + c.len_utf8())),
            _ => {}
        }
    }
    None
}

/// The backticked commands of `text`, in order, trimmed, empty ones left out.
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn taken(name: &str) -> Task {
        let mut task = Task {
            id: "T012".into(),
            name: name.into(),
            ..Task::default()
        };
        take_verify(&mut task);
        task
    }

    #[test]
    fn the_command_leaves_the_name_for_verify_and_the_task_stays_an_agents() {
        let t = taken("Add the parser in src/p.py (verify: `pytest tests/test_p.py`)");
        assert_eq!(t.name, "Add the parser in src/p.py");
        assert_eq!(t.verify, ["pytest tests/test_p.py"]);
        assert_eq!(t.actions, [IMPLEMENT]);
    }

    #[test]
    fn a_parenthesis_inside_the_command_does_not_end_it() {
        let t = taken("Count the words of f (verify: `test \"$(wc -w < f)\" -eq 2`) first");
        assert_eq!(t.name, "Count the words of f first");
        assert_eq!(t.verify, ["test \"$(wc -w < f)\" -eq 2"]);
        // One that never closes is prose, left in the name.
        let t = taken("Open (verify: `make`");
        assert_eq!(t.name, "Open (verify: `make`");
        assert!(t.verify.is_empty());
    }

    #[test]
    fn several_commands_any_case_and_full_width_marks() {
        let t = taken("Wire it (Verify: `make a`, `make b`) in src/x.rs");
        assert_eq!(t.name, "Wire it in src/x.rs");
        assert_eq!(t.verify, ["make a", "make b"]);
        let t = taken("接入（verify：`go test ./...`）");
        assert_eq!(t.verify, ["go test ./..."]);
        assert_eq!(t.name, "接入");
    }

    #[test]
    fn prose_that_is_not_the_form_stays_as_written() {
        for name in [
            "Verify the login flow (verify: manually)",
            "Add (verification pending) notes",
            "Run `pytest` (see docs)",
        ] {
            let t = taken(name);
            assert_eq!(t.name, name);
            assert!(t.verify.is_empty() && t.actions.is_empty(), "{name}");
        }
    }

    #[test]
    fn a_task_that_names_its_actions_keeps_them() {
        let mut task = Task {
            name: "Review (verify: `make lint`)".into(),
            actions: vec!["quality_review".into()],
            ..Task::default()
        };
        take_verify(&mut task);
        assert_eq!(task.actions, ["quality_review"]);
        assert_eq!(task.verify, ["make lint"]);
    }
}
