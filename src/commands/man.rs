//! `wf man [COMMAND]`: the man pages as roff, generated from the clap definitions so
//! they always match this build — wf(1), and a page per subcommand (wf-status(1),
//! wf-constraints-add(1)), which wf(1)'s SUBCOMMANDS section names. The pages are
//! committed in `completions/`; `scripts/refresh-completions` regenerates them.
//!
//! wf(1) has the sections a man page reader looks for beyond the options: EXIT STATUS
//! (from the error kinds, so it cannot drift from the codes), ENVIRONMENT, FILES and
//! EXAMPLES.

use clap::CommandFactory;
use clap_mangen::roff::{bold, italic, roman, Inline, Roff};
use clap_mangen::Man;

use crate::cli::{Cli, ManArgs};
use crate::error::{ErrorKind, Result, WfError};
use crate::output::Output;

pub fn run(args: &ManArgs, out: &Output) -> Result<i32> {
    let cli = command();
    let page = if args.command.is_empty() {
        main_page(&cli)
    } else {
        let sub = find(&cli, &args.command)?;
        render(|w| Man::new(sub.clone()).render(w))
    }?;
    out.print(page)?;
    Ok(0)
}

/// The command line as the pages describe it: built (so every subcommand knows its
/// `wf-…` name) and without clap's `help` subcommand, which has no page. The pages
/// name the release, not the commit `--version` names: they are committed, and
/// would change with every commit.
fn command() -> clap::Command {
    let mut cli = Cli::command()
        .disable_help_subcommand(true)
        .version(env!("CARGO_PKG_VERSION"));
    cli.build();
    cli
}

fn find<'a>(cli: &'a clap::Command, path: &[String]) -> Result<&'a clap::Command> {
    let mut cmd = cli;
    for name in path {
        cmd = cmd.find_subcommand(name).ok_or_else(|| {
            let known: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
            WfError::usage(format!(
                "`{}` has no subcommand {name:?}; the pages are for {}",
                cmd.get_display_name().unwrap_or("wf"),
                known.join(", ")
            ))
        })?;
    }
    Ok(cmd)
}

fn render(f: impl FnOnce(&mut Vec<u8>) -> std::io::Result<()>) -> Result<Vec<u8>> {
    let mut buf = Vec::new();
    f(&mut buf).map_err(|e| WfError::io(&e, format!("cannot render the man page: {e}")))?;
    Ok(buf)
}

/// wf(1): clap's sections, then the ones written here, then the version.
fn main_page(cli: &clap::Command) -> Result<Vec<u8>> {
    let man = Man::new(cli.clone());
    render(|w| {
        man.render_title(w)?;
        man.render_name_section(w)?;
        man.render_synopsis_section(w)?;
        man.render_description_section(w)?;
        man.render_options_section(w)?;
        man.render_subcommands_section(w)?;
        extra_sections().to_writer(w)?;
        man.render_version_section(w)
    })
}

fn extra_sections() -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    item(&mut roff, bold("0"), crate::error::SUCCESS_MEANING);
    for kind in ErrorKind::ALL {
        item(
            &mut roff,
            bold(kind.exit_code().to_string()),
            kind.meaning(),
        );
    }
    roff.control("SH", ["ENVIRONMENT"]);
    for (name, what) in ENVIRONMENT {
        item(&mut roff, bold(*name), what);
    }
    roff.control("SH", ["FILES"]);
    for (path, what) in FILES {
        item(&mut roff, italic(*path), what);
    }
    roff.control("SH", ["EXAMPLES"]);
    for (line, what) in EXAMPLES {
        item(&mut roff, bold(*line), what);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman(
        "wf-workflow-start(1), wf-workflow-execute(1), wf-status(1), wf-init(1), wf-doctor(1); \
         docs/ in the source repository.",
    )]);
    roff
}

/// A tagged paragraph: the tag on its own line, the text indented under it.
fn item(roff: &mut Roff, tag: Inline, text: &str) {
    roff.control("TP", []);
    roff.text([tag]);
    roff.text([roman(text)]);
}

const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "WF_HOME",
        "Where workflows live (an absolute path); default ~/.claude/workflows.",
    ),
    (
        "NO_COLOR",
        "Set and not empty: no colour, unless --color always or CLICOLOR_FORCE.",
    ),
    ("CLICOLOR", "0: no colour."),
    ("CLICOLOR_FORCE", "Set and not 0: colour even in a pipe."),
    (
        "COLUMNS",
        "The width tables and the progress bar fit, instead of the terminal's.",
    ),
    (
        "CI",
        "true or 1: workflow-execute runs as with --ci (no hand-off, no pause at gates).",
    ),
    (
        "GITHUB_ACTIONS",
        "true: workflow-execute prints ::error annotations with the plan's file and line.",
    ),
    (
        "GITHUB_STEP_SUMMARY",
        "Under GitHub Actions, the file the job summary is appended to.",
    ),
    (
        "GITHUB_WORKSPACE",
        "Annotations name the plan relative to it.",
    ),
    (
        "GITLAB_CI",
        "true: each task's output is a collapsible section.",
    ),
    (
        "WF_RESULT_KEY",
        "Set and not empty: run-task signs its results with it (HMAC-SHA256), and import-results refuses results not signed with it.",
    ),
    (
        "COMPLETE",
        "Set by the completion scripts: wf answers with completion candidates.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "$WF_HOME/<project-id>/workflow-state.json",
        "The state, readable by the claude-workflow plugin.",
    ),
    (
        "$WF_HOME/<project-id>/events.jsonl",
        "Every change, one JSON event per line (wf events).",
    ),
    (
        "$WF_HOME/<project-id>/logs/<task>.<attempt>.log",
        "What a task's checks printed (wf logs).",
    ),
    (
        "$WF_HOME/<project-id>/archive/",
        "Archived workflows (wf archive).",
    ),
    (
        ".claude/config/project-config.json",
        "The project's config: executors, timeouts, allowed command prefixes.",
    ),
    (
        ".claude/settings.json",
        "Claude Code's settings, where wf init puts the wf hook entries.",
    ),
];

const EXAMPLES: &[(&str, &str)] = &[
    (
        "wf init",
        "A starter plan, config and hook settings in a new project.",
    ),
    (
        "wf check tasks.md",
        "Every finding in a plan, nothing written.",
    ),
    (
        "wf workflow-start tasks.md && wf workflow-execute",
        "Import a plan and run it to the mode's next stop.",
    ),
    (
        "wf workflow-execute --all --ci -k",
        "A CI job: the whole plan; after a failure, everything that does not depend on it.",
    ),
    (
        "wf status --failed",
        "What failed; then wf logs for the log of the first failure.",
    ),
    ("wf resume", "Continue after a pause, a crash or a fix."),
];
