//! One line per event for `wf events`: `seq ts actor type task data-summary`.
//!
//! Event data comes from whoever wrote the log; control characters are replaced so
//! an event cannot move the cursor or recolour the terminal it is shown on.

use serde_json::Value;

use super::{one_line, truncate};
use crate::state::event_log::Event;

/// How long one value of the data summary may get before it is cut. A proof is
/// hundreds of characters: cut with the line instead, it hid the pairs after it,
/// and where it was cut moved with the length of the values before it (a check's
/// time taking one digit more or less).
const VALUE_MAX: usize = 60;
/// How long the whole data summary may get before it is cut.
const SUMMARY_MAX: usize = 240;

pub fn event_line(e: &Event) -> String {
    let line = format!(
        "{:>4} {} {} {} {} {}",
        e.seq,
        e.ts,
        e.actor,
        e.kind(),
        e.task_id.as_deref().unwrap_or("-"),
        data_summary(&serde_json::to_value(&e.data).unwrap_or_default())
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
                Value::String(s) => format!("{k}={}", truncate(s, VALUE_MAX)),
                other => format!("{k}={}", truncate(&other.to_string(), VALUE_MAX)),
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
            task_id: Some("T1".into()),
            executor: None,
            actor: "wf.orchestrator".into(),
            role: "orchestrator".into(),
            data: crate::state::event::EventData::read(
                "task.status_changed",
                Some(
                    &serde_json::value::to_raw_value(
                        &json!({"from": "pending", "to": "in_progress", "reason": "a\n\u{1b}[2Jb"}),
                    )
                    .unwrap(),
                ),
            ),
            txn: false,
        };
        assert_eq!(
            event_line(&e),
            "   7 2026-01-08T10:00:00Z wf.orchestrator task.status_changed T1 reason=a \\u{1b}[2Jb from=pending to=in_progress"
        );
    }

    #[test]
    fn a_long_value_is_cut_alone_and_the_pairs_after_it_stay() {
        let proof = json!({"at": "2026-01-08T10:00:00Z", "inputs": {"fingerprint": "sha256:".to_string() + &"0".repeat(64)}});
        let summary = |ms: u64| {
            data_summary(&json!({"duration_ms": ms, "evidence": proof, "to": "completed"}))
        };
        let cut = r#"evidence={"at":"2026-01-08T10:00:00Z","inputs":{"fingerprint":"sha25…"#;
        assert_eq!(summary(9), format!("duration_ms=9 {cut} to=completed"));
        assert_eq!(summary(12), format!("duration_ms=12 {cut} to=completed"));
        // The whole summary is still bounded.
        let many: serde_json::Map<String, Value> = (0..10)
            .map(|i| (format!("k{i}"), json!("v".repeat(80))))
            .collect();
        assert_eq!(
            data_summary(&Value::Object(many)).chars().count(),
            SUMMARY_MAX
        );
    }
}
