//! Reading `events.jsonl`: its last event, the lines from an offset (each parsed
//! as its reader wants, a torn final line skipped), and cutting a transaction that
//! never committed off its end. Writing it is `EventLog`'s (`super`).

use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde::Deserialize;

use super::{Event, EventLine};
use crate::error::{ErrorKind, Result, WfError};

/// Cuts off the log the events of a transaction that never committed: the run of
/// `txn` events at its end past the snapshot's mark (`mark_seq`, `mark_offset`). Only
/// the holder of the writer's lock calls it, before opening the log for appending.
/// Returns how many events were cut.
pub fn cut_uncommitted(path: &Path, mark_seq: u64, mark_offset: u64) -> Result<usize> {
    let mut file = crate::fs::durable::open_append(path)?;
    let len = file.metadata()?.len();
    let start = if mark_offset > len { 0 } else { mark_offset };
    let read_from = |at: u64| -> Result<Vec<u8>> {
        file.seek(SeekFrom::Start(at))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    };
    let Some((from, n)) = uncommitted_run_from_end(read_from, start, len, mark_seq, 64 * 1024)?
    else {
        return Ok(0);
    };
    file.set_len(from)?;
    crate::fs::durable::sync_data(file.file())
        .map_err(|e| WfError::io(&e, format!("cannot sync {}: {e}", path.display())))?;
    Ok(n)
}

/// [`uncommitted_run`] of the log's bytes `start..len`, read a window at a time from
/// the end (`read_from(at)` gives the bytes `at..len`), each window `window` bytes or
/// four times the last: only the run at the end can be cut, and the lines before it
/// (a crash's whole tail, megabytes) need not be read.
pub(super) fn uncommitted_run_from_end(
    mut read_from: impl FnMut(u64) -> Result<Vec<u8>>,
    start: u64,
    len: u64,
    mark_seq: u64,
    mut window: u64,
) -> Result<Option<(u64, usize)>> {
    loop {
        let at = len.saturating_sub(window).max(start);
        let bytes = read_from(at)?;
        // A window that starts inside a line leaves that line to a wider one.
        let skip = if at > start {
            bytes
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |nl| nl + 1)
        } else {
            0
        };
        let (run, ended) = uncommitted_run(&bytes[skip..], at + skip as u64, mark_seq);
        if ended || at == start {
            return Ok(run);
        }
        window = window.saturating_mul(4);
    }
}

/// Where the run of `txn` events past `mark_seq` that ends `tail` (the log from byte
/// `start`) begins, and how many events it holds; blank lines in it and a torn last
/// line go with it. Read from the end: only that run can be cut, and the lines before
/// it need not be parsed. Also whether a line before the run ended it (else the run
/// may go on before `tail`).
pub(super) fn uncommitted_run(
    tail: &[u8],
    start: u64,
    mark_seq: u64,
) -> (Option<(u64, usize)>, bool) {
    let mut cut: Option<(u64, usize)> = None;
    let mut at = start + tail.len() as u64;
    for line in tail.split_inclusive(|&b| b == b'\n').rev() {
        let line_start = at - line.len() as u64;
        at = line_start;
        if !line.ends_with(b"\n") {
            continue; // a torn final line goes with whatever precedes it
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match EventLine::parse(line) {
            Ok(ev) if ev.txn && ev.seq > mark_seq => {
                let n = cut.map_or(0, |(_, n)| n);
                cut = Some((line_start, n + 1));
            }
            _ => return (cut, true),
        }
    }
    (cut, false)
}

/// The `seq` of the log's last complete line, and the offset just past it; `(0, 0)`
/// for a missing or empty log. For a reader that shows the state and then follows the
/// log from there.
pub fn last_seq(path: &Path) -> Result<(u64, u64)> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(f) => f,
        Err(e) if e.kind == ErrorKind::Usage && !path.exists() => return Ok((0, 0)),
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    last_complete_event(&mut file, len)
}

/// Finds the last complete line's `seq` and the offset just past it.
pub(super) fn last_complete_event(file: &mut fs_err::File, len: u64) -> Result<(u64, u64)> {
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

/// The `seq` of one line of the log; 0 for a line that is not an event.
pub fn seq_of(line: &[u8]) -> u64 {
    #[derive(Deserialize)]
    struct Seq {
        seq: u64,
    }
    serde_json::from_slice::<Seq>(line).map_or(0, |s| s.seq)
}

/// Calls `apply` with each event from byte `offset` on, in order, one line in memory
/// at a time (after a crash the tail can hold a second or more of progress:
/// thousands of events). A torn or unreadable final line is skipped; an unreadable
/// line before the end is an error naming its line.
pub fn for_each_from(
    path: &Path,
    offset: u64,
    apply: impl FnMut(Event) -> Result<()>,
) -> Result<()> {
    for_each_parsed_from(path, offset, |_, line| serde_json::from_slice(line), apply)
}

/// [`for_each_from`] with the parse of a line up to the caller: `parse` says what the
/// line at a byte offset is (an error if it is not an event), `apply` takes what it
/// made of it. For a reader that looks at most lines only in place and builds a few
/// of them.
pub fn for_each_parsed_from<T>(
    path: &Path,
    offset: u64,
    parse: impl FnMut(u64, &[u8]) -> serde_json::Result<T>,
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
    let reader = std::io::BufReader::with_capacity(64 * 1024, file);
    for_each_line(path, offset, reader, parse, apply)
}

/// The complete lines of the log after byte `offset`, for a reader that follows it
/// (`wf events --follow`, `wf ui`'s stream): the lines, the offset just past them, and
/// whether the log was read from its start again because it shrank (it was replaced,
/// e.g. by `wf archive`). A torn final line (a writer killed mid-append, or one still
/// writing) is left for the next read. A missing log is empty.
pub fn complete_lines(path: &Path, offset: u64) -> Result<(Vec<u8>, u64, bool)> {
    let mut file = match crate::fs::open_regular(path, false) {
        Ok(f) => f,
        Err(e) if e.kind == ErrorKind::Usage && !path.exists() => {
            return Ok((Vec::new(), 0, offset > 0))
        }
        Err(e) => return Err(e),
    };
    let len = file.metadata()?.len();
    let restarted = len < offset;
    let start = if restarted { 0 } else { offset };
    file.seek(SeekFrom::Start(start))?;
    let mut buf = Vec::new();
    file.take(len - start).read_to_end(&mut buf)?;
    let end = buf.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
    buf.truncate(end);
    Ok((buf, start + end as u64, restarted))
}

/// A line as the whole load's fold (`Store::load`) reads it: its `seq`, and the
/// event when the fold applies it (`fold::folds`); the data of the rest (half a
/// run's events) is only checked to be JSON.
pub fn read_for_fold(line: &[u8]) -> serde_json::Result<(u64, Option<Event>)> {
    let line = EventLine::parse(line)?;
    let folded = crate::state::fold::folds(&line.kind, line.txn);
    Ok((line.seq, folded.then(|| line.into_event())))
}

/// `reader` starts at byte `start` of the log and reads to its end: a last line
/// that is torn or does not parse is skipped, any other that does not is an error.
pub(super) fn for_each_line<T>(
    path: &Path,
    start: u64,
    mut reader: impl std::io::BufRead,
    mut parse: impl FnMut(u64, &[u8]) -> serde_json::Result<T>,
    mut apply: impl FnMut(T) -> Result<()>,
) -> Result<()> {
    let read_error =
        |e: std::io::Error| WfError::io(&e, format!("cannot read {}: {e}", path.display()));
    let mut line = Vec::new();
    let mut n = 0;
    let mut at = start;
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(read_error)?;
        if read == 0 {
            return Ok(());
        }
        let line_start = at;
        at += read as u64;
        n += 1;
        let complete = line.ends_with(b"\n");
        let is_last = !complete || reader.fill_buf().map_err(read_error)?.is_empty();
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match parse(line_start, body) {
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
