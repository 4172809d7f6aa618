//! Checking a task by what its line names, when it comes back from its agent
//! (docs/proof.md "Derived checks"): the checks `proof::derive` reads from the
//! line, run against the project — files against the tree the agent started from,
//! tests with the project's runner, `wf.checks` commands with their files.
//!
//! Files first (cheap, and every failure named at once), then commands and tests.
//! What cannot be told here (no git: nothing says what changed; no runner) is
//! recorded as such and proves nothing; the task is then only as checked as what
//! remains. A failure fails the task with every reason.

use std::path::Path;
use std::time::Instant;

use crate::exec::process::{self, Exit, Program};
use crate::proof::derive::{self, ConfigCheck, Derived};
use crate::proof::runner::Runner;
use crate::proof::tree;
use crate::run::work::{Verdict, WorkCtx};
use crate::state::evidence::{Changes, CheckEvidence, DerivedCheck, DerivedKind, DerivedResult};
use crate::state::model::Task;

/// What checking a task coming back from its agent needs besides the task.
#[derive(Debug, Clone, Copy, Default)]
pub struct Returning<'a> {
    /// What the working tree saw change since the agent took it (none outside git).
    pub seen: Option<&'a Changes>,
    /// Work of the task's story is still to come after it: a test it wrote should
    /// fail now (test first), and one that passes is said.
    pub before_implementation: bool,
}

/// The `wf.checks` of the project config, as derivation takes them.
pub fn config_checks(config: &crate::config::Config) -> Vec<ConfigCheck> {
    config
        .wf
        .checks
        .iter()
        .map(|(glob, command)| ConfigCheck {
            glob: glob.clone(),
            command: command.clone(),
        })
        .collect()
}

/// Runs the checks derived for `task`, adding what each found to `found`.
/// `returning` is none when the task is checked again later (`wf verify`): only
/// what still holds then — the files it creates, its `wf.checks` — is checked.
/// `Ok(verified)`: whether any check proved something.
pub async fn check(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    log: &Path,
    returning: Option<Returning<'_>>,
    found: &mut Vec<DerivedCheck>,
) -> Result<bool, Verdict> {
    let checks = derive::derive(task, &config_checks(&ctx.config));
    for d in &checks {
        let result = match (d, returning) {
            (Derived::Exists(path), _) => exists(&ctx.project, path, DerivedKind::Created),
            (Derived::Changed(path), Some(r)) => changed(ctx, task, path, r, &checks),
            (Derived::SomethingChanged, Some(r)) => something_changed(task, r),
            _ => continue,
        };
        found.extend(result);
    }
    let failures = file_failures(found);
    if !failures.is_empty() {
        return Err(failed(&failures));
    }
    let mut failures = Vec::new();
    for d in &checks {
        let check = match (d, returning) {
            (Derived::Command { command, files }, _) => {
                command_check(ctx, task, attempt, log, command, files).await?
            }
            (Derived::Test(path), Some(r)) => test_check(ctx, task, attempt, log, path, r).await?,
            _ => continue,
        };
        if check.result == DerivedResult::Failed {
            failures.push(check.note.clone());
        }
        found.push(check);
    }
    if !failures.is_empty() {
        return Err(failed(&failures));
    }
    Ok(found.iter().any(DerivedCheck::checked))
}

/// The failures of the file checks in `found`, each said once: a file that was not
/// created did not change either, and nothing changing is said only alone.
fn file_failures(found: &[DerivedCheck]) -> Vec<String> {
    let failed: Vec<&DerivedCheck> = found
        .iter()
        .filter(|c| c.result == DerivedResult::Failed)
        .collect();
    let missing = |path: &str| {
        failed
            .iter()
            .any(|c| c.kind == DerivedKind::Created && c.subject == path)
    };
    let shown: Vec<String> = failed
        .iter()
        .filter(|c| !(c.kind == DerivedKind::Changed && missing(&c.subject)))
        .filter(|c| c.kind != DerivedKind::SomethingChanged)
        .map(|c| c.note.clone())
        .collect();
    if shown.is_empty() {
        failed.iter().map(|c| c.note.clone()).collect()
    } else {
        shown
    }
}

fn failed(failures: &[String]) -> Verdict {
    Verdict::Failed {
        reason: failures.join("; "),
    }
}

/// What a derived check found, with no command run for it.
pub(crate) fn derived(
    kind: DerivedKind,
    subject: &str,
    result: DerivedResult,
    note: String,
) -> DerivedCheck {
    DerivedCheck {
        kind,
        subject: subject.to_string(),
        result,
        note,
        run: None,
    }
}

/// `path` exists and is not empty (a file with bytes, a directory with entries).
fn exists(project: &Path, path: &str, kind: DerivedKind) -> Vec<DerivedCheck> {
    let full = project.join(path);
    let (result, note) = match std::fs::symlink_metadata(&full) {
        Err(_) => (DerivedResult::Failed, format!("{path} was not created")),
        Ok(m) if m.is_dir() => match std::fs::read_dir(&full).map(|mut d| d.next().is_some()) {
            Ok(true) => (DerivedResult::Passed, format!("{path} exists")),
            _ => (
                DerivedResult::Failed,
                format!("{path} is an empty directory"),
            ),
        },
        Ok(m) if m.len() == 0 => (DerivedResult::Failed, format!("{path} is empty")),
        Ok(_) => (
            DerivedResult::Passed,
            format!("{path} exists and is not empty"),
        ),
    };
    vec![derived(kind, path, result, note)]
}

/// `path` differs from the tree the agent started from; one that was not in it
/// must exist and not be empty too (unless the line's own create check says so).
fn changed(
    ctx: &WorkCtx,
    task: &Task,
    path: &str,
    r: Returning<'_>,
    all: &[Derived],
) -> Vec<DerivedCheck> {
    let Some(seen) = r.seen else {
        return vec![derived(
            DerivedKind::Changed,
            path,
            DerivedResult::CannotRun,
            NO_GIT.into(),
        )];
    };
    let mut out = Vec::new();
    let new = task
        .base_tree
        .as_deref()
        .and_then(|base| tree::has(&ctx.project, base, path))
        == Some(false);
    if new && !all.contains(&Derived::Exists(path.to_string())) {
        out.extend(exists(&ctx.project, path, DerivedKind::Created));
    }
    let (result, note) = if seen.files.iter().any(|f| tree::covers(path, f)) {
        (DerivedResult::Passed, format!("{path} changed"))
    } else {
        let note = format!("{path} did not change since {} was handed off", task.id);
        (DerivedResult::Failed, note)
    };
    out.push(derived(DerivedKind::Changed, path, result, note));
    out
}

/// Why what changed cannot be told.
const NO_GIT: &str = "not in a git repository: wf cannot tell what changed";

fn something_changed(task: &Task, r: Returning<'_>) -> Vec<DerivedCheck> {
    let (result, note) = match r.seen {
        None => (DerivedResult::CannotRun, NO_GIT.to_string()),
        Some(seen) if seen.files.is_empty() => (
            DerivedResult::Failed,
            format!("nothing changed since {} was handed off", task.id),
        ),
        Some(seen) => (
            DerivedResult::Passed,
            format!(
                "{} file{} changed",
                seen.files.len(),
                if seen.files.len() == 1 { "" } else { "s" }
            ),
        ),
    };
    vec![derived(DerivedKind::SomethingChanged, "", result, note)]
}

/// A `wf.checks` command, with the files it matched as `"$@"`: it must pass.
async fn command_check(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    log: &Path,
    command: &str,
    files: &[String],
) -> Result<DerivedCheck, Verdict> {
    let mut argv = vec![
        "/bin/sh".to_string(),
        "-c".into(),
        command.into(),
        "sh".into(),
    ];
    argv.extend(files.iter().cloned());
    let (exit, run, _) = run(ctx, task, attempt, log, "wf.checks", Program::Argv(argv)).await?;
    let (result, note) = match exit {
        Exit::Code(0) => (DerivedResult::Passed, format!("`{command}` passed")),
        other => (
            DerivedResult::Failed,
            format!(
                "wf.checks `{command}` {} (for {})",
                other.describe(),
                files.join(", ")
            ),
        ),
    };
    Ok(DerivedCheck {
        run: Some(run),
        ..derived(DerivedKind::Command, command, result, note)
    })
}

/// The test file `path` the task wrote, run alone with the project's runner: red is
/// right before its story's implementation, green after it.
async fn test_check(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    log: &Path,
    path: &str,
    r: Returning<'_>,
) -> Result<DerivedCheck, Verdict> {
    let ready = || {
        let runner = Runner::detect(&ctx.project, &ctx.config)?;
        match runner.missing(&ctx.project) {
            Some(why) => Err(why),
            None => test_program(&runner, path),
        }
    };
    let program = match ready() {
        Ok(p) => p,
        Err(why) => return Ok(cannot_test(path, &why)),
    };
    let (exit, run, _) = run(ctx, task, attempt, log, "test", program).await?;
    let (result, note) = match (exit, r.before_implementation) {
        (Exit::NotOnPath(prog), _) => return Ok(cannot_test(path, &not_on_path(&prog))),
        (Exit::Code(0), false) => (DerivedResult::Passed, format!("{path} passes")),
        (Exit::Code(0), true) => (
            DerivedResult::Warning,
            format!("{path}: test passed before its implementation"),
        ),
        (other, true) => (
            DerivedResult::Red,
            format!(
                "{path} {} before its implementation, as it should; it must pass at its phase's end",
                other.describe()
            ),
        ),
        (other, false) => (DerivedResult::Failed, format!("test {path} {}", other.describe())),
    };
    Ok(DerivedCheck {
        run: Some(run),
        ..derived(DerivedKind::Test, path, result, note)
    })
}

/// The program that runs the test file `path` alone, or why it cannot run here.
pub(crate) fn test_program(runner: &Runner, path: &str) -> Result<Program, String> {
    runner.one(path).and_then(on_path)
}

/// `program`, or why it cannot run: its program is not on PATH.
pub(crate) fn on_path(program: Program) -> Result<Program, String> {
    match process::missing_program(&program) {
        Some(prog) => Err(not_on_path(&prog)),
        None => Ok(program),
    }
}

fn not_on_path(prog: &str) -> String {
    format!("`{prog}` is not on PATH")
}

/// The test file `path` could not be run, and why.
pub(crate) fn cannot_test(path: &str, why: &str) -> DerivedCheck {
    let note = format!("{path} cannot run here: {why}");
    derived(DerivedKind::Test, path, DerivedResult::CannotRun, note)
}

/// Runs `program` for `task` into its log: how it ended, as evidence, and what it
/// printed (as its log kept it: a long output's middle is elided there).
pub(crate) async fn run(
    ctx: &WorkCtx,
    task: &Task,
    attempt: u32,
    log: &Path,
    what: &str,
    program: Program,
) -> Result<(Exit, CheckEvidence, String), Verdict> {
    let started = Instant::now();
    let logged = ctx
        .run_program(task, attempt, &program, log, ctx.timeout(task))
        .await;
    if logged.exit == Exit::Interrupted {
        return Err(Verdict::Interrupted);
    }
    let printed = logged
        .written
        .clone()
        .and_then(|part| crate::fs::read_range(log, part))
        .unwrap_or_default();
    let run = CheckEvidence {
        what: what.to_string(),
        argv: program.argv(),
        exit_code: logged.exit.code(),
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        log_digest: (!printed.is_empty()).then(|| crate::proof::fingerprint::sha256(&printed)),
    };
    Ok((
        logged.exit,
        run,
        String::from_utf8_lossy(&printed).into_owned(),
    ))
}
