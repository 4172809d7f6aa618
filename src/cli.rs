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
    #[arg(
        short = 'C',
        long = "project",
        global = true,
        help_heading = "Global options",
        value_name = "DIR",
        value_hint = ValueHint::DirPath
    )]
    pub project: Option<PathBuf>,
    /// Print machine-readable JSON on stdout (errors too).
    #[arg(long, global = true, help_heading = "Global options")]
    pub json: bool,
    /// When to use colour. auto: on a terminal, unless NO_COLOR is set or CLICOLOR=0;
    /// CLICOLOR_FORCE=1 turns it on in a pipe too; --color always/never beat them all.
    #[arg(long, global = true, help_heading = "Global options", value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
    /// Print only errors.
    #[arg(short, long, global = true, help_heading = "Global options")]
    pub quiet: bool,
    /// If another wf holds the workflow's lock, wait for it (default 600 s) instead of failing.
    #[arg(long, global = true, help_heading = "Global options", value_name = "SECS", num_args = 0..=1, default_missing_value = "600")]
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
    /// Set the project up: a starter tasks.md, the project config and the Claude Code
    /// hook settings. Never writes over a file: an existing plan or config is refused
    /// (--force replaces it, keeping a backup); existing settings get the hooks merged in.
    #[command(after_help = concat!(
        "Examples:\n",
        "  wf init                 write tasks.md, .claude/config/project-config.json and\n",
        "                          .claude/settings.json; nothing is written if a plan or\n",
        "                          config is already there\n",
        "  wf init -C ../api       set up another project\n",
        "  wf init --force         replace them, each old file kept as FILE.backup-<ms>\n",
        "  wf init --json          list each file as created, replaced, merged or skipped",
    ))]
    Init(InitArgs),
    /// Check the setup for what would break later: the config, the executors, the
    /// Claude Code hooks, the constraints' verify commands, the state and the lock.
    /// Read-only; exits 1 when a check finds a problem.
    #[command(after_help = concat!(
        "Examples:\n",
        "  wf doctor               one line per check: ok, warning or problem, with the fix\n",
        "  wf doctor -C ../api     check another project\n",
        "  wf doctor --json        {schemaVersion, checks: [{name, status, message, fix}], ok}\n",
        "  wf doctor -q && wf workflow-execute\n",
        "                          run only when no check finds a problem",
    ))]
    Doctor,
    /// Import a plan (claude-workflow or spec-kit tasks.md) and plan the workflow.
    #[command(
        visible_alias = "start",
        after_help = concat!(
            "Examples:\n",
            "  wf workflow-start specs/001/tasks.md   import a spec-kit plan\n",
            "  wf start tasks.md --name billing       the same, naming the workflow\n",
            "  wf start tasks.md --force              apply a major change (a backup is kept)",
        )
    )]
    WorkflowStart(StartArgs),
    /// Lint a plan without importing it: parse errors, plan warnings, audit findings and
    /// the tasks that would start blocked, as file:line: severity: message. Writes nothing.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf check tasks.md            every finding at once, nothing written\n",
            "  wf check tasks.md --strict   exit 1 on warnings too (for CI)",
        ))]
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
    /// Check completed tasks again where their inputs changed: a task whose
    /// definition, declared files and upstream tasks are as when it passed is up to
    /// date and not run; one that now fails goes back to pending, and the command
    /// exits 1 naming it.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf verify                      check again what changed since it passed\n",
            "  wf verify --dry-run            list what would run, and which input changed\n",
            "  wf verify T3                   T3 and the tasks that depend on it\n",
            "  wf verify --cache .wf-cache    share passes with CI (restore and save the dir)\n",
            "  wf verify --all --json         every check again, the result for a CI job",
        ))]
    Verify(VerifyArgs),
    /// The portable proof: export the evidence of every completed task as one JSON
    /// document, or check such a document against the working tree — without the
    /// workflow, so a reviewer or a CI job in a fresh clone can confirm that nothing the
    /// tasks cover changed since they passed.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf proof export proof.json      write the proof of every completed task\n",
            "  wf proof check proof.json       exit 0 when nothing any task covers changed,\n",
            "                                  1 naming each task that changed or was edited\n",
            "  wf proof export - | jq .tasks   the document on stdout",
        ))]
    Proof(ProofArgs),
    /// Show one task for people: its definition, status, declared files and checks,
    /// its evidence (each check run, the executor, the claim and what changed) and
    /// whether it is up to date now, with the input that changed.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf show T3          the task, its proof, and whether it still holds\n",
            "  wf show T3 --json   the task as the state holds it, with up_to_date and changed",
        ))]
    Show(ShowArgs),
    /// Lift an external blocker (api_spec, design_spec, a custom kind, or all).
    #[command(
        visible_alias = "unblock",
        after_help = concat!(
            "Examples:\n",
            "  wf unblock api_spec   the API spec arrived: its tasks become ready\n",
            "  wf unblock all        lift every blocker",
        )
    )]
    WorkflowUnblock(UnblockArgs),
    /// Continue a paused, interrupted, blocked or failed workflow.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf resume         continue this project's workflow\n",
            "  wf resume --yes   outside a project: the most promising one",
        ))]
    Resume(ResumeArgs),
    /// Show where the workflow stands (read-only).
    #[command(
        visible_alias = "st",
        after_help = concat!(
            "Examples:\n",
            "  wf status                         the summary and the task list\n",
            "  wf status --failed                only what failed\n",
            "  wf status --phase build --all     every task of one phase\n",
            "  wf status --json | jq .progress   for scripts",
        )
    )]
    Status(StatusArgs),
    /// Print the brief of the task to do next: the one in progress, else the first ready.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf next                                  the brief of the task to do now\n",
            "  wf next --json | jq -r .brief.markdown   the brief for an agent",
        ))]
    Next,
    /// List every workflow under the home (WF_HOME): project, name, status, progress,
    /// last update — so a moved or re-cloned project can find its workflow.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf list          every workflow under the home\n",
            "  wf list --json   for scripts",
        ))]
    List,
    /// Draw the task graph as Mermaid or Graphviz DOT.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf graph > graph.mmd                            a Mermaid flowchart\n",
            "  wf graph --format dot | dot -Tsvg > graph.svg   a picture with Graphviz",
        ))]
    Graph(GraphArgs),
    /// Print the event log (events.jsonl); --follow keeps printing new events.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf events -n 20                  the last 20 events\n",
            "  wf events --task T3 --since 1h   what happened to T3 in the last hour\n",
            "  wf events --follow --json        a live feed, one JSON document per line",
        ))]
    Events(EventsArgs),
    /// Print a task's log: by default the task in progress, else the first failed one.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf logs                  the failed (or running) task's last log\n",
            "  wf logs T3 --attempt 1   T3's first attempt\n",
            "  wf logs --follow         watch the running task",
        ))]
    Logs(LogsArgs),
    /// Print a CI report: JUnit XML, GitHub annotations or a GitHub job summary.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf report junit -o junit.xml                       JUnit XML for a CI test report\n",
            "  wf report github-summary >> $GITHUB_STEP_SUMMARY   a job summary",
        ))]
    Report(ReportArgs),
    /// Run one task's checks on their own (a CI job, another machine) and write a
    /// result file for `wf import-results` — or a chain of tasks, in order, until the
    /// first failure. Takes no lock and writes nothing in the workflow; exits 0 or 1
    /// as the checks did.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf run-task T3 --result results/T3.json      run T3's checks, write what they did\n",
            "  wf run-task T3 --result r.json --json        the same result on stdout too\n",
            "  wf run-task T7 --ci --result r.json          an agent task: a failed result, as a CI run fails it\n",
            "  wf run-task T1 T2 T3 --result-dir results    a chain: results/T1.json, …; stops at the first failure",
        ))]
    RunTask(RunTaskArgs),
    /// Fold result files of `wf run-task` into the workflow, as if the tasks had run
    /// here: in dependency order, each result for this plan and this tree only, the
    /// same one twice changing nothing. A result is refused when it cannot be true,
    /// ran on another tree, or (with WF_RESULT_KEY set) is not signed with that key.
    /// Exits 1 when a task failed or (with --job) a result is missing, 2 when a result
    /// was refused.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf import-results results/                 every result file under results/\n",
            "  gh run download 1234 -p 'wf-result-*' -D results && wf import-results results\n",
            "                                             bring a GitHub Actions run's results home\n",
            "  wf import-results T1.json T2.json --json   two files, and what became of each\n",
            "  wf import-results results --job task-T1=T1,T2 --job task-T3=T3\n",
            "                                             each job's directory gives only its tasks' results",
        ))]
    ImportResults(ImportResultsArgs),
    /// Write a CI pipeline that runs the plan's tasks as jobs: GitHub Actions or
    /// GitLab CI, one job per task or per chain of tasks, `needs` from the plan's
    /// dependencies, each task's declared outputs handed to the tasks after it, and
    /// a collect job that imports the results and reports. Runners, setup steps,
    /// triggers, timeouts and variables come from `wf.export` in the project config,
    /// so exporting again keeps them.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf export github-actions -o .github/workflows/wf.yml\n",
            "  wf export gitlab-ci -o .gitlab-ci.yml\n",
            "  wf export github-actions --check -o .github/workflows/wf.yml   exit 1 when it is out of date\n",
            "  wf export github-actions --agent-tasks omit   leave agent tasks (and what needs them) out",
        ))]
    Export(ExportArgs),
    /// Move a completed workflow into archive/<UTC time>/ so a new one can start.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf archive               put a completed workflow away\n",
            "  wf archive --force       abandon a failed, paused or blocked one (its record is kept)\n",
            "  wf start next-tasks.md   then start the next one",
        ))]
    Archive(ArchiveArgs),
    /// Print a shell completion script (see completions/ for installed copies).
    #[command(after_help = concat!(
        "The script calls back into `wf` (from PATH) on TAB, so it also completes task ids,\n",
        "blocker kinds, constraint ids and plan files from the project's workflow. Load it:\n",
        "  bash        source <(wf completions bash)        in ~/.bashrc\n",
        "  zsh         source <(wf completions zsh)         in ~/.zshrc, after compinit\n",
        "  fish        wf completions fish > ~/.config/fish/completions/wf.fish\n",
        "  elvish      eval (wf completions elvish | slurp) in ~/.config/elvish/rc.elv\n",
        "  powershell  wf completions powershell | Out-String | Invoke-Expression   in $PROFILE\n\n",
        "Examples:\n",
        "  wf completions bash > ~/.local/share/bash-completion/completions/wf",
    ))]
    Completions(CompletionsArgs),
    /// Show the executors as a capability catalog: who can do what, and who is usable.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf resources   who can do what, and who is usable",
        ))]
    Resources,
    /// Print a man page as roff: wf(1), or a subcommand's (`wf man status`).
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf man | man -l -          read this page\n",
            "  wf man status | man -l -   the page of one subcommand",
        ))]
    Man(ManArgs),
    /// Claude Code hook: reads the hook JSON on stdin (SessionStart, UserPromptSubmit,
    /// Stop, SubagentStop). Never blocks the editor on its own errors.
    #[command(after_help = concat!(
            "Examples:\n",
            "  echo '{}' | wf hook SessionStart   what Claude Code runs at a session's start",
        ))]
    Hook(HookArgs),
    /// Serve the workflow to an AI agent over MCP (stdio): the tools next, done, status, logs.
    ///
    /// The agent asks `next` for its task (an agent task is handed off to it, as
    /// `wf workflow-execute` hands one off), does it, and calls `done`: wf runs the
    /// task's checks and answers what is next, or each failing check with the end of
    /// its log. No lock is held between calls, so a shell `wf` works on the same
    /// workflow meanwhile; a call waits for another `wf`'s lock (`--wait SECS`, 600 by
    /// default).
    #[command(after_help = concat!(
            "Examples:\n",
            "  claude mcp add wf -- wf mcp                    register it with Claude Code\n",
            "  claude mcp add wf -- wf -C ~/src/app mcp       for a project elsewhere\n",
            "  {\"mcpServers\": {\"wf\": {\"command\": \"wf\", \"args\": [\"mcp\"]}}}   other clients' config",
        ))]
    Mcp,
    /// Serve a live view of the workflow on 127.0.0.1: the task canvas, the event
    /// timeline, the executors' resources, and the CLI's actions as buttons.
    ///
    /// Everything the page shows is read from the event log and the state, as `wf
    /// status` and `wf events` read them, and it follows the log while `wf
    /// workflow-execute`, `wf mcp` or `wf import-results` run in other processes. A
    /// button runs this `wf` with the arguments you would type (`workflow-execute
    /// --retry T3`, `workflow-unblock api_spec`, ...), so it takes the lock and is
    /// refused just as the command would be. The printed URL carries a secret token
    /// that every request needs; runs until Ctrl-C.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf ui                     serve on a free port and print the URL to open\n",
            "  wf ui --open --port 8600  on port 8600, opened in the browser\n",
            "  wf ui --read-only         look, no buttons: every write is refused\n",
            "  wf ui --archived          the newest archived workflow (read-only)",
        ))]
    Ui(UiArgs),
    /// The workflow's constraints: add, list, remove, promote, merge model outputs, verify.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf constraints add \"p95 under 200 ms\" --verify-cmd test   a hard constraint that a check proves\n",
            "  wf constraints list\n",
            "  wf constraints verify                                     run every hard constraint's check",
        ))]
    Constraints(ConstraintsArgs),
}

/// How a subcommand's arguments are added to its clap `Command`.
pub type Augment = fn(clap::Command) -> clap::Command;

/// Each subcommand of [`Command`] as the parser needs it and no more: its name, its
/// aliases and its arguments — no about, help or examples, which only the whole tree's
/// help shows. `wf` parses a line against the one subcommand it names
/// (src/lib.rs `one_subcommand`) instead of building all of them; a test checks this
/// table against `Cli::command()`, so a subcommand added above and not here fails it.
pub const SUBCOMMANDS: &[(&str, &[&str], Augment)] = &[
    ("init", &[], InitArgs::augment_args),
    ("doctor", &[], no_args),
    ("workflow-start", &["start"], StartArgs::augment_args),
    ("check", &[], CheckArgs::augment_args),
    ("workflow-execute", &["execute"], ExecuteArgs::augment_args),
    ("verify", &[], VerifyArgs::augment_args),
    ("proof", &[], ProofArgs::augment_args),
    ("show", &[], ShowArgs::augment_args),
    ("workflow-unblock", &["unblock"], UnblockArgs::augment_args),
    ("resume", &[], ResumeArgs::augment_args),
    ("status", &["st"], StatusArgs::augment_args),
    ("next", &[], no_args),
    ("list", &[], no_args),
    ("graph", &[], GraphArgs::augment_args),
    ("events", &[], EventsArgs::augment_args),
    ("logs", &[], LogsArgs::augment_args),
    ("report", &[], ReportArgs::augment_args),
    ("run-task", &[], RunTaskArgs::augment_args),
    ("import-results", &[], ImportResultsArgs::augment_args),
    ("export", &[], ExportArgs::augment_args),
    ("archive", &[], ArchiveArgs::augment_args),
    ("completions", &[], CompletionsArgs::augment_args),
    ("resources", &[], no_args),
    ("man", &[], ManArgs::augment_args),
    ("hook", &[], HookArgs::augment_args),
    ("mcp", &[], no_args),
    ("ui", &[], UiArgs::augment_args),
    ("constraints", &[], ConstraintsArgs::augment_args),
];

fn no_args(command: clap::Command) -> clap::Command {
    command
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Replace an existing tasks.md or project config (and settings that cannot be
    /// merged); each old file is kept as FILE.backup-<ms>.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct StartArgs {
    /// The plan file: a tasks.md of claude-workflow, spec-kit, Kiro, OpenSpec, a BMAD
    /// story, or Taskmaster's tasks.json.
    #[arg(add = ArgValueCompleter::new(complete::plan_files))]
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

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The plan file: a tasks.md of claude-workflow, spec-kit, Kiro, OpenSpec, a BMAD
    /// story, or Taskmaster's tasks.json.
    #[arg(add = ArgValueCompleter::new(complete::plan_files))]
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

#[derive(Debug, Args)]
pub struct ShowArgs {
    /// The task's id.
    #[arg(value_name = "TASK", add = ArgValueCandidates::new(complete::task_ids))]
    pub task: String,
}

#[derive(Debug, Args)]
pub struct UnblockArgs {
    /// The blocker kind to lift: api_spec, design_spec, a custom kind from config, or all.
    #[arg(add = ArgValueCandidates::new(complete::blocker_kinds))]
    pub kind: String,
}

#[derive(Debug, Args)]
pub struct UiArgs {
    /// The port on 127.0.0.1 to serve on (default: a free one).
    #[arg(long, value_name = "PORT", default_value_t = 0)]
    pub port: u16,
    /// Open the page in the browser (xdg-open, or $BROWSER).
    #[arg(long)]
    pub open: bool,
    /// Show only: no buttons, and every write is refused.
    #[arg(long)]
    pub read_only: bool,
    /// Show an archived workflow (read-only): the one archived at STAMP (a name under
    /// the workflow dir's archive/), or the newest.
    #[arg(long, value_name = "STAMP", num_args = 0..=1, default_missing_value = "")]
    pub archived: Option<String>,
}

#[derive(Debug, Args)]
pub struct ArchiveArgs {
    /// Archive a workflow that did not complete (failed, paused, blocked or not
    /// started): it is abandoned, its state, events and logs kept in the archive.
    #[arg(long)]
    pub force: bool,
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
    /// Only events at or after WHEN: a time (2026-11-25T10:00:00Z) or an age (30s,
    /// 15m, 2h, 3d).
    #[arg(long, value_name = "WHEN")]
    pub since: Option<String>,
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
    #[arg(long, conflicts_with = "follow")]
    pub path: bool,
    /// Keep printing what the attempt writes until it ends (or Ctrl-C).
    #[arg(short, long)]
    pub follow: bool,
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
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (e.g. `status`, `constraints add`); none for
    /// wf(1) itself.
    #[arg(value_name = "COMMAND")]
    pub command: Vec<String>,
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
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf constraints add \"no plaintext passwords\" --category security\n",
            "  wf constraints add \"the build passes\" --verify-cmd build          proved by a check\n",
            "  wf constraints add \"prefer small PRs\" --soft                      should hold, not verified",
        ))]
    Add(ConstraintAddArgs),
    /// List the constraints, open questions and success criteria (read-only).
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf constraints list\n",
            "  wf constraints list --json | jq '.constraints.hard[].id'",
        ))]
    List,
    /// Remove a constraint (and its verification record).
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf constraints remove C003",
        ))]
    Remove {
        /// The constraint's id, e.g. C003.
        #[arg(add = ArgValueCandidates::new(complete::constraint_ids))]
        id: String,
    },
    /// Make a soft constraint hard: from now on it must hold.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf constraints promote C007   a soft constraint becomes hard",
        ))]
    Promote {
        /// The soft constraint's id.
        #[arg(add = ArgValueCandidates::new(complete::soft_constraint_ids))]
        id: String,
    },
    /// Merge constraint-set JSON files (one model's analysis output each) into the
    /// workflow's constraints; reports what the caps left out.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf constraints merge codex.json gemini.json claude.json   three models' analyses into one set",
        ))]
    Merge {
        /// Files with {"hard": [...], "soft": [...], "openQuestions": [...], "successCriteria": [...]}.
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
    /// Run hard constraints' verifyCmd (all, or the ids given) and record the results;
    /// exits 1 when one fails.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf constraints verify             every hard constraint with a check\n",
            "  wf constraints verify C001 C004   just these",
        ))]
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
