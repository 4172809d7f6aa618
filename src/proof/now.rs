//! Whether one completed task is up to date now (`wf show TASK`): its inputs
//! fingerprinted as they are now — with the fingerprints its dependencies have now,
//! recomputed up the whole chain as `wf verify` does it (`src/run/verify.rs`), so a
//! change upstream shows — and compared with what its evidence recorded.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::error::Result;
use crate::proof::{inputs_with, shared::Shared, shared_files, stale_reasons, verifiable};
use crate::state::evidence::Inputs;
use crate::state::model::Glance;
use crate::state::model::{Task, WorkflowState};

/// A task's standing now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Now {
    /// Its inputs as they are now.
    pub inputs: Inputs,
    /// Up to date: same fingerprint as its evidence, and files to tell it by. None
    /// when it has no evidence to compare with.
    pub up_to_date: Option<bool>,
    /// Why it is not up to date, as `wf verify --dry-run` would say it.
    pub changed: Vec<String>,
}

/// `task`'s inputs now and how they compare with its evidence.
pub fn now(project: &Path, state: &WorkflowState, task: &Task) -> Result<Now> {
    let shared = shared_files(state)?;
    let upstream = upstream_now(project, state, task, &shared)?;
    let inputs = match state.position(&task.id) {
        Some(pos) => inputs_with(project, state, pos, &upstream, &shared)?,
        None => crate::proof::inputs_now(project, state, task)?,
    };
    // Read once: a proof is parsed from its text at each read.
    let Some(proof) = task.proof() else {
        return Ok(Now {
            inputs,
            up_to_date: None,
            changed: Vec::new(),
        });
    };
    let changed = stale_reasons(task, Some(&proof), &inputs, Vec::new());
    Ok(Now {
        inputs,
        up_to_date: Some(changed.is_empty()),
        changed,
    })
}

/// Every completed task whose evidence is out of date: an input changed since its
/// checks passed (a task upstream included), with why, in dependency order. A task
/// without evidence, or whose inputs wf cannot tell (it declares no files), is not
/// out of date: there is nothing recorded to be stale.
pub fn stale(project: &Path, state: &WorkflowState) -> Result<Vec<(String, Vec<String>)>> {
    let shared = shared_files(state)?;
    let mut now: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for pos in crate::proof::state_order(&state.tasks) {
        if state.tasks[pos].status() != crate::state::TaskStatus::Completed {
            continue;
        }
        let task = state.tasks[pos].task()?;
        let Some(proof) = task.proof() else {
            continue;
        };
        let inputs = inputs_with(project, state, pos, &now, &shared)?;
        let why = crate::proof::fingerprint::changes(&proof.inputs, &inputs);
        if !why.is_empty() {
            out.push((task.id.clone(), why));
        }
        now.insert(task.id.clone(), inputs.fingerprint);
    }
    Ok(out)
}

/// The fingerprints now of every task `task` depends on, directly or not, that
/// `verify` would take up; the others keep their recorded one. Each is computed
/// after its own dependencies (an explicit stack: a chain of 10,000 tasks must not
/// exhaust the thread's stack).
fn upstream_now(
    project: &Path,
    state: &WorkflowState,
    task: &Task,
    shared: &Shared,
) -> Result<HashMap<String, String>> {
    let mut now: HashMap<String, String> = HashMap::new();
    let mut seen: HashSet<&str> = HashSet::new();
    let mut stack: Vec<(&Task, bool)> = Vec::new();
    for d in &task.deps {
        stack.extend(state.task(d)?.map(|t| (t, false)));
    }
    while let Some((t, expanded)) = stack.pop() {
        if expanded {
            if let Some(pos) = state.position(&t.id).filter(|_| verifiable(t)) {
                let inputs = inputs_with(project, state, pos, &now, shared)?;
                now.insert(t.id.clone(), inputs.fingerprint);
            }
            continue;
        }
        if !seen.insert(&t.id) {
            continue;
        }
        stack.push((t, true));
        for d in t.deps.iter().filter(|d| !seen.contains(d.as_str())) {
            stack.extend(state.task(d)?.map(|d| (d, false)));
        }
    }
    Ok(now)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::evidence::Evidence;
    use crate::state::task_ref::TaskRef;
    use crate::state::TaskStatus;

    fn completed(state: &mut WorkflowState, project: &Path, id: &str, file: &str, deps: &[&str]) {
        let mut task = Task {
            id: id.into(),
            digest: id.into(),
            status: TaskStatus::Completed,
            file: Some(file.into()),
            deps: deps.iter().map(|d| (*d).to_string()).collect(),
            ..Task::default()
        };
        task.evidence = Some(crate::state::evidence::Proof::of(Evidence {
            inputs: crate::proof::inputs_now(project, state, &task).unwrap(),
            ..Evidence::default()
        }));
        state.tasks.push(TaskRef::new(task));
    }

    #[test]
    fn a_change_two_tasks_upstream_shows_on_the_task() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        for f in ["a", "b", "c"] {
            std::fs::write(p.join(f), f).unwrap();
        }
        let mut state = WorkflowState::new();
        completed(&mut state, p, "T1", "a", &[]);
        completed(&mut state, p, "T2", "b", &["T1"]);
        completed(&mut state, p, "T3", "c", &["T2"]);
        let t3 = state.task("T3").unwrap().unwrap().clone();
        let fresh = now(p, &state, &t3).unwrap();
        assert_eq!((fresh.up_to_date, fresh.changed.len()), (Some(true), 0));

        std::fs::write(p.join("a"), "edited").unwrap();
        let stale = now(p, &state, &t3).unwrap();
        assert_eq!(stale.up_to_date, Some(false));
        assert_eq!(stale.changed, ["its dependency T2 changed"]);
        let t1 = state.task("T1").unwrap().unwrap().clone();
        assert_eq!(now(p, &state, &t1).unwrap().changed, ["a changed"]);

        let mut bare = t3.clone();
        bare.evidence = None;
        assert_eq!(now(p, &state, &bare).unwrap().up_to_date, None);
    }
}
