//! `wf.export` in the project config: the settings `wf export` writes into a
//! pipeline besides the plan's jobs — runners, setup steps, triggers, timeouts,
//! environment, concurrency, how wf is installed (docs/distributed.md "Settings").
//! They live in the project, so exporting again after a plan edit keeps them.
//!
//! Only their shape is checked here (strict, like the rest of `wf`): what a value
//! may hold to reach a pipeline is checked where it is written
//! (`src/report/export/`), naming this file.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;

use crate::error::{Result, WfError};

/// The most task jobs `max_jobs` may ask for (as `wf export --max-jobs`).
pub const MAX_JOBS_RANGE: std::ops::RangeInclusive<u64> = 1..=10_000;

/// `timeout_minutes`: GitHub's ceiling for a job on a self-hosted runner is 5 days;
/// 3 days is GitLab's largest job timeout.
pub const TIMEOUT_MINUTES_RANGE: std::ops::RangeInclusive<u64> = 1..=4320;

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExportSettings {
    /// How the jobs get wf (`--install`): `path`, `source`, `git:URL@COMMIT`,
    /// `crate:VERSION`.
    pub install: Option<String>,
    /// What becomes of agent tasks (`--agent-tasks`): `fail`, `omit` or `run`.
    pub agent_tasks: Option<String>,
    /// The most task jobs (`--max-jobs`).
    pub max_jobs: Option<u64>,
    /// GitHub's `runs-on`: one label, or several.
    pub runs_on: Option<Labels>,
    /// GitLab's `image` for the task and collect jobs.
    pub image: Option<String>,
    /// GitLab's runner `tags`.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Steps run before a job's tasks: for every job, or for the jobs of some tasks
    /// or phases.
    #[serde(default)]
    pub setup: Vec<SetupStep>,
    /// What starts the pipeline (default: by hand only).
    pub triggers: Option<Triggers>,
    /// Every task job's timeout (default: from its tasks' timeouts).
    pub timeout_minutes: Option<u64>,
    /// Environment variables of every job.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    pub concurrency: Option<Concurrency>,
    /// Whether each task job keeps a verification cache between runs (`wf run-task
    /// --cache`, restored before and saved after), so a task whose inputs passed
    /// before is not run again (default false).
    pub cache: Option<bool>,
}

/// One runner label or several (`"ubuntu-latest"`, `["self-hosted", "linux"]`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged, expecting = "a runner label or a list of them")]
pub enum Labels {
    One(String),
    Many(Vec<String>),
}

impl Labels {
    pub fn as_vec(&self) -> Vec<String> {
        match self {
            Labels::One(l) => vec![l.clone()],
            Labels::Many(ls) => ls.clone(),
        }
    }
}

/// A step run before a job's tasks: a GitHub action (`uses`, with `with`) or a
/// shell line (`run`); for every job, or only those running one of `tasks` or a
/// task of one of `phases`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupStep {
    pub name: Option<String>,
    pub uses: Option<String>,
    #[serde(default)]
    pub with: BTreeMap<String, serde_json::Value>,
    pub run: Option<String>,
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    #[serde(default)]
    pub tasks: Vec<String>,
    #[serde(default)]
    pub phases: Vec<String>,
}

impl SetupStep {
    /// Whether the step belongs in a job running `tasks` (id, phase).
    pub fn applies<'a>(&self, mut tasks: impl Iterator<Item = (&'a str, &'a str)>) -> bool {
        (self.tasks.is_empty() && self.phases.is_empty())
            || tasks.any(|(id, phase)| {
                self.tasks.iter().any(|t| t == id) || self.phases.iter().any(|p| p == phase)
            })
    }
}

/// What starts the pipeline: a push or a pull (merge) request to some branches (an
/// empty list: any branch), or a run by hand.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Triggers {
    pub push: Option<Vec<String>>,
    pub pull_request: Option<Vec<String>>,
    pub workflow_dispatch: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Concurrency {
    /// GitHub's concurrency group (default: one per workflow and ref).
    pub group: Option<String>,
    /// Whether a new run cancels the one in progress (default false: a run stopped
    /// half-way leaves its results half-imported).
    pub cancel_in_progress: Option<bool>,
}

/// Where `"name"` first stands in `text`, as `:LINE:COL`, or nothing.
fn at(text: &str, name: &str) -> String {
    text.find(&format!("\"{name}\""))
        .map(|i| {
            let before = &text[..i];
            let line = before.matches('\n').count() + 1;
            let col = i - before.rfind('\n').map_or(0, |n| n + 1) + 1;
            format!(":{line}:{col}")
        })
        .unwrap_or_default()
}

/// Whether `text` is a plain word of `extra` characters besides letters and digits.
fn plain(text: &str, extra: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || extra.contains(c))
}

/// Checks what the shape alone cannot: ranges, one of `uses`/`run` per step, names
/// that go into the pipeline as they are.
pub(super) fn check(path: &Path, text: &str, e: &ExportSettings) -> Result<()> {
    let fail = |name: &str, why: String| {
        Err(WfError::usage(format!(
            "{}{}: wf.export.{why}",
            path.display(),
            at(text, name)
        )))
    };
    for (name, value, range) in [
        ("max_jobs", e.max_jobs, MAX_JOBS_RANGE),
        ("timeout_minutes", e.timeout_minutes, TIMEOUT_MINUTES_RANGE),
    ] {
        if let Some(v) = value.filter(|v| !range.contains(v)) {
            return fail(
                name,
                format!(
                    "{name} is {v}, outside {}..={}; set it within that range or remove it",
                    range.start(),
                    range.end()
                ),
            );
        }
    }
    if let Some(a) = e
        .agent_tasks
        .as_deref()
        .filter(|a| !["fail", "omit", "run"].contains(a))
    {
        return fail(
            "agent_tasks",
            format!(
                "agent_tasks is {:?}; use \"fail\" (their jobs fail them), \"omit\" (left out with their dependants) or \"run\" (the executors of wf.executors do them in their jobs)",
                crate::error::one_line(a)
            ),
        );
    }
    let labels = e.runs_on.as_ref().map(Labels::as_vec).unwrap_or_default();
    if labels.iter().any(|l| !plain(l, "-_.:/ ")) || e.runs_on.is_some() && labels.is_empty() {
        return fail(
            "runs_on",
            "runs_on holds a label that is empty or not a plain word (letters, digits, - _ . : / and spaces); name the runner's labels".into(),
        );
    }
    if e.tags.iter().any(|t| !plain(t, "-_.:/ ")) {
        return fail(
            "tags",
            "tags holds a tag that is empty or not a plain word (letters, digits, - _ . : / and spaces)".into(),
        );
    }
    if let Some(image) = e.image.as_deref().filter(|i| !plain(i, "-_.:/@+")) {
        return fail(
            "image",
            format!(
                "image {:?} is not an image name (letters, digits, - _ . : / @ +)",
                crate::error::one_line(image)
            ),
        );
    }
    for name in e.env.keys() {
        if !plain(name, "_") || name.starts_with(|c: char| c.is_ascii_digit()) {
            return fail(
                "env",
                format!(
                    "env has the name {:?}; a variable's name is letters, digits and _",
                    crate::error::one_line(name)
                ),
            );
        }
        if ["WF_HOME", "WF_PLAN", "WF_RESULT_KEY"].contains(&name.as_str()) {
            return fail(
                "env",
                format!("env sets {name}, which the pipeline sets itself; remove it"),
            );
        }
    }
    if let Some(t) = &e.triggers {
        for (name, branches) in [("push", &t.push), ("pull_request", &t.pull_request)] {
            if let Some(b) = branches.iter().flatten().find(|b| !plain(b, "-_./*")) {
                return fail(
                    name,
                    format!(
                        "triggers.{name} names the branch {:?}; a branch here is letters, digits and - _ . / * (a glob)",
                        crate::error::one_line(b)
                    ),
                );
            }
        }
        if t.push.is_none() && t.pull_request.is_none() && t.workflow_dispatch == Some(false) {
            return fail(
                "triggers",
                "triggers starts the pipeline on nothing; name push, pull_request or workflow_dispatch".into(),
            );
        }
    }
    for (i, step) in e.setup.iter().enumerate() {
        match (&step.uses, &step.run) {
            (Some(_), Some(_)) | (None, None) => {
                return fail(
                    "setup",
                    format!("setup[{i}] needs exactly one of \"uses\" (a GitHub action) or \"run\" (a shell line)"),
                )
            }
            (Some(uses), None) if !plain(uses, "-_./@") || !uses.contains('@') && !uses.starts_with("./") => {
                return fail(
                    "setup",
                    format!(
                        "setup[{i}].uses is {:?}; name an action as OWNER/REPO@REF (e.g. actions/setup-python@v6) or ./PATH",
                        crate::error::one_line(uses)
                    ),
                )
            }
            (None, Some(_)) if !step.with.is_empty() => {
                return fail(
                    "setup",
                    format!("setup[{i}] has \"with\", which only an action (\"uses\") takes"),
                )
            }
            _ => {}
        }
        if let Some((k, _)) = step
            .with
            .iter()
            .find(|(_, v)| v.is_object() || v.is_array() || v.is_null())
        {
            return fail(
                "setup",
                format!("setup[{i}].with.{k} is not a string, number or boolean"),
            );
        }
    }
    Ok(())
}
