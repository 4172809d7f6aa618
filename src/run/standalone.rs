//! `wf run-task`: one task's checks run on their own — on a CI runner, another
//! machine — and written down as a result file that `wf import-results` folds into
//! the workflow later (docs/distributed.md).
//!
//! The checks are the engine's (`work::run_parts`, `src/run/work.rs`) with
//! `Part::Standalone`: everything a local run does for the task but the commit. No
//! lock is taken and nothing in the workflow dir is written: the logs go to a
//! temporary directory that is gone when the run is, and what the result keeps of
//! them is each command's bounded, control-stripped tail.
//!
//! A result names the tree it ran on ([`Tree`]: the commit, and the task's declared
//! inputs before the checks) and carries a `result_id`: an MD5 of its content — an
//! integrity checksum anyone can recompute, not a signature — or, with
//! `WF_RESULT_KEY` set, an HMAC-SHA256 under that key (docs/distributed.md "What a
//! result is trusted for"). The key is taken out of the environment the checks run
//! in.

use std::path::Path;
use std::time::Instant;

use hmac::{Hmac, Mac};
use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::Config;
use crate::error::{Result, WfError};
use crate::run::ci_cache::{self, CiCache};
use crate::run::policy::needs_agent;
use crate::run::work::{self, CheckRun, Part, Verdict, WorkCtx};
pub use crate::state::evidence::Runner;
use crate::state::evidence::{Changes, ClaimEvidence, DerivedCheck, FileDigest, Inputs};
use crate::state::model::WorkflowState;

/// The `kind` every result file carries, so a stray JSON file is told from one.
pub const RESULT_KIND: &str = "wf.task_result";

/// Most lines of a command's output a result keeps.
pub const TAIL_LINES: usize = 40;

/// Most bytes of a command's output a result keeps.
pub const TAIL_BYTES: usize = 4096;

/// The environment variable that holds the key results are signed with.
pub const KEY_VAR: &str = "WF_RESULT_KEY";

/// How a signed `result_id` starts; an unsigned one is 32 hex digits.
pub const SIGNED_PREFIX: &str = "hmac-sha256:";

/// One command of the result: [`CheckRun`] with the tail of its output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResultCheck {
    #[serde(flatten)]
    pub run: CheckRun,
    /// Its last lines (at most [`TAIL_LINES`] lines and [`TAIL_BYTES`] bytes),
    /// control characters stripped; empty when it printed nothing.
    #[serde(default)]
    pub log_tail: String,
    /// `sha256:` of all it printed, as a local run's evidence keeps it (the tail is
    /// cut; the digest is of the whole); none when it printed nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_digest: Option<String>,
}

/// A result file: one task's checks, run elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskResultFile {
    /// [`RESULT_KIND`].
    pub kind: String,
    /// The `wf` that wrote it.
    pub wf_version: String,
    pub task_id: String,
    pub task_name: String,
    /// The plan's `plan_digest` (MD5 of the imported text): a result is imported only
    /// into a workflow of the same plan.
    pub plan_digest: String,
    /// The task's inputs as the checks left them (docs/proof.md "Fingerprint"):
    /// dependencies' fingerprints as this machine knew them (none on a fresh CI
    /// checkout; `wf import-results` reseals with the workflow's own).
    pub fingerprint: Inputs,
    pub success: bool,
    /// Whether anything actually checked the task (as the engine's `verified`).
    pub verified: bool,
    /// Why it did not pass.
    #[serde(default)]
    pub reason: Option<String>,
    /// The task needs an agent, which `run-task` never runs: under the CI rules the
    /// result is a failure that says so (docs/distributed.md "Agent tasks").
    #[serde(default)]
    pub needs_agent: bool,
    pub duration_ms: u64,
    pub started_at: String,
    pub finished_at: String,
    pub checks: Vec<ResultCheck>,
    /// The checks were not run: the job's verification cache held a pass of them on
    /// the same inputs (`wf run-task --cache`, src/run/ci_cache.rs).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// A quality gate's record, as `gate.result` carries it.
    #[serde(default)]
    pub gate: Option<Value>,
    /// Where it ran, from the CI's environment (absent outside CI).
    #[serde(default)]
    pub runner: Option<Runner>,
    /// The executor that did an agent task's work (`run-task --agents`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub executor: Option<String>,
    /// What that executor said it did, when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<ClaimEvidence>,
    /// What the job's tree saw change while the executor worked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changes: Option<Changes>,
    /// The checks derived from the task's line and what each found.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived: Vec<DerivedCheck>,
    /// The tree the checks ran on; `wf import-results` trusts the result only on the
    /// same tree.
    #[serde(default)]
    pub tree: Option<Tree>,
    /// MD5 of the result's content without this key, or with `WF_RESULT_KEY` set,
    /// `hmac-sha256:` and the HMAC of that content under the key: the same result
    /// imported twice is recognised by it, and one changed afterwards is refused.
    #[serde(default)]
    pub result_id: String,
}

/// The tree a result's checks ran on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tree {
    /// `git rev-parse HEAD` of the project; none outside git.
    pub commit: Option<String>,
    /// The task's declared inputs before the checks ran, each with the digest of its
    /// content (docs/proof.md "Fingerprint"); none when it was not there.
    pub files: Vec<FileDigest>,
}

impl Tree {
    /// The tree of `project` for `task` now, at `commit` ([`head_commit`]).
    pub fn now(
        project: &Path,
        commit: Option<String>,
        state: &WorkflowState,
        task: &crate::state::model::Task,
    ) -> Result<Tree> {
        Ok(Tree {
            commit,
            files: crate::proof::inputs_now(project, state, task)?.files,
        })
    }
}

/// `git rev-parse HEAD` in `project`; none outside git, before the first commit, or
/// when git fails.
pub fn head_commit(project: &Path) -> Option<String> {
    let deadline = Instant::now() + std::time::Duration::from_secs(30);
    let out = crate::exec::git::output(
        project,
        &["rev-parse", "--verify", "-q", "HEAD"],
        &[],
        deadline,
        4096,
    )?;
    let commit = String::from_utf8(out).ok()?.trim().to_string();
    (commit.len() >= 40 && commit.bytes().all(|b| b.is_ascii_hexdigit())).then_some(commit)
}

/// The key in `WF_RESULT_KEY`, when it is set and not empty (a CI secret that is not
/// defined reads empty).
pub fn result_key() -> Option<Vec<u8>> {
    use std::os::unix::ffi::OsStringExt;
    std::env::var_os(KEY_VAR)
        .filter(|v| !v.is_empty())
        .map(OsStringExt::into_vec)
}

/// The HMAC-SHA256 of `body` under `key`.
pub fn hmac(key: &[u8], body: &[u8]) -> Hmac<sha2::Sha256> {
    // An HMAC takes a key of any length.
    let mut mac = <Hmac<sha2::Sha256> as Mac>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts any key length"));
    mac.update(body);
    mac
}

impl TaskResultFile {
    /// What the id covers: the result without its id.
    pub fn body(&self) -> Vec<u8> {
        let mut copy = self.clone();
        copy.result_id.clear();
        serde_json::to_vec(&copy).unwrap_or_default()
    }

    /// The unsigned id the result's content gives it: an MD5 checksum.
    pub fn content_id(&self) -> String {
        format!("{:x}", Md5::digest(self.body()))
    }

    /// The id to write: signed under `key` when there is one.
    pub fn id_for(&self, key: Option<&[u8]>) -> String {
        match key {
            Some(key) => {
                let mac = hmac(key, &self.body()).finalize().into_bytes();
                format!("{SIGNED_PREFIX}{mac:x}")
            }
            None => self.content_id(),
        }
    }
}

/// Whether the CI rules apply: `--ci`, or `CI=true` in the environment, as for
/// `workflow-execute` (`src/commands/execute.rs`).
pub fn ci_rules(flag: bool) -> bool {
    flag || std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

fn runner() -> Option<Runner> {
    let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    if var("GITHUB_ACTIONS").as_deref() == Some("true") {
        return Some(Runner {
            ci: "github-actions".into(),
            run_id: var("GITHUB_RUN_ID"),
            job: var("GITHUB_JOB"),
            commit: var("GITHUB_SHA"),
        });
    }
    if var("GITLAB_CI").as_deref() == Some("true") {
        return Some(Runner {
            ci: "gitlab-ci".into(),
            run_id: var("CI_PIPELINE_ID"),
            job: var("CI_JOB_NAME"),
            commit: var("CI_COMMIT_SHA"),
        });
    }
    None
}

/// Checks a chain of tasks for `wf run-task T1 T2 …` before any runs: every task is
/// in the workflow, none is named twice, none comes before a task it depends on (the
/// chain runs in the order given, so a dependency must already have passed), and an
/// agent task is named only under the CI rules — so a chain never stops half-way for
/// a reason known at its start.
pub fn check_chain(state: &WorkflowState, ids: &[String], ci: bool) -> Result<()> {
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for (k, id) in ids.iter().enumerate() {
        let task = state.task(id)?.ok_or_else(|| {
            WfError::usage(format!(
                "no task {} in this workflow; `wf status` lists the task ids",
                crate::error::one_line(id)
            ))
        })?;
        if !seen.insert(id) {
            return Err(WfError::usage(format!(
                "task {id} is named twice; name each task of the chain once"
            )));
        }
        if let Some(later) = ids[k + 1..].iter().find(|d| task.deps.contains(d)) {
            return Err(WfError::usage(format!(
                "task {id} depends on {later}, which comes after it; name a task after the tasks it depends on"
            )));
        }
        if needs_agent(task) && !ci {
            return Err(agent_refusal(id));
        }
    }
    Ok(())
}

fn agent_refusal(task_id: &str) -> WfError {
    WfError::usage(format!(
        "task {task_id} needs an agent, and `wf run-task` runs only the checks wf runs itself; do it with `wf workflow-execute`, pass --agents to have the configured executors do it here, or --ci to write a failed result as a CI run would"
    ))
}

/// What every task of one `wf run-task` shares.
pub struct Run<'a> {
    pub project: &'a Path,
    pub config: &'a Config,
    pub state: &'a WorkflowState,
    /// The CI rules ([`ci_rules`]).
    pub ci: bool,
    /// The key results are signed with ([`result_key`]).
    pub key: Option<&'a [u8]>,
    /// Agent tasks are done by the configured executors (`--agents`,
    /// `src/run/ci_agent.rs`) instead of failed, given this brief.
    pub agents: Option<crate::run::engine::BriefFn>,
    /// Where each line a check prints goes as it comes (`-v`), besides its log.
    pub echo: Option<crate::run::work::TaskEcho>,
}

/// Runs `task_id`'s checks in the project and returns the result. An agent task is
/// refused unless under the CI rules (then its result is a failure, as
/// `workflow-execute --ci` fails it). With `cannot` (why the task cannot run here:
/// an upstream output is missing, `src/run/carry.rs`), nothing runs and the result
/// is that failure. With a `cache` that holds a pass of the task on its inputs as
/// they are, nothing runs and the result is that pass.
pub fn run_task(
    run: &Run<'_>,
    task_id: &str,
    cannot: Option<String>,
    mut cache: Option<&mut CiCache<'_>>,
) -> Result<TaskResultFile> {
    let Run {
        project,
        config,
        state,
        ci,
        key,
        agents,
        ref echo,
    } = *run;
    let task = state.task(task_id)?.ok_or_else(|| {
        WfError::usage(format!(
            "no task {task_id} in this workflow; `wf status` lists the task ids"
        ))
    })?;
    let plan_digest = state.plan_digest.clone().ok_or_else(|| {
        WfError::usage(
            "the workflow has no plan digest (a plugin-written state); import the plan with `wf workflow-start PLAN.md` first",
        )
    })?;
    let agent = needs_agent(task);
    if agent && !ci && agents.is_none() {
        return Err(agent_refusal(task_id));
    }
    // Taken before the checks: the tree they ran on, which a check may change.
    let tree = Tree::now(project, head_commit(project), state, task)?;
    let started_at = crate::clock::now_rfc3339();
    let started = Instant::now();
    // The logs live only as long as this run: nothing in the workflow dir is written.
    let scratch = tempfile::Builder::new()
        .prefix("wf-run-task-")
        .tempdir()
        .map_err(|e| WfError::io(&e, format!("cannot make a temporary directory: {e}")))?;
    let mut ctx = WorkCtx::new(
        project.to_path_buf(),
        scratch.path().to_path_buf(),
        config.clone(),
        state.constraints.hard.clone(),
    );
    ctx.echo.clone_from(echo);
    let mut runs = Vec::new();
    // The reason `workflow-execute --ci` gives an agent task, so both runs read alike.
    let cannot = cannot.or_else(|| {
        (agent && agents.is_none()).then(|| crate::run::policy::ci_handoff_reason(task))
    });
    // An agent's work is never answered from the cache: it has yet to be done.
    let cached = match (&cannot, cache.as_mut()) {
        (None, Some(cache)) if !agent => cache.pass(task)?,
        _ => None,
    };
    let mut agent_work = AgentWork::default();
    let (verdict, gate) = if let Some(reason) = cannot {
        (Verdict::Failed { reason }, None)
    } else if cached.is_some() {
        (Verdict::Passed { verified: true }, None)
    } else if let (true, Some(brief)) = (agent, agents) {
        crate::run::signals::install();
        let _watch = crate::run::signals::InterruptWatch::start(ctx.children.clone());
        match crate::run::ci_agent::do_in_job(&ctx, state, task, config, brief) {
            Ok((outcome, executor)) => {
                runs = outcome.checks;
                agent_work = AgentWork {
                    executor: Some(executor),
                    claim: outcome.claim,
                    changes: outcome.changes,
                    derived: outcome.derived,
                };
                (outcome.verdict, outcome.gate)
            }
            Err(verdict) => (verdict, None),
        }
    } else {
        let log = ctx.log_for(task, 1);
        let mut ran = work::Ran::default();
        let verdict = {
            crate::run::signals::install();
            let _watch = crate::run::signals::InterruptWatch::start(ctx.children.clone());
            let parts = work::run_parts(&ctx, task, 1, Part::Standalone, &log, &mut ran);
            match crate::exec::reactor::block_on(parts) {
                Ok(verified) => Verdict::Passed { verified },
                Err(v) => v,
            }
        };
        runs = ran.checks;
        (verdict, ran.gate)
    };
    if verdict == Verdict::Interrupted {
        return Err(WfError::new(
            crate::error::ErrorKind::Interrupted,
            format!("task {task_id}'s checks were interrupted; no result was written"),
        ));
    }
    // Taken after the checks: the files as they passed (or failed) on them.
    let fingerprint = crate::proof::inputs_now(project, state, task)?;
    if let (Verdict::Passed { .. }, Some(cache)) = (&verdict, cache) {
        if cached.is_none() {
            cache.remember(task, &CheckRun::evidence(&runs))?;
        }
    }
    let log = ctx.log_for(task, 1);
    let ran = runs
        .into_iter()
        .map(|run| {
            let log_tail = run.log_part.as_ref().map_or_else(String::new, |part| {
                segment_tail(&log, part.start, part.end, &run.command)
            });
            let log_digest = run.log_digest.clone();
            ResultCheck {
                run,
                log_tail,
                log_digest,
            }
        })
        .collect();
    let checks = match &cached {
        Some(record) => ci_cache::result_checks(task, record),
        None => ran,
    };
    let (success, verified, reason) = match verdict {
        Verdict::Passed { verified } => (true, verified, None),
        Verdict::Failed { reason } | Verdict::DispatchFailed { reason, .. } => {
            (false, false, Some(reason))
        }
        Verdict::Interrupted => (false, false, Some("interrupted".into())),
    };
    let mut result = TaskResultFile {
        kind: RESULT_KIND.into(),
        wf_version: env!("CARGO_PKG_VERSION").into(),
        task_id: task.id.clone(),
        task_name: task.name.clone(),
        plan_digest,
        fingerprint,
        success,
        verified,
        reason,
        needs_agent: agent,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        started_at,
        finished_at: crate::clock::now_rfc3339(),
        checks,
        cached: cached.is_some(),
        gate,
        runner: runner(),
        executor: agent_work.executor,
        claim: agent_work.claim,
        changes: agent_work.changes,
        derived: agent_work.derived,
        tree: Some(tree),
        result_id: String::new(),
    };
    result.result_id = result.id_for(key);
    Ok(result)
}

/// What an agent's work in the job leaves for the result.
#[derive(Default)]
struct AgentWork {
    executor: Option<String>,
    claim: Option<ClaimEvidence>,
    changes: Option<Changes>,
    derived: Vec<DerivedCheck>,
}

/// The tail of one command's part of the attempt's log, bounded and stripped of
/// control characters (the output is the command's, and ends up on a terminal).
fn segment_tail(log: &Path, from: u64, to: u64, command: &str) -> String {
    const MAX_READ: u64 = 64 * 1024;
    if to <= from {
        return String::new();
    }
    let start = from.max(to.saturating_sub(MAX_READ));
    let Some(buf) = crate::fs::read_range(log, start..to) else {
        return String::new();
    };
    let text = String::from_utf8_lossy(&buf);
    let mut lines: Vec<&str> = text.lines().collect();
    // The log's header line for the command (`$ command`, `lazylog`) is not output.
    if start == from && lines.first().and_then(|l| l.strip_prefix("$ ")) == Some(command) {
        lines.remove(0);
    }
    let shown = &lines[lines.len().saturating_sub(TAIL_LINES)..];
    let text = crate::escape::output(&shown.join("\n")).into_owned();
    last_bytes(text.trim_end(), TAIL_BYTES)
}

/// At most the last `max` bytes of `text`, cut at a char boundary, `…` first when cut.
pub fn last_bytes(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut cut = text.len() - max.saturating_sub(4);
    while !text.is_char_boundary(cut) {
        cut += 1;
    }
    format!("…\n{}", &text[cut..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_bytes_cuts_on_a_char_boundary() {
        let text = "é".repeat(3000);
        let cut = last_bytes(&text, 100);
        assert!(cut.len() <= 100, "{}", cut.len());
        assert!(cut.starts_with("…\n"));
        assert_eq!(last_bytes("short", 100), "short");
    }

    #[test]
    fn a_segment_tail_drops_the_header_and_escapes_controls() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("l.log");
        let text = "$ first\nA\n$ echo hi\nhi \x1b[31mred\x1b[0m\x07\n";
        std::fs::write(&log, text).unwrap();
        let from = "$ first\nA\n".len() as u64;
        let tail = segment_tail(&log, from, text.len() as u64, "echo hi");
        assert_eq!(tail, "hi red\\u{7}");
        assert_eq!(segment_tail(&log, 5, 5, "x"), "");
    }
}
