//! The page's live feed: the event log followed as `wf events --follow` follows it
//! (every 100 ms, whole lines only), sent as Server-Sent Events.
//!
//! Each event goes as it is stored, with its `seq` as the SSE id, so a browser that
//! reconnects sends `Last-Event-ID` and gets exactly the events after it. A log that
//! was replaced (`wf archive`) makes a `reload`; an action started from the page
//! that ended makes an `action` with its outcome.

use std::io::Write;
use std::time::{Duration, Instant};

use super::Ctx;
use crate::state::event_log;

/// How often the log is read again.
const POLL: Duration = Duration::from_millis(100);

/// A comment line this often finds a reader that has gone (the write fails).
const KEEP_ALIVE: Duration = Duration::from_secs(10);

/// Streams to `out` (the request's connection, no response sent yet) the events after
/// `after`, then each one as it is written, until the reader goes or `wf ui` stops.
pub(super) fn serve(ctx: &Ctx, mut out: Box<dyn Write + Send>, after: u64) {
    let mut head = String::from(
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nConnection: close\r\n",
    );
    for (name, value) in super::server::security_headers() {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\nretry: 1000\n\n");
    if out
        .write_all(head.as_bytes())
        .and_then(|()| out.flush())
        .is_err()
    {
        return;
    }
    let path = ctx.workflow.store.events_path();
    let mut last = after;
    let mut offset = 0u64;
    let mut actions_seen = ctx.actions.generation();
    let mut quiet_since = Instant::now();
    while crate::run::signals::count() == 0 {
        let mut text = String::new();
        if let Ok((lines, next, restarted)) = event_log::complete_lines(&path, offset) {
            if restarted && offset > 0 {
                text.push_str("event: reload\ndata: {}\n\n");
            }
            offset = next;
            for line in lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let seq = event_log::seq_of(line);
                if seq <= last {
                    continue;
                }
                last = seq;
                text.push_str(&format!(
                    "id: {seq}\nevent: wf\ndata: {}\n\n",
                    String::from_utf8_lossy(line)
                ));
            }
        }
        let (generation, ended) = ctx.actions.ended_since(actions_seen);
        actions_seen = generation;
        for action in ended {
            text.push_str(&format!("event: action\ndata: {action}\n\n"));
        }
        if text.is_empty() && quiet_since.elapsed() >= KEEP_ALIVE {
            text.push_str(": keep-alive\n\n");
        }
        if !text.is_empty() {
            quiet_since = Instant::now();
            if out
                .write_all(text.as_bytes())
                .and_then(|()| out.flush())
                .is_err()
            {
                return;
            }
        }
        std::thread::sleep(POLL);
    }
}
