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

use crate::state::task_ref::TaskRef;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::claude::{self, Kind};
use super::doc::{self, Line};
use super::fields::{self, Key};
use super::speckit;
use super::status;
use super::Format;
use crate::error::Result;
use crate::fs::durable::Temp;
use crate::state::index_file::{IndexReader, Staged};
use crate::state::machine::TaskStatus;
use crate::state::model::Glance;
use crate::state::store::MIRROR_INDEX_FILE;
use crate::state::summary::FileId;
use crate::state::Session;

/// `tasks` are a state's (`TaskRef`) or a plan's (`Task`). The whole mirror, for
/// the fixture and property tests; a workflow's copy goes through
/// [`PlanCopy::mirrored`] (and [`PlanCopy::bring_up_to`], which writes it).
#[cfg(test)]
pub(crate) fn mirror(format: Format, text: &str, tasks: &[impl Glance]) -> String {
    mirror_noting(format, text, &wanted(tasks)).0
}

/// Each task's status by id. foldhash, not std's SipHash: built and looked up once
/// per task at every checkpoint.
type Wanted<'a> = HashMap<&'a str, TaskStatus, foldhash::fast::RandomState>;

/// Each task's status by id.
fn wanted(tasks: &[impl Glance]) -> Wanted<'_> {
    tasks.iter().map(|t| (t.id(), t.status())).collect()
}

/// The lines of one task's block that show its status, where each starts in the
/// mirrored text, and the status they were written for (`None`: a task the state
/// did not have, whose lines were left as they were). In the mirror index, an array
/// of its fields in this order, read back by hand ([`block`]).
#[derive(Debug, Clone, PartialEq)]
struct Block {
    id: String,
    shown: Option<TaskStatus>,
    lines: Vec<(u64, Shows)>,
}

impl Serialize for Block {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        (&self.id, self.shown, &self.lines).serialize(s)
    }
}

/// `blocks` as the mirror index holds them.
fn rows(blocks: &[Block]) -> Option<Box<RawValue>> {
    serde_json::value::to_raw_value(blocks).ok()
}

/// A [`Block`] as it is serialized.
fn block(r: &mut IndexReader<'_>) -> Option<Block> {
    r.byte(b'[')?;
    let id = r.string()?;
    r.byte(b',')?;
    let shown = if r.word(b"null") {
        None
    } else {
        Some(TaskStatus::parse(&r.str()?)?)
    };
    r.byte(b',')?;
    let lines = r.array(|r| {
        r.byte(b'[')?;
        let at = r.number()?;
        r.byte(b',')?;
        let shows = Shows::parse(&r.str()?)?;
        r.byte(b']')?;
        Some((at, shows))
    })?;
    r.byte(b']')?;
    Some(Block { id, shown, lines })
}

/// What a line of a block shows its task's status with.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
enum Shows {
    /// claude-workflow: the emoji at the end of the task heading.
    Heading,
    /// claude-workflow: the value of the task's `状态` field.
    StatusField,
    /// spec-kit: the checkbox and the ` — DEFERRED` marker of the task line.
    TaskLine,
}

impl Shows {
    /// The name it is serialized as.
    fn parse(name: &str) -> Option<Shows> {
        match name {
            "heading" => Some(Shows::Heading),
            "status_field" => Some(Shows::StatusField),
            "task_line" => Some(Shows::TaskLine),
            _ => None,
        }
    }
}

/// The whole text mirrored, and the blocks noted on the way.
fn mirror_noting(format: Format, text: &str, want: &Wanted<'_>) -> (String, Vec<Block>) {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(b) => ("\u{feff}", b),
        None => ("", text),
    };
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(bom);
    let mut blocks: Vec<Block> = Vec::new();
    // Each line with its ending, as the lines are read (never all held: `claude::each_kind`).
    let mut segs = body.split_inclusive('\n');
    let mut put = |out: &mut String, line: &Line<'_>, new: Option<String>| {
        let Some(seg) = segs.next() else { return };
        match new {
            Some(content) => {
                out.push_str(&content);
                out.push_str(seg.get(line.raw.len()..).unwrap_or(""));
            }
            None => out.push_str(seg),
        }
    };
    match format {
        Format::ClaudeWorkflow => {
            let mut block = Where::Outside;
            let each = |line: &Line<'_>, kind: Kind<'_>| {
                let at = out.len() as u64;
                let new = claude_line(line, &kind, want, &mut block, at, &mut blocks);
                put(&mut out, line, new);
                Ok::<(), std::convert::Infallible>(())
            };
            let Ok(()) = claude::each_kind(doc::iter(body), each);
        }
        Format::SpecKit => {
            for line in doc::iter(body) {
                let new = speckit_line(&line, want, out.len() as u64, &mut blocks);
                put(&mut out, &line, new);
            }
        }
    }
    (out, blocks)
}

/// claude-workflow: whether the line being read is in a task's block, and the
/// status wanted for that task.
#[derive(Clone, Copy)]
enum Where {
    Outside,
    InTask(Option<TaskStatus>),
}

fn claude_line(
    line: &Line<'_>,
    kind: &Kind<'_>,
    want: &Wanted<'_>,
    block: &mut Where,
    at: u64,
    blocks: &mut Vec<Block>,
) -> Option<String> {
    match kind {
        Kind::TaskHeading(h) => {
            let s = want.get(h.id).copied();
            *block = Where::InTask(s);
            let raw = line.text_is_raw();
            blocks.push(Block {
                id: h.id.to_string(),
                shown: s,
                lines: if raw {
                    vec![(at, Shows::Heading)]
                } else {
                    Vec::new()
                },
            });
            heading_line(line.raw, s.filter(|_| raw)?)
        }
        Kind::End | Kind::BadHeading(_) | Kind::Suspect(_) => {
            *block = Where::Outside;
            None
        }
        Kind::Field(f) if fields::canon(f.key) == Some(Key::Status) => {
            let Where::InTask(s) = *block else {
                return None;
            };
            if !line.text_is_raw() {
                return None;
            }
            blocks.last_mut()?.lines.push((at, Shows::StatusField));
            status_field_line(line.raw, f, s?)
        }
        _ => None,
    }
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
fn status_field_line(raw: &str, f: &claude::FieldLine<'_>, s: TaskStatus) -> Option<String> {
    if status::parse_word(f.value) == Some(s) {
        return None;
    }
    Some(format!("{}{}", raw.get(..f.value_at)?, s.as_str()))
}

fn speckit_line(
    line: &Line<'_>,
    want: &Wanted<'_>,
    at: u64,
    blocks: &mut Vec<Block>,
) -> Option<String> {
    if !line.text_is_raw() {
        return None;
    }
    let tl = speckit::task_line(line.raw)?;
    let s = want.get(tl.id).copied();
    blocks.push(Block {
        id: tl.id.to_string(),
        shown: s,
        lines: vec![(at, Shows::TaskLine)],
    });
    task_line(line.raw, &tl, s?)
}

/// The spec-kit task line `raw` (read as `tl`) showing `s`: its box, and its
/// ` — DEFERRED` marker.
fn task_line(raw: &str, tl: &speckit::TaskLine<'_>, s: TaskStatus) -> Option<String> {
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

/// The text mirrored again to `want`, from the blocks a mirror noted when it wrote
/// it: only the lines of the blocks whose wanted status is not the one they show
/// are rendered again. The same text and blocks as [`mirror_noting`] of `text`
/// (a property test says so), and whether any block moved; `None` when a noted
/// line is not what it was noted as (the text is not the one they were noted in).
fn patch(
    text: &str,
    mut blocks: Vec<Block>,
    want: &Wanted<'_>,
) -> Option<(String, Vec<Block>, bool)> {
    let mut moved = false;
    // (start, end, new content) of each changed line, in text order.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for block in &mut blocks {
        let now = want.get(block.id.as_str()).copied();
        if now == block.shown {
            continue;
        }
        block.shown = now;
        moved = true;
        for &(at, shows) in &block.lines {
            let start = usize::try_from(at).ok()?;
            let rest = text.get(start..)?;
            let line = rest.split('\n').next()?;
            let raw = line.strip_suffix('\r').unwrap_or(line);
            let new = match shows {
                Shows::Heading => {
                    (claude::heading_id(raw)? == block.id).then_some(())?;
                    now.and_then(|s| heading_line(raw, s))
                }
                Shows::StatusField => {
                    let f = claude::field_line(raw)
                        .filter(|f| fields::canon(f.key) == Some(Key::Status))?;
                    now.and_then(|s| status_field_line(raw, &f, s))
                }
                Shows::TaskLine => {
                    let tl = speckit::task_line(raw).filter(|tl| tl.id == block.id)?;
                    now.and_then(|s| task_line(raw, &tl, s))
                }
            };
            if let Some(new) = new {
                edits.push((start, start + raw.len(), new));
            }
        }
    }
    edits.sort_by_key(|e| e.0);
    let mut out = String::with_capacity(text.len() + 64);
    let mut from = 0;
    for (start, end, new) in &edits {
        out.push_str(text.get(from..*start)?);
        out.push_str(new);
        from = *end;
    }
    out.push_str(text.get(from..)?);
    // Every noted line after an edit moves by what the edits before it added.
    let mut shift: i64 = 0;
    let mut next = edits.iter().peekable();
    for (at, _) in blocks.iter_mut().flat_map(|b| b.lines.iter_mut()) {
        while let Some((start, end, new)) = next.peek() {
            if *start as u64 >= *at {
                break;
            }
            shift += new.len() as i64 - (end - start) as i64;
            next.next();
        }
        *at = at.checked_add_signed(shift)?;
    }
    Some((out, blocks, moved))
}

/// Brings the plan copy's statuses up to the state; writes only when they differ.
pub fn mirror_plan_copy(session: &Session) -> Result<()> {
    match PlanCopy::of(session)? {
        Some(copy) => copy.bring_up_to(&session.state()?.tasks),
        None => Ok(()),
    }
}

/// The layout of `mirror-index.json`; a reader ignores a file of any other.
const MIRROR_INDEX_VERSION: u32 = 2;

/// The head of `mirror-index.json` beside the plan copy, whose `blocks` are the
/// blocks the last mirror noted and `copy` the copy it wrote them in (a cache: read
/// only while it names that very file).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexHead {
    mirror_index_version: u32,
    copy: FileId,
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
    pub fn bring_up_to(&self, tasks: &[TaskRef]) -> Result<()> {
        match self.mirrored(tasks) {
            Some(mirrored) => mirrored.write(),
            None => Ok(()),
        }
    }

    /// The copy with the statuses of `tasks`, worked out and not yet written; `None`
    /// for a missing or unreadable copy. When the mirror index names this copy, only
    /// the blocks of the tasks whose status moved since are rendered again: parsing
    /// the whole copy was most of a checkpoint's cost (at 100,000 tasks, 15 MB of
    /// plan; BENCHMARKS.md).
    pub fn mirrored(&self, tasks: &[TaskRef]) -> Option<Mirrored<'_>> {
        let (bytes, _, meta) = crate::fs::read_regular_kept(&self.path).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let want = wanted(tasks);
        let read = FileId::of(&meta);
        let noted = self.read_index(read);
        let (mirrored, blocks, moved) = noted
            .and_then(|blocks| patch(&text, blocks, &want))
            .unwrap_or_else(|| {
                let (mirrored, blocks) = mirror_noting(self.format, &text, &want);
                (mirrored, blocks, true)
            });
        Some(Mirrored {
            copy: self,
            read,
            text: (mirrored != text).then_some(mirrored),
            rows: moved.then(|| rows(&blocks)).flatten(),
        })
    }

    fn index_dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The blocks noted in the copy `copy`, if the index is that copy's.
    fn read_index(&self, copy: FileId) -> Option<Vec<Block>> {
        let bytes = crate::fs::read_regular(&self.index_dir().join(MIRROR_INDEX_FILE)).ok()?;
        let (head, mut reader) = IndexReader::after_head::<IndexHead>(&bytes, "blocks")?;
        if head.mirror_index_version != MIRROR_INDEX_VERSION || head.copy != copy {
            return None;
        }
        let blocks = reader.array(block)?;
        reader.end()?;
        Some(blocks)
    }

    /// Notes `blocks` (serialized: [`rows`]) as those of the copy `copy` (the file
    /// read, or the one being written), to be placed once that copy is. Best effort
    /// and not synced, as the state's summary: a missing or stale index only means a
    /// whole mirror.
    fn stage_index(&self, copy: FileId, blocks: &RawValue) -> Staged {
        #[derive(Serialize)]
        struct Out<'a> {
            mirror_index_version: u32,
            copy: FileId,
            blocks: &'a RawValue,
        }
        let out = Out {
            mirror_index_version: MIRROR_INDEX_VERSION,
            copy,
            blocks,
        };
        let mut staged = Staged::new(self.index_dir());
        staged.add(MIRROR_INDEX_FILE, |w| serde_json::to_writer(w, &out));
        staged
    }
}

/// A plan copy's text brought up to a state, to be written ([`PlanCopy::mirrored`]).
pub struct Mirrored<'a> {
    copy: &'a PlanCopy,
    /// The copy as it was read.
    read: FileId,
    /// The new text; `None` when the copy already shows it.
    text: Option<String>,
    /// The blocks, serialized, when a block shows another status than the index
    /// noted (or there was no index to go by): the index is written again. Serialized
    /// where the copy is worked out, which a stop does beside the snapshot's write
    /// (`run::checkpoint`), off the path of the command's own thread.
    rows: Option<Box<RawValue>>,
}

impl Mirrored<'_> {
    /// Whether the copy on disk is still the file it was worked out from.
    pub fn is_current(&self) -> bool {
        std::fs::symlink_metadata(&self.copy.path).is_ok_and(|meta| FileId::of(&meta) == self.read)
    }

    /// Replaces the copy with the new text, if any, and notes its blocks: while the
    /// new copy syncs, placed once it is renamed.
    pub fn write(self) -> Result<()> {
        let stage = |copy: FileId| {
            self.rows
                .as_deref()
                .map(|rows| self.copy.stage_index(copy, rows))
        };
        let Some(text) = &self.text else {
            if let Some(staged) = stage(self.read) {
                staged.place();
            }
            return Ok(());
        };
        let mut temp = Temp::create(&self.copy.path)?;
        temp.fill(|file| file.write_all(text.as_bytes()))?;
        if self.rows.is_none() {
            return temp.sync()?.commit();
        }
        let (synced, staged) = temp.sync_with(|meta| stage(FileId::of(meta?)))?;
        synced.commit()?;
        if let Some(staged) = staged {
            staged.place();
        }
        Ok(())
    }
}

/// Mirroring `text` to `first`, then to `then` by [`patch`], is mirroring it to
/// `first` and then whole to `then`: the same text and the same blocks.
#[cfg(test)]
pub(super) fn assert_patch_is_whole_mirror(
    format: Format,
    text: &str,
    first: &[crate::state::model::Task],
    then: &[crate::state::model::Task],
) {
    let (once, blocks) = mirror_noting(format, text, &wanted(first));
    let whole = mirror_noting(format, &once, &wanted(then));
    let (patched, patched_blocks, _) =
        patch(&once, blocks, &wanted(then)).expect("the noted lines are where they were noted");
    assert_eq!(patched, whole.0, "--- mirrored once\n{once}");
    assert_eq!(patched_blocks, whole.1, "--- mirrored once\n{once}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Task;

    fn with(id: &str, s: TaskStatus) -> Task {
        Task {
            id: id.into(),
            status: s,
            ..Task::default()
        }
    }

    #[test]
    fn an_index_reads_back_as_the_blocks_written_and_a_torn_one_as_none() {
        let dir = tempfile::tempdir().unwrap();
        let copy = PlanCopy {
            path: dir.path().join("tasks.md"),
            format: Format::ClaudeWorkflow,
        };
        let blocks = vec![
            Block {
                id: "T1".into(),
                shown: Some(TaskStatus::Completed),
                lines: vec![(0, Shows::Heading), (40, Shows::StatusField)],
            },
            // An id with escapes, a status the state did not have, no lines.
            Block {
                id: "T\"2\\ é\n".into(),
                shown: None,
                lines: Vec::new(),
            },
            Block {
                id: "T3".into(),
                shown: Some(TaskStatus::InProgress),
                lines: vec![(u64::MAX, Shows::TaskLine)],
            },
        ];
        std::fs::write(&copy.path, "# Plan\n").unwrap();
        let id = FileId::of(&std::fs::metadata(&copy.path).unwrap());
        copy.stage_index(id, &rows(&blocks).unwrap()).place();
        assert_eq!(copy.read_index(id), Some(blocks.clone()));
        assert_eq!(copy.read_index(FileId { len: 1, ..id }), None);
        let path = dir.path().join(MIRROR_INDEX_FILE);
        let text = std::fs::read_to_string(&path).unwrap();
        for cut in 1..text.len() {
            if text.is_char_boundary(cut) {
                std::fs::write(&path, &text[..cut]).unwrap();
                assert_eq!(copy.read_index(id), None, "{}", &text[..cut]);
            }
        }
        // Each line kind reads back by the name it is written as.
        for shows in [Shows::Heading, Shows::StatusField, Shows::TaskLine] {
            let name = serde_json::to_value(shows).unwrap();
            assert_eq!(Shows::parse(name.as_str().unwrap()), Some(shows));
        }
    }

    #[test]
    fn the_copy_is_mirrored_through_its_index_while_the_index_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.md");
        std::fs::write(&path, "- [ ] T1 a\n- [ ] T2 b\n").unwrap();
        let copy = PlanCopy {
            path: path.clone(),
            format: Format::SpecKit,
        };
        let state = |a, b| [TaskRef::new(with("T1", a)), TaskRef::new(with("T2", b))];
        let read = || std::fs::read_to_string(&path).unwrap();
        copy.bring_up_to(&state(TaskStatus::Completed, TaskStatus::Pending))
            .unwrap();
        assert_eq!(read(), "- [x] T1 a\n- [ ] T2 b\n");
        let id = FileId::of(&std::fs::metadata(&path).unwrap());
        let noted = copy
            .read_index(id)
            .expect("an index naming the copy written");
        assert_eq!(
            noted,
            mirror_noting(
                Format::SpecKit,
                &read(),
                &wanted(&state(TaskStatus::Completed, TaskStatus::Pending))
            )
            .1
        );
        copy.bring_up_to(&state(TaskStatus::Completed, TaskStatus::Completed))
            .unwrap();
        assert_eq!(read(), "- [x] T1 a\n- [x] T2 b\n");
        // Another file in the copy's place: the index names the old one.
        crate::fs::durable::write_atomic(&path, b"- [ ] T2 b\n- [ ] T1 a\n").unwrap();
        assert!(copy
            .read_index(FileId::of(&std::fs::metadata(&path).unwrap()))
            .is_none());
        copy.bring_up_to(&state(TaskStatus::Completed, TaskStatus::Pending))
            .unwrap();
        assert_eq!(read(), "- [ ] T2 b\n- [x] T1 a\n");
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
