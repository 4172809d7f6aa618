//! `wf events`: the event log, one line per event (`--json`: the lines as stored).
//!
//! Read-only. Only complete lines are shown: a torn final line (a writer killed
//! mid-append, or one still writing) is left for the next poll. `--follow` polls
//! every 100 ms until interrupted, and starts over when the log is replaced (e.g.
//! by `wf archive`). `--task`, `--type`, `--since` and `-n` choose which events are
//! shown; a JSON line is the stored one with `schemaVersion` put first.

use std::io::Write;
use std::time::Duration;

use crate::cli::EventsArgs;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::report::events::event_line;
use crate::state::event::EventKind;
use crate::state::event_log::{self, Event};

const POLL: Duration = Duration::from_millis(100);

/// The kinds `--type NAME` means: the one so named, else every kind whose name
/// ends in `.NAME` (`status_changed` is both `task.` and `workflow.status_changed`).
fn kinds_named(name: &str) -> Result<Vec<EventKind>> {
    if let Some(kind) = EventKind::parse(name) {
        return Ok(vec![kind]);
    }
    let suffix = format!(".{name}");
    let kinds: Vec<EventKind> = EventKind::ALL
        .iter()
        .copied()
        .filter(|k| k.name().ends_with(&suffix))
        .collect();
    if kinds.is_empty() {
        let known: Vec<&str> = EventKind::ALL.iter().map(|k| k.name()).collect();
        return Err(WfError::usage(format!(
            "--type {name}: wf writes no such event; use one of {} (or the part after a dot, as status_changed)",
            known.join(", ")
        )));
    }
    Ok(kinds)
}

pub fn run(project: &Project, args: &EventsArgs, out: &Output) -> Result<i32> {
    let kinds = args.kind.as_deref().map(kinds_named).transpose()?;
    let parse = |text: &str| crate::clock::parse_since(text, crate::clock::now());
    let since = args.since.as_deref().map(parse).transpose();
    let since = since.map_err(|why| WfError::usage(format!("--since {why}")))?;
    let path = project.store().events_path();
    let mut first = true;
    let mut offset = 0u64;
    let mut line_no = 0usize;
    loop {
        let (chunk, next, restarted) = event_log::complete_lines(&path, offset)?;
        if restarted {
            line_no = 0;
        }
        offset = next;
        let mut events: Vec<(&[u8], Event)> = Vec::new();
        for line in chunk.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            line_no += 1;
            match serde_json::from_slice::<Event>(line) {
                Ok(event) if wanted(&event, args, kinds.as_deref(), since) => {
                    events.push((line, event));
                }
                Ok(_) => {}
                Err(e) => out.warn(format!(
                    "events.jsonl line {line_no} is not a valid event ({e}); skipped"
                )),
            }
        }
        if let (true, Some(n)) = (first, args.last) {
            events.drain(..events.len().saturating_sub(n));
        }
        first = false;
        for (line, event) in &events {
            if !show(line, event, out) {
                // stdout is gone (`wf events -f | head`): a normal end.
                return Ok(0);
            }
        }
        if !args.follow {
            return Ok(0);
        }
        std::thread::sleep(POLL);
    }
}

/// Whether `--task`, `--type` (as `kinds`) and `--since` let `event` through. An event whose time
/// does not parse is kept: a filter must not hide what it cannot judge.
fn wanted(
    event: &Event,
    args: &EventsArgs,
    kinds: Option<&[EventKind]>,
    since: Option<jiff::Timestamp>,
) -> bool {
    let recent = since.is_none_or(|since| {
        event
            .ts
            .parse::<jiff::Timestamp>()
            .map_or(true, |ts| ts >= since)
    });
    let task = args
        .task
        .as_deref()
        .is_none_or(|id| event.task_id.as_deref() == Some(id));
    let kind = kinds
        .is_none_or(|kinds| EventKind::parse(event.kind()).is_some_and(|k| kinds.contains(&k)));
    task && kind && recent
}

/// Prints one stored line; `false` when stdout can no longer be written.
fn show(line: &[u8], event: &Event, out: &Output) -> bool {
    if out.quiet && !out.json {
        return true;
    }
    let mut stdout = std::io::stdout().lock();
    let written = if out.json {
        // The stored object with the version first: `{"seq":…` becomes
        // `{"schemaVersion":2,"seq":…` without parsing it again.
        let body = line.strip_prefix(b"{").unwrap_or(line);
        write!(
            stdout,
            "{{\"schemaVersion\":{},",
            crate::output::JSON_SCHEMA_VERSION
        )
        .and_then(|()| stdout.write_all(body))
        .and_then(|()| stdout.write_all(b"\n"))
    } else {
        writeln!(stdout, "{}", event_line(event))
    };
    written.and_then(|()| stdout.flush()).is_ok()
}
