//! Reading a snapshot and the log's tail past its mark, as the whole load and a
//! writer's load do: the state file parsed and checked ([`parse_state`]), or, for a
//! writer, its tasks left unread where the task index allows ([`parse_unread`]); the
//! tail read as the fold reads it and folded on.

use std::path::Path;
use std::sync::Arc;

use crate::error::{ErrorKind, Result, WfError};
use crate::fs::read_span;
use crate::state::event_log::{self, Event};
use crate::state::fold::{apply_event, folds};
use crate::state::model::{Glance, LogMark, WorkflowState, SCHEMA_VERSION};
use crate::state::summary::FileId;
use crate::state::task_ref::TaskRef;

/// A snapshot as read: the state it holds, the log's tail past its mark (when asked
/// for), and the file it came from, with its identity when the read began.
pub(super) struct Read {
    pub(super) state: WorkflowState,
    pub(super) tail: Tail,
    pub(super) file: std::fs::File,
    pub(super) id: FileId,
    /// The file the tasks were left unread in ([`parse_unread`]), whose records
    /// they name.
    pub(super) unread: Option<Arc<crate::state::task_ref::Source>>,
}

/// What a read of the snapshot reads besides it.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Also {
    Nothing,
    /// The event log's tail past the snapshot's mark, read as the fold reads it.
    Tail,
    /// The tail, for a writer: its tasks left unread where the task index allows
    /// ([`parse_unread`]), whose spans the writer's next snapshot copies from
    /// (`state::snapshot_file`).
    TailAndSpans,
}

/// What the whole load folds of the log past a snapshot's mark.
#[derive(Default)]
pub(super) struct Tail {
    /// The events to apply, in order: those past the mark that the fold applies
    /// (`fold::folds`).
    pub(super) events: Vec<Event>,
    /// Whether any line past the mark was read.
    pub(super) past_mark: bool,
}

/// `state`, as read from the snapshot, with the log's `tail` past its mark folded on.
pub(super) fn fold(mut state: WorkflowState, tail: Tail) -> Result<WorkflowState> {
    for event in &tail.events {
        apply_event(&mut state, event)?;
    }
    if tail.past_mark {
        state.sync_progress();
    }
    Ok(state)
}

/// The events of the log past `mark`, as the fold reads them
/// (`event_log::read_for_fold`); only those it applies are kept.
pub(super) fn read_tail(events: &Path, mark: LogMark) -> Result<Tail> {
    let mut tail = Tail::default();
    event_log::for_each_parsed_from(
        events,
        mark.offset,
        |_, line| event_log::read_for_fold(line),
        |(seq, event)| {
            if seq > mark.seq {
                tail.past_mark = true;
                tail.events.extend(event.filter(|e| folds(e.kind(), e.txn)));
            }
            Ok(())
        },
    )?;
    Ok(tail)
}

/// The log mark in the last lines of a snapshot as our writer lays it out (a guess:
/// the parse has the real one).
pub(super) fn written_mark(snapshot: &[u8]) -> Option<LogMark> {
    const KEY: &[u8] = b"\"event_log\": ";
    let end = &snapshot[snapshot.len().saturating_sub(128)..];
    let at = end.windows(KEY.len()).rposition(|w| w == KEY)?;
    let mut marks =
        serde_json::Deserializer::from_slice(&end[at + KEY.len()..]).into_iter::<LogMark>();
    marks.next()?.ok()
}

/// Parses and validates a state file's bytes; errors name the path and position.
pub fn parse_state(path: &Path, bytes: &[u8]) -> Result<WorkflowState> {
    let corrupt = |pos: String, what: String| {
        WfError::new(
            ErrorKind::CorruptState,
            format!(
                "{}{pos}: {what}; the file was left as it was (restore a backup-*.json or start again with `wf workflow-start --force`)",
                path.display()
            ),
        )
    };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, col) = crate::fs::line_col(bytes, e.valid_up_to());
        corrupt(
            format!(":{line}:{col}"),
            "the state file is not UTF-8".into(),
        )
    })?;
    // One typed pass in the common case: parsing into a `Value` first (to look at
    // `wf_schema`) and then again typed cost two full parses of every read — most of
    // `wf status` on a big workflow. The slow path below runs only when the typed
    // parse fails, so its errors (position, newer schema, layout) are unchanged.
    if let Ok(state) = serde_json::from_str::<WorkflowState>(text) {
        if state.wf_schema <= SCHEMA_VERSION {
            return refuse_duplicate_ids(state, &corrupt);
        }
    }
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        corrupt(
            format!(":{}:{}", e.line(), e.column()),
            format!(
                "the state file is not valid JSON ({})",
                crate::error::one_line(&e.to_string())
            ),
        )
    })?;
    if let Some(v) = value.get("wf_schema") {
        match v.as_u64() {
            Some(n) if n <= u64::from(SCHEMA_VERSION) => {}
            Some(n) => {
                return Err(corrupt(
                    String::new(),
                    format!("written by a newer wf (wf_schema {n}; this wf reads up to {SCHEMA_VERSION}); upgrade wf"),
                ))
            }
            None => return Err(corrupt(String::new(), "wf_schema is not a number".into())),
        }
    }
    let state = serde_json::from_str::<WorkflowState>(text).map_err(|e| {
        corrupt(
            format!(":{}:{}", e.line(), e.column()),
            format!(
                "the state does not fit the workflow-state layout ({})",
                crate::error::one_line(&e.to_string())
            ),
        )
    })?;
    refuse_duplicate_ids(state, &corrupt)
}

/// The state in the snapshot `file` (the file `id` at `path`) with every task left
/// unread (`state::task_ref`): the task index written with it (log mark `mark`) by
/// this build says where each record is and what a scheduler needs of it, and only
/// the rest of the file is read and parsed. `None` when the index is not that, or
/// the file is not laid out as it says: the whole parse reads it, and names what is
/// wrong.
///
/// A `--step` after a crash spent most of its time parsing records it never
/// looked at.
pub(super) fn parse_unread(
    path: &Path,
    file: &std::fs::File,
    id: FileId,
    dir: &Path,
    mark: LogMark,
) -> Option<(WorkflowState, Arc<crate::state::task_ref::Source>)> {
    let entries = crate::state::task_index::entries_for(dir, id, mark)?;
    let in_order = entries
        .windows(2)
        .all(|w| w[0].span.bounds()[1] < w[1].span.bounds()[0]);
    let (first, last) = (
        entries.first()?.span.bounds()[0],
        entries.last()?.span.bounds()[1],
    );
    if !in_order || first >= last || last > id.len {
        return None;
    }
    let head = read_span(file, 0, first)?;
    let rest = read_span(file, last, id.len)?;
    let open = head.trim_ascii_end().len().checked_sub(1)?;
    let key = head[..open].trim_ascii_end();
    let close = rest.len() - rest.trim_ascii_start().len();
    let laid_out =
        head[open] == b'[' && key.ends_with(b"\"tasks\":") && rest.get(close) == Some(&b']');
    if !laid_out {
        return None;
    }
    let mut text = head;
    text.truncate(open + 1);
    text.extend_from_slice(&rest[close..]);
    let mut state = parse_state(path, &text).ok()?;
    if state.event_log != Some(mark) || first_repeated(entries.iter().map(Glance::id)).is_some() {
        return None;
    }
    let source = Arc::new(crate::state::task_ref::Source {
        snapshot: Some(path.to_path_buf()),
        file: file.try_clone().ok()?,
    });
    state.tasks = entries
        .into_iter()
        .map(|glance| {
            TaskRef::unread(crate::state::task_ref::Record {
                source: Arc::clone(&source),
                glance,
            })
        })
        .collect();
    Some((state, source))
}

/// Tasks are found by id; with two of one id, updates would land on one and readers
/// could see the other.
fn refuse_duplicate_ids(
    state: WorkflowState,
    corrupt: &dyn Fn(String, String) -> WfError,
) -> Result<WorkflowState> {
    if let Some(dup) = first_repeated(state.tasks.iter().map(Glance::id)) {
        return Err(corrupt(
            String::new(),
            format!(
                "task id \"{}\" appears twice in tasks",
                crate::error::one_line(dup)
            ),
        ));
    }
    Ok(state)
}

/// The first id that comes again among `ids`.
fn first_repeated<'a>(ids: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = std::collections::HashSet::<_, foldhash::fast::RandomState>::default();
    ids.into_iter().find(|id| !seen.insert(*id))
}
