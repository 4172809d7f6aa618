//! The claude-workflow `tasks.md` format: where each task's block starts and ends;
//! what each field means is [`super::fields`]. Which headings are tasks and where a
//! block and a field value end are in docs/plans.md "claude-workflow".
//!
//! A block runs to the next heading of any level, a `---` rule or the end of the
//! file. The plugin's own regex stopped each block at its first line end; that bug
//! is not copied. Stopping at any other heading or rule is what keeps a board's
//! `## Self-Review Checklist` and verification table (after `---`) out of the last
//! task. A heading that looks like a task's but has an invalid id is refused or
//! warned about, never silently skipped.
use std::borrow::Cow;

use super::doc::{self, strip_ticks, Line};
use super::fields::{self, Block, Field};
use super::ids;
use super::outline::Drafts;
use super::{PlanError, PlanWarning};

mod field_line;
mod reader;

pub(crate) use field_line::{field_line, FieldLine};

pub(crate) use reader::ClaudeWorkflow;

/// The id and the rest (name, maybe with a status emoji) of a task heading.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct TaskHeading<'a> {
    pub id: &'a str,
    pub name: String,
    /// The box a heading holds (`### - [x] T001 name`), which shows its status.
    pub mark: Option<char>,
}

/// The content of a level-2 or level-3 heading, also when the space after the hashes
/// is missing (`##T2: x`, which markdown shows as text but the author meant as a
/// heading) — then only if an id follows directly, so `##hashtag` stays text.
fn heading_content(text: &str) -> Option<&str> {
    if let Some((level, content)) = doc::heading(text) {
        return (2..=4).contains(&level).then_some(content);
    }
    let t = text.trim_start_matches(' ');
    if text.len() - t.len() > 3 {
        return None;
    }
    let hashes = t.bytes().take_while(|b| *b == b'#').count();
    if !(2..=4).contains(&hashes) {
        return None;
    }
    let content = t.get(hashes..)?.trim();
    candidate(content)
        .filter(|c| c.colon && strict_shape(c.id))
        .map(|_| content)
}

/// A heading split where a task heading splits: the id (bold and backticks removed)
/// and the name, and whether a colon separated them.
#[derive(Debug, PartialEq, Eq)]
struct Candidate<'a> {
    id: &'a str,
    /// Borrowed but for a bold id holding its colon (`**T2: x** y`): a heading is
    /// split at many lines of a plan, most of which are no task's.
    name: Cow<'a, str>,
    colon: bool,
    /// `### - [x] T001 name`: the box the heading holds.
    mark: Option<char>,
}

fn split_colon(s: &str) -> Option<(&str, &str)> {
    let (at, ch) = s.char_indices().find(|(_, c)| matches!(c, ':' | '：'))?;
    Some((s.get(..at)?, s.get(at + ch.len_utf8()..)?))
}

fn candidate(content: &str) -> Option<Candidate<'_>> {
    let content = content.trim();
    // `- [x] T001 name`: a checkbox line made a heading.
    if let Some((_, mark, rest)) = super::speckit::checkbox(content) {
        let rest = rest.trim();
        let word = rest.split_whitespace().next()?;
        let id = word.trim_end_matches([':', '：', '.']);
        let name = rest.get(word.len()..)?.trim();
        return (!id.is_empty()).then_some(Candidate {
            id,
            name: Cow::Borrowed(name),
            colon: true,
            mark: Some(mark),
        });
    }
    let colon = split_colon(content);
    // `Task 1.1: name`, `Step 3: name`: the number is the id.
    if let Some((title, rest)) = colon {
        if let Some(number) = numbered_word(title) {
            return Some(Candidate {
                id: number,
                name: Cow::Borrowed(rest.trim()),
                colon: true,
                mark: None,
            });
        }
    }
    let bold = ["**", "__"].into_iter().find(|m| content.starts_with(m));
    let (id, name, colon) = if let Some(m) = bold {
        // `**T2**: x`, `**T2:** x`, `**T2: x**`
        let inner = content.get(m.len()..)?;
        let close = inner.find(m)?;
        let head = inner.get(..close)?;
        let tail = inner.get(close + m.len()..)?.trim();
        match split_colon(head) {
            Some((id, rest)) => (id, Cow::Owned(format!("{} {tail}", rest.trim())), true),
            None => match tail.strip_prefix([':', '：']) {
                Some(rest) => (head, Cow::Borrowed(rest), true),
                None => (head, Cow::Borrowed(tail), false),
            },
        }
    } else {
        let word = content.split_whitespace().next()?;
        // `T1. Pre-flight: check`: the id ends at its full stop.
        let stopped = word.strip_suffix('.').filter(|w| strict_shape(w));
        if let Some(id) = stopped {
            (id, Cow::Borrowed(content.get(word.len()..)?), true)
        } else if let Some((id, rest)) = colon {
            (id, Cow::Borrowed(rest), true)
        } else {
            (word, Cow::Borrowed(content.get(word.len()..)?), false)
        }
    };
    let id = strip_ticks(id);
    (!id.is_empty()).then(|| Candidate {
        id,
        name: match name {
            Cow::Borrowed(n) => Cow::Borrowed(n.trim()),
            Cow::Owned(n) => Cow::Owned(n.trim().to_string()),
        },
        colon,
        mark: None,
    })
}

/// `Task 1.1`, `Step 3`, `Subtask 2`: a word for a task and its number, the number.
fn numbered_word(title: &str) -> Option<&str> {
    let (word, number) = title.trim().split_once(' ')?;
    let number = number.trim();
    let words = [
        "Task", "TASK", "task", "Step", "Subtask", "Sub-task", "Story", "任务",
    ];
    (words.contains(&word)
        && number.starts_with(|c: char| c.is_ascii_digit())
        && number.bytes().all(|b| b.is_ascii_digit() || b == b'.'))
    .then_some(number.trim_end_matches('.'))
}

/// `T1`, `T1.2`, `B12-fix`, `T-2`, `T_2`: ASCII letters, at most one of `-_.`, a digit.
fn strict_shape(id: &str) -> bool {
    let b = id.as_bytes();
    let letters = b.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let sep = usize::from(
        b.get(letters)
            .is_some_and(|c| matches!(c, b'-' | b'_' | b'.')),
    );
    letters > 0 && b.get(letters + sep).is_some_and(u8::is_ascii_digit)
}

/// One word with a digit in it: an id, or a botched one, when task fields follow.
fn loose_shape(id: &str) -> bool {
    !id.contains(char::is_whitespace) && id.chars().any(char::is_numeric)
}

/// `Task 1.1`, `Step 3`: a numbered title before a colon, a task heading with a
/// malformed id when task fields follow it.
fn numbered_title(id: &str) -> bool {
    (2..=3).contains(&id.split_whitespace().count()) && id.chars().any(|c| c.is_ascii_digit())
}

/// A heading that is a task heading whatever follows it: `## T1: name` (see
/// [`strict_shape`]).
pub(crate) fn task_heading(text: &str) -> Option<TaskHeading<'_>> {
    let c = candidate(heading_content(text)?)?;
    (c.colon && strict_shape(c.id)).then(|| TaskHeading {
        id: c.id,
        name: c.name.into_owned(),
        mark: c.mark,
    })
}

/// The id a heading names, strict or loose: what [`kinds`] takes a task heading's id
/// to be when fields follow it.
pub(crate) fn heading_id(text: &str) -> Option<&str> {
    candidate(heading_content(text)?).map(|c| c.id)
}

pub(crate) fn is_task_heading(text: &str) -> bool {
    heading_content(text)
        .and_then(candidate)
        .is_some_and(|c| c.colon && strict_shape(c.id))
}

/// Signs of a claude-workflow plan without tasks: known fields, id comments,
/// template task headings, task headings with a broken id (`## Т1: x`).
pub(crate) fn looks_like(line: &Line<'_>) -> bool {
    if line.comment.is_some_and(|c| c.starts_with("id:")) {
        return true;
    }
    if let Some(content) = heading_content(&line.text) {
        if content.starts_with("{{")
            || candidate(content)
                .is_some_and(|c| c.colon && loose_shape(c.id) && !ids::is_valid_id(c.id))
        {
            return true;
        }
    }
    field_line(&line.text).is_some_and(|f| fields::canon(f.key).is_some())
}

/// Where a line sits in the block structure; shared with the mirror so both read
/// the same blocks.
pub(crate) enum Kind<'a> {
    TaskHeading(TaskHeading<'a>),
    /// A heading task fields follow whose id is not a valid id (`## Т2: x` with a
    /// Cyrillic Т): an error, never a silently skipped task.
    BadHeading(&'a str),
    /// A heading without task fields that looks like a task heading with a broken id:
    /// read as prose, with a warning.
    Suspect(&'a str),
    /// Any other heading or a thematic break: ends the current block.
    End,
    Field(FieldLine<'a>),
    Blank,
    /// Hidden lines and whole-line comments.
    Hidden,
    Other,
}

/// The kind of every line. A heading that is not a strict task heading
/// ([`task_heading`]) but whose first word (or text before the colon) holds a digit
/// is a task heading when known task fields follow it before the next heading or rule
/// — `## T2 name`, or any such heading whose id is valid — and a [`Kind::BadHeading`]
/// when its id is not valid.
pub(crate) fn kinds<'a>(lines: &'a [Line<'_>]) -> Vec<Kind<'a>> {
    let mut out: Vec<Kind<'a>> = Vec::with_capacity(lines.len());
    // Headings to decide once we know whether fields follow them.
    let mut pending: Vec<(usize, Candidate<'a>)> = Vec::new();
    // Each line's stretch between strict task headings (`each_kind` reads them a
    // stretch at a time, and a kind depends on nothing outside its stretch).
    let mut stretch = vec![0; lines.len()];
    let mut at_stretch = 0;
    for line in lines {
        if let Some(slot) = stretch.get_mut(out.len()) {
            *slot = at_stretch;
        }
        if line.hidden || line.comment.is_some() {
            out.push(Kind::Hidden);
            continue;
        }
        let text: &'a str = &line.text;
        if let Some(h) = task_heading(text) {
            at_stretch += 1;
            if let Some(slot) = stretch.get_mut(out.len()) {
                *slot = at_stretch;
            }
            out.push(Kind::TaskHeading(h));
            continue;
        }
        if let Some(c) = heading_content(text)
            .and_then(candidate)
            .filter(|c| loose_shape(c.id) || (c.colon && numbered_title(c.id)))
        {
            pending.push((out.len(), c));
            out.push(Kind::End);
            continue;
        }
        out.push(if doc::heading(text).is_some() || doc::is_rule(text) {
            Kind::End
        } else if let Some(f) = field_line(text) {
            Kind::Field(f)
        } else if text.trim().is_empty() {
            Kind::Blank
        } else {
            Kind::Other
        });
    }
    if pending.is_empty() {
        return out;
    }
    // Whether a known field comes before the next heading or rule, for each line.
    let mut fields_ahead = vec![false; out.len()];
    let mut ahead = false;
    for (i, k) in out.iter().enumerate().rev() {
        match k {
            Kind::Field(f) if fields::canon(f.key).is_some() => ahead = true,
            Kind::TaskHeading(_) | Kind::End => {
                if let Some(slot) = fields_ahead.get_mut(i) {
                    *slot = ahead;
                }
                ahead = false;
            }
            _ => {}
        }
    }
    // A heading of the same level and id shape as one with fields is a task too:
    // `### 16.1 Run the analysis` among `### 1.1 …` tasks, with its fields in prose.
    let key = |i: usize, id: &str| Some((*stretch.get(i)?, level_of(lines.get(i)?), shape(id)));
    let shapes: Vec<(usize, usize, String)> = pending
        .iter()
        .filter(|(i, c)| fields_ahead.get(*i).copied().unwrap_or(false) && ids::is_valid_id(c.id))
        .filter_map(|(i, c)| key(*i, c.id))
        .collect();
    for (i, c) in pending {
        let alike = || key(i, c.id).is_some_and(|k| shapes.contains(&k));
        let with_fields =
            fields_ahead.get(i).copied().unwrap_or(false) || (ids::is_valid_id(c.id) && alike());
        let kind = match (with_fields, ids::is_valid_id(c.id)) {
            (true, true) => Kind::TaskHeading(TaskHeading {
                id: c.id,
                name: c.name.into_owned(),
                mark: c.mark,
            }),
            (true, false) => Kind::BadHeading(c.id),
            (false, false) if c.colon && loose_shape(c.id) => Kind::Suspect(c.id),
            (false, _) => Kind::End,
        };
        if let Some(slot) = out.get_mut(i) {
            *slot = kind;
        }
    }
    out
}

/// The level of a heading line (its `#`s).
fn level_of(line: &Line<'_>) -> usize {
    line.text
        .trim_start()
        .bytes()
        .take_while(|b| *b == b'#')
        .count()
}

/// An id's shape: its runs of digits as one `9` (`1.1` and `16.2` are `9.9`).
fn shape(id: &str) -> String {
    let mut out = String::new();
    for c in id.chars() {
        if c.is_ascii_digit() {
            if !out.ends_with('9') {
                out.push('9');
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Each of `lines`, read one at a time, with its kind as [`kinds`] gives it, in order,
/// to `each`; the first error ends it. Only one block's lines are held at a time (held
/// whole, a plan's lines and their kinds grow with it): a strict
/// task heading is one whatever follows it, and no line's kind depends on anything
/// past the next heading, so the lines are cut before each strict task heading.
pub(crate) fn each_kind<'a, E>(
    lines: impl IntoIterator<Item = Line<'a>>,
    mut each: impl FnMut(&Line<'a>, Kind<'_>) -> Result<(), E>,
) -> Result<(), E> {
    let mut block: Vec<Line<'a>> = Vec::new();
    let mut take = |block: &mut Vec<Line<'a>>| {
        for (line, kind) in block.iter().zip(kinds(block)) {
            each(line, kind)?;
        }
        block.clear();
        Ok(())
    };
    for line in lines {
        let heading = !line.hidden && line.comment.is_none() && is_task_heading(&line.text);
        if heading && !block.is_empty() {
            take(&mut block)?;
        }
        block.push(line);
    }
    take(&mut block)
}

/// Reads the plan's tasks into `drafts`.
pub(crate) fn parse<'a>(
    lines: impl IntoIterator<Item = Line<'a>>,
    drafts: &mut Drafts<'_>,
    warnings: &mut Vec<PlanWarning>,
) -> Result<(), PlanError> {
    let mut block: Option<Block> = None;
    // Whether the current field may take more lines, and whether a blank line came.
    let mut open_field = false;
    let mut after_blank = false;
    each_kind(lines, |line, kind| {
        if line.hidden {
            return Ok(());
        }
        if let Some(inner) = line.comment {
            if let Some(b) = block.as_mut() {
                b.meta.push((line.no, inner.to_string()));
            }
            return Ok(());
        }
        match kind {
            Kind::TaskHeading(h) => {
                if let Some(b) = block.take() {
                    drafts.push(fields::build(b, warnings)?)?;
                }
                let mut b = Block::new(h.id, &h.name, line.no);
                b.heading_box = h.mark;
                block = Some(b);
                open_field = false;
            }
            Kind::BadHeading(id) => {
                return Err(PlanError::new(
                    line.no,
                    format!(
                        "this heading has task fields, but {}; {}",
                        heading_problem(id),
                        heading_fix(id)
                    ),
                ));
            }
            Kind::Suspect(id) => {
                warnings.push(PlanWarning::unread_task(
                    line.no,
                    format!(
                        "this heading looks like a task heading, but {}, so it is read as a section title; {}",
                        ids::id_problem(id),
                        heading_fix(id)
                    ),
                ));
                if let Some(b) = block.take() {
                    drafts.push(fields::build(b, warnings)?)?;
                }
                open_field = false;
            }
            Kind::End => {
                if let Some(b) = block.take() {
                    drafts.push(fields::build(b, warnings)?)?;
                }
                open_field = false;
            }
            Kind::Field(f) => {
                if let Some(b) = block.as_mut() {
                    if b.field_box.is_none() {
                        b.field_box = f.boxed.map(|(_, c)| c);
                    }
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
                            "the task field {} is outside any task, so it is ignored; put it under a `## T1: name` heading",
                            super::doc::shown(f.key)
                        ),
                    ));
                }
            }
            Kind::Blank => {
                after_blank = true;
                return Ok(());
            }
            Kind::Hidden => return Ok(()),
            Kind::Other => {
                let text: &str = &line.text;
                if let Some((_, mark, _)) = super::speckit::checkbox(text) {
                    if let Some(b) = block.as_mut() {
                        b.boxes.0 += 1;
                        b.boxes.1 += usize::from(matches!(mark, 'x' | 'X'));
                    }
                }
                let lazy = !after_blank
                    && !text.starts_with(['-', '*', '+', '|', '>'])
                    && doc::list_item(text).is_none();
                // `**Steps:**` alone, then a list (a blank line between): its value.
                let listed = doc::list_item(text).is_some()
                    && block
                        .as_ref()
                        .and_then(|b| b.fields.last())
                        .is_some_and(|f| f.parts.first().is_some_and(String::is_empty));
                if open_field && (doc::starts_indented(text) || lazy || listed) {
                    if let Some(f) = block.as_mut().and_then(|b| b.fields.last_mut()) {
                        f.parts.push(text.trim().to_string());
                    }
                } else {
                    open_field = false;
                }
            }
        }
        after_blank = false;
        Ok(())
    })?;
    if let Some(b) = block.take() {
        drafts.push(fields::build(b, warnings)?)?;
    }
    Ok(())
}

fn heading_problem(id: &str) -> String {
    if id.contains(char::is_whitespace) {
        format!(
            "{} is not a task id (an id is one word of letters, digits, '_', '.' or '-')",
            doc::shown(id)
        )
    } else {
        ids::id_problem(id)
    }
}

fn heading_fix(id: &str) -> String {
    // `Task 1.1` → `T1.1`, `Step T3` → `T3`.
    let suggestion = match id.split_whitespace().last() {
        Some(last) if id.contains(char::is_whitespace) => {
            let t = if last.starts_with(|c: char| c.is_ascii_digit()) {
                format!("T{last}")
            } else {
                last.to_string()
            };
            ids::is_valid_id(&t).then_some(t)
        }
        _ => ids::id_suggestion(id),
    };
    match suggestion {
        Some(good) => format!("write it as `## {good}: name`"),
        None => "write the id with ASCII letters, digits, '_', '.' or '-', e.g. `## T2: name`"
            .to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::outline::drafts;
    use crate::plan::Format;
    const CLAUDE: Format = Format::CLAUDE_WORKFLOW;

    #[test]
    fn task_headings() {
        let h = task_heading("## T1: Build the API ✅").unwrap();
        assert_eq!((h.id, h.name.as_str()), ("T1", "Build the API ✅"));
        let h = task_heading("### T1.2：中文").unwrap();
        assert_eq!((h.id, h.name.as_str()), ("T1.2", "中文"));
        assert!(task_heading("## {{this.id}}: {{this.name}}").is_none());
        assert!(task_heading("## Self-Review Checklist").is_none());
        assert!(task_heading("## Phase 1: Setup").is_none());
        assert!(task_heading("# T1: top level").is_none());
        assert_eq!(
            task_heading("#### TASK-014-001: deep").unwrap().id,
            "TASK-014-001"
        );
        assert!(task_heading("##### T1: deeper").is_none());
        let h = task_heading("## T1. Pre-flight: check the env").unwrap();
        assert_eq!((h.id, h.name.as_str()), ("T1", "Pre-flight: check the env"));
        let h = task_heading("### - [x] T001 Add the client").unwrap();
        assert_eq!(
            (h.id, h.name.as_str(), h.mark),
            ("T001", "Add the client", Some('x'))
        );
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
        // Without a list marker: known field names only.
        let f = field_line("**Description**: set up the project").unwrap();
        assert_eq!(
            (f.key, f.value, f.value_at),
            ("Description", "set up the project", 17)
        );
        assert_eq!(field_line("**验收**：").unwrap().key, "验收");
        assert!(field_line("**Priority**: P1 | **Estimated**: 0.5 days").is_none());
        assert!(field_line("**Note**: this paragraph is prose").is_none());
    }

    #[test]
    fn blocks_end_at_rules_and_other_headings() {
        let text =
            "## T1: a\n- **actions**: x\n\n---\n\n- **状态**: completed\n## Notes\n- **阶段**: z\n";
        let d = drafts(CLAUDE, text, &mut Vec::new()).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].task.status, crate::state::machine::TaskStatus::Pending);
        assert_eq!(d[0].task.phase, "");
    }

    #[test]
    fn continuation_lines() {
        let text =
            "## T1: a\n- **需求**: first\n  second\nthird\n\nprose after blank\n- **验收**: ok\n";
        let d = drafts(CLAUDE, text, &mut Vec::new()).unwrap();
        assert_eq!(
            d[0].task.requirement.as_deref(),
            Some("first\nsecond\nthird")
        );
        assert_eq!(d[0].task.acceptance.as_deref(), Some("ok"));
    }

    fn heading_kinds(text: &str) -> Vec<String> {
        let ls = doc::lines(text);
        kinds(&ls)
            .iter()
            .filter_map(|k| match k {
                Kind::TaskHeading(h) => Some(format!("task {} / {}", h.id, h.name)),
                Kind::BadHeading(id) => Some(format!("bad {id}")),
                Kind::Suspect(id) => Some(format!("suspect {id}")),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn heading_forms() {
        let f = "- **actions**: x\n";
        let text = format!(
            "## T-2: a\n{f}## **T3**: b\n{f}##T4: c\n{f}## T5 d\n{f}## **T6: e ✅**\n{f}## `T7`: g\n{f}"
        );
        assert_eq!(
            heading_kinds(&text),
            [
                "task T-2 / a",
                "task T3 / b",
                "task T4 / c",
                "task T5 / d",
                "task T6 / e ✅",
                "task T7 / g"
            ]
        );
        // Without fields, only the strict forms are tasks; a broken id is a suspect.
        assert_eq!(
            heading_kinds("## T-2: a\n## T5 d\n## \u{422}2: x\n## Phase 2: y\n##hashtag\n"),
            ["task T-2 / a", "suspect \u{422}2"]
        );
        // With fields, a broken id or a numbered title is an error; `Task 1.1` is
        // a task numbered 1.1.
        assert_eq!(
            heading_kinds(&format!(
                "## \u{422}2: x\n{f}## T\u{200b}2: y\n{f}### Task 1.1: z\n{f}## Phase 2: w\n{f}## Notes\n{f}"
            )),
            ["bad \u{422}2", "bad T\u{200b}2", "task 1.1 / z", "bad Phase 2"]
        );
    }

    #[test]
    fn bad_headings_are_errors_with_the_fix() {
        let err = drafts(
            CLAUDE,
            "## T1: a\n- **actions**: x\n\n### Part 1.1: z\n- **File**: a.rs\n",
            &mut Vec::new(),
        )
        .unwrap_err();
        assert_eq!(err.line, 4);
        assert!(
            err.message.ends_with("write it as `## T1.1: name`"),
            "{}",
            err.message
        );
        let mut w = Vec::new();
        let d = drafts(CLAUDE, "## T1: a\n\n## \u{422}2: b\nprose\n", &mut w).unwrap();
        assert_eq!(d.len(), 1);
        assert_eq!(w.len(), 1);
        assert!(w[0].unread_task && w[0].line == 3);
    }

    #[test]
    fn checkbox_before_a_field_key() {
        let f = field_line("- [x] **Description**: add it").unwrap();
        assert_eq!((f.key, f.value), ("Description", "add it"));
    }
}
