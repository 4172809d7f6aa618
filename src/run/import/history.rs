//! What the event log says earlier imports and runs did (`wf import-results`), read
//! from committed task transitions: which results were imported, which task an
//! import left `in_progress`, which failure a local run recorded.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::Txn;
use crate::error::Result;
use crate::state::event::EventKind;
use crate::state::event_log;
use crate::state::{Session, TaskStatus};

/// What the event log says earlier imports and runs did, from committed task
/// transitions.
#[derive(Default)]
pub(super) struct History {
    /// The `result_id`s whose task transition (→ completed or → failed) is logged.
    pub imported: HashSet<String>,
    /// The tasks whose last `→ in_progress` an import made.
    pub moved_by_import: HashSet<String>,
    /// Each task's last failure here that a local run recorded (not an import), with
    /// its reason.
    pub local_failure: HashMap<String, String>,
}

impl History {
    pub fn read(session: &Session) -> Result<History> {
        let mut h = History::default();
        // A result's own event comes before the transition that records it.
        let mut result_of: HashMap<String, String> = HashMap::new();
        let path = session.store().events_path();
        event_log::for_each_from(&path, 0, |event: event_log::Event| {
            let Some(task) = event.task_id.clone() else {
                return Ok(());
            };
            let data = &event.data;
            if event.kind == EventKind::TaskExecutionResult.name() {
                if let Some(id) = data.get("result_id").and_then(Value::as_str) {
                    result_of.insert(task, id.to_string());
                }
                return Ok(());
            }
            if event.kind != EventKind::TaskStatusChanged.name() {
                return Ok(());
            }
            let imported = data.get("imported").is_some();
            match data.get("to").and_then(Value::as_str) {
                Some("in_progress") => {
                    result_of.remove(&task);
                    if imported {
                        h.moved_by_import.insert(task);
                    } else {
                        h.moved_by_import.remove(&task);
                    }
                }
                Some(to @ ("completed" | "failed")) => {
                    let result = result_of.remove(&task);
                    let by_import = imported || result.is_some();
                    if let Some(id) = result {
                        h.imported.insert(id);
                    }
                    if to == "failed" && !by_import {
                        let reason = data.get("reason").and_then(Value::as_str).unwrap_or("");
                        h.local_failure.insert(task, reason.to_string());
                    } else {
                        h.local_failure.remove(&task);
                    }
                }
                _ => {}
            }
            Ok(())
        })?;
        Ok(h)
    }
}

/// Puts back to pending every task an import left `in_progress` (none holds the
/// lock now, so none is still being imported). Whether it moved any.
pub(super) fn recover_stranded(
    session: &mut Session,
    history: &History,
    txn: &mut Txn,
) -> Result<bool> {
    let stranded: Vec<String> = session
        .state()?
        .tasks
        .iter()
        .filter(|t| t.status == TaskStatus::InProgress && history.moved_by_import.contains(&t.id))
        .map(|t| t.id.clone())
        .collect();
    for id in &stranded {
        txn.open(session);
        session.set_task_status(
            id,
            TaskStatus::Pending,
            json!({"reason": "an import stopped before it recorded the result; its result is imported again"}),
            None,
        )?;
    }
    Ok(!stranded.is_empty())
}
