//! A plain checklist: a `tasks.md` of checkboxes with neither ids nor another
//! tool's marks (`- [ ] Create the README`), every box a task, nested ones too. Read
//! by the checklist parser (`checklist/`) only when no other format finds a task in
//! the text, so it never takes a plan from one; and only a list of two boxes at
//! least (a README's one box is not a plan).

use std::path::Path;

use super::checklist::{Checklist, Counter, Dialect};
use super::doc::Line;
use super::format::{counted, Context, Detector, Evidence, Facts};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

pub(crate) static PLAIN: Checklist = Checklist {
    name: "checklist",
    example: "`- [ ] description` lines",
    dialect: Dialect {
        section: None,
        dash: TaskStatus::Skipped,
        criteria: None,
    },
    detector: |_path: Option<&Path>| Box::new(Boxes(Counter::new(None))),
    context: |plan, _task: &Task| Context::folder_of(plan, "Plan folder", &[]),
};

/// Detection: every box, as a fallback.
struct Boxes(Counter);

impl Detector for Boxes {
    fn line(&mut self, _line: &Line<'_>, facts: &Facts<'_>) {
        self.0.line(facts);
    }

    // Boxes under `## Definition of Done` and the like alone are no plan: the counts
    // of those are left out (`Counter::counted_tasks` is not asked).
    fn finish(self: Box<Self>, _text: &str) -> Evidence {
        Evidence {
            tasks: if self.0.all >= 2 { self.0.all } else { 0 },
            fallback: true,
            why: vec![format!(
                "{} without ids, and no tasks of another format",
                counted(self.0.all, "checkbox", "checkboxes")
            )],
            ..Evidence::default()
        }
    }
}
