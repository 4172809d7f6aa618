//! spec-kit behind the plan-format interface: detection, the parse, the phase order,
//! and the status written back on the task line.

use std::path::Path;

#[allow(clippy::wildcard_imports)] // the parser's shared imports and its sibling modules
use super::*;
use crate::plan::format::{
    counted, Context, Detector, Evidence, Facts, Links, Pass, Reader, Shown, Spot,
};

/// The spec-kit format: `- [ ] T001 [P] [US1] description` lines under phase headings.
pub(crate) struct SpecKit;

/// The spot kinds of a spec-kit plan: the task line's box and DEFERRED marker, a
/// task table row's status cell.
const TASK_LINE: &str = "task_line";
const TABLE_ROW: &str = "table_row";

impl Reader for SpecKit {
    fn name(&self) -> &'static str {
        "spec-kit"
    }

    fn example(&self) -> &'static str {
        "`- [ ] T001 description` lines"
    }

    fn detector(&self, _path: Option<&Path>) -> Box<dyn Detector> {
        Box::new(Lines::default())
    }

    fn parse(
        &self,
        text: &str,
        drafts: &mut Drafts<'_>,
        warnings: &mut Vec<PlanWarning>,
        pass: Pass,
    ) -> Result<Links, PlanError> {
        parse(text, drafts, warnings, pass == Pass::First).map(Some)
    }

    fn add_implied_deps(&self, nodes: &mut [Node]) {
        add_phase_edges(nodes);
    }

    fn deps_written_in(&self) -> &'static str {
        "its (depends on …)"
    }

    fn cycle_note(&self) -> &'static str {
        " (phase order counts: a task cannot depend on a task of a later phase or a later unmarked task of its phase)"
    }

    fn no_tasks(&self, lines: &[Line<'_>]) -> Option<PlanError> {
        let line = first_idless(lines).filter(|_| !doc::has_template(lines))?;
        Some(PlanError::new(
            line,
            "the spec-kit plan has no tasks: this checkbox has no task id; give each task an id, e.g. `- [ ] T001 description`",
        ))
    }

    fn spots(&self, text: &str, each: &mut dyn FnMut(Spot<'_>)) {
        let mut tables = Tables::default();
        for line in doc::iter(text) {
            if !line.text_is_raw() {
                tables = Tables::default();
                continue;
            }
            if let TableLine::Row(columns) = tables.line(line.raw) {
                if let Some(r) = table::row(line.raw, &columns) {
                    each(Spot {
                        id: r.id,
                        at: doc::offset_in(text, line.raw),
                        kind: TABLE_ROW,
                    });
                }
                continue;
            }
            if let Some(tl) = task_line(line.raw) {
                let at = doc::offset_in(text, line.raw);
                each(Spot {
                    id: tl.id,
                    at,
                    kind: TASK_LINE,
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
        if kind == TABLE_ROW {
            let first = table::cells(raw)?
                .into_iter()
                .any(|c| c.trim_matches(['*', '`']) == id);
            first.then_some(())?;
            return Some((raw.len(), status.and_then(|s| table::with_status(raw, s))));
        }
        let tl = task_line(raw).filter(|tl| kind == TASK_LINE && tl.id == id)?;
        Some((raw.len(), status.and_then(|s| shown_line(raw, &tl, s))))
    }

    fn spot_kinds(&self) -> &'static [&'static str] {
        &[TASK_LINE, TABLE_ROW]
    }

    fn starts_task(&self, text: &str) -> bool {
        task_line(text).is_some()
    }

    fn context(&self, plan: &Path, task: &Task) -> Context {
        super::context::of(plan, &task.id)
    }
}

/// Detection's count of task lines (of another family than `T`, those the plan has
/// two of at least); phase headings and placeholder lines mark a spec-kit plan
/// without tasks.
#[derive(Default)]
struct Lines {
    tasks: usize,
    /// `- T001: …` bullets without a box, tasks of a plan that has no boxed ones.
    bullets: usize,
    rows: usize,
    others: Families,
    tables: Tables,
    looks_like: bool,
}

impl Detector for Lines {
    fn line(&mut self, line: &Line<'_>, facts: &Facts<'_>) {
        match self.tables.line(&line.text) {
            TableLine::Row(columns) => {
                self.rows += usize::from(table::row(&line.text, &columns).is_some());
                return;
            }
            TableLine::Part => return,
            TableLine::Other => {}
        }
        match &facts.task_line {
            Some(tl) if tl.other => self.others.add(tl),
            Some(_) => self.tasks += 1,
            None if bullet_line(&line.text).is_some() => self.bullets += 1,
            None if !self.looks_like => self.looks_like = looks_like(&line.text),
            None => {}
        }
    }

    fn finish(mut self: Box<Self>, _text: &str) -> Evidence {
        self.tasks += self.others.read_count() + self.rows;
        let bullets = self.tasks == 0 && self.bullets > 0;
        if bullets {
            self.tasks = self.bullets;
        }
        let why = if bullets {
            counted(
                self.bullets,
                "`- T001:` bullet without a box",
                "`- T001:` bullets without a box",
            )
        } else if self.rows > 0 {
            counted(self.rows, "task table row", "task table rows")
        } else if self.tasks > 0 {
            counted(
                self.tasks,
                "`- [ ] T001` task line",
                "`- [ ] T001` task lines",
            )
        } else {
            "spec-kit phase headings or placeholder task lines, without a task".to_string()
        };
        Evidence {
            tasks: self.tasks,
            bare: self.looks_like,
            why: vec![why],
            ..Evidence::default()
        }
    }
}

/// The task line `raw` (read as `tl`) showing `s`: its box, and its ` — DEFERRED`
/// marker. A mark that shows `s` as marks do by default (`[-]` skipped, `[~]` in
/// progress) and a deferral the line already writes stay as written.
pub(crate) fn shown_line(raw: &str, tl: &TaskLine<'_>, s: TaskStatus) -> Option<String> {
    use crate::plan::status::imported;
    let span = deferred_span(tl.desc);
    let deferred = crate::plan::marks::deferral(tl.desc, tl.struck).is_some();
    let old_box = raw.get(tl.check_at..)?.chars().next()?;
    let shows = crate::plan::marks::Legend::default().status(old_box);
    let new_box = match s {
        TaskStatus::Completed if tl.checked() => old_box,
        TaskStatus::Completed => 'x',
        TaskStatus::Skipped if deferred || shows == TaskStatus::Skipped => old_box,
        // `[~]` for a pending task: an import reads both the same.
        _ if !tl.checked() && imported(shows) == imported(s) && !deferred => old_box,
        _ => ' ',
    };
    let desc = match (s, span) {
        (TaskStatus::Skipped, _) if deferred || shows == TaskStatus::Skipped => tl.desc.to_string(),
        (TaskStatus::Skipped, _) => format!("{} — DEFERRED", tl.desc),
        (_, None) => tl.desc.to_string(),
        (_, Some(span)) => crate::plan::marks::without_span(tl.desc, span)?,
    };
    let desc_end = tl.desc_at + tl.desc.len();
    let new = format!(
        "{}{new_box}{}{desc}{}",
        raw.get(..tl.check_at)?,
        raw.get(tl.check_at + old_box.len_utf8()..tl.desc_at)?,
        raw.get(desc_end..)?
    );
    (new != raw).then_some(new)
}
