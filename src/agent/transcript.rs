//! What an agent used, read from its own session log: Claude Code's transcript
//! (`transcript_path` in every hook payload), read a little at a time.
//!
//! It reads Claude Code's transcript and Codex CLI's `codex exec --json` events;
//! Claude Code writes one API response as a line per content block, each with the
//! same `message.id` and `usage`, so a line with the id of the one before counts
//! once. A log that cannot be read is "usage unknown" (`None`), never an error: an
//! agent's cost is worth knowing, not worth failing its work for.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::run::prices::{self, Price};
use crate::run::usage;
use crate::state::model::Usage;

/// Most bytes read in one call: a hook must stay quick on a long session; the rest
/// is read by the next call.
pub const MAX_READ: u64 = 32 << 20;

/// Where the last read of a log stopped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// The log it is a mark in: another path starts again.
    pub path: String,
    /// Bytes read so far, always at a line's end.
    pub offset: u64,
    /// The id of the last response counted, so its other lines are not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_message: Option<String>,
}

/// What a read found.
#[derive(Debug, Clone, PartialEq)]
pub struct Read {
    /// The usage of the lines read; `None` when none of them carried any.
    pub usage: Option<Usage>,
    /// Where the next read starts.
    pub mark: Mark,
}

/// The mark at the end of the log at `path` as it is now: a session first seen
/// mid-way counts only what it writes from here on.
pub fn end_of(path: &Path) -> Option<Mark> {
    let file = crate::fs::open_regular(path, false).ok()?;
    let len = file.metadata().ok()?.len();
    let mut mark = Mark {
        path: path.to_string_lossy().into_owned(),
        offset: len,
        last_message: None,
    };
    // A last line still being written is read next time, whole.
    let tail_start = len.saturating_sub(64 * 1024);
    let tail = crate::fs::read_range(path, tail_start..len)?;
    if let Some(end) = tail.iter().rposition(|b| *b == b'\n') {
        mark.offset = tail_start + end as u64 + 1;
    } else if tail_start == 0 {
        mark.offset = 0;
    }
    Some(mark)
}

/// Reads the log at `path` from `mark` (from the start when `mark` is another log's
/// or past the log's end: it was replaced), to its last whole line or
/// [`MAX_READ`] bytes on; `None` when the log cannot be read.
pub fn read(path: &Path, mark: &Mark, prices: &BTreeMap<String, Price>) -> Option<Read> {
    let name = path.to_string_lossy();
    let file = crate::fs::open_regular(path, false).ok()?;
    let len = file.metadata().ok()?.len();
    drop(file);
    let mut from = mark.clone();
    if from.path != name || from.offset > len {
        from = Mark {
            path: name.into_owned(),
            offset: 0,
            last_message: None,
        };
    }
    let bytes = crate::fs::read_range(
        path,
        from.offset..from.offset + (len - from.offset).min(MAX_READ),
    )?;
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |n| n + 1);
    let mut found = Found {
        usage: None,
        last_message: from.last_message.take(),
        prices,
    };
    for line in bytes[..whole].split(|b| *b == b'\n') {
        found.line(line);
    }
    Some(Read {
        usage: found.usage,
        mark: Mark {
            offset: from.offset + whole as u64,
            last_message: found.last_message,
            ..from
        },
    })
}

struct Found<'a> {
    usage: Option<Usage>,
    last_message: Option<String>,
    prices: &'a BTreeMap<String, Price>,
}

impl Found<'_> {
    fn line(&mut self, line: &[u8]) {
        // Most lines are tool output and prompts: only one naming usage is parsed.
        if memchr::memmem::find(line, b"\"usage\"").is_none() {
            return;
        }
        let Ok(v) = serde_json::from_slice::<Value>(line) else {
            return;
        };
        let used = match v.get("type").and_then(Value::as_str) {
            Some("assistant") => {
                let Some(message) = v.get("message") else {
                    return;
                };
                let Some(used) = message.get("usage").filter(|u| u.is_object()) else {
                    return;
                };
                let id = message
                    .get("id")
                    .or_else(|| v.get("requestId"))
                    .and_then(Value::as_str);
                if id.is_some() && id == self.last_message.as_deref() {
                    return;
                }
                self.last_message = id.map(str::to_string);
                let model = message.get("model").and_then(Value::as_str).unwrap_or("");
                prices::priced(self.prices, model, usage::claude_usage(used))
            }
            Some("turn.completed") => match v.get("usage").filter(|u| u.is_object()) {
                Some(used) => usage::codex_usage(used),
                None => return,
            },
            _ => return,
        };
        self.usage = Some(self.usage.unwrap_or_default().plus(used));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assistant(id: &str, model: &str, input: u64, output: u64, write: u64, read: u64) -> String {
        format!(
            r#"{{"parentUuid":"p","isSidechain":false,"type":"assistant","message":{{"id":"{id}","type":"message","role":"assistant","model":"{model}","content":[{{"type":"text","text":"ok"}}],"usage":{{"input_tokens":{input},"cache_creation_input_tokens":{write},"cache_read_input_tokens":{read},"output_tokens":{output},"service_tier":"standard"}}}},"requestId":"req_{id}","uuid":"u-{id}","timestamp":"2026-01-08T10:00:00.000Z"}}"#
        )
    }

    #[test]
    fn a_response_split_over_lines_counts_once_and_is_priced() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        let a = assistant("msg_a", "claude-sonnet-4-5-20250929", 10, 100, 1000, 10_000);
        let text = format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"do T1\"}}}}\n{a}\n{a}\n{}\n",
            assistant("msg_b", "claude-sonnet-4-5-20250929", 2, 50, 0, 11_000)
        );
        std::fs::write(&log, text).unwrap();
        let r = read(&log, &Mark::default(), &BTreeMap::new()).unwrap();
        let u = r.usage.unwrap();
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.cache_write_tokens,
                u.cache_read_tokens
            ),
            (22_012, 150, 1000, 21_000)
        );
        // 12 plain × $3 + 150 out × $15 + 1000 writes × $3.75 + 21000 reads × $0.30, per million.
        let cost = (12.0 * 3.0 + 150.0 * 15.0 + 1000.0 * 3.75 + 21_000.0 * 0.3) / 1e6;
        assert!((u.cost_usd.unwrap() - cost).abs() < 1e-12);
        assert_eq!(r.mark.last_message.as_deref(), Some("msg_b"));
        // Nothing new: nothing counted.
        let again = read(&log, &r.mark, &BTreeMap::new()).unwrap();
        assert_eq!((again.usage, again.mark.offset), (None, r.mark.offset));
    }

    #[test]
    fn a_half_written_line_waits_for_the_next_read() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        let line = assistant("m1", "claude-haiku-4-5", 1, 2, 0, 0);
        let (head, rest) = line.split_at(40);
        std::fs::write(&log, head).unwrap();
        let first = read(&log, &Mark::default(), &BTreeMap::new()).unwrap();
        assert_eq!((first.usage, first.mark.offset), (None, 0));
        assert_eq!(end_of(&log).unwrap().offset, 0);
        std::fs::write(&log, format!("{head}{rest}\n")).unwrap();
        let second = read(&log, &first.mark, &BTreeMap::new()).unwrap();
        assert_eq!(second.usage.unwrap().output_tokens, 2);
        assert_eq!(end_of(&log).unwrap().offset, second.mark.offset);
    }

    #[test]
    fn codex_turns_count_and_other_logs_are_usage_unknown() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("codex.jsonl");
        std::fs::write(&log, "{\"type\":\"thread.started\"}\n{\"type\":\"turn.completed\",\"usage\":{\"input_tokens\":100,\"cached_input_tokens\":60,\"output_tokens\":7}}\n").unwrap();
        let u = read(&log, &Mark::default(), &BTreeMap::new())
            .unwrap()
            .usage
            .unwrap();
        assert_eq!(
            (u.input_tokens, u.cache_read_tokens, u.output_tokens),
            (100, 60, 7)
        );
        assert_eq!(
            read(
                &dir.path().join("missing"),
                &Mark::default(),
                &BTreeMap::new()
            ),
            None
        );
        assert_eq!(
            read(dir.path(), &Mark::default(), &BTreeMap::new()),
            None,
            "a directory"
        );
        let other = dir.path().join("gemini.json");
        std::fs::write(
            &other,
            "{\"messages\":[{\"type\":\"gemini\",\"tokens\":{\"input\":5}}]}\nnot json \"usage\"\n",
        )
        .unwrap();
        assert_eq!(
            read(&other, &Mark::default(), &BTreeMap::new())
                .unwrap()
                .usage,
            None
        );
    }

    #[test]
    fn a_replaced_log_is_read_from_its_start() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("s.jsonl");
        std::fs::write(&log, format!("{}\n", assistant("m1", "x", 1, 1, 0, 0))).unwrap();
        let mark = Mark {
            path: log.to_string_lossy().into_owned(),
            offset: 1 << 20,
            last_message: Some("m1".into()),
        };
        let r = read(&log, &mark, &BTreeMap::new()).unwrap();
        assert_eq!(r.usage.unwrap().output_tokens, 1);
    }
}
