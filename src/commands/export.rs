//! `wf export github-actions|gitlab-ci [-o FILE] [--check]`: the imported plan as a
//! CI pipeline (docs/distributed.md "Exporting a pipeline"), with the project's
//! `wf.export` settings. Read-only but for FILE: the jobs come from
//! `src/plan/jobs.rs`, the YAML from `src/report/export/`. `--check` writes nothing
//! and exits 1 when FILE is not what would be written.

use clap::ValueEnum;
use serde_json::json;

use crate::cli::{AgentTasks, ExportArgs, ExportTarget};
use crate::config::export::ExportSettings;
use crate::constraints::vocabulary;
use crate::error::{Result, WfError};
use crate::output::Output;
use crate::plan::jobs::{self, Leave, Limits};
use crate::project::Project;
use crate::report::export::{self, Install, Pipeline};
use crate::run::policy::needs_agent;
use crate::state::model::Task;
use crate::state::TaskStatus;

pub fn run(project: &Project, args: &ExportArgs, out: &Output) -> Result<i32> {
    let (_, state) = super::load_state(project)?;
    state.require_tasks()?;
    let plan_path = plan_path(project, state.plan_file.as_deref())?;
    export::check_plan_path(&plan_path).map_err(WfError::usage)?;
    let settings = &project.config.wf.export;
    let config_path = project.config.display_path();
    let install = install(project, args, settings, &config_path, out)?;
    let set = settings.agent_tasks.as_deref();
    let set = set.and_then(|a| AgentTasks::from_str(a, false).ok());
    let agent_tasks = args.agent_tasks.or(set).unwrap_or(AgentTasks::Fail);
    let leave = |t: &Task| -> Option<Leave> {
        if t.status == TaskStatus::Skipped {
            return Some(Leave::Skipped(
                "the plan skips it (deferred); its dependants run without it".into(),
            ));
        }
        if !t.blocked_by.is_empty() {
            return Some(Leave::Out(format!(
                "blocked by {}; lift it with `wf workflow-unblock` and export again",
                t.blocked_by.join(", ")
            )));
        }
        (agent_tasks == AgentTasks::Omit && needs_agent(t))
            .then(|| Leave::Out("it needs an agent (--agent-tasks omit)".into()))
    };
    let max_jobs = args
        .max_jobs
        .map(u64::from)
        .or(settings.max_jobs)
        .unwrap_or(200);
    let limits = Limits {
        max_jobs: max_jobs as usize,
    };
    let tasks = state.whole_tasks()?;
    let plan = jobs::plan_jobs(&tasks, &leave, limits).map_err(WfError::usage)?;
    if plan.jobs.is_empty() {
        return Err(WfError::usage(
            "no task is left to export (every one was left out); see `wf status`",
        ));
    }
    let exported: Vec<&Task> = tasks
        .iter()
        .copied()
        .filter(|t| plan.jobs.iter().any(|j| j.tasks.contains(&t.id)))
        .collect();
    let agents: Vec<&str> = exported
        .iter()
        .filter(|t| needs_agent(t))
        .map(|t| t.id.as_str())
        .collect();
    let name = vocabulary::name(&args.target);
    let mut notes = Vec::new();
    if !agents.is_empty() {
        notes.push(agent_note(
            &agents,
            &exported,
            agent_tasks,
            &project.config,
        )?);
    }
    if let Some(note) = constraints_left_behind(&state, &exported, &project.config) {
        notes.push(note);
    }
    if args.target == ExportTarget::GitlabCi {
        for (i, step) in settings.setup.iter().enumerate() {
            if let Some(action) = &step.uses {
                notes.push(format!(
                    "wf.export.setup[{i}] uses the GitHub action {action}, which GitLab has not: it is left out of this pipeline (set wf.export.image to an image that has what it sets up)"
                ));
            }
        }
    }
    let header = header(&name, args, &plan_path, settings, &plan, &notes);
    let pipeline = Pipeline {
        jobs: &plan,
        tasks: exported.iter().map(|t| (t.id.as_str(), *t)).collect(),
        plan_path: &plan_path,
        install: &install,
        settings,
        default_timeout_secs: project.config.wf.timeout_secs.unwrap_or(120),
        header,
        agents: agent_tasks == AgentTasks::Run,
    };
    let text = match args.target {
        ExportTarget::GithubActions => export::github_actions(&pipeline),
        ExportTarget::GitlabCi => export::gitlab_ci(&pipeline),
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
            exported.len(),
            plan.jobs.len()
        )));
    }
    if out.says() {
        for note in &notes {
            crate::output::stderr_line(format_args!("note: {note}"));
        }
    }
    let omitted: Vec<&str> = plan.omitted.iter().map(|(id, _)| id.as_str()).collect();
    let skipped: Vec<&str> = plan.skipped.iter().map(|(id, _)| id.as_str()).collect();
    let task_jobs = plan.jobs.len();
    let facts = json!({"format": name, "jobs": task_jobs, "omitted": omitted, "skipped": skipped, "agent_tasks": agents});
    if args.check {
        return check(args, &text, facts, out);
    }
    if let Some(path) = &args.output {
        crate::fs::durable::write_output(path, text.as_bytes(), "cannot write")?;
        let mut doc = facts;
        doc["output"] = json!(path);
        out.json_value(&doc);
        let mut left = String::new();
        if !omitted.is_empty() {
            left.push_str(&format!("; left out: {}", omitted.join(", ")));
        }
        if !skipped.is_empty() {
            left.push_str(&format!("; skipped: {}", skipped.join(", ")));
        }
        out.say(format!(
            "wrote {} ({task_jobs} task job(s){left})",
            path.display()
        ));
        return Ok(0);
    }
    let mut doc = facts;
    doc["text"] = json!(text);
    out.json_value(&doc);
    if out.says() {
        out.print(text)?;
    }
    Ok(0)
}

/// How the jobs get wf: `--install`, else the settings', else `source` in wf's own
/// repository, else `path` (said on stderr: wf has no crates.io release yet).
fn install(
    project: &Project,
    args: &ExportArgs,
    settings: &ExportSettings,
    config_path: &str,
    out: &Output,
) -> Result<Install> {
    if let Some(text) = &args.install {
        return Install::parse(text).map_err(WfError::usage);
    }
    if let Some(text) = &settings.install {
        return Install::parse(text)
            .map_err(|e| WfError::usage(format!("{config_path}: wf.export.install: {e}")));
    }
    if is_wf_source(&project.dir) {
        return Ok(Install::Source);
    }
    if out.says() {
        crate::output::stderr_line(format_args!(
            "note: the jobs expect wf on the runners' PATH (--install path); for GitHub-hosted or stock runners, export with --install git:URL@COMMIT (or set wf.export.install) to build it in the pipeline"
        ));
    }
    Ok(Install::Path)
}

/// `--check`: whether the file holds what would be written now. Exit 0 when it
/// does, 1 (naming the first line that differs) when it does not or is missing.
fn check(args: &ExportArgs, text: &str, mut facts: serde_json::Value, out: &Output) -> Result<i32> {
    let Some(path) = &args.output else {
        return Err(WfError::usage(
            "--check needs -o FILE: the pipeline to compare",
        ));
    };
    let found = match std::fs::read(path) {
        Ok(bytes) => Some(String::from_utf8_lossy(&bytes).into_owned()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            return Err(WfError::io(&e, format!("{}: {e}", path.display())));
        }
    };
    let differs = match &found {
        None => Some("it does not exist".to_string()),
        Some(found) if found == text => None,
        Some(found) => {
            let line = found
                .lines()
                .zip(text.lines())
                .position(|(a, b)| a != b)
                .unwrap_or_else(|| found.lines().count().min(text.lines().count()));
            Some(format!(
                "line {} differs (now: {:?})",
                line + 1,
                crate::error::one_line(text.lines().nth(line).unwrap_or("the end of the file"))
            ))
        }
    };
    facts["output"] = json!(path);
    facts["up_to_date"] = json!(differs.is_none());
    out.json_value(&facts);
    match differs {
        None => {
            out.say(format!("{} is up to date", path.display()));
            Ok(0)
        }
        Some(why) => {
            if out.says() {
                crate::output::stderr_line(format_args!(
                    "{} is out of date: {why}; export it again with the same command without --check",
                    path.display()
                ));
            }
            Ok(1)
        }
    }
}

/// What becomes of the agent tasks `agents` in CI, said at export. With `run`, each
/// needs an executor in `wf.executors` offering what it needs — refused here, naming
/// the task and the capability, when none does, rather than failing in the job.
fn agent_note(
    agents: &[&str],
    exported: &[&Task],
    how: AgentTasks,
    config: &crate::config::Config,
) -> Result<String> {
    let list = agents.join(", ");
    let needs = if agents.len() == 1 { "needs" } else { "need" };
    match how {
        AgentTasks::Fail => Ok(format!(
            "{list} {needs} an agent: each job fails its task (--agent-tasks fail), and the tasks after it do not run; --agent-tasks run has wf.executors do them, --agent-tasks omit leaves them out with their dependants"
        )),
        AgentTasks::Omit => Ok(format!(
            "{list} {needs} an agent: left out with the tasks that depend on them (--agent-tasks omit)"
        )),
        AgentTasks::Run => {
            let pool = crate::run::executor::Pool::from_config(config, None);
            let mut names: Vec<String> = Vec::new();
            for task in exported.iter().filter(|t| agents.contains(&t.id.as_str())) {
                for capability in pool.required(task) {
                    let Some(name) = pool.offering(&capability) else {
                        return Err(WfError::usage(format!(
                            "--agent-tasks run: task {} needs an executor offering `{capability}`, and wf.executors in {} has none; add one, or export with --agent-tasks fail|omit",
                            task.id,
                            config.display_path()
                        )));
                    };
                    if !names.iter().any(|n| n == name) {
                        names.push(name.to_string());
                    }
                }
            }
            Ok(format!(
                "{list} {needs} an agent: each job has the executor ({}) do its task, then checks it as workflow-execute does (--agent-tasks run); the job needs each executor's program and credentials (wf.export.setup, wf.export.env with a secret)",
                names.join(", ")
            ))
        }
    }
}

/// What a quality gate's job cannot check: a hard constraint with a command that
/// lives only in this machine's workflow (`wf constraints add|merge`). A CI job's
/// workflow is a fresh import of the plan, seeded with the committed constraints
/// (`wf.constraints`), so its gate runs those and the builtin verifiers only. Said
/// at export, naming the ones left behind and how to carry them.
fn constraints_left_behind(
    state: &crate::state::model::WorkflowState,
    exported: &[&Task],
    config: &crate::config::Config,
) -> Option<String> {
    let gates: Vec<&str> = exported
        .iter()
        .filter(|t| t.quality_gate)
        .map(|t| t.id.as_str())
        .collect();
    let hard: Vec<&str> = state
        .constraints
        .hard
        .iter()
        .filter(|c| c.verify_cmd.is_some())
        .filter(|c| {
            !config
                .wf
                .constraints
                .iter()
                .any(|p| crate::constraints::project::is(p, c))
        })
        .map(|c| c.id.as_str())
        .collect();
    if gates.is_empty() || hard.is_empty() {
        return None;
    }
    Some(format!(
        "the job of quality gate {} does not run the hard constraints {}: they are in this machine's workflow only, and a CI job imports the plan afresh; commit them with `wf constraints add --project-config` (wf.constraints in {}), or import CI's results here (wf import-results), which checks a passing gate against them",
        gates.join(", "),
        hard.join(", "),
        crate::config::CONFIG_PATH
    ))
}

/// The comment lines at the top: the command and the settings that made the file
/// (so exporting again reproduces it, and `--check` tells when it would not), what
/// was left out or skipped, and what to know about agent tasks.
fn header(
    target: &str,
    args: &ExportArgs,
    plan_path: &str,
    settings: &ExportSettings,
    jobs: &jobs::JobPlan,
    notes: &[String],
) -> Vec<String> {
    let mut flags = String::new();
    if let Some(i) = &args.install {
        flags.push_str(&format!(" --install {i}"));
    }
    if let Some(a) = &args.agent_tasks {
        flags.push_str(&format!(" --agent-tasks {}", vocabulary::name(a)));
    }
    if let Some(m) = args.max_jobs {
        flags.push_str(&format!(" --max-jobs {m}"));
    }
    // Relative: the header is the same wherever the project is checked out.
    let config_path = crate::config::CONFIG_PATH;
    let set = settings_named(settings);
    let mut lines = vec![
        format!("Written by `wf export {target}{flags}` from the plan {plan_path},"),
        if set.is_empty() {
            format!("with no wf.export settings in {config_path}.")
        } else {
            format!(
                "with the wf.export settings of {config_path}:\n  {}.",
                set.join(", ")
            )
        },
        "Change the plan or the settings, not this file, and export again;".into(),
        format!("`wf export {target}{flags} --check -o THIS_FILE` exits 1 when it is out of date."),
        "Each task job runs `wf run-task`; the collect job imports every result".into(),
        "(`wf import-results`) and reports.".into(),
    ];
    let mut list = |title: &str, tasks: &[(String, String)]| {
        if !tasks.is_empty() {
            lines.push(title.into());
            lines.extend(tasks.iter().map(|(id, why)| format!("  {id}: {why}")));
        }
    };
    list(
        "Skipped (not run; what depends on them runs):",
        &jobs.skipped,
    );
    list("Left out:", &jobs.omitted);
    lines.extend(notes.iter().map(|note| format!("Note: {note}.")));
    lines
}

/// The names of the settings a config sets, in the order docs/distributed.md lists
/// them.
fn settings_named(s: &ExportSettings) -> Vec<&'static str> {
    [
        ("install", s.install.is_some()),
        ("agent_tasks", s.agent_tasks.is_some()),
        ("max_jobs", s.max_jobs.is_some()),
        ("runs_on", s.runs_on.is_some()),
        ("image", s.image.is_some()),
        ("tags", !s.tags.is_empty()),
        ("setup", !s.setup.is_empty()),
        ("triggers", s.triggers.is_some()),
        ("timeout_minutes", s.timeout_minutes.is_some()),
        ("env", !s.env.is_empty()),
        ("concurrency", s.concurrency.is_some()),
        ("cache", s.cache.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect()
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
