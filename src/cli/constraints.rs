//! The arguments of `wf constraints` and its subcommands.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use clap_complete::ArgValueCandidates;

use crate::complete;
use crate::constraints::vocabulary::{Category, Phase, Source};

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
    /// The command that proves it: a builtin verifier (typecheck, lint, test,
    /// build) or a command starting with an allowed prefix (wf.allowed_command_prefixes).
    #[arg(long, value_name = "CMD")]
    pub verify_cmd: Option<String>,
    /// Commit it with the project: it joins `wf.constraints` in the project config,
    /// which every workflow started here begins with — a CI job's too, so an exported
    /// quality gate checks it. Added to the current workflow as well, if there is one.
    #[arg(long = "project-config")]
    pub project_config: bool,
}
