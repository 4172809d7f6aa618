//! What a result is trusted for (docs/distributed.md "What a result is trusted
//! for"). A result file is a claim made somewhere else; before it moves a task,
//! `wf import-results` checks what it can:
//!
//! - **its id**: unsigned, an MD5 of its content (an integrity checksum that anyone
//!   who edits the file can recompute); with `WF_RESULT_KEY` set, an HMAC-SHA256
//!   under that key, and then an unsigned or mis-signed result is refused;
//! - **its job**: in an exported pipeline's layout (`--job JOB=TASK,…`), a result is
//!   taken only for a task of the job whose directory holds it, so a job's commands
//!   cannot plant a result for another job's task;
//! - **what it says**: a pass whose checks failed, that ran none of the task's
//!   commands, or that passes an agent task (`wf run-task` never does) cannot be true;
//! - **its tree**: the commit and the digests of the task's declared inputs must be
//!   this tree's, else it is refused (or, with `--allow-stale`, imported as stale and
//!   said so).
//!
//! What none of this can tell: a job's own commands can still make that job's own
//! tasks pass (they are the checks), and a key in a job's environment is within
//! reach of a process there.

use crate::state::model::Glance;
use std::collections::HashMap;
use std::path::Path;

use hmac::Mac;

use crate::run::standalone::{self, TaskResultFile, Tree, SIGNED_PREFIX};
use crate::state::model::{Task, WorkflowState};

/// Whether the result's id is the one its content and `key` give it: `Err` with why.
pub fn check_id(r: &TaskResultFile, key: Option<&[u8]>) -> Result<(), String> {
    let signed = r.result_id.strip_prefix(SIGNED_PREFIX);
    match (key, signed) {
        (Some(_), None) => Err(
            "it is not signed (it was written where WF_RESULT_KEY was not set), and WF_RESULT_KEY is set here: run the task again with the key".into(),
        ),
        (Some(key), Some(hex)) => {
            let good = decode_hex(hex)
                .is_some_and(|mac| standalone::hmac(key, &r.body()).verify_slice(&mac).is_ok());
            if good {
                Ok(())
            } else {
                Err("its signature does not match: it was changed after `wf run-task` wrote it, or signed with another key".into())
            }
        }
        (None, Some(_)) => Err(
            "it is signed (WF_RESULT_KEY was set where it ran) and cannot be checked without the key: set WF_RESULT_KEY to it".into(),
        ),
        (None, None) if r.content_id() == r.result_id => Ok(()),
        (None, None) => Err(
            "its result_id does not match its content: it was changed after `wf run-task` wrote it".into(),
        ),
    }
}

fn decode_hex(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect()
}

/// The tasks each job of an exported pipeline runs (`--job JOB=TASK,…`).
#[derive(Debug, Clone, Default)]
pub struct Jobs {
    /// Job id → its tasks, in order.
    pub tasks: Vec<(String, Vec<String>)>,
}

impl Jobs {
    /// Parses the `--job` values: `JOB=TASK,TASK,…`.
    pub fn parse(values: &[String]) -> Result<Jobs, String> {
        let mut tasks: Vec<(String, Vec<String>)> = Vec::new();
        for v in values {
            let (job, ids) = v.split_once('=').ok_or_else(|| {
                format!(
                    "--job {}: write it JOB=TASK,TASK (the job's id, then the tasks it runs), as `wf export` does",
                    crate::error::one_line(v)
                )
            })?;
            if tasks.iter().any(|(j, _)| j == job) {
                return Err(format!("--job {job} is given twice"));
            }
            let ids: Vec<String> = ids
                .split(',')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect();
            tasks.push((job.to_string(), ids));
        }
        Ok(Jobs { tasks })
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// Whether a result for `task_id` found in `job`'s directory is that job's to
    /// give: `Err` with why, naming both.
    pub fn check(&self, job: Option<&str>, task_id: &str) -> Result<(), String> {
        let Some(job) = job else {
            return Err(format!(
                "a result for {task_id} outside any job's directory; the pipeline's results are laid out one directory per job"
            ));
        };
        let Some((_, tasks)) = self.tasks.iter().find(|(j, _)| j == job) else {
            return Err(format!(
                "a result for {task_id} in the directory of {job}, which is no job of this pipeline"
            ));
        };
        if tasks.iter().any(|t| t == task_id) {
            return Ok(());
        }
        Err(format!(
            "a result for {task_id} in the directory of job {job}, which runs {}, not {task_id}: a job gives results only for its own tasks",
            tasks.join(", ")
        ))
    }

    /// The job that runs `task_id`.
    pub fn job_of(&self) -> HashMap<&str, &str> {
        self.tasks
            .iter()
            .flat_map(|(job, tasks)| tasks.iter().map(move |t| (t.as_str(), job.as_str())))
            .collect()
    }
}

/// Whether what `r` says can be true of `task`: `Err` with why when it cannot. A
/// failure always can; a pass needs every check it reports to have exited 0, every
/// command of the task's among them, a test run for a `run_tests` task, a passed gate
/// for a gate, and for a task that needs an agent, an executor's work that something
/// checked (`wf run-task --agents`).
pub fn check_claim(r: &TaskResultFile, task: &Task) -> Result<(), String> {
    if !r.success {
        return Ok(());
    }
    if crate::run::policy::needs_agent(task) {
        // Only `run-task --agents` passes one: an executor did the work and the
        // task's checks (its commands, what its line names) confirmed it.
        if r.executor.is_none() {
            return Err(format!(
                "it says task {} passed, but task {} needs an agent, and no executor did it (only `wf run-task --agents` passes one)",
                task.id, task.id
            ));
        }
        if !r.verified {
            return Err(format!(
                "it says task {} passed, but nothing checked the work executor {} did",
                task.id,
                r.executor.as_deref().unwrap_or_default()
            ));
        }
    }
    if let Some(c) = r.checks.iter().find(|c| c.run.exit_code != Some(0)) {
        return Err(format!(
            "it says it passed, but {} `{}` {}",
            c.run.what,
            crate::error::one_line(&c.run.command),
            c.run.outcome
        ));
    }
    let commands: Vec<&str> = task.check_commands().collect();
    let ran = |what: &str, cmd: Option<&str>| {
        r.checks
            .iter()
            .any(|c| c.run.what == what && cmd.is_none_or(|cmd| c.run.command == cmd))
    };
    if r.checks.is_empty() && !commands.is_empty() {
        return Err(format!(
            "it ran no check, but task {} has {}: {}",
            task.id,
            commands.len(),
            commands
                .iter()
                .map(|c| format!("`{}`", crate::error::one_line(c)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(missing) = commands.iter().find(|cmd| !ran("check", Some(cmd))) {
        return Err(format!(
            "it did not run task {}'s check `{}`",
            task.id,
            crate::error::one_line(missing)
        ));
    }
    if task.has_action("run_tests") && !task.quality_gate && !ran("run_tests", None) {
        return Err(format!(
            "it did not run the tests, which task {} runs (run_tests)",
            task.id
        ));
    }
    if task.quality_gate
        && !r
            .gate
            .as_ref()
            .is_some_and(|g| g["passed"] == serde_json::Value::Bool(true))
    {
        return Err(format!(
            "it says quality gate {} passed, but holds no passed gate record",
            task.id
        ));
    }
    Ok(())
}

/// Why `r` did not run on this tree (`project` now, at `commit`, for `task`): its
/// commit, or the declared inputs that differ; `None` when it did.
///
/// A file the task itself creates is its output, not an input: what was there
/// before does not matter. A file an upstream task writes (one the task depends on,
/// directly or not) was handed to the task's job by that task's job
/// (docs/distributed.md "What a job hands on"), so it must be what that task's
/// evidence here says it left, not what this tree holds (a fresh checkout has none
/// of them).
pub fn tree_mismatch(
    r: &TaskResultFile,
    project: &Path,
    commit: Option<&str>,
    state: &WorkflowState,
    task: &Task,
) -> crate::error::Result<Option<String>> {
    let Some(then) = &r.tree else {
        return Ok(Some(
            "it names no tree it ran on (written by an older wf)".into(),
        ));
    };
    let now = Tree::now(project, commit.map(str::to_string), state, task)?;
    if then.commit != now.commit {
        let short = |c: &Option<String>| {
            c.as_deref().map_or_else(
                || "none (not in git)".to_string(),
                |c| c.chars().take(12).collect(),
            )
        };
        return Ok(Some(format!(
            "it ran on commit {}, this tree is at {}",
            short(&then.commit),
            short(&now.commit)
        )));
    }
    let here = |path: &str| now.files.iter().find(|f| f.path == path);
    let mut differ: Vec<&str> = now
        .files
        .iter()
        .filter(|f| !then.files.iter().any(|t| t.path == f.path))
        .map(|f| f.path.as_str())
        .collect();
    let mut upstream: Option<HashMap<String, Option<String>>> = None;
    for f in &then.files {
        if task
            .creates
            .iter()
            .any(|c| c.trim_end_matches('/') == f.path.trim_end_matches('/'))
        {
            continue;
        }
        if here(&f.path).is_some_and(|n| n.digest == f.digest) {
            continue;
        }
        let left = match &mut upstream {
            Some(left) => left,
            None => upstream.insert(upstream_outputs(state, task)?),
        };
        match left.get(f.path.trim_end_matches('/')) {
            Some(digest) if *digest == f.digest => {}
            _ => differ.push(&f.path),
        }
    }
    Ok((!differ.is_empty()).then(|| {
        format!(
            "it ran on another tree: {} differ{}",
            differ.join(", "),
            if differ.len() == 1 { "s" } else { "" }
        )
    }))
}

/// The content each upstream task of `task` left in the files it writes, by its
/// evidence: path → digest, the last writer in dependency order winning.
fn upstream_outputs(
    state: &WorkflowState,
    task: &Task,
) -> crate::error::Result<HashMap<String, Option<String>>> {
    let mut up: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut stack: Vec<&str> = task.deps.iter().map(String::as_str).collect();
    while let Some(id) = stack.pop() {
        if up.insert(id) {
            stack.extend(state.task_ref(id).into_iter().flat_map(|t| t.deps()));
        }
    }
    let mut left = HashMap::new();
    let tasks = state.whole_tasks()?;
    let order = crate::plan::jobs::dependency_order(&tasks).unwrap_or_default();
    for t in order
        .into_iter()
        .map(|i| tasks[i])
        .filter(|t| up.contains(t.id.as_str()))
    {
        let Some(evidence) = t.proof() else { continue };
        let outputs = crate::run::carry::outputs(t);
        for f in evidence.inputs.files {
            let path = f.path.trim_end_matches('/');
            if outputs.contains(&path) {
                left.insert(path.to_string(), f.digest);
            }
        }
    }
    Ok(left)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn job_values_parse_and_name_both_sides_of_a_refusal() {
        let jobs = Jobs::parse(&["task-T1=T1,T2".into(), "task-T3=T3".into()]).unwrap();
        assert!(jobs.check(Some("task-T1"), "T2").is_ok());
        let why = jobs.check(Some("task-T1"), "T3").unwrap_err();
        assert!(
            why.contains("in the directory of job task-T1, which runs T1, T2, not T3"),
            "{why}"
        );
        assert!(jobs
            .check(None, "T1")
            .unwrap_err()
            .contains("outside any job"));
        assert!(jobs.check(Some("task-T9"), "T1").is_err());
        assert!(Jobs::parse(&["nojobs".into()]).is_err());
        assert!(Jobs::parse(&["a=T1".into(), "a=T2".into()]).is_err());
        assert_eq!(jobs.job_of()["T2"], "task-T1");
    }

    #[test]
    fn hex_decodes_and_refuses_odd_input() {
        assert_eq!(decode_hex("00ff10"), Some(vec![0, 255, 16]));
        assert_eq!(decode_hex("0"), None);
        assert_eq!(decode_hex("zz"), None);
    }
}
