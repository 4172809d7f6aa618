//! Running one hard constraint's `verifyCmd` and recording what it proved.
//!
//! A `verifyCmd` comes from a model's analysis output, so it is not trusted the way a
//! plan's own commands are:
//! - a builtin verifier name (`typecheck`, `lint`, `test`, `build`) runs the
//!   project's command for it ([`verifier::resolve`]);
//! - anything else must start with an allowed prefix (`wf.allowed_command_prefixes`,
//!   else [`DEFAULT_PREFIXES`]) and is refused unrun otherwise;
//! - an allowed command is split into words by [`split`] and run without a shell, so
//!   `;`, `$(…)`, `>` and globs are plain text, never operators.

use std::path::Path;
use std::time::Duration;

use crate::config::Config;
use crate::exec::process::{self, Children, Exit, Program, Spec};
use crate::exec::verifier::{self, Verifier};
use crate::exec::DEFAULT_TIMEOUT;
use crate::state::model::{Constraint, ConstraintVerification};

/// What a `verifyCmd` may start with when the config does not say.
pub const DEFAULT_PREFIXES: &[&str] = &[
    "npm",
    "pnpm",
    "yarn",
    "npx",
    "node",
    "cargo",
    "go",
    "pytest",
    "python -m pytest",
    "python3 -m pytest",
    "make",
    "just",
    "tox",
    "ruff",
    "mypy",
    "eslint",
    "tsc",
    "jest",
    "vitest",
    "bun",
    "deno",
    "test",
    "grep",
    "sh scripts/",
    "bash scripts/",
];

/// Lines of output kept in a failure's details.
const TAIL_LINES: usize = 20;

/// Runs `constraint`'s `verifyCmd`: a future (see `exec::reactor`), so a quality
/// gate's checks run among the other tasks' commands on a run's scheduler.
pub async fn verify(
    constraint: &Constraint,
    project_dir: &Path,
    config: &Config,
    children: &Children,
    log_dir: &Path,
) -> ConstraintVerification {
    let (passed, details) = match constraint.verify_cmd.as_deref().map(str::trim) {
        None | Some("") => (false, "no verify command".to_string()),
        Some(cmd) => match program_for(cmd, project_dir, config) {
            Err(why) => (false, why),
            Ok(program) => run(constraint, program, project_dir, config, children, log_dir).await,
        },
    };
    ConstraintVerification {
        constraint_id: constraint.id.clone(),
        passed,
        details,
        checked_at: crate::clock::now_rfc3339(),
    }
}

/// What `cmd` runs as, or why it will not run.
fn program_for(cmd: &str, project_dir: &Path, config: &Config) -> Result<Program, String> {
    if let Some(builtin) = Verifier::parse(cmd) {
        return verifier::resolve(builtin, project_dir, config).program(cmd);
    }
    if let Some(why) = refusal(cmd, config, "so it was not run") {
        return Err(why);
    }
    let argv = split(cmd).map_err(|why| format!("cannot read `{cmd}`: {why}"))?;
    Ok(Program::Argv(argv))
}

/// Why `cmd` would be refused without being run, or `None` when verify would run
/// it: a builtin verifier name always passes here (whether the project has that
/// verifier is a question of its files, which may not exist yet), any other command
/// must split into words and start with an allowed prefix. `consequence` says what
/// the refusal stopped (`so it was not run`), so `verify`, `constraints add` and
/// `doctor` give one message.
pub fn refusal(cmd: &str, config: &Config, consequence: &str) -> Option<String> {
    if Verifier::parse(cmd).is_some() {
        return None;
    }
    let argv = match split(cmd) {
        Ok(argv) => argv,
        Err(why) => {
            return Some(format!(
                "cannot read `{cmd}`: {why}, {consequence}; write it as words, quoted as in a shell (nothing is expanded)"
            ))
        }
    };
    let custom = config.wf.allowed_command_prefixes.as_deref();
    let allowed = match custom {
        Some(list) => list.iter().any(|p| prefix_allows(p, &argv)),
        None => DEFAULT_PREFIXES.iter().any(|p| prefix_allows(p, &argv)),
    };
    if allowed {
        return None;
    }
    Some(format!(
        "refused: `{cmd}` does not start with an allowed command prefix, {consequence}; \
         to allow it, add its prefix to wf.allowed_command_prefixes in {} ({})",
        crate::config::CONFIG_PATH,
        if custom.is_some() {
            "the list there is in force"
        } else {
            "setting it replaces the defaults, so list every prefix you need"
        }
    ))
}

/// Whether `argv` starts with the words of `prefix`. Words match whole
/// (`cargo` allows `cargo test`, not `cargoX`); a prefix word ending in `/` is a
/// directory and matches any path under it that does not climb out with `..`.
pub fn prefix_allows(prefix: &str, argv: &[String]) -> bool {
    let words: Vec<&str> = prefix.split_whitespace().collect();
    if words.is_empty() || words.len() > argv.len() {
        return false;
    }
    words.iter().zip(argv).all(|(p, a)| {
        if p.ends_with('/') {
            a.starts_with(p) && a.len() > p.len() && !a.split('/').any(|part| part == "..")
        } else {
            *p == a.as_str()
        }
    })
}

/// Splits a command line into words: whitespace separates, single quotes keep
/// everything literally, double quotes keep everything but `\"` and `\\`, a backslash
/// outside quotes escapes the next character. No expansion of any kind.
pub fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word = String::new();
    // A word exists once anything (even `''`) was written for it.
    let mut started = false;
    let mut chars = line.chars();
    while let Some(ch) = chars.next() {
        match ch {
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("unbalanced single quote".into()),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("unbalanced double quote".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("unbalanced double quote".into()),
                    }
                }
            }
            '\\' => {
                started = true;
                match chars.next() {
                    Some(c) => word.push(c),
                    None => return Err("a trailing backslash escapes nothing".into()),
                }
            }
            c if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    if started {
        words.push(word);
    }
    if words.is_empty() {
        return Err("the command is empty".into());
    }
    Ok(words)
}

async fn run(
    constraint: &Constraint,
    program: Program,
    project_dir: &Path,
    config: &Config,
    children: &Children,
    log_dir: &Path,
) -> (bool, String) {
    let not_on_path = |prog: &str| (false, format!("`{prog}` is not on PATH"));
    if let Some(prog) = process::missing_program(&program) {
        return not_on_path(&prog);
    }
    if let Err(e) = std::fs::create_dir_all(log_dir) {
        return (
            false,
            format!("cannot create the log directory {}: {e}", log_dir.display()),
        );
    }
    let log = process::log_path(log_dir, &format!("constraint-{}", constraint.id), 1);
    // One log per constraint, rewritten each time: its tail is this run's output.
    let header = format!("$ {}", program.display());
    // Created anew, never through a link planted where it goes.
    let _ = crate::fs::durable::replace_new(&log)
        .map(|mut f| std::io::Write::write_all(&mut f, format!("{header}\n").as_bytes()));
    let exit = process::run(
        Spec {
            program: program.clone(),
            cwd: project_dir,
            env: vec![
                ("WF_CONSTRAINT_ID".into(), constraint.id.clone()),
                ("WF_PROJECT_DIR".into(), project_dir.display().to_string()),
            ],
            timeout: config
                .wf
                .timeout_secs
                .map_or(DEFAULT_TIMEOUT, Duration::from_secs),
            log: &log,
            stdin: None,
            on_start: None,
            log_cap: config.wf.log_cap(),
            echo: None,
        },
        children,
    )
    .await;
    if exit == Exit::Code(0) {
        return (true, "passed".into());
    }
    // Found on PATH earlier in this run and gone since (`process::on_path` trusts
    // what it found): the same words as the check before the spawn.
    if let Exit::NotOnPath(prog) = &exit {
        if !prog.contains('/') {
            return not_on_path(prog);
        }
    }
    let mut details = format!("`{}` {}", program.display(), exit.describe());
    // The header line is for someone reading the log file; details already say it.
    // Stored and shown on a terminal: the command's escapes must not drive it.
    let tail = crate::escape::output(&process::tail(&log, TAIL_LINES + 1)).into_owned();
    let output: Vec<&str> = tail.lines().filter(|l| *l != header).collect();
    let output = &output[output.len().saturating_sub(TAIL_LINES)..];
    if !output.is_empty() {
        details.push('\n');
        details.push_str(&output.join("\n"));
    }
    (false, details)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Map;

    fn words(items: &[&str]) -> Vec<String> {
        items.iter().map(std::string::ToString::to_string).collect()
    }

    #[test]
    fn split_handles_quotes_without_expanding() {
        assert_eq!(
            split("cargo test --quiet").unwrap(),
            words(&["cargo", "test", "--quiet"])
        );
        assert_eq!(
            split(r#"grep -q "request Id" 'src/a b.ts'"#).unwrap(),
            words(&["grep", "-q", "request Id", "src/a b.ts"])
        );
        assert_eq!(
            split(r#"a "x\"y" 'q\n' b\ c"#).unwrap(),
            words(&["a", "x\"y", "q\\n", "b c"])
        );
        assert_eq!(
            split("echo '' $HOME;x").unwrap(),
            words(&["echo", "", "$HOME;x"])
        );
        assert_eq!(split("  a   b  ").unwrap(), words(&["a", "b"]));
    }

    #[test]
    fn split_rejects_what_it_cannot_read() {
        assert!(split("grep 'x").unwrap_err().contains("single quote"));
        assert!(split("grep \"x").unwrap_err().contains("double quote"));
        assert!(split("a \\").is_err());
        assert!(split("   ").is_err());
    }

    #[test]
    fn prefixes_match_whole_words() {
        assert!(prefix_allows("cargo", &words(&["cargo", "test"])));
        assert!(!prefix_allows("cargo", &words(&["cargoX", "test"])));
        assert!(prefix_allows(
            "python -m pytest",
            &words(&["python", "-m", "pytest", "-q"])
        ));
        assert!(!prefix_allows(
            "python -m pytest",
            &words(&["python", "-c", "x"])
        ));
        assert!(!prefix_allows("python -m pytest", &words(&["python"])));
        assert!(prefix_allows(
            "sh scripts/",
            &words(&["sh", "scripts/check.sh"])
        ));
        assert!(!prefix_allows(
            "sh scripts/",
            &words(&["sh", "scripts/../x.sh"])
        ));
        assert!(!prefix_allows("sh scripts/", &words(&["sh", "scripts/"])));
        assert!(!prefix_allows("sh scripts/", &words(&["sh", "-c", "rm"])));
        assert!(!prefix_allows("", &words(&["x"])));
    }

    fn constraint(cmd: &str) -> Constraint {
        Constraint {
            id: "C001".into(),
            description: "d".into(),
            kind: "hard".into(),
            category: "requirement".into(),
            source_model: "user".into(),
            phase: "analysis".into(),
            verified: None,
            verify_cmd: Some(cmd.into()),
            extra: Map::new(),
        }
    }

    fn check(cmd: &str, config: &Config) -> (ConstraintVerification, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let v = crate::exec::reactor::block_on(verify(
            &constraint(cmd),
            dir.path(),
            config,
            &Children::default(),
            &dir.path().join("logs"),
        ));
        (v, dir)
    }

    #[test]
    fn allowed_command_runs_without_a_shell() {
        let (v, _d) = check("test -d .", &Config::default());
        assert!(v.passed, "{}", v.details);
        assert_eq!(v.details, "passed");
        // `;` is an argument to test, not a separator: test gets too many args.
        let (v, d) = check("test -d . ; touch pwned", &Config::default());
        assert!(!v.passed);
        assert!(!d.path().join("pwned").exists());
    }

    #[test]
    fn failure_details_carry_the_output_tail() {
        let (v, _d) = check("grep needle missing.txt", &Config::default());
        assert!(!v.passed);
        assert!(
            v.details
                .starts_with("`grep needle missing.txt` exited with 2\n"),
            "{}",
            v.details
        );
        assert!(
            v.details.contains("missing.txt: No such file"),
            "{}",
            v.details
        );
    }

    #[test]
    fn disallowed_command_is_refused_unrun() {
        let (v, d) = check("touch made", &Config::default());
        assert!(!v.passed);
        assert!(v.details.starts_with("refused:"), "{}", v.details);
        assert!(v.details.contains("wf.allowed_command_prefixes"));
        assert!(!d.path().join("made").exists());

        let mut config = Config::default();
        config.wf.allowed_command_prefixes = Some(vec!["touch".into()]);
        let (v, d) = check("touch made", &config);
        assert!(v.passed, "{}", v.details);
        assert!(d.path().join("made").exists());
        // A custom list replaces the defaults.
        let (v, _d) = check("test -d .", &config);
        assert!(!v.passed);
    }

    #[test]
    fn missing_tool_is_named() {
        let mut config = Config::default();
        config.wf.allowed_command_prefixes = Some(vec!["wf-no-such-tool".into()]);
        let (v, _d) = check("wf-no-such-tool --check", &config);
        assert!(!v.passed);
        assert_eq!(v.details, "`wf-no-such-tool` is not on PATH");
    }

    #[test]
    fn builtin_names_use_the_project_verifier() {
        let mut config = Config::default();
        config.scripts.test = Some("true".into());
        let (v, _d) = check("test", &config);
        assert!(v.passed, "{}", v.details);
        let (v, _d) = check("lint", &Config::default());
        assert!(!v.passed);
        assert!(v.details.contains("scripts.lint"), "{}", v.details);
    }
}
