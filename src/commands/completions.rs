//! Shell completion that calls back into `wf`, so it knows the commands this build
//! has and the project's workflow: task ids, blocker kinds, constraint ids, plan
//! files (`src/complete.rs`).
//!
//! - `wf completions SHELL` prints the shell's registration script: on TAB the shell
//!   runs `COMPLETE=SHELL wf -- wf <the words>` and shows what it prints. Copies are
//!   committed under `completions/`; `scripts/refresh-completions` regenerates them.
//! - [`dynamic`] answers those calls, first thing in `run_cli`. `COMPLETE=SHELL wf`
//!   alone prints the registration too, calling back the binary it was run as.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::CommandFactory;
use clap_complete::env::Shells;
use clap_complete::CompleteEnv;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::{Result, WfError};
use crate::output::Output;

/// The variable that turns a run of `wf` into a completion (clap_complete's name).
const VAR: &str = "COMPLETE";

pub fn run(args: &CompletionsArgs, out: &Output) -> Result<i32> {
    let name = args.shell.to_string();
    let shells = Shells::builtins();
    let shell = shells
        .completer(&name)
        .ok_or_else(|| WfError::usage(format!("no completion for the shell {name}")))?;
    // The script calls `wf` as found on PATH, not this binary's path, so it is the
    // same on every machine and the committed copies can be installed as they are.
    let mut script = Vec::new();
    shell
        .write_registration(VAR, "wf", "wf", "wf", &mut script)
        .map_err(|e| WfError::io(&e, format!("cannot write the {name} script: {e}")))?;
    if name == "zsh" {
        script = zsh_autoloadable(script);
    }
    out.print(script)?;
    Ok(0)
}

/// The last line of clap_complete's zsh script registers its function for `wf`,
/// which is all a `source` of it needs. From a file on `$fpath`, compinit loads the
/// script (its `#compdef wf` line) as the function `_wf` and calls it on the first
/// TAB, which would then only register and offer nothing. So when it runs as `_wf`
/// it answers that TAB too; sourced, it registers as before.
fn zsh_autoloadable(script: Vec<u8>) -> Vec<u8> {
    const REGISTER: &str = "compdef _clap_dynamic_completer_wf wf";
    let text = match String::from_utf8(script) {
        Ok(text) => text,
        Err(e) => return e.into_bytes(),
    };
    let Some(at) = text.rfind(REGISTER) else {
        return text.into_bytes();
    };
    let mut out = text[..at].to_string();
    out.push_str(
        "if [[ \"${funcstack[1]}\" == _wf ]]; then\n    \
         _clap_dynamic_completer_wf \"$@\"\n\
         else\n    \
         compdef _clap_dynamic_completer_wf wf\n\
         fi",
    );
    out.push_str(&text[at + REGISTER.len()..]);
    out.into_bytes()
}

/// A shell asking for completions (`COMPLETE=bash wf -- wf logs ''`): prints the
/// candidates and returns the exit code; `None` when `COMPLETE` is unset, empty or
/// `0`, for a normal run. Without `COMPLETE` this costs one `getenv`.
///
/// A completion prints nothing but candidates: when the engine fails (a word index
/// past the line, stdout closed), the shell gets none and exit 0, as for a project
/// without a workflow. Only `COMPLETE=SHELL wf` with an unknown shell, a request
/// for the registration script, prints an error.
pub fn dynamic() -> Option<i32> {
    let shell = std::env::var_os(VAR)?;
    if shell.is_empty() || shell == "0" {
        return None;
    }
    let args: Vec<OsString> = std::env::args_os().collect();
    // `wf -- wf <words>`: the words of the line being completed follow the first `--`.
    let line = args
        .iter()
        .position(|a| a == "--")
        .map(|i| args[i + 1..].to_vec());
    if let Some(line) = &line {
        crate::complete::set_line_project(line_project(line));
    }
    let cwd = std::env::current_dir().ok();
    // clap_complete writes the candidates to stdout itself, in one write; a failed
    // write is an `Err` here, never a panic.
    match CompleteEnv::with_factory(Cli::command)
        .var(VAR)
        .try_complete(args, cwd.as_deref())
    {
        Ok(true) => Some(0),
        Ok(false) => None,
        Err(_) if line.is_some() => Some(0),
        Err(err) => {
            let rendered = err.render().to_string();
            let what = rendered
                .trim()
                .trim_start_matches("error: ")
                .replace('`', "");
            let out = Output::new(false, false, Some(false));
            out.error(&WfError::usage(format!(
                "{VAR}={}: {what}",
                shell.to_string_lossy()
            )));
            Some(crate::error::ErrorKind::Usage.exit_code())
        }
    }
}

/// The `-C DIR` (`--project DIR`, `-CDIR`, `--project=DIR`, after the subcommand
/// too) of a line being completed, parsed as `wf` parses it when run. A line being
/// typed is seldom valid (a required argument missing, a word half written), so
/// errors are ignored; help and version flags are turned off so they cannot end
/// the parse early.
fn line_project(line: &[OsString]) -> Option<PathBuf> {
    let matches = Cli::command()
        .ignore_errors(true)
        .disable_help_flag(true)
        .disable_version_flag(true)
        .try_get_matches_from(line)
        .ok()?;
    // A global argument given after a subcommand is recorded on that subcommand's
    // matches; the last one given wins, as in a run.
    let mut found = None;
    let mut level = Some(&matches);
    while let Some(m) = level {
        if let Ok(Some(dir)) = m.try_get_one::<PathBuf>("project") {
            found = Some(dir.clone());
        }
        level = m.subcommand().map(|(_, sub)| sub);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(words: &[&str]) -> Option<PathBuf> {
        let line: Vec<OsString> = words.iter().map(OsString::from).collect();
        line_project(&line)
    }

    #[test]
    fn the_project_of_a_line_is_read_wherever_it_is_given() {
        let dir = Some(PathBuf::from("p"));
        assert_eq!(project(&["wf", "-C", "p", "logs", ""]), dir);
        assert_eq!(project(&["wf", "-Cp", "logs", ""]), dir);
        assert_eq!(project(&["wf", "--project=p", "logs", ""]), dir);
        assert_eq!(project(&["wf", "logs", "--project", "p", ""]), dir);
        assert_eq!(project(&["wf", "-qC", "p", "unblock", ""]), dir);
        assert_eq!(
            project(&["wf", "constraints", "-C", "p", "verify", ""]),
            dir
        );
        assert_eq!(
            project(&["wf", "workflow-execute", "--retry", "-C", "p", ""]),
            dir
        );
    }

    /// The zsh e2e test (`tests/integration/completions.rs`) runs only where zsh is
    /// installed; this one fails wherever a new clap_complete changes the line the
    /// script's last lines replace.
    #[test]
    fn the_zsh_script_answers_its_first_call_from_fpath() {
        use clap_complete::env::EnvCompleter;
        let mut clap_script = Vec::new();
        clap_complete::env::Zsh
            .write_registration(VAR, "wf", "wf", "wf", &mut clap_script)
            .unwrap();
        let script = String::from_utf8(zsh_autoloadable(clap_script)).unwrap();
        assert!(
            script.ends_with(
                "if [[ \"${funcstack[1]}\" == _wf ]]; then\n    \
                 _clap_dynamic_completer_wf \"$@\"\n\
                 else\n    \
                 compdef _clap_dynamic_completer_wf wf\n\
                 fi\n"
            ),
            "{script}"
        );
        assert_eq!(script.matches("compdef _clap").count(), 1, "{script}");
    }

    #[test]
    fn a_line_without_a_project_or_half_typed_names_none() {
        assert_eq!(project(&["wf", "logs", ""]), None);
        assert_eq!(project(&["wf", "lo"]), None);
        assert_eq!(project(&["wf", "-C"]), None);
        assert_eq!(project(&["wf", "--help", "logs", ""]), None);
        assert_eq!(project(&["wf"]), None);
        assert_eq!(project(&[]), None);
    }
}
