//! The arguments of the commands that import, run and prove a workflow: `init`,
//! `workflow-start`, `check`, `workflow-execute`, `verify`, `proof`.

use std::path::PathBuf;

use clap::{Args, Subcommand, ValueHint};
use clap_complete::{ArgValueCandidates, ArgValueCompleter};

use crate::complete;

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Replace an existing tasks.md or project config (and settings that cannot be
    /// merged); each old file is kept as FILE.backup-<ms>.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args, Clone)]
pub struct StartArgs {
    /// The plan file: a tasks.md of claude-workflow, spec-kit, Kiro, OpenSpec, a BMAD
    /// story, or Taskmaster's tasks.json. A directory (the default: the current one)
    /// is searched: tasks.md, the newest specs/*/tasks.md, .taskmaster/tasks/tasks.json,
    /// the newest .kiro/specs/*/tasks.md, the newest openspec/changes/*/tasks.md.
    #[arg(default_value = ".", hide_default_value = true, add = ArgValueCompleter::new(complete::plan_files))]
    pub plan: PathBuf,
    /// Read the plan in this format instead of the one detected (`wf check` says
    /// which it detects and why).
    #[arg(long, value_name = "NAME", value_parser = plan_format)]
    pub format: Option<crate::plan::Format>,
    /// The workflow's name (default: the plan's title or file name).
    #[arg(long)]
    pub name: Option<String>,
    /// Apply a major change (a completed task changed or removed, or a different plan);
    /// the old state is kept as backup-<ms>.json first.
    #[arg(long)]
    pub force: bool,
    /// The technical design the plan refers to (counted in the context estimate).
    #[arg(long, value_name = "FILE")]
    pub tech_design: Option<PathBuf>,
}

#[derive(Debug, Args, Clone)]
pub struct CheckArgs {
    /// The plan file: a tasks.md of claude-workflow, spec-kit, Kiro, OpenSpec, a BMAD
    /// story, or Taskmaster's tasks.json. A directory (the default: the current one)
    /// is searched: tasks.md, the newest specs/*/tasks.md, .taskmaster/tasks/tasks.json,
    /// the newest .kiro/specs/*/tasks.md, the newest openspec/changes/*/tasks.md.
    #[arg(default_value = ".", hide_default_value = true, add = ArgValueCompleter::new(complete::plan_files))]
    pub plan: PathBuf,
    /// Read the plan in this format instead of the one detected.
    #[arg(long, value_name = "NAME", value_parser = plan_format)]
    pub format: Option<crate::plan::Format>,
    /// Exit 1 when there are warnings (errors always exit 2).
    #[arg(long)]
    pub strict: bool,
    /// Also warn where an exported CI pipeline would run the plan otherwise than
    /// here: a task naming a file an upstream task names but does not declare it
    /// writes (a job hands on only declared outputs).
    #[arg(long)]
    pub for_ci: bool,
}

/// `--format NAME`: a plan format `wf` reads.
fn plan_format(name: &str) -> Result<crate::plan::Format, String> {
    crate::plan::Format::named(name).ok_or_else(|| {
        format!(
            "not a plan format; use one of {}",
            crate::plan::Format::names()
        )
    })
}

#[derive(Debug, Args, Clone, Default)]
pub struct ExecuteArgs {
    /// Mode: stop after every task. A mode sticks: a later run without a mode flag
    /// uses the last one (phase for a new workflow).
    #[arg(long, group = "mode", help_heading = "Mode (sticky)")]
    pub step: bool,
    /// Mode: stop when the next task's phase differs.
    #[arg(long, group = "mode", help_heading = "Mode (sticky)")]
    pub phase: bool,
    /// Mode: run to the end, or to the first failure (pausing only where
    /// --pause-at says).
    #[arg(long, group = "mode", help_heading = "Mode (sticky)")]
    pub all: bool,
    /// Mode: the claude-workflow plugin's `--all` (its quality_gate mode): stop
    /// before every quality gate, and before every commit unless the workflow turned
    /// the commit pause off.
    #[arg(long, group = "mode", help_heading = "Mode (sticky)")]
    pub quality_gate: bool,
    /// Also pause before these, in any mode: gate, commit, both (gate,commit) or
    /// none. Default: wf.pause_at in the project config, else none.
    #[arg(long, value_name = "POINTS", value_parser = crate::run::policy::PauseAt::parse)]
    pub pause_at: Option<crate::run::policy::PauseAt>,
    /// Run the whole plan in one call: gates run and must pass but do not pause, the
    /// consecutive-task and context limits do not apply, and a task that needs an agent
    /// fails instead of being handed off. Implied when the environment has CI=true.
    #[arg(long)]
    pub ci: bool,
    /// Fail a task that nothing checks (no command of its own, nothing its line names
    /// that wf can check) instead of completing it "accepted unchecked". On under
    /// --ci.
    #[arg(long, conflicts_with = "allow_unchecked")]
    pub require_checks: bool,
    /// Under --ci (or wf.require_checks), complete a task that nothing checks as
    /// "accepted unchecked" instead of failing it.
    #[arg(long)]
    pub allow_unchecked: bool,
    /// Retry the failed task (or TASK): back to pending, counted as one more retry.
    #[arg(long, value_name = "TASK", num_args = 0..=1, default_missing_value = "",
          add = ArgValueCandidates::new(complete::task_ids))]
    pub retry: Option<String>,
    /// Skip the failed task (or TASK) and go on; needs --reason.
    #[arg(long, value_name = "TASK", num_args = 0..=1, default_missing_value = "", requires = "reason",
          add = ArgValueCandidates::new(complete::task_ids))]
    pub skip: Option<String>,
    /// Why the task is skipped (kept in the workflow's record).
    #[arg(long)]
    pub reason: Option<String>,
    /// After a task fails, keep running every task that does not depend on a failed
    /// one (like make -k); the run still exits 1 and lists the failed tasks and the
    /// tasks not run because of them.
    #[arg(short = 'k', long)]
    pub keep_going: bool,
    /// Run up to N ready tasks side by side.
    #[arg(short, long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: u32,
    /// Rehearse with executors replaced by a policy: success, failure, or per role
    /// (executor=failure,reviewer=success). No agent needs to be installed.
    #[arg(long, value_name = "POLICY")]
    pub mock: Option<String>,
    /// Print what would run, in which order, and where the mode stops; run and
    /// write nothing.
    #[arg(long, conflicts_with_all = ["retry", "skip"])]
    pub dry_run: bool,
    /// Show each task's output as it comes, line by line under its `▶` line (`  T4 |
    /// line`), as well as writing it to the task's log. With --json it goes to
    /// stderr.
    #[arg(short, long)]
    pub verbose: bool,
    /// Write a JUnit XML report (one testcase per task) to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Start even though the plan's zero-decision audit found errors.
    #[arg(long)]
    pub allow_audit_errors: bool,
    /// Start even though the plan's constraints list open questions.
    #[arg(long)]
    pub allow_open_questions: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

/// Where the verification cache is (docs/proof.md "The cache").
#[derive(Debug, Args, Clone, Default)]
pub struct CacheArgs {
    /// The verification cache: a command task whose declared inputs passed its checks
    /// before (here or wherever the directory came from) is up to date and not run.
    /// Default: the workflow dir's cache/. CI can restore and save DIR.
    #[arg(long, value_name = "DIR", help_heading = "Verification cache")]
    pub cache: Option<PathBuf>,
    /// Neither answer from the verification cache nor record in it: run every check.
    #[arg(long, conflicts_with = "cache", help_heading = "Verification cache")]
    pub no_cache: bool,
}

#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Only these tasks, and the tasks that depend on them (default: every
    /// completed task).
    #[arg(value_name = "TASK", add = ArgValueCandidates::new(complete::task_ids))]
    pub tasks: Vec<String>,
    /// Run every task's checks again, changed or not (the cache is not asked).
    #[arg(long)]
    pub all: bool,
    /// List what would run and which input changed; run and write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub cache: CacheArgs,
}

#[derive(Debug, Args)]
pub struct ProofArgs {
    #[command(subcommand)]
    pub command: ProofCommand,
}

#[derive(Debug, Subcommand)]
pub enum ProofCommand {
    /// Write the evidence of every completed task (the fingerprint of its inputs with
    /// each declared file's digest, its checks, executor and claim) as one JSON document;
    /// tasks completed without evidence are listed as such. Refused, naming the tasks,
    /// when an input of a completed task changed since its checks passed.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf proof export proof.json   write it (replaced whole, never half-written)\n",
            "  wf proof export -            print it on stdout\n",
            "  wf verify && wf proof export proof.json   bring stale evidence up to date first",
        ))]
    Export {
        /// Where to write the document; `-` for stdout.
        #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
        file: PathBuf,
        /// Write it even when some evidence is out of date (the tasks are named; `wf
        /// proof check` will report them as changed).
        #[arg(long)]
        allow_stale: bool,
    },
    /// Check a proof document against the working tree, without the workflow: every
    /// declared file hashed again, every fingerprint recomputed in dependency order.
    /// Exits 1 naming each task whose inputs changed or whose entry was edited, 2 for a
    /// file that is not a proof document.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf proof check proof.json          in CI, or in a fresh clone: no workflow needed\n",
            "  wf proof check proof.json --json   each task's result and what changed",
        ))]
    Check {
        /// The document `wf proof export` wrote; `-` for stdin.
        #[arg(value_name = "FILE", value_hint = ValueHint::FilePath)]
        file: PathBuf,
    },
}
