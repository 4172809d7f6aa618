//! How long each task took, read from the event log, for JUnit's `time` attributes.
//!
//! The state keeps no per-task times; the event log does, in two ways
//! (docs/events.md): `wf` writes a `task.execution_result` with `duration_ms` for each
//! attempt it ran itself (to the millisecond), and every move of a task into and out
//! of `in_progress` is a `task.status_changed` with its time (whole seconds) — the only
//! record of a task an executor did. A task's time is the sum over its attempts, from
//! the first source when it has any, else from the second.

use std::collections::HashMap;
use std::path::Path;

use jiff::Timestamp;

use crate::state::event::EventData;
use crate::state::event_log::{self, Event};
use crate::state::TaskStatus;

#[derive(Debug, Default)]
pub struct TaskTimes {
    measured_ms: HashMap<String, u64>,
    spans_s: HashMap<String, i64>,
    started: HashMap<String, Timestamp>,
}

impl TaskTimes {
    /// The times in the log at `path`. A log that is missing or unreadable part-way
    /// gives the times read until then: a report is still worth having without them.
    pub fn read(path: &Path) -> TaskTimes {
        let mut times = TaskTimes::default();
        let _ = event_log::for_each_from(path, 0, |event| {
            times.add(&event);
            Ok(())
        });
        times
    }

    pub fn add(&mut self, event: &Event) {
        let Some(id) = event.task_id.as_deref() else {
            return;
        };
        match &event.data {
            EventData::TaskExecutionResult(result) => {
                if let Some(ms) = result.duration_ms {
                    *self.measured_ms.entry(id.to_string()).or_default() += ms;
                }
            }
            EventData::TaskStatusChanged(m) => self.status_changed(id, &event.ts, m.to),
            _ => {}
        }
    }

    fn status_changed(&mut self, id: &str, ts: &str, to: TaskStatus) {
        let Ok(ts) = ts.parse::<Timestamp>() else {
            return;
        };
        if to == TaskStatus::InProgress {
            self.started.insert(id.to_string(), ts);
        } else if let Some(start) = self.started.remove(id) {
            let secs = ts.as_second().saturating_sub(start.as_second()).max(0);
            *self.spans_s.entry(id.to_string()).or_default() += secs;
        }
    }

    /// Seconds task `id` ran, over all its attempts; 0 when the log has no record.
    pub fn seconds(&self, id: &str) -> f64 {
        match self.measured_ms.get(id) {
            Some(&ms) => ms as f64 / 1000.0,
            None => self.spans_s.get(id).copied().unwrap_or(0) as f64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn event(kind: &str, task: &str, ts: &str, data: serde_json::Value) -> Event {
        let line = json!({
            "seq": 1, "ts": ts, "type": kind, "task_id": task,
            "actor": "wf.orchestrator", "role": "orchestrator", "data": data,
        });
        Event::parse(line.to_string().as_bytes()).unwrap()
    }

    #[test]
    fn measured_durations_win_and_spans_cover_executor_tasks() {
        let mut t = TaskTimes::default();
        let moved = |task, ts, to| {
            event(
                "task.status_changed",
                task,
                ts,
                json!({"from": "pending", "to": to}),
            )
        };
        for e in [
            moved("T1", "2026-01-08T10:00:00Z", "in_progress"),
            event(
                "task.execution_result",
                "T1",
                "2026-01-08T10:00:02Z",
                json!({"success": true, "duration_ms": 1500}),
            ),
            moved("T1", "2026-01-08T10:00:02Z", "pending"),
            moved("T1", "2026-01-08T10:01:00Z", "in_progress"),
            event(
                "task.execution_result",
                "T1",
                "2026-01-08T10:01:01Z",
                json!({"success": true, "duration_ms": 250}),
            ),
            moved("T1", "2026-01-08T10:01:01Z", "completed"),
            // an executor's task: its result has no duration, its moves do
            moved("T2", "2026-01-08T10:00:00Z", "in_progress"),
            event(
                "task.execution_result",
                "T2",
                "2026-01-08T10:00:09Z",
                json!({"success": true}),
            ),
            moved("T2", "2026-01-08T10:00:09Z", "completed"),
            // still running: no end, no time
            moved("T3", "2026-01-08T10:00:00Z", "in_progress"),
        ] {
            t.add(&e);
        }
        assert!((t.seconds("T1") - 1.75).abs() < 1e-9);
        assert!((t.seconds("T2") - 9.0).abs() < 1e-9);
        assert!(t.seconds("T3").abs() < 1e-9);
        assert!(t.seconds("T9").abs() < 1e-9);
    }

    #[test]
    fn a_missing_log_gives_no_times() {
        let dir = tempfile::tempdir().unwrap();
        let times = TaskTimes::read(&dir.path().join("events.jsonl"));
        assert!(times.seconds("T1").abs() < 1e-9);
    }
}
