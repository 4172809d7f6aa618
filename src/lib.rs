//! `wf`: a fast, crash-safe workflow engine with file-based state.
//!
//! The binary (`main.rs`) is a thin shell around [`run_cli`]. The library exists so
//! fuzz targets, benchmarks and property tests reach the parsers and the store
//! directly. Layout (docs/ARCHITECTURE.md): `commands` → `run` → `state`/`plan`; `report`
//! turns results into text; nothing below `commands` prints or knows clap.

// Every write to stdout and stderr goes through `output`, which never panics.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod beside;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod complete;
pub mod config;
pub mod constraints;
pub mod error;
pub mod escape;
pub mod exec;
pub mod fs;
pub mod import;
#[cfg(feature = "mcp")]
pub mod mcp;
pub mod output;
pub mod plan;
pub mod project;
pub mod proof;
pub mod report;
pub mod run;
pub mod setup;
pub mod state;
pub mod testing;
pub mod ui;

/// Parses the command line, runs the command, and returns the process exit code.
pub fn run_cli() -> i32 {
    // Before anything else: a shell asking for completions (`COMPLETE=bash wf -- …`)
    // gets only its candidates. Without `COMPLETE` this is one `getenv`.
    if let Some(code) = commands::completions::dynamic() {
        return code;
    }
    deny_world_write();
    let cli = match parse() {
        Ok(cli) => cli,
        Err(err) => return usage_error(&err),
    };
    let color = match cli.global.color {
        cli::ColorChoice::Always => Some(true),
        cli::ColorChoice::Never => Some(false),
        cli::ColorChoice::Auto => None,
    };
    let out = output::Output::new(cli.global.json, cli.global.quiet, color);
    let mut cli = cli;
    let result = enter_project_dir(&mut cli.global).and_then(|()| commands::run(&cli, &out));
    out.exit_code(out.settle(result))
}

/// `-C DIR`: works in DIR, as `git -C` and `make -C` do, so a relative path on the
/// command line (the plan, `-o FILE`, `--junit FILE`) means one in DIR; the option
/// then holds DIR canonical.
fn enter_project_dir(global: &mut cli::GlobalArgs) -> error::Result<()> {
    let Some(dir) = &global.project else {
        return Ok(());
    };
    let dir = project::Project::directory(dir)?;
    std::env::set_current_dir(&dir).map_err(|e| {
        error::WfError::io(&e, format!("-C {}: cannot work there: {e}", dir.display()))
    })?;
    global.project = Some(dir);
    Ok(())
}

/// The command line, parsed as `Cli::try_parse` parses it, at a fraction of the cost
/// (`wf status` spent more in clap than in reading and showing the state).
/// `Cli::command()` builds every subcommand with its arguments, help and examples, and
/// before it parses clap copies each global option into every subcommand; so the line
/// is parsed first against a root that holds only the subcommand it names
/// ([`one_subcommand`]), and against the whole tree only when that fails: the whole
/// tree then gives the error, the help or the version, as before.
fn parse() -> Result<cli::Cli, clap::Error> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(cli) = one_subcommand(&args) {
        return Ok(cli);
    }
    <cli::Cli as clap::Parser>::try_parse_from(args)
}

/// The line parsed against a root with the global options and only the first
/// subcommand the line names (by name or alias, [`cli::SUBCOMMANDS`]); `None` when
/// that fails (no such word, a help or version flag, an error), for the whole tree to
/// answer. A line that parses so parses the same against the whole tree: the root's
/// options are the same, and the one word taken for a subcommand is one in both (a
/// test compares the two over every subcommand and option). Nothing is freed: the
/// process ends soon after (a run keeps the few kilobytes).
fn one_subcommand(args: &[std::ffi::OsString]) -> Option<cli::Cli> {
    use clap::{Args, FromArgMatches};
    let (name, aliases, augment) = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .find_map(|word| subcommand_named(word))?;
    let sub = augment(clap::Command::new(*name).aliases(aliases.iter().copied()));
    let root = clap::Command::new("wf")
        .subcommand_required(true)
        .subcommand(sub);
    let mut root = std::mem::ManuallyDrop::new(cli::GlobalArgs::augment_args(root));
    let mut matches = std::mem::ManuallyDrop::new(root.try_get_matches_from_mut(args).ok()?);
    cli::Cli::from_arg_matches_mut(&mut matches).ok()
}

/// The row of [`cli::SUBCOMMANDS`] whose name or alias `word` is.
fn subcommand_named(
    word: &std::ffi::OsStr,
) -> Option<&'static (&'static str, &'static [&'static str], cli::Augment)> {
    cli::SUBCOMMANDS
        .iter()
        .find(|(name, aliases, _)| word == *name || aliases.iter().any(|alias| word == *alias))
}

/// Prints a command-line error as every other error is printed: one line,
/// `wf: error: …`, exit 2 — hooks and CI read stderr line by line — and with `--json`
/// also the JSON error object on stdout. clap's tip (a similar subcommand or flag) is
/// kept, and the pointer names the help of the subcommand the line was for. Help and
/// version requests print as clap formats them.
fn usage_error(err: &clap::Error) -> i32 {
    use clap::error::ErrorKind as K;
    if matches!(
        err.kind(),
        K::DisplayHelp | K::DisplayVersion | K::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = err.print();
        return err.exit_code();
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let message = usage_message(&err.render().to_string(), &args);
    let json = args
        .iter()
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let out = output::Output::new(json, false, Some(false));
    out.error(&error::WfError::usage(message));
    error::ErrorKind::Usage.exit_code()
}

/// The one-line message of clap's rendering of an error (`error: <what>\n  <details>\n\n
/// tip: …\n\nUsage: …`): what went wrong, clap's tips, and which help to read.
fn usage_message(rendered: &str, args: &[String]) -> String {
    let first = rendered.split("\n\n").next().unwrap_or_default();
    let what = first
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let what = what.strip_prefix("error: ").unwrap_or(&what);
    let tips: Vec<&str> = rendered
        .lines()
        .filter_map(|l| l.trim().strip_prefix("tip: "))
        .collect();
    // The deepest subcommand the line names (`constraints add`), for its help.
    let mut command = <cli::Cli as clap::CommandFactory>::command();
    let mut path: Vec<String> = Vec::new();
    for arg in args.iter().take_while(|a| *a != "--") {
        let Some(sub) = command
            .get_subcommands()
            .find(|s| s.get_name() == arg || s.get_all_aliases().any(|alias| alias == arg))
            .cloned()
        else {
            continue;
        };
        path.push(sub.get_name().to_string());
        command = sub;
    }
    let help = if path.is_empty() {
        "wf --help".to_string()
    } else {
        format!("wf {} --help", path.join(" "))
    };
    let mut message = what.to_string();
    for tip in tips {
        message.push_str(&format!(" ({tip})"));
    }
    message.push_str(&format!("; see `{help}`"));
    message
}

/// Adds world-write to the umask: every file and directory `wf` creates (state,
/// logs, backups, archives) is then not world-writable, whatever umask it was started
/// with. Task commands inherit it, which only takes that one bit away from them.
fn deny_world_write() {
    // umask(2) is process-wide: this runs first thing, before any thread starts.
    use rustix::fs::Mode;
    let old = rustix::process::umask(Mode::from_raw_mode(0o022));
    rustix::process::umask(old | Mode::from_raw_mode(0o002));
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use clap::{CommandFactory, Parser};

    use super::{cli::Cli, one_subcommand};

    /// A line for every subcommand (its required arguments given), with the global
    /// options before and after it, by each alias, and with each of its own options;
    /// then lines that must fail, ask for help, or may be left to the whole tree
    /// (`false`: a value that is also a subcommand's name).
    fn lines() -> Vec<(Vec<String>, bool)> {
        let mut full = Cli::command();
        full.build();
        let mut lines: Vec<(Vec<String>, bool)> = Vec::new();
        let mut todo: Vec<(Vec<String>, &clap::Command)> = vec![(Vec::new(), &full)];
        while let Some((path, cmd)) = todo.pop() {
            for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
                let mut names = vec![sub.get_name().to_string()];
                names.extend(sub.get_visible_aliases().map(str::to_string));
                for name in names {
                    let mut path = path.clone();
                    path.push(name);
                    todo.push((path, sub));
                }
            }
            if cmd.has_subcommands() || path.is_empty() {
                continue;
            }
            let value = |arg: &clap::Arg| {
                arg.get_possible_values()
                    .first()
                    .map_or_else(|| "1".to_string(), |v| v.get_name().to_string())
            };
            let required: Vec<String> = cmd
                .get_positionals()
                .filter(|a| a.is_required_set())
                .map(value)
                .collect();
            let line = |before: &[&str], after: &[String]| {
                let mut line = vec!["wf".to_string()];
                line.extend(before.iter().map(ToString::to_string));
                line.extend(path.iter().cloned());
                line.extend(required.iter().cloned());
                line.extend(after.iter().cloned());
                (line, true)
            };
            lines.push(line(&[], &[]));
            lines.push(line(&["-C", "dir", "--json", "--wait", "5"], &[]));
            lines.push(line(&["--color", "never"], &["-q".into(), "--wait".into()]));
            lines.push(line(
                &["--project=dir"],
                &["--wait=7".into(), "-C".into(), "other".into()],
            ));
            for arg in cmd.get_opts().chain(
                cmd.get_arguments()
                    .filter(|a| !a.get_num_args().is_some_and(|n| n.takes_values())),
            ) {
                let Some(long) = arg.get_long() else { continue };
                if arg.is_global_set() || long == "help" {
                    continue;
                }
                let mut after = vec![format!("--{long}")];
                if arg.get_num_args().is_some_and(|n| n.takes_values()) {
                    after.push(value(arg));
                }
                lines.push(line(&[], &after));
            }
            lines.push(line(&[], &["--help".into()]));
            lines.push(line(&[], &["--no-such-option".into()]));
            lines.push(line(&[], &["--".into(), "extra".into()]));
        }
        for tricky in [
            "wf",
            "wf --version",
            "wf -V",
            "wf --help",
            "wf help status",
            "wf stat",
            "wf -C status list",
            "wf -C list",
            "wf -- status",
            "wf --wait status",
            "wf status extra",
            "wf -qC dir status --failed --all",
            "wf constraints",
            "wf constraints add",
            "wf constraints status",
            "wf workflow-execute --retry",
            "wf execute --retry T1 --jobs 2 -k",
            "wf execute --skip T1",
            "wf execute --step --all",
            "wf logs --path --follow",
            "wf logs T1 --attempt x",
            "wf status status",
            "wf hook",
        ] {
            let fast = !tricky.starts_with("wf -C status");
            lines.push((tricky.split(' ').map(str::to_string).collect(), fast));
        }
        lines
    }

    /// The table holds every subcommand of the whole tree, with its aliases and its
    /// arguments in the same order, and nothing else.
    #[test]
    fn the_parse_table_is_the_whole_trees_subcommands() {
        let full = Cli::command();
        let shape = |cmd: &clap::Command| {
            let mut aliases: Vec<&str> = cmd.get_all_aliases().collect();
            aliases.sort_unstable();
            let args: Vec<String> = cmd
                .get_arguments()
                .map(|a| a.get_id().to_string())
                .collect();
            let subs: Vec<&str> = cmd.get_subcommands().map(clap::Command::get_name).collect();
            format!(
                "{} aliases {aliases:?} args {args:?} subcommands {subs:?}",
                cmd.get_name()
            )
        };
        let whole: Vec<String> = full.get_subcommands().map(shape).collect();
        let table: Vec<String> = crate::cli::SUBCOMMANDS
            .iter()
            .map(|(name, aliases, augment)| {
                shape(&augment(
                    clap::Command::new(*name).aliases(aliases.iter().copied()),
                ))
            })
            .collect();
        assert_eq!(table, whole);
    }

    #[test]
    fn one_subcommand_parses_every_line_as_the_whole_tree_does() {
        let mut fast = 0;
        for (line, must_be_fast) in lines() {
            let args: Vec<OsString> = line.iter().map(OsString::from).collect();
            let whole = Cli::try_parse_from(&args);
            match (one_subcommand(&args), whole) {
                (Some(one), Ok(whole)) => {
                    assert_eq!(format!("{one:?}"), format!("{whole:?}"), "{line:?}");
                    fast += 1;
                }
                (Some(one), Err(e)) => {
                    panic!("{line:?}: parsed as {one:?}, but the whole tree says: {e}")
                }
                (None, Ok(whole)) => assert!(
                    !must_be_fast,
                    "{line:?}: parsed by the whole tree only ({whole:?})"
                ),
                (None, Err(_)) => {}
            }
        }
        assert!(fast > 200, "only {fast} lines parsed");
    }
}
