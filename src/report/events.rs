//! One line per event for `wf events`: `seq ts actor type task data-summary`.
//!
//! Event data comes from whoever wrote the log; control characters are replaced so
//! an event cannot move the cursor or recolour the terminal it is shown on.

use serde_json::Value;

use super::{one_line, truncate};
use crate::state::event_log::Event;

/// How long the data summary may get before it is cut.
const SUMMARY_MAX: usize = 120;

pub fn event_line(e: &Event) -> String {
    let line = format!(
        "{:>4} {} {} {} {} {}",
        e.seq,
        e.ts,
        e.actor,
        e.kind,
        e.task_id.as_deref().unwrap_or("-"),
        data_summary(&e.data_as_written())
    );
    one_line(line.trim_end())
}

/// `key=value` pairs of an object (strings unquoted), or the value itself.
pub fn data_summary(data: &Value) -> String {
    let text = match data {
        Value::Null => String::new(),
        Value::Object(map) => map
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| match v {
                Value::String(s) => format!("{k}={s}"),
                other => format!("{k}={other}"),
            })
            .collect::<Vec<_>>()
            .join(" "),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    truncate(&one_line(&text), SUMMARY_MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_are_one_line_and_inert() {
        let e = Event {
            seq: 7,
            ts: "2026-01-08T10:00:00Z".into(),
            kind: "task.status_changed".into(),
            task_id: Some("T1".into()),
            executor: None,
            actor: "wf.orchestrator".into(),
            role: "orchestrator".into(),
            data: json!({"from": "pending", "to": "in_progress", "reason": null, "msg": "a\n\u{1b}[2Jb"}),
            evidence: None,
            txn: false,
        };
        assert_eq!(
            event_line(&e),
            "   7 2026-01-08T10:00:00Z wf.orchestrator task.status_changed T1 from=pending to=in_progress msg=a  [2Jb"
        );
    }
}
