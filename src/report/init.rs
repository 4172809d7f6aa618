//! What `wf init` did, and what to do next.

use std::path::Path;

use serde_json::{json, Value};

use crate::setup::init::{Action, FileResult, PLAN_PATH};

/// The commands to run after `init`, each with why.
const NEXT_STEPS: [(&str, &str); 4] = [
    (
        "wf check tasks.md",
        "lint the plan (edit it first: its tasks are examples)",
    ),
    ("wf workflow-start tasks.md", "import it"),
    ("wf workflow-execute", "run its tasks to the next stop"),
    ("wf doctor", "check the setup whenever something seems off"),
];

pub fn json(dir: &Path, files: &[FileResult]) -> Value {
    json!({
        "project": dir.display().to_string(),
        "files": files,
        "next_steps": NEXT_STEPS.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
    })
}

/// One line per file, then the next steps.
pub fn text(files: &[FileResult]) -> String {
    let mut text = String::new();
    for f in files {
        let verb = match f.action {
            Action::Created => "created",
            Action::Replaced => "replaced",
            Action::Merged => "merged",
            Action::Skipped => "skipped",
        };
        text.push_str(&format!("{verb:<8} {}", f.path));
        match (&f.backup, f.action) {
            (Some(backup), _) => {
                text.push_str(&format!(" ({}; the old one is {backup})", f.reason));
            }
            (None, Action::Skipped) => text.push_str(&format!(" ({})", f.reason)),
            _ => {}
        }
        text.push('\n');
    }
    let plan_new = files
        .iter()
        .any(|f| f.path == PLAN_PATH && f.action != Action::Skipped);
    text.push_str("\nNext:\n");
    let width = NEXT_STEPS.iter().map(|(c, _)| c.len()).max().unwrap_or(0);
    for (i, (command, why)) in NEXT_STEPS.iter().enumerate() {
        // The plan's "edit it first" is news only when init just wrote it.
        let why = if i == 0 && !plan_new {
            "lint the plan"
        } else {
            why
        };
        text.push_str(&format!("  {command:<width$}  {why}\n"));
    }
    text.trim_end().to_string()
}
