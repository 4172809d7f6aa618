//! The arguments of the commands a CI pipeline runs: `run-task`, `import-results`,
//! `export`.

use std::path::PathBuf;

use clap::{Args, ValueEnum, ValueHint};
use clap_complete::ArgValueCandidates;

use crate::complete;

#[derive(Debug, Args)]
pub struct RunTaskArgs {
    /// The task whose checks to run; several run in the order given, each after the
    /// one before passed (a task must come after the tasks it depends on).
    #[arg(required = true, value_name = "TASK", add = ArgValueCandidates::new(complete::task_ids))]
    pub tasks: Vec<String>,
    /// Write the result here (its directory is made if missing); one task only.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath, conflicts_with = "result_dir")]
    pub result: Option<PathBuf>,
    /// Write each task's result to DIR/<task id>.json (made if missing).
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub result_dir: Option<PathBuf>,
    /// The CI rules: a task that needs an agent gets a failed result instead of a
    /// refusal (implied by CI=true).
    #[arg(long)]
    pub ci: bool,
    /// Have a task that needs an agent done by the executors of the project config
    /// (wf.executors), then checked as `workflow-execute` checks it, instead of
    /// failed: what `wf export --agent-tasks run` writes. The job needs each
    /// executor's program and credentials.
    #[arg(long)]
    pub agents: bool,
    /// Hand task outputs between CI jobs through DIR: first copy the upstream
    /// tasks' outputs found there into the project (failing a task whose upstream
    /// output is still missing), then copy each passing task's declared outputs
    /// (file, creates, modifies) into DIR/<task>/ for the jobs after this one.
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub outputs: Option<PathBuf>,
    /// Answer a task from the verification cache in DIR (made if missing) when its
    /// checks passed there on the same inputs, and keep each new pass there: a CI
    /// job's cache, restored before and saved after (docs/distributed.md).
    #[arg(long, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub cache: Option<PathBuf>,
    /// Show each check's output as it comes, line by line (`  T4 | line`), as
    /// `workflow-execute -v` does. With --json it goes to stderr.
    #[arg(short, long)]
    pub verbose: bool,
}

#[derive(Debug, Args)]
pub struct ImportResultsArgs {
    /// Result files, or directories searched for them.
    #[arg(required = true, value_name = "DIR|FILE", value_hint = ValueHint::AnyPath)]
    pub paths: Vec<PathBuf>,
    /// Import a result computed on another tree (another commit, or other content in
    /// the task's declared files) anyway, recorded and shown as stale.
    #[arg(long)]
    pub allow_stale: bool,
    /// An exported pipeline's job and the tasks it ran, JOB=TASK,TASK (repeated; `wf
    /// export` writes them): a result is taken only from its task's job directory
    /// (DIR/JOB/ or DIR/wf-result-JOB/), and a task of a job with no result and no
    /// failure before it is reported missing.
    #[arg(long = "job", value_name = "JOB=TASK,…")]
    pub jobs: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Which CI.
    #[arg(value_enum)]
    pub target: ExportTarget,
    /// Write the pipeline to FILE instead of stdout (with --check: the file to
    /// compare).
    #[arg(short, long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub output: Option<PathBuf>,
    /// Write nothing: exit 1 when the pipeline in -o FILE differs from what the plan
    /// and the settings export now (a CI step that keeps the two in sync).
    #[arg(long, requires = "output")]
    pub check: bool,
    /// Tasks that need an agent: `fail` gives each a job whose result fails it, as
    /// `workflow-execute --ci` does; `omit` leaves them, and every task that depends
    /// on one, out (a comment names them). Default: `wf.export.agent_tasks`, else
    /// `fail`.
    #[arg(long, value_enum)]
    pub agent_tasks: Option<AgentTasks>,
    /// How the jobs get wf: `path` (already on the runners' PATH: no build job),
    /// `source` (the project is wf: `cargo install --path .`), `git:URL@COMMIT`
    /// (built once from wf's repository at a pinned commit) or `crate:VERSION`
    /// (a crates.io release). Default: `wf.export.install`, else `source` in wf's
    /// own repository, else `path`.
    #[arg(long, value_name = "HOW")]
    pub install: Option<String>,
    /// The most task jobs to write; tasks are packed into fewer jobs beyond it.
    /// Default: `wf.export.max_jobs`, else 200.
    #[arg(long, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_jobs: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ExportTarget {
    /// A GitHub Actions workflow (.github/workflows/*.yml).
    GithubActions,
    /// A GitLab CI pipeline (.gitlab-ci.yml).
    GitlabCi,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum AgentTasks {
    /// A job whose result fails the task.
    Fail,
    /// Left out, with every task that depends on one.
    Omit,
    /// A job whose executor (wf.executors) does the task, then checks it.
    Run,
}
