//! `task-index.json`: every task of a snapshot in the few fields the read paths'
//! digest reads, and where its record lies in the snapshot, so those paths can fold a
//! log tail without parsing the whole state (docs/state-file.md "The task index").
//!
//! After a run dies, the log holds up to a checkpoint's worth of progress past the
//! snapshot, and `summary.json` no longer describes the workflow. Loading the whole
//! state to fold that tail is mostly parsing the snapshot. Instead the reader scans
//! the tail once ([`fold_tail`]): each event that changes state is folded as it is
//! read, by the same fold as the whole load, onto the tasks it moves, each built
//! from its entry the first time; then the fold is written back to the entries and
//! the digest computed from them (`Glance`), and only the records of the tasks the
//! digest names are parsed from the snapshot, at the byte spans the writer noted as
//! it wrote them, with their own events folded on again.
//!
//! Like the summary, the index is never a source of truth: it names the snapshot it
//! was written with (and that snapshot's log mark) and is used only while the summary
//! and the index both name the file that is the snapshot; any doubt — missing, torn,
//! another snapshot's, a span that does not hold its task, an event the fold refuses
//! — is the whole load.

use crate::state::task_ref::{Glanced, TaskRef, WeakTask};
use std::path::Path;

use serde::{Deserialize, Serialize, Serializer};

use crate::state::ids::{narrow, Ids, Packed};
use crate::state::index_file::{IndexReader, Staged};
use crate::state::machine::TaskStatus;
use crate::state::model::{Glance, LogMark, Task, Usage, WorkflowState};
use crate::state::summary::FileId;

mod fold;
pub use fold::{fold_tail, Tail};

pub const INDEX_FILE: &str = "task-index.json";
/// The layout of `task-index.json`; a reader ignores a file of any other.
pub const INDEX_VERSION: u32 = 3;
/// The wf that wrote the index and its snapshot — its version and the layout of a
/// task record it writes (build.rs) — so a writer copies a snapshot's task records
/// only from a snapshot written as it would write them (`state::snapshot_file`).
pub(crate) const WRITER: &str = concat!(env!("CARGO_PKG_VERSION"), "+", env!("WF_RECORD_LAYOUT"));

/// One task as the digest sees it, and where its whole record is in the snapshot.
/// Written as an array of its fields in this order (borrowed from the task: writing
/// the index copies nothing), which reads faster than an object: no key to parse.
/// Held with its ids packed (`state::ids`): a state holds one of these for every task
/// it has not read.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The task's id, then its deps, then its blockers.
    ids: Packed,
    /// How many deps and blockers (`ids::narrow`): a state holds no task of four
    /// billion.
    deps: u32,
    blocked_by: u32,
    pub status: TaskStatus,
    pub accepted_unchecked: bool,
    pub handed_off: Option<bool>,
    /// Boxed: most tasks have none, and it is four times the pointer.
    pub usage: Option<Box<Usage>>,
    /// Where the task's record is in the snapshot.
    pub span: Span,
}

/// Where a task's record is in its snapshot: its first byte and the byte past its
/// last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u64,
    end: u64,
}

impl Span {
    /// The record from byte `start` to `end`; none if it ends before it starts.
    pub fn new(start: u64, end: u64) -> Option<Span> {
        (start <= end).then_some(Span { start, end })
    }

    /// The `len` bytes from `start`.
    pub fn after(start: u64, len: u64) -> Span {
        Span {
            start,
            end: start + len,
        }
    }

    /// Its start and end byte offsets.
    pub fn bounds(self) -> [u64; 2] {
        [self.start, self.end]
    }
}

impl Entry {
    #[allow(clippy::too_many_arguments)]
    fn new<'a>(
        id: &'a str,
        status: TaskStatus,
        deps: impl ExactSizeIterator<Item = &'a str> + Clone,
        blocked_by: impl ExactSizeIterator<Item = &'a str> + Clone,
        accepted_unchecked: bool,
        handed_off: Option<bool>,
        usage: Option<Usage>,
        span: Span,
    ) -> Entry {
        Entry {
            deps: narrow(deps.len()),
            blocked_by: narrow(blocked_by.len()),
            ids: Packed::new(std::iter::once(id).chain(deps).chain(blocked_by)),
            status,
            accepted_unchecked,
            handed_off,
            usage: usage.map(Box::new),
            span,
        }
    }

    pub(crate) fn of(task: &Task, span: Span) -> Entry {
        Entry::new(
            &task.id,
            task.status,
            task.deps.iter().map(String::as_str),
            task.blocked_by.iter().map(String::as_str),
            task.accepted_unchecked,
            task.handed_off,
            task.usage,
            span,
        )
    }

    /// What a fold did to the task built from this entry.
    fn take_fold(&mut self, task: &Task) {
        *self = Entry::of(task, self.span);
    }

    /// The task with only what the entry holds: enough for the fold.
    fn task(&self) -> Task {
        Task {
            id: self.id().to_owned(),
            status: self.status,
            deps: self.deps().to_vec(),
            blocked_by: self.blocked_by().to_vec(),
            accepted_unchecked: self.accepted_unchecked,
            handed_off: self.handed_off,
            usage: self.usage(),
            ..Task::default()
        }
    }
}

impl Glance for Entry {
    fn id(&self) -> &str {
        self.ids.first()
    }
    fn status(&self) -> TaskStatus {
        self.status
    }
    fn deps(&self) -> Ids<'_> {
        self.ids.words(1, self.deps as usize)
    }
    fn blocked_by(&self) -> Ids<'_> {
        self.ids
            .words(1 + self.deps as usize, self.blocked_by as usize)
    }
    fn handed_off(&self) -> bool {
        self.handed_off == Some(true)
    }
    fn accepted_unchecked(&self) -> bool {
        self.accepted_unchecked
    }
    fn usage(&self) -> Option<Usage> {
        self.usage.as_deref().copied()
    }
}

#[derive(Serialize)]
struct IndexOut<'a> {
    index_version: u32,
    writer: &'static str,
    snapshot: FileId,
    event_log: LogMark,
    #[serde(serialize_with = "entries_of")]
    tasks: (&'a [TaskRef], &'a [[u64; 2]]),
}

fn entries_of<S: Serializer>(
    (tasks, spans): &(&[TaskRef], &[[u64; 2]]),
    s: S,
) -> Result<S::Ok, S::Error> {
    s.collect_seq(tasks.iter().zip(*spans).map(|(t, span)| match t.glanced() {
        // A task still unread is written from what the index said of it.
        Glanced::Entry(e) => (
            e.id(),
            e.status,
            e.deps(),
            e.blocked_by(),
            e.accepted_unchecked,
            e.handed_off,
            e.usage(),
            span,
        ),
        Glanced::Task(t) => (
            t.id.as_str(),
            t.status,
            Ids::listed(&t.deps),
            Ids::listed(&t.blocked_by),
            t.accepted_unchecked,
            t.handed_off,
            t.usage,
            span,
        ),
    }))
}

/// What `task-index.json` says of itself, before its entries. Nothing else: a second
/// `tasks` before the one the reader takes is no index.
#[derive(Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct IndexHead {
    index_version: u32,
    writer: String,
    snapshot: FileId,
    event_log: LogMark,
}

/// Writes the index of `state`, about to be saved as the snapshot `snapshot` with
/// its task records at `spans`, with the summary (`summary::stage`). Best effort and
/// not synced, as the summary.
pub fn stage(
    staged: &mut Staged,
    snapshot: FileId,
    mark: LogMark,
    state: &WorkflowState,
    spans: &[[u64; 2]],
) {
    if spans.len() != state.tasks.len() {
        return;
    }
    let out = IndexOut {
        index_version: INDEX_VERSION,
        writer: WRITER,
        snapshot,
        event_log: mark,
        tasks: (&state.tasks, spans),
    };
    staged.add(INDEX_FILE, |w| serde_json::to_writer(w, &out));
}

/// Every entry of the index written with the snapshot `snapshot` (log mark `mark`)
/// by this build, in order: what a writer's load keeps of each task until it is
/// looked at (`state::task_ref`).
pub fn entries_for(dir: &Path, snapshot: FileId, mark: LogMark) -> Option<Vec<Entry>> {
    read_index(dir, snapshot, mark)
        .filter(|(writer, _)| writer == WRITER)
        .map(|(_, entries)| entries)
}

/// Removes the task index beside the snapshot `snapshot`, so every later load parses
/// that snapshot whole; best effort (a missing index is none).
pub fn forget(snapshot: &Path) {
    if let Some(dir) = snapshot.parent() {
        let _ = std::fs::remove_file(dir.join(INDEX_FILE));
    }
}

/// The index in `dir`, if it is the snapshot `snapshot`'s at the mark `mark` (the
/// summary's, for a read path; the snapshot's, for a writer's spans), with the name
/// of the wf that wrote it.
fn read_index(dir: &Path, snapshot: FileId, mark: LogMark) -> Option<(String, Vec<Entry>)> {
    let bytes = crate::fs::read_regular(&dir.join(INDEX_FILE)).ok()?;
    let (head, entries) = read_entries(&bytes)?;
    let named =
        head.index_version == INDEX_VERSION && head.snapshot == snapshot && head.event_log == mark;
    named.then_some((head.writer, entries))
}

/// Where the records of `tasks` are in the snapshot `snapshot` (log mark `mark`),
/// from the index written with it by this build, if it lists the same tasks in the
/// same order: asked by the snapshot's copier (`state::snapshot_file`) after a load
/// that parsed every task. A task gone since (changed, so its record is not copied)
/// is not compared.
pub fn spans_for(
    dir: &Path,
    snapshot: FileId,
    mark: LogMark,
    tasks: &[WeakTask],
) -> Option<Vec<[u64; 2]>> {
    let entries = entries_for(dir, snapshot, mark)?;
    let same = entries.len() == tasks.len()
        && entries
            .iter()
            .zip(tasks)
            .all(|(e, t)| t.upgrade().is_none_or(|t| e.id() == t.id()));
    same.then(|| entries.iter().map(|e| e.span.bounds()).collect())
}

/// Reads `task-index.json` as [`stage`] makes it: a head (numbers and the writer's
/// name), then the entries, each an array of [`Entry`]'s fields, read by hand
/// (`state::index_file`). The file is only ever ours and only a cache, so anything
/// else — another layout, a torn write — reads as no index: the whole load.
fn read_entries(bytes: &[u8]) -> Option<(IndexHead, Vec<Entry>)> {
    let (head, mut reader) = IndexReader::after_head(bytes, "tasks")?;
    // An entry is at least 30 bytes (`["T",0,[],[],false,null,null,[0,0]]`).
    let entries = reader.array_of_at_most(bytes.len() / 30, entry)?;
    reader.end()?;
    Some((head, entries))
}

fn entry(r: &mut IndexReader<'_>) -> Option<Entry> {
    r.byte(b'[')?;
    // Borrowed from the file where they need no unescaping: only packed.
    let id = r.str()?;
    r.byte(b',')?;
    let status = TaskStatus::parse(&r.str()?)?;
    r.byte(b',')?;
    let deps = r.array(IndexReader::str)?;
    r.byte(b',')?;
    let blocked_by = r.array(IndexReader::str)?;
    r.byte(b',')?;
    let accepted_unchecked = r.bool()?;
    r.byte(b',')?;
    let handed_off = if r.word(b"null") {
        None
    } else {
        Some(r.bool()?)
    };
    r.byte(b',')?;
    let usage = if r.word(b"null") {
        None
    } else {
        Some(r.value::<Usage>()?)
    };
    r.byte(b',')?;
    r.byte(b'[')?;
    let start = r.number()?;
    r.byte(b',')?;
    let end = r.number()?;
    let span = Span::new(start, end)?;
    r.byte(b']')?;
    r.byte(b']')?;
    Some(Entry::new(
        &id,
        status,
        deps.iter().map(|d| &**d),
        blocked_by.iter().map(|b| &**b),
        accepted_unchecked,
        handed_off,
        usage,
        span,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::event::EventData;
    use crate::state::event::TaskMove;
    use crate::state::event_log::Event;
    use crate::state::fold::apply_event;
    use crate::state::machine::WorkflowStatus;
    use crate::state::summary::{self, View};
    use proptest::prelude::*;

    /// A snapshot written as the store writes it (pretty, spans recorded).
    fn snapshot(path: &Path, state: &WorkflowState) -> Vec<[u64; 2]> {
        let file = std::fs::File::create(path).unwrap();
        crate::state::snapshot_file::write(file, state, None)
            .unwrap()
            .spans
    }

    fn plan(n: usize, seed: &[u8]) -> WorkflowState {
        let mut state = WorkflowState::new();
        state.status = WorkflowStatus::Running;
        state.event_log = Some(LogMark { seq: 0, offset: 0 });
        state.tasks = (0..n)
            .map(|i| {
                let byte = seed.get(i).copied().unwrap_or(0);
                Task {
                    id: format!("T{}", i + 1),
                    name: format!(
                        "task \"{}\" — ünïcode\n{}",
                        i + 1,
                        "x".repeat(usize::from(byte % 7))
                    ),
                    deps: if i > 0 && byte % 3 != 0 {
                        vec![format!("T{}", usize::from(byte) % i + 1)]
                    } else {
                        Vec::new()
                    },
                    blocked_by: if byte % 11 == 0 {
                        vec!["human".into()]
                    } else {
                        Vec::new()
                    },
                    ..Task::default()
                }
            })
            .map(TaskRef::new)
            .collect();
        state
    }

    /// A legal walk of task moves, as a run that dies leaves them in the log: each
    /// completion with its proof and usage, some blocks with their blockers.
    fn walk(state: &WorkflowState, moves: &[(usize, usize, u8)], first_seq: u64) -> Vec<Event> {
        let mut status: Vec<TaskStatus> = state.tasks.iter().map(Glance::status).collect();
        let mut events = Vec::new();
        for (i, &(task, pick, flags)) in moves.iter().enumerate() {
            let task = task % status.len();
            let from = status[task];
            let legal: Vec<TaskStatus> = TaskStatus::ALL
                .into_iter()
                .filter(|to| from.can_move_to(*to))
                .collect();
            let Some(&to) = legal.get(pick % legal.len().max(1)) else {
                continue;
            };
            let mut data = TaskMove {
                from,
                to,
                duration_ms: Some(3),
                ..TaskMove::default()
            };
            if to == TaskStatus::Completed {
                data.evidence = Some(crate::state::evidence::Proof::of(
                    crate::state::evidence::Evidence {
                        at: "2026-11-26T15:55:04Z".into(),
                        inputs: crate::state::evidence::Inputs {
                            fingerprint: "sha256:00".into(),
                            definition: "d".into(),
                            ..Default::default()
                        },
                        ..Default::default()
                    },
                ));
                data.usage = Some(Usage {
                    input_tokens: 10 * u64::from(flags),
                    output_tokens: 0,
                    cache_write_tokens: 0,
                    cache_read_tokens: 0,
                    cost_usd: Some(f64::from(flags) / 10.0),
                });
                data.accepted_unchecked = flags % 2 == 0;
            }
            if to == TaskStatus::Blocked {
                data.blocked_by = Some(vec!["ci".into()]);
            }
            if to == TaskStatus::InProgress {
                data.handoff = flags % 3 == 0;
                data.log = Some(format!("logs/T{}.log", task + 1));
            }
            if matches!(to, TaskStatus::Failed | TaskStatus::Blocked) {
                data.reason = Some("it broke".into());
            }
            status[task] = to;
            events.push(Event {
                seq: first_seq + i as u64,
                ts: format!("2026-11-26T10:00:{:02}Z", i % 60),
                task_id: Some(state.tasks[task].id().to_owned()),
                executor: None,
                actor: "wf.orchestrator".into(),
                role: "orchestrator".into(),
                data: EventData::TaskStatusChanged(data),
                txn: false,
            });
        }
        events
    }

    fn without_proof(tasks: &[TaskRef]) -> Vec<Task> {
        tasks
            .iter()
            .map(|t| Task {
                evidence: None,
                ..t.task().unwrap().clone()
            })
            .collect()
    }

    fn written_head() -> IndexHead {
        IndexHead {
            index_version: INDEX_VERSION,
            writer: WRITER.to_string(),
            snapshot: FileId {
                dev: 1,
                ino: 2,
                len: 3,
                mtime: -4,
                mtime_ns: 5,
            },
            event_log: LogMark { seq: 6, offset: 7 },
        }
    }

    fn index_bytes(tasks: &[TaskRef], spans: &[[u64; 2]]) -> Vec<u8> {
        let head = written_head();
        let out = IndexOut {
            index_version: head.index_version,
            writer: WRITER,
            snapshot: head.snapshot,
            event_log: head.event_log,
            tasks: (tasks, spans),
        };
        serde_json::to_vec(&out).unwrap()
    }

    /// A task as the index holds it, its strings any text at all.
    fn indexed_task() -> impl Strategy<Value = Task> {
        let text = prop_oneof![
            Just("T1".to_string()),
            any::<String>(),
            "[a-z\"\\\\/\u{1}é]{0,6}"
        ];
        (
            text.clone(),
            proptest::sample::select(TaskStatus::ALL.to_vec()),
            proptest::collection::vec(text.clone(), 0..3),
            proptest::collection::vec(text, 0..2),
            any::<bool>(),
            proptest::option::of(any::<bool>()),
            proptest::option::of((
                any::<u64>(),
                any::<u64>(),
                proptest::option::of(-1e9f64..1e9),
            )),
        )
            .prop_map(
                |(id, status, deps, blocked_by, accepted_unchecked, handed_off, usage)| Task {
                    id,
                    status,
                    deps,
                    blocked_by,
                    accepted_unchecked,
                    handed_off,
                    usage: usage.map(|(input_tokens, output_tokens, cost_usd)| Usage {
                        input_tokens,
                        output_tokens,
                        cost_usd,
                        ..Usage::default()
                    }),
                    ..Task::default()
                },
            )
    }

    /// An entry's fields as the index lists them.
    type Fields = (
        String,
        TaskStatus,
        Vec<String>,
        Vec<String>,
        bool,
        Option<bool>,
        Option<Usage>,
        [u64; 2],
    );

    proptest! {
        /// The hand-written reader reads back every index the writer makes, as serde
        /// does, and nothing of a torn one.
        #[test]
        fn the_index_reads_back_as_written(
            tasks in proptest::collection::vec(indexed_task(), 0..8),
            spans in proptest::collection::vec(
                (0..u64::MAX / 2, any::<u32>()).prop_map(|(start, len)| [start, start + u64::from(len)]),
                8,
            ),
            torn_at in any::<proptest::sample::Index>(),
        ) {
            let tasks: Vec<TaskRef> = tasks.into_iter().map(TaskRef::new).collect();
            let spans = &spans[..tasks.len()];
            let bytes = index_bytes(&tasks, spans);
            let (head, read) = read_entries(&bytes).expect("an index as written");
            let want: Vec<Entry> = tasks.iter().zip(spans).map(|(t, s)| Entry::of(t.task().unwrap(), Span::new(s[0], s[1]).unwrap())).collect();
            prop_assert_eq!(&read, &want);
            let by_serde: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
            let by_serde: Vec<Fields> = serde_json::from_value(by_serde["tasks"].clone()).unwrap();
            let by_serde: Vec<Entry> = by_serde
                .into_iter()
                .map(|(id, status, deps, blocked_by, accepted, handed_off, usage, span)| {
                    Entry::new(
                        &id,
                        status,
                        deps.iter().map(String::as_str),
                        blocked_by.iter().map(String::as_str),
                        accepted,
                        handed_off,
                        usage,
                        Span::new(span[0], span[1]).unwrap(),
                    )
                })
                .collect();
            prop_assert_eq!(&read, &by_serde);
            prop_assert_eq!(head, written_head());
            let torn = &bytes[..torn_at.index(bytes.len())];
            prop_assert!(read_entries(torn).is_none());
        }
    }

    #[test]
    fn an_index_not_as_written_is_no_index() {
        let task = TaskRef::new(Task {
            id: "T1".into(),
            ..Task::default()
        });
        let bytes = String::from_utf8(index_bytes(&[task], &[[10, 20]])).unwrap();
        assert!(read_entries(bytes.as_bytes()).is_some());
        for altered in [
            bytes.replace("[10,20]", "[010,20]"),
            bytes.replace("[10,20]", "[10,00]"),
            bytes.replace("[10,20]", "[20,10]"),
            bytes.replacen('{', r#"{"tasks":[],"#, 1),
            bytes.replace(r#","tasks":"#, r#","t\u0061sks":[],"tasks":"#),
            bytes.replace(r#","tasks":"#, r#", "tasks":[],"tasks":"#),
        ] {
            assert_ne!(altered, bytes);
            assert!(read_entries(altered.as_bytes()).is_none(), "{altered}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// Folded onto the index, any legal tail gives the digest, the named tasks
        /// (but for proof) and the state's fields that the whole load gives.
        #[test]
        fn a_tail_folded_onto_the_index_reads_as_the_whole_load(
            n in 1usize..70,
            seed in proptest::collection::vec(any::<u8>(), 70),
            before in proptest::collection::vec((any::<usize>(), any::<usize>(), any::<u8>()), 0..40),
            after in proptest::collection::vec((any::<usize>(), any::<usize>(), any::<u8>()), 1..120),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let state_path = dir.path().join("workflow-state.json");
            let events_path = dir.path().join("events.jsonl");
            // A snapshot some way into the run, with a log mark at its last event.
            let mut state = plan(n, &seed);
            let mut log = Vec::new();
            for event in walk(&state, &before, 1) {
                apply_event(&mut state, &event).unwrap();
                log.extend(serde_json::to_vec(&event).unwrap());
                log.push(b'\n');
            }
            state.sync_progress();
            state.event_log = Some(LogMark { seq: before.len() as u64, offset: log.len() as u64 });
            let spans = snapshot(&state_path, &state);
            let id = FileId::of(&std::fs::metadata(&state_path).unwrap());
            summary::stage(dir.path(), id, &mut state, &spans).place();
            // The run goes on, then dies: its progress is only in the log.
            let tail = walk(&state, &after, before.len() as u64 + 1);
            let mut whole = state.clone();
            for event in &tail {
                apply_event(&mut whole, event).unwrap();
                log.extend(serde_json::to_vec(event).unwrap());
                log.push(b'\n');
            }
            whole.sync_progress();
            std::fs::write(&events_path, &log).unwrap();
            let view = summary::read(dir.path(), &state_path, &events_path)
                .expect("the index is current and every event legal");
            let reference = View::whole(whole);
            prop_assert_eq!(&view.digest, &reference.digest);
            let named = reference.digest.named(&reference.state);
            let shown: Vec<TaskRef> = reference
                .state
                .tasks
                .iter()
                .filter(|t| named.contains(t.id()))
                .cloned()
                .collect();
            prop_assert_eq!(without_proof(&view.state.tasks), without_proof(&shown));
            prop_assert_eq!(&view.state.current_task, &reference.state.current_task);
            prop_assert_eq!(&view.state.current_tasks, &reference.state.current_tasks);
            prop_assert_eq!(view.state.status, reference.state.status);
            prop_assert_eq!(&view.state.updated_at, &reference.state.updated_at);
            prop_assert_eq!(&view.state.retry_counts, &reference.state.retry_counts);
        }
    }
}
