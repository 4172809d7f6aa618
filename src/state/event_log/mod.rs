//! The append-only event log `events.jsonl`: one JSON object per line.
//!
//! It is two things at once: the event stream UIs and CI read (`wf events`), and the
//! journal that makes progress durable between snapshots of `workflow-state.json`.
//! Each event is written with one `write` on an `O_APPEND` file — or, while a run's
//! scheduler holds them ([`EventLog::hold`]), the events of one of its turns together
//! in one `write` — so a killed process leaves at most a torn final line, which
//! readers skip. `fsync` is batched (at most
//! [`SYNC_INTERVAL`] apart, and at every snapshot), which bounds what a power loss —
//! not a crash — can take back.
//!
//! Events of a transaction (`"txn": true`: an import, a constraint change, an
//! archive) are appended before the snapshot that commits them; readers never fold
//! them, and [`cut_uncommitted`] removes them if that snapshot never came.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::config::Role;
use crate::error::{Result, WfError};
use crate::state::event::EventData;
use crate::state::records::LogMark;

mod read;
use read::last_complete_event;
pub use read::{
    complete_lines, cut_uncommitted, for_each_from, for_each_parsed_from, last_seq, read_for_fold,
    seq_of,
};

pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);

/// An event as the log holds it: the envelope (docs/events.md "Envelope") and its
/// typed data.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub seq: u64,
    pub ts: String,
    pub task_id: Option<String>,
    pub executor: Option<String>,
    /// Who acted, shown as `{loop}.{role}` (docs/events.md "Envelope"), e.g.
    /// `wf.orchestrator`. Borrowed, as `role`, where this writer makes the event.
    pub actor: Cow<'static, str>,
    pub role: Cow<'static, str>,
    /// The `type` and the `data` of the line.
    pub data: EventData,
    /// Part of a transaction that the next snapshot commits: never folded by
    /// readers (see `fold`), cut off the log if that snapshot never comes.
    pub txn: bool,
}

impl Event {
    /// The `type` of the line.
    pub fn kind(&self) -> &str {
        self.data.name()
    }

    /// Reads one line of the log.
    pub fn parse(line: &[u8]) -> serde_json::Result<Event> {
        EventLine::parse(line).map(EventLine::into_event)
    }
}

/// The line's fields in the order this writer has always written them.
impl Serialize for Event {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Line<'a> {
            seq: u64,
            ts: &'a str,
            #[serde(rename = "type")]
            kind: &'a str,
            #[serde(skip_serializing_if = "Option::is_none")]
            task_id: Option<&'a str>,
            #[serde(skip_serializing_if = "Option::is_none")]
            executor: Option<&'a str>,
            actor: &'a str,
            role: &'a str,
            data: &'a EventData,
            #[serde(skip_serializing_if = "std::ops::Not::not")]
            txn: bool,
        }
        Line {
            seq: self.seq,
            ts: &self.ts,
            kind: self.kind(),
            task_id: self.task_id.as_deref(),
            executor: self.executor.as_deref(),
            actor: &self.actor,
            role: &self.role,
            data: &self.data,
            txn: self.txn,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Event {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Event, D::Error> {
        EventLine::deserialize(d).map(EventLine::into_event)
    }
}

/// A line's envelope read in place, its `data` not read yet: for scans that look at
/// `seq`, the kind and `txn` of every line and build only the events they keep (the
/// uncommitted-transaction cut, the read paths' tail, the whole load's fold). A line
/// reads as this exactly when it reads as an [`Event`].
#[derive(Debug, Deserialize)]
pub struct EventLine<'a> {
    pub seq: u64,
    #[serde(borrow)]
    ts: Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    #[serde(default, borrow)]
    task_id: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    executor: Option<Cow<'a, str>>,
    #[serde(borrow)]
    actor: Cow<'a, str>,
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(default, borrow)]
    data: Option<&'a RawValue>,
    #[serde(default)]
    pub txn: bool,
}

impl<'a> EventLine<'a> {
    pub fn parse(line: &'a [u8]) -> serde_json::Result<EventLine<'a>> {
        serde_json::from_slice(line)
    }

    /// The event, its data read as its kind's.
    pub fn into_event(self) -> Event {
        Event {
            seq: self.seq,
            ts: self.ts.into_owned(),
            data: EventData::read(&self.kind, self.data),
            task_id: self.task_id.map(Cow::into_owned),
            executor: self.executor.map(Cow::into_owned),
            actor: Cow::Owned(self.actor.into_owned()),
            role: Cow::Owned(self.role.into_owned()),
            txn: self.txn,
        }
    }
}

/// An event before the log gives it a sequence number and a time.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub data: EventData,
    pub task_id: Option<String>,
    pub executor: Option<String>,
    pub role: &'static str,
    pub txn: bool,
}

impl NewEvent {
    pub fn new(data: EventData) -> Self {
        NewEvent {
            data,
            task_id: None,
            executor: None,
            role: "orchestrator",
            txn: false,
        }
    }

    #[must_use]
    pub fn task(mut self, id: &str) -> Self {
        self.task_id = Some(id.to_string());
        self
    }

    #[must_use]
    pub fn executor(mut self, name: &str, role: Role) -> Self {
        self.executor = Some(name.to_string());
        self.role = role.as_str();
        self
    }
}

/// The writer's end of the log. Only the holder of the state lock has one.
pub struct EventLog {
    path: PathBuf,
    file: fs_err::File,
    next_seq: u64,
    offset: u64,
    last_sync: Instant,
    dirty: bool,
    /// Lines appended while writes are held ([`EventLog::hold`]), not written yet;
    /// `None` when every append is written at once.
    held: Option<Vec<u8>>,
}

impl EventLog {
    /// Opens the log for appending; `seq`/`offset` come from reading its tail.
    /// `after_seq` is the snapshot's mark: numbering never goes back below it, even
    /// when the log file was moved away and started afresh, so readers (which fold
    /// only events past the mark) never skip a new event.
    pub fn open(path: &Path, after_seq: u64) -> Result<EventLog> {
        let mut file = crate::fs::durable::open_append(path)?;
        let len = file.metadata()?.len();
        let (last_seq, end) = last_complete_event(&mut file, len)?;
        if end < len {
            // A torn final line from a crash: cut it so the next event starts clean.
            file.set_len(end)?;
        }
        Ok(EventLog {
            path: path.to_path_buf(),
            file,
            next_seq: last_seq.max(after_seq) + 1,
            offset: end,
            last_sync: Instant::now(),
            dirty: false,
            held: None,
        })
    }

    /// From now on, appended events stay in memory until [`EventLog::write_held`] (or
    /// a `sync`) writes them all in one `write`: a run's scheduler appends a task's
    /// outcome and the next task's start, four events, with one system call. The
    /// holder writes them before anything outside this process can act on them —
    /// before a command starts, before it waits — so the log still has every
    /// transition before its consequence.
    pub fn hold(&mut self) {
        self.held.get_or_insert_with(Vec::new);
    }

    /// Writes the held events, if any. When the write fails they are gone from the
    /// log (the part written is cut) though their sequence numbers are used: the
    /// caller gives up, and its session settles from the files.
    pub fn write_held(&mut self) -> Result<()> {
        let Some(mut lines) = self.held.take_if(|held| !held.is_empty()) else {
            return Ok(());
        };
        let written = self.write(&lines);
        // The buffer is kept for the next turn's events: grown afresh from empty, it
        // was reallocated several times a turn.
        lines.clear();
        self.held = Some(lines);
        written
    }

    /// Writes the held events and appends each one at once again.
    pub fn release(&mut self) -> Result<()> {
        let written = self.write_held();
        self.held = None;
        written
    }

    pub fn append(&mut self, new: NewEvent) -> Result<Event> {
        let event = Event {
            seq: self.next_seq,
            ts: crate::clock::now_rfc3339(),
            task_id: new.task_id,
            actor: match (new.executor.as_deref(), new.role) {
                (None, "orchestrator") => "wf.orchestrator".into(),
                (name, role) => format!("{}.{role}", name.unwrap_or("wf")).into(),
            },
            executor: new.executor,
            role: new.role.into(),
            data: new.data,
            txn: new.txn,
        };
        let encode = |line: &mut Vec<u8>| {
            serde_json::to_writer(&mut *line, &event)
                .map_err(|e| WfError::usage(format!("cannot encode an event: {e}")))?;
            line.push(b'\n');
            Ok::<(), WfError>(())
        };
        if let Some(held) = self.held.as_mut() {
            // Encoded where it is held: a line that cannot be encoded leaves nothing.
            let start = held.len();
            if let Err(e) = encode(held) {
                held.truncate(start);
                return Err(e);
            }
        } else {
            // Most events' lines are shorter: one allocation, not a growth at each
            // doubling.
            let mut line = Vec::with_capacity(512);
            encode(&mut line)?;
            self.write(&line)?;
        }
        self.next_seq += 1;
        Ok(event)
    }

    /// Appends whole lines with one `write`.
    fn write(&mut self, lines: &[u8]) -> Result<()> {
        if let Err(e) = crate::fs::durable::write_all(self.file.file_mut(), lines) {
            // Part of the lines may be on disk: cut it, so the next event does not
            // follow a torn one (which would make the log unreadable from there).
            let _ = self.file.set_len(self.offset);
            return Err(WfError::io(
                &e,
                format!("cannot append to {}: {e}", self.path.display()),
            ));
        }
        self.offset += lines.len() as u64;
        self.dirty = true;
        if self.last_sync.elapsed() >= SYNC_INTERVAL {
            self.sync()?;
        }
        Ok(())
    }

    /// Writes the held events and syncs the file's data.
    pub fn sync(&mut self) -> Result<()> {
        self.write_held()?;
        if self.dirty {
            crate::fs::durable::sync_data(self.file.file()).map_err(|e| {
                WfError::io(&e, format!("cannot sync {}: {e}", self.path.display()))
            })?;
            self.dirty = false;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    /// The mark [`EventLog::mark`] will give once the held events are written.
    pub fn mark_after_held(&self) -> LogMark {
        let held = self.held.as_ref().map_or(0, Vec::len);
        LogMark {
            seq: self.next_seq - 1,
            offset: self.offset + held as u64,
        }
    }

    /// Sequence number of the last event appended, and the offset just past the last
    /// one written. Asked only when none is held (a `sync` or `write_held` comes
    /// first), so the two describe the same event — except after a failed write,
    /// whose events' numbers are used though the lines are not in the file: a seq
    /// past the snapshot's then sends the session to settle from the files.
    pub fn mark(&self) -> LogMark {
        debug_assert!(
            self.held.as_ref().is_none_or(Vec::is_empty),
            "a log mark asked while events are held"
        );
        LogMark {
            seq: self.next_seq - 1,
            offset: self.offset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::read::{for_each_line, uncommitted_run, uncommitted_run_from_end};
    use super::*;

    fn parse_lines(buf: &[u8]) -> Result<Vec<Event>> {
        let mut events = Vec::new();
        for_each_line(
            Path::new("e"),
            0,
            buf,
            |_, line| serde_json::from_slice(line),
            |e| {
                events.push(e);
                Ok(())
            },
        )?;
        Ok(events)
    }

    const EVENT: &str = r#"{"seq":1,"ts":"t","type":"a","actor":"wf.o","role":"o","data":{}}"#;

    #[test]
    fn a_completion_is_written_with_its_proof_last_and_reads_back_the_same() {
        use crate::state::event::TaskMove;
        use crate::state::evidence::{Evidence, Proof};
        use crate::state::machine::TaskStatus;
        let mut event: Event = serde_json::from_str(EVENT).unwrap();
        event.task_id = Some("T1".into());
        event.data = EventData::TaskStatusChanged(TaskMove {
            verified: Some(true),
            duration_ms: Some(4),
            from: TaskStatus::InProgress,
            to: TaskStatus::Completed,
            evidence: Some(Proof::of(Evidence {
                at: "t".into(),
                ..Evidence::default()
            })),
            ..TaskMove::default()
        });
        let line = serde_json::to_string(&event).unwrap();
        assert!(
            line.starts_with(r#"{"seq":1,"ts":"t","type":"task.status_changed","task_id":"T1","actor":"wf.o","role":"o","data":{"verified":true,"duration_ms":4,"from":"in_progress","to":"completed","evidence":{"at":"t","#),
            "{line}"
        );
        assert_eq!(Event::parse(line.as_bytes()).unwrap(), event);
    }

    #[test]
    fn a_foreign_kind_and_data_that_do_not_fit_their_kind_still_read() {
        let foreign = Event::parse(EVENT.as_bytes()).unwrap();
        assert_eq!(foreign.kind(), "a");
        assert!(!foreign.data.changes_state());
        let line = EVENT.replace(r#""type":"a""#, r#""type":"task.status_changed""#);
        let unfit = Event::parse(line.as_bytes()).unwrap();
        match &unfit.data {
            EventData::Unreadable { error, .. } => {
                assert!(error.contains("missing field `from`"), "{error}");
            }
            other => panic!("{other:?}"),
        }
        // Written back as it was read.
        assert_eq!(serde_json::to_string(&unfit).unwrap(), line);
    }

    #[test]
    fn torn_final_line_is_skipped() {
        let buf = format!("{EVENT}\n{{\"seq\":2,\"ts");
        let events = parse_lines(buf.as_bytes()).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].seq, 1);
    }

    #[test]
    fn a_complete_final_line_that_does_not_parse_is_skipped() {
        let buf = format!("{EVENT}\n{{\"seq\":2,\"ts\n");
        assert_eq!(parse_lines(buf.as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn an_unterminated_final_event_is_not_applied() {
        // Its write may be half done: only a line ending in a newline was written whole.
        let buf = format!("{EVENT}\n{EVENT}");
        assert_eq!(parse_lines(buf.as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn garbage_in_the_middle_is_an_error() {
        let buf = format!("nope\n{EVENT}\n");
        let err = parse_lines(buf.as_bytes()).unwrap_err();
        assert!(
            err.to_string().contains("event 1 after the snapshot"),
            "{err}"
        );
    }

    #[test]
    fn cut_uncommitted_removes_only_a_trailing_run_of_txn_events_past_the_mark() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let ev = |seq: u64, txn: bool| {
            let t = if txn { r#","txn":true"# } else { "" };
            format!(
                r#"{{"seq":{seq},"ts":"t","type":"a","actor":"wf.o","role":"o","data":{{}}{t}}}"#
            ) + "\n"
        };
        let committed = ev(1, true) + &ev(2, false);
        std::fs::write(
            &path,
            committed.clone() + &ev(3, true) + &ev(4, true) + "{\"seq\":5",
        )
        .unwrap();
        let mark = committed.len() as u64;
        assert_eq!(cut_uncommitted(&path, 2, mark).unwrap(), 2);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), committed);
        // A txn event followed by a plain one is not a trailing run: left alone.
        let mixed = committed.clone() + &ev(3, true) + &ev(4, false);
        std::fs::write(&path, &mixed).unwrap();
        assert_eq!(cut_uncommitted(&path, 2, mark).unwrap(), 0);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), mixed);
    }

    /// The run as the log was read before, from its start: every line parsed, a line
    /// that is not a txn event past the mark ending any run so far.
    fn uncommitted_run_read_forward(
        tail: &[u8],
        start: u64,
        mark_seq: u64,
    ) -> Option<(u64, usize)> {
        let mut cut: Option<(u64, usize)> = None;
        let mut at = start;
        for line in tail.split_inclusive(|&b| b == b'\n') {
            let line_start = at;
            at += line.len() as u64;
            if !line.ends_with(b"\n") {
                break;
            }
            match EventLine::parse(line) {
                Ok(ev) if ev.txn && ev.seq > mark_seq => {
                    let (from, n) = cut.unwrap_or((line_start, 0));
                    cut = Some((from, n + 1));
                }
                _ if line.iter().all(u8::is_ascii_whitespace) => {}
                _ => cut = None,
            }
        }
        cut
    }

    proptest::proptest! {
        /// Read from the end, the run is the one a read from the start finds, whatever
        /// the lines: txn events or not, before or past the mark, blank, broken, and a
        /// torn last line.
        #[test]
        fn the_uncommitted_run_read_from_the_end_is_the_one_read_from_the_start(
            lines in proptest::collection::vec((0..5u8, 0..6u64), 0..12),
            torn in proptest::bool::ANY,
            mark_seq in 0..6u64,
            window in 1..200u64,
        ) {
            let mut tail = String::new();
            for (kind, seq) in lines {
                tail += &match kind {
                    0 | 1 => {
                        let t = if kind == 0 { r#","txn":true"# } else { "" };
                        format!(r#"{{"seq":{seq},"ts":"t","type":"a","actor":"wf.o","role":"o","data":{{}}{t}}}"#)
                    }
                    2 => String::new(),
                    3 => "  ".into(),
                    _ => r#"{"seq":"#.into(),
                };
                tail.push('\n');
            }
            if torn {
                tail += r#"{"seq":9,"txn":tr"#;
            }
            let forward = uncommitted_run_read_forward(tail.as_bytes(), 100, mark_seq);
            proptest::prop_assert_eq!(
                uncommitted_run(tail.as_bytes(), 100, mark_seq).0,
                forward,
                "{}", tail
            );
            // Read a window at a time, the log's bytes 100.. being `tail`.
            let len = 100 + tail.len() as u64;
            let read_from = |at: u64| Ok(tail.as_bytes()[usize::try_from(at - 100).unwrap()..].to_vec());
            proptest::prop_assert_eq!(
                uncommitted_run_from_end(read_from, 100, len, mark_seq, window).unwrap(),
                forward,
                "{} (window {})", tail, window
            );
        }
    }

    #[test]
    fn blank_lines_are_skipped_and_order_is_kept() {
        let second = EVENT.replace("\"seq\":1", "\"seq\":2");
        let buf = format!("{EVENT}\n\n{second}\n");
        let seqs: Vec<u64> = parse_lines(buf.as_bytes())
            .unwrap()
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, vec![1, 2]);
    }

    #[test]
    fn held_events_reach_the_file_together_when_written_and_at_a_sync() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        let lines = || std::fs::read_to_string(&path).unwrap().lines().count();
        let event = || {
            NewEvent::new(EventData::TaskExecutionStarted(
                crate::state::event::ExecutionStarted::default(),
            ))
        };
        let mut log = EventLog::open(&path, 0).unwrap();
        log.append(event()).unwrap();
        assert_eq!(lines(), 1, "not held: written at once");
        log.hold();
        assert_eq!(log.append(event()).unwrap().seq, 2);
        assert_eq!(log.append(event()).unwrap().seq, 3);
        assert_eq!(lines(), 1, "held: not in the file yet");
        log.write_held().unwrap();
        assert_eq!(lines(), 3);
        log.append(event()).unwrap();
        log.sync().unwrap();
        assert_eq!(lines(), 4, "a sync writes what is held");
        let len = std::fs::metadata(&path).unwrap().len();
        assert_eq!(
            log.mark(),
            LogMark {
                seq: 4,
                offset: len
            }
        );
        log.append(event()).unwrap();
        log.release().unwrap();
        assert_eq!(lines(), 5, "the release writes what is held");
        log.append(event()).unwrap();
        assert_eq!(lines(), 6, "released: written at once again");
        // What a reader makes of it: every event, numbered in order.
        let seqs: Vec<u64> = parse_lines(&std::fs::read(&path).unwrap())
            .unwrap()
            .iter()
            .map(|e| e.seq)
            .collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5, 6]);
    }
}
