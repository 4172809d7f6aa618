//! Writes task statuses back into the plan text, touching nothing else.
//!
//! claude-workflow: the status emoji at the end of each task heading (✅ ⏳ ❌ ⏭️; none
//! for pending and blocked) and the value of the task's `状态` field when it has one
//! (written as the English status word; a value that already reads as that status,
//! such as `已完成`, is left alone). spec-kit: the checkbox (`[x]` for completed,
//! `[ ]` otherwise) and the ` — DEFERRED` marker (added for skipped, removed with its
//! note otherwise; spec-kit has no way to write in-progress or failed). A skipped
//! task whose box already says so (`[-]`, `[~]`, any mark but ` `/`x`/`X`) keeps
//! its box as written and gets no marker. Every other
//! byte, line endings and a BOM included, stays as it was. Tasks are found by id with
//! the same block rules as the parser; a task line that also holds an inline HTML
//! comment is left alone.

use std::borrow::Borrow;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::claude::{self, Kind};
use super::doc::{self, Line};
use super::fields::{self, Key};
use super::speckit;
use super::status;
use super::Format;
use crate::error::Result;
use crate::fs::durable::write_atomic;
use crate::state::machine::TaskStatus;
use crate::state::model::Task;
use crate::state::Session;

/// `tasks` are a state's (`Arc<Task>`) or a plan's (`Task`).
pub fn mirror(format: Format, text: &str, tasks: &[impl Borrow<Task>]) -> String {
    let want: HashMap<&str, TaskStatus> = tasks
        .iter()
        .map(Borrow::borrow)
        .map(|t: &Task| (t.id.as_str(), t.status))
        .collect();
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(b) => ("\u{feff}", b),
        None => ("", text),
    };
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(bom);
    let lines = doc::lines(body);
    let kinds = match format {
        Format::ClaudeWorkflow => claude::kinds(&lines),
        Format::SpecKit => Vec::new(),
    };
    // claude-workflow: the wanted status of the task block we are in.
    let mut block: Option<TaskStatus> = None;
    for (i, (seg, line)) in body.split_inclusive('\n').zip(&lines).enumerate() {
        let new = match format {
            Format::ClaudeWorkflow => kinds
                .get(i)
                .and_then(|k| claude_line(line, k, &want, &mut block)),
            Format::SpecKit => speckit_line(line, &want),
        };
        match new {
            Some(content) => {
                out.push_str(&content);
                out.push_str(seg.get(line.raw.len()..).unwrap_or(""));
            }
            None => out.push_str(seg),
        }
    }
    out
}

fn claude_line(
    line: &Line<'_>,
    kind: &Kind<'_>,
    want: &HashMap<&str, TaskStatus>,
    block: &mut Option<TaskStatus>,
) -> Option<String> {
    match kind {
        Kind::TaskHeading(h) => {
            *block = want.get(h.id).copied();
            let s = (*block)?;
            if !line.text_is_raw() {
                return None;
            }
            let (kept, shown) = status::split_heading_status(line.raw);
            if shown.and_then(status::emoji) == status::emoji(s) {
                return None;
            }
            Some(match status::emoji(s) {
                Some(e) => format!("{kept} {e}"),
                None => kept.to_string(),
            })
        }
        Kind::End | Kind::BadHeading(_) | Kind::Suspect(_) => {
            *block = None;
            None
        }
        Kind::Field(f) if fields::canon(f.key) == Some(Key::Status) => {
            let s = (*block)?;
            if !line.text_is_raw() || status::parse_word(f.value) == Some(s) {
                return None;
            }
            Some(format!("{}{}", line.raw.get(..f.value_at)?, s.as_str()))
        }
        _ => None,
    }
}

fn speckit_line(line: &Line<'_>, want: &HashMap<&str, TaskStatus>) -> Option<String> {
    if !line.text_is_raw() {
        return None;
    }
    let raw = line.raw;
    let tl = speckit::task_line(raw)?;
    let s = *want.get(tl.id)?;
    let span = speckit::deferred_span(tl.desc);
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

/// Brings the plan copy's statuses up to the state; writes only when they differ.
pub fn mirror_plan_copy(session: &Session) -> Result<()> {
    match PlanCopy::of(session)? {
        Some(copy) => copy.bring_up_to(&session.state()?.tasks),
        None => Ok(()),
    }
}

/// A workflow's plan copy: where it is and in which format. Taken from the state,
/// so a run can mirror statuses into it on another thread while the state moves on.
#[derive(Debug, Clone)]
pub struct PlanCopy {
    path: PathBuf,
    format: Format,
}

impl PlanCopy {
    /// The session's plan copy; none when the state names a format this wf does not
    /// know (a state from a newer one keeps its copy as is) or a file that is not one
    /// plain name in the workflow dir.
    pub fn of(session: &Session) -> Result<Option<PlanCopy>> {
        let state = session.state()?;
        let Some(format) = state.plan_format.as_deref().and_then(Format::named) else {
            return Ok(None);
        };
        // tasks_file comes from a file a user may edit: one plain name, nothing more.
        let name = Path::new(&state.tasks_file);
        if name.components().count() != 1
            || !matches!(name.components().next(), Some(Component::Normal(_)))
        {
            return Ok(None);
        }
        Ok(Some(PlanCopy {
            path: session.store().dir().join(name),
            format,
        }))
    }

    /// Rewrites the copy with the statuses of `tasks` when they differ from what it
    /// shows; a missing or unreadable copy is left alone.
    pub fn bring_up_to(&self, tasks: &[Arc<Task>]) -> Result<()> {
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            return Ok(());
        };
        let mirrored = mirror(self.format, &text, tasks);
        if mirrored != text {
            write_atomic(&self.path, mirrored.as_bytes())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(id: &str, s: TaskStatus) -> Task {
        Task {
            id: id.into(),
            status: s,
            ..Task::default()
        }
    }

    #[test]
    fn claude_heading_and_field() {
        let text =
            "## T1: a\r\n- **状态**: pending\r\n## T2: b ✅\n- **状态**: 已完成\n## T3: c ⏭\n";
        let out = mirror(
            Format::ClaudeWorkflow,
            text,
            &[
                with("T1", TaskStatus::Completed),
                with("T2", TaskStatus::Completed),
                with("T3", TaskStatus::Pending),
            ],
        );
        assert_eq!(
            out,
            "## T1: a ✅\r\n- **状态**: completed\r\n## T2: b ✅\n- **状态**: 已完成\n## T3: c\n"
        );
    }

    #[test]
    fn speckit_box_and_marker() {
        let text = "\u{feff}- [ ] T1 a\n- [X] T2 b — DEFERRED: later (depends on T1)\n- [x] T3 c\n- [ ] T4 d";
        let out = mirror(
            Format::SpecKit,
            text,
            &[
                with("T1", TaskStatus::Skipped),
                with("T2", TaskStatus::Completed),
                with("T3", TaskStatus::Completed),
                with("T4", TaskStatus::InProgress),
            ],
        );
        assert_eq!(
            out,
            "\u{feff}- [ ] T1 a — DEFERRED\n- [X] T2 b (depends on T1)\n- [x] T3 c\n- [ ] T4 d"
        );
    }

    #[test]
    fn unknown_ids_and_hidden_lines_are_untouched() {
        let text = "```\n- [ ] T1 a\n```\n- [ ] T9 z\n";
        assert_eq!(
            mirror(Format::SpecKit, text, &[with("T1", TaskStatus::Completed)]),
            text
        );
    }

    #[test]
    fn a_skip_box_is_kept_as_written() {
        let text = "- [~] T1 a\n- [-] T2 b\n- [~] T3 c\n";
        let out = mirror(
            Format::SpecKit,
            text,
            &[
                with("T1", TaskStatus::Skipped),
                with("T2", TaskStatus::Completed),
                with("T3", TaskStatus::Pending),
            ],
        );
        assert_eq!(out, "- [~] T1 a\n- [x] T2 b\n- [ ] T3 c\n");
    }

    #[test]
    fn claude_heading_forms_get_their_emoji() {
        let text = "## **T2**: b\n- **actions**: x\n## T3 c\n- **actions**: x\n";
        let out = mirror(
            Format::ClaudeWorkflow,
            text,
            &[
                with("T2", TaskStatus::Completed),
                with("T3", TaskStatus::Completed),
            ],
        );
        assert_eq!(
            out,
            "## **T2**: b ✅\n- **actions**: x\n## T3 c ✅\n- **actions**: x\n"
        );
    }
}
