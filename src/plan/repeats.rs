//! An id written twice: the same task written again, a summary restating it, or
//! two tasks that share an id, each read as docs/plans.md "An id written twice"
//! says, with a warning naming both lines: none refuses the plan, none is dropped
//! without a word.
//!
//! Deciding needs each copy's name, section and status, which the first pass does
//! not keep: the text is parsed again for them, only when an id repeats.

use super::format::{Links, Pass};
use super::outline::Node;
use super::{Format, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// What was done with the repeats, for the second pass over the text to do again:
/// the lines of the copies not read, the new id of each task read under one, and
/// the status a later copy gave a task.
#[derive(Debug, Default)]
pub(crate) struct Settled {
    pub dropped: Vec<u32>,
    pub renamed: Vec<(u32, String)>,
    pub restatus: Vec<(u32, TaskStatus)>,
}

/// A copy of a task as the text has it.
struct Copy {
    line: u32,
    name: String,
    phase: String,
    /// The section it is in (spec-kit's `## ` sections, counted).
    group: usize,
    status: TaskStatus,
}

/// Settles every id of `nodes` written more than once (`repeats`: the first copy's
/// position and each later one's), in `nodes`, `tasks` (when the first pass keeps
/// them) and `links`.
pub(crate) fn settle(
    format: Format,
    text: &str,
    nodes: &mut Vec<Node>,
    tasks: &mut Vec<Task>,
    links: &mut Links,
    repeats: &[(usize, usize)],
    warnings: &mut Vec<PlanWarning>,
) -> Settled {
    let lines: Vec<u32> = repeats
        .iter()
        .flat_map(|&(first, later)| [first, later])
        .filter_map(|i| nodes.get(i).map(|n| n.line))
        .collect();
    let copies = copies(format, text, &lines);
    let copy = |line: u32| copies.iter().find(|c| c.line == line);
    let mut settled = Settled::default();
    let mut drop = vec![false; nodes.len()];
    let mut taken: std::collections::HashSet<String> =
        nodes.iter().map(|n| n.id().to_string()).collect();
    for &(first, later) in repeats {
        let (Some(f), Some(l)) = (nodes.get(first), nodes.get(later)) else {
            continue;
        };
        let (id, first_line, later_line) = (l.id().to_string(), f.line, l.line);
        let (Some(a), Some(b)) = (copy(first_line), copy(later_line)) else {
            continue;
        };
        if summary(&b.phase) && !summary(&a.phase) {
            if let Some(d) = drop.get_mut(later) {
                *d = true;
            }
            settled.dropped.push(later_line);
            warnings.push(PlanWarning::new(
                later_line as usize,
                format!(
                    "task {id} is restated here in a summary (first at line {first_line}), so it is not read again; nothing to do unless it is another task, then give it an id of its own"
                ),
            ));
        } else if same_task(a, b) {
            if let Some(d) = drop.get_mut(later) {
                *d = true;
            }
            settled.dropped.push(later_line);
            settled.restatus.retain(|r| r.0 != first_line);
            settled.restatus.push((first_line, b.status));
            if let Some(t) = tasks.get_mut(first) {
                t.status = b.status;
            }
            warnings.push(PlanWarning::new(
                later_line as usize,
                format!(
                    "task {id} is written again here (first at line {first_line}): read as one task, with the status written here; remove one of the two"
                ),
            ));
        } else {
            // One of `taken.len() + 1` names is free.
            let new = (2..taken.len() + 3)
                .map(|k| format!("{id}-{k}"))
                .find(|c| !taken.contains(c))
                .unwrap_or_default();
            taken.insert(new.clone());
            if let Some(n) = nodes.get_mut(later) {
                n.rename(&new);
            }
            if let Some(t) = tasks.get_mut(later) {
                t.id.clone_from(&new);
            }
            warnings.push(PlanWarning::new(
                later_line as usize,
                format!(
                    "task {id} is used again here for another task (first at line {first_line}), so this one is read as {new}; give each task its own id"
                ),
            ));
            settled.renamed.push((later_line, new));
        }
    }
    if drop.iter().any(|d| *d) {
        let positions = kept_places(drop.iter().copied());
        let mut keep = drop.iter().map(|d| !d);
        nodes.retain(|_| keep.next().unwrap_or(true));
        if !tasks.is_empty() {
            let mut keep = drop.iter().map(|d| !d);
            tasks.retain(|_| keep.next().unwrap_or(true));
        }
        if let Some(links) = links {
            links.remap(|i| positions.get(i).copied().flatten());
        }
    }
    settled.dropped.sort_unstable();
    settled.renamed.sort_unstable();
    settled.restatus.sort_unstable_by_key(|r| r.0);
    settled
}

/// Where each item is once the `dropped` ones are taken out: its new position, or
/// `None` when it is dropped.
pub(crate) fn kept_places(dropped: impl IntoIterator<Item = bool>) -> Vec<Option<usize>> {
    let mut places = 0..;
    dropped
        .into_iter()
        .map(|d| if d { None } else { places.next() })
        .collect()
}

/// A section that restates tasks: a summary, a progress list, a checklist.
fn summary(phase: &str) -> bool {
    let p = phase.to_lowercase();
    super::checklist::not_tasks(phase)
        || [
            "progress", "summary", "status", "recap", "overview", "tracking",
        ]
        .iter()
        .any(|w| p.contains(w))
}

/// Whether two copies are the same task written twice: in a section pasted again
/// (another section of the same heading), under the same name or one holding the
/// other, or as a line that says it is done.
fn same_task(first: &Copy, later: &Copy) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let (a, b) = (norm(&first.name), norm(&later.name));
    let pasted =
        !first.phase.is_empty() && first.phase == later.phase && first.group != later.group;
    let restates = ["done", "completed", "complete", "✅", "完成", "已完成"]
        .iter()
        .any(|w| b.starts_with(w));
    let holds = |x: &str, y: &str| y.chars().count() >= 8 && x.contains(y);
    pasted || a == b || holds(&a, &b) || holds(&b, &a) || restates
}

/// The copies at `lines`, from a parse of `text`.
fn copies(format: Format, text: &str, lines: &[u32]) -> Vec<Copy> {
    let mut out = Vec::new();
    let mut sink = |d: super::Draft| {
        let line = crate::state::ids::narrow(d.task.line);
        if lines.contains(&line) {
            out.push(Copy {
                line,
                name: d.task.name,
                phase: d.task.phase,
                group: d.group,
                status: d.task.status,
            });
        }
        Ok(())
    };
    let _ = super::outline::run_parser(format, text, &mut sink, &mut Vec::new(), Pass::Second);
    out
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::plan::parse;

    #[test]
    fn a_repeated_section_the_same_task_again_and_another_task_under_an_id() {
        let text = "## Phase 1\n- [ ] T001 a\n- [ ] T002 b\n## Phase 2\n- [ ] T003 c (depends on T001)\n- [ ] T001 other work\n## Phase 1\n- [x] T002 b\n- [ ] T009 ship it\n- [x] T009 done — shipped\n";
        let plan = parse(Path::new("tasks.md"), text).unwrap();
        let got: Vec<(&str, usize)> = plan.tasks.iter().map(|t| (t.id.as_str(), t.line)).collect();
        assert_eq!(
            got,
            [
                ("T001", 2),
                ("T002", 3),
                ("T003", 5),
                ("T001-2", 6),
                ("T009", 9)
            ],
            "{:?}",
            plan.warnings
        );
        // T002 and T009 are where their first copies are, with the later ones'
        // status: done.
        assert_eq!(
            plan.tasks[1].status,
            crate::state::machine::TaskStatus::Completed
        );
        assert_eq!(
            plan.tasks[4].status,
            crate::state::machine::TaskStatus::Completed
        );
        assert!(plan.tasks[1].deps.contains(&"T001".to_string()));
        let lines: Vec<usize> = plan.warnings.iter().map(|w| w.line).collect();
        assert_eq!(lines, [6, 8, 10]);
        assert!(plan.warnings[0].message.contains("read as T001-2"));
        assert!(
            plan.warnings[1].message.contains("first at line 3"),
            "{:?}",
            plan.warnings
        );
    }
}
