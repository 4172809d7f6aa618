//! The proof a task completes with (docs/proof.md): its evidence, built from the
//! outcome when it completes, and the verification cache — asked before a command
//! task runs (a hit completes it as up to date, nothing run) and told after one
//! passed.

use crate::state::event::TaskMove;

use crate::error::Result;
use crate::proof::{self, cache, cache::Cache, fingerprint, tree};
use crate::run::engine::{Engine, TaskResult};
use crate::run::policy::needs_agent;
use crate::run::work::{CheckRun, TaskOutcome, Verdict, WorkCtx};
use crate::state::evidence::{Changes, Evidence, Inputs};
use crate::state::model::Task;
use crate::state::{Session, TaskStatus};

/// Completes `task` on `evidence` with nothing run (a cache hit, `wf verify`): in
/// progress as its next attempt, then completed, verified; `how` marks both moves.
pub(crate) fn pass_unrun(
    session: &mut Session,
    task: &Task,
    how: TaskMove,
    evidence: Evidence,
) -> Result<()> {
    let next = TaskMove {
        attempt: Some(task.attempts + 1),
        ..how.clone()
    };
    session.set_task_status(&task.id, TaskStatus::InProgress, next, None)?;
    let done = TaskMove {
        verified: Some(true),
        cached: evidence.cached,
        ..how
    };
    session.complete_task(&task.id, done, evidence).map(drop)
}

impl Engine<'_> {
    /// The evidence `task` completes with: the inputs as they are now (the files the
    /// checks just passed on), and what the outcome ran and saw.
    pub(super) fn evidence(&self, task: &Task, outcome: &TaskOutcome) -> Result<Evidence> {
        let state = self.session.state()?;
        Ok(Evidence {
            at: crate::clock::now_rfc3339(),
            inputs: proof::inputs_now(&self.ctx.project, state, task)?,
            checks: CheckRun::evidence(&outcome.checks),
            executor: state.task(&task.id)?.and_then(|t| t.executor.clone()),
            claim: outcome.claim.clone(),
            changes: outcome.changes.clone(),
            cached: false,
            runner: None,
            derived: outcome.derived.clone(),
        })
    }

    /// The cache this run may answer `task` from, and record it in ([`cacheable`]);
    /// none with `--no-cache`.
    fn cache_for(&self, task: &Task) -> Option<&Cache> {
        cacheable(task, &self.ctx.config)
            .then_some(self.cache.as_ref())
            .flatten()
    }

    /// The cache's pass of `task` on its inputs as they are now, if it has one that
    /// answers for it ([`cache::Record::answers`]).
    fn cached_pass(&self, task: &Task) -> Result<Option<(Inputs, cache::Record)>> {
        // A cache with no record for this task (a first run, or a first pass over
        // it) answers nothing for it: no file is hashed to ask it.
        let Some(cache) = self.cache_for(task).filter(|c| c.may_hold(&task.id)) else {
            return Ok(None);
        };
        let inputs = proof::inputs_now(&self.ctx.project, self.session.state()?, task)?;
        if !fingerprint::tells(&inputs) {
            return Ok(None);
        }
        Ok(cache
            .get(&inputs.fingerprint)
            .filter(|r| r.answers(&check_argvs(task)))
            .map(|r| (inputs, r)))
    }

    /// Records a passing command task's checks in the cache, when its inputs are
    /// declared (else a fingerprint cannot tell they changed) and something checked
    /// it. Written at the next checkpoint ([`Engine::flush_cache`]).
    pub(super) fn remember(&self, task: &Task, evidence: &Evidence) {
        let Some(cache) = self.cache_for(task) else {
            return;
        };
        if fingerprint::tells(&evidence.inputs) && !evidence.checks.is_empty() {
            cache.put(&evidence.inputs.fingerprint, &task.id, &evidence.checks);
        }
    }

    /// Writes what passed since the last checkpoint to the cache. A cache that cannot
    /// be written is said, never a failure of the run (it costs re-runs later).
    pub(super) fn flush_cache(&mut self) {
        if let Some(Err(e)) = self.cache.as_ref().map(Cache::flush) {
            self.reporter.problem(&e.message);
        }
    }

    /// Completes `task` without running it when the cache has passed its checks on
    /// inputs with the fingerprint they have now; `Ok(false)` when it must run.
    pub(super) fn complete_if_cached(&mut self, task: &Task) -> Result<bool> {
        let answer = self.cached_pass(task);
        if let Some(cache) = &self.cache {
            for warning in cache.warnings() {
                self.reporter.problem(&warning);
            }
        }
        let Some((inputs, record)) = answer? else {
            return Ok(false);
        };
        let evidence = Evidence {
            at: record.at,
            inputs,
            checks: record.checks,
            executor: None,
            claim: None,
            changes: None,
            cached: true,
            runner: None,
            derived: Vec::new(),
        };
        let cached = TaskMove {
            cached: true,
            ..TaskMove::default()
        };
        pass_unrun(self.session, task, cached, evidence)?;
        self.done += 1;
        if let Some(i) = self.session.state()?.position(&task.id) {
            self.queue.done(i);
        }
        self.summary.cached += 1;
        if let Some(current) = self.task(&task.id)? {
            self.summary.tasks.push(TaskResult {
                id: current.id.clone(),
                status: current.status,
                attempt: current.attempts,
                duration_ms: 0,
                log: None,
                reason: None,
                failed_checks: Vec::new(),
                cached: true,
            });
        }
        self.reporter.up_to_date(task);
        let (done, total) = self.counts()?;
        self.reporter.progress(done, total);
        Ok(true)
    }
}

/// Whether the cache may answer for `task` at all: not an agent task (its work is
/// the agent's, not a check's), not a quality gate or a task that runs the project's
/// tests (they read the whole project, not the files the task declares), not one that
/// commits (skipping it would skip the commit), not one the config marks uncached.
pub fn cacheable(task: &Task, config: &crate::config::Config) -> bool {
    !needs_agent(task)
        && !task.quality_gate
        && !task.has_action("run_tests")
        && !task.has_action("git_commit")
        && !config.wf.uncached_tasks.contains(&task.id)
}

/// The argv of each check `task`'s commands spawn, in order: what a cache record
/// must hold to answer for it.
pub fn check_argvs(task: &Task) -> Vec<Vec<String>> {
    task.check_commands()
        .map(|c| crate::exec::process::Program::Shell(c.to_string()).argv())
        .collect()
}

/// What changed in the working tree since `task` was handed off (none outside git,
/// or for a task handed off before wf wrote the tree down).
pub fn changes_since(project: &std::path::Path, task: &Task) -> Option<Changes> {
    let base = task.base_tree.as_deref()?;
    let now = tree::snapshot(project)?;
    tree::changes(project, base, &now, &fingerprint::declared_files(task))
}

/// Puts the changes a handed-off task came back with into its outcome, and fails a
/// passing one whose changes break the claim-evidence rule on files (an undeclared
/// change, when `wf.reject_undeclared_changes` is on: a hand-off's claim is not
/// known here).
pub fn judge_changes(ctx: &WorkCtx, outcome: &mut TaskOutcome, changes: Option<Changes>) {
    let Some(seen) = changes else {
        return;
    };
    let strict = ctx.config.wf.reject_undeclared_changes == Some(true);
    if let (Verdict::Passed { .. }, Err(why)) =
        (&outcome.verdict, proof::check_changes(&[], &seen, strict))
    {
        outcome.verdict = Verdict::Failed {
            reason: format!("the agent's work does not match: {why}"),
        };
    }
    outcome.changes = Some(seen);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_command_tasks_are_answered_from_the_cache() {
        let config = crate::config::Config::default();
        let command = Task {
            id: "T1".into(),
            verify: vec!["true".into()],
            ..Task::default()
        };
        assert!(cacheable(&command, &config));
        let with = |f: &dyn Fn(&mut Task)| {
            let mut t = command.clone();
            f(&mut t);
            cacheable(&t, &config)
        };
        assert!(
            !with(&|t| t.quality_gate = true),
            "a gate reads the whole project"
        );
        assert!(!with(&|t| t.actions = vec!["run_tests".into()]));
        assert!(
            !with(&|t| t.actions = vec!["git_commit".into()]),
            "skipping it skips the commit"
        );
        assert!(
            !with(&|t| t.actions = vec!["create_file".into()]),
            "an agent's work"
        );
        let mut marked = config.clone();
        marked.wf.uncached_tasks = vec!["T1".into()];
        assert!(!cacheable(&command, &marked));
    }
}
