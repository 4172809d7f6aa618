//! The claude-workflow `tasks.md` format: where each task's block starts and ends.
//!
//! A task starts at a `## T1: name` (or `### T1: name`) heading, optionally followed
//! by a `<!-- id: T1, design_ref: 4.1 -->` line (V1), and holds `- **字段**: 值`
//! field lines; what each field means is [`super::fields`]. The block runs to the
//! next heading of any level, a thematic break (`---`) or the end of the file. The
//! plugin's own regex stopped each block at its first line end; that bug is not
//! copied. Stopping at any other heading or rule is what keeps a board's
//! `## Self-Review Checklist` and verification table (after `---`) out of the last task.
//!
//! A field value continues on the following lines when they are indented, or when
//! they follow it directly without a blank line and do not start a list item, table
//! or quote; a blank line followed by unindented prose ends it.
//!
//! A task heading is a level-2 or level-3 heading whose text up to its first colon
//! (`:` or `：`) starts with letters and a digit (`T1`, `T1.2`, `B12-fix`). That text is
//! the task id; when it is not a valid id (`^[A-Za-z0-9_.-]{1,64}$`) the plan is
//! refused rather than the task silently dropped. `## {{this.id}}: …` template
//! headings are not task headings.

use super::doc::{self, Line};
use super::fields::{self, Block, Field};
use super::{Draft, PlanError, PlanWarning};

/// The id and the rest (name, maybe with a status emoji) of a task heading.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TaskHeading<'a> {
    pub id: &'a str,
    pub name: &'a str,
}

pub(crate) fn task_heading(text: &str) -> Option<TaskHeading<'_>> {
    let (level, content) = doc::heading(text)?;
    if !(2..=3).contains(&level) {
        return None;
    }
    let letters = content.bytes().take_while(u8::is_ascii_alphabetic).count();
    if letters == 0
        || !content
            .as_bytes()
            .get(letters)
            .is_some_and(u8::is_ascii_digit)
    {
        return None;
    }
    let (colon, ch) = content
        .char_indices()
        .find(|(_, c)| matches!(c, ':' | '：'))?;
    Some(TaskHeading {
        id: content.get(..colon)?.trim(),
        name: content.get(colon + ch.len_utf8()..)?.trim(),
    })
}

pub(crate) fn is_task_heading(text: &str) -> bool {
    task_heading(text).is_some()
}

/// A `- **key**: value` line: the key, the value, and where the value starts.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct FieldLine<'a> {
    pub key: &'a str,
    pub value: &'a str,
    /// Byte offset of `value` in the line.
    pub value_at: usize,
}

pub(crate) fn field_line(text: &str) -> Option<FieldLine<'_>> {
    let t = text.trim_start();
    let after = t.strip_prefix(['-', '*', '+'])?;
    if !after.starts_with([' ', '\t']) {
        return None;
    }
    let s = after.trim_start().strip_prefix("**")?;
    let close = s.find("**")?;
    let raw_key = s.get(..close)?.trim();
    let mut rest = s.get(close + 2..)?;
    let key = match raw_key.strip_suffix([':', '：']) {
        Some(k) => k.trim_end(),
        None => {
            rest = rest.trim_start().strip_prefix([':', '：'])?;
            raw_key
        }
    };
    if key.is_empty() || key.contains("**") {
        return None;
    }
    let v = rest.trim_start();
    Some(FieldLine {
        key,
        value: v.trim_end(),
        value_at: text.len() - v.len(),
    })
}

/// Signs of a claude-workflow plan without tasks: known fields, id comments,
/// template task headings.
pub(crate) fn looks_like(line: &Line<'_>) -> bool {
    if line.comment.is_some_and(|c| c.starts_with("id:")) {
        return true;
    }
    if let Some((2..=3, content)) = doc::heading(&line.text) {
        if content.starts_with("{{") {
            return true;
        }
    }
    field_line(&line.text).is_some_and(|f| fields::canon(f.key).is_some())
}

/// Where a line sits in the block structure; shared with the mirror so both read
/// the same blocks.
pub(crate) enum Kind<'a> {
    TaskHeading(TaskHeading<'a>),
    /// Any other heading or a thematic break: ends the current block.
    End,
    Field(FieldLine<'a>),
    Blank,
    Other,
}

pub(crate) fn kind(text: &str) -> Kind<'_> {
    if let Some(h) = task_heading(text) {
        return Kind::TaskHeading(h);
    }
    if doc::heading(text).is_some() || doc::is_rule(text) {
        return Kind::End;
    }
    if let Some(f) = field_line(text) {
        return Kind::Field(f);
    }
    if text.trim().is_empty() {
        Kind::Blank
    } else {
        Kind::Other
    }
}

pub(crate) fn parse(
    lines: &[Line<'_>],
    warnings: &mut Vec<PlanWarning>,
) -> Result<Vec<Draft>, PlanError> {
    let mut drafts = Vec::new();
    let mut block: Option<Block> = None;
    // Whether the current field may take more lines, and whether a blank line came.
    let mut open_field = false;
    let mut after_blank = false;
    for line in lines {
        if line.hidden {
            continue;
        }
        if let Some(inner) = line.comment {
            if let Some(b) = block.as_mut() {
                b.meta.push((line.no, inner.to_string()));
            }
            continue;
        }
        match kind(&line.text) {
            Kind::TaskHeading(h) => {
                if let Some(b) = block.take() {
                    drafts.push(fields::build(b)?);
                }
                block = Some(Block::new(h.id, h.name, line.no));
                open_field = false;
            }
            Kind::End => {
                if let Some(b) = block.take() {
                    drafts.push(fields::build(b)?);
                }
                open_field = false;
            }
            Kind::Field(f) => {
                if let Some(b) = block.as_mut() {
                    b.fields.push(Field {
                        key: f.key.to_string(),
                        line: line.no,
                        parts: vec![f.value.to_string()],
                    });
                    open_field = true;
                } else if fields::canon(f.key).is_some() {
                    warnings.push(PlanWarning::new(
                        line.no,
                        format!(
                            "the task field `{}` is outside any task, so it is ignored; put it under a `## T1: name` heading",
                            super::doc::shown(f.key)
                        ),
                    ));
                }
            }
            Kind::Blank => {
                after_blank = true;
                continue;
            }
            Kind::Other => {
                let text: &str = &line.text;
                let lazy = !after_blank
                    && !text.starts_with(['-', '*', '+', '|', '>'])
                    && doc::list_item(text).is_none();
                if open_field && (doc::starts_indented(text) || lazy) {
                    if let Some(f) = block.as_mut().and_then(|b| b.fields.last_mut()) {
                        f.parts.push(text.trim().to_string());
                    }
                } else {
                    open_field = false;
                }
            }
        }
        after_blank = false;
    }
    if let Some(b) = block.take() {
        drafts.push(fields::build(b)?);
    }
    Ok(drafts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_headings() {
        let h = task_heading("## T1: Build the API ✅").unwrap();
        assert_eq!((h.id, h.name), ("T1", "Build the API ✅"));
        let h = task_heading("### T1.2：中文").unwrap();
        assert_eq!((h.id, h.name), ("T1.2", "中文"));
        assert!(task_heading("## {{this.id}}: {{this.name}}").is_none());
        assert!(task_heading("## Self-Review Checklist").is_none());
        assert!(task_heading("## Phase 1: Setup").is_none());
        assert!(task_heading("# T1: top level").is_none());
        assert!(task_heading("#### T1: deep").is_none());
        assert_eq!(
            task_heading("## T1$(touch PWNED): x").unwrap().id,
            "T1$(touch PWNED)"
        );
    }

    #[test]
    fn field_lines() {
        let f = field_line("- **阶段**: planning").unwrap();
        assert_eq!((f.key, f.value, f.value_at), ("阶段", "planning", 14));
        let f = field_line("- **状态：** 已完成 ").unwrap();
        assert_eq!((f.key, f.value), ("状态", "已完成"));
        let f = field_line("* **Spec 参考**:").unwrap();
        assert_eq!((f.key, f.value), ("Spec 参考", ""));
        assert!(field_line("- [ ] **Spec coverage** — x").is_none());
        assert!(field_line("- **bold** text").is_none());
        assert!(field_line("-**x**: y").is_none());
    }

    #[test]
    fn blocks_end_at_rules_and_other_headings() {
        let text =
            "## T1: a\n- **actions**: x\n\n---\n\n- **状态**: completed\n## Notes\n- **阶段**: z\n";
        let ls = doc::lines(text);
        let d = parse(&ls, &mut Vec::new()).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].task.status, crate::state::machine::TaskStatus::Pending);
        assert_eq!(d[0].task.phase, "");
    }

    #[test]
    fn continuation_lines() {
        let text =
            "## T1: a\n- **需求**: first\n  second\nthird\n\nprose after blank\n- **验收**: ok\n";
        let d = parse(&doc::lines(text), &mut Vec::new()).unwrap();
        assert_eq!(
            d[0].task.requirement.as_deref(),
            Some("first\nsecond\nthird")
        );
        assert_eq!(d[0].task.acceptance.as_deref(), Some("ok"));
    }
}
