//! Kiro's `tasks.md` (`.kiro/specs/<feature>/tasks.md`, also written by cc-sdd):
//! `- [ ] 1. Title` major tasks and `- [ ] 1.1 Sub-task` items with indented detail
//! bullets, `_Requirements: 1.1, 2.3_`, optional tasks `- [ ]* 2.3`, `(P)` for a task
//! that may run beside the ones before it, `_Depends: 1.2_`, and `[-]` for a task in
//! progress. Read by the checklist parser (`checklist/`); the brief shows the spec
//! folder with its `requirements.md` and `design.md`.

use std::path::Path;

use super::checklist::{Checklist, Counter, Dialect};
use super::doc::Line;
use super::format::{Context, Detector, Evidence, Facts};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

pub(crate) static KIRO: Checklist = Checklist {
    name: "kiro",
    example: "`- [ ] 1. Title` and `- [ ] 1.1 Sub-task` lines",
    dialect: Dialect {
        section: None,
        dash: TaskStatus::InProgress,
        criteria: None,
    },
    detector: |path| Box::new(Kiro::new(path)),
    context: |plan, _task: &Task| {
        Context::folder_of(
            plan,
            "Spec folder",
            &["requirements.md", "design.md", "bugfix.md"],
        )
    },
};

/// Detection: numbered checkboxes, and what only Kiro writes beside them.
struct Kiro {
    count: Counter,
    path: bool,
    fields: bool,
    optional: bool,
    title: bool,
}

impl Kiro {
    fn new(path: Option<&Path>) -> Kiro {
        Kiro {
            count: Counter::new(None),
            path: path.is_some_and(|p| p.to_string_lossy().contains(".kiro/specs/")),
            fields: false,
            optional: false,
            title: false,
        }
    }
}

impl Detector for Kiro {
    fn line(&mut self, line: &Line<'_>, facts: &Facts<'_>) {
        let t: &str = &line.text;
        if self.count.line(facts) {
            self.title |= t.trim() == "# Implementation Plan";
            return;
        }
        // Most lines hold neither sign; each test below is made only of a line that
        // can (every line of every plan is asked).
        if memchr::memchr(b'_', t.as_bytes()).is_some() {
            let d = t.trim_start().trim_start_matches(['-', '*']).trim_start();
            self.fields |= ["_Requirements:", "_Depends:", "_Boundary:", "_Leverage:"]
                .iter()
                .any(|f| d.starts_with(f));
        }
        self.optional |= memchr::memchr(b'[', t.as_bytes()).is_some()
            && t.trim_start()
                .get(1..)
                .is_some_and(|r| r.trim_start().starts_with("[ ]*"));
    }

    fn finish(mut self: Box<Self>, _text: &str) -> Evidence {
        // Under `.kiro/specs/` every checkbox is a task; elsewhere the numbered ones
        // are what tells a Kiro list.
        let (tasks, first) = self.count.counted_tasks(self.path);
        let mut why = vec![first];
        let signs = [
            (self.path, "path .kiro/specs/"),
            (self.fields, "_Requirements:_ lines"),
            (self.optional, "optional `- [ ]*` tasks"),
            (self.title, "# Implementation Plan"),
        ];
        why.extend(
            signs
                .iter()
                .filter(|(s, _)| *s)
                .map(|(_, w)| (*w).to_string()),
        );
        Evidence {
            tasks,
            signs: signs.iter().filter(|(s, _)| *s).count() + usize::from(self.path),
            bare: self.path,
            fallback: false,
            why,
        }
    }
}
