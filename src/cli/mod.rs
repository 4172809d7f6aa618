//! The command line, as clap definitions only. Each subcommand's behaviour lives in
//! `commands/<name>.rs`; the completion candidates an argument names
//! (`add = ArgValueCandidates::new(complete::…)`) live in `complete.rs`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum, ValueHint};

mod ci;
mod constraints;
mod run;
mod view;

pub use ci::*;
pub use constraints::*;
pub use run::*;
pub use view::*;

#[derive(Debug, Parser)]
#[command(
    name = "wf",
    version = env!("WF_VERSION"),
    about = "A fast, crash-safe workflow engine: import a task plan, run and verify its tasks, resume exactly where it stopped.",
    long_about = None,
    after_help = "Start with `wf workflow-start PLAN.md`, then `wf workflow-execute` and `wf status`.\n\
                  State lives in $WF_HOME (default ~/.claude/workflows)/<project-id>/.\n\
                  Exit codes: 0 ok (also a task handed off to you), 1 failed, 2 bad input, 3 blocked, 4 locked, 5 corrupt state, 7 I/O error, 130 interrupted."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// Also list the archived workflows (`wf archive`), each by its archive
    /// directory: `<id>/archive/<UTC time>`.
    #[arg(long)]
    pub archived: bool,
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
    /// With --agent, lease it to that agent (docs/guide.md "Several agents at once").
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf next                                  the brief of the task to do now\n",
            "  wf next --json | jq -r .brief.markdown   the brief for an agent\n",
            "  wf next --agent alice --worktree         lease alice a task, in its own git worktree\n",
            "  wf done --agent alice                    check alice's task and merge it back",
        ))]
    Next(NextArgs),
    /// Check the task leased to an agent (`wf next --agent`), record it, and merge its
    /// worktree back when it passes. Exit 0 passed, 1 failed or in conflict.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf done --agent alice          alice's task: its checks, then the merge\n",
            "  wf done --agent alice --json   the result for scripts",
        ))]
    Done(DoneArgs),
    /// List every workflow under the home (WF_HOME): project, name, status, progress,
    /// last update — so a moved or re-cloned project can find its workflow.
    #[command(after_help = concat!(
            "Examples:\n",
            "  wf list              every workflow under the home\n",
            "  wf list --archived   the archived ones too\n",
            "  wf list --json       for scripts",
        ))]
    List(ListArgs),
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
    ("next", &[], NextArgs::augment_args),
    ("done", &[], DoneArgs::augment_args),
    ("list", &[], ListArgs::augment_args),
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
