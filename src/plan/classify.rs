//! Which external inputs a task waits for: seed 004 `classifyTaskDependencies`.
//!
//! Builtin rules, matched against the task's name and file lowercased:
//! - `api_spec`: name matches `api|接口|服务层|service|fetch|request|http|数据获取|后端`
//!   or file matches `services/|api/|http/`;
//! - `design_spec`: name matches `ui|样式|组件|还原|视觉|布局|卡片|弹窗|表单` or file
//!   matches `\.vue$|\.tsx$|\.jsx$|\.css$|\.scss$|components/|pages/|views/`, unless
//!   the name matches `骨架|skeleton|mock|stub|placeholder` (scaffolding is exempt).
//!
//! As in the plugin these are unanchored substring matches: "ui" also matches
//! "build" and "guide", "api" matches "rapid". That over-matching is the plugin's
//! behaviour, kept so both tools block the same tasks; a user lifts a wrong block
//! with `workflow-unblock`.
//!
//! Custom kinds come from the project config, `wf.blockers: {"kind": {"name": "regex",
//! "file": "regex"}}`: a task is of that kind when either regex matches (case
//! insensitive). A custom rule for `api_spec` or `design_spec` adds to the builtin
//! one. Kinds must match `^[a-z][a-z0-9_]{0,31}$` and may not be `all` (that word
//! means every kind to `workflow-unblock`). Regexes are compiled once per [`Rules`].

use regex::{Regex, RegexBuilder};

use crate::config::Config;
use crate::error::{Result, WfError};
use crate::state::model::Task;

use super::fields::is_valid_kind;

pub const API_SPEC: &str = "api_spec";
pub const DESIGN_SPEC: &str = "design_spec";

/// Compiled classification rules: the builtins, then the project's.
#[derive(Debug, Clone)]
pub struct Rules {
    rules: Vec<Rule>,
}

#[derive(Debug, Clone)]
struct Rule {
    kind: String,
    name: Option<Regex>,
    file: Option<Regex>,
    /// A name matching this is never of the kind.
    exempt: Option<Regex>,
}

impl Rules {
    /// The builtin rules only.
    pub fn builtin() -> Result<Rules> {
        let re = |p: &str| {
            Regex::new(p).map_err(|e| WfError::usage(format!("builtin rule {p}: {}", one_line(&e))))
        };
        Ok(Rules {
            rules: vec![
                Rule {
                    kind: API_SPEC.into(),
                    name: Some(re(
                        "api|接口|服务层|service|fetch|request|http|数据获取|后端",
                    )?),
                    file: Some(re(r"services/|api/|http/")?),
                    exempt: None,
                },
                Rule {
                    kind: DESIGN_SPEC.into(),
                    name: Some(re("ui|样式|组件|还原|视觉|布局|卡片|弹窗|表单")?),
                    file: Some(re(
                        r"\.vue$|\.tsx$|\.jsx$|\.css$|\.scss$|components/|pages/|views/",
                    )?),
                    exempt: Some(re("骨架|skeleton|mock|stub|placeholder")?),
                },
            ],
        })
    }

    /// The builtin rules plus the project's `wf.blockers`.
    pub fn from_config(cfg: &Config) -> Result<Rules> {
        let mut rules = Rules::builtin()?;
        let path = cfg.display_path();
        for (kind, rule) in &cfg.wf.blockers {
            if !is_valid_kind(kind) || kind == "all" {
                return Err(WfError::usage(format!(
                    "{path}: wf.blockers key {:?} is not a valid blocker kind; use lowercase letters, digits and _ (starting with a letter, at most 32, not \"all\")",
                    kind.chars().take(64).collect::<String>()
                )));
            }
            if rule.name.is_none() && rule.file.is_none() {
                return Err(WfError::usage(format!(
                    "{path}: wf.blockers.{kind} has neither a name nor a file regex; give at least one"
                )));
            }
            let compile = |field: &str, pattern: &Option<String>| -> Result<Option<Regex>> {
                pattern
                    .as_deref()
                    .map(|p| {
                        RegexBuilder::new(p)
                            .case_insensitive(true)
                            .size_limit(1 << 20)
                            .build()
                            .map_err(|e| {
                                WfError::usage(format!(
                                    "{path}: wf.blockers.{kind}.{field} is not a valid regex ({}); fix the pattern",
                                    one_line(&e)
                                ))
                            })
                    })
                    .transpose()
            };
            rules.rules.push(Rule {
                kind: kind.clone(),
                name: compile("name", &rule.name)?,
                file: compile("file", &rule.file)?,
                exempt: None,
            });
        }
        Ok(rules)
    }

    /// Every kind: `api_spec`, `design_spec`, then the custom ones.
    pub fn kinds(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in &self.rules {
            if !out.contains(&r.kind) {
                out.push(r.kind.clone());
            }
        }
        out
    }
}

/// The blocker kinds whose rules match `task`, in [`Rules::kinds`] order.
pub fn classify(task: &Task, rules: &Rules) -> Vec<String> {
    let name = task.name.to_lowercase();
    let file = task.file.as_deref().unwrap_or("").to_lowercase();
    let mut out: Vec<String> = Vec::new();
    for r in &rules.rules {
        if out.contains(&r.kind) {
            continue;
        }
        let hit = r.name.as_ref().is_some_and(|re| re.is_match(&name))
            || r.file.as_ref().is_some_and(|re| re.is_match(&file));
        let exempt = r.exempt.as_ref().is_some_and(|re| re.is_match(&name));
        if hit && !exempt {
            out.push(r.kind.clone());
        }
    }
    out
}

/// A regex error on one line (their `Display` draws a multi-line caret diagram).
fn one_line(e: &regex::Error) -> String {
    let text = e.to_string();
    let msg = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("error:"))
        .map(str::trim)
        .map(str::to_string);
    msg.unwrap_or_else(|| text.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::BlockerRule;
    use std::path::PathBuf;

    fn task(name: &str, file: Option<&str>) -> Task {
        Task {
            id: "T1".into(),
            name: name.into(),
            file: file.map(str::to_string),
            ..Task::default()
        }
    }

    #[test]
    fn seed_rules() {
        let r = Rules::builtin().unwrap();
        assert_eq!(r.kinds(), vec!["api_spec", "design_spec"]);
        assert_eq!(classify(&task("实现用户接口", None), &r), vec!["api_spec"]);
        assert_eq!(
            classify(&task("x", Some("src/Services/user.ts")), &r),
            vec!["api_spec"]
        );
        assert_eq!(
            classify(&task("Login form", Some("src/pages/Login.vue")), &r),
            vec!["design_spec"]
        );
        assert_eq!(
            classify(&task("Fetch UI data", None), &r),
            vec!["api_spec", "design_spec"]
        );
        // Seed semantics: unanchored, so "build" contains "ui".
        assert_eq!(classify(&task("Build", None), &r), vec!["design_spec"]);
        assert!(classify(&task("页面骨架", Some("src/views/a.vue")), &r).is_empty());
        assert!(classify(&task("UI placeholder", None), &r).is_empty());
        assert!(classify(&task("Write docs", Some("README.md")), &r).is_empty());
    }

    fn config(blockers: &[(&str, Option<&str>, Option<&str>)]) -> Config {
        let mut cfg = Config {
            path: Some(PathBuf::from("/p/.claude/config/project-config.json")),
            ..Config::default()
        };
        for (k, n, f) in blockers {
            cfg.wf.blockers.insert(
                k.to_string(),
                BlockerRule {
                    name: n.map(str::to_string),
                    file: f.map(str::to_string),
                },
            );
        }
        cfg
    }

    #[test]
    fn custom_kinds() {
        let cfg = config(&[
            ("backend", Some("Migration|数据库"), None),
            ("api_spec", None, Some(r"\.proto$")),
        ]);
        let r = Rules::from_config(&cfg).unwrap();
        assert_eq!(r.kinds(), vec!["api_spec", "design_spec", "backend"]);
        assert_eq!(classify(&task("Add migration", None), &r), vec!["backend"]);
        assert_eq!(
            classify(&task("x", Some("proto/a.proto")), &r),
            vec!["api_spec"]
        );
    }

    #[test]
    fn bad_config_is_one_line_error() {
        let err = Rules::from_config(&config(&[("backend", Some("(unclosed"), None)])).unwrap_err();
        assert!(err.message.starts_with(
            "/p/.claude/config/project-config.json: wf.blockers.backend.name is not a valid regex ("
        ), "{}", err.message);
        assert!(!err.message.contains('\n'));
        let err = Rules::from_config(&config(&[("Bad-Kind", Some("x"), None)])).unwrap_err();
        assert!(err
            .message
            .contains("wf.blockers key \"Bad-Kind\" is not a valid blocker kind"));
        let err = Rules::from_config(&config(&[("all", Some("x"), None)])).unwrap_err();
        assert!(err.message.contains("not \"all\""));
        let err = Rules::from_config(&config(&[("k", None, None)])).unwrap_err();
        assert!(err.message.contains("wf.blockers.k has neither"));
    }
}
