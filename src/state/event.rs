//! Every kind of event `wf` writes to `events.jsonl`, in one enum (docs/events.md
//! lists each with its fields).
//!
//! The names on disk are part of the interface — `wf events`, UIs and CI read them —
//! so [`EventKind::name`] never changes for a kind; a renamed kind keeps reading its
//! old name ([`EventKind::parse`]). Whether a kind changes the state is said here,
//! once ([`EventKind::changes_state`]): `Session::emit` applies exactly those, and the
//! fold (`src/state/fold.rs`) matches every kind, so a new one cannot be forgotten.

/// One kind of event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EventKind {
    /// A workflow status move (folded).
    WorkflowStatusChanged,
    /// A task status move (folded).
    TaskStatusChanged,
    /// A quality gate's result, with the hard constraints it verified (folded).
    GateResult,
    /// `wf verify` checked a completed task again and it passed: its new evidence
    /// (folded).
    TaskVerified,
    /// `workflow-start` imported a plan.
    PlanImported,
    ConstraintAdded,
    ConstraintRemoved,
    ConstraintPromoted,
    ConstraintsMerged,
    ConstraintVerified,
    TaskExecutionStarted,
    TaskExecutionResult,
    TaskAcceptedUnchecked,
    TaskDispatchRequested,
    TaskDispatchAck,
    TaskDispatchNack,
    TaskReviewResult,
    ResourceAllocated,
    ResourceReleased,
    ResourceMissing,
}

impl EventKind {
    pub const ALL: [EventKind; 20] = [
        EventKind::WorkflowStatusChanged,
        EventKind::TaskStatusChanged,
        EventKind::GateResult,
        EventKind::TaskVerified,
        EventKind::PlanImported,
        EventKind::ConstraintAdded,
        EventKind::ConstraintRemoved,
        EventKind::ConstraintPromoted,
        EventKind::ConstraintsMerged,
        EventKind::ConstraintVerified,
        EventKind::TaskExecutionStarted,
        EventKind::TaskExecutionResult,
        EventKind::TaskAcceptedUnchecked,
        EventKind::TaskDispatchRequested,
        EventKind::TaskDispatchAck,
        EventKind::TaskDispatchNack,
        EventKind::TaskReviewResult,
        EventKind::ResourceAllocated,
        EventKind::ResourceReleased,
        EventKind::ResourceMissing,
    ];

    /// The `type` written to the log.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::WorkflowStatusChanged => "workflow.status_changed",
            EventKind::TaskStatusChanged => "task.status_changed",
            EventKind::GateResult => "gate.result",
            EventKind::TaskVerified => "task.verified",
            EventKind::PlanImported => "plan.imported",
            EventKind::ConstraintAdded => "constraint.added",
            EventKind::ConstraintRemoved => "constraint.removed",
            EventKind::ConstraintPromoted => "constraint.promoted",
            EventKind::ConstraintsMerged => "constraint.merged",
            EventKind::ConstraintVerified => "constraint.verified",
            EventKind::TaskExecutionStarted => "task.execution_started",
            EventKind::TaskExecutionResult => "task.execution_result",
            EventKind::TaskAcceptedUnchecked => "task.accepted_unchecked",
            EventKind::TaskDispatchRequested => "task.dispatch_requested",
            EventKind::TaskDispatchAck => "task.dispatch_ack",
            EventKind::TaskDispatchNack => "task.dispatch_nack",
            EventKind::TaskReviewResult => "task.review_result",
            EventKind::ResourceAllocated => "resource.allocated",
            EventKind::ResourceReleased => "resource.released",
            EventKind::ResourceMissing => "resource.missing",
        }
    }

    /// The kind a log's `type` names; `None` for a name `wf` never wrote (another
    /// tool's event, which readers skip). `constraints.merged` is the name of
    /// `constraint.merged` before the constraint events were named alike.
    pub fn parse(name: &str) -> Option<EventKind> {
        if name == "constraints.merged" {
            return Some(EventKind::ConstraintsMerged);
        }
        EventKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether an event of this name, as a line spells it, changes the state: one
    /// of ours that [`EventKind::changes_state`] says so of.
    pub fn named_changes_state(name: &str) -> bool {
        EventKind::parse(name).is_some_and(EventKind::changes_state)
    }

    /// Whether folding this event changes the state. Only these are applied, by the
    /// writer as it appends them and by readers past the snapshot's mark; the rest are
    /// for people and tools.
    pub fn changes_state(self) -> bool {
        match self {
            EventKind::WorkflowStatusChanged
            | EventKind::TaskStatusChanged
            | EventKind::GateResult
            | EventKind::TaskVerified => true,
            EventKind::PlanImported
            | EventKind::ConstraintAdded
            | EventKind::ConstraintRemoved
            | EventKind::ConstraintPromoted
            | EventKind::ConstraintsMerged
            | EventKind::ConstraintVerified
            | EventKind::TaskExecutionStarted
            | EventKind::TaskExecutionResult
            | EventKind::TaskAcceptedUnchecked
            | EventKind::TaskDispatchRequested
            | EventKind::TaskDispatchAck
            | EventKind::TaskDispatchNack
            | EventKind::TaskReviewResult
            | EventKind::ResourceAllocated
            | EventKind::ResourceReleased
            | EventKind::ResourceMissing => false,
        }
    }
}

impl std::fmt::Display for EventKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back_from_its_name_and_names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for kind in EventKind::ALL {
            assert_eq!(EventKind::parse(kind.name()), Some(kind));
            assert!(seen.insert(kind.name()), "{kind} twice");
        }
        assert_eq!(EventKind::parse("x.unknown"), None);
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
            .into_iter()
            .map(EventKind::name)
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
        for kind in EventKind::ALL {
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
