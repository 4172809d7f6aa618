//! A checklist format behind the plan-format interface: what each of Kiro, OpenSpec
//! and BMAD gives ([`Checklist`]), the parse and order they share, and the status
//! written back in the box.

use std::path::Path;

use super::{add_order_edges, assign_ids, collect, item, Dialect};
use crate::plan::doc;
use crate::plan::format::{counted, Context, Detector, Facts, Links, Pass, Reader, Shown, Spot};
use crate::plan::outline::{Drafts, Node};
use crate::plan::{marks, status};
use crate::plan::{PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use crate::state::model::Task;

/// A checklist format: its name, how it reads, and what tells it apart.
pub(crate) struct Checklist {
    pub name: &'static str,
    /// How its tasks are written, for the "no tasks" error.
    pub example: &'static str,
    pub dialect: Dialect,
    /// Its look at a text during detection, given the text's path.
    pub detector: fn(Option<&Path>) -> Box<dyn Detector>,
    /// What the plan says around a task, for its brief.
    pub context: fn(&Path, &Task) -> Context,
}

/// The one spot kind of a checklist: the box of the task's line.
const CHECKBOX: &str = "checkbox";

impl Reader for Checklist {
    fn name(&self) -> &'static str {
        self.name
    }

    fn example(&self) -> &'static str {
        self.example
    }

    fn detector(&self, path: Option<&Path>) -> Box<dyn Detector> {
        (self.detector)(path)
    }

    fn parse(
        &self,
        text: &str,
        drafts: &mut Drafts<'_>,
        warnings: &mut Vec<PlanWarning>,
        _pass: Pass,
    ) -> Result<Links, PlanError> {
        super::parse(text, &self.dialect, drafts, warnings).map(|()| None)
    }

    fn add_implied_deps(&self, nodes: &mut [Node]) {
        add_order_edges(nodes);
    }

    fn deps_written_in(&self) -> &'static str {
        "its _Depends:_ line"
    }

    fn cycle_note(&self) -> &'static str {
        " (document order counts: a task waits for the one before it, a parent for its sub-tasks)"
    }

    fn spots(&self, text: &str, each: &mut dyn FnMut(Spot<'_>)) {
        let mut entries = collect(text, &self.dialect, &mut Vec::new());
        assign_ids(&mut entries, &mut Vec::new());
        let mut next = entries.iter().peekable();
        for line in doc::iter(text) {
            let Some(e) = next.next_if(|e| e.line <= line.no) else {
                continue;
            };
            if e.line == line.no && line.text_is_raw() {
                each(Spot {
                    id: &e.id,
                    at: doc::offset_in(text, line.raw),
                    kind: CHECKBOX,
                });
            }
        }
    }

    fn show(
        &self,
        text: &str,
        at: usize,
        kind: &'static str,
        id: &str,
        status: Option<TaskStatus>,
    ) -> Option<Shown> {
        let raw = doc::line_at(text, at)?;
        let it = item(raw).filter(|_| kind == CHECKBOX)?;
        // A numbered item shows its number in its id (`1.1`, or `1.1-2` for a
        // number written twice).
        if let Some(n) = it.number {
            let ok = id == n || id.strip_prefix(n).is_some_and(|r| r.starts_with('-'));
            ok.then_some(())?;
        }
        let progress = (self.dialect.dash == TaskStatus::InProgress).then_some('-');
        Some((
            raw.len(),
            status.and_then(|s| boxed(raw, it.check_at, it.mark, progress, s)),
        ))
    }

    fn spot_kinds(&self) -> &'static [&'static str] {
        &[CHECKBOX]
    }

    fn starts_task(&self, text: &str) -> bool {
        item(text).is_some()
    }

    fn context(&self, plan: &Path, task: &Task) -> Context {
        (self.context)(plan, task)
    }
}

/// The checkbox line `raw` (its box at `check_at` holding `mark`) showing `s`: the
/// box, and a `(deferred)` note added for a skipped task whose line does not say so,
/// or a deferral note removed from a task that is not skipped. `progress` is the
/// mark the format writes for a task in progress (Kiro's `-`).
fn boxed(
    raw: &str,
    check_at: usize,
    mark: char,
    progress: Option<char>,
    s: TaskStatus,
) -> Option<String> {
    let after_box = check_at + mark.len_utf8() + 1;
    let rest = raw.get(after_box..)?;
    let note = marks::deferral(rest.trim_start_matches('*'), false).and_then(|d| d.span);
    let struck = marks::deferral(rest.trim_start_matches('*').trim(), false)
        .is_some_and(|d| d.span.is_none());
    let open = matches!(mark, ' ');
    // A mark that an import reads as it reads `s` stays (Kiro's `[-]`, in progress,
    // for a pending task: neither is finished work).
    let dash = progress.map_or(TaskStatus::Skipped, |_| TaskStatus::InProgress);
    let reads = status::imported(marks::Legend::with(dash).status(mark)) == status::imported(s);
    let new_box = match s {
        TaskStatus::Completed if matches!(mark, 'x' | 'X') => mark,
        TaskStatus::Completed => 'x',
        TaskStatus::Skipped if note.is_some() || struck || !(open || matches!(mark, 'x' | 'X')) => {
            mark
        }
        _ if reads && !matches!(mark, 'x' | 'X') => mark,
        TaskStatus::InProgress => progress.unwrap_or(' '),
        _ => ' ',
    };
    let mut rest = rest.to_string();
    let star = usize::from(rest.starts_with('*'));
    match (s, note) {
        (TaskStatus::Skipped, None) if !struck && (open || matches!(mark, 'x' | 'X')) => {
            rest = format!("{} (deferred)", rest.trim_end());
        }
        (TaskStatus::Skipped, _) => {}
        (_, Some((a, b))) => rest = marks::without_span(&rest, (a + star, b + star))?,
        _ => {}
    }
    let new = format!("{}{new_box}]{rest}", raw.get(..check_at)?);
    (new != raw).then_some(new)
}

/// Detection's count of checkbox items for a checklist format: numbered ones and all
/// of them, inside the dialect's section (when it has one) and outside claude-workflow
/// task blocks (a checklist inside a `## T1:` task is that task's).
pub(crate) struct Counter {
    pub numbered: usize,
    pub all: usize,
    /// The same two counts under headings of boxes that are not tasks, which the
    /// parse reads only when there are no others.
    aside: (usize, usize),
    aside_level: Option<usize>,
    section: Option<fn(&str) -> bool>,
    /// The level of the section heading we are under.
    region: Option<usize>,
    in_claude_task: bool,
}

impl Counter {
    pub(crate) fn new(section: Option<fn(&str) -> bool>) -> Counter {
        Counter {
            numbered: 0,
            all: 0,
            aside: (0, 0),
            aside_level: None,
            section,
            region: None,
            in_claude_task: false,
        }
    }

    /// Counts `line`; true when it is a heading (the caller may look at it too).
    pub(crate) fn line(&mut self, facts: &Facts<'_>) -> bool {
        if let Some((level, h)) = facts.heading {
            self.in_claude_task = facts.claude_task;
            if self.aside_level.is_some_and(|l| level <= l) {
                self.aside_level = None;
            }
            if self.aside_level.is_none() && facts.not_tasks {
                self.aside_level = Some(level);
            }
            if let Some(accepts) = self.section {
                if accepts(h) {
                    self.region = Some(level);
                } else if self.region.is_some_and(|l| level <= l) {
                    self.region = None;
                }
            }
            return true;
        }
        if self.in_claude_task || (self.section.is_some() && self.region.is_none()) {
            return false;
        }
        if let Some(numbered) = facts.item {
            let numbered = usize::from(numbered);
            if self.aside_level.is_some() {
                self.aside.0 += 1;
                self.aside.1 += numbered;
            } else {
                self.all += 1;
                self.numbered += numbered;
            }
        }
        false
    }

    /// The count of tasks, and detection's words for it: every checkbox when `all`
    /// (the plan's path says it is the format's), else the numbered ones; those under
    /// headings of other lists only when there are no others.
    pub(crate) fn counted_tasks(&mut self, all: bool) -> (usize, String) {
        if self.all == 0 {
            (self.all, self.numbered) = self.aside;
        }
        let (n, one, many) = if all {
            (self.all, "checkbox task", "checkbox tasks")
        } else {
            (
                self.numbered,
                "numbered checkbox task",
                "numbered checkbox tasks",
            )
        };
        (n, counted(n, one, many))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_box_shows_the_status_and_nothing_else_moves() {
        let b = |raw: &str, s| {
            let it = item(raw).unwrap();
            boxed(raw, it.check_at, it.mark, None, s)
        };
        assert_eq!(
            b("- [ ] 1.1 Do it", TaskStatus::Completed).as_deref(),
            Some("- [x] 1.1 Do it")
        );
        assert_eq!(b("- [X] 1.1 Do it", TaskStatus::Completed), None);
        assert_eq!(
            b("  - [ ]* 2.3 Tests", TaskStatus::Completed).as_deref(),
            Some("  - [x]* 2.3 Tests")
        );
        assert_eq!(
            b("- [x] 1.1 Do it", TaskStatus::Pending).as_deref(),
            Some("- [ ] 1.1 Do it")
        );
        assert_eq!(
            b("- [ ] 1.1 Do it", TaskStatus::Skipped).as_deref(),
            Some("- [ ] 1.1 Do it (deferred)")
        );
        assert_eq!(b("- [ ] 1.1 Do it (deferred)", TaskStatus::Skipped), None);
        assert_eq!(
            b("- [ ] 1.1 Do it (deferred) now", TaskStatus::Completed).as_deref(),
            Some("- [x] 1.1 Do it now")
        );
        assert_eq!(b("- [~] 1.1 Do it", TaskStatus::Skipped), None);
        assert_eq!(b("- [ ] ~~1.1 Do it~~", TaskStatus::Skipped), None);
        // An open box and Kiro's `[-]` both read as not finished: either stays.
        let open = item("- [ ] 1.1 Do it").unwrap();
        let kiro = |raw: &str, mark, s| boxed(raw, open.check_at, mark, Some('-'), s);
        assert_eq!(kiro("- [ ] 1.1 Do it", ' ', TaskStatus::InProgress), None);
        assert_eq!(kiro("- [-] 1.1 Do it", '-', TaskStatus::Pending), None);
        assert_eq!(
            kiro("- [x] 1.1 Do it", 'x', TaskStatus::InProgress).as_deref(),
            Some("- [-] 1.1 Do it")
        );
        // `[-]` is skipped where it is not Kiro's.
        assert_eq!(
            boxed(
                "- [-] 1.1 Do it",
                open.check_at,
                '-',
                None,
                TaskStatus::Pending
            )
            .as_deref(),
            Some("- [ ] 1.1 Do it")
        );
    }
}
