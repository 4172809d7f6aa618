//! `wf export`'s pipelines (docs/distributed.md "Exporting a pipeline"): the jobs of
//! `src/plan/jobs.rs` as a GitHub Actions workflow or a GitLab CI pipeline, with
//! the project's `wf.export` settings, written as plain YAML by `yaml.rs`.
//!
//! Security: no task text — a name, a command, a requirement — reaches a command.
//! A `run:`/`script:` line of wf's holds only fixed words, job ids and task ids
//! (checked again by `plan_jobs` to be letters, digits, `_`, `.` and `-`,
//! single-quoted, and after `--` where wf reads them as arguments); the `--install`
//! values go through job variables, limited to plain characters ([`Install::parse`]).
//! The plan's path reaches commands only through the `WF_PLAN` variable, and
//! [`check_plan_path`] keeps it to plain path characters, so it holds no `${{ … }}`
//! for GitHub to evaluate either. Task names appear only in comments and in a
//! GitHub job's `name:`, where [`readable`] leaves no `${{` for GitHub to evaluate.
//! The settings' own steps and variables are the project's, written as given.

pub mod yaml;

mod github;
mod gitlab;

pub use github::github_actions;
pub use gitlab::gitlab_ci;

use std::collections::HashMap;

use crate::config::export::{ExportSettings, SetupStep};
use crate::plan::jobs::{Job, JobPlan};
use crate::state::model::Task;

/// The actions the GitHub workflow uses, each at its current major version (all
/// on the node24 runtime): one table, so an update is one line, and `.ci/run`'s
/// actionlint fails this repository's tests when one is deprecated.
pub mod actions {
    pub const CHECKOUT: &str = "actions/checkout@v7";
    pub const UPLOAD: &str = "actions/upload-artifact@v7";
    pub const DOWNLOAD: &str = "actions/download-artifact@v8";
    /// The cache's restore and save halves: the build job saves only what it built.
    pub const CACHE_RESTORE: &str = "actions/cache/restore@v6";
    pub const CACHE_SAVE: &str = "actions/cache/save@v6";
}

/// What a pipeline needs besides its jobs.
#[derive(Debug, Clone)]
pub struct Pipeline<'a> {
    pub jobs: &'a JobPlan,
    /// The workflow's tasks by id: names and phases for comments, timeouts,
    /// declared outputs.
    pub tasks: HashMap<&'a str, &'a Task>,
    /// The plan, relative to the project (the repository's root in CI).
    pub plan_path: &'a str,
    /// How the jobs get wf.
    pub install: &'a Install,
    /// The project's `wf.export` settings.
    pub settings: &'a ExportSettings,
    /// A command's timeout when its task sets none (`wf.timeout_secs`, else 120 s).
    pub default_timeout_secs: u64,
    /// The comment lines at the top: what made the file and from what.
    pub header: Vec<String>,
    /// Agent tasks are done by the configured executors (`--agent-tasks run`).
    pub agents: bool,
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
    /// `path`. Without the default features: the MCP server (`wf mcp`) is no CI's
    /// business.
    fn cargo_line(&self, root: &str) -> Option<(String, Vec<(&'static str, String)>)> {
        let head = format!("cargo install --locked --no-default-features --root {root}");
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

    /// The cache key of the built wf, without the runner's system: the commit or
    /// the version it is built from (plain words, [`Install::parse`]); for `source`,
    /// none — the GitHub workflow keys it by the hash of the checked-out sources,
    /// GitLab by the commit.
    fn cache_key(&self) -> Option<String> {
        match self {
            Install::Path | Install::Source => None,
            Install::Git { rev, .. } => Some(format!("wf-git-{rev}")),
            Install::Crate { version } => Some(format!("wf-crate-{version}")),
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

/// Where a job gathers the outputs it hands on (`wf run-task --outputs`).
const OUTPUTS: &str = ".wf-out";

/// Where a job keeps its verification cache (`wf.export.cache`), inside the project
/// because GitLab caches only paths there.
const VERIFY_CACHE: &str = ".wf-cache";

/// The cache entry a job's verification cache is kept under: one line of entries
/// per job, since a job's cache holds passes of its own tasks only.
fn verify_cache_key(job: &Job) -> String {
    format!("wf-verify-{}", job.id)
}

/// The line that imports the plan: `--` first, so a plan named `-h.md` is a plan.
const IMPORT_PLAN: &str = "wf workflow-start -- \"$WF_PLAN\"";

/// A command as a person writes a long one: `head`, then `args` on lines of their
/// own (continued with ` \`), as many to a line as fit in about 80 columns — one
/// line when all do. Every word is a fixed word, a job id or a quoted task id, so
/// a line break between two of them changes nothing for the shell.
fn command(head: &str, args: &[String], one_per_line: bool) -> String {
    const WIDTH: usize = 76;
    let all = args.iter().map(|a| a.len() + 1).sum::<usize>();
    if head.len() + all <= WIDTH {
        let mut line = head.to_string();
        for a in args {
            line.push(' ');
            line.push_str(a);
        }
        return line;
    }
    let mut out = head.to_string();
    let mut line = String::new();
    for a in args {
        if !line.is_empty() && (one_per_line || line.len() + 1 + a.len() > WIDTH) {
            out.push_str(" \\\n  ");
            out.push_str(&line);
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(a);
    }
    if !line.is_empty() {
        out.push_str(" \\\n  ");
        out.push_str(&line);
    }
    out
}

/// The `run-task` line of one job: its tasks in order, each result written to
/// `DIR/<id>.json`, the first failure ending the chain (docs/distributed.md), and
/// with `outputs`, the upstream outputs restored first and each task's handed on.
/// The ids come after `--`, so an id that starts with `-` (`-h1`) is a task, not an
/// option. One command per job, not per task, so a plan of 10,000 tasks stays far
/// below GitHub's 500 KB per file.
fn run_task_line(
    ids: &[String],
    dir: &str,
    outputs: bool,
    cache: Option<&str>,
    agents: bool,
) -> String {
    let mut head = format!("wf run-task --ci --result-dir {dir}");
    if agents {
        head.push_str(" --agents");
    }
    if outputs {
        head.push_str(&format!(" --outputs {OUTPUTS}"));
    }
    if let Some(cache) = cache {
        head.push_str(&format!(" --cache {cache}"));
    }
    head.push_str(" --");
    let args: Vec<String> = ids.iter().map(|id| quoted(id)).collect();
    command(&head, &args, false)
}

/// The collect job's import: every result under `results/`, each job's directory
/// giving only its own tasks' results (`--job JOB=TASK,…`, docs/distributed.md
/// "One directory per job"), so a job's commands cannot plant a result for another
/// job's task, and a task whose result never came fails the job.
fn import_line(jobs: &JobPlan) -> String {
    let args: Vec<String> = jobs
        .jobs
        .iter()
        .filter(|j| !j.tasks.is_empty())
        .map(|job| format!("--job '{}={}'", job.id, job.tasks.join(",")))
        .collect();
    command(
        &format!("mkdir -p {RESULTS} && wf import-results {RESULTS}"),
        &args,
        true,
    )
}

/// `text` fit for a comment or a GitHub `name:`: one line, no control or invisible
/// character, no `${{` (GitHub evaluates one in a job's name), at most `max`
/// characters.
pub fn readable(text: &str, max: usize) -> String {
    let one: String = text
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|&c| yaml::shown(c))
        .collect();
    let mut one = one.split_whitespace().collect::<Vec<_>>().join(" ");
    while one.contains("${{") {
        one = one.replace("${{", "$ {{");
    }
    crate::report::truncate(&one, max)
}

/// How many of a job's tasks the comment above it names.
const COMMENTED: usize = 8;

/// What a job does with task outputs (docs/distributed.md "What a job hands on").
#[derive(Debug, Clone, Copy)]
struct Carry {
    /// It runs `wf run-task --outputs`: upstream outputs restored, its own staged.
    gathers: bool,
    /// It uploads them for a job that needs it.
    hands_on: bool,
}

impl Pipeline<'_> {
    /// Where each job keeps its verification cache, when `wf.export.cache` is on.
    fn verify_cache(&self) -> Option<&'static str> {
        (self.settings.cache == Some(true)).then_some(VERIFY_CACHE)
    }

    fn task(&self, id: &str) -> Option<&Task> {
        self.tasks.get(id).copied()
    }

    /// Whether the job running `ids` has its agent tasks done by the configured
    /// executors (`run-task --agents`): exported with `--agent-tasks run`, and one
    /// of them is the job's.
    fn runs_agents(&self, ids: &[String]) -> bool {
        self.agents
            && ids
                .iter()
                .any(|id| self.task(id).is_some_and(crate::run::policy::needs_agent))
    }

    /// A job's `name:`: its task and what it does (`T3 - Count the words`), or for a
    /// chain or pack its first and last task (`T1..T4 - Prepare the output
    /// directory, and 3 more`).
    fn job_name(&self, job: &Job) -> String {
        let name = |id: &str| self.task(id).map_or("", |t| t.name.as_str());
        match job.tasks.as_slice() {
            [] => "Wait".into(),
            [one] => readable(&format!("{one} - {}", name(one)), 80),
            [first, .., last] => readable(
                &format!(
                    "{first}..{last} - {}, and {} more",
                    name(first),
                    job.tasks.len() - 1
                ),
                80,
            ),
        }
    }

    /// The comment above a job: each of its tasks with its name (the first 8: a
    /// packed job of hundreds would fill the file with them).
    fn job_comments(&self, job: &Job) -> Vec<String> {
        let mut lines: Vec<String> = job
            .tasks
            .iter()
            .take(COMMENTED)
            .map(|id| {
                let t = self.task(id);
                let name = t.map_or("", |t| t.name.as_str());
                let phase = t.map_or("", |t| t.phase.as_str());
                readable(
                    &if phase.is_empty() {
                        format!("{id}: {name}")
                    } else {
                        format!("{id}: {name} [{phase}]")
                    },
                    100,
                )
            })
            .collect();
        if job.tasks.len() > COMMENTED {
            lines.push(format!("… and {} more tasks", job.tasks.len() - COMMENTED));
        }
        lines
    }

    /// A task job's timeout in minutes: the settings', else 10 for the job's own
    /// steps plus, for each task, its commands' timeouts (each may take its own).
    fn job_minutes(&self, job: &Job) -> u64 {
        if let Some(m) = self.settings.timeout_minutes {
            return m;
        }
        let secs: u64 = job
            .tasks
            .iter()
            .filter_map(|id| self.task(id))
            .map(|t| {
                let each = t.timeout_secs.unwrap_or(self.default_timeout_secs);
                let commands = t.check_commands().count()
                    + usize::from(t.has_action("run_tests") || t.quality_gate);
                each.saturating_mul(commands.max(1) as u64)
            })
            .fold(0, u64::saturating_add);
        (10 + secs.div_ceil(60)).min(*crate::config::export::TIMEOUT_MINUTES_RANGE.end())
    }

    /// For each job, whether it gathers task outputs (one of its tasks declares a
    /// file it writes, or a job it needs hands some on) and whether it hands them on
    /// (it gathers them, and a job needs it).
    fn carries(&self) -> Vec<Carry> {
        let jobs = &self.jobs.jobs;
        let mut gathers: Vec<bool> = Vec::with_capacity(jobs.len());
        for job in jobs {
            let own = job
                .tasks
                .iter()
                .filter_map(|id| self.task(id))
                .any(|t| !crate::run::carry::outputs(t).is_empty());
            gathers.push(own || job.needs.iter().any(|&n| gathers[n]));
        }
        let mut needed = vec![false; jobs.len()];
        for job in jobs {
            for &n in &job.needs {
                needed[n] = true;
            }
        }
        gathers
            .iter()
            .zip(needed)
            .map(|(&gathers, needed)| Carry {
                gathers,
                hands_on: gathers && needed,
            })
            .collect()
    }

    /// Every job's variables: `WF_HOME` (at `home`, in the CI's own words), the
    /// plan's path, then the settings' `env`.
    fn variables(&self, home: &str) -> yaml::Node {
        let own = [("WF_HOME", home), ("WF_PLAN", self.plan_path)];
        let env = self.settings.env.iter().map(|(k, v)| (&k[..], &v[..]));
        yaml::pairs(own.into_iter().chain(env))
    }

    /// Whether a new run cancels a running one (`wf.export.concurrency`).
    fn cancels_in_progress(&self) -> bool {
        matches!(&self.settings.concurrency, Some(c) if c.cancel_in_progress == Some(true))
    }

    /// The setup steps of a job running `job`'s tasks.
    fn setup_for(&self, job: &Job) -> Vec<&SetupStep> {
        self.settings
            .setup
            .iter()
            .filter(|step| {
                step.applies(
                    job.tasks
                        .iter()
                        .filter_map(|id| self.task(id).map(|t| (t.id.as_str(), t.phase.as_str()))),
                )
            })
            .collect()
    }

    /// The setup steps of the collect job: those for every job (a quality gate is
    /// checked again there, with the project's tools).
    fn setup_for_all(&self) -> Vec<&SetupStep> {
        self.settings
            .setup
            .iter()
            .filter(|s| s.tasks.is_empty() && s.phases.is_empty())
            .collect()
    }
}
