//! What the event log says earlier imports and runs did (`wf import-results`), read
//! from committed task transitions: which results were imported, which task an
//! import left `in_progress`, which failure a local run recorded.

use crate::state::model::Glance;
use std::collections::{HashMap, HashSet};

use super::Txn;
use crate::error::Result;
use crate::state::event::{EventData, TaskMove};
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
            let m = match &event.data {
                EventData::TaskExecutionResult(result) => {
                    if let Some(id) = &result.result_id {
                        result_of.insert(task, id.clone());
                    }
                    return Ok(());
                }
                EventData::TaskStatusChanged(m) => m,
                _ => return Ok(()),
            };
            let imported = m.imported.is_some();
            match m.to {
                TaskStatus::InProgress => {
                    result_of.remove(&task);
                    if imported {
                        h.moved_by_import.insert(task);
                    } else {
                        h.moved_by_import.remove(&task);
                    }
                }
                to @ (TaskStatus::Completed | TaskStatus::Failed) => {
                    let result = result_of.remove(&task);
                    let by_import = imported || result.is_some();
                    if let Some(id) = result {
                        h.imported.insert(id);
                    }
                    if to == TaskStatus::Failed && !by_import {
                        let reason = m.reason.clone().unwrap_or_default();
                        h.local_failure.insert(task, reason);
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
        .filter(|t| {
            t.status() == TaskStatus::InProgress && history.moved_by_import.contains(t.id())
        })
        .map(|t| t.id().to_owned())
        .collect();
    for id in &stranded {
        txn.open(session);
        session.set_task_status(
            id,
            TaskStatus::Pending,
            TaskMove {
                reason: Some(
                    "an import stopped before it recorded the result; its result is imported again"
                        .into(),
                ),
                ..TaskMove::default()
            },
            None,
        )?;
    }
    Ok(!stranded.is_empty())
}
