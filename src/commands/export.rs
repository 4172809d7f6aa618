//! `wf export github-actions|gitlab-ci [-o FILE]`: the imported plan as a CI
//! pipeline (docs/distributed.md "Exporting a pipeline"). Read-only: the jobs come
//! from `src/plan/jobs.rs`, the YAML from `src/report/export/`.

use serde_json::json;

use crate::cli::{AgentTasks, ExportArgs, ExportTarget};
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::plan::jobs::{self, Limits};
use crate::project::Project;
use crate::report::export::{self, Install, Pipeline};
use crate::run::policy::needs_agent;
use crate::state::model::Task;

pub fn run(project: &Project, args: &ExportArgs, out: &Output) -> Result<i32> {
    let (_, state) = super::load_state(project)?;
    state.require_tasks()?;
    let plan_path = plan_path(project, state.plan_file.as_deref())?;
    export::check_plan_path(&plan_path).map_err(WfError::usage)?;
    let install = match &args.install {
        Some(text) => Install::parse(text).map_err(WfError::usage)?,
        None if is_wf_source(&project.dir) => Install::Source,
        None => {
            // wf has no crates.io release to install: without a word from the user,
            // the jobs expect it on the runners, and say so when it is not there.
            if out.says() {
                crate::output::stderr_line(format_args!(
                    "note: the jobs expect wf on the runners' PATH (--install path); for GitHub-hosted or stock runners, export with --install git:URL@COMMIT to build it in the pipeline"
                ));
            }
            Install::Path
        }
    };
    let omit_agents = args.agent_tasks == AgentTasks::Omit;
    let omit = |t: &Task| -> Option<String> {
        if !t.blocked_by.is_empty() {
            return Some(format!(
                "blocked by {}; lift it with `wf workflow-unblock` and export again",
                t.blocked_by.join(", ")
            ));
        }
        (omit_agents && needs_agent(t)).then(|| "it needs an agent (--agent-tasks omit)".into())
    };
    let limits = Limits {
        max_jobs: args.max_jobs as usize,
        max_needs: match args.target {
            ExportTarget::GithubActions => None,
            ExportTarget::GitlabCi => Some(export::GITLAB_MAX_NEEDS),
        },
    };
    let plan = jobs::plan_jobs(&state.tasks, &omit, limits).map_err(WfError::usage)?;
    if plan.jobs.is_empty() {
        return Err(WfError::usage(
            "no task is left to export (every one was left out); see `wf status`",
        ));
    }
    let pipeline = Pipeline {
        jobs: &plan,
        plan_path: &plan_path,
        install: &install,
    };
    let (name, text) = match args.target {
        ExportTarget::GithubActions => ("github-actions", export::github_actions(&pipeline)),
        ExportTarget::GitlabCi => ("gitlab-ci", export::gitlab_ci(&pipeline)),
    };
    let (limit, ci) = match args.target {
        ExportTarget::GithubActions => (export::GITHUB_MAX_BYTES, "GitHub's"),
        ExportTarget::GitlabCi => (export::GITLAB_MAX_BYTES, "GitLab's default"),
    };
    if text.len() > limit {
        return Err(WfError::usage(format!(
            "the pipeline would be {} KB, over {ci} limit of {} KB per file ({} tasks in {} jobs, each task id written once); split the plan, or run it in one job with `wf workflow-execute --all --ci`",
            text.len() / 1024,
            limit / 1024,
            state.tasks.len() - plan.omitted.len(),
            plan.jobs.len()
        )));
    }
    let omitted: Vec<&str> = plan.omitted.iter().map(|(id, _)| id.as_str()).collect();
    let task_jobs = plan.jobs.iter().filter(|j| !j.tasks.is_empty()).count();
    if let Some(path) = &args.output {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| WfError::io(&e, format!("-o {}: {e}", dir.display())))?;
        }
        // Whole or not at all, and never through a link planted at the path. Made
        // absolute: the durable write syncs the file's directory, which a bare name
        // does not name.
        let cannot = |e: String| WfError::usage(format!("cannot write {}: {e}", path.display()));
        let absolute = std::path::absolute(path).map_err(|e| cannot(e.to_string()))?;
        crate::fs::durable::write_atomic_swept(&absolute, text.as_bytes()).map_err(|e| {
            WfError::new(
                e.kind,
                format!("cannot write {}: {}", path.display(), e.message),
            )
        })?;
        out.json_value(
            &json!({"format": name, "output": path, "jobs": task_jobs, "omitted": omitted}),
        );
        out.say(format!(
            "wrote {} ({task_jobs} task job(s){})",
            path.display(),
            if omitted.is_empty() {
                String::new()
            } else {
                format!("; left out: {}", omitted.join(", "))
            }
        ));
        return Ok(0);
    }
    out.json_value(&json!({"format": name, "text": text, "jobs": task_jobs, "omitted": omitted}));
    if out.says() {
        out.print(text)?;
    }
    Ok(0)
}

/// Whether the project is wf's own source (its Cargo.toml's package is `wf`): then
/// the pipeline builds the checked-out wf (`--install source`).
fn is_wf_source(dir: &std::path::Path) -> bool {
    let Ok(bytes) = crate::fs::read_regular(&dir.join("Cargo.toml")) else {
        return false;
    };
    let text = String::from_utf8_lossy(&bytes);
    let mut in_package = false;
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package && line.replace(' ', "") == "name=\"wf\"" {
            return true;
        }
    }
    false
}

/// The plan's path relative to the project, where the pipeline's checkout has it.
fn plan_path(project: &Project, plan_file: Option<&str>) -> Result<String> {
    let plan = plan_file.ok_or_else(|| {
        WfError::usage(
            "the workflow does not name its plan file; import it with `wf workflow-start PLAN.md`",
        )
    })?;
    let path = std::path::Path::new(plan);
    let rel = if path.is_absolute() {
        path.strip_prefix(&project.dir).map_err(|_| {
            WfError::usage(format!(
                "the plan {plan} is outside the project {}; a pipeline checks out only the project: move the plan into it and import it again",
                project.dir.display()
            ))
        })?
    } else {
        path
    };
    Ok(rel.to_string_lossy().into_owned())
}
