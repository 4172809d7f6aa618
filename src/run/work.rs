//! Doing one task: its checks, its test verifier, its quality gate, its commit — a
//! future, driven on the scheduler's thread in a run (`run::dispatch`). The
//! scheduler decides *whether* a task runs; this decides what running it means
//! (docs/execution.md "Doing a task").
//!
//! Order: the task's commands (验证命令, then backticked step checks) through
//! `sh -c` in the project; `run_tests` through the project's test verifier; for a
//! quality gate the builtin verifiers, scored against the threshold, and every hard
//! constraint's `verifyCmd`, each of which must pass; `git_commit`
//! last, with `git add -A` and `git commit -F <file>` (no shell, no interpolation).
//! The first failure ends the attempt; its reason names what failed.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::config::Config;
use crate::exec::process::{self, Children, Exit, Program, Spec};
use crate::exec::verifier::{self, Verifier};
use crate::run::derived::Returning;
use crate::state::evidence::DerivedCheck;
use crate::state::model::{Constraint, Task};

use crate::exec::DEFAULT_TIMEOUT;

/// Everything a worker needs that is the same for every task of a run.
#[derive(Clone)]
pub struct WorkCtx {
    pub project: PathBuf,
    pub workflow_dir: PathBuf,
    /// Where each attempt's log goes: `<workflow dir>/logs`, or `logs/verify` for
    /// the checks `wf verify` runs again (so a task's own logs stay its attempts').
    pub logs: PathBuf,
    pub config: Config,
    pub children: Children,
    /// The workflow's hard constraints: each one with a `verifyCmd` must hold at
    /// every quality gate (docs/constraints.md).
    pub hard_constraints: Vec<Constraint>,
    /// `-v`: where each line a task's commands print is shown as it comes (the task's
    /// id, the line), besides the task's log.
    pub echo: Option<TaskEcho>,
}

/// Shows one line of a task's output: the task's id, then the line.
pub type TaskEcho = std::sync::Arc<dyn Fn(&str, &str) + Send + Sync>;

/// One command of a task and how it ended.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CheckRun {
    /// What the command was for: `check`, `run_tests`, a builtin verifier's name.
    pub what: String,
    /// The command as the plan (or the verifier) gives it.
    pub command: String,
    /// What was spawned: the words of a plain line, else `/bin/sh -c LINE`.
    pub argv: Vec<String>,
    /// Its exit code when it exited (none when killed, timed out or never started).
    pub exit_code: Option<i32>,
    /// How it ended in words: "exited with 0", "timed out after 10s", …
    pub outcome: String,
    pub duration_ms: u64,
    /// Its part of the attempt's log (the log holds every command's): its `$ command`
    /// line and what it printed; none when it wrote nothing there.
    #[serde(skip)]
    pub log_part: Option<std::ops::Range<u64>>,
    /// `sha256:` of what it printed (that part of the log); none when it printed
    /// nothing. Kept in the task's evidence (docs/proof.md).
    #[serde(skip)]
    pub log_digest: Option<String>,
}

impl CheckRun {
    /// The checks among `runs`, as a task's evidence keeps them (docs/proof.md): the
    /// commit is not a check.
    pub fn evidence<'a>(
        runs: impl IntoIterator<Item = &'a CheckRun>,
    ) -> Vec<crate::state::evidence::CheckEvidence> {
        runs.into_iter()
            .filter(|c| c.what != "git_commit")
            .map(|c| crate::state::evidence::CheckEvidence {
                what: c.what.clone(),
                argv: c.argv.clone(),
                exit_code: c.exit_code,
                duration_ms: c.duration_ms,
                log_digest: c.log_digest.clone(),
            })
            .collect()
    }
}

/// Which part of a task to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Everything: checks, tests, gate, commit.
    Full,
    /// Everything but the commit: `wf run-task` on a machine whose commits go
    /// nowhere (a CI checkout, docs/distributed.md).
    Standalone,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// `verified` is false when the task had nothing that could check it.
    Passed {
        verified: bool,
    },
    Failed {
        reason: String,
    },
    /// The executor never started (a dispatch failure, docs/executors.md); `unrecoverable` when
    /// retrying cannot help (its program is missing).
    DispatchFailed {
        reason: String,
        unrecoverable: bool,
    },
    Interrupted,
}

#[derive(Debug, Clone)]
pub struct TaskOutcome {
    pub task_id: String,
    pub verdict: Verdict,
    /// The quality-gate record for `quality_gates[<task id>]`, for a gate task.
    pub gate: Option<Value>,
    /// The attempt's log, relative to the workflow dir.
    pub log: String,
    pub duration: Duration,
    /// What the task's executors reported they used, added up (none for a command
    /// task, or when no executor reported usage).
    pub usage: Option<crate::run::usage::Usage>,
    /// Every command the attempt ran, in order: the task's evidence when it passed.
    pub checks: Vec<CheckRun>,
    /// What the agent claimed, when it did.
    pub claim: Option<crate::state::evidence::ClaimEvidence>,
    /// What the working tree saw change while the agent worked (in git).
    pub changes: Option<crate::state::evidence::Changes>,
    /// The checks derived from the task's line and what they found (a task with no
    /// command of its own: `src/run/derived.rs`).
    pub derived: Vec<DerivedCheck>,
    /// What its `git_commit` did, when it has one and got that far.
    pub commit: Option<crate::state::event::Commit>,
}

impl TaskOutcome {
    /// The outcome of what `ran`, with no executor's usage, claim or changes.
    pub fn new(task: &str, verdict: Verdict, ran: Ran, log: String, duration: Duration) -> Self {
        TaskOutcome {
            task_id: task.to_string(),
            verdict,
            gate: ran.gate,
            log,
            duration,
            usage: None,
            checks: ran.checks,
            claim: None,
            changes: None,
            derived: ran.derived,
            commit: ran.commit,
        }
    }
}

/// What checking a task ran and found: its gate's record, its commands, its
/// derived checks, its commit.
#[derive(Debug, Default)]
pub struct Ran {
    pub gate: Option<Value>,
    pub checks: Vec<CheckRun>,
    pub derived: Vec<DerivedCheck>,
    pub commit: Option<crate::state::event::Commit>,
}

impl WorkCtx {
    /// A run's context: no command recorded one by one (see `record`).
    pub fn new(
        project: PathBuf,
        workflow_dir: PathBuf,
        config: Config,
        hard_constraints: Vec<Constraint>,
    ) -> WorkCtx {
        WorkCtx {
            project,
            logs: workflow_dir.join("logs"),
            workflow_dir,
            config,
            children: Children::default(),
            hard_constraints,
            echo: None,
        }
    }

    /// The context of a run of `session`'s workflow for the project in
    /// `project_dir`: its logs in the workflow dir, its hard constraints checked at
    /// every gate.
    pub fn for_session(
        project_dir: &Path,
        config: &Config,
        session: &crate::state::Session,
    ) -> crate::error::Result<WorkCtx> {
        Ok(WorkCtx::new(
            project_dir.to_path_buf(),
            session.store().dir().to_path_buf(),
            config.clone(),
            session.state()?.constraints.hard.clone(),
        ))
    }

    pub(crate) fn log_for(&self, task: &Task, attempt: u32) -> PathBuf {
        // The directory is made with the first log written (`process::open_log`).
        process::log_path(&self.logs, &task.id, attempt)
    }

    /// `path` from the workflow dir, as `display()` shows it.
    pub(crate) fn relative(&self, path: &Path) -> String {
        path.strip_prefix(&self.workflow_dir)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned()
    }

    /// How long one command of `task` may run: the task's own timeout, else the
    /// project's, else [`DEFAULT_TIMEOUT`].
    pub fn timeout(&self, task: &Task) -> Duration {
        task.timeout_secs
            .or(self.config.wf.timeout_secs)
            .map_or(DEFAULT_TIMEOUT, Duration::from_secs)
    }

    pub(crate) fn env(&self, task: &Task, attempt: u32) -> Vec<(String, String)> {
        vec![
            ("WF_TASK_ID".into(), task.id.clone()),
            (
                "WF_PROJECT_DIR".into(),
                self.project.to_string_lossy().into_owned(),
            ),
            (
                "WF_WORKFLOW_DIR".into(),
                self.workflow_dir.to_string_lossy().into_owned(),
            ),
            ("WF_ATTEMPT".into(), attempt.to_string()),
        ]
    }

    /// Runs one program for `task` within `timeout`, its output appended to `log`
    /// (`$ program` first): how it ended, why the log could not be written if it
    /// could not, and which bytes of it are this program's.
    pub async fn run_program(
        &self,
        task: &Task,
        attempt: u32,
        program: &Program,
        log: &Path,
        timeout: Duration,
    ) -> process::Logged {
        // The log is created only if the command prints or fails (see `lazylog`).
        let header = program.display();
        let echo = self
            .echo
            .as_ref()
            .map(|echo| move |line: &str| echo(&task.id, line));
        process::run_logged(
            Spec {
                program: program.clone(),
                cwd: &self.project,
                env: self.env(task, attempt),
                timeout,
                log,
                stdin: None,
                on_start: None,
                log_cap: self.config.wf.log_cap(),
                echo: echo.as_ref().map(|e| e as _),
            },
            &header,
            &self.children,
        )
        .await
    }

    /// Runs one program for `task`, adding how it ended to `runs`; `Err` is the
    /// failure reason.
    pub(crate) async fn run(
        &self,
        task: &Task,
        attempt: u32,
        what: &str,
        program: Program,
        log: &Path,
        runs: &mut Vec<CheckRun>,
    ) -> Result<(), Verdict> {
        // A program that is not there fails with its name, not with a shell's 127.
        let not_on_path = |prog: &str| Verdict::Failed {
            reason: format!(
                "{what}: `{prog}` is not on PATH (needed by task {})",
                task.id
            ),
        };
        if let Some(prog) = process::missing_program(&program) {
            runs.push(CheckRun {
                what: what.to_string(),
                command: program.display(),
                argv: program.argv(),
                exit_code: None,
                outcome: format!("`{prog}` is not on PATH"),
                duration_ms: 0,
                log_part: None,
                log_digest: None,
            });
            return Err(not_on_path(&prog));
        }
        let started = Instant::now();
        let process::Logged {
            exit,
            log_error,
            written,
        } = self
            .run_program(task, attempt, &program, log, self.timeout(task))
            .await;
        runs.push(CheckRun {
            what: what.to_string(),
            command: program.display(),
            argv: program.argv(),
            exit_code: exit.code(),
            outcome: exit.describe(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            // A quiet command has no log to read: the common case costs nothing.
            log_digest: written
                .as_ref()
                .and_then(|part| crate::fs::read_range(log, part.clone()))
                .map(|bytes| crate::proof::fingerprint::sha256(&bytes)),
            log_part: written,
        });
        match exit {
            Exit::Code(0) => Ok(()),
            Exit::Interrupted => Err(Verdict::Interrupted),
            // Gone since it was found earlier in the run (`process::on_path`).
            Exit::NotOnPath(prog) => Err(not_on_path(&prog)),
            other => {
                let mut reason = format!("{what} `{}` {}", program.display(), other.describe());
                // The result stands without its log; say why there is none.
                if let Some(e) = log_error {
                    reason.push_str(&format!(" ({e})"));
                }
                Err(Verdict::Failed { reason })
            }
        }
    }
}

pub(crate) fn append_header(log: &Path, line: &str) {
    use std::io::Write;
    if let Ok(mut f) = process::open_log(log) {
        let _ = writeln!(f, "$ {line}");
    }
}

/// Does `part` of `task` (attempt number `attempt`), logging to its own file: a
/// future (see `exec::reactor`), driven by the run's scheduler or `block_on`.
/// `returning`: the task comes back from its agent (see [`check_task`]).
pub async fn do_task(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    part: Part,
    returning: Option<Returning<'_>>,
) -> TaskOutcome {
    let started = Instant::now();
    let log = ctx.log_for(task, attempt);
    let mut ran = Ran::default();
    let verdict = match check_task(ctx, task, attempt, part, &log, returning, &mut ran).await {
        Ok(verified) => Verdict::Passed { verified },
        Err(v) => v,
    };
    TaskOutcome::new(
        &task.id,
        verdict,
        ran,
        ctx.relative(&log),
        started.elapsed(),
    )
}

/// Whether `task` is checked by what its line names: an agent's work with no
/// command of its own (docs/proof.md "Derived checks").
pub fn derivable(task: &Task) -> bool {
    crate::run::engine::needs_agent(task) && !crate::proof::derive::has_commands(task)
}

/// Every check of `task`: for one [`derivable`], the checks derived from its line
/// first (`returning` when it comes back from its agent; none when it is checked
/// again later), then [`run_parts`]. `Ok(verified)`: whether anything checked it.
pub(crate) async fn check_task(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    part: Part,
    log: &Path,
    returning: Option<Returning<'_>>,
    ran: &mut Ran,
) -> Result<bool, Verdict> {
    let mut verified = false;
    if derivable(task) {
        verified = crate::run::derived::check(ctx, task, attempt, log, returning, &mut ran.derived)
            .await?;
    }
    let parts = run_parts(ctx, task, attempt, part, log, ran).await?;
    Ok(verified || parts)
}

/// `Ok(verified)`: whether anything actually checked the task. Every command run
/// is added to `ran.checks`, the gate's record and the commit to theirs.
pub(crate) async fn run_parts(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    part: Part,
    log: &Path,
    ran: &mut Ran,
) -> Result<bool, Verdict> {
    let runs = &mut ran.checks;
    let mut verified = false;
    for cmd in task.check_commands() {
        let program = Program::Shell(cmd.to_string());
        ctx.run(task, attempt, "check", program, log, runs).await?;
        verified = true;
    }
    // A derivable task's files are its derived checks' (`check_task`).
    if crate::run::engine::needs_agent(task) && !derivable(task) {
        verified |= check_declared_files(ctx, task)?;
    }
    // A gate runs the test verifier itself; running it twice proves nothing more.
    if task.has_action("run_tests") && !task.quality_gate {
        let program = verifier::resolve(Verifier::Test, &ctx.project, &ctx.config)
            .program("test")
            .map_err(|reason| Verdict::Failed {
                reason: format!("run_tests: {reason}"),
            })?;
        ctx.run(task, attempt, "run_tests", program, log, runs)
            .await?;
        verified = true;
    }
    if task.quality_gate {
        let (record, result) = crate::run::gate::quality_gate(ctx, task, attempt, log, runs).await;
        ran.gate = record;
        result?;
        verified = true;
    }
    if task.has_action("git_commit") && part == Part::Full {
        ran.commit = Some(crate::run::commit::git_commit(ctx, task, attempt, log, runs).await?);
    }
    Ok(verified)
}

/// The files `task` declares it creates — for a [`derivable`] task, those its line
/// creates too (docs/proof.md "Derived checks") — that are not in `project`.
pub fn missing_declared_files(project: &Path, task: &Task) -> Vec<String> {
    let made: Vec<String> = if derivable(task) {
        crate::proof::derive::derive(task, &[])
            .into_iter()
            .filter_map(|d| match d {
                crate::proof::derive::Derived::Exists(path) => Some(path),
                _ => None,
            })
            .collect()
    } else {
        task.creates.clone()
    };
    made.into_iter()
        .filter(|f| !project.join(f).exists())
        .collect()
}

/// Every file the task declared it creates must exist: a claim needs evidence.
fn check_declared_files(ctx: &WorkCtx, task: &Task) -> Result<bool, Verdict> {
    let missing = missing_declared_files(&ctx.project, task);
    if !missing.is_empty() {
        return Err(Verdict::Failed {
            reason: format!("declared files are missing: {}", missing.join(", ")),
        });
    }
    Ok(!task.creates.is_empty())
}

/// The files `task` declares it makes (`file`, `creates`) that exist now: after an
/// interrupted attempt, each may be half-written. They are named, never deleted.
pub fn partial_outputs(project: &Path, task: &Task) -> Vec<String> {
    let mut named: Vec<String> = Vec::new();
    for f in task.file.iter().chain(&task.creates) {
        if !named.contains(f) && project.join(f).symlink_metadata().is_ok() {
            named.push(f.clone());
        }
    }
    named
}

/// "T3 was interrupted; it may have left a partial src/x.py", or nothing to say.
pub fn interrupted_note(task_id: &str, partial: &[String]) -> Option<String> {
    (!partial.is_empty()).then(|| {
        format!(
            "{task_id} was interrupted; it may have left a partial {} (check before trusting it)",
            partial.join(", ")
        )
    })
}

#[cfg(test)]
mod log_part_tests {
    use super::*;
    use crate::exec::reactor::block_on;
    use crate::proof::fingerprint::sha256;

    /// A work context whose project and workflow dirs are in a temp dir (kept alive
    /// by the returned guard).
    fn ctx_in_temp_dir() -> (tempfile::TempDir, WorkCtx) {
        let dir = tempfile::tempdir().unwrap();
        let ctx = WorkCtx::new(
            dir.path().to_path_buf(),
            dir.path().join("wf"),
            Config::default(),
            Vec::new(),
        );
        (dir, ctx)
    }

    #[test]
    fn each_check_digests_exactly_its_part_of_the_shared_log() {
        let (_dir, ctx) = ctx_in_temp_dir();
        let task = Task {
            id: "T1".into(),
            verify: vec![
                "echo one".into(),
                "true".into(),
                "echo two; echo err >&2".into(),
            ],
            ..Task::default()
        };
        let log = ctx.log_for(&task, 1);
        // Something already there (a header of wf's own) is no command's.
        append_header(&log, "before");
        let mut ran = Ran::default();
        let verified = block_on(run_parts(&ctx, &task, 1, Part::Full, &log, &mut ran));
        let runs = ran.checks;
        assert_eq!(verified, Ok(true));
        let first = "$ echo one\none\n";
        let third = "$ echo two; echo err >&2\ntwo\nerr\n";
        let text = std::fs::read_to_string(&log).unwrap();
        assert_eq!(text, format!("$ before\n{first}{third}"));
        let at = "$ before\n".len() as u64;
        let parts: Vec<_> = runs.iter().map(|r| r.log_part.clone()).collect();
        let second_at = at + first.len() as u64;
        assert_eq!(
            parts,
            [
                Some(at..second_at),
                None,
                Some(second_at..text.len() as u64)
            ]
        );
        let digests: Vec<_> = runs.iter().map(|r| r.log_digest.clone()).collect();
        assert_eq!(
            digests,
            [
                Some(sha256(first.as_bytes())),
                None,
                Some(sha256(third.as_bytes()))
            ]
        );
    }

    #[test]
    fn a_failed_check_owns_its_header_and_an_unstartable_one_nothing() {
        let (_dir, ctx) = ctx_in_temp_dir();
        let task = |cmd: &str| Task {
            id: "T2".into(),
            verify: vec![cmd.into()],
            ..Task::default()
        };
        let log = ctx.log_for(&task("false"), 1);
        let mut ran = Ran::default();
        let failed = block_on(run_parts(
            &ctx,
            &task("false"),
            1,
            Part::Full,
            &log,
            &mut ran,
        ));
        let runs = ran.checks;
        assert!(matches!(failed, Err(Verdict::Failed { .. })), "{failed:?}");
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "$ false\n");
        assert_eq!(runs[0].log_part, Some(0.."$ false\n".len() as u64));
        assert_eq!(runs[0].log_digest, Some(sha256(b"$ false\n")));
        let mut ran = Ran::default();
        let missing = task("wf-no-such-program --flag");
        let _ = block_on(run_parts(&ctx, &missing, 1, Part::Full, &log, &mut ran));
        let runs = ran.checks;
        assert_eq!(
            (runs[0].log_part.clone(), runs[0].log_digest.clone()),
            (None, None)
        );
    }
}
