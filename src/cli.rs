//! The command line, as clap definitions only. Each subcommand's behaviour lives in
//! `commands/<name>.rs`; the completion candidates an argument names
//! (`add = ArgValueCandidates::new(complete::…)`) live in `complete.rs`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};
use clap_complete::{ArgValueCandidates, ArgValueCompleter};

use crate::complete;
use crate::constraints::vocabulary::{Category, Phase, Source};

#[derive(Debug, Parser)]
#[command(
    name = "wf",
    version,
    about = "A fast, crash-safe workflow engine: import a task plan, run and verify its tasks, resume exactly where it stopped.",
    long_about = None,
    after_help = "Start with `wf workflow-start PLAN.md`, then `wf workflow-execute` and `wf status`.\n\
                  State lives in $WF_HOME (default ~/.claude/workflows)/<project-id>/.\n\
                  Exit codes: 0 ok, 1 failed, 2 bad input, 3 blocked, 4 locked, 5 corrupt state, 6 handed off, 7 I/O error, 130 interrupted."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct GlobalArgs {
    /// The project directory (default: the git top level, else the current directory).
    #[arg(short = 'C', long = "project", global = true, value_name = "DIR", value_hint = ValueHint::DirPath)]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON on stdout (errors too).
    #[arg(long, global = true)]
    pub json: bool,
    /// When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0;
    /// CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only errors.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// If another wf holds the workflow's lock, wait for it (default 600 s) instead of failing.
    #[arg(long, global = true, value_name = "SECS", num_args = 0..=1, default_missing_value = "600")]
    pub wait: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow.
    #[command(visible_alias = "start")]
    WorkflowStart(StartArgs),
    /// Lint a plan without importing it: parse errors, plan warnings, audit findings and
    /// the tasks that would start blocked, as file:line: severity: message. Writes nothing.
    Check(CheckArgs),
    /// Run the next tasks and their verifiers, stopping where the mode says.
    #[command(
        visible_alias = "execute",
        after_help = concat!(
            "Examples:\n",
            "  wf workflow-execute                 run to the mode's next stop\n",
            "  wf workflow-execute --all --ci -k   a CI job: the whole plan; after a failure, keep\n",
            "                                      running what does not depend on it, then exit 1\n",
            "                                      listing the failed tasks and those not run",
        )
    )]
    WorkflowExecute(ExecuteArgs),
    /// Lift an external blocker (api_spec, design_spec, a custom kind, or all).
    #[command(visible_alias = "unblock")]
    WorkflowUnblock(UnblockArgs),
    /// Continue a paused, interrupted, blocked or failed workflow.
    Resume(ResumeArgs),
    /// Show where the workflow stands (read-only).
    #[command(visible_alias = "st")]
    Status(StatusArgs),
    /// Print the brief of the task to do next: the one in progress, else the first ready.
    Next,
    /// Draw the task graph as Mermaid or Graphviz DOT.
    Graph(GraphArgs),
    /// Print the event log (events.jsonl); --follow keeps printing new events.
    Events(EventsArgs),
    /// Print a task's log: by default the task in progress, else the first failed one.
    Logs(LogsArgs),
    /// Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary.
    Report(ReportArgs),
    /// Move a completed workflow into archive/<UTC time>/ so a new one can start.
    Archive,
    /// Print a shell completion script (see completions/ for installed copies).
    #[command(after_help = concat!(
        "The script calls back into `wf` (from PATH) on TAB, so it also completes task ids,\n",
        "blocker kinds, constraint ids and plan files from the project's workflow. Load it:\n",
        "  bash        source <(wf completions bash)        in ~/.bashrc\n",
        "  zsh         source <(wf completions zsh)         in ~/.zshrc, after compinit\n",
        "  fish        wf completions fish > ~/.config/fish/completions/wf.fish\n",
        "  elvish      eval (wf completions elvish | slurp) in ~/.config/elvish/rc.elv\n",
        "  powershell  wf completions powershell | Out-String | Invoke-Expression   in $PROFILE",
    ))]
    Completions(CompletionsArgs),
    /// Show the executors as a capability catalog: who can do what, and who is usable.
    Resources,
    /// Print the man page as roff (man ./wf.1).
    Man,
    /// Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit,
    /// Stop, SubagentStop). Never blocks the editor on its own errors.
    Hook(HookArgs),
    /// The workflow's constraints: add, list, remove, promote, merge model outputs, verify.
    Constraints(ConstraintsArgs),
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The plan file: a claude-workflow or spec-kit tasks.md.
    #[arg(add = ArgValueCompleter::new(complete::plan_files))]
    pub plan: PathBuf,
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

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The plan file: a claude-workflow or spec-kit tasks.md.
    #[arg(add = ArgValueCompleter::new(complete::plan_files))]
    pub plan: PathBuf,
    /// Exit 1 when there are warnings (errors always exit 2).
    #[arg(long)]
    pub strict: bool,
}

#[derive(Debug, Args, Clone, Default)]
pub struct ExecuteArgs {
    /// Stop after every task.
    #[arg(long, group = "mode")]
    pub step: bool,
    /// Stop when the next task's phase differs (the default).
    #[arg(long, group = "mode")]
    pub phase: bool,
    /// Stop only before quality gates and before git_commit (when pause_before_commit).
    #[arg(long, group = "mode")]
    pub all: bool,
    /// Run the whole plan in one call: gates run and must pass but do not pause, the
    /// consecutive-task and context limits do not apply, and a task that needs an agent
    /// fails instead of being handed off. Implied when the environment has CI=true.
    #[arg(long)]
    pub ci: bool,
    /// Retry the failed task (or TASK): back to pending, retry_counts + 1.
    #[arg(long, value_name = "TASK", num_args = 0..=1, default_missing_value = "",
          add = ArgValueCandidates::new(complete::task_ids))]
    pub retry: Option<String>,
    /// Skip the failed task (or TASK) and go on; needs --reason.
    #[arg(long, value_name = "TASK", num_args = 0..=1, default_missing_value = "", requires = "reason",
          add = ArgValueCandidates::new(complete::task_ids))]
    pub skip: Option<String>,
    /// Why the task is skipped (kept in skipped_info).
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
    /// Write a JUnit XML report (one testcase per task) to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Start even though the plan's zero-decision audit found errors.
    #[arg(long)]
    pub allow_audit_errors: bool,
    /// Start even though constraints.openQuestions is not empty.
    #[arg(long)]
    pub allow_open_questions: bool,
}

#[derive(Debug, Args)]
pub struct UnblockArgs {
    /// The blocker kind to lift: api_spec, design_spec, a custom kind from config, or all.
    #[arg(add = ArgValueCandidates::new(complete::blocker_kinds))]
    pub kind: String,
}

#[derive(Debug, Args)]
pub struct ResumeArgs {
    #[command(flatten)]
    pub execute: ExecuteArgs,
    /// Without a workflow in this project: resume the first resumable one without asking.
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    /// Also show phases, constraints, audit findings and quality gates.
    #[arg(long)]
    pub detail: bool,
    /// List only the failed tasks.
    #[arg(long)]
    pub failed: bool,
    /// List only the tasks of this phase.
    #[arg(long, value_name = "PHASE", add = ArgValueCandidates::new(complete::phases))]
    pub phase: Option<String>,
    /// List every task; without it a plan of more than 40 tasks lists those that need
    /// attention and the next ones to do.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The picture's language.
    #[arg(long, value_enum, default_value_t = GraphFormat::Mermaid)]
    pub format: GraphFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// A Mermaid flowchart (renders in GitHub Markdown).
    Mermaid,
    /// Graphviz DOT (`wf graph --format dot | dot -Tsvg`).
    Dot,
}

#[derive(Debug, Args)]
pub struct EventsArgs {
    /// Keep printing new events as they are written, until interrupted.
    #[arg(short, long)]
    pub follow: bool,
    /// Only the events of this task.
    #[arg(long, value_name = "TASK", add = ArgValueCandidates::new(complete::task_ids))]
    pub task: Option<String>,
    /// Only events of this type (e.g. task.status_changed; see docs/events.md).
    #[arg(long = "type", value_name = "TYPE", add = ArgValueCandidates::new(complete::event_types))]
    pub kind: Option<String>,
    /// Only the last N of the events already written (then --follow goes on).
    #[arg(short = 'n', long = "last", value_name = "N")]
    pub last: Option<usize>,
}

#[derive(Debug, Args)]
pub struct LogsArgs {
    /// The task (default: the one in progress, else the first failed, else the last
    /// that ran).
    #[arg(add = ArgValueCandidates::new(complete::task_ids))]
    pub task: Option<String>,
    /// Which attempt (default: the last).
    #[arg(long, value_name = "N")]
    pub attempt: Option<u32>,
    /// Print the log's absolute path instead of its text.
    #[arg(long)]
    pub path: bool,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// Which report to print.
    #[arg(value_enum)]
    pub format: ReportFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ReportFormat {
    /// JUnit XML: one test case per task, failures with their log tail.
    Junit,
    /// GitHub Actions `::error`/`::warning` lines for failed and blocked tasks.
    GithubAnnotations,
    /// Markdown for $GITHUB_STEP_SUMMARY.
    GithubSummary,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct HookArgs {
    /// The hook event (the JSON's hook_event_name wins when present).
    pub event: String,
}

#[derive(Debug, Args)]
pub struct ConstraintsArgs {
    #[command(subcommand)]
    pub command: ConstraintsCommand,
}

#[derive(Debug, Subcommand)]
pub enum ConstraintsCommand {
    /// Add a hard (default) or soft constraint; prints its new id.
    Add(ConstraintAddArgs),
    /// List the constraints, open questions and success criteria (read-only).
    List,
    /// Remove a constraint (and its verification record).
    Remove {
        /// The constraint's id, e.g. C003.
        #[arg(add = ArgValueCandidates::new(complete::constraint_ids))]
        id: String,
    },
    /// Make a soft constraint hard: from now on it must hold.
    Promote {
        /// The soft constraint's id.
        #[arg(add = ArgValueCandidates::new(complete::soft_constraint_ids))]
        id: String,
    },
    /// Merge constraint-set JSON files (one model's analysis output each) into the
    /// workflow's constraints; reports what the caps left out.
    Merge {
        /// Files with {"hard": [...], "soft": [...], "openQuestions": [...], "successCriteria": [...]}.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Run hard constraints' verifyCmd (all, or the ids given) and record the results;
    /// exits 1 when one fails.
    Verify {
        /// Only these hard constraints.
        #[arg(value_name = "ID", add = ArgValueCandidates::new(complete::hard_constraint_ids))]
        ids: Vec<String>,
    },
}

#[derive(Debug, Args)]
pub struct ConstraintAddArgs {
    /// What must (or should) hold.
    pub description: String,
    /// A soft constraint: should hold, is not verified.
    #[arg(long)]
    pub soft: bool,
    /// The category (default: detected from the description).
    #[arg(long, value_enum)]
    pub category: Option<Category>,
    /// Who stated it.
    #[arg(long, value_enum, default_value_t = Source::User)]
    pub source: Source,
    /// When it was stated.
    #[arg(long, value_enum, default_value_t = Phase::Analysis)]
    pub phase: Phase,
    /// The command that proves it: a builtin verifier (ts_typecheck, lint, test,
    /// build) or a command starting with an allowed prefix (wf.allowed_command_prefixes).
    #[arg(long, value_name = "CMD")]
    pub verify_cmd: Option<String>,
}
