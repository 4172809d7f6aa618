//! `wf export`'s pipelines (docs/distributed.md "Exporting a pipeline"): the jobs of
//! `src/plan/jobs.rs` as a GitHub Actions workflow or a GitLab CI pipeline, written
//! with the quoting writer of `yaml.rs`.
//!
//! Security: no task text — a name, a command, a requirement — is written anywhere in
//! the file. A `run:`/`script:` line holds only fixed words, job ids and task ids
//! (checked again by `plan_jobs` to be letters, digits, `_`, `.` and `-`,
//! single-quoted, and after `--` where wf reads them as arguments);
//! the `--install` values go through job variables, limited to plain characters
//! ([`Install::parse`]). The
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
    /// How the jobs get wf.
    pub install: &'a Install,
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

/// How the pipeline's jobs get wf (`--install`, docs/distributed.md "Installing wf").
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Install {
    /// `path`: wf is already on the runners' PATH (a self-hosted runner, an image
    /// that has it, `act` on the host): no build job; each job checks it is there.
    Path,
    /// `source`: the project is wf's own source: `cargo install --path .`.
    Source,
    /// `git:URL@COMMIT`: built once from a clone of wf's repository at a pinned
    /// commit (a branch or tag can move; a commit cannot).
    Git { url: String, rev: String },
    /// `crate:VERSION`: a release from crates.io, `=VERSION` exactly.
    Crate { version: String },
}

impl Install {
    /// Parses `--install`. Values reach commands only through job variables
    /// (`WF_INSTALL_GIT`, `WF_INSTALL_REV`, `WF_INSTALL_VERSION`), quoted where used,
    /// and are limited to plain characters besides — no quote, `$`, `{`, backtick,
    /// space or `;` — so neither a shell nor GitHub's `${{ }}` reads anything in them.
    pub fn parse(text: &str) -> Result<Install, String> {
        let bad = |why: &str| {
            format!(
                "--install {:?}: {why}; use `path` (wf already on the runners), `source` (the project is wf itself), `git:URL@COMMIT` (e.g. git:https://example.com/wf.git@0123abcd…, a commit id of 7 to 40 hex digits) or `crate:VERSION` (e.g. crate:0.1.0)",
                crate::error::one_line(text)
            )
        };
        let plain = |v: &str, extra: &str| {
            !v.is_empty()
                && v.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c) || extra.contains(c))
        };
        match text {
            "path" => return Ok(Install::Path),
            "source" => return Ok(Install::Source),
            _ => {}
        }
        if let Some(rest) = text.strip_prefix("git:") {
            let (url, rev) = rest
                .rsplit_once('@')
                .ok_or_else(|| bad("a git install names its commit after `@`"))?;
            if !plain(url, ":/~+%@") || !(url.contains("://") || url.contains(':')) {
                return Err(bad(
                    "the URL may hold only letters, digits and : / . _ - ~ + % @ (only plain words go into the pipeline)",
                ));
            }
            if !(7..=40).contains(&rev.len()) || !rev.chars().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad(
                    "pin a commit id (7 to 40 hex digits), not a branch or tag, which can move",
                ));
            }
            return Ok(Install::Git {
                url: url.into(),
                rev: rev.into(),
            });
        }
        if let Some(version) = text.strip_prefix("crate:") {
            if !plain(version, "+") || !version.starts_with(|c: char| c.is_ascii_digit()) {
                return Err(bad("a version is digits and dots, e.g. 0.1.0 (only plain words go into the pipeline)"));
            }
            return Ok(Install::Crate {
                version: version.into(),
            });
        }
        Err(bad("not a way to install wf"))
    }

    /// The `cargo install` line of the build job, installing under `root` (a quoted
    /// shell word of the CI's own variables), with the variables it reads; none for
    /// `path`.
    fn cargo_line(&self, root: &str) -> Option<(String, Vec<(&'static str, String)>)> {
        let head = format!("cargo install --locked --root {root}");
        match self {
            Install::Path => None,
            Install::Source => Some((format!("{head} --path ."), Vec::new())),
            Install::Git { url, rev } => Some((
                format!("{head} --git \"$WF_INSTALL_GIT\" --rev \"$WF_INSTALL_REV\" wf"),
                vec![
                    ("WF_INSTALL_GIT", url.clone()),
                    ("WF_INSTALL_REV", rev.clone()),
                ],
            )),
            Install::Crate { version } => Some((
                format!("{head} wf --version \"=$WF_INSTALL_VERSION\""),
                vec![("WF_INSTALL_VERSION", version.clone())],
            )),
        }
    }
}

/// The first command of every job under `--install path`: a clear error, not a
/// `command not found` halfway through, when wf is not on the runner.
const WF_ON_PATH_CHECK: &str = "command -v wf >/dev/null || { echo 'wf is not on this runner PATH: the pipeline was exported with --install path; export it with --install git:URL@COMMIT to build wf in the pipeline (docs/distributed.md)' >&2; exit 1; }";

/// `'T1'`: a task id (or a job id) in single quotes (it holds no quote: `plan_jobs`
/// checked it).
fn quoted(id: &str) -> String {
    format!("'{id}'")
}

/// Where every job puts its results, and where the collect job finds them.
const RESULTS: &str = "results";

/// The line that imports the plan: `--` first, so a plan named `-h.md` is a plan.
const IMPORT_PLAN: &str = "wf workflow-start -- \"$WF_PLAN\"";

/// The `run-task` line of one job: its tasks in order, each result written to
/// `DIR/<id>.json`, the first failure ending the chain (docs/distributed.md). The ids
/// come after `--`, so an id that starts with `-` (`-h1`) is a task, not an option.
/// One line per job, not per task, so a plan of 10,000 tasks stays far below
/// GitHub's 500 KB per file.
fn run_task_line(ids: &[String], dir: &str) -> String {
    let mut line = format!("wf run-task --ci --result-dir {dir} --");
    for id in ids {
        line.push(' ');
        line.push_str(&quoted(id));
    }
    line
}

/// The collect job's import: every result under `results/`, each job's directory
/// giving only its own tasks' results (`--job JOB=TASK,…`, docs/distributed.md
/// "One directory per job"), so a job's commands cannot plant a result for another
/// job's task, and a task whose result never came fails the job.
fn import_line(jobs: &JobPlan) -> String {
    let mut line = format!("mkdir -p {RESULTS} && wf import-results {RESULTS}");
    for job in jobs.jobs.iter().filter(|j| !j.tasks.is_empty()) {
        line.push_str(&format!(" --job '{}={}'", job.id, job.tasks.join(",")));
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
