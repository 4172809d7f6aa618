//! spec-kit behind the plan-format interface: detection, the parse, the phase order,
//! and the status written back on the task line.

use std::path::Path;

#[allow(clippy::wildcard_imports)] // the parser's shared imports and its sibling modules
use super::*;
use crate::plan::format::{counted, Context, Detector, Evidence, Links, Pass, Reader, Shown, Spot};

/// The spec-kit format: `- [ ] T001 [P] [US1] description` lines under phase headings.
pub(crate) struct SpecKit;

/// The one spot kind of a spec-kit plan: the task line's box and DEFERRED marker.
const TASK_LINE: &str = "task_line";

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
        parse(doc::iter(text), drafts, warnings, pass == Pass::First).map(Some)
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
        let template = lines
            .iter()
            .any(|l| !l.hidden && l.text.contains("{{") && l.text.contains("}}"));
        let line = (!template).then(|| first_idless(lines)).flatten()?;
        Some(PlanError::new(
            line,
            "the spec-kit plan has no tasks: this checkbox has no task id; give each task an id, e.g. `- [ ] T001 description`",
        ))
    }

    fn spots(&self, text: &str, each: &mut dyn FnMut(Spot<'_>)) {
        for line in doc::iter(text) {
            if !line.text_is_raw() {
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
        let tl = task_line(raw).filter(|tl| kind == TASK_LINE && tl.id == id)?;
        Some((raw.len(), status.and_then(|s| shown_line(raw, &tl, s))))
    }

    fn spot_kinds(&self) -> &'static [&'static str] {
        &[TASK_LINE]
    }

    fn starts_task(&self, text: &str) -> bool {
        is_task_line(text)
    }

    fn context(&self, plan: &Path, task: &Task) -> Context {
        super::context::of(plan, &task.id)
    }
}

/// Detection's count of task lines; phase headings and placeholder lines mark a
/// spec-kit plan without tasks.
#[derive(Default)]
struct Lines {
    tasks: usize,
    looks_like: bool,
}

impl Detector for Lines {
    fn line(&mut self, line: &Line<'_>) {
        if is_task_line(&line.text) {
            self.tasks += 1;
        } else if !self.looks_like {
            self.looks_like = looks_like(&line.text);
        }
    }

    fn finish(self: Box<Self>, _text: &str) -> Evidence {
        let why = if self.tasks > 0 {
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
            signs: 0,
            bare: self.looks_like,
            why: vec![why],
        }
    }
}

/// The task line `raw` (read as `tl`) showing `s`: its box, and its ` — DEFERRED`
/// marker.
pub(crate) fn shown_line(raw: &str, tl: &TaskLine<'_>, s: TaskStatus) -> Option<String> {
    let span = deferred_span(tl.desc);
    let old_box = raw.get(tl.check_at..)?.chars().next()?;
    let new_box = match s {
        TaskStatus::Completed if tl.checked() => old_box,
        TaskStatus::Completed => 'x',
        TaskStatus::Skipped if span.is_some() || tl.skip_box() => old_box,
        _ => ' ',
    };
    let desc = match (s, span) {
        (TaskStatus::Skipped, None) if tl.skip_box() => tl.desc.to_string(),
        (TaskStatus::Skipped, None) => format!("{} — DEFERRED", tl.desc),
        (TaskStatus::Skipped, Some(_)) | (_, None) => tl.desc.to_string(),
        (_, Some((a, b))) => {
            let before = tl.desc.get(..a)?.trim_end();
            let after = tl.desc.get(b..)?.trim_start();
            if after.is_empty() {
                before.to_string()
            } else {
                format!("{before} {after}")
            }
        }
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
