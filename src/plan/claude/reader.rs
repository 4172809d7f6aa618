//! The claude-workflow format as a [`Reader`]: detecting it, and writing a status
//! back into its heading, its `状态` field or a field line's box.

use super::{
    candidate, each_kind, field_line, heading_content, heading_id, is_task_heading, looks_like,
    loose_shape, parse, task_heading, FieldLine, Kind,
};
use crate::plan::doc::{self, Line};
use crate::plan::fields::{self, Key};
use crate::plan::format::{counted, Detector, Evidence, Facts, Links, Pass, Reader, Shown, Spot};
use crate::plan::ids;
use crate::plan::outline::Drafts;
use crate::plan::status;
use crate::plan::{PlanError, PlanWarning};
use crate::state::machine::TaskStatus;
use std::path::Path;

/// The claude-workflow format: `## T1: name` headings and `- **字段**: 值` fields.
pub(crate) struct ClaudeWorkflow;

/// The spot kinds of a claude-workflow plan: the heading's emoji (or the box a
/// heading holds), the `状态` field, the box of a field line (`- [x] **Description**:`).
const HEADING: &str = "heading";
const STATUS_FIELD: &str = "status_field";
const FIELD_BOX: &str = "field_box";
/// The heading of a task whose field box shows its status: an emoji it has is kept
/// true, none is added.
const HEADING_BESIDE_BOX: &str = "heading_beside_box";

impl Reader for ClaudeWorkflow {
    fn name(&self) -> &'static str {
        "claude-workflow"
    }

    fn example(&self) -> &'static str {
        "`## T1: name` headings"
    }

    fn detector(&self, _path: Option<&Path>) -> Box<dyn Detector> {
        Box::new(Headings::default())
    }

    fn parse(
        &self,
        text: &str,
        drafts: &mut Drafts<'_>,
        warnings: &mut Vec<PlanWarning>,
        _pass: Pass,
    ) -> Result<Links, PlanError> {
        parse(doc::iter(text), drafts, warnings).map(|()| None)
    }

    fn deps_written_in(&self) -> &'static str {
        "its Depends field"
    }

    fn spots(&self, text: &str, each: &mut dyn FnMut(Spot<'_>)) {
        // The spots of the block being read, given when it ends: a heading shows no
        // emoji for a task whose field box shows its status (unless it has one).
        type Block = Option<(String, Vec<(usize, &'static str)>)>;
        let mut flush = |block: &mut Block| {
            let Some((id, spots)) = block.take() else {
                return;
            };
            let boxed = spots.iter().any(|s| s.1 == FIELD_BOX);
            for (at, kind) in spots {
                let kind = if boxed && kind == HEADING {
                    HEADING_BESIDE_BOX
                } else {
                    kind
                };
                each(Spot { id: &id, at, kind });
            }
        };
        let mut block: Block = None;
        let Ok(()) = each_kind(doc::iter(text), |line, kind| {
            let at = doc::offset_in(text, line.raw);
            let raw = line.text_is_raw();
            match kind {
                Kind::TaskHeading(h) => {
                    flush(&mut block);
                    let spots = if raw { vec![(at, HEADING)] } else { Vec::new() };
                    block = Some((h.id.to_string(), spots));
                }
                Kind::End | Kind::BadHeading(_) | Kind::Suspect(_) => flush(&mut block),
                Kind::Field(f) => {
                    let Some((id, spots)) = block.as_mut() else {
                        return Ok(());
                    };
                    if fields::canon(f.key) == Some(Key::Id) {
                        // The task's id is the field's (`fields::build`).
                        let v = f.value.trim_matches('`').trim();
                        if ids::is_valid_id(v) {
                            *id = v.to_string();
                        }
                    }
                    if !raw {
                        return Ok(());
                    }
                    if fields::canon(f.key) == Some(Key::Status) {
                        spots.push((at, STATUS_FIELD));
                    } else if f.boxed.is_some() && !spots.iter().any(|s| s.1 == FIELD_BOX) {
                        spots.push((at, FIELD_BOX));
                    }
                }
                _ => {}
            }
            Ok::<(), std::convert::Infallible>(())
        });
        flush(&mut block);
    }

    fn show(
        &self,
        text: &str,
        at: usize,
        kind: &'static str,
        // Not checked against the heading: an `ID` field may name the task.
        _id: &str,
        status: Option<TaskStatus>,
    ) -> Option<Shown> {
        let raw = doc::line_at(text, at)?;
        let new = match kind {
            HEADING | HEADING_BESIDE_BOX => {
                heading_id(raw)?;
                let has_emoji = status::split_heading_status(raw).1.is_some();
                match heading_box(raw) {
                    Some((at, mark)) => status.and_then(|s| with_box(raw, at, mark, s)),
                    None if kind == HEADING || has_emoji => {
                        status.and_then(|s| heading_line(raw, s))
                    }
                    None => None,
                }
            }
            STATUS_FIELD => {
                let f = field_line(raw).filter(|f| fields::canon(f.key) == Some(Key::Status))?;
                status.and_then(|s| status_field_line(raw, &f, s))
            }
            FIELD_BOX => {
                let (at, mark) = field_line(raw)?.boxed?;
                status.and_then(|s| with_box(raw, at, mark, s))
            }
            _ => return None,
        };
        Some((raw.len(), new))
    }

    fn spot_kinds(&self) -> &'static [&'static str] {
        &[HEADING, STATUS_FIELD, FIELD_BOX, HEADING_BESIDE_BOX]
    }

    fn writes_fields(&self) -> bool {
        true
    }

    fn starts_task(&self, text: &str) -> bool {
        is_task_heading(text)
    }
}

/// Detection's count of task headings: strict ones, and the others task fields
/// follow (`### Task 1.1: x`, `### 1.1 x` over `**Files:**`). A heading whose id is
/// also the id of a spec-kit task line restates that task (a "Task Details"
/// section) and is not counted: a spec-kit plan with such a section stays spec-kit.
#[derive(Default)]
struct Headings {
    ids: Vec<String>,
    /// A heading that is a task if a known field follows before the next heading.
    pending: Option<String>,
    looks_like: bool,
    /// A spec-kit task line was seen: a heading may restate one.
    task_lines: bool,
}

impl Detector for Headings {
    fn line(&mut self, line: &Line<'_>, facts: &Facts<'_>) {
        let text: &str = &line.text;
        self.task_lines |= facts.task_line.is_some();
        if let Some(h) = task_heading(text) {
            self.pending = None;
            self.ids.push(h.id.to_string());
            return;
        }
        if doc::heading(text).is_some() || doc::is_rule(text) {
            self.pending = heading_content(text)
                .and_then(candidate)
                .filter(|c| loose_shape(c.id) && ids::is_valid_id(c.id))
                .map(|c| c.id.to_string());
        } else if self.pending.is_some()
            && field_line(text).is_some_and(|f| fields::canon(f.key).is_some())
        {
            self.ids.extend(self.pending.take());
        }
        if !self.looks_like {
            self.looks_like = looks_like(line);
        }
    }

    fn finish(self: Box<Self>, text: &str) -> Evidence {
        let mut ids = self.ids;
        let headings = ids.len();
        if !ids.is_empty() && self.task_lines {
            // Read again only when there are both: most plans have one or the other.
            let lines: std::collections::HashSet<String> = doc::iter(text)
                .filter(|l| !l.hidden)
                .filter_map(|l| crate::plan::speckit::task_line(&l.text).map(|t| t.id.to_string()))
                .collect();
            ids.retain(|id| !lines.contains(id));
        }
        let restated = headings - ids.len();
        let mut why = Vec::new();
        if !ids.is_empty() {
            why.push(counted(
                ids.len(),
                "`## T1: name` task heading",
                "`## T1: name` task headings",
            ));
        }
        if restated > 0 {
            why.push(format!(
                "{restated} headings restate spec-kit task lines and are not counted"
            ));
        }
        if ids.is_empty() && self.looks_like {
            why.push("claude-workflow fields or headings without a task".into());
        }
        Evidence {
            tasks: ids.len(),
            bare: self.looks_like,
            why,
            ..Evidence::default()
        }
    }
}

/// The box a heading line holds (`### - [x] T001 name`): where its mark is, and it.
fn heading_box(raw: &str) -> Option<(usize, char)> {
    let hashes = raw.trim_start().bytes().take_while(|b| *b == b'#').count();
    let lead = raw.len() - raw.trim_start().len() + hashes;
    let content = raw.get(lead..)?;
    let (at, mark, _) = crate::plan::speckit::checkbox(content)?;
    Some((lead + at, mark))
}

/// The line `raw` whose box mark `mark` is at `at`, showing `s`: `x` for done, `-`
/// for skipped, the mark kept where it shows `s` already.
fn with_box(raw: &str, at: usize, mark: char, s: TaskStatus) -> Option<String> {
    let shows = crate::plan::marks::Legend::default().status(mark);
    let new = match s {
        _ if shows == s => mark,
        TaskStatus::Completed => 'x',
        TaskStatus::Skipped => '-',
        _ => ' ',
    };
    (new != mark).then(|| {
        format!(
            "{}{new}{}",
            raw.get(..at).unwrap_or(""),
            raw.get(at + mark.len_utf8()..).unwrap_or("")
        )
    })
}

/// A task heading showing `s`: its emoji replaced, added or removed.
fn heading_line(raw: &str, s: TaskStatus) -> Option<String> {
    let (kept, shown) = status::split_heading_status(raw);
    if shown.and_then(status::emoji) == status::emoji(s) {
        return None;
    }
    Some(match status::emoji(s) {
        Some(e) => format!("{kept} {e}"),
        None => kept.to_string(),
    })
}

/// A `状态` field showing `s`, unless its value already reads as `s`.
fn status_field_line(raw: &str, f: &FieldLine<'_>, s: TaskStatus) -> Option<String> {
    if status::parse_word(f.value) == Some(s) {
        return None;
    }
    Some(format!("{}{}", raw.get(..f.value_at)?, s.as_str()))
}
