//! `wf workflow-execute`: run the next tasks until the mode's stop point.
//!
//! Before the engine runs, the command settles what the user asked for and what the
//! state needs: `--retry`/`--skip`, recovery from an interrupted run (a crash left the
//! state `running` with no process holding the lock), and the refusals (audit errors,
//! open questions, a decision the user still owes).

use std::time::Duration;

use serde_json::json;

use crate::cli::{ExecuteArgs, GlobalArgs};
use crate::error::{ErrorKind, Result, WfError};
use crate::output::Output;
use crate::project::Project;
use crate::run::engine::{Engine, Mode, Options, Stop};
use crate::run::executor::{MockPolicy, Pool};
use crate::run::recovery;
use crate::run::work::WorkCtx;
use crate::state::{Session, WorkflowStatus};

pub fn run(
    project: &Project,
    global: &GlobalArgs,
    args: &ExecuteArgs,
    out: &Output,
) -> Result<i32> {
    let store = project.store();
    store.refuse_untouched_without_tasks()?;
    if args.dry_run {
        return dry_run(project, args, out);
    }
    let mut session = store.lock(global.wait.map(Duration::from_secs), "workflow-execute")?;
    execute_locked(project, &mut session, args, out)
}

/// The mode the run works in — the one asked for, else the workflow's — and whether
/// it runs under the CI rules (`--ci`, or CI=true in the environment).
fn asked(args: &ExecuteArgs, state: &crate::state::WorkflowState) -> (Mode, bool) {
    let mode = if args.step {
        Mode::Step
    } else if args.all {
        Mode::All
    } else if args.quality_gate {
        Mode::QualityGate
    } else if args.phase {
        Mode::Phase
    } else {
        Mode::from_state_name(&state.execution_mode)
    };
    let ci = args.ci || std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    (mode, ci)
}

/// `--dry-run`: the order a run would take, read without the lock; nothing written.
fn dry_run(project: &Project, args: &ExecuteArgs, out: &Output) -> Result<i32> {
    let (_, state) = super::load_state(project)?;
    state.require_tasks()?;
    let (mode, ci) = asked(args, &state);
    let dry = crate::report::execute::DryRun {
        mode,
        executors: !project.config.wf.executors.is_empty(),
        ci,
    };
    let (text, json) = crate::report::execute::dry_run(&state, &dry)?;
    out.json_value(&json);
    out.say(text);
    Ok(0)
}

/// The whole of an execute once the lock is held; `resume` shares it.
pub fn execute_locked(
    project: &Project,
    session: &mut Session,
    args: &ExecuteArgs,
    out: &Output,
) -> Result<i32> {
    // First, before anything is written: a plugin state whose tasks could not be
    // adopted is refused as it is.
    session.state()?.require_tasks()?;
    let recovered = recovery::recover_interrupted(session)?;
    if !recovered.rerun.is_empty() {
        out.warn(format!(
            "the previous run was interrupted; {} will run again{}",
            recovered.rerun.join(", "),
            if recovered.ended == 0 {
                String::new()
            } else {
                format!(
                    " (ended {} process {} it left running)",
                    recovered.ended,
                    if recovered.ended == 1 {
                        "group"
                    } else {
                        "groups"
                    }
                )
            }
        ));
    }
    recovery::refuse_undecided(session, args.allow_audit_errors, args.allow_open_questions)?;
    let status = session.state()?.status;
    if matches!(status, WorkflowStatus::Completed | WorkflowStatus::Archived)
        && (args.retry.is_some() || args.skip.is_some())
    {
        return Err(WfError::usage(format!(
            "the workflow is {status}; --retry and --skip apply to a workflow that is still going (re-import the plan to change it)"
        )));
    }
    if let Some(target) = &args.retry {
        let id = recovery::retry(session, target)?;
        out.say(format!("Retrying {id}."));
    }
    if let Some(target) = &args.skip {
        let reason = args.reason.as_deref().unwrap_or_default();
        let id = recovery::skip(session, target, reason)?;
        out.say(format!("Skipped {id}: {reason}"));
    }
    let state = session.state()?;
    match state.status {
        WorkflowStatus::Completed => {
            // A run killed between its last event and its checkpoint left the plan
            // copy behind the state; nothing else would bring it up to date.
            crate::plan::mirror::mirror_plan_copy(session)?;
            out.json_value(&json!({"stop": "completed", "reason": "already completed", "exit_code": 0}));
            out.say("The workflow is already completed; `wf archive` puts it away.");
            // A CI job that finds the work done (results imported, a job run again)
            // still gets the report it names.
            report_to_ci(project, session, args, out)?;
            return Ok(0);
        }
        WorkflowStatus::Archived | WorkflowStatus::Idle => {
            return Err(WfError::usage(format!(
                "the workflow is {}; start one with `wf workflow-start PLAN.md`",
                state.status
            )))
        }
        // With --keep-going a --retry or --skip in this call goes on even when other
        // tasks are still failed (a --keep-going run can leave several); they keep the
        // run `failed`. Without it, as before, every failure must be settled first —
        // as `run::now` decides, which `wf next` shows.
        _ if !(args.keep_going && (args.retry.is_some() || args.skip.is_some()))
            && matches!(
                crate::run::now::what_now(
                    state,
                    crate::run::now::Facts {
                        writer_alive: true,
                        allow_audit_errors: true,
                        allow_open_questions: true,
                    }
                )?,
                crate::run::now::Now::Failed(_)
            ) =>
        {
            return Err(WfError::new(
                ErrorKind::Failed,
                format!(
                    "the workflow failed: {}; after a fix, `wf resume` runs the failed task again (or `--retry TASK`); skip it with `--skip TASK --reason TEXT`, or put the workflow away with `wf archive --force`",
                    state.failure_reason.as_deref().unwrap_or("no reason recorded")
                ),
            ))
        }
        _ => {}
    }

    let state = session.state()?;
    let (mode, ci) = asked(args, state);
    // In CI a run goes to the end — `--all` included: a gate is no reason to pause a
    // job — unless the command line asks for a step or a phase.
    let explicit_mode = args.step || args.phase;
    if ci {
        out.say(if explicit_mode {
            "CI: agent tasks fail instead of being handed off; the mode asked for keeps its stop."
        } else {
            "CI: agent tasks fail instead of being handed off, and the run goes to the end (--step or --phase keeps a mode's stop)."
        });
    }
    let defaults = Options::for_workflow(
        &project.config,
        &project.dir,
        session.store().dir(),
        state,
        mode,
    );
    let opts = Options {
        ci,
        explicit_mode,
        keep_going: args.keep_going,
        jobs: args.jobs as usize,
        cache: super::cache_dir(&args.cache, session.store().dir()),
        require_checks: !args.allow_unchecked
            && (args.require_checks || ci || defaults.require_checks),
        pause_at: args.pause_at.unwrap_or(defaults.pause_at),
        ..defaults
    };
    let mock = match &args.mock {
        Some(text) => Some(
            MockPolicy::parse(text)
                .map_err(|why| WfError::usage(format!("--mock {text}: {why}")))?,
        ),
        None => None,
    };
    let pool = Pool::from_config(&project.config, mock);
    let mut ctx = WorkCtx::for_session(&project.dir, &project.config, session)?;
    // An agent task is retried only by executors (`policy`): the bound of its attempts.
    let agent_attempts = (!pool.is_empty()).then(|| opts.max_retries + 1);
    let mut reporter = crate::report::progress::RunProgress::new(
        out,
        ctx.workflow_dir.clone(),
        agent_attempts,
        args.verbose,
        opts.jobs,
    );
    ctx.echo = reporter.echo();
    let mut engine = Engine::new(
        session,
        ctx,
        opts,
        pool,
        crate::report::brief::brief,
        &mut reporter,
    )?;
    let stop = engine.run()?;
    let summary = engine.summary().clone();
    drop(engine);
    reporter.done();
    let checks = crate::run::derived::config_checks(&project.config);
    let hand_off = crate::report::execute::HandOff {
        checks: &checks,
        capabilities: &project.config.wf.capabilities,
    };
    report_stop(session, &stop, &summary, args.keep_going, &hand_off, out)?;
    report_to_ci(project, session, args, out)?;
    Ok(stop.exit_code(summary.ci_to_the_end))
}

/// `--junit FILE`, and under GitHub Actions the `::error` annotations and the job
/// summary appended to `$GITHUB_STEP_SUMMARY`.
fn report_to_ci(
    project: &Project,
    session: &Session,
    args: &ExecuteArgs,
    out: &Output,
) -> Result<()> {
    let state = session.state()?;
    if let Some(path) = &args.junit {
        let times = crate::report::timing::TaskTimes::read(&session.store().events_path());
        let xml = crate::report::junit::junit(state, session.store().dir(), &times)?;
        crate::fs::durable::write_output(path, xml.as_bytes(), "--junit")?;
    }
    if std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true") {
        if !out.json {
            let plan = super::report::github_plan_path(state, project);
            for line in crate::report::github::annotations(state, plan.as_deref())? {
                // A reader that is gone ends the annotations; `settle` says how.
                if out.print(format!("{line}\n")).is_err() {
                    break;
                }
            }
        }
        if let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY") {
            use std::io::Write;
            let summary = crate::report::github::step_summary(state)?;
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|e| {
                    WfError::io(
                        &e,
                        format!(
                            "GITHUB_STEP_SUMMARY {}: {e}",
                            std::path::Path::new(&path).display()
                        ),
                    )
                })?;
            file.write_all(summary.as_bytes())
                .map_err(|e| WfError::io(&e, format!("GITHUB_STEP_SUMMARY: {e}")))?;
        }
    }
    Ok(())
}

fn report_stop(
    session: &Session,
    stop: &Stop,
    summary: &crate::run::engine::RunSummary,
    keep_going: bool,
    hand_off: &crate::report::execute::HandOff,
    out: &Output,
) -> Result<()> {
    let state = session.state()?;
    if out.json {
        out.json_value(&crate::report::execute::stop_json(state, stop, summary));
    }
    let text = crate::report::execute::stop_text(state, stop, keep_going, hand_off)?;
    out.conclude(&text, !matches!(stop, Stop::Failed { .. }));
    Ok(())
}
