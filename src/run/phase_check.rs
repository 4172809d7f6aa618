//! A phase's checkpoint (docs/proof.md "Checkpoints"): the project's tests run as
//! the phase's first line-checked task starts (the baseline, kept in the state) and
//! again when its last task completes. The phase completes only when no test that
//! passed at its start fails now, and every test its tasks wrote that is due at
//! its end passes; otherwise the task that closes it fails, naming the tests. A
//! failure that was there at the start is said, not blamed on the phase.
//!
//! spec-kit marks a phase's end with a `**Checkpoint**:` line, other formats with
//! their next phase heading; wf takes every phase's end that has work checked by
//! its line (a phase of command tasks has its own checks) — from the generic task
//! fields alone, whatever the plan's format.

use crate::state::model::Glance;
use std::collections::BTreeMap;

use crate::error::Result;
use crate::proof::derive;
use crate::proof::runner::Runner;
use crate::proof::testout;
use crate::run::derived;
use crate::run::engine::Engine;
use crate::run::work::{self, TaskOutcome, Verdict};
use crate::state::evidence::{DerivedCheck, DerivedKind, DerivedResult};
use crate::state::model::{PhaseBaseline, Task};

/// Most test names a baseline keeps of each list.
const MAX_NAMES: usize = 20_000;

impl Engine<'_> {
    /// Whether work of `task`'s story is still ahead of it: asked only for a task
    /// that writes tests (`derived::Returning::before_implementation`).
    pub(super) fn before_implementation(&self, task: &Task) -> Result<bool> {
        let checks = derived::config_checks(&self.ctx.config);
        if !work::derivable(task) || !derive::writes_tests(task, &checks) {
            return Ok(false);
        }
        let state = self.session.state()?;
        let Some(pos) = state.position(&task.id) else {
            return Ok(false);
        };
        // One task at a time: the first that is ahead ends the look, unread the rest.
        for later in state.tasks[pos + 1..]
            .iter()
            .filter(|t| !t.status().is_done())
        {
            if derive::implementation_ahead(task, [later.task()?]) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The project's tests as `task` starts, when it is checked by its line and its
    /// phase has no baseline yet: the `phase_baseline` of its start (folded into
    /// the state's `phase_baselines`). None in a rehearsal.
    pub(super) fn phase_baseline(
        &self,
        task: &Task,
        attempt: u32,
    ) -> Result<Option<PhaseBaseline>> {
        if self.pool.mock().is_some()
            || !work::derivable(task)
            || self
                .session
                .state()?
                .phase_baselines
                .contains_key(&task.phase)
        {
            return Ok(None);
        }
        // A log of its own: the task's log is what its checks printed.
        let log = self
            .ctx
            .log_for(task, attempt)
            .with_extension("phase-start.log");
        let unavailable = |why| PhaseBaseline {
            at: crate::clock::now_rfc3339(),
            unavailable: Some(why),
            ..PhaseBaseline::default()
        };
        let baseline = match Runner::detect(&self.ctx.project, &self.ctx.config) {
            Err(why) => unavailable(why),
            Ok(runner) => {
                work::append_header(&log, "phase start: the project's tests, for its checkpoint");
                let (exit_code, results) = match self.suite(task, attempt, &runner, &log) {
                    Ok(ran) => ran,
                    // Taken again at the next start.
                    Err(NoSuite::Interrupted) => return Ok(None),
                    Err(NoSuite::CannotRun(why)) => return Ok(Some(unavailable(why))),
                };
                let names = |pass: bool| {
                    results
                        .iter()
                        .filter(|(_, &p)| p == pass)
                        .map(|(n, _)| n.clone())
                        .take(MAX_NAMES)
                        .collect()
                };
                PhaseBaseline {
                    at: crate::clock::now_rfc3339(),
                    exit_code,
                    passed: names(true),
                    failed: names(false),
                    unavailable: None,
                }
            }
        };
        Ok(Some(baseline))
    }

    /// Runs the phase's checkpoint when `outcome` completes the last open task of
    /// a phase with a baseline: a regression, or a test due at its end that fails,
    /// fails the outcome; what it found goes into the outcome's derived checks.
    pub(super) fn close_phase(&mut self, task: &Task, outcome: &mut TaskOutcome) -> Result<()> {
        if !matches!(outcome.verdict, Verdict::Passed { .. }) || self.pool.mock().is_some() {
            return Ok(());
        }
        let state = self.session.state()?;
        let Some(baseline) = state.phase_baselines.get(&task.phase).cloned() else {
            return Ok(());
        };
        // The phase's other open tasks are read until one is found, not all of them.
        for t in &state.tasks {
            if t.id() != task.id && !t.status().is_done() && t.task()?.phase == task.phase {
                return Ok(());
            }
        }
        let tasks = state.whole_tasks()?;
        let due = derive::due_green(
            &tasks,
            &task.phase,
            &derived::config_checks(&self.ctx.config),
        );
        let attempt = task.attempts.max(1);
        let checkpoint =
            |result, note| derived::derived(DerivedKind::Checkpoint, &task.phase, result, note);
        let cannot_run = |why| {
            let note = format!("the project's tests cannot run here: {why}");
            checkpoint(DerivedResult::CannotRun, note)
        };
        let detected = Runner::detect(&self.ctx.project, &self.ctx.config);
        let runner = match (baseline.unavailable.clone(), detected) {
            (Some(why), _) | (None, Err(why)) => {
                outcome.derived.push(cannot_run(why));
                return Ok(());
            }
            (None, Ok(runner)) => runner,
        };
        let log = self.ctx.log_for(task, attempt);
        work::append_header(
            &log,
            "phase end: the project's tests, against the phase's start",
        );
        let mut failures = Vec::new();
        match self.suite(task, attempt, &runner, &log) {
            Err(NoSuite::Interrupted) => {
                outcome.verdict = Verdict::Interrupted;
                return Ok(());
            }
            Err(NoSuite::CannotRun(why)) => outcome.derived.push(cannot_run(why)),
            Ok((exit_code, now)) => {
                let found = compare(&baseline, exit_code, &now, &runner.suite().display());
                let result = match &found.regressed {
                    Some(blame) => {
                        failures.push(format!("checkpoint of `{}`: {blame}", task.phase));
                        DerivedResult::Failed
                    }
                    None => DerivedResult::Passed,
                };
                outcome.derived.push(checkpoint(result, found.note));
            }
        }
        for path in due {
            let program = match derived::test_program(&runner, &path) {
                Ok(p) => p,
                Err(why) => {
                    outcome.derived.push(derived::cannot_test(&path, &why));
                    continue;
                }
            };
            let watch = crate::run::signals::InterruptWatch::start(self.ctx.children.clone());
            let ran = crate::exec::reactor::block_on(derived::run(
                &self.ctx, task, attempt, &log, "test", program,
            ));
            drop(watch);
            let (exit, run, _) = match ran {
                Ok(ran) => ran,
                Err(v) => {
                    outcome.verdict = v;
                    return Ok(());
                }
            };
            let (result, note) = if exit.success() {
                let note = format!("{path} passes at the end of its phase");
                (DerivedResult::Passed, note)
            } else {
                let (how, phase) = (exit.describe(), &task.phase);
                failures.push(format!("{path} {how} at the end of its phase `{phase}`"));
                let note = format!("{path} still fails at the end of its phase");
                (DerivedResult::Failed, note)
            };
            outcome.derived.push(DerivedCheck {
                run: Some(run),
                ..derived::derived(DerivedKind::Test, &path, result, note)
            });
        }
        if !failures.is_empty() {
            outcome.verdict = Verdict::Failed {
                reason: failures.join("; "),
            };
        }
        Ok(())
    }

    /// The whole suite, run for `task` on this thread: its exit code and each
    /// test's result.
    fn suite(
        &self,
        task: &Task,
        attempt: u32,
        runner: &Runner,
        log: &std::path::Path,
    ) -> std::result::Result<(Option<i32>, BTreeMap<String, bool>), NoSuite> {
        if let Some(why) = runner.missing(&self.ctx.project) {
            return Err(NoSuite::CannotRun(why));
        }
        let program = derived::on_path(runner.suite()).map_err(NoSuite::CannotRun)?;
        let _watch = crate::run::signals::InterruptWatch::start(self.ctx.children.clone());
        let (exit, _, printed) = crate::exec::reactor::block_on(derived::run(
            &self.ctx,
            task,
            attempt,
            log,
            "checkpoint",
            program,
        ))
        .map_err(|_| NoSuite::Interrupted)?;
        Ok((exit.code(), testout::results(&printed)))
    }
}

/// Why the suite gave no results.
enum NoSuite {
    /// It cannot run here: no runner, or one not installed.
    CannotRun(String),
    Interrupted,
}

/// What a checkpoint found against its baseline.
#[derive(Debug, PartialEq, Eq)]
struct Compared {
    /// The regression that fails the phase, in words; none when there is none.
    regressed: Option<String>,
    /// Everything it found, for the evidence.
    note: String,
}

/// The suite now (`exit_code`, each test's result) against `baseline`: the tests
/// that passed then and fail now are regressions; without test names on both
/// sides, the command's own exit is compared. `command` names the suite.
fn compare(
    baseline: &PhaseBaseline,
    exit_code: Option<i32>,
    now: &BTreeMap<String, bool>,
    command: &str,
) -> Compared {
    let list = |names: &[&String]| {
        const SHOWN: usize = 10;
        let mut text: Vec<String> = names.iter().take(SHOWN).map(|n| (*n).clone()).collect();
        if names.len() > SHOWN {
            text.push(format!("and {} more", names.len() - SHOWN));
        }
        text.join(", ")
    };
    let failing: Vec<&String> = now.iter().filter(|(_, &p)| !p).map(|(n, _)| n).collect();
    if baseline.passed.is_empty() && baseline.failed.is_empty() || now.is_empty() {
        // No names to compare: the command's exit decides.
        let was = baseline.exit_code == Some(0);
        let is = exit_code == Some(0);
        return match (was, is) {
            (true, false) => Compared {
                regressed: Some(format!(
                    "`{command}` passed at the phase's start and fails now"
                )),
                note: format!("`{command}` passed at the phase's start and fails now"),
            },
            (false, false) => Compared {
                regressed: None,
                note: format!(
                    "`{command}` fails, as it did at the phase's start (not this phase's doing)"
                ),
            },
            (_, true) => Compared {
                regressed: None,
                note: format!("`{command}` passes"),
            },
        };
    }
    let regressed: Vec<&String> = failing
        .iter()
        .copied()
        .filter(|n| baseline.passed.contains(n))
        .collect();
    let before: Vec<&String> = failing
        .iter()
        .copied()
        .filter(|n| !baseline.passed.contains(n))
        .collect();
    let mut note = format!(
        "{} of {} tests pass",
        now.values().filter(|&&p| p).count(),
        now.len()
    );
    if !before.is_empty() {
        note.push_str(&format!(
            "; failing but not passing at the phase's start (not blamed on it): {}",
            list(&before)
        ));
    }
    if regressed.is_empty() {
        return Compared {
            regressed: None,
            note,
        };
    }
    let blame = format!(
        "{} passed at the phase's start and fail{} now",
        list(&regressed),
        if regressed.len() == 1 { "s" } else { "" }
    );
    Compared {
        regressed: Some(blame.clone()),
        note: format!("{blame}; {note}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline(passed: &[&str], failed: &[&str], exit: i32) -> PhaseBaseline {
        PhaseBaseline {
            at: String::new(),
            exit_code: Some(exit),
            passed: passed.iter().map(|s| (*s).to_string()).collect(),
            failed: failed.iter().map(|s| (*s).to_string()).collect(),
            unavailable: None,
        }
    }

    fn now(results: &[(&str, bool)]) -> BTreeMap<String, bool> {
        results
            .iter()
            .map(|(n, p)| ((*n).to_string(), *p))
            .collect()
    }

    #[test]
    fn a_test_that_passed_at_the_start_and_fails_now_is_a_regression() {
        let c = compare(
            &baseline(&["adds", "subs"], &["old"], 1),
            Some(1),
            &now(&[
                ("adds", false),
                ("subs", true),
                ("old", false),
                ("new", false),
            ]),
            "./t",
        );
        assert_eq!(
            c.regressed.as_deref(),
            Some("adds passed at the phase's start and fails now")
        );
        assert!(c.note.contains("not blamed on it): new, old"), "{}", c.note);
    }

    #[test]
    fn old_failures_are_said_not_blamed() {
        let c = compare(
            &baseline(&["adds"], &["old"], 1),
            Some(1),
            &now(&[("adds", true), ("old", false)]),
            "./t",
        );
        assert_eq!(c.regressed, None);
        assert!(c.note.starts_with("1 of 2 tests pass"), "{}", c.note);
    }

    #[test]
    fn without_test_names_the_exit_decides() {
        let none = BTreeMap::new();
        assert!(compare(&baseline(&[], &[], 0), Some(2), &none, "make test")
            .regressed
            .is_some());
        assert!(compare(&baseline(&[], &[], 2), Some(2), &none, "make test")
            .regressed
            .is_none());
        assert!(compare(&baseline(&[], &[], 2), Some(0), &none, "make test")
            .regressed
            .is_none());
    }
}
