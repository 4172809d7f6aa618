//! What a spec-kit plan says around a task, for its brief: the phase lines spec-kit
//! writes under a phase heading (`**Goal**`, `**Independent Test**`, …) and the spec
//! folder with the documents spec-kit keeps beside `tasks.md`.

use std::path::Path;

use crate::plan::format::Context;

/// The documents a spec-kit feature folder may hold beside its `tasks.md`.
const SPEC_DOCS: [&str; 6] = [
    "spec.md",
    "plan.md",
    "data-model.md",
    "contracts/",
    "research.md",
    "quickstart.md",
];

/// The phase lines spec-kit writes under a phase heading, in the order shown.
const PHASE_LINES: [&str; 4] = ["Purpose", "Goal", "Independent Test", "Checkpoint"];

/// The phase lines of task `id` in the plan at `plan`, and its spec folder.
pub(super) fn of(plan: &Path, id: &str) -> Context {
    let mut context = Context::folder_of(plan, "Spec folder", &SPEC_DOCS);
    context.lines = phase_lines(plan, id)
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    context
}

/// A spec-kit plan's phase lines per `## ` section and the section of each task id:
/// built in one pass, so a brief looks its task up without scanning the plan.
#[derive(Debug, Default, PartialEq)]
struct PhaseIndex {
    sections: Vec<Vec<(&'static str, String)>>,
    task_section: std::collections::HashMap<String, usize>,
}

impl PhaseIndex {
    fn build(text: &str) -> PhaseIndex {
        let mut index = PhaseIndex {
            sections: vec![Vec::new()],
            ..PhaseIndex::default()
        };
        for line in text.lines() {
            if line.starts_with("## ") {
                index.sections.push(Vec::new());
                continue;
            }
            let at = index.sections.len() - 1;
            if let Some(tl) = super::task_line(line) {
                index.task_section.entry(tl.id.to_string()).or_insert(at);
            } else if let Some(found) = phase_line(line) {
                if let Some(section) = index.sections.get_mut(at) {
                    if !section.iter().any(|(k, _)| *k == found.0) {
                        section.push(found);
                    }
                }
            }
        }
        for section in &mut index.sections {
            section.sort_by_key(|(k, _)| PHASE_LINES.iter().position(|p| p == k));
        }
        index
    }

    fn of(&self, id: &str) -> &[(&'static str, String)] {
        self.task_section
            .get(id)
            .and_then(|&i| self.sections.get(i))
            .map_or(&[], Vec::as_slice)
    }
}

/// The phase lines of task `id` in the plan at `path`. The index of the last plan
/// read is kept (checked against its size and mtime), so a run that briefs many
/// tasks reads and scans the plan once.
fn phase_lines(path: &Path, id: &str) -> Vec<(&'static str, String)> {
    type Key = (std::path::PathBuf, u64, Option<std::time::SystemTime>);
    static LAST: std::sync::Mutex<Option<(Key, PhaseIndex)>> = std::sync::Mutex::new(None);
    let Ok(meta) = std::fs::metadata(path) else {
        return Vec::new();
    };
    let key: Key = (path.to_path_buf(), meta.len(), meta.modified().ok());
    let mut last = LAST
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if last.as_ref().is_none_or(|(k, _)| *k != key) {
        let Ok(text) = std::fs::read_to_string(path) else {
            return Vec::new();
        };
        *last = Some((key, PhaseIndex::build(&text)));
    }
    last.as_ref()
        .map_or_else(Vec::new, |(_, index)| index.of(id).to_vec())
}

/// `**Goal**: text` (or one of the other phase keys) as `(key, text)`.
fn phase_line(line: &str) -> Option<(&'static str, String)> {
    let rest = line.trim().strip_prefix("**")?;
    PHASE_LINES.into_iter().find_map(|key| {
        let r = rest.strip_prefix(key)?.strip_prefix("**")?.trim_start();
        let value = r.strip_prefix(':').or_else(|| r.strip_prefix('：'))?.trim();
        (!value.is_empty()).then(|| (key, value.to_string()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phase_lines_come_from_the_tasks_section() {
        let text = "# Tasks\n\n## Phase 3: User Story 1\n\n**Goal**: sign in\n\n**Independent Test**: log in works\n\n### Implementation\n\n- [ ] T010 [US1] do it\n\n**Checkpoint**: US1 works\n\n## Phase 4\n\n**Goal**: other\n\n- [x] T011 more\n";
        let index = PhaseIndex::build(text);
        assert_eq!(
            index.of("T010"),
            [
                ("Goal", "sign in".to_string()),
                ("Independent Test", "log in works".to_string()),
                ("Checkpoint", "US1 works".to_string())
            ]
        );
        assert_eq!(index.of("T011"), [("Goal", "other".to_string())]);
        assert!(index.of("T099").is_empty());
    }
}
