//! The typed model of `workflow-state.json`.
//!
//! The top level follows the plugin's real files (docs/state-file.md): snake_case at the top,
//! camelCase inside `contextMetrics`, `constraints` and `zeroDecisionAudit`. Every
//! struct carries an `extra` map so fields `wf` does not know survive a load and a
//! save; fields `wf` only passes through stay `serde_json::Value`.

use crate::state::ids::Ids;
use crate::state::task_ref::TaskRef;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::machine::{TaskStatus, WorkflowStatus};
use super::positions::TaskIndex;
pub use super::records::{
    AuditFinding, Constraint, ConstraintVerification, Constraints, ContextMetrics, DeltaTracking,
    LogMark, Progress, Usage, ZeroDecisionAudit,
};

/// The newest state layout this build reads and writes. A file with a larger
/// `wf_schema` is refused, never rewritten.
pub const SCHEMA_VERSION: u32 = 1;

/// How to give a workflow without tasks its tasks: a re-import over a state that
/// has some progress needs `--force`, which keeps a backup of the state.
pub const IMPORT_HINT: &str =
    "import the plan with `wf workflow-start --force PLAN.md` (the current state is kept as a backup)";

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct WorkflowState {
    #[serde(default = "schema_version")]
    pub wf_schema: u32,
    #[serde(default)]
    pub project_id: String,
    #[serde(default)]
    pub project_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_name: Option<String>,
    pub status: WorkflowStatus,
    #[serde(default)]
    pub current_task: Option<String>,
    /// The plugin's newer spelling of `current_task`: every task in progress (several
    /// in a parallel run), else the one task that is next; `current_task` is its
    /// first entry. Kept in step with `current_task` on every save.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub current_tasks: Vec<String>,
    #[serde(default = "default_execution_mode")]
    pub execution_mode: String,
    #[serde(default = "default_mode")]
    pub mode: String,
    #[serde(default)]
    pub use_subagent: bool,
    #[serde(default = "yes")]
    pub pause_before_commit: bool,
    #[serde(default)]
    pub consecutive_count: u32,
    #[serde(default)]
    pub tasks_file: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tech_design: Option<String>,
    /// The plugin's lifecycle phase: `plan` after an import, `execute` once a run
    /// started (its execute step moves it the same way).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The plan the workflow was imported from (absolute), or the plugin's plan
    /// document (absolute or relative to the project).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_file: Option<String>,
    #[serde(default)]
    pub unblocked: Vec<String>,
    #[serde(default = "default_sessions")]
    pub sessions: Value,
    #[serde(default)]
    pub progress: Progress,
    #[serde(rename = "contextMetrics", default)]
    pub context_metrics: ContextMetrics,
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub collaboration: Value,
    #[serde(default)]
    pub constraints: Constraints,
    #[serde(rename = "zeroDecisionAudit", default)]
    pub zero_decision_audit: ZeroDecisionAudit,
    #[serde(default)]
    pub created_at: String,
    #[serde(default)]
    pub updated_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<String>,
    #[serde(default)]
    pub failure_reason: Option<String>,
    /// Why a paused or blocked workflow rests (a stop point, a blocker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_reason: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub retry_counts: BTreeMap<String, u32>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub skipped_info: Map<String, Value>,
    #[serde(default, skip_serializing_if = "Map::is_empty")]
    pub quality_gates: Map<String, Value>,
    /// What completed tasks' derived checks had to say, by task id ("test passed
    /// before its implementation", a test that cannot run here): docs/proof.md
    /// "Derived checks".
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub check_warnings: BTreeMap<String, String>,
    /// The project's tests at each phase's start, by phase: what the phase's
    /// checkpoint compares with (docs/proof.md "Checkpoints").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub phase_baselines: BTreeMap<String, PhaseBaseline>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta_tracking: Option<DeltaTracking>,
    /// A re-import that needs the user's decision (docs/plans.md "Re-import").
    #[serde(rename = "decisionRequired", default, skip_serializing_if = "is_false")]
    pub decision_required: bool,
    #[serde(
        rename = "decisionOptions",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub decision_options: Vec<String>,
    #[serde(
        rename = "replanReason",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub replan_reason: Option<String>,
    /// MD5 of the imported plan's text: the same plan again is a no-op.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_digest: Option<String>,
    /// `claude-workflow` or `spec-kit`: how to mirror statuses into the plan copy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan_format: Option<String>,
    /// The task graph `wf` runs, in document order (absent in plugin-written files).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        serialize_with = "crate::state::snapshot_file::serialize_tasks"
    )]
    pub tasks: Vec<TaskRef>,
    /// How far into the event log this snapshot reaches; readers fold the rest.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event_log: Option<LogMark>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
    /// Id → position in `tasks`, so a 10,000-task run looks tasks up in O(1).
    #[serde(skip)]
    task_index: TaskIndex,
    /// Why a state written without a `tasks` array could not be adopted (see
    /// `plan::adopt`); commands that run tasks refuse with it.
    #[serde(skip)]
    pub unadopted: Option<String>,
}

/// One task of the plan, with what `wf` learned about it while running.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Task {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub phase: String,
    pub status: TaskStatus,
    /// 1-based line of the task's heading or checkbox in the plan.
    #[serde(default)]
    pub line: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deps: Vec<String>,
    /// External blocker kinds (`api_spec`, `design_spec`, custom) not yet lifted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<String>,
    /// The plan says the task waits on nothing outside (`阻塞依赖: none`), so
    /// classification leaves it alone.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_blockers: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub actions: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub creates: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modifies: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reuse: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub design_refs: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requirement: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acceptance: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    pub quality_gate: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<u32>,
    /// Shell commands that prove the task done (验证命令).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verify: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expect: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<Step>,
    /// spec-kit `[P]`: may run beside the other `[P]` tasks of its phase.
    #[serde(default, skip_serializing_if = "is_false")]
    pub parallel: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub story: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// Capabilities this task needs, when the plan names them (else derived).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub capabilities: Vec<String>,
    /// Hash of the task's plan content, to tell changed tasks on re-import.
    #[serde(default)]
    pub digest: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub attempts: u32,
    /// How long the last attempt's checks ran, when wf ran them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    /// What its executors reported they used, every attempt added up (none when no
    /// executor reported usage: docs/executors.md "Cost").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub dispatch_failures: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handed_off: Option<bool>,
    /// Completed on an agent's word alone: nothing (verify command, step check,
    /// declared file, gate) checked it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub accepted_unchecked: bool,
    /// Its proof, once completed (docs/proof.md); none before, and for tasks
    /// completed before wf recorded evidence.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub evidence: Option<super::evidence::Proof>,
    /// `wf verify` found it no longer passes and put it back to pending; the next
    /// `wf verify` checks it again (docs/proof.md "Verify").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reopened: Option<String>,
    /// The working tree when an agent took it (a git tree id, `src/proof/tree.rs`),
    /// to tell what the agent really changed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_tree: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// What the read paths' digest (`state::summary`) and the current-task rule read of a
/// task: a whole [`Task`], or an entry of the task index (`state::task_index`), which
/// holds only this.
pub trait Glance {
    fn id(&self) -> &str;
    fn status(&self) -> TaskStatus;
    fn deps(&self) -> Ids<'_>;
    fn blocked_by(&self) -> Ids<'_>;
    fn handed_off(&self) -> bool;
    fn accepted_unchecked(&self) -> bool;
    fn usage(&self) -> Option<Usage>;
}

impl Glance for Task {
    fn id(&self) -> &str {
        &self.id
    }
    fn status(&self) -> TaskStatus {
        self.status
    }
    fn deps(&self) -> Ids<'_> {
        Ids::listed(&self.deps)
    }
    fn blocked_by(&self) -> Ids<'_> {
        Ids::listed(&self.blocked_by)
    }
    fn handed_off(&self) -> bool {
        self.handed_off == Some(true)
    }
    fn accepted_unchecked(&self) -> bool {
        self.accepted_unchecked
    }
    fn usage(&self) -> Option<Usage> {
        self.usage
    }
}

/// The project's tests when a phase started (docs/proof.md "Checkpoints").
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PhaseBaseline {
    /// When they ran (RFC 3339).
    pub at: String,
    /// The test command's exit code (none when it did not exit, or did not run).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The tests that passed, by the names the runner printed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passed: Vec<String>,
    /// The tests that failed already.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// Why the tests could not run (no runner found, not installed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
}

/// A V2 step: `- A1: do → output（验证：check）`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Step {
    pub id: String,
    pub action: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// The check as written; prose unless it is a `backticked` command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// The check's command when it was written in backticks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check_cmd: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Task {
    /// Every shell command whose success proves this task done, in order.
    pub fn check_commands(&self) -> impl Iterator<Item = &str> {
        self.verify
            .iter()
            .map(String::as_str)
            .chain(self.steps.iter().filter_map(|s| s.check_cmd.as_deref()))
    }

    pub fn has_action(&self, action: &str) -> bool {
        self.actions.iter().any(|a| a == action)
    }

    /// Its evidence, read; `None` when it has none, or none that reads as evidence.
    pub fn proof(&self) -> Option<super::evidence::Evidence> {
        self.evidence
            .as_ref()
            .and_then(super::evidence::Proof::read)
    }
}

impl WorkflowState {
    /// An `idle` state with the plugin's defaults, before any plan.
    pub fn new() -> WorkflowState {
        WorkflowState {
            wf_schema: SCHEMA_VERSION,
            execution_mode: default_execution_mode(),
            mode: default_mode(),
            pause_before_commit: true,
            sessions: default_sessions(),
            ..WorkflowState::default()
        }
    }

    /// The task `id`, read whole: an error when its record no longer reads
    /// (`state::task_ref`), none when the state has no such task.
    pub fn task(&self, id: &str) -> crate::error::Result<Option<&Task>> {
        self.task_ref(id).map(TaskRef::task).transpose()
    }

    /// The task `id` as the state holds it, unread: for what needs only its
    /// [`Glance`] (its status, its dependencies).
    pub fn task_ref(&self, id: &str) -> Option<&TaskRef> {
        self.tasks.get(self.position(id)?)
    }

    /// Every task, read whole, in order: for what looks at more of each task than its
    /// [`Glance`] (a report, an export). An error when a record no longer reads.
    pub fn whole_tasks(&self) -> crate::error::Result<Vec<&Task>> {
        self.tasks.iter().map(TaskRef::task).collect()
    }

    /// Where the task `id` is in `tasks`. A miss indexes every task again (the tasks
    /// may have been replaced or moved since); for many look-ups in a row, some of
    /// ids the tasks may not have, [`WorkflowState::with_positions`].
    pub fn position(&self, id: &str) -> Option<usize> {
        self.task_index.position(&self.tasks, id)
    }

    /// Gives `each` a look-up of positions for many ids in a row, the cache locked
    /// once. Its first miss indexes every task again, as [`WorkflowState::position`]
    /// does; after that the index is the tasks' own and a miss is an id they do not
    /// have (a dependency on a task the plan lacks), answered without indexing again.
    pub fn with_positions<R>(
        &self,
        each: impl FnOnce(&mut dyn FnMut(&str) -> Option<usize>) -> R,
    ) -> R {
        let mut positions = self.task_index.lock();
        let mut current = false;
        each(&mut |id| {
            if let Some(i) = positions.find(&self.tasks, id) {
                return Some(i);
            }
            if std::mem::replace(&mut current, true) {
                return None;
            }
            positions.position(&self.tasks, id)
        })
    }

    /// The task to change: a copy of its own first if anything else holds it
    /// (`Arc::make_mut`), as a checkpoint being written does (src/run/checkpoint.rs).
    /// The prior snapshot holds every task weakly (`state::snapshot_file`): the first
    /// change of a task after it moves the task to a new allocation, uncopied.
    pub fn task_mut(&mut self, id: &str) -> crate::error::Result<Option<&mut Task>> {
        let Some(i) = self.task_index.position(&self.tasks, id) else {
            return Ok(None);
        };
        self.tasks.get_mut(i).map(TaskRef::make_mut).transpose()
    }

    /// The task handed off to an agent and not yet taken back, if any.
    pub fn handed_off_task(&self) -> Option<&TaskRef> {
        self.tasks
            .iter()
            .find(|t| t.status() == TaskStatus::InProgress && t.handed_off())
    }

    /// The error every command that runs tasks gives for a workflow without any:
    /// no workflow is run, let alone completed, with 0 tasks.
    pub fn require_tasks(&self) -> crate::error::Result<()> {
        if !self.tasks.is_empty() {
            return Ok(());
        }
        Err(crate::error::WfError::usage(
            self.unadopted
                .clone()
                .unwrap_or_else(|| format!("the workflow has no tasks; {IMPORT_HINT}")),
        ))
    }

    /// Rebuilds the plugin's `progress` lists and current task from the task statuses.
    pub fn sync_progress(&mut self) {
        if self.tasks.is_empty() {
            return;
        }
        self.sync_current();
        // One pass, not one per list: each pass is a look at every task's status.
        let p = &mut self.progress;
        for list in [
            &mut p.completed,
            &mut p.blocked,
            &mut p.failed,
            &mut p.skipped,
        ] {
            list.clear();
        }
        for t in &self.tasks {
            let list = match t.status() {
                TaskStatus::Completed => &mut p.completed,
                TaskStatus::Blocked => &mut p.blocked,
                TaskStatus::Failed => &mut p.failed,
                TaskStatus::Skipped => &mut p.skipped,
                _ => continue,
            };
            list.push(t.id().to_string());
        }
    }

    /// `current_task`/`current_tasks` as the plugin reads them: the tasks in
    /// progress, else the failed task (the plugin keeps a failed task current for
    /// its retry), else the first pending task in document order (what the plugin's
    /// start and its next-task lookup pick), else none.
    fn sync_current(&mut self) {
        self.current_tasks = current_of::<TaskRef>(&self.tasks);
        self.current_task = self.current_tasks.first().cloned();
    }
}

/// A plan's tasks as a state holds them. Moved a chunk at a time from the back, the
/// plan's buffer shrunk after each, so the tasks are never held twice: a
/// `map(TaskRef::new).collect()` keeps the plan's whole buffer alive until the last
/// task is moved (collected in place, it cannot be freed sooner).
pub fn shared(mut tasks: Vec<Task>) -> Vec<TaskRef> {
    const CHUNK: usize = 1024;
    let mut out = Vec::with_capacity(tasks.len());
    while !tasks.is_empty() {
        let chunk = tasks.split_off(tasks.len().saturating_sub(CHUNK));
        tasks.shrink_to_fit();
        out.extend(chunk.into_iter().rev().map(TaskRef::new));
    }
    out.reverse();
    out
}

/// The current tasks by the plugin's rule (`WorkflowState::sync_current`).
pub fn current_of<G: Glance>(tasks: &[impl std::borrow::Borrow<G>]) -> Vec<String> {
    let of = |s: TaskStatus| {
        tasks
            .iter()
            .map(std::borrow::Borrow::borrow)
            .filter(move |t: &&G| t.status() == s)
    };
    let mut current: Vec<String> = of(TaskStatus::InProgress)
        .map(|t| t.id().to_string())
        .collect();
    if current.is_empty() {
        current.extend(
            of(TaskStatus::Failed)
                .chain(of(TaskStatus::Pending))
                .take(1)
                .map(|t| t.id().to_string()),
        );
    }
    current
}

fn schema_version() -> u32 {
    SCHEMA_VERSION
}
fn default_execution_mode() -> String {
    "phase".into()
}
fn default_mode() -> String {
    "normal".into()
}
fn default_sessions() -> Value {
    serde_json::json!({"codex": null, "gemini": null, "claude": null})
}
pub(super) fn yes() -> bool {
    true
}
// serde's skip_serializing_if passes a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_false(b: &bool) -> bool {
    !*b
}
#[allow(clippy::trivially_copy_pass_by_ref)]
pub(super) fn is_zero(n: &u32) -> bool {
    *n == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_found_where_it_is_however_the_tasks_changed() {
        let task = |id: &str| {
            TaskRef::new(Task {
                id: id.into(),
                ..Task::default()
            })
        };
        let mut state = WorkflowState::new();
        for i in 0..50 {
            state.tasks.push(task(&format!("T{i}")));
            // Appended one at a time, each is found (and the earlier still are).
            assert_eq!(
                state.task_mut(&format!("T{i}")).unwrap().unwrap().id,
                format!("T{i}")
            );
            assert_eq!(state.task("T0").unwrap().unwrap().id, "T0");
        }
        state.tasks.reverse();
        state.tasks.truncate(30);
        state.tasks.push(task("T0"));
        for t in state.tasks.clone() {
            assert!(
                std::ptr::eq(state.task(t.id()).unwrap().unwrap(), t.task().unwrap()),
                "{}",
                t.id()
            );
        }
        assert!(state.task("T5").unwrap().is_none());
        // Moved with nothing added: every position it had is checked, and rebuilt.
        state.tasks.swap(0, 29);
        for (i, t) in state.tasks.clone().iter().enumerate() {
            assert_eq!(state.position(t.id()), Some(i), "{}", t.id());
        }
    }

    #[test]
    fn many_look_ups_in_a_row_index_the_tasks_again_at_most_once() {
        let mut state = WorkflowState::new();
        state.tasks = (0..100)
            .map(|i| {
                TaskRef::new(Task {
                    id: format!("T{i}"),
                    ..Task::default()
                })
            })
            .collect();
        assert_eq!(state.position("T7"), Some(7));
        // Moved since it was indexed, and asked for with ids the tasks lack.
        state.tasks.swap(7, 8);
        let rebuilds = || state.task_index.lock().rebuilds;
        let before = rebuilds();
        let found: Vec<Option<usize>> = state.with_positions(|position| {
            ["nope1", "T7", "nope2", "T8", "nope3"]
                .iter()
                .map(|id| position(id))
                .collect()
        });
        assert_eq!(found, [None, Some(8), None, Some(7), None]);
        assert_eq!(rebuilds() - before, 1);
        // One look-up at a time, each miss indexes again.
        assert_eq!(state.position("nope4"), None);
        assert_eq!(rebuilds() - before, 2);
    }

    #[test]
    fn shared_keeps_every_task_in_plan_order_across_chunks() {
        for n in [0, 1, 1023, 1024, 1025, 3000] {
            let tasks: Vec<Task> = (0..n)
                .map(|i| Task {
                    id: format!("T{i}"),
                    ..Task::default()
                })
                .collect();
            let ids: Vec<String> = shared(tasks).iter().map(|t| t.id().to_owned()).collect();
            let want: Vec<String> = (0..n).map(|i| format!("T{i}")).collect();
            assert_eq!(ids, want, "{n} tasks");
        }
    }
}
