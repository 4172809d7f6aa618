//! The append-only event log `events.jsonl`: one JSON object per line.
//!
//! It is two things at once: the event stream UIs and CI read (`wf events`), and the
//! journal that makes progress durable between snapshots of `workflow-state.json`.
//! Each event is written with one `write` on an `O_APPEND` file, so a killed process
//! leaves at most a torn final line, which readers skip. `fsync` is batched (at most
//! [`SYNC_INTERVAL`] apart, and at every snapshot), which bounds what a power loss —
//! not a crash — can take back.
//!
//! Events of a transaction (`"txn": true`: an import, a constraint change, an
//! archive) are appended before the snapshot that commits them; readers never fold
//! them, and [`cut_uncommitted`] removes them if that snapshot never came.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Role;
use crate::error::{ErrorKind, Result, WfError};
use crate::state::event::EventKind;

pub const SYNC_INTERVAL: Duration = Duration::from_millis(100);

/// An event as the log holds it. `D` is how its data is read: whole (`Value`), or
/// [`WithoutEvidence`] where a reader folds a long tail and shows no proof.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Event<D = Value> {
    pub seq: u64,
    pub ts: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<String>,
    /// Who acted, shown as `{loop}.{role}` (docs/events.md "Envelope"), e.g. `wf.orchestrator`.
    pub actor: String,
    pub role: String,
    #[serde(default)]
    pub data: D,
    /// Part of a transaction that the next snapshot commits: never folded by
    /// readers (see `fold`), cut off the log if that snapshot never comes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub txn: bool,
}

/// An event line read in place: its place (`seq`), kind, task and `txn`, for scans
/// that build no event (the uncommitted-transaction cut; the read paths' tail,
/// `state::task_index`). Every field of an [`Event`] is here, of its type — strings
/// borrowed where they can be, `data` skipped over but still JSON — so a line parses
/// as this exactly when it parses as an event.
#[derive(Debug, Deserialize)]
#[allow(dead_code)] // Some fields are parsed only to check the line is an event.
pub struct EventHead<'a> {
    pub seq: u64,
    #[serde(borrow)]
    ts: std::borrow::Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    pub kind: std::borrow::Cow<'a, str>,
    #[serde(default, borrow)]
    pub task_id: Option<std::borrow::Cow<'a, str>>,
    #[serde(default, borrow)]
    executor: Option<std::borrow::Cow<'a, str>>,
    #[serde(borrow)]
    actor: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    role: std::borrow::Cow<'a, str>,
    #[serde(default)]
    data: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    pub txn: bool,
}

/// An event's data object without its `evidence`: a completion's proof is most of a
/// run's log, and the read paths that fold a tail onto the task index
/// (`state::task_index`) show none. Data that is not an object fails the parse (the
/// reader then loads the whole state, which folds it as it is).
#[derive(Debug, Default)]
pub struct WithoutEvidence(serde_json::Map<String, Value>);

impl<'de> Deserialize<'de> for WithoutEvidence {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = WithoutEvidence;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an event's data object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> std::result::Result<WithoutEvidence, A::Error> {
                let mut data = serde_json::Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == "evidence" {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    } else {
                        data.insert(key, map.next_value()?);
                    }
                }
                Ok(WithoutEvidence(data))
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

impl Event<WithoutEvidence> {
    /// The event as folds take it, its data without `evidence`.
    pub fn into_event(self) -> Event {
        Event {
            seq: self.seq,
            ts: self.ts,
            kind: self.kind,
            task_id: self.task_id,
            executor: self.executor,
            actor: self.actor,
            role: self.role,
            data: Value::Object(self.data.0),
            txn: self.txn,
        }
    }
}

/// An event before the log gives it a sequence number and a time.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub kind: EventKind,
    pub task_id: Option<String>,
    pub executor: Option<String>,
    pub role: &'static str,
    pub data: Value,
    pub txn: bool,
}

impl NewEvent {
    pub fn new(kind: EventKind, data: Value) -> Self {
        NewEvent {
            kind,
            task_id: None,
            executor: None,
            role: "orchestrator",
            data,
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
        })
    }

    pub fn append(&mut self, new: NewEvent) -> Result<Event> {
        let event = Event {
            seq: self.next_seq,
            ts: crate::clock::now_rfc3339(),
            kind: new.kind.name().to_string(),
            task_id: new.task_id,
            actor: format!("{}.{}", new.executor.as_deref().unwrap_or("wf"), new.role),
            executor: new.executor,
            role: new.role.to_string(),
            data: new.data,
            txn: new.txn,
        };
        let mut line = serde_json::to_vec(&event)
            .map_err(|e| WfError::usage(format!("cannot encode an event: {e}")))?;
        line.push(b'\n');
        if let Err(e) = crate::fs::durable::write_all(self.file.file_mut(), &line) {
            // Part of the line may be on disk: cut it, so the next event does not
            // follow a torn one (which would make the log unreadable from there).
            let _ = self.file.set_len(self.offset);
            return Err(WfError::io(
                &e,
                format!("cannot append to {}: {e}", self.path.display()),
            ));
        }
        self.next_seq += 1;
        self.offset += line.len() as u64;
        self.dirty = true;
        if self.last_sync.elapsed() >= SYNC_INTERVAL {
            self.sync()?;
        }
        Ok(event)
    }

    pub fn sync(&mut self) -> Result<()> {
        if self.dirty {
            crate::fs::durable::sync_data(self.file.file()).map_err(|e| {
                WfError::io(&e, format!("cannot sync {}: {e}", self.path.display()))
            })?;
            self.dirty = false;
        }
        self.last_sync = Instant::now();
        Ok(())
    }

    /// Sequence number of the last event written, and the offset just past it.
    pub fn mark(&self) -> (u64, u64) {
        (self.next_seq - 1, self.offset)
    }
}

/// Cuts off the log the events of a transaction that never committed: the run of
/// `txn` events at its end past the snapshot's mark (`mark_seq`, `mark_offset`). Only
/// the holder of the writer's lock calls it, before opening the log for appending.
/// Returns how many events were cut.
pub fn cut_uncommitted(path: &Path, mark_seq: u64, mark_offset: u64) -> Result<usize> {
    let mut file = crate::fs::durable::open_append(path)?;
    let len = file.metadata()?.len();
    let start = if mark_offset > len { 0 } else { mark_offset };
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.read_to_end(&mut tail)?;
    let mut cut: Option<(u64, usize)> = None;
    let mut at = start;
    for line in tail.split_inclusive(|&b| b == b'\n') {
        let line_start = at;
        at += line.len() as u64;
        if !line.ends_with(b"\n") {
            break; // a torn final line goes with whatever precedes it
        }
        match serde_json::from_slice::<EventHead>(line) {
            Ok(ev) if ev.txn && ev.seq > mark_seq => {
                let (from, n) = cut.unwrap_or((line_start, 0));
                cut = Some((from, n + 1));
            }
            _ if line.iter().all(u8::is_ascii_whitespace) => {}
            _ => cut = None,
        }
    }
    let Some((from, n)) = cut else {
        return Ok(0);
    };
    file.set_len(from)?;
    crate::fs::durable::sync_data(file.file())
        .map_err(|e| WfError::io(&e, format!("cannot sync {}: {e}", path.display())))?;
    Ok(n)
}

/// Finds the last complete line's `seq` and the offset just past it.
fn last_complete_event(file: &mut fs_err::File, len: u64) -> Result<(u64, u64)> {
    if len == 0 {
        return Ok((0, 0));
    }
    let mut window: u64 = 4096;
    loop {
        let start = len.saturating_sub(window);
        file.seek(SeekFrom::Start(start))?;
        let mut buf = Vec::with_capacity((len - start) as usize);
        file.read_to_end(&mut buf)?;
        let Some(last_nl) = buf.iter().rposition(|&b| b == b'\n') else {
            if start == 0 {
                return Ok((0, 0));
            }
            window *= 4;
            continue;
        };
        let end = start + last_nl as u64 + 1;
        let line_start = buf[..last_nl]
            .iter()
            .rposition(|&b| b == b'\n')
            .map(|p| p + 1);
        match line_start {
            Some(ls) => return Ok((seq_of(&buf[ls..last_nl]), end)),
            None if start == 0 => return Ok((seq_of(&buf[..last_nl]), end)),
            None => window *= 4,
        }
    }
}

fn seq_of(line: &[u8]) -> u64 {
    #[derive(Deserialize)]
    struct Seq {
        seq: u64,
    }
    serde_json::from_slice::<Seq>(line).map_or(0, |s| s.seq)
}

/// Calls `apply` with each event from byte `offset` on, in order, one line in memory
/// at a time (after a crash the tail can hold ~2 s of progress: 10,000 events). A
/// torn or unreadable final line is skipped; an unreadable line before the end is an
/// error naming its line.
pub fn for_each_from(
    path: &Path,
    offset: u64,
    apply: impl FnMut(Event) -> Result<()>,
) -> Result<()> {
    for_each_parsed_from(path, offset, |line| serde_json::from_slice(line), apply)
}

/// [`for_each_from`] with the parse of a line up to the caller: `parse` says what a
/// line is (an error if it is not an event), `apply` takes what it made of it. For a
/// reader that looks at most lines only in place and builds a few of them.
pub fn for_each_parsed_from<T>(
    path: &Path,
    offset: u64,
    parse: impl FnMut(&[u8]) -> serde_json::Result<T>,
    apply: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(f) => f,
        Err(e) if e.kind == ErrorKind::Usage && !path.exists() => return Ok(()),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    // Shorter than the snapshot's mark: the log was moved away and started afresh.
    // Read it whole; the caller's seq filter skips what the snapshot already has.
    let offset = if offset > len { 0 } else { offset };
    if offset == len {
        return Ok(());
    }
    file.seek(SeekFrom::Start(offset))?;
    for_each_line(
        path,
        std::io::BufReader::with_capacity(64 * 1024, file),
        parse,
        apply,
    )
}

fn for_each_line<T>(
    path: &Path,
    mut reader: impl std::io::BufRead,
    mut parse: impl FnMut(&[u8]) -> serde_json::Result<T>,
    mut apply: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let read_error =
        |e: std::io::Error| WfError::io(&e, format!("cannot read {}: {e}", path.display()));
    let mut line = Vec::new();
    let mut n = 0;
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).map_err(read_error)? == 0 {
            return Ok(());
        }
        n += 1;
        let complete = line.ends_with(b"\n");
        let is_last = !complete || reader.fill_buf().map_err(read_error)?.is_empty();
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse(body) {
            Ok(ev) if complete => apply(ev)?,
            Ok(_) => {}
            Err(_) if is_last => {}
            Err(e) => {
                return Err(WfError::new(
                    ErrorKind::CorruptState,
                    format!(
                        "{}: event {n} after the snapshot is not valid JSON ({}); move the file away to continue",
                        path.display(),
                        crate::error::one_line(&e.to_string())
                    ),
                ))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_lines(buf: &[u8]) -> Result<Vec<Event>> {
        let mut events = Vec::new();
        for_each_line(
            Path::new("e"),
            buf,
            |line| serde_json::from_slice(line),
            |e| {
                events.push(e);
                Ok(())
            },
        )?;
        Ok(events)
    }

    const EVENT: &str = r#"{"seq":1,"ts":"t","type":"a","actor":"wf.o","role":"o","data":{}}"#;

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
}
