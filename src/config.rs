//! The project config: `<project>/.claude/config/project-config.json`.
//!
//! The same file the plugin reads (`project.id`, `scripts.test`); `wf`'s own settings
//! live under the `wf` key. Top-level keys belong to the plugin and are left alone;
//! inside `wf` an unknown key or a wrong type is an error naming the file, line and
//! column, never silently dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::error::{Result, WfError};

pub mod constraints;
pub mod export;

pub const CONFIG_PATH: &str = ".claude/config/project-config.json";

/// The context window the usage percentage is taken of, when the config sets none.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// Most bytes of one command's output a task log keeps, when the config sets none.
pub const DEFAULT_LOG_CAP: u64 = 8 << 20;

/// How long `wf hook Stop` spends on checks when the config does not say.
pub const DEFAULT_HOOK_TIMEOUT_SECS: u64 = 120;

/// How many times in a row the `Stop` hook keeps an agent on one failing task.
pub const DEFAULT_HOOK_MAX_BLOCKS: u32 = 5;

/// The `wf.hook_timeout_secs` a config may set: below Claude Code's default timeout
/// for a command hook (600 s, docs/hooks.md), with 10 s left for `wf`'s own work
/// (reading the state, `git status`, writing its answer). Past the editor's timeout
/// the hook is killed and says nothing at all.
pub const HOOK_TIMEOUT_RANGE: std::ops::RangeInclusive<u64> = 1..=590;

/// The `wf.log_cap_bytes` a config may set: enough for a screenful, and no more than
/// half of it is ever held in memory (the tail waits there until the command ends).
pub const LOG_CAP_RANGE: std::ops::RangeInclusive<u64> = 4096..=(256 << 20);

/// Where a run pauses besides its mode's own stops: before a quality gate, before a
/// `git_commit` task. The same in every mode, so `--phase` and `--all` agree.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PauseAt {
    pub gate: bool,
    pub commit: bool,
}

impl PauseAt {
    /// `gate`, `commit`, `none`, or a list of them separated by commas (as
    /// `--pause-at` and `wf.pause_at` take it).
    pub fn parse(list: &str) -> std::result::Result<PauseAt, String> {
        let mut at = PauseAt::default();
        for word in list.split(',').map(str::trim) {
            match word {
                "gate" => at.gate = true,
                "commit" => at.commit = true,
                "none" | "" => {}
                other => {
                    return Err(format!(
                        "`{other}` is not a pause point; use gate, commit or none"
                    ))
                }
            }
        }
        Ok(at)
    }
}

/// The key that sets the consecutive-agent-task limit, named in its pause.
pub const AGENT_LIMIT_KEY: &str = "wf.max_consecutive_agent_tasks";

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Config {
    #[serde(default)]
    pub project: ProjectSection,
    #[serde(default)]
    pub scripts: Scripts,
    #[serde(default)]
    pub wf: WfSettings,
    /// Where it was read from, for error messages.
    #[serde(skip)]
    pub path: Option<PathBuf>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct ProjectSection {
    pub id: Option<String>,
    pub name: Option<String>,
}

/// The project's own commands for the builtin verifiers.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct Scripts {
    pub test: Option<String>,
    pub lint: Option<String>,
    pub build: Option<String>,
    pub typecheck: Option<String>,
}

/// A model's price in `wf.prices`, US dollars per million tokens (`src/run/prices.rs`
/// applies it).
#[derive(Debug, Clone, Copy, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
    #[serde(default)]
    pub cache_write: f64,
    #[serde(default)]
    pub cache_read: f64,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WfSettings {
    /// Default per-command timeout (120 s when unset).
    pub timeout_secs: Option<u64>,
    /// Bounded retries of a failed agent task, with escalation (3 when unset).
    pub max_retries: Option<u32>,
    /// The context window the usage percentage is taken of (200,000 when unset).
    pub context_window_tokens: Option<u64>,
    /// No agent work starts once the tokens the executors reported reach this.
    pub budget_tokens: Option<u64>,
    /// No agent work starts once the cost the executors reported reaches this (US
    /// dollars).
    pub budget_usd: Option<f64>,
    /// No new attempt of an agent task starts once the tokens its attempts used reach
    /// this (a budget per task, beside the workflow's).
    pub task_budget_tokens: Option<u64>,
    /// The same in US dollars.
    pub task_budget_usd: Option<f64>,
    /// US dollars per million tokens by model id prefix, over the defaults of
    /// `src/run/prices.rs`: what usage read from an agent's session costs.
    #[serde(default)]
    pub prices: BTreeMap<String, Price>,
    /// Most bytes of one command's output kept in its task log: the first and last
    /// halves, the middle elided with a marker line (8 MiB when unset).
    pub log_cap_bytes: Option<u64>,
    /// How long `wf hook Stop` may spend on a handed-off task's checks, all of them
    /// together (120 s when unset); kept below the editor's own hook timeout
    /// (docs/hooks.md "Time budget").
    pub hook_timeout_secs: Option<u64>,
    /// How many times in a row `wf hook Stop` keeps the agent working on one task
    /// whose checks fail (5 when unset): past it, or when the agent changed nothing
    /// since the last failure, it is let stop (docs/hooks.md "Stop").
    pub hook_max_blocks: Option<u32>,
    /// Whether `wf hook SubagentStop` blocks like `Stop` while the checks fail (false
    /// when unset: a subagent is not the one working on the handed-off task).
    pub block_subagent_stop: Option<bool>,
    /// Command prefixes a constraint's `verifyCmd` may start with.
    pub allowed_command_prefixes: Option<Vec<String>>,
    /// Whether an agent's change to a file its task does not declare fails the task
    /// (false when unset: it is reported in the task's evidence; docs/proof.md).
    pub reject_undeclared_changes: Option<bool>,
    /// Tasks whose checks are never answered from the verification cache: those that
    /// read the network, the clock, or anything else their declared files do not
    /// cover (docs/proof.md "The cache").
    #[serde(default)]
    pub uncached_tasks: Vec<String>,
    /// The project's test command (read from its files when unset): a phase's
    /// checkpoint runs it whole, and a test file a task writes runs with the file as
    /// `"$@"` (docs/proof.md "Derived checks").
    pub test_command: Option<String>,
    /// Checks for the files tasks name: a path glob (`src/**/*.py`, `docs/`) → a shell
    /// command, run with the matched files as `"$@"` for every task without a command
    /// of its own that names one (docs/plans.md "Checks").
    #[serde(default)]
    pub checks: BTreeMap<String, String>,
    /// Whether `workflow-execute` fails a task that nothing checks instead of
    /// accepting it unchecked (as `--require-checks`; on under `--ci` unless
    /// `--allow-unchecked`).
    pub require_checks: Option<bool>,
    /// Where `workflow-execute` pauses besides its mode's stops, as `--pause-at`
    /// takes it: `gate`, `commit`, both (`gate,commit`) or `none` (the default).
    pub pause_at: Option<String>,
    /// How many agent tasks one run does before it pauses (unset: the plugin's limit,
    /// 8, 5 or 3 by the task's size, less when the context is filling up).
    pub max_consecutive_agent_tasks: Option<u32>,
    #[serde(default)]
    pub executors: Vec<ExecutorConfig>,
    /// Which plans are classified and whether the builtin rules apply.
    #[serde(default)]
    pub classify: ClassifySettings,
    /// Extra dependency kinds: `{"kind": {"name": "regex", "file": "regex"}}`.
    #[serde(default)]
    pub blockers: BTreeMap<String, BlockerRule>,
    /// The builtin verifiers by name: a command of the project's (which it
    /// requires), `true` (the detected command, required), `false` (off).
    #[serde(default)]
    pub verifiers: BTreeMap<String, VerifierSetting>,
    /// Action → capability overrides.
    #[serde(default)]
    pub capabilities: BTreeMap<String, String>,
    /// What `wf export` writes besides the plan's jobs (docs/distributed.md
    /// "Settings").
    #[serde(default)]
    pub export: export::ExportSettings,
    /// Constraints every workflow of the project starts with, a CI job's included
    /// (docs/constraints.md "Committed constraints").
    #[serde(default)]
    pub constraints: Vec<constraints::ProjectConstraint>,
    /// Several agents at once: leases and worktrees (docs/guide.md "Several agents at
    /// once").
    #[serde(default)]
    pub agents: AgentSettings,
}

/// `wf.agents`: how tasks are leased to agents working at the same time.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentSettings {
    /// Each leased task in its own git worktree, merged back when it passes (false
    /// when unset; `wf next --worktree` asks for one task).
    pub worktrees: Option<bool>,
    /// Minutes an agent may go without calling `wf` before its lease expires and its
    /// task goes back to ready ([`DEFAULT_LEASE_MINUTES`] when unset).
    pub lease_minutes: Option<u64>,
}

/// An agent that calls nothing for an hour has gone (a task that takes longer is
/// still renewed by each `next`, `status` or hook call).
pub const DEFAULT_LEASE_MINUTES: u64 = 60;

impl AgentSettings {
    pub fn lease_ttl(&self) -> std::time::Duration {
        let minutes = self.lease_minutes.unwrap_or(DEFAULT_LEASE_MINUTES);
        std::time::Duration::from_secs(minutes.saturating_mul(60))
    }
}

/// One `wf.verifiers` entry (`src/exec/verifier.rs` reads it).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum VerifierSetting {
    /// The project's own command line for the verifier; it is required.
    Command(String),
    /// `true`: the detected command, required (a missing tool fails the gate);
    /// `false`: the verifier is off.
    Required(bool),
}

/// `wf.classify`: see `plan::classify`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClassifySettings {
    /// The plan formats classified (`claude-workflow`, `spec-kit`); `[]` is off.
    /// Default: claude-workflow only (the rules are that plugin's).
    pub formats: Option<Vec<String>>,
    /// Whether the builtin api_spec/design_spec rules apply (default true); false
    /// leaves only `wf.blockers`.
    pub builtin: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BlockerRule {
    pub name: Option<String>,
    pub file: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExecutorConfig {
    pub name: String,
    /// Program and arguments; never run through a shell.
    pub command: Vec<String>,
    #[serde(default)]
    pub capabilities: Vec<String>,
    #[serde(default = "one")]
    pub level: u32,
    #[serde(default = "one_usize")]
    pub max_parallel: usize,
    pub timeout_secs: Option<u64>,
    #[serde(default)]
    pub role: Role,
}

/// What an executor does with a task: the work, or a review of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", try_from = "String")]
pub enum Role {
    #[default]
    Executor,
    Reviewer,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Executor => "executor",
            Role::Reviewer => "reviewer",
        }
    }
}

impl std::fmt::Display for Role {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl TryFrom<String> for Role {
    type Error = String;

    fn try_from(name: String) -> Result<Role, String> {
        match name.as_str() {
            "executor" => Ok(Role::Executor),
            "reviewer" => Ok(Role::Reviewer),
            _ => Err(format!(
                "an executor's role is {:?}; use \"executor\" or \"reviewer\"",
                name.chars().take(64).collect::<String>()
            )),
        }
    }
}

fn one() -> u32 {
    1
}
fn one_usize() -> usize {
    1
}

impl WfSettings {
    /// `log_cap_bytes`, or the default when unset.
    pub fn log_cap(&self) -> u64 {
        self.log_cap_bytes.unwrap_or(DEFAULT_LOG_CAP)
    }

    /// `hook_timeout_secs` as a duration, or the default when unset.
    pub fn hook_budget(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.hook_timeout_secs.unwrap_or(DEFAULT_HOOK_TIMEOUT_SECS))
    }

    /// `hook_max_blocks`, or the default when unset.
    pub fn hook_max_blocks(&self) -> u32 {
        self.hook_max_blocks.unwrap_or(DEFAULT_HOOK_MAX_BLOCKS)
    }

    /// `context_window_tokens`, or the default when unset.
    pub fn context_window(&self) -> u64 {
        self.context_window_tokens.unwrap_or(DEFAULT_CONTEXT_WINDOW)
    }
}

/// The longest timeout a config may set: a week. Far beyond any task, and far
/// inside what `Instant` arithmetic can add.
pub const MAX_TIMEOUT_SECS: u64 = 7 * 24 * 3600;

/// Where `"name": value` stands in the config text (1-based line and column of the
/// key), `name` being the last part of `key`: the first such pair with that very
/// value, so a namesake with a good value earlier in the file is passed over.
fn key_position(text: &str, key: &str, value: u64) -> Option<(usize, usize)> {
    let name = key.rsplit('.').next()?;
    let pattern = format!(r#""{}"\s*:\s*{value}\b"#, regex::escape(name));
    let at = regex::Regex::new(&pattern).ok()?.find(text)?.start();
    let before = text.get(..at)?;
    let line = before.matches('\n').count() + 1;
    let col = at - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    Some((line, col))
}

/// Refuses a numeric setting outside what it can mean: a timeout of 0 would time out
/// every command, one of 2^64 s would overflow the deadline, a 0 window would make
/// every usage infinite, an executor with no slots would never run anything.
fn check_ranges(path: &Path, text: &str, wf: &WfSettings) -> Result<()> {
    let check = |key: String, value: Option<u64>, range: std::ops::RangeInclusive<u64>| match value
    {
        Some(v) if !range.contains(&v) => {
            let at = key_position(text, &key, v)
                .map(|(line, col)| format!(":{line}:{col}"))
                .unwrap_or_default();
            Err(WfError::usage(format!(
                "{}{at}: {key} is {v}, outside {}..={}; set it within that range or remove it",
                path.display(),
                range.start(),
                range.end()
            )))
        }
        _ => Ok(()),
    };
    check("wf.log_cap_bytes".into(), wf.log_cap_bytes, LOG_CAP_RANGE)?;
    check(
        "wf.agents.lease_minutes".into(),
        wf.agents.lease_minutes,
        1..=10_080,
    )?;
    check(
        "wf.hook_timeout_secs".into(),
        wf.hook_timeout_secs,
        HOOK_TIMEOUT_RANGE,
    )?;
    check(
        "wf.timeout_secs".into(),
        wf.timeout_secs,
        1..=MAX_TIMEOUT_SECS,
    )?;
    check(
        "wf.max_retries".into(),
        wf.max_retries.map(u64::from),
        0..=100,
    )?;
    check(
        "wf.context_window_tokens".into(),
        wf.context_window_tokens,
        1..=1_000_000_000,
    )?;
    check(
        "wf.task_budget_tokens".into(),
        wf.task_budget_tokens,
        1..=1_000_000_000_000,
    )?;
    check(
        "wf.budget_tokens".into(),
        wf.budget_tokens,
        1..=1_000_000_000_000,
    )?;
    check(
        AGENT_LIMIT_KEY.into(),
        wf.max_consecutive_agent_tasks.map(u64::from),
        1..=10_000,
    )?;
    if let Some(Err(why)) = wf.pause_at.as_deref().map(PauseAt::parse) {
        return Err(WfError::usage(format!(
            "{}: wf.pause_at: {why}",
            path.display()
        )));
    }
    for (key, usd) in [
        ("budget_usd", wf.budget_usd),
        ("task_budget_usd", wf.task_budget_usd),
    ] {
        if let Some(usd) = usd.filter(|v| !(v.is_finite() && *v > 0.0)) {
            return Err(WfError::usage(format!(
                "{}: wf.{key} is {usd}; set it to a positive number of US dollars or remove it",
                path.display()
            )));
        }
    }
    for (model, price) in &wf.prices {
        let fields = [
            ("input", price.input),
            ("output", price.output),
            ("cache_write", price.cache_write),
            ("cache_read", price.cache_read),
        ];
        if let Some((name, v)) = fields.iter().find(|(_, v)| !(v.is_finite() && *v >= 0.0)) {
            return Err(WfError::usage(format!(
                "{}: wf.prices.{model}.{name} is {v}; set it to US dollars per million tokens (0 or more)",
                path.display()
            )));
        }
    }
    for (i, ex) in wf.executors.iter().enumerate() {
        let key = |name: &str| format!("wf.executors[{i}].{name}");
        check(key("timeout_secs"), ex.timeout_secs, 1..=MAX_TIMEOUT_SECS)?;
        check(key("level"), Some(u64::from(ex.level)), 1..=100)?;
        check(
            key("max_parallel"),
            Some(u64::try_from(ex.max_parallel).unwrap_or(u64::MAX)),
            1..=64,
        )?;
    }
    Ok(())
}

/// For serde's "unknown field `X`, expected one of `a`, `b`": `; did you mean `a`?`
/// when one of them is a slip away (`runs-on` for `runs_on`), else nothing.
fn did_you_mean(message: &str) -> String {
    static UNKNOWN: std::sync::LazyLock<Option<regex::Regex>> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"unknown field `([^`]*)`, expected (?:one of )?((?:`[^`]*`(?:, | or )?)+)",
        )
        .ok()
    });
    let Some(caps) = UNKNOWN.as_ref().and_then(|re| re.captures(message)) else {
        return String::new();
    };
    let norm = |s: &str| -> Vec<char> { s.to_lowercase().replace('-', "_").chars().collect() };
    let unknown = norm(&caps[1]);
    let most = if unknown.len() <= 5 { 1 } else { 2 };
    caps[2]
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|known| (crate::error::edit_distance(&unknown, &norm(known)), known))
        .filter(|(d, _)| *d <= most)
        .min_by_key(|(d, _)| *d)
        .map(|(_, known)| format!("; did you mean `{known}`?"))
        .unwrap_or_default()
}

impl Config {
    /// Reads the config of `project`, or the defaults when it has none.
    pub fn load(project: &Path) -> Result<Config> {
        let path = project.join(CONFIG_PATH);
        let bytes = match crate::fs::read_regular(&path) {
            Ok(b) => b,
            Err(e) if e.io == Some(std::io::ErrorKind::NotFound) => return Ok(Config::default()),
            Err(e) => return Err(e),
        };
        Config::parse(&path, &bytes)
    }

    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Config> {
        let text = std::str::from_utf8(bytes).map_err(|e| {
            WfError::usage(format!(
                "{}: not UTF-8 (byte {}); save it as UTF-8",
                path.display(),
                e.valid_up_to()
            ))
        })?;
        // serde reads a struct from a JSON array too (`[]` would be an empty config);
        // the file is an object, so anything else is refused before that.
        if !text.trim_start().starts_with('{') {
            return Err(WfError::usage(format!(
                "{}:1:1: invalid project config: the top level must be a JSON object ({{...}})",
                path.display()
            )));
        }
        let mut config: Config = serde_json::from_str(text).map_err(|e| {
            WfError::usage(format!(
                "{}:{}:{}: invalid project config: {}{}",
                path.display(),
                e.line(),
                e.column(),
                crate::error::one_line(&e.to_string()),
                did_you_mean(&e.to_string())
            ))
        })?;
        config.path = Some(path.to_path_buf());
        check_ranges(path, text, &config.wf)?;
        export::check(path, text, &config.wf.export)?;
        for (i, ex) in config.wf.executors.iter().enumerate() {
            if ex.command.is_empty() || ex.command[0].is_empty() {
                return Err(WfError::usage(format!(
                    "{}: wf.executors[{i}] ({}) has an empty command; give the program and its arguments as a list",
                    path.display(),
                    ex.name
                )));
            }
        }
        Ok(config)
    }

    pub fn display_path(&self) -> String {
        self.path
            .as_ref()
            .map_or_else(|| CONFIG_PATH.to_string(), |p| p.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(Path::new("c.json"), text.as_bytes())
    }

    #[test]
    fn prices_are_read_and_a_negative_or_unknown_field_is_refused() {
        let cfg = parse(r#"{"wf": {"prices": {"my-model": {"input": 2, "output": 8}}}}"#).unwrap();
        assert_eq!(
            cfg.wf.prices["my-model"],
            Price {
                input: 2.0,
                output: 8.0,
                cache_write: 0.0,
                cache_read: 0.0
            }
        );
        let err = parse(r#"{"wf": {"prices": {"m": {"input": -1, "output": 8}}}}"#).unwrap_err();
        assert_eq!(
            err.message,
            "c.json: wf.prices.m.input is -1; set it to US dollars per million tokens (0 or more)"
        );
        let err = parse(r#"{"wf": {"prices": {"m": {"input": 1, "output": 8, "cached": 1}}}}"#)
            .unwrap_err();
        assert!(
            err.message.contains("unknown field `cached`"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_executor_role_is_executor_or_reviewer_and_anything_else_names_its_line() {
        let cfg = |role: &str| {
            format!(r#"{{"wf": {{"executors": [{{"name": "a", "command": ["a"]{role}}}]}}}}"#)
        };
        let roles: Vec<Role> = ["", r#", "role": "executor""#, r#", "role": "reviewer""#]
            .iter()
            .map(|r| parse(&cfg(r)).unwrap().wf.executors[0].role)
            .collect();
        assert_eq!(roles, [Role::Executor, Role::Executor, Role::Reviewer]);
        let err = parse(&cfg(r#", "role": "boss""#)).unwrap_err();
        assert!(err.message.starts_with("c.json:1:"), "{}", err.message);
        assert!(
            err.message
                .contains(r#"an executor's role is "boss"; use "executor" or "reviewer""#),
            "{}",
            err.message
        );
    }

    #[test]
    fn numbers_outside_their_range_are_refused_with_file_line_key_and_range() {
        let err = parse(r#"{"wf": {"timeout_secs": 0}}"#).unwrap_err();
        assert_eq!(
            err.message,
            "c.json:1:9: wf.timeout_secs is 0, outside 1..=604800; set it within that range or remove it"
        );
        let err =
            parse(r#"{"wf": {"executors": [{"name": "a", "command": ["a"], "level": 101}]}}"#)
                .unwrap_err();
        assert!(err
            .message
            .contains("wf.executors[0].level is 101, outside 1..=100"));
        // The line is that of the key holding the bad value, not of an earlier namesake.
        let err = parse("{\"wf\": {\"timeout_secs\": 5,\n \"executors\": [{\"name\": \"a\", \"command\": [\"a\"],\n \"timeout_secs\": 0}]}}").unwrap_err();
        assert!(
            err.message
                .starts_with("c.json:3:2: wf.executors[0].timeout_secs is 0"),
            "{}",
            err.message
        );
        let ok = parse(
            r#"{"wf": {"timeout_secs": 604800, "max_retries": 0, "context_window_tokens": 1}}"#,
        )
        .unwrap();
        assert_eq!(ok.wf.context_window(), 1);
        assert_eq!(
            Config::default().wf.context_window(),
            DEFAULT_CONTEXT_WINDOW
        );
    }

    #[test]
    fn hook_settings_default_and_are_checked() {
        let config = parse("{}").unwrap();
        assert_eq!(config.wf.hook_budget().as_secs(), DEFAULT_HOOK_TIMEOUT_SECS);
        assert_eq!(config.wf.block_subagent_stop, None);
        let config =
            parse(r#"{"wf": {"hook_timeout_secs": 30, "block_subagent_stop": true}}"#).unwrap();
        assert_eq!(config.wf.hook_budget().as_secs(), 30);
        assert_eq!(config.wf.block_subagent_stop, Some(true));
        for bad in ["0", "600"] {
            let err = parse(&format!(r#"{{"wf": {{"hook_timeout_secs": {bad}}}}}"#))
                .unwrap_err()
                .to_string();
            assert_eq!(
                err,
                format!("c.json:1:9: wf.hook_timeout_secs is {bad}, outside 1..=590; set it within that range or remove it")
            );
        }
        let err = parse(r#"{"wf": {"block_subagent_stop": "yes"}}"#)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("c.json:1:"), "{err}");
    }

    #[test]
    fn log_cap_defaults_and_reads_within_its_range() {
        assert_eq!(parse("{}").unwrap().wf.log_cap(), DEFAULT_LOG_CAP);
        let config = parse(r#"{"wf": {"log_cap_bytes": 100000}}"#).unwrap();
        assert_eq!(config.wf.log_cap(), 100_000);
    }

    #[test]
    fn log_cap_out_of_range_names_file_line_and_range() {
        for bad in ["10", "1000000000000", "-1", "\"8M\""] {
            let text = format!("{{\n  \"wf\": {{\n    \"log_cap_bytes\": {bad}\n  }}\n}}");
            let err = parse(&text).unwrap_err().to_string();
            assert!(err.starts_with("c.json:3:"), "{bad}: {err}");
            assert!(!err.contains('\n'), "{err}");
        }
        let err = parse(r#"{"wf": {"log_cap_bytes": 10}}"#)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("wf.log_cap_bytes is 10, outside 4096..=268435456"),
            "{err}"
        );
    }
}
