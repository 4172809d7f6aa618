//! `wf doctor`'s checks: what in a project's setup would break a later command,
//! each found read-only — no lock taken, nothing written, nothing run but `which`
//! lookups — and said as one [`Check`] with its fix.
//!
//! A `problem` is something a later command fails on (a config that does not read,
//! an executor that is not installed, a constraint whose `verifyCmd` will be refused,
//! a state that cannot be read); a `warning` is something worth knowing that breaks
//! no command (no Claude Code hooks: `wf` runs without them; a stale lock: the kernel
//! released it with its holder, see [`lock`]).

use crate::state::model::Glance;
use std::ffi::OsStr;
use std::path::Path;

use serde::Serialize;

use crate::config::{Config, CONFIG_PATH};
use crate::constraints::verify;
use crate::error::ErrorKind;
use crate::exec::verifier::{self, Resolved, Verifier};
use crate::setup::hooks;
use crate::state::{Store, WorkflowStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warning,
    Problem,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Warning => "warning",
            Status::Problem => "problem",
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub status: Status,
    pub message: String,
    /// What to do; `None` when there is nothing to do.
    pub fix: Option<String>,
}

impl Check {
    fn ok(name: &'static str, message: impl Into<String>) -> Check {
        Check {
            name,
            status: Status::Ok,
            message: message.into(),
            fix: None,
        }
    }

    fn warning(name: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name,
            status: Status::Warning,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }

    fn problem(name: &'static str, message: impl Into<String>, fix: impl Into<String>) -> Check {
        Check {
            name,
            status: Status::Problem,
            message: message.into(),
            fix: Some(fix.into()),
        }
    }

    /// A check that needs what an earlier one could not read.
    fn not_checked(name: &'static str, because: &str) -> Check {
        Check::warning(
            name,
            format!("not checked: {because}"),
            "run `wf doctor` again once the problem above is fixed",
        )
    }
}

/// What the command found before the checks: the config as strictly read (or its
/// one-line error) and, when the config names the project, its workflow store.
pub struct Found<'a> {
    pub dir: &'a Path,
    pub config: std::result::Result<&'a Config, &'a str>,
    pub store: Option<&'a Store>,
    /// The user's home, where Claude Code keeps the user's settings.
    pub user_home: Option<&'a Path>,
    /// `PATH`, where the hooks' `wf` must be.
    pub path: Option<&'a OsStr>,
}

/// Every check, in the order a setup is built: config, executors, hooks, state,
/// constraints, lock.
pub fn checks(found: &Found) -> Vec<Check> {
    let mut checks = vec![config(found)];
    checks.push(match found.config {
        Ok(config) => executors(found.dir, config),
        Err(_) => Check::not_checked("executors", "the config does not read"),
    });
    checks.push(hooks_check(found.dir, found.user_home, found.path));
    let state = found.store.map(Store::load);
    checks.push(match (&state, found.store) {
        (Some(state), Some(store)) => state_check(store, state),
        _ => Check::not_checked(
            "state",
            "the config does not read, so the workflow is unknown",
        ),
    });
    checks.push(match (&state, found.config) {
        (Some(Ok(Some(state))), Ok(config)) => constraints(found.dir, config, state),
        (Some(Ok(None)), Ok(_)) => Check::ok("constraints", "no workflow, so no constraints yet"),
        (Some(Err(_)), _) => Check::not_checked("constraints", "the state does not read"),
        _ => Check::not_checked("constraints", "the config does not read"),
    });
    if let (Some(Ok(Some(state))), Ok(config)) = (&state, found.config) {
        checks.extend(gates(found.dir, config, state));
    }
    checks.push(match found.store {
        Some(store) => lock(store),
        None => Check::not_checked(
            "lock",
            "the config does not read, so the workflow is unknown",
        ),
    });
    checks
}

/// Whether any check is a problem.
pub fn has_problem(checks: &[Check]) -> bool {
    checks.iter().any(|c| c.status == Status::Problem)
}

fn config(found: &Found) -> Check {
    match found.config {
        Ok(config) if config.path.is_some() => {
            Check::ok("config", format!("{CONFIG_PATH} reads, its wf section checked"))
        }
        Ok(_) => Check::ok(
            "config",
            format!("no {CONFIG_PATH}: the defaults apply (`wf init` writes one to edit)"),
        ),
        Err(why) => Check::problem(
            "config",
            why,
            format!("correct {CONFIG_PATH} where the message points; every command but init and doctor refuses to start until then"),
        ),
    }
}

/// Each executor's program found as a run would start it: on PATH, or a path
/// taken from the project (where executors run).
fn executors(dir: &Path, config: &Config) -> Check {
    let list = &config.wf.executors;
    if list.is_empty() {
        return Check::ok(
            "executors",
            "none configured: a task that needs an agent is handed off (exit 0) for you or Claude Code to do",
        );
    }
    let path = std::env::var_os("PATH");
    let missing: Vec<String> = list
        .iter()
        .enumerate()
        .filter_map(|(i, ex)| {
            let prog = ex.command.first()?;
            which::which_in(prog, path.as_ref(), dir)
                .is_err()
                .then(|| format!("wf.executors[{i}] ({}): `{prog}` is not on PATH", ex.name))
        })
        .collect();
    if missing.is_empty() {
        let names: Vec<&str> = list.iter().map(|e| e.name.as_str()).collect();
        return Check::ok("executors", format!("each on PATH: {}", names.join(", ")));
    }
    Check::problem(
        "executors",
        missing.join("; "),
        format!("install it or add its directory to PATH, or correct its command in wf.executors of {CONFIG_PATH}; a task given to it fails"),
    )
}

/// A settings file's text, as Claude Code reads it (through a link), never blocking
/// on a FIFO; `None` when there is no such file, else the error naming it.
fn read_settings(path: &Path) -> Option<std::result::Result<Vec<u8>, String>> {
    match crate::fs::read_named(path) {
        Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => None,
        Err(e) => Some(Err(e.message)),
        Ok(bytes) => Some(Ok(bytes)),
    }
}

fn shown(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir)
        .map_or_else(|_| path.display().to_string(), |p| p.display().to_string())
}

/// The hooks in Claude Code's settings files: every event wired to `wf hook`, and
/// the `wf` they run found where a shell with `path` (the `PATH`) would find it —
/// hooks whose `wf` is not there fail on every prompt.
fn hooks_check(dir: &Path, user_home: Option<&Path>, path: Option<&OsStr>) -> Check {
    let mut missing: Vec<&str> = hooks::EVENTS.to_vec();
    let mut found_in = Vec::new();
    let mut programs = Vec::new();
    for file in hooks::settings_files(dir, user_home) {
        let Some(read) = read_settings(&file) else {
            continue;
        };
        let name = shown(dir, &file);
        let settings = match read.and_then(|b| {
            hooks::read(&b).map_err(|bad| format!("{name}:{}:{}: {}", bad.line, bad.col, bad.what))
        }) {
            Ok(s) => s,
            Err(why) => {
                return Check::problem(
                    "hooks",
                    why,
                    "correct it there: Claude Code cannot read it either",
                )
            }
        };
        let before = missing.len();
        missing.retain(|e| !hooks::has(&settings, e));
        if missing.len() < before {
            found_in.push(name);
        }
        programs.extend(hooks::programs(&settings));
    }
    programs.sort();
    programs.dedup();
    let broken: Vec<String> = programs
        .iter()
        .filter(|p| which::which_in(p, path, dir).is_err())
        .map(|p| {
            let shown = crate::escape::controls(p, crate::escape::Lines::Space);
            if p.contains('/') {
                format!("`{shown}` is not there or not executable")
            } else {
                format!("`{shown}` is not on PATH")
            }
        })
        .collect();
    if !broken.is_empty() {
        return Check::problem(
            "hooks",
            format!(
                "broken: the hooks run `wf hook`, but {}, so every one of them fails in Claude Code",
                broken.join(" and ")
            ),
            "install wf on PATH (`cargo install --path .` puts it in ~/.cargo/bin), or write the full path of wf in the hooks' commands",
        );
    }
    if missing.is_empty() {
        return Check::ok(
            "hooks",
            format!(
                "{} run `wf hook` ({})",
                hooks::EVENTS.join(", "),
                found_in.join(", ")
            ),
        );
    }
    Check::warning(
        "hooks",
        format!(
            "no `wf hook` for {} in Claude Code's settings: an agent in Claude Code is not given the task's brief, nor kept working while its checks fail",
            missing.join(", ")
        ),
        format!(
            "`wf init` merges them into {} (every other setting kept); without Claude Code, ignore this",
            hooks::SETTINGS_PATH
        ),
    )
}

fn state_check(
    store: &Store,
    state: &crate::error::Result<Option<crate::state::WorkflowState>>,
) -> Check {
    match state {
        Ok(None) => Check::ok(
            "state",
            "no workflow yet; `wf workflow-start tasks.md` starts one",
        ),
        Ok(Some(state)) => {
            let name = state
                .task_name
                .as_deref()
                .filter(|n| !n.trim().is_empty())
                .unwrap_or(&state.project_name);
            let what = format!(
                "{}: {}, {} {}",
                crate::escape::controls(name, crate::escape::Lines::Space),
                state.status.as_str(),
                state.tasks.len(),
                if state.tasks.len() == 1 {
                    "task"
                } else {
                    "tasks"
                }
            );
            // As `wf status` decides it (src/commands/status.rs): running, nobody
            // holding the lock, and no task handed off is a crashed run.
            if state.status == WorkflowStatus::Running
                && state.handed_off_task().is_none()
                && !store.writer_alive()
            {
                return Check::warning(
                    "state",
                    format!("{what}; the run that was executing it is gone"),
                    "`wf resume` continues where it stopped",
                );
            }
            Check::ok("state", what)
        }
        Err(e) => Check::problem(
            "state",
            e.message.clone(),
            if e.kind == ErrorKind::CorruptState {
                format!(
                    "restore a backup-*.json of {} over it, or start again with `wf workflow-start --force PLAN`; every command that reads the state refuses until then",
                    store.dir().display()
                )
            } else {
                "see the message; every command that reads the state fails the same way".into()
            },
        ),
    }
}

/// Each constraint's `verifyCmd` as `verify` would take it: refused unrun (a
/// problem: a quality gate fails on it), or a builtin verifier the project does not
/// have (a warning: its files may not exist yet).
fn constraints(dir: &Path, config: &Config, state: &crate::state::WorkflowState) -> Check {
    let all: Vec<(&str, &str)> = state
        .constraints
        .hard
        .iter()
        .chain(&state.constraints.soft)
        .filter_map(|c| {
            let cmd = c.verify_cmd.as_deref().map(str::trim)?;
            (!cmd.is_empty()).then_some((c.id.as_str(), cmd))
        })
        .collect();
    let mut refused = Vec::new();
    let mut unavailable = Vec::new();
    for (id, cmd) in &all {
        let shown = crate::escape::controls(cmd, crate::escape::Lines::Space);
        if let Some(builtin) = Verifier::parse(cmd) {
            if let Resolved::Unavailable(why) = verifier::resolve(builtin, dir, config) {
                unavailable.push(format!("{id} `{shown}`: {why}"));
            }
        } else if verify::refusal(cmd, config, "").is_some() {
            let why = match verify::split(cmd) {
                Err(why) => why,
                Ok(_) => "no allowed prefix".into(),
            };
            refused.push(format!("{id} `{shown}` ({why})"));
        }
    }
    if !refused.is_empty() {
        return Check::problem(
            "constraints",
            format!(
                "verify will refuse to run {}: {}",
                if refused.len() == 1 { "this verifyCmd" } else { "these verifyCmds" },
                refused.join(", ")
            ),
            format!(
                "add the prefix to wf.allowed_command_prefixes in {CONFIG_PATH} (a list set there replaces the defaults), or replace the command: `wf constraints remove ID`, then `wf constraints add … --verify-cmd CMD`"
            ),
        );
    }
    if !unavailable.is_empty() {
        return Check::warning(
            "constraints",
            unavailable.join("; "),
            "set the script in the config, or add the toolchain's files, before a quality gate runs",
        );
    }
    if all.is_empty() {
        return Check::ok("constraints", "no constraint has a verifyCmd");
    }
    Check::ok(
        "constraints",
        format!(
            "{} {}, each one verify runs",
            all.len(),
            if all.len() == 1 {
                "verifyCmd"
            } else {
                "verifyCmds"
            }
        ),
    )
}

/// A quality gate still to run that cannot pass here: no verifier would run (each
/// is missing, off or not declared), or one the config requires has no tool. A
/// warning: the tools may be installed before the gate's turn. Nothing when the
/// plan has no gate left.
fn gates(dir: &Path, config: &Config, state: &crate::state::WorkflowState) -> Option<Check> {
    let mut gates: Vec<&str> = Vec::new();
    for t in state.tasks.iter().filter(|t| !t.status().is_done()) {
        match t.task() {
            Ok(task) if task.quality_gate => gates.push(&task.id),
            Ok(_) => {}
            Err(err) => {
                return Some(Check::problem(
                    "state",
                    err.message,
                    "run `wf doctor` again",
                ))
            }
        }
    }
    if gates.is_empty() {
        return None;
    }
    let mut runs = 0;
    let mut said = Vec::new();
    let mut required_missing = Vec::new();
    for builtin in Verifier::ALL {
        let here = verifier::here(builtin, dir, config);
        if let verifier::Here::Runs(program) = &here {
            runs += 1;
            if let Some(tool) = crate::exec::process::missing_program(program) {
                required_missing.push(format!(
                    "{} needs `{tool}`, which is not on PATH",
                    builtin.name()
                ));
            }
        }
        said.push(here.words(builtin.name()).1);
    }
    let which = format!(
        "quality {} {}",
        if gates.len() == 1 { "gate" } else { "gates" },
        gates.join(", ")
    );
    if runs == 0 || !required_missing.is_empty() {
        let why = if required_missing.is_empty() {
            "no verifier would run".to_string()
        } else {
            required_missing.join("; ")
        };
        return Some(Check::warning(
            "gates",
            format!("{which} cannot pass here: {why} ({})", said.join(", ")),
            format!("install the missing tools, or set scripts.NAME or wf.verifiers.NAME (false turns one off) in {CONFIG_PATH}"),
        ));
    }
    Some(Check::ok("gates", format!("{which}: {}", said.join(", "))))
}

/// The writer's lock (`src/state/store/mod.rs`). It is an `flock` on `.lock`, which the
/// kernel releases when its holder exits, however it exits; the holder writes its
/// pid and command into the file and empties it when it ends normally. So a file
/// still naming a process while nobody holds the lock is stale — a writer was killed
/// — yet blocks nothing: the next writer takes the lock and recovers what the dead
/// one left. Probed as `wf status` probes it (`Store::writer_alive`: a shared
/// `flock` tried and at once released, never waited on; a writer meeting it waits
/// out its short grace), so doctor neither takes the lock from anyone nor breaks it.
fn lock(store: &Store) -> Check {
    let path = store.lock_path();
    let holder = match crate::fs::read_regular(&path) {
        Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => {
            return Check::ok("lock", "free (no wf has written this workflow yet)")
        }
        Err(e) => {
            return Check::problem(
                "lock",
                e.message,
                "move it away: every command that writes needs to lock it",
            )
        }
        Ok(bytes) => crate::escape::controls(
            String::from_utf8_lossy(&bytes).trim(),
            crate::escape::Lines::Space,
        )
        .into_owned(),
    };
    if store.writer_alive() {
        let who = if holder.is_empty() {
            "a wf process".to_string()
        } else {
            format!("wf process {holder}")
        };
        return Check::ok("lock", format!("held by {who}, which is running now"));
    }
    if holder.is_empty() {
        return Check::ok("lock", "free");
    }
    Check::warning(
        "lock",
        format!(
            "stale: {} names wf process {holder}, which ended without releasing it (it was killed); the kernel freed the lock with it, so nothing waits on it",
            path.display()
        ),
        "nothing to delete: the next command that writes (`wf resume` after a run) recovers what it left",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn store(dir: &Path) -> Store {
        let none = crate::state::store::PlanAccess {
            adopt: |_, _, _| {},
            mirror: |_| Ok(()),
            digest_file: |_| Ok(String::new()),
        };
        Store::new(dir.join("w"), none)
    }

    #[test]
    fn a_lock_is_free_held_or_stale_and_probing_it_takes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let store = store(dir.path());
        assert_eq!(lock(&store).status, Status::Ok);
        {
            let _held = store.lock(Some(Duration::ZERO), "test").unwrap();
            let held = lock(&store);
            assert_eq!(held.status, Status::Ok);
            assert!(held.message.contains("running now"), "{}", held.message);
            // The holder keeps it: doctor's probe took nothing away.
            assert!(store.writer_alive());
        }
        // Released normally: the file is empty. Another test of this process may be
        // between a fork and its exec, holding a copy of the lock's descriptor (and so
        // the lock) for that moment: wait it out, boundedly.
        let mut free = lock(&store);
        for _ in 0..200 {
            if free.message == "free" {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
            free = lock(&store);
        }
        assert_eq!(free.message, "free");
        // A killed holder leaves its pid behind.
        std::fs::write(store.lock_path(), "4242 (workflow-execute)\n").unwrap();
        let stale = lock(&store);
        assert_eq!(stale.status, Status::Warning);
        assert!(stale.message.contains("wf process 4242 (workflow-execute)"));
        // Still takeable.
        assert!(store.lock(Some(Duration::ZERO), "test").is_ok());
    }

    #[test]
    fn a_missing_executor_is_a_problem_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::parse(
            Path::new("c.json"),
            br#"{"wf": {"executors": [{"name": "sh", "command": ["sh"]}, {"name": "ghost", "command": ["wf-no-such-agent", "-p"]}]}}"#,
        )
        .unwrap();
        let check = executors(dir.path(), &config);
        assert_eq!(check.status, Status::Problem);
        assert_eq!(
            check.message,
            "wf.executors[1] (ghost): `wf-no-such-agent` is not on PATH"
        );
        // A path is taken from the project.
        let config = Config::parse(
            Path::new("c.json"),
            br#"{"wf": {"executors": [{"name": "local", "command": ["./bin/agent"]}]}}"#,
        )
        .unwrap();
        assert_eq!(executors(dir.path(), &config).status, Status::Problem);
        std::fs::create_dir(dir.path().join("bin")).unwrap();
        let agent = dir.path().join("bin/agent");
        std::fs::write(&agent, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&agent, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        assert_eq!(executors(dir.path(), &config).status, Status::Ok);
    }

    #[test]
    fn hooks_are_found_in_any_settings_file_claude_code_reads() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        // A PATH holding a `wf`, as the hooks need.
        let bin = dir.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        std::fs::write(bin.join("wf"), "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(bin.join("wf"), std::fs::Permissions::from_mode(0o755)).unwrap();
        let path = Some(bin.as_os_str());
        assert_eq!(
            hooks_check(dir.path(), Some(&home), path).status,
            Status::Warning
        );
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::write(
            home.join(".claude/settings.json"),
            hooks::to_text(&hooks::recommended()),
        )
        .unwrap();
        let check = hooks_check(dir.path(), Some(&home), path);
        assert_eq!(check.status, Status::Ok, "{}", check.message);
        // Without that `wf` on PATH, the same hooks are broken.
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        let check = hooks_check(dir.path(), Some(&home), Some(empty.as_os_str()));
        assert_eq!(check.status, Status::Problem, "{}", check.message);
        assert!(
            check.message.contains("`wf` is not on PATH"),
            "{}",
            check.message
        );
        std::fs::create_dir_all(dir.path().join(".claude")).unwrap();
        std::fs::write(dir.path().join(hooks::SETTINGS_PATH), "{,}").unwrap();
        let check = hooks_check(dir.path(), Some(&home), path);
        assert_eq!(check.status, Status::Problem);
        assert!(
            check
                .message
                .starts_with(".claude/settings.json:1:2: not valid JSON"),
            "{}",
            check.message
        );
    }
}
