//! Executors as a resource pool (docs/executors.md): agent CLIs from the project config,
//! matched to tasks by capability, allocated and released, with escalation to the
//! strongest available one after a failure.
//!
//! Capability mapping (overridable per task with a `capabilities` field, and per action
//! with `wf.capabilities` in the config): review actions (`codex_review`,
//! `quality_review`, any action ending in `_review`) need `review`; every other agent
//! action (`create_file`, `edit_file`, …) and a task that names no action (spec-kit)
//! needs `implement`.

use std::collections::HashMap;

use serde::Serialize;

use crate::config::{Config, ExecutorConfig, Role};
use crate::state::model::Task;

pub const DEFAULT_MAX_RETRIES: u32 = 3;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceStatus {
    Available,
    Busy,
    Error,
}

#[derive(Debug, Clone)]
pub struct Executor {
    pub config: ExecutorConfig,
    /// Why it cannot be used (its program is not on PATH), if so.
    pub error: Option<String>,
}

impl Executor {
    /// `reviewer` or `executor`: the role its events are shown under.
    pub fn role(&self) -> Role {
        self.config.role
    }
}

/// The pool's view of one capability (docs/executors.md "Capabilities").
#[derive(Debug, Clone, Serialize)]
pub struct CatalogEntry {
    pub capability: String,
    #[serde(rename = "resourceCount")]
    pub resource_count: usize,
    #[serde(rename = "availableCount")]
    pub available_count: usize,
    pub resources: Vec<CatalogResource>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CatalogResource {
    pub id: String,
    pub name: String,
    pub level: u32,
    pub role: Role,
    pub status: ResourceStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// How mock rehearsal answers for a role (docs/executors.md, `--mock`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MockOutcome {
    Success,
    Failure,
}

#[derive(Debug, Clone, Default)]
pub struct MockPolicy {
    pub executor: Option<MockOutcome>,
    pub reviewer: Option<MockOutcome>,
}

impl MockPolicy {
    /// `success`, `failure`, or `executor=failure,reviewer=success`.
    pub fn parse(text: &str) -> Result<MockPolicy, String> {
        let outcome = |v: &str| match v {
            "success" => Ok(MockOutcome::Success),
            "failure" => Ok(MockOutcome::Failure),
            other => Err(format!("`{other}` is not success or failure")),
        };
        let mut policy = MockPolicy::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            // A bare outcome is every role's.
            match part.split_once('=').unwrap_or(("all", part)) {
                ("executor", v) => policy.executor = Some(outcome(v)?),
                ("reviewer", v) => policy.reviewer = Some(outcome(v)?),
                ("all", v) => {
                    let o = outcome(v)?;
                    policy.executor = Some(o);
                    policy.reviewer = Some(o);
                }
                (role, _) => {
                    return Err(format!(
                        "unknown role `{role}` (use executor, reviewer or all)"
                    ))
                }
            }
        }
        if policy.executor.is_none() && policy.reviewer.is_none() {
            return Err("empty policy".into());
        }
        Ok(policy)
    }

    pub fn for_role(&self, role: Role) -> Option<MockOutcome> {
        match role {
            Role::Reviewer => self.reviewer,
            Role::Executor => self.executor,
        }
    }
}

pub struct Pool {
    executors: Vec<Executor>,
    busy: HashMap<String, usize>,
    mock: Option<MockPolicy>,
    action_caps: std::collections::BTreeMap<String, String>,
}

impl Pool {
    pub fn from_config(config: &Config, mock: Option<MockPolicy>) -> Pool {
        let mut executors: Vec<Executor> = config
            .wf
            .executors
            .iter()
            .map(|c| Executor {
                error: c
                    .command
                    .first()
                    .filter(|prog| which::which(prog).is_err())
                    .map(|prog| format!("`{prog}` is not on PATH")),
                config: c.clone(),
            })
            .collect();
        if let Some(policy) = &mock {
            // Rehearsal: one stand-in per role that can do anything.
            executors = [Role::Executor, Role::Reviewer]
                .into_iter()
                .filter(|&role| policy.for_role(role).is_some())
                .map(|role| Executor {
                    error: None,
                    config: ExecutorConfig {
                        name: format!("mock-{}", role.as_str()),
                        command: vec![],
                        capabilities: vec!["*".into()],
                        level: 1,
                        max_parallel: usize::MAX,
                        timeout_secs: None,
                        role,
                    },
                })
                .collect();
        }
        Pool {
            executors,
            busy: HashMap::new(),
            mock,
            action_caps: config.wf.capabilities.clone(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.executors.is_empty()
    }

    pub fn mock(&self) -> Option<&MockPolicy> {
        self.mock.as_ref()
    }

    /// The capabilities `task` needs, in a stable order.
    pub fn required(&self, task: &Task) -> Vec<String> {
        required_capabilities(task, &self.action_caps)
    }

    fn can(e: &Executor, capability: &str) -> bool {
        e.config
            .capabilities
            .iter()
            .any(|c| c == capability || c == "*")
    }

    /// Whether `e` may take work needing `capability`: it offers it, and a reviewer
    /// does nothing but review. One rule for matching, allocating and reporting.
    fn fits(e: &Executor, capability: &str) -> bool {
        Self::can(e, capability) && (e.config.role != Role::Reviewer || capability == "review")
    }

    /// Whether any configured executor (usable or not) can take `capability`.
    pub fn offers(&self, capability: &str) -> bool {
        self.offering(capability).is_some()
    }

    /// The name of the first configured executor (usable or not) that can take
    /// `capability`.
    pub fn offering(&self, capability: &str) -> Option<&str> {
        self.executors
            .iter()
            .find(|e| Self::fits(e, capability))
            .map(|e| e.config.name.as_str())
    }

    /// Takes a slot on an executor for `capability`: the first with a free slot, or
    /// after a failure (`escalate`) the strongest. `None` when none is free.
    pub fn allocate(&mut self, capability: &str, escalate: bool) -> Option<Executor> {
        let mut fits: Vec<&Executor> = self
            .executors
            .iter()
            .filter(|e| Self::fits(e, capability) && e.error.is_none())
            .filter(|e| self.busy.get(&e.config.name).copied().unwrap_or(0) < e.config.max_parallel)
            .collect();
        if escalate {
            fits.sort_by_key(|e| std::cmp::Reverse(e.config.level));
        }
        let chosen = fits.first().map(|e| (*e).clone())?;
        *self.busy.entry(chosen.config.name.clone()).or_insert(0) += 1;
        Some(chosen)
    }

    pub fn release(&mut self, name: &str) {
        if let Some(n) = self.busy.get_mut(name) {
            *n = n.saturating_sub(1);
        }
    }

    /// Whether every executor offering `capability` is unusable (missing program).
    pub fn all_broken(&self, capability: &str) -> bool {
        let offering: Vec<&Executor> = self
            .executors
            .iter()
            .filter(|e| Self::fits(e, capability))
            .collect();
        !offering.is_empty() && offering.iter().all(|e| e.error.is_some())
    }

    pub fn catalog(&self) -> Vec<CatalogEntry> {
        let mut caps: Vec<String> = Vec::new();
        for e in &self.executors {
            for c in &e.config.capabilities {
                if !caps.contains(c) {
                    caps.push(c.clone());
                }
            }
        }
        caps.into_iter()
            .map(|cap| {
                let resources: Vec<CatalogResource> = self
                    .executors
                    .iter()
                    .filter(|e| Self::can(e, &cap))
                    .map(|e| CatalogResource {
                        id: e.config.name.clone(),
                        name: e.config.command.join(" "),
                        level: e.config.level,
                        role: e.config.role,
                        status: if e.error.is_some() {
                            ResourceStatus::Error
                        } else if self.busy.get(&e.config.name).copied().unwrap_or(0)
                            >= e.config.max_parallel
                        {
                            ResourceStatus::Busy
                        } else {
                            ResourceStatus::Available
                        },
                        error: e.error.clone(),
                    })
                    .collect();
                CatalogEntry {
                    capability: cap,
                    resource_count: resources.len(),
                    available_count: resources
                        .iter()
                        .filter(|r| r.status == ResourceStatus::Available)
                        .count(),
                    resources,
                }
            })
            .collect()
    }
}

/// An executor's claim: the last fenced ```json block of its output with
/// `{success, changed_files, summary}`. Parsing is fail-closed: a block that is not
/// exactly that shape is a rejected claim, never a success.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
pub struct Claim {
    pub success: bool,
    #[serde(default)]
    pub changed_files: Vec<String>,
    #[serde(default)]
    pub summary: String,
}

pub fn parse_claim(output: &str) -> Option<Result<Claim, String>> {
    let start = output.rfind("```json")?;
    let body = &output[start + "```json".len()..];
    let Some(end) = body.find("```") else {
        return Some(Err("the claim's ```json block is not closed".into()));
    };
    Some(
        serde_json::from_str::<Claim>(body[..end].trim())
            .map_err(|e| format!("the claim is not valid ({e})")),
    )
}

/// A reviewer's verdict: the last `TOTAL SCORE: N` in its output.
pub fn parse_score(output: &str) -> Option<u32> {
    output.lines().rev().find_map(|line| {
        let rest = line.trim().strip_prefix("TOTAL SCORE:")?;
        rest.trim()
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    })
}

/// The capabilities `task` needs, in a stable order: the plan's, else one for each
/// kind of agent action it names (`wf.capabilities` maps an action to one; a
/// `*_review` is `review`, any other `implement`), `implement` when it names none.
/// The executor that takes it must offer them all, and a hand-off names them.
pub fn required_capabilities(
    task: &Task,
    action_caps: &std::collections::BTreeMap<String, String>,
) -> Vec<String> {
    if !task.capabilities.is_empty() {
        return task.capabilities.clone();
    }
    let mut caps: Vec<String> = Vec::new();
    for action in crate::run::engine::agent_actions(task) {
        let cap = match action_caps.get(action) {
            Some(c) => c.clone(),
            None if action.ends_with("_review") => "review".into(),
            None => "implement".into(),
        };
        if !caps.contains(&cap) {
            caps.push(cap);
        }
    }
    if caps.is_empty() {
        caps.push("implement".into());
    }
    caps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_are_fail_closed() {
        assert_eq!(parse_claim("no block"), None);
        let ok = "work\n```json\n{\"success\": true, \"changed_files\": [\"a\"], \"summary\": \"did\"}\n```\n";
        assert_eq!(parse_claim(ok).unwrap().unwrap().changed_files, vec!["a"]);
        assert!(parse_claim("```json\n{\"success\": \"yes\"}\n```")
            .unwrap()
            .is_err());
        assert!(parse_claim("```json\n{\"success\": true").unwrap().is_err());
    }

    #[test]
    fn score_is_the_last_total() {
        assert_eq!(
            parse_score("TOTAL SCORE: 40\nfix\nTOTAL SCORE: 85/100"),
            Some(85)
        );
        assert_eq!(parse_score("no score"), None);
    }

    #[test]
    fn mock_policy_parses_roles() {
        let p = MockPolicy::parse("executor=failure,reviewer=success").unwrap();
        assert_eq!(p.for_role(Role::Executor), Some(MockOutcome::Failure));
        assert_eq!(p.for_role(Role::Reviewer), Some(MockOutcome::Success));
        assert!(MockPolicy::parse("executor=maybe").is_err());
        assert!(MockPolicy::parse("").is_err());
    }
}
