//! What `workflow-execute` says when a run stops: one line (or a brief, for a
//! hand-off) for people, and the same facts as JSON for scripts and agents.

use serde_json::{json, Value};

use crate::proof::derive::ConfigCheck;
use crate::run::engine::{RunSummary, Stop};
use crate::run::policy::{self, Fallout};
use crate::state::model::Glance;
use crate::state::WorkflowState;

/// The word a stop is given in JSON.
pub fn stop_word(stop: &Stop) -> &'static str {
    match stop {
        Stop::Completed => "completed",
        Stop::Paused(_) => "paused",
        Stop::Blocked { .. } => "blocked",
        Stop::Failed { .. } => "failed",
        Stop::HandedOff(_) => "handed_off",
        Stop::Interrupted => "interrupted",
    }
}

/// What a hand-off's text reads from the project's config.
pub struct HandOff<'a> {
    /// `wf.checks`, for what wf checks of a task with no command.
    pub checks: &'a [ConfigCheck],
    /// `wf.capabilities`, which capability each agent action wants.
    pub capabilities: &'a std::collections::BTreeMap<String, String>,
}

/// The stop in words, for people; `hand_off`, for the text of a task handed off.
pub fn stop_text(
    state: &WorkflowState,
    stop: &Stop,
    keep_going: bool,
    hand_off: &HandOff,
) -> crate::error::Result<String> {
    let done = state.tasks.iter().filter(|t| t.status().is_done()).count();
    let total = state.tasks.len();
    Ok(match stop {
        Stop::Completed => format!("Completed: {done}/{total} tasks done."),
        Stop::Paused(why) => format!(
            "Paused ({}): {done}/{total} tasks done. Run `wf workflow-execute` to continue.",
            super::one_line(why)
        ),
        Stop::Blocked { kinds, tasks } => blocked_text(state, kinds, tasks),
        Stop::Failed { reason, .. } => format!(
            "Failed: {}\n{}`wf logs` shows why; after a fix, `wf resume` runs it again. Or skip it with `wf workflow-execute --skip --reason TEXT`.",
            super::one_line(reason),
            if keep_going {
                fallout_text(&policy::fallout(&state.tasks))
            } else {
                String::new()
            }
        ),
        Stop::HandedOff(id) => handoff_text(state, id, hand_off)?,
        Stop::Interrupted => {
            format!("Interrupted: progress saved ({done}/{total} done). `wf resume` continues.")
        }
    })
}

/// The stop as the JSON document of `workflow-execute --json`. Built only for a
/// reader of JSON: whether each task's log is there is asked here, a `stat` per
/// task the run ran.
pub fn stop_json(state: &WorkflowState, stop: &Stop, summary: &RunSummary) -> Value {
    let done = state.tasks.iter().filter(|t| t.status().is_done()).count();
    let total = state.tasks.len();
    let fallout = policy::fallout(&state.tasks);
    json!({
        "stop": stop_word(stop),
        "reason": match stop { Stop::Paused(r) => Some(r.clone()), Stop::Failed { reason, .. } => Some(reason.clone()), _ => None },
        "task": match stop { Stop::HandedOff(id) => Some(id.clone()), Stop::Failed { task, .. } => task.clone(), _ => None },
        "exit_code": stop.exit_code(summary.ci_to_the_end),
        "ran": summary.ran,
        "passed": summary.passed,
        "failed": summary.failed,
        "tasks": summary.tasks.iter().map(|t| {
            let mut t = t.clone();
            t.log = t.log.filter(|path| path.is_file());
            t
        }).collect::<Vec<_>>(),
        "progress": {"done": done, "total": total},
        "status": state.status,
        "failed_tasks": fallout.failed,
        "not_run": fallout.not_run,
    })
}

/// The lines a `--keep-going` failure adds: every failed task, and the tasks not run
/// because they depend on one.
fn fallout_text(f: &Fallout) -> String {
    let mut text = format!("Failed tasks: {}\n", shown(&f.failed));
    if !f.not_run.is_empty() {
        text.push_str(&format!(
            "Not run (they depend on a failed task): {}\n",
            shown(&f.not_run)
        ));
    }
    text
}

/// Up to ten ids, then how many more.
fn shown<S: AsRef<str>>(ids: &[S]) -> String {
    let mut s = ids
        .iter()
        .take(10)
        .map(AsRef::as_ref)
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > 10 {
        s.push_str(&format!(" and {} more", ids.len() - 10));
    }
    s
}

/// Which tasks wait on an external input themselves and how many wait on them.
fn blocked_text(state: &WorkflowState, kinds: &[String], tasks: &[String]) -> String {
    let own: Vec<&str> = state
        .tasks
        .iter()
        .filter(|t| !t.status().is_done() && !t.blocked_by().is_empty())
        .map(Glance::id)
        .collect();
    let lift = kinds.first().map_or("all", String::as_str);
    if own.is_empty() {
        return format!(
            "Blocked: {} {} on {}. Lift with `wf workflow-unblock {lift}`.",
            tasks.len(),
            super::plural(tasks.len(), "task waits", "tasks wait"),
            kinds.join(", "),
        );
    }
    let behind = tasks.len().saturating_sub(own.len());
    let mut text = format!(
        "Blocked: {} {} on {}",
        shown(&own),
        super::plural(own.len(), "waits", "wait"),
        kinds.join(", ")
    );
    if behind > 0 {
        text.push_str(&format!(
            "; {behind} more {} on them",
            super::plural(behind, "task waits", "tasks wait")
        ));
    }
    text.push_str(&format!(". Lift with `wf workflow-unblock {lift}`."));
    text
}

/// The hand-off's headline — which kind of agent the task wants, why it is handed
/// off, what wf checks when it comes back — then the brief.
fn handoff_text(
    state: &WorkflowState,
    id: &str,
    hand_off: &HandOff,
) -> crate::error::Result<String> {
    let Some(task) = state.task(id)? else {
        return Ok(format!("Handed off: {id}"));
    };
    let wanted = crate::run::executor::required_capabilities(task, hand_off.capabilities);
    let actions = policy::agent_actions(task);
    let actions = if actions.is_empty() {
        String::new()
    } else {
        format!(" (actions: {})", actions.join(", "))
    };
    Ok(format!(
        "Handed off: task {} wants an agent that can {}{actions}. No executor is configured (wf.executors), so it is yours or Claude Code's to do; when it is done, `wf workflow-execute` checks {}.\n\n{}",
        task.id,
        wanted.join(" and "),
        checked_on_return(task, hand_off.checks),
        super::brief::brief(state, task, hand_off.checks)
    ))
}

/// What `workflow-execute` checks of a handed-off task when it comes back, in the
/// words of the brief's section that lists it.
fn checked_on_return(task: &crate::state::Task, checks: &[ConfigCheck]) -> String {
    let commands = task.check_commands().count();
    let mut parts = Vec::new();
    if commands > 0 {
        parts.push(format!(
            "its {commands} {} (\"Verify\" below)",
            super::plural(commands, "command", "commands")
        ));
    }
    if task.expect.is_some() {
        parts.push("its expected result (\"Verify\" below)".to_string());
    }
    if task.has_action("run_tests") {
        parts.push("the project's tests".to_string());
    }
    if task.quality_gate {
        parts.push("the quality gate's verifiers".to_string());
    }
    if !parts.is_empty() {
        return parts.join(", ");
    }
    match super::checks::derived_lines(task, checks).len() {
        0 => "nothing: it is accepted on your word (`--require-checks` refuses that)".to_string(),
        n => format!(
            "the {n} {} under \"What wf checks\" below",
            super::plural(n, "thing", "things")
        ),
    }
}

/// What `workflow-execute --dry-run` knows besides the state.
pub struct DryRun {
    pub mode: crate::run::engine::Mode,
    /// Whether an executor is configured: else an agent task is handed off.
    pub executors: bool,
    pub ci: bool,
}

/// What one task of a rehearsal does when its turn comes, in a few words.
fn rehearsed_work(task: &crate::state::Task, dry: &DryRun) -> String {
    let mut parts = Vec::new();
    let cmds: Vec<&str> = task.check_commands().collect();
    if let Some(first) = cmds.first() {
        let more = match cmds.len() {
            1 => String::new(),
            n => format!(" and {} more", n - 1),
        };
        parts.push(format!("runs `{}`{more}", super::one_line(first)));
    }
    if policy::needs_agent(task) {
        parts.push(
            match (dry.executors, dry.ci) {
                (true, _) => "an executor does it",
                (false, true) => "fails: it needs an agent and --ci does not hand off",
                (false, false) => "handed off to you or an agent (no executor is configured)",
            }
            .to_string(),
        );
    }
    if task.has_action("run_tests") {
        parts.push("runs the project's tests".into());
    }
    if task.quality_gate {
        parts.push("quality gate".into());
    }
    if task.has_action("git_commit") {
        parts.push("commits".into());
    }
    if parts.is_empty() {
        parts.push("nothing to run".into());
    }
    parts.join("; ")
}

/// Why a task a rehearsal does not reach is not reached.
fn not_reached_why(task: &crate::state::Task) -> String {
    if task.status == crate::state::TaskStatus::Failed {
        "failed: `wf resume` runs it again after a fix".into()
    } else if !task.blocked_by.is_empty() {
        format!("waits on {}", task.blocked_by.join(", "))
    } else {
        format!("after {}", task.deps.join(", "))
    }
}

/// `workflow-execute --dry-run`: what would run, in which order, and where the mode
/// stops; nothing is run or written. Text, then its JSON.
pub fn dry_run(state: &WorkflowState, dry: &DryRun) -> crate::error::Result<(String, Value)> {
    use crate::run::engine::Mode;
    let plan = policy::rehearse(state)?;
    let mut text = format!(
        "A dry run: nothing is run or written.\nWould run, in this order, under {}:\n",
        dry.mode.flag()
    );
    let mut order = Vec::new();
    let mut stopped = false;
    for (i, t) in plan.order.iter().enumerate() {
        let does = rehearsed_work(t, dry);
        text.push_str(&format!(
            "  {}. {} {}: {does}\n",
            i + 1,
            t.id,
            super::one_line(&t.name)
        ));
        order.push(json!({"id": t.id, "name": t.name, "phase": t.phase, "does": does}));
        let next = plan.order.get(i + 1);
        let stop = match dry.mode {
            _ if !dry.executors && policy::needs_agent(t) => Some(if dry.ci {
                "the run fails here"
            } else {
                "the run stops here until the task comes back"
            }),
            _ if dry.ci => None,
            Mode::Step => Some("--step stops here"),
            Mode::Phase if next.is_some_and(|n| n.phase != t.phase) => {
                Some("--phase stops here: the next task's phase differs")
            }
            Mode::QualityGate
                if next.is_some_and(|n| n.quality_gate || n.has_action("git_commit")) =>
            {
                Some("--quality-gate stops here, before the gate or commit")
            }
            _ => None,
        };
        if let (Some(stop), false, Some(_)) = (stop, stopped, next) {
            text.push_str(&format!("     ↳ {stop}\n"));
            stopped = true;
        }
    }
    if plan.order.is_empty() {
        text.push_str("  nothing\n");
    }
    if !plan.left.is_empty() {
        text.push_str("Not reached:\n");
        for t in &plan.left {
            text.push_str(&format!(
                "  {} {}: {}\n",
                t.id,
                super::one_line(&t.name),
                not_reached_why(t)
            ));
        }
    }
    let json = json!({
        "dry_run": true,
        "mode": dry.mode.state_name(),
        "order": order,
        "not_reached": plan.left.iter().map(|t| json!({"id": t.id, "why": not_reached_why(t)})).collect::<Vec<_>>(),
    });
    Ok((text.trim_end().to_string(), json))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::model::Task;
    use crate::state::task_ref::TaskRef;
    use crate::state::TaskStatus;

    fn task(id: &str) -> Task {
        Task {
            id: id.into(),
            name: id.into(),
            ..Task::default()
        }
    }

    fn state(blocked: &[&str], waiting: usize) -> WorkflowState {
        let mut s = WorkflowState::new();
        for id in blocked {
            let mut t = task(id);
            t.status = TaskStatus::Blocked;
            t.blocked_by = vec!["api_spec".into()];
            s.tasks.push(TaskRef::new(t));
        }
        for i in 0..waiting {
            s.tasks.push(TaskRef::new(task(&format!("W{i}"))));
        }
        s
    }

    #[test]
    fn a_blocked_stop_names_the_tasks_that_wait_themselves_and_counts_the_rest() {
        let s = state(&["T1"], 2);
        let all: Vec<String> = ["T1", "W0", "W1"].map(String::from).to_vec();
        let stop = Stop::Blocked {
            kinds: vec!["api_spec".into()],
            tasks: all,
        };
        let (json, text) = (
            stop_json(&s, &stop, &RunSummary::default()),
            stop_text(
                &s,
                &stop,
                false,
                &HandOff {
                    checks: &[],
                    capabilities: &std::collections::BTreeMap::default(),
                },
            )
            .unwrap(),
        );
        assert_eq!(
            text,
            "Blocked: T1 waits on api_spec; 2 more tasks wait on them. Lift with `wf workflow-unblock api_spec`."
        );
        assert_eq!(
            (json["stop"].as_str(), json["exit_code"].as_i64()),
            (Some("blocked"), Some(3))
        );
    }

    #[test]
    fn more_than_ten_blocked_tasks_are_cut_to_ten_and_a_count() {
        let ids: Vec<String> = (0..12).map(|i| format!("T{i}")).collect();
        let s = state(&ids.iter().map(String::as_str).collect::<Vec<_>>(), 0);
        let text = blocked_text_of(&s, &ids);
        assert!(
            text.starts_with(
                "Blocked: T0, T1, T2, T3, T4, T5, T6, T7, T8, T9 and 2 more wait on api_spec."
            ),
            "{text}"
        );
    }

    fn blocked_text_of(s: &WorkflowState, ids: &[String]) -> String {
        let stop = Stop::Blocked {
            kinds: vec!["api_spec".into()],
            tasks: ids.to_vec(),
        };
        stop_text(
            s,
            &stop,
            false,
            &HandOff {
                checks: &[],
                capabilities: &std::collections::BTreeMap::default(),
            },
        )
        .unwrap()
    }
}
