//! Writes task statuses back into the plan text, touching nothing else.
//!
//! Each format says where its text shows a task's status (its spots, `Reader::spots`)
//! and how a spot shows a status (`Reader::show`): claude-workflow the emoji at the
//! end of a task heading and the value of the `状态` field; spec-kit the checkbox and
//! the ` — DEFERRED` marker of the task line; a checklist (Kiro, OpenSpec, BMAD) the
//! checkbox; Taskmaster the `"status"` value. Every other byte, line endings and a
//! BOM included, stays as it was.

use crate::state::task_ref::TaskRef;
use std::collections::HashMap;
use std::io::Write;
use std::path::{Component, Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::format::{Reader, Spot};
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

/// The spots of one task's block that show its status, where each starts in the
/// mirrored text and its kind (`Reader::spot_kinds`), and the status they were
/// written for (`None`: a task the state did not have, whose spots were left as
/// they were). In the mirror index, an array of its fields in this order, read back
/// by hand ([`block`]).
#[derive(Debug, Clone, PartialEq)]
struct Block {
    id: String,
    shown: Option<TaskStatus>,
    lines: Vec<(u64, &'static str)>,
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

/// A [`Block`] as it is serialized, its spot kinds among `reader`'s.
fn block(r: &mut IndexReader<'_>, reader: &dyn Reader) -> Option<Block> {
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
        let name = r.str()?;
        let kind = reader.spot_kinds().iter().find(|k| **k == name)?;
        r.byte(b']')?;
        Some((at, *kind))
    })?;
    r.byte(b']')?;
    Some(Block { id, shown, lines })
}

/// The whole text mirrored, and the blocks noted on the way.
fn mirror_noting(format: Format, text: &str, want: &Wanted<'_>) -> (String, Vec<Block>) {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(b) => ("\u{feff}", b),
        None => ("", text),
    };
    let reader = format.reader();
    let mut out = String::with_capacity(text.len() + 64);
    out.push_str(bom);
    let mut blocks: Vec<Block> = Vec::new();
    // How far into `body` has been copied.
    let mut from = 0;
    reader.spots(body, &mut |spot: Spot<'_>| {
        let Some(before) = body.get(from..spot.at) else {
            return;
        };
        let status = want.get(spot.id).copied();
        let Some((len, new)) = reader.show(body, spot.at, spot.kind, spot.id, status) else {
            return;
        };
        out.push_str(before);
        let at = out.len() as u64;
        match blocks.last_mut().filter(|b| b.id == spot.id) {
            Some(b) => b.lines.push((at, spot.kind)),
            None => blocks.push(Block {
                id: spot.id.to_string(),
                shown: status,
                lines: vec![(at, spot.kind)],
            }),
        }
        match new {
            Some(new) => out.push_str(&new),
            None => out.push_str(body.get(spot.at..spot.at + len).unwrap_or("")),
        }
        from = spot.at + len;
    });
    out.push_str(body.get(from..).unwrap_or(""));
    (out, blocks)
}

/// The text mirrored again to `want`, from the blocks a mirror noted when it wrote
/// it: only the lines of the blocks whose wanted status is not the one they show
/// are rendered again. The same text and blocks as [`mirror_noting`] of `text`
/// (a property test says so), and whether any block moved; `None` when a noted
/// line is not what it was noted as (the text is not the one they were noted in).
fn patch(
    reader: &dyn Reader,
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
        for &(at, kind) in &block.lines {
            let start = usize::try_from(at).ok()?;
            let (len, new) = reader.show(text, start, kind, &block.id, now)?;
            if let Some(new) = new {
                edits.push((start, start + len, new));
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
    /// the blocks of the tasks whose status moved since are rendered again, so a
    /// checkpoint does not parse the whole copy.
    pub fn mirrored(&self, tasks: &[TaskRef]) -> Option<Mirrored<'_>> {
        let (bytes, _, meta) = crate::fs::read_regular_kept(&self.path).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let want = wanted(tasks);
        let read = FileId::of(&meta);
        let noted = self.read_index(read);
        let (mirrored, blocks, moved) = noted
            .and_then(|blocks| patch(self.format.reader(), &text, blocks, &want))
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
        let blocks = reader.array(|r| block(r, self.format.reader()))?;
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
    let (patched, patched_blocks, _) = patch(format.reader(), &once, blocks, &wanted(then))
        .expect("the noted lines are where they were noted");
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
            format: Format::CLAUDE_WORKFLOW,
        };
        let blocks = vec![
            Block {
                id: "T1".into(),
                shown: Some(TaskStatus::Completed),
                lines: vec![(0, "heading"), (40, "status_field")],
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
                lines: vec![(u64::MAX, "heading")],
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
        // A kind the format does not have: not its index.
        let other = vec![Block {
            id: "T1".into(),
            shown: None,
            lines: vec![(0, "task_line")],
        }];
        copy.stage_index(id, &rows(&other).unwrap()).place();
        assert_eq!(copy.read_index(id), None);
    }

    #[test]
    fn the_copy_is_mirrored_through_its_index_while_the_index_names_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tasks.md");
        std::fs::write(&path, "- [ ] T1 a\n- [ ] T2 b\n").unwrap();
        let copy = PlanCopy {
            path: path.clone(),
            format: Format::SPEC_KIT,
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
                Format::SPEC_KIT,
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
            Format::CLAUDE_WORKFLOW,
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
            Format::SPEC_KIT,
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
            mirror(Format::SPEC_KIT, text, &[with("T1", TaskStatus::Completed)]),
            text
        );
    }

    #[test]
    fn a_box_that_shows_the_status_is_kept_as_written() {
        let text = "- [-] T1 a\n- [-] T2 b\n- [~] T3 c\n- [~] T4 d\n- [~] T5 e\n";
        let out = mirror(
            Format::SPEC_KIT,
            text,
            &[
                with("T1", TaskStatus::Skipped),
                with("T2", TaskStatus::Completed),
                with("T3", TaskStatus::Pending),
                with("T4", TaskStatus::InProgress),
                with("T5", TaskStatus::Skipped),
            ],
        );
        assert_eq!(
            out,
            "- [-] T1 a\n- [x] T2 b\n- [~] T3 c\n- [~] T4 d\n- [ ] T5 e — DEFERRED\n"
        );
    }

    #[test]
    fn claude_heading_forms_get_their_emoji() {
        let text = "## **T2**: b\n- **actions**: x\n## T3 c\n- **actions**: x\n";
        let out = mirror(
            Format::CLAUDE_WORKFLOW,
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
