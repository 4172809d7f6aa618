//! Proof-carrying completion (docs/proof.md): what a completed task keeps as proof,
//! and how that proof is checked again.
//!
//! - [`fingerprint`]: the digest of a task's inputs — its definition, its declared
//!   files, its dependencies' fingerprints — and which of them changed;
//! - [`cache`]: passing checks by fingerprint, shared between runs and machines, so
//!   a task whose inputs were proven before is not run again;
//! - [`tree`]: what an agent really changed, from git, against what it claimed and
//!   what the task declares.
//!
//! The data (`Evidence`) lives in the state (`src/state/evidence.rs`); the engine
//! records it as a task completes, `wf verify` and `wf proof` read it back.

pub mod cache;
pub mod derive;
pub mod document;
pub mod fingerprint;
pub mod now;
pub mod runner;
pub mod shared;
pub mod testout;
pub mod tree;

use crate::state::model::Glance;
use std::path::Path;

use crate::error::Result;
use crate::state::evidence::{Changes, Evidence, Inputs};
use crate::state::model::{Task, WorkflowState};

/// The inputs of `task` as they are now, its dependencies' fingerprints taken from
/// their evidence in `state`: what a task completing now passed on.
pub fn inputs_now(project: &Path, state: &WorkflowState, task: &Task) -> Result<Inputs> {
    let recorded = recorded_fingerprints(state, task, &std::collections::HashMap::new())?;
    Ok(fingerprint::inputs(
        project,
        task,
        |id| recorded.get(id).cloned().flatten(),
        |_| None,
    ))
}

/// The inputs now of the completed task at position `pos` of `state`, each
/// dependency's fingerprint taken from `upstream` (recomputed in this pass) when it
/// is there, else from its evidence, and each file a later task answers for
/// (`shared`) kept as its evidence recorded it.
pub fn inputs_with(
    project: &Path,
    state: &WorkflowState,
    pos: usize,
    upstream: &std::collections::HashMap<String, String>,
    shared: &shared::Shared,
) -> Result<Inputs> {
    let task: &Task = state.tasks[pos].task()?;
    let fingerprints = recorded_fingerprints(state, task, upstream)?;
    // Its evidence, read when a file it hands on first asks (most tasks hand none on).
    let recorded = std::cell::OnceCell::new();
    Ok(fingerprint::inputs(
        project,
        task,
        |id| {
            upstream
                .get(id)
                .cloned()
                .or_else(|| fingerprints.get(id).cloned().flatten())
        },
        |path| {
            shared
                .handed_on(pos, path)
                .then(|| recorded_digest(recorded.get_or_init(|| task.proof()).as_ref()?, path))
                .flatten()
        },
    ))
}

/// The digest `evidence` recorded for `path`.
pub fn recorded_digest(evidence: &Evidence, path: &str) -> Option<String> {
    evidence
        .inputs
        .files
        .iter()
        .find(|f| f.path == path)
        .and_then(|f| f.digest.clone())
}

/// Which task answers for each file completed tasks of `state` share
/// ([`shared::Shared`]), by position in `state.tasks`.
pub fn shared_files(state: &WorkflowState) -> Result<shared::Shared> {
    let tasks = &state.tasks;
    let declared = state_order(tasks)
        .into_iter()
        .filter(|&i| tasks[i].status() == crate::state::TaskStatus::Completed)
        .map(|i| Ok((i, fingerprint::declared_files(tasks[i].task()?))))
        .collect::<Result<Vec<_>>>()?;
    Ok(shared::Shared::of(declared))
}

/// Task positions, each after the tasks it depends on ([`dependency_order`]).
pub fn state_order(tasks: &[crate::state::task_ref::TaskRef]) -> Vec<usize> {
    order_by_id(tasks, |t| t.id(), |t| t.deps())
}

/// Positions of `items`, each after those of its dependencies (`deps`, by `id`) that
/// are among them ([`dependency_order`]).
pub(crate) fn order_by_id<'a, T, D: Iterator<Item = &'a str>>(
    items: &'a [T],
    id: impl Fn(&'a T) -> &'a str,
    deps: impl Fn(&'a T) -> D,
) -> Vec<usize> {
    let index: std::collections::HashMap<&str, usize> =
        items.iter().enumerate().map(|(i, t)| (id(t), i)).collect();
    let deps: Vec<Vec<usize>> = items
        .iter()
        .map(|t| deps(t).filter_map(|d| index.get(d).copied()).collect())
        .collect();
    dependency_order(&deps)
}

/// Whether `wf verify` takes a task up: completed, or reopened by an earlier verify.
pub fn verifiable(task: &Task) -> bool {
    task.status == crate::state::TaskStatus::Completed || task.reopened.is_some()
}

/// Why `task` must be checked again, given its `proof` as read ([`Task::proof`]) and
/// its inputs `now`, after the reasons `why` the caller already has (`wf verify
/// --all`); empty when it is up to date (`wf verify`, `wf show`).
pub fn stale_reasons(
    task: &Task,
    proof: Option<&Evidence>,
    now: &Inputs,
    mut why: Vec<String>,
) -> Vec<String> {
    if let Some(reason) = &task.reopened {
        why.push(format!("an earlier verify reopened it: {reason}"));
    }
    match proof {
        None if task.evidence.is_some() => {
            why.push("its recorded evidence does not read as evidence".into());
        }
        None => why
            .push("no evidence recorded (completed before wf kept evidence, or outside wf)".into()),
        Some(e) => why.extend(fingerprint::changes(&e.inputs, now)),
    }
    if why.is_empty() && !now.declared() {
        why.push("it declares no files, so nothing tells that its inputs are unchanged".into());
    }
    if why.is_empty() {
        why.extend(fingerprint::unhashed(now));
    }
    why
}

/// The fingerprint each dependency of `task` not in `upstream` has recorded in its
/// evidence: read before the inputs are computed, so that a task that cannot be read
/// is an error.
fn recorded_fingerprints(
    state: &WorkflowState,
    task: &Task,
    upstream: &std::collections::HashMap<String, String>,
) -> Result<std::collections::HashMap<String, Option<String>>> {
    task.deps
        .iter()
        .filter(|id| !upstream.contains_key(id.as_str()))
        .map(|id| Ok((id.clone(), recorded_fingerprint(state, id)?)))
        .collect()
}

/// The fingerprint a task's evidence records, if it has any.
pub fn recorded_fingerprint(state: &WorkflowState, id: &str) -> Result<Option<String>> {
    Ok(state
        .task(id)?
        .and_then(|t| t.evidence.as_ref())
        .and_then(crate::state::evidence::Proof::fingerprint)
        .map(str::to_string))
}

/// Positions `0..deps.len()`, each after the positions it depends on (`deps[i]`),
/// the lowest first among those ready (plan order); positions on a cycle, which an
/// import refuses, come last in order. `wf verify` and `wf proof check` take tasks
/// this way, so a dependency's fingerprint is known before its dependants'.
pub fn dependency_order(deps: &[Vec<usize>]) -> Vec<usize> {
    use std::cmp::Reverse;
    let mut waiting: Vec<usize> = deps.iter().map(Vec::len).collect();
    let mut dependants: Vec<Vec<usize>> = vec![Vec::new(); deps.len()];
    for (i, ds) in deps.iter().enumerate() {
        for &j in ds {
            dependants[j].push(i);
        }
    }
    let mut ready: std::collections::BinaryHeap<Reverse<usize>> = waiting
        .iter()
        .enumerate()
        .filter(|(_, &n)| n == 0)
        .map(|(i, _)| Reverse(i))
        .collect();
    let mut order = Vec::with_capacity(deps.len());
    let mut placed = vec![false; deps.len()];
    while let Some(Reverse(i)) = ready.pop() {
        order.push(i);
        placed[i] = true;
        for &k in &dependants[i] {
            waiting[k] -= 1;
            if waiting[k] == 0 {
                ready.push(Reverse(k));
            }
        }
    }
    order.extend((0..deps.len()).filter(|&i| !placed[i]));
    order
}

/// The claim-evidence rule on files (docs/proof.md "Agent work"): every file the
/// agent claims it changed must be among those the working tree saw change; with
/// `strict`, every change must be one the task declares. `Err` says which files break
/// it.
pub fn check_changes(claimed: &[String], seen: &Changes, strict: bool) -> Result<(), String> {
    let unchanged: Vec<&str> = claimed
        .iter()
        .map(String::as_str)
        .filter(|c| !seen.files.iter().any(|f| tree::covers(c, f)))
        .collect();
    if !unchanged.is_empty() {
        return Err(format!(
            "claimed to change {} but the working tree shows no change there",
            unchanged.join(", ")
        ));
    }
    if strict && !seen.undeclared.is_empty() {
        return Err(format!(
            "changed {}, which the task does not declare (wf.reject_undeclared_changes is on)",
            seen.undeclared.join(", ")
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claimed_file_must_have_changed_and_strict_refuses_undeclared_ones() {
        let seen = Changes {
            files: vec!["src/a.py".into(), "notes.txt".into()],
            undeclared: vec!["notes.txt".into()],
        };
        assert_eq!(check_changes(&["src/a.py".into()], &seen, false), Ok(()));
        assert_eq!(check_changes(&["./src/".into()], &seen, false), Ok(()));
        let err = check_changes(&["src/a.py".into(), "src/b.py".into()], &seen, false).unwrap_err();
        assert!(err.starts_with("claimed to change src/b.py but"), "{err}");
        let err = check_changes(&[], &seen, true).unwrap_err();
        assert!(
            err.starts_with("changed notes.txt, which the task does not declare"),
            "{err}"
        );
    }
}
