//! The scheduler's decisions, kept apart from acting on them.
//!
//! Every rule of `workflow-execute` — which task is next, who does it, where the run
//! stops, what an outcome leads to, how the run ends — is a function here of plain
//! data (tasks, statuses, mode, counters), with no session, event log, process or
//! clock. That is what lets each stop rule and failure path be tested in isolation,
//! and lets a reader check the policy without following I/O: `engine.rs` asks these
//! functions and records the answers, `dispatch.rs` carries them out on workers.

use crate::state::task_ref::TaskRef;
use std::collections::HashMap;
use std::time::Duration;

pub use crate::config::{PauseAt, AGENT_LIMIT_KEY};
use crate::error::Result;
use crate::run::context;
use crate::run::work::Verdict;
use crate::state::model::{Glance, Task};
use crate::state::{TaskStatus, WorkflowStatus};

/// Where a run stops by itself. `QualityGate` is the claude-workflow plugin's `--all`
/// (its mode `quality_gate`: a pause before every gate and commit); wf's `--all` runs
/// to the end, pausing only where `--pause-at` asks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Step,
    Phase,
    QualityGate,
    All,
}

impl Mode {
    /// The word kept in the state's `execution_mode` (the plugin's words for the
    /// plugin's modes).
    pub fn state_name(self) -> &'static str {
        match self {
            Mode::Step => "step",
            Mode::Phase => "phase",
            Mode::QualityGate => "quality_gate",
            Mode::All => "all",
        }
    }

    pub fn from_state_name(name: &str) -> Mode {
        match name {
            "step" => Mode::Step,
            "quality_gate" => Mode::QualityGate,
            "all" => Mode::All,
            _ => Mode::Phase,
        }
    }

    /// The command-line flag that asks for this mode, as `status` shows it.
    pub fn flag(self) -> &'static str {
        match self {
            Mode::Step => "--step",
            Mode::Phase => "--phase",
            Mode::QualityGate => "--quality-gate",
            Mode::All => "--all",
        }
    }

    /// What the mode does, in a few words, after its flag (`wf status`).
    pub fn describe(self) -> String {
        let what = match self {
            Mode::Step => "stops after each task",
            Mode::Phase => "stops when the phase changes",
            Mode::QualityGate => "stops before each quality gate and commit",
            Mode::All => "runs to the end or the first failure",
        };
        format!("{} ({what})", self.flag())
    }

    /// The pauses this mode makes with `asked` (`--pause-at`, `wf.pause_at`): the
    /// plugin's quality_gate mode adds one before every gate, and one before every
    /// commit when the state's `pause_before_commit` is on (the plugin's default).
    pub fn pause_at(self, asked: PauseAt, pause_before_commit: bool) -> PauseAt {
        match self {
            Mode::QualityGate => PauseAt {
                gate: true,
                commit: asked.commit || pause_before_commit,
            },
            _ => asked,
        }
    }
}

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq)]
pub enum Stop {
    Completed,
    Paused(String),
    Blocked {
        kinds: Vec<String>,
        tasks: Vec<String>,
    },
    Failed {
        task: Option<String>,
        reason: String,
    },
    HandedOff(String),
    Interrupted,
}

impl Stop {
    /// The exit code of a run that stopped here. `ci_to_the_end`: a CI run that was to
    /// go to the end (no mode asked for), which a pause — only the spending budget
    /// pauses one — leaves with part of the plan not run: the job must not pass, and
    /// a person must raise the budget first, as a blocker must be lifted (3). A
    /// hand-off is no failure: with no executor configured it is how agent work
    /// reaches a person or Claude Code (0; `--ci` never hands off, it fails the task).
    pub fn exit_code(&self, ci_to_the_end: bool) -> i32 {
        use crate::error::ErrorKind;
        match self {
            Stop::Paused(_) if ci_to_the_end => ErrorKind::Blocked.exit_code(),
            Stop::Completed | Stop::Paused(_) | Stop::HandedOff(_) => 0,
            Stop::Failed { .. } => ErrorKind::Failed.exit_code(),
            Stop::Blocked { .. } => ErrorKind::Blocked.exit_code(),
            Stop::Interrupted => ErrorKind::Interrupted.exit_code(),
        }
    }
}

/// Actions `wf` does itself; any other action is an agent's work.
const COMMAND_ACTIONS: &[&str] = &["run_tests", "git_commit"];

pub fn agent_actions(task: &Task) -> Vec<&str> {
    task.actions
        .iter()
        .map(String::as_str)
        .filter(|a| !COMMAND_ACTIONS.contains(a))
        .collect()
}

/// A task needs an agent when it names agent work (create_file, edit_file, a
/// review, …), or names no work at all and has nothing to run (spec-kit tasks).
pub fn needs_agent(task: &Task) -> bool {
    if task.actions.is_empty() {
        return task.check_commands().next().is_none() && !task.quality_gate;
    }
    !agent_actions(task).is_empty()
}

/// git_commit runs alone: `git add -A` must not take half-written files of tasks
/// still running, nor race them for the index. True when `task` must wait.
pub fn waits_for_commit(task: &Task, running: &[&Task]) -> bool {
    let commit_running = running.iter().any(|t| t.has_action("git_commit"));
    commit_running || (task.has_action("git_commit") && !running.is_empty())
}

/// What the stop rules look at besides the task.
#[derive(Debug, Clone)]
pub struct StopCheck<'a> {
    pub mode: Mode,
    pub ci: bool,
    /// Tasks started in this run (a task back from a hand-off counts).
    pub dispatched: usize,
    /// The phase this run works in, once it started one.
    pub run_phase: Option<&'a str>,
    /// Whether a task is running now.
    pub busy: bool,
    /// Where to pause besides the mode's stops (`Mode::pause_at`).
    pub pause_at: PauseAt,
    /// Agent tasks done in this run.
    pub agent_tasks: u32,
    /// `wf.max_consecutive_agent_tasks`; unset, the plugin's limit by the task's size
    /// and the context usage (`context::max_consecutive`).
    pub agent_limit: Option<u32>,
    /// Context usage in percent.
    pub usage: u32,
    pub danger_threshold: u32,
    /// Why the spending budget (`wf.budget_tokens`, `wf.budget_usd`) is used up, when
    /// it is.
    pub over_budget: Option<String>,
}

/// The mode's stop rules, checked before starting `task`.
pub fn stop_before(task: &Task, c: &StopCheck) -> Option<Stop> {
    // A budget is money: no mode, first task or CI run spends past it.
    if let (Some(why), true) = (&c.over_budget, needs_agent(task)) {
        return Some(Stop::Paused(why.clone()));
    }
    if c.ci {
        return None;
    }
    let first = c.dispatched == 0 && !c.busy;
    match c.mode {
        Mode::Step if !first => return Some(Stop::Paused("step mode: one task per run".into())),
        Mode::Phase => {
            if let Some(phase) = c.run_phase {
                if task.phase != phase {
                    return Some(Stop::Paused(format!(
                        "phase `{phase}` is done; next is phase `{}`",
                        task.phase
                    )));
                }
            }
        }
        _ => {}
    }
    // The first task of a run goes ahead: the run that resumes a pause starts there.
    if !first && c.pause_at.gate && task.quality_gate {
        return Some(Stop::Paused(format!("before quality gate {}", task.id)));
    }
    if !first && c.pause_at.commit && task.has_action("git_commit") {
        return Some(Stop::Paused(format!("before the commit in {}", task.id)));
    }
    if needs_agent(task) {
        // The first task of a run goes ahead: a context that stays large would
        // otherwise stop every run before it starts.
        if c.usage >= c.danger_threshold && !first {
            return Some(Stop::Paused(format!(
                "context usage {}% is past the danger threshold {}%",
                c.usage, c.danger_threshold
            )));
        }
        let limit = c
            .agent_limit
            .unwrap_or_else(|| context::max_consecutive(context::complexity(task), c.usage));
        if c.agent_tasks >= limit {
            return Some(Stop::Paused(format!(
                "{limit} agent tasks in a row (the limit; set {AGENT_LIMIT_KEY} to change it)"
            )));
        }
    }
    None
}

/// Whether the scheduler starts one task and then stops filling slots (step mode).
pub fn one_at_a_time(mode: Mode, ci: bool) -> bool {
    mode == Mode::Step && !ci
}

/// The pause at the end of a step-mode run that started a task and has more ready.
pub fn step_done(mode: Mode, ci: bool, dispatched: usize, more_ready: bool) -> Option<Stop> {
    (dispatched > 0 && one_at_a_time(mode, ci) && more_ready)
        .then(|| Stop::Paused("step mode: one task per run".into()))
}

/// How long running children get to end after Ctrl-C: none after a second one.
pub fn interrupt_grace(signals: u32) -> Duration {
    if signals > 1 {
        Duration::ZERO
    } else {
        Duration::from_secs(2)
    }
}

/// Whether a stop a finished task asks for replaces the one already pending: the
/// first stop wins, except that an interruption always does.
pub fn replaces(pending: &Option<Stop>, new: &Stop) -> bool {
    pending.is_none() || *new == Stop::Interrupted
}

/// A task the scheduler may start next, and how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Assignment {
    /// Commands, verifiers, gate, commit: `wf` does it itself.
    Command,
    /// Needs an agent and no executor is configured: hand it off.
    HandOff,
    /// Needs executors with these capabilities.
    Agent(Vec<String>),
    /// Needs a capability no configured executor offers.
    Missing(String),
}

/// Who does `task`: `caps` are the capabilities it needs (`Pool::required`),
/// `offers` whether any configured executor offers one.
pub fn assign(
    task: &Task,
    pool_empty: bool,
    caps: impl FnOnce() -> Vec<String>,
    offers: impl Fn(&str) -> bool,
) -> Assignment {
    if !needs_agent(task) {
        return Assignment::Command;
    }
    if pool_empty {
        return Assignment::HandOff;
    }
    let caps = caps();
    match caps.iter().find(|c| !offers(c)) {
        Some(missing) => Assignment::Missing(missing.clone()),
        None => Assignment::Agent(caps),
    }
}

/// Why `--ci` fails a task it would otherwise hand off.
pub fn ci_handoff_reason(task: &Task) -> String {
    format!(
        "task {} needs an agent ({}) and --ci does not hand off; configure an executor in wf.executors",
        task.id,
        agent_actions(task).join(", ")
    )
}

/// The reason a task's executors are released with.
pub fn release_reason(verdict: &Verdict) -> &'static str {
    match verdict {
        Verdict::Passed { .. } => "completed",
        Verdict::DispatchFailed { .. } => "blocked",
        _ => "failed",
    }
}

/// What is known about a task when its outcome comes in.
#[derive(Debug, Clone, Default)]
pub struct OutcomeFacts {
    /// It went to executors (which reported their own result).
    pub dispatched: bool,
    pub handed_off: bool,
    pub needs_agent: bool,
    pub pool_empty: bool,
    /// A `--mock` rehearsal.
    pub mock: bool,
    /// Dispatch failures before this one.
    pub dispatch_failures: u32,
    /// Retries already spent (`retry_counts`).
    pub retries: u32,
    pub max_retries: u32,
}

/// What an outcome leads to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// The executor never started and retrying will not help: blocked on
    /// `resource_missing`.
    Block,
    /// The executor never started: pending, to be dispatched again.
    Redispatch,
    /// A failed agent task with retries left: pending, next time on the strongest
    /// executor.
    Escalate,
    /// Completed. `unchecked` is why nothing checked it, when nothing did;
    /// `agent_work` when it counts toward the consecutive-task limit.
    Complete {
        unchecked: Option<&'static str>,
        agent_work: bool,
    },
    /// Failed: the run stops.
    Fail,
    /// Interrupted: pending, to run again; the run stops.
    Requeue,
}

pub fn after_outcome(verdict: &Verdict, f: &OutcomeFacts) -> Next {
    match verdict {
        Verdict::DispatchFailed { unrecoverable, .. } => {
            if *unrecoverable || f.dispatch_failures + 1 >= f.max_retries.max(1) {
                Next::Block
            } else {
                Next::Redispatch
            }
        }
        // Try again on the strongest executor that can do it.
        Verdict::Failed { .. } if !f.pool_empty && f.needs_agent && f.retries < f.max_retries => {
            Next::Escalate
        }
        Verdict::Passed { verified } => {
            // An agent's work that nothing could check is taken on its word;
            // the status says so, so nobody reads it as verified work.
            let unchecked = !verified && (f.dispatched || f.handed_off || f.needs_agent);
            Next::Complete {
                unchecked: unchecked.then_some(if f.dispatched && f.mock {
                    "accepted unchecked: a --mock rehearsal did no work to check"
                } else {
                    "accepted unchecked: no command of its own, and nothing its line names could be checked"
                }),
                agent_work: f.handed_off || f.needs_agent,
            }
        }
        Verdict::Failed { .. } => Next::Fail,
        Verdict::Interrupted => Next::Requeue,
    }
}

/// Nothing ready and nothing running: stuck behind a failure, or blocked. `None`
/// when every task is done (the deliverables are checked next).
pub fn nothing_ready(tasks: &[TaskRef]) -> Result<Option<Stop>> {
    if let Some(stop) = failed_stop(tasks)? {
        return Ok(Some(stop));
    }
    let open: Vec<&TaskRef> = tasks.iter().filter(|t| !t.status().is_done()).collect();
    if open.is_empty() {
        return Ok(None);
    }
    let mut kinds: Vec<String> = open
        .iter()
        .flat_map(|t| t.blocked_by().map(str::to_owned))
        .collect();
    kinds.sort();
    kinds.dedup();
    Ok(Some(Stop::Blocked {
        kinds,
        tasks: open.iter().map(|t| t.id().to_string()).collect(),
    }))
}

/// The failed stop when any task failed: the first failed task, and with several
/// (a `--keep-going` run) how many and which.
pub fn failed_stop(tasks: &[TaskRef]) -> Result<Option<Stop>> {
    let failed: Vec<&TaskRef> = tasks
        .iter()
        .filter(|t| t.status() == TaskStatus::Failed)
        .collect();
    let Some(first) = failed.first() else {
        return Ok(None);
    };
    let why = format!(
        "task {} failed: {}",
        first.id(),
        first
            .task()?
            .failure_reason
            .as_deref()
            .unwrap_or("no reason recorded")
    );
    let reason = if failed.len() == 1 {
        why
    } else {
        let ids: Vec<&str> = failed.iter().map(|t| t.id()).collect();
        format!("{} tasks failed ({}); {why}", failed.len(), ids.join(", "))
    };
    Ok(Some(Stop::Failed {
        task: Some(first.id().to_owned()),
        reason,
    }))
}

/// What a failed task does to the run: without `--keep-going` the run stops (once
/// the tasks already running end); with it nothing stops here, and the tasks that do
/// not depend on a failed one go on — a dependant is never ready (`state::ready`),
/// so a quality gate that depends on a failed task never runs. The run then ends
/// `failed` through `nothing_ready` or `settle`.
pub fn stop_after_failure(task_id: &str, reason: &str, keep_going: bool) -> Option<Stop> {
    (!keep_going).then(|| Stop::Failed {
        task: Some(task_id.to_string()),
        reason: format!("task {task_id} failed: {reason}"),
    })
}

/// A pause reached after a task failed ends the run `failed`: with `--keep-going` a
/// run may go on to a mode's stop (a phase's end, a gate under `--all`, step mode),
/// and a workflow with a failed task must end `failed`, as it does without the flag.
/// An interruption or a hand-off keeps its own stop.
pub fn settle(stop: Stop, tasks: &[TaskRef]) -> Result<Stop> {
    Ok(match stop {
        Stop::Paused(_) => failed_stop(tasks)?.unwrap_or(stop),
        stop => stop,
    })
}

/// The failed tasks, and the open tasks not run because they depend, directly or
/// through other open tasks, on a failed one; both in document order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fallout {
    pub failed: Vec<String>,
    pub not_run: Vec<String>,
}

/// [`Fallout`] of `tasks`: a walk from each failed task along reverse dependency
/// edges, O(tasks + edges) and without recursion, so a 10,000-task chain is fine. A
/// done task ends the walk: what depends on it does not wait on the failure.
pub fn fallout(tasks: &[TaskRef]) -> Fallout {
    let index: HashMap<&str, usize> = tasks.iter().enumerate().map(|(i, t)| (t.id(), i)).collect();
    let mut dependants: Vec<Vec<usize>> = vec![Vec::new(); tasks.len()];
    for (i, t) in tasks.iter().enumerate() {
        for d in t.deps() {
            if let Some(&j) = index.get(d) {
                dependants[j].push(i);
            }
        }
    }
    let mut marked = vec![false; tasks.len()];
    let mut stack: Vec<usize> = (0..tasks.len())
        .filter(|&i| tasks[i].status() == TaskStatus::Failed)
        .collect();
    while let Some(i) = stack.pop() {
        for &j in &dependants[i] {
            let open = !tasks[j].status().is_done() && tasks[j].status() != TaskStatus::Failed;
            if open && !marked[j] {
                marked[j] = true;
                stack.push(j);
            }
        }
    }
    let ids = |keep: &dyn Fn(usize) -> bool| -> Vec<String> {
        (0..tasks.len())
            .filter(|&i| keep(i))
            .map(|i| tasks[i].id().to_string())
            .collect()
    };
    Fallout {
        failed: ids(&|i| tasks[i].status() == TaskStatus::Failed),
        not_run: ids(&|i| marked[i]),
    }
}

/// Files completed tasks said they create that `exists` does not find.
pub fn missing_deliverables(
    tasks: &[TaskRef],
    exists: impl Fn(&str) -> bool,
) -> Result<Vec<String>> {
    let mut missing = Vec::new();
    for t in tasks.iter().filter(|t| t.status() == TaskStatus::Completed) {
        missing.extend(t.task()?.creates.iter().filter(|f| !exists(f)).cloned());
    }
    Ok(missing)
}

/// The order a run would take the tasks not done, if each passed: a task handed off
/// first (it is taken back), then the ready queue's picks, one at a time, as
/// `--jobs 1` starts them. `left`: the tasks no pass would reach — failed, waiting on
/// an external input, or after one of those.
pub struct Rehearsal<'a> {
    pub order: Vec<&'a Task>,
    pub left: Vec<&'a Task>,
}

pub fn rehearse(state: &crate::state::WorkflowState) -> Result<Rehearsal<'_>> {
    let tasks = &state.tasks;
    let mut order: Vec<&Task> = tasks
        .iter()
        .filter(|t| t.handed_off())
        .map(TaskRef::task)
        .collect::<Result<_>>()?;
    let mut queue = super::ready_queue::ReadyQueue::new(tasks, |id| state.position(id));
    for t in &order {
        if let Some(i) = state.position(&t.id) {
            queue.done(i);
        }
    }
    let none = std::collections::HashSet::new();
    while let Some(t) = queue.next(tasks, &none) {
        order.push(t.task()?);
        match state.position(t.id()) {
            Some(i) => queue.done(i),
            None => break,
        }
    }
    let taken: std::collections::HashSet<&str> = order.iter().map(|t| t.id.as_str()).collect();
    let left = tasks
        .iter()
        .filter(|t| !t.status().is_done() && !taken.contains(t.id()))
        .map(TaskRef::task)
        .collect::<Result<_>>()?;
    Ok(Rehearsal { order, left })
}

/// A workflow is never completed with 0 tasks.
pub fn final_stop(stop: Stop, no_tasks: bool) -> Stop {
    match stop {
        Stop::Completed if no_tasks => Stop::Failed {
            task: None,
            reason: format!(
                "the workflow has no tasks, so nothing was done; {}",
                crate::state::model::IMPORT_HINT
            ),
        },
        stop => stop,
    }
}

/// The workflow status a stop leaves (`None`: unchanged) and its reason.
///
/// A hand-off leaves the workflow `running` with the task current: the
/// claude-workflow plugin's hooks act on a running workflow only — its PreToolUse
/// hook refuses to dispatch an agent's Task unless the status is `running`, and its
/// Stop hook checks `current_tasks[0]` only then — so `paused` would block the very
/// agent the task went to. wf tells this apart from a crashed run by the handed-off
/// task.
pub fn stop_status(stop: &Stop) -> (Option<WorkflowStatus>, Option<String>) {
    let status = match stop {
        Stop::Completed => Some(WorkflowStatus::Completed),
        Stop::HandedOff(_) => None,
        Stop::Paused(_) | Stop::Interrupted => Some(WorkflowStatus::Paused),
        Stop::Blocked { .. } => Some(WorkflowStatus::Blocked),
        Stop::Failed { .. } => Some(WorkflowStatus::Failed),
    };
    let reason = match stop {
        Stop::Completed => None,
        Stop::Paused(why) => Some(why.clone()),
        Stop::HandedOff(id) => Some(format!("task {id} is handed off to an agent")),
        Stop::Interrupted => Some("interrupted".to_string()),
        Stop::Blocked { kinds, .. } => Some(format!("waiting on {}", kinds.join(", "))),
        Stop::Failed { reason, .. } => Some(reason.clone()),
    };
    (status, reason)
}

#[cfg(test)]
#[path = "policy_tests.rs"]
mod tests;
