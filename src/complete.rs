//! Shell completion candidates that only the project's workflow knows: task ids,
//! the blocker kinds that block tasks, constraint ids, phases, and plan files (and
//! the event types, which only `wf` knows). `cli` names
//! these functions on its arguments (`ArgValueCandidates`, `ArgValueCompleter`);
//! clap_complete's engine calls the one for the word being completed when a shell
//! asks `COMPLETE=SHELL wf -- wf …` (`src/commands/completions.rs`).
//!
//! Completion runs on every TAB, while the user waits, maybe while a run holds the
//! workflow's lock. So it reads the state once, as every reader does (snapshot plus
//! event-log tail, `src/state/store/`): no lock, nothing written, no plan parsed
//! (a plugin-written state, whose tasks live only in its plan, offers none). Any
//! failure — no workflow, a corrupt state, a bad config, an unreadable directory —
//! is no candidates: a message would land in the middle of the user's command line.

use crate::state::model::Glance;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use clap_complete::engine::{CompletionCandidate, PathCompleter, ValueCompleter};

use crate::project::Project;
use crate::state::event::EventKind;
use crate::state::store::PlanAccess;
use crate::state::{TaskStatus, WorkflowState};

/// The `-C DIR` of the line being completed, set by whoever parsed the line.
static LINE_PROJECT: OnceLock<Option<PathBuf>> = OnceLock::new();

/// The state, read at most once per completion.
static STATE: OnceLock<Option<WorkflowState>> = OnceLock::new();

/// Reads; never adopts, mirrors or digests a plan.
const READ_ONLY: PlanAccess = PlanAccess {
    adopt: |_, _, _| {},
    mirror: |_| Ok(()),
    digest_file: |_| Ok(String::new()),
};

/// Says which project the line being completed names (`-C DIR`), before the engine
/// asks for candidates; without it, the project is found as `wf` finds it when run
/// (`Project::discover`: the git top level of the current directory, else it).
/// Only `cli` can parse a line, and it sits above this module, so the caller hands
/// the answer down (`src/commands/completions.rs`).
pub fn set_line_project(dir: Option<PathBuf>) {
    let _ = LINE_PROJECT.set(dir);
}

fn state() -> Option<&'static WorkflowState> {
    STATE.get_or_init(read_state).as_ref()
}

fn read_state() -> Option<WorkflowState> {
    let explicit = LINE_PROJECT.get().cloned().flatten();
    let project = Project::discover(explicit.as_deref()).ok()?;
    project.store_with(READ_ONLY).load().ok().flatten()
}

/// Every task, in plan order, its name as help (zsh, fish and PowerShell show it).
pub fn task_ids() -> Vec<CompletionCandidate> {
    let Some(state) = state() else {
        return Vec::new();
    };
    // A task that cannot be read offers nothing: completion says no errors.
    let Ok(tasks) = state.whole_tasks() else {
        return Vec::new();
    };
    tasks
        .iter()
        .map(|t| CompletionCandidate::new(&t.id).help(Some(t.name.clone().into())))
        .collect()
}

/// The plan's phases in the order they first appear, each with its task count
/// (`wf status --phase`).
pub fn phases() -> Vec<CompletionCandidate> {
    let Some(state) = state() else {
        return Vec::new();
    };
    let Ok(tasks) = state.whole_tasks() else {
        return Vec::new();
    };
    let mut phases: Vec<(&str, usize)> = Vec::new();
    for task in tasks {
        match phases.iter_mut().find(|(p, _)| *p == task.phase) {
            Some((_, n)) => *n += 1,
            None => phases.push((&task.phase, 1)),
        }
    }
    phases
        .into_iter()
        .filter(|(p, _)| !p.is_empty())
        .map(|(p, n)| {
            let tasks = if n == 1 { "task" } else { "tasks" };
            CompletionCandidate::new(p).help(Some(format!("{n} {tasks}").into()))
        })
        .collect()
}

/// Every event `wf` writes (`wf events --type`); needs no workflow.
pub fn event_types() -> Vec<CompletionCandidate> {
    EventKind::ALL
        .iter()
        .map(|k| CompletionCandidate::new(k.name()))
        .collect()
}

/// The blocker kinds that hold back a task not yet done, each with the tasks it
/// holds back, then `all` (`wf workflow-unblock`, `src/commands/unblock.rs`). A kind
/// only the config knows, or one left on a completed or skipped task, blocks nothing
/// and is not offered; `wf workflow-unblock` still takes it.
pub fn blocker_kinds() -> Vec<CompletionCandidate> {
    let Some(state) = state() else {
        return Vec::new();
    };
    let mut kinds: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for task in &state.tasks {
        if matches!(task.status(), TaskStatus::Completed | TaskStatus::Skipped) {
            continue;
        }
        for kind in task.blocked_by() {
            kinds.entry(kind).or_default().push(task.id());
        }
    }
    let mut candidates: Vec<CompletionCandidate> = kinds
        .into_iter()
        .map(|(kind, tasks)| {
            CompletionCandidate::new(kind).help(Some(format!("blocks {}", list(&tasks)).into()))
        })
        .collect();
    candidates.push(CompletionCandidate::new("all").help(Some("every blocker kind".into())));
    candidates
}

/// `T2, T3, T4 and 5 more`: a help line stays one short line.
fn list(ids: &[&str]) -> String {
    const SHOWN: usize = 3;
    let mut text = ids
        .iter()
        .take(SHOWN)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(" and {} more", ids.len() - SHOWN));
    }
    text
}

/// Hard then soft constraints (`constraints remove`), the description as help.
pub fn constraint_ids() -> Vec<CompletionCandidate> {
    constraints(true, true)
}

/// The hard constraints (`constraints verify`).
pub fn hard_constraint_ids() -> Vec<CompletionCandidate> {
    constraints(true, false)
}

/// The soft constraints (`constraints promote`).
pub fn soft_constraint_ids() -> Vec<CompletionCandidate> {
    constraints(false, true)
}

fn constraints(with_hard: bool, with_soft: bool) -> Vec<CompletionCandidate> {
    let Some(state) = state() else {
        return Vec::new();
    };
    let all = &state.constraints;
    let hard = all.hard.iter().filter(|_| with_hard);
    let soft = all.soft.iter().filter(|_| with_soft);
    hard.chain(soft)
        .map(|c| CompletionCandidate::new(&c.id).help(Some(c.description.clone().into())))
        .collect()
}

/// Plan files: the `.md` files and `tasks.json` where the word points, then the directories there,
/// so the user can go down into one. Relative to the current directory, as
/// `wf workflow-start PLAN` opens it (`src/commands/start.rs`).
pub fn plan_files(current: &OsStr) -> Vec<CompletionCandidate> {
    // clap_complete lists the directories a filter leaves out after the files it
    // keeps (`PathCompleter`), which is the order wanted here.
    PathCompleter::any().filter(is_plan_file).complete(current)
}

/// A markdown file, or a `tasks.json` (Taskmaster's plan).
fn is_plan_file(path: &Path) -> bool {
    let markdown = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"));
    (markdown || path.file_name().is_some_and(|n| n == "tasks.json")) && path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_list_of_tasks_is_cut() {
        assert_eq!(list(&["T1"]), "T1");
        assert_eq!(list(&["T1", "T2", "T3"]), "T1, T2, T3");
        assert_eq!(
            list(&["T1", "T2", "T3", "T4", "T5"]),
            "T1, T2, T3 and 2 more"
        );
    }
}
