//! The arguments of the commands that look at a workflow or act on one task:
//! `show`, `workflow-unblock`, `ui`, `archive`, `resume`, `status`, `next`, `done`,
//! `graph`, `events`, `logs`, `report`.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use clap_complete::ArgValueCandidates;

use super::ExecuteArgs;
use crate::complete;

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
pub struct NextArgs {
    /// Lease the task to this agent: another agent's `next` gets another task, and
    /// this one comes back with `wf done --agent NAME`. Without it, `next` only reads.
    #[arg(long, value_name = "NAME")]
    pub agent: Option<String>,
    /// Do the leased task in its own git worktree (as `wf.agents.worktrees`).
    #[arg(long, requires = "agent")]
    pub worktree: bool,
}

#[derive(Debug, Args)]
pub struct DoneArgs {
    /// The agent whose leased task is checked.
    #[arg(long, value_name = "NAME")]
    pub agent: String,
}

#[derive(Debug, Args)]
pub struct GraphArgs {
    /// How to draw it: the tasks by level as text on a terminal, a Mermaid
    /// flowchart in a pipe or file, unless named here.
    #[arg(long, value_enum)]
    pub format: Option<GraphFormat>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// The tasks by level, each with its status and what it waits for.
    Text,
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
    /// Only events of this type (task.status_changed; see docs/events.md), or of
    /// every type ending in it (status_changed: the task and workflow moves).
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
