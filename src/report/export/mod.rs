//! `wf export`'s pipelines (docs/distributed.md "Exporting a pipeline"): the jobs of
//! `src/plan/jobs.rs` as a GitHub Actions workflow or a GitLab CI pipeline, written
//! with the quoting writer of `yaml.rs`.
//!
//! Security: no task text — a name, a command, a requirement — is written anywhere in
//! the file. A `run:`/`script:` line holds only fixed words, task ids (checked again
//! by `plan_jobs` to be letters, digits, `_`, `.` and `-`, and single-quoted) and the
//! `cargo install` arguments, which [`check_install`] limits to plain words. The
//! plan's path reaches commands only through the `WF_PLAN` variable, never spliced
//! into a line, and [`check_plan_path`] keeps it to plain path characters, so it holds
//! no `${{ … }}` for GitHub to evaluate either.

pub mod yaml;

mod github;
mod gitlab;

pub use github::github_actions;
pub use gitlab::gitlab_ci;

use crate::plan::jobs::JobPlan;

/// What a pipeline needs besides its jobs.
#[derive(Debug, Clone)]
pub struct Pipeline<'a> {
    pub jobs: &'a JobPlan,
    /// The plan, relative to the project (the repository's root in CI).
    pub plan_path: &'a str,
    /// The `cargo install` arguments that install wf in the build job.
    pub install: &'a str,
}

/// The GitLab limit on one job's `needs` (docs/distributed.md "CI limits").
pub const GITLAB_MAX_NEEDS: usize = 50;

/// GitHub does not start runs of a workflow file over 500 KB.
pub const GITHUB_MAX_BYTES: usize = 500 * 1024;

/// GitLab's default `max_yaml_size_bytes` (an instance setting).
pub const GITLAB_MAX_BYTES: usize = 1024 * 1024;

/// The plan's path as the pipeline may name it: relative, plain path characters,
/// no `..`.
pub fn check_plan_path(path: &str) -> Result<(), String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./-".contains(c);
    if path.is_empty()
        || path.starts_with('/')
        || path.split('/').any(|p| p == "..")
        || !path.chars().all(plain)
    {
        return Err(format!(
            "the plan's path {:?} cannot go into a pipeline: it must be inside the project and use only letters, digits, '_', '.', '-' and '/'; move or rename it and import it again",
            crate::error::one_line(path)
        ));
    }
    Ok(())
}

/// `--install` as the build job runs it: plain words only — no quote, `$`, backtick,
/// `;`, `|`, `&`, redirection, newline or `${{`.
pub fn check_install(args: &str) -> Result<(), String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || " _./:@=+,-~^".contains(c);
    if args.trim().is_empty() || !args.chars().all(plain) {
        return Err(format!(
            "--install {:?}: only plain words (letters, digits and _ . / : @ = + , - ~ ^) may go into the pipeline's command; e.g. --install '--git https://example.com/wf --rev 0123abc'",
            crate::error::one_line(args)
        ));
    }
    Ok(())
}

/// `'T1'`: a task id in single quotes (it holds no quote: `plan_jobs` checked it).
fn quoted_id(id: &str) -> String {
    format!("'{id}'")
}

/// The `run-task` line of one job: its tasks in order, each result written to
/// `results/<id>.json`, the first failure ending the chain (docs/distributed.md).
/// One line per job, not per task, so a plan of 10,000 tasks stays far below
/// GitHub's 500 KB per file.
fn run_task_line(ids: &[String]) -> String {
    let mut line = String::from("wf run-task --ci --result-dir results");
    for id in ids {
        line.push(' ');
        line.push_str(&quoted_id(id));
    }
    line
}

/// The step's name for a job's tasks: `Task T1`, or `Tasks T1 to T9 (9)`.
fn tasks_name(ids: &[String]) -> String {
    match ids {
        [one] => format!("Task {one}"),
        [first, .., last] => format!("Tasks {first} to {last} ({})", ids.len()),
        [] => "No task".into(),
    }
}

/// The comment lines at the top: what made the file, and what was left out.
fn header(p: &Pipeline<'_>, how: &str) -> Vec<String> {
    let mut lines = vec![
        format!(
            "Written by `wf export {how}` from the plan {}.",
            p.plan_path
        ),
        "Each task job runs `wf run-task`; the collect job imports every result".into(),
        "(`wf import-results`) and reports. Export again after changing the plan.".into(),
    ];
    if !p.jobs.omitted.is_empty() {
        lines.push("Left out:".into());
        for (id, why) in &p.jobs.omitted {
            lines.push(format!("  {id}: {why}"));
        }
    }
    lines
}
