//! The project config: `<project>/.claude/config/project-config.json`.
//!
//! The same file the plugin reads (`project.id`, `scripts.test`); `wf`'s own settings
//! live under the `wf` key. Top-level keys belong to the plugin and are left alone;
//! inside `wf` an unknown key or a wrong type is an error naming the file, line and
//! column, never silently dropped.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Result, WfError};

pub const CONFIG_PATH: &str = ".claude/config/project-config.json";

/// The context window the usage percentage is taken of, when the config sets none.
pub const DEFAULT_CONTEXT_WINDOW: u64 = 200_000;

/// Most bytes of one command's output a task log keeps, when the config sets none.
pub const DEFAULT_LOG_CAP: u64 = 8 << 20;

/// The `wf.log_cap_bytes` a config may set: enough for a screenful, and no more than
/// half of it is ever held in memory (the tail waits there until the command ends).
pub const LOG_CAP_RANGE: std::ops::RangeInclusive<u64> = 4096..=(256 << 20);

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

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WfSettings {
    /// Default per-command timeout (120 s when unset).
    pub timeout_secs: Option<u64>,
    /// Bounded retries of a failed agent task, with escalation (3 when unset).
    pub max_retries: Option<u32>,
    /// The context window the usage percentage is taken of (200,000 when unset).
    pub context_window_tokens: Option<u64>,
    /// Most bytes of one command's output kept in its task log: the first and last
    /// halves, the middle elided with a marker line (8 MiB when unset).
    pub log_cap_bytes: Option<u64>,
    /// Command prefixes a constraint's `verifyCmd` may start with.
    pub allowed_command_prefixes: Option<Vec<String>>,
    #[serde(default)]
    pub executors: Vec<ExecutorConfig>,
    /// Extra dependency kinds: `{"kind": {"name": "regex", "file": "regex"}}`.
    #[serde(default)]
    pub blockers: BTreeMap<String, BlockerRule>,
    /// Overrides of the builtin verifiers' commands by name.
    #[serde(default)]
    pub verifiers: BTreeMap<String, String>,
    /// Action → capability overrides.
    #[serde(default)]
    pub capabilities: BTreeMap<String, String>,
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
    #[serde(default = "executor_role")]
    pub role: String,
}

fn one() -> u32 {
    1
}
fn one_usize() -> usize {
    1
}
fn executor_role() -> String {
    "executor".into()
}

impl WfSettings {
    /// `log_cap_bytes`, or the default when unset.
    pub fn log_cap(&self) -> u64 {
        self.log_cap_bytes.unwrap_or(DEFAULT_LOG_CAP)
    }

    /// `context_window_tokens`, or the default when unset or 0 (a 0 window would
    /// make every usage infinite).
    pub fn context_window(&self) -> u64 {
        self.context_window_tokens
            .filter(|w| *w > 0)
            .unwrap_or(DEFAULT_CONTEXT_WINDOW)
    }
}

impl Config {
    /// Reads the config of `project`, or the defaults when it has none.
    pub fn load(project: &Path) -> Result<Config> {
        let path = project.join(CONFIG_PATH);
        let bytes = match fs_err::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Config::default()),
            Err(e) => return Err(WfError::usage(e.to_string())),
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
                "{}:{}:{}: invalid project config: {}",
                path.display(),
                e.line(),
                e.column(),
                crate::error::one_line(&e.to_string())
            ))
        })?;
        config.path = Some(path.to_path_buf());
        if let Some(cap) = config
            .wf
            .log_cap_bytes
            .filter(|c| !LOG_CAP_RANGE.contains(c))
        {
            let at = text.find("\"log_cap_bytes\"").unwrap_or(0);
            let line = text[..at].matches('\n').count() + 1;
            let column = at - text[..at].rfind('\n').map_or(0, |n| n + 1) + 1;
            return Err(WfError::usage(format!(
                "{}:{line}:{column}: wf.log_cap_bytes is {cap}; use a number of bytes from {} to {}",
                path.display(),
                LOG_CAP_RANGE.start(),
                LOG_CAP_RANGE.end()
            )));
        }
        for (i, ex) in config.wf.executors.iter().enumerate() {
            if ex.command.is_empty() || ex.command[0].is_empty() {
                return Err(WfError::usage(format!(
                    "{}: wf.executors[{i}] ({}) has an empty command; give the program and its arguments as a list",
                    path.display(),
                    ex.name
                )));
            }
            if !matches!(ex.role.as_str(), "executor" | "reviewer") {
                return Err(WfError::usage(format!(
                    "{}: wf.executors[{i}].role is {:?}; use \"executor\" or \"reviewer\"",
                    path.display(),
                    ex.role
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
mod log_cap_tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(Path::new("c.json"), text.as_bytes())
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
        assert!(err.contains("from 4096 to 268435456"), "{err}");
    }
}
