//! Every kind of event `wf` writes to `events.jsonl`, with the data each carries
//! (docs/events.md lists them).
//!
//! One list, [`kinds!`] below, says each kind's name on disk, the type of its
//! `data`, and whether folding it changes the state. The names are part of the
//! interface — `wf events`, UIs and CI read them — so a kind's name never changes;
//! a renamed kind keeps reading its old name ([`EventKind::parse`]). Data is written
//! and read by serde; a field added later is optional, so older logs still read.
//! `Session::emit` applies exactly the kinds that change state, and the fold
//! (`src/state/fold.rs`) matches every [`EventData`] variant, so a new kind cannot be
//! forgotten there.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::state::evidence::{Proof, Runner};
use crate::state::machine::{TaskStatus, WorkflowStatus};
use crate::state::model::{Constraint, ConstraintVerification, PhaseBaseline, Usage};

/// Declares [`EventKind`], [`EventData`] and what ties them, from one list.
macro_rules! kinds {
    ($($(#[$doc:meta])* $kind:ident($data:ty) = $name:literal, folded: $folded:literal;)*) => {
        /// One kind of event.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum EventKind {
            $($(#[$doc])* $kind,)*
        }

        /// An event's own fields, by kind: the `type` and `data` of its line.
        #[derive(Debug, Clone, PartialEq)]
        pub enum EventData {
            $($(#[$doc])* $kind($data),)*
            /// A `type` `wf` never wrote (another tool's, or a newer `wf`'s): kept as
            /// read, shown, never folded.
            Foreign { kind: String, data: Value },
            /// One of ours whose `data` does not read as its kind's: shown as read; a
            /// fold of a kind that changes state refuses it.
            Unreadable { kind: EventKind, data: Value, error: String },
        }

        impl EventKind {
            pub const ALL: &'static [EventKind] = &[$(EventKind::$kind),*];

            /// The `type` written to the log.
            pub fn name(self) -> &'static str {
                match self {
                    $(EventKind::$kind => $name,)*
                }
            }

            /// Whether folding this event changes the state. Only these are applied,
            /// by the writer as it appends them and by readers past the snapshot's
            /// mark; the rest are for people and tools.
            pub fn changes_state(self) -> bool {
                match self {
                    $(EventKind::$kind => $folded,)*
                }
            }
        }

        impl EventData {
            /// The kind, `None` for a foreign one.
            pub fn kind(&self) -> Option<EventKind> {
                match self {
                    $(EventData::$kind(_) => Some(EventKind::$kind),)*
                    EventData::Foreign { .. } => None,
                    EventData::Unreadable { kind, .. } => Some(*kind),
                }
            }

            /// `data` read as `kind`'s.
            fn read_as(kind: EventKind, data: &str) -> serde_json::Result<EventData> {
                match kind {
                    $(EventKind::$kind => serde_json::from_str(data).map(EventData::$kind),)*
                }
            }
        }

        /// The `data` object of the line.
        impl Serialize for EventData {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(EventData::$kind(data) => data.serialize(s),)*
                    EventData::Foreign { data, .. } | EventData::Unreadable { data, .. } => {
                        data.serialize(s)
                    }
                }
            }
        }
    };
}

kinds! {
    /// A workflow status move.
    WorkflowStatusChanged(WorkflowMove) = "workflow.status_changed", folded: true;
    /// A task status move.
    TaskStatusChanged(TaskMove) = "task.status_changed", folded: true;
    /// A quality gate's result, with the hard constraints it verified.
    GateResult(GateRecord) = "gate.result", folded: true;
    /// `wf verify` checked a completed task again and it passed: its new evidence.
    TaskVerified(Verified) = "task.verified", folded: true;
    /// `workflow-start` imported a plan.
    PlanImported(PlanImported) = "plan.imported", folded: false;
    ConstraintAdded(ConstraintChange) = "constraint.added", folded: false;
    ConstraintRemoved(ConstraintChange) = "constraint.removed", folded: false;
    ConstraintPromoted(ConstraintChange) = "constraint.promoted", folded: false;
    ConstraintsMerged(MergeReport) = "constraint.merged", folded: false;
    ConstraintVerified(ConstraintChecked) = "constraint.verified", folded: false;
    TaskExecutionStarted(ExecutionStarted) = "task.execution_started", folded: false;
    TaskExecutionResult(ExecutionResult) = "task.execution_result", folded: false;
    TaskAcceptedUnchecked(Reason) = "task.accepted_unchecked", folded: false;
    TaskDispatchRequested(DispatchRequested) = "task.dispatch_requested", folded: false;
    TaskDispatchAck(Rehearsal) = "task.dispatch_ack", folded: false;
    TaskDispatchNack(Reason) = "task.dispatch_nack", folded: false;
    TaskReviewResult(ReviewResult) = "task.review_result", folded: false;
    ResourceAllocated(Allocated) = "resource.allocated", folded: false;
    ResourceReleased(Reason) = "resource.released", folded: false;
    ResourceMissing(Missing) = "resource.missing", folded: false;
}

impl EventKind {
    /// The kind a log's `type` names; `None` for a name `wf` never wrote (another
    /// tool's event, which readers skip). `constraints.merged` is the name of
    /// `constraint.merged` before the constraint events were named alike.
    pub fn parse(name: &str) -> Option<EventKind> {
        if name == "constraints.merged" {
            return Some(EventKind::ConstraintsMerged);
        }
        EventKind::ALL.iter().copied().find(|k| k.name() == name)
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl EventData {
    /// The event a line's `type` and `data` make; never fails (see
    /// [`EventData::Foreign`] and [`EventData::Unreadable`]).
    pub fn read(kind: &str, data: Option<&RawValue>) -> EventData {
        // As read: a line's data is JSON, which a `Value` holds.
        let owned = || {
            data.and_then(|d| serde_json::from_str(d.get()).ok())
                .unwrap_or(Value::Null)
        };
        let Some(known) = EventKind::parse(kind) else {
            return EventData::Foreign {
                kind: kind.to_string(),
                data: owned(),
            };
        };
        match EventData::read_as(known, data.map_or("null", RawValue::get)) {
            Ok(read) => read,
            Err(e) => EventData::Unreadable {
                kind: known,
                data: owned(),
                error: crate::error::one_line(&e.to_string()),
            },
        }
    }

    /// The `type` of the line.
    pub fn name(&self) -> &str {
        match self {
            EventData::Foreign { kind, .. } => kind,
            other => other.kind().map_or("", EventKind::name),
        }
    }

    /// Whether folding it changes the state.
    pub fn changes_state(&self) -> bool {
        self.kind().is_some_and(EventKind::changes_state)
    }
}

/// What a task's `git_commit` did: the commit's short hash and how many files it
/// holds, or no hash (and 0 files) when nothing was staged and no commit was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Commit {
    pub hash: Option<String>,
    pub files: usize,
}

/// `workflow.status_changed`: `reason` says why a workflow failed or rests (paused,
/// blocked); written as `null` otherwise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkflowMove {
    pub from: WorkflowStatus,
    pub to: WorkflowStatus,
    #[serde(default)]
    pub reason: Option<String>,
}

/// `task.status_changed`: the move and, as the move needs, what came with it
/// (docs/events.md says which move carries which). `Session::set_task_status` fills
/// `from` and `to`; callers build the rest from `TaskMove::default()`. The fields are
/// written in this order, `from` and `to` after what the caller set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskMove {
    /// → in_progress: the attempt it starts, and the log it writes to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    /// → in_progress of a hand-off: an agent outside `wf` does the work.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub handoff: bool,
    /// → in_progress by `wf verify`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub verify: bool,
    /// → in_progress of an agent task in a git repository: the tree it started from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_tree: Option<String>,
    /// → in_progress of a phase's first checked task: the phase's tests then.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase_baseline: Option<PhaseBaseline>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// → pending by `--retry` or an escalation: counts in `retry_counts`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retry: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub escalate: bool,
    /// Replaces the task's blocker kinds (empty: none left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocked_by: Option<Vec<String>>,
    /// The move came of an executor that could not be started: counted.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dispatch_failure: bool,
    /// → pending by `workflow-unblock`: the dispatch failures start again from 0.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unblocked: bool,
    /// → pending by `wf verify`: why the task no longer holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reopened: Option<String>,
    /// Crash recovery: how many of the last run's processes it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub orphans_killed: Option<usize>,
    /// → pending after an interruption: the declared files that exist, possibly
    /// half-written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial_outputs: Option<Vec<String>>,
    /// → pending by `wf import-results` before a passing result replaces a failure
    /// a local run recorded: that failure's reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overrides_failure: Option<String>,
    /// → completed: whether checks confirmed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// → completed with nothing to check it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub accepted_unchecked: bool,
    /// → completed from the verification cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// → completed: what the derived checks could not settle.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_warning: Option<String>,
    /// → completed of a task whose actions commit: what `git_commit` did (boxed:
    /// the move is in every event's enum, and rare fields keep it small).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<Box<Commit>>,
    /// → completed / failed, when `wf` ran the checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// What the attempt's executors used; added to the task's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// By `wf import-results`: the result file, and the result's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imported: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_id: Option<String>,
    pub from: TaskStatus,
    pub to: TaskStatus,
    /// → completed: its proof (docs/proof.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<Proof>,
}

/// `gate.result`: a quality gate's verifiers and hard constraints. Written only
/// when the gate ran to its end.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GateRecord {
    #[serde(default)]
    pub threshold: u32,
    #[serde(default)]
    pub score: u32,
    #[serde(default)]
    pub passed: bool,
    /// `{name: passed|failed|n/a}`.
    #[serde(default)]
    pub verifiers: Map<String, Value>,
    /// `{id: passed|failed}`.
    #[serde(default)]
    pub constraints: Map<String, Value>,
    /// Recorded in the state's constraints as `wf constraints verify` records them.
    #[serde(default)]
    pub verifications: Vec<ConstraintVerification>,
    #[serde(rename = "checkedAt", default)]
    pub checked_at: String,
}

impl GateRecord {
    /// The record a gate's JSON (as a run or a result file holds it) reads as.
    pub fn of(gate: &Value) -> serde_json::Result<GateRecord> {
        GateRecord::deserialize(gate)
    }
}

/// `task.verified`: why the checks ran again, and the proof they gave.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verified {
    #[serde(default)]
    pub changed: Vec<String>,
    pub evidence: Proof,
}

/// `plan.imported`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlanImported {
    /// The path as given.
    pub plan: String,
    pub format: String,
    pub tasks: usize,
}

/// `constraint.added`, `.removed`, `.promoted`: the record (as it is now).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstraintChange {
    pub constraint: Constraint,
}

/// `constraint.verified`: one result of `wf constraints verify`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ConstraintChecked {
    pub verification: ConstraintVerification,
}

/// `constraint.merged`: what `wf constraints merge` kept and left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct MergeReport {
    pub files: Vec<String>,
    pub counts: ConstraintCounts,
    pub dropped: Dropped,
    #[serde(default)]
    pub unshared_criteria: Vec<String>,
    #[serde(default)]
    pub id_conflicts: Vec<Constraint>,
    #[serde(default)]
    pub renamed: Vec<Renamed>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConstraintCounts {
    pub hard: usize,
    pub soft: usize,
    pub open_questions: usize,
    pub success_criteria: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dropped {
    #[serde(default)]
    pub hard: Vec<Constraint>,
    #[serde(default)]
    pub soft: Vec<Constraint>,
    #[serde(default)]
    pub open_questions: Vec<String>,
    #[serde(default)]
    pub success_criteria: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Renamed {
    pub from: String,
    pub to: String,
}

/// `task.execution_started`: the attempt, and the log when `wf` runs the work (or
/// imported it, with the result's id); `mock` for a rehearsal.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecutionStarted {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub attempt: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_id: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mock: bool,
}

/// `task.execution_result`: whether the work succeeded, by whoever did it — `wf`
/// (with `verified`, `duration_ms`), an import (with the result's id, fingerprint,
/// runner, and `stale`), an executor or `wf mcp` (with its claim: `changed_files`
/// and `summary`), a rehearsal (`mock`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ExecutionResult {
    pub success: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_files: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fingerprint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runner: Option<Runner>,
    /// Why an imported result's tree is not this one (`--allow-stale`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stale: Option<String>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mock: bool,
}

/// `task.review_result`: a reviewer's verdict — a configured reviewer's score, or
/// `wf`'s check of an executor's claim (`reason` when it fails, whether `evidence`
/// confirmed it when it passes), or a rehearsal's (`mock`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewResult {
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undeclared_changes: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mock: bool,
}

/// A reason alone: `task.accepted_unchecked`, `task.dispatch_nack` (an executor
/// that could not start), `resource.released` (completed, failed or blocked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    pub reason: String,
}

/// `task.dispatch_ack`: the executor's process started (`mock`: a rehearsal's).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Rehearsal {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mock: bool,
}

/// `task.dispatch_requested`: `dispatch_id` is `<task>-<attempt>-<n>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DispatchRequested {
    #[serde(alias = "dispatchId")]
    pub dispatch_id: String,
    pub attempt: u32,
}

/// `resource.allocated`: the executor's level, and whether the task was escalated.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Allocated {
    pub level: u32,
    #[serde(default)]
    pub escalated: bool,
}

/// `resource.missing`: no configured executor offers the capability, or every one
/// that does is unusable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Missing {
    pub capability: String,
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for &kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.name()), Some(kind));
            assert!(seen.insert(kind.name()), "{kind} twice");
        }
        assert_eq!(EventKind::parse("x.unknown"), None);
    }

    /// Data as the writers before typed events wrote it (docs/events.md had a shape
    /// per writer): each still reads as its kind's type, and is written back in the
    /// one shape of that type.
    #[test]
    fn data_of_every_old_shape_reads_as_its_kind() {
        let cases = [
            (
                "task.execution_result",
                r#"{"success":true,"passed":true,"mock":true}"#,
                r#"{"success":true,"mock":true}"#,
            ),
            (
                "task.execution_result",
                r#"{"success":true,"claim":null}"#,
                r#"{"success":true}"#,
            ),
            (
                "task.execution_result",
                r#"{"success":false,"verified":false,"duration_ms":6,"reason":"x"}"#,
                r#"{"success":false,"verified":false,"duration_ms":6,"reason":"x"}"#,
            ),
            (
                "task.review_result",
                r#"{"success":false,"passed":false,"mock":true}"#,
                r#"{"passed":false,"mock":true}"#,
            ),
            (
                "task.review_result",
                r#"{"passed":true,"evidence":false,"accepted_unchecked":true,"undeclared_changes":[]}"#,
                r#"{"passed":true,"evidence":false,"undeclared_changes":[]}"#,
            ),
            (
                "task.dispatch_requested",
                r#"{"dispatchId":"T1-1-1","attempt":1}"#,
                r#"{"dispatch_id":"T1-1-1","attempt":1}"#,
            ),
            (
                "task.dispatch_nack",
                r#"{"capability":"code","reason":"x"}"#,
                r#"{"reason":"x"}"#,
            ),
            (
                "task.execution_started",
                r#"{"mock":true}"#,
                r#"{"mock":true}"#,
            ),
            (
                "workflow.status_changed",
                r#"{"from":"idle","to":"planned","reason":null}"#,
                r#"{"from":"idle","to":"planned","reason":null}"#,
            ),
            (
                "task.status_changed",
                r#"{"attempt":1,"log":"l","from":"pending","to":"in_progress"}"#,
                r#"{"attempt":1,"log":"l","from":"pending","to":"in_progress"}"#,
            ),
            (
                "constraints.merged",
                r#"{"files":[],"counts":{"hard":0,"soft":0,"open_questions":0,"success_criteria":0},"dropped":{}}"#,
                r#"{"files":[],"counts":{"hard":0,"soft":0,"open_questions":0,"success_criteria":0},"dropped":{"hard":[],"soft":[],"open_questions":[],"success_criteria":[]},"unshared_criteria":[],"id_conflicts":[],"renamed":[]}"#,
            ),
        ];
        for (kind, old, now) in cases {
            let raw = RawValue::from_string(old.to_string()).unwrap();
            let data = EventData::read(kind, Some(&raw));
            assert!(
                !matches!(
                    data,
                    EventData::Unreadable { .. } | EventData::Foreign { .. }
                ),
                "{kind} {old}: {data:?}"
            );
            assert_eq!(serde_json::to_string(&data).unwrap(), now, "{kind} {old}");
        }
        // A reviewer's usage alone, once written as a result without `success`, is
        // not a result: shown as read, never folded.
        let raw = RawValue::from_string(r#"{"usage":{"input_tokens":1,"output_tokens":2}}"#.into())
            .unwrap();
        let data = EventData::read("task.execution_result", Some(&raw));
        assert!(matches!(data, EventData::Unreadable { .. }), "{data:?}");
        assert_eq!(
            serde_json::to_string(&data).unwrap(),
            r#"{"usage":{"input_tokens":1,"output_tokens":2}}"#
        );
    }

    #[test]
    fn the_old_plural_name_still_reads() {
        assert_eq!(
            EventKind::parse("constraints.merged"),
            Some(EventKind::ConstraintsMerged)
        );
    }

    #[test]
    fn the_constraint_events_share_one_prefix() {
        let constraint: Vec<&str> = EventKind::ALL
            .iter()
            .map(|k| k.name())
            .filter(|n| n.starts_with("constraint"))
            .collect();
        assert!(
            constraint.iter().all(|n| n.starts_with("constraint.")),
            "{constraint:?}"
        );
    }

    #[test]
    fn docs_list_every_kind_and_which_change_state() {
        let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/events.md"))
            .unwrap();
        for &kind in EventKind::ALL {
            // The row of the "Every event" table, the page's last table.
            let row = doc
                .lines()
                .rev()
                .find(|l| l.starts_with(&format!("| `{}` |", kind.name())))
                .unwrap_or_else(|| panic!("docs/events.md has no row for {kind}"));
            let folded = row.trim_end().ends_with("| **yes** |");
            assert_eq!(
                folded,
                kind.changes_state(),
                "docs/events.md, {kind}: {row}"
            );
        }
    }
}
