//! The verification cache in a CI job (`wf run-task --cache DIR`, docs/distributed.md
//! "The verification cache in CI"): a task whose inputs passed its checks before, in
//! an earlier run of the same job, is answered from the cache instead of run again,
//! as `workflow-execute` answers it locally (`src/run/proven.rs`).
//!
//! The cache and its rule for answering are the local ones (`src/proof/cache.rs`:
//! the record must hold the task's own commands, each passed). What differs is the
//! fingerprint's upstream part: a CI job holds no evidence of the tasks before it
//! (they ran in other jobs), so each dependency's fingerprint is recomputed here from
//! the files as the job has them (its checkout and the outputs handed to it), all
//! the way up. A changed upstream file then changes the fingerprint, as the
//! recorded one would.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use crate::config::Config;
use crate::error::Result;
use crate::proof::cache::{Cache, Record};
use crate::proof::fingerprint;
use crate::run::proven::{cacheable, check_argvs};
use crate::run::standalone::ResultCheck;
use crate::run::work::CheckRun;
use crate::state::evidence::{CheckEvidence, Inputs};
use crate::state::model::{Task, WorkflowState};

/// A job's cache, and the fingerprints of the tasks upstream worked out so far.
pub struct CiCache<'a> {
    cache: Cache,
    project: &'a Path,
    state: &'a WorkflowState,
    config: &'a Config,
    upstream: HashMap<String, String>,
}

impl<'a> CiCache<'a> {
    pub fn open(
        dir: &Path,
        project: &'a Path,
        state: &'a WorkflowState,
        config: &'a Config,
    ) -> CiCache<'a> {
        CiCache {
            cache: Cache::new(dir.to_path_buf()),
            project,
            state,
            config,
            upstream: HashMap::new(),
        }
    }

    /// The cache's pass of `task` on its inputs as they are now, when it holds one
    /// that answers for it.
    pub fn pass(&mut self, task: &Task) -> Result<Option<Record>> {
        if !cacheable(task, self.config) || !self.cache.may_hold(&task.id) {
            return Ok(None);
        }
        let inputs = self.inputs(task)?;
        if !fingerprint::tells(&inputs) {
            return Ok(None);
        }
        Ok(self
            .cache
            .get(&inputs.fingerprint)
            .filter(|r| r.answers(&check_argvs(task))))
    }

    /// Keeps the checks `task` just passed, on its inputs as they are now, for the
    /// next run of this job; written by [`CiCache::flush`].
    pub fn remember(&mut self, task: &Task, checks: &[CheckEvidence]) -> Result<()> {
        if !cacheable(task, self.config) || checks.is_empty() {
            return Ok(());
        }
        let inputs = self.inputs(task)?;
        if fingerprint::tells(&inputs) {
            self.cache.put(&inputs.fingerprint, &task.id, checks);
        }
        Ok(())
    }

    /// Writes what was remembered as one new segment.
    pub fn flush(&self) -> Result<()> {
        self.cache.flush()
    }

    /// Lines of the cache that could not be read (a miss each, said).
    pub fn warnings(&self) -> Vec<String> {
        self.cache.warnings()
    }

    /// `task`'s inputs, each dependency's fingerprint computed from the files now,
    /// those of its own dependencies first (a walk with a stack, not recursion: a
    /// chain may be thousands of tasks long).
    fn inputs(&mut self, task: &Task) -> Result<Inputs> {
        let mut stack: Vec<(&str, bool)> = task.deps.iter().map(|d| (d.as_str(), false)).collect();
        let mut entered = HashSet::new();
        while let Some((id, deps_done)) = stack.pop() {
            if self.upstream.contains_key(id) {
                continue;
            }
            let Some(up) = self.state.task(id)? else {
                continue;
            };
            if deps_done {
                let inputs = self.inputs_given_upstream(up);
                self.upstream.insert(id.to_string(), inputs.fingerprint);
            } else if entered.insert(id) {
                // A cycle (which an import refuses) ends here instead of looping.
                stack.push((id, true));
                stack.extend(up.deps.iter().map(|d| (d.as_str(), false)));
            }
        }
        Ok(self.inputs_given_upstream(task))
    }

    fn inputs_given_upstream(&self, task: &Task) -> Inputs {
        fingerprint::inputs(
            self.project,
            task,
            |id| self.upstream.get(id).cloned(),
            |_| None,
        )
    }
}

/// A record's checks as a result reports them: each the task's own command (the
/// record answers only for those, in order), passed on the same inputs when the
/// record was made, not run here — so no output, only the digest it was recorded
/// with.
pub fn result_checks(task: &Task, record: &Record) -> Vec<ResultCheck> {
    task.check_commands()
        .zip(&record.checks)
        .map(|(command, check)| ResultCheck {
            run: CheckRun {
                what: check.what.clone(),
                command: command.to_string(),
                argv: check.argv.clone(),
                exit_code: check.exit_code,
                outcome: format!(
                    "passed on the same inputs at {} (from the cache, not run again)",
                    record.at
                ),
                duration_ms: check.duration_ms,
                log_part: None,
                log_digest: check.log_digest.clone(),
            },
            log_tail: String::new(),
            log_digest: check.log_digest.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, deps: &[&str], file: &str) -> Task {
        Task {
            id: id.into(),
            deps: deps.iter().map(ToString::to_string).collect(),
            file: Some(file.into()),
            verify: vec!["true".into()],
            digest: format!("definition of {id}"),
            ..Task::default()
        }
    }

    fn state(tasks: Vec<Task>) -> WorkflowState {
        let mut state = WorkflowState::new();
        state.tasks = tasks
            .into_iter()
            .map(crate::state::task_ref::TaskRef::new)
            .collect();
        state
    }

    #[test]
    fn an_upstream_file_two_levels_up_changes_a_tasks_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.txt", "b.txt", "c.txt"] {
            std::fs::write(dir.path().join(f), f).unwrap();
        }
        let state = state(vec![
            task("T1", &[], "a.txt"),
            task("T2", &["T1"], "b.txt"),
            task("T3", &["T2"], "c.txt"),
        ]);
        let config = Config::default();
        let fingerprint = || {
            let mut cache = CiCache::open(&dir.path().join("cache"), dir.path(), &state, &config);
            cache
                .inputs(state.task("T3").unwrap().unwrap())
                .unwrap()
                .fingerprint
        };
        let before = fingerprint();
        assert_eq!(
            fingerprint(),
            before,
            "the same files give the same fingerprint"
        );
        std::fs::write(dir.path().join("a.txt"), "changed").unwrap();
        assert_ne!(fingerprint(), before, "T1's file is upstream of T3");
    }

    #[test]
    fn a_dependency_cycle_ends_the_walk() {
        let dir = tempfile::tempdir().unwrap();
        let state = state(vec![task("T1", &["T2"], "a"), task("T2", &["T1"], "b")]);
        let config = Config::default();
        let mut cache = CiCache::open(&dir.path().join("cache"), dir.path(), &state, &config);
        let inputs = cache.inputs(state.task("T1").unwrap().unwrap()).unwrap();
        assert_eq!(inputs.deps.len(), 1);
    }

    #[test]
    fn a_pass_is_answered_in_the_next_run_and_not_after_an_edit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one").unwrap();
        let state = state(vec![task("T1", &[], "a.txt")]);
        let config = Config::default();
        let t1 = state.task("T1").unwrap().unwrap();
        let checks = vec![CheckEvidence {
            what: "check".into(),
            argv: check_argvs(t1).remove(0),
            exit_code: Some(0),
            duration_ms: 3,
            log_digest: None,
        }];
        let cache_dir = dir.path().join("cache");
        let mut first = CiCache::open(&cache_dir, dir.path(), &state, &config);
        assert!(first.pass(t1).unwrap().is_none());
        first.remember(t1, &checks).unwrap();
        first.flush().unwrap();
        let mut second = CiCache::open(&cache_dir, dir.path(), &state, &config);
        let record = second.pass(t1).unwrap().expect("a pass on the same inputs");
        let reported = result_checks(t1, &record);
        assert_eq!(reported.len(), 1);
        assert_eq!(reported[0].run.command, "true");
        assert_eq!(reported[0].run.exit_code, Some(0));
        std::fs::write(dir.path().join("a.txt"), "two").unwrap();
        let mut third = CiCache::open(&cache_dir, dir.path(), &state, &config);
        assert!(
            third.pass(t1).unwrap().is_none(),
            "an edited input is run again"
        );
    }
}
